//! The one place where text becomes safe to show. Every string that reaches a terminal,
//! a Markdown report or a JSON document passes through one of these functions: file and
//! folder names, zod paths, settings keys and values, pasted `explain` input, log
//! messages, warnings and errors. Log text is partly written by MCP servers, and names
//! come from whoever made the files, so any of it may hold escape sequences (colour,
//! OSC 52 clipboard writes, screen clears, `\r` overwrites) or bidi overrides that make
//! text read differently from what it is.
//!
//! What counts as unsafe ([`is_unsafe`]): the C0 controls (U+0000–U+001F), DEL (U+007F),
//! the C1 controls (U+0080–U+009F; U+009B is a one-character CSI on many terminals) and
//! the bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), the
//! Unicode line and paragraph separators (U+2028, U+2029), and the invisible format
//! characters that make a name look like another ([`is_invisible_format`]: a zero-width
//! space in `zw\u{200b}j` shows as `zwj`).
//!
//! - [`text`] (one line) and [`multiline`] (keeps `\n` and `\t`) make them visible:
//!   `\x1b`, `\r`, `<U+202E>`. For terminals and Markdown.
//! - [`json`] rewrites a serialised JSON document so none of them appears raw: serde_json
//!   escapes C0 but writes DEL, C1 and bidi controls as they are; here they become
//!   `\u007f`, `\u009b`, `\u202e`, which decode to the same strings.
//! - [`output`] is the last pass before bytes leave the process (stdout, stderr, a
//!   `--output` file): it keeps `\n` and `\t`, and, only when colour is on, the SGR
//!   colour sequences mcplogs itself wrote (`ESC [ digits ; ... m`).

use std::borrow::Cow;

/// A bidi control: text after it may display in another order than it is stored.
pub fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
    )
}

/// An invisible format character (Unicode category Cf, shown as nothing): the soft
/// hyphen U+00AD, U+180E, the zero-width space, non-joiner and joiner (U+200B–U+200D),
/// the word joiner and invisible operators (U+2060–U+2064), the deprecated format
/// controls (U+206A–U+206F), the zero-width no-break space (U+FEFF) and the interlinear
/// annotation controls (U+FFF9–U+FFFB), the Hangul fillers (U+115F, U+1160, U+3164,
/// U+FFA0), the shorthand and musical format controls (U+1BCA0–U+1BCA3,
/// U+1D173–U+1D17A) and the tag characters (U+E0001, U+E0020–U+E007F: ASCII written
/// invisibly). (The bidi controls are [`is_bidi_control`].)
pub fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200D}'
            | '\u{2060}'..='\u{2064}'
            | '\u{206A}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}'
    )
}

/// For each byte, whether a text holding it may hold an unsafe character other than the
/// ASCII controls in `keep`: a C0 control not kept, DEL, and the first bytes of the
/// UTF-8 forms of the C1 controls and U+00AD (`C2`), U+061C (`D8`), U+115F, U+1160 and
/// U+180E (`E1`), the other bidi and format controls (`E2`), U+3164 (`E3`), U+FEFF,
/// U+FFA0 and U+FFF9–U+FFFB (`EF`), U+1BCA0–U+1BCA3 and U+1D173–U+1D17A (`F0`) and the
/// tag characters (`F3`).
const fn flagged_bytes(keep: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    let mut i = 0;
    while i < keep.len() {
        t[keep[i] as usize] = false;
        i += 1;
    }
    t[0x7f] = true;
    t[0xc2] = true;
    t[0xd8] = true;
    t[0xe1] = true;
    t[0xe2] = true;
    t[0xe3] = true;
    t[0xef] = true;
    t[0xf0] = true;
    t[0xf3] = true;
    t
}

/// What [`text`] lets through: nothing unsafe.
const UNSAFE_IN_TEXT: [bool; 256] = flagged_bytes(b"");
/// What [`multiline`], [`output`] and [`has_raw_control`] let through: `\n` and `\t`
/// (an ESC, kept by `output` only as colour, is flagged: it is looked at).
const UNSAFE_IN_LINES: [bool; 256] = flagged_bytes(b"\n\t");
/// What [`json`] lets through: the white space of a pretty document.
const UNSAFE_IN_JSON: [bool; 256] = flagged_bytes(b"\n\t\r");

/// Whether `s` holds an unsafe character that `flagged` does not let through, told from
/// its bytes: a flagged ASCII byte is one; a flagged lead byte (`C2`, `D8`, `E1`, `E2`,
/// `E3`, `EF`, `F0`, `F3`) is one only with the continuation bytes of a C1, bidi or invisible format
/// character (in UTF-8 they never occur
/// as continuation bytes). One table look-up a byte, where decoding every character of
/// a 250 MB `scan --json` document took a second on one core; the same answer as
/// `is_unsafe` on every character (a test holds it so for every character).
fn holds_unsafe(s: &str, flagged: &[bool; 256]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let b = s.as_bytes();
    let unsafe_at = |i: usize| {
        let c = b[i];
        flagged[c as usize] && {
            let at = |k: usize| b.get(i + k).copied().unwrap_or(0);
            match c {
                0xc2 => matches!(at(1), 0x80..=0x9f | 0xad),
                0xd8 => at(1) == 0x9c,
                0xe1 => match at(1) {
                    0xa0 => at(2) == 0x8e,
                    0x85 => matches!(at(2), 0x9f | 0xa0),
                    _ => false,
                },
                0xe3 => at(1) == 0x85 && at(2) == 0xa4,
                0xe2 => match at(1) {
                    0x80 => matches!(at(2), 0x8b..=0x8f | 0xa8..=0xae),
                    0x81 => matches!(at(2), 0xa0..=0xa4 | 0xa6..=0xaf),
                    _ => false,
                },
                0xef => match at(1) {
                    0xbb => at(2) == 0xbf,
                    0xbe => at(2) == 0xa0,
                    0xbf => (0xb9..=0xbb).contains(&at(2)),
                    _ => false,
                },
                0xf0 => match (at(1), at(2)) {
                    (0x9b, 0xb2) => (0xa0..=0xa3).contains(&at(3)),
                    (0x9d, 0x85) => (0xb3..=0xba).contains(&at(3)),
                    _ => false,
                },
                0xf3 => match (at(1), at(2)) {
                    (0xa0, 0x80) => matches!(at(3), 0x81 | 0xa0..=0xbf),
                    (0xa0, 0x81) => (0x80..=0xbf).contains(&at(3)),
                    _ => false,
                },
                _ => true,
            }
        }
    };
    // Printable ASCII (0x20 to 0x7e) is never flagged: eight such bytes at a time are
    // passed over with two borrow tests (a byte below 0x20, a byte from 0x7f up), which
    // may call a plain word not plain, never the other way; such words, and the last
    // bytes, are looked at byte by byte.
    let mut i = 0;
    while let Some(chunk) = b.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        let not_plain = ((w.wrapping_sub(ONES * 0x20) & !w) | w.wrapping_add(ONES) | w) & HIGH;
        if not_plain != 0 && (i..i + 8).any(unsafe_at) {
            return true;
        }
        i += 8;
    }
    (i..b.len()).any(unsafe_at)
}

/// Whether `c` is unsafe and not let through by `flagged` (only ASCII controls are).
fn rewritten(c: char, flagged: &[bool; 256]) -> bool {
    is_unsafe(c) && (c as u32 >= 0x20 || flagged[c as usize])
}

/// Whether `s` holds a character [`json`] would rewrite (C0 and DEL but the white space
/// of a document, C1, bidi, line separators, invisible format characters), told from its
/// bytes as [`holds_unsafe`] tells it: the quick test of a view that removes them
/// (`redact::views`).
pub(crate) fn holds_unsafe_in_json(s: &str) -> bool {
    holds_unsafe(s, &UNSAFE_IN_JSON)
}

/// C0, DEL, C1, a bidi control, a line separator or an invisible format character.
pub fn is_unsafe(c: char) -> bool {
    c.is_control() || is_bidi_control(c) || is_line_separator(c) || is_invisible_format(c)
}

/// U+2028 and U+2029: a line break to every reader that splits on Unicode line ends
/// (Python's `splitlines`, JavaScript before ES2019 in a string), so a raw one would cut
/// a JSON Lines record or a screen line in two for them.
pub fn is_line_separator(c: char) -> bool {
    matches!(c, '\u{2028}' | '\u{2029}')
}

fn push_visible(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
        c => out.push_str(&format!("<U+{:04X}>", c as u32)),
    }
}

fn visible<'a>(s: &'a str, flagged: &[bool; 256]) -> Cow<'a, str> {
    if !holds_unsafe(s, flagged) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if rewritten(c, flagged) {
            push_visible(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One line of terminal or Markdown text: every unsafe character, `\n` and `\t`
/// included, is shown escaped (`\x1b`, `\n`, `<U+202E>`).
pub fn text(s: &str) -> Cow<'_, str> {
    visible(s, &UNSAFE_IN_TEXT)
}

/// Like [`text`], but newlines and tabs stay (a multi-line log message, a diff).
pub fn multiline(s: &str) -> Cow<'_, str> {
    visible(s, &UNSAFE_IN_LINES)
}

/// A serialised JSON document with DEL, C1 and bidi controls `\u`-escaped. Only valid
/// on serde_json's output: there every such character is inside a string (the syntax
/// is ASCII), and serde_json already escaped C0, so the result decodes to the same value.
pub fn json(doc: &str) -> Cow<'_, str> {
    if !holds_unsafe(doc, &UNSAFE_IN_JSON) {
        return Cow::Borrowed(doc);
    }
    let mut out = String::with_capacity(doc.len() + 16);
    for c in doc.chars() {
        if rewritten(c, &UNSAFE_IN_JSON) {
            // JSON's `\u` takes four hex digits, a UTF-16 unit: a character outside the
            // BMP (the tag characters U+E0001-U+E007F are unsafe) is its surrogate pair
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A value as a pretty JSON document, newline-terminated, with every unsafe character
/// escaped ([`json`]).
pub fn json_document(v: &impl serde::Serialize) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("a serde_json::Value serialises");
    s = json(&s).into_owned();
    s.push('\n');
    s
}

/// [`json`], then [`output`]: a serialised JSON document (or a piece of one cut between
/// characters) as it leaves the process. One look at a text neither pass changes (what
/// [`json`] escapes, [`output`] escapes too).
pub fn json_output(doc: &str, colour: bool) -> Cow<'_, str> {
    if !holds_unsafe(doc, &UNSAFE_IN_LINES) {
        return Cow::Borrowed(doc);
    }
    Cow::Owned(output(&json(doc), colour).into_owned())
}

/// The last pass before text leaves the process. Keeps `\n` and `\t`; keeps SGR colour
/// sequences (`ESC [ 0-9;... m`) only when `colour` is set, since mcplogs writes those
/// itself on a terminal; escapes everything else unsafe. On text that went through
/// [`text`], [`multiline`] or [`json`] it changes nothing.
pub fn output(s: &str, colour: bool) -> Cow<'_, str> {
    // An ESC is flagged too: with colour on, its sequence is looked at below.
    if !holds_unsafe(s, &UNSAFE_IN_LINES) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if colour && c == '\x1b' {
            let sgr = sgr_len(rest);
            if sgr > 0 {
                out.push_str(&rest[..sgr]);
                rest = &rest[sgr..];
                continue;
            }
        }
        if rewritten(c, &UNSAFE_IN_LINES) {
            push_visible(&mut out, c);
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    Cow::Owned(out)
}

/// The length of an SGR sequence at the start of `s`, or 0.
fn sgr_len(s: &str) -> usize {
    let b = s.as_bytes();
    if b.len() < 3 || b[0] != 0x1b || b[1] != b'[' {
        return 0;
    }
    let mut i = 2;
    while i < b.len() && i < 32 && (b[i].is_ascii_digit() || b[i] == b';') {
        i += 1;
    }
    if i < b.len() && b[i] == b'm' {
        i + 1
    } else {
        0
    }
}

/// Whether `s` holds any unsafe character other than `\n` and `\t`: what the tests ask
/// of everything mcplogs writes.
pub fn has_raw_control(s: &str) -> bool {
    holds_unsafe(s, &UNSAFE_IN_LINES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_check_finds_exactly_the_unsafe_characters() {
        // Every character there is: one that json or output must rewrite makes the
        // byte check look (its first byte is flagged); a text the check passes as safe
        // is one the character-by-character look would also leave as it is.
        for (flagged, kept) in [
            (&UNSAFE_IN_JSON, &['\n', '\t', '\r'][..]),
            (&UNSAFE_IN_LINES, &['\n', '\t'][..]),
            (&UNSAFE_IN_TEXT, &[][..]),
        ] {
            let mut seen = 0;
            for c in (0..=0x10FFFF).filter_map(char::from_u32) {
                if is_unsafe(c) && !kept.contains(&c) {
                    seen += 1;
                    let mut buf = [0; 4];
                    let s: &str = c.encode_utf8(&mut buf);
                    assert!(holds_unsafe(s, flagged), "{c:?} passes the byte check");
                    assert!(holds_unsafe(&format!("ok {s} ok"), flagged), "{c:?}");
                    // At every place in and across the eight-byte words, among plain
                    // text and safe non-ASCII.
                    for at in 0..17 {
                        let before = "x".repeat(at);
                        assert!(
                            holds_unsafe(&format!("{before}{s}{}", "y".repeat(20)), flagged),
                            "{c:?} at {at}"
                        );
                        assert!(
                            holds_unsafe(&format!("{before}\u{e9}{s}\u{2014}"), flagged),
                            "{c:?} at {at}"
                        );
                    }
                }
            }
            for at in 0..17 {
                let text = format!("{}\u{e9}\u{2014}\u{1F600}{}", "x".repeat(at), "y".repeat(9));
                assert!(!holds_unsafe(&text, flagged), "{at}");
            }
            assert!(seen > 60, "{seen}");
            // And no other character does.
            for c in (0..=0x10FFFF).filter_map(char::from_u32) {
                if !is_unsafe(c) || kept.contains(&c) {
                    let mut buf = [0; 4];
                    assert!(!holds_unsafe(c.encode_utf8(&mut buf), flagged), "{c:?}");
                }
            }
            assert!(!holds_unsafe(
                "plain ascii, \u{e9}t\u{e9} \u{b7} \u{2014} \u{2026} \u{65e5}\u{672c} \u{1F600}",
                flagged
            ));
        }
        assert!(!holds_unsafe("a\nb\tc\r", &UNSAFE_IN_JSON));
        assert!(holds_unsafe("a\rb", &UNSAFE_IN_LINES));
        assert!(holds_unsafe("\x1b[31m", &UNSAFE_IN_LINES));
        // What json then output change, json_output changes the same way.
        for t in [
            "a\rb",
            "\u{202e}x\u{7f}",
            "\x1b[31mred\x1b[0m",
            "plain\n\té",
            "\u{85}",
        ] {
            for colour in [true, false] {
                assert_eq!(json_output(t, colour), output(&json(t), colour), "{t:?}");
            }
        }
        // Safe texts come back as they are, without a copy.
        assert!(matches!(
            json("{\n  \"a\": \"\u{e9}\"\n}"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(output("line\tone\n", false), Cow::Borrowed(_)));
        assert_eq!(output("a\u{202e}b", false), "a<U+202E>b");
        assert_eq!(json("\"a\u{7f}\""), "\"a\\u007f\"");
    }

    #[test]
    fn invisible_format_characters_are_shown_as_code_points() {
        // a zero-width space made `zw\u{200b}j` read as `zwj`
        assert_eq!(text("zw\u{200b}j"), "zw<U+200B>j");
        assert_eq!(
            output("a\u{200d}b\u{2060}c\u{feff}d\u{ad}e\u{180e}f", false),
            "a<U+200D>b<U+2060>c<U+FEFF>d\\xade<U+180E>f"
        );
        assert_eq!(json("\"k\u{200b}\""), "\"k\\u200b\"");
        // ASCII written in tag characters, a Hangul filler, a musical format control
        assert_eq!(
            text("zw\u{e0020}j\u{3164}k\u{1d173}l"),
            "zw<U+E0020>j<U+3164>k<U+1D173>l"
        );
        // the characters around them stay: an emoji, a CJK text, a variation selector
        assert_eq!(
            text("\u{1f600}\u{4e2d}\u{fe0f}\u{ff01}"),
            "\u{1f600}\u{4e2d}\u{fe0f}\u{ff01}"
        );
    }

    #[test]
    fn terminal_text_shows_every_control() {
        assert_eq!(
            text("a\u{1b}]52;c;ZXZpbA==\u{7}b\rc\u{202e}d\u{9b}e\u{7f}\nf\tg"),
            "a\\x1b]52;c;ZXZpbA==\\x07b\\rc<U+202E>d\\x9be\\x7f\\nf\\tg"
        );
        assert_eq!(multiline("x\ny\tz\u{2066}"), "x\ny\tz<U+2066>");
        assert!(matches!(text("plain ünïcode"), Cow::Borrowed(_)));
        for c in [
            '\u{0}', '\u{1f}', '\u{7f}', '\u{80}', '\u{9f}', '\u{202a}', '\u{2069}',
        ] {
            assert!(!has_raw_control(&text(&c.to_string())), "{c:?}");
        }
    }

    #[test]
    fn json_escapes_what_serde_json_leaves_raw() {
        let v = serde_json::json!({"k\u{202e}": "a\u{1b}b\u{7f}c\u{9b}d\u{2067}"});
        let raw = serde_json::to_string(&v).unwrap();
        assert!(has_raw_control(&raw), "serde_json leaves some raw: {raw:?}");
        let safe = json(&raw);
        assert!(!has_raw_control(&safe), "{safe}");
        assert_eq!(safe, "{\"k\\u202e\":\"a\\u001bb\\u007fc\\u009bd\\u2067\"}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn output_keeps_own_colour_only_when_on() {
        let s = "\x1b[1;31mred\x1b[0m \x1b]52;c;x\x07 \x1b[2J";
        assert_eq!(
            output(s, true),
            "\x1b[1;31mred\x1b[0m \\x1b]52;c;x\\x07 \\x1b[2J"
        );
        assert_eq!(
            output(s, false),
            "\\x1b[1;31mred\\x1b[0m \\x1b]52;c;x\\x07 \\x1b[2J"
        );
        assert_eq!(output("a\nb\tc", false), "a\nb\tc");
    }

    /// With colour on, only ESC may start a kept sequence: any other control in a text
    /// without ESC is still escaped (the fast path must not let it through).
    #[test]
    fn output_with_colour_on_escapes_controls_in_text_without_esc() {
        assert_eq!(output("a\x07b\u{9b}c", true), "a\\x07b\\x9bc");
        assert_eq!(output("plain", true), "plain");
    }

    /// Only a complete SGR sequence (`ESC [ digits/; m`) is kept with colour on: not an
    /// OSC that happens to end in `m`, not one cut off at the end of the text.
    #[test]
    fn only_complete_sgr_sequences_are_kept() {
        assert_eq!(output("\x1b[m", true), "\x1b[m");
        assert_eq!(output("\x1b]1m", true), "\\x1b]1m");
        assert_eq!(output("x\x1b[12", true), "x\\x1b[12");
        assert_eq!(output("x\x1b", true), "x\\x1b");
    }

    /// A character outside the BMP that is escaped (a tag character, ASCII written
    /// invisibly) is escaped as JSON reads it back: its surrogate pair (`\ue0057` read
    /// as U+E005 and a `7`; the property `nothing_unsafe_survives` found it).
    #[test]
    fn an_escaped_character_outside_the_bmp_reads_back_the_same() {
        let v = serde_json::Value::String("a\u{e0057}b\u{e0001}".into());
        let doc = json_document(&v);
        assert!(doc.contains("\\udb40\\udc57"), "{doc}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&doc).unwrap(), v);
    }

    #[test]
    fn an_sgr_is_kept_up_to_thirty_parameter_characters() {
        // the cap keeps a hostile run of digits from being scanned (and kept) whole
        let sgr = |n: usize| format!("\x1b[{}m", "1".repeat(n));
        assert_eq!(output(&sgr(30), true), sgr(30));
        assert_eq!(output(&sgr(31), true), format!("\\x1b[{}m", "1".repeat(31)));
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    fn hostile() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                any::<char>(),
                prop::sample::select(vec![
                    '\u{1b}', '\r', '\n', '\t', '\u{7}', '\u{7f}', '\u{9b}', '\u{85}', '\u{202e}',
                    '\u{200b}', '\u{feff}', '\u{2066}', '\u{200f}', '[', 'm', ';', '2',
                ]),
            ],
            0..64,
        )
        .prop_map(|v| v.into_iter().collect())
    }

    /// The fuzz target's invariants (fuzz/fuzz_targets/sanitize.rs), on generated text
    /// and on its seed corpus, in every `cargo test`.
    fn invariants(s: &str) {
        let t = text(s);
        assert!(!has_raw_control(&t) && !t.contains(['\n', '\t']));
        let m = multiline(s);
        assert!(!has_raw_control(&m));
        if !s.chars().any(is_unsafe) {
            assert_eq!(t, s);
        }
        assert_eq!(output(&m, false), m);
        assert!(!has_raw_control(&output(s, false)));
        let v = serde_json::Value::String(s.to_string());
        let doc = json_document(&v);
        assert!(!has_raw_control(&doc));
        let back: serde_json::Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(back, v);
    }

    proptest! {
        #[test]
        fn nothing_unsafe_survives(s in hostile()) {
            invariants(&s);
        }
    }

    #[test]
    fn seed_corpus() {
        let seeds = crate::test_support::fuzz_seeds("sanitize");
        assert!(seeds.len() >= 3);
        for s in &seeds {
            invariants(s);
        }
    }
}
