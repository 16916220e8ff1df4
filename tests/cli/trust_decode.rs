//! Issue 10, item 7: decoding never hides a record. A lone surrogate (`\ud83d`, which
//! `JSON.parse` accepts and Claude Code can write when it cuts an emoji in half) or an
//! invalid escape in a decisive record used to make the record invisible: the server
//! disappeared or turned `unknown`, exit 0. Now the bad escape costs one character
//! (U+FFFD) and every verdict is the one of the undamaged logs.

use std::fs;
use std::path::Path;

use crate::common::*;

fn scan(tmp: &Path, home: &Path) -> (Run, serde_json::Value) {
    run_json(
        mcplogs(tmp)
            .arg("scan")
            .arg("--json")
            .arg("--home")
            .arg(home),
    )
}

/// Damages the end of every record's message in every JSON Lines log of `home`.
fn damage_messages(home: &Path, with: &str) -> usize {
    let mut damaged = 0;
    for entry in walkdir::WalkDir::new(home) {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let text = fs::read_to_string(entry.path()).unwrap();
        let out = text.replace("\",\"timestamp\"", &format!("{with}\",\"timestamp\""));
        damaged += text.matches("\",\"timestamp\"").count();
        fs::write(entry.path(), out).unwrap();
    }
    damaged
}

fn verdicts(doc: &serde_json::Value) -> Vec<(String, String, String)> {
    doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["verdict"].as_str().unwrap().to_string(),
                s["cause"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn lone_surrogates_and_bad_escapes_in_every_record_change_no_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    let clean = tmp.path().join("clean");
    copy_tree(&samples().join("linux-home"), &clean);
    let (clean_run, clean_doc) = scan(tmp.path(), &clean);
    let expected = verdicts(&clean_doc);
    assert!(expected.iter().any(|(_, v, _)| v == "tools-fetch-failed"));
    for (n, bad) in ["\\ud83d", "\\udc00", "\\x41", "\\u12"].iter().enumerate() {
        let home = tmp.path().join(format!("damaged-{n}"));
        copy_tree(&samples().join("linux-home"), &home);
        assert!(damage_messages(&home, bad) > 20);
        let (run, doc) = scan(tmp.path(), &home);
        assert_eq!(verdicts(&doc), expected, "{bad}");
        assert_eq!(run.code, clean_run.code, "{bad}: {}", run.stderr);
        // Counted and said, once per file.
        assert!(
            run.stderr.contains("decoded with replacement characters"),
            "{bad}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_lone_surrogate_in_the_old_array_format_and_a_debug_literal_keeps_the_record() {
    use mcplogs::logs::decode::decode_bytes;
    let line = r#"{"error":"Failed to fetch tools: \ud83d broken","timestamp":"2026-11-29T12:44:16.000Z"}"#;
    let jsonl = decode_bytes(format!("{line}\n").as_bytes(), Path::new("a.jsonl"));
    assert_eq!(jsonl.records.len(), 1);
    assert_eq!(
        jsonl.records[0].message,
        "Failed to fetch tools: \u{fffd} broken"
    );
    assert_eq!(jsonl.damage.bad_escapes, 1);
    let array = format!("[\n  {line},\n  {line}\n]\n");
    let arr = decode_bytes(array.as_bytes(), Path::new("a.txt"));
    assert_eq!(arr.records.len(), 2, "{:?}", arr.damage);
    // A debug log entry written as one JSON string literal (`-p` with JSON output).
    let debug = "2026-11-29T11:50:31.216Z [DEBUG] \"MCP server \\\"ttlstr\\\": tools/list failed (Invalid \\ud83d result)\"\n";
    let dbg = decode_bytes(debug.as_bytes(), Path::new("debug.txt"));
    assert_eq!(dbg.records.len(), 1, "{debug}");
    assert_eq!(dbg.records[0].server.as_deref(), Some("ttlstr"));
    assert!(
        dbg.records[0].message.contains("Invalid \u{fffd} result"),
        "{}",
        dbg.records[0].message
    );
}
