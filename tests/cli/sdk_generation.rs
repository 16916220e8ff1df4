//! `MCP_SDK_GENERATION` (issue 54): `v1` gives every observed build the classic
//! handshake, over `MCP_PROTOCOL_NEGOTIATION=auto` too (tests/fixtures/lifecycle/sdk-v1-*,
//! real runs on 2.1.288, 2.1.310, 2.1.322, 2.1.323 and 2.1.332). The probe reads it from
//! the environment and the settings layers as Claude Code does, predicts with it, and
//! says so.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{mcplogs, run};
use serde_json::Value;

fn stub() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/lifecycle_stub.py")
}

/// `probe --json` of the stub case `tools-modern-missing` (a 2026-07-28 server whose
/// tools/list lacks resultType/ttlMs/cacheScope) under `MCP_PROTOCOL_NEGOTIATION=auto`,
/// with `env` and a user settings `env` block: the document and stderr.
fn probe(version: &str, env: &[(&str, &str)], user_env: Option<&str>) -> (Value, String) {
    let home = tempfile::tempdir().unwrap();
    if let Some(e) = user_env {
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
    cmd.env("MCP_PROTOCOL_NEGOTIATION", "auto")
        .args(["probe", "--json", "--claude-version", version, "--command"])
        .arg(format!(
            "python3 {} --case tools-modern-missing",
            stub().display()
        ));
    let r = run(&mut cmd);
    let doc = crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &r.stdout);
    (doc, r.stderr)
}

fn verdict(doc: &Value) -> &str {
    doc["servers"][0]["prediction"]["verdict"].as_str().unwrap()
}

#[test]
fn v1_from_the_environment_predicts_the_classic_handshake_on_every_build() {
    // without it, 2.1.288 rejects the list (fixture tools-modern-missing/2.1.288)
    let (doc, _) = probe("2.1.288", &[], None);
    assert_eq!(verdict(&doc), "tools-fetch-failed", "{doc:#}");
    assert_eq!(doc["sdkGeneration"]["value"], Value::Null);
    for (build, words) in [
        ("2.1.288", "older MCP client"),
        ("2.1.322", "older MCP client"),
        ("2.1.323", "forces the legacy handshake"),
        ("2.1.332", "forces the legacy handshake"),
    ] {
        let (doc, stderr) = probe(build, &[("MCP_SDK_GENERATION", "v1")], None);
        // the fixtures sdk-v1-missing: 3 tools on 2.1.288, 2.1.310 and 2.1.332
        assert_eq!(verdict(&doc), "healthy", "{build}: {doc:#}");
        assert_eq!(doc["sdkGeneration"]["value"], "v1");
        assert_eq!(doc["sdkGeneration"]["decidedBy"], "environment");
        let note = doc["sdkGeneration"]["note"].as_str().unwrap();
        assert!(note.contains(words), "{build}: {note}");
        assert!(stderr.contains(words), "{build}: {stderr}");
    }
}

#[test]
fn v1_from_the_user_settings_counts_and_other_values_change_nothing() {
    let (doc, _) = probe("2.1.288", &[], Some(r#"{"MCP_SDK_GENERATION": "v1"}"#));
    assert_eq!(verdict(&doc), "healthy", "{doc:#}");
    // the throwaway home is also the project folder: its settings file is both layers
    assert!(
        doc["sdkGeneration"]["decidedBy"]
            .as_str()
            .unwrap()
            .ends_with(".claude/settings.json)"),
        "{doc:#}"
    );
    // the settings layer outranks the shell, as for MCP_PROTOCOL_NEGOTIATION
    let (doc, _) = probe(
        "2.1.288",
        &[("MCP_SDK_GENERATION", "v1")],
        Some(r#"{"MCP_SDK_GENERATION": "v2"}"#),
    );
    assert_eq!(verdict(&doc), "tools-fetch-failed", "{doc:#}");
    // a value Claude Code ignores
    let (doc, stderr) = probe("2.1.288", &[("MCP_SDK_GENERATION", "v3")], None);
    assert_eq!(verdict(&doc), "tools-fetch-failed", "{doc:#}");
    assert!(stderr.contains("neither v1 nor v2"), "{stderr}");
}
