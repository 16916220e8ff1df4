//! What a failing server wrote on stderr in the deciding session. Claude Code logs those
//! lines as `Server stderr: ...` records; they never decide a verdict, but a server's
//! authors want them (a crash message, a missing setting). The scan takes them in its
//! read of the deciding file when `report` asks ([`crate::scan::StderrTails::Report`]);
//! a server whose records it could not take there (a debug log, a file larger than the
//! read takes them from, a session the summary index served) has its deciding file read
//! again here, only the lines that hold `Server stderr`.
//!
//! So this can read files: it is its own step of `mcplogs report` ([`gather`], between
//! the scan and [`super::build`], which does no I/O); a file that cannot be read again
//! becomes a warning, never a silently empty section.

use std::path::PathBuf;
use std::sync::Arc;

use crate::redact::Redactor;
use crate::scan::stderr::ReportStderr;
use crate::scan::{Evidence, ScanReport};
use crate::warning::Warning;

/// At most this many stderr records per server (the newest).
pub const MAX_STDERR_RECORDS: usize = crate::scan::stderr::REPORT_RECORDS;

// What the scan bounds a record to before redaction is twice what the report shows.
const _: () = assert!(crate::scan::stderr::REPORT_RECORD_CHARS == 2 * super::MAX_MESSAGE_CHARS);

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

/// The `Server stderr` records of every problem server of `scan`: those the scan took
/// in its read (each taken out of the server, so it is held once), the others read
/// again, the servers' files in parallel (a file each; on 100,000 servers, one after
/// the other, this was a second of `report`), the lists and warnings kept in the
/// scan's order.
///
/// With `redact`, each server's records are redacted as one text, with the records
/// before them (the secret rules and the scan's configured secrets, see [`redacted`]),
/// before the report cuts any of them.
pub fn gather(scan: &mut ScanReport, redact: bool) -> ServerStderr {
    use rayon::prelude::*;
    let redactor = redact.then(|| {
        let mut b = crate::redact::RedactorBuilder::new();
        b.learn_configured_secrets(&scan.secrets);
        b.build()
    });
    let read: Vec<Result<Vec<Evidence>, Warning>> = scan
        .servers
        .par_iter_mut()
        .map(|s| {
            let taken = s.stderr_context.take().and_then(|c| c.into_report());
            if !s.diagnosis.verdict.is_problem() {
                return Ok(Vec::new());
            }
            let Some(last) = s.evidence.last() else {
                return Ok(Vec::new());
            };
            let (file, session) = (Arc::clone(&last.file), last.session_id.clone());
            let records = match taken {
                Some(r) => r,
                None => crate::scan::stderr::report_records(s).map_err(|e| {
                    Warning::new(
                        file.as_ref().clone(),
                        format!("cannot read its Server stderr records: {e}"),
                    )
                })?,
            };
            Ok(redacted(records, &file, session, redactor.as_ref()))
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

/// The records of `records` as the report shows them, each cut to what the report
/// shows of it ([`super::MAX_MESSAGE_CHARS`], at a word, with how much more there was),
/// and with `redactor` redacted first: as one text together with the redaction context
/// of the records before them ([`ReportStderr::before`], up to
/// [`crate::scan::stderr::CONTEXT_BYTES`], [`Redactor::apply_joined`]), so a PEM key
/// whose BEGIN line is in an earlier record, or a token broken over two records, is
/// found whole; only then cut. (Before redaction, a record is bounded at a word to
/// twice what is shown, for speed: [`crate::scan::stderr::REPORT_RECORD_CHARS`].)
pub fn redacted(
    records: ReportStderr,
    file: &Arc<PathBuf>,
    session_id: Option<Arc<str>>,
    redactor: Option<&Redactor>,
) -> Vec<Evidence> {
    let ReportStderr { before, shown } = records;
    let mut parts: Vec<String> = if redactor.is_some() {
        before
    } else {
        Vec::new()
    };
    let context = parts.len();
    // The stream is the records' texts, without the prefix Claude Code gives each (a
    // token broken over two records continues in the next one's text).
    let mut rest = Vec::with_capacity(shown.len());
    for r in shown {
        parts.push(r.text);
        rest.push((r.prefix, r.dropped, r.line, r.timestamp, r.level));
    }
    if let Some(r) = redactor {
        r.apply_joined(&mut parts);
    }
    parts
        .drain(context..)
        .zip(rest)
        .map(|(p, (prefix, dropped, line, timestamp, level))| Evidence {
            file: Arc::clone(file),
            line,
            timestamp,
            level,
            message: super::clip_message(&format!("{prefix}{p}"), dropped).into(),
            session_id: session_id.clone(),
        })
        .collect()
}
