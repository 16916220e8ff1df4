//! The confirmation prompt, driven for real in a pseudo-terminal: `y`, `n`, end of input,
//! and a file that Claude Code rewrites while the prompt waits.

use std::fs;
use std::path::Path;

use crate::common::*;
use rexpect::process::WaitStatus;
use rexpect::session::{PtySession, spawn_command};

const ORIGINAL: &str = "{\n  \"model\": \"opus\"\n}\n";
const FIXED: &str = "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n  },\n  \"model\": \"opus\"\n}\n";

fn at_prompt(sb: &Sandbox, args: &[&str]) -> PtySession {
    let cmd = sb.command(Path::new(env!("CARGO_BIN_EXE_mcplogs")), args);
    let mut p = spawn_command(cmd, Some(20_000)).unwrap();
    // The diff comes first, then the question.
    p.exp_string("+    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"")
        .unwrap();
    p.exp_string("Apply? [y/N]").unwrap();
    p
}

fn exit_code(p: &PtySession) -> i32 {
    match p.process().wait().unwrap() {
        WaitStatus::Exited(_, code) => code,
        other => panic!("not a normal exit: {other:?}"),
    }
}

fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    write_with_mode(&sb.user_settings(), ORIGINAL.as_bytes(), 0o600);
    sb
}

#[test]
fn answering_y_applies() {
    let sb = sandbox();
    let mut p = at_prompt(&sb, &["fix", "--force"]);
    p.send_line("y").unwrap();
    p.exp_string("Wrote").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), 0);
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), FIXED);
    assert_eq!(mode(&sb.user_settings()), 0o600);

    // Undo asks the same way.
    let mut p = spawn_command(
        sb.command(Path::new(env!("CARGO_BIN_EXE_mcplogs")), &["fix", "--undo"]),
        Some(20_000),
    )
    .unwrap();
    p.exp_string("-    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"")
        .unwrap();
    p.exp_string("Apply? [y/N]").unwrap();
    p.send_line("yes").unwrap();
    p.exp_string("Restored").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), 0);
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), ORIGINAL);
}

#[test]
fn answering_n_writes_nothing() {
    let sb = sandbox();
    let mut p = at_prompt(&sb, &["fix", "--force"]);
    p.send_line("n").unwrap();
    p.exp_string("Not applied: nothing written.").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), 0);
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), ORIGINAL);
    assert_eq!(names_in(&sb.claude_dir()), ["settings.json"]);
}

#[test]
fn end_of_input_writes_nothing() {
    let sb = sandbox();
    let mut p = at_prompt(&sb, &["fix", "--force"]);
    p.send_control('d').unwrap();
    p.exp_string("Not applied: nothing written.").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), 0);
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), ORIGINAL);
    assert_eq!(names_in(&sb.claude_dir()), ["settings.json"]);
}

#[test]
fn file_rewritten_while_the_prompt_waits_is_not_overwritten() {
    let sb = sandbox();
    let mut p = at_prompt(&sb, &["fix", "--force"]);
    // What Claude Code does on start-up: migrates a value and rewrites the file.
    let theirs = "{\n  \"model\": \"opus[1m]\"\n}\n";
    fs::write(sb.user_settings(), theirs).unwrap();
    p.send_line("y").unwrap();
    p.exp_string("changed while mcplogs was working").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), 2);
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), theirs);
    assert_eq!(names_in(&sb.claude_dir()), ["settings.json"]);
}

/// `mcplogs fix > fix.log` in a terminal: the diff goes to the file, and the question is
/// asked on the terminal; the terminal shows the diff again before it, so nobody is
/// asked about a change they cannot see (issue 43, item 6).
#[test]
fn stdout_redirected_the_diff_is_shown_where_the_question_is_asked() {
    let sb = sandbox();
    let log = sb.dir.path().join("fix.log");
    for cols in [80, 120] {
        let mut cmd = sb.command(
            Path::new(env!("CARGO_BIN_EXE_mcplogs")),
            &["fix", "--force"],
        );
        cmd.env("COLUMNS", cols.to_string());
        cmd.stdout(fs::File::create(&log).unwrap());
        let mut p = spawn_command(cmd, Some(20_000)).unwrap();
        p.exp_string("shown here too").unwrap();
        let before = p.exp_string("Apply? [y/N]").unwrap();
        assert!(
            before.contains("+    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\""),
            "{cols}: {before:?}"
        );
        p.send_line("n").unwrap();
        p.exp_string("Not applied: nothing written.").unwrap();
        p.exp_eof().unwrap();
        assert_eq!(exit_code(&p), 0);
        // stdout (the file) still has the diff, once
        let file = fs::read_to_string(&log).unwrap();
        assert_eq!(
            file.matches("+    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"")
                .count(),
            1,
            "{file}"
        );
        assert!(!file.contains("Apply?"), "{file}");
        assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), ORIGINAL);
    }
}
