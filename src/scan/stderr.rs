//! What a failing server wrote on stderr: Claude Code logs those lines as
//! `Server stderr: ...` records. They never decide a verdict, so the classification does
//! not keep them; they are found again from the evidence (the session of the last
//! evidence record, in the same file, reading only the lines that hold `Server stderr`).
//! The scan keeps a short tail of them per failing server (its own last words: a crash
//! message, a missing setting); the report keeps more ([`server_stderr`]).

use std::collections::VecDeque;
use std::io;

use crate::logs::decode;

use super::{Evidence, ServerReport};

/// The scan keeps at most this many stderr lines per failing server (the newest).
pub const TAIL_LINES: usize = 8;

/// A kept stderr line holds at most this many characters (cut at a word where it can,
/// before redaction; the screen cuts again to its width, after redaction). Servers dump
/// megabytes of base64 on stderr.
pub const TAIL_LINE_CHARS: usize = 400;

/// The prefix Claude Code gives a server's stderr in its log.
const PREFIX: &str = "Server stderr";

/// The `Server stderr` records of `s`'s deciding session, the newest `max`, oldest
/// first.
pub fn server_stderr(s: &ServerReport, max: usize) -> io::Result<Vec<Evidence>> {
    let Some(last) = s.evidence.last() else {
        return Ok(Vec::new());
    };
    if max == 0 {
        return Ok(Vec::new());
    }
    // Log files can be gigabytes: decode only the `Server stderr` lines, and keep the
    // newest of the deciding session (in a debug log, of this server).
    let mut out: VecDeque<Evidence> = VecDeque::new();
    // Built once for all the servers' files, not once a file.
    static STDERR: std::sync::LazyLock<aho_corasick::AhoCorasick> =
        std::sync::LazyLock::new(|| decode::stream::needles(&[PREFIX]));
    let read = decode::for_each_record_matching(&last.file, &STDERR, &mut |r| {
        let same_server = r.server.as_deref().is_none_or(|n| n == s.name);
        if r.session_id.as_deref() == last.session_id.as_deref()
            && same_server
            && r.message.starts_with(PREFIX)
        {
            if out.len() == max {
                out.pop_front();
            }
            out.push_back(Evidence::from(&r));
        }
    });
    read.map(|_| out.into())
}

/// The text lines of `records` (each record's `Server stderr:` prefix taken off, blank
/// lines left out), the newest [`TAIL_LINES`], each at most [`TAIL_LINE_CHARS`]
/// characters (a cut line ends in `…`).
pub fn tail_lines(records: &[Evidence]) -> Vec<String> {
    let mut out: VecDeque<String> = VecDeque::new();
    for r in records {
        let text = r
            .message
            .strip_prefix(PREFIX)
            .map(|t| t.strip_prefix(':').unwrap_or(t))
            .map(|t| t.strip_prefix(' ').unwrap_or(t))
            .unwrap_or(&r.message);
        for line in text.lines() {
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
    }
    out.into()
}

/// Fills `stderr_tail` of the failing servers `which` asks for that have evidence, the
/// files read in parallel. A file that cannot be read again leaves the tail empty: the
/// tail is a help, and `report` (which warns) reads it again.
pub(super) fn attach(servers: &mut [ServerReport], which: super::StderrTails) {
    use super::StderrTails;
    use crate::classify::verdict::Verdict;
    use rayon::prelude::*;
    if which == StderrTails::Skip {
        return;
    }
    servers.par_iter_mut().for_each(|s| {
        let wanted = match which {
            StderrTails::Failing => s.diagnosis.verdict.is_problem(),
            StderrTails::ConnectionFailures => s.diagnosis.verdict == Verdict::ConnectionFailed,
            StderrTails::Skip => false,
        };
        if !wanted {
            return;
        }
        // Enough records for the tail: each holds at least one line. The plain screen
        // shows only the last line: the last record holds it.
        let records = match which {
            StderrTails::ConnectionFailures => 1,
            _ => TAIL_LINES,
        };
        if let Ok(records) = server_stderr(s, records) {
            s.stderr_tail = tail_lines(&records);
            if which == StderrTails::ConnectionFailures {
                s.stderr_tail.drain(..s.stderr_tail.len().saturating_sub(1));
            }
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
            message: m.to_string(),
            session_id: None,
        }
    }

    #[test]
    fn tail_takes_the_newest_lines_without_the_prefix() {
        let mut records = vec![rec("Server stderr: starting\n\n")];
        for i in 0..TAIL_LINES {
            records.push(rec(&format!("Server stderr: line {i}\n")));
        }
        records.push(rec("Server stderr: fatal: configured to exit\nbye\n"));
        let t = tail_lines(&records);
        assert_eq!(t.len(), TAIL_LINES);
        assert_eq!(t[TAIL_LINES - 2], "fatal: configured to exit");
        assert_eq!(t[TAIL_LINES - 1], "bye");
        assert!(!t.iter().any(|l| l.contains("starting")));
        assert!(!t.iter().any(|l| l.starts_with("Server stderr")));
    }

    #[test]
    fn long_lines_are_bounded() {
        let long = "a ".repeat(TAIL_LINE_CHARS * 10);
        let t = tail_lines(&[rec(&format!("Server stderr: {long}"))]);
        assert_eq!(t.len(), 1);
        assert!(
            t[0].chars().count() <= TAIL_LINE_CHARS + 1,
            "{}",
            t[0].len()
        );
        assert!(t[0].ends_with('…'));
        assert!(tail_lines(&[rec("Server stderr:   \n \n")]).is_empty());
    }
}
