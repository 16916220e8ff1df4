//! Issue 23, item 2, through the binary: `report --probe` cuts a server's words to the
//! width. Cut first, a token left short of its rule's length (`ghp_CutLeak0123…`) was
//! printed; now every piece is redacted, then cut. Each width is chosen so the cut falls
//! inside the token, which `--no-redact` shows (so the test can fail). The probe's own
//! step lines are no longer cut at all (issue 46): piped they keep every character
//! whatever COLUMNS says, and the token is redacted whole.
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;

use crate::common::{mcplogs, run};

const TOKEN: &str = "ghp_CutLeak0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH";
/// The probe's step line: `  {ms:>6} ms  {step:<20} ` then `FAIL ` or `ok   `.
const STEP_LEFT: usize = 38;

/// A stdio MCP server answering every request with a JSON-RPC error whose message
/// holds the token after `pad` characters.
fn rpc_error_server(dir: &Path) -> std::path::PathBuf {
    let script = dir.join("rpc_error.py");
    std::fs::write(
        &script,
        format!(
            r#"import sys, json
pad = int(sys.argv[1])
for line in sys.stdin:
    m = json.loads(line)
    if "id" in m:
        msg = "Unauthorized: " + "x" * pad + " {TOKEN} was revoked"
        print(json.dumps({{"jsonrpc": "2.0", "id": m["id"], "error": {{"code": -32001, "message": msg}}}}), flush=True)
"#
        ),
    )
    .unwrap();
    script
}

/// A loopback HTTP server (a port in 41000-41999) answering every request 401 with the
/// token in its `WWW-Authenticate` header; its URL.
fn http_401_server(header: String) -> String {
    let listener = (41000..42000)
        .find_map(|p| TcpListener::bind(("127.0.0.1", p)).ok())
        .expect("a free port in 41000-41999");
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let mut reader = BufReader::new(conn.try_clone().unwrap());
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let _ = write!(
                conn,
                "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: {header}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
        }
    });
    format!("http://127.0.0.1:{port}/mcp")
}

/// The probe's human text at `columns`, redacted or not.
fn probe_text(home: &Path, target: &[&str], columns: usize, redact: bool) -> String {
    let mut cmd = mcplogs(home);
    cmd.args(["probe", "--claude-version", "2.1.332"])
        .args(target)
        .env("COLUMNS", columns.to_string());
    if !redact {
        cmd.arg("--no-redact");
    }
    let r = run(&mut cmd);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    format!("{}{}", r.stdout, r.stderr)
}

/// At `columns` (piped) the step line showing `what` would have been cut inside the
/// token: shown raw, it is whole (nothing is cut); redacted, none of it is shown.
fn check_step_lines(home: &Path, target: &[&str], what_before_token: &str) {
    let columns = STEP_LEFT + what_before_token.chars().count() + 12 + 1;
    let raw = probe_text(home, target, columns, false);
    let line = raw
        .lines()
        .find(|l| l.contains(what_before_token))
        .unwrap_or_else(|| panic!("no step line shows {what_before_token:?}:\n{raw}"));
    assert!(
        line.contains(TOKEN),
        "piped at {columns} columns, the step line lost part of its text:\n{raw}"
    );
    let shown = probe_text(home, target, columns, true);
    assert!(!shown.contains("CutLeak"), "{columns} columns:\n{shown}");
    assert!(shown.contains("[REDACTED:github-token]"), "{shown}");
}

#[test]
fn a_json_rpc_error_message_cut_by_the_width_shows_no_part_of_its_token() {
    let home = tempfile::tempdir().unwrap();
    let script = rpc_error_server(home.path());
    let command = format!("python3 {} 10", script.display());
    check_step_lines(
        home.path(),
        &["--command", &command],
        "FAIL error -32001: Unauthorized: xxxxxxxxxx ",
    );
}

#[test]
fn a_www_authenticate_header_cut_by_the_width_shows_no_part_of_its_token() {
    let home = tempfile::tempdir().unwrap();
    let url = http_401_server(format!(
        "Bearer realm=\"mcp\", error=\"invalid_token\", error_description=\"{TOKEN} expired\""
    ));
    check_step_lines(
        home.path(),
        &["--url", &url],
        "FAIL HTTP 401: authentication required (WWW-Authenticate: Bearer realm=\"mcp\", error=\"invalid_token\", error_description=\"",
    );
}

/// `report --probe` cuts each detail to 160 characters: the token begins just before.
#[test]
fn report_probe_cuts_its_details_after_redaction() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    let script = rpc_error_server(home.path());
    // The detail is "invalid initialize result: initialize answered error -32001:
    // Unauthorized: " (77 characters), the padding, a space, then the token: it starts
    // at 148, so a cut at 159 keeps 11 characters of it.
    let before = "invalid initialize result: initialize answered error -32001: Unauthorized: ";
    let pad = 148 - before.chars().count() - 1;
    let cfg = serde_json::json!({"mcpServers": {
        "cutleak": {"command": "python3", "args": [script, pad.to_string()]}
    }});
    std::fs::write(home.path().join(".claude.json"), cfg.to_string()).unwrap();
    let r = run(mcplogs(home.path())
        .current_dir(&proj)
        .args(["report", "--probe", "--force"]));
    assert!(matches!(r.code, 0 | 1), "{}", r.stderr);
    let row = r
        .stdout
        .lines()
        .find(|l| l.starts_with("| `cutleak`"))
        .unwrap_or_else(|| panic!("no probe row:\n{}", r.stdout));
    assert!(!r.stdout.contains("CutLeak"), "{row}");
    // the cut fell where the token was: the padding, then the ellipsis
    assert!(row.contains(&format!("{}…", "x".repeat(pad))), "{row}");
}

/// `explain` cuts a pasted message's first line to 120 characters for its status; the
/// token begins at 108, so a cut before redaction showed `ghp_CutLeak`.
#[test]
fn explain_cuts_a_pasted_status_after_redaction() {
    let home = tempfile::tempdir().unwrap();
    let body = format!(
        "Connection failed: Unauthorized {} {TOKEN} was revoked",
        "x".repeat(75)
    );
    assert_eq!(body.find(TOKEN), Some(108));
    let paste = home.path().join("paste.txt");
    std::fs::write(&paste, format!("MCP server \"api\": {body}\n")).unwrap();
    // unredacted, the status is cut inside the token (so the test can fail)
    let raw = run(mcplogs(home.path())
        .arg("explain")
        .arg(&paste)
        .arg("--json")
        .arg("--no-redact"));
    assert!(raw.stdout.contains("ghp_CutLeak…"), "{}", raw.stdout);
    for json in [false, true] {
        let mut cmd = mcplogs(home.path());
        cmd.arg("explain").arg(&paste);
        if json {
            cmd.arg("--json");
        }
        let r = run(&mut cmd);
        assert!(matches!(r.code, 0 | 1), "{}", r.stderr);
        assert!(!r.stdout.contains("CutLeak"), "{}", r.stdout);
        // the status was cut where the token is: the padding, then the ellipsis
        let cut = format!("{}…", "x".repeat(75));
        assert!(r.stdout.contains(&cut), "{}", r.stdout);
    }
}

/// helper-100 #3: `probe`'s "stderr: ...; last: LINE" redacted the last line alone, so a
/// configured secret the server wrote across two lines showed its second part (which
/// `scan` and `report`, redacting the records together, hide). The stderr is redacted
/// whole, then its last line taken.
#[test]
fn probes_last_stderr_line_is_redacted_with_the_lines_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let script = home.join("split.py");
    std::fs::write(
        &script,
        r#"import sys, json, os
s = os.environ["SERVICE_CREDENTIAL"]
sys.stderr.write("boot cred=" + s[:9] + "\n" + s[9:] + "\n")
sys.stderr.flush()
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "s", "version": "1"}}
    elif m["method"] == "tools/list":
        r = {"tools": []}
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
"#,
    )
    .unwrap();
    std::fs::write(
        home.join(".claude.json"),
        serde_json::json!({ "mcpServers": { "split": {
            "command": "python3", "args": [script.display().to_string()],
            "env": { "SERVICE_CREDENTIAL": "meadowlarkquietstream" },
        } } })
        .to_string(),
    )
    .unwrap();
    let mut cmd = mcplogs(home);
    cmd.args(["probe", "--claude-version", "2.1.332", "split"])
        .current_dir(home);
    let r = run(&mut cmd);
    let line = r
        .stdout
        .lines()
        .find(|l| l.contains("stderr: 2 lines"))
        .unwrap_or_else(|| panic!("{r:?}"));
    assert!(line.ends_with("last: [REDACTED:config]"), "{line}");
    assert!(!r.stdout.contains("quietstream"), "{r:?}");
}
