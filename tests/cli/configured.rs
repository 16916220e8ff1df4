//! Configured servers and their states (issue 21): every real Claude Code run kept under
//! `tests/fixtures/configured/<case>/<build>/` (2.1.288 and 2.1.332) through `mcplogs
//! scan`. Each run's configuration files and logs are put back into a sandbox home (the
//! `@HOME@`, `@PROJ@`, `@STUB@` placeholders filled in, the logs under the project's
//! encoded folder), and scan must give every configured server a row: the ones Claude
//! Code started (its init line) by their logs, the others by the state Claude Code gave
//! them, named with the file and key that decide it.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{fixed_length_tempdir, mcplogs, run, run_json};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/configured")
}

struct Placed {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    proj: PathBuf,
    managed: PathBuf,
}

fn fill(text: &str, p: &Placed) -> String {
    text.replace("@HOME@", p.home.to_str().unwrap())
        .replace("@PROJ@", p.proj.to_str().unwrap())
        .replace("@STUB@", "/nonexistent/stub_mcp_server.py")
}

fn encode(path: &Path) -> String {
    path.to_str()
        .unwrap()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir(dir) else {
        return out;
    };
    for e in rd {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// One run's configuration and logs, placed in a fresh sandbox.
fn place(run_dir: &Path) -> Placed {
    let dir = fixed_length_tempdir();
    let root = dir.path().to_path_buf();
    let home = root.join("home");
    let proj = home.join("work").join("proj");
    let managed = root.join("managed");
    fs::create_dir_all(&proj).unwrap();
    fs::create_dir_all(&managed).unwrap();
    let p = Placed {
        _dir: dir,
        root,
        home,
        proj,
        managed,
    };
    let config = run_dir.join("config");
    for f in files_under(&config) {
        let rel = f.strip_prefix(&config).unwrap();
        let mut parts = rel.components();
        let top = parts
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap()
            .to_string();
        let rest: PathBuf = parts.collect();
        let base = match top.as_str() {
            "home" => p.home.clone(),
            "proj" => p.proj.clone(),
            "managed" => p.managed.clone(),
            other => p.root.join(other),
        };
        let dest = base.join(rest);
        fs::create_dir_all(dest.parent().unwrap()).unwrap();
        fs::write(&dest, fill(&fs::read_to_string(&f).unwrap(), &p)).unwrap();
    }
    let logs = run_dir.join("logs");
    let mut newest_log: i64 = 0;
    let tree = p
        .home
        .join(".cache")
        .join("claude-cli-nodejs")
        .join(encode(&p.proj));
    for f in files_under(&logs) {
        let rel = f.strip_prefix(&logs).unwrap();
        let dest = tree.join(rel);
        fs::create_dir_all(dest.parent().unwrap()).unwrap();
        fs::write(&dest, fill(&fs::read_to_string(&f).unwrap(), &p)).unwrap();
        newest_log = newest_log.max(
            f.file_name()
                .and_then(|n| n.to_str())
                .and_then(mcplogs::time::file_name_time)
                .and_then(|t| mcplogs::time::parse_iso(&t))
                .unwrap_or(0),
        );
    }
    // The configuration as the run left it: written after its last log (a server added
    // since has none). Its time comes from the fixture, never from this machine's clock,
    // so "ran since" reads the same on any date.
    let written = std::time::UNIX_EPOCH + std::time::Duration::from_secs(newest_log as u64 + 60);
    for f in [&p.home, &p.proj, &p.managed]
        .into_iter()
        .flat_map(|d| files_under(d))
        .filter(|f| !f.starts_with(&tree))
    {
        let file = fs::File::options().write(true).open(&f).unwrap();
        file.set_modified(written).unwrap();
    }
    p
}

fn scan_json(p: &Placed) -> (i32, serde_json::Value) {
    let mut cmd = mcplogs(&p.home);
    cmd.current_dir(&p.proj).args([
        "scan",
        "--json",
        "--home",
        p.home.to_str().unwrap(),
        "--managed-dir",
        p.managed.to_str().unwrap(),
    ]);
    let (r, v) = run_json(&mut cmd);
    (r.code, v)
}

/// What scan says of one server: (verdict, state, the keys that decide it).
fn row(
    doc: &serde_json::Value,
    name: &str,
) -> Option<(Option<String>, Option<String>, Vec<String>)> {
    let keys = |c: &serde_json::Value| -> Vec<String> {
        c["decidedBy"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|d| d["key"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    for s in doc["servers"].as_array().unwrap() {
        if s["name"] == name {
            let c = &s["configuration"];
            return Some((
                s["verdict"].as_str().map(str::to_string),
                c["state"].as_str().map(str::to_string),
                keys(c),
            ));
        }
    }
    for s in doc["configured"].as_array().unwrap() {
        if s["name"] == name {
            return Some((None, s["state"].as_str().map(str::to_string), keys(s)));
        }
    }
    None
}

/// Every server name the run's configuration files hold.
fn configured_names(run_dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for f in files_under(&run_dir.join("config")) {
        let Ok(doc) = serde_json::from_str::<serde_json::Value>(&fs::read_to_string(&f).unwrap())
        else {
            continue;
        };
        let mut maps = vec![doc["mcpServers"].clone()];
        if let Some(projects) = doc["projects"].as_object() {
            maps.extend(projects.values().map(|p| p["mcpServers"].clone()));
        }
        for m in maps {
            if let Some(m) = m.as_object() {
                names.extend(m.keys().cloned());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// The state (and a key that decides it) each case's servers must get, from what
/// Claude Code did with them on both builds (docs/claude-code.md).
fn expected(case: &str) -> Vec<(&'static str, &'static str, &'static str)> {
    match case {
        "user-disabled" => vec![
            ("u-on", "starts", ""),
            ("l-on", "starts", ""),
            ("u-off", "disabled", "disabledMcpServers"),
            ("l-off", "disabled", "disabledMcpServers"),
        ],
        "mcpjson-local"
        | "mcpjson-user"
        | "mcpjson-project"
        | "mcpjson-managed"
        | "mcpjson-legacy-keys" => vec![
            ("p-enabled", "starts", "enabledMcpjsonServers"),
            ("p-disabled", "disabled", "disabledMcpjsonServers"),
            ("p-unlisted", "pending-approval", ""),
        ],
        "mcpjson-conflict" => vec![
            ("p-a", "disabled", "disabledMcpjsonServers"),
            ("p-b", "disabled", "disabledMcpjsonServers"),
            ("p-c", "starts", "enableAllProjectMcpServers"),
        ],
        "mcpjson-enable-all" => vec![
            ("p-one", "starts", "enableAllProjectMcpServers"),
            ("p-off", "disabled", "disabledMcpjsonServers"),
        ],
        "mcpjson-skip-permissions" => vec![("p-unlisted", "pending-approval", "")],
        "managed-deny-allow" => vec![
            ("u-allowed", "starts", ""),
            ("p-allowed", "starts", "enableAllProjectMcpServers"),
            ("u-denied", "denied-by-policy", "deniedMcpServers"),
            ("u-unlisted", "denied-by-policy", "allowedMcpServers"),
        ],
        "managed-deny-only" => vec![
            ("u-ok", "starts", ""),
            ("u-denied", "denied-by-policy", "deniedMcpServers"),
        ],
        "managed-mcp" => vec![
            ("m-org", "starts", ""),
            ("u-mine", "denied-by-policy", "mcpServers"),
            ("p-mine", "denied-by-policy", "mcpServers"),
        ],
        // Once the allow list holds a serverCommand entry, stdio servers are admitted by
        // command only; remote ones still by name (no serverUrl entry).
        "managed-allow-command" => vec![
            ("u-cmd-allowed", "starts", ""),
            ("u-name-http", "starts", ""),
            ("u-name-stdio", "denied-by-policy", "allowedMcpServers"),
            ("u-cmd-other", "denied-by-policy", "allowedMcpServers"),
            ("u-url-other", "denied-by-policy", "allowedMcpServers"),
        ],
        // ... and once it holds a serverUrl entry, remote servers by URL only.
        "managed-allow-url" => vec![
            ("u-name-stdio", "starts", ""),
            ("u-url-allowed", "starts", ""),
            ("u-name-http", "denied-by-policy", "allowedMcpServers"),
            ("u-url-other", "denied-by-policy", "allowedMcpServers"),
        ],
        // u-url-slash (the exact pattern's URL with a trailing slash): denied by 2.1.332,
        // started by 2.1.288; mcplogs follows the newer build (its 2.1.288 log gets the
        // state beside its verdict).
        "managed-deny-forms" => vec![
            ("u-cmd-ok", "starts", ""),
            ("u-url-ok", "starts", ""),
            ("u-cmd-denied", "denied-by-policy", "deniedMcpServers"),
            ("u-url-denied", "denied-by-policy", "deniedMcpServers"),
            ("u-url-exact", "denied-by-policy", "deniedMcpServers"),
            ("u-url-slash", "denied-by-policy", "deniedMcpServers"),
        ],
        // Neither build honours CLAUDE_CODE_MANAGED_SETTINGS_PATH; mcplogs neither.
        "managed-env-override" => vec![("u-ok", "starts", ""), ("u-denied", "starts", "")],
        "mcpjson-invalid" => vec![
            ("u-ok", "starts", ""),
            (".mcp.json", "configuration-error", ""),
        ],
        "entry-errors" => vec![
            ("u-ok", "starts", ""),
            ("u-var", "starts", ""),
            ("p-var", "starts", ""),
            ("p-vardefault", "starts", ""),
            ("u-nocmd", "configuration-error", ""),
            ("u-nourl", "configuration-error", ""),
            ("u-badtype", "configuration-error", ""),
            ("p-nocmd", "configuration-error", ""),
        ],
        "after-log" => vec![
            ("u-old", "starts", ""),
            ("u-gone", "not-configured", ""),
            ("u-new", "not-started", ""),
        ],
        other => panic!("no expectations for fixture case {other}: add them here"),
    }
}

fn runs() -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    for case in fs::read_dir(fixtures()).unwrap() {
        let case = case.unwrap().path();
        if !case.is_dir() {
            continue;
        }
        for build in fs::read_dir(&case).unwrap() {
            let b = build.unwrap().path();
            if b.join("config").is_dir() {
                out.push((
                    case.file_name().unwrap().to_str().unwrap().to_string(),
                    b.file_name().unwrap().to_str().unwrap().to_string(),
                    b,
                ));
            }
        }
    }
    out.sort();
    out
}

/// Claude Code's own word on each server: the init line's status, and the
/// `claude mcp list` line.
fn claude_code_says(run_dir: &Path) -> (serde_json::Value, String) {
    let init: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(run_dir.join("init.json")).unwrap_or_else(|_| "null".into()),
    )
    .unwrap();
    let list = fs::read_to_string(run_dir.join("mcp-list.txt")).unwrap_or_default();
    (init, list)
}

#[test]
fn every_fixture_run_gives_every_configured_server_its_state() {
    let all = runs();
    assert!(all.len() >= 30, "fixture runs missing: {}", all.len());
    let mut problems = Vec::new();
    for (case, build, dir) in &all {
        let placed = place(dir);
        let (code, doc) = scan_json(&placed);
        let (init, list) = claude_code_says(dir);
        let statuses: Vec<(String, String)> = init["mcp_servers"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|s| {
                        (
                            s["name"].as_str().unwrap().into(),
                            s["status"].as_str().unwrap().into(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        // Every configured name has a row.
        for name in configured_names(dir) {
            if row(&doc, &name).is_none() && case != "after-log" {
                problems.push(format!(
                    "{case} {build}: no row for configured server {name}"
                ));
            }
        }
        for (name, state, key) in expected(case) {
            let Some((verdict, got, keys)) = row(&doc, name) else {
                problems.push(format!("{case} {build}: no row for {name}"));
                continue;
            };
            if got.as_deref() != Some(state) {
                problems.push(format!(
                    "{case} {build}: {name}: state {got:?}, expected {state}"
                ));
            }
            if !key.is_empty() && !keys.iter().any(|k| k.ends_with(key)) && state != "starts" {
                problems.push(format!(
                    "{case} {build}: {name}: decided by {keys:?}, expected {key}"
                ));
            }
            // Against Claude Code: started (the init line) means a log verdict; never
            // started means a state and no verdict.
            let cc = statuses
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, s)| s.as_str());
            match (cc, verdict.as_deref()) {
                (Some("connected"), Some("healthy")) => {}
                (Some("failed"), Some("connection-failed")) => {}
                (Some("disabled") | None, None) if case != "after-log" => {}
                (_, _) if case == "after-log" => {}
                (cc, v) => problems.push(format!(
                    "{case} {build}: {name}: Claude Code says {cc:?}, mcplogs verdict {v:?}"
                )),
            }
            if list.contains(&format!("{name}: "))
                && list.contains("⏸ Pending approval")
                && list
                    .lines()
                    .any(|l| l.starts_with(&format!("{name}: ")) && l.contains("⏸"))
                && state != "pending-approval"
            {
                problems.push(format!(
                    "{case} {build}: {name}: claude mcp list says pending approval"
                ));
            }
        }
        // A configuration error, or a server Claude Code started and saw fail (the HTTP
        // servers of the managed-*-command/url cases point at a closed port), is a problem.
        let any_failed = statuses.iter().any(|(_, s)| s == "failed");
        let want_code = if case == "entry-errors" || case == "mcpjson-invalid" || any_failed {
            1
        } else {
            0
        };
        if code != want_code {
            problems.push(format!("{case} {build}: exit {code}, expected {want_code}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A disabled server's old failure is history: the scan exits 0, says it is disabled,
/// and `fix` is never advised for it.
#[test]
fn a_disabled_servers_old_failure_does_not_count_and_is_no_argument_for_fix() {
    old_failure_is_no_argument_for_fix("user-disabled", "u-off", "disabled");
}

#[test]
fn a_denied_servers_old_failure_is_no_argument_for_fix_either() {
    old_failure_is_no_argument_for_fix("managed-deny-only", "u-denied", "denied-by-policy");
}

/// `server` of the fixture `case` (2.1.332), which Claude Code no longer starts, gets an
/// old failing log: its row says so, counts as no failure, and neither the advice nor
/// `fix` argue for the legacy fix.
fn old_failure_is_no_argument_for_fix(case: &str, server: &str, state: &str) {
    let dir = fixtures().join(case).join("2.1.332");
    let p = place(&dir);
    let tree = p
        .home
        .join(".cache/claude-cli-nodejs")
        .join(encode(&p.proj))
        .join(format!("mcp-logs-{server}"));
    fs::create_dir_all(&tree).unwrap();
    fs::write(
        tree.join("2026-11-01T10-00-00-000Z.jsonl"),
        concat!(
            r#"{"debug":"Connection established with capabilities: {\"hasTools\":true,\"protocolEra\":\"modern\",\"negotiatedProtocolVersion\":\"2026-07-28\"}","timestamp":"2026-11-01T10:00:01.000Z","sessionId":"s1"}"#,
            "\n",
            r#"{"error":"Failed to fetch tools: Invalid result for tools/list: missing required resultType — servers implementing protocol revision 2026-07-28 MUST include it","timestamp":"2026-11-01T10:00:02.000Z","sessionId":"s1"}"#,
            "\n"
        ),
    )
    .unwrap();
    let (code, doc) = scan_json(&p);
    assert_eq!(code, 0, "{doc:#}");
    let s = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == server)
        .expect("the old log has a row");
    assert_eq!(s["verdict"], "tools-fetch-failed");
    assert_eq!(s["configuration"]["state"], state);
    assert_eq!(s["legacyFixApplies"], false);
    assert!(
        !s["recommendation"]
            .as_str()
            .unwrap()
            .contains("mcplogs fix")
    );
    // the row's reason names the state (helper-88 #12: `now by FILE KEY` for a denied one)
    let mut cmd = mcplogs(&p.home);
    cmd.current_dir(&p.proj).env("COLUMNS", "300").args([
        "scan",
        "--home",
        p.home.to_str().unwrap(),
        "--managed-dir",
        p.managed.to_str().unwrap(),
    ]);
    let screen = run(&mut cmd).stdout;
    let line = screen
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{server} ")))
        .unwrap_or_else(|| panic!("{screen}"));
    let named = match state {
        "denied-by-policy" => "now denied by ",
        "disabled" => "now ⊘ by ",
        _ => "now ",
    };
    assert!(line.contains(named), "{line}");
    // fix finds nothing to fix, and writes nothing
    let mut cmd = mcplogs(&p.home);
    cmd.current_dir(&p.proj).args([
        "fix",
        "--yes",
        "--home",
        p.home.to_str().unwrap(),
        "--managed-dir",
        p.managed.to_str().unwrap(),
    ]);
    let r = run(&mut cmd);
    assert_ne!(
        r.code, 0,
        "fix must not offer the legacy fix for a {state} server:\n{}",
        r.stdout
    );
    assert!(!r.stdout.contains(server), "{}", r.stdout);
    assert!(
        !p.home.join(".claude/settings.json").exists(),
        "{}",
        r.stderr
    );
}

/// The screen at 80 columns for the `.mcp.json` states, pinned byte for byte.
#[test]
fn the_screen_names_each_state_its_file_and_the_way_out() {
    let dir = fixtures().join("mcpjson-local").join("2.1.332");
    let p = place(&dir);
    let mut cmd = mcplogs(&p.home);
    cmd.current_dir(&p.proj).env("COLUMNS", "80").args([
        "scan",
        "--home",
        p.home.to_str().unwrap(),
        "--managed-dir",
        p.managed.to_str().unwrap(),
    ]);
    let r = run(&mut cmd);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for line in r.stdout.lines() {
        assert!(
            unicode_width::UnicodeWidthStr::width(line) <= 80,
            "wider than 80 columns: {line:?}"
        );
    }
    let shown = r.stdout.replace(p.root.to_str().unwrap(), "[SANDBOX]");
    insta::assert_snapshot!("configured_mcpjson_local", shown);
}

/// `explain` reads the `⊘ Disabled ...` and `⏸ Pending approval ...` lines of the real
/// `claude mcp list` outputs: a state, not a verdict, and never a failure.
#[test]
fn explain_reads_disabled_and_pending_lines() {
    for build in ["2.1.288", "2.1.332"] {
        for (case, name, state) in [
            ("user-disabled", "u-off", "disabled"),
            ("user-disabled", "l-off", "disabled"),
            ("mcpjson-local", "p-unlisted", "pending-approval"),
        ] {
            let list = fixtures().join(case).join(build).join("mcp-list.txt");
            let tmp = tempfile::tempdir().unwrap();
            let mut cmd = mcplogs(tmp.path());
            cmd.args(["explain", "--json", list.to_str().unwrap()]);
            let (r, doc) = run_json(&mut cmd);
            assert_eq!(r.code, 0, "{build} {case}: {}", r.stdout);
            let s = doc["servers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["name"] == name)
                .unwrap_or_else(|| panic!("{build} {case}: {name} missing"));
            assert_eq!(s["state"], state, "{build} {case} {name}");
            assert_eq!(s["verdict"], "unknown");
        }
    }
}

fn settings_run(p: &Placed, json: bool, columns: &str) -> crate::common::Run {
    let mut cmd = mcplogs(&p.home);
    cmd.current_dir(&p.proj).env("COLUMNS", columns).args([
        "settings",
        "--managed-dir",
        p.managed.to_str().unwrap(),
    ]);
    if json {
        cmd.arg("--json");
    }
    run(&mut cmd)
}

/// `mcplogs settings` shows the same resolution as scan: for every fixture run, every
/// server the expectations name has the same state (and deciding keys) in `settings
/// --json` as Claude Code gave it, and the screen fits 80 and 120 columns.
#[test]
fn settings_shows_every_configured_server_with_the_state_scan_gives_it() {
    let mut problems = Vec::new();
    for (case, build, dir) in runs() {
        let p = place(&dir);
        let r = settings_run(&p, true, "80");
        let doc: serde_json::Value = serde_json::from_str(&r.stdout)
            .unwrap_or_else(|e| panic!("{case} {build}: {e}\n{}", r.stdout));
        let servers = doc["servers"].as_array().expect("servers");
        for (name, state, key) in expected(&case) {
            if state == "not-configured" || state == "not-started" {
                continue;
            }
            let Some(s) = servers.iter().find(|s| s["name"] == name) else {
                problems.push(format!("{case} {build}: settings has no {name}"));
                continue;
            };
            let c = &s["configuration"];
            if c["state"] != state {
                problems.push(format!(
                    "{case} {build}: {name}: settings says {}, expected {state}",
                    c["state"]
                ));
            }
            let keys: Vec<&str> = c["decidedBy"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["key"].as_str().unwrap())
                .collect();
            if !key.is_empty() && !keys.iter().any(|k| k.ends_with(key)) {
                problems.push(format!("{case} {build}: {name}: decided by {keys:?}"));
            }
            if state != "starts" && s["note"].is_null() {
                problems.push(format!("{case} {build}: {name}: no note"));
            }
        }
        let want = if case == "entry-errors" || case == "mcpjson-invalid" {
            1
        } else {
            0
        };
        if r.code != want {
            problems.push(format!("{case} {build}: exit {}, expected {want}", r.code));
        }
        for cols in ["80", "120"] {
            let r = settings_run(&p, false, cols);
            let width: usize = cols.parse().unwrap();
            for line in r.stdout.lines() {
                if unicode_width::UnicodeWidthStr::width(line) > width {
                    problems.push(format!("{case} {build}: wider than {cols}: {line:?}"));
                }
            }
            for (name, _, _) in expected(&case) {
                if !name.starts_with('.') && !r.stdout.contains(name) && case != "after-log" {
                    problems.push(format!("{case} {build}: {name} not on the screen"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The settings screen of the `.mcp.json` states at 80 columns, pinned byte for byte.
#[test]
fn settings_screen_names_each_servers_state_and_file() {
    let p = place(&fixtures().join("mcpjson-local").join("2.1.332"));
    let r = settings_run(&p, false, "80");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let shown = r.stdout.replace(p.root.to_str().unwrap(), "[SANDBOX]");
    insta::assert_snapshot!("configured_settings_mcpjson_local", shown);
}

/// `probe NAME` of a server disabled for the project says so before probing it; `probe`
/// without names leaves it out and says why.
#[test]
fn probe_says_when_claude_code_does_not_start_the_named_server() {
    let p = place(&fixtures().join("user-disabled").join("2.1.332"));
    let mut cmd = mcplogs(&p.home);
    cmd.current_dir(&p.proj).args([
        "probe",
        "u-off",
        "--timeout",
        "2s",
        "--managed-dir",
        p.managed.to_str().unwrap(),
    ]);
    let r = run(&mut cmd);
    assert!(
        r.stderr
            .contains("\"u-off\": Claude Code does not start it (disabled)")
            && r.stderr.contains("disabledMcpServers")
            && r.stderr.contains("probing it as named"),
        "{}",
        r.stderr
    );
    let mut cmd = mcplogs(&p.home);
    cmd.current_dir(&p.proj).args([
        "probe",
        "--timeout",
        "2s",
        "--managed-dir",
        p.managed.to_str().unwrap(),
    ]);
    let r = run(&mut cmd);
    assert!(
        r.stderr
            .contains("\"u-off\": not probed: Claude Code does not start it (disabled)"),
        "{}",
        r.stderr
    );
    // the scan it names reads the home given (helper-88 #12: `mcplogs scan` alone read
    // another), in both notes
    // (the home is under the user's: `~/home`, as the shell expands it)
    for named in [true, false] {
        let mut cmd = mcplogs(&p.root);
        cmd.current_dir(&p.proj).arg("probe");
        if named {
            cmd.arg("u-off");
        }
        cmd.args(["--timeout", "2s", "--home"])
            .arg(&p.home)
            .arg("--managed-dir")
            .arg(&p.managed);
        let r = run(&mut cmd);
        assert!(
            r.stderr
                .contains("(`mcplogs scan --home ~/home` says what to do)"),
            "{}",
            r.stderr
        );
    }
}
