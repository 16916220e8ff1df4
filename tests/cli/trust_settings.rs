//! Issue 10, items 1-3: every reproduction against the real binary, in a sandbox home
//! with its own managed folder. Each run has a deadline: a hang is a failure, not a
//! stuck test suite.

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, symlink};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::common::*;

/// Runs `cmd` with no stdin, killing it (and failing) after 20 s. Output is read while
/// it runs, so a long diff cannot fill the pipe and stall the child.
fn run_deadline(cmd: Command) -> Output {
    run_within(cmd, Duration::from_secs(20))
}

/// [`run_deadline`] with another deadline (16 MiB of JSON takes seconds unoptimised).
fn run_within(mut cmd: Command, deadline: Duration) -> Output {
    output_within(&mut cmd, deadline)
}

fn sb_run(sb: &Sandbox, args: &[&str]) -> Output {
    run_deadline(sb.command(Path::new(env!("CARGO_BIN_EXE_mcplogs")), args))
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited, not killed by a signal")
}

fn is_root() -> bool {
    // SAFETY: no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// One line on stderr, naming the file, exit 2.
fn assert_refused(o: &Output, file: &Path, what: &str) {
    let err = stderr(o);
    assert_eq!(code(o), 2, "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(names_path(&err, file), "{err}");
    assert!(err.contains(what), "{err}");
}

// ---- Item 1: only regular files ----

#[test]
fn fix_refuses_a_settings_link_to_a_device_and_leaves_it_alone() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.claude_dir()).unwrap();
    symlink("/dev/null", sb.user_settings()).unwrap();
    let o = sb_run(&sb, &["fix", "--yes", "--force"]);
    assert_refused(
        &o,
        &sb.user_settings(),
        "not a regular file but a character device",
    );
    assert!(
        fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    assert_eq!(names_in(&sb.claude_dir()), ["settings.json"]);
}

/// The file to fix (`--settings`) is not regular: the refusal says which file that is,
/// the link's target when the path is a symlink, the file itself when it is not.
#[test]
fn a_refusal_names_the_links_target_only_through_a_link() {
    let sb = Sandbox::new();
    mkfifo(&sb.user_settings());
    let path = sb.user_settings().display().to_string();
    let o = sb_run(&sb, &["fix", "--yes", "--force", "--settings", &path]);
    assert_refused(&o, &sb.user_settings(), "not a regular file but a FIFO");
    assert!(!stderr(&o).contains("its target"), "{}", stderr(&o));

    fs::remove_file(sb.user_settings()).unwrap();
    symlink("/dev/null", sb.user_settings()).unwrap();
    let o = sb_run(&sb, &["fix", "--yes", "--force", "--settings", &path]);
    assert_refused(
        &o,
        &sb.user_settings(),
        "its target /dev/null is not a regular file but a character device",
    );
}

/// The issue's exact reproduction: `mknod d/nul c 1 3; ln -s ../nul d/.claude/settings.json`.
#[cfg(target_os = "linux")] // major 1, minor 3 is Linux's /dev/null
#[test]
fn fix_refuses_the_mknod_device_of_the_issue() {
    if !is_root() {
        eprintln!("skipped: mknod needs root");
        return;
    }
    let sb = Sandbox::new();
    let nul = sb.home.join("nul");
    let c = std::ffi::CString::new(nul.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid path; makedev(1, 3) is /dev/null's number.
    assert_eq!(
        unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) },
        0
    );
    fs::create_dir_all(sb.claude_dir()).unwrap();
    symlink("../nul", sb.user_settings()).unwrap();
    let o = sb_run(&sb, &["fix", "--yes", "--force"]);
    assert_refused(&o, &sb.user_settings(), "character device");
    assert!(
        fs::symlink_metadata(&nul)
            .unwrap()
            .file_type()
            .is_char_device()
    );
    assert_eq!(
        fs::symlink_metadata(&nul).unwrap().rdev(),
        libc::makedev(1, 3)
    );
}

#[test]
fn fifos_in_every_settings_layer_hang_nothing() {
    let sb = Sandbox::new();
    sb.add_server_needing_fix();
    for p in [
        sb.user_settings(),
        sb.project.join(".claude/settings.json"),
        sb.project.join(".claude/settings.local.json"),
        sb.managed.join("managed-settings.json"),
        sb.managed.join("managed-settings.d/10-x.json"),
        sb.home.join(".claude.json"),
    ] {
        mkfifo(&p);
    }
    let o = sb_run(&sb, &["settings"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    // one warning a file (the effective line names them again, as unknown)
    assert_eq!(
        stdout(&o)
            .matches("cannot be read (not a regular file but a FIFO")
            .count(),
        5,
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("MCP_PROTOCOL_NEGOTIATION is unknown"),
        "{}",
        stdout(&o)
    );
    let o = sb_run(&sb, &["settings", "--json"]);
    assert_eq!(code(&o), 1);
    let o = sb_run(&sb, &["fix", "--yes", "--force"]);
    assert_refused(&o, &sb.user_settings(), "FIFO");
    for args in [
        vec!["scan", "--home", sb.home.to_str().unwrap()],
        vec!["report", "--home", sb.home.to_str().unwrap()],
    ] {
        let o = sb_run(&sb, &args);
        assert!(matches!(code(&o), 0..=2), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn a_settings_file_linked_to_urandom_or_zero_is_refused_without_reading() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.project.join(".claude")).unwrap();
    symlink("/dev/urandom", sb.project.join(".claude/settings.json")).unwrap();
    symlink("/dev/zero", sb.project.join(".claude/settings.local.json")).unwrap();
    let o = sb_run(&sb, &["settings"]);
    assert_eq!(code(&o), 1);
    // one warning a file (the effective line names them again, as unknown)
    assert_eq!(
        stdout(&o)
            .matches("cannot be read (not a regular file but a character device")
            .count(),
        2,
        "{}",
        stdout(&o)
    );
    let o = sb_run(
        &sb,
        &[
            "fix",
            "--yes",
            "--force",
            "--settings",
            ".claude/settings.json",
        ],
    );
    // a project's shared file: refused for its link (as the fix and its undo refuse
    // every project's file reached through one), before its target is looked at
    // (the warning before it: the local file, above it, could not be read, so whether
    // it sets the key is unknown)
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    let last = err.trim_end().lines().last().unwrap_or_default();
    assert!(
        last.starts_with("mcplogs: error: ") && last.contains("symbolic link (to /dev/urandom)"),
        "{err}"
    );
    assert!(
        err.contains(
            "settings.local.json could not be read (not a regular file but a character device)"
        ),
        "{err}"
    );
}

#[test]
fn a_settings_file_over_16_mib_is_refused_with_a_clear_error() {
    let sb = Sandbox::new();
    let mut big = b"{\"a\": \"".to_vec();
    big.resize(17 * 1024 * 1024, b'x');
    big.extend_from_slice(b"\"}");
    write_with_mode(&sb.user_settings(), &big, 0o600);
    let o = sb_run(&sb, &["settings"]);
    assert!(stdout(&o).contains("larger than 16 MiB"), "{}", stdout(&o));
    let o = sb_run(&sb, &["fix", "--yes", "--force"]);
    assert_refused(&o, &sb.user_settings(), "larger than 16 MiB");
    assert_eq!(
        fs::metadata(sb.user_settings()).unwrap().len(),
        big.len() as u64
    );
}

#[test]
fn a_symlink_loop_or_a_folder_is_refused() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.claude_dir()).unwrap();
    symlink("settings.json", sb.user_settings()).unwrap();
    let o = sb_run(&sb, &["fix", "--yes", "--force"]);
    assert_refused(&o, &sb.user_settings(), "symbolic link loop");
    fs::remove_file(sb.user_settings()).unwrap();
    fs::create_dir(sb.user_settings()).unwrap();
    let o = sb_run(&sb, &["fix", "--yes", "--force"]);
    assert_refused(&o, &sb.user_settings(), "a folder");
}

#[test]
fn a_hard_linked_settings_file_is_refused_and_both_names_kept() {
    let sb = Sandbox::new();
    write_with_mode(&sb.user_settings(), b"{}\n", 0o600);
    let other = sb.home.join("dotfiles-settings.json");
    fs::hard_link(sb.user_settings(), &other).unwrap();
    let o = sb_run(&sb, &["fix", "--yes", "--force"]);
    assert_refused(&o, &sb.user_settings(), "2 hard links");
    assert_eq!(fs::read_to_string(&other).unwrap(), "{}\n");
    assert_eq!(fs::metadata(&other).unwrap().nlink(), 2);
}

#[test]
fn explain_reads_with_a_bound_and_refuses_devices() {
    let home = tempfile::tempdir().unwrap();
    let r = run(mcplogs(home.path()).args(["explain", "/dev/zero"]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("/dev/zero: not a regular file but a character device"),
        "{}",
        r.stderr
    );
    // stdin that never ends: bounded.
    let mut cmd = mcplogs(home.path());
    cmd.arg("explain")
        .stdin(fs::File::open("/dev/zero").unwrap());
    let o = cmd.output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("stdin: larger than 16 MiB"),
        "{}",
        stderr(&o)
    );
    // A FIFO nobody writes to: no hang, nothing to explain.
    let fifo = home.path().join("fifo");
    mkfifo(&fifo);
    let mut cmd = mcplogs(home.path());
    cmd.args(["explain", fifo.to_str().unwrap()]);
    let o = run_deadline(cmd);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    // Process substitution hands over a pipe: read to its end.
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "{} explain <(printf 'srv: npx x - ✗ Failed to connect\\n')",
            env!("CARGO_BIN_EXE_mcplogs")
        ))
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("srv"), "{}", stdout(&o));
}

// ---- Item 2: valid means valid to JSON.parse ----

fn deep(levels: usize) -> String {
    format!("{{\"x\": {}{}}}\n", "[".repeat(levels), "]".repeat(levels))
}

#[test]
fn fifty_thousand_levels_of_nesting_crash_no_command() {
    let sb = Sandbox::new();
    sb.add_server_needing_fix();
    write_with_mode(
        &sb.project.join(".claude/settings.json"),
        deep(50_000).as_bytes(),
        0o644,
    );
    write_with_mode(&sb.user_settings(), deep(50_000).as_bytes(), 0o600);
    let o = sb_run(&sb, &["settings", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let statuses: Vec<&str> = v["layers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["layer"] == "project" || l["layer"] == "user")
        .map(|l| l["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["strict", "strict"], "{v}");
    for args in [
        vec!["scan", "--home", sb.home.to_str().unwrap()],
        vec!["report", "--home", sb.home.to_str().unwrap()],
    ] {
        let o = sb_run(&sb, &args);
        assert!(matches!(code(&o), 0..=2), "{args:?}: {}", stderr(&o));
    }
    let o = sb_run(&sb, &["fix", "--yes"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = fs::read_to_string(sb.user_settings()).unwrap();
    assert!(text.contains("\"MCP_PROTOCOL_NEGOTIATION\": \"legacy\""));
    assert!(text.contains(&format!("\"x\": {}", "[".repeat(50_000))));
    let o = sb_run(&sb, &["fix", "--undo", "--yes"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        fs::read_to_string(sb.user_settings()).unwrap(),
        deep(50_000)
    );
}

#[test]
fn huge_numbers_and_lone_surrogates_are_strict_json() {
    let sb = Sandbox::new();
    let text = "{\"a\": 1e400, \"b\": -12345678901234567890123, \"c\": \"\\ud800\", \"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"}}\n";
    write_with_mode(&sb.user_settings(), text.as_bytes(), 0o600);
    let o = sb_run(&sb, &["settings", "--json"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(stdout(&o).contains("\"strict\""));
    let o = sb_run(&sb, &["settings"]);
    assert!(
        stdout(&o).contains("= legacy, from user settings"),
        "{}",
        stdout(&o)
    );
    assert!(!stdout(&o).contains("ignored"), "{}", stdout(&o));
}

#[test]
fn rewrite_strict_keeps_every_literal() {
    let sb = Sandbox::new();
    let original = "{\n  // mine\n  \"big\": 1e400,\n  \"neg\": -12345678901234567890123,\n  \"zero\": -0,\n  \"e\": 1E2,\n  \"s\": \"\\ud800 \\u00e9\",\n  half: .5,\n  \"list\": [1, 2,],\n}\n";
    write_with_mode(&sb.user_settings(), original.as_bytes(), 0o600);
    let o = sb_run(&sb, &["fix", "--yes", "--force", "--rewrite-strict"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = fs::read_to_string(sb.user_settings()).unwrap();
    for literal in [
        "\"big\": 1e400",
        "\"neg\": -12345678901234567890123",
        "\"zero\": -0",
        "\"e\": 1E2",
        "\"s\": \"\\ud800 \\u00e9\"",
        "\"half\": 0.5",
        "\"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"",
    ] {
        assert!(text.contains(literal), "{literal} missing from\n{text}");
    }
    assert!(!text.contains("mine"));
}

#[test]
fn rewrite_strict_refuses_a_value_it_cannot_keep() {
    let sb = Sandbox::new();
    let original = "{\n  // c\n  \"limit\": Infinity,\n  \"mask\": 0xFF,\n}\n";
    write_with_mode(&sb.user_settings(), original.as_bytes(), 0o600);
    let o = sb_run(&sb, &["fix", "--yes", "--force", "--rewrite-strict"]);
    assert_refused(
        &o,
        &sb.user_settings(),
        "the value Infinity at line 3, column 12",
    );
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), original);
    assert_eq!(names_in(&sb.claude_dir()), ["settings.json"]);
}

// ---- Item 3: undo verifies before it writes ----

const ORIGINAL: &str = "{\n  \"model\": \"opus\"\n}\n";

fn fixed_sandbox() -> Sandbox {
    let sb = Sandbox::new();
    write_with_mode(&sb.user_settings(), ORIGINAL.as_bytes(), 0o600);
    let o = sb_run(&sb, &["fix", "--yes", "--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    sb
}

fn backup(sb: &Sandbox) -> std::path::PathBuf {
    sb.claude_dir().join("settings.json.mcplogs-backup")
}

fn record(sb: &Sandbox) -> std::path::PathBuf {
    sb.claude_dir().join("settings.json.mcplogs-undo.json")
}

fn undo_refused(sb: &Sandbox, what: &str) {
    let before = fs::read(sb.user_settings()).unwrap();
    let o = sb_run(sb, &["fix", "--undo", "--yes"]);
    assert_refused(&o, &record(sb), what);
    assert_eq!(fs::read(sb.user_settings()).unwrap(), before);
}

#[test]
fn an_emptied_backup_is_refused() {
    let sb = fixed_sandbox();
    fs::write(backup(&sb), "").unwrap();
    undo_refused(&sb, "checksum differs");
}

#[test]
fn a_record_naming_another_backup_is_refused() {
    let sb = fixed_sandbox();
    let secret = sb.dir.path().join("secret");
    fs::write(&secret, "{\"stolen\": true}").unwrap();
    let text = fs::read_to_string(record(&sb)).unwrap();
    let b = backup(&sb).display().to_string();
    fs::write(record(&sb), text.replace(&b, &secret.display().to_string())).unwrap();
    undo_refused(&sb, "not ");
    assert!(
        !fs::read_to_string(sb.user_settings())
            .unwrap()
            .contains("stolen")
    );
}

#[test]
fn records_and_backups_others_can_write_are_refused() {
    let sb = fixed_sandbox();
    set_mode(&record(&sb), 0o622);
    undo_refused(&sb, "others can write it (mode 0622)");
    set_mode(&record(&sb), 0o600);
    set_mode(&backup(&sb), 0o660);
    undo_refused(&sb, "others can write it (mode 0660)");
    set_mode(&backup(&sb), 0o600);
    let o = sb_run(&sb, &["fix", "--undo", "--yes"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), ORIGINAL);
}

#[test]
fn a_record_of_a_version_without_checksums_is_refused() {
    let sb = fixed_sandbox();
    let text = fs::read_to_string(record(&sb)).unwrap();
    fs::write(
        record(&sb),
        text.replace("\"schemaVersion\": 2", "\"schemaVersion\": 1"),
    )
    .unwrap();
    undo_refused(&sb, "version 1");
}

/// A record as the first mcplogs wrote it (`version`, snake_case, no backup checksum)
/// cannot be checked: refused, naming the backup to restore by hand. A record of this
/// version that is merely broken is reported as unreadable, not as another version's.
#[test]
fn an_old_record_names_the_backup_and_a_broken_one_is_unreadable() {
    let sb = fixed_sandbox();
    let text = fs::read_to_string(record(&sb)).unwrap();
    assert!(text.contains("\"schemaVersion\": 2"), "{text}");
    fs::write(
        record(&sb),
        text.replace(
            "\"schemaVersion\": 2",
            "\"version\": 1, \"previous_value\": null",
        ),
    )
    .unwrap();
    undo_refused(&sb, "version 1 was written by another mcplogs");
    undo_refused(&sb, &format!("restore {}", shown(&backup(&sb), &sb.home)));

    fs::write(record(&sb), "{\"version\": 2}").unwrap();
    undo_refused(&sb, "missing field");
    let o = sb_run(&sb, &["fix", "--undo", "--yes"]);
    assert!(!stderr(&o).contains("another mcplogs"), "{}", stderr(&o));
}

/// Root fixing a user's file: backup and record belong to the user, who can undo.
#[test]
fn root_fixing_a_users_file_leaves_them_their_backup_and_record() {
    if !is_root() {
        eprintln!("skipped: needs root");
        return;
    }
    let sb = Sandbox::new();
    write_with_mode(&sb.user_settings(), ORIGINAL.as_bytes(), 0o640);
    let (uid, gid) = (65534, 65534);
    std::os::unix::fs::chown(sb.user_settings(), Some(uid), Some(gid)).unwrap();
    let o = sb_run(&sb, &["fix", "--yes", "--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for p in [sb.user_settings(), backup(&sb), record(&sb)] {
        let m = fs::metadata(&p).unwrap();
        assert_eq!((m.uid(), m.gid()), (uid, gid), "{}", p.display());
    }
    // private, as everything mcplogs keeps: the owner's bits of the file at most
    assert_eq!(mode(&backup(&sb)), 0o600);
    assert_eq!(mode(&record(&sb)), 0o600);
    // A record root owns (planted, or left by an older mcplogs) is not trusted.
    std::os::unix::fs::chown(record(&sb), Some(0), Some(0)).unwrap();
    undo_refused(
        &sb,
        "owned by uid 0, not by the settings file's owner (uid 65534)",
    );
}

/// Root creating a user's missing settings file: the new file (and the undo record)
/// belong to the folder's owner, mode 0600, not to root.
#[test]
fn root_creating_a_users_settings_file_gives_it_to_the_folders_owner() {
    if !is_root() {
        eprintln!("skipped: needs root");
        return;
    }
    let sb = Sandbox::new();
    fs::create_dir_all(sb.claude_dir()).unwrap();
    let (uid, gid) = (65534, 65534);
    std::os::unix::fs::chown(sb.claude_dir(), Some(uid), Some(gid)).unwrap();
    assert!(!sb.user_settings().exists());
    let o = sb_run(&sb, &["fix", "--yes", "--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for p in [sb.user_settings(), record(&sb)] {
        let m = fs::metadata(&p).unwrap();
        assert_eq!((m.uid(), m.gid()), (uid, gid), "{}", p.display());
        assert_eq!(mode(&p), 0o600, "{}", p.display());
    }
}

/// Found while closing item 1: `du` read the first line of each server's newest log
/// with a blocking open, so a FIFO named like a log hung it.
#[test]
fn du_does_not_hang_on_a_fifo_named_like_the_newest_log() {
    let sb = Sandbox::new();
    let dir = sb.home.join(".cache/claude-cli-nodejs/-tmp-p/mcp-logs-x");
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("a.jsonl"),
        "{\"debug\":\"x\",\"cwd\":\"/tmp/p\"}\n",
    )
    .unwrap();
    mkfifo(&dir.join("z.jsonl"));
    let o = sb_run(&sb, &["du", "--home", sb.home.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// A dry run shows nothing but its diff: when stdout cannot take it (`>/dev/full`), the
/// run failed (exit 2, said on stderr), instead of exit 0 with nothing shown.
#[test]
fn a_dry_run_whose_diff_cannot_be_written_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let settings = tmp.path().join("settings.json");
    fs::write(&settings, "{\n  \"model\": \"x\"\n}\n").unwrap();
    let full = || fs::File::options().write(true).open("/dev/full").unwrap();
    let out = mcplogs(tmp.path())
        .args(["fix", "--dry-run", "--force", "--settings"])
        .arg(&settings)
        .stdout(full())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write output"));
    assert_eq!(
        fs::read_to_string(&settings).unwrap(),
        "{\n  \"model\": \"x\"\n}\n"
    );
    // The same run on a pipe shows the diff and succeeds: the test can fail.
    let out = mcplogs(tmp.path())
        .args(["fix", "--dry-run", "--force", "--settings"])
        .arg(&settings)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("+++"));
}

// ---- Issue 23, item 5: never write what `fix --undo` cannot read back ----
// (The edge itself, a result of exactly the limit allowed and one byte more refused, is
// `settings::fix::tests::a_result_up_to_the_read_limit_is_allowed_one_byte_more_is_not`:
// two more 16 MiB runs here would take a minute unoptimised.)

/// `sb_run` for a 16 MiB settings file: parsing it unoptimised takes seconds.
fn sb_run_big(sb: &Sandbox, args: &[&str]) -> Output {
    run_within(
        sb.command(Path::new(env!("CARGO_BIN_EXE_mcplogs")), args),
        Duration::from_secs(180),
    )
}

/// A strict settings file of exactly `len` bytes: `{"pad": "xxx…"}` and a newline.
fn settings_of_len(len: usize) -> Vec<u8> {
    let frame = b"{\"pad\": \"\"}\n".len();
    let mut s = b"{\"pad\": \"".to_vec();
    s.resize(len - (frame - s.len()), b'x');
    s.extend_from_slice(b"\"}\n");
    assert_eq!(s.len(), len);
    s
}

const READ_LIMIT: usize = 16 * 1024 * 1024;

#[test]
fn a_fix_of_a_16_mib_file_that_would_pass_the_read_limit_is_refused() {
    // The issue's file: exactly 16 MiB, which the fix would grow past the limit.
    let sb = Sandbox::new();
    let exact = settings_of_len(READ_LIMIT);
    write_with_mode(&sb.user_settings(), &exact, 0o600);
    let o = sb_run_big(&sb, &["fix", "--yes", "--force"]);
    assert_refused(&o, &sb.user_settings(), "could not undo it");
    assert!(stderr(&o).contains("over the 16 MiB"), "{}", stderr(&o));
    assert_eq!(fs::read(sb.user_settings()).unwrap(), exact);
    assert_eq!(names_in(&sb.claude_dir()), ["settings.json"]);
}

#[test]
fn an_undo_whose_result_would_pass_the_read_limit_is_refused() {
    let sb = Sandbox::new();
    // The previous value is long: putting it back grows the file.
    let long = "v".repeat(1000);
    let before = format!("{{\"env\": {{\"MCP_PROTOCOL_NEGOTIATION\": \"{long}\"}}}}\n");
    write_with_mode(&sb.user_settings(), before.as_bytes(), 0o600);
    let o = sb_run(&sb, &["fix", "--yes", "--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // Someone else then grows the file to the limit, keeping the key at legacy.
    let fixed = fs::read_to_string(sb.user_settings()).unwrap();
    assert!(fixed.contains("\"legacy\""), "{fixed}");
    let head = "{\"pad\": \"";
    let rest = format!("\", {}", &fixed.trim_start()[1..]);
    let pad = READ_LIMIT - head.len() - rest.len();
    let grown = format!("{head}{}{rest}", "x".repeat(pad));
    assert_eq!(grown.len(), READ_LIMIT);
    write_with_mode(&sb.user_settings(), grown.as_bytes(), 0o600);
    let o = sb_run_big(&sb, &["fix", "--undo", "--yes"]);
    assert_refused(&o, &sb.user_settings(), "undoing the fix would make it");
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), grown);
}
