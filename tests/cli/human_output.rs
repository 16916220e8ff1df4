//! Snapshots (insta) of every human output on the bundled samples: scan, explain, du,
//! settings, fix (diff, dry run, refusal without a terminal, apply, undo), report, help
//! and the main error messages. Each snapshot holds the exit code, stdout and stderr.
//!
//! The environment is pinned: no inherited variables, HOME, the project (cwd) and the
//! managed-settings folder inside a throw-away sandbox, NO_COLOR, TZ; each screen at 80
//! and 120 columns (COLUMNS), checked to fit. Paths of
//! the checkout and of the sandbox are replaced by `[ROOT]` and `[SANDBOX]`.
//!
//! After an intended change: `cargo insta review` (or `INSTA_UPDATE=always cargo test`
//! and `git diff tests/cli/snapshots/`), see CONTRIBUTING.md.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::*;

/// The binary in `sb` (nothing inherited from the host but PATH) with the terminal
/// width, time zone and locale pinned too.
fn pinned(sb: &Sandbox, args: &[&str]) -> Command {
    let mut c = sb.command(Path::new(env!("CARGO_BIN_EXE_mcplogs")), args);
    c.env("COLUMNS", "80")
        .env("TZ", "UTC")
        .env("LC_ALL", "C")
        .stdin(Stdio::null());
    c
}

/// The widths every screen is rendered at: a classic terminal and a wide one.
const WIDTHS: [usize; 2] = [80, 120];

/// Exit code, stdout and stderr as one text, with host paths replaced: rendered at 80
/// and at 120 columns, one after the other, each checked to have no line wider than
/// its terminal. A command that changes files (`--yes`) runs once, at 80 columns, since
/// a second run would see its own change.
fn shown(sb: &Sandbox, cmd: &mut Command) -> String {
    let mutates = cmd.get_args().any(|a| a == "--yes");
    shown_at(sb, cmd, if mutates { &WIDTHS[..1] } else { &WIDTHS })
}

/// [`shown`] at the given widths.
fn shown_at(sb: &Sandbox, cmd: &mut Command, widths: &[usize]) -> String {
    let mut text = String::new();
    for &w in widths {
        cmd.env("COLUMNS", w.to_string());
        let o = cmd.output().expect("binary runs");
        let (out, err) = (
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
        );
        assert_fits(&out, w, "stdout");
        assert_fits(&err, w, "stderr");
        text.push_str(&format!(
            "=== {w} columns\nexit: {}\n--- stdout\n{out}--- stderr\n{err}",
            o.status.code().expect("exited normally"),
        ));
    }
    let root = env!("CARGO_MANIFEST_DIR");
    moved_back(&text, sb.samples_gone())
        .replace(sb.dir.path().to_str().unwrap(), "[SANDBOX]")
        .replace(root, "[ROOT]")
}

/// No line of a screen is wider than the terminal (display columns: a wide character
/// counts two). JSON documents are not screens and are never checked here.
fn assert_fits(text: &str, width: usize, stream: &str) {
    if text.trim_start().starts_with('{') {
        return;
    }
    for line in text.lines() {
        let w = unicode_width::UnicodeWidthStr::width(line);
        assert!(
            w <= width,
            "{stream} line of {w} columns at {width}:\n{line}\n--- whole {stream}:\n{text}"
        );
    }
}

fn run_shown(sb: &Sandbox, args: &[&str]) -> String {
    shown(sb, &mut pinned(sb, args))
}

/// A copy of a sample home inside the sandbox, for outputs that wrap lines holding its
/// path: the checkout's own path (longer or shorter on another machine) would move
/// the wrap, while the sandbox's path has one length. The samples' projects are moved
/// to a folder of the sandbox that does not exist ([`copy_samples_moved`]; [`shown`]
/// names them as the samples do): whether this machine has them at [`SAMPLES_WORK`]
/// changes nothing.
fn sample_copy(sb: &Sandbox, rel: &str) -> String {
    let to = sb.dir.path().join("s").join(rel);
    copy_samples_moved(&samples().join(rel), &to, sb.samples_gone());
    to.to_str().unwrap().to_string()
}

// ---- scan ----

#[test]
fn scan_all_samples() {
    let sb = Sandbox::new();
    let s = sample_copy(&sb, "");
    insta::assert_snapshot!("scan", run_shown(&sb, &["scan", &s]));
}

#[test]
fn scan_all_samples_verbose() {
    let sb = Sandbox::new();
    let s = sample_copy(&sb, "");
    insta::assert_snapshot!("scan_verbose", run_shown(&sb, &["scan", "--verbose", &s]));
}

#[test]
fn scan_each_home() {
    for home in ["linux-home", "macos-home", "windows-home"] {
        let sb = Sandbox::new();
        let h = sample_copy(&sb, home);
        insta::assert_snapshot!(
            format!("scan_home_{home}"),
            run_shown(&sb, &["scan", "--home", &h])
        );
    }
}

#[test]
fn scan_each_debug_log_verbose() {
    let mut names: Vec<String> = fs::read_dir(samples().join("debug-logs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(!names.is_empty());
    for name in names {
        let sb = Sandbox::new();
        let p = sample_copy(&sb, &format!("debug-logs/{name}"));
        insta::assert_snapshot!(
            format!("scan_debug_log_{}", name.trim_end_matches(".txt")),
            run_shown(&sb, &["scan", "--verbose", &p])
        );
    }
}

#[test]
fn scan_trimmed_and_old_format() {
    for dir in ["trimmed", "old-format"] {
        let sb = Sandbox::new();
        let p = sample_copy(&sb, dir);
        insta::assert_snapshot!(format!("scan_{dir}"), run_shown(&sb, &["scan", &p]));
    }
}

#[test]
fn scan_with_no_logs_anywhere() {
    let sb = Sandbox::new();
    insta::assert_snapshot!("scan_no_logs", run_shown(&sb, &["scan"]));
}

#[test]
fn scan_filters_that_match_nothing() {
    let sb = Sandbox::new();
    let s = sample_copy(&sb, "");
    insta::assert_snapshot!(
        "scan_no_such_server",
        run_shown(&sb, &["scan", &s, "--server", "no-such-server"])
    );
    insta::assert_snapshot!(
        "scan_no_such_project",
        run_shown(&sb, &["scan", &s, "--project", "no-such-project"])
    );
}

// ---- explain ----

#[test]
fn explain_each_mcp_list() {
    let mut names: Vec<String> = fs::read_dir(samples().join("mcp-list"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(!names.is_empty());
    for name in names {
        let sb = Sandbox::new();
        let p = sample_copy(&sb, &format!("mcp-list/{name}"));
        insta::assert_snapshot!(
            format!("explain_{}", name.trim_end_matches(".txt")),
            run_shown(&sb, &["explain", &p])
        );
    }
}

#[test]
fn explain_from_stdin_and_empty_input() {
    let sb = Sandbox::new();
    let p = sample_copy(&sb, "mcp-list/linux-home-2.1.332.txt");
    let pasted = fs::read(&p).unwrap();
    let mut c = pinned(&sb, &["explain"]);
    let r = run_with_stdin(&mut c, &pasted);
    // The same text through stdin reads exactly as through a file.
    let from_file = pinned(&sb, &["explain", &p]).output().unwrap();
    assert_eq!(r.stdout.as_bytes(), &from_file.stdout[..]);
    assert_eq!(r.code, from_file.status.code().unwrap());

    let mut c = pinned(&sb, &["explain"]);
    let empty = run_with_stdin(&mut c, b"");
    insta::assert_snapshot!(
        "explain_empty_stdin",
        format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            empty.code, empty.stdout, empty.stderr
        )
    );
}

// ---- du ----

#[test]
fn du_samples_and_each_home() {
    let sb = Sandbox::new();
    let s = sample_copy(&sb, "");
    insta::assert_snapshot!("du", run_shown(&sb, &["du", &s]));
    let h = sample_copy(&sb, "linux-home");
    insta::assert_snapshot!("du_home_linux", run_shown(&sb, &["du", "--home", &h]));
    insta::assert_snapshot!("du_no_logs", run_shown(&sb, &["du"]));
}

// ---- prune ----

#[test]
fn prune_outputs() {
    let sb = Sandbox::new();
    let home = sample_copy(&sb, "linux-home");
    // Three days old: the 10-minute in-use rule keeps none of them.
    age_all(Path::new(&home), 3);
    for (name, args) in [
        ("prune_dry_run", vec!["prune", "--dry-run", "--home", &home]),
        ("prune_not_a_terminal", vec!["prune", "--home", &home]),
        ("prune_yes", vec!["prune", "--yes", "--home", &home]),
        (
            "prune_nothing_left",
            vec!["prune", "--dry-run", "--home", &home],
        ),
    ] {
        insta::assert_snapshot!(name, run_shown(&sb, &args));
    }
}

// ---- probe ----

/// The probe's screen against the repository's stub server; times vary, so they are
/// replaced by `[N] ms`.
#[cfg(unix)]
#[test]
fn probe_outputs() {
    let sb = Sandbox::new();
    let stub = sb.dir.path().join("stub.py");
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/samples/stub_mcp_server.py"),
        &stub,
    )
    .unwrap();
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"(?m)^ +\d+ ms  ", "    [N] ms  ");
    settings.add_filter(r"\b\d+ ?ms\b", "[N] ms");
    settings.add_filter(r"pid \d+", "pid [PID]");
    settings.bind(|| {
        for (name, scenario, version) in [
            ("probe_healthy", "b-modern", "2.1.332"),
            ("probe_missing_result_type", "c-no-rt", "2.1.300"),
            ("probe_bad_tool", "f-bad-schema-modern", "2.1.332"),
        ] {
            let cmd = format!("python3 {} --scenario {scenario}", stub.display());
            // Piped, the probe cuts and wraps nothing whatever COLUMNS says (a CI log
            // keeps every reason): one run shows it; the terminal's wrapping is
            // checked in a pseudo-terminal (tests/cli/probe_ci.rs).
            let mut c = pinned(
                &sb,
                &["probe", "--claude-version", version, "--command", &cmd],
            );
            let o = c.output().expect("binary runs");
            let text = format!(
                "exit: {}\n--- stdout\n{}--- stderr\n{}",
                o.status.code().expect("exited normally"),
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            )
            .replace(sb.dir.path().to_str().unwrap(), "[SANDBOX]")
            .replace(env!("CARGO_MANIFEST_DIR"), "[ROOT]");
            insta::assert_snapshot!(name, text);
        }
    });
}

// ---- settings ----

#[test]
fn settings_with_no_files() {
    let sb = Sandbox::new();
    insta::assert_snapshot!("settings_none", run_shown(&sb, &["settings"]));
}

#[test]
fn settings_with_every_layer() {
    let sb = Sandbox::new();
    write_with_mode(
        &sb.user_settings(),
        b"{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"auto\"\n  }\n}\n",
        0o600,
    );
    write_with_mode(
        &sb.project.join(".claude/settings.json"),
        b"{\n  \"env\": {\n    \"OTHER\": \"1\"\n  }\n}\n",
        0o644,
    );
    write_with_mode(
        &sb.project.join(".claude/settings.local.json"),
        LEGACY_FRESH.as_bytes(),
        0o644,
    );
    write_with_mode(
        &sb.managed.join("managed-settings.json"),
        b"{\n  \"permissions\": {}\n}\n",
        0o644,
    );
    insta::assert_snapshot!("settings_every_layer", run_shown(&sb, &["settings"]));
}

#[test]
fn settings_with_a_broken_file() {
    let sb = Sandbox::new();
    write_with_mode(&sb.user_settings(), b"{\n  \"env\": {,\n", 0o600);
    insta::assert_snapshot!("settings_broken_user", run_shown(&sb, &["settings"]));
    write_with_mode(
        &sb.user_settings(),
        b"{\n  // a comment\n  \"env\": {\"A\": \"b\",},\n}\n",
        0o600,
    );
    insta::assert_snapshot!("settings_json5_user", run_shown(&sb, &["settings"]));
}

// ---- fix and undo ----

const USER_AUTO: &[u8] =
    b"{\n  \"model\": \"x\",\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"auto\"\n  }\n}\n";

#[test]
fn fix_dry_run_refusal_apply_and_undo() {
    let sb = Sandbox::new();
    sb.add_server_needing_fix();
    write_with_mode(&sb.user_settings(), USER_AUTO, 0o600);

    insta::assert_snapshot!("fix_dry_run", run_shown(&sb, &["fix", "--dry-run"]));
    // Standard input is not a terminal and there is no --yes.
    insta::assert_snapshot!("fix_not_a_terminal", run_shown(&sb, &["fix"]));
    assert_eq!(fs::read(sb.user_settings()).unwrap(), USER_AUTO);

    insta::assert_snapshot!("fix_yes", run_shown(&sb, &["fix", "--yes"]));
    insta::assert_snapshot!(
        "fix_again_already_legacy",
        run_shown(&sb, &["fix", "--yes"])
    );
    insta::assert_snapshot!(
        "fix_undo_dry_run",
        run_shown(&sb, &["fix", "--undo", "--dry-run"])
    );
    insta::assert_snapshot!(
        "fix_undo_not_a_terminal",
        run_shown(&sb, &["fix", "--undo"])
    );
    insta::assert_snapshot!("fix_undo_yes", run_shown(&sb, &["fix", "--undo", "--yes"]));
    assert_eq!(fs::read(sb.user_settings()).unwrap(), USER_AUTO);
    insta::assert_snapshot!(
        "fix_undo_nothing_to_undo",
        run_shown(&sb, &["fix", "--undo", "--yes"])
    );
}

#[test]
fn fix_new_file_and_no_server_needing_it() {
    let sb = Sandbox::new();
    insta::assert_snapshot!(
        "fix_no_server_needs_it",
        run_shown(&sb, &["fix", "--dry-run"])
    );
    insta::assert_snapshot!(
        "fix_force_new_file_dry_run",
        run_shown(&sb, &["fix", "--dry-run", "--force"])
    );
    sb.add_server_needing_fix();
    insta::assert_snapshot!("fix_new_file_yes", run_shown(&sb, &["fix", "--yes"]));
}

#[test]
fn fix_refuses_comments_then_rewrites_strict() {
    let sb = Sandbox::new();
    sb.add_server_needing_fix();
    let original = b"{\n  // mine\n  \"env\": {\"A\": \"b\",},\n}\n";
    write_with_mode(&sb.user_settings(), original, 0o600);
    insta::assert_snapshot!("fix_comments_refused", run_shown(&sb, &["fix", "--yes"]));
    assert_eq!(fs::read(sb.user_settings()).unwrap(), original);
    insta::assert_snapshot!(
        "fix_rewrite_strict_dry_run",
        run_shown(&sb, &["fix", "--rewrite-strict", "--dry-run"])
    );
}

#[test]
fn fix_refuses_invalid_json() {
    let sb = Sandbox::new();
    sb.add_server_needing_fix();
    write_with_mode(&sb.user_settings(), b"{\"env\": ", 0o600);
    insta::assert_snapshot!("fix_invalid_json", run_shown(&sb, &["fix", "--yes"]));
}

// ---- help and errors ----

#[test]
fn help_texts() {
    let sb = Sandbox::new();
    insta::assert_snapshot!("help", run_shown(&sb, &["--help"]));
    for sub in [
        "scan", "explain", "settings", "fix", "report", "du", "prune", "probe",
    ] {
        let mut c = pinned(&sb, &[]);
        c.args([sub, "--help"]);
        insta::assert_snapshot!(format!("help_{sub}"), shown(&sb, &mut c));
    }
}

#[test]
fn error_messages() {
    let sb = Sandbox::new();
    let s = sample_copy(&sb, "");
    let missing = sb.dir.path().join("no-such-path");
    let missing = missing.to_str().unwrap();
    let managed = sb.managed.to_str().unwrap();
    let cases: &[(&str, Vec<&str>)] = &[
        ("error_no_subcommand", vec![]),
        ("error_unknown_subcommand", vec!["frobnicate"]),
        ("error_unknown_flag", vec!["scan", "--frobnicate"]),
        ("error_bad_color", vec!["scan", "--color", "sometimes"]),
        ("error_bad_since", vec!["scan", &s, "--since", "yesterday"]),
        ("error_scan_missing_path", vec!["scan", missing]),
        ("error_scan_missing_home", vec!["scan", "--home", missing]),
        ("error_du_missing_path", vec!["du", missing]),
        ("error_explain_missing_file", vec!["explain", missing]),
        (
            "error_report_missing_path",
            vec!["report", missing, "--managed-dir", managed],
        ),
        (
            "error_fix_conflicting_flags",
            vec!["fix", "--undo", "--rewrite-strict"],
        ),
    ];
    for (name, args) in cases {
        // `sb.command` adds the pinning flags only after a known subcommand name.
        let mut c = pinned(&sb, &[]);
        c.args(args);
        insta::assert_snapshot!(*name, shown(&sb, &mut c));
    }
    insta::assert_snapshot!(
        "error_settings_missing_project",
        shown(
            &sb,
            pinned(&sb, &[])
                .args(["settings", "--managed-dir"])
                .arg(&sb.managed)
                .args(["--project", missing])
        )
    );
}

// ---- the journey (issue 11): widths, advice that knows the settings, shared folders ----

#[test]
fn scan_at_80_and_120_columns() {
    let sb = Sandbox::new();
    let h = sample_copy(&sb, "linux-home");
    for cols in ["80", "120"] {
        let mut c = pinned(&sb, &["scan", "--home", &h]);
        c.env("COLUMNS", cols);
        insta::assert_snapshot!(format!("scan_columns_{cols}"), shown(&sb, &mut c));
    }
}

#[test]
fn scan_advice_after_the_fix_and_with_a_project_override() {
    let sb = Sandbox::new();
    sb.add_server_needing_fix();
    // The project overrides the user file: the advice names the local file.
    fs::create_dir_all(sb.project.join(".claude")).unwrap();
    fs::write(
        sb.project.join(".claude/settings.json"),
        "{\"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"auto\"}}\n",
    )
    .unwrap();
    let mut c = pinned(&sb, &["scan"]);
    c.env("COLUMNS", "80");
    insta::assert_snapshot!("scan_project_override", shown(&sb, &mut c));
    // Legacy in effect now: the verdict stays, the advice says how to verify.
    fs::write(sb.project.join(".claude/settings.local.json"), LEGACY_FRESH).unwrap();
    let mut c = pinned(&sb, &["scan"]);
    c.env("COLUMNS", "80");
    insta::assert_snapshot!("scan_fix_in_place", shown(&sb, &mut c));
}

#[test]
fn scan_shared_log_folder() {
    let sb = Sandbox::new();
    let h = sample_copy(&sb, "shared-folder");
    let mut c = pinned(&sb, &["scan", "--home", &h]);
    c.env("COLUMNS", "80");
    insta::assert_snapshot!("scan_shared_folder", shown(&sb, &mut c));
}

/// helper-81 #3: `fix NAME` for one of the names sharing a log folder, run from another
/// folder, finds it as `scan NAME` does (it said "no server ...: none of that name is
/// logged or configured").
#[test]
fn fix_finds_a_server_by_a_name_sharing_its_log_folder() {
    let sb = Sandbox::new();
    let h = sample_copy(&sb, "shared-folder");
    for name in ["api-v2", "api_v2"] {
        let o = pinned(&sb, &["fix", "--dry-run", "--home", &h, name])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}: {err}");
        assert!(!err.contains("none of that name"), "{name}: {err}");
    }
}

/// helper-81 #6, #7: `fix`'s sign-in step gives the command `scan` gives (`claude mcp
/// login NAME`), and never says to start `claude` in a project folder that is gone.
#[test]
fn fix_signs_in_as_scan_says_and_never_in_a_gone_folder() {
    let sb = Sandbox::new();
    let h = sample_copy(&sb, "macos-home");
    let o = pinned(&sb, &["fix", "--dry-run", "--home", &h])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).replace('\n', " ");
    assert!(err.contains("claude mcp login sso-gateway"), "{err}");
    assert!(err.contains("no longer exists"), "{err}");
    assert!(!err.contains("start `claude` in /"), "{err}");
}

#[test]
fn scan_unknown_server_and_stale_since() {
    let sb = Sandbox::new();
    let s = sample_copy(&sb, "linux-home");
    insta::assert_snapshot!(
        "scan_unknown_server_did_you_mean",
        run_shown(&sb, &["scan", "--server", "acme-doc", "--home", &s])
    );
    insta::assert_snapshot!(
        "scan_home_is_a_file",
        run_shown(&sb, &["scan", "--home", &sample_copy(&sb, "expected.json")])
    );
}

#[test]
fn explain_unrecognised_input() {
    let sb = Sandbox::new();
    let mut c = pinned(&sb, &["explain"]);
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"root:x:0:0:root:/root:/bin/bash\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    insta::assert_snapshot!(
        "explain_unrecognised",
        format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            o.status.code().unwrap(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    );
}

// ---- every screen fits: narrow terminals and a real pseudo-terminal ----

/// Below the width its columns need, the scan's table becomes a list (a server per
/// line, its verdict and time under it), as do settings' and du's tables.
#[test]
fn narrow_terminals_get_lists() {
    let sb = Sandbox::new();
    let h = sample_copy(&sb, "windows-home");
    let mut c = pinned(&sb, &["scan", "--home", &h]);
    let scan = shown_at(&sb, &mut c, &[50]);
    assert!(
        scan.contains("\n  api-down\n    connection-failed · "),
        "{scan}"
    );
    assert!(!scan.contains("SERVER"), "{scan}");
    insta::assert_snapshot!("scan_narrow", scan);
    let settings = shown_at(&sb, &mut pinned(&sb, &["settings"]), &[50]);
    assert!(settings.contains("\n    status: absent\n"), "{settings}");
    insta::assert_snapshot!("settings_narrow", settings);
    let du = shown_at(&sb, &mut pinned(&sb, &["du", "--home", &h]), &[40]);
    insta::assert_snapshot!("du_narrow", du);
}

/// In a real pseudo-terminal (the width from the terminal itself, no COLUMNS), every
/// line of every subcommand's screen fits 80 columns, colour escapes aside.
#[cfg(target_os = "linux")]
#[test]
fn screens_fit_a_real_terminal() {
    let sb = Sandbox::new();
    let h = sample_copy(&sb, "linux-home");
    let list = sample_copy(&sb, "mcp-list/linux-home-2.1.288.txt");
    let bin = env!("CARGO_BIN_EXE_mcplogs");
    let cases: Vec<Vec<&str>> = vec![
        vec!["scan", "--home", &h],
        vec!["scan", "--verbose", "--home", &h],
        vec!["explain", &list],
        vec!["settings"],
        vec!["fix", "--dry-run", "--force"],
        vec!["du", "--home", &h],
        vec!["prune", "--dry-run", "--home", &h],
        vec!["scan", "--server", "nosuch", "--home", &h],
        vec!["docs", "usage"],
        vec!["--help"],
    ];
    let escape = regex::Regex::new("\x1b\\[[0-9;?]*[A-Za-z]").unwrap();
    for args in cases {
        let line: Vec<String> = std::iter::once(bin)
            .chain(args.iter().copied())
            .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
            .collect();
        let mut c = sb.command(Path::new("script"), &[]);
        c.env_remove("COLUMNS").env_remove("NO_COLOR").args([
            "-qec",
            &format!("stty cols 80 rows 50; {}", line.join(" ")),
            "/dev/null",
        ]);
        let o = c.output().expect("script(1) from util-linux runs");
        let text = String::from_utf8_lossy(&o.stdout).replace('\r', "");
        let text = escape.replace_all(&text, "");
        assert!(!text.trim().is_empty(), "{args:?}: no output");
        assert_fits(&text, 80, &format!("{args:?} in a pty"));
    }
}
