//! The summary index keeps each server folder's listing (issue 55 item 3): a warm scan
//! takes an unchanged folder's log files from the index (one `stat` of the folder, not
//! opening and reading it), and a folder an entry was added to or removed from since
//! is listed again.

use crate::common::*;
use crate::newest_first::{Kind, write_history};

use std::fs;
use std::path::Path;
use std::time::Duration;

/// Sets the modification time of `p` (a file or a folder) a day back: settled.
fn settle(p: &Path) {
    let f = fs::File::open(p).unwrap();
    f.set_modified(mcplogs::time::file_system_clock() - Duration::from_secs(86_400))
        .unwrap();
}

fn scan_json(home: &Path, cache: &Path, tree: &Path, extra: &[&str]) -> serde_json::Value {
    let r = run(mcplogs(home)
        .env("MCPLOGS_CACHE_DIR", cache)
        .args(["scan", "--json"])
        .args(extra)
        .arg(tree));
    assert!(r.code <= 1, "{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

/// The one index file's listing of `folder`.
fn listing(cache: &Path, folder: &str) -> serde_json::Value {
    let file = fs::read_dir(cache.join("index-v2"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    let doc: serde_json::Value = serde_json::from_str(&fs::read_to_string(file).unwrap()).unwrap();
    doc["listings"][folder].clone()
}

#[test]
fn a_warm_scan_takes_an_unchanged_folders_listing_and_lists_a_changed_one_again() {
    use Kind::*;
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let cache = tmp.path().join("cache");
    let dir = write_history(&tmp.path().join("logs"), &[Fail, Work, HealthCheck]);
    let tree = dir.parent().unwrap().parent().unwrap().to_path_buf();
    for f in fs::read_dir(&dir).unwrap() {
        settle(&f.unwrap().path());
    }
    settle(&dir);
    let sessions = |doc: &serde_json::Value| doc["servers"][0]["sessions"].as_u64().unwrap();

    let without = scan_json(&home, &cache, &tree, &["--no-cache"]);
    assert_eq!(sessions(&without), 3);
    assert_eq!(scan_json(&home, &cache, &tree, &[]), without);
    // the listing is kept: the folder's three files, by name
    let kept = listing(&cache, "mcp-logs-srv");
    let names: Vec<&str> = kept[1]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let mut want: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    want.sort();
    assert_eq!(names, want);
    assert_eq!(scan_json(&home, &cache, &tree, &[]), without, "warm");

    // An unchanged folder is not listed again: a listing in the index that names one
    // file fewer (as if written before that file came) is what a warm scan reads.
    let file = fs::read_dir(cache.join("index-v2"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut doc: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    doc["listings"]["mcp-logs-srv"][1]
        .as_array_mut()
        .unwrap()
        .remove(0);
    fs::write(&file, doc.to_string()).unwrap();
    assert_eq!(sessions(&scan_json(&home, &cache, &tree, &[])), 2);

    // A file added (the folder's times move): listed again, the new file read.
    let newest = dir.join("2026-10-09T09-00-00-000Z.jsonl");
    fs::copy(dir.join(&want[0]), &newest).unwrap();
    let without = scan_json(&home, &cache, &tree, &["--no-cache"]);
    assert_eq!(sessions(&without), 4);
    assert_eq!(
        scan_json(&home, &cache, &tree, &[]),
        without,
        "after a file was added"
    );
    // and one removed
    fs::remove_file(&newest).unwrap();
    let without = scan_json(&home, &cache, &tree, &["--no-cache"]);
    assert_eq!(sessions(&without), 3);
    assert_eq!(
        scan_json(&home, &cache, &tree, &[]),
        without,
        "after a file was removed"
    );
}
