//! Ending everything a stdio server started, also what left its process group.
//!
//! - **Every unix**: each server starts in a session of its own (`setsid()` before
//!   `exec`), so it and everything it starts without `setsid()` share its session and,
//!   unless they move, its process group; ending a server signals that group
//!   (SIGTERM, half a second, then SIGKILL).
//! - **Linux**, in addition: every process of the server's session is killed, whatever
//!   group it moved to (found in `/proc`); and while a server runs, mcplogs is a child
//!   subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`), so a descendant that left the session
//!   (`setsid()`, a double fork) becomes mcplogs' own child when its parent dies instead
//!   of init's. When the last running server has ended, every such adopted process is
//!   killed and reaped (its own children then come to mcplogs too, and go the same
//!   way), and mcplogs stops being a subreaper. Only children of mcplogs outside its
//!   own session are taken: no server descendant can be in it (sessions are never
//!   joined, only inherited), and the processes mcplogs starts itself (`claude
//!   --version`) are. While other servers still run, adopted processes wait for the
//!   last one: which server they came from cannot be told.
//! - **macOS and other unix**: the session's first process group only; a descendant
//!   that moves to another group or session survives.
//! - **Windows**: the server process itself only.

use std::process::{Child, Command};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The pids of the servers running now; each leads its own session and group.
static LIVE: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Set by [`end_all`]: mcplogs is exiting, and no server may start any more (one started
/// between the sweep and the exit would outlive mcplogs).
static ENDING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn live() -> MutexGuard<'static, Vec<u32>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts `cmd` in a session of its own (unix) and registers it, all while no sweep
/// can run (a sweep must never take a server that is starting for an adopted process).
pub(super) fn spawn(cmd: &mut Command) -> std::io::Result<Child> {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure runs in the forked child before exec and calls only
        // setsid(2), which is async-signal-safe; it allocates nothing.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let mut live = live();
    if ENDING.load(std::sync::atomic::Ordering::SeqCst) {
        return Err(std::io::Error::other(
            "mcplogs is exiting: no server is started",
        ));
    }
    if live.is_empty() {
        subreaper(true);
    }
    match cmd.spawn() {
        Ok(child) => {
            live.push(child.id());
            Ok(child)
        }
        Err(e) => {
            if live.is_empty() {
                subreaper(false);
            }
            Err(e)
        }
    }
}

/// Ends a server started by [`spawn`] and everything of its session (SIGTERM, half a
/// second, SIGKILL), reaps it, and, when it was the last server running, every process
/// adopted meanwhile.
pub(super) fn end(child: &mut Child) {
    let pid = child.id();
    if matches!(child.try_wait(), Ok(None)) {
        signal_session(pid, false);
        let until = Instant::now() + Duration::from_millis(500);
        while Instant::now() < until {
            if !matches!(child.try_wait(), Ok(None)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    // Grandchildren may outlive the leader: the whole session goes.
    signal_session(pid, true);
    let _ = child.kill();
    let _ = child.wait();
    drain_session(pid);
    let mut live = live();
    live.retain(|&p| p != pid);
    if live.is_empty() {
        sweep_adopted();
        subreaper(false);
    }
}

/// Kills every running server's session and every adopted process (for a Ctrl-C
/// handler, just before exiting).
pub fn end_all() {
    let live = live();
    // Under the lock: a probe thread still running cannot start another server after
    // this sweep (the next connection attempt of a server just ended, say).
    ENDING.store(true, std::sync::atomic::Ordering::SeqCst);
    for &pid in live.iter() {
        signal_session(pid, true);
    }
    for &pid in live.iter() {
        drain_session(pid);
    }
    sweep_adopted();
}

/// SIGKILL (`hard`) or SIGTERM to the server's group and, on Linux, to every process of
/// its session.
#[cfg(unix)]
fn signal_session(pid: u32, hard: bool) {
    let sig = if hard { libc::SIGKILL } else { libc::SIGTERM };
    // SAFETY: killpg only sends a signal; the group id is the pid of a server we
    // started as the leader of its own session (and group) and have not reaped yet.
    unsafe {
        libc::killpg(pid as libc::pid_t, sig);
    }
    #[cfg(target_os = "linux")]
    for p in linux::processes() {
        if p.session == pid as i32 && p.state != 'Z' {
            // SAFETY: kill only sends a signal, to a process of the server's session.
            unsafe {
                libc::kill(p.pid, sig);
            }
        }
    }
}

#[cfg(not(unix))]
fn signal_session(_pid: u32, _hard: bool) {}

/// Waits (up to two seconds, killing again) until no process of the session is left
/// running, so that what they started outside it has been handed to mcplogs.
fn drain_session(pid: u32) {
    #[cfg(target_os = "linux")]
    {
        let until = Instant::now() + Duration::from_secs(2);
        loop {
            let left = linux::processes()
                .iter()
                .any(|p| p.session == pid as i32 && p.state != 'Z');
            if !left || Instant::now() >= until {
                return;
            }
            signal_session(pid, true);
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = pid;
}

/// Whether this process already was a subreaper before the first server (an embedding
/// program's choice, left as it was).
#[cfg(target_os = "linux")]
static ALREADY_SUBREAPER: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// On: from the first server's start; off again (unless it was on before) once the last
/// one has ended and what it left behind is swept.
#[cfg(target_os = "linux")]
fn subreaper(on: bool) {
    use std::sync::atomic::Ordering;
    if on {
        let mut was: libc::c_int = 0;
        // SAFETY: PR_GET_CHILD_SUBREAPER writes one int through the pointer, which
        // points to an int we own.
        unsafe {
            libc::prctl(libc::PR_GET_CHILD_SUBREAPER, &mut was as *mut libc::c_int);
        }
        ALREADY_SUBREAPER.store(was != 0, Ordering::Relaxed);
    } else if ALREADY_SUBREAPER.load(Ordering::Relaxed) {
        return;
    }
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes one integer argument and touches
    // no memory of ours.
    unsafe {
        libc::prctl(
            libc::PR_SET_CHILD_SUBREAPER,
            libc::c_ulong::from(on),
            0,
            0,
            0,
        );
    }
}

#[cfg(not(target_os = "linux"))]
fn subreaper(_on: bool) {}

/// Kills and reaps every child of mcplogs outside its own session (adopted from a
/// server), round after round, as their own children come to mcplogs in turn.
/// Called with no server running (the caller holds [`LIVE`]).
fn sweep_adopted() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getpid and getsid(0) have no preconditions.
        let (me, own_session) = unsafe { (libc::getpid(), libc::getsid(0)) };
        for _ in 0..64 {
            let adopted: Vec<i32> = linux::processes()
                .into_iter()
                .filter(|p| p.ppid == me && p.session != own_session)
                .map(|p| p.pid)
                .collect();
            if adopted.is_empty() {
                return;
            }
            for pid in adopted {
                // SAFETY: a child of ours not yet reaped: its pid cannot have been reused.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
                linux::reap(pid);
            }
        }
    }
}

/// Held by every unit test that starts a server through [`spawn`]: the subreaper flag
/// and the list of live servers are the whole process's, and one test asserts the flag
/// is off when no server runs.
#[cfg(all(test, unix))]
pub(crate) static TEST_SERVERS: Mutex<()> = Mutex::new(());

#[cfg(target_os = "linux")]
mod linux {
    use std::time::{Duration, Instant};

    /// The fields of `/proc/PID/stat` the sweep needs.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Proc {
        pub pid: i32,
        pub state: char,
        pub ppid: i32,
        pub session: i32,
    }

    /// `pid (comm) state ppid pgrp session ...`; the name may hold spaces and `)`.
    pub fn parse_stat(s: &str) -> Option<Proc> {
        let pid = s.split(' ').next()?.parse().ok()?;
        let rest = &s[s.rfind(')')? + 1..];
        let mut f = rest.split_ascii_whitespace();
        let state = f.next()?.chars().next()?;
        let ppid = f.next()?.parse().ok()?;
        let _pgrp = f.next()?;
        let session = f.next()?.parse().ok()?;
        Some(Proc {
            pid,
            state,
            ppid,
            session,
        })
    }

    pub fn processes() -> Vec<Proc> {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        dir.flatten()
            .filter(|e| {
                e.file_name()
                    .as_encoded_bytes()
                    .iter()
                    .all(u8::is_ascii_digit)
            })
            // procfs: a kernel file of one short line, neither a FIFO nor large
            .filter_map(|e| {
                #[allow(clippy::disallowed_methods)]
                std::fs::read_to_string(e.path().join("stat")).ok()
            })
            .filter_map(|s| parse_stat(&s))
            .collect()
    }

    /// Reaps a child just sent SIGKILL (waiting at most a second: one stuck in the
    /// kernel is left as it is).
    pub fn reap(pid: i32) {
        let until = Instant::now() + Duration::from_secs(1);
        loop {
            let mut status = 0;
            // SAFETY: waitpid on a child of ours, with a status integer we own.
            let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if r != 0 || Instant::now() >= until {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn is_subreaper() -> bool {
            let mut v: libc::c_int = 0;
            // SAFETY: writes one int we own.
            unsafe { libc::prctl(libc::PR_GET_CHILD_SUBREAPER, &mut v as *mut libc::c_int) };
            v != 0
        }

        #[test]
        fn a_server_leads_its_own_session_and_the_subreaper_lasts_while_it_runs() {
            // every unit test that starts a server holds this lock
            let _only = crate::probe::reap::TEST_SERVERS
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            assert!(!is_subreaper());
            let mut cmd = std::process::Command::new("sleep");
            cmd.arg("30");
            let mut child = super::super::spawn(&mut cmd).unwrap();
            assert!(is_subreaper());
            let pid = child.id() as i32;
            // SAFETY: getsid on a child of ours.
            assert_eq!(unsafe { libc::getsid(pid) }, pid);
            super::super::end(&mut child);
            assert!(!is_subreaper());
            assert!(processes().iter().all(|p| p.pid != pid));
        }

        #[test]
        fn stat_lines_with_odd_names_parse() {
            assert_eq!(
                parse_stat("42 (a b) c) S 7 42 40 0 -1 4194560"),
                Some(Proc {
                    pid: 42,
                    state: 'S',
                    ppid: 7,
                    session: 40
                })
            );
            assert_eq!(parse_stat("garbage"), None);
            // SAFETY: getpid and getsid(0) have no preconditions.
            let (me, sid) = unsafe { (libc::getpid(), libc::getsid(0)) };
            let mine = processes().into_iter().find(|p| p.pid == me).unwrap();
            assert_eq!(mine.session, sid);
        }
    }
}
