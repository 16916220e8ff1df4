//! Decoded views of a text, for finding secrets in every encoding they are written in:
//! JSON-escaped (`\u0041`, `\/`, `\"`, once or twice), URL-encoded (`%22`, `%3A`),
//! split across two lines, and with an invisible or control character (U+200B, a soft
//! hyphen, a colour sequence, a lone `\r`) inside. Each view keeps a map back to the original text, so a
//! secret found in a view is replaced where it stands in the original, in whatever
//! spelling it has there. The maps hold one entry per decoded escape, not per byte, so a
//! multi-megabyte message costs no more than its escapes.

/// One decoded stretch: `dec_len` bytes of the view at `dec` stand for `orig_len`
/// bytes of the layer below at `orig`. Between edits the two advance together.
#[derive(Debug, Clone, Copy)]
struct Edit {
    dec: usize,
    dec_len: usize,
    orig: usize,
    orig_len: usize,
}

/// How one decoding layer maps back to the text it was decoded from.
#[derive(Debug, Clone, Default)]
struct Layer {
    edits: Vec<Edit>,
}

impl Layer {
    fn start(&self, p: usize) -> usize {
        let i = self.edits.partition_point(|e| e.dec <= p);
        match i.checked_sub(1).map(|i| self.edits[i]) {
            None => p,
            Some(e) if p < e.dec + e.dec_len => e.orig,
            Some(e) => e.orig + e.orig_len + (p - e.dec - e.dec_len),
        }
    }

    fn end(&self, p: usize) -> usize {
        let i = self.edits.partition_point(|e| e.dec < p);
        match i.checked_sub(1).map(|i| self.edits[i]) {
            None => p,
            Some(e) if p <= e.dec + e.dec_len => e.orig + e.orig_len,
            Some(e) => e.orig + e.orig_len + (p - e.dec - e.dec_len),
        }
    }
}

/// A view: its text and the layers that lead back to the original, innermost last.
#[derive(Debug, Clone)]
pub struct View<'a> {
    /// The original text itself (borrowed), or a decoding of it.
    pub text: std::borrow::Cow<'a, str>,
    layers: Vec<Layer>,
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
        self.derive(remove_line_breaks)
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

    fn derive(&self, decode: Decoding) -> Option<View<'static>> {
        let (text, layer) = decode(&self.text)?;
        let mut layers = self.layers.clone();
        layers.push(layer);
        Some(View {
            text: text.into(),
            layers,
        })
    }
}

/// A decoding: the text it reads, the view's text and how it maps back, or `None` when
/// there is nothing to decode.
type Decoding = fn(&str) -> Option<(String, Layer)>;

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
/// of one escaped on purpose would be gigabytes for one text. The views together stay within
/// [`VIEW_BYTES`] or eight times the text, whichever is more (eight views of it: what
/// the cap on their number allowed before), the shallowest first (breadth first): only
/// a text longer than about 8 KiB, escaped on purpose in many ways (with invisible
/// characters too), may have a deep view left out, as before.
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
    let mut i = 0;
    // Breadth-first over decodings: each view is decoded by each decoding it may still
    // have.
    while i < out.len() {
        for (k, &(decode, most)) in DECODINGS.iter().enumerate() {
            if applied[i][k] >= most {
                continue;
            }
            if let Some(d) = out[i].derive(decode)
                && !out.iter().any(|o| o.text == d.text)
            {
                bytes += d.text.len();
                if bytes > budget {
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

/// What [`views`] may make in all for one text, at least (a longer text may have eight
/// times its size): 4 MiB, every view of a text of up to about 8 KiB whatever it holds
/// (45 KiB with no invisible or control character).
pub const VIEW_BYTES: usize = 4 * 1024 * 1024;

fn json_unescape(s: &str) -> Option<(String, Layer)> {
    if !s.contains('\\') {
        return None;
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
        layer.edits.push(Edit {
            dec: out.len(),
            dec_len: ch.len_utf8(),
            orig: i,
            orig_len: len,
        });
        out.push(ch);
        i += len;
        copied = i;
    }
    if layer.edits.is_empty() {
        return None;
    }
    out.push_str(&s[copied..]);
    Some((out, layer))
}

/// Removes what a screen shows as nothing, or as nothing readable, inside a word:
/// escape sequences (`ESC [ 0 m`, a colour; `ESC` and one character), the other C0
/// controls but `\n`, `\t` and the `\r` of a `\r\n` (a lone `\r` returns to the line's
/// start: a terminal prints the rest over it), DEL, the C1 controls, the bidi controls
/// and the invisible format characters (U+200B, the soft hyphen U+00AD...): a secret
/// with one inside (`Xr7Tb2Q` U+200B `m9Kd...`) reads whole again.
fn strip_invisible(s: &str) -> Option<(String, Layer)> {
    use crate::text::sanitize::{is_bidi_control, is_invisible_format};
    let b = s.as_bytes();
    // Nothing to remove, told from the bytes as the output's sanitizer tells its unsafe
    // characters (one table look-up a byte, eight at a time: `✗`, curly quotes and a
    // 16 MiB paste of them pass at once, never decoded), and no lone `\r` (which that
    // sanitizer lets through with the `\r\n` this view keeps)
    let lone_cr = memchr::memchr_iter(b'\r', b).any(|i| b.get(i + 1) != Some(&b'\n'));
    if !lone_cr && !crate::text::sanitize::holds_unsafe_in_json(s) {
        return None;
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
        if !removed {
            continue;
        }
        if out.is_empty() {
            out.reserve(s.len());
        }
        out.push_str(&s[copied..i]);
        match layer.edits.last_mut() {
            // one run of removed characters is one edit
            Some(e) if e.orig + e.orig_len == i && e.dec == out.len() => e.orig_len = end - e.orig,
            _ => layer.edits.push(Edit {
                dec: out.len(),
                dec_len: 0,
                orig: i,
                orig_len: end - i,
            }),
        }
        copied = end;
    }
    if layer.edits.is_empty() {
        return None;
    }
    out.push_str(&s[copied..]);
    Some((out, layer))
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let h = b.get(at..at + 4)?;
    let s = std::str::from_utf8(h).ok()?;
    u32::from_str_radix(s, 16).ok()
}

fn url_decode(s: &str) -> Option<(String, Layer)> {
    if !s.contains('%') {
        return None;
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
            layer.edits.push(Edit {
                dec: out.len(),
                dec_len: 1,
                orig: i,
                orig_len: 3,
            });
            out.push(v as char);
            i += 3;
            copied = i;
        } else {
            i += 1;
        }
    }
    if layer.edits.is_empty() {
        return None;
    }
    out.push_str(&s[copied..]);
    Some((out, layer))
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
fn join_split_tokens(s: &str) -> Option<(String, Layer)> {
    // Where the current line's text starts, and the token run that ended the line
    // before it when that line's break was removed (the run goes on into this line).
    let mut line_start = 0;
    let mut carried = 0;
    remove_breaks_where(s, |b, brk_start, next| {
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
fn remove_line_breaks(s: &str) -> Option<(String, Layer)> {
    remove_breaks_where(s, |b, brk_start, next| {
        let before = brk_start.checked_sub(1).map(|k| b[k]);
        let after = b.get(next).copied();
        before.is_some_and(|c| c != b'\n') && after.is_some_and(|c| c != b'\r' && c != b'\n')
    })
}

/// Removes each line break of `s` (`\n` or `\r\n`, with the next line's indentation)
/// for which `remove(bytes, start of the break, start of the next line's text)` holds
/// (asked of each break in order), each removal an edit of the view's layer; `None` when
/// none is removed.
fn remove_breaks_where(
    s: &str,
    mut remove: impl FnMut(&[u8], usize, usize) -> bool,
) -> Option<(String, Layer)> {
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
            layer.edits.push(Edit {
                dec: out.len(),
                dec_len: 0,
                orig: brk_start,
                orig_len: next - brk_start,
            });
            copied = next;
        }
        i = next;
    }
    if layer.edits.is_empty() {
        return None;
    }
    out.push_str(&s[copied..]);
    Some((out, layer))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let (joined, layer) = join_split_tokens(s).expect("joined");
        assert_eq!(joined, "%3APASSWORD=0000PASSWORD=x");
        assert_eq!(layer.edits.len(), 2);
        assert!(join_split_tokens(&joined).is_none());
        // a short word on a line of its own is still not joined, nor is a sentence's end
        assert_eq!(
            join_split_tokens("token ghp_abcdef\nab.\ncd").unwrap().0,
            "token ghp_abcdefab.\ncd"
        );
        assert!(join_split_tokens("x\nab\ncd").is_none());
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
        assert!(strip_invisible("a\r\nb\tc\nd").is_none());
    }

    #[test]
    fn plain_text_has_one_view() {
        assert_eq!(views("nothing to decode here").len(), 1);
    }

    #[test]
    fn json_unescape_reads_every_escape() {
        let s = r#"a\tb\rc\bd\fe\/f\\g\"h\u0041\ud83d\ude00i\u00e9\nj"#;
        let want: String = serde_json::from_str(&format!("\"{s}\"")).unwrap();
        assert_eq!(json_unescape(s).unwrap().0, want);
        // JavaScript's \' too, and a lone surrogate is U+FFFD
        assert_eq!(json_unescape(r"it\'s").unwrap().0, "it's");
        assert_eq!(json_unescape(r"x\ud83dy").unwrap().0, "x\u{FFFD}y");
        assert_eq!(json_unescape(r"x\ud83d\u0041").unwrap().0, "x\u{FFFD}A");
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

        proptest! {
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
                match json_unescape(&s) {
                    Some((text, layer)) => {
                        prop_assert_eq!(&text, &want);
                        let view = View {
                            text: text.into(),
                            layers: vec![layer],
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
