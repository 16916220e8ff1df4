//! What mcplogs knows about Claude Code itself, written down in `docs/claude-code.md`:
//! its folder-name encoding ([`names`]), the log wording it keys on ([`markers`]), and which
//! servers it configures for a project ([`config`]).

pub mod config;
pub mod markers;
pub mod names;
