//! `mcplogs probe` and `--contract` against the discovery-lifecycle stub
//! (tests/e2e/lifecycle_stub.py): the prediction must be what Claude Code did with the
//! same stub (tests/fixtures/lifecycle/, real runs), and the contract must fail wherever
//! a modelled build loses, truncates or renames a tool, naming the builds.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{mcplogs, run};
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
    let home = tempfile::tempdir().unwrap();
    let mut cmd = mcplogs(home.path());
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
        "python3 {} --case {}",
        stub().display(),
        case.strip_suffix("-p").unwrap_or(case)
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

/// The cases a probe can replay as Claude Code ran them: not the interactive ones,
/// not the slow ones (no timed tests), not resources/prompts (the probe lists tools
/// only), not a response written ahead of its request.
/// `frame-early` is left out: the probe takes the early response as its tools/list answer
/// where every build dropped it (the probe's request ids are not Claude Code's).
const REPLAYABLE: [&str; 23] = [
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

#[test]
fn the_prediction_is_what_each_build_did_with_the_same_stub() {
    let expected: Value =
        serde_json::from_str(&fs::read_to_string(fixtures().join("expected.json")).unwrap())
            .unwrap();
    for case in REPLAYABLE {
        for build in ["2.1.288", "2.1.310", "2.1.332"] {
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
    assert_eq!(
        c["builds"],
        serde_json::json!(["2.1.288", "2.1.300", "2.1.332"])
    );
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
