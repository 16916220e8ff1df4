//! What a failing server wrote on stderr in the deciding session. Claude Code logs those
//! lines as `Server stderr: ...` records; they never decide a verdict, so the scan does
//! not keep them, but a server's authors want them (a crash message, a missing setting).
//! They are found again from the evidence: the session of the last evidence record, in
//! the same file, reading only the lines that hold `Server stderr`.

use std::collections::VecDeque;

use crate::decode;
use crate::scan::{Evidence, ServerReport};

/// At most this many stderr records per server (the newest).
pub const MAX_STDERR_RECORDS: usize = 20;

pub fn server_stderr(s: &ServerReport) -> Vec<Evidence> {
    let Some(last) = s.evidence.last() else {
        return Vec::new();
    };
    // Log files can be gigabytes: decode only the `Server stderr` lines, and keep the
    // newest of the deciding session (in a debug log, of this server).
    let mut out: VecDeque<Evidence> = VecDeque::new();
    let read = decode::for_each_record_containing(&last.file, &["Server stderr"], &mut |r| {
        let same_server = r.server.as_deref().is_none_or(|n| n == s.name);
        if r.session_id == last.session_id && same_server && r.message.starts_with("Server stderr")
        {
            if out.len() == MAX_STDERR_RECORDS {
                out.pop_front();
            }
            out.push_back(Evidence::from(&r));
        }
    });
    match read {
        Ok(_) => out.into(),
        Err(_) => Vec::new(),
    }
}
