//! The advice's wording where a file stands in the way (a settings file that cannot be
//! read, a hard-linked one `mcplogs fix` will not edit), the home shown as `~` in every
//! sentence, and invisible characters in a name shown, on a throwaway home (Unix: the
//! paths are written `~/...`, the FIFO and the hard link are made the Unix way).

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
}

const SESSION: &str = "11111111-2222-4333-8444-555555555555";

impl Home {
    /// A home with one project (listed in `~/.claude.json`) whose `.mcp.json` holds
    /// `servers`, each a stdio server with an `env` block.
    fn new(servers: &[&str]) -> Home {
        let dir = fixed_length_tempdir();
        let home = dir.path().join("me");
        let managed = dir.path().join("managed");
        let proj = home.join("work/proj");
        let elsewhere = dir.path().join("elsewhere");
        for d in [&home, &managed, &proj, &elsewhere] {
            fs::create_dir_all(d).unwrap();
        }
        fs::create_dir_all(home.join(".claude")).unwrap();
        fs::create_dir_all(proj.join(".claude")).unwrap();
        let doc = serde_json::json!({
            "hasCompletedOnboarding": true,
            "projects": { proj.display().to_string(): { "hasTrustDialogAccepted": true } },
        });
        fs::write(home.join(".claude.json"), doc.to_string()).unwrap();
        let mut mcp = serde_json::Map::new();
        for s in servers {
            mcp.insert(
                s.to_string(),
                serde_json::json!({ "type": "stdio", "command": "python3", "args": ["s.py"], "env": { "API_KEY": "k" } }),
            );
        }
        fs::write(
            proj.join(".mcp.json"),
            serde_json::json!({ "mcpServers": mcp }).to_string(),
        )
        .unwrap();
        Home {
            _dir: dir,
            home,
            managed,
            proj,
            elsewhere,
        }
    }

    /// The project's log folder.
    fn logs(&self) -> PathBuf {
        self.home.join(".cache/claude-cli-nodejs").join(
            mcplogs::claude_code::names::encode_folder_name(&self.proj.display().to_string()),
        )
    }

    /// A session of the project in which `name`'s server closed the connection at
    /// start-up, in a file named for `stamp`.
    fn log_closed(&self, name: &str, stamp: &str) -> PathBuf {
        let d = self.logs().join(format!("mcp-logs-{name}"));
        fs::create_dir_all(&d).unwrap();
        let cwd = self.proj.display().to_string();
        let rec = |m: serde_json::Value| {
            let mut m = m;
            m["sessionId"] = SESSION.into();
            m["cwd"] = cwd.clone().into();
            m["timestamp"] = "2026-12-05T17:55:35.642Z".into();
            m.to_string() + "\n"
        };
        let text = rec(serde_json::json!({"debug": "Starting connection with timeout of 30000ms"}))
            + &rec(
                serde_json::json!({"debug": "Connection failed after 800ms, 800ms of it awake: MCP error -32000: Connection closed"}),
            )
            + &rec(
                serde_json::json!({"error": "Connection failed: MCP error -32000: Connection closed"}),
            );
        let f = d.join(format!("{stamp}.jsonl"));
        fs::write(&f, text).unwrap();
        f
    }

    fn run(&self, cwd: &Path, args: &[&str]) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mcplogs"));
        c.args(args)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("NO_COLOR", "1")
            .env("COLUMNS", "400")
            .current_dir(cwd)
            .stdin(Stdio::null());
        clock_env(&mut c);
        c.output().unwrap()
    }

    fn scan(&self) -> String {
        let out = self.run(
            &self.elsewhere,
            &[
                "scan",
                "--no-cache",
                "--managed-dir",
                &self.managed.display().to_string(),
            ],
        );
        format!("{}{}", stdout(&out), stderr(&out))
    }
}

/// "What to do" and its items, one line each (the screen is wide).
fn what_to_do(text: &str) -> &str {
    let at = text.find("What to do").unwrap_or_else(|| panic!("{text}"));
    &text[at..]
}

/// G10: a `.claude/settings.local.json` that cannot be read (a FIFO): the advice for a
/// server nobody approved says to replace it with a regular file first, never to add
/// the name to it as it is.
#[test]
fn a_settings_local_json_that_cannot_be_read_is_to_be_replaced_first() {
    let h = Home::new(&["p-one"]);
    mkfifo(&h.proj.join(".claude/settings.local.json"));
    let text = h.scan();
    let todo = what_to_do(&text);
    assert!(
        todo.contains(
            "~/work/proj/.claude/settings.local.json cannot be read (not a regular file, or not readable)"
        ) && todo.contains("replace it with a regular file first"),
        "{text}"
    );
    assert!(
        !todo.contains("add its name to enabledMcpjsonServers in .claude/settings.local.json"),
        "{text}"
    );
}

/// G15: a `.mcp.json` server disabled in `~/.claude/settings.json`: the way out names it
/// (`mcplogs fix p-off`, not a placeholder); with that file hard-linked, it says that
/// `mcplogs fix` cannot edit it (fix refuses a hard-linked file) instead.
#[test]
fn a_server_disabled_in_a_hard_linked_user_file_is_named_and_fix_is_not_offered() {
    let h = Home::new(&["p-off"]);
    let user = h.home.join(".claude/settings.json");
    fs::write(&user, "{\"disabledMcpjsonServers\": [\"p-off\"]}\n").unwrap();
    let text = h.scan();
    let todo = what_to_do(&text);
    assert!(todo.contains("(`mcplogs fix p-off` does both"), "{text}");
    assert!(!todo.contains("SERVER"), "{text}");

    fs::hard_link(&user, h.elsewhere.join("link.json")).unwrap();
    let text = h.scan();
    let todo = what_to_do(&text);
    assert!(
        todo.contains(
            "`mcplogs fix` cannot make this change: ~/.claude/settings.json has 2 hard links, and mcplogs does not edit hard-linked settings files"
        ),
        "{text}"
    );
    assert!(!todo.contains("does both"), "{text}");
    // and so it is: fix refuses, writing nothing
    let before = fs::read(&user).unwrap();
    let out = h.run(
        &h.elsewhere,
        &[
            "fix",
            "p-off",
            "--yes",
            "--claude-version",
            "2.1.332",
            "--managed-dir",
            &h.managed.display().to_string(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("hard links"), "{}", stderr(&out));
    assert_eq!(fs::read(&user).unwrap(), before);
}

/// G13: the "What to do" sentences show the home as `~`, as the table and `--verbose`
/// do: the file an entry's variables are in, and the folder its command runs in.
#[test]
fn what_to_do_shows_the_home_as_a_tilde() {
    let h = Home::new(&["crash"]);
    fs::write(
        h.proj.join(".claude/settings.local.json"),
        "{\"enabledMcpjsonServers\": [\"crash\"]}\n",
    )
    .unwrap();
    h.log_closed("crash", "2026-12-05T17-55-35-642Z");
    let text = h.scan();
    let todo = what_to_do(&text);
    assert!(
        todo.contains("(API_KEY, in ~/work/proj/.mcp.json)"),
        "{text}"
    );
    // (the rest of the path quoted: a redaction inside it stays one word)
    assert!(
        todo.contains("`cd ~/'work/proj' && python3 s.py`"),
        "{text}"
    );
    let home = h.home.display().to_string();
    assert!(!todo.contains(&home), "{text}");
}

/// G13: `prune --dry-run` shows a project as scan and du do, the home as `~`.
#[test]
fn prune_shows_the_project_with_the_home_as_a_tilde() {
    let h = Home::new(&["crash"]);
    let old = h.log_closed("crash", "2026-11-01T10-00-00-000Z");
    h.log_closed("crash", "2026-12-05T17-55-35-642Z");
    set_age(&old, 30 * 86_400);
    let out = h.run(&h.elsewhere, &["prune", "--older-than", "7d", "--dry-run"]);
    let text = stdout(&out);
    assert!(text.contains("~/work/proj"), "{text}{}", stderr(&out));
    assert!(!text.contains(&h.home.display().to_string()), "{text}");
}

/// G13: a zero-width space in a server name is shown (`<U+200B>`), as a bidi control
/// is, so `zw\u{200b}j` does not read as `zwj`.
#[test]
fn a_zero_width_space_in_a_name_is_shown() {
    let h = Home::new(&["zw\u{200b}j"]);
    let text = h.scan();
    assert!(text.contains("zw<U+200B>j"), "{text}");
    assert!(!text.contains('\u{200b}'), "{text}");
}
