//! One answer per server in every view (review leftovers L2, L3, F3, F16): a filtered
//! `scan` (`--server`, `--match-project`) gives a server exactly the state the full scan
//! gives it, whatever folder it runs from.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{mcplogs, run_json};
use crate::discovery_cache_more::home_of;

/// `scan --json` of `home` with the session's environment (as discovery_cache_more runs
/// it), and `extra` arguments.
fn scan_json(home: &Path, row: &Value, extra: &[&str]) -> Value {
    let mut cmd = mcplogs(home);
    cmd.env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    for (k, v) in row["env"].as_object().unwrap() {
        match v.as_str() {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let (r, doc) = run_json(cmd.args(["scan", "--json", "--no-cache"]).args(extra));
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    doc
}

fn cache_state<'a>(doc: &'a Value, name: &str) -> &'a Value {
    let s = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {doc:#}"));
    &s["discoveryCache"]
}

/// L2: with MCP_DISCOVERY_CACHE_STRIKES unset where mcplogs runs, an entry rewritten
/// while the server failed says "strike counted" only when one server the cache can hold
/// exists; with a second remote server logged, the full scan cannot say whose entry it
/// was, and `scan --server downs` (one server scanned) must not say more.
#[test]
fn a_filtered_scan_counts_the_cache_eligible_servers_of_the_whole_home() {
    let tmp = tempfile::tempdir().unwrap();
    let mut row = home_of("2.1.336", "down-strike-3-down", tmp.path());
    row["env"]
        .as_object_mut()
        .unwrap()
        .remove("MCP_DISCOVERY_CACHE_STRIKES");
    let one = scan_json(tmp.path(), &row, &[]);
    assert_eq!(
        cache_state(&one, "downs")["state"],
        "strike-counted",
        "{one:#}"
    );
    // a second HTTP server, configured and logged
    let cfg = tmp.path().join(".claude.json");
    let mut doc: Value = serde_json::from_str(&fs::read_to_string(&cfg).unwrap()).unwrap();
    doc["mcpServers"]["other"] =
        serde_json::json!({"type": "http", "url": "http://127.0.0.1:9/mcp"});
    fs::write(&cfg, doc.to_string()).unwrap();
    let cache = tmp.path().join(".cache/claude-cli-nodejs");
    let project = fs::read_dir(&cache)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let other = project.join("mcp-logs-other");
    fs::create_dir_all(&other).unwrap();
    for f in fs::read_dir(project.join("mcp-logs-downs")).unwrap() {
        let f = f.unwrap().path();
        fs::copy(&f, other.join(f.file_name().unwrap())).unwrap();
    }
    let full = scan_json(tmp.path(), &row, &[]);
    let full_state = cache_state(&full, "downs").clone();
    assert_ne!(full_state["state"], "strike-counted", "{full:#}");
    for filter in [
        &["--server", "downs"][..],
        &["downs"][..],
        &["--match-project", "proj"][..],
    ] {
        let filtered = scan_json(tmp.path(), &row, filter);
        assert_eq!(
            cache_state(&filtered, "downs")["state"],
            full_state["state"],
            "{filter:?}: {filtered:#}"
        );
    }
}

/// Sets a file's modification time (seconds since the epoch).
fn set_mtime(path: &Path, secs: u64) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
        .unwrap();
}

/// `scan --since` gives a server the state the full scan gives it, counting the servers
/// whose sessions all ended before the cut-off (no row of their own): with a second HTTP
/// server logged only days before, the full scan cannot say whose entry the cache
/// rewrote, and neither may `scan --since` (it said "strike counted", counting one).
#[test]
fn a_scan_since_counts_the_servers_with_no_session_since() {
    let tmp = tempfile::tempdir().unwrap();
    let mut row = home_of("2.1.336", "down-strike-3-down", tmp.path());
    row["env"]
        .as_object_mut()
        .unwrap()
        .remove("MCP_DISCOVERY_CACHE_STRIKES");
    // the sessions were on 2026-12-06 (the records' times): written then, whatever day
    // this runs
    let cache = tmp.path().join(".cache/claude-cli-nodejs");
    let project = fs::read_dir(&cache)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    for f in fs::read_dir(project.join("mcp-logs-downs")).unwrap() {
        set_mtime(&f.unwrap().path(), 1_796_515_500); // 2026-12-06T00:05Z
    }
    let since = ["--since", "2026-12-05"];
    let alone = scan_json(tmp.path(), &row, &since);
    assert_eq!(
        cache_state(&alone, "downs")["state"],
        "strike-counted",
        "{alone:#}"
    );
    // a second HTTP server, configured and logged five days before
    let cfg = tmp.path().join(".claude.json");
    let mut doc: Value = serde_json::from_str(&fs::read_to_string(&cfg).unwrap()).unwrap();
    doc["mcpServers"]["other"] =
        serde_json::json!({"type": "http", "url": "http://127.0.0.1:9/mcp"});
    fs::write(&cfg, doc.to_string()).unwrap();
    let other = project.join("mcp-logs-other");
    fs::create_dir_all(&other).unwrap();
    for f in fs::read_dir(project.join("mcp-logs-downs")).unwrap() {
        let f = f.unwrap().path();
        let name = f
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .replace("2026-12-06", "2026-12-01");
        let text = fs::read_to_string(&f)
            .unwrap()
            .replace("\"2026-12-06T", "\"2026-12-01T");
        fs::write(other.join(&name), text).unwrap();
        set_mtime(&other.join(&name), 1_796_083_200); // 2026-12-01T00:00Z
    }
    let full = scan_json(tmp.path(), &row, &[]);
    let full_state = cache_state(&full, "downs").clone();
    assert_ne!(full_state["state"], "strike-counted", "{full:#}");
    let filtered = scan_json(tmp.path(), &row, &since);
    assert_eq!(
        cache_state(&filtered, "downs")["state"],
        full_state["state"],
        "{filtered:#}"
    );
    // and the older server has no row since the cut-off
    assert!(
        !filtered["servers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name"] == "other"),
        "{filtered:#}"
    );
}

/// L3: a configured server never started, in a project with no log at all (its entry in
/// `~/.claude.json` or its `.mcp.json`), while another project has logs: `scan` lists it
/// from the project and from any other folder, and `scan --server NAME` (what explain
/// and fix print for it) finds it from there too.
#[test]
fn an_unlogged_project_s_configured_servers_are_listed_from_any_folder() {
    use crate::token_names::Home;
    let h = Home::new();
    let other = h.home.join("work/other");
    fs::create_dir_all(&other).unwrap();
    h.log(&other, "o-ok");
    h.mcp_json(&h.proj, &["m-srv"]);
    h.write(
        &h.proj.join(".claude/settings.local.json"),
        serde_json::json!({"enabledMcpjsonServers": ["m-srv"]}),
    );
    let stdio = serde_json::json!({"type": "stdio", "command": "python3", "args": ["-c", "pass"]});
    h.write(
        &h.home.join(".claude.json"),
        serde_json::json!({"projects": {
            h.proj.to_str().unwrap(): {"hasTrustDialogAccepted": true, "mcpServers": {"u-srv": stdio}},
            other.to_str().unwrap(): {"hasTrustDialogAccepted": true, "mcpServers": {"o-ok": stdio}},
        }}),
    );
    for dir in [&h.elsewhere, &h.proj, &other] {
        let r = h.run_in(dir, &["scan", "--json"]);
        let doc: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"));
        let names: Vec<&str> = doc["configured"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["name"].as_str())
            .collect();
        assert!(
            names.contains(&"m-srv") && names.contains(&"u-srv"),
            "from {dir:?}: {doc:#}"
        );
        for name in ["m-srv", "u-srv"] {
            let r = h.run_in(dir, &["scan", "--server", name]);
            assert_eq!(r.code, 0, "scan --server {name} from {dir:?}: {r:?}");
            assert!(r.stdout.contains(name), "{r:?}");
        }
    }
}

/// F16: a project's `.claude/settings.local.json` that is not strict JSON (Claude Code
/// ignores it whole) is said from any folder, its path as `~/…`, and no advice asks to
/// add a name to it.
#[test]
fn an_ignored_local_settings_file_is_said_from_any_folder() {
    use crate::token_names::Home;
    let h = Home::new();
    h.mcp_json(&h.proj, &["p-ok", "p-new"]);
    h.log(&h.proj, "p-ok");
    h.write(
        &h.home.join(".claude.json"),
        serde_json::json!({"projects": {h.proj.to_str().unwrap(): {"hasTrustDialogAccepted": true}}}),
    );
    let local = h.proj.join(".claude/settings.local.json");
    fs::write(
        &local,
        "{\n  // Esc\n  \"disabledMcpjsonServers\": [\"p-new\",],\n}\n",
    )
    .unwrap();
    let shown = "~/work/proj/.claude/settings.local.json";
    for dir in [&h.elsewhere, &h.proj] {
        let r = h.run_in(dir, &["scan"]);
        let all = format!("{}{}", r.stdout, r.stderr);
        assert!(
            all.contains(shown) && all.contains("ignored entirely by Claude Code"),
            "from {dir:?}: {r:?}"
        );
        assert!(!all.contains(local.to_str().unwrap()), "a full path: {r:?}");
        assert!(
            !all.contains("add its name to enabledMcpjsonServers in .claude/settings.local.json"),
            "advice to edit an ignored file: {r:?}"
        );
        let (_, doc) = crate::common::run_json(
            crate::common::mcplogs(&h.home)
                .current_dir(dir)
                .args(["scan", "--json"]),
        );
        let rec = doc["configured"][0]["recommendation"]
            .as_str()
            .unwrap_or_default();
        assert!(rec.contains("ignored entirely"), "{doc:#}");
    }
}

/// F3: a `.mcp.json` server disabled in two layers the dialog writes (`~/.claude.json`'s
/// project entry and `.claude/settings.local.json`): `fix` moves it in both, and scan's
/// advice (the screen and `--json`'s recommendation) names both files.
#[test]
fn the_advice_names_every_file_the_fix_changes() {
    use crate::token_names::Home;
    let h = Home::new();
    h.mcp_json(&h.proj, &["p-ok", "p-off"]);
    h.log(&h.proj, "p-ok");
    let local = h.proj.join(".claude/settings.local.json");
    h.write(
        &local,
        serde_json::json!({"enabledMcpjsonServers": ["p-ok"], "disabledMcpjsonServers": ["p-off"]}),
    );
    let claude_json = h.home.join(".claude.json");
    h.write(
        &claude_json,
        serde_json::json!({"projects": {h.proj.to_str().unwrap(): {"hasTrustDialogAccepted": true, "disabledMcpjsonServers": ["p-off"]}}}),
    );
    let fix = h.run(&["fix", "--dry-run", "p-off"]);
    assert_eq!(fix.code, 0, "{fix:?}");
    let mut files = 0;
    for f in ["~/.claude.json", "~/work/proj/.claude/settings.local.json"] {
        assert!(
            fix.stdout.contains(&format!("--- {f}")),
            "fix writes {f}: {fix:?}"
        );
        files += 1;
    }
    let r = h.run(&["scan"]);
    let (_, doc) = crate::common::run_json(
        crate::common::mcplogs(&h.home)
            .current_dir(&h.elsewhere)
            .args(["scan", "--json"]),
    );
    let row = doc["configured"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "p-off")
        .unwrap_or_else(|| panic!("{doc:#}"));
    let rec = row["recommendation"].as_str().unwrap();
    for (shown, full) in [
        ("~/.claude.json", claude_json.to_str().unwrap()),
        (
            "~/work/proj/.claude/settings.local.json",
            local.to_str().unwrap(),
        ),
    ] {
        assert!(r.stdout.contains(shown), "the screen names {shown}: {r:?}");
        assert!(rec.contains(full), "the recommendation names {full}: {rec}");
    }
    assert_eq!(files, 2);
}
