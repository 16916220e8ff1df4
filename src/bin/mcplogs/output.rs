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
    // A piece of whole lines at a time (both passes work line by line): the screen of
    // 100,000 servers is 10 MB, and whole copies of it were a tenth of a scan's memory.
    let width = width();
    write_pieces(line_pieces(text, 1 << 16).map(|piece| mcplogs::text::layout::fit(piece, width)))
        .map_err(Error::WriteOutput)
}

/// `text` in pieces of at least `size` bytes (the last may be shorter), each ending
/// with a line.
fn line_pieces(text: &str, size: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = match rest.get(size..).and_then(|t| t.find('\n')) {
            Some(i) => size + i + 1,
            None if rest.len() > size && !rest.is_char_boundary(size) => {
                // `size` fell inside a character: find the line end from the next one.
                let from = (size..rest.len())
                    .find(|&i| rest.is_char_boundary(i))
                    .unwrap_or(rest.len());
                rest[from..].find('\n').map_or(rest.len(), |i| from + i + 1)
            }
            None => rest.len(),
        };
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
}

/// [`stdout`] with the raw I/O error, for a caller that words its own message.
pub fn write_stdout(text: &str) -> io::Result<()> {
    write_pieces(std::iter::once(text))
}

/// Writes the pieces to stdout in order, each through the sanitizer's last pass (which
/// works character by character, so pieces of whole characters are enough); a closed
/// pipe is success.
fn write_pieces<T: AsRef<str>>(mut pieces: impl Iterator<Item = T>) -> io::Result<()> {
    let colour = colour_on();
    let mut out = io::stdout().lock();
    let written = pieces.try_for_each(|p| {
        out.write_all(mcplogs::text::sanitize::output(p.as_ref(), colour).as_bytes())
    });
    match written.and_then(|_| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// One JSON document, pretty-printed, with a final newline: the form every `--json` has.
/// DEL, C1 and bidi controls, which serde_json writes raw, are `\u`-escaped.
pub fn json<T: Serialize + ?Sized>(doc: &T) -> Result<String, Error> {
    let text = serde_json::to_string_pretty(doc)?;
    let mut text = mcplogs::text::sanitize::json(&text).into_owned();
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

/// [`json_redacted`] written to stdout as it is serialised, for a document with one
/// long array: `head` is the document with the array (its field `field`) empty, and
/// `rows` its elements, each serialised (and redacted) when its turn comes, so only one
/// element at a time exists as JSON. The bytes are those of [`json_redacted`] of the
/// whole document followed by [`stdout`]: the same pretty form, each string value
/// through the same secret rules (which look at one value, or two neighbouring strings
/// of one array, at a time), the same escapes. A closed pipe is success.
pub fn json_streamed<H, T>(
    head: &H,
    field: &str,
    rows: impl Iterator<Item = T> + Send,
    redact: bool,
) -> Result<(), Error>
where
    H: Serialize + ?Sized,
    T: Serialize + Send,
{
    let written = write_streamed(
        head,
        field,
        rows,
        redact,
        colour_on(),
        io::stdout().lock(),
        1 << 16,
    );
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(Error::WriteOutput),
    }
}

/// [`json_streamed`] into `out`, through a buffer of `capacity` bytes.
///
/// The head is written as [`json`] writes it, cut where its empty array is; each row is
/// made into its final text (redacted, pretty, indented for its place, escaped) by the
/// workers, so this thread only writes bytes.
fn write_streamed<H, T>(
    head: &H,
    field: &str,
    rows: impl Iterator<Item = T> + Send,
    redact: bool,
    colour: bool,
    out: impl Write,
    capacity: usize,
) -> io::Result<()>
where
    H: Serialize + ?Sized,
    T: Serialize + Send,
{
    let mut head = serde_json::to_value(head)?;
    if redact {
        mcplogs::redact::output::json_secrets(&mut head);
    }
    write_streamed_value(
        head,
        field,
        rows,
        &|row| row_text(row, redact, colour),
        colour,
        out,
        capacity,
    )
}

/// [`json_streamed`] of a document whose head and rows its caller redacts (`report
/// --json`, with the report's own redactor): `head` is the document, redacted, with its
/// array `field` empty; `row` makes each element into its JSON value, redacted, on the
/// workers. The bytes are those of [`json`] of the whole document's value followed by
/// [`stdout`] (the redaction of a document's values works value by value, and of an
/// array's neighbouring strings: the rows are objects).
pub fn json_value_streamed<T: Send>(
    head: serde_json::Value,
    field: &str,
    rows: impl Iterator<Item = T> + Send,
    row: impl Fn(T) -> serde_json::Result<serde_json::Value> + Sync,
) -> io::Result<()> {
    let colour = colour_on();
    let text = |r: T| -> io::Result<String> {
        let value = row(r)?;
        let text = serde_json::to_string_pretty(&value)?.replace('\n', ROW_INDENT);
        Ok(final_text(text, colour))
    };
    let written = write_streamed_value(
        head,
        field,
        rows,
        &text,
        colour,
        io::stdout().lock(),
        1 << 16,
    );
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// [`write_streamed`] of a head already made into its (redacted) value, each row made
/// into its final text by `row_text`.
fn write_streamed_value<T: Send>(
    head: serde_json::Value,
    field: &str,
    rows: impl Iterator<Item = T> + Send,
    row_text: &(dyn Fn(T) -> io::Result<String> + Sync),
    colour: bool,
    out: impl Write,
    capacity: usize,
) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(capacity, out);
    let text = final_text(serde_json::to_string_pretty(&head)?, colour);
    // The array is a value of the top object, so in the pretty form it has a line of
    // its own two spaces in: `  "field": []`. No other line can start so: string values
    // never hold a raw line break, deeper keys are further in, and keys are unique.
    let line = final_text(format!("\n  {}: []", serde_json::to_string(field)?), colour);
    let at = match &head {
        serde_json::Value::Object(o) if o.get(field).is_some_and(is_empty_array) => {
            text.find(&line)
        }
        _ => None,
    };
    let Some(at) = at else {
        // Nothing to stream into: the head is the document.
        out.write_all(text.as_bytes())?;
        out.write_all(b"\n")?;
        return out.flush();
    };
    let (before, after) = text.split_at(at + line.len() - 1);
    out.write_all(before.as_bytes())?;
    let mut first = true;
    for_each_row_text(rows, row_text, |row| {
        if !first {
            out.write_all(b",")?;
        }
        first = false;
        out.write_all(ROW_INDENT.as_bytes())?;
        out.write_all(row.as_bytes())
    })?;
    if !first {
        // The array's closing bracket, on the line of its key.
        out.write_all(b"\n  ")?;
    }
    out.write_all(after.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

fn is_empty_array(v: &serde_json::Value) -> bool {
    v.as_array().is_some_and(Vec::is_empty)
}

/// How many rows [`json_streamed`] makes ahead of the output.
const ROWS_AT_ONCE: usize = 256;

/// A row's line break in the pretty document: rows are the elements of an array that is
/// a value of the top object, so their lines sit two levels (four spaces) in. (String
/// values never hold a raw line break: JSON escapes it.)
const ROW_INDENT: &str = "\n    ";
/// [`ROW_INDENT`] in levels of two spaces.
const ROW_LEVEL: usize = 2;
const _: () = assert!(ROW_INDENT.len() == 1 + 2 * ROW_LEVEL);

/// Calls `write` with the final text of each row, in order. A few rows at a time are
/// made in parallel (the secret rules are most of the work), so memory holds a few
/// shares, not the document; the next shares are made while this thread writes one.
fn for_each_row_text<T: Send>(
    rows: impl Iterator<Item = T> + Send,
    row_text: &(dyn Fn(T) -> io::Result<String> + Sync),
    mut write: impl FnMut(&str) -> io::Result<()>,
) -> io::Result<()> {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<io::Result<String>>>(2);
        let mut rows = rows;
        scope.spawn(move || {
            use rayon::prelude::*;
            loop {
                let chunk: Vec<T> = rows.by_ref().take(ROWS_AT_ONCE).collect();
                if chunk.is_empty() {
                    break;
                }
                // Each row becomes its text in the thread that made it (made and freed
                // in one thread: values freed by another thread's allocator arena cost
                // more than the redaction).
                let texts: Vec<io::Result<String>> = chunk.into_par_iter().map(row_text).collect();
                if tx.send(texts).is_err() {
                    // The writer stopped (an error): nothing more is wanted.
                    break;
                }
            }
        });
        for texts in rx {
            for t in texts {
                write(&t?)?;
            }
        }
        Ok(())
    })
}

/// A row as the document holds it: redacted (when `redact`), pretty, indented for its
/// place, escaped as [`json`] and [`stdout`] escape.
fn row_text<T: Serialize>(row: T, redact: bool, colour: bool) -> io::Result<String> {
    let text = if redact {
        mcplogs::redact::pretty::to_secrets_pretty(&row, ROW_LEVEL)?
    } else {
        serde_json::to_string_pretty(&row)?.replace('\n', ROW_INDENT)
    };
    Ok(final_text(text, colour))
}

/// serde_json's output as [`json`] and then [`stdout`] leave it. Both work character by
/// character, and serde_json's output holds no raw ESC (so no colour sequence), so the
/// pieces of a document can go through them one by one.
fn final_text(text: String, colour: bool) -> String {
    match mcplogs::text::sanitize::json_output(&text, colour) {
        // Nothing to escape (nearly always): the text itself, not a copy.
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(escaped) => escaped,
    }
}

/// A line on stderr. Failures are ignored: stderr is for diagnostics, and a full or
/// closed stderr must not undo or hide work already done.
/// The line is one line: a line break inside it (from a file or folder name, such as
/// the path in "Wrote `<path>`") is shown escaped, so no name can forge a line of its own.
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
    let line = mcplogs::text::sanitize::output(&line, colour_on());
    let _ = io::stderr().lock().write_all(line.as_bytes());
}

/// A multi-line usage message (clap's, with its tip and usage lines) on stderr, as it is
/// apart from escapes.
pub fn usage(text: &str) {
    let text = mcplogs::text::layout::fit(&format!("{}\n", tilde(text)), err_width());
    let text = mcplogs::text::sanitize::output(&text, false);
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// Lines on stderr as they are (a diff shown again where a question is asked), fitted to
/// stderr's terminal, control characters escaped, uncoloured.
pub fn stderr_block(text: &str) {
    let text = mcplogs::text::layout::fit(text, err_width());
    let text = mcplogs::text::sanitize::output(&text, false);
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// Text on stderr without a newline (a prompt), flushed.
pub fn prompt(text: &str) {
    let text = mcplogs::text::sanitize::output(text, colour_on());
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
/// `Wrote PATH (backup: BACKUP).` and what follows it (` Undo with `…`.`, or nothing):
/// the one line a settings write ends with (`fix`, `setup`).
pub fn wrote(path: &std::path::Path, backup: Option<&std::path::Path>, then: &str) {
    note(format_args!(
        "{} {}{}.{then}",
        "Wrote".green().bold(),
        path.display(),
        backup
            .map(|b| format!(" (backup: {})", b.display()))
            .unwrap_or_default(),
    ));
}

pub fn warning(message: impl Display) {
    note(format_args!(
        "mcplogs: {} {}",
        "warning:".yellow().bold(),
        mcplogs::text::sanitize::text(&message.to_string())
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
        mcplogs::text::sanitize::text(&e.chain().to_string())
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    /// Counts what reached it.
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[derive(Serialize)]
    struct Doc {
        version: u32,
        rows: Vec<Row>,
        tail: Vec<String>,
    }

    #[derive(Serialize, Clone)]
    struct Row {
        name: String,
        args: Vec<String>,
    }

    /// Rows with what the last passes change: a bidi control and DEL (escaped), a
    /// secret (redacted), a flag and its value as two strings, multi-byte characters
    /// that buffers of a few bytes cut in two.
    fn row(i: usize) -> Row {
        Row {
            name: format!("server-{i} \u{202e}é\u{7f} token ghp_{:036}", i),
            args: vec!["--token".into(), format!("v{i}-sEcReT-{i:08}-x9Q2")],
        }
    }

    fn whole(rows: &[Row], redact: bool) -> Vec<u8> {
        let doc = Doc {
            version: 1,
            rows: rows.to_vec(),
            tail: vec!["ghp_0123456789abcdef0123456789abcdef0123".into()],
        };
        let text = json_redacted(&doc, redact).unwrap();
        mcplogs::text::sanitize::output(&text, false)
            .into_owned()
            .into_bytes()
    }

    #[test]
    fn a_screen_in_pieces_is_the_whole_screen_in_lines() {
        let text = "ab\néé\n\nlong line here\nno newline at the end é";
        for size in 0..text.len() + 2 {
            let pieces: Vec<&str> = line_pieces(text, size).collect();
            assert_eq!(pieces.concat(), text, "size {size}");
            for p in &pieces[..pieces.len() - 1] {
                assert!(p.ends_with('\n') && p.len() >= size, "size {size}: {p:?}");
            }
        }
        assert_eq!(line_pieces("", 4).count(), 0);
    }

    #[test]
    fn the_streamed_document_is_the_whole_documents_bytes() {
        let rows: Vec<Row> = (0..50).map(row).collect();
        for redact in [true, false] {
            for capacity in [1, 3, 7, 4096, 1 << 16] {
                let got = Arc::new(Mutex::new(Vec::new()));
                let head = Doc {
                    version: 1,
                    rows: Vec::new(),
                    tail: vec!["ghp_0123456789abcdef0123456789abcdef0123".into()],
                };
                write_streamed(
                    &head,
                    "rows",
                    rows.iter().cloned(),
                    redact,
                    false,
                    Sink(Arc::clone(&got)),
                    capacity,
                )
                .unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&got.lock().unwrap()),
                    String::from_utf8_lossy(&whole(&rows, redact)),
                    "redact {redact}, buffer {capacity}"
                );
            }
        }
        // No rows: the same `[]` as an empty list.
        let got = Arc::new(Mutex::new(Vec::new()));
        let head = Doc {
            version: 1,
            rows: Vec::new(),
            tail: Vec::new(),
        };
        write_streamed(
            &head,
            "rows",
            std::iter::empty::<Row>(),
            true,
            false,
            Sink(Arc::clone(&got)),
            64,
        )
        .unwrap();
        assert_eq!(*got.lock().unwrap(), json(&head).unwrap().into_bytes());
    }

    #[test]
    fn rows_are_written_before_the_next_ones_are_made() {
        // Rows are made a few shares ahead of the writer (the share being written, two
        // waiting, one being made); by then every earlier share has left the buffer
        // (4 KiB here), so memory holds a few shares, whatever their number.
        let got = Arc::new(Mutex::new(Vec::new()));
        let made = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&got);
        let counter = Arc::clone(&made);
        let rows = (0..4000).map(move |i| {
            counter.store(i + 1, Ordering::Relaxed);
            if i >= 100 {
                // Rows are over 100 bytes each: all but the last buffer's worth of the
                // earlier shares are out.
                let out = seen.lock().unwrap().len();
                assert!(
                    out + 4 * ROWS_AT_ONCE * 100 >= (i - 40) * 100,
                    "row {i}: only {out} bytes written"
                );
            }
            row(i)
        });
        let head = Doc {
            version: 1,
            rows: Vec::new(),
            tail: Vec::new(),
        };
        write_streamed(
            &head,
            "rows",
            rows,
            true,
            false,
            Sink(Arc::clone(&got)),
            4096,
        )
        .unwrap();
        assert_eq!(made.load(Ordering::Relaxed), 4000);
        let all: Vec<Row> = (0..4000).map(row).collect();
        let doc = Doc {
            version: 1,
            rows: all,
            tail: Vec::new(),
        };
        assert_eq!(
            *got.lock().unwrap(),
            json_redacted(&doc, true).unwrap().into_bytes()
        );
    }
}
