//! mcplogs' own cache goes with the logs it describes: a status line memo names the log
//! files it read, a hook told-list belongs to its session's memo, an index file names its
//! project folder. An entry whose logs are all deleted by the plan, or already gone, is
//! planned for removal (listed with the plan), and removed after the logs, once checked
//! again.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::{CacheEntry, CacheKind, CacheWhy, Outcome, Plan};
use crate::scan::cache as index;
use crate::status::{self, MEMO_DIR, MEMO_MAX_BYTES, TOLD_DIR};
use crate::store::{Folder, Store};
use crate::warning::Warning;

/// Why a memo's logs let it go, or `None` when one of them stays.
fn memo_why(logs: &[PathBuf], deleting: &HashSet<&Path>) -> Option<CacheWhy> {
    let mut pruned = false;
    for l in logs {
        // The plan's paths are resolved; a memo's are as the status line found them.
        let resolved = std::fs::canonicalize(l).ok();
        if deleting.contains(l.as_path())
            || resolved.as_deref().is_some_and(|r| deleting.contains(r))
        {
            pruned = true;
        } else if std::fs::symlink_metadata(l).is_ok() {
            return None;
        }
    }
    Some(if pruned {
        CacheWhy::LogsPruned
    } else {
        CacheWhy::LogsGone
    })
}

fn entry(
    folder: &Folder,
    e: &crate::store::Entry,
    name: &'static str,
    kind: CacheKind,
    why: CacheWhy,
) -> CacheEntry {
    CacheEntry {
        path: folder.path().join(&e.name),
        bytes: e.bytes,
        kind,
        why,
        folder: name,
        name: e.name.clone(),
    }
}

/// The memo's logs, `None` when it is no memo this build reads.
fn memo_logs(folder: &Folder, name: &OsStr) -> Option<Vec<PathBuf>> {
    let bytes = folder.read(name.to_str()?, MEMO_MAX_BYTES as u64).ok()??;
    status::memo_logs(&bytes)
}

/// The entries of mcplogs' cache at `dir` that go: memos whose logs are all in
/// `deleting` or gone, the told-lists of sessions whose memo goes (or has none), index
/// files of project folders that are gone (`live` server folders exist), and leftovers
/// (a temporary file older than a day, a link, a memo this build cannot read, an index
/// file of the first layout). A cache folder that is
/// refused (someone else's, open to others) is a warning, and nothing in it is touched.
pub(super) fn plan(
    dir: &Path,
    deleting: &HashSet<&Path>,
    live: &[PathBuf],
    warnings: &mut Vec<Warning>,
) -> Vec<CacheEntry> {
    let store = match Store::open_existing(dir) {
        Ok(Some(s)) => s,
        Ok(None) => return Vec::new(),
        Err(e) => {
            if e.is_refusal() {
                warnings.push(Warning::new(&e.path, e.problem.to_string()));
            }
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    let folder = |name: &str, warnings: &mut Vec<Warning>| match store.existing_folder(name) {
        Ok(f) => f,
        Err(e) => {
            if e.is_refusal() {
                warnings.push(Warning::new(&e.path, e.problem.to_string()));
            }
            None
        }
    };
    // Sessions whose memo stays: their told-lists stay too.
    let mut kept_sessions: HashSet<String> = HashSet::new();
    let mut memo_gone: std::collections::HashMap<String, CacheWhy> = Default::default();
    if let Some(memos) = folder(MEMO_DIR, warnings) {
        for e in memos.entries().unwrap_or_default() {
            let name = e.name.to_string_lossy().into_owned();
            let temp = crate::store::is_temp_name(&name);
            let (kind, why) = if !e.regular {
                // A link (removed, never followed), a FIFO: not mcplogs' own.
                (CacheKind::Leftover, e.is_link.then_some(CacheWhy::LogsGone))
            } else if temp {
                let old = index::older_than_a_day(&e);
                (CacheKind::Leftover, old.then_some(CacheWhy::LogsGone))
            } else if !status::is_our_entry(&name, true) {
                continue;
            } else {
                match memo_logs(&memos, &e.name) {
                    Some(logs) => (CacheKind::StatusMemo, memo_why(&logs, deleting)),
                    // Not a memo this build reads: left alone (the bound on memos
                    // pushes it out in time).
                    None => (CacheKind::Leftover, None),
                }
            };
            let session = status::session_of_entry(&name).to_string();
            match why {
                Some(why) => {
                    if !temp {
                        memo_gone.insert(session, why);
                    }
                    out.push(entry(&memos, &e, MEMO_DIR, kind, why));
                }
                None if !temp => {
                    kept_sessions.insert(session);
                }
                None => {}
            }
        }
    }
    if let Some(told) = folder(TOLD_DIR, warnings) {
        for e in told.entries().unwrap_or_default() {
            let name = e.name.to_string_lossy().into_owned();
            let temp = crate::store::is_temp_name(&name);
            let why = if !e.regular {
                e.is_link.then_some(CacheWhy::LogsGone)
            } else if temp {
                index::older_than_a_day(&e).then_some(CacheWhy::LogsGone)
            } else if !status::is_our_entry(&name, false) || kept_sessions.contains(&name) {
                // Not a name mcplogs gives, or its session's memo stays.
                None
            } else {
                Some(memo_gone.get(&name).copied().unwrap_or(CacheWhy::LogsGone))
            };
            if let Some(why) = why {
                let kind = if e.regular && !temp {
                    CacheKind::HookTold
                } else {
                    CacheKind::Leftover
                };
                out.push(entry(&told, &e, TOLD_DIR, kind, why));
            }
        }
    }
    if let Some(ix) = folder(index::SUBDIR, warnings) {
        for e in index::stale_entries(&ix, live) {
            let kind = if crate::store::is_temp_name(&e.name.to_string_lossy()) {
                CacheKind::Leftover
            } else {
                CacheKind::Index
            };
            out.push(entry(&ix, &e, index::SUBDIR, kind, CacheWhy::LogsGone));
        }
    }
    // The first layout's index files (one a server folder): never read by this build.
    if let Some((old, entries)) = index::old_format_entries(&store) {
        for e in entries.into_iter().filter(|e| e.regular || e.is_link) {
            out.push(entry(
                &old,
                &e,
                index::OLD_SUBDIR,
                CacheKind::Leftover,
                CacheWhy::LogsGone,
            ));
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Removes the plan's cache entries after its logs went, each checked again: a memo is
/// removed only when its logs (as it names them now: a status line may have written it
/// since) are all gone; a told-list only when its session's memo is gone. What stays is
/// reported in `out.skipped`.
pub(super) fn execute(plan: &Plan, dir: Option<&Path>, out: &mut Outcome) {
    let Some(dir) = dir.filter(|_| !plan.cache.is_empty()) else {
        return;
    };
    let Ok(Some(store)) = Store::open_existing(dir) else {
        return;
    };
    let none = HashSet::new();
    let order = |e: &&CacheEntry| e.folder == TOLD_DIR;
    let (told, rest): (Vec<&CacheEntry>, Vec<&CacheEntry>) = plan.cache.iter().partition(order);
    for e in rest.into_iter().chain(told) {
        let Ok(Some(folder)) = store.existing_folder(e.folder) else {
            continue;
        };
        let still = match e.kind {
            CacheKind::StatusMemo => {
                memo_logs(&folder, &e.name).is_none_or(|logs| memo_why(&logs, &none).is_some())
            }
            CacheKind::HookTold => {
                let memo = format!("{}.json", e.name.to_string_lossy());
                store
                    .existing_folder(MEMO_DIR)
                    .ok()
                    .flatten()
                    .is_none_or(|m| !m.path().join(memo).exists())
            }
            CacheKind::Index | CacheKind::Leftover => true,
        };
        if !still {
            out.skipped.push(Warning::new(
                &e.path,
                "kept: it describes logs that are still there (written again since the plan)",
            ));
            continue;
        }
        if let Ok(true) = folder.remove(&e.name) {
            out.cache_removed += 1;
            out.cache_bytes_freed += e.bytes;
        }
    }
}
