//! The `mcplogs scan --json` document (`docs/schema/scan.schema.json`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::*;

/// `mcplogs scan --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScanDocument {
    pub schema_version: u32,
    /// One entry per server, in the order the table shows them.
    pub servers: Vec<ScanServer>,
    pub warnings: Vec<Warning>,
    /// The settings layers for the current directory, as `settings --json` gives them
    /// (without its `schemaVersion`).
    pub settings: Settings,
}

/// One server in `scan --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScanServer {
    /// Configured server name when known, else the log folder's encoded name.
    pub name: String,
    /// The project's working directory, or null (debug logs).
    pub project: Option<String>,
    /// `healthy`, `tolerated`, `tools-fetch-failed`, `version-unsupported`,
    /// `connection-failed` or `unknown`.
    pub verdict: String,
    /// The cause, for `tools-fetch-failed` and `connection-failed`.
    pub cause: Option<String>,
    /// `modern` or `legacy`: the protocol era of the deciding connection.
    pub era: Option<String>,
    /// From the capabilities record.
    pub negotiated_protocol_version: Option<String>,
    /// Whether `MCP_PROTOCOL_NEGOTIATION=legacy` fixes this server.
    pub legacy_fix_applies: bool,
    /// For `tolerated`: the fields Claude Code filled in.
    pub filled_fields: Vec<String>,
    /// For `invalid-tool-definition`: e.g. `tools[2].inputSchema.type`.
    pub bad_tool_path: Option<String>,
    /// ISO-8601 time of the last record of the deciding session.
    pub last_seen: Option<String>,
    /// Configured names that share this log folder (their names encode to the same
    /// `mcp-logs-<folder>`); empty unless two or more do.
    pub shared_by: Vec<String>,
    /// Sessions of this server on disk: one per log file (a debug log counts its
    /// sessions).
    pub sessions: u64,
    /// Sessions read: newest first until the verdict was decided, plus the history
    /// window (docs/scanning.md); all of them with `--all`.
    pub sessions_read: u64,
    /// Log files read for this server.
    pub files_read: u64,
    /// Sessions, among those read, whose own verdict was a problem.
    pub failed_sessions: u64,
    /// What proved the tools were loaded in the deciding session, in words
    /// (`3 tool calls`, `connected for 6469 s`); null when no session proved it.
    pub tools_proof: Option<String>,
    /// True when the newest session only connected (a health check, such as
    /// `claude mcp list`) and an earlier failure on the same capabilities decides.
    pub latest_session_only_connected: bool,
    /// One line: what to do.
    pub recommendation: String,
    /// The deciding records.
    pub evidence: Vec<Evidence>,
    /// The `mcp-logs-<folder>` part, for logs from a cache tree.
    pub folder: Option<String>,
    /// The encoded project folder name.
    pub project_folder: Option<String>,
    /// The log folder or debug log the server's records came from.
    pub source: String,
    /// Per verdict seen, in order of first appearance.
    pub history: Vec<VerdictSeen>,
}

/// One verdict in a server's history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VerdictSeen {
    pub verdict: String,
    pub cause: Option<String>,
    /// Sessions with this verdict.
    pub sessions: u64,
    /// ISO-8601 time of the last record of the last such session.
    pub last_seen: Option<String>,
}
