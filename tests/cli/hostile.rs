//! Hostile files in a log tree: each ends in a warning, never a crash or a hang; and
//! terminal safety: escape sequences from logs never reach the terminal raw.

use std::fs;
use std::io::Write;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::Value;

/// A copy of the macOS sample home and the folder of one server in it.
fn home_with(tmp: &Path, server: &str) -> (PathBuf, PathBuf) {
    let home = tmp.join("home");
    copy_tree(&samples().join("macos-home"), &home);
    let dir = walkdir::WalkDir::new(&home)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .find(|p| p.ends_with(format!("mcp-logs-{server}")))
        .unwrap();
    (home, dir)
}

/// How long a run may take before it counts as hung: long enough that only a hang (a
/// read blocked on a FIFO forever) passes it, even on a loaded machine. Speed targets
/// live in `scripts/bench.sh`, never here.
const HANG: Duration = Duration::from_secs(600);

/// Runs with a deadline: a hang is a failure, not a stuck test run. The pipes are
/// drained while waiting, so a large output cannot block the child.
fn run_bounded(cmd: &mut Command, limit: Duration) -> (i32, String, String) {
    pin_host(cmd);
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            r.read_to_end(&mut v).unwrap();
            String::from_utf8(v).unwrap()
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("mcplogs hung for {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (
        status.code().unwrap(),
        out.join().unwrap(),
        err.join().unwrap(),
    )
}

fn scan_json(tmp: &Path, args: &[&Path]) -> (i32, Value, String) {
    let mut cmd = mcplogs(tmp);
    cmd.args(["scan", "--json"]).args(args);
    let (code, out, err) = run_bounded(&mut cmd, HANG);
    let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    (code, doc, err)
}

fn warning_for<'a>(doc: &'a Value, path: &Path) -> Vec<&'a str> {
    doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["file"] == path.display().to_string())
        .map(|w| w["message"].as_str().unwrap())
        .collect()
}

fn assert_verdicts_intact(doc: &Value) {
    let s = server(doc, "wrong-types");
    assert_eq!(s["verdict"], "tools-fetch-failed");
    assert_eq!(s["cause"], "wrong-field-types");
}

#[test]
fn fifos_devices_and_symlinks_in_a_log_folder_are_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, dir) = home_with(tmp.path(), "wrong-types");
    let fifo = dir.join("2030-01-01T00-00-00-000Z.jsonl");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let zero = dir.join("2030-01-01T00-00-01-000Z.jsonl");
    symlink("/dev/zero", &zero).unwrap();
    let random = dir.join("2030-01-01T00-00-02-000Z.jsonl");
    symlink("/dev/urandom", &random).unwrap();
    // A link out of the tree, to a real log elsewhere: not followed either.
    let outside = tmp.path().join("outside.jsonl");
    fs::copy(
        fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.is_file())
            .unwrap(),
        &outside,
    )
    .unwrap();
    let out_link = dir.join("2030-01-01T00-00-03-000Z.jsonl");
    symlink(&outside, &out_link).unwrap();

    let (code, doc, _) = scan_json(tmp.path(), &[Path::new("--home"), &home]);
    assert_eq!(code, 1);
    assert_verdicts_intact(&doc);
    assert_eq!(
        warning_for(&doc, &fifo),
        vec!["a FIFO, not a regular file, not read"]
    );
    assert_eq!(
        warning_for(&doc, &zero),
        vec!["symlink inside a log folder (to /dev/zero), not followed"]
    );
    assert_eq!(warning_for(&doc, &random).len(), 1);
    assert_eq!(warning_for(&doc, &out_link).len(), 1);
    assert_eq!(
        server(&doc, "wrong-types")["sessionsRead"],
        2,
        "no extra session"
    );
}

#[test]
fn named_special_files_are_refused_but_a_named_symlink_is_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let zero = tmp.path().join("zero.jsonl");
    symlink("/dev/zero", &zero).unwrap();
    let (code, doc, err) = scan_json(tmp.path(), &[&zero]);
    assert_eq!(code, 0);
    assert_eq!(
        warning_for(&doc, &zero),
        vec!["a device, not a regular file, not read"]
    );
    assert!(err.contains("a device"), "{err}");

    // The user named this link: it is followed.
    let (_, dir) = home_with(tmp.path(), "wrong-types");
    let files = sorted_files(&dir);
    let link = tmp.path().join("mine.jsonl");
    symlink(files.last().unwrap(), &link).unwrap();
    let (code, doc, _) = scan_json(tmp.path(), &[&link]);
    assert_eq!(code, 1);
    assert_eq!(doc["servers"][0]["verdict"], "tools-fetch-failed");
}

#[test]
fn symlink_loops_and_symlinked_folders_inside_the_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, dir) = home_with(tmp.path(), "wrong-types");
    let project = dir.parent().unwrap();
    let looped = project.join("loop");
    symlink(project, &looped).unwrap();
    let elsewhere = project.join("mcp-logs-elsewhere");
    symlink(tmp.path(), &elsewhere).unwrap();
    let (code, doc, _) = scan_json(tmp.path(), &[Path::new("--home"), &home]);
    assert_eq!(code, 1);
    assert_verdicts_intact(&doc);
    assert_eq!(warning_for(&doc, &looped).len(), 1);
    assert!(warning_for(&doc, &elsewhere)[0].contains("not followed"));
    assert!(
        doc["servers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["name"] != "elsewhere")
    );
}

#[test]
fn deeply_nested_json_nul_bytes_and_bad_utf8_are_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, dir) = home_with(tmp.path(), "wrong-types");
    let files = sorted_files(&dir);
    let newest = files.last().unwrap();
    let mut f = fs::OpenOptions::new().append(true).open(newest).unwrap();
    // A needle line nested 100,000 deep: serde_json's depth limit, not a stack overflow.
    let deep = format!(
        "{{\"debug\":\"Connection failed\",\"x\":{}{}}}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    f.write_all(deep.as_bytes()).unwrap();
    // A capabilities record whose embedded JSON is nested too deep to parse.
    let caps = format!(
        "{{\"debug\":\"Connection established with capabilities: {}\",\"timestamp\":\"2000-01-01T00:00:00.000Z\",\"sessionId\":\"zz\"}}\n",
        "[".repeat(50_000)
    );
    f.write_all(caps.as_bytes()).unwrap();
    // Raw NUL and invalid UTF-8 inside a needle line.
    f.write_all(b"{\"debug\":\"Connection failed \x00\xff\xfe\"}\n")
        .unwrap();
    drop(f);
    let (code, doc, _) = scan_json(tmp.path(), &[Path::new("--home"), &home]);
    assert_eq!(code, 1);
    let w = warning_for(&doc, newest);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("2 not valid JSON"), "{w:?}");
    // The bad lines decide nothing; the deep capabilities record (an old session of its
    // own) reads as a connection whose capabilities could not be parsed.
    assert_verdicts_intact(&doc);
    // `sessions` counts files (one per Claude Code process); the extra session is read.
    assert_eq!(server(&doc, "wrong-types")["sessions"], 2);
    assert_eq!(server(&doc, "wrong-types")["sessionsRead"], 3);
}

#[test]
fn a_hundred_thousand_empty_files_make_one_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, dir) = home_with(tmp.path(), "wrong-types");
    let crowd = dir.parent().unwrap().join("mcp-logs-crowd");
    fs::create_dir(&crowd).unwrap();
    for i in 0..100_000 {
        fs::File::create(crowd.join(format!("{i:06}.jsonl"))).unwrap();
    }
    let start = Instant::now();
    let (code, doc, err) = scan_json(tmp.path(), &[Path::new("--home"), &home]);
    eprintln!("scanned 100,000 empty files in {:?}", start.elapsed());
    assert_eq!(code, 1);
    assert_verdicts_intact(&doc);
    assert_eq!(
        warning_for(&doc, &crowd),
        vec!["100000 files: empty file, no records"]
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let _ = dir;
}

/// A file as a reader sees it when the file is truncated to `cut` bytes once the first
/// `seen` bytes have been read (what `ftruncate` by a log rotator does mid-scan): reads
/// before that point see the original length, reads after it stop at `cut`. With `fail`,
/// the read after `seen` fails instead (a file on a network share that vanished).
struct ChangedWhileRead {
    bytes: Vec<u8>,
    pos: usize,
    seen: usize,
    cut: usize,
    fail: bool,
}

impl std::io::Read for ChangedWhileRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let end = if self.pos < self.seen {
            self.seen
        } else if self.fail {
            return Err(std::io::Error::other("stale file handle"));
        } else {
            self.cut.max(self.pos)
        };
        let n = buf.len().min(end - self.pos);
        buf[..n].copy_from_slice(&self.bytes[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Offset of the start of line `n` (1-based) of `bytes`.
fn line_start(bytes: &[u8], n: usize) -> usize {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(n - 2)
        .map(|(i, _)| i + 1)
        .unwrap()
}

/// The scan's reader on a file truncated mid-line while being read: the last line is a
/// truncated record (one warning) and the verdict comes from the complete lines. The
/// binary, given the bytes left on disk, says the same on stderr and in JSON.
#[test]
fn a_file_truncated_while_being_read() {
    use mcplogs::logs::decode::stream::scan_jsonl_with_block;
    use mcplogs::logs::session::group_sessions;
    use std::sync::Arc;

    let newest = sorted_files(
        &walkdir::WalkDir::new(samples().join("macos-home"))
            .into_iter()
            .map(|e| e.unwrap().into_path())
            .find(|p| p.ends_with("mcp-logs-wrong-types"))
            .unwrap(),
    )
    .pop()
    .unwrap();
    let bytes = fs::read(&newest).unwrap();
    let text = String::from_utf8(bytes.clone()).unwrap();
    // Line 9 is the final "Failed to fetch tools" record of the session.
    assert!(
        text.lines()
            .nth(8)
            .unwrap()
            .contains("Failed to fetch tools")
    );

    // (cut inside line, expected verdict, cause)
    let cases = [
        (6, "healthy", None),
        (10, "tools-fetch-failed", Some("wrong-field-types")),
    ];
    for (line, verdict, cause) in cases {
        let cut = line_start(&bytes, line) + 40;
        let warning = format!("skipped 1 of {line} lines (a truncated last record)");
        for (seen, block) in [(0, 4096), (cut / 2, 2048), (cut, 1 << 20)] {
            let mut reader = ChangedWhileRead {
                bytes: bytes.clone(),
                pos: 0,
                seen,
                cut,
                fail: false,
            };
            let mut records = Vec::new();
            let damage = scan_jsonl_with_block(
                &mut reader,
                &Arc::new(newest.clone()),
                &mut |r| records.push(r),
                block,
            )
            .unwrap();
            assert!(damage.truncated_last, "line {line}, seen {seen}");
            assert_eq!(damage.summary().as_deref(), Some(warning.as_str()));
            let sessions = group_sessions(records);
            assert_eq!(sessions.len(), 1);
            let d = &sessions[0].diagnosis;
            assert_eq!(d.verdict.as_str(), verdict, "line {line}, seen {seen}");
            assert_eq!(
                d.cause.map(|c| c.as_str()),
                cause,
                "line {line}, seen {seen}"
            );
        }

        // The binary on the bytes the truncation leaves.
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp
            .path()
            .join("h/.cache/claude-cli-nodejs/-p/mcp-logs-wrong-types");
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join(newest.file_name().unwrap());
        fs::write(&file, &bytes[..cut]).unwrap();
        let r = run(mcplogs(tmp.path()).args(["scan", "--json"]).arg(&file));
        let doc: Value = serde_json::from_str(&r.stdout).unwrap();
        let s = server(&doc, "wrong-types");
        assert_eq!(s["verdict"], verdict);
        assert_eq!(s["cause"], cause.map_or(Value::Null, Value::from));
        assert_eq!(
            r.stderr,
            format!(
                "mcplogs: warning: {}: {warning}\n",
                shown(&file, tmp.path())
            )
        );
        assert_eq!(doc["warnings"][0]["message"], warning.as_str());
        assert_eq!(r.code, if verdict == "healthy" { 0 } else { 1 });
    }
}

/// A read that fails midway is an error for the file (the scan turns it into one
/// "cannot read" warning), never a verdict from half a file.
#[test]
fn a_file_failing_while_being_read_is_an_error() {
    use mcplogs::logs::decode::stream::scan_jsonl_with_block;
    use std::sync::Arc;

    let tmp = tempfile::tempdir().unwrap();
    let (_, dir) = home_with(tmp.path(), "wrong-types");
    let newest = sorted_files(&dir).pop().unwrap();
    let bytes = fs::read(&newest).unwrap();
    for seen in [0, 100, bytes.len() / 2] {
        let mut reader = ChangedWhileRead {
            bytes: bytes.clone(),
            pos: 0,
            seen,
            cut: bytes.len(),
            fail: true,
        };
        let e = scan_jsonl_with_block(&mut reader, &Arc::new(newest.clone()), &mut |_| {}, 64)
            .unwrap_err();
        assert_eq!(e.to_string(), "stale file handle");
    }
}

#[test]
fn escape_sequences_from_logs_never_reach_the_terminal_raw() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, dir) = home_with(tmp.path(), "wrong-types");
    let files = sorted_files(&dir);
    let newest = files.last().unwrap();
    let text = fs::read_to_string(newest).unwrap();
    // CSI colour, an OSC 8 link, an OSC 52 clipboard write, a carriage-return overwrite
    // and a bidi override, JSON-escaped the way Claude Code writes them.
    let evil = r"\u001b[31mRED\u001b]8;;http://x\u0007link\u001b]8;;\u0007\u001b]52;c;ZXZpbA==\u0007\rOK\u202e";
    let damaged = text.replacen(
        "Failed to fetch tools: ",
        &format!("Failed to fetch tools: {evil} "),
        1,
    );
    assert_ne!(damaged, text);
    fs::write(newest, damaged).unwrap();

    let r = run(mcplogs(tmp.path())
        .args(["scan", "--verbose", "--color", "never", "--home"])
        .arg(&home));
    assert_eq!(r.code, 1);
    for raw in ['\u{1b}', '\r', '\u{7}', '\u{202e}'] {
        assert!(!r.stdout.contains(raw), "raw {raw:?} in human output");
    }
    assert!(r.stdout.contains("\\x1b]52;c;ZXZpbA=="), "shown escaped");
    // JSON keeps the message exactly.
    let (_, doc) = run_json(
        mcplogs(tmp.path())
            .args(["scan", "--json", "--home"])
            .arg(&home),
    );
    let msgs = server(&doc, "wrong-types")["evidence"].to_string();
    assert!(
        msgs.contains("\\u001b]52;c;ZXZpbA==\\u0007\\rOK\u{202e}"),
        "{msgs}"
    );

    // Pasted into explain, too.
    let out = run_with_stdin(
        mcplogs(tmp.path()).args(["explain", "--color", "never"]),
        "evil\u{1b}[2J: cmd - \u{2718} Failed to connect \u{2014} \u{1b}]52;c;eA==\u{7}boom\r"
            .as_bytes(),
    );
    let s = out.stdout;
    assert!(
        !s.contains('\u{1b}') && !s.contains('\r') && !s.contains('\u{7}'),
        "{s:?}"
    );
}
