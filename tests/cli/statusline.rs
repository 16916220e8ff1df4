//! `mcplogs statusline`, `mcplogs hook` and `mcplogs setup statusline|hook` (issue 26):
//! this session's servers only, never an error on the status line, the hook once per
//! session, and the installs through the fix's writer with their own undo.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::*;

/// The newest session of the linux sample home (Claude Code 2.1.332): 4 servers work,
/// 6 fail.
const SAMPLE_SESSION: &str = "8c5a55f0-962f-45f4-8b1e-aab3bbe13010";
const SAMPLE_CWD: &str = "/tmp/mcplogs-samples/home-linux/work/api";

fn input(session: &str, cwd: &str) -> String {
    format!(
        r#"{{"session_id":"{session}","transcript_path":"/x.jsonl","cwd":"{cwd}","model":{{"id":"claude-opus-5-5","display_name":"Opus 5.5"}},"workspace":{{"current_dir":"{cwd}","project_dir":"{cwd}","added_dirs":[]}},"version":"2.1.332"}}"#
    )
}

fn linux_home() -> PathBuf {
    samples().join("linux-home")
}

fn statusline(home: &Path, args: &[&str], stdin: &str) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let mut c = mcplogs(tmp.path());
    c.arg("statusline").arg("--home").arg(home).args(args);
    run_with_stdin(&mut c, stdin.as_bytes())
}

#[test]
fn the_sample_session_names_its_failing_servers_and_counts_the_rest() {
    let r = statusline(&linux_home(), &[], &input(SAMPLE_SESSION, SAMPLE_CWD));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "MCP 4✓ 6✗ wrong-types, bad-tool, exits-early, missing-cmd, old-protocol +1\n"
    );
    assert_eq!(r.stderr, "");
    // A wider terminal (the input's width, when a build sends one) names more.
    // (wide enough for the checkout's path in the fix command, as `scan` gives it for a
    // home named with `--home`)
    let fix = format!(
        "mcplogs fix{}",
        mcplogs::advice::home_flags(&[linux_home()])
    );
    let width = 160 + fix.chars().count();
    let wide = input(SAMPLE_SESSION, SAMPLE_CWD).replacen(
        '{',
        &format!("{{\"terminal_width\":{width},"),
        1,
    );
    let r = statusline(&linux_home(), &[], &wide);
    assert_eq!(
        r.stdout,
        format!(
            "MCP 4✓ 6✗ wrong-types (tools fetch failed · {fix}), bad-tool, exits-early, missing-cmd, old-protocol, tools-error\n"
        ),
    );
    let wider =
        input(SAMPLE_SESSION, SAMPLE_CWD).replacen('{', "{\"terminal\":{\"width\":400},", 1);
    let r = statusline(&linux_home(), &[], &wider);
    assert!(
        r.stdout
            .contains(&format!("wrong-types (tools fetch failed · {fix})")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("missing-cmd (command not found · mcplogs scan)"),
        "{}",
        r.stdout
    );
}

#[test]
fn colour_only_when_asked_and_an_explicit_flag_beats_no_color() {
    let i = input(SAMPLE_SESSION, SAMPLE_CWD);
    let r = statusline(&linux_home(), &["--color", "always"], &i);
    assert!(
        r.stdout.contains("\u{1b}[1;31mbad-tool\u{1b}[0m"),
        "{:?}",
        r.stdout
    );
    let tmp = tempfile::tempdir().unwrap();
    let mut c = mcplogs(tmp.path());
    c.env("NO_COLOR", "1")
        .args(["statusline", "--color", "always", "--home"])
        .arg(linux_home());
    let r = run_with_stdin(&mut c, i.as_bytes());
    // the command `setup statusline` installs says `--color always`: NO_COLOR in Claude
    // Code's environment does not override that explicit choice
    assert!(r.stdout.contains("\u{1b}[1;31mbad-tool"), "{:?}", r.stdout);
    let mut c = mcplogs(tmp.path());
    c.env("NO_COLOR", "1")
        .args(["statusline", "--home"])
        .arg(linux_home());
    let r = run_with_stdin(&mut c, i.as_bytes());
    assert!(!r.stdout.contains('\u{1b}'), "{:?}", r.stdout);
}

#[test]
fn bad_or_empty_input_is_a_neutral_mark_exit_0_and_a_reason_on_stderr() {
    for (stdin, reason) in [
        ("", "no input on stdin"),
        ("{not json", "not the JSON Claude Code sends"),
        ("[1,2]", "not the JSON Claude Code sends"),
        (r#"{"cwd":"/x"}"#, "no session_id"),
        (r#"{"session_id":"s"}"#, "names no folder"),
        ("\u{0}\u{1}binary", "not the JSON"),
    ] {
        let r = statusline(&linux_home(), &["--prefix", "[", "--suffix", "]"], stdin);
        assert_eq!(r.code, 0, "{stdin:?}");
        assert_eq!(r.stdout, "[MCP ?]\n", "{stdin:?}");
        assert!(r.stderr.contains(reason), "{stdin:?}: {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    }
    // A session mcplogs has no logs for says nothing at all (no servers, no mark).
    let r = statusline(
        &linux_home(),
        &["--prefix", "["],
        &input("other", SAMPLE_CWD),
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, "\n"));
    let r = statusline(&linux_home(), &[], &input(SAMPLE_SESSION, "/elsewhere"));
    assert_eq!((r.code, r.stdout.as_str()), (0, "\n"));
}

/// A project folder with one server folder holding `files` (name, lines).
fn project(home: &Path, cwd: &str, server: &str, files: &[(&str, Vec<String>)]) {
    let d = home
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name(cwd))
        .join(format!("mcp-logs-{server}"));
    fs::create_dir_all(&d).unwrap();
    for (name, lines) in files {
        fs::write(d.join(name), lines.join("\n") + "\n").unwrap();
    }
}

fn rec(session: &str, key: &str, msg: &str) -> String {
    serde_json::json!({key: msg, "timestamp": "2026-11-29T12:00:00.000Z", "sessionId": session, "cwd": "/w/p"})
        .to_string()
}

fn connected(session: &str) -> Vec<String> {
    vec![
        rec(
            session,
            "debug",
            "Starting connection with timeout of 30000ms",
        ),
        rec(
            session,
            "debug",
            "Successfully connected (transport: stdio) in 120ms",
        ),
        rec(
            session,
            "debug",
            r#"Connection established with capabilities: {"hasTools":true,"hasPrompts":false,"hasResources":false,"protocolEra":"legacy","negotiatedProtocolVersion":"2025-11-25"}"#,
        ),
    ]
}

#[test]
fn only_this_sessions_records_count_and_pending_stays_pending() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let mut failed_other = connected("old");
    failed_other.push(rec(
        "old",
        "error",
        "Failed to fetch tools: Connection closed",
    ));
    // An older file failed in another session; this session's file connected.
    project(
        home,
        "/w/p",
        "db",
        &[
            ("2026-11-29T11-00-00-000Z.jsonl", failed_other.clone()),
            ("2026-11-29T12-00-00-000Z.jsonl", connected("now")),
        ],
    );
    // Still connecting: pending, neither good nor failed.
    project(
        home,
        "/w/p",
        "slow",
        &[(
            "2026-11-29T12-00-00-000Z.jsonl",
            vec![rec(
                "now",
                "debug",
                "Starting connection with timeout of 30000ms",
            )],
        )],
    );
    // Retrying tools/list: not decided yet.
    let mut retrying = connected("now");
    retrying.push(rec(
        "now",
        "debug",
        "tools/list failed (Invalid result for tools/list: []); retrying in 250ms",
    ));
    project(
        home,
        "/w/p",
        "retry",
        &[("2026-11-29T12-00-00-000Z.jsonl", retrying)],
    );
    // Another session in the same file failed: not ours.
    let mut mixed = connected("now");
    mixed.extend(failed_other);
    project(
        home,
        "/w/p",
        "mixed",
        &[("2026-11-29T12-00-00-000Z.jsonl", mixed)],
    );
    // One file is one Claude Code process: "old" and "now" share `mixed`'s connection,
    // which failed last.
    let r = statusline(home, &[], &input("now", "/w/p"));
    assert_eq!(
        r.stdout, "MCP 1✓ 1✗ 2… mixed (tools fetch failed · mcplogs scan)\n",
        "{}",
        r.stderr
    );
    let r = statusline(home, &[], &input("old", "/w/p"));
    assert_eq!(
        r.stdout,
        "MCP 1✓ 1✗ 2… mixed (tools fetch failed · mcplogs scan)\n"
    );
    // A session only in the older files (a second Claude Code started later in the
    // project): its own process's files.
    let mut early = connected("early");
    early.push(rec(
        "early",
        "error",
        "Failed to fetch tools: Connection closed",
    ));
    project(
        home,
        "/w/q",
        "db",
        &[
            ("2026-11-29T11-00-00-000Z.jsonl", early),
            ("2026-11-29T12-00-00-000Z.jsonl", connected("later")),
        ],
    );
    let r = statusline(home, &[], &input("early", "/w/q"));
    assert_eq!(r.stdout, "MCP 1✗ db (tools fetch failed · mcplogs scan)\n");
    let r = statusline(home, &[], &input("later", "/w/q"));
    assert_eq!(r.stdout, "MCP ✓\n");
}

/// `/clear` starts a new session id in the same process (observed, 2.1.332): the new id
/// has almost no records, yet the connections are the process's, in the same files.
#[test]
fn after_clear_the_new_session_sees_its_process_servers() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let stamp = "2026-12-01T21-56-06-728Z.jsonl";
    let mut good = connected("first");
    good.push(rec(
        "second",
        "debug",
        "Channel notifications skipped: server did not declare claude/channel capability",
    ));
    project(home, "/w/p", "good", &[(stamp, good)]);
    project(
        home,
        "/w/p",
        "missing",
        &[(
            stamp,
            vec![
                rec(
                    "first",
                    "debug",
                    "Starting connection with timeout of 30000ms",
                ),
                rec(
                    "first",
                    "error",
                    "Connection failed (ENOENT): Executable not found in $PATH: \"mcp-server-not-installed\"",
                ),
            ],
        )],
    );
    let r = statusline(home, &[], &input("second", "/w/p"));
    assert_eq!(
        r.stdout, "MCP 1✓ 1✗ missing (command not found · mcplogs scan)\n",
        "{}",
        r.stderr
    );
}

#[test]
fn the_output_is_the_same_in_a_terminal_at_80_and_120_columns_with_colour() {
    let tmp = tempfile::tempdir().unwrap();
    let inp = tmp.path().join("input.json");
    fs::write(&inp, input(SAMPLE_SESSION, SAMPLE_CWD)).unwrap();
    for cols in [80, 120] {
        let cmd = format!(
            "stty cols {cols}; {} statusline --home {} < {}",
            env!("CARGO_BIN_EXE_mcplogs"),
            linux_home().display(),
            inp.display()
        );
        let out = std::process::Command::new("script")
            .args(["-qc", &cmd, "/dev/null"])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", tmp.path())
            .env("TERM", "xterm")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        // On a terminal: colour; the width is the input's (80 here), not the terminal's.
        assert!(text.contains("\u{1b}[1;31mwrong-types"), "{cols}: {text:?}");
        let plain = strip_ansi(&text);
        assert_eq!(
            plain.trim_end(),
            "MCP 4✓ 6✗ wrong-types, bad-tool, exits-early, missing-cmd, old-protocol +1",
            "{cols}"
        );
    }
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::new();
    let mut esc = false;
    for c in s.chars() {
        match (esc, c) {
            (false, '\u{1b}') => esc = true,
            (true, 'm') => esc = false,
            (true, _) => {}
            (false, c) => out.push(c),
        }
    }
    out
}

#[test]
fn wrap_runs_the_users_command_with_the_same_input() {
    let tmp = tempfile::tempdir().unwrap();
    let saved = tmp.path().join("saved.json");
    let i = input(SAMPLE_SESSION, SAMPLE_CWD);
    let own = format!("cat > {}; echo 'my line'; echo second", saved.display());
    let r = statusline(&linux_home(), &["--wrap", &own, "--prefix", "| "], &i);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.starts_with("my line | MCP 4✓ 6✗ wrong-types"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.trim_end().chars().count() <= 80, "{}", r.stdout);
    assert_eq!(r.stdout.lines().count(), 1);
    assert_eq!(fs::read_to_string(&saved).unwrap(), i);
}

fn hook(home: &Path, cache: &Path, stdin: &str) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let mut c = mcplogs(tmp.path());
    c.env("MCPLOGS_CACHE_DIR", cache)
        .arg("hook")
        .arg("--home")
        .arg(home);
    run_with_stdin(&mut c, stdin.as_bytes())
}

#[test]
fn the_hook_tells_the_model_once_and_is_silent_when_all_works() {
    let cache = tempfile::tempdir().unwrap();
    let i = input(SAMPLE_SESSION, SAMPLE_CWD).replacen(
        '{',
        "{\"hook_event_name\":\"UserPromptSubmit\",",
        1,
    );
    let r = hook(&linux_home(), cache.path(), &i);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc = crate::wire::check_output::<mcplogs::json_doc::HookOutput>("hook", &r.stdout);
    let text = doc["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert_eq!(
        doc["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    // Six fail: five are named (the hook's bound), the sixth counted; the one the fix
    // helps is named first, never the one counted, and its fix is named with it.
    assert!(
        text.contains(r#"servers ("wrong-types" (tools-fetch-failed: wrong-field-types), "#),
        "{text}"
    );
    // (the command reading the hook's home)
    assert!(
        text.contains("), +1 more: run `mcplogs scan --home "),
        "{text}"
    );
    assert!(
        text.contains(r#"for "wrong-types": run `mcplogs fix --home "#),
        "{text}"
    );
    assert!(
        text.contains("`mcplogs fix --home ") && text.contains("Do not call or pretend"),
        "{text}"
    );
    assert!(
        !text.contains("acme-docs") && !text.contains("modern-ok"),
        "{text}"
    );
    assert!(
        text.matches(". ").count() <= 2,
        "two or three sentences: {text}"
    );
    // Once per session: the same prompt again says nothing.
    let r = hook(&linux_home(), cache.path(), &i);
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));

    // All working: silent.
    let tmp = tempfile::tempdir().unwrap();
    project(
        tmp.path(),
        "/w/p",
        "db",
        &[("2026-11-29T12-00-00-000Z.jsonl", connected("now"))],
    );
    let r = hook(tmp.path(), cache.path(), &input("now", "/w/p"));
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
    // Bad input: silent too, the reason on stderr.
    let r = hook(tmp.path(), cache.path(), "nonsense");
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
    assert!(r.stderr.contains("saying nothing"), "{}", r.stderr);
}

const USER: &str = "{\n  \"model\": \"opus\"\n}\n";

/// `setup ARGS` with `--binary` naming the test build (this build's own path is in a
/// cargo target folder, which setup refuses to install).
fn setup(sb: &Sandbox, args: &[&str]) -> std::process::Output {
    let mut c = sb.command(Path::new(env!("CARGO_BIN_EXE_mcplogs")), args);
    c.arg("--managed-dir").arg(&sb.managed);
    if !args.contains(&"--undo") {
        c.arg("--binary").arg(env!("CARGO_BIN_EXE_mcplogs"));
    }
    c.stdin(std::process::Stdio::null()).output().unwrap()
}

/// The installed command for `args` (`statusline --color always`, `hook`): the test
/// build's canonical path, then the arguments.
fn installed(args: &str) -> String {
    let exe = fs::canonicalize(env!("CARGO_BIN_EXE_mcplogs")).unwrap();
    format!(
        "{} {args}",
        mcplogs::text::shell_word(&exe.display().to_string())
    )
}

/// [`installed`] as it is written in a JSON string.
fn installed_json(args: &str) -> String {
    let s = serde_json::to_string(&installed(args)).unwrap();
    s[1..s.len() - 1].to_string()
}

#[test]
fn setup_installs_only_a_binary_that_stays_and_runs() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.claude_dir()).unwrap();
    fs::write(sb.user_settings(), USER).unwrap();
    // This build is inside a cargo target folder: refused, nothing written.
    let mut c = sb.command(
        Path::new(env!("CARGO_BIN_EXE_mcplogs")),
        &["setup", "hook", "--yes"],
    );
    c.arg("--managed-dir").arg(&sb.managed);
    let o = c.stdin(std::process::Stdio::null()).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cargo target folder"), "{}", stderr(&o));
    assert!(stderr(&o).contains("--binary PATH"), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), USER);
    // A --binary that is not a program, or not mcplogs: refused.
    let not_exe = sb.dir.path().join("not-a-program");
    fs::write(&not_exe, "echo hi").unwrap();
    let fake = sb.dir.path().join("fake mcplogs");
    crate::common::write_program(&fake, "#!/bin/sh\necho something else\n");
    for (bin, says) in [
        (&not_exe, "not a file that can be run"),
        (&fake, "did not run"),
    ] {
        let mut c = sb.command(
            Path::new(env!("CARGO_BIN_EXE_mcplogs")),
            &["setup", "statusline", "--yes"],
        );
        c.arg("--managed-dir")
            .arg(&sb.managed)
            .arg("--binary")
            .arg(bin);
        let o = c.stdin(std::process::Stdio::null()).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
        assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), USER);
    }
    // A path with a space and a quote is installed quoted, and runs as written.
    let dir = sb.dir.path().join("my tools' bin");
    fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("mcplogs");
    crate::common::copy_program(Path::new(env!("CARGO_BIN_EXE_mcplogs")), &copy);
    let mut c = sb.command(
        Path::new(env!("CARGO_BIN_EXE_mcplogs")),
        &["setup", "hook", "--yes"],
    );
    c.arg("--managed-dir")
        .arg(&sb.managed)
        .arg("--binary")
        .arg(&copy);
    let o = c.stdin(std::process::Stdio::null()).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(sb.user_settings()).unwrap()).unwrap();
    let cmd = v["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(cmd.starts_with('\''), "{cmd}");
    // Run as Claude Code runs a hook command: through the shell, from another folder,
    // with a PATH that has no mcplogs. The hook reads its input and says nothing here.
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(cmd.replace(" hook", " --version"))
        .current_dir(sb.dir.path())
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&o.stdout).starts_with("mcplogs "),
        "{cmd}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn setup_statusline_installs_and_undo_gives_the_bytes_back() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.claude_dir()).unwrap();
    fs::write(sb.user_settings(), USER).unwrap();
    let o = setup(&sb, &["setup", "statusline", "--dry-run"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!(
            "+    \"command\": \"{}\",",
            installed_json("statusline --color always")
        )),
        "{}",
        stdout(&o)
    );
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), USER);
    let o = setup(&sb, &["setup", "statusline"]);
    assert_eq!(o.status.code(), Some(2), "no terminal, no --yes");
    let o = setup(&sb, &["setup", "statusline", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        fs::read_to_string(sb.user_settings()).unwrap(),
        format!(
            "{{\n  \"statusLine\": {{\n    \"type\": \"command\",\n    \"command\": \"{}\",\n    \"refreshInterval\": 10\n  }},\n  \"model\": \"opus\"\n}}\n",
            installed_json("statusline --color always")
        )
    );
    let o = setup(&sb, &["setup", "statusline", "--yes"]);
    assert!(stderr(&o).contains("nothing to write"), "{}", stderr(&o));
    let o = sb.run(&["settings"]);
    assert!(
        stdout(&o).contains("status line: mcplogs, in user settings"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("hook: not installed"), "{}", stdout(&o));
    let o = setup(&sb, &["setup", "statusline", "--undo", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), USER);
    let o = sb.run(&["settings"]);
    assert!(
        stdout(&o).contains("status line: not installed"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_users_own_status_line_is_never_replaced_unless_wrapped() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.claude_dir()).unwrap();
    let own = "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"~/bin/status.sh\"}\n}\n";
    fs::write(sb.user_settings(), own).unwrap();
    let o = setup(&sb, &["setup", "statusline", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("already has a status line of your own"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("mcplogs setup statusline --wrap"));
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), own);
    let o = setup(&sb, &["setup", "statusline", "--wrap", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let now = fs::read_to_string(sb.user_settings()).unwrap();
    assert!(
        now.contains(&format!(
            "\"command\": \"{} --wrap '~/bin/status.sh'\"",
            installed_json("statusline --color always")
        )),
        "{now}"
    );
    // Changed since (another key added by hand): undo takes out only mcplogs' part.
    let edited = now.replacen('{', "{\n  \"theme\": \"dark\",", 1);
    fs::write(sb.user_settings(), &edited).unwrap();
    let o = setup(&sb, &["setup", "statusline", "--undo", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        fs::read_to_string(sb.user_settings()).unwrap(),
        own.replacen('{', "{\n  \"theme\": \"dark\",", 1)
    );
}

/// The status line of the user's own, shown by `setup statusline` without `--wrap`,
/// has its secrets hidden as `settings` and the `--wrap` diff hide them (an API key, a
/// URL's password); `--wrap` still installs the command as it is in the file.
#[test]
fn a_users_own_status_line_is_shown_with_its_secrets_hidden() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.claude_dir()).unwrap();
    let command = "mystatus --api-key Zq8Wx7Vc6Bn5Mm4Kk3Jj && curl -s https://u:pw5566@x.example/s";
    let own = format!(
        "{{\n  \"statusLine\": {{\"type\": \"command\", \"command\": \"{command}\"}}\n}}\n"
    );
    fs::write(sb.user_settings(), &own).unwrap();
    let o = setup(&sb, &["setup", "statusline", "--dry-run"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(
        out.contains("already has a status line of your own"),
        "{out}"
    );
    for secret in ["Zq8Wx7Vc6Bn5Mm4Kk3Jj", "pw5566"] {
        assert!(
            !out.contains(secret) && !err.contains(secret),
            "{secret}: {out}{err}"
        );
    }
    assert!(out.contains("--api-key [REDACTED:"), "{out}");
    assert!(out.contains("secrets hidden here"), "{out}");
    // no command printed that is not the one written (its secrets hidden)
    assert!(out.contains("--wrap followed by your command"), "{out}");
    assert!(!out.contains("--wrap '"), "{out}");
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), own);
    // the diff of --wrap hides them too, and the file gets the command as it was
    let o = setup(&sb, &["setup", "statusline", "--wrap", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        !stdout(&o).contains("Zq8Wx7Vc6Bn5Mm4Kk3Jj"),
        "{}",
        stdout(&o)
    );
    let now = fs::read_to_string(sb.user_settings()).unwrap();
    assert!(now.contains(&format!("--wrap '{command}'")), "{now}");
}

#[test]
fn setup_hook_keeps_the_users_hooks_and_undo_takes_out_only_its_own() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.claude_dir()).unwrap();
    let theirs = "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"say done\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";
    fs::write(sb.user_settings(), theirs).unwrap();
    let o = setup(&sb, &["setup", "hook", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(sb.user_settings()).unwrap()).unwrap();
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "say done");
    assert_eq!(
        v["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"],
        installed("hook").as_str()
    );
    let o = sb.run(&["settings"]);
    assert!(
        stdout(&o).contains("hook: mcplogs, UserPromptSubmit in user settings"),
        "{}",
        stdout(&o)
    );
    let o = setup(&sb, &["setup", "hook", "--undo", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), theirs);
    let o = setup(&sb, &["setup", "hook", "--undo", "--yes"]);
    assert!(
        stderr(&o).contains("No mcplogs setup of hooks"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn nothing_is_installed_where_it_could_never_run() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.claude_dir()).unwrap();
    let off = "{\n  \"disableAllHooks\": true\n}\n";
    fs::write(sb.user_settings(), off).unwrap();
    for what in ["statusline", "hook"] {
        let o = setup(&sb, &["setup", what, "--yes"]);
        assert_eq!(o.status.code(), Some(2), "{what}");
        let e = stderr(&o);
        assert!(
            e.contains("disableAllHooks") && e.lines().count() == 1,
            "{e}"
        );
    }
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), off);
    let o = sb.run(&["settings"]);
    assert!(
        stdout(&o).contains("disableAllHooks is true in user settings"),
        "{}",
        stdout(&o)
    );

    fs::write(sb.user_settings(), USER).unwrap();
    fs::write(sb.managed.join("managed-settings.json"), "{\"allowManagedHooksOnly\": true, \"statusLine\": {\"type\": \"command\", \"command\": \"corp-status\"}}").unwrap();
    let o = setup(&sb, &["setup", "hook", "--yes"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("allowManagedHooksOnly"),
        "{}",
        stderr(&o)
    );
    let o = setup(&sb, &["setup", "statusline", "--yes"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("(managed) sets a statusLine"),
        "{}",
        stderr(&o)
    );
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), USER);
}

/// Every example line of the three commands' help runs as typed: never a usage error.
#[test]
fn every_example_in_the_help_runs() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.claude_dir()).unwrap();
    fs::write(sb.user_settings(), USER).unwrap();
    fs::write(sb.project.join("input.json"), input("abc", "/work/api")).unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_mcplogs"))
        .parent()
        .unwrap()
        .to_path_buf();
    let mut ran = 0;
    for sub in [&["statusline"][..], &["hook"], &["setup"]] {
        let o = sb.run(&[sub, &["--help"]].concat());
        let help = stdout(&o);
        let examples = help.split_once("EXAMPLES:").expect("examples").1;
        for line in examples.lines().skip(1).map(str::trim) {
            if line.is_empty() {
                break;
            }
            let line = line.split("  #").next().unwrap().trim();
            // Never the host's managed settings.
            // Never the host's managed settings; the test build is in a cargo target
            // folder, which setup refuses to install: it is named with --binary.
            let line = if line.starts_with("mcplogs setup") && line.contains("--undo") {
                format!("{line} --managed-dir {}", sb.managed.display())
            } else if line.starts_with("mcplogs setup") {
                format!(
                    "{line} --managed-dir {} --binary {}",
                    sb.managed.display(),
                    env!("CARGO_BIN_EXE_mcplogs")
                )
            } else {
                line.to_string()
            };
            let line = line.as_str();
            let mut c = sb.command(Path::new("sh"), &["-c", line]);
            let path = format!(
                "{}:{}",
                bin_dir.display(),
                std::env::var("PATH").unwrap_or_default()
            );
            c.env("PATH", path).stdin(std::process::Stdio::null());
            let o = c.output().unwrap();
            let e = stderr(&o);
            let confirm = e.contains("refusing to write without confirmation");
            assert!(
                o.status.code() == Some(0) || confirm,
                "{line}: exit {:?}\n{}{e}",
                o.status.code(),
                stdout(&o)
            );
            assert!(
                !e.contains("unexpected argument") && !e.contains("Usage:"),
                "{line}: {e}"
            );
            ran += 1;
        }
    }
    assert!(ran >= 9, "{ran}");
}

/// Claude Code appends to the session's file while the status line runs again and
/// again: each run reads on from where the last one stopped (a memo in mcplogs' cache
/// folder), and sees what was appended; a half-written last line waits for its end.
#[test]
fn each_run_reads_on_from_where_the_last_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let cache = tmp.path().join("mcplogs-cache");
    project(
        &home,
        "/w/p",
        "db",
        &[("2026-11-29T12-00-00-000Z.jsonl", connected("now"))],
    );
    let file = home
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name("/w/p"))
        .join("mcp-logs-db/2026-11-29T12-00-00-000Z.jsonl");
    let go = || {
        let mut c = mcplogs(tmp.path());
        c.env("MCPLOGS_CACHE_DIR", &cache)
            .args(["statusline", "--home"])
            .arg(&home);
        run_with_stdin(&mut c, input("now", "/w/p").as_bytes()).stdout
    };
    assert_eq!(go(), "MCP ✓\n");
    let memo = cache.join("statusline/now.json");
    let offset = |m: &Path| -> u64 {
        let v: serde_json::Value = serde_json::from_slice(&fs::read(m).unwrap()).unwrap();
        v["db"]["offset"].as_u64().unwrap()
    };
    assert_eq!(offset(&memo), fs::metadata(&file).unwrap().len());
    // A reconnect that fails, its last line still being written: not read yet.
    let fail = rec(
        "now",
        "error",
        "Connection failed: MCP error -32000: Connection closed",
    );
    let mut f = fs::OpenOptions::new().append(true).open(&file).unwrap();
    use std::io::Write;
    write!(f, "{}", &fail[..20]).unwrap();
    assert_eq!(go(), "MCP ✓\n");
    writeln!(f, "{}", &fail[20..]).unwrap();
    assert_eq!(go(), "MCP 1✗ db (connection closed · mcplogs scan)\n");
    assert_eq!(offset(&memo), fs::metadata(&file).unwrap().len());
    // The file replaced by a shorter one: read from the start again.
    fs::write(&file, connected("now").join("\n") + "\n").unwrap();
    assert_eq!(go(), "MCP ✓\n");
}

/// Issue 51 item 9: `setup … --dry-run` run from a binary in a temporary folder shows its
/// diff (with that binary's path) and a warning that the real run refuses it; without
/// `--dry-run` it still refuses, and nothing is written either way.
#[test]
fn setup_dry_run_from_a_temporary_folder_shows_the_diff_with_a_warning() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.claude_dir()).unwrap();
    fs::write(sb.user_settings(), USER).unwrap();
    // The temporary folder is named by TMPDIR, set here, not the machine's own.
    let temp = sb.dir.path().join("temp");
    let bin = temp.join("bin");
    fs::create_dir_all(&bin).unwrap();
    let copy = bin.join("mcplogs");
    crate::common::copy_program(Path::new(env!("CARGO_BIN_EXE_mcplogs")), &copy);
    let shown = serde_json::to_string(&fs::canonicalize(&copy).unwrap()).unwrap();
    let shown = &shown[1..shown.len() - 1];
    for what in ["hook", "statusline"] {
        let mut c = sb.command(&copy, &["setup", what, "--dry-run"]);
        c.arg("--managed-dir").arg(&sb.managed).env("TMPDIR", &temp);
        let o = c.stdin(std::process::Stdio::null()).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(&o));
        assert!(
            stdout(&o).contains(&format!("\"command\": \"{shown}")),
            "{what}: {}",
            stdout(&o)
        );
        assert!(stderr(&o).contains("warning:"), "{}", stderr(&o));
        assert!(stderr(&o).contains("temporary folder"), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("refuses to install it"),
            "{}",
            stderr(&o)
        );
        assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), USER);

        let mut c = sb.command(&copy, &["setup", what, "--yes"]);
        c.arg("--managed-dir").arg(&sb.managed).env("TMPDIR", &temp);
        let o = c.stdin(std::process::Stdio::null()).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(&o));
        assert!(stderr(&o).contains("temporary folder"), "{}", stderr(&o));
        assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), USER);
    }
}

/// `settings` names the user's own status line command: one holding a secret is shown
/// with it hidden and the sentence whole (the secret's redaction took the sentence's
/// `);` with it: helper-77 #9).
#[test]
fn settings_shows_an_own_status_line_holding_a_secret_hidden_and_whole() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.claude_dir()).unwrap();
    fs::write(
        sb.user_settings(),
        "{\"statusLine\": {\"type\": \"command\", \"command\": \"my-status --token StatusTok0123456789\"}}\n",
    )
    .unwrap();
    let mut c = sb.command(Path::new(env!("CARGO_BIN_EXE_mcplogs")), &["settings"]);
    let o = c.stdin(std::process::Stdio::null()).output().unwrap();
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!out.contains("StatusTok0123456789"), "{out}");
    assert!(
        out.contains("(my-status --token [REDACTED:secret]); `mcplogs setup statusline` shows"),
        "{out}"
    );
}
