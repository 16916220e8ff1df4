//! Damaged copies of the real sample logs: the damaged part is skipped and counted, one
//! warning per file goes to stderr and into `warnings`, and every verdict still comes out.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::*;

/// A copy of the Linux sample home, plus the newest log of `server` in it.
fn home_copy(tmp: &Path, server: &str) -> (PathBuf, PathBuf) {
    let home = tmp.join("home");
    copy_tree(&samples().join("linux-home"), &home);
    let dir = walkdir::WalkDir::new(&home)
        .into_iter()
        .map(|e| e.unwrap())
        .find(|e| e.file_name().to_str() == Some(&format!("mcp-logs-{server}")))
        .unwrap_or_else(|| panic!("sample home has mcp-logs-{server}"))
        .into_path();
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    (home, files.pop().expect("a log file"))
}

fn scan_home(tmp: &Path, home: &Path) -> (Run, serde_json::Value) {
    run_json(
        mcplogs(tmp)
            .arg("scan")
            .arg("--json")
            .arg("--home")
            .arg(home),
    )
}

/// Reads every file (`--all`): warnings then cover old files too, which the default
/// newest-first scan does not open once the verdicts are decided.
fn scan_home_all(tmp: &Path, home: &Path) -> (Run, serde_json::Value) {
    run_json(
        mcplogs(tmp)
            .args(["scan", "--all", "--json", "--home"])
            .arg(home),
    )
}

fn verdict_of(doc: &serde_json::Value, name: &str) -> (String, String) {
    let s = server(doc, name);
    (
        s["verdict"].as_str().unwrap().to_string(),
        s["cause"].as_str().unwrap_or("").to_string(),
    )
}

fn warnings_for(doc: &serde_json::Value, file: &Path) -> Vec<String> {
    doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["file"] == file.display().to_string())
        .map(|w| w["message"].as_str().unwrap().to_string())
        .collect()
}

const WRONG: (&str, &str) = ("tools-fetch-failed", "wrong-field-types");

fn expect(doc: &serde_json::Value) {
    let (v, c) = verdict_of(doc, "wrong-types");
    assert_eq!((v.as_str(), c.as_str()), WRONG, "{doc:#}");
}

#[test]
fn crlf_and_bom_are_accepted_silently() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, file) = home_copy(tmp.path(), "wrong-types");
    let text = fs::read_to_string(&file).unwrap();
    let mut damaged = b"\xEF\xBB\xBF".to_vec();
    damaged.extend(text.replace('\n', "\r\n").into_bytes());
    fs::write(&file, damaged).unwrap();
    let (run, doc) = scan_home(tmp.path(), &home);
    expect(&doc);
    assert!(warnings_for(&doc, &file).is_empty(), "{}", run.stderr);
    assert_eq!(run.code, 1);
}

#[test]
fn truncated_last_line_is_skipped_and_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, file) = home_copy(tmp.path(), "wrong-types");
    let text = fs::read_to_string(&file).unwrap();
    let last = text.lines().last().unwrap();
    // A crash mid-write: half of the last record, no newline.
    let cut = format!("{text}{}", &last[..last.len() / 2]);
    fs::write(&file, cut).unwrap();
    let (run, doc) = scan_home(tmp.path(), &home);
    expect(&doc);
    let w = warnings_for(&doc, &file);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("a truncated last record"), "{w:?}");
    assert!(
        run.stderr.contains(&format!(
            "mcplogs: warning: {}: skipped 1 of",
            shown(&file, tmp.path())
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn binary_junk_lines_are_skipped_and_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, file) = home_copy(tmp.path(), "wrong-types");
    let text = fs::read(&file).unwrap();
    let first_nl = text.iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut damaged = text[..first_nl].to_vec();
    damaged.extend_from_slice(b"\x00\x01\x02garbage\xff{not json\n");
    damaged.extend_from_slice(b"[1,2,3]\n");
    damaged.extend_from_slice(&text[first_nl..]);
    fs::write(&file, damaged).unwrap();
    let (_, doc) = scan_home(tmp.path(), &home);
    expect(&doc);
    let w = warnings_for(&doc, &file);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("1 not valid JSON"), "{w:?}");
    assert!(w[0].contains("1 JSON but not a log record"), "{w:?}");
}

#[test]
fn invalid_utf8_inside_a_record_keeps_the_record() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, file) = home_copy(tmp.path(), "wrong-types");
    let text = fs::read(&file).unwrap();
    // Put a bad byte inside the final error message's JSON string.
    let needle = b"Failed to fetch tools";
    let at = text
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("final error record");
    let mut damaged = text[..at].to_vec();
    damaged.extend_from_slice(b"\xff\xfe");
    damaged.extend_from_slice(&text[at..]);
    fs::write(&file, damaged).unwrap();
    let (_, doc) = scan_home(tmp.path(), &home);
    expect(&doc);
    let w = warnings_for(&doc, &file);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("invalid UTF-8"), "{w:?}");
    let evidence = server(&doc, "wrong-types")["evidence"].to_string();
    assert!(
        evidence.contains("\u{fffd}\u{fffd}Failed to fetch tools"),
        "{evidence}"
    );
}

#[test]
fn empty_and_binary_files_in_a_log_folder_get_one_warning_each() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, file) = home_copy(tmp.path(), "wrong-types");
    let dir = file.parent().unwrap();
    let empty = dir.join("2000-01-01T00-00-00-000Z.jsonl");
    let binary = dir.join("2000-01-01T00-00-01-000Z.jsonl");
    fs::write(&empty, b"").unwrap();
    fs::write(&binary, b"\x7fELF\x02\x01\x01\x00\x00\x00junk\x00\x00").unwrap();
    // The default scan stops before these old files: no warning about them.
    let (_, doc) = scan_home(tmp.path(), &home);
    expect(&doc);
    assert!(warnings_for(&doc, &empty).is_empty());
    let (run, doc) = scan_home_all(tmp.path(), &home);
    expect(&doc);
    assert_eq!(warnings_for(&doc, &empty), vec!["empty file, no records"]);
    assert_eq!(
        warnings_for(&doc, &binary),
        vec!["not a Claude Code log (binary or unknown content), skipped"]
    );
    assert_eq!(
        run.stderr.lines().count(),
        doc["warnings"].as_array().unwrap().len(),
        "one stderr line per warning: {}",
        run.stderr
    );
}

#[test]
fn many_damaged_servers_still_all_get_verdicts() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, _) = home_copy(tmp.path(), "wrong-types");
    let (_, clean_doc) = scan_home(tmp.path(), &home);
    // Damage the newest log of every server in a different way.
    let mut damaged = 0;
    for entry in walkdir::WalkDir::new(&home) {
        let entry = entry.unwrap();
        if !entry.file_type().is_file() || entry.path().extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let mut bytes = fs::read(entry.path()).unwrap();
        match damaged % 3 {
            0 => bytes.extend_from_slice(b"{\"debug\":\"cut"),
            1 => {
                bytes.splice(0..0, b"\x00\x00junk\n".iter().copied());
            }
            _ => {
                bytes = String::from_utf8(bytes)
                    .unwrap()
                    .replace('\n', "\r\n")
                    .into_bytes()
            }
        }
        fs::write(entry.path(), bytes).unwrap();
        damaged += 1;
    }
    assert!(damaged > 5);
    let (run, doc) = scan_home_all(tmp.path(), &home);
    assert_eq!(run.code, 1);
    let before = clean_doc["servers"].as_array().unwrap();
    let after = doc["servers"].as_array().unwrap();
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(after) {
        assert_eq!(b["name"], a["name"]);
        assert_eq!(b["verdict"], a["verdict"], "{}", a["name"]);
        assert_eq!(b["cause"], a["cause"], "{}", a["name"]);
    }
    // Every file damaged in a visible way (not CRLF) has exactly one warning.
    let warned = doc["warnings"].as_array().unwrap().len();
    assert_eq!(warned, damaged - damaged / 3, "{:#}", doc["warnings"]);
}

#[test]
fn a_named_path_that_does_not_exist_is_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nope");
    let run = run(mcplogs(tmp.path()).arg("scan").arg(&missing));
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr.trim(),
        format!(
            "mcplogs: error: {}: No such file or directory (os error 2)",
            shown(&missing, tmp.path())
        )
    );
    assert!(run.stdout.is_empty());
}

/// Issue 51 item 9: `scan NAME` takes a server's name as `probe NAME` does, when NAME is
/// no file or folder but names a logged (or configured) server: the same JSON as
/// `--server NAME`. A word that names neither is a usage error naming both readings; a
/// path-like NAME stays a path.
#[test]
fn scan_name_takes_a_server_name_when_it_is_no_path() {
    let tmp = tempfile::tempdir().unwrap();
    let home = samples().join("linux-home");
    let home = home.to_str().unwrap();
    let json = |args: &[&str]| {
        let r = run(mcplogs(tmp.path())
            .args(["scan", "--json", "--home", home])
            .args(args));
        let v: serde_json::Value = serde_json::from_str(&r.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", r.stderr));
        (r.code, v["servers"].clone(), r.stderr)
    };
    let (code, by_name, stderr) = json(&["bad-tool"]);
    let (flag_code, by_flag, _) = json(&["--server", "bad-tool"]);
    assert_eq!(code, flag_code);
    assert_eq!(by_name, by_flag);
    assert_eq!(by_name.as_array().unwrap().len(), 1, "{by_name}");
    assert_eq!(by_name[0]["name"], "bad-tool");
    assert!(
        stderr.contains("scanning the server of that name"),
        "{stderr}"
    );

    let r = run(mcplogs(tmp.path()).args(["scan", "--home", home, "no-such-server"]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no such file or folder"), "{}", r.stderr);
    assert!(r.stderr.contains("--server NAME"), "{}", r.stderr);
    assert!(!r.stderr.contains("os error"), "{}", r.stderr);
    assert!(!r.stderr.contains("Did you mean"), "{}", r.stderr);
    // a name a letter away from a logged server's is given back, as `--server` gives
    // it (helper-75: `scan NAME` said no "did you mean")
    let r = run(mcplogs(tmp.path()).args(["scan", "--home", home, "bad-tol"]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.trim_end().ends_with("Did you mean `bad-tool`?"),
        "{}",
        r.stderr
    );

    // A path-like name is a path: discovery's own error.
    let r = run(mcplogs(tmp.path()).args(["scan", "--home", home, "./bad-tool"]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!r.stderr.contains("scanning the server"), "{}", r.stderr);
}
