//! One decoded log record, whatever format it came from.

use std::path::PathBuf;
use std::sync::Arc;

/// The severity Claude Code gave a record. In the per-server `.jsonl` files this is the
/// message key (`debug` or `error`); in debug logs it is the `[LEVEL]` tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Verbose,
    Debug,
    Info,
    Warn,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Verbose => "verbose",
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }

    /// Parses a record key (`"debug"`) or a debug-log tag (`"DEBUG"`).
    pub fn parse(s: &str) -> Option<Level> {
        // Compared in place: a lower-cased copy per record was 1% of a scan.
        [
            ("verbose", Level::Verbose),
            ("debug", Level::Debug),
            ("info", Level::Info),
            ("warn", Level::Warn),
            ("warning", Level::Warn),
            ("error", Level::Error),
        ]
        .into_iter()
        .find(|(name, _)| s.eq_ignore_ascii_case(name))
        .map(|(_, level)| level)
    }
}

/// A record after decoding: the message is the JSON-decoded text, never the raw escaped
/// line, so matching works on what Claude Code actually said.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub message: String,
    pub level: Level,
    pub timestamp: Option<String>,
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    /// The server a debug-log entry names (`MCP server "<name>": ...`). Per-server log
    /// files do not carry it: their folder says which server they belong to.
    pub server: Option<String>,
    /// Where the record came from, for evidence: shared between all records of a file.
    pub file: Arc<PathBuf>,
    /// 1-based line where the record starts.
    pub line: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_is_read_in_any_ascii_case() {
        for (s, want) in [
            ("debug", Some(Level::Debug)),
            ("DEBUG", Some(Level::Debug)),
            ("Warning", Some(Level::Warn)),
            ("WARN", Some(Level::Warn)),
            ("error", Some(Level::Error)),
            ("info", Some(Level::Info)),
            ("VERBOSE", Some(Level::Verbose)),
            ("warnings", None),
            ("", None),
            ("debuġ", None),
        ] {
            assert_eq!(Level::parse(s), want, "{s}");
        }
    }
}
