//! The decoder on every format, on real files: JSON Lines, the older JSON-array `.txt`,
//! and debug logs (JSON string literals, and raw multi-line messages).

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::*;
use mcplogs::logs::decode::{LogFormat, decode_bytes, decode_file};
use mcplogs::logs::record::Level;
use serde_json::Value;

fn find_file(root: &Path, folder: &str, containing: &str) -> PathBuf {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| {
            p.parent()
                .and_then(|d| d.file_name())
                .is_some_and(|n| n == folder)
        })
        .filter(|p| fs::read_to_string(p).unwrap().contains(containing))
        .collect();
    files.sort();
    files
        .pop()
        .unwrap_or_else(|| panic!("{folder} with {containing}"))
}

#[test]
fn json_lines_decode_every_record_with_its_fields() {
    let file = find_file(
        &samples().join("macos-home"),
        "mcp-logs-no-cache-fields",
        "Failed to fetch tools",
    );
    let decoded = decode_file(&file).unwrap();
    assert_eq!(decoded.format, Some(LogFormat::JsonLines));
    assert!(decoded.damage.is_clean(), "{:?}", decoded.damage);
    let lines = fs::read_to_string(&file).unwrap().lines().count();
    assert_eq!(decoded.records.len(), lines);
    for (i, r) in decoded.records.iter().enumerate() {
        assert_eq!(r.line, i + 1);
        assert!(r.timestamp.is_some() && r.session_id.is_some());
        assert_eq!(
            r.cwd.as_deref(),
            Some("/tmp/mcplogs-samples/home-macos/work/web")
        );
    }
    // The multi-line zod error is decoded: real newlines, unescaped quotes.
    let err = decoded
        .records
        .iter()
        .find(|r| r.message.starts_with("Failed to fetch tools"))
        .unwrap();
    assert_eq!(err.level, Level::Error);
    assert!(
        err.message
            .starts_with("Failed to fetch tools: Invalid result for tools/list: [\n  {\n    \"expected\": \"number\",")
    );
    // Server stderr lines carry the error key too.
    assert!(
        decoded
            .records
            .iter()
            .any(|r| r.level == Level::Error && r.message.starts_with("Server stderr:"))
    );
}

#[test]
fn old_json_array_files_decode_to_the_same_records_as_their_source() {
    let old = find_file(
        &samples().join("old-format"),
        "mcp-logs-exits-early",
        "Connection closed",
    );
    let decoded = decode_file(&old).unwrap();
    assert_eq!(decoded.format, Some(LogFormat::JsonArray));
    assert!(decoded.damage.is_clean(), "{:?}", decoded.damage);
    // The converted file is the first linux session of the same server.
    let source_name = old.file_stem().unwrap().to_string_lossy().to_string() + ".jsonl";
    let source = walkdir::WalkDir::new(samples().join("linux-home"))
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .find(|p| {
            p.file_name().unwrap().to_string_lossy() == source_name
                && p.to_string_lossy().contains("exits-early")
        })
        .unwrap();
    let original = decode_file(&source).unwrap();
    let msgs = |d: &mcplogs::logs::decode::DecodedFile| -> Vec<(String, Level, Option<String>)> {
        d.records
            .iter()
            .map(|r| (r.message.clone(), r.level, r.timestamp.clone()))
            .collect()
    };
    assert_eq!(msgs(&decoded), msgs(&original));
    // Line numbers point at each object's opening brace.
    let text = fs::read_to_string(&old).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for r in &decoded.records {
        assert_eq!(lines[r.line - 1].trim(), "{", "line {}", r.line);
    }
}

#[test]
fn a_truncated_old_json_array_keeps_the_complete_records() {
    let old = find_file(
        &samples().join("old-format"),
        "mcp-logs-acme-docs",
        "Connection established",
    );
    let bytes = fs::read(&old).unwrap();
    let whole = decode_bytes(&bytes, &old);
    let cut = decode_bytes(&bytes[..bytes.len() * 2 / 3], &old);
    assert!(cut.damage.truncated_last);
    assert!(!cut.records.is_empty());
    assert!(cut.records.len() < whole.records.len());
    assert_eq!(cut.records[..], whole.records[..cut.records.len()]);
}

#[test]
fn debug_logs_decode_mcp_entries_and_skip_the_rest() {
    let file = samples()
        .join("debug-logs")
        .join("macos-home-2.1.288-stream-json.txt");
    let decoded = decode_file(&file).unwrap();
    assert_eq!(decoded.format, Some(LogFormat::DebugLog));
    assert!(decoded.damage.is_clean(), "{:?}", decoded.damage);
    let text = fs::read_to_string(&file).unwrap();
    let mcp_lines = text.lines().filter(|l| l.contains("MCP server ")).count();
    assert_eq!(decoded.records.len(), mcp_lines);
    assert!(decoded.records.iter().all(|r| r.server.is_some()));
    // A JSON string literal entry is decoded, prefix and all.
    let stderr = decoded
        .records
        .iter()
        .find(|r| r.server.as_deref() == Some("notes.v2") && r.message.starts_with("Server stderr"))
        .unwrap();
    assert_eq!(stderr.level, Level::Error);
    assert!(
        stderr.message.contains("(stdio)\nmcplogs-stub: ready"),
        "{}",
        stderr.message
    );
}

/// Older builds wrote multi-line messages raw, continuation lines without a timestamp.
/// Rewriting the real log that way must decode to the same records.
#[test]
fn raw_multi_line_debug_entries_decode_like_json_literals() {
    let file = samples()
        .join("debug-logs")
        .join("macos-home-2.1.288-stream-json.txt");
    let text = fs::read_to_string(&file).unwrap();
    let mut raw = String::new();
    let mut converted = 0;
    for line in text.lines() {
        let (prefix, rest) = match line.find("] \"") {
            Some(i) if line.ends_with('"') => (&line[..i + 2], &line[i + 2..]),
            _ => {
                raw.push_str(line);
                raw.push('\n');
                continue;
            }
        };
        let msg: String = serde_json::from_str(rest).unwrap();
        raw.push_str(prefix);
        raw.push_str(&msg);
        raw.push('\n');
        converted += usize::from(msg.contains('\n'));
    }
    assert!(converted > 5, "{converted}");
    let a = decode_bytes(text.as_bytes(), &file);
    let b = decode_bytes(raw.as_bytes(), &file);
    let view = |d: &mcplogs::logs::decode::DecodedFile| -> Vec<(Option<String>, String)> {
        d.records
            .iter()
            .map(|r| (r.server.clone(), r.message.trim_end().to_string()))
            .collect()
    };
    assert_eq!(view(&a), view(&b));
}

/// Every debug log's servers get exactly the verdict and cause in
/// `tests/cli/expected/debug-logs.json`; that file agrees with Claude Code's own view of
/// the same home and version (the init line's status and tool count) and, for the latest
/// run of each home, with `sample-logs/expected.json`.
#[test]
fn debug_logs_scan_to_their_expected_verdicts_and_causes() {
    let expected: Value = serde_json::from_str(
        &fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/expected/debug-logs.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let samples_expected: Value =
        serde_json::from_str(&fs::read_to_string(samples().join("expected.json")).unwrap())
            .unwrap();
    let logs = expected["logs"].as_array().unwrap();
    // Every bundled debug log is covered.
    let mut files: Vec<String> = logs
        .iter()
        .map(|l| l["file"].as_str().unwrap().to_string())
        .collect();
    files.sort();
    let on_disk: Vec<String> = sorted_files(&samples().join("debug-logs"))
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, on_disk);

    let sb = Sandbox::new();
    for log in logs {
        let file = log["file"].as_str().unwrap();
        let o = sb.run(&[
            "scan",
            "--json",
            samples().join("debug-logs").join(file).to_str().unwrap(),
        ]);
        assert!(o.stderr.is_empty(), "{file}: {}", stderr(&o));
        let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
        let init: Value = serde_json::from_str(
            &fs::read_to_string(samples().join("init").join(log["init"].as_str().unwrap()))
                .unwrap(),
        )
        .unwrap();
        let want = log["servers"].as_array().unwrap();
        let got = doc["servers"].as_array().unwrap();
        let names = |v: &[Value], key: &str| {
            let mut n: Vec<String> = v
                .iter()
                .map(|s| s[key].as_str().unwrap().to_string())
                .collect();
            n.sort();
            n
        };
        assert_eq!(names(got, "name"), names(want, "server"), "{file}");
        assert_eq!(
            names(init["mcp_servers"].as_array().unwrap(), "name"),
            names(want, "server"),
            "{file}"
        );
        for w in want {
            let name = w["server"].as_str().unwrap();
            let s = server(&doc, name);
            assert!(s["project"].is_null());
            assert_eq!(
                (&s["verdict"], &s["cause"]),
                (&w["verdict"], &w["cause"]),
                "{file}: {name}"
            );
            // The expectation agrees with Claude Code's own view of the run.
            let m = init["mcp_servers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["name"] == name)
                .unwrap();
            assert_eq!(m["status"], w["init_status"], "{file}: {name}");
            let home = log["home"].as_str().unwrap();
            let sample = samples_expected["servers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["home"] == home && e["server"] == name)
                .unwrap();
            let prefix = sample["claude_code"]["tool_prefix"].as_str().unwrap();
            let tools = init["tools"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|t| t.as_str().unwrap().starts_with(prefix))
                .count();
            assert_eq!(
                tools as u64,
                w["init_tools"].as_u64().unwrap(),
                "{file}: {name}"
            );
            let verdict = w["verdict"].as_str().unwrap();
            match m["status"].as_str().unwrap() {
                "connected" if tools > 0 => {
                    assert!(
                        ["healthy", "tolerated"].contains(&verdict),
                        "{file}: {name}"
                    )
                }
                "connected" => assert_eq!(verdict, "tools-fetch-failed", "{file}: {name}"),
                "failed" => assert!(
                    ["connection-failed", "version-unsupported"].contains(&verdict),
                    "{file}: {name}"
                ),
                "needs-auth" => assert_eq!(w["cause"], "needs-auth", "{file}: {name}"),
                _ => {}
            }
            // The latest stream-json run of a home is each server's latest session.
            let latest =
                file.ends_with("stream-json.txt") && sample["latest_version"] == log["version"];
            if latest && name != "slow-start" {
                assert_eq!(
                    (&w["verdict"], &w["cause"]),
                    (&sample["expected"]["verdict"], &sample["expected"]["cause"]),
                    "{file}: {name}"
                );
            }
        }
    }
}

#[test]
fn old_format_tree_scans() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, doc) = run_json(
        mcplogs(tmp.path())
            .args(["scan", "--json"])
            .arg(samples().join("old-format")),
    );
    let s = server(&doc, "exits-early");
    assert_eq!(s["verdict"], "connection-failed");
    assert_eq!(s["cause"], "connection-closed");
    assert!(s["evidence"][0]["file"].as_str().unwrap().ends_with(".txt"));
    let s = server(&doc, "acme-docs");
    assert_eq!(s["verdict"], "healthy");
    assert_eq!(s["era"], "legacy");
}

/// The scan reads JSON Lines through a prefilter that decodes only lines that can
/// matter. On every real sample file, it must give exactly the sessions, verdicts,
/// evidence and times that decoding every line gives.
#[test]
fn prefiltered_scan_equals_full_decoding_on_every_sample() {
    use mcplogs::logs::session::group_sessions;
    let mut files = 0;
    let (mut decoded_all, mut decoded_prefiltered) = (0, 0);
    for entry in walkdir::WalkDir::new(samples()) {
        let p = entry.unwrap().into_path();
        if p.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        files += 1;
        let full = decode_file(&p).unwrap();
        let mut streamed = Vec::new();
        let (format, damage) =
            mcplogs::logs::decode::decode_prefiltered(&p, &mut |r| streamed.push(r)).unwrap();
        assert_eq!(format, Some(LogFormat::JsonLines));
        assert_eq!(damage, full.damage, "{}", p.display());
        decoded_all += full.records.len();
        decoded_prefiltered += streamed.len();
        let a = group_sessions(full.records);
        let b = group_sessions(streamed);
        assert_eq!(a.len(), b.len(), "{}", p.display());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.id, y.id);
            assert_eq!(x.first_timestamp, y.first_timestamp, "{}", p.display());
            assert_eq!(x.last_timestamp, y.last_timestamp, "{}", p.display());
            assert_eq!(x.cwd, y.cwd);
            assert_eq!(x.diagnosis, y.diagnosis, "{}", p.display());
            assert_eq!(x.evidence, y.evidence, "{}", p.display());
        }
    }
    assert!(files > 90, "{files}");
    assert!(
        decoded_prefiltered < decoded_all,
        "the prefilter skips records: {decoded_prefiltered} of {decoded_all} decoded"
    );
}
