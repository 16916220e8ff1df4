//! What mcplogs knows about Claude Code itself, written down in `docs/claude-code.md`:
//! its paths and file names on every OS ([`paths`]), its folder-name encoding ([`names`]), the log wording it keys on ([`markers`]), and which
//! servers it configures for a project ([`config`]), its settings layers ([`layer`]) and
//! how each build discovers tools ([`lifecycle`]). It imports nothing from `settings`.

pub mod config;
pub mod discovery_cache;
pub mod flags;
pub mod layer;
pub mod lifecycle;
pub mod markers;
pub mod names;
pub mod paths;
