//! The probe and the negotiation flags Claude Code caches in `~/.claude.json` (issue 54):
//! with `MCP_PROTOCOL_NEGOTIATION` unset, `tengu_mcp_protocol_negotiation_stdio` /
//! `_http` pick the handshake of each transport and `tengu_mcp_negotiation_server_denylist`
//! gives the servers it names the legacy one, as observed on 2.1.287, 2.1.310 and 2.1.336
//! (tests/e2e/flags.py, tests/fixtures/flags/). The probe honours them, names each flag
//! its prediction rests on (`flags` in `probe --json`, a note on stderr) and says
//! `read: false` when `.claude.json` does not hold it.

use std::fs;
use std::path::Path;

use crate::common::{RefusingPort, mcplogs, run};
use serde_json::{Value, json};

/// `probe --json` of `server` (`--command ...` or `--url ...`) on `version`, with
/// `.claude.json` holding `cached` as its `cachedGrowthBookFeatures` (None: no file).
fn probe(
    version: &str,
    cached: Option<Value>,
    env: &[(&str, &str)],
    server: &[String],
) -> (Value, String) {
    let home = tempfile::tempdir().unwrap();
    if let Some(f) = cached {
        fs::write(
            home.path().join(".claude.json"),
            json!({ "cachedGrowthBookFeatures": f }).to_string(),
        )
        .unwrap();
    }
    let mut cmd = mcplogs(home.path());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.args(["probe", "--json", "--claude-version", version])
        .args(server);
    let r = run(&mut cmd);
    let doc = crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &r.stdout);
    (doc, r.stderr)
}

/// A stdio server that speaks only 2026-07-28: healthy when negotiated, failing under the
/// legacy handshake.
fn modern_only() -> Vec<String> {
    let stub = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/modern_only_stub.py");
    vec![
        "--command".into(),
        format!("python3 {} answer", stub.display()),
    ]
}

fn handshake(doc: &Value) -> &str {
    doc["servers"][0]["prediction"]["handshake"]
        .as_str()
        .unwrap()
}

fn verdict(doc: &Value) -> &str {
    doc["servers"][0]["prediction"]["verdict"].as_str().unwrap()
}

fn flag<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["flags"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no flag {name}: {doc:#}"))
}

const STDIO: &str = "tengu_mcp_protocol_negotiation_stdio";
const HTTP: &str = "tengu_mcp_protocol_negotiation_http";
const DENY: &str = "tengu_mcp_negotiation_server_denylist";

#[test]
fn a_cached_stdio_flag_picks_the_handshake_on_either_side_of_the_default() {
    // 2.1.336 negotiates stdio by default: a cached false gives legacy (fixture stdio-false)
    let (doc, stderr) = probe(
        "2.1.336",
        Some(json!({ STDIO: false })),
        &[],
        &modern_only(),
    );
    assert_eq!(handshake(&doc), "legacy", "{doc:#}");
    assert_ne!(verdict(&doc), "healthy", "{doc:#}");
    assert_eq!(flag(&doc, STDIO)["read"], true);
    assert_eq!(flag(&doc, STDIO)["value"], "false");
    assert!(stderr.contains(STDIO), "{stderr}");
    // nothing cached: the default, and the flag said unread
    let (doc, stderr) = probe("2.1.336", Some(json!({})), &[], &modern_only());
    assert_eq!(verdict(&doc), "healthy", "{doc:#}");
    assert_eq!(flag(&doc, STDIO)["read"], false);
    assert_eq!(flag(&doc, STDIO)["value"], Value::Null);
    assert!(
        flag(&doc, STDIO)["note"]
            .as_str()
            .unwrap()
            .contains("not cached")
    );
    assert!(stderr.contains("could not read"), "{stderr}");
    // 2.1.287 does not negotiate stdio by default: a cached true does (fixture stdio-true)
    let (doc, _) = probe("2.1.287", Some(json!({ STDIO: true })), &[], &modern_only());
    assert_eq!(verdict(&doc), "healthy", "{doc:#}");
    let (doc, _) = probe("2.1.287", None, &[], &modern_only());
    assert_ne!(verdict(&doc), "healthy", "{doc:#}");
    assert!(
        flag(&doc, STDIO)["note"]
            .as_str()
            .unwrap()
            .contains("unreadable or absent"),
        "{doc:#}"
    );
    // a string is not a boolean: the default (fixture stdio-string)
    let (doc, _) = probe(
        "2.1.310",
        Some(json!({ STDIO: "false" })),
        &[],
        &modern_only(),
    );
    assert_eq!(verdict(&doc), "healthy", "{doc:#}");
    assert_eq!(flag(&doc, STDIO)["value"], "not a boolean");
}

#[test]
fn the_negotiation_setting_outranks_the_flags_and_the_denylist() {
    // fixtures stdio-true-settings-legacy, http-false-env-auto, deny-star-env-auto
    for (cached, setting, want) in [
        (json!({ STDIO: false }), "auto", "healthy"),
        (json!({ DENY: ["*"] }), "auto", "healthy"),
        (json!({ STDIO: true }), "legacy", "legacy"),
    ] {
        let (doc, stderr) = probe(
            "2.1.310",
            Some(cached.clone()),
            &[("MCP_PROTOCOL_NEGOTIATION", setting)],
            &modern_only(),
        );
        let names: Vec<&Value> = doc["flags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| &f["name"])
            .collect();
        assert!(
            !names
                .iter()
                .any(|n| n.as_str().unwrap().starts_with("tengu_mcp")),
            "{cached} {setting}: {doc:#}"
        );
        assert!(!stderr.contains("tengu_mcp"), "{stderr}");
        if want == "legacy" {
            assert_eq!(handshake(&doc), "legacy", "{doc:#}");
        } else {
            assert_eq!(verdict(&doc), want, "{cached} {setting}: {doc:#}");
        }
    }
}

#[test]
fn the_denylist_gives_the_servers_it_names_the_legacy_handshake() {
    // `*` names a stdio server too (fixture deny-star)
    let (doc, stderr) = probe("2.1.336", Some(json!({ DENY: ["*"] })), &[], &modern_only());
    assert_eq!(handshake(&doc), "legacy", "{doc:#}");
    let d = flag(&doc, DENY);
    assert_eq!(d["read"], true);
    assert_eq!(d["value"], "a list of 1 entry");
    assert!(stderr.contains("gives it the legacy handshake"), "{stderr}");
    // a host names an HTTP server on it, not a stdio one (fixture deny-host)
    let port = RefusingPort::new();
    let url = format!("http://{}/mcp", port.addr);
    let server = vec!["--url".to_string(), url];
    let (doc, _) = probe(
        "2.1.336",
        Some(json!({ DENY: ["127.0.0.1"] })),
        &[],
        &server,
    );
    assert_eq!(handshake(&doc), "legacy", "{doc:#}");
    let (doc, _) = probe(
        "2.1.336",
        Some(json!({ DENY: ["example.com"] })),
        &[],
        &server,
    );
    assert_ne!(handshake(&doc), "legacy", "{doc:#}");
    assert!(
        flag(&doc, DENY)["note"]
            .as_str()
            .unwrap()
            .contains("names none"),
        "{doc:#}"
    );
    let (doc, _) = probe(
        "2.1.336",
        Some(json!({ DENY: ["127.0.0.1"] })),
        &[],
        &modern_only(),
    );
    assert_eq!(verdict(&doc), "healthy", "{doc:#}");
    // the HTTP flag false (fixture http-false); unread, both flags are named
    let (doc, _) = probe("2.1.287", Some(json!({ HTTP: false })), &[], &server);
    assert_eq!(handshake(&doc), "legacy", "{doc:#}");
    assert_eq!(flag(&doc, HTTP)["value"], "false");
    let (doc, _) = probe("2.1.287", None, &[], &server);
    assert_ne!(handshake(&doc), "legacy", "{doc:#}");
    assert_eq!(flag(&doc, HTTP)["read"], false);
    assert_eq!(flag(&doc, DENY)["read"], false);
}

#[test]
fn flags_turned_off_by_the_telemetry_switches_are_not_honoured() {
    // fixture stdio-false-flags-off: DISABLE_TELEMETRY (with
    // CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC) and Claude Code reads every flag's default
    let cached = json!({ STDIO: false, DENY: ["*"] });
    let (doc, stderr) = probe(
        "2.1.336",
        Some(cached.clone()),
        &[("DISABLE_TELEMETRY", "1")],
        &modern_only(),
    );
    assert_eq!(verdict(&doc), "healthy", "{doc:#}");
    assert!(
        flag(&doc, STDIO)["note"]
            .as_str()
            .unwrap()
            .contains("not in effect"),
        "{doc:#}"
    );
    assert!(stderr.contains("DISABLE_TELEMETRY"), "{stderr}");
    // ...unless CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF makes the cache count again
    let (doc, _) = probe(
        "2.1.336",
        Some(cached),
        &[
            ("DISABLE_TELEMETRY", "1"),
            ("CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF", "1"),
        ],
        &modern_only(),
    );
    assert_eq!(handshake(&doc), "legacy", "{doc:#}");
    // the client flag too: cached false, flags off, the default client (which negotiates
    // under `auto`; the older one would not)
    let (doc, _) = probe(
        "2.1.288",
        Some(json!({ "tengu_brindle_causeway": false })),
        &[
            ("DISABLE_TELEMETRY", "1"),
            ("MCP_PROTOCOL_NEGOTIATION", "auto"),
        ],
        &modern_only(),
    );
    assert_ne!(handshake(&doc), "legacy", "{doc:#}");
    assert!(
        flag(&doc, "tengu_brindle_causeway")["note"]
            .as_str()
            .unwrap()
            .contains("not in effect"),
        "{doc:#}"
    );
}

/// `fix`'s reason for `auto` (scan's advice) names the cached flag that gave a server
/// that speaks only 2026-07-28 the legacy handshake, resolved as the probe resolves it.
#[test]
fn the_fix_names_the_cached_flag_that_gave_the_legacy_handshake() {
    for (features, env, want) in [
        (
            json!({ STDIO: false }),
            None,
            "but the feature flag tengu_mcp_protocol_negotiation_stdio cached false",
        ),
        (
            json!({ DENY: ["*"] }),
            None,
            "but the feature flag tengu_mcp_negotiation_server_denylist cached in .claude.json names it",
        ),
        (
            json!({ STDIO: false }),
            Some("DISABLE_TELEMETRY"),
            "nothing sets legacy now: its log",
        ),
        (json!({}), None, "nothing sets legacy now: its log"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("me");
        let proj = home.join("work/proj");
        let elsewhere = dir.path().join("elsewhere");
        fs::create_dir_all(home.join(".claude")).unwrap();
        fs::create_dir_all(&proj).unwrap();
        fs::create_dir_all(&elsewhere).unwrap();
        let slug: String = proj
            .display()
            .to_string()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let logs = home
            .join(".cache/claude-cli-nodejs")
            .join(slug)
            .join("mcp-logs-newonly");
        fs::create_dir_all(&logs).unwrap();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fix-engine/modern-only-answer-2.1.332.jsonl");
        let cwd = serde_json::to_string(&proj.display().to_string()).unwrap();
        let text = fs::read_to_string(fixture)
            .unwrap()
            .replace("\"/PROJECT\"", &cwd);
        fs::write(logs.join("2026-12-05T17-55-35-642Z.jsonl"), text).unwrap();
        let doc = json!({
            "hasCompletedOnboarding": true,
            "mcpServers": { "newonly": { "type": "stdio", "command": "/bin/true", "args": [] } },
            "projects": { proj.display().to_string(): { "hasTrustDialogAccepted": true } },
            "cachedGrowthBookFeatures": features,
        });
        fs::write(home.join(".claude.json"), doc.to_string()).unwrap();
        let mut cmd = mcplogs(&home);
        cmd.env("XDG_CACHE_HOME", home.join(".cache"))
            .current_dir(&elsewhere)
            .args(["fix", "--claude-version", "2.1.332"]);
        if let Some(v) = env {
            cmd.env(v, "1");
        }
        let r = run(&mut cmd);
        let out = format!("{}{}", r.stdout, r.stderr);
        assert!(out.contains("(modern-negotiation)"), "{features}: {out}");
        assert!(out.contains(want), "{features} {env:?}: {out}");
    }
}
