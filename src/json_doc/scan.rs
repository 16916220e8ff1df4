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
    /// Configured servers without a log in their project: each with its state instead
    /// of a verdict.
    pub configured: Vec<ConfiguredServer>,
}

/// One server in `scan --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScanServer {
    /// Configured server name when known, else the log folder's encoded name.
    pub name: String,
    /// The project's working directory, or null (debug logs).
    pub project: Option<String>,
    /// The verdict and what it rests on (the same fields in every document).
    #[serde(flatten)]
    pub diagnosis: Diagnosis,
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
    /// Tools Claude Code logged as not sent to the model because their full name
    /// (`mcp__<server>__<tool>`) is over its limit (`tool-name-too-long`); 0 when none.
    pub tools_not_sent: u64,
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
    /// What the project's configuration says about the server now; null when not
    /// checked (debug logs, a project folder not on this machine).
    pub configuration: Option<ServerConfiguration>,
    /// For a failing server: the last lines it wrote on stderr in the deciding session
    /// (its `Server stderr` records), oldest first, redacted; at most 8 lines of at most
    /// 400 characters each (a cut line ends in `…`). Empty when it wrote none.
    #[serde(default)]
    pub stderr_tail: Vec<String>,
    /// How the configuration starts the server now; null when no entry of that name was
    /// found (debug logs, log files named on the command line, a server no longer
    /// configured).
    #[serde(default)]
    pub launch: Option<ServerLaunch>,
    /// For a stdio server that failed to connect: its configured command, quoted for the
    /// user's shell (POSIX `sh`; PowerShell on Windows), run in its project folder when
    /// that exists here. Null otherwise (never for HTTP or SSE servers).
    #[serde(default)]
    pub run_by_hand: Option<String>,
    /// What `mcplogs fix` would do for it: every change a file can make (the legacy
    /// setting and the fix engine's), each with its state, and what only the user can
    /// do. Null when there is neither. The same answer `explain`, `report`, the status
    /// line and `fix` give.
    #[serde(default)]
    pub fix: Option<ServerFix>,
    /// What Claude Code's MCP discovery cache did to the server in its project's last
    /// session, when it decided what the user saw (issue 54); null otherwise.
    #[serde(default)]
    pub discovery_cache: Option<DiscoveryCacheServed>,
}

/// `servers[].fix`: what `mcplogs fix` would do for a server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerFix {
    /// True when `command` writes at least one change for it (a change `planned`):
    /// plain `mcplogs fix` plans for exactly the servers marked so.
    pub fixable: bool,
    /// The command that makes the planned changes (`mcplogs fix`, with `--home`).
    pub command: String,
    pub changes: Vec<FixChange>,
    /// What only the user can do (sign in, rename a key...), one sentence each.
    pub steps: Vec<String>,
}

/// One change of `servers[].fix.changes`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FixChange {
    /// The cause it fixes: `legacy-negotiation`, `command-path`, `longer-timeout`,
    /// `enable-mcpjson-server`, ... (new causes add names, never fields).
    pub cause: String,
    /// `planned` (`mcplogs fix` writes it), `in-place` (made already: restart Claude
    /// Code to check), `not-offered` (this build is outside those it was observed to
    /// work on: never written) or `refused` (its file cannot be written: `refused` says
    /// why).
    pub state: String,
    /// Why, in one sentence; for `in-place`, what the configuration holds now.
    pub why: String,
    /// The file it writes; null for `in-place` (see `why`) and for a `refused` legacy
    /// setting.
    pub file: Option<String>,
    /// The settings layer that file is for the server's project: `user`, `project`,
    /// `local`, `claude.json`, `mcp.json`; null with `file`.
    pub layer: Option<String>,
    /// The key path it sets (`["env", "MCP_TIMEOUT"]`), or for a `move`, the object
    /// holding both lists (`[]`: the top level); null with `file`.
    pub key: Option<Vec<String>>,
    /// The value set at `key`; null for a `move`.
    pub value: Option<serde_json::Value>,
    /// A name moved from one list to another under `key`; null for a value and for a
    /// name only added to or only taken out of one list (`list`).
    #[serde(rename = "move")]
    pub move_name: Option<FixMove>,
    /// A name only added to or only taken out of one list under `key` (`fix NAME`
    /// taking a name out of the user file's list and approving it in the project's
    /// local file: one change each); null otherwise.
    pub list: Option<FixListEdit>,
    /// False when Claude Code's build here is outside the builds the fix was observed
    /// to work on (`state` is then `not-offered`).
    pub offered: bool,
    /// Why not offered: the build here and the builds observed; null when offered.
    pub not_offered: Option<String>,
    /// Why its file cannot be written; null unless `refused`.
    pub refused: Option<String>,
}

/// `servers[].fix.changes[].move`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FixMove {
    pub from: String,
    pub to: String,
    pub name: String,
}

/// `servers[].fix.changes[].list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FixListEdit {
    /// The list's key under the change's `key`.
    pub list: String,
    /// `add` or `remove`.
    pub op: String,
    pub name: String,
}

/// How Claude Code starts a logged server (`servers[].launch`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerLaunch {
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// The program, then its arguments, `${VAR}` expanded as Claude Code expands them,
    /// redacted; empty for a remote server.
    pub command: Vec<String>,
    /// The URL of a remote server, redacted; null for stdio.
    pub url: Option<String>,
    /// The names of the variables the entry's `env` sets (never their values).
    pub env_names: Vec<String>,
    /// `user`, `local`, `project` or `managed`.
    pub scope: String,
    /// The file holding the entry.
    pub file: Option<String>,
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

/// A file and key that decide a server's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DecidedBy {
    pub file: String,
    /// As written in the file: `disabledMcpjsonServers`, `projects["/p"].disabledMcpServers`.
    pub key: String,
    /// `user`, `project`, `local`, `managed`, `managed-drop-in`, `claude.json`, `mcp.json`
    /// or `managed-mcp.json`.
    pub layer: String,
}

/// What the configuration says about a logged server (`servers[].configuration`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerConfiguration {
    /// `starts`, `pending-approval`, `disabled`, `denied-by-policy`,
    /// `configuration-error` or `not-configured`.
    pub state: String,
    /// `user`, `local`, `project` or `managed`; null when not configured.
    pub scope: Option<String>,
    /// The file holding the server's entry; null when not configured.
    pub file: Option<String>,
    pub decided_by: Vec<DecidedBy>,
    /// For `configuration-error`: what Claude Code skips it for.
    pub detail: Option<String>,
    /// Problems in the entry that do not stop it (an unset `${VAR}`, `"disabled": true`).
    pub warnings: Vec<String>,
}

/// A configured server without a log (`configured[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConfiguredServer {
    pub name: String,
    pub project: String,
    pub project_folder: String,
    /// `not-started`, `not-seen-since` (`--since`: it has logs, every session older
    /// than the cut-off), `pending-approval`, `disabled`, `denied-by-policy` or
    /// `configuration-error`.
    pub state: String,
    pub scope: String,
    pub file: Option<String>,
    pub decided_by: Vec<DecidedBy>,
    pub detail: Option<String>,
    pub warnings: Vec<String>,
    /// For `not-started`: the newest log of the project, when newer than the server's
    /// configuration file (Claude Code ran since without starting it).
    pub ran_since: Option<String>,
    /// What to do: the file and key responsible and the way out.
    pub recommendation: String,
    /// For `not-seen-since`: when its newest log was last written (before the
    /// `--since` cut-off); null otherwise.
    #[serde(default)]
    pub last_session: Option<String>,
    /// What `mcplogs fix` would do for it, as `servers[].fix` (a `.mcp.json` server in
    /// `disabledMcpjsonServers` that it enables); null when nothing.
    #[serde(default)]
    pub fix: Option<ServerFix>,
}
