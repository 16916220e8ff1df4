//! Faults while writing settings, injected through `settings::write::Fs`: a full disk
//! midway through a write, a failed rename, a crash between the temporary write and the
//! rename, a folder that refuses new files, a backup that cannot be written. In every
//! case the settings file stays byte-for-byte what it was, the error names the file and
//! the cause, and a later fix or undo still works. The injected layer also watches the
//! temporary files' permissions while they exist: never more than the original's.
//!
//! Tests run as root here, and root ignores permission bits, hence injection rather
//! than `chmod` (tests/settings_fix.rs runs the binary as `nobody` for the real
//! read-only folder).

use std::cell::RefCell;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use mcplogs::settings::SettingsError;
use mcplogs::settings::fix::{FixOptions, FixPlan, PendingFix, apply_fix, apply_fix_in, plan_fix};
use mcplogs::settings::undo::{
    UndoPlan, apply_undo, apply_undo_in, backup_path, plan_undo, state_path,
};
use mcplogs::settings::write::{Beside, Fs, RealFs, Swap, TEMP_SUFFIX};

const ORIGINAL: &str = "{\n  \"model\": \"opus\",\n  \"env\": {\n    \"ANTHROPIC_API_KEY\": \"sk-ant-api03-secret\"\n  }\n}\n";

/// One operation of a write, and which call of it (1-based) fails. During a fix the
/// order is: backup (call 1 of each operation), settings file (call 2), undo record
/// (call 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    CreateTemp,
    Write,
    Rename,
    Remove,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// `EACCES`, as from a folder without write permission.
    PermissionDenied,
    /// Half the bytes written, then `ENOSPC`.
    DiskFull,
    /// `EIO` from the rename.
    RenameFails,
    /// The process dies just before the rename: the temporary file stays as it is.
    Crash,
}

struct Faulty {
    fault: Option<(Op, usize, Fault)>,
    calls: RefCell<Vec<Op>>,
    /// Mode of every temporary file, seen after it was written and before the rename.
    temp_modes: RefCell<Vec<(PathBuf, u32)>>,
    /// Where a simulated crash left its temporary file.
    crashed: RefCell<Option<PathBuf>>,
}

impl Faulty {
    fn new(fault: Option<(Op, usize, Fault)>) -> Faulty {
        Faulty {
            fault,
            calls: RefCell::new(Vec::new()),
            temp_modes: RefCell::new(Vec::new()),
            crashed: RefCell::new(None),
        }
    }

    /// The fault for this call of `op`, if this is the one that fails.
    fn hit(&self, op: Op) -> Option<Fault> {
        let mut calls = self.calls.borrow_mut();
        calls.push(op);
        let n = calls.iter().filter(|o| **o == op).count();
        match self.fault {
            Some((o, k, f)) if o == op && k == n => Some(f),
            _ => None,
        }
    }

    fn watch(&self, p: &Path) {
        let mode = fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        self.temp_modes.borrow_mut().push((p.to_path_buf(), mode));
    }
}

fn os_error(code: i32) -> io::Error {
    io::Error::from_raw_os_error(code)
}

const EACCES: i32 = 13;
const ENOSPC: i32 = 28;
const EIO: i32 = 5;

impl Faulty {
    /// The fault of this rename (or swap) of the temporary file `tmp`, if any.
    fn rename_fault(&self, tmp: &Path) -> io::Result<()> {
        self.watch(tmp);
        match self.hit(Op::Rename) {
            Some(Fault::RenameFails) => Err(os_error(EIO)),
            Some(Fault::Crash) => {
                // What a crash leaves: the written temporary file under its own name.
                // (Its second name keeps it when the temporary file is dropped.)
                let name = tmp.file_name().unwrap().to_string_lossy();
                let left = tmp.with_file_name(name.replace(TEMP_SUFFIX, "-crash.mcplogs-tmp"));
                fs::hard_link(tmp, &left)?;
                *self.crashed.borrow_mut() = Some(left);
                Err(io::Error::other("simulated crash before the rename"))
            }
            _ => Ok(()),
        }
    }
}

impl Fs for Faulty {
    fn create_temp(&self, builder: &tempfile::Builder, dir: &Path) -> io::Result<NamedTempFile> {
        if let Some(Fault::PermissionDenied) = self.hit(Op::CreateTemp) {
            return Err(os_error(EACCES));
        }
        let tmp = RealFs.create_temp(builder, dir)?;
        self.watch(tmp.path());
        Ok(tmp)
    }

    fn write(&self, tmp: &mut NamedTempFile, bytes: &[u8]) -> io::Result<()> {
        if let Some(Fault::DiskFull) = self.hit(Op::Write) {
            RealFs.write(tmp, &bytes[..bytes.len() / 2])?;
            return Err(os_error(ENOSPC));
        }
        RealFs.write(tmp, bytes)?;
        self.watch(tmp.path());
        Ok(())
    }

    fn rename(&self, tmp: NamedTempFile, to: &Path) -> io::Result<()> {
        self.rename_fault(tmp.path())?;
        RealFs.rename(tmp, to)
    }

    /// The settings file itself is swapped in, not renamed: the same faults.
    fn swap(&self, tmp: &Path, to: &Path, how: Swap) -> io::Result<()> {
        self.rename_fault(tmp)?;
        RealFs.swap(tmp, to, how)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        if let Some(Fault::PermissionDenied) = self.hit(Op::Remove) {
            return Err(os_error(EACCES));
        }
        RealFs.remove_file(path)
    }

    /// A backup or an undo record: the same operations in the same order (its own
    /// temporary file is the store's, removed on every failure, so a crash there leaves
    /// nothing); the mode watched is the written file's.
    fn write_own(
        &self,
        dir: &Beside,
        name: &std::ffi::OsStr,
        bytes: &[u8],
        mode: u32,
        owner: Option<(u32, u32)>,
    ) -> io::Result<()> {
        if let Some(Fault::PermissionDenied) = self.hit(Op::CreateTemp) {
            return Err(os_error(EACCES));
        }
        if let Some(Fault::DiskFull) = self.hit(Op::Write) {
            return Err(os_error(ENOSPC));
        }
        match self.hit(Op::Rename) {
            Some(Fault::RenameFails) => return Err(os_error(EIO)),
            Some(Fault::Crash) => {
                return Err(io::Error::other("simulated crash before the rename"));
            }
            _ => {}
        }
        RealFs.write_own(dir, name, bytes, mode, owner)?;
        self.watch(&dir.path().join(name));
        Ok(())
    }
}

struct Setup {
    dir: tempfile::TempDir,
    path: PathBuf,
}

fn setup(mode: u32) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    fs::write(&path, ORIGINAL).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
    Setup { dir, path }
}

fn pending(path: &Path) -> PendingFix {
    match plan_fix(path, FixOptions::default()).unwrap() {
        FixPlan::Pending(p) => p,
        other => panic!("{other:?}"),
    }
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn mode(p: &Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

/// The settings file is exactly as before, with its mode.
fn assert_intact(s: &Setup, mode_before: u32) {
    assert_eq!(fs::read_to_string(&s.path).unwrap(), ORIGINAL);
    assert_eq!(mode(&s.path), mode_before);
}

/// The error names `file` and carries `cause`, and says the settings were not changed.
fn assert_names(err: &SettingsError, file: &Path, cause: &str) {
    let msg = err.to_string();
    assert!(msg.contains(&file.display().to_string()), "{msg}");
    assert!(msg.contains(cause), "{msg}");
    assert!(msg.contains("the settings file was not changed"), "{msg}");
}

/// Then the real thing works: fix, then undo gives the original bytes back.
fn assert_fix_and_undo_still_work(s: &Setup) {
    apply_fix(&pending(&s.path)).unwrap();
    assert!(fs::read_to_string(&s.path).unwrap().contains("\"legacy\""));
    let UndoPlan::Pending(u) = plan_undo(&s.path, false).unwrap() else {
        panic!("nothing to undo")
    };
    apply_undo(&u).unwrap();
    assert_eq!(fs::read_to_string(&s.path).unwrap(), ORIGINAL);
}

#[test]
fn disk_full_midway_through_the_settings_write() {
    let s = setup(0o600);
    let fs_ = Faulty::new(Some((Op::Write, 2, Fault::DiskFull)));
    let err = apply_fix_in(&fs_, &pending(&s.path)).unwrap_err();
    assert_names(&err, &s.path, "No space left on device");
    assert_intact(&s, 0o600);
    // The half-written temporary file is gone; the backup (written first) stays, and
    // no undo record claims a fix that did not happen.
    assert_eq!(
        names(s.dir.path()),
        ["settings.json", "settings.json.mcplogs-backup"]
    );
    assert_eq!(fs::read_to_string(backup_path(&s.path)).unwrap(), ORIGINAL);
    assert!(matches!(
        plan_undo(&s.path, false).unwrap(),
        UndoPlan::NothingToUndo
    ));
    assert_fix_and_undo_still_work(&s);
}

#[test]
fn rename_failure_of_the_settings_file() {
    let s = setup(0o640);
    let fs_ = Faulty::new(Some((Op::Rename, 2, Fault::RenameFails)));
    let err = apply_fix_in(&fs_, &pending(&s.path)).unwrap_err();
    assert_names(&err, &s.path, "Input/output error");
    assert_intact(&s, 0o640);
    assert_eq!(
        names(s.dir.path()),
        ["settings.json", "settings.json.mcplogs-backup"]
    );
    assert_fix_and_undo_still_work(&s);
}

#[test]
fn crash_between_the_temporary_write_and_the_rename() {
    let s = setup(0o600);
    let fs_ = Faulty::new(Some((Op::Rename, 2, Fault::Crash)));
    let p = pending(&s.path);
    assert!(apply_fix_in(&fs_, &p).is_err());
    assert_intact(&s, 0o600);
    // The leftover holds the new content, no more readable than the original.
    let left = fs_.crashed.borrow().clone().expect("crash simulated");
    assert_eq!(fs::read(&left).unwrap(), p.new_bytes);
    assert_eq!(mode(&left), 0o600);
    assert!(
        left.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(".settings.json."),
        "{left:?}"
    );
    // A later fix and undo work around it, and do not touch it.
    assert_fix_and_undo_still_work(&s);
    assert!(left.exists());
}

#[test]
fn crash_during_undo_leaves_the_fixed_file_and_undo_can_be_retried() {
    let s = setup(0o600);
    apply_fix(&pending(&s.path)).unwrap();
    let fixed = fs::read(&s.path).unwrap();
    let UndoPlan::Pending(u) = plan_undo(&s.path, false).unwrap() else {
        panic!()
    };
    // Undo's only write is the settings file: call 1.
    let fs_ = Faulty::new(Some((Op::Rename, 1, Fault::Crash)));
    let err = apply_undo_in(&fs_, &u).unwrap_err();
    assert!(
        err.to_string().contains(&s.path.display().to_string()),
        "{err}"
    );
    assert_eq!(fs::read(&s.path).unwrap(), fixed);
    assert!(
        state_path(&s.path).exists(),
        "the undo record survives for a retry"
    );
    let UndoPlan::Pending(u) = plan_undo(&s.path, false).unwrap() else {
        panic!()
    };
    apply_undo(&u).unwrap();
    assert_eq!(fs::read_to_string(&s.path).unwrap(), ORIGINAL);
}

#[test]
fn undo_rename_and_remove_failures_keep_the_file_and_the_record() {
    // Restoring a backup: the rename fails.
    let s = setup(0o600);
    apply_fix(&pending(&s.path)).unwrap();
    let fixed = fs::read(&s.path).unwrap();
    let UndoPlan::Pending(u) = plan_undo(&s.path, false).unwrap() else {
        panic!()
    };
    let err =
        apply_undo_in(&Faulty::new(Some((Op::Rename, 1, Fault::RenameFails))), &u).unwrap_err();
    assert_names(&err, &s.path, "Input/output error");
    assert_eq!(fs::read(&s.path).unwrap(), fixed);
    assert!(state_path(&s.path).exists());

    // Removing a file the fix created: the removal fails.
    let dir = tempfile::tempdir().unwrap();
    let created = dir.path().join("settings.json");
    apply_fix(&pending(&created)).unwrap();
    let UndoPlan::Pending(u) = plan_undo(&created, false).unwrap() else {
        panic!()
    };
    let err = apply_undo_in(
        &Faulty::new(Some((Op::Remove, 1, Fault::PermissionDenied))),
        &u,
    )
    .unwrap_err();
    assert_names(&err, &created, "Permission denied");
    assert!(created.exists() && state_path(&created).exists());
}

#[test]
fn folder_not_writable_writes_nothing() {
    let s = setup(0o600);
    let fs_ = Faulty::new(Some((Op::CreateTemp, 1, Fault::PermissionDenied)));
    let err = apply_fix_in(&fs_, &pending(&s.path)).unwrap_err();
    assert_names(&err, &s.path, "Permission denied");
    assert_intact(&s, 0o600);
    assert_eq!(names(s.dir.path()), ["settings.json"]);
}

/// The backup is written first; any failure there means no write at all.
#[test]
fn backup_that_cannot_be_written_means_no_write_at_all() {
    for (op, fault, cause) in [
        (Op::CreateTemp, Fault::PermissionDenied, "Permission denied"),
        (Op::Write, Fault::DiskFull, "No space left on device"),
        (Op::Rename, Fault::RenameFails, "Input/output error"),
        (Op::Rename, Fault::Crash, "simulated crash"),
    ] {
        let s = setup(0o600);
        let fs_ = Faulty::new(Some((op, 1, fault)));
        let err = apply_fix_in(&fs_, &pending(&s.path)).unwrap_err();
        // The backup's own name, which starts with the settings file's.
        assert_names(&err, &backup_path(&s.path), cause);
        assert_intact(&s, 0o600);
        let mut expected = vec!["settings.json".to_string()];
        if let Some(left) = fs_.crashed.borrow().as_ref() {
            expected.insert(0, left.file_name().unwrap().to_string_lossy().into_owned());
        }
        assert_eq!(names(s.dir.path()), expected, "{op:?} {fault:?}");
        // Only the backup was attempted: the settings file's temporary never existed.
        assert_eq!(
            fs_.calls
                .borrow()
                .iter()
                .filter(|o| **o == Op::CreateTemp)
                .count(),
            1
        );
        assert_fix_and_undo_still_work(&s);
    }
}

/// Backups and temporary files are never more readable than the original: with a
/// 0600 original every one is 0600 at every moment it exists; with 0640, never more
/// than 0640. The undo record has at most the original's owner bits.
#[test]
fn temporary_files_and_backup_are_never_more_readable_than_the_original() {
    for original_mode in [0o600, 0o640, 0o400] {
        let s = setup(original_mode);
        let fs_ = Faulty::new(None);
        apply_fix_in(&fs_, &pending(&s.path)).unwrap();
        let seen = fs_.temp_modes.borrow();
        // The settings file's temporary: created, written, about to be swapped; the
        // backup and the undo record as written (the store's temporary files are 0600
        // from their creation, exclusive, never through a link).
        assert_eq!(seen.len(), 5, "{seen:?}");
        for (p, m) in seen.iter() {
            let name = p.file_name().unwrap().to_string_lossy();
            assert!(
                name.ends_with(TEMP_SUFFIX)
                    || *p == backup_path(&s.path)
                    || *p == state_path(&s.path),
                "{p:?}"
            );
            // Backup, undo record and settings file alike: never a bit the original
            // does not have.
            assert_eq!(
                m & !original_mode,
                0,
                "{p:?} had mode {m:o}, original {original_mode:o}"
            );
        }
        // private: at most the owner's read and write bits of the original
        assert_eq!(mode(&backup_path(&s.path)), original_mode & 0o600);
        assert_eq!(mode(&s.path), original_mode);
        // The record: at most the owner's bits of the original.
        assert_eq!(mode(&state_path(&s.path)), original_mode & 0o600);
        assert_eq!(fs::read_to_string(backup_path(&s.path)).unwrap(), ORIGINAL);
    }
}
