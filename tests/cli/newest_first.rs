//! Reading newest first and stopping once the verdict is decided must give exactly what
//! reading every file gives: verdict, cause, era, evidence, the deciding file. Histories
//! are generated from real session files (sample-logs/linux-home): failures, fixes
//! without a version change, regressions, `claude mcp list` health checks, upgrades.

use crate::common::*;

use std::fs;
use std::path::{Path, PathBuf};

use mcplogs::logs::discovery::Request;
use mcplogs::scan::{ScanOptions, ScanReport, scan};
use proptest::prelude::*;
use serde_json::Value;

/// The real session files a history is made of.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    /// 2.1.332 `-p` run, tools/list rejected (wrong field types); capabilities A.
    Fail,
    /// 2.1.332 `claude mcp list` of the same server: connects, closes after 0 s.
    HealthCheck,
    /// The health check's records with tool calls: the tools were loaded (fixed).
    Work,
    /// The health check's records, connection closed after 5400 s.
    LongIdle,
    /// 2.1.288 `-p` run of another server: missing resultType (strict); capabilities B.
    StrictFail,
    /// 2.1.332 `-p` run of that server: tolerated.
    Tolerated,
    /// 2.1.332 health check of that server.
    HealthCheckB,
    /// The command is missing.
    ConnFail,
    /// Only `Starting connection`: nothing decisive.
    Undecided,
    /// An empty file.
    Empty,
}

fn template(folder: &str, idx: usize) -> Vec<Value> {
    let dir = samples().join(format!(
        "linux-home/.cache/claude-cli-nodejs/-tmp-mcplogs-samples-home-linux-work-api/mcp-logs-{folder}"
    ));
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    fs::read_to_string(&files[idx])
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn message_of(r: &Value) -> &str {
    r.get("debug")
        .or(r.get("error"))
        .and_then(|m| m.as_str())
        .unwrap_or("")
}

fn records(kind: Kind) -> Vec<Value> {
    let with_calls = |mut recs: Vec<Value>, calls: bool, secs: Option<u64>| {
        let cut = recs
            .iter()
            .position(|r| message_of(r).starts_with("Sending SIGINT"))
            .unwrap_or(recs.len());
        if calls {
            // Wording from the Claude Code binary (2.1.288 and 2.1.332).
            for m in [
                "Calling MCP tool: search",
                "Tool 'search' completed successfully in 2s",
            ] {
                recs.insert(cut, serde_json::json!({ "debug": m }));
            }
        }
        if let Some(s) = secs {
            for r in &mut recs {
                if message_of(r).starts_with("STDIO connection closed after") {
                    r["debug"] = format!("STDIO connection closed after {s}s (cleanly)").into();
                }
            }
        }
        recs
    };
    match kind {
        Kind::Fail => template("wrong-types", 5),
        Kind::HealthCheck => template("wrong-types", 3),
        Kind::Work => with_calls(template("wrong-types", 3), true, Some(3600)),
        Kind::LongIdle => with_calls(template("wrong-types", 3), false, Some(5400)),
        Kind::StrictFail => template("no-resulttype", 2),
        Kind::Tolerated => template("no-resulttype", 5),
        Kind::HealthCheckB => template("no-resulttype", 3),
        Kind::ConnFail => template("missing-cmd", 5),
        Kind::Undecided => {
            vec![serde_json::json!({"debug": "Starting connection with timeout of 30000ms"})]
        }
        Kind::Empty => Vec::new(),
    }
}

/// Writes a server folder holding one file per session, a day apart.
pub(crate) fn write_history(root: &Path, history: &[Kind]) -> PathBuf {
    let dir = root
        .join("claude-cli-nodejs")
        .join("-home-ana-proj")
        .join("mcp-logs-srv");
    fs::create_dir_all(&dir).unwrap();
    for (day, kind) in history.iter().enumerate() {
        let stamp = format!("2026-10-{:02}T09-00-00-000Z", day + 1);
        let mut text = String::new();
        for (i, mut r) in records(*kind).into_iter().enumerate() {
            r["timestamp"] = format!("2026-10-{:02}T09:00:{:02}.000Z", day + 1, i.min(59)).into();
            r["sessionId"] = format!("session-{day}").into();
            r["cwd"] = "/home/ana/proj".into();
            text.push_str(&r.to_string());
            text.push('\n');
        }
        fs::write(dir.join(format!("{stamp}.jsonl")), text).unwrap();
    }
    dir
}

fn scan_tree(root: &Path, all: bool) -> ScanReport {
    scan(&ScanOptions {
        request: Request {
            homes: Vec::new(),
            paths: vec![root.join("claude-cli-nodejs")],
        },
        all,
        ..ScanOptions::default()
    })
    .unwrap()
}

pub(crate) fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        3 => Just(Kind::Fail),
        4 => Just(Kind::HealthCheck),
        3 => Just(Kind::Work),
        1 => Just(Kind::LongIdle),
        2 => Just(Kind::StrictFail),
        2 => Just(Kind::Tolerated),
        2 => Just(Kind::HealthCheckB),
        1 => Just(Kind::ConnFail),
        1 => Just(Kind::Undecided),
        1 => Just(Kind::Empty),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn newest_first_equals_reading_everything(history in prop::collection::vec(kind(), 1..14)) {
        let tmp = tempfile::tempdir().unwrap();
        write_history(tmp.path(), &history);
        let fast = scan_tree(tmp.path(), false);
        let full = scan_tree(tmp.path(), true);
        prop_assert_eq!(fast.servers.len(), full.servers.len());
        for (a, b) in fast.servers.iter().zip(&full.servers) {
            prop_assert_eq!(&a.diagnosis, &b.diagnosis);
            prop_assert_eq!(&a.evidence, &b.evidence);
            prop_assert_eq!(&a.last_seen, &b.last_seen);
            prop_assert_eq!(&a.deciding_file, &b.deciding_file);
            prop_assert_eq!(a.latest_only_connected, b.latest_only_connected);
            // `sessions` counts files either way; the fast read reads at most all.
            prop_assert_eq!(a.sessions, b.sessions);
            prop_assert_eq!(b.files_read, b.sessions);
            prop_assert!(a.files_read <= b.files_read);
            prop_assert!(a.sessions_read <= b.sessions_read);
        }
    }
}

fn verdict(history: &[Kind]) -> (String, bool, usize) {
    let tmp = tempfile::tempdir().unwrap();
    write_history(tmp.path(), history);
    let r = scan_tree(tmp.path(), false);
    let s = &r.servers[0];
    (
        s.diagnosis.verdict.to_string(),
        s.latest_only_connected,
        s.files_read,
    )
}

#[test]
fn tool_calls_after_a_failure_prove_the_fix() {
    use Kind::*;
    // Fixed without a version change: identical capabilities, tools called since.
    assert_eq!(
        verdict(&[Fail, Fail, HealthCheck, Work, Work, HealthCheck]),
        ("healthy".into(), false, 4)
    );
    // A long session proves it too.
    assert_eq!(verdict(&[Fail, LongIdle]).0, "healthy");
    // Health checks alone prove nothing: the failure stands, and the output says the
    // latest session only connected.
    assert_eq!(
        verdict(&[Work, Fail, HealthCheck, HealthCheck]),
        ("tools-fetch-failed".into(), true, 4)
    );
    // Regressed: tools were called, then failed.
    assert_eq!(verdict(&[Work, Work, Fail]).0, "tools-fetch-failed");
    // Upgraded: the strict build failed, the tolerant one filled the fields in.
    assert_eq!(
        verdict(&[StrictFail, StrictFail, Tolerated, HealthCheckB]).0,
        "tolerated"
    );
}

#[test]
fn reading_stops_once_decided() {
    use Kind::*;
    // 30 failing days, then a working one: the newest file decides; two more are read
    // as history, the other 28 are not.
    let mut h = vec![Fail; 30];
    h.push(Work);
    let (v, _, read) = verdict(&h);
    assert_eq!(v, "healthy");
    assert_eq!(read, 3);
}

#[test]
fn every_sample_tree_gets_the_same_verdicts_as_reading_everything() {
    let dirs: Vec<PathBuf> = fs::read_dir(samples())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    assert!(dirs.len() >= 6);
    for dir in dirs {
        let scan_with = |all| {
            scan(&ScanOptions {
                request: Request {
                    homes: Vec::new(),
                    paths: vec![dir.clone()],
                },
                all,
                ..ScanOptions::default()
            })
            .unwrap()
        };
        let (fast, full) = (scan_with(false), scan_with(true));
        assert_eq!(fast.servers.len(), full.servers.len(), "{}", dir.display());
        for (a, b) in fast.servers.iter().zip(&full.servers) {
            assert_eq!(a.diagnosis, b.diagnosis, "{} {}", dir.display(), a.name);
            assert_eq!(a.evidence, b.evidence, "{} {}", dir.display(), a.name);
            assert_eq!(a.last_seen, b.last_seen, "{} {}", dir.display(), a.name);
        }
    }
}
