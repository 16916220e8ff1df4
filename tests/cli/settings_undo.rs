//! Undo when the file changed since the fix (Claude Code rewrites it on its own): only
//! the key goes back. And a file modified between mcplogs' read and write: nothing written.

use std::fs;

use crate::common::*;
use mcplogs::settings::SettingsError;
use mcplogs::settings::fix::{FixOptions, FixPlan, apply_fix, plan_fix};
use mcplogs::settings::undo::{UndoHow, UndoPlan, apply_undo, plan_undo};

fn fixed(sb: &Sandbox, original: Option<&str>) {
    if let Some(o) = original {
        write_with_mode(&sb.user_settings(), o.as_bytes(), 0o600);
    }
    let out = sb.run(&["fix", "--yes", "--force"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

fn undo_ok(sb: &Sandbox, extra: &[&str]) -> String {
    let mut args = vec!["fix", "--undo", "--yes"];
    args.extend(extra);
    let out = sb.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    stderr(&out)
}

#[test]
fn after_an_edit_fix_claude_code_rewrote_the_file_only_env_goes() {
    let sb = Sandbox::new();
    fixed(&sb, Some("{\n    \"model\": \"opus\"\n}\n"));
    // What Claude Code 2.1.288 did: migrated the model, env first, 2-space indent.
    let rewritten = "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n  },\n  \"model\": \"opus[1m]\"\n}\n";
    write_with_mode(&sb.user_settings(), rewritten.as_bytes(), 0o600);
    let msg = undo_ok(&sb, &[]);
    assert!(msg.contains("putting back only the key"), "{msg}");
    assert_eq!(
        fs::read_to_string(sb.user_settings()).unwrap(),
        "{\n  \"model\": \"opus[1m]\"\n}\n"
    );
    assert_eq!(mode(&sb.user_settings()), 0o600);
}

#[test]
fn after_auto_to_legacy_a_changed_file_gets_auto_back_and_keeps_the_change() {
    let sb = Sandbox::new();
    fixed(
        &sb,
        Some("{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"auto\"\n  }\n}\n"),
    );
    let changed = "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n    \"NEW\": \"x\"\n  }\n}\n";
    write_with_mode(&sb.user_settings(), changed.as_bytes(), 0o600);
    undo_ok(&sb, &[]);
    assert_eq!(
        fs::read_to_string(sb.user_settings()).unwrap(),
        "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"auto\",\n    \"NEW\": \"x\"\n  }\n}\n"
    );
}

#[test]
fn after_a_create_fix_a_changed_file_loses_only_env() {
    let sb = Sandbox::new();
    fixed(&sb, None);
    let changed = "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n  },\n  \"theme\": \"dark\"\n}\n";
    write_with_mode(&sb.user_settings(), changed.as_bytes(), 0o644);
    undo_ok(&sb, &[]);
    assert_eq!(
        fs::read_to_string(sb.user_settings()).unwrap(),
        "{\n  \"theme\": \"dark\"\n}\n"
    );
    assert_eq!(mode(&sb.user_settings()), 0o644);
}

#[test]
fn after_a_rewrite_strict_fix_a_changed_file_loses_only_the_key() {
    let sb = Sandbox::new();
    write_with_mode(
        &sb.user_settings(),
        b"{\n  // c\n  \"env\": {\"A\": \"1\",},\n}\n",
        0o600,
    );
    let out = sb.run(&["fix", "--yes", "--force", "--rewrite-strict"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let now = fs::read_to_string(sb.user_settings()).unwrap();
    let changed = now.replace("\"A\": \"1\"", "\"A\": \"2\"");
    assert_ne!(now, changed);
    fs::write(sb.user_settings(), &changed).unwrap();
    undo_ok(&sb, &[]);
    assert_eq!(
        fs::read_to_string(sb.user_settings()).unwrap(),
        "{\n  \"env\": {\n    \"A\": \"2\"\n  }\n}\n"
    );
}

#[test]
fn a_key_the_user_changed_since_is_left_alone_unless_forced() {
    let sb = Sandbox::new();
    fixed(
        &sb,
        Some("{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"auto\"\n  }\n}\n"),
    );
    let mine =
        "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"bogus\",\n    \"B\": \"1\"\n  }\n}\n";
    fs::write(sb.user_settings(), mine).unwrap();
    let out = sb.run(&["fix", "--undo", "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("is now \"bogus\""),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), mine);

    undo_ok(&sb, &["--force"]);
    assert_eq!(
        fs::read_to_string(sb.user_settings()).unwrap(),
        "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"auto\",\n    \"B\": \"1\"\n  }\n}\n"
    );
}

#[test]
fn file_modified_between_read_and_write_is_not_written() {
    let sb = Sandbox::new();
    let path = sb.user_settings();
    write_with_mode(&path, b"{\n  \"model\": \"opus\"\n}\n", 0o600);
    let FixPlan::Pending(pending) = plan_fix(&path, FixOptions::default()).unwrap() else {
        panic!("expected a pending fix")
    };
    let theirs = "{\n  \"model\": \"opus[1m]\"\n}\n";
    fs::write(&path, theirs).unwrap();
    let err = apply_fix(&pending).unwrap_err();
    assert!(
        matches!(err, SettingsError::ChangedSinceRead { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("nothing was written"));
    assert_eq!(fs::read_to_string(&path).unwrap(), theirs);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(
        names_in(&sb.claude_dir()),
        ["settings.json"],
        "no backup, no state"
    );
}

#[test]
fn file_modified_between_undo_plan_and_write_is_not_written() {
    let sb = Sandbox::new();
    fixed(&sb, Some("{\"a\": 1}"));
    let path = sb.user_settings();
    let UndoPlan::Pending(pending) = plan_undo(&path, false).unwrap() else {
        panic!("expected a pending undo")
    };
    assert_eq!(pending.how, UndoHow::RestoreBackup);
    let theirs = "{\"a\": 2}";
    fs::write(&path, theirs).unwrap();
    assert!(matches!(
        apply_undo(&pending).unwrap_err(),
        SettingsError::ChangedSinceRead { .. }
    ));
    assert_eq!(fs::read_to_string(&path).unwrap(), theirs);
    assert!(
        sb.claude_dir()
            .join("settings.json.mcplogs-undo.json")
            .exists()
    );
}

/// The record keeps the key's previous value as literal text, so a long one (4 KB
/// here) makes a record of several KB: still read back (its cap is a megabyte).
#[test]
fn a_long_previous_value_comes_back() {
    let sb = Sandbox::new();
    let original = format!(
        "{{\n  \"env\": {{\n    \"MCP_PROTOCOL_NEGOTIATION\": \"{}\"\n  }}\n}}\n",
        "x".repeat(4096)
    );
    fixed(&sb, Some(&original));
    let record = sb.claude_dir().join("settings.json.mcplogs-undo.json");
    assert!(fs::metadata(&record).unwrap().len() > 4096);
    undo_ok(&sb, &[]);
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), original);
    assert!(!record.exists());
}

/// The user took the key out by hand since the fix: a forced undo has nothing to put
/// back, so the file is not rewritten (same inode, same bytes); the fix is forgotten.
#[test]
fn a_forced_undo_with_nothing_to_change_does_not_rewrite_the_file() {
    use std::os::unix::fs::MetadataExt;
    let sb = Sandbox::new();
    let original = "{\n  \"model\": \"opus\"\n}\n";
    fixed(&sb, Some(original));
    write_with_mode(&sb.user_settings(), original.as_bytes(), 0o600);
    let inode = fs::metadata(sb.user_settings()).unwrap().ino();
    let msg = undo_ok(&sb, &["--force"]);
    assert!(msg.contains("already as it was before"), "{msg}");
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), original);
    assert_eq!(fs::metadata(sb.user_settings()).unwrap().ino(), inode);
    assert!(
        !sb.claude_dir()
            .join("settings.json.mcplogs-undo.json")
            .exists()
    );
}
