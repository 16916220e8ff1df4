//! `mcplogs probe` against the repository's stub MCP server (python3): pagination,
//! loops, caps, timeouts, floods, process-group cleanup, Ctrl-C, HTTP statuses,
//! secrets, name resolution and the contract's exit codes.
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{HttpStubProcess, mcplogs, pin_host, run};
use serde_json::Value;

pub(crate) fn stub() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/samples/stub_mcp_server.py")
}

fn stub_cmd(args: &str) -> String {
    format!("python3 {} {args}", stub().display())
}

/// `mcplogs probe --json --claude-version V ...` in an empty home.
fn probe_json(version: &str, args: &[&str]) -> (i32, Value, String) {
    let home = tempfile::tempdir().unwrap();
    let r = run(mcplogs(home.path())
        .args(["probe", "--json", "--claude-version", version])
        .args(args));
    assert!(
        serde_json::from_str::<Value>(&r.stdout).is_ok(),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
    // Every probe document matches its published schema and its struct.
    let doc = crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &r.stdout);
    (r.code, doc, r.stderr)
}

fn server(doc: &Value) -> &Value {
    &doc["servers"][0]
}

pub(crate) fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    if r != 0 {
        return false;
    }
    // a zombie is dead for our purpose
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.contains(") Z "))
        .unwrap_or(false)
}

#[test]
fn a_cursor_loop_stops_like_claude_code_and_keeps_the_tools() {
    let (code, doc, _) = probe_json("2.1.332", &["--command", &stub_cmd("--scenario q-loop")]);
    let s = server(&doc);
    assert_eq!(code, 0, "{s:#}");
    assert_eq!(s["prediction"]["verdict"], "healthy");
    // page 1: search_docs, page1_tool; page 2: get_page, page2_tool (and its cursor again)
    assert_eq!(s["prediction"]["toolsLoaded"], 4);
    assert!(
        s["prediction"]["reason"]
            .as_str()
            .unwrap()
            .contains("repeats nextCursor")
    );
    let pages: Vec<&Value> = s["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|st| st["step"].as_str().unwrap().starts_with("tools/list"))
        .collect();
    assert_eq!(pages.len(), 2, "the repeated cursor is not requested again");
}

#[test]
fn every_page_is_followed_and_a_bad_second_page_drops_the_list() {
    let (code, doc, _) = probe_json("2.1.332", &["--command", &stub_cmd("--scenario l-pages")]);
    assert_eq!(code, 0);
    assert_eq!(server(&doc)["tools"]["returned"], 6);
    assert_eq!(server(&doc)["tools"]["pages"], 3);

    let (code, doc, _) = probe_json(
        "2.1.288",
        &["--command", &stub_cmd("--scenario m-bad-page")],
    );
    let s = server(&doc);
    assert_eq!(code, 1);
    assert_eq!(s["prediction"]["verdict"], "tools-fetch-failed");
    assert_eq!(s["prediction"]["cause"], "invalid-tool-definition");
    assert_eq!(s["tools"]["accepted"], 0);
    assert_eq!(s["tools"]["wholeListDropped"], true);
    let rej = &s["tools"]["rejected"][0];
    assert_eq!(rej["page"], 2);
    assert_eq!(rej["name"], "page2_tool");
    assert_eq!(rej["path"], "tools[1].inputSchema.type");
    assert_eq!(rej["reason"], "input-schema-type");
    // legacy cannot help a bad tool
    assert_eq!(s["withLegacy"]["verdict"], "tools-fetch-failed");
    assert_eq!(s["legacyFixHelps"], false);
}

#[test]
fn the_page_cap_stops_the_walk() {
    let (_, doc, _) = probe_json(
        "2.1.332",
        &[
            "--max-pages",
            "2",
            "--command",
            &stub_cmd("--scenario l-pages"),
        ],
    );
    let s = server(&doc);
    assert_eq!(s["tools"]["pages"], 2);
    assert!(
        s["prediction"]["reason"]
            .as_str()
            .unwrap()
            .contains("--max-pages")
    );
}

#[test]
fn per_version_families_and_the_legacy_fix() {
    // missing resultType: 2.1.288 and 2.1.300 reject, 2.1.310 fills in
    for (v, verdict) in [
        ("2.1.288", "tools-fetch-failed"),
        ("2.1.300", "tools-fetch-failed"),
        ("2.1.310", "tolerated"),
    ] {
        let (_, doc, _) = probe_json(v, &["--command", &stub_cmd("--scenario c-no-rt")]);
        let s = server(&doc);
        // no setting: stdio is legacy on 2.1.288, so the server works there
        let want = if v == "2.1.288" { "healthy" } else { verdict };
        assert_eq!(s["prediction"]["verdict"], want, "{v}: {s:#}");
        assert_eq!(s["withLegacy"]["verdict"], "healthy");
    }
    // wrong types fail everywhere the modern era is negotiated
    let (code, doc, _) = probe_json(
        "2.1.332",
        &["--command", &stub_cmd("--scenario e-bad-types")],
    );
    let s = server(&doc);
    assert_eq!(code, 1);
    assert_eq!(s["prediction"]["cause"], "wrong-field-types");
    assert_eq!(s["legacyFixHelps"], true);
}

#[test]
fn a_hanging_server_times_out_and_its_whole_group_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let script = format!(
        "sleep 300 & echo $! > {}; exec python3 {} --hang",
        pidfile.display(),
        stub().display()
    );
    let t = Instant::now();
    let (code, doc, _) = probe_json(
        "2.1.332",
        &["--timeout", "1s", "--command", &format!("sh -c '{script}'")],
    );
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    let s = server(&doc);
    // stopped by --timeout 1s, before Claude Code's 30 s: the probe cannot tell, and its
    // verdict and exit code say so as its summary does (issue 51)
    assert_eq!(code, 0);
    assert_eq!(s["prediction"]["verdict"], "unknown");
    assert_eq!(s["prediction"]["cause"], "timeout");
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // a killed process may take a moment to be reaped; a survivor never goes
    let gone = Instant::now() + Duration::from_secs(5);
    while alive(pid) && Instant::now() < gone {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(pid), "the server's child {pid} outlived the probe");
}

#[test]
fn ctrl_c_ends_the_servers_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let script = format!(
        "sleep 300 & echo $! > {}; exec python3 {} --hang",
        pidfile.display(),
        stub().display()
    );
    let mut cmd = mcplogs(home.path());
    cmd.args(["probe", "--timeout", "60s", "--command"])
        .arg(format!("sh -c '{script}'"))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    pin_host(&mut cmd);
    let mut child = cmd.spawn().unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    while !pidfile.exists() || std::fs::read_to_string(&pidfile).unwrap().trim().is_empty() {
        assert!(Instant::now() < until, "the server never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: sends SIGINT to the mcplogs child we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The kill is sent before mcplogs exits; on a loaded machine the process may take a
    // moment to be gone, so wait for it (a survivor never goes).
    let gone = Instant::now() + Duration::from_secs(5);
    while alive(pid) && Instant::now() < gone {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !alive(pid),
        "the server's child {pid} outlived Ctrl-C: {:?}",
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
    );
}

#[test]
fn stdout_noise_binary_garbage_and_stderr_floods_are_bounded() {
    let (code, doc, _) = probe_json(
        "2.1.332",
        &[
            "--command",
            &stub_cmd("--scenario o-noise --stderr-flood 20000"),
        ],
    );
    let s = server(&doc);
    assert_eq!(code, 0, "{s:#}");
    assert_eq!(s["prediction"]["verdict"], "healthy");
    let a = &s["attempts"][0];
    assert_eq!(a["nonJsonLines"]["count"], 2);
    let garbage = a["nonJsonLines"]["examples"][1].as_str().unwrap();
    assert!(
        !garbage.contains('\u{1b}'),
        "escapes must be neutralised: {garbage:?}"
    );
    let stderr = &a["stderr"];
    assert!(stderr["lines"].as_u64().unwrap() >= 20000);
    assert!(stderr["bytes"].as_u64().unwrap() > 1_000_000);
    assert!(stderr["kept"].as_str().unwrap().len() < 20_000);
}

#[test]
fn exiting_on_tools_list_and_a_missing_command() {
    let (_, doc, _) = probe_json(
        "2.1.332",
        &["--command", &stub_cmd("--scenario n-exit-list")],
    );
    let p = &server(&doc)["prediction"];
    assert_eq!(p["verdict"], "tools-fetch-failed");
    assert_eq!(p["cause"], "connection-closed");
    // a PATH of readable folders only: an unreadable one in the caller's (another
    // user's home, say) makes the lookup fail with "permission denied" instead
    let home = tempfile::tempdir().unwrap();
    let r = run(mcplogs(home.path())
        .env("PATH", "/usr/bin:/bin")
        .args(["probe", "--json", "--claude-version", "2.1.332"])
        .args(["--command", "mcp-server-not-installed-x --stdio"]));
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc = crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &r.stdout);
    assert_eq!(server(&doc)["prediction"]["cause"], "command-not-found");
}

pub(crate) struct HttpStub;

impl HttpStub {
    /// The sample stub over HTTP with `args`, and its URL.
    pub(crate) fn start(args: &[&str]) -> (HttpStubProcess, String) {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
        let s = HttpStubProcess::start(&stub(), &args);
        let url = s.url.clone();
        (s, url)
    }
}

#[test]
fn http_json_and_sse_answers_and_secrets_stay_out_of_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("t.jsonl");
    for extra in [
        &["--discover", "modern"][..],
        &["--discover", "modern", "--http-sse"][..],
    ] {
        let (_stub, url) = HttpStub::start(extra);
        let (code, doc, stderr) = probe_json(
            "2.1.288",
            &[
                "--url",
                &url,
                "--header",
                "Authorization: Bearer sekrit-token-0123456789",
                "--transcript",
                transcript.to_str().unwrap(),
            ],
        );
        let s = server(&doc);
        assert_eq!(code, 0, "{s:#}");
        assert_eq!(s["prediction"]["era"], "modern");
        assert_eq!(s["prediction"]["toolsLoaded"], 3);
        let all = format!(
            "{doc}{stderr}{}",
            std::fs::read_to_string(&transcript).unwrap()
        );
        assert!(!all.contains("sekrit-token"), "a header secret leaked");
        assert!(
            std::fs::read_to_string(&transcript)
                .unwrap()
                .lines()
                .count()
                >= 4
        );
    }
}

#[test]
fn http_401_404_500() {
    let (_a, url) = HttpStub::start(&["--http-auth"]);
    let (code, doc, _) = probe_json("2.1.332", &["--url", &url]);
    let s = server(&doc);
    assert_eq!(code, 1);
    assert_eq!(s["prediction"]["cause"], "needs-auth");
    let f = &s["attempts"][0]["failure"];
    assert_eq!(f["httpStatus"], 401);
    assert!(f["wwwAuthenticate"].as_str().unwrap().starts_with("Bearer"));
    for status in ["404", "500"] {
        let (_b, url) = HttpStub::start(&["--http-status", status]);
        let (_, doc, _) = probe_json("2.1.332", &["--url", &url]);
        let s = server(&doc);
        assert_eq!(s["prediction"]["verdict"], "connection-failed");
        assert_eq!(
            s["attempts"][0]["failure"]["category"],
            format!("http-{status}")
        );
    }
}

/// Python `mcp` 1.x and the TypeScript SDK's stateful server answer the discover POST
/// with HTTP 400 (1.x naming a session that does not exist); Claude Code 2.1.288 and
/// 2.1.332 then initialize on the same connection, without that session, and connect in
/// the legacy era (tests/e2e/sdk_interop.py). So does the probe, and `--contract` passes.
#[test]
fn an_http_400_to_discover_falls_back_to_initialize_without_its_session() {
    let (_s, url) = HttpStub::start(&["--discover", "http-400"]);
    for version in ["2.1.288", "2.1.332"] {
        let (code, doc, _) = probe_json(version, &["--url", &url, "--contract"]);
        let s = server(&doc);
        assert_eq!(code, 0, "{s:#}");
        assert_eq!(s["prediction"]["verdict"], "healthy");
        assert_eq!(s["prediction"]["era"], "legacy");
        assert_eq!(s["prediction"]["toolsLoaded"], 3);
        let steps = &s["attempts"][0]["steps"];
        assert_eq!(steps[0]["step"], "server/discover");
        assert!(
            steps[0]["received"]
                .as_str()
                .unwrap()
                .starts_with("HTTP 400"),
            "{steps:#}"
        );
        assert_eq!(steps[1]["step"], "initialize");
        assert_eq!(steps[1]["ok"], true, "{steps:#}");
    }
}

#[test]
fn configured_servers_unknown_names_and_env_secrets() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    let cfg = serde_json::json!({"mcpServers": {
        "search-docs": {"command": "python3", "args": [stub(), "--scenario", "b-modern"],
                        "env": {"API_TOKEN": "${MY_TOKEN:-envsecret-abcdef123}"}}
    }});
    std::fs::write(home.path().join(".claude.json"), cfg.to_string()).unwrap();
    let r = run(mcplogs(home.path()).current_dir(&proj).args([
        "probe",
        "search_doc",
        "--claude-version",
        "2.1.332",
    ]));
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("did you mean \"search-docs\""),
        "{}",
        r.stderr
    );
    let r = run(mcplogs(home.path())
        .current_dir(&proj)
        .env("NO_COLOR", "1")
        .args(["probe", "--claude-version", "2.1.332"]));
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("search-docs"));
    assert!(r.stdout.contains("healthy"));
    assert!(!r.stdout.contains("envsecret"));
}

#[test]
fn the_contract_exit_codes() {
    let home = tempfile::tempdir().unwrap();
    let ok = run(mcplogs(home.path())
        .args([
            "probe",
            "--contract",
            "--claude-version",
            "2.1.332",
            "--command",
        ])
        .arg(stub_cmd("--scenario b-modern")));
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    let dup = run(mcplogs(home.path())
        .args([
            "probe",
            "--contract",
            "--claude-version",
            "2.1.332",
            "--command",
        ])
        .arg(stub_cmd("--scenario p-dup")));
    assert_eq!(dup.code, 1, "{}", dup.stdout);
    assert!(dup.stdout.contains("unique-names"));
    let usage = run(mcplogs(home.path()).args(["probe", "--contract", "--timeout", "forever"]));
    assert_eq!(usage.code, 2);
}

/// `git` in `dir` with no user or system configuration.
pub(crate) fn git(home: &Path, dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

/// A cloned repository's `.mcp.json` is code from whoever wrote the repository: Claude
/// Code asks before starting it. `probe` and `report --probe` start it unasked only when
/// the user approved it where Claude Code records the user's answer (their own files, or
/// a `.claude/settings.local.json` git does not track), never on the repository's own
/// `.claude/settings.json` or a committed `settings.local.json`; the line that says so
/// names each approval not counted, why, and the command that probes it anyway.
#[test]
fn an_unapproved_mcp_json_server_is_never_started_unasked() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir_all(proj.join(".claude")).unwrap();
    let mark = home.path().join("ran");
    let cfg = serde_json::json!({"mcpServers": {
        "evil": {"command": "sh", "args": ["-c", format!("touch '{}'", mark.display())]}
    }});
    std::fs::write(proj.join(".mcp.json"), cfg.to_string()).unwrap();
    // The repository approves itself, and commits both files.
    for f in ["settings.json", "settings.local.json"] {
        std::fs::write(
            proj.join(".claude").join(f),
            r#"{"enableAllProjectMcpServers": true, "enabledMcpjsonServers": ["evil"]}"#,
        )
        .unwrap();
    }
    git(home.path(), &proj, &["init", "-q"]);
    git(home.path(), &proj, &["add", ".mcp.json", ".claude"]);
    for args in [
        &["probe", "--claude-version", "2.1.332"][..],
        &["probe", "--json", "--claude-version", "2.1.332"],
        &["report", "--probe"],
        &["report", "--probe", "--json"],
    ] {
        let r = run(mcplogs(home.path()).current_dir(&proj).args(args));
        assert!(matches!(r.code, 0 | 1), "{args:?}: {}", r.stderr);
        assert!(!mark.exists(), "{args:?} ran the repository's command");
        let line = r
            .stderr
            .lines()
            .find(|l| l.contains("\"evil\": not probed"))
            .unwrap_or_else(|| panic!("{args:?}: {}", r.stderr));
        for part in [
            "enabledMcpjsonServers in ",
            "enableAllProjectMcpServers in ",
            ".claude/settings.json (the project's .claude/settings.json is committed",
            ".claude/settings.local.json (this .claude/settings.local.json is tracked by git",
            "`mcplogs probe evil`",
        ] {
            assert!(line.contains(part), "{args:?}: {part:?} in {line}");
        }
    }
    // Named, it is the user's choice.
    let r = run(mcplogs(home.path()).current_dir(&proj).args([
        "probe",
        "--claude-version",
        "2.1.332",
        "--timeout",
        "2s",
        "--managed-dir",
        home.path().to_str().unwrap(),
        "evil",
    ]));
    assert!(mark.exists(), "named, it runs: {}", r.stderr);
    std::fs::remove_file(&mark).unwrap();
    // A settings.local.json git does not track is where Claude Code recorded the user's
    // answer: it counts.
    git(
        home.path(),
        &proj,
        &["rm", "-q", "--cached", ".claude/settings.local.json"],
    );
    let r = run(mcplogs(home.path()).current_dir(&proj).args([
        "probe",
        "--claude-version",
        "2.1.332",
        "--timeout",
        "2s",
    ]));
    assert!(!r.stderr.contains("not probed"), "{}", r.stderr);
    assert!(mark.exists(), "approved in settings.local.json, it runs");
    std::fs::remove_file(&mark).unwrap();
    std::fs::remove_file(proj.join(".claude/settings.local.json")).unwrap();
    // Approved in the user's own settings, it runs unasked.
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(
        home.path().join(".claude/settings.json"),
        r#"{"enableAllProjectMcpServers": true}"#,
    )
    .unwrap();
    run(mcplogs(home.path()).current_dir(&proj).args([
        "probe",
        "--claude-version",
        "2.1.332",
        "--timeout",
        "2s",
    ]));
    assert!(mark.exists(), "approved by the user, it runs");
}

/// F22: an approval in a project's `.claude/settings.local.json` counts for starting a
/// server unasked only when the git index shows the file is the user's (the repository
/// tracks the project's `.mcp.json`, not this file). Where that cannot be established
/// (no repository: a downloaded archive carries the file too; an index that is a FIFO,
/// over its bound, not an index, or split; a `.mcp.json` the repository does not track
/// either) the command is not run, by `probe` nor `report --probe`, and the line says
/// why and gives the command that probes it anyway, which runs as printed.
#[test]
#[allow(clippy::disallowed_methods)] // makes its own test files
fn a_local_approval_mcplogs_cannot_place_is_not_counted() {
    let home = tempfile::tempdir().unwrap();
    let mark = home.path().join("ran");
    let project = |name: &str| -> PathBuf {
        let proj = home.path().join(name);
        std::fs::create_dir_all(proj.join(".claude")).unwrap();
        let cfg = serde_json::json!({"mcpServers": {
            "evil": {"command": "sh", "args": ["-c", format!("touch '{}'", mark.display())]}
        }});
        std::fs::write(proj.join(".mcp.json"), cfg.to_string()).unwrap();
        std::fs::write(
            proj.join(".claude/settings.local.json"),
            r#"{"enabledMcpjsonServers": ["evil"]}"#,
        )
        .unwrap();
        proj
    };
    // a repository that brought the project (.mcp.json tracked, settings.local.json not)
    let cloned = |name: &str| -> PathBuf {
        let proj = project(name);
        git(home.path(), &proj, &["init", "-q"]);
        git(home.path(), &proj, &["add", ".mcp.json"]);
        proj
    };
    let in_repo = home.path().ancestors().any(|a| a.join(".git").exists());
    let mut cases: Vec<(PathBuf, &str)> = vec![(
        project("zip"),
        if in_repo {
            "tracks neither this file nor the project's .mcp.json"
        } else {
            "no git repository holds this project, so mcplogs cannot tell a settings.local.json you approved from one that came with the project"
        },
    )];
    let garbage = cloned("garbage");
    std::fs::write(garbage.join(".git/index"), "garbage, not an index").unwrap();
    cases.push((garbage, "/.git/index is not a git index"));
    let huge = cloned("huge");
    std::fs::File::create(huge.join(".git/index"))
        .unwrap()
        .set_len(300 * 1024 * 1024)
        .unwrap();
    cases.push((huge, "/.git/index is larger than 256 MiB"));
    let split = cloned("split");
    git(home.path(), &split, &["update-index", "--split-index"]);
    cases.push((split, "/.git/index is a split index"));
    // a project unpacked inside some repository: git says nothing of where it came from
    let outer = home.path().join("outer");
    std::fs::create_dir_all(&outer).unwrap();
    git(home.path(), &outer, &["init", "-q"]);
    std::fs::write(outer.join("README"), "").unwrap();
    git(home.path(), &outer, &["add", "README"]);
    std::fs::rename(project("unpacked"), outer.join("unpacked")).unwrap();
    cases.push((
        outer.join("unpacked"),
        "tracks neither this file nor the project's .mcp.json",
    ));
    #[cfg(unix)]
    {
        let fifo = cloned("fifo");
        std::fs::remove_file(fifo.join(".git/index")).unwrap();
        let c = std::ffi::CString::new(fifo.join(".git/index").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        cases.push((fifo, "/.git/index is a FIFO"));
    }
    for (proj, why) in &cases {
        for args in [
            &["probe", "--claude-version", "2.1.332", "--timeout", "3s"][..],
            &["report", "--probe"],
        ] {
            let r = run(mcplogs(home.path()).current_dir(proj).args(args));
            assert!(matches!(r.code, 0 | 1), "{proj:?} {args:?}: {}", r.stderr);
            assert!(
                !mark.exists(),
                "{proj:?} {args:?} ran the project's command"
            );
            let line = r
                .stderr
                .lines()
                .find(|l| l.contains("\"evil\": not probed"))
                .unwrap_or_else(|| panic!("{proj:?} {args:?}: {}", r.stderr));
            for part in [
                "enabledMcpjsonServers in ",
                "/.claude/settings.local.json (",
                why,
                "mcplogs does not count that approval. Name it to probe it anyway: `mcplogs probe evil`",
            ] {
                assert!(line.contains(part), "{proj:?} {args:?}: {part:?} in {line}");
            }
        }
    }
    // From another folder, the command names the project, and runs as printed.
    let (zip, _) = &cases[0];
    let r = run(mcplogs(home.path()).args([
        "probe",
        "--claude-version",
        "2.1.332",
        "--project",
        zip.to_str().unwrap(),
    ]));
    // the home folder is written `~`, outside the quotes: the shell expands it (the rest
    // quoted, so that a redaction inside it stays a word)
    assert_eq!(zip, &home.path().join("zip"));
    let printed = "mcplogs probe --project ~/'zip' evil";
    assert!(
        r.stderr.contains(&format!("`{printed}`")),
        "{printed} in {}",
        r.stderr
    );
    assert!(!mark.exists());
    let as_printed = printed.replacen("mcplogs", env!("CARGO_BIN_EXE_mcplogs"), 1);
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "{as_printed} --timeout 3s --managed-dir \"$HOME/no-managed-settings\""
        ))
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .current_dir(home.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(matches!(status.code(), Some(0 | 1)), "{status:?}");
    assert!(mark.exists(), "named, it runs");
    std::fs::remove_file(&mark).unwrap();
    // A repository that brought the project, the file untracked: the user's answer.
    let ok = cloned("ok");
    for args in [
        &["probe", "--claude-version", "2.1.332", "--timeout", "3s"][..],
        &["report", "--probe"],
    ] {
        let r = run(mcplogs(home.path()).current_dir(&ok).args(args));
        assert!(!r.stderr.contains("not probed"), "{args:?}: {}", r.stderr);
        assert!(
            mark.exists(),
            "{args:?}: approved in settings.local.json, it runs"
        );
        std::fs::remove_file(&mark).unwrap();
    }
}

/// `probe --json` is JSON even when names and arguments hold C1, DEL and bidi controls
/// (the last pass on stdout used to spell them `\x9b`, an invalid JSON escape), and a
/// secret flag's value, a JSON string of its own, is hidden.
#[test]
fn probe_json_stays_json_and_hides_a_flags_value() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    let name = "ev\u{1b}[2Jil\u{9b}31m\u{7f}\u{202e}";
    let cfg = serde_json::json!({"mcpServers": {
        name: {"command": "/nonexistent/server", "args": ["--token", "SKRq01flagvalue", "x\u{9b}y"]}
    }});
    std::fs::write(home.path().join(".claude.json"), cfg.to_string()).unwrap();
    for args in [
        &["probe", "--json", "--claude-version", "2.1.332"][..],
        &["report", "--probe", "--json"],
    ] {
        let r = run(mcplogs(home.path()).current_dir(&proj).args(args));
        let doc: Value = serde_json::from_str(&r.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", r.stdout));
        assert!(
            !r.stdout.contains("SKRq01") && !r.stderr.contains("SKRq01"),
            "{args:?}"
        );
        let all = doc.to_string();
        assert!(
            all.contains("\u{202e}") && all.contains("\u{9b}"),
            "{args:?}: {all}"
        );
    }
}

/// A configuration file that cannot be read is a one-line warning naming it, and with
/// no server found anywhere else the probe exits 2 (it cannot say "nothing configured").
#[test]
fn an_unreadable_config_file_is_named_and_exits_2() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    let probe = || {
        run(mcplogs(home.path())
            .current_dir(&proj)
            .args(["probe", "--claude-version", "2.1.332"]))
    };
    std::fs::write(proj.join(".mcp.json"), "{\"mcpServers\": {,}").unwrap();
    let r = probe();
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(".mcp.json: not valid JSON"),
        "{}",
        r.stderr
    );
    // An empty project with no configuration at all is still exit 0.
    std::fs::remove_file(proj.join(".mcp.json")).unwrap();
    let r = probe();
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

// ---- the command line as users type it (issue 22, item 1) ----

/// A sandbox home for running documented invocations as a shell would: a project
/// folder (the working directory) whose user-scope servers `github` and `sso-gateway`
/// are healthy stub servers, a `node` on PATH that starts the stub and records its
/// arguments, a `claude` that says 2.1.332, and `mcplogs` on PATH pinned to an empty
/// managed-settings folder.
struct Typed {
    home: tempfile::TempDir,
    proj: PathBuf,
    bin: PathBuf,
    node_args: PathBuf,
}

impl Typed {
    fn new() -> Typed {
        let home = tempfile::tempdir().unwrap();
        let proj = home.path().join("proj");
        let bin = home.path().join("bin");
        std::fs::create_dir_all(&proj).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        let healthy = serde_json::json!({"command": "python3",
            "args": [stub(), "--scenario", "b-modern"]});
        let cfg = serde_json::json!({"mcpServers": {"github": healthy, "sso-gateway": healthy}});
        std::fs::write(home.path().join(".claude.json"), cfg.to_string()).unwrap();
        let node_args = home.path().join("node-args");
        let script = |path: &Path, body: String| {
            crate::common::write_program(path, &format!("#!/bin/sh\n{body}\n"));
        };
        script(
            &bin.join("node"),
            format!(
                "printf '%s\\n' \"$@\" > '{}'\nexec python3 '{}' --scenario b-modern",
                node_args.display(),
                stub().display()
            ),
        );
        // The Claude Code version the examples without --claude-version predict for,
        // never the host's.
        script(
            &bin.join("claude"),
            "echo '2.1.332 (Claude Code)'".to_string(),
        );
        script(
            &bin.join("mcplogs"),
            format!(
                "sub=$1; shift; exec '{}' \"$sub\" --managed-dir '{}' \"$@\"",
                env!("CARGO_BIN_EXE_mcplogs"),
                home.path().join("no-managed-settings").display()
            ),
        );
        Typed {
            home,
            proj,
            bin,
            node_args,
        }
    }

    /// `line` run by `sh -c` in the project, as typed.
    fn sh(&self, line: &str) -> crate::common::Run {
        let path = format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut cmd = Command::new("sh");
        cmd.env_clear()
            .env("HOME", self.home.path())
            .env("PATH", path)
            .env("TOKEN", "dummy-token-for-the-example")
            .env("NO_COLOR", "1")
            .current_dir(&self.proj)
            .stdin(Stdio::null())
            .args(["-c", line]);
        crate::common::clock_env(&mut cmd);
        let out = cmd.output().unwrap();
        crate::common::Run {
            code: out.status.code().expect("exited normally"),
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
        }
    }
}

/// Every `mcplogs probe` invocation the docs show: each line of a code block (with its
/// indented continuation lines: a synopsis) and each inline code span.
fn documented_probe_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            if line.trim_start().starts_with("mcplogs probe") {
                let mut full = line.trim().to_string();
                while i < lines.len()
                    && lines[i].starts_with(' ')
                    && lines[i].trim_start().starts_with('[')
                {
                    full.push(' ');
                    full.push_str(lines[i].trim());
                    i += 1;
                }
                out.push(full);
            }
            continue;
        }
        let mut rest = line;
        while let Some(start) = rest.find("`mcplogs probe") {
            let after = &rest[start + 1..];
            let Some(end) = after.find('`') else { break };
            out.push(after[..end].to_string());
            rest = &after[end + 1..];
        }
    }
    out
}

/// A documented line with its placeholders filled in. A placeholder this does not know
/// fails the test, so a new kind of example is taught here rather than skipped.
fn fill_placeholders(line: &str, url: &str) -> String {
    let mut s = line.to_string();
    if let Some(i) = s.find("     (docs/") {
        s.truncate(i);
    }
    for (from, to) in [
        ("[NAME...]", "github".to_string()),
        ("[--project DIR]", "--project .".to_string()),
        // (the shell's HOME: the home the example runs in)
        ("[--home DIR]...", "--home \"$HOME\"".to_string()),
        (
            "[--claude-version V]",
            "--claude-version 2.1.332".to_string(),
        ),
        ("[--timeout DURATION]", "--timeout 20s".to_string()),
        ("[--max-pages N]", "--max-pages 5".to_string()),
        ("[--transcript FILE]", "--transcript t.jsonl".to_string()),
        (
            "[--header \"K: V\"]...",
            "--header \"X-Probe: 1\"".to_string(),
        ),
        ("[-- ARGS...]", "-- --port 3".to_string()),
        ("https://example.com/mcp", url.to_string()),
        ("--url URL", format!("--url {url}")),
        ("probe NAME", "probe github".to_string()),
    ] {
        s = s.replace(from, &to);
    }
    s = s.replace("[--contract [--format junit]]", "--contract --format junit");
    for flag in ["--json", "--no-redact", "--contract", "--sse"] {
        s = s.replace(&format!("[{flag}]"), flag);
    }
    assert!(
        !s.contains('[') && !s.contains("..."),
        "teach fill_placeholders this example: {line:?} -> {s:?}"
    );
    s
}

/// Issue 22: every invocation a user copies from `mcplogs probe --help`, the README or
/// docs/ works as typed (names and options in any order, `--command`'s arguments after
/// `--`): it runs (never a usage error), a healthy server is healthy, `--json` is a
/// document valid against its schema, `--transcript` writes its lines.
#[test]
fn every_probe_example_in_the_help_and_the_docs_runs_as_typed() {
    let t = Typed::new();
    let (_http, url) = HttpStub::start(&["--discover", "modern"]);
    let help = t.sh("mcplogs probe --help");
    assert_eq!(help.code, 0, "{}", help.stderr);
    let examples = help
        .stdout
        .split_once("EXAMPLES:")
        .expect("the help has examples")
        .1;
    let mut lines: Vec<(String, String)> = examples
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("mcplogs probe"))
        .map(|l| ("probe --help".to_string(), l.to_string()))
        .collect();
    assert!(lines.len() >= 5, "{}", help.stdout);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec![root.join("README.md")];
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            docs.push(p);
        }
    }
    docs.sort();
    let from_docs = lines.len();
    for d in &docs {
        let text = std::fs::read_to_string(d).unwrap();
        for l in documented_probe_lines(&text) {
            lines.push((d.file_name().unwrap().to_string_lossy().into(), l));
        }
    }
    assert!(
        lines.len() - from_docs >= 8,
        "the docs' probe lines were not found: {lines:#?}"
    );
    for (source, line) in &lines {
        let typed = fill_placeholders(line, &url);
        let _ = std::fs::remove_file(t.proj.join("t.jsonl"));
        let _ = std::fs::remove_file(t.proj.join("probe.jsonl"));
        let _ = std::fs::remove_file(t.proj.join("probe.xml"));
        let r = t.sh(&typed);
        let what = format!("{source}: {line}\n  ran: {typed}\n{}{}", r.stdout, r.stderr);
        assert!(
            !r.stderr.contains("error"),
            "{what}\nexit {}: not run as typed",
            r.code
        );
        // `--sse` against a Streamable HTTP server fails to connect (exit 1); every
        // other example probes a healthy server.
        let want = if typed.contains("--sse") { 1 } else { 0 };
        assert_eq!(r.code, want, "{what}");
        if typed.contains("--json") {
            crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &r.stdout);
        } else if typed.contains("--format junit") {
            let xml = if typed.contains("> probe.xml") {
                std::fs::read_to_string(t.proj.join("probe.xml")).unwrap()
            } else {
                r.stdout.clone()
            };
            crate::junit::assert_valid_junit(&xml);
            let newest = mcplogs::probe::CONTRACT_BUILDS.last().unwrap();
            assert!(
                xml.contains(&format!("on Claude Code {newest}")),
                "{what}\n{xml}"
            );
        } else {
            assert!(r.stdout.contains("Claude Code"), "{what}");
        }
        for file in ["t.jsonl", "probe.jsonl"] {
            if typed.contains(file) {
                let written = std::fs::read_to_string(t.proj.join(file)).unwrap();
                assert!(written.lines().count() >= 4, "{what}\n{written}");
                for l in written.lines() {
                    crate::wire::assert_valid("transcript", &serde_json::from_str(l).unwrap());
                }
            }
        }
        if typed.contains("--command node") {
            let args = std::fs::read_to_string(&t.node_args).unwrap();
            let want = if typed.contains("--port 3") {
                "server.js\n--port\n3\n"
            } else {
                "server.js\n"
            };
            assert_eq!(args, want, "{what}");
        }
    }
}

/// Names and options mix in any order; `--command` takes its arguments after `--` (even
/// ones that look like flags) or inside its quotes; a name beside `--command` or
/// `--url`, or arguments after `--` without `--command`, are usage errors that say why.
#[test]
fn names_and_options_mix_and_command_arguments_go_after_a_double_dash() {
    let t = Typed::new();
    for line in [
        "mcplogs probe github --claude-version 2.1.288 --json",
        "mcplogs probe --json github --claude-version 2.1.288",
        "mcplogs probe --claude-version 2.1.288 github --json sso-gateway",
    ] {
        let r = t.sh(line);
        assert_eq!(r.code, 0, "{line}: {}", r.stderr);
        let doc: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(doc["claudeVersion"], "2.1.288", "{line}");
        assert_eq!(doc["servers"][0]["name"], "github", "{line}");
        assert_eq!(
            doc["servers"][0]["prediction"]["verdict"], "healthy",
            "{line}"
        );
    }
    let both = t.sh("mcplogs probe --claude-version 2.1.288 github --json sso-gateway");
    let doc: Value = serde_json::from_str(&both.stdout).unwrap();
    assert_eq!(doc["servers"].as_array().unwrap().len(), 2);

    let stub = stub().display().to_string();
    for line in [
        format!("mcplogs probe --json --command python3 -- '{stub}' --scenario b-modern"),
        format!("mcplogs probe --command 'python3 {stub}' --json -- --scenario b-modern"),
        format!("mcplogs probe --command 'python3 {stub} --scenario b-modern' --json"),
    ] {
        let r = t.sh(&line);
        assert_eq!(r.code, 0, "{line}: {}", r.stderr);
        let doc: Value = serde_json::from_str(&r.stdout).unwrap();
        let s = &doc["servers"][0];
        assert_eq!(s["args"].as_array().unwrap().last().unwrap(), "b-modern");
        assert_eq!(s["prediction"]["toolsLoaded"], 3, "{line}");
    }

    let r = t.sh("mcplogs probe --command node server.js");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("\"server.js\" cannot also name a configured one")
            && r.stderr.contains("go after `--`"),
        "{}",
        r.stderr
    );
    let r = t.sh("mcplogs probe --url http://127.0.0.1:1/mcp github");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--url gives the server"), "{}", r.stderr);
    let r = t.sh("mcplogs probe github -- --port 3");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--command"), "{}", r.stderr);
    // An option a name once swallowed is an option again; an unknown one is refused.
    let r = t.sh("mcplogs probe github --no-such-flag");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!r.stderr.contains("no server named"), "{}", r.stderr);
}

// ---- configured values and the one redactor (issue 22, item 3) ----

/// `mcplogs probe NAME` for one configured server (in `home`'s `~/.claude.json`), as
/// text, as `--json` (checked against its schema) and with `--transcript`, and (without
/// `extra`) `report --probe` in Markdown and JSON; `extra` are more flags for the
/// probe, `env` the environment mcplogs runs in.
fn probe_configured(
    server: &str,
    entry: Value,
    env: &[(&str, &str)],
    extra: &[&str],
) -> (crate::common::Run, Value, String) {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    let cfg = serde_json::json!({"mcpServers": {server: entry}});
    std::fs::write(home.path().join(".claude.json"), cfg.to_string()).unwrap();
    let cmd = |args: &[&str]| {
        let mut c = mcplogs(home.path());
        c.current_dir(&proj)
            .env("NO_COLOR", "1")
            .env("COLUMNS", "400")
            .envs(env.iter().copied())
            .args(["probe", server, "--claude-version", "2.1.332"])
            .args(extra)
            .args(args);
        c
    };
    let text = run(&mut cmd(&[]));
    let transcript = home.path().join("t.jsonl");
    let json = run(&mut cmd(&[
        "--json",
        "--transcript",
        transcript.to_str().unwrap(),
    ]));
    assert!(matches!(json.code, 0 | 1), "{}", json.stderr);
    let doc = crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &json.stdout);
    let lines = std::fs::read_to_string(&transcript).unwrap();
    for l in lines.lines() {
        crate::wire::assert_valid("transcript", &serde_json::from_str(l).unwrap());
    }
    let mut all = crate::common::Run {
        code: text.code,
        stdout: format!("{}\n{}", text.stdout, json.stdout),
        stderr: format!("{}\n{}", text.stderr, json.stderr),
    };
    if extra.is_empty() {
        for args in [
            &["report", "--probe", "--force"][..],
            &["report", "--probe", "--force", "--json"],
        ] {
            let r = run(mcplogs(home.path())
                .current_dir(&proj)
                .envs(env.iter().copied())
                .args(args));
            assert!(r.stdout.contains(server), "{args:?}: {}", r.stdout);
            all.stdout.push_str(&r.stdout);
            all.stderr.push_str(&r.stderr);
        }
    }
    (all, doc, lines)
}

/// Issue 22: `STUB_DISCOVER=modern` made the server `healthy-modern` print as
/// `healthy-[REDACTED:config]` and turned `era` into `"[REDACTED:config]"`;
/// `NODE_ENV=production` and `LOG_LEVEL=debug` rewrote every such word. Configuration
/// that cannot be a secret rewrites nothing: names, verdicts, eras, arguments, the
/// server's own messages stay as they are.
#[test]
fn configured_values_that_are_not_secrets_are_shown_as_they_are() {
    let entry = serde_json::json!({
        "command": "python3",
        "args": [stub(), "--scenario", "b-modern", "--name", "production-debug-modern"],
        "env": {"STUB_DISCOVER": "modern", "NODE_ENV": "production", "LOG_LEVEL": "debug",
                "NODE_OPTIONS": "--max-old-space-size=4096", "MAX_TOKENS": "4096"}
    });
    let (r, doc, transcript) = probe_configured("healthy-modern", entry, &[], &[]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    // (the report's header says how secrets are shown: `[REDACTED:kind]`)
    let everything = format!("{}{}{transcript}", r.stdout, r.stderr).replace("[REDACTED:kind]", "");
    assert!(!everything.contains("REDACTED"), "{everything}");
    assert!(r.stdout.contains("healthy-modern · stdio"), "{}", r.stdout);
    assert!(r.stdout.contains("b-modern --name production-debug-modern"));
    let s = server(&doc);
    assert_eq!(s["name"], "healthy-modern");
    assert_eq!(s["prediction"]["verdict"], "healthy");
    assert_eq!(s["prediction"]["era"], "modern");
    assert_eq!(s["attempts"][0]["era"], "modern");
    assert_eq!(s["args"][4], "production-debug-modern");
    assert_eq!(
        s["attempts"][0]["serverInfo"]["name"],
        "production-debug-modern"
    );
    assert!(transcript.contains("\"server\":\"healthy-modern\""));
    assert!(transcript.contains("production-debug-modern"));
}

/// A configured value that could be a secret (by its key's name, its shape, or its
/// length and entropy) is hidden everywhere the probe prints it, whatever echoes it: the
/// server's stderr, its `serverInfo` (in the steps, the JSON and the transcript) and an
/// argument that expands it. With `--no-redact` every one is there (so the test plants
/// where the probe prints), and the names, verdict and era are intact either way.
#[test]
fn a_configured_secret_is_hidden_everywhere_the_probe_prints() {
    const SHAPED: &str = "sk-live-4eC39HqLyjWDarjtT1zdp7dc";
    const RANDOM: &str = "aPnfYclXezicN0pYbC77Jt95EQo";
    const KEYED: &str = "correct-horse";
    let script = format!(
        "echo \"starting with $UPSTREAM_REF / $STRIPE / $DB_PASSWORD\" >&2; \
         exec python3 '{}' --scenario b-modern --name \"srv-$UPSTREAM_REF-$STRIPE-$DB_PASSWORD\"",
        stub().display()
    );
    let entry = serde_json::json!({
        "command": "sh",
        "args": ["-c", script, "sh", "${UPSTREAM_REF}"],
        "env": {"STRIPE": SHAPED, "UPSTREAM_REF": "${UPSTREAM_REF}", "DB_PASSWORD": KEYED,
                "NODE_ENV": "production"}
    });
    let env = [("UPSTREAM_REF", RANDOM)];
    let (r, doc, transcript) = probe_configured("payments", entry.clone(), &env, &[]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let everything = format!("{}{}{transcript}", r.stdout, r.stderr);
    for secret in [SHAPED, RANDOM, KEYED] {
        assert!(
            !everything.contains(secret),
            "{secret} leaked:\n{everything}"
        );
    }
    let s = server(&doc);
    assert_eq!(s["name"], "payments");
    assert_eq!(s["prediction"]["verdict"], "healthy");
    assert_eq!(s["prediction"]["era"], "modern");
    assert_eq!(s["args"][3], "[REDACTED:config]");
    let info = s["attempts"][0]["serverInfo"]["name"].as_str().unwrap();
    assert!(info.starts_with("srv-[REDACTED:"), "{info}");
    let kept = s["attempts"][0]["stderr"]["kept"].as_str().unwrap();
    assert!(kept.contains("starting with [REDACTED:"), "{kept}");
    assert!(transcript.contains("[REDACTED:"), "{transcript}");
    assert!(r.stdout.contains("payments · stdio"), "{}", r.stdout);

    let (r, _, transcript) = probe_configured("payments", entry, &env, &["--no-redact"]);
    let everything = format!("{}{transcript}", r.stdout);
    for secret in [SHAPED, RANDOM, KEYED] {
        assert!(
            everything.contains(secret),
            "{secret} not planted:\n{everything}"
        );
    }
}

/// Issue 51 item 9: for a stdio server that crashes at start-up, probe's advice (the
/// screen and both JSON recommendations) is the command to run by hand, in the folder
/// probe started it in, as scan's `runByHand`, not a pointer to `scan`; the command runs
/// as printed and shows the server's stderr.
#[cfg(unix)]
#[test]
fn a_crashing_command_is_advised_to_be_run_by_hand() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("my proj");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join(".mcp.json"),
        r#"{"mcpServers":{"crashy":{"command":"sh","args":["-c","echo boom-$PWD >&2; exit 3"],"env":{"TOKEN_X":"v"}}}}"#,
    )
    .unwrap();
    let r = run(mcplogs(home.path()).current_dir(&project).args([
        "probe",
        "--json",
        "--claude-version",
        "2.1.332",
        "crashy",
    ]));
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc = crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &r.stdout);
    let s = server(&doc);
    assert_eq!(s["prediction"]["verdict"], "connection-failed", "{s:#}");
    for key in ["prediction", "withLegacy"] {
        let rec = s[key]["recommendation"].as_str().unwrap();
        assert!(rec.starts_with("Run its command by hand"), "{key}: {rec}");
        assert!(rec.contains("TOKEN_X"), "{key}: {rec}");
        assert!(!rec.contains("scan"), "{key}: {rec}");
    }
    let rec = s["prediction"]["recommendation"].as_str().unwrap();
    let command = rec.split('`').nth(1).expect("a command in backticks");
    assert!(command.starts_with("cd "), "{command}");
    let o = std::process::Command::new("sh")
        .args(["-c", command])
        .current_dir(home.path())
        .output()
        .unwrap();
    let real = std::fs::canonicalize(&project).unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("boom-{}", project.display()))
            || err.contains(&format!("boom-{}", real.display())),
        "{command}: {err}"
    );
    // The screen says the same.
    let r = run(mcplogs(home.path()).current_dir(&project).args([
        "probe",
        "--color",
        "never",
        "--claude-version",
        "2.1.332",
        "crashy",
    ]));
    assert!(r.stdout.contains("Run its command by hand"), "{}", r.stdout);
    assert!(
        !r.stdout.contains("same scan with --verbose"),
        "{}",
        r.stdout
    );
}

/// `probe --home DIR` reads DIR's configuration (as `scan --home DIR` does), not the
/// machine's: a server only DIR configures is found and probed; without the flag it is
/// unknown. A secret DIR's configuration holds stays out of the output.
#[test]
fn probe_home_reads_that_homes_configuration() {
    let machine = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    let proj = other.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    let cfg = serde_json::json!({"projects": {proj.to_str().unwrap(): {"mcpServers": {
        "only-there": {"command": "python3", "args": [stub(), "--scenario", "b-modern"],
                       "env": {"API_TOKEN": "homesecret-Zq8Wd3Kp5Rt7"}}
    }}}});
    std::fs::write(other.path().join(".claude.json"), cfg.to_string()).unwrap();
    let probe = |extra: &[&str]| {
        run(mcplogs(machine.path())
            .env("NO_COLOR", "1")
            .args(["probe", "--json", "--claude-version", "2.1.332"])
            .args(["--project", proj.to_str().unwrap()])
            .args(extra)
            .arg("only-there"))
    };
    let mine = probe(&[]);
    assert_eq!(mine.code, 2, "{}{}", mine.stdout, mine.stderr);
    let theirs = probe(&["--home", other.path().to_str().unwrap()]);
    assert_eq!(theirs.code, 0, "{}{}", theirs.stdout, theirs.stderr);
    let doc =
        crate::wire::check_output::<mcplogs::json_doc::ProbeDocument>("probe", &theirs.stdout);
    assert_eq!(server(&doc)["name"], "only-there", "{doc:#}");
    assert_eq!(server(&doc)["prediction"]["verdict"], "healthy", "{doc:#}");
    // the entry DIR's `.claude.json` holds
    assert_eq!(
        server(&doc)["source"],
        other.path().join(".claude.json").to_str().unwrap(),
        "{doc:#}"
    );
    assert!(!theirs.stdout.contains("homesecret"), "{}", theirs.stdout);
    assert!(!theirs.stderr.contains("homesecret"), "{}", theirs.stderr);
}

/// `probe --home DIR` reads the feature flags DIR's `.claude.json` caches (as `scan
/// --home` does), not the machine's, and the fix commands it prints carry `--home DIR`
/// (run elsewhere, a bare `mcplogs fix` writes this machine's settings).
#[test]
fn probe_home_reads_its_cached_flags_and_prints_its_fix() {
    let machine = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    let proj = other.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    let home_of = |flag: Option<bool>| {
        let mut cfg = serde_json::json!({"projects": {proj.to_str().unwrap(): {"mcpServers": {
            "typed": {"command": "python3", "args": [stub(), "--scenario", "e-bad-types"]}
        }}}});
        if let Some(f) = flag {
            cfg["cachedGrowthBookFeatures"] =
                serde_json::json!({"tengu_mcp_protocol_negotiation_stdio": f});
        }
        std::fs::write(other.path().join(".claude.json"), cfg.to_string()).unwrap();
    };
    let probe = || {
        run(mcplogs(machine.path())
            .env("NO_COLOR", "1")
            .args(["probe", "--claude-version", "2.1.332"])
            .args(["--home", other.path().to_str().unwrap()])
            .args(["--project", proj.to_str().unwrap()])
            .arg("typed"))
    };
    // no flag cached: the default (negotiated) handshake, which the legacy fix cures
    home_of(None);
    let r = probe();
    assert!(
        r.stderr.contains("not cached in .claude.json"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("unreadable or absent"), "{}", r.stderr);
    let fix = format!(
        "mcplogs fix --home {}",
        mcplogs::text::shell_word(other.path().to_str().unwrap())
    );
    let flat = r.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains(&format!("`{fix}` will help")), "{}", r.stdout);
    assert!(!flat.contains("`mcplogs fix` "), "{}", r.stdout);
    // cached false in DIR's file: the legacy handshake, under which the server works
    home_of(Some(false));
    let r = probe();
    assert!(!r.stderr.contains("could not read"), "{}", r.stderr);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

/// The steps' status column lines up whatever a step's name (`notifications/initialized`
/// is longer than the others).
#[test]
fn the_steps_status_column_lines_up() {
    let home = tempfile::tempdir().unwrap();
    let r = run(mcplogs(home.path())
        .env("NO_COLOR", "1")
        .args(["probe", "--claude-version", "2.1.288", "--command"])
        .arg(stub_cmd("--scenario c-no-rt")));
    let at: Vec<usize> = r
        .stdout
        .lines()
        .filter(|l| l.contains(" ms  "))
        .map(|l| l.find(" ok ").or_else(|| l.find(" FAIL ")).unwrap_or(0))
        .collect();
    assert!(at.len() >= 3, "{}", r.stdout);
    assert!(
        r.stdout.contains("notifications/initialized"),
        "{}",
        r.stdout
    );
    assert!(
        at.iter().all(|&c| c == at[0] && c > 0),
        "{at:?}\n{}",
        r.stdout
    );
}

/// helper-88 #12: a `ws` (or `sdk`, or unknown) entry is no server mcplogs can probe: it
/// was started as a stdio server ("no command configured") and predicted to fail on
/// every build. Unasked it is left out with a note, the others probed; named, the probe
/// stops with exit 2 (a check that did not run never passes).
#[test]
fn a_server_of_a_type_mcplogs_cannot_probe_is_never_probed_as_stdio() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    let cfg = serde_json::json!({"mcpServers": {
        "sock": {"type": "ws", "url": "ws://127.0.0.1:9/x"},
        "inproc": {"type": "sdk"},
        "search-docs": {"command": "python3", "args": [stub(), "--scenario", "b-modern"]}
    }});
    std::fs::write(home.path().join(".claude.json"), cfg.to_string()).unwrap();
    let r = run(mcplogs(home.path()).current_dir(&proj).args([
        "probe",
        "--json",
        "--claude-version",
        "2.1.332",
    ]));
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    let names: Vec<&str> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["search-docs"], "{doc:#}");
    for (name, ty) in [("sock", "ws"), ("inproc", "sdk")] {
        assert!(
            r.stderr.contains(&format!(
                "{name} is a \"{ty}\" server, a type mcplogs cannot probe"
            )),
            "{}",
            r.stderr
        );
    }
    for named in [&["sock"][..], &["search-docs", "inproc"]] {
        let r = run(mcplogs(home.path())
            .current_dir(&proj)
            .args(["probe", "--claude-version", "2.1.332"])
            .args(named));
        assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
        assert_eq!(r.stdout, "", "{}", r.stderr);
        assert!(
            r.stderr.contains("1 server of a type mcplogs cannot probe")
                && !r.stderr.contains("no command configured"),
            "{}",
            r.stderr
        );
    }
}
