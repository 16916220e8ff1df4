//! What one decoded message says, independent of where it came from.
//!
//! Wording drifts between Claude Code releases and values may read `[redacted]`, so each
//! pattern keys on the stable core of a message (observed in 2.1.280 to 2.1.332, see
//! docs/claude-code.md) rather than on whole sentences.

use std::sync::LazyLock;

use regex::Regex;

use crate::classify::verdict::{Cause, Era};
use crate::text::needles::Needles;
use crate::text::recent::Recent;

use crate::classify::verdict::Transport;
use crate::claude_code::markers::{
    CLOSED_MARKER, CONNECTED_MARKERS, CONNECTION_FAILURE_MARKERS, LIST_CHANGED_MARKER,
    PAGE_CAP_MARKER, PROMPTS_FAILURE_MARKERS, RESOURCES_FAILURE_MARKERS, STARTING_MARKER,
    TOLERATED_MARKERS, TOOL_CALL_MARKER, TOOL_NAME_LIMIT_MARKER, TOOL_NAME_LIMIT_START,
    TOOLS_FAILURE_MARKERS, TRANSPORT_NAMED, TRANSPORT_STARTS, VERSION_MARKER,
};

/// The transport a record names at its start (never from server stderr, which starts
/// otherwise).
pub fn transport_of(message: &str) -> Option<Transport> {
    let m = message.trim_start();
    if let Some(rest) = m.strip_prefix(TRANSPORT_NAMED) {
        let word = &rest[..rest.find(')')?];
        return Some(if word == "stdio" {
            Transport::Stdio
        } else {
            Transport::Remote
        });
    }
    TRANSPORT_STARTS
        .iter()
        .find(|(start, _)| m.starts_with(start))
        .map(|(_, remote)| {
            if *remote {
                Transport::Remote
            } else {
                Transport::Stdio
            }
        })
}

#[derive(Debug, Clone, PartialEq)]
pub enum Signal {
    /// `Connection established with capabilities: {...}` (era parsed from the JSON).
    Connected {
        era: Option<Era>,
        version: Option<String>,
        /// The whole capabilities object, to tell whether two sessions met the same
        /// server in the same way.
        capabilities: Option<std::sync::Arc<serde_json::Value>>,
    },
    /// The client accepted a non-compliant tools/list by filling in fields.
    Tolerated { fields: Vec<String> },
    /// tools/list was rejected (a retry notice or the final error).
    ToolsFailed {
        cause: Cause,
        bad_tool_path: Option<String>,
        is_final: bool,
    },
    /// The classic handshake got a version the client did not propose; `modern`: a
    /// version newer than every one that handshake proposes (a server that speaks only
    /// the 2026-07-28 revision).
    VersionUnsupported { modern: bool },
    /// A connection attempt failed.
    ConnectionFailed { cause: Cause },
    /// The model called one of the server's tools: its tools were loaded.
    ToolCalled,
    /// A connection closed after this many seconds. Decides nothing by itself; a long
    /// one shows the session was more than a health check.
    Closed { secs: u64 },
    /// `Starting connection with timeout of 30000ms`: the limit (`MCP_TIMEOUT`) of the
    /// connection that follows. Decides nothing.
    Starting { timeout_ms: u64 },
    /// Claude Code stopped following `nextCursor` at its page cap.
    PageCap,
    /// `Received tools/list_changed notification, refreshing tools`.
    ListChanged,
    /// resources/list (`resources`) or prompts/list (`prompts`) was rejected.
    ListFailed { list: &'static str, is_final: bool },
    /// `Tool "mcp__…" is not sent to Claude: its name has 129 characters and the API
    /// accepts at most 128`: that one tool is lost, the others load.
    ToolNameTooLong,
}

/// Reads one decoded message. `None` for everything that decides nothing, including
/// every `Server stderr:` line: servers write what they like there, and Claude Code logs
/// it under the `error` key even for healthy servers.
pub fn read_signal(message: &str) -> Option<Signal> {
    let m = message.trim_start();
    if m.starts_with("Server stderr") {
        return None;
    }
    remembered_signal(m)
}

thread_local! {
    /// The signals of the messages a thread read last (see [`Recent`]): what a message
    /// says is worked out once, then is a hash and a comparison away.
    static SEEN: std::cell::RefCell<Recent<Option<Signal>>> =
        std::cell::RefCell::new(Recent::default());
}

/// [`read_signal`] of a message that is not server stderr, trimmed at its start, from
/// the messages seen last when it is one of them.
fn remembered_signal(m: &str) -> Option<Signal> {
    SEEN.with(|seen| seen.borrow_mut().get_or_insert_with(m, || signal_of(m)))
}

/// [`read_signal`] of a message that is not server stderr, trimmed at its start.
fn signal_of(m: &str) -> Option<Signal> {
    // The tool's name comes first and may hold any text (another marker too): the
    // record is known by its start and by what follows the name's closing quote.
    if m.starts_with(TOOL_NAME_LIMIT_START)
        && let Some(at) = m.rfind(TOOL_NAME_LIMIT_MARKER)
        && m[..at].ends_with('"')
        && m[at + TOOL_NAME_LIMIT_MARKER.len()..].starts_with(|c: char| c.is_ascii_digit())
    {
        return Some(Signal::ToolNameTooLong);
    }
    if let Some(rest) = m.strip_prefix(STARTING_MARKER) {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        return (digits > 0 && rest[digits..].starts_with("ms")).then(|| Signal::Starting {
            timeout_ms: rest[..digits].parse().unwrap_or(u64::MAX),
        });
    }
    // The message that opens every connection, its capabilities after the marker: no
    // needle can start before the marker at its start, so the walk over the JSON (the
    // longest part of the commonest decisive message) is not needed to find it first.
    let found = if m.starts_with(CAPABILITIES_MARKER) {
        Found::at_start(Needle::Capabilities)
    } else {
        Found::in_message(m)
    };
    if let Some(at) = found.first(Needle::Capabilities) {
        let rest = &m[at + CAPABILITIES_MARKER.len()..];
        let capabilities = parse_capabilities(rest);
        let field = |k: &str| {
            capabilities
                .as_ref()
                .and_then(|c| c.get(k))
                .and_then(|v| v.as_str())
        };
        return Some(Signal::Connected {
            era: field("protocolEra").and_then(Era::parse),
            version: field("negotiatedProtocolVersion").map(str::to_string),
            capabilities: capabilities.as_ref().map(|c| std::sync::Arc::new(kept(c))),
        });
    }
    if CONNECTED_MARKERS.iter().any(|k| m.starts_with(k)) {
        return Some(Signal::Connected {
            era: None,
            version: None,
            capabilities: None,
        });
    }
    if found.any(Needle::Tolerated) {
        return Some(Signal::Tolerated {
            fields: filled_fields(m),
        });
    }
    let is_final = !found.any(Needle::Retrying);
    for (list, markers) in [
        ("resources", RESOURCES_FAILURE_MARKERS),
        ("prompts", PROMPTS_FAILURE_MARKERS),
    ] {
        if markers.iter().any(|k| m.starts_with(k)) {
            return Some(Signal::ListFailed { list, is_final });
        }
    }
    if m.starts_with(PAGE_CAP_MARKER) {
        return Some(Signal::PageCap);
    }
    if found.any(Needle::ListChanged) && m.starts_with("Received") {
        return Some(Signal::ListChanged);
    }
    if let Some(idx) = found.first(Needle::Version) {
        let answered = m[idx..]
            .split_once(": ")
            .map_or("", |(_, v)| v.split_whitespace().next().unwrap_or(""));
        return Some(Signal::VersionUnsupported {
            modern: crate::claude_code::lifecycle::newer_than_legacy_handshake(answered),
        });
    }
    if let Some(idx) = found.first(Needle::ToolsFailure) {
        let (cause, bad_tool_path) = tools_failure_cause(&m[idx..]);
        return Some(Signal::ToolsFailed {
            cause,
            bad_tool_path,
            is_final,
        });
    }
    if m.starts_with(TOOL_CALL_MARKER) {
        return Some(Signal::ToolCalled);
    }
    if let Some(at) = found.first(Needle::Closed)
        && at < 40 - CLOSED_MARKER.len()
    {
        let rest = &m[at + CLOSED_MARKER.len()..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest[digits..].starts_with('s') {
            return Some(Signal::Closed {
                secs: rest[..digits].parse().unwrap_or(u64::MAX),
            });
        }
    }
    if found.any(Needle::ConnectionFailure) {
        return Some(Signal::ConnectionFailed {
            cause: connection_failure_cause(m),
        });
    }
    None
}

const CAPABILITIES_MARKER: &str = "Connection established with capabilities:";

/// The kinds of text `read_signal` looks for anywhere in a message (the rest it looks for
/// at the start).
#[derive(Clone, Copy)]
enum Needle {
    Capabilities,
    Tolerated,
    Retrying,
    ListChanged,
    Version,
    ToolsFailure,
    Closed,
    ConnectionFailure,
}

/// How many kinds there are (the last kind's index, plus one).
const NEEDLES: usize = Needle::ConnectionFailure as usize + 1;

/// Every needle of every kind, with its kind.
fn needles() -> impl Iterator<Item = (&'static str, Needle)> {
    let one = |k: Needle, v: &'static [&'static str]| v.iter().map(move |n| (*n, k));
    one(Needle::Capabilities, &[CAPABILITIES_MARKER])
        .chain(one(Needle::Tolerated, TOLERATED_MARKERS))
        .chain(one(Needle::Retrying, &["retrying in"]))
        .chain(one(Needle::ListChanged, &[LIST_CHANGED_MARKER]))
        .chain(one(Needle::Version, &[VERSION_MARKER]))
        .chain(one(Needle::ToolsFailure, TOOLS_FAILURE_MARKERS))
        .chain(one(Needle::Closed, &[CLOSED_MARKER]))
        .chain(one(Needle::ConnectionFailure, CONNECTION_FAILURE_MARKERS))
}

/// Where each kind of needle first starts in a message, from one pass over it (a search
/// per needle, a searcher built for each, was a sixth of a scan's time).
struct Found([Option<usize>; NEEDLES]);

impl Found {
    fn in_message(m: &str) -> Found {
        static SEARCH: LazyLock<(Needles, Vec<Needle>)> = LazyLock::new(|| {
            let (patterns, kinds): (Vec<&str>, Vec<Needle>) = needles().unzip();
            (Needles::new(&patterns, false), kinds)
        });
        let (search, kinds) = &*SEARCH;
        let mut first = [None; NEEDLES];
        // Every occurrence of every needle, overlapping ones too, so each kind's earliest
        // start is what `str::find` of its earliest needle would give.
        search.for_each(m, |pattern, start, _| {
            let slot: &mut Option<usize> = &mut first[kinds[pattern] as usize];
            if slot.is_none_or(|at| start < at) {
                *slot = Some(start);
            }
        });
        Found(first)
    }

    /// Only that `n` starts at the start of the message (what is looked at when it does).
    fn at_start(n: Needle) -> Found {
        let mut first = [None; NEEDLES];
        first[n as usize] = Some(0);
        Found(first)
    }

    fn first(&self, n: Needle) -> Option<usize> {
        self.0[n as usize]
    }

    fn any(&self, n: Needle) -> bool {
        self.first(n).is_some()
    }
}

fn after<'a>(m: &'a str, prefix: &str) -> Option<&'a str> {
    m.find(prefix).map(|i| &m[i + prefix.len()..])
}

/// What the classification keeps of a connection's capabilities: its flags (`hasTools`
/// and the like, which it reads) and a digest of the whole object, which tells two
/// connections apart. The rest is the server's own text (its name and version can hold
/// anything, a token too) and is not kept: the summary index stores what is kept.
fn kept(capabilities: &serde_json::Value) -> serde_json::Value {
    use sha2::Digest;
    let mut out: serde_json::Map<String, serde_json::Value> = capabilities
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, v)| v.is_boolean())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let digest = sha2::Sha256::digest(capabilities.to_string().as_bytes());
    out.insert("digest".into(), crate::text::hex(&digest[..16]).into());
    serde_json::Value::Object(out)
}

/// Parses the JSON object embedded after `capabilities:` rather than pattern-matching it.
fn parse_capabilities(rest: &str) -> Option<serde_json::Value> {
    thread_local! {
        static LAST: LastParsed = const { std::cell::RefCell::new(None) };
    }
    let start = rest.find('{')?;
    first_value(&rest[start..], &LAST).filter(|v| v.is_object())
}

/// The last object or array [`first_value`] parsed on a thread, with its text.
type LastParsed = std::cell::RefCell<Option<(String, serde_json::Value)>>;

/// The JSON value at the start of `text` (what follows it is not read). A log says the
/// same thing many times (a server's capabilities in each of its sessions, the same zod
/// issues in each retry), so the last object or array parsed is kept in `last`: a text
/// that starts with its text is the same value, and gets a copy without a parse (an
/// object or an array ends at its closing bracket, whatever follows; parsing was a
/// twentieth of a scan of 100,000 folders).
fn first_value(
    text: &str,
    last: &'static std::thread::LocalKey<LastParsed>,
) -> Option<serde_json::Value> {
    let known = last.with(|l| {
        l.borrow()
            .as_ref()
            .filter(|(t, _)| text.starts_with(t.as_str()))
            .map(|(_, v)| v.clone())
    });
    if known.is_some() {
        return known;
    }
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<serde_json::Value>();
    let v = stream.next()?.ok()?;
    if v.is_object() || v.is_array() {
        let end = stream.byte_offset();
        last.with(|l| *l.borrow_mut() = Some((text[..end].to_string(), v.clone())));
    }
    Some(v)
}

fn filled_fields(m: &str) -> Vec<String> {
    static FIELD: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\b(resultType|ttlMs|cacheScope)\s*=").expect("regex"));
    let tail = after(m, "filled in").unwrap_or(m);
    let mut out: Vec<String> = Vec::new();
    for c in FIELD.captures_iter(tail) {
        let f = c[1].to_string();
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// Decides why tools/list was rejected: from the zod issues when they parse, else from
/// the text. A zod path inside `tools[N]` is a bad tool definition, which the
/// negotiation setting cannot fix, so it wins over field errors.
pub fn tools_failure_cause(text: &str) -> (Cause, Option<String>) {
    if let Some(issues) = zod_issues(text) {
        let mut tool_path = None;
        let mut missing_result_type = false;
        let mut missing_cache = false;
        let mut wrong = false;
        for issue in &issues {
            let path: Vec<&serde_json::Value> = issue
                .get("path")
                .and_then(|p| p.as_array())
                .map(|a| a.iter().collect())
                .unwrap_or_default();
            if path.first().and_then(|p| p.as_str()) == Some("tools")
                && path.get(1).is_some_and(|p| p.is_number())
            {
                tool_path.get_or_insert_with(|| crate::text::json_path(path.iter().copied()));
                continue;
            }
            let field = path.last().and_then(|p| p.as_str()).unwrap_or("");
            if !matches!(field, "resultType" | "ttlMs" | "cacheScope") {
                continue;
            }
            match issue_kind(issue) {
                IssueKind::Wrong => wrong = true,
                IssueKind::Missing if field == "resultType" => missing_result_type = true,
                IssueKind::Missing => missing_cache = true,
                // `cacheScope` missing and `cacheScope: "shared"` read the same
                // (`Invalid option: expected one of "public"|"private"`); the other
                // issues of the list decide, and alone it counts as missing.
                IssueKind::Ambiguous if field == "resultType" => missing_result_type = true,
                IssueKind::Ambiguous => missing_cache = true,
            }
        }
        if let Some(p) = tool_path {
            return (Cause::InvalidToolDefinition, Some(p));
        }
        if wrong {
            return (Cause::WrongFieldTypes, None);
        }
        if missing_result_type {
            return (Cause::MissingResultType, None);
        }
        if missing_cache {
            return (Cause::MissingCacheFields, None);
        }
    }
    text_cause(text)
}

/// Without parseable zod issues (truncated, pasted, older wording), read the text.
fn text_cause(text: &str) -> (Cause, Option<String>) {
    static TOOL_PATH: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#""tools"\s*,\s*(\d+)((?:\s*,\s*(?:"[^"]*"|\d+))*)"#).expect("regex")
    });
    // zod's pretty form, observed in 2.1.288: `tools.2.inputSchema.type: Invalid input`.
    static TOOL_DOTTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\btools\.(\d+)((?:\.[A-Za-z_$][\w$]*|\.\d+)*)").expect("regex")
    });
    // The masker sometimes turns the field name into `[redacted]` (observed 2.1.288).
    static MISSING_RESULT_TYPE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"missing required (?:resultType|\[redacted\])|resultType\b.*\bMUST include")
            .expect("regex")
    });
    static WRONG: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"received (?:string|number|boolean|object|array|null)|Invalid option|invalid_value|invalid_enum_value|Invalid enum value").expect("regex")
    });
    if let Some(c) = TOOL_PATH.captures(text) {
        let rest: String = c[2]
            .split(',')
            .map(|s| s.trim().trim_matches('"'))
            .filter(|s| !s.is_empty())
            .map(|s| format!(".{s}"))
            .collect();
        return (
            Cause::InvalidToolDefinition,
            Some(format!("tools[{}]{rest}", &c[1])),
        );
    }
    if let Some(c) = TOOL_DOTTED.captures(text) {
        return (
            Cause::InvalidToolDefinition,
            Some(format!("tools[{}]{}", &c[1], &c[2])),
        );
    }
    // `Failed to fetch tools: Request timed out` (every build): past MCP_TIMEOUT
    if text.contains("Request timed out") {
        return (Cause::ToolsTimeout, None);
    }
    if MISSING_RESULT_TYPE.is_match(text) {
        return (Cause::MissingResultType, None);
    }
    let mentions_cache = text.contains("ttlMs") || text.contains("cacheScope");
    let mentions_result_type = text.contains("resultType");
    if (mentions_cache || mentions_result_type) && WRONG.is_match(text) {
        return (Cause::WrongFieldTypes, None);
    }
    if mentions_cache {
        return (Cause::MissingCacheFields, None);
    }
    if mentions_result_type {
        return (Cause::MissingResultType, None);
    }
    (Cause::Other, None)
}

enum IssueKind {
    Missing,
    Wrong,
    Ambiguous,
}

/// zod (v3 and v4) reports a missing field as `received undefined` / `Required`, a value
/// of the wrong type as `received string` (etc.); 2.1.280 says only `Invalid input`,
/// observed there only for omissions. An enum mismatch (`invalid_value`) says neither.
fn issue_kind(issue: &serde_json::Value) -> IssueKind {
    let msg = issue.get("message").and_then(|m| m.as_str()).unwrap_or("");
    let received = issue
        .get("received")
        .and_then(|m| m.as_str())
        .map(str::to_string)
        .or_else(|| {
            msg.split_once("received ")
                .map(|(_, r)| r.split_whitespace().next().unwrap_or("").to_string())
        });
    match received.as_deref() {
        Some("undefined") => IssueKind::Missing,
        Some(_) => IssueKind::Wrong,
        None if msg == "Required" || msg == "Invalid input" => IssueKind::Missing,
        None => IssueKind::Ambiguous,
    }
}

/// The JSON array of zod issues following `Invalid result for tools/list:`.
fn zod_issues(text: &str) -> Option<Vec<serde_json::Value>> {
    thread_local! {
        static LAST: LastParsed = const { std::cell::RefCell::new(None) };
    }
    let start = text.find("Invalid result for tools/list")?;
    let rest = &text[start..];
    let bracket = rest.find('[')?;
    match first_value(&rest[bracket..], &LAST) {
        Some(serde_json::Value::Array(a)) => Some(a),
        _ => None,
    }
}

/// Priority matters when a session logs several failures: the most specific cause wins.
pub fn connection_failure_cause(m: &str) -> Cause {
    static NOT_FOUND: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"ENOENT|Executable not found|command not found|not found in \$PATH|is not recognized as an internal or external command").expect("regex")
    });
    static AUTH: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)authentication required|needs[ -]auth|\b401\b|unauthorized|invalid_token")
            .expect("regex")
    });
    static TIMEOUT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)timed out|timeout|ETIMEDOUT").expect("regex"));
    static CLOSED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)connection closed|CONNECTION_CLOSED|-32000|EPIPE|process exited")
            .expect("regex")
    });
    // An HTTP endpoint's error answer (`Connection failed (400): Error POSTing to
    // endpoint: {..."code": -32000...}`): the server answered, nothing closed.
    static HTTP_ANSWER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"Error POSTing to endpoint|^(HTTP )?Connection failed( after \d+ms,[^(]*)? \((40[02-9]|4[1-9]\d|5\d\d)\)")
            .expect("regex")
    });
    if NOT_FOUND.is_match(m) {
        Cause::CommandNotFound
    } else if crate::claude_code::lifecycle::refuses_legacy_version(m) {
        Cause::ModernOnly
    } else if let Some(cause) = remote_failure_cause(m) {
        cause
    } else if AUTH.is_match(m) {
        Cause::NeedsAuth
    } else if TIMEOUT.is_match(m) {
        Cause::Timeout
    } else if HTTP_ANSWER.is_match(m) {
        Cause::Other
    } else if CLOSED.is_match(m) {
        Cause::ConnectionClosed
    } else {
        Cause::Other
    }
}

/// A remote server's failure that names its cause (a certificate, the proxy, the name,
/// the port, the OAuth registration, the configured `Authorization` header), from the
/// wording in [`crate::claude_code::markers`]. Read before the generic causes: a proxy's
/// `407 Proxy Authentication Required` is not the server asking for credentials.
fn remote_failure_cause(m: &str) -> Option<Cause> {
    use crate::claude_code::markers as k;
    static REMOTE: LazyLock<Vec<(Regex, Cause)>> = LazyLock::new(|| {
        [
            (k::TLS_EXPIRED_WORDING, Cause::TlsExpired),
            (k::TLS_HOSTNAME_WORDING, Cause::TlsHostname),
            (k::TLS_UNTRUSTED_WORDING, Cause::TlsUntrusted),
            (k::PROXY_REFUSED_WORDING, Cause::ProxyRefused),
            (k::NAME_NOT_RESOLVED_WORDING, Cause::NameNotResolved),
            (k::CONNECTION_REFUSED_WORDING, Cause::ConnectionRefused),
            (k::OAUTH_NO_REGISTRATION_WORDING, Cause::OauthNoRegistration),
        ]
        .into_iter()
        .map(|(w, c)| (Regex::new(w).expect("regex"), c))
        .collect()
    });
    if m.contains(k::AUTH_HEADER_REJECTED_MARKER) {
        return Some(Cause::AuthHeaderRejected);
    }
    REMOTE
        .iter()
        .find(|(re, _)| re.is_match(m))
        .map(|(_, c)| *c)
}

/// Rank for picking the most specific of several connection-failure causes. A remote
/// failure that names its cause outranks the generic ones: the configured header's
/// rejection follows records that read as an HTTP answer or as `invalid_token`.
pub fn cause_rank(c: Cause) -> u8 {
    match c {
        Cause::CommandNotFound => 6,
        Cause::TlsUntrusted
        | Cause::TlsExpired
        | Cause::TlsHostname
        | Cause::ProxyRefused
        | Cause::NameNotResolved
        | Cause::ConnectionRefused
        | Cause::OauthNoRegistration
        | Cause::AuthHeaderRejected
        | Cause::ModernOnly => 5,
        Cause::NeedsAuth => 4,
        Cause::Timeout => 3,
        Cause::ConnectionClosed => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The server's own text in its capabilities (name, version) is not kept, so it
    /// never reaches the summary index; the flags are, and two objects differ as before.
    #[test]
    fn capabilities_keep_the_flags_and_a_digest_not_the_servers_text() {
        let secret = "ghp_R3alLook1ngT0kenF0rTheCacheTest0123456";
        let line = |v: &str| {
            format!(
                r#"Connection established with capabilities: {{"hasTools":false,"hasPrompts":true,"serverVersion":{{"name":"x {secret}","version":"{v}"}}}}"#
            )
        };
        let caps = |m: &str| match read_signal(m) {
            Some(Signal::Connected { capabilities, .. }) => capabilities.unwrap(),
            other => panic!("{other:?}"),
        };
        let a = caps(&line("1"));
        assert!(!a.to_string().contains(secret), "{a}");
        assert!(!a.to_string().contains("serverVersion"), "{a}");
        assert_eq!(a["hasTools"], false);
        assert_eq!(a["hasPrompts"], true);
        assert_eq!(caps(&line("1")), a);
        assert_ne!(caps(&line("2")), a);
    }

    #[test]
    fn one_pass_finds_each_kind_where_str_find_does() {
        let all: Vec<(&str, Needle)> = needles().collect();
        // Every needle alone, each pair in both orders, overlapping and repeated ones,
        // with text around them.
        let mut messages: Vec<String> = vec![
            String::new(),
            "Connection established with capabilities:Connection established".into(),
            "tools/list failed: Invalid result for tools/list failed, retrying in 1s".into(),
            "STDIO connection closed after connection closed after 3s".into(),
            "cached needs-auth; Needs authentication; needs authentication".into(),
        ];
        for (a, _) in &all {
            messages.push(format!("x{a}y"));
            for (b, _) in &all {
                messages.push(format!("{a} {b}"));
                messages.push(format!("{a}{b}{a}"));
            }
        }
        for m in &messages {
            let found = Found::in_message(m);
            for (_, kind) in &all {
                let want = all
                    .iter()
                    .filter(|(_, k)| *k as usize == *kind as usize)
                    .filter_map(|(n, _)| m.find(n))
                    .min();
                assert_eq!(found.first(*kind), want, "{m:?}");
            }
        }
    }

    #[test]
    fn a_kept_value_is_given_only_for_a_text_that_starts_with_it() {
        thread_local! {
            static LAST: LastParsed = const { std::cell::RefCell::new(None) };
        }
        let fresh = |t: &str| {
            serde_json::Deserializer::from_str(t)
                .into_iter::<serde_json::Value>()
                .next()
                .and_then(Result::ok)
        };
        // In this order, each after the one before it is kept.
        let texts = [
            r#"{"a":1}"#,
            r#"{"a":1}); retrying in 500ms"#,
            r#"{"a":12}"#,
            r#"{"a":1}"#,
            r#"{"a":1 }"#,
            r#"[{"path":["tools",2]}]"#,
            r#"[{"path":["tools",2]}] and more"#,
            r#"[{"path":["tools",2]},{"path":["ttlMs"]}]"#,
            r#"[{"path":["tools",2]}"#,
            "[1]",
            "[1]]",
            "12",
            "123",
            "not json",
            "[1]",
        ];
        for t in texts {
            assert_eq!(first_value(t, &LAST), fresh(t), "{t:?}");
        }
    }

    #[test]
    fn a_closed_connection_counts_only_whole_seconds_near_the_start() {
        let secs = |m: &str| match read_signal(m) {
            Some(Signal::Closed { secs }) => Some(secs),
            _ => None,
        };
        // as written (sample-logs/)
        assert_eq!(secs("STDIO connection closed after 2s (cleanly)"), Some(2));
        assert_eq!(secs("HTTP connection closed after 7s (cleanly)"), Some(7));
        // hand-damaged: no number, or not seconds, is no duration
        assert_eq!(secs("STDIO connection closed after 6469ms (cleanly)"), None);
        assert_eq!(secs("STDIO connection closed after s (cleanly)"), None);
        // The marker must end within the first 40 bytes (a transport name before it):
        // the same words later in a message are some other text.
        let at = |prefix: &str| format!("{prefix}connection closed after 6469s");
        assert_eq!(secs(&at(&"X".repeat(15))), Some(6469));
        assert_eq!(secs(&at(&"X".repeat(16))), None);
        assert_eq!(
            secs("Tool 'search' returned: upstream connection closed after 6469s"),
            None
        );
    }

    #[test]
    fn a_remembered_signal_is_the_signal_of_that_very_message() {
        use crate::text::recent::{MAX_TEXT_BYTES, slot_of};
        let connected = |n: u32| {
            format!(
                r#"Connection established with capabilities: {{"protocolEra":"legacy","n":{n}}}"#
            )
        };
        // Two messages of one slot, read in turns: each keeps its own signal.
        let a = connected(0);
        let b = (1..)
            .map(connected)
            .find(|m| slot_of(m) == slot_of(&a))
            .expect("a message of the same slot");
        let long = format!("{} {}", a, "x".repeat(MAX_TEXT_BYTES));
        let messages = [
            a.as_str(),
            b.as_str(),
            "Starting connection with timeout of 5ms",
            &long,
        ];
        for _ in 0..3 {
            for m in messages {
                assert_eq!(read_signal(m), signal_of(m), "{m}");
            }
        }
        assert_ne!(read_signal(&a), read_signal(&b));
        assert_eq!(
            read_signal("  Starting connection with timeout of 5ms"),
            Some(Signal::Starting { timeout_ms: 5 })
        );
        assert_eq!(
            read_signal("Server stderr: Connection established with capabilities: {}"),
            None
        );
    }
}
