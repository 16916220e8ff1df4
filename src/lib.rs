//! mcplogs: diagnoses Claude Code's MCP server connections from the logs it leaves on
//! disk. The library holds all logic and never prints; `src/main.rs` renders.
//!
//! Layers, each usable alone: [`discovery`] (where the logs are) -> [`decode`] (bytes to
//! [`record::Record`]s) -> [`session`] (group and order) -> [`classify`] (records to a
//! [`verdict::Diagnosis`]) -> [`render`] (table, JSON). [`scan`] ties them together;
//! [`explain`] reads pasted `claude mcp list` output. [`settings`], [`redact`] and
//! [`report`] stand apart; the binary composes them. Leaves shared by all: [`text`]
//! (terminal-safe and one-line forms) and [`markers`] (the log wording keyed on). The
//! allowed imports are a table in CONTRIBUTING.md, checked by `tests/cli/direction.rs`.

// The library never prints: it returns text and data, and the binary writes them. CI
// runs clippy with `-D warnings`, which makes these errors there.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod advice;
pub mod classify;
pub mod claude_code;
pub mod disk;
pub mod explain;
pub mod json_doc;
pub mod logs;
pub mod probe;
pub mod redact;
pub mod render;
pub mod report;
pub mod safe_read;
pub mod scan;
pub mod settings;
pub mod status;
pub mod text;
pub mod time;
pub mod warning;

#[cfg(test)]
mod test_support;
