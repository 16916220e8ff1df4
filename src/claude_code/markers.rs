//! The log wording mcplogs keys on (observed in Claude Code 2.1.280 to 2.1.336, see
//! docs/claude-code.md), shared by the decoder's prefilter and the
//! classifier. Imports nothing from the crate but the build numbers of
//! `claude_code::lifecycle` (which builds a wording was seen on). Never add wording from
//! memory: take it from sample-logs/ or a real run.

use super::lifecycle::{ClaudeVersion, v};

pub(crate) const CONNECTED_MARKERS: &[&str] = &["Connection established", "Successfully connected"];
pub(crate) const TOLERATED_MARKERS: &[&str] = &["omits required fields", "filled in resultType"];
pub(crate) const VERSION_MARKER: &str = "protocol version is not supported";
/// Where a tools/list failure message starts, for the forms observed:
/// `Failed to fetch tools: ...` (final error), `tools/list failed (...); retrying in 250ms`,
/// `tools fetch failed — ...` (`claude mcp list`), `missing required resultType ...`.
pub(crate) const TOOLS_FAILURE_MARKERS: &[&str] = &[
    "Failed to fetch tools",
    "tools/list failed",
    "tools fetch failed",
    "Invalid result for tools/list",
    "missing required resultType",
];
/// resources/list and prompts/list failures (observed 2.1.288, modern era): retries
/// `resources/list failed (...); retrying in 250ms`, `prompts/list failed (...)`, then the
/// `error` records `Failed to fetch resources: ...` and `Failed to fetch commands: ...`.
/// Checked before [`TOOLS_FAILURE_MARKERS`], whose `missing required resultType` they
/// also contain.
pub(crate) const RESOURCES_FAILURE_MARKERS: &[&str] =
    &["resources/list failed", "Failed to fetch resources"];
pub(crate) const PROMPTS_FAILURE_MARKERS: &[&str] =
    &["prompts/list failed", "Failed to fetch commands"];
/// `tools/list still returning nextCursor after 20 pages; stopping` (every build).
pub(crate) const PAGE_CAP_MARKER: &str = "tools/list still returning nextCursor after";
/// `Received tools/list_changed notification, refreshing tools` (every build).
pub(crate) const LIST_CHANGED_MARKER: &str = "tools/list_changed notification";
/// `Tool "mcp__<server>__<tool>" is not sent to Claude: its name has 129 characters and
/// the API accepts at most 128` (an `error` record, 2.1.292 and later; once per tool
/// name in a Claude Code process, as read from the 2.1.311 binary, not run): only that
/// tool is lost.
pub(crate) const TOOL_NAME_LIMIT_MARKER: &str = " is not sent to Claude: its name has ";
/// Where that record starts.
pub(crate) const TOOL_NAME_LIMIT_START: &str = "Tool \"";
/// `claude mcp list`'s warning for a Windows configuration that starts `npx` directly:
/// `[Warning] ... Windows requires 'cmd /c' wrapper to execute npx`. Wording as a user
/// reported it: no Windows build was run here, and the text of the Linux builds 2.1.311
/// and 2.1.332 does not hold it (docs/claude-code.md). Not a log record: `explain` only.
pub(crate) const WINDOWS_CMD_WRAPPER_MARKER: &str = "requires 'cmd /c' wrapper to execute";
/// The heading `claude mcp list` prints after the servers, before what it found wrong in
/// the configuration files: `MCP config diagnostics ⚠` (or `✘`), then a link, then per
/// file a `Location: <file>` line and its `[Warning]`/`[Error]` lines (2.1.288 and
/// 2.1.332, docs/claude-code.md "Configuration errors"). Not a log record: `explain`.
pub(crate) const CONFIG_DIAGNOSTICS_HEADING: &str = "MCP config diagnostics";
/// Where a diagnostics line of an entry Claude Code skips gives its reason: `[Warning]
/// [u-nocmd] mcpServers.u-nocmd: Skipped — invalid MCP server config for "u-nocmd":
/// command: expected string, received undefined` (2.1.288, 2.1.332).
pub(crate) const CONFIG_SKIPPED: &str = ": Skipped — ";
/// A diagnostics line of a file Claude Code skips whole: ` └ [Error] MCP config is not a
/// valid JSON` (2.1.288; 2.1.332 adds ` (line 1, column 64)`).
pub(crate) const CONFIG_FILE_ERROR: &str = "[Error] ";
/// Where a diagnostics line names its file: `Location: <file>` (2.1.288, 2.1.332).
pub(crate) const CONFIG_LOCATION: &str = "Location: ";

/// How a record names the connection's transport, at its start: `Successfully connected
/// (transport: stdio) in 137ms`, `Initializing HTTP transport to <url>`, `STDIO
/// connection closed after 3s (cleanly)`, `HTTP Connection failed after 1750ms: ...`,
/// `STDIO connection dropped after 2s uptime` (the kept runs under
/// tests/fixtures/lifecycle/ hold them from 2.1.280 to 2.1.336, stdio from 2.1.288;
/// assumed on the builds no kept run covers).
pub(crate) const TRANSPORT_NAMED: &str = "Successfully connected (transport: ";
pub(crate) const TRANSPORT_STARTS: &[(&str, bool)] = &[
    ("Initializing HTTP transport", true),
    ("HTTP Connection failed", true),
    ("HTTP connection", true),
    ("SSE connection", true),
    ("STDIO connection", false),
];
/// `Starting connection with timeout of 30000ms`: the connection's `MCP_TIMEOUT`.
pub(crate) const STARTING_MARKER: &str = "Starting connection with timeout of ";
/// `Connection failed after 7117ms, 7117ms of it awake (CONNECT_TIMEOUT): ...`, `HTTP
/// Connection failed after 5040ms: Request timed out ...`: when the attempt failed
/// ([`INITIALIZE_TIMEOUT_WORDINGS`]).
pub(crate) const FAILED_AFTER_MARKER: &str = "Connection failed after ";
pub(crate) const CONNECTION_FAILURE_MARKERS: &[&str] = &[
    "Connection failed",
    "connection failed",
    "Failed to connect",
    "Connection timeout triggered",
    "connection timed out",
    "Authentication required",
    "Needs authentication",
    "needs authentication",
    // 2.1.332: `Skipping connection (cached needs-auth)`, left by an earlier 401.
    "cached needs-auth",
    AUTH_HEADER_REJECTED_MARKER,
];
/// The `error` record of a remote server that refused the `Authorization` header of its
/// configured `headers`: `Server rejected the configured Authorization header (HTTP 401).
/// Check that the token is valid for this MCP endpoint — OAuth fallback is disabled when
/// headers.Authorization is set.` (also `(HTTP 403)`; observed 2.1.287, 2.1.310,
/// 2.1.336, tests/fixtures/remote/static-401). The records before it read as an HTTP
/// answer (`Error POSTing to endpoint: ...`), so it is a connection failure of its own.
pub(crate) const AUTH_HEADER_REJECTED_MARKER: &str = "rejected the configured Authorization header";
/// What a remote server's failed connection says about its cause, in the records
/// `HTTP Connection failed after 44ms: <text> (code: <CODE>, errno: none)` and
/// `Connection failed (<CODE>): <text>` (observed on 2.1.287, 2.1.310 and 2.1.336, runs
/// kept under tests/fixtures/remote/; the Node error codes are Bun's, the same on every
/// build). Each is a regular expression; the classifier maps each list to its cause.
/// Untrusted certificate: self-signed (`DEPTH_ZERO_SELF_SIGNED_CERT: self signed
/// certificate`), signed by an unknown authority (`UNABLE_TO_VERIFY_LEAF_SIGNATURE:
/// unable to verify the first certificate`); the chain forms are Node's codes for the
/// same (not observed here).
pub(crate) const TLS_UNTRUSTED_WORDING: &str = r"DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT|CERT_UNTRUSTED|self[- ]signed certificate|unable to verify the first certificate|unable to get local issuer certificate";
/// `CERT_HAS_EXPIRED: certificate has expired`.
pub(crate) const TLS_EXPIRED_WORDING: &str = r"CERT_HAS_EXPIRED|certificate has expired";
/// `ERR_TLS_CERT_ALTNAME_INVALID fetching "https://127.0.0.1:41167/mcp"`.
pub(crate) const TLS_HOSTNAME_WORDING: &str =
    r"ERR_TLS_CERT_ALTNAME_INVALID|does not match certificate's altnames";
/// A CONNECT the proxy answered 403 or 407 (`ERR_PROXY_TUNNEL: Proxy refused to open a
/// tunnel: 407 Proxy Authentication Required`), or a plain-HTTP request it answered 407
/// (`Connection failed (407): Error POSTing to endpoint: ...`). A plain-HTTP request the
/// proxy answers 403 reads as the server's own 403: Claude Code says `needs-auth`.
/// `PROXY_REFUSED` is the code in the 2.1.337 build's strings (not observed).
pub(crate) const PROXY_REFUSED_WORDING: &str = r"ERR_PROXY_TUNNEL|PROXY_REFUSED|Proxy refused to open a tunnel|\(407\)|Proxy Authentication Required";
/// `getaddrinfo ENOTFOUND mcp.invalid`; `EAI_AGAIN` (no resolver answered) and
/// `NAME_LOOKUP_FAILED` (the 2.1.337 build's strings) are not observed here.
pub(crate) const NAME_NOT_RESOLVED_WORDING: &str =
    r"ENOTFOUND|EAI_AGAIN|NAME_LOOKUP_FAILED|getaddrinfo";
/// `ECONNREFUSED: Unable to connect. Is the computer able to access the url?`.
pub(crate) const CONNECTION_REFUSED_WORDING: &str = r"ECONNREFUSED";
/// A server that refused the legacy handshake's `initialize` with a JSON-RPC error
/// instead of answering another version: `Connection failed (-32602): Unsupported
/// protocol version` (observed on 2.1.287, 2.1.288, 2.1.300, 2.1.310, 2.1.332 and
/// 2.1.336 from a server that speaks only 2026-07-28, under
/// `MCP_PROTOCOL_NEGOTIATION=legacy`; `auto` made it connect). Every build proposes
/// 2025-11-25 there, so a server refusing it speaks only newer revisions.
pub(crate) const INITIALIZE_VERSION_REFUSED_WORDING: &str =
    r"\(-32602\): Unsupported protocol version";
/// `Connection failed: Incompatible auth server: does not support dynamic client
/// registration` (the authorization server's metadata has no `registration_endpoint`);
/// `CLIENT_REGISTRATION_UNAVAILABLE` is the 2.1.337 build's code (not observed).
pub(crate) const OAUTH_NO_REGISTRATION_WORDING: &str =
    r"does not support dynamic client registration|CLIENT_REGISTRATION_UNAVAILABLE";
/// A tool call, logged to the server's file when the model calls one of its tools
/// (`Calling MCP tool: NAME`, then `Tool 'NAME' completed successfully in 3s` or `Tool
/// 'NAME' failed after 2s: ...`; templates in the 2.1.288 and 2.1.332 binaries). A
/// tool can only be called once the tools were listed, so the first record is enough.
pub(crate) const TOOL_CALL_MARKER: &str = "Calling MCP tool:";
/// `STDIO connection closed after 5400s (cleanly)` (also `HTTP`, `SSE`, `UNKNOWN`, and
/// `(with errors)`): how long the connection lasted, observed in every version.
pub(crate) const CLOSED_MARKER: &str = "connection closed after ";
/// A record whose wording changed between builds: each form, with the builds it was seen
/// on (every published build from 2.1.280 to 2.1.336 ran under `scripts/observe-build`;
/// the fixture under tests/fixtures/lifecycle/ holds a run of each form). `N` stands for
/// a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wording {
    pub text: &'static str,
    /// The first and the last build it was seen on (compared as versions: as text,
    /// 2.1.1000 would sort before 2.1.999).
    pub seen: (ClaudeVersion, ClaudeVersion),
    /// `<fixture>/<build>` holding it.
    pub fixture: &'static str,
}

/// An `initialize` past its limit (the classifier's timeout cause keys on
/// `CONNECT_TIMEOUT`/`timed out`, which every form holds).
pub const INITIALIZE_TIMEOUT_WORDINGS: &[Wording] = &[
    Wording {
        text: "Connection failed after Nms (CONNECT_TIMEOUT): Request timed out",
        seen: (v(280), v(306)),
        fixture: "handshake-budget-stdio/2.1.287",
    },
    Wording {
        text: "Connection failed after Nms, Nms of it awake (CONNECT_TIMEOUT): Request timed out",
        seen: (v(307), v(336)),
        fixture: "handshake-budget-http/2.1.307",
    },
];

/// The last record of a stdio server that Claude Code stopped at its exit.
pub const PROCESS_END_WORDINGS: &[Wording] = &[
    Wording {
        text: "MCP server process exited cleanly",
        seen: (v(280), v(332)),
        fixture: "stdio-default/2.1.332",
    },
    Wording {
        text: "MCP server process closed",
        seen: (v(333), v(336)),
        fixture: "stdio-default/2.1.333",
    },
];

/// Not decisive, but they bound a session in time (`Starting connection with timeout of
/// 30000ms`, `STDIO connection closed after 5s`, `MCP server process exited cleanly`
/// or, from 2.1.333, `MCP server process closed` ([`PROCESS_END_WORDINGS`]),
/// `Connection abandoned after 7150ms (Claude Code is shutting down)`, and the first and
/// last records of an HTTP session, `Initializing HTTP transport to <url>` and `Cleared
/// connection cache for reconnection`).
/// Only the prefilter needs them (its test checks they are caught).
#[cfg(test)]
const SESSION_MARKERS: &[&str] = &[
    "Starting connection",
    "Initializing HTTP transport",
    "connection closed",
    "server process exited",
    "server process closed",
    "Connection abandoned",
    "Cleared connection cache",
];

/// The scan's prefilter: a raw log line is JSON-decoded only when it contains one of
/// these. Each is a substring of at least one marker above, and every marker contains at
/// least one of them (a unit test checks both), so no line that `classify::read_signal` could act
/// on is skipped. Claude Code escapes none of their characters in JSON. Few and short on
/// purpose: a multi-needle search slows down sharply with many long needles (measured:
/// `rg -c` with the 25 markers takes 4.3 s on the 2 GiB benchmark tree, with these 0.5 s).
pub const PREFILTER_NEEDLES: &[&str] = &[
    "onnect",
    "tools",
    "omits required",
    "filled in",
    "missing required",
    "uthentication",
    "needs-auth",
    "protocol version",
    "server process",
    "HTTP transport",
    "MCP tool",
    "Failed to fetch",
    "list failed",
    "not sent to Claude",
    "Authorization header",
];

/// Every marker the classifier and the session bounds look for.
#[cfg(test)]
fn all_markers() -> Vec<&'static str> {
    let mut all: Vec<&'static str> = Vec::new();
    all.extend(CONNECTED_MARKERS);
    all.extend(TOLERATED_MARKERS);
    all.push(VERSION_MARKER);
    all.extend(TOOLS_FAILURE_MARKERS);
    all.extend(RESOURCES_FAILURE_MARKERS);
    all.extend(PROMPTS_FAILURE_MARKERS);
    all.push(PAGE_CAP_MARKER);
    all.push(LIST_CHANGED_MARKER);
    all.push(TOOL_NAME_LIMIT_MARKER);
    all.push(TRANSPORT_NAMED);
    all.extend(TRANSPORT_STARTS.iter().map(|(m, _)| *m));
    all.push(STARTING_MARKER);
    all.push(FAILED_AFTER_MARKER);
    all.extend(CONNECTION_FAILURE_MARKERS);
    all.push(TOOL_CALL_MARKER);
    all.push(CLOSED_MARKER);
    all.extend(SESSION_MARKERS);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_observed_wording_of_a_changed_record_is_caught() {
        for w in INITIALIZE_TIMEOUT_WORDINGS {
            assert!(
                CONNECTION_FAILURE_MARKERS
                    .iter()
                    .any(|m| w.text.contains(m)),
                "{}",
                w.text
            );
            assert!(w.text.contains("CONNECT_TIMEOUT"), "{}", w.text);
        }
        for w in INITIALIZE_TIMEOUT_WORDINGS
            .iter()
            .chain(PROCESS_END_WORDINGS)
        {
            assert!(
                PREFILTER_NEEDLES.iter().any(|n| w.text.contains(n)),
                "{}",
                w.text
            );
            assert!(w.seen.0 <= w.seen.1, "{}", w.text);
        }
        for w in PROCESS_END_WORDINGS {
            assert!(
                SESSION_MARKERS.iter().any(|m| w.text.contains(m)),
                "{}",
                w.text
            );
        }
    }

    #[test]
    fn every_marker_is_caught_by_the_prefilter_and_every_needle_is_used() {
        for m in all_markers() {
            assert!(
                PREFILTER_NEEDLES.iter().any(|n| m.contains(n)),
                "no prefilter needle in marker {m:?}"
            );
        }
        for n in PREFILTER_NEEDLES {
            assert!(
                all_markers().iter().any(|m| m.contains(n)),
                "needle {n:?} serves no marker"
            );
        }
    }
}
