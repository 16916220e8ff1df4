//! A server whose project path or name holds a secret is shown redacted, and is still
//! that project's and that configured name's (the adversarial pass, F8 and F13): the
//! resolution matches it with its configuration and reads its project's files as read,
//! so `scan` counts it once, as `scan --no-redact`, `report --json` and `export` do.

use std::fs;

use serde_json::{Value, json};

use crate::token_names::Home;

/// `scan --json` from `dir`, with and without redaction.
fn scans(h: &Home, dir: &std::path::Path) -> Vec<(bool, Value, String)> {
    [true, false]
        .into_iter()
        .map(|redact| {
            let mut args = vec!["scan", "--json"];
            if !redact {
                args.push("--no-redact");
            }
            let r = h.run_in(dir, &args);
            let doc: Value =
                serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"));
            (redact, doc, r.stdout)
        })
        .collect()
}

fn names(doc: &Value, list: &str) -> Vec<String> {
    doc[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

/// F8: a project cloned into a folder named like a token: its logged server is one row,
/// configured (it was listed again as "not started", and its settings were looked for
/// under the redacted path).
#[test]
fn a_project_whose_path_holds_a_token_is_one_project() {
    let h = Home::new();
    let token = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
    let proj = h.home.join("work").join(token).join("proj");
    fs::create_dir_all(proj.join(".claude")).unwrap();
    h.log(&proj, "srv");
    h.mcp_json(&proj, &["srv"]);
    h.write(
        &proj.join(".claude/settings.local.json"),
        json!({"enabledMcpjsonServers": ["srv"]}),
    );
    h.write(
        &h.home.join(".claude.json"),
        json!({"projects": {proj.to_str().unwrap(): {"hasTrustDialogAccepted": true}}}),
    );
    for (redact, doc, text) in scans(&h, &proj) {
        assert_eq!(names(&doc, "servers"), ["srv"], "redact {redact}: {doc:#}");
        assert!(
            names(&doc, "configured").is_empty(),
            "redact {redact}: {doc:#}"
        );
        assert_ne!(
            doc["servers"][0]["configuration"]["state"], "not-configured",
            "redact {redact}: {doc:#}"
        );
        assert_eq!(text.contains(token), !redact, "{text}");
    }
    // the screen: one group, one server
    let r = h.run_in(&proj, &["scan"]);
    assert!(r.stdout.starts_with("1 server"), "{r:?}");
    assert!(
        !r.stdout.contains("not started") && !r.stdout.contains(token),
        "{r:?}"
    );
}

/// F13: a logged server whose name holds a value another entry configures as secret:
/// one row, configured, its name shown with the value hidden (it was "no longer
/// configured", and listed again as "not started").
#[test]
fn a_logged_name_holding_a_configured_value_is_its_configured_server() {
    let h = Home::new();
    let value = "Xr7Tb2Qm9Kd4Lp6Vn3Ws";
    let name = format!("svc-{value}");
    h.log(&h.proj, &name);
    let stdio = json!({"type": "stdio", "command": "python3", "args": ["-c", "pass"]});
    h.write(
        &h.proj.join(".mcp.json"),
        json!({"mcpServers": {
            "leaky": {"type": "stdio", "command": "python3", "args": ["-c", "pass"],
                      "env": {"FOO_SETTING": value}},
            name.clone(): stdio,
        }}),
    );
    h.write(
        &h.proj.join(".claude/settings.local.json"),
        json!({"enabledMcpjsonServers": ["leaky", name.clone()]}),
    );
    h.write(
        &h.home.join(".claude.json"),
        json!({"projects": {h.proj.to_str().unwrap(): {"hasTrustDialogAccepted": true}}}),
    );
    for (redact, doc, text) in scans(&h, &h.proj) {
        let logged = names(&doc, "servers");
        assert_eq!(logged.len(), 1, "redact {redact}: {doc:#}");
        assert!(logged[0].starts_with("svc-"), "{doc:#}");
        assert_ne!(
            doc["servers"][0]["configuration"]["state"], "not-configured",
            "redact {redact}: {doc:#}"
        );
        assert_eq!(
            names(&doc, "configured")
                .iter()
                .filter(|n| n.starts_with("svc-"))
                .count(),
            0,
            "redact {redact}: {doc:#}"
        );
        assert_eq!(text.contains(value), !redact, "{text}");
    }
    // explain of its `claude mcp list` line (the real name, as Claude Code prints it)
    // finds its log as scan does (it found none: it matched the shown name only)
    let paste = h.elsewhere.join("paste.txt");
    fs::write(
        &paste,
        format!("Checking MCP server health...\n\n{name}: python3 -c pass - \u{2713} Connected\n"),
    )
    .unwrap();
    let r = h.run_in(&h.proj, &["explain", "--json", paste.to_str().unwrap()]);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"));
    let entry = &doc["servers"][0];
    assert!(!entry["logs"].is_null(), "{doc:#}");
    assert!(!r.stdout.contains(value), "{}", r.stdout);
}

/// The summary index never keeps a log folder whose name holds a value the
/// configuration marks as secret (`mcp-logs-leak-VALUE`, VALUE another entry's `env`
/// value): it wrote the folder's name whole (the user-view review); a token-shaped one
/// was already left out.
#[test]
fn the_index_keeps_no_folder_named_with_a_configured_value() {
    let h = Home::new();
    let value = "Zq8xLmN2pR7vT4wK9sB3";
    let name = format!("leak-{value}");
    h.log(&h.proj, &name);
    h.log(&h.proj, "plain");
    h.write(
        &h.home.join(".claude.json"),
        json!({"mcpServers": {
            "envsrv": {"type": "stdio", "command": "python3", "args": ["-c", "pass"],
                       "env": {"API_KEY": value}},
        }, "projects": {h.proj.to_str().unwrap(): {"hasTrustDialogAccepted": true}}}),
    );
    // logs written an hour ago, not now (the index keeps what has settled)
    let old = crate::common::now() - std::time::Duration::from_secs(3600);
    for f in walk(&h.home.join(".cache/claude-cli-nodejs")) {
        fs::File::options()
            .write(true)
            .open(&f)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let cache = h.home.join("mcache");
    let r = crate::common::run(
        crate::common::mcplogs(&h.home)
            .current_dir(&h.proj)
            .env("MCPLOGS_CACHE_DIR", &cache)
            .args(["scan", "--json"]),
    );
    assert!(r.code <= 1, "{r:?}");
    let mut kept = 0;
    for f in walk(&cache) {
        let text = fs::read_to_string(&f).unwrap_or_default();
        assert!(!text.contains(value), "{f:?}: {text}");
        kept += usize::from(text.contains("mcp-logs-plain"));
    }
    assert!(kept > 0, "the index was written");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A name holding a value another listed project configures as secret: `settings` and
/// `probe` show it as `scan` does (they learned only their own project's values).
#[test]
fn settings_and_probe_hide_another_projects_value_in_a_name() {
    let h = Home::new();
    let value = "Zq8xLmN2pR7vT4wK9sB3";
    let other = h.home.join("work/other");
    fs::create_dir_all(&other).unwrap();
    h.write(
        &other.join(".mcp.json"),
        json!({"mcpServers": {"leaky": {"type": "stdio", "command": "python3",
            "args": ["-c", "pass"], "env": {"API_KEY": value}}}}),
    );
    h.mcp_json(&h.proj, &[&format!("cfg-{value}")]);
    h.write(
        &h.home.join(".claude.json"),
        json!({"projects": {
            h.proj.to_str().unwrap(): {"hasTrustDialogAccepted": true},
            other.to_str().unwrap(): {"hasTrustDialogAccepted": true},
        }}),
    );
    for args in [
        &["settings"][..],
        &["settings", "--json"],
        &["probe", "--claude-version", "2.1.336", "nosuch"],
        &["probe", "--claude-version", "2.1.336"],
    ] {
        let r = h.run_in(&h.proj, args);
        assert!(!r.stdout.contains(value), "{args:?}: {}", r.stdout);
        assert!(!r.stderr.contains(value), "{args:?}: {}", r.stderr);
    }
}
