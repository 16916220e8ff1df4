//! Issue 42's third pass over the newer surfaces, one regression test per reproduction
//! that is not the completion's (`completion_shells`): `setup --undo` keeps the user's
//! neighbours, `report -o` refuses a FIFO at once, `man --install` follows the umask,
//! the hook's context is bounded, and every `--json` prints one document on exit 0 or 1.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::*;

fn setup(sb: &Sandbox, args: &[&str]) -> std::process::Output {
    let mut c = sb.command(Path::new(env!("CARGO_BIN_EXE_mcplogs")), args);
    c.arg("--managed-dir").arg(&sb.managed);
    // this build lives in a cargo target folder, which setup installs only when named
    if !args.contains(&"--undo") {
        c.arg("--binary").arg(env!("CARGO_BIN_EXE_mcplogs"));
    }
    c.stdin(std::process::Stdio::null()).output().unwrap()
}

/// Reproduction 2: after `setup hook`, the user adds their own handler to the same
/// `UserPromptSubmit` group (and a group of their own after it); `--undo` takes out
/// mcplogs' handler only.
#[test]
fn setup_hook_undo_keeps_a_handler_the_user_added_to_our_group() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.claude_dir()).unwrap();
    fs::write(sb.user_settings(), "{\n  \"model\": \"opus\"\n}\n").unwrap();
    let o = setup(&sb, &["setup", "hook", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(sb.user_settings()).unwrap()).unwrap();
    let logger = serde_json::json!({"type": "command", "command": "/home/me/bin/prompt-logger"});
    let echo = serde_json::json!({"type": "command", "command": "echo 'mcplogs hook'"});
    let group = &mut v["hooks"]["UserPromptSubmit"][0]["hooks"];
    group.as_array_mut().unwrap().insert(0, echo.clone());
    group.as_array_mut().unwrap().push(logger.clone());
    v["hooks"]["UserPromptSubmit"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"hooks": [logger.clone()]}));
    fs::write(
        sb.user_settings(),
        serde_json::to_string_pretty(&v).unwrap() + "\n",
    )
    .unwrap();
    let o = setup(&sb, &["setup", "hook", "--undo", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let after: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(sb.user_settings()).unwrap()).unwrap();
    assert_eq!(
        after,
        serde_json::json!({
            "model": "opus",
            "hooks": {"UserPromptSubmit": [
                {"hooks": [echo, logger.clone()]},
                {"hooks": [logger]}
            ]}
        })
    );
    // Nothing of mcplogs' is left: a second undo has nothing to do.
    let o = setup(&sb, &["setup", "hook", "--undo", "--yes"]);
    assert!(
        stderr(&o).contains("No mcplogs setup of hooks"),
        "{}",
        stderr(&o)
    );
}

/// Reproduction 7: `report -o FIFO` with no reader returns at once (a watchdog kills a
/// hang and fails), exit 2, one line naming it; a folder and a device too. Nothing is
/// written through them and no file is created.
#[test]
fn report_output_refuses_a_fifo_a_folder_and_a_device_without_blocking() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("out.md");
    mkfifo(&fifo);
    let folder = tmp.path().join("a-folder");
    fs::create_dir_all(&folder).unwrap();
    let link = tmp.path().join("link-to-fifo.md");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let home = samples().join("linux-home");
    for (target, kind) in [
        (&fifo, "a FIFO"),
        // a link is refused as a link, wherever it leads (never followed)
        (&link, "a symbolic link (not followed)"),
        (&folder, "a folder"),
        (&PathBuf::from("/dev/null"), "a character device"),
    ] {
        let mut c = mcplogs(tmp.path());
        c.args(["report", "--force", "--home"])
            .arg(&home)
            .arg("-o")
            .arg(target);
        pin_host(&mut c);
        let out = output_within(&mut c, Duration::from_secs(60));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", target.display());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("cannot write the report there") && err.contains(kind),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
    // A folder that does not exist: refused before the scan too.
    let mut c = mcplogs(tmp.path());
    c.args(["report", "--force", "--home"])
        .arg(&home)
        .arg("-o")
        .arg(tmp.path().join("no-such-folder/r.md"));
    pin_host(&mut c);
    let out = output_within(&mut c, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot write the report there"), "{err}");
    assert!(!tmp.path().join("no-such-folder").exists());
    // A regular file (new) is written, 0600.
    let file = tmp.path().join("report.md");
    let mut c = mcplogs(tmp.path());
    c.args(["report", "--force", "--home"])
        .arg(&home)
        .arg("-o")
        .arg(&file);
    pin_host(&mut c);
    let out = output_within(&mut c, Duration::from_secs(60));
    // written: exit 0 (docs/usage.md, "Exit codes"), failing servers or not
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(fs::read_to_string(&file).unwrap().contains("## `bad-tool`"));
    assert_eq!(mode(&file), 0o600);
}

/// `report -o issue.md` in a folder that holds a symbolic link at `issue.md` (a cloned
/// repository can ship one leading to `~/.bashrc` or `~/.ssh/authorized_keys`; the
/// report's stderr lines are partly a server's): refused before the scan, one line
/// naming the path, exit 2; the target is not changed (content and mode), and a link
/// to nothing does not create its target.
#[test]
fn report_output_refuses_a_symbolic_link_to_a_file_or_to_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let victim = tmp.path().join("victim");
    fs::create_dir_all(&repo).unwrap();
    fs::create_dir_all(&victim).unwrap();
    let bashrc = victim.join("bashrc");
    fs::write(&bashrc, "precious\n").unwrap();
    fs::set_permissions(&bashrc, fs::Permissions::from_mode(0o644)).unwrap();
    std::os::unix::fs::symlink(&bashrc, repo.join("issue.md")).unwrap();
    let newfile = victim.join("newfile");
    std::os::unix::fs::symlink(&newfile, repo.join("issue2.md")).unwrap();
    let home = samples().join("linux-home");
    for name in ["issue.md", "issue2.md"] {
        let mut c = mcplogs(&repo);
        c.args(["report", "--force", "--home"])
            .arg(&home)
            .args(["-o", name]);
        pin_host(&mut c);
        let out = output_within(&mut c, Duration::from_secs(60));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(&format!("{name}: cannot write the report there"))
                && err.contains("a symbolic link (not followed)"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
    assert_eq!(fs::read_to_string(&bashrc).unwrap(), "precious\n");
    assert_eq!(mode(&bashrc), 0o644);
    assert!(fs::symlink_metadata(&newfile).is_err());
}

/// Reproduction 8: man pages and their folders follow the umask: 0644/0755 under 022,
/// 0600/0700 under 077; a link planted at a page's name is replaced, not followed.
#[test]
fn man_install_follows_the_umask() {
    for (umask, file_mode, dir_mode) in [("022", 0o644, 0o755), ("077", 0o600, 0o700)] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("share/man/man1");
        let victim = tmp.path().join("victim");
        fs::write(&victim, "mine\n").unwrap();
        fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(&victim, dir.join("mcplogs-scan.1")).unwrap();
        let mut c = std::process::Command::new("/bin/sh");
        c.arg("-c")
            .arg(format!("umask {umask}; exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_mcplogs"))
            .args(["man", "--install", "--dir"])
            .arg(tmp.path().join("new/man1"))
            .env_clear()
            .env("HOME", tmp.path());
        let r = run(&mut c);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let new = tmp.path().join("new/man1");
        assert_eq!(mode(&new), dir_mode, "umask {umask}");
        assert_eq!(mode(&tmp.path().join("new")), dir_mode, "umask {umask}");
        let pages: Vec<PathBuf> = fs::read_dir(&new)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(pages.len() > 10);
        for p in &pages {
            assert_eq!(mode(p), file_mode, "{} under umask {umask}", p.display());
            assert!(!p.file_name().unwrap().to_string_lossy().starts_with('.'));
        }
        // Into a folder holding a link at a page's name: the link is replaced.
        let mut c = std::process::Command::new("/bin/sh");
        c.arg("-c")
            .arg(format!("umask {umask}; exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_mcplogs"))
            .args(["man", "--install", "--dir"])
            .arg(&dir)
            .env_clear()
            .env("HOME", tmp.path());
        let r = run(&mut c);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(fs::read_to_string(&victim).unwrap(), "mine\n");
        let page = dir.join("mcplogs-scan.1");
        assert!(fs::symlink_metadata(&page).unwrap().file_type().is_file());
        assert_eq!(mode(&page), file_mode);
    }
}

/// Reproduction 9: 120 failing servers in one session give a bounded context: five
/// named, then "+115 more: run `mcplogs scan`".
#[test]
fn the_hooks_context_names_a_few_servers_then_counts_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let src = samples()
        .join("linux-home/.cache/claude-cli-nodejs/-tmp-mcplogs-samples-home-linux-work-api/mcp-logs-missing-cmd");
    let project = tmp
        .path()
        .join("home/.cache/claude-cli-nodejs/-tmp-mcplogs-samples-home-linux-work-api");
    for i in 0..120 {
        let d = project.join(format!("mcp-logs-srv-{i:03}"));
        fs::create_dir_all(&d).unwrap();
        for e in fs::read_dir(&src).unwrap() {
            let e = e.unwrap();
            fs::copy(e.path(), d.join(e.file_name())).unwrap();
        }
    }
    let cache = tmp.path().join("cache");
    let input = r#"{"hook_event_name":"UserPromptSubmit","session_id":"8c5a55f0-962f-45f4-8b1e-aab3bbe13010","transcript_path":"/x.jsonl","cwd":"/tmp/mcplogs-samples/home-linux/work/api","version":"2.1.332"}"#;
    let mut c = mcplogs(tmp.path());
    c.env("MCPLOGS_CACHE_DIR", &cache)
        .arg("hook")
        .arg("--home")
        .arg(tmp.path().join("home"));
    let r = run_with_stdin(&mut c, input.as_bytes());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let text = doc["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        text.chars().count() <= mcplogs::status::HOOK_CONTEXT_MAX_CHARS,
        "{} characters",
        text.chars().count()
    );
    assert!(
        text.contains("+115 more: run `mcplogs scan --home "),
        "{text}"
    );
    assert_eq!(
        text.matches("srv-").count(),
        mcplogs::status::HOOK_NAMED_MAX,
        "{text}"
    );
    assert!(text.contains("Do not call or pretend"), "{text}");
    // Told once: the next prompt says nothing more about them.
    let r = run_with_stdin(&mut c, input.as_bytes());
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
}

fn report_json_in(home: &Path, server: &str) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    run(mcplogs(tmp.path())
        .args(["report", "--json", "--home"])
        .arg(home)
        .args(["--server", server]))
}

/// Reproduction 10: `report --json` with nothing to report prints one document saying
/// no report was written and why, on exit 0 (nothing fails) and exit 1 (the user's own
/// set-up), and creates no `-o` file.
#[test]
fn report_json_says_nothing_was_written_and_why() {
    let home = samples().join("linux-home");
    let r = report_json_in(&home, "modern-ok");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc = crate::wire::check_output::<mcplogs::json_doc::ReportDocument>("report", &r.stdout);
    assert_eq!(doc["written"], false);
    assert_eq!(doc["notWritten"]["reason"], "no-failure");
    assert!(
        doc["notWritten"]["message"]
            .as_str()
            .unwrap()
            .contains("no MCP server fails"),
        "{doc}"
    );
    assert_eq!(doc["servers"][0]["name"], "modern-ok");

    let r = report_json_in(&home, "missing-cmd");
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc = crate::wire::check_output::<mcplogs::json_doc::ReportDocument>("report", &r.stdout);
    assert_eq!(doc["written"], false);
    assert_eq!(doc["notWritten"]["reason"], "own-setup");
    assert!(
        doc["servers"][0]["recommendation"]
            .as_str()
            .unwrap()
            .contains("install it"),
        "{doc}"
    );

    // With -o: the document still goes to stdout, and no file is made.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r.json");
    let r = run(mcplogs(tmp.path())
        .args(["report", "--json", "--home"])
        .arg(&home)
        .args(["--server", "missing-cmd", "-o"])
        .arg(&out));
    assert_eq!(r.code, 1);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["written"], false);
    assert!(!out.exists());

    // A report that is written says so.
    let r = report_json_in(&home, "bad-tool");
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc = crate::wire::check_output::<mcplogs::json_doc::ReportDocument>("report", &r.stdout);
    assert_eq!(doc["written"], true);
    assert_eq!(doc["notWritten"], serde_json::Value::Null);
}

/// Every subcommand with `--json`, in the cases where it has least to say: exit 0 or 1
/// always comes with exactly one JSON document on stdout.
#[test]
fn every_json_flag_prints_one_document_on_exit_0_or_1() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty-home");
    fs::create_dir_all(&empty).unwrap();
    let project = tmp.path().join("project");
    fs::create_dir_all(&project).unwrap();
    let e = empty.to_str().unwrap();
    let p = project.to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["scan", "--json", "--home", e],
        vec!["du", "--json", "--home", e],
        vec!["prune", "--json", "--home", e, "--older-than", "1d"],
        vec![
            "prune",
            "--json",
            "--home",
            e,
            "--older-than",
            "1d",
            "--dry-run",
        ],
        vec!["settings", "--json", "--project", p],
        vec!["probe", "--json", "--project", p],
        vec!["report", "--json", "--home", e, "--force"],
    ];
    for args in cases {
        let mut c = mcplogs(&empty);
        c.current_dir(&project).args(&args);
        let r = run(&mut c);
        assert!(
            r.code == 0 || r.code == 1,
            "{args:?}: exit {}: {}",
            r.code,
            r.stderr
        );
        let mut docs =
            serde_json::Deserializer::from_str(&r.stdout).into_iter::<serde_json::Value>();
        let first = docs.next();
        assert!(
            matches!(first, Some(Ok(serde_json::Value::Object(_)))),
            "{args:?}: stdout is not one JSON document: {:?}\n{}",
            r.stdout,
            r.stderr
        );
        assert!(docs.next().is_none(), "{args:?}: more than one document");
    }
    // explain: one document whatever it recognised (exit 1 here: a failure).
    let r = run_with_stdin(
        mcplogs(&empty).args(["explain", "--json"]),
        "modern-ok: node server.js - \u{2714} Connected\n".as_bytes(),
    );
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let _: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
}

/// `prune --json` on a terminal, declined: exit 0 with its one document (the plan,
/// nothing done) on stdout, and nothing deleted.
#[test]
fn prune_json_declined_on_a_terminal_still_prints_its_document() {
    use rexpect::session::spawn_command;
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("linux-home");
    copy_tree(&samples().join("linux-home"), &home);
    age_all(&home, 3);
    let files = || {
        walkdir::WalkDir::new(&home)
            .into_iter()
            .filter(|e| e.as_ref().unwrap().file_type().is_file())
            .count()
    };
    let before = files();
    let out = tmp.path().join("stdout.json");
    let mut c = mcplogs(tmp.path());
    c.stdin(std::process::Stdio::inherit())
        .stdout(fs::File::create(&out).unwrap());
    c.args(["prune", "--json", "--home"]).arg(&home);
    let mut p = spawn_command(c, Some(20_000)).unwrap();
    p.exp_string("Delete ").unwrap();
    p.send_line("n").unwrap();
    p.exp_string("nothing deleted").unwrap();
    p.exp_eof().unwrap();
    match p.process().wait().unwrap() {
        rexpect::process::WaitStatus::Exited(_, code) => assert_eq!(code, 0),
        other => panic!("{other:?}"),
    }
    assert_eq!(files(), before);
    let text = fs::read_to_string(&out).unwrap();
    let doc = crate::wire::check_output::<mcplogs::json_doc::PruneDocument>("prune", &text);
    assert!(doc["files"].as_u64().unwrap() > 0, "{doc}");
    assert_eq!(doc["deleted"], serde_json::Value::Null, "{doc}");
}
