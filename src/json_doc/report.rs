//! The `mcplogs report --json` document (`docs/schema/report.schema.json`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::*;

/// `mcplogs report --json`: the report's content, redacted like the Markdown, untrimmed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportDocument {
    pub schema_version: u32,
    /// False with `--no-redact`.
    pub redacted: bool,
    pub versions: Versions,
    /// Per problem server: one sentence.
    pub whats_wrong: Vec<WhatsWrong>,
    /// Every server.
    pub servers: Vec<ReportServer>,
    pub settings: ReportSettings,
    /// The effective `MCP_PROTOCOL_NEGOTIATION` is `legacy`.
    pub legacy_fix_applied: bool,
    /// Damaged or unreadable log files, one line each.
    pub warnings: Vec<String>,
    /// With `--probe`: this project's configured servers, probed (as `probe --json`'s
    /// `servers`); else null.
    pub probe: Option<Vec<ProbeServer>>,
    /// Configured servers without a log: `name`, `project`, `state` (as in `scan`'s
    /// `configured`), `reason` and `recommendation`.
    pub configured: Vec<ReportConfigured>,
    /// True: this document is the report (on stdout, or in `--output FILE`). False: no
    /// report was due and none was written (nor any `--output` file); `notWritten` says
    /// why, and the other fields still describe what was scanned.
    pub written: bool,
    /// Why no report was written (`written` is false); null when it was.
    pub not_written: Option<ReportNotWritten>,
    /// What Claude Code keeps on this machine that changes what it shows for MCP
    /// servers: its discovery cache, the switches set and the MCP feature flags it
    /// cached; null for logs named on the command line.
    #[serde(default)]
    pub claude_code_state: Option<ReportClaudeCodeState>,
}

/// `report --json`'s `claudeCodeState`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportClaudeCodeState {
    /// Whether the MCP discovery cache is on for HTTP and SSE servers.
    pub discovery_cache_on: bool,
    /// The same in words: what turns it on or off, its TTL, max-stale and strikes.
    pub discovery_cache: String,
    /// The cache's entries (sealed files, never opened).
    pub discovery_cache_entries: u64,
    /// Each switch set (`MCP_DISCOVERY_CACHE*`, `MCP_SDK_GENERATION`).
    pub switches: Vec<ReportSwitch>,
    /// Each MCP feature flag Claude Code cached in `.claude.json`.
    pub flags: Vec<ReportFlag>,
    /// What the discovery cache did (its entries, a server served from it), as `scan`
    /// warns it; not among the document's `warnings`.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// One switch of `claudeCodeState.switches`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportSwitch {
    pub name: String,
    pub value: String,
    /// Where it is set: `environment`, or a settings layer and its file (redacted).
    pub set_in: String,
}

/// One flag of `claudeCodeState.flags`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportFlag {
    pub name: String,
    /// A boolean or number as cached; a string, list or object only described (`a
    /// list of 2 entries`): they may name hosts.
    pub value: String,
    /// What it changes, and the builds it was read in.
    pub changes: String,
}

/// Why `report` wrote no report (without `--force`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportNotWritten {
    /// `no-failure`: no server fails in these logs (exit 0); `own-setup`: what fails is
    /// this machine's own set-up, whose fix is in each server's `recommendation` (exit 1).
    pub reason: String,
    /// The sentence `report` prints on stderr.
    pub message: String,
}

/// A configured server without a log, in `report --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportConfigured {
    pub name: String,
    pub project: String,
    pub state: String,
    pub reason: String,
    pub recommendation: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Versions {
    pub mcplogs: String,
    pub os: String,
    pub arch: String,
    /// Null: unknown (no `claude --version` answer).
    pub claude_code: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WhatsWrong {
    pub name: String,
    pub project: Option<String>,
    pub summary: String,
}

/// One server in `report --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportServer {
    pub name: String,
    pub project: Option<String>,
    /// As in `scan --json`.
    #[serde(flatten)]
    pub diagnosis: Diagnosis,
    pub last_seen: Option<String>,
    /// Sessions seen in the log folder.
    pub sessions: u64,
    /// Of those, the sessions read (newest first, until the verdict was decided).
    pub sessions_read: u64,
    /// Of the sessions read, those that failed.
    pub failed_sessions: u64,
    /// The server fails now, or Claude Code skips it for an error in its configuration
    /// (what makes the exit code 1; `export`'s `mcplogs.problem`).
    pub problem: bool,
    /// Who can act on a failing server: `claude-code`, `server-author` or
    /// `user-config`; `server-author` for a `tolerated` one (its advice is to report
    /// it to its authors); null when it neither fails nor is `tolerated`.
    pub audience: Option<String>,
    /// How the server is configured to start (`command args…` or its URL, redacted;
    /// no environment or header values); null when not found in the configuration.
    pub launch: Option<String>,
    /// One sentence.
    pub summary: String,
    pub recommendation: String,
    /// The log folder or debug log, redacted.
    pub source: String,
    pub evidence: Vec<ReportRecord>,
    /// The server's own stderr lines.
    pub stderr: Vec<ReportRecord>,
    /// As in `scan --json`: what Claude Code's MCP discovery cache did to the server in
    /// its project's last session; null otherwise.
    #[serde(default)]
    pub discovery_cache: Option<DiscoveryCacheServed>,
}

/// One log record in `report --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportRecord {
    pub file: String,
    /// `mcp-logs-<server>/<file>:<line>`.
    pub location: String,
    pub line: u64,
    pub timestamp: Option<String>,
    pub level: String,
    /// Exactly as logged, after redaction.
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportSettings {
    pub project: String,
    /// Highest precedence first.
    pub layers: Vec<ReportLayer>,
    pub effective: ReportEffective,
    /// One sentence per file Claude Code skips.
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportLayer {
    pub layer: String,
    pub path: Option<String>,
    /// `absent`, `strict`, `ignored`, `invalid`, `unreadable`, `set` or `unset`.
    pub status: String,
    pub negotiation: Option<String>,
    pub in_effect: bool,
    /// This layer decides the effective value.
    pub decides: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportEffective {
    pub value: Option<String>,
    pub layer: Option<String>,
    pub path: Option<String>,
    /// The sentence the Markdown shows.
    pub text: String,
}
