//! A snapshot (insta) of the full Markdown report for the bundled samples, in
//! `tests/cli/snapshots/cli__report_snapshot__report.snap`.
//!
//! The report is deterministic: HOME, the project and the managed-settings folder are
//! inside a temporary home (redacted to `~`), `claude --version` is a stub script
//! on PATH, and the lines naming this build's version, OS and architecture are
//! normalised to `<version>`, `<os>` and `<arch>`.
//!
//! To update the snapshot after an intended change:
//!
//! ```sh
//! cargo insta test --review -- report_snapshot   # or: INSTA_UPDATE=always cargo test report_snapshot
//! git diff tests/cli/snapshots/                  # read what changed
//! ```

use std::fs;
use std::path::Path;

use crate::common::*;

pub const FAKE_CLAUDE_VERSION: &str = "2.1.332 (Claude Code)";

/// A `claude` on PATH that prints `output`.
fn fake_claude(dir: &Path, output: &str) {
    fs::create_dir_all(dir).unwrap();
    let script = dir.join("claude");
    crate::common::write_program(&script, &format!("#!/bin/sh\necho '{output}'\n"));
}

fn normalise(report: &str) -> String {
    let os = std::env::consts::OS;
    let arch = std::env::consts::ARCH;
    let version = env!("CARGO_PKG_VERSION");
    report
        .lines()
        .map(|l| {
            if l.starts_with("<!-- Written by mcplogs ") {
                l.replacen(version, "<version>", 1)
            } else if l == format!("{os} ({arch})") {
                "<os> (<arch>)".to_string()
            } else if l.starts_with("| mcplogs |") {
                l.replace(version, "<version>")
            } else if l.starts_with("| OS |") {
                l.replace(os, "<os>")
            } else if l.starts_with("| Architecture |") {
                l.replace(arch, "<arch>")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn full_report_for_the_bundled_samples() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    // the samples' projects moved where nothing is, whatever this machine has where
    // their sessions ran
    let gone = samples_gone();
    let gone = gone.path().to_str().unwrap();
    let logs = tmp.path().join("s");
    copy_samples_moved(&samples(), &logs, gone);
    let project = home.join("project");
    fs::create_dir_all(&project).unwrap();
    let bin = home.join("bin");
    fake_claude(&bin, FAKE_CLAUDE_VERSION);

    let r = run(mcplogs(&home)
        .arg("report")
        .arg(&logs)
        .arg("--managed-dir")
        .arg(home.join("managed"))
        .env("PATH", &bin)
        .current_dir(&project));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.chars().count() <= 65_536);
    let stdout = moved_back(&r.stdout, gone);
    assert!(
        !stdout.contains(env!("CARGO_MANIFEST_DIR")),
        "no checkout path"
    );
    assert!(
        !stdout.contains(tmp.path().to_str().unwrap()),
        "no temp path"
    );
    let got = normalise(&stdout);

    insta::assert_snapshot!("report", got);
}
