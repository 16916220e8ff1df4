//! Issue 51: `mcplogs fix` plans one file per failing server's project, whatever folder
//! it runs in, and `settings --json` in each project then shows legacy in effect there;
//! `fix --undo` gives every file back byte for byte. The home path holds a space and a
//! quote.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::*;

struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
    managed: PathBuf,
    /// Its shared `.claude/settings.json` sets auto: the user file does not reach it.
    overriding: PathBuf,
    plain: PathBuf,
    elsewhere: PathBuf,
}

const OVERRIDE: &str = "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"auto\"\n  }\n}\n";
const USER: &str = "{\n  \"theme\": \"dark\"\n}\n";

impl Home {
    fn new() -> Home {
        let dir = fixed_length_tempdir();
        let base = dir.path().join("it's a home");
        let home = base.join("me");
        let managed = base.join("managed");
        let overriding = base.join("proj a");
        let plain = base.join("proj-b");
        let elsewhere = base.join("elsewhere");
        for d in [&home, &managed, &overriding, &plain, &elsewhere] {
            fs::create_dir_all(d).unwrap();
        }
        fs::create_dir_all(overriding.join(".claude")).unwrap();
        fs::write(overriding.join(".claude/settings.json"), OVERRIDE).unwrap();
        fs::create_dir_all(home.join(".claude")).unwrap();
        fs::write(home.join(".claude/settings.json"), USER).unwrap();
        let h = Home {
            _dir: dir,
            home,
            managed,
            overriding,
            plain,
            elsewhere,
        };
        h.log_for(&h.overriding.clone(), "srv-a");
        h.log_for(&h.plain.clone(), "srv-b");
        h
    }

    /// A session of the real sample server that lacks resultType (the legacy fix cures
    /// it), recorded as run in `project`.
    fn log_for(&self, project: &Path, name: &str) {
        let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
        let src_dir = walkdir::WalkDir::new(samples.join("macos-home"))
            .into_iter()
            .map(|e| e.unwrap().into_path())
            .find(|p| p.ends_with("mcp-logs-no-resulttype"))
            .expect("sample server");
        let mut files: Vec<PathBuf> = fs::read_dir(&src_dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let newest = files.pop().unwrap();
        let text = fs::read_to_string(&newest).unwrap();
        let cwd = serde_json::to_string(&project.display().to_string()).unwrap();
        let text = text.replace("\"/tmp/mcplogs-samples/home-macos/work/web\"", cwd.as_str());
        let slug: String = project
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
        fs::write(d.join(newest.file_name().unwrap()), text).unwrap();
    }

    fn run(&self, cwd: &Path, args: &[&str]) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mcplogs"));
        c.args(args)
            .arg("--managed-dir")
            .arg(&self.managed)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("CLAUDE_CONFIG_DIR", self.home.join(".claude"))
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("NO_COLOR", "1")
            .current_dir(cwd)
            .stdin(Stdio::null());
        clock_env(&mut c);
        c.output().unwrap()
    }

    /// `fix --undo --yes --settings FILE` from the third folder.
    fn undo_file(&self, file: &Path) -> Output {
        let file = file.to_str().unwrap();
        self.run(
            &self.elsewhere,
            &["fix", "--undo", "--yes", "--settings", file],
        )
    }

    /// The value in effect in `project` and the file deciding it, per `settings --json`.
    fn in_effect(&self, project: &Path) -> (String, String) {
        let out = self.run(project, &["settings", "--json"]);
        let doc: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)));
        let eff = &doc["effective"];
        (
            eff["value"].as_str().unwrap_or("").to_string(),
            eff["path"].as_str().unwrap_or("").to_string(),
        )
    }

    fn files(&self) -> Vec<(PathBuf, Option<Vec<u8>>)> {
        let mut out = Vec::new();
        for d in [
            self.home.join(".claude"),
            self.overriding.join(".claude"),
            self.plain.join(".claude"),
            self.plain.clone(),
            self.elsewhere.clone(),
        ] {
            let Ok(entries) = fs::read_dir(&d) else {
                continue;
            };
            for p in entries.map(|e| e.unwrap().path()).filter(|p| p.is_file()) {
                let bytes = fs::read(&p).ok();
                out.push((p, bytes));
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

fn fix_from(h: &Home, cwd: &Path) {
    let before = h.files();
    let out = h.run(cwd, &["fix", "--yes"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    // Both servers, each reached in its own project; no claim about every project.
    assert!(err.contains("The legacy fix helps: "), "{err}");
    assert!(err.contains("srv-a") && err.contains("srv-b"), "{err}");
    assert!(!err.contains("does not take effect"), "{err}");
    assert!(!err.contains("every project"), "{err}");
    let local = h.overriding.join(".claude/settings.local.json");
    assert!(names_path(&err, &local), "{err}");
    // one diff, both files in it
    let diff = stdout(&out);
    assert_eq!(diff.matches("+++ ").count(), 2, "{diff}");
    for project in [&h.overriding, &h.plain] {
        let (value, _) = h.in_effect(project);
        assert_eq!(value, "legacy", "{}: {err}", project.display());
    }
    let (_, path) = h.in_effect(&h.overriding);
    assert_eq!(Path::new(&path), local);
    // The shared file the project commits is left alone.
    assert_eq!(
        fs::read_to_string(h.overriding.join(".claude/settings.json")).unwrap(),
        OVERRIDE
    );
    // Undo from yet another folder: every file back, byte for byte, nothing left over.
    let undo = h.run(&h.elsewhere, &["fix", "--undo", "--yes"]);
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert_eq!(h.files(), before, "{}", stderr(&undo));
    for project in [&h.overriding, &h.plain] {
        assert_ne!(h.in_effect(project).0, "legacy");
    }
}

#[test]
fn fix_from_a_third_folder_reaches_every_failing_servers_project() {
    let h = Home::new();
    fix_from(&h, &h.elsewhere.clone());
}

#[test]
fn fix_from_inside_the_overriding_project_reaches_the_other_one_too() {
    let h = Home::new();
    fix_from(&h, &h.overriding.clone());
}

#[test]
fn fix_with_project_says_which_servers_it_does_not_reach() {
    let h = Home::new();
    // `--project DIR` writes that project's file alone: the other server is named as not
    // reached, never claimed.
    let mut args = vec!["fix", "--dry-run", "--project"];
    let p = h.overriding.display().to_string();
    args.push(&p);
    let out = h.run(&h.elsewhere, &args);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("The legacy fix helps: srv-a"), "{err}");
    assert!(err.contains("does not take effect for srv-b"), "{err}");
}

/// The numbered actions of scan's "What to do", each joined onto one line.
pub(crate) fn actions(screen: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut inside = false;
    for line in screen.lines() {
        if line.starts_with("What to do") {
            inside = true;
            continue;
        }
        if !inside {
            continue;
        }
        if !line.starts_with(' ') {
            break;
        }
        let t = line.trim_start();
        let numbered = t
            .split_once(". ")
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if numbered {
            out.push(t.to_string());
        } else if let Some(last) = out.last_mut() {
            last.push(' ');
            last.push_str(t);
        }
    }
    out
}

#[test]
fn scan_offers_each_settings_change_once() {
    let h = Home::new();
    // A third failing server whose project folder is gone (the user file is its fix,
    // as for proj-b): it once got an action of its own naming the same file.
    h.log_for(&h.home.parent().unwrap().join("gone proj"), "srv-c");
    for cwd in [&h.elsewhere, &h.overriding, &h.plain] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mcplogs"));
        c.args(["scan", "--managed-dir"])
            .arg(&h.managed)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &h.home)
            .env("CLAUDE_CONFIG_DIR", h.home.join(".claude"))
            .env("XDG_CACHE_HOME", h.home.join(".cache"))
            .env("NO_COLOR", "1")
            .env("COLUMNS", "400")
            .current_dir(cwd)
            .stdin(Stdio::null());
        clock_env(&mut c);
        let out = c.output().unwrap();
        let screen = stdout(&out);
        let acts = actions(&screen);
        let fixes: Vec<&String> = acts
            .iter()
            .filter(|a| a.contains("MCP_PROTOCOL_NEGOTIATION=legacy in"))
            .collect();
        // One change, one action: one `mcplogs fix` for the three servers, and each file
        // it writes named in it once.
        assert_eq!(fixes.len(), 1, "{screen}");
        let fix = fixes[0];
        assert_eq!(fix.matches("Run `mcplogs fix").count(), 1, "{screen}");
        assert_eq!(fix.matches("~/.claude/settings.json").count(), 1, "{fix}");
        let local = h.overriding.join(".claude/settings.local.json");
        assert_eq!(
            fix.matches(local.display().to_string().as_str()).count(),
            1,
            "{fix}"
        );
        for name in ["srv-a", "srv-b", "srv-c"] {
            assert!(fix.contains(name), "{fix}");
        }
        // and running it from this folder does what the action says
        let out = h.run(cwd, &["fix", "--dry-run"]);
        let err = stderr(&out);
        assert!(out.status.success(), "{err}");
        assert!(!err.contains("does not take effect"), "{err}");
        assert_eq!(stdout(&out).matches("+++ ").count(), 2, "{}", stdout(&out));
    }
}

/// `fix --yes` from the third folder: the user file, the overriding project's local file
/// and the plan's record (paths).
fn fixed_from_elsewhere(h: &Home) -> (PathBuf, PathBuf, PathBuf) {
    let out = h.run(&h.elsewhere, &["fix", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    (
        h.home.join(".claude/settings.json"),
        h.overriding.join(".claude/settings.local.json"),
        h.home.join(".claude/settings.json.mcplogs-fix-plan.json"),
    )
}

/// `fix --undo --settings FILE` undoes one file of a plan: the plan's record then names
/// only the others (a plain `fix --undo` undoes them, and says nothing of the file
/// undone already), and goes once the last file of the plan is undone.
#[test]
fn undoing_one_file_of_the_plan_takes_it_out_of_the_plan() {
    let h = Home::new();
    let before = h.files();
    let (user, local, record) = fixed_from_elsewhere(&h);
    let planned = || -> Option<Vec<String>> {
        let text = fs::read_to_string(&record).ok()?;
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        Some(
            doc["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap().to_string())
                .collect(),
        )
    };
    let both = planned().expect("a plan record");
    assert_eq!(both.len(), 2, "{both:?}");
    // declined (no --yes, no terminal): nothing undone, the plan as it was
    let declined = h.run(
        &h.elsewhere,
        &["fix", "--undo", "--settings", local.to_str().unwrap()],
    );
    assert!(local.exists(), "{}", stderr(&declined));
    assert_eq!(planned().unwrap(), both);
    let one = h.undo_file(&local);
    assert!(one.status.success(), "{}", stderr(&one));
    assert!(!local.exists(), "{}", stderr(&one));
    assert_eq!(
        planned().unwrap(),
        [user.display().to_string()],
        "{}",
        stderr(&one)
    );
    let rest = h.run(&h.elsewhere, &["fix", "--undo", "--yes"]);
    assert!(rest.status.success(), "{}", stderr(&rest));
    let err = stderr(&rest);
    assert!(!err.contains("settings.local.json"), "{err}");
    assert_eq!(h.files(), before, "{err}");
    assert_eq!(planned(), None);
    // the last file of a plan undone by name: the record goes with it
    let again = h.run(&h.elsewhere, &["fix", "--yes"]);
    assert!(again.status.success(), "{}", stderr(&again));
    for f in [&local, &user] {
        let out = h.undo_file(f);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    assert_eq!(planned(), None);
    assert_eq!(h.files(), before);
}

/// A plan whose fix made the user settings folder: undoing its files one by one by name
/// leaves nothing behind (the folder goes with the plan's record), and an undo of the
/// user file run without the fix's home (another HOME, as a printed command run
/// elsewhere would) still takes it out of the plan that file's home keeps.
#[test]
fn undoing_the_plan_file_by_file_leaves_no_folder_and_finds_the_homes_record() {
    let h = Home::new();
    fs::remove_dir_all(h.home.join(".claude")).unwrap();
    let before = h.files();
    let (user, local, record) = fixed_from_elsewhere(&h);
    assert!(user.exists() && local.exists() && record.exists());
    // the user file, undone with another HOME: its own home's record forgets it
    let stranger = h.elsewhere.join("stranger");
    fs::create_dir_all(&stranger).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_mcplogs"));
    c.args([
        "fix",
        "--undo",
        "--yes",
        "--settings",
        user.to_str().unwrap(),
    ])
    .arg("--managed-dir")
    .arg(&h.managed)
    .env_clear()
    .env("PATH", std::env::var_os("PATH").unwrap_or_default())
    .env("HOME", &stranger)
    .env("NO_COLOR", "1")
    .current_dir(&h.elsewhere)
    .stdin(Stdio::null());
    clock_env(&mut c);
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!user.exists(), "{}", stderr(&out));
    let text = fs::read_to_string(&record).unwrap();
    assert!(
        !text.contains("me/.claude/settings.json\"") && text.contains("settings.local.json"),
        "{text}"
    );
    let out = h.undo_file(&local);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!record.exists(), "{}", stderr(&out));
    assert!(
        !h.home.join(".claude").exists(),
        "the folder the fix made is left: {:?}",
        fs::read_dir(h.home.join(".claude")).map(|d| d.count())
    );
    assert_eq!(h.files(), before);
}

/// `fix --home DIR` with a relative DIR: the plan's record and the undo command it
/// prints name absolute paths, so the undo runs from any folder.
#[test]
fn a_relative_home_is_recorded_absolute() {
    let h = Home::new();
    let before = h.files();
    let base = h.home.parent().unwrap().to_path_buf();
    let out = h.run(&base, &["fix", "--home", "me", "--yes"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let flat = err.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&format!(
            "mcplogs fix --undo --home {}",
            mcplogs::text::shell_word(&h.home.display().to_string())
        )),
        "{err}"
    );
    let undo = h.run(
        &h.elsewhere,
        &["fix", "--undo", "--yes", "--home", h.home.to_str().unwrap()],
    );
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert_eq!(h.files(), before, "{}", stderr(&undo));
}

/// A user settings file that is a symbolic link, pointed at another file after the fix:
/// the undo refuses (it would edit a file mcplogs never wrote, and drop the record of
/// the one it changed), changes nothing, keeps the record; pointed back, it undoes.
#[cfg(unix)]
#[test]
fn an_undo_through_a_link_pointed_elsewhere_since_is_refused() {
    let h = Home::new();
    let dot = h.home.join("dotfiles");
    fs::create_dir_all(&dot).unwrap();
    let work = dot.join("work.json");
    let personal = dot.join("personal.json");
    const PERSONAL: &str = "{\"env\":{\"MCP_PROTOCOL_NEGOTIATION\":\"legacy\"}}\n";
    fs::write(&work, USER).unwrap();
    fs::write(&personal, PERSONAL).unwrap();
    let link = h.home.join(".claude/settings.json");
    fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(&work, &link).unwrap();
    let file = link.to_str().unwrap();
    let out = h.run(&h.elsewhere, &["fix", "--yes", "--settings", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let fixed = fs::read(&work).unwrap();
    assert_ne!(fixed, USER.as_bytes());
    let record = undo_record_of(&link);
    assert!(record.exists());
    // pointed elsewhere
    fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(&personal, &link).unwrap();
    let out = h.undo_file(&link);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(err.contains("never wrote"), "{err}");
    assert_eq!(fs::read_to_string(&personal).unwrap(), PERSONAL);
    assert_eq!(fs::read(&work).unwrap(), fixed);
    assert!(record.exists(), "the record was dropped");
    // pointed back: undone, byte for byte
    fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(&work, &link).unwrap();
    let out = h.undo_file(&link);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(&work).unwrap(), USER);
    assert!(!record.exists());
}

/// The undo record `fix` keeps beside `settings`.
fn undo_record_of(settings: &Path) -> PathBuf {
    mcplogs::settings::undo::state_path(settings)
}
