//! Grouping a server's records into sessions and ordering them in time.

use std::collections::HashMap;

use crate::record::Record;

/// The records of one Claude Code session for one server.
#[derive(Debug, Clone)]
pub struct SessionLog {
    /// `sessionId`, or the file path for records without one.
    pub id: String,
    pub records: Vec<Record>,
}

impl SessionLog {
    pub fn first_timestamp(&self) -> Option<&str> {
        self.records.iter().find_map(|r| r.timestamp.as_deref())
    }

    pub fn last_timestamp(&self) -> Option<&str> {
        self.records
            .iter()
            .rev()
            .find_map(|r| r.timestamp.as_deref())
    }

    /// The working directory Claude Code ran in (the latest one recorded).
    pub fn cwd(&self) -> Option<&str> {
        self.records.iter().rev().find_map(|r| r.cwd.as_deref())
    }

    pub fn messages(&self) -> Vec<&str> {
        self.records.iter().map(|r| r.message.as_str()).collect()
    }
}

/// Groups records by `sessionId` (falling back to their file) and orders sessions, and
/// records inside each, by time. Records without a timestamp keep their file order.
pub fn group_sessions(records: Vec<Record>) -> Vec<SessionLog> {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut sessions: Vec<SessionLog> = Vec::new();
    for r in records {
        let key = match &r.session_id {
            Some(id) if !id.is_empty() => id.clone(),
            _ => format!("file:{}", r.file.display()),
        };
        let i = *index.entry(key.clone()).or_insert_with(|| {
            sessions.push(SessionLog {
                id: key,
                records: Vec::new(),
            });
            sessions.len() - 1
        });
        sessions[i].records.push(r);
    }
    for s in &mut sessions {
        // A resumed session can span several process files: merge them in time order.
        if s.records.iter().all(|r| r.timestamp.is_some())
            && s.records.windows(2).any(|w| w[0].file != w[1].file)
        {
            s.records.sort_by(|a, b| a.timestamp.cmp(&b.timestamp));
        }
    }
    // Stable: sessions without timestamps stay in file-name order, which is start order.
    sessions.sort_by(|a, b| match (a.first_timestamp(), b.first_timestamp()) {
        (Some(x), Some(y)) => x.cmp(y),
        _ => std::cmp::Ordering::Equal,
    });
    sessions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Level;
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

    #[test]
    fn groups_by_session_and_orders_by_time() {
        let sessions = group_sessions(vec![
            rec("a", Some("s2"), Some("2026-01-02T00:00:00Z"), "later"),
            rec("a", Some("s1"), Some("2026-01-01T00:00:00Z"), "earlier"),
            rec("a", Some("s2"), Some("2026-01-02T00:00:01Z"), "later2"),
        ]);
        assert_eq!(sessions.len(), 2);
        assert_eq!(sessions[0].id, "s1");
        assert_eq!(sessions[1].messages(), vec!["later", "later2"]);
    }

    #[test]
    fn records_without_session_id_group_by_file() {
        let sessions = group_sessions(vec![
            rec("f1", None, None, "x"),
            rec("f2", None, None, "y"),
            rec("f1", None, None, "z"),
        ]);
        assert_eq!(sessions.len(), 2);
        assert_eq!(sessions[0].messages(), vec!["x", "z"]);
        assert_eq!(sessions[1].messages(), vec!["y"]);
    }
}
