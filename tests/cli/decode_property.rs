//! The decoder on arbitrary bytes, in every format: no panic, every record's line
//! number within the input, damage counted per line for the line formats. Random bytes
//! mostly stop at the first check, so half the inputs are built from pieces of real
//! records (JSON objects, debug-log prefixes, array brackets) mixed with junk.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use proptest::prelude::*;

use mcplogs::logs::decode::{LogFormat, decode_bytes, decode_reader, sniff};

fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(br#"{"debug":"Connection established with capabilities: {\"protocolEra\":\"modern\"}","timestamp":"2026-11-29T12:44:17.856Z","sessionId":"s","cwd":"/w"}"#.to_vec()),
        Just(br#"{"error":"Connection failed: spawn npx ENOENT","sessionId":"s"}"#.to_vec()),
        Just(b"2026-11-29T12:44:17.856Z [DEBUG] MCP server \"x\": Successfully connected".to_vec()),
        Just(b"[ERROR] MCP server \"y\": \"quoted \\\"json\\\" string\"".to_vec()),
        Just(b"[".to_vec()),
        Just(b"]".to_vec()),
        Just(b",".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just(b"\xff\xfe\x00".to_vec()),
        "[{}\\[\\]\":, a-z0-9\\\\]{0,20}".prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 0..16),
    ]
}

fn input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..512),
        prop::collection::vec((piece(), prop::bool::ANY), 0..24).prop_map(|parts| {
            let mut out = Vec::new();
            for (p, newline) in parts {
                out.extend_from_slice(&p);
                if newline {
                    out.push(b'\n');
                }
            }
            out
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn decoding_any_bytes_never_panics_and_lines_are_in_range(data in input()) {
        let max_line = data.iter().filter(|&&b| b == b'\n').count() + 1;
        let _ = sniff(&data);
        let decoded = decode_bytes(&data, Path::new("p.jsonl"));
        for r in &decoded.records {
            prop_assert!(r.line >= 1 && r.line <= max_line, "line {} of {}", r.line, max_line);
        }
        let _ = decoded.damage.summary();
        let name = Arc::new(PathBuf::from("p.log"));
        for format in [LogFormat::JsonLines, LogFormat::JsonArray, LogFormat::DebugLog] {
            let mut records = Vec::new();
            let damage = decode_reader(format, &data[..], &name, &mut |r| records.push(r)).unwrap();
            for r in &records {
                prop_assert!(r.line >= 1 && r.line <= max_line && r.line <= damage.lines);
            }
            if format != LogFormat::JsonArray {
                prop_assert!(damage.not_json + damage.not_a_record + damage.too_long <= damage.lines);
            }
            let _ = damage.summary();
        }
    }
}
