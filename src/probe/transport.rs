//! The wire: newline-delimited JSON-RPC over a child process's stdin/stdout, Streamable
//! HTTP (POST, answered with JSON or an SSE stream), and the legacy HTTP+SSE transport.
//! Everything is bounded: line and body sizes, the number of noise lines kept, the
//! stderr kept (head and tail), and every wait ends at a deadline.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio as PStdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Largest single message (stdout line, HTTP body, SSE event) read; anything longer is
/// dropped and reported.
pub const MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;
/// Stderr kept per server: the first and the last this many bytes.
pub const STDERR_KEEP: usize = 8 * 1024;
/// Characters kept of one noise line.
const NOISE_PREVIEW: usize = 160;

/// What arrives from the server.
#[derive(Debug, Clone)]
pub enum Incoming {
    Message(Value),
    /// A line (stdout) or event (SSE) that is not JSON: a printable preview and its size.
    Noise {
        preview: String,
        bytes: usize,
    },
    /// The server closed the connection (stdio: stdout reached end of file).
    Closed {
        detail: String,
    },
}

/// A failure of the connection itself (not a JSON-RPC error).
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    CommandNotFound {
        command: String,
    },
    Spawn {
        message: String,
    },
    /// The process exited or the stream ended.
    Closed {
        detail: String,
    },
    Timeout {
        waited_ms: u64,
    },
    NeedsAuth {
        www_authenticate: Option<String>,
    },
    HttpStatus {
        status: u16,
        body: String,
    },
    /// DNS, refused connection, TLS, a malformed URL...
    Http {
        message: String,
    },
    VersionUnsupported {
        version: String,
    },
    /// The initialize result is not what the protocol says.
    BadInitResult {
        message: String,
    },
    /// A URL on another origin than the configured one: refused, nothing sent there.
    CrossOrigin {
        kind: CrossOrigin,
        /// The other origin (or the URL, when it has none).
        to: String,
        /// The configured URL's origin.
        configured: String,
    },
}

/// Where another origin came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrossOrigin {
    /// A legacy SSE stream's `endpoint` event (Claude Code refuses it too).
    SseEndpoint,
    /// An HTTP redirect (`Location`).
    Redirect,
}

impl Failure {
    /// A short category for transcripts and JSON (`http-404`, `timeout`...).
    pub fn category(&self) -> String {
        match self {
            Failure::CommandNotFound { .. } => "command-not-found".into(),
            Failure::Spawn { .. } => "spawn-failed".into(),
            Failure::Closed { .. } => "connection-closed".into(),
            Failure::Timeout { .. } => "timeout".into(),
            Failure::NeedsAuth { .. } => "needs-auth".into(),
            Failure::HttpStatus { status, .. } => format!("http-{status}"),
            Failure::Http { .. } => "http-error".into(),
            Failure::VersionUnsupported { .. } => "version-unsupported".into(),
            Failure::BadInitResult { .. } => "invalid-initialize-result".into(),
            Failure::CrossOrigin {
                kind: CrossOrigin::SseEndpoint,
                ..
            } => "cross-origin-endpoint".into(),
            Failure::CrossOrigin {
                kind: CrossOrigin::Redirect,
                ..
            } => "cross-origin-redirect".into(),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::CommandNotFound { command } => {
                write!(f, "executable not found in $PATH: {command:?}")
            }
            Failure::Spawn { message } => write!(f, "cannot start the server: {message}"),
            Failure::Closed { detail } => write!(f, "connection closed ({detail})"),
            Failure::Timeout { waited_ms } => write!(f, "no answer within {waited_ms} ms"),
            Failure::NeedsAuth { www_authenticate } => match www_authenticate {
                Some(h) => write!(
                    f,
                    "HTTP 401: authentication required (WWW-Authenticate: {h})"
                ),
                None => write!(f, "HTTP 401: authentication required"),
            },
            Failure::HttpStatus { status, body } if body.is_empty() => write!(f, "HTTP {status}"),
            Failure::HttpStatus { status, body } => write!(f, "HTTP {status}: {body}"),
            Failure::Http { message } => write!(f, "{message}"),
            Failure::VersionUnsupported { version } => write!(
                f,
                "the server answered initialize with protocol version {version:?}, which Claude Code does not support"
            ),
            Failure::BadInitResult { message } => write!(f, "invalid initialize result: {message}"),
            // Claude Code's own words first (2.1.332's log line), then what mcplogs did.
            Failure::CrossOrigin {
                kind: CrossOrigin::SseEndpoint,
                to,
                configured,
            } => write!(
                f,
                "Endpoint origin does not match connection origin: {to} (the SSE stream's endpoint event names another origin than the configured {configured}; Claude Code refuses it, and mcplogs sent nothing there)"
            ),
            Failure::CrossOrigin {
                kind: CrossOrigin::Redirect,
                to,
                configured,
            } => write!(
                f,
                "redirected to {to}, another origin than the configured {configured}: not followed, so the configured headers were not sent there"
            ),
        }
    }
}

/// What a server wrote to stderr: counts, the first and the last bytes.
#[derive(Debug, Clone, Default)]
pub struct StderrLog {
    pub bytes: u64,
    pub lines: u64,
    pub head: Vec<u8>,
    pub tail: VecDeque<u8>,
}

impl StderrLog {
    fn push(&mut self, chunk: &[u8]) {
        self.bytes += chunk.len() as u64;
        self.lines += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
        let room = STDERR_KEEP.saturating_sub(self.head.len());
        let (h, rest) = chunk.split_at(room.min(chunk.len()));
        self.head.extend_from_slice(h);
        self.tail.extend(rest);
        while self.tail.len() > STDERR_KEEP {
            self.tail.pop_front();
        }
    }

    /// The kept text, with a marker where bytes were left out.
    pub fn text(&self) -> String {
        let mut s = String::from_utf8_lossy(&self.head).into_owned();
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        let mut tail = String::from_utf8_lossy(&tail).into_owned();
        let kept = (self.head.len() + self.tail.len()) as u64;
        if self.bytes > kept {
            // Cut before redaction: the word at each cut goes whole, so no secret is
            // left as a prefix (or suffix) its rule no longer recognises.
            let head_end = s.rfind(char::is_whitespace).unwrap_or(0);
            s.truncate(head_end);
            let tail_start = tail.find(char::is_whitespace).unwrap_or(tail.len());
            tail.drain(..tail_start);
            s.push_str(&format!(
                "\n[... {} bytes left out ...]\n",
                self.bytes.saturating_sub((s.len() + tail.len()) as u64)
            ));
        }
        s.push_str(&tail);
        printable(&s, usize::MAX, true)
    }
}

/// Escapes control characters (terminal escapes, NUL, BEL...) and bounds the text to
/// `max` characters of whole words ([`crate::text::whole_words`]): it runs before
/// redaction, so a secret is kept whole or dropped, never cut into a prefix its rule
/// misses. Shortening for display is [`crate::text::cut`]'s, after redaction.
pub fn printable(s: &str, max: usize, keep_newlines: bool) -> String {
    let kept = crate::text::whole_words(s, max);
    let mut out = String::new();
    for c in kept.chars() {
        match c {
            '\n' if keep_newlines => out.push('\n'),
            '\t' => out.push('\t'),
            // Spelled as everywhere else (`\x1b`, `<U+202E>`), by the one sanitizer.
            '\u{fffd}' => out.push_str("<U+FFFD>"),
            c if crate::sanitize::is_unsafe(c) => {
                out.push_str(&crate::sanitize::text(c.encode_utf8(&mut [0; 4])));
            }
            c => out.push(c),
        }
    }
    if kept.len() < s.len() {
        out.push('…');
    }
    out
}

/// One connection to a server.
pub trait Transport {
    /// Sends one JSON-RPC message.
    fn send(&mut self, msg: &Value, deadline: Instant) -> Result<(), Failure>;
    /// The next message; `Err(Failure::Timeout)` when nothing came before `deadline`.
    fn recv(&mut self, deadline: Instant) -> Result<Incoming, Failure>;
    /// Whatever the server wrote to stderr (stdio only).
    fn stderr(&self) -> Option<StderrLog> {
        None
    }
    /// Extra facts for the transcript (the pid, the HTTP session id...).
    fn describe(&self) -> String;
    /// The classic handshake settled on `version` (HTTP sends it as a header).
    fn negotiated(&mut self, _version: &str) {}
}

// ---------------------------------------------------------------------------------
// ending servers: a session per server, and on Linux a subreaper (see `reap`)
// ---------------------------------------------------------------------------------

/// Kills every server still running and what it started (for a Ctrl-C handler).
pub fn kill_all_active() {
    super::reap::end_all();
}

/// Ends every process of a server on Ctrl-C / SIGTERM, then exits with 130.
pub fn install_interrupt_handler() -> Result<(), ctrlc::Error> {
    ctrlc::set_handler(|| {
        kill_all_active();
        std::process::exit(130);
    })
}

// ---------------------------------------------------------------------------------
// stdio
// ---------------------------------------------------------------------------------

pub struct StdioTransport {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Incoming>,
    stderr: Arc<Mutex<StderrLog>>,
    /// Disconnects when the stderr reader has seen end of file.
    stderr_done: Receiver<()>,
    closed: bool,
    killed: bool,
}

impl StdioTransport {
    /// Starts `command args` in `cwd` with `env` added to this process's environment,
    /// in a session (and process group) of its own.
    pub fn spawn(
        command: &str,
        args: &[String],
        env: &BTreeMap<String, String>,
        cwd: Option<&Path>,
    ) -> Result<StdioTransport, Failure> {
        if command.is_empty() {
            return Err(Failure::Spawn {
                message: "no command configured".into(),
            });
        }
        let mut cmd = Command::new(command);
        cmd.args(args)
            .envs(env)
            .stdin(PStdio::piped())
            .stdout(PStdio::piped())
            .stderr(PStdio::piped());
        if let Some(d) = cwd.filter(|d| d.is_dir()) {
            cmd.current_dir(d);
        }
        // In a session of its own (and, on Linux, under mcplogs as subreaper).
        let mut child = super::reap::spawn(&mut cmd).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Failure::CommandNotFound {
                command: command.to_string(),
            },
            _ => Failure::Spawn {
                message: format!("{command}: {e}"),
            },
        })?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        let (tx, rx) = sync_channel(256);
        std::thread::spawn(move || read_lines(stdout, tx));
        let stderr = Arc::new(Mutex::new(StderrLog::default()));
        let sink = Arc::clone(&stderr);
        let (done_tx, stderr_done) = sync_channel::<()>(1);
        std::thread::spawn(move || {
            let _done = done_tx;
            let mut r = stderr_pipe;
            let mut buf = [0u8; 8192];
            loop {
                match r.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if let Ok(mut s) = sink.lock() {
                            s.push(&buf[..n]);
                        }
                    }
                }
            }
        });
        Ok(StdioTransport {
            child,
            stdin,
            rx,
            stderr,
            stderr_done,
            closed: false,
            killed: false,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn exit_detail(&mut self) -> String {
        // the process usually exits right after closing stdout
        let until = Instant::now() + Duration::from_millis(300);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return format!("the server exited, {status}"),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
                _ => return "the server closed its stdout".into(),
            }
        }
    }
}

/// Splits stdout into lines, each bounded by [`MAX_MESSAGE_BYTES`].
fn read_lines(stdout: impl Read, tx: SyncSender<Incoming>) {
    let mut r = BufReader::with_capacity(64 * 1024, stdout);
    let mut line: Vec<u8> = Vec::new();
    let mut overflow = 0usize;
    loop {
        let buf = match r.fill_buf() {
            Ok([]) => break,
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let (chunk, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if overflow > 0 || line.len() + chunk.len() > MAX_MESSAGE_BYTES {
            overflow += line.len() + chunk.len();
            line.clear();
        } else {
            line.extend_from_slice(chunk);
        }
        let used = done.unwrap_or(buf.len());
        r.consume(used);
        if done.is_some() {
            let msg = if overflow > 0 {
                let m = Incoming::Noise {
                    preview: format!(
                        "[a line of {overflow} bytes, over the {MAX_MESSAGE_BYTES}-byte limit, was dropped]"
                    ),
                    bytes: overflow,
                };
                overflow = 0;
                Some(m)
            } else {
                classify_line(&line)
            };
            line.clear();
            if let Some(m) = msg
                && tx.send(m).is_err()
            {
                return;
            }
        }
    }
    if !line.is_empty()
        && let Some(m) = classify_line(&line)
    {
        let _ = tx.send(m);
    }
    let _ = tx.send(Incoming::Closed {
        detail: "end of stdout".into(),
    });
}

fn classify_line(line: &[u8]) -> Option<Incoming> {
    let trimmed = line.trim_ascii();
    if trimmed.is_empty() {
        return None;
    }
    match serde_json::from_slice::<Value>(trimmed) {
        Ok(v) => Some(Incoming::Message(v)),
        Err(_) => Some(Incoming::Noise {
            preview: printable(&String::from_utf8_lossy(trimmed), NOISE_PREVIEW, false),
            bytes: trimmed.len(),
        }),
    }
}

impl Transport for StdioTransport {
    fn send(&mut self, msg: &Value, _deadline: Instant) -> Result<(), Failure> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Failure::Closed {
                detail: "stdin already closed".into(),
            });
        };
        let mut line = serde_json::to_vec(msg).expect("json");
        line.push(b'\n');
        // A server that does not read its stdin can block this write once the pipe is
        // full; messages here are small, far below a pipe's buffer.
        stdin
            .write_all(&line)
            .and_then(|_| stdin.flush())
            .map_err(|e| Failure::Closed {
                detail: format!("writing to the server's stdin failed: {e}"),
            })
    }

    fn recv(&mut self, deadline: Instant) -> Result<Incoming, Failure> {
        if self.closed {
            let detail = self.exit_detail();
            return Err(Failure::Closed { detail });
        }
        let started = Instant::now();
        let wait = deadline.saturating_duration_since(started);
        match self.rx.recv_timeout(wait) {
            Ok(Incoming::Closed { .. }) | Err(RecvTimeoutError::Disconnected) => {
                self.closed = true;
                let detail = self.exit_detail();
                Ok(Incoming::Closed { detail })
            }
            Ok(m) => Ok(m),
            Err(RecvTimeoutError::Timeout) => Err(Failure::Timeout {
                waited_ms: started.elapsed().as_millis() as u64,
            }),
        }
    }

    fn stderr(&self) -> Option<StderrLog> {
        self.stderr.lock().ok().map(|s| s.clone())
    }

    fn describe(&self) -> String {
        format!("pid {}", self.child.id())
    }
}

impl StdioTransport {
    /// Ends the server and everything it started, and returns everything it wrote to stderr
    /// (waiting up to half a second for the pipe to drain).
    pub fn close(mut self) -> Option<StderrLog> {
        self.kill_now();
        let _ = self.stderr_done.recv_timeout(Duration::from_millis(500));
        self.stderr.lock().ok().map(|s| s.clone())
    }

    fn kill_now(&mut self) {
        if self.killed {
            return;
        }
        self.killed = true;
        self.stdin.take();
        super::reap::end(&mut self.child);
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.kill_now();
    }
}

// ---------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------

/// Redirects followed within the configured origin, at most.
const MAX_REDIRECTS: usize = 10;

/// The origin of a URL (scheme, host, port), the only place configured headers go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

impl Origin {
    /// `None` for anything but an absolute http(s) URL with a host.
    pub fn of(url: &str) -> Option<Origin> {
        let u: ureq::http::Uri = url.parse().ok()?;
        let scheme = u.scheme_str()?.to_ascii_lowercase();
        let default = match scheme.as_str() {
            "http" => 80,
            "https" => 443,
            _ => return None,
        };
        let host = u.host().filter(|h| !h.is_empty())?.to_ascii_lowercase();
        Some(Origin {
            port: u.port_u16().unwrap_or(default),
            scheme,
            host,
        })
    }
}

impl std::fmt::Display for Origin {
    /// As a browser spells an origin: the port only when it is not the scheme's own.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let default = if self.scheme == "https" { 443 } else { 80 };
        if self.port == default {
            write!(f, "{}://{}", self.scheme, self.host)
        } else {
            write!(f, "{}://{}:{}", self.scheme, self.host, self.port)
        }
    }
}

/// `url`'s origin if it is `allowed`, else the refusal naming it.
fn same_origin(url: &str, allowed: &Origin, kind: CrossOrigin) -> Result<(), Failure> {
    match Origin::of(url) {
        Some(o) if o == *allowed => Ok(()),
        other => Err(Failure::CrossOrigin {
            kind,
            to: other
                .map(|o| o.to_string())
                .unwrap_or_else(|| url.to_string()),
            configured: allowed.to_string(),
        }),
    }
}

/// How long one request may take.
#[derive(Clone, Copy)]
enum Wait {
    /// The whole exchange (a POST and its answer).
    Global(Duration),
    /// Connecting only (a stream that stays open).
    Connect(Duration),
}

/// One request with `headers`, following redirects only within `origin`: the
/// configured headers (Authorization, X-Api-Key, Cookie, any other) never leave it.
/// A redirect elsewhere is a [`Failure::CrossOrigin`], and nothing is sent there. As
/// `fetch` does, 303 (and 301/302 after a POST) continue as a GET without the body.
fn request(
    agent: &ureq::Agent,
    url: &str,
    origin: &Origin,
    mut post: Option<&[u8]>,
    headers: &[(&str, &str)],
    wait: Wait,
) -> Result<ureq::http::Response<ureq::Body>, Failure> {
    let started = Instant::now();
    let mut url = url.to_string();
    for _ in 0..=MAX_REDIRECTS {
        same_origin(&url, origin, CrossOrigin::Redirect)?;
        let left = |d: Duration| d.saturating_sub(started.elapsed());
        let left = left(match wait {
            Wait::Global(d) | Wait::Connect(d) => d,
        });
        let resp = match post {
            Some(body) => with_headers(
                agent.post(&url).header("Content-Type", "application/json"),
                headers,
                wait,
                left,
            )
            .send(body),
            None => with_headers(agent.get(&url), headers, wait, left).call(),
        }
        .map_err(|e| http_failure(e, started.elapsed()))?;
        let status = resp.status().as_u16();
        let location = resp
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .map(|l| l.trim().to_string());
        let Some(location) = location.filter(|_| matches!(status, 301 | 302 | 303 | 307 | 308))
        else {
            return Ok(resp);
        };
        if status == 303 || (matches!(status, 301 | 302) && post.is_some()) {
            post = None;
        }
        url = resolve_url(&url, &location);
    }
    Err(Failure::Http {
        message: format!("more than {MAX_REDIRECTS} redirects"),
    })
}

/// `req` with the configured headers and the time left, as the kind of wait asks.
fn with_headers<B>(
    mut req: ureq::RequestBuilder<B>,
    headers: &[(&str, &str)],
    wait: Wait,
    left: Duration,
) -> ureq::RequestBuilder<B> {
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let c = req.config();
    match wait {
        Wait::Global(_) => c.timeout_global(Some(left)),
        Wait::Connect(_) => c.timeout_connect(Some(left)),
    }
    .build()
}

fn agent() -> ureq::Agent {
    let b = ureq::Agent::config_builder()
        .http_status_as_error(false)
        // Followed by `request`, only within the configured origin.
        .max_redirects(0)
        .user_agent(concat!("mcplogs-probe/", env!("CARGO_PKG_VERSION")));
    // Windows and macOS build ureq with the OS's TLS (see Cargo.toml)
    #[cfg(any(windows, target_os = "macos"))]
    let b = b.tls_config(
        ureq::tls::TlsConfig::builder()
            .provider(ureq::tls::TlsProvider::NativeTls)
            .build(),
    );
    b.build().into()
}

fn remaining(deadline: Instant) -> Result<Duration, Failure> {
    let d = deadline.saturating_duration_since(Instant::now());
    if d.is_zero() {
        Err(Failure::Timeout { waited_ms: 0 })
    } else {
        Ok(d)
    }
}

fn http_failure(e: ureq::Error, waited: Duration) -> Failure {
    match e {
        ureq::Error::Timeout(_) => Failure::Timeout {
            waited_ms: waited.as_millis() as u64,
        },
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => Failure::Timeout {
            waited_ms: waited.as_millis() as u64,
        },
        other => Failure::Http {
            message: other.to_string(),
        },
    }
}

/// The headers of one POST, as Claude Code sends them (captured from 2.1.288 and
/// 2.1.332, `tests/cli/wire-captures/`): `Accept` always; a request of the 2026-07-28
/// revision (its `params._meta` names it) carries `mcp-method` and
/// `mcp-protocol-version: 2026-07-28`; after a classic `initialize`, every message
/// carries `mcp-protocol-version` with the negotiated version (and no `mcp-method`);
/// `mcp-session-id` once the server gave one; then the configured headers.
/// `Content-Type: application/json` is added by [`request`].
pub fn post_headers<'a>(
    msg: &'a Value,
    negotiated: Option<&'a str>,
    session_id: Option<&'a str>,
    configured: &'a BTreeMap<String, String>,
) -> Vec<(&'a str, &'a str)> {
    let mut headers: Vec<(&str, &str)> = vec![("Accept", "application/json, text/event-stream")];
    let modern = msg
        .pointer("/params/_meta")
        .and_then(|m| m.get(super::session::META_PROTOCOL_VERSION))
        .and_then(Value::as_str);
    match modern {
        Some(v) => {
            if let Some(m) = msg.get("method").and_then(Value::as_str) {
                headers.push(("mcp-method", m));
            }
            headers.push(("mcp-protocol-version", v));
        }
        None => {
            if let Some(v) = negotiated {
                headers.push(("mcp-protocol-version", v));
            }
        }
    }
    if let Some(s) = session_id {
        headers.push(("mcp-session-id", s));
    }
    headers.extend(configured.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    headers
}

/// Streamable HTTP: each message is one POST; the answer is JSON, an SSE stream, or
/// 202 for notifications.
pub struct HttpTransport {
    agent: ureq::Agent,
    url: String,
    origin: Origin,
    headers: BTreeMap<String, String>,
    session_id: Option<String>,
    protocol_version: Option<String>,
    queue: VecDeque<Incoming>,
}

impl HttpTransport {
    pub fn new(url: &str, headers: &BTreeMap<String, String>) -> Result<HttpTransport, Failure> {
        let Some(origin) = Origin::of(url) else {
            return Err(Failure::Http {
                message: format!("not an http(s) URL: {url:?}"),
            });
        };
        Ok(HttpTransport {
            agent: agent(),
            url: url.to_string(),
            origin,
            headers: headers.clone(),
            session_id: None,
            protocol_version: None,
            queue: VecDeque::new(),
        })
    }
}

impl Transport for HttpTransport {
    fn send(&mut self, msg: &Value, deadline: Instant) -> Result<(), Failure> {
        let wait = remaining(deadline)?;
        let started = Instant::now();
        let headers = post_headers(
            msg,
            self.protocol_version.as_deref(),
            self.session_id.as_deref(),
            &self.headers,
        );
        let body = serde_json::to_vec(msg).expect("json");
        let resp = request(
            &self.agent,
            &self.url,
            &self.origin,
            Some(&body),
            &headers,
            Wait::Global(wait),
        )?;
        let status = resp.status().as_u16();
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        // Only a success gives the session: Python `mcp` 1.x names a fresh session on its
        // 400 to a `server/discover`, and Claude Code's initialize after it carries none.
        if (200..300).contains(&status)
            && let Some(s) = header("mcp-session-id")
        {
            self.session_id = Some(s);
        }
        let ctype = header("content-type").unwrap_or_default().to_lowercase();
        let www = header("www-authenticate");
        let mut body = resp.into_body();
        if status == 401 {
            return Err(Failure::NeedsAuth {
                www_authenticate: www,
            });
        }
        if !(200..300).contains(&status) {
            let text = body
                .with_config()
                .limit(4096)
                .lossy_utf8(true)
                .read_to_string()
                .unwrap_or_default();
            return Err(Failure::HttpStatus {
                status,
                body: printable(text.trim(), 200, false),
            });
        }
        if status == 202 || msg.get("id").is_none() {
            return Ok(());
        }
        let reader = body.with_config().limit(MAX_MESSAGE_BYTES as u64).reader();
        if ctype.starts_with("text/event-stream") {
            let want = msg.get("id").cloned();
            read_sse(reader, &mut |event, data| {
                if event.is_some_and(|e| e != "message") {
                    return true;
                }
                let inc = parse_event(data);
                let done = matches!(&inc, Incoming::Message(v) if v.get("id") == want.as_ref() && (v.get("result").is_some() || v.get("error").is_some()));
                self.queue.push_back(inc);
                !done
            })
            .map_err(|e| http_failure(e, started.elapsed()))?;
        } else {
            let mut bytes = Vec::new();
            let mut r = reader;
            r.read_to_end(&mut bytes)
                .map_err(|e| http_failure(ureq::Error::Io(e), started.elapsed()))?;
            match serde_json::from_slice::<Value>(&bytes) {
                Ok(Value::Array(items)) => {
                    self.queue.extend(items.into_iter().map(Incoming::Message))
                }
                Ok(v) => self.queue.push_back(Incoming::Message(v)),
                Err(_) => self.queue.push_back(Incoming::Noise {
                    preview: printable(&String::from_utf8_lossy(&bytes), NOISE_PREVIEW, false),
                    bytes: bytes.len(),
                }),
            }
        }
        Ok(())
    }

    fn recv(&mut self, _deadline: Instant) -> Result<Incoming, Failure> {
        self.queue
            .pop_front()
            .ok_or(Failure::Timeout { waited_ms: 0 })
    }

    /// Sent as `mcp-protocol-version` on every request after a legacy initialize.
    fn negotiated(&mut self, version: &str) {
        self.protocol_version = Some(version.to_string());
    }

    fn describe(&self) -> String {
        match &self.session_id {
            Some(_) => "streamable HTTP, with a session id".into(),
            None => "streamable HTTP".into(),
        }
    }
}

fn parse_event(data: &str) -> Incoming {
    match serde_json::from_str::<Value>(data) {
        Ok(v) => Incoming::Message(v),
        Err(_) => Incoming::Noise {
            preview: printable(data, NOISE_PREVIEW, false),
            bytes: data.len(),
        },
    }
}

/// Reads SSE events, calling `on(event, data)` for each until it returns false or the
/// stream ends. Each event's data is bounded by [`MAX_MESSAGE_BYTES`].
fn read_sse(
    reader: impl Read,
    on: &mut dyn FnMut(Option<&str>, &str) -> bool,
) -> Result<(), ureq::Error> {
    let mut r = BufReader::new(reader);
    let mut event: Option<String> = None;
    let mut data = String::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = r
            .by_ref()
            .take(MAX_MESSAGE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(ureq::Error::Io)?;
        if n == 0 {
            if !data.is_empty() {
                on(event.as_deref(), &data);
            }
            return Ok(());
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        if text.is_empty() {
            if !data.is_empty() && !on(event.as_deref(), &data) {
                return Ok(());
            }
            event = None;
            data.clear();
            continue;
        }
        if text.starts_with(':') {
            continue;
        }
        let (field, value) = match text.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (text, ""),
        };
        match field {
            "event" => event = Some(value.to_string()),
            "data" if data.len() + value.len() <= MAX_MESSAGE_BYTES => {
                if !data.is_empty() {
                    data.push('\n');
                }
                data.push_str(value);
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------
// legacy HTTP+SSE: GET opens the stream, whose `endpoint` event names where to POST
// ---------------------------------------------------------------------------------

pub struct SseTransport {
    agent: ureq::Agent,
    origin: Origin,
    headers: BTreeMap<String, String>,
    endpoint: String,
    rx: Receiver<Incoming>,
}

impl SseTransport {
    pub fn connect(
        url: &str,
        headers: &BTreeMap<String, String>,
        deadline: Instant,
    ) -> Result<SseTransport, Failure> {
        let origin = HttpTransport::new(url, headers)?.origin;
        let agent = agent();
        let started = Instant::now();
        let mut sent: Vec<(&str, &str)> = vec![("Accept", "text/event-stream")];
        sent.extend(headers.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let resp = request(
            &agent,
            url,
            &origin,
            None,
            &sent,
            Wait::Connect(remaining(deadline)?),
        )?;
        let status = resp.status().as_u16();
        if status == 401 {
            let www = resp
                .headers()
                .get("www-authenticate")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            return Err(Failure::NeedsAuth {
                www_authenticate: www,
            });
        }
        if status != 200 {
            return Err(Failure::HttpStatus {
                status,
                body: String::new(),
            });
        }
        let (tx, rx) = sync_channel::<Incoming>(256);
        let (etx, erx) = sync_channel::<String>(1);
        let reader = resp.into_body().into_with_config().limit(u64::MAX).reader();
        std::thread::spawn(move || {
            let mut etx = Some(etx);
            let _ = read_sse(reader, &mut |event, data| {
                if event == Some("endpoint") {
                    if let Some(t) = etx.take() {
                        let _ = t.send(data.to_string());
                    }
                    return true;
                }
                tx.send(parse_event(data)).is_ok()
            });
            let _ = tx.send(Incoming::Closed {
                detail: "the SSE stream ended".into(),
            });
        });
        let endpoint = erx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .map_err(|_| Failure::Timeout {
                waited_ms: started.elapsed().as_millis() as u64,
            })?;
        // As Claude Code: the endpoint is resolved against the configured URL and must
        // be on its origin, or the connection fails (and the headers stay home).
        let endpoint = resolve_url(url, endpoint.trim());
        same_origin(&endpoint, &origin, CrossOrigin::SseEndpoint)?;
        Ok(SseTransport {
            agent,
            origin,
            headers: headers.clone(),
            endpoint,
            rx,
        })
    }
}

/// `rel` (absolute, host-relative `/path` or relative) against `base`.
/// Whatever it gives is checked against the configured origin before anything is sent.
fn resolve_url(base: &str, rel: &str) -> String {
    let scheme = rel.find("://").map(|i| &rel[..i]);
    if scheme.is_some_and(|s| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    }) {
        return rel.to_string();
    }
    let scheme_end = base.find("://").map(|i| i + 3).unwrap_or(0);
    if rel.starts_with("//") {
        // scheme-relative: another host, maybe
        return format!("{}{}", &base[..scheme_end.saturating_sub(2)], rel);
    }
    let host_end = base[scheme_end..]
        .find('/')
        .map(|i| scheme_end + i)
        .unwrap_or(base.len());
    if rel.starts_with('/') {
        return format!("{}{}", &base[..host_end], rel);
    }
    let dir_end = base
        .rfind('/')
        .filter(|&i| i >= host_end)
        .unwrap_or(host_end);
    format!("{}/{}", &base[..dir_end], rel)
}

impl Transport for SseTransport {
    fn send(&mut self, msg: &Value, deadline: Instant) -> Result<(), Failure> {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let resp = request(
            &self.agent,
            &self.endpoint,
            &self.origin,
            Some(&serde_json::to_vec(msg).expect("json")),
            &headers,
            Wait::Global(remaining(deadline)?),
        )?;
        let status = resp.status().as_u16();
        if status == 401 {
            return Err(Failure::NeedsAuth {
                www_authenticate: None,
            });
        }
        if !(200..300).contains(&status) {
            return Err(Failure::HttpStatus {
                status,
                body: String::new(),
            });
        }
        Ok(())
    }

    fn recv(&mut self, deadline: Instant) -> Result<Incoming, Failure> {
        let started = Instant::now();
        match self
            .rx
            .recv_timeout(deadline.saturating_duration_since(started))
        {
            Ok(m) => Ok(m),
            Err(RecvTimeoutError::Disconnected) => Ok(Incoming::Closed {
                detail: "the SSE stream ended".into(),
            }),
            Err(RecvTimeoutError::Timeout) => Err(Failure::Timeout {
                waited_ms: started.elapsed().as_millis() as u64,
            }),
        }
    }

    fn describe(&self) -> String {
        "legacy HTTP+SSE".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_keeps_head_and_tail_only() {
        let mut s = StderrLog::default();
        for i in 0..5000 {
            s.push(format!("line {i}\n").as_bytes());
        }
        assert_eq!(s.lines, 5000);
        assert!(s.head.len() <= STDERR_KEEP && s.tail.len() <= STDERR_KEEP);
        let t = s.text();
        assert!(t.starts_with("line 0\n"));
        assert!(t.ends_with("line 4999\n"));
        assert!(t.contains("bytes left out"));
    }

    #[test]
    fn stderr_cut_inside_a_token_drops_the_token() {
        // The head ends and the tail starts inside a token: neither piece is kept.
        let mut s = StderrLog::default();
        let pad = "x ".repeat((STDERR_KEEP - 10) / 2);
        s.push(pad.as_bytes());
        s.push(b"ghp_CutLeak0123456789abcdefghij after");
        s.push("y ".repeat(STDERR_KEEP).as_bytes());
        s.push(b"before ghp_TailLeak0123456789abcdefghij");
        s.push(&[b'z'; STDERR_KEEP - 10]);
        s.push(b" end");
        let t = s.text();
        assert!(t.contains("bytes left out"), "{t}");
        assert!(!t.contains("ghp_Cut") && !t.contains("Leak0123"), "{t}");
        assert!(t.ends_with(" end"), "{t}");
    }

    #[test]
    fn printable_escapes_terminal_controls() {
        assert_eq!(
            printable("a\u{1b}[31mb\u{7}\u{202e}\u{fffd}", 100, false),
            "a\\x1b[31mb\\x07<U+202E><U+FFFD>"
        );
        // a bound before redaction: whole words only
        assert_eq!(printable("abc def", 5, false), "abc…");
        assert_eq!(printable("abcdef", 3, false), "…");
        assert_eq!(printable("abc", 3, false), "abc");
    }

    #[test]
    fn sse_events_are_split_and_bounded() {
        let stream = b": comment\nevent: endpoint\ndata: /messages?s=1\n\nevent: message\ndata: {\"id\":1,\ndata: \"result\":{}}\n\n";
        let mut got = Vec::new();
        read_sse(&stream[..], &mut |e, d| {
            got.push((e.map(str::to_string), d.to_string()));
            true
        })
        .unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0.as_deref(), Some("endpoint"));
        assert_eq!(got[1].1, "{\"id\":1,\n\"result\":{}}");
    }

    #[test]
    fn relative_endpoints_resolve() {
        assert_eq!(
            resolve_url("http://h:1/sse", "/messages?x=1"),
            "http://h:1/messages?x=1"
        );
        assert_eq!(resolve_url("http://h:1/a/sse", "m"), "http://h:1/a/m");
        assert_eq!(resolve_url("http://h:1/sse", "http://o/m"), "http://o/m");
        assert_eq!(resolve_url("https://h:1/sse", "//o:2/m"), "https://o:2/m");
        assert_eq!(
            resolve_url("http://h:1/sse", "/m?next=http://o/x"),
            "http://h:1/m?next=http://o/x"
        );
    }

    #[test]
    fn origins_are_scheme_host_and_port() {
        let o = |u: &str| Origin::of(u);
        assert_eq!(o("http://h/a"), o("http://H:80/b?c"));
        assert_eq!(o("https://h/a"), o("https://h:443/"));
        assert_ne!(o("http://h/a"), o("https://h/a"));
        assert_ne!(o("http://h:1/a"), o("http://h:2/a"));
        assert_ne!(o("http://h/a"), o("http://g/a"));
        // userinfo names no host: the host is what follows it
        assert_eq!(o("http://h:1@g:2/x"), o("http://g:2/"));
        assert_eq!(o("ftp://h/a"), None);
        assert_eq!(o("/relative"), None);
        assert_eq!(o("http://h:8080/a").unwrap().to_string(), "http://h:8080");
        assert_eq!(o("https://h:443/a").unwrap().to_string(), "https://h");
        let allowed = o("http://127.0.0.1:1/sse").unwrap();
        assert!(same_origin("http://127.0.0.1:1/m", &allowed, CrossOrigin::SseEndpoint).is_ok());
        let refused = same_origin(
            "http://127.0.0.1:2/steal",
            &allowed,
            CrossOrigin::SseEndpoint,
        )
        .unwrap_err();
        assert_eq!(refused.category(), "cross-origin-endpoint");
        assert!(
            refused.to_string().starts_with(
                "Endpoint origin does not match connection origin: http://127.0.0.1:2 "
            )
        );
    }
}
