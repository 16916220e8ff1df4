//! Claude Code's settings files as they bear on `MCP_PROTOCOL_NEGOTIATION`: which layers
//! exist and which one decides ([`layers`], [`effective`]), whether Claude Code reads a
//! file at all ([`strictness`]), and the legacy fix done without losing data ([`edit`]
//! for the text, [`diff`] to show it, [`write`] for the backup and the atomic write,
//! [`fix`] and [`undo`] to plan and apply).
//!
//! Like the rest of the library this never prints and never asks: the binary shows the
//! diff, asks for confirmation, then calls `apply_*`.

pub mod diff;
pub mod edit;
pub mod effective;
pub mod fix;
pub mod layers;
pub mod render;
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
    /// The settings file was written but the undo record could not be saved or removed.
    UndoRecord {
        path: PathBuf,
        error: std::io::Error,
        written: bool,
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
}

impl SettingsError {
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
            SettingsError::BadUndoState { path, problem } => {
                write!(f, "undo state {}: {problem}", path.display())
            }
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
            | SettingsError::ChangedSinceRead { .. } => None,
        }
    }
}
