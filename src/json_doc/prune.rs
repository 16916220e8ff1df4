//! The `mcplogs prune --json` document (`docs/schema/prune.schema.json`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::*;

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
    /// Entries of mcplogs' own cache (status line memos, hook told-lists, index files)
    /// that go with the logs they describe, or whose logs are gone already.
    pub cache: Vec<PruneCacheEntry>,
    /// Their bytes.
    pub cache_bytes: u64,
    /// Cache entries removed; null without `--yes`.
    pub cache_removed: Option<u64>,
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

/// One entry of mcplogs' own cache planned for removal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PruneCacheEntry {
    pub path: String,
    pub bytes: u64,
    /// `statusline-memo`, `hook-told`, `index` or `leftover` (a crash's temporary file,
    /// a link, a file this build cannot read).
    pub kind: String,
    /// `logs-pruned` (its logs are deleted by this plan) or `logs-gone` (they were gone
    /// already).
    pub reason: String,
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
