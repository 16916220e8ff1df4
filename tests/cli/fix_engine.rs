//! Issue 53: the fix engine. Each cause a local file fixes, replayed from a real build's
//! log (tests/fixtures/fix-engine/): `mcplogs fix --yes` from another folder writes the
//! declared change (and says for which server and why), `scan` then says already fixed,
//! `fix --undo` gives every file back byte for byte and leaves nothing behind.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::*;

struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
    managed: PathBuf,
    proj: PathBuf,
    elsewhere: PathBuf,
    /// A folder on the user's PATH (not Claude Code's).
    tools: PathBuf,
}

impl Home {
    fn new() -> Home {
        let dir = fixed_length_tempdir();
        let base = dir.path().join("a home");
        let home = base.join("me");
        let managed = base.join("managed");
        let proj = home.join("work/proj");
        let elsewhere = base.join("elsewhere");
        let tools = base.join("tools");
        for d in [&home, &managed, &proj, &elsewhere, &tools] {
            fs::create_dir_all(d).unwrap();
        }
        fs::create_dir_all(home.join(".claude")).unwrap();
        Home {
            _dir: dir,
            home,
            managed,
            proj,
            elsewhere,
            tools,
        }
    }

    /// The fixture's failing session, recorded as run in the project, as server `name`.
    fn log(&self, fixture: &str, name: &str) {
        self.log_in(&self.proj.clone(), fixture, name);
    }

    /// The fixture's session, recorded as run in `proj`, as server `name`.
    fn log_in(&self, proj: &Path, fixture: &str, name: &str) {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fix-engine")
            .join(fixture);
        let cwd = serde_json::to_string(&proj.display().to_string()).unwrap();
        let text = fs::read_to_string(src)
            .unwrap()
            .replace("\"/PROJECT\"", &cwd);
        let slug: String = proj
            .display()
            .to_string()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let d = self
            .home
            .join(".cache/claude-cli-nodejs")
            .join(slug)
            .join(format!("mcp-logs-{name}"));
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("2026-12-05T17-55-35-642Z.jsonl"), text).unwrap();
    }

    fn claude_json(&self, servers: serde_json::Value) -> String {
        let doc = serde_json::json!({
            "hasCompletedOnboarding": true,
            "mcpServers": servers,
            "projects": { self.proj.display().to_string(): { "hasTrustDialogAccepted": true } },
        });
        let text = serde_json::to_string_pretty(&doc).unwrap() + "\n";
        fs::write(self.home.join(".claude.json"), &text).unwrap();
        text
    }

    fn tool(&self, dir: &Path, name: &str) -> PathBuf {
        fs::create_dir_all(dir).unwrap();
        let p = dir.join(name);
        write_program(&p, "#!/bin/sh\nexit 0\n");
        p
    }

    fn run(&self, cwd: &Path, args: &[&str]) -> Output {
        self.run_env(cwd, args, &[])
    }

    /// [`Home::run`] with variables set in mcplogs' own environment.
    fn run_env(&self, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mcplogs"));
        let path = std::env::join_paths([
            self.tools.as_path(),
            Path::new("/usr/bin"),
            Path::new("/bin"),
        ])
        .unwrap();
        c.args(args)
            .arg("--managed-dir")
            .arg(&self.managed)
            .env_clear()
            .env("PATH", path)
            .env("HOME", &self.home)
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("NO_COLOR", "1")
            .current_dir(cwd)
            .stdin(Stdio::null());
        c.envs(env.iter().copied());
        clock_env(&mut c);
        c.output().unwrap()
    }

    fn fix(&self, cwd: &Path, extra: &[&str]) -> Output {
        let mut args = vec!["fix"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--claude-version", "2.1.332"]);
        self.run(cwd, &args)
    }

    /// Every file of the home and the project (not the logs), with its bytes.
    fn files(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        for d in [
            self.home.clone(),
            self.home.join(".claude"),
            self.proj.clone(),
            self.proj.join(".claude"),
            self.elsewhere.clone(),
        ] {
            let Ok(entries) = fs::read_dir(&d) else {
                continue;
            };
            for p in entries.map(|e| e.unwrap().path()).filter(|p| p.is_file()) {
                let bytes = fs::read(&p).unwrap();
                out.push((p, bytes));
            }
        }
        out.sort();
        out
    }
}

/// After a fix: `scan` says it is in place, undo from another folder gives every file
/// back byte for byte (records and backups gone).
fn scan_then_undo(h: &Home, before: &[(PathBuf, Vec<u8>)], in_place: bool) {
    if in_place {
        let scan = h.run(&h.elsewhere, &["scan"]);
        let text = format!("{}{}", stdout(&scan), stderr(&scan));
        assert!(
            text.contains("already fixed (restart Claude Code to check)"),
            "{text}"
        );
    }
    let undo = h.run(&h.elsewhere, &["fix", "--undo", "--yes"]);
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert_eq!(h.files(), before, "{}", stderr(&undo));
}

fn far(command: &str) -> serde_json::Value {
    serde_json::json!({ "far": { "type": "stdio", "command": command, "args": [] } })
}

#[cfg(unix)]
#[test]
fn a_command_not_on_claude_codes_path_gets_the_one_absolute_path_on_the_users() {
    for build in ["2.1.288", "2.1.332"] {
        let h = Home::new();
        h.log(&format!("path-{build}.jsonl"), "far");
        h.claude_json(far("farstub"));
        let exe = h.tool(&h.tools, "farstub");
        let before = h.files();
        let out = h.fix(&h.elsewhere, &["--yes"]);
        let err = stderr(&out);
        assert!(out.status.success(), "{build}: {err}");
        assert!(
            err.contains("For far (") && err.contains("(command-path)"),
            "{err}"
        );
        // one diff of ~/.claude.json: the command and nothing else
        let diff = stdout(&out);
        assert_eq!(diff.matches("+++ ").count(), 1, "{diff}");
        assert_eq!(
            diff.lines()
                .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
                .count(),
            1,
            "{diff}"
        );
        let doc: serde_json::Value =
            serde_json::from_slice(&fs::read(h.home.join(".claude.json")).unwrap()).unwrap();
        assert_eq!(
            doc["mcpServers"]["far"]["command"],
            exe.display().to_string()
        );
        scan_then_undo(&h, &before, true);
    }
}

#[cfg(unix)]
#[test]
fn two_commands_of_that_name_are_the_users_choice_and_command_path_makes_it() {
    let h = Home::new();
    h.log("path-2.1.332.jsonl", "far");
    let text = h.claude_json(far("farstub"));
    h.tool(&h.tools, "farstub");
    // a second folder on PATH with another one
    let other = h.tools.join("more");
    let second = h.tool(&other, "farstub");
    let mut c = Command::new(env!("CARGO_BIN_EXE_mcplogs"));
    let path =
        std::env::join_paths([h.tools.as_path(), other.as_path(), Path::new("/usr/bin")]).unwrap();
    c.args([
        "fix",
        "--yes",
        "--claude-version",
        "2.1.332",
        "--managed-dir",
    ])
    .arg(&h.managed)
    .env_clear()
    .env("PATH", path)
    .env("HOME", &h.home)
    .env("XDG_CACHE_HOME", h.home.join(".cache"))
    .env("NO_COLOR", "1")
    .current_dir(&h.elsewhere)
    .stdin(Stdio::null());
    let out = c.output().unwrap();
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("Only you can fix far"), "{err}");
    assert!(err.contains("2 programs named `farstub`"), "{err}");
    assert!(err.contains("mcplogs fix --command-path PATH far"), "{err}");
    assert_eq!(
        fs::read_to_string(h.home.join(".claude.json")).unwrap(),
        text
    );
    // named: that one
    let second_s = second.display().to_string();
    let out = h.fix(&h.elsewhere, &["far", "--command-path", &second_s, "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value =
        serde_json::from_slice(&fs::read(h.home.join(".claude.json")).unwrap()).unwrap();
    assert_eq!(doc["mcpServers"]["far"]["command"], second_s);
}

#[cfg(unix)]
#[test]
fn command_path_must_be_an_absolute_executable_file_and_another_name_is_said() {
    let h = Home::new();
    h.log("path-2.1.332.jsonl", "far");
    let text = h.claude_json(far("farstub"));
    let plain = h.tools.join("plain");
    fs::write(&plain, "not a program").unwrap();
    let missing = h.tools.join("nonexistent/farstub");
    for (bad, why) in [
        (missing.display().to_string(), "cannot be read"),
        ("tools/farstub".to_string(), "not an absolute path"),
        (plain.display().to_string(), "not executable"),
        (h.tools.display().to_string(), "not a regular file"),
    ] {
        let out = h.fix(&h.elsewhere, &["far", "--command-path", &bad, "--yes"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(
            err.contains("--command-path") && err.contains(why),
            "{bad}: {err}"
        );
        assert_eq!(
            fs::read_to_string(h.home.join(".claude.json")).unwrap(),
            text,
            "{bad}"
        );
    }
    // another program's name: accepted, and said plainly
    let other = h.tool(&h.tools, "farstub2");
    let other_s = other.display().to_string();
    let out = h.fix(
        &h.elsewhere,
        &["far", "--command-path", &other_s, "--dry-run"],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("you named") && err.contains("a program named `farstub2`, not `farstub`"),
        "{err}"
    );
    assert!(!err.contains("is the one on yours"), "{err}");
}

#[test]
fn fix_name_unknown_is_an_error_and_nothing_to_change_is_said_without_a_legacy_diff() {
    let h = Home::new();
    h.log("path-2.1.332.jsonl", "far");
    // far's command is on no PATH (only the user can), quiet is configured and healthy
    let mut servers = far("farstub");
    servers["quiet"] = serde_json::json!({ "type": "stdio", "command": "true", "args": [] });
    h.claude_json(servers);
    let before = h.files();
    let out = h.fix(&h.elsewhere, &["nonexist", "--dry-run"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no server \"nonexist\""), "{err}");
    assert!(!stdout(&out).contains("+++ "), "{}", stdout(&out));
    for name in ["far", "quiet"] {
        let out = h.fix(&h.elsewhere, &[name, "--dry-run"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{name}: {err}");
        assert!(
            err.contains(&format!("nothing mcplogs fix can change for {name}")),
            "{err}"
        );
        assert!(!stdout(&out).contains("+++ "), "{name}: {}", stdout(&out));
        assert!(!err.contains("MCP_PROTOCOL_NEGOTIATION"), "{name}: {err}");
        let out = h.fix(&h.elsewhere, &[name, "--yes"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(&format!("nothing mcplogs fix can change for {name}")),
            "{err}"
        );
        assert!(!err.contains("--force"), "{name}: {err}");
    }
    assert!(stderr(&h.fix(&h.elsewhere, &["far", "--dry-run"])).contains("Only you can fix far"));
    // plain fix with nothing fixable: no legacy diff either
    let out = h.fix(&h.elsewhere, &["--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stdout(&out).contains("+++ "), "{}", stdout(&out));
    assert_eq!(h.files(), before);
}

#[cfg(unix)]
#[test]
fn a_build_outside_the_observed_ones_gets_no_fix_and_is_told_so() {
    let h = Home::new();
    h.log("path-2.1.332.jsonl", "far");
    let text = h.claude_json(far("farstub"));
    h.tool(&h.tools, "farstub");
    let out = h.run(
        &h.elsewhere,
        &["fix", "--yes", "--claude-version", "2.1.340"],
    );
    let err = stderr(&out);
    assert!(
        err.contains(
            "observed to work on Claude Code 2.1.287 to 2.1.336; this machine runs 2.1.340"
        ),
        "{err}"
    );
    assert_eq!(
        fs::read_to_string(h.home.join(".claude.json")).unwrap(),
        text
    );
}

#[cfg(unix)]
#[test]
fn dry_run_shows_the_plan_and_writes_nothing() {
    let h = Home::new();
    h.log("path-2.1.332.jsonl", "far");
    h.claude_json(far("farstub"));
    h.tool(&h.tools, "farstub");
    let before = h.files();
    let out = h.fix(&h.elsewhere, &["--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("+      \"command\": \""),
        "{}",
        stdout(&out)
    );
    assert_eq!(h.files(), before);
}

#[test]
fn a_settings_file_with_a_comment_is_refused_and_left_alone() {
    let h = Home::new();
    h.log("timeout-2.1.332.jsonl", "slow");
    h.claude_json(
        serde_json::json!({ "slow": { "type": "stdio", "command": "python3", "args": ["s.py"] } }),
    );
    // Claude Code ignores this file whole: the fix would go there, and is refused
    let user = h.home.join(".claude/settings.json");
    fs::write(&user, "{\n  // mine\n  \"theme\": \"dark\",\n}\n").unwrap();
    let before = h.files();
    let out = h.fix(&h.elsewhere, &["--yes"]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("is not strict JSON"), "{err}");
    assert_eq!(h.files(), before, "{err}");
}

#[test]
fn a_server_slower_than_mcp_timeout_gets_a_longer_one_where_it_is_set() {
    for build in ["2.1.288", "2.1.332"] {
        let h = Home::new();
        h.log(&format!("timeout-{build}.jsonl"), "slow");
        h.claude_json(serde_json::json!({ "slow": { "type": "stdio", "command": "python3", "args": ["s.py"] } }));
        let user = h.home.join(".claude/settings.json");
        fs::write(
            &user,
            "{\n  \"env\": {\n    \"MCP_TIMEOUT\": \"3000\"\n  },\n  \"theme\": \"dark\"\n}\n",
        )
        .unwrap();
        let before = h.files();
        let out = h.fix(&h.elsewhere, &["--yes"]);
        let err = stderr(&out);
        assert!(out.status.success(), "{build}: {err}");
        assert!(
            err.contains("For slow (") && err.contains("(longer-timeout)"),
            "{err}"
        );
        assert_eq!(
            fs::read_to_string(&user).unwrap(),
            "{\n  \"env\": {\n    \"MCP_TIMEOUT\": \"60000\"\n  },\n  \"theme\": \"dark\"\n}\n"
        );
        scan_then_undo(&h, &before, true);
    }
}

/// The hand edit scan advises for a slow server when nothing does it for the user.
const HAND_EDIT: &str = "in the env block of your Claude Code settings";

#[test]
fn scan_counts_and_advises_the_timeout_fix_as_fix_plans_it_before_and_after() {
    let h = Home::new();
    h.log("timeout-2.1.332.jsonl", "slow");
    h.claude_json(
        serde_json::json!({ "slow": { "type": "stdio", "command": "python3", "args": ["s.py"] } }),
    );
    let user = h.home.join(".claude/settings.json");
    fs::write(
        &user,
        "{\n  \"env\": {\n    \"MCP_TIMEOUT\": \"3000\"\n  }\n}\n",
    )
    .unwrap();
    let scan = |h: &Home| {
        let out = h.run(&h.elsewhere, &["scan"]);
        (stdout(&out), stderr(&out))
    };
    let (screen, notes) = scan(&h);
    let summary = screen.lines().next().unwrap();
    assert!(
        summary.contains("1 can be fixed with `mcplogs fix`"),
        "{screen}"
    );
    assert!(
        screen.contains("Run `mcplogs fix` (longer-timeout)"),
        "{screen}"
    );
    assert!(!screen.contains(HAND_EDIT), "{screen}");
    // said once, in What to do: never repeated on stderr
    assert!(!notes.contains("can fix it"), "{notes}");
    let out = h.fix(&h.elsewhere, &["--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (screen, notes) = scan(&h);
    let summary = screen.lines().next().unwrap();
    assert!(summary.contains("1 already fixed"), "{screen}");
    assert!(!summary.contains("can be fixed"), "{screen}");
    assert!(screen.contains("Already fixed"), "{screen}");
    assert!(!screen.contains(HAND_EDIT), "{screen}");
    assert!(!notes.contains("already fixed"), "{notes}");
}

#[cfg(unix)]
#[test]
fn scan_never_calls_fixable_what_fix_refuses_to_write() {
    let h = Home::new();
    h.log("timeout-2.1.332.jsonl", "slow");
    h.claude_json(
        serde_json::json!({ "slow": { "type": "stdio", "command": "python3", "args": ["s.py"] } }),
    );
    mkfifo(&h.home.join(".claude/settings.json"));
    let out = h.fix(&h.elsewhere, &["--dry-run"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = h.run(&h.elsewhere, &["scan"]);
    let (screen, notes) = (stdout(&out), stderr(&out));
    assert!(
        !screen.lines().next().unwrap().contains("can be fixed"),
        "{screen}"
    );
    assert!(!screen.contains("Run `mcplogs fix`"), "{screen}");
    assert!(screen.contains(HAND_EDIT), "{screen}");
    assert!(!notes.contains("can fix it"), "{notes}");
    assert!(
        notes.contains("`mcplogs fix` cannot make its change"),
        "{notes}"
    );
}

#[test]
fn the_shared_project_file_setting_mcp_timeout_gets_the_local_file_outranking_it() {
    let h = Home::new();
    h.log("timeout-2.1.332.jsonl", "slow");
    h.claude_json(
        serde_json::json!({ "slow": { "type": "stdio", "command": "python3", "args": ["s.py"] } }),
    );
    fs::create_dir_all(h.proj.join(".claude")).unwrap();
    let shared = "{\"env\": {\"MCP_TIMEOUT\": \"3000\"}}\n";
    fs::write(h.proj.join(".claude/settings.json"), shared).unwrap();
    let before = h.files();
    let out = h.fix(&h.elsewhere, &["--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        fs::read_to_string(h.proj.join(".claude/settings.json")).unwrap(),
        shared
    );
    let local: serde_json::Value =
        serde_json::from_slice(&fs::read(h.proj.join(".claude/settings.local.json")).unwrap())
            .unwrap();
    assert_eq!(local["env"]["MCP_TIMEOUT"], "60000");
    scan_then_undo(&h, &before, false);
}

/// Plain `mcplogs fix` moves a `.mcp.json` server out of `disabledMcpjsonServers` (the
/// approval dialog's Esc writes that list): scan says so beforehand (and its exit code
/// stays 0: a disabled server is not failing); `--except` keeps it off and leaves out
/// every change of the server it names.
/// A disabled `.mcp.json` server whose name holds a secret is shown redacted; the fix
/// must never move the placeholder into the file (the server would stay off and the
/// file would name a server that does not exist): it moves the name as configured, as
/// for a logged one (adversarial G9), and never prints it.
#[test]
fn a_disabled_server_whose_name_holds_a_secret_gets_no_placeholder_written() {
    let name = "tok-ghp_AAAAbbbbCCCCddddEEEEffffGGGGhhhhIIII";
    let h = Home::new();
    h.log("timeout-2.1.332.jsonl", "slow");
    h.claude_json(
        serde_json::json!({ "slow": { "type": "stdio", "command": "python3", "args": ["s.py"] } }),
    );
    fs::write(
        h.proj.join(".mcp.json"),
        serde_json::json!({ "mcpServers": { name: { "command": "python3", "args": ["s.py"] } } })
            .to_string(),
    )
    .unwrap();
    fs::create_dir_all(h.proj.join(".claude")).unwrap();
    let local = h.proj.join(".claude/settings.local.json");
    fs::write(
        &local,
        serde_json::json!({ "disabledMcpjsonServers": [name] }).to_string(),
    )
    .unwrap();
    let out = h.fix(&h.elsewhere, &["--yes"]);
    let err = stderr(&out);
    assert!(!err.contains(name), "the secret is never printed: {err}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains(name));
    let after = fs::read_to_string(&local).unwrap();
    assert!(!after.contains("REDACTED"), "{after}");
    let v: serde_json::Value = serde_json::from_str(&after).unwrap();
    assert_eq!(
        v["enabledMcpjsonServers"],
        serde_json::json!([name]),
        "{err}"
    );
    assert_eq!(v["disabledMcpjsonServers"], serde_json::json!([]), "{err}");
}

/// A `~/.claude.json` written on one line: the diff's one changed line holds every
/// server's `env`; a value the configuration marks as secret (random-looking, under a
/// key that says nothing) is hidden there as `scan` hides it, in the dry run, in the
/// confirmed run, and in the undo's diff (adversarial F16).
#[test]
fn the_diff_of_a_compact_file_hides_the_configured_secrets() {
    let secret = "Xr7Tb2Qm9Kd4Lp6Vn3Ws";
    let h = Home::new();
    h.log("timeout-2.1.332.jsonl", "slow");
    let doc = serde_json::json!({
        "hasCompletedOnboarding": true,
        "mcpServers": { "slow": { "type": "stdio", "command": "python3", "args": ["s.py"] } },
        "projects": { h.proj.display().to_string(): {
            "hasTrustDialogAccepted": true,
            "disabledMcpjsonServers": ["off"],
            "mcpServers": { "loc": { "command": "python3", "args": ["s.py"],
                "env": { "FOO_SETTING": secret } } },
        } },
    });
    fs::write(h.home.join(".claude.json"), doc.to_string()).unwrap();
    fs::write(
        h.proj.join(".mcp.json"),
        r#"{"mcpServers":{"off":{"command":"python3","args":["s.py"]}}}"#,
    )
    .unwrap();
    let before = h.files();
    let out = h.fix(&h.proj, &["--dry-run"]);
    let (o, e) = (String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert_eq!(h.files(), before);
    // the dry run shows the change of the one line, the secret hidden
    assert!(
        o.contains("\"FOO_SETTING\":\"[REDACTED:config]\""),
        "{o}{e}"
    );
    assert!(!o.contains(secret) && !e.contains(secret), "{o}{e}");
    let out = h.fix(&h.proj, &["--yes"]);
    let (o, e) = (String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{e}");
    assert!(!o.contains(secret) && !e.contains(secret), "{o}{e}");
    assert!(
        fs::read_to_string(h.home.join(".claude.json"))
            .unwrap()
            .contains(secret)
    );
    let out = h.fix(&h.proj, &["--undo", "--yes"]);
    let (o, e) = (String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{e}");
    assert!(o.contains("[REDACTED:config]"), "{o}{e}");
    assert!(!o.contains(secret) && !e.contains(secret), "{o}{e}");
}

/// A plain word after a secret flag in a server's `args` (`--password
/// horsebatterystaplez`, `--token=quietmeadowlark`) is a configured secret: the diff's
/// context shows the args, hidden as `scan` hides them (helper-92 #4: shown verbatim);
/// the switch and the flags stay.
#[cfg(unix)]
#[test]
fn the_diff_hides_a_plain_word_after_a_secret_flag_as_a_configured_secret() {
    let h = Home::new();
    h.log("path-2.1.332.jsonl", "far");
    // (the args right before the command: the diff's context lines)
    h.claude_json(serde_json::json!({ "far": { "type": "stdio",
        "args": ["--stdio", "--password", "horsebatterystaplez", "--token=quietmeadowlark"],
        "command": "farstub" } }));
    h.tool(&h.tools, "farstub");
    let out = h.fix(&h.elsewhere, &["--dry-run"]);
    let (o, e) = (stdout(&out), stderr(&out));
    assert!(out.status.success(), "{e}");
    assert!(o.contains("+++ "), "no diff: {o}{e}");
    for secret in ["horsebatterystaplez", "quietmeadowlark"] {
        assert!(!o.contains(secret) && !e.contains(secret), "{o}{e}");
    }
    for kept in ["\"[REDACTED:config]\",\n", "\"--token=[REDACTED:"] {
        assert!(o.contains(kept), "{kept}: {o}");
    }
}

#[test]
fn plain_fix_enables_a_disabled_mcpjson_server_and_except_keeps_it_off() {
    let h = Home::new();
    // a server of the project that ran (the scan knows the project by its log)
    h.log("timeout-2.1.332.jsonl", "slow");
    h.claude_json(
        serde_json::json!({ "slow": { "type": "stdio", "command": "python3", "args": ["s.py"] } }),
    );
    fs::write(
        h.proj.join(".mcp.json"),
        "{\n  \"mcpServers\": {\n    \"p-off\": {\n      \"command\": \"python3\",\n      \"args\": [\"s.py\"]\n    }\n  }\n}\n",
    )
    .unwrap();
    fs::create_dir_all(h.proj.join(".claude")).unwrap();
    let local = h.proj.join(".claude/settings.local.json");
    fs::write(
        &local,
        "{\n  \"disabledMcpjsonServers\": [\n    \"p-off\"\n  ]\n}\n",
    )
    .unwrap();
    let before = h.files();
    // scan: fixable by `mcplogs fix`, in the text, the JSON row and its recommendation
    let scan = h.run(&h.proj, &["scan", "--server", "p-off", "--json"]);
    assert_eq!(scan.status.code(), Some(0), "{}", stderr(&scan));
    let doc: serde_json::Value = serde_json::from_slice(&scan.stdout).unwrap();
    let row = doc["configured"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "p-off")
        .unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(row["state"], "disabled");
    assert_eq!(row["fix"]["fixable"], true, "{row:#}");
    assert_eq!(row["fix"]["changes"][0]["cause"], "enable-mcpjson-server");
    assert_eq!(row["fix"]["changes"][0]["state"], "planned");
    assert!(
        row["recommendation"]
            .as_str()
            .unwrap()
            .starts_with("Run `mcplogs fix` (enable-mcpjson-server)"),
        "{row:#}"
    );
    let text = h.run(&h.proj, &["scan", "--server", "p-off"]);
    assert!(
        stdout(&text).contains("can be fixed with `mcplogs fix`"),
        "{}",
        stdout(&text)
    );
    // --except p-off: only the other server's change
    let out = h.fix(&h.elsewhere, &["--except", "p-off", "--dry-run"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("(longer-timeout)"), "{err}");
    assert!(!err.contains("enable-mcpjson-server"), "{err}");
    assert!(
        !stdout(&out).contains("enabledMcpjsonServers"),
        "{}",
        stdout(&out)
    );
    // an unknown name is refused, as `fix NAME` refuses one
    let out = h.fix(&h.elsewhere, &["--except", "nobody", "--dry-run"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // plain fix (the other server left out) from another folder: moved, and why
    let out = h.fix(&h.elsewhere, &["--except", "slow", "--yes"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("For p-off (") && err.contains("(enable-mcpjson-server)"),
        "{err}"
    );
    assert!(
        err.contains("Esc or \"Continue without\" writes that list")
            && err.contains("mcplogs fix --except=p-off"),
        "{err}"
    );
    assert!(!err.contains("longer-timeout"), "{err}");
    assert_eq!(
        fs::read_to_string(&local).unwrap(),
        "{\n  \"enabledMcpjsonServers\": [\n    \"p-off\"\n  ],\n  \"disabledMcpjsonServers\": []\n}\n"
    );
    scan_then_undo(&h, &before, false);
}

/// `disabledMcpServers` (the /mcp toggle in ~/.claude.json) is a deliberate off: plain
/// `mcplogs fix` never touches it.
#[test]
fn plain_fix_leaves_a_server_turned_off_with_mcp_alone() {
    let h = Home::new();
    h.log("timeout-2.1.332.jsonl", "slow");
    let proj = h.proj.display().to_string();
    let doc = serde_json::json!({
        "hasCompletedOnboarding": true,
        "mcpServers": { "u-off": { "command": "python3", "args": ["s.py"] } },
        "projects": { proj.clone(): {
            "hasTrustDialogAccepted": true,
            "disabledMcpServers": ["u-off"],
        } },
    });
    let text = serde_json::to_string_pretty(&doc).unwrap() + "\n";
    fs::write(h.home.join(".claude.json"), &text).unwrap();
    assert_eq!(state_of(&h, "u-off"), "disabled");
    let out = h.fix(&h.elsewhere, &["--except", "slow", "--yes"]);
    let err = stderr(&out);
    assert!(!err.contains("enable-mcpjson-server"), "{err}");
    assert_eq!(
        fs::read_to_string(h.home.join(".claude.json")).unwrap(),
        text
    );
}

/// The state scan gives configured server `name` (run from the project).
fn state_of(h: &Home, name: &str) -> String {
    let out = h.run(&h.proj, &["scan", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["configured"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {doc:#}"))["state"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_server_disabled_in_claude_json_s_project_entry_is_enabled_there() {
    let h = Home::new();
    h.log("timeout-2.1.332.jsonl", "slow");
    // where Claude Code itself has recorded an Esc: the project's entry of ~/.claude.json
    let proj = h.proj.display().to_string();
    let doc = serde_json::json!({
        "hasCompletedOnboarding": true,
        "mcpServers": {},
        "projects": { proj.clone(): {
            "hasTrustDialogAccepted": true,
            "disabledMcpjsonServers": ["p-off", "p-other"],
        } },
    });
    fs::write(
        h.home.join(".claude.json"),
        serde_json::to_string_pretty(&doc).unwrap() + "\n",
    )
    .unwrap();
    fs::write(
        h.proj.join(".mcp.json"),
        "{\n  \"mcpServers\": {\n    \"p-off\": {\n      \"command\": \"python3\",\n      \"args\": [\"s.py\"]\n    }\n  }\n}\n",
    )
    .unwrap();
    assert_eq!(state_of(&h, "p-off"), "disabled");
    let before = h.files();
    let out = h.fix(&h.elsewhere, &["p-off", "--yes"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("(enable-mcpjson-server)"), "{err}");
    // the dialog writes the local file: this entry is that list's old home (helper-81
    // #8: the two sentences named two places the dialog writes)
    let flat = err.replace('\n', " ");
    assert!(flat.contains("old home of the list"), "{err}");
    let doc: serde_json::Value =
        serde_json::from_slice(&fs::read(h.home.join(".claude.json")).unwrap()).unwrap();
    // moved within the project's entry, never to a top-level key Claude Code ignores
    assert_eq!(doc.get("enabledMcpjsonServers"), None, "{doc:#}");
    assert_eq!(
        doc["projects"][&proj]["disabledMcpjsonServers"],
        serde_json::json!(["p-other"])
    );
    assert_eq!(
        doc["projects"][&proj]["enabledMcpjsonServers"],
        serde_json::json!(["p-off"])
    );
    assert_ne!(state_of(&h, "p-off"), "disabled");
    scan_then_undo(&h, &before, false);
}

#[test]
fn legacy_and_a_longer_timeout_in_one_file_are_one_backup_and_one_record() {
    let h = Home::new();
    h.log("timeout-2.1.332.jsonl", "slow");
    // the legacy fix's sample server (no resultType), in the same project
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
    let src_dir = walkdir::WalkDir::new(samples.join("macos-home"))
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .find(|p| p.ends_with("mcp-logs-no-resulttype"))
        .expect("sample server");
    let mut logs: Vec<PathBuf> = fs::read_dir(&src_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    logs.sort();
    let newest = logs.pop().unwrap();
    let cwd = serde_json::to_string(&h.proj.display().to_string()).unwrap();
    let text = fs::read_to_string(&newest)
        .unwrap()
        .replace("\"/tmp/mcplogs-samples/home-macos/work/web\"", &cwd);
    let slow_dir = fs::read_dir(h.home.join(".cache/claude-cli-nodejs"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let d = slow_dir.join("mcp-logs-no-resulttype");
    fs::create_dir_all(&d).unwrap();
    fs::write(d.join(newest.file_name().unwrap()), text).unwrap();
    h.claude_json(serde_json::json!({
        "slow": { "type": "stdio", "command": "python3", "args": ["s.py"] },
        "no-resulttype": { "type": "stdio", "command": "python3", "args": ["n.py"] },
    }));
    let user = h.home.join(".claude/settings.json");
    fs::write(
        &user,
        "{\n  \"env\": {\n    \"MCP_TIMEOUT\": \"3000\"\n  }\n}\n",
    )
    .unwrap();
    let before = h.files();
    let out = h.fix(&h.elsewhere, &["--yes"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(stdout(&out).matches("+++ ").count(), 1, "{}", stdout(&out));
    let doc: serde_json::Value = serde_json::from_slice(&fs::read(&user).unwrap()).unwrap();
    assert_eq!(doc["env"]["MCP_TIMEOUT"], "60000");
    assert_eq!(doc["env"]["MCP_PROTOCOL_NEGOTIATION"], "legacy");
    let mcplogs_files: Vec<String> = fs::read_dir(h.home.join(".claude"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("mcplogs"))
        .collect();
    assert_eq!(mcplogs_files.len(), 3, "{mcplogs_files:?}"); // backup, record, plan
    scan_then_undo(&h, &before, false);
}

/// The legacy fix's sample server (no resultType), recorded as run in `proj`, as `name`.
fn legacy_log(h: &Home, proj: &Path, name: &str) {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
    let src_dir = walkdir::WalkDir::new(samples.join("macos-home"))
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .find(|p| p.ends_with("mcp-logs-no-resulttype"))
        .expect("sample server");
    let mut logs: Vec<PathBuf> = fs::read_dir(&src_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    logs.sort();
    let newest = logs.pop().unwrap();
    let cwd = serde_json::to_string(&proj.display().to_string()).unwrap();
    let text = fs::read_to_string(&newest)
        .unwrap()
        .replace("\"/tmp/mcplogs-samples/home-macos/work/web\"", &cwd);
    let slug: String = proj
        .display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let d = h
        .home
        .join(".cache/claude-cli-nodejs")
        .join(slug)
        .join(format!("mcp-logs-{name}"));
    fs::create_dir_all(&d).unwrap();
    fs::write(d.join(newest.file_name().unwrap()), text).unwrap();
}

#[test]
fn each_file_of_the_plan_names_only_the_servers_it_covers() {
    let h = Home::new();
    // proj: a slow server and a legacy one, both fixed in the user file
    h.log("timeout-2.1.332.jsonl", "slow");
    legacy_log(&h, &h.proj, "near");
    // web: a legacy server whose committed settings say auto, so its local file is written
    let web = h.home.join("work/web");
    fs::create_dir_all(web.join(".claude")).unwrap();
    fs::write(
        web.join(".claude/settings.json"),
        "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"auto\"\n  }\n}\n",
    )
    .unwrap();
    legacy_log(&h, &web, "farweb");
    let entry = |f: &str| serde_json::json!({ "type": "stdio", "command": "python3", "args": [f] });
    let doc = serde_json::json!({
        "hasCompletedOnboarding": true,
        "mcpServers": { "slow": entry("s.py"), "near": entry("n.py"), "farweb": entry("w.py") },
        "projects": {
            h.proj.display().to_string(): { "hasTrustDialogAccepted": true },
            web.display().to_string(): { "hasTrustDialogAccepted": true },
        },
    });
    fs::write(
        h.home.join(".claude.json"),
        serde_json::to_string_pretty(&doc).unwrap() + "\n",
    )
    .unwrap();
    fs::write(
        h.home.join(".claude/settings.json"),
        "{\n  \"env\": {\n    \"MCP_TIMEOUT\": \"3000\"\n  }\n}\n",
    )
    .unwrap();
    let out = h.fix(&h.elsewhere, &["--dry-run"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(stdout(&out).matches("+++ ").count(), 2, "{}", stdout(&out));
    let legacy_line = err
        .lines()
        .find(|l| l.contains("(legacy-negotiation)"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(legacy_line.contains("near ("), "{legacy_line}");
    assert!(!legacy_line.contains("farweb"), "{legacy_line}");
    let local_line = err
        .lines()
        .find(|l| l.starts_with("Writing ") && l.contains("settings.local.json"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(local_line.contains("(for farweb ("), "{local_line}");
    assert!(!local_line.contains("near"), "{local_line}");
}

#[test]
fn a_tool_name_too_long_is_never_fixed_only_explained_with_a_key_that_fits() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/lifecycle/name-long/2.1.332/mcp-logs-name-long");
    let log = fs::read_dir(&src).unwrap().next().unwrap().unwrap().path();
    let text = fs::read_to_string(&log).unwrap();
    let from = "/tmp/mcplogs-lifecycle-u5mfwqnz/2.1.332/classes/home/work/proj";
    // with the 200-character name: no key fits; with only the 129 one: 8 characters
    let only_129: String = text
        .lines()
        .filter(|l| !l.contains("has 200 characters"))
        .map(|l| format!("{l}\n"))
        .collect();
    for (text, want) in [
        (text.clone(), "no key is short enough".to_string()),
        (
            only_129,
            "at most 8 characters (such as \"name-lon\")".to_string(),
        ),
    ] {
        let h = Home::new();
        let cwd = serde_json::to_string(&h.proj.display().to_string()).unwrap();
        let body = text.replace(&format!("\"{from}\""), &cwd);
        let slug: String = h
            .proj
            .display()
            .to_string()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let d = h
            .home
            .join(".cache/claude-cli-nodejs")
            .join(slug)
            .join("mcp-logs-name-long");
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join(log.file_name().unwrap()), body).unwrap();
        h.claude_json(serde_json::json!({ "name-long": { "type": "stdio", "command": "python3", "args": ["s.py"] } }));
        let before = h.files();
        let out = h.fix(&h.elsewhere, &["--yes"]);
        let err = stderr(&out);
        assert!(err.contains("Only you can fix name-long ("), "{err}");
        assert!(err.contains("mcplogs never renames a server"), "{err}");
        assert!(err.contains(&want), "{want}: {err}");
        assert!(
            err.contains("is in ~/.claude.json") || err.contains("in ~/.claude.json to one"),
            "{err}"
        );
        assert_eq!(h.files(), before, "{err}");
    }
}

#[test]
fn claude_json_keeps_its_mode_and_a_symlinked_one_keeps_its_link() {
    use std::os::unix::fs::PermissionsExt;
    let h = Home::new();
    h.log("path-2.1.332.jsonl", "far");
    let text = h.claude_json(far("farstub"));
    let exe = h.tool(&h.tools, "farstub");
    // a dotfiles repository holds the real file; ~/.claude.json links to it
    let dotfiles = h.home.join("dotfiles");
    fs::create_dir_all(&dotfiles).unwrap();
    let real = dotfiles.join("claude.json");
    fs::rename(h.home.join(".claude.json"), &real).unwrap();
    std::os::unix::fs::symlink(&real, h.home.join(".claude.json")).unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
    let out = h.fix(&h.elsewhere, &["--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let link = fs::symlink_metadata(h.home.join(".claude.json")).unwrap();
    assert!(link.file_type().is_symlink());
    assert_eq!(
        fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let doc: serde_json::Value = serde_json::from_slice(&fs::read(&real).unwrap()).unwrap();
    assert_eq!(
        doc["mcpServers"]["far"]["command"],
        exe.display().to_string()
    );
    let backup = h.home.join(".claude.json.mcplogs-backup");
    assert_eq!(fs::read_to_string(&backup).unwrap(), text);
    assert_eq!(
        fs::metadata(&backup).unwrap().permissions().mode() & 0o077,
        0
    );
    let undo = h.run(&h.elsewhere, &["fix", "--undo", "--yes"]);
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert_eq!(fs::read_to_string(&real).unwrap(), text);
    assert!(
        fs::symlink_metadata(h.home.join(".claude.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(!backup.exists());
}

/// `MCP_PROTOCOL_NEGOTIATION=legacy` in the user file, as `mcplogs fix` writes it.
fn legacy_in_user_file(h: &Home) {
    fs::write(
        h.home.join(".claude/settings.json"),
        "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n  }\n}\n",
    )
    .unwrap();
}

fn stdio(names: &[&str]) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    for n in names {
        m.insert(
            n.to_string(),
            serde_json::json!({ "type": "stdio", "command": "/bin/true", "args": [] }),
        );
    }
    serde_json::Value::Object(m)
}

fn scan_json(h: &Home, cwd: &Path) -> serde_json::Value {
    let out = h.run(cwd, &["scan", "--json"]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)))
}

fn env_of(file: &Path) -> serde_json::Value {
    let doc: serde_json::Value = serde_json::from_slice(&fs::read(file).unwrap()).unwrap();
    doc["env"].clone()
}

/// A server that speaks only the 2026-07-28 protocol, met with the legacy handshake
/// (real 2.1.287 and 2.1.332 runs, both forms: it answered initialize with 2026-07-28,
/// or refused the proposed version with -32602): `modern-only`, and `fix` writes `auto`
/// in its project's local settings, never touching the user file that set `legacy`.
#[test]
fn a_server_that_speaks_only_the_new_protocol_gets_auto_in_its_projects_local_settings() {
    for (fixture, verdict) in [
        ("modern-only-answer-2.1.287.jsonl", "version-unsupported"),
        ("modern-only-answer-2.1.332.jsonl", "version-unsupported"),
        ("modern-only-refused-2.1.287.jsonl", "connection-failed"),
        ("modern-only-refused-2.1.332.jsonl", "connection-failed"),
    ] {
        let h = Home::new();
        h.log(fixture, "newonly");
        h.claude_json(stdio(&["newonly"]));
        legacy_in_user_file(&h);
        let doc = scan_json(&h, &h.elsewhere);
        let s = &doc["servers"][0];
        assert_eq!(s["verdict"], verdict, "{fixture}: {s}");
        assert_eq!(s["cause"], "modern-only", "{fixture}: {s}");
        let before = h.files();
        let user_before = fs::read(h.home.join(".claude/settings.json")).unwrap();
        let out = h.fix(&h.elsewhere, &["--yes"]);
        let err = stderr(&out);
        assert!(out.status.success(), "{fixture}: {err}");
        assert!(err.contains("(modern-negotiation)"), "{fixture}: {err}");
        let local = h.proj.join(".claude/settings.local.json");
        assert_eq!(
            env_of(&local)["MCP_PROTOCOL_NEGOTIATION"],
            "auto",
            "{fixture}"
        );
        assert_eq!(
            fs::read(h.home.join(".claude/settings.json")).unwrap(),
            user_before,
            "{fixture}: the user file is left as it was"
        );
        scan_then_undo(&h, &before, true);
    }
}

/// `MCP_SDK_GENERATION=v1` outranks `MCP_PROTOCOL_NEGOTIATION` (every build gives the
/// legacy handshake under it): `auto` would change nothing for a server that speaks only
/// the new protocol, so `fix` writes nothing for it and names the variable to take out.
#[test]
fn the_new_protocols_fix_is_not_written_while_sdk_generation_v1_outranks_it() {
    let h = Home::new();
    h.log("modern-only-answer-2.1.332.jsonl", "newonly");
    h.claude_json(stdio(&["newonly"]));
    fs::write(
        h.home.join(".claude/settings.json"),
        "{\n  \"env\": {\n    \"MCP_SDK_GENERATION\": \"v1\"\n  }\n}\n",
    )
    .unwrap();
    let before = h.files();
    let out = h.fix(&h.elsewhere, &["--yes"]);
    let err = stderr(&out);
    assert!(!err.contains("(modern-negotiation)"), "{err}");
    assert!(err.contains("MCP_SDK_GENERATION=v1"), "{err}");
    assert_eq!(h.files(), before, "nothing written: {err}");
}

/// A home copied from elsewhere (`--home`) has no environment layer: the variables of
/// the shell mcplogs runs in (here `MCP_SDK_GENERATION=v1`) decide nothing for it, while
/// on this machine they do.
#[test]
fn the_environment_is_a_layer_on_this_machine_only() {
    let h = Home::new();
    h.log("modern-only-answer-2.1.332.jsonl", "newonly");
    h.claude_json(stdio(&["newonly"]));
    legacy_in_user_file(&h);
    let v1 = [("MCP_SDK_GENERATION", "v1")];
    let here = h.run_env(
        &h.elsewhere,
        &["fix", "--dry-run", "--claude-version", "2.1.332"],
        &v1,
    );
    let err = stderr(&here);
    assert!(err.contains("MCP_SDK_GENERATION=v1 (environment)"), "{err}");
    assert!(!err.contains("(modern-negotiation)"), "{err}");
    let home = h.home.display().to_string();
    let copied = h.run_env(
        &h.elsewhere,
        &[
            "fix",
            "--home",
            &home,
            "--dry-run",
            "--claude-version",
            "2.1.332",
        ],
        &v1,
    );
    let err = stderr(&copied);
    assert!(err.contains("(modern-negotiation)"), "{err}");
    assert!(!err.contains("MCP_SDK_GENERATION"), "{err}");
}

/// `oldlist` (fails without the legacy setting) in the home's project and `newonly`
/// (speaks only the new protocol) in `work/other`, each in its own project's local
/// scope (a user-scope server runs in every project), both logged: the other project.
fn with_a_modern_only_neighbour(h: &Home) -> PathBuf {
    let other = h.home.join("work/other");
    fs::create_dir_all(&other).unwrap();
    h.log("legacy-missing-resultType-2.1.301.jsonl", "oldlist");
    h.log_in(&other, "modern-only-answer-2.1.332.jsonl", "newonly");
    let doc = serde_json::json!({
        "hasCompletedOnboarding": true,
        "projects": {
            h.proj.display().to_string(): { "mcpServers": stdio(&["oldlist"]) },
            other.display().to_string(): { "mcpServers": stdio(&["newonly"]) },
        },
    });
    fs::write(h.home.join(".claude.json"), doc.to_string()).unwrap();
    other
}

/// The legacy setting in the user file would reach every project: not when one of them
/// has a server that speaks only the new protocol. Then it goes into the failing
/// server's own project (and that server's project gets `auto`), and scan names the
/// same file as fix.
#[test]
fn the_legacy_fix_is_not_global_when_it_would_reach_a_server_that_speaks_only_the_new_protocol() {
    let h = Home::new();
    let other = with_a_modern_only_neighbour(&h);
    let before = h.files();
    let scan = h.run(&h.elsewhere, &["scan"]);
    let text = stdout(&scan);
    let local = h.proj.join(".claude/settings.local.json");
    let user = h.home.join(".claude/settings.json");
    assert!(
        !text.contains("~/.claude/settings.json") && !text.contains(&user.display().to_string()),
        "scan must not send the legacy setting to the user file: {text}"
    );
    let out = h.fix(&h.elsewhere, &["--yes"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("speaks only the new protocol"), "{err}");
    assert!(!user.exists(), "{err}");
    assert_eq!(
        env_of(&local)["MCP_PROTOCOL_NEGOTIATION"],
        "legacy",
        "{err}"
    );
    assert_eq!(
        env_of(&other.join(".claude/settings.local.json"))["MCP_PROTOCOL_NEGOTIATION"],
        "auto",
        "{err}"
    );
    let undo = h.run(&h.elsewhere, &["fix", "--undo", "--yes"]);
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert_eq!(h.files(), before);
    assert!(!other.join(".claude/settings.local.json").exists());
}

/// With no server that speaks only the new protocol, the legacy setting still goes
/// into the user file (it covers every project).
#[test]
fn without_such_a_server_the_legacy_fix_stays_in_the_user_file() {
    let h = Home::new();
    h.log("legacy-missing-resultType-2.1.301.jsonl", "oldlist");
    h.claude_json(stdio(&["oldlist"]));
    let out = h.fix(&h.elsewhere, &["--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        env_of(&h.home.join(".claude/settings.json"))["MCP_PROTOCOL_NEGOTIATION"],
        "legacy"
    );
    assert!(!h.proj.join(".claude/settings.local.json").exists());
}

/// Two servers of one project need opposite values: `fix` writes neither and says why.
#[test]
fn one_project_needing_both_values_gets_neither_and_says_why() {
    let h = Home::new();
    h.log("legacy-missing-resultType-2.1.301.jsonl", "oldlist");
    h.log("modern-only-refused-2.1.332.jsonl", "newonly");
    h.claude_json(stdio(&["oldlist", "newonly"]));
    let before = h.files();
    // scan gives the answer fix gives: no legacy change offered, the conflict said
    let doc = scan_json(&h, &h.elsewhere);
    for s in doc["servers"].as_array().unwrap() {
        let fix = &s["fix"];
        let legacy = fix["changes"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c["cause"] == "legacy-negotiation" && c["state"] == "planned");
        assert!(!legacy, "{s}");
        let said = fix["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|t| t.as_str().unwrap_or("").contains("no value serves both"));
        assert!(said, "{s}");
    }
    let out = h.fix(&h.elsewhere, &["--yes"]);
    let err = stderr(&out);
    assert!(err.contains("no value serves both"), "{err}");
    assert_eq!(h.files(), before, "{err}");
}

/// `probe` of the same server (tests/e2e/modern_only_stub.py, both forms) under the
/// legacy setting gives scan's verdict and cause for the real run's log.
#[test]
fn probe_gives_a_server_that_speaks_only_the_new_protocol_scans_cause() {
    let stub = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/modern_only_stub.py");
    for (fixture, mode) in [
        ("modern-only-answer-2.1.332.jsonl", "answer"),
        ("modern-only-refused-2.1.332.jsonl", "refuse"),
    ] {
        let h = Home::new();
        h.log(fixture, "newonly");
        h.claude_json(serde_json::json!({ "newonly": {
            "type": "stdio", "command": python3(), "args": [stub.display().to_string(), mode]
        }}));
        legacy_in_user_file(&h);
        let scan = scan_json(&h, &h.proj);
        let out = h.run(&h.proj, &["probe", "--json", "--claude-version", "2.1.332"]);
        let probe: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
        let p = &probe["servers"][0]["prediction"];
        assert_eq!(p["verdict"], scan["servers"][0]["verdict"], "{mode}: {p}");
        assert_eq!(p["cause"], "modern-only", "{mode}: {p}");
    }
}

/// A user-scope server runs in every project: one that speaks only the new protocol
/// conflicts with the legacy setting anywhere, so `fix` writes no `legacy`, and
/// `--force` refuses a file that reaches it.
#[test]
fn a_user_scope_server_that_speaks_only_the_new_protocol_blocks_the_legacy_setting_everywhere() {
    let h = Home::new();
    let other = h.home.join("work/other");
    fs::create_dir_all(&other).unwrap();
    h.log("legacy-missing-resultType-2.1.301.jsonl", "oldlist");
    h.log_in(&other, "modern-only-answer-2.1.332.jsonl", "newonly");
    let doc = serde_json::json!({
        "hasCompletedOnboarding": true,
        "mcpServers": stdio(&["newonly"]),
        "projects": { h.proj.display().to_string(): { "mcpServers": stdio(&["oldlist"]) } },
    });
    fs::write(h.home.join(".claude.json"), doc.to_string()).unwrap();
    let before = h.files();
    let out = h.fix(&h.elsewhere, &["--yes"]);
    let err = stderr(&out);
    assert!(err.contains("no value serves both"), "{err}");
    assert!(
        !h.proj.join(".claude/settings.local.json").exists(),
        "{err}"
    );
    // newonly's own project gets `auto` (no server there needs legacy)
    assert_eq!(
        env_of(&other.join(".claude/settings.local.json"))["MCP_PROTOCOL_NEGOTIATION"],
        "auto",
        "{err}"
    );
    // with `auto` in place nothing is left to plan: `--force` asks for the legacy
    // setting anyway, and is refused where it reaches newonly
    let forced = h.fix(&h.proj, &["--yes", "--force"]);
    let err = stderr(&forced);
    assert_eq!(forced.status.code(), Some(2), "{err}");
    assert!(err.contains("it would reach newonly"), "{err}");
    let undo = h.run(&h.elsewhere, &["fix", "--undo", "--yes"]);
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert_eq!(h.files(), before);
}

/// A server of another project that speaks only the new protocol, which the user file
/// would reach too: the legacy setting goes in the failing server's own project's local
/// file, and the plan says why it is not the user file, naming that server and project.
#[test]
fn the_legacy_setting_spares_another_projects_modern_only_server_and_says_why() {
    let h = Home::new();
    with_a_modern_only_neighbour(&h);
    let out = h.fix(&h.elsewhere, &["--yes"]);
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains("not the user file: it would also reach newonly")
            && all.contains("speaks only the new protocol"),
        "{all}"
    );
    assert_eq!(
        env_of(&h.proj.join(".claude/settings.local.json"))["MCP_PROTOCOL_NEGOTIATION"],
        "legacy",
        "{all}"
    );
    let user = h.home.join(".claude/settings.json");
    assert!(
        !user.exists() || !fs::read_to_string(&user).unwrap().contains("legacy"),
        "{all}"
    );
}

/// A project's `.claude/settings.local.json` that is a symbolic link to nothing (a cloned
/// repository can plant one naming any path): `fix` creates no file and no folder
/// through it, and says so.
#[cfg(unix)]
#[test]
fn a_dangling_link_in_a_project_is_never_written_through() {
    let h = Home::new();
    h.log("modern-only-answer-2.1.332.jsonl", "newonly");
    h.claude_json(stdio(&["newonly"]));
    legacy_in_user_file(&h);
    let target = h.elsewhere.join("nowhere/x.json");
    fs::create_dir_all(h.proj.join(".claude")).unwrap();
    std::os::unix::fs::symlink(&target, h.proj.join(".claude/settings.local.json")).unwrap();
    let out = h.fix(&h.elsewhere, &["--yes"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert!(!h.elsewhere.join("nowhere").exists(), "{err}");
}

/// A project whose shared settings set `auto`, with a server the legacy setting cures:
/// the fix goes in the project's `.claude/settings.local.json`.
fn legacy_goes_in_the_local_file(h: &Home, claude_dir: &Path) {
    h.log("legacy-missing-resultType-2.1.301.jsonl", "oldlist");
    h.claude_json(stdio(&["oldlist"]));
    fs::create_dir_all(claude_dir).unwrap();
    fs::write(
        claude_dir.join("settings.json"),
        "{\"env\":{\"MCP_PROTOCOL_NEGOTIATION\":\"auto\"}}\n",
    )
    .unwrap();
}

/// `fix --yes` and `fix --dry-run` from the project refuse (exit 2) naming `link` and
/// where it points; scan (text and JSON) never advises `mcplogs fix` for it and says why.
fn refused_for_the_link(h: &Home, link: &str, to: &str) {
    for args in [&["--yes"][..], &["--dry-run"]] {
        let out = h.fix(&h.proj, args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(link) && err.contains("a symbolic link") && err.contains(to),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("mcplogs writes no file of a project through a link")
                && err.contains("nothing was changed"),
            "{err}"
        );
        assert!(!stderr(&out).contains("Wrote "), "{err}");
    }
    let scan = h.run(&h.proj, &["scan"]);
    let text = format!("{}{}", stdout(&scan), stderr(&scan));
    assert!(!text.contains("Run `mcplogs fix"), "{text}");
    assert!(!text.contains("can be fixed with"), "{text}");
    assert!(
        (text.contains("`mcplogs fix` refuses") || text.contains("`mcplogs fix` cannot make"))
            && text.contains("a symbolic link"),
        "{text}"
    );
    let doc = scan_json(h, &h.proj);
    let server = &doc["servers"][0];
    let change = &server["fix"]["changes"][0];
    assert_eq!(change["state"], "refused", "{server:#}");
    assert!(
        change["refused"]
            .as_str()
            .unwrap()
            .contains("a symbolic link"),
        "{server:#}"
    );
    assert_eq!(server["fix"]["fixable"], false, "{server:#}");
}

/// A project's `.claude/settings.local.json` that is a symbolic link to a file outside
/// the project (a cloned repository can plant one): never written through (before, the
/// file it pointed at got the `env` block while the plan named only the link).
#[cfg(unix)]
#[test]
fn a_project_settings_file_linked_out_of_the_project_is_never_written_through() {
    let h = Home::new();
    legacy_goes_in_the_local_file(&h, &h.proj.join(".claude"));
    let victim = h.elsewhere.join("victim.json");
    fs::write(&victim, "{\"victim\": true}\n").unwrap();
    std::os::unix::fs::symlink(&victim, h.proj.join(".claude/settings.local.json")).unwrap();
    let before = h.files();
    refused_for_the_link(&h, "settings.local.json is a symbolic link", "victim.json");
    assert_eq!(fs::read(&victim).unwrap(), b"{\"victim\": true}\n");
    assert_eq!(h.files(), before);
}

/// A project's `.claude` folder that is a symbolic link to a folder outside it: no file
/// is created there (before: `settings.local.json` and its undo record were).
#[cfg(unix)]
#[test]
fn a_project_claude_folder_linked_out_of_the_project_is_never_written_through() {
    let h = Home::new();
    let outside = h.elsewhere.join("outside");
    legacy_goes_in_the_local_file(&h, &outside);
    std::os::unix::fs::symlink(&outside, h.proj.join(".claude")).unwrap();
    refused_for_the_link(&h, "/work/proj/.claude, a symbolic link", "outside");
    let names: Vec<_> = fs::read_dir(&outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["settings.json"], "nothing created through the link");
}

/// A project's `.mcp.json` that is a symbolic link to a file outside the project: the
/// command's absolute path is not written through it.
#[cfg(unix)]
#[test]
fn a_project_mcp_json_linked_out_of_the_project_is_never_written_through() {
    let h = Home::new();
    h.log("path-2.1.332.jsonl", "far");
    let doc = serde_json::json!({
        "hasCompletedOnboarding": true,
        "projects": { h.proj.display().to_string(): {
            "hasTrustDialogAccepted": true,
            "enabledMcpjsonServers": ["far"],
        } },
    });
    fs::write(h.home.join(".claude.json"), doc.to_string()).unwrap();
    h.tool(&h.tools, "farstub");
    let shared = h.elsewhere.join("shared.json");
    let text =
        serde_json::to_string_pretty(&serde_json::json!({ "mcpServers": far("farstub") })).unwrap();
    fs::write(&shared, &text).unwrap();
    std::os::unix::fs::symlink("../../../elsewhere/shared.json", h.proj.join(".mcp.json")).unwrap();
    assert!(
        fs::metadata(h.proj.join(".mcp.json")).is_ok(),
        "the link resolves"
    );
    let before = h.files();
    refused_for_the_link(&h, ".mcp.json is a symbolic link", "elsewhere/shared.json");
    assert_eq!(fs::read_to_string(&shared).unwrap(), text);
    assert_eq!(h.files(), before);
}

/// `fix --undo` of a project's file whose `.claude` folder became a link since the fix
/// (a `git pull` can bring one): nothing is put back through it, exit 2.
#[cfg(unix)]
#[test]
fn undo_never_puts_back_through_a_link_made_in_the_project_since() {
    let h = Home::new();
    legacy_goes_in_the_local_file(&h, &h.proj.join(".claude"));
    let out = h.fix(&h.proj, &["--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let outside = h.elsewhere.join("outside");
    fs::rename(h.proj.join(".claude"), &outside).unwrap();
    std::os::unix::fs::symlink(&outside, h.proj.join(".claude")).unwrap();
    let files = |d: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        let mut v: Vec<_> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.clone(), fs::read(&p).unwrap()))
            .collect();
        v.sort();
        v
    };
    let before = files(&outside);
    let undo = h.run(&h.proj, &["fix", "--undo", "--yes"]);
    let err = stderr(&undo);
    assert_eq!(undo.status.code(), Some(2), "{err}");
    assert!(
        err.contains(".claude, a symbolic link") && err.contains("nothing was changed"),
        "{err}"
    );
    assert_eq!(files(&outside), before);
}

/// `fix --undo --settings` of a project's shared `.claude/settings.json` that became a
/// link since the fix (a `git pull` moved the file and left a link to it): refused as
/// the fix refuses it, exit 2, naming the link; nothing written through it, and the
/// backup and undo record are kept, named (before: the backup was put back through the
/// link, into the file it points to).
#[cfg(unix)]
#[test]
fn undo_of_a_projects_shared_settings_refuses_a_link_as_the_fix_does() {
    let h = Home::new();
    let shared = h.proj.join(".claude/settings.json");
    fs::create_dir_all(shared.parent().unwrap()).unwrap();
    fs::write(&shared, "{\"model\": \"opus\"}\n").unwrap();
    let file = shared.display().to_string();
    let out = h.run(
        &h.elsewhere,
        &["fix", "--settings", &file, "--yes", "--force"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let fixed = fs::read(&shared).unwrap();
    let victim = h.elsewhere.join("victim.json");
    fs::rename(&shared, &victim).unwrap();
    std::os::unix::fs::symlink(&victim, &shared).unwrap();
    // the fix itself refuses the link now
    let again = h.run(
        &h.elsewhere,
        &["fix", "--settings", &file, "--dry-run", "--force"],
    );
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("is a symbolic link"),
        "{}",
        stderr(&again)
    );
    for args in [&["--dry-run"][..], &["--yes"]] {
        let mut a = vec!["fix", "--undo", "--settings", &file];
        a.extend_from_slice(args);
        let undo = h.run_env(&h.elsewhere, &a, &[("COLUMNS", "80")]);
        let err = stderr(&undo);
        assert_eq!(undo.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("settings.json is a symbolic link")
                && err.contains("victim.json")
                && err.contains("mcplogs writes no file of a project through a link"),
            "{err}"
        );
        assert!(
            err.contains("settings.json.mcplogs-backup")
                && err.contains("settings.json.mcplogs-undo.json")
                && err.contains("Nothing is lost")
                && err.contains("are kept")
                && err.contains("run `mcplogs fix --undo --settings"),
            "{err}"
        );
        assert!(!err.contains("Restored"), "{err}");
        assert_eq!(fs::read(&victim).unwrap(), fixed, "{err}");
        assert!(Path::new(&format!("{file}.mcplogs-undo.json")).exists());
        assert!(Path::new(&format!("{file}.mcplogs-backup")).exists());
    }
    // the link mended (the file back in place): the same command undoes the fix
    fs::remove_file(&shared).unwrap();
    fs::rename(&victim, &shared).unwrap();
    let undo = h.run(
        &h.elsewhere,
        &["fix", "--undo", "--settings", &file, "--yes"],
    );
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert_eq!(
        fs::read_to_string(&shared).unwrap(),
        "{\"model\": \"opus\"}\n"
    );
}

/// A layer above the user file that cannot be read (a FIFO as the project's local
/// settings): `fix --dry-run` and `fix --yes` say which layer could not be read and that
/// whether it sets the key is unknown, and never claim the fix helps there (before:
/// "nothing with higher precedence sets MCP_PROTOCOL_NEGOTIATION" and "The legacy fix
/// helps: oldlist"); `mcplogs settings` says the value is unknown, not "not set".
#[cfg(unix)]
#[test]
fn an_unreadable_higher_layer_makes_the_fix_and_the_setting_unknown_not_passed() {
    let h = Home::new();
    h.log("legacy-missing-resultType-2.1.301.jsonl", "oldlist");
    h.claude_json(stdio(&["oldlist"]));
    fs::create_dir_all(h.proj.join(".claude")).unwrap();
    mkfifo(&h.proj.join(".claude/settings.local.json"));
    let wide = [("COLUMNS", "80")];
    for args in [&["--dry-run"][..], &["--yes"]] {
        let mut a = vec!["fix"];
        a.extend_from_slice(args);
        a.extend_from_slice(&["--claude-version", "2.1.332"]);
        let out = h.run_env(&h.elsewhere, &a, &wide);
        let err = stderr(&out);
        assert!(out.status.success(), "{args:?}: {err}");
        let flat = err.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(!flat.contains("nothing with higher precedence"), "{err}");
        assert!(!flat.contains("The legacy fix helps"), "{err}");
        assert!(
            flat.contains(
                "local settings ~/work/proj/.claude/settings.local.json could not be read"
            ) && flat.contains("FIFO")
                && flat.contains("whether it sets MCP_PROTOCOL_NEGOTIATION is unknown"),
            "{err}"
        );
        assert!(
            flat.contains("this change may not take effect for oldlist"),
            "{err}"
        );
    }
    let out = h.run_env(&h.proj, &["settings"], &wide);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("MCP_PROTOCOL_NEGOTIATION is unknown"),
        "{text}"
    );
    assert!(
        !flat.contains("MCP_PROTOCOL_NEGOTIATION is not set"),
        "{text}"
    );
}

/// The file the legacy setting goes in is a FIFO (adversarial F4): scan, which warns it
/// cannot read it, never advises `mcplogs fix` (which exits 2 there): its text and its
/// JSON recommendation say `fix` refuses the file, and why; the change is `refused`.
#[cfg(unix)]
#[test]
fn scan_never_advises_fix_for_a_settings_file_fix_refuses() {
    let h = Home::new();
    legacy_goes_in_the_local_file(&h, &h.proj.join(".claude"));
    mkfifo(&h.proj.join(".claude/settings.local.json"));
    let scan = h.run(&h.proj, &["scan"]);
    let text = stdout(&scan);
    assert!(!text.contains("Run `mcplogs fix"), "{text}");
    assert!(!text.contains("can be fixed with"), "{text}");
    assert!(
        text.contains("`mcplogs fix` refuses the file that wins there") && text.contains("FIFO"),
        "{text}"
    );
    let doc = scan_json(&h, &h.proj);
    let server = &doc["servers"][0];
    assert_eq!(server["fix"]["fixable"], false, "{server:#}");
    assert_eq!(
        server["fix"]["changes"][0]["state"], "refused",
        "{server:#}"
    );
    assert!(
        server["fix"]["changes"][0]["refused"]
            .as_str()
            .unwrap()
            .contains("FIFO"),
        "{server:#}"
    );
    let rec = server["recommendation"].as_str().unwrap();
    assert!(
        !rec.contains("run `mcplogs fix") && rec.contains("refuses") && rec.contains("FIFO"),
        "{rec}"
    );
    // and fix says the same, exit 2
    let out = h.fix(&h.proj, &["--yes"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("FIFO"), "{}", stderr(&out));
}

/// `fix`'s notes name servers, projects and files, which come from the machine: a token
/// in a project folder's name is hidden there as `scan` hides it.
#[test]
fn a_token_in_a_project_path_is_hidden_in_fixs_notes() {
    let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB";
    let h = Home::new();
    let proj = h.home.join("work").join(token);
    fs::create_dir_all(&proj).unwrap();
    h.log_in(&proj, "modern-only-answer-2.1.332.jsonl", "newonly");
    let doc = serde_json::json!({
        "projects": { proj.display().to_string(): { "mcpServers": stdio(&["newonly"]) } },
    });
    fs::write(h.home.join(".claude.json"), doc.to_string()).unwrap();
    legacy_in_user_file(&h);
    let out = h.fix(&h.elsewhere, &["--dry-run"]);
    let err = stderr(&out);
    assert!(err.contains("(modern-negotiation)"), "{err}");
    assert!(!err.contains(token), "{err}");
    assert!(!stdout(&out).contains(token), "{}", stdout(&out));
}

/// The test's own `python3` (the harness gives mcplogs a short PATH, where it may not be).
fn python3() -> String {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join("python3"))
        .find(|p| p.is_file())
        .map_or_else(|| "python3".to_string(), |p| p.display().to_string())
}

/// A failing server whose project folder no longer exists, that no file outside it can
/// help (the new protocol's fix goes into the project's own local settings): `fix`
/// writes nothing for it and says why (before: no word of it). A user-scope entry's
/// command path is still written (it serves every project).
#[cfg(unix)]
#[test]
fn a_server_of_a_project_folder_that_is_gone_gets_the_reason_nothing_is_written() {
    let h = Home::new();
    let gone = h.home.join("work/gone");
    h.log_in(&gone, "modern-only-answer-2.1.332.jsonl", "newonly");
    h.claude_json(serde_json::json!({ "newonly": { "type": "stdio", "command": "python3", "args": ["m.py"] } }));
    fs::write(
        h.home.join(".claude/settings.json"),
        "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n  }\n}\n",
    )
    .unwrap();
    let before = h.files();
    let out = h.fix(&h.elsewhere, &["--yes"]);
    let err = stderr(&out);
    assert!(
        // (the home shown as `~`, as every note of fix)
        err.contains("Only you can fix newonly (~/work/gone)")
            && err.contains("its project folder ~/work/gone no longer exists on this machine"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(h.files(), before);
    assert!(!gone.exists());
    // a user-scope server's command path serves every project: still written
    let h = Home::new();
    let gone = h.home.join("work/gone");
    h.log_in(&gone, "path-2.1.332.jsonl", "far");
    h.claude_json(far("farstub"));
    h.tool(&h.tools, "farstub");
    let out = h.fix(&h.elsewhere, &["--yes"]);
    assert!(stderr(&out).contains("(command-path)"), "{}", stderr(&out));
}

/// Two projects sharing one `.claude` folder through a symbolic link: their changes of
/// the one `settings.local.json` are one edit (the larger `MCP_TIMEOUT`; the same value
/// once), one backup, one undo record, and the undo gives it back byte for byte
/// (before: both values in the file, and the undo refused).
#[cfg(unix)]
#[test]
fn two_projects_sharing_a_linked_claude_folder_get_one_edit_of_its_file() {
    // (the project with the link first or second: the one edit goes through the project
    // whose `.claude` is a folder, never through the link, which the writer refuses)
    for (limit2, want, linked) in [
        ("3000", "60000", "work/proj2"),
        ("40000", "80000", "work/proj2"),
        ("3000", "60000", "work/a-proj"),
    ] {
        let h = Home::new();
        let proj2 = h.home.join(linked);
        fs::create_dir_all(&proj2).unwrap();
        fs::create_dir_all(h.proj.join(".claude")).unwrap();
        std::os::unix::fs::symlink(h.proj.join(".claude"), proj2.join(".claude")).unwrap();
        let shared = "{\"env\": {\"MCP_TIMEOUT\": \"3000\"}}\n";
        fs::write(h.proj.join(".claude/settings.json"), shared).unwrap();
        h.log("timeout-2.1.332.jsonl", "slow");
        h.log_in(&proj2, "timeout-2.1.332.jsonl", "slow2");
        if limit2 != "3000" {
            // the second server failed with a longer limit (its session's own value)
            for e in walkdir::WalkDir::new(h.home.join(".cache")) {
                let p = e.unwrap().into_path();
                if p.is_file() && p.to_string_lossy().contains("mcp-logs-slow2") {
                    let t = fs::read_to_string(&p).unwrap().replace("3000ms", "40000ms");
                    fs::write(&p, t).unwrap();
                }
            }
        }
        let srv = serde_json::json!({ "type": "stdio", "command": "python3", "args": ["s.py"] });
        h.claude_json(serde_json::json!({ "slow": srv, "slow2": srv }));
        let before = h.files();
        let scan = scan_json(&h, &h.elsewhere);
        assert!(
            !scan.to_string().contains("symbolic link"),
            "{linked}: {scan:#}"
        );
        let out = h.fix(&h.elsewhere, &["--yes"]);
        let err = stderr(&out);
        assert!(out.status.success(), "{linked}: {err}");
        let diff = stdout(&out);
        assert_eq!(diff.matches("+++ ").count(), 1, "{diff}");
        assert!(
            diff.contains("work/proj/.claude/settings.local.json"),
            "{diff}"
        );
        assert_eq!(diff.matches("MCP_TIMEOUT").count(), 1, "{diff}");
        // the one change names both servers
        assert!(
            err.lines().any(|l| l.contains("slow (")
                && l.contains("slow2 (")
                && l.contains("(longer-timeout)")),
            "{err}"
        );
        let local: serde_json::Value =
            serde_json::from_slice(&fs::read(h.proj.join(".claude/settings.local.json")).unwrap())
                .unwrap();
        assert_eq!(local["env"]["MCP_TIMEOUT"], want, "{limit2}: {err}");
        assert_eq!(
            fs::read_dir(h.proj.join(".claude"))
                .unwrap()
                .filter(|e| e
                    .as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .contains("mcplogs"))
                .count(),
            1,
            "one undo record, no backup of a file that was not there"
        );
        scan_then_undo(&h, &before, false);
        assert!(!h.proj.join(".claude/settings.local.json").exists());
    }
}

/// `explain` shows a path under the home folder as `~`, as `scan` shows it (before: the
/// full path where scan said `~`).
#[cfg(unix)]
#[test]
fn explain_shows_paths_under_the_home_as_scan_does() {
    let h = Home::new();
    // its fix goes into ~/.claude/settings.json, a path under the home folder
    h.log("timeout-2.1.332.jsonl", "slow");
    h.claude_json(
        serde_json::json!({ "slow": { "type": "stdio", "command": "python3", "args": ["s.py"] } }),
    );
    let listing = h.elsewhere.join("listing.txt");
    fs::write(
        &listing,
        "Checking MCP server health...\n\nslow: python3 s.py - ✗ Failed to connect\n",
    )
    .unwrap();
    let scan = stdout(&h.run(&h.proj, &["scan", "--server", "slow"]));
    let explain = stdout(&h.run(&h.proj, &["explain", listing.to_str().unwrap()]));
    let full = h.home.display().to_string();
    for (what, text) in [("scan", &scan), ("explain", &explain)] {
        assert!(text.contains("(longer-timeout)"), "{what}: {text}");
        assert!(text.contains("~/.claude/settings.json"), "{what}: {text}");
        assert!(
            !text.contains(&full),
            "{what} shows the home's full path: {text}"
        );
    }
}

/// A `.mcp.json` server with logs from before someone disabled it: scan's row and JSON
/// say `mcplogs fix` enables it (the count agrees), scan still exits 0, and plain `fix`
/// enables it.
#[test]
fn a_logged_server_disabled_since_is_fixable_in_scan_and_enabled_by_plain_fix() {
    let h = Home::new();
    h.log("timeout-2.1.332.jsonl", "p-off");
    h.claude_json(serde_json::json!({}));
    fs::write(
        h.proj.join(".mcp.json"),
        "{\"mcpServers\": {\"p-off\": {\"command\": \"python3\", \"args\": [\"s.py\"]}}}\n",
    )
    .unwrap();
    fs::create_dir_all(h.proj.join(".claude")).unwrap();
    let local = h.proj.join(".claude/settings.local.json");
    fs::write(&local, "{\"disabledMcpjsonServers\": [\"p-off\"]}\n").unwrap();
    let before = h.files();
    let scan = h.run(&h.proj, &["scan", "--json"]);
    assert_eq!(scan.status.code(), Some(0), "{}", stderr(&scan));
    let doc: serde_json::Value = serde_json::from_slice(&scan.stdout).unwrap();
    let s = &doc["servers"][0];
    assert_eq!(s["name"], "p-off", "{doc:#}");
    assert_eq!(s["fix"]["fixable"], true, "{s:#}");
    assert!(
        s["recommendation"]
            .as_str()
            .unwrap()
            .starts_with("Run `mcplogs fix` (enable-mcpjson-server)"),
        "{s:#}"
    );
    let text = h.run(&h.proj, &["scan"]);
    assert_eq!(text.status.code(), Some(0));
    let out = stdout(&text);
    assert!(
        out.contains("1 can be fixed with `mcplogs fix`")
            && out.contains("Run `mcplogs fix` (enable-mcpjson-server)"),
        "{out}"
    );
    let out = h.fix(&h.elsewhere, &["--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&fs::read(&local).unwrap()).unwrap();
    assert_eq!(doc["enabledMcpjsonServers"], serde_json::json!(["p-off"]));
    scan_then_undo(&h, &before, false);
}

/// A `.mcp.json` server the managed settings disable is the administrator's choice:
/// plain `fix` says nothing of it, `fix NAME` says whom to ask, and nothing is written.
#[test]
fn a_server_disabled_by_managed_settings_is_named_only_when_asked_for() {
    let h = Home::new();
    h.log("timeout-2.1.332.jsonl", "slow");
    h.claude_json(
        serde_json::json!({ "slow": { "type": "stdio", "command": "python3", "args": ["s.py"] } }),
    );
    fs::write(
        h.proj.join(".mcp.json"),
        "{\"mcpServers\": {\"p-off\": {\"command\": \"python3\", \"args\": [\"s.py\"]}}}\n",
    )
    .unwrap();
    fs::write(
        h.managed.join("managed-settings.json"),
        "{\"disabledMcpjsonServers\": [\"p-off\"]}\n",
    )
    .unwrap();
    assert_eq!(state_of(&h, "p-off"), "disabled");
    let out = h.fix(&h.elsewhere, &["--dry-run"]);
    let err = stderr(&out);
    assert!(err.contains("(longer-timeout)"), "{err}");
    assert!(!err.contains("p-off"), "{err}");
    let before = h.files();
    let out = h.fix(&h.elsewhere, &["p-off", "--yes"]);
    let err = stderr(&out);
    assert!(
        err.contains("Only you can fix p-off (")
            && err.contains("disables it; ask whoever administers this machine"),
        "{err}"
    );
    assert_eq!(h.files(), before);
}

/// `.mcp.json` servers `p-off`, `p-two` and `p-three`.
fn three_mcpjson_servers(h: &Home) {
    h.log("timeout-2.1.332.jsonl", "slow");
    h.claude_json(
        serde_json::json!({ "slow": { "type": "stdio", "command": "python3", "args": ["s.py"] } }),
    );
    let entry = serde_json::json!({ "command": "python3", "args": ["s.py"] });
    let doc = serde_json::json!({ "mcpServers": {
        "p-off": entry.clone(), "p-two": entry.clone(), "p-three": entry,
    } });
    fs::write(h.proj.join(".mcp.json"), doc.to_string()).unwrap();
    fs::create_dir_all(h.proj.join(".claude")).unwrap();
}

/// The configured row of `name` in `scan --json` (run from the project).
fn row_of(h: &Home, name: &str) -> serde_json::Value {
    let doc = scan_json(h, &h.proj);
    doc["configured"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {doc:#}"))
        .clone()
}

/// A disabled list wins in any layer: a server a managed file (or a managed drop-in)
/// also disables stays off whatever mcplogs writes, so neither plain `fix` nor
/// `fix NAME` plans anything for it, and scan does not count it fixable.
#[test]
fn fix_plans_nothing_for_a_server_a_managed_file_also_disables() {
    let h = Home::new();
    three_mcpjson_servers(&h);
    fs::write(
        h.proj.join(".claude/settings.local.json"),
        "{\"disabledMcpjsonServers\": [\"p-off\", \"p-two\", \"p-three\"]}\n",
    )
    .unwrap();
    fs::write(
        h.managed.join("managed-settings.json"),
        "{\"disabledMcpjsonServers\": [\"p-off\"]}\n",
    )
    .unwrap();
    fs::create_dir_all(h.managed.join("managed-settings.d")).unwrap();
    fs::write(
        h.managed.join("managed-settings.d/10-x.json"),
        "{\"disabledMcpjsonServers\": [\"p-two\"]}\n",
    )
    .unwrap();
    for name in ["p-off", "p-two"] {
        let row = row_of(&h, name);
        assert_eq!(row["state"], "disabled", "{row:#}");
        assert!(row["fix"].is_null(), "{row:#}");
    }
    assert_eq!(row_of(&h, "p-three")["fix"]["fixable"], true);
    let scan = h.run(&h.proj, &["scan"]);
    assert!(
        stdout(&scan).contains("2 can be fixed with `mcplogs fix`"),
        "{}",
        stdout(&scan)
    );
    let before = h.files();
    let out = h.fix(&h.elsewhere, &["--except", "slow", "--dry-run"]);
    let err = stderr(&out);
    assert!(err.contains("For p-three ("), "{err}");
    assert!(
        !err.contains("For p-off (") && !err.contains("For p-two ("),
        "{err}"
    );
    for name in ["p-off", "p-two"] {
        let out = h.fix(&h.elsewhere, &[name, "--yes"]);
        let err = stderr(&out);
        assert!(!err.contains("enable-mcpjson-server"), "{err}");
        assert!(
            err.contains(&format!("Only you can fix {name} ("))
                && err.contains("ask whoever administers this machine"),
            "{err}"
        );
        assert_eq!(h.files(), before, "{err}");
    }
}

/// Plain `fix` enables a server only from where the approval dialog writes the list
/// (the project's settings.local.json, ~/.claude.json's project entry); a name in the
/// shared project file or the user file was put there by someone: only `fix NAME`
/// moves it, with a reason that says so. Disabled in both kinds: plain fix plans
/// nothing for it (it would stay off) and says what `fix NAME` does.
#[test]
fn fix_enables_from_a_shared_or_user_file_only_when_named() {
    let h = Home::new();
    three_mcpjson_servers(&h);
    let local = h.proj.join(".claude/settings.local.json");
    fs::write(
        &local,
        "{\"disabledMcpjsonServers\": [\"p-off\", \"p-three\"]}\n",
    )
    .unwrap();
    let shared = h.proj.join(".claude/settings.json");
    fs::write(&shared, "{\"disabledMcpjsonServers\": [\"p-off\"]}\n").unwrap();
    let user = h.home.join(".claude/settings.json");
    fs::write(&user, "{\"disabledMcpjsonServers\": [\"p-two\"]}\n").unwrap();
    for name in ["p-off", "p-two"] {
        let row = row_of(&h, name);
        assert_eq!(row["state"], "disabled", "{row:#}");
        assert!(row["fix"].is_null(), "{row:#}");
    }
    assert_eq!(row_of(&h, "p-three")["fix"]["fixable"], true);
    let before = h.files();
    let out = h.fix(&h.elsewhere, &["--except", "slow", "--yes"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("For p-three (")
            && !err.contains("For p-off (")
            && !err.contains("For p-two ("),
        "{err}"
    );
    assert!(
        err.contains("Only you can fix p-off (") && err.contains("`mcplogs fix p-off`"),
        "{err}"
    );
    let unchanged = |p: &Path| {
        before
            .iter()
            .find(|(f, _)| f == p)
            .map(|(_, b)| b.clone())
            .unwrap()
    };
    assert_eq!(fs::read(&shared).unwrap(), unchanged(&shared));
    assert_eq!(fs::read(&user).unwrap(), unchanged(&user));
    let doc: serde_json::Value = serde_json::from_slice(&fs::read(&local).unwrap()).unwrap();
    assert_eq!(doc["enabledMcpjsonServers"], serde_json::json!(["p-three"]));
    assert_eq!(doc["disabledMcpjsonServers"], serde_json::json!(["p-off"]));
    let undo = h.run(&h.elsewhere, &["fix", "--undo", "--yes"]);
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert_eq!(h.files(), before);
    // named: moved from the user file, and the reason names who put it there
    let out = h.fix(&h.elsewhere, &["p-two", "--dry-run"]);
    let err = stderr(&out);
    assert!(
        err.contains("For p-two (") && err.contains("someone put it there"),
        "{err}"
    );
    assert!(!err.contains("Esc"), "{err}");
}

/// `fix --project DIR` and `fix --settings FILE` carry the engine's changes that go in
/// that project's files / that file, and say each one they leave out (never the legacy
/// fix's "nothing to write" for a server whose fix is not the legacy setting).
#[test]
fn fix_project_and_settings_carry_the_engines_changes_for_their_files() {
    let h = Home::new();
    three_mcpjson_servers(&h);
    let local = h.proj.join(".claude/settings.local.json");
    fs::write(&local, "{\"disabledMcpjsonServers\": [\"p-three\"]}\n").unwrap();
    let proj = h.proj.display().to_string();
    let before = h.files();
    // --project: the local file's enable is planned and written
    let out = h.fix(
        &h.elsewhere,
        &["--project", &proj, "--except", "slow", "--yes"],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("For p-three ("), "{err}");
    assert!(!err.contains("legacy fix"), "{err}");
    let doc: serde_json::Value = serde_json::from_slice(&fs::read(&local).unwrap()).unwrap();
    assert_eq!(doc["enabledMcpjsonServers"], serde_json::json!(["p-three"]));
    let local_s = local.display().to_string();
    let undo = h.run(
        &h.elsewhere,
        &["fix", "--undo", "--yes", "--settings", &local_s],
    );
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert_eq!(h.files(), before);
    // --settings naming that file: the same change
    let out = h.fix(
        &h.elsewhere,
        &["--settings", &local_s, "--except", "slow", "--dry-run"],
    );
    let err = stderr(&out);
    assert!(
        err.contains("For p-three (") && !err.contains("legacy fix"),
        "{err}"
    );
    assert!(
        stdout(&out).contains("enabledMcpjsonServers"),
        "{}",
        stdout(&out)
    );
    // the timeout's change goes in the user file: said, per server, not written
    for extra in [
        ["--project", proj.as_str()],
        ["--settings", local_s.as_str()],
    ] {
        let out = h.fix(&h.elsewhere, &[extra[0], extra[1], "slow", "--yes"]);
        let err = stderr(&out);
        assert!(out.status.success(), "{err}");
        assert!(
            err.contains("For slow (")
                && err.contains("(longer-timeout): not written: its change goes in"),
            "{err}"
        );
        assert!(!err.contains("legacy fix"), "{err}");
        assert_eq!(h.files(), before, "{err}");
    }
}

/// The `mcplogs scan --server NAME` that `fix NAME` prints for a configured server
/// without a log runs as printed from the same folder (outside the project): scan
/// joins the configuration of the projects whose logs `--server` left out.
#[test]
fn fix_prints_a_scan_server_command_that_runs_as_printed_from_another_folder() {
    let h = Home::new();
    h.log("timeout-2.1.332.jsonl", "slow");
    let proj = h.proj.display().to_string();
    let doc = serde_json::json!({
        "hasCompletedOnboarding": true,
        "mcpServers": {
            "slow": { "type": "stdio", "command": "python3", "args": ["s.py"] },
            "u-off": { "command": "python3", "args": ["s.py"] },
        },
        "projects": { proj: {
            "hasTrustDialogAccepted": true,
            "disabledMcpServers": ["u-off"],
        } },
    });
    fs::write(
        h.home.join(".claude.json"),
        serde_json::to_string_pretty(&doc).unwrap() + "\n",
    )
    .unwrap();
    let out = h.fix(&h.elsewhere, &["u-off", "--dry-run"]);
    let err = stderr(&out);
    assert!(err.contains("`mcplogs scan --server u-off`"), "{err}");
    let scan = h.run(&h.elsewhere, &["scan", "--server", "u-off"]);
    assert_eq!(scan.status.code(), Some(0), "{}", stderr(&scan));
    let text = stdout(&scan);
    assert!(
        text.contains("u-off") && text.contains("disabled"),
        "{text}"
    );
    assert!(!text.contains("slow"), "{text}");
}

/// A server slower than MCP_TIMEOUT in a project folder that is gone: its own settings
/// (which may be what set the short value) cannot be read, so the user file is not
/// claimed to decide it there; fix writes nothing and says the folder is gone, and
/// scan's advice says it too.
#[test]
fn fix_writes_no_timeout_for_a_project_folder_that_is_gone() {
    let h = Home::new();
    let gone = h.home.join("work/gone");
    h.log_in(&gone, "timeout-2.1.332.jsonl", "slow");
    h.claude_json(
        serde_json::json!({ "slow": { "type": "stdio", "command": "python3", "args": ["s.py"] } }),
    );
    let before = h.files();
    let out = h.fix(&h.elsewhere, &["slow", "--yes"]);
    let err = stderr(&out);
    assert!(!err.contains("(longer-timeout)"), "{err}");
    assert!(
        err.contains("Only you can fix slow (~/work/gone)")
            && err.contains("its project folder ~/work/gone no longer exists on this machine"),
        "{err}"
    );
    assert_eq!(h.files(), before, "{err}");
    let scan = h.run(&h.elsewhere, &["scan"]);
    let text = stdout(&scan);
    assert!(!text.contains("can be fixed"), "{text}");
    assert!(text.contains("no longer exists"), "{text}");
}

/// scan's advice for a disabled `.mcp.json` server says who wrote the list: a managed
/// file is the administrator's (never Claude Code's dialog, which `claude mcp
/// reset-project-choices` undoes), a shared or user file someone's on purpose; a name
/// listed twice in one file is one decider.
#[test]
fn fix_scan_says_who_disabled_a_server_and_counts_a_name_listed_twice_once() {
    let h = Home::new();
    three_mcpjson_servers(&h);
    fs::write(
        h.proj.join(".claude/settings.local.json"),
        "{\"disabledMcpjsonServers\": [\"p-three\", \"p-three\"]}\n",
    )
    .unwrap();
    fs::write(
        h.managed.join("managed-settings.json"),
        "{\"disabledMcpjsonServers\": [\"p-off\"]}\n",
    )
    .unwrap();
    fs::write(
        h.proj.join(".claude/settings.json"),
        "{\"disabledMcpjsonServers\": [\"p-two\"]}\n",
    )
    .unwrap();
    let managed = row_of(&h, "p-off");
    let rec = managed["recommendation"].as_str().unwrap();
    assert!(
        rec.contains("ask whoever administers this machine"),
        "{rec}"
    );
    assert!(
        !rec.contains("reset-project-choices") && !rec.contains("Esc"),
        "{rec}"
    );
    let shared = row_of(&h, "p-two");
    let rec = shared["recommendation"].as_str().unwrap();
    assert!(rec.contains("on purpose") && !rec.contains("Esc"), "{rec}");
    let twice = row_of(&h, "p-three");
    assert_eq!(
        twice["decidedBy"].as_array().map(Vec::len),
        Some(1),
        "{twice:#}"
    );
    assert_eq!(twice["fix"]["changes"].as_array().map(Vec::len), Some(1));
}

/// `fix NAME --except NAME` asks for nothing: said as an error, never "nothing mcplogs
/// fix can change" for a server that has a change.
#[test]
fn fix_a_server_also_excepted_is_an_error() {
    let h = Home::new();
    three_mcpjson_servers(&h);
    fs::write(
        h.proj.join(".claude/settings.local.json"),
        "{\"disabledMcpjsonServers\": [\"p-off\"]}\n",
    )
    .unwrap();
    let before = h.files();
    let out = h.fix(&h.elsewhere, &["p-off", "--except=p-off", "--dry-run"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("excluded by --except"), "{err}");
    assert!(!err.contains("nothing mcplogs fix can change"), "{err}");
    assert_eq!(h.files(), before);
}

/// An approval list that is not a list of names is not silently ignored: each
/// `.mcp.json` server's row warns, naming the key and the file.
#[test]
fn fix_scan_warns_of_an_approval_list_that_is_not_a_list() {
    let h = Home::new();
    three_mcpjson_servers(&h);
    fs::write(
        h.proj.join(".claude/settings.local.json"),
        "{\"disabledMcpjsonServers\": \"p-off\"}\n",
    )
    .unwrap();
    let row = row_of(&h, "p-off");
    let warnings = row["warnings"].to_string();
    assert!(
        warnings.contains("disabledMcpjsonServers in ")
            && warnings.contains("settings.local.json is not a list of server names"),
        "{row:#}"
    );
}

/// The diff shows the bytes written: a project key of `~/.claude.json` under the home
/// stays the full path in the hunk (only the file names are shortened).
#[test]
fn fix_diff_shows_a_claude_json_project_key_as_written() {
    let h = Home::new();
    h.log("timeout-2.1.332.jsonl", "slow");
    let proj = h.proj.display().to_string();
    let doc = serde_json::json!({
        "hasCompletedOnboarding": true,
        "mcpServers": {},
        "projects": { proj.clone(): {
            "hasTrustDialogAccepted": true,
            "disabledMcpjsonServers": ["p-off"],
        } },
    });
    fs::write(
        h.home.join(".claude.json"),
        serde_json::to_string_pretty(&doc).unwrap() + "\n",
    )
    .unwrap();
    fs::write(
        h.proj.join(".mcp.json"),
        "{\"mcpServers\": {\"p-off\": {\"command\": \"python3\", \"args\": [\"s.py\"]}}}\n",
    )
    .unwrap();
    let out = h.fix(&h.elsewhere, &["p-off", "--dry-run"]);
    let diff = stdout(&out);
    let key = serde_json::to_string(&proj).unwrap();
    assert!(diff.contains(&format!("{key}: {{")), "{diff}");
    assert!(!diff.contains("\"~/work/proj\""), "{diff}");
    assert!(diff.contains("+++ ~/.claude.json"), "{diff}");
}

/// The printed commands for a name that starts with `-` run as printed: `--except=NAME`
/// and `mcplogs fix -- NAME` (the helper adds options after the arguments, so the
/// second is checked by its form).
#[test]
fn fix_prints_commands_for_a_dash_name_that_run_as_printed() {
    let h = Home::new();
    h.log("timeout-2.1.332.jsonl", "slow");
    h.claude_json(
        serde_json::json!({ "slow": { "type": "stdio", "command": "python3", "args": ["s.py"] } }),
    );
    let entry = serde_json::json!({ "command": "python3", "args": ["s.py"] });
    let doc = serde_json::json!({ "mcpServers": { "--yes": entry.clone(), "-rf": entry } });
    fs::write(h.proj.join(".mcp.json"), doc.to_string()).unwrap();
    fs::create_dir_all(h.proj.join(".claude")).unwrap();
    fs::write(
        h.proj.join(".claude/settings.local.json"),
        "{\"disabledMcpjsonServers\": [\"--yes\"]}\n",
    )
    .unwrap();
    fs::write(
        h.proj.join(".claude/settings.json"),
        "{\"disabledMcpjsonServers\": [\"-rf\"]}\n",
    )
    .unwrap();
    let out = h.fix(&h.elsewhere, &["--except", "slow", "--dry-run"]);
    let err = stderr(&out);
    assert!(err.contains("`mcplogs fix --except=--yes`"), "{err}");
    assert!(err.contains("`mcplogs fix -- -rf`"), "{err}");
    let out = h.fix(
        &h.elsewhere,
        &["--except=slow", "--except=--yes", "--dry-run"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("For --yes ("), "{}", stderr(&out));
}
