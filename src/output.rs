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

/// A screen (human output, never JSON) on stdout: the layout toolkit's last pass
/// ([`mcplogs::text::layout::fit`]) keeps every line within the terminal's width,
/// whatever a renderer missed; piped, it is written as it is.
pub fn screen(text: &str) -> Result<(), Error> {
    stdout(&mcplogs::text::layout::fit(text, width()))
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

/// [`json`], with every string value passed through the secret rules of the redactor
/// first when `redact` (the last redaction pass of a JSON document).
pub fn json_redacted<T: Serialize + ?Sized>(doc: &T, redact: bool) -> Result<String, Error> {
    if !redact {
        return json(doc);
    }
    let mut value = serde_json::to_value(doc)?;
    mcplogs::redact::output::json_secrets(&mut value);
    json(&value)
}

/// A line on stderr. Failures are ignored: stderr is for diagnostics, and a full or
/// closed stderr must not undo or hide work already done.
/// The line is one line: a line break inside it (from a file or folder name, such as
/// the path in "Wrote <path>") is shown escaped, so no name can forge a line of its own.
/// This user's home folder, shown as `~` in every path mcplogs prints.
pub fn home() -> Option<&'static str> {
    static HOME: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    HOME.get_or_init(|| directories::BaseDirs::new().map(|b| b.home_dir().display().to_string()))
        .as_deref()
}

/// `text` with the home folder as `~` wherever a path under it starts.
pub fn tilde(text: &str) -> String {
    mcplogs::text::layout::tilde_within(text, home())
}

pub fn note(line: impl Display) {
    let line = tilde(&line.to_string())
        .replace('\r', "\\r")
        .replace('\n', "\\n");
    let line = mcplogs::text::layout::wrap_keeping(&line, "", 2, err_width());
    let line = mcplogs::sanitize::output(&line, colour_on());
    let _ = io::stderr().lock().write_all(line.as_bytes());
}

/// A multi-line usage message (clap's, with its tip and usage lines) on stderr, as it is
/// apart from escapes.
pub fn usage(text: &str) {
    let text = mcplogs::text::layout::fit(&format!("{}\n", tilde(text)), err_width());
    let text = mcplogs::sanitize::output(&text, false);
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// Text on stderr without a newline (a prompt), flushed.
pub fn prompt(text: &str) {
    let text = mcplogs::sanitize::output(text, colour_on());
    let mut err = io::stderr().lock();
    let _ = write!(err, "{text}");
    let _ = err.flush();
}

/// Asks `question` on stderr and reads one line from stdin: true for `y` or `yes` (any
/// case). End of input (Ctrl-D) is a no, and ends the prompt's line.
pub fn ask(question: &str) -> io::Result<bool> {
    prompt(question);
    let mut answer = String::new();
    if io::BufRead::read_line(&mut io::stdin().lock(), &mut answer)? == 0 {
        note("");
        return Ok(false);
    }
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
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

/// The width to fit stdout to: `COLUMNS` when set, else the terminal's when stdout is
/// one, else `None` (piped: nothing is cut or wrapped). Never below
/// [`mcplogs::text::layout::MIN_WIDTH`].
pub fn width() -> Option<usize> {
    width_of(Stream::Stdout)
}

/// [`width`] for stderr (diagnostics, prompts, errors): `COLUMNS`, else stderr's
/// terminal.
pub fn err_width() -> Option<usize> {
    width_of(Stream::Stderr)
}

#[derive(Clone, Copy)]
enum Stream {
    Stdout,
    Stderr,
}

fn width_of(stream: Stream) -> Option<usize> {
    use std::io::IsTerminal;
    let min = mcplogs::text::layout::MIN_WIDTH;
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
    {
        return Some(n.max(min));
    }
    let terminal = match stream {
        Stream::Stdout => io::stdout().is_terminal(),
        Stream::Stderr => io::stderr().is_terminal(),
    };
    if !terminal {
        return None;
    }
    terminal_columns(stream).map(|w| w.max(min))
}

/// The terminal's columns. On Unix straight from TIOCGWINSZ, since `terminal_size`
/// gives up when the row count is 0 (as under `script` after `stty cols 80`).
#[cfg(unix)]
fn terminal_columns(stream: Stream) -> Option<usize> {
    let fd = match stream {
        Stream::Stdout => libc::STDOUT_FILENO,
        Stream::Stderr => libc::STDERR_FILENO,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` into the struct we own; the fd is only read.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) } == 0;
    (ok && ws.ws_col > 0).then_some(usize::from(ws.ws_col))
}

#[cfg(not(unix))]
fn terminal_columns(stream: Stream) -> Option<usize> {
    let size = match stream {
        Stream::Stdout => terminal_size::terminal_size_of(io::stdout()),
        Stream::Stderr => terminal_size::terminal_size_of(io::stderr()),
    };
    size.map(|(terminal_size::Width(w), _)| usize::from(w))
}

/// `mcplogs: error: <message>: <causes>` on stderr. Called once, by `main`.
pub fn error(e: &Error) {
    note(format_args!(
        "mcplogs: error: {}",
        mcplogs::sanitize::text(&e.chain().to_string())
    ));
}
