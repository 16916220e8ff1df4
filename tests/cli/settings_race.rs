//! Issue 10, item 4: the write races another writer and loses nothing. Another program
//! (Claude Code migrating a value) renames its own new settings file into place at a
//! random moment while mcplogs applies a fix it planned from the older content: in
//! every run the other writer's file must be what is left, whether mcplogs' swap came
//! first (then the writer replaced it) or second (then mcplogs must notice the file it
//! swapped out is not the one it read, and swap back).
use std::fs::{self, File};
use std::io;
use std::path::Path;
use std::sync::{Arc, Barrier};

use mcplogs::settings::SettingsError;
use mcplogs::settings::fix::{FixOptions, FixPlan, PendingFix, apply_fix, apply_fix_in, plan_fix};
use mcplogs::settings::write::{Fs, RealFs, Swap};

/// The real file system without the flushes: 1,000 runs in a second or two.
struct NoSync;

impl Fs for NoSync {
    fn sync(&self, _file: &File) -> io::Result<()> {
        Ok(())
    }
    fn sync_dir(&self, _dir: &Path) {}
}

fn pending(path: &Path) -> PendingFix {
    match plan_fix(path, FixOptions::default()).unwrap() {
        FixPlan::Pending(p) => p,
        other => panic!("{other:?}"),
    }
}

/// A tiny xorshift: the writer's delay differs run to run, reproducibly.
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

#[test]
fn a_writer_renaming_its_file_into_place_during_the_fix_loses_nothing() {
    // In memory where there is such a folder: ext4 flushes data on every rename over a
    // file, which makes 1,000 runs take seconds instead of a fraction of one.
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    let path = dir.path().join("settings.json");
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let (mut ok, mut refused) = (0, 0);
    for run in 0..1000 {
        for name in fs::read_dir(dir.path()).unwrap() {
            fs::remove_file(name.unwrap().path()).unwrap();
        }
        fs::write(&path, format!("{{\"run\": {run}}}\n")).unwrap();
        let fix = pending(&path);
        let theirs = format!("{{\"writer\": {run}}}\n");
        let spin = next(&mut seed) % 40_000;
        let barrier = Arc::new(Barrier::new(2));
        let writer = {
            let (barrier, path, theirs) = (barrier.clone(), path.clone(), theirs.clone());
            std::thread::spawn(move || {
                let tmp = path.with_file_name("writer.tmp");
                fs::write(&tmp, theirs).unwrap();
                barrier.wait();
                for _ in 0..spin {
                    std::hint::spin_loop();
                }
                fs::rename(&tmp, &path).unwrap();
            })
        };
        barrier.wait();
        let result = apply_fix_in(&NoSync, &fix);
        writer.join().unwrap();
        match result {
            Ok(_) => ok += 1,
            Err(SettingsError::ChangedSinceRead { .. }) => refused += 1,
            Err(e) => panic!("run {run}: {e}"),
        }
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            theirs,
            "run {run}: the other writer's file was lost"
        );
        // No temporary file is left behind, whatever happened.
        for name in fs::read_dir(dir.path()).unwrap() {
            let name = name.unwrap().file_name().to_string_lossy().into_owned();
            assert!(!name.ends_with(".mcplogs-tmp"), "run {run}: {name} left");
        }
    }
    eprintln!("1000 racing runs: {ok} fixes then overwritten, {refused} refused and swapped back");
}

#[test]
fn a_symlink_swapped_in_during_the_prompt_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    fs::write(&path, "{}\n").unwrap();
    let fix = pending(&path);
    // While the diff is on screen: the file becomes a link to something else.
    let elsewhere = dir.path().join("elsewhere.json");
    fs::write(&elsewhere, "{\"other\": true}\n").unwrap();
    fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
    let err = apply_fix(&fix).unwrap_err();
    assert!(
        matches!(err, SettingsError::ChangedSinceRead { .. }),
        "{err}"
    );
    assert!(
        fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        fs::read_to_string(&elsewhere).unwrap(),
        "{\"other\": true}\n"
    );
    // The same with a link whose target has the very same bytes: a different file.
    fs::write(&elsewhere, "{}\n").unwrap();
    assert!(matches!(
        apply_fix(&fix).unwrap_err(),
        SettingsError::ChangedSinceRead { .. }
    ));
    assert!(
        fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// A dotfiles link retargeted while the diff is on screen: the path now leads to
/// another file, so nothing is written, to the old target or the new one.
#[test]
fn a_link_pointed_elsewhere_during_the_prompt_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    fs::write(&a, "{}\n").unwrap();
    fs::write(&b, "{}\n").unwrap();
    std::os::unix::fs::symlink(&a, &path).unwrap();
    let fix = pending(&path);
    fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&b, &path).unwrap();
    let err = apply_fix(&fix).unwrap_err();
    assert!(
        matches!(err, SettingsError::ChangedSinceRead { .. }),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&a).unwrap(), "{}\n");
    assert_eq!(fs::read_to_string(&b).unwrap(), "{}\n");
}

#[test]
fn a_file_replaced_by_one_with_the_same_bytes_is_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    fs::write(&path, "{}\n").unwrap();
    let fix = pending(&path);
    let other = dir.path().join("other");
    fs::write(&other, "{}\n").unwrap();
    fs::rename(&other, &path).unwrap();
    assert!(matches!(
        apply_fix(&fix).unwrap_err(),
        SettingsError::ChangedSinceRead { .. }
    ));
    assert_eq!(fs::read_to_string(&path).unwrap(), "{}\n");
}

#[test]
fn a_file_created_meanwhile_is_never_clobbered() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let fix = pending(&path);
    fs::write(&path, "{\"theirs\": 1}\n").unwrap();
    assert!(matches!(
        apply_fix(&fix).unwrap_err(),
        SettingsError::ChangedSinceRead { .. }
    ));
    assert_eq!(fs::read_to_string(&path).unwrap(), "{\"theirs\": 1}\n");
}

#[test]
fn a_hard_link_made_during_the_prompt_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    fs::write(&path, "{}\n").unwrap();
    let fix = pending(&path);
    fs::hard_link(&path, dir.path().join("second-name.json")).unwrap();
    assert!(apply_fix(&fix).is_err());
    assert_eq!(fs::read_to_string(&path).unwrap(), "{}\n");
    assert_eq!(
        fs::read_to_string(dir.path().join("second-name.json")).unwrap(),
        "{}\n"
    );
}

/// Swaps like the real file system, after another program created the settings file
/// at that very moment (between mcplogs' last check and its no-replace rename).
struct CreatedJustBeforeTheSwap;

impl Fs for CreatedJustBeforeTheSwap {
    fn swap(&self, tmp: &Path, to: &Path, how: Swap) -> io::Result<()> {
        fs::write(to, "{\"theirs\": 2}\n")?;
        RealFs.swap(tmp, to, how)
    }
}

#[test]
fn a_file_created_just_before_the_swap_is_a_change_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let fix = pending(&path);
    let err = apply_fix_in(&CreatedJustBeforeTheSwap, &fix).unwrap_err();
    assert!(
        matches!(err, SettingsError::ChangedSinceRead { .. }),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "{\"theirs\": 2}\n");
}

/// A file system without the exchange and no-replace renames (Windows, some FUSE and
/// NFS mounts): the fix falls back to a plain rename after the check, for a new file
/// and for an existing one.
struct NoAtomicSwap;

impl Fs for NoAtomicSwap {
    fn swap(&self, _tmp: &Path, _to: &Path, _how: Swap) -> io::Result<()> {
        Err(io::ErrorKind::Unsupported.into())
    }
}

#[test]
fn without_atomic_swaps_the_fix_falls_back_to_a_rename() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    apply_fix_in(&NoAtomicSwap, &pending(&path)).unwrap();
    assert!(fs::read_to_string(&path).unwrap().contains("\"legacy\""));

    let other = dir.path().join("other.json");
    fs::write(&other, "{\"model\": \"opus\"}\n").unwrap();
    apply_fix_in(&NoAtomicSwap, &pending(&other)).unwrap();
    let text = fs::read_to_string(&other).unwrap();
    assert!(
        text.contains("\"legacy\"") && text.contains("opus"),
        "{text}"
    );
}

/// Swaps like the real file system, after another program removed the settings file at
/// that very moment: a change, and nothing is created in its place.
struct RemovedJustBeforeTheSwap;

impl Fs for RemovedJustBeforeTheSwap {
    fn swap(&self, tmp: &Path, to: &Path, how: Swap) -> io::Result<()> {
        fs::remove_file(to)?;
        RealFs.swap(tmp, to, how)
    }
}

#[test]
fn a_file_removed_just_before_the_swap_is_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    fs::write(&path, "{}\n").unwrap();
    let err = apply_fix_in(&RemovedJustBeforeTheSwap, &pending(&path)).unwrap_err();
    assert!(
        matches!(err, SettingsError::ChangedSinceRead { .. }),
        "{err}"
    );
    assert!(!path.exists());
}

/// R1#6: the backup and the undo record are written relative to the project folder
/// opened once, never by a path a link swapped in could redirect. The project's
/// `.claude` folder is swapped for a link to a folder outside it just before the backup
/// is written (and put back after, so that the swap's own check passes), then again
/// just before the undo record: neither lands outside; both are in the real folder,
/// beside the file the fix wrote (before: each went through the link, the backup
/// copying the user's settings out of the project).
#[cfg(unix)]
#[test]
fn a_link_swapped_in_never_redirects_the_backup_or_the_undo_record() {
    use mcplogs::settings::write::Beside;
    use std::cell::Cell;
    struct LinkBeforeEach<'a> {
        proj: &'a Path,
        outside: &'a Path,
        calls: Cell<usize>,
    }
    impl Fs for LinkBeforeEach<'_> {
        fn write_own(
            &self,
            dir: &Beside,
            name: &std::ffi::OsStr,
            bytes: &[u8],
            mode: u32,
            owner: Option<(u32, u32)>,
        ) -> io::Result<()> {
            let (claude, moved) = (self.proj.join(".claude"), self.proj.join(".claude-moved"));
            fs::rename(&claude, &moved).unwrap();
            std::os::unix::fs::symlink(self.outside, &claude).unwrap();
            let written = RealFs.write_own(dir, name, bytes, mode, owner);
            self.calls.set(self.calls.get() + 1);
            if self.calls.get() == 1 {
                // the backup written: the folder back in place for the swap
                fs::remove_file(&claude).unwrap();
                fs::rename(&moved, &claude).unwrap();
            }
            written
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("proj");
    let outside = dir.path().join("outside");
    fs::create_dir_all(proj.join(".claude")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    let file = proj.join(".claude/settings.local.json");
    fs::write(&file, "{\"model\": \"opus\"}\n").unwrap();
    let files = LinkBeforeEach {
        proj: &proj,
        outside: &outside,
        calls: Cell::new(0),
    };
    apply_fix_in(&files, &pending(&file)).unwrap();
    assert_eq!(files.calls.get(), 2);
    let names = |d: &Path| {
        let mut v: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        names(&outside),
        Vec::<String>::new(),
        "nothing written outside"
    );
    // the real folder (`.claude-moved` since the record was written) holds all three
    let real = proj.join(".claude-moved");
    assert_eq!(
        names(&real),
        [
            "settings.local.json",
            "settings.local.json.mcplogs-backup",
            "settings.local.json.mcplogs-undo.json"
        ]
    );
    assert_eq!(
        fs::read_to_string(real.join("settings.local.json.mcplogs-backup")).unwrap(),
        "{\"model\": \"opus\"}\n"
    );
    assert!(
        fs::read_to_string(real.join("settings.local.json"))
            .unwrap()
            .contains("legacy")
    );
}

/// A file the fix creates has its folder opened for the undo record once it exists: a
/// link put in the project's place of that folder right after the file is written is
/// said as "the settings file was written, but the undo record ... could not be
/// updated" (the file exists; before, the link refusal read as nothing written).
#[cfg(unix)]
#[test]
fn a_link_put_in_after_a_created_file_is_written_says_the_file_was_written() {
    struct LinkAfterTheSwap<'a> {
        proj: &'a Path,
        outside: &'a Path,
    }
    impl Fs for LinkAfterTheSwap<'_> {
        fn swap(&self, tmp: &Path, to: &Path, how: Swap) -> io::Result<()> {
            RealFs.swap(tmp, to, how)?;
            let claude = self.proj.join(".claude");
            fs::rename(&claude, self.proj.join(".claude-moved")).unwrap();
            std::os::unix::fs::symlink(self.outside, &claude).unwrap();
            Ok(())
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("proj");
    let outside = dir.path().join("outside");
    fs::create_dir_all(proj.join(".claude")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    let file = proj.join(".claude/settings.local.json");
    let files = LinkAfterTheSwap {
        proj: &proj,
        outside: &outside,
    };
    let err = apply_fix_in(&files, &pending(&file)).unwrap_err();
    assert!(
        matches!(err, SettingsError::UndoRecord { written: true, .. }),
        "{err}"
    );
    assert!(proj.join(".claude-moved/settings.local.json").exists());
    assert_eq!(
        fs::read_dir(&outside).unwrap().count(),
        0,
        "nothing written outside"
    );
}
