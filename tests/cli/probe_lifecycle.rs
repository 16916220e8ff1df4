//! `mcplogs probe` and `--contract` against the discovery-lifecycle stub
//! (tests/e2e/lifecycle_stub.py): the prediction must be what Claude Code did with the
//! same stub (tests/fixtures/lifecycle/, real runs), and the contract must fail wherever
//! a modelled build loses, truncates or renames a tool, naming the builds.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{HttpStubProcess, mcplogs, run};
use serde_json::Value;

fn stub() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/lifecycle_stub.py")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lifecycle")
}

/// `probe --json` (with `--contract` when asked) on one stub case, negotiation `auto`
/// as in the fixtures' runs.
fn probe(case: &str, version: &str, contract: bool) -> (i32, Value) {
    probe_with(case, &[], version, contract, &[], None)
}

/// The same with stub arguments, environment variables and a user settings `env` block.
fn probe_with(
    case: &str,
    stub_args: &[&str],
    version: &str,
    contract: bool,
    env: &[(&str, &str)],
    user_settings_env: Option<&str>,
) -> (i32, Value) {
    let home = tempfile::tempdir().unwrap();
    if let Some(e) = user_settings_env {
        fs::create_dir_all(home.path().join(".claude")).unwrap();
        fs::write(
            home.path().join(".claude/settings.json"),
            format!("{{\"env\": {e}}}"),
        )
        .unwrap();
    }
    let mut cmd = mcplogs(home.path());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.env("MCP_PROTOCOL_NEGOTIATION", "auto").args([
        "probe",
        "--json",
        "--claude-version",
        version,
    ]);
    if contract {
        cmd.arg("--contract");
    }
    cmd.arg("--command").arg(format!(
        "python3 {} --case {} {}",
        stub().display(),
        case.strip_suffix("-p").unwrap_or(case),
        stub_args.join(" ")
    ));
    let r = run(&mut cmd);
    let doc = crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &r.stdout);
    (r.code, doc["servers"][0].clone())
}

fn contract_check<'a>(s: &'a Value, name: &str) -> &'a Value {
    s["contract"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == name)
        .unwrap_or_else(|| panic!("no contract check {name}: {s:#}"))
}

/// The cases a probe can replay as Claude Code ran them: not the interactive ones, not
/// the slow ones (their own tests below use short limits instead of 30 s).
const REPLAYABLE: [&str; 26] = [
    "rp-modern-missing",
    "frame-early",
    "frame-early-late",
    "ok",
    "no-tools-cap",
    "pages-21",
    "pages-50",
    "cursor-repeat",
    "cursor-empty",
    "rp-modern-ok",
    "rp-legacy-missing",
    "name-space",
    "name-accent",
    "name-empty",
    "name-dup",
    "schema-no-name",
    "schema-no-input",
    "schema-anyof",
    "schema-ref",
    "schema-1mb",
    "schema-500",
    "output-not-object",
    "frame-nonrpc",
    "frame-unknown-id",
    "frame-crlf",
    "lc-valid-p",
];

/// The builds the contract answers for, as the model gives them.
fn contract_builds() -> Value {
    mcplogs::claude_code::lifecycle::CONTRACT_BUILDS
        .iter()
        .map(|v| Value::String(v.to_string()))
        .collect()
}

#[test]
fn each_boundary_is_predicted_on_both_sides_as_the_bisected_runs_show() {
    // the last build observed without the behaviour and the first observed with it,
    // each a real run kept as a fixture (scripts/observe-build --record)
    let expected: Value =
        serde_json::from_str(&fs::read_to_string(fixtures().join("expected.json")).unwrap())
            .unwrap();
    let mut checked = 0;
    for row in &mcplogs::claude_code::lifecycle::BOUNDARIES {
        let case = row.fixture;
        if !["tools-modern-missing", "rp-modern-missing", "cursor-repeat"].contains(&case) {
            continue;
        }
        for build in [row.last_without, row.first_with] {
            let build = build.to_string();
            let dir = fixtures().join(case).join(&build);
            let cc: Value =
                serde_json::from_str(&fs::read_to_string(dir.join("claude.json")).unwrap())
                    .unwrap();
            let want = &expected["cases"][case][&build];
            let (_, s) = probe(case, &build, false);
            let p = &s["prediction"];
            assert_eq!(p["verdict"], want["verdict"], "{case}/{build}: {p:#}");
            assert_eq!(p["cause"], want["cause"], "{case}/{build}: {p:#}");
            assert_eq!(p["toolsLoaded"], cc["toolCount"], "{case}/{build}: {p:#}");
            checked += 1;
        }
    }
    assert_eq!(checked, 8);
}

#[test]
fn the_prediction_is_what_each_build_did_with_the_same_stub() {
    let expected: Value =
        serde_json::from_str(&fs::read_to_string(fixtures().join("expected.json")).unwrap())
            .unwrap();
    for case in REPLAYABLE {
        for build in ["2.1.287", "2.1.288", "2.1.310", "2.1.332"] {
            let cc: Value = serde_json::from_str(
                &fs::read_to_string(fixtures().join(case).join(build).join("claude.json")).unwrap(),
            )
            .unwrap();
            let want = &expected["cases"][case][build];
            let (_, s) = probe(case, build, false);
            let p = &s["prediction"];
            assert_eq!(p["verdict"], want["verdict"], "{case}/{build}: {p:#}");
            assert_eq!(p["cause"], want["cause"], "{case}/{build}: {p:#}");
            assert_eq!(
                p["toolsLoaded"], cc["toolCount"],
                "{case}/{build}: Claude Code loaded {} tools: {p:#}",
                cc["toolCount"]
            );
        }
    }
}

#[test]
fn a_truncated_list_says_how_many_tools_claude_code_keeps() {
    let (code, s) = probe("pages-50", "2.1.332", true);
    assert_eq!(code, 1, "{s:#}");
    let reason = s["prediction"]["reason"].as_str().unwrap();
    assert!(reason.contains("20 of 50 tools"), "{reason}");
    let c = contract_check(&s, "pagination");
    assert_eq!(c["passed"], false);
    assert_eq!(c["builds"], contract_builds());
    assert!(
        c["detail"].as_str().unwrap().contains("20 of 50 tools"),
        "{c:#}"
    );
}

#[test]
fn the_contract_fails_renamed_and_deduplicated_tools_and_passes_what_every_build_takes() {
    let (_, s) = probe("name-space", "2.1.332", true);
    let c = contract_check(&s, "tool-names");
    assert_eq!(c["passed"], false, "{c:#}");
    assert!(c["detail"].as_str().unwrap().contains("\"a_b\""), "{c:#}");
    let reason = s["prediction"]["reason"].as_str().unwrap();
    assert!(reason.contains("renamed"), "{reason}");
    let (_, s) = probe("name-empty", "2.1.288", true);
    assert_eq!(contract_check(&s, "tool-names")["passed"], false);
    let (_, s) = probe("name-dup", "2.1.310", true);
    assert_eq!(contract_check(&s, "unique-names")["passed"], false);
    // an outputSchema of type "string" is loaded by every build
    let (_, s) = probe("output-not-object", "2.1.332", true);
    assert_eq!(
        contract_check(&s, "every-tool-accepted")["passed"],
        true,
        "{s:#}"
    );
    assert_eq!(contract_check(&s, "tool-names")["passed"], true, "{s:#}");
    // every check lists its builds
    for c in s["contract"].as_array().unwrap() {
        assert!(!c["builds"].as_array().unwrap().is_empty(), "{c:#}");
    }
    // notified at once, while the probe still reads: sent without the capability fails,
    // sent with it passes
    let now = ["--list-changed-after-ms", "0"];
    let (_, s) = probe_with("lc-undeclared", &now, "2.1.332", true, &[], None);
    let c = contract_check(&s, "list-changed");
    assert_eq!(c["passed"], false, "{c:#}");
    assert!(
        c["detail"]
            .as_str()
            .unwrap()
            .contains("without declaring tools.listChanged"),
        "{c:#}"
    );
    let (_, s) = probe_with("lc-valid", &now, "2.1.332", true, &[], None);
    let c = contract_check(&s, "list-changed");
    assert_eq!(c["passed"], true, "{c:#}");
    assert_eq!(c["detail"], "declared and sent", "{c:#}");
}

#[test]
fn no_tools_capability_fails_the_prediction_and_the_contract() {
    for build in ["2.1.288", "2.1.332"] {
        let (code, s) = probe("no-tools-cap", build, true);
        assert_eq!(code, 1);
        assert_eq!(s["prediction"]["cause"], "no-tools-capability", "{s:#}");
        let c = contract_check(&s, "tools-capable-handshake");
        assert_eq!(c["passed"], false);
    }
}

#[test]
fn mcp_timeout_from_the_environment_or_the_settings_decides_a_slow_tools_list() {
    // a 3 s tools/list: past MCP_TIMEOUT=1500, within 8000
    let slow = ["--delay-tools-ms", "3000"];
    let (code, s) = probe_with(
        "slow-tools",
        &slow,
        "2.1.332",
        false,
        &[("MCP_TIMEOUT", "1500")],
        None,
    );
    assert_eq!(code, 1, "{s:#}");
    assert_eq!(s["prediction"]["cause"], "tools-timeout", "{s:#}");
    let (code, s) = probe_with(
        "slow-tools",
        &slow,
        "2.1.332",
        false,
        &[("MCP_TIMEOUT", "8000")],
        None,
    );
    assert_eq!(code, 0, "{s:#}");
    assert_eq!(s["prediction"]["toolsLoaded"], 3, "{s:#}");
    // the user settings' env outranks the shell's, as for MCP_PROTOCOL_NEGOTIATION
    let home_settings = r#"{"MCP_TIMEOUT": "8000"}"#;
    let (code, s) = probe_with(
        "slow-tools",
        &slow,
        "2.1.288",
        false,
        &[("MCP_TIMEOUT", "1500")],
        Some(home_settings),
    );
    assert_eq!(code, 0, "{s:#}");
    assert_eq!(s["prediction"]["verdict"], "healthy", "{s:#}");
}

#[test]
fn a_slow_initialize_is_a_connection_timeout_unless_mcp_timeout_covers_it() {
    let slow = ["--delay-init-ms", "3000"];
    let (_, s) = probe_with(
        "slow-init",
        &slow,
        "2.1.310",
        false,
        &[("MCP_TIMEOUT", "1500")],
        None,
    );
    assert_eq!(s["prediction"]["verdict"], "connection-failed", "{s:#}");
    assert_eq!(s["prediction"]["cause"], "timeout", "{s:#}");
    let (_, s) = probe_with(
        "slow-init",
        &slow,
        "2.1.310",
        false,
        &[("MCP_TIMEOUT", "8000")],
        None,
    );
    assert_eq!(s["prediction"]["verdict"], "healthy", "{s:#}");
}

#[test]
fn the_document_says_which_limit_was_used_and_where_it_came_from() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = mcplogs(home.path());
    cmd.env("MCP_TIMEOUT", "4000").args([
        "probe",
        "--json",
        "--claude-version",
        "2.1.332",
        "--command",
    ]);
    cmd.arg(format!("python3 {} --case ok", stub().display()));
    let r = run(&mut cmd);
    let doc = crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &r.stdout);
    let t = &doc["timeouts"];
    assert_eq!(t["mcpTimeout"]["ms"], 4000, "{t:#}");
    assert_eq!(t["mcpTimeout"]["decidedBy"], "environment", "{t:#}");
    assert_eq!(t["connectTimeout"]["ms"], 5000, "{t:#}");
    assert_eq!(t["connectTimeout"]["decidedBy"], Value::Null, "{t:#}");
}

#[test]
fn lists_2_1_288_rejects_fail_the_contract_there_and_legacy_brings_them_back() {
    let (code, s) = probe("rp-modern-missing", "2.1.288", true);
    assert_eq!(code, 1, "{s:#}");
    let p = &s["prediction"];
    assert_eq!(p["cause"], "lists-rejected", "{p:#}");
    assert_eq!(
        p["lostLists"],
        serde_json::json!(["prompts", "resources"]),
        "{p:#}"
    );
    assert_eq!(s["withLegacy"]["verdict"], "healthy", "{s:#}");
    assert_eq!(s["legacyFixHelps"], true, "{s:#}");
    let rec = p["recommendation"].as_str().unwrap();
    assert!(!rec.contains("got this server's tools"), "{rec}");
    let c = contract_check(&s, "lists-accepted");
    assert_eq!(c["passed"], false, "{c:#}");
    assert!(
        c["builds"].as_array().unwrap().contains(&"2.1.301".into()),
        "{c:#}"
    );
    assert!(
        !c["builds"].as_array().unwrap().contains(&"2.1.336".into()),
        "{c:#}"
    );
    // a complete modern server and one that declares neither list
    let (_, s) = probe("rp-modern-ok", "2.1.288", true);
    assert_eq!(
        contract_check(&s, "lists-accepted")["passed"],
        true,
        "{s:#}"
    );
    let (_, s) = probe("ok", "2.1.288", true);
    assert_eq!(
        contract_check(&s, "lists-accepted")["passed"],
        Value::Null,
        "{s:#}"
    );
}

#[test]
fn a_response_written_before_its_request_fails_the_contract_on_every_build() {
    for case in ["frame-early", "frame-early-late"] {
        let (code, s) = probe(case, "2.1.332", true);
        assert_eq!(code, 1, "{case}: {s:#}");
        let c = contract_check(&s, "responses-follow-requests");
        assert_eq!(c["passed"], false, "{case}: {c:#}");
        assert_eq!(c["builds"], contract_builds(), "{case}: {c:#}");
    }
    // an id never sent is not such a response
    let (_, s) = probe("frame-unknown-id", "2.1.332", true);
    assert_eq!(
        contract_check(&s, "responses-follow-requests")["passed"],
        true,
        "{s:#}"
    );
}

#[test]
fn list_changed_is_reported_as_what_it_is_and_every_check_names_its_builds() {
    // the stub notifies 3 s after the first tools/list, after the probe has closed: the
    // capability declared and nothing seen is said as such, not as a pass or a failure
    let (_, s) = probe("lc-valid", "2.1.332", true);
    let c = contract_check(&s, "list-changed");
    assert_eq!(c["passed"], Value::Null, "{c:#}");
    assert!(
        c["detail"]
            .as_str()
            .unwrap()
            .starts_with("declared; not triggered"),
        "{c:#}"
    );
    let (_, s) = probe("lc-undeclared", "2.1.332", true);
    let c = contract_check(&s, "list-changed");
    assert_eq!(c["passed"], Value::Null, "{c:#}");
    assert_eq!(c["detail"], "not declared", "{c:#}");
    for c in s["contract"].as_array().unwrap() {
        assert!(!c["builds"].as_array().unwrap().is_empty(), "{c:#}");
    }
    // notified at once, while the probe still reads: sent without the capability fails,
    // sent with it passes
    let now = ["--list-changed-after-ms", "0"];
    let (_, s) = probe_with("lc-undeclared", &now, "2.1.332", true, &[], None);
    let c = contract_check(&s, "list-changed");
    assert_eq!(c["passed"], false, "{c:#}");
    assert!(
        c["detail"]
            .as_str()
            .unwrap()
            .contains("without declaring tools.listChanged"),
        "{c:#}"
    );
    let (_, s) = probe_with("lc-valid", &now, "2.1.332", true, &[], None);
    let c = contract_check(&s, "list-changed");
    assert_eq!(c["passed"], true, "{c:#}");
    assert_eq!(c["detail"], "declared and sent", "{c:#}");
}

/// `probe --json --project DIR` on one stub case, with the project's
/// `.claude/settings.json` `env` block and shell variables as in the fixture's run: the
/// whole document (the decided limits are outside the server).
fn probe_in_project(
    case: &str,
    version: &str,
    env: &[(&str, &str)],
    project_settings_env: &str,
) -> Value {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("work/proj");
    fs::create_dir_all(proj.join(".claude")).unwrap();
    fs::write(
        proj.join(".claude/settings.json"),
        format!("{{\"env\": {project_settings_env}}}"),
    )
    .unwrap();
    let mut cmd = mcplogs(home.path());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.env("MCP_PROTOCOL_NEGOTIATION", "auto")
        .args(["probe", "--json", "--claude-version", version, "--project"])
        .arg(&proj)
        .arg("--command")
        .arg(format!("python3 {} --case {case}", stub().display()));
    let r = run(&mut cmd);
    crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &r.stdout)
}

/// A fixture run with a project `MCP_TIMEOUT`: its name, the shell environment, the
/// project settings' `env` block and the limit each build logged.
type ProjectCase = (
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static str,
    [u64; 3],
);

#[test]
fn a_projects_mcp_timeout_is_read_as_each_build_read_it_in_the_fixtures() {
    let expected: Value =
        serde_json::from_str(&fs::read_to_string(fixtures().join("expected.json")).unwrap())
            .unwrap();
    // (fixture, shell environment, project settings env, limit per build as Claude Code
    // logged it: 2.1.288, 2.1.310, 2.1.332)
    let cases: [ProjectCase; 2] = [
        (
            "timeout-project-3000",
            &[],
            r#"{"MCP_TIMEOUT": "3000"}"#,
            [3000, 3000, 30_000],
        ),
        (
            "timeout-project-over-shell",
            &[("MCP_TIMEOUT", "3000")],
            r#"{"MCP_TIMEOUT": "10000"}"#,
            [10_000, 10_000, 10_000],
        ),
    ];
    for (case, env, project_env, limits) in cases {
        for (build, limit) in ["2.1.288", "2.1.310", "2.1.332"].into_iter().zip(limits) {
            let cc: Value = serde_json::from_str(
                &fs::read_to_string(fixtures().join(case).join(build).join("claude.json")).unwrap(),
            )
            .unwrap();
            let want = &expected["cases"][case][build];
            // the fixtures' server: the stub's slow-tools (a 5 s tools/list)
            let doc = probe_in_project("slow-tools", build, env, project_env);
            let t = &doc["timeouts"]["mcpTimeout"];
            assert_eq!(t["ms"], limit, "{case}/{build}: {t:#}");
            // the project's value decides except where 2.1.332 drops a shorter one
            let by_project = t["decidedBy"]
                .as_str()
                .is_some_and(|d| d.starts_with("project"));
            assert_eq!(by_project, limit != 30_000, "{case}/{build}: {t:#}");
            let p = &doc["servers"][0]["prediction"];
            assert_eq!(p["verdict"], want["verdict"], "{case}/{build}: {p:#}");
            assert_eq!(p["cause"], want["cause"], "{case}/{build}: {p:#}");
            assert_eq!(
                p["toolsLoaded"], cc["toolCount"],
                "{case}/{build}: Claude Code loaded {} tools: {p:#}",
                cc["toolCount"]
            );
        }
    }
}

fn tool_count(case: &str, build: &str) -> Value {
    let cc: Value = serde_json::from_str(
        &fs::read_to_string(fixtures().join(case).join(build).join("claude.json")).unwrap(),
    )
    .unwrap();
    cc["toolCount"].clone()
}

#[test]
fn tools_over_the_name_limit_are_predicted_per_build_under_the_configured_name() {
    // configured under the names Claude Code ran them with: the name is part of the limit
    let home = tempfile::tempdir().unwrap();
    let server = |_: &str| {
        serde_json::json!({"type": "stdio", "command": "python3",
            "args": [stub().display().to_string(), "--case", "name-long"]})
    };
    fs::write(
        home.path().join(".claude.json"),
        serde_json::json!({"mcpServers": {"name-long": server("name-long"), "nl": server("nl")}})
            .to_string(),
    )
    .unwrap();
    let expected: Value =
        serde_json::from_str(&fs::read_to_string(fixtures().join("expected.json")).unwrap())
            .unwrap();
    let mut runs = 0;
    for case in ["name-long", "nl"] {
        for entry in fs::read_dir(fixtures().join(case)).unwrap() {
            let build = entry.unwrap().file_name().to_string_lossy().into_owned();
            let mut cmd = mcplogs(home.path());
            cmd.env("MCP_PROTOCOL_NEGOTIATION", "auto")
                .args(["probe", "--json", "--contract", "--claude-version", &build])
                .arg(case);
            let r = run(&mut cmd);
            let doc =
                crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &r.stdout);
            let s = &doc["servers"][0];
            let p = &s["prediction"];
            let want = &expected["cases"][case][&build];
            assert_eq!(p["verdict"], want["verdict"], "{case}/{build}: {p:#}");
            assert_eq!(p["cause"], want["cause"], "{case}/{build}: {p:#}");
            assert_eq!(
                p["toolsLoaded"],
                tool_count(case, &build),
                "{case}/{build}: {p:#}"
            );
            // the contract answers for the modelled builds from 2.1.292 on
            let c = contract_check(s, "tool-name-length");
            assert_eq!(c["passed"], false, "{c:#}");
            // every build it names has the limit (2.1.292 and later), and the newest does
            let builds: Vec<&str> = c["builds"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_str().unwrap())
                .collect();
            assert!(builds.contains(&"2.1.336"), "{c:#}");
            for b in &builds {
                let patch: u32 = b.rsplit('.').next().unwrap().parse().unwrap();
                assert!(patch >= 292, "{c:#}");
            }
            runs += 1;
        }
    }
    assert!(runs >= 9, "{runs}");
}

/// The stub serving `case` over HTTP on a free loopback port, ended when dropped.
struct HttpStub;

impl HttpStub {
    fn start(case: &str) -> HttpStubProcess {
        HttpStubProcess::start(&stub(), &["--case".as_ref(), case.as_ref()])
    }
}

#[test]
fn an_invalid_x_mcp_header_loses_its_tool_on_modern_http_only() {
    for (case, fixture, lost) in [
        ("header-modern", "header-http", true),
        ("header-legacy", "header-http-legacy", false),
        ("header-valid", "header-http-valid", false),
    ] {
        let stub = HttpStub::start(case);
        for build in ["2.1.288", "2.1.332"] {
            let home = tempfile::tempdir().unwrap();
            let mut cmd = mcplogs(home.path());
            cmd.args(["probe", "--json", "--contract", "--claude-version", build])
                .args(["--url", &stub.url]);
            let r = run(&mut cmd);
            let doc =
                crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &r.stdout);
            let s = &doc["servers"][0];
            let p = &s["prediction"];
            assert_eq!(
                p["toolsLoaded"],
                tool_count(fixture, build),
                "{case}/{build}: {p:#}"
            );
            let c = contract_check(s, "x-mcp-header");
            if lost {
                assert_eq!(p["verdict"], "degraded", "{p:#}");
                assert_eq!(p["cause"], "tool-header-invalid", "{p:#}");
                assert!(p["reason"].as_str().unwrap().contains("\"hdr\""), "{p:#}");
                assert_eq!(c["passed"], false, "{c:#}");
                assert_eq!(r.code, 1);
            } else {
                assert_eq!(p["verdict"], "healthy", "{case}/{build}: {p:#}");
            }
            // a server that only speaks legacy keeps the tool: the contract warns only
            assert_eq!(c["passed"], !lost, "{c:#}");
            if case == "header-legacy" {
                assert!(
                    c["detail"].as_str().unwrap().contains("left out over HTTP"),
                    "{c:#}"
                );
            }
        }
    }
    // over stdio the tool is kept (header-stdio), and the contract only warns
    let (_, s) = probe("header-modern", "2.1.332", true);
    assert_eq!(s["prediction"]["verdict"], "healthy", "{s:#}");
    assert_eq!(
        s["prediction"]["toolsLoaded"],
        tool_count("header-stdio", "2.1.332")
    );
    let c = contract_check(&s, "x-mcp-header");
    assert_eq!(c["passed"], true, "{c:#}");
    assert!(
        c["detail"].as_str().unwrap().contains("left out over HTTP"),
        "{c:#}"
    );
}

#[test]
fn a_late_initialize_on_the_negotiating_path_times_out_where_the_build_holds_time_for_discover() {
    // fixture handshake-budget-stdio: MCP_TIMEOUT=10000, server/discover answered -32601,
    // initialize answered after 6 s. 2.1.287 gives initialize 5000 ms of it and fails;
    // 2.1.288 gives it 7000 ms and connects; legacy gives it all on both
    let expected: Value =
        serde_json::from_str(&fs::read_to_string(fixtures().join("expected.json")).unwrap())
            .unwrap();
    for build in ["2.1.287", "2.1.288"] {
        let (_, s) = probe_with(
            "slow-init",
            &["--delay-init-ms", "6000"],
            build,
            false,
            &[("MCP_TIMEOUT", "10000")],
            None,
        );
        let want = &expected["cases"]["handshake-budget-stdio"][build];
        let p = &s["prediction"];
        assert_eq!(p["verdict"], want["verdict"], "{build}: {p:#}");
        assert_eq!(p["cause"], want["cause"], "{build}: {p:#}");
        assert_eq!(s["withLegacy"]["verdict"], "healthy", "{build}: {s:#}");
        let fails = want["verdict"] == "connection-failed";
        assert_eq!(s["legacyFixHelps"], fails, "{build}: {s:#}");
        if fails {
            let reason = p["reason"].as_str().unwrap();
            assert!(reason.contains("5000 ms of MCP_TIMEOUT=10000"), "{reason}");
        }
    }
}

#[test]
fn a_build_newer_than_every_observed_one_is_accepted_and_extrapolated_from_the_newest() {
    let newest = mcplogs::claude_code::lifecycle::NEWEST_KNOWN;
    let newer = format!("{}.{}.{}", newest.0, newest.1, newest.2 + 40);
    let home = tempfile::tempdir().unwrap();
    let mut cmd = mcplogs(home.path());
    cmd.args(["probe", "--json", "--claude-version", &newer, "--command"])
        .arg(format!("python3 {} --case ok", stub().display()));
    let r = run(&mut cmd);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["claudeVersion"], newer.as_str());
    let note = doc["claudeVersionNote"].as_str().unwrap();
    assert!(
        note.contains(&newer) && note.contains(&newest.to_string()) && note.contains("extrapolate"),
        "{note}"
    );
    assert!(r.stderr.contains(&newest.to_string()), "{}", r.stderr);
    // an observed build needs no note
    let mut cmd = mcplogs(home.path());
    cmd.args([
        "probe",
        "--json",
        "--claude-version",
        &newest.to_string(),
        "--command",
    ])
    .arg(format!("python3 {} --case ok", stub().display()));
    let r = run(&mut cmd);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(doc["claudeVersionNote"].is_null(), "{doc:#}");
}

/// `mcplogs model` (what scripts/observe-build compares real builds with): every
/// boundary with the prediction for the build asked about, and every fact the model
/// gives every build with the builds it was observed on, as a table and as JSON.
#[test]
fn the_model_lists_each_boundary_and_each_fact_with_its_builds() {
    let home = tempfile::tempdir().unwrap();
    let r = run(mcplogs(home.path()).args(["model", "--json", "2.1.287"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc = crate::wire::check_output::<mcplogs::json_doc::ModelDocument>("model", &r.stdout);
    let rows = doc["behaviours"].as_array().unwrap();
    assert_eq!(
        rows.len(),
        mcplogs::claude_code::lifecycle::BOUNDARIES.len()
    );
    let hold = rows
        .iter()
        .find(|b| b["behaviour"] == "stdio-short-discover-hold")
        .unwrap();
    assert_eq!(hold["prediction"], "no", "{hold:#}");
    assert!(doc["buildNote"].is_null(), "2.1.287 was observed: {doc:#}");
    let facts = doc["facts"].as_array().unwrap();
    let fact = |name: &str| facts.iter().find(|f| f["fact"] == name).unwrap().clone();
    assert_eq!(fact("page-cap")["value"], "20");
    assert_eq!(fact("page-cap")["prediction"], "yes");
    // a fact of a later behaviour does not hold on 2.1.287
    let names = fact("tool-name-max-chars");
    assert_eq!(names["appliesWith"], "tool-name-limit", "{names:#}");
    assert_eq!(names["prediction"], "no", "{names:#}");
    let on: Vec<&str> = facts
        .iter()
        .flat_map(|f| f["observedOn"].as_array().unwrap())
        .map(|b| b.as_str().unwrap())
        .collect();
    assert!(on.contains(&"2.1.287"), "{on:?}");
    // the corpus's own builds: every case has a run on each of them
    for b in fact("list-changed-refetch")["observedOn"]
        .as_array()
        .unwrap()
    {
        let b = b.as_str().unwrap();
        assert!(
            fixtures().join("lc-invalid").join(b).is_dir(),
            "no lc-invalid run on {b}"
        );
    }
    let r = run(mcplogs(home.path()).args(["model"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("\nFacts (observed on"), "{}", r.stdout);
    assert!(
        r.stdout
            .lines()
            .any(|l| l.starts_with("page-cap: 20;") && l.contains("2.1.287")),
        "{}",
        r.stdout
    );
}

/// Claude Code's verdict of a fixture run (its `claude.json`).
fn claude_json(case: &str, build: &str) -> Value {
    serde_json::from_str(
        &fs::read_to_string(fixtures().join(case).join(build).join("claude.json")).unwrap(),
    )
    .unwrap()
}

/// Bytes that are not UTF-8 in a server's answers (tests/e2e/lifecycle_stub.py `bytes-*`,
/// each answer written with 0xff, a cut sequence, an overlong form or a surrogate in it):
/// 2.1.287 to 2.1.336 (five builds) read them as U+FFFD and parse the line, over stdio and over
/// HTTP. The probe must load the same tools, under the same renamed names, and only bytes
/// outside any JSON string leave the answer unread (a tools/list timeout).
#[test]
fn bytes_that_are_not_utf8_are_read_as_replacement_characters_as_claude_code_reads_them() {
    let expected: Value =
        serde_json::from_str(&fs::read_to_string(fixtures().join("expected.json")).unwrap())
            .unwrap();
    let check = |fixture: &str, build: &str, s: &Value| {
        let cc = claude_json(fixture, build);
        let want = &expected["cases"][fixture][build];
        let p = &s["prediction"];
        assert_eq!(p["verdict"], want["verdict"], "{fixture}/{build}: {p:#}");
        assert_eq!(p["cause"], want["cause"], "{fixture}/{build}: {p:#}");
        assert_eq!(
            p["toolsLoaded"], cc["toolCount"],
            "{fixture}/{build}: {p:#}"
        );
        // each renamed tool under the name the build gave it: one `_` for each U+FFFD,
        // one U+FFFD for each maximal ill-formed sequence (0xe2 0x82: one; 0xf0 0x80 0x80
        // and 0xed 0xa0 0x80: three)
        let prefix = format!("mcp__{fixture}__");
        let reason = p["reason"].as_str().unwrap();
        for t in cc["tools"].as_array().unwrap() {
            let name = t.as_str().unwrap().strip_prefix(&prefix).unwrap();
            if name.contains('_') && name != "ok_tool" {
                let raw = name.replace('_', "\u{fffd}");
                assert!(
                    reason.contains(&format!("\"{raw}\" -> \"{name}\"")),
                    "{fixture}/{build}: {name}: {reason}"
                );
            }
        }
    };
    for build in ["2.1.287", "2.1.310", "2.1.336"] {
        for case in ["bytes-desc", "bytes-name", "bytes-init"] {
            let (_, s) = probe(case, build, false);
            check(case, build, &s);
        }
        for case in ["bytes-desc", "bytes-name"] {
            let stub = HttpStub::start(case);
            let home = tempfile::tempdir().unwrap();
            let mut cmd = mcplogs(home.path());
            cmd.args(["probe", "--json", "--claude-version", build])
                .args(["--url", &stub.url]);
            let r = run(&mut cmd);
            let doc =
                crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &r.stdout);
            check(&format!("{case}-http"), build, &doc["servers"][0]);
        }
    }
    // 0xff after the tools/list object: not JSON, so no answer (Claude Code waited out
    // MCP_TIMEOUT=5000; 1000 here reaches the same end sooner)
    let (_, s) = probe_with(
        "bytes-outside",
        &[],
        "2.1.336",
        false,
        &[("MCP_TIMEOUT", "1000")],
        None,
    );
    check("bytes-outside", "2.1.336", &s);
}
