//! `mcplogs fix` then `mcplogs fix --undo` on each kind of settings file, through the real
//! binary: exact bytes after the fix, permission bits of the file and of its backup, no
//! stray files, idempotence, and the exact original bytes and bits after undo.

use std::fs;

use crate::common::*;

const FILES_AFTER_FIX: [&str; 3] = [
    "settings.json",
    "settings.json.mcplogs-backup",
    "settings.json.mcplogs-undo.json",
];

/// Fix (with --yes --force), check bytes and bits, fix again (nothing written), undo.
fn fix_then_undo(original: Option<&str>, bits: u32, expected: &str) -> Sandbox {
    let sb = Sandbox::new();
    let path = sb.user_settings();
    if let Some(o) = original {
        write_with_mode(&path, o.as_bytes(), bits);
    }

    let out = sb.run(&["fix", "--yes", "--force"]);
    assert!(out.status.success(), "fix failed: {}", stderr(&out));
    assert_eq!(fs::read_to_string(&path).unwrap(), expected);
    let parsed: serde_json::Value =
        serde_json::from_str(expected.trim_start_matches('\u{feff}')).unwrap();
    assert_eq!(parsed["env"]["MCP_PROTOCOL_NEGOTIATION"], "legacy");
    let dir = sb.claude_dir();
    match original {
        Some(o) => {
            assert_eq!(mode(&path), bits, "file mode changed");
            let backup = dir.join("settings.json.mcplogs-backup");
            assert_eq!(fs::read_to_string(&backup).unwrap(), o);
            // private: the owner's read and write bits of the file at most
            assert_eq!(mode(&backup), bits & 0o600, "backup mode");
            assert_eq!(names_in(&dir), FILES_AFTER_FIX);
        }
        None => {
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(&dir), 0o700);
            assert_eq!(
                names_in(&dir),
                ["settings.json", "settings.json.mcplogs-undo.json"]
            );
        }
    }
    assert_eq!(mode(&dir.join("settings.json.mcplogs-undo.json")), 0o600);

    // Idempotent: a second fix writes nothing.
    let again = sb.run(&["fix", "--yes", "--force"]);
    assert!(again.status.success());
    assert!(
        stderr(&again).contains("already sets"),
        "{}",
        stderr(&again)
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), expected);

    let undo = sb.run(&["fix", "--undo", "--yes"]);
    assert!(undo.status.success(), "undo failed: {}", stderr(&undo));
    match original {
        Some(o) => {
            assert_eq!(fs::read_to_string(&path).unwrap(), o);
            assert_eq!(mode(&path), bits);
            assert!(stderr(&undo).contains("restoring the backup"));
        }
        None => {
            assert!(!path.exists(), "undo of a created file removes it");
            assert!(stderr(&undo).contains("removing the file"));
        }
    }
    assert!(!dir.join("settings.json.mcplogs-undo.json").exists());
    // A second undo has nothing left to do.
    let again = sb.run(&["fix", "--undo", "--yes"]);
    assert!(again.status.success());
    assert!(stderr(&again).contains("No mcplogs fix"));
    sb
}

#[test]
fn no_file_is_created_0600_in_a_new_0700_folder() {
    fix_then_undo(None, 0, LEGACY_FRESH);
}

#[test]
fn empty_file() {
    fix_then_undo(Some(""), 0o644, LEGACY_FRESH);
}

#[test]
fn empty_object() {
    fix_then_undo(Some("{}\n"), 0o600, LEGACY_FRESH);
}

#[test]
fn no_env_block() {
    fix_then_undo(
        Some(
            "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\"Bash(ls)\"]\n  }\n}\n",
        ),
        0o600,
        "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n  },\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\"Bash(ls)\"]\n  }\n}\n",
    );
}

#[test]
fn env_with_other_keys_and_masked_secrets() {
    let sb = fix_then_undo(
        Some(
            "{\n  \"model\": \"opus\",\n  \"env\": {\n    \"ANTHROPIC_API_KEY\": \"sk-ant-secret\",\n    \"DEBUG\": \"1\"\n  }\n}\n",
        ),
        0o600,
        "{\n  \"model\": \"opus\",\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n    \"ANTHROPIC_API_KEY\": \"sk-ant-secret\",\n    \"DEBUG\": \"1\"\n  }\n}\n",
    );
    // The diffs (fix and undo) never show the key.
    let path = sb.user_settings();
    let out = sb.run(&["fix", "--force", "--dry-run"]);
    let diff = stdout(&out);
    assert!(
        diff.contains("\"ANTHROPIC_API_KEY\": \"********\""),
        "{diff}"
    );
    assert!(!diff.contains("sk-ant-secret"));
    assert!(diff.contains("+    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n"));
    assert_eq!(
        diff.lines()
            .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
            .count(),
        1
    );
    assert!(
        !fs::read_to_string(path).unwrap().contains("legacy"),
        "dry run wrote"
    );
}

#[test]
fn already_legacy_writes_nothing() {
    let sb = Sandbox::new();
    let path = sb.user_settings();
    let text = "{\"env\":{\"MCP_PROTOCOL_NEGOTIATION\":\"legacy\"}}";
    write_with_mode(&path, text.as_bytes(), 0o640);
    let out = sb.run(&["fix", "--yes", "--force"]);
    assert!(out.status.success());
    assert!(stderr(&out).contains("already sets env.MCP_PROTOCOL_NEGOTIATION to \"legacy\""));
    assert_eq!(stdout(&out), "", "no diff for nothing");
    assert_eq!(fs::read_to_string(&path).unwrap(), text);
    assert_eq!(mode(&path), 0o640);
    assert_eq!(names_in(&sb.claude_dir()), ["settings.json"]);
}

#[test]
fn auto_becomes_legacy() {
    fix_then_undo(
        Some("{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"auto\"\n  }\n}\n"),
        0o600,
        LEGACY_FRESH,
    );
}

#[test]
fn four_space_indentation() {
    fix_then_undo(
        Some("{\n    \"model\": \"opus\"\n}\n"),
        0o644,
        "{\n    \"env\": {\n        \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n    },\n    \"model\": \"opus\"\n}\n",
    );
}

#[test]
fn tab_indentation() {
    fix_then_undo(
        Some("{\n\t\"env\": {\n\t\t\"A\": \"1\"\n\t}\n}\n"),
        0o600,
        "{\n\t\"env\": {\n\t\t\"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n\t\t\"A\": \"1\"\n\t}\n}\n",
    );
}

#[test]
fn crlf_line_endings() {
    fix_then_undo(
        Some("{\r\n  \"model\": \"opus\"\r\n}\r\n"),
        0o600,
        "{\r\n  \"env\": {\r\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\r\n  },\r\n  \"model\": \"opus\"\r\n}\r\n",
    );
}

#[test]
fn no_final_newline_stays_without_one() {
    fix_then_undo(
        Some("{\n  \"env\": {}\n}"),
        0o600,
        "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n  }\n}",
    );
}

#[test]
fn utf8_bom_is_kept() {
    fix_then_undo(
        Some("\u{feff}{\n  \"a\": 1\n}\n"),
        0o600,
        "\u{feff}{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n  },\n  \"a\": 1\n}\n",
    );
}

#[test]
fn non_ascii_values_and_keys() {
    fix_then_undo(
        Some(
            "{\n  \"env\": {\n    \"GREETING\": \"héllo wörld ✓ 日本語\"\n  },\n  \"名前\": \"値\"\n}\n",
        ),
        0o600,
        "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n    \"GREETING\": \"héllo wörld ✓ 日本語\"\n  },\n  \"名前\": \"値\"\n}\n",
    );
}

const WITH_COMMENTS: &str = "{\n  // my settings\n  \"model\": \"opus\",\n  \"env\": {\n    \"DEBUG\": \"1\", // trailing\n  },\n}\n";

#[test]
fn comments_are_refused_then_rewritten_strict_and_undone() {
    let sb = Sandbox::new();
    let path = sb.user_settings();
    write_with_mode(&path, WITH_COMMENTS.as_bytes(), 0o640);

    let refused = sb.run(&["fix", "--yes", "--force"]);
    assert_eq!(refused.status.code(), Some(2));
    let msg = stderr(&refused);
    assert!(msg.contains("not strict JSON (line 2, column 3"), "{msg}");
    assert!(msg.contains("Claude Code ignores the whole file"), "{msg}");
    assert!(msg.contains("env keys are not in effect: DEBUG"), "{msg}");
    assert!(msg.contains("--rewrite-strict"), "{msg}");
    assert_eq!(fs::read_to_string(&path).unwrap(), WITH_COMMENTS);
    assert_eq!(names_in(&sb.claude_dir()), ["settings.json"]);

    let out = sb.run(&["fix", "--yes", "--force", "--rewrite-strict"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("-  // my settings\n"),
        "diff shows the dropped comment"
    );
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "{\n  \"model\": \"opus\",\n  \"env\": {\n    \"DEBUG\": \"1\",\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n  }\n}\n"
    );
    assert_eq!(mode(&path), 0o640);
    let backup = sb.claude_dir().join("settings.json.mcplogs-backup");
    assert_eq!(fs::read_to_string(&backup).unwrap(), WITH_COMMENTS);
    assert_eq!(mode(&backup), 0o600, "private");

    let undo = sb.run(&["fix", "--undo", "--yes"]);
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert_eq!(fs::read_to_string(&path).unwrap(), WITH_COMMENTS);
    assert_eq!(mode(&path), 0o640);
}

#[test]
fn invalid_json_is_refused_and_untouched() {
    let sb = Sandbox::new();
    let path = sb.user_settings();
    let broken = "{\n  \"a\": 1\n  \"b\": \n";
    write_with_mode(&path, broken.as_bytes(), 0o600);
    for extra in [None, Some("--rewrite-strict")] {
        let mut args = vec!["fix", "--yes", "--force"];
        args.extend(extra);
        let out = sb.run(&args);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).contains("is not valid JSON or JSON5"),
            "{}",
            stderr(&out)
        );
        assert!(stderr(&out).contains("line 3"), "{}", stderr(&out));
        assert_eq!(fs::read_to_string(&path).unwrap(), broken);
        assert_eq!(mode(&path), 0o600);
        assert_eq!(names_in(&sb.claude_dir()), ["settings.json"]);
    }
}

#[test]
fn symlinked_file_writes_the_target_and_keeps_the_link() {
    let sb = Sandbox::new();
    let dotfiles = sb.home.join("dotfiles");
    let target = dotfiles.join("claude-settings.json");
    let original = "{\n  \"model\": \"opus\"\n}\n";
    write_with_mode(&target, original.as_bytes(), 0o600);
    fs::create_dir_all(sb.claude_dir()).unwrap();
    let link = sb.user_settings();
    std::os::unix::fs::symlink("../dotfiles/claude-settings.json", &link).unwrap();

    let out = sb.run(&["fix", "--yes", "--force"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        fs::read_link(&link).unwrap(),
        std::path::Path::new("../dotfiles/claude-settings.json")
    );
    assert_eq!(
        fs::read_to_string(&target).unwrap(),
        "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n  },\n  \"model\": \"opus\"\n}\n"
    );
    assert_eq!(mode(&target), 0o600);
    assert_eq!(
        names_in(&dotfiles),
        ["claude-settings.json"],
        "no temp file left"
    );
    assert_eq!(names_in(&sb.claude_dir()), FILES_AFTER_FIX);

    let undo = sb.run(&["fix", "--undo", "--yes"]);
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), original);
    assert_eq!(mode(&target), 0o600);
}

/// Root ignores permission bits, so as root the binary runs as `nobody` for this test.
#[test]
fn read_only_folder_is_a_clear_error_and_the_file_is_untouched() {
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::process::CommandExt;

    let sb = Sandbox::new();
    let path = sb.user_settings();
    let original = "{\n  \"model\": \"opus\"\n}\n";
    write_with_mode(&path, original.as_bytes(), 0o600);
    let bin = sb.dir.path().join("mcplogs");
    fs::copy(env!("CARGO_BIN_EXE_mcplogs"), &bin).unwrap();
    let as_root = fs::metadata(&path).unwrap().uid() == 0;
    if as_root {
        for e in walkdir::WalkDir::new(sb.dir.path()) {
            let e = e.unwrap();
            std::os::unix::fs::lchown(e.path(), Some(65534), Some(65534)).unwrap();
        }
    }
    set_mode(&sb.claude_dir(), 0o555);

    let mut cmd = sb.command(&bin, &["fix", "--yes", "--force"]);
    if as_root {
        cmd.uid(65534).gid(65534);
    }
    // The copy was written by this process: a test thread forking meanwhile holds it
    // open for writing until its exec, and running it fails with ETXTBSY until then.
    let out = (0..100)
        .find_map(|_| match cmd.stdin(std::process::Stdio::null()).output() {
            Err(e) if e.raw_os_error() == Some(26) => {
                std::thread::sleep(std::time::Duration::from_millis(20));
                None
            }
            r => Some(r.unwrap()),
        })
        .expect("the copied binary stayed busy");
    set_mode(&sb.claude_dir(), 0o755);

    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let msg = stderr(&out);
    assert!(msg.contains("Permission denied"), "{msg}");
    assert!(msg.contains("the settings file was not changed"), "{msg}");
    assert_eq!(fs::read_to_string(&path).unwrap(), original);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(names_in(&sb.claude_dir()), ["settings.json"]);
}

/// A file the fix created, changed by the user since: `--undo --force` never calls it
/// unchanged, even when putting the key back leaves it empty and it goes.
#[test]
fn forced_undo_of_a_created_file_changed_since_says_it_was_changed() {
    let sb = Sandbox::new();
    sb.add_server_needing_fix();
    let out = sb.run(&["fix", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let path = sb.user_settings();
    fs::write(
        &path,
        "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"auto\"\n  }\n}\n",
    )
    .unwrap();
    let out = sb.run(&[
        "fix",
        "--undo",
        "--force",
        "--yes",
        "--settings",
        path.to_str().unwrap(),
    ]);
    let msg = stderr(&out);
    assert!(out.status.success(), "{msg}");
    assert!(!msg.contains("Unchanged since"), "{msg}");
    assert!(
        msg.contains("Changed since mcplogs' fix, which created it"),
        "{msg}"
    );
    assert!(!path.exists());
}
