//! The summary index (src/index.rs) must never change an answer: a scan with it equals a
//! scan without it (verdict, evidence, deciding file, history, counts, warnings), after
//! the files change in every way a key can or cannot see, and with a damaged index.

#[cfg(unix)]
use crate::common::*;
use crate::newest_first::{Kind, kind, write_history};

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcplogs::logs::discovery::Request;
use mcplogs::scan::{ScanOptions, ScanReport, scan_with_progress};
use proptest::prelude::*;

/// Sets a file's modification time `secs` into the past (the index summarises only
/// files that have settled).
fn age(path: &Path, secs: u64) {
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(mcplogs::time::file_system_clock() - Duration::from_secs(secs))
        .unwrap();
}

fn files_of(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// Scans `root` and says how many bytes were read from log files.
fn scan_counting(
    root: &Path,
    all: bool,
    index: Option<&Path>,
    skip_evidence: bool,
) -> (ScanReport, u64) {
    let bytes = AtomicU64::new(0);
    let last = AtomicU64::new(0);
    let report = scan_with_progress(
        &ScanOptions {
            request: Request {
                homes: Vec::new(),
                paths: vec![root.join("claude-cli-nodejs")],
            },
            all,
            index: index.map(Path::to_path_buf),
            skip_evidence,
            ..ScanOptions::default()
        },
        Some(&|p| {
            // bytes_done is cumulative; keep the largest seen.
            last.fetch_max(p.bytes_done, Ordering::Relaxed);
        }),
    )
    .unwrap();
    bytes.store(last.load(Ordering::Relaxed), Ordering::Relaxed);
    (report, bytes.load(Ordering::Relaxed))
}

/// Everything a scan shows, as one comparable string.
fn answer(r: &ScanReport) -> String {
    let mut out = String::new();
    for s in &r.servers {
        out.push_str(&format!(
            "{:?}|{:?}|{:?}|{:?}|{}|{:?}|{}|{}|{}|{}|{:?}\n",
            s.diagnosis,
            s.evidence,
            s.last_seen,
            s.deciding_file,
            s.latest_only_connected,
            s.history,
            s.sessions,
            s.sessions_read,
            s.files_read,
            s.failed_sessions,
            s.project,
        ));
    }
    for w in &r.warnings {
        out.push_str(&format!("{w:?}\n"));
    }
    out
}

fn assert_same(root: &Path, cache: &Path, when: &str) -> Result<(), TestCaseError> {
    for all in [false, true] {
        let (without, _) = scan_counting(root, all, None, false);
        let (with, _) = scan_counting(root, all, Some(cache), false);
        prop_assert_eq!(answer(&with), answer(&without), "{} (all: {})", when, all);
        // prune's scan: no evidence, the same deciding file.
        let (lean, _) = scan_counting(root, all, Some(cache), true);
        let deciding = |r: &ScanReport| -> Vec<_> {
            r.servers
                .iter()
                .map(|s| (s.diagnosis.clone(), s.deciding_file.clone()))
                .collect()
        };
        prop_assert_eq!(deciding(&lean), deciding(&without), "{} lean", when);
    }
    Ok(())
}

/// What happens to the tree between scans.
#[derive(Debug, Clone)]
enum Change {
    /// A session appended to file `i` (counted from the newest).
    Append(usize, Kind),
    /// File `i`'s modification time moved.
    Touch(usize),
    /// File `i` cut to half its length.
    Truncate(usize),
    /// File `i` rewritten with other bytes of the same length, its modification time
    /// put back: only the status-change time (Unix) tells.
    Rewrite(usize),
    /// The index files overwritten with junk, or cut short.
    CorruptIndex(bool),
    /// A new newest file.
    NewFile(Kind),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        (0..4usize, kind()).prop_map(|(i, k)| Change::Append(i, k)),
        (0..4usize).prop_map(Change::Touch),
        (0..4usize).prop_map(Change::Truncate),
        (0..4usize).prop_map(Change::Rewrite),
        any::<bool>().prop_map(Change::CorruptIndex),
        kind().prop_map(Change::NewFile),
    ]
}

fn apply(dir: &Path, cache: &Path, c: &Change) {
    let files = files_of(dir);
    let pick = |i: usize| files[files.len() - 1 - i.min(files.len() - 1)].clone();
    match c {
        Change::Append(i, k) => {
            let f = pick(*i);
            let extra = tempfile::tempdir().unwrap();
            let d = write_history(extra.path(), &[*k]);
            let text = fs::read_to_string(&files_of(&d)[0]).unwrap();
            let mut old = fs::read_to_string(&f).unwrap();
            old.push_str(&text.replace("session-0", "session-appended"));
            fs::write(&f, old).unwrap();
            age(&f, 3600);
        }
        Change::Touch(i) => age(&pick(*i), 7200),
        Change::Truncate(i) => {
            let f = pick(*i);
            let len = fs::metadata(&f).unwrap().len();
            fs::File::options()
                .write(true)
                .open(&f)
                .unwrap()
                .set_len(len / 2)
                .unwrap();
            age(&f, 3600);
        }
        Change::Rewrite(i) => {
            let f = pick(*i);
            let mtime = fs::metadata(&f).unwrap().modified().unwrap();
            let text = fs::read_to_string(&f).unwrap();
            // Same length: a healthy session turns into one that only says "unknown".
            let swapped = text
                .replace("Connection established", "Connection estab1ished")
                .replace("Calling MCP tool", "Ca11ing MCP tool");
            assert_eq!(swapped.len(), text.len());
            fs::write(&f, swapped).unwrap();
            fs::File::options()
                .write(true)
                .open(&f)
                .unwrap()
                .set_modified(mtime)
                .unwrap();
        }
        Change::CorruptIndex(junk) => {
            for e in walkdir::WalkDir::new(cache).into_iter().flatten() {
                if e.file_type().is_file() {
                    let p = e.path();
                    let bytes = fs::read(p).unwrap();
                    let new = if *junk {
                        b"{\"format\":1,\"oops\"".to_vec()
                    } else {
                        bytes[..bytes.len() / 3].to_vec()
                    };
                    fs::write(p, new).unwrap();
                }
            }
        }
        Change::NewFile(k) => {
            let extra = tempfile::tempdir().unwrap();
            let d = write_history(extra.path(), &[*k]);
            let text = fs::read_to_string(&files_of(&d)[0]).unwrap();
            let f = dir.join("2026-12-31T09-00-00-000Z.jsonl");
            fs::write(&f, text.replace("session-0", "session-new")).unwrap();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_index_never_changes_an_answer(
        history in prop::collection::vec(kind(), 1..10),
        changes in prop::collection::vec(change(), 1..4),
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let dir = write_history(tmp.path(), &history);
        for f in files_of(&dir) {
            age(&f, 86_400);
        }
        // First scan writes the index, the second reads it.
        assert_same(tmp.path(), cache.path(), "first")?;
        assert_same(tmp.path(), cache.path(), "second")?;
        for c in &changes {
            apply(&dir, cache.path(), c);
            assert_same(tmp.path(), cache.path(), &format!("after {c:?}"))?;
        }
    }
}

#[test]
fn a_warm_index_reads_no_unchanged_file_and_prune_reads_nothing() {
    use Kind::*;
    let tmp = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let dir = write_history(tmp.path(), &[Fail, Fail, Work, HealthCheck, HealthCheck]);
    for f in files_of(&dir) {
        age(&f, 86_400);
    }
    let total: u64 = files_of(&dir)
        .iter()
        .map(|f| fs::metadata(f).unwrap().len())
        .sum();
    let (cold, read_cold) = scan_counting(tmp.path(), true, Some(cache.path()), false);
    assert_eq!(read_cold, total);
    let (warm, read_warm) = scan_counting(tmp.path(), true, Some(cache.path()), false);
    assert_eq!(answer(&warm), answer(&cold));
    // The Work session decides (tools were called): its evidence and stderr context
    // are kept in the index with it, so not even its file is read again.
    let deciding = warm.servers[0].deciding_file.as_deref().cloned().unwrap();
    assert_eq!(deciding, files_of(&dir)[2]);
    assert_eq!(read_warm, 0);
    let (_, read_lean) = scan_counting(tmp.path(), false, Some(cache.path()), true);
    assert_eq!(read_lean, 0);
    // Without the index every file is read again.
    let (_, read_none) = scan_counting(tmp.path(), true, None, false);
    assert_eq!(read_none, total);
}

#[test]
fn a_file_still_being_written_is_not_summarised() {
    use Kind::*;
    let tmp = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let dir = write_history(tmp.path(), &[Fail, Work]);
    let files = files_of(&dir);
    age(&files[0], 86_400);
    // files[1] was just written: Claude Code may still append to it. (Its time is put
    // an hour ahead, so that it stays "just written" however slowly the scans start.)
    let f = fs::File::options().write(true).open(&files[1]).unwrap();
    f.set_modified(mcplogs::time::file_system_clock() + Duration::from_secs(3600))
        .unwrap();
    drop(f);
    scan_counting(tmp.path(), true, Some(cache.path()), false);
    let (_, read) = scan_counting(tmp.path(), true, Some(cache.path()), true);
    assert_eq!(read, fs::metadata(&files[1]).unwrap().len());
}

/// The command line: the index goes to $HOME/.cache/mcplogs (XDG) or
/// $MCPLOGS_CACHE_DIR, private, and `--no-cache` neither reads nor writes it.
#[cfg(unix)]
#[test]
fn the_binary_keeps_its_index_private_and_no_cache_skips_it() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let tree = tempfile::tempdir().unwrap();
    let dir = write_history(tree.path(), &[Kind::Fail, Kind::Work, Kind::HealthCheck]);
    for f in files_of(&dir) {
        age(&f, 86_400);
    }
    let root = tree.path().join("claude-cli-nodejs");
    let index_dir = home.path().join(".cache/mcplogs/index-v2");

    let first = run(mcplogs(home.path())
        .args(["scan", "--json", "--no-cache"])
        .arg(&root));
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(!index_dir.exists());
    for cmd in [vec!["scan", "--json"], vec!["scan", "--json"]] {
        let r = run(mcplogs(home.path()).args(&cmd).arg(&root));
        assert_eq!(r.stdout, first.stdout);
    }
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&index_dir), 0o700);
    let files = files_of(&index_dir);
    assert_eq!(files.len(), 1);
    assert_eq!(mode(&files[0]), 0o600);
    let stored = fs::read_to_string(&files[0]).unwrap();
    // Only the deciding session's records (a failed session's are not kept).
    assert!(!stored.contains("Failed to fetch tools"), "{stored}");

    // $MCPLOGS_CACHE_DIR moves it; prune and report take --no-cache too.
    let elsewhere = tempfile::tempdir().unwrap();
    let r = run(mcplogs(home.path())
        .env("MCPLOGS_CACHE_DIR", elsewhere.path())
        .args(["prune", "--dry-run"])
        .arg(&root));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(elsewhere.path().join("index-v2").is_dir());
    let with = run(mcplogs(home.path())
        .args(["prune", "--dry-run", "--json"])
        .arg(&root));
    let without = run(mcplogs(home.path())
        .args(["prune", "--dry-run", "--json", "--no-cache"])
        .arg(&root));
    assert_eq!(with.stdout, without.stdout);
    let r = run(mcplogs(home.path())
        .args(["report", "--no-cache"])
        .arg(&root));
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);

    // `prune --no-cache` reads without the index, yet the summaries of the files it
    // deletes leave it: nothing kept describes a log that is gone.
    let before = files_of(&dir).len();
    let r = run(mcplogs(home.path())
        .args(["prune", "--older-than", "1h", "--yes", "--no-cache"])
        .arg(&root));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        files_of(&dir).len() < before,
        "nothing pruned: {}",
        r.stdout
    );
    let index: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&files_of(&index_dir)[0]).unwrap()).unwrap();
    let folder = dir.file_name().unwrap().to_str().unwrap();
    let files = index["folders"][folder].as_array().unwrap();
    assert!(!files.is_empty());
    for entry in files {
        let name = entry[0].as_str().unwrap();
        assert!(dir.join(name).exists(), "the index still summarises {name}");
    }
}
