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

fn cache_of(doc: &Value) -> &Value {
    &doc["servers"][0]["discoveryCache"]
}

#[test]
fn a_fresh_hit_is_served_from_cache_and_not_contacted() {
    for build in BUILDS {
        let tmp = tempfile::tempdir().unwrap();
        home_of(build, "fresh", tmp.path(), 30);
        let (doc, w) = scan(tmp.path(), &[("MCP_DISCOVERY_CACHE", "1")]);
        // the log holds only the warm session; the last session served it from cache
        assert_eq!(
            verdict(&doc),
            ("unknown", Some("served-from-cache")),
            "{build}"
        );
        let c = cache_of(&doc);
        assert_eq!(c["state"], "served-from-cache", "{build}: {c:#}");
        // the live check it proposes names the project, so it runs from any folder
        assert!(
            doc["servers"][0]
                .to_string()
                .contains("mcplogs probe --project "),
            "{build}: {:#}",
            doc["servers"][0]
        );
        // a scan of a home named with --home: the probe reads that home's configuration
        let (r, named) = run_json(mcplogs(tmp.path()).args([
            "scan",
            "--json",
            "--no-cache",
            "--home",
            tmp.path().to_str().unwrap(),
        ]));
        let flag = format!(
            "mcplogs probe --home {} --project ",
            mcplogs::text::shell_word(tmp.path().to_str().unwrap())
        );
        assert!(
            named["servers"][0].to_string().contains(&flag),
            "{build}: {flag}: {:#}\n{}",
            named["servers"][0],
            r.stderr
        );
        let order = fs::read_to_string(
            fixture(build, "fresh")
                .parent()
                .unwrap()
                .join("sessions.txt"),
        )
        .unwrap();
        assert_eq!(c["session"].as_str(), order.lines().last(), "{build}");
        assert!(c["cachedAt"].is_string() && c["until"].is_string(), "{c:#}");
        let s = &doc["servers"][0];
        assert!(
            s["recommendation"]
                .as_str()
                .unwrap()
                .contains("without contacting it"),
            "{build}: {s:#}"
        );
        // no note beside the previous session's verdict any more
        assert!(!w.iter().any(|m| m.starts_with("cached-http: ")), "{w:?}");
        assert!(
            w.iter().any(|m| m
                .contains("discovery cache is on (MCP_DISCOVERY_CACHE, environment)")
                && m.contains("1 entry")),
            "{build}: {w:?}"
        );
        // the screen gives the verdict and its reason
        let mut cmd = mcplogs(tmp.path());
        cmd.env("MCP_DISCOVERY_CACHE", "1");
        let r = run(cmd.args(["scan", "--no-cache"]));
        assert!(
            r.stdout
                .contains("served from cache, not contacted this session; cached at")
                && r.stdout.contains("live state unknown"),
            "{build}: {}",
            r.stdout
        );
    }
}

/// What turns the cache on or off where mcplogs runs, and what its entries show: Claude
/// Code writes entries only while the cache is on, so entries with nothing here turning it
/// on or off mean it was on where Claude Code ran (the variable set in its shell); an
/// explicit off (the variable, or the rollout flag cached false while read) is believed.
#[test]
fn the_switch_and_the_entries_decide_whether_the_cache_served() {
    let tmp = tempfile::tempdir().unwrap();
    home_of("2.1.332", "fresh", tmp.path(), 30);
    let (doc, w) = scan(tmp.path(), &[]);
    assert_eq!(verdict(&doc), ("unknown", Some("served-from-cache")));
    assert!(
        w.iter().any(|m| m.contains("discovery cache is off")
            && m.contains("Claude Code writes entries only while it is on")),
        "{w:?}"
    );
    let (doc, _) = scan(tmp.path(), &[("MCP_DISCOVERY_CACHE", "0")]);
    assert_eq!(verdict(&doc), ("healthy", None));
    assert!(cache_of(&doc).is_null());
    // the flag Claude Code caches in .claude.json turns it on
    let mut doc: Value =
        serde_json::from_str(&fs::read_to_string(tmp.path().join(".claude.json")).unwrap())
            .unwrap();
    doc["cachedGrowthBookFeatures"] = serde_json::json!({"tengu_mcp_discovery_cache_enable": true});
    fs::write(tmp.path().join(".claude.json"), doc.to_string()).unwrap();
    let (d, _) = scan(tmp.path(), &[]);
    assert_eq!(verdict(&d), ("unknown", Some("served-from-cache")));
    // and the variable set to 0 wins over the flag
    let (d, _) = scan(tmp.path(), &[("MCP_DISCOVERY_CACHE", "0")]);
    assert_eq!(verdict(&d), ("healthy", None));
    // the telemetry switches turn Claude Code's cached flags off: not read (observed
    // on 2.1.287 and 2.1.336), unless the disk-cache variable makes them count again;
    // the entry still shows the cache was on where Claude Code ran
    let (d, w) = scan(tmp.path(), &[("DISABLE_TELEMETRY", "1")]);
    assert_eq!(verdict(&d), ("unknown", Some("served-from-cache")));
    assert!(
        w.iter().any(|m| m.contains("DISABLE_TELEMETRY")),
        "the warning says why the cached flag is not read: {w:?}"
    );
    let (d, _) = scan(
        tmp.path(),
        &[
            ("DISABLE_TELEMETRY", "1"),
            ("CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF", "1"),
        ],
    );
    assert_eq!(verdict(&d), ("unknown", Some("served-from-cache")));
    // cached false is a kill switch: off even with the variable on
    doc["cachedGrowthBookFeatures"] =
        serde_json::json!({"tengu_mcp_discovery_cache_enable": false});
    fs::write(tmp.path().join(".claude.json"), doc.to_string()).unwrap();
    let (d, _) = scan(tmp.path(), &[("MCP_DISCOVERY_CACHE", "1")]);
    assert_eq!(verdict(&d), ("healthy", None));
    // unless the flags are off, when the variable alone decides
    let (d, _) = scan(
        tmp.path(),
        &[("MCP_DISCOVERY_CACHE", "1"), ("DISABLE_TELEMETRY", "1")],
    );
    assert_eq!(verdict(&d), ("unknown", Some("served-from-cache")));
    doc["cachedGrowthBookFeatures"] = serde_json::json!({"tengu_mcp_discovery_cache_enable": true});
    // a server that opts out is never served from the cache
    doc["mcpServers"]["cached-http"]["discoveryCache"] = Value::Bool(false);
    fs::write(tmp.path().join(".claude.json"), doc.to_string()).unwrap();
    let (d, _) = scan(tmp.path(), &[("MCP_DISCOVERY_CACHE", "1")]);
    assert_eq!(verdict(&d), ("healthy", None));
    assert!(cache_of(&d).is_null());
}

/// The time of the server's last record, as scan reads it (seconds since the epoch).
fn last_record(home: &Path) -> i64 {
    let (doc, _) = scan(home, &[]);
    let t: jiff::Timestamp = doc["servers"][0]["lastSeen"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    t.as_second()
}

/// Every cache entry written at `secs` since the epoch.
fn entries_written_at(home: &Path, secs: i64) {
    for e in fs::read_dir(home.join(".claude/mcp-discovery-cache")).unwrap() {
        let f = fs::File::options()
            .write(true)
            .open(e.unwrap().path())
            .unwrap();
        f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs as u64))
            .unwrap();
    }
}

#[test]
fn a_stale_hit_whose_refresh_fails_keeps_the_cached_tools_until_max_stale() {
    for build in BUILDS {
        let tmp = tempfile::tempdir().unwrap();
        home_of(build, "stale-fail", tmp.path(), 0);
        let failed = last_record(tmp.path());
        // written 3000 s before the refresh failed: past the TTL, within max-stale
        entries_written_at(tmp.path(), failed - 3_000);
        let (doc, w) = scan(tmp.path(), &[("MCP_DISCOVERY_CACHE", "1")]);
        assert_eq!(
            verdict(&doc),
            ("degraded", Some("stale-after-refresh")),
            "{build}"
        );
        let c = cache_of(&doc);
        assert_eq!(c["state"], "cached-tools-kept", "{build}: {c:#}");
        let until: jiff::Timestamp = c["until"].as_str().unwrap().parse().unwrap();
        assert_eq!(until.as_second(), failed - 3_000 + 14_400, "{build}: {c:#}");
        assert!(
            c["nextSession"]
                .as_str()
                .unwrap()
                .contains("MCP_DISCOVERY_CACHE_STRIKES"),
            "{c:#}"
        );
        assert!(w.iter().any(|m| m.contains("written")), "{build}: {w:?}");
        // a shorter max-stale: the entry had expired when the refresh ran, so the log's
        // verdict stands
        let (doc, _) = scan(
            tmp.path(),
            &[
                ("MCP_DISCOVERY_CACHE", "1"),
                ("MCP_DISCOVERY_CACHE_MAX_STALE_S", "2000"),
            ],
        );
        assert_eq!(verdict(&doc).0, "tools-fetch-failed", "{build}");
        assert!(cache_of(&doc).is_null());
    }
}

#[test]
fn a_failed_connection_says_the_entry_is_gone_and_what_the_next_session_does() {
    for build in BUILDS {
        for session in ["down", "after-down"] {
            let tmp = tempfile::tempdir().unwrap();
            home_of(build, session, tmp.path(), 0);
            let (doc, w) = scan(tmp.path(), &[("MCP_DISCOVERY_CACHE", "1")]);
            assert_eq!(verdict(&doc).0, "connection-failed", "{build} {session}");
            let c = cache_of(&doc);
            assert_eq!(c["state"], "entry-deleted", "{build} {session}: {c:#}");
            assert!(
                doc["servers"][0]["recommendation"]
                    .as_str()
                    .unwrap()
                    .contains("in the next session it has no cached entry"),
                "{doc:#}"
            );
            assert!(w.iter().any(|m| m.contains("0 entries")), "{build}: {w:?}");
        }
    }
}

/// A home of tests/fixtures/discovery-cache-state/<build>/<session> (three HTTP servers,
/// recorded by tests/e2e/discovery_cache_state.py with MCP_DISCOVERY_CACHE_TTL_S=8), its
/// `.claude` files given the write times they had (`mtimes.json`).
fn state_home(build: &str, session: &str, into: &Path) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/discovery-cache-state")
        .join(build)
        .join(session);
    copy_tree(&dir.join("home"), into);
    let times: serde_json::Map<String, Value> =
        serde_json::from_str(&fs::read_to_string(dir.join("mtimes.json")).unwrap()).unwrap();
    for (path, t) in times {
        let f = fs::File::options()
            .write(true)
            .open(into.join(path))
            .unwrap();
        f.set_modified(
            std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(t.as_f64().unwrap()),
        )
        .unwrap();
    }
}

fn by_name<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("{name}: {doc:#}"))
}

const STATE: [(&str, &str); 2] = [
    ("MCP_DISCOVERY_CACHE", "1"),
    ("MCP_DISCOVERY_CACHE_TTL_S", "8"),
];

#[test]
fn several_servers_each_get_what_claude_code_showed() {
    for build in ["2.1.287", "2.1.332", "2.1.336"] {
        // fresh: alpha and beta pending with their cached tools, not contacted; optout
        // ("discoveryCache": false) contacted and failed
        let tmp = tempfile::tempdir().unwrap();
        state_home(build, "fresh", tmp.path());
        let (doc, _) = scan(tmp.path(), &STATE);
        for name in ["alpha", "beta"] {
            let s = by_name(&doc, name);
            assert_eq!(
                (&s["verdict"], &s["cause"]),
                (&Value::from("unknown"), &Value::from("served-from-cache")),
                "{build} {name}: {s:#}"
            );
            assert!(
                s["discoveryCache"]["nextSession"]
                    .as_str()
                    .unwrap()
                    .contains("one of 2 entries"),
                "{s:#}"
            );
        }
        let o = by_name(&doc, "optout");
        assert_eq!(o["verdict"], "connection-failed", "{build}: {o:#}");
        assert!(o["discoveryCache"].is_null(), "{o:#}");
        // the TTL ran out on its own: alpha refreshed (healthy), beta's connection failed
        // and its entry went
        let tmp = tempfile::tempdir().unwrap();
        state_home(build, "expired", tmp.path());
        let (doc, _) = scan(tmp.path(), &STATE);
        // (2.1.336 ran the refresh to its end, connected; 2.1.287 rewrote the entry and
        // logged a healthy session; 2.1.332's refresh was cut short by -p's exit,
        // `Failed to fetch tools: Connection closed`, while it showed the cached tools)
        let a = by_name(&doc, "alpha");
        if build == "2.1.332" {
            assert_eq!(
                (&a["verdict"], &a["cause"]),
                (
                    &Value::from("degraded"),
                    &Value::from("stale-after-refresh")
                ),
                "{build}: {a:#}"
            );
            assert_eq!(a["discoveryCache"]["state"], "cached-tools-kept", "{a:#}");
        } else {
            assert!(a["discoveryCache"].is_null(), "{build}: {a:#}");
            assert_eq!(a["verdict"], "healthy", "{build}: {a:#}");
        }
        let b = by_name(&doc, "beta");
        assert_eq!(b["verdict"], "connection-failed", "{build}: {b:#}");
        assert_eq!(
            b["discoveryCache"]["state"], "entry-deleted",
            "{build}: {b:#}"
        );
        // report and export give the same verdicts
        let mut cmd = mcplogs(tmp.path());
        for (k, v) in STATE {
            cmd.env(k, v);
        }
        let (_, rep) = run_json(cmd.args(["report", "--json", "--no-cache"]));
        let rb = rep["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "beta")
            .unwrap_or_else(|| panic!("{rep:#}"));
        assert_eq!(rb["discoveryCache"]["state"], "entry-deleted", "{rb:#}");
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
    fs::write(
        cache.join("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.json"),
        "PLAINTEXT-NEVER-SHOWN",
    )
    .unwrap();
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
    // shown as Claude Code's state, outside the logs' total
    assert!(
        r.stdout
            .contains("Claude Code's MCP discovery cache: 862 B in 1 entry")
            && r.stdout.contains("prune leaves it alone"),
        "{}",
        r.stdout
    );
    let (_, du) = run_json(
        mcplogs(tmp.path())
            .args(["du", "--json", "--home"])
            .arg(&home),
    );
    assert_eq!(du["discoveryCache"]["files"], 1, "{du:#}");
    assert_eq!(du["discoveryCache"]["bytes"], 862, "{du:#}");
    let logs: u64 = du["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(du["bytes"].as_u64().unwrap(), logs, "{du:#}");
    let (r, doc) = run_json(
        mcplogs(tmp.path())
            .args(["prune", "--json", "--yes", "--home"])
            .arg(&home),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(doc["deleted"].as_u64().unwrap() > 0, "{doc:#}");
    assert_eq!(entries(), 1, "prune deleted a discovery cache entry");
}

#[test]
fn report_says_which_cache_switches_and_flags_were_in_effect_redacted() {
    let tmp = tempfile::tempdir().unwrap();
    home_of("2.1.332", "down", tmp.path(), 0);
    let path = tmp.path().join(".claude.json");
    let mut doc: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    doc["cachedGrowthBookFeatures"] = serde_json::json!({
        "tengu_mcp_discovery_cache_enable": true,
        "tengu_brindle_causeway": false,
        "tengu_mcp_negotiation_server_denylist": ["private-host.example.com"],
        "tengu_not_about_mcp": true,
    });
    fs::write(&path, doc.to_string()).unwrap();
    let mut cmd = mcplogs(tmp.path());
    cmd.env("MCP_SDK_GENERATION", "v1");
    let (r, rep) = run_json(cmd.args(["report", "--json", "--no-cache"]));
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let st = &rep["claudeCodeState"];
    assert_eq!(st["discoveryCacheOn"], true, "{st:#}");
    assert!(
        st["discoveryCache"]
            .as_str()
            .unwrap()
            .contains("tengu_mcp_discovery_cache_enable"),
        "{st:#}"
    );
    assert_eq!(
        st["switches"],
        serde_json::json!([{"name": "MCP_SDK_GENERATION", "value": "v1", "setIn": "environment"}])
    );
    let flags: Vec<(&str, &str)> = st["flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap(), f["value"].as_str().unwrap()))
        .collect();
    assert_eq!(
        flags,
        [
            ("tengu_mcp_discovery_cache_enable", "true"),
            ("tengu_brindle_causeway", "false"),
            ("tengu_mcp_negotiation_server_denylist", "a list of 1 entry"),
        ]
    );
    // the telemetry switch turns the flags off: the cache is off and each flag says it
    // is not read
    let mut cmd = mcplogs(tmp.path());
    cmd.env("DISABLE_TELEMETRY", "1");
    let (_, off) = run_json(cmd.args(["report", "--json", "--no-cache"]));
    let st = &off["claudeCodeState"];
    assert_eq!(st["discoveryCacheOn"], false, "{st:#}");
    assert!(
        st["flags"].as_array().unwrap().iter().all(|f| f["changes"]
            .as_str()
            .is_some_and(|c| c.starts_with("not read now: DISABLE_TELEMETRY"))),
        "{st:#}"
    );
    // the Markdown says the same, and never a flag's host
    let mut cmd = mcplogs(tmp.path());
    cmd.env("MCP_SDK_GENERATION", "v1");
    let r = run(cmd.args(["report", "--no-cache", "--force"]));
    assert!(
        r.stdout
            .contains("#### Claude Code's state on this machine")
            && r.stdout.contains("`tengu_brindle_causeway` = `false`")
            && r.stdout.contains("`MCP_SDK_GENERATION` = `v1`"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("private-host"), "{}", r.stdout);
    assert!(
        !serde_json::to_string(&rep)
            .unwrap()
            .contains("private-host")
    );
}

#[test]
fn the_status_line_says_what_scan_says_of_a_stale_hit() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    home_of("2.1.332", "stale-fail", &home, 3_000);
    // the flag cached in .claude.json turns the cache on (a `--home` has no environment)
    let path = home.join(".claude.json");
    let mut doc: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    doc["cachedGrowthBookFeatures"] = serde_json::json!({"tengu_mcp_discovery_cache_enable": true});
    let order = fs::read_to_string(
        fixture("2.1.332", "stale-fail")
            .parent()
            .unwrap()
            .join("sessions.txt"),
    )
    .unwrap();
    let session = order.lines().last().unwrap().to_string();
    let cwd = "/tmp/mcplogs-dcache-igppf9w5/2.1.332/home/work/proj";
    let input = format!(
        r#"{{"session_id":"{session}","transcript_path":"/x.jsonl","cwd":"{cwd}","model":{{"id":"m","display_name":"M"}},"workspace":{{"current_dir":"{cwd}","project_dir":"{cwd}","added_dirs":[]}},"version":"2.1.332","terminal_width":200}}"#
    );
    let line = |doc: &Value| {
        fs::write(&path, doc.to_string()).unwrap();
        let mut c = mcplogs(tmp.path());
        c.arg("statusline").arg("--home").arg(&home);
        crate::common::run_with_stdin(&mut c, input.as_bytes()).stdout
    };
    let on = line(&doc);
    // scan's answer for the same home: the refresh's failure is at the log's own time,
    // when no entry was stale (the entry is aged from now), so no cached tools were kept
    // (the status line once took the transcript's time and said "tools partly lost")
    let mut c = mcplogs(tmp.path());
    let (_, scanned) = crate::common::run_json(
        c.args(["scan", "--json", "--no-cache", "--home"])
            .arg(&home),
    );
    assert_eq!(
        scanned["servers"][0]["verdict"], "tools-fetch-failed",
        "{scanned:#}"
    );
    doc["cachedGrowthBookFeatures"] = serde_json::json!({});
    let off = line(&doc);
    assert!(off.contains("cached-http (tools fetch failed"), "{off}");
    // as scan says, cache on or off
    assert!(on.contains("cached-http (tools fetch failed"), "{on}");
}

#[test]
fn a_server_whose_last_connection_failed_is_never_called_served_from_cache() {
    let tmp = tempfile::tempdir().unwrap();
    home_of("2.1.332", "down", tmp.path(), 0);
    // a later session the server wrote nothing in, and an entry fresh then (another
    // server's: the failed connection deleted this one's)
    let projects = tmp.path().join(".claude/projects");
    let project = fs::read_dir(&projects)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    fs::write(project.join("0a0a0a0a-later-session.jsonl"), b"").unwrap();
    let cache = tmp.path().join(".claude/mcp-discovery-cache");
    fs::create_dir_all(&cache).unwrap();
    fs::write(
        cache.join("0123456789abcdef0123456789abcdef.json"),
        b"sealed",
    )
    .unwrap();
    crate::common::set_age(&cache.join("0123456789abcdef0123456789abcdef.json"), 3);
    let (doc, _) = scan(tmp.path(), &[("MCP_DISCOVERY_CACHE", "1")]);
    assert_eq!(verdict(&doc).0, "connection-failed", "{doc:#}");
    assert_eq!(cache_of(&doc)["state"], "entry-deleted", "{doc:#}");
}

/// adv-22 r3/r6: a failed connection deletes its own entry only; one written before the
/// failing session that outlived it is the other handshake's or client's
/// (`MCP_PROTOCOL_NEGOTIATION`, `MCP_SDK_GENERATION`), and serves the project's next
/// session when the cache can hold this server only.
#[test]
fn an_entry_the_failure_did_not_delete_serves_the_next_session() {
    let tmp = tempfile::tempdir().unwrap();
    home_of("2.1.332", "down", tmp.path(), 0);
    let failed = last_record(tmp.path());
    // the failing session's process started at its log file's name
    let logs = fs::read_dir(tmp.path().join(".cache/claude-cli-nodejs"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let folder = fs::read_dir(&logs).unwrap().next().unwrap().unwrap().path();
    let newest = fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .max()
        .unwrap();
    let stem = newest.trim_end_matches(".jsonl");
    let (day, time) = stem.split_once('T').unwrap();
    let started: jiff::Timestamp =
        format!("{day}T{}", time.replacen('-', ":", 2).replacen('-', ".", 1))
            .parse()
            .unwrap();
    let started = started.as_second();
    // every transcript up to the failure, then one more session that logged nothing
    let project = fs::read_dir(tmp.path().join(".claude/projects"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let at = |p: &Path, secs: i64| {
        fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs as u64))
            .unwrap();
    };
    for t in fs::read_dir(&project).unwrap() {
        at(&t.unwrap().path(), failed);
    }
    let later = project.join("0a0a0a0a-later-session.jsonl");
    fs::write(&later, b"").unwrap();
    at(&later, failed + 60);
    let cache = tmp.path().join(".claude/mcp-discovery-cache");
    fs::create_dir_all(&cache).unwrap();
    let entry = cache.join("0123456789abcdef0123456789abcdef.json");
    fs::write(&entry, b"sealed").unwrap();
    at(&entry, started - 30);
    let (doc, _) = scan(tmp.path(), &[("MCP_DISCOVERY_CACHE", "1")]);
    assert_eq!(
        verdict(&doc),
        ("unknown", Some("served-from-cache")),
        "{doc:#}"
    );
    assert_eq!(cache_of(&doc)["state"], "served-from-cache", "{doc:#}");
    // written during the failure's session or after it, by nothing logged: the failure
    // deleted its entry, so this one is another server's
    at(&entry, failed + 10);
    let (doc, _) = scan(tmp.path(), &[("MCP_DISCOVERY_CACHE", "1")]);
    assert_eq!(verdict(&doc).0, "connection-failed", "{doc:#}");
}
