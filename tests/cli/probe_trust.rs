//! Issue 23 items 1, 4 and 6 against the real binary: configured headers stay with
//! their origin (legacy SSE endpoints and redirects naming another port), the
//! transcript is a private regular file escaped as `--json` is, and nothing a server
//! started outlives the probe, even after `setsid()`. Every run has a deadline.

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Run, mcplogs, pin_host};
use serde_json::Value;

fn stub() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/samples/stub_mcp_server.py")
}

/// Runs `cmd` (after `pin_host`), killing it and failing after 30 s: a hang fails.
fn run_deadline(cmd: &mut Command) -> Run {
    pin_host(cmd);
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(out) => {
            let out = out.unwrap();
            Run {
                code: out.status.code().expect("exited, not killed"),
                stdout: String::from_utf8(out.stdout).unwrap(),
                stderr: String::from_utf8(out.stderr).unwrap(),
            }
        }
        Err(_) => {
            // SAFETY: the child this test started, by its id.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("{cmd:?} hung");
        }
    }
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

/// A raw character that `--json` never writes: C0 (other than the line end), DEL, C1
/// or a bidi control. Decided here, not with the sanitizer.
fn raw_unsafe(s: &str) -> Option<char> {
    s.chars().find(|&c| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    })
}

// ---- Item 4: the transcript ----

#[test]
fn a_transcript_that_is_a_fifo_or_a_device_is_refused_before_any_server_starts() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("t.fifo");
    mkfifo(&fifo);
    let started = dir.path().join("started");
    let server = format!(
        "sh -c 'touch {}; exec python3 {}'",
        started.display(),
        stub().display()
    );
    for (target, kind) in [
        (fifo.as_path(), "a FIFO (named pipe)"),
        (Path::new("/dev/null"), "a character device"),
        (dir.path(), "a folder"),
    ] {
        let t = Instant::now();
        let r = run_deadline(
            mcplogs(home.path())
                .args(["probe", "--timeout", "60s", "--transcript"])
                .arg(target)
                .args(["--command", &server]),
        );
        assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr.contains(&target.display().to_string()),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains(kind), "{}", r.stderr);
        assert!(
            !started.exists(),
            "the server was started for {}",
            target.display()
        );
    }
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

#[test]
fn a_transcript_is_private_also_without_redaction_and_stdout_is_asked_with_a_dash() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let server = format!("python3 {}", stub().display());
    let new = dir.path().join("new.jsonl");
    let old = dir.path().join("old.jsonl");
    std::fs::write(&old, "old\n").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();
    for (path, extra) in [(&new, None), (&old, Some("--no-redact"))] {
        let r = run_deadline(
            mcplogs(home.path())
                .args(["probe", "--claude-version", "2.1.332", "--transcript"])
                .arg(path)
                .args(extra)
                .args(["--command", &server]),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(mode(path), 0o600, "{}", path.display());
        let text = std::fs::read_to_string(path).unwrap();
        assert!(!text.contains("old"), "{text}");
        assert!(text.lines().count() >= 4, "{text}");
    }
    // `-`: the transcript on stdout (not with --json, which is stdout's own document).
    let r = run_deadline(
        mcplogs(home.path())
            .args(["probe", "--claude-version", "2.1.332", "--transcript", "-"])
            .args(["--command", &server]),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let first = r.stdout.lines().next().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(first).unwrap()["direction"],
        "client-to-server"
    );
    assert!(!dir.path().join("-").exists() && !home.path().join("-").exists());
    let r = run_deadline(
        mcplogs(home.path())
            .args(["probe", "--json", "--transcript", "-"])
            .args(["--command", &server]),
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("both write to stdout"), "{}", r.stderr);
}

#[test]
fn controls_and_bidi_in_names_are_escaped_in_the_transcript_as_in_json() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    let name = "docs\u{202e}txt.exe\u{9b}\u{7f}";
    let info = "stub\u{202e}\u{2066}\u{85}";
    let cfg = serde_json::json!({"mcpServers": {
        name: {"command": "python3", "args": [stub(), "--name", info]}
    }});
    std::fs::write(home.path().join(".claude.json"), cfg.to_string()).unwrap();
    let transcript = home.path().join("t.jsonl");
    let r = run_deadline(
        mcplogs(home.path())
            .current_dir(&proj)
            // before the name, which takes every argument after it
            .arg("probe")
            .arg("--managed-dir")
            .arg(home.path().join("no-managed-settings"))
            .args(["--claude-version", "2.1.332", "--transcript"])
            .arg(&transcript)
            .arg(name),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(&transcript).unwrap();
    assert_eq!(raw_unsafe(&text), None, "{text:?}");
    assert!(text.contains("\\u202e"), "{text}");
    // Escaped, not changed: the values decode to the names as configured.
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.iter().all(|l| l["server"] == name));
    assert!(
        lines
            .iter()
            .any(|l| l["payload"].pointer("/result/serverInfo/name") == Some(&info.into())),
        "{text}"
    );
}

// ---- Item 6: nothing a server started outlives the probe ----

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return false;
    }
    // a zombie is dead for our purpose
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.contains(") Z "))
        .unwrap_or(false)
}

/// A stdio server (the stub) that first starts two grandchildren which call `setsid()`
/// and append their pids to `pids`: one stays the server's child, the other is
/// orphaned at once (a double fork).
fn escaping_server(dir: &Path, pids: &Path) -> String {
    let script = dir.join("server.sh");
    let leave = "import os, sys, time; os.setsid(); open(sys.argv[1], 'a').write(f'{os.getpid()}\\n'); time.sleep(300)";
    std::fs::write(
        &script,
        format!(
            "python3 -c \"{leave}\" '{p}' &\n\
             ( python3 -c \"{leave}\" '{p}' & )\n\
             n=$(cat '{p}' 2>/dev/null | wc -l); want=$((n + 2))\n\
             while [ \"$(cat '{p}' 2>/dev/null | wc -l)\" -lt \"$want\" ]; do sleep 0.05; done\n\
             exec python3 '{stub}'\n",
            p = pids.display(),
            stub = stub().display()
        ),
    )
    .unwrap();
    format!("sh {}", script.display())
}

/// Every pid in `pids`; kills survivors (so a failure leaves nothing running) and
/// names them.
fn survivors(pids: &Path) -> (usize, Vec<i32>) {
    let all: Vec<i32> = std::fs::read_to_string(pids)
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    let left: Vec<i32> = all.iter().copied().filter(|&p| alive(p)).collect();
    for &p in &left {
        // SAFETY: a process this test's server started, by its id.
        unsafe { libc::kill(p, libc::SIGKILL) };
    }
    (all.len(), left)
}

#[test]
fn a_grandchild_that_calls_setsid_does_not_outlive_the_probe() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let server = escaping_server(dir.path(), &pids);
    let r = run_deadline(
        mcplogs(home.path())
            .args([
                "probe",
                "--json",
                "--claude-version",
                "2.1.332",
                "--timeout",
                "10s",
            ])
            .args(["--command", &server]),
    );
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(r.code, 0, "{doc:#}\n{}", r.stderr);
    let connections = doc["servers"][0]["attempts"].as_array().unwrap().len();
    let (started, left) = survivors(&pids);
    assert_eq!(started, 2 * connections, "{doc:#}");
    assert_eq!(left, Vec::<i32>::new(), "outlived the probe");
}

#[test]
fn servers_probed_together_leave_nothing_behind_either() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    let pids = dir.path().join("pids");
    let server = escaping_server(dir.path(), &pids);
    let (cmd, arg) = server.split_once(' ').unwrap();
    let cfg = serde_json::json!({"mcpServers": {
        "first": {"command": cmd, "args": [arg]},
        "second": {"command": cmd, "args": [arg]},
    }});
    std::fs::write(home.path().join(".claude.json"), cfg.to_string()).unwrap();
    let r = run_deadline(mcplogs(home.path()).current_dir(&proj).args([
        "probe",
        "--json",
        "--claude-version",
        "2.1.332",
        "--timeout",
        "10s",
    ]));
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(r.code, 0, "{doc:#}\n{}", r.stderr);
    let (started, left) = survivors(&pids);
    assert!(started >= 4, "{started}");
    assert_eq!(left, Vec::<i32>::new(), "outlived the probe");
}
