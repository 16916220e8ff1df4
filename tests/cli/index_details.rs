//! The summary index keeps what the views need of each folder's deciding session (its
//! evidence records and stderr context, issue 55 item 3), so a warm scan reads no
//! unchanged log file again: every document made with it equals the one made without
//! it, nothing the secret rules or the configuration mark as secret is kept, and a log
//! file that changed is read again.

use crate::common::*;

use std::fs;
use std::path::{Path, PathBuf};

const PLANTED_TOKEN: &str = "ghp_PLANTEDindexdetails0123456789abcdefg";
const CONFIGURED: &str = "srvConfiguredValue4242";

/// A home whose server `srv` (configured with a secret in its `env`) failed to start in
/// two sessions, the newest writing `stderr` first; every file settled.
fn write_home(home: &Path, stderr: &[&str]) -> PathBuf {
    fs::create_dir_all(home).unwrap();
    fs::write(
        home.join(".claude.json"),
        serde_json::json!({"projects": {"/home/ana/proj": {"mcpServers": {"srv": {
            "command": "mcp-server-not-installed",
            "env": {"SRV_API_KEY": CONFIGURED}}}}}})
        .to_string(),
    )
    .unwrap();
    let dir = home.join(".cache/claude-cli-nodejs/-home-ana-proj/mcp-logs-srv");
    fs::create_dir_all(&dir).unwrap();
    write_session(&dir.join("2026-10-01T09-00-00-000Z.jsonl"), 1, &[], false);
    write_session(
        &dir.join("2026-10-02T09-00-00-000Z.jsonl"),
        2,
        stderr,
        false,
    );
    age_all(home, 1);
    dir
}

/// One failed session (day `day`) in `file`, its stderr records first; `append` adds it
/// to what the file holds.
fn write_session(file: &Path, day: u32, stderr: &[&str], append: bool) {
    let mut text = if append {
        fs::read_to_string(file).unwrap()
    } else {
        String::new()
    };
    let mut messages: Vec<(&str, String)> = vec![(
        "debug",
        "Starting connection with timeout of 30000ms".into(),
    )];
    for line in stderr {
        messages.push(("error", format!("Server stderr: {line}")));
    }
    messages.push((
        "error",
        "Connection failed (ENOENT): Executable not found in $PATH: \"mcp-server-not-installed\""
            .into(),
    ));
    for (i, (key, m)) in messages.into_iter().enumerate() {
        let r = serde_json::json!({
            key: m,
            "timestamp": format!("2026-10-{day:02}T09:00:{i:02}.000Z"),
            "sessionId": format!("session-{day}"),
            "cwd": "/home/ana/proj",
        });
        text.push_str(&r.to_string());
        text.push('\n');
    }
    fs::write(file, text).unwrap();
}

fn output(
    cwd: &Path,
    cache: &Path,
    home: &Path,
    args: &[&str],
    no_cache: bool,
) -> (String, String) {
    let mut c = mcplogs(cwd);
    c.env("MCPLOGS_CACHE_DIR", cache).args(args);
    if no_cache {
        c.arg("--no-cache");
    }
    let r = run(c.arg("--home").arg(home));
    assert!(r.code <= 1, "{args:?}: {}", r.stderr);
    (r.stdout, r.stderr)
}

/// Every index file's text.
fn index_text(cache: &Path) -> String {
    let Ok(dir) = fs::read_dir(cache.join("index-v2")) else {
        return String::new();
    };
    dir.map(|e| fs::read_to_string(e.unwrap().path()).unwrap_or_default())
        .collect()
}

const VIEWS: [&[&str]; 5] = [
    &["scan", "--json"],
    &["scan"],
    &["scan", "--verbose"],
    &["report"],
    &["report", "--json"],
];

/// Each view without the index, then with it twice (written, then read): the same
/// stdout and stderr each time.
fn assert_warm_equals_cold(cwd: &Path, cache: &Path, home: &Path) {
    for args in VIEWS {
        let cold = output(cwd, cache, home, args, true);
        let first = output(cwd, cache, home, args, false);
        let warm = output(cwd, cache, home, args, false);
        assert_eq!(first, cold, "{args:?}: writing the index");
        assert_eq!(warm, cold, "{args:?}: with a warm index");
    }
}

#[test]
fn a_warm_index_makes_every_document_the_cold_scan_makes_on_the_samples() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path().join("cwd");
    fs::create_dir_all(&cwd).unwrap();
    for home in ["linux-home", "macos-home", "shared-folder"] {
        let copy = tmp.path().join(home);
        copy_tree(&samples().join(home), &copy);
        age_all(&copy, 1);
        let cache = tmp.path().join(format!("cache-{home}"));
        assert_warm_equals_cold(&cwd, &cache, &copy);
        // the deciding sessions' details are kept: a failing server's stderr is in
        // the index (no log message was, before)
        if home == "linux-home" {
            assert!(
                index_text(&cache).contains("mcplogs-stub: starting (stdio)"),
                "{}",
                index_text(&cache)
            );
        }
    }
}

#[test]
fn a_deciding_sessions_details_are_kept_and_used_when_they_hold_no_secret() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path().join("cwd");
    fs::create_dir_all(&cwd).unwrap();
    let home = tmp.path().join("home");
    let cache = tmp.path().join("cache");
    write_home(
        &home,
        &["srv: reading /etc/srv.toml", "srv: no listen address set"],
    );
    assert_warm_equals_cold(&cwd, &cache, &home);
    let text = index_text(&cache);
    assert!(text.contains("no listen address set"), "{text}");
    assert!(text.contains("Executable not found"), "{text}");
    // the tail shown is the kept one
    let (json, _) = output(&cwd, &cache, &home, &["scan", "--json"], false);
    assert!(json.contains("srv: no listen address set"), "{json}");
}

#[test]
fn details_holding_a_planted_token_or_a_configured_secret_are_never_kept() {
    for stderr in [
        vec![
            "srv: starting",
            &*format!("srv: auth with {PLANTED_TOKEN} failed"),
        ],
        vec![
            &*format!("srv: SRV_API_KEY={CONFIGURED} rejected"),
            "srv: exiting",
        ],
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().join("cwd");
        fs::create_dir_all(&cwd).unwrap();
        let home = tmp.path().join("home");
        let cache = tmp.path().join("cache");
        write_home(&home, &stderr);
        assert_warm_equals_cold(&cwd, &cache, &home);
        let text = index_text(&cache);
        assert!(!text.is_empty(), "an index was written");
        for secret in [PLANTED_TOKEN, CONFIGURED, "PLANTED"] {
            assert!(!text.contains(secret), "{secret} in the index: {text}");
        }
        // the summaries are still kept (only the details are not)
        assert!(text.contains("2026-10-02T09-00-00-000Z.jsonl"), "{text}");
    }
}

#[test]
fn a_changed_deciding_file_is_read_again() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path().join("cwd");
    fs::create_dir_all(&cwd).unwrap();
    let home = tmp.path().join("home");
    let cache = tmp.path().join("cache");
    let dir = write_home(&home, &["srv: first words"]);
    assert_warm_equals_cold(&cwd, &cache, &home);
    // a later session in the same file (a resumed process): its stderr differs
    let newest = dir.join("2026-10-02T09-00-00-000Z.jsonl");
    write_session(&newest, 3, &["srv: second words, port 9 in use"], true);
    age_all(&home, 1);
    for args in VIEWS {
        let warm = output(&cwd, &cache, &home, args, false);
        let cold = output(&cwd, &cache, &home, args, true);
        assert_eq!(warm, cold, "{args:?}");
    }
    let (json, _) = output(&cwd, &cache, &home, &["scan", "--json"], false);
    assert!(json.contains("port 9 in use"), "{json}");
    assert!(index_text(&cache).contains("port 9 in use"));
}

#[test]
fn an_index_file_of_the_format_before_is_ignored_and_rewritten() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path().join("cwd");
    fs::create_dir_all(&cwd).unwrap();
    let home = tmp.path().join("home");
    let cache = tmp.path().join("cache");
    write_home(&home, &["srv: reading /etc/srv.toml"]);
    let (cold, _) = output(&cwd, &cache, &home, &["scan", "--json"], true);
    output(&cwd, &cache, &home, &["scan", "--json"], false);
    let file = fs::read_dir(cache.join("index-v2"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .next()
        .unwrap();
    let text = fs::read_to_string(&file).unwrap();
    assert!(text.starts_with(r#"{"format":3,"#), "{text}");
    // format 2's shape: each file's entry without its details
    let old = text
        .replace(r#"{"format":3,"#, r#"{"format":2,"#)
        .replace(",null]", "]");
    fs::write(&file, old).unwrap();
    let (warm, _) = output(&cwd, &cache, &home, &["scan", "--json"], false);
    assert_eq!(warm, cold);
    assert!(
        fs::read_to_string(&file)
            .unwrap()
            .starts_with(r#"{"format":3,"#)
    );
}

/// A deciding file larger than the first read takes stderr records from (4 MiB): its
/// details are kept without the stderr context, and the tail is made from the file's
/// end, as without the index.
#[test]
fn a_large_deciding_files_tail_is_read_from_its_end_with_the_details_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path().join("cwd");
    fs::create_dir_all(&cwd).unwrap();
    let home = tmp.path().join("home");
    let cache = tmp.path().join("cache");
    let dir = write_home(&home, &[]);
    let newest = dir.join("2026-10-02T09-00-00-000Z.jsonl");
    let mut text = String::new();
    let filler = "x".repeat(500);
    for i in 0..10_000 {
        let r = serde_json::json!({"debug": format!("MCP server progress {i} {filler}"),
            "timestamp": "2026-10-02T08:00:00.000Z", "sessionId": "session-0"});
        text.push_str(&r.to_string());
        text.push('\n');
    }
    fs::write(&newest, text).unwrap();
    write_session(&newest, 2, &["srv: big file's last words"], true);
    age_all(&home, 1);
    assert!(fs::metadata(&newest).unwrap().len() > 4 << 20);
    assert_warm_equals_cold(&cwd, &cache, &home);
    let (json, _) = output(&cwd, &cache, &home, &["scan", "--json"], false);
    assert!(json.contains("big file's last words"), "{json}");
    assert!(index_text(&cache).contains("Executable not found"));
}

/// A home whose project (a folder of its own, `listed` or not in `~/.claude.json`)
/// configures `secret` in its `.mcp.json` only, and whose server echoes it on stderr in
/// a session run there (the records' `cwd`); the scan runs from another folder. Returns
/// the working folder, the home and the cache folder.
fn secret_project_home(tmp: &Path, secret: &str, listed: bool) -> (PathBuf, PathBuf, PathBuf) {
    let cwd = tmp.join("cwd");
    fs::create_dir_all(&cwd).unwrap();
    let home = tmp.join("home");
    let proj = tmp.join("proj");
    fs::create_dir_all(&proj).unwrap();
    fs::write(
        proj.join(".mcp.json"),
        serde_json::json!({"mcpServers": {"srv": {
            "command": "mcp-server-not-installed",
            "env": {"SRV_TOKEN": secret}}}})
        .to_string(),
    )
    .unwrap();
    fs::create_dir_all(&home).unwrap();
    let key = proj.to_string_lossy().into_owned();
    let projects = if listed {
        serde_json::json!({key.clone(): {"enabledMcpjsonServers": ["srv"]}})
    } else {
        serde_json::json!({})
    };
    fs::write(
        home.join(".claude.json"),
        serde_json::json!({"projects": projects}).to_string(),
    )
    .unwrap();
    let encoded = mcplogs::claude_code::names::encode_folder_name(&key);
    let dir = home.join(format!(".cache/claude-cli-nodejs/{encoded}/mcp-logs-srv"));
    fs::create_dir_all(&dir).unwrap();
    let messages = [
        ("debug", "Starting connection with timeout of 30000ms".to_string()),
        ("error", format!("Server stderr: srv: login as {secret} rejected")),
        (
            "error",
            "Connection failed (ENOENT): Executable not found in $PATH: \"mcp-server-not-installed\""
                .to_string(),
        ),
    ];
    let text: String = messages
        .iter()
        .enumerate()
        .map(|(i, (k, m))| {
            serde_json::json!({*k: m, "timestamp": format!("2026-10-02T09:00:{i:02}.000Z"),
                "sessionId": "session-2", "cwd": key})
            .to_string()
                + "\n"
        })
        .collect();
    fs::write(dir.join("2026-10-02T09-00-00-000Z.jsonl"), text).unwrap();
    age_all(&home, 1);
    (cwd, home, tmp.join("cache"))
}

/// A secret only a project's own `.mcp.json` names, echoed in its server's stderr, the
/// project listed in `~/.claude.json` (its secrets known before the scan) or not (known
/// from the deciding session's working directory): the index keeps no text holding it,
/// and the documents with the index equal those without.
#[test]
fn a_secret_named_only_in_a_projects_mcp_json_is_never_kept() {
    for listed in [true, false] {
        let tmp = tempfile::tempdir().unwrap();
        let secret = "projectOnlyValue4242";
        let (cwd, home, cache) = secret_project_home(tmp.path(), secret, listed);
        assert_warm_equals_cold(&cwd, &cache, &home);
        let text = index_text(&cache);
        assert!(text.contains("2026-10-02T09-00-00-000Z.jsonl"), "{text}");
        assert!(
            !text.contains(secret),
            "listed {listed}: the secret in the index: {text}"
        );
    }
}
