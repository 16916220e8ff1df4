//! Grouping a server's records into sessions, classifying each as its records stream
//! past: only a session's evidence and summary are kept, never all of its records.

use std::collections::HashMap;

use crate::classify::Classifier;
use crate::classify::verdict::Diagnosis;
use crate::logs::record::{Record, RecordRef, set_str};

/// The file a record came from, shared by its records.
type FileRef = std::sync::Arc<std::path::PathBuf>;

/// A session being read.
#[derive(Debug)]
struct OpenSession {
    id: String,
    file: std::sync::Arc<std::path::PathBuf>,
    first_timestamp: Option<String>,
    last_timestamp: Option<String>,
    cwd: Option<String>,
    last_record: Option<Record>,
    classifier: Classifier<Record>,
}

/// One Claude Code session of one server, once read.
#[derive(Debug, Clone)]
pub struct SessionLog {
    /// `sessionId`, or the file path for records without one.
    pub id: String,
    /// The file holding the session's records: one Claude Code process writes one file
    /// per server, so a session never spans files (a resumed session id in a later
    /// process's file is a new session: a new process, a new connection).
    pub file: std::path::PathBuf,
    pub first_timestamp: Option<String>,
    pub last_timestamp: Option<String>,
    /// The working directory Claude Code ran in (the latest one recorded).
    pub cwd: Option<String>,
    pub diagnosis: Diagnosis,
    /// The records that decided the diagnosis; when none did, the session's last record.
    pub evidence: Vec<Record>,
}

/// Groups records by file and `sessionId`. Feed records in file order, files in name (=
/// start time) order.
#[derive(Debug, Default)]
pub struct SessionGrouper {
    /// By session id, then file (equal paths are one file): only the id is hashed, as
    /// a session's files are one or few (hashing a path was 1% of a scan).
    index: HashMap<String, Vec<(FileRef, usize)>>,
    sessions: Vec<OpenSession>,
    /// The session of the record pushed last.
    last: Option<usize>,
}

impl SessionGrouper {
    pub fn push(&mut self, r: Record) {
        self.push_ref(r.as_ref());
    }

    /// [`push`](Self::push) of a borrowed record: only what the session keeps is copied
    /// (into buffers it already has, mostly).
    pub fn push_ref(&mut self, r: RecordRef<'_>) {
        let i = match self.same_as_last(&r) {
            Some(i) => i,
            None => self.open(&r),
        };
        self.last = Some(i);
        let s = &mut self.sessions[i];
        if let Some(ts) = r.timestamp {
            if s.first_timestamp.is_none() {
                s.first_timestamp = Some(ts.to_string());
            }
            // In place: a session's records rarely need a longer buffer.
            set_str(&mut s.last_timestamp, Some(ts));
        }
        if let Some(cwd) = r.cwd {
            set_str(&mut s.cwd, Some(cwd));
        }
        s.classifier.feed(r.message, || r.to_record());
        match &mut s.last_record {
            Some(last) => r.copy_into(last),
            None => s.last_record = Some(r.to_record()),
        }
    }

    /// The session of the record before, when `r` is of it too (records come a session
    /// at a time): found without building the key.
    fn same_as_last(&self, r: &RecordRef<'_>) -> Option<usize> {
        let i = self.last?;
        let s = &self.sessions[i];
        let id = r.session_id.filter(|id| !id.is_empty())?;
        (std::sync::Arc::ptr_eq(&s.file, r.file) && s.id == id).then_some(i)
    }

    /// The session `r` belongs to, opened if new.
    fn open(&mut self, r: &RecordRef<'_>) -> usize {
        let id = match r.session_id {
            Some(id) if !id.is_empty() => id.to_string(),
            _ => format!("file:{}", r.file.display()),
        };
        let of_file = |files: &Vec<(FileRef, usize)>| {
            files
                .iter()
                .find(|(f, _)| std::sync::Arc::ptr_eq(f, r.file) || **f == **r.file)
                .map(|&(_, i)| i)
        };
        if let Some(i) = self.index.get(&id).and_then(of_file) {
            return i;
        }
        let i = self.sessions.len();
        self.index
            .entry(id.clone())
            .or_default()
            .push((std::sync::Arc::clone(r.file), i));
        self.sessions.push(OpenSession {
            id,
            file: std::sync::Arc::clone(r.file),
            first_timestamp: None,
            last_timestamp: None,
            cwd: None,
            last_record: None,
            classifier: Classifier::default(),
        });
        i
    }

    /// The sessions, ordered by their first timestamp (sessions without one keep their
    /// file order, which is start order). The scan groups each file on its own, so its
    /// sessions are in file order first.
    pub fn finish(self) -> Vec<SessionLog> {
        let mut out: Vec<SessionLog> = self
            .sessions
            .into_iter()
            .map(|s| {
                let (diagnosis, mut evidence) = s.classifier.finish();
                if evidence.is_empty() {
                    evidence.extend(s.last_record);
                }
                SessionLog {
                    id: s.id,
                    file: s.file.as_ref().clone(),
                    first_timestamp: s.first_timestamp,
                    last_timestamp: s.last_timestamp,
                    cwd: s.cwd,
                    diagnosis,
                    evidence,
                }
            })
            .collect();
        out.sort_by(|a, b| match (&a.first_timestamp, &b.first_timestamp) {
            (Some(x), Some(y)) => x.cmp(y),
            _ => std::cmp::Ordering::Equal,
        });
        out
    }
}

/// Groups and classifies records held in memory.
pub fn group_sessions(records: impl IntoIterator<Item = Record>) -> Vec<SessionLog> {
    let mut g = SessionGrouper::default();
    for r in records {
        g.push(r);
    }
    g.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::verdict::Verdict;
    use crate::logs::record::Level;
    use std::path::PathBuf;
    use std::sync::Arc;

    fn rec(file: &str, sid: Option<&str>, ts: Option<&str>, msg: &str) -> Record {
        Record {
            message: msg.to_string(),
            level: Level::Debug,
            timestamp: ts.map(str::to_string),
            session_id: sid.map(str::to_string),
            cwd: None,
            server: None,
            file: Arc::new(PathBuf::from(file)),
            line: 1,
        }
    }

    const OK: &str = r#"Connection established with capabilities: {"protocolEra":"legacy"}"#;

    #[test]
    fn groups_by_session_and_orders_by_time() {
        let sessions = group_sessions(vec![
            rec("a", Some("s2"), Some("2026-01-02T00:00:00Z"), OK),
            rec(
                "a",
                Some("s1"),
                Some("2026-01-01T00:00:00Z"),
                "Starting connection",
            ),
            rec(
                "a",
                Some("s2"),
                Some("2026-01-02T00:00:01Z"),
                "Connection failed: Connection closed",
            ),
        ]);
        assert_eq!(sessions.len(), 2);
        assert_eq!(sessions[0].id, "s1");
        assert_eq!(sessions[0].diagnosis.verdict, Verdict::Unknown);
        // Nothing decided: the last record stands as evidence.
        assert_eq!(sessions[0].evidence[0].message, "Starting connection");
        assert_eq!(sessions[1].diagnosis.verdict, Verdict::ConnectionFailed);
        assert_eq!(
            sessions[1].last_timestamp.as_deref(),
            Some("2026-01-02T00:00:01Z")
        );
        assert_eq!(sessions[1].evidence.len(), 1);
    }

    #[test]
    fn one_session_id_in_two_files_is_two_sessions() {
        // A resumed session id in a later process's file is a new session; records of
        // one path are one file whichever `Arc` they carry.
        let sessions = group_sessions(vec![
            rec("f1", Some("s"), Some("2026-01-01T00:00:00Z"), "x"),
            rec("f2", Some("s"), Some("2026-01-02T00:00:00Z"), OK),
            rec("f1", Some("s"), Some("2026-01-01T00:00:01Z"), "y"),
        ]);
        assert_eq!(sessions.len(), 2);
        assert_eq!(*sessions[0].file, *PathBuf::from("f1"));
        assert_eq!(sessions[0].evidence[0].message, "y");
        assert_eq!(sessions[1].diagnosis.verdict, Verdict::Healthy);
    }

    #[test]
    fn records_without_session_id_group_by_file() {
        let sessions = group_sessions(vec![
            rec("f1", None, None, "x"),
            rec("f2", None, None, OK),
            rec("f1", None, None, "z"),
        ]);
        assert_eq!(sessions.len(), 2);
        assert_eq!(sessions[0].evidence[0].message, "z");
        assert_eq!(sessions[1].diagnosis.verdict, Verdict::Healthy);
    }
}
