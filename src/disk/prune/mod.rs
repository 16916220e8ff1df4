//! `mcplogs prune`: gives the disk back. Claude Code never rotates its per-server MCP
//! logs or its debug logs; this deletes old ones, and only those that explain nothing.
//!
//! [`plan`] decides, [`execute`] deletes; all safety lives here, the command only asks.
//! Never deleted:
//! - the newest file of a server (Claude Code may still append to it);
//! - the file holding a server's deciding session, and every newer file of that server
//!   (so the verdict, its evidence and its "latest session only connected" note stay as
//!   they are: the scan decides from the newest files, and deleting only older ones
//!   cannot change what it picks);
//! - a file modified in the last [`IN_USE_SECS`] (a running Claude Code may write it),
//!   or dated in the future;
//! - anything outside a cache root (`claude-cli-nodejs`) or a `debug` folder, anything
//!   reached through a symlink (inside the tree nothing is followed, and before each
//!   deletion the folder is resolved again and must be where the plan found it);
//! - anything not named like Claude Code's logs: `<start time>.jsonl` or `.txt` (the
//!   old array format) directly inside an `mcp-logs-*` folder, `<session id>.txt`
//!   directly inside a debug folder;
//! - a file that changed since the plan (size, modification time, or identity).
//!
//! Debug logs (`~/.claude/debug/<session id>.txt`) are not read by the default scan, so
//! deleting them changes no verdict; the newest one is kept all the same.

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::logs::discovery::{self, DiscoveryError, Request};
use crate::scan::{ScanOptions, scan};
use crate::warning::Warning;

/// A file modified this recently may be in use: Claude Code appends as it runs.
pub const IN_USE_SECS: u64 = 10 * 60;

mod delete;
mod own_cache;
pub use delete::{NotDeleted, execute};

use crate::claude_code::paths::{
    self, CACHE_DIR_NAME, DEBUG_DIR_NAME, HOME_LAYOUTS, Os, debug_dir_in, debug_dir_of_home,
};

#[derive(Debug, Clone, Default)]
pub struct PruneOptions {
    /// Cache roots (or folders inside one) and debug folders; empty with no homes means
    /// this machine's default cache root and `~/.claude/debug`.
    pub paths: Vec<PathBuf>,
    pub homes: Vec<PathBuf>,
    /// Only files last modified longer ago than this.
    pub older_than: Option<Duration>,
    /// The cache folder of the summary index (see [`crate::scan::cache`]); `None` reads the
    /// files.
    pub index: Option<PathBuf>,
    /// mcplogs' own cache folder: its entries that describe logs this plan deletes, or
    /// logs already gone, go too (status line memos, hook told-lists, index files).
    /// `None`: it is not looked at.
    pub own_cache: Option<PathBuf>,
}

/// What an entry of mcplogs' own cache is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheKind {
    /// A status line memo (`statusline/<session>.json`).
    StatusMemo,
    /// A hook told-list (`hook-told/<session>`).
    HookTold,
    /// A summary index file (`index-v2/<hash>.json`, one a project folder).
    Index,
    /// Something else in those folders: a crash's temporary file, a link, a file this
    /// build cannot read.
    Leftover,
}

/// Why an entry of mcplogs' own cache goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheWhy {
    /// Its logs are among the files this plan deletes (the rest already gone).
    LogsPruned,
    /// Its logs are gone already (or it describes none).
    LogsGone,
}

/// One entry of mcplogs' own cache the plan removes.
#[derive(Debug, Clone)]
pub struct CacheEntry {
    pub path: PathBuf,
    pub bytes: u64,
    pub kind: CacheKind,
    pub why: CacheWhy,
    /// Its folder in the cache (`statusline`...) and its name there.
    folder: &'static str,
    name: std::ffi::OsString,
}

/// Where a file was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// An `mcp-logs-<server>` folder.
    ServerLogs,
    /// A Claude Code debug folder.
    DebugLogs,
}

/// One file the plan would delete, as it was when planned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub path: PathBuf,
    pub bytes: u64,
    modified: SystemTime,
    identity: Identity,
}

/// Files to delete from one folder.
#[derive(Debug, Clone)]
pub struct Group {
    pub kind: Kind,
    /// The project's path (from its records), else its encoded folder name; for debug
    /// logs, the debug folder's parent.
    pub project: String,
    /// The server's name as `scan` shows it (its configured name when known, else the
    /// encoded folder name), or `debug logs`.
    pub server: String,
    /// The folder, resolved (no symlinks).
    pub dir: PathBuf,
    pub files: Vec<Candidate>,
    pub bytes: u64,
    /// Files of this folder that are kept, and their size.
    pub kept_files: usize,
    pub kept_bytes: u64,
    /// The folder's identity when planned: deletion goes through a handle on the folder
    /// that must still be this one (Unix; elsewhere std has no handle-relative unlink).
    #[cfg_attr(not(unix), allow(dead_code))]
    dir_identity: Option<Identity>,
}

/// Why files are kept, counted over the whole plan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Kept {
    pub newest: usize,
    pub deciding: usize,
    pub in_use: usize,
    pub too_young: usize,
    pub foreign: usize,
}

#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Largest first.
    pub groups: Vec<Group>,
    pub files: usize,
    pub bytes: u64,
    pub kept: Kept,
    /// The roots that were searched, resolved.
    pub roots: Vec<PathBuf>,
    /// Entries of mcplogs' own cache that go with the logs (or whose logs are gone).
    pub cache: Vec<CacheEntry>,
    pub cache_bytes: u64,
    pub warnings: Vec<Warning>,
    /// mcplogs' own cache folder (`PruneOptions::own_cache`), for `execute`: its memos
    /// and told-lists, and the index's summaries of the deleted files.
    own_cache: Option<PathBuf>,
}

/// What deleting did.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub deleted: usize,
    pub bytes_freed: u64,
    /// Entries of mcplogs' own cache removed, and their bytes.
    pub cache_removed: usize,
    pub cache_bytes_freed: u64,
    /// Files left in place, with the reason (vanished, changed, permission denied...).
    pub skipped: Vec<Warning>,
}

#[derive(Debug)]
pub enum PruneError {
    /// A named path cannot be read.
    Discovery(DiscoveryError),
    /// A named path is not inside a Claude Code cache folder or a debug folder.
    NotACacheFolder(PathBuf),
}

impl std::fmt::Display for PruneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PruneError::Discovery(e) => e.fmt(f),
            PruneError::NotACacheFolder(p) => write!(
                f,
                "{}: not inside a Claude Code cache folder ({CACHE_DIR_NAME}) or a debug folder; prune deletes nothing elsewhere",
                p.display()
            ),
        }
    }
}

impl std::error::Error for PruneError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PruneError::Discovery(e) => Some(e),
            PruneError::NotACacheFolder(_) => None,
        }
    }
}

/// Finds what can go. Reads each server's newest files to find its deciding session
/// (as `scan` does), never a whole cache.
pub fn plan(opts: &PruneOptions, now: SystemTime) -> Result<Plan, PruneError> {
    let mut plan = Plan::default();
    let (cache_roots, debug_dirs) = roots(opts, &mut plan.warnings)?;
    let request = Request {
        homes: Vec::new(),
        paths: cache_roots.clone(),
    };
    // Per server folder: the deciding session's file, the project's real path, and the
    // server's name as scan shows it (its configured name when known: one display form
    // for `scan`, `du` and `prune`).
    let mut known: BTreeMap<PathBuf, (Option<PathBuf>, Option<String>, String)> = BTreeMap::new();
    let mut live_folders: Vec<PathBuf> = Vec::new();
    if !cache_roots.is_empty() {
        let report = scan(&ScanOptions {
            request: request.clone(),
            no_history: true,
            index: opts.index.clone(),
            skip_evidence: true,
            ..ScanOptions::default()
        })
        .map_err(PruneError::Discovery)?;
        for s in report.servers {
            let deciding = s.deciding_file.map(|f| (*f).clone());
            known.insert(s.source, (deciding, s.project, s.name));
        }
        let found = discovery::discover(&request).map_err(PruneError::Discovery)?;
        plan.warnings.extend(found.warnings);
        for dir in found.server_dirs {
            // A single named file stands for its folder in discovery: prune works on
            // folders only.
            if !dir.path.is_dir() {
                continue;
            }
            live_folders.push(dir.path.clone());
            let (deciding, project, name) = match known.get(&dir.path) {
                Some((d, p, n)) => (d.as_ref(), p.clone(), Some(n.clone())),
                None => (None, None, None),
            };
            let mut group = server_group(&dir, deciding, opts, now, &mut plan.kept);
            if let Some(g) = &mut group {
                if let Some(p) = project {
                    g.project = p;
                }
                if let Some(n) = name {
                    g.server = n;
                }
            }
            plan.push(group);
        }
    }
    for dir in &debug_dirs {
        let group = debug_group(dir, opts, now, &mut plan.kept, &mut plan.warnings);
        plan.push(group);
    }
    plan.roots = cache_roots.into_iter().chain(debug_dirs).collect();
    plan.groups
        .sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.dir.cmp(&b.dir)));
    plan.files = plan.groups.iter().map(|g| g.files.len()).sum();
    plan.bytes = plan.groups.iter().map(|g| g.bytes).sum();
    if let Some(dir) = &opts.own_cache {
        let deleting: HashSet<&Path> = plan
            .groups
            .iter()
            .flat_map(|g| g.files.iter().map(|c| c.path.as_path()))
            .collect();
        plan.cache = own_cache::plan(dir, &deleting, &live_folders, &mut plan.warnings);
        plan.cache_bytes = plan.cache.iter().map(|e| e.bytes).sum();
    }
    plan.own_cache = opts.own_cache.clone();
    plan.warnings = crate::warning::collapse(std::mem::take(&mut plan.warnings));
    Ok(plan)
}

impl Plan {
    fn push(&mut self, g: Option<Group>) {
        if let Some(g) = g
            && !g.files.is_empty()
        {
            self.groups.push(g);
        }
    }
}

/// The cache roots and debug folders to work on, resolved (symlinks in the named path
/// itself are the user's choice; nothing below is followed). The roots a home implies
/// (its cache layouts and `.claude/debug`) are confined as `scan` confines them
/// ([`discovery::confined_root`]): one that resolves outside its home (a copied home whose
/// `.cache/claude-cli-nodejs` or `.claude/debug` links to another user's folder) or to a
/// system folder is skipped with a warning, never pruned.
fn roots(
    opts: &PruneOptions,
    warnings: &mut Vec<Warning>,
) -> Result<(Vec<PathBuf>, Vec<PathBuf>), PruneError> {
    let mut cache = Vec::new();
    let mut debug = Vec::new();
    let mut add = |p: PathBuf, home: Option<&Path>, list: &mut Vec<PathBuf>| {
        if let Some(c) = discovery::confined_root(&p, home, warnings)
            && !list.contains(&c)
        {
            list.push(c);
        }
    };
    if opts.paths.is_empty() && opts.homes.is_empty() {
        let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
        if let Some(root) =
            paths::default_cache_root(Os::current(), home.as_deref(), &|k| std::env::var_os(k))
        {
            // As in `scan`: the home rule holds when the root was made from the home.
            let within = home.as_deref().filter(|h| root.starts_with(h));
            add(root, within, &mut cache);
        }
        if let Some(h) = &home {
            add(debug_dir_of_home(h), Some(h), &mut debug);
        }
        if let Some(dir) = paths::config_dir_override(&|k| std::env::var_os(k)) {
            add(debug_dir_in(&dir), Some(&dir), &mut debug);
        }
    }
    for home in &opts.homes {
        fs::metadata(home).map_err(|error| {
            PruneError::Discovery(DiscoveryError {
                path: home.clone(),
                error,
            })
        })?;
        for layout in HOME_LAYOUTS {
            add(
                layout.iter().fold(home.clone(), |p, c| p.join(c)),
                Some(home),
                &mut cache,
            );
        }
        add(debug_dir_of_home(home), Some(home), &mut debug);
    }
    for p in &opts.paths {
        let c = fs::canonicalize(p).map_err(|error| {
            PruneError::Discovery(DiscoveryError {
                path: p.clone(),
                error,
            })
        })?;
        if !c.is_dir() {
            return Err(PruneError::NotACacheFolder(p.clone()));
        }
        if c.file_name().is_some_and(|n| n == DEBUG_DIR_NAME) {
            add(c, None, &mut debug);
        } else if c.components().any(|x| x.as_os_str() == CACHE_DIR_NAME) {
            add(c, None, &mut cache);
        } else {
            return Err(PruneError::NotACacheFolder(p.clone()));
        }
    }
    Ok((cache, debug))
}

/// `2026-11-29T11-50-31-063Z.jsonl` (or `.txt`, the old array format).
pub fn is_server_log_name(name: &str) -> bool {
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    matches!(ext, "jsonl" | "txt")
        && stem.len() == 24
        && !stem.contains('.')
        && crate::time::file_name_time(stem).is_some()
        && stem.bytes().enumerate().all(|(i, b)| {
            matches!(
                (i, b),
                (4 | 7 | 13 | 16 | 19, b'-') | (10, b'T') | (23, b'Z')
            ) || b.is_ascii_digit()
        })
}

/// `<session id>.txt`: a UUID, as Claude Code names debug logs.
pub fn is_debug_log_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".txt") else {
        return false;
    };
    let b = stem.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    #[cfg(unix)]
    dev: u64,
    #[cfg(unix)]
    ino: u64,
}

fn identity(_m: &fs::Metadata) -> Identity {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Identity {
            dev: _m.dev(),
            ino: _m.ino(),
        }
    }
    #[cfg(not(unix))]
    {
        Identity {}
    }
}

/// Whether a file's age lets it go: not modified in the last [`IN_USE_SECS`] (nor in
/// the future), and older than `--older-than`.
enum Age {
    InUse,
    TooYoung,
    Old,
}

fn age(modified: SystemTime, now: SystemTime, older_than: Option<Duration>) -> Age {
    let Ok(elapsed) = now.duration_since(modified) else {
        return Age::InUse;
    };
    if elapsed < Duration::from_secs(IN_USE_SECS) {
        return Age::InUse;
    }
    match older_than {
        Some(min) if elapsed < min => Age::TooYoung,
        _ => Age::Old,
    }
}

fn server_group(
    dir: &discovery::ServerDir,
    deciding: Option<&PathBuf>,
    opts: &PruneOptions,
    now: SystemTime,
    kept: &mut Kept,
) -> Option<Group> {
    let mut group = Group {
        kind: Kind::ServerLogs,
        project: dir.project_folder.clone().unwrap_or_default(),
        server: dir.folder.clone(),
        dir: dir.path.clone(),
        files: Vec::new(),
        bytes: 0,
        kept_files: 0,
        kept_bytes: 0,
        dir_identity: fs::metadata(&dir.path).ok().map(|m| identity(&m)),
    };
    // Files sort by name = start time. The newest is kept, and so are the deciding
    // session's file and everything newer.
    let is_named = |f: &PathBuf| {
        f.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(is_server_log_name)
    };
    let files: Vec<PathBuf> = dir.files().collect();
    let newest = files.iter().rposition(is_named);
    let keep_from = deciding.and_then(|d| files.iter().position(|f| f == d));
    for (i, f) in files.iter().enumerate() {
        if !is_named(f) {
            kept.foreign += 1;
            continue;
        }
        let Ok(meta) = fs::symlink_metadata(f) else {
            continue;
        };
        if !meta.is_file() {
            kept.foreign += 1;
            continue;
        }
        let keep = if Some(i) == newest {
            kept.newest += 1;
            true
        } else if keep_from.is_some_and(|k| i >= k) {
            kept.deciding += 1;
            true
        } else {
            kept_for_age(&meta, now, opts.older_than, kept)
        };
        group.add(f.clone(), &meta, keep);
    }
    Some(group)
}

fn debug_group(
    dir: &Path,
    opts: &PruneOptions,
    now: SystemTime,
    kept: &mut Kept,
    warnings: &mut Vec<Warning>,
) -> Option<Group> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            warnings.push(Warning::new(dir, format!("cannot read folder: {e}")));
            return None;
        }
    };
    let mut logs: Vec<(PathBuf, fs::Metadata)> = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name();
        let Ok(t) = e.file_type() else { continue };
        // file_type() does not follow symlinks: `latest` links and the like stay.
        if !t.is_file() || !name.to_str().is_some_and(is_debug_log_name) {
            kept.foreign += 1;
            continue;
        }
        if let Ok(m) = fs::symlink_metadata(e.path()) {
            logs.push((e.path(), m));
        }
    }
    // Debug log names are session ids, not times: the newest is the last modified.
    logs.sort_by_key(|(p, m)| (m.modified().ok(), p.clone()));
    let mut group = Group {
        kind: Kind::DebugLogs,
        project: dir
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        server: "debug logs".to_string(),
        dir: dir.to_path_buf(),
        files: Vec::new(),
        bytes: 0,
        kept_files: 0,
        kept_bytes: 0,
        dir_identity: fs::metadata(dir).ok().map(|m| identity(&m)),
    };
    let n = logs.len();
    for (i, (p, m)) in logs.into_iter().enumerate() {
        let keep = if i + 1 == n {
            kept.newest += 1;
            true
        } else {
            kept_for_age(&m, now, opts.older_than, kept)
        };
        group.add(p, &m, keep);
    }
    Some(group)
}

/// Whether a file that is neither the newest nor a deciding one stays for its age
/// (in use, or younger than `--older-than`); counts it in `kept` when it does. A file
/// whose modification time cannot be read stays.
fn kept_for_age(
    meta: &fs::Metadata,
    now: SystemTime,
    older_than: Option<Duration>,
    kept: &mut Kept,
) -> bool {
    match meta.modified().map(|m| age(m, now, older_than)) {
        Ok(Age::Old) => false,
        Ok(Age::TooYoung) => {
            kept.too_young += 1;
            true
        }
        Ok(Age::InUse) | Err(_) => {
            kept.in_use += 1;
            true
        }
    }
}

impl Group {
    /// Counts a file of this folder: kept, or planned for deletion.
    fn add(&mut self, path: PathBuf, meta: &fs::Metadata, keep: bool) {
        match (keep, meta.modified()) {
            (false, Ok(modified)) => {
                self.bytes += meta.len();
                self.files.push(Candidate {
                    path,
                    bytes: meta.len(),
                    modified,
                    identity: identity(meta),
                });
            }
            _ => {
                self.kept_files += 1;
                self.kept_bytes += meta.len();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_like_claude_codes_logs() {
        assert!(is_server_log_name("2026-11-29T11-50-31-063Z.jsonl"));
        assert!(is_server_log_name("2026-11-29T11-50-31-063Z.txt"));
        assert!(!is_server_log_name("2026-11-29T11-50-31-063Z.jsonl.bak"));
        assert!(!is_server_log_name("notes.jsonl"));
        assert!(!is_server_log_name("2026-11-29T11-50-31-063Z.json"));
        assert!(!is_server_log_name("2026-11-29T11:50:31.063Z.jsonl"));
        assert!(is_debug_log_name(
            "b924bdfd-1234-4abc-8def-0123456789ab.txt"
        ));
        assert!(!is_debug_log_name("latest"));
        assert!(!is_debug_log_name(
            "b924bdfd-1234-4abc-8def-0123456789ab.txt.gz"
        ));
        assert!(!is_debug_log_name("my notes.txt"));
    }

    #[test]
    fn ages() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let ago = |s| now - Duration::from_secs(s);
        assert!(matches!(age(ago(60), now, None), Age::InUse));
        assert!(matches!(
            age(now + Duration::from_secs(5), now, None),
            Age::InUse
        ));
        assert!(matches!(age(ago(601), now, None), Age::Old));
        let week = Some(Duration::from_secs(7 * 86400));
        assert!(matches!(age(ago(86400), now, week), Age::TooYoung));
        assert!(matches!(age(ago(8 * 86400), now, week), Age::Old));
    }
}
