//! The JSON documents mcplogs writes, as typed structs: the one place their shape is
//! defined. `docs/json.md` describes every field; `docs/schema/*.schema.json` are
//! generated from these types ([`schemas`]) and a test fails when they differ.
//!
//! A leaf: nothing here imports a pipeline stage. The stages fill these structs
//! (`render::json` for scan and du, `explain`, `settings::render`, `report::json`,
//! `settings::undo`); the binary prints them.
//!
//! Rules for changing a document: add fields, never rename or remove one without
//! bumping [`SCHEMA_VERSION`] and noting it in docs/json.md's changelog. Field order is
//! the order of the struct fields. Every field is always written (`null` when absent),
//! and the structs deny unknown fields, so a round trip through them is exact.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `schemaVersion` of every document. 2: all names camelCase (`settings`' `in_effect`
/// and `ignored_env_keys`, and the fix undo record's fields), and `settings --json`
/// and the undo record carry `schemaVersion`.
pub const SCHEMA_VERSION: u32 = 3;

// ---------------------------------------------------------------------------------
// Shared parts

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

// ---------------------------------------------------------------------------------
// scan --json

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

// ---------------------------------------------------------------------------------
// explain --json

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
    pub verdict: String,
    pub cause: Option<String>,
    pub era: Option<String>,
    pub negotiated_protocol_version: Option<String>,
    pub legacy_fix_applies: bool,
    pub filled_fields: Vec<String>,
    pub bad_tool_path: Option<String>,
    /// One line: what to do.
    pub recommendation: String,
    /// The text after the status, zod errors included.
    pub detail: Option<String>,
}

// ---------------------------------------------------------------------------------
// du --json

/// `mcplogs du --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DuDocument {
    pub schema_version: u32,
    /// Total bytes of the log files.
    pub bytes: u64,
    /// Total number of log files.
    pub files: u64,
    /// Largest first.
    pub projects: Vec<DuProject>,
    pub warnings: Vec<Warning>,
}

/// One project folder in `du --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DuProject {
    /// The project's working directory, else its encoded folder name.
    pub project: String,
    /// The encoded project folder name, or null.
    pub folder: Option<String>,
    /// The project folder in the cache, or null.
    pub path: Option<String>,
    pub bytes: u64,
    pub files: u64,
    /// Time of the oldest session (from file names), or null.
    pub oldest_session: Option<String>,
    /// Time of the newest session (from file names), or null.
    pub newest_session: Option<String>,
    /// Largest first.
    pub servers: Vec<DuServer>,
}

/// One server's log folder in `du --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DuServer {
    pub name: String,
    /// The `mcp-logs-<folder>` part.
    pub folder: String,
    /// The log folder.
    pub path: String,
    pub bytes: u64,
    pub files: u64,
    pub oldest_session: Option<String>,
    pub newest_session: Option<String>,
}

// ---------------------------------------------------------------------------------
// prune --json

/// `mcplogs prune --json` (with `--dry-run`, or after deleting with `--yes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PruneDocument {
    pub schema_version: u32,
    /// The cache roots and debug folders looked at.
    pub roots: Vec<String>,
    /// Files planned for deletion.
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Per server log folder (or debug folder), largest first.
    pub groups: Vec<PruneGroup>,
    /// Files kept, by reason.
    pub kept: PruneKept,
    /// Files deleted; null without `--yes` (a plan only).
    pub deleted: Option<u64>,
    /// Bytes given back; null without `--yes`.
    pub bytes_freed: Option<u64>,
    /// Files left alone while deleting (vanished, changed, permission denied).
    pub skipped: Vec<Warning>,
    pub warnings: Vec<Warning>,
}

/// One folder in `prune --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PruneGroup {
    /// `server-logs` or `debug-logs`.
    pub kind: String,
    /// The project's working directory (or its encoded folder name).
    pub project: String,
    /// The server's name, or `debug logs`.
    pub server: String,
    /// The folder.
    pub path: String,
    /// The files planned for deletion.
    pub files: Vec<PruneFile>,
    pub bytes: u64,
    /// Files of this folder that are kept.
    pub kept_files: u64,
    pub kept_bytes: u64,
}

/// One file planned for deletion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PruneFile {
    pub path: String,
    pub bytes: u64,
}

/// Files kept by `prune`, by reason (docs/prune.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PruneKept {
    /// The newest file of a server or debug folder.
    pub newest: u64,
    /// Files holding a server's deciding session, and newer ones.
    pub deciding: u64,
    /// Modified in the last 10 minutes.
    pub in_use: u64,
    /// Younger than `--older-than`.
    pub too_young: u64,
    /// Not named like Claude Code's logs, or reached through a symlink.
    pub foreign: u64,
}

// ---------------------------------------------------------------------------------
// settings --json

/// `mcplogs settings --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsDocument {
    pub schema_version: u32,
    /// The project folder the layers were read for.
    pub project: String,
    /// Highest precedence first.
    pub layers: Vec<SettingsLayer>,
    pub effective: Effective,
}

/// The settings layers as part of another document (`scan --json`'s `settings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Settings {
    /// The project folder the layers were read for.
    pub project: String,
    /// Highest precedence first.
    pub layers: Vec<SettingsLayer>,
    pub effective: Effective,
}

impl Settings {
    /// The standalone `settings --json` document.
    pub fn into_document(self) -> SettingsDocument {
        SettingsDocument {
            schema_version: SCHEMA_VERSION,
            project: self.project,
            layers: self.layers,
            effective: self.effective,
        }
    }
}

/// One settings layer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsLayer {
    /// `managed-drop-in`, `managed`, `local`, `project`, `user` or `environment`.
    pub layer: String,
    /// The file; null for `environment`.
    pub path: Option<String>,
    /// The file exists (for `environment`: the variable is set).
    pub present: bool,
    /// `absent`, `strict`, `ignored`, `invalid`, `unreadable` or `environment`.
    pub status: String,
    /// True or false for a file that exists and was parsed; null otherwise.
    pub strict: Option<bool>,
    /// Claude Code reads this layer (a strict file, or a set variable).
    pub in_effect: bool,
    /// The layer's `env.MCP_PROTOCOL_NEGOTIATION`, or null when absent.
    pub negotiation: Option<String>,
    /// For `ignored` and `invalid`: the first problem.
    pub problem: Option<TextProblem>,
    /// For `ignored`: the `env` keys that are therefore not in effect.
    pub ignored_env_keys: Vec<String>,
    /// For `unreadable`: why.
    pub error: Option<String>,
}

/// Where a settings file stops being strict JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TextProblem {
    /// 1-based.
    pub line: u64,
    /// 1-based.
    pub column: u64,
    pub message: String,
}

/// The value Claude Code uses and the layer that decides it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Effective {
    /// Null: not set (Claude Code's default).
    pub value: Option<String>,
    /// `value` is `legacy`.
    pub legacy: bool,
    /// The deciding layer, or null.
    pub layer: Option<String>,
    /// The deciding layer's file, or null.
    pub path: Option<String>,
}

// ---------------------------------------------------------------------------------
// report --json

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
    pub verdict: String,
    pub cause: Option<String>,
    pub era: Option<String>,
    pub negotiated_protocol_version: Option<String>,
    pub legacy_fix_applies: bool,
    pub filled_fields: Vec<String>,
    pub bad_tool_path: Option<String>,
    pub last_seen: Option<String>,
    /// Sessions seen in the log folder.
    pub sessions: u64,
    /// Of those, the sessions read (newest first, until the verdict was decided).
    pub sessions_read: u64,
    /// Of the sessions read, those that failed.
    pub failed_sessions: u64,
    /// The verdict is a problem.
    pub problem: bool,
    /// Who can act on a failing server: `claude-code`, `server-author` or
    /// `user-config`; null when it does not fail.
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

// ---------------------------------------------------------------------------------
// fix: the undo record

/// The record of mcplogs' last fix of one settings file, written by `mcplogs fix` as
/// `<settings>.mcplogs-undo.json` (mode 0600) and read by `fix --undo`.
///
/// Records from schemaVersion 1 (snake_case names, `version` instead of
/// `schemaVersion`) are still read: the aliases below accept them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FixRecord {
    /// `schemaVersion`; 1 for records written before the camelCase names.
    #[serde(rename = "schemaVersion", alias = "version")]
    pub version: u32,
    /// The path as named when fixing (a symlink stays the path).
    #[serde(alias = "settings_path")]
    pub settings_path: PathBuf,
    /// The file actually written (the symlink's target).
    #[serde(alias = "written_path")]
    pub written_path: PathBuf,
    /// `create`, `edit` or `rewrite-strict`.
    pub kind: String,
    /// The fix created the file.
    #[serde(alias = "created_file")]
    pub created_file: bool,
    /// The backup of the bytes before the fix; null when the fix created the file.
    #[serde(alias = "backup_path")]
    pub backup_path: Option<PathBuf>,
    /// SHA-256 (hex) of the backup's bytes: undo restores only exactly these.
    pub backup_sha256: Option<String>,
    /// SHA-256 (hex) of the bytes the fix wrote: "unchanged since the fix" means equal.
    pub written_sha256: String,
    /// The file had an `env` object before the fix.
    pub env_existed: bool,
    /// `env.MCP_PROTOCOL_NEGOTIATION` before the fix, as its literal JSON text; null: absent.
    pub previous_json: Option<String>,
}

// ---------------------------------------------------------------------------------
// probe --json (its own version: PROBE_SCHEMA_VERSION)

/// The version of the `probe --json` document and its transcript lines.
pub const PROBE_SCHEMA_VERSION: u32 = 1;

/// `mcplogs probe --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeDocument {
    /// [`PROBE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The project folder whose servers were probed.
    pub project: String,
    /// The Claude Code version predicted for.
    pub claude_version: String,
    /// Where that version came from: `flag`, `installed` or `newest-known`.
    pub claude_version_source: String,
    pub negotiation: ProbeNegotiation,
    pub servers: Vec<ProbeServer>,
}

/// The effective `MCP_PROTOCOL_NEGOTIATION` and the layer that sets it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeNegotiation {
    pub value: Option<String>,
    /// `<layer> (<file>)`, or null when nothing sets it.
    pub decided_by: Option<String>,
}

/// One probed server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeServer {
    pub name: String,
    /// `local`, `project`, `user` or `command-line`.
    pub scope: String,
    /// The configuration file, or null for `--command`/`--url`.
    pub source: Option<String>,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    pub command: Option<String>,
    pub args: Vec<String>,
    pub url: Option<String>,
    /// Names of the configured environment variables (values are never shown).
    pub env_keys: Vec<String>,
    /// Names of the configured headers (values are never shown).
    pub header_names: Vec<String>,
    /// Project servers: approved to start; null when the question does not arise.
    pub approved: Option<bool>,
    /// Problems found while resolving the configuration.
    pub warnings: Vec<String>,
    /// What Claude Code will do with the effective setting.
    pub prediction: ProbePrediction,
    /// What it would do with `MCP_PROTOCOL_NEGOTIATION=legacy`.
    pub with_legacy: ProbePrediction,
    pub legacy_fix_helps: bool,
    /// The steps of the connection the prediction rests on.
    pub steps: Vec<ProbeStep>,
    pub tools: ProbeTools,
    /// Every connection made.
    pub attempts: Vec<ProbeAttempt>,
    /// With `--contract`: each check; else null.
    pub contract: Option<Vec<ProbeContractCheck>>,
}

/// A prediction of Claude Code's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbePrediction {
    pub claude_version: String,
    /// The `MCP_PROTOCOL_NEGOTIATION` value predicted with, or null.
    pub negotiation: Option<String>,
    /// `modern` (server/discover first) or `legacy` (initialize only).
    pub handshake: String,
    /// As in `scan --json`.
    pub verdict: String,
    pub cause: Option<String>,
    pub era: Option<String>,
    pub negotiated_protocol_version: Option<String>,
    pub filled_fields: Vec<String>,
    pub bad_tool_path: Option<String>,
    /// Tools Claude Code would load.
    pub tools_loaded: u64,
    /// Why, in one sentence.
    pub reason: String,
    /// One line: what to do.
    pub recommendation: String,
}

/// One step of a connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeStep {
    pub connection_id: String,
    /// `spawn`, `server/discover`, `initialize`, `tools/list`...
    pub step: String,
    /// A short form of what was sent, or null.
    pub sent: Option<String>,
    /// A short form of what came back, or null.
    pub received: Option<String>,
    pub ms: u64,
    pub ok: bool,
    pub detail: Option<String>,
}

/// How a connection failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeFailure {
    /// `spawn-failed`, `timeout`, `needs-auth`, `http-<status>`, ...
    pub category: String,
    pub message: String,
    /// For HTTP failures: the status; else null.
    pub http_status: Option<u16>,
    /// For `needs-auth`: the `WWW-Authenticate` header, or null.
    pub www_authenticate: Option<String>,
}

/// One connection to the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeAttempt {
    /// `modern` or `legacy`.
    pub handshake: String,
    pub connection_id: String,
    /// The negotiated era, or null.
    pub era: Option<String>,
    pub negotiated_protocol_version: Option<String>,
    /// What server/discover said, when it did not simply succeed.
    pub discover_note: Option<String>,
    /// The server's `serverInfo`, as sent.
    pub server_info: Option<serde_json::Value>,
    /// The server's `capabilities`, as sent.
    pub capabilities: Option<serde_json::Value>,
    pub failure: Option<ProbeFailure>,
    /// Why tools/list failed, or null.
    pub list_failure: Option<String>,
    /// tools/list pages received.
    pub pages: u64,
    pub elapsed_ms: u64,
    pub steps: Vec<ProbeStep>,
    /// Lines on stdout that were not JSON-RPC.
    pub non_json_lines: ProbeNoise,
    /// The server's stderr (stdio), or null.
    pub stderr: Option<ProbeStderr>,
    /// Transcript events left out over the cap.
    pub transcript_events_dropped: u64,
}

/// Non-JSON lines on a server's stdout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeNoise {
    pub count: u64,
    /// The first few.
    pub examples: Vec<String>,
}

/// A server's stderr.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeStderr {
    pub bytes: u64,
    pub lines: u64,
    /// Its head and tail.
    pub kept: String,
}

/// The tools/list result, checked as Claude Code checks it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeTools {
    /// Tools the server listed.
    pub returned: u64,
    /// Tools Claude Code would load.
    pub accepted: u64,
    pub rejected: Vec<ProbeRejectedTool>,
    /// Problems with the result around the tools (`resultType`, `ttlMs`...).
    pub envelope: Vec<ProbeEnvelopeIssue>,
    pub pages: u64,
    /// The whole list is dropped (tools/list fails as a whole).
    pub whole_list_dropped: bool,
}

/// A tool Claude Code would not load.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeRejectedTool {
    pub name: Option<String>,
    pub reason: String,
    pub page: u64,
    /// e.g. `tools[2].inputSchema.type`.
    pub path: String,
    pub detail: String,
    /// This tool makes the whole tools/list fail.
    pub fails_list: bool,
}

/// A problem with a tools/list result outside its tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeEnvelopeIssue {
    pub page: u64,
    pub field: String,
    pub detail: String,
    /// `missing`, `wrong-type` or `malformed`.
    pub kind: String,
}

/// One `--contract` check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeContractCheck {
    pub check: String,
    /// Null: not applicable.
    pub passed: Option<bool>,
    pub detail: String,
}

/// One line of `probe --transcript FILE` (JSON lines).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TranscriptEvent {
    pub seq: u64,
    pub server: String,
    pub connection_id: String,
    /// `client-to-server` or `server-to-client`.
    pub direction: String,
    pub t_ms: u64,
    /// The JSON-RPC id, as sent.
    pub id: Option<serde_json::Value>,
    pub method: Option<String>,
    pub error_category: Option<String>,
    /// The message, as sent or received.
    pub payload: serde_json::Value,
}

// ---------------------------------------------------------------------------------
// mcplogs hook: the hook output Claude Code reads (its format, not versioned by mcplogs)

/// What `mcplogs hook` prints when a server of the session failed: Claude Code's
/// documented hook output, whose `additionalContext` it adds to the model's context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HookOutput {
    pub hook_specific_output: HookSpecificOutput,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HookSpecificOutput {
    /// The event the hook ran for (`UserPromptSubmit` or `SessionStart`), as Claude Code
    /// requires it to be echoed.
    pub hook_event_name: String,
    /// The two or three sentences for the model.
    pub additional_context: String,
}

// ---------------------------------------------------------------------------------
// Schemas

/// Every document's JSON Schema, by the name of its file under `docs/schema/`
/// (`<name>.schema.json`).
pub fn schemas() -> Vec<(&'static str, schemars::Schema)> {
    fn one<T: JsonSchema>() -> schemars::Schema {
        schemars::generate::SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<T>()
    }
    vec![
        ("scan", one::<ScanDocument>()),
        ("explain", one::<ExplainDocument>()),
        ("du", one::<DuDocument>()),
        ("prune", one::<PruneDocument>()),
        ("settings", one::<SettingsDocument>()),
        ("fix", one::<FixRecord>()),
        ("report", one::<ReportDocument>()),
        ("probe", one::<ProbeDocument>()),
        ("transcript", one::<TranscriptEvent>()),
        ("hook", one::<HookOutput>()),
    ]
}
