//! Writing a settings file without ever losing it: through a symlink to its target,
//! atomically (a temporary file in the same folder, flushed, renamed over), with the
//! original's permission bits, and only if the file is still what mcplogs read.
//!
//! The file-system calls of a write go through [`Fs`], so that tests can make each one
//! fail (a full disk, a failed rename, a crash before the rename) and watch the
//! temporary file's permissions while it exists. [`RealFs`] is the only implementation
//! outside tests.

use std::fs::{self, File, Metadata};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use super::SettingsError;

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
    /// Renames the temporary file over the destination (atomic on one file system).
    /// Dropping `tmp` on failure removes it.
    fn rename(&self, tmp: NamedTempFile, to: &Path) -> io::Result<()> {
        tmp.persist(to).map(|_| ()).map_err(|e| e.error)
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
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

/// A file as mcplogs read it: the bytes any later write is checked against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSnapshot {
    /// The path as named (may be a symlink; it stays one).
    pub path: PathBuf,
    /// The file actually read and written: the symlink's final target.
    pub target: PathBuf,
    /// `None`: the file does not exist.
    pub bytes: Option<Vec<u8>>,
}

impl FileSnapshot {
    pub fn read(path: &Path) -> Result<FileSnapshot, SettingsError> {
        let target = resolve_target(path).map_err(|e| SettingsError::io(path, "resolve", e))?;
        let bytes = read_if_exists(&target).map_err(|e| SettingsError::io(&target, "read", e))?;
        Ok(FileSnapshot {
            path: path.to_path_buf(),
            target,
            bytes,
        })
    }

    /// Fails unless the file on disk still holds exactly the bytes read (or is still
    /// absent). Returns its metadata, for the permissions to keep.
    pub fn ensure_unchanged(&self) -> Result<Option<Metadata>, SettingsError> {
        let now =
            read_if_exists(&self.target).map_err(|e| SettingsError::io(&self.target, "read", e))?;
        if now != self.bytes {
            return Err(SettingsError::ChangedSinceRead {
                path: self.path.clone(),
            });
        }
        match fs::metadata(&self.target) {
            Ok(m) => Ok(Some(m)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(SettingsError::io(&self.target, "read", e)),
        }
    }

    /// Replaces the file with `new`, atomically, if it is unchanged since it was read.
    /// Creates the file (mode 0600) and its folder (0700) when missing.
    pub fn replace(&self, new: &[u8]) -> Result<(), SettingsError> {
        self.replace_in(&RealFs, new)
    }

    /// [`FileSnapshot::replace`] through `files`.
    pub fn replace_in(&self, files: &dyn Fs, new: &[u8]) -> Result<(), SettingsError> {
        let dir = parent_of(&self.target);
        if self.bytes.is_none() && !dir.exists() {
            create_dir_private(&dir)
                .map_err(|e| SettingsError::io(&dir, "create the folder", e))?;
        }
        let meta = self.ensure_unchanged()?;
        write_atomic(files, &self.target, new, meta.as_ref(), &|| {
            self.ensure_unchanged().map(|_| ())
        })
    }

    /// Removes the file (undo of a fix that created it) if it is unchanged since read.
    pub fn remove(&self) -> Result<(), SettingsError> {
        self.remove_in(&RealFs)
    }

    /// [`FileSnapshot::remove`] through `files`.
    pub fn remove_in(&self, files: &dyn Fs) -> Result<(), SettingsError> {
        self.ensure_unchanged()?;
        files
            .remove_file(&self.target)
            .map_err(|e| SettingsError::io(&self.target, "remove", e))
    }
}

/// Writes `bytes` to `dest` atomically with the permissions of `like` (a backup gets
/// the original's bits; `None`: owner-only). For backups and the undo state.
pub fn write_copy(dest: &Path, bytes: &[u8], like: Option<&Metadata>) -> Result<(), SettingsError> {
    write_copy_in(&RealFs, dest, bytes, like)
}

/// [`write_copy`] through `files`.
pub fn write_copy_in(
    files: &dyn Fs,
    dest: &Path,
    bytes: &[u8],
    like: Option<&Metadata>,
) -> Result<(), SettingsError> {
    write_atomic(files, dest, bytes, like, &|| Ok(()))
}

pub fn read_if_exists(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
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
    Err(io::Error::other("too many levels of symbolic links"))
}

fn parent_of(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn create_dir_private(dir: &Path) -> io::Result<()> {
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(NEW_DIR_MODE);
    }
    b.create(dir)
}

/// Temporary file in `dest`'s folder, written, flushed, given the final permissions,
/// `check`ed, renamed over `dest`. The temporary file never has more permission bits
/// than the original, and is removed on every failure. Errors name `dest` (the file
/// the user knows), whichever step failed.
fn write_atomic(
    files: &dyn Fs,
    dest: &Path,
    bytes: &[u8],
    like: Option<&Metadata>,
    check: &dyn Fn() -> Result<(), SettingsError>,
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
        let mode = like
            .map(|m| m.permissions().mode() & 0o7777)
            .unwrap_or(NEW_FILE_MODE);
        // Owner bits only while the content is being written.
        builder.permissions(fs::Permissions::from_mode(mode & 0o600));
        Some(fs::Permissions::from_mode(mode))
    };
    // Windows: the read-only flag is the one permission bit there is.
    #[cfg(not(unix))]
    let final_perms = like.map(|m| m.permissions());

    let io_err = |action: &'static str| move |e| SettingsError::io(dest, action, e);
    let mut tmp = files
        .create_temp(&builder, &dir)
        .map_err(io_err("create a temporary file for"))?;
    files.write(&mut tmp, bytes).map_err(io_err("write"))?;
    #[cfg(unix)]
    keep_owner(tmp.path(), like).map_err(io_err("give the original owner to"))?;
    if let Some(p) = final_perms {
        files
            .set_permissions(tmp.path(), p)
            .map_err(io_err("set the permissions of"))?;
    }
    files.sync(tmp.as_file()).map_err(io_err("flush"))?;
    check()?;
    files.rename(tmp, dest).map_err(io_err("replace"))?;
    sync_dir(&dir);
    Ok(())
}

/// Root editing someone else's file must not hand it to root.
#[cfg(unix)]
fn keep_owner(tmp: &Path, like: Option<&Metadata>) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let Some(orig) = like else { return Ok(()) };
    let mine = fs::metadata(tmp)?;
    if (mine.uid(), mine.gid()) != (orig.uid(), orig.gid()) {
        std::os::unix::fs::chown(tmp, Some(orig.uid()), Some(orig.gid()))?;
    }
    Ok(())
}

/// Makes the rename itself durable; a folder that cannot be opened is not worth failing.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
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
