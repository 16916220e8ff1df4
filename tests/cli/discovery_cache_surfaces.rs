//! The status line and the hook give a server the discovery cache's resolution `scan`
//! gives it (issue 54, adversarial findings F9 and F10 of session 8): one answer per
//! server, on the homes kept across real sessions (tests/fixtures/discovery-cache-more/).

use std::fs;
use std::path::Path;

use crate::common::{mcplogs, run_json, run_with_stdin};
use crate::discovery_cache_more::home_of;
use serde_json::Value;

/// The session id and project folder of the newest logged record of the home, as
/// Claude Code sends them to a status line command.
fn last_session(home: &Path) -> (String, String) {
    let mut newest: Option<(String, Value)> = None;
    for project in fs::read_dir(home.join(".cache/claude-cli-nodejs")).unwrap() {
        for server in fs::read_dir(project.unwrap().path()).unwrap() {
            for file in fs::read_dir(server.unwrap().path()).unwrap() {
                let file = file.unwrap().path();
                let name = file.file_name().unwrap().to_string_lossy().into_owned();
                let text = fs::read_to_string(&file).unwrap();
                let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
                if newest.as_ref().is_none_or(|(n, _)| name > *n) {
                    newest = Some((name, last));
                }
            }
        }
    }
    let (_, last) = newest.unwrap();
    (
        last["sessionId"].as_str().unwrap().to_string(),
        last["cwd"].as_str().unwrap().to_string(),
    )
}

fn with_env<'a>(cmd: &'a mut std::process::Command, row: &Value) -> &'a mut std::process::Command {
    for (k, v) in row["env"].as_object().unwrap() {
        if let Some(v) = v.as_str() {
            cmd.env(k, v);
        }
    }
    cmd
}

fn input(session: &str, cwd: &str) -> String {
    serde_json::json!({"session_id": session, "cwd": cwd, "hook_event_name": "UserPromptSubmit"})
        .to_string()
}

#[test]
fn a_struck_refresh_is_the_same_failure_in_scan_the_status_line_and_the_hook() {
    for build in ["2.1.287", "2.1.332", "2.1.336"] {
        for case in ["strike-3-stale-fail-1", "tty-strike-3-tty-stale-fail"] {
            let home = tempfile::tempdir().unwrap();
            let row = home_of(build, case, home.path());
            let (r, doc) = run_json(with_env(&mut mcplogs(home.path()), &row).args([
                "scan",
                "--json",
                "--no-cache",
            ]));
            assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
            let s = &doc["servers"][0];
            assert_eq!(s["verdict"], "tools-fetch-failed", "{build} {case}: {s:#}");
            assert_eq!(
                s["discoveryCache"]["state"], "strike-counted",
                "{build} {case}"
            );
            let (session, cwd) = last_session(home.path());
            let stdin = input(&session, &cwd);
            let mut c = mcplogs(home.path());
            let line = run_with_stdin(
                with_env(&mut c, &row)
                    .env("NO_COLOR", "1")
                    .arg("statusline"),
                stdin.as_bytes(),
            );
            assert!(
                line.stdout.contains("tools fetch failed"),
                "{build} {case}: {}",
                line.stdout
            );
            assert!(
                !line.stdout.contains("partly lost"),
                "{build} {case}: {}",
                line.stdout
            );
            let mut c = mcplogs(home.path());
            let hook = run_with_stdin(with_env(&mut c, &row).arg("hook"), stdin.as_bytes());
            assert!(
                hook.stdout
                    .contains("tools-fetch-failed: invalid-tool-definition"),
                "{build} {case}: {}",
                hook.stdout
            );
            assert!(
                !hook.stdout.contains("stale-after-refresh"),
                "{build} {case}: {}",
                hook.stdout
            );
        }
    }
}

/// The newest transcript's session (by write time, which `home_of` restores): the
/// session Claude Code ran last in the project, logged or not.
fn newest_transcript(home: &Path) -> String {
    let mut newest: Option<(std::time::SystemTime, String)> = None;
    for project in fs::read_dir(home.join(".claude/projects")).unwrap() {
        for t in fs::read_dir(project.unwrap().path()).unwrap() {
            let t = t.unwrap();
            let when = t.metadata().unwrap().modified().unwrap();
            let name = t.file_name().to_string_lossy().into_owned();
            if newest.as_ref().is_none_or(|(w, _)| when > *w) {
                newest = Some((when, name.trim_end_matches(".jsonl").to_string()));
            }
        }
    }
    newest.unwrap().1
}

#[test]
fn a_session_served_from_the_cache_is_on_the_status_line_as_scan_says() {
    for build in ["2.1.287", "2.1.332", "2.1.336"] {
        for case in [
            "down-strike-3-fresh-down",
            "sse-fresh-down",
            "tty-tty-fresh-down",
        ] {
            let home = tempfile::tempdir().unwrap();
            let row = home_of(build, case, home.path());
            let (r, doc) = run_json(with_env(&mut mcplogs(home.path()), &row).args([
                "scan",
                "--json",
                "--no-cache",
            ]));
            assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
            let s = &doc["servers"][0];
            assert_eq!(s["cause"], "served-from-cache", "{build} {case}: {s:#}");
            let (_, cwd) = last_session(home.path());
            let stdin = input(&newest_transcript(home.path()), &cwd);
            let mut c = mcplogs(home.path());
            let line = run_with_stdin(
                with_env(&mut c, &row)
                    .env("NO_COLOR", "1")
                    .arg("statusline"),
                stdin.as_bytes(),
            );
            let name = s["name"].as_str().unwrap();
            assert!(
                line.stdout
                    .contains(&format!("MCP 1? {name} (served from cache")),
                "{build} {case}: {:?}",
                line.stdout
            );
        }
    }
}

/// `scan --json` of a home with only `vars` set (not the session's own environment).
fn scan_with(home: &Path, vars: &[(&str, &str)]) -> Value {
    let mut c = mcplogs(home);
    c.envs(vars.iter().copied());
    let (r, doc) = run_json(c.args(["scan", "--json", "--no-cache"]));
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    doc
}

#[test]
fn an_entry_rewritten_by_the_failing_session_is_not_said_deleted_when_strikes_are_unset() {
    for build in ["2.1.287", "2.1.332", "2.1.336"] {
        // Claude Code ran with MCP_DISCOVERY_CACHE_STRIKES=3; mcplogs runs without it
        let home = tempfile::tempdir().unwrap();
        home_of(build, "down-strike-3-down", home.path());
        let doc = scan_with(home.path(), &[("MCP_DISCOVERY_CACHE", "1")]);
        let s = &doc["servers"][0];
        assert_eq!(
            s["discoveryCache"]["state"], "strike-counted",
            "{build}: {s:#}"
        );
        assert!(
            s["discoveryCache"]["nextSession"]
                .as_str()
                .unwrap()
                .contains("above 1 where Claude Code ran"),
            "{build}: {s:#}"
        );
        // the next session was served from the entry the failure kept
        let home = tempfile::tempdir().unwrap();
        home_of(build, "down-strike-3-fresh-down", home.path());
        let doc = scan_with(home.path(), &[("MCP_DISCOVERY_CACHE", "1")]);
        let s = &doc["servers"][0];
        assert_eq!(
            s["discoveryCache"]["state"], "served-from-cache",
            "{build}: {s:#}"
        );
        assert_eq!(
            s["discoveryCache"]["session"],
            newest_transcript(home.path()).as_str()
        );
        // told it is 1, mcplogs says deleted, with the failing session's own time
        let doc = scan_with(
            home.path(),
            &[
                ("MCP_DISCOVERY_CACHE", "1"),
                ("MCP_DISCOVERY_CACHE_STRIKES", "1"),
            ],
        );
        let c = &doc["servers"][0]["discoveryCache"];
        assert_eq!(c["state"], "entry-deleted", "{build}: {c:#}");
        let failing = c["session"].as_str().unwrap();
        assert_ne!(failing, newest_transcript(home.path()));
        let t = fs::metadata(
            fs::read_dir(home.path().join(".claude/projects"))
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path()
                .join(format!("{failing}.jsonl")),
        )
        .unwrap()
        .modified()
        .unwrap();
        let secs = t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
        assert_eq!(
            c["sessionAt"].as_str().unwrap(),
            mcplogs::time::format_iso(secs),
            "{build}: {c:#}"
        );
    }
}

#[test]
fn the_cache_numbers_are_read_as_claude_codes_code_reads_them() {
    let home = tempfile::tempdir().unwrap();
    home_of("2.1.336", "down-strike-3-fresh-down", home.path());
    // 2.1.336: an exponent form counts, a huge value is clamped, never the default
    let doc = scan_with(
        home.path(),
        &[
            ("MCP_DISCOVERY_CACHE", "1"),
            ("MCP_DISCOVERY_CACHE_TTL_S", "1e9"),
            ("MCP_DISCOVERY_CACHE_MAX_STALE_S", "99999999999999999999"),
            ("MCP_DISCOVERY_CACHE_STRIKES", "3"),
        ],
    );
    assert!(
        doc.to_string().contains("TTL 604800 s, max-stale 604800 s"),
        "{doc:#}"
    );
    // strikes: `3.5` is 3 and a huge value is huge (the entry kept), as parseInt reads
    // them; `0x3` is 0, not a number of at least 1: the default of one
    for (strikes, state) in [
        ("3.5", "served-from-cache"),
        ("99999999999999999999", "served-from-cache"),
        ("0x3", "entry-deleted"),
    ] {
        let doc = scan_with(
            home.path(),
            &[
                ("MCP_DISCOVERY_CACHE", "1"),
                ("MCP_DISCOVERY_CACHE_STRIKES", strikes),
            ],
        );
        assert_eq!(
            doc["servers"][0]["discoveryCache"]["state"], state,
            "{strikes}: {doc:#}"
        );
    }
}

#[test]
fn past_the_listing_bound_the_real_count_is_said() {
    let home = tempfile::tempdir().unwrap();
    home_of("2.1.336", "down-strike-3-fresh-down", home.path());
    let cache = home.path().join(".claude/mcp-discovery-cache");
    for i in 0..300 {
        let f = cache.join(format!("{i:032x}.json"));
        fs::write(&f, b"{}").unwrap();
        crate::common::set_age(&f, 20 * 86_400);
    }
    // not an entry's name: not counted as one
    fs::write(cache.join("x\u{1b}[2Jy.json"), b"{}").unwrap();
    let mut c = mcplogs(home.path());
    let r = crate::common::run(
        c.env("MCP_DISCOVERY_CACHE", "1")
            .args(["scan", "--no-cache"]),
    );
    assert!(r.stderr.contains(": 301 entries ("), "{}", r.stderr);
    assert!(
        r.stderr.contains("only the newest 256 were considered")
            && r.stderr.contains("1 other item left unread"),
        "{}",
        r.stderr
    );
    let r = crate::common::run(mcplogs(home.path()).arg("du"));
    assert!(r.stdout.contains("in 301 entries"), "{}", r.stdout);
}

#[test]
fn a_fresh_until_time_already_past_is_not_said_as_the_future() {
    let home = tempfile::tempdir().unwrap();
    home_of("2.1.336", "down-strike-3-fresh-down", home.path());
    // the suite's clock is hours after the recorded session: the TTL has passed
    let doc = scan_with(
        home.path(),
        &[
            ("MCP_DISCOVERY_CACHE", "1"),
            ("MCP_DISCOVERY_CACHE_STRIKES", "3"),
            ("MCPLOGS_NOW", "1796517000"),
        ],
    );
    let c = &doc["servers"][0]["discoveryCache"];
    let next = c["nextSession"].as_str().unwrap();
    assert!(next.contains("(now past)"), "{c:#}");
    assert!(!next.contains("it is served from the cache again"), "{c:#}");
    // an entry written in the future of the clock is said to be
    let entry = fs::read_dir(home.path().join(".claude/mcp-discovery-cache"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    fs::File::options()
        .write(true)
        .open(&entry)
        .unwrap()
        .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_796_600_000))
        .unwrap();
    let mut c = mcplogs(home.path());
    let r = crate::common::run(
        c.envs([("MCP_DISCOVERY_CACHE", "1"), ("MCPLOGS_NOW", "1796517000")])
            .args(["scan", "--no-cache"]),
    );
    assert!(
        r.stderr.contains("in the future of this machine's clock"),
        "{}",
        r.stderr
    );
}

#[test]
fn report_keeps_a_project_path_with_a_folder_called_home_in_it() {
    let home = tempfile::tempdir().unwrap();
    home_of("2.1.336", "down-strike-3-fresh-down", home.path());
    let mut c = mcplogs(home.path());
    let r = crate::common::run(
        c.env("MCP_DISCOVERY_CACHE", "1")
            .args(["report", "--force"]),
    );
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    assert!(!r.stdout.contains("down-strike-3~"), "{}", r.stdout);
    assert!(
        r.stdout.contains("/2.1.336/down-strike-3/home/work/proj"),
        "{}",
        r.stdout
    );
}
