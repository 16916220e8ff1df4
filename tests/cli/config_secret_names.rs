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
        Home::with(serde_json::json!({}))
    }

    /// [`Home::new`], with the entries of `more` configured for the project too.
    fn with(more: serde_json::Value) -> Home {
        Home::at("work/proj", more)
    }

    /// [`Home::with`], the project at `project` in the home.
    fn at(project: &str, more: serde_json::Value) -> Home {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let managed = dir.path().join("managed");
        let project = home.join(project);
        for d in [&managed, &project] {
            std::fs::create_dir_all(d).unwrap();
        }
        let key = project.to_string_lossy().into_owned();
        let name = format!("svc-{VALUE}");
        let mut servers = serde_json::json!({
            "leaky": {"command": "node", "args": ["leaky.js"], "env": {"FOO_SETTING": VALUE}},
            name.clone(): {"command": "missing-zz-cmd"}
        });
        for (k, v) in more.as_object().unwrap() {
            servers[k] = v.clone();
        }
        std::fs::write(
            home.join(".claude.json"),
            serde_json::json!({"projects": {key.clone(): {"mcpServers": servers}}}).to_string(),
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

/// The name as `scan` prints it.
const SHOWN: &str = "svc-[REDACTED:config]";

/// `scan --json`'s names, logged and configured without a log.
fn scanned_names(h: &Home, args: &[&str]) -> (Run, Vec<String>) {
    let mut all = vec!["scan", "--json"];
    all.extend_from_slice(args);
    let (r, doc) = run_json(&mut h.cmd(&all, true));
    let names = ["servers", "configured"]
        .iter()
        .flat_map(|k| doc[k].as_array().cloned().unwrap_or_default())
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    (r, names)
}

/// U1#2: the name as `scan` prints it, copied into every command that takes a server's
/// name, selects that server: `scan --server` and `scan NAME`, `report --server`,
/// `du --server`, `export --server`, `fix NAME`, `fix --except NAME`, `probe NAME`. Each
/// said there was no such server (the printed form was matched as the secret rules
/// print names, which do not know the configured value).
#[test]
fn the_printed_name_selects_it_in_every_command() {
    let h = Home::new();
    scan_shows(&h);
    let (r, names) = scanned_names(&h, &["--server", SHOWN]);
    assert_eq!(r.code, 1, "{r:?}");
    assert_eq!(names, [SHOWN], "{r:?}");
    // the word alone stands for --server
    let r = run(&mut h.cmd(&["scan", SHOWN], true));
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("scanning the server of that name"),
        "{r:?}"
    );
    assert_hidden("scan NAME", &r.stdout);
    assert!(!r.stdout.contains("leaky"), "{}", r.stdout);
    let (r, doc) = run_json(&mut h.cmd(&["report", "--json", "--force", "--server", SHOWN], true));
    assert_eq!(r.code, 1, "{r:?}");
    let listed: Vec<&str> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [SHOWN], "{doc:#}");
    let (r, doc) = run_json(&mut h.cmd(&["du", "--json", "--server", SHOWN], false));
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(doc["projects"][0]["servers"][0]["name"], SHOWN, "{doc:#}");
    assert_eq!(doc["files"], 1, "{doc:#}");
    let out = h.home.join("records.jsonl");
    let o = out.display().to_string();
    let r = run(&mut h.cmd(&["export", "--server", SHOWN, "--file", &o], true));
    assert_eq!(r.code, 0, "{r:?}");
    let records = std::fs::read_to_string(&out).unwrap_or_default();
    assert_eq!(records.lines().count(), 1, "{r:?}\n{records}");
    assert!(!records.contains(VALUE), "{records}");
    // fix: its step only the user can take, and left out by --except
    let r = run(&mut h.cmd(&["fix", "--dry-run", SHOWN], true));
    let all = format!("{}{}", r.stdout, r.stderr);
    assert_eq!(r.code, 0, "{all}");
    assert!(all.contains(&format!("Only you can fix {SHOWN}")), "{all}");
    assert!(!all.contains(VALUE), "{all}");
    let r = run(&mut h.cmd(&["fix", "--dry-run", "--except", SHOWN], true));
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(!all.contains("Only you can fix"), "{all}");
    assert!(
        all.contains("no server but those --except leaves out"),
        "{all}"
    );
    // the same server both ways: refused as the same text twice is
    let real = format!("svc-{VALUE}");
    let r = run(&mut h.cmd(&["fix", "--dry-run", SHOWN, "--except", &real], true));
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr.contains("both the server to fix and excluded"),
        "{r:?}"
    );
    assert!(!r.stderr.contains(VALUE), "{r:?}");
    // probe: that server, started (its command is on no PATH: it will fail)
    let r = run(&mut h.cmd(&["probe", "--claude-version", "2.1.336", SHOWN], true));
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stdout.contains(&format!("{SHOWN} · stdio")), "{r:?}");
    assert!(
        !r.stdout.contains("leaky") && !r.stdout.contains(VALUE),
        "{r:?}"
    );
}

/// A printed form is no pattern: it selects only a server whose real name prints so,
/// never one whose name does not hold the value (`leaky-[REDACTED:config]` names no
/// server, though `leaky` configures the value), and the names a miss lists are each
/// listed once, as printed, in the form that then selects them.
#[test]
fn a_printed_form_selects_no_name_printing_otherwise() {
    let h = Home::with(serde_json::json!({"svc-plain": {"command": "missing-zz-cmd"}}));
    let (r, names) = scanned_names(&h, &["--server", SHOWN]);
    assert_eq!(r.code, 1, "{r:?}");
    assert_eq!(names, [SHOWN], "{r:?}");
    for given in [
        "leaky-[REDACTED:config]",
        "[REDACTED:config]",
        "svc-[REDACTED:config]x",
    ] {
        let r = run(&mut h.cmd(&["scan", "--server", given], true));
        assert_eq!(r.code, 2, "{given}: {r:?}");
        assert!(r.stderr.contains("no server named"), "{given}: {r:?}");
        let r = run(&mut h.cmd(&["fix", "--dry-run", given], true));
        assert_eq!(r.code, 2, "{given}: {r:?}");
        let r = run(&mut h.cmd(&["probe", "--claude-version", "2.1.336", given], true));
        assert_eq!(r.code, 2, "{given}: {r:?}");
        let r = run(&mut h.cmd(&["du", "--server", given], false));
        assert_eq!(r.code, 2, "{given}: {r:?}");
    }
    // "Known servers": each once, as printed; and each listed name selects its server
    let r = run(&mut h.cmd(&["scan", "--server", "nosuch"], true));
    assert_eq!(r.code, 2, "{r:?}");
    let text = r.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    let known = text.split("Known servers: ").nth(1).unwrap_or_default();
    let listed: Vec<&str> = known.split(", ").map(str::trim).collect();
    assert_eq!(listed, ["leaky", SHOWN, "svc-plain"], "{}", r.stderr);
    for n in listed {
        let (r, names) = scanned_names(&h, &["--server", n]);
        assert_eq!(names, [n], "{r:?}");
    }
    // probe's "did you mean" and its configured list, as printed
    let r = run(&mut h.cmd(
        &[
            "probe",
            "--claude-version",
            "2.1.336",
            "svc-[REDACTED:config]x",
        ],
        true,
    ));
    assert!(
        r.stderr.contains(&format!("did you mean \"{SHOWN}\"")),
        "{r:?}"
    );
}

/// Two names a configured value makes print alike (`svc-VALUE`, `svc-OTHER`): the
/// printed form stands for both, so `scan --server` lists both, and a command acting on
/// one server (`fix NAME`, `probe NAME`) refuses it, asking for the real name, never
/// picking one; each real name selects its own.
#[test]
fn a_printed_form_two_names_print_as_is_ambiguous() {
    const OTHER: &str = "Pq8Zy3Hn5Wc2Jt7Rk4Ls";
    let other = format!("svc-{OTHER}");
    let h = Home::with(serde_json::json!({
        "leaky2": {"command": "node", "args": ["leaky.js"], "env": {"BAR_SETTING": OTHER}},
        other.clone(): {"command": "missing-zz-cmd"}
    }));
    let (r, names) = scanned_names(&h, &["--server", SHOWN]);
    assert_eq!(r.code, 1, "{r:?}");
    assert_eq!(names, [SHOWN, SHOWN], "{r:?}");
    for args in [
        &["fix", "--dry-run", SHOWN][..],
        &["probe", "--claude-version", "2.1.336", SHOWN],
    ] {
        let r = run(&mut h.cmd(args, true));
        assert_eq!(r.code, 2, "{args:?}: {r:?}");
        assert!(
            r.stderr.contains("names 2 servers") && r.stderr.contains("give the real name"),
            "{args:?}: {r:?}"
        );
        assert!(
            !r.stderr.contains(VALUE) && !r.stderr.contains(OTHER),
            "{r:?}"
        );
    }
    for real in [format!("svc-{VALUE}"), other] {
        let (r, names) = scanned_names(&h, &["--server", &real]);
        assert_eq!(names, [SHOWN], "{real}: {r:?}");
        let r = run(&mut h.cmd(&["fix", "--dry-run", &real], true));
        assert_ne!(r.code, 2, "{real}: {r:?}");
    }
}

/// A project whose path holds the configured value is printed
/// `~/work/p-[REDACTED:config]`: that form (or a part of it, or the whole path as
/// `--json` prints it) selects the project in `--match-project` of `scan`, `report`,
/// `du` and `export`, and a printed form no project path prints with selects none.
#[test]
fn the_printed_project_selects_it_in_match_project() {
    let h = Home::at(&format!("work/p-{VALUE}"), serde_json::json!({}));
    // (`~` is the home folder where HOME says it is: not on Windows)
    let shown = "~/work/p-[REDACTED:config]";
    let r = run(&mut h.cmd(&["scan"], true));
    assert!(!cfg!(unix) || r.stdout.contains(shown), "{r:?}");
    assert!(!r.stdout.contains(VALUE), "{r:?}");
    let (_, doc) = run_json(&mut h.cmd(&["scan", "--json"], true));
    let full = doc["servers"][0]["project"].as_str().unwrap().to_string();
    assert!(full.ends_with("/work/p-[REDACTED:config]"), "{doc:#}");
    let tilde = [shown].into_iter().filter(|_| cfg!(unix));
    for given in tilde.chain(["p-[REDACTED:config]", full.as_str()]) {
        let (r, names) = scanned_names(&h, &["--match-project", given]);
        assert_eq!(r.code, 1, "{given}: {r:?}");
        assert_eq!(names.len(), 2, "{given}: {names:?}");
        let (r, doc) = run_json(&mut h.cmd(&["du", "--json", "--match-project", given], false));
        assert_eq!(r.code, 0, "{given}: {r:?}");
        assert_eq!(doc["files"], 1, "{given}: {doc:#}");
        let r = run(&mut h.cmd(
            &["report", "--json", "--force", "--match-project", given],
            true,
        ));
        assert_eq!(r.code, 1, "{given}: {r:?}");
    }
    let out = h.home.join("records.jsonl");
    let o = out.display().to_string();
    let r = run(&mut h.cmd(
        &[
            "export",
            "--match-project",
            "p-[REDACTED:config]",
            "--file",
            &o,
        ],
        true,
    ));
    assert_eq!(r.code, 0, "{r:?}");
    let records = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(records.lines().count() > 0, "{r:?}");
    assert!(!records.contains(VALUE), "{records}");
    for given in ["q-[REDACTED:config]", "~/p-[REDACTED:config]"] {
        let r = run(&mut h.cmd(&["scan", "--match-project", given], true));
        assert_eq!(r.code, 2, "{given}: {r:?}");
        let r = run(&mut h.cmd(&["du", "--match-project", given], false));
        assert_eq!(r.code, 2, "{given}: {r:?}");
    }
}

/// `--project DIR` given as mcplogs prints a project folder holding the configured value
/// (in a printed command, `mcplogs probe --project '…/p-[REDACTED:config]' NAME`; or as
/// the screen shows it, `~/work/p-[REDACTED:config]`): `probe`, `settings`, `fix` and
/// `explain` take the folder it stands for, run from another folder, as the real path
/// (each said it was not a folder). A printed form no listed folder prints as is still
/// not a folder.
#[test]
fn the_printed_project_folder_is_that_folder_for_project() {
    let h = Home::at(&format!("work/p-{VALUE}"), serde_json::json!({}));
    let real = h.project.display().to_string();
    let full = real.replace(VALUE, "[REDACTED:config]");
    let elsewhere = h.home.join("work");
    let run_in = |args: &[&str]| {
        let mut c = h.cmd(args, true);
        c.current_dir(&elsewhere);
        run(&mut c)
    };
    // (`~` is the home folder where HOME says it is: not on Windows)
    let tilde = ["~/work/p-[REDACTED:config]"]
        .into_iter()
        .filter(|_| cfg!(unix));
    for project in [full.as_str()].into_iter().chain(tilde) {
        let probe = ["probe", "--claude-version", "2.1.336", "--project"];
        let want = run_in(&[&probe[..], &[real.as_str(), SHOWN]].concat());
        let got = run_in(&[&probe[..], &[project, SHOWN]].concat());
        assert_eq!(got.code, want.code, "{project}: {got:?}");
        // (the steps' times aside)
        let untimed = |s: &str| {
            s.lines()
                .map(|l| l.find(" ms  ").map_or(l, |i| &l[i..]))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(
            untimed(&got.stdout),
            untimed(&want.stdout),
            "{project}: {got:?}"
        );
        assert!(got.stdout.contains(&format!("{SHOWN} · stdio")), "{got:?}");
        for cmd in [&["settings"][..], &["fix", "--dry-run"]] {
            let want = run_in(&[cmd, &["--project", real.as_str()]].concat());
            let got = run_in(&[cmd, &["--project", project]].concat());
            assert_eq!(got.code, want.code, "{cmd:?} {project}: {got:?}");
            assert_eq!(got.stdout, want.stdout, "{cmd:?} {project}: {got:?}");
            assert!(!got.stdout.contains(VALUE), "{got:?}");
            assert!(!got.stderr.contains(VALUE), "{got:?}");
        }
        let paste = format!("svc-{VALUE}: missing-zz-cmd - ✗ Failed to connect");
        let want = run_in(&["explain", "--project", &real, "-m", &paste]);
        let got = run_in(&["explain", "--project", project, "-m", &paste]);
        assert_eq!(got.code, want.code, "{project}: {got:?}");
        assert!(got.stdout.contains("command: missing-zz-cmd"), "{got:?}");
    }
    let r = run_in(&["settings", "--project", "~/work/q-[REDACTED:config]"]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("not a folder"), "{r:?}");
}

/// `prune` names it as `scan` does too: its warning of a FIFO in the server's folder
/// (the folder's path holds the value) and its plan, on screen and in `--json`.
#[cfg(unix)]
#[test]
fn prune_names_it_as_scan_does() {
    let h = Home::new();
    let logs = h
        .home
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name(
            &h.project.to_string_lossy(),
        ))
        .join(format!("mcp-logs-svc-{VALUE}"));
    let fifo = logs.join("2026-12-06T11-00-00-000Z.jsonl");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for args in [
        &["prune", "--dry-run"][..],
        &["prune", "--dry-run", "--json"],
    ] {
        let r = run(&mut h.cmd(args, false));
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("FIFO"),
            "{args:?}: no warning: {}",
            r.stderr
        );
        assert_hidden(&format!("{args:?}"), &r.stderr);
        assert!(!r.stdout.contains(VALUE), "{args:?}: {}", r.stdout);
    }
}

/// A project whose path holds a configured value is printed redacted: the command to
/// run by hand is then given without the `cd` into that folder (`cd
/// ~/'work/p-[REDACTED:config]' && …` could not run as printed), and the advice says
/// where to run it in words.
#[test]
fn the_command_by_hand_never_goes_into_a_hidden_folder() {
    let h = Home::at(&format!("work/p-{VALUE}"), serde_json::json!({}));
    let (_, doc) = run_json(&mut h.cmd(&["scan", "--json"], true));
    let s = server(&doc, SHOWN);
    assert_eq!(s["runByHand"], "missing-zz-cmd", "{s:#}");
    let r = run(&mut h.cmd(&["scan", "--server", SHOWN], true));
    let text = r.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(!text.contains("cd "), "{}", r.stdout);
    assert!(
        text.contains(
            "In its project folder (its path holds a secret, shown redacted), run its command by hand"
        ),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains(VALUE), "{r:?}");
    // a project path that holds none: the command goes into the folder
    let h = Home::new();
    let (_, doc) = run_json(&mut h.cmd(&["scan", "--json"], true));
    let by_hand = server(&doc, SHOWN)["runByHand"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        by_hand.starts_with("cd ") && by_hand.ends_with(" && missing-zz-cmd"),
        "{by_hand}"
    );
}

/// A project folder whose path holds a token (which every output hides): `scan`,
/// `report` (its refusal on stderr gives the user's own fix) and `probe` give the
/// command to run by hand without a `cd` into the hidden path, and say the folder in
/// words.
#[test]
fn no_command_goes_into_a_folder_whose_path_holds_a_token() {
    const TOKEN: &str = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    let h = Home::at(&format!("work/p-{TOKEN}"), serde_json::json!({}));
    let real = format!("svc-{VALUE}");
    let words =
        "In its project folder (its path holds a secret, shown redacted), run its command by hand";
    let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let (_, doc) = run_json(&mut h.cmd(&["scan", "--json"], true));
    let s = server(&doc, SHOWN);
    assert_eq!(s["runByHand"], "missing-zz-cmd", "{s:#}");
    assert!(
        flat(s["recommendation"].as_str().unwrap()).contains(words),
        "{s:#}"
    );
    let r = run(&mut h.cmd(&["report", "--server", &real], true));
    let err = flat(&r.stderr);
    assert!(err.contains(words), "{}", r.stderr);
    assert!(!err.contains("`cd "), "{}", r.stderr);
    let r = run(&mut h.cmd(
        &["probe", "--json", "--claude-version", "2.1.336", &real],
        true,
    ));
    assert!(r.stdout.contains(words), "{}{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("`cd "), "{}", r.stdout);
    for out in [&r.stdout, &r.stderr] {
        assert!(!out.contains(TOKEN) && !out.contains(VALUE), "{out}");
    }
}

/// A configured command whose arguments hold a token is printed with the token hidden:
/// the advice to run it by hand says an argument was redacted and must be put back.
#[test]
fn a_command_by_hand_with_a_hidden_argument_says_so() {
    const TOKEN: &str = "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2";
    let h = Home::with(serde_json::json!({
        format!("svc-{VALUE}"): {"command": "missing-zz-cmd", "args": ["--token", TOKEN]}
    }));
    let words =
        "(an argument of it holds a secret, shown redacted: put the value back before you run it)";
    let (_, doc) = run_json(&mut h.cmd(&["scan", "--json"], true));
    let s = server(&doc, SHOWN);
    let by_hand = s["runByHand"].as_str().unwrap();
    assert!(by_hand.contains("[REDACTED:"), "{s:#}");
    let recommendation = s["recommendation"].as_str().unwrap();
    assert!(recommendation.contains(words), "{s:#}");
    assert!(!doc.to_string().contains(TOKEN), "{doc:#}");
    // a command with nothing hidden says nothing of it
    let h = Home::new();
    let (_, doc) = run_json(&mut h.cmd(&["scan", "--json"], true));
    let s = server(&doc, SHOWN);
    assert!(
        !s["recommendation"].as_str().unwrap().contains(words),
        "{s:#}"
    );
}

/// `probe` in a project whose path holds a configured value: `--json`'s `project` has
/// it hidden (it was printed whole), and the command to run by hand neither goes into
/// the folder nor leaves an argument holding the value unsaid. `probe --home DIR
/// --project PRINTED` finds the project by its printed form in DIR's configuration.
#[test]
fn probe_hides_a_configured_value_in_the_project_path() {
    let h = Home::at(
        &format!("work/p-{VALUE}"),
        serde_json::json!({
            "argsy": {"command": "missing-yy-cmd", "args": ["--session", VALUE]}
        }),
    );
    let real = format!("svc-{VALUE}");
    let words =
        "In its project folder (its path holds a secret, shown redacted), run its command by hand";
    let r = run(&mut h.cmd(
        &[
            "probe",
            "--json",
            "--claude-version",
            "2.1.336",
            &real,
            "argsy",
        ],
        true,
    ));
    assert!(!r.stdout.contains(VALUE), "{}", r.stdout);
    assert!(!r.stderr.contains(VALUE), "{}", r.stderr);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(
        doc["project"]
            .as_str()
            .unwrap()
            .ends_with("p-[REDACTED:config]"),
        "{doc:#}"
    );
    let text = r.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains(words), "{}", r.stdout);
    assert!(!text.contains("`cd "), "{}", r.stdout);
    assert!(
        text.contains("(an argument of it holds a secret, shown redacted: put the value back before you run it)"),
        "{}",
        r.stdout
    );
    // the printed project, with the home named
    let printed = format!("{}/work/p-[REDACTED:config]", h.home.display());
    let r = run(&mut h.cmd(
        &[
            "probe",
            "--json",
            "--claude-version",
            "2.1.336",
            "--home",
            h.home.to_str().unwrap(),
            "--project",
            &printed,
            &real,
        ],
        true,
    ));
    assert_ne!(r.code, 2, "{}", r.stderr);
    assert!(
        !r.stdout.contains(VALUE) && !r.stderr.contains(VALUE),
        "{r:?}"
    );
    // a home that is not a folder: refused, as scan refuses it
    let r = run(&mut h.cmd(&["probe", "--home", "/nonexistent-home", &real], true));
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("not a folder"), "{}", r.stderr);
}

/// Under `--no-redact` nothing is shown redacted, and the advice says nothing is: the
/// command to run by hand goes into a folder whose path holds a token (printed whole),
/// carries its arguments as configured with no word of putting a value back, and
/// `report --no-redact`'s launch line is the configured one.
#[test]
fn under_no_redact_the_command_by_hand_is_whole_and_says_nothing_is_hidden() {
    const TOKEN: &str = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    const ARG: &str = "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2";
    let h = Home::at(
        &format!("work/p-{TOKEN}"),
        serde_json::json!({
            format!("svc-{VALUE}"): {"command": "missing-zz-cmd", "args": ["--token", ARG]}
        }),
    );
    let (_, doc) = run_json(&mut h.cmd(&["scan", "--json", "--no-redact"], true));
    let s = &doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == format!("svc-{VALUE}"))
        .unwrap_or_else(|| panic!("{doc:#}"))
        .clone();
    let by_hand = s["runByHand"].as_str().unwrap();
    assert!(
        by_hand.starts_with("cd ") && by_hand.contains(TOKEN) && by_hand.contains(ARG),
        "{s:#}"
    );
    let recommendation = s["recommendation"].as_str().unwrap();
    assert!(!recommendation.contains("shown redacted"), "{s:#}");
    let r = run(&mut h.cmd(
        &[
            "report",
            "--no-redact",
            "--force",
            "--server",
            &format!("svc-{VALUE}"),
        ],
        true,
    ));
    assert!(
        r.stdout.contains(&format!("missing-zz-cmd --token {ARG}")),
        "{}{}",
        r.stdout,
        r.stderr
    );
    assert!(!r.stdout.contains("shown redacted"), "{}", r.stdout);
}
