//! `mcplogs fix --undo`. Every fix leaves, next to the settings path (beside the link
//! when it is a symlink):
//! - `<name>.mcplogs-backup`: the bytes before the fix, with the file's owner and at
//!   most its owner's read and write bits (private; absent when the fix created the
//!   file);
//! - `<name>.mcplogs-undo.json` (the file's owner, at most its owner bits): an
//!   [`UndoState`], recording hashes of the backup and of what was written, and the
//!   key's previous value.
//!
//! Undo verifies before it writes: the record and the backup must be regular files
//! owned by the settings file's owner and writable by no one else, the backup must be
//! the sibling mcplogs writes (a record naming any other path is refused), and its
//! SHA-256 must be the one recorded (an emptied or edited backup is refused).
//!
//! If the file still hashes to what the fix wrote, undo restores the backup (or removes
//! a file the fix created). If anyone changed it since (Claude Code rewrites the file on
//! its own), only the key is put back, leaving their changes alone.

use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::diff;
use super::edit;
use super::layers::negotiation_in;
use super::strictness::{self, Strictness};
use super::write::{Attrs, Beside, FileSnapshot, Fs, RealFs, write_copy_in};
use super::{NegotiationValue, SettingsError, UndoStateProblem};
use crate::safe_read::{Follow, SETTINGS_MAX_BYTES, read_regular};

/// The record of mcplogs' last fix of one settings file: its JSON shape is
/// [`crate::json_doc::FixRecord`] (docs/json.md, "fix").
pub use crate::json_doc::FixRecord as UndoState;

impl UndoState {
    /// 2: camelCase names, the backup's hash, the previous value as literal text.
    /// Version-1 records (no backup hash) are refused, naming the backup. The record
    /// keeps its own version: the scan documents moved to 3 without changing it, and a
    /// record written by a version-2 mcplogs must still undo.
    pub const VERSION: u32 = 2;
}

/// Permission bits a backup may keep from the settings file: the owner's read and
/// write at most (everything mcplogs keeps is private).
pub const BACKUP_MODE_MASK: u32 = 0o600;
/// Permission bits the undo record may keep: the owner's read and write at most.
pub const RECORD_MODE_MASK: u32 = 0o600;
/// An undo record is a few hundred bytes.
const RECORD_MAX_BYTES: u64 = 1024 * 1024;

/// What an undo record is of: `mcplogs fix` (the negotiation key) or one of the
/// `mcplogs setup` installs. Each has its own backup and record, so undoing one never
/// undoes another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Negotiation,
    StatusLine,
    Hook,
    ExportHook,
}

impl Change {
    /// Every kind of change, each with its own record.
    pub const ALL: [Change; 4] = [
        Change::Negotiation,
        Change::StatusLine,
        Change::Hook,
        Change::ExportHook,
    ];

    fn infix(self) -> &'static str {
        match self {
            Change::Negotiation => "",
            Change::StatusLine => "-statusline",
            Change::Hook => "-hook",
            Change::ExportHook => "-export-hook",
        }
    }
}

pub fn backup_path(settings: &Path) -> PathBuf {
    backup_path_for(settings, Change::Negotiation)
}

pub fn state_path(settings: &Path) -> PathBuf {
    state_path_for(settings, Change::Negotiation)
}

/// `<name>.mcplogs[-statusline|-hook|-export-hook]-backup`.
pub fn backup_path_for(settings: &Path, change: Change) -> PathBuf {
    with_suffix(settings, &format!(".mcplogs{}-backup", change.infix()))
}

/// `<name>.mcplogs[-statusline|-hook|-export-hook]-undo.json`.
pub fn state_path_for(settings: &Path, change: Change) -> PathBuf {
    with_suffix(settings, &format!(".mcplogs{}-undo.json", change.infix()))
}

fn with_suffix(p: &Path, suffix: &str) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// The record of mcplogs' last `fix` plan: the settings files it wrote, one a line as
/// JSON (`{"version":1,"files":[...]}`), kept beside the user settings file so that
/// `mcplogs fix --undo` run from any folder undoes every file of the plan. Each file
/// keeps its own backup and undo record, which undo verifies as for a single fix: the
/// plan only says which files to look at.
pub fn plan_path(user_settings: &Path) -> PathBuf {
    with_suffix(user_settings, ".mcplogs-fix-plan.json")
}

const PLAN_VERSION: u64 = 1;

/// The files of the last plan (none when there is no plan record). The record must be
/// a regular file owned by the user file's owner and writable by no one else, and name
/// absolute paths only.
pub fn load_plan(user_settings: &Path) -> Result<Vec<PathBuf>, SettingsError> {
    let path = plan_path(user_settings);
    let owner = FileSnapshot::read(user_settings).ok().and_then(|s| s.attrs);
    let bad = |problem: UndoStateProblem| SettingsError::BadUndoState {
        path: path.clone(),
        problem,
    };
    let Some(record) = read_regular(&path, RECORD_MAX_BYTES, Follow::NoLinks)
        .map_err(|e| bad(UndoStateProblem::CannotRead(e)))?
    else {
        return Ok(Vec::new());
    };
    trusted(&record.meta, owner.as_ref()).map_err(&bad)?;
    let v: Value =
        serde_json::from_slice(&record.bytes).map_err(|e| bad(UndoStateProblem::Unreadable(e)))?;
    let version = v.get("version").and_then(Value::as_u64).unwrap_or(0);
    if version != PLAN_VERSION {
        return Err(bad(UndoStateProblem::UnknownVersion(
            u32::try_from(version).unwrap_or(u32::MAX),
        )));
    }
    let files = v
        .get("files")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .collect()
        })
        .unwrap_or_default();
    Ok(files)
}

/// Records `files` as the plan (the runner's, mode 0600 at most, the user file's owner
/// when it exists).
pub fn save_plan(user_settings: &Path, files: &[PathBuf]) -> Result<(), SettingsError> {
    save_plan_made(user_settings, files, false)
}

/// [`save_plan`]; `made_folder`: a fix of the plan made the folder the record is in (and
/// its undo could not remove it while the record was there), so the record's removal
/// removes it when nothing else is left in it.
pub fn save_plan_made(
    user_settings: &Path,
    files: &[PathBuf],
    made_folder: bool,
) -> Result<(), SettingsError> {
    let attrs = FileSnapshot::read(user_settings)
        .ok()
        .and_then(|s| s.attrs)
        .map(|a| a.masked(RECORD_MODE_MASK));
    // No user settings folder (`~/.claude` on a machine where Claude Code never wrote
    // settings): made for the record, and removed with it when the undo leaves it empty.
    let mut created_folder = made_folder || plan_created_folder(user_settings);
    if let Some(d) = user_settings.parent()
        && !d.as_os_str().is_empty()
        && !d.exists()
    {
        super::write::create_dir_private(d)
            .map_err(|e| SettingsError::io(d, "create the folder", e))?;
        created_folder = true;
    }
    let mut doc = serde_json::json!({
        "version": PLAN_VERSION,
        "files": files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    });
    if created_folder {
        doc["createdFolder"] = Value::Bool(true);
    }
    let mut text = serde_json::to_string_pretty(&doc).expect("plan serializes");
    text.push('\n');
    let record = plan_path(user_settings);
    let dir = super::write::open_beside(&record, None)?;
    write_copy_in(&RealFs, &dir, &record, text.as_bytes(), attrs.as_ref())
}

/// Whether the plan record says mcplogs made the folder it is in.
fn plan_created_folder(user_settings: &Path) -> bool {
    read_regular(&plan_path(user_settings), RECORD_MAX_BYTES, Follow::NoLinks)
        .ok()
        .flatten()
        .and_then(|r| serde_json::from_slice::<Value>(&r.bytes).ok())
        .and_then(|v| v.get("createdFolder").and_then(Value::as_bool))
        .unwrap_or(false)
}

/// Removes the plan record (absent: nothing to do), and the folder mcplogs made for it
/// when nothing else is left in it.
pub fn remove_plan(user_settings: &Path) -> Result<(), SettingsError> {
    let path = plan_path(user_settings);
    let created_folder = plan_created_folder(user_settings);
    match std::fs::remove_file(&path) {
        Ok(()) => {
            if created_folder && let Some(d) = user_settings.parent() {
                // `remove_dir` removes only an empty folder
                let _ = std::fs::remove_dir(d);
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(SettingsError::io(&path, "remove", e)),
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::text::hex(&Sha256::digest(bytes))
}

/// Writes the record `state` to `path` through `files`. `attrs`: the settings file's
/// owner and at most its owner bits (`None`: the runner's, 0600).
pub fn save_state_in(
    files: &dyn Fs,
    dir: &Beside,
    path: &Path,
    state: &UndoState,
    attrs: Option<&Attrs>,
) -> Result<(), SettingsError> {
    let mut text = serde_json::to_string_pretty(state).expect("state serializes");
    text.push('\n');
    write_copy_in(files, dir, path, text.as_bytes(), attrs)
}

/// The undo record of `settings`, if there is one, checked: a regular file, owned by
/// `owner` (the settings file's) and writable by no one else, of this version.
pub fn load_state(settings: &Path) -> Result<Option<UndoState>, SettingsError> {
    let owner = FileSnapshot::read(settings)?.attrs;
    load_state_owned(settings, owner.as_ref())
}

fn load_state_owned(
    settings: &Path,
    owner: Option<&Attrs>,
) -> Result<Option<UndoState>, SettingsError> {
    load_state_owned_for(settings, owner, Change::Negotiation)
}

pub(super) fn load_state_owned_for(
    settings: &Path,
    owner: Option<&Attrs>,
    change: Change,
) -> Result<Option<UndoState>, SettingsError> {
    let path = state_path_for(settings, change);
    let bad = |problem: UndoStateProblem| SettingsError::BadUndoState {
        path: path.clone(),
        problem,
    };
    let Some(record) = read_regular(&path, RECORD_MAX_BYTES, Follow::NoLinks)
        .map_err(|e| bad(UndoStateProblem::CannotRead(e)))?
    else {
        return Ok(None);
    };
    trusted(&record.meta, owner).map_err(&bad)?;
    let state: UndoState = match serde_json::from_slice(&record.bytes) {
        Ok(s) => s,
        Err(e) => {
            let version = serde_json::from_slice::<Value>(&record.bytes)
                .ok()
                .and_then(|v| v.get("version").and_then(Value::as_u64));
            return Err(bad(match version {
                Some(version) if version != u64::from(UndoState::VERSION) => {
                    UndoStateProblem::OtherVersion {
                        version,
                        backup: backup_path_for(settings, change),
                    }
                }
                _ => UndoStateProblem::Unreadable(e),
            }));
        }
    };
    if state.version != UndoState::VERSION {
        return Err(bad(UndoStateProblem::UnknownVersion(state.version)));
    }
    if state.settings_path != settings {
        return Err(bad(UndoStateProblem::OtherSettings {
            recorded: state.settings_path.clone(),
            settings: settings.to_path_buf(),
        }));
    }
    if let Some(b) = &state.backup_path {
        let sibling = backup_path_for(settings, change);
        if *b != sibling {
            return Err(bad(UndoStateProblem::NotSibling {
                named: b.clone(),
                sibling,
            }));
        }
    }
    Ok(Some(state))
}

/// A record or backup is used only if the settings file's owner owns it and no one
/// else can write it (unix; elsewhere the file system's ACLs decide).
fn trusted(meta: &std::fs::Metadata, owner: Option<&Attrs>) -> Result<(), UndoStateProblem> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Some((uid, _)) = owner.and_then(|a| a.owner)
            && meta.uid() != uid
        {
            return Err(UndoStateProblem::WrongOwner {
                uid: meta.uid(),
                owner: uid,
            });
        }
        let mode = meta.mode() & 0o7777;
        if mode & 0o022 != 0 {
            return Err(UndoStateProblem::WritableByOthers { mode });
        }
    }
    #[cfg(not(unix))]
    let _ = (meta, owner);
    Ok(())
}

/// The backup's bytes, if it is the trusted sibling holding exactly what was recorded.
pub(super) fn verified_backup(
    settings: &Path,
    state: &UndoState,
    owner: Option<&Attrs>,
    state_path: &Path,
    change: Change,
) -> Result<Vec<u8>, SettingsError> {
    let backup = backup_path_for(settings, change);
    let bad = |problem: UndoStateProblem| SettingsError::BadUndoState {
        path: state_path.to_path_buf(),
        problem,
    };
    let of_backup = |problem: UndoStateProblem| {
        bad(UndoStateProblem::Backup {
            backup: backup.clone(),
            problem: Box::new(problem),
        })
    };
    let Some(expected) = &state.backup_sha256 else {
        return Err(bad(UndoStateProblem::NoChecksum));
    };
    let b = read_regular(&backup, SETTINGS_MAX_BYTES, Follow::NoLinks)
        .map_err(|e| of_backup(UndoStateProblem::CannotRead(e)))?
        .ok_or_else(|| bad(UndoStateProblem::MissingBackup(backup.clone())))?;
    trusted(&b.meta, owner).map_err(of_backup)?;
    if sha256_hex(&b.bytes) != *expected {
        return Err(bad(UndoStateProblem::BackupChanged(backup.clone())));
    }
    Ok(b.bytes)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UndoHow {
    /// Unchanged since the fix: the backup's bytes come back.
    RestoreBackup,
    /// Unchanged since the fix, which created it: the file goes.
    RemoveCreatedFile,
    /// Changed since the fix: only the key is put back.
    RestoreKey,
    /// Changed since the fix, which created it: with the key put back (`--force`)
    /// nothing is left in it, so the file goes.
    RemoveEmptiedFile,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PendingUndo {
    pub snapshot: FileSnapshot,
    /// `None`: remove the file.
    pub new_bytes: Option<Vec<u8>>,
    pub how: UndoHow,
    pub state: UndoState,
    pub state_path: PathBuf,
    /// The backup mcplogs' change made (it may not exist: a created file has none).
    /// Undo removes it once done, if it still holds exactly what was recorded.
    pub backup: PathBuf,
    /// Empty when the file already is as before the fix. Lines as in the files (show it
    /// through `redact::diff::for_display`).
    pub diff: String,
    /// What the undo does besides putting keys back as they were, in words (a name
    /// moved back alone in a list changed since, `--force`).
    pub notes: Vec<String>,
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
        /// The value undo would put back, as its literal JSON text (`None`: undo
        /// removes the key).
        previous: Option<String>,
    },
    /// `mcplogs setup ... --undo`: the file changed since the install and mcplogs' entry
    /// is no longer in `key`; nothing of mcplogs' is left to take out.
    NotOurs {
        path: PathBuf,
        key: &'static str,
    },
    Pending(Box<PendingUndo>),
}

/// What a key-only undo does once the file changed since mcplogs' change: refuse (a plan
/// that says why) or the new text.
pub(super) enum KeyUndo {
    Refuse(UndoPlan),
    Text(String),
    /// The new text, and what it did besides putting keys back, in words
    /// ([`PendingUndo::notes`]).
    Noted(String, Vec<String>),
}

/// Every undo: no record is nothing to undo; a removed file is named; a file unchanged
/// since mcplogs wrote it gets its backup back (or goes, when mcplogs created it); a
/// changed one is handed to `changed_since` (its text and the record), which takes out
/// only mcplogs' own key. The result is never larger than the read limit.
pub(super) fn plan_undo_for(
    settings: &Path,
    project: Option<&Path>,
    change: Change,
    changed_since: impl FnOnce(&str, &UndoState) -> Result<KeyUndo, SettingsError>,
) -> Result<UndoPlan, SettingsError> {
    let state_path = state_path_for(settings, change);
    if std::fs::symlink_metadata(&state_path).is_err() {
        return Ok(UndoPlan::NothingToUndo);
    }
    // a project's own file: never put back through a link in the project
    let project = project
        .map(Path::to_path_buf)
        .or_else(|| super::write::project_root_of(settings));
    let snapshot = FileSnapshot::read_in(settings, project.as_deref())?;
    let Some(state) = load_state_owned_for(settings, snapshot.attrs.as_ref(), change)? else {
        return Ok(UndoPlan::NothingToUndo);
    };
    // the path leads where the fix wrote (a link pointed elsewhere since would have
    // the undo edit another file, and drop the record of the one changed)
    if !state.written_path.as_os_str().is_empty() && snapshot.target != state.written_path {
        return Err(SettingsError::Relinked {
            path: settings.to_path_buf(),
            written: state.written_path.clone(),
            now: snapshot.target.clone(),
        });
    }
    let label = settings.display().to_string();
    let Some(current) = snapshot.bytes.clone() else {
        return Ok(UndoPlan::FileRemoved {
            path: settings.to_path_buf(),
        });
    };
    let current_text = String::from_utf8_lossy(&current).into_owned();
    let pending = |new_bytes: Option<Vec<u8>>, how, notes: Vec<String>| {
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
            backup: backup_path_for(settings, change),
            notes,
        })))
    };
    if sha256_hex(&current) == state.written_sha256 {
        if state.created_file {
            return pending(None, UndoHow::RemoveCreatedFile, Vec::new());
        }
        let bytes = verified_backup(
            settings,
            &state,
            snapshot.attrs.as_ref(),
            &state_path,
            change,
        )?;
        return pending(Some(bytes), UndoHow::RestoreBackup, Vec::new());
    }
    let (new_text, notes) = match changed_since(&current_text, &state)? {
        KeyUndo::Refuse(plan) => return Ok(plan),
        KeyUndo::Text(t) => (t, Vec::new()),
        KeyUndo::Noted(t, notes) => (t, notes),
    };
    // mcplogs created the file and, its key taken out, nothing else is in it: the file
    // goes, as when it is unchanged (an empty object nobody wrote is no setting of the
    // user's).
    if (state.created_file || state.created_by_another_change) && is_empty_object(&new_text) {
        return pending(None, UndoHow::RemoveEmptiedFile, notes);
    }
    super::fix::within_read_limit(settings, &new_text, true)?;
    pending(Some(new_text.into_bytes()), UndoHow::RestoreKey, notes)
}

pub fn plan_undo(settings: &Path, force: bool) -> Result<UndoPlan, SettingsError> {
    plan_undo_in(settings, None, force)
}

/// [`plan_undo`] of a file of the project `project` (found by
/// [`super::write::project_of`], the rule the fix wrote it by: a project's shared
/// `.claude/settings.json` is one only the caller, who knows the user's own file, can
/// tell): refused when it, or a folder between the project and it, is a symbolic link,
/// as the fix refused it. Nothing is changed then: the backup and the record stay.
pub fn plan_undo_in(
    settings: &Path,
    project: Option<&Path>,
    force: bool,
) -> Result<UndoPlan, SettingsError> {
    plan_undo_for(
        settings,
        project,
        Change::Negotiation,
        |current_text, state| {
            // A fix of the engine: every key it set, put back.
            if !state.changes.is_empty() {
                return super::engine::undo_changed(settings, current_text, &state.changes, force)
                    .map(|(text, notes)| KeyUndo::Noted(text, notes));
            }
            // Changed since the fix: put back the one key, keep everything else.
            let object = match strictness::check(current_text) {
                Strictness::Strict(doc) => doc,
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
                return Ok(KeyUndo::Refuse(UndoPlan::KeyChanged {
                    path: settings.to_path_buf(),
                    now,
                    previous: state.previous_json.clone(),
                }));
            }
            edit::restore_key(
                current_text,
                state.previous_json.as_deref(),
                state.env_existed,
            )
            .map(KeyUndo::Text)
            .map_err(|problem| SettingsError::CannotEdit {
                path: settings.to_path_buf(),
                problem,
            })
        },
    )
}

/// Whether another live record of `settings` (any change but the one recorded at
/// `state_path`) says mcplogs created the file: its own change, or one before it. A
/// record that cannot be trusted says nothing.
pub(super) fn created_by_another_change(
    settings: &Path,
    owner: Option<&Attrs>,
    state_path: &Path,
) -> bool {
    Change::ALL
        .into_iter()
        .filter(|c| state_path_for(settings, *c) != state_path)
        .filter_map(|c| load_state_owned_for(settings, owner, c).ok().flatten())
        .any(|s| s.created_file || s.created_by_another_change)
}

/// The folder another mcplogs change of the file, still recorded, created to hold it:
/// a change that joins the file inherits it, so that whichever undo removes the file
/// last removes the folder too.
pub(super) fn folder_created_by_another_change(
    settings: &Path,
    owner: Option<&Attrs>,
    state_path: &Path,
) -> Option<PathBuf> {
    Change::ALL
        .into_iter()
        .filter(|c| state_path_for(settings, *c) != state_path)
        .filter_map(|c| load_state_owned_for(settings, owner, c).ok().flatten())
        .find_map(|s| s.created_folder)
}

/// Whether `text` is a JSON object with nothing in it (`{}`, any white space).
fn is_empty_object(text: &str) -> bool {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.as_object().map(serde_json::Map::is_empty))
        .unwrap_or(false)
}

/// Writes (atomically, if unchanged since planned) or removes, then forgets the fix:
/// its record, and its backup when that still holds exactly the recorded bytes (undo
/// leaves nothing mcplogs made; a backup someone changed since is theirs and stays).
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
        })?;
    if let (Some(expected), Ok(Some(b))) = (
        &undo.state.backup_sha256,
        read_regular(&undo.backup, SETTINGS_MAX_BYTES, Follow::NoLinks),
    ) && sha256_hex(&b.bytes) == *expected
    {
        // The undo is done; a backup that cannot be removed is only left behind.
        let _ = files.remove_file(&undo.backup);
    }
    remove_created_folder(undo);
    Ok(())
}

/// The folder the undone fix created (`~/.claude`), removed when nothing is left in it;
/// a folder anything else was put into since stays. Called again once the plan's record
/// (kept in the same folder) is gone.
pub fn remove_created_folder(undo: &PendingUndo) {
    if undo.new_bytes.is_none()
        && let Some(d) = &undo.state.created_folder
    {
        // `remove_dir` removes only an empty folder
        let _ = std::fs::remove_dir(d);
    }
}
