//! The classifier against every real sample server, and against Claude Code's own
//! verdict for it (the `init` line of its `claude -p` run).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use crate::common::*;
use serde_json::Value;

fn expected() -> Vec<Value> {
    let text = fs::read_to_string(samples().join("expected.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["servers"].as_array().unwrap().clone()
}

fn scan(args: &[&Path], home_mode: bool) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = mcplogs(tmp.path());
    cmd.arg("scan").arg("--json");
    for a in args {
        if home_mode {
            cmd.arg("--home");
        }
        cmd.arg(a);
    }
    let (r, doc) = run_json(&mut cmd);
    assert!(
        r.stderr.is_empty(),
        "real samples scan cleanly: {}",
        r.stderr
    );
    doc
}

/// Scans each sample home the way a user would (`--home` for homes, a path otherwise).
fn scans() -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for e in expected() {
        let home = e["home"].as_str().unwrap().to_string();
        if out.contains_key(&home) {
            continue;
        }
        let path = samples().join(&home);
        let doc = scan(&[&path], home.ends_with("-home"));
        out.insert(home, doc);
    }
    out
}

fn find<'a>(doc: &'a Value, folder: &str) -> &'a Value {
    let folder = folder.strip_prefix("mcp-logs-").unwrap();
    let hits: Vec<&Value> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["folder"] == folder)
        .collect();
    assert_eq!(hits.len(), 1, "one server for folder {folder}");
    hits[0]
}

/// Whether mcplogs' verdict agrees with Claude Code's own: the init line's status and
/// the number of `mcp__<server>__` tools it listed. `pending` is a snapshot taken about
/// two seconds in (non-blocking start-up), before the outcome, so it agrees with all.
fn agrees_with_claude_code(status: &str, tools: u64, verdict: &str, cause: Option<&str>) -> bool {
    match status {
        "connected" if tools > 0 => ["healthy", "tolerated"].contains(&verdict),
        "connected" => verdict == "tools-fetch-failed",
        "failed" => {
            ["connection-failed", "version-unsupported"].contains(&verdict)
                && cause != Some("needs-auth")
        }
        "needs-auth" => verdict == "connection-failed" && cause == Some("needs-auth"),
        "pending" => true,
        other => panic!("unexpected init status {other}"),
    }
}

#[test]
fn every_sample_server_gets_its_expected_verdict() {
    let scans = scans();
    let expected = expected();
    assert!(expected.len() >= 28);
    let mut table = Vec::new();
    for e in &expected {
        let doc = &scans[e["home"].as_str().unwrap()];
        let s = find(doc, e["folder"].as_str().unwrap());
        let want = &e["expected"];
        table.push(format!(
            "{} {} {} -> {} {}",
            e["home"], e["server"], e["claude_code"]["status"], s["verdict"], s["cause"]
        ));
        assert_eq!(s["verdict"], want["verdict"], "{e:#}\n{s:#}");
        assert_eq!(s["cause"], want["cause"], "{e:#}\n{s:#}");
        assert_eq!(s["era"], want["era"], "{e:#}\n{s:#}");
        assert_eq!(s["sessions"], e["sessions"], "{e:#}\n{s:#}");
        // Configured names, not encoded folder names.
        assert_eq!(s["name"], e["server"], "{s:#}");
    }
    eprintln!("{}", table.join("\n"));
}

#[test]
fn every_sample_verdict_agrees_with_claude_codes_own() {
    let scans = scans();
    let mut pending = 0;
    for e in expected() {
        let doc = &scans[e["home"].as_str().unwrap()];
        let s = find(doc, e["folder"].as_str().unwrap());
        let cc = &e["claude_code"];
        let status = cc["status"].as_str().unwrap();
        pending += usize::from(status == "pending");
        assert!(
            agrees_with_claude_code(
                status,
                cc["tools"].as_u64().unwrap(),
                s["verdict"].as_str().unwrap(),
                s["cause"].as_str()
            ),
            "Claude Code said {cc} but mcplogs said {} {}",
            s["verdict"],
            s["cause"]
        );
    }
    // Most samples have a definite status to compare with.
    assert!(pending < 10, "{pending}");
}

#[test]
fn every_verdict_and_cause_is_covered_by_the_samples() {
    let mut seen = std::collections::BTreeSet::new();
    for e in expected() {
        let x = &e["expected"];
        seen.insert(format!(
            "{}/{}",
            x["verdict"].as_str().unwrap(),
            x["cause"].as_str().unwrap_or("-")
        ));
    }
    for want in [
        "healthy/-",
        "tolerated/-",
        "tools-fetch-failed/missing-resultType",
        "tools-fetch-failed/missing-cache-fields",
        "tools-fetch-failed/wrong-field-types",
        "tools-fetch-failed/invalid-tool-definition",
        "tools-fetch-failed/other",
        "version-unsupported/-",
        "connection-failed/command-not-found",
        "connection-failed/connection-closed",
        "connection-failed/timeout",
        "connection-failed/needs-auth",
        "connection-failed/connection-refused",
        "unknown/-",
    ] {
        assert!(seen.contains(want), "no sample for {want}: {seen:?}");
    }
}

#[test]
fn projects_show_the_real_working_directory() {
    let scans = scans();
    let doc = &scans["linux-home"];
    for s in doc["servers"].as_array().unwrap() {
        assert_eq!(s["project"], "/tmp/mcplogs-samples/home-linux/work/api");
        assert_eq!(
            s["projectFolder"],
            "-tmp-mcplogs-samples-home-linux-work-api"
        );
    }
}

#[test]
fn the_three_os_layouts_are_found_under_one_tree() {
    let doc = scan(&[&samples()], false);
    let projects: std::collections::BTreeSet<&str> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["project"].as_str())
        .collect();
    for p in [
        "/tmp/mcplogs-samples/home-linux/work/api",
        "/tmp/mcplogs-samples/home-macos/work/web",
        "/tmp/mcplogs-samples/home-windows/work/app",
    ] {
        assert!(projects.contains(p), "{projects:?}");
    }
}

#[test]
fn health_check_sessions_do_not_hide_the_tools_failure() {
    // linux-home wrong-types: each version ran `claude mcp list` (connects, never fetches
    // tools) before `claude -p`. Scanning only up to the last health check must still
    // report the failure seen earlier on the same connection.
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    copy_tree(&samples().join("linux-home"), &home);
    let dir = walkdir::WalkDir::new(&home)
        .into_iter()
        .map(|e| e.unwrap())
        .find(|e| e.file_name() == "mcp-logs-wrong-types")
        .unwrap()
        .into_path();
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    // Files per version, in time order: mcp list, -p text, -p stream-json. Removing
    // 2.1.332's two -p runs leaves its health check as the newest session.
    assert_eq!(files.len(), 6);
    fs::remove_file(&files[4]).unwrap();
    fs::remove_file(&files[5]).unwrap();
    let newest = fs::read_to_string(&files[3]).unwrap();
    assert!(newest.contains("Connection established"));
    assert!(
        !newest.contains("Failed to fetch tools"),
        "the newest is a health check"
    );
    let doc = scan(&[&home], true);
    let s = server(&doc, "wrong-types");
    assert_eq!(s["verdict"], "tools-fetch-failed", "{s:#}");
    assert_eq!(s["cause"], "wrong-field-types");
}
