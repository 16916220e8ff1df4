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

/// A record borrowed from the text it was decoded from: what the scan's reader hands on,
/// so that a record that only passes through (most do: a session keeps its summary,
/// its evidence and its last record) costs no allocation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecordRef<'a> {
    pub message: &'a str,
    pub level: Level,
    pub timestamp: Option<&'a str>,
    pub session_id: Option<&'a str>,
    pub cwd: Option<&'a str>,
    pub server: Option<&'a str>,
    pub file: &'a Arc<PathBuf>,
    pub line: usize,
}

impl RecordRef<'_> {
    /// The record, owned.
    pub fn to_record(&self) -> Record {
        Record {
            message: self.message.to_string(),
            level: self.level,
            timestamp: self.timestamp.map(str::to_string),
            session_id: self.session_id.map(str::to_string),
            cwd: self.cwd.map(str::to_string),
            server: self.server.map(str::to_string),
            file: Arc::clone(self.file),
            line: self.line,
        }
    }

    /// Makes `r` this record, reusing its strings' buffers.
    pub fn copy_into(&self, r: &mut Record) {
        r.message.clear();
        r.message.push_str(self.message);
        r.level = self.level;
        set_str(&mut r.timestamp, self.timestamp);
        set_str(&mut r.session_id, self.session_id);
        set_str(&mut r.cwd, self.cwd);
        set_str(&mut r.server, self.server);
        if !Arc::ptr_eq(&r.file, self.file) {
            r.file = Arc::clone(self.file);
        }
        r.line = self.line;
    }
}

/// Makes `to` hold `from`, in the buffer it already has when it has one.
pub(crate) fn set_str(to: &mut Option<String>, from: Option<&str>) {
    match (to.as_mut(), from) {
        (Some(t), Some(f)) => {
            t.clear();
            t.push_str(f);
        }
        (_, f) => *to = f.map(str::to_string),
    }
}

impl Record {
    /// The record, borrowed.
    pub fn as_ref(&self) -> RecordRef<'_> {
        RecordRef {
            message: &self.message,
            level: self.level,
            timestamp: self.timestamp.as_deref(),
            session_id: self.session_id.as_deref(),
            cwd: self.cwd.as_deref(),
            server: self.server.as_deref(),
            file: &self.file,
            line: self.line,
        }
    }
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

    #[test]
    fn a_borrowed_record_copies_into_any_record_as_it_is_owned() {
        let file = Arc::new(PathBuf::from("a.jsonl"));
        let other = Arc::new(PathBuf::from("b.jsonl"));
        let full = Record {
            message: "Connection failed: x".to_string(),
            level: Level::Error,
            timestamp: Some("2026-11-29T11:50:31.063Z".to_string()),
            session_id: Some("s".to_string()),
            cwd: Some("/w".to_string()),
            server: Some("srv".to_string()),
            file: Arc::clone(&file),
            line: 7,
        };
        let bare = Record {
            message: "m".to_string(),
            level: Level::Debug,
            timestamp: None,
            session_id: None,
            cwd: None,
            server: None,
            file: Arc::clone(&other),
            line: 1,
        };
        for (from, into) in [(&full, &bare), (&bare, &full), (&full, &full)] {
            assert_eq!(from.as_ref().to_record(), *from);
            let mut r = into.clone();
            from.as_ref().copy_into(&mut r);
            assert_eq!(r, *from);
        }
    }
}
