//! Claude Code's MCP discovery cache (issue 54), on homes kept across real sessions
//! (tests/fixtures/discovery-cache/<build>/<session>/home, recorded by
//! tests/e2e/discovery_cache.py on 2.1.288 and 2.1.332). Git keeps no write times, so
//! each test gives the cache entry and the session transcripts theirs, relative to the
//! suite's clock; the transcripts are empty stand-ins named by the real session ids.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{copy_tree, mcplogs, run, run_json, set_age};
use serde_json::Value;

const BUILDS: [&str; 2] = ["2.1.288", "2.1.332"];

fn fixture(build: &str, session: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/discovery-cache")
        .join(build)
        .join(session)
        .join("home")
}

/// The fixture's home copied into `into`, the cache entries written `entry_age` seconds
/// ago and the transcripts in the order the sessions ran (`sessions.txt`, oldest first),
/// 10 s apart, the last one 5 s ago.
fn home_of(build: &str, session: &str, into: &Path, entry_age: u64) {
    copy_tree(&fixture(build, session), into);
    // git keeps no empty folder: a home whose last entry Claude Code deleted has none
    if let Ok(entries) = fs::read_dir(into.join(".claude/mcp-discovery-cache")) {
        for e in entries {
            set_age(&e.unwrap().path(), entry_age);
        }
    }
    let order = fs::read_to_string(
        fixture(build, session)
            .parent()
            .unwrap()
            .join("sessions.txt"),
    )
    .unwrap();
    let order: Vec<&str> = order.lines().collect();
    for p in fs::read_dir(into.join(".claude/projects")).unwrap() {
        for t in fs::read_dir(p.unwrap().path()).unwrap() {
            let t = t.unwrap().path();
            let id = t.file_stem().unwrap().to_string_lossy().to_string();
            let i = order
                .iter()
                .position(|s| *s == id)
                .expect("listed in sessions.txt");
            set_age(&t, 5 + (order.len() - 1 - i) as u64 * 10);
        }
    }
}

fn scan(home: &Path, env: &[(&str, &str)]) -> (Value, Vec<String>) {
    let mut cmd = mcplogs(home);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (r, doc) = run_json(cmd.args(["scan", "--json", "--no-cache"]));
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let warnings = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["message"].as_str().unwrap().to_string())
        .collect();
    (doc, warnings)
}

fn verdict(doc: &Value) -> (&str, Option<&str>) {
    let s = &doc["servers"][0];
    (s["verdict"].as_str().unwrap(), s["cause"].as_str())
}

#[test]
fn a_fresh_hit_is_served_from_cache_and_not_contacted() {
    for build in BUILDS {
        let tmp = tempfile::tempdir().unwrap();
        home_of(build, "fresh", tmp.path(), 30);
        let (doc, w) = scan(tmp.path(), &[("MCP_DISCOVERY_CACHE", "1")]);
        // the log holds only the warm session: healthy, of that session
        assert_eq!(verdict(&doc), ("healthy", None), "{build}");
        let note = w
            .iter()
            .find(|m| m.starts_with("cached-http: "))
            .unwrap_or_else(|| panic!("{build}: {w:?}"));
        assert!(
            note.contains("served from cache, not contacted this session")
                && note.contains("cached at")
                && note.contains("live state unknown"),
            "{build}: {note}"
        );
        assert!(
            w.iter().any(|m| m
                .contains("discovery cache is on (MCP_DISCOVERY_CACHE, environment)")
                && m.contains("1 entry")),
            "{build}: {w:?}"
        );
    }
}

#[test]
fn with_the_cache_off_nothing_is_said_of_the_server() {
    let tmp = tempfile::tempdir().unwrap();
    home_of("2.1.332", "fresh", tmp.path(), 30);
    let (_, w) = scan(tmp.path(), &[]);
    assert!(!w.iter().any(|m| m.starts_with("cached-http: ")), "{w:?}");
    // the entry is still shown: the cache may be on on the machine it came from
    assert!(
        w.iter().any(|m| m.contains("discovery cache is off")),
        "{w:?}"
    );
    // the flag Claude Code caches in .claude.json turns it on
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(tmp.path().join(".claude.json")).unwrap())
            .unwrap();
    let mut doc = doc;
    doc["cachedGrowthBookFeatures"] = serde_json::json!({"tengu_mcp_discovery_cache_enable": true});
    fs::write(tmp.path().join(".claude.json"), doc.to_string()).unwrap();
    let (_, w) = scan(tmp.path(), &[]);
    assert!(
        w.iter()
            .any(|m| m.starts_with("cached-http: served from cache")),
        "{w:?}"
    );
    // and the variable set to 0 wins over the flag
    let (_, w) = scan(tmp.path(), &[("MCP_DISCOVERY_CACHE", "0")]);
    assert!(!w.iter().any(|m| m.starts_with("cached-http: ")), "{w:?}");
}

#[test]
fn a_stale_hit_whose_refresh_fails_and_a_failed_connection_are_told() {
    for build in BUILDS {
        let tmp = tempfile::tempdir().unwrap();
        home_of(build, "stale-fail", tmp.path(), 3_000);
        let (doc, w) = scan(tmp.path(), &[("MCP_DISCOVERY_CACHE", "1")]);
        assert_eq!(verdict(&doc).0, "tools-fetch-failed", "{build}");
        assert!(
            w.iter()
                .any(|m| m.starts_with("cached-http: ")
                    && m.contains("kept serving the cached tools")),
            "{build}: {w:?}"
        );
        assert!(
            w.iter().any(|m| m.contains("stale until")),
            "{build}: {w:?}"
        );

        let tmp = tempfile::tempdir().unwrap();
        home_of(build, "down", tmp.path(), 0);
        let (doc, w) = scan(tmp.path(), &[("MCP_DISCOVERY_CACHE", "1")]);
        assert_eq!(verdict(&doc).0, "connection-failed", "{build}");
        assert!(
            w.iter().any(|m| m.starts_with("cached-http: ")
                && m.contains("deletes the server's discovery cache entry")),
            "{build}: {w:?}"
        );
        assert!(w.iter().any(|m| m.contains("0 entries")), "{build}: {w:?}");
    }
}

#[test]
fn the_cache_folder_is_listed_never_read_nor_followed() {
    let tmp = tempfile::tempdir().unwrap();
    home_of("2.1.332", "fresh", tmp.path(), 30);
    let cache = tmp.path().join(".claude/mcp-discovery-cache");
    let secret = tmp.path().join("secret.txt");
    fs::write(&secret, "sk-ant-api03-SECRETSECRETSECRET").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&secret, cache.join("aaaa.json")).unwrap();
    fs::write(cache.join("bbbb.json"), "PLAINTEXT-NEVER-SHOWN").unwrap();
    let mut cmd = mcplogs(tmp.path());
    cmd.env("MCP_DISCOVERY_CACHE", "1");
    let r = run(cmd.args(["scan", "--no-cache"]));
    assert!(!r.stderr.contains("SECRET") && !r.stdout.contains("SECRET"));
    assert!(!r.stderr.contains("PLAINTEXT") && !r.stdout.contains("PLAINTEXT"));
    assert!(r.stderr.contains("2 entries"), "{}", r.stderr);
    #[cfg(unix)]
    assert!(
        r.stderr.contains("1 other item left unread"),
        "{}",
        r.stderr
    );
}

#[test]
fn du_and_prune_leave_the_cache_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    home_of("2.1.332", "stale-fail", &home, 40 * 86_400);
    crate::common::age_all(&home.join(".cache"), 40);
    let entries = || {
        fs::read_dir(home.join(".claude/mcp-discovery-cache"))
            .unwrap()
            .count()
    };
    assert_eq!(entries(), 1);
    let r = run(mcplogs(tmp.path()).args(["du", "--home"]).arg(&home));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("discovery"), "{}", r.stdout);
    let (r, doc) = run_json(
        mcplogs(tmp.path())
            .args(["prune", "--json", "--yes", "--home"])
            .arg(&home),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(doc["deleted"].as_u64().unwrap() > 0, "{doc:#}");
    assert_eq!(entries(), 1, "prune deleted a discovery cache entry");
}
