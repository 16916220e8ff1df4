//! Issue 51: one answer per server, whichever command asks. `scan`, `explain` and
//! `report` run side by side on the same home (real Claude Code logs from
//! `sample-logs/`, moved into a throw-away home) and give each server the same verdict
//! and cause.

use std::fs;
use std::path::Path;

use crate::common::*;
use serde_json::Value;

fn cmd(home: &Path, project: &Path, args: &[&str]) -> std::process::Command {
    let mut c = mcplogs(home);
    c.current_dir(project)
        .args(args)
        .arg("--home")
        .arg(home)
        .arg("--no-cache");
    c
}

fn json_of(r: &Run) -> Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"))
}

/// Each server's `(verdict, cause)` in a document's `servers`, by name.
fn answers(doc: &Value) -> std::collections::BTreeMap<String, (String, String)> {
    doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| {
            Some((
                s["name"].as_str()?.to_string(),
                (
                    s["verdict"].as_str().unwrap().to_string(),
                    s["cause"].as_str().unwrap_or("-").to_string(),
                ),
            ))
        })
        .collect()
}

fn scan_doc(home: &Path, project: &Path, extra: &[&str]) -> (Run, Value) {
    let mut c = cmd(home, project, &["scan", "--json"]);
    c.args(extra);
    let r = run(&mut c);
    let doc = json_of(&r);
    (r, doc)
}

fn explain_doc(home: &Path, project: &Path, paste: &str) -> (Run, Value) {
    let mut c = mcplogs(home);
    c.current_dir(project)
        .args(["explain", "--json", "--home"])
        .arg(home);
    let r = run_with_stdin(&mut c, paste.as_bytes());
    let doc = json_of(&r);
    (r, doc)
}

/// Item 6: on real 2.1.332 output (`claude mcp list` says `✔ Connected` for servers
/// whose log shows Claude Code filling in fields), explain gives every server scan's
/// verdict, cause and advice, and exits as scan does.
#[test]
fn explain_gives_each_logged_server_scans_verdict_on_real_2_1_332_output() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let project = project_in(&home, "api");
    let (scan_run, scan) = scan_doc(&home, &project, &[]);
    let paste = fs::read_to_string(samples().join("mcp-list/linux-home-2.1.332.txt")).unwrap();
    let (explain_run, explain) = explain_doc(&home, &project, &paste);
    let want = answers(&scan);
    let got = answers(&explain);
    assert_eq!(got.len(), 10, "{explain:#}");
    for (name, answer) in &got {
        assert_eq!(Some(answer), want.get(name), "{name}: {explain:#}");
    }
    // the paste said `✔ Connected`; the log says Claude Code filled the field in
    assert_eq!(got["no-resulttype"].0, "tolerated", "{explain:#}");
    // the advice is scan's too, and the log was found for each
    for s in explain["servers"].as_array().unwrap() {
        let name = s["name"].as_str().unwrap();
        assert!(s["logs"].is_string(), "{s:#}");
        assert_eq!(
            s["recommendation"],
            server(&scan, name)["recommendation"],
            "{name}"
        );
        assert_eq!(
            s["legacyFixApplies"],
            server(&scan, name)["legacyFixApplies"],
            "{name}"
        );
    }
    assert_eq!(explain_run.code, scan_run.code);
}

/// Item 6: a bare `tools fetch failed` status (no detail: "cause unknown" on its own)
/// whose log, a 2.1.288 one, names `missing-resultType`: explain names it, with scan's
/// fix; with `--no-logs` the paste alone decides, and says it cannot tell.
#[test]
fn explain_names_the_cause_scan_finds_in_the_log() {
    let (_tmp, home) = relocated("macos-home", "/tmp/mcplogs-samples/home-macos");
    let project = project_in(&home, "web");
    let (_, scan) = scan_doc(&home, &project, &[]);
    let paste = "no-resulttype: python3 stub.py - ! Connected · tools fetch failed\n";
    let (_, explain) = explain_doc(&home, &project, paste);
    let s = &explain["servers"][0];
    assert_eq!(s["verdict"], "tools-fetch-failed", "{s:#}");
    assert_eq!(s["cause"], "missing-resultType", "{s:#}");
    assert_eq!(
        s["recommendation"],
        server(&scan, "no-resulttype")["recommendation"]
    );
    assert_eq!(
        answers(&explain)["no-resulttype"],
        answers(&scan)["no-resulttype"]
    );
    let mut c = mcplogs(&home);
    c.current_dir(&project)
        .args(["explain", "--json", "--no-logs"]);
    let alone = json_of(&run_with_stdin(&mut c, paste.as_bytes()));
    assert!(alone["servers"][0]["cause"].is_null(), "{alone:#}");
}

/// Item 7: every server scan tells the user to report (a failing one, or a
/// `tolerated` one whose advice is to tell its authors) is in the report, with scan's
/// verdict; a home whose only servers to report are tolerated gets the authors'
/// report (exit 0: nothing fails), not "no report written".
#[test]
fn report_includes_every_server_scan_says_to_report() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let project = project_in(&home, "api");
    let (_, scan) = scan_doc(&home, &project, &[]);
    let r = run(&mut cmd(&home, &project, &["report", "--json"]));
    let report = json_of(&r);
    assert_eq!(answers(&report), answers(&scan));
    let markdown = run(&mut cmd(&home, &project, &["report"])).stdout;
    for s in scan["servers"].as_array().unwrap() {
        let name = s["name"].as_str().unwrap();
        let to_report = s["recommendation"]
            .as_str()
            .unwrap()
            .contains("report to the server's authors");
        if to_report {
            assert!(
                !server(&report, name)["audience"].is_null(),
                "{name}: {report:#}"
            );
            // this home's report is for the servers' authors: a section each
            assert!(
                markdown.contains(&format!("## `{name}`")),
                "{name}: {markdown}"
            );
        }
    }
    // only the tolerated ones: the authors' report, written, exit 0
    for name in ["no-resulttype", "no-cache-fields"] {
        let r = run(&mut cmd(&home, &project, &["report", "--server", name]));
        assert_eq!(r.code, 0, "{r:?}");
        assert!(r.stdout.contains(&format!("## `{name}`")), "{r:?}");
        assert!(!r.stderr.contains("no report written"), "{r:?}");
        let (_, one) = scan_doc(&home, &project, &["--server", name]);
        assert_eq!(answers(&one)[name].0, "tolerated");
    }
}

/// Item 8: a server whose one tool is dropped for its name's length: scan, explain and
/// report agree on `degraded` (`tool-name-too-long`, a failure: exit 1), and none of
/// their advice says the others work.
#[test]
fn a_server_losing_its_only_tool_is_failing_everywhere_and_never_told_the_others_work() {
    let tmp = tempfile::tempdir().unwrap();
    let home = fs::canonicalize(tmp.path()).unwrap();
    let project = project_in(&home, "api");
    let p = project.display().to_string();
    let key = "k";
    let tool = format!("mcp__{key}__{}", "t".repeat(130));
    let logs = home
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name(&p))
        .join(format!("mcp-logs-{key}"));
    fs::create_dir_all(&logs).unwrap();
    let rec = |kind: &str, msg: &str, t: &str| {
        serde_json::json!({kind: msg, "timestamp": format!("2026-11-29T12:43:{t}Z"),
            "sessionId": "s1", "cwd": p})
        .to_string()
    };
    let lines = [
        rec(
            "debug",
            "Starting connection with timeout of 30000ms",
            "57.216",
        ),
        rec(
            "debug",
            "Successfully connected (transport: stdio) in 30ms",
            "57.246",
        ),
        rec(
            "error",
            &format!(
                "Tool \"{tool}\" is not sent to Claude: its name has {} characters and the API accepts at most 128",
                tool.len()
            ),
            "57.400",
        ),
    ];
    fs::write(
        logs.join("2026-11-29T12-43-57-179Z.jsonl"),
        lines.join("\n") + "\n",
    )
    .unwrap();
    fs::write(
        home.join(".claude.json"),
        serde_json::json!({"mcpServers": {key: {"type": "stdio", "command": "node",
            "args": ["s.js"]}}})
        .to_string(),
    )
    .unwrap();
    let (scan_run, scan) = scan_doc(&home, &project, &[]);
    let (explain_run, explain) = explain_doc(
        &home,
        &project,
        &format!("{key}: node s.js - ✔ Connected\n"),
    );
    let r = run(&mut cmd(&home, &project, &["report", "--json", "--force"]));
    let report = json_of(&r);
    let want = ("degraded".to_string(), "tool-name-too-long".to_string());
    for doc in [&scan, &explain, &report] {
        assert_eq!(answers(doc)[key], want, "{doc:#}");
        let rec = server(doc, key)["recommendation"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(!rec.contains("others work"), "{rec}");
    }
    assert_eq!(scan_run.code, 1);
    assert_eq!(explain_run.code, 1);
}

/// helper-81 #4: `scan NAME` of a server a listed project configures and nothing has
/// logged, run from another folder, is `scan --server NAME` (it was "no server of that
/// name is configured here or logged", exit 2, where `--server` showed it).
#[test]
fn scan_name_finds_a_server_only_another_project_configures() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let project = project_in(&home, "solo-project");
    let config = home.join(".claude.json");
    let mut doc: Value = serde_json::from_str(&fs::read_to_string(&config).unwrap()).unwrap();
    doc["projects"][project.to_str().unwrap()] = serde_json::json!({
        "mcpServers": {"solo": {"command": "solo-server-not-installed"}}
    });
    fs::write(&config, doc.to_string()).unwrap();
    let elsewhere = project_in(&home, "elsewhere");
    let by_flag = run(&mut cmd(
        &home,
        &elsewhere,
        &["scan", "--json", "--server", "solo"],
    ));
    let by_name = run(&mut cmd(&home, &elsewhere, &["scan", "--json", "solo"]));
    assert_eq!(by_name.code, by_flag.code, "{by_name:?}");
    assert_eq!(
        json_of(&by_name)["configured"],
        json_of(&by_flag)["configured"]
    );
    assert_eq!(
        json_of(&by_name)["configured"][0]["name"],
        "solo",
        "{by_name:?}"
    );
}

/// helper-81 #1: a `--since` that leaves none of a project's sessions, run from another
/// folder: the project is still there, its configured servers "not seen since" (they
/// were dropped with the project, and `scan` said nothing of a failing server).
#[test]
fn since_keeps_a_project_all_of_whose_sessions_are_older() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let _project = project_in(&home, "api");
    age_all(&home.join(".cache"), 2);
    let elsewhere = home.join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let (all_run, all) = scan_doc(&home, &elsewhere, &[]);
    assert_eq!(all_run.code, 1, "{all_run:?}");
    let (since_run, since) = scan_doc(&home, &elsewhere, &["--since", "10m"]);
    assert!(answers(&since).is_empty(), "{since:#}");
    let rows = since["configured"].as_array().unwrap();
    let logged = answers(&all);
    assert_eq!(rows.len(), logged.len(), "{since:#}");
    for r in rows {
        assert_eq!(r["state"], "not-seen-since", "{r:#}");
        assert!(logged.contains_key(r["name"].as_str().unwrap()), "{r:#}");
    }
    assert_eq!(since_run.code, 0, "{since_run:?}");
    let screen = run(&mut cmd(&home, &elsewhere, &["scan", "--since", "10m"]));
    assert!(screen.stdout.contains("work/api"), "{}", screen.stdout);
    assert!(!screen.stdout.contains("none fail"), "{}", screen.stdout);
}

/// Item 2: `scan --since 10m` in a project folder after a restart that started only
/// one of its servers: the others have logs, all older, so they are "not seen since"
/// (with their last session's time), never "no log of it yet", counted apart, and the
/// summary never says "none fail" of servers it did not look at. Scan without `--since`
/// on the same home still gives each its verdict.
#[test]
fn since_says_not_seen_since_never_no_log() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let project = project_in(&home, "api");
    age_all(&home.join(".cache"), 2);
    // one fresh session of acme.docs, its records written a minute ago
    let folder = walkdir::WalkDir::new(home.join(".cache"))
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .find(|p| p.ends_with("mcp-logs-acme-docs"))
        .unwrap();
    let latest = sorted_files(&folder).pop().unwrap();
    let now = now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let fresh: Vec<String> = fs::read_to_string(&latest)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v["timestamp"] = mcplogs::time::format_iso(now - 60).into();
            v.to_string()
        })
        .collect();
    let fresh_file = folder.join("2026-12-31T00-00-00-000Z.jsonl");
    fs::write(&fresh_file, fresh.join("\n") + "\n").unwrap();
    // on the suite's clock (pinned years ahead by `clock::`)
    set_age(&fresh_file, 60);

    let (all_run, all) = scan_doc(&home, &project, &[]);
    let (since_run, since) = scan_doc(&home, &project, &["--since", "10m"]);
    assert_eq!(answers(&since).keys().collect::<Vec<_>>(), ["acme.docs"]);
    assert_eq!(answers(&since)["acme.docs"], answers(&all)["acme.docs"]);
    let rows = since["configured"].as_array().unwrap();
    assert_eq!(rows.len(), 9, "{since:#}");
    for r in rows {
        assert_eq!(r["state"], "not-seen-since", "{r:#}");
        assert!(r["lastSession"].is_string(), "{r:#}");
        let rec = r["recommendation"].as_str().unwrap();
        assert!(rec.contains("has not started it since"), "{rec}");
        // it has a verdict, from before: scan without --since shows it
        assert!(answers(&all).contains_key(r["name"].as_str().unwrap()));
    }
    // failing servers among those not seen: the exit code is of those seen
    assert_eq!(all_run.code, 1);
    assert_eq!(since_run.code, 0, "{since_run:?}");
    let screen = run(&mut cmd(&home, &project, &["scan", "--since", "10m"]));
    assert_eq!(screen.code, 0, "{screen:?}");
    assert!(
        !screen.stdout.contains("no log of it yet"),
        "{}",
        screen.stdout
    );
    assert!(!screen.stdout.contains("none fail"), "{}", screen.stdout);
    assert!(
        screen.stdout.contains("9 not seen since"),
        "{}",
        screen.stdout
    );
    assert!(
        screen.stdout.contains("the 1 seen since does not fail"),
        "{}",
        screen.stdout
    );
    assert!(
        screen.stdout.contains("no session since"),
        "{}",
        screen.stdout
    );
    // the report's configured section says the same
    let r = run(&mut cmd(
        &home,
        &project,
        &["report", "--json", "--force", "--since", "10m"],
    ));
    let report = json_of(&r);
    for c in report["configured"].as_array().unwrap() {
        assert_eq!(c["state"], "not-seen-since", "{c:#}");
        assert!(
            c["reason"]
                .as_str()
                .unwrap()
                .starts_with("no session since")
        );
    }
}

/// `mcplogs statusline` and `mcplogs hook` for the session (a fresh cache each): the
/// status line, and the hook's context ("" when it says nothing).
fn status_and_hook(home: &Path, project: &Path) -> (String, String) {
    let input = session_input(project);
    let go = |sub: &str| {
        let cache = tempfile::tempdir().unwrap();
        let mut c = mcplogs(home);
        c.current_dir(project)
            .env("MCPLOGS_CACHE_DIR", cache.path())
            .args([sub, "--home"])
            .arg(home);
        let r = run_with_stdin(&mut c, input.as_bytes());
        assert_eq!(r.code, 0, "{sub}: {r:?}");
        r.stdout
    };
    let line = go("statusline").trim_end().to_string();
    let hook = go("hook");
    let context = if hook.is_empty() {
        String::new()
    } else {
        json_of(&Run {
            code: 0,
            stdout: hook,
            stderr: String::new(),
        })["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_string()
    };
    (line, context)
}

/// The servers the status line names as failing, each with its words after the name
/// (`tools fetch failed · mcplogs fix`).
fn status_failing(line: &str) -> std::collections::BTreeMap<String, String> {
    let Some((_, names)) = line.split_once("✗ ") else {
        return Default::default();
    };
    names
        .trim_end_matches(')')
        .split("), ")
        .map(|one| {
            let (name, detail) = one.split_once(" (").unwrap_or((one, ""));
            (name.to_string(), detail.to_string())
        })
        .collect()
}

/// The servers `scan --json` counts as failing (a problem verdict on a server Claude
/// Code starts), each with its verdict, cause, and the fix command its advice gives (the
/// backquoted `mcplogs fix ...`), if any.
fn scan_failing(
    scan: &Value,
) -> std::collections::BTreeMap<String, (String, String, Option<String>)> {
    scan_failing_in(scan, None)
}

/// [`scan_failing`] for the servers of `project` alone (all with `None`).
fn scan_failing_in(
    scan: &Value,
    project: Option<&Path>,
) -> std::collections::BTreeMap<String, (String, String, Option<String>)> {
    scan["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| project.is_none_or(|p| s["project"] == p.display().to_string()))
        .filter(|s| {
            [
                "tools-fetch-failed",
                "connection-failed",
                "version-unsupported",
                "degraded",
            ]
            .contains(&s["verdict"].as_str().unwrap())
                && ["starts", "pending-approval"]
                    .contains(&s["configuration"]["state"].as_str().unwrap_or("starts"))
        })
        .map(|s| {
            let rec = s["recommendation"].as_str().unwrap();
            let fix = rec
                .split('`')
                .skip(1)
                .step_by(2)
                .find(|c| c.starts_with("mcplogs fix"))
                .map(str::to_string);
            (
                s["name"].as_str().unwrap().to_string(),
                (
                    s["verdict"].as_str().unwrap().to_string(),
                    s["cause"].as_str().unwrap_or("-").to_string(),
                    fix,
                ),
            )
        })
        .collect()
}

/// Checks the status line and the hook against `scan --json` for the session's servers:
/// the same failing servers, each hook entry with scan's verdict and cause, and the fix
/// command wherever scan gives one (and nowhere else).
fn assert_status_agrees_with_scan(scan: &Value, line: &str, hook: &str) {
    assert_status_agrees_with_scan_in(scan, None, line, hook)
}

/// [`assert_status_agrees_with_scan`] for a session in `project`: scan's servers of
/// that project.
fn assert_status_agrees_with_scan_in(scan: &Value, project: Option<&Path>, line: &str, hook: &str) {
    let want = scan_failing_in(scan, project);
    let got = status_failing(line);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{line}"
    );
    assert!(
        line.contains(&format!("{}✗", want.len())),
        "the count is scan's: {line}"
    );
    for (name, (verdict, cause, fix)) in &want {
        let detail = &got[name];
        match fix {
            Some(f) => assert!(detail.ends_with(&format!("· {f}")), "{name}: {line}"),
            None => assert!(!detail.contains("mcplogs fix"), "{name}: {line}"),
        }
        // the hook names up to five servers: each it names, with scan's answer
        let said = if cause == "-" {
            format!("{name} ({verdict})")
        } else {
            format!("{name} ({verdict}: {cause})")
        };
        if hook.contains(&format!("{name} (")) {
            assert!(hook.contains(&said), "{said}: {hook}");
        }
    }
    let fixes: Vec<&String> = want.values().filter_map(|(_, _, f)| f.as_ref()).collect();
    match fixes.first() {
        Some(f) => assert!(hook.contains(&format!("`{f}`")), "{hook}"),
        None => assert!(!hook.contains("mcplogs fix"), "{hook}"),
    }
    for name in scan["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| project.is_none_or(|p| s["project"] == p.display().to_string()))
        .map(|s| s["name"].as_str().unwrap())
    {
        if !want.contains_key(name) {
            assert!(!hook.contains(&format!("{name} (")), "{name}: {hook}");
        }
    }
}

/// Status line and hook against `scan --json` on the same home and session: the same
/// failing servers with the same verdict and cause, and the same fix. Then, with the
/// legacy setting in effect in the project (its `.claude/settings.local.json`) and one
/// server disabled there: neither offers `mcplogs fix` (scan says the fix is in place)
/// and neither counts the disabled server, as scan does not.
#[test]
fn status_line_and_hook_give_each_server_scans_answer_and_fix() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let project = project_in(&home, "api");
    let (_, scan) = scan_doc(&home, &project, &[]);
    let (line, hook) = status_and_hook(&home, &project);
    assert_status_agrees_with_scan(&scan, &line, &hook);
    // scan gives one server the fix, and names it by its configured name
    assert!(
        line.contains("wrong-types (tools fetch failed · mcplogs fix --home"),
        "{line}"
    );
    assert_eq!(scan_failing(&scan).len(), 6);

    // the fix in effect in the project; `bad-tool` disabled there
    fs::create_dir_all(project.join(".claude")).unwrap();
    fs::write(
        project.join(".claude/settings.local.json"),
        "{\"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"}}\n",
    )
    .unwrap();
    let claude_json = home.join(".claude.json");
    let mut cfg: Value = serde_json::from_str(&fs::read_to_string(&claude_json).unwrap()).unwrap();
    cfg["projects"][project.display().to_string()]["disabledMcpServers"] =
        serde_json::json!(["bad-tool"]);
    fs::write(&claude_json, serde_json::to_string_pretty(&cfg).unwrap()).unwrap();
    let (_, scan) = scan_doc(&home, &project, &[]);
    assert_eq!(
        server(&scan, "bad-tool")["configuration"]["state"],
        "disabled"
    );
    assert!(
        server(&scan, "wrong-types")["recommendation"]
            .as_str()
            .unwrap()
            .contains("The fix is in place"),
        "{scan:#}"
    );
    let (line, hook) = status_and_hook(&home, &project);
    assert_status_agrees_with_scan(&scan, &line, &hook);
    assert!(
        !line.contains("bad-tool") && !hook.contains("bad-tool"),
        "{line}\n{hook}"
    );
    assert!(
        line.contains("wrong-types (tools fetch failed · fix in place"),
        "{line}"
    );
    assert!(hook.contains("in place already"), "{hook}");
    assert!(
        hook.contains(r#""wrong-types" (tools-fetch-failed: wrong-field-types)"#),
        "{hook}"
    );
}

/// The whole-home test: unix only (the settings tests' path helpers and the fix plan's
/// screen parser are).
#[cfg(unix)]
mod many {
    use super::*;
    use std::path::PathBuf;

    /// The macOS sample's project, as its logs' `cwd` name it, and its newest session.
    const MACOS_WEB: &str = "/tmp/mcplogs-samples/home-macos/work/web";
    const MACOS_SESSION: &str = "0e989218-1ea5-4e55-8986-f42d5383d58d";

    /// A home of several projects under a path holding a space and a quote: `proj a`
    /// commits `.claude/settings.json` with MCP_PROTOCOL_NEGOTIATION=auto (the user file
    /// does not reach it), `proj-b` sets nothing; a third folder is neither.
    struct Many {
        _dir: tempfile::TempDir,
        home: PathBuf,
        managed: PathBuf,
        cache: PathBuf,
        shared: PathBuf,
        plain: PathBuf,
        elsewhere: PathBuf,
    }

    impl Many {
        fn new() -> Many {
            let dir = fixed_length_tempdir();
            let base = fs::canonicalize(dir.path()).unwrap().join("it's a home");
            let m = Many {
                home: base.join("me"),
                managed: base.join("managed"),
                cache: base.join("mcplogs-cache"),
                shared: base.join("proj a"),
                plain: base.join("proj-b"),
                elsewhere: base.join("elsewhere"),
                _dir: dir,
            };
            for d in [&m.home, &m.managed, &m.shared, &m.plain, &m.elsewhere] {
                fs::create_dir_all(d).unwrap();
            }
            fs::create_dir_all(m.shared.join(".claude")).unwrap();
            fs::write(
                m.shared.join(".claude/settings.json"),
                "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"auto\"\n  }\n}\n",
            )
            .unwrap();
            let stub = |case: &str| {
                serde_json::json!({"command": "python3", "args": [
                    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/lifecycle_stub.py"),
                    "--case", case]})
            };
            let cfg = serde_json::json!({"projects": {
                m.shared.display().to_string(): {"mcpServers": {
                    "srv-a": stub("tools-modern-missing"), "bad-a": stub("ok")}},
                m.plain.display().to_string(): {"mcpServers": {"srv-b": stub("tools-modern-missing")}},
            }});
            fs::write(m.home.join(".claude.json"), cfg.to_string()).unwrap();
            // real 2.1.288 logs: missing resultType (the legacy fix cures it), and a tool
            // schema it cannot help
            m.log(&m.shared.clone(), "srv-a", "no-resulttype");
            m.log(&m.shared.clone(), "bad-a", "bad-tool-modern");
            m.log(&m.plain.clone(), "srv-b", "no-resulttype");
            // a server healthy only under a legacy setting since removed (real 2.1.288
            // logs, its project gone): `fix` writing the user file is its fix too
            copy_tree(&samples().join("after-undo"), &m.home);
            m
        }

        /// The sample session of macOS's `mcp-logs-<sample>` as run by `name` in `project`.
        fn log(&self, project: &Path, name: &str, sample: &str) {
            let src = samples()
                .join("macos-home/Library/Caches/claude-cli-nodejs")
                .join(mcplogs::claude_code::names::encode_folder_name(MACOS_WEB))
                .join(format!("mcp-logs-{sample}"));
            let mut files: Vec<PathBuf> = fs::read_dir(&src)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            let newest = files.pop().unwrap();
            let cwd = serde_json::to_string(&project.display().to_string()).unwrap();
            let text = fs::read_to_string(&newest)
                .unwrap()
                .replace(&format!("\"{MACOS_WEB}\""), &cwd);
            let d = self
                .home
                .join(".cache/claude-cli-nodejs")
                .join(mcplogs::claude_code::names::encode_folder_name(
                    &project.display().to_string(),
                ))
                .join(format!("mcp-logs-{name}"));
            fs::create_dir_all(&d).unwrap();
            fs::write(d.join(newest.file_name().unwrap()), text).unwrap();
        }

        /// `mcplogs ARGS` in `cwd`, this home the machine's, the managed folder pinned.
        fn cmd(&self, cwd: &Path, args: &[&str]) -> std::process::Command {
            let mut c = mcplogs(&self.home);
            c.current_dir(cwd)
                .env("MCPLOGS_CACHE_DIR", &self.cache)
                .env("COLUMNS", "400")
                .args(args)
                .arg("--managed-dir")
                .arg(&self.managed);
            c
        }

        fn run(&self, cwd: &Path, args: &[&str]) -> Run {
            run(&mut self.cmd(cwd, args))
        }

        fn json(&self, cwd: &Path, args: &[&str]) -> Value {
            json_of(&self.run(cwd, args))
        }

        /// `statusline` and `hook` for the macOS session run in `project` (the hook's
        /// told-list cleared first, so it speaks).
        fn status(&self, project: &Path) -> (String, String) {
            let _ = fs::remove_dir_all(self.cache.join("hook-told"));
            let p = serde_json::to_string(&project.display().to_string()).unwrap();
            let input = format!(
                r#"{{"hook_event_name":"UserPromptSubmit","session_id":"{MACOS_SESSION}","cwd":{p},"workspace":{{"current_dir":{p},"project_dir":{p}}},"terminal_width":2000}}"#
            );
            let line = run_with_stdin(&mut self.cmd(project, &["statusline"]), input.as_bytes());
            assert_eq!(line.code, 0, "{line:?}");
            let hook = run_with_stdin(&mut self.cmd(project, &["hook"]), input.as_bytes());
            assert_eq!(hook.code, 0, "{hook:?}");
            let context = if hook.stdout.is_empty() {
                String::new()
            } else {
                json_of(&hook)["hookSpecificOutput"]["additionalContext"]
                    .as_str()
                    .unwrap()
                    .to_string()
            };
            (line.stdout.trim_end().to_string(), context)
        }

        /// `settings --json` in `project`: the value in effect and the file deciding it.
        fn in_effect(&self, project: &Path) -> (String, String) {
            let doc = self.json(project, &["settings", "--json"]);
            let eff = &doc["effective"];
            (
                eff["value"].as_str().unwrap_or("").to_string(),
                eff["path"].as_str().unwrap_or("").to_string(),
            )
        }
    }

    /// Issue 51, "Done when": on a home of several projects (one committing
    /// MCP_PROTOCOL_NEGOTIATION=auto, the home path holding a space and a quote), scan,
    /// explain, report, probe, export, the status line and the hook give each server the
    /// same verdict and cause, and the same fix command; scan offers the one change once;
    /// `fix --yes` from an unrelated folder makes `settings --json` in each named project
    /// show legacy in effect, and then every command says the fix is in place.
    #[test]
    fn every_command_gives_each_server_one_answer_and_fix_reaches_every_project() {
        let m = Many::new();
        let scan = m.json(&m.elsewhere, &["scan", "--json"]);
        let want = answers(&scan);
        let fails = (
            "tools-fetch-failed".to_string(),
            "missing-resultType".to_string(),
        );
        assert_eq!(want["srv-a"], fails, "{scan:#}");
        assert_eq!(want["srv-b"], fails, "{scan:#}");
        assert_eq!(want["bad-a"].1, "invalid-tool-definition", "{scan:#}");
        assert_eq!(want["no-resulttype"].0, "healthy", "{scan:#}");
        // wherever scan runs, the same answers and advice
        for cwd in [&m.shared, &m.plain] {
            let here = m.json(cwd, &["scan", "--json"]);
            assert_eq!(answers(&here), want, "{}", cwd.display());
            for name in want.keys() {
                assert_eq!(
                    server(&here, name)["recommendation"],
                    server(&scan, name)["recommendation"],
                    "{name} from {}",
                    cwd.display()
                );
            }
        }
        // srv-a's fix is proj a's local file (its committed file sets auto): scan's command
        // is the plain one, run from anywhere
        let local = m.shared.join(".claude/settings.local.json");
        let rec_a = server(&scan, "srv-a")["recommendation"].as_str().unwrap();
        assert!(rec_a.contains("run `mcplogs fix`"), "{rec_a}");
        assert!(names_path(rec_a, &local), "{rec_a}");

        // explain, in the project and with --project from elsewhere: scan's answers,
        // advice, and fix command (never `--project` where scan has none)
        let paste = "srv-a: python3 stub.py - ! Connected · tools fetch failed\n\
                     bad-a: python3 stub.py - ! Connected · tools fetch failed\n";
        let proj_a = m.shared.display().to_string();
        for (cwd, extra) in [
            (&m.shared, vec![]),
            (&m.elsewhere, vec!["--project", proj_a.as_str()]),
        ] {
            let mut args = vec!["explain", "--json"];
            args.extend(&extra);
            let doc = json_of(&run_with_stdin(&mut m.cmd(cwd, &args), paste.as_bytes()));
            for (name, answer) in answers(&doc) {
                assert_eq!(answer, want[&name], "{name}: {doc:#}");
                assert_eq!(
                    server(&doc, &name)["recommendation"],
                    server(&scan, &name)["recommendation"],
                    "{name}"
                );
            }
            let mut args = vec!["explain"];
            args.extend(&extra);
            let text = run_with_stdin(&mut m.cmd(cwd, &args), paste.as_bytes()).stdout;
            assert!(text.contains("1 can be fixed with `mcplogs fix`"), "{text}");
            assert!(!text.contains("--project"), "{text}");
        }

        // report: every server it covers, with scan's answer
        let report = m.json(&m.elsewhere, &["report", "--json"]);
        let covered = answers(&report);
        assert!(
            covered.contains_key("srv-a") && covered.contains_key("srv-b"),
            "{report:#}"
        );
        for (name, answer) in &covered {
            assert_eq!(Some(answer), want.get(name), "{name}: {report:#}");
        }

        // export: each record's verdict and cause are scan's
        let out = m.elsewhere.join("records.jsonl");
        let out_arg = out.display().to_string();
        let r = run(m
            .cmd(&m.elsewhere, &["export", "--file", &out_arg])
            .env("OTEL_LOG_TOOL_DETAILS", "1"));
        assert_eq!(r.code, 0, "{r:?}");
        let mut exported = 0;
        for line in fs::read_to_string(&out).unwrap().lines() {
            let rec: Value = serde_json::from_str(line).unwrap();
            let a = &rec["attributes"];
            let Some(name) = a["mcp.server.name"].as_str().or(a["server_name"].as_str()) else {
                panic!("no server name: {rec:#}");
            };
            if let Some((verdict, cause)) = want.get(name) {
                assert_eq!(a["mcplogs.verdict"], verdict.as_str(), "{name}: {rec:#}");
                assert_eq!(
                    a["mcplogs.cause"].as_str().unwrap_or("-"),
                    cause,
                    "{name}: {rec:#}"
                );
                exported += 1;
            }
        }
        assert_eq!(exported, want.len(), "every scanned server exported once");

        // the status line and the hook of the session in proj a
        let (line, hook) = m.status(&m.shared);
        assert_status_agrees_with_scan_in(&scan, Some(&m.shared), &line, &hook);
        assert!(
            line.contains("srv-a (tools fetch failed · mcplogs fix)"),
            "{line}"
        );

        // probe of srv-a in its project (the settings there: auto), for the build that
        // wrote its logs: scan's verdict, cause and fix, naming the same file
        let probe = m.json(
            &m.shared,
            &["probe", "srv-a", "--claude-version", "2.1.288", "--json"],
        );
        let p = &probe["servers"][0];
        let predicted = &p["prediction"];
        assert_eq!(
            (
                predicted["verdict"].as_str().unwrap().to_string(),
                predicted["cause"].as_str().unwrap_or("-").to_string()
            ),
            want["srv-a"],
            "{probe:#}"
        );
        let rec = predicted["recommendation"].as_str().unwrap();
        assert!(rec.contains("run `mcplogs fix`"), "{rec}");
        assert!(names_path(rec, &local), "{rec}");
        assert!(!rec.contains("the settings file that wins"), "{rec}");

        // scan's screen: the one settings change is one action, for all three servers
        let screen = m.run(&m.elsewhere, &["scan"]).stdout;
        let acts = crate::fix_plan::actions(&screen);
        let fixes: Vec<&String> = acts.iter().filter(|a| a.contains("mcplogs fix")).collect();
        assert_eq!(fixes.len(), 1, "{screen}");
        for name in ["srv-a", "srv-b", "no-resulttype"] {
            assert!(fixes[0].contains(name), "{name}: {screen}");
        }

        // fix from an unrelated folder: in effect in every project it names
        let r = m.run(&m.elsewhere, &["fix", "--yes"]);
        assert_eq!(r.code, 0, "{r:?}");
        assert!(!r.stderr.contains("every project"), "{}", r.stderr);
        for project in [&m.shared, &m.plain] {
            assert_eq!(m.in_effect(project).0, "legacy", "{}", project.display());
        }
        assert_eq!(Path::new(&m.in_effect(&m.shared).1), local);
        // then every command says the fix is in place, none offers it again
        let scan = m.json(&m.elsewhere, &["scan", "--json"]);
        assert_eq!(answers(&scan)["srv-a"], fails);
        for name in ["srv-a", "srv-b"] {
            let rec = server(&scan, name)["recommendation"].as_str().unwrap();
            assert!(rec.contains("The fix is in place"), "{name}: {rec}");
        }
        let (line, hook) = m.status(&m.shared);
        assert_status_agrees_with_scan_in(&scan, Some(&m.shared), &line, &hook);
        assert!(
            line.contains("srv-a (tools fetch failed · fix in place"),
            "{line}"
        );
        assert!(
            !line.contains("mcplogs fix") && !hook.contains("mcplogs fix"),
            "{line}\n{hook}"
        );
    }
}

/// `--since` on logs whose files were written lately (copied, restored) but whose
/// records are old: a "not seen since" server's last session is its records' time, the
/// LAST SEEN that scan without `--since` shows, never its file's mtime (adversarial
/// finding 9).
#[test]
fn since_gives_the_records_time_not_the_files() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let project = project_in(&home, "api");
    // every log written a minute ago (on the suite's clock); its records are of
    // 2026-11-29
    for f in walkdir::WalkDir::new(home.join(".cache"))
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
    {
        set_age(&f, 60);
    }
    // one server seen since (its records a minute old), so the project is scanned
    let folder = walkdir::WalkDir::new(home.join(".cache"))
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .find(|p| p.ends_with("mcp-logs-acme-docs"))
        .unwrap();
    let latest = sorted_files(&folder).pop().unwrap();
    let now = now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let fresh: Vec<String> = fs::read_to_string(&latest)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v["timestamp"] = mcplogs::time::format_iso(now - 60).into();
            v.to_string()
        })
        .collect();
    let fresh_file = folder.join("2026-12-31T00-00-00-000Z.jsonl");
    fs::write(&fresh_file, fresh.join("\n") + "\n").unwrap();
    set_age(&fresh_file, 60);
    let (_, all) = scan_doc(&home, &project, &[]);
    let (_, since) = scan_doc(&home, &project, &["--since", "10m"]);
    let last_seen = |name: &str| {
        all["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .and_then(|s| s["lastSeen"].as_str())
            .map(|t| mcplogs::time::parse_iso(t).unwrap())
    };
    let rows = since["configured"].as_array().unwrap();
    let not_seen: Vec<&Value> = rows
        .iter()
        .filter(|r| r["state"] == "not-seen-since")
        .collect();
    assert!(not_seen.len() >= 5, "{since:#}");
    for r in not_seen {
        let name = r["name"].as_str().unwrap();
        let last = mcplogs::time::parse_iso(r["lastSession"].as_str().unwrap()).unwrap();
        assert_eq!(Some(last), last_seen(name), "{name}: {r:#}");
    }
    let screen = run(&mut cmd(&home, &project, &["scan", "--since", "10m"]));
    // (the row's reason; "What to do" says it once for every server not seen since,
    // helper-83 #8)
    assert!(
        screen.stdout.contains("the last at 2026-11-29"),
        "{}",
        screen.stdout
    );
    assert_eq!(
        screen
            .stdout
            .matches("Claude Code has not started these since")
            .count(),
        1,
        "{}",
        screen.stdout
    );
}

/// helper-81 #5: with `~/.claude.json` unparsable, `scan` warns that the servers it
/// configures are not known; the hook, while servers fail, said nothing of it.
#[test]
fn the_hook_says_an_unparsable_claude_json_as_scan_warns_it() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let project = project_in(&home, "api");
    let (_, before) = status_and_hook(&home, &project);
    assert!(!before.is_empty());
    assert!(!before.contains("~/.claude.json"), "{before}");
    let config = home.join(".claude.json");
    let text = fs::read_to_string(&config).unwrap();
    fs::write(&config, format!("{text}\n}} trailing")).unwrap();
    let (_, hook) = status_and_hook(&home, &project);
    assert!(
        hook.contains("The user's ~/.claude.json cannot be parsed"),
        "{hook}"
    );
    let scan = run(&mut cmd(&home, &project, &["scan"]));
    assert!(scan.stderr.contains(".claude.json"), "{scan:?}");
}
