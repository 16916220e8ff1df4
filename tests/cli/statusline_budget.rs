//! Issue 55: the status line's read budget. A session's first run on a server log larger
//! than a run's budget, whose deciding record lies in its middle, shows the server as not
//! decided (`…`), never working; the next runs read on into the middle, a budget each,
//! and end on the verdict `scan` gives the server.

use std::fs;
use std::path::Path;

use crate::common::*;

fn rec(key: &str, msg: &str) -> String {
    serde_json::json!({key: msg, "timestamp": "2026-11-29T12:00:00.000Z", "sessionId": "now", "cwd": "/w/p"})
        .to_string()
}

/// `scan --json`'s `(verdict, cause)` of the server `name`.
fn scan_answer(home: &Path, name: &str) -> (String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let mut c = mcplogs(tmp.path());
    c.args(["scan", "--json", "--no-cache", "--home"]).arg(home);
    let r = run(&mut c);
    let doc: serde_json::Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"));
    let s = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {doc}"));
    (
        s["verdict"].as_str().unwrap().to_string(),
        s["cause"].as_str().unwrap_or("-").to_string(),
    )
}

#[test]
fn a_deciding_record_past_the_budget_shows_not_decided_then_scans_verdict() {
    // a file over 4 MiB (smaller ones are read whole on a first run), a budget of 1 MiB
    const BUDGET: u64 = 1 << 20;
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let cache = tmp.path().join("mcplogs-cache");
    let dir = home
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name("/w/p"))
        .join("mcp-logs-db");
    fs::create_dir_all(&dir).unwrap();
    let noise = rec("error", &format!("Server stderr: {}", "x".repeat(4000)));
    let mut lines = vec![
        rec("debug", "Starting connection with timeout of 30000ms"),
        rec(
            "debug",
            "Successfully connected (transport: stdio) in 120ms",
        ),
    ];
    lines.extend(std::iter::repeat_n(noise.clone(), 1100));
    // the reconnect that failed, deep in the middle of the server's stderr
    lines.push(rec(
        "error",
        "Connection failed: MCP error -32000: Connection closed",
    ));
    lines.extend(std::iter::repeat_n(noise, 1100));
    let text = lines.join("\n") + "\n";
    assert!(text.len() as u64 > 8 * BUDGET);
    fs::write(dir.join("2026-11-29T12-00-00-000Z.jsonl"), &text).unwrap();
    let input = r#"{"session_id":"now","cwd":"/w/p","workspace":{"current_dir":"/w/p","project_dir":"/w/p"}}"#;
    let go = || {
        let mut c = mcplogs(tmp.path());
        c.env("MCPLOGS_CACHE_DIR", &cache)
            .env("MCPLOGS_STATUSLINE_BUDGET", BUDGET.to_string())
            .args(["statusline", "--home"])
            .arg(&home);
        let r = run_with_stdin(&mut c, input.as_bytes());
        assert_eq!(r.code, 0, "{r:?}");
        r.stdout
    };
    assert_eq!(go(), "MCP 1…\n", "the first run: not decided, never a pass");
    let mut runs = 1;
    let line = loop {
        let l = go();
        runs += 1;
        if l != "MCP 1…\n" {
            break l;
        }
        assert!(runs as u64 <= text.len() as u64 / BUDGET + 3, "{runs} runs");
    };
    assert!(runs > 2, "read on over several runs: {runs}");
    assert_eq!(line, "MCP 1✗ db (connection closed · mcplogs scan)\n");
    let (verdict, cause) = scan_answer(&home, "db");
    assert_eq!(cause, "connection-closed", "{verdict}");
    // and it stays the line, run after run
    assert_eq!(go(), line);
}
