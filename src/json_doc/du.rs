//! The `mcplogs du --json` document (`docs/schema/du.schema.json`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::*;

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
    /// mcplogs' own cache folder (summary index, status line memos, hook told-lists;
    /// not counted in `bytes` and `files`), or null when it does not exist or holds no
    /// file.
    pub mcplogs_cache: Option<DuCache>,
    /// Claude Code's MCP discovery cache folder (`files`: its entries; not counted in
    /// `bytes` and `files`, never pruned: it is Claude Code's state, not logs), or null
    /// when it holds no entry or logs were named on the command line.
    #[serde(default)]
    pub discovery_cache: Option<DuCache>,
    pub warnings: Vec<Warning>,
}

/// mcplogs' own cache folder in `du --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DuCache {
    pub path: String,
    pub bytes: u64,
    pub files: u64,
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
