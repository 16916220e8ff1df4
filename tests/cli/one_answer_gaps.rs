//! One answer per server, the gaps left (session 11): each test pins one place where a
//! command said other than `scan` of the same server, on a throwaway home run from
//! another folder.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::common::*;

/// The session id of `legacy-missing-resultType-2.1.301.jsonl`, the fixture the
/// status-line tests log.
const FIXTURE_SESSION: &str = "6960e5b8-18f1-4fd1-aa92-c94624d6e42d";

struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
    managed: PathBuf,
    proj: PathBuf,
    elsewhere: PathBuf,
}

impl Home {
    /// A home with one project known to `~/.claude.json`, its local servers `local`
    /// (each a stdio entry), and the user servers `user`.
    fn new(local: &[&str], user: &[&str]) -> Home {
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
        let entry = json!({ "type": "stdio", "command": "python3", "args": ["s.py"] });
        let servers = |names: &[&str]| {
            Value::Object(
                names
                    .iter()
                    .map(|n| (n.to_string(), entry.clone()))
                    .collect(),
            )
        };
        let h = Home {
            _dir: dir,
            home,
            managed,
            proj,
            elsewhere,
        };
        h.write_claude_json(json!({
            "hasCompletedOnboarding": true,
            "mcpServers": servers(user),
            "projects": { h.proj.display().to_string(): {
                "hasTrustDialogAccepted": true,
                "mcpServers": servers(local),
            } },
        }));
        h
    }

    fn write_claude_json(&self, doc: Value) {
        fs::write(
            self.home.join(".claude.json"),
            serde_json::to_string_pretty(&doc).unwrap() + "\n",
        )
        .unwrap();
    }

    /// The fix-engine fixture's session (records of 2026-12-05), recorded as run in
    /// `project` for the server `name` (in the log folder its name encodes to), its file
    /// written two days ago.
    fn log_in(&self, project: &Path, fixture: &str, name: &str) {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fix-engine")
            .join(fixture);
        let cwd = serde_json::to_string(&project.display().to_string()).unwrap();
        let text = fs::read_to_string(src)
            .unwrap()
            .replace("\"/PROJECT\"", &cwd);
        let d = self.log_folder(project, name);
        fs::create_dir_all(&d).unwrap();
        let f = d.join("2026-12-05T17-55-35-642Z.jsonl");
        fs::write(&f, text).unwrap();
        set_age(&f, 2 * 86_400);
    }

    /// The log folder of the server `name` of `project`, as Claude Code names it.
    fn log_folder(&self, project: &Path, name: &str) -> PathBuf {
        use mcplogs::claude_code::names::encode_folder_name;
        self.home
            .join(".cache/claude-cli-nodejs")
            .join(encode_folder_name(&project.display().to_string()))
            .join(format!("mcp-logs-{}", encode_folder_name(name)))
    }

    fn log(&self, fixture: &str, name: &str) {
        self.log_in(&self.proj.clone(), fixture, name);
    }

    fn cmd(&self, cwd: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mcplogs"));
        c.args(args);
        // every command that reads the settings takes the test's managed folder
        if args.first() != Some(&"du") {
            c.arg("--managed-dir").arg(&self.managed);
        }
        c.env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("MCPLOGS_CACHE_DIR", self.home.join(".cache/mcplogs-test"))
            .env("NO_COLOR", "1")
            .env("COLUMNS", "80")
            .current_dir(cwd)
            .stdin(Stdio::null());
        clock_env(&mut c);
        c
    }

    fn run(&self, cwd: &Path, args: &[&str]) -> Run {
        run(&mut self.cmd(cwd, args))
    }

    /// `statusline` or `hook` (`cmd`) of the fix-engine fixtures' session (they all
    /// share one id) in the home's project: what it prints.
    fn session_says(&self, cmd: &str) -> String {
        let p = serde_json::to_string(&self.proj.display().to_string()).unwrap();
        let input = format!(
            r#"{{"hook_event_name":"UserPromptSubmit","prompt":"x","session_id":"{FIXTURE_SESSION}","cwd":{p},"workspace":{{"current_dir":{p},"project_dir":{p}}},"terminal_width":2000}}"#
        );
        run_with_stdin(&mut self.cmd(&self.proj, &[cmd]), input.as_bytes()).stdout
    }

    fn json(&self, cwd: &Path, args: &[&str]) -> (Run, Value) {
        run_json(&mut self.cmd(cwd, args))
    }
}

/// `text` with every run of whitespace one space: a line wrapped at 80 columns read
/// whole.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The configured row named `name` of a scan document.
fn row<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["configured"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {doc:#}"))
}

/// Item 1: a configured `my_srv` logs in `mcp-logs-my-srv`. With `--since` after its
/// every session it is "not seen since" (as `mysrv` is), and `--server my-srv` (its log
/// folder's name, which selects it without `--since`) selects that row too: it said
/// "no MCP server activity since" as if the server were not there.
#[test]
fn since_selects_a_not_seen_server_by_its_log_folder_name() {
    let h = Home::new(&["my_srv", "mysrv"], &[]);
    h.log("timeout-2.1.332.jsonl", "my_srv");
    h.log("timeout-2.1.332.jsonl", "mysrv");
    let (r, all) = h.json(&h.elsewhere, &["scan", "--json", "--since", "10m"]);
    assert_eq!(r.code, 0, "{r:?}");
    for name in ["my_srv", "mysrv"] {
        assert_eq!(row(&all, name)["state"], "not-seen-since", "{all:#}");
    }
    // without --since, `--server my-srv` is the logged my_srv
    let (_, logged) = h.json(&h.elsewhere, &["scan", "--json", "--server", "my-srv"]);
    assert_eq!(server(&logged, "my_srv")["verdict"], "connection-failed");
    for want in ["my-srv", "my_srv", "MY_SRV"] {
        let (r, doc) = h.json(
            &h.elsewhere,
            &["scan", "--json", "--since", "10m", "--server", want],
        );
        assert_eq!(r.code, 0, "{want}: {r:?}");
        assert_eq!(
            row(&doc, "my_srv")["state"],
            "not-seen-since",
            "{want}: {doc:#}"
        );
        assert_eq!(doc["configured"].as_array().unwrap().len(), 1, "{doc:#}");
    }
    let screen = h.run(
        &h.elsewhere,
        &["scan", "--since", "10m", "--server", "my-srv"],
    );
    assert!(screen.stdout.contains("1 not seen since"), "{screen:?}");
    assert!(
        !screen.stderr.contains("no MCP server activity"),
        "{screen:?}"
    );
}

/// The command a not-seen-since row prints (`mcplogs scan --server NAME` without
/// --since) names the home scanned: run as printed from another folder, with another
/// HOME, it shows that server (it printed no `--home`, and found no logs).
#[test]
fn the_since_rows_command_names_the_home_and_runs_as_printed() {
    let h = Home::new(&["my_srv"], &[]);
    h.log("timeout-2.1.332.jsonl", "my_srv");
    let home = h.home.display().to_string();
    let (_, doc) = h.json(
        &h.elsewhere,
        &["scan", "--json", "--home", &home, "--since", "10m"],
    );
    let rec = row(&doc, "my_srv")["recommendation"]
        .as_str()
        .unwrap()
        .to_string();
    let printed = rec
        .split('`')
        .find(|c| c.starts_with("mcplogs scan"))
        .unwrap_or_else(|| panic!("{rec}"));
    assert!(printed.contains("--home"), "{printed}");
    let other = tempfile::tempdir().unwrap();
    // (the test's managed folder, not this machine's, as every command of the test)
    let cmdline = format!(
        "{} --json --managed-dir \"$1\"",
        printed.replacen("mcplogs", env!("CARGO_BIN_EXE_mcplogs"), 1)
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(&cmdline)
        .arg("sh")
        .arg(&h.managed)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", other.path())
        .env("MCPLOGS_CACHE_DIR", other.path().join("cache"))
        .current_dir(other.path())
        .output()
        .unwrap();
    let ran: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {cmdline}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(
        server(&ran, "my_srv")["verdict"],
        "connection-failed",
        "{ran:#}"
    );
}

/// The recommendation of `name` in a `scan --json` document (a logged server's, else
/// its configured row's).
fn scan_recommendation(doc: &Value, name: &str) -> String {
    doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .chain(doc["configured"].as_array().unwrap())
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {doc:#}"))["recommendation"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Item 2: pasted `claude mcp list` lines saying "⊘ Disabled" of servers scan resolves
/// on the same home: `p-off` (a `.mcp.json` server in the project's
/// `disabledMcpjsonServers`) whose log failed, `p-two` (the same, no log) and `slow` (a
/// user server in `disabledMcpServers`, its log failing). explain gives each scan's next
/// step, word for word: `mcplogs fix` for the two that the fix engine enables (it gave
/// a hand edit of the list), counted as fixable in its summary as in scan's.
#[test]
fn explain_of_a_pasted_disabled_server_gives_scans_next_step() {
    let h = Home::new(&[], &["slow"]);
    let entry = json!({ "type": "stdio", "command": "python3", "args": ["s.py"] });
    fs::write(
        h.proj.join(".mcp.json"),
        json!({ "mcpServers": { "p-off": entry, "p-two": entry } }).to_string(),
    )
    .unwrap();
    fs::write(
        h.proj.join(".claude/settings.local.json"),
        "{\"disabledMcpjsonServers\": [\"p-off\", \"p-two\"]}\n",
    )
    .unwrap();
    let mut doc: Value =
        serde_json::from_str(&fs::read_to_string(h.home.join(".claude.json")).unwrap()).unwrap();
    doc["projects"][h.proj.display().to_string()]["disabledMcpServers"] = json!(["slow"]);
    h.write_claude_json(doc);
    h.log("timeout-2.1.332.jsonl", "p-off");
    h.log("timeout-2.1.332.jsonl", "slow");
    let paste = h.elsewhere.join("paste.txt");
    fs::write(
        &paste,
        "Checking MCP server health...\n\n\
         p-off: python3 s.py - ⊘ Disabled for this project (re-enable via /mcp)\n\
         p-two: python3 s.py - ⊘ Disabled for this project (re-enable via /mcp)\n\
         slow: python3 s.py - ⊘ Disabled for this project (re-enable via /mcp)\n",
    )
    .unwrap();
    let p = paste.display().to_string();
    let (scan_run, scan) = h.json(&h.proj, &["scan", "--json"]);
    let (explain_run, explain) = h.json(&h.proj, &["explain", "--json", &p]);
    assert_eq!(server(&scan, "p-off")["verdict"], "connection-failed");
    for name in ["p-off", "p-two", "slow"] {
        let said = explain["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap();
        assert_eq!(said["state"], "disabled", "{said:#}");
        assert_eq!(
            said["recommendation"].as_str().unwrap(),
            scan_recommendation(&scan, name),
            "{name}"
        );
    }
    for name in ["p-off", "p-two"] {
        assert!(
            scan_recommendation(&scan, name).starts_with("Run `mcplogs fix`"),
            "{scan:#}"
        );
    }
    // disabled is no failure: both exit 0
    assert_eq!((scan_run.code, explain_run.code), (0, 0));
    // the screens: the same summary count of what `mcplogs fix` fixes, the same command
    let scan_screen = h.run(&h.proj, &["scan"]);
    let explain_screen = h.run(&h.proj, &["explain", &p]);
    for out in [&scan_screen.stdout, &explain_screen.stdout] {
        assert!(
            out.lines()
                .next()
                .unwrap()
                .contains("2 can be fixed with `mcplogs fix`, 3 disabled"),
            "{out}"
        );
        assert!(
            out.contains("  1. Run `mcplogs fix` (enable-mcpjson-server)"),
            "{out}"
        );
        assert!(
            !out.contains("remove its name from that list (or run"),
            "{out}"
        );
    }
}

/// A GitHub token's shape: a server name holding it is printed redacted, with its tag.
const TOKEN: &str = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

/// A home whose project configures `a.TOKEN` and `a_TOKEN` (one log folder) and
/// `solo-TOKEN`, the first and the last logged (a timeout); their names.
fn token_names_home() -> (Home, [String; 3]) {
    let names = [
        format!("a.{TOKEN}"),
        format!("a_{TOKEN}"),
        format!("solo-{TOKEN}"),
    ];
    let h = Home::new(&[&names[0], &names[1], &names[2]], &[]);
    h.log("timeout-2.1.332.jsonl", &names[0]);
    h.log("timeout-2.1.332.jsonl", &names[2]);
    (h, names)
}

/// Item 3: names holding a token, `a.TOKEN` and `a_TOKEN` sharing one log folder and
/// `solo-TOKEN` alone. `settings` prints each as scan does, with its tag (it printed
/// `[REDACTED:github-token]` bare); `du`, `scan` and `report` give each of the folder's
/// names its own tag (one tag of the names joined matched neither's printed form), and
/// scan joins the shared folder to its two configured names (compared with the folder
/// name unredacted, it called the folder "no longer configured" and each name "no log
/// of it yet").
#[test]
fn every_command_tags_each_name_holding_a_token() {
    let (h, [a_dot, a_low, solo]) = token_names_home();
    let printed = mcplogs::scan::select::printed;
    let (pa, pl, ps) = (printed(&a_dot), printed(&a_low), printed(&solo));
    assert!(pa.contains("[REDACTED:github-token]#"), "{pa}");
    let shared = format!("{pa} + {pl}");
    // settings: each name with its tag, screen and JSON
    let (r, doc) = h.json(&h.proj, &["settings", "--json"]);
    assert_eq!(r.code, 0, "{r:?}");
    let names: Vec<&str> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, [pa.as_str(), pl.as_str(), ps.as_str()], "{doc:#}");
    let screen = h.run(&h.proj, &["settings"]);
    for n in [&pa, &pl, &ps] {
        assert!(
            screen.stdout.contains(&format!("  {n} ")),
            "{n}: {}",
            screen.stdout
        );
    }
    // du: the shared folder's names each with its own tag
    let (r, doc) = h.json(&h.proj, &["du", "--json"]);
    assert_eq!(r.code, 0, "{r:?}");
    let du_names: Vec<&str> = doc["projects"][0]["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(du_names.contains(&shared.as_str()), "{du_names:?}");
    assert!(du_names.contains(&ps.as_str()), "{du_names:?}");
    let screen = h.run(&h.proj, &["du"]);
    assert!(screen.stdout.contains(&shared), "{}", screen.stdout);
    // scan: the same name, its two configured names joined to it (no "no log" rows)
    let (_, scan) = h.json(&h.proj, &["scan", "--json"]);
    let row = server(&scan, &shared);
    assert_eq!(row["sharedBy"], json!([pa, pl]), "{row:#}");
    assert_eq!(row["verdict"], "connection-failed");
    assert!(
        !row["recommendation"]
            .as_str()
            .unwrap()
            .contains("no longer configured")
            && !row["recommendation"]
                .as_str()
                .unwrap()
                .contains("Configured in none"),
        "{row:#}"
    );
    assert_eq!(scan["configured"], json!([]), "{scan:#}");
    // report: the same name
    let (_, report) = h.json(&h.proj, &["report", "--json", "--force"]);
    assert!(
        report["servers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name"] == shared.as_str()),
        "{report:#}"
    );
}

/// Item 4a: `--server` matching nothing lists every server scan shows, a configured
/// server without a log included (it listed only the logged ones, so "did you mean"
/// could not find `p-off`).
#[test]
fn known_servers_include_configured_servers_without_a_log() {
    let h = Home::new(&["p-off"], &["slow"]);
    h.log("timeout-2.1.332.jsonl", "slow");
    let plain = h.run(&h.elsewhere, &["scan"]);
    assert!(plain.stdout.contains("  p-off "), "{plain:?}");
    let r = h.run(&h.elsewhere, &["scan", "--server", "p-of"]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        words(&r.stderr)
            .contains("no server named \"p-of\". Did you mean `p-off`? Known servers: p-off, slow"),
        "{r:?}"
    );
    // only configured servers without a log: the same usage error, not "no logs"
    let h = Home::new(&["p-off"], &[]);
    let r = h.run(&h.elsewhere, &["scan", "--server", "p-of"]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(words(&r.stderr).contains("Known servers: p-off"), "{r:?}");
}

/// Item 4b: a project `~/.claude.json` lists whose folder is gone, one of its servers
/// logged: scan shows that server's row and says once that the folder is gone (it said
/// nothing of it); a gone project that `~/.claude.json` no longer lists is not said.
#[test]
fn a_gone_listed_project_with_rows_is_said_once() {
    let h = Home::new(&["p-off"], &[]);
    let gone = h.home.join("work/gone");
    let forgotten = h.home.join("work/forgotten");
    let mut doc: Value =
        serde_json::from_str(&fs::read_to_string(h.home.join(".claude.json")).unwrap()).unwrap();
    let entry = json!({ "type": "stdio", "command": "python3", "args": ["s.py"] });
    doc["projects"][gone.display().to_string()] = json!({
        "hasTrustDialogAccepted": true,
        "mcpServers": { "g-srv": entry, "g-two": entry },
    });
    h.write_claude_json(doc);
    h.log_in(&gone, "timeout-2.1.332.jsonl", "g-srv");
    h.log_in(&gone, "timeout-2.1.332.jsonl", "g-three");
    h.log_in(&forgotten, "timeout-2.1.332.jsonl", "f-srv");
    let r = h.run(&h.elsewhere, &["scan"]);
    assert!(r.stdout.contains("~/work/gone\n"), "{r:?}");
    let said = words(&r.stderr);
    assert_eq!(
        said.matches("project folder no longer exists").count(),
        1,
        "{r:?}"
    );
    assert!(
        said.contains("mcplogs: warning: ~/work/gone: project folder no longer exists, though ~/.claude.json still lists it: its rows are its logs' verdicts, from before; its .mcp.json and settings were not read, so its servers without a log are not listed"),
        "{r:?}"
    );
    // each line fits the 80 columns
    assert!(r.stderr.lines().all(|l| l.chars().count() <= 80), "{r:?}");
    let (_, doc) = h.json(&h.elsewhere, &["scan", "--json"]);
    let warnings = doc["warnings"].to_string();
    assert_eq!(
        warnings.matches("project folder no longer exists").count(),
        1,
        "{doc:#}"
    );
    // filtered to another project's server: no row of it, nothing said
    let r = h.run(&h.elsewhere, &["scan", "--server", "f-srv"]);
    assert!(!r.stderr.contains("no longer exists"), "{r:?}");
}

/// Item 5: `fix --except leg`, `leg` the only server `mcplogs fix` can change (the legacy
/// setting), while `far` needs a step only the user can take (its command is on no
/// PATH): with or without `--dry-run`, the step, then "nothing to write", exit 0, and
/// nothing written. Without `--dry-run` it was the error "nothing mcplogs fix can
/// change for the servers above", exit 2, where `--dry-run` said "Nothing to write",
/// exit 0.
#[test]
fn fix_except_the_only_fixable_server_says_the_same_with_dry_run() {
    let h = Home::new(&[], &["leg"]);
    let mut doc: Value =
        serde_json::from_str(&fs::read_to_string(h.home.join(".claude.json")).unwrap()).unwrap();
    doc["mcpServers"]["far"] = json!({ "type": "stdio", "command": "farstub", "args": [] });
    h.write_claude_json(doc);
    h.log("legacy-missing-resultType-2.1.301.jsonl", "leg");
    h.log("path-2.1.332.jsonl", "far");
    let before = fs::read(h.home.join(".claude.json")).unwrap();
    let fix = |extra: &[&str]| {
        let mut args = vec!["fix", "--except", "leg", "--claude-version", "2.1.301"];
        args.extend_from_slice(extra);
        h.run(&h.elsewhere, &args)
    };
    // without --except, leg is what it would write
    let all = h.run(
        &h.elsewhere,
        &["fix", "--dry-run", "--claude-version", "2.1.301"],
    );
    assert!(all.stdout.contains("MCP_PROTOCOL_NEGOTIATION"), "{all:?}");
    let dry = fix(&["--dry-run"]);
    let real = fix(&[]);
    for r in [&dry, &real] {
        assert_eq!(r.code, 0, "{r:?}");
        let said = words(&r.stderr);
        assert!(said.contains("Only you can fix far"), "{r:?}");
        assert!(
            said.contains(
                "no server but those --except leaves out has anything mcplogs fix can change: nothing to write."
            ) && !said.contains("error"),
            "{r:?}"
        );
    }
    assert_eq!(dry.stderr, real.stderr);
    assert!(!h.home.join(".claude/settings.json").exists());
    assert_eq!(fs::read(h.home.join(".claude.json")).unwrap(), before);
}

/// Follow-up A2 item 1: `report`'s sentence saying which configured servers share a log
/// folder names each with its own tag, as scan's recommendation does (it printed the
/// names redacted without their tags, so two names printing alike were not told apart).
#[test]
fn report_tags_each_name_sharing_a_log_folder() {
    let a_dot = format!("a.{TOKEN}");
    let a_low = format!("a_{TOKEN}");
    let h = Home::new(&[&a_dot, &a_low], &[]);
    h.log("timeout-2.1.332.jsonl", &a_dot);
    let printed = mcplogs::scan::select::printed;
    let (pa, pl) = (printed(&a_dot), printed(&a_low));
    let listed = format!("{pa}, {pl}");
    // scan says them with their tags
    let (_, scan) = h.json(&h.proj, &["scan", "--json"]);
    let shared = format!("{pa} + {pl}");
    assert!(
        server(&scan, &shared)["recommendation"]
            .as_str()
            .unwrap()
            .contains(&format!("The configured servers {listed} all write")),
        "{scan:#}"
    );
    // report: its summary and its recommendation, JSON and Markdown
    let (r, report) = h.json(&h.proj, &["report", "--json", "--force"]);
    assert_eq!(r.code, 1, "{r:?}");
    let section = report["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == shared.as_str())
        .unwrap_or_else(|| panic!("{report:#}"));
    let said = section.to_string();
    assert!(
        said.contains(&format!(
            "The configured servers {listed} share this log folder"
        )),
        "{section:#}"
    );
    assert!(
        said.contains(&format!("The configured servers {listed} all write")),
        "{section:#}"
    );
    let md = h.run(&h.proj, &["report", "--force"]);
    assert!(
        words(&md.stdout).contains(&format!(
            "The configured servers {listed} share this log folder"
        )),
        "{md:?}"
    );
}

/// Follow-up A2 item 2: pasted "⊘ Disabled" lines of servers configured here without a
/// log whose names hold a secret: `off-TOKEN` (a token the secret rules know) and
/// `cfg-VALUE` (a value its own entry's `env` sets). explain selects each one's
/// configured row as every command selects a server
/// ([`mcplogs::scan::select::NameWant`]), by the real name `claude mcp list` prints, and
/// gives scan's next step for it (`mcplogs fix`, counted as fixable), the value hidden.
/// It matched the paste's name after redacting it against the row's shown name, so
/// `cfg-[REDACTED:config]` missed the row and got the generic advice.
#[test]
fn explain_selects_a_pasted_disabled_name_holding_a_secret_as_scan_does() {
    const VALUE: &str = "zz9secretvalue1";
    let off = format!("off-{TOKEN}");
    let cfg = format!("cfg-{VALUE}");
    let h = Home::new(&[], &[]);
    let entry = json!({ "type": "stdio", "command": "python3", "args": ["s.py"] });
    let with_env = json!({
        "type": "stdio", "command": "python3", "args": ["s.py"], "env": { "API_KEY": VALUE },
    });
    fs::write(
        h.proj.join(".mcp.json"),
        json!({ "mcpServers": { off.as_str(): entry, cfg.as_str(): with_env } }).to_string(),
    )
    .unwrap();
    fs::write(
        h.proj.join(".claude/settings.local.json"),
        json!({ "disabledMcpjsonServers": [off.as_str(), cfg.as_str()] }).to_string(),
    )
    .unwrap();
    let printed = mcplogs::scan::select::printed(&off);
    let (_, scan) = h.json(&h.proj, &["scan", "--json"]);
    let want = scan_recommendation(&scan, &printed);
    assert!(want.starts_with("Run `mcplogs fix`"), "{scan:#}");
    let (_, raw_scan) = h.json(&h.proj, &["scan", "--json", "--no-redact"]);
    let paste = h.elsewhere.join("paste.txt");
    fs::write(
        &paste,
        format!(
            "Checking MCP server health...\n\n\
             {off}: python3 s.py - ⊘ Disabled for this project (re-enable via /mcp)\n\
             {cfg}: python3 s.py - ⊘ Disabled for this project (re-enable via /mcp)\n"
        ),
    )
    .unwrap();
    let p = paste.display().to_string();
    let said = |doc: &Value, i: usize| {
        let s = &doc["servers"][i];
        assert_eq!(s["state"], "disabled", "{s:#}");
        s["recommendation"].as_str().unwrap().to_string()
    };
    // redacted: the token's row, scan's words; the value's row, `mcplogs fix` with the
    // value hidden; both counted as fixable
    let (r, doc) = h.json(&h.proj, &["explain", "--json", &p]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(said(&doc, 0), want, "{doc:#}");
    let cfg_said = said(&doc, 1);
    assert!(
        cfg_said.starts_with("Run `mcplogs fix` (enable-mcpjson-server): cfg-[REDACTED"),
        "{doc:#}"
    );
    assert!(
        !doc.to_string().contains(TOKEN) && !doc.to_string().contains(VALUE),
        "{doc:#}"
    );
    let screen = h.run(&h.proj, &["explain", &p]);
    assert!(
        screen
            .stdout
            .lines()
            .next()
            .unwrap()
            .contains("2 can be fixed with `mcplogs fix`"),
        "{screen:?}"
    );
    assert!(
        !screen.stdout.contains(TOKEN) && !screen.stdout.contains(VALUE),
        "{screen:?}"
    );
    // --no-redact: the real names, scan's words
    let (_, doc) = h.json(&h.proj, &["explain", "--json", "--no-redact", &p]);
    assert_eq!(
        said(&doc, 0),
        scan_recommendation(&raw_scan, &off),
        "{doc:#}"
    );
    assert_eq!(
        said(&doc, 1),
        scan_recommendation(&raw_scan, &cfg),
        "{doc:#}"
    );
}

/// A configured server without a log whose name holds a value its own entry configures
/// (`cfg-VALUE`, `env: {API_KEY: VALUE}`): scan hides the value in its name and in the
/// key that decides its state, on the screen and in JSON, as it does in a logged
/// server's; the real name still selects it.
#[test]
fn scan_hides_a_configured_value_in_an_unlogged_servers_name() {
    const VALUE: &str = "zz9secretvalue1";
    let cfg = format!("cfg-{VALUE}");
    let h = Home::new(&[], &[]);
    let with_env = json!({
        "type": "stdio", "command": "python3", "args": ["s.py"], "env": { "API_KEY": VALUE },
    });
    fs::write(
        h.proj.join(".mcp.json"),
        json!({ "mcpServers": { cfg.as_str(): with_env } }).to_string(),
    )
    .unwrap();
    let (_, doc) = h.json(&h.proj, &["scan", "--json"]);
    assert!(!doc.to_string().contains(VALUE), "{doc:#}");
    assert_eq!(
        doc["configured"][0]["name"], "cfg-[REDACTED:config]",
        "{doc:#}"
    );
    let screen = h.run(&h.proj, &["scan"]);
    assert!(!screen.stdout.contains(VALUE), "{}", screen.stdout);
    assert!(
        screen.stdout.contains("cfg-[REDACTED:config]"),
        "{}",
        screen.stdout
    );
    // nor does `settings`, which lists the project's configured servers
    let st = h.run(&h.proj, &["settings"]);
    assert!(!st.stdout.contains(VALUE), "{}", st.stdout);
    assert!(st.stdout.contains("cfg-[REDACTED:config]"), "{}", st.stdout);
    let (_, st) = h.json(&h.proj, &["settings", "--json"]);
    assert!(!st.to_string().contains(VALUE), "{st:#}");
    // nor in the names a --server that matches nothing lists
    let miss = h.run(&h.proj, &["scan", "--server", "nosuch"]);
    assert_eq!(miss.code, 2, "{miss:?}");
    assert!(!miss.stderr.contains(VALUE), "{}", miss.stderr);
    assert!(
        miss.stderr.contains("cfg-[REDACTED:config]"),
        "{}",
        miss.stderr
    );
    let (_, one) = h.json(&h.proj, &["scan", "--json", "--server", &cfg]);
    assert_eq!(
        one["configured"].as_array().map(Vec::len),
        Some(1),
        "{one:#}"
    );
    // --no-redact shows it as configured
    let (_, raw) = h.json(&h.proj, &["scan", "--json", "--no-redact"]);
    assert_eq!(raw["configured"][0]["name"], cfg.as_str(), "{raw:#}");
}

/// The probe's every name (its notes, "did you mean", the configured list, headers,
/// `--json`, `--contract`) shows a server name holding a configured value
/// (`cfg-VALUE`, VALUE an `env` value of its entry) as `scan` shows it
/// (`cfg-[REDACTED:config]`), and that printed form, copied from scan's screen,
/// selects it (the probe printed the name whole on stderr, and the printed form named
/// no server).
#[test]
fn probe_shows_a_name_holding_a_configured_value_as_scan_does() {
    const VALUE: &str = "zz9secretvalue1";
    const SHOWN: &str = "cfg-[REDACTED:config]";
    let cfg = format!("cfg-{VALUE}");
    let h = Home::new(&[], &[]);
    let stub = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/samples/stub_mcp_server.py");
    let stub = stub.display().to_string();
    fs::write(
        h.proj.join(".mcp.json"),
        json!({ "mcpServers": {
            cfg.as_str(): {
                "type": "stdio", "command": "python3", "args": [stub.as_str()],
                "env": { "API_TOKEN": VALUE },
            },
        } })
        .to_string(),
    )
    .unwrap();
    let proj = h.proj.display().to_string();
    let probe = |extra: &[&str]| {
        let mut args = vec![
            "probe",
            "--project",
            proj.as_str(),
            "--claude-version",
            "2.1.336",
        ];
        args.extend_from_slice(extra);
        h.run(&h.elsewhere, &args)
    };
    let hidden = |r: &Run| {
        assert!(!r.stdout.contains(VALUE), "{}", r.stdout);
        assert!(!r.stderr.contains(VALUE), "{}", r.stderr);
    };
    // scan prints it so
    let screen = h.run(&h.proj, &["scan"]);
    assert!(words(&screen.stdout).contains(SHOWN), "{}", screen.stdout);
    // unnamed, the pending server is left out with a command naming it as printed
    let all = probe(&[]);
    hidden(&all);
    // (`--project DIR`: the project is not the folder it ran in)
    let printed = format!(" '{SHOWN}'`");
    let note = words(&all.stderr);
    assert!(
        note.contains("`mcplogs probe --project ") && note.contains(&printed),
        "{}",
        all.stderr
    );
    // an unknown name lists the configured ones, a near one is suggested, as printed
    let miss = probe(&["nosuch"]);
    assert_eq!(miss.code, 2, "{miss:?}");
    hidden(&miss);
    assert!(words(&miss.stderr).contains(SHOWN), "{}", miss.stderr);
    let near = probe(&["cfg-zz9secretvalue"]);
    assert_eq!(near.code, 2, "{near:?}");
    hidden(&near);
    assert!(words(&near.stderr).contains(SHOWN), "{}", near.stderr);
    // the printed form and the real name select it; the output hides VALUE
    for given in [SHOWN, cfg.as_str()] {
        let one = probe(&[given]);
        assert_eq!(one.code, 0, "{given}: {one:?}");
        hidden(&one);
        assert!(
            one.stdout.contains(&format!("{SHOWN} · stdio")),
            "{}",
            one.stdout
        );
        let (r, doc) = run_json(&mut h.cmd(
            &h.elsewhere,
            &[
                "probe",
                "--project",
                &proj,
                "--claude-version",
                "2.1.336",
                "--json",
                given,
            ],
        ));
        assert_eq!(r.code, 0, "{r:?}");
        assert!(!r.stderr.contains(VALUE), "{}", r.stderr);
        assert!(!doc.to_string().contains(VALUE), "{doc:#}");
        assert_eq!(doc["servers"][0]["name"], SHOWN, "{doc:#}");
    }
    for extra in [&["--contract"][..], &["--contract", "--format", "junit"]] {
        let mut args = extra.to_vec();
        args.push(SHOWN);
        let c = probe(&args);
        hidden(&c);
        assert!(c.stdout.contains(SHOWN), "{}", c.stdout);
    }
    // --no-redact shows it as configured
    let raw = probe(&["--no-redact", &cfg]);
    assert!(
        raw.stdout.contains(&format!("{cfg} · stdio")),
        "{}",
        raw.stdout
    );
}

/// On a colour terminal (`--color always`) probe's text keeps its own colours, and a
/// colour sequence inside a server's name is shown escaped, never sent to the terminal
/// (it reached it raw in the header and the prediction's lines).
#[test]
fn probe_escapes_a_colour_sequence_in_a_name_on_a_colour_terminal() {
    let h = Home::new(&[], &[]);
    let stub = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/samples/stub_mcp_server.py");
    let name = "esc\u{1b}[31mred\u{1b}[8mhid";
    fs::write(
        h.proj.join(".mcp.json"),
        json!({ "mcpServers": {
            name: { "type": "stdio", "command": "python3", "args": [stub.display().to_string()] },
        } })
        .to_string(),
    )
    .unwrap();
    let proj = h.proj.display().to_string();
    let args = [
        "probe",
        "--project",
        proj.as_str(),
        "--claude-version",
        "2.1.336",
        "--color",
        "always",
        name,
    ];
    let r = h.run(&h.elsewhere, &args);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("\u{1b}["), "its own colours: {r:?}");
    for raw in ["\u{1b}[31mred", "\u{1b}[8mhid"] {
        assert!(!r.stdout.contains(raw), "{raw:?} raw: {:?}", r.stdout);
        assert!(!r.stderr.contains(raw), "{raw:?} raw: {:?}", r.stderr);
    }
}

/// A pasted `claude mcp list` line of a server whose name holds an ESC (`esc\e[31mred`,
/// logged): the paste parser strips terminal escapes, so the pasted name reads `escred`;
/// explain still finds the server's log as `scan --server` finds it by its real name,
/// and gives scan's verdict, cause and recommendation (it found no log and explained
/// the paste alone).
#[test]
fn explain_matches_a_pasted_name_holding_an_escape() {
    let name = "esc\u{1b}[31mred";
    let h = Home::new(&[name], &[]);
    h.log("timeout-2.1.332.jsonl", name);
    let (_, scan) = h.json(&h.proj, &["scan", "--json", "--server", name]);
    let s = server(&scan, name).clone();
    assert_eq!(s["verdict"], "connection-failed", "{scan:#}");
    let paste = h.elsewhere.join("paste.txt");
    fs::write(
        &paste,
        format!(
            "Checking MCP server health...\n\n{name}: python3 s.py - \u{1b}[31m✘ Failed to connect\u{1b}[0m\n"
        ),
    )
    .unwrap();
    let p = paste.display().to_string();
    let (r, doc) = h.json(&h.proj, &["explain", "--json", &p]);
    assert_eq!(r.code, 1, "{r:?}");
    let said = &doc["servers"][0];
    assert!(said["logs"].is_string(), "{doc:#}");
    for k in ["verdict", "cause", "recommendation"] {
        assert_eq!(said[k], s[k], "{k}: {doc:#}");
    }
}

/// `explain` without `--project`, run where `claude mcp list` did not run (another
/// folder): a pasted name logged in one project only gets that server's resolution,
/// scan's verdict and recommendation (it explained the paste alone, "run `mcplogs scan
/// --server`"); a name logged in two projects names both and prints, for each, the
/// command that picks it (`mcplogs explain FILE --home HOME --project DIR`), which runs
/// as printed and then gives that project's log.
#[test]
fn explain_without_project_uses_scans_resolution_of_a_name_found_elsewhere() {
    let h = Home::new(&["solo", "twice"], &[]);
    let other = h.home.join("work/other");
    let third = h.home.join("work/third");
    for d in [&other, &third] {
        fs::create_dir_all(d.join(".claude")).unwrap();
    }
    let entry = json!({ "type": "stdio", "command": "python3", "args": ["s.py"] });
    let mut doc: Value =
        serde_json::from_str(&fs::read_to_string(h.home.join(".claude.json")).unwrap()).unwrap();
    doc["projects"][other.display().to_string()] = json!({
        "hasTrustDialogAccepted": true,
        "mcpServers": { "twice": entry },
    });
    // a project configuring its own `solo`, never logged
    doc["projects"][third.display().to_string()] = json!({
        "hasTrustDialogAccepted": true,
        "mcpServers": { "solo": entry },
    });
    h.write_claude_json(doc);
    h.log("timeout-2.1.332.jsonl", "solo");
    h.log("timeout-2.1.332.jsonl", "twice");
    h.log_in(&other, "timeout-2.1.288.jsonl", "twice");
    let paste = h.elsewhere.join("paste.txt");
    fs::write(
        &paste,
        "Checking MCP server health...\n\n\
         solo: python3 s.py - ✘ Failed to connect\n\
         twice: python3 s.py - ✘ Failed to connect\n",
    )
    .unwrap();
    let p = paste.display().to_string();
    let home = h.home.display().to_string();
    let (_, scan) = h.json(&h.elsewhere, &["scan", "--json", "--home", &home]);
    let (r, doc) = h.json(&h.elsewhere, &["explain", "--json", "--home", &home, &p]);
    assert_eq!(r.code, 1, "{r:?}");
    let entry = |doc: &Value, name: &str| {
        doc["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {doc:#}"))
            .clone()
    };
    // one project: scan's resolution of it
    let solo = entry(&doc, "solo");
    assert!(solo["logs"].is_string(), "{doc:#}");
    assert_eq!(solo["recommendation"], scan_recommendation(&scan, "solo"));
    assert_eq!(solo["cause"], server(&scan, "solo")["cause"], "{doc:#}");
    // two: both projects named, and a command for each
    let twice = entry(&doc, "twice");
    assert!(twice["logs"].is_null(), "{doc:#}");
    let rec = twice["recommendation"].as_str().unwrap();
    let commands: Vec<&str> = rec
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|c| c.starts_with("mcplogs explain"))
        .collect();
    assert_eq!(commands.len(), 2, "{rec}");
    let mut dirs = Vec::new();
    for cmd in &commands {
        let words = shell_words(cmd);
        assert!(words.contains(&"--home".to_string()), "{cmd}");
        let dir = words
            .iter()
            .skip_while(|w| *w != "--project")
            .nth(1)
            .unwrap()
            .clone();
        assert!(
            [&h.proj, &other]
                .iter()
                .any(|d| d.display().to_string() == dir),
            "{cmd}"
        );
        assert!(!dirs.contains(&dir), "{rec}");
        dirs.push(dir.clone());
        let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        let mut args = args.clone();
        args.insert(1, "--json");
        // run as printed (from another folder still)
        let (r, picked) = h.json(&h.elsewhere, &args);
        assert_eq!(r.code, 1, "{cmd}: {r:?}");
        let twice = entry(&picked, "twice");
        assert!(
            twice["logs"]
                .as_str()
                .is_some_and(|l| l.contains(&mcplogs::claude_code::names::encode_folder_name(&dir))),
            "{cmd}: {picked:#}"
        );
    }
    // the screen says the same, wrapped at 80 columns
    let screen = h.run(&h.elsewhere, &["explain", "--home", &home, &p]);
    assert!(
        words(&screen.stdout).contains("--project"),
        "{}",
        screen.stdout
    );
    // run in a project configuring its own `solo`: that project is the one, unlogged
    let (_, doc) = h.json(&third, &["explain", "--json", "--home", &home, &p]);
    assert!(entry(&doc, "solo")["logs"].is_null(), "{doc:#}");
}

/// Session 12, item 2: `oldlist` needs MCP_PROTOCOL_NEGOTIATION=legacy and `newonly`
/// (the same project) speaks only the new protocol. The full scan says no value serves
/// both and offers no legacy change; `scan --server oldlist` left `newonly` out of the
/// count and advised `mcplogs fix`. The filtered view, `explain` of oldlist's line and
/// `report --server oldlist` say what the full scan says.
#[test]
fn a_filtered_view_keeps_the_other_servers_negotiation_conflict() {
    let h = Home::new(&["oldlist", "newonly"], &[]);
    h.log("legacy-missing-resultType-2.1.301.jsonl", "oldlist");
    h.log("modern-only-refused-2.1.332.jsonl", "newonly");
    let (_, all) = h.json(&h.elsewhere, &["scan", "--json"]);
    let full = server(&all, "oldlist").clone();
    let conflict = |s: &Value| {
        s["fix"]["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|t| t.as_str().unwrap_or("").contains("no value serves both"))
    };
    assert!(conflict(&full), "{full:#}");
    // and its recommendation says so (it said "run `mcplogs fix`, which sets legacy")
    assert!(
        full["recommendation"]
            .as_str()
            .unwrap()
            .contains("no value serves both"),
        "{full:#}"
    );
    assert_eq!(full["legacyFixApplies"], false, "{full:#}");
    let (_, one) = h.json(&h.elsewhere, &["scan", "--json", "--server", "oldlist"]);
    let filtered = server(&one, "oldlist");
    assert_eq!(
        filtered["recommendation"], full["recommendation"],
        "{one:#}"
    );
    assert_eq!(filtered["fix"], full["fix"], "{one:#}");
    assert_eq!(
        filtered["legacyFixApplies"], full["legacyFixApplies"],
        "{one:#}"
    );
    // the screens: neither offers the legacy fix
    let full_screen = h.run(&h.elsewhere, &["scan"]);
    assert!(
        words(&full_screen.stdout).contains("no value serves both"),
        "{full_screen:?}"
    );
    let screen = h.run(&h.elsewhere, &["scan", "--server", "oldlist"]);
    for out in [&full_screen.stdout, &screen.stdout] {
        assert!(
            !words(out).contains("sets MCP_PROTOCOL_NEGOTIATION=legacy in"),
            "{out}"
        );
        assert!(!out.contains("can be fixed"), "{out}");
    }
    assert!(
        words(&screen.stdout).contains("no value serves both"),
        "{screen:?}"
    );
    // report of that server alone: scan's recommendation
    let (_, report) = h.json(
        &h.elsewhere,
        &["report", "--json", "--force", "--server", "oldlist"],
    );
    let section = report["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "oldlist")
        .unwrap_or_else(|| panic!("{report:#}"));
    assert_eq!(
        section["recommendation"], full["recommendation"],
        "{report:#}"
    );
    // explain of its `claude mcp list` line, run in the project: scan's recommendation
    let paste = h.elsewhere.join("paste.txt");
    fs::write(
        &paste,
        "Checking MCP server health...\n\n\
         oldlist: python3 s.py - ! Connected · tools fetch failed — resultType missing\n",
    )
    .unwrap();
    let (_, explained) = h.json(
        &h.proj,
        &["explain", "--json", &paste.display().to_string()],
    );
    assert_eq!(
        server(&explained, "oldlist")["recommendation"],
        full["recommendation"],
        "{explained:#}"
    );
}

/// `printed` (an `mcplogs …` command a screen printed) run as printed through `sh -c`,
/// `extra` appended, from another folder with another HOME (and the test's managed
/// folder, as every command of the test: `--managed-dir` is a hidden test flag).
fn run_as_printed(h: &Home, printed: &str, extra: &str) -> Run {
    assert!(printed.starts_with("mcplogs "), "{printed}");
    let other = tempfile::tempdir().unwrap();
    // (`du` and `prune` read no settings: they take no managed folder)
    let managed = if printed.starts_with("mcplogs du") || printed.starts_with("mcplogs prune") {
        ""
    } else {
        " --managed-dir \"$1\""
    };
    let cmdline = format!(
        "{} {extra}{managed}",
        printed.replacen("mcplogs", env!("CARGO_BIN_EXE_mcplogs"), 1)
    );
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(&cmdline)
        .arg("sh")
        .arg(&h.managed)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", other.path())
        .env("MCPLOGS_CACHE_DIR", other.path().join("cache"))
        .env("NO_COLOR", "1")
        .current_dir(other.path())
        .stdin(Stdio::null());
    clock_env(&mut c);
    run(&mut c)
}

/// [`words`] of a screen whose long commands are wrapped with ` \` at line ends: each
/// command read whole.
fn unwrapped(text: &str) -> String {
    words(&text.replace("\\\n", ""))
}

/// The backquoted `mcplogs …` commands of `text`.
fn printed_in(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|c| c.starts_with("mcplogs "))
        .map(str::to_string)
        .collect()
}

/// Session 12, item 1a: a scan of `--home H` whose server's command is found nowhere
/// prints `fix`'s step `mcplogs fix NAME --command-path …` (in its JSON `fix.steps` and
/// on the screen): printed without `--home`, run as printed from another folder it saw
/// no such server. It names the home now, and plans the change in that home's
/// `.claude.json`.
#[test]
fn the_command_path_step_names_the_home_and_runs_as_printed() {
    let h = Home::new(&[], &[]);
    h.write_claude_json(json!({
        "hasCompletedOnboarding": true,
        "mcpServers": { "far": { "type": "stdio", "command": "nosuchstub", "args": [] } },
        "projects": { h.proj.display().to_string(): { "hasTrustDialogAccepted": true } },
    }));
    h.log("path-2.1.332.jsonl", "far");
    let home = h.home.display().to_string();
    let (_, doc) = h.json(&h.elsewhere, &["scan", "--json", "--home", &home]);
    let steps = server(&doc, "far")["fix"]["steps"].to_string();
    let printed: Vec<String> = printed_in(&steps)
        .into_iter()
        .filter(|c| c.contains("--command-path"))
        .collect();
    assert_eq!(printed.len(), 1, "{steps}");
    let printed = &printed[0];
    assert!(printed.contains("--home"), "{printed}");
    // `fix`'s own list of what only the user can do prints the same command
    let fix = h.run(
        &h.elsewhere,
        &[
            "fix",
            "--home",
            &home,
            "--dry-run",
            "--claude-version",
            "2.1.332",
        ],
    );
    assert!(
        unwrapped(&fix.stderr).contains(printed.as_str()),
        "{printed}: {fix:?}"
    );
    // run as printed, the placeholder path replaced by a real program
    let exe = h.home.join("bin/nosuchstub");
    fs::create_dir_all(exe.parent().unwrap()).unwrap();
    fs::write(&exe, "#!/bin/sh\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&exe, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let line = printed.replace(
        "/ABSOLUTE/PATH/nosuchstub",
        &mcplogs::text::shell_word(&exe.display().to_string()),
    );
    let out = run_as_printed(&h, &line, "--dry-run --claude-version 2.1.332");
    assert_eq!(out.code, 0, "{line}: {out:?}");
    assert!(out.stderr.contains("(command-path)"), "{line}: {out:?}");
    assert!(
        out.stdout
            .contains(&format!("+++ {}", h.home.join(".claude.json").display())),
        "{line}: {out:?}"
    );
}

/// Session 12, item 1b: `explain --home H` of pasted `claude mcp list` lines whose
/// server's log is not in the folder it ran in prints `mcplogs scan --server NAME` (and
/// `… -v`) for the server's log: without `--home`, run as printed from another folder
/// it found no such server. Each names the home now and shows that server's verdict.
#[test]
fn explains_scan_commands_name_the_home_and_run_as_printed() {
    let h = Home::new(&["quiet", "closed"], &[]);
    h.log("timeout-2.1.332.jsonl", "quiet");
    h.log("timeout-2.1.332.jsonl", "closed");
    let home = h.home.display().to_string();
    let paste = h.elsewhere.join("paste.txt");
    fs::write(
        &paste,
        "Checking MCP server health...\n\n\
         quiet: python3 s.py - ✗ Failed to connect\n\
         closed: python3 s.py - ✗ Failed to connect — Connection closed\n",
    )
    .unwrap();
    let p = paste.display().to_string();
    // `claude mcp list` ran in a folder without these servers' logs (`--project`): an
    // explain run elsewhere without it now takes the one project that logs them, as
    // scan resolves it (and prints no scan command)
    let there = h.elsewhere.display().to_string();
    let (_, doc) = h.json(
        &h.elsewhere,
        &[
            "explain",
            "--json",
            "--home",
            &home,
            "--project",
            &there,
            &p,
        ],
    );
    let screen = h.run(
        &h.elsewhere,
        &["explain", "--home", &home, "--project", &there, &p],
    );
    let mut ran = 0;
    for name in ["quiet", "closed"] {
        let rec = server(&doc, name)["recommendation"].as_str().unwrap();
        let printed = printed_in(rec);
        assert!(!printed.is_empty(), "{rec}");
        for cmd in printed.iter().filter(|c| c.starts_with("mcplogs scan")) {
            assert!(cmd.contains("--home"), "{cmd}");
            assert!(
                unwrapped(&screen.stdout).contains(cmd.as_str()),
                "{cmd}: {screen:?}"
            );
            let out = run_as_printed(&h, cmd, "--json");
            let ran_doc: Value =
                serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {cmd}: {out:?}"));
            assert_eq!(
                server(&ran_doc, name)["verdict"],
                "connection-failed",
                "{cmd}: {ran_doc:#}"
            );
            ran += 1;
        }
    }
    assert!(ran >= 2, "{doc:#}");
}

/// Session 12, item 1, the other printed commands: of a scan of `--home H`, a logged
/// server no longer configured (`mcplogs prune` removes its logs) and a `.mcp.json`
/// server someone disabled in the user file (`mcplogs fix NAME` takes it out of the list
/// and approves it) each printed its command without `--home`. Each names the home
/// now and, run as printed from another folder, acts on that home.
#[test]
fn the_way_outs_commands_name_the_home_and_run_as_printed() {
    let h = Home::new(&[], &[]);
    let entry = json!({ "type": "stdio", "command": "python3", "args": ["s.py"] });
    fs::write(
        h.proj.join(".mcp.json"),
        json!({ "mcpServers": { "p-off": entry } }).to_string(),
    )
    .unwrap();
    fs::write(
        h.home.join(".claude/settings.json"),
        "{\"disabledMcpjsonServers\": [\"p-off\"]}\n",
    )
    .unwrap();
    h.log("timeout-2.1.332.jsonl", "p-off");
    h.log("timeout-2.1.332.jsonl", "gone-srv");
    let home = h.home.display().to_string();
    let (_, doc) = h.json(&h.elsewhere, &["scan", "--json", "--home", &home]);
    // (a server configured nowhere: its folder to delete, no `mcplogs prune`, which
    // keeps its newest files: helper-99 #5)
    let gone = scan_recommendation(&doc, "gone-srv");
    assert!(printed_in(&gone).is_empty(), "{gone}");
    let off = scan_recommendation(&doc, "p-off");
    let fix: Vec<String> = printed_in(&off)
        .into_iter()
        .filter(|c| c.starts_with("mcplogs fix"))
        .collect();
    assert!(!fix.is_empty(), "{off}");
    for cmd in &fix {
        assert!(cmd.contains("--home"), "{off}");
        let out = run_as_printed(&h, cmd, "--dry-run --claude-version 2.1.332");
        assert_eq!(out.code, 0, "{cmd}: {out:?}");
        assert!(
            out.stderr.contains("(enable-mcpjson-server)"),
            "{cmd}: {out:?}"
        );
    }
}

/// Session 12, item 3: `report --server nosuch --force` writes a report of no server
/// (documented for `--force`) and lists the known servers as `scan --server nosuch`
/// does: a logged server whose name holds a token once, with its tag. It listed it
/// twice, the second time untagged, as its folder name.
#[test]
fn report_lists_the_known_servers_as_scan_does() {
    let logged = format!("s-{TOKEN}");
    let unlogged = format!("u-{TOKEN}");
    let h = Home::new(&[&logged, &unlogged, "plain"], &[]);
    h.log("timeout-2.1.332.jsonl", &logged);
    h.log("timeout-2.1.332.jsonl", "plain");
    let scan = h.run(&h.elsewhere, &["scan", "--server", "nosuch"]);
    assert_eq!(scan.code, 2, "{scan:?}");
    let known = |err: &str| {
        err.split("Known servers: ")
            .nth(1)
            .unwrap_or_else(|| panic!("{err}"))
            .split("\nmcplogs: ")
            .next()
            .map(words)
            .unwrap()
    };
    let listed = known(&scan.stderr);
    assert_eq!(
        listed,
        {
            let mut names = [
                mcplogs::scan::select::printed(&logged),
                mcplogs::scan::select::printed(&unlogged),
                "plain".to_string(),
            ];
            names.sort();
            names.join(", ")
        },
        "{scan:?}"
    );
    assert!(!scan.stderr.contains(TOKEN), "{scan:?}");
    let out = h.elsewhere.join("issue.md");
    let report = h.run(
        &h.elsewhere,
        &[
            "report",
            "--server",
            "nosuch",
            "--force",
            "-o",
            &out.display().to_string(),
        ],
    );
    assert_eq!(report.code, 0, "{report:?}");
    assert_eq!(known(&report.stderr), listed, "{report:?}");
    assert!(!report.stderr.contains(TOKEN), "{report:?}");
    let md = fs::read_to_string(&out).unwrap();
    assert!(!md.contains(TOKEN), "{md}");
}

/// Session 12, item 1: the advice to a server that speaks only the new protocol when no
/// change is planned for it (here another server of its project needs the legacy
/// setting) names `mcplogs fix` as what writes `auto`: with `--home`, that command
/// carries it (it named `mcplogs fix` alone, which reads this machine's logs).
#[test]
fn the_modern_only_advice_names_the_home() {
    let h = Home::new(&["oldlist", "newonly"], &[]);
    h.log("legacy-missing-resultType-2.1.301.jsonl", "oldlist");
    h.log("modern-only-refused-2.1.332.jsonl", "newonly");
    let home = h.home.display().to_string();
    let (_, doc) = h.json(&h.elsewhere, &["scan", "--json", "--home", &home]);
    let rec = scan_recommendation(&doc, "newonly");
    let printed = printed_in(&rec);
    assert!(
        printed.iter().any(|c| c.starts_with("mcplogs fix")),
        "{rec}"
    );
    for cmd in printed.iter().filter(|c| c.starts_with("mcplogs fix")) {
        assert!(cmd.contains("--home"), "{rec}");
    }
}

/// `mcplogs ARGS --home HOME`, run from the home (the session-20 tests' one way in).
fn on_home(home: &Path, args: &[&str]) -> Run {
    let mut c = mcplogs(home);
    c.args(args).arg("--home").arg(home);
    run(&mut c)
}

/// The home's `~/.claude.json`, parsed (the session-20 tests edit it, then write it back).
fn claude_json(home: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(home.join(".claude.json")).unwrap()).unwrap()
}

fn write_claude_json(home: &Path, config: &Value) {
    fs::write(home.join(".claude.json"), config.to_string()).unwrap();
}

/// `~/.claude.json` with `removed` no longer configured and `disabled` disabled in the
/// project `api`: two servers Claude Code no longer starts. Returns the configuration
/// written.
fn no_longer_started(home: &Path, api: &Path, removed: &str, disabled: &str) -> Value {
    let mut config = claude_json(home);
    config["mcpServers"]
        .as_object_mut()
        .unwrap()
        .remove(removed);
    config["projects"][api.display().to_string()]["disabledMcpServers"] = json!([disabled]);
    write_claude_json(home, &config);
    config
}

/// helper-86 #10: a configuration Claude Code skips is a problem whether its server
/// logged before (`bad-tool`, now without a command) or never did (`never-ran`): `scan`
/// exited 1 for the second and 0 for the first, `report` refused both with "no MCP
/// server fails" and exit 0, and `export` marked only the second a problem. A home
/// whose one entry is healthy stays 0 everywhere.
#[test]
fn a_configuration_claude_code_skips_is_a_problem_logged_or_not() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    project_in(&home, "api");
    let full = claude_json(&home);
    let broken = json!({ "type": "stdio", "args": ["x"] });
    for (names, skipped) in [
        (&["acme.docs", "bad-tool"][..], Some("bad-tool")),
        (&["acme.docs", "never-ran"][..], Some("never-ran")),
        (&["acme.docs"][..], None),
    ] {
        let mut config = full.clone();
        config["mcpServers"] = Value::Object(
            names
                .iter()
                .map(|n| match *n {
                    "acme.docs" => (n.to_string(), full["mcpServers"][n].clone()),
                    _ => (n.to_string(), broken.clone()),
                })
                .collect(),
        );
        write_claude_json(&home, &config);
        let code = i32::from(skipped.is_some());
        let cmd = |args: &[&str]| {
            let mut c = mcplogs(&home);
            c.arg(args[0]).arg("--home").arg(&home).args(&args[1..]);
            run(&mut c)
        };
        let scan = cmd(&["scan"]);
        assert_eq!(scan.code, code, "{names:?}: {scan:?}");
        assert!(
            scan.stdout.lines().next().unwrap().contains("none fail"),
            "{scan:?}"
        );
        let report = cmd(&["report"]);
        assert_eq!(report.code, code, "{names:?}: {report:?}");
        let json = cmd(&["report", "--json"]);
        assert_eq!(json.code, code, "{names:?}: {json:?}");
        let doc: Value = serde_json::from_str(&json.stdout).unwrap();
        let out = home.join("records.jsonl");
        let _ = fs::remove_file(&out);
        // (a ledger of its own: every record is new to it)
        let mut c = mcplogs(&home);
        c.env(
            "MCPLOGS_CACHE_DIR",
            home.join(format!("export-cache-{code}-{}", names.len())),
        )
        .arg("export")
        .arg("--home")
        .arg(&home)
        .arg("--file")
        .arg(&out);
        let export = run(&mut c);
        assert_eq!(export.code, 0, "{export:?}");
        let records: Vec<Value> = fs::read_to_string(&out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let problems: Vec<&str> = records
            .iter()
            .filter(|r| r["attributes"]["mcplogs.problem"] == json!(true))
            .map(|r| {
                r["attributes"]["mcplogs.configuration.state"]
                    .as_str()
                    .unwrap()
            })
            .collect();
        match skipped {
            Some(name) => {
                assert!(report.stderr.contains("own set-up"), "{report:?}");
                assert!(report.stderr.contains(&format!("  {name}: ")), "{report:?}");
                assert!(!report.stderr.contains("no MCP server fails"), "{report:?}");
                assert_eq!(doc["notWritten"]["reason"], "own-setup", "{doc:#}");
                // (names go out as ids only)
                assert_eq!(problems, ["configuration-error"], "{records:#?}");
            }
            None => {
                assert!(report.stderr.contains("no MCP server fails"), "{report:?}");
                assert_eq!(doc["notWritten"]["reason"], "no-failure", "{doc:#}");
                assert!(problems.is_empty(), "{records:#?}");
            }
        }
    }
}

/// helper-86 #8: `scan --server WRONG-TYPES` shows `wrong-types` (names are matched case
/// aside there), while `fix WRONG-TYPES` said no server of that name was logged or
/// configured. `fix` still takes a name only as configured (it writes for that server),
/// and now says which one differs in case only.
#[test]
fn fix_names_the_server_a_name_differs_from_in_case_only() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    project_in(&home, "api");
    let scan = on_home(&home, &["scan", "--server", "WRONG-TYPES"]);
    assert!(scan.stdout.contains("wrong-types"), "{scan:?}");
    let fix = on_home(&home, &["fix", "--dry-run", "WRONG-TYPES"]);
    assert_eq!(fix.code, 2, "{fix:?}");
    assert!(
        fix.stderr.contains(r#"did you mean "wrong-types"?"#),
        "{fix:?}"
    );
    let fix = on_home(&home, &["fix", "--dry-run", "nothing-like-it"]);
    assert_eq!(fix.code, 2, "{fix:?}");
    assert!(!fix.stderr.contains("did you mean"), "{fix:?}");
    // two servers differing in case only: both named (helper-88 #12)
    let mut config = claude_json(&home);
    config["mcpServers"]["Wrong-Types"] = config["mcpServers"]["wrong-types"].clone();
    write_claude_json(&home, &config);
    let fix = on_home(&home, &["fix", "--dry-run", "WRONG-TYPES"]);
    assert_eq!(fix.code, 2, "{fix:?}");
    assert!(
        fix.stderr
            .contains(r#"did you mean "Wrong-Types" or "wrong-types"?"#),
        "{fix:?}"
    );
}

/// helper-86 #7: a log folder several configured names share is printed by them joined
/// (`api-v2 + api_v2`), which `--server` takes; `scan NAME` and `report NAME` with that
/// name said no server of that name was configured or logged.
#[test]
fn a_shared_folders_joined_name_is_a_name_for_scan_and_report() {
    let tmp = tempfile::tempdir().unwrap();
    let home = samples().join("shared-folder");
    // (case aside, as `--server` takes it: helper-89 #9)
    for (sub, name) in [
        ("scan", "api-v2 + api_v2"),
        ("report", "api-v2 + api_v2"),
        ("scan", "API-V2 + API_V2"),
    ] {
        let mut c = mcplogs(tmp.path());
        c.arg(sub).arg("--home").arg(&home).arg(name);
        let r = run(&mut c);
        assert_eq!(r.code, 1, "{sub}: {r:?}");
        assert!(
            r.stderr.contains("the server of that name (`--server`)"),
            "{sub}: {r:?}"
        );
    }
    // (helper-88 #4: names each configured or logged, but not the name the scan prints
    // for one folder, were taken, and the scan then said no server had it)
    for name in ["api-v2 + nope", "api_v2 + api-v2", "api-v2 + api-v2"] {
        let mut c = mcplogs(tmp.path());
        c.arg("scan").arg("--home").arg(&home).arg(name);
        let r = run(&mut c);
        assert_eq!(r.code, 2, "{name}: {r:?}");
        assert!(!r.stderr.contains("scanning the server"), "{name}: {r:?}");
    }
    let (_tmp, linux) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let mut c = mcplogs(&linux);
    c.arg("scan")
        .arg("--home")
        .arg(&linux)
        .arg("bad-tool + wrong-types");
    let r = run(&mut c);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(!r.stderr.contains("scanning the server"), "{r:?}");
}

/// helper-88 #5 #6: a report written for others (a `tolerated` server's authors) beside
/// a configuration Claude Code skips exits 1 for it, as `scan` does, and names it among
/// the servers to act on; `report --json` marks the logged one a problem, as `export`
/// does.
#[test]
fn a_written_report_names_the_configurations_claude_code_skips() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    project_in(&home, "api");
    let mut config = claude_json(&home);
    let keep = config["mcpServers"]["no-resulttype"].clone();
    config["mcpServers"] = json!({
        "no-resulttype": keep,
        "bad-tool": { "type": "stdio", "args": ["x"] },
        "never-ran": { "type": "stdio" },
    });
    write_claude_json(&home, &config);
    let report = |json: bool| {
        let mut c = mcplogs(&home);
        c.arg("report").arg("--home").arg(&home);
        if json {
            c.arg("--json");
        }
        run(&mut c)
    };
    let md = report(false);
    assert_eq!(md.code, 1, "{md:?}");
    let others = md
        .stdout
        .split("Other servers to act on")
        .nth(1)
        .unwrap_or_else(|| panic!("{}", md.stdout));
    for name in ["bad-tool", "never-ran"] {
        assert!(
            others.contains(&format!(
                "- `{name}`: `configuration-error` (the user's own set-up"
            )),
            "{name}: {others}"
        );
    }
    let json = report(true);
    assert_eq!(json.code, 1, "{json:?}");
    let doc: Value = serde_json::from_str(&json.stdout).unwrap();
    let problem = |name: &str| {
        doc["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {doc:#}"))["problem"]
            .clone()
    };
    assert_eq!(problem("bad-tool"), json!(true));
    assert_eq!(problem("no-resulttype"), json!(false));
}

/// helper-88 #1: a log folder two configured names share took the state of whichever
/// name came first: with `api_v2` disabled and `api-v2` still started (and failing), the
/// row was "disabled", none failed and every command said so. The folder's state is that
/// of the name that most counts now; both disabled, it is disabled.
#[test]
fn a_shared_folder_counts_while_one_of_its_names_starts() {
    let (_tmp, home) = relocated("shared-folder", "/tmp/mcplogs-samples-shared/home-shared");
    let api = project_in(&home, "api");
    let base = claude_json(&home);
    for (disabled, fails) in [
        (&["api_v2"][..], true),
        (&["api-v2"][..], true),
        (&["api-v2", "api_v2"][..], false),
    ] {
        let mut config = base.clone();
        config["projects"][api.display().to_string()]["disabledMcpServers"] = json!(disabled);
        write_claude_json(&home, &config);
        let scan = on_home(&home, &["scan"]);
        let first = scan.stdout.lines().next().unwrap_or_default();
        if fails {
            assert_eq!(scan.code, 1, "{disabled:?}: {scan:?}");
            assert!(first.contains("1 fails"), "{disabled:?}: {first}");
            assert!(!first.contains("disabled"), "{disabled:?}: {first}");
        } else {
            assert_eq!(scan.code, 0, "{disabled:?}: {scan:?}");
            assert!(first.contains("1 disabled"), "{disabled:?}: {first}");
        }
    }
    // one name skipped for a configuration error while the other starts: the folder
    // fails, and the skipped entry is a configuration error of its own (helper-89 #2:
    // it disappeared behind the one that starts)
    let mut config = base.clone();
    config["mcpServers"]["api_v2"] = json!({ "type": "stdio", "args": ["x"] });
    write_claude_json(&home, &config);
    let scan = on_home(&home, &["scan"]);
    let first = scan.stdout.lines().next().unwrap_or_default();
    assert_eq!(scan.code, 1, "{scan:?}");
    assert!(first.contains("1 fails, 1 configuration error"), "{first}");
    let only = on_home(&home, &["scan", "--server", "api_v2"]);
    assert!(only.stdout.contains("skipped: no \"command\""), "{only:?}");
    // the folder's printed name selects the skipped name's row too (helper-90 #1)
    let joined = on_home(&home, &["scan", "--server", "api-v2 + api_v2"]);
    let first = joined.stdout.lines().next().unwrap_or_default();
    assert!(
        first.contains("1 fails, 1 configuration error"),
        "{joined:?}"
    );
    // both skipped for the same reason: two problems, not one (helper-90 #1)
    config["mcpServers"]["api-v2"] = json!({ "type": "stdio", "args": ["y"] });
    write_claude_json(&home, &config);
    let both = on_home(&home, &["scan"]);
    let first = both.stdout.lines().next().unwrap_or_default();
    assert!(first.contains("2 configuration errors"), "{both:?}");
}

/// helper-88 #9: the status line counted a working server disabled in the project, or no
/// longer configured, among those that work (`MCP 4✓ 6✗ ...`), where `scan` counts it in
/// no verdict now; with a server failing, the configuration is read anyway.
#[test]
fn the_status_line_counts_no_server_claude_code_no_longer_starts() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let api = project_in(&home, "api");
    let statusline = || {
        let mut c = mcplogs(&home);
        c.env("COLUMNS", "60")
            .args(["statusline", "--color", "never", "--home"])
            .arg(&home);
        run_with_stdin(&mut c, session_input(&api).as_bytes())
    };
    let before = statusline();
    assert!(before.stdout.starts_with("MCP 4✓ 6✗ "), "{before:?}");
    no_longer_started(&home, &api, "modern-ok", "acme.docs");
    let after = statusline();
    assert!(after.stdout.starts_with("MCP 2✓ 6✗ "), "{after:?}");
    let scan = on_home(&home, &["scan"]);
    let first = scan.stdout.lines().next().unwrap_or_default();
    assert!(first.contains("6 fail"), "{first}");
    assert!(first.contains("1 disabled"), "{first}");
    assert!(first.contains("1 no longer configured"), "{first}");
}

/// helper-88 #11: a `tolerated` server Claude Code now skips for a configuration error
/// was counted twice in the summary line: among those working only because Claude Code
/// fills in fields, and among the configuration errors (11 of 10 rows).
#[test]
fn the_summary_counts_a_skipped_tolerated_server_once() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    project_in(&home, "api");
    let mut config = claude_json(&home);
    config["mcpServers"]["no-cache-fields"]
        .as_object_mut()
        .unwrap()
        .remove("command");
    write_claude_json(&home, &config);
    let scan = on_home(&home, &["scan"]);
    let first = scan.stdout.lines().next().unwrap_or_default();
    assert!(
        first.contains("1 works only because Claude Code fills in missing fields"),
        "{first}"
    );
    assert!(first.contains("1 configuration error"), "{first}");
}

/// helper-88 #7: `explain` of a pasted failing line for a server the configuration has
/// since disabled (or removed) counted it as failing and exited 1, beside `scan`'s own
/// advice for it saying its logs do not count; `scan` says none fail.
#[test]
fn explain_counts_no_server_the_configuration_no_longer_starts() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let api = project_in(&home, "api");
    let paste = fs::read_to_string(samples().join("mcp-list/linux-home-2.1.332.txt")).unwrap();
    let line = |name: &str| {
        paste
            .lines()
            .find(|l| l.starts_with(&format!("{name}: ")))
            .unwrap()
            .to_string()
    };
    let explain = |text: &str| {
        let file = home.join("paste.txt");
        fs::write(&file, text).unwrap();
        let mut c = mcplogs(&home);
        c.arg("explain")
            .arg(&file)
            .arg("--home")
            .arg(&home)
            .arg("--project")
            .arg(&api);
        run(&mut c)
    };
    // (before: both fail, as the paste says and scan agrees)
    let before = explain(&format!("{}\n{}\n", line("bad-tool"), line("exits-early")));
    assert_eq!(before.code, 1, "{before:?}");
    assert!(before.stdout.contains("2 fail"), "{before:?}");
    let mut config = no_longer_started(&home, &api, "exits-early", "bad-tool");
    for name in ["bad-tool", "exits-early"] {
        let r = explain(&format!("{}\n", line(name)));
        assert_eq!(r.code, 0, "{name}: {r:?}");
        assert!(r.stdout.contains("none fail"), "{name}: {r:?}");
        // `--json` says why the exit code is 0 (helper-89 #8)
        let file = home.join("paste.txt");
        let mut c = mcplogs(&home);
        c.arg("explain")
            .arg("--json")
            .arg(&file)
            .arg("--home")
            .arg(&home)
            .arg("--project")
            .arg(&api);
        let doc: Value = serde_json::from_str(&run(&mut c).stdout).unwrap();
        assert_eq!(doc["servers"][0]["problem"], false, "{doc:#}");
        let scan = on_home(&home, &["scan", "--server", name]);
        assert_eq!(scan.code, 0, "{name}: {scan:?}");
    }
    // skipped for a configuration error since: a problem in both (exit 1), not a failure
    config["mcpServers"]["tools-error"]
        .as_object_mut()
        .unwrap()
        .remove("command");
    write_claude_json(&home, &config);
    let r = explain(&format!("{}\n", line("tools-error")));
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stdout
            .lines()
            .next()
            .unwrap()
            .contains("none fail, 1 configuration error"),
        "{r:?}"
    );
    let scan = on_home(&home, &["scan", "--server", "tools-error"]);
    assert_eq!(scan.code, 1, "{scan:?}");
    assert!(
        scan.stdout
            .lines()
            .next()
            .unwrap()
            .contains("none fail, 1 configuration error"),
        "{scan:?}"
    );
}

/// helper-88 #2: servers of a project's `.mcp.json` that is not valid JSON (Claude Code
/// then loads none of its servers: observed on 2.1.288 and 2.1.332) were counted as
/// failing, with `configuration: null`, a legacy fix `fix` would write and a report for
/// their authors. They are skipped with the file now: history, the file the problem.
#[test]
fn the_servers_of_a_broken_mcp_json_are_not_started() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let api = project_in(&home, "api");
    let mut config = claude_json(&home);
    let servers = config["mcpServers"].as_object_mut().unwrap();
    let moved = json!({
        "wrong-types": servers.remove("wrong-types").unwrap(),
        "missing-cmd": servers.remove("missing-cmd").unwrap(),
    });
    write_claude_json(&home, &config);
    // (valid, then with a trailing comma)
    let good = json!({ "mcpServers": moved }).to_string();
    fs::create_dir_all(api.join(".claude")).unwrap();
    fs::write(
        api.join(".claude/settings.local.json"),
        json!({ "enabledMcpjsonServers": ["wrong-types", "missing-cmd"] }).to_string(),
    )
    .unwrap();
    let scan = |mcp_json: &str| {
        fs::write(api.join(".mcp.json"), mcp_json).unwrap();
        let r = on_home(&home, &["scan", "--json"]);
        let doc: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"));
        (r.code, doc)
    };
    let state = |doc: &Value, name: &str| {
        doc["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {doc:#}"))["configuration"]["state"]
            .clone()
    };
    let (_, before) = scan(&good);
    assert_eq!(state(&before, "wrong-types"), "starts", "{before:#}");
    let broken = format!("{},", good.trim_end_matches('}')) + "}";
    assert!(serde_json::from_str::<Value>(&broken).is_err());
    let (code, after) = scan(&broken);
    assert_eq!(code, 1, "the .mcp.json row: {after:#}");
    for name in ["wrong-types", "missing-cmd"] {
        assert_eq!(
            state(&after, name),
            "configuration-error",
            "{name}: {after:#}"
        );
    }
    let fixable = after["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["name"] == "wrong-types")
        .all(|s| s["legacyFixApplies"] == json!(false));
    assert!(fixable, "{after:#}");
    let screen = on_home(&home, &["scan"]).stdout;
    let first = screen.lines().next().unwrap();
    // (exits-early, old-protocol, bad-tool, tools-error still fail; the two skipped
    // with the file are its one configuration error, as `claude mcp list` names only
    // the file: helper-90 #3)
    assert!(first.contains("4 fail"), "{first}");
    assert!(first.contains("1 configuration error"), "{first}");
    assert!(!first.contains("configuration errors"), "{first}");
    for name in ["wrong-types", "missing-cmd"] {
        let problem = after["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()["configuration"]["detail"]
            .clone();
        assert!(
            problem.to_string().contains("not valid JSON"),
            "{name}: {problem}"
        );
    }
}

/// helper-88 #12: `scan --since 1h --server NAME` of a logged server no file configures
/// now, every session of it older, said "no server named NAME" (exit 2) while the
/// server is there; it says when its last session was, and exits 0 as a configured
/// server not seen since does.
#[test]
fn since_with_the_name_of_a_server_seen_before_says_when() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    project_in(&home, "api");
    let mut config = claude_json(&home);
    config["mcpServers"]
        .as_object_mut()
        .unwrap()
        .remove("exits-early");
    write_claude_json(&home, &config);
    let scan = |name: &str| {
        let mut c = mcplogs(&home);
        c.env("MCPLOGS_NOW", "2026-12-01T00:00:00Z")
            .args(["scan", "--since", "1h", "--server", name, "--home"])
            .arg(&home);
        run(&mut c)
    };
    let r = scan("exits-early");
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stderr.contains("no session of \"exits-early\" since"),
        "{r:?}"
    );
    assert!(!r.stderr.contains("no server named"), "{r:?}");
    let printed = r.stderr.split('`').nth(1).unwrap();
    let words = shell_words(printed);
    let mut c = mcplogs(&home);
    c.args(&words[1..]);
    let shown = run(&mut c);
    assert!(shown.stdout.contains("exits-early"), "{printed}: {shown:?}");
    let r = scan("no-such-server");
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("no server named"), "{r:?}");
}

/// helper-88 #10: a `.mcp.json` server nobody approved whose logs (from `claude -p`)
/// fail in a way the legacy setting cures: the summary counted it as fixable with the
/// legacy setting, "What to do" gave only the approval, while the hook and `fix` wrote
/// the legacy setting. Both are given now on the screen; its recommendation is the
/// failure's, its state says it is pending.
#[test]
fn a_pending_server_that_fails_gets_its_fix_and_its_approval() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let api = project_in(&home, "api");
    let mut config = claude_json(&home);
    let moved = config["mcpServers"]
        .as_object_mut()
        .unwrap()
        .remove("wrong-types")
        .unwrap();
    write_claude_json(&home, &config);
    fs::write(
        api.join(".mcp.json"),
        json!({ "mcpServers": { "wrong-types": moved } }).to_string(),
    )
    .unwrap();
    let mut c = mcplogs(&home);
    c.env("COLUMNS", "400")
        .args(["scan", "--server", "wrong-types", "--home"])
        .arg(&home);
    let screen = run(&mut c);
    assert_eq!(screen.code, 1, "{screen:?}");
    let todo = screen.stdout.split("What to do").nth(1).unwrap();
    assert!(todo.contains("Run `mcplogs fix"), "{todo}");
    assert!(todo.contains("nobody approved"), "{todo}");
    let mut c = mcplogs(&home);
    c.args(["scan", "--json", "--server", "wrong-types", "--home"])
        .arg(&home);
    let doc: Value = serde_json::from_str(&run(&mut c).stdout).unwrap();
    let rec = doc["servers"][0]["recommendation"].as_str().unwrap();
    assert!(rec.contains("mcplogs fix"), "{rec}");
    assert_eq!(
        doc["servers"][0]["configuration"]["state"], "pending-approval",
        "{doc:#}"
    );
    // a failure outside the legacy fix's item: its own item and the approval's, the
    // approval said once (helper-90 #4)
    let mut c = mcplogs(&home);
    c.env("COLUMNS", "400").args(["scan", "--home"]).arg(&home);
    let all = run(&mut c).stdout;
    let todo = all.split("What to do").nth(1).unwrap();
    assert_eq!(todo.matches("nobody approved").count(), 1, "{todo}");
}

/// helper-88 #3: a log folder two names holding a token share is printed by its names
/// joined, each with its own tag; `scan --server`, `report` and `du --server` take that
/// printed form as they take a shared folder's joined name (it was "no server named").
#[test]
fn a_shared_folders_printed_joined_form_selects_it() {
    let (h, [a_dot, a_low, _]) = token_names_home();
    let printed = mcplogs::scan::select::printed;
    let (pa, pl) = (printed(&a_dot), printed(&a_low));
    let shared = format!("{pa} + {pl}");
    let (r, scan) = h.json(&h.proj, &["scan", "--json", "--server", &shared]);
    let names: Vec<&str> = scan["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, [shared.as_str()], "{r:?}");
    let (r, du) = h.json(&h.proj, &["du", "--json", "--server", &shared]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(
        du["projects"][0]["servers"][0]["name"],
        shared.as_str(),
        "{du:#}"
    );
    assert_eq!(
        du["projects"][0]["servers"].as_array().unwrap().len(),
        1,
        "{du:#}"
    );
    let (r, by_name) = h.json(&h.proj, &["scan", "--json", &shared]);
    assert_eq!(r.code, 1, "{r:?}");
    assert_eq!(by_name["servers"], scan["servers"], "{by_name:#}");
    let (r, report) = h.json(&h.proj, &["report", "--json", "--force", &shared]);
    assert_eq!(r.code, 1, "{r:?}");
    assert_eq!(report["servers"][0]["name"], shared.as_str(), "{report:#}");
    // a name missed lists the shared folder as it is printed (one tag for the names
    // joined was offered, which selected nothing)
    let r = h.run(&h.proj, &["scan", "--server", "a.nope"]);
    assert_eq!(r.code, 2, "{r:?}");
    let stderr = r.stderr.replace("\n  ", " ");
    let known = stderr.split("Known servers: ").nth(1).unwrap();
    assert!(known.contains(&shared), "{stderr}");
}

/// helper-94 F1: a failing user server (`wrong-types`) sharing its log folder with a
/// project `.mcp.json` server turned off (`wrong_types`, `disabledMcpjsonServers`): the
/// status line read only `~/.claude.json`'s names, so the folder took the disabled
/// name's state and showed `MCP ✓` (the hook said nothing) while `scan` counted the
/// shared folder as failing. Both now give scan's answer.
#[test]
fn the_status_line_resolves_a_shared_folder_with_a_mcp_json_name_as_scan_does() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let api = project_in(&home, "api");
    std::fs::write(
        api.join(".mcp.json"),
        r#"{"mcpServers":{"wrong_types":{"command":"python3","args":["x.py"]}}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(api.join(".claude")).unwrap();
    std::fs::write(
        api.join(".claude/settings.json"),
        r#"{"disabledMcpjsonServers":["wrong_types"]}"#,
    )
    .unwrap();
    let scan = on_home(&home, &["scan", "--server", "wrong-types"]);
    assert_eq!(scan.code, 1, "{scan:?}");
    assert!(
        scan.stdout
            .contains("wrong-types + wrong_types  tools-fetch-failed"),
        "{scan:?}"
    );
    let mut c = mcplogs(&home);
    c.args(["statusline", "--color", "never", "--home"])
        .arg(&home);
    let line = run_with_stdin(&mut c, session_input(&api).as_bytes());
    assert!(
        line.stdout
            .contains("wrong-types + wrong_types (tools fetch failed"),
        "{line:?}"
    );
    let mut c = mcplogs(&home);
    c.args(["hook", "--home"]).arg(&home);
    let hook = run_with_stdin(&mut c, session_input(&api).as_bytes());
    assert!(
        hook.stdout.contains("\\\"wrong-types + wrong_types\\\""),
        "{hook:?}"
    );
}

/// helper-95 #1: two projects whose paths differ only where the log folder's encoding
/// loses it (`my_app`, `my-app`) write one log folder for a user server. Each project's
/// sessions are its own server: `scan` showed one row, named after the project of the
/// latest session with the other project's failure, and `fix` run in the failing
/// project planned the other project's settings.
#[test]
fn two_projects_sharing_a_log_folder_each_get_their_own_answer() {
    let h = Home::new(&[], &["github"]);
    let failing = h.home.join("work/my_app");
    let other = h.home.join("work/my-app");
    for d in [&failing, &other] {
        fs::create_dir_all(d).unwrap();
    }
    h.log_in(&failing, "modern-only-refused-2.1.332.jsonl", "github");
    // the other project's session, in a later file of the same folder
    h.log_in(&other, "path-2.1.332.jsonl", "github");
    let folder = h.log_folder(&other, "github");
    fs::rename(
        folder.join("2026-12-05T17-55-35-642Z.jsonl"),
        folder.join("2026-12-05T18-10-00-000Z.jsonl"),
    )
    .unwrap();
    h.log_in(&failing, "modern-only-refused-2.1.332.jsonl", "github");
    let (r, doc) = h.json(&h.elsewhere, &["scan", "--json"]);
    assert_eq!(r.code, 1, "{r:?}");
    let mut rows: Vec<(String, String)> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["name"] == "github")
        .map(|s| {
            (
                s["project"].as_str().unwrap().to_string(),
                format!("{} ({})", s["verdict"], s["cause"]).replace('"', ""),
            )
        })
        .collect();
    rows.sort();
    let project = |p: &Path| p.display().to_string();
    assert_eq!(
        rows,
        [
            (
                project(&other),
                "connection-failed (command-not-found)".to_string()
            ),
            (
                project(&failing),
                "connection-failed (modern-only)".to_string()
            ),
        ],
        "{doc:#}"
    );
    // neither project since the cut-off: no row, nothing failing (helper-98 F1: the
    // second project's old verdict was a row of its own, exit 1). The newest session
    // only connected (it decides nothing), so both projects' files are read.
    let cwd = serde_json::to_string(&other.display().to_string()).unwrap();
    let connected: String = [
        ("debug", "Starting connection with timeout of 30000ms"),
        ("debug", "Successfully connected (transport: stdio) in 100ms"),
        (
            "debug",
            r#"Connection established with capabilities: {"hasTools":true,"hasPrompts":false,"hasResources":false,"serverVersion":{"name":"stub","version":"1.0.0"},"protocolEra":"legacy","negotiatedProtocolVersion":"2025-11-25"}"#,
        ),
    ]
    .iter()
    .map(|(level, text)| {
        format!(
            "{{\"{level}\":{},\"timestamp\":\"2026-12-05T19:00:00.000Z\",\"sessionId\":\"only-connected\",\"cwd\":{cwd}}}\n",
            serde_json::to_string(text).unwrap()
        )
    })
    .collect();
    let newest = folder.join("2026-12-05T19-00-00-000Z.jsonl");
    fs::write(&newest, connected).unwrap();
    set_age(&newest, 86_400);
    // (the other project's failing file before the failing project's)
    let (later, earlier) = (
        folder.join("2026-12-05T18-10-00-000Z.jsonl"),
        folder.join("2026-12-05T16-00-00-000Z.jsonl"),
    );
    fs::rename(&later, &earlier).unwrap();
    let (r, doc) = h.json(&h.elsewhere, &["scan", "--json", "--since", "10m"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(doc["servers"].as_array().unwrap().len(), 0, "{doc:#}");
    fs::remove_file(&newest).unwrap();
    fs::rename(&earlier, &later).unwrap();
    // fix, run in the failing project, never plans the other project's settings
    let r = h.run(&failing, &["fix", "--dry-run"]);
    assert!(
        !r.stdout.contains("my-app/.claude") && !r.stderr.contains("my-app/.claude"),
        "{r:?}"
    );
    let said = words(&format!("{} {}", r.stdout, r.stderr));
    assert!(
        said.contains("For github (~/work/my_app) (modern-negotiation)")
            && said.contains("+++ ~/work/my_app/.claude/settings.local.json"),
        "{r:?}"
    );
}

/// helper-95 #3: the legacy setting in effect by a file last changed before the failing
/// connection was made was "in place, and this failure is from a connection made
/// before it took effect" (restart, and fail again). Said so only when the file changed
/// after the process started; before, the setting was there and not read, and `scan`,
/// the status line and the hook say the same: look (`mcplogs scan`), nothing to run.
/// Dates absolute: the fixture's process started 2026-12-05 17:55:35.
#[test]
fn a_legacy_setting_older_than_the_failing_connection_is_not_called_in_place() {
    let h = Home::new(&[], &["bad"]);
    h.log("legacy-missing-resultType-2.1.301.jsonl", "bad");
    let settings = h.home.join(".claude/settings.json");
    fs::write(
        &settings,
        "{\"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"}}\n",
    )
    .unwrap();
    let set_at = |iso: &str| {
        let secs = mcplogs::time::parse_iso(iso).unwrap();
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs as u64);
        fs::File::options()
            .write(true)
            .open(&settings)
            .unwrap()
            .set_modified(t)
            .unwrap();
    };
    for (changed, in_place) in [
        ("2026-12-06T09:00:00Z", true),
        ("2026-12-01T09:00:00Z", false),
    ] {
        set_at(changed);
        let (_, doc) = h.json(&h.elsewhere, &["scan", "--json"]);
        let rec = server(&doc, "bad")["recommendation"]
            .as_str()
            .unwrap()
            .to_string();
        let line = h.session_says("statusline");
        let hook = h.session_says("hook");
        if in_place {
            assert!(rec.contains("The fix is in place"), "{rec}");
            assert!(
                line.contains("bad (tools fetch failed · fix in place"),
                "{line}"
            );
            assert!(hook.contains("in place already"), "{hook}");
        } else {
            assert!(
                !rec.contains("The fix is in place")
                    && rec.contains("when the failing connection was made")
                    && rec.contains("did not read that file"),
                "{rec}"
            );
            assert!(
                line.contains("bad (tools fetch failed · mcplogs scan)"),
                "{line}"
            );
            assert!(!hook.contains("in place"), "{hook}");
        }
        assert_eq!(server(&doc, "bad")["legacyFixApplies"], false, "{doc:#}");
    }
}

/// helper-95 #2: the user settings file (the file the legacy setting goes in) with a
/// trailing comma: Claude Code ignores it whole, and `mcplogs fix` refuses to edit it
/// (exit 2), yet `scan`, its JSON and the status line said "run `mcplogs fix`". Every
/// command now says what `fix` says: the file, why, and `--rewrite-strict`.
#[test]
fn a_json5_settings_file_fix_refuses_is_never_advised_as_mcplogs_fix() {
    let h = Home::new(&[], &["bad"]);
    h.log("legacy-missing-resultType-2.1.301.jsonl", "bad");
    fs::write(
        h.home.join(".claude/settings.json"),
        "{\"env\": {\"MCP_TIMEOUT\": \"60000\"},}\n",
    )
    .unwrap();
    let fix = h.run(&h.proj, &["fix", "--dry-run"]);
    assert_eq!(fix.code, 2, "{fix:?}");
    assert!(fix.stderr.contains("--rewrite-strict"), "{fix:?}");
    let (_, doc) = h.json(&h.elsewhere, &["scan", "--json"]);
    let s = server(&doc, "bad");
    assert_eq!(s["legacyFixApplies"], false, "{s:#}");
    let rec = s["recommendation"].as_str().unwrap();
    assert!(
        rec.contains("`mcplogs fix` refuses the file that wins there")
            && rec.contains("not strict JSON")
            && rec.contains("`mcplogs fix --rewrite-strict`"),
        "{rec}"
    );
    let screen = h.run(&h.elsewhere, &["scan"]);
    assert!(!screen.stdout.contains("can be fixed with"), "{screen:?}");
    let line = h.session_says("statusline");
    assert!(
        line.contains("bad (tools fetch failed · mcplogs scan)"),
        "{line}"
    );
    // helper-99 #4: `probe` of the same server said "`mcplogs fix` will help" and "run
    // `mcplogs fix`, which sets ... in ~/.claude/settings.json"
    let stub = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/samples/stub_mcp_server.py");
    let mut doc: Value =
        serde_json::from_str(&fs::read_to_string(h.home.join(".claude.json")).unwrap()).unwrap();
    doc["mcpServers"]["bad"] = json!({ "type": "stdio", "command": "python3",
        "args": [stub.display().to_string(), "--scenario", "e-bad-types"] });
    h.write_claude_json(doc);
    let probe = h.run(&h.proj, &["probe", "--claude-version", "2.1.336", "bad"]);
    let said = words(&probe.stdout);
    assert!(
        said.contains("legacy: healthy -> the legacy setting will help (below)")
            && said.contains("`mcplogs fix` refuses the file that wins there")
            && said.contains("`mcplogs fix --rewrite-strict`")
            && !said.contains("run `mcplogs fix`,"),
        "{probe:?}"
    );
}

/// helper-95 #5: `MCP_SDK_GENERATION=v1` gives every server the legacy handshake, whatever
/// `MCP_PROTOCOL_NEGOTIATION` says (docs/claude-code.md), yet `scan`, `fix` and the
/// status line offered to write the legacy setting. Every command says the fix is in
/// place, by that variable, and `fix` writes nothing.
#[test]
fn sdk_generation_v1_is_the_legacy_handshake_in_place() {
    let h = Home::new(&[], &["bad"]);
    h.log("legacy-missing-resultType-2.1.301.jsonl", "bad");
    fs::write(
        h.home.join(".claude/settings.json"),
        "{\"env\": {\"MCP_SDK_GENERATION\": \"v1\"}}\n",
    )
    .unwrap();
    let (_, doc) = h.json(&h.elsewhere, &["scan", "--json"]);
    let s = server(&doc, "bad");
    assert_eq!(s["legacyFixApplies"], false, "{s:#}");
    let rec = s["recommendation"].as_str().unwrap();
    assert!(
        rec.contains("The fix is in place: MCP_SDK_GENERATION=v1"),
        "{rec}"
    );
    let fix = h.run(&h.proj, &["fix", "--dry-run"]);
    assert_eq!(fix.code, 0, "{fix:?}");
    assert!(
        words(&fix.stderr).contains("MCP_SDK_GENERATION=v1")
            && words(&fix.stderr).contains("nothing to write")
            && !fix.stdout.contains("+++"),
        "{fix:?}"
    );
    let line = h.session_says("statusline");
    assert!(
        line.contains("bad (tools fetch failed · fix in place"),
        "{line}"
    );
    // any other value is ignored by Claude Code, and by mcplogs
    fs::write(
        h.home.join(".claude/settings.json"),
        "{\"env\": {\"MCP_SDK_GENERATION\": \"V1\"}}\n",
    )
    .unwrap();
    let (_, doc) = h.json(&h.elsewhere, &["scan", "--json"]);
    assert_eq!(server(&doc, "bad")["legacyFixApplies"], true, "{doc:#}");
}

/// helper-98 F2, F4, F7: two projects Claude Code knows (`~/.claude.json`) write one log
/// folder. The failing project's one session is older than the other's working ones, so
/// reading newest first never reached it: no row of its own (only `scan --all` gave
/// one, and `prune` could delete it). Such a folder is read whole for its projects; each
/// row counts its own project's files, and a session whose working directory moved
/// into its project's subfolder stays the project's.
#[test]
fn a_folder_two_known_projects_write_gives_each_project_its_row() {
    let h = Home::new(&[], &["api"]);
    let failing = h.home.join("work/my_app");
    let other = h.home.join("work/my-app");
    for d in [&failing, &other] {
        fs::create_dir_all(d).unwrap();
    }
    let mut config: Value =
        serde_json::from_str(&fs::read_to_string(h.home.join(".claude.json")).unwrap()).unwrap();
    for p in [&failing, &other] {
        config["projects"][p.display().to_string()] = json!({"hasTrustDialogAccepted": true});
    }
    h.write_claude_json(config);
    h.log_in(&failing, "legacy-missing-resultType-2.1.301.jsonl", "api");
    let folder = h.log_folder(&other, "api");
    // three later sessions of the other project that called a tool (each decides), the
    // last record of each in its subfolder
    let dir = serde_json::to_string(&other.display().to_string()).unwrap();
    let sub = serde_json::to_string(&other.join("src").display().to_string()).unwrap();
    for (i, minute) in ["10", "20", "30"].iter().enumerate() {
        let record = |text: &str, cwd: &str| {
            format!(
                "{{\"debug\":{},\"timestamp\":\"2026-12-05T18:{minute}:00.000Z\",\"sessionId\":\"working-{i}\",\"cwd\":{cwd}}}\n",
                serde_json::to_string(text).unwrap()
            )
        };
        let text = [
            record("Starting connection with timeout of 30000ms", &dir),
            record("Successfully connected (transport: stdio) in 100ms", &dir),
            record(
                r#"Connection established with capabilities: {"hasTools":true,"hasPrompts":false,"hasResources":false,"serverVersion":{"name":"stub","version":"1.0.0"},"protocolEra":"legacy","negotiatedProtocolVersion":"2025-11-25"}"#,
                &dir,
            ),
            record("Calling MCP tool: search", &sub),
            record("Tool \"search\" completed successfully", &sub),
        ]
        .concat();
        let f = folder.join(format!("2026-12-05T18-{minute}-00-000Z.jsonl"));
        fs::write(&f, text).unwrap();
        set_age(&f, 86_400);
    }
    let rows = |args: &[&str]| {
        let (r, doc) = h.json(&h.elsewhere, args);
        assert_eq!(r.code, 1, "{r:?}");
        let mut rows: Vec<String> = doc["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                format!(
                    "{} {} {}",
                    s["project"].as_str().unwrap(),
                    s["verdict"].as_str().unwrap(),
                    s["sessions"]
                )
            })
            .collect();
        rows.sort();
        rows
    };
    let want = [
        format!("{} healthy 3", other.display()),
        format!("{} tools-fetch-failed 1", failing.display()),
    ];
    assert_eq!(rows(&["scan", "--json"]), want);
    assert_eq!(rows(&["scan", "--json", "--all"]), want);
}

/// A configured row of one of two projects that write one log folder goes under its
/// own project's heading on the screen: `.mcp.json`'s configuration error in `my_app`
/// was listed under `my-app`'s servers (the rows were matched by log folder first).
#[test]
fn a_configured_row_goes_under_its_own_project_of_a_shared_folder() {
    let h = Home::new(&[], &["api"]);
    let failing = h.home.join("work/my_app");
    let other = h.home.join("work/my-app");
    let mut config: Value =
        serde_json::from_str(&fs::read_to_string(h.home.join(".claude.json")).unwrap()).unwrap();
    for p in [&failing, &other] {
        fs::create_dir_all(p).unwrap();
        config["projects"][p.display().to_string()] = json!({"hasTrustDialogAccepted": true});
    }
    h.write_claude_json(config);
    fs::write(failing.join(".mcp.json"), "{ not json").unwrap();
    h.log_in(&failing, "legacy-missing-resultType-2.1.301.jsonl", "api");
    let folder = h.log_folder(&other, "api");
    fs::rename(
        folder.join("2026-12-05T17-55-35-642Z.jsonl"),
        folder.join("2026-12-05T16-00-00-000Z.jsonl"),
    )
    .unwrap();
    h.log_in(&other, "path-2.1.332.jsonl", "api");
    let r = h.run(&h.elsewhere, &["scan"]);
    let heading = |p: &Path| {
        r.stdout
            .find(&format!("\n{}\n", shown(p, &h.home)))
            .unwrap_or_else(|| panic!("{}", r.stdout))
    };
    let row = r
        .stdout
        .find(".mcp.json")
        .unwrap_or_else(|| panic!("{}", r.stdout));
    let (mine, theirs) = (heading(&failing), heading(&other));
    // under my_app's heading: after it, and not after my-app's when that comes later
    assert!(
        row > mine && (theirs < mine || row < theirs),
        "{}",
        r.stdout
    );
}

/// helper-99 #2: a project reached through a symlink (Claude Code records the real path
/// as its `cwd`): `fix --project LINK` warned that its own file would not take effect,
/// and the plain `fix --undo` run in the project refused the undo record. The named
/// folder is the folder it links to.
#[cfg(unix)]
#[test]
fn fix_of_a_project_named_through_a_symlink_writes_and_undoes_the_real_projects_file() {
    let h = Home::new(&["leg"], &[]);
    // the project's real folder is `proj`; the user names it by a link
    let link = h.home.join("work/link");
    std::os::unix::fs::symlink(&h.proj, &link).unwrap();
    fs::write(
        h.proj.join(".claude/settings.json"),
        r#"{"env": {"MCP_PROTOCOL_NEGOTIATION": "auto"}}"#,
    )
    .unwrap();
    h.log("legacy-missing-resultType-2.1.301.jsonl", "leg");
    let link_s = link.display().to_string();
    let r = h.run(
        &h.elsewhere,
        &[
            "fix",
            "-y",
            "--project",
            &link_s,
            "--claude-version",
            "2.1.301",
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!r.stderr.contains("does not take effect"), "{r:?}");
    let local = h.proj.join(".claude/settings.local.json");
    assert!(
        fs::read_to_string(&local).unwrap().contains("legacy"),
        "{r:?}"
    );
    // the undo `fix --help` names, run in the project (by its real path, as a shell's
    // `cd` through the link gives the process)
    let undo = h.run(&link, &["fix", "--undo", "-y", "--project", &link_s]);
    assert_eq!(undo.code, 0, "{undo:?}");
    assert!(!local.exists(), "{undo:?}");
}

/// helper-99 #1: run from inside Claude Code (a hook, the Bash tool) in project a, whose
/// local settings set `legacy`, the environment holds `legacy` (Claude Code passes the
/// session's settings `env` on): mcplogs took it as every project's, said the fix was in
/// place for a failing server of another project and planned nothing for it.
#[test]
fn inside_claude_code_another_projects_setting_is_not_the_environments() {
    let h = Home::new(&[], &["leg"]);
    let a = h.home.join("work/a");
    fs::create_dir_all(a.join(".claude")).unwrap();
    fs::write(
        a.join(".claude/settings.local.json"),
        r#"{"env": {"MCP_PROTOCOL_NEGOTIATION": "legacy"}}"#,
    )
    .unwrap();
    h.log("legacy-missing-resultType-2.1.301.jsonl", "leg");
    let in_session = |args: &[&str]| {
        let mut c = h.cmd(&a, args);
        c.env("CLAUDECODE", "1")
            .env("CLAUDE_PROJECT_DIR", &a)
            .env("MCP_PROTOCOL_NEGOTIATION", "legacy");
        run(&mut c)
    };
    let fix = in_session(&["fix", "--dry-run", "--claude-version", "2.1.301"]);
    assert_eq!(fix.code, 0, "{fix:?}");
    assert!(
        fix.stdout.contains("+++") && fix.stdout.contains("MCP_PROTOCOL_NEGOTIATION"),
        "{fix:?}"
    );
    // what the same command plans from a terminal
    let terminal = h.run(&a, &["fix", "--dry-run", "--claude-version", "2.1.301"]);
    assert_eq!(fix.stdout, terminal.stdout);
    let scan = in_session(&["scan"]);
    assert!(
        words(&scan.stdout).contains("Run `mcplogs fix`"),
        "{scan:?}"
    );
    // outside Claude Code, the shell's value is every project's: in place
    let mut c = h.cmd(&a, &["scan"]);
    c.env("MCP_PROTOCOL_NEGOTIATION", "legacy");
    let shell = run(&mut c);
    assert!(
        words(&shell.stdout).contains("The fix is in place"),
        "{shell:?}"
    );
}

/// helper-99 #5: the advice for the logs of a server configured nowhere said "`mcplogs
/// prune` can remove them", and no `prune` does (it keeps a server's newest file and its
/// deciding session's): the advice names the folder to delete.
#[test]
fn a_server_configured_nowhere_is_not_promised_to_prune() {
    let h = Home::new(&[], &[]);
    h.log("legacy-missing-resultType-2.1.301.jsonl", "gone");
    let folder = h.log_folder(&h.proj, "gone");
    let (_, doc) = h.json(&h.elsewhere, &["scan", "--json"]);
    let rec = server(&doc, "gone")["recommendation"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!rec.contains("prune` can remove"), "{rec}");
    assert!(
        rec.contains(&format!("delete its log folder {} ", folder.display())),
        "{rec}"
    );
    // and prune, as the advice says, keeps it
    let prune = h.run(&h.elsewhere, &["prune", "--dry-run", "--older-than", "1d"]);
    assert!(!prune.stdout.contains("gone"), "{prune:?}");
}

/// helper-99 #6: a configured name holding `": "` (`x: y`, which Claude Code runs and
/// `claude mcp list` prints as `x: y: command - status`) was explained as `x`, a server
/// that does not exist (so `fix x`, `probe x` named nothing); scan calls it `x: y`.
#[test]
fn explain_reads_a_pasted_name_holding_a_colon_as_the_configured_one() {
    let h = Home::new(&[], &["x: y", "plain"]);
    let paste = "Checking MCP server health…\n\nx: y: python3 s.py - ! Connected · tools fetch failed — Invalid result for tools/list: [ { \"expected\": \"number\", \"code\": \"invalid_type\", \"path\": [ \"ttlMs\" ], \"message\": \"Invalid input: expected number, received string\" } ]\nplain: python3 s.py - ✔ Connected\n";
    let r = run_with_stdin(&mut h.cmd(&h.proj, &["explain"]), paste.as_bytes());
    assert!(
        r.stdout
            .lines()
            .any(|l| l.starts_with("x: y: tools-fetch-failed")),
        "{r:?}"
    );
    assert!(r.stdout.contains("Servers: x: y"), "{r:?}");
    assert!(
        !r.stdout.lines().any(|l| l.starts_with("x: tools")),
        "{r:?}"
    );
}

/// helper-98 F3: two projects Claude Code knows write one log folder; with `--since`,
/// the one seen since is a row, and the other (every session older) was neither a row
/// nor "not seen since": it vanished. It is "not seen since", under its own heading.
#[test]
fn since_a_shared_folders_project_seen_before_only_is_not_seen_since() {
    let h = Home::new(&[], &["github"]);
    let old = h.home.join("work/my_app");
    let recent = h.home.join("work/my-app");
    for d in [&old, &recent] {
        fs::create_dir_all(d).unwrap();
    }
    let mut doc: Value =
        serde_json::from_str(&fs::read_to_string(h.home.join(".claude.json")).unwrap()).unwrap();
    for d in [&old, &recent] {
        doc["projects"][d.display().to_string()] = json!({ "hasTrustDialogAccepted": true });
    }
    h.write_claude_json(doc);
    h.log_in(&old, "modern-only-refused-2.1.332.jsonl", "github");
    // the other project's session a minute ago
    let at = mcplogs::time::now() - 60;
    let iso = mcplogs::time::format_iso(at);
    let cwd = serde_json::to_string(&recent.display().to_string()).unwrap();
    let text: String = [
        "Starting connection with timeout of 30000ms",
        "Connection failed (ENOENT): Executable not found in $PATH: \"farstub\"",
    ]
    .iter()
    .map(|m| {
        format!(
            "{{\"debug\":{},\"timestamp\":\"{iso}\",\"sessionId\":\"recent-one\",\"cwd\":{cwd}}}\n",
            serde_json::to_string(m).unwrap()
        )
    })
    .collect();
    let name = format!("{}.jsonl", iso.replace([':', '.'], "-"));
    fs::write(h.log_folder(&recent, "github").join(name), text).unwrap();
    let (r, doc) = h.json(&h.elsewhere, &["scan", "--json", "--since", "1h"]);
    let servers: Vec<&str> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["project"].as_str().unwrap())
        .collect();
    assert_eq!(servers, [recent.display().to_string()], "{r:?}");
    let not_since: Vec<&str> = doc["configured"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["state"] == "not-seen-since")
        .map(|c| c["project"].as_str().unwrap())
        .collect();
    assert_eq!(not_since, [old.display().to_string()], "{doc:#}");
    let screen = h.run(&h.elsewhere, &["scan", "--since", "1h"]);
    let under_old = screen
        .stdout
        .split("~/work/my_app\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{screen:?}"));
    assert!(
        under_old
            .lines()
            .nth(1)
            .is_some_and(|l| l.contains("not seen since")),
        "{screen:?}"
    );
}
