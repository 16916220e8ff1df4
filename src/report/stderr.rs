//! What a failing server wrote on stderr in the deciding session. Claude Code logs those
//! lines as `Server stderr: ...` records; they never decide a verdict, so the scan does
//! not keep them, but a server's authors want them (a crash message, a missing setting).
//! They are found again from the evidence: the session of the last evidence record, in
//! the same file, reading only the lines that hold `Server stderr`.
//!
//! This reads files, so it is its own step of `mcplogs report` ([`gather`], between the
//! scan and [`super::build`], which does no I/O); a file that cannot be read again
//! becomes a warning, never a silently empty section.

use std::io;

use crate::scan::{Evidence, ScanReport, ServerReport};
use crate::warning::Warning;

/// At most this many stderr records per server (the newest).
pub const MAX_STDERR_RECORDS: usize = 20;

/// The `Server stderr` records of a scan's problem servers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerStderr {
    /// One list per server of the scan, in the scan's order (empty for a server with no
    /// problem, or none found).
    pub records: Vec<Vec<Evidence>>,
    /// Log files that could not be read again.
    pub warnings: Vec<Warning>,
}

impl ServerStderr {
    /// The records of the scan's `i`th server.
    pub fn of(&self, i: usize) -> &[Evidence] {
        self.records.get(i).map(Vec::as_slice).unwrap_or(&[])
    }
}

/// Reads the `Server stderr` records of every problem server of `scan`: the servers'
/// files are read in parallel (a file each; on 100,000 servers, one after the other,
/// this was a second of `report`), the lists and warnings kept in the scan's order.
pub fn gather(scan: &ScanReport) -> ServerStderr {
    use rayon::prelude::*;
    let read: Vec<Result<Vec<Evidence>, Warning>> = scan
        .servers
        .par_iter()
        .map(|s| {
            if !s.diagnosis.verdict.is_problem() {
                return Ok(Vec::new());
            }
            server_stderr(s).map_err(|e| {
                let file = s
                    .evidence
                    .last()
                    .map(|l| l.file.as_ref().clone())
                    .unwrap_or_default();
                Warning::new(file, format!("cannot read its Server stderr records: {e}"))
            })
        })
        .collect();
    let mut out = ServerStderr::default();
    for r in read {
        match r {
            Ok(records) => out.records.push(records),
            Err(w) => {
                out.warnings.push(w);
                out.records.push(Vec::new());
            }
        }
    }
    out
}

/// The `Server stderr` records of `s`'s deciding session, the newest
/// [`MAX_STDERR_RECORDS`], oldest first.
pub fn server_stderr(s: &ServerReport) -> io::Result<Vec<Evidence>> {
    crate::scan::stderr::server_stderr(s, MAX_STDERR_RECORDS)
}
