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

use crate::redact::Redactor;
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
///
/// With `redact`, each server's records are redacted as one text, with the records
/// before them (the secret rules and the scan's configured secrets, see
/// [`redacted_whole`]), before the report cuts any of them.
pub fn gather(scan: &ScanReport, redact: bool) -> ServerStderr {
    use rayon::prelude::*;
    let redactor = redact.then(|| {
        let mut b = crate::redact::RedactorBuilder::new();
        b.learn_configured_secrets(&scan.secrets);
        b.build()
    });
    let read: Vec<Result<Vec<Evidence>, Warning>> = scan
        .servers
        .par_iter()
        .map(|s| {
            if !s.diagnosis.verdict.is_problem() {
                return Ok(Vec::new());
            }
            server_stderr(s, redactor.as_ref()).map_err(|e| {
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
/// [`MAX_STDERR_RECORDS`], oldest first, redacted whole by `redactor` ([`redacted_whole`]).
pub fn server_stderr(s: &ServerReport, redactor: Option<&Redactor>) -> io::Result<Vec<Evidence>> {
    let records = crate::scan::stderr::server_stderr(s, crate::scan::stderr::CONTEXT_RECORDS)?;
    Ok(redacted_whole(records, redactor))
}

/// The newest [`MAX_STDERR_RECORDS`] of `records`, each cut to what the report shows
/// of it ([`super::MAX_MESSAGE_CHARS`], at a word, with how much more there was), and
/// with `redactor` redacted first: as one text together with the last
/// [`crate::scan::stderr::CONTEXT_BYTES`] of the records before them
/// ([`Redactor::apply_joined`]), so a PEM key whose BEGIN line is in an earlier record,
/// or a token broken over two records, is found whole; only then cut. (Before
/// redaction, a record is bounded at a word to twice what is shown, for speed.)
pub fn redacted_whole(mut records: Vec<Evidence>, redactor: Option<&Redactor>) -> Vec<Evidence> {
    let shown_from = records.len().saturating_sub(MAX_STDERR_RECORDS);
    let mut shown = records.split_off(shown_from);
    let mut parts: Vec<String> = Vec::new();
    if redactor.is_some() {
        let mut budget = crate::scan::stderr::CONTEXT_BYTES;
        for e in records.iter().rev() {
            if budget == 0 {
                break;
            }
            parts.push(crate::scan::stderr::last_lines(
                text_of(&e.message),
                &mut budget,
            ));
        }
        parts.reverse();
    }
    let context = parts.len();
    // The stream is the records' texts, without the prefix Claude Code gives each (a
    // token broken over two records continues in the next one's text).
    let mut dropped = Vec::with_capacity(shown.len());
    let mut prefixes = Vec::with_capacity(shown.len());
    for e in &shown {
        let text = text_of(&e.message);
        let prefix = &e.message[..e.message.len() - text.len()];
        let bounded = crate::text::whole_words(
            text,
            (2 * super::MAX_MESSAGE_CHARS).saturating_sub(prefix.chars().count()),
        );
        dropped.push(text[bounded.len()..].chars().count());
        prefixes.push(prefix.to_string());
        parts.push(bounded.to_string());
    }
    if let Some(r) = redactor {
        r.apply_joined(&mut parts);
    }
    for (((e, p), dropped), prefix) in shown
        .iter_mut()
        .zip(parts.drain(context..))
        .zip(dropped)
        .zip(prefixes)
    {
        e.message = super::clip_message(&format!("{prefix}{p}"), dropped).into();
    }
    shown
}

/// A record's text after Claude Code's `Server stderr: ` prefix (the whole message
/// when it has none).
fn text_of(message: &str) -> &str {
    let prefix = crate::scan::stderr::PREFIX;
    match message.strip_prefix(prefix) {
        Some(t) => {
            let t = t.strip_prefix(':').unwrap_or(t);
            t.strip_prefix(' ').unwrap_or(t)
        }
        None => message,
    }
}
