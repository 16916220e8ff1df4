//! Decoded views of a text, for finding secrets in every encoding they are written in:
//! JSON-escaped (`\u0041`, `\/`, `\"`, once or twice), URL-encoded (`%22`, `%3A`),
//! split across two lines, and with an invisible or control character (U+200B, a soft
//! hyphen, a colour sequence, a lone `\r`) inside. Each view keeps a map back to the original text, so a
//! secret found in a view is replaced where it stands in the original, in whatever
//! spelling it has there. The maps hold one entry per decoded escape, not per byte, so a
//! multi-megabyte message costs no more than its escapes; each entry is a few bytes
//! (see `Layer`), and a view shares the maps of the views it was decoded from.

use std::sync::Arc;

/// One decoded stretch: `dec_len` bytes of the view at `dec` stand for `orig_len`
/// bytes of the layer below at `orig`. Between edits the two advance together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Edit {
    dec: usize,
    dec_len: usize,
    orig: usize,
    orig_len: usize,
}

/// How many edits a [`Block`] holds at most.
const BLOCK: usize = 32;

/// Where a block of edits starts: the view's and the layer below's offsets of its first
/// edit, and where its encoded edits start in [`Layer::data`].
#[derive(Debug, Clone, Copy)]
struct Block {
    dec: usize,
    orig: usize,
    at: usize,
}

/// How one decoding layer maps back to the text it was decoded from: its edits in
/// order, written compactly, since a text escaped on purpose has an edit every two or
/// three bytes (redacting a 9.6 MB line of them peaked at 326 MB when an edit took 32
/// bytes and each view copied the maps below it). An edit is one tag byte: its decoded length
/// (0 to 6), the bytes it removes (0 to 6) and the gap since the edit before (0 to 2);
/// a larger gap follows it as a varint, larger lengths as two varints. Each edit a
/// decoding makes stands, with the gap before it, for at least two bytes of the text it
/// reads (the first edit aside), so a layer takes at most 7/8 of a byte for each byte of
/// that text: half a byte for the edits (one byte for each `\n` of `\n\n\n...`, the
/// densest), and a 24-byte [`Block`] every [`BLOCK`] edits to search from.
#[derive(Debug, Default)]
struct Layer {
    blocks: Vec<Block>,
    data: Vec<u8>,
    /// How many edits.
    len: usize,
    /// The last edit, not yet written: the invisible-character view lengthens it while
    /// the characters it removes go on.
    pending: Option<Edit>,
    /// Where the last edit written ends, in the view and the layer below.
    end: (usize, usize),
}

/// The tag byte's decoded length, and removed bytes, that say both lengths follow as
/// varints (its low three bits, or the three above them).
const TAG_LENGTHS: u8 = 7;
/// The tag byte's gap that says the gap follows as a varint (its top two bits).
const TAG_GAP: u8 = 3;

fn put_varint(data: &mut Vec<u8>, mut v: usize) {
    while v >= 0x80 {
        data.push((v as u8) | 0x80);
        v >>= 7;
    }
    data.push(v as u8);
}

fn get_varint(data: &[u8], at: &mut usize) -> usize {
    let mut v = 0usize;
    let mut shift = 0;
    loop {
        let b = data[*at];
        *at += 1;
        v |= usize::from(b & 0x7f) << shift;
        if b < 0x80 {
            return v;
        }
        shift += 7;
    }
}

impl Layer {
    /// Adds an edit after every edit added before.
    fn push(&mut self, e: Edit) {
        if let Some(p) = self.pending.replace(e) {
            self.write(p);
        }
    }

    /// The last edit added, to lengthen.
    fn last_mut(&mut self) -> Option<&mut Edit> {
        self.pending.as_mut()
    }

    fn is_empty(&self) -> bool {
        self.len == 0 && self.pending.is_none()
    }

    /// Writes the pending edit: the layer is complete.
    fn finish(mut self) -> Self {
        if let Some(p) = self.pending.take() {
            self.write(p);
        }
        self.blocks.shrink_to_fit();
        self.data.shrink_to_fit();
        self
    }

    fn write(&mut self, e: Edit) {
        debug_assert!(e.dec >= self.end.0 && e.dec - self.end.0 == e.orig - self.end.1);
        if self.len.is_multiple_of(BLOCK) {
            self.blocks.push(Block {
                dec: e.dec,
                orig: e.orig,
                at: self.data.len(),
            });
            self.end = (e.dec, e.orig);
        }
        let gap = e.dec - self.end.0;
        let small = |n: usize| n < usize::from(TAG_LENGTHS);
        let lengths = match e.orig_len.checked_sub(e.dec_len) {
            Some(removed) if small(e.dec_len) && small(removed) => {
                e.dec_len as u8 | (removed as u8) << 3
            }
            _ => TAG_LENGTHS,
        };
        let gap_tag = if gap < usize::from(TAG_GAP) {
            gap as u8
        } else {
            TAG_GAP
        };
        self.data.push(lengths | gap_tag << 6);
        if gap_tag == TAG_GAP {
            put_varint(&mut self.data, gap);
        }
        if lengths == TAG_LENGTHS {
            put_varint(&mut self.data, e.dec_len);
            put_varint(&mut self.data, e.orig_len);
        }
        self.end = (e.dec + e.dec_len, e.orig + e.orig_len);
        self.len += 1;
    }

    /// The bytes the layer's edits take (its pending edit aside).
    fn bytes(&self) -> usize {
        self.data.len() + self.blocks.len() * std::mem::size_of::<Block>()
    }

    /// The last edit whose start in the view is at most `p` (`inclusive`) or before it.
    fn last_from(&self, p: usize, inclusive: bool) -> Option<Edit> {
        debug_assert!(self.pending.is_none(), "a finished layer");
        let before = |dec: usize| if inclusive { dec <= p } else { dec < p };
        let i = self
            .blocks
            .partition_point(|b| before(b.dec))
            .checked_sub(1)?;
        let b = self.blocks[i];
        let stop = self.blocks.get(i + 1).map_or(self.data.len(), |n| n.at);
        let (mut at, mut end) = (b.at, (b.dec, b.orig));
        let mut last = None;
        while at < stop {
            let tag = self.data[at];
            at += 1;
            let gap = match tag >> 6 {
                TAG_GAP => get_varint(&self.data, &mut at),
                g => usize::from(g),
            };
            let (dec_len, orig_len) = match tag & 0x3f {
                TAG_LENGTHS => {
                    let d = get_varint(&self.data, &mut at);
                    (d, get_varint(&self.data, &mut at))
                }
                t => {
                    let d = usize::from(t & 7);
                    (d, d + usize::from(t >> 3))
                }
            };
            let e = Edit {
                dec: end.0 + gap,
                dec_len,
                orig: end.1 + gap,
                orig_len,
            };
            if !before(e.dec) {
                break;
            }
            last = Some(e);
            end = (e.dec + dec_len, e.orig + orig_len);
        }
        last
    }

    fn start(&self, p: usize) -> usize {
        match self.last_from(p, true) {
            None => p,
            Some(e) if p < e.dec + e.dec_len => e.orig,
            Some(e) => e.orig + e.orig_len + (p - e.dec - e.dec_len),
        }
    }

    fn end(&self, p: usize) -> usize {
        match self.last_from(p, false) {
            None => p,
            Some(e) if p <= e.dec + e.dec_len => e.orig + e.orig_len,
            Some(e) => e.orig + e.orig_len + (p - e.dec - e.dec_len),
        }
    }
}

/// A view: its text and the layers that lead back to the original, innermost last
/// (shared with the views it was decoded from: a view holds only its own layer).
#[derive(Debug, Clone)]
pub struct View<'a> {
    /// The original text itself (borrowed), or a decoding of it.
    pub text: std::borrow::Cow<'a, str>,
    layers: Vec<Arc<Layer>>,
}

impl View<'_> {
    /// The byte range in the original text that `[start, end)` of this view stands for.
    pub fn to_original(&self, start: usize, end: usize) -> (usize, usize) {
        let (mut s, mut e) = (start, end);
        for l in self.layers.iter().rev() {
            s = l.start(s);
            e = l.end(e);
        }
        (s, e.max(s))
    }

    /// This view with every line break between two lines that hold text removed (`\n`
    /// or `\r\n`, with the next line's indentation; a break next to an empty line
    /// stays): for learned secrets, which match only their exact value, so a value
    /// broken across a line end reads whole again (the rules' view,
    /// `join_split_tokens`, joins only where a token looks cut). `None` when there is
    /// no such break.
    pub fn lines_joined(&self) -> Option<View<'static>> {
        if !self.text.contains('\n') {
            return None;
        }
        match self.derive(remove_line_breaks, usize::MAX) {
            Decoded::View(v) => Some(v),
            Decoded::Nothing | Decoded::TooBig => None,
        }
    }

    /// The bytes of the original text that were left out between the view's bytes before
    /// and after offset `p` (a line break a joining view removed), as a range: empty
    /// when the two are neighbours in the original too.
    pub fn removed_at(&self, p: usize) -> (usize, usize) {
        let (mut before, mut after) = (p, p);
        for l in self.layers.iter().rev() {
            before = l.end(before);
            after = l.start(after);
        }
        (before, after.max(before))
    }

    /// The bytes of this view's own map back to the view it was decoded from (0 for
    /// the original text).
    fn map_bytes(&self) -> usize {
        self.layers.last().map_or(0, |l| l.bytes())
    }

    /// `decode` of this view, its map within `map_most` bytes.
    fn derive(&self, decode: Decoding, map_most: usize) -> Decoded<View<'static>> {
        match decode(&self.text, map_most) {
            Decoded::View((mut text, layer)) => {
                text.shrink_to_fit();
                let mut layers = self.layers.clone();
                layers.push(Arc::new(layer.finish()));
                Decoded::View(View {
                    text: text.into(),
                    layers,
                })
            }
            Decoded::Nothing => Decoded::Nothing,
            Decoded::TooBig => Decoded::TooBig,
        }
    }
}

/// What a decoding made of a text.
enum Decoded<T> {
    /// Nothing to decode.
    Nothing,
    View(T),
    /// Its map would take more than it was allowed (the decoding stopped there).
    TooBig,
}

/// A decoding: the text it reads and the most bytes its map may take; the view's text
/// and how it maps back.
type Decoding = fn(&str, usize) -> Decoded<(String, Layer)>;

/// The decodings, and how many times each may be applied on the way to one view: JSON
/// twice (a JSON message inside a JSON log line), URL twice (`%253A`), the join once (it
/// joins at once every break it would ever join: joined again, a view is the same). A
/// decoding with nothing to decode makes no view, so the bounds cost an ordinary text
/// nothing; they keep a text nested on purpose from having a view for every order of
/// dozens of decodings.
const DECODINGS: [(Decoding, u8); 4] = [
    (json_unescape, 2),
    (url_decode, 2),
    (join_split_tokens, 1),
    (strip_invisible, 1),
];

/// Every view worth searching: the original first, then every text the decodings make
/// of it, in any order, each as often as `DECODINGS` allows: its JSON-unescaped forms
/// (two levels), URL-decoded forms, forms with line breaks inside a token removed, forms
/// with invisible and control characters removed (`strip_invisible`), and their
/// combinations (URL-decoded, then JSON-unescaped, then joined). Views identical
/// to one already listed are left out. No cap on their number cuts the list short: a
/// view a cap left out is one a second pass may reach (its text has fewer escapes, so
/// fewer views), and find a secret in that the first pass left, so redaction would not
/// be idempotent. An ordinary text has a few views; one with every kind of escape, and
/// line breaks beside them, about twenty; at most 523 (one for each order of the
/// decodings allowed, when no two orders agree).
///
/// Their bytes are bounded all the same: a log line can be 8 MiB, and hundreds of views
/// of one escaped on purpose would be gigabytes for one text. The views' texts together
/// stay within [`VIEW_BYTES`] or eight times the text, whichever is more (eight views of
/// it: what the cap on their number allowed before), the shallowest first (breadth
/// first): only a text longer than about 8 KiB, escaped on purpose in many ways (with
/// invisible characters too), may have a deep view left out, as before. Their maps back
/// to the original stay within as much again, apart: a map takes at most 7/8 of a byte
/// for each byte of the text it was decoded from (see `Layer`), so this leaves out no
/// view of a text of up to those 8 KiB either, and a longer one keeps its views in the
/// same order, fewer only when its maps fill their share first (escapes every few
/// bytes, in many ways). A decoding stops as soon as its map outgrows what is left, so
/// none is made whole to be thrown away: at any time `views` holds at most
/// [`held_bytes`]' bound, and the text it is decoding (at most the original's size).
pub fn views(text: &str) -> Vec<View<'_>> {
    let raw = View {
        text: text.into(),
        layers: Vec::new(),
    };
    let mut out = vec![raw];
    // How many times each decoding was applied on the way to each view.
    let mut applied = vec![[0u8; DECODINGS.len()]];
    let budget = VIEW_BYTES.max(8 * text.len());
    let mut bytes = text.len();
    let mut map_bytes = 0;
    let mut i = 0;
    // Breadth-first over decodings: each view is decoded by each decoding it may still
    // have.
    while i < out.len() {
        for (k, &(decode, most)) in DECODINGS.iter().enumerate() {
            if applied[i][k] >= most {
                continue;
            }
            let d = match out[i].derive(decode, budget - map_bytes) {
                Decoded::Nothing => continue,
                Decoded::TooBig => return out,
                Decoded::View(d) => d,
            };
            if !out.iter().any(|o| o.text == d.text) {
                bytes += d.text.len();
                map_bytes += d.map_bytes();
                if bytes > budget || map_bytes > budget {
                    return out;
                }
                let mut a = applied[i];
                a[k] += 1;
                out.push(d);
                applied.push(a);
            }
        }
        i += 1;
    }
    out
}

/// The bytes `views` hold: their texts (the original's included) and their maps back to
/// it, each map once (a view shares those of the views it was decoded from). For the
/// views [`views`] makes, at most twice [`VIEW_BYTES`] or sixteen times the original,
/// whichever is more.
pub fn held_bytes(views: &[View]) -> usize {
    views
        .iter()
        .map(|v| v.text.len() + v.map_bytes())
        .sum::<usize>()
}

/// What [`views`] may make in all for one text, at least (a longer text may have eight
/// times its size), and as much again for their maps back to it: 4 MiB, every view of a
/// text of up to about 8 KiB whatever it holds (45 KiB with no invisible or control
/// character). So the views of one text, texts and maps, hold at most twice this or
/// sixteen times the text, whichever is more ([`held_bytes`]): 128 MiB for a log line
/// of 8 MiB, at most.
pub const VIEW_BYTES: usize = 4 * 1024 * 1024;

fn json_unescape(s: &str, most: usize) -> Decoded<(String, Layer)> {
    if !s.contains('\\') {
        return Decoded::Nothing;
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut layer = Layer::default();
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            i += 1;
            continue;
        }
        let (ch, len) = match b[i + 1] {
            // Not JSON, but a shell or a pasted log writes it.
            b'\'' => ('\'', 2),
            b'u' => match hex4(b, i + 2) {
                Some(hi @ 0xD800..=0xDBFF) => match (b.get(i + 6..i + 8), hex4(b, i + 8)) {
                    (Some(b"\\u"), Some(lo @ 0xDC00..=0xDFFF)) => {
                        let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        (char::from_u32(c).unwrap_or('\u{FFFD}'), 12)
                    }
                    _ => ('\u{FFFD}', 6),
                },
                Some(c) => (char::from_u32(c).unwrap_or('\u{FFFD}'), 6),
                None => {
                    i += 1;
                    continue;
                }
            },
            c => match crate::text::json_str::short_escape(c) {
                Some(ch) => (ch, 2),
                None => {
                    i += 1;
                    continue;
                }
            },
        };
        out.push_str(&s[copied..i]);
        layer.push(Edit {
            dec: out.len(),
            dec_len: ch.len_utf8(),
            orig: i,
            orig_len: len,
        });
        if layer.bytes() > most {
            return Decoded::TooBig;
        }
        out.push(ch);
        i += len;
        copied = i;
    }
    if layer.is_empty() {
        return Decoded::Nothing;
    }
    out.push_str(&s[copied..]);
    Decoded::View((out, layer))
}

/// Removes what a screen shows as nothing, or as nothing readable, inside a word:
/// escape sequences (`ESC [ 0 m`, a colour; `ESC` and one character), the other C0
/// controls but `\n`, `\t` and the `\r` of a `\r\n` (a lone `\r` returns to the line's
/// start: a terminal prints the rest over it), DEL, the C1 controls, the bidi controls
/// and the invisible format characters (U+200B, the soft hyphen U+00AD...): a secret
/// with one inside (`Xr7Tb2Q` U+200B `m9Kd...`) reads whole again. A space of another
/// width ([`is_unicode_space`]: the no-break space U+00A0...) becomes an ASCII space,
/// as the rules write the space around a key's `=` or `:` (helper-97: `password`
/// U+00A0 `= V` was shown).
fn strip_invisible(s: &str, most: usize) -> Decoded<(String, Layer)> {
    use crate::text::sanitize::{is_bidi_control, is_invisible_format};
    let b = s.as_bytes();
    // Nothing to remove, told from the bytes as the output's sanitizer tells its unsafe
    // characters (one table look-up a byte, eight at a time: `✗`, curly quotes and a
    // 16 MiB paste of them pass at once, never decoded), and no lone `\r` (which that
    // sanitizer lets through with the `\r\n` this view keeps)
    let lone_cr = memchr::memchr_iter(b'\r', b).any(|i| b.get(i + 1) != Some(&b'\n'));
    if !lone_cr
        && !crate::text::sanitize::holds_unsafe_in_json(s)
        && (s.is_ascii() || !s.contains(is_unicode_space))
    {
        return Decoded::Nothing;
    }
    let mut out = String::new();
    let mut layer = Layer::default();
    let mut copied = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let mut end = i + c.len_utf8();
        let removed = match c {
            '\n' | '\t' => false,
            '\r' => b.get(end) != Some(&b'\n'),
            '\u{1b}' => {
                // `ESC [ parameters intermediates final`, or `ESC` and one character
                match b.get(end) {
                    Some(b'[') => {
                        end += 1;
                        while b.get(end).is_some_and(|x| (0x20..=0x3f).contains(x)) {
                            end += 1;
                        }
                        if b.get(end).is_some_and(|x| (0x40..=0x7e).contains(x)) {
                            end += 1;
                        }
                    }
                    Some(x) if (0x20..0x7f).contains(x) => end += 1,
                    _ => {}
                }
                while chars.peek().is_some_and(|&(j, _)| j < end) {
                    chars.next();
                }
                true
            }
            c => c.is_control() || is_bidi_control(c) || is_invisible_format(c),
        };
        // a space of another width is not removed but read as an ASCII space
        let space = !removed && is_unicode_space(c);
        if !removed && !space {
            continue;
        }
        if out.is_empty() {
            out.reserve(s.len());
        }
        out.push_str(&s[copied..i]);
        match layer.last_mut() {
            // one run of removed characters is one edit
            Some(e) if !space && e.orig + e.orig_len == i && e.dec == out.len() => {
                e.orig_len = end - e.orig
            }
            _ => {
                layer.push(Edit {
                    dec: out.len(),
                    dec_len: usize::from(space),
                    orig: i,
                    orig_len: end - i,
                });
                if layer.bytes() > most {
                    return Decoded::TooBig;
                }
            }
        }
        if space {
            out.push(' ');
        }
        copied = end;
    }
    if layer.is_empty() {
        return Decoded::Nothing;
    }
    out.push_str(&s[copied..]);
    Decoded::View((out, layer))
}

/// A space other than ASCII's that reads as one ([`strip_invisible`]): the no-break
/// space, the Ogham space mark, the spaces of typography (en, em, thin, hair...), the
/// narrow no-break space, the medium mathematical space and the ideographic space.
fn is_unicode_space(c: char) -> bool {
    matches!(
        c,
        '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let h = b.get(at..at + 4)?;
    let s = std::str::from_utf8(h).ok()?;
    u32::from_str_radix(s, 16).ok()
}

fn url_decode(s: &str, most: usize) -> Decoded<(String, Layer)> {
    if !s.contains('%') {
        return Decoded::Nothing;
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut layer = Layer::default();
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let Some(v) = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            && v < 0x80
            && v != 0
        {
            out.push_str(&s[copied..i]);
            layer.push(Edit {
                dec: out.len(),
                dec_len: 1,
                orig: i,
                orig_len: 3,
            });
            if layer.bytes() > most {
                return Decoded::TooBig;
            }
            out.push(v as char);
            i += 3;
            copied = i;
        } else {
            i += 1;
        }
    }
    if layer.is_empty() {
        return Decoded::Nothing;
    }
    out.push_str(&s[copied..]);
    Decoded::View((out, layer))
}

fn is_token_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'+' | b'/' | b'=' | b'.')
}

/// Removes a line break (`\n` or `\r\n`, with the next line's indentation) that has a
/// token character on both sides: a token split across two lines of one record reads
/// whole again. The token before a break is read as the view reads it, across the
/// breaks before it already removed: so joining the view again removes nothing more
/// (`PASSWORD=`, `0000` and `PASSWORD=` on three lines are one token; joined twice
/// they were read in two steps, the second a view of its own).
fn join_split_tokens(s: &str, most: usize) -> Decoded<(String, Layer)> {
    // Where the current line's text starts, and the token run that ended the line
    // before it when that line's break was removed (the run goes on into this line).
    let mut line_start = 0;
    let mut carried = 0;
    remove_breaks_where(s, most, |b, brk_start, next| {
        // A token cut by a wrap: a run of at least 8 token characters ending in a letter
        // or digit, then a line starting with one. Sentences ("...credentials.") and
        // short words are not joined to the next line.
        let own = b[line_start..brk_start]
            .iter()
            .rev()
            .take_while(|&&c| is_token_byte(c))
            .count();
        let run = if own == brk_start - line_start {
            own + carried
        } else {
            own
        };
        let before = brk_start.checked_sub(1).map(|k| b[k]);
        let after = b.get(next).copied();
        let join = run >= 8
            && before.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'=')
            && after.is_some_and(|c| c.is_ascii_alphanumeric());
        line_start = next;
        carried = if join { run } else { 0 };
        join
    })
}

/// Removes every line break (`\n` or `\r\n`, with the next line's indentation) between
/// two lines that hold text (see [`View::lines_joined`]).
fn remove_line_breaks(s: &str, most: usize) -> Decoded<(String, Layer)> {
    remove_breaks_where(s, most, |b, brk_start, next| {
        let before = brk_start.checked_sub(1).map(|k| b[k]);
        let after = b.get(next).copied();
        before.is_some_and(|c| c != b'\n') && after.is_some_and(|c| c != b'\r' && c != b'\n')
    })
}

/// Removes each line break of `s` (`\n` or `\r\n`, with the next line's indentation)
/// for which `remove(bytes, start of the break, start of the next line's text)` holds
/// (asked of each break in order), each removal an edit of the view's layer, within
/// `most` bytes; `Nothing` when none is removed.
fn remove_breaks_where(
    s: &str,
    most: usize,
    mut remove: impl FnMut(&[u8], usize, usize) -> bool,
) -> Decoded<(String, Layer)> {
    let b = s.as_bytes();
    let mut out = String::new();
    let mut layer = Layer::default();
    let mut copied = 0;
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'\n', &b[i..]) {
        i += off;
        let brk_start = if i > 0 && b[i - 1] == b'\r' { i - 1 } else { i };
        let mut next = i + 1;
        while next < b.len() && (b[next] == b' ' || b[next] == b'\t') {
            next += 1;
        }
        if remove(b, brk_start, next) {
            if out.is_empty() {
                out.reserve(s.len());
            }
            out.push_str(&s[copied..brk_start]);
            layer.push(Edit {
                dec: out.len(),
                dec_len: 0,
                orig: brk_start,
                orig_len: next - brk_start,
            });
            if layer.bytes() > most {
                return Decoded::TooBig;
            }
            copied = next;
        }
        i = next;
    }
    if layer.is_empty() {
        return Decoded::Nothing;
    }
    out.push_str(&s[copied..]);
    Decoded::View((out, layer))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `decode` of `s` with no bound, its layer finished; `None` when there is nothing
    /// to decode.
    fn decoded(decode: Decoding, s: &str) -> Option<(String, Layer)> {
        match decode(s, usize::MAX) {
            Decoded::View((text, layer)) => Some((text, layer.finish())),
            Decoded::Nothing => None,
            Decoded::TooBig => unreachable!("no bound"),
        }
    }

    fn find<'a>(vs: &'a [View<'a>], needle: &str) -> Option<(&'a View<'a>, usize)> {
        vs.iter().find_map(|v| v.text.find(needle).map(|i| (v, i)))
    }

    fn orig_of(text: &str, needle: &str) -> String {
        let vs = views(text);
        let (v, i) = find(&vs, needle).expect("found in a view");
        let (s, e) = v.to_original(i, i + needle.len());
        text[s..e].to_string()
    }

    #[test]
    fn the_views_of_a_long_text_escaped_every_way_stay_within_eight_times_its_size() {
        // every decoding, and each again, changes it: 90 views, were there no bound
        let unit = "k%2525%41\\\\u0041\\u0042ghp_abcdefghij\nklmnop ";
        let long = unit.repeat(600 * 1024 / unit.len());
        let bytes = |v: &[View]| v.iter().map(|v| v.text.len()).sum::<usize>();
        let all = views(&long);
        assert!(
            bytes(&all) <= VIEW_BYTES.max(8 * long.len()),
            "{} views",
            all.len()
        );
        assert!(all.len() >= 8, "{} views", all.len());
        // a short one of the same kind has every view
        let short = views(unit);
        assert!(short.len() > 8, "{} views", short.len());
        assert!(bytes(&short) < VIEW_BYTES);
    }

    #[test]
    fn the_views_of_a_long_text_escaped_densely_hold_their_maps_within_the_bound_too() {
        // An escape every few bytes: a map back to the original has an edit for each.
        // Those maps held 20 to 40 times the text (32 bytes an edit, and each view a
        // copy of the maps of the views it was decoded from): 326 MB for a 9.6 MB line.
        let secret = "ghp_Abcdefghijklmnopqrstuvwxyz0123456789";
        let written = "ghp_%41bcdefghijklmnopqrstuvwxyz0123456789";
        for unit in [
            "%41\\n\u{200B}x",
            "%41x",
            "\\n",
            "\u{1}x",
            "\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}x",
            "abcdefgh\n",
            "k%2525%41\\\\u0041\\u0042ghp_abcdefghij\nklmnop \u{200B}\u{1}x",
        ] {
            let mut long = unit.repeat(VIEW_BYTES / 8 / unit.len());
            long.push_str(&format!(" tok={written} end"));
            let all = views(&long);
            let held = held_bytes(&all);
            let texts: usize = all.iter().map(|v| v.text.len()).sum();
            assert!(
                held <= 2 * VIEW_BYTES.max(8 * long.len()),
                "{unit:?}: {held} bytes in {} views",
                all.len()
            );
            assert!(texts <= VIEW_BYTES.max(8 * long.len()), "{unit:?}");
            // each map at most 7/8 of a byte for each byte of the text it reads (at most
            // the original's length), a block aside
            for v in &all {
                assert!(
                    8 * v.map_bytes() <= 7 * long.len() + 8 * std::mem::size_of::<Block>(),
                    "{unit:?}: a map of {} bytes",
                    v.map_bytes()
                );
            }
            // the shallow views are all there: the URL-encoded token is read
            assert_eq!(orig_of(&long, secret), written, "{unit:?}");
        }
        // the view of a text with every line break removed (for learned values) too
        let lines = "x\n".repeat(VIEW_BYTES / 16);
        let joined = views(&lines)[0].lines_joined().expect("joined");
        assert_eq!(
            joined.text.len(),
            lines.len() / 2 + 1,
            "the last break stays"
        );
        assert!(8 * joined.map_bytes() <= 7 * lines.len() + 8 * std::mem::size_of::<Block>());
    }

    #[test]
    fn maps_json_escapes_back() {
        assert_eq!(
            orig_of(r#"x \u0073k-ant-\u0041BC y"#, "sk-ant-ABC"),
            r#"\u0073k-ant-\u0041BC"#
        );
        assert_eq!(
            orig_of(r#"a https:\/\/u:p@h"#, "https://u:p@h"),
            r#"https:\/\/u:p@h"#
        );
        assert_eq!(
            orig_of(r#"{\"PASSWORD\":\"a \\\"b\\\" c\"}"#, r#""a \"b\" c""#),
            r#"\"a \\\"b\\\" c\""#
        );
    }

    #[test]
    fn maps_url_encoding_back() {
        assert_eq!(
            orig_of("u=https%3A%2F%2Fuser%3Apass%40host", "user:pass"),
            "user%3Apass"
        );
        assert_eq!(
            orig_of("%22sk-ant-abc%22", "\"sk-ant-abc\""),
            "%22sk-ant-abc%22"
        );
    }

    #[test]
    fn joins_tokens_split_across_lines() {
        assert_eq!(
            orig_of("token ghp_abcdef\n  ghijkl end", "ghp_abcdefghijkl"),
            "ghp_abcdef\n  ghijkl"
        );
        assert_eq!(
            orig_of(r#"token ghp_abcdefgh\nDEF end"#, "ghp_abcdefghDEF"),
            r#"ghp_abcdefgh\nDEF"#
        );
        // a Windows line break too
        assert_eq!(
            orig_of("token ghp_abcdef\r\n  ghijkl end", "ghp_abcdefghijkl"),
            "ghp_abcdef\r\n  ghijkl"
        );
    }

    #[test]
    fn a_token_joined_over_several_lines_is_one_view_and_joining_again_changes_nothing() {
        // The run before the second break is read across the first, removed: the three
        // lines are one token in one view (they took two views, joined twice).
        let s = "%3APASSWORD=\n0000\nPASSWORD=x";
        let (joined, layer) = decoded(join_split_tokens, s).expect("joined");
        assert_eq!(joined, "%3APASSWORD=0000PASSWORD=x");
        assert_eq!(layer.len, 2);
        assert!(decoded(join_split_tokens, &joined).is_none());
        // a short word on a line of its own is still not joined, nor is a sentence's end
        assert_eq!(
            decoded(join_split_tokens, "token ghp_abcdef\nab.\ncd")
                .unwrap()
                .0,
            "token ghp_abcdefab.\ncd"
        );
        assert!(decoded(join_split_tokens, "x\nab\ncd").is_none());
    }

    #[test]
    fn every_combination_of_decodings_is_a_view() {
        // URL-decoded, JSON-unescaped and joined, in any order: no cap leaves one out.
        let s = "a%3Ab\\u0041\nPASSWORD=\n0000";
        let vs = views(s);
        let texts: Vec<&str> = vs.iter().map(|v| &*v.text).collect();
        for want in [
            s,
            "a:b\\u0041\nPASSWORD=\n0000",
            "a%3Ab\\u0041\nPASSWORD=0000",
            "a%3Ab\u{41}\nPASSWORD=\n0000",
            "a:bA\nPASSWORD=0000",
        ] {
            assert!(texts.contains(&want), "{want:?} in {texts:?}");
        }
        // each only once
        let mut sorted = texts.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), texts.len());
    }

    #[test]
    fn url_decoding_keeps_only_ascii_bytes() {
        // %80 and above are bytes of a multi-byte character: left as they are, so the
        // offsets after them still map back
        assert_eq!(
            orig_of(
                "x%80%C3%A9 PASSWORD%3Dhunter2hunter2 y",
                "PASSWORD=hunter2hunter2"
            ),
            "PASSWORD%3Dhunter2hunter2"
        );
    }

    #[test]
    fn sentences_are_not_joined() {
        let vs = views("authenticate, or configure its credentials.\nslow-start: x\nab\ncd");
        assert!(vs.iter().all(|v| !v.text.contains("credentials.slow")));
        assert!(vs.iter().all(|v| !v.text.contains("abcd")));
    }

    #[test]
    fn invisible_characters_and_escape_sequences_are_read_through() {
        for (text, written) in [
            (
                "zw Xr7Tb2Q\u{200B}m9Kd4Lp6Vn3Ws end",
                "Xr7Tb2Q\u{200B}m9Kd4Lp6Vn3Ws",
            ),
            (
                "esc Xr7Tb2Q\x1b[0mm9Kd4Lp6Vn3Ws end",
                "Xr7Tb2Q\x1b[0mm9Kd4Lp6Vn3Ws",
            ),
            ("cr Xr7Tb2Qm9K\rd4Lp6Vn3Ws end", "Xr7Tb2Qm9K\rd4Lp6Vn3Ws"),
            (
                "soft Xr7Tb2Qm9K\u{AD}d4Lp6Vn3Ws end",
                "Xr7Tb2Qm9K\u{AD}d4Lp6Vn3Ws",
            ),
            (
                "two Xr7\u{202E}Tb2Q\x1b[1;31m\u{200D}m9Kd4Lp6Vn3Ws end",
                "Xr7\u{202E}Tb2Q\x1b[1;31m\u{200D}m9Kd4Lp6Vn3Ws",
            ),
        ] {
            assert_eq!(orig_of(text, "Xr7Tb2Qm9Kd4Lp6Vn3Ws"), written, "{text:?}");
        }
        // a line break (`\r\n` too) and a tab stay
        assert!(decoded(strip_invisible, "a\r\nb\tc\nd").is_none());
    }

    #[test]
    fn plain_text_has_one_view() {
        assert_eq!(views("nothing to decode here").len(), 1);
    }

    #[test]
    fn json_unescape_reads_every_escape() {
        let s = r#"a\tb\rc\bd\fe\/f\\g\"h\u0041\ud83d\ude00i\u00e9\nj"#;
        let want: String = serde_json::from_str(&format!("\"{s}\"")).unwrap();
        assert_eq!(decoded(json_unescape, s).unwrap().0, want);
        // JavaScript's \' too, and a lone surrogate is U+FFFD
        assert_eq!(decoded(json_unescape, r"it\'s").unwrap().0, "it's");
        assert_eq!(decoded(json_unescape, r"x\ud83dy").unwrap().0, "x\u{FFFD}y");
        assert_eq!(
            decoded(json_unescape, r"x\ud83d\u0041").unwrap().0,
            "x\u{FFFD}A"
        );
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// A character as JSON may write it: raw (escaped where it must be), or as
        /// `\uXXXX` (a surrogate pair above U+FFFF).
        fn written(c: char, as_u: bool) -> String {
            if as_u {
                let mut units = [0u16; 2];
                c.encode_utf16(&mut units)
                    .iter()
                    .map(|u| format!("\\u{u:04x}"))
                    .collect()
            } else {
                let q = serde_json::to_string(&c.to_string()).unwrap();
                q[1..q.len() - 1].to_string()
            }
        }

        /// What a layer of `edits` maps `p` to, as the edits' list read whole says
        /// (the layer's compact form must say the same): `[start, end]`.
        fn reference(edits: &[Edit], p: usize) -> (usize, usize) {
            let start = match edits.partition_point(|e| e.dec <= p).checked_sub(1) {
                None => p,
                Some(i) if p < edits[i].dec + edits[i].dec_len => edits[i].orig,
                Some(i) => {
                    edits[i].orig + edits[i].orig_len + (p - edits[i].dec - edits[i].dec_len)
                }
            };
            let end = match edits.partition_point(|e| e.dec < p).checked_sub(1) {
                None => p,
                Some(i) if p <= edits[i].dec + edits[i].dec_len => {
                    edits[i].orig + edits[i].orig_len
                }
                Some(i) => {
                    edits[i].orig + edits[i].orig_len + (p - edits[i].dec - edits[i].dec_len)
                }
            };
            (start, end)
        }

        proptest! {
            /// A layer's compact edits map every offset as the list of edits does, over
            /// several blocks, with edits next to each other, empty ones, and lengths and
            /// gaps past what one byte holds.
            #[test]
            fn a_layer_maps_as_its_edits_do(
                shapes in prop::collection::vec(
                    (prop_oneof![3 => 0usize..3, 1 => 0usize..400], 0usize..9, prop_oneof![3 => 0usize..13, 1 => 0usize..300]),
                    0..200,
                )
            ) {
                let mut edits = Vec::new();
                let mut layer = Layer::default();
                let (mut dec, mut orig) = (0, 0);
                for (gap, dec_len, orig_len) in shapes {
                    let e = Edit { dec: dec + gap, dec_len, orig: orig + gap, orig_len };
                    (dec, orig) = (e.dec + dec_len, e.orig + orig_len);
                    edits.push(e);
                    layer.push(e);
                }
                let layer = layer.finish();
                prop_assert_eq!(layer.len, edits.len());
                // every offset around each edit's ends, and past the last
                let around = edits.iter().flat_map(|e| [e.dec, e.dec + e.dec_len]);
                let mut at: Vec<usize> = around
                    .flat_map(|p| p.saturating_sub(2)..p + 3)
                    .chain(dec..dec + 3)
                    .collect();
                at.dedup();
                for p in at {
                    prop_assert_eq!((layer.start(p), layer.end(p)), reference(&edits, p), "at {}", p);
                }
            }

            /// serde_json is the oracle: a JSON string's contents decode to the text
            /// serde_json reads, and every decoded character maps back to exactly what
            /// wrote it.
            #[test]
            fn json_unescape_agrees_with_serde_json(
                chars in prop::collection::vec(
                    (prop_oneof![
                        prop::char::range('a', 'z'),
                        prop::sample::select(vec!['\t', '\n', '\r', '\u{8}', '\u{c}', '"', '\\', '/', 'é', '€', '😀']),
                    ], any::<bool>()),
                    1..24,
                )
            ) {
                let pieces: Vec<String> = chars.iter().map(|&(c, u)| written(c, u)).collect();
                let s: String = pieces.concat();
                let want: String = serde_json::from_str(&format!("\"{s}\"")).unwrap();
                match decoded(json_unescape, &s) {
                    Some((text, layer)) => {
                        prop_assert_eq!(&text, &want);
                        let view = View {
                            text: text.into(),
                            layers: vec![Arc::new(layer)],
                        };
                        let mut dec = 0;
                        let mut orig = 0;
                        for (&(c, _), piece) in chars.iter().zip(&pieces) {
                            let n = c.len_utf8();
                            prop_assert_eq!(view.to_original(dec, dec + n), (orig, orig + piece.len()));
                            dec += n;
                            orig += piece.len();
                        }
                    }
                    None => prop_assert_eq!(s, want),
                }
            }
        }
    }
}
