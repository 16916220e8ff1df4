//! `mcplogs explain` on real `claude mcp list` output, its glyph and wrapping variants,
//! and single pasted messages.

use std::fs;

use crate::common::*;
use serde_json::Value;

fn explain_text(text: &str, json: bool) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = mcplogs(tmp.path());
    cmd.arg("explain");
    if json {
        cmd.arg("--json");
    }
    run_with_stdin(&mut cmd, text.as_bytes())
}

fn verdicts(text: &str) -> Vec<(String, String, String)> {
    let r = explain_text(text, true);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"));
    doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or("").to_string(),
                s["verdict"].as_str().unwrap().to_string(),
                s["cause"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect()
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit {}\n{}\n{}", self.code, self.stdout, self.stderr)
    }
}

fn mcp_list(name: &str) -> String {
    fs::read_to_string(samples().join("mcp-list").join(name)).unwrap()
}

/// What the sample scan concluded for each server of a home, with `tolerated` read as
/// `healthy`: `claude mcp list` shows a tolerated server as plainly connected.
fn expected_for(home: &str) -> Vec<(String, String, String)> {
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(samples().join("expected.json")).unwrap())
            .unwrap();
    doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["home"] == home)
        .map(|s| {
            let v = s["expected"]["verdict"].as_str().unwrap();
            (
                s["server"].as_str().unwrap().to_string(),
                if v == "tolerated" { "healthy" } else { v }.to_string(),
                s["expected"]["cause"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect()
}

#[test]
fn real_mcp_list_output_gives_the_sample_verdicts() {
    for (file, home) in [
        ("linux-home-2.1.332.txt", "linux-home"),
        ("macos-home-2.1.288.txt", "macos-home"),
        ("windows-home-2.1.332.txt", "windows-home"),
    ] {
        let mut got = verdicts(&mcp_list(file));
        let mut want = expected_for(home);
        got.sort();
        want.sort();
        assert_eq!(got, want, "{file}");
    }
}

#[test]
fn strict_version_list_shows_the_missing_field_failures() {
    let got = verdicts(&mcp_list("linux-home-2.1.288.txt"));
    for (name, cause) in [
        ("no-resulttype", "missing-resultType"),
        ("no-cache-fields", "missing-cache-fields"),
        ("wrong-types", "wrong-field-types"),
    ] {
        assert!(
            got.contains(&(
                name.to_string(),
                "tools-fetch-failed".to_string(),
                cause.to_string()
            )),
            "{got:?}"
        );
    }
}

#[test]
fn glyph_variants_read_the_same() {
    let original = mcp_list("macos-home-2.1.288.txt");
    let base = verdicts(&original);
    for (from, to) in [("✔", "✓"), ("✘", "✗"), ("✘", "×")] {
        let variant = original.replace(from, to);
        assert_ne!(variant, original);
        assert_eq!(verdicts(&variant), base, "{from} -> {to}");
    }
}

#[test]
fn a_status_wrapped_onto_its_own_line() {
    let original = mcp_list("windows-home-2.1.332.txt");
    let base = verdicts(&original);
    // A narrow terminal puts the status under the command, with or without the dash.
    let wrapped = original
        .replace(" - ✘", "\n  ✘")
        .replace(" - !", " -\n    !");
    assert_ne!(wrapped, original);
    assert_eq!(verdicts(&wrapped), base);
    let r = explain_text(&wrapped, true);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    for s in doc["servers"].as_array().unwrap() {
        let target = s["target"].as_str().unwrap();
        assert!(!target.ends_with('-'), "{target}");
    }
}

#[test]
fn a_single_pasted_message() {
    // The final error record of a real 2.1.288 session, decoded.
    let msg = "Failed to fetch tools: Invalid result for tools/list: [\n  {\n    \"expected\": \"number\",\n    \"code\": \"invalid_type\",\n    \"path\": [\n      \"ttlMs\"\n    ],\n    \"message\": \"Invalid input: expected number, received undefined\"\n  }\n]";
    let got = verdicts(msg);
    assert_eq!(
        got,
        vec![(
            String::new(),
            "tools-fetch-failed".to_string(),
            "missing-cache-fields".to_string()
        )]
    );
    // A debug-log line keeps its server name.
    let got = verdicts(
        "MCP server \"hangs\" Connection failed (CONNECT_TIMEOUT): MCP server \"hangs\" connection timed out after 3000ms",
    );
    assert_eq!(
        got,
        vec![(
            "hangs".to_string(),
            "connection-failed".to_string(),
            "timeout".to_string()
        )]
    );
}

#[test]
fn text_output_and_exit_codes() {
    let r = explain_text(&mcp_list("windows-home-2.1.332.txt"), false);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .contains("crm.tools: tools-fetch-failed (invalid-tool-definition)")
    );
    assert!(r.stdout.contains("\nWhat to do\n"), "{}", r.stdout);
    let healthy_only: String = mcp_list("windows-home-2.1.332.txt")
        .lines()
        .filter(|l| !l.contains('✘') && !l.contains('!'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(explain_text(&healthy_only, false).code, 0);
    let empty = explain_text("   \n", false);
    assert_eq!(empty.code, 2);
    assert!(
        empty.stderr.contains("no server lines recognised"),
        "{}",
        empty.stderr
    );
}

#[test]
fn unrecognised_input_is_a_usage_error_and_colour_codes_are_no_obstacle() {
    for junk in [
        fs::read("/etc/passwd").unwrap_or_else(|_| b"root:x:0:0:root:/root:/bin/sh\n".to_vec()),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10".to_vec(),
    ] {
        let r = explain_text(&String::from_utf8_lossy(&junk), false);
        assert_eq!(r.code, 2, "{}", r.stdout);
        assert!(
            r.stderr.contains("no server lines recognised"),
            "{}",
            r.stderr
        );
        assert_eq!(r.stdout, "");
    }
    // The Windows sample as a colour terminal shows it: same servers as the plain text.
    let plain = mcp_list("windows-home-2.1.332.txt");
    let coloured: String = plain
        .lines()
        .map(|l| format!("\u{1b}[1m{l}\u{1b}[0m\r\n"))
        .collect();
    let a = explain_text(&plain, false);
    let b = explain_text(&coloured, false);
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(a.code, b.code);
}

#[test]
fn explain_reads_a_file_and_reports_a_missing_one() {
    let tmp = tempfile::tempdir().unwrap();
    let file = samples().join("mcp-list").join("linux-home-2.1.332.txt");
    let r = run(mcplogs(tmp.path()).arg("explain").arg(&file));
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .contains("wrong-types: tools-fetch-failed (wrong-field-types)")
    );
    let r = run(mcplogs(tmp.path())
        .arg("explain")
        .arg(tmp.path().join("nope.txt")));
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("nope.txt"), "{}", r.stderr);
}

/// A status line as users copy it from Claude Code, its detail cut to `...`: the cause is
/// not known, so nothing is claimed about the legacy setting, and the next step is named.
#[test]
fn a_cut_detail_says_it_is_cut_and_claims_nothing_about_legacy() {
    for (text, name) in [
        (
            "! Connected · tools fetch failed — Invalid result for tools/list: ...",
            "NAME",
        ),
        (
            "crm: npx crm-mcp - ! Connected · tools fetch failed — Invalid result for tools/list: …",
            "crm",
        ),
        (
            "crm: npx crm-mcp - ! Connected · tools fetch failed — Invalid result for tools/list: [\n  {\n    \"expected\": \"number\",",
            "crm",
        ),
        (
            "Failed to fetch tools: Invalid result for tools/list: [\n  {\n    \"code\": \"invalid_type\",",
            "NAME",
        ),
    ] {
        let r = explain_text(text, true);
        assert_eq!(r.code, 1, "{r:?}");
        let doc: Value = serde_json::from_str(&r.stdout).unwrap();
        let s = &doc["servers"][0];
        assert_eq!(s["verdict"], "tools-fetch-failed", "{text}");
        assert!(s["cause"].is_null(), "{text}: {s:#}");
        assert_eq!(s["legacyFixApplies"], false);
        let rec = s["recommendation"].as_str().unwrap();
        assert!(rec.contains("cut off"), "{rec}");
        assert!(
            rec.contains(&format!("mcplogs scan --server {name}")),
            "{rec}"
        );
        assert!(!rec.contains("will not help"), "{rec}");
        assert!(!rec.contains("mcplogs fix"), "{rec}");
    }
    // The whole message still gets its cause.
    let whole = "crm: npx crm-mcp - ! Connected · tools fetch failed — Invalid result for tools/list: [\n  {\n    \"expected\": \"number\",\n    \"code\": \"invalid_type\",\n    \"path\": [\"ttlMs\"],\n    \"message\": \"Invalid input: expected number, received undefined\"\n  }\n]";
    assert_eq!(
        verdicts(whole),
        [(
            "crm".to_string(),
            "tools-fetch-failed".to_string(),
            "missing-cache-fields".to_string()
        )]
    );
}

/// A message given as an argument: `--message TEXT`, or an argument that names no file
/// and reads like a message. A missing file name is still an error.
#[test]
fn a_message_can_be_given_as_an_argument() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run(mcplogs(tmp.path()).args([
        "explain",
        "--json",
        "-m",
        "Connection failed: spawn npx ENOENT",
    ]));
    assert_eq!(r.code, 1, "{r:?}");
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["servers"][0]["cause"], "command-not-found");
    let r = run(mcplogs(tmp.path()).args([
        "explain",
        "! Connected · tools fetch failed — Invalid result for tools/list: ...",
    ]));
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stdout.contains("tools-fetch-failed"), "{r:?}");
    assert!(
        r.stderr.contains("explaining the argument as a message"),
        "{r:?}"
    );
    let r = run(mcplogs(tmp.path()).args(["explain", "listing.txt"]));
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("listing.txt: No such file"), "{r:?}");
    // A file and a message at once is a usage error.
    let r = run(mcplogs(tmp.path()).args(["explain", "a.txt", "-m", "x"]));
    assert_eq!(r.code, 2, "{r:?}");
}

/// The `cmd /c` warning as reported for `claude mcp list` on Windows (no Windows build
/// was run: the wording is the report's).
const CMD_WRAPPER_WARNING: &str =
    "[Warning] [files] mcpServers.files: Windows requires 'cmd /c' wrapper to execute npx";

#[test]
fn the_windows_cmd_wrapper_warning_goes_to_the_server_it_names() {
    let text = format!(
        "Checking MCP server health...\n\n{CMD_WRAPPER_WARNING}\nfiles: npx -y @modelcontextprotocol/server-filesystem C:\\Users\\me - ✗ Failed to connect\nfiles-extra: node x.js - ✓ Connected\n"
    );
    // the warning is no server of its own
    assert_eq!(
        verdicts(&text),
        vec![
            ("files".into(), "connection-failed".into(), "other".into()),
            ("files-extra".into(), "healthy".into(), "-".into()),
        ]
    );
    let r = explain_text(&text, true);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    let files = &doc["servers"][0];
    let fix = files["recommendation"].as_str().unwrap();
    assert!(fix.contains("\"command\": \"cmd\""), "{fix}");
    assert!(fix.contains("claude mcp add files -- cmd /c npx"), "{fix}");
    assert!(
        files["detail"]
            .as_str()
            .unwrap()
            .contains("requires 'cmd /c'"),
        "{files:#}"
    );
    // the server whose name is a prefix of the other's is not the one named
    assert!(
        !doc["servers"][1]["recommendation"]
            .as_str()
            .unwrap()
            .contains("cmd /c"),
        "{doc:#}"
    );
    // pasted alone, it is explained on its own
    let r = explain_text(CMD_WRAPPER_WARNING, false);
    assert!(r.stdout.contains("cmd /c npx"), "{r:?}");
}

/// Issue 43 item 10: piped, nothing is cut (every detail whole, every line of it); a
/// summary line like scan's comes first; each action is listed once with the servers
/// it covers; a healthy row gets no "Nothing to do"; a bare status line is read as a
/// status, not as a cut paste.
#[test]
fn piped_whole_summary_first_actions_grouped_once() {
    for file in [
        "linux-home-2.1.288.txt",
        "linux-home-2.1.332.txt",
        "macos-home-2.1.288.txt",
        "windows-home-2.1.332.txt",
    ] {
        let paste = mcp_list(file);
        let r = explain_text(&paste, false);
        let (_, doc) = {
            let j = explain_text(&paste, true);
            let v: Value = serde_json::from_str(&j.stdout).unwrap();
            (j, v)
        };
        let servers = doc["servers"].as_array().unwrap();
        // nothing cut: no ellipsis of ours, and every pasted detail is there whole
        assert!(!r.stdout.contains('…'), "{file}: {}", r.stdout);
        for s in servers {
            if let Some(d) = s["detail"].as_str() {
                for line in d.lines() {
                    assert!(
                        r.stdout.contains(line.trim()),
                        "{file}: {line}\n{}",
                        r.stdout
                    );
                }
            }
        }
        // the summary first, counting as scan does
        let first = r.stdout.lines().next().unwrap();
        let failing = servers
            .iter()
            .filter(|s| {
                [
                    "tools-fetch-failed",
                    "connection-failed",
                    "version-unsupported",
                    "degraded",
                ]
                .contains(&s["verdict"].as_str().unwrap())
            })
            .count();
        assert!(
            first.starts_with(&format!("{} servers: {failing} fail", servers.len())),
            "{file}: {first}"
        );
        // each recommendation once
        assert!(!r.stdout.contains("Nothing to do"), "{file}: {}", r.stdout);
        let actions: Vec<&str> = r
            .stdout
            .split("\nWhat to do\n")
            .nth(1)
            .unwrap_or("")
            .lines()
            .filter(|l| {
                l.trim_start()
                    .split_once(". ")
                    .is_some_and(|(n, _)| n.parse::<u32>().is_ok())
            })
            .collect();
        let mut seen = std::collections::HashSet::new();
        for a in &actions {
            let text = a.trim_start().split_once(". ").unwrap().1;
            assert!(seen.insert(text), "{file}: listed twice: {text}");
        }
        // every failing server is named under an action, once
        for s in servers.iter().filter(|s| {
            s["verdict"] != "healthy" && s["verdict"] != "unknown" && s["state"].is_null()
        }) {
            let name = s["name"].as_str().unwrap();
            let listed = r
                .stdout
                .lines()
                .filter(|l| l.trim_start().starts_with("Servers: "))
                .filter(|l| {
                    l.trim_start()["Servers: ".len()..]
                        .split(", ")
                        .any(|n| n == name)
                })
                .count();
            assert_eq!(listed, 1, "{file}: {name}\n{}", r.stdout);
        }
        let fixable = servers
            .iter()
            .filter(|s| s["legacyFixApplies"] == true)
            .count();
        if fixable > 1 {
            assert_eq!(
                r.stdout.matches("Run `mcplogs fix`").count(),
                1,
                "{file}: {}",
                r.stdout
            );
        }
    }
}

#[test]
fn a_bare_status_line_is_a_status_not_a_cut_paste() {
    let r = explain_text("! Connected · tools fetch failed\n", false);
    assert_eq!(r.code, 1);
    assert!(!r.stdout.contains("cut off"), "{}", r.stdout);
    assert!(r.stdout.contains("not why"), "{}", r.stdout);
    assert!(r.stdout.contains("mcplogs scan --server"), "{}", r.stdout);
    // a detail that ends mid-way is still a cut paste
    let r = explain_text(
        "db: npx db - ! Connected · tools fetch failed — Invalid result for tools/list: [ {\n",
        false,
    );
    assert!(r.stdout.contains("cut off"), "{}", r.stdout);
}

/// A failing server named in the paste gets its own log's evidence (issue 43): its last
/// lines on stderr and its configured command, found in the project `claude mcp list`
/// ran in (the current folder or `--project`), redacted like `scan`; `--no-logs` and
/// another folder leave the paste on its own.
#[test]
fn a_failing_servers_own_log_shows_its_stderr_and_command_redacted() {
    let tmp = tempfile::tempdir().unwrap();
    let home = fs::canonicalize(tmp.path()).unwrap();
    let project = home.join("work").join("api");
    fs::create_dir_all(&project).unwrap();
    let token = format!("ghp_{}", "A1b2C3d4E5".repeat(4).get(..36).unwrap());
    let p = project.display().to_string();
    let logs = home
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name(&p))
        .join("mcp-logs-leaky");
    fs::create_dir_all(&logs).unwrap();
    let rec = |kind: &str, msg: &str, t: &str| {
        serde_json::json!({kind: msg, "timestamp": format!("2026-11-29T12:43:{t}Z"),
            "sessionId": "s1", "cwd": p})
        .to_string()
    };
    let lines = [
        rec(
            "debug",
            "Starting connection with timeout of 30000ms",
            "57.216",
        ),
        rec(
            "error",
            &format!("Server stderr: leaky: starting\nleaky: fatal: token {token} refused\n"),
            "57.501",
        ),
        rec(
            "error",
            "Connection failed (CONNECTION_CLOSED): Connection closed",
            "57.502",
        ),
    ];
    fs::write(
        logs.join("2026-11-29T12-43-57-179Z.jsonl"),
        lines.join("\n") + "\n",
    )
    .unwrap();
    fs::write(
        home.join(".claude.json"),
        serde_json::json!({"mcpServers": {"leaky": {"type": "stdio", "command": "node",
            "args": ["my server.js", "--api-key", token]}}})
        .to_string(),
    )
    .unwrap();
    let paste = format!(
        "leaky: node my server.js --api-key {token} - ✘ Failed to connect — CONNECTION_CLOSED: Connection closed\n"
    );
    let explain = |dir: &std::path::Path, extra: &[&str], json: bool| {
        let mut c = mcplogs(&home);
        c.current_dir(dir).arg("explain").args(extra);
        if json {
            c.arg("--json");
        }
        run_with_stdin(&mut c, paste.as_bytes())
    };
    let r = explain(&project, &[], false);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stdout.contains("leaky: fatal: token"), "{r:?}");
    // the configured command, quoted for the shell (the paste has it unquoted)
    assert!(r.stdout.contains("node 'my server.js' --api-key"), "{r:?}");
    assert!(
        !r.stdout.contains(&token) && !r.stderr.contains(&token),
        "{r:?}"
    );
    let r = explain(&project, &[], true);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    let s = &doc["servers"][0];
    assert_eq!(s["logs"].as_str(), Some(logs.to_str().unwrap()), "{s:#}");
    let tail: Vec<&str> = s["stderrTail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(tail.len(), 2, "{s:#}");
    assert!(tail[1].starts_with("leaky: fatal: token "), "{s:#}");
    assert_eq!(s["launch"]["command"][1], "my server.js", "{s:#}");
    let by_hand = s["runByHand"].as_str().unwrap();
    assert!(
        by_hand.starts_with(&format!(
            "cd {} && node 'my server.js'",
            mcplogs::text::shell_word_quoted(&p)
        )),
        "{by_hand}"
    );
    assert!(
        s["recommendation"].as_str().unwrap().contains(by_hand),
        "{s:#}"
    );
    assert!(!r.stdout.contains(&token), "{}", r.stdout);
    // told the project from elsewhere: the same; not told, the one project that logs
    // it (as `scan` finds it from there); --no-logs: nothing read
    for extra in [&["--project", &p][..], &[]] {
        let r = explain(&home, extra, true);
        let doc: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(doc["servers"][0]["stderrTail"].as_array().unwrap().len(), 2);
        assert_eq!(doc["servers"][0]["runByHand"].as_str(), Some(by_hand));
    }
    let r = explain(&project, &["--no-logs"], true);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    let s = &doc["servers"][0];
    assert!(s["logs"].is_null() && s["runByHand"].is_null(), "{s:#}");
    assert!(s["stderrTail"].as_array().unwrap().is_empty());
}

/// helper-88 #8: a real `claude mcp list` with `MCP config diagnostics` (entry-errors and
/// mcpjson-invalid, 2.1.288 and 2.1.332): the link line under the heading was read as a
/// server ("For help configuring MCP servers, see"), the heading joined the entry above,
/// and the entries Claude Code skips (which `scan` exits 1 for) were left out. Each is
/// now a `configuration-error` entry, and the exit code is 1.
#[test]
fn the_config_diagnostics_of_claude_mcp_list_are_configuration_errors() {
    let fixtures =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/configured");
    for (case, skipped) in [
        (
            "entry-errors",
            &["u-nocmd", "u-nourl", "u-badtype", "p-nocmd"][..],
        ),
        ("mcpjson-invalid", &[".mcp.json"][..]),
    ] {
        for build in ["2.1.288", "2.1.332"] {
            let raw =
                fs::read_to_string(fixtures.join(case).join(build).join("mcp-list.txt")).unwrap();
            let paste = raw
                .split("--- stderr ---")
                .next()
                .unwrap()
                .replace("@STUB@", "/x/stub.py")
                .replace("@HOME@", "/home/u")
                .replace("@PROJ@", "/home/u/p");
            let r = explain_text(&paste, true);
            assert_eq!(r.code, 1, "{case} {build}: {r:?}");
            let doc: Value = serde_json::from_str(&r.stdout).unwrap();
            let servers = doc["servers"].as_array().unwrap();
            let names: Vec<&str> = servers.iter().filter_map(|s| s["name"].as_str()).collect();
            assert!(
                !names.iter().any(|n| n.contains("For help")),
                "{case} {build}: {names:?}"
            );
            let states: Vec<&str> = servers
                .iter()
                .filter(|s| s["state"] == "configuration-error")
                .map(|s| s["name"].as_str().unwrap())
                .collect();
            assert_eq!(states, skipped, "{case} {build}");
            // (each a problem, as the exit code says)
            for s in servers
                .iter()
                .filter(|s| s["state"] == "configuration-error")
            {
                assert_eq!(s["problem"], true, "{case} {build}: {s:#}");
            }
            for s in servers {
                assert!(
                    !s["detail"]
                        .as_str()
                        .unwrap_or("")
                        .contains("MCP config diagnostics"),
                    "{case} {build}: {s:#}"
                );
            }
            let text = explain_text(&paste, false);
            let first = text.stdout.lines().next().unwrap();
            let n = skipped.len();
            let counted = if n == 1 {
                "1 configuration error".to_string()
            } else {
                format!("{n} configuration errors")
            };
            assert!(first.contains(&counted), "{case} {build}: {first}");
            // an entry's skip tagged `[Error]` is the entry's, not its file's (helper-90
            // #7)
            let tagged = format!(
                "{paste}\nLocation: /home/u/.claude.json\n └ [Error] [u-err] mcpServers.u-err: Skipped — unknown MCP server type \"x\" for server \"u-err\"\n"
            );
            let r = explain_text(&tagged, true);
            let doc: Value = serde_json::from_str(&r.stdout).unwrap();
            assert!(
                doc["servers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|s| s["name"] == "u-err" && s["state"] == "configuration-error"),
                "{case} {build}: {doc:#}"
            );
            // another listing pasted after the diagnostics: its servers count (helper-89
            // #4: they were dropped), after a new heading or without one
            for sep in ["Checking MCP server health…\n\n", ""] {
                let more = format!(
                    "{paste}\n{sep}web-api: http://127.0.0.1:9/mcp (HTTP) - ✘ Failed to connect\n"
                );
                let r = explain_text(&more, true);
                let doc: Value = serde_json::from_str(&r.stdout).unwrap();
                let web = doc["servers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|s| s["name"] == "web-api")
                    .unwrap_or_else(|| panic!("{case} {build} {sep:?}: {doc:#}"));
                assert_eq!(web["verdict"], "connection-failed");
                let states = doc["servers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|s| s["state"] == "configuration-error")
                    .count();
                assert_eq!(states, skipped.len(), "{case} {build} {sep:?}");
            }
        }
    }
}

/// helper-106: with the shell's `no_proxy` (which Claude Code reads over `NO_PROXY`:
/// observed on 2.1.336), the advice for a server the proxy refused named `NO_PROXY`,
/// which changed nothing; it names the spelling in effect.
#[test]
fn the_no_proxy_advice_names_the_spelling_in_effect() {
    let line = fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/remote/mcp-list/2.1.336.txt"),
    )
    .unwrap()
    .lines()
    .find(|l| l.starts_with("proxy-407-http:"))
    .unwrap()
    .to_string();
    let home = tempfile::tempdir().unwrap();
    let said = |lower: bool| {
        let mut c = mcplogs(home.path());
        c.arg("explain");
        if lower {
            c.env("no_proxy", "127.0.0.1,localhost");
        }
        run_with_stdin(&mut c, line.as_bytes()).stdout
    };
    assert!(said(true).contains("set no_proxy=<the hosts already there>,127.0.0.2"));
    assert!(said(false).contains("set NO_PROXY=<the hosts already there>,127.0.0.2"));
}
