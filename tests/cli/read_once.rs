//! Issue 55: no log file is read twice. The stderr tails of `scan --json` (and of the
//! plain screen's connection failures) come from the scan's one read of each deciding
//! file: with every log file gone once the scan has read it, the tails are still the
//! same.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::common::*;
use mcplogs::logs::discovery::Request;
use mcplogs::scan::{ScanOptions, StderrTails, scan_with_progress};

/// Each server's name and stderr tail, scanning a copy of `home`; with `remove`, every
/// log file is deleted as soon as the last one has been read.
fn tails(home: &Path, which: StderrTails, remove: bool) -> Vec<(String, Vec<String>)> {
    let removed = AtomicBool::new(false);
    let root = home.join(".cache/claude-cli-nodejs");
    let report = scan_with_progress(
        &ScanOptions {
            request: Request {
                homes: Vec::new(),
                paths: vec![root.clone()],
            },
            stderr_tails: which,
            // every file read: the last one read is the last one counted
            all: true,
            ..ScanOptions::default()
        },
        Some(&|p| {
            if remove && p.files_done == p.files_total && !removed.swap(true, Ordering::SeqCst) {
                for f in walkdir::WalkDir::new(&root) {
                    let f = f.unwrap();
                    if f.file_type().is_file() {
                        std::fs::remove_file(f.path()).unwrap();
                    }
                }
            }
        }),
    )
    .unwrap();
    assert_eq!(removed.load(Ordering::SeqCst), remove);
    report
        .servers
        .into_iter()
        .map(|s| (s.name, s.stderr_tail))
        .collect()
}

#[test]
fn the_stderr_tails_come_from_the_first_read() {
    for which in [StderrTails::Failing, StderrTails::ConnectionFailures] {
        let kept = tempfile::tempdir().unwrap();
        copy_tree(&samples().join("linux-home"), kept.path());
        let want = tails(kept.path(), which, false);
        assert!(
            want.iter().any(|(_, t)| !t.is_empty()),
            "the samples hold a failing server with stderr lines: {want:?}"
        );
        let gone = tempfile::tempdir().unwrap();
        copy_tree(&samples().join("linux-home"), gone.path());
        assert_eq!(tails(gone.path(), which, true), want, "{which:?}");
    }
}
