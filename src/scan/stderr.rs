//! What a failing server wrote on stderr: Claude Code logs those lines as
//! `Server stderr: ...` records. They never decide a verdict, so the classification does
//! not keep them; they are found again from the evidence (the session of the last
//! evidence record, in the same file, reading only the lines that hold `Server stderr`).
//! The scan keeps a short tail of them per failing server (its own last words: a crash
//! message, a missing setting); the report keeps more ([`server_stderr`]).

use std::collections::VecDeque;
use std::io;

use crate::logs::decode;
use crate::redact::Redactor;

use super::{Evidence, ServerReport};

/// The scan keeps at most this many stderr lines per failing server (the newest).
pub const TAIL_LINES: usize = 8;

/// A kept stderr line holds at most this many characters (cut at a word, after
/// redaction; the screen cuts again to its width). Servers dump megabytes of base64 on
/// stderr.
pub const TAIL_LINE_CHARS: usize = 400;

/// Redaction sees the tail's lines with what came before them, up to this many bytes of
/// the deciding session's stderr: a PEM key whose BEGIN line lies far above the last
/// lines, or a token broken over two records, is found whole, then the tail is cut.
pub const CONTEXT_BYTES: usize = 32 * 1024;

/// At most this many of the newest records are read for that context.
pub const CONTEXT_RECORDS: usize = 256;

/// A line of the context is bounded to this many characters, at a word, before
/// redaction (four times what is shown of it: a secret near the shown part's end is
/// kept whole, and one beyond is not shown).
pub const CONTEXT_LINE_CHARS: usize = 4 * TAIL_LINE_CHARS;

/// The prefix Claude Code gives a server's stderr in its log.
pub const PREFIX: &str = "Server stderr";

/// `report` shows at most this many stderr records of a failing server (the newest);
/// the [`CONTEXT_RECORDS`] before them are read for the redaction's context only.
pub const REPORT_RECORDS: usize = 20;

/// Before redaction, a record kept for the report is bounded at a word to this many
/// characters, its prefix included (twice what the report shows of one, so a secret
/// near the shown part's end is redacted whole; `report` cuts again after redaction).
pub const REPORT_RECORD_CHARS: usize = 8192;

/// The needles of a `Server stderr` line: log files can be gigabytes, and only those
/// lines are decoded when a deciding file is read again. Built once for all the
/// servers' files.
static STDERR: std::sync::LazyLock<aho_corasick::AhoCorasick> =
    std::sync::LazyLock::new(|| decode::stream::needles(&[PREFIX]));

/// Whether `r` is a `Server stderr` record of `s`'s deciding session: the session of
/// its last evidence record `last` (in a debug log, which holds every server's, one
/// that names `s`).
fn of_deciding_session(r: &crate::logs::record::Record, s: &ServerReport, last: &Evidence) -> bool {
    r.session_id.as_deref() == last.session_id.as_deref()
        && r.server.as_deref().is_none_or(|n| n == s.name)
        && r.message.starts_with(PREFIX)
}

/// The `Server stderr` records of `s`'s deciding session, the newest `max`, oldest
/// first.
pub fn server_stderr(s: &ServerReport, max: usize) -> io::Result<Vec<Evidence>> {
    let Some(last) = s.evidence.last() else {
        return Ok(Vec::new());
    };
    if max == 0 {
        return Ok(Vec::new());
    }
    // the newest of the deciding session's (only `STDERR` lines are decoded)
    let mut out: VecDeque<Evidence> = VecDeque::new();
    let read = decode::for_each_record_matching(&last.file, &STDERR, &mut |r| {
        if of_deciding_session(&r, s, last) {
            if out.len() == max {
                out.pop_front();
            }
            out.push_back(Evidence::from(&r));
        }
    });
    read.map(|_| out.into())
}

/// A deciding file's end read first for its stderr records: this much, then four times
/// more, until the records found are all the context needs (or the file is read).
const FROM_END_FIRST: u64 = 4 << 20;

/// [`server_stderr`] with [`CONTEXT_RECORDS`], for a tail's context: a JSON Lines file is
/// read from its end, in growing pieces, until the records found there make the same
/// context as the whole file's would (the newest [`CONTEXT_RECORDS`], or newer ones
/// that take the whole [`CONTEXT_BYTES`], as [`Ring`] keeps): a failing server's
/// deciding file of hundreds of megabytes is not read a second time whole. Other
/// formats are read whole.
fn context_records(s: &ServerReport) -> io::Result<Vec<Evidence>> {
    context_records_from(s, FROM_END_FIRST)
}

/// [`context_records`] reading `window` bytes of the end first.
fn context_records_from(s: &ServerReport, mut window: u64) -> io::Result<Vec<Evidence>> {
    let Some(last) = s.evidence.last() else {
        return Ok(Vec::new());
    };
    let mut len = std::fs::metadata(last.file.as_path())?.len();
    loop {
        let from = len.saturating_sub(window);
        let mut out: VecDeque<Evidence> = VecDeque::new();
        let read =
            decode::for_each_jsonl_record_matching_from(&last.file, from, &STDERR, &mut |r| {
                if of_deciding_session(&r, s, last) {
                    if out.len() == CONTEXT_RECORDS {
                        out.pop_front();
                    }
                    out.push_back(Evidence::from(&r));
                }
            })?;
        let Some(now) = read else {
            return server_stderr(s, CONTEXT_RECORDS);
        };
        let enough = out.len() == CONTEXT_RECORDS
            || out
                .iter()
                .map(|r| Reduced::of(text_of(r)).took)
                .sum::<usize>()
                >= CONTEXT_BYTES;
        if from == 0 || enough {
            return Ok(out.into());
        }
        len = now;
        window = window.saturating_mul(4);
    }
}

/// A record's text without its `Server stderr:` prefix.
fn text_of(r: &Evidence) -> &str {
    text_str(&r.message)
}

/// [`text_of`] a message.
fn text_str(message: &str) -> &str {
    message
        .strip_prefix(PREFIX)
        .map(|t| t.strip_prefix(':').unwrap_or(t))
        .map(|t| t.strip_prefix(' ').unwrap_or(t))
        .unwrap_or(message)
}

/// The end of `text` that redaction needs to see for a view of its last lines: its
/// newest lines, each bounded at a word to [`CONTEXT_LINE_CHARS`] (what a view shows
/// of a line is its start), while they hold at most `budget` bytes; `budget` is
/// lowered by what was taken.
pub fn last_lines(text: &str, budget: &mut usize) -> String {
    let mut lines: Vec<&str> = Vec::new();
    for line in text.split('\n').rev() {
        let kept = crate::text::whole_words(line.trim_end(), CONTEXT_LINE_CHARS);
        if *budget < kept.len() + 1 && !lines.is_empty() {
            *budget = 0;
            break;
        }
        *budget = budget.saturating_sub(kept.len() + 1);
        lines.push(kept);
    }
    lines.reverse();
    lines.join("\n")
}

/// The texts of the newest `records` (prefixes taken off) that redaction reads whole
/// before any view cuts them: at most [`CONTEXT_BYTES`] of their last lines, the newest
/// record always (its last line at least), oldest first.
pub fn context_of(records: &[Evidence]) -> Vec<String> {
    let mut ring = Ring::default();
    for r in records {
        ring.push(text_of(r));
    }
    ring.context()
}

/// One record's text reduced to what [`context_of`] can read of it: its
/// [`last_lines`] with the whole budget, what they took of it, and whether they stopped
/// before its first line.
#[derive(Debug, Clone)]
struct Reduced {
    text: String,
    took: usize,
    stopped: bool,
}

impl Reduced {
    fn of(text: &str) -> Self {
        let mut budget = CONTEXT_BYTES;
        let mut lines: Vec<&str> = Vec::new();
        let mut stopped = false;
        // `text.split('\n').rev()`, its line ends found with `memchr` (a server's
        // stderr record can be megabytes of one line).
        let mut end = text.len();
        let ends = memchr::memrchr_iter(b'\n', text.as_bytes())
            .map(Some)
            .chain(std::iter::once(None));
        for nl in ends {
            let line = match nl {
                Some(i) => &text[i + 1..end],
                None => &text[..end],
            };
            end = nl.unwrap_or(0);
            let kept = crate::text::whole_words(line.trim_end(), CONTEXT_LINE_CHARS);
            if budget < kept.len() + 1 && !lines.is_empty() {
                stopped = true;
                break;
            }
            budget = budget.saturating_sub(kept.len() + 1);
            lines.push(kept);
        }
        lines.reverse();
        Reduced {
            text: lines.join("\n"),
            took: if stopped {
                CONTEXT_BYTES
            } else {
                CONTEXT_BYTES - budget
            },
            stopped,
        }
    }
}

/// The newest stderr records of one session as they stream past, each [`Reduced`]:
/// what [`context_of`] reads of the newest [`CONTEXT_RECORDS`], and no more. A record
/// goes once the newer ones take the whole [`CONTEXT_BYTES`] (the context stops before
/// it), so a ring holds about twice that, whatever the session wrote.
#[derive(Debug)]
struct Ring {
    records: VecDeque<Reduced>,
    /// What the records held take of the budget, together.
    took: usize,
    /// At most this many records are read for the context (the newest).
    max: usize,
}

impl Default for Ring {
    fn default() -> Self {
        Ring::with_max(CONTEXT_RECORDS)
    }
}

impl Ring {
    fn with_max(max: usize) -> Self {
        Ring {
            records: VecDeque::new(),
            took: 0,
            max,
        }
    }

    fn push(&mut self, text: &str) {
        self.push_reduced(Reduced::of(text));
    }

    fn push_reduced(&mut self, r: Reduced) {
        self.took += r.took;
        self.records.push_back(r);
        while let Some(oldest) = self.records.front()
            && self.records.len() > 1
            && (self.records.len() > self.max || self.took - oldest.took >= CONTEXT_BYTES)
        {
            self.took -= oldest.took;
            self.records.pop_front();
        }
    }

    /// [`context_of`] the records pushed: the last lines of a reduced text with less
    /// budget are those of the text (each line is bounded the same way twice), and a
    /// text its reduction stopped in stops the context there too.
    fn context(&self) -> Vec<String> {
        let mut budget = CONTEXT_BYTES;
        let mut parts: Vec<String> = Vec::new();
        for r in self.records.iter().rev() {
            if budget == 0 && !parts.is_empty() {
                break;
            }
            parts.push(last_lines(&r.text, &mut budget));
            if r.stopped {
                budget = 0;
            }
        }
        parts.reverse();
        parts
    }
}

/// What a failing server's stderr tail is made from ([`tail_from`]): the redaction
/// context of its deciding session's `Server stderr` records ([`context_of`]), taken
/// in the scan's one read of the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    parts: Box<[Box<str>]>,
    /// The records `report` shows, when the scan was asked for them
    /// ([`super::StderrTails::Report`]).
    report: Option<Box<ReportStderr>>,
}

impl Context {
    /// Held for each failing server from its read to its tail: no spare capacity
    /// (100,000 servers).
    fn of(parts: Vec<String>) -> Self {
        Context {
            parts: parts.into_iter().map(String::into_boxed_str).collect(),
            report: None,
        }
    }

    /// The records `report` shows, when the scan's read took them.
    pub fn into_report(self) -> Option<ReportStderr> {
        self.report.map(|r| *r)
    }

    /// Without the tail's parts: what `report` keeps of it.
    pub(super) fn only_report(self) -> Self {
        Context {
            parts: Box::default(),
            report: self.report,
        }
    }
}

/// One `Server stderr` record as `report` shows it, taken before redaction: its place,
/// and its text bounded at a word to [`REPORT_RECORD_CHARS`] with how much more there
/// was (the report cuts it again once redacted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportRecord {
    pub line: usize,
    pub timestamp: Option<String>,
    pub level: crate::logs::record::Level,
    /// Claude Code's `Server stderr: ` as the record spells it ([`PREFIX`], then an
    /// optional `:` and an optional space; empty for a record without it).
    pub prefix: &'static str,
    /// The record's text after the prefix, bounded.
    pub text: String,
    /// How many characters of the text were left out of `text`.
    pub dropped: usize,
}

/// What `report` shows of a failing server's stderr: the newest [`REPORT_RECORDS`]
/// records of its deciding session, and the redaction's context before them (the last
/// lines of the [`CONTEXT_RECORDS`] before, at most [`CONTEXT_BYTES`], as
/// [`context_of`] takes them), so a secret that starts in an earlier record is found
/// whole. Taken in the scan's read of the file, or by [`report_records`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReportStderr {
    /// The context's texts (prefixes taken off), oldest first.
    pub before: Vec<String>,
    /// The records shown, oldest first.
    pub shown: Vec<ReportRecord>,
}

/// The records of one session as they stream past, kept as [`ReportStderr`] needs
/// them: the newest [`REPORT_RECORDS`] bounded, and a [`Ring`] of those before. Each
/// shown record keeps its [`Reduced`] text too, for the ring once a newer one takes its
/// place.
#[derive(Debug)]
struct ReportRing {
    shown: VecDeque<(ReportRecord, Reduced)>,
    before: Ring,
}

impl Default for ReportRing {
    fn default() -> Self {
        ReportRing {
            shown: VecDeque::new(),
            before: Ring::with_max(CONTEXT_RECORDS - REPORT_RECORDS),
        }
    }
}

impl ReportRing {
    fn push(
        &mut self,
        message: &str,
        line: usize,
        timestamp: Option<&str>,
        level: crate::logs::record::Level,
        reduced: Reduced,
    ) {
        let text = text_str(message);
        let prefix = &message[..message.len() - text.len()];
        debug_assert_eq!(static_prefix(prefix), prefix);
        let bounded = crate::text::whole_words(
            text,
            REPORT_RECORD_CHARS.saturating_sub(prefix.chars().count()),
        );
        let record = ReportRecord {
            line,
            timestamp: timestamp.map(str::to_string),
            level,
            prefix: static_prefix(prefix),
            text: bounded.to_string(),
            dropped: text[bounded.len()..].chars().count(),
        };
        if self.shown.len() == REPORT_RECORDS
            && let Some((_, older)) = self.shown.pop_front()
        {
            self.before.push_reduced(older);
        }
        self.shown.push_back((record, reduced));
    }

    fn finish(self) -> ReportStderr {
        ReportStderr {
            before: self.before.context(),
            shown: self.shown.into_iter().map(|(r, _)| r).collect(),
        }
    }
}

/// The prefix [`text_str`] takes off a message, as a `'static` string (it is one of
/// five), so 100,000 servers' records hold no copy of it.
fn static_prefix(prefix: &str) -> &'static str {
    const FORMS: [&str; 4] = [
        "Server stderr: ",
        "Server stderr:",
        "Server stderr ",
        "Server stderr",
    ];
    FORMS.into_iter().find(|f| *f == prefix).unwrap_or("")
}

/// [`ReportStderr`] of `s`'s deciding session (the session of its last evidence
/// record), the file read again: for a server whose records the scan's read did not
/// take (a debug log, a file larger than the read takes them from, a session the
/// summary index served).
pub fn report_records(s: &ServerReport) -> io::Result<ReportStderr> {
    let Some(last) = s.evidence.last() else {
        return Ok(ReportStderr::default());
    };
    let mut ring = ReportRing::default();
    decode::for_each_record_matching(&last.file, &STDERR, &mut |r| {
        if of_deciding_session(&r, s, last) {
            let reduced = Reduced::of(text_str(&r.message));
            ring.push(&r.message, r.line, r.timestamp.as_deref(), r.level, reduced);
        }
    })?;
    Ok(ring.finish())
}

/// The `Server stderr` records of one file as the scan reads it ([`Tap`]): a [`Ring`]
/// for each session id, as [`server_stderr`] tells the sessions apart.
#[derive(Debug, Default)]
pub(super) struct FileStderr {
    sessions: Vec<(Option<String>, Ring, Option<ReportRing>)>,
    /// The session of the record before (records come a session at a time).
    last: usize,
    /// Also keep what `report` shows ([`ReportRing`]).
    report: bool,
}

/// What a file's [`FileStderr`] leaves: each session's [`Context`], and whether it
/// took what `report` shows (then a session that wrote no stderr has none to show).
#[derive(Debug, Default)]
pub(super) struct Captured(Vec<(Option<String>, Context)>, bool);

impl Captured {
    /// The context of one session, as the summary index kept it.
    pub(super) fn of_session(id: Option<String>, parts: Vec<String>) -> Self {
        Captured(vec![(id, Context::of(parts))], false)
    }

    /// The context parts of session `id` (none written: none), left in place: what the
    /// summary index keeps of them.
    pub(super) fn parts_of(&self, id: Option<&str>) -> Vec<String> {
        self.0
            .iter()
            .find(|(s, _)| s.as_deref() == id)
            .map(|(_, c)| c.parts.iter().map(|p| p.to_string()).collect())
            .unwrap_or_default()
    }

    /// The context of session `id`'s records (none written: empty).
    pub(super) fn take(&mut self, id: Option<&str>) -> Context {
        self.0
            .iter_mut()
            .find(|(s, _)| s.as_deref() == id)
            .map(|(_, c)| std::mem::take(c))
            .unwrap_or_else(|| Context {
                parts: Box::default(),
                report: self.1.then(Box::default),
            })
    }
}

impl FileStderr {
    /// With `report`, each session's records as `report` shows them are kept too.
    pub(super) fn new(report: bool) -> Self {
        FileStderr {
            report,
            ..FileStderr::default()
        }
    }

    /// A record of the file's read: kept when it is a `Server stderr` record.
    pub(super) fn push(&mut self, r: crate::logs::record::RecordRef<'_>) {
        if !r.message.starts_with(PREFIX) {
            return;
        }
        let at = match self.sessions.get(self.last) {
            Some((id, _, _)) if id.as_deref() == r.session_id => self.last,
            _ => match self
                .sessions
                .iter()
                .position(|(id, _, _)| id.as_deref() == r.session_id)
            {
                Some(i) => i,
                None => {
                    self.sessions.push((
                        r.session_id.map(str::to_string),
                        Ring::default(),
                        self.report.then(ReportRing::default),
                    ));
                    self.sessions.len() - 1
                }
            },
        };
        self.last = at;
        let (_, ring, report) = &mut self.sessions[at];
        let reduced = Reduced::of(text_str(r.message));
        match report {
            Some(report) => {
                ring.push_reduced(reduced.clone());
                report.push(r.message, r.line, r.timestamp, r.level, reduced);
            }
            None => ring.push_reduced(reduced),
        }
    }

    pub(super) fn finish(self) -> Captured {
        let report = self.report;
        Captured(
            self.sessions
                .into_iter()
                .map(|(id, ring, report)| {
                    let mut c = Context::of(ring.context());
                    c.report = report.map(|r| Box::new(r.finish()));
                    (id, c)
                })
                .collect(),
            report,
        )
    }
}

/// The text lines of `records` (each record's `Server stderr:` prefix taken off, blank
/// lines left out), the newest [`TAIL_LINES`], each at most [`TAIL_LINE_CHARS`]
/// characters (a cut line ends in `…`). With `redactor`, the records are redacted as
/// one text first ([`Redactor::apply_joined`], over the last [`CONTEXT_BYTES`]), and
/// only then cut into lines and each line cut to its length.
pub fn tail_lines(records: &[Evidence], redactor: Option<&Redactor>) -> Vec<String> {
    tail_from(Context::of(context_of(records)), redactor)
}

/// [`tail_lines`] of the records a [`Context`] was taken from.
pub fn tail_from(context: Context, redactor: Option<&Redactor>) -> Vec<String> {
    let mut parts: Vec<String> = context
        .parts
        .into_vec()
        .into_iter()
        .map(String::from)
        .collect();
    if let Some(r) = redactor {
        r.apply_joined(&mut parts);
    }
    let mut out: VecDeque<String> = VecDeque::new();
    for line in parts.iter().flat_map(|p| p.split('\n')) {
        let line = line.trim_end();
        if line.trim().is_empty() {
            continue;
        }
        let kept = crate::text::whole_words(line, TAIL_LINE_CHARS);
        let line = if kept.len() < line.len() {
            format!("{kept}…")
        } else {
            kept.to_string()
        };
        if out.len() == TAIL_LINES {
            out.pop_front();
        }
        out.push_back(line);
    }
    out.into()
}

/// Fills `stderr_tail` of the failing servers `which` asks for that have evidence, the
/// files read in parallel, each tail redacted whole by `redactor` (the secret rules and
/// the configured secrets; `None` with `--no-redact`) before it is cut. A file that
/// cannot be read again leaves the tail empty: the tail is a help, and `report` (which
/// warns) reads it again.
pub(super) fn attach(
    servers: &mut [ServerReport],
    which: super::StderrTails,
    redactor: Option<&Redactor>,
) {
    use super::StderrTails;
    use crate::classify::verdict::Verdict;
    use rayon::prelude::*;
    if matches!(which, StderrTails::Skip | StderrTails::Report) {
        return;
    }
    servers.par_iter_mut().for_each(|s| {
        let wanted = match which {
            StderrTails::Failing => s.diagnosis.verdict.is_problem(),
            StderrTails::ConnectionFailures => s.diagnosis.verdict == Verdict::ConnectionFailed,
            StderrTails::Skip | StderrTails::Report => false,
        };
        if !wanted {
            s.stderr_context = None;
            return;
        }
        // Taken in the scan's read of the file; else (a debug log, a file larger than
        // the first read takes them from) the file is read again. The records before the shown lines too: redaction reads them with the
        // lines.
        let context = match s.stderr_context.take() {
            Some(c) => c,
            None => match context_records(s) {
                Ok(records) => Context::of(context_of(&records)),
                Err(_) => return,
            },
        };
        s.stderr_tail = tail_from(context, redactor);
        // The plain screen shows only the last line.
        if which == StderrTails::ConnectionFailures {
            s.stderr_tail.drain(..s.stderr_tail.len().saturating_sub(1));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::record::Level;
    use std::path::PathBuf;
    use std::sync::Arc;

    fn rec(m: &str) -> Evidence {
        Evidence {
            file: Arc::new(PathBuf::from("/x.jsonl")),
            line: 1,
            timestamp: None,
            level: Level::Error,
            message: m.into(),
            session_id: None,
        }
    }

    /// [`context_of`] as it was, on every record held: the reference the ring must equal.
    fn context_whole(records: &[Evidence]) -> Vec<String> {
        let records = &records[records.len().saturating_sub(CONTEXT_RECORDS)..];
        let mut budget = CONTEXT_BYTES;
        let mut parts: Vec<String> = Vec::new();
        for r in records.iter().rev() {
            if budget == 0 && !parts.is_empty() {
                break;
            }
            parts.push(last_lines(text_of(r), &mut budget));
        }
        parts.reverse();
        parts
    }

    /// A failing server named `x` whose last evidence record is `last`.
    fn server_with(last: Evidence) -> ServerReport {
        use crate::classify::verdict::{Diagnosis, Verdict};
        ServerReport {
            evidence: vec![last],
            ..ServerReport::of_one_session(
                "x",
                PathBuf::from("/logs/mcp-logs-x"),
                Diagnosis::new(Verdict::ConnectionFailed),
            )
        }
    }

    /// The deciding file read from its end, whatever the first piece's size, gives the
    /// context the whole file gives: the session's records at the end (many small, or a
    /// few over the budget), other sessions' and servers' records between, the session
    /// ending before the file does, and a file that is not JSON Lines.
    #[test]
    fn a_context_read_from_the_end_is_the_whole_files() {
        let dir = tempfile::tempdir().unwrap();
        let line = |sid: &str, text: &str| {
            let text = serde_json::to_string(&format!("Server stderr: {text}")).unwrap();
            format!(
                "{{\"error\":{text},\"timestamp\":\"2026-12-05T10:00:00.000Z\",\"sessionId\":\"{sid}\"}}\n"
            )
        };
        let big = "word ".repeat(2_000);
        let cases: Vec<(&str, String)> = vec![
            ("small records at the end", {
                let mut f = String::new();
                for i in 0..400 {
                    f.push_str(&line(
                        if i % 3 == 0 { "other" } else { "s1" },
                        &format!("line {i}"),
                    ));
                    f.push_str("{\"debug\":\"noise\",\"sessionId\":\"s1\"}\n");
                }
                f
            }),
            ("records over the budget", {
                let mut f = String::new();
                for i in 0..30 {
                    f.push_str(&line("s1", &format!("{i} {big}")));
                }
                f
            }),
            ("the session ends before the file", {
                let mut f = String::new();
                for i in 0..50 {
                    f.push_str(&line("s1", &format!("mine {i}")));
                }
                for i in 0..300 {
                    f.push_str(&line("s2", &format!("later {i} {}", "x".repeat(100))));
                }
                f
            }),
            ("no record of the session", line("s2", "not mine")),
        ];
        for (case, text) in cases {
            let path = dir.path().join("f.jsonl");
            std::fs::write(&path, &text).unwrap();
            let s = server_with(Evidence {
                file: Arc::new(path.clone()),
                session_id: Some("s1".into()),
                ..rec("failed")
            });
            let whole = context_of(&server_stderr(&s, CONTEXT_RECORDS).unwrap());
            for window in [1, 100, 4096, 1 << 20] {
                let got = context_of(&context_records_from(&s, window).unwrap());
                assert_eq!(got, whole, "{case}, first window {window}");
            }
        }
        // a debug log is read whole (its stderr records name their server)
        let path = dir.path().join("debug.txt");
        std::fs::write(
            &path,
            "2026-11-29T11:50:31.216Z [ERROR] MCP server \"x\" Server stderr: boom\n",
        )
        .unwrap();
        let s = server_with(Evidence {
            file: Arc::new(path),
            ..rec("failed")
        });
        assert_eq!(
            context_records_from(&s, 1).unwrap(),
            server_stderr(&s, CONTEXT_RECORDS).unwrap()
        );
    }

    /// Records of every shape that meets the budget: many short lines, lines longer
    /// than a context line (with and without spaces), texts larger than the whole
    /// context, blank ones, more records than are kept; the ring's context equals the
    /// whole records', and it holds about twice the budget at most.
    #[test]
    fn the_ring_gives_the_context_of_every_record() {
        let mut seed: u64 = 55;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        // a record larger than the context, and one before it that it leaves out
        let line = "word ".repeat(300);
        let big = format!("Server stderr: {}", vec![line.as_str(); 30].join("\n"));
        let records = vec![rec("Server stderr: before"), rec(&big)];
        let mut ring = Ring::default();
        for r in &records {
            ring.push(text_of(r));
        }
        assert_eq!(ring.context(), context_whole(&records));
        assert_eq!(ring.context().len(), 1);
        for case in 0..120 {
            let count = 1 + next(if case % 4 == 0 { 300 } else { 30 }) as usize;
            let mut records = Vec::new();
            let mut ring = Ring::default();
            let mut held_most = 0;
            for _ in 0..count {
                let many = next(5) == 0;
                let lines = 1 + next(if many { 60 } else { 4 });
                let mut text = String::new();
                for l in 0..lines {
                    if l > 0 {
                        text.push('\n');
                    }
                    let len = match next(6) {
                        0 => 0,
                        1 => next(12_000),
                        2 => CONTEXT_LINE_CHARS as u64 - 2 + next(5),
                        _ => next(300),
                    } as usize;
                    let word = if next(3) == 0 {
                        5000
                    } else {
                        1 + next(12) as usize
                    };
                    for i in 0..len {
                        text.push(if i % (word + 1) == word { ' ' } else { 'x' });
                    }
                    if next(4) == 0 {
                        text.push_str("  ");
                    }
                }
                let message = format!("Server stderr: {text}");
                ring.push(text_str(&message));
                held_most = held_most.max(ring.records.iter().map(|r| r.text.len()).sum());
                records.push(rec(&message));
            }
            assert_eq!(ring.context(), context_whole(&records), "case {case}");
            assert!(
                held_most <= 2 * CONTEXT_BYTES + 4 * CONTEXT_LINE_CHARS,
                "case {case}: {held_most}"
            );
        }
    }

    #[test]
    fn tail_takes_the_newest_lines_without_the_prefix() {
        let mut records = vec![rec("Server stderr: starting\n\n")];
        for i in 0..TAIL_LINES {
            records.push(rec(&format!("Server stderr: line {i}\n")));
        }
        records.push(rec("Server stderr: fatal: configured to exit\nbye\n"));
        let t = tail_lines(&records, None);
        assert_eq!(t.len(), TAIL_LINES);
        assert_eq!(t[TAIL_LINES - 2], "fatal: configured to exit");
        assert_eq!(t[TAIL_LINES - 1], "bye");
        assert!(!t.iter().any(|l| l.contains("starting")));
        assert!(!t.iter().any(|l| l.starts_with("Server stderr")));
    }

    #[test]
    fn long_lines_are_bounded() {
        let long = "a ".repeat(TAIL_LINE_CHARS * 10);
        let t = tail_lines(&[rec(&format!("Server stderr: {long}"))], None);
        assert_eq!(t.len(), 1);
        assert!(
            t[0].chars().count() <= TAIL_LINE_CHARS + 1,
            "{}",
            t[0].len()
        );
        assert!(t[0].ends_with('…'));
        assert!(tail_lines(&[rec("Server stderr:   \n \n")], None).is_empty());
    }

    /// A PEM key and tokens planted across line ends, record ends and the cut lengths:
    /// no fragment of them is in the tail when it is redacted whole first.
    #[test]
    fn the_tail_is_redacted_whole_before_it_is_cut() {
        let body: Vec<String> = (0..30)
            .map(|i| {
                format!("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC{i:02}BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj")
            })
            .collect();
        let mut records = vec![rec(
            "Server stderr: loading key\n-----BEGIN PRIVATE KEY-----",
        )];
        // the body one record a line (line-buffered stderr), the BEGIN line far above
        // the tail's 8 lines
        for l in &body {
            records.push(rec(&format!("Server stderr: {l}")));
        }
        records.push(rec("Server stderr: -----END PRIVATE KEY-----"));
        // a token broken across a line end, and one across two records
        records.push(rec(
            "Server stderr: using ghp_0123456789abcdefghij\nKLMNOPQRSTUVWXYZ0123 now",
        ));
        records.push(rec("Server stderr: next ghp_9876543210zyxwvutsrq"));
        records.push(rec("Server stderr: PONMLKJIHGFEDCBA9876 end"));
        // a token straddling the shown length
        let pad = "word ".repeat((TAIL_LINE_CHARS - 20) / 5);
        records.push(rec(&format!(
            "Server stderr: {pad}ghp_StraddleStraddle0123456789abcdef"
        )));
        let r = crate::redact::Redactor::secrets_only(std::iter::empty());
        let all = tail_lines(&records, Some(&r)).join("\n");
        for l in &body {
            assert!(!all.contains(&l[..16]), "{all}");
        }
        for frag in [
            "KLMNOPQRSTUV",
            "0123456789abcdefghij",
            "9876543210zyx",
            "PONMLKJIHGF",
            "StraddleStraddle",
        ] {
            assert!(!all.contains(frag), "{frag} in {all}");
        }
        // and without redaction the same view shows them (the test plants where it looks)
        let clear = tail_lines(&records, None).join("\n");
        assert!(
            clear.contains("PONMLKJIHGF") && clear.contains(&body[29][..16]),
            "{clear}"
        );
        // and the lines redacted one by one, as the tail was before, still show them
        let line_by_line: Vec<String> = tail_lines(&records, None)
            .iter()
            .map(|l| r.redact(l))
            .collect();
        let line_by_line = line_by_line.join("\n");
        assert!(
            line_by_line.contains("PONMLKJIHGF") && line_by_line.contains(&body[29][..16]),
            "{line_by_line}"
        );
    }
}
