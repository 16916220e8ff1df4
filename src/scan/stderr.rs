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

/// A record's text without its `Server stderr:` prefix.
fn text_of(r: &Evidence) -> &str {
    r.message
        .strip_prefix(PREFIX)
        .map(|t| t.strip_prefix(':').unwrap_or(t))
        .map(|t| t.strip_prefix(' ').unwrap_or(t))
        .unwrap_or(&r.message)
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

/// The text lines of `records` (each record's `Server stderr:` prefix taken off, blank
/// lines left out), the newest [`TAIL_LINES`], each at most [`TAIL_LINE_CHARS`]
/// characters (a cut line ends in `…`). With `redactor`, the records are redacted as
/// one text first ([`Redactor::apply_joined`], over the last [`CONTEXT_BYTES`]), and
/// only then cut into lines and each line cut to its length.
pub fn tail_lines(records: &[Evidence], redactor: Option<&Redactor>) -> Vec<String> {
    let mut parts = context_of(records);
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
        // The records before the shown lines too: redaction reads them with the lines
        // (the file is read through either way; only the newest are kept).
        if let Ok(records) = server_stderr(s, CONTEXT_RECORDS) {
            s.stderr_tail = tail_lines(&records, redactor);
            // The plain screen shows only the last line.
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
