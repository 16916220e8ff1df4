//! A logged server whose name holds a value the configuration marks as secret (another
//! entry's `env` value: `svc-VALUE`) is shown as `scan` shows it, `svc-[REDACTED:config]`,
//! by every command that names it: `du` (table and `--json`), `fix --dry-run` (its "Only
//! you can fix" line and the command it prints), the status line and the hook (whose
//! context goes to the model). Each test fails when the command prints the value.

use std::path::PathBuf;

use crate::common::*;

/// `leaky`'s `env` value, random: no secret rule recognises it, only the configuration.
const VALUE: &str = "Xr7Tb2Qm9Kd4Lp6Vn3Ws";
const SESSION: &str = "99999999-2222-3333-4444-555555555555";

struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
    managed: PathBuf,
    project: PathBuf,
}

impl Home {
    /// `~/.claude.json` configures, for the project, `leaky` (whose `env` holds
    /// [`VALUE`]) and `svc-VALUE` (a command on no PATH); `svc-VALUE` logged one failed
    /// session, [`SESSION`], in which no other server was started.
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let managed = dir.path().join("managed");
        let project = home.join("work/proj");
        for d in [&managed, &project] {
            std::fs::create_dir_all(d).unwrap();
        }
        let key = project.to_string_lossy().into_owned();
        let name = format!("svc-{VALUE}");
        std::fs::write(
            home.join(".claude.json"),
            serde_json::json!({"projects": {key.clone(): {"mcpServers": {
                "leaky": {"command": "node", "args": ["leaky.js"], "env": {"FOO_SETTING": VALUE}},
                name.clone(): {"command": "missing-zz-cmd"}
            }}}})
            .to_string(),
        )
        .unwrap();
        let logs = home
            .join(".cache/claude-cli-nodejs")
            .join(mcplogs::claude_code::names::encode_folder_name(&key))
            .join(format!("mcp-logs-{name}"));
        std::fs::create_dir_all(&logs).unwrap();
        let rec = |k: &str, msg: &str, ts: &str| {
            serde_json::json!({k: msg, "timestamp": ts, "sessionId": SESSION, "cwd": key})
                .to_string()
        };
        let f = logs.join("2026-12-06T12-10-00-000Z.jsonl");
        std::fs::write(
            &f,
            [
                rec(
                    "debug",
                    "Starting connection with timeout of 30000ms",
                    "2026-12-06T12:10:00.000Z",
                ),
                rec(
                    "error",
                    "Connection failed (ENOENT): Executable not found in $PATH: \"missing-zz-cmd\"",
                    "2026-12-06T12:10:01.000Z",
                ),
            ]
            .join("\n")
                + "\n",
        )
        .unwrap();
        set_age(&f, 3600);
        Home {
            _dir: dir,
            home,
            managed,
            project,
        }
    }

    fn cmd(&self, args: &[&str], managed: bool) -> std::process::Command {
        let mut c = mcplogs(&self.home);
        c.env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("MCPLOGS_CACHE_DIR", self.home.join("mcplogs-cache"))
            .current_dir(&self.project)
            .args(args);
        if managed {
            c.arg("--managed-dir").arg(&self.managed);
        }
        c
    }

    fn session_input(&self, hook: bool) -> String {
        let p = self.project.to_string_lossy();
        let mut v = serde_json::json!({
            "session_id": SESSION, "cwd": p,
            "workspace": {"current_dir": p, "project_dir": p},
            "terminal_width": 2000
        });
        if hook {
            v["hook_event_name"] = "UserPromptSubmit".into();
            v["prompt"] = "x".into();
        }
        v.to_string()
    }
}

fn assert_hidden(what: &str, text: &str) {
    assert!(
        !text.contains(VALUE),
        "{what} shows the configured value:\n{text}"
    );
    assert!(
        text.contains("svc-[REDACTED:config]"),
        "{what} does not name the server as scan does:\n{text}"
    );
}

/// `scan` names it so: the form the other commands must agree with.
fn scan_shows(h: &Home) {
    let r = run(&mut h.cmd(&["scan"], true));
    assert_hidden("scan", &r.stdout);
}

#[test]
fn du_names_it_as_scan_does() {
    let h = Home::new();
    scan_shows(&h);
    let r = run(&mut h.cmd(&["du"], false));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_hidden("du", &format!("{}{}", r.stdout, r.stderr));
    let r = run(&mut h.cmd(&["du", "--json"], false));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_hidden("du --json", &format!("{}{}", r.stdout, r.stderr));
}

#[test]
fn fix_names_it_as_scan_does() {
    let h = Home::new();
    let r = run(&mut h.cmd(&["fix", "--dry-run"], true));
    let all = format!("{}{}", r.stdout, r.stderr);
    assert_eq!(r.code, 0, "{all}");
    assert!(all.contains("Only you can fix"), "{all}");
    assert_hidden("fix --dry-run", &all);
}

#[test]
fn the_status_line_names_it_as_scan_does() {
    let h = Home::new();
    let r = run_with_stdin(
        &mut h.cmd(&["statusline"], true),
        h.session_input(false).as_bytes(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("1✗"), "{}", r.stdout);
    assert_hidden("statusline", &format!("{}{}", r.stdout, r.stderr));
}

#[test]
fn the_hook_names_it_as_scan_does() {
    let h = Home::new();
    let r = run_with_stdin(
        &mut h.cmd(&["hook"], true),
        h.session_input(true).as_bytes(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("additionalContext"), "{}", r.stdout);
    assert_hidden("hook", &format!("{}{}", r.stdout, r.stderr));
}
