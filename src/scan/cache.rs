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

/// The layout version: a change to what is stored bumps it. (3: each folder's deciding
/// session keeps its evidence records and stderr context, [`Kept`]; an index
/// file of an older format in the same folder is ignored and rewritten.)
const FORMAT: u32 = 3;
/// The index's folder in mcplogs' cache: one index file per project folder (formats 2
/// and 3 share it: a file of format 2 is rewritten by the first scan that reads it).
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
        Key::of_kind(path, false)
    }

    /// The key of the folder `path` now: its modification and status-change times move
    /// whenever an entry is added to it, removed or renamed.
    pub fn of_folder(path: &Path) -> Option<Key> {
        Key::of_kind(path, true)
    }

    fn of_kind(path: &Path, folder: bool) -> Option<Key> {
        let m = fs::metadata(path).ok()?;
        if (folder && !m.is_dir()) || (!folder && !m.is_file()) {
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

    /// [`Reading::start`] of a folder's listing.
    pub fn start_folder(path: &Path) -> Option<Reading> {
        let began = crate::time::file_system_clock();
        Some(Reading {
            key: Key::of_folder(path)?,
            began,
        })
    }
}

/// A server folder's listing as the index keeps it: the folder's key when it was listed
/// and its log files' names, sorted (as discovery lists them).
#[derive(Debug, Clone, PartialEq)]
struct Listing {
    key: Key,
    names: Vec<Box<std::ffi::OsStr>>,
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

/// One server folder's summaries in a project's index.
#[derive(Debug, Default)]
struct Section {
    entries: HashMap<OsString, Entry>,
    /// Read by this run (else: as loaded, and its folder may be gone).
    taken: bool,
    /// Changed by this run (the summaries of files that are gone leave it on save).
    changed: bool,
    /// The folder's listing, when kept.
    listing: Option<Listing>,
}

/// The summary index of one run: mcplogs' cache folder [`SUBDIR`], and the project
/// indexes its workers share (one index file per project folder: one small file a
/// server folder cost as much to read as the logs it summarised).
#[derive(Debug)]
pub struct Index {
    folder: Folder,
    slots: std::sync::Mutex<HashMap<PathBuf, std::sync::Arc<std::sync::Mutex<ProjectSlot>>>>,
    /// The configured secrets known when the run began ([`Index::learn_secrets`]): a
    /// deciding session's details that hold one (or that the secret rules would change)
    /// are not kept, and kept ones that hold one now are not used.
    secrets: Option<crate::redact::Redactor>,
    /// The configured secrets of the project a deciding session ran in (its `cwd`), by
    /// that project ([`Index::learn_project_secrets`]): a project `~/.claude.json` does
    /// not list is known only from its logs. Each project's looked up once a run; the
    /// lock is held only to look it up, not while a text is redacted with it.
    by_project: std::sync::Mutex<HashMap<String, Option<std::sync::Arc<crate::redact::Redactor>>>>,
    project_secrets: Option<ProjectSecrets>,
}

/// What gives a project folder's configured secrets ([`Index::learn_project_secrets`]).
pub struct ProjectSecrets(
    pub Box<dyn Fn(&Path) -> crate::redact::configured::ConfiguredSecrets + Send + Sync>,
);

impl std::fmt::Debug for ProjectSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProjectSecrets")
    }
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
            secrets: None,
            by_project: std::sync::Mutex::new(HashMap::new()),
            project_secrets: None,
        })
    }

    /// How to learn the configured secrets of the project a deciding session ran in, so
    /// its details are not kept when they hold one ([`FolderIndex::keep_details`]).
    pub fn learn_project_secrets(&mut self, secrets: ProjectSecrets) {
        self.project_secrets = Some(secrets);
    }

    /// [`Self::clean`], and no configured secret of the project `cwd` (a session's working
    /// directory) is in `text`.
    fn clean_in(&self, cwd: Option<&str>, text: &str) -> bool {
        if !self.clean(text) {
            return false;
        }
        let (Some(cwd), Some(find)) = (cwd, self.project_secrets.as_ref()) else {
            return true;
        };
        // The project's redactor, looked up under the lock; the text is redacted after
        // it is let go, so workers checking texts of one project do not wait in turn.
        let redactor = {
            let mut known = self.by_project.lock().unwrap_or_else(|e| e.into_inner());
            let redactor = known.entry(cwd.to_string()).or_insert_with(|| {
                let secrets = (find.0)(Path::new(cwd));
                (!secrets.is_empty()).then(|| {
                    let mut b = crate::redact::RedactorBuilder::new();
                    b.learn_configured_secrets(&secrets);
                    std::sync::Arc::new(b.build())
                })
            });
            redactor.clone()
        };
        redactor.is_none_or(|r| r.redacted_rules_clean(text).is_none())
    }

    /// Learns the configured secrets (`env` and `headers` values, URL credentials) that
    /// the details kept in the index must not hold ([`FolderIndex::keep_details`]).
    pub fn learn_secrets(&mut self, secrets: &crate::redact::configured::ConfiguredSecrets) {
        if secrets.is_empty() {
            self.secrets = None;
            return;
        }
        let mut b = crate::redact::RedactorBuilder::new();
        b.learn_configured_secrets(secrets);
        self.secrets = Some(b.build());
    }

    /// Whether `text` may be kept in the index: the secret rules find nothing in it (in
    /// any of its spellings), nor does any configured secret learned.
    fn clean(&self, text: &str) -> bool {
        crate::redact::Redactor::redact_own_secrets(text) == text
            && self
                .secrets
                .as_ref()
                .is_none_or(|r| r.redacted_rules_clean(text).is_none())
    }

    fn slot(&self, project: &Path) -> std::sync::Arc<std::sync::Mutex<ProjectSlot>> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        std::sync::Arc::clone(slots.entry(project.to_path_buf()).or_default())
    }

    /// Writes every project index still held (a folder that was never given back).
    pub fn finish(self) {
        let slots = std::mem::take(&mut *self.slots.lock().unwrap_or_else(|e| e.into_inner()));
        for (project, slot) in slots {
            let mut s = slot.lock().unwrap_or_else(|e| e.into_inner());
            let s = std::mem::take(&mut *s);
            if s.loaded {
                write_project(&self, &project, s);
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
        .map(ProjectDoc::into_sections);
    // one this build cannot use (another build's, a corrupt one) is rewritten, or
    // removed, on save
    slot.changed = found && folders.is_none();
    slot.folders = folders.unwrap_or_default();
    slot.project = Some(canonical);
}

/// Writes a project's index back, when it changed: the folders that are gone, and the
/// summaries of files that are gone from the folders this run changed, left out.
/// Nothing to keep (or a project path that holds a secret): the file is removed. Errors
/// are ignored: the index is only a cache. A folder or project name holding a secret (the
/// rules', or a configured value: [`Index::clean`]) is never written.
fn write_project(ix: &Index, project: &Path, slot: ProjectSlot) {
    let Some(canonical) = slot.project.filter(|_| slot.changed) else {
        return;
    };
    let index = &ix.folder;
    let file = index_name(&canonical);
    let secret = |t: &str| !ix.clean(t);
    let mut tables = Tables::default();
    let mut folders: std::collections::BTreeMap<String, Vec<StoredFile>> = Default::default();
    let mut listings: std::collections::BTreeMap<String, StoredListing> = Default::default();
    // In name order, folders and files alike, so the tables are interned in one order
    // and the same summaries always make the same bytes (whatever order the scan's
    // workers finished in).
    let mut sections: Vec<_> = slot.folders.into_iter().collect();
    sections.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, section) in sections {
        let dir = project.join(&name);
        let Some(name) = name.into_string().ok() else {
            continue;
        };
        if fs::symlink_metadata(&dir).is_err() || secret(&name) {
            continue;
        }
        let mut entries: Vec<_> = section.entries.into_iter().collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut files: Vec<StoredFile> = entries
            .into_iter()
            .filter(|(n, _)| !section.changed || fs::symlink_metadata(file_in(&dir, n)).is_ok())
            .filter_map(|(n, e)| e.stored(n.into_string().ok()?, &mut tables))
            .collect();
        if files.is_empty() {
            continue;
        }
        files.sort_by(|a, b| a.0.cmp(&b.0));
        if let Some(l) = section.listing.and_then(Listing::stored) {
            listings.insert(name.clone(), l);
        }
        folders.insert(name, files);
    }
    // Nothing to keep, or a project whose own path holds a secret (a token in a
    // project's path; only an earlier build wrote an index for one, and this build
    // cannot use that, so it is here): no file at all. Checked on save, which is rare,
    // not on each load.
    if folders.is_empty() || secret(&canonical) {
        let _ = index.remove(std::ffi::OsStr::new(&file));
        return;
    }
    let Some(build) = build_id() else { return };
    let doc = ProjectDocOut {
        format: FORMAT,
        build,
        project: &canonical,
        texts: &tables.texts,
        capabilities: &tables.capabilities,
        folders,
        listings,
    };
    if let Ok(bytes) = serde_json::to_vec(&doc) {
        let _ = index.write(&file, &bytes);
    }
}

/// The path of a summarised file of a server folder: `dir` itself when it is a log
/// file named alone (its section is named after it, as its one file is).
fn file_in(dir: &Path, name: &std::ffi::OsStr) -> PathBuf {
    if dir.file_name() == Some(name) && !dir.is_dir() {
        dir.to_path_buf()
    } else {
        dir.join(name)
    }
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
    changed: bool,
    listing: Option<Listing>,
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
        let section = s.folders.remove(name).unwrap_or_default();
        s.out += 1;
        drop(s);
        Some(FolderIndex {
            slot,
            name: name.to_os_string(),
            entries: section.entries,
            changed: false,
            listing: section.listing,
        })
    }

    /// The log files' names of the server folder `folder` as the index keeps them, when
    /// the folder's key matches exactly (no entry was added, removed or renamed since
    /// it was listed): one `stat` instead of opening and reading the folder.
    pub fn listing(&self, folder: &Path) -> Option<Vec<Box<std::ffi::OsStr>>> {
        let l = self.listing.as_ref()?;
        (Key::of_folder(folder)? == l.key).then(|| l.names.clone())
    }

    /// Keeps the listing of the folder read since `before` (`None`: it is not to be
    /// kept, say when listing it warned), when the folder had settled before it was
    /// listed ([`SETTLE_SECS`], as for a file) and every name can be stored.
    pub fn keep_listing(&mut self, before: Option<Reading>, names: &[Box<std::ffi::OsStr>]) {
        let storable = |n: &std::ffi::OsStr| {
            n.to_str()
                .is_some_and(|t| crate::redact::Redactor::redact_own_secrets(t) == t)
        };
        let listing = before
            .filter(|r| r.key.settled_before(r.began))
            .filter(|_| names.iter().all(|n| storable(n)))
            .map(|r| Listing {
                key: r.key,
                names: names.to_vec(),
            });
        if listing != self.listing {
            self.listing = listing;
            self.changed = true;
        }
    }

    /// The summary of `path` (a file of this folder), when its key matches exactly.
    pub fn lookup(&self, path: &Path) -> Option<FileSummary> {
        let entry = self.entries.get(path.file_name()?)?;
        if Key::of(path)? != entry.key {
            return None;
        }
        let sessions = entry.sessions.read_back(path)?;
        Some(FileSummary {
            sessions,
            damage: entry.damage.clone(),
        })
    }

    /// What the index keeps of the deciding session at `session` (its place among the
    /// file's sessions) of the summarised file `path`: its evidence records and, when
    /// the read took it, its stderr context (a file larger than the read takes them from
    /// has none: the stderr tail reads its end, as after a first read), so the file is
    /// not read again for them. `None` when not kept, or when the current configured
    /// secrets would change a kept text (the file is then read again, and its details
    /// are kept no more).
    pub fn details(&self, index: &Index, path: &Path, session: usize) -> Option<Details> {
        let entry = self.entries.get(path.file_name()?)?;
        let d = entry.details.as_ref()?;
        if d.0 != session {
            return None;
        }
        // The secret rules found nothing when they were kept (the same build's: the
        // index is trusted only by the build that wrote it); a value configured since
        // may be in them.
        if let Some(secrets) = &index.secrets
            && !d
                .texts()
                .iter()
                .all(|t| secrets.redacted_rules_clean(t).is_none())
        {
            return None;
        }
        let file = std::sync::Arc::new(path.to_path_buf());
        let evidence =
            d.1.iter()
                .map(|KeptRecord(line, timestamp, level, message, session_id)| {
                    Some(crate::logs::record::Record {
                        message: message.clone(),
                        level: crate::logs::record::Level::parse(level)?,
                        timestamp: timestamp.clone(),
                        session_id: session_id.clone(),
                        cwd: None,
                        server: None,
                        file: std::sync::Arc::clone(&file),
                        line: *line,
                    })
                })
                .collect::<Option<Vec<_>>>()?;
        Some(Details {
            evidence,
            stderr: d.2.clone(),
        })
    }

    /// Keeps, for the summarised file `path`, the deciding session's details (see
    /// [`FolderIndex::details`]): only when the file has a summary, every text is
    /// clean ([`Index`]'s secrets, the secret rules) and they fit [`MAX_DETAIL_BYTES`].
    /// The folder's other files keep none (one deciding session a folder).
    pub fn keep_details(
        &mut self,
        index: &Index,
        path: &Path,
        session: usize,
        evidence: &[crate::logs::record::Record],
        stderr: Option<Vec<String>>,
        cwd: Option<&str>,
    ) {
        let Some(name) = path.file_name() else { return };
        let d = Kept(
            session,
            evidence
                .iter()
                .map(|r| {
                    KeptRecord(
                        r.line,
                        r.timestamp.clone(),
                        r.level.as_str().to_string(),
                        r.message.clone(),
                        r.session_id.clone(),
                    )
                })
                .collect(),
            stderr,
        );
        let texts = d.texts();
        let fits = texts.iter().map(|t| t.len()).sum::<usize>() <= MAX_DETAIL_BYTES
            && d.1.len() <= MAX_DETAIL_RECORDS;
        let keep =
            self.entries.contains_key(name) && fits && texts.iter().all(|t| index.clean_in(cwd, t));
        let d = keep.then_some(d);
        for (n, e) in self.entries.iter_mut() {
            let new = if n == name { d.clone() } else { None };
            if e.details != new {
                e.details = new;
                self.changed = true;
            }
        }
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
                sessions: Sessions::Read(sessions.iter().map(summary_of).collect()),
                details: None,
            },
        );
        self.changed = true;
    }

    /// Forgets every summary of the folder.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.listing = None;
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
        let section = Section {
            entries: self.entries,
            taken: true,
            changed: self.changed,
            listing: self.listing,
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
            !section.taken && fs::symlink_metadata(project.join(name)).is_err()
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
        write_project(index, project, done);
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
        secrets: None,
        by_project: Default::default(),
        project_secrets: None,
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
    // Only the head: an index of an older format (2) names its project the same way.
    #[derive(Deserialize)]
    struct Head {
        format: u32,
        project: String,
    }
    let doc: Head = serde_json::from_slice(&bytes).ok()?;
    (2..=FORMAT).contains(&doc.format).then_some(doc.project)
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
/// Compact, because a warm scan reads every index file of the tree: arrays rather than
/// objects, and the texts and capabilities objects its sessions share (the working
/// directory, the protocol version) stored once and named by their place in `texts`
/// and `capabilities`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ProjectDoc {
    format: u32,
    build: String,
    project: String,
    texts: Vec<String>,
    capabilities: Vec<serde_json::Value>,
    folders: HashMap<String, Vec<StoredFile>>,
    /// The server folders' listings (absent from an index written before they were
    /// kept).
    #[serde(default)]
    listings: HashMap<String, StoredListing>,
}

impl ProjectDoc {
    /// The sections, each file's sessions kept as stored: a lookup reads them back.
    fn into_sections(mut self) -> HashMap<OsString, Section> {
        let tables = std::sync::Arc::new(Loaded {
            texts: self.texts,
            capabilities: self
                .capabilities
                .into_iter()
                .map(std::sync::Arc::new)
                .collect(),
        });
        self.folders
            .into_iter()
            .map(|(name, files)| {
                let entries: HashMap<OsString, Entry> = files
                    .into_iter()
                    .map(|StoredFile(file, key, damage, sessions, details)| {
                        (
                            OsString::from(file),
                            Entry {
                                key: key.into(),
                                damage,
                                details: details.and_then(|d| d.read_back(&tables.texts)),
                                sessions: Sessions::Stored(
                                    sessions,
                                    std::sync::Arc::clone(&tables),
                                ),
                            },
                        )
                    })
                    .collect();
                let listing = self.listings.remove(&name).and_then(Listing::read_back);
                (
                    OsString::from(name),
                    Section {
                        entries,
                        listing,
                        ..Section::default()
                    },
                )
            })
            .collect()
    }
}

/// The tables of a loaded index file, shared by its summaries.
#[derive(Debug)]
struct Loaded {
    texts: Vec<String>,
    capabilities: Vec<std::sync::Arc<serde_json::Value>>,
}

/// A file's sessions: as stored (read back on lookup), or as this run read them.
#[derive(Debug, Clone)]
enum Sessions {
    Stored(Vec<StoredSession>, std::sync::Arc<Loaded>),
    Read(Vec<SessionLog>),
}

impl Sessions {
    /// The sessions, their file set to `file`; `None` when a stored value is not one
    /// this build knows.
    fn read_back(&self, file: &Path) -> Option<Vec<SessionLog>> {
        match self {
            Sessions::Stored(stored, t) => stored
                .iter()
                .map(|s| {
                    let mut s = s.to_session(&t.texts, &t.capabilities)?;
                    s.file = file.to_path_buf();
                    Some(s)
                })
                .collect(),
            Sessions::Read(read) => Some(
                read.iter()
                    .map(|s| SessionLog {
                        file: file.to_path_buf(),
                        ..s.clone()
                    })
                    .collect(),
            ),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProjectDocOut<'a> {
    format: u32,
    build: &'a str,
    project: &'a str,
    texts: &'a [String],
    capabilities: &'a [serde_json::Value],
    folders: std::collections::BTreeMap<String, Vec<StoredFile>>,
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    listings: std::collections::BTreeMap<String, StoredListing>,
}

/// A server folder's listing as stored: the folder's key and its log files' names.
type StoredListing = (StoredKey, Vec<String>);

impl Listing {
    fn stored(self) -> Option<StoredListing> {
        let names = self
            .names
            .iter()
            .map(|n| n.to_str().map(str::to_string))
            .collect::<Option<Vec<String>>>()?;
        Some((self.key.into(), names))
    }

    /// A stored listing back; `None` when its names are not what discovery lists (one
    /// name in the folder each, none hidden, sorted): not one this build wrote.
    fn read_back((key, names): StoredListing) -> Option<Listing> {
        let plain = |n: &String| !n.is_empty() && !n.starts_with('.') && !n.contains(['/', '\\']);
        (names.iter().all(plain) && names.windows(2).all(|w| w[0].as_bytes() < w[1].as_bytes()))
            .then(|| Listing {
                key: key.into(),
                names: names
                    .into_iter()
                    .map(|n| OsString::from(n).into_boxed_os_str())
                    .collect(),
            })
    }
}

/// The texts and capabilities objects of a project's index, each stored once.
#[derive(Default)]
struct Tables {
    texts: Vec<String>,
    text_at: HashMap<String, u32>,
    capabilities: Vec<serde_json::Value>,
    capabilities_at: HashMap<String, u32>,
}

impl Tables {
    fn text(&mut self, t: &Option<String>) -> Option<u32> {
        let t = t.as_ref()?;
        if let Some(&i) = self.text_at.get(t) {
            return Some(i);
        }
        let i = self.texts.len() as u32;
        self.texts.push(t.clone());
        self.text_at.insert(t.clone(), i);
        Some(i)
    }

    fn word(&mut self, w: &str) -> u32 {
        self.text(&Some(w.to_string())).unwrap_or_default()
    }

    fn capabilities(&mut self, c: &Option<std::sync::Arc<serde_json::Value>>) -> Option<u32> {
        let c = c.as_deref()?;
        let key = c.to_string();
        if let Some(&i) = self.capabilities_at.get(&key) {
            return Some(i);
        }
        let i = self.capabilities.len() as u32;
        self.capabilities.push(c.clone());
        self.capabilities_at.insert(key, i);
        Some(i)
    }
}

/// One file's summary in memory: its key, damage warning, and its sessions as the scan
/// groups them (no evidence, no id, no file: [`FolderIndex::lookup`] sets the file).
#[derive(Debug, Clone)]
struct Entry {
    key: Key,
    damage: Option<String>,
    sessions: Sessions,
    /// The deciding session's details, for the folder's deciding file.
    details: Option<Kept>,
}

impl Entry {
    /// The entry as written into a new index file (`None`: one that does not read back
    /// is not kept).
    fn stored(self, name: String, tables: &mut Tables) -> Option<StoredFile> {
        let sessions = self
            .sessions
            .read_back(Path::new(""))?
            .iter()
            .map(|s| StoredSession::from_session(s, tables))
            .collect();
        Some(StoredFile(
            name,
            self.key.into(),
            self.damage,
            sessions,
            self.details.map(|d| d.stored(tables)),
        ))
    }
}

/// What the index keeps of a session the scan read (its evidence and id dropped).
fn summary_of(s: &SessionLog) -> SessionLog {
    let mut diagnosis = s.diagnosis.clone();
    diagnosis.evidence = Vec::new();
    SessionLog {
        id: String::new(),
        file: PathBuf::new(),
        first_timestamp: s.first_timestamp.clone(),
        last_timestamp: s.last_timestamp.clone(),
        cwd: s.cwd.clone(),
        diagnosis,
        evidence: Vec::new(),
    }
}

/// A file's key as stored: size, modification time (seconds, nanoseconds),
/// status-change time, inode, device.
type StoredKey = (u64, i64, u32, i64, u32, u64, u64);

impl From<Key> for StoredKey {
    fn from(k: Key) -> StoredKey {
        (
            k.len, k.mtime.0, k.mtime.1, k.ctime.0, k.ctime.1, k.ino, k.dev,
        )
    }
}

impl From<StoredKey> for Key {
    fn from(k: StoredKey) -> Key {
        Key {
            len: k.0,
            mtime: (k.1, k.2),
            ctime: (k.3, k.4),
            ino: k.5,
            dev: k.6,
        }
    }
}

/// One file as stored: its name, key, damage warning, sessions, and the deciding
/// session's details when it holds the folder's deciding session.
#[derive(Debug, Serialize, Deserialize)]
struct StoredFile(
    String,
    StoredKey,
    Option<String>,
    Vec<StoredSession>,
    Option<StoredDetails>,
);

/// What the views need of a folder's deciding session, kept so a warm scan reads no
/// file that has not changed: its place among the file's sessions, its evidence
/// records, and (when the read took them) its stderr context ([`super::stderr`]'s
/// parts, unredacted: kept only when nothing in them is a secret). Bounded: at most
/// [`MAX_DETAIL_BYTES`] of text and [`MAX_DETAIL_RECORDS`] records, else not kept.
#[derive(Debug, Clone, PartialEq)]
struct Kept(usize, Vec<KeptRecord>, Option<Vec<String>>);

impl Kept {
    /// The texts it holds (each evidence message and session id, the stderr context
    /// as one text, as redaction reads it).
    fn texts(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in &self.1 {
            out.push(r.3.clone());
            out.extend(r.4.clone());
        }
        if let Some(parts) = &self.2 {
            out.push(parts.join("\n"));
        }
        out
    }
}

/// An evidence record as kept: line, timestamp, level, message, session id.
#[derive(Debug, Clone, PartialEq)]
struct KeptRecord(usize, Option<String>, String, String, Option<String>);

/// [`Kept`] as written: the level, message, session id and stderr parts are places in
/// the index file's `texts` (a project's servers write the same messages).
#[derive(Debug, Serialize, Deserialize)]
struct StoredDetails(usize, Vec<StoredRecord>, Option<Vec<u32>>);

/// A [`KeptRecord`] as written: line, timestamp, and the places in `texts` of its
/// level, message and session id.
type StoredRecord = (usize, Option<String>, u32, u32, Option<u32>);

impl Kept {
    fn stored(&self, tables: &mut Tables) -> StoredDetails {
        StoredDetails(
            self.0,
            self.1
                .iter()
                .map(|r| {
                    (
                        r.0,
                        r.1.clone(),
                        tables.word(&r.2),
                        tables.word(&r.3),
                        tables.text(&r.4),
                    )
                })
                .collect(),
            self.2
                .as_ref()
                .map(|parts| parts.iter().map(|p| tables.word(p)).collect()),
        )
    }
}

impl StoredDetails {
    /// The details back; `None` when a place is not in `texts`.
    fn read_back(self, texts: &[String]) -> Option<Kept> {
        let text = |i: u32| texts.get(i as usize).cloned();
        let records = self
            .1
            .into_iter()
            .map(|(line, ts, level, message, id)| {
                Some(KeptRecord(
                    line,
                    ts,
                    text(level)?,
                    text(message)?,
                    match id {
                        Some(i) => Some(text(i)?),
                        None => None,
                    },
                ))
            })
            .collect::<Option<Vec<_>>>()?;
        let stderr = match self.2 {
            Some(parts) => Some(parts.into_iter().map(text).collect::<Option<Vec<_>>>()?),
            None => None,
        };
        Some(Kept(self.0, records, stderr))
    }
}

/// A deciding session's details as read back ([`FolderIndex::details`]).
#[derive(Debug, Clone)]
pub struct Details {
    /// Its evidence records (their file set; no working directory or server name).
    pub evidence: Vec<crate::logs::record::Record>,
    /// Its stderr context ([`super::stderr::Context`]'s parts), when kept.
    pub stderr: Option<Vec<String>>,
}

/// A deciding session's details hold at most this much text (its stderr context is up
/// to [`super::stderr::CONTEXT_BYTES`]; a larger one is read from its file again).
pub const MAX_DETAIL_BYTES: usize = 16 << 10;

/// And at most this many evidence records.
pub const MAX_DETAIL_RECORDS: usize = 64;

/// One session as stored, in this order: first and last timestamps, working directory,
/// verdict, cause, era, negotiated protocol, filled-in fields, the bad tool's path,
/// capabilities (a place in `capabilities`), the tools proof (`calls:N` or `secs:N`),
/// the lists lost (`lists-rejected`), the connection's `MCP_TIMEOUT` in ms, tools not
/// sent for their name's length, the transport, when a handshake timeout failed (ms),
/// the lists Claude Code filled in. The working directory, verdict, cause, era,
/// protocol, proof and transport are places in `texts` (read as numbers, no text made).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredSession(
    Option<String>,
    Option<String>,
    Option<u32>,
    u32,
    Option<u32>,
    Option<u32>,
    Option<u32>,
    Vec<String>,
    Option<String>,
    Option<u32>,
    Option<u32>,
    Vec<String>,
    Option<u64>,
    usize,
    Option<u32>,
    Option<u64>,
    Vec<String>,
);

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

const VERDICTS: [Verdict; 7] = Verdict::ALL;

impl StoredSession {
    fn from_session(s: &SessionLog, tables: &mut Tables) -> StoredSession {
        let d = &s.diagnosis;
        StoredSession(
            s.first_timestamp.clone(),
            s.last_timestamp.clone(),
            tables.text(&s.cwd),
            tables.word(d.verdict.as_str()),
            d.cause.map(|c| tables.word(c.as_str())),
            d.era.map(|e| tables.word(e.as_str())),
            tables.text(&d.negotiated_protocol_version),
            d.filled_fields.clone(),
            d.bad_tool_path.clone(),
            tables.capabilities(&d.capabilities),
            d.tools_proof.map(|p| {
                tables.word(&match p {
                    ToolsProof::ToolCalls { calls } => format!("calls:{calls}"),
                    ToolsProof::LongConnection { secs } => format!("secs:{secs}"),
                })
            }),
            d.lost_lists.clone(),
            d.timeout_ms,
            d.tools_not_sent,
            d.transport.map(|t| tables.word(t.as_str())),
            d.failed_after_ms,
            d.filled_lists.clone(),
        )
    }

    /// The session back (its file not set); `None` when a stored value is not one this
    /// build knows, or names no text or capabilities object of the index.
    fn to_session(
        &self,
        texts: &[String],
        caps: &[std::sync::Arc<serde_json::Value>],
    ) -> Option<SessionLog> {
        let text = |i: Option<u32>| -> Option<Option<String>> {
            match i {
                Some(i) => Some(Some(texts.get(i as usize)?.clone())),
                None => Some(None),
            }
        };
        let word = |i: u32| texts.get(i as usize).map(String::as_str);
        let verdict = *VERDICTS.iter().find(|v| Some(v.as_str()) == word(self.3))?;
        let cause = match self.4 {
            Some(c) => Some(Cause::parse(word(c)?)?),
            None => None,
        };
        let era = match self.5 {
            Some(e) => Some(Era::parse(word(e)?)?),
            None => None,
        };
        let tools_proof = match self.10 {
            Some(p) => Some(match word(p)?.split_once(':')? {
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
        diagnosis.negotiated_protocol_version = text(self.6)?;
        diagnosis.filled_fields = self.7.clone();
        diagnosis.bad_tool_path = self.8.clone();
        diagnosis.capabilities = match self.9 {
            Some(i) => Some(std::sync::Arc::clone(caps.get(i as usize)?)),
            None => None,
        };
        diagnosis.tools_proof = tools_proof;
        diagnosis.lost_lists = self.11.clone();
        diagnosis.timeout_ms = self.12;
        diagnosis.tools_not_sent = self.13;
        diagnosis.transport = match self.14 {
            Some(t) => Some(Transport::parse(word(t)?)?),
            None => None,
        };
        diagnosis.failed_after_ms = self.15;
        diagnosis.filled_lists = self.16.clone();
        Some(SessionLog {
            id: String::new(),
            file: PathBuf::new(),
            first_timestamp: self.0.clone(),
            last_timestamp: self.1.clone(),
            cwd: text(self.2)?,
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
        let mut tables = Tables::default();
        let stored = StoredSession::from_session(&session, &mut tables);
        let text = serde_json::to_string(&stored).unwrap();
        let back: StoredSession = serde_json::from_str(&text).unwrap();
        let caps: Vec<_> = tables
            .capabilities
            .iter()
            .cloned()
            .map(std::sync::Arc::new)
            .collect();
        let mut got = back.to_session(&tables.texts, &caps).unwrap();
        got.file = PathBuf::from("/f.jsonl");
        assert_eq!(got.diagnosis, d);
        assert_eq!(got.cwd.as_deref(), Some("/w"));
        // A place in a table that is not there: not read back.
        let mut bad = back.clone();
        bad.2 = Some(7);
        assert!(bad.to_session(&tables.texts, &caps).is_none());
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
            r#"{{"format":{FORMAT},"build":"another","project":"{project}","texts":["/w/{token}"],"capabilities":[],"folders":{{"{section}":[]}}}}"#
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

    /// The same summaries make the same bytes, whatever order the server folders were
    /// read and saved in (the texts table was interned in the order of a hash map).
    #[test]
    fn a_projects_index_is_the_same_bytes_whatever_order_its_folders_were_read_in() {
        let logs = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        for i in 0..12 {
            let dir = logs.path().join(format!("mcp-logs-s{i}"));
            fs::create_dir_all(&dir).unwrap();
            let f = dir.join("2026-11-01T10-00-00-000Z.jsonl");
            fs::write(
                &f,
                LINES.replace("\"cwd\":\"/w\"", &format!("\"cwd\":\"/w{i}\"")),
            )
            .unwrap();
            old(&f);
            files.push(f);
        }
        let bytes_when = |order: &[usize]| {
            let cache = tempfile::tempdir().unwrap();
            let ix = open(cache.path()).unwrap();
            for &i in order {
                let f = &files[i];
                let dir = f.parent().unwrap();
                let mut idx = FolderIndex::load(&ix, dir).unwrap();
                idx.store(f, Reading::start(f).unwrap(), &sessions_of(f), None);
                idx.save(&ix, dir);
            }
            let project = canonical_folder(logs.path()).unwrap();
            ix.folder
                .read(&index_name(project.to_str().unwrap()), 1 << 20)
                .unwrap()
                .expect("an index of the project")
        };
        let forward: Vec<usize> = (0..12).collect();
        let backward: Vec<usize> = (0..12).rev().collect();
        let first = bytes_when(&forward);
        for _ in 0..3 {
            assert_eq!(bytes_when(&forward), first);
            assert_eq!(bytes_when(&backward), first);
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
    fn a_deciding_sessions_details_are_kept_clean_bounded_and_one_a_folder() {
        let cache = tempfile::tempdir().unwrap();
        let logs = tempfile::tempdir().unwrap();
        let (f, g) = (logs.path().join("a.jsonl"), logs.path().join("b.jsonl"));
        for p in [&f, &g] {
            fs::write(p, LINES).unwrap();
            old(p);
        }
        let ix = open(cache.path()).unwrap();
        let mut idx = FolderIndex::load(&ix, logs.path()).unwrap();
        for p in [&f, &g] {
            idx.store(p, Reading::start(p).unwrap(), &sessions_of(p), None);
        }
        let evidence = sessions_of(&f)[1].evidence.clone();
        let parts = vec!["line one\nline two".to_string()];
        idx.keep_details(&ix, &f, 1, &evidence, Some(parts.clone()), None);
        let d = idx.details(&ix, &f, 1).expect("kept");
        assert_eq!(d.stderr.as_deref(), Some(&parts[..]));
        let want: Vec<_> = evidence
            .iter()
            .map(|r| (r.line, &r.message, r.level))
            .collect();
        let got: Vec<_> = d
            .evidence
            .iter()
            .map(|r| (r.line, &r.message, r.level))
            .collect();
        assert_eq!(got, want);
        assert!(idx.details(&ix, &f, 0).is_none(), "another session");
        // One file a folder holds details: keeping g's drops f's.
        idx.keep_details(&ix, &g, 1, &evidence, None, None);
        assert!(idx.details(&ix, &f, 1).is_none());
        assert!(idx.details(&ix, &g, 1).is_some());
        assert!(idx.details(&ix, &g, 1).unwrap().stderr.is_none());
        // Saved and loaded again: the same.
        idx.save(&ix, logs.path());
        let idx = FolderIndex::load(&open(cache.path()).unwrap(), logs.path()).unwrap();
        assert!(idx.details(&ix, &g, 1).is_some());
        // A text the secret rules mask, or a configured secret, or too much: not kept.
        let mut idx = idx;
        let token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
        for parts in [
            vec![format!("auth {token}")],
            vec!["x".repeat(MAX_DETAIL_BYTES + 1)],
            vec!["srv said configuredValue777".to_string()],
        ] {
            let mut ix = open(cache.path()).unwrap();
            let mut secrets = crate::redact::configured::ConfiguredSecrets::new();
            secrets.add("API_KEY", "configuredValue777");
            ix.learn_secrets(&secrets);
            idx.keep_details(&ix, &f, 1, &evidence, Some(parts), None);
            assert!(idx.details(&ix, &f, 1).is_none());
        }
        // Kept before a value was configured as a secret: not used once it is.
        let plain = open(cache.path()).unwrap();
        let parts = vec!["srv said configuredValue777".to_string()];
        idx.keep_details(&plain, &f, 1, &evidence, Some(parts), None);
        assert!(idx.details(&plain, &f, 1).is_some());
        let mut ix = open(cache.path()).unwrap();
        let mut secrets = crate::redact::configured::ConfiguredSecrets::new();
        secrets.add("API_KEY", "configuredValue777");
        ix.learn_secrets(&secrets);
        assert!(idx.details(&ix, &f, 1).is_none());
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
