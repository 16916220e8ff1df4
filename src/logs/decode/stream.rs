//! The scan's fast path for JSON Lines: read in fixed-size blocks, find the lines that
//! can matter with one multi-needle search over the whole block, and JSON-decode only
//! those. Memory is one block, whatever the file size or line length.
//!
//! Every line is still looked at cheaply: it is counted (so evidence line numbers are
//! right), and a line not shaped like a JSON object (`{ ... }`) is counted as damage. A
//! line that is shaped like one but contains no needle is neither decoded nor checked:
//! it cannot change a verdict.

use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

use aho_corasick::{AhoCorasick, MatchKind};

use super::jsonl::decode_line;
use super::{Damage, MAX_LINE_BYTES, record_from_json};
use crate::claude_code::markers::PREFILTER_NEEDLES;
use crate::logs::record::{Record, RecordRef};

/// One block; a line longer than this is skipped (and counted) without being held.
pub const BLOCK_BYTES: usize = MAX_LINE_BYTES;

/// Leftmost-first matching: any hit will do, and only the leftmost semantics let
/// aho-corasick use its SIMD (Teddy) searcher; with the default standard semantics the
/// scan ran at a tenth of `rg`'s speed (measured, see BENCHMARKS.md).
pub(crate) static NEEDLES: LazyLock<AhoCorasick> = LazyLock::new(|| needles(PREFILTER_NEEDLES));

/// The words a tap of the scan's read looks for besides the prefilter's needles (see
/// [`Tap`]).
pub const TAP_WORD: &str = "Server stderr";

/// [`TAP_WORD`]'s searcher, built once (`memmem::find` builds one a call: a hundredth
/// of a scan of 100,000 small-file folders, where nearly every file is tapped).
static TAP_FINDER: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new(TAP_WORD.as_bytes()));

/// [`NEEDLES`] and [`TAP_WORD`] last: one search finds both kinds of line.
static NEEDLES_AND_TAP: LazyLock<AhoCorasick> = LazyLock::new(|| {
    let mut words: Vec<&str> = PREFILTER_NEEDLES.to_vec();
    words.push(TAP_WORD);
    needles(&words)
});

/// A second reader of the scan's one read of a file: it is handed the records of the
/// lines that hold [`TAP_WORD`] (decoded once, whether or not the prefilter wanted them
/// too), so what a view needs of them is taken in the same read. Lines only the tap
/// wants count no damage: the file's warnings stay what the prefiltered read says.
pub type Tap<'a> = &'a mut dyn FnMut(RecordRef<'_>);

/// Whether a raw line can hold a decisive record (exposed for tests and benchmarks).
pub fn may_matter(raw: &[u8]) -> bool {
    NEEDLES.is_match(raw)
}

/// A needle set for [`scan_jsonl_matching`] (leftmost-first, see `NEEDLES`).
pub fn needles(words: &[&str]) -> AhoCorasick {
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostFirst)
        .build(words)
        .expect("valid needles")
}

/// Scans a JSON Lines stream, handing the records that can matter to `sink`.
pub fn scan_jsonl<R: Read>(
    mut reader: R,
    file: &Arc<PathBuf>,
    sink: &mut dyn FnMut(Record),
) -> io::Result<Damage> {
    scan_jsonl_matching(&mut reader, file, &NEEDLES, sink, BLOCK_BYTES)
}

/// [`scan_jsonl`] with a chosen block size (tests and fuzzing use small blocks to hit
/// every boundary case).
pub fn scan_jsonl_with_block(
    reader: &mut dyn Read,
    file: &Arc<PathBuf>,
    sink: &mut dyn FnMut(Record),
    block: usize,
) -> io::Result<Damage> {
    scan_jsonl_matching(reader, file, &NEEDLES, sink, block)
}

/// The streaming reader with any needle set: only lines holding one are decoded.
pub fn scan_jsonl_matching(
    reader: &mut dyn Read,
    file: &Arc<PathBuf>,
    needles: &AhoCorasick,
    sink: &mut dyn FnMut(Record),
    block: usize,
) -> io::Result<Damage> {
    scan_jsonl_matching_ref(
        reader,
        file,
        needles,
        &mut |r| sink(r.to_record()),
        None,
        block,
    )
}

/// [`scan_jsonl_matching`], handing records over borrowed.
pub(super) fn scan_jsonl_matching_ref(
    reader: &mut dyn Read,
    file: &Arc<PathBuf>,
    needles: &AhoCorasick,
    sink: &mut dyn FnMut(RecordRef<'_>),
    tap: Option<Tap<'_>>,
    block: usize,
) -> io::Result<Damage> {
    let mut owned = take_block(FIRST_BLOCK_BYTES.min(block));
    let result = scan_blocks(reader, file, needles, sink, tap, &mut owned, block, 0);
    give_back(owned);
    result
}

/// A block from the thread's store (see [`BLOCK`]) for a whole small file to be read into
/// and, when it is JSON Lines, scanned where it lies: [`scan_whole`]. Hand it back with
/// [`scan_whole`] or [`give_back`].
pub(super) fn block_for_file() -> Vec<u8> {
    take_block(FIRST_BLOCK_BYTES)
}

/// [`scan_jsonl_matching`] of a whole file already read into `block[..len]` (a block
/// from [`block_for_file`], handed back here): the scan's common case, a log file of a
/// few KiB, read once, neither zeroed nor copied into a second buffer.
pub(super) fn scan_whole(
    mut block: Vec<u8>,
    len: usize,
    file: &Arc<PathBuf>,
    needles: &AhoCorasick,
    sink: &mut dyn FnMut(RecordRef<'_>),
    tap: Option<Tap<'_>>,
) -> io::Result<Damage> {
    let result = scan_blocks(
        &mut io::empty(),
        file,
        needles,
        sink,
        tap,
        &mut block,
        BLOCK_BYTES,
        len,
    );
    give_back(block);
    result
}

thread_local! {
    /// One block per thread, reused from file to file. Allocating (and zeroing) a fresh
    /// 8 MiB block per file cost more than the search on a cache of many small files:
    /// `perf` showed 37% of a `scan --all` in `memset` on the 10 GiB real-cache tree
    /// (4,368 files), where glibc serves the block from the heap and must zero it.
    static BLOCK: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The thread's block, at least `size` bytes (taken out, so a nested call gets its own).
fn take_block(size: usize) -> Vec<u8> {
    let mut b = BLOCK.with(|c| c.take());
    if b.len() < size {
        b.resize(size, 0);
    }
    b
}

pub(super) fn give_back(b: Vec<u8>) {
    BLOCK.with(|c| {
        let held = c.take();
        // Keep the larger one (a nested call may have grown its own).
        c.set(if held.len() > b.len() { held } else { b });
    });
}

/// A block starts this large and doubles, up to the caller's block, only for a line
/// that does not fit: a scan of small files keeps 1 MiB a thread, not 8.
const FIRST_BLOCK_BYTES: usize = 1024 * 1024;

/// `store` holds the block (at least `FIRST_BLOCK_BYTES.min(max)` bytes, maybe more from
/// an earlier file); only its first `size` bytes are used, `size` growing up to `max`.
/// Its first `filled` bytes (at most `FIRST_BLOCK_BYTES.min(max)`) are the stream's
/// start, already read.
/// With a `tap`, `needles` must be [`NEEDLES`] (the scan's read): the search is then
/// for those and [`TAP_WORD`] at once.
#[allow(clippy::too_many_arguments)]
fn scan_blocks(
    reader: &mut dyn Read,
    file: &Arc<PathBuf>,
    needles: &AhoCorasick,
    sink: &mut dyn FnMut(RecordRef<'_>),
    tap: Option<Tap<'_>>,
    store: &mut Vec<u8>,
    max: usize,
    filled: usize,
) -> io::Result<Damage> {
    let mut size = FIRST_BLOCK_BYTES.min(max);
    let mut len = filled;
    let mut eof = false;
    let tap_pattern = tap
        .is_some()
        .then(|| aho_corasick::PatternID::must(PREFILTER_NEEDLES.len()));
    let mut st = ScanState {
        search: if tap.is_some() {
            &NEEDLES_AND_TAP
        } else {
            needles
        },
        needles,
        tap,
        tap_pattern,
        damage: Damage::default(),
        line_no: 0,
        skipping_long_line: false,
        first_block: true,
    };
    // Read in chunks much smaller than the block, and hand on the complete lines of each
    // chunk at once: the buffer's hot end stays in the CPU cache, where the kernel's copy
    // and the search are fast. Only a line longer than a chunk grows towards the block.
    let chunk = (max / 32).max(1);
    // `buf[..searched]` is known to hold no newline.
    let mut searched = 0;
    loop {
        let buf = &mut store[..size];
        if !eof && len < buf.len() {
            let end = (len + chunk).min(buf.len());
            match reader.read(&mut buf[len..end]) {
                Ok(0) => eof = true,
                Ok(n) => len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        if st.first_block {
            if len < 3 && len < buf.len() && !eof {
                continue;
            }
            st.first_block = false;
            if buf[..len].starts_with(b"\xEF\xBB\xBF") {
                buf.copy_within(3..len, 0);
                len -= 3;
            }
        }
        let complete = if eof {
            len
        } else {
            match memchr::memrchr(b'\n', &buf[searched..len]) {
                Some(i) => searched + i + 1,
                None if len == size && size < max => {
                    // A line longer than the block so far: a larger block.
                    size = (size * 2).min(max);
                    if store.len() < size {
                        store.resize(size, 0);
                    }
                    continue;
                }
                None if len == size => {
                    // A whole block without a newline: one over-long line. Drop it.
                    if !st.skipping_long_line {
                        st.skipping_long_line = true;
                        st.damage.too_long += 1;
                    }
                    len = 0;
                    searched = 0;
                    continue;
                }
                None => {
                    searched = len;
                    continue;
                }
            }
        };
        st.block(&buf[..complete], eof, file, sink);
        buf.copy_within(complete..len, 0);
        len -= complete;
        searched = len;
        if eof {
            break;
        }
    }
    if st.skipping_long_line {
        // The file ended inside an over-long line: it still counts as a line.
        st.line_no += 1;
    }
    st.damage.lines = st.line_no;
    Ok(st.damage)
}

struct ScanState<'n, 't> {
    /// What is searched for: `needles`, or with a tap those and [`TAP_WORD`].
    search: &'n AhoCorasick,
    needles: &'n AhoCorasick,
    tap: Option<Tap<'t>>,
    /// The pattern of [`TAP_WORD`] in `search`.
    tap_pattern: Option<aho_corasick::PatternID>,
    damage: Damage,
    line_no: usize,
    /// Inside a line longer than a block: its tail up to the next newline is dropped.
    skipping_long_line: bool,
    first_block: bool,
}

impl ScanState<'_, '_> {
    /// Processes whole lines (the last one may lack its newline only at end of file).
    fn block(
        &mut self,
        region: &[u8],
        eof: bool,
        file: &Arc<PathBuf>,
        sink: &mut dyn FnMut(RecordRef<'_>),
    ) {
        // The start of the first needle at or after the current line, searched for
        // again only once a line passes it: one search a decoded line, not one a needle
        // in it (a zod message holds `tools` many times).
        let mut next: Option<(usize, bool)> = None;
        let mut none_left = false;
        let mut start = 0;
        let mut newlines = memchr::memchr_iter(b'\n', region);
        loop {
            let (end, terminated) = match newlines.next() {
                Some(nl) => (nl, true),
                None if start < region.len() && eof => (region.len(), false),
                None => break,
            };
            let line = &region[start..end];
            let line_start = start;
            start = end + 1;
            if self.skipping_long_line {
                // The tail of an over-long line, already counted.
                self.skipping_long_line = false;
                self.line_no += 1;
                continue;
            }
            self.line_no += 1;
            if !none_left && next.is_none_or(|(m, _)| m < line_start) {
                let input = aho_corasick::Input::new(region).span(line_start..region.len());
                next = self
                    .search
                    .find(input)
                    .map(|m| (m.start(), Some(m.pattern()) == self.tap_pattern));
                none_left = next.is_none();
            }
            // The line is decoded when a needle starts in it.
            let Some((m, tap_word)) = next.filter(|&(m, _)| m < end) else {
                self.check_shape(line, terminated, file);
                continue;
            };
            let Some(tap) = self.tap.as_mut() else {
                decode_line(line, terminated, self.line_no, file, &mut self.damage, sink);
                continue;
            };
            // Leftmost first, the prefilter's needles before the tap's word: a line
            // found by the word holds a needle only after it.
            let (wanted, tapped) = if tap_word {
                let rest = aho_corasick::Input::new(region).span(m + 1..end);
                (self.needles.is_match(rest), true)
            } else {
                let word = TAP_FINDER.find(line).is_some();
                (true, word)
            };
            match (wanted, tapped) {
                (true, true) => decode_line(
                    line,
                    terminated,
                    self.line_no,
                    file,
                    &mut self.damage,
                    &mut |r| {
                        sink(r);
                        tap(r);
                    },
                ),
                (true, false) => {
                    decode_line(line, terminated, self.line_no, file, &mut self.damage, sink)
                }
                (false, _) => {
                    let mut uncounted = Damage::default();
                    decode_line(
                        line,
                        terminated,
                        self.line_no,
                        file,
                        &mut uncounted,
                        &mut **tap,
                    );
                }
            }
        }
    }

    /// Cheap damage accounting for lines that are not decoded.
    fn check_shape(&mut self, line: &[u8], terminated: bool, file: &Arc<PathBuf>) {
        let t = line.trim_ascii();
        if t.is_empty() || (t[0] == b'{' && t[t.len() - 1] == b'}') {
            return;
        }
        if !terminated {
            self.damage.truncated_last = true;
            return;
        }
        // Rare (damage only): decode to tell junk from JSON that is not a record.
        let text = String::from_utf8_lossy(t);
        match super::parse_json_lossy(&text, &mut self.damage).ok_or(()) {
            Ok(v) => {
                if record_from_json(v, file, self.line_no).is_none() {
                    self.damage.not_a_record += 1;
                }
            }
            Err(_) => self.damage.not_json += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &[u8], block: usize) -> (Vec<(usize, String)>, Damage) {
        let mut out = Vec::new();
        let mut r = input;
        let d = scan_jsonl_with_block(
            &mut r,
            &Arc::new(PathBuf::from("f.jsonl")),
            &mut |rec| out.push((rec.line, rec.message)),
            block,
        )
        .unwrap();
        (out, d)
    }

    const OK: &str = r#"{"debug":"Connection established with capabilities: {}","sessionId":"s"}"#;
    const NOISE: &str =
        r#"{"error":"Server stderr: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","sessionId":"s"}"#;

    #[test]
    fn decodes_only_needle_lines_with_right_line_numbers() {
        let input = format!("{NOISE}\n{NOISE}\n{OK}\n{NOISE}\n{OK}\n");
        for block in [64 * 1024, NOISE.len() + 1, 200] {
            let (recs, d) = run(input.as_bytes(), block);
            let lines: Vec<usize> = recs.iter().map(|r| r.0).collect();
            assert_eq!(lines, vec![3, 5], "block {block}");
            assert_eq!(d.lines, 5);
            assert!(d.is_clean(), "{d:?}");
        }
    }

    #[test]
    fn over_long_lines_are_dropped_and_counted() {
        let long = format!(
            r#"{{"error":"Server stderr: {}Connection failed"}}"#,
            "A".repeat(1000)
        );
        let input = format!("{OK}\n{long}\n{OK}\n");
        let (recs, d) = run(input.as_bytes(), 256);
        assert_eq!(recs.iter().map(|r| r.0).collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(d.too_long, 1);
        assert_eq!(d.lines, 3);
    }

    #[test]
    fn junk_truncation_bom_and_crlf() {
        let input =
            format!("\u{feff}{OK}\r\n\x00junk\r\n[1,2]\n{NOISE}\n{{\"debug\":\"Connection est");
        let (recs, d) = run(input.as_bytes(), 1 << 16);
        assert_eq!(recs.len(), 1);
        assert_eq!(d.not_json, 1);
        assert_eq!(d.not_a_record, 1);
        assert!(d.truncated_last);
        assert_eq!(d.lines, 5);
    }
}
