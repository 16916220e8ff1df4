//! mcplogs' own cache (issue 42, items 3 and 4): the status line's memos, the hook's
//! told-lists and the summary index are written privately (0700/0600 whatever the
//! umask, never through a planted link), hold no raw secret, are refused in a cache
//! folder that is someone else's or open to others, go away with the logs they describe
//! (`prune`), and are counted by `du`.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

const TOKEN: &str = "ghp_R3alLook1ngT0kenF0rTheCacheTest0123456";

fn record(session: &str, key: &str, msg: &str) -> String {
    serde_json::json!({key: msg, "timestamp": "2026-11-29T12:00:00.000Z", "sessionId": session, "cwd": "/w/p"})
        .to_string()
}

/// A failing session's log lines, with a token in the server's stderr.
fn failing(session: &str) -> String {
    [
        record(
            session,
            "debug",
            "Starting connection with timeout of 30000ms",
        ),
        record(
            session,
            "debug",
            &format!("Server stderr: auth with GITHUB_TOKEN={TOKEN} failed"),
        ),
        record(
            session,
            "error",
            &format!("Connection failed: MCP error -32000: Connection closed (token {TOKEN})"),
        ),
    ]
    .join("\n")
        + "\n"
}

fn server_dir(home: &Path) -> PathBuf {
    home.join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name("/w/p"))
        .join("mcp-logs-db")
}

/// One log file of the server `db` in project `/w/p`, named for its start time.
fn log_file(home: &Path, n: usize, text: &str) -> PathBuf {
    let d = server_dir(home);
    fs::create_dir_all(&d).unwrap();
    let f = d.join(format!(
        "2026-11-{:02}T12-00-{:02}-000Z.jsonl",
        1 + n / 60,
        n % 60
    ));
    fs::write(&f, text).unwrap();
    f
}

fn input(session: &str) -> String {
    format!(
        r#"{{"session_id":"{session}","cwd":"/w/p","workspace":{{"current_dir":"/w/p","project_dir":"/w/p"}},"hook_event_name":"UserPromptSubmit"}}"#
    )
}

/// `mcplogs <command> --home HOME` with `session`'s input, its cache at `cache`, under
/// umask 022 (what most users have).
fn run_status(command: &str, home: &Path, cache: &Path, session: &str) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let mut c = mcplogs(tmp.path());
    c.env("MCPLOGS_CACHE_DIR", cache)
        .arg(command)
        .arg("--home")
        .arg(home);
    umask_022(&mut c);
    run_with_stdin(&mut c, input(session).as_bytes())
}

fn umask_022(c: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: umask is async-signal-safe and touches no memory.
    unsafe {
        c.pre_exec(|| {
            libc::umask(0o022);
            Ok(())
        });
    }
}

fn mode(p: &Path) -> u32 {
    fs::symlink_metadata(p).unwrap().mode() & 0o7777
}

/// Every folder and file under `dir` (the root included): (path, mode, is a folder).
fn modes(dir: &Path) -> Vec<(PathBuf, u32, bool)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| {
            let e = e.unwrap();
            (
                e.path().to_path_buf(),
                mode(e.path()),
                e.file_type().is_dir(),
            )
        })
        .collect()
}

fn all_text(dir: &Path) -> String {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| String::from_utf8_lossy(&fs::read(e.path()).unwrap()).into_owned())
        .collect()
}

#[test]
fn under_umask_022_the_cache_is_0700_and_0600_and_holds_no_raw_secret() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let cache = tmp.path().join("xdg/mcplogs");
    log_file(&home, 0, &failing("now"));
    let r = run_status("statusline", &home, &cache, "now");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "MCP 1✗ db (connection closed · mcplogs scan)\n");
    let r = run_status("hook", &home, &cache, "now");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(r#"\"db\" (connection-failed"#),
        "{}",
        r.stdout
    );
    // The index too: a scan with the cache, files aged so they are summarised.
    age_all(&home, 1);
    let mut c = mcplogs(tmp.path());
    c.env("MCPLOGS_CACHE_DIR", &cache)
        .args(["scan", "--json", "--home"])
        .arg(&home);
    umask_022(&mut c);
    assert_eq!(run(&mut c).code, 1);

    let found = modes(&cache);
    for sub in ["statusline", "hook-told", "index-v2"] {
        assert!(
            found.iter().any(|(p, _, dir)| *dir && p.ends_with(sub)),
            "{sub}: {found:?}"
        );
    }
    assert!(
        found.iter().filter(|(_, _, dir)| !dir).count() >= 3,
        "{found:?}"
    );
    for (p, m, dir) in &found {
        let want = if *dir { 0o700 } else { 0o600 };
        assert_eq!(*m, want, "{}: {m:o}", p.display());
    }
    // The memo keeps the session's messages, redacted: no token, in any file.
    let text = all_text(&cache);
    assert!(!text.contains("ghp_"), "{text}");
    assert!(
        text.contains("[REDACTED:"),
        "the memo keeps the messages: {text}"
    );
    // Read back from the memo, the verdict is the same.
    let r = run_status("statusline", &home, &cache, "now");
    assert_eq!(r.stdout, "MCP 1✗ db (connection closed · mcplogs scan)\n");
}

#[test]
fn a_link_planted_at_the_memo_or_the_told_list_is_replaced_never_written_through() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let cache = tmp.path().join("cache");
    log_file(&home, 0, &failing("now"));
    for d in ["statusline", "hook-told"] {
        fs::create_dir_all(cache.join(d)).unwrap();
    }
    fs::set_permissions(&cache, fs::Permissions::from_mode(0o700)).unwrap();
    let victims: Vec<PathBuf> = (0..3)
        .map(|i| {
            let v = tmp.path().join(format!("victim{i}"));
            fs::write(&v, "precious\n").unwrap();
            fs::set_permissions(&v, fs::Permissions::from_mode(0o644)).unwrap();
            v
        })
        .collect();
    let memo = cache.join("statusline/now.json");
    let told = cache.join("hook-told/now");
    symlink(&victims[0], &memo).unwrap();
    symlink(&victims[1], &told).unwrap();
    // The name an older mcplogs used for every memo write of this process id, planted
    // for the next few hundred process ids.
    let last: u32 = fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    for pid in last..last + 300 {
        symlink(&victims[2], cache.join(format!("statusline/.{pid}.tmp"))).unwrap();
    }
    for _ in 0..2 {
        assert_eq!(run_status("statusline", &home, &cache, "now").code, 0);
        let r = run_status("hook", &home, &cache, "now");
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    for v in &victims {
        assert_eq!(
            fs::read_to_string(v).unwrap(),
            "precious\n",
            "{}",
            v.display()
        );
        assert_eq!(mode(v), 0o644);
    }
    for f in [&memo, &told] {
        let m = fs::symlink_metadata(f).unwrap();
        assert!(m.is_file(), "{} is now mcplogs' own file", f.display());
        assert_eq!(m.mode() & 0o777, 0o600);
    }
    // The hook told once, and remembers it in its own file.
    assert_eq!(run_status("hook", &home, &cache, "now").stdout, "");

    // A folder of the cache that is a link elsewhere is refused: nothing lands there.
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    fs::remove_dir_all(cache.join("hook-told")).unwrap();
    symlink(&elsewhere, cache.join("hook-told")).unwrap();
    let r = run_status("hook", &home, &cache, "other");
    assert_eq!(r.code, 0);
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn a_cache_folder_open_to_others_or_someone_elses_is_refused_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    log_file(&home, 0, &failing("now"));
    age_all(&home, 1);
    let cache = tmp.path().join("cache");
    fs::create_dir(&cache).unwrap();
    let mut cases = vec![("open to others", 0o777, None)];
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        cases.push(("another user's", 0o700, Some(4242)));
    } else {
        eprintln!("skipped the other user's folder: chown needs root");
    }
    for (what, m, owner) in cases {
        fs::set_permissions(&cache, fs::Permissions::from_mode(m)).unwrap();
        if let Some(uid) = owner {
            std::os::unix::fs::chown(&cache, Some(uid), Some(uid)).unwrap();
        }
        let r = run_status("statusline", &home, &cache, "now");
        assert_eq!(r.code, 0, "{what}");
        assert_eq!(r.stdout, "MCP 1✗ db (connection closed · mcplogs scan)\n");
        assert_eq!(r.stderr.lines().count(), 1, "{what}: {}", r.stderr);
        assert!(
            r.stderr.contains(&cache.display().to_string()),
            "{what}: {}",
            r.stderr
        );
        let r = run_status("hook", &home, &cache, "now");
        assert_eq!(r.code, 0, "{what}");
        assert!(r.stdout.contains(r#"\"db\" (connection-failed"#), "{what}");
        let mut c = mcplogs(tmp.path());
        c.env("MCPLOGS_CACHE_DIR", &cache)
            .args(["scan", "--json", "--home"])
            .arg(&home);
        let (r, doc) = run_json(&mut c);
        assert_eq!(r.code, 1);
        assert!(
            doc["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w["message"].as_str().unwrap().contains("cache folder")),
            "{what}: {doc}"
        );
        assert_eq!(
            fs::read_dir(&cache).unwrap().count(),
            0,
            "{what}: nothing written"
        );
        assert_eq!(mode(&cache), m, "{what}: left as it was");
    }
}

#[test]
fn thirty_sessions_then_prune_removes_their_memos_and_told_lists() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let cache = tmp.path().join("cache");
    let sessions: Vec<String> = (0..30).map(|i| format!("session-{i:02}")).collect();
    for (i, s) in sessions.iter().enumerate() {
        // Each Claude Code process writes a new file; its status line and hook run
        // while it is the newest.
        log_file(&home, i, &failing(s));
        assert_eq!(run_status("statusline", &home, &cache, s).code, 0);
        assert!(run_status("hook", &home, &cache, s).stdout.contains("db"));
    }
    let count = |d: &str| fs::read_dir(cache.join(d)).unwrap().count();
    assert_eq!((count("statusline"), count("hook-told")), (30, 30));
    assert!(all_text(&cache).contains("[REDACTED:"));
    age_all(&home, 8);

    // The plan lists them.
    let mut c = mcplogs(tmp.path());
    c.env("MCPLOGS_CACHE_DIR", &cache)
        .args([
            "prune",
            "--older-than",
            "7d",
            "--dry-run",
            "--json",
            "--home",
        ])
        .arg(&home);
    let (r, doc) = run_json(&mut c);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(doc["files"], 29);
    let entries = doc["cache"].as_array().unwrap();
    let of = |kind: &str| {
        entries
            .iter()
            .filter(|e| e["kind"] == kind && e["reason"] == "logs-pruned")
            .count()
    };
    assert_eq!((of("statusline-memo"), of("hook-told")), (29, 29), "{doc}");
    assert!(
        !entries
            .iter()
            .any(|e| e["path"].as_str().unwrap().contains("session-29")),
        "the newest session's logs stay, and so does its memo"
    );
    let mut c = mcplogs(tmp.path());
    c.env("MCPLOGS_CACHE_DIR", &cache)
        .args(["prune", "--older-than", "7d", "--dry-run", "--home"])
        .arg(&home);
    let r = run(&mut c);
    assert!(
        r.stdout
            .contains("Also from mcplogs' cache: 29 status line memos, 29 hook told-lists"),
        "{}",
        r.stdout
    );

    let mut c = mcplogs(tmp.path());
    c.env("MCPLOGS_CACHE_DIR", &cache)
        .args(["prune", "--older-than", "7d", "--yes", "--home"])
        .arg(&home);
    let r = run(&mut c);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("Removed 58 entries of mcplogs' cache"),
        "{}",
        r.stdout
    );
    let names = |d: &str| -> Vec<String> {
        fs::read_dir(cache.join(d))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(names("statusline"), vec!["session-29.json"]);
    assert_eq!(names("hook-told"), vec!["session-29"]);
    assert_eq!(fs::read_dir(server_dir(&home)).unwrap().count(), 1);

    // Logs removed by someone else: the next prune removes what described them.
    fs::remove_dir_all(home.join(".cache/claude-cli-nodejs")).unwrap();
    let mut c = mcplogs(tmp.path());
    c.env("MCPLOGS_CACHE_DIR", &cache)
        .args(["prune", "--yes", "--home"])
        .arg(&home);
    fs::create_dir_all(home.join(".cache/claude-cli-nodejs")).unwrap();
    let r = run(&mut c);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Removed "), "{}", r.stdout);
    assert!(names("statusline").is_empty() && names("hook-told").is_empty());
}

#[test]
fn du_counts_mcplogs_own_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let cache = tmp.path().join("cache");
    log_file(&home, 0, &failing("now"));
    run_status("statusline", &home, &cache, "now");
    let memo = fs::metadata(cache.join("statusline/now.json"))
        .unwrap()
        .len();
    let mut c = mcplogs(tmp.path());
    c.env("MCPLOGS_CACHE_DIR", &cache)
        .args(["du", "--json", "--home"])
        .arg(&home);
    let (r, doc) = run_json(&mut c);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(doc["mcplogsCache"]["files"], 1, "{doc}");
    assert_eq!(doc["mcplogsCache"]["bytes"], memo);
    assert_eq!(doc["mcplogsCache"]["path"], cache.display().to_string());
    let mut c = mcplogs(tmp.path());
    c.env("MCPLOGS_CACHE_DIR", &cache)
        .args(["du", "--home"])
        .arg(&home);
    let r = run(&mut c);
    assert!(
        r.stdout.contains("mcplogs' own cache: ") && r.stdout.contains("in 1 file ("),
        "{}",
        r.stdout
    );
    // None yet: null, and no line.
    let mut c = mcplogs(tmp.path());
    c.env("MCPLOGS_CACHE_DIR", tmp.path().join("none"))
        .args(["du", "--json", "--home"])
        .arg(&home);
    let (_, doc) = run_json(&mut c);
    assert!(doc["mcplogsCache"].is_null());
}

#[test]
fn prune_removes_only_what_mcplogs_wrote_in_its_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let cache = tmp.path().join("cache");
    log_file(&home, 0, &failing("now"));
    assert_eq!(run_status("hook", &home, &cache, "now").code, 0);
    let victim = tmp.path().join("victim");
    fs::write(&victim, "precious\n").unwrap();
    let plant = |p: &str, text: &str| {
        fs::write(cache.join(p), text).unwrap();
        cache.join(p)
    };
    let kept = [
        plant("statusline/notes.txt", "the user's own"),
        plant("statusline/broken.json", "not a memo"),
        plant("hook-told/My File", "not a told-list name"),
    ];
    let temp = plant("statusline/.now.json.0123456789abcdef.tmp", "{");
    let fresh_temp = plant("hook-told/.now.fedcba9876543210.tmp", "");
    set_age(&temp, 2 * 86_400);
    symlink(&victim, cache.join("statusline/link.json")).unwrap();
    // The logs go (by someone else): the memo and told-list of `now` are stale.
    fs::remove_dir_all(server_dir(&home)).unwrap();
    let mut c = mcplogs(tmp.path());
    c.env("MCPLOGS_CACHE_DIR", &cache)
        .args(["prune", "--yes", "--json", "--home"])
        .arg(&home);
    let (r, doc) = run_json(&mut c);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let listed: Vec<&str> = doc["cache"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(listed.len(), 4, "{listed:?}");
    assert_eq!(doc["cacheRemoved"], 4);
    for p in &kept {
        assert!(p.exists(), "{} is left alone", p.display());
    }
    assert!(fresh_temp.exists(), "a temporary file being written stays");
    for gone in [
        "statusline/now.json",
        "hook-told/now",
        "statusline/link.json",
    ] {
        assert!(fs::symlink_metadata(cache.join(gone)).is_err(), "{gone}");
    }
    assert!(!temp.exists());
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
}

/// A memo or told-list an older mcplogs wrote (messages and server names kept as they
/// were) holds no raw secret once this build has used it: the memo's messages are
/// redacted when read back, the told-list keeps only hashes.
#[test]
fn an_older_builds_memo_and_told_list_lose_their_raw_text() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let cache = tmp.path().join("cache");
    log_file(&home, 0, &failing("old"));
    assert_eq!(run_status("statusline", &home, &cache, "old").code, 0);
    assert_eq!(run_status("hook", &home, &cache, "old").code, 0);
    // As an older build left them: no `redacted` mark, a raw message; a raw name.
    let memo = fs::read_dir(cache.join("statusline"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    let mut doc: serde_json::Value = serde_json::from_slice(&fs::read(&memo).unwrap()).unwrap();
    for m in doc.as_object_mut().unwrap().values_mut() {
        let m = m.as_object_mut().unwrap();
        m.remove("redacted");
        m["head"]
            .as_array_mut()
            .unwrap()
            .push(format!("Connection failed: token {TOKEN} rejected").into());
    }
    fs::write(&memo, doc.to_string()).unwrap();
    let told = fs::read_dir(cache.join("hook-told"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .next()
        .unwrap();
    let mut list = fs::read_to_string(&told).unwrap();
    list.push_str(&format!("db {TOKEN}\n"));
    fs::write(&told, list).unwrap();
    // A second server fails, so the hook has something new to tell and rewrites its list.
    let other = home
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name("/w/p"))
        .join("mcp-logs-db2");
    fs::create_dir_all(&other).unwrap();
    fs::write(other.join("2026-11-01T12-00-05-000Z.jsonl"), failing("old")).unwrap();

    assert_eq!(run_status("statusline", &home, &cache, "old").code, 0);
    assert_eq!(run_status("hook", &home, &cache, "old").code, 0);
    let text = all_text(&cache);
    assert!(!text.contains("ghp_"), "{text}");
    assert!(text.contains("token [REDACTED:"), "{text}");
}
