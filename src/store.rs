//! Everything mcplogs keeps of its own (the summary index, the status line's memos, the
//! hook's told-lists) goes through this one module, under one discipline:
//!
//! - the cache root (`$MCPLOGS_CACHE_DIR`, or this OS's cache folder for mcplogs) must be a
//!   real folder (not a symbolic link), owned by the user running mcplogs and not writable
//!   by group or others; otherwise it is refused ([`StoreError::is_refusal`]): nothing is
//!   read from it or written to it;
//! - folders are 0700 and files 0600, whatever the umask (an older mcplogs' 0755 folder
//!   of the user's own is tightened when opened);
//! - no symbolic link is followed below the root: folders are opened with `O_NOFOLLOW |
//!   O_DIRECTORY` relative to the root's handle, files are read with `O_NOFOLLOW`;
//! - a file is written to an exclusive temporary file with a random name (`O_CREAT |
//!   O_EXCL | O_NOFOLLOW`, 0600) in the same folder, then renamed over the final name
//!   (which replaces a symbolic link planted there, never writes through it); an update
//!   (the told-list) is a read, then such a write;
//! - every read is bounded, of a regular file of the user's own, opened non-blocking.
//!
//! Off Unix the same checks are made from the file system's metadata before each step
//! (there is no handle-relative API in std): links are refused, files created new, then
//! renamed into place.
//!
//! A cache file ([`Folder::write`]) is not flushed to disk before the rename: a torn file
//! after a crash is not valid JSON and is ignored like any unreadable cache file (the
//! next run reads the logs). What costs more to lose is flushed first:
//! [`Folder::write_durable`], [`Folder::create_exclusive`] and [`Beside::write`].

use std::ffi::{OsStr, OsString};
use std::fs;
#[cfg(unix)]
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Why mcplogs' cache folder (or a folder in it) is not used: the folder, and what is
/// wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", path.display())]
pub struct StoreError {
    pub path: PathBuf,
    pub problem: Problem,
}

/// What is wrong with a folder of mcplogs' cache.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    #[error(
        "mcplogs' cache folder belongs to another user (uid {owner}, not {me}); nothing is read from or written to it"
    )]
    Foreign { owner: u32, me: u32 },
    #[error(
        "mcplogs' cache folder is writable by group or others (mode {mode:04o}); nothing is read from or written to it (`chmod 700` it to use it)"
    )]
    OpenToOthers { mode: u32 },
    #[error("mcplogs' cache folder is {kind}, not a folder; nothing is read from or written to it")]
    NotAFolder { kind: &'static str },
    #[error("{0}")]
    Io(io::Error),
}

impl StoreError {
    /// Whether the folder was refused for safety (someone else's, open to others, a
    /// link), as opposed to an I/O failure such as a read-only disk. A refusal is worth a
    /// line on stderr; a failure only costs the cache.
    pub fn is_refusal(&self) -> bool {
        !matches!(self.problem, Problem::Io(_))
    }

    fn io(path: &Path, source: io::Error) -> StoreError {
        StoreError::new(path, Problem::Io(source))
    }

    fn new(path: &Path, problem: Problem) -> StoreError {
        StoreError {
            path: path.to_path_buf(),
            problem,
        }
    }
}

/// A folder opened and checked ([`open_checked`]), held open on Unix so that the names
/// below it are resolved relative to it.
#[derive(Debug)]
struct Opened {
    path: PathBuf,
    #[cfg(unix)]
    handle: File,
}

impl Opened {
    #[cfg(unix)]
    fn at(&self) -> Option<&File> {
        Some(&self.handle)
    }

    #[cfg(not(unix))]
    fn at(&self) -> Option<&Path> {
        Some(&self.path)
    }
}

/// mcplogs' cache root, opened and checked.
#[derive(Debug)]
pub struct Store(Opened);

/// A folder of the store (`statusline`, `hook-told`, `index-v2`), opened and checked.
#[derive(Debug)]
pub struct Folder(Opened);

/// One entry of a [`Folder`], as listed (links are not followed).
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: OsString,
    pub path: PathBuf,
    pub bytes: u64,
    pub modified: Option<SystemTime>,
    /// A regular file (not a link, folder or anything else).
    pub regular: bool,
    /// A symbolic link (never followed; removing it removes the link).
    pub is_link: bool,
}

impl Store {
    /// The cache root at `path`, created (0700, with any missing parents) when absent.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(s) = Store::open_existing(path)? {
            return Ok(s);
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            let mut b = fs::DirBuilder::new();
            b.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
            b.create(parent).map_err(|e| StoreError::io(parent, e))?;
        }
        // Made here: exactly 0700 (the umask may have taken bits the owner needs).
        let made = match sys::mkdir(None, path.as_os_str()) {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
            Err(e) => return Err(StoreError::io(path, e)),
        };
        Store::checked(path, made)?
            .ok_or_else(|| StoreError::io(path, io::ErrorKind::NotFound.into()))
    }

    /// The cache root at `path` when it exists (nothing is created: `du`, `prune`).
    pub fn open_existing(path: &Path) -> Result<Option<Store>, StoreError> {
        Store::checked(path, false)
    }

    fn checked(path: &Path, tighten: bool) -> Result<Option<Store>, StoreError> {
        Ok(open_checked(None, path.as_os_str(), path, tighten)?.map(Store))
    }

    pub fn path(&self) -> &Path {
        &self.0.path
    }

    /// The folder `name` of the store, created 0700 when absent.
    pub fn folder(&self, name: &str) -> Result<Folder, StoreError> {
        if let Some(f) = self.existing_folder(name)? {
            return Ok(f);
        }
        let path = self.0.path.join(name);
        match sys::mkdir(self.0.at(), OsStr::new(name)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(StoreError::io(&path, e)),
        }
        self.existing_folder(name)?
            .ok_or_else(|| StoreError::io(&path, io::ErrorKind::NotFound.into()))
    }

    /// The folder `name` of the store when it exists.
    pub fn existing_folder(&self, name: &str) -> Result<Option<Folder>, StoreError> {
        let path = self.0.path.join(name);
        check_name(OsStr::new(name)).map_err(|e| StoreError::io(&path, e))?;
        Ok(open_checked(self.0.at(), OsStr::new(name), &path, true)?.map(Folder))
    }

    /// Every regular file under the root (links not followed), for `du`: how many and
    /// how many bytes.
    pub fn usage(&self) -> (u64, u64) {
        let (mut files, mut bytes) = (0, 0);
        for e in walkdir::WalkDir::new(&self.0.path)
            .follow_links(false)
            .max_depth(4)
            .into_iter()
            .flatten()
        {
            if e.file_type().is_file()
                && let Ok(m) = e.metadata()
            {
                files += 1;
                bytes += m.len();
            }
        }
        (files, bytes)
    }
}

impl Folder {
    pub fn path(&self) -> &Path {
        &self.0.path
    }

    /// The bytes of the file `name`: `Ok(None)` when absent; an error when it is not a
    /// regular file of the user's own (a link is never followed), or larger than
    /// `limit`.
    pub fn read(&self, name: &str, limit: u64) -> io::Result<Option<Vec<u8>>> {
        check_name(OsStr::new(name))?;
        let f = match sys::open_read(self.0.at(), OsStr::new(name)) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let meta = own_regular_file(&f)?;
        if meta.len() > limit {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "too large"));
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        f.take(limit + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > limit {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "too large"));
        }
        Ok(Some(bytes))
    }

    /// Writes `bytes` as the file `name`: an exclusive temporary file with a random
    /// name, 0600, renamed over `name` (a link at `name` is replaced, not followed).
    pub fn write(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        self.publish(name, bytes, Publish::Replace).map(|_| ())
    }

    /// [`Folder::write`] with the temporary file flushed to disk before the rename: for
    /// a file whose loss costs more than reading the logs again (export's record of what
    /// the collector accepted).
    pub fn write_durable(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        self.publish(name, bytes, Publish::ReplaceDurable)
            .map(|_| ())
    }

    /// Makes the file `name` hold `bytes` only when nothing has that name yet (two
    /// processes creating it at once agree on one content): written whole and flushed in
    /// an exclusive temporary file, then linked into place (a reader never sees a part of
    /// it; a link at `name` is left alone). `Ok(false)` when something had the name.
    pub fn create_exclusive(&self, name: &str, bytes: &[u8]) -> io::Result<bool> {
        self.publish(name, bytes, Publish::Exclusive)
    }

    fn publish(&self, name: &str, bytes: &[u8], how: Publish) -> io::Result<bool> {
        publish_in(&self.0, OsStr::new(name), ".tmp", bytes, how, |_| Ok(()))
    }

    /// The file `name` opened for writing, created 0600 when absent: never through a
    /// link, never blocking on a FIFO planted there; it must be a regular file of the
    /// user's own (its mode is made 0600), truncated when `truncate`.
    /// For a file another process holds open: a lock, a log a background run writes.
    pub fn open_private(&self, name: &str, truncate: bool) -> io::Result<fs::File> {
        check_name(OsStr::new(name))?;
        let f = open_private_in(self.0.at(), OsStr::new(name), false)?;
        if truncate {
            f.set_len(0)?;
        }
        Ok(f)
    }

    /// Read, change, write back (through [`Folder::write`]): the told-list's append. A
    /// file that cannot be read is started again from nothing.
    pub fn update(
        &self,
        name: &str,
        limit: u64,
        change: impl FnOnce(Option<Vec<u8>>) -> Vec<u8>,
    ) -> io::Result<()> {
        let old = self.read(name, limit).ok().flatten();
        self.write(name, &change(old))
    }

    /// Removes the entry `name` (a file or a link, never what a link points to);
    /// `Ok(false)` when there was none.
    pub fn remove(&self, name: &OsStr) -> io::Result<bool> {
        check_name(name)?;
        match sys::unlink(self.0.at(), name) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The folder's entries (links not followed), in no particular order.
    pub fn entries(&self) -> io::Result<Vec<Entry>> {
        let mut out = Vec::new();
        for e in fs::read_dir(&self.0.path)? {
            let e = e?;
            let Ok(m) = fs::symlink_metadata(e.path()) else {
                continue;
            };
            out.push(Entry {
                name: e.file_name(),
                path: e.path(),
                bytes: m.len(),
                modified: m.modified().ok(),
                regular: m.is_file(),
                is_link: m.file_type().is_symlink(),
            });
        }
        Ok(out)
    }
}

/// What names below a folder are resolved against: its open handle on Unix, its path
/// elsewhere.
#[cfg(unix)]
type At = File;
#[cfg(not(unix))]
type At = Path;

/// The file `name` below `at` opened for writing (at its end when `append`), as
/// [`Folder::open_private`] describes.
fn open_private_in(at: Option<&At>, name: &OsStr, append: bool) -> io::Result<fs::File> {
    let f = match sys::open_write(at, name, append) {
        // Our own file without write permission (made 0400 under umask 0277): made
        // 0600 through a descriptor opened to read, then opened again. Anything
        // that is not our own regular file keeps the first error.
        #[cfg(unix)]
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
            use std::os::unix::fs::MetadataExt;
            use std::os::unix::fs::PermissionsExt;
            let r = sys::open_read(at, name);
            // (one name only: a hard link to another file of the user's is left be)
            match r.as_ref().map(own_regular_file) {
                Ok(Ok(m)) if m.nlink() == 1 => {}
                _ => return Err(e),
            }
            r?.set_permissions(fs::Permissions::from_mode(0o600))?;
            sys::open_write(at, name, append)?
        }
        r => r?,
    };
    let meta = own_regular_file(&f)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::fs::PermissionsExt;
        // a file of other names too (a hard link): writing it, or making it 0600, would
        // change another file (helper-92 #6: `export --file F`, F a hard link, appended
        // to the other file and made it 0600)
        if meta.nlink() > 1 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "it has {} names (hard links): writing it would change another file",
                    meta.nlink()
                ),
            ));
        }
        // exactly 0600: under umask 0277 a new file was 0400, and the next run
        // could not open it for writing
        if meta.permissions().mode() & 0o7777 != 0o600 {
            f.set_permissions(fs::Permissions::from_mode(0o600))?;
        }
    }
    #[cfg(not(unix))]
    let _ = meta;
    Ok(f)
}

/// A private file outside mcplogs' cache (`export --file PATH`: a path the user chose)
/// opened to append, as [`Folder::open_private`] opens one of the cache's: created
/// 0600, never through a link at its name, never blocking on a FIFO, a regular file of
/// the user's own made 0600 (also one left 0400). The folder it is in is the user's
/// choice and is taken as named.
pub fn open_private_append(path: &Path) -> io::Result<fs::File> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    #[cfg(unix)]
    let dir = sys::open_named_dir(parent)?;
    #[cfg(not(unix))]
    let dir = parent;
    open_private_in(Some(&dir), name, true)
}

/// A folder outside mcplogs' cache where mcplogs keeps files of its own beside a file of
/// the user's (a settings file's backup and undo record, the fix plan's record), written
/// under this module's discipline. [`Beside::open`] opens it once: below `from` (a
/// project folder, which the user chose) every folder is opened without following a
/// link, so a link anywhere on the way is refused; with no `from` the folder is opened
/// as named. On Unix every file is then written relative to that open folder: a link
/// swapped in for it, or for a folder above it, after it was opened changes nothing.
#[derive(Debug)]
pub struct Beside(Opened);

/// Why [`Beside::open`] failed: the folder or entry at `at`, and whether it is a
/// symbolic link (or not a folder) where a folder was expected.
#[derive(Debug)]
pub struct BesideError {
    pub at: PathBuf,
    pub link: bool,
    pub error: io::Error,
}

impl Beside {
    /// Opens `dir`, which lies in `from` when given (each folder below `from` opened
    /// without following a link; a link there is `link: true`); else `dir` as named.
    pub fn open(from: Option<&Path>, dir: &Path) -> Result<Beside, BesideError> {
        let io_at = |at: &Path, error: io::Error| BesideError {
            at: at.to_path_buf(),
            link: false,
            error,
        };
        let (start, rest) = match from.and_then(|f| dir.strip_prefix(f).ok().map(|r| (f, r))) {
            Some((f, rest)) => (f, rest),
            None => (dir, Path::new("")),
        };
        #[cfg(unix)]
        let mut handle = sys::open_named_dir(start).map_err(|e| io_at(start, e))?;
        #[cfg(not(unix))]
        if !fs::metadata(start).map_err(|e| io_at(start, e))?.is_dir() {
            return Err(io_at(start, io::Error::other("not a folder")));
        }
        let mut at = start.to_path_buf();
        for c in rest.components() {
            at.push(c);
            #[cfg(unix)]
            {
                handle = match sys::open_dir(Some(&handle), c.as_os_str()) {
                    Ok(h) => h,
                    Err(e)
                        if matches!(e.raw_os_error(), Some(libc::ELOOP) | Some(libc::ENOTDIR)) =>
                    {
                        return Err(BesideError {
                            at,
                            link: true,
                            error: e,
                        });
                    }
                    Err(e) => return Err(io_at(&at, e)),
                };
            }
            #[cfg(not(unix))]
            match fs::symlink_metadata(&at) {
                Ok(m) if m.is_dir() => {}
                Ok(_) => {
                    return Err(BesideError {
                        error: io::Error::other("a symbolic link or not a folder"),
                        at,
                        link: true,
                    });
                }
                Err(e) => return Err(io_at(&at, e)),
            }
        }
        Ok(Beside(Opened {
            path: dir.to_path_buf(),
            #[cfg(unix)]
            handle,
        }))
    }

    pub fn path(&self) -> &Path {
        &self.0.path
    }

    /// Writes `bytes` as the file `name` in this folder: an exclusive temporary file
    /// (`O_CREAT | O_EXCL | O_NOFOLLOW`, 0600, `.<name>.<random>.mcplogs-tmp`), given
    /// `mode` (never more than 0600: what mcplogs keeps is private) and, on Unix, the
    /// owner `owner` (root writing a user's file hands its backup to the user), written,
    /// flushed to disk, then renamed over `name` (a link at `name` is replaced, never
    /// written through). The temporary file is removed on every failure.
    pub fn write(
        &self,
        name: &OsStr,
        bytes: &[u8],
        mode: u32,
        owner: Option<(u32, u32)>,
    ) -> io::Result<()> {
        publish_in(
            &self.0,
            name,
            ".mcplogs-tmp",
            bytes,
            Publish::ReplaceDurable,
            |file| {
                #[cfg(unix)]
                {
                    use std::os::unix::fs::{MetadataExt, PermissionsExt};
                    file.set_permissions(fs::Permissions::from_mode(mode & 0o600))?;
                    if let Some((uid, gid)) = owner {
                        let meta = file.metadata()?;
                        if (meta.uid(), meta.gid()) != (uid, gid) {
                            std::os::unix::fs::fchown(file, Some(uid), Some(gid))?;
                        }
                    }
                }
                #[cfg(not(unix))]
                let _ = (file, mode, owner);
                Ok(())
            },
        )?;
        #[cfg(unix)]
        let _ = self.0.handle.sync_all();
        Ok(())
    }
}

/// The metadata of an opened entry that must be a regular file of the user's own.
fn own_regular_file(f: &fs::File) -> io::Result<fs::Metadata> {
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not a regular file",
        ));
    }
    sys::check_owner(&meta)?;
    Ok(meta)
}

/// Writes `bytes` as the file `name` in the opened folder `at`, through an exclusive
/// temporary file beside it (`.<name>.<16 hex digits><suffix>`, `O_CREAT | O_EXCL |
/// O_NOFOLLOW`, 0600; another random name when one is taken, up to 16 times), made
/// ready by `prepare` (its mode, its owner) before anything is written to it, then put
/// in place as `how` says. The temporary name is removed on every failure (and after an
/// exclusive link). [`Folder`]'s files and [`Beside`]'s share this one writer.
fn publish_in(
    at: &Opened,
    name: &OsStr,
    suffix: &str,
    bytes: &[u8],
    how: Publish,
    prepare: impl FnOnce(&fs::File) -> io::Result<()>,
) -> io::Result<bool> {
    check_name(name)?;
    let mut attempt = 0;
    let (tmp, mut file) = loop {
        let mut tmp = OsString::from(".");
        tmp.push(name);
        tmp.push(format!(".{:016x}{suffix}", random()));
        match sys::create_new(at.at(), &tmp) {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 16 => {
                attempt += 1;
            }
            Err(e) => return Err(e),
        }
    };
    let written = prepare(&file)
        .and_then(|()| file.write_all(bytes))
        .and_then(|()| match how {
            Publish::Replace => Ok(()),
            Publish::ReplaceDurable | Publish::Exclusive => file.sync_all(),
        });
    drop(file);
    let done = written.and_then(|()| match how {
        Publish::Replace | Publish::ReplaceDurable => {
            sys::rename(at.at(), &tmp, name).map(|()| true)
        }
        Publish::Exclusive => {
            let linked = match sys::link(at.at(), &tmp, name) {
                Ok(()) => Ok(true),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
                Err(e) => Err(e),
            };
            // the temporary name goes either way (the file stays under `name`)
            let _ = sys::unlink(at.at(), &tmp);
            linked
        }
    });
    if done.is_err() {
        let _ = sys::unlink(at.at(), &tmp);
    }
    done
}

/// How [`publish_in`] puts a written temporary file in place.
#[derive(Clone, Copy)]
enum Publish {
    /// Renamed over the name.
    Replace,
    /// Flushed to disk, then renamed over the name.
    ReplaceDurable,
    /// Flushed to disk, then linked to the name only if nothing has it.
    Exclusive,
}

/// Whether `name` is one of [`Folder::write`]'s temporary files
/// (`.<name>.<16 hex digits>.tmp`).
pub fn is_temp_name(name: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|n| n.strip_suffix(".tmp"))
        .and_then(|n| n.rsplit_once('.'))
        .is_some_and(|(_, hex)| hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A name inside a folder: one component, not `.` or `..`, no separator or NUL.
fn check_name(name: &OsStr) -> io::Result<()> {
    let s = name.to_string_lossy();
    if s.is_empty() || s == "." || s == ".." || s.contains(['/', '\\', '\0']) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a plain file name: {s:?}"),
        ));
    }
    Ok(())
}

/// Opens the folder `name` (relative to `at`, or a whole path) without following a link
/// there, and checks it: the user's own, not writable by group or others. A folder of
/// the store (`tighten`) is made 0700 when looser (an older mcplogs made them by the
/// umask); the root is not changed, since `$MCPLOGS_CACHE_DIR` may name a folder that
/// is not mcplogs' alone (it is made 0700 only when mcplogs creates it). `Ok(None)`
/// when absent.
#[cfg(unix)]
fn open_checked(
    at: Option<&File>,
    name: &OsStr,
    path: &Path,
    tighten: bool,
) -> Result<Option<Opened>, StoreError> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let handle = match sys::open_dir(at, name) {
        Ok(h) => h,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP) | Some(libc::ENOTDIR)) => {
            let kind = fs::symlink_metadata(path)
                .map(|m| crate::safe_read::kind_of(&m))
                .unwrap_or("not a folder");
            return Err(StoreError::new(path, Problem::NotAFolder { kind }));
        }
        Err(e) => return Err(StoreError::io(path, e)),
    };
    let meta = handle.metadata().map_err(|e| StoreError::io(path, e))?;
    let me = sys::me();
    if meta.uid() != me {
        return Err(StoreError::new(
            path,
            Problem::Foreign {
                owner: meta.uid(),
                me,
            },
        ));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(StoreError::new(path, Problem::OpenToOthers { mode }));
    }
    if tighten && mode != 0o700 {
        handle
            .set_permissions(fs::Permissions::from_mode(0o700))
            .map_err(|e| StoreError::io(path, e))?;
    }
    Ok(Some(Opened {
        path: path.to_path_buf(),
        handle,
    }))
}

#[cfg(not(unix))]
fn open_checked(
    at: Option<&Path>,
    name: &OsStr,
    path: &Path,
    tighten: bool,
) -> Result<Option<Opened>, StoreError> {
    let _ = (at, name, tighten);
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => Ok(Some(Opened {
            path: path.to_path_buf(),
        })),
        Ok(m) => Err(StoreError::new(
            path,
            Problem::NotAFolder {
                kind: crate::safe_read::kind_of(&m),
            },
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(StoreError::io(path, e)),
    }
}

/// A random number for a temporary file's name (the name is taken exclusively, so
/// this only avoids collisions): std's randomly seeded hasher, a counter and the pid.
fn random() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    #[cfg(all(test, unix))]
    if let Some(n) = tests::FORCED.with(|f| f.borrow_mut().pop()) {
        return n;
    }
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    h.finish()
}

/// The handle-relative calls (Unix): every name is one component below an open folder.
#[cfg(unix)]
mod sys {
    use std::ffi::{CString, OsStr};
    use std::fs::{File, Metadata};
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;

    fn c(name: &OsStr) -> io::Result<CString> {
        CString::new(name.as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in a file name"))
    }

    fn fd(at: Option<&File>) -> i32 {
        at.map_or(libc::AT_FDCWD, |f| f.as_raw_fd())
    }

    fn open(at: Option<&File>, name: &OsStr, flags: i32, mode: libc::c_uint) -> io::Result<File> {
        let name = c(name)?;
        // SAFETY: a valid descriptor (or AT_FDCWD) and C string; the descriptor returned
        // is owned by the File below and nobody else.
        let fd = unsafe { libc::openat(fd(at), name.as_ptr(), flags | libc::O_CLOEXEC, mode) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just opened and is owned by nobody else.
        Ok(unsafe { File::from_raw_fd(fd) })
    }

    /// A folder, never through a link at its last component.
    pub fn open_dir(at: Option<&File>, name: &OsStr) -> io::Result<File> {
        open(
            at,
            name,
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW,
            0,
        )
    }

    /// A folder the user named (links in its path followed, as they named it): only a
    /// folder opens.
    pub fn open_named_dir(path: &std::path::Path) -> io::Result<File> {
        open(
            None,
            path.as_os_str(),
            libc::O_RDONLY | libc::O_DIRECTORY,
            0,
        )
    }

    /// A file to read: never through a link, never blocking (a FIFO planted there).
    pub fn open_read(at: Option<&File>, name: &OsStr) -> io::Result<File> {
        open(
            at,
            name,
            libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY,
            0,
        )
    }

    /// A new file, 0600 whatever the umask; fails when anything (a link included) has
    /// the name.
    pub fn create_new(at: Option<&File>, name: &OsStr) -> io::Result<File> {
        use std::os::unix::fs::PermissionsExt;
        let f = open(
            at,
            name,
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_NOCTTY,
            0o600,
        )?;
        // The umask may have taken bits away (0400 under umask 0277): exactly 0600.
        if let Err(e) = f.set_permissions(std::fs::Permissions::from_mode(0o600)) {
            let _ = unlink(at, name);
            return Err(e);
        }
        Ok(f)
    }

    /// A file to write (at its end when `append`), created 0600 when absent: never
    /// through a link, never blocking (a FIFO planted there), never truncated here.
    pub fn open_write(at: Option<&File>, name: &OsStr, append: bool) -> io::Result<File> {
        let append = if append { libc::O_APPEND } else { 0 };
        let f = open(
            at,
            name,
            libc::O_WRONLY
                | libc::O_CREAT
                | libc::O_NOFOLLOW
                | libc::O_NONBLOCK
                | libc::O_NOCTTY
                | append,
            0o600,
        )?;
        // a regular file ignores O_NONBLOCK; anything else is refused by the caller
        Ok(f)
    }

    /// A second name for the file `from` (no link followed): fails when `to` exists.
    pub fn link(at: Option<&File>, from: &OsStr, to: &OsStr) -> io::Result<()> {
        let (from, to) = (c(from)?, c(to)?);
        // SAFETY: valid descriptors and C strings; flags 0: a link is not followed.
        if unsafe { libc::linkat(fd(at), from.as_ptr(), fd(at), to.as_ptr(), 0) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    pub fn mkdir(at: Option<&File>, name: &OsStr) -> io::Result<()> {
        let name = c(name)?;
        // SAFETY: a valid descriptor (or AT_FDCWD) and C string.
        if unsafe { libc::mkdirat(fd(at), name.as_ptr(), 0o700) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    pub fn rename(at: Option<&File>, from: &OsStr, to: &OsStr) -> io::Result<()> {
        let (from, to) = (c(from)?, c(to)?);
        // SAFETY: valid descriptors and C strings.
        if unsafe { libc::renameat(fd(at), from.as_ptr(), fd(at), to.as_ptr()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    pub fn unlink(at: Option<&File>, name: &OsStr) -> io::Result<()> {
        let name = c(name)?;
        // SAFETY: a valid descriptor and C string.
        if unsafe { libc::unlinkat(fd(at), name.as_ptr(), 0) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// The user running mcplogs, asked once a run (a scan checks an index file of
    /// each of 100,000 folders).
    pub fn me() -> u32 {
        // SAFETY: geteuid has no preconditions and cannot fail.
        static ME: std::sync::LazyLock<u32> =
            std::sync::LazyLock::new(|| unsafe { libc::geteuid() });
        *ME
    }

    /// A file of the store must be the user's own.
    pub fn check_owner(meta: &Metadata) -> io::Result<()> {
        use std::os::unix::fs::MetadataExt;
        if meta.uid() != me() {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "owned by another user",
            ));
        }
        Ok(())
    }
}

/// The same calls by path (not Unix): each checks the entry's metadata first.
#[cfg(not(unix))]
mod sys {
    use std::ffi::OsStr;
    use std::fs::{self, File, Metadata};
    use std::io;
    use std::path::Path;

    fn join(at: Option<&Path>, name: &OsStr) -> std::path::PathBuf {
        at.map_or_else(|| Path::new(name).to_path_buf(), |p| p.join(name))
    }

    fn refuse_link(p: &Path) -> io::Result<()> {
        match fs::symlink_metadata(p) {
            Ok(m) if m.file_type().is_symlink() => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a symbolic link",
            )),
            _ => Ok(()),
        }
    }

    pub fn open_read(at: Option<&Path>, name: &OsStr) -> io::Result<File> {
        let p = join(at, name);
        refuse_link(&p)?;
        crate::safe_read::open_nonblocking(&p, crate::safe_read::Follow::NoLinks)
    }

    pub fn create_new(at: Option<&Path>, name: &OsStr) -> io::Result<File> {
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(join(at, name))
    }

    pub fn open_write(at: Option<&Path>, name: &OsStr, append: bool) -> io::Result<File> {
        let p = join(at, name);
        refuse_link(&p)?;
        fs::OpenOptions::new()
            .write(true)
            .append(append)
            .create(true)
            .open(p)
    }

    pub fn link(at: Option<&Path>, from: &OsStr, to: &OsStr) -> io::Result<()> {
        fs::hard_link(join(at, from), join(at, to))
    }

    pub fn mkdir(at: Option<&Path>, name: &OsStr) -> io::Result<()> {
        fs::create_dir(join(at, name))
    }

    pub fn rename(at: Option<&Path>, from: &OsStr, to: &OsStr) -> io::Result<()> {
        fs::rename(join(at, from), join(at, to))
    }

    pub fn unlink(at: Option<&Path>, name: &OsStr) -> io::Result<()> {
        fs::remove_file(join(at, name))
    }

    pub fn check_owner(_meta: &Metadata) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(all(test, unix))]
#[allow(clippy::disallowed_methods, clippy::print_stderr)] // tests read their own files; a skip says so
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};

    thread_local! {
        /// The next temporary names' random parts, last first (tests only).
        pub(super) static FORCED: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    }

    fn mode(p: &Path) -> u32 {
        fs::symlink_metadata(p).unwrap().mode() & 0o7777
    }

    #[test]
    fn an_exclusive_file_is_made_once_whole_and_a_private_one_is_never_a_fifo_or_link() {
        let tmp = tempfile::tempdir().unwrap();
        let s = Store::open(&tmp.path().join("c")).unwrap();
        let f = s.folder("export").unwrap();
        assert!(f.create_exclusive("key", b"first\n").unwrap());
        assert!(!f.create_exclusive("key", b"second\n").unwrap());
        assert_eq!(f.read("key", 100).unwrap().unwrap(), b"first\n");
        assert_eq!(mode(&f.path().join("key")), 0o600);
        // no temporary file is left behind
        let names: Vec<_> = f.entries().unwrap().into_iter().map(|e| e.name).collect();
        assert_eq!(names, ["key"]);
        f.write_durable("ledger", b"a").unwrap();
        f.write_durable("ledger", b"b").unwrap();
        assert_eq!(f.read("ledger", 100).unwrap().unwrap(), b"b");

        let mut log = f.open_private("log", false).unwrap();
        log.write_all(b"old").unwrap();
        drop(f.open_private("log", true).unwrap());
        assert_eq!(f.read("log", 100).unwrap().unwrap(), b"");
        assert_eq!(mode(&f.path().join("log")), 0o600);
        // made under umask 0277 (0400): opened again, it is 0600 and takes writes
        fs::set_permissions(f.path().join("log"), fs::Permissions::from_mode(0o400)).unwrap();
        f.open_private("log", false)
            .unwrap()
            .write_all(b"x")
            .unwrap();
        assert_eq!(mode(&f.path().join("log")), 0o600);
        let fifo = f.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // refused at once, without waiting for a reader
        assert!(f.open_private("fifo", false).is_err());
        let target = tmp.path().join("target");
        fs::write(&target, "mine").unwrap();
        symlink(&target, f.path().join("link")).unwrap();
        assert!(f.open_private("link", true).is_err());
        assert!(!f.create_exclusive("link", b"x").unwrap());
        assert_eq!(fs::read(&target).unwrap(), b"mine");
    }

    #[test]
    fn folders_are_0700_and_files_0600_whatever_the_umask() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("a/b/mcplogs");
        // (The umask is the process's, shared with the tests running beside: the CLI
        // tests run the binary under 022; the modes here are exact under any umask.)
        let s = Store::open(&root).unwrap();
        let f = s.folder("statusline").unwrap();
        f.write("x.json", b"{}").unwrap();
        assert_eq!(mode(&root), 0o700);
        assert_eq!(mode(&root.join("statusline")), 0o700);
        assert_eq!(mode(&root.join("statusline/x.json")), 0o600);
        assert_eq!(f.read("x.json", 10).unwrap().unwrap(), b"{}");
        // Nothing else is left in the folder (no temporary file).
        let names: Vec<_> = f.entries().unwrap().into_iter().map(|e| e.name).collect();
        assert_eq!(names, vec![OsString::from("x.json")]);
    }

    #[test]
    fn an_older_0755_folder_of_ours_is_tightened_the_root_is_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("mcplogs");
        fs::create_dir_all(root.join("statusline")).unwrap();
        for d in [&root, &root.join("statusline")] {
            fs::set_permissions(d, fs::Permissions::from_mode(0o755)).unwrap();
        }
        let s = Store::open(&root).unwrap();
        s.folder("statusline").unwrap();
        // `$MCPLOGS_CACHE_DIR` may name the user's home: never chmod'ed.
        assert_eq!(mode(&root), 0o755);
        assert_eq!(mode(&root.join("statusline")), 0o700);
    }

    #[test]
    fn a_link_at_the_final_or_a_temporary_name_is_replaced_never_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let victim = tmp.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        let s = Store::open(&tmp.path().join("c")).unwrap();
        let f = s.folder("hook-told").unwrap();
        symlink(&victim, f.path().join("session")).unwrap();
        // Read: a link is an error, not the victim's bytes.
        assert!(f.read("session", 100).is_err());
        f.update("session", 100, |old| {
            assert_eq!(old, None);
            b"a\n".to_vec()
        })
        .unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        assert!(
            fs::symlink_metadata(f.path().join("session"))
                .unwrap()
                .is_file()
        );
        // Every temporary name is exclusive: a link planted at the very name the write
        // draws is never written through (the write draws another name).
        symlink(&victim, f.path().join(format!(".session.{:016x}.tmp", 7))).unwrap();
        FORCED.with(|x| *x.borrow_mut() = vec![8, 7]);
        f.write("session", b"b\n").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(fs::read_to_string(f.path().join("session")).unwrap(), "b\n");
        assert!(
            fs::symlink_metadata(f.path().join(".session.0000000000000007.tmp"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(fs::symlink_metadata(f.path().join(".session.0000000000000008.tmp")).is_err());
        // Removing a link removes the link.
        symlink(&victim, f.path().join("link")).unwrap();
        assert!(f.remove(OsStr::new("link")).unwrap());
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    }

    #[test]
    fn a_linked_root_or_folder_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        fs::create_dir(&real).unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o700)).unwrap();
        let link = tmp.path().join("link");
        symlink(&real, &link).unwrap();
        let e = Store::open(&link).unwrap_err();
        assert!(e.is_refusal(), "{e}");
        assert!(e.to_string().contains("symbolic link"), "{e}");
        let s = Store::open(&real).unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        symlink(&elsewhere, real.join("statusline")).unwrap();
        let e = s.folder("statusline").unwrap_err();
        assert!(e.is_refusal(), "{e}");
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    }

    #[test]
    fn a_root_open_to_others_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("c");
        fs::create_dir(&root).unwrap();
        for m in [0o777, 0o770, 0o1777] {
            fs::set_permissions(&root, fs::Permissions::from_mode(m)).unwrap();
            let e = Store::open(&root).unwrap_err();
            assert!(
                matches!(e.problem, Problem::OpenToOthers { .. }) && e.is_refusal(),
                "{e}"
            );
            assert!(e.to_string().contains(&root.display().to_string()), "{e}");
            assert_eq!(mode(&root), m, "a refused folder is left as it is");
        }
    }

    #[test]
    fn a_root_of_another_user_is_refused() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: needs root to give a folder to another user");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("c");
        fs::create_dir(&root).unwrap();
        fs::set_permissions(&root, fs::Permissions::from_mode(0o700)).unwrap();
        std::os::unix::fs::chown(&root, Some(4242), Some(4242)).unwrap();
        let e = Store::open(&root).unwrap_err();
        assert!(
            matches!(e.problem, Problem::Foreign { owner: 4242, .. }),
            "{e}"
        );
        assert_eq!(fs::metadata(&root).unwrap().uid(), 4242);
    }

    #[test]
    fn reads_are_bounded_and_refuse_fifos() {
        let tmp = tempfile::tempdir().unwrap();
        let s = Store::open(&tmp.path().join("c")).unwrap();
        let f = s.folder("statusline").unwrap();
        f.write("big", &[b'x'; 100]).unwrap();
        assert!(f.read("big", 99).is_err());
        assert_eq!(f.read("big", 100).unwrap().unwrap().len(), 100);
        let fifo =
            std::ffi::CString::new(f.path().join("fifo").as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert!(f.read("fifo", 100).is_err());
        assert!(f.read("../c", 100).is_err());
        assert_eq!(f.read("absent", 100).unwrap(), None);
    }
}
