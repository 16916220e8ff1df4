//! The summary index: what a scan learned from each log file, kept under the user's cache
//! folder so the next scan need not read an unchanged file again.
//!
//! One index file per server log folder (`<cache>/index-v1/<sha256 of the folder>.json`),
//! holding, per log file, the file's identity when it was read and the summary of each of
//! its sessions: the verdict, cause, era, negotiated protocol, filled-in fields, the bad
//! tool's path, the capabilities object, the tools proof, the first and last timestamps
//! and the working directory, plus the file's damage summary. No log message is stored:
//! evidence records are never cached (the scan reads the deciding file again when it
//! shows evidence).
//!
//! A summary replaces reading a file only when the file's key matches exactly: its name
//! in the folder, size, modification time and, on Unix, inode, device and status-change
//! time (which any write, truncation or `touch` moves and no user can set back). A
//! summary is stored only for a file whose times lie [`SETTLE_SECS`] before the read
//! began and whose key did not change while it was read, so a write after the read
//! always changes the key (the "racily clean" problem of git's index). An index file
//! that is corrupt, too large, written by another build of mcplogs, or for another folder
//! is ignored and rewritten. Writes are atomic (a temporary file renamed over the old one),
//! with permissions 0600 in a 0700 folder on Unix; failing to write is not an error
//! (the next scan reads the files again).

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::classify::verdict::{Cause, Diagnosis, Era, ToolsProof, Transport, Verdict};
use crate::logs::session::SessionLog;
use crate::store::{self, Folder, Store, StoreError};

/// Overrides where the index lives (tests, or a user who wants it elsewhere).
pub const ENV_CACHE_DIR: &str = "MCPLOGS_CACHE_DIR";

/// The layout version: a change to what is stored bumps it (and the folder name).
const FORMAT: u32 = 2;
/// The index's folder in mcplogs' cache: one index file per project folder.
pub const SUBDIR: &str = "index-v2";
/// The first layout's folder (one index file per server log folder): never read, its
/// files go with `prune`.
pub const OLD_SUBDIR: &str = "index-v1";

/// A file modified (or whose status changed) less than this before the read began is
/// not summarised: a write within the timestamp granularity of some file systems (FAT
/// keeps 2 s) could otherwise leave the key unchanged.
pub const SETTLE_SECS: u64 = 3;

/// An index file larger than this is ignored (a folder of thousands of files needs
/// about a megabyte).
const MAX_INDEX_BYTES: u64 = 64 << 20;

/// The cache folder: `$MCPLOGS_CACHE_DIR`, else this OS's cache folder for mcplogs
/// (`~/.cache/mcplogs` on Linux, `~/Library/Caches/mcplogs` on macOS,
/// `%LOCALAPPDATA%\mcplogs\cache` on Windows). `None` when neither is known.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os(ENV_CACHE_DIR).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    directories::ProjectDirs::from("", "", "mcplogs").map(|p| p.cache_dir().to_path_buf())
}

/// Which build wrote an index: the package version and the running program's size and
/// modification time, so a rebuilt or upgraded mcplogs (whose classifier may decide
/// differently) never trusts summaries written by another. `None` when the program
/// cannot be found; the index is then not used.
fn build_id() -> Option<&'static str> {
    static ID: OnceLock<Option<String>> = OnceLock::new();
    ID.get_or_init(|| {
        let exe = std::env::current_exe().ok()?;
        let meta = fs::metadata(exe).ok()?;
        let t = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
        Some(format!(
            "{}+{}-{}.{}",
            env!("CARGO_PKG_VERSION"),
            meta.len(),
            t.as_secs(),
            t.subsec_nanos()
        ))
    })
    .as_deref()
}

/// A file's identity as stored in the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Key {
    len: u64,
    mtime: (i64, u32),
    /// Status-change time, inode and device (zero where the OS has none in std).
    ctime: (i64, u32),
    ino: u64,
    dev: u64,
}

impl Key {
    /// The key of `path` now (following a symbolic link, as opening it does).
    pub fn of(path: &Path) -> Option<Key> {
        let m = fs::metadata(path).ok()?;
        if !m.is_file() {
            return None;
        }
        let mtime = split(m.modified().ok()?);
        #[cfg(unix)]
        let (ctime, ino, dev) = {
            use std::os::unix::fs::MetadataExt;
            ((m.ctime(), m.ctime_nsec() as u32), m.ino(), m.dev())
        };
        #[cfg(not(unix))]
        let (ctime, ino, dev) = ((0, 0), 0, 0);
        Some(Key {
            len: m.len(),
            mtime,
            ctime,
            ino,
            dev,
        })
    }

    /// Whether the file was last written at least [`SETTLE_SECS`] before `began`: a
    /// write after that sets a modification time that differs from the stored one. (The
    /// status-change time is only compared: it cannot be set back, so it catches a
    /// write whose modification time was then restored, but it moves with `touch` too.)
    fn settled_before(&self, began: SystemTime) -> bool {
        let (secs, _) = split(began);
        self.mtime.0 < secs - SETTLE_SECS as i64
    }
}

fn split(t: SystemTime) -> (i64, u32) {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(e) => {
            let d = e.duration();
            // Before the epoch: whole seconds down, nanoseconds up.
            let (s, n) = (d.as_secs() as i64, d.subsec_nanos());
            if n == 0 {
                (-s, 0)
            } else {
                (-s - 1, 1_000_000_000 - n)
            }
        }
    }
}

/// What was known about a file before reading it: its key and when the read began.
#[derive(Debug, Clone, Copy)]
pub struct Reading {
    key: Key,
    began: SystemTime,
}

impl Reading {
    pub fn start(path: &Path) -> Option<Reading> {
        let began = crate::time::file_system_clock();
        Some(Reading {
            key: Key::of(path)?,
            began,
        })
    }
}

/// One file's summary, as read back.
#[derive(Debug, Clone)]
pub struct FileSummary {
    /// The file's sessions in the order the scan groups them; `evidence` is empty and
    /// `id` is not kept.
    pub sessions: Vec<SessionLog>,
    /// The file's damage warning, when it had one.
    pub damage: Option<String>,
}

/// The index of one project folder's log folders, shared by the scan's workers: loaded
/// when the first of its server folders is read, written back once the last is done.
#[derive(Debug, Default)]
struct ProjectSlot {
    /// Loaded (or found unusable) already.
    loaded: bool,
    /// The project folder, canonical (stored, and checked on load); `None` when it cannot
    /// be named: nothing is kept for its folders.
    project: Option<String>,
    /// Each server folder's summaries, by folder name: as stored (parsed when a worker
    /// takes it) or as a worker gave them back.
    folders: HashMap<OsString, Section>,
    /// Something differs from the file on disk (or the file must go).
    changed: bool,
    /// Server folders taken and not yet given back.
    out: usize,
    /// Server folders of this run still to come (counted when the index was opened).
    expected: usize,
}

#[derive(Debug)]
enum Section {
    /// As read from the index file: parsed only when a scan of the folder takes it.
    Stored(Box<serde_json::value::RawValue>),
    /// As read, given back unchanged by the scan of its folder.
    Kept(Box<serde_json::value::RawValue>),
    /// Changed by the scan of its folder.
    Parsed(HashMap<OsString, Entry>),
}

/// A stored section's summaries by file name; `None` when it does not parse.
fn parse_section(raw: &serde_json::value::RawValue) -> Option<HashMap<OsString, Entry>> {
    let files: Vec<(String, Entry)> = serde_json::from_str(raw.get()).ok()?;
    Some(
        files
            .into_iter()
            .map(|(n, e)| (OsString::from(n), e))
            .collect(),
    )
}

/// The summary index of one run: mcplogs' cache folder [`SUBDIR`], and the project
/// indexes its workers share (one index file per project folder: one small file a
/// server folder cost as much to read as the logs it summarised).
#[derive(Debug)]
pub struct Index {
    folder: Folder,
    slots: std::sync::Mutex<HashMap<PathBuf, std::sync::Arc<std::sync::Mutex<ProjectSlot>>>>,
}

impl Index {
    /// The index folder of mcplogs' cache at `cache_dir` (created 0700; refused when the
    /// cache folder is someone else's or open to others, see [`crate::store`]), for a
    /// run that reads `folders` (server log folders, or log files named alone): each
    /// project's index is written once the last of its folders is read.
    pub fn open<'a>(
        cache_dir: &Path,
        folders: impl IntoIterator<Item = &'a Path>,
    ) -> Result<Index, StoreError> {
        let folder = Store::open(cache_dir)?.folder(SUBDIR)?;
        let mut slots: HashMap<PathBuf, std::sync::Arc<std::sync::Mutex<ProjectSlot>>> =
            HashMap::new();
        for f in folders {
            if let Some(p) = f.parent() {
                let slot = slots.entry(p.to_path_buf()).or_default();
                slot.lock().unwrap_or_else(|e| e.into_inner()).expected += 1;
            }
        }
        Ok(Index {
            folder,
            slots: std::sync::Mutex::new(slots),
        })
    }

    fn slot(&self, project: &Path) -> std::sync::Arc<std::sync::Mutex<ProjectSlot>> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        std::sync::Arc::clone(slots.entry(project.to_path_buf()).or_default())
    }

    /// Writes every project index still held (a folder that was never given back).
    pub fn finish(self) {
        let slots = self.slots.into_inner().unwrap_or_else(|e| e.into_inner());
        for (project, slot) in slots {
            let mut s = slot.lock().unwrap_or_else(|e| e.into_inner());
            let s = std::mem::take(&mut *s);
            if s.loaded {
                write_project(&self.folder, &project, s);
            }
        }
    }
}

/// Loads a project's index file into its slot (once).
fn load_project(index: &Folder, project: &Path, slot: &mut ProjectSlot) {
    if slot.loaded {
        return;
    }
    slot.loaded = true;
    let Some(build) = build_id() else { return };
    let Some(canonical) = canonical_folder(project).and_then(|c| c.to_str().map(str::to_string))
    else {
        return;
    };
    let file = index_name(&canonical);
    let bytes = index.read(&file, MAX_INDEX_BYTES).ok().flatten();
    let found = bytes.is_some();
    let folders = bytes
        .and_then(|b| serde_json::from_slice::<ProjectDoc>(&b).ok())
        .filter(|doc| doc.format == FORMAT && doc.build == build && doc.project == canonical)
        .map(|doc| {
            doc.folders
                .into_iter()
                .map(|(name, raw)| (OsString::from(name), Section::Stored(raw)))
                .collect()
        });
    // one this build cannot use (another build's, a corrupt one) is rewritten, or
    // removed, on save
    slot.changed = found && folders.is_none();
    slot.folders = folders.unwrap_or_default();
    slot.project = Some(canonical);
}

/// Writes a project's index back, when it changed: the folders that are gone, and the
/// summaries of files that are gone from the folders given back changed, left out. Nothing to keep (or a project path that holds a secret): the file
/// is removed. Errors are ignored: the index is only a cache.
fn write_project(
    index: &Folder,
    project: &Path,
    slot: ProjectSlot,
) {
    let Some(canonical) = slot.project.filter(|_| slot.changed) else {
        return;
    };
    let file = index_name(&canonical);
    let secret = |t: &str| crate::redact::Redactor::redact_own_secrets(t) != t;
    let mut folders: Vec<(String, Vec<(String, Entry)>)> = Vec::new();
    let mut raw: Vec<(String, Box<serde_json::value::RawValue>)> = Vec::new();
    for (name, section) in slot.folders {
        let dir = project.join(&name);
        let Some(name) = name.into_string().ok() else {
            continue;
        };
        if fs::symlink_metadata(&dir).is_err() || secret(&name) {
            continue;
        }
        match section {
            Section::Stored(r) | Section::Kept(r) => raw.push((name, r)),
            Section::Parsed(entries) => {
                let mut files: Vec<(String, Entry)> = entries
                    .into_iter()
                    .filter(|(n, _)| fs::symlink_metadata(file_in(&dir, n)).is_ok())
                    .filter_map(|(n, e)| Some((n.into_string().ok()?, e)))
                    .collect();
                if files.is_empty() {
                    continue;
                }
                files.sort_by(|a, b| a.0.cmp(&b.0));
                folders.push((name, files));
            }
        }
    }
    // Nothing to keep, or a project whose own path holds a secret (a token in a
    // project's path; only an earlier build wrote an index for one, and this build
    // cannot use that, so it is here): no file at all. Checked on save, which is rare,
    // not on each load.
    if (folders.is_empty() && raw.is_empty()) || secret(&canonical) {
        let _ = index.remove(std::ffi::OsStr::new(&file));
        return;
    }
    let Some(build) = build_id() else { return };
    // Written by hand around the sections: the stored ones are copied as they were read.
    let mut all: Vec<(String, Box<serde_json::value::RawValue>)> = raw;
    for (name, files) in folders {
        if let Ok(r) = serde_json::value::to_raw_value(&files) {
            all.push((name, r));
        }
    }
    all.sort_by(|a, b| a.0.cmp(&b.0));
    let doc = ProjectDocOut {
        format: FORMAT,
        build,
        project: &canonical,
        folders: all.iter().map(|(n, r)| (n.as_str(), &**r)).collect(),
    };
    if let Ok(bytes) = serde_json::to_vec(&doc) {
        let _ = index.write(&file, &bytes);
    }
}

/// The path of a file of a server folder (a name that is empty stands for the folder
/// itself: a log file named alone).
fn file_in(dir: &Path, name: &std::ffi::OsStr) -> PathBuf {
    crate::logs::discovery::file_in(dir, name)
}

/// The summaries of one server log folder (or of a log file named alone), taken from
/// its project's index for a scan of that folder, and given back with
/// [`FolderIndex::save`].
#[derive(Debug)]
pub struct FolderIndex {
    slot: std::sync::Arc<std::sync::Mutex<ProjectSlot>>,
    /// The folder's name in its project folder.
    name: OsString,
    entries: HashMap<OsString, Entry>,
    /// The section as it was stored, put back as it was when nothing changed.
    stored: Option<Box<serde_json::value::RawValue>>,
    changed: bool,
}

impl FolderIndex {
    /// The summaries of `folder` in `index` (see [`Index::open`]); empty when there are
    /// none or they cannot be trusted. `None` when the folder or the running program
    /// cannot be identified.
    pub fn load(index: &Index, folder: &Path) -> Option<FolderIndex> {
        let (project, name) = (folder.parent()?, folder.file_name()?);
        let slot = index.slot(project);
        let mut s = slot.lock().unwrap_or_else(|e| e.into_inner());
        load_project(&index.folder, project, &mut s);
        s.expected = s.expected.saturating_sub(1);
        if s.project.is_none() {
            drop(s);
            return None;
        }
        let (entries, stored) = match s.folders.remove(name) {
            Some(Section::Stored(raw)) => match parse_section(&raw) {
                Some(m) => (m, Some(raw)),
                None => {
                    // a section that does not parse: gone on save
                    s.changed = true;
                    (HashMap::new(), None)
                }
            },
            Some(Section::Kept(raw)) => (parse_section(&raw).unwrap_or_default(), Some(raw)),
            Some(Section::Parsed(m)) => (m, None),
            None => (HashMap::new(), None),
        };
        s.out += 1;
        drop(s);
        Some(FolderIndex {
            slot,
            name: name.to_os_string(),
            entries,
            stored,
            changed: false,
        })
    }

    /// The summary of `path` (a file of this folder), when its key matches exactly.
    pub fn lookup(&self, path: &Path) -> Option<FileSummary> {
        let entry = self.entries.get(path.file_name()?)?;
        if Key::of(path)? != entry.key {
            return None;
        }
        let file = path.to_path_buf();
        let sessions = entry
            .sessions
            .iter()
            .map(|s| s.to_session(&file))
            .collect::<Option<Vec<_>>>()?;
        Some(FileSummary {
            sessions,
            damage: entry.damage.clone(),
        })
    }

    /// Records what reading `path` found, when the file had settled before the read and
    /// did not change during it.
    pub fn store(
        &mut self,
        path: &Path,
        before: Reading,
        sessions: &[SessionLog],
        damage: Option<&str>,
    ) {
        let Some(name) = path.file_name() else { return };
        if !before.key.settled_before(before.began)
            || Key::of(path) != Some(before.key)
            || sessions.iter().any(holds_a_secret)
        {
            // Not yet safe to trust: drop any old entry too (it no longer matches).
            if self.entries.remove(name).is_some() {
                self.changed = true;
            }
            return;
        }
        self.entries.insert(
            name.to_os_string(),
            Entry {
                key: before.key,
                damage: damage.map(str::to_string),
                sessions: sessions.iter().map(StoredSession::from_session).collect(),
            },
        );
        self.changed = true;
    }

    /// Forgets every summary of the folder.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.changed = true;
    }

    /// Gives the folder's summaries back to its project's index, which is written (when
    /// anything in it changed) once the last folder of the project this run reads is
    /// given back. Errors are ignored: the index is only a cache.
    pub fn save(self, index: &Index, folder: &Path) {
        let Some(project) = folder.parent() else {
            return;
        };
        let mut s = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        let section = match self.stored {
            Some(raw) if !self.changed => Section::Kept(raw),
            _ => Section::Parsed(self.entries),
        };
        s.folders.insert(self.name, section);
        s.changed |= self.changed;
        s.out = s.out.saturating_sub(1);
        if s.out > 0 || s.expected > 0 {
            return;
        }
        let mut done = std::mem::take(&mut *s);
        drop(s);
        // A folder this run did not read (a scan of one folder, or one deleted since):
        // its summaries go with it.
        done.changed |= done.folders.iter().any(|(name, section)| {
            matches!(section, Section::Stored(_))
                && fs::symlink_metadata(project.join(name)).is_err()
        });
        {
            let mut slots = index.slots.lock().unwrap_or_else(|e| e.into_inner());
            if slots
                .get(project)
                .is_some_and(|x| std::sync::Arc::ptr_eq(x, &self.slot))
            {
                slots.remove(project);
            }
        }
        write_project(&index.folder, project, done);
    }
}

/// Drops the summaries of `folder`'s files that are gone from the index (after `prune`
/// deleted some), when mcplogs' cache folder at `cache_dir` and the index exist.
pub fn forget_gone(cache_dir: &Path, folder: &Path) {
    let Ok(Some(store)) = Store::open_existing(cache_dir) else {
        return;
    };
    let Ok(Some(ix)) = store.existing_folder(SUBDIR) else {
        return;
    };
    let index = Index {
        folder: ix,
        slots: Default::default(),
    };
    if let Some(mut i) = FolderIndex::load(&index, folder) {
        let before = i.entries.len();
        i.entries
            .retain(|name, _| fs::symlink_metadata(file_in(folder, name)).is_ok());
        if i.entries.len() != before {
            i.changed = true;
        }
        i.save(&index, folder);
    }
}

/// `fs::canonicalize(folder)`, with the canonical paths of the folders two levels up
/// (a home's `.cache` above its log tree) looked up once a run: a project folder and
/// its log tree that are not symlinks are that path and their two names. `realpath`
/// reads every component of every path as a link (`readlink`, several a folder in a
/// cache tree); this takes two `lstat`s. A relative path, or one with `.` or `..` in
/// it, takes `fs::canonicalize` as before.
fn canonical_folder(folder: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let plain = folder.is_absolute()
        && folder.components().all(|c| {
            matches!(
                c,
                Component::RootDir | Component::Prefix(_) | Component::Normal(_)
            )
        });
    let project = folder.parent().filter(|_| plain);
    let parts = project.and_then(|p| Some((p, p.parent()?, p.file_name()?, folder.file_name()?)));
    let Some((project, top, project_name, name)) = parts else {
        return fs::canonicalize(folder).ok();
    };
    for p in [folder, project] {
        if fs::symlink_metadata(p).ok()?.file_type().is_symlink() {
            return fs::canonicalize(folder).ok();
        }
    }
    Some(canonical_top(top)?.join(project_name).join(name))
}

/// [`fs::canonicalize`] of a folder two levels above project folders, remembered for
/// the run (one a log tree, or one a folder named on the command line).
fn canonical_top(dir: &Path) -> Option<PathBuf> {
    static KNOWN: OnceLock<std::sync::Mutex<HashMap<PathBuf, Option<PathBuf>>>> = OnceLock::new();
    let mut known = KNOWN.get_or_init(Default::default).lock().ok()?;
    if let Some(c) = known.get(dir) {
        return c.clone();
    }
    let c = fs::canonicalize(dir).ok();
    known.insert(dir.to_path_buf(), c.clone());
    c
}

/// The index file's name for a project folder (its canonical path's SHA-256).
fn index_name(project: &str) -> String {
    format!(
        "{}.json",
        crate::text::hex(&Sha256::digest(project.as_bytes()))
    )
}

/// The project a stored index file describes (its canonical path), when it is an
/// index file this build reads.
fn project_of(index: &Folder, name: &str) -> Option<String> {
    let bytes = index.read(name, MAX_INDEX_BYTES).ok()??;
    // The sections are kept unparsed.
    let doc: ProjectDoc = serde_json::from_slice(&bytes).ok()?;
    (doc.format == FORMAT).then_some(doc.project)
}

/// The index files of `index` that describe a project folder that is gone (or that are
/// not index files this build reads), with their sizes: `prune` removes them. `live`
/// are server folders known to exist (their projects' index files are not opened).
pub fn stale_entries(index: &Folder, live: &[PathBuf]) -> Vec<store::Entry> {
    let known: std::collections::HashSet<String> = live
        .iter()
        .filter_map(|f| f.parent())
        .collect::<std::collections::HashSet<&Path>>()
        .into_iter()
        .filter_map(|p| Some(index_name(canonical_folder(p)?.to_str()?)))
        .collect();
    let Ok(entries) = index.entries() else {
        return Vec::new();
    };
    entries
        .into_iter()
        .filter(|e| {
            let name = e.name.to_string_lossy();
            if known.contains(name.as_ref()) {
                return false;
            }
            if !e.regular {
                // A link (removed, never followed); anything else is not mcplogs'.
                return e.is_link;
            }
            if store::is_temp_name(&name) {
                return older_than_a_day(e);
            }
            // An index of a project folder that is gone; a file that is no index is
            // left alone.
            project_of(index, &name).is_some_and(|p| fs::symlink_metadata(&p).is_err())
        })
        .collect()
}

/// Every entry of the first layout's folder ([`OLD_SUBDIR`]: one index file per server
/// folder), which this build never reads: `prune` removes them (links are removed, not
/// followed).
pub fn old_format_entries(store: &Store) -> Option<(Folder, Vec<store::Entry>)> {
    let old = store.existing_folder(OLD_SUBDIR).ok()??;
    let entries = old.entries().ok()?;
    Some((old, entries))
}

/// Whether an entry was last written more than a day ago (a temporary file that old is
/// a crash's leftover, not a write in progress).
pub fn older_than_a_day(e: &store::Entry) -> bool {
    let now = crate::time::file_system_clock();
    e.modified
        .and_then(|m| now.duration_since(m).ok())
        .is_some_and(|d| d.as_secs() > 86_400)
}

/// One index file: a project folder's server folders, each with its files' summaries.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ProjectDoc {
    format: u32,
    build: String,
    project: String,
    folders: HashMap<String, Box<serde_json::value::RawValue>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProjectDocOut<'a> {
    format: u32,
    build: &'a str,
    project: &'a str,
    folders: std::collections::BTreeMap<&'a str, &'a serde_json::value::RawValue>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Entry {
    key: Key,
    damage: Option<String>,
    sessions: Vec<StoredSession>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredSession {
    first: Option<String>,
    last: Option<String>,
    cwd: Option<String>,
    verdict: String,
    cause: Option<String>,
    era: Option<String>,
    protocol: Option<String>,
    filled: Vec<String>,
    bad_tool: Option<String>,
    capabilities: Option<serde_json::Value>,
    /// `calls:N` or `secs:N`.
    proof: Option<String>,
    /// For `lists-rejected`: `resources`, `prompts`.
    lost: Vec<String>,
    /// The connection's `MCP_TIMEOUT`, when logged.
    timeout_ms: Option<u64>,
    /// Tools not sent to the model for their name's length.
    #[serde(default, skip_serializing_if = "is_zero")]
    not_sent: usize,
    /// `stdio` or `remote`, when the records name it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    transport: Option<String>,
    /// For a handshake timeout: when the connection failed, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    failed_after_ms: Option<u64>,
    /// For `tolerated`: the lists whose results Claude Code filled in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    filled_lists: Vec<String>,
}

/// Whether a text the index would keep from `s` holds something the secret rules mask
/// (a token in a project path, say). Such a file is not summarised: the index stores
/// nothing a redacted output would hide, and a summary with the text masked would not
/// read back as the file reads.
fn holds_a_secret(s: &SessionLog) -> bool {
    let d = &s.diagnosis;
    s.cwd
        .iter()
        .chain(d.bad_tool_path.iter())
        .chain(d.negotiated_protocol_version.iter())
        .chain(d.filled_fields.iter())
        .chain(d.lost_lists.iter())
        .chain(d.filled_lists.iter())
        .any(|t| crate::redact::Redactor::redact_own_secrets(t) != *t)
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

const VERDICTS: [Verdict; 7] = Verdict::ALL;

impl StoredSession {
    fn from_session(s: &SessionLog) -> StoredSession {
        let d = &s.diagnosis;
        StoredSession {
            first: s.first_timestamp.clone(),
            last: s.last_timestamp.clone(),
            cwd: s.cwd.clone(),
            verdict: d.verdict.as_str().to_string(),
            cause: d.cause.map(|c| c.as_str().to_string()),
            era: d.era.map(|e| e.as_str().to_string()),
            protocol: d.negotiated_protocol_version.clone(),
            filled: d.filled_fields.clone(),
            bad_tool: d.bad_tool_path.clone(),
            capabilities: d.capabilities.as_deref().cloned(),
            proof: d.tools_proof.map(|p| match p {
                ToolsProof::ToolCalls { calls } => format!("calls:{calls}"),
                ToolsProof::LongConnection { secs } => format!("secs:{secs}"),
            }),
            lost: d.lost_lists.clone(),
            timeout_ms: d.timeout_ms,
            not_sent: d.tools_not_sent,
            transport: d.transport.map(|t| t.as_str().to_string()),
            failed_after_ms: d.failed_after_ms,
            filled_lists: d.filled_lists.clone(),
        }
    }

    /// The session back; `None` when a stored string is not one this build knows.
    fn to_session(&self, file: &Path) -> Option<SessionLog> {
        let verdict = *VERDICTS.iter().find(|v| v.as_str() == self.verdict)?;
        let cause = match &self.cause {
            Some(c) => Some(Cause::parse(c)?),
            None => None,
        };
        let era = match &self.era {
            Some(e) => Some(Era::parse(e)?),
            None => None,
        };
        let tools_proof = match &self.proof {
            Some(p) => Some(match p.split_once(':')? {
                ("calls", n) => ToolsProof::ToolCalls {
                    calls: n.parse().ok()?,
                },
                ("secs", n) => ToolsProof::LongConnection {
                    secs: n.parse().ok()?,
                },
                _ => return None,
            }),
            None => None,
        };
        let mut diagnosis = Diagnosis::new(verdict);
        diagnosis.cause = cause;
        diagnosis.era = era;
        diagnosis.negotiated_protocol_version = self.protocol.clone();
        diagnosis.filled_fields = self.filled.clone();
        diagnosis.bad_tool_path = self.bad_tool.clone();
        diagnosis.capabilities = self.capabilities.clone().map(std::sync::Arc::new);
        diagnosis.tools_proof = tools_proof;
        diagnosis.lost_lists = self.lost.clone();
        diagnosis.timeout_ms = self.timeout_ms;
        diagnosis.tools_not_sent = self.not_sent;
        diagnosis.transport = match &self.transport {
            Some(t) => Some(Transport::parse(t)?),
            None => None,
        };
        diagnosis.failed_after_ms = self.failed_after_ms;
        diagnosis.filled_lists = self.filled_lists.clone();
        Some(SessionLog {
            id: String::new(),
            file: file.to_path_buf(),
            first_timestamp: self.first.clone(),
            last_timestamp: self.last.clone(),
            cwd: self.cwd.clone(),
            diagnosis,
            evidence: Vec::new(),
        })
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests read their own files
mod tests {
    use super::*;
    use crate::logs::session::group_sessions;

    /// The index of a run that names no folder ahead: each folder's summaries are
    /// written when given back.
    fn open(cache_dir: &Path) -> Result<Index, StoreError> {
        Index::open(cache_dir, [])
    }

    fn old(path: &Path) {
        let f = fs::File::options().write(true).open(path).unwrap();
        f.set_modified(crate::time::file_system_clock() - std::time::Duration::from_secs(3600))
            .unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_is_named_by_its_canonical_path_as_realpath_names_it() {
        let t = tempfile::tempdir().unwrap();
        let real = t.path().join("real");
        let folder = real.join("proj").join("mcp-logs-a");
        fs::create_dir_all(&folder).unwrap();
        fs::create_dir_all(real.join("other")).unwrap();
        std::os::unix::fs::symlink(&real, t.path().join("link")).unwrap();
        std::os::unix::fs::symlink(&folder, real.join("proj").join("mcp-logs-b")).unwrap();
        std::os::unix::fs::symlink(real.join("proj"), real.join("other").join("p")).unwrap();
        let through_link = t.path().join("link").join("proj").join("mcp-logs-a");
        let cases = [
            folder.clone(),
            // A symlink above the project, the server folder a symlink, the project
            // folder a symlink, a `..`, a `.`.
            through_link.clone(),
            real.join("proj").join("mcp-logs-b"),
            real.join("other").join("p").join("mcp-logs-a"),
            real.join("proj").join("..").join("proj").join("mcp-logs-a"),
            t.path()
                .join("link")
                .join("proj")
                .join("mcp-logs-a")
                .join("."),
        ];
        for p in &cases {
            assert_eq!(
                canonical_folder(p),
                fs::canonicalize(p).ok(),
                "{}",
                p.display()
            );
            // Asked again: the remembered top folder gives the same answer.
            assert_eq!(
                canonical_folder(p),
                fs::canonicalize(p).ok(),
                "{}",
                p.display()
            );
        }
        assert_eq!(canonical_folder(&real.join("proj").join("gone")), None);
        assert_eq!(canonical_folder(Path::new("relative-and-missing")), None);
        // Both names of one project folder share one index file.
        let dir = t.path().join("cache");
        let ix = open(&dir).unwrap();
        let a = FolderIndex::load(&ix, &folder).unwrap();
        let b = FolderIndex::load(&ix, &through_link).unwrap();
        let project = |i: &FolderIndex| i.slot.lock().unwrap().project.clone();
        assert!(project(&a).is_some());
        assert_eq!(project(&a), project(&b));
    }

    fn sessions_of(path: &Path) -> Vec<SessionLog> {
        let mut recs = Vec::new();
        crate::logs::decode::decode_prefiltered(path, &mut |r| recs.push(r)).unwrap();
        group_sessions(recs)
    }

    const LINES: &str = concat!(
        r#"{"debug":"Connection established with capabilities: {\"hasTools\":true,\"protocolEra\":\"modern\"}","timestamp":"2026-11-01T10:00:00.000Z","sessionId":"a","cwd":"/w"}"#,
        "\n",
        r#"{"debug":"Calling MCP tool: search","timestamp":"2026-11-01T10:00:05.000Z","sessionId":"a","cwd":"/w"}"#,
        "\n",
        r#"{"error":"Failed to fetch tools: Invalid result for tools/list: missing required resultType","timestamp":"2026-11-01T11:00:00.000Z","sessionId":"b"}"#,
        "\n",
    );

    #[test]
    fn every_field_of_a_diagnosis_survives_the_index() {
        use crate::classify::verdict::{ToolsProof, Transport};
        // A struct literal without `..`: a field added to Diagnosis fails to compile
        // here until the index keeps it (a forgotten one made every scan of such a
        // server read its file twice and rewrite its index).
        let d = Diagnosis {
            verdict: Verdict::ConnectionFailed,
            cause: Some(Cause::Timeout),
            era: Some(Era::Modern),
            negotiated_protocol_version: Some("2026-07-28".into()),
            filled_fields: vec!["ttlMs".into()],
            bad_tool_path: Some("tools[2].inputSchema.type".into()),
            evidence: Vec::new(),
            capabilities: Some(std::sync::Arc::new(serde_json::json!({"hasTools": true}))),
            tools_proof: Some(ToolsProof::ToolCalls { calls: 3 }),
            lost_lists: vec!["prompts".into()],
            timeout_ms: Some(30_000),
            failed_after_ms: Some(7_117),
            filled_lists: vec!["resources".into()],
            tools_not_sent: 2,
            transport: Some(Transport::Stdio),
        };
        let session = SessionLog {
            id: "s".into(),
            file: PathBuf::from("/f.jsonl"),
            first_timestamp: Some("2026-11-01T10:00:00.000Z".into()),
            last_timestamp: Some("2026-11-01T10:00:01.000Z".into()),
            cwd: Some("/w".into()),
            diagnosis: d.clone(),
            evidence: Vec::new(),
        };
        let stored = StoredSession::from_session(&session);
        let text = serde_json::to_string(&stored).unwrap();
        let back: StoredSession = serde_json::from_str(&text).unwrap();
        let got = back.to_session(Path::new("/f.jsonl")).unwrap();
        assert_eq!(got.diagnosis, d);
        assert!(super::super::read::same_summaries(&[got], &[session]));
    }

    #[test]
    fn a_file_whose_summary_would_hold_a_secret_is_not_summarised() {
        let cache = tempfile::tempdir().unwrap();
        let logs = tempfile::tempdir().unwrap();
        let f = logs.path().join("2026-11-01T10-00-00-000Z.jsonl");
        let token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
        fs::write(
            &f,
            LINES.replace("\"cwd\":\"/w\"", &format!("\"cwd\":\"/w/{token}\"")),
        )
        .unwrap();
        old(&f);
        let sessions = sessions_of(&f);
        assert_eq!(sessions[0].cwd.as_deref(), Some(&*format!("/w/{token}")));
        let mut idx = FolderIndex::load(&open(cache.path()).unwrap(), logs.path()).unwrap();
        let r = Reading::start(&f).unwrap();
        idx.store(&f, r, &sessions, None);
        idx.save(&open(cache.path()).unwrap(), logs.path());
        let idx = FolderIndex::load(&open(cache.path()).unwrap(), logs.path()).unwrap();
        assert!(idx.lookup(&f).is_none(), "read from the file each time");
        let text = walkdir::WalkDir::new(cache.path())
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| fs::read_to_string(e.path()).unwrap_or_default())
            .collect::<String>();
        assert!(!text.contains(token), "{text}");

        // An index another build wrote, holding the token: gone once this build saves.
        let ix = open(cache.path()).unwrap();
        let project = canonical_folder(logs.path().parent().unwrap()).unwrap();
        let project = project.to_str().unwrap();
        let section = logs.path().file_name().unwrap().to_str().unwrap();
        let old_doc = format!(
            r#"{{"format":{FORMAT},"build":"another","project":"{project}","folders":{{"{section}":[["x.jsonl",{{"cwd":"/w/{token}"}}]]}}}}"#
        );
        ix.folder
            .write(&index_name(project), old_doc.as_bytes())
            .unwrap();
        let mut idx = FolderIndex::load(&ix, logs.path()).unwrap();
        idx.store(&f, Reading::start(&f).unwrap(), &sessions, None);
        idx.save(&ix, logs.path());
        assert_eq!(ix.folder.read(&index_name(project), 1 << 20).unwrap(), None);

        // A log folder, or a project folder, whose own path holds a secret has no
        // summaries at all.
        for (project, folder) in [
            (logs.path().to_path_buf(), format!("-w-{token}")),
            (logs.path().join(format!("-w-{token}")), "mcp-logs-a".into()),
        ] {
            let secret_dir = project.join(folder);
            fs::create_dir_all(&secret_dir).unwrap();
            let g = secret_dir.join("2026-11-01T10-00-00-000Z.jsonl");
            fs::write(&g, LINES).unwrap();
            old(&g);
            let named = canonical_folder(&project).unwrap();
            let name = index_name(named.to_str().unwrap());
            ix.folder.write(&name, b"{}").unwrap();
            for _ in 0..2 {
                // the old one is removed, and none is written
                let mut idx = FolderIndex::load(&ix, &secret_dir).unwrap();
                idx.store(&g, Reading::start(&g).unwrap(), &sessions_of(&g), None);
                assert!(idx.changed, "summarised, but never written");
                idx.save(&ix, &secret_dir);
                assert_eq!(ix.folder.read(&name, 1 << 20).unwrap(), None);
            }
        }
    }

    #[test]
    fn round_trip_only_with_an_exact_key() {
        let cache = tempfile::tempdir().unwrap();
        let logs = tempfile::tempdir().unwrap();
        let f = logs.path().join("2026-11-01T10-00-00-000Z.jsonl");
        fs::write(&f, LINES).unwrap();
        old(&f);
        let sessions = sessions_of(&f);
        assert_eq!(sessions.len(), 2);

        let mut idx = FolderIndex::load(&open(cache.path()).unwrap(), logs.path()).unwrap();
        assert!(idx.lookup(&f).is_none());
        let r = Reading::start(&f).unwrap();
        idx.store(&f, r, &sessions, Some("1 not valid JSON"));
        idx.save(&open(cache.path()).unwrap(), logs.path());

        let idx = FolderIndex::load(&open(cache.path()).unwrap(), logs.path()).unwrap();
        let got = idx.lookup(&f).expect("cached");
        assert_eq!(got.damage.as_deref(), Some("1 not valid JSON"));
        let want: Vec<_> = sessions.iter().map(|s| s.diagnosis.clone()).collect();
        let have: Vec<_> = got.sessions.iter().map(|s| s.diagnosis.clone()).collect();
        assert_eq!(have, want);
        assert_eq!(got.sessions[0].cwd.as_deref(), Some("/w"));
        assert!(got.sessions.iter().all(|s| s.evidence.is_empty()));

        // Appending, or only touching the file, changes the key.
        fs::write(&f, format!("{LINES}{LINES}")).unwrap();
        old(&f);
        assert!(idx.lookup(&f).is_none());
        // Nothing of the log messages is stored.
        let text = fs::read_dir(cache.path().join(SUBDIR))
            .unwrap()
            .map(|e| fs::read_to_string(e.unwrap().path()).unwrap())
            .collect::<String>();
        assert!(!text.contains("Calling MCP tool"), "{text}");
        assert!(!text.contains("missing required resultType"), "{text}");
    }

    #[test]
    fn a_fresh_file_is_not_stored_and_a_bad_index_is_ignored() {
        let cache = tempfile::tempdir().unwrap();
        let logs = tempfile::tempdir().unwrap();
        let f = logs.path().join("a.jsonl");
        fs::write(&f, LINES).unwrap();
        // written "now" however slowly this test runs: its time an hour ahead
        fs::File::options()
            .write(true)
            .open(&f)
            .unwrap()
            .set_modified(crate::time::file_system_clock() + std::time::Duration::from_secs(3600))
            .unwrap();
        let mut idx = FolderIndex::load(&open(cache.path()).unwrap(), logs.path()).unwrap();
        let r = Reading::start(&f).unwrap();
        idx.store(&f, r, &sessions_of(&f), None);
        idx.save(&open(cache.path()).unwrap(), logs.path());
        // Just written: not settled, nothing stored.
        let idx = FolderIndex::load(&open(cache.path()).unwrap(), logs.path()).unwrap();
        assert!(idx.lookup(&f).is_none());

        old(&f);
        let mut idx = FolderIndex::load(&open(cache.path()).unwrap(), logs.path()).unwrap();
        idx.store(&f, Reading::start(&f).unwrap(), &sessions_of(&f), None);
        idx.save(&open(cache.path()).unwrap(), logs.path());
        let index_file = fs::read_dir(cache.path().join(SUBDIR))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&index_file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            let dir = fs::metadata(cache.path().join(SUBDIR)).unwrap();
            assert_eq!(dir.permissions().mode() & 0o777, 0o700);
        }
        assert!(
            FolderIndex::load(&open(cache.path()).unwrap(), logs.path())
                .unwrap()
                .lookup(&f)
                .is_some()
        );
        let good = fs::read_to_string(&index_file).unwrap();
        for bad in [
            good[..good.len() / 2].to_string(),
            good.replace("\"healthy\"", "\"fine\""),
            good.replace(build_id().unwrap(), "0.0.0+1-2.3"),
            "\u{0}\u{1}garbage".to_string(),
        ] {
            fs::write(&index_file, bad).unwrap();
            let idx = FolderIndex::load(&open(cache.path()).unwrap(), logs.path()).unwrap();
            assert!(idx.lookup(&f).is_none());
        }
    }
}
