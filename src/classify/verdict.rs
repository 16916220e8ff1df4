//! What mcplogs concludes about a server, and the one fix that applies to it.
//!
//! The string forms are part of the `--json` contract: never rename them.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    Healthy,
    Tolerated,
    ToolsFetchFailed,
    /// Connected with tools, but Claude Code lost part of what the server offers.
    Degraded,
    VersionUnsupported,
    ConnectionFailed,
    Unknown,
}

impl Verdict {
    /// Every verdict, in the order the docs list them.
    pub const ALL: [Verdict; 7] = [
        Verdict::Healthy,
        Verdict::Tolerated,
        Verdict::ToolsFetchFailed,
        Verdict::Degraded,
        Verdict::VersionUnsupported,
        Verdict::ConnectionFailed,
        Verdict::Unknown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Healthy => "healthy",
            Verdict::Tolerated => "tolerated",
            Verdict::ToolsFetchFailed => "tools-fetch-failed",
            Verdict::Degraded => "degraded",
            Verdict::VersionUnsupported => "version-unsupported",
            Verdict::ConnectionFailed => "connection-failed",
            Verdict::Unknown => "unknown",
        }
    }

    /// Whether this verdict means the user has something to fix (drives exit code 1).
    /// `unknown` is not a problem: mcplogs has no evidence that anything is wrong.
    pub fn is_problem(self) -> bool {
        matches!(
            self,
            Verdict::ToolsFetchFailed
                | Verdict::Degraded
                | Verdict::VersionUnsupported
                | Verdict::ConnectionFailed
        )
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Defines [`Cause`], its string forms and [`Cause::ALL`] from one list, so that no
/// cause can miss its name or a place in `ALL` (the summary cache decodes by it).
macro_rules! causes {
    ($($(#[$doc:meta])* $variant:ident => $name:literal,)+) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Cause {
            $($(#[$doc])* $variant,)+
        }

        impl Cause {
            /// Every cause, in declaration order.
            pub const ALL: &'static [Cause] = &[$(Cause::$variant,)+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Cause::$variant => $name,)+
                }
            }
        }
    };
}

causes! {
    // tools-fetch-failed
    MissingResultType => "missing-resultType",
    MissingCacheFields => "missing-cache-fields",
    WrongFieldTypes => "wrong-field-types",
    InvalidToolDefinition => "invalid-tool-definition",
    /// The handshake declared no `tools` capability: `tools/list` was never sent.
    NoToolsCapability => "no-tools-capability",
    /// `tools/list` took longer than `MCP_TIMEOUT`.
    ToolsTimeout => "tools-timeout",
    // degraded
    /// Claude Code stopped following `nextCursor` at its page cap.
    PaginationTruncated => "pagination-truncated",
    /// resources/list or prompts/list rejected while the tools loaded.
    ListsRejected => "lists-rejected",
    /// The refetch after `notifications/tools/list_changed` was rejected; the previous
    /// tools stay in use.
    StaleAfterRefresh => "stale-after-refresh",
    /// Claude Code did not send some tools to the model: their full names
    /// (`mcp__<server>__<tool>`) are longer than the API accepts.
    ToolNameTooLong => "tool-name-too-long",
    /// Claude Code left tools out of the list for an invalid `x-mcp-header`
    /// declaration in their `inputSchema` (2026-07-28 over HTTP; only its own stderr
    /// says so, so only `probe` finds it).
    ToolHeaderInvalid => "tool-header-invalid",
    // version-unsupported, or connection-failed
    /// The server speaks only the 2026-07-28 revision and met the legacy handshake: it
    /// answered `initialize` with a version newer than every one that handshake proposes
    /// (`version-unsupported`), or refused the handshake's version with a JSON-RPC error
    /// (`connection-failed`). Claude Code negotiates the new revision unless
    /// `MCP_PROTOCOL_NEGOTIATION=legacy` is in effect (or, for stdio, on builds before
    /// 2.1.292).
    ModernOnly => "modern-only",
    // connection-failed
    CommandNotFound => "command-not-found",
    ConnectionClosed => "connection-closed",
    Timeout => "timeout",
    NeedsAuth => "needs-auth",
    /// A remote server's TLS certificate is not trusted: self-signed, or signed by a
    /// certificate authority Claude Code does not know (`DEPTH_ZERO_SELF_SIGNED_CERT`,
    /// `UNABLE_TO_VERIFY_LEAF_SIGNATURE`, ...).
    TlsUntrusted => "tls-untrusted",
    /// A remote server's TLS certificate has expired (`CERT_HAS_EXPIRED`).
    TlsExpired => "tls-expired",
    /// A remote server's TLS certificate is for another host name
    /// (`ERR_TLS_CERT_ALTNAME_INVALID`).
    TlsHostname => "tls-hostname",
    /// The proxy of `HTTPS_PROXY`/`HTTP_PROXY` refused the connection (a CONNECT
    /// answered 403 or 407: `ERR_PROXY_TUNNEL`; a plain-HTTP request answered 407).
    ProxyRefused => "proxy-refused",
    /// The server's host name does not resolve (`ENOTFOUND`, `EAI_AGAIN`).
    NameNotResolved => "name-not-resolved",
    /// Nothing listens at the server's host and port (`ECONNREFUSED`).
    ConnectionRefused => "connection-refused",
    /// The authorization server offers no dynamic client registration, and no client
    /// id is configured (`Incompatible auth server: does not support dynamic client
    /// registration`).
    OauthNoRegistration => "oauth-no-registration",
    /// The server refused the `Authorization` header configured in the server's
    /// `headers` (HTTP 401 or 403); Claude Code does not fall back to OAuth then.
    AuthHeaderRejected => "auth-header-rejected",
    // unknown
    /// Claude Code served the server's tools from its MCP discovery cache and did not
    /// contact it in the project's last session: its live state is unknown (issue 54).
    ServedFromCache => "served-from-cache",
    // either
    Other => "other",
}

impl Cause {
    /// The cause whose string form is `s`.
    pub fn parse(s: &str) -> Option<Cause> {
        Cause::ALL.iter().copied().find(|c| c.as_str() == s)
    }

    /// The causes that only exist under revision 2026-07-28 and that the legacy
    /// negotiation setting therefore fixes.
    pub fn is_negotiation_field_error(self) -> bool {
        matches!(
            self,
            Cause::MissingResultType | Cause::MissingCacheFields | Cause::WrongFieldTypes
        )
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A verdict with its cause, as every screen shows it: `tools-fetch-failed
/// (missing-resultType)`, or the verdict alone.
pub fn label(verdict: Verdict, cause: Option<Cause>) -> String {
    match cause {
        Some(c) => format!("{verdict} ({c})"),
        None => verdict.to_string(),
    }
}

/// The protocol era Claude Code negotiated (`protocolEra` in the capabilities record).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    Modern,
    Legacy,
}

impl Era {
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Modern => "modern",
            Era::Legacy => "legacy",
        }
    }

    pub fn parse(s: &str) -> Option<Era> {
        match s {
            "modern" => Some(Era::Modern),
            "legacy" => Some(Era::Legacy),
            _ => None,
        }
    }
}

/// How Claude Code reached the server, as its log says: what advice can ask of the user
/// (a command to run by hand, or a URL to check).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transport {
    /// A process Claude Code started (`stdio`).
    Stdio,
    /// A URL (`http`, `sse`).
    Remote,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Remote => "remote",
        }
    }

    pub fn parse(s: &str) -> Option<Transport> {
        match s {
            "stdio" => Some(Transport::Stdio),
            "remote" => Some(Transport::Remote),
            _ => None,
        }
    }
}

/// The classifier's full answer for one session (or one pasted status line).
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnosis {
    pub verdict: Verdict,
    pub cause: Option<Cause>,
    pub era: Option<Era>,
    pub negotiated_protocol_version: Option<String>,
    /// Fields Claude Code filled in for a `tolerated` server.
    pub filled_fields: Vec<String>,
    /// For `invalid-tool-definition`: the zod path of the first bad tool field.
    pub bad_tool_path: Option<String>,
    /// Indexes (into the session's records) of the records that decided the verdict.
    pub evidence: Vec<usize>,
    /// The capabilities object of the connection, when logged.
    pub capabilities: Option<std::sync::Arc<serde_json::Value>>,
    /// For `healthy` and `tolerated`: what shows the tools were really loaded, which a
    /// `claude mcp list` health check (connect, list, close) never shows.
    pub tools_proof: Option<ToolsProof>,
    /// For `lists-rejected`: the lists Claude Code rejected (`resources`, `prompts`).
    pub lost_lists: Vec<String>,
    /// The `MCP_TIMEOUT` the connection ran with (`Starting connection with timeout of
    /// 30000ms`), when logged.
    pub timeout_ms: Option<u64>,
    /// For a handshake timeout: when the connection failed (`Connection failed after
    /// 7117ms ... (CONNECT_TIMEOUT)`), in ms. Well inside [`Diagnosis::timeout_ms`], it
    /// shows the negotiating path's budget (`claude_code::lifecycle::initialize_budget_ms`).
    pub failed_after_ms: Option<u64>,
    /// For `tolerated`: the lists whose results Claude Code filled in (`tools`,
    /// `prompts`, `resources`); empty: `tools`.
    pub filled_lists: Vec<String>,
    /// How many of the server's tools Claude Code logged as not sent to the model for
    /// their name's length (`tool-name-too-long`, or beside another verdict).
    pub tools_not_sent: usize,
    /// The transport the session's records name, when they do.
    pub transport: Option<Transport>,
}

/// Evidence that a session had its tools loaded, beyond connecting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolsProof {
    /// The model called the server's tools this many times (`Calling MCP tool: NAME`).
    ToolCalls { calls: usize },
    /// The connection stayed open this long (`STDIO connection closed after 5400s`).
    LongConnection { secs: u64 },
}

impl fmt::Display for ToolsProof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolsProof::ToolCalls { calls: 1 } => f.write_str("1 tool call"),
            ToolsProof::ToolCalls { calls } => write!(f, "{calls} tool calls"),
            ToolsProof::LongConnection { secs } => write!(f, "connected for {secs} s"),
        }
    }
}

impl Diagnosis {
    pub fn new(verdict: Verdict) -> Self {
        Diagnosis {
            verdict,
            cause: None,
            era: None,
            negotiated_protocol_version: None,
            filled_fields: Vec::new(),
            bad_tool_path: None,
            evidence: Vec::new(),
            capabilities: None,
            tools_proof: None,
            lost_lists: Vec::new(),
            timeout_ms: None,
            failed_after_ms: None,
            filled_lists: Vec::new(),
            tools_not_sent: 0,
            transport: None,
        }
    }

    /// Whether `MCP_PROTOCOL_NEGOTIATION=legacy` would make this server work.
    pub fn legacy_fix_applies(&self) -> bool {
        self.verdict == Verdict::ToolsFetchFailed
            && self.era == Some(Era::Modern)
            && self.cause.is_some_and(Cause::is_negotiation_field_error)
    }
}

#[cfg(test)]
mod cause_tests {
    use super::*;

    #[test]
    fn every_cause_has_one_name_that_parses_back() {
        let mut names = std::collections::BTreeSet::new();
        for &c in Cause::ALL {
            assert!(names.insert(c.as_str()), "{c} named twice");
            assert_eq!(Cause::parse(c.as_str()), Some(c));
        }
        assert_eq!(Cause::parse("no-such-cause"), None);
    }
}
