//! The command line as a user meets it: text and JSON output, exit codes, filters,
//! colour rules and `explain`, on the real sample logs.

use crate::common::*;

fn scan_samples(args: &[&str]) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    run(mcplogs(tmp.path()).arg("scan").arg(samples()).args(args))
}

fn scan_samples_json(args: &[&str]) -> serde_json::Value {
    let r = scan_samples(&[&["--json"], args].concat());
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout))
}

#[test]
fn text_table_lists_every_server_with_verdicts_and_fixes() {
    let r = scan_samples(&[]);
    assert_eq!(r.code, 1, "samples include failing servers");
    let mut lines = r.stdout.lines();
    // Summary first, in plain words.
    let summary = lines.next().unwrap();
    assert!(
        summary.contains(" servers: ") && summary.contains(" can be fixed with "),
        "{summary}"
    );
    // A project heading, then the column header, then the servers.
    assert_eq!(lines.next(), Some(""));
    assert!(lines.next().unwrap().starts_with('/'));
    let header = lines.next().unwrap();
    for col in ["SERVER", "VERDICT", "LAST SEEN", "REASON"] {
        assert!(header.contains(col), "{header}");
    }
    // Piped and no COLUMNS: nothing cut.
    assert!(
        r.stdout
            .contains("ttlMs: expected number, got string (+1 more)")
    );
    assert!(
        r.stdout
            .contains("tools[2].inputSchema.type must be \"object\"")
    );
    assert!(!r.stdout.contains('…'), "{}", r.stdout);
    assert!(r.stdout.contains("\nWhat to do\n"));
    assert!(
        r.stdout.contains("MCP_PROTOCOL_NEGOTIATION=legacy"),
        "{}",
        r.stdout
    );
    assert!(
        !r.stdout.contains('\u{1b}'),
        "no colour when not a terminal"
    );
    assert!(
        r.stderr.is_empty(),
        "clean samples give no warnings: {}",
        r.stderr
    );
}

#[test]
fn the_scan_screen_fits_80_and_120_columns() {
    for width in [80usize, 120] {
        let tmp = tempfile::tempdir().unwrap();
        let r = run(mcplogs(tmp.path())
            .env("COLUMNS", width.to_string())
            .arg("scan")
            .arg(samples()));
        for line in r.stdout.lines() {
            assert!(
                line.chars().count() <= width,
                "{width}: {} columns: {line}",
                line.chars().count()
            );
        }
        // Each action once: the legacy fix appears in one numbered item.
        assert_eq!(
            r.stdout.matches("Run `mcplogs fix").count(),
            1,
            "{}",
            r.stdout
        );
        assert!(r.stdout.contains("Servers: wrong-types"), "{}", r.stdout);
    }
}

/// A server named with 200 characters: its name is shortened in the table and broken in
/// an action's "Servers:" line, so no line passes the width.
#[test]
fn a_server_with_a_very_long_name_stays_within_80_columns() {
    let tmp = tempfile::tempdir().unwrap();
    let name = format!("{}-end", "x".repeat(200));
    let dir = tmp.path().join(format!("mcp-logs-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("2026-11-29T12-00-00-000Z.jsonl"),
        concat!(
            r#"{"debug":"Starting connection","timestamp":"2026-11-29T12:00:00.000Z","sessionId":"s1","cwd":"/p"}"#,
            "\n",
            r#"{"error":"Connection failed: spawn farstub ENOENT","timestamp":"2026-11-29T12:00:01.000Z","sessionId":"s1","cwd":"/p"}"#,
            "\n"
        ),
    )
    .unwrap();
    let r = run(mcplogs(tmp.path())
        .env("COLUMNS", "80")
        .arg("scan")
        .arg(tmp.path()));
    assert!(r.stdout.contains("Servers: "), "{}", r.stdout);
    for line in r.stdout.lines() {
        assert!(line.chars().count() <= 80, "{line}");
    }
}

#[test]
fn the_verbose_screen_fits_80_columns_but_for_log_folder_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run(mcplogs(tmp.path())
        .env("COLUMNS", "80")
        .args(["scan", "--verbose"])
        .arg(samples()));
    assert!(r.stdout.contains("  evidence:\n"), "{}", r.stdout);
    for line in r.stdout.lines() {
        // a path is there to be copied: never cut or broken
        if line.starts_with("  logs: ") {
            continue;
        }
        assert!(line.chars().count() <= 80, "{line}");
    }
    // Evidence names the file inside the log folder shown above it; a message is
    // wrapped whole (its end is still there).
    assert!(
        r.stdout
            .lines()
            .any(|l| l.starts_with("    2026-") && l.contains(".jsonl:")),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("retrying in 250ms"), "{}", r.stdout);
}

#[test]
fn json_has_every_contract_field_with_its_type() {
    let doc = scan_samples_json(&[]);
    assert_eq!(doc["schemaVersion"], 3);
    assert!(doc["warnings"].as_array().unwrap().is_empty());
    let servers = doc["servers"].as_array().unwrap();
    assert!(servers.len() >= 13, "{}", servers.len());
    for s in servers {
        assert!(s["name"].is_string());
        assert!(s["project"].is_string() || s["project"].is_null());
        let verdict = s["verdict"].as_str().unwrap();
        assert!(
            [
                "healthy",
                "tolerated",
                "tools-fetch-failed",
                "version-unsupported",
                "connection-failed",
                "unknown"
            ]
            .contains(&verdict)
        );
        let needs_cause = verdict == "tools-fetch-failed" || verdict == "connection-failed";
        assert_eq!(s["cause"].is_string(), needs_cause, "{s:#}");
        assert!(s["era"].is_null() || ["modern", "legacy"].contains(&s["era"].as_str().unwrap()));
        assert!(
            s["negotiatedProtocolVersion"].is_string() || s["negotiatedProtocolVersion"].is_null()
        );
        assert!(s["lastSeen"].is_string());
        assert!(s["sessions"].as_u64().unwrap() >= 1);
        assert!(s["failedSessions"].as_u64().unwrap() <= s["sessions"].as_u64().unwrap());
        assert!(!s["recommendation"].as_str().unwrap().is_empty());
        assert!(s["legacyFixApplies"].is_boolean());
        let evidence = s["evidence"].as_array().unwrap();
        assert!(!evidence.is_empty(), "{s:#}");
        for e in evidence {
            assert!(e["file"].is_string());
            assert!(e["line"].as_u64().unwrap() >= 1);
            assert!(e["timestamp"].is_string());
            assert!(
                ["debug", "error", "info", "warn", "verbose"]
                    .contains(&e["level"].as_str().unwrap())
            );
            assert!(e["message"].is_string());
        }
    }
}

#[test]
fn legacy_fix_is_recommended_only_where_it_helps() {
    let doc = scan_samples_json(&[]);
    for s in doc["servers"].as_array().unwrap() {
        let applies = s["verdict"] == "tools-fetch-failed"
            && s["era"] == "modern"
            && [
                "missing-resultType",
                "missing-cache-fields",
                "wrong-field-types",
            ]
            .contains(&s["cause"].as_str().unwrap_or(""));
        assert_eq!(s["legacyFixApplies"], applies, "{s:#}");
        let mentions = s["recommendation"]
            .as_str()
            .unwrap()
            .contains("sets MCP_PROTOCOL_NEGOTIATION=legacy");
        assert_eq!(mentions, applies, "{s:#}");
    }
}

#[test]
fn server_filter_matches_configured_and_folder_names() {
    for name in ["acme.docs", "ACME.DOCS", "acme-docs"] {
        let doc = scan_samples_json(&["--server", name]);
        let servers = doc["servers"].as_array().unwrap();
        assert!(!servers.is_empty(), "{name}");
        assert!(servers.iter().all(|s| s["name"] == "acme.docs"), "{name}");
        assert!(servers.iter().all(|s| s["folder"] == "acme-docs"));
    }
}

#[test]
fn project_filter_and_an_empty_result() {
    let all = scan_samples_json(&[]);
    let some = scan_samples_json(&["--match-project", "macos"]);
    // `--project` is the old spelling, kept as a hidden alias.
    let names = |doc: &serde_json::Value| {
        doc["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(&some),
        names(&scan_samples_json(&["--project", "macos"]))
    );
    let n = some["servers"].as_array().unwrap().len();
    assert!(n > 0 && n < all["servers"].as_array().unwrap().len());
    assert!(
        some["servers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["project"].as_str().unwrap().contains("macos"))
    );

    let r = scan_samples(&["--server", "no-such-server"]);
    assert_eq!(r.code, 2, "an unknown name is a usage error");
    assert!(r.stdout.is_empty());
    assert!(
        r.stderr
            .starts_with("mcplogs: no server named \"no-such-server\". Known servers: "),
        "{}",
        r.stderr
    );
    // A project filter that matches nothing is the same usage error as --server's.
    for flag in ["--project", "--match-project"] {
        let r = scan_samples(&[flag, "no-such-project"]);
        assert_eq!(r.code, 2, "{flag}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{flag}: {}", r.stdout);
        let r = scan_samples(&[flag, "no-such-project", "--json"]);
        assert_eq!(r.code, 2, "{flag} --json: {}", r.stderr);
    }
    let r = scan_samples(&["--project", "no-such-project"]);
    assert!(
        r.stderr.contains("no project path contains"),
        "{}",
        r.stderr
    );
}

#[test]
fn exit_code_zero_when_every_server_is_fine() {
    let r = scan_samples(&["--server", "acme.docs"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let r = scan_samples(&["--server", "wrong-types"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
}

#[test]
fn usage_errors_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run(mcplogs(tmp.path()).args(["scan", "--color", "sometimes"]));
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("invalid value 'sometimes'"),
        "{}",
        r.stderr
    );
    let r = run(mcplogs(tmp.path()).args(["frobnicate"]));
    assert_eq!(r.code, 2);
    // One prefix for every error, clap's usage errors included.
    for args in [
        &["frobnicate"][..],
        &["scan", "--bogus"],
        &["scan", "--since", "yesterday"],
        // a day its month does not have is no date (it was read as 2026-12-01)
        &["scan", "--since", "2026-11-31"],
        &["docs", "nope"],
    ] {
        let r = run(mcplogs(tmp.path()).args(args));
        assert_eq!(r.code, 2, "{args:?}");
        assert!(
            r.stderr.starts_with("mcplogs: error: "),
            "{args:?}: {}",
            r.stderr
        );
    }
    // `mcplogs` alone: the help on stderr, exit 2; --help and --version: stdout, exit 0.
    let r = run(&mut mcplogs(tmp.path()));
    assert_eq!(r.code, 2);
    assert!(r.stdout.is_empty() && r.stderr.contains("Usage: mcplogs"));
    for flag in ["--help", "--version"] {
        let r = run(mcplogs(tmp.path()).arg(flag));
        assert_eq!(r.code, 0, "{flag}");
        assert!(
            r.stdout.contains("mcplogs") && r.stderr.is_empty(),
            "{flag}"
        );
    }
}

#[test]
fn colour_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let base = |extra: &[&str], no_color: Option<&str>| {
        let mut c = mcplogs(tmp.path());
        c.arg("scan").arg(samples()).args(extra);
        if let Some(v) = no_color {
            c.env("NO_COLOR", v);
        }
        run(&mut c).stdout
    };
    assert!(base(&["--color", "always"], None).contains("\u{1b}["));
    // the settings heading is bold as the other headings are (helper-76's leftover)
    let coloured = base(&["--color", "always"], None);
    for heading in ["What to do", "Settings (for this folder)"] {
        assert!(
            coloured.contains(&format!("\u{1b}[1m{heading}\u{1b}[0m")),
            "{coloured}"
        );
    }
    // An explicit flag beats NO_COLOR (no-color.org: command-line arguments override it).
    assert!(base(&["--color", "always"], Some("1")).contains("\u{1b}["));
    assert!(!base(&["--color", "never"], Some("1")).contains('\u{1b}'));
    assert!(base(&["--color", "always"], Some("")).contains("\u{1b}["));
    assert!(!base(&["--color", "never"], None).contains('\u{1b}'));
    assert!(!base(&[], None).contains('\u{1b}'));
    // JSON is never coloured.
    assert!(!base(&["--json", "--color", "always"], None).contains('\u{1b}'));
}

#[test]
fn verbose_shows_decoded_evidence_with_file_and_line() {
    let r = scan_samples(&["--verbose", "--server", "no-cache-fields"]);
    assert!(r.stdout.contains("  evidence:\n"), "{}", r.stdout);
    // file:line then timestamp and level
    let evidence_line = r
        .stdout
        .lines()
        .find(|l| l.contains(".jsonl:") && l.contains("ERROR"))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(evidence_line.contains("Z  ERROR"), "{evidence_line}");
    // The zod issues are pretty-printed, one field per line.
    assert!(r.stdout.contains("\"path\": [\n"), "{}", r.stdout);
    assert!(r.stdout.contains("history:"), "{}", r.stdout);
}

#[test]
fn positional_paths_of_every_kind() {
    let tmp = tempfile::tempdir().unwrap();
    let root = samples()
        .join("macos-home")
        .join("Library/Caches/claude-cli-nodejs");
    let project = root.join("-tmp-mcplogs-samples-home-macos-work-web");
    let server_dir = project.join("mcp-logs-no-resulttype");
    let mut files: Vec<_> = std::fs::read_dir(&server_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let names = |p: &std::path::Path| -> Vec<String> {
        let (_, doc) = run_json(mcplogs(tmp.path()).args(["scan", "--json"]).arg(p));
        doc["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| format!("{} {}", s["name"], s["verdict"]))
            .collect()
    };
    // A cache root and a project folder: all ten servers; names from the home's
    // .claude.json, found from the layout.
    assert_eq!(names(&root).len(), 10);
    assert_eq!(names(&project), names(&root));
    assert!(names(&root).contains(&"\"Studio Bridge\" \"healthy\"".to_string()));
    // One server folder, one file (the newest: its latest session).
    assert_eq!(
        names(&server_dir),
        vec!["\"no-resulttype\" \"tools-fetch-failed\""]
    );
    assert_eq!(
        names(files.last().unwrap()),
        vec!["\"no-resulttype\" \"tools-fetch-failed\""]
    );
    // A debug log, recognised by content even under another name.
    let renamed = tmp.path().join("whatever.log");
    std::fs::copy(
        samples().join("debug-logs/macos-home-2.1.288-stream-json.txt"),
        &renamed,
    )
    .unwrap();
    assert_eq!(names(&renamed).len(), 10);
}

/// Real Claude Code 2.1.288 run (scripts/samples/shared_folder.py): `api_v2` (healthy)
/// and `api-v2` (tools/list omits resultType) write into one `mcp-logs-api-v2` file.
#[test]
fn a_shared_log_folder_is_never_attributed_to_one_name() {
    let home = samples().join("shared-folder");
    let tmp = tempfile::tempdir().unwrap();
    let (r, doc) = run_json(
        mcplogs(tmp.path())
            .args(["scan", "--json", "--home"])
            .arg(&home),
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let servers = doc["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 1, "{doc:#}");
    let s = &servers[0];
    assert_eq!(s["sharedBy"], serde_json::json!(["api-v2", "api_v2"]));
    assert_eq!(s["name"], "api-v2 + api_v2");
    assert_eq!(s["legacyFixApplies"], false);
    let rec = s["recommendation"].as_str().unwrap();
    assert!(rec.contains("all write into one log folder"), "{rec}");
    // Either name finds it.
    for name in ["api_v2", "api-v2"] {
        let (_, doc) = run_json(
            mcplogs(tmp.path())
                .args(["scan", "--json", "--server", name, "--home"])
                .arg(&home),
        );
        assert_eq!(doc["servers"][0]["name"], "api-v2 + api_v2", "{name}");
    }
    // The text output says so too.
    let r = run(mcplogs(tmp.path()).args(["scan", "--home"]).arg(&home));
    assert!(r.stdout.contains("api-v2 + api_v2"), "{}", r.stdout);
    assert!(
        r.stdout.contains("all write into one log folder"),
        "{}",
        r.stdout
    );
}

#[test]
fn empty_results_say_why() {
    let tmp = tempfile::tempdir().unwrap();
    // An unknown --server lists the known names, with a guess; a usage error.
    let r = run(mcplogs(tmp.path())
        .args(["scan", "--server", "acme-doc"])
        .arg(samples()));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("no server named \"acme-doc\""),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("Did you mean `acme.docs`?"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("Known servers: "), "{}", r.stderr);
    // --since with only old logs gives the newest log's age.
    let home = tmp.path().join("old");
    copy_tree(&samples().join("linux-home"), &home);
    let old = now() - std::time::Duration::from_secs(25 * 3600);
    for f in walkdir::WalkDir::new(&home) {
        let f = f.unwrap();
        if f.file_type().is_file() {
            std::fs::File::options()
                .append(true)
                .open(f.path())
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
    }
    let r = run(mcplogs(tmp.path())
        .args(["scan", "--since", "1d", "--home"])
        .arg(&home));
    assert_eq!(r.code, 0);
    assert!(
        r.stderr
            .contains("no log file was written since; the newest was last written")
            && r.stderr.contains("(25 h ago)"),
        "{}",
        r.stderr
    );
    // --home must be a folder.
    for bad in ["/etc/passwd", "/no/such/folder"] {
        let r = run(mcplogs(tmp.path()).args(["scan", "--home", bad]));
        assert_eq!(r.code, 2, "{bad}");
        assert!(r.stderr.contains(bad), "{}", r.stderr);
    }
}

#[cfg(unix)]
#[test]
fn many_warnings_of_one_kind_are_one_line_unless_verbose() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("tree");
    std::fs::create_dir_all(tree.join("p/mcp-logs-x")).unwrap();
    std::fs::write(tree.join("p/mcp-logs-x/2026-11-29T11-50-31-063Z.jsonl"), "").unwrap();
    for i in 0..30 {
        std::os::unix::fs::symlink("/etc/passwd", tree.join(format!("p/link{i}"))).unwrap();
    }
    let r = run(mcplogs(tmp.path()).arg("scan").arg(&tree));
    let lines: Vec<&str> = r.stderr.lines().filter(|l| l.contains("symlink")).collect();
    assert_eq!(lines.len(), 1, "{}", r.stderr);
    assert!(
        lines[0].contains("30 warnings: symlink inside the log tree, not followed"),
        "{}",
        lines[0]
    );
    let r = run(mcplogs(tmp.path()).args(["scan", "--verbose"]).arg(&tree));
    assert_eq!(
        r.stderr.lines().filter(|l| l.contains("symlink")).count(),
        30,
        "{}",
        r.stderr
    );
}

#[test]
fn help_has_examples_and_wraps_and_man_and_completions_are_generated() {
    let tmp = tempfile::tempdir().unwrap();
    for sub in [
        "scan",
        "explain",
        "settings",
        "fix",
        "report",
        "du",
        "statusline",
        "hook",
        "setup",
        "export",
        "completions",
        "man",
        "docs",
        "model",
    ] {
        let r = run(mcplogs(tmp.path())
            .env("COLUMNS", "80")
            .args([sub, "--help"]));
        assert_eq!(r.code, 0, "{sub}");
        assert!(r.stdout.contains("EXAMPLES:"), "{sub}: {}", r.stdout);
        for line in r.stdout.lines() {
            assert!(line.chars().count() <= 80, "{sub}: {line}");
        }
    }
    let r = run(mcplogs(tmp.path()).arg("--help"));
    assert!(r.stdout.contains("claude mcp list | mcplogs explain"));
    assert!(r.stdout.contains("mcplogs scan --since 10m"));
    // Each shell's script asks mcplogs itself (`COMPLETE=<shell> mcplogs -- …`).
    for (shell, marker) in [
        ("bash", "_clap_complete_mcplogs()"),
        ("zsh", "#compdef mcplogs"),
        (
            "fish",
            "complete --keep-order --exclusive --command mcplogs",
        ),
        (
            "powershell",
            "Register-ArgumentCompleter -Native -CommandName mcplogs",
        ),
        ("elvish", "arg-completer[mcplogs]"),
    ] {
        let r = run(mcplogs(tmp.path()).args(["completions", shell]));
        assert_eq!(r.code, 0);
        assert!(r.stdout.contains(marker), "{shell}: {}", r.stdout);
        assert!(
            r.stdout.contains(&format!("COMPLETE={shell}")) || r.stdout.contains("COMPLETE"),
            "{shell}"
        );
    }
    let r = run(mcplogs(tmp.path()).arg("man"));
    assert!(
        r.stdout.starts_with(".ie") || r.stdout.contains(".TH mcplogs 1"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("mcplogs\\-scan") || r.stdout.contains("scan"));
}

/// Issue 10 item 8: a full or closed stderr or stdout never makes mcplogs panic (exit
/// 101); the exit code stays the documented one.
#[cfg(unix)]
#[test]
fn full_or_closed_streams_never_panic() {
    use std::fs::File;
    use std::process::Stdio;
    let tmp = tempfile::tempdir().unwrap();
    let full = || File::options().write(true).open("/dev/full").unwrap();
    let code = |cmd: &mut std::process::Command| cmd.status().unwrap().code();

    // Nothing found: the "no MCP server logs" line goes to a full stderr; exit 0.
    let mut c = mcplogs(tmp.path());
    c.args(["scan", "--home"]).arg(tmp.path());
    assert_eq!(code(c.stdout(Stdio::null()).stderr(full())), Some(0));

    // Warnings and errors to a full stderr keep their exit codes.
    let mut c = mcplogs(tmp.path());
    c.args(["scan", "--since", "yesterday"]);
    assert_eq!(code(c.stdout(Stdio::null()).stderr(full())), Some(2));
    let mut c = mcplogs(tmp.path());
    c.arg("scan").arg(samples());
    assert_eq!(code(c.stdout(Stdio::null()).stderr(full())), Some(1));

    // A full stdout is an I/O error (exit 2, said on stderr); with stderr full too,
    // still exit 2 and no panic.
    let mut c = mcplogs(tmp.path());
    c.arg("scan").arg(samples());
    let out = c.stdout(full()).stderr(Stdio::piped()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "mcplogs: error: cannot write output: No space left on device (os error 28)\n"
    );
    let mut c = mcplogs(tmp.path());
    c.arg("scan").arg(samples());
    assert_eq!(code(c.stdout(full()).stderr(full())), Some(2));

    // A pipe closed by the reader (`| head -c0`) is success: the verdict's exit code.
    let mut c = mcplogs(tmp.path());
    let mut child = c
        .args(["scan", "--verbose"])
        .arg(samples())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `mcplogs man --install` writes a page per subcommand (the main page's SEE ALSO names
/// them), with options and unjustified examples, where `man` finds them through PATH;
/// `mcplogs docs` prints the bundled guides.
#[test]
fn man_pages_install_where_man_finds_them_and_docs_are_bundled() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("prefix").join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    crate::common::copy_program(
        std::path::Path::new(env!("CARGO_BIN_EXE_mcplogs")),
        &bin.join("mcplogs"),
    );
    let mut c = std::process::Command::new(bin.join("mcplogs"));
    c.env_clear()
        .env("HOME", tmp.path())
        .env("PATH", "/usr/bin:/bin")
        .args(["man", "--install"]);
    let r = run(&mut c);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let man1 = tmp.path().join("prefix/share/man/man1");
    assert!(r.stderr.contains(&shown(&man1, tmp.path())), "{}", r.stderr);
    let main_page = std::fs::read_to_string(man1.join("mcplogs.1")).unwrap();
    let mut subcommands = 0;
    for sub in [
        "scan",
        "explain",
        "settings",
        "fix",
        "report",
        "du",
        "prune",
        "probe",
        "statusline",
        "hook",
        "setup",
        "export",
        "completions",
        "man",
        "docs",
        "model",
    ] {
        let page = std::fs::read_to_string(man1.join(format!("mcplogs-{sub}.1")))
            .unwrap_or_else(|e| panic!("mcplogs-{sub}.1: {e}"));
        assert!(page.contains(".SH OPTIONS"), "{sub}");
        assert!(main_page.contains(&format!("mcplogs\\-{sub}(1)")), "{sub}");
        subcommands += 1;
    }
    assert_eq!(std::fs::read_dir(&man1).unwrap().count(), subcommands + 1);
    // Examples keep their columns: unfilled, not justified into one paragraph.
    let fix = std::fs::read_to_string(man1.join("mcplogs-fix.1")).unwrap();
    let examples = fix.split(".SH EXAMPLES\n.nf\n").nth(1).expect("EXAMPLES");
    assert!(
        examples.contains("  mcplogs fix --dry-run              # the diff"),
        "{examples}"
    );
    assert!(examples.contains("\n.fi\n"));
    // man (where installed) finds the pages through PATH alone.
    if std::process::Command::new("man")
        .arg("-w")
        .arg("man")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        let o = std::process::Command::new("man")
            .args(["-w", "mcplogs-scan"])
            .env_clear()
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .env("HOME", tmp.path())
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&o.stdout).trim(),
            man1.join("mcplogs-scan.1").display().to_string(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // One page on stdout; an unknown one is a usage error naming the known ones.
    let r = run(mcplogs(tmp.path()).args(["man", "scan"]));
    assert!(r.stdout.contains(".TH mcplogs-scan 1"), "{}", r.stdout);
    assert!(r.stdout.contains("\\-\\-since"), "{}", r.stdout);
    let r = run(mcplogs(tmp.path()).args(["man", "nope"]));
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("no subcommand named \"nope\""),
        "{}",
        r.stderr
    );
    // The guides: the list, each one as in docs/, an unknown one.
    let r = run(mcplogs(tmp.path()).arg("docs"));
    assert_eq!(r.code, 0);
    for topic in [
        "usage", "settings", "verdicts", "report", "probe", "json", "prune", "scanning",
    ] {
        assert!(
            r.stdout.contains(&format!("  {topic}")),
            "{topic}: {}",
            r.stdout
        );
        let g = run(mcplogs(tmp.path()).args(["docs", topic]));
        assert_eq!(g.code, 0);
        let want = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("docs/{topic}.md")),
        )
        .unwrap();
        // Whole, piped: every line of the guide, changed only where it cites the
        // repository's docs (tests/cli/docs_true.rs checks what replaces those).
        let shown: Vec<&str> = g.stdout.lines().collect();
        for (i, line) in want.lines().enumerate() {
            if !line.contains(".md") && !line.contains("docs/schema") {
                assert_eq!(shown.get(i), Some(&line), "{topic}, line {}", i + 1);
            }
        }
        assert!(shown.len() >= want.lines().count(), "{topic}");
    }
    let r = run(mcplogs(tmp.path()).args(["docs", "nope"]));
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("there are: usage, settings"),
        "{}",
        r.stderr
    );
}

/// After `fix --undo`, the last session (healthy, under legacy) does not say what the
/// next start does: scan says the verdict was seen under legacy and fails again; with
/// legacy still set it says nothing of the kind. The logs are a real end-to-end run's.
#[test]
fn a_verdict_seen_under_a_removed_legacy_setting_says_it_fails_again() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    copy_tree(&samples().join("after-undo"), &home);
    let scan = || {
        let (r, doc) = run_json(
            mcplogs(tmp.path())
                .args(["scan", "--json", "--home"])
                .arg(&home),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        doc["servers"][0].clone()
    };
    let s = scan();
    assert_eq!(s["verdict"], "healthy");
    assert_eq!(s["era"], "legacy");
    let rec = s["recommendation"].as_str().unwrap();
    assert!(
        rec.contains("observed under MCP_PROTOCOL_NEGOTIATION=legacy, which is no longer set"),
        "{rec}"
    );
    assert!(
        rec.contains("(tools-fetch-failed, missing-resultType)"),
        "{rec}"
    );
    // The command carries the home scanned, so it fixes that home's file.
    assert!(rec.contains("run `mcplogs fix --home "), "{rec}");
    assert!(rec.contains("` again"), "{rec}");
    let r = run(mcplogs(tmp.path())
        .env("COLUMNS", "80")
        .args(["scan", "--home"])
        .arg(&home));
    assert!(
        r.stdout.contains("1 fails again at the next start"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("seen under legacy"), "{}", r.stdout);
    // The command scan printed plans for this server (it fails only at the next start,
    // so `fix` must not call it a server that needs nothing) and sets legacy again:
    // then healthy, nothing to do.
    let r = run(mcplogs(tmp.path())
        .args(["fix", "--yes", "--home"])
        .arg(&home));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        !r.stderr.contains("no scanned server needs the legacy fix"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("The legacy fix helps: no-resulttype"),
        "{}",
        r.stderr
    );
    let settings = home.join(".claude/settings.json");
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(written["env"]["MCP_PROTOCOL_NEGOTIATION"], "legacy");
    let s = scan();
    assert_eq!(s["recommendation"], "Nothing to do.");
}

/// Tab after `--server` in a real bash, with the script `completions bash` prints: the
/// servers of this home, configured (`~/.claude.json`) and logged (log folders), come
/// back; subcommands and flags complete too.
#[cfg(unix)]
#[test]
fn bash_completes_server_names_and_subcommands() {
    let home = samples().join("linux-home");
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_mcplogs"));
    let dir = bin.parent().unwrap();
    let complete = |words: &str, cword: usize| {
        let script = format!(
            "source <(mcplogs completions bash); COMP_WORDS=({words}); COMP_CWORD={cword}; COMP_TYPE=9; _clap_complete_mcplogs mcplogs \"${{COMP_WORDS[$COMP_CWORD]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\""
        );
        let o = std::process::Command::new("bash")
            .args(["-c", &script])
            .env_clear()
            .env("PATH", format!("{}:/usr/bin:/bin", dir.display()))
            .env("HOME", &home)
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .current_dir(&home)
            .output()
            .expect("bash runs");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let servers = complete("mcplogs scan --server ''", 3);
    for name in ["acme.docs", "bad-tool", "missing-cmd", "wrong-types"] {
        assert!(
            servers.lines().any(|l| l.trim() == name),
            "{name}: {servers}"
        );
    }
    let some = complete("mcplogs probe mi", 2);
    assert_eq!(some.trim(), "missing-cmd", "{some}");
    let subs = complete("mcplogs sc", 1);
    assert!(subs.lines().any(|l| l.trim() == "scan"), "{subs}");
}

/// helper-81 #11: `model` fits the terminal's width (it printed lines of up to 133
/// columns at 80, and table rows ending in spaces); piped without a width it cuts
/// nothing.
#[test]
fn model_fits_the_width_and_is_never_cut_when_piped() {
    let tmp = tempfile::tempdir().unwrap();
    let narrow = run(mcplogs(tmp.path()).env("COLUMNS", "80").arg("model"));
    assert_eq!(narrow.code, 0);
    // with a build's column too (helper-83 #3)
    let build = run(mcplogs(tmp.path())
        .env("COLUMNS", "80")
        .args(["model", "2.1.300"]));
    for line in narrow.stdout.lines().chain(build.stdout.lines()) {
        assert!(line.chars().count() <= 80, "{line}");
        assert_eq!(line, line.trim_end(), "{line:?}");
    }
    let piped = run(mcplogs(tmp.path()).env_remove("COLUMNS").arg("model"));
    let joined = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(joined(&narrow.stdout), joined(&piped.stdout));
    assert!(
        piped.stdout.lines().any(|l| l.chars().count() > 80),
        "{}",
        piped.stdout
    );
}
