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
    /// The server's stdin, written by a thread of its own so that every write ends at
    /// its deadline: a server that never reads its stdin fills the pipe, and a write
    /// blocks until the server is killed ([`StdinWriter`]).
    stdin: Option<StdinWriter>,
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
        let stdin = child.stdin.take().map(StdinWriter::start);
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

/// The writing end of a server's stdin, on a thread of its own: [`StdinWriter::write`]
/// hands a message over and waits for it to be written until the deadline. A write
/// still blocked then (the server does not read, its pipe is full) stays with the
/// thread, which ends when the server is killed (the write fails) or mcplogs exits;
/// every later write fails at once.
struct StdinWriter {
    tx: Option<SyncSender<Vec<u8>>>,
    done: Receiver<std::io::Result<()>>,
    /// A write that did not finish by its deadline: the pipe is stuck.
    stalled: Option<u64>,
}

impl StdinWriter {
    fn start(mut stdin: ChildStdin) -> StdinWriter {
        let (tx, rx) = sync_channel::<Vec<u8>>(1);
        let (done_tx, done) = sync_channel(1);
        std::thread::spawn(move || {
            for line in rx {
                let r = stdin.write_all(&line).and_then(|_| stdin.flush());
                let failed = r.is_err();
                if done_tx.send(r).is_err() || failed {
                    return;
                }
            }
        });
        StdinWriter {
            tx: Some(tx),
            done,
            stalled: None,
        }
    }

    fn write(&mut self, line: Vec<u8>, deadline: Instant) -> Result<(), Failure> {
        if let Some(waited_ms) = self.stalled {
            return Err(Failure::Closed {
                detail: format!(
                    "the server has not read its stdin (a write waited {waited_ms} ms): nothing more can be sent"
                ),
            });
        }
        let started = Instant::now();
        let gone = || Failure::Closed {
            detail: "writing to the server's stdin failed: the pipe is closed".into(),
        };
        let tx = self.tx.as_ref().ok_or_else(gone)?;
        // the channel holds one message, and the previous one was acknowledged
        tx.try_send(line).map_err(|_| gone())?;
        match self
            .done
            .recv_timeout(deadline.saturating_duration_since(started))
        {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(Failure::Closed {
                detail: format!("writing to the server's stdin failed: {e}"),
            }),
            Err(RecvTimeoutError::Disconnected) => Err(gone()),
            Err(RecvTimeoutError::Timeout) => {
                let waited_ms = started.elapsed().as_millis() as u64;
                self.stalled = Some(waited_ms);
                Err(Failure::Timeout { waited_ms })
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
    match parse_message(trimmed) {
        Ok(v) => Some(Incoming::Message(v)),
        Err(_) => Some(Incoming::Noise {
            preview: printable(&String::from_utf8_lossy(trimmed), NOISE_PREVIEW, false),
            bytes: trimmed.len(),
        }),
    }
}

impl Transport for StdioTransport {
    fn send(&mut self, msg: &Value, deadline: Instant) -> Result<(), Failure> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Failure::Closed {
                detail: "stdin already closed".into(),
            });
        };
        let mut line = serde_json::to_vec(msg).expect("json");
        line.push(b'\n');
        stdin.write(line, deadline)
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A server that never reads its stdin: the pipe fills, and each write still ends at
    /// its deadline; after one stalls, the next fails at once.
    #[test]
    fn a_write_to_a_server_that_never_reads_ends_at_its_deadline() {
        let _only = crate::probe::reap::TEST_SERVERS
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let mut t =
            StdioTransport::spawn("sleep", &["30".to_string()], &BTreeMap::new(), None).unwrap();
        let big = serde_json::json!({"jsonrpc": "2.0", "method": "x", "params": {"pad": "a".repeat(256 * 1024)}});
        let r = t.send(&big, Instant::now() + Duration::from_millis(300));
        assert!(matches!(r, Err(Failure::Timeout { .. })), "{r:?}");
        // refused at once: waiting on the stuck pipe would end in a timeout instead
        let r = t.send(&big, Instant::now() + Duration::from_secs(30));
        assert!(matches!(r, Err(Failure::Closed { .. })), "{r:?}");
        let _ = t.close();
    }
}
