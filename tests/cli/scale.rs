//! Scale: bounded memory on huge files and lines (measured, not assumed), `--since`,
//! and `mcplogs du`.

use std::fs;
#[cfg(target_os = "linux")]
use std::io::Write;
#[cfg(target_os = "linux")]
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::*;

/// The newest log file of `server` in a copied home.
#[cfg(target_os = "linux")]
fn server_dir(home: &Path, server: &str) -> PathBuf {
    walkdir::WalkDir::new(home)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .find(|p| p.ends_with(format!("mcp-logs-{server}")))
        .unwrap()
}

/// Runs the binary and returns (exit code, stdout, stderr, peak RSS in KiB) using
/// the child's own VmHWM (see below); the child is reaped with wait4.
#[cfg(target_os = "linux")]
fn run_measured(cmd: &mut std::process::Command) -> (i32, String, String, i64) {
    run_measured_spawned(cmd, |_| {})
}

/// [`run_measured`], telling `spawned` the child's pid once it runs.
#[cfg(target_os = "linux")]
fn run_measured_spawned(
    cmd: &mut std::process::Command,
    spawned: impl FnOnce(libc::pid_t),
) -> (i32, String, String, i64) {
    use std::os::unix::process::ExitStatusExt;
    // Reaped below with wait4, which also returns its resource usage.
    pin_host(cmd);
    #[allow(clippy::zombie_processes)]
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    spawned(pid);
    // The peak is read from the child's own /proc status (VmHWM, its address space
    // after exec) until it exits: wait4's ru_maxrss also counts the parent's resident
    // memory at spawn (vfork shares it until exec), which in this one test crate
    // includes whatever the other tests hold at the time.
    let hwm = std::thread::spawn(move || {
        let status = format!("/proc/{pid}/status");
        let mut peak = 0i64;
        while let Ok(text) = fs::read_to_string(&status) {
            let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<i64>().ok())
            else {
                break; // exited: a zombie has no memory left to read
            };
            peak = peak.max(kib);
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        peak
    });
    let mut out = child.stdout.unwrap();
    let mut err = child.stderr.unwrap();
    let t = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut err, &mut s).unwrap();
        s
    });
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut out, &mut stdout).unwrap();
    let stderr = t.join().unwrap();
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid);
    let code = std::process::ExitStatus::from_raw(status).code().unwrap();
    // A child that exited before its first read (a tiny input) falls back to wait4's
    // figure, which can only be higher.
    let peak = match hwm.join().unwrap() {
        0 => usage.ru_maxrss,
        kib => kib,
    };
    (code, stdout, stderr, peak)
}

/// A real failing session padded to `size` bytes with realistic noise, plus one
/// `line_mb` megabyte line in the middle.
#[cfg(target_os = "linux")]
fn padded_copy(src: &Path, dst: &Path, size: usize, line_mb: usize) {
    let text = fs::read_to_string(src).unwrap();
    let mut lines = text.lines();
    let first = lines.next().unwrap();
    let sid_at = first.find("\"sessionId\"").unwrap();
    let tail = &first[sid_at..]; // "sessionId":"...","cwd":"..."}
    let mut f = std::io::BufWriter::new(fs::File::create(dst).unwrap());
    writeln!(f, "{first}").unwrap();
    let noise = format!(
        "{{\"error\":\"Server stderr: {}\",\"timestamp\":\"2026-11-29T12:44:11.000Z\",{tail}\n",
        "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=".repeat(8)
    );
    let mut written = first.len() + 1;
    let mut long_done = line_mb == 0;
    while written < size {
        if !long_done && written > size / 2 {
            // Written in pieces: this test process must stay small, since a spawned
            // child's peak RSS can include its parent's at the moment of spawning.
            f.write_all(b"{\"debug\":\"Connection failed: ").unwrap();
            let chunk = vec![b'A'; 1 << 20];
            for _ in 0..line_mb {
                f.write_all(&chunk).unwrap();
            }
            writeln!(f, "\",\"timestamp\":\"2026-11-29T12:44:11.000Z\",{tail}").unwrap();
            written += line_mb << 20;
            long_done = true;
        }
        f.write_all(noise.as_bytes()).unwrap();
        written += noise.len();
    }
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
}

#[cfg(target_os = "linux")]
#[test]
fn memory_stays_flat_on_huge_files_and_a_100_mb_line() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    copy_tree(&samples().join("macos-home"), &home);
    let dir = server_dir(&home, "wrong-types");
    let newest = sorted_files(&dir).pop().unwrap();

    // Small: the real file. Large: the same session padded to 400 MB with a 100 MB line.
    let (code, _, _, small_rss) =
        run_measured(mcplogs(tmp.path()).args(["scan", "--json"]).arg(&dir));
    assert_eq!(code, 1);

    padded_copy(&newest.clone(), &newest, 400 << 20, 100);
    assert!(fs::metadata(&newest).unwrap().len() > 400 << 20);
    let (code, stdout, stderr, big_rss) =
        run_measured(mcplogs(tmp.path()).args(["scan", "--json"]).arg(&dir));
    assert_eq!(code, 1, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let s = server(&doc, "wrong-types");
    assert_eq!(s["verdict"], "tools-fetch-failed");
    assert_eq!(s["cause"], "wrong-field-types");
    // The 100 MB line is skipped, counted, and named in the one warning for the file.
    let warnings = doc["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0]["message"]
            .as_str()
            .unwrap()
            .contains("1 longer than 8 MiB")
    );
    // No progress bar: stderr is not a terminal.
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    eprintln!("peak RSS: {small_rss} KiB for 12 KB, {big_rss} KiB for 400 MB");
    assert!(big_rss < 64 * 1024, "peak RSS {big_rss} KiB");
    assert!(
        big_rss - small_rss < 24 * 1024,
        "memory grew with file size: {small_rss} -> {big_rss} KiB"
    );
}

#[test]
fn since_keeps_only_recent_sessions() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    copy_tree(&samples().join("linux-home"), &home);
    // The samples were recorded on 2026-11-29 around 12:44 UTC: "now" is pinned an hour
    // after them, whatever the date of the run. The 2.1.288 sessions (the first three
    // files of each server) are moved ten days back, in their records (which `--since`
    // reads) and their modification times (which let it skip a file unread).
    let now = mcplogs::time::parse_iso("2026-11-29T13:45:00Z").unwrap();
    let ten_days_back = std::time::UNIX_EPOCH + Duration::from_secs((now - 10 * 86_400) as u64);
    for entry in walkdir::WalkDir::new(&home) {
        let p = entry.unwrap().into_path();
        if p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("mcp-logs-"))
        {
            for f in sorted_files(&p).into_iter().take(3) {
                let text = fs::read_to_string(&f).unwrap();
                assert!(
                    text.contains("\"timestamp\":\"2026-11-29T"),
                    "{}",
                    f.display()
                );
                fs::write(
                    &f,
                    text.replace("\"timestamp\":\"2026-11-29T", "\"timestamp\":\"2026-11-19T"),
                )
                .unwrap();
                fs::File::options()
                    .write(true)
                    .open(&f)
                    .unwrap()
                    .set_modified(ten_days_back)
                    .unwrap();
            }
        }
    }
    let scan = |since: &str| {
        let (r, doc) = run_json(
            mcplogs(tmp.path())
                .env(mcplogs::time::NOW_VAR, now.to_string())
                .args(["scan", "--json", "--home"])
                .arg(&home)
                .args(["--since", since]),
        );
        (r, doc)
    };
    let (_, all) = scan("30d");
    assert_eq!(server(&all, "no-resulttype")["sessions"], 6);
    let (_, recent) = scan("2d");
    let s = server(&recent, "no-resulttype");
    assert_eq!(s["sessions"], 3, "{s:#}");
    assert_eq!(s["failedSessions"], 0);
    assert_eq!(s["verdict"], "tolerated");
    // A date in the future leaves nothing.
    let (r, doc) = scan("2999-01-01");
    assert!(doc["servers"].as_array().unwrap().is_empty());
    assert!(
        r.stderr.contains("no MCP server activity since 2999-01-01"),
        "{}",
        r.stderr
    );
    // A bad value is a usage error.
    let r = run(mcplogs(tmp.path()).args(["scan", "--since", "soon"]));
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("neither a duration"), "{}", r.stderr);
}

#[test]
fn du_sums_sizes_per_project_and_server_largest_first() {
    let tmp = tempfile::tempdir().unwrap();
    let home = samples().join("macos-home");
    let (r, doc) = run_json(
        mcplogs(tmp.path())
            .args(["du", "--json", "--home"])
            .arg(&home),
    );
    assert_eq!(r.code, 0);
    let mut total = 0;
    let mut files = 0;
    for e in walkdir::WalkDir::new(&home) {
        let e = e.unwrap();
        if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "jsonl") {
            total += e.metadata().unwrap().len();
            files += 1;
        }
    }
    assert_eq!(doc["bytes"], total);
    assert_eq!(doc["files"], files);
    let projects = doc["projects"].as_array().unwrap();
    assert_eq!(projects.len(), 1);
    let p = &projects[0];
    assert_eq!(p["project"], "/tmp/mcplogs-samples/home-macos/work/web");
    let servers = p["servers"].as_array().unwrap();
    let sizes: Vec<u64> = servers
        .iter()
        .map(|s| s["bytes"].as_u64().unwrap())
        .collect();
    let mut sorted = sizes.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(sizes, sorted, "largest first");
    assert_eq!(sizes.iter().sum::<u64>(), total);
    let studio = servers
        .iter()
        .find(|s| s["folder"] == "Studio-Bridge")
        .unwrap();
    assert_eq!(studio["name"], "Studio Bridge");
    assert!(studio["oldestSession"].as_str().unwrap() < studio["newestSession"].as_str().unwrap());

    let text = run(mcplogs(tmp.path()).args(["du", "--home"]).arg(&home));
    assert!(
        text.stdout.starts_with("PROJECT / SERVER"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("\nTotal: "));
}

/// `explain` on the largest paste it accepts (issue 50): 16 MiB of `claude mcp list`
/// lines, each holding a token of its own, as `--json`. Every line is an entry, no
/// token is left in the output, and the peak RSS stays bounded (the document is written
/// as it is made; it peaked at 1.9 GB as one value). Learning the tokens compared each
/// with every one before (hours for this paste, 43 s for 16,000 lines): the watchdog
/// fails a run that does not end, and no time is asserted (the targets are in
/// scripts/bench.sh and BENCHMARKS.md).
#[cfg(target_os = "linux")]
#[test]
fn explain_is_bounded_on_its_largest_paste() {
    const LIMIT: usize = 16 << 20; // src/safe_read.rs, EXPLAIN_MAX_BYTES
    let tmp = tempfile::tempdir().unwrap();
    let paste = tmp.path().join("paste.txt");
    let mut f = std::io::BufWriter::new(fs::File::create(&paste).unwrap());
    let mut seed: u64 = 50;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    let alnum = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let head = "Checking MCP server health...\n\n";
    f.write_all(head.as_bytes()).unwrap();
    let (mut size, mut lines) = (head.len(), 0usize);
    let mut first_token = String::new();
    loop {
        let token: String = (0..36)
            .map(|_| alnum[next() % alnum.len()] as char)
            .collect();
        let line = format!(
            "srv{lines}: npx -y @acme/mcp-server --token ghp_{token} - \u{2717} Failed to connect\n"
        );
        if size + line.len() > LIMIT - 64 {
            break;
        }
        if lines == 0 {
            first_token = token;
        }
        f.write_all(line.as_bytes()).unwrap();
        size += line.len();
        lines += 1;
    }
    drop(f);
    let mut cmd = mcplogs(tmp.path());
    cmd.args(["explain", "--no-logs", "--json"]).arg(&paste);
    let (code, stdout, stderr, rss) = run_measured_within(&mut cmd, Duration::from_secs(600));
    assert_eq!(code, 1, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["servers"].as_array().unwrap().len(), lines);
    assert!(
        !stdout.contains(&first_token),
        "a token is left in the output"
    );
    assert!(stdout.contains("[REDACTED:"));
    eprintln!("explain --json on {size} bytes, {lines} lines: peak RSS {rss} KiB");
    // 0.9 GiB measured (most of it the automaton of 312,000 learned token spellings);
    // the whole document as one value took 1.9 GiB without a token, 3 GiB with.
    assert!(rss < 1536 * 1024, "peak RSS {rss} KiB for a 16 MiB paste");
}

/// [`run_measured`], the child killed (and the test failed) after `limit`: a run that
/// does not end is a failure, not a stuck test run.
#[cfg(target_os = "linux")]
fn run_measured_within(
    cmd: &mut std::process::Command,
    limit: Duration,
) -> (i32, String, String, i64) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
    let pid = Arc::new(AtomicI32::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let killed = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (pid, done, killed) = (pid.clone(), done.clone(), killed.clone());
        std::thread::spawn(move || {
            let start = std::time::Instant::now();
            while !done.load(Ordering::SeqCst) {
                if start.elapsed() > limit {
                    let p = pid.load(Ordering::SeqCst);
                    if p > 0 {
                        killed.store(true, Ordering::SeqCst);
                        unsafe { libc::kill(p, libc::SIGKILL) };
                    }
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    let result = run_measured_spawned(cmd, |p| pid.store(p, Ordering::SeqCst));
    done.store(true, Ordering::SeqCst);
    watchdog.join().unwrap();
    assert!(
        !killed.load(Ordering::SeqCst),
        "mcplogs ran for more than {limit:?}"
    );
    result
}
