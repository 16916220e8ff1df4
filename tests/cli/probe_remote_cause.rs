//! `probe` of a remote server whose connection fails names the cause `scan` names for
//! the same failure in Claude Code's log (adversarial finding 7): a refused port is
//! `connection-refused`, with its own advice, not `connection-failed (other)`.

use std::fs;

use crate::common::*;
use serde_json::json;

/// A loopback port nothing listens on: bound, then closed.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    drop(l);
    port
}

#[test]
fn probe_of_a_refused_port_names_scans_cause_and_advice() {
    let home = tempfile::tempdir().expect("tempdir");
    let port = closed_port();
    fs::write(
        home.path().join(".claude.json"),
        json!({"mcpServers": {"gone": {"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")}}})
            .to_string(),
    )
    .expect("write");
    let (r, doc) =
        run_json(mcplogs(home.path()).args(["probe", "gone", "--timeout", "3s", "--json"]));
    assert_eq!(r.code, 1, "{}", r.stderr);
    let text = doc.to_string();
    assert!(
        text.contains("\"cause\":\"connection-refused\""),
        "probe names scan's cause: {text}"
    );
    assert!(!text.contains("\"cause\":\"other\""), "{text}");
    // the same failure in a real Claude Code log (tests/fixtures/remote/) is the same
    // cause in scan (remote.rs checks that one), and the same advice on the screen
    let r = run(mcplogs(home.path()).args(["probe", "gone", "--timeout", "3s"]));
    assert!(
        r.stdout.contains("connection-failed (connection-refused)")
            && r.stdout.contains("ECONNREFUSED")
            && r.stdout.contains("No Claude Code setting fixes this"),
        "{}",
        r.stdout
    );
}
