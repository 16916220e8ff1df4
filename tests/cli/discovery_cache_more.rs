//! The discovery cache's strikes, SSE servers, era keying, the cached rollout flag and
//! `claude mcp list` (issue 54), on homes kept across real sessions of 2.1.287, 2.1.332
//! and 2.1.336 (tests/fixtures/discovery-cache-more/, recorded by
//! tests/e2e/discovery_cache_more.py). `expected.json` there says, per session, what
//! Claude Code showed and what `scan` must say; scripts/observe-build --discovery-cache
//! holds a build's fresh runs to the same file.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{copy_tree, mcplogs, run_json};
use serde_json::Value;

const BUILDS: [&str; 3] = ["2.1.287", "2.1.332", "2.1.336"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/discovery-cache-more")
}

fn expected() -> serde_json::Map<String, Value> {
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(root().join("expected.json")).unwrap()).unwrap();
    doc["sessions"].as_object().unwrap().clone()
}

/// The kept home copied into `into`, its `.claude` files given the write times they had
/// (git keeps none); returns the session's record (`session.json`).
pub(crate) fn home_of(build: &str, session: &str, into: &Path) -> Value {
    let dir = root().join(build).join(session);
    copy_tree(&dir.join("home"), into);
    let times: serde_json::Map<String, Value> =
        serde_json::from_str(&fs::read_to_string(dir.join("mtimes.json")).unwrap()).unwrap();
    for (path, t) in times {
        fs::File::options()
            .write(true)
            .open(into.join(path))
            .unwrap()
            .set_modified(
                std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(t.as_f64().unwrap()),
            )
            .unwrap();
    }
    serde_json::from_str(&fs::read_to_string(dir.join("session.json")).unwrap()).unwrap()
}

/// `scan --json` of the home with the session's environment (the variables Claude Code
/// ran with: every offline run's `DISABLE_TELEMETRY` and
/// `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC`, which keep the cached flags from being
/// read, then the session's own, a null taking one away).
fn scan(home: &Path, row: &Value) -> Value {
    let mut cmd = mcplogs(home);
    cmd.env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    for (k, v) in row["env"].as_object().unwrap() {
        match v.as_str() {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let (r, doc) = run_json(cmd.args(["scan", "--json", "--no-cache"]));
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    doc
}

fn only_server(doc: &Value) -> &Value {
    let servers = doc["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 1, "{doc:#}");
    &servers[0]
}

#[test]
fn every_kept_session_gets_the_verdict_expected_json_gives() {
    for build in BUILDS {
        for (session, want) in expected() {
            let tmp = tempfile::tempdir().unwrap();
            let row = home_of(build, &session, tmp.path());
            let s = only_server(&scan(tmp.path(), &row)).clone();
            let state = s["discoveryCache"]["state"].clone();
            assert_eq!(
                (&s["verdict"], &s["cause"], &state),
                (&want["verdict"], &want["cause"], &want["state"]),
                "{build} {session}: {}\n{s:#}",
                want["shown"]
            );
        }
    }
}

/// The fixtures are what expected.json says Claude Code did (its init line or `mcp
/// list`'s word, the entries left, an entry rewritten during the session), so the file
/// observe-build checks fresh runs against describes the kept runs.
#[test]
fn the_kept_sessions_show_what_expected_json_says_claude_code_did() {
    for build in BUILDS {
        for (session, want) in expected() {
            let row: Value = serde_json::from_str(
                &fs::read_to_string(root().join(build).join(&session).join("session.json"))
                    .unwrap(),
            )
            .unwrap();
            if let Some(inits) = want["init"].as_array() {
                let got = Value::from(vec![row["status"].clone(), row["toolCount"].clone()]);
                assert!(inits.contains(&got), "{build} {session}: {row:#}");
            }
            if let Some(word) = want["mcpList"].as_str() {
                assert!(
                    row["mcpList"][0].as_str().unwrap().contains(word),
                    "{build} {session}: {row:#}"
                );
            }
            if let Some(words) = want["screen"].as_array() {
                // the server's row of `/mcp`, when it was on the screen (typed too early,
                // /mcp sometimes shows only the command line)
                let rows: Vec<&str> = row["screenLater"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|l| l.contains(" shown "))
                    .collect();
                for l in rows {
                    assert!(
                        words.iter().all(|w| l.contains(w.as_str().unwrap())),
                        "{build} {session}: {l}"
                    );
                }
            }
            let cache = row["cache"].as_array().cloned().unwrap_or_default();
            assert_eq!(
                cache.len() as u64,
                want["entries"].as_u64().unwrap(),
                "{build} {session}: {row:#}"
            );
            if let Some(rewritten) = want["rewritten"].as_bool() {
                let started = row["started"].as_f64().unwrap();
                let moved = cache.iter().any(|c| c["mtime"].as_f64().unwrap() > started);
                assert_eq!(moved, rewritten, "{build} {session}: {row:#}");
            }
        }
    }
}

/// With MCP_DISCOVERY_CACHE_STRIKES above 1 a failed refresh keeps the entry: scan says
/// the strike was counted and that the next session within the TTL is served from the
/// cache, never that the entry was deleted; at the default of 1 the same failure is a
/// deletion.
#[test]
fn a_strike_keeps_the_entry_and_the_recommendation_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let row = home_of("2.1.336", "down-strike-3-down", tmp.path());
    let doc = scan(tmp.path(), &row);
    let s = only_server(&doc);
    let next = s["discoveryCache"]["nextSession"].as_str().unwrap();
    assert!(
        next.contains("3 failed refreshes in a row") && next.contains("without contacting"),
        "{s:#}"
    );
    let rec = s["recommendation"].as_str().unwrap_or_default();
    assert!(
        rec.contains("counted a strike") && !rec.contains("deletes"),
        "{s:#}"
    );
    // the same home read with one strike set: the entry would be gone
    let mut at_one = row.clone();
    at_one["env"]["MCP_DISCOVERY_CACHE_STRIKES"] = Value::from("1");
    let doc = scan(tmp.path(), &at_one);
    assert_eq!(
        only_server(&doc)["discoveryCache"]["state"],
        "entry-deleted",
        "{doc:#}"
    );
    // not set where mcplogs runs: the entry the failing session rewrote says a strike
    // was counted (discovery_cache_surfaces holds the wording)
    let mut unset = row.clone();
    unset["env"]
        .as_object_mut()
        .unwrap()
        .remove("MCP_DISCOVERY_CACHE_STRIKES");
    let doc = scan(tmp.path(), &unset);
    assert_eq!(
        only_server(&doc)["discoveryCache"]["state"],
        "strike-counted",
        "{doc:#}"
    );
}

/// A `claude mcp list` check (no session transcript) neither reads nor changes the cache:
/// its failure is not an entry deleted, and a session after it that logged nothing was
/// served from the entry the check left alone.
#[test]
fn a_mcp_list_check_is_not_a_session_of_the_cache() {
    for build in BUILDS {
        let tmp = tempfile::tempdir().unwrap();
        let row = home_of(build, "mcp-list-list-down", tmp.path());
        let doc = scan(tmp.path(), &row);
        let s = only_server(&doc);
        assert_eq!(s["verdict"], "connection-failed", "{build}: {s:#}");
        assert!(s["discoveryCache"].is_null(), "{build}: {s:#}");
        let tmp = tempfile::tempdir().unwrap();
        let row = home_of(build, "mcp-list-p-down", tmp.path());
        let doc = scan(tmp.path(), &row);
        assert_eq!(
            only_server(&doc)["cause"],
            "served-from-cache",
            "{build}: {doc:#}"
        );
    }
}
