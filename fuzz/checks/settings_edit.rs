//! The settings editor on arbitrary file contents, through the real files: `fix` either
//! refuses, leaving the file, and no backup or undo record, behind; or writes strict
//! JSON (serde_json parses it) holding every original key and value plus
//! env.MCP_PROTOCOL_NEGOTIATION = "legacy". `fix --undo` then gives back the original
//! bytes. A JSON5 file refused as not strict goes again with `--rewrite-strict`.
//!
//! Shared by the fuzz target (fuzz/fuzz_targets/settings_edit.rs) and the corpus replay in
//! the test suite (tests/cli/fuzz_corpus.rs): `check` panics on a broken invariant.

use std::fs;
use std::path::PathBuf;
use std::sync::LazyLock;

use mcplogs::settings::SettingsError;
use mcplogs::settings::edit::restore_key;
use mcplogs::settings::fix::{FixKind, FixOptions, FixPlan, apply_fix, plan_fix};
use mcplogs::settings::strictness::{self, Strictness};
use mcplogs::settings::undo::{UndoPlan, apply_undo, backup_path, plan_undo, state_path};
use serde_json::{Map, Value};

const KEY: &str = "MCP_PROTOCOL_NEGOTIATION";

/// One folder per fuzzing process, reused by every run (tmpfs when there is one).
pub static DIR: LazyLock<PathBuf> = LazyLock::new(|| {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let d = base.join(format!("mcplogs-fuzz-settings-{}", std::process::id()));
    fs::create_dir_all(&d).unwrap();
    d
});

pub fn check(data: &[u8]) {
    let path = DIR.join("settings.json");
    for p in [&path, &backup_path(&path), &state_path(&path)] {
        let _ = fs::remove_file(p);
    }
    fs::write(&path, data).unwrap();

    let original_object = match std::str::from_utf8(data) {
        Ok(t) => Some(strictness::check(t)),
        Err(_) => None,
    };
    match plan_fix(&path, FixOptions::default()) {
        Err(SettingsError::NotStrict { .. }) => {
            assert_untouched(&path, data);
            let Some(Strictness::NonStrict { object, .. }) = original_object else {
                panic!("NotStrict for a file strictness::check does not call JSON5")
            };
            match plan_fix(
                &path,
                FixOptions {
                    rewrite_strict: true,
                },
            ) {
                Ok(FixPlan::Pending(p)) => round_trip(&path, data, &object, p),
                Ok(FixPlan::AlreadyLegacy { .. }) => panic!("JSON5 file called already legacy"),
                Err(e) => {
                    assert!(
                        !e.to_string().contains("please report"),
                        "rewrite failed its verification: {e}"
                    );
                    assert_untouched(&path, data)
                }
            }
        }
        Err(e) => {
            // Refusing is allowed; an edit that failed its own check is a bug to look at.
            assert!(
                !e.to_string().contains("please report"),
                "edit failed its verification: {e}"
            );
            assert_untouched(&path, data)
        }
        Ok(FixPlan::AlreadyLegacy { .. }) => {
            assert_untouched(&path, data);
            let Some(Strictness::Strict(object)) = original_object else {
                panic!("already legacy but not strict")
            };
            assert_eq!(object["env"][KEY], "legacy");
        }
        Ok(FixPlan::Pending(p)) => {
            let object = match original_object {
                Some(Strictness::Strict(o)) => o,
                None if data.is_empty() => Map::new(),
                other => panic!("a fix planned for a file that is not strict JSON: {other:?}"),
            };
            round_trip(&path, data, &object, p)
        }
    }
}

fn assert_untouched(path: &PathBuf, data: &[u8]) {
    assert_eq!(
        fs::read(path).unwrap(),
        data,
        "refused, yet the file changed"
    );
    assert!(
        !backup_path(path).exists(),
        "refused, yet a backup was written"
    );
    assert!(
        !state_path(path).exists(),
        "refused, yet an undo record was written"
    );
}

fn round_trip(
    path: &PathBuf,
    data: &[u8],
    object: &Map<String, Value>,
    p: mcplogs::settings::fix::PendingFix,
) {
    // Strict JSON (a UTF-8 BOM, which Claude Code tolerates, aside).
    let text = std::str::from_utf8(&p.new_bytes).expect("fix writes UTF-8");
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Value::Object(new) = serde_json::from_str::<Value>(body).expect("fix writes strict JSON")
    else {
        panic!("fix wrote something other than an object")
    };
    // Every original key and value, in order, plus the one key.
    let mut expected = object.clone();
    let env = expected
        .entry("env")
        .or_insert_with(|| Value::Object(Map::new()));
    env.as_object_mut()
        .expect("a fix was planned, so env is an object")
        .insert(KEY.into(), Value::from("legacy"));
    assert_eq!(new, expected, "the fix changed something else");
    assert!(
        new.keys()
            .filter(|k| object.contains_key(*k))
            .eq(object.keys()),
        "the fix reordered keys"
    );

    apply_fix(&p).expect("apply");
    assert_eq!(fs::read(path).unwrap(), p.new_bytes);
    assert_eq!(fs::read(backup_path(path)).unwrap(), data, "backup differs");
    if p.kind == FixKind::Edit {
        // Key-only undo (the file changed since the fix) gives the same object back.
        let back = restore_key(text, p.previous.as_ref(), p.env_existed).expect("restore_key");
        let back = back.strip_prefix('\u{feff}').unwrap_or(&back);
        let back: Map<String, Value> = if back.trim().is_empty() {
            Map::new()
        } else {
            serde_json::from_str(back).expect("restore_key writes strict JSON")
        };
        assert_eq!(&back, object, "restore_key did not give the object back");
        assert!(back.keys().eq(object.keys()), "restore_key reordered keys");
    }
    // Fixing again is a no-op.
    assert!(matches!(
        plan_fix(path, FixOptions::default()),
        Ok(FixPlan::AlreadyLegacy { .. })
    ));
    let UndoPlan::Pending(u) = plan_undo(path, false).expect("plan undo") else {
        panic!("nothing to undo after a fix")
    };
    apply_undo(&u).expect("apply undo");
    assert_eq!(
        fs::read(path).unwrap(),
        data,
        "undo did not give the original bytes back"
    );
    assert!(!state_path(path).exists());
}
