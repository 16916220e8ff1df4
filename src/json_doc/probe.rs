//! The `mcplogs probe --json` document and its `--transcript` lines, versioned on their
//! own ([`PROBE_SCHEMA_VERSION`]; `docs/schema/probe.schema.json`, `transcript.schema.json`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
    /// For a build not observed (newer or older than every observed one, or inside a
    /// range not bisected): what the predictions rest on, naming the builds.
    pub claude_version_note: Option<String>,
    pub negotiation: ProbeNegotiation,
    /// The effective `MCP_SDK_GENERATION` and what it means for the predicted build.
    pub sdk_generation: ProbeSdkGeneration,
    /// The feature flags Claude Code caches in `.claude.json` that the prediction
    /// depends on: `tengu_brindle_causeway` (the MCP client, when `MCP_SDK_GENERATION` is
    /// unset on a build with two clients) and, when `MCP_PROTOCOL_NEGOTIATION` is unset,
    /// `tengu_mcp_protocol_negotiation_stdio`/`_http` (each transport probed) and
    /// `tengu_mcp_negotiation_server_denylist`: each with its value, or that it could
    /// not be read.
    #[serde(default)]
    pub flags: Vec<ProbeFlag>,
    /// The limits Claude Code applies, as predicted with.
    pub timeouts: ProbeTimeouts,
    pub servers: Vec<ProbeServer>,
}

/// `MCP_TIMEOUT` and `MCP_CONNECT_TIMEOUT_MS`, each as the predicted build reads them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeTimeouts {
    /// Bounds the handshake (from the spawn) and each `tools/list` request; the probe
    /// waits this long for each request (`--timeout` may stop it sooner).
    pub mcp_timeout: ProbeTimeout,
    /// How long a blocking `claude -p` waits for servers before it goes on with them
    /// `pending`.
    pub connect_timeout: ProbeTimeout,
}

/// One limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeTimeout {
    /// `MCP_TIMEOUT` or `MCP_CONNECT_TIMEOUT_MS`.
    pub variable: String,
    /// The limit used, in milliseconds.
    pub ms: u64,
    /// The value as written in the deciding layer; null: nothing sets it.
    pub value: Option<String>,
    /// `<layer> (<file>)`, `environment`, or null: Claude Code's default.
    pub decided_by: Option<String>,
}

/// The effective `MCP_SDK_GENERATION` (`v1` makes every observed build use the classic
/// handshake, over `MCP_PROTOCOL_NEGOTIATION=auto` too) and the layer that sets it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeSdkGeneration {
    /// The value as written; null: nothing sets it.
    pub value: Option<String>,
    /// `<layer> (<file>)` or `environment`; null: nothing sets it.
    pub decided_by: Option<String>,
    /// What it means for the predicted build (the note the text output prints on
    /// stderr); null: nothing sets it.
    pub note: Option<String>,
}

/// One of `probe --json`'s `flags`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeFlag {
    pub name: String,
    /// The cached value (`true`, `false`, `null` or `not a boolean`; a list described, as
    /// `a list of 2 entries`, never shown: it may name hosts); null: not read.
    pub value: Option<String>,
    /// False: mcplogs could not read it (not cached in `.claude.json`, or that file
    /// unreadable), so the prediction assumes Claude Code's default.
    pub read: bool,
    /// What the prediction assumes (the note the text output prints on stderr).
    pub note: String,
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
    /// A remote server that answered 401: the OAuth discovery Claude Code follows, step
    /// by step (no browser, no token, nothing registered); null otherwise, and for a
    /// refused configured `Authorization` header (Claude Code tries no OAuth then).
    pub oauth: Option<ProbeOauth>,
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
    /// For `lists-rejected`: the lists Claude Code loses (`prompts`, `resources`).
    pub lost_lists: Vec<String>,
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

/// The OAuth discovery of a server that answered 401, as Claude Code follows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeOauth {
    /// What Claude Code then shows, as `scan` names it: `needs-auth`,
    /// `oauth-no-registration`, or another cause for a failure not observed.
    pub cause: String,
    /// The first step that did not go as a working sign-in needs (a 404 Claude Code
    /// falls back from included), as `step` names it; null: none.
    pub failed_step: Option<String>,
    /// The step that decides a failure (`registration` for `oauth-no-registration`);
    /// null when Claude Code shows `needs-auth`.
    pub deciding_step: Option<String>,
    /// The `resource_metadata` URL of the 401's `WWW-Authenticate`, or null.
    pub resource_metadata_url: Option<String>,
    /// The authorization server Claude Code uses: the protected-resource metadata's
    /// first `authorization_servers`, else the server's origin.
    pub authorization_server: Option<String>,
    /// `advertised`, `missing` (metadata without `registration_endpoint`), `default`
    /// (no metadata: Claude Code's default `/register`) or `not-reached`.
    pub registration: String,
    /// The registration endpoint (advertised or default), never contacted; or null.
    pub registration_endpoint: Option<String>,
    /// The headers every discovery request carried (`Accept`, `MCP-Protocol-Version`):
    /// no configured header and no token goes to any metadata URL.
    pub headers_sent: Vec<String>,
    /// Always false: the probe never registers a client (Claude Code's verdict does not
    /// depend on the registration's answer: observed).
    pub registered: bool,
    /// One sentence: what Claude Code does after these steps.
    pub summary: String,
    pub steps: Vec<ProbeOauthStep>,
}

/// One step of the OAuth discovery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeOauthStep {
    /// `resource-metadata`, `auth-server-metadata` or `registration`.
    pub step: String,
    /// The URL asked (the registration: the endpoint), without user information and with
    /// every query value `[REDACTED]` (unless `--no-redact`); empty when there is none.
    pub url: String,
    /// The HTTP status, or null (not contacted, or no answer).
    pub status: Option<u16>,
    /// `found`, `not-found` (Claude Code tries the next URL), `fall-back` (Claude Code
    /// takes the server's origin as the authorization server), `failed` (the sign-in
    /// stops), `advertised`, `missing`, `default` or `not-run` (the probe's time limit
    /// was spent on an earlier step: not contacted).
    pub outcome: String,
    /// Whether a request was sent (the registration never is).
    pub contacted: bool,
    pub ms: u64,
    pub detail: String,
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
    /// `prompts/list` and `resources/list`, when the server declared them.
    pub lists: Vec<ProbeListFetch>,
    /// Responses that answered no request pending when they arrived.
    pub stray_responses: Vec<ProbeStrayResponse>,
}

/// One `prompts/list` or `resources/list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeListFetch {
    /// `prompts/list` or `resources/list`.
    pub method: String,
    /// Items returned, or null when there was no result.
    pub items: Option<u64>,
    /// Problems with the result's 2026-07-28 fields (`resultType`, `ttlMs`, `cacheScope`).
    pub envelope: Vec<ProbeEnvelopeIssue>,
    /// Why there was no result, or null.
    pub error: Option<String>,
}

/// A response that answered no pending request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeStrayResponse {
    /// Its JSON-RPC id.
    pub id: serde_json::Value,
    /// `before-request` (it came before the request with its id was sent), `duplicate`
    /// (a second answer to an answered request) or `unknown-id`.
    pub kind: String,
    /// The method of the request with that id, or null.
    pub method: Option<String>,
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
    /// `tools-capable-handshake`, `tools-listed`, `pagination`, `every-tool-accepted`,
    /// `unique-names`, `tool-names`, `tool-name-length`, `x-mcp-header`,
    /// `lists-accepted`, `responses-follow-requests`, `list-changed`, `timeout-budget`.
    pub check: String,
    /// True: it ran and passed; false: it failed on `builds`; null (`n/a`): it could not
    /// run, its input never arrived (no handshake, no list, no answer) or it does not
    /// apply, and `detail` says why. Only a check that ran passes, and only failures
    /// count for the exit code.
    pub passed: Option<bool>,
    pub detail: String,
    /// The modelled Claude Code builds the check answers for (the last build without
    /// each per-build behaviour, and the newest observed): when it fails, those that
    /// would lose, truncate or rename a tool.
    pub builds: Vec<String>,
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
