//! The `mcplogs explain --json` document (`docs/schema/explain.schema.json`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Diagnosis;

/// `mcplogs explain --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExplainDocument {
    pub schema_version: u32,
    /// One entry per server line (or one for a pasted message).
    pub servers: Vec<ExplainServer>,
}

/// One explained server line or message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExplainServer {
    /// The server name, when the pasted text has one.
    pub name: Option<String>,
    /// The command or URL `claude mcp list` showed.
    pub target: Option<String>,
    /// The status as printed (`✓ Connected`), or the pasted message's first line.
    pub status: String,
    /// As in `scan --json`.
    #[serde(flatten)]
    pub diagnosis: Diagnosis,
    /// One line: what to do.
    pub recommendation: String,
    /// The text after the status, zod errors included.
    pub detail: Option<String>,
    /// A configuration state instead of a verdict (the verdict is then `unknown`):
    /// `disabled` (`⊘ Disabled for this project`), `pending-approval` (`⏸ Pending
    /// approval`) or `configuration-error` (an entry, or a file, `MCP config
    /// diagnostics` says Claude Code skips: a problem, exit code 1); null otherwise.
    pub state: Option<String>,
    /// It fails now, or Claude Code skips it for an error in its configuration: what
    /// makes the exit code 1, as `scan`'s (a pasted failure of a server the
    /// configuration no longer starts is not one).
    #[serde(default)]
    pub problem: bool,
    /// This machine's log folder of the server, when `explain` found one in the project
    /// `claude mcp list` ran in (a named server; its verdict, cause and recommendation
    /// are then `scan`'s); null otherwise.
    #[serde(default)]
    pub logs: Option<String>,
    /// From that log: the server's last lines on stderr, as `scan --json`'s
    /// `stderrTail` (redacted, at most 8 lines of at most 400 characters); empty when no
    /// log was found or it wrote none.
    #[serde(default)]
    pub stderr_tail: Vec<String>,
    /// How its configuration starts it, as `scan --json`'s `launch`; null when not
    /// found.
    #[serde(default)]
    pub launch: Option<super::ServerLaunch>,
    /// For a stdio server that failed to connect: the exact command to run by hand (its
    /// configured command, quoted for the shell, in its project folder); null otherwise.
    #[serde(default)]
    pub run_by_hand: Option<String>,
}
