//! The summary index's shape (issue 55): one index file per project folder, not one per
//! server folder; its summaries go with the folders they describe; the first layout's
//! files (`index-v1/`, one a server folder) are never read and `prune` removes them.

use crate::common::*;
use crate::newest_first::{Kind, write_history};

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Three server folders in each of two projects, settled a day ago (the index
/// summarises only files that have settled). Returns the log tree.
fn two_projects(root: &Path) -> PathBuf {
    use Kind::*;
    let one = write_history(root, &[Fail, Work, HealthCheck]);
    let tree = one.parent().unwrap().parent().unwrap().to_path_buf();
    for (project, server) in [
        ("-home-ana-proj", "mcp-logs-b"),
        ("-home-ana-proj", "mcp-logs-c"),
        ("-home-ana-other", "mcp-logs-srv"),
        ("-home-ana-other", "mcp-logs-b"),
        ("-home-ana-other", "mcp-logs-c"),
    ] {
        let dir = tree.join(project).join(server);
        fs::create_dir_all(&dir).unwrap();
        for f in fs::read_dir(&one).unwrap() {
            let f = f.unwrap().path();
            fs::copy(&f, dir.join(f.file_name().unwrap())).unwrap();
        }
    }
    for e in walkdir::WalkDir::new(&tree).into_iter().flatten() {
        if e.file_type().is_file() {
            let f = fs::File::options().write(true).open(e.path()).unwrap();
            f.set_modified(mcplogs::time::file_system_clock() - Duration::from_secs(86_400))
                .unwrap();
        }
    }
    tree
}

fn scan_json(home: &Path, cache: &Path, tree: &Path, extra: &[&str]) -> String {
    let r = run(mcplogs(home)
        .env("MCPLOGS_CACHE_DIR", cache)
        .args(["scan", "--json"])
        .args(extra)
        .arg(tree));
    assert!(r.code <= 1, "{}", r.stderr);
    r.stdout
}

fn index_files(cache: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(cache.join("index-v2"))
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Each index file's project and its server folders' names.
fn shape(cache: &Path) -> Vec<(String, Vec<String>)> {
    let mut v: Vec<(String, Vec<String>)> = index_files(cache)
        .iter()
        .map(|f| {
            let doc: serde_json::Value =
                serde_json::from_str(&fs::read_to_string(f).unwrap()).unwrap();
            let project = doc["project"].as_str().unwrap();
            let name = Path::new(project).file_name().unwrap();
            let folders = doc["folders"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            (name.to_string_lossy().into_owned(), folders)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn one_private_index_file_per_project_folder_and_answers_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let cache = tmp.path().join("cache");
    let tree = two_projects(&tmp.path().join("logs"));
    let without = scan_json(&home, &cache, &tree, &["--no-cache"]);
    assert!(!cache.join("index-v2").exists());
    let first = scan_json(&home, &cache, &tree, &[]);
    let warm = scan_json(&home, &cache, &tree, &[]);
    assert_eq!(first, without);
    assert_eq!(warm, without);
    let all = ["mcp-logs-b", "mcp-logs-c", "mcp-logs-srv"]
        .map(String::from)
        .to_vec();
    assert_eq!(
        shape(&cache),
        vec![
            ("-home-ana-other".to_string(), all.clone()),
            ("-home-ana-proj".to_string(), all.clone()),
        ],
        "two index files for six server folders"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&cache.join("index-v2")), 0o700);
        for f in index_files(&cache) {
            assert_eq!(mode(&f), 0o600, "{}", f.display());
        }
    }
    // A warm scan rewrites nothing: the files are the same ones.
    let ino = |f: &Path| fs::metadata(f).unwrap().modified().unwrap();
    let before: Vec<_> = index_files(&cache).iter().map(|f| ino(f)).collect();
    scan_json(&home, &cache, &tree, &[]);
    let after: Vec<_> = index_files(&cache).iter().map(|f| ino(f)).collect();
    assert_eq!(before, after);
    // Only the deciding session's records are kept (its details: the Work session,
    // whose tool call decided); no other session's message.
    for f in index_files(&cache) {
        let text = fs::read_to_string(&f).unwrap();
        assert!(text.contains("Calling MCP tool"), "{text}");
        assert!(!text.contains("Failed to fetch tools"), "{text}");
    }
}

#[test]
fn a_scan_of_one_server_folder_keeps_its_project_neighbours_summaries() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let cache = tmp.path().join("cache");
    let tree = two_projects(&tmp.path().join("logs"));
    scan_json(&home, &cache, &tree, &[]);
    let whole = shape(&cache);
    // One folder alone, its summaries dropped first: written back with the others kept.
    let one = tree.join("-home-ana-proj").join("mcp-logs-b");
    let newest = fs::read_dir(&one)
        .unwrap()
        .map(|e| e.unwrap().path())
        .max()
        .unwrap();
    let f = fs::File::options().write(true).open(&newest).unwrap();
    f.set_modified(mcplogs::time::file_system_clock() - Duration::from_secs(7200))
        .unwrap();
    drop(f);
    let alone = scan_json(&home, &cache, &one, &[]);
    assert_eq!(alone, scan_json(&home, &cache, &one, &["--no-cache"]));
    assert_eq!(shape(&cache), whole);
}

#[test]
fn summaries_go_with_their_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let cache = tmp.path().join("cache");
    let tree = two_projects(&tmp.path().join("logs"));
    scan_json(&home, &cache, &tree, &[]);
    // A server folder deleted by someone else: the next scan of its project drops its
    // summaries.
    fs::remove_dir_all(tree.join("-home-ana-proj").join("mcp-logs-c")).unwrap();
    scan_json(&home, &cache, &tree, &[]);
    let all = ["mcp-logs-b", "mcp-logs-c", "mcp-logs-srv"]
        .map(String::from)
        .to_vec();
    assert_eq!(
        shape(&cache),
        vec![
            ("-home-ana-other".to_string(), all),
            (
                "-home-ana-proj".to_string(),
                vec!["mcp-logs-b".into(), "mcp-logs-srv".into()]
            ),
        ]
    );
    // A project folder deleted: `prune` removes its index file (and only that one).
    fs::remove_dir_all(tree.join("-home-ana-other")).unwrap();
    let (r, doc) = run_json(
        mcplogs(&home)
            .env("MCPLOGS_CACHE_DIR", &cache)
            .args(["prune", "--yes", "--json"])
            .arg(&tree),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let kinds: Vec<(&str, &str)> = doc["cache"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["kind"].as_str().unwrap(), e["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(kinds, vec![("index", "logs-gone")], "{doc}");
    assert_eq!(
        shape(&cache)
            .into_iter()
            .map(|(p, _)| p)
            .collect::<Vec<_>>(),
        vec!["-home-ana-proj".to_string()]
    );
}

#[cfg(unix)]
#[test]
fn the_first_layouts_files_are_never_read_and_prune_removes_them() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let cache = tmp.path().join("cache");
    let tree = two_projects(&tmp.path().join("logs"));
    let old = cache.join("index-v1");
    fs::create_dir_all(&old).unwrap();
    let victim = tmp.path().join("victim");
    fs::write(&victim, "precious\n").unwrap();
    // What an earlier build left: an index file of a server folder (its summaries
    // claim every session healthy), a temporary file, and a planted link.
    fs::write(
        old.join(format!("{}.json", "ab".repeat(32))),
        r#"{"format":1,"build":"0.1.0+1-2.3","folder":"/x","files":[]}"#,
    )
    .unwrap();
    fs::write(old.join(".x.json.0123456789abcdef.tmp"), "{").unwrap();
    std::os::unix::fs::symlink(&victim, old.join("link.json")).unwrap();
    let without = scan_json(&home, &cache, &tree, &["--no-cache"]);
    assert_eq!(scan_json(&home, &cache, &tree, &[]), without);
    assert_eq!(
        fs::read_dir(&old).unwrap().count(),
        3,
        "a scan leaves it be"
    );
    let (r, doc) = run_json(
        mcplogs(&home)
            .env("MCPLOGS_CACHE_DIR", &cache)
            .args(["prune", "--yes", "--json"])
            .arg(&tree),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let listed: Vec<&str> = doc["cache"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "leftover")
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(listed.len(), 3, "{doc}");
    assert!(listed.iter().all(|p| p.contains("index-v1")), "{listed:?}");
    assert_eq!(fs::read_dir(&old).unwrap().count(), 0);
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    // The new index is untouched by it.
    assert_eq!(shape(&cache).len(), 2);
}
