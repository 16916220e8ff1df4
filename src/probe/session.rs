//! One connection driven the way Claude Code drives it, recording every message and
//! every step.
//!
//! Observed on the wire (2.1.288 and 2.1.332, the stub's `--trace`):
//! - modern: `server/discover` (id `server-discover-probe-1`, `params._meta` carrying
//!   `io.modelcontextprotocol/protocolVersion: "2026-07-28"`, clientInfo and client
//!   capabilities), then `tools/list` (id 0) with the same `_meta`; no `initialize`, no
//!   `notifications/initialized`;
//! - discover answered with an error, or without 2026-07-28 among `supportedVersions`:
//!   the classic handshake follows on the same connection;
//! - classic: `initialize` (`protocolVersion: "2025-11-25"`), `notifications/initialized`,
//!   then `tools/list` without params; the answer's `protocolVersion` must be one of
//!   [`SUPPORTED_LEGACY_VERSIONS`] (the list in both binaries).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::transport::{Failure, Incoming, StderrLog, Transport, printable};
use crate::claude_code::lifecycle::List;

pub const MODERN_VERSION: &str = "2026-07-28";
/// What Claude Code proposes in `initialize`.
pub const LEGACY_OFFERED_VERSION: &str =
    crate::claude_code::lifecycle::LEGACY_HANDSHAKE_NEWEST.value;
/// The versions Claude Code accepts in an `initialize` answer (2.1.288 and 2.1.332).
pub const SUPPORTED_LEGACY_VERSIONS: [&str; 5] = [
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
    "2024-10-07",
];
pub const DISCOVER_ID: &str = "server-discover-probe-1";
/// The `_meta` key that makes a request one of the 2026-07-28 revision.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// Events kept in one transcript; later ones are counted, not kept.
const MAX_EVENTS: usize = 2000;
/// Payload bytes kept per transcript event.
const MAX_PAYLOAD_BYTES: usize = 64 * 1024;
/// Noise lines kept as examples.
const MAX_NOISE_KEPT: usize = 5;

/// How the client starts: Claude Code's negotiation on, or forced to legacy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `server/discover` first, the classic handshake when it fails.
    Discover,
    /// The classic `initialize` only.
    Legacy,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Discover => "discover",
            Mode::Legacy => "legacy",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NegotiatedEra {
    Modern,
    Legacy,
}

/// Limits for one connection.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The whole connection, handshake and every page (`--timeout`).
    pub budget: Duration,
    /// Claude Code's `MCP_TIMEOUT`: the handshake (counted from the spawn) and each
    /// `tools/list` request may take this long, each on its own; the probe waits this
    /// long plus [`WAIT_MARGIN`] (never past `budget`) so that it knows what Claude Code
    /// concludes. `None`: `budget` alone.
    pub request_wait: Option<Duration>,
    pub max_pages: usize,
    pub max_tools: usize,
}

/// How much longer than Claude Code's limit the probe waits for an answer, so that an
/// answer just past the limit is seen as late rather than missing.
pub const WAIT_MARGIN: Duration = Duration::from_millis(100);

/// After the `initialize` answer, how long the probe reads what else the server wrote
/// before it sends `notifications/initialized`: Claude Code reads the server's output
/// in chunks, so lines written together with the answer are read before it sends
/// anything else.
const SETTLE_AFTER_INITIALIZE: Duration = Duration::from_millis(10);
/// After the last list, how long the probe waits for more output (a second answer to a
/// request already answered), and at most how long it reads.
const SETTLE_AT_END: Duration = Duration::from_millis(50);
const SETTLE_AT_END_MAX: Duration = Duration::from_millis(500);

impl Default for Limits {
    fn default() -> Self {
        Limits {
            budget: Duration::from_secs(30),
            request_wait: None,
            max_pages: 250,
            max_tools: 10_000,
        }
    }
}

/// One timed step of the lifecycle.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub name: String,
    /// What was sent (method and id), if anything.
    pub sent: Option<String>,
    /// What came back, in a few words.
    pub received: Option<String>,
    pub ms: u64,
    pub ok: bool,
    pub detail: Option<String>,
}

/// One transcript line, in the shape of the debugging guide's minimized transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub seq: usize,
    pub connection_id: String,
    pub direction: &'static str,
    pub t_ms: u64,
    pub id: Option<Value>,
    pub method: Option<String>,
    pub error_category: Option<String>,
    pub payload: Value,
}

/// Why the tools list is incomplete (the connection itself was fine).
#[derive(Debug, Clone, PartialEq)]
pub enum ListFailure {
    /// A JSON-RPC error answer.
    RpcError {
        page: usize,
        code: Option<i64>,
        message: String,
    },
    Closed {
        page: usize,
        detail: String,
    },
    Timeout {
        page: usize,
    },
    RepeatedCursor {
        page: usize,
        cursor: String,
    },
    PageCap {
        pages: usize,
    },
    ToolCap {
        tools: usize,
    },
    /// Transport trouble mid-list (HTTP status...).
    Transport {
        page: usize,
        failure: Failure,
    },
}

impl std::fmt::Display for ListFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ListFailure::RpcError {
                page,
                code,
                message,
            } => match code {
                Some(c) => write!(f, "page {page}: JSON-RPC error {c}: {message}"),
                None => write!(f, "page {page}: JSON-RPC error: {message}"),
            },
            ListFailure::Closed { page, detail } => {
                write!(f, "page {page}: connection closed ({detail})")
            }
            ListFailure::Timeout { page } => write!(f, "page {page}: no answer in time"),
            ListFailure::RepeatedCursor { page, cursor } => write!(
                f,
                "page {page}: nextCursor {cursor:?} was already followed (a pagination loop)"
            ),
            ListFailure::PageCap { pages } => {
                write!(f, "stopped after {pages} pages (the page cap)")
            }
            ListFailure::ToolCap { tools } => {
                write!(f, "stopped after {tools} tools (the tool cap)")
            }
            ListFailure::Transport { page, failure } => write!(f, "page {page}: {failure}"),
        }
    }
}

/// A list fetched after the handshake other than `tools/list` (the server declared the
/// capability): `prompts/list`, `resources/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct ListFetch {
    pub list: List,
    /// The result, or why there is none (a JSON-RPC error, a timeout...).
    pub result: Result<Value, ListFetchError>,
}

/// Why a list fetched after the handshake has no result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ListFetchError {
    /// A JSON-RPC error answer: `error -32601: Method not found`.
    #[error("{summary}")]
    Rpc { code: Option<i64>, summary: String },
    /// The connection failed while waiting (closed, timed out...).
    #[error("{0}")]
    Transport(Failure),
}

/// A response the client could not take as the answer to the request it was waiting for.
#[derive(Debug, Clone, PartialEq)]
pub struct StrayResponse {
    pub id: Value,
    pub kind: StrayKind,
    /// The method of the request with that id, when the client sent one.
    pub method: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrayKind {
    /// It arrived before the request with its id was sent.
    BeforeRequest,
    /// A second answer to a request already answered: one of the two was written before
    /// the server read the request.
    Duplicate,
    /// No request ever had its id.
    UnknownId,
}

impl StrayKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StrayKind::BeforeRequest => "before-request",
            StrayKind::Duplicate => "duplicate",
            StrayKind::UnknownId => "unknown-id",
        }
    }
}

/// Everything one connection found.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub mode: Mode,
    pub connection_id: String,
    /// Set when the connection failed before the tools could be listed.
    pub failure: Option<Failure>,
    pub era: Option<NegotiatedEra>,
    pub negotiated_version: Option<String>,
    /// Why discover did not lead to the modern era (error code, offered versions).
    pub discover_note: Option<String>,
    pub capabilities: Option<Value>,
    pub server_info: Option<Value>,
    /// Each `tools/list` result, in order.
    pub pages: Vec<Value>,
    pub list_failure: Option<ListFailure>,
    pub steps: Vec<Step>,
    pub events: Vec<Event>,
    pub events_dropped: usize,
    pub noise_lines: usize,
    pub noise_examples: Vec<String>,
    pub stderr: Option<StderrLog>,
    pub elapsed_ms: u64,
    /// `notifications/tools/list_changed` received during the connection.
    pub list_changed_seen: bool,
    /// From the start (the spawn) to the end of a successful handshake.
    pub handshake_ms: Option<u64>,
    /// `prompts/list` and `resources/list`, in the order sent.
    pub lists: Vec<ListFetch>,
    /// Responses not taken as an answer, in the order received.
    pub strays: Vec<StrayResponse>,
}

impl Attempt {
    fn new(mode: Mode, connection_id: String) -> Attempt {
        Attempt {
            mode,
            connection_id,
            failure: None,
            era: None,
            negotiated_version: None,
            discover_note: None,
            capabilities: None,
            server_info: None,
            pages: Vec::new(),
            list_failure: None,
            steps: Vec::new(),
            events: Vec::new(),
            events_dropped: 0,
            noise_lines: 0,
            noise_examples: Vec::new(),
            stderr: None,
            elapsed_ms: 0,
            list_changed_seen: false,
            handshake_ms: None,
            lists: Vec::new(),
            strays: Vec::new(),
        }
    }

    /// Whether the capabilities declare `key` (`prompts`, `resources`).
    pub fn declares(&self, key: &str) -> bool {
        self.capabilities
            .as_ref()
            .and_then(|c| c.get(key))
            .is_some_and(|t| !t.is_null())
    }

    pub fn has_tools_capability(&self) -> bool {
        self.capabilities
            .as_ref()
            .and_then(|c| c.get("tools"))
            .is_some_and(|t| !t.is_null())
    }

    pub fn declares_list_changed(&self) -> bool {
        self.capabilities
            .as_ref()
            .and_then(|c| c.pointer("/tools/listChanged"))
            == Some(&Value::Bool(true))
    }
}

fn client_info(claude_version: &str) -> Value {
    json!({
        "name": "claude-code",
        "title": "Claude Code",
        "version": claude_version,
        "description": "Anthropic's agentic coding tool",
        "websiteUrl": "https://claude.com/claude-code"
    })
}

fn client_capabilities() -> Value {
    json!({"roots": {"listChanged": true}, "elicitation": {"form": {}, "url": {}}})
}

fn modern_meta(claude_version: &str) -> Value {
    json!({
        META_PROTOCOL_VERSION: MODERN_VERSION,
        "io.modelcontextprotocol/clientInfo": client_info(claude_version),
        "io.modelcontextprotocol/clientCapabilities": client_capabilities(),
    })
}

/// The messages Claude Code sends (exact shapes, see the module documentation).
pub fn discover_request(claude_version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": DISCOVER_ID, "method": "server/discover",
           "params": {"_meta": modern_meta(claude_version)}})
}

pub fn initialize_request(id: u64, claude_version: &str) -> Value {
    json!({"method": "initialize", "params": {
        "protocolVersion": LEGACY_OFFERED_VERSION,
        "capabilities": client_capabilities(),
        "clientInfo": client_info(claude_version)},
        "jsonrpc": "2.0", "id": id})
}

pub fn tools_list_request(
    id: u64,
    era: NegotiatedEra,
    cursor: Option<&str>,
    claude_version: &str,
) -> Value {
    list_request("tools/list", id, era, cursor, claude_version)
}

/// `tools/list`, `prompts/list` or `resources/list` as Claude Code sends it (observed
/// with the stub's `--trace` on 2.1.288 and 2.1.332: no params in the legacy era,
/// `_meta` alone in the modern one).
pub fn list_request(
    method: &str,
    id: u64,
    era: NegotiatedEra,
    cursor: Option<&str>,
    claude_version: &str,
) -> Value {
    let mut params = serde_json::Map::new();
    if let Some(c) = cursor {
        params.insert("cursor".into(), Value::String(c.to_string()));
    }
    if era == NegotiatedEra::Modern {
        params.insert("_meta".into(), modern_meta(claude_version));
    }
    let mut req = json!({"method": method, "jsonrpc": "2.0", "id": id});
    if !params.is_empty() {
        req["params"] = Value::Object(params);
    }
    req
}

/// What a request got back.
enum Answer {
    Result(Value),
    Error { code: Option<i64>, message: String },
}

struct Driver<'a> {
    t: &'a mut dyn Transport,
    a: Attempt,
    start: Instant,
    /// The current request's deadline.
    deadline: Instant,
    /// The connection's (`--timeout`).
    cap: Instant,
    /// Claude Code's `MCP_TIMEOUT` plus the margin, when known.
    wait: Option<Duration>,
    claude_version: String,
    /// Requests sent: id (as JSON text) and method.
    sent: Vec<(String, String)>,
    answered: HashSet<String>,
    /// Responses whose id had not been sent when they arrived.
    unmatched: Vec<Value>,
    watch: Option<&'a super::WatchSlot>,
}

impl Driver<'_> {
    fn ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    fn event(
        &mut self,
        direction: &'static str,
        msg: Option<&Value>,
        error_category: Option<String>,
        extra: Option<Value>,
    ) {
        if self.a.events.len() >= MAX_EVENTS {
            self.a.events_dropped += 1;
            return;
        }
        let id = msg.and_then(|m| m.get("id")).cloned();
        let method = msg
            .and_then(|m| m.get("method"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let payload = match (msg, extra) {
            (_, Some(x)) => x,
            (Some(m), None) => bounded_payload(m),
            (None, None) => Value::Null,
        };
        let seq = self.a.events.len() + self.a.events_dropped + 1;
        let t_ms = self.ms();
        self.a.events.push(Event {
            seq,
            connection_id: self.a.connection_id.clone(),
            direction,
            t_ms,
            id,
            method,
            error_category,
            payload,
        });
    }

    fn step(&mut self, step: Step) {
        self.a.steps.push(step);
    }

    /// The deadline of a request sent now, outside the handshake.
    fn request_deadline(&self) -> Instant {
        match self.wait {
            Some(w) => self.cap.min(Instant::now() + w),
            None => self.cap,
        }
    }

    /// A response that is not the answer being waited for: in the transcript as
    /// `unexpected-id`, and kept to say what it was.
    fn stray(&mut self, m: &Value) {
        self.event(
            "server-to-client",
            Some(m),
            Some("unexpected-id".into()),
            None,
        );
        let id = m.get("id").cloned().unwrap_or(Value::Null);
        let key = id.to_string();
        if self.answered.contains(&key) {
            let method = self.method_of(&key);
            self.a.strays.push(StrayResponse {
                id,
                kind: StrayKind::Duplicate,
                method,
            });
        } else {
            self.unmatched.push(id);
        }
    }

    fn method_of(&self, key: &str) -> Option<String> {
        self.sent
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, m)| m.clone())
    }

    /// Reads what the server writes until it is quiet for `quiet` (at most `max`),
    /// answering its requests and noting stray responses; the connection's end stops it.
    fn drain(&mut self, quiet: Duration, max: Duration) {
        let until = Instant::now() + max;
        loop {
            let deadline = until.min(Instant::now() + quiet);
            match self.t.recv(deadline) {
                Ok(Incoming::Message(m)) => {
                    if m.get("method").is_some() {
                        self.event("server-to-client", Some(&m), None, None);
                        if self.answer_server(&m).is_err() {
                            return;
                        }
                    } else {
                        self.stray(&m);
                    }
                }
                Ok(Incoming::Noise { preview, bytes }) => self.noise(preview, bytes),
                Ok(Incoming::Closed { .. }) | Err(_) => return,
            }
            if Instant::now() >= until {
                return;
            }
        }
    }

    fn noise(&mut self, preview: String, bytes: usize) {
        self.a.noise_lines += 1;
        if self.a.noise_examples.len() < MAX_NOISE_KEPT {
            self.a.noise_examples.push(preview.clone());
        }
        self.event(
            "server-to-client",
            None,
            Some("non-json".into()),
            Some(json!({"bytes": bytes, "preview": preview})),
        );
    }

    /// The responses left unmatched at the end: an id sent later arrived before its
    /// request; one never sent is unknown.
    fn settle_strays(&mut self) {
        for id in std::mem::take(&mut self.unmatched) {
            let method = self.method_of(&id.to_string());
            let kind = if method.is_some() {
                StrayKind::BeforeRequest
            } else {
                StrayKind::UnknownId
            };
            self.a.strays.push(StrayResponse { id, kind, method });
        }
    }

    fn send(&mut self, msg: &Value) -> Result<(), Failure> {
        self.event("client-to-server", Some(msg), None, None);
        let r = self.t.send(msg, self.deadline);
        if let Err(f) = &r {
            self.event(
                "server-to-client",
                None,
                Some(f.category()),
                Some(Value::String(f.to_string())),
            );
        }
        r
    }

    /// Sends a request and waits for the answer with the same id, answering the
    /// server's own requests and counting noise meanwhile.
    fn request(&mut self, msg: &Value) -> Result<Answer, Failure> {
        let id = msg.get("id").cloned().unwrap_or(Value::Null);
        let method = msg
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        // Claude Code's limit runs from the spawn for the handshake, and from each
        // request for the lists: the wait is reported the same way.
        let handshake = matches!(method.as_str(), "initialize" | "server/discover");
        self.sent.push((id.to_string(), method));
        let sent_at = Instant::now();
        self.send(msg)?;
        loop {
            let inc = match self.t.recv(self.deadline) {
                Ok(i) => i,
                Err(f) => {
                    let f = match f {
                        Failure::Timeout { .. } => Failure::Timeout {
                            waited_ms: if handshake {
                                self.ms()
                            } else {
                                sent_at.elapsed().as_millis() as u64
                            },
                        },
                        other => other,
                    };
                    self.event(
                        "server-to-client",
                        None,
                        Some(f.category()),
                        Some(Value::String(f.to_string())),
                    );
                    return Err(f);
                }
            };
            match inc {
                Incoming::Closed { detail } => {
                    self.event(
                        "server-to-client",
                        None,
                        Some("connection-closed".into()),
                        Some(Value::String(detail.clone())),
                    );
                    return Err(Failure::Closed { detail });
                }
                Incoming::Noise { preview, bytes } => self.noise(preview, bytes),
                Incoming::Message(m) => {
                    if m.get("method").is_some() {
                        self.event("server-to-client", Some(&m), None, None);
                        self.answer_server(&m)?;
                        continue;
                    }
                    if m.get("id") != Some(&id) {
                        self.stray(&m);
                        continue;
                    }
                    self.answered.insert(id.to_string());
                    if let Some(e) = m.get("error") {
                        self.event(
                            "server-to-client",
                            Some(&m),
                            Some("jsonrpc-error".into()),
                            None,
                        );
                        return Ok(Answer::Error {
                            code: e.get("code").and_then(Value::as_i64),
                            message: e
                                .get("message")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_string(),
                        });
                    }
                    match m.get("result") {
                        Some(r) => {
                            self.event("server-to-client", Some(&m), None, None);
                            return Ok(Answer::Result(r.clone()));
                        }
                        None => {
                            self.event(
                                "server-to-client",
                                Some(&m),
                                Some("no-result".into()),
                                None,
                            );
                            return Ok(Answer::Error {
                                code: None,
                                message: "a response with neither result nor error".into(),
                            });
                        }
                    }
                }
            }
        }
    }

    /// The server asked something (or notified): answer as a client with no roots.
    fn answer_server(&mut self, m: &Value) -> Result<(), Failure> {
        let method = m.get("method").and_then(Value::as_str).unwrap_or("");
        if method == "notifications/tools/list_changed" {
            self.a.list_changed_seen = true;
        }
        let Some(id) = m.get("id") else {
            return Ok(());
        };
        let reply = match method {
            "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            "roots/list" => json!({"jsonrpc": "2.0", "id": id, "result": {"roots": []}}),
            _ => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})
            }
        };
        self.send(&reply)
    }

    fn timed_request(&mut self, name: &str, msg: &Value) -> (Result<Answer, Failure>, u64, String) {
        if let Some(w) = self.watch {
            w.step(&format!("{name} ({})", self.a.mode.as_str()), self.deadline);
        }
        let t = Instant::now();
        let r = self.request(msg);
        let sent = format!(
            "{} (id {})",
            msg.get("method").and_then(Value::as_str).unwrap_or(name),
            msg.get("id").map(Value::to_string).unwrap_or_default()
        );
        (r, t.elapsed().as_millis() as u64, sent)
    }
}

/// The attempt of a connection that could not even be opened.
pub fn failed_attempt(
    mode: Mode,
    connection_id: String,
    step: Step,
    failure: Failure,
    start: Instant,
) -> Attempt {
    let mut a = Attempt::new(mode, connection_id);
    a.steps.push(step);
    a.failure = Some(failure);
    a.elapsed_ms = start.elapsed().as_millis() as u64;
    a
}

fn bounded_payload(m: &Value) -> Value {
    let text = serde_json::to_string(m).unwrap_or_default();
    if text.len() <= MAX_PAYLOAD_BYTES {
        return m.clone();
    }
    let mut cut = MAX_PAYLOAD_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    // Cut before redaction: whole words (JSON members) only, so no value is left as a
    // prefix its rule no longer recognises.
    let preview = crate::text::whole_words(&text, text[..cut].chars().count());
    json!({"truncated": true, "bytes": text.len(), "preview": preview})
}

/// Characters kept of a JSON-RPC error's message in a step (the whole message stays in
/// the failure and the transcript): a bound on what one line may hold, far above what a
/// server's reason needs.
const ERROR_MESSAGE_KEPT: usize = 2000;

fn summarize_error(code: Option<i64>, message: &str) -> String {
    match code {
        Some(c) => format!(
            "error {c}: {}",
            printable(message, ERROR_MESSAGE_KEPT, false)
        ),
        None => format!("error: {}", printable(message, ERROR_MESSAGE_KEPT, false)),
    }
}

/// Runs the lifecycle on an open transport: handshake per `mode`, then every
/// `tools/list` page. `connect_ms` and `connect_step` describe how the transport was
/// opened (the spawn), already done by the caller; `watch` is told each wait as it
/// begins.
#[allow(clippy::too_many_arguments)]
pub fn run(
    t: &mut dyn Transport,
    mode: Mode,
    connection_id: String,
    claude_version: &str,
    limits: Limits,
    start: Instant,
    connect_step: Option<Step>,
    watch: Option<&super::WatchSlot>,
) -> Attempt {
    let cap = start + limits.budget;
    let wait = limits.request_wait.map(|w| w + WAIT_MARGIN);
    let mut d = Driver {
        t,
        a: Attempt::new(mode, connection_id),
        start,
        // Claude Code's clock for the handshake starts before the spawn
        deadline: wait.map_or(cap, |w| cap.min(start + w)),
        cap,
        wait,
        claude_version: claude_version.to_string(),
        sent: Vec::new(),
        answered: HashSet::new(),
        unmatched: Vec::new(),
        watch,
    };
    if let Some(s) = connect_step {
        d.step(s);
    }
    let mut next_id: u64 = 0;
    if let Err(f) = handshake(&mut d, mode, &mut next_id) {
        d.a.failure = Some(f);
    } else {
        d.a.handshake_ms = Some(d.ms());
        // the order Claude Code sends them in (the stub's --trace, 2.1.288 and 2.1.332):
        // modern prompts/list, resources/list, then tools/list; legacy tools/list first
        let modern = d.a.era == Some(NegotiatedEra::Modern);
        if modern {
            fetch_lists(&mut d, &mut next_id);
        }
        if d.a.has_tools_capability() {
            list_tools(&mut d, &mut next_id, limits);
        } else {
            d.step(Step {
                name: "tools/list".into(),
                sent: None,
                received: None,
                ms: 0,
                ok: true,
                detail: Some("not sent: the server did not declare the tools capability".into()),
            });
        }
        if !modern {
            fetch_lists(&mut d, &mut next_id);
        }
        d.drain(SETTLE_AT_END, SETTLE_AT_END_MAX);
    }
    d.settle_strays();
    d.a.stderr = d.t.stderr();
    d.a.elapsed_ms = d.ms();
    d.a
}

fn handshake(d: &mut Driver, mode: Mode, next_id: &mut u64) -> Result<(), Failure> {
    if mode == Mode::Discover {
        let req = discover_request(&d.claude_version);
        let (r, ms, sent) = d.timed_request("server/discover", &req);
        match r {
            Ok(Answer::Result(res)) => {
                let offered: Vec<String> = res
                    .get("supportedVersions")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                if offered.iter().any(|v| v == MODERN_VERSION) {
                    d.a.era = Some(NegotiatedEra::Modern);
                    d.a.negotiated_version = Some(MODERN_VERSION.into());
                    d.a.capabilities = res.get("capabilities").cloned();
                    d.a.server_info = res.get("serverInfo").cloned();
                    d.step(Step {
                        name: "server/discover".into(),
                        sent: Some(sent),
                        received: Some(format!("result, supportedVersions {offered:?}")),
                        ms,
                        ok: true,
                        detail: Some("modern era (2026-07-28)".into()),
                    });
                    return Ok(());
                }
                let note = format!(
                    "server/discover offers {offered:?}, not {MODERN_VERSION}: classic handshake"
                );
                d.step(Step {
                    name: "server/discover".into(),
                    sent: Some(sent),
                    received: Some(format!("result, supportedVersions {offered:?}")),
                    ms,
                    ok: true,
                    detail: Some(note.clone()),
                });
                d.a.discover_note = Some(note);
            }
            Ok(Answer::Error { code, message }) => {
                let note = format!(
                    "server/discover answered {}: classic handshake",
                    summarize_error(code, &message)
                );
                d.step(Step {
                    name: "server/discover".into(),
                    sent: Some(sent),
                    received: Some(summarize_error(code, &message)),
                    ms,
                    ok: true,
                    detail: Some(note.clone()),
                });
                d.a.discover_note = Some(note);
            }
            // Streamable HTTP: a server without the 2026-07-28 routing answers the
            // discover POST with an HTTP error (the TypeScript SDK's stateful example and
            // Python `mcp` 1.x: 400 without a session). Claude Code (2.1.288, 2.1.332)
            // then sends the classic initialize on the same connection; a 401 is not
            // such an answer (it asks for auth).
            Err(Failure::HttpStatus { status, body }) => {
                let received = format!("HTTP {status}: {body}");
                let note = format!("server/discover answered HTTP {status}: classic handshake");
                d.step(Step {
                    name: "server/discover".into(),
                    sent: Some(sent),
                    received: Some(received),
                    ms,
                    ok: true,
                    detail: Some(note.clone()),
                });
                d.a.discover_note = Some(note);
            }
            Err(f) => {
                d.step(Step {
                    name: "server/discover".into(),
                    sent: Some(sent),
                    received: None,
                    ms,
                    ok: false,
                    detail: Some(f.to_string()),
                });
                return Err(f);
            }
        }
    }
    // the classic handshake
    let req = initialize_request(*next_id, &d.claude_version);
    *next_id += 1;
    let (r, ms, sent) = d.timed_request("initialize", &req);
    let fail = |d: &mut Driver, received: Option<String>, f: Failure| {
        d.step(Step {
            name: "initialize".into(),
            sent: Some(sent.clone()),
            received,
            ms,
            ok: false,
            detail: Some(f.to_string()),
        });
        Err(f)
    };
    let res = match r {
        Ok(Answer::Result(res)) => res,
        Ok(Answer::Error { code, message }) => {
            let s = summarize_error(code, &message);
            return fail(
                d,
                Some(s.clone()),
                Failure::BadInitResult {
                    message: format!("initialize answered {s}"),
                },
            );
        }
        Err(f) => return fail(d, None, f),
    };
    let version = res.get("protocolVersion").and_then(Value::as_str);
    let Some(version) = version.map(str::to_string) else {
        return fail(
            d,
            Some("result without protocolVersion".into()),
            Failure::BadInitResult {
                message: "no protocolVersion string in the result".into(),
            },
        );
    };
    if !SUPPORTED_LEGACY_VERSIONS.contains(&version.as_str()) {
        return fail(
            d,
            Some(format!("result, protocolVersion {version:?}")),
            Failure::VersionUnsupported { version },
        );
    }
    d.a.era = Some(NegotiatedEra::Legacy);
    d.t.negotiated(&version);
    d.a.negotiated_version = Some(version.clone());
    d.a.capabilities = res.get("capabilities").cloned();
    d.a.server_info = res.get("serverInfo").cloned();
    d.step(Step {
        name: "initialize".into(),
        sent: Some(sent),
        received: Some(format!("result, protocolVersion {version:?}")),
        ms,
        ok: true,
        detail: Some(format!("legacy era ({version})")),
    });
    d.drain(SETTLE_AFTER_INITIALIZE, SETTLE_AFTER_INITIALIZE);
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let t = Instant::now();
    let r = d.send(&note);
    let ms = t.elapsed().as_millis() as u64;
    d.step(Step {
        name: "notifications/initialized".into(),
        sent: Some("notifications/initialized".into()),
        received: None,
        ms,
        ok: r.is_ok(),
        detail: r.as_ref().err().map(|f| f.to_string()),
    });
    r
}

fn list_tools(d: &mut Driver, next_id: &mut u64, limits: Limits) {
    let era = d.a.era.unwrap_or(NegotiatedEra::Legacy);
    let mut cursor: Option<String> = None;
    let mut followed: HashSet<String> = HashSet::new();
    let mut tools = 0usize;
    loop {
        let page = d.a.pages.len() + 1;
        if page > limits.max_pages {
            d.a.list_failure = Some(ListFailure::PageCap {
                pages: limits.max_pages,
            });
            return;
        }
        let req = tools_list_request(*next_id, era, cursor.as_deref(), &d.claude_version);
        *next_id += 1;
        d.deadline = d.request_deadline();
        let name = format!("tools/list page {page}");
        let (r, ms, sent) = d.timed_request(&name, &req);
        let failure = match r {
            Ok(Answer::Result(res)) => {
                let n = res
                    .get("tools")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                tools += n;
                let next = res
                    .get("nextCursor")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                d.step(Step {
                    name,
                    sent: Some(sent),
                    received: Some(match &next {
                        Some(c) => format!(
                            "result, {}, nextCursor {:?}",
                            crate::text::count(n, "tool"),
                            printable(c, 40, false)
                        ),
                        None => format!("result, {}", crate::text::count(n, "tool")),
                    }),
                    ms,
                    ok: true,
                    detail: None,
                });
                d.a.pages.push(res);
                match next.filter(|c| !c.is_empty()) {
                    None => return,
                    Some(c) if !followed.insert(c.clone()) => {
                        ListFailure::RepeatedCursor { page, cursor: c }
                    }
                    Some(_) if tools > limits.max_tools => ListFailure::ToolCap { tools },
                    Some(c) => {
                        cursor = Some(c);
                        continue;
                    }
                }
            }
            Ok(Answer::Error { code, message }) => {
                d.step(Step {
                    name,
                    sent: Some(sent),
                    received: Some(summarize_error(code, &message)),
                    ms,
                    ok: false,
                    detail: None,
                });
                ListFailure::RpcError {
                    page,
                    code,
                    message,
                }
            }
            Err(f) => {
                d.step(Step {
                    name,
                    sent: Some(sent),
                    received: None,
                    ms,
                    ok: false,
                    detail: Some(f.to_string()),
                });
                match f {
                    Failure::Closed { detail } => ListFailure::Closed { page, detail },
                    Failure::Timeout { .. } => ListFailure::Timeout { page },
                    other => ListFailure::Transport {
                        page,
                        failure: other,
                    },
                }
            }
        };
        d.a.list_failure = Some(failure);
        return;
    }
}

/// `prompts/list` then `resources/list`, each when the server declared its capability
/// (one page each: Claude Code's walk of these lists is not modelled).
fn fetch_lists(d: &mut Driver, next_id: &mut u64) {
    let era = d.a.era.unwrap_or(NegotiatedEra::Legacy);
    for (list, key) in [(List::Prompts, "prompts"), (List::Resources, "resources")] {
        if !d.a.declares(key) {
            continue;
        }
        let req = list_request(list.method(), *next_id, era, None, &d.claude_version);
        *next_id += 1;
        d.deadline = d.request_deadline();
        let (r, ms, sent) = d.timed_request(list.method(), &req);
        let closed = matches!(r, Err(Failure::Closed { .. }));
        let (result, received, ok) = match r {
            Ok(Answer::Result(v)) => {
                let n = v
                    .get(list.what())
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                (Ok(v), format!("result, {n} {}", list.what()), true)
            }
            Ok(Answer::Error { code, message }) => {
                let summary = summarize_error(code, &message);
                let received = summary.clone();
                (Err(ListFetchError::Rpc { code, summary }), received, false)
            }
            Err(f) => {
                let received = f.to_string();
                (Err(ListFetchError::Transport(f)), received, false)
            }
        };
        d.step(Step {
            name: list.method().into(),
            sent: Some(sent),
            received: Some(received),
            ms,
            ok,
            detail: None,
        });
        d.a.lists.push(ListFetch { list, result });
        if closed {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_cut_inside_a_token_previews_none_of_it() {
        // The token straddles the 64 KiB preview bound.
        let pad = "a".repeat(MAX_PAYLOAD_BYTES - 30);
        let m = json!({"pad": pad, "token": "ghp_CutLeak0123456789abcdefghijklmnop", "more": "x".repeat(100)});
        let v = bounded_payload(&m);
        assert_eq!(v["truncated"], true);
        let preview = v["preview"].as_str().unwrap();
        assert!(
            !preview.contains("ghp_"),
            "{}",
            &preview[preview.len() - 40..]
        );
        assert!(
            preview.ends_with(&format!("{pad}\"")),
            "the whole first member is kept"
        );
    }
}
