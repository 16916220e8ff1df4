//! The wire: newline-delimited JSON-RPC over a child process's stdin/stdout, Streamable
//! HTTP (POST, answered with JSON or an SSE stream), and the legacy HTTP+SSE transport.
//! Everything is bounded: line and body sizes, the number of noise lines kept, the
//! stderr kept (head and tail), and every wait ends at a deadline.

use std::collections::VecDeque;

use std::time::Instant;

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
        /// The cause `scan` names for the same failure in Claude Code's log
        /// (`connection-refused`, `name-not-resolved`, `tls-*`, `proxy-refused`), when
        /// the error says which it is.
        cause: Option<crate::classify::verdict::Cause>,
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
            Failure::Http { message, .. } => write!(f, "{message}"),
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

/// Parses one message (a stdout line, an HTTP body) as Claude Code reads it: bytes that
/// are not UTF-8 become U+FFFD, one for each maximal ill-formed sequence (as the WHATWG
/// decoder and `String::from_utf8_lossy` do), and the text is then parsed as JSON.
/// Observed on 2.1.287, 2.1.288, 2.1.310, 2.1.332 and 2.1.336 (tests/fixtures/lifecycle/bytes-*): a tool
/// description or name holding 0xff is loaded with U+FFFD in its place; such bytes outside
/// any JSON string leave the line unparsed, as any other non-JSON line.
pub(super) fn parse_message(bytes: &[u8]) -> serde_json::Result<Value> {
    match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_str(&String::from_utf8_lossy(bytes)),
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
            // left as a prefix (or suffix) its rule no longer recognises. A line end
            // is no word's end here: a token broken across a line end at the cut goes
            // whole too (both its pieces).
            let blank = |c: char| c.is_whitespace() && c != '\n' && c != '\r';
            let head_end = s.rfind(blank).unwrap_or(0);
            s.truncate(head_end);
            let tail_start = tail.find(blank).unwrap_or(tail.len());
            tail.drain(..tail_start);
            // A PEM key whose BEGIN line was left out: its rule needs that line, so the
            // body lines kept would show. The tail starts after its END line.
            if let Some(end) = tail.find("-----END")
                && tail.find("-----BEGIN").is_none_or(|b| b > end)
                && tail[end..]
                    .lines()
                    .next()
                    .is_some_and(|l| l.contains("PRIVATE KEY-----"))
            {
                let after = tail[end..].find('\n').map_or(tail.len(), |i| end + i + 1);
                tail.drain(..after);
            }
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
            c if crate::text::sanitize::is_unsafe(c) => {
                out.push_str(&crate::text::sanitize::text(c.encode_utf8(&mut [0; 4])));
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
    crate::probe::reap::end_all();
}

mod http;
mod sse;
mod stdio;

pub use http::*;
pub use sse::*;
pub use stdio::*;

#[cfg(test)]
mod tests {
    use super::*;

    /// A stdout line whose strings hold bytes that are not UTF-8 is a message with U+FFFD
    /// in their place (one for each maximal ill-formed sequence), as Claude Code reads it;
    /// such a byte outside any string leaves the line noise.
    #[test]
    fn a_line_that_is_not_utf8_is_read_with_replacement_characters() {
        let line = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"a\xffb\",\"description\":\"t\xe2\x82u o\xf0\x80\x80p s\xed\xa0\x80t caf\xe9\"}]}}";
        let Some(Incoming::Message(v)) = stdio::classify_line(line) else {
            panic!("not read as a message");
        };
        let tool = &v["result"]["tools"][0];
        assert_eq!(tool["name"], "a\u{fffd}b");
        assert_eq!(
            tool["description"],
            "t\u{fffd}u o\u{fffd}\u{fffd}\u{fffd}p s\u{fffd}\u{fffd}\u{fffd}t caf\u{fffd}"
        );
        let outside = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\xff";
        assert!(matches!(
            stdio::classify_line(outside),
            Some(Incoming::Noise { .. })
        ));
        // an HTTP body is read the same way
        assert_eq!(parse_message(b"\"x\xfey\"").unwrap(), "x\u{fffd}y");
    }

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
    fn a_pem_body_or_a_broken_token_at_a_cut_is_not_kept() {
        let mut s = StderrLog::default();
        s.push(b"starting\n-----BEGIN PRIVATE KEY-----\n");
        s.push(
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n"
                .repeat(STDERR_KEEP / 20)
                .as_bytes(),
        );
        s.push(b"-----END PRIVATE KEY-----\nkey loaded, token ghp_0123456789abcdefghij\nKLMNOPQRSTUVWXYZ0123 ok\n");
        s.push("x ".repeat(100).as_bytes());
        let t = s.text();
        assert!(t.contains("bytes left out"), "{t}");
        assert!(t.ends_with("x "), "{t}");
        // the tail starts in the body (its BEGIN line left out): none of it is kept
        let tail = t.split("bytes left out").nth(1).unwrap();
        assert!(!tail.contains("MIIEvQIB"), "{tail}");
        // a token broken across a line end at the head's cut goes whole
        let mut s = StderrLog::default();
        s.push("y ".repeat((STDERR_KEEP - 30) / 2).as_bytes());
        s.push(b"ghp_0123456789abcdefghij\nKLMNOPQRSTUVWXYZ0123 rest ");
        s.push("z ".repeat(STDERR_KEEP * 2).as_bytes());
        let t = s.text();
        assert!(!t.contains("ghp_0123") && !t.contains("KLMNOPQRS"), "{t}");
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
