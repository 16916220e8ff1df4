//! Walk confinement (issue 10 item 6): every root is resolved before it is walked; a
//! cache root that resolves to `/`, to a system folder, or outside the home it was found
//! in is refused with one warning; symlinks inside a root are never followed; many
//! warnings of one kind are one line on stderr unless `--verbose`.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use crate::common::*;
use serde_json::Value;

fn scan_json(tmp: &Path, args: &[&str], home: &Path) -> (Run, Value) {
    let mut cmd = mcplogs(tmp);
    cmd.args(["scan", "--json"])
        .args(args)
        .arg("--home")
        .arg(home);
    let r = run(&mut cmd);
    let v = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stderr));
    (r, v)
}

fn messages(doc: &Value) -> Vec<String> {
    doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["message"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_copied_home_whose_cache_links_to_slash_walks_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    fs::create_dir_all(home.join(".cache")).unwrap();
    symlink("/", home.join(".cache/claude-cli-nodejs")).unwrap();
    let (r, doc) = scan_json(tmp.path(), &[], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(doc["servers"].as_array().unwrap().is_empty());
    assert_eq!(
        messages(&doc),
        vec!["resolves to the system folder /, not a log tree: skipped"]
    );
    assert_eq!(r.stderr.lines().count(), 2, "{}", r.stderr); // the warning, nothing found
}

#[test]
fn a_cache_root_resolving_outside_its_home_is_refused_and_inside_is_walked() {
    let tmp = tempfile::tempdir().unwrap();
    // Real logs elsewhere on the disk (another user's, say).
    let other = tmp.path().join("other");
    copy_tree(&samples().join("linux-home"), &other);
    let home = tmp.path().join("home");
    fs::create_dir_all(home.join(".cache")).unwrap();
    symlink(
        other.join(".cache/claude-cli-nodejs"),
        home.join(".cache/claude-cli-nodejs"),
    )
    .unwrap();
    let (r, doc) = scan_json(tmp.path(), &[], &home);
    assert!(
        doc["servers"].as_array().unwrap().is_empty(),
        "{}",
        r.stdout
    );
    let m = messages(&doc);
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].contains("outside the home") && m[0].ends_with("skipped"),
        "{m:?}"
    );

    // The same link to a folder inside the home is followed: it is still the home's.
    fs::remove_file(home.join(".cache/claude-cli-nodejs")).unwrap();
    fs::rename(other.join(".cache/claude-cli-nodejs"), home.join("moved")).unwrap();
    symlink(home.join("moved"), home.join(".cache/claude-cli-nodejs")).unwrap();
    let (r, doc) = scan_json(tmp.path(), &[], &home);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(messages(&doc).is_empty());
    assert!(!doc["servers"].as_array().unwrap().is_empty());
}

#[test]
fn a_named_root_that_is_a_system_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let link = tmp.path().join("logs");
    symlink("/etc", &link).unwrap();
    let r = run(mcplogs(tmp.path()).args(["scan", "--json"]).arg(&link));
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        messages(&doc),
        vec!["resolves to the system folder /etc, not a log tree: skipped"]
    );
}

#[test]
fn many_warnings_of_one_kind_are_one_line_unless_verbose() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    copy_tree(&samples().join("linux-home"), &home);
    let root = home.join(".cache/claude-cli-nodejs");
    for i in 0..12 {
        // Links out of the root, one per folder (so not one folder's collapse): never
        // followed, each one warning.
        let dir = root.join(format!("-p{i}"));
        fs::create_dir_all(&dir).unwrap();
        symlink("/", dir.join("link")).unwrap();
    }
    let r = run(mcplogs(tmp.path()).args(["scan", "--home"]).arg(&home));
    let warnings: Vec<&str> = r.stderr.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{}", r.stderr);
    assert!(
        warnings[0].contains("12 warnings: symlink inside the log tree, not followed")
            && warnings[0].contains("--verbose lists them"),
        "{}",
        warnings[0]
    );
    let r = run(mcplogs(tmp.path())
        .args(["scan", "--verbose", "--home"])
        .arg(&home));
    let listed = r
        .stderr
        .lines()
        .filter(|l| l.contains("symlink inside the log tree"))
        .count();
    assert_eq!(listed, 12, "{}", r.stderr);
}
