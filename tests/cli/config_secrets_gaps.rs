//! Configured values an adversarial test found printed raw (session 12): a configured
//! URL's query values under keys that say nothing (`?sig=`, `?code=`), a `Cookie`
//! header's value echoed alone, the `env` values of every settings layer (Claude Code
//! passes them on to every stdio server), and `explain` run outside the project folder
//! (the projects `~/.claude.json` lists, and `--managed-dir`'s files). Each is hidden in
//! `scan` (table, `-v`, `--json`), `report` (Markdown, `--json`) and `explain` (text,
//! `--json`), run in the project folder and outside it; `--no-redact` shows each, so
//! every check can fail.

use std::path::{Path, PathBuf};

use crate::common::*;

/// Query values of a configured URL under keys that do not say secret.
const SIG: &str = "hunter22pw";
const CODE: &str = "abcd1234efgh";
/// The value of the one cookie of a configured `Cookie` header.
const COOKIE: &str = "cookieval99887766";
/// A project settings layer's `env`: a secret-looking key, no recognisable shape.
const PROJECT_ENV: &str = "settingsPw1234";
/// The local settings layer's `env`.
const LOCAL_ENV: &str = "setEnvTok55667788";
/// The user settings layer's `env`.
const USER_ENV: &str = "userSetKey4455";
/// The managed settings layer's `env` (in `--managed-dir`).
const MANAGED_ENV: &str = "managedPw7788x";
/// A `.mcp.json` env value of the project (F2: `explain` outside the project).
const MCP_ENV: &str = "mcpJsonOpaque5151";

const ALL: [&str; 8] = [
    SIG,
    CODE,
    COOKIE,
    PROJECT_ENV,
    LOCAL_ENV,
    USER_ENV,
    MANAGED_ENV,
    MCP_ENV,
];

const SESSION: &str = "6f1c2d3e-0000-4000-8000-000000000051";
const TS: &str = "2026-11-29T12:00:00.000Z";

struct Home {
    dir: tempfile::TempDir,
    project: PathBuf,
}

impl Home {
    fn home(&self) -> &Path {
        self.dir.path()
    }

    fn managed(&self) -> PathBuf {
        self.home().join("managed")
    }

    /// The command run in `cwd`, with a throwaway cache and `--managed-dir` last.
    fn cmd(&self, cwd: &Path, args: &[&str]) -> std::process::Command {
        let mut c = mcplogs(self.home());
        c.env("XDG_CACHE_HOME", self.home().join(".cache"))
            .env("MCPLOGS_CACHE_DIR", self.home().join("mcplogs-cache"))
            .current_dir(cwd)
            .args(args)
            .arg("--managed-dir")
            .arg(self.managed());
        c
    }
}

fn rec(key: &str, msg: &str, project: &Path) -> String {
    serde_json::json!({key: msg, "timestamp": TS, "sessionId": SESSION, "cwd": project.to_string_lossy()})
        .to_string()
}

fn write(p: &Path, s: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, s).unwrap();
}

fn env_of(k: &str, v: &str) -> String {
    serde_json::json!({"env": {k: v, "NODE_ENV": "production"}}).to_string()
}

fn echoed() -> String {
    ALL.join(" ")
}

fn home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    let project = h.join("work/proj");
    std::fs::create_dir_all(&project).unwrap();
    let key = project.to_string_lossy().into_owned();
    write(
        &h.join(".claude.json"),
        &serde_json::json!({"projects": {key.clone(): {}}}).to_string(),
    );
    write(
        &project.join(".mcp.json"),
        &serde_json::json!({"mcpServers": {
            "localsrv": {"command": "node", "args": ["local.js"], "env": {"MY_SVC_KEY": MCP_ENV}},
            "remote2": {"type": "sse",
                        "url": format!("https://127.0.0.1:47302/sse?sig={SIG}&code={CODE}"),
                        "headers": {"Cookie": format!("session={COOKIE}")}}
        }})
        .to_string(),
    );
    write(
        &project.join(".claude/settings.json"),
        &env_of("MY_PASSWORD", PROJECT_ENV),
    );
    write(
        &project.join(".claude/settings.local.json"),
        &env_of("GITHUB_TOKEN", LOCAL_ENV),
    );
    write(
        &h.join(".claude/settings.json"),
        &env_of("USER_API_KEY", USER_ENV),
    );
    write(
        &h.join("managed/managed-settings.json"),
        &env_of("CORP_PASSWORD", MANAGED_ENV),
    );
    let logs = h
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name(&key));
    let log = |server: &str, lines: Vec<String>| {
        let f = logs
            .join(format!("mcp-logs-{server}"))
            .join("2026-11-29T12-00-00-000Z.jsonl");
        write(&f, &(lines.join("\n") + "\n"));
    };
    let p = &project;
    let start = rec("debug", "Starting connection with timeout of 30000ms", p);
    log(
        "localsrv",
        vec![
            start.clone(),
            rec("error", &format!("Server stderr: got {}\n", echoed()), p),
            rec(
                "error",
                &format!(
                    "Connection failed (CONNECTION_CLOSED): Connection closed {}",
                    echoed()
                ),
                p,
            ),
        ],
    );
    log(
        "remote2",
        vec![
            start,
            rec(
                "error",
                &format!(
                    "Connection failed: SSE error: Non-200 status code (403) for https://127.0.0.1:47302/sse?sig={SIG}&code={CODE}; {}",
                    echoed()
                ),
                p,
            ),
        ],
    );
    Home { dir, project }
}

fn assert_hidden(what: &str, out: &str) {
    let shown: Vec<&str> = ALL.iter().copied().filter(|v| out.contains(v)).collect();
    assert!(shown.is_empty(), "{what} shows {shown:?}:\n{out}");
}

#[test]
fn query_values_cookies_settings_env_and_explain_elsewhere_are_hidden() {
    let h = home();
    let paste = h.home().join("paste.txt");
    std::fs::write(
        &paste,
        format!(
            "Checking MCP server health...\n\n\
             localsrv: node local.js - ✗ Failed to connect\n\
             other: node x.js --echo {} - ✗ Failed to connect\n\
             remote2: https://127.0.0.1:47302/sse?sig={SIG}&code={CODE} (SSE) - ✗ Failed to connect\n",
            echoed()
        ),
    )
    .unwrap();
    let paste = paste.to_string_lossy().into_owned();
    let elsewhere = h.home().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let commands: [&[&str]; 7] = [
        &["scan"],
        &["scan", "-v"],
        &["scan", "--json"],
        &["report", "--force"],
        &["report", "--json", "--force"],
        &["explain", &paste],
        &["explain", "--json", &paste],
    ];
    for cwd in [&h.project, &elsewhere] {
        for args in commands {
            let r = run(&mut h.cmd(cwd, args));
            assert!(r.code <= 1, "{args:?} in {cwd:?}: {}{}", r.stdout, r.stderr);
            assert_hidden(
                &format!("{args:?} in {cwd:?}"),
                &format!("{}{}", r.stdout, r.stderr),
            );
        }
    }
    // what the redacted views hide is there to hide
    let raw = run(&mut h.cmd(&h.project, &["scan", "-v", "--no-redact"]));
    for v in ALL {
        assert!(
            raw.stdout.contains(v),
            "scan -v --no-redact lacks {v}:\n{}",
            raw.stdout
        );
    }
    let raw = run(&mut h.cmd(&elsewhere, &["explain", "--no-redact", &paste]));
    for v in ALL {
        assert!(
            raw.stdout.contains(v),
            "explain --no-redact lacks {v}:\n{}",
            raw.stdout
        );
    }
}
