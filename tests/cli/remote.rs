//! Remote servers as users meet them (issue 52): every fixture of tests/fixtures/remote/
//! (real runs of 2.1.287, 2.1.310 and 2.1.336: TLS, proxies, names, refused and silent
//! ports, OAuth, a static Authorization header) put into a home as Claude Code keeps it,
//! with the server configured in `~/.claude.json`, through `scan --json`: the verdict
//! and cause of expected.json, agreement with Claude Code's own status, and advice that
//! names the exact setting or command.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::*;
use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/remote")
}

/// Claude Code's folder name for a path: every character but a letter or digit is `-`.
fn encode(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// A home holding the fixture's log where Claude Code writes it and the server's entry
/// in `~/.claude.json`; returns the home and Claude Code's verdict of the run.
fn fixture_home(tmp: &Path, case: &str, build: &str) -> (PathBuf, Value) {
    let dir = root().join(case).join(build);
    let cc: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("claude.json")).unwrap()).unwrap();
    let logs = dir.join(format!("mcp-logs-{}", encode(case)));
    let first = sorted_files(&logs).remove(0);
    let record: Value =
        serde_json::from_str(fs::read_to_string(&first).unwrap().lines().next().unwrap()).unwrap();
    let project = record["cwd"].as_str().unwrap();
    let home = tmp.join(format!("{case}-{build}"));
    let dest = home
        .join(".cache/claude-cli-nodejs")
        .join(encode(project))
        .join(format!("mcp-logs-{}", encode(case)));
    copy_tree(&logs, &dest);
    fs::write(
        home.join(".claude.json"),
        serde_json::to_string_pretty(&json!({"mcpServers": {case: cc["config"]}})).unwrap(),
    )
    .unwrap();
    (home, cc)
}

fn scan_home(home: &Path) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = mcplogs(tmp.path());
    cmd.args(["scan", "--json", "--no-cache", "--home"])
        .arg(home);
    let (r, doc) = run_json(&mut cmd);
    assert!(r.stderr.is_empty(), "{}: {}", home.display(), r.stderr);
    doc
}

/// What the advice of each remote cause must name (the setting, the command).
fn advice_names(case: &str, cause: &str) -> Vec<String> {
    match cause {
        "tls-untrusted" => vec![
            "NODE_EXTRA_CA_CERTS".into(),
            "~/.claude/settings.json".into(),
        ],
        // scan: the fix engine's action (merged with the hosts in effect: none here);
        // explain of a pasted line: the hand advice (`<the hosts already there>,`)
        "proxy-refused" => vec!["NO_PROXY=".into(), "127.0.0.2".into()],
        "needs-auth" => vec![format!("`claude mcp login {case}`")],
        "oauth-no-registration" => vec![
            "--client-id <client id>".into(),
            format!("`claude mcp login {case}`"),
        ],
        "auth-header-rejected" => vec!["\"headers\"".into()],
        "tls-expired" | "tls-hostname" | "name-not-resolved" | "connection-refused" => {
            vec!["No Claude Code setting fixes this".into()]
        }
        _ => vec![],
    }
}

#[test]
fn every_remote_fixture_gets_its_cause_agrees_with_claude_code_and_names_the_fix() {
    let expected: Value =
        serde_json::from_str(&fs::read_to_string(root().join("expected.json")).unwrap()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut runs = 0;
    for (case, builds) in expected["cases"].as_object().unwrap() {
        for (build, want) in builds.as_object().unwrap() {
            let (home, cc) = fixture_home(tmp.path(), case, build);
            let doc = scan_home(&home);
            let s = server(&doc, case);
            let (verdict, cause) = (s["verdict"].as_str().unwrap(), s["cause"].as_str());
            assert_eq!(
                (verdict, cause),
                (want["verdict"].as_str().unwrap(), want["cause"].as_str()),
                "{case} on {build}"
            );
            // Claude Code's own status of the same run
            let agrees = match cc["status"].as_str().unwrap() {
                "connected" => verdict == "healthy",
                "failed" => verdict == "connection-failed" && cause != Some("needs-auth"),
                "needs-auth" => verdict == "connection-failed" && cause == Some("needs-auth"),
                other => panic!("{case} on {build}: status {other}"),
            };
            assert!(
                agrees,
                "{case} on {build}: Claude Code {}, mcplogs {verdict} {cause:?}",
                cc["status"]
            );
            let advice = s["recommendation"].as_str().unwrap();
            for word in advice_names(case, cause.unwrap_or("")) {
                assert!(
                    advice.contains(&word),
                    "{case} on {build}: {word:?} not in {advice}"
                );
            }
            assert!(!advice.contains("REJECT_UNAUTHORIZED"), "{advice}");
            runs += 1;
        }
    }
    assert!(runs >= 60, "only {runs} fixtures");
}

/// The screen says the cause in a few words and the settings fix once, with the
/// server's host taken from its configured URL: `mcplogs fix`'s no-proxy change (the
/// value merged with what is in effect, none here).
#[test]
fn scan_screen_names_the_proxy_refusal_and_the_host_to_exempt() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, _) = fixture_home(tmp.path(), "proxy-407-https", "2.1.336");
    let mut cmd = mcplogs(tmp.path());
    cmd.args(["scan", "--no-cache", "--home"]).arg(&home);
    let r = run(&mut cmd);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("proxy refused (407)"), "{}", r.stdout);
    let flat = r.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("(no-proxy): the proxy in HTTPS_PROXY/HTTP_PROXY refused 127.0.0.2")
            && flat.contains("NO_PROXY=127.0.0.2 in the env of"),
        "{}",
        r.stdout
    );
}

/// The debug file of the same runs (its lines about the server, `debug.txt`) gives each
/// server the same verdict and cause as its MCP log.
#[test]
fn every_remote_debug_file_gives_the_cause_of_the_log() {
    let expected: Value =
        serde_json::from_str(&fs::read_to_string(root().join("expected.json")).unwrap()).unwrap();
    let mut runs = 0;
    for (case, builds) in expected["cases"].as_object().unwrap() {
        for (build, want) in builds.as_object().unwrap() {
            let debug = root().join(case).join(build).join("debug.txt");
            let tmp = tempfile::tempdir().unwrap();
            let mut cmd = mcplogs(tmp.path());
            cmd.args(["scan", "--json", "--no-cache"]).arg(&debug);
            let (r, doc) = run_json(&mut cmd);
            assert!(r.stderr.is_empty(), "{case}/{build}: {}", r.stderr);
            let s = server(&doc, case);
            assert_eq!(
                (s["verdict"].as_str(), s["cause"].as_str()),
                (want["verdict"].as_str(), want["cause"].as_str()),
                "{case} on {build} (debug file)"
            );
            runs += 1;
        }
    }
    assert!(runs >= 60, "only {runs} debug files");
}

/// `claude mcp list` over the same servers (tests/fixtures/remote/mcp-list/<build>.txt),
/// pasted into `explain`: each server the cause its log gives, and advice naming it.
#[test]
fn explain_reads_each_remote_failure_of_claude_mcp_list() {
    let expected: Value =
        serde_json::from_str(&fs::read_to_string(root().join("expected.json")).unwrap()).unwrap();
    let lists = sorted_files(&root().join("mcp-list"));
    assert!(lists.len() >= 2, "{lists:?}");
    for list in lists {
        let build = list.file_stem().unwrap().to_str().unwrap().to_string();
        let tmp = tempfile::tempdir().unwrap();
        let mut cmd = mcplogs(tmp.path());
        cmd.args(["explain", "--no-logs", "--json"]).arg(&list);
        let (_, doc) = run_json(&mut cmd);
        let mut seen = 0;
        for s in doc["servers"].as_array().unwrap() {
            let name = s["name"].as_str().unwrap();
            let want = &expected["cases"][name][&build];
            assert!(!want.is_null(), "{name}: no expectation for {build}");
            // the health check's detail gives the cause the session's log gives
            let want_cause = want["cause"].as_str();
            assert_eq!(s["cause"].as_str(), want_cause, "{name} in {build}'s list");
            let advice = s["recommendation"].as_str().unwrap();
            for word in advice_names(name, want_cause.unwrap_or("")) {
                assert!(advice.contains(&word), "{name}: {word:?} not in {advice}");
            }
            seen += 1;
        }
        assert!(seen >= 20, "{build}: only {seen} servers explained");
    }
}
