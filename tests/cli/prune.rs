//! `mcplogs prune` safety: symlink traps, foreign files, files changing underneath,
//! files in use, and every verdict unchanged by a prune.

use crate::common::*;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcplogs::disk::prune::{PruneOptions, execute, plan};
use serde_json::Value;

const DAY: Duration = Duration::from_secs(86_400);

/// A copy of a real sample home with every log file aged by `days` (so that the
/// 10-minute in-use rule does not keep them).
fn aged_home(tmp: &Path, sample: &str, days: u64) -> PathBuf {
    let home = tmp.join(sample);
    copy_tree(&samples().join(sample), &home);
    age_all(&home, days);
    home
}

fn opts_home(home: &Path) -> PruneOptions {
    PruneOptions {
        homes: vec![home.to_path_buf()],
        ..PruneOptions::default()
    }
}

fn server_dir(home: &Path, folder: &str) -> PathBuf {
    let root = home.join(".cache/claude-cli-nodejs/-tmp-mcplogs-samples-home-linux-work-api");
    root.join(format!("mcp-logs-{folder}"))
}

/// What a user sees per server: verdict, cause, era, evidence and when.
fn verdicts(tmp: &Path, home: &Path) -> Vec<Value> {
    let mut cmd = mcplogs(tmp);
    cmd.args(["scan", "--json", "--home"]).arg(home);
    let (_, doc) = run_json(&mut cmd);
    doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let mut v = serde_json::json!({});
            for k in [
                "name",
                "folder",
                "verdict",
                "cause",
                "era",
                "lastSeen",
                "evidence",
                "latestSessionOnlyConnected",
            ] {
                v[k] = s[k].clone();
            }
            v
        })
        .collect()
}

#[test]
fn a_prune_leaves_every_verdict_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    for sample in ["linux-home", "macos-home", "windows-home"] {
        let home = aged_home(tmp.path(), sample, 3);
        let before = verdicts(tmp.path(), &home);
        let p = plan(&opts_home(&home), now()).unwrap();
        if sample == "linux-home" {
            // Six sessions per server: the older ones go.
            assert!(p.files > 0, "{sample}: nothing planned");
        }
        let out = execute(&p, now());
        assert_eq!(out.deleted, p.files, "{sample}: {:?}", out.skipped);
        assert_eq!(out.bytes_freed, p.bytes);
        assert_eq!(verdicts(tmp.path(), &home), before, "{sample}");
        // A second prune finds nothing more to do.
        assert_eq!(plan(&opts_home(&home), now()).unwrap().files, 0);
    }
}

#[test]
fn the_newest_file_and_the_deciding_session_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let home = aged_home(tmp.path(), "linux-home", 3);
    // The newest session of wrong-types fails; make it only connect, as a `claude mcp
    // list` health check does: the failure before it then decides, and stays.
    let dir = server_dir(&home, "wrong-types");
    let files = sorted_files(&dir);
    fs::copy(&files[3], &files[5]).unwrap();
    set_age(&files[5], 2 * DAY.as_secs());
    let p = plan(&opts_home(&home), now()).unwrap();
    let planned: Vec<&PathBuf> = p
        .groups
        .iter()
        .flat_map(|g| &g.files)
        .map(|c| &c.path)
        .collect();
    assert!(!planned.contains(&&files[5]), "newest kept");
    assert!(!planned.contains(&&files[4]), "deciding session kept");
    assert!(
        planned.contains(&&files[3]),
        "older than the deciding session: goes"
    );
    let before = verdicts(tmp.path(), &home);
    execute(&p, now());
    let after = verdicts(tmp.path(), &home);
    assert_eq!(after, before);
    let s = after.iter().find(|s| s["folder"] == "wrong-types").unwrap();
    assert_eq!(s["verdict"], "tools-fetch-failed");
    assert_eq!(s["latestSessionOnlyConnected"], true);
}

#[test]
fn files_in_use_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let home = aged_home(tmp.path(), "linux-home", 3);
    let dir = server_dir(&home, "acme-docs");
    let files = sorted_files(&dir);
    // Written a minute ago: Claude Code may be appending to it.
    set_age(&files[0], 60);
    let p = plan(&opts_home(&home), now()).unwrap();
    let planned: Vec<&PathBuf> = p
        .groups
        .iter()
        .flat_map(|g| &g.files)
        .map(|c| &c.path)
        .collect();
    assert!(!planned.contains(&&files[0]));
    assert!(planned.contains(&&files[1]));
    assert!(p.kept.in_use >= 1);
    // --older-than keeps the younger files too.
    let week = PruneOptions {
        older_than: Some(7 * DAY),
        ..opts_home(&home)
    };
    assert_eq!(plan(&week, now()).unwrap().files, 0);
}

#[test]
fn files_changing_underneath_are_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let home = aged_home(tmp.path(), "linux-home", 3);
    let p = plan(&opts_home(&home), now()).unwrap();
    let all: Vec<PathBuf> = p
        .groups
        .iter()
        .flat_map(|g| &g.files)
        .map(|c| c.path.clone())
        .collect();
    let (grown, vanished, touched) = (&all[0], &all[1], &all[2]);
    // Appended to after the plan (same size check fails), deleted by someone else,
    // modified just now.
    let mut f = fs::OpenOptions::new().append(true).open(grown).unwrap();
    std::io::Write::write_all(&mut f, b"{\"debug\":\"Calling MCP tool: x\"}\n").unwrap();
    drop(f);
    set_age(grown, 3 * DAY.as_secs());
    fs::remove_file(vanished).unwrap();
    set_age(touched, 0);
    let out = execute(&p, now());
    assert_eq!(out.deleted, all.len() - 3);
    assert!(grown.exists() && touched.exists());
    let reasons: Vec<String> = out.skipped.iter().map(|w| w.to_string()).collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(
        reasons.iter().any(|r| r.contains("changed since the plan")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("vanished")),
        "{reasons:?}"
    );
}

#[cfg(unix)]
#[test]
fn symlink_traps_are_never_followed() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let home = aged_home(tmp.path(), "linux-home", 3);
    let outside = tmp.path().join("precious");
    fs::create_dir(&outside).unwrap();
    for n in [
        "2026-01-01T00-00-00-000Z.jsonl",
        "2026-01-02T00-00-00-000Z.jsonl",
    ] {
        fs::write(outside.join(n), "{\"debug\":\"x\"}\n").unwrap();
    }
    age_all(&outside, 30);
    let project = server_dir(&home, "acme-docs")
        .parent()
        .unwrap()
        .to_path_buf();
    // A server folder that is a symlink out of the tree, and a log-named symlink to a
    // file outside it.
    symlink(&outside, project.join("mcp-logs-linked")).unwrap();
    symlink(
        outside.join("2026-01-01T00-00-00-000Z.jsonl"),
        server_dir(&home, "acme-docs").join("2026-01-01T00-00-00-000Z.jsonl"),
    )
    .unwrap();
    let p = plan(&opts_home(&home), now()).unwrap();
    for c in p.groups.iter().flat_map(|g| &g.files) {
        assert!(!c.path.starts_with(&outside), "{}", c.path.display());
        assert!(
            !fs::symlink_metadata(&c.path)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{}",
            c.path.display()
        );
    }
    // Between plan and deletion, a planned folder is swapped for a symlink to a folder
    // holding files of the same names.
    let victim = server_dir(&home, "modern-ok");
    let decoy = tmp.path().join("decoy");
    copy_tree(&victim, &decoy);
    fs::rename(&victim, tmp.path().join("moved")).unwrap();
    symlink(&decoy, &victim).unwrap();
    let out = execute(&p, now());
    assert!(
        out.skipped
            .iter()
            .any(|w| w.to_string().contains("resolves to"))
    );
    assert_eq!(
        fs::read_dir(&outside).unwrap().count(),
        2,
        "outside untouched"
    );
    assert_eq!(
        fs::read_dir(&decoy).unwrap().count(),
        sorted_files(&tmp.path().join("moved")).len().max(6),
        "decoy untouched"
    );
}

#[test]
fn foreign_files_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let home = aged_home(tmp.path(), "linux-home", 3);
    let dir = server_dir(&home, "acme-docs");
    let foreign = [
        "notes.txt",
        "2026-11-29T12-43-47-423Z.jsonl.bak",
        "backup.jsonl",
        ".DS_Store",
    ];
    for n in foreign {
        fs::write(dir.join(n), "{\"debug\":\"x\"}\n").unwrap();
    }
    fs::write(dir.parent().unwrap().join("README.md"), "mine").unwrap();
    fs::create_dir_all(dir.parent().unwrap().join("errors")).unwrap();
    fs::write(dir.parent().unwrap().join("errors/e.txt"), "x").unwrap();
    age_all(&home, 3);
    let p = plan(&opts_home(&home), now()).unwrap();
    execute(&p, now());
    for n in foreign {
        assert!(dir.join(n).exists(), "{n}");
    }
    assert!(dir.parent().unwrap().join("README.md").exists());
    assert!(dir.parent().unwrap().join("errors/e.txt").exists());
}

#[test]
fn debug_logs_are_pruned_but_the_newest_stays() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let debug = home.join(".claude/debug");
    fs::create_dir_all(&debug).unwrap();
    let log = fs::read(samples().join("debug-logs/linux-home-2.1.332-text.txt")).unwrap();
    let names = [
        "0b0f3c1e-1111-4a2b-9c3d-000000000001.txt",
        "0b0f3c1e-1111-4a2b-9c3d-000000000002.txt",
        "0b0f3c1e-1111-4a2b-9c3d-000000000003.txt",
    ];
    for (i, n) in names.iter().enumerate() {
        fs::write(debug.join(n), &log).unwrap();
        set_age(&debug.join(n), (10 - i as u64) * DAY.as_secs());
    }
    fs::write(debug.join("mine.txt"), "x").unwrap();
    set_age(&debug.join("mine.txt"), 30 * DAY.as_secs());
    let p = plan(&opts_home(&home), now()).unwrap();
    assert_eq!(p.files, 2);
    execute(&p, now());
    assert!(debug.join(names[2]).exists(), "newest kept");
    assert!(!debug.join(names[0]).exists() && !debug.join(names[1]).exists());
    assert!(debug.join("mine.txt").exists());
}

#[test]
fn cli_refuses_without_a_terminal_and_dry_run_deletes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let home = aged_home(tmp.path(), "linux-home", 3);
    let count = || walkdir::WalkDir::new(&home).into_iter().count();
    let n = count();

    let r = run(mcplogs(tmp.path()).args(["prune", "--home"]).arg(&home));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("not a terminal"), "{}", r.stderr);
    assert!(r.stdout.contains("To delete:"), "{}", r.stdout);
    assert_eq!(count(), n);

    let r = run(mcplogs(tmp.path())
        .args(["prune", "--dry-run", "--home"])
        .arg(&home));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(count(), n);

    let (r, doc) = run_json(
        mcplogs(tmp.path())
            .args(["prune", "--json", "--yes", "--home"])
            .arg(&home),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let files = doc["files"].as_u64().unwrap();
    assert!(files > 0);
    assert_eq!(doc["deleted"], files);
    assert_eq!(doc["bytesFreed"], doc["bytes"]);
    assert_eq!(count(), n - files as usize);
}

#[test]
fn cli_refuses_paths_outside_the_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("projects");
    fs::create_dir_all(dir.join("mcp-logs-x")).unwrap();
    fs::write(
        dir.join("mcp-logs-x/2026-01-01T00-00-00-000Z.jsonl"),
        "{}\n",
    )
    .unwrap();
    let r = run(mcplogs(tmp.path()).args(["prune", "--yes"]).arg(&dir));
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("not inside a Claude Code cache folder"),
        "{}",
        r.stderr
    );
    assert!(
        dir.join("mcp-logs-x/2026-01-01T00-00-00-000Z.jsonl")
            .exists()
    );
}

#[test]
fn du_ends_with_a_hint_to_prune() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run(mcplogs(tmp.path())
        .args(["du", "--home"])
        .arg(samples().join("linux-home")));
    assert!(
        r.stdout
            .trim_end()
            .ends_with("(it keeps what explains each verdict)."),
        "{}",
        r.stdout
    );
}

/// The prompt, driven for real in a pseudo-terminal: `n` and end of input delete
/// nothing, `y` deletes what the plan showed.
#[cfg(unix)]
#[test]
fn the_prompt_on_a_terminal_asks_before_deleting() {
    use rexpect::session::spawn_command;
    let tmp = tempfile::tempdir().unwrap();
    let home = aged_home(tmp.path(), "linux-home", 3);
    let planned = plan(&opts_home(&home), now()).unwrap();
    assert!(planned.files > 0);
    let count = |home: &Path| {
        walkdir::WalkDir::new(home)
            .into_iter()
            .filter(|e| e.as_ref().unwrap().file_type().is_file())
            .count()
    };
    let before = count(&home);
    let spawn = || {
        let mut c = mcplogs(tmp.path());
        c.stdin(std::process::Stdio::inherit());
        c.args(["prune", "--home"]).arg(&home);
        spawn_command(c, Some(20_000)).unwrap()
    };
    let question = format!("Delete {} files (", planned.files);

    let mut p = spawn();
    p.exp_string(&question).unwrap();
    p.send_line("n").unwrap();
    p.exp_string("nothing deleted").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(count(&home), before);

    let mut p = spawn();
    p.exp_string(&question).unwrap();
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
    assert_eq!(count(&home), before);

    let mut p = spawn();
    p.exp_string(&question).unwrap();
    p.send_line("y").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(count(&home), before - planned.files);
}

/// Issue 10's copied home, for prune: a home whose `.cache/claude-cli-nodejs` and
/// `.claude/debug` are symlinks to another user's folders. `scan --home` refuses such a
/// root ("outside the home"); prune used to canonicalize it and delete there.
#[cfg(unix)]
#[test]
fn a_home_whose_cache_or_debug_links_out_of_it_prunes_nothing_there() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let victim = aged_home(tmp.path(), "linux-home", 3);
    let victim_debug = victim.join(".claude/debug");
    fs::create_dir_all(&victim_debug).unwrap();
    for i in 1..=3 {
        let p = victim_debug.join(format!("0b0f3c1e-1111-4a2b-9c3d-00000000000{i}.txt"));
        fs::write(&p, "x").unwrap();
        set_age(&p, (10 - i) * DAY.as_secs());
    }
    let attacker = tmp.path().join("attacker");
    fs::create_dir_all(attacker.join(".cache")).unwrap();
    fs::create_dir_all(attacker.join(".claude")).unwrap();
    symlink(
        victim.join(".cache/claude-cli-nodejs"),
        attacker.join(".cache/claude-cli-nodejs"),
    )
    .unwrap();
    symlink(&victim_debug, attacker.join(".claude/debug")).unwrap();
    let before = walkdir::WalkDir::new(&victim).into_iter().count();

    let p = plan(&opts_home(&attacker), now()).unwrap();
    assert_eq!(p.files, 0, "{:?}", p.groups);
    assert!(p.roots.is_empty(), "{:?}", p.roots);
    assert!(
        p.warnings
            .iter()
            .any(|w| w.to_string().contains("outside the home")),
        "{:?}",
        p.warnings
    );
    let r = run(mcplogs(tmp.path())
        .args(["prune", "--yes", "--home"])
        .arg(&attacker));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("outside the home"), "{}", r.stderr);
    assert_eq!(walkdir::WalkDir::new(&victim).into_iter().count(), before);
    // The same home, pruned as itself, does delete: the test can fail.
    assert!(plan(&opts_home(&victim), now()).unwrap().files > 0);
}
