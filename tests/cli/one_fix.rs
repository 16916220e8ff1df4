//! Issue 53 item 2 and issue 51's "one answer": the fix engine's answer is part of the
//! one resolution. On one home with a command-not-found server, a timeout server and a
//! legacy-negotiation server (real builds' logs, tests/fixtures/fix-engine/ and
//! sample-logs/), `scan` (screen and `--json`), `explain`, `report` (Markdown and
//! `--json`), the status line and the hook give each server the same fix, `fix
//! --dry-run` plans for exactly the servers `scan --json` marks fixable, and on a build
//! outside a fix's observed ones both say it is not offered and nothing is written.
//! Unix only: its homes hold shell-script programs (the user's `farstub`, a `claude`).
#![cfg(unix)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::*;
use serde_json::Value;

/// One session id for every log: the status line and the hook read one session.
const SESSION: &str = "0f1e2d3c-4b5a-4678-9abc-def012345678";

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
    /// `far` (its command `farstub` is on the user's PATH, not Claude Code's), `slow`
    /// (slower than the user file's MCP_TIMEOUT of 3000 ms) and `near` (a 2026-07-28
    /// server without resultType on 2.1.288: the legacy setting), in one project.
    fn three() -> Home {
        let dir = fixed_length_tempdir();
        let base = dir.path().join("a home");
        let home = base.join("me");
        let h = Home {
            managed: base.join("managed"),
            proj: home.join("work/proj"),
            elsewhere: base.join("elsewhere"),
            tools: base.join("tools"),
            home,
            _dir: dir,
        };
        for d in [&h.home, &h.managed, &h.proj, &h.elsewhere, &h.tools] {
            fs::create_dir_all(d).unwrap();
        }
        fs::create_dir_all(h.home.join(".claude")).unwrap();
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fix-engine");
        h.log(&fixtures.join("path-2.1.332.jsonl"), "\"/PROJECT\"", "far");
        h.log(
            &fixtures.join("timeout-2.1.332.jsonl"),
            "\"/PROJECT\"",
            "slow",
        );
        h.log(
            &newest_in(&samples().join("macos-home"), "mcp-logs-no-resulttype"),
            "\"/tmp/mcplogs-samples/home-macos/work/web\"",
            "near",
        );
        let entry = |cmd: &str, arg: &str| serde_json::json!({ "type": "stdio", "command": cmd, "args": [arg] });
        let doc = serde_json::json!({
            "hasCompletedOnboarding": true,
            "mcpServers": {
                "far": entry("farstub", "f"),
                "slow": entry("python3", "s.py"),
                "near": entry("python3", "n.py"),
            },
            "projects": { h.proj.display().to_string(): { "hasTrustDialogAccepted": true } },
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
        write_program(&h.tools.join("farstub"), "#!/bin/sh\nexit 0\n");
        h
    }

    /// A log recorded as run in the project (its `cwd` is `cwd_json`), as server `name`,
    /// in the one session [`SESSION`] of one process.
    fn log(&self, src: &Path, cwd_json: &str, name: &str) {
        let cwd = serde_json::to_string(&self.proj.display().to_string()).unwrap();
        let text: String = fs::read_to_string(src)
            .unwrap()
            .replace(cwd_json, &cwd)
            .lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                if v.get("sessionId").is_some() {
                    v["sessionId"] = SESSION.into();
                }
                v.to_string() + "\n"
            })
            .collect();
        let slug: String = self
            .proj
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
        // one Claude Code process: one file name (its start time) in every folder
        fs::write(d.join("2026-12-05T17-55-35-642Z.jsonl"), text).unwrap();
    }

    /// A `claude` on the user's PATH that says it is `version` (`claude --version`).
    fn claude(&self, version: &str) {
        write_program(
            &self.tools.join("claude"),
            &format!("#!/bin/sh\necho '{version} (Claude Code)'\n"),
        );
    }

    fn cmd(&self, cwd: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mcplogs"));
        let path = std::env::join_paths([
            self.tools.as_path(),
            Path::new("/usr/bin"),
            Path::new("/bin"),
        ])
        .unwrap();
        c.args(args)
            .env_clear()
            .env("PATH", path)
            .env("HOME", &self.home)
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("NO_COLOR", "1")
            .current_dir(cwd)
            .stdin(Stdio::null());
        clock_env(&mut c);
        c
    }

    /// A command that reads the settings (`--managed-dir`), from another folder, on
    /// this home (`--home`, as every command here is given).
    fn run(&self, args: &[&str]) -> Output {
        let mut c = self.cmd(&self.elsewhere, args);
        c.arg("--managed-dir")
            .arg(&self.managed)
            .arg("--home")
            .arg(&self.home);
        c.output().unwrap()
    }

    fn with_stdin(&self, mut c: Command, input: &str) -> Output {
        use std::io::Write;
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self.run(args);
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}{}", stdout(&out), stderr(&out)))
    }

    /// Every file of the home (not the logs), with its bytes.
    fn files(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        for d in [
            self.home.clone(),
            self.home.join(".claude"),
            self.proj.clone(),
        ] {
            for p in fs::read_dir(&d)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.is_file())
            {
                out.push((p.clone(), fs::read(&p).unwrap()));
            }
        }
        out.sort();
        out
    }

    fn status_input(&self) -> String {
        let cwd = serde_json::to_string(&self.proj.display().to_string()).unwrap();
        format!(
            r#"{{"hook_event_name":"UserPromptSubmit","session_id":"{SESSION}","transcript_path":"/x.jsonl","cwd":{cwd},"workspace":{{"current_dir":{cwd},"project_dir":{cwd}}},"version":"2.1.332"}}"#
        )
    }
}

/// The newest log of a sample server folder `folder` under `root`.
fn newest_in(root: &Path, folder: &str) -> PathBuf {
    let dir = walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .find(|p| p.ends_with(folder))
        .expect("sample server");
    let mut logs: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    logs.sort();
    logs.pop().unwrap()
}

fn server<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no {name}: {doc:#}"))
}

/// The servers `scan --json` marks fixable.
fn fixable(scan: &Value) -> Vec<String> {
    let mut v: Vec<String> = scan["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["fix"]["fixable"] == true)
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

/// The servers `fix --dry-run` plans for, from what it says: `For NAME (DIR) (cause)`
/// for each change of the engine, `The legacy fix helps: NAME (DIR), ...`.
fn planned(err: &str) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for l in err.lines() {
        if let Some(rest) = l.strip_prefix("For ") {
            v.push(rest.split(" (").next().unwrap().to_string());
        }
        if let Some(rest) = l.strip_prefix("The legacy fix helps: ") {
            v.extend(
                rest.split(", ")
                    .map(|w| w.split(" (").next().unwrap().to_string()),
            );
        }
    }
    v.sort();
    v.dedup();
    v
}

const PASTE: &str = "Checking MCP server health...\n\n\
far: farstub f - \u{2718} Failed to connect\n\
slow: python3 s.py - \u{2718} Failed to connect\n\
near: python3 n.py - ! Connected \u{b7} tools fetch failed\n";

#[test]
fn every_command_gives_each_server_the_fix_scan_gives() {
    let h = Home::three();
    let scan = h.json(&["scan", "--json"]);
    // the resolution's fix, typed: the engine's change with its file, key and value
    let far = &server(&scan, "far")["fix"];
    assert_eq!(far["fixable"], true, "{far:#}");
    let change = &far["changes"][0];
    assert_eq!(change["cause"], "command-path", "{far:#}");
    assert_eq!(change["state"], "planned");
    assert_eq!(change["offered"], true);
    assert_eq!(
        change["file"],
        h.home.join(".claude.json").display().to_string()
    );
    assert_eq!(change["layer"], "claude.json");
    assert_eq!(
        change["key"],
        serde_json::json!(["mcpServers", "far", "command"])
    );
    assert_eq!(
        change["value"],
        h.tools.join("farstub").display().to_string()
    );
    let slow = &server(&scan, "slow")["fix"]["changes"][0];
    assert_eq!(slow["cause"], "longer-timeout", "{slow:#}");
    assert_eq!(slow["key"], serde_json::json!(["env", "MCP_TIMEOUT"]));
    assert_eq!(slow["layer"], "user");
    let near = &server(&scan, "near")["fix"]["changes"][0];
    assert_eq!(near["cause"], "legacy-negotiation", "{near:#}");
    assert_eq!(
        near["key"],
        serde_json::json!(["env", "MCP_PROTOCOL_NEGOTIATION"])
    );
    assert_eq!(near["value"], "legacy");

    // scan's screen says the same sentence for each server
    let screen = stdout(&h.run(&["scan"]));
    // `claude mcp list` is run in the project: its paste, explained there
    let explain = {
        let mut c = h.cmd(&h.proj, &["explain", "--json", "--home"]);
        c.arg(&h.home);
        let out = h.with_stdin(c, PASTE);
        serde_json::from_slice::<Value>(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)))
    };
    // explain's screen counts what scan counts as fixable
    let explain_screen = {
        let mut c = h.cmd(&h.proj, &["explain", "--home"]);
        c.arg(&h.home);
        stdout(&h.with_stdin(c, PASTE))
    };
    let summary = |t: &str| t.lines().next().unwrap_or_default().to_string();
    assert!(summary(&screen).contains("3 can be fixed"), "{screen}");
    assert!(
        summary(&explain_screen).contains("3 can be fixed"),
        "{explain_screen}"
    );
    let report = h.json(&["report", "--json", "--force"]);
    let markdown = stdout(&h.run(&["report", "--force"]));
    for name in ["far", "slow", "near"] {
        let want = server(&scan, name)["recommendation"].as_str().unwrap();
        if name != "near" {
            assert!(
                want.starts_with("Run `mcplogs fix --home "),
                "{name}: {want}"
            );
            // the screen's What-to-do item, the same words (wrapped: compare the start)
            assert!(screen.contains(&want[..40]), "{name}: {screen}");
        }
        assert!(want.contains("mcplogs fix"), "{name}: {want}");
        assert_eq!(
            server(&explain, name)["recommendation"],
            want,
            "explain, {name}"
        );
        // a report is for sharing: the home folder is `~` in it, nothing else differs
        let shared = want.replace(&h.home.display().to_string(), "~");
        assert_eq!(
            server(&report, name)["recommendation"],
            shared.as_str(),
            "report --json, {name}"
        );
        // the Markdown report is for near's authors (its section names the legacy
        // setting as the users' workaround); far and slow, the user's own set-up, are
        // listed after it with scan's fix
        if name == "near" {
            assert!(
                markdown.contains("`MCP_PROTOCOL_NEGOTIATION=legacy`"),
                "{markdown}"
            );
        } else {
            let line = markdown
                .lines()
                .find(|l| l.starts_with(&format!("- `{name}`: ")))
                .unwrap_or_else(|| panic!("report, {name}: {markdown}"));
            let cause = server(&scan, name)["fix"]["changes"][0]["cause"]
                .as_str()
                .unwrap()
                .to_string();
            assert!(
                line.ends_with(&format!(": fixable with mcplogs fix ({cause})")),
                "report, {name}: {line}"
            );
        }
    }

    // the status line and the hook: each failing server gets `mcplogs fix`, as scan
    let mut c = h.cmd(&h.elsewhere, &["statusline", "--home"]);
    c.arg(&h.home).arg("--managed-dir").arg(&h.managed);
    let wide = h
        .status_input()
        .replacen('{', "{\"terminal\":{\"width\":400},", 1);
    let line = stdout(&h.with_stdin(c, &wide));
    let fix = format!(
        "mcplogs fix{}",
        mcplogs::advice::home_flags(std::slice::from_ref(&h.home))
    );
    for (name, what) in [
        ("far", "command not found"),
        ("near", "tools fetch failed"),
        ("slow", "timed out"),
    ] {
        assert!(line.contains(&format!("{name} ({what} · {fix})")), "{line}");
    }
    let cache = tempfile::tempdir().unwrap();
    let mut c = h.cmd(&h.elsewhere, &["hook", "--home"]);
    c.arg(&h.home)
        .arg("--managed-dir")
        .arg(&h.managed)
        .env("MCPLOGS_CACHE_DIR", cache.path());
    let out = h.with_stdin(c, &h.status_input());
    let hook: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)));
    let text = hook["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    for name in ["far", "slow", "near"] {
        assert!(text.contains(name), "{text}");
    }
    assert!(text.contains("`mcplogs fix"), "{text}");
    assert!(!text.contains("absolute path"), "{text}");

    // plain `mcplogs fix` fixes what scan reports fixable, no more, no less
    assert_eq!(fixable(&scan), ["far", "near", "slow"]);
    let before = h.files();
    let out = h.run(&["fix", "--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(planned(&stderr(&out)), fixable(&scan), "{}", stderr(&out));
    assert_eq!(h.files(), before);
}

/// Item 4 of issue 53: on a build outside the builds a fix was observed on (this
/// machine's `claude --version`), scan says it is not offered, with the change to make
/// by hand, and `fix` writes nothing for it; the two still agree on what is fixable.
#[test]
fn a_build_outside_the_observed_ones_is_said_by_scan_and_never_written_by_fix() {
    let h = Home::three();
    h.claude("2.1.340");
    let scan = h.json(&["scan", "--json"]);
    for name in ["far", "slow"] {
        let s = server(&scan, name);
        let c = &s["fix"]["changes"][0];
        assert_eq!(c["state"], "not-offered", "{name}: {s:#}");
        assert_eq!(c["offered"], false);
        assert!(
            c["notOffered"]
                .as_str()
                .unwrap()
                .ends_with("; this machine runs 2.1.340"),
            "{c:#}"
        );
        let rec = s["recommendation"].as_str().unwrap();
        assert!(
            rec.starts_with("Not offered by `mcplogs fix` (")
                && rec.contains(
                    "observed to work on Claude Code 2.1.287 to 2.1.336; this machine runs 2.1.340"
                ),
            "{rec}"
        );
    }
    let screen = stdout(&h.run(&["scan"]));
    assert!(screen.contains("this machine runs 2.1.340"), "{screen}");
    assert!(
        screen.lines().next().unwrap().contains("1 can be fixed"),
        "{screen}"
    );
    // the legacy setting is not gated by build (as before)
    assert_eq!(fixable(&scan), ["near"]);
    let out = h.run(&["fix", "--dry-run"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(planned(&err), fixable(&scan), "{err}");
    assert!(err.contains("this machine runs 2.1.340"), "{err}");
    // `--yes`: only the legacy setting is written; .claude.json (far's entry) and the
    // timeout are left as they were
    let claude_json = fs::read(h.home.join(".claude.json")).unwrap();
    let out = h.run(&["fix", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read(h.home.join(".claude.json")).unwrap(), claude_json);
    let user = fs::read_to_string(h.home.join(".claude/settings.json")).unwrap();
    assert!(user.contains("\"MCP_TIMEOUT\": \"3000\""), "{user}");
    assert!(user.contains("\"legacy\""), "{user}");
}

/// Every folder and file under `dir` but the logs (`.cache`), with the files' bytes.
fn tree(dir: &Path) -> Vec<(PathBuf, Option<Vec<u8>>)> {
    let mut out: Vec<(PathBuf, Option<Vec<u8>>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".cache")
        .map(|e| e.unwrap())
        .map(|e| {
            let bytes = e.file_type().is_file().then(|| fs::read(e.path()).unwrap());
            (e.into_path(), bytes)
        })
        .collect();
    out.sort();
    out
}

/// Issue 53: `fix --undo` after a plan that created `~/.claude/settings.json` and the
/// `~/.claude` folder itself leaves the machine as before: the file, the plan's records
/// and the folder are gone (the folder only because the plan created it and nothing
/// else is in it), and `.claude.json`, which the plan edited, has its bytes back.
#[test]
fn undo_removes_the_settings_file_and_the_folder_the_plan_created() {
    let h = Home::three();
    fs::remove_dir_all(h.home.join(".claude")).unwrap();
    let before = tree(&h.home);
    let out = h.run(&["fix", "--yes", "--claude-version", "2.1.332"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let user = h.home.join(".claude/settings.json");
    let written = fs::read_to_string(&user).unwrap();
    assert!(
        written.contains("\"legacy\"") && written.contains("MCP_TIMEOUT"),
        "{written}"
    );
    let out = h.run(&["fix", "--undo", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!h.home.join(".claude").exists(), "{}", stderr(&out));
    assert_eq!(tree(&h.home), before, "{}", stderr(&out));

    // a folder that holds something else of the user's stays, with it
    let h = Home::three();
    fs::remove_dir_all(h.home.join(".claude")).unwrap();
    let out = h.run(&["fix", "--yes", "--claude-version", "2.1.332"]);
    assert!(out.status.success(), "{}", stderr(&out));
    fs::write(h.home.join(".claude/CLAUDE.md"), "mine\n").unwrap();
    let out = h.run(&["fix", "--undo", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let left: Vec<String> = fs::read_dir(h.home.join(".claude"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["CLAUDE.md"]);
}

/// A server whose project folder is gone and that only its authors can mend (a bad tool
/// definition, an old protocol, a failing tools/list) gets no word of the folder from
/// `fix`: no file would help it, there or anywhere (helper-75's finding: `fix` said its
/// folder was the reason nothing was written, and to run the fix again once moved).
/// One that a file could help (its command not found) still gets its step.
#[test]
fn fix_blames_a_gone_folder_only_where_a_file_could_help() {
    let gone = samples_gone();
    let gone = gone.path().to_str().unwrap().to_string();
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("sample-logs");
    copy_samples_moved(&samples(), &copy, &gone);
    let home = copy.join("linux-home");
    let me = tmp.path().join("me");
    std::fs::create_dir_all(&me).unwrap();
    let r = run(mcplogs(&me).args(["fix", "--dry-run", "--home", home.to_str().unwrap()]));
    assert!(r.code <= 1, "{}{}", r.stdout, r.stderr);
    let all = format!("{}{}", r.stdout, r.stderr);
    let flat = all.split_whitespace().collect::<Vec<_>>().join(" ");
    for name in ["bad-tool", "old-protocol", "tools-error"] {
        assert!(
            !flat.contains(&format!("Only you can fix {name} ")),
            "{name} blamed on its folder:\n{all}"
        );
    }
    assert!(flat.contains("Only you can fix missing-cmd "), "{all}");
}
