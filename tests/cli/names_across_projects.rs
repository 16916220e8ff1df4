//! A server name two projects hold, or one only other projects hold (helper-83's
//! leftovers): each command picks and says the server the name means, in its own
//! project, as `scan` does. Real Claude Code logs (`sample-logs/linux-home`) moved into
//! a throw-away home, with a second project made of a copy of the first's logs.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::*;

/// The relocated linux home with a second project `web` whose log folders are copies
/// of `api`'s (their records' working directory rewritten to `web`), both created.
fn two_projects() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let (tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let api = project_in(&home, "api");
    let web = copied_project(&home, &api, "web");
    (tmp, home, api, web)
}

/// A project `name` whose log folders are copies of `from`'s (their records' working
/// directory rewritten to it), created.
fn copied_project(home: &Path, from: &Path, name: &str) -> PathBuf {
    let project = project_in(home, name);
    let to = log_root(home, &project);
    copy_tree(&log_root(home, from), &to);
    let (a, w) = (from.display().to_string(), project.display().to_string());
    for e in walkdir::WalkDir::new(&to) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let text = fs::read_to_string(e.path()).unwrap();
            fs::write(e.path(), text.replace(&a, &w)).unwrap();
        }
    }
    project
}

/// The log folder Claude Code writes `project`'s logs in.
fn log_root(home: &Path, project: &Path) -> PathBuf {
    home.join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name(
            &project.display().to_string(),
        ))
}

/// `mcp-logs-<folder>` of `project`, a copy of its `mcp-logs-<like>`.
fn log_folder_like(home: &Path, project: &Path, folder: &str, like: &str) {
    let root = log_root(home, project);
    copy_tree(
        &root.join(format!("mcp-logs-{like}")),
        &root.join(format!("mcp-logs-{folder}")),
    );
}

/// Configures `name` (a stdio entry) for `project` in the home's `~/.claude.json`.
fn configure(home: &Path, project: &Path, name: &str) {
    let path = home.join(".claude.json");
    let mut doc: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    doc["projects"][project.display().to_string()]["mcpServers"][name] =
        json!({ "type": "stdio", "command": "python3", "args": ["s.py"] });
    fs::write(&path, doc.to_string()).unwrap();
}

/// `api-v2` configured in `api` (failing: it exits at start) and `api.v2` in `web`
/// (working), each logging in its project's `mcp-logs-api-v2`.
fn one_folder_two_names(home: &Path, api: &Path, web: &Path) {
    log_folder_like(home, api, "api-v2", "exits-early");
    log_folder_like(home, web, "api-v2", "modern-ok");
    configure(home, api, "api-v2");
    configure(home, web, "api.v2");
}

fn in_dir(home: &Path, cwd: &Path, args: &[&str]) -> Run {
    let mut c = mcplogs(home);
    c.current_dir(cwd).args(args).arg("--home").arg(home);
    if args[0] != "du" {
        c.arg("--no-cache");
    }
    run(&mut c)
}

fn doc(r: &Run) -> Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"))
}

/// `(name, project, verdict)` of each server of a scan document.
fn rows(doc: &Value) -> Vec<(String, String, String)> {
    doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let field = |k: &str| s[k].as_str().unwrap_or("-").to_string();
            (field("name"), field("project"), field("verdict"))
        })
        .collect()
}

/// helper-83 #11: `api-v2` (configured in `api`, failing) and `api.v2` (in `web`,
/// working) write to log folders of one name. Each is named as its own project
/// configures it (both were `api-v2`), and a name given picks that server only (`scan
/// api-v2` also listed the working `api.v2` of the other project), in `scan`, `scan
/// --server` and `du --server`; a name no server has still picks by log folder.
#[test]
fn a_name_picks_its_own_projects_server_not_another_of_the_same_log_folder() {
    let (_tmp, home, api, web) = two_projects();
    one_folder_two_names(&home, &api, &web);
    let (a, w) = (api.display().to_string(), web.display().to_string());

    let all = doc(&in_dir(&home, &home, &["scan", "--json"]));
    let of_folder: Vec<_> = rows(&all)
        .into_iter()
        .filter(|(n, _, _)| n.starts_with("api"))
        .collect();
    assert_eq!(
        of_folder,
        [
            ("api-v2".into(), a.clone(), "connection-failed".into()),
            ("api.v2".into(), w.clone(), "healthy".into()),
        ],
        "{all:#}"
    );

    let by_word = in_dir(&home, &home, &["scan", "--json", "api-v2"]);
    assert_eq!(by_word.code, 1, "{by_word:?}");
    assert_eq!(
        rows(&doc(&by_word)),
        [("api-v2".into(), a.clone(), "connection-failed".into())]
    );
    let by_flag = in_dir(&home, &home, &["scan", "--json", "--server", "API.V2"]);
    assert_eq!(by_flag.code, 0, "{by_flag:?}");
    assert_eq!(
        rows(&doc(&by_flag)),
        [("api.v2".into(), w.clone(), "healthy".into())]
    );
    // no server is named `api_v2`: its log folder's name picks both
    let by_folder = doc(&in_dir(
        &home,
        &home,
        &["scan", "--json", "--server", "api_v2"],
    ));
    assert_eq!(rows(&by_folder).len(), 2, "{by_folder:#}");

    let du = doc(&in_dir(
        &home,
        &home,
        &["du", "--json", "--server", "api-v2"],
    ));
    let projects = du["projects"].as_array().unwrap();
    assert_eq!(projects.len(), 1, "{du:#}");
    assert_eq!(projects[0]["project"], a.as_str());
    assert_eq!(projects[0]["servers"][0]["name"], "api-v2");
    assert_eq!(projects[0]["files"], projects[0]["servers"][0]["files"]);
    let du_web = doc(&in_dir(
        &home,
        &home,
        &["du", "--json", "--server", "api.v2"],
    ));
    assert_eq!(du_web["projects"][0]["project"], w.as_str(), "{du_web:#}");
    assert_eq!(du_web["projects"][0]["servers"][0]["name"], "api.v2");
}

/// helper-85 #1: `api-v2` and `api_v2` share `api`'s log folder, `api.v2` (working)
/// writes to the folder of that name in `web`: `--server api-v2` picks the shared row
/// and nothing else, never `api.v2` back as a configured server "not started" (its
/// logged row was left out, and the configured rows were chosen by log folder), in
/// `scan`, `report --json` and `export`; the exit code is the unfiltered scan's for it.
#[test]
fn a_name_given_brings_no_other_name_back_as_configured_only() {
    let (_tmp, home, api, web) = two_projects();
    one_folder_two_names(&home, &api, &web);
    configure(&home, &api, "api_v2");
    let scan = in_dir(&home, &home, &["scan", "--json", "--server", "api-v2"]);
    let d = doc(&scan);
    assert_eq!(
        rows(&d),
        [(
            "api-v2 + api_v2".into(),
            api.display().to_string(),
            "connection-failed".into()
        )],
        "{d:#}"
    );
    assert_eq!(d["configured"], json!([]), "{d:#}");
    let report = doc(&in_dir(
        &home,
        &home,
        &["report", "--json", "--force", "api-v2"],
    ));
    assert_eq!(report["configured"], json!([]), "{report:#}");
    let out = home.join("out.jsonl");
    let mut c = mcplogs(&home);
    c.current_dir(&home)
        .args(["export", "--home"])
        .arg(&home)
        .arg("--file")
        .arg(&out)
        .args(["--server", "api.v2"]);
    let export = run(&mut c);
    let text = fs::read_to_string(&out).unwrap_or_else(|e| panic!("{e}: {export:?}"));
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains(r#""body":"healthy""#), "{text}");
}

/// helper-85 #11: a log folder no project configures now, which two others name
/// differently (`api.v2`, `api_v2`), is named by itself, not by whichever was read first
/// (`--server api_v2` then missed it while `--server api.v2` found it).
#[test]
fn a_folder_other_projects_name_differently_is_named_by_itself() {
    let (_tmp, home, api, web) = two_projects();
    let app = copied_project(&home, &api, "app");
    for p in [&api, &web, &app] {
        log_folder_like(&home, p, "api-v2", "bad-tool");
    }
    configure(&home, &api, "api.v2");
    configure(&home, &app, "api_v2");
    let all = doc(&in_dir(&home, &home, &["scan", "--json"]));
    let names: Vec<(String, String)> = rows(&all)
        .into_iter()
        .filter(|(n, _, _)| n.starts_with("api"))
        .map(|(n, p, _)| (n, p))
        .collect();
    let path = |p: &PathBuf| p.display().to_string();
    assert_eq!(
        names,
        [
            ("api.v2".into(), path(&api)),
            ("api_v2".into(), path(&app)),
            ("api-v2".into(), path(&web)),
        ],
        "{all:#}"
    );
}

/// helper-83 #6: `--server NAME --match-project P` where only other projects hold NAME
/// said "Did you mean `NAME`?", the name given: it now says the name is in other
/// projects, with the command listing them, which runs as printed.
#[test]
fn a_name_only_other_projects_hold_is_said_so_not_did_you_mean_itself() {
    let (_tmp, home, _api, web) = two_projects();
    log_folder_like(&home, &web, "web-only", "modern-ok");
    // `web-only` asked for in the projects matching `project`
    let asked = |sub: &str, project: &str| {
        in_dir(
            &home,
            &home,
            &[sub, "--server", "web-only", "--match-project", project],
        )
    };
    let r = asked("scan", "work/api");
    assert_eq!(r.code, 2, "{r:?}");
    assert!(!r.stderr.contains("Did you mean"), "{}", r.stderr);
    assert!(
        r.stderr.contains("is only in other projects"),
        "{}",
        r.stderr
    );
    // the command it names lists the server
    let printed = r
        .stderr
        .split('`')
        .find(|p| p.starts_with("mcplogs scan"))
        .unwrap_or_else(|| panic!("{}", r.stderr));
    let words = shell_words(printed);
    let mut c = mcplogs(&home);
    c.current_dir(&home).args(&words[1..]).arg("--json");
    let listed = run(&mut c);
    let names: Vec<_> = rows(&doc(&listed)).into_iter().map(|(n, _, _)| n).collect();
    assert_eq!(names, ["web-only"], "{listed:?}");
    // a near name still gets its did-you-mean
    let near = in_dir(&home, &home, &["scan", "--server", "web-onyl"]);
    assert!(near.stderr.contains("Did you mean `web-only`?"), "{near:?}");
    // `report` says the same, its command naming the home as given (helper-85 #2: the
    // report's redaction made it `--home ~`, another home)
    let report = asked("report", "work/api");
    assert_eq!(report.code, 2, "{report:?}");
    assert!(report.stderr.contains(printed), "{report:?}");
    // no project of that path at all: that is said (helper-85 #4)
    let nowhere = asked("scan", "no-such-project");
    assert_eq!(nowhere.code, 2, "{nowhere:?}");
    assert!(
        nowhere
            .stderr
            .contains("no project path contains \"no-such-project\""),
        "{nowhere:?}"
    );
    // `export` and `du` say it too (helper-86 #5: "no server named")
    for args in [&["export", "--dry-run"][..], &["du"][..]] {
        let mut all = args.to_vec();
        all.extend(["--server", "web-only", "--match-project", "no-such-project"]);
        let r = in_dir(&home, &home, &all);
        assert_eq!(r.code, 2, "{r:?}");
        assert!(
            r.stderr
                .contains("no project path contains \"no-such-project\""),
            "{r:?}"
        );
    }
}

/// helper-83 #10: the report for servers' authors headed two sections `bad-tool` alike
/// (one a project): a name two reported sections hold is headed with its project.
#[test]
fn report_heads_a_name_two_projects_hold_with_its_project() {
    let (_tmp, home, _api, _web) = two_projects();
    let r = in_dir(&home, &home, &["report", "--force"]);
    let headings: Vec<&str> = r.stdout.lines().filter(|l| l.starts_with("## `")).collect();
    let bad: Vec<&&str> = headings
        .iter()
        .filter(|h| h.starts_with("## `bad-tool`"))
        .collect();
    assert_eq!(bad.len(), 2, "{}", r.stdout);
    let mut unique = headings.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), headings.len(), "{}", r.stdout);
    assert!(bad[0].contains("work/api`)"), "{}", bad[0]);
    assert!(bad[1].contains("work/web`)"), "{}", bad[1]);
    // one project: the name alone, as before
    let (_tmp1, home1) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let one = in_dir(&home1, &home1, &["report", "--force"]);
    assert!(
        one.stdout.contains("## `bad-tool`: Claude Code"),
        "{}",
        one.stdout
    );
}

/// helper-83 #7: `report NAME` and `export NAME` took NAME as a missing path (an I/O
/// error); as `scan NAME`, a word naming no file but a server stands for `--server`.
#[test]
fn report_and_export_take_a_servers_name_as_scan_does() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let report = in_dir(&home, &home, &["report", "--force", "exits-early"]);
    assert!(
        report
            .stderr
            .contains("reporting on the server of that name"),
        "{report:?}"
    );
    assert!(
        report.stdout.contains("## `exits-early`"),
        "{}",
        report.stdout
    );
    assert!(
        !report.stdout.contains("## `bad-tool`"),
        "{}",
        report.stdout
    );
    let out = home.join("out.jsonl");
    let mut c = mcplogs(&home);
    c.current_dir(&home)
        .env("MCPLOGS_CACHE_DIR", home.join("mcplogs-cache"))
        .args(["export", "--home"])
        .arg(&home)
        .arg("--file")
        .arg(&out)
        .arg("exits-early");
    let export = run(&mut c);
    assert!(
        export.stderr.contains("exporting the server of that name"),
        "{export:?}"
    );
    let text = fs::read_to_string(&out).unwrap_or_else(|e| panic!("{e}: {export:?}"));
    // (private by default: no name in the record; the one server's verdict)
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.contains(r#""body":"connection-failed (connection-closed)""#),
        "{text}"
    );
    // a word naming neither is the usage error `scan` gives
    let unknown = in_dir(&home, &home, &["report", "no-such-server"]);
    assert_eq!(unknown.code, 2, "{unknown:?}");
    assert!(
        unknown.stderr.contains("no server of that name"),
        "{unknown:?}"
    );
}

/// helper-83 #9: the hook of a home named with `--home` told the user to run `mcplogs
/// scan -v`, which reads another home: its commands carry the home.
#[test]
fn the_hooks_commands_name_the_home() {
    let (_tmp, home) = relocated("linux-home", "/tmp/mcplogs-samples/home-linux");
    let project = project_in(&home, "api");
    let input = session_input(&project);
    let mut c = mcplogs(&home);
    c.current_dir(&project)
        .env("MCPLOGS_CACHE_DIR", home.join("mcplogs-cache"))
        .args(["hook", "--home"])
        .arg(&home);
    let r = run_with_stdin(&mut c, input.as_bytes());
    assert_eq!(r.code, 0, "{r:?}");
    let context = doc(&r)["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string();
    let scan = format!(
        "`mcplogs scan --home {} -v`",
        mcplogs::text::shell_word(&home.display().to_string())
    );
    assert!(context.contains(&scan), "{context}");
    assert!(!context.contains("`mcplogs scan -v`"), "{context}");
    // a relative `--home`: each command names it whole, the fix's too (helper-85 #5;
    // the hook runs in the session's folder, the user's terminal elsewhere)
    let mut c = mcplogs(&home);
    c.current_dir(home.parent().unwrap())
        .env("MCPLOGS_CACHE_DIR", home.join("mcplogs-cache-2"))
        .args(["hook", "--home", "home"]);
    let r = run_with_stdin(&mut c, input.as_bytes());
    let relative = doc(&r)["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(relative.contains(&scan), "{relative}");
    assert!(!relative.contains("--home home"), "{relative}");
}

/// helper-85 (seen beside #1): a working server of a shared log folder read `shared log
/// folder;` in its REASON column, the `;` before a reason it does not have.
#[test]
fn a_working_shared_folders_reason_ends_with_its_note() {
    let (_tmp, home, api, _web) = two_projects();
    log_folder_like(&home, &api, "api-v2", "modern-ok");
    configure(&home, &api, "api-v2");
    configure(&home, &api, "api_v2");
    let r = in_dir(&home, &home, &["scan", "--server", "api-v2"]);
    let row = r
        .stdout
        .lines()
        .find(|l| l.contains("api-v2 + api_v2"))
        .unwrap_or_else(|| panic!("{r:?}"));
    assert!(row.trim_end().ends_with("shared log folder"), "{row}");
}

/// helper-86 #3: `api_v2` is configured only in a project's `.mcp.json` (approved, never
/// started), `api-v2` logs failing in another project: `--server api_v2` is that
/// configured server alone, not also `api-v2` by its log folder (the scan reads no
/// `.mcp.json` of a project without logs, so it chose by folder).
#[test]
fn a_name_only_a_projects_mcp_json_holds_picks_that_server_alone() {
    let (_tmp, home, api, _web) = two_projects();
    log_folder_like(&home, &api, "api-v2", "exits-early");
    configure(&home, &api, "api-v2");
    let app = project_in(&home, "app");
    fs::write(
        app.join(".mcp.json"),
        json!({ "mcpServers": { "api_v2": { "command": "python3", "args": ["s.py"] } } })
            .to_string(),
    )
    .unwrap();
    let path = home.join(".claude.json");
    let mut doc_: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    doc_["projects"][app.display().to_string()]["enabledMcpjsonServers"] = json!(["api_v2"]);
    fs::write(&path, doc_.to_string()).unwrap();
    let r = in_dir(&home, &home, &["scan", "--json", "--server", "api_v2"]);
    let d = doc(&r);
    assert!(rows(&d).is_empty(), "{d:#}");
    let configured = d["configured"].as_array().unwrap();
    assert_eq!(configured.len(), 1, "{d:#}");
    assert_eq!(configured[0]["name"], "api_v2");
    assert_eq!(r.code, 0, "{r:?}");
}
