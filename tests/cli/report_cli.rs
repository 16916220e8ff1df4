//! `mcplogs report` as a user meets it: `--output`, `--no-redact`, `--json`, exit codes,
//! the shared discovery flags, the Claude Code version probe and the size limit.

use std::fs;
use std::path::Path;

use crate::common::*;

fn report_in(home: &Path, args: &[&str]) -> Run {
    fs::create_dir_all(home).unwrap();
    run(mcplogs(home)
        .arg("report")
        .args(args)
        .arg("--managed-dir")
        .arg(home.join("managed"))
        .current_dir(home))
}

fn samples_arg() -> String {
    samples().to_str().unwrap().to_string()
}

#[test]
fn markdown_on_stdout_by_default_and_exit_1_for_problems() {
    let tmp = tempfile::tempdir().unwrap();
    let r = report_in(tmp.path(), &[&samples_arg()]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.starts_with("<!-- Written by mcplogs "));
    assert!(r.stdout.contains("### What's Wrong?"));
    assert!(!r.stderr.contains("NOT redacted"), "{}", r.stderr);
    assert!(!r.stdout.contains('\u{1b}'));
}

#[test]
fn output_writes_the_file_not_stdout() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("report.md");
    let r = report_in(
        tmp.path(),
        &[&samples_arg(), "--output", out.to_str().unwrap()],
    );
    // written is success, failing servers or not: `report -o x && open x` works
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    let text = fs::read_to_string(&out).unwrap();
    assert!(text.contains("### Error Messages/Logs"));
    assert!(
        r.stderr.contains("report written to ~/report.md"),
        "{}",
        r.stderr
    );

    // A folder that does not exist: an I/O error.
    let bad = tmp.path().join("no/such/dir/r.md");
    let r = report_in(
        tmp.path(),
        &[&samples_arg(), "--output", bad.to_str().unwrap()],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("cannot write"), "{}", r.stderr);
}

#[test]
fn no_redact_says_so_on_stderr() {
    let tmp = tempfile::tempdir().unwrap();
    let r = report_in(tmp.path(), &[&samples_arg(), "--no-redact"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("--no-redact: this report is NOT redacted"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("NOT REDACTED"));
    assert!(r.stdout.contains("| Redaction | off |"));
    // The settings project (the temporary home) appears as it is.
    assert!(r.stdout.contains(tmp.path().to_str().unwrap()));
}

#[test]
fn json_has_the_same_content_as_data() {
    let tmp = tempfile::tempdir().unwrap();
    let (r, doc) = run_json(
        mcplogs(tmp.path())
            .args(["report", "--json"])
            .arg(samples())
            .current_dir(tmp.path()),
    );
    assert_eq!(r.code, 1);
    assert_eq!(doc["schemaVersion"], 3);
    assert_eq!(doc["redacted"], true);
    assert_eq!(doc["versions"]["mcplogs"], env!("CARGO_PKG_VERSION"));
    assert_eq!(doc["versions"]["os"], std::env::consts::OS);
    assert_eq!(doc["versions"]["arch"], std::env::consts::ARCH);
    let servers = doc["servers"].as_array().unwrap();
    let problems = servers.iter().filter(|s| s["problem"] == true).count();
    assert!(problems > 0);
    assert_eq!(doc["whatsWrong"].as_array().unwrap().len(), problems);
    for s in servers {
        for k in [
            "name",
            "verdict",
            "summary",
            "recommendation",
            "source",
            "lastSeen",
        ] {
            assert!(s[k].is_string(), "{k} in {s:#}");
        }
        assert!(s["legacyFixApplies"].is_boolean());
        assert!(s["evidence"].is_array() && s["stderr"].is_array());
    }
    let layers = doc["settings"]["layers"].as_array().unwrap();
    assert!(layers.iter().any(|l| l["layer"] == "user"));
    assert!(doc["settings"]["effective"].is_object());
    assert_eq!(doc["legacyFixApplied"], false);
    assert!(doc["warnings"].is_array());
}

#[test]
fn exit_0_when_nothing_is_wrong_and_2_for_a_bad_path() {
    let tmp = tempfile::tempdir().unwrap();
    // Nothing fails: no report (exit 0) unless --force.
    let r = report_in(tmp.path(), &[&samples_arg(), "--server", "acme.docs"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(
        r.stderr
            .contains("no report written: no MCP server fails in these logs"),
        "{}",
        r.stderr
    );
    let r = report_in(
        tmp.path(),
        &[&samples_arg(), "--server", "acme.docs", "--force"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("no failing MCP server"));

    let r = report_in(tmp.path(), &["/no/such/path/anywhere"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("mcplogs: error:"), "{}", r.stderr);
    assert!(r.stdout.is_empty());

    let r = report_in(tmp.path(), &["--bogus"]);
    assert_eq!(r.code, 2);
}

#[test]
fn shares_the_scan_filters() {
    let tmp = tempfile::tempdir().unwrap();
    let r = report_in(
        tmp.path(),
        &[&samples_arg(), "--project", "home-macos", "--json"],
    );
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let servers = doc["servers"].as_array().unwrap();
    assert!(!servers.is_empty());
    assert!(
        servers
            .iter()
            .all(|s| s["project"].as_str().unwrap().contains("home-macos"))
    );
    // Nothing to report on: a refusal (exit 2) naming why, unless --force.
    let r = report_in(tmp.path(), &[&samples_arg(), "--server", "no-such-server"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("error: nothing to report: no server named \"no-such-server\""),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty());
    let r = report_in(
        tmp.path(),
        &[&samples_arg(), "--server", "no-such-server", "--force"],
    );
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("No MCP server logs found."));
}

/// Three failing servers whose error records hold 30,000-character zod errors: over
/// 65,536 characters of evidence in all.
fn oversized_logs(root: &Path) {
    for (i, name) in ["alpha", "beta", "gamma"].iter().enumerate() {
        let dir = root.join(format!("-tmp-p/mcp-logs-{name}"));
        fs::create_dir_all(&dir).unwrap();
        let issues: Vec<serde_json::Value> = (0..300)
            .map(|k| {
                serde_json::json!({
                    "expected": "number", "code": "invalid_type",
                    "path": ["tools", k, "ttlMs"],
                    "message": format!("Invalid input: expected number, received string (padding {k:04})"),
                })
            })
            .collect();
        let zod = serde_json::to_string_pretty(&issues).unwrap();
        let records = [
            serde_json::json!({"debug": "Connection established with capabilities: {\"hasTools\":true,\"protocolEra\":\"modern\",\"negotiatedProtocolVersion\":\"2026-07-28\"}",
                "timestamp": format!("2026-01-0{}T10:00:00.000Z", i + 1), "sessionId": format!("s{i}"), "cwd": "/tmp/p"}),
            serde_json::json!({"error": format!("Failed to fetch tools: Invalid result for tools/list: {zod}"),
                "timestamp": format!("2026-01-0{}T10:00:01.000Z", i + 1), "sessionId": format!("s{i}"), "cwd": "/tmp/p"}),
        ];
        let text: String = records.iter().map(|r| format!("{r}\n")).collect();
        fs::write(dir.join("2026-01-01T10-00-00-000Z.jsonl"), text).unwrap();
    }
}

#[test]
fn a_report_over_the_limit_is_trimmed_with_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    oversized_logs(&logs);
    let (_, doc) = run_json(
        mcplogs(tmp.path())
            .args(["report", "--json"])
            .arg(&logs)
            .current_dir(tmp.path()),
    );
    let evidence: usize = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["evidence"].as_array().unwrap())
        .map(|e| e["message"].as_str().unwrap().chars().count())
        .sum();
    assert!(
        evidence > 65_536,
        "the evidence alone is {evidence} characters"
    );

    let r = report_in(tmp.path(), &[logs.to_str().unwrap()]);
    assert_eq!(r.code, 1);
    let n = r.stdout.chars().count();
    assert!(n <= 65_536, "{n} characters");
    assert!(
        r.stdout.contains(
            "log records were left out to keep this report under GitHub's 65,536-character limit"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("over GitHub's 65536-character limit"),
        "{}",
        r.stderr
    );
    // The newest failure (gamma's) keeps its zod error; alpha's, the oldest, is gone.
    let gamma = r.stdout.split("## `gamma`").nth(1).unwrap();
    assert!(gamma.contains("Failed to fetch tools: Invalid result for tools/list:\n["));
    let alpha = r.stdout.split("## `alpha`").nth(1).unwrap();
    assert!(
        !alpha
            .split("\n## ")
            .next()
            .unwrap()
            .contains("Failed to fetch tools")
    );
    // Still every server's section, each with its steps.
    for name in ["alpha", "beta", "gamma"] {
        assert!(r.stdout.contains(&format!("## `{name}`")), "{name}");
    }
    assert_eq!(r.stdout.matches("### Steps to Reproduce").count(), 3);
}

#[cfg(unix)]
mod claude_version {
    use super::*;
    use std::time::{Duration, Instant};

    fn fake_claude(dir: &Path, body: &str) {
        fs::create_dir_all(dir).unwrap();
        let script = dir.join("claude");
        crate::common::write_program(&script, &format!("#!/bin/sh\n{body}\n"));
    }

    fn report_with_path(home: &Path, bin: &Path) -> Run {
        run(mcplogs(home)
            .arg("report")
            .arg(samples())
            .env("PATH", bin)
            .current_dir(home))
    }

    #[test]
    fn a_claude_that_answers_gives_its_version() {
        let tmp = tempfile::tempdir().unwrap();
        let bin = tmp.path().join("bin");
        fake_claude(&bin, "echo '2.1.332 (Claude Code)'");
        let r = report_with_path(tmp.path(), &bin);
        assert!(
            r.stdout
                .contains("### Claude Code Version\n\n`2.1.332 (Claude Code)`")
        );
        assert!(
            r.stdout
                .contains("| Claude Code | `2.1.332 (Claude Code)` |")
        );
    }

    #[test]
    fn a_claude_that_hangs_is_unknown_after_a_second() {
        let tmp = tempfile::tempdir().unwrap();
        let bin = tmp.path().join("bin");
        fake_claude(&bin, "PATH=/bin:/usr/bin\nsleep 10\necho late");
        let start = Instant::now();
        let r = report_with_path(tmp.path(), &bin);
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        assert!(
            r.stdout.contains("### Claude Code Version\n\nunknown"),
            "{}",
            r.stdout
        );
    }

    #[test]
    fn no_claude_or_a_failing_one_is_unknown() {
        let tmp = tempfile::tempdir().unwrap();
        let empty = tmp.path().join("empty");
        fs::create_dir_all(&empty).unwrap();
        let r = report_with_path(tmp.path(), &empty);
        assert!(r.stdout.contains("### Claude Code Version\n\nunknown"));
        let bin = tmp.path().join("bin");
        fake_claude(&bin, "echo oops; exit 3");
        let r = report_with_path(tmp.path(), &bin);
        assert!(r.stdout.contains("### Claude Code Version\n\nunknown"));
    }
}

// ---- a report for its readers: refusals, audiences, steps to reproduce ----

#[test]
fn no_logs_at_all_is_a_refusal() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty-home");
    fs::create_dir_all(&empty).unwrap();
    let r = report_in(tmp.path(), &["--home", empty.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(
        r.stderr
            .contains("mcplogs: error: nothing to report: no MCP server logs found"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("`--force`"), "{}", r.stderr);
    let r = report_in(tmp.path(), &["--home", empty.to_str().unwrap(), "--force"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("No MCP server logs found."));
}

/// A command that is not installed is the user's to fix: no report, the fix instead.
#[test]
fn the_users_own_set_up_gets_the_fix_not_a_report() {
    let tmp = tempfile::tempdir().unwrap();
    // the sample's project moved where nothing is (the advice differs for a project
    // folder that exists: it names the folder to run the command in)
    let gone = samples_gone();
    let home = tmp.path().join("linux-home");
    copy_samples_moved(
        &samples().join("linux-home"),
        &home,
        gone.path().to_str().unwrap(),
    );
    let args = ["--home", home.to_str().unwrap(), "--server", "missing-cmd"];
    let r = report_in(tmp.path(), &args);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(r.stderr.contains("no report written"), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("missing-cmd: Run its command by hand and read its stderr"),
        "{}",
        r.stderr
    );
    // The exact command, as configured, then what its failure means.
    assert!(
        r.stderr.contains(
            "`mcp-server-not-installed --stdio`. If the shell does not find it either, install it"
        ),
        "{}",
        r.stderr
    );
    let forced = report_in(tmp.path(), &[&args[..], &["--force"]].concat());
    assert_eq!(forced.code, 1);
    assert!(forced.stdout.contains("### What's Wrong?"));
}

/// A bad tool is the server's bug: its authors get what it sent, the field to fix and
/// how it was started (the configured command, redacted).
#[test]
fn a_servers_bug_gets_the_authors_report_with_its_command() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    copy_dir(&samples().join("linux-home"), &home);
    // a token in the arguments must not reach the report
    let cfg = home.join(".claude.json");
    let text = fs::read_to_string(&cfg).unwrap().replace(
        "f-bad-schema",
        "f-bad-schema\", \"--token\", \"ghp_R3portArgT0kenAAAAAAAAAAAAAAAAAAAAAA\", \"a|b",
    );
    fs::write(&cfg, text).unwrap();
    let r = report_in(
        tmp.path(),
        &["--home", home.to_str().unwrap(), "--server", "bad-tool"],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let md = &r.stdout;
    assert!(md.contains("for the authors of these MCP servers"), "{md}");
    assert!(
        md.contains("## `bad-tool`: Claude Code rejects its tools/list"),
        "{md}"
    );
    assert!(
        md.contains("**What to fix:** the tool definition at `tools[2].inputSchema.type`"),
        "{md}"
    );
    assert!(
        // (a pipe as it is: outside a table a backslash in a code span is shown,
        // helper-92 #6)
        md.contains("1. Configure the server: `python3 /tmp/mcplogs-samples/bin/stub_mcp_server.py --scenario f-bad-schema --token [REDACTED:github-token] 'a|b'`"),
        "{md}"
    );
    assert!(!md.contains("ghp_R3port"), "{md}");
    assert!(!md.contains("### What Should Happen?"), "{md}");
    let js = report_in(
        tmp.path(),
        &[
            "--home",
            home.to_str().unwrap(),
            "--server",
            "bad-tool",
            "--json",
        ],
    );
    let doc: serde_json::Value = serde_json::from_str(&js.stdout).unwrap();
    assert_eq!(doc["servers"][0]["audience"], "server-author");
    assert!(
        doc["servers"][0]["launch"]
            .as_str()
            .unwrap()
            .ends_with("--token [REDACTED:github-token] 'a|b'")
    );
    assert_eq!(doc["servers"][0]["sessions"], 6);
    assert_eq!(doc["servers"][0]["sessionsRead"], 3);
    assert_eq!(doc["servers"][0]["failedSessions"], 2);
}

/// Two servers mixed in one log folder is Claude Code's doing: its bug template, with
/// the counts saying what they count.
#[test]
fn a_claude_code_problem_gets_its_bug_template() {
    let tmp = tempfile::tempdir().unwrap();
    let home = samples().join("shared-folder");
    let r = report_in(tmp.path(), &["--home", home.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    for h in [
        "### What's Wrong?",
        "### Steps to Reproduce",
        "### Additional Information",
    ] {
        assert!(r.stdout.contains(h), "{h}: {}", r.stdout);
    }
    assert!(
        r.stdout
            .contains("| Sessions seen | Read | Failed (of read) |"),
        "{}",
        r.stdout
    );
    // helper-86 #9: each name of the shared folder is configured; the steps said none was
    let step = r
        .stdout
        .lines()
        .find(|l| l.starts_with("- `api-v2 + api_v2`: "))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(!step.contains("not found"), "{step}");
    assert!(step.contains("several configured servers"), "{step}");
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// Issue 51 item 9: `report` and `export` name their output file alike; `report` takes
/// `-o`, `--output` and `--file`.
#[test]
fn report_takes_every_spelling_of_its_output_file() {
    for flag in ["-o", "--output", "--file"] {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("report.md");
        let r = report_in(tmp.path(), &[&samples_arg(), flag, out.to_str().unwrap()]);
        assert_eq!(r.code, 0, "{flag}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{flag}: {}", r.stdout);
        let text = fs::read_to_string(&out).unwrap_or_else(|e| panic!("{flag}: {e}"));
        assert!(text.contains("### Error Messages/Logs"), "{flag}");
    }
}
