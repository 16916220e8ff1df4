//! What `mcplogs fix` would do for one server, as the resolution found it
//! (`resolve::fixes`): every change a file can make for it (the fix engine's, and the
//! legacy setting), each planned, in place, not offered on this build or refused, and
//! what only the user can do. Every command renders this one answer.

use crate::settings::engine::{Change, FixCause};

/// A server's fixes (`ServerReport::fix`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerFix {
    /// The command that makes the planned changes (`mcplogs fix`, with the scan's
    /// `--home` folders). Shared by every server of a scan (each of 100,000 servers
    /// holding its own copy of both commands was megabytes).
    pub command: std::sync::Arc<str>,
    /// The scan that checks it after a restart (`mcplogs scan --since 10m`, with the
    /// same `--home` folders).
    pub verify: std::sync::Arc<str>,
    /// The homes scanned (`--home`; empty: this machine's), shared as the commands are:
    /// every other command the server's advice prints carries them too.
    pub homes: std::sync::Arc<[std::path::PathBuf]>,
    pub changes: Vec<FixChange>,
    /// What only the user can do (sign in, a server-side change, a key to rename...), one
    /// sentence each.
    pub steps: Vec<String>,
}

impl ServerFix {
    /// `mcplogs fix` writes a change for it.
    pub fn fixable(&self) -> bool {
        self.changes.iter().any(|c| c.state == FixState::Planned)
    }

    /// Nothing to plan, and a change found made already: restart Claude Code to check.
    pub fn in_place(&self) -> bool {
        !self.fixable() && self.changes.iter().any(|c| c.state == FixState::InPlace)
    }

    /// The first change in `state`'s kind, besides the legacy setting (which every
    /// screen words on its own, from the server's settings advice).
    pub fn engine_change(&self, pick: fn(&FixState) -> bool) -> Option<&FixChange> {
        self.changes
            .iter()
            .find(|c| c.cause != FixCause::Negotiation && pick(&c.state))
    }
}

/// One change for one server.
#[derive(Debug, Clone, PartialEq)]
pub struct FixChange {
    pub cause: FixCause,
    /// Why, in one sentence; for a change in place, what the configuration holds now.
    pub why: String,
    /// The declared change (file, layer, key, value or move); `None` for one found in
    /// place, which `why` describes.
    pub change: Option<Change>,
    pub state: FixState,
}

/// Whether `mcplogs fix` makes a change.
#[derive(Debug, Clone, PartialEq)]
pub enum FixState {
    /// `mcplogs fix` plans it.
    Planned,
    /// Made already (the failing log is older than it): restart Claude Code to check.
    InPlace,
    /// Claude Code's build here is outside the builds it was observed to work on:
    /// never written.
    NotOffered {
        /// The build here.
        build: String,
        /// `2.1.287 to 2.1.336`.
        observed: String,
    },
    /// Its file cannot be written (not a regular file, comments, not JSON; a managed
    /// file decides): why.
    Refused { why: String },
}

impl FixState {
    /// The name in JSON.
    pub fn as_str(&self) -> &'static str {
        match self {
            FixState::Planned => "planned",
            FixState::InPlace => "in-place",
            FixState::NotOffered { .. } => "not-offered",
            FixState::Refused { .. } => "refused",
        }
    }
}
