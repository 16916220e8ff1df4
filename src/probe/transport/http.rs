//! Streamable HTTP: POST, answered with JSON or an SSE stream; configured headers only to
//! the configured origin, redirects never followed across origins.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::*;

// ---------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------

/// Redirects followed within the configured origin, at most.
pub(super) const MAX_REDIRECTS: usize = 10;

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
pub(super) fn same_origin(url: &str, allowed: &Origin, kind: CrossOrigin) -> Result<(), Failure> {
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
pub(crate) enum Wait {
    /// The whole exchange (a POST and its answer).
    Global(Duration),
    /// Connecting only (a stream that stays open).
    Connect(Duration),
}

/// One request with `headers`, following redirects only within `origin`: the
/// configured headers (Authorization, X-Api-Key, Cookie, any other) never leave it.
/// A redirect elsewhere is a [`Failure::CrossOrigin`], and nothing is sent there. As
/// `fetch` does, 303 (and 301/302 after a POST) continue as a GET without the body.
pub(crate) fn request(
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
        cause: None,
    })
}

/// `req` with the configured headers and the time left, as the kind of wait asks.
pub(super) fn with_headers<B>(
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

pub(crate) fn agent() -> ureq::Agent {
    agent_trusting(None)
}

/// [`agent`], trusting `roots` instead of the public roots when given.
pub(crate) fn agent_trusting(roots: Option<&crate::probe::ExtraRoots>) -> ureq::Agent {
    let b = ureq::Agent::config_builder()
        .http_status_as_error(false)
        // Followed by `request`, only within the configured origin.
        .max_redirects(0)
        .user_agent(concat!("mcplogs-probe/", env!("CARGO_PKG_VERSION")));
    // Windows and macOS build ureq with the OS's TLS (see Cargo.toml)
    let tls = ureq::tls::TlsConfig::builder();
    #[cfg(any(windows, target_os = "macos"))]
    let tls = tls.provider(ureq::tls::TlsProvider::NativeTls);
    let tls = match roots {
        Some(r) => tls.root_certs(ureq::tls::RootCerts::Specific(std::sync::Arc::clone(r))),
        None => tls,
    };
    b.tls_config(tls.build()).build().into()
}

pub(super) fn remaining(deadline: Instant) -> Result<Duration, Failure> {
    let d = deadline.saturating_duration_since(Instant::now());
    if d.is_zero() {
        Err(Failure::Timeout { waited_ms: 0 })
    } else {
        Ok(d)
    }
}

pub(super) fn http_failure(e: ureq::Error, waited: Duration) -> Failure {
    match e {
        ureq::Error::Timeout(_) => Failure::Timeout {
            waited_ms: waited.as_millis() as u64,
        },
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => Failure::Timeout {
            waited_ms: waited.as_millis() as u64,
        },
        other => Failure::Http {
            cause: remote_cause(&other),
            message: other.to_string(),
        },
    }
}

/// The cause `scan` gives the same failure when Claude Code logs it (Node's words,
/// `ECONNREFUSED`, `getaddrinfo ENOTFOUND`, `DEPTH_ZERO_SELF_SIGNED_CERT`...; see
/// `claude_code::markers`), read from the HTTP client's error: the refused port, the
/// name no resolver knows, the certificate not trusted, expired or for another name,
/// the proxy that refused the tunnel.
pub(super) fn remote_cause(e: &ureq::Error) -> Option<crate::classify::verdict::Cause> {
    use crate::classify::verdict::Cause;
    match e {
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            Some(Cause::ConnectionRefused)
        }
        ureq::Error::HostNotFound => Some(Cause::NameNotResolved),
        // `to_socket_addrs`' error: "failed to lookup address information: ..."
        ureq::Error::Io(io) if io.to_string().contains("failed to lookup address") => {
            Some(Cause::NameNotResolved)
        }
        ureq::Error::ConnectProxyFailed(_) => Some(Cause::ProxyRefused),
        other => tls_cause(&other.to_string()),
    }
}

/// A certificate error, from the TLS library's words (rustls': `invalid peer
/// certificate: UnknownIssuer`, `Expired`, `NotValidForName`; native-tls' on Windows:
/// the chain or its root not trusted, the date, the name).
fn tls_cause(text: &str) -> Option<crate::classify::verdict::Cause> {
    use crate::classify::verdict::Cause;
    let t = text.to_ascii_lowercase();
    if !(t.contains("certificate") || t.contains("rustls") || t.contains("tls")) {
        return None;
    }
    if t.contains("expired") || t.contains("notvalidyet") || t.contains("validity period") {
        Some(Cause::TlsExpired)
    } else if t.contains("notvalidforname")
        || t.contains("name mismatch")
        || t.contains("principal name")
        || t.contains("hostname")
    {
        Some(Cause::TlsHostname)
    } else if t.contains("unknownissuer")
        || t.contains("badsignature")
        || t.contains("untrusted")
        || t.contains("not trusted")
        || t.contains("self signed")
        || t.contains("self-signed")
        || t.contains("invalid peer certificate")
    {
        Some(Cause::TlsUntrusted)
    } else {
        None
    }
}

/// The headers of one POST, as Claude Code sends them (captured from 2.1.288 and
/// 2.1.332, `tests/cli/wire-captures/`): `Accept` always; a request of the 2026-07-28
/// revision (its `params._meta` names it) carries `mcp-method` and
/// `mcp-protocol-version: 2026-07-28`; after a classic `initialize`, every message
/// carries `mcp-protocol-version` with the negotiated version (and no `mcp-method`);
/// `mcp-session-id` once the server gave one; then the configured headers.
/// `Content-Type: application/json` is added by `request`.
pub fn post_headers<'a>(
    msg: &'a Value,
    negotiated: Option<&'a str>,
    session_id: Option<&'a str>,
    configured: &'a BTreeMap<String, String>,
) -> Vec<(&'a str, &'a str)> {
    let mut headers: Vec<(&str, &str)> = vec![("Accept", "application/json, text/event-stream")];
    let modern = msg
        .pointer("/params/_meta")
        .and_then(|m| m.get(crate::probe::session::META_PROTOCOL_VERSION))
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
    pub(super) origin: Origin,
    headers: BTreeMap<String, String>,
    session_id: Option<String>,
    protocol_version: Option<String>,
    queue: VecDeque<Incoming>,
}

impl HttpTransport {
    pub fn new(
        url: &str,
        headers: &BTreeMap<String, String>,
        trusted: Option<&crate::probe::ExtraRoots>,
    ) -> Result<HttpTransport, Failure> {
        let Some(origin) = Origin::of(url) else {
            return Err(Failure::Http {
                message: format!("not an http(s) URL: {url:?}"),
                cause: None,
            });
        };
        Ok(HttpTransport {
            agent: agent_trusting(trusted),
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
            match parse_message(&bytes) {
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

pub(super) fn parse_event(data: &str) -> Incoming {
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
pub(super) fn read_sse(
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

#[cfg(test)]
mod remote_cause_tests {
    use super::*;
    use crate::classify::verdict::Cause;

    /// The HTTP client's errors, as scan's causes for the same failures.
    #[test]
    fn client_errors_get_scans_remote_causes() {
        let refused = ureq::Error::Io(std::io::Error::from(std::io::ErrorKind::ConnectionRefused));
        assert_eq!(remote_cause(&refused), Some(Cause::ConnectionRefused));
        assert_eq!(
            remote_cause(&ureq::Error::HostNotFound),
            Some(Cause::NameNotResolved)
        );
        let lookup = ureq::Error::Io(std::io::Error::other(
            "failed to lookup address information: Name or service not known",
        ));
        assert_eq!(remote_cause(&lookup), Some(Cause::NameNotResolved));
        assert_eq!(
            remote_cause(&ureq::Error::ConnectProxyFailed("407".into())),
            Some(Cause::ProxyRefused)
        );
        assert_eq!(
            remote_cause(&ureq::Error::Io(std::io::Error::other("broken pipe"))),
            None
        );
        for (text, cause) in [
            (
                "rustls: invalid peer certificate: UnknownIssuer",
                Cause::TlsUntrusted,
            ),
            (
                "rustls: invalid peer certificate: Expired",
                Cause::TlsExpired,
            ),
            (
                "rustls: invalid peer certificate: NotValidForName",
                Cause::TlsHostname,
            ),
        ] {
            assert_eq!(tls_cause(text), Some(cause), "{text}");
        }
        // observed: ureq 3.5 with rustls against a self-signed certificate made by
        // `openssl req -x509` (a CA certificate used as the server's own)
        let self_signed = ureq::Error::Io(std::io::Error::other(
            "invalid peer certificate: Other(OtherError(CaUsedAsEndEntity))",
        ));
        assert_eq!(remote_cause(&self_signed), Some(Cause::TlsUntrusted));
        assert_eq!(tls_cause("io: unexpected end of file"), None);
    }
}
