//! Issue 50, items 3 and 4, through the binary.
//!
//! 3. Every value the configuration marks as secret (a server's `env` and `headers`
//!    values, the credentials and query of its `url`, the `OTEL_EXPORTER_OTLP_*HEADERS`
//!    values) is hidden by every output wherever a server echoes it, even with no
//!    recognisable shape: `scan` (table, `-v`, `--json`), `explain` (text, `--json`),
//!    `report` (Markdown, `--json`), `export --file` with `OTEL_LOG_TOOL_DETAILS=1`, the
//!    status line and the hook.
//! 4. A server's stderr is redacted whole before a view cuts it: a PEM key whose BEGIN
//!    line lies far above the shown tail, a `ghp_` token broken across a line end and
//!    across two records, and tokens straddling the tail's and the report's cut lengths
//!    show no fragment in any view.
//!
//! `--no-redact` shows every planted value in the same views, so each check can fail.

use std::path::{Path, PathBuf};

use crate::common::*;

/// Under a secret-looking key, no recognisable shape.
const ENV_KEYED: &str = "q7Rx2mZp9LkT4vWs8Yb3";
/// Under a neutral key, long and random.
const ENV_RANDOM: &str = "Zb8Kq2Lm9Xv4Tn7Rw3Yp6Hs1";
/// An `X-Api-Key` header value.
const HEADER: &str = "hdrOpaque-Plain-77";
/// The password of a server's URL, echoed alone.
const URL_PASSWORD: &str = "UrlPw-Opaque-31";
/// A query value of a server's URL.
const QUERY: &str = "Qz5Wq8Rt1Yu4";
/// A value of `OTEL_EXPORTER_OTLP_HEADERS` in the user's settings.
const OTEL: &str = "OtelHdr5Secret9";

const CONFIGURED: [&str; 6] = [ENV_KEYED, ENV_RANDOM, HEADER, URL_PASSWORD, QUERY, OTEL];

/// The PEM key's body lines (one stderr record each, as a line-buffered server writes
/// them), and what of each must never be shown.
fn pem_body() -> Vec<String> {
    (0..30)
        .map(|i| format!("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC{i:02}BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"))
        .collect()
}

/// Fragments of the stderr secrets that must never be shown (each long enough to
/// recognise the secret by).
const CUT_FRAGMENTS: [&str; 6] = [
    "KLMNOPQRSTUV",       // second half of a token broken across a line end
    "0123456789abcdefgh", // its first half
    "PONMLKJIHGF",        // second half of a token broken across two records
    "9876543210zyx",      // its first half
    "StraddleTail",       // a token straddling the tail's 400-character cut
    "StraddleReport",     // a token straddling the report's 4096-character cut
];

const SESSION: &str = "6f1c2d3e-0000-4000-8000-000000000050";
const TS: &str = "2026-11-29T12:00:00.000Z";

struct Home {
    dir: tempfile::TempDir,
    project: PathBuf,
}

impl Home {
    fn home(&self) -> &Path {
        self.dir.path()
    }

    fn cache(&self) -> PathBuf {
        self.home().join("mcplogs-cache")
    }

    fn cmd(&self, args: &[&str]) -> std::process::Command {
        let mut c = mcplogs(self.home());
        c.env("MCPLOGS_CACHE_DIR", self.cache()).args(args);
        c
    }
}

fn rec(key: &str, msg: &str, project: &Path) -> String {
    serde_json::json!({key: msg, "timestamp": TS, "sessionId": SESSION, "cwd": project.to_string_lossy()})
        .to_string()
}

/// A home whose `~/.claude.json` configures two servers of a project with secrets, whose
/// settings set an OTLP header, and whose logs echo every one of them; a third server
/// writes a PEM key and broken tokens on stderr.
fn home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    std::fs::create_dir_all(&project).unwrap();
    let key = project.to_string_lossy().into_owned();
    let claude_json = serde_json::json!({
        "projects": {key.clone(): {"mcpServers": {
            "svc": {"command": "node", "args": ["svc.js"],
                    "env": {"MY_SVC_KEY": ENV_KEYED, "SERVICE_REGION": ENV_RANDOM, "NODE_ENV": "production"}},
            "remote": {"type": "http",
                       "url": format!("https://svcuser:{URL_PASSWORD}@api.example.com/mcp?api_key={QUERY}"),
                       "headers": {"X-Api-Key": HEADER}},
            "keysvc": {"command": "node", "args": ["keysvc.js"]}
        }}}
    });
    std::fs::write(dir.path().join(".claude.json"), claude_json.to_string()).unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        format!(r#"{{"env": {{"OTEL_EXPORTER_OTLP_HEADERS": "x-otel-key={OTEL}"}}}}"#),
    )
    .unwrap();
    let logs = dir
        .path()
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name(&key));
    let write = |server: &str, lines: Vec<String>| {
        let d = logs.join(format!("mcp-logs-{server}"));
        std::fs::create_dir_all(&d).unwrap();
        let f = d.join("2026-11-29T12-00-00-000Z.jsonl");
        std::fs::write(&f, lines.join("\n") + "\n").unwrap();
        // settled an hour ago: the summary index takes it
        std::fs::File::options()
            .write(true)
            .open(&f)
            .unwrap()
            .set_modified(mcplogs::time::file_system_clock() - std::time::Duration::from_secs(3600))
            .unwrap();
    };
    let p = &project;
    let start = rec("debug", "Starting connection with timeout of 30000ms", p);
    write(
        "svc",
        vec![
            start.clone(),
            rec(
                "error",
                &format!(
                    "Server stderr: svc: starting with key {ENV_KEYED} in region {ENV_RANDOM}\nsvc: header {HEADER}, password {URL_PASSWORD}, query {QUERY}, otel {OTEL}\n"
                ),
                p,
            ),
            rec(
                "error",
                &format!(
                    "Connection failed (CONNECTION_CLOSED): svc rejected key {ENV_KEYED} ({ENV_RANDOM}) and {HEADER}"
                ),
                p,
            ),
        ],
    );
    write(
        "remote",
        vec![
            start.clone(),
            rec(
                "error",
                &format!(
                    "Connection failed (401): SSE error: Unauthorized; the gateway refused X-Api-Key {HEADER}, password {URL_PASSWORD} and api_key {QUERY} (otel {OTEL})"
                ),
                p,
            ),
        ],
    );
    let mut lines = vec![
        start,
        rec(
            "error",
            "Server stderr: keysvc: loading the signing key\n-----BEGIN PRIVATE KEY-----",
            p,
        ),
    ];
    for l in pem_body() {
        lines.push(rec("error", &format!("Server stderr: {l}"), p));
    }
    lines.push(rec("error", "Server stderr: -----END PRIVATE KEY-----", p));
    lines.push(rec(
        "error",
        "Server stderr: keysvc: using ghp_0123456789abcdefghij\nKLMNOPQRSTUVWXYZ0123 for releases",
        p,
    ));
    lines.push(rec(
        "error",
        "Server stderr: keysvc: fallback ghp_9876543210zyxwvutsrq",
        p,
    ));
    lines.push(rec(
        "error",
        "Server stderr: PONMLKJIHGFEDCBA9876 refused",
        p,
    ));
    // A token straddling the report's cut (4096 characters of the record).
    let report_pad = "word ".repeat((4096 - 30) / 5);
    lines.push(rec(
        "error",
        &format!("Server stderr: {report_pad}ghp_StraddleReport0123456789abcdefgh"),
        p,
    ));
    // A token straddling the tail's cut (400 characters of a line), last.
    let tail_pad = "word ".repeat((400 - 20) / 5);
    lines.push(rec(
        "error",
        &format!("Server stderr: {tail_pad}ghp_StraddleTail0123456789abcdefghijkl"),
        p,
    ));
    lines.push(rec(
        "error",
        "Connection failed (CONNECTION_CLOSED): Connection closed",
        p,
    ));
    write("keysvc", lines);
    Home { dir, project }
}

/// What must never be shown: the configured values and fragments of the stderr secrets.
fn leaks(out: &str) -> Vec<String> {
    let mut found: Vec<String> = CONFIGURED
        .iter()
        .chain(CUT_FRAGMENTS.iter())
        .filter(|s| out.contains(**s))
        .map(|s| s.to_string())
        .collect();
    found.extend(
        pem_body()
            .iter()
            .map(|l| l[..20].to_string())
            .filter(|f| out.contains(f.as_str())),
    );
    found
}

fn assert_clean(what: &str, out: &str) {
    let l = leaks(out);
    assert!(l.is_empty(), "{what} shows {l:?}:\n{out}");
}

/// `--no-redact` shows what the redacted view hides: the test plants where it looks.
fn assert_planted(what: &str, out: &str, expected: &[&str]) {
    for e in expected {
        assert!(out.contains(e), "{what} --no-redact lacks {e}:\n{out}");
    }
}

#[test]
fn scan_in_every_form_hides_every_configured_secret_and_every_cut_secret() {
    let h = home();
    for args in [&["scan"][..], &["scan", "-v"], &["scan", "--json"]] {
        let r = run(&mut h.cmd(args));
        assert_eq!(r.code, 1, "{args:?}: {}{}", r.stdout, r.stderr);
        assert_clean(&format!("{args:?}"), &format!("{}{}", r.stdout, r.stderr));
    }
    let v = run(&mut h.cmd(&["scan", "-v"]));
    assert!(v.stdout.contains("[REDACTED:config]"), "{}", v.stdout);
    assert!(v.stdout.contains("[REDACTED:private-key]"), "{}", v.stdout);
    let raw = run(&mut h.cmd(&["scan", "-v", "--no-redact"]));
    assert_planted(
        "scan -v",
        &raw.stdout,
        &[
            ENV_KEYED,
            ENV_RANDOM,
            HEADER,
            "PONMLKJIHGF",
            &pem_body()[29][..20],
        ],
    );
    let raw = run(&mut h.cmd(&["scan", "--json", "--no-redact"]));
    assert_planted(
        "scan --json",
        &raw.stdout,
        &[ENV_KEYED, URL_PASSWORD, QUERY, OTEL, "KLMNOPQRSTUV"],
    );
    // Nothing of a configured value is kept on disk: the summary index holds no more
    // than the logs do, and the same with or without the configuration (the values are
    // never written; the index is not redacted with them).
    let index_with: Vec<u8> = index_bytes(&h.cache());
    assert!(!index_with.is_empty(), "the scans wrote a summary index");
    std::fs::remove_dir_all(h.cache()).unwrap();
    let json_without_config = {
        std::fs::rename(
            h.home().join(".claude.json"),
            h.home().join("claude.json.away"),
        )
        .unwrap();
        let r = run(&mut h.cmd(&["scan", "--json"]));
        std::fs::rename(
            h.home().join("claude.json.away"),
            h.home().join(".claude.json"),
        )
        .unwrap();
        r.stdout
    };
    assert!(
        json_without_config.contains(ENV_KEYED),
        "the plant shows without its configuration"
    );
    assert_eq!(index_bytes(&h.cache()), index_with);
}

/// Every file of the summary index, in name order.
fn index_bytes(cache: &Path) -> Vec<u8> {
    let mut files: Vec<PathBuf> = walk(cache);
    files.sort();
    let mut out = Vec::new();
    for f in files {
        out.extend(std::fs::read(&f).unwrap_or_default());
    }
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn explain_of_a_paste_and_of_the_local_logs_hides_them() {
    let h = home();
    let paste = h.home().join("paste.txt");
    std::fs::write(
        &paste,
        format!(
            "Checking MCP server health...\n\n\
             svc: node svc.js - ✗ Failed to connect\n\
             keysvc: node keysvc.js - ✗ Failed to connect\n\
             remote: https://api.example.com/mcp?api_key={QUERY} (HTTP) - ✗ Failed to connect\n\
             other: node x.js --region {ENV_RANDOM} --key {ENV_KEYED} - ✗ Failed to connect\n"
        ),
    )
    .unwrap();
    let project = h.project.to_string_lossy().into_owned();
    for json in [false, true] {
        let mut args = vec!["explain", "--project", &project];
        if json {
            args.push("--json");
        }
        let p = paste.to_string_lossy().into_owned();
        args.push(&p);
        let r = run(&mut h.cmd(&args));
        assert_clean(&format!("{args:?}"), &format!("{}{}", r.stdout, r.stderr));
        args.insert(1, "--no-redact");
        let raw = run(&mut h.cmd(&args));
        // the paste's values and the local logs' stderr tail
        assert_planted(
            &format!("{args:?}"),
            &raw.stdout,
            &[QUERY, ENV_RANDOM, ENV_KEYED, "PONMLKJIHGF"],
        );
    }
}

#[test]
fn report_in_markdown_and_json_hides_them() {
    let h = home();
    for args in [&["report"][..], &["report", "--json"]] {
        let r = run(&mut h.cmd(args));
        assert!(r.code <= 1, "{args:?}: {}{}", r.stdout, r.stderr);
        assert_clean(&format!("{args:?}"), &format!("{}{}", r.stdout, r.stderr));
        let mut raw_args = args.to_vec();
        raw_args.push("--no-redact");
        let raw = run(&mut h.cmd(&raw_args));
        assert_planted(
            &format!("{raw_args:?}"),
            &raw.stdout,
            &[
                ENV_KEYED,
                ENV_RANDOM,
                HEADER,
                URL_PASSWORD,
                QUERY,
                OTEL,
                "PONMLKJIHGF",
                "KLMNOPQRSTUV",
                &pem_body()[29][..20],
            ],
        );
    }
}

#[test]
fn export_records_with_tool_details_hide_them() {
    let h = home();
    let out = h.home().join("records.jsonl");
    let o = out.to_string_lossy().into_owned();
    // Export takes its OTEL_* variables whole from the highest layer that sets any: the
    // user's settings here (they set the header), so the switch goes there too.
    std::fs::write(
        h.home().join(".claude/settings.json"),
        format!(
            r#"{{"env": {{"OTEL_EXPORTER_OTLP_HEADERS": "x-otel-key={OTEL}", "OTEL_LOG_TOOL_DETAILS": "1"}}}}"#
        ),
    )
    .unwrap();
    let r = run(&mut h.cmd(&["export", "--file", &o]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let records = std::fs::read_to_string(&out).unwrap();
    assert!(records.contains("svc"), "{records}");
    assert_clean(
        "export --file",
        &format!("{records}{}{}", r.stdout, r.stderr),
    );
    assert!(records.contains("[REDACTED:config]"), "{records}");
}

#[test]
fn the_status_line_and_the_hook_hide_them() {
    let h = home();
    let project = h.project.to_string_lossy().into_owned();
    let input = serde_json::json!({
        "session_id": SESSION, "transcript_path": "/x.jsonl", "cwd": project,
        "workspace": {"current_dir": project, "project_dir": project},
        "version": "2.1.332"
    })
    .to_string();
    let r = run_with_stdin(&mut h.cmd(&["statusline"]), input.as_bytes());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("MCP"), "{}", r.stdout);
    assert_clean("statusline", &format!("{}{}", r.stdout, r.stderr));
    let hook_input = input.replacen('{', "{\"hook_event_name\":\"UserPromptSubmit\",", 1);
    let r = run_with_stdin(&mut h.cmd(&["hook"]), hook_input.as_bytes());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("svc"), "{}", r.stdout);
    assert_clean("hook", &format!("{}{}", r.stdout, r.stderr));
    // What they keep between runs (the memos of the logs they read) holds none either;
    // the memo does keep the messages that echo them, so the check can fail.
    let mut memos = String::new();
    for e in walkdir::WalkDir::new(h.cache()).into_iter().flatten() {
        if e.file_type().is_file() {
            memos.push_str(&String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()));
        }
    }
    assert!(memos.contains("[REDACTED:config]"), "{memos}");
    assert_clean("the status line's memos", &memos);
}

/// The fourth pass: a server named after a token (its log folder, and its entry in
/// `~/.claude.json`) is redacted before any view cuts the name to its column or to the
/// hook's bound, so no piece of the token long enough to recognise it shows: the scan
/// table at 80 and 120 columns, the status line and the hook. The configured entry and
/// its logs are still one server.
#[test]
fn a_server_named_after_a_token_is_redacted_before_its_name_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    std::fs::create_dir_all(&project).unwrap();
    let key = project.to_string_lossy().into_owned();
    let token_tail = "NameTokXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX";
    let name = format!("{}ghp_{token_tail}", "a".repeat(40));
    std::fs::write(
        dir.path().join(".claude.json"),
        serde_json::json!({"projects": {key.clone(): {"mcpServers": {name.clone(): {"command": "x"}}}}})
            .to_string(),
    )
    .unwrap();
    let d = dir
        .path()
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name(&key))
        .join(format!("mcp-logs-{name}"));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("2026-11-29T12-00-00-000Z.jsonl"),
        [
            rec(
                "debug",
                "Starting connection with timeout of 30000ms",
                &project,
            ),
            rec(
                "error",
                "Connection failed (CONNECTION_CLOSED): x",
                &project,
            ),
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    let cache = dir.path().join("mcplogs-cache");
    let cmd = |args: &[&str]| {
        let mut c = mcplogs(dir.path());
        c.env("MCPLOGS_CACHE_DIR", &cache)
            .current_dir(&project)
            .args(args)
            .args([
                "--managed-dir",
                &dir.path().join("managed").to_string_lossy(),
            ]);
        c
    };
    let leaked = |out: &str| out.contains("NameTokXXXX") || out.contains("ghp_N");
    for cols in ["80", "120"] {
        let mut c = cmd(&["scan"]);
        c.env("COLUMNS", cols);
        let r = run(&mut c);
        assert!(!leaked(&r.stdout), "scan at {cols} columns:\n{}", r.stdout);
        assert!(
            r.stdout.starts_with("1 server"),
            "the configured entry and its logs are one server:\n{}",
            r.stdout
        );
    }
    let input = serde_json::json!({
        "session_id": SESSION, "transcript_path": "/x.jsonl", "cwd": key,
        "workspace": {"current_dir": key, "project_dir": key}
    })
    .to_string();
    for (what, args, input) in [
        ("statusline", ["statusline"], input.clone()),
        (
            "hook",
            ["hook"],
            input.replacen('{', "{\"hook_event_name\":\"UserPromptSubmit\",", 1),
        ),
    ] {
        let mut c = mcplogs(dir.path());
        c.env("MCPLOGS_CACHE_DIR", &cache).args(args);
        let r = run_with_stdin(&mut c, input.as_bytes());
        assert_eq!(r.code, 0, "{what}: {}", r.stderr);
        assert!(!r.stdout.is_empty(), "{what} said nothing");
        assert!(!leaked(&r.stdout), "{what}:\n{}", r.stdout);
    }
}

/// Configured values a server echoes broken across a line end of one record (the
/// SECURITY.md promise: a secret split across two lines of one record is hidden), in the
/// message of a failure and in its stderr, `\n` and `\r\n`.
#[test]
fn a_configured_secret_broken_across_a_line_end_of_one_record_is_hidden() {
    const KEY: &str = "p@ss/w0rd+K3y=Zq";
    const PASS: &str = "hunter2hunter2";
    // the halves, each of which must never be shown
    const HALVES: [&str; 4] = ["p@ss/w0", "rd+K3y=Zq", "hunter2", "K3y=Zq"];
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    std::fs::create_dir_all(&project).unwrap();
    let key = project.to_string_lossy().into_owned();
    let claude_json = serde_json::json!({
        "projects": {key.clone(): {"mcpServers": {
            "split": {"command": "node", "args": ["s.js"],
                      "env": {"API_KEY": KEY, "X_PASS": PASS}}
        }}}
    });
    std::fs::write(dir.path().join(".claude.json"), claude_json.to_string()).unwrap();
    let logs = dir
        .path()
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name(&key))
        .join("mcp-logs-split");
    std::fs::create_dir_all(&logs).unwrap();
    let p = &project;
    let lines = [
        rec("debug", "Starting connection with timeout of 30000ms", p),
        rec(
            "error",
            "Server stderr: split: key is p@ss/w0\nrd+K3y=Zq, pass is hunter2\r\nhunter2 end",
            p,
        ),
        rec(
            "error",
            "Connection failed (CONNECTION_CLOSED): rejected p@ss/w0\n  rd+K3y=Zq and hunter2\nhunter2",
            p,
        ),
    ];
    std::fs::write(
        logs.join("2026-11-29T12-00-00-000Z.jsonl"),
        lines.join("\n") + "\n",
    )
    .unwrap();
    let h = Home { dir, project };
    let paste = h.home().join("paste.txt");
    std::fs::write(&paste, "split: node s.js - ✗ Failed to connect\n").unwrap();
    let paste = paste.to_string_lossy().into_owned();
    let project = h.project.to_string_lossy().into_owned();
    let explain = ["explain", "--project", &project, &paste];
    let views: [&[&str]; 5] = [
        &["scan", "-v"],
        &["scan", "--json"],
        &["report"],
        &["report", "--json"],
        &explain,
    ];
    for args in views {
        let r = run(&mut h.cmd(args));
        let out = format!("{}{}", r.stdout, r.stderr);
        let shown: Vec<&str> = HALVES.into_iter().filter(|s| out.contains(s)).collect();
        assert!(shown.is_empty(), "{args:?} shows {shown:?}:\n{out}");
        assert!(out.contains("[REDACTED:config]"), "{args:?}:\n{out}");
        // the plant is where the view looks
        let mut raw_args = args.to_vec();
        raw_args.insert(1, "--no-redact");
        let raw = run(&mut h.cmd(&raw_args));
        assert!(
            raw.stdout.contains("rd+K3y=Zq") && raw.stdout.contains("hunter2"),
            "{raw_args:?}:\n{}",
            raw.stdout
        );
    }
}

/// A secret another project configures (its `.mcp.json`, the project listed in
/// `~/.claude.json`, no log of its own) that a server of this project echoes on stderr:
/// hidden in every view whichever servers it shows (the whole scan, `--server`,
/// `--match-project`, the report), and kept in neither the summary index nor the
/// status line's memo.
#[test]
fn another_listed_projects_secret_is_hidden_in_every_view_and_never_kept() {
    const OTHER: &str = "otherProjOpaque8181";
    let h = home();
    let other = h.home().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join(".mcp.json"),
        serde_json::json!({"mcpServers": {"o": {"command": "o-server", "env": {"O_TOKEN": OTHER}}}})
            .to_string(),
    )
    .unwrap();
    let cj = h.home().join(".claude.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cj).unwrap()).unwrap();
    doc["projects"][other.to_string_lossy().as_ref()] = serde_json::json!({});
    std::fs::write(&cj, doc.to_string()).unwrap();
    // svc's newest file gets a record echoing it, settled an hour ago
    let key = h.project.to_string_lossy().into_owned();
    let f = h
        .home()
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name(&key))
        .join("mcp-logs-svc/2026-11-29T12-00-00-000Z.jsonl");
    let mut text = std::fs::read_to_string(&f).unwrap();
    // on stderr (the tail, the report, the index's details) and in a failure the status
    // line's memo keeps, before the last record (the failure that decides)
    let lines = [
        rec(
            "error",
            &format!("Server stderr: svc: the other one says {OTHER} is stale"),
            &h.project,
        ),
        rec(
            "error",
            &format!("Connection failed (CONNECTION_CLOSED): the other one says {OTHER} is stale"),
            &h.project,
        ),
    ];
    let cut = text.trim_end().rfind('\n').unwrap() + 1;
    text.insert_str(cut, &format!("{}\n", lines.join("\n")));
    std::fs::write(&f, text).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&f)
        .unwrap()
        .set_modified(mcplogs::time::file_system_clock() - std::time::Duration::from_secs(3600))
        .unwrap();
    let unredacted = run(&mut h.cmd(&["scan", "--json", "--no-redact", "--no-cache"]));
    assert!(unredacted.stdout.contains(OTHER), "{}", unredacted.stdout);
    for args in [
        &["scan", "--json"][..],
        &["scan", "--json"],
        &["scan", "--verbose"],
        &["scan", "--json", "--server", "svc"],
        &["scan", "--json", "--match-project", &key],
        &["report", "--json", "--server", "svc"],
        &["report", "--force"],
    ] {
        let r = run(&mut h.cmd(args));
        let out = format!("{}{}", r.stdout, r.stderr);
        assert!(!out.contains(OTHER), "{args:?} shows it:\n{out}");
    }
    let input = serde_json::json!({
        "session_id": SESSION, "transcript_path": "/x.jsonl", "cwd": key,
        "workspace": {"current_dir": key, "project_dir": key}, "version": "2.1.332"
    })
    .to_string();
    let r = run_with_stdin(&mut h.cmd(&["statusline"]), input.as_bytes());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut kept = String::new();
    for e in walkdir::WalkDir::new(h.cache()).into_iter().flatten() {
        if e.file_type().is_file() {
            kept.push_str(&String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()));
        }
    }
    assert!(
        kept.contains("is stale"),
        "the memo keeps the failure: {kept}"
    );
    assert!(!kept.contains(OTHER), "mcplogs' cache keeps it: {kept}");
}
