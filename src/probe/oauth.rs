//! A remote server that answers 401: the OAuth discovery Claude Code follows, step by
//! step, without a browser, without a token and without registering (issue 52).
//!
//! The order is the one observed on 2.1.287 and 2.1.336 (the loopback authorization
//! server of `tests/e2e/remote_stub.py` logged every request; docs/claude-code.md,
//! "OAuth discovery, request by request"):
//!
//! 1. the protected-resource metadata (RFC 9728): the `resource_metadata` URL of the
//!    401's `WWW-Authenticate`, else `/.well-known/oauth-protected-resource<path>` and
//!    then `/.well-known/oauth-protected-resource` on the server's origin. Any failure
//!    here is not fatal: Claude Code takes the server's origin as the authorization
//!    server;
//! 2. the authorization server's metadata (RFC 8414, then OpenID Connect):
//!    `/.well-known/oauth-authorization-server` then `/.well-known/openid-configuration`
//!    (for an authorization server URL with a path, the path-aware forms first, as the
//!    TypeScript SDK builds them: read, not run). A 4xx goes on to the next URL, a 5xx
//!    or a document that is not valid metadata stops the sign-in;
//! 3. the `registration_endpoint`: advertised, Claude Code defers registration to the
//!    sign-in and shows `needs-auth` (a registration endpoint answering 400 or 500 was
//!    never contacted in `-p`: observed); absent from metadata that was found, Claude Code
//!    fails with "Incompatible auth server: does not support dynamic client registration"
//!    (`oauth-no-registration`); no metadata at all, it registers at the server's default
//!    `/register` and shows `needs-auth`.
//!
//! So what Claude Code shows never depends on the registration's answer, and the probe
//! never registers: nothing is POSTed, no client is created on anyone's server.
//!
//! Every discovery request is a GET carrying only `Accept` and `MCP-Protocol-Version`:
//! no configured header (Authorization, X-Api-Key, Cookie...) and no stored token goes
//! to any metadata URL, on the server's origin or another. mcplogs never reads Claude
//! Code's token store. Redirects are followed only within the origin of the URL asked
//! (as the SDK's `fetchWithinOrigin`); bodies are bounded ([`MAX_METADATA_BYTES`]),
//! every request ends at the probe's deadline, and a document that is too large, too
//! deep, not JSON or of the wrong shape is a step failure saying so.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::transport::{Failure, Origin, Wait, agent, request, resolve_url};
use crate::classify::verdict::Cause;

/// The largest metadata document read; a longer one is a step failure.
pub const MAX_METADATA_BYTES: u64 = 256 * 1024;
/// The longest any one discovery request may take, whatever the budget left.
const MAX_REQUEST: Duration = Duration::from_secs(30);
/// The `MCP-Protocol-Version` the discovery requests carry (as the SDK's do).
const PROTOCOL_VERSION: &str = super::session::LEGACY_OFFERED_VERSION;
/// The only headers a discovery request carries.
pub const HEADERS_SENT: [&str; 2] = ["Accept", "MCP-Protocol-Version"];

/// A discovery step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// RFC 9728, the protected-resource metadata.
    ResourceMetadata,
    /// RFC 8414 or OpenID Connect, the authorization server's metadata.
    AuthServerMetadata,
    /// The dynamic client registration endpoint (never contacted).
    Registration,
}

impl StepKind {
    /// `resource-metadata`, `auth-server-metadata`, `registration`.
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::ResourceMetadata => "resource-metadata",
            StepKind::AuthServerMetadata => "auth-server-metadata",
            StepKind::Registration => "registration",
        }
    }

    /// The words the text output shows.
    pub fn words(self) -> &'static str {
        match self {
            StepKind::ResourceMetadata => "resource metadata",
            StepKind::AuthServerMetadata => "auth server metadata",
            StepKind::Registration => "registration",
        }
    }
}

/// How one step went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepOutcome {
    /// A valid document (200).
    Found,
    /// No document there (a 4xx, no answer, a redirect not followed): Claude Code tries
    /// the next URL.
    NotFound,
    /// The resource metadata failed in a way Claude Code falls back from (the server's
    /// origin is then the authorization server).
    FallBack,
    /// The step stops Claude Code's sign-in (a 5xx, metadata that is not valid).
    Failed,
    /// `registration_endpoint` advertised (not contacted).
    Advertised,
    /// Metadata found without `registration_endpoint`: Claude Code cannot register.
    Missing,
    /// No metadata: Claude Code's default `/register` (not contacted).
    Default,
    /// Not run: the probe's time limit was spent on an earlier step.
    NotRun,
}

impl StepOutcome {
    /// `found`, `not-found`, `fall-back`, `failed`, `advertised`, `missing`, `default`,
    /// `not-run`.
    pub fn as_str(self) -> &'static str {
        match self {
            StepOutcome::Found => "found",
            StepOutcome::NotFound => "not-found",
            StepOutcome::FallBack => "fall-back",
            StepOutcome::Failed => "failed",
            StepOutcome::Advertised => "advertised",
            StepOutcome::Missing => "missing",
            StepOutcome::Default => "default",
            StepOutcome::NotRun => "not-run",
        }
    }

    /// Whether the step went as a working sign-in needs.
    pub fn ok(self) -> bool {
        matches!(
            self,
            StepOutcome::Found | StepOutcome::Advertised | StepOutcome::Default
        )
    }
}

/// One request (or, for the registration, one finding) of the discovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OauthStep {
    pub kind: StepKind,
    /// The URL asked (or, for the registration, the endpoint), as given: shown through
    /// [`shown_url`] and the redactor.
    pub url: String,
    /// The HTTP status, or `None` (not contacted, or no answer).
    pub status: Option<u16>,
    pub outcome: StepOutcome,
    /// Whether a request was sent (the registration never is).
    pub contacted: bool,
    pub ms: u64,
    /// What was found or why it failed, in words.
    pub detail: String,
    /// Whether its request got no answer within the probe's time limit.
    pub timed_out: bool,
}

/// The discovery of one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovery {
    pub steps: Vec<OauthStep>,
    /// The cause `scan` gives what Claude Code then shows: `needs-auth`,
    /// `oauth-no-registration`, or `other` for a failure not observed.
    pub cause: Cause,
    /// The `resource_metadata` of the 401's `WWW-Authenticate`.
    pub resource_metadata_url: Option<String>,
    /// The authorization server Claude Code uses: the resource metadata's first
    /// `authorization_servers`, else the server's origin.
    pub authorization_server: Option<String>,
    /// The `registration_endpoint` (advertised, or Claude Code's default), or `None`.
    pub registration_endpoint: Option<String>,
    /// One sentence: what Claude Code does after these steps.
    pub summary: String,
}

impl Discovery {
    /// The first step that did not go as a working sign-in needs (a fallback included;
    /// a step that did not run is not one).
    pub fn first_failing(&self) -> Option<&OauthStep> {
        self.steps
            .iter()
            .find(|s| !s.outcome.ok() && s.outcome != StepOutcome::NotRun)
    }

    /// Whether the probe's time limit ended the discovery (a request without an answer
    /// in time, or steps not run).
    pub fn ran_out_of_time(&self) -> bool {
        self.steps
            .iter()
            .any(|s| s.timed_out || s.outcome == StepOutcome::NotRun)
    }

    /// The step that decides a failure (`oauth-no-registration`, `other`): the last
    /// one, when it failed.
    pub fn deciding(&self) -> Option<&OauthStep> {
        self.steps
            .last()
            .filter(|s| matches!(s.outcome, StepOutcome::Failed | StepOutcome::Missing))
    }
}

/// How a server that asks for credentials is read: its configured `Authorization`
/// header refused (Claude Code tries no OAuth then: observed), or the OAuth discovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthCheck {
    HeaderRejected { status: u16 },
    Discovery(Discovery),
}

/// Whether `headers` sets `Authorization` (any case).
pub fn has_authorization(headers: &BTreeMap<String, String>) -> bool {
    headers
        .keys()
        .any(|k| k.trim().eq_ignore_ascii_case("authorization"))
}

/// The status of a failure that asks for credentials: 401 (`needs-auth`) or 403.
pub fn auth_status(f: &Failure) -> Option<u16> {
    match f {
        Failure::NeedsAuth { .. } => Some(401),
        Failure::HttpStatus { status: 403, .. } => Some(403),
        _ => None,
    }
}

/// The `resource_metadata` parameter of a `WWW-Authenticate` value (quoted or not,
/// any case), as the SDK reads it; `None` when absent or not an http(s) URL.
pub fn resource_metadata_param(www: &str) -> Option<String> {
    let lower = www.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find("resource_metadata") {
        let at = from + i;
        from = at + "resource_metadata".len();
        // a whole parameter name: start of the value or after `,`/space
        let before_ok = at == 0 || matches!(lower.as_bytes()[at - 1], b' ' | b',' | b'\t');
        let rest = www[from..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        if !before_ok {
            continue;
        }
        let rest = rest.trim_start();
        let value = if let Some(q) = rest.strip_prefix('"') {
            let mut v = String::new();
            let mut chars = q.chars();
            loop {
                match chars.next()? {
                    '"' => break,
                    '\\' => v.push(chars.next()?),
                    c => v.push(c),
                }
            }
            v
        } else {
            rest.split([',', ' ', '\t'])
                .next()
                .unwrap_or("")
                .to_string()
        };
        return Origin::of(&value).map(|_| value);
    }
    None
}

/// `url` as the output shows it when redacting: no user information, every query
/// value `[REDACTED]`, no fragment. A server-given URL can carry a credential a
/// configuration never named.
pub fn shown_url(url: &str) -> String {
    let url = url.split('#').next().unwrap_or("");
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let base = match base.split_once("://") {
        Some((scheme, rest)) => {
            let end = rest.find('/').unwrap_or(rest.len());
            let (authority, path) = rest.split_at(end);
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            format!("{scheme}://{host}{path}")
        }
        None => base.to_string(),
    };
    match query {
        None => base,
        Some(q) => {
            let pairs: Vec<String> = q
                .split('&')
                .map(|p| match p.split_once('=') {
                    Some((k, v)) if !v.is_empty() => format!("{k}=[REDACTED]"),
                    _ => p.to_string(),
                })
                .collect();
            format!("{base}?{}", pairs.join("&"))
        }
    }
}

/// The longest server-given URL a sentence (a step's detail, the summary) quotes; a
/// longer one is named by its length, and shown (redacted, then cut) as the step's URL.
pub const MAX_QUOTED_URL: usize = 200;

/// `url` as a sentence quotes it: [`shown_url`], or when that is longer than
/// [`MAX_QUOTED_URL`], its length alone (nothing of it is cut before the output redacts it).
pub fn quoted_url(url: &str) -> String {
    let shown = shown_url(url);
    let n = shown.chars().count();
    if n <= MAX_QUOTED_URL {
        shown
    } else {
        format!("(a URL of {n} characters)")
    }
}

/// `url`'s origin with `/` as its path (`http://h:1/`), as `new URL('/', url)`.
fn origin_root(url: &str) -> Option<String> {
    Origin::of(url).map(|o| format!("{o}/"))
}

/// The path of an http(s) URL (`/` when it has none), without its query.
fn path_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    match rest.find('/') {
        Some(i) => rest[i..].to_string(),
        None => "/".to_string(),
    }
}

/// The query of a URL with its `?`, or "".
fn query_of(url: &str) -> &str {
    let url = url.split('#').next().unwrap_or("");
    url.find('?').map_or("", |i| &url[i..])
}

/// The URLs of the resource metadata Claude Code asks, in its order (without a
/// `resource_metadata`): the path-aware one (the server URL's query kept, as the SDK
/// does), then the root one when the server URL has a path.
pub fn resource_metadata_urls(server_url: &str) -> Vec<String> {
    let Some(root) = origin_root(server_url) else {
        return Vec::new();
    };
    let base = root.trim_end_matches('/');
    let path = path_of(server_url);
    let path = path.trim_end_matches('/');
    let mut urls = vec![format!(
        "{base}/.well-known/oauth-protected-resource{path}{}",
        query_of(server_url)
    )];
    if !path.is_empty() {
        urls.push(format!("{base}/.well-known/oauth-protected-resource"));
    }
    urls
}

/// The authorization server's metadata URLs, in the order Claude Code asks them: at the
/// root, RFC 8414 then OpenID (observed); with a path, the SDK's three forms (read).
pub fn auth_server_metadata_urls(auth_server: &str) -> Vec<String> {
    let Some(root) = origin_root(auth_server) else {
        return Vec::new();
    };
    let base = root.trim_end_matches('/');
    let path = path_of(auth_server);
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        return vec![
            format!("{base}/.well-known/oauth-authorization-server"),
            format!("{base}/.well-known/openid-configuration"),
        ];
    }
    vec![
        format!("{base}/.well-known/oauth-authorization-server{path}"),
        format!("{base}/.well-known/openid-configuration{path}"),
        format!("{base}{path}/.well-known/openid-configuration"),
    ]
}

/// `why` and a colon, unless it only repeats the status the step shows anyway.
fn lead(why: &str, status: u16) -> String {
    if why == format!("HTTP {status}") {
        String::new()
    } else {
        format!("{why}: ")
    }
}

/// What one GET of a metadata URL gave.
enum Fetched {
    /// 2xx and a JSON document.
    Json(u16, Value),
    /// 2xx but not a usable JSON document (too large, too deep, not JSON).
    Unreadable(u16, String),
    /// Another status (a redirect to another origin, not followed, included).
    Status(u16, String),
    /// No answer: refused, unresolved, TLS, timeout.
    NoAnswer(String, Option<Cause>),
    /// Not sent: the probe's time limit was already spent.
    NotRun,
}

fn fetch(agent: &ureq::Agent, url: &str, deadline: Instant) -> Fetched {
    let Some(origin) = Origin::of(url) else {
        return Fetched::NoAnswer("not an http(s) URL: not fetched".into(), None);
    };
    let left = deadline
        .saturating_duration_since(Instant::now())
        .min(MAX_REQUEST);
    if left.is_zero() {
        return Fetched::NotRun;
    }
    let headers = [
        ("Accept", "application/json"),
        ("MCP-Protocol-Version", PROTOCOL_VERSION),
    ];
    let resp = match request(agent, url, &origin, None, &headers, Wait::Global(left)) {
        Ok(r) => r,
        Err(Failure::CrossOrigin { to, .. }) => {
            return Fetched::Status(
                302,
                format!(
                    "a redirect to another origin ({}): not followed",
                    quoted_url(&to)
                ),
            );
        }
        Err(Failure::Http { message, cause }) => return Fetched::NoAnswer(message, cause),
        Err(f @ Failure::Timeout { .. }) => {
            return Fetched::NoAnswer(f.to_string(), Some(Cause::Timeout));
        }
        Err(f) => return Fetched::NoAnswer(f.to_string(), None),
    };
    let status = resp.status().as_u16();
    let redirected = resp.status().is_redirection();
    let mut body = resp.into_body();
    if !(200..300).contains(&status) {
        let why = if redirected {
            "a redirect without a usable Location: not followed".to_string()
        } else {
            format!("HTTP {status}")
        };
        return Fetched::Status(status, why);
    }
    match body.with_config().limit(MAX_METADATA_BYTES).read_to_vec() {
        Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
            Ok(v) => Fetched::Json(status, v),
            Err(e) => Fetched::Unreadable(status, format!("not JSON ({e})")),
        },
        Err(ureq::Error::BodyExceedsLimit(_)) => Fetched::Unreadable(
            status,
            format!("larger than {} KiB: not read", MAX_METADATA_BYTES / 1024),
        ),
        Err(e) => Fetched::Unreadable(status, format!("the body could not be read ({e})")),
    }
}

/// `s`, a step the probe's time limit kept from running.
fn not_run(mut s: OauthStep) -> OauthStep {
    s.contacted = false;
    s.ms = 0;
    s.detail = "not run: the probe's time limit was spent on an earlier step".into();
    s
}

/// Marks the step just pushed as timed out when its request was (`cause`).
fn mark_timeout(steps: &mut [OauthStep], cause: Option<Cause>) {
    if cause == Some(Cause::Timeout)
        && let Some(s) = steps.last_mut()
    {
        s.timed_out = true;
        s.detail = s.detail.replacen(
            "no answer (no answer within",
            "no answer (the probe's time limit: no answer within",
            1,
        );
    }
}

/// The protected-resource metadata's authorization server, or why the document is
/// not valid (the SDK's schema: an object whose `resource` is a string and whose
/// `authorization_servers`, when present, is a list of URLs).
fn read_resource_metadata(v: &Value) -> Result<Option<String>, String> {
    let Some(o) = v.as_object() else {
        return Err("not a JSON object".into());
    };
    match o.get("resource") {
        Some(Value::String(_)) => {}
        Some(_) => return Err("`resource` is not a string".into()),
        None => return Err("no `resource`".into()),
    }
    match o.get("authorization_servers") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(list)) => {
            let mut first = None;
            for (i, s) in list.iter().enumerate() {
                match s.as_str() {
                    Some(u) if Origin::of(u).is_some() => {
                        if first.is_none() {
                            first = Some(u.to_string());
                        }
                    }
                    _ => {
                        return Err(format!(
                            "`authorization_servers[{i}]` is not an http(s) URL"
                        ));
                    }
                }
            }
            Ok(first)
        }
        Some(_) => Err("`authorization_servers` is not a list".into()),
    }
}

/// The authorization server metadata's `registration_endpoint`, or why the document is
/// not valid (the SDK's schema: `issuer`, `authorization_endpoint` and `token_endpoint`
/// strings, `response_types_supported` a list; `registration_endpoint` a string when
/// present).
fn read_auth_server_metadata(v: &Value) -> Result<Option<String>, String> {
    let Some(o) = v.as_object() else {
        return Err("not a JSON object".into());
    };
    for key in ["issuer", "authorization_endpoint", "token_endpoint"] {
        match o.get(key) {
            Some(Value::String(_)) => {}
            Some(_) => return Err(format!("`{key}` is not a string")),
            None => return Err(format!("no `{key}`")),
        }
    }
    match o.get("response_types_supported") {
        Some(Value::Array(_)) => {}
        Some(_) => return Err("`response_types_supported` is not a list".into()),
        None => return Err("no `response_types_supported`".into()),
    }
    match o.get("registration_endpoint") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(u)) if Origin::of(u).is_some() => Ok(Some(u.clone())),
        Some(Value::String(_)) => Err("`registration_endpoint` is not an http(s) URL".into()),
        Some(_) => Err("`registration_endpoint` is not a string".into()),
    }
}

/// Follows Claude Code's OAuth discovery for `server_url`, which answered 401 with
/// `www_authenticate`, until `deadline`. Sends only GETs, with [`HEADERS_SENT`] alone.
pub fn discover(server_url: &str, www_authenticate: Option<&str>, deadline: Instant) -> Discovery {
    let agent = agent();
    let mut steps: Vec<OauthStep> = Vec::new();
    let resource_metadata_url = www_authenticate.and_then(resource_metadata_param);
    let timed = |url: &str| {
        let t = Instant::now();
        let f = fetch(&agent, url, deadline);
        (f, t.elapsed().as_millis() as u64)
    };

    // 1. protected-resource metadata
    let prm_urls = match &resource_metadata_url {
        Some(u) => vec![u.clone()],
        None => resource_metadata_urls(server_url),
    };
    let mut auth_server: Option<String> = None;
    let fallback = "Claude Code takes the server's origin as the authorization server";
    for (i, url) in prm_urls.iter().enumerate() {
        let last = i + 1 == prm_urls.len();
        let (f, ms) = timed(url);
        let step = |status, outcome, detail: String| OauthStep {
            kind: StepKind::ResourceMetadata,
            url: url.clone(),
            status,
            outcome,
            contacted: true,
            ms,
            detail,
            timed_out: false,
        };
        match f {
            Fetched::Json(status, v) => match read_resource_metadata(&v) {
                Ok(a) => {
                    let detail = match &a {
                        Some(a) => format!("authorization server {}", quoted_url(a)),
                        None => format!("names no authorization server: {fallback}"),
                    };
                    steps.push(step(Some(status), StepOutcome::Found, detail));
                    auth_server = a;
                    break;
                }
                Err(why) => {
                    steps.push(step(
                        Some(status),
                        StepOutcome::FallBack,
                        format!("not valid metadata ({why}): {fallback}"),
                    ));
                    break;
                }
            },
            Fetched::Unreadable(status, why) => {
                steps.push(step(
                    Some(status),
                    StepOutcome::FallBack,
                    format!("{why}: {fallback}"),
                ));
                break;
            }
            // a 4xx (or no answer) at the path-aware URL: the root one next
            Fetched::Status(status, why) if status < 500 && !last => {
                steps.push(step(
                    Some(status),
                    StepOutcome::NotFound,
                    format!("{}Claude Code tries the next URL", lead(&why, status)),
                ));
            }
            Fetched::NotRun => steps.push(not_run(step(None, StepOutcome::NotRun, String::new()))),
            Fetched::NoAnswer(why, cause) if !last => {
                steps.push(step(
                    None,
                    StepOutcome::NotFound,
                    format!("no answer ({why}): Claude Code tries the next URL"),
                ));
                mark_timeout(&mut steps, cause);
            }
            Fetched::Status(status, why) => {
                steps.push(step(
                    Some(status),
                    StepOutcome::FallBack,
                    format!("{}{fallback}", lead(&why, status)),
                ));
            }
            Fetched::NoAnswer(why, cause) => {
                steps.push(step(
                    None,
                    StepOutcome::FallBack,
                    format!("no answer ({why}): {fallback}"),
                ));
                mark_timeout(&mut steps, cause);
            }
        }
    }
    let auth_server = auth_server.or_else(|| origin_root(server_url));

    // 2. the authorization server's metadata
    let mut found: Option<Result<Option<String>, String>> = None;
    let mut failure: Option<(String, Cause)> = None;
    let mut unanswered: Option<&'static str> = None;
    if let Some(a) = &auth_server {
        for url in auth_server_metadata_urls(a) {
            let (f, ms) = timed(&url);
            let step = |status, outcome, detail: String| OauthStep {
                kind: StepKind::AuthServerMetadata,
                url: url.clone(),
                status,
                outcome,
                contacted: true,
                ms,
                detail,
                timed_out: false,
            };
            match f {
                Fetched::Json(status, v) => {
                    let read = read_auth_server_metadata(&v);
                    match &read {
                        Ok(reg) => steps.push(step(
                            Some(status),
                            StepOutcome::Found,
                            match reg {
                                Some(_) => "metadata with a registration_endpoint".into(),
                                None => "metadata without a registration_endpoint".into(),
                            },
                        )),
                        Err(why) => {
                            let detail = format!("not valid metadata ({why})");
                            steps.push(step(Some(status), StepOutcome::Failed, detail.clone()));
                            failure = Some((detail, Cause::Other));
                        }
                    }
                    found = Some(read);
                    break;
                }
                Fetched::Unreadable(status, why) => {
                    steps.push(step(Some(status), StepOutcome::Failed, why.clone()));
                    failure = Some((why, Cause::Other));
                    break;
                }
                Fetched::Status(status, why) if status < 500 => steps.push(step(
                    Some(status),
                    StepOutcome::NotFound,
                    format!("{}Claude Code tries the next URL", lead(&why, status)),
                )),
                Fetched::Status(status, why) => {
                    let detail = format!("{why}: Claude Code's sign-in stops here");
                    steps.push(step(Some(status), StepOutcome::Failed, detail.clone()));
                    failure = Some((detail, Cause::Other));
                    break;
                }
                Fetched::NotRun => {
                    steps.push(not_run(step(None, StepOutcome::NotRun, String::new())))
                }
                Fetched::NoAnswer(why, cause) => {
                    steps.push(step(
                        None,
                        StepOutcome::NotFound,
                        format!("no answer ({why}): Claude Code tries the next URL"),
                    ));
                    mark_timeout(&mut steps, cause);
                    unanswered = Some(cause.map_or("no answer", |c| c.as_str()));
                }
            }
        }
    }
    // the probe's time limit ended the discovery: the step that waited says so, the
    // steps after it did not run, and what Claude Code (which may wait longer) then does
    // is not known
    let ran_out = steps
        .iter()
        .any(|s| s.timed_out || s.outcome == StepOutcome::NotRun);
    if found.is_none() && failure.is_none() && ran_out {
        let waited = steps
            .iter()
            .find(|s| s.timed_out)
            .map_or("the discovery".to_string(), |s| s.kind.words().to_string());
        let skipped = steps
            .iter()
            .filter(|s| s.outcome == StepOutcome::NotRun)
            .count();
        if let Some(s) = steps
            .iter_mut()
            .rfind(|s| s.kind == StepKind::AuthServerMetadata && s.outcome != StepOutcome::NotRun)
        {
            s.outcome = StepOutcome::Failed;
        }
        failure = Some((
            format!(
                "{waited} got no answer within the probe's time limit{}",
                match skipped {
                    0 => String::new(),
                    1 => ", and the step after it did not run".to_string(),
                    n => format!(", and the {n} steps after it did not run"),
                }
            ),
            Cause::Timeout,
        ));
    }
    // every URL unanswered: the authorization server cannot be reached at all, and
    // neither can its default endpoints (not observed: `other`, since the advice of
    // the network causes speaks of the server itself; the step says what the client met)
    if found.is_none()
        && failure.is_none()
        && let Some(met) = unanswered
        && steps
            .iter()
            .filter(|s| s.kind == StepKind::AuthServerMetadata)
            .all(|s| s.status.is_none())
        && let Some(last) = steps.last_mut()
    {
        last.outcome = StepOutcome::Failed;
        last.detail = last.detail.replace(
            ": Claude Code tries the next URL",
            ": the authorization server does not answer",
        );
        failure = Some((
            format!("the authorization server does not answer at any of its metadata URLs ({met})"),
            Cause::Other,
        ));
    }

    // 3. the registration endpoint: never contacted
    let mut registration_endpoint = None;
    let cause = if let Some((detail, cause)) = failure {
        let summary = if ran_out {
            format!("the OAuth discovery did not finish: {detail}")
        } else {
            format!(
                "the authorization server's metadata stops Claude Code's sign-in: {detail} (a failure not observed on a real build)"
            )
        };
        return Discovery {
            steps,
            cause,
            resource_metadata_url,
            authorization_server: auth_server,
            registration_endpoint,
            summary,
        };
    } else {
        match found {
            Some(Ok(Some(reg))) => {
                steps.push(OauthStep {
                    kind: StepKind::Registration,
                    url: reg.clone(),
                    status: None,
                    outcome: StepOutcome::Advertised,
                    contacted: false,
                    ms: 0,
                    timed_out: false,
                    detail:
                        "advertised; not contacted: Claude Code registers only when you sign in"
                            .into(),
                });
                registration_endpoint = Some(reg);
                Cause::NeedsAuth
            }
            Some(Ok(None)) => {
                steps.push(OauthStep {
                    kind: StepKind::Registration,
                    url: String::new(),
                    status: None,
                    outcome: StepOutcome::Missing,
                    contacted: false,
                    ms: 0,
                    timed_out: false,
                    detail: "no registration_endpoint: Claude Code fails with \"Incompatible auth server: does not support dynamic client registration\"".into(),
                });
                Cause::OauthNoRegistration
            }
            // no metadata anywhere: Claude Code's default endpoints
            _ => {
                let reg = auth_server
                    .as_deref()
                    .map(|a| resolve_url(a, "/register"))
                    .unwrap_or_default();
                steps.push(OauthStep {
                    kind: StepKind::Registration,
                    url: reg.clone(),
                    status: None,
                    outcome: StepOutcome::Default,
                    contacted: false,
                    ms: 0,
                    timed_out: false,
                    detail: "no metadata: Claude Code uses the default /authorize, /token and /register there; not contacted".into(),
                });
                registration_endpoint = (!reg.is_empty()).then_some(reg);
                Cause::NeedsAuth
            }
        }
    };
    let stored = "the probe sends no stored token, so a server you already signed in to in Claude Code may connect there";
    let summary = match (cause, steps.last().map(|s| s.outcome)) {
        (Cause::OauthNoRegistration, _) => "the authorization server offers no dynamic client registration: Claude Code cannot register itself and fails (observed on 2.1.287, 2.1.310 and 2.1.336)".to_string(),
        (_, Some(StepOutcome::Default)) => format!(
            "no OAuth metadata was found: Claude Code uses the default endpoints of {} and shows needs-auth until you sign in; whether its /register accepts Claude Code, the probe did not try ({stored})",
            auth_server.as_deref().map_or_else(|| "the server's origin".to_string(), quoted_url)
        ),
        _ => format!("the server needs a sign-in and its OAuth discovery ends at an advertised registration endpoint: Claude Code shows needs-auth until you sign in ({stored})"),
    };
    Discovery {
        steps,
        cause,
        resource_metadata_url,
        authorization_server: auth_server,
        registration_endpoint,
        summary,
    }
}

/// `p`, a prediction from `failure`, as the auth check reads it: a refused configured
/// `Authorization` header is `auth-header-rejected`; a 401 is the discovery's cause,
/// with its summary as the reason. Other predictions are unchanged.
pub fn settle(
    mut p: super::Prediction,
    failure: Option<&Failure>,
    check: Option<&AuthCheck>,
) -> super::Prediction {
    let (Some(f), Some(check)) = (failure, check) else {
        return p;
    };
    let Some(status) = auth_status(f) else {
        return p;
    };
    match check {
        AuthCheck::HeaderRejected { .. } => {
            p.verdict = crate::classify::verdict::Verdict::ConnectionFailed;
            p.cause = Some(Cause::AuthHeaderRejected);
            p.reason = format!(
                "the server refused the configured Authorization header (HTTP {status}); while that header is set Claude Code tries no OAuth and fails (observed on 2.1.287, 2.1.310 and 2.1.336)"
            );
        }
        AuthCheck::Discovery(d) if status == 401 => {
            p.verdict = crate::classify::verdict::Verdict::ConnectionFailed;
            p.cause = Some(d.cause);
            let first = match d.first_failing() {
                Some(s) => format!(
                    " (first failing step: {}, {})",
                    s.kind.words(),
                    match s.status {
                        Some(c) => format!("HTTP {c}"),
                        None if s.timed_out => "no answer within the probe's time limit".into(),
                        None => s.outcome.as_str().to_string(),
                    }
                ),
                None => String::new(),
            };
            p.reason = format!("the server answered 401{first}: {}", d.summary);
        }
        AuthCheck::Discovery(_) => {}
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resource_metadata_parameter_is_read_as_the_sdk_reads_it() {
        assert_eq!(
            resource_metadata_param(
                r#"Bearer realm="x", resource_metadata="http://a.test/.well-known/oauth-protected-resource""#
            )
            .as_deref(),
            Some("http://a.test/.well-known/oauth-protected-resource")
        );
        assert_eq!(
            resource_metadata_param("Bearer Resource_Metadata=https://a.test/m, realm=x")
                .as_deref(),
            Some("https://a.test/m")
        );
        assert_eq!(resource_metadata_param(r#"Bearer realm="mcplogs""#), None);
        assert_eq!(
            resource_metadata_param(r#"Bearer resource_metadata="file:///etc/passwd""#),
            None
        );
        assert_eq!(
            resource_metadata_param(r#"Bearer xresource_metadata="http://a.test/m""#),
            None
        );
        assert_eq!(
            resource_metadata_param(r#"Bearer resource_metadata="http"#),
            None
        );
    }

    #[test]
    fn the_well_known_urls_come_in_claude_codes_order() {
        assert_eq!(
            resource_metadata_urls("http://127.0.0.1:9/mcp"),
            vec![
                "http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp",
                "http://127.0.0.1:9/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            resource_metadata_urls("https://a.test"),
            vec!["https://a.test/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            auth_server_metadata_urls("http://127.0.0.1:9"),
            vec![
                "http://127.0.0.1:9/.well-known/oauth-authorization-server",
                "http://127.0.0.1:9/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            auth_server_metadata_urls("https://id.test/tenant1/"),
            vec![
                "https://id.test/.well-known/oauth-authorization-server/tenant1",
                "https://id.test/.well-known/openid-configuration/tenant1",
                "https://id.test/tenant1/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn a_shown_url_keeps_no_credential() {
        assert_eq!(
            shown_url("https://u:p@a.test/reg?client_secret=s3&x=&y#frag"),
            "https://a.test/reg?client_secret=[REDACTED]&x=&y"
        );
        assert_eq!(shown_url("http://a.test/x"), "http://a.test/x");
    }

    #[test]
    fn metadata_of_the_wrong_shape_is_named() {
        let v: Value = serde_json::json!({"resource": "x", "authorization_servers": 5});
        assert!(
            read_resource_metadata(&v)
                .unwrap_err()
                .contains("not a list")
        );
        let v: Value =
            serde_json::json!({"resource": "x", "authorization_servers": ["javascript:alert(1)"]});
        assert!(read_resource_metadata(&v).unwrap_err().contains("[0]"));
        let v: Value = serde_json::json!({"issuer": "x", "authorization_endpoint": "a",
            "token_endpoint": "t", "response_types_supported": ["code"],
            "registration_endpoint": {"url": "x"}});
        assert!(
            read_auth_server_metadata(&v)
                .unwrap_err()
                .contains("registration_endpoint")
        );
        let v: Value = serde_json::json!([1, 2]);
        assert!(read_auth_server_metadata(&v).is_err());
    }
}
