//! Claude Code's settings files as they bear on `MCP_PROTOCOL_NEGOTIATION`: which layers
//! exist and which one decides ([`layers`], [`effective`]), whether Claude Code reads a
//! file at all ([`strictness`]), and the legacy fix done without losing data ([`edit`]
//! for the text, [`diff`] to show it, [`mod@write`] for the backup and the atomic write,
//! [`fix`] and [`undo`] to plan and apply).
//!
//! Like the rest of the library this never prints and never asks: the binary shows the
//! diff, asks for confirmation, then calls `apply_*`.

pub mod binary;
pub mod ca;
pub mod diff;
pub mod edit;
pub mod effective;
pub mod engine;
pub mod env;
pub mod fix;
pub mod json;
pub mod layers;
pub mod setup;
pub mod strictness;
pub mod target;
pub mod undo;
pub mod write;

use std::fmt;
use std::path::{Path, PathBuf};

pub use effective::{EffectiveNegotiation, effective_negotiation};
pub use layers::{LayerKind, LayerStatus, SettingsLayer, Sources};

/// The variable the legacy fix sets, inside the settings' `env` object.
pub const NEGOTIATION_KEY: &str = "MCP_PROTOCOL_NEGOTIATION";
/// The value that turns the modern-era probe off.
pub const LEGACY: &str = "legacy";

/// A value of `MCP_PROTOCOL_NEGOTIATION`. Claude Code accepts only `auto` and `legacy`;
/// anything else is kept verbatim so the user sees what they wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NegotiationValue {
    Legacy,
    Auto,
    /// Not a value Claude Code accepts (or not a string: shown as its JSON text).
    Unrecognised(String),
}

impl NegotiationValue {
    pub fn from_text(s: &str) -> Self {
        match s {
            "legacy" => NegotiationValue::Legacy,
            "auto" => NegotiationValue::Auto,
            other => NegotiationValue::Unrecognised(other.to_string()),
        }
    }

    pub fn from_json(v: &serde_json::Value) -> Self {
        match v {
            serde_json::Value::String(s) => Self::from_text(s),
            other => NegotiationValue::Unrecognised(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            NegotiationValue::Legacy => "legacy",
            NegotiationValue::Auto => "auto",
            NegotiationValue::Unrecognised(s) => s,
        }
    }

    pub fn is_legacy(&self) -> bool {
        *self == NegotiationValue::Legacy
    }
}

impl fmt::Display for NegotiationValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where in a file the first problem is (1-based, as editors count).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextProblem {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for TextProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

/// Everything that stops a fix or an undo. Each message says what was left untouched.
#[derive(Debug)]
pub enum SettingsError {
    /// Reading, creating or renaming failed.
    Io {
        path: PathBuf,
        action: &'static str,
        error: std::io::Error,
    },
    /// JSON5 but not strict JSON: Claude Code ignores the whole file.
    NotStrict {
        path: PathBuf,
        problem: TextProblem,
        env_keys: Vec<String>,
    },
    /// Not even JSON5.
    Invalid { path: PathBuf, problem: TextProblem },
    /// Parses, but the edit cannot be made without guessing (`env` is not an object...).
    CannotEdit {
        path: PathBuf,
        problem: edit::EditError,
    },
    /// Undo: the file changed since the fix and is no longer strict JSON, so the key
    /// cannot be put back by a minimal edit.
    NoLongerStrict {
        path: PathBuf,
        problem: TextProblem,
        /// The backup holding the file as it was before the fix, if there is one.
        backup: Option<PathBuf>,
    },
    /// The file changed between mcplogs reading it and writing it.
    ChangedSinceRead { path: PathBuf },
    /// Not a regular file (a FIFO, a device, a folder, a symlink loop) or too large:
    /// never read for long, never written.
    NotRegular { path: PathBuf, reason: String },
    /// More than one name: replacing it would split the hard links silently.
    HardLinked { path: PathBuf, links: u64 },
    /// A file of a project (its `.mcp.json`, `.claude/settings.json`,
    /// `.claude/settings.local.json`) that is a symbolic link, or lies in a folder of the
    /// project that is one: a cloned repository would choose which file of the user's
    /// the fix rewrites. Never read for writing, never written through.
    ProjectLink {
        path: PathBuf,
        /// The link: `path` itself or a folder between the project and it.
        link: PathBuf,
        /// What the link says it points to (as written in it).
        to: PathBuf,
        /// The project folder.
        project: PathBuf,
    },
    /// What the edit would write is larger than mcplogs reads back
    /// ([`crate::safe_read::SETTINGS_MAX_BYTES`]): written, it could not be undone.
    ResultTooLarge {
        path: PathBuf,
        /// The size the edit would write.
        bytes: u64,
        limit: u64,
        /// Refused by `fix --undo` (putting the key back), not by `fix`.
        undo: bool,
    },
    /// Two other writers raced the swap; every file is kept, `left` holds one of them.
    RaceLeftFile { path: PathBuf, left: PathBuf },
    /// The settings file was written but the undo record could not be saved or removed.
    UndoRecord {
        path: PathBuf,
        error: std::io::Error,
        written: bool,
    },
    /// Undo of a fix-engine change: the user changed a key mcplogs set since the fix.
    KeyChangedSince {
        path: PathBuf,
        /// The key path, dotted.
        key: String,
        /// Its value now, as JSON (`None`: absent).
        now: Option<String>,
        /// What mcplogs wrote there.
        written: String,
    },
    /// Undo: the settings path (a symbolic link) leads to another file than the one the
    /// fix wrote (the link was pointed elsewhere since): undoing through it would edit a
    /// file mcplogs never changed. Nothing is changed; the backup and the record stay.
    Relinked {
        path: PathBuf,
        /// The file the fix wrote (the record's `writtenPath`).
        written: PathBuf,
        /// The file the path leads to now.
        now: PathBuf,
    },
    /// An undo state file exists but cannot be used.
    BadUndoState {
        path: PathBuf,
        problem: UndoStateProblem,
    },
}

/// Why an undo record cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum UndoStateProblem {
    /// Not the JSON mcplogs writes.
    #[error("{0}")]
    Unreadable(#[source] serde_json::Error),
    /// Written by another version of mcplogs.
    #[error("version {0} is not one this mcplogs knows")]
    UnknownVersion(u32),
    /// The record names a backup that is not there.
    #[error("its backup {} is missing", .0.display())]
    MissingBackup(PathBuf),
    /// A record of an older or newer format, which this mcplogs cannot check.
    #[error(
        "version {version} was written by another mcplogs and is not one this one can check; restore {} by hand if you need it",
        .backup.display()
    )]
    OtherVersion { version: u64, backup: PathBuf },
    /// The record (or backup) is not a regular file, too large, or unreadable.
    #[error("{0}; refusing to use it")]
    CannotRead(#[source] crate::safe_read::ReadError),
    /// Owned by someone other than the settings file's owner.
    #[error(
        "it is owned by uid {uid}, not by the settings file's owner (uid {owner}); refusing to use it"
    )]
    WrongOwner { uid: u32, owner: u32 },
    /// Group or others may write it.
    #[error("others can write it (mode {mode:04o}); refusing to use it")]
    WritableByOthers { mode: u32 },
    /// The record is of another settings file.
    #[error(
        "it records a fix of {}, not of {}; refusing to use it",
        .recorded.display(),
        .settings.display()
    )]
    OtherSettings {
        recorded: PathBuf,
        settings: PathBuf,
    },
    /// The record names a backup other than the sibling mcplogs writes.
    #[error(
        "it names the backup {}, not {} where mcplogs writes it; refusing to use it",
        .named.display(),
        .sibling.display()
    )]
    NotSibling { named: PathBuf, sibling: PathBuf },
    /// The record holds no checksum of the backup.
    #[error("it records no checksum of the backup")]
    NoChecksum,
    /// The backup cannot be used (see `problem`).
    #[error("its backup {}: {problem}", .backup.display())]
    Backup {
        backup: PathBuf,
        #[source]
        problem: Box<UndoStateProblem>,
    },
    /// The backup's SHA-256 is not the recorded one.
    #[error(
        "its backup {} is not what mcplogs saved (checksum differs: it was emptied or edited since); nothing was restored",
        .0.display()
    )]
    BackupChanged(PathBuf),
}

impl SettingsError {
    /// What the user can do about it, as a sentence to follow the error (empty when
    /// the error says it): for a JSON5 file, the way to a file `fix` edits.
    pub fn hint(&self) -> &'static str {
        match self {
            SettingsError::NotStrict { .. } => {
                ". mcplogs will not edit it as it is: remove the comments and trailing commas by hand, or run `mcplogs fix --rewrite-strict` to convert it to strict JSON (the diff shows what is dropped)"
            }
            _ => "",
        }
    }

    pub(crate) fn io(path: &Path, action: &'static str, error: std::io::Error) -> Self {
        SettingsError::Io {
            path: path.to_path_buf(),
            action,
            error,
        }
    }
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingsError::Io {
                path,
                action,
                error,
            } => write!(
                f,
                "cannot {action} {}: {error}; the settings file was not changed",
                path.display()
            ),
            SettingsError::NotStrict {
                path,
                problem,
                env_keys,
            } => {
                write!(
                    f,
                    "{} is not strict JSON ({problem}), so Claude Code ignores the whole file",
                    path.display()
                )?;
                if !env_keys.is_empty() {
                    write!(
                        f,
                        "; its env keys are not in effect: {}",
                        env_keys.join(", ")
                    )?;
                }
                Ok(())
            }
            SettingsError::Invalid { path, problem } => write!(
                f,
                "{} is not valid JSON or JSON5 ({problem}); mcplogs will not touch it: repair it by hand first",
                path.display()
            ),
            SettingsError::CannotEdit { path, problem } => {
                write!(f, "{}: {problem}; the file was not changed", path.display())
            }
            SettingsError::NoLongerStrict {
                path,
                problem,
                backup,
            } => {
                write!(
                    f,
                    "{}: changed since mcplogs' fix and is no longer strict JSON ({problem}); put env.{NEGOTIATION_KEY} back by hand",
                    path.display()
                )?;
                if let Some(b) = backup {
                    write!(f, " (the file before the fix is in {})", b.display())?;
                }
                f.write_str("; the file was not changed")
            }
            SettingsError::ChangedSinceRead { path } => write!(
                f,
                "{} changed while mcplogs was working (Claude Code rewrites it on its own); nothing was written: run the command again",
                path.display()
            ),
            SettingsError::NotRegular { path, reason } => write!(
                f,
                "{}: {reason}; mcplogs writes only regular files: nothing was changed",
                path.display()
            ),
            SettingsError::HardLinked { path, links } => write!(
                f,
                "{} has {links} hard links; replacing it would leave the other names with the old content, so mcplogs does not edit hard-linked settings files and nothing was changed: make the change by hand, or replace the extra links with symlinks",
                path.display()
            ),
            SettingsError::ProjectLink {
                path,
                link,
                to,
                project,
            } => {
                if link == path {
                    write!(
                        f,
                        "{} is a symbolic link (to {})",
                        path.display(),
                        to.display()
                    )?;
                } else {
                    write!(
                        f,
                        "{} lies in {}, a symbolic link (to {})",
                        path.display(),
                        link.display(),
                        to.display()
                    )?;
                }
                write!(
                    f,
                    " inside the project {}; mcplogs writes no file of a project through a link (a cloned repository could point it at any file of yours): nothing was changed. Replace the link with the file or folder itself, or make the change by hand",
                    project.display()
                )
            }
            SettingsError::ResultTooLarge {
                path,
                bytes,
                limit,
                undo,
            } => write!(
                f,
                "{}: {} would make it {bytes} bytes, over the {} MiB mcplogs reads back{}; nothing was changed",
                path.display(),
                if *undo { "undoing the fix" } else { "the fix" },
                limit / (1024 * 1024),
                if *undo {
                    ""
                } else {
                    ", so `mcplogs fix --undo` could not undo it"
                }
            ),
            SettingsError::RaceLeftFile { path, left } => write!(
                f,
                "{} was replaced by other programs several times while mcplogs wrote it; nothing was lost, but {} holds a copy that was swapped out: compare the two by hand",
                path.display(),
                left.display()
            ),
            SettingsError::UndoRecord {
                path,
                error,
                written,
            } => write!(
                f,
                "the settings file was {}, but the undo record {} could not be updated: {error}",
                if *written { "written" } else { "restored" },
                path.display()
            ),
            SettingsError::KeyChangedSince {
                path,
                key,
                now,
                written,
            } => write!(
                f,
                "{key} in {} is now {}, not the {written} mcplogs set: leaving that change alone (--force puts back what was there before the fix)",
                path.display(),
                now.as_deref().unwrap_or("absent")
            ),
            SettingsError::BadUndoState { path, problem } => {
                write!(f, "undo state {}: {problem}", path.display())
            }
            SettingsError::Relinked { path, written, now } => write!(
                f,
                "{} now leads to {}, not to {}, the file the fix changed: undoing through it would edit a file mcplogs never wrote. Point it back to {} and run the undo again, or put back {} by hand",
                path.display(),
                now.display(),
                written.display(),
                written.display(),
                written.display()
            ),
        }
    }
}

impl std::error::Error for SettingsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SettingsError::Io { error, .. } | SettingsError::UndoRecord { error, .. } => {
                Some(error)
            }
            SettingsError::CannotEdit { problem, .. } => Some(problem),
            SettingsError::BadUndoState { problem, .. } => Some(problem),
            SettingsError::NotStrict { .. }
            | SettingsError::Invalid { .. }
            | SettingsError::NoLongerStrict { .. }
            | SettingsError::ChangedSinceRead { .. }
            | SettingsError::NotRegular { .. }
            | SettingsError::HardLinked { .. }
            | SettingsError::ProjectLink { .. }
            | SettingsError::Relinked { .. }
            | SettingsError::ResultTooLarge { .. }
            | SettingsError::KeyChangedSince { .. }
            | SettingsError::RaceLeftFile { .. } => None,
        }
    }
}
