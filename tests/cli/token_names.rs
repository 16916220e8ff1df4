//! A server whose name holds a token (issue review leftovers L1, L4): it is printed
//! redacted (`[REDACTED:github-token]`), and every command that takes a server name
//! takes both the real name and that printed form; no message echoes the token, and
//! nothing mcplogs keeps in its own cache holds it.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{Run, mcplogs, run};

pub const TOKEN: &str = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
pub const SHOWN: &str = "[REDACTED:github-token]";

/// A throw-away home: `~/work/proj` with a `.mcp.json`, its settings, `~/.claude.json`,
/// and the logs of the servers asked for (a real 2.1.332 session, healthy), and a folder
/// `~/elsewhere` the commands run from.
pub struct Home {
    _dir: tempfile::TempDir,
    pub home: PathBuf,
    pub proj: PathBuf,
    pub elsewhere: PathBuf,
}

pub fn encode(p: &str) -> String {
    mcplogs::claude_code::names::encode_folder_name(p)
}

impl Home {
    pub fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let home = fs::canonicalize(dir.path()).unwrap().join("me");
        let proj = home.join("work/proj");
        let elsewhere = home.join("elsewhere");
        for d in [
            home.join(".claude"),
            proj.join(".claude"),
            elsewhere.clone(),
        ] {
            fs::create_dir_all(d).unwrap();
        }
        Home {
            _dir: dir,
            home,
            proj,
            elsewhere,
        }
    }

    /// `name`'s log in `project`: one healthy session of a real build.
    pub fn log(&self, project: &Path, name: &str) {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "tests/fixtures/configured/mcpjson-local/2.1.332/logs/mcp-logs-p-enabled/2026-12-02T00-24-30-655Z.jsonl",
        );
        let dir = self
            .home
            .join(".cache/claude-cli-nodejs")
            .join(encode(project.to_str().unwrap()))
            .join(format!("mcp-logs-{}", encode(name)));
        fs::create_dir_all(&dir).unwrap();
        let text = fs::read_to_string(fixture)
            .unwrap()
            .replace("@PROJ@", project.to_str().unwrap());
        fs::write(dir.join("2026-12-02T00-24-30-655Z.jsonl"), text).unwrap();
    }

    pub fn write(&self, path: &Path, value: serde_json::Value) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    }

    /// `.mcp.json` of `project` with a stdio server per name.
    pub fn mcp_json(&self, project: &Path, names: &[&str]) {
        let servers: serde_json::Map<String, serde_json::Value> = names
            .iter()
            .map(|n| {
                (
                    n.to_string(),
                    serde_json::json!({"type": "stdio", "command": "python3", "args": ["-c", "pass"]}),
                )
            })
            .collect();
        self.write(
            &project.join(".mcp.json"),
            serde_json::json!({ "mcpServers": servers }),
        );
    }

    pub fn run_in(&self, dir: &Path, args: &[&str]) -> Run {
        let mut c = mcplogs(&self.home);
        c.current_dir(dir).args(args);
        run(&mut c)
    }

    pub fn run(&self, args: &[&str]) -> Run {
        self.run_in(&self.elsewhere, args)
    }
}

/// The project of [`Home`] with `p-ok` (approved), `p-off` and the token server (both
/// disabled in `.claude/settings.local.json`); `logged` of them have logs.
fn token_home(logged: &[&str]) -> Home {
    token_home_named(TOKEN, logged)
}

fn token_home_named(token: &str, logged: &[&str]) -> Home {
    let h = Home::new();
    h.mcp_json(&h.proj, &["p-ok", "p-off", token]);
    h.write(
        &h.proj.join(".claude/settings.local.json"),
        serde_json::json!({"enabledMcpjsonServers": ["p-ok"], "disabledMcpjsonServers": ["p-off", token]}),
    );
    h.write(
        &h.home.join(".claude.json"),
        serde_json::json!({"projects": {h.proj.to_str().unwrap(): {"hasTrustDialogAccepted": true}}}),
    );
    for n in logged {
        h.log(&h.proj, n);
    }
    h
}

fn no_token(r: &Run, what: &str) {
    assert!(
        !r.stdout.contains(TOKEN) && !r.stderr.contains(TOKEN),
        "{what} echoes the token: {r:?}"
    );
}

/// L1: `scan --server`, `scan NAME`, `fix NAME`, `fix --except` and `du --server` select
/// the server by its real name and by its printed form, logged or not, from the project
/// and from another folder; a name that selects nothing is echoed redacted.
#[test]
fn both_the_real_name_and_the_printed_form_select_the_server() {
    for logged in [&["p-ok"][..], &["p-ok", TOKEN][..]] {
        let h = token_home(logged);
        for dir in [&h.elsewhere, &h.proj] {
            for given in [TOKEN, SHOWN] {
                let r = h.run_in(dir, &["scan", "--server", given]);
                assert_eq!(r.code, 0, "scan --server {given} ({logged:?}): {r:?}");
                assert!(r.stdout.contains(SHOWN), "{r:?}");
                assert!(!r.stdout.contains("p-ok"), "{r:?}");
                no_token(&r, "scan --server");
                // the word form: a server configured for this folder, or logged
                let r = h.run_in(dir, &["scan", given]);
                if dir == &h.proj || logged.contains(&TOKEN) {
                    assert_eq!(r.code, 0, "scan {given}: {r:?}");
                }
                no_token(&r, "scan NAME");
                let except = format!("--except={given}");
                let r = h.run_in(dir, &["fix", "--dry-run", &except]);
                assert_eq!(r.code, 0, "fix {except}: {r:?}");
                no_token(&r, "fix --except");
                let r = h.run_in(dir, &["fix", "--dry-run", given]);
                assert_eq!(r.code, 0, "fix {given}: {r:?}");
                no_token(&r, "fix NAME");
                // what fix prints for it runs as printed
                if let Some(cmd) = r
                    .stderr
                    .split('`')
                    .find(|c| c.starts_with("mcplogs scan --server"))
                {
                    assert!(cmd.contains(&format!("'{SHOWN}'")), "{cmd}");
                }
                let r = h.run_in(dir, &["fix", "--dry-run", given, &except]);
                assert_eq!(r.code, 2, "{r:?}");
                no_token(&r, "fix NAME --except NAME");
            }
        }
        if logged.contains(&TOKEN) {
            for given in [TOKEN, SHOWN] {
                let r = h.run(&["du", "--server", given]);
                assert_eq!(r.code, 0, "du --server {given}: {r:?}");
                no_token(&r, "du --server");
            }
        }
        let other = format!("x{TOKEN}");
        for args in [
            &["scan", "--server", other.as_str()][..],
            &["fix", "--dry-run", other.as_str()][..],
            &["fix", "--dry-run", "--except", other.as_str()][..],
            &["du", "--server", other.as_str()][..],
            &[
                "probe",
                "--project",
                h.proj.to_str().unwrap(),
                other.as_str(),
            ][..],
        ] {
            let r = h.run(args);
            assert_eq!(r.code, 2, "{args:?}: {r:?}");
            no_token(&r, &format!("{args:?}"));
        }
    }
}

/// Every file under `dir`, names and contents, as one text.
fn cache_text(dir: &Path) -> String {
    let mut out = String::new();
    for e in walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
    {
        out.push_str(&e.path().display().to_string());
        out.push('\n');
        if e.file_type().is_file() {
            out.push_str(&String::from_utf8_lossy(&fs::read(e.path()).unwrap()));
            out.push('\n');
        }
    }
    out
}

/// L4: with a server folder named after a token, nothing in mcplogs' own cache holds
/// the token after every command that writes there (the status line's memo, the hook's
/// told-list, the summary index), the memo still works (read back, the same line), and
/// prune still removes the memo once the logs are gone.
#[test]
fn nothing_mcplogs_keeps_holds_a_token_in_a_server_name() {
    use crate::common::{age_all, run_with_stdin};
    // a name whose log folder keeps the token as it is (Claude Code's folder names turn
    // every character but letters and digits into `-`: a `ghp_` token's would not)
    const TOKEN: &str = "sk-ant-api03-AbCdEf0123456789xyzQQ";
    assert_eq!(encode(TOKEN), TOKEN);
    let h = token_home_named(TOKEN, &["p-ok", TOKEN]);
    // logged and approved: the token server runs
    h.write(
        &h.proj.join(".claude/settings.local.json"),
        serde_json::json!({"enabledMcpjsonServers": ["p-ok", TOKEN]}),
    );
    let cache = h.home.join("mcplogs-cache");
    let session = "6b9ca0ca-f94b-497a-8410-f9bcac4f1f2b";
    let proj = h.proj.to_str().unwrap();
    let stdin = format!(
        r#"{{"session_id":"{session}","transcript_path":"/x.jsonl","cwd":"{proj}","workspace":{{"current_dir":"{proj}","project_dir":"{proj}"}}}}"#
    );
    let status = |cmd: &str| {
        let mut c = mcplogs(&h.home);
        c.env("MCPLOGS_CACHE_DIR", &cache)
            .current_dir(&h.proj)
            .arg(cmd);
        run_with_stdin(&mut c, stdin.as_bytes())
    };
    let first = status("statusline");
    assert_eq!(first.code, 0, "{first:?}");
    assert!(status("hook").code == 0);
    age_all(&h.home.join(".cache"), 1);
    for args in [
        &["scan"][..],
        &["scan", "--json"][..],
        &["report"][..],
        &["du"][..],
    ] {
        let mut c = mcplogs(&h.home);
        c.env("MCPLOGS_CACHE_DIR", &cache)
            .current_dir(&h.elsewhere)
            .args(args);
        let r = run(&mut c);
        assert!(r.code == 0 || r.code == 1, "{args:?}: {r:?}");
    }
    let memo_dir = cache.join("statusline");
    assert!(memo_dir.is_dir() && fs::read_dir(&memo_dir).unwrap().count() > 0);
    let text = cache_text(&cache);
    assert!(!text.contains(TOKEN), "the cache holds the token:\n{text}");
    // read back from the memo: the same answer
    let again = status("statusline");
    assert_eq!(again.stdout, first.stdout, "{again:?}");
    assert!(!cache_text(&cache).contains(TOKEN));
    // the token server's logs go: prune removes the memo, which describes them too
    let folder = h.home.join(".cache/claude-cli-nodejs").join(encode(proj));
    fs::remove_dir_all(folder).unwrap();
    let mut c = mcplogs(&h.home);
    c.env("MCPLOGS_CACHE_DIR", &cache)
        .current_dir(&h.elsewhere)
        .args(["prune", "--yes", "--json"]);
    let r = run(&mut c);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        fs::read_dir(&memo_dir).unwrap().next().is_none(),
        "the memo of gone logs stays: {r:?}"
    );
}

/// `scan --verbose` names a server's log folder named after a token with the tag its
/// name carries everywhere else (`mcp-logs-[REDACTED:github-token]#xxxx`), and never the
/// token.
#[test]
fn the_verbose_logs_path_of_a_token_named_folder_carries_the_tag() {
    let h = token_home(&["p-ok", TOKEN]);
    fs::write(
        h.proj.join(".claude/settings.local.json"),
        serde_json::json!({"enabledMcpjsonServers": ["p-ok", TOKEN]}).to_string(),
    )
    .unwrap();
    let printed = mcplogs::scan::select::printed(TOKEN);
    let r = h.run_in(&h.proj, &["scan", "--verbose", "--server", TOKEN]);
    no_token(&r, "scan --verbose");
    let text = r.stdout.split_whitespace().collect::<String>();
    assert!(
        text.contains(&format!("/mcp-logs-{printed}")),
        "{}",
        r.stdout
    );
}
