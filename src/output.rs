//! Everything the binary writes goes through here. stdout: a closed pipe (`| head`) is
//! success, any other failure an error. stderr: diagnostics only, and a full or closed
//! stderr is never a reason to panic or to fail a command that did its work.

use std::fmt::Display;
use std::io::{self, Write};

use colored::Colorize;
use serde::Serialize;

use crate::error::Error;

/// Writes `text` to stdout as it is.
pub fn stdout(text: &str) -> Result<(), Error> {
    write_stdout(text).map_err(Error::WriteOutput)
}

/// [`stdout`] with the raw I/O error, for a caller that words its own message.
pub fn write_stdout(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// One JSON document, pretty-printed, with a final newline: the form every `--json` has.
pub fn json<T: Serialize + ?Sized>(doc: &T) -> Result<String, Error> {
    let mut text = serde_json::to_string_pretty(doc)?;
    text.push('\n');
    Ok(text)
}

/// A line on stderr. Failures are ignored: stderr is for diagnostics, and a full or
/// closed stderr must not undo or hide work already done.
pub fn note(line: impl Display) {
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// Text on stderr without a newline (a prompt), flushed.
pub fn prompt(text: &str) {
    let mut err = io::stderr().lock();
    let _ = write!(err, "{text}");
    let _ = err.flush();
}

/// `mcplogs: warning: <message>` on stderr.
pub fn warning(message: impl Display) {
    note(format_args!(
        "mcplogs: {} {message}",
        "warning:".yellow().bold()
    ));
}

/// [`warning`] for each of the library's non-fatal problems (`Warning`s, or lines
/// already redacted for a report).
pub fn warnings<W: Display>(warnings: &[W]) {
    for w in warnings {
        warning(w);
    }
}

/// The scan's warnings: one line per kind with a count, or every one with `all`
/// (`--verbose`).
pub fn grouped_warnings(warnings: &[mcplogs::warning::Warning], all: bool) {
    for line in mcplogs::warning::summary_lines(warnings, all) {
        warning(line);
    }
}

/// The width to fit: `COLUMNS` when set, else the terminal's when stdout is one, else
/// `None` (piped: nothing is cut or wrapped).
pub fn width() -> Option<usize> {
    use std::io::IsTerminal;
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
    {
        return Some(n.max(40));
    }
    if !io::stdout().is_terminal() {
        return None;
    }
    terminal_columns().map(|w| w.max(40))
}

/// The terminal's columns. On Unix straight from TIOCGWINSZ, since `terminal_size`
/// gives up when the row count is 0 (as under `script` after `stty cols 80`).
#[cfg(unix)]
fn terminal_columns() -> Option<usize> {
    // SAFETY: TIOCGWINSZ writes one `winsize` into the struct we own; fd 1 is only read.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(1, libc::TIOCGWINSZ, &mut ws) } == 0;
    (ok && ws.ws_col > 0).then_some(usize::from(ws.ws_col))
}

#[cfg(not(unix))]
fn terminal_columns() -> Option<usize> {
    terminal_size::terminal_size().map(|(terminal_size::Width(w), _)| usize::from(w))
}

/// `mcplogs: error: <message>: <causes>` on stderr. Called once, by `main`.
pub fn error(e: &Error) {
    note(format_args!("mcplogs: error: {}", e.chain()));
}
