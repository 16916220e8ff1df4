//! One record of `mcplogs export` (`docs/schema/export.schema.json`): a line of the
//! file form (`--file`), and the attributes of each OTLP log record (docs/export.md).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One exported record: one server's verdict as one session decided it, or one
/// configured server's state. A line of `mcplogs export --file`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExportRecord {
    pub schema_version: u32,
    /// ISO-8601 time the record is about: the last record of the deciding session, else
    /// (a configured state, no time in the logs) when the export ran.
    pub timestamp: String,
    /// ISO-8601 time the export made the record.
    pub observed_timestamp: String,
    /// `INFO` (works, or a state that is not a problem), `WARN` (tolerated, or a
    /// verdict about a server not started now), `ERROR` (fails now, or a configuration
    /// Claude Code skips).
    pub severity_text: String,
    /// OpenTelemetry's severity number for `severityText`: 9, 13 or 17.
    pub severity_number: u8,
    /// The verdict and its cause as every screen shows them: `tools-fetch-failed
    /// (missing-resultType)`.
    pub body: String,
    pub attributes: ExportAttributes,
    /// The resource: `service.name`, `service.version`, and `OTEL_RESOURCE_ATTRIBUTES`.
    pub resource: BTreeMap<String, String>,
}

/// The attributes of one exported record, by their OpenTelemetry names. A value that
/// is not known is `null` here and left out of the OTLP record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportAttributes {
    /// `mcplogs.server_verdict` (a logged server) or `mcplogs.server_state` (a
    /// configured server without a log).
    #[serde(rename = "event.name")]
    pub event_name: String,
    /// Claude Code's session id of the deciding session (the logs' `sessionId`; Claude
    /// Code's own events carry the same `session.id`); null for a configured state.
    #[serde(rename = "session.id")]
    pub session_id: Option<String>,
    /// A keyed hash that names this record: the same record always has the same id,
    /// so a backend can drop a copy.
    #[serde(rename = "mcplogs.record.id")]
    pub record_id: String,
    /// A keyed hash that names this machine (its user's mcplogs cache).
    #[serde(rename = "mcplogs.machine.id")]
    pub machine_id: String,
    /// The verdict (logged server) or the state (configured server) exactly as
    /// `scan --json` spells it: `servers[].verdict` or `configured[].state`.
    #[serde(rename = "mcplogs.verdict")]
    pub verdict: String,
    /// The cause, as `scan --json` spells it; null when the verdict has none.
    #[serde(rename = "mcplogs.cause")]
    pub cause: Option<String>,
    /// The protocol era Claude Code negotiated (`legacy`, `modern`).
    #[serde(rename = "mcplogs.era")]
    pub era: Option<String>,
    /// The negotiated MCP protocol version (`2025-06-18`).
    #[serde(rename = "mcplogs.protocol_version")]
    pub protocol_version: Option<String>,
    /// A logged server's configuration state now (`starts`, `disabled`,
    /// `not-configured`, ...), as `scan --json`'s `configuration.state`; null when not
    /// checked.
    #[serde(rename = "mcplogs.configuration.state")]
    pub configuration_state: Option<String>,
    /// Whether the server fails now, or Claude Code skips it for an error in its
    /// configuration (what makes `scan` exit 1).
    #[serde(rename = "mcplogs.problem")]
    pub problem: bool,
    /// Whether `mcplogs fix` (the legacy setting) would make it work.
    #[serde(rename = "mcplogs.legacy_fix_applies")]
    pub legacy_fix_applies: bool,
    /// Where the configuration came from, as Claude Code's own
    /// `mcp_server_connection` event names it: `user`, `project`, `local`, `managed`.
    pub server_scope: Option<String>,
    /// The transport, as Claude Code's event names it: `stdio`, `http`, `sse`.
    pub transport_type: Option<String>,
    /// A keyed hash of the server's name: groups one server across machines that
    /// share the key (docs/export.md).
    #[serde(rename = "mcplogs.server.id")]
    pub server_id: String,
    /// The server's name, only with `OTEL_LOG_TOOL_DETAILS=1` (Claude Code's name and
    /// switch for it).
    pub server_name: Option<String>,
    /// A keyed hash of the project's path; null when the project is not known.
    #[serde(rename = "mcplogs.project.id")]
    pub project_id: Option<String>,
    /// The project's path (redacted), only with `OTEL_LOG_TOOL_DETAILS=1`.
    #[serde(rename = "mcplogs.project")]
    pub project: Option<String>,
    /// The deciding record's message, or a configuration error's detail (redacted,
    /// at most 1,000 characters), only with `OTEL_LOG_TOOL_DETAILS=1`.
    #[serde(rename = "mcplogs.error")]
    pub error: Option<String>,
    /// Tool calls seen in the deciding session (what proves the tools were loaded).
    #[serde(rename = "mcplogs.tool_calls")]
    pub tool_calls: Option<u64>,
    /// How long the deciding session's connection stayed open, in seconds, when that
    /// is what proves the tools were loaded.
    #[serde(rename = "mcplogs.connected_seconds")]
    pub connected_seconds: Option<u64>,
    /// The server's sessions on disk (one per log file).
    #[serde(rename = "mcplogs.sessions")]
    pub sessions: u64,
    /// Sessions, among those read, whose own verdict was a problem.
    #[serde(rename = "mcplogs.failed_sessions")]
    pub failed_sessions: u64,
    /// ISO-8601 time of the first deciding record.
    #[serde(rename = "mcplogs.first_seen")]
    pub first_seen: Option<String>,
    /// ISO-8601 time of the last record of the deciding session.
    #[serde(rename = "mcplogs.last_seen")]
    pub last_seen: Option<String>,
}
