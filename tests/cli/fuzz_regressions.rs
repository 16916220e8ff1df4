//! Every input the fuzz targets (fuzz/, see docs/fuzzing.md) found crashing or breaking
//! an invariant, replayed in the normal suite. Inputs live in tests/fuzz-regressions/.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcplogs::logs::decode::{LogFormat, decode_reader};

fn input(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz-regressions")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// decode: an old-format array whose one line holds two bad elements (a string, then
/// garbage after a missing comma) said "skipped 2 of 1 lines".
#[test]
fn decode_array_with_two_failures_on_one_line_says_no_more_skipped_than_lines() {
    let data = input("decode-array-two-failures-one-line.bin");
    let name = Arc::new(PathBuf::from("fuzz.txt"));
    let damage = decode_reader(LogFormat::JsonArray, &data[..], &name, &mut |_| {}).unwrap();
    assert_eq!(damage.lines, 1);
    assert_eq!(damage.not_a_record + damage.not_json, 2);
    let summary = damage.summary().unwrap();
    assert!(!summary.contains(" of 1 lines"), "{summary}");
    assert!(summary.starts_with("skipped 2 ("), "{summary}");
}

/// scan_stream: a file ending inside a line longer than the block; the prefiltered
/// reader did not count that last line (the plain decoder did).
#[test]
fn scan_stream_counts_an_over_long_last_line() {
    for name in [
        "scan-stream-long-line-at-eof-1.bin",
        "scan-stream-long-line-at-eof-2.bin",
    ] {
        let data = input(name);
        let (first, data) = data.split_first().unwrap();
        let block = 8 + usize::from(*first) * 16;
        let file = Arc::new(PathBuf::from("fuzz.jsonl"));
        let full = decode_reader(LogFormat::JsonLines, data, &file, &mut |_| {}).unwrap();
        let mut reader = data;
        let streamed = mcplogs::logs::decode::stream::scan_jsonl_with_block(
            &mut reader,
            &file,
            &mut |_| {},
            block,
        )
        .unwrap();
        assert_eq!(streamed.lines, full.lines, "{name}");
        assert!(streamed.too_long >= 1, "{name}");
    }
}
