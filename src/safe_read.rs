//! Reading a file that may be hostile: a settings layer, `~/.claude.json`, a file given
//! to `explain`. Only a regular file is read, never more than a cap, and nothing is ever
//! opened in a way that can block: the kind of file is checked from its metadata before
//! it is opened, it is opened non-blocking (unix), and the opened file must be the one
//! checked (same device and inode). A FIFO, a device, a socket, a folder or a symlink
//! loop is refused with a reason; `/dev/zero` cannot grow memory.

use std::fmt;
use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::path::Path;

/// The most mcplogs reads of one settings file (Claude Code's own are a few KiB).
pub const SETTINGS_MAX_BYTES: u64 = 16 * 1024 * 1024;
/// The most `explain` reads, from a file or stdin.
pub const EXPLAIN_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Which file a path named when it was read: device and inode on unix. Elsewhere there
/// is no stable identity in std, and only the bytes are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId {
    pub dev: u64,
    pub ino: u64,
}

impl FileId {
    /// `None` off unix.
    pub fn of(meta: &Metadata) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(FileId {
                dev: meta.dev(),
                ino: meta.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }
}

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// Not a regular file: `kind` names what it is ("a FIFO", "a character device"...).
    NotRegular {
        kind: &'static str,
    },
    /// Larger than `limit` bytes.
    TooLarge {
        limit: u64,
    },
    /// The path changed into another file between the check and the open.
    Replaced,
    Io(io::Error),
}

impl ReadError {
    /// The I/O error kind, for callers that treat "not found" or "denied" apart.
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            ReadError::Io(e) => Some(e.kind()),
            _ => None,
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotRegular { kind } => write!(f, "not a regular file but {kind}"),
            ReadError::TooLarge { limit } => write!(
                f,
                "larger than {} MiB, more than any real file of its kind; not read",
                limit / (1024 * 1024)
            ),
            ReadError::Replaced => f.write_str("replaced by another file while being opened"),
            ReadError::Io(e) if is_symlink_loop(e) => {
                f.write_str("a symbolic link loop (too many levels of symbolic links)")
            }
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ReadError> for io::Error {
    fn from(e: ReadError) -> io::Error {
        match e {
            ReadError::Io(e) => e,
            other => io::Error::other(other.to_string()),
        }
    }
}

/// ELOOP: a symlink loop, or a symlink opened with O_NOFOLLOW.
pub fn is_symlink_loop(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// What a file system entry is, in words, for a refusal.
pub fn kind_of(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a folder";
    }
    if t.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Whether the last component of a path may be a symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    /// Follow symlinks, as Claude Code does when it reads its settings.
    Links,
    /// The path was resolved by the caller: a symlink there now is a change, refused.
    NoLinks,
}

/// A regular file as read.
#[derive(Debug)]
pub struct Regular {
    pub bytes: Vec<u8>,
    /// The metadata of the opened file (permissions, owner, links).
    pub meta: Metadata,
    pub id: Option<FileId>,
}

/// Opens `path` to read it if it is a regular file of at most `limit` bytes, and the
/// file opened is the one checked: its kind and size from its metadata first (a FIFO, a
/// device or a folder is refused without being opened, a file too large without being
/// read), then opened non-blocking, then its own metadata must show the same regular
/// file. `Ok(None)`: absent (inside a [`crate::absent::scope`], answered without
/// looking again when known missing). The one check for [`read_regular`] and for
/// readers that stream a file (a git index).
pub fn open_checked(
    path: &Path,
    limit: u64,
    follow: Follow,
) -> Result<Option<(File, Metadata)>, ReadError> {
    if crate::absent::known_gone(path) {
        return Ok(None);
    }
    let checked = match stat(path, follow) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            crate::absent::note_gone(path);
            return Ok(None);
        }
        Err(e) => return Err(ReadError::Io(e)),
    };
    if !checked.is_file() {
        return Err(ReadError::NotRegular {
            kind: kind_of(&checked),
        });
    }
    if checked.len() > limit {
        return Err(ReadError::TooLarge { limit });
    }
    let file = match open_nonblocking(path, follow) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if follow == Follow::NoLinks && is_symlink_loop(&e) => {
            return Err(ReadError::NotRegular {
                kind: "a symbolic link",
            });
        }
        Err(e) => return Err(ReadError::Io(e)),
    };
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            kind: kind_of(&meta),
        });
    }
    if FileId::of(&meta) != FileId::of(&checked) {
        return Err(ReadError::Replaced);
    }
    Ok(Some((file, meta)))
}

/// Reads `path` if it is a regular file of at most `limit` bytes. `Ok(None)`: absent.
/// Inside a [`crate::absent::scope`], a path found missing (or under a folder found
/// missing) is answered without looking again.
pub fn read_regular(path: &Path, limit: u64, follow: Follow) -> Result<Option<Regular>, ReadError> {
    let Some((file, meta)) = open_checked(path, limit, follow)? else {
        return Ok(None);
    };
    let id = FileId::of(&meta);
    // room for the whole file and the byte that shows its end: two reads, not one a
    // doubling of the buffer
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(limit)).map_or(0, |n| n + 1));
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(Some(Regular { bytes, meta, id }))
}

/// Reads what a user named for `explain`: a regular file, or a pipe (`<(cmd)`, a FIFO)
/// read to its end with the cap. Devices, sockets and folders are refused.
pub fn read_input_file(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let meta = fs::metadata(path).map_err(ReadError::Io)?;
        if meta.file_type().is_fifo() {
            // Opened without blocking (no writer: no hang), then read normally: a FIFO
            // nobody writes to reads as empty.
            let file = open_nonblocking(path, Follow::Links).map_err(ReadError::Io)?;
            set_blocking(&file).map_err(ReadError::Io)?;
            return read_bounded(file, limit);
        }
    }
    match read_regular(path, limit, Follow::Links)? {
        Some(r) => Ok(r.bytes),
        None => Err(ReadError::Io(io::Error::from(io::ErrorKind::NotFound))),
    }
}

/// Reads at most `limit` bytes from `r`; more is an error, never a bigger buffer.
pub fn read_bounded(r: impl Read, limit: u64) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    r.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(bytes)
}

fn stat(path: &Path, follow: Follow) -> io::Result<Metadata> {
    match follow {
        Follow::Links => fs::metadata(path),
        Follow::NoLinks => fs::symlink_metadata(path),
    }
}

/// Opens for reading without ever blocking: O_NONBLOCK (a FIFO without a writer, a
/// terminal device), and O_NOFOLLOW when the path was resolved by the caller.
#[allow(clippy::disallowed_methods)] // the one raw open
pub fn open_nonblocking(path: &Path, follow: Follow) -> io::Result<File> {
    let mut o = fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = libc::O_NONBLOCK | libc::O_CLOEXEC;
        if follow == Follow::NoLinks {
            flags |= libc::O_NOFOLLOW;
        }
        o.custom_flags(flags);
    }
    #[cfg(not(unix))]
    let _ = follow;
    o.open(path)
}

/// Opens a file to read it as a stream (a log, an index): without ever blocking, as
/// [`open_nonblocking`], and only when what was opened is a regular file (a log
/// replaced by a FIFO between listing and reading is refused, not waited on). The
/// metadata of what was opened comes with it, so the caller needs no second `fstat`.
pub fn open_regular(path: &Path) -> io::Result<(File, Metadata)> {
    let f = open_nonblocking(path, Follow::Links)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file: {}", kind_of(&meta)),
        ));
    }
    Ok((f, meta))
}

/// Opens `path` to be written from its start, for a file that may hold secrets (a
/// probe transcript): only a regular file, never anything that can block or that is
/// not a file. The kind is checked from the metadata before the open (a FIFO, device,
/// socket or folder is refused without being opened), the open is non-blocking and
/// takes no controlling terminal (unix), and the opened file must be a regular file.
/// A new file is created 0600; an existing one is truncated and keeps at most its
/// owner's read and write bits.
///
/// A symbolic link at `path` is refused, never followed, whether it leads to a file
/// or to nothing ([`output_target`]): a folder the user writes into (a cloned
/// repository) can hold a link named like the output file, to `~/.bashrc` or to
/// `~/.ssh/authorized_keys`. The open itself takes `O_NOFOLLOW` (unix), so a link put
/// there between the check and the open is not followed either.
pub fn create_private(path: &Path) -> Result<File, ReadError> {
    output_target(path)?;
    let mut o = fs::OpenOptions::new();
    o.write(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC | libc::O_NOFOLLOW);
    }
    let file = o.open(path).map_err(|e| {
        // ELOOP: the final component became a link after the check (O_NOFOLLOW).
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return ReadError::NotRegular { kind: LINK };
        }
        ReadError::Io(e)
    })?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            kind: kind_of(&meta),
        });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o7777;
        if mode & !0o600 != 0 {
            file.set_permissions(fs::Permissions::from_mode(mode & 0o600))
                .map_err(ReadError::Io)?;
        }
        set_blocking(&file).map_err(ReadError::Io)?;
    }
    file.set_len(0).map_err(ReadError::Io)?;
    Ok(file)
}

/// What a refused symbolic link at an output file's name is called.
pub const LINK: &str = "a symbolic link (not followed)";

/// Checks the name of a file about to be written (`report -o`, `probe --transcript`),
/// without following a link there: `Ok(true)` for a regular file, `Ok(false)` for
/// nothing at all. A symbolic link (to a file, to a FIFO, or to nothing) and anything
/// that is not a regular file (a FIFO, a device, a folder) are refused.
pub fn output_target(path: &Path) -> Result<bool, ReadError> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(ReadError::NotRegular { kind: LINK }),
        Ok(m) if !m.is_file() => Err(ReadError::NotRegular { kind: kind_of(&m) }),
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(ReadError::Io(e)),
    }
}

#[cfg(unix)]
fn set_blocking(file: &File) -> io::Result<()> {
    use std::os::unix::io::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function borrows; no memory is passed.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A log that a folder's listing showed as a regular file, opened without a second look
/// at its kind: on unix with `O_NOFOLLOW` (a link put in its place since the listing is
/// refused, never followed) and non-blocking (a FIFO put there reads as empty, never
/// waits). Its reader takes a short first read as the file's end and checks the kind
/// ([`Listed::check`]) before reading past its first block: a small log is then opened,
/// read and closed, three system calls where an `fstat` made four (on 100,000 folders,
/// in a virtual machine, each call costs about 2 µs).
#[derive(Debug)]
pub struct Listed {
    pub file: File,
    /// Its size, when its metadata was read already (a file named alone, off unix).
    pub len: Option<u64>,
}

impl Listed {
    /// The size of a file whose first block came back full: from its own metadata,
    /// which must show a regular file (anything else put in its place is refused here,
    /// before more than one block of it is read).
    pub fn check(file: &File) -> io::Result<u64> {
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("not a regular file: {}", kind_of(&meta)),
            ));
        }
        Ok(meta.len())
    }
}

/// A file named by the user (or a debug log): followed and checked as [`open_regular`]
/// does, its size known.
pub fn open_named(path: &Path) -> io::Result<Listed> {
    let (file, meta) = open_regular(path)?;
    Ok(Listed {
        file,
        len: Some(meta.len()),
    })
}

/// A log a listing of its folder showed as a regular file, opened by its path
/// ([`Listed`]).
pub fn open_listed(path: &Path) -> io::Result<Listed> {
    #[cfg(unix)]
    {
        Ok(Listed {
            file: open_nonblocking(path, Follow::NoLinks)?,
            len: None,
        })
    }
    #[cfg(not(unix))]
    {
        open_named(path)
    }
}

/// What a folder's entry is, as its listing says (never following a link).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Folder,
    /// A link, FIFO, socket or device.
    Other,
}

/// A folder opened once to list its entries and to open the files it lists: on unix one
/// descriptor serves both (the listing without the `fstat` glibc's `opendir` makes, each
/// file opened relative to it: the kernel walks one name, not the whole path again).
pub struct OpenFolder {
    path: std::path::PathBuf,
    #[cfg(unix)]
    dir: rustix::fs::Dir,
}

impl OpenFolder {
    /// Opens `path` (a link to a folder is followed, as a listing by path follows it).
    pub fn open(path: &Path) -> io::Result<OpenFolder> {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let fd = rustix::fs::open(
                path,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NONBLOCK | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            Ok(OpenFolder {
                path: path.to_path_buf(),
                dir: rustix::fs::Dir::new(fd)?,
            })
        }
        #[cfg(not(unix))]
        {
            if !fs::metadata(path)?.is_dir() {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a folder"));
            }
            Ok(OpenFolder {
                path: path.to_path_buf(),
            })
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its entries (`.` and `..` left out), each with its kind; an entry that cannot be
    /// read is an error in its place.
    pub fn entries(&mut self) -> Vec<io::Result<(std::ffi::OsString, EntryKind)>> {
        let mut out = Vec::new();
        #[cfg(unix)]
        {
            use rustix::fs::FileType;
            use std::os::unix::ffi::OsStrExt;
            while let Some(entry) = self.dir.read() {
                let entry = match entry {
                    Ok(e) => e,
                    Err(e) => {
                        out.push(Err(e.into()));
                        continue;
                    }
                };
                let name = entry.file_name().to_bytes();
                if name == b"." || name == b".." {
                    continue;
                }
                let name = std::ffi::OsStr::from_bytes(name).to_os_string();
                let kind = match entry.file_type() {
                    // a file system that does not say: asked of the entry itself
                    FileType::Unknown => match self.dir.fd().and_then(|fd| {
                        rustix::fs::statat(
                            fd,
                            name.as_os_str(),
                            rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
                        )
                    }) {
                        Ok(st) => FileType::from_raw_mode(st.st_mode as _),
                        Err(e) => {
                            out.push(Err(e.into()));
                            continue;
                        }
                    },
                    t => t,
                };
                let kind = match kind {
                    FileType::RegularFile => EntryKind::File,
                    FileType::Directory => EntryKind::Folder,
                    _ => EntryKind::Other,
                };
                out.push(Ok((name, kind)));
            }
        }
        #[cfg(not(unix))]
        {
            match fs::read_dir(&self.path) {
                Ok(entries) => {
                    for entry in entries {
                        out.push(entry.and_then(|e| {
                            let t = e.file_type()?;
                            let kind = if t.is_file() {
                                EntryKind::File
                            } else if t.is_dir() {
                                EntryKind::Folder
                            } else {
                                EntryKind::Other
                            };
                            Ok((e.file_name(), kind))
                        }));
                    }
                }
                Err(e) => out.push(Err(e)),
            }
        }
        out
    }

    /// A file its listing showed as a regular file, opened by its name ([`Listed`]).
    pub fn open_listed(&self, name: &std::ffi::OsStr) -> io::Result<Listed> {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let fd = rustix::fs::openat(
                self.dir.fd()?,
                name,
                OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            Ok(Listed {
                file: File::from(fd),
                len: None,
            })
        }
        #[cfg(not(unix))]
        {
            open_named(&self.path.join(name))
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests read their own files
mod tests {
    use super::*;

    #[test]
    fn regular_file_is_read_and_absent_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        assert!(read_regular(&p, 10, Follow::Links).unwrap().is_none());
        fs::write(&p, "{}").unwrap();
        let r = read_regular(&p, 10, Follow::Links).unwrap().unwrap();
        assert_eq!(r.bytes, b"{}");
    }

    #[test]
    fn over_the_cap_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        fs::write(&p, "0123456789").unwrap();
        assert!(matches!(
            read_regular(&p, 9, Follow::Links),
            Err(ReadError::TooLarge { limit: 9 })
        ));
        assert!(read_regular(&p, 10, Follow::Links).is_ok());
        assert!(matches!(
            read_bounded(&b"0123456789"[..], 9),
            Err(ReadError::TooLarge { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_private_file_is_created_0600_and_an_existing_one_loses_group_and_other_bits() {
        use std::io::Write;
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        let new = dir.path().join("new.jsonl");
        create_private(&new).unwrap().write_all(b"x").unwrap();
        assert_eq!(mode(&new), 0o600);
        let old = dir.path().join("old.jsonl");
        fs::write(&old, "longer old content").unwrap();
        fs::set_permissions(&old, fs::Permissions::from_mode(0o664)).unwrap();
        create_private(&old).unwrap().write_all(b"new").unwrap();
        assert_eq!(mode(&old), 0o600);
        assert_eq!(fs::read(&old).unwrap(), b"new");
        let ro = dir.path().join("ro.jsonl");
        fs::write(&ro, "").unwrap();
        fs::set_permissions(&ro, fs::Permissions::from_mode(0o640)).unwrap();
        drop(create_private(&ro).unwrap());
        assert_eq!(mode(&ro), 0o600);
    }

    /// A link at the name of a file to write is refused, never written through: to a
    /// file (left as it was) or to nothing (not created).
    #[cfg(unix)]
    #[test]
    fn a_private_file_is_never_written_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("bashrc");
        fs::write(&victim, "precious\n").unwrap();
        let link = dir.path().join("issue.md");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let dangling = dir.path().join("issue2.md");
        let absent = dir.path().join("newfile");
        std::os::unix::fs::symlink(&absent, &dangling).unwrap();
        for l in [&link, &dangling] {
            assert!(
                matches!(create_private(l), Err(ReadError::NotRegular { kind: LINK })),
                "{}",
                l.display()
            );
            assert!(matches!(
                output_target(l),
                Err(ReadError::NotRegular { kind: LINK })
            ));
        }
        assert_eq!(fs::read(&victim).unwrap(), b"precious\n");
        assert!(fs::symlink_metadata(&absent).is_err());
        assert!(!output_target(&dir.path().join("new.md")).unwrap());
        assert!(output_target(&victim).unwrap());
    }

    #[cfg(unix)]
    #[test]
    fn folder_fifo_device_and_loop_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let refused = |p: &Path| match read_regular(p, 1 << 20, Follow::Links) {
            Err(ReadError::NotRegular { kind }) => kind,
            other => panic!("{}: {other:?}", p.display()),
        };
        assert_eq!(refused(&fifo), "a FIFO (named pipe)");
        assert_eq!(refused(Path::new("/dev/zero")), "a character device");
        assert_eq!(refused(dir.path()), "a folder");
        let link = dir.path().join("loop");
        std::os::unix::fs::symlink(&link, &link).unwrap();
        let e = read_regular(&link, 10, Follow::Links).unwrap_err();
        assert!(e.to_string().contains("symbolic link loop"), "{e}");
        // A symlink where the caller resolved the path is refused, not followed.
        let real = dir.path().join("real");
        fs::write(&real, "{}").unwrap();
        let l2 = dir.path().join("l2");
        std::os::unix::fs::symlink(&real, &l2).unwrap();
        assert!(matches!(
            read_regular(&l2, 10, Follow::NoLinks),
            Err(ReadError::NotRegular {
                kind: "a symbolic link"
            })
        ));
        // Written files: the same refusals, none of them opened (a FIFO with a reader
        // would block nothing, but it is still not a file).
        for p in [&fifo, Path::new("/dev/null"), dir.path()] {
            assert!(
                matches!(create_private(p), Err(ReadError::NotRegular { .. })),
                "{}",
                p.display()
            );
        }
        // explain input: a FIFO nobody writes to reads as empty, a device is refused.
        assert_eq!(read_input_file(&fifo, 10).unwrap(), b"");
        assert!(matches!(
            read_input_file(Path::new("/dev/zero"), 10),
            Err(ReadError::NotRegular { .. })
        ));
    }

    /// A folder opened once lists each entry with its kind as listed (a link, a FIFO:
    /// `Other`, never followed), and opens a listed name without following a link or
    /// blocking: a link put where a file was listed is refused, a FIFO opens and reads
    /// as empty, and [`Listed::check`] refuses anything but a regular file by kind.
    #[cfg(unix)]
    #[test]
    fn an_open_folder_lists_kinds_and_opens_listed_names_without_following() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.jsonl"), "{}\n").unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("a.jsonl"), dir.path().join("link")).unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let mut folder = OpenFolder::open(dir.path()).unwrap();
        assert_eq!(folder.path(), dir.path());
        let mut listed: Vec<(String, EntryKind)> = folder
            .entries()
            .into_iter()
            .map(|e| {
                let (n, k) = e.unwrap();
                (n.to_string_lossy().into_owned(), k)
            })
            .collect();
        listed.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            listed,
            [
                ("a.jsonl".to_string(), EntryKind::File),
                ("fifo".to_string(), EntryKind::Other),
                ("link".to_string(), EntryKind::Other),
                ("sub".to_string(), EntryKind::Folder),
            ]
        );
        // the listed file: opened, its size unknown until asked
        let mut f = folder.open_listed(std::ffi::OsStr::new("a.jsonl")).unwrap();
        assert_eq!(f.len, None);
        assert_eq!(Listed::check(&f.file).unwrap(), 3);
        let mut text = String::new();
        f.file.read_to_string(&mut text).unwrap();
        assert_eq!(text, "{}\n");
        // a link in a listed name's place: refused, by the folder and by the path
        let e = folder
            .open_listed(std::ffi::OsStr::new("link"))
            .unwrap_err();
        assert!(is_symlink_loop(&e), "{e}");
        let e = open_listed(&dir.path().join("link")).unwrap_err();
        assert!(is_symlink_loop(&e), "{e}");
        // a FIFO in its place: opened without waiting, empty, and not a regular file
        let mut f = folder.open_listed(std::ffi::OsStr::new("fifo")).unwrap();
        let mut buf = [0u8; 16];
        assert_eq!(f.file.read(&mut buf).unwrap(), 0);
        let e = Listed::check(&f.file).unwrap_err();
        assert!(e.to_string().contains("a FIFO"), "{e}");
        // a file named alone is followed and its size known
        let named = open_named(&dir.path().join("link")).unwrap();
        assert_eq!(named.len, Some(3));
        assert!(OpenFolder::open(&dir.path().join("a.jsonl")).is_err());
    }

    /// [`read_regular`] reads a regular file whole (its buffer sized from the `stat`, the
    /// cap exact), says `None` for an absent one, and refuses a FIFO (without blocking),
    /// a device, a folder, a link loop and a link where none may be, by kind.
    #[cfg(unix)]
    #[test]
    fn read_regular_reads_whole_and_refuses_by_kind() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        assert!(read_regular(&p, 10, Follow::Links).unwrap().is_none());
        fs::write(&p, "0123456789").unwrap();
        let r = read_regular(&p, 10, Follow::Links).unwrap().unwrap();
        assert_eq!(r.bytes, b"0123456789");
        assert_eq!(r.id, FileId::of(&fs::metadata(&p).unwrap()));
        assert!(matches!(
            read_regular(&p, 9, Follow::Links),
            Err(ReadError::TooLarge { limit: 9 })
        ));
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let link = dir.path().join("loop");
        std::os::unix::fs::symlink(&link, &link).unwrap();
        let l2 = dir.path().join("l2");
        std::os::unix::fs::symlink(&p, &l2).unwrap();
        for (path, follow, want) in [
            (fifo.as_path(), Follow::Links, "a FIFO (named pipe)"),
            (Path::new("/dev/zero"), Follow::Links, "a character device"),
            (dir.path(), Follow::Links, "a folder"),
            (l2.as_path(), Follow::NoLinks, "a symbolic link"),
        ] {
            match read_regular(path, 1 << 20, follow) {
                Err(ReadError::NotRegular { kind }) => {
                    assert!(kind.starts_with(want), "{}: {kind}", path.display())
                }
                other => panic!("{}: {other:?}", path.display()),
            }
        }
        let e = read_regular(&link, 10, Follow::Links).unwrap_err();
        assert!(e.to_string().contains("symbolic link loop"), "{e}");
        // followed where links may be
        assert_eq!(
            read_regular(&l2, 10, Follow::Links).unwrap().unwrap().bytes,
            b"0123456789"
        );
    }

    #[test]
    fn read_regular_of_a_gone_project_stats_it_once() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("gone");
        let scope = crate::absent::scope();
        for _ in 0..3 {
            for name in [
                ".claude/settings.json",
                ".claude/settings.local.json",
                ".mcp.json",
            ] {
                assert!(
                    read_regular(&project.join(name), 1024, Follow::Links)
                        .unwrap()
                        .is_none()
                );
            }
        }
        // The first look-up found the folder missing; the eight after it were skipped.
        assert_eq!(scope.skipped(), 8);
        // A file that is there is still read, and one made later in a folder that was
        // there is found.
        std::fs::write(tmp.path().join("later.json"), "{}").unwrap();
        assert!(
            read_regular(&tmp.path().join("later.json"), 1024, Follow::Links)
                .unwrap()
                .is_some()
        );
    }
}
