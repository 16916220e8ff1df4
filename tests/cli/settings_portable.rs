//! The settings writer and undo on every OS: faults injected through
//! `settings::write::Fs` with portable errors (no OS error numbers, no permission bits),
//! so the code paths Windows and macOS take are tested wherever `cargo test` runs, not
//! only type-checked. The one permission all platforms share, the read-only flag, is
//! kept by every write. (settings_faults.rs adds the unix permission bits.)

use std::cell::Cell;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use mcplogs::settings::fix::{FixOptions, FixPlan, PendingFix, apply_fix, apply_fix_in, plan_fix};
use mcplogs::settings::undo::{
    UndoPlan, apply_undo, apply_undo_in, backup_path, plan_undo, state_path,
};
use mcplogs::settings::write::{Beside, Fs, RealFs, Swap};

const ORIGINAL: &str = "{\r\n  \"model\": \"opus\"\r\n}\r\n";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    CreateTemp,
    Write,
    SetPermissions,
    Sync,
    Rename,
    Swap,
    Remove,
}

/// Fails the `nth` call (1-based) of `op` with `kind`; every other call is real.
struct FailNth {
    op: Op,
    nth: usize,
    kind: io::ErrorKind,
    seen: Cell<usize>,
}

impl FailNth {
    fn new(op: Op, nth: usize, kind: io::ErrorKind) -> FailNth {
        FailNth {
            op,
            nth,
            kind,
            seen: Cell::new(0),
        }
    }

    fn check(&self, op: Op) -> io::Result<()> {
        if op != self.op {
            return Ok(());
        }
        self.seen.set(self.seen.get() + 1);
        if self.seen.get() == self.nth {
            Err(io::Error::new(
                self.kind,
                format!("injected {op:?} failure"),
            ))
        } else {
            Ok(())
        }
    }
}

impl Fs for FailNth {
    fn create_temp(&self, builder: &tempfile::Builder, dir: &Path) -> io::Result<NamedTempFile> {
        self.check(Op::CreateTemp)?;
        RealFs.create_temp(builder, dir)
    }
    fn write(&self, tmp: &mut NamedTempFile, bytes: &[u8]) -> io::Result<()> {
        self.check(Op::Write)?;
        RealFs.write(tmp, bytes)
    }
    fn set_permissions(&self, path: &Path, perms: fs::Permissions) -> io::Result<()> {
        self.check(Op::SetPermissions)?;
        RealFs.set_permissions(path, perms)
    }
    fn sync(&self, file: &fs::File) -> io::Result<()> {
        self.check(Op::Sync)?;
        RealFs.sync(file)
    }
    fn rename(&self, tmp: NamedTempFile, to: &Path) -> io::Result<()> {
        self.check(Op::Rename)?;
        RealFs.rename(tmp, to)
    }
    fn swap(&self, tmp: &Path, to: &Path, how: Swap) -> io::Result<()> {
        self.check(Op::Swap)?;
        RealFs.swap(tmp, to, how)
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.check(Op::Remove)?;
        RealFs.remove_file(path)
    }
    /// A backup or an undo record: the same steps in the same order.
    fn write_own(
        &self,
        dir: &Beside,
        name: &std::ffi::OsStr,
        bytes: &[u8],
        mode: u32,
        owner: Option<(u32, u32)>,
    ) -> io::Result<()> {
        for op in [Op::CreateTemp, Op::Write, Op::Sync, Op::Rename] {
            self.check(op)?;
        }
        RealFs.write_own(dir, name, bytes, mode, owner)
    }
}

fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    fs::write(&path, ORIGINAL).unwrap();
    (dir, path)
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

/// The fix of ORIGINAL: a new `env` block goes first, in the file's own line endings.
const FIXED: &str = "{\r\n  \"env\": {\r\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\r\n  },\r\n  \"model\": \"opus\"\r\n}\r\n";

/// Every step of writing the settings file (call 2 of each operation: the backup is
/// call 1) fails in turn: the file stays as it was, no temporary file is left, no undo
/// record claims a fix, the error names the file, and the fix then works.
#[test]
fn each_failing_step_of_the_settings_write_leaves_it_untouched() {
    for op in [
        Op::CreateTemp,
        Op::Write,
        Op::SetPermissions,
        Op::Sync,
        Op::Swap,
    ] {
        let (dir, path) = setup();
        // Only a read-only original has permissions to set; make it one for that case.
        let read_only = op == Op::SetPermissions;
        // The backup comes first (created, written, synced, renamed); only the settings
        // file is swapped into place.
        let nth = if read_only || op == Op::Swap { 1 } else { 2 };
        if read_only {
            set_read_only(&path, true);
        }
        let failing = FailNth::new(op, nth, io::ErrorKind::Other);
        let err = apply_fix_in(&failing, &pending(&path)).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains(&path.display().to_string()), "{op:?}: {msg}");
        assert!(msg.contains(&format!("injected {op:?} failure")), "{msg}");
        assert_eq!(fs::read_to_string(&path).unwrap(), ORIGINAL, "{op:?}");
        assert_eq!(is_read_only(&path), read_only);
        let left = names(dir.path());
        assert!(
            left.iter()
                .all(|n| n == "settings.json" || n == "settings.json.mcplogs-backup"),
            "{op:?}: {left:?}"
        );
        assert!(
            matches!(plan_undo(&path, false).unwrap(), UndoPlan::NothingToUndo),
            "{op:?}"
        );
        if read_only {
            set_read_only(&path, false);
        }
        apply_fix(&pending(&path)).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), FIXED);
    }
}

/// A backup that cannot be written means no write at all.
#[test]
fn a_failing_backup_means_nothing_is_written() {
    for op in [Op::CreateTemp, Op::Write, Op::Sync, Op::Rename] {
        let (dir, path) = setup();
        let err =
            apply_fix_in(&FailNth::new(op, 1, io::ErrorKind::Other), &pending(&path)).unwrap_err();
        assert!(err.to_string().contains("injected"), "{op:?}: {err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), ORIGINAL);
        assert_eq!(names(dir.path()), ["settings.json"], "{op:?}");
    }
}

/// The fix keeps CRLF line endings, and undo restores the exact bytes; a failing undo
/// keeps the fixed file and the undo record for a retry.
#[test]
fn undo_restores_the_bytes_and_survives_its_own_failure() {
    let (dir, path) = setup();
    apply_fix(&pending(&path)).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), FIXED);
    assert!(backup_path(&path).exists() && state_path(&path).exists());

    let UndoPlan::Pending(u) = plan_undo(&path, false).unwrap() else {
        panic!("nothing to undo")
    };
    let err = apply_undo_in(&FailNth::new(Op::Swap, 1, io::ErrorKind::Other), &u).unwrap_err();
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), FIXED);
    assert!(state_path(&path).exists(), "the undo record survives");

    let UndoPlan::Pending(u) = plan_undo(&path, false).unwrap() else {
        panic!("nothing to undo on retry")
    };
    apply_undo(&u).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), ORIGINAL);
    assert!(!state_path(&path).exists());
    assert!(matches!(
        plan_undo(&path, false).unwrap(),
        UndoPlan::NothingToUndo
    ));
    let _ = dir;
}

/// A file the fix created (in a folder it created) is removed by undo; a failing
/// removal keeps both the file and the record.
#[test]
fn a_created_file_is_removed_by_undo_even_after_a_failed_removal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new").join("settings.json");
    apply_fix(&pending(&path)).unwrap();
    let created = fs::read_to_string(&path).unwrap();
    assert!(created.contains("\"legacy\""), "{created}");
    let UndoPlan::Pending(u) = plan_undo(&path, false).unwrap() else {
        panic!("nothing to undo")
    };
    let err = apply_undo_in(
        &FailNth::new(Op::Remove, 1, io::ErrorKind::PermissionDenied),
        &u,
    )
    .unwrap_err();
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
    assert!(path.exists() && state_path(&path).exists());
    let UndoPlan::Pending(u) = plan_undo(&path, false).unwrap() else {
        panic!("nothing to undo on retry")
    };
    apply_undo(&u).unwrap();
    assert!(!path.exists());
    assert!(!state_path(&path).exists());
}

/// A read-only settings file (the Windows read-only flag, or no write bits) is either
/// fixed and stays read-only, or refused with the file untouched; never made writable.
#[test]
fn a_read_only_file_stays_read_only() {
    let (_dir, path) = setup();
    set_read_only(&path, true);
    match apply_fix(&pending(&path)) {
        Ok(_) => assert_eq!(fs::read_to_string(&path).unwrap(), FIXED),
        Err(e) => {
            assert!(e.to_string().contains(&path.display().to_string()), "{e}");
            assert_eq!(fs::read_to_string(&path).unwrap(), ORIGINAL);
        }
    }
    assert!(is_read_only(&path));
    if backup_path(&path).exists() {
        assert!(is_read_only(&backup_path(&path)));
    }
    set_read_only(&path, false);
}

fn is_read_only(p: &Path) -> bool {
    fs::metadata(p).unwrap().permissions().readonly()
}

fn set_read_only(p: &Path, on: bool) {
    let mut perms = fs::metadata(p).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)] // a test file, deleted right after
    perms.set_readonly(on);
    fs::set_permissions(p, perms).unwrap();
}
