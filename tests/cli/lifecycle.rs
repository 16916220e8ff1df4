//! Every discovery-lifecycle fixture (tests/fixtures/lifecycle/, real runs of
//! 2.1.287, 2.1.288, 2.1.310 and 2.1.332) through `scan`: the verdict and cause recorded in
//! its expected.json, and agreement with Claude Code's own verdict of the same run.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::*;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lifecycle")
}

fn expected() -> serde_json::Map<String, Value> {
    let text = fs::read_to_string(root().join("expected.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["cases"].as_object().unwrap().clone()
}

fn scan(dir: &Path) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = mcplogs(tmp.path());
    cmd.args(["scan", "--json", "--no-cache"]).arg(dir);
    let (r, doc) = run_json(&mut cmd);
    assert!(r.stderr.is_empty(), "{}: {}", dir.display(), r.stderr);
    doc
}

/// Claude Code's verdict (init status, or `interactive` for the tmux runs; its tools)
/// against mcplogs'. `pending` is no verdict and agrees with all.
fn agrees(status: &str, tools: u64, verdict: &str) -> bool {
    match status {
        "connected" | "interactive" if tools > 0 => {
            ["healthy", "tolerated", "degraded"].contains(&verdict)
        }
        "connected" | "interactive" => verdict == "tools-fetch-failed",
        "failed" => ["connection-failed", "version-unsupported"].contains(&verdict),
        "pending" => true,
        other => panic!("unexpected status {other}"),
    }
}

#[test]
fn every_lifecycle_fixture_gets_its_verdict_and_agrees_with_claude_code() {
    let cases = expected();
    let mut runs = 0;
    let mut table = Vec::new();
    for entry in fs::read_dir(root()).unwrap() {
        let case_dir = entry.unwrap().path();
        if !case_dir.is_dir() {
            continue;
        }
        let case = case_dir.file_name().unwrap().to_str().unwrap().to_string();
        let want_case = cases
            .get(&case)
            .unwrap_or_else(|| panic!("{case} has no entry in expected.json"));
        for b in fs::read_dir(&case_dir).unwrap() {
            let build_dir = b.unwrap().path();
            let build = build_dir.file_name().unwrap().to_str().unwrap().to_string();
            let cc: Value =
                serde_json::from_str(&fs::read_to_string(build_dir.join("claude.json")).unwrap())
                    .unwrap();
            let doc = scan(&build_dir);
            let servers = doc["servers"].as_array().unwrap();
            assert_eq!(servers.len(), 1, "{case}/{build}: {doc:#}");
            let s = &servers[0];
            let verdict = s["verdict"].as_str().unwrap();
            let status = cc["status"].as_str().unwrap();
            let tools = cc["toolCount"].as_u64().unwrap();
            table.push(format!(
                "{case}/{build}: {status}/{tools} -> {verdict} {}",
                s["cause"]
            ));
            assert!(
                agrees(status, tools, verdict),
                "{case}/{build}: Claude Code says {status}/{tools}, mcplogs {verdict} ({})",
                s["cause"]
            );
            let want = &want_case[&build];
            if !want.is_null() {
                assert_eq!(s["verdict"], want["verdict"], "{case}/{build}: {s:#}");
                assert_eq!(s["cause"], want["cause"], "{case}/{build}: {s:#}");
            }
            runs += 1;
        }
    }
    eprintln!("{}", table.join("\n"));
    // 40 cases on three builds
    assert!(runs >= 40 * 3, "{runs}");
}

#[test]
fn no_lifecycle_failure_prescribes_the_legacy_fix_for_fine_tools() {
    // resources/prompts lists rejected on 2.1.288 while the tools load: the advice says
    // what is lost and that legacy would bring them back, never `mcplogs fix` for tools
    let doc = scan(&root().join("rp-modern-missing/2.1.288"));
    let s = &doc["servers"][0];
    assert_eq!(s["legacyFixApplies"], false, "{s:#}");
    let advice = s["recommendation"].as_str().unwrap();
    assert!(
        advice.contains("resources") && advice.contains("prompts"),
        "{advice}"
    );
    assert!(advice.contains("tools load"), "{advice}");
    assert!(!advice.contains("mcplogs fix"), "{advice}");
}

#[test]
fn a_tools_timeout_names_the_variable_and_a_value_that_fixes_it() {
    for (case, limit) in [("slow-tools-3s", "3000"), ("slow-tools-35s", "30000")] {
        let doc = scan(&root().join(case).join("2.1.332"));
        let advice = doc["servers"][0]["recommendation"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(advice.contains("MCP_TIMEOUT=60000"), "{case}: {advice}");
        assert!(advice.contains(&format!("{limit} ms")), "{case}: {advice}");
    }
}

#[test]
fn tools_not_sent_for_their_name_make_the_server_degraded_with_a_fix() {
    // 2.1.291 sends every name; from 2.1.292 the two names over 128 characters are lost
    for (build, lost) in [("2.1.291", 0), ("2.1.292", 2), ("2.1.336", 2)] {
        let doc = scan(&root().join("name-long").join(build));
        let s = &doc["servers"][0];
        if lost == 0 {
            assert_eq!(s["verdict"], "healthy", "{build}: {s:#}");
            continue;
        }
        assert_eq!(s["verdict"], "degraded", "{build}: {s:#}");
        assert_eq!(s["cause"], "tool-name-too-long", "{build}: {s:#}");
        assert_eq!(s["toolsNotSent"], lost, "{build}: {s:#}");
        let advice = s["recommendation"].as_str().unwrap();
        assert!(
            advice.contains("2 of this server's tools are missing"),
            "{advice}"
        );
        assert!(advice.contains("shorter name"), "{advice}");
        assert!(advice.contains("128 characters"), "{advice}");
    }
    // the same tools under a 2-character server name: only the 200-character one is lost
    let doc = scan(&root().join("nl/2.1.332"));
    assert_eq!(doc["servers"][0]["toolsNotSent"], 1, "{doc:#}");
}

/// Every fixture of a server reached over HTTP: no advice asks to run its command.
#[test]
fn no_advice_asks_to_run_the_command_of_a_server_reached_by_url() {
    let mut remote = 0;
    for entry in fs::read_dir(root()).unwrap() {
        let case_dir = entry.unwrap().path();
        if !case_dir.is_dir() {
            continue;
        }
        for b in fs::read_dir(&case_dir).unwrap() {
            let build_dir = b.unwrap().path();
            let logs = fs::read_dir(&build_dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.is_dir())
                .unwrap();
            let text: String = fs::read_dir(&logs)
                .unwrap()
                .map(|f| fs::read_to_string(f.unwrap().path()).unwrap())
                .collect();
            if !text.contains("Initializing HTTP transport") {
                continue;
            }
            remote += 1;
            let doc = scan(&build_dir);
            let s = &doc["servers"][0];
            let advice = s["recommendation"].as_str().unwrap();
            for never in ["command", "process", "stderr"] {
                assert!(!advice.contains(never), "{}: {advice}", build_dir.display());
            }
        }
    }
    // header-http*, http-400-version: four each on four builds
    assert!(remote >= 16, "{remote}");
    let doc = scan(&root().join("http-400-version/2.1.332"));
    let s = &doc["servers"][0];
    assert_eq!(s["verdict"], "connection-failed");
    // the short reason is the server's own answer
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = mcplogs(tmp.path());
    cmd.args(["scan", "--no-cache"])
        .arg(root().join("http-400-version/2.1.332"));
    let r = run(&mut cmd);
    assert!(
        r.stdout
            .contains("HTTP 400: Bad Request: Unsupported protocol version: 2025-11-25"),
        "{}",
        r.stdout
    );
    assert!(
        s["recommendation"].as_str().unwrap().contains("URL"),
        "{s:#}"
    );
}

#[test]
fn a_top_level_any_of_is_told_to_add_type_object_at_the_top() {
    for build in ["2.1.288", "2.1.310", "2.1.332"] {
        let doc = scan(&root().join("schema-anyof").join(build));
        let s = &doc["servers"][0];
        assert_eq!(s["cause"], "invalid-tool-definition", "{s:#}");
        let advice = s["recommendation"].as_str().unwrap();
        assert!(
            advice.contains("add \"type\": \"object\" at the top of that tool's inputSchema"),
            "{advice}"
        );
        assert!(advice.contains("tools[1].inputSchema.type"), "{advice}");
    }
}

#[test]
fn every_wording_the_markers_list_is_in_the_run_it_names() {
    use mcplogs::claude_code::markers::{INITIALIZE_TIMEOUT_WORDINGS, PROCESS_END_WORDINGS};
    for w in INITIALIZE_TIMEOUT_WORDINGS
        .iter()
        .chain(PROCESS_END_WORDINGS)
    {
        let dir = root().join(w.fixture);
        let mut found = false;
        for f in fs::read_dir(&dir).unwrap() {
            let sub = f.unwrap().path();
            if !sub.is_dir() {
                continue;
            }
            for log in fs::read_dir(&sub).unwrap() {
                let text = fs::read_to_string(log.unwrap().path()).unwrap();
                for line in text.lines() {
                    let r: Value = serde_json::from_str(line).unwrap();
                    let t = r["debug"].as_str().or(r["error"].as_str()).unwrap_or("");
                    // numbers stand as N in the table
                    let mut norm = String::new();
                    let mut in_num = false;
                    for c in t.chars() {
                        if c.is_ascii_digit() {
                            if !in_num {
                                norm.push('N');
                            }
                            in_num = true;
                        } else {
                            norm.push(c);
                            in_num = false;
                        }
                    }
                    found |= norm == w.text;
                }
            }
        }
        assert!(found, "{:?} not in {}", w.text, w.fixture);
        let build = w.fixture.rsplit('/').next().unwrap();
        let build = mcplogs::claude_code::lifecycle::ClaudeVersion::parse(build).unwrap();
        assert!(
            w.seen.0 <= build && build <= w.seen.1,
            "{}: {build} outside {:?}",
            w.text,
            w.seen
        );
    }
}

#[test]
fn a_handshake_timeout_before_mcp_timeout_ran_out_names_the_discover_hold_and_legacy() {
    // the negotiating path's budget (docs/claude-code.md, "The handshake budget"):
    // logged as a failure well inside MCP_TIMEOUT, stdio (2.1.287) and HTTP (2.1.307)
    for case in [
        "handshake-budget-stdio/2.1.287",
        "handshake-budget-http/2.1.307",
    ] {
        let doc = scan(&root().join(case));
        let s = &doc["servers"][0];
        assert_eq!(s["cause"], "timeout", "{case}: {s:#}");
        let advice = s["recommendation"].as_str().unwrap();
        assert!(advice.contains("server/discover"), "{case}: {advice}");
        assert!(
            advice.contains("MCP_PROTOCOL_NEGOTIATION=legacy"),
            "{case}: {advice}"
        );
        assert!(
            advice.contains("7000 ms for a stdio server"),
            "{case}: {advice}"
        );
        assert!(advice.contains("MCP_TIMEOUT=60000"), "{case}: {advice}");
    }
    // a timeout at the limit itself says nothing of it
    let doc = scan(&root().join("frame-pretty/2.1.288"));
    let advice = doc["servers"][0]["recommendation"].as_str().unwrap();
    assert!(!advice.contains("server/discover"), "{advice}");
}

/// Claude Code writes what a server sent as bytes that are not UTF-8 as U+FFFD (its log
/// stays UTF-8; observed on 2.1.287 to 2.1.336, fixtures `bytes-*`): those
/// records are read whole, with no warning, and quoted as written.
#[test]
fn records_holding_replacement_characters_are_read_whole() {
    for build in ["2.1.288", "2.1.310", "2.1.336"] {
        let dir = root().join("bytes-init").join(build);
        let log = fs::read_dir(dir.join("mcp-logs-bytes-init"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let text = fs::read_to_string(&log).expect("Claude Code's log is UTF-8");
        assert!(
            text.contains("stub stderr \u{fffd}\u{fffd} caf\u{fffd}"),
            "{text}"
        );
        let doc = scan(&dir);
        assert_eq!(doc["warnings"], serde_json::json!([]), "{doc:#}");
        let s = &doc["servers"][0];
        assert_eq!(s["verdict"], "healthy", "{s:#}");
        assert!(
            s["evidence"]
                .to_string()
                .contains("\\\"name\\\":\\\"stub-\u{fffd}\u{fffd}-name\\\""),
            "{build}: {s:#}"
        );
    }
}
