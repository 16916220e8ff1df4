//! The probe as a server author runs it, in CI (piped) and at a terminal (issue 46), and
//! its budget against a server that never reads (issue 42, point 6): nothing cut when
//! piped, wrapping on a terminal, checks that never ran are `n/a`, a live progress line
//! on a terminal only, one budget in every sentence about time, a name for URL-only
//! servers, `--contract` with nothing to check, and `--format junit` checked against
//! the JUnit XML schema's rules (`crate::junit`).
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common::{mcplogs, output_within, pin_host, run};
use crate::junit::assert_valid_junit;
use crate::probe::{HttpStub, alive, stub};
use serde_json::Value;

fn stub_cmd(args: &str) -> String {
    format!("python3 {} {args}", stub().display())
}

/// A watchdog for every run here: far above any budget used, so a hang fails the test
/// instead of stalling the suite (no assertion is made on how long a run takes).
const WATCHDOG: Duration = Duration::from_secs(90);

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// `mcplogs probe ARGS` piped, in an empty home, under the watchdog.
fn probe(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Out {
    probe_within(home, args, env, WATCHDOG)
}

/// The whole-probe bound (issue 42, point 5): a budget of [`BOUND_BUDGET`] and a
/// watchdog of that plus [`BOUND_SLACK`]. The old behaviour (each handshake its own full
/// budget, one after the other) took at least twice the budget and fails it; the slack
/// leaves a loaded machine room for the grace of ending processes (up to 7 s was seen
/// under load), and stays under the old behaviour's 12 s.
const BOUND_BUDGET: &str = "6s";
const BOUND_WATCHDOG: Duration = Duration::from_secs(6 + BOUND_SLACK);
const BOUND_SLACK: u64 = 5;

/// [`probe`] under a watchdog of `watchdog`.
fn probe_within(home: &Path, args: &[&str], env: &[(&str, &str)], watchdog: Duration) -> Out {
    let mut c = mcplogs(home);
    c.arg("probe").args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    pin_host(&mut c);
    let o = output_within(&mut c, watchdog);
    Out {
        code: o.status.code().expect("exited normally"),
        stdout: String::from_utf8(o.stdout).unwrap(),
        stderr: String::from_utf8(o.stderr).unwrap(),
    }
}

fn check<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["servers"][0]["contract"]
        .as_array()
        .expect("a contract")
        .iter()
        .find(|c| c["check"] == name)
        .unwrap_or_else(|| panic!("no check {name}: {doc:#}"))
}

/// A stdio server answering as `script` says (python3), written into `dir`.
fn server(dir: &Path, name: &str, script: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, script).unwrap();
    p
}

/// Classic handshake with tools, then a JSON-RPC error on `tools/list` whose message is
/// long and ends with `LAST-WORD-OF-THE-REASON`, and a long stderr line that ends with
/// `LAST-WORD-OF-STDERR`.
const LONG_REASON: &str = r#"import sys, json
sys.stderr.write("FATAL: unhandled exception in tools/list " + "while loading the registry of tools " * 8 + "LAST-WORD-OF-STDERR\n")
sys.stderr.flush()
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    method = m.get("method")
    if method == "initialize":
        r = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "long", "version": "1"}}
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
    elif method == "tools/list":
        msg = "tool registry unavailable: " + "the backing store did not answer in time " * 6 + "LAST-WORD-OF-THE-REASON"
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32603, "message": msg}}), flush=True)
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "Method not found"}}), flush=True)
"#;

/// Issue 42, point 6: a stdio server that floods requests and never reads its stdin. The
/// probe's answers fill the pipe; each write now ends at its deadline, and (point 5) the
/// whole probe, every handshake together, ends within the budget plus grace (the
/// watchdog fails the test otherwise); the server's whole group is gone.
#[test]
fn a_server_that_floods_requests_and_never_reads_its_stdin_cannot_outlast_the_budget() {
    let home = tempfile::tempdir().unwrap();
    let pidfile = home.path().join("flood.pid");
    let script = server(
        home.path(),
        "flood.py",
        &format!(
            r#"import os, subprocess, sys
child = subprocess.Popen(["sleep", "300"])
open({pid:?}, "w").write(str(child.pid))
pad = "x" * 512
i = 0
while True:
    sys.stdout.write('{{"jsonrpc":"2.0","id":%d,"method":"ping","params":{{"pad":"%s"}}}}\n' % (i, pad))
    i += 1
"#,
            pid = pidfile.display().to_string()
        ),
    );
    let cmd = format!("python3 {}", script.display());
    for extra in [&[][..], &["--contract"][..]] {
        let mut args = vec![
            "--claude-version",
            "2.1.332",
            "--timeout",
            BOUND_BUDGET,
            "--json",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--command", &cmd]);
        // the whole probe, every handshake together, ends within the budget plus grace
        let r = probe_within(home.path(), &args, &[], BOUND_WATCHDOG);
        // cut short by --timeout: "cannot tell" (verdict unknown, exit 0, issue 51);
        // the contract's timeout-budget check fails it
        let want = if extra.is_empty() { 0 } else { 1 };
        assert_eq!(r.code, want, "{}{}", r.stdout, r.stderr);
        let doc: Value = serde_json::from_str(&r.stdout).unwrap();
        let s = &doc["servers"][0];
        assert_eq!(s["prediction"]["cause"], "timeout", "{s:#}");
        // the probe's own --timeout cut the wait short of Claude Code's 30 s: it says so
        let rec = s["prediction"]["recommendation"].as_str().unwrap();
        assert!(rec.contains("--timeout 6000 ms"), "{rec}");
        // the first handshake spent the budget: legacy was not run, and says why
        assert_eq!(s["withLegacy"]["verdict"], "unknown", "{s:#}");
        let why = s["withLegacy"]["reason"].as_str().unwrap();
        assert!(
            why.contains("not run: the budget of 6000 ms") && why.contains("discover"),
            "{why}"
        );
        for c in s["contract"].as_array().into_iter().flatten() {
            assert_ne!(
                c["passed"], true,
                "a check passed without its handshake: {c:#}"
            );
        }
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let gone = std::time::Instant::now() + Duration::from_secs(5);
        while alive(pid) && std::time::Instant::now() < gone {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            !alive(pid),
            "the flooding server's child {pid} outlived the probe"
        );
    }
}

/// Issue 46, reproduction 2: the server never starts; every check after the handshake is
/// `n/a` with its reason (text, JSON, JUnit), none passes, and only the failure counts.
#[test]
fn checks_whose_input_never_arrived_are_na_not_passed() {
    let home = tempfile::tempdir().unwrap();
    let base = [
        "--claude-version",
        "2.1.332",
        "--contract",
        "--command",
        "nonexist-server-for-mcplogs",
    ];
    let r = probe(home.path(), &[&base[..], &["--json"]].concat(), &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc = crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &r.stdout);
    let checks = doc["servers"][0]["contract"].as_array().unwrap();
    assert!(checks.len() >= 10, "{checks:#?}");
    for c in checks {
        if c["check"] == "tools-capable-handshake" {
            assert_eq!(c["passed"], false, "{c:#}");
            continue;
        }
        assert_eq!(
            c["passed"],
            Value::Null,
            "a check that never ran passed: {c:#}"
        );
        let detail = c["detail"].as_str().unwrap();
        assert!(detail.starts_with("not checked: "), "{c:#}");
    }
    let text = probe(home.path(), &base, &[("NO_COLOR", "1")]);
    assert_eq!(text.code, 1);
    assert!(!text.stdout.contains("    pass "), "{}", text.stdout);
    assert!(
        text.stdout
            .contains("    n/a  pagination                not checked: no handshake succeeded"),
        "{}",
        text.stdout
    );
    let xml = probe(
        home.path(),
        &[&base[..], &["--format", "junit"]].concat(),
        &[],
    );
    assert_eq!(xml.code, 1);
    assert_valid_junit(&xml.stdout);
    // 12 checks x every modelled build: the handshake fails on each, the rest are skipped
    let b = mcplogs::probe::CONTRACT_BUILDS.len();
    assert!(
        xml.stdout.contains(&format!(
            "tests=\"{}\" failures=\"{b}\" errors=\"0\" skipped=\"{}\"",
            12 * b,
            11 * b
        )),
        "{}",
        xml.stdout
    );
}

/// `probe --contract --json` as Claude Code 2.1.332 against the stub server in
/// `scenario`.
fn contract_json(home: &Path, scenario: &str) -> Out {
    probe(
        home,
        &[
            "--claude-version",
            "2.1.332",
            "--contract",
            "--json",
            "--command",
            &stub_cmd(&format!("--scenario {scenario}")),
        ],
        &[],
    )
}

/// Issue 46, reproduction 7: a JSON-RPC error on the first `tools/list` page is filed
/// under `tools-listed`, and `pagination` (which had no page to walk) is `n/a`.
#[test]
fn a_failed_first_page_is_not_a_pagination_failure() {
    let home = tempfile::tempdir().unwrap();
    let r = contract_json(home.path(), "g-list-err");
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(check(&doc, "tools-capable-handshake")["passed"], true);
    let listed = check(&doc, "tools-listed");
    assert_eq!(listed["passed"], false, "{listed:#}");
    assert!(
        listed["detail"]
            .as_str()
            .unwrap()
            .contains("tools/list page 1: JSON-RPC error -32603"),
        "{listed:#}"
    );
    for name in [
        "pagination",
        "every-tool-accepted",
        "unique-names",
        "tool-names",
    ] {
        assert_eq!(check(&doc, name)["passed"], Value::Null, "{name}: {doc:#}");
    }
    // the server did answer: ordering and timing were checked
    assert_eq!(check(&doc, "responses-follow-requests")["passed"], true);
    assert_eq!(check(&doc, "timeout-budget")["passed"], true);

    // a healthy server: every check that can run passes, and pagination is checked
    let ok = contract_json(home.path(), "l-pages");
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    let doc: Value = serde_json::from_str(&ok.stdout).unwrap();
    assert_eq!(check(&doc, "pagination")["passed"], true, "{doc:#}");
    assert_eq!(check(&doc, "tools-listed")["passed"], true, "{doc:#}");
}

/// Issue 46, reproduction 6: `--contract` with neither `--command` nor `--url`, in a
/// folder with no configured server, is a usage error (exit 2), in every format.
#[test]
fn a_contract_with_nothing_to_check_is_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    for extra in [&[][..], &["--json"][..], &["--format", "junit"][..]] {
        let r = probe(home.path(), &[&["--contract"][..], extra].concat(), &[]);
        assert_eq!(r.code, 2, "{extra:?}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains("--contract: no server to check"),
            "{}",
            r.stderr
        );
        assert!(r.stdout.is_empty(), "{}", r.stdout);
    }
    // without --contract nothing to probe is not an error
    let r = probe(home.path(), &[], &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // and JUnit lists contract checks only
    let r = probe(
        home.path(),
        &[
            "--format",
            "junit",
            "--command",
            &stub_cmd("--scenario b-modern"),
        ],
        &[],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("add --contract"), "{}", r.stderr);
}

/// Issue 46, reproduction 1: piped, with or without COLUMNS, the whole reason of a FAIL
/// and the whole stderr line are printed, each on one line.
#[test]
fn piped_output_is_never_cut() {
    let home = tempfile::tempdir().unwrap();
    let script = server(home.path(), "long.py", LONG_REASON);
    let cmd = format!("python3 {}", script.display());
    for columns in [None, Some("80"), Some("250")] {
        let mut env = vec![("NO_COLOR", "1")];
        if let Some(c) = columns {
            env.push(("COLUMNS", c));
        }
        let r = probe(
            home.path(),
            &[
                "--claude-version",
                "2.1.332",
                "--contract",
                "--command",
                &cmd,
            ],
            &env,
        );
        assert_eq!(r.code, 1, "{}", r.stderr);
        let out = &r.stdout;
        assert!(
            !out.contains('…'),
            "COLUMNS={columns:?}: something was cut:\n{out}"
        );
        let fail = out
            .lines()
            .find(|l| l.contains("FAIL tools-listed"))
            .unwrap_or_else(|| panic!("{out}"));
        assert!(
            fail.contains("tool registry unavailable") && fail.ends_with("LAST-WORD-OF-THE-REASON"),
            "{fail}"
        );
        let step = out
            .lines()
            .find(|l| l.contains("tools/list page 1") && l.contains("FAIL"))
            .unwrap_or_else(|| panic!("{out}"));
        assert!(step.ends_with("LAST-WORD-OF-THE-REASON"), "{step}");
        let stderr = out
            .lines()
            .find(|l| l.trim_start().starts_with("stderr:"))
            .unwrap_or_else(|| panic!("{out}"));
        assert!(
            stderr.contains("FATAL: unhandled exception in tools/list")
                && stderr.ends_with("LAST-WORD-OF-STDERR"),
            "{stderr}"
        );
        // nothing of the progress line when stderr is not a terminal
        assert!(!r.stderr.contains(" s · MCP_TIMEOUT"), "{}", r.stderr);
        assert!(!r.stderr.contains('\u{1b}'), "{:?}", r.stderr);
    }
}

/// Runs `mcplogs probe ARGS` in a pseudo-terminal at `columns` (COLUMNS), with `hide`
/// (`2` or `1`) sent to /dev/null so only the other stream is on the terminal; returns
/// what the terminal showed (carriage returns dropped) and the exit code.
fn in_terminal(home: &Path, args: &[&str], columns: usize, hide: &str) -> (String, i32) {
    use rexpect::process::WaitStatus;
    let mut inner = mcplogs(home);
    inner.arg("probe").args(args);
    pin_host(&mut inner);
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("exec \"$0\" \"$@\" {hide}>/dev/null"))
        .arg(inner.get_program())
        .args(inner.get_args())
        .env_clear()
        .current_dir(home);
    for (k, v) in inner.get_envs() {
        if let Some(v) = v {
            c.env(k, v);
        }
    }
    c.env("COLUMNS", columns.to_string())
        .env("NO_COLOR", "1")
        .env("TERM", "xterm");
    let mut p = rexpect::session::spawn_command(c, Some(WATCHDOG.as_millis() as u64)).unwrap();
    let out = p.exp_eof().unwrap();
    let code = match p.process().wait().unwrap() {
        WaitStatus::Exited(_, code) => code,
        other => panic!("not a normal exit: {other:?}"),
    };
    (out.replace('\r', ""), code)
}

/// Issue 46, reproduction 1 at a terminal: lines wrap at its width with a hanging
/// indent, no line is wider, and every word of a FAIL's reason is still there.
#[test]
fn at_a_terminal_long_reasons_wrap_and_nothing_is_cut() {
    let home = tempfile::tempdir().unwrap();
    let script = server(home.path(), "long.py", LONG_REASON);
    let cmd = format!("python3 {}", script.display());
    for columns in [80, 120] {
        let (out, code) = in_terminal(
            home.path(),
            &[
                "--claude-version",
                "2.1.332",
                "--contract",
                "--command",
                &cmd,
            ],
            columns,
            "2",
        );
        assert_eq!(code, 1, "{out}");
        for l in out.lines() {
            assert!(
                unicode_width::UnicodeWidthStr::width(l) <= columns,
                "a line wider than {columns}:\n{l}\n---\n{out}"
            );
        }
        assert!(!out.contains('…'), "{out}");
        let at = out
            .find("FAIL tools-listed")
            .unwrap_or_else(|| panic!("{out}"));
        let rest = &out[at..];
        let reason_end = rest
            .find("LAST-WORD-OF-THE-REASON")
            .unwrap_or_else(|| panic!("the reason was cut:\n{out}"));
        // the reason goes on under its own column (a hanging indent), not at the margin
        let continued = &rest[..reason_end];
        assert!(continued.contains('\n'), "{out}");
        let indent = "    FAIL tools-listed              ".len();
        for l in continued.lines().skip(1) {
            assert!(
                l.starts_with(&" ".repeat(indent)),
                "not a hanging indent:\n{l}\n---\n{out}"
            );
        }
        // the words survive the wrapping
        let words: String = rest[..reason_end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            words.contains("tool registry unavailable: the backing store"),
            "{words}"
        );
        assert!(out.contains("LAST-WORD-OF-STDERR"), "{out}");
    }
}

/// Issue 46, reproduction 3: while a server keeps the probe waiting, a terminal shows a
/// live line on stderr with the step, the time waited and the budget; piped, nothing.
#[test]
fn a_terminal_shows_the_step_and_the_budget_while_the_probe_waits() {
    let home = tempfile::tempdir().unwrap();
    let args = [
        "--claude-version",
        "2.1.332",
        "--timeout",
        "3s",
        "--command",
        &stub_cmd("--hang"),
    ];
    let (err, code) = in_terminal(home.path(), &args, 120, "1");
    // stopped by --timeout before Claude Code's limit: cannot tell, exit 0 (issue 51)
    assert_eq!(code, 0, "{err}");
    // `python3: server/discover (discover) · 1.2 of 3.0 s · --timeout 3000 ms` (the
    // terminal's bytes are read one by one, so `·` is not matched)
    assert!(
        err.contains("python3: server/discover (discover) "),
        "no progress line:\n{err}"
    );
    assert!(err.contains(" of 3.0 s "), "{err}");
    assert!(err.contains(" --timeout 3000 ms"), "{err}");
    // the discover handshake spent the whole budget: legacy gets nothing left to wait
    assert!(!err.contains("python3: initialize (legacy) "), "{err}");
    let piped = probe(home.path(), &args, &[]);
    assert_eq!(piped.code, code);
    assert!(!piped.stderr.contains(" of 3.0 s"), "{}", piped.stderr);
    assert!(!piped.stderr.contains('\u{1b}'), "{:?}", piped.stderr);
}

/// Issue 46, reproduction 4: with `--timeout 3s` every sentence about time names the
/// 3000 ms the probe waited and Claude Code's own limit, and none advises on a
/// limit the probe did not wait for.
#[test]
fn every_timeout_sentence_names_the_budget_the_probe_used() {
    let home = tempfile::tempdir().unwrap();
    let r = probe(
        home.path(),
        &[
            "--claude-version",
            "2.1.332",
            "--timeout",
            "3s",
            "--contract",
            "--command",
            &stub_cmd("--hang"),
        ],
        &[("NO_COLOR", "1")],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let out = &r.stdout;
    assert!(!out.contains("ms here"), "{out}");
    assert!(!out.contains("set MCP_TIMEOUT="), "{out}");
    assert!(
        out.contains("The probe stopped waiting at --timeout 3000 ms, before Claude Code's limit, MCP_TIMEOUT 30000 ms (default)"),
        "{out}"
    );
    assert!(
        out.contains(
            "waited against --timeout 3000 ms; Claude Code's limits: MCP_TIMEOUT 30000 ms (default)"
        ),
        "{out}"
    );
    assert!(out.contains("over --timeout 3000 ms"), "{out}");
    // what Claude Code does cannot be told from a wait it did not make
    assert!(out.contains(" cannot be told ("), "{out}");

    // MCP_TIMEOUT from the environment, no --timeout: the sentences name that layer
    let r = probe(
        home.path(),
        &[
            "--claude-version",
            "2.1.332",
            "--contract",
            "--command",
            &stub_cmd("--hang"),
        ],
        &[("NO_COLOR", "1"), ("MCP_TIMEOUT", "1500")],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout.contains("MCP_TIMEOUT=1500 ms (environment)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("within MCP_TIMEOUT (1500 ms here: environment)"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("30000"), "{}", r.stdout);
    // the limit the probe waited for is named once, and only it is said to be waited for
    assert!(
        r.stdout.contains(
            "Claude Code's limits: MCP_TIMEOUT=1500 ms (environment), which the probe waited for; MCP_CONNECT_TIMEOUT_MS"
        ),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("waited against"), "{}", r.stdout);
}

/// Issue 46, reproductions 5 and 7: a URL-only server is named by its host and path,
/// and the summary line comes first.
#[test]
fn a_url_only_server_is_named_from_its_url_and_the_summary_comes_first() {
    let home = tempfile::tempdir().unwrap();
    let (_stub, url) = HttpStub::start(&["--discover", "modern"]);
    let r = probe(
        home.path(),
        &["--claude-version", "2.1.332", "--contract", "--url", &url],
        &[("NO_COLOR", "1")],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let name = url.trim_start_matches("http://");
    // every modelled build, and 2.1.332 (predicted for) when it is not one of them
    let mut n = mcplogs::probe::CONTRACT_BUILDS.len();
    if !mcplogs::probe::CONTRACT_BUILDS.contains(&mcplogs::probe::ClaudeVersion(2, 1, 332)) {
        n += 1;
    }
    let first = r.stdout.lines().next().unwrap();
    assert_eq!(
        first,
        format!(
            "{name}: of {n} Claude Code builds: {n} keep the tools; contract: 10 passed, 0 failed, 2 n/a"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains(&format!("\n{name} · http · command-line scope · {url}")),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("Server ·") && !r.stdout.contains("server ·"));

    // a failing one names the first failing check and the builds it fails on
    let r = probe(
        home.path(),
        &[
            "--claude-version",
            "2.1.332",
            "--contract",
            "--command",
            &stub_cmd("--scenario c-no-rt"),
        ],
        &[("NO_COLOR", "1")],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let first = r.stdout.lines().next().unwrap();
    assert!(
        first.starts_with("python3: of ")
            && first.contains("; first failing check: every-tool-accepted (2.1."),
        "{first}"
    );
}

/// `--format junit` escapes what a server controls and redacts secrets, in valid XML.
#[test]
fn junit_escapes_and_redacts_what_the_server_says() {
    let home = tempfile::tempdir().unwrap();
    let script = server(
        home.path(),
        "hostile.py",
        r#"import sys, json
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m.get("method") == "initialize":
        r = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "x", "version": "1"}}
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
    elif m.get("method") == "tools/list":
        msg = "]]></failure><x a=\"1\">&amp; <script>\u001b[31m\u0007 ghp_JunitLeak0123456789abcdefghijklmnop '\"\u202e"
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -1, "message": msg}}), flush=True)
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}}), flush=True)
"#,
    );
    let r = probe(
        home.path(),
        &[
            "--claude-version",
            "2.1.332",
            "--contract",
            "--format",
            "junit",
            "--command",
            &format!("python3 {}", script.display()),
        ],
        &[],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_valid_junit(&r.stdout);
    assert!(!r.stdout.contains("JunitLeak"), "{}", r.stdout);
    assert!(!r.stdout.contains('\u{1b}') && !r.stdout.contains('\u{7}'));
    assert!(!r.stdout.contains("<script>") && !r.stdout.contains("<x a"));
    assert!(
        r.stdout.contains(&format!(
            "failures=\"{}\"",
            mcplogs::probe::CONTRACT_BUILDS.len()
        )),
        "{}",
        r.stdout
    );
}

/// The run helper of `common` is used for a check that does not need the watchdog.
#[test]
fn junit_with_json_is_refused_by_the_command_line() {
    let home = tempfile::tempdir().unwrap();
    let r = run(mcplogs(home.path()).args([
        "probe",
        "--json",
        "--format",
        "junit",
        "--contract",
        "--command",
        "x",
    ]));
    assert_eq!(r.code, 2, "{}", r.stderr);
}

/// The reproductions at a terminal (COLUMNS 80, NO_COLOR): checks that never ran are
/// `n/a`, `--contract` with nothing to check exits 2, a URL server is named from its
/// URL, the timeout sentences name `--timeout`, and NO_COLOR leaves no escape.
#[test]
fn the_reproductions_hold_in_a_terminal_too() {
    let home = tempfile::tempdir().unwrap();
    let (out, code) = in_terminal(
        home.path(),
        &[
            "--claude-version",
            "2.1.332",
            "--contract",
            "--command",
            "nonexist-server-for-mcplogs",
        ],
        80,
        "2",
    );
    assert_eq!(code, 1, "{out}");
    assert!(!out.contains('\u{1b}'), "NO_COLOR on a terminal: {out:?}");
    assert!(!out.contains("    pass "), "{out}");
    assert!(out.contains("    n/a  pagination "), "{out}");
    let words: String = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("contract: 0 passed, 1 failed, 11 n/a"),
        "{out}"
    );

    let (err, code) = in_terminal(home.path(), &["--contract"], 80, "1");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--contract: no server to check"), "{err}");

    let (_stub, url) = HttpStub::start(&["--discover", "modern"]);
    let (out, code) = in_terminal(
        home.path(),
        &["--claude-version", "2.1.332", "--url", &url],
        80,
        "2",
    );
    assert_eq!(code, 0, "{out}");
    let name = url.trim_start_matches("http://");
    assert!(out.starts_with(&format!("{name}: of ")), "{out}");

    let (out, code) = in_terminal(
        home.path(),
        &[
            "--claude-version",
            "2.1.332",
            "--timeout",
            "2s",
            "--command",
            &stub_cmd("--hang"),
        ],
        80,
        "2",
    );
    // cut short by --timeout: cannot tell, exit 0 (issue 51)
    assert_eq!(code, 0, "{out}");
    let words: String = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(!words.contains("ms here"), "{out}");
    assert!(
        words.contains("The probe stopped waiting at --timeout 2000 ms, before Claude Code's limit, MCP_TIMEOUT 30000 ms (default)"),
        "{out}"
    );
}

/// Issue 42, point 6 over HTTP: a server that takes the connection and never answers,
/// and one that dribbles its answer a byte at a time, both end at the budget.
#[test]
fn an_http_server_that_never_answers_or_dribbles_cannot_outlast_the_budget() {
    use std::io::{Read, Write};
    use std::net::TcpListener;
    for dribble in [false, true] {
        let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { continue };
                std::thread::spawn(move || {
                    if !dribble {
                        // read nothing, answer nothing: hold the socket open
                        std::thread::sleep(Duration::from_secs(300));
                        return;
                    }
                    let mut buf = [0u8; 4096];
                    let _ = conn.read(&mut buf);
                    for b in b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Pad: "
                        .iter()
                        .chain(std::iter::repeat(&b'a'))
                    {
                        if conn.write_all(&[*b]).is_err() {
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(200));
                    }
                });
            }
        });
        let home = tempfile::tempdir().unwrap();
        // the whole probe, every handshake together, ends within the budget plus grace
        let r = probe_within(
            home.path(),
            &[
                "--claude-version",
                "2.1.332",
                "--timeout",
                BOUND_BUDGET,
                "--contract",
                "--json",
                "--url",
                &url,
            ],
            &[],
            BOUND_WATCHDOG,
        );
        assert_eq!(r.code, 1, "dribble {dribble}: {}{}", r.stdout, r.stderr);
        let doc: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(check(&doc, "timeout-budget")["passed"], false, "{doc:#}");
        assert_eq!(check(&doc, "pagination")["passed"], Value::Null, "{doc:#}");
    }
}
