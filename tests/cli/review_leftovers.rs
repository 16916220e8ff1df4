//! The last review's leftovers (messages, explain, report and the fix engine): each
//! test pins one defect's fix, on a throwaway home run from another folder.

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

impl Home {
    /// A home with one project holding `.mcp.json` servers `p-off` and `p-two`, known to
    /// `~/.claude.json`, and a user server `slow` with a failing log there.
    fn new() -> Home {
        let dir = fixed_length_tempdir();
        let base = dir.path().join("a home");
        let home = base.join("me");
        let managed = base.join("managed");
        let proj = home.join("work/proj");
        let elsewhere = base.join("elsewhere");
        for d in [&home, &managed, &proj, &elsewhere] {
            fs::create_dir_all(d).unwrap();
        }
        fs::create_dir_all(home.join(".claude")).unwrap();
        fs::create_dir_all(proj.join(".claude")).unwrap();
        let h = Home {
            _dir: dir,
            home,
            managed,
            proj,
            elsewhere,
        };
        let entry = serde_json::json!({ "type": "stdio", "command": "python3", "args": ["s.py"] });
        let doc = serde_json::json!({
            "hasCompletedOnboarding": true,
            "mcpServers": { "slow": entry.clone() },
            "projects": { h.proj.display().to_string(): { "hasTrustDialogAccepted": true } },
        });
        fs::write(
            h.home.join(".claude.json"),
            serde_json::to_string_pretty(&doc).unwrap() + "\n",
        )
        .unwrap();
        let mcp = serde_json::json!({ "mcpServers": { "p-off": entry.clone(), "p-two": entry } });
        fs::write(h.proj.join(".mcp.json"), mcp.to_string()).unwrap();
        h.log("timeout-2.1.332.jsonl", "slow");
        h
    }

    /// The fix-engine fixture's session, recorded as run in the project, as `name`.
    fn log(&self, fixture: &str, name: &str) {
        self.log_in(&self.proj, fixture, name);
    }

    /// The fix-engine fixture's session, recorded as run in `project`, as `name`.
    fn log_in(&self, project: &Path, fixture: &str, name: &str) {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fix-engine")
            .join(fixture);
        let cwd = serde_json::to_string(&project.display().to_string()).unwrap();
        let text = fs::read_to_string(src)
            .unwrap()
            .replace("\"/PROJECT\"", &cwd);
        let slug = mcplogs::claude_code::names::encode_folder_name(&project.display().to_string());
        let d = self
            .home
            .join(".cache/claude-cli-nodejs")
            .join(slug)
            .join(format!("mcp-logs-{name}"));
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("2026-12-05T17-55-35-642Z.jsonl"), text).unwrap();
    }

    fn run(&self, cwd: &Path, args: &[&str]) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mcplogs"));
        c.args(args)
            .arg("--managed-dir")
            .arg(&self.managed)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("NO_COLOR", "1")
            .current_dir(cwd)
            .stdin(Stdio::null());
        clock_env(&mut c);
        c.output().unwrap()
    }

    fn fix(&self, extra: &[&str]) -> Output {
        let mut args = vec!["fix"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--claude-version", "2.1.332"]);
        self.run(&self.elsewhere, &args)
    }

    /// Every file of the home and the project (not the logs), with its bytes.
    fn files(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        for d in [
            self.home.clone(),
            self.home.join(".claude"),
            self.proj.clone(),
            self.proj.join(".claude"),
        ] {
            for p in fs::read_dir(&d)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.is_file())
            {
                let bytes = fs::read(&p).unwrap();
                out.push((p, bytes));
            }
        }
        out.sort();
        out
    }

    /// The configured row of `name` in `scan --json` run from the project.
    fn row(&self, name: &str) -> serde_json::Value {
        let out = self.run(&self.proj, &["scan", "--json"]);
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["configured"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {doc:#}"))
            .clone()
    }
}

fn json_of(p: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(p).unwrap()).unwrap()
}

/// L8: `fix NAME` for a name in the user file's `disabledMcpjsonServers` takes it out of
/// that list and approves it in the project's `.claude/settings.local.json` only (an
/// approval in the user file would approve the name in every project); the reasons say
/// so, and undo gives both files back.
#[test]
fn fix_name_disabled_in_the_user_file_is_approved_in_the_project_only() {
    let h = Home::new();
    let user = h.home.join(".claude/settings.json");
    fs::write(&user, "{\"disabledMcpjsonServers\": [\"p-off\"]}\n").unwrap();
    let local = h.proj.join(".claude/settings.local.json");
    assert_eq!(h.row("p-off")["state"], "disabled");
    let before = h.files();
    let out = h.fix(&["p-off", "--yes"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let u = json_of(&user);
    assert_eq!(u["disabledMcpjsonServers"], serde_json::json!([]), "{err}");
    assert!(u.get("enabledMcpjsonServers").is_none(), "{u:#}\n{err}");
    assert_eq!(
        json_of(&local)["enabledMcpjsonServers"],
        serde_json::json!(["p-off"]),
        "{err}"
    );
    assert!(
        err.contains("would approve it in every project") && err.contains("in this project only"),
        "{err}"
    );
    // F21: no env changed, so nothing is said of env changes
    assert!(
        err.contains("Claude Code reads the approval lists") && !err.contains("env changes"),
        "{err}"
    );
    assert_ne!(h.row("p-off")["state"], "disabled");
    let undo = h.run(&h.elsewhere, &["fix", "--undo", "--yes"]);
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert_eq!(h.files(), before, "{}", stderr(&undo));
}

/// F4: a list the fix moved a name in, changed by the user since: undo refuses without
/// `--force`; forced, it moves just that name back and keeps the user's own additions
/// and removals, and says so.
#[test]
fn forced_undo_moves_back_only_the_name_the_fix_moved() {
    let h = Home::new();
    let local = h.proj.join(".claude/settings.local.json");
    fs::write(&local, "{\n  \"disabledMcpjsonServers\": [\"p-off\"]\n}\n").unwrap();
    let out = h.fix(&["--except", "slow", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc = json_of(&local);
    assert_eq!(doc["enabledMcpjsonServers"], serde_json::json!(["p-off"]));
    // the user approves another server and disables one since
    fs::write(
        &local,
        "{\n  \"disabledMcpjsonServers\": [\"p-two\"],\n  \"enabledMcpjsonServers\": [\"p-off\", \"new-one\"]\n}\n",
    )
    .unwrap();
    let edited = fs::read(&local).unwrap();
    let refused = h.run(&h.elsewhere, &["fix", "--undo", "--yes"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert_eq!(fs::read(&local).unwrap(), edited);
    let forced = h.run(&h.elsewhere, &["fix", "--undo", "--yes", "--force"]);
    let err = stderr(&forced);
    assert!(forced.status.success(), "{err}");
    let doc = json_of(&local);
    assert_eq!(
        doc["enabledMcpjsonServers"],
        serde_json::json!(["new-one"]),
        "{err}"
    );
    assert_eq!(
        doc["disabledMcpjsonServers"],
        serde_json::json!(["p-two", "p-off"]),
        "{err}"
    );
    assert!(
        err.contains("enabledMcpjsonServers: changed since mcplogs' fix; only \"p-off\" taken out")
            && err.contains(
                "disabledMcpjsonServers: changed since mcplogs' fix; only \"p-off\" put back"
            ),
        "{err}"
    );
}

/// F4: a list the fix created, holding the user's names too since: forced undo takes
/// out only the fix's name; a list left empty goes, as before the fix.
#[test]
fn forced_undo_of_a_created_list_keeps_the_users_names_and_drops_an_emptied_one() {
    let h = Home::new();
    let local = h.proj.join(".claude/settings.local.json");
    fs::write(
        &local,
        "{\n  \"disabledMcpjsonServers\": [\"p-off\", \"p-two\"]\n}\n",
    )
    .unwrap();
    let out = h.fix(&["p-off", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    fs::write(
        &local,
        "{\n  \"disabledMcpjsonServers\": [\"p-two\"],\n  \"enabledMcpjsonServers\": [\"p-off\", \"mine\"],\n  \"x\": 1\n}\n",
    )
    .unwrap();
    let forced = h.run(&h.elsewhere, &["fix", "--undo", "--yes", "--force"]);
    assert!(forced.status.success(), "{}", stderr(&forced));
    let doc = json_of(&local);
    assert_eq!(doc["enabledMcpjsonServers"], serde_json::json!(["mine"]));
    assert_eq!(
        doc["disabledMcpjsonServers"],
        serde_json::json!(["p-off", "p-two"])
    );
    // once more, the user's name gone too: the list the fix created goes
    fs::write(
        &local,
        "{\n  \"disabledMcpjsonServers\": [\"p-off\", \"p-two\"]\n}\n",
    )
    .unwrap();
    let out = h.fix(&["p-off", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    fs::write(
        &local,
        "{\n  \"disabledMcpjsonServers\": [\"p-two\", \"p-three\"],\n  \"enabledMcpjsonServers\": [\"p-off\"],\n  \"x\": 1\n}\n",
    )
    .unwrap();
    let forced = h.run(&h.elsewhere, &["fix", "--undo", "--yes", "--force"]);
    assert!(forced.status.success(), "{}", stderr(&forced));
    let doc = json_of(&local);
    assert!(doc.get("enabledMcpjsonServers").is_none(), "{doc:#}");
    assert_eq!(
        doc["disabledMcpjsonServers"],
        serde_json::json!(["p-two", "p-three", "p-off"]),
        "{}",
        stderr(&forced)
    );
}

/// L6: a FIFO as the project's `.claude/settings.local.json` is never opened (no hang)
/// and `scan` says it cannot be read, once, its path shortened, from the project and
/// from any other folder (it read the project's layers all the same).
#[cfg(unix)]
#[test]
fn scan_says_once_that_a_projects_settings_file_cannot_be_read_from_any_folder() {
    let h = Home::new();
    mkfifo(&h.proj.join(".claude/settings.local.json"));
    let want = "~/work/proj/.claude/settings.local.json";
    for cwd in [&h.elsewhere, &h.proj] {
        let out = h.run(cwd, &["scan"]);
        let text = format!("{}{}", stdout(&out), stderr(&out));
        let said: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("cannot be read") && l.contains("FIFO"))
            .collect();
        assert_eq!(said.len(), 1, "from {}: {text}", cwd.display());
        assert!(said[0].contains(want), "{text}");
    }
}

/// L5: explain of a pasted "⊘ Disabled" line for a `.mcp.json` server disabled in the
/// project's `disabledMcpjsonServers` names that list and file, never
/// `disabledMcpServers` (the user and local servers' /mcp toggle); a user server's line
/// keeps `disabledMcpServers`. (The words are scan's own action for the server, the fix
/// engine's `mcplogs fix`: `one_answer_gaps`.)
#[test]
fn explain_names_the_list_that_disables_a_pasted_disabled_server() {
    let h = Home::new();
    fs::write(
        h.proj.join(".claude/settings.local.json"),
        "{\"disabledMcpjsonServers\": [\"p-off\"]}\n",
    )
    .unwrap();
    let paste = h.elsewhere.join("paste.txt");
    fs::write(
        &paste,
        "Checking MCP server health...\n\np-off: python3 s.py - ⊘ Disabled for this project (re-enable via /mcp)\n",
    )
    .unwrap();
    let p = paste.display().to_string();
    let out = h.run(&h.proj, &["explain", &p]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("disabledMcpjsonServers of ~/work/proj/.claude/settings.local.json")
            && !text.contains("disabledMcpServers"),
        "{text}{}",
        stderr(&out)
    );
    // nothing known here: the sentence names both lists, each for its kind of server
    let out = h.run(&h.elsewhere, &["explain", "--no-logs", &p]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("A project (.mcp.json) server is named in a `disabledMcpjsonServers` list"),
        "{text}"
    );
}

/// explain's note for a pasted "⊘ Disabled" `.mcp.json` server that the user's own
/// settings file disables names the server in its `mcplogs fix` command, as scan does
/// (it printed the placeholder `SERVER`).
#[test]
fn explain_names_the_server_in_the_fix_command_of_its_note() {
    let h = Home::new();
    fs::create_dir_all(h.home.join(".claude")).unwrap();
    fs::write(
        h.home.join(".claude/settings.json"),
        "{\"disabledMcpjsonServers\": [\"p-off\"]}\n",
    )
    .unwrap();
    let paste = h.elsewhere.join("paste.txt");
    fs::write(
        &paste,
        "Checking MCP server health...\n\np-off: python3 s.py - ⊘ Disabled for this project (re-enable via /mcp)\n",
    )
    .unwrap();
    let p = paste.display().to_string();
    let out = h.run(&h.proj, &["explain", &p]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("mcplogs fix p-off") && !text.contains("SERVER"),
        "{text}{}",
        stderr(&out)
    );
}

/// report shows each server how its own project starts it, the launch scan resolves for
/// it: two projects' `.mcp.json` servers of one name, started differently, each get their
/// own command (report looked the commands up by name alone: the first project's for
/// both).
#[test]
fn report_shows_each_server_its_own_projects_command() {
    let h = Home::new();
    let two = h.home.join("work/two");
    fs::create_dir_all(&two).unwrap();
    let mcp = |script: &str| {
        serde_json::json!({ "mcpServers": { "api": { "type": "stdio", "command": "python3", "args": [script] } } })
            .to_string()
    };
    fs::write(h.proj.join(".mcp.json"), mcp("one.py")).unwrap();
    fs::write(two.join(".mcp.json"), mcp("two.py")).unwrap();
    h.log_in(&h.proj, "timeout-2.1.332.jsonl", "api");
    h.log_in(&two, "timeout-2.1.332.jsonl", "api");
    let out = h.run(&h.elsewhere, &["report", "--json", "--force"]);
    let doc: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    // the home is redacted to `~`
    let launch_of = |want: &str| {
        doc["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "api" && s["project"].as_str() == Some(want))
            .map(|s| s["launch"].clone())
            .unwrap_or_else(|| panic!("no api of {want}: {doc:#}"))
    };
    assert_eq!(launch_of("~/work/proj"), "python3 one.py", "{doc:#}");
    assert_eq!(launch_of("~/work/two"), "python3 two.py", "{doc:#}");
}

/// `mcplogs fix --except=NAME`, as scan prints it to keep a server off, when the servers
/// left out were all there was to change: nothing to write, exit 0, and no word of
/// `--force` (which would write the legacy setting nobody asked for; it was exit 2).
#[test]
fn fix_except_leaving_nothing_says_so() {
    let h = Home::new();
    fs::write(
        h.proj.join(".claude/settings.local.json"),
        "{\"disabledMcpjsonServers\": [\"p-off\"]}\n",
    )
    .unwrap();
    let out = h.run(&h.proj, &["fix", "--except=p-off", "--except=slow"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("nothing to write") && !err.contains("--force"),
        "{err}"
    );
}

/// F15: a printed `$'...'` word holding a character outside ASCII that the screen
/// escapes (a bidi control) runs as printed in any locale: its UTF-8 bytes as `\xHH`
/// (bash expands `\uHHHH` only in a UTF-8 locale).
#[cfg(unix)]
#[test]
fn a_printed_word_with_a_bidi_control_runs_as_printed_under_lang_c() {
    let name = "rtl\u{202e}gnp.exe";
    let word = mcplogs::text::shell_word_typed(name);
    assert!(word.is_ascii(), "{word}");
    if !Path::new("/bin/bash").exists() {
        return;
    }
    for locale in ["C", "POSIX", "C.UTF-8"] {
        let out = Command::new("/bin/bash")
            .args(["-c", &format!("printf %s {word}")])
            .env_clear()
            .env("LC_ALL", locale)
            .env("LANG", locale)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            name,
            "{word} under {locale}"
        );
    }
}

/// L7: the report files what the discovery cache did under Claude Code's state on this
/// machine (Markdown and `claudeCodeState.notes`), never among the damaged or
/// unreadable log files.
#[test]
fn report_gives_the_discovery_cache_note_its_own_place() {
    let home = tempfile::tempdir().unwrap();
    crate::discovery_cache_more::home_of("2.1.336", "down-strike-3-fresh-down", home.path());
    let mut c = mcplogs(home.path());
    let r = run(c
        .env("MCP_DISCOVERY_CACHE", "1")
        .args(["report", "--no-cache", "--force"]));
    let md = &r.stdout;
    let state = md
        .find("#### Claude Code's state on this machine")
        .unwrap_or_else(|| panic!("{md}"));
    let note = md
        .find("Claude Code's MCP discovery cache is on")
        .unwrap_or_else(|| panic!("{md}"));
    assert!(note > state, "{md}");
    if let Some(damaged) = md.find("#### Damaged or unreadable log files") {
        assert!(
            !md[damaged..].contains("discovery cache"),
            "{}",
            &md[damaged..]
        );
    }
    let mut c = mcplogs(home.path());
    let (_, doc) =
        run_json(
            c.env("MCP_DISCOVERY_CACHE", "1")
                .args(["report", "--json", "--no-cache"]),
        );
    let notes = doc["claudeCodeState"]["notes"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().unwrap().contains("MCP discovery cache is on")),
        "{doc:#}"
    );
    assert!(
        !doc["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("discovery cache")),
        "{doc:#}"
    );
}

/// F21: a `claude mcp list` line whose status glyph is `⚠` (not `!`) is a server of
/// its own, never the previous server's detail.
#[test]
fn explain_reads_a_warning_glyph_status_as_its_own_server() {
    let h = Home::new();
    let paste = h.elsewhere.join("paste.txt");
    fs::write(
        &paste,
        "Checking MCP server health...\n\nmissing-cmd: mcp-server-not-installed  - ✘ Failed to connect\nsso-gateway: https://127.0.0.1:9/mcp (HTTP) - ⚠ Needs authentication\n",
    )
    .unwrap();
    let p = paste.display().to_string();
    let out = h.run(&h.elsewhere, &["explain", "--no-logs", "--json", &p]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let servers = doc["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 2, "{doc:#}");
    assert_eq!(servers[1]["name"], "sso-gateway", "{doc:#}");
    assert_eq!(servers[1]["cause"], "needs-auth", "{doc:#}");
    assert_ne!(servers[0]["cause"], "needs-auth", "{doc:#}");
}

/// F21: a `.mcp.json` server disabled in a hard-linked `settings.local.json`: scan says
/// that `mcplogs fix` does not edit a hard-linked file (as fix's refusal does), never a
/// silent hand edit; fix refuses and writes nothing.
#[cfg(unix)]
#[test]
fn scan_says_fix_does_not_edit_a_hard_linked_file_that_disables_a_server() {
    let h = Home::new();
    let local = h.proj.join(".claude/settings.local.json");
    fs::write(&local, "{\"disabledMcpjsonServers\": [\"p-off\"]}\n").unwrap();
    fs::hard_link(&local, h.elsewhere.join("link.json")).unwrap();
    let out = h.run(&h.proj, &["scan"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        text.contains(
            "p-off (~/work/proj): `mcplogs fix` cannot make its change (enable-mcpjson-server)"
        ) && text.contains("hard links"),
        "{text}"
    );
    let before = fs::read(&local).unwrap();
    let out = h.fix(&["p-off", "--yes"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("hard links"), "{}", stderr(&out));
    assert_eq!(fs::read(&local).unwrap(), before);
}
