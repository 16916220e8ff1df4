//! The undo record every settings change leaves (`docs/schema/fix.schema.json`).
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
    /// Another mcplogs change of this file (`fix` or a `setup` install), still recorded
    /// when this one was made, had created the file: undo removes the file when taking
    /// this change out leaves an empty object. Absent (false) in older records.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created_by_another_change: bool,
    /// The fix created the file's folder too (`~/.claude` missing): undo removes it
    /// once it removed the file, if nothing else is in it. Absent (false) in older
    /// records.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created_folder: bool,
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
    /// A fix of the engine (a command's path, `MCP_TIMEOUT`, an approval list, or several
    /// changes in one file): every key it set, in the order set. Undo of a file changed
    /// since puts back each of them, last first, and nothing else. Absent (empty) in a
    /// record of the legacy fix alone, which `envExisted`/`previousJson` describe.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<KeyChangeRecord>,
}

/// One key the fix engine set in a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KeyChangeRecord {
    /// The key path from the top of the file (`["mcpServers", "far", "command"]`); for a
    /// key created inside objects the fix also created, the first object created.
    pub path: Vec<String>,
    /// Its value before, as JSON text; null: absent.
    pub previous_json: Option<String>,
    /// The value the fix wrote there, as JSON text: undo puts back only a key that
    /// still holds it (or, with `--force`, whatever it holds).
    pub written_json: String,
}
