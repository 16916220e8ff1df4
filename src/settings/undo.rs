//! `mcplogs fix --undo`. Every fix leaves, next to the settings path (beside the link
//! when it is a symlink):
//! - `<name>.mcplogs-backup`: the bytes before the fix, with the file's permission bits
//!   (absent when the fix created the file);
//! - `<name>.mcplogs-undo.json` (mode 0600): an [`UndoState`], recording a hash of what
//!   was written and the key's previous value.
//!
//! If the file still hashes to what the fix wrote, undo restores the backup (or removes
//! a file the fix created). If anyone changed it since (Claude Code rewrites the file on
//! its own), only the key is put back, leaving their changes alone.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::diff;
use super::edit;
use super::layers::negotiation_in;
use super::strictness::{self, Strictness};
use super::write::{FileSnapshot, Fs, RealFs, read_if_exists, write_copy_in};
use super::{NegotiationValue, SettingsError, UndoStateProblem};

/// The record of mcplogs' last fix of one settings file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UndoState {
    pub version: u32,
    /// The path as named when fixing (a symlink stays the path).
    pub settings_path: PathBuf,
    /// The file actually written (the symlink's target).
    pub written_path: PathBuf,
    /// "create", "edit" or "rewrite-strict".
    pub kind: String,
    pub created_file: bool,
    pub backup_path: Option<PathBuf>,
    /// SHA-256 of the bytes the fix wrote: "unchanged since the fix" means equal.
    pub written_sha256: String,
    pub env_existed: bool,
    /// `env.MCP_PROTOCOL_NEGOTIATION` before the fix; `null`: absent.
    pub previous_value: Option<Value>,
}

impl UndoState {
    pub const VERSION: u32 = 1;
}

pub fn backup_path(settings: &Path) -> PathBuf {
    with_suffix(settings, ".mcplogs-backup")
}

pub fn state_path(settings: &Path) -> PathBuf {
    with_suffix(settings, ".mcplogs-undo.json")
}

fn with_suffix(p: &Path, suffix: &str) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn save_state(path: &Path, state: &UndoState) -> Result<(), SettingsError> {
    save_state_in(&RealFs, path, state)
}

/// [`save_state`] through `files`.
pub fn save_state_in(files: &dyn Fs, path: &Path, state: &UndoState) -> Result<(), SettingsError> {
    let mut text = serde_json::to_string_pretty(state).expect("state serializes");
    text.push('\n');
    write_copy_in(files, path, text.as_bytes(), None)
}

pub fn load_state(settings: &Path) -> Result<Option<UndoState>, SettingsError> {
    let path = state_path(settings);
    let Some(bytes) = read_if_exists(&path).map_err(|e| SettingsError::io(&path, "read", e))?
    else {
        return Ok(None);
    };
    let state: UndoState =
        serde_json::from_slice(&bytes).map_err(|e| SettingsError::BadUndoState {
            path: path.clone(),
            problem: UndoStateProblem::Unreadable(e),
        })?;
    if state.version != UndoState::VERSION {
        return Err(SettingsError::BadUndoState {
            path,
            problem: UndoStateProblem::UnknownVersion(state.version),
        });
    }
    Ok(Some(state))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UndoHow {
    /// Unchanged since the fix: the backup's bytes come back.
    RestoreBackup,
    /// Unchanged since the fix, which created it: the file goes.
    RemoveCreatedFile,
    /// Changed since the fix: only the key is put back.
    RestoreKey,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PendingUndo {
    pub snapshot: FileSnapshot,
    /// `None`: remove the file.
    pub new_bytes: Option<Vec<u8>>,
    pub how: UndoHow,
    pub state: UndoState,
    pub state_path: PathBuf,
    /// Empty when the file already is as before the fix. Lines as in the files (show it
    /// through `redact::diff::for_display`).
    pub diff: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum UndoPlan {
    /// No record of a fix of this file.
    NothingToUndo,
    /// The settings file was removed since the fix: nothing to put back.
    FileRemoved {
        path: PathBuf,
    },
    /// Someone changed the key itself since the fix: mcplogs leaves their choice alone
    /// unless forced.
    KeyChanged {
        path: PathBuf,
        /// The key's value now (`None`: absent).
        now: Option<NegotiationValue>,
        /// The value undo would put back (`None`: undo removes the key).
        previous: Option<Value>,
    },
    Pending(Box<PendingUndo>),
}

pub fn plan_undo(settings: &Path, force: bool) -> Result<UndoPlan, SettingsError> {
    let Some(state) = load_state(settings)? else {
        return Ok(UndoPlan::NothingToUndo);
    };
    let state_path = state_path(settings);
    let snapshot = FileSnapshot::read(settings)?;
    let label = settings.display().to_string();
    let Some(current) = snapshot.bytes.clone() else {
        return Ok(UndoPlan::FileRemoved {
            path: settings.to_path_buf(),
        });
    };
    let current_text = String::from_utf8_lossy(&current).into_owned();
    let pending = |new_bytes: Option<Vec<u8>>, how| {
        let new_text = new_bytes
            .as_ref()
            .map(|b| String::from_utf8_lossy(b).into_owned());
        Ok(UndoPlan::Pending(Box::new(PendingUndo {
            diff: diff::unified(Some(&current_text), new_text.as_deref(), &label),
            snapshot: snapshot.clone(),
            new_bytes,
            how,
            state: state.clone(),
            state_path: state_path.clone(),
        })))
    };

    if sha256_hex(&current) == state.written_sha256 {
        if state.created_file {
            return pending(None, UndoHow::RemoveCreatedFile);
        }
        let backup = state
            .backup_path
            .clone()
            .unwrap_or_else(|| backup_path(settings));
        let bytes = read_if_exists(&backup)
            .map_err(|e| SettingsError::io(&backup, "read the backup", e))?
            .ok_or_else(|| SettingsError::BadUndoState {
                path: state_path.clone(),
                problem: UndoStateProblem::MissingBackup(backup.clone()),
            })?;
        return pending(Some(bytes), UndoHow::RestoreBackup);
    }

    // Changed since the fix: put back the one key, keep everything else.
    let object = match strictness::check(&current_text) {
        Strictness::Strict(o) => o,
        Strictness::NonStrict { problem, .. } => {
            return Err(SettingsError::NoLongerStrict {
                path: settings.to_path_buf(),
                problem,
                backup: state.backup_path.clone(),
            });
        }
        Strictness::Invalid { problem } => {
            return Err(SettingsError::Invalid {
                path: settings.to_path_buf(),
                problem,
            });
        }
    };
    let now = negotiation_in(&object);
    if !now.as_ref().is_some_and(NegotiationValue::is_legacy) && !force {
        return Ok(UndoPlan::KeyChanged {
            path: settings.to_path_buf(),
            now,
            previous: state.previous_value.clone(),
        });
    }
    let new_text = edit::restore_key(
        &current_text,
        state.previous_value.as_ref(),
        state.env_existed,
    )
    .map_err(|problem| SettingsError::CannotEdit {
        path: settings.to_path_buf(),
        problem,
    })?;
    pending(Some(new_text.into_bytes()), UndoHow::RestoreKey)
}

/// Writes (atomically, if unchanged since planned) or removes, then forgets the fix.
/// The backup is kept: it is the user's data and costs nothing.
pub fn apply_undo(undo: &PendingUndo) -> Result<(), SettingsError> {
    apply_undo_in(&RealFs, undo)
}

/// [`apply_undo`] through `files` (tests make its steps fail).
pub fn apply_undo_in(files: &dyn Fs, undo: &PendingUndo) -> Result<(), SettingsError> {
    match &undo.new_bytes {
        Some(b) if Some(b) == undo.snapshot.bytes.as_ref() => {
            undo.snapshot.ensure_unchanged()?;
        }
        Some(b) => undo.snapshot.replace_in(files, b)?,
        None => undo.snapshot.remove_in(files)?,
    }
    files
        .remove_file(&undo.state_path)
        .map_err(|error| SettingsError::UndoRecord {
            path: undo.state_path.clone(),
            error,
            written: false,
        })
}
