//! Bytes to records, for every format Claude Code has written MCP logs in.
//!
//! The format is detected from the content (a log can be renamed or pasted anywhere);
//! every record is JSON-decoded before anyone matches on its text.

mod debug_log;
mod escapes;
mod fields;
mod json_array;
mod jsonl;
pub mod lines;
pub mod stream;

use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use aho_corasick::AhoCorasick;

use crate::logs::record::{Level, Record, RecordRef};

pub use debug_log::split_mcp_prefix;

/// Lines longer than this are skipped (and counted) rather than decoded. Real records
/// are far shorter; longer lines are JSON-RPC payload dumps that never decide a verdict.
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// The older pretty-printed array files are parsed whole; refuse absurd sizes.
pub const MAX_JSON_ARRAY_BYTES: u64 = 256 * 1024 * 1024;

/// How many bytes of the head are looked at to recognise a format.
const SNIFF_BYTES: usize = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// Current per-server files: one JSON object per line.
    JsonLines,
    /// Mid-2025 per-server `.txt` files: one pretty-printed JSON array.
    JsonArray,
    /// `--debug-file` / `~/.claude/debug/*.txt`: `<ISO> [LEVEL] message`.
    DebugLog,
}

impl LogFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            LogFormat::JsonLines => "jsonl",
            LogFormat::JsonArray => "json-array",
            LogFormat::DebugLog => "debug-log",
        }
    }
}

/// What was wrong with a file, counted so that one warning per file can say it all.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Damage {
    pub lines: usize,
    pub not_json: usize,
    pub not_a_record: usize,
    pub invalid_utf8: usize,
    /// Records kept although a string escape was invalid or a lone surrogate: decoded
    /// with U+FFFD in its place.
    pub bad_escapes: usize,
    pub too_long: usize,
    pub truncated_last: bool,
    pub empty: bool,
    pub unrecognised: bool,
    pub too_large: bool,
}

impl Damage {
    pub fn is_clean(&self) -> bool {
        *self
            == Damage {
                lines: self.lines,
                ..Damage::default()
            }
    }

    /// A one-line summary, or `None` for an undamaged file.
    pub fn summary(&self) -> Option<String> {
        if self.is_clean() {
            return None;
        }
        if self.empty {
            return Some("empty file, no records".to_string());
        }
        if self.unrecognised {
            return Some("not a Claude Code log (binary or unknown content), skipped".to_string());
        }
        if self.too_large {
            return Some(format!(
                "old-format JSON array larger than {} MiB, skipped",
                MAX_JSON_ARRAY_BYTES >> 20
            ));
        }
        let mut parts = Vec::new();
        let mut skipped = 0;
        if self.not_json > 0 {
            parts.push(format!("{} not valid JSON", self.not_json));
            skipped += self.not_json;
        }
        if self.not_a_record > 0 {
            parts.push(format!("{} JSON but not a log record", self.not_a_record));
            skipped += self.not_a_record;
        }
        if self.too_long > 0 {
            parts.push(format!(
                "{} longer than {} MiB",
                self.too_long,
                MAX_LINE_BYTES >> 20
            ));
            skipped += self.too_long;
        }
        if self.truncated_last {
            parts.push("a truncated last record".to_string());
            skipped += 1;
        }
        let mut out = if skipped > 0 {
            // Old-format arrays count elements, and several can share a line.
            let of = if skipped <= self.lines {
                format!(" of {}", crate::text::count(self.lines, "line"))
            } else {
                String::new()
            };
            format!("skipped {skipped}{of} ({})", parts.join(", "))
        } else {
            String::new()
        };
        if self.invalid_utf8 > 0 {
            if !out.is_empty() {
                out.push_str("; ");
            }
            out.push_str(&format!(
                "{} with invalid UTF-8 decoded with replacement characters",
                crate::text::count(self.invalid_utf8, "line")
            ));
        }
        if self.bad_escapes > 0 {
            if !out.is_empty() {
                out.push_str("; ");
            }
            out.push_str(&format!(
                "{} with invalid escapes or lone surrogates decoded with replacement characters",
                crate::text::count(self.bad_escapes, "record")
            ));
        }
        Some(out)
    }
}

/// Parses one JSON value; if `serde_json` refuses it only for a string escape (a lone
/// surrogate, an invalid escape), parses the lossy repair
/// instead and counts it. A record is never lost to one bad escape.
pub(crate) fn parse_json_lossy(text: &str, damage: &mut Damage) -> Option<serde_json::Value> {
    match serde_json::from_str(text) {
        Ok(v) => Some(v),
        Err(_) => {
            let repaired = escapes::repair(text)?;
            let v = serde_json::from_str(&repaired).ok()?;
            damage.bad_escapes += 1;
            Some(v)
        }
    }
}

/// The result of decoding one file.
#[derive(Debug, Clone)]
pub struct DecodedFile {
    pub format: Option<LogFormat>,
    pub records: Vec<Record>,
    pub damage: Damage,
}

/// Recognises a log format from the first bytes of a file. Lines that match no format
/// (junk left by a crash, a stray header) are passed over: the first line that does
/// match decides.
pub fn sniff(head: &[u8]) -> Option<LogFormat> {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    // Split with `memchr`: the first line is most of a small file's sniffing, and a
    // byte-at-a-time split cost as much as reading the file.
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', head).chain(std::iter::once(head.len()));
    ends.map(|end| {
        let raw = &head[start..end];
        start = end + 1;
        raw
    })
    .find_map(|raw| {
        let line = raw.trim_ascii();
        if line.is_empty() {
            return None;
        }
        if debug_log::looks_like_entry(line) {
            return Some(LogFormat::DebugLog);
        }
        match line[0] {
            b'{' => Some(LogFormat::JsonLines),
            b'[' => {
                let rest = line[1..].trim_ascii_start();
                (rest.is_empty() || rest[0] == b'{' || rest[0] == b']')
                    .then_some(LogFormat::JsonArray)
            }
            _ => None,
        }
    })
}

/// Reads and decodes one file, keeping every record. I/O errors (unreadable file) are
/// returned; damaged content is not an error, it is counted in `Damage`.
pub fn decode_file(path: &Path) -> io::Result<DecodedFile> {
    let mut records = Vec::new();
    let (format, damage) = for_each_record(path, &mut |r| records.push(r))?;
    Ok(DecodedFile {
        format,
        records,
        damage,
    })
}

/// Decodes every record of a file into `sink`, streaming (bounded memory).
pub fn for_each_record(
    path: &Path,
    sink: &mut dyn FnMut(Record),
) -> io::Result<(Option<LogFormat>, Damage)> {
    read_file(path, None, &mut |r| sink(r.to_record()))
}

/// Like [`for_each_record`], but JSON Lines files hand over only the records whose raw
/// line holds one of the needles (other formats: every record). For finding a few kinds
/// of record in a file of gigabytes without decoding all of it; the needle set is made
/// once by [`stream::needles`] for all the files read for the same words.
pub fn for_each_record_matching(
    path: &Path,
    needles: &AhoCorasick,
    sink: &mut dyn FnMut(Record),
) -> io::Result<(Option<LogFormat>, Damage)> {
    read_file(path, Some(needles), &mut |r| sink(r.to_record()))
}

/// [`for_each_record_matching`] of a JSON Lines file's end: the records of the lines
/// that start at or after byte `from` (the whole file from 0), so a view of a file's
/// newest records need not read the gigabytes before them. `Ok(None)`, with nothing
/// read past its head, when the file is not JSON Lines (read it whole, as
/// [`for_each_record_matching`] does). Returns the file's length.
pub fn for_each_jsonl_record_matching_from(
    path: &Path,
    from: u64,
    needles: &AhoCorasick,
    sink: &mut dyn FnMut(Record),
) -> io::Result<Option<u64>> {
    use std::io::{BufRead, BufReader, Seek, SeekFrom};
    let (mut file, meta) = crate::safe_read::open_regular(path)?;
    let len = meta.len();
    let mut head = vec![0u8; SNIFF_BYTES];
    let got = read_up_to(&mut file, &mut head)?;
    if sniff(&head[..got]) != Some(LogFormat::JsonLines) {
        return Ok(None);
    }
    drop(head);
    let name = Arc::new(path.to_path_buf());
    if from == 0 {
        file.seek(SeekFrom::Start(0))?;
        stream::scan_jsonl_matching(&mut file, &name, needles, sink, stream::BLOCK_BYTES)?;
        return Ok(Some(len));
    }
    // From the byte before: a line that starts exactly at `from` is kept whole, and the
    // part of a line that started before it is skipped.
    file.seek(SeekFrom::Start(from - 1))?;
    let mut rest = BufReader::with_capacity(64 << 10, file);
    rest.skip_until(b'\n')?;
    stream::scan_jsonl_matching(&mut rest, &name, needles, sink, stream::BLOCK_BYTES)?;
    Ok(Some(len))
}

/// The scan's way to read a file: JSON Lines go through the prefiltered reader
/// ([`stream`]), which hands over only the records that can matter and never holds
/// more than one block of the file; other formats are decoded whole.
pub fn decode_prefiltered(
    path: &Path,
    sink: &mut dyn FnMut(Record),
) -> io::Result<(Option<LogFormat>, Damage)> {
    read_file(path, Some(&stream::NEEDLES), &mut |r| sink(r.to_record()))
}

/// [`decode_prefiltered`] telling `on_bytes` how many bytes each read took from the file, so a
/// progress display moves while one large file is read, and handing records over
/// borrowed (the scan copies only what it keeps).
pub fn decode_prefiltered_progress(
    path: &Path,
    sink: &mut dyn FnMut(RecordRef<'_>),
    on_bytes: &dyn Fn(u64),
) -> io::Result<(Option<LogFormat>, Damage)> {
    let file = crate::safe_read::open_named(path)?;
    decode_listed_tapped(file, path, sink, None, 0, on_bytes).map(|(f, d, _)| (f, d))
}

/// [`decode_prefiltered_progress`] of a file already opened (one a folder's listing
/// showed as a regular file: [`crate::safe_read::Listed`], its size unknown, a short
/// first read is its end, a full one has its kind and size checked before more is read;
/// or one opened and checked by its path), with a [`stream::Tap`] for a file of at most
/// `tap_up_to` bytes: it is handed, in the same read, the records of the JSON Lines that
/// hold [`stream::TAP_WORD`] (of other formats, every record). Also says whether the
/// tap was given the file.
pub fn decode_listed_tapped(
    file: crate::safe_read::Listed,
    path: &Path,
    sink: &mut dyn FnMut(RecordRef<'_>),
    tap: Option<stream::Tap<'_>>,
    tap_up_to: u64,
    on_bytes: &dyn Fn(u64),
) -> io::Result<(Option<LogFormat>, Damage, bool)> {
    let crate::safe_read::Listed { file, len } = file;
    let mut file = Counting {
        inner: file,
        on_bytes,
    };
    decode_opened(
        &mut file,
        len,
        path,
        Some(&stream::NEEDLES),
        sink,
        (tap, tap_up_to),
    )
}

/// Decodes an opened file: its first [`SNIFF_BYTES`] tell the format, then the rest is
/// read. A file shorter than that is read to the size its metadata gave and no further:
/// one read a file, where reading to the end took a second read only to meet the end.
/// (A file that grew after it was opened is read as it was; one whose metadata says 0
/// bytes, as `/proc` files do, is read to its end.) Without its size (`len` `None`: a
/// listed file not `fstat`ed), the first read asks for a whole block: a shorter answer
/// is the file's end, a full one has the file's kind and size checked first. The tap
/// is given a file of at most `tap.1` bytes; returns whether it was.
fn decode_opened(
    file: &mut Counting<'_, std::fs::File>,
    len: Option<u64>,
    path: &Path,
    prefilter: Option<&AhoCorasick>,
    sink: &mut dyn FnMut(RecordRef<'_>),
    (tap, tap_up_to): (Option<stream::Tap<'_>>, u64),
) -> io::Result<(Option<LogFormat>, Damage, bool)> {
    let want = match len.map(usize::try_from) {
        Some(Ok(n)) if n > 0 && n < SNIFF_BYTES => n,
        _ => SNIFF_BYTES,
    };
    // Read into the thread's reused block: a small JSON Lines file is scanned where it
    // lies (a zeroed head buffer and a copy of it into the block were a twentieth of a
    // scan of 10,000 small-file folders).
    let mut block = stream::block_for_file();
    let got = match len {
        Some(_) => read_up_to(file, &mut block[..want]),
        None => read_once(file, &mut block[..want]),
    };
    // (a regular file's read is short only at its end)
    let len = got.and_then(|got| match len {
        Some(len) => Ok((got, len)),
        None if got < want => Ok((got, got as u64)),
        None => crate::safe_read::Listed::check(&file.inner).map(|len| (got, len)),
    });
    let (got, len) = match len {
        Ok(v) => v,
        Err(e) => {
            stream::give_back(block);
            return Err(e);
        }
    };
    let tap = tap.filter(|_| len <= tap_up_to);
    let tapped = tap.is_some();
    let name: Arc<PathBuf> = Arc::new(path.to_path_buf());
    if got > 0
        && got < SNIFF_BYTES
        && let Some(needles) = prefilter
        && sniff(&block[..got]) == Some(LogFormat::JsonLines)
    {
        let damage = stream::scan_whole(block, got, &name, needles, sink, tap)?;
        return Ok((Some(LogFormat::JsonLines), damage, tapped));
    }
    let head = block[..got].to_vec();
    stream::give_back(block);
    let mut nothing = io::empty();
    let rest: &mut dyn Read = if got < SNIFF_BYTES {
        &mut nothing
    } else {
        file
    };
    let (format, damage) = decode_sniffed(&head, rest, len, &name, prefilter, sink, tap)?;
    Ok((format, damage, tapped))
}

/// One read into `buf` (retried only when interrupted before it read anything).
fn read_once(file: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match file.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            r => return r,
        }
    }
}

/// Fills `buf` from `file` until it is full or the file ends; how much was read.
fn read_up_to(file: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// A reader that reports the size of every read.
struct Counting<'a, R> {
    inner: R,
    on_bytes: &'a dyn Fn(u64),
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        (self.on_bytes)(n as u64);
        Ok(n)
    }
}

fn read_file(
    path: &Path,
    prefilter: Option<&AhoCorasick>,
    sink: &mut dyn FnMut(RecordRef<'_>),
) -> io::Result<(Option<LogFormat>, Damage)> {
    let crate::safe_read::Listed { file, len } = crate::safe_read::open_named(path)?;
    let mut file = Counting {
        inner: file,
        on_bytes: &|_| {},
    };
    decode_opened(&mut file, len, path, prefilter, sink, (None, 0)).map(|(f, d, _)| (f, d))
}

/// Recognises the format from `head` (the first bytes) and decodes `head` then `rest`.
/// Shared by files and bytes in memory, so both treat every format the same way.
fn decode_sniffed(
    head: &[u8],
    rest: impl Read,
    len: u64,
    name: &Arc<PathBuf>,
    prefilter: Option<&AhoCorasick>,
    sink: &mut dyn FnMut(RecordRef<'_>),
    tap: Option<stream::Tap<'_>>,
) -> io::Result<(Option<LogFormat>, Damage)> {
    let only = |d: Damage| Ok((None, d));
    if head.is_empty() {
        return only(Damage {
            empty: true,
            ..Damage::default()
        });
    }
    let format = sniff(head);
    let mut reader = head.chain(rest);
    let Some(f) = format else {
        return only(Damage {
            unrecognised: true,
            ..Damage::default()
        });
    };
    let damage = match (f, prefilter) {
        (LogFormat::JsonArray, _) if len > MAX_JSON_ARRAY_BYTES => Damage {
            too_large: true,
            ..Damage::default()
        },
        (LogFormat::JsonLines, Some(needles)) => stream::scan_jsonl_matching_ref(
            &mut reader,
            name,
            needles,
            sink,
            tap,
            stream::BLOCK_BYTES,
        )?,
        _ => {
            let reader = BufReader::with_capacity(64 * 1024, reader);
            match tap {
                // Every record of these formats is handed on: the tap sees them all.
                Some(tap) => decode_reader_ref(f, reader, name, &mut |r| {
                    sink(r);
                    tap(r);
                })?,
                None => decode_reader_ref(f, reader, name, sink)?,
            }
        }
    };
    Ok((format, damage))
}

/// Decodes an already-opened stream of a known format, handing each record to `sink`.
pub fn decode_reader<R: BufRead>(
    format: LogFormat,
    reader: R,
    file: &Arc<PathBuf>,
    sink: &mut dyn FnMut(Record),
) -> io::Result<Damage> {
    decode_reader_ref(format, reader, file, &mut |r| sink(r.to_record()))
}

/// [`decode_reader`], handing records over borrowed.
fn decode_reader_ref<R: BufRead>(
    format: LogFormat,
    mut reader: R,
    file: &Arc<PathBuf>,
    sink: &mut dyn FnMut(RecordRef<'_>),
) -> io::Result<Damage> {
    skip_bom(&mut reader)?;
    let mut owned = |r: Record| sink(r.as_ref());
    match format {
        LogFormat::JsonLines => jsonl::decode(reader, file, sink),
        LogFormat::DebugLog => debug_log::decode(reader, file, &mut owned),
        LogFormat::JsonArray => {
            let mut bytes = Vec::new();
            reader
                .take(MAX_JSON_ARRAY_BYTES + 1)
                .read_to_end(&mut bytes)?;
            Ok(json_array::decode(&bytes, file, &mut owned))
        }
    }
}

/// Decodes bytes held in memory (tests, fuzzing, pasted text).
pub fn decode_bytes(bytes: &[u8], file: &Path) -> DecodedFile {
    let split = bytes.len().min(SNIFF_BYTES);
    let mut records = Vec::new();
    let (format, damage) = decode_sniffed(
        &bytes[..split],
        &bytes[split..],
        bytes.len() as u64,
        &Arc::new(file.to_path_buf()),
        None,
        &mut |r| records.push(r.to_record()),
        None,
    )
    .expect("reading from memory cannot fail");
    DecodedFile {
        format,
        records,
        damage,
    }
}

fn skip_bom<R: BufRead>(reader: &mut R) -> io::Result<()> {
    let head = reader.fill_buf()?;
    if head.starts_with(b"\xEF\xBB\xBF") {
        reader.consume(3);
    }
    Ok(())
}

/// The keys a record's message can be under, in the order they are tried when a record
/// has more than one.
pub(crate) const LEVEL_KEYS: [&str; 6] = ["error", "debug", "warn", "warning", "info", "verbose"];

/// Turns one decoded JSON object into a record. Claude Code's per-server records put the
/// message under a key naming its level (`debug`, `error`); anything else is not a record.
pub(crate) fn record_from_json(
    value: serde_json::Value,
    file: &Arc<PathBuf>,
    line: usize,
) -> Option<Record> {
    let serde_json::Value::Object(mut map) = value else {
        return None;
    };
    let mut found = None;
    for key in LEVEL_KEYS {
        if let Some(serde_json::Value::String(_)) = map.get(key) {
            let Some(serde_json::Value::String(msg)) = map.remove(key) else {
                unreachable!()
            };
            found = Some((Level::parse(key).unwrap_or(Level::Debug), msg));
            break;
        }
    }
    let (level, message) = found?;
    let mut take = |k: &str| match map.remove(k) {
        Some(serde_json::Value::String(s)) => Some(s),
        _ => None,
    };
    Some(Record {
        message,
        level,
        timestamp: take("timestamp"),
        session_id: take("sessionId"),
        cwd: take("cwd"),
        server: None,
        file: Arc::clone(file),
        line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_each_format() {
        assert_eq!(sniff(b"{\"debug\":\"x\"}\n"), Some(LogFormat::JsonLines));
        assert_eq!(
            sniff(b"\xEF\xBB\xBF\r\n{\"debug\":\"x\"}"),
            Some(LogFormat::JsonLines)
        );
        assert_eq!(sniff(b"[\n  {\n"), Some(LogFormat::JsonArray));
        assert_eq!(
            sniff(b"2026-11-29T11:50:31.216Z [DEBUG] hello\n"),
            Some(LogFormat::DebugLog)
        );
        assert_eq!(
            sniff(b"[DEBUG] MCP server \"x\": hi\n"),
            Some(LogFormat::DebugLog)
        );
        assert_eq!(sniff(b"\x7fELF\x02\x01"), None);
        assert_eq!(
            sniff(b"\x00junk\n{\"debug\":\"x\"}\n"),
            Some(LogFormat::JsonLines)
        );
        assert_eq!(sniff(b"hello world"), None);
    }

    #[test]
    fn damage_summary_names_each_problem() {
        let d = Damage {
            lines: 10,
            not_json: 2,
            truncated_last: true,
            invalid_utf8: 1,
            ..Damage::default()
        };
        assert_eq!(
            d.summary().unwrap(),
            "skipped 3 of 10 lines (2 not valid JSON, a truncated last record); \
             1 line with invalid UTF-8 decoded with replacement characters"
        );
        assert_eq!(
            Damage {
                lines: 4,
                ..Damage::default()
            }
            .summary(),
            None
        );
    }

    /// A listed file (its size not asked: [`crate::safe_read::Listed`]) decodes to the
    /// same records, damage and tap decision as the file opened and checked by its
    /// path: one shorter than the first block (a short first read is its end) and one
    /// longer (the full first block has its size checked, the rest read); a file over
    /// the tap's size is not tapped either way.
    #[cfg(unix)]
    #[test]
    fn a_listed_file_decodes_as_the_same_file_opened_by_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let line = |i: usize| {
            format!(
                "{{\"error\":\"Connection failed: spawn x{i} ENOENT\",\"timestamp\":\"2026-11-29T11:50:31.216Z\",\"sessionId\":\"s\",\"cwd\":\"/p\"}}\n"
            )
        };
        let small: String = (0..3).map(line).collect();
        let large: String = (0..3000).map(line).collect();
        assert!(small.len() < SNIFF_BYTES && large.len() > 2 * SNIFF_BYTES);
        for (name, text) in [("small.jsonl", small), ("large.jsonl", large)] {
            let path = dir.path().join(name);
            std::fs::write(&path, format!("{text}{{\"debug\":\"cut")).unwrap();
            let decode = |file: crate::safe_read::Listed, tap_up_to: u64| {
                let mut records = Vec::new();
                let mut tapped = 0usize;
                let mut tap = |_: RecordRef<'_>| tapped += 1;
                let (format, damage, was) = decode_listed_tapped(
                    file,
                    &path,
                    &mut |r| records.push(r.to_record()),
                    Some(&mut tap),
                    tap_up_to,
                    &|_| {},
                )
                .unwrap();
                (format, damage.summary(), was, records, tapped)
            };
            let folder = crate::safe_read::OpenFolder::open(dir.path()).unwrap();
            for tap_up_to in [u64::MAX, 10] {
                let by_path = decode(crate::safe_read::open_named(&path).unwrap(), tap_up_to);
                let listed = decode(
                    folder.open_listed(std::ffi::OsStr::new(name)).unwrap(),
                    tap_up_to,
                );
                assert_eq!(listed, by_path, "{name}, tap up to {tap_up_to}");
                assert!(by_path.3.len() >= 3, "{name}: records decoded");
                assert_eq!(by_path.2, tap_up_to == u64::MAX, "{name}");
                assert!(by_path.1.is_some(), "{name}: the cut last line is damage");
            }
        }
    }
}
