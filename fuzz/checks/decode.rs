//! The record decoder on arbitrary bytes, in all three formats: whatever `sniff` says,
//! and then each format forced. Never panics; every record's line number lies within
//! the input; the damage counts add up.
//!
//! Shared by the fuzz target (fuzz/fuzz_targets/decode.rs) and the corpus replay in
//! the test suite (tests/cli/fuzz_corpus.rs): `check` panics on a broken invariant.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcplogs::logs::decode::{LogFormat, decode_bytes, decode_reader, sniff};

pub fn check(data: &[u8]) {
    let max_line = memchr_count(data) + 1;
    let check = |records: &[mcplogs::logs::record::Record], lines: usize| {
        for r in records {
            assert!(r.line >= 1, "line 0");
            assert!(r.line <= max_line, "line {} beyond {max_line}", r.line);
            assert!(
                r.line <= lines.max(1),
                "line {} beyond counted {lines}",
                r.line
            );
        }
    };

    let _ = sniff(data);
    let decoded = decode_bytes(data, Path::new("fuzz.jsonl"));
    check(&decoded.records, decoded.damage.lines);
    check_summary(decoded.damage.summary());

    let name = Arc::new(PathBuf::from("fuzz.log"));
    for format in [
        LogFormat::JsonLines,
        LogFormat::JsonArray,
        LogFormat::DebugLog,
    ] {
        let mut records = Vec::new();
        let damage = decode_reader(format, data, &name, &mut |r| records.push(r))
            .expect("reading from memory cannot fail");
        check(&records, damage.lines);
        if format != LogFormat::JsonArray {
            // Line formats count damage per line (an array counts elements).
            assert!(damage.not_json + damage.not_a_record + damage.too_long <= damage.lines);
        }
        check_summary(damage.summary());
    }
}

/// A summary never claims more lines skipped than there are.
fn check_summary(summary: Option<String>) {
    let Some(s) = summary else { return };
    let Some(rest) = s.strip_prefix("skipped ") else {
        return;
    };
    let mut words = rest.split(' ');
    let skipped: usize = words.next().unwrap().parse().unwrap();
    if words.next() == Some("of") {
        let lines: usize = words.next().unwrap().parse().unwrap();
        assert!(skipped <= lines, "{s}");
    }
}

fn memchr_count(data: &[u8]) -> usize {
    data.iter().filter(|&&b| b == b'\n').count()
}
