//! Issue 23 items 1, 4 and 6 against the real binary: configured headers stay with
//! their origin (legacy SSE endpoints and redirects naming another port), the
//! transcript is a private regular file escaped as `--json` is, and nothing a server
//! started outlives the probe, even after `setsid()`. Every run has a deadline.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{Run, mcplogs, mkfifo, mode, output_within, pin_host};
use serde_json::Value;

fn stub() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/samples/stub_mcp_server.py")
}

/// Runs `cmd` (after `pin_host`), killing it and failing after 30 s: a hang fails.
fn run_deadline(cmd: &mut Command) -> Run {
    pin_host(cmd);
    let out = output_within(cmd, Duration::from_secs(30));
    Run {
        code: out.status.code().expect("exited, not killed"),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// A raw character that `--json` never writes: C0 (other than the line end), DEL, C1
/// or a bidi control. Decided here, not with the sanitizer.
fn raw_unsafe(s: &str) -> Option<char> {
    s.chars().find(|&c| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    })
}

// ---- Item 4: the transcript ----

#[test]
fn a_transcript_that_is_a_fifo_or_a_device_is_refused_before_any_server_starts() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("t.fifo");
    mkfifo(&fifo);
    let started = dir.path().join("started");
    let server = format!(
        "sh -c 'touch {}; exec python3 {}'",
        started.display(),
        stub().display()
    );
    for (target, kind) in [
        (fifo.as_path(), "a FIFO (named pipe)"),
        (Path::new("/dev/null"), "a character device"),
        (dir.path(), "a folder"),
    ] {
        let t = Instant::now();
        let r = run_deadline(
            mcplogs(home.path())
                .args(["probe", "--timeout", "60s", "--transcript"])
                .arg(target)
                .args(["--command", &server]),
        );
        assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr.contains(&target.display().to_string()),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains(kind), "{}", r.stderr);
        assert!(
            !started.exists(),
            "the server was started for {}",
            target.display()
        );
    }
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

#[test]
fn a_transcript_is_private_also_without_redaction_and_stdout_is_asked_with_a_dash() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let server = format!("python3 {}", stub().display());
    let new = dir.path().join("new.jsonl");
    let old = dir.path().join("old.jsonl");
    std::fs::write(&old, "old\n").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();
    for (path, extra) in [(&new, None), (&old, Some("--no-redact"))] {
        let r = run_deadline(
            mcplogs(home.path())
                .args(["probe", "--claude-version", "2.1.332", "--transcript"])
                .arg(path)
                .args(extra)
                .args(["--command", &server]),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(mode(path), 0o600, "{}", path.display());
        let text = std::fs::read_to_string(path).unwrap();
        assert!(!text.contains("old"), "{text}");
        assert!(text.lines().count() >= 4, "{text}");
    }
    // `-`: the transcript on stdout (not with --json, which is stdout's own document).
    let r = run_deadline(
        mcplogs(home.path())
            .args(["probe", "--claude-version", "2.1.332", "--transcript", "-"])
            .args(["--command", &server]),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let first = r.stdout.lines().next().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(first).unwrap()["direction"],
        "client-to-server"
    );
    assert!(!dir.path().join("-").exists() && !home.path().join("-").exists());
    let r = run_deadline(
        mcplogs(home.path())
            .args(["probe", "--json", "--transcript", "-"])
            .args(["--command", &server]),
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("both write to stdout"), "{}", r.stderr);
}

/// `--transcript FILE` where a cloned folder put a symbolic link at FILE (to a file of
/// the user's, or to one not yet there): refused before any server starts, exit 2,
/// the path named; the link's target is neither changed nor created.
#[test]
fn a_transcript_is_never_written_through_a_symbolic_link() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let server = format!("python3 {}", stub().display());
    let victim = dir.path().join("bashrc");
    std::fs::write(&victim, "precious\n").unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).unwrap();
    let link = dir.path().join("tr.jsonl");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let absent = dir.path().join("newfile");
    let dangling = dir.path().join("tr2.jsonl");
    std::os::unix::fs::symlink(&absent, &dangling).unwrap();
    for path in [&link, &dangling] {
        let r = run_deadline(
            mcplogs(home.path())
                .args(["probe", "--claude-version", "2.1.332", "--transcript"])
                .arg(path)
                .args(["--command", &server]),
        );
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr.contains(&path.display().to_string())
                && r.stderr.contains("a symbolic link (not followed)"),
            "{}",
            r.stderr
        );
        assert!(r.stdout.is_empty(), "{}", r.stdout);
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert_eq!(mode(&victim), 0o644);
    assert!(std::fs::symlink_metadata(&absent).is_err());
}

#[test]
fn controls_and_bidi_in_names_are_escaped_in_the_transcript_as_in_json() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    let name = "docs\u{202e}txt.exe\u{9b}\u{7f}";
    let info = "stub\u{202e}\u{2066}\u{85}";
    let cfg = serde_json::json!({"mcpServers": {
        name: {"command": "python3", "args": [stub(), "--name", info]}
    }});
    std::fs::write(home.path().join(".claude.json"), cfg.to_string()).unwrap();
    let transcript = home.path().join("t.jsonl");
    let r = run_deadline(
        mcplogs(home.path())
            .current_dir(&proj)
            // before the name, which takes every argument after it
            .arg("probe")
            .arg("--managed-dir")
            .arg(home.path().join("no-managed-settings"))
            .args(["--claude-version", "2.1.332", "--transcript"])
            .arg(&transcript)
            .arg(name),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(&transcript).unwrap();
    assert_eq!(raw_unsafe(&text), None, "{text:?}");
    assert!(text.contains("\\u202e"), "{text}");
    // Escaped, not changed: the values decode to the names as configured.
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.iter().all(|l| l["server"] == name));
    assert!(
        lines
            .iter()
            .any(|l| l["payload"].pointer("/result/serverInfo/name") == Some(&info.into())),
        "{text}"
    );
}

// ---- Item 1: configured headers stay with the configured origin ----

/// One request as a loopback server saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    /// Header lines, lowercased names.
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

type Handler = fn(&Seen, &mut TcpStream, u16);

/// A loopback HTTP/1.1 server on an OS-chosen port that records every request (and
/// every connection, even one that sends nothing) and answers with `handler`.
struct Loopback {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    connections: Arc<Mutex<usize>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl Loopback {
    /// `other` is passed to the handler (the port of the other server).
    fn start(handler: Handler, other: u16) -> Loopback {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(Mutex::new(0));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (s, c, st) = (seen.clone(), connections.clone(), stop.clone());
        std::thread::spawn(move || {
            while !st.load(std::sync::atomic::Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        *c.lock().unwrap() += 1;
                        let s = s.clone();
                        std::thread::spawn(move || serve(stream, &s, handler, other));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Loopback {
            port,
            seen,
            connections,
            stop,
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn connections(&self) -> usize {
        *self.connections.lock().unwrap()
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

fn serve(stream: TcpStream, seen: &Mutex<Vec<Seen>>, handler: Handler, other: u16) {
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut out = stream.try_clone().unwrap();
    let mut r = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, path) = (
            parts.next().unwrap_or("").to_string(),
            parts.next().unwrap_or("").to_string(),
        );
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if r.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let req = Seen {
            method,
            path,
            headers,
        };
        let len: usize = req
            .header("content-length")
            .and_then(|l| l.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        if r.read_exact(&mut body).is_err() {
            return;
        }
        seen.lock().unwrap().push(req.clone());
        handler(&req, &mut out, other);
    }
}

fn respond(out: &mut TcpStream, status: &str, extra: &str, body: &str) {
    let _ = write!(
        out,
        "HTTP/1.1 {status}\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = out.flush();
}

/// Answers anything with a 404 (the second origin: whatever reaches it is a leak).
fn bystander(_: &Seen, out: &mut TcpStream, _: u16) {
    respond(out, "404 Not Found", "", "");
}

/// A legacy SSE server whose `endpoint` event names the other port.
fn sse_naming_another_port(req: &Seen, out: &mut TcpStream, other: u16) {
    if req.method == "GET" {
        let _ = write!(
            out,
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\nevent: endpoint\ndata: http://127.0.0.1:{other}/steal\n\n"
        );
        let _ = out.flush();
        std::thread::sleep(Duration::from_secs(5));
    } else {
        respond(out, "202 Accepted", "", "");
    }
}

/// The same server with its endpoint on its own origin (the control: headers go there).
fn sse_naming_itself(req: &Seen, out: &mut TcpStream, _: u16) {
    if req.method == "GET" {
        let _ = write!(
            out,
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\nevent: endpoint\ndata: /messages?s=1\n\n"
        );
        let _ = out.flush();
        // open long enough for a loaded machine's probe to POST its initialize
        std::thread::sleep(Duration::from_secs(5));
    } else {
        respond(out, "202 Accepted", "", "");
    }
}

/// Streamable HTTP answered by a redirect: `/mcp` to the other port, `/same` to a path
/// of its own origin (which then answers 500).
fn redirecting(req: &Seen, out: &mut TcpStream, other: u16) {
    match req.path.as_str() {
        "/mcp" => respond(
            out,
            "302 Found",
            &format!("Location: http://127.0.0.1:{other}/steal\r\n"),
            "",
        ),
        "/same" => respond(out, "307 Temporary Redirect", "Location: /inside\r\n", ""),
        _ => respond(out, "500 Internal Server Error", "", "no"),
    }
}

const SECRET_HEADERS: [&str; 3] = [
    "Authorization: Bearer origin-secret-0123456789",
    "X-Api-Key: origin-key-0123456789",
    "Cookie: session=origin-cookie-0123456789",
];

fn probe_url(url: &str, sse: bool) -> (i32, Value, String) {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = mcplogs(home.path());
    cmd.args([
        "probe",
        "--json",
        "--claude-version",
        "2.1.332",
        "--timeout",
        "5s",
    ])
    .args(["--url", url]);
    if sse {
        cmd.arg("--sse");
    }
    for h in SECRET_HEADERS {
        cmd.args(["--header", h]);
    }
    let r = run_deadline(&mut cmd);
    let doc: Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout));
    (r.code, doc, r.stderr)
}

#[test]
fn an_sse_endpoint_on_another_port_is_refused_as_claude_code_refuses_it() {
    let second = Loopback::start(bystander, 0);
    let first = Loopback::start(sse_naming_another_port, second.port);
    let (code, doc, stderr) = probe_url(&format!("http://127.0.0.1:{}/sse", first.port), true);
    let s = &doc["servers"][0];
    assert_eq!(code, 1, "{s:#}\n{stderr}");
    assert_eq!(s["prediction"]["verdict"], "connection-failed");
    let f = &s["attempts"][0]["failure"];
    assert_eq!(f["category"], "cross-origin-endpoint", "{f:#}");
    assert!(
        f["message"].as_str().unwrap().starts_with(&format!(
            "Endpoint origin does not match connection origin: http://127.0.0.1:{}",
            second.port
        )),
        "{f:#}"
    );
    assert_eq!(second.connections(), 0, "{:?}", second.seen());
    // The stream itself was asked for with the headers, on the configured origin.
    let got = first.seen();
    assert!(got.iter().all(|r| r.method == "GET"), "{got:?}");
    assert!(got[0].header("x-api-key").is_some(), "{got:?}");
}

#[test]
fn an_sse_endpoint_on_its_own_origin_gets_the_headers() {
    let first = Loopback::start(sse_naming_itself, 0);
    let _ = probe_url(&format!("http://127.0.0.1:{}/sse", first.port), true);
    let posts: Vec<Seen> = first
        .seen()
        .into_iter()
        .filter(|r| r.method == "POST")
        .collect();
    assert!(!posts.is_empty(), "{:?}", first.seen());
    assert_eq!(posts[0].path, "/messages?s=1");
    assert_eq!(posts[0].header("x-api-key"), Some("origin-key-0123456789"));
    assert!(posts[0].header("authorization").is_some());
}

#[test]
fn a_redirect_to_another_port_is_not_followed_and_one_within_the_origin_is() {
    let second = Loopback::start(bystander, 0);
    let first = Loopback::start(redirecting, second.port);
    let (code, doc, stderr) = probe_url(&format!("http://127.0.0.1:{}/mcp", first.port), false);
    let s = &doc["servers"][0];
    assert_eq!(code, 1, "{s:#}\n{stderr}");
    assert_eq!(s["prediction"]["verdict"], "connection-failed");
    let f = &s["attempts"][0]["failure"];
    assert_eq!(f["category"], "cross-origin-redirect", "{f:#}");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains(&format!("redirected to http://127.0.0.1:{}", second.port)),
        "{f:#}"
    );
    assert_eq!(second.connections(), 0, "{:?}", second.seen());

    // Within the origin a redirect is followed, headers and body kept (307).
    let (_, doc, _) = probe_url(&format!("http://127.0.0.1:{}/same", first.port), false);
    let inside: Vec<Seen> = first
        .seen()
        .into_iter()
        .filter(|r| r.path == "/inside")
        .collect();
    assert!(!inside.is_empty(), "{:?}", first.seen());
    assert_eq!(inside[0].method, "POST");
    assert_eq!(inside[0].header("x-api-key"), Some("origin-key-0123456789"));
    assert_eq!(
        doc["servers"][0]["attempts"][0]["failure"]["httpStatus"],
        500
    );
    assert_eq!(second.connections(), 0);
}

// ---- Item 6: nothing a server started outlives the probe ----

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return false;
    }
    // a zombie is dead for our purpose
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.contains(") Z "))
        .unwrap_or(false)
}

/// A stdio server (the stub) that first starts two grandchildren which call `setsid()`
/// and append their pids to `pids`: one stays the server's child, the other is
/// orphaned at once (a double fork).
fn escaping_server(dir: &Path, pids: &Path) -> String {
    let script = dir.join("server.sh");
    let leave = "import os, sys, time; os.setsid(); open(sys.argv[1], 'a').write(f'{os.getpid()}\\n'); time.sleep(300)";
    std::fs::write(
        &script,
        format!(
            "python3 -c \"{leave}\" '{p}' &\n\
             ( python3 -c \"{leave}\" '{p}' & )\n\
             n=$(cat '{p}' 2>/dev/null | wc -l); want=$((n + 2))\n\
             while [ \"$(cat '{p}' 2>/dev/null | wc -l)\" -lt \"$want\" ]; do sleep 0.05; done\n\
             exec python3 '{stub}'\n",
            p = pids.display(),
            stub = stub().display()
        ),
    )
    .unwrap();
    format!("sh {}", script.display())
}

/// Every pid in `pids`; kills survivors (so a failure leaves nothing running) and
/// names them.
fn survivors(pids: &Path) -> (usize, Vec<i32>) {
    let all: Vec<i32> = std::fs::read_to_string(pids)
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    let left: Vec<i32> = all.iter().copied().filter(|&p| alive(p)).collect();
    for &p in &left {
        // SAFETY: a process this test's server started, by its id.
        unsafe { libc::kill(p, libc::SIGKILL) };
    }
    (all.len(), left)
}

#[test]
fn a_grandchild_that_calls_setsid_does_not_outlive_the_probe() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let server = escaping_server(dir.path(), &pids);
    let r = run_deadline(
        mcplogs(home.path())
            .args([
                "probe",
                "--json",
                "--claude-version",
                "2.1.332",
                "--timeout",
                "10s",
            ])
            .args(["--command", &server]),
    );
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(r.code, 0, "{doc:#}\n{}", r.stderr);
    let connections = doc["servers"][0]["attempts"].as_array().unwrap().len();
    let (started, left) = survivors(&pids);
    assert_eq!(started, 2 * connections, "{doc:#}");
    assert_eq!(left, Vec::<i32>::new(), "outlived the probe");
}

#[test]
fn servers_probed_together_leave_nothing_behind_either() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    let pids = dir.path().join("pids");
    let server = escaping_server(dir.path(), &pids);
    let (cmd, arg) = server.split_once(' ').unwrap();
    let cfg = serde_json::json!({"mcpServers": {
        "first": {"command": cmd, "args": [arg]},
        "second": {"command": cmd, "args": [arg]},
    }});
    std::fs::write(home.path().join(".claude.json"), cfg.to_string()).unwrap();
    let r = run_deadline(mcplogs(home.path()).current_dir(&proj).args([
        "probe",
        "--json",
        "--claude-version",
        "2.1.332",
        "--timeout",
        "10s",
    ]));
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(r.code, 0, "{doc:#}\n{}", r.stderr);
    let (started, left) = survivors(&pids);
    assert!(started >= 4, "{started}");
    assert_eq!(left, Vec::<i32>::new(), "outlived the probe");
}

#[test]
fn ctrl_c_also_ends_what_left_the_servers_session() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let server = escaping_server(dir.path(), &pids);
    let hang = dir.path().join("hang.sh");
    // The same server, hanging: the probe is still waiting when Ctrl-C comes.
    std::fs::write(
        &hang,
        std::fs::read_to_string(server.strip_prefix("sh ").unwrap())
            .unwrap()
            .replace("stub_mcp_server.py'", "stub_mcp_server.py' --hang"),
    )
    .unwrap();
    let mut cmd = mcplogs(home.path());
    cmd.args(["probe", "--timeout", "60s", "--command"])
        .arg(format!("sh {}", hang.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    pin_host(&mut cmd);
    let mut child = cmd.spawn().unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    while std::fs::read_to_string(&pids)
        .unwrap_or_default()
        .lines()
        .count()
        < 2
    {
        if Instant::now() > until {
            let _ = child.kill();
            panic!("the server never started its grandchildren");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: sends SIGINT to the mcplogs child we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let (started, left) = survivors(&pids);
    assert_eq!(started, 2);
    assert_eq!(left, Vec::<i32>::new(), "outlived Ctrl-C");
}
