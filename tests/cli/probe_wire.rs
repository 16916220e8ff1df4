//! Wire parity: the probe's requests are the ones real Claude Code sends. The captures
//! in `tests/cli/wire-captures/claude-<version>.json` were taken from Claude Code
//! 2.1.288 and 2.1.332 by `tests/e2e/capture.py` (the repo's stub with `--capture`,
//! stdio and Streamable HTTP, a server answering `server/discover` as a 2026-07-28
//! server and one answering -32601, nothing set and `MCP_PROTOCOL_NEGOTIATION=auto`).
//! Here the probe meets the same stub, in the same conditions, and its first
//! connection (the one its prediction is about) must send the same requests.
//!
//! Compared byte for byte: every stdio line; every HTTP request's method, path and
//! body. Compared by value: the HTTP headers that shape what a server does (`Accept`,
//! `Content-Type`, `mcp-method`, `mcp-protocol-version`, `mcp-session-id` and the
//! configured `X-Api-Key`), and no other `mcp-*` header may appear. Normalised, because
//! HTTP gives them no meaning or they follow from the rest: header name case and order,
//! `Host` (the port), `Content-Length` (follows from the body), `Connection`,
//! `Accept-Encoding` (Claude Code's `identity` is what no header means), and
//! `User-Agent` (the probe names itself, `mcplogs-probe/<version>`). Not replayed:
//! Claude Code's GET that opens the server-to-client SSE stream after a classic
//! handshake (docs/probe.md says so), and what it sends after `tools/list`.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::{HttpStubProcess, mcplogs, run};
use serde_json::Value;

const VERSIONS: [&str; 2] = ["2.1.288", "2.1.332"];
const SESSION: &str = "wire-capture-session-1";
const API_KEY: &str = "dummy-wire-capture-key";
/// The headers compared by value (lower case).
const COMPARED: [&str; 6] = [
    "accept",
    "content-type",
    "mcp-method",
    "mcp-protocol-version",
    "mcp-session-id",
    "x-api-key",
];
const HANDSHAKE: [&str; 4] = [
    "server/discover",
    "initialize",
    "notifications/initialized",
    "tools/list",
];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn stub() -> PathBuf {
    repo().join("scripts/samples/stub_mcp_server.py")
}

fn capture(version: &str) -> Value {
    let f = repo().join(format!("tests/cli/wire-captures/claude-{version}.json"));
    serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap()
}

fn records(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn body_method(r: &Value) -> Option<String> {
    let text = r.get("body").or_else(|| r.get("line"))?.as_str()?;
    let v: Value = serde_json::from_str(text).ok()?;
    v.get("method").and_then(Value::as_str).map(str::to_string)
}

/// The handshake and tools/list requests of a capture, in order.
fn handshake_requests(recs: &[Value]) -> Vec<Value> {
    recs.iter()
        .filter(|r| r.get("method").is_none_or(|m| m == "POST"))
        .filter(|r| body_method(r).is_some_and(|m| HANDSHAKE.contains(&m.as_str())))
        .cloned()
        .collect()
}

fn headers(r: &Value) -> BTreeMap<String, String> {
    r["headers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h[0].as_str().unwrap().to_ascii_lowercase(),
                h[1].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn http_stub(args: &[&str], cap: &Path) -> (HttpStubProcess, String) {
    let mut all: Vec<&std::ffi::OsStr> = vec!["--capture".as_ref(), cap.as_os_str()];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    let s = HttpStubProcess::start(&stub(), &all);
    let url = s.url.clone();
    (s, url)
}

/// The probe's requests to the server `name` of the captures, under `run`.
fn probe_requests(version: &str, run_name: &str, name: &str) -> Vec<Value> {
    let home = tempfile::tempdir().unwrap();
    let cap = home.path().join("capture.jsonl");
    let discover = if name.ends_with("modern") {
        "modern"
    } else {
        "error"
    };
    let mut cmd = mcplogs(home.path());
    cmd.args(["probe", "--json", "--claude-version", version])
        // before the `--` of --command, where `run` would append it
        .arg("--managed-dir")
        .arg(home.path().join("no-managed-settings"));
    if run_name == "auto" {
        cmd.env("MCP_PROTOCOL_NEGOTIATION", "auto");
    }
    let _server;
    if name.starts_with("stdio") {
        cmd.args(["--command", "python3", "--"])
            .arg(stub())
            .arg("--capture")
            .arg(&cap)
            .args(["--discover", discover]);
    } else {
        let mut args = vec!["--discover", discover];
        if discover == "error" {
            args.extend(["--session-id", SESSION]);
        }
        let (s, url) = http_stub(&args, &cap);
        _server = s;
        cmd.args(["--url", &url, "--header", &format!("X-Api-Key: {API_KEY}")]);
    }
    let r = run(&mut cmd);
    assert!(r.code == 0, "{name}: probe exit {}\n{}", r.code, r.stdout);
    let recs = records(&cap);
    // the first connection: stdio, the first process; HTTP, up to the second handshake
    let first: Vec<Value> = if name.starts_with("stdio") {
        let pid = recs[0]["pid"].clone();
        recs.into_iter().filter(|r| r["pid"] == pid).collect()
    } else {
        recs
    };
    let mut reqs = handshake_requests(&first);
    if let Some(end) = reqs
        .iter()
        .position(|r| body_method(r).as_deref() == Some("tools/list"))
    {
        reqs.truncate(end + 1);
    }
    reqs
}

#[test]
fn the_probe_sends_what_each_claude_code_build_sends() {
    let mut checked = 0;
    for version in VERSIONS {
        let doc = capture(version);
        assert_eq!(doc["claudeVersion"], version);
        for (run_name, servers) in doc["runs"].as_object().unwrap() {
            for (name, recs) in servers.as_object().unwrap() {
                let want = handshake_requests(recs.as_array().unwrap());
                assert!(
                    !want.is_empty(),
                    "{version} {run_name} {name}: empty capture"
                );
                let got = probe_requests(version, run_name, name);
                let at = format!("Claude Code {version}, {run_name}, {name}");
                let methods = |v: &[Value]| v.iter().map(body_method).collect::<Vec<_>>();
                assert_eq!(methods(&got), methods(&want), "{at}: the requests");
                for (g, w) in got.iter().zip(&want) {
                    let m = body_method(w).unwrap();
                    if let Some(line) = w.get("line") {
                        assert_eq!(g["line"], *line, "{at}, {m}: the stdio line");
                        continue;
                    }
                    assert_eq!(g["method"], w["method"], "{at}, {m}: the HTTP method");
                    assert_eq!(g["path"], w["path"], "{at}, {m}: the path");
                    assert_eq!(g["body"], w["body"], "{at}, {m}: the body");
                    let (gh, wh) = (headers(g), headers(w));
                    for h in COMPARED {
                        assert_eq!(gh.get(h), wh.get(h), "{at}, {m}: header {h}");
                    }
                    for h in gh.keys().filter(|h| h.starts_with("mcp-")) {
                        assert!(wh.contains_key(h), "{at}, {m}: Claude Code sends no {h}");
                    }
                    checked += 1;
                }
                checked += usize::from(want[0].get("line").is_some()) * want.len();
            }
        }
    }
    assert!(checked >= 40, "{checked} requests compared");
}
