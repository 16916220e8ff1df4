//! Writing a settings file without ever losing it: through a symlink to its target,
//! atomically, with the original's owner and permission bits, and only if the file is
//! still what mcplogs read.
//!
//! A project's own file (`.mcp.json`, `.claude/settings*.json`: [`project_of`], the one
//! rule of every write and undo) is never reached through a link. A cloned repository
//! would otherwise choose which file of the user's the fix rewrites. The user's own
//! files (`~/.claude/settings.json`, `~/.claude.json`) are followed: dotfile managers
//! link them. What is guaranteed, and what is not:
//!
//! - The file and every folder between the project and it are looked at with
//!   `symlink_metadata` when the file is read, and a write looks for a link twice: once
//!   when it opens the folder the backup and the undo record go in ([`open_beside`]:
//!   each folder below the project opened without following a link, the folder then
//!   held open), and once just before the swap.
//! - The backup and the undo record are written relative to that open folder
//!   ([`crate::store::Beside`]: an exclusive temporary file, private, flushed, renamed
//!   over the name, a link at the name replaced and never followed): a link swapped in
//!   for the folder, or for one above it, after it was opened redirects neither. On
//!   Windows (no folder handles in std) they are written by path, checked first.
//! - The settings file itself is swapped in by path: a link made in the microseconds
//!   between the check just before the swap and the swap is the one window left.
//!
//! Only a regular file is read or written. The target is resolved here (symlinks
//! followed by mcplogs, never by the OS at write time), read non-blocking with a size
//! cap, and remembered by device and inode. Before the write it must still be the same
//! file with the same bytes, the path must still lead to it, and it must have one name:
//! a hard-linked file is refused (replacing it would split the links silently).
//!
//! The new content is swapped in, not renamed over: on Linux with
//! `renameat2(RENAME_EXCHANGE)` (macOS: `renamex_np(RENAME_SWAP)`), after which the
//! file swapped out must be byte-identical to what was read; if a writer renamed its
//! own file into place in between, the swap is undone and nothing is lost. A file that
//! did not exist is created with `RENAME_NOREPLACE`, so one that appears meanwhile is
//! never clobbered. Where neither exists (Windows, file systems without the flags) the
//! check is made just before a plain rename, which leaves a window of microseconds.
//!
//! The file-system calls of a write go through [`Fs`], so that tests can make each one
//! fail (a full disk, a failed rename, a crash before the rename) and watch the
//! temporary file's permissions while it exists. [`RealFs`] is the only implementation
//! outside tests.

use std::ffi::OsStr;
use std::fs::{self, File, Metadata};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use super::SettingsError;
use crate::safe_read::{
    FileId, Follow, ReadError, SETTINGS_MAX_BYTES, is_symlink_loop, read_regular,
};
pub use crate::store::Beside;

/// How [`Fs::swap`] puts the temporary file in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Swap {
    /// Exchange the two names atomically (both must exist).
    Exchange,
    /// Rename, failing with `AlreadyExists` if the destination exists.
    NoReplace,
}

/// The file-system operations of a settings write. Every method has the real behaviour
/// as its default; a test implementation overrides the ones it makes fail.
pub trait Fs {
    /// Creates the temporary file (name, folder and permissions are in `builder`).
    fn create_temp(&self, builder: &tempfile::Builder, dir: &Path) -> io::Result<NamedTempFile> {
        builder.tempfile_in(dir)
    }
    /// Writes all of `bytes` to the temporary file.
    fn write(&self, tmp: &mut NamedTempFile, bytes: &[u8]) -> io::Result<()> {
        tmp.write_all(bytes)?;
        tmp.flush()
    }
    fn set_permissions(&self, path: &Path, perms: fs::Permissions) -> io::Result<()> {
        fs::set_permissions(path, perms)
    }
    /// Flushes the file's content to the disk.
    fn sync(&self, file: &File) -> io::Result<()> {
        file.sync_all()
    }
    /// Renames the temporary file over the destination (atomic on one file system):
    /// backups and undo records. Dropping `tmp` on failure removes it.
    fn rename(&self, tmp: NamedTempFile, to: &Path) -> io::Result<()> {
        tmp.persist(to).map(|_| ()).map_err(|e| e.error)
    }
    /// Puts the temporary file `tmp` in place of the settings file `to` (see [`Swap`]).
    /// `Unsupported` where the platform or file system has no such rename.
    fn swap(&self, tmp: &Path, to: &Path, how: Swap) -> io::Result<()> {
        platform_swap(tmp, to, how)
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }
    /// Writes a file of mcplogs' own (a backup, an undo record) as `name` in the open
    /// folder `dir`, as everything mcplogs keeps is written
    /// ([`crate::store::Beside::write`]: an exclusive temporary file, private, flushed,
    /// renamed over `name` relative to the open folder).
    fn write_own(
        &self,
        dir: &Beside,
        name: &OsStr,
        bytes: &[u8],
        mode: u32,
        owner: Option<(u32, u32)>,
    ) -> io::Result<()> {
        dir.write(name, bytes, mode, owner)
    }
    /// Makes a rename in `dir` durable; a folder that cannot be opened is not worth
    /// failing for.
    fn sync_dir(&self, dir: &Path) {
        // a folder opened only to fsync it, never read
        #[cfg(unix)]
        #[allow(clippy::disallowed_methods)]
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        #[cfg(not(unix))]
        let _ = dir;
    }
}

/// The file system itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealFs;

impl Fs for RealFs {}

/// Mode of a settings file mcplogs creates: it may come to hold API keys.
#[cfg(unix)]
const NEW_FILE_MODE: u32 = 0o600;
/// How the name of a temporary file next to the settings file ends
/// (`.settings.json.<random>.mcplogs-tmp`).
pub const TEMP_SUFFIX: &str = ".mcplogs-tmp";
/// Mode of a folder mcplogs creates for it.
#[cfg(unix)]
const NEW_DIR_MODE: u32 = 0o700;

/// Owner and permissions a written file gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attrs {
    pub perms: fs::Permissions,
    /// (uid, gid) on unix: root writing a user's file hands it back to the user.
    pub owner: Option<(u32, u32)>,
}

impl Attrs {
    pub fn of(meta: &Metadata) -> Attrs {
        #[cfg(unix)]
        let owner = {
            use std::os::unix::fs::MetadataExt;
            Some((meta.uid(), meta.gid()))
        };
        #[cfg(not(unix))]
        let owner = None;
        Attrs {
            perms: meta.permissions(),
            owner,
        }
    }

    /// The same owner, permission bits limited to `mask` (unix; elsewhere unchanged).
    pub fn masked(&self, mask: u32) -> Attrs {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            Attrs {
                perms: fs::Permissions::from_mode(self.perms.mode() & mask),
                owner: self.owner,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = mask;
            self.clone()
        }
    }

    /// The permission bits (unix), for checks.
    #[cfg(unix)]
    pub fn mode(&self) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        self.perms.mode() & 0o7777
    }
}

/// A file as mcplogs read it: the bytes any later write is checked against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSnapshot {
    /// The path as named (may be a symlink; it stays one).
    pub path: PathBuf,
    /// The file actually read and written: the symlink's final target.
    pub target: PathBuf,
    /// `None`: the file does not exist.
    pub bytes: Option<Vec<u8>>,
    /// Device and inode of the file read (unix).
    pub id: Option<FileId>,
    /// Owner and permissions of the file read; for a missing file, what a new one gets.
    pub attrs: Option<Attrs>,
    /// The project folder `path` is a file of (`None`: a file of the user's own, such as
    /// `~/.claude/settings.json`, followed through a link). No folder between it and
    /// `path`, nor `path` itself, may be a symbolic link: checked when read, when the
    /// write opens the folder of the backup and the record, and just before the swap
    /// (see the module comment).
    pub project: Option<PathBuf>,
}

/// The project folder of a file that is always a project's own, whatever the caller
/// says: `<P>/.mcp.json` and `<P>/.claude/settings.local.json` (Claude Code has no
/// user-scope file of either name). `None` for any other file.
pub fn project_root_of(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?;
    let parent = path.parent()?;
    if name == ".mcp.json" {
        return Some(parent.to_path_buf());
    }
    if name == "settings.local.json" && parent.file_name()? == ".claude" {
        return Some(parent.parent()?.to_path_buf());
    }
    None
}

/// The project folder `path` is a file of, for every write and every undo of a settings
/// file (`fix`, `fix --undo`, a plan rolled back): one rule, so that an undo refuses
/// exactly what the fix refused. `<P>/.mcp.json`, `<P>/.claude/settings.local.json`,
/// and `<P>/.claude/settings.json` unless it is `user_file` (the user's own
/// `~/.claude/settings.json` or `$CLAUDE_CONFIG_DIR/settings.json`, which dotfile
/// managers link). `None`: a file of the user's own, followed through a link.
pub fn project_of(path: &Path, user_file: Option<&Path>) -> Option<PathBuf> {
    if let Some(root) = project_root_of(path) {
        return Some(root);
    }
    let parent = path.parent()?;
    if path.file_name()? == "settings.json"
        && parent.file_name()? == ".claude"
        && user_file != Some(path)
    {
        return parent.parent().map(Path::to_path_buf);
    }
    None
}

/// [`project_of`] for a file named by its layer for the server's project (the fix
/// engine's changes): the `project` layer is a project's shared `.claude/settings.json`,
/// every other layer's `settings.json` is the user's own. `None` for a file of the
/// user's own layers.
pub fn project_root_for_layer(path: &Path, layer: &str) -> Option<PathBuf> {
    project_of(path, (layer != "project").then_some(path))
}

/// The first symbolic link on the way from `project` down to `path` (`path` itself
/// included, `project` itself not: the user chose that folder), each component looked
/// at with `symlink_metadata` (never followed), with what it points to. `None` when
/// there is none, or `path` is not under `project`. A component that does not exist
/// ends the walk (nothing below it exists either).
pub fn link_in_project(project: &Path, path: &Path) -> Option<(PathBuf, PathBuf)> {
    let rest = path.strip_prefix(project).ok()?;
    let mut at = project.to_path_buf();
    for c in rest.components() {
        at.push(c);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&at).unwrap_or_default();
                return Some((at, to));
            }
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

/// The refusal for `path` (resolved to `target`) when it is not a regular file mcplogs
/// may write.
fn refused(path: &Path, target: &Path, e: ReadError) -> SettingsError {
    match e {
        ReadError::Io(error) if is_symlink_loop(&error) => SettingsError::NotRegular {
            path: path.to_path_buf(),
            reason: ReadError::Io(error).to_string(),
        },
        ReadError::Io(error) if path == target => SettingsError::io(path, "read", error),
        ReadError::Io(error) => SettingsError::io(target, "read", error),
        other => SettingsError::NotRegular {
            path: path.to_path_buf(),
            reason: if path == target {
                other.to_string()
            } else {
                format!("its target {} is {other}", target.display())
            },
        },
    }
}

/// One read of the resolved target: regular, capped, not followed, one name.
fn read_target(
    path: &Path,
    target: &Path,
) -> Result<Option<crate::safe_read::Regular>, SettingsError> {
    let r = read_regular(target, SETTINGS_MAX_BYTES, Follow::NoLinks)
        .map_err(|e| refused(path, target, e))?;
    if let Some(r) = &r {
        let links = link_count(&r.meta);
        if links > 1 {
            return Err(SettingsError::HardLinked {
                path: path.to_path_buf(),
                links,
            });
        }
    }
    Ok(r)
}

/// How many hard links the settings file at `path` (or its symlink's target) has, when
/// more than one: a file `mcplogs fix` refuses to edit ([`SettingsError::HardLinked`]).
/// `None` for one name, no file, or where the count is not known (Windows).
pub fn hard_links(path: &Path) -> Option<u64> {
    let meta = std::fs::metadata(path).ok()?;
    let links = link_count(&meta);
    (meta.is_file() && links > 1).then_some(links)
}

fn link_count(meta: &Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.nlink()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        1
    }
}

impl FileSnapshot {
    /// Reads `path`, a project's own file when [`project_root_of`] says so (no link on
    /// the way then), else a file of the user's own (followed through a link).
    pub fn read(path: &Path) -> Result<FileSnapshot, SettingsError> {
        Self::read_in(path, project_root_of(path).as_deref())
    }

    /// Reads `path`, a file of the project `project` when given: refused
    /// ([`SettingsError::ProjectLink`]) when it or a folder between the project and it
    /// is a symbolic link.
    pub fn read_in(path: &Path, project: Option<&Path>) -> Result<FileSnapshot, SettingsError> {
        if let Some(root) = project {
            no_link_in_project(root, path)?;
        }
        let target = resolve_target(path).map_err(|e| refused(path, path, ReadError::Io(e)))?;
        let (bytes, id, attrs) = match read_target(path, &target)? {
            Some(r) => (Some(r.bytes), r.id, Some(Attrs::of(&r.meta))),
            None => (None, None, new_file_attrs(&target)),
        };
        Ok(FileSnapshot {
            path: path.to_path_buf(),
            target,
            bytes,
            id,
            attrs,
            project: project.map(Path::to_path_buf),
        })
    }

    /// Fails when a link is on the way from the project to the file now.
    fn ensure_no_project_link(&self) -> Result<(), SettingsError> {
        match &self.project {
            Some(root) => no_link_in_project(root, &self.path),
            None => Ok(()),
        }
    }

    /// Fails unless the path still leads to the same regular file (same device and
    /// inode) holding exactly the bytes read, or is still absent, with no link on the
    /// way from its project to it.
    pub fn ensure_unchanged(&self) -> Result<(), SettingsError> {
        self.ensure_no_project_link()?;
        self.ensure_same()
    }

    /// [`Self::ensure_unchanged`] without looking for a link in the project: for a
    /// caller that just did ([`open_beside`]), or will just before the swap.
    pub(crate) fn ensure_same(&self) -> Result<(), SettingsError> {
        let changed = || SettingsError::ChangedSinceRead {
            path: self.path.clone(),
        };
        match resolve_target(&self.path) {
            Ok(t) if t == self.target => {}
            _ => return Err(changed()),
        }
        let now = match read_regular(&self.target, SETTINGS_MAX_BYTES, Follow::NoLinks) {
            Ok(now) => now,
            // A symlink, FIFO or device swapped in since the read.
            Err(ReadError::NotRegular { .. } | ReadError::Replaced) => return Err(changed()),
            Err(e) => return Err(refused(&self.path, &self.target, e)),
        };
        match (&now, &self.bytes) {
            (None, None) => Ok(()),
            (Some(r), Some(b)) if r.id == self.id && &r.bytes == b && link_count(&r.meta) == 1 => {
                Ok(())
            }
            _ => Err(changed()),
        }
    }

    /// Replaces the file with `new`, atomically, if it is unchanged since it was read.
    /// Creates the file (mode 0600) and its folder (0700) when missing.
    pub fn replace(&self, new: &[u8]) -> Result<(), SettingsError> {
        self.replace_in(&RealFs, new)
    }

    /// [`FileSnapshot::replace`] through `files`.
    pub fn replace_in(&self, files: &dyn Fs, new: &[u8]) -> Result<(), SettingsError> {
        self.ensure_no_project_link()?;
        self.replace_walked(files, new)
    }

    /// [`FileSnapshot::replace_in`] for a caller that has just looked for a link in the
    /// project ([`open_beside`]): looked for again only before a missing folder is
    /// created, and just before the swap.
    pub(crate) fn replace_walked(&self, files: &dyn Fs, new: &[u8]) -> Result<(), SettingsError> {
        let dir = parent_of(&self.target);
        // a symbolic link to nothing (one planted in a cloned project can name any
        // path): never a file, nor folders, created through it
        if self.bytes.is_none() && self.path != self.target {
            return Err(SettingsError::io(
                &self.path,
                "create a file through this symbolic link, whose target does not exist",
                io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("{} is missing", self.target.display()),
                ),
            ));
        }
        if self.bytes.is_none() && !dir.exists() {
            self.ensure_no_project_link()?;
            create_dir_private(&dir)
                .map_err(|e| SettingsError::io(&dir, "create the folder", e))?;
        }
        self.ensure_same()?;
        write_atomic(files, &self.target, new, self.attrs.as_ref(), self)
    }

    /// Removes the file (undo of a fix that created it) through `files`, if it is
    /// unchanged since read.
    pub fn remove_in(&self, files: &dyn Fs) -> Result<(), SettingsError> {
        self.ensure_unchanged()?;
        files
            .remove_file(&self.target)
            .map_err(|e| SettingsError::io(&self.target, "remove", e))
    }
}

/// [`SettingsError::ProjectLink`] for the first link between `project` and `path`.
fn no_link_in_project(project: &Path, path: &Path) -> Result<(), SettingsError> {
    match link_in_project(project, path) {
        Some((link, to)) => Err(SettingsError::ProjectLink {
            path: path.to_path_buf(),
            link,
            to,
            project: project.to_path_buf(),
        }),
        None => Ok(()),
    }
}

/// What a file created in `target`'s folder gets: mode 0600, and on unix the folder's
/// owner (root fixing a user's missing file must not leave a root-owned one).
fn new_file_attrs(target: &Path) -> Option<Attrs> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let owner = fs::metadata(parent_of(target))
            .ok()
            .filter(|_| root)
            .map(|m| (m.uid(), m.gid()));
        Some(Attrs {
            perms: fs::Permissions::from_mode(NEW_FILE_MODE),
            owner,
        })
    }
    #[cfg(not(unix))]
    {
        let _ = target;
        None
    }
}

/// Writes `bytes` as `dest`, a file of mcplogs' own in the open folder `dir` (a backup,
/// an undo record, the plan's record), through `files`: private (at most the owner's
/// read and write bits of `attrs`, 0600 without), with `attrs`' owner, never through a
/// link ([`Fs::write_own`]).
pub fn write_copy_in(
    files: &dyn Fs,
    dir: &Beside,
    dest: &Path,
    bytes: &[u8],
    attrs: Option<&Attrs>,
) -> Result<(), SettingsError> {
    let name = dest.file_name().ok_or_else(|| {
        SettingsError::io(
            dest,
            "write",
            io::Error::new(io::ErrorKind::InvalidInput, "not a file name"),
        )
    })?;
    #[cfg(unix)]
    let mode = attrs.map_or(NEW_FILE_MODE, Attrs::mode) & 0o600;
    #[cfg(not(unix))]
    let mode = 0o600;
    files
        .write_own(dir, name, bytes, mode, attrs.and_then(|a| a.owner))
        .map_err(|e| SettingsError::io(dest, "write", e))
}

/// The folder `path` lies in, opened once for the files mcplogs keeps beside it
/// ([`Beside`]): for a file of `project`, no folder between the project and it may be a
/// symbolic link ([`SettingsError::ProjectLink`], as for the file itself).
pub fn open_beside(path: &Path, project: Option<&Path>) -> Result<Beside, SettingsError> {
    let dir = parent_of(path);
    Beside::open(project, &dir).map_err(|e| {
        if let (true, Some(root)) = (e.link, project)
            && let Err(refusal) = no_link_in_project(root, path)
        {
            return refusal;
        }
        SettingsError::io(&e.at, "open the folder", e.error)
    })
}

/// Follows symlinks (chains, relative targets) to the file they name, which need not
/// exist yet. Dotfiles managers link `~/.claude/settings.json` into a repository: the
/// write goes to the target and the link stays.
pub fn resolve_target(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = fs::read_link(&p)?;
                p = if link.is_absolute() {
                    link
                } else {
                    parent_of(&p).join(link)
                };
            }
            Ok(_) => return Ok(p),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(p),
            Err(e) => return Err(e),
        }
    }
    #[cfg(unix)]
    return Err(io::Error::from_raw_os_error(libc::ELOOP));
    #[cfg(not(unix))]
    Err(io::Error::other("too many levels of symbolic links"))
}

fn parent_of(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

pub(crate) fn create_dir_private(dir: &Path) -> io::Result<()> {
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(NEW_DIR_MODE);
    }
    b.create(dir)
}

/// Temporary file in `dest`'s folder, written, given the final owner and permissions,
/// flushed, then swapped in against the snapshot `expect`. The temporary file never has
/// more permission bits than the final file, and is removed on every failure. Errors
/// name `dest` (the file the user knows), whichever step failed.
fn write_atomic(
    files: &dyn Fs,
    dest: &Path,
    bytes: &[u8],
    attrs: Option<&Attrs>,
    expect: &FileSnapshot,
) -> Result<(), SettingsError> {
    let dir = parent_of(dest);
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "settings".into());
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(TEMP_SUFFIX);
    #[cfg(unix)]
    let final_perms = {
        use std::os::unix::fs::PermissionsExt;
        let mode = attrs.map(Attrs::mode).unwrap_or(NEW_FILE_MODE);
        // Owner bits only while the content is being written.
        builder.permissions(fs::Permissions::from_mode(mode & 0o600));
        Some(fs::Permissions::from_mode(mode))
    };
    // Windows: the read-only flag is the one permission bit there is.
    #[cfg(not(unix))]
    let final_perms = attrs.map(|a| a.perms.clone());

    let io_err = |action: &'static str| move |e| SettingsError::io(dest, action, e);
    let mut tmp = files
        .create_temp(&builder, &dir)
        .map_err(io_err("create a temporary file for"))?;
    files.write(&mut tmp, bytes).map_err(io_err("write"))?;
    #[cfg(unix)]
    keep_owner(tmp.path(), attrs).map_err(io_err("give the original owner to"))?;
    if let Some(p) = final_perms {
        files
            .set_permissions(tmp.path(), p)
            .map_err(io_err("set the permissions of"))?;
    }
    files.sync(tmp.as_file()).map_err(io_err("flush"))?;
    swap_in(files, tmp, dest, expect)?;
    files.sync_dir(&dir);
    Ok(())
}

/// Puts `tmp` in place of `dest` only if `dest` is still what `snap` read, losing
/// nothing whatever another writer does at the same moment.
fn swap_in(
    files: &dyn Fs,
    tmp: NamedTempFile,
    dest: &Path,
    snap: &FileSnapshot,
) -> Result<(), SettingsError> {
    let changed = || SettingsError::ChangedSinceRead {
        path: snap.path.clone(),
    };
    let io_err = |e| SettingsError::io(dest, "replace", e);
    // a link made in the project since the last check (while the temporary file was
    // written and flushed): the rename would go through it
    snap.ensure_no_project_link()?;
    let Some(original) = &snap.bytes else {
        return match files.swap(tmp.path(), dest, Swap::NoReplace) {
            Ok(()) => {
                // The name is the settings file's now: nothing to remove on drop.
                let _ = tmp.into_temp_path().keep();
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(changed()),
            Err(e) if e.kind() == io::ErrorKind::Unsupported => {
                snap.ensure_unchanged()?;
                files.rename(tmp, dest).map_err(io_err)
            }
            Err(e) => Err(io_err(e)),
        };
    };
    let ours = FileId::of(&tmp.as_file().metadata().map_err(io_err)?);
    match files.swap(tmp.path(), dest, Swap::Exchange) {
        Ok(()) => {}
        // Gone since the check: someone removed or renamed it.
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(changed()),
        Err(e) if e.kind() == io::ErrorKind::Unsupported => {
            snap.ensure_unchanged()?;
            return files.rename(tmp, dest).map_err(io_err);
        }
        Err(e) => return Err(io_err(e)),
    }
    // `tmp`'s name now holds what was at `dest`: it must be exactly what was read.
    let swapped_out = read_regular(tmp.path(), SETTINGS_MAX_BYTES, Follow::NoLinks);
    if matches!(&swapped_out, Ok(Some(r)) if &r.bytes == original) {
        // Dropping `tmp` removes the old file (its bytes are in the backup).
        drop(tmp);
        return Ok(());
    }
    // Another writer got in between: give its file its name back.
    let back = files.swap(tmp.path(), dest, Swap::Exchange);
    let ours_back = fs::symlink_metadata(tmp.path())
        .ok()
        .is_some_and(|m| FileId::of(&m) == ours);
    if back.is_ok() && ours_back {
        drop(tmp);
        return Err(changed());
    }
    // Swapped again by a third party in between: keep every file, say where.
    let left = tmp.into_temp_path().keep().unwrap_or_default();
    Err(SettingsError::RaceLeftFile {
        path: snap.path.clone(),
        left,
    })
}

/// The platform's atomic exchange / no-replace rename.
fn platform_swap(from: &Path, to: &Path, how: Swap) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::os::unix::ffi::OsStrExt;
        let c =
            |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(io::Error::other);
        let (a, b) = (c(from)?, c(to)?);
        let flags = match how {
            Swap::Exchange => libc::RENAME_EXCHANGE,
            Swap::NoReplace => libc::RENAME_NOREPLACE,
        };
        // SAFETY: two valid NUL-terminated paths, relative to the current folder.
        let r = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                a.as_ptr(),
                libc::AT_FDCWD,
                b.as_ptr(),
                flags as _,
            )
        };
        if r == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            // Kernel or file system without the flag (old kernels, some FUSE/NFS).
            Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP) => {
                io::Error::from(io::ErrorKind::Unsupported)
            }
            _ => e,
        });
    }
    #[cfg(target_os = "macos")]
    {
        use std::os::unix::ffi::OsStrExt;
        let c =
            |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(io::Error::other);
        let (a, b) = (c(from)?, c(to)?);
        let flags = match how {
            Swap::Exchange => libc::RENAME_SWAP,
            Swap::NoReplace => libc::RENAME_EXCL,
        };
        // SAFETY: two valid NUL-terminated paths.
        let r = unsafe { libc::renamex_np(a.as_ptr(), b.as_ptr(), flags) };
        if r == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::EINVAL) | Some(libc::ENOTSUP) => io::Error::from(io::ErrorKind::Unsupported),
            _ => e,
        });
    }
    #[allow(unreachable_code)]
    {
        let _ = (from, to, how);
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

/// Root editing someone else's file must not hand it to root.
#[cfg(unix)]
fn keep_owner(tmp: &Path, attrs: Option<&Attrs>) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let Some((uid, gid)) = attrs.and_then(|a| a.owner) else {
        return Ok(());
    };
    let mine = fs::metadata(tmp)?;
    if (mine.uid(), mine.gid()) != (uid, gid) {
        std::os::unix::fs::chown(tmp, Some(uid), Some(gid))?;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests read their own files
mod tests {
    use super::*;

    #[test]
    fn replace_creates_file_and_folder() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a").join("b").join("settings.json");
        let snap = FileSnapshot::read(&p).unwrap();
        assert_eq!(snap.bytes, None);
        snap.replace(b"{}\n").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"{}\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&p), 0o600);
            assert_eq!(mode(p.parent().unwrap()), 0o700);
        }
    }

    #[test]
    fn replace_refuses_a_file_changed_since_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("settings.json");
        fs::write(&p, "{}").unwrap();
        let snap = FileSnapshot::read(&p).unwrap();
        fs::write(&p, "{\"model\": \"opus\"}").unwrap();
        let err = snap.replace(b"{\"x\": 1}").unwrap_err();
        assert!(matches!(err, SettingsError::ChangedSinceRead { .. }));
        assert_eq!(fs::read(&p).unwrap(), b"{\"model\": \"opus\"}");
        // No temporary file left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_file_that_appeared_since_read_is_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("settings.json");
        let snap = FileSnapshot::read(&p).unwrap();
        fs::write(&p, "{}").unwrap();
        assert!(matches!(
            snap.replace(b"{}\n").unwrap_err(),
            SettingsError::ChangedSinceRead { .. }
        ));
        assert_eq!(fs::read(&p).unwrap(), b"{}");
    }

    /// A project's `.claude` folder swapped for a link to an outside folder between the
    /// read and the write (and, through [`Fs::sync`], after the temporary file was
    /// written, just before the swap): nothing goes through it.
    #[cfg(unix)]
    #[test]
    fn a_link_made_in_a_project_after_the_read_is_never_written_through() {
        struct LinkAtSync<'a>(&'a Path, &'a Path);
        impl Fs for LinkAtSync<'_> {
            fn sync(&self, file: &File) -> io::Result<()> {
                let claude = self.0.join(".claude");
                fs::rename(&claude, self.0.join(".claude-moved"))?;
                std::os::unix::fs::symlink(self.1, &claude)?;
                file.sync_all()
            }
        }
        for at_sync in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let proj = dir.path().join("proj");
            let outside = dir.path().join("outside");
            fs::create_dir_all(proj.join(".claude")).unwrap();
            fs::create_dir_all(&outside).unwrap();
            let file = proj.join(".claude/settings.local.json");
            fs::write(&file, "{}").unwrap();
            fs::write(outside.join("settings.local.json"), "{}").unwrap();
            let snap = FileSnapshot::read(&file).unwrap();
            assert_eq!(snap.project.as_deref(), Some(proj.as_path()));
            let err = if at_sync {
                snap.replace_in(&LinkAtSync(&proj, &outside), b"{\"x\": 1}")
                    .unwrap_err()
            } else {
                fs::rename(proj.join(".claude"), proj.join(".claude-moved")).unwrap();
                std::os::unix::fs::symlink(&outside, proj.join(".claude")).unwrap();
                snap.replace(b"{\"x\": 1}").unwrap_err()
            };
            assert!(
                matches!(&err, SettingsError::ProjectLink { link, .. } if *link == proj.join(".claude")),
                "{err}"
            );
            assert_eq!(
                fs::read(outside.join("settings.local.json")).unwrap(),
                b"{}"
            );
            assert_eq!(
                fs::read(proj.join(".claude-moved/settings.local.json")).unwrap(),
                b"{}"
            );
        }
    }

    /// Which files are a project's own by their name alone, and which folder is their
    /// project; a user file is not.
    #[test]
    fn a_projects_own_files_and_their_project() {
        let p = Path::new("/w/p");
        assert_eq!(project_root_of(&p.join(".mcp.json")).as_deref(), Some(p));
        assert_eq!(
            project_root_of(&p.join(".claude/settings.local.json")).as_deref(),
            Some(p)
        );
        assert_eq!(
            project_root_of(Path::new("/home/u/.claude/settings.json")),
            None
        );
        assert_eq!(project_root_of(Path::new("/home/u/.claude.json")), None);
        assert_eq!(
            project_root_for_layer(&p.join(".claude/settings.json"), "project").as_deref(),
            Some(p)
        );
        assert_eq!(
            project_root_for_layer(Path::new("/home/u/.claude/settings.json"), "user"),
            None
        );
    }

    #[cfg(unix)]
    #[test]
    fn relative_symlink_chains_resolve_to_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        fs::write(&real, "{}").unwrap();
        std::os::unix::fs::symlink("real.json", dir.path().join("l1")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("l1"), dir.path().join("l2")).unwrap();
        assert_eq!(resolve_target(&dir.path().join("l2")).unwrap(), real);
    }
}
