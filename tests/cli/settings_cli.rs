//! `mcplogs settings` and the guards of `mcplogs fix`: layers and precedence, ignored
//! files, the override warning, the scan gate (--force), and no terminal without --yes.

use std::fs;

use crate::common::*;

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn settings_env_beats_the_shell_environment() {
    let sb = Sandbox::new();
    write_with_mode(
        &sb.user_settings(),
        b"{\"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"}}",
        0o600,
    );
    let out = sb
        .command(
            std::path::Path::new(env!("CARGO_BIN_EXE_mcplogs")),
            &["settings", "--json"],
        )
        .env("MCP_PROTOCOL_NEGOTIATION", "auto")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let j = json(&out);
    assert_eq!(j["effective"]["value"], "legacy");
    assert_eq!(j["effective"]["layer"], "user");
    let layers = j["layers"].as_array().unwrap();
    let kinds: Vec<&str> = layers
        .iter()
        .map(|l| l["layer"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["managed", "local", "project", "user", "environment"]
    );
    assert_eq!(layers[4]["negotiation"], "auto");
    assert_eq!(layers[4]["present"], true);
    assert_eq!(layers[3]["status"], "strict");
    assert_eq!(layers[3]["strict"], true);
    assert_eq!(
        layers[3]["path"],
        sb.user_settings().display().to_string().as_str()
    );
}

#[test]
fn ignored_file_is_reported_with_position_and_keys_and_does_not_decide() {
    let sb = Sandbox::new();
    write_with_mode(
        &sb.user_settings(),
        b"{\n  \"env\": {\n    // fix\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n    \"X_TOKEN\": \"t\",\n  },\n}\n",
        0o600,
    );
    let out = sb.run(&["settings", "--json"]);
    assert_eq!(out.status.code(), Some(1), "an ignored file is a problem");
    let j = json(&out);
    let user = &j["layers"][3];
    assert_eq!(user["status"], "ignored");
    assert_eq!(user["strict"], false);
    assert_eq!(user["inEffect"], false);
    assert_eq!(user["problem"]["line"], 3);
    assert_eq!(user["problem"]["column"], 5);
    assert_eq!(
        user["ignoredEnvKeys"],
        serde_json::json!(["MCP_PROTOCOL_NEGOTIATION", "X_TOKEN"])
    );
    assert_eq!(j["effective"]["value"], serde_json::Value::Null);

    let text = stdout(&sb.run(&["settings"]));
    assert!(text.contains("ignored entirely by Claude Code"), "{text}");
    assert!(text.contains("line 3, column 5"), "{text}");
    assert!(text.contains("env keys not in effect: MCP_PROTOCOL_NEGOTIATION, X_TOKEN"));
    assert!(text.contains("legacy (not in effect)"), "{text}");
    assert!(
        text.contains("MCP_PROTOCOL_NEGOTIATION is not set"),
        "{text}"
    );
}

#[test]
fn invalid_file_is_reported_invalid() {
    let sb = Sandbox::new();
    write_with_mode(&sb.user_settings(), b"{\"a\": ", 0o600);
    let out = sb.run(&["settings", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["layers"][3]["status"], "invalid");
}

#[test]
fn precedence_managed_drop_in_over_managed_over_local_over_project_over_user() {
    let sb = Sandbox::new();
    let set = |p: &std::path::Path, v: &str| {
        write_with_mode(
            p,
            format!("{{\"env\": {{\"MCP_PROTOCOL_NEGOTIATION\": \"{v}\"}}}}").as_bytes(),
            0o644,
        )
    };
    let dot = sb.project.join(".claude");
    set(&sb.user_settings(), "legacy");
    let expect = |layer: &str, value: &str| {
        let j = json(&sb.run(&["settings", "--json"]));
        assert_eq!(j["effective"]["layer"], layer);
        assert_eq!(j["effective"]["value"], value);
    };
    expect("user", "legacy");
    set(&dot.join("settings.json"), "auto");
    expect("project", "auto");
    set(&dot.join("settings.local.json"), "legacy");
    expect("local", "legacy");
    set(&sb.managed.join("managed-settings.json"), "auto");
    expect("managed", "auto");
    set(&sb.managed.join("managed-settings.d/10-a.json"), "bogus");
    set(&sb.managed.join("managed-settings.d/20-b.json"), "legacy");
    expect("managed-drop-in", "legacy");
}

#[test]
fn fix_writes_the_local_file_when_the_project_overrides_the_user_file() {
    let sb = Sandbox::new();
    let project_file = sb.project.join(".claude/settings.json");
    let shared = b"{\"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"auto\"}}";
    write_with_mode(&project_file, shared, 0o644);
    write_with_mode(&sb.user_settings(), LEGACY_FRESH.as_bytes(), 0o600);
    let local = sb.project.join(".claude/settings.local.json");
    let out = sb.run(&["fix", "--yes", "--force"]);
    let msg = stderr(&out);
    assert!(out.status.success(), "{msg}");
    // The message names the file and why it was chosen; the diff names it too.
    assert!(
        msg.contains(&format!("Writing {}:", local.display())),
        "{msg}"
    );
    assert!(
        msg.contains(&format!(
            "{} sets MCP_PROTOCOL_NEGOTIATION to \"auto\"",
            project_file.display()
        )),
        "{msg}"
    );
    assert!(msg.contains("not meant to be committed"), "{msg}");
    assert!(stdout(&out).contains(&format!("+++ {}", local.display())));
    assert_eq!(fs::read_to_string(&local).unwrap(), LEGACY_FRESH);
    // The shared project file and the user file are untouched.
    assert_eq!(fs::read(&project_file).unwrap(), shared);
    assert_eq!(
        fs::read_to_string(sb.user_settings()).unwrap(),
        LEGACY_FRESH
    );
    // Now legacy wins: a second fix writes nothing and says how to verify.
    let again = sb.run(&["fix", "--yes", "--force"]);
    assert!(again.status.success());
    let msg = stderr(&again);
    assert!(
        msg.contains(&format!("{} already sets", local.display())),
        "{msg}"
    );
    // the verify command checks the same home's logs as the fix used (`--home`)
    assert!(
        msg.contains("mcplogs scan --home ") && msg.contains(" --since 10m`"),
        "{msg}"
    );
    // Undo finds the file mcplogs wrote without being told.
    let undo = sb.run(&["fix", "--undo", "--yes"]);
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert!(!local.exists());
}

#[test]
fn fix_refuses_with_exit_2_when_a_managed_file_decides() {
    let sb = Sandbox::new();
    let managed = sb.managed.join("managed-settings.json");
    write_with_mode(
        &managed,
        b"{\"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"auto\"}}",
        0o644,
    );
    let out = sb.run(&["fix", "--yes", "--force"]);
    assert_eq!(out.status.code(), Some(2));
    let msg = stderr(&out);
    assert!(msg.contains(&managed.display().to_string()), "{msg}");
    assert!(msg.contains("never writes them"), "{msg}");
    assert!(!sb.user_settings().exists());
    assert!(!sb.project.join(".claude").exists());
}

#[test]
fn fix_with_an_explicit_file_warns_naming_a_higher_layer() {
    let sb = Sandbox::new();
    let project_file = sb.project.join(".claude/settings.json");
    write_with_mode(
        &project_file,
        b"{\"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"auto\"}}",
        0o644,
    );
    let user = sb.user_settings().display().to_string();
    let out = sb.run(&["fix", "--dry-run", "--force", "--settings", &user]);
    assert!(out.status.success());
    let msg = stderr(&out);
    assert!(msg.contains("warning:"), "{msg}");
    assert!(
        msg.contains(&format!("project settings {}", project_file.display())),
        "{msg}"
    );
    assert!(msg.contains("takes precedence"), "{msg}");
    // A legacy value above is no reason to warn.
    fs::write(
        &project_file,
        "{\"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"}}",
    )
    .unwrap();
    let out = sb.run(&["fix", "--dry-run", "--force", "--settings", &user]);
    assert!(!stderr(&out).contains("warning:"), "{}", stderr(&out));
}

#[test]
fn without_a_server_needing_it_fix_needs_force() {
    let sb = Sandbox::new();
    let out = sb.run(&["fix", "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no scanned server needs the legacy fix"));
    assert!(stderr(&out).contains("--force"));
    assert!(!sb.user_settings().exists());
    // A dry run notes it and shows no diff: the legacy setting would help no server.
    let dry = sb.run(&["fix", "--dry-run"]);
    assert_eq!(dry.status.code(), Some(0));
    assert!(!stdout(&dry).contains("+++ "), "{}", stdout(&dry));
    assert!(stderr(&dry).contains("no scanned server needs the legacy fix"));
    // --force shows it
    let forced = sb.run(&["fix", "--dry-run", "--force"]);
    assert!(stdout(&forced).contains("+++ "), "{}", stdout(&forced));
    assert!(!sb.user_settings().exists());
}

#[test]
fn with_a_server_needing_it_fix_applies_without_force() {
    let sb = Sandbox::new();
    sb.add_server_needing_fix();
    let out = sb.run(&["fix", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("The legacy fix helps: no-resulttype"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        fs::read_to_string(sb.user_settings()).unwrap(),
        LEGACY_FRESH
    );
}

#[test]
fn without_a_terminal_and_without_yes_fix_refuses_with_exit_2() {
    let sb = Sandbox::new();
    write_with_mode(&sb.user_settings(), b"{}", 0o600);
    for args in [&["fix", "--force"][..], &["fix", "--undo"][..]] {
        let out = sb.run(args);
        if args.contains(&"--undo") {
            // Nothing to undo yet: not a refusal.
            assert_eq!(out.status.code(), Some(0));
            continue;
        }
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr(&out).contains("not a terminal"), "{}", stderr(&out));
        assert!(stdout(&out).contains("+++ "), "the diff is shown first");
        assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), "{}");
    }
    // Undo refuses the same way once there is something to undo.
    assert!(sb.run(&["fix", "--force", "--yes"]).status.success());
    let out = sb.run(&["fix", "--undo"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        fs::read_to_string(sb.user_settings())
            .unwrap()
            .contains("legacy")
    );
}

#[test]
fn settings_flag_names_another_file() {
    let sb = Sandbox::new();
    let other = sb.dir.path().join("elsewhere/s.json");
    let p = other.to_str().unwrap();
    let out = sb.run(&["fix", "--settings", p, "--yes", "--force"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains(&format!("mcplogs fix --undo --settings {p}")));
    assert_eq!(fs::read_to_string(&other).unwrap(), LEGACY_FRESH);
    assert!(!sb.user_settings().exists());
    let out = sb.run(&["fix", "--undo", "--settings", p, "--yes"]);
    assert!(out.status.success());
    assert!(!other.exists());
}

#[test]
fn scan_advice_follows_the_settings_the_verdict_does_not() {
    let sb = Sandbox::new();
    sb.add_server_needing_fix();
    // The session ran in the sandbox's project: its records' cwd says so.
    for f in walkdir::WalkDir::new(sb.home.join(".cache")) {
        let f = f.unwrap().into_path();
        if f.is_file() {
            let text = fs::read_to_string(&f).unwrap().replace(
                &format!("{}/home-macos/work/web", sb.samples_gone()),
                &sb.project.display().to_string(),
            );
            fs::write(&f, text).unwrap();
        }
    }
    let scan = |sb: &Sandbox| {
        let out = sb.run(&["scan", "--json"]);
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let s = doc["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "no-resulttype")
            .unwrap()
            .clone();
        (out.status.code(), s)
    };
    // Nothing set: the fix goes into the user file.
    let (code, s) = scan(&sb);
    assert_eq!(code, Some(1));
    assert_eq!(s["verdict"], "tools-fetch-failed");
    assert_eq!(s["legacyFixApplies"], true);
    let r = s["recommendation"].as_str().unwrap();
    assert!(r.contains(&sb.user_settings().display().to_string()), "{r}");
    // The project says auto: the fix goes into its local file.
    let project_file = sb.project.join(".claude/settings.json");
    write_with_mode(
        &project_file,
        b"{\"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"auto\"}}",
        0o644,
    );
    let (_, s) = scan(&sb);
    assert_eq!(s["legacyFixApplies"], true);
    let r = s["recommendation"].as_str().unwrap();
    assert!(r.contains("settings.local.json"), "{r}");
    // `fix` plans each server's own project from any folder: no --project needed.
    assert!(r.contains("run `mcplogs fix`"), "{r}");
    // Legacy in effect now: same verdict, but the fix is in place.
    write_with_mode(
        &sb.project.join(".claude/settings.local.json"),
        LEGACY_FRESH.as_bytes(),
        0o644,
    );
    let (code, s) = scan(&sb);
    assert_eq!(code, Some(1), "the logs still show the failure");
    assert_eq!(s["verdict"], "tools-fetch-failed");
    assert_eq!(s["legacyFixApplies"], false);
    let r = s["recommendation"].as_str().unwrap();
    assert!(r.contains("The fix is in place"), "{r}");
    assert!(r.contains("mcplogs scan --since 10m"), "{r}");
    // A managed auto: the legacy setting cannot be written where it would win.
    fs::remove_file(sb.project.join(".claude/settings.local.json")).unwrap();
    write_with_mode(
        &sb.managed.join("managed-settings.json"),
        b"{\"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"auto\"}}",
        0o644,
    );
    // The sandbox passes its --managed-dir to report itself.
    let out = sb.run(&["report", "--json"]);
    let doc: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    let text = doc.to_string();
    assert!(text.contains("\"legacyFixApplies\":false"), "{text}");
}

#[test]
fn a_windows_configuration_starting_npx_directly_is_flagged() {
    let sb = Sandbox::new();
    // a Windows path in the arguments makes it a Windows configuration on any system
    fs::write(
        {
            fs::create_dir_all(sb.claude_dir()).unwrap();
            sb.claude_dir().join(".claude.json")
        },
        serde_json::json!({"mcpServers": {
            "files": {"command": "npx", "args": ["-y", "pkg", "C:\\Users\\me"]},
            "wrapped": {"command": "cmd", "args": ["/c", "npx", "-y", "pkg", "C:\\x"]},
            "plain": {"command": "npx", "args": ["-y", "pkg"]},
        }})
        .to_string(),
    )
    .unwrap();
    let out = sb
        .command(
            std::path::Path::new(env!("CARGO_BIN_EXE_mcplogs")),
            &["settings", "--json"],
        )
        .output()
        .unwrap();
    let j = json(&out);
    let warnings = |name: &str| -> Vec<String> {
        let s = j["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {j:#}"));
        s["configuration"]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .collect()
    };
    let files = warnings("files");
    assert!(
        files
            .iter()
            .any(|w| w.contains("cmd /c") && w.contains("\"command\": \"cmd\"")),
        "{files:?}"
    );
    assert!(warnings("wrapped").is_empty(), "{j:#}");
    // nothing says the configuration is for Windows, except running there
    assert_eq!(warnings("plain").is_empty(), !cfg!(windows), "{j:#}");
}
