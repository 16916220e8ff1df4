//! The probe and the feature flags Claude Code caches in `~/.claude.json` (issue 54): on
//! a build with two MCP clients, with `MCP_SDK_GENERATION` unset, the client is picked by
//! `tengu_brindle_causeway` (false: v1, the classic handshake). The probe honours the
//! cached value and says when it could not read it (a line on stderr, `flags` in
//! `probe --json`).

use std::fs;
use std::path::Path;

use crate::common::{mcplogs, run};
use serde_json::Value;

/// `probe --json` of the stub case `tools-modern-missing` (rejected by 2.1.288 under
/// `auto`, loaded by its v1 client) with `.claude.json` holding `claude_json`.
fn probe(version: &str, claude_json: Option<Value>, env: &[(&str, &str)]) -> (Value, String) {
    let home = tempfile::tempdir().unwrap();
    if let Some(doc) = claude_json {
        fs::write(home.path().join(".claude.json"), doc.to_string()).unwrap();
    }
    let mut cmd = mcplogs(home.path());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let stub = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/lifecycle_stub.py");
    cmd.env("MCP_PROTOCOL_NEGOTIATION", "auto")
        .args(["probe", "--json", "--claude-version", version, "--command"])
        .arg(format!(
            "python3 {} --case tools-modern-missing",
            stub.display()
        ));
    let r = run(&mut cmd);
    let doc = crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &r.stdout);
    (doc, r.stderr)
}

fn verdict(doc: &Value) -> &str {
    doc["servers"][0]["prediction"]["verdict"].as_str().unwrap()
}

fn cached(flag: Value) -> Option<Value> {
    Some(serde_json::json!({"cachedGrowthBookFeatures": {"tengu_brindle_causeway": flag}}))
}

#[test]
fn an_unread_client_flag_is_said_and_the_default_assumed() {
    for claude_json in [
        None,
        Some(serde_json::json!({"cachedGrowthBookFeatures": {}})),
    ] {
        let (doc, stderr) = probe("2.1.288", claude_json.clone(), &[]);
        assert_eq!(verdict(&doc), "tools-fetch-failed", "{doc:#}");
        let f = &doc["flags"][0];
        assert_eq!(f["name"], "tengu_brindle_causeway", "{doc:#}");
        assert_eq!(f["read"], false);
        assert_eq!(f["value"], Value::Null);
        let note = f["note"].as_str().unwrap();
        assert!(note.contains("could not read"), "{note}");
        assert!(
            stderr.contains("tengu_brindle_causeway") && stderr.contains("could not read"),
            "{stderr}"
        );
    }
}

#[test]
fn a_cached_client_flag_is_honoured() {
    // false: the older client, whose classic handshake loads the tools
    let (doc, stderr) = probe("2.1.288", cached(Value::Bool(false)), &[]);
    assert_eq!(verdict(&doc), "healthy", "{doc:#}");
    assert_eq!(doc["flags"][0]["read"], true);
    assert_eq!(doc["flags"][0]["value"], "false");
    assert!(stderr.contains("older MCP client (v1)"), "{stderr}");
    // true: the default client
    let (doc, _) = probe("2.1.288", cached(Value::Bool(true)), &[]);
    assert_eq!(verdict(&doc), "tools-fetch-failed", "{doc:#}");
    assert_eq!(doc["flags"][0]["value"], "true");
    // MCP_SDK_GENERATION set: the flag does not decide
    let (doc, _) = probe(
        "2.1.288",
        cached(Value::Bool(false)),
        &[("MCP_SDK_GENERATION", "v2")],
    );
    assert_eq!(doc["flags"], serde_json::json!([]), "{doc:#}");
    assert_eq!(verdict(&doc), "tools-fetch-failed", "{doc:#}");
    // a build with one client: no flag to depend on
    let (doc, stderr) = probe("2.1.332", None, &[]);
    assert_eq!(doc["flags"], serde_json::json!([]), "{doc:#}");
    assert!(!stderr.contains("tengu_brindle_causeway"), "{stderr}");
}
