//! Tests hold on any day. Everything time-relative reads one clock (`MCPLOGS_NOW`, see
//! `mcplogs::time`), the suite sets file ages and spawns mcplogs through it
//! (`common::now`, `common::clock_env`), and fixture dates are compared only with a "now"
//! pinned beside them. Here the time-relative tests run again with the clock pinned years
//! ahead: one that secretly compared a fixture, or a fresh file, with today fails there.

use std::process::Command;

use crate::common::*;

/// Every test that sets a file's age, reads `--since`/`--older-than`, or prints an age.
const TIME_RELATIVE: &[&str] = &[
    "prune::",
    "scale::since_keeps_only_recent_sessions",
    "basics::empty_results_say_why",
    "human_output::prune_outputs",
    "redaction_corpus::",
    "terminal_safety::",
    "clock::pinned_clock_decides_ages_and_since",
    "one_answer::since_says_not_seen_since_never_no_log",
];

/// How many tests those filters select today; a rename that drops one fails here.
const AT_LEAST: usize = 25;

#[test]
fn time_relative_tests_pass_years_ahead() {
    if std::env::var_os(mcplogs::time::NOW_VAR).is_some() {
        // This is the re-run itself (or a runner that pinned the clock): nothing to nest.
        return;
    }
    let real = mcplogs::time::now();
    for years in [3, 40] {
        let ahead = real + years * 366 * 86_400;
        let out = Command::new(std::env::current_exe().unwrap())
            .env(mcplogs::time::NOW_VAR, ahead.to_string())
            .args(TIME_RELATIVE)
            .args(["--test-threads", "2"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{years} years ahead, time-relative tests failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let passed: usize = stdout
            .lines()
            .filter_map(|l| l.strip_prefix("test result: ok. "))
            .filter_map(|l| l.split(' ').next()?.parse::<usize>().ok())
            .sum();
        assert!(
            passed >= AT_LEAST,
            "{years} years ahead only {passed} tests ran (expected {AT_LEAST} or more):\n{stdout}"
        );
    }
}

/// The binary's clock is the pinned one: `--since`, the "last written" age and a bad
/// value of the variable.
#[test]
fn pinned_clock_decides_ages_and_since() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    copy_tree(&samples().join("linux-home"), &home);
    // The samples' records are of 2026-11-29 12:43-12:45 UTC.
    let at = |when: &str, since: &str| {
        let mut c = mcplogs(tmp.path());
        c.env(mcplogs::time::NOW_VAR, when)
            .env("TZ", "UTC")
            .args(["scan", "--json", "--home"])
            .arg(&home)
            .args(["--since", since]);
        run(&mut c)
    };
    let r = at("2026-11-29T13:00:00Z", "1h");
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(!doc["servers"].as_array().unwrap().is_empty());
    // A day later, the same `--since 1h` finds nothing.
    let r = at("2026-11-30T13:00:00Z", "1h");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(doc["servers"].as_array().unwrap().is_empty(), "{doc:#}");
    assert!(
        r.stderr.contains("since 2026-11-30 12:00 UTC"),
        "{}",
        r.stderr
    );
    // Seconds since the epoch work too (2026-11-29T13:00:00Z).
    let r = at("1795957200", "1h");
    assert_eq!(r.code, 1, "{}", r.stderr);
    // Something that is not a time is refused, naming the variable.
    let r = at("tomorrow", "1h");
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("MCPLOGS_NOW=\"tomorrow\""),
        "{}",
        r.stderr
    );
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
}
