//! Paths known to be missing, for the length of one resolution on one thread.
//!
//! A scan resolves every project it logged: its settings layers, `.mcp.json`, the user's
//! and the managed settings, each looked up by several steps (the configuration, the
//! settings advice, the fixes). On 100,000 server folders whose projects are gone that was
//! over a hundred thousand failed `stat`s of files in folders that do not exist. Inside a
//! [`scope`], a file found missing is remembered, and so is the highest missing folder
//! above it (each folder looked up once), so no file under it is looked up again:
//! [`crate::safe_read::read_regular`] answers "absent" for it at once. Only absence is
//! remembered, never what a file holds; outside a scope nothing changes.

use std::cell::RefCell;
use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

#[derive(Default)]
struct Memo {
    /// Files and folders found missing.
    gone: HashSet<PathBuf>,
    /// Folders found there.
    present: HashSet<PathBuf>,
    /// Look-ups answered from `gone` (tests).
    skipped: u64,
}

thread_local! {
    static MEMO: RefCell<Option<Memo>> = const { RefCell::new(None) };
}

/// While it lives, missing paths are remembered on this thread (a scope opened inside
/// another one shares it).
#[must_use]
pub struct Scope {
    owner: bool,
}

/// Opens a scope (see the module's documentation).
pub fn scope() -> Scope {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.is_some() {
            Scope { owner: false }
        } else {
            *m = Some(Memo::default());
            Scope { owner: true }
        }
    })
}

impl Scope {
    /// How many look-ups were answered without touching the disk so far.
    pub fn skipped(&self) -> u64 {
        MEMO.with(|m| m.borrow().as_ref().map_or(0, |m| m.skipped))
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        if self.owner {
            MEMO.with(|m| *m.borrow_mut() = None);
        }
    }
}

/// Whether `path`, or a folder above it, was found missing in this thread's scope.
pub fn known_gone(path: &Path) -> bool {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let Some(m) = m.as_mut() else {
            return false;
        };
        let gone = !m.gone.is_empty() && path.ancestors().any(|a| m.gone.contains(a));
        m.skipped += u64::from(gone);
        gone
    })
}

/// `path` was looked up and found missing: remembered (in a scope), with the highest
/// missing folder above it, each folder looked up once a scope.
pub fn note_gone(path: &Path) {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let Some(m) = m.as_mut() else {
            return;
        };
        m.gone.insert(path.to_path_buf());
        let mut dir = path.parent();
        while let Some(d) = dir {
            if d.as_os_str().is_empty() || m.present.contains(d) || m.gone.contains(d) {
                break;
            }
            match std::fs::metadata(d) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    m.gone.insert(d.to_path_buf());
                    dir = d.parent();
                }
                _ => {
                    m.present.insert(d.to_path_buf());
                    break;
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gone_folder_is_looked_up_once_and_nothing_under_it_again() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("gone").join("project");
        let file = |name: &str| project.join(".claude").join(name);
        // Outside a scope nothing is remembered.
        note_gone(&file("settings.json"));
        assert!(!known_gone(&file("settings.json")));
        let scope = scope();
        assert!(!known_gone(&file("settings.json")));
        note_gone(&file("settings.json"));
        for name in ["settings.json", "settings.local.json"] {
            assert!(known_gone(&file(name)), "{name}");
        }
        assert!(known_gone(&project.join(".mcp.json")));
        assert_eq!(scope.skipped(), 3);
        // The folder that is there is not: a file made in it is found.
        assert!(!known_gone(&tmp.path().join("here.json")));
        drop(scope);
        assert!(!known_gone(&project.join(".mcp.json")));
    }
}
