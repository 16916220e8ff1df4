//! Everything the binary writes goes through here. stdout: a closed pipe (`| head`) is
//! success, any other failure an error. stderr: diagnostics only, and a full or closed
//! stderr is never a reason to panic or to fail a command that did its work.

use std::fmt::Display;
use std::io::{self, Write};

use colored::Colorize;
use serde::Serialize;

use crate::error::Error;

/// Whether colour is on (terminal, `--color`, `NO_COLOR`): the sanitizer then keeps
/// mcplogs' own colour sequences.
fn colour_on() -> bool {
    colored::control::SHOULD_COLORIZE.should_colorize()
}

/// Writes `text` to stdout, through the sanitizer's last pass (no raw control
/// character from a file name, a log or a setting reaches the terminal).
pub fn stdout(text: &str) -> Result<(), Error> {
    write_stdout(text).map_err(Error::WriteOutput)
}

/// [`stdout`] with the raw I/O error, for a caller that words its own message.
pub fn write_stdout(text: &str) -> io::Result<()> {
    let text = mcplogs::sanitize::output(text, colour_on());
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// One JSON document, pretty-printed, with a final newline: the form every `--json` has.
/// DEL, C1 and bidi controls, which serde_json writes raw, are `\u`-escaped.
pub fn json<T: Serialize + ?Sized>(doc: &T) -> Result<String, Error> {
    let text = serde_json::to_string_pretty(doc)?;
    let mut text = mcplogs::sanitize::json(&text).into_owned();
    text.push('\n');
    Ok(text)
}

/// A line on stderr. Failures are ignored: stderr is for diagnostics, and a full or
/// closed stderr must not undo or hide work already done.
pub fn note(line: impl Display) {
    let line = format!("{line}\n");
    let line = mcplogs::sanitize::output(&line, colour_on());
    let _ = io::stderr().lock().write_all(line.as_bytes());
}

/// Text on stderr without a newline (a prompt), flushed.
pub fn prompt(text: &str) {
    let text = mcplogs::sanitize::output(text, colour_on());
    let mut err = io::stderr().lock();
    let _ = write!(err, "{text}");
    let _ = err.flush();
}

/// `mcplogs: warning: <message>` on stderr.
/// The message is one line: a newline or control character in it (from a file name)
/// is shown escaped.
pub fn warning(message: impl Display) {
    note(format_args!(
        "mcplogs: {} {}",
        "warning:".yellow().bold(),
        mcplogs::sanitize::text(&message.to_string())
    ));
}

/// The scan's warnings: many of one kind collapse into one line with a count, unless
/// `all` (`--verbose`).
pub fn scan_warnings(ws: &[mcplogs::warning::Warning], all: bool) {
    if all {
        warnings(ws);
    } else {
        warnings(&mcplogs::warning::collapse_kinds(ws));
    }
}

/// [`warning`] for each of the library's non-fatal problems (`Warning`s, or lines
/// already redacted for a report).
pub fn warnings<W: Display>(warnings: &[W]) {
    for w in warnings {
        warning(w);
    }
}

/// `mcplogs: error: <message>: <causes>` on stderr. Called once, by `main`.
pub fn error(e: &Error) {
    note(format_args!(
        "mcplogs: error: {}",
        mcplogs::sanitize::text(&e.chain().to_string())
    ));
}
