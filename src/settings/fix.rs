//! `mcplogs fix`: plan the edit (nothing written, the diff ready to show), then apply it
//! with a backup and an undo record. The binary asks for confirmation in between.

use std::path::{Path, PathBuf};

use super::diff;
use super::edit::{self, EditError};
use super::layers::negotiation_in;
use super::strictness::{self, Strictness};
use super::undo::{self, UndoState};
use super::write::{FileSnapshot, Fs, RealFs, open_beside, write_copy_in};
use super::{NEGOTIATION_KEY, SettingsError, TextProblem};
use crate::safe_read::SETTINGS_MAX_BYTES;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FixOptions {
    /// Convert a JSON5 file (comments, trailing commas) to strict JSON instead of refusing.
    pub rewrite_strict: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixKind {
    /// The file did not exist.
    Create,
    /// A minimal edit of a strict-JSON file.
    Edit,
    /// A JSON5 file rewritten as strict JSON (`--rewrite-strict`).
    RewriteStrict,
}

impl FixKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FixKind::Create => "create",
            FixKind::Edit => "edit",
            FixKind::RewriteStrict => "rewrite-strict",
        }
    }
}

/// A fix ready to apply: what was read, what will be written, the diff between them.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingFix {
    pub snapshot: FileSnapshot,
    pub new_bytes: Vec<u8>,
    pub kind: FixKind,
    /// `env.MCP_PROTOCOL_NEGOTIATION` before the fix, as its literal JSON text
    /// (`None`: absent), for undo.
    pub previous: Option<String>,
    /// Whether `env` existed before the fix, for undo.
    pub env_existed: bool,
    /// Unified diff, lines as in the files (show it through `redact::diff::for_display`).
    pub diff: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FixPlan {
    /// Strict JSON already holding `legacy`: nothing to write.
    AlreadyLegacy {
        path: PathBuf,
    },
    Pending(PendingFix),
}

/// What [`apply_fix`] wrote besides the settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedFix {
    /// `None` when the file did not exist before.
    pub backup: Option<PathBuf>,
    pub state: PathBuf,
}

/// Reads `path` and works out the fix. Refuses (as an error) a file Claude Code would
/// ignore unless `rewrite_strict`, and a file that is not even JSON5.
pub fn plan_fix(path: &Path, opts: FixOptions) -> Result<FixPlan, SettingsError> {
    plan_fix_in(path, super::write::project_root_of(path).as_deref(), opts)
}

/// [`plan_fix`] of a file of the project `project` when given
/// ([`super::write::project_of`]): refused when it, or a folder between the project and
/// it, is a symbolic link.
pub fn plan_fix_in(
    path: &Path,
    project: Option<&Path>,
    opts: FixOptions,
) -> Result<FixPlan, SettingsError> {
    let snapshot = FileSnapshot::read_in(path, project)?;
    let Some(bytes) = &snapshot.bytes else {
        let new_text = edit::fresh_file();
        return Ok(FixPlan::Pending(PendingFix {
            diff: diff::unified(None, Some(&new_text), &path.display().to_string()),
            new_bytes: new_text.into_bytes(),
            snapshot,
            kind: FixKind::Create,
            previous: None,
            env_existed: false,
        }));
    };
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(SettingsError::Invalid {
            path: path.to_path_buf(),
            problem: TextProblem {
                line: 1,
                column: 1,
                message: "not UTF-8 text".into(),
            },
        });
    };
    let (doc, new_text, kind) = match strictness::check(text) {
        Strictness::Strict(doc) => {
            if negotiation_in(&doc).is_some_and(|v| v.is_legacy()) {
                return Ok(FixPlan::AlreadyLegacy {
                    path: path.to_path_buf(),
                });
            }
            let new_text = edit::set_legacy(text).map_err(|e| unsupported(path, e))?;
            (doc, new_text, FixKind::Edit)
        }
        Strictness::NonStrict { problem, doc } => {
            if !opts.rewrite_strict {
                return Err(SettingsError::NotStrict {
                    path: path.to_path_buf(),
                    env_keys: strictness::env_keys(&doc),
                    problem,
                });
            }
            let new_text = edit::rewrite_strict(text, &doc).map_err(|e| unsupported(path, e))?;
            (doc, new_text, FixKind::RewriteStrict)
        }
        Strictness::Invalid { problem } => {
            return Err(SettingsError::Invalid {
                path: path.to_path_buf(),
                problem,
            });
        }
    };
    within_read_limit(path, &new_text, false)?;
    let env = doc.last_member(doc.root, "env");
    Ok(FixPlan::Pending(PendingFix {
        diff: diff::unified(Some(text), Some(&new_text), &path.display().to_string()),
        previous: env
            .and_then(|e| doc.last_member(e.value, NEGOTIATION_KEY))
            .map(|m| doc.raw(m.value).to_string()),
        env_existed: env.is_some(),
        new_bytes: new_text.into_bytes(),
        snapshot,
        kind,
    }))
}

/// Refuses an edit whose result mcplogs could not read back: a fix of a file near the
/// read limit would otherwise be written and then refused by `fix --undo`.
pub(super) fn within_read_limit(path: &Path, new: &str, undo: bool) -> Result<(), SettingsError> {
    within_limit(path, new.len() as u64, SETTINGS_MAX_BYTES, undo)
}

fn within_limit(path: &Path, bytes: u64, limit: u64, undo: bool) -> Result<(), SettingsError> {
    if bytes > limit {
        return Err(SettingsError::ResultTooLarge {
            path: path.to_path_buf(),
            bytes,
            limit,
            undo,
        });
    }
    Ok(())
}

fn unsupported(path: &Path, problem: EditError) -> SettingsError {
    SettingsError::CannotEdit {
        path: path.to_path_buf(),
        problem,
    }
}

/// Backup (same permissions as the file), atomic write, then the undo record.
/// Aborts, writing nothing to the settings file, if it changed since [`plan_fix`] read it.
pub fn apply_fix(fix: &PendingFix) -> Result<AppliedFix, SettingsError> {
    apply_fix_in(&RealFs, fix)
}

/// [`apply_fix`] through `files` (tests make its steps fail). The backup is written
/// first: if it cannot be, nothing else is.
pub fn apply_fix_in(files: &dyn Fs, fix: &PendingFix) -> Result<AppliedFix, SettingsError> {
    write_with_undo(
        files,
        &fix.snapshot,
        Written {
            backup: undo::backup_path(&fix.snapshot.path),
            state: undo::state_path(&fix.snapshot.path),
            new_bytes: &fix.new_bytes,
            kind: fix.kind.as_str(),
            env_existed: fix.env_existed,
            previous: fix.previous.clone(),
            changes: Vec::new(),
        },
    )
}

/// What one change of a settings file writes, and where its backup and undo record go.
pub(crate) struct Written<'a> {
    pub backup: PathBuf,
    pub state: PathBuf,
    pub new_bytes: &'a [u8],
    pub kind: &'a str,
    pub env_existed: bool,
    pub previous: Option<String>,
    /// The keys the fix engine set (empty for the legacy fix alone and `setup`).
    pub changes: Vec<crate::json_doc::KeyChangeRecord>,
}

/// The one write path of every settings change (`fix`, `setup`): the backup (same
/// owner, private: at most the owner's read and write bits of the file), then the
/// atomic write, then the undo record, the backup and the record written relative to
/// the folder opened once ([`super::write::open_beside`]), never through a link. Aborts,
/// writing nothing, if the file changed since it was read; if the backup cannot be
/// written, nothing else is.
pub(crate) fn write_with_undo(
    files: &dyn Fs,
    snap: &FileSnapshot,
    w: Written,
) -> Result<AppliedFix, SettingsError> {
    // the folder the backup and the record go in, opened once (the one look for a link
    // in the project before the swap's own); a created file's is opened once it exists
    let mut beside = match &snap.bytes {
        Some(_) => Some(open_beside(&snap.path, snap.project.as_deref())?),
        None => None,
    };
    // nothing at all is written for a file changed since it was read
    snap.ensure_same()?;
    // read before this change's own record is written (it is left out anyway)
    let created_by_another_change = snap.bytes.is_some()
        && undo::created_by_another_change(&snap.path, snap.attrs.as_ref(), &w.state);
    let backup = match &snap.bytes {
        Some(original) => {
            let attrs = snap
                .attrs
                .as_ref()
                .map(|a| a.masked(undo::BACKUP_MODE_MASK));
            let dir = beside.as_ref().expect("opened for an existing file");
            write_copy_in(files, dir, &w.backup, original, attrs.as_ref())?;
            Some(w.backup)
        }
        None => None,
    };
    let folder = snap.target.parent().map(Path::to_path_buf);
    // the folder this write creates, or the one an earlier change of the file (whose
    // file this one joins) created: whichever undo removes the file removes it too
    let created_folder = match folder {
        Some(d) if snap.bytes.is_none() && !d.as_os_str().is_empty() && !d.exists() => Some(d),
        _ if created_by_another_change => {
            undo::folder_created_by_another_change(&snap.path, snap.attrs.as_ref(), &w.state)
        }
        _ => None,
    };
    match &beside {
        // the same file and bytes are checked there, and links just before the swap
        Some(_) => snap.replace_walked(files, w.new_bytes)?,
        None => snap.replace_in(files, w.new_bytes)?,
    }
    let beside = match beside.take() {
        Some(b) => b,
        // the file is written now: whatever keeps its folder from being opened (a link
        // put there since) is said as a record not written, never as nothing written
        None => open_beside(&snap.path, snap.project.as_deref()).map_err(|e| {
            SettingsError::UndoRecord {
                path: w.state.clone(),
                error: match e {
                    SettingsError::Io { error, .. } => error,
                    other => std::io::Error::other(other.to_string()),
                },
                written: true,
            }
        })?,
    };
    let state = UndoState {
        created_folder,
        version: UndoState::VERSION,
        settings_path: snap.path.clone(),
        written_path: snap.target.clone(),
        kind: w.kind.to_string(),
        created_file: snap.bytes.is_none(),
        created_by_another_change,
        backup_path: backup.clone(),
        backup_sha256: snap.bytes.as_deref().map(undo::sha256_hex),
        written_sha256: undo::sha256_hex(w.new_bytes),
        env_existed: w.env_existed,
        previous_json: w.previous,
        changes: w.changes,
    };
    let state_path = w.state;
    let record_attrs = snap
        .attrs
        .as_ref()
        .map(|a| a.masked(undo::RECORD_MODE_MASK));
    undo::save_state_in(files, &beside, &state_path, &state, record_attrs.as_ref()).map_err(
        |e| match e {
            SettingsError::Io { error, .. } => SettingsError::UndoRecord {
                path: state_path.clone(),
                error,
                written: true,
            },
            other => other,
        },
    )?;
    Ok(AppliedFix {
        backup,
        state: state_path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_up_to_the_read_limit_is_allowed_one_byte_more_is_not() {
        let p = Path::new("/s.json");
        assert!(within_limit(p, 100, 100, false).is_ok());
        let e = within_limit(p, 101, 100, true).unwrap_err();
        assert!(matches!(
            e,
            SettingsError::ResultTooLarge {
                bytes: 101,
                limit: 100,
                undo: true,
                ..
            }
        ));
        assert!(within_read_limit(p, &"x".repeat(16 * 1024 * 1024), false).is_ok());
        let e = within_read_limit(p, &"x".repeat(16 * 1024 * 1024 + 1), false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/s.json: the fix would make it 16777217 bytes, over the 16 MiB mcplogs reads back, so `mcplogs fix --undo` could not undo it; nothing was changed"
        );
    }
}
