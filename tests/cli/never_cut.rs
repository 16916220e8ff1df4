//! A path or a server name on the scan screen is never cut at a narrow width: a long one
//! wraps, every character kept (docs/usage.md, "Output that fits the terminal"). The
//! adversarial pass of session 16 found an 80-column screen printing a project heading
//! `…/services/a…` and a server's name in the actions cut.

use crate::common::*;

#[test]
fn a_long_project_path_and_server_name_wrap_whole_at_80_columns() {
    let tmp = tempfile::tempdir().unwrap();
    // the scanned home is not the user's (whose home the screen shows as `~`)
    let h = &tmp.path().join("home");
    let me = tmp.path().join("me");
    std::fs::create_dir_all(&me).unwrap();
    let project = h.join("a-rather-long-project-folder-name-for-the-customer-portal/services/api");
    std::fs::create_dir_all(&project).unwrap();
    let key = project.to_string_lossy().into_owned();
    let name = "db-primary-readwrite-connection-for-the-customer-portal";
    std::fs::write(
        h.join(".claude.json"),
        serde_json::json!({"projects": {&key: {"mcpServers": {name: {"command": "nosuch-cmd"}}}}})
            .to_string(),
    )
    .unwrap();
    let rec = |level: &str, msg: &str| {
        serde_json::json!({level: msg, "timestamp": "2026-11-29T12:00:00.000Z",
            "sessionId": "6f1c2d3e-0000-4000-8000-000000000017", "cwd": &key})
        .to_string()
    };
    let dir = h
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name(&key))
        .join(format!("mcp-logs-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("2026-11-29T12-00-00-000Z.jsonl"),
        [
            rec("debug", "Starting connection with timeout of 30000ms"),
            rec(
                "error",
                "Connection failed (CONNECTION_CLOSED): Connection closed",
            ),
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    let r = run(mcplogs(&me)
        .env("COLUMNS", "80")
        .env("NO_COLOR", "1")
        .args(["scan", "--home", h.to_str().unwrap()]));
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    for l in r.stdout.lines() {
        assert!(
            l.chars().count() <= 80,
            "a line passes 80 columns: {l}\n{}",
            r.stdout
        );
    }
    // the lines joined again (a wrapped path goes on at the next line's start)
    let joined: String = r.stdout.lines().map(str::trim).collect();
    assert!(
        joined.contains(&key),
        "the project path is cut:\n{}",
        r.stdout
    );
    assert!(
        joined.contains(&format!("Servers: {name}")),
        "the server's name is cut:\n{}",
        r.stdout
    );
}
