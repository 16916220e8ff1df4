//! Parts shared by several documents: the diagnosis fields, a warning, an evidence record.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The verdict of one server and what it rests on: the same fields, in the same order, in
/// `scan`, `explain` and `report` documents (flattened into each server object).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    /// `healthy`, `tolerated`, `tools-fetch-failed`, `degraded`,
    /// `version-unsupported`, `connection-failed` or `unknown`.
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
}

/// A damaged or unreadable file that the command skipped in part or whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Warning {
    /// The file, or null when the warning is about no single file.
    pub file: Option<String>,
    /// One line, such as `skipped 2 of 40 lines (1 not valid JSON, a truncated last record)`.
    pub message: String,
}

/// One decoded log record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Evidence {
    /// The log file.
    pub file: String,
    /// 1-based line in the file.
    pub line: u64,
    /// ISO-8601 time of the record, or null.
    pub timestamp: Option<String>,
    /// `debug`, `info`, `warn`, `error`, ...
    pub level: String,
    /// The message, decoded, exactly as logged (after redaction).
    pub message: String,
}

/// What Claude Code's MCP discovery cache did to an HTTP or SSE server in its project's
/// last session (`servers[].discoveryCache` of `scan` and `report`), when it decided
/// what the user saw; null otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DiscoveryCacheServed {
    /// `served-from-cache` (within the TTL: not contacted, shown with its cached tools;
    /// verdict `unknown`, cause `served-from-cache`), `cached-tools-kept` (past the TTL:
    /// the cached tools kept while the refresh's `tools/list` failed and the session
    /// ended before the refresh did; verdict `degraded`, cause `stale-after-refresh`),
    /// `entry-deleted` (the connection failed, which deletes the server's entry at the
    /// default of one strike; the verdict is the failure's) or `strike-counted` (a
    /// refresh failed with `MCP_DISCOVERY_CACHE_STRIKES` above 1: the entry was rewritten
    /// and kept; the verdict is the failure's).
    pub state: String,
    /// The session this is about: the project's last session (`served-from-cache`) or
    /// the server's deciding one.
    pub session: Option<String>,
    /// When that session was (its transcript's last write, or the server's last record).
    pub session_at: Option<String>,
    /// When the entry that served it was written (its tools last listed).
    pub cached_at: Option<String>,
    /// Until when Claude Code serves that entry: the TTL (`served-from-cache`), the
    /// max-stale age (`cached-tools-kept`).
    pub until: Option<String>,
    /// What the next session will do, in words.
    pub next_session: String,
}
