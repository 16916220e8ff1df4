//! mcplogs: diagnoses Claude Code's MCP server connections from the logs it leaves on
//! disk. The library holds all logic, never prints and never exits; the binary
//! (`src/bin/mcplogs/`) parses, calls, renders and picks the exit code.
//!
//! The pipeline, a folder each: [`logs`] (where the logs are, bytes to records, records
//! to sessions) -> [`classify`] (a session to a [`classify::verdict::Diagnosis`]) ->
//! [`scan`] (every server, with its summary cache) -> [`advice`] (what to do, knowing
//! the settings) -> [`render`] (each command's screen and `--json` document, typed in
//! [`json_doc`]). Beside it: [`claude_code`] (what mcplogs knows of Claude Code: paths,
//! names, log wording, configured servers; `docs/claude-code.md`), [`settings`],
//! [`probe`], [`report`], [`resolve`] (one server's whole state, resolved once for
//! every command), [`disk`] (du and prune), [`explain`], [`status`], and the
//! leaves [`redact`], [`text`], [`safe_read`], [`time`] and [`warning`]. The allowed
//! imports are a table in CONTRIBUTING.md, checked by `tests/cli/direction.rs`.

// The library never prints: it returns text and data, and the binary writes them (the
// lints are in Cargo.toml `[lints]`).

pub mod absent;
pub mod advice;
pub mod classify;
pub mod claude_code;
pub mod disk;
pub mod explain;
pub mod export;
pub mod json_doc;
pub mod logs;
pub mod probe;
pub mod redact;
pub mod render;
pub mod report;
pub mod resolve;
pub mod safe_read;
pub mod scan;
pub mod settings;
pub mod status;
pub mod store;
pub mod text;
pub mod time;
pub mod warning;

#[cfg(test)]
mod test_support;
