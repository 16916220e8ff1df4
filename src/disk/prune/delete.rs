//! The second half of `prune`: deleting what [`plan`](super::plan) chose, each file checked
//! again just before and unlinked through its planned folder only. The rules of what may
//! go are the parent module's.

use std::fs;
use std::io;
use std::path::PathBuf;
use std::time::SystemTime;

use super::{Age, Candidate, Group, Outcome, Plan, age, identity};
use crate::warning::Warning;

/// Deletes the plan's files, checking each again just before: still a regular file in
/// the same resolved folder, same identity, size and modification time, and still not
/// modified in the last [`IN_USE_SECS`](super::IN_USE_SECS). A file that vanished,
/// changed or cannot be deleted is skipped and reported; the rest goes on.
///
/// Then the entries of mcplogs' own cache that describe what went (the plan's `cache`,
/// each checked again), and the summaries of the deleted files in the index.
pub fn execute(plan: &Plan, now: SystemTime) -> Outcome {
    let mut out = Outcome::default();
    for g in &plan.groups {
        let before = out.deleted;
        for c in &g.files {
            match delete_one(g, c, now) {
                Ok(()) => {
                    out.deleted += 1;
                    out.bytes_freed += c.bytes;
                }
                Err(reason) => out.skipped.push(Warning::new(&c.path, reason.to_string())),
            }
        }
        if out.deleted > before
            && let Some(ix) = &plan.own_cache
        {
            // the index in mcplogs' cache, also when this run read without it
            // (`--no-cache`): summaries of deleted files are not kept
            crate::scan::cache::forget_gone(ix, &g.dir);
        }
    }
    super::own_cache::execute(plan, plan.own_cache.as_deref(), &mut out);
    out
}

/// Why a planned file was left alone.
#[derive(Debug, thiserror::Error)]
pub enum NotDeleted {
    #[error("not deleted: it has no parent folder")]
    NoParent,
    #[error("not deleted: its folder now resolves to {} (a symlink?)", .0.display())]
    FolderMoved(PathBuf),
    #[error("not deleted: no longer a regular file")]
    NotRegular,
    #[error("not deleted: the file changed since the plan (Claude Code may be using it)")]
    Changed,
    #[error("not deleted: modified in the last 10 minutes")]
    InUse,
    #[error("not deleted: vanished before it could be deleted")]
    Vanished,
    #[error("not deleted: permission denied")]
    PermissionDenied,
    #[error("not deleted: {0}")]
    Io(#[source] io::Error),
}

impl From<io::Error> for NotDeleted {
    fn from(e: io::Error) -> Self {
        match e.kind() {
            io::ErrorKind::NotFound => NotDeleted::Vanished,
            io::ErrorKind::PermissionDenied => NotDeleted::PermissionDenied,
            _ => NotDeleted::Io(e),
        }
    }
}

fn delete_one(g: &Group, c: &Candidate, now: SystemTime) -> Result<(), NotDeleted> {
    // The folder must still resolve to where the plan found it: a folder swapped for a
    // symlink (to anywhere) since the plan resolves elsewhere.
    let parent = c.path.parent().ok_or(NotDeleted::NoParent)?;
    let resolved = fs::canonicalize(parent)?;
    if resolved != g.dir {
        return Err(NotDeleted::FolderMoved(resolved));
    }
    let meta = fs::symlink_metadata(&c.path)?;
    if !meta.is_file() {
        return Err(NotDeleted::NotRegular);
    }
    let modified = meta.modified()?;
    if identity(&meta) != c.identity || meta.len() != c.bytes || modified != c.modified {
        return Err(NotDeleted::Changed);
    }
    if matches!(age(modified, now, None), Age::InUse) {
        return Err(NotDeleted::InUse);
    }
    remove_in_planned_folder(g, c)?;
    Ok(())
}

/// Unlinks the file through a handle on its folder opened without following any
/// symlink on the way (every component of the planned, resolved folder), checked to
/// be the folder the plan found (device, inode), and the name checked once more,
/// through that handle, to be the planned regular file. A folder swapped for a symlink
/// after the checks above can no longer redirect the deletion out of the cache root:
/// the name is removed from the planned folder or not at all.
#[cfg(unix)]
fn remove_in_planned_folder(g: &Group, c: &Candidate) -> io::Result<()> {
    use super::Identity;
    use std::ffi::CString;
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Component;

    let changed = || io::Error::other("its folder changed since the plan (a symlink?)");
    let name = c.path.file_name().ok_or_else(changed)?;
    let cname = CString::new(name.as_bytes()).map_err(|_| changed())?;
    #[cfg(target_os = "linux")]
    let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    #[cfg(not(target_os = "linux"))]
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    let mut dir: Option<fs::File> = None;
    for comp in g.dir.components() {
        let part = match comp {
            Component::RootDir => c"/".to_owned(),
            Component::Normal(n) => CString::new(n.as_bytes()).map_err(|_| changed())?,
            _ => return Err(changed()),
        };
        let at = dir.as_ref().map_or(libc::AT_FDCWD, |d| d.as_raw_fd());
        // SAFETY: `part` is a valid C string; the descriptor returned is owned below.
        let fd = unsafe { libc::openat(at, part.as_ptr(), flags) };
        if fd < 0 {
            let e = io::Error::last_os_error();
            return Err(match e.raw_os_error() {
                Some(libc::ELOOP) | Some(libc::ENOTDIR) => changed(),
                _ => e,
            });
        }
        // SAFETY: `fd` was just opened and is owned by nobody else.
        dir = Some(unsafe { fs::File::from_raw_fd(fd) });
    }
    let dir = dir.ok_or_else(changed)?;
    if Some(identity(&dir.metadata()?)) != g.dir_identity {
        return Err(changed());
    }
    // SAFETY: an all-zero `stat` is a valid value for fstatat to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid descriptor, C string and out-pointer.
    if unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            cname.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    #[allow(clippy::unnecessary_cast)]
    let same = (st.st_mode & libc::S_IFMT) == libc::S_IFREG
        && Identity {
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
        } == c.identity;
    if !same {
        return Err(io::Error::other(
            "the file changed since the plan (Claude Code may be using it)",
        ));
    }
    // SAFETY: valid descriptor and C string.
    if unsafe { libc::unlinkat(dir.as_raw_fd(), cname.as_ptr(), 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(not(unix))]
fn remove_in_planned_folder(_g: &Group, c: &Candidate) -> io::Result<()> {
    fs::remove_file(&c.path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::disk::prune::{PruneOptions, plan};
    use std::path::Path;
    use std::time::Duration;

    /// The last layer alone (called past the path checks of `delete_one`, as if the
    /// swap happened just after them): a planned folder, or a folder above it, swapped
    /// for a symlink or for another folder holding files of the same names, deletes
    /// nothing; the planned folder itself still deletes.
    #[test]
    fn deletion_goes_through_the_planned_folder_only() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let debug = home.join(".claude").join("debug");
        fs::create_dir_all(&debug).unwrap();
        let names: Vec<String> = (1..=4)
            .map(|i| format!("0b0f3c1e-1111-4a2b-9c3d-00000000000{i}.txt"))
            .collect();
        let week = crate::time::file_system_clock() - Duration::from_secs(7 * 86_400);
        for (i, n) in names.iter().enumerate() {
            let p = debug.join(n);
            fs::write(&p, "x").unwrap();
            let f = fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(week + Duration::from_secs(i as u64))
                .unwrap();
        }
        let opts = PruneOptions {
            homes: vec![home.clone()],
            ..PruneOptions::default()
        };
        let p = plan(&opts, crate::time::file_system_clock()).unwrap();
        let g = &p.groups[0];
        assert_eq!(g.files.len(), 3);
        let decoy = tmp.path().join("decoy");
        fs::create_dir(&decoy).unwrap();
        for n in &names {
            fs::write(decoy.join(n), "precious").unwrap();
        }
        let count = |d: &Path| fs::read_dir(d).unwrap().count();

        // The folder itself swapped for a symlink.
        let real = home.join(".claude").join("debug.real");
        fs::rename(&debug, &real).unwrap();
        symlink(&decoy, &debug).unwrap();
        assert!(remove_in_planned_folder(g, &g.files[0]).is_err());
        assert_eq!(count(&decoy), 4);
        fs::remove_file(&debug).unwrap();

        // A folder above it swapped for a symlink to a tree of the same shape.
        let other = tmp.path().join("other");
        fs::create_dir_all(&other).unwrap();
        symlink(&decoy, other.join("debug")).unwrap();
        fs::rename(home.join(".claude"), tmp.path().join("claude.real")).unwrap();
        symlink(&other, home.join(".claude")).unwrap();
        assert!(remove_in_planned_folder(g, &g.files[0]).is_err());
        assert_eq!(count(&decoy), 4);
        fs::remove_file(home.join(".claude")).unwrap();
        fs::rename(tmp.path().join("claude.real"), home.join(".claude")).unwrap();

        // Another real folder (no symlink) renamed into its place.
        fs::rename(&decoy, &debug).unwrap();
        assert!(remove_in_planned_folder(g, &g.files[0]).is_err());
        assert_eq!(count(&debug), 4);
        fs::rename(&debug, &decoy).unwrap();

        // The planned folder back in place: the file goes, the decoy stays.
        fs::rename(&real, &debug).unwrap();
        remove_in_planned_folder(g, &g.files[0]).unwrap();
        assert!(!g.files[0].path.exists());
        assert_eq!(count(&decoy), 4);
    }
}
