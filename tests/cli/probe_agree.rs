//! Issue 51, items 3 and 5: `probe` agrees with `scan` about which `.mcp.json` servers
//! are approved, with itself (its summary line, its JSON verdict and its exit code come
//! from one prediction; the contract's per-build failures are the per-build predictions),
//! and `report --probe` probes the servers the report covers, before its footer.
use std::path::{Path, PathBuf};

use crate::common::{mcplogs, run};
use serde_json::{Value, json};

fn lifecycle_stub() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/lifecycle_stub.py")
}

fn stub_entry(case: &str) -> Value {
    json!({"command": "python3", "args": [lifecycle_stub(), "--case", case]})
}

/// `-home-u-proj`: the name Claude Code gives a project's log folder.
fn encode(path: &Path) -> String {
    path.to_str()
        .unwrap()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The servers `probe --json` ran, and the names its stderr says it left out.
fn probed(doc: &Value) -> Vec<String> {
    doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

/// Item 3: one home, a git project whose `.mcp.json` has four servers: approved in the
/// untracked `.claude/settings.local.json` (where Claude Code records the user's
/// answer), in the user's settings, nowhere, and disabled. `scan --json` and `probe`
/// (text and `--json`) run side by side: a server scan says Claude Code starts is
/// probed, one it says is pending approval or disabled is not, and `probe --json`'s
/// `approved` is scan's.
#[test]
fn scan_and_probe_agree_on_which_project_servers_are_approved() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir_all(proj.join(".claude")).unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(
        proj.join(".mcp.json"),
        json!({"mcpServers": {
            "p-local": stub_entry("ok"),
            "p-user": stub_entry("ok"),
            "p-unlisted": stub_entry("ok"),
            "p-off": stub_entry("ok"),
        }})
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        proj.join(".claude/settings.local.json"),
        r#"{"enabledMcpjsonServers": ["p-local"], "disabledMcpjsonServers": ["p-off"]}"#,
    )
    .unwrap();
    // a cloned repository: it tracks .mcp.json, not the local file (F22: outside git the
    // local file's approval is not counted for starting a server unasked)
    crate::probe::git(home.path(), &proj, &["init", "-q"]);
    crate::probe::git(home.path(), &proj, &["add", ".mcp.json"]);
    std::fs::write(
        home.path().join(".claude/settings.json"),
        r#"{"enabledMcpjsonServers": ["p-user", "p-off"]}"#,
    )
    .unwrap();
    let managed = home.path().join("managed");
    std::fs::create_dir_all(&managed).unwrap();
    let cmd = |args: &[&str]| {
        let mut c = mcplogs(home.path());
        c.current_dir(&proj)
            .args(args)
            .args(["--managed-dir", managed.to_str().unwrap()]);
        run(&mut c)
    };
    let scan = cmd(&["scan", "--json"]);
    let scan: Value = serde_json::from_str(&scan.stdout).unwrap();
    let state = |name: &str| -> String {
        scan["configured"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {scan:#}"))["state"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let probe_args = ["probe", "--claude-version", "2.1.332"];
    let text = cmd(&probe_args);
    let json_run = cmd(&[&probe_args[..], &["--json"]].concat());
    let doc =
        crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &json_run.stdout);
    assert_eq!(
        text.code, json_run.code,
        "{}\n{}",
        text.stderr, json_run.stderr
    );
    let ran = probed(&doc);
    for name in ["p-local", "p-user", "p-unlisted", "p-off"] {
        let st = state(name);
        let starts = st != "pending-approval" && st != "disabled";
        assert_eq!(
            ran.contains(&name.to_string()),
            starts,
            "{name}: scan says {st}, probe ran {ran:?}\n{}",
            json_run.stderr
        );
        // the text probe shows the same servers
        assert_eq!(
            text.stdout.contains(&format!("{name} · stdio")),
            starts,
            "{name}: {}",
            text.stdout
        );
        if let Some(s) = doc["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
        {
            assert_eq!(s["approved"], true, "{name}: {s:#}");
        }
    }
    assert_eq!(state("p-local"), "not-started");
    assert_eq!(state("p-unlisted"), "pending-approval");
    assert_eq!(state("p-off"), "disabled");
    // the one not probed for want of approval says so, and how to probe it anyway
    for r in [&text, &json_run] {
        assert!(
            r.stderr.contains(
                "\"p-unlisted\": not probed: a project server (.mcp.json) that no settings file approves"
            ) && r.stderr.contains("`mcplogs probe p-unlisted`"),
            "{}",
            r.stderr
        );
        assert!(
            !r.stderr.contains("\"p-local\": not probed"),
            "{}",
            r.stderr
        );
    }
}

/// Item 5: under a `--timeout` shorter than Claude Code's limit, a server that has not
/// answered yet cannot be told: the summary line, the JSON verdict and the exit code say
/// the same (it used to be "7 cannot be told" beside `connection-failed` and exit 1).
#[test]
fn a_probe_cut_short_by_its_timeout_says_cannot_tell_everywhere() {
    let home = tempfile::tempdir().unwrap();
    let command = format!(
        "python3 {} --case ok --delay-init-ms 20000",
        lifecycle_stub().display()
    );
    let args = [
        "probe",
        "--claude-version",
        "2.1.332",
        "--timeout",
        "1s",
        "--command",
        &command,
    ];
    let text = run(mcplogs(home.path()).args(args));
    let json_run = run(mcplogs(home.path()).args(args).arg("--json"));
    let doc =
        crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &json_run.stdout);
    let s = &doc["servers"][0];
    assert_eq!(s["prediction"]["verdict"], "unknown", "{s:#}");
    assert!(
        text.stdout.contains(": 7 cannot be told ("),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains("lose them"), "{}", text.stdout);
    assert_eq!(text.code, 0, "{}", text.stdout);
    assert_eq!(json_run.code, text.code);
}

/// The builds a summary line counts under `lose them (...)`.
fn losing_builds(summary: &str) -> Vec<String> {
    let Some(at) = summary
        .find("lose them (")
        .or_else(|| summary.find("loses them ("))
    else {
        return Vec::new();
    };
    let rest = &summary[at..];
    let list = &rest[rest.find('(').unwrap() + 1..rest.find(')').unwrap()];
    list.split(", ").map(str::to_string).collect()
}

/// Item 5: for a server that answers `tools/list` without `resultType` (the lifecycle
/// stub's `tools-modern-missing`), the contract's `every-tool-accepted` fails on exactly
/// the builds whose per-build prediction loses the tools. With nothing set that is
/// 2.1.294 and 2.1.301 (stdio negotiates 2026-07-28 from 2.1.292, and 2.1.302 fills the
/// fields in: fixtures `stdio-default`, `tools-modern-missing`); with
/// `MCP_PROTOCOL_NEGOTIATION=auto` in the user's settings 2.1.287 and 2.1.291 negotiate
/// it too and lose them as well.
#[test]
fn the_contracts_failing_builds_are_the_builds_the_predictions_lose() {
    for (negotiation, expected) in [
        (None, &["2.1.294", "2.1.301"][..]),
        (
            Some("auto"),
            &["2.1.287", "2.1.291", "2.1.294", "2.1.301"][..],
        ),
    ] {
        let home = tempfile::tempdir().unwrap();
        if let Some(n) = negotiation {
            std::fs::create_dir_all(home.path().join(".claude")).unwrap();
            std::fs::write(
                home.path().join(".claude/settings.json"),
                json!({"env": {"MCP_PROTOCOL_NEGOTIATION": n}}).to_string(),
            )
            .unwrap();
        }
        let command = format!(
            "python3 {} --case tools-modern-missing",
            lifecycle_stub().display()
        );
        let args = [
            "probe",
            "--claude-version",
            "2.1.332",
            "--contract",
            "--command",
            &command,
        ];
        let text = run(mcplogs(home.path()).args(args));
        let json_run = run(mcplogs(home.path()).args(args).arg("--json"));
        let doc = crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>(
            "probe",
            &json_run.stdout,
        );
        let summary = text.stdout.lines().next().unwrap();
        let predicted = losing_builds(summary);
        assert_eq!(predicted, expected, "{negotiation:?}: {summary}");
        let check = doc["servers"][0]["contract"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == "every-tool-accepted")
            .unwrap()
            .clone();
        assert_eq!(check["passed"], false, "{check:#}");
        let failing: Vec<String> = check["builds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_str().unwrap().to_string())
            .collect();
        assert_eq!(failing, predicted, "{negotiation:?}: {check:#}");
        assert!(
            summary.contains(&format!("every-tool-accepted ({})", expected.join(", "))),
            "{summary}"
        );
        assert_eq!((text.code, json_run.code), (1, 1));
    }
}

/// Item 3: `report --probe` probes the servers the report covers (those with logs) and
/// not the ones it leaves out, and its Probe section comes before the footer.
#[test]
fn report_probe_probes_the_servers_the_report_covers_before_its_footer() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    let key = proj.to_str().unwrap();
    std::fs::write(
        home.path().join(".claude.json"),
        json!({"projects": {key: {"mcpServers": {
            "covered": stub_entry("ok"),
            "unlogged": stub_entry("ok"),
        }}}})
        .to_string(),
    )
    .unwrap();
    // a log for `covered` only: a bad tool, which the report is for
    let dir = home
        .path()
        .join(".cache/claude-cli-nodejs")
        .join(encode(&proj))
        .join("mcp-logs-covered");
    std::fs::create_dir_all(&dir).unwrap();
    let records = [
        json!({"debug": "Connection established with capabilities: {\"hasTools\":true,\"protocolEra\":\"legacy\",\"negotiatedProtocolVersion\":\"2025-11-25\"}",
            "timestamp": "2026-01-01T10:00:00.000Z", "sessionId": "s1", "cwd": key}),
        json!({"error": "Failed to fetch tools: Invalid result for tools/list: [{\"expected\":\"object\",\"code\":\"invalid_type\",\"path\":[\"tools\",0,\"inputSchema\"],\"message\":\"Invalid input: expected object, received undefined\"}]",
            "timestamp": "2026-01-01T10:00:01.000Z", "sessionId": "s1", "cwd": key}),
    ];
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(dir.join("2026-01-01T10-00-00-000Z.jsonl"), text).unwrap();
    let managed = home.path().join("managed");
    std::fs::create_dir_all(&managed).unwrap();
    let cmd = |json: bool| {
        let mut c = mcplogs(home.path());
        c.current_dir(&proj).args([
            "report",
            "--probe",
            "--managed-dir",
            managed.to_str().unwrap(),
        ]);
        if json {
            c.arg("--json");
        }
        run(&mut c)
    };
    let md = cmd(false);
    assert!(matches!(md.code, 0 | 1), "{}", md.stderr);
    let probe_at = md
        .stdout
        .find("## Probe")
        .unwrap_or_else(|| panic!("{}\n{}", md.stdout, md.stderr));
    let footer_at = md.stdout.rfind("<sub>`mcplogs ").expect("footer");
    assert!(probe_at < footer_at, "{}", md.stdout);
    assert!(
        md.stdout.trim_end().ends_with("</sub>"),
        "the footer stays last: {}",
        md.stdout
    );
    let section = &md.stdout[probe_at..footer_at];
    assert!(section.contains("`covered`"), "{section}");
    assert!(!section.contains("unlogged"), "{section}");

    let js = cmd(true);
    let doc: Value = serde_json::from_str(&js.stdout).unwrap();
    let reported: Vec<&str> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    let probed: Vec<&str> = doc["probe"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(reported, ["covered"], "{doc:#}");
    assert_eq!(probed, reported, "{doc:#}");
}
