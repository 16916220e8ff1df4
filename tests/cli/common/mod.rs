//! Shared helpers for the integration tests: run the real binary, find the samples,
//! make damaged copies in temporary folders.

mod sandbox;
pub use sandbox::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The suite's clock: the library's own (`mcplogs::time::now_system`), which the
/// environment variable `MCPLOGS_NOW` pins. Every file age a test sets and every spawned
/// mcplogs (through [`clock_env`]) reads this one value, so no test depends on the day it
/// runs; `clock::time_relative_tests_pass_years_ahead` re-runs them with it pinned
/// years ahead.
pub fn now() -> std::time::SystemTime {
    mcplogs::time::now_system()
}

/// `MCPLOGS_NOW` for a spawned mcplogs: the suite's [`now`], to the second.
pub fn clock_env(cmd: &mut Command) -> &mut Command {
    let secs = now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_else(|e| -(e.duration().as_secs() as i64));
    cmd.env(mcplogs::time::NOW_VAR, secs.to_string())
}

/// `path` as mcplogs prints it for a user whose home is `home`: `~/…` under it.
pub fn shown(path: &Path, home: &Path) -> String {
    match path.strip_prefix(home) {
        Ok(rest) if !rest.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => path.display().to_string(),
    }
}

/// Whether `text` names `path` as mcplogs prints it from a [`Sandbox`] (whose home is
/// its `home` folder: `~/…`) or in full. (Used by the unix-only settings tests.)
#[cfg(unix)]
pub fn names_path(text: &str, path: &Path) -> bool {
    text.contains(&path.display().to_string())
        || path
            .ancestors()
            .filter(|a| a.file_name().is_some_and(|n| n == "home"))
            .any(|home| text.contains(&shown(path, home)))
}

pub fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs")
}

/// Where the samples' sessions ran: their projects, settings and stub server under it,
/// as the logs and configuration name them (`scripts/samples/generate.py` works there).
pub const SAMPLES_WORK: &str = "/tmp/mcplogs-samples";

/// An empty folder of [`SAMPLES_WORK`]'s length, named as it is up to its last
/// characters (so that it sorts as it does among other paths), made for the caller alone
/// and removed with the guard: where [`copy_samples_moved`] moves the samples'
/// projects, which are then not on this machine, whatever it has at [`SAMPLES_WORK`]
/// (a run of the samples' generator leaves its projects there, and a project that
/// exists gets another answer than one that is gone).
pub fn samples_gone() -> tempfile::TempDir {
    let prefix = &SAMPLES_WORK[..SAMPLES_WORK.len() - 6];
    let (parent, name) = prefix.rsplit_once('/').unwrap();
    let dir = tempfile::Builder::new()
        .prefix(name)
        .rand_bytes(6)
        .tempdir_in(parent)
        .unwrap();
    assert_eq!(dir.path().to_str().unwrap().len(), SAMPLES_WORK.len());
    dir
}

/// Copies the sample tree `from` to `to` with every mention of [`SAMPLES_WORK`] in its
/// files' text and in its folders' encoded names moved to `gone` (of the same length,
/// so every size and cut stays as it is): see [`samples_gone`]. [`moved_back`] gives
/// an output its sample paths back.
pub fn copy_samples_moved(from: &Path, to: &Path, gone: &str) {
    use mcplogs::claude_code::names::encode_folder_name as encode;
    assert_eq!(gone.len(), SAMPLES_WORK.len(), "{gone}");
    let pairs = [
        (SAMPLES_WORK.to_string(), gone.to_string()),
        (encode(SAMPLES_WORK), encode(gone)),
    ];
    let replace = |bytes: &[u8]| -> Vec<u8> {
        let mut out = bytes.to_vec();
        for (was, now) in &pairs {
            let (was, now) = (was.as_bytes(), now.as_bytes());
            let mut i = 0;
            while i + was.len() <= out.len() {
                if &out[i..i + was.len()] == was {
                    out[i..i + was.len()].copy_from_slice(now);
                    i += was.len();
                } else {
                    i += 1;
                }
            }
        }
        out
    };
    let from_meta = std::fs::metadata(from).unwrap();
    if from_meta.is_file() {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, replace(&std::fs::read(from).unwrap())).unwrap();
        return;
    }
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        let rel = String::from_utf8(replace(rel.to_str().unwrap().as_bytes())).unwrap();
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if entry.file_type().is_file() {
            std::fs::write(&dest, replace(&std::fs::read(entry.path()).unwrap())).unwrap();
        }
    }
}

/// `text` with the sample paths [`copy_samples_moved`] moved to `gone` as the samples
/// name them.
pub fn moved_back(text: &str, gone: &str) -> String {
    use mcplogs::claude_code::names::encode_folder_name as encode;
    text.replace(gone, SAMPLES_WORK)
        .replace(&encode(gone), &encode(SAMPLES_WORK))
}

/// The binary with a scrubbed environment: no colour variables, a HOME that has no
/// Claude Code logs and is also the working directory, so a test never reads the
/// developer's own files. The run helpers add the managed-settings folder (`pin_host`).
pub fn mcplogs(empty_home: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mcplogs"));
    c.env_clear()
        .env("HOME", empty_home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .current_dir(empty_home)
        .stdin(Stdio::null());
    clock_env(&mut c);
    c
}

/// The subcommands that read the settings layers, managed ones included.
const READS_SETTINGS: [&str; 11] = [
    "scan",
    "du",
    "prune",
    "report",
    "settings",
    "fix",
    "probe",
    "export",
    "explain",
    "statusline",
    "hook",
];

/// Points a command that reads settings at an empty managed-settings folder inside its
/// HOME (unless the test chose one), so the host's `/etc/claude-code` is never read.
/// Every helper that runs the binary calls this.
pub fn pin_host(cmd: &mut Command) {
    let args: Vec<&std::ffi::OsStr> = cmd.get_args().collect();
    let reads_settings = args
        .first()
        .is_some_and(|a| READS_SETTINGS.iter().any(|s| a == s));
    let chosen = args.iter().any(|a| *a == "--managed-dir");
    if !reads_settings || chosen {
        return;
    }
    let home = cmd
        .get_envs()
        .find(|(k, _)| *k == "HOME")
        .and_then(|(_, v)| v)
        .map(PathBuf::from)
        .expect("a pinned HOME");
    cmd.arg("--managed-dir")
        .arg(home.join("no-managed-settings"));
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn run(cmd: &mut Command) -> Run {
    pin_host(cmd);
    let Output {
        status,
        stdout,
        stderr,
    } = cmd.output().expect("binary runs");
    Run {
        code: status.code().expect("exited normally"),
        stdout: String::from_utf8(stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(stderr).expect("utf-8 stderr"),
    }
}

/// Runs with `input` on stdin (pasted text for `explain`).
pub fn run_with_stdin(cmd: &mut Command, input: &[u8]) -> Run {
    use std::io::Write;
    pin_host(cmd);
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write stdin");
    let out = child.wait_with_output().expect("binary runs");
    Run {
        code: out.status.code().expect("exited normally"),
        stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
    }
}

pub fn run_json(cmd: &mut Command) -> (Run, serde_json::Value) {
    let r = run(cmd);
    let v = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("stdout is JSON ({e}):\n{}\nstderr:\n{}", r.stdout, r.stderr));
    (r, v)
}

/// Sets a file's modification time `secs` into the past.
pub fn set_age(path: &Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(now() - std::time::Duration::from_secs(secs))
        .unwrap();
}

/// Every file under `dir` last modified `days` days ago: old enough for `prune` to plan
/// deleting them (its 10-minute in-use rule keeps none).
pub fn age_all(dir: &Path, days: u64) {
    for e in walkdir::WalkDir::new(dir) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            set_age(e.path(), days * 86_400);
        }
    }
}

/// Copies a directory tree (the samples) into `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// The servers array of a scan document, by name.
pub fn server<'a>(doc: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no server {name} in {doc:#}"))
}

/// The files of a folder, sorted by name (log files: by process start time).
pub fn sorted_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// Runs `cmd` with no stdin, killing it and failing the test after `deadline`: a hang
/// fails instead of stalling the suite. Output is read while it runs, so a long diff
/// cannot fill the pipe and stall the child.
#[cfg(unix)]
pub fn output_within(cmd: &mut Command, deadline: std::time::Duration) -> Output {
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
    match rx.recv_timeout(deadline) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            // SAFETY: the child this test started, by its id.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("{cmd:?} hung");
        }
    }
}

/// A FIFO at `p` (its folder made first).
#[cfg(unix)]
pub fn mkfifo(p: &Path) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// A stub MCP server serving HTTP on a port the system picked for it, killed when
/// dropped. The stub binds port 0 and prints the port it got, so no other test can take
/// that port between a free-port lookup and the stub's bind (which once let a test talk
/// to a parallel test's stub).
pub struct HttpStubProcess {
    child: std::process::Child,
    /// `http://127.0.0.1:PORT/mcp`
    pub url: String,
}

impl HttpStubProcess {
    /// Starts `python3 SCRIPT --http 0 ARGS…`; panics if no port is printed in 20 s.
    pub fn start(script: &Path, args: &[&std::ffi::OsStr]) -> HttpStubProcess {
        use std::io::BufRead;
        let mut child = Command::new("python3")
            .arg(script)
            .args(["--http", "0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = std::io::BufReader::new(stdout);
            let mut first = String::new();
            let _ = lines.read_line(&mut first);
            let _ = tx.send(first);
            // drain whatever else comes, so the stub never blocks on a full pipe
            let _ = std::io::copy(&mut lines, &mut std::io::sink());
        });
        let port = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .ok()
            .and_then(|line| line.trim().parse::<u16>().ok());
        let Some(port) = port else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the HTTP stub {} printed no port", script.display());
        };
        HttpStubProcess {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpStubProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback address where nothing listens, reserved for as long as the value lives:
/// a socket bound to a port the system picked and never put to listening, so a
/// connection is refused and no parallel test can take the port meanwhile.
pub struct RefusingPort {
    #[cfg(unix)]
    fd: libc::c_int,
    /// `127.0.0.1:PORT`
    pub addr: std::net::SocketAddr,
}

impl RefusingPort {
    #[cfg(unix)]
    pub fn new() -> RefusingPort {
        // SAFETY: plain socket calls on a socket this function owns; every pointer is
        // to a local of the right size.
        unsafe {
            let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
            assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
            let mut sa: libc::sockaddr_in = std::mem::zeroed();
            sa.sin_family = libc::AF_INET as libc::sa_family_t;
            sa.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
            let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
            let rc = libc::bind(fd, (&raw const sa).cast(), len);
            assert_eq!(rc, 0, "bind: {}", std::io::Error::last_os_error());
            let mut got: libc::sockaddr_in = std::mem::zeroed();
            let mut got_len = len;
            let rc = libc::getsockname(fd, (&raw mut got).cast(), &mut got_len);
            assert_eq!(rc, 0, "getsockname: {}", std::io::Error::last_os_error());
            RefusingPort {
                fd,
                addr: (std::net::Ipv4Addr::LOCALHOST, u16::from_be(got.sin_port)).into(),
            }
        }
    }

    /// Without the socket calls: a port that was free a moment ago.
    #[cfg(not(unix))]
    pub fn new() -> RefusingPort {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        RefusingPort {
            addr: l.local_addr().unwrap(),
        }
    }
}

#[cfg(unix)]
impl Drop for RefusingPort {
    fn drop(&mut self) {
        // SAFETY: the socket this value owns, closed once.
        unsafe {
            libc::close(self.fd);
        }
    }
}

/// A temporary folder whose path has the same length on every machine (`/tmp/.tmpXXXXXX`
/// on Unix, whatever `TMPDIR` says): screens pinned byte for byte wrap lines that hold
/// it, and a longer `TMPDIR` would move the wrap.
pub fn fixed_length_tempdir() -> tempfile::TempDir {
    #[cfg(unix)]
    {
        tempfile::tempdir_in("/tmp").unwrap()
    }
    #[cfg(not(unix))]
    {
        tempfile::tempdir().unwrap()
    }
}

/// Puts a program at `to` (a copy of the file `from`), made 0755, for a test to run.
/// On Unix the copy is written by a `cp` child process: a file this multi-threaded
/// process wrote itself could be held open for writing by a child another test thread
/// forked meanwhile, and running it would fail with "text file busy" until that child
/// execs.
pub fn copy_program(from: &Path, to: &Path) {
    #[cfg(unix)]
    {
        let st = Command::new("cp")
            .arg("--")
            .arg(from)
            .arg(to)
            .stdin(Stdio::null())
            .status()
            .unwrap();
        assert!(st.success(), "cp {} {}", from.display(), to.display());
        let st = Command::new("chmod").arg("0755").arg(to).status().unwrap();
        assert!(st.success(), "chmod {}", to.display());
    }
    #[cfg(not(unix))]
    {
        std::fs::copy(from, to).unwrap();
    }
}

/// A program at `to` holding `text` (a `#!/bin/sh` script, say), put there as
/// [`copy_program`] does.
#[cfg(unix)]
pub fn write_program(to: &Path, text: &str) {
    let staged = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(staged.path(), text).unwrap();
    copy_program(staged.path(), to);
}

/// A sample home moved into a throw-away folder: its project path (in the records'
/// `cwd`, `.claude.json` and the encoded log folder's name) is rewritten to one inside
/// it. Returns the temp folder and the home.
pub fn relocated(sample: &str, old_home: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let home = std::fs::canonicalize(tmp.path()).unwrap().join("home");
    copy_tree(&samples().join(sample), &home);
    let new_home = home.display().to_string();
    let files: Vec<PathBuf> = walkdir::WalkDir::new(&home)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        if text.contains(old_home) {
            std::fs::write(&f, text.replace(old_home, &new_home)).unwrap();
        }
    }
    let old_folder = mcplogs::claude_code::names::encode_folder_name(old_home);
    let new_folder = mcplogs::claude_code::names::encode_folder_name(&new_home);
    let dirs: Vec<PathBuf> = walkdir::WalkDir::new(&home)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_dir())
        .filter(|e| e.file_name().to_string_lossy().starts_with(&old_folder))
        .map(|e| e.into_path())
        .collect();
    for d in dirs {
        let name = d.file_name().unwrap().to_string_lossy().into_owned();
        let renamed = name.replacen(&old_folder, &new_folder, 1);
        std::fs::rename(&d, d.with_file_name(renamed)).unwrap();
    }
    (tmp, home)
}

/// The project folder a relocated home's logs ran in (`<home>/work/<name>`), created.
pub fn project_in(home: &Path, name: &str) -> PathBuf {
    let p = home.join("work").join(name);
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// The words of a printed command (`sh` quoting: `'...'`, `'\''`, bare words).
pub fn shell_words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' => {
                if let Some(w) = word.take() {
                    out.push(w);
                }
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    w.push(q);
                }
            }
            '\\' => {
                if let Some(n) = chars.next() {
                    word.get_or_insert_with(String::new).push(n);
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    out
}

/// The newest session of the linux sample home (Claude Code 2.1.332).
pub const LINUX_SESSION: &str = "8c5a55f0-962f-45f4-8b1e-aab3bbe13010";

/// What Claude Code sends the status line and the hook for that session in `project`
/// (a wide terminal, so every failing server is named with its reason).
pub fn session_input(project: &Path) -> String {
    let p = serde_json::to_string(&project.display().to_string()).unwrap();
    format!(
        r#"{{"hook_event_name":"UserPromptSubmit","session_id":"{LINUX_SESSION}","cwd":{p},"workspace":{{"current_dir":{p},"project_dir":{p}}},"terminal_width":2000}}"#
    )
}
