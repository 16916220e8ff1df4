//! Newline-delimited JSON-RPC over a child process's stdin/stdout: the child in a session
//! of its own, lines read bounded, noise kept as a preview, stderr kept head and tail.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio as PStdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::*;

// ---------------------------------------------------------------------------------
// stdio
// ---------------------------------------------------------------------------------

pub struct StdioTransport {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Incoming>,
    stderr: Arc<Mutex<StderrLog>>,
    /// Disconnects when the stderr reader has seen end of file.
    stderr_done: Receiver<()>,
    closed: bool,
    killed: bool,
}

impl StdioTransport {
    /// Starts `command args` in `cwd` with `env` added to this process's environment,
    /// in a session (and process group) of its own.
    pub fn spawn(
        command: &str,
        args: &[String],
        env: &BTreeMap<String, String>,
        cwd: Option<&Path>,
    ) -> Result<StdioTransport, Failure> {
        if command.is_empty() {
            return Err(Failure::Spawn {
                message: "no command configured".into(),
            });
        }
        let mut cmd = Command::new(command);
        cmd.args(args)
            .envs(env)
            .stdin(PStdio::piped())
            .stdout(PStdio::piped())
            .stderr(PStdio::piped());
        if let Some(d) = cwd.filter(|d| d.is_dir()) {
            cmd.current_dir(d);
        }
        // In a session of its own (and, on Linux, under mcplogs as subreaper).
        let mut child = crate::probe::reap::spawn(&mut cmd).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Failure::CommandNotFound {
                command: command.to_string(),
            },
            _ => Failure::Spawn {
                message: format!("{command}: {e}"),
            },
        })?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        let (tx, rx) = sync_channel(256);
        std::thread::spawn(move || read_lines(stdout, tx));
        let stderr = Arc::new(Mutex::new(StderrLog::default()));
        let sink = Arc::clone(&stderr);
        let (done_tx, stderr_done) = sync_channel::<()>(1);
        std::thread::spawn(move || {
            let _done = done_tx;
            let mut r = stderr_pipe;
            let mut buf = [0u8; 8192];
            loop {
                match r.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if let Ok(mut s) = sink.lock() {
                            s.push(&buf[..n]);
                        }
                    }
                }
            }
        });
        Ok(StdioTransport {
            child,
            stdin,
            rx,
            stderr,
            stderr_done,
            closed: false,
            killed: false,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn exit_detail(&mut self) -> String {
        // the process usually exits right after closing stdout
        let until = Instant::now() + Duration::from_millis(300);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return format!("the server exited, {status}"),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
                _ => return "the server closed its stdout".into(),
            }
        }
    }
}

/// Splits stdout into lines, each bounded by [`MAX_MESSAGE_BYTES`].
pub(super) fn read_lines(stdout: impl Read, tx: SyncSender<Incoming>) {
    let mut r = BufReader::with_capacity(64 * 1024, stdout);
    let mut line: Vec<u8> = Vec::new();
    let mut overflow = 0usize;
    loop {
        let buf = match r.fill_buf() {
            Ok([]) => break,
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let (chunk, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if overflow > 0 || line.len() + chunk.len() > MAX_MESSAGE_BYTES {
            overflow += line.len() + chunk.len();
            line.clear();
        } else {
            line.extend_from_slice(chunk);
        }
        let used = done.unwrap_or(buf.len());
        r.consume(used);
        if done.is_some() {
            let msg = if overflow > 0 {
                let m = Incoming::Noise {
                    preview: format!(
                        "[a line of {overflow} bytes, over the {MAX_MESSAGE_BYTES}-byte limit, was dropped]"
                    ),
                    bytes: overflow,
                };
                overflow = 0;
                Some(m)
            } else {
                classify_line(&line)
            };
            line.clear();
            if let Some(m) = msg
                && tx.send(m).is_err()
            {
                return;
            }
        }
    }
    if !line.is_empty()
        && let Some(m) = classify_line(&line)
    {
        let _ = tx.send(m);
    }
    let _ = tx.send(Incoming::Closed {
        detail: "end of stdout".into(),
    });
}

pub(super) fn classify_line(line: &[u8]) -> Option<Incoming> {
    let trimmed = line.trim_ascii();
    if trimmed.is_empty() {
        return None;
    }
    match serde_json::from_slice::<Value>(trimmed) {
        Ok(v) => Some(Incoming::Message(v)),
        Err(_) => Some(Incoming::Noise {
            preview: printable(&String::from_utf8_lossy(trimmed), NOISE_PREVIEW, false),
            bytes: trimmed.len(),
        }),
    }
}

impl Transport for StdioTransport {
    fn send(&mut self, msg: &Value, _deadline: Instant) -> Result<(), Failure> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Failure::Closed {
                detail: "stdin already closed".into(),
            });
        };
        let mut line = serde_json::to_vec(msg).expect("json");
        line.push(b'\n');
        // A server that does not read its stdin can block this write once the pipe is
        // full; messages here are small, far below a pipe's buffer.
        stdin
            .write_all(&line)
            .and_then(|_| stdin.flush())
            .map_err(|e| Failure::Closed {
                detail: format!("writing to the server's stdin failed: {e}"),
            })
    }

    fn recv(&mut self, deadline: Instant) -> Result<Incoming, Failure> {
        if self.closed {
            let detail = self.exit_detail();
            return Err(Failure::Closed { detail });
        }
        let started = Instant::now();
        let wait = deadline.saturating_duration_since(started);
        match self.rx.recv_timeout(wait) {
            Ok(Incoming::Closed { .. }) | Err(RecvTimeoutError::Disconnected) => {
                self.closed = true;
                let detail = self.exit_detail();
                Ok(Incoming::Closed { detail })
            }
            Ok(m) => Ok(m),
            Err(RecvTimeoutError::Timeout) => Err(Failure::Timeout {
                waited_ms: started.elapsed().as_millis() as u64,
            }),
        }
    }

    fn stderr(&self) -> Option<StderrLog> {
        self.stderr.lock().ok().map(|s| s.clone())
    }

    fn describe(&self) -> String {
        format!("pid {}", self.child.id())
    }
}

impl StdioTransport {
    /// Ends the server and everything it started, and returns everything it wrote to stderr
    /// (waiting up to half a second for the pipe to drain).
    pub fn close(mut self) -> Option<StderrLog> {
        self.kill_now();
        let _ = self.stderr_done.recv_timeout(Duration::from_millis(500));
        self.stderr.lock().ok().map(|s| s.clone())
    }

    fn kill_now(&mut self) {
        if self.killed {
            return;
        }
        self.killed = true;
        self.stdin.take();
        crate::probe::reap::end(&mut self.child);
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.kill_now();
    }
}
