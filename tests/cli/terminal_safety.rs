//! No raw control character reaches the terminal (issue 10 item 5, issue 15 item 1):
//! every subcommand, on stdout and on stderr, over a tree with hostile folder and file
//! names, hostile log records (a zod path holding an OSC 52 clipboard write and a screen
//! clear, C1, DEL and bidi controls in messages), hostile settings keys and values, a
//! hostile project path and hostile pasted text. "Raw" is decided here, independently of
//! the sanitizer: C0 except `\n` and `\t`, DEL, C1, and the bidi controls.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;

use crate::common::*;
use serde_json::Value;

fn raw_control(s: &str) -> Option<(usize, char)> {
    s.char_indices().find(|&(_, c)| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    })
}

/// ESC, CR, BEL, C1 CSI, DEL and bidi controls, as they can stand in a file name.
const EVIL_NAME: &str = "ev\u{1b}[2Jil\r\u{9b}31m\u{7f}\u{202e}txt\u{2066}";

struct Tree {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    managed: PathBuf,
    paste: PathBuf,
    settings: PathBuf,
    missing: PathBuf,
}

fn hostile_tree() -> Tree {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    copy_tree(&samples().join("linux-home"), &home);
    let cache = home.join(".cache/claude-cli-nodejs");
    let old_proj = fs::read_dir(&cache)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    // A hostile project folder, and a hostile server folder inside it.
    let proj = cache.join(format!("-tmp-{EVIL_NAME}"));
    fs::rename(&old_proj, &proj).unwrap();
    let server = proj.join(format!("mcp-logs-wrong{EVIL_NAME}"));
    fs::rename(proj.join("mcp-logs-wrong-types"), &server).unwrap();
    // Hostile records: a zod path element (escaped inside the message, as a server's
    // JSON arrives), and raw controls in the message itself.
    let zod = r"\\u001b]52;c;ZXZpbA==\\u0007\\u001b[2J\\u009b\\u007f\\u202e";
    let msg = r"\u001b[31mRED\u001b]52;c;ZXZpbA==\u0007\rOK\u202e\u009b\u007f\u2067 ";
    for f in fs::read_dir(&server).unwrap() {
        let f = f.unwrap().path();
        let text = fs::read_to_string(&f).unwrap();
        let damaged = text.replace("ttlMs", zod).replacen(
            "Failed to fetch tools: ",
            &format!("Failed to fetch tools: {msg}"),
            1,
        );
        fs::write(&f, damaged).unwrap();
    }
    // Old enough for `prune` to plan deleting them, so its table shows the folders.
    age_all(&cache, 3);
    // A configured server with a hostile name, command and arguments, for `probe` (the
    // command does not exist, so it fails at once, with its name in the message).
    let claude_json = home.join(".claude.json");
    let mut cfg: Value = serde_json::from_str(&fs::read_to_string(&claude_json).unwrap()).unwrap();
    cfg["mcpServers"][format!("srv{EVIL_NAME}")] = serde_json::json!({
        "command": format!("/nonexistent/{EVIL_NAME}"),
        "args": [EVIL_NAME, "\u{1b}]52;c;ZXZpbA==\u{7}"],
        "env": {format!("K{EVIL_NAME}"): "v"},
    });
    fs::write(&claude_json, cfg.to_string()).unwrap();
    // A FIFO and a symlink with hostile names: each ends in a warning naming it.
    let fifo = server.join(format!("{EVIL_NAME}.jsonl"));
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    symlink("/dev/null", proj.join(format!("link{EVIL_NAME}"))).unwrap();

    // Settings: hostile env keys and values in a JSON5 user file (so `settings` lists
    // its keys), a hostile comment, and a hostile project path with its own settings.
    let settings = home.join(".claude/settings.json");
    fs::create_dir_all(settings.parent().unwrap()).unwrap();
    fs::write(
        &settings,
        "{\n  // note \u{1b}[2J\u{9b}\u{7f}\u{202e}\n  \"env\": {\n    \"\\u001b[31mEVIL\\u202eKEY\": \"v\\u009b\\u001b]52;c;eA==\\u0007\",\n    \"MCP_PROTOCOL_NEGOTIATION\": \"au\\u001b[2Jto\",\n  },\n}\n",
    )
    .unwrap();
    let project = tmp.path().join(format!("proj{EVIL_NAME}"));
    fs::create_dir_all(project.join(".claude")).unwrap();
    fs::write(
        project.join(".claude/settings.local.json"),
        "{ \"env\": { \"K\\u001b[2J\": \"1\", }, }\n",
    )
    .unwrap();
    let managed = tmp.path().join("managed");
    fs::create_dir_all(&managed).unwrap();
    let paste = tmp.path().join("paste.txt");
    fs::write(
        &paste,
        format!("evil{EVIL_NAME}: cmd\u{1b}[2J - \u{2718} Failed to connect \u{2014} \u{1b}]52;c;eA==\u{7}boom\r\u{9b}\nConnection failed: {EVIL_NAME}\n"),
    )
    .unwrap();
    let missing = tmp.path().join(format!("missing{EVIL_NAME}"));
    // An existing folder with no logs: "no MCP server logs found (searched: ...)".
    fs::create_dir_all(tmp.path().join(format!("empty{EVIL_NAME}"))).unwrap();
    Tree {
        _tmp: tmp,
        home,
        project,
        managed,
        paste,
        settings,
        missing,
    }
}

#[test]
fn no_subcommand_writes_a_raw_control_character() {
    let t = hostile_tree();
    let home = t.home.to_str().unwrap();
    let project = t.project.to_str().unwrap();
    let managed = t.managed.to_str().unwrap();
    let settings = t.settings.to_str().unwrap();
    let paste = t.paste.to_str().unwrap();
    let missing = t.missing.to_str().unwrap();
    let empty_dir = t.missing.with_file_name(format!("empty{EVIL_NAME}"));
    let empty = empty_dir.to_str().unwrap();
    let disc = ["--home", home];
    let with_managed = ["--project", project, "--managed-dir", managed];
    fn cat<'a>(a: &[&[&'a str]]) -> Vec<&'a str> {
        a.concat()
    }
    let runs: Vec<Vec<&str>> = vec![
        cat(&[&["scan"], &disc]),
        cat(&[&["scan", "--verbose"], &disc]),
        cat(&[&["scan", "--json"], &disc]),
        cat(&[&["scan", "--no-redact", "--verbose"], &disc]),
        vec!["scan", missing],
        vec!["scan", empty],
        vec!["du", empty],
        vec!["report", "--managed-dir", managed, empty],
        vec!["explain", paste],
        vec!["explain", "--json", paste],
        vec!["explain", missing],
        cat(&[&["du"], &disc]),
        cat(&[&["du", "--json"], &disc]),
        cat(&[&["settings"], &with_managed]),
        cat(&[&["settings", "--json"], &with_managed]),
        cat(&[
            &["fix", "--dry-run", "--force", "--settings", settings],
            &with_managed,
            &disc,
        ]),
        cat(&[
            &[
                "fix",
                "--dry-run",
                "--force",
                "--rewrite-strict",
                "--settings",
                settings,
            ],
            &with_managed,
            &disc,
        ]),
        cat(&[&["report", "--managed-dir", managed], &disc]),
        cat(&[&["report", "--json", "--managed-dir", managed], &disc]),
        cat(&[&["report", "--no-redact", "--managed-dir", managed], &disc]),
        cat(&[&["report", "--managed-dir", managed], &disc, &[missing]]),
        cat(&[&["prune", "--dry-run"], &disc]),
        cat(&[&["prune", "--dry-run", "--json"], &disc]),
        cat(&[&["prune", "--yes"], &disc, &[missing]]),
        vec![
            "probe",
            "--claude-version",
            "2.1.332",
            "--timeout",
            "5s",
            "--managed-dir",
            managed,
        ],
        vec![
            "probe",
            "--json",
            "--claude-version",
            "2.1.332",
            "--timeout",
            "5s",
            "--managed-dir",
            managed,
        ],
        vec![
            "probe",
            "--claude-version",
            "2.1.332",
            "--managed-dir",
            managed,
            EVIL_NAME,
        ],
        cat(&[&["report", "--probe", "--managed-dir", managed], &disc]),
    ];
    let mut everything = String::new();
    for args in &runs {
        let r = run(mcplogs(&t.home).args(args).current_dir(&t.project));
        for (stream, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
            if let Some((at, c)) = raw_control(text) {
                let from = text[..at]
                    .char_indices()
                    .rev()
                    .nth(60)
                    .map_or(0, |(i, _)| i);
                panic!(
                    "{args:?}: raw {c:?} on {stream} after {:?}",
                    &text[from..at]
                );
            }
        }
        if args.contains(&"--json") && r.code != 2 {
            let _: Value = serde_json::from_str(&r.stdout)
                .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", r.stdout));
        }
        everything.push_str(&r.stdout);
        everything.push_str(&r.stderr);
    }
    // The hostile text did reach the outputs, made visible: this test can fail.
    for shown in [
        "\\x1b]52;c;ZXZpbA==",
        "<U+202E>",
        "\\x9b",
        "\\x7f",
        "\\u001b]52;c;ZXZpbA==",
        "\\u202e",
        "EVIL<U+202E>KEY",
        "a FIFO",
        "no MCP server logs found (searched: ",
        // prune's table and probe's server line show the hostile names, escaped.
        "wrongev\\x1b[2Jil\\r\\x9b31m\\x7f<U+202E>txt",
        "srvev\\x1b[2Jil",
    ] {
        assert!(
            everything.contains(shown),
            "{shown:?} not shown anywhere:\n{}",
            everything
                .lines()
                .filter(|l| l.contains("EVIL") || l.contains("settings"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

#[test]
fn json_escapes_keep_the_values() {
    let t = hostile_tree();
    let r = run(mcplogs(&t.home)
        .args(["scan", "--json", "--no-redact", "--home"])
        .arg(&t.home));
    assert!(raw_control(&r.stdout).is_none());
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    let all = doc.to_string();
    // Decoded, the document holds the hostile characters exactly as logged.
    assert!(all.contains("\u{202e}") && all.contains("\u{9b}"), "{all}");
}

/// A line break (or tab) in a folder or file name never starts a line of output: a
/// server folder named `x\n  FORGED  healthy` would otherwise add a row of its own to
/// `scan --verbose` (its `logs:` and evidence paths) and to `fix` diff headers.
#[test]
fn a_line_break_in_a_name_forges_no_line() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    copy_tree(&samples().join("linux-home"), &home);
    let cache = home.join(".cache/claude-cli-nodejs");
    let proj = fs::read_dir(&cache)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let forged = "\n  FORGED   healthy\tx";
    fs::rename(
        proj.join("mcp-logs-bad-tool"),
        proj.join(format!("mcp-logs-bad{forged}")),
    )
    .unwrap();
    let project = tmp.path().join(format!("p{forged}"));
    fs::create_dir_all(project.join(".claude")).unwrap();
    let settings = project.join("s.json");
    fs::write(&settings, "{\"env\": {}}\n").unwrap();
    let managed = tmp.path().join("managed");
    fs::create_dir_all(&managed).unwrap();
    let (h, s, m) = (
        home.to_str().unwrap(),
        settings.to_str().unwrap(),
        managed.to_str().unwrap(),
    );
    let runs: Vec<Vec<&str>> = vec![
        vec!["scan", "--home", h],
        vec!["scan", "--verbose", "--home", h],
        vec!["du", "--home", h],
        vec!["prune", "--dry-run", "--home", h],
        vec!["report", "--managed-dir", m, "--home", h],
        vec!["settings", "--managed-dir", m],
        vec![
            "fix",
            "--dry-run",
            "--force",
            "--settings",
            s,
            "--managed-dir",
            m,
        ],
        vec![
            "fix",
            "--yes",
            "--force",
            "--settings",
            s,
            "--managed-dir",
            m,
        ],
        vec!["fix", "--undo", "--settings", s],
    ];
    let mut shown = String::new();
    for args in &runs {
        let r = run(mcplogs(&home).args(args).current_dir(&project));
        for (stream, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
            if let Some(l) = text.lines().find(|l| l.trim_start().starts_with("FORGED")) {
                panic!("{args:?}: a name forged the {stream} line {l:?}:\n{text}");
            }
        }
        shown.push_str(&r.stdout);
    }
    // The names were shown, escaped: the test can fail.
    assert!(shown.contains("bad\\n  FORGED"), "{shown}");
    assert!(shown.contains("p\\n  FORGED"), "{shown}");
}
