//! What a failing server wrote on stderr in the deciding session. Claude Code logs those
//! lines as `Server stderr: ...` records; they never decide a verdict, so the scan does
//! not keep them, but a server's authors want them (a crash message, a missing setting).
//! They are found again from the evidence: the session of the last evidence record, in
//! the same file.

use crate::decode;
use crate::scan::{Evidence, ServerReport};

/// At most this many stderr records per server (the newest).
pub const MAX_STDERR_RECORDS: usize = 20;

pub fn server_stderr(s: &ServerReport) -> Vec<Evidence> {
    let Some(last) = s.evidence.last() else {
        return Vec::new();
    };
    let Ok(decoded) = decode::decode_file(&last.file) else {
        return Vec::new();
    };
    let records = decoded.records;
    let Some(anchor) = records.iter().find(|r| r.line == last.line) else {
        return Vec::new();
    };
    let session = anchor.session_id.clone();
    let server = anchor.server.clone();
    let mut out: Vec<Evidence> = records
        .iter()
        .filter(|r| r.session_id == session && r.server == server)
        .filter(|r| r.message.starts_with("Server stderr"))
        .map(Evidence::from)
        .collect();
    let extra = out.len().saturating_sub(MAX_STDERR_RECORDS);
    out.drain(..extra);
    out
}
