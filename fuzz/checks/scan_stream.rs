//! The scan's prefiltered JSON Lines reader (`decode::stream`) on arbitrary bytes, with
//! block sizes from 8 bytes up, against the plain decoder. Never panics; every record it
//! gives is the plain decoder's record for the same line; every line that holds a needle
//! and fits in a block is given; both count the same lines.
//!
//! Shared by the fuzz target (fuzz/fuzz_targets/scan_stream.rs) and the corpus replay in
//! the test suite (tests/cli/fuzz_corpus.rs): `check` panics on a broken invariant.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use mcplogs::logs::decode::stream::{may_matter, scan_jsonl_with_block};
use mcplogs::logs::decode::{LogFormat, decode_reader};

pub fn check(data: &[u8]) {
    let Some((&first, data)) = data.split_first() else {
        return;
    };
    let block = 8 + usize::from(first) * 16;
    let name = Arc::new(PathBuf::from("fuzz.jsonl"));

    let mut full = Vec::new();
    let full_damage =
        decode_reader(LogFormat::JsonLines, data, &name, &mut |r| full.push(r)).expect("memory");
    let mut streamed = Vec::new();
    let mut reader = data;
    let damage = scan_jsonl_with_block(&mut reader, &name, &mut |r| streamed.push(r), block)
        .expect("memory");

    let by_line: HashMap<usize, &mcplogs::logs::record::Record> =
        full.iter().map(|r| (r.line, r)).collect();
    for r in &streamed {
        let f = by_line
            .get(&r.line)
            .unwrap_or_else(|| panic!("line {} not a record", r.line));
        assert_eq!(*f, r);
    }
    // Physical lines, as both readers split them (a BOM only at the start).
    let body = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let given: std::collections::HashSet<usize> = streamed.iter().map(|r| r.line).collect();
    for (i, raw) in body.split(|&b| b == b'\n').enumerate() {
        let line = i + 1;
        if raw.len() < block && may_matter(raw) && by_line.contains_key(&line) {
            assert!(
                given.contains(&line),
                "line {line} has a needle but was skipped"
            );
        }
    }
    if data.len() < block * 1000 {
        assert_eq!(damage.lines, full_damage.lines);
    }
}
