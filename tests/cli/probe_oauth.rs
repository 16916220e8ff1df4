//! `probe` of a remote server that answers 401 follows the OAuth discovery Claude Code
//! follows (issue 52): the protected-resource metadata, the authorization server's
//! metadata, the registration endpoint, in the order 2.1.287 and 2.1.336 were seen to ask
//! them; names the first failing step with the cause `scan` gives the same server's real
//! log (tests/fixtures/remote/), with the same advice; sends no configured header to any
//! metadata URL, follows no redirect to another origin, registers nothing; and reads
//! hostile metadata (huge, deep, of the wrong shape, with escapes) as a step failure.
//!
//! The servers are a loopback stub written here (plain HTTP, port 0): every request it
//! gets is kept, so a test asserts what was and was not sent.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::common::*;
use serde_json::{Value, json};

/// One request a stub got.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    /// Header names in lower case, with their values.
    headers: Vec<(String, String)>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// An answer: status, extra headers, body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn answer(status: u16, body: Value) -> Answer {
    Answer {
        status,
        headers: Vec::new(),
        body: body.to_string().into_bytes(),
    }
}

type Handler = dyn Fn(&Seen) -> Answer + Send + Sync;

/// A loopback HTTP server on a port the system picks: one request a connection, each
/// kept in `seen`, answered by `handler`.
struct Stub {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Stub {
    fn start(handler: Arc<Handler>) -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (seen.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if st.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (s, h) = (s.clone(), handler.clone());
                std::thread::spawn(move || serve(conn, &s, &*h));
            }
        });
        Stub {
            port,
            seen,
            stop,
            thread: Some(thread),
        }
    }

    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// `METHOD /path` of every request, in order.
    fn lines(&self) -> Vec<String> {
        self.seen()
            .iter()
            .map(|s| format!("{} {}", s.method, s.path))
            .collect()
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // wakes the accept loop, which then sees `stop`
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(conn: TcpStream, seen: &Mutex<Vec<Seen>>, handler: &Handler) {
    let mut r = BufReader::new(conn.try_clone().expect("clone"));
    let mut first = String::new();
    if r.read_line(&mut first).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = first.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        let mut l = String::new();
        if r.read_line(&mut l).unwrap_or(0) == 0 {
            return;
        }
        let l = l.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    let _ = r.read_exact(&mut body);
    let req = Seen {
        method,
        path,
        headers,
    };
    seen.lock().unwrap().push(req.clone());
    let a = handler(&req);
    let mut out = conn;
    let mut head = format!(
        "HTTP/1.1 {} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        a.status,
        a.body.len()
    );
    for (k, v) in &a.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(&a.body);
    let _ = out.flush();
}

/// What the authorization server of a mode serves.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// 401 + resource_metadata, both documents, registration advertised.
    OAuth,
    /// 401 without resource_metadata, every metadata document 404.
    Meta404,
    /// Resource metadata, authorization-server metadata 404.
    AsMeta404,
    /// Authorization-server metadata without registration_endpoint.
    NoRegistration,
    /// 401 to a request with an Authorization header; no metadata.
    Static401,
    /// 403 to every request.
    Static403,
}

fn as_metadata(base: &str, registration: bool) -> Value {
    let mut doc = json!({"issuer": base, "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"), "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"]});
    if registration {
        doc["registration_endpoint"] = json!(format!("{base}/register"));
    }
    doc
}

/// A protected resource and its authorization server in one origin, as
/// tests/e2e/remote_stub.py serves them (`--auth MODE`).
fn one_origin(mode: Mode) -> Stub {
    let base = Arc::new(Mutex::new(String::new()));
    let b = base.clone();
    let stub = Stub::start(Arc::new(move |req: &Seen| {
        let base = b.lock().unwrap().clone();
        let path = req.path.split('?').next().unwrap_or("");
        let www = |with_meta: bool| {
            let mut v = "Bearer realm=\"mcplogs\"".to_string();
            if with_meta {
                v.push_str(&format!(
                    ", resource_metadata=\"{base}/.well-known/oauth-protected-resource\""
                ));
            }
            v
        };
        match (req.method.as_str(), path, mode) {
            (_, "/mcp", Mode::Static403) => answer(403, json!({"error": "insufficient_scope"})),
            ("POST", "/mcp", _) => {
                let mut a = answer(401, json!({"error": "invalid_token"}));
                a.headers.push((
                    "WWW-Authenticate".into(),
                    match mode {
                        Mode::Static401 => "Bearer error=\"invalid_token\"".into(),
                        Mode::Meta404 => www(false),
                        _ => www(true),
                    },
                ));
                a
            }
            ("GET", p, Mode::OAuth | Mode::AsMeta404 | Mode::NoRegistration)
                if p.starts_with("/.well-known/oauth-protected-resource") =>
            {
                answer(
                    200,
                    json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]}),
                )
            }
            ("GET", p, Mode::OAuth | Mode::NoRegistration)
                if p.starts_with("/.well-known/oauth-authorization-server")
                    || p.starts_with("/.well-known/openid-configuration") =>
            {
                answer(200, as_metadata(&base, mode == Mode::OAuth))
            }
            ("POST", "/register", _) => answer(201, json!({"client_id": "x"})),
            _ => answer(404, json!({"error": "not_found"})),
        }
    }));
    *base.lock().unwrap() = stub.base();
    stub
}

/// A home whose `~/.claude.json` configures `name` at `url` (with `headers`).
fn home_with(dir: &Path, name: &str, url: &str, headers: Option<Value>) -> PathBuf {
    let home = dir.join(format!("home-{name}"));
    fs::create_dir_all(&home).unwrap();
    let mut cfg = json!({"type": "http", "url": url});
    if let Some(h) = headers {
        cfg["headers"] = h;
    }
    fs::write(
        home.join(".claude.json"),
        json!({"mcpServers": {name: cfg}}).to_string(),
    )
    .unwrap();
    home
}

fn probe_json(home: &Path, name: &str) -> (Run, Value) {
    let (r, doc) = run_json(mcplogs(home).args(["probe", name, "--timeout", "20s", "--json"]));
    let s = doc["servers"][0].clone();
    (r, s)
}

fn steps(s: &Value) -> Vec<(String, Option<u64>, String)> {
    s["oauth"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|st| {
            (
                st["step"].as_str().unwrap().to_string(),
                st["status"].as_u64(),
                st["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn step(kind: &str, status: Option<u64>, outcome: &str) -> (String, Option<u64>, String) {
    (kind.to_string(), status, outcome.to_string())
}

/// The requests of the discovery (the MCP POSTs left out).
fn discovery_requests(stub: &Stub) -> Vec<String> {
    stub.lines()
        .into_iter()
        .filter(|l| !l.ends_with(" /mcp"))
        .collect()
}

#[test]
fn a_401_with_metadata_and_registration_needs_a_sign_in_with_scans_advice() {
    let tmp = tempfile::tempdir().unwrap();
    let stub = one_origin(Mode::OAuth);
    let home = home_with(
        tmp.path(),
        "oauth-401",
        &format!("{}/mcp", stub.base()),
        None,
    );
    let (r, s) = probe_json(&home, "oauth-401");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(s["prediction"]["verdict"], "connection-failed");
    assert_eq!(s["prediction"]["cause"], "needs-auth", "{s}");
    let o = &s["oauth"];
    assert_eq!(o["cause"], "needs-auth");
    assert_eq!(o["failedStep"], Value::Null);
    assert_eq!(o["registration"], "advertised");
    assert_eq!(o["registered"], false);
    assert_eq!(
        o["registrationEndpoint"],
        json!(format!("{}/register", stub.base()))
    );
    assert_eq!(
        steps(&s),
        vec![
            step("resource-metadata", Some(200), "found"),
            step("auth-server-metadata", Some(200), "found"),
            step("registration", None, "advertised"),
        ]
    );
    // the order Claude Code asked them (observed), and nothing registered
    assert_eq!(
        discovery_requests(&stub),
        vec![
            "GET /.well-known/oauth-protected-resource",
            "GET /.well-known/oauth-authorization-server",
        ]
    );
    assert!(
        s["prediction"]["recommendation"]
            .as_str()
            .unwrap()
            .contains("sign in with `claude mcp login oauth-401`"),
        "{s}"
    );
    // the text names the steps, at 80 columns too, without colour when piped
    let r = run(mcplogs(&home)
        .args(["probe", "oauth-401", "--timeout", "20s"])
        .env("NO_COLOR", "1"));
    assert!(!r.stdout.contains('\u{1b}'), "{}", r.stdout);
    for want in [
        "OAuth discovery as Claude Code",
        "ok   200 resource metadata",
        "ok   200 auth server metadata",
        "registration http://127.0.0.1:",
        "connection-failed (needs-auth)",
        "`claude mcp login oauth-401`",
    ] {
        assert!(r.stdout.contains(want), "{want:?} in:\n{}", r.stdout);
    }
}

#[test]
fn resource_metadata_404_falls_back_to_the_origin_as_claude_code_does() {
    let tmp = tempfile::tempdir().unwrap();
    let stub = one_origin(Mode::Meta404);
    let url = format!("{}/mcp", stub.base());
    let (_, s) = probe_json(&home_with(tmp.path(), "meta", &url, None), "meta");
    assert_eq!(s["prediction"]["cause"], "needs-auth", "{s}");
    assert_eq!(s["oauth"]["failedStep"], "resource-metadata");
    assert_eq!(s["oauth"]["decidingStep"], Value::Null);
    assert_eq!(s["oauth"]["registration"], "default");
    assert_eq!(
        steps(&s),
        vec![
            step("resource-metadata", Some(404), "not-found"),
            step("resource-metadata", Some(404), "fall-back"),
            step("auth-server-metadata", Some(404), "not-found"),
            step("auth-server-metadata", Some(404), "not-found"),
            step("registration", None, "default"),
        ]
    );
    // exactly the requests 2.1.287 and 2.1.336 made, in their order, but the
    // registration Claude Code then made at the default /register
    assert_eq!(
        discovery_requests(&stub),
        vec![
            "GET /.well-known/oauth-protected-resource/mcp",
            "GET /.well-known/oauth-protected-resource",
            "GET /.well-known/oauth-authorization-server",
            "GET /.well-known/openid-configuration",
        ]
    );
    assert!(
        s["prediction"]["reason"]
            .as_str()
            .unwrap()
            .contains("first failing step: resource metadata, HTTP 404"),
        "{s}"
    );
}

#[test]
fn authorization_server_metadata_404_is_named_and_still_needs_a_sign_in() {
    let tmp = tempfile::tempdir().unwrap();
    let stub = one_origin(Mode::AsMeta404);
    let url = format!("{}/mcp", stub.base());
    let (_, s) = probe_json(&home_with(tmp.path(), "asmeta", &url, None), "asmeta");
    assert_eq!(s["prediction"]["cause"], "needs-auth", "{s}");
    assert_eq!(s["oauth"]["failedStep"], "auth-server-metadata");
    assert_eq!(
        steps(&s),
        vec![
            step("resource-metadata", Some(200), "found"),
            step("auth-server-metadata", Some(404), "not-found"),
            step("auth-server-metadata", Some(404), "not-found"),
            step("registration", None, "default"),
        ]
    );
}

#[test]
fn metadata_without_registration_endpoint_is_oauth_no_registration() {
    let tmp = tempfile::tempdir().unwrap();
    let stub = one_origin(Mode::NoRegistration);
    let url = format!("{}/mcp", stub.base());
    let (r, s) = probe_json(&home_with(tmp.path(), "noreg", &url, None), "noreg");
    assert_eq!(r.code, 1);
    assert_eq!(s["prediction"]["cause"], "oauth-no-registration", "{s}");
    assert_eq!(s["oauth"]["failedStep"], "registration");
    assert_eq!(s["oauth"]["decidingStep"], "registration");
    assert_eq!(s["oauth"]["registration"], "missing");
    let rec = s["prediction"]["recommendation"].as_str().unwrap();
    assert!(
        rec.contains(&format!("--client-id <client id> noreg {url}")),
        "{rec}"
    );
}

/// The resource's metadata names an authorization server on another origin (another
/// port), whose first metadata URL redirects back to the resource's origin: no
/// configured header reaches either metadata URL, the redirect is not followed, and a
/// configured Authorization header keeps Claude Code (and the probe) from any OAuth.
#[test]
fn no_configured_header_goes_to_a_metadata_url_and_no_redirect_crosses_origins() {
    let tmp = tempfile::tempdir().unwrap();
    let resource_base = Arc::new(Mutex::new(String::new()));
    let rb = resource_base.clone();
    let auth = Stub::start(Arc::new(move |req: &Seen| {
        let base = rb.lock().unwrap().clone();
        match req.path.as_str() {
            "/.well-known/oauth-authorization-server" => Answer {
                status: 302,
                headers: vec![(
                    "Location".into(),
                    format!("{base}/.well-known/oauth-authorization-server"),
                )],
                body: Vec::new(),
            },
            "/.well-known/openid-configuration" => answer(200, as_metadata("http://as", true)),
            _ => answer(404, json!({})),
        }
    }));
    let auth_base = auth.base();
    let resource = Stub::start(Arc::new(move |req: &Seen| {
        let path = req.path.as_str();
        if path == "/mcp" {
            let mut a = answer(401, json!({}));
            a.headers.push((
                "WWW-Authenticate".into(),
                "Bearer resource_metadata=\"/not-absolute\"".into(),
            ));
            return a;
        }
        if path.starts_with("/.well-known/oauth-protected-resource") {
            return answer(
                200,
                json!({"resource": "x", "authorization_servers": [auth_base.clone()]}),
            );
        }
        answer(404, json!({}))
    }));
    *resource_base.lock().unwrap() = resource.base();
    let secret = "xk-9f8e7d6c5b4a39281706f5e4d3c2b1a0";
    let home = home_with(
        tmp.path(),
        "cross",
        &format!("{}/mcp", resource.base()),
        Some(json!({"X-Api-Key": secret, "Cookie": format!("session={secret}")})),
    );
    let (_, s) = probe_json(&home, "cross");
    assert_eq!(s["prediction"]["cause"], "needs-auth", "{s}");
    assert_eq!(
        steps(&s),
        vec![
            step("resource-metadata", Some(200), "found"),
            step("auth-server-metadata", Some(302), "not-found"),
            step("auth-server-metadata", Some(200), "found"),
            step("registration", None, "advertised"),
        ]
    );
    assert_eq!(
        s["oauth"]["headersSent"],
        json!(["Accept", "MCP-Protocol-Version"])
    );
    // the configured headers went to the MCP endpoint only
    for req in resource.seen().iter().chain(auth.seen().iter()) {
        let to_mcp = req.path == "/mcp";
        for h in ["authorization", "x-api-key", "cookie"] {
            assert!(
                to_mcp || req.header(h).is_none(),
                "{h} sent to {} {}",
                req.method,
                req.path
            );
        }
        if to_mcp {
            assert_eq!(req.header("x-api-key"), Some(secret));
        }
    }
    assert!(auth.seen().iter().all(|r| r.method == "GET"));
    // the redirect to the resource's origin was not followed
    assert_eq!(
        discovery_requests(&resource),
        vec!["GET /.well-known/oauth-protected-resource/mcp"],
        "{:?}",
        resource.lines()
    );

    // a configured Authorization header, refused: no discovery at all
    let auth_seen = auth.seen().len();
    let home = home_with(
        tmp.path(),
        "static",
        &format!("{}/mcp", resource.base()),
        Some(json!({"Authorization": format!("Bearer {secret}")})),
    );
    let (_, s) = probe_json(&home, "static");
    assert_eq!(s["prediction"]["cause"], "auth-header-rejected", "{s}");
    assert_eq!(s["oauth"], Value::Null);
    assert_eq!(auth.seen().len(), auth_seen, "{:?}", auth.lines());
    assert!(
        resource
            .seen()
            .iter()
            .filter(|r| r.header("authorization").is_some())
            .all(|r| r.path == "/mcp")
    );
    assert!(!s.to_string().contains(secret), "{s}");
}

/// An authorization server that answers at none of its metadata URLs (a closed port):
/// the step fails, naming what the client met; the cause is `other` (not observed on a
/// real build, and the advice of `connection-refused` speaks of the server itself).
#[test]
fn an_authorization_server_that_does_not_answer_fails_its_step() {
    let tmp = tempfile::tempdir().unwrap();
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let stub = Stub::start(Arc::new(move |req: &Seen| {
        if req.path == "/mcp" {
            return answer(401, json!({}));
        }
        answer(
            200,
            json!({"resource": "x", "authorization_servers": [format!("http://127.0.0.1:{closed}")]}),
        )
    }));
    let url = format!("{}/mcp", stub.base());
    let (_, s) = probe_json(&home_with(tmp.path(), "gone-as", &url, None), "gone-as");
    assert_eq!(s["prediction"]["cause"], "other", "{s}");
    assert!(
        s["prediction"]["reason"]
            .as_str()
            .unwrap()
            .contains("does not answer at any of its metadata URLs (connection-refused)"),
        "{s}"
    );
    assert_eq!(
        steps(&s),
        vec![
            step("resource-metadata", Some(200), "found"),
            step("auth-server-metadata", None, "not-found"),
            step("auth-server-metadata", None, "failed"),
        ]
    );
    assert_eq!(s["oauth"]["registration"], "not-reached");
}

/// Hostile authorization-server metadata: each is a failure of that step, named, with
/// nothing of it on the screen unescaped and no secret of it shown.
#[test]
fn hostile_metadata_is_a_named_step_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "huge",
            format!(
                "{{\"issuer\":\"x\",\"pad\":\"{}\"}}",
                "a".repeat(2 * 1024 * 1024)
            )
            .into_bytes(),
            "larger than 256 KiB",
        ),
        ("deep", deep.into_bytes(), "recursion limit"),
        ("not-json", b"<html>\x1b[31mhello".to_vec(), "not JSON"),
        (
            "wrong-types",
            json!({"issuer": "x", "authorization_endpoint": "a", "token_endpoint": "t",
                   "response_types_supported": ["code"], "registration_endpoint": 5})
            .to_string()
            .into_bytes(),
            "`registration_endpoint` is not a string",
        ),
        (
            "escapes",
            json!({"issuer": "\u{1b}]0;pwned\u{7}", "authorization_endpoint": "\u{1b}[2J",
                   "token_endpoint": "t", "response_types_supported": "code"})
            .to_string()
            .into_bytes(),
            "`response_types_supported` is not a list",
        ),
    ];
    for (name, body, why) in cases {
        let body = Arc::new(body);
        let base = Arc::new(Mutex::new(String::new()));
        let (b, bd) = (base.clone(), body.clone());
        let stub = Stub::start(Arc::new(move |req: &Seen| {
            let base = b.lock().unwrap().clone();
            match req.path.as_str() {
                "/mcp" => {
                    let mut a = answer(401, json!({}));
                    a.headers.push((
                        "WWW-Authenticate".into(),
                        format!("Bearer resource_metadata=\"{base}/prm?token=hunter2hunter2\""),
                    ));
                    a
                }
                "/prm?token=hunter2hunter2" => answer(
                    200,
                    json!({"resource": "x", "authorization_servers": [base]}),
                ),
                "/.well-known/oauth-authorization-server" => Answer {
                    status: 200,
                    headers: Vec::new(),
                    body: (*bd).clone(),
                },
                _ => answer(404, json!({})),
            }
        }));
        *base.lock().unwrap() = stub.base();
        let home = home_with(tmp.path(), name, &format!("{}/mcp", stub.base()), None);
        let (r, s) = probe_json(&home, name);
        assert_eq!(r.code, 1, "{name}: {}", r.stderr);
        assert_eq!(s["prediction"]["verdict"], "connection-failed", "{name}");
        assert_eq!(s["prediction"]["cause"], "other", "{name}: {s}");
        assert_eq!(s["oauth"]["failedStep"], "auth-server-metadata", "{name}");
        assert_eq!(s["oauth"]["decidingStep"], "auth-server-metadata", "{name}");
        let last = s["oauth"]["steps"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert_eq!(last["outcome"], "failed", "{name}");
        assert!(
            last["detail"].as_str().unwrap().contains(why),
            "{name}: {why:?} in {last}"
        );
        // the query secret of a server-given URL is not shown
        assert!(!r.stdout.contains("hunter2"), "{name}: {}", r.stdout);
        assert!(
            s["oauth"]["resourceMetadataUrl"]
                .as_str()
                .unwrap()
                .ends_with("/prm?token=[REDACTED]"),
            "{s}"
        );
        let r = run(mcplogs(&home).args(["probe", name, "--timeout", "20s"]));
        assert!(!r.stdout.contains('\u{1b}'), "{name}: {}", r.stdout);
        assert!(!r.stdout.contains("hunter2"), "{name}: {}", r.stdout);
        assert!(
            r.stdout.contains("FAIL 200 auth server metadata"),
            "{name}: {}",
            r.stdout
        );
    }
}

/// One answer per server: for each OAuth fixture of a real run (2.1.336,
/// tests/fixtures/remote/), the stub serving what that run's server served, `probe`
/// gives the cause `scan` gives the fixture's log, and the same advice.
#[test]
fn probe_and_scan_agree_on_each_oauth_fixture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/remote");
    let encode = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect()
    };
    let tmp = tempfile::tempdir().unwrap();
    let static_token = json!({"Authorization": "Bearer mcplogs-dummy-static-token"});
    for (case, mode, headers) in [
        ("oauth-401", Mode::OAuth, None),
        ("oauth-register-400", Mode::OAuth, None),
        ("oauth-register-500", Mode::OAuth, None),
        ("oauth-meta-404", Mode::Meta404, None),
        ("oauth-as-meta-404", Mode::AsMeta404, None),
        ("oauth-no-registration", Mode::NoRegistration, None),
        ("static-401", Mode::Static401, Some(static_token.clone())),
        ("static-403", Mode::Static403, Some(static_token.clone())),
    ] {
        let stub = one_origin(mode);
        let url = format!("{}/mcp", stub.base());
        // the fixture's log where Claude Code keeps it, the server configured at the
        // stub's URL (scan's advice names the URL too)
        let home = home_with(tmp.path(), case, &url, headers);
        let dir = root.join(case).join("2.1.336");
        let logs = dir.join(format!("mcp-logs-{}", encode(case)));
        let first = sorted_files(&logs).remove(0);
        let record: Value =
            serde_json::from_str(fs::read_to_string(&first).unwrap().lines().next().unwrap())
                .unwrap();
        let project = record["cwd"].as_str().unwrap();
        copy_tree(
            &logs,
            &home
                .join(".cache/claude-cli-nodejs")
                .join(encode(project))
                .join(format!("mcp-logs-{}", encode(case))),
        );
        let empty = tmp.path().join(format!("empty-{case}"));
        fs::create_dir_all(&empty).unwrap();
        let (_, doc) = run_json(
            mcplogs(&empty)
                .args(["scan", "--json", "--no-cache", "--home"])
                .arg(&home),
        );
        let scanned = server(&doc, case);
        let (_, probed) = probe_json(&home, case);
        // the metadata Claude Code asked for (2.1.287 and 2.1.336, request by request),
        // asked by the probe in the same order and answered the same
        let asked: Vec<String> = probed["oauth"]["steps"]
            .as_array()
            .map(|steps| {
                steps
                    .iter()
                    .filter(|st| st["contacted"] == true)
                    .map(|st| {
                        format!(
                            "GET {} {}",
                            st["url"].as_str().unwrap().replace(&stub.base(), ""),
                            st["status"]
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        for build in ["2.1.287", "2.1.336"] {
            let recorded = fs::read_to_string(
                root.join("oauth-requests")
                    .join(build)
                    .join(format!("{case}.txt")),
            )
            .unwrap();
            let gets: Vec<&str> = recorded.lines().filter(|l| l.starts_with("GET ")).collect();
            assert_eq!(asked, gets, "{case} on {build}");
        }
        assert!(
            stub.seen()
                .iter()
                .all(|r| r.method == "GET" || r.path == "/mcp"),
            "{case}: {:?}",
            stub.lines()
        );
        let p = &probed["prediction"];
        assert_eq!(p["verdict"], scanned["verdict"], "{case}");
        assert_eq!(p["cause"], scanned["cause"], "{case}: {probed}");
        assert_eq!(
            p["recommendation"], scanned["recommendation"],
            "{case}: the same advice"
        );
    }
}

/// A stub whose MCP endpoint answers 401 with `www` (`{base}` replaced by its base URL)
/// and whose other paths `rest` answers.
fn challenge(www: impl Fn(&str) -> String + Send + Sync + 'static, rest: Arc<Handler>) -> Stub {
    let base = Arc::new(Mutex::new(String::new()));
    let b = base.clone();
    let stub = Stub::start(Arc::new(move |req: &Seen| {
        if req.path == "/mcp" {
            let mut a = answer(401, json!({}));
            a.headers
                .push(("WWW-Authenticate".into(), www(&b.lock().unwrap())));
            return a;
        }
        rest(req)
    }));
    *base.lock().unwrap() = stub.base();
    stub
}

/// The standard challenge (RFC 9728) is shown as a challenge: its parameter names and
/// plain values kept, only its URL's query credential redacted (it was shown as
/// `Bearer [REDACTED:bearer-token]"http://...`).
#[test]
fn an_oauth_challenge_is_shown_as_a_challenge_not_as_a_token() {
    let tmp = tempfile::tempdir().unwrap();
    let stub = challenge(
        |base| {
            format!(
                r#"Bearer resource_metadata="{base}/prm?token=hunter2hunter2", realm="mcp", scope="read write""#
            )
        },
        Arc::new(|_: &Seen| answer(404, json!({}))),
    );
    let home = home_with(
        tmp.path(),
        "challenge",
        &format!("{}/mcp", stub.base()),
        None,
    );
    let (_, s) = probe_json(&home, "challenge");
    let want = format!(
        r#"Bearer resource_metadata="{}/prm?token=[REDACTED:secret]", realm="mcp", scope="read write""#,
        stub.base()
    );
    assert_eq!(
        s["attempts"][0]["failure"]["wwwAuthenticate"],
        want.as_str(),
        "{s}"
    );
    let r = run(mcplogs(&home).args(["probe", "challenge", "--timeout", "20s"]));
    assert!(r.stdout.contains(&want), "{}", r.stdout);
    assert!(!r.stdout.contains("bearer-token"), "{}", r.stdout);
    assert!(!r.stdout.contains("hunter2"), "{}", r.stdout);
}

/// A 60 KB `WWW-Authenticate` (a secret where a cut at 300 characters would split it)
/// is redacted, then cut with a mark, in the text and in the document, where it is kept
/// once per attempt (the message and the step's detail point to it).
#[test]
fn a_huge_challenge_is_redacted_then_cut_and_kept_once() {
    let tmp = tempfile::tempdir().unwrap();
    let secret = "ghp_CutLeak0123456789abcdefghijklmnopqrstuv";
    let stub = challenge(
        move |base| {
            let head = format!(r#"Bearer resource_metadata="{base}/prm", error_description=""#);
            let pad = "a".repeat(290 - head.len());
            format!(r#"{head}{pad} {secret}", scope="{}""#, "b".repeat(60_000))
        },
        Arc::new(|_: &Seen| answer(404, json!({}))),
    );
    let home = home_with(tmp.path(), "huge", &format!("{}/mcp", stub.base()), None);
    let (r, s) = probe_json(&home, "huge");
    assert!(r.stdout.len() < 30_000, "{} bytes", r.stdout.len());
    assert!(!r.stdout.contains("ghp_"), "{}", r.stdout);
    let attempts = s["attempts"].as_array().unwrap();
    for a in attempts {
        let www = a["failure"]["wwwAuthenticate"].as_str().unwrap();
        assert!(www.contains("[cut: "), "{www}");
        assert!(www.chars().count() < 400, "{www}");
        assert!(
            a["failure"]["message"]
                .as_str()
                .unwrap()
                .contains("see failure.wwwAuthenticate"),
            "{a}"
        );
    }
    // the header's text is in the document once per attempt, nowhere else
    assert_eq!(
        r.stdout.matches(r#"error_description=\"aaaa"#).count(),
        attempts.len(),
        "{}",
        r.stdout
    );
    let r = run(mcplogs(&home).args(["probe", "huge", "--timeout", "20s"]));
    assert!(r.stdout.len() < 8_000, "{} bytes", r.stdout.len());
    assert!(r.stdout.contains("[cut: "), "{}", r.stdout);
    assert!(!r.stdout.contains("ghp_"), "{}", r.stdout);
}

/// A metadata server that never answers: the step that waited names the probe's time
/// limit, the steps after it say they did not run (not FAIL, not not-found), and the
/// cause is the timeout (`unknown`, since --timeout is shorter than Claude Code's limit).
#[test]
fn a_metadata_server_that_never_answers_is_a_timeout_and_later_steps_did_not_run() {
    let tmp = tempfile::tempdir().unwrap();
    let stub = challenge(
        |base| format!(r#"Bearer resource_metadata="{base}/prm""#),
        Arc::new(|_: &Seen| {
            std::thread::sleep(std::time::Duration::from_secs(30));
            answer(404, json!({}))
        }),
    );
    let home = home_with(tmp.path(), "silent", &format!("{}/mcp", stub.base()), None);
    let (r, doc) = run_json(mcplogs(&home).args(["probe", "silent", "--timeout", "3s", "--json"]));
    let s = &doc["servers"][0];
    assert_eq!(
        steps(s),
        vec![
            step("resource-metadata", None, "fall-back"),
            step("auth-server-metadata", None, "not-run"),
            step("auth-server-metadata", None, "not-run"),
        ],
        "{}",
        r.stdout
    );
    for st in s["oauth"]["steps"].as_array().unwrap().iter().skip(1) {
        assert_eq!(st["contacted"], false, "{st}");
        assert!(
            st["detail"].as_str().unwrap().starts_with("not run"),
            "{st}"
        );
    }
    assert_eq!(s["prediction"]["cause"], "timeout", "{s}");
    assert_eq!(s["prediction"]["verdict"], "unknown", "{s}");
    let reason = s["prediction"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("no answer within the probe's time limit"),
        "{reason}"
    );
    assert!(!reason.contains("not-found"), "{reason}");
    assert!(
        s["prediction"]["recommendation"]
            .as_str()
            .unwrap()
            .contains("--timeout 3000 ms"),
        "{s}"
    );
    // only the resource metadata was asked
    assert_eq!(discovery_requests(&stub), vec!["GET /prm"]);
}

/// An OAuth step failure whose cause is `other` gets advice naming the failing step and
/// its URL, not the advice of a server that cannot be reached (it answered 401).
#[test]
fn an_oauth_step_failure_of_cause_other_names_the_step_in_its_advice() {
    let tmp = tempfile::tempdir().unwrap();
    let stub = challenge(
        |base| format!(r#"Bearer resource_metadata="{base}/prm""#),
        Arc::new(|req: &Seen| match req.path.as_str() {
            "/prm" => answer(200, json!({"resource": "x"})),
            _ => answer(500, json!({})),
        }),
    );
    let home = home_with(tmp.path(), "as500", &format!("{}/mcp", stub.base()), None);
    let (_, s) = probe_json(&home, "as500");
    assert_eq!(s["prediction"]["cause"], "other", "{s}");
    let rec = s["prediction"]["recommendation"].as_str().unwrap();
    assert!(
        rec.contains("fails at the auth server metadata step"),
        "{rec}"
    );
    assert!(
        rec.contains("/.well-known/oauth-authorization-server answers HTTP 500"),
        "{rec}"
    );
    assert!(!rec.contains("check the server's command or URL"), "{rec}");
}

/// `--url` of a scheme that is not http or https is a usage error (exit 2), whose message
/// shows the scheme and nothing else of the URL.
#[test]
fn a_url_of_another_scheme_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    for url in ["ftp://jane:hunter2hunter2@127.0.0.1/x", "127.0.0.1:9/mcp"] {
        let r = run(mcplogs(tmp.path()).args(["probe", "--url", url]));
        assert_eq!(r.code, 2, "{url}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains("http:// or https://"), "{}", r.stderr);
        assert!(!r.stderr.contains("hunter2"), "{}", r.stderr);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
    }
}
