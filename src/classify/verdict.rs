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
    // connection-failed
    CommandNotFound => "command-not-found",
    ConnectionClosed => "connection-closed",
    Timeout => "timeout",
    NeedsAuth => "needs-auth",
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
    pub capabilities: Option<serde_json::Value>,
    /// For `healthy` and `tolerated`: what shows the tools were really loaded, which a
    /// `claude mcp list` health check (connect, list, close) never shows.
    pub tools_proof: Option<ToolsProof>,
    /// For `lists-rejected`: the lists Claude Code rejected (`resources`, `prompts`).
    pub lost_lists: Vec<String>,
    /// The `MCP_TIMEOUT` the connection ran with (`Starting connection with timeout of
    /// 30000ms`), when logged.
    pub timeout_ms: Option<u64>,
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
        }
    }

    /// Whether `MCP_PROTOCOL_NEGOTIATION=legacy` would make this server work.
    pub fn legacy_fix_applies(&self) -> bool {
        self.verdict == Verdict::ToolsFetchFailed
            && self.era == Some(Era::Modern)
            && self.cause.is_some_and(Cause::is_negotiation_field_error)
    }

    /// For a failure the legacy setting fixes: what the server's tools/list result got
    /// wrong, and the note on newer Claude Code versions (empty when none applies). The
    /// advice module words the recommendation with the settings that decide.
    pub fn legacy_fix_wording(&self) -> Option<(&'static str, &'static str)> {
        if self.verdict != Verdict::ToolsFetchFailed || !self.legacy_fix_applies() {
            return None;
        }
        let c = self.cause?;
        let what = match c {
            Cause::MissingResultType => "omits resultType",
            Cause::MissingCacheFields => "omits ttlMs/cacheScope",
            _ => "gives ttlMs/cacheScope the wrong types",
        };
        let newer = if c == Cause::WrongFieldTypes {
            ""
        } else {
            " (Claude Code 2.1.310 and later also tolerate the omission)"
        };
        Some((what, newer))
    }

    /// ` (3000 ms here)` when the connection's limit was logged.
    fn timeout_phrase(&self) -> String {
        self.timeout_ms
            .map(|t| format!(" ({t} ms here)"))
            .unwrap_or_default()
    }

    /// The `MCP_TIMEOUT` that fixes a request slower than the logged limit.
    fn suggested_timeout(&self) -> u64 {
        crate::claude_code::lifecycle::suggested_mcp_timeout_ms(
            self.timeout_ms
                .unwrap_or(crate::claude_code::lifecycle::DEFAULT_MCP_TIMEOUT_MS.value),
        )
    }

    /// One line telling the user what to do; never the legacy fix where it cannot help.
    /// The legacy advice here names no file: `advice::recommendation` words it knowing
    /// the settings of the server's project.
    pub fn recommendation(&self) -> String {
        if let Some((what, newer)) = self.legacy_fix_wording() {
            return legacy_recommendation_unplaced(what, newer);
        }
        match (self.verdict, self.cause) {
            (Verdict::Healthy, _) => "Nothing to do.".to_string(),
            (Verdict::Tolerated, _) => format!(
                "Works today because Claude Code filled in {}; report to the server's authors that its tools/list result omits fields required by the protocol revision it negotiated (2026-07-28).",
                if self.filled_fields.is_empty() {
                    "missing fields".to_string()
                } else {
                    self.filled_fields.join(", ")
                }
            ),
            (Verdict::ToolsFetchFailed, Some(c)) if c.is_negotiation_field_error() => {
                "The server's tools/list result breaks the protocol although the legacy era was negotiated, so MCP_PROTOCOL_NEGOTIATION=legacy cannot help: report it to the server's authors.".to_string()
            }
            (Verdict::ToolsFetchFailed, Some(Cause::InvalidToolDefinition)) => format!(
                "A tool definition is invalid{}: fix or update the server (report it to its authors); MCP_PROTOCOL_NEGOTIATION cannot help.",
                self.bad_tool_path
                    .as_deref()
                    .map(|p| format!(" (at {p})"))
                    .unwrap_or_default()
            ),
            (Verdict::ToolsFetchFailed, Some(Cause::NoToolsCapability)) => {
                "The server's handshake declares no tools capability, so Claude Code never asks for its tools (connected, 0 tools): if it should offer tools, its authors must declare capabilities.tools; MCP_PROTOCOL_NEGOTIATION cannot help.".to_string()
            }
            (Verdict::ToolsFetchFailed, Some(Cause::ToolsTimeout)) => format!(
                "tools/list took longer than MCP_TIMEOUT{}, so Claude Code gave up on the tools (no retry): set MCP_TIMEOUT={} (milliseconds) in the env block of your Claude Code settings or in the environment, then restart Claude Code; MCP_PROTOCOL_NEGOTIATION cannot help.",
                self.timeout_phrase(),
                self.suggested_timeout()
            ),
            (Verdict::Degraded, Some(Cause::PaginationTruncated)) => format!(
                "Claude Code follows tools/list for at most {} pages and the server still returned a nextCursor, so its tools after page {} are missing (`mcplogs probe` counts them): its authors should return more tools per page; MCP_PROTOCOL_NEGOTIATION cannot help.",
                crate::claude_code::lifecycle::PAGE_CAP.value,
                crate::claude_code::lifecycle::PAGE_CAP.value
            ),
            (Verdict::Degraded, Some(Cause::ListsRejected)) => {
                let lists = if self.lost_lists.is_empty() {
                    vec!["resources".to_string(), "prompts".to_string()]
                } else {
                    self.lost_lists.clone()
                };
                let methods: Vec<String> = lists.iter().map(|l| format!("{l}/list")).collect();
                format!(
                    "Claude Code rejected the server's {} result{} (missing fields required by revision 2026-07-28), so its {} are missing; its tools load and need nothing. MCP_PROTOCOL_NEGOTIATION=legacy would bring them back (the legacy era does not require those fields), as would Claude Code 2.1.310 or later, which fills them in; report it to the server's authors.",
                    methods.join(" and "),
                    if lists.len() > 1 { "s" } else { "" },
                    lists.join(" and ")
                )
            }
            (Verdict::Degraded, Some(Cause::StaleAfterRefresh)) => {
                "The server announced new tools (tools/list_changed) and Claude Code rejected the refetched list, so it keeps using the previous tools and the new ones are missing: read the evidence for the bad tool and report it to the server's authors; MCP_PROTOCOL_NEGOTIATION cannot help.".to_string()
            }
            (Verdict::Degraded, _) => {
                "Claude Code loaded the server's tools but lost part of what it offers: read the evidence.".to_string()
            }
            (Verdict::ToolsFetchFailed, _) => {
                "tools/list was rejected for a reason unrelated to protocol negotiation: read the evidence and report it to the server's authors; MCP_PROTOCOL_NEGOTIATION will not help.".to_string()
            }
            (Verdict::VersionUnsupported, _) => {
                "The server answered initialize with a protocol version Claude Code did not propose: update the server or Claude Code. MCP_PROTOCOL_NEGOTIATION=legacy does not help: this fails in the legacy handshake itself.".to_string()
            }
            (Verdict::ConnectionFailed, Some(Cause::CommandNotFound)) => {
                "The server's command was not found: install it, or put its absolute path in the server's \"command\" (Claude Code's PATH may differ from your shell's).".to_string()
            }
            (Verdict::ConnectionFailed, Some(Cause::ConnectionClosed)) => {
                "The server process exited or closed the connection during start-up: run its command by hand and read its stderr (the Server stderr records show it).".to_string()
            }
            (Verdict::ConnectionFailed, Some(Cause::Timeout)) if self.timeout_ms.is_some() => format!(
                "The server did not answer the handshake within MCP_TIMEOUT{}: check that it starts on its own (no prompts, no slow installs), or set MCP_TIMEOUT={} (milliseconds) in the env block of your Claude Code settings or in the environment.",
                self.timeout_phrase(),
                self.suggested_timeout()
            ),
            (Verdict::ConnectionFailed, Some(Cause::Timeout)) => {
                "The server did not answer in time: check that it starts on its own (no prompts, no slow installs) or raise MCP_TIMEOUT (milliseconds).".to_string()
            }
            (Verdict::ConnectionFailed, Some(Cause::NeedsAuth)) => {
                "The server needs authentication: run /mcp in Claude Code and authenticate, or configure its credentials.".to_string()
            }
            (Verdict::ConnectionFailed, _) => {
                "Claude Code could not connect: check the server's command or URL and that it is running; MCP_PROTOCOL_NEGOTIATION will not help.".to_string()
            }
            (Verdict::Unknown, _) => {
                "No decisive record in the logs: run `claude --debug` or `claude mcp list`, then scan again.".to_string()
            }
        }
    }
}

/// The head of the legacy advice: what the server negotiated and got wrong.
pub fn legacy_head(what: &str) -> String {
    format!("The server negotiated revision 2026-07-28 but its tools/list result {what}")
}

/// The legacy advice when the settings are not known: it names no file.
pub fn legacy_recommendation_unplaced(what: &str, newer: &str) -> String {
    format!(
        "{}: run `mcplogs fix`, which sets MCP_PROTOCOL_NEGOTIATION=legacy in the settings file that wins{newer}, and report it to the server's authors.",
        legacy_head(what)
    )
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
