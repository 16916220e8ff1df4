//! What mcplogs concludes about a server, and the one fix that applies to it.
//!
//! The string forms are part of the `--json` contract: never rename them.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    Healthy,
    Tolerated,
    ToolsFetchFailed,
    VersionUnsupported,
    ConnectionFailed,
    Unknown,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Healthy => "healthy",
            Verdict::Tolerated => "tolerated",
            Verdict::ToolsFetchFailed => "tools-fetch-failed",
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
            Verdict::ToolsFetchFailed | Verdict::VersionUnsupported | Verdict::ConnectionFailed
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
