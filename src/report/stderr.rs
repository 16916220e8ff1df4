//! What a failing server wrote on stderr in the deciding session. Claude Code logs those
//! lines as `Server stderr: ...` records; they never decide a verdict, so the scan does
//! not keep them, but a server's authors want them (a crash message, a missing setting).
//! They are found again from the evidence: the session of the last evidence record, in
//! the same file.

use std::collections::{HashMap, VecDeque};

use crate::decode;
use crate::scan::{Evidence, ServerReport};

/// At most this many stderr records per server (the newest).
pub const MAX_STDERR_RECORDS: usize = 20;

pub fn server_stderr(s: &ServerReport) -> Vec<Evidence> {
    let Some(last) = s.evidence.last() else {
        return Vec::new();
    };
    // One streaming pass (log files can be gigabytes): keep the newest stderr records
    // of each session, and note which session the evidence record belongs to.
    let mut per_session: HashMap<(Option<String>, Option<String>), VecDeque<Evidence>> =
        HashMap::new();
    let mut anchor = None;
    let read = decode::for_each_record(&last.file, &mut |r| {
        let key = (r.session_id.clone(), r.server.clone());
        if r.line == last.line {
            anchor = Some(key.clone());
        }
        if r.message.starts_with("Server stderr") {
            let q = per_session.entry(key).or_default();
            if q.len() == MAX_STDERR_RECORDS {
                q.pop_front();
            }
            q.push_back(Evidence::from(&r));
        }
    });
    match (read, anchor) {
        (Ok(_), Some(key)) => per_session.remove(&key).map(Vec::from).unwrap_or_default(),
        _ => Vec::new(),
    }
}
