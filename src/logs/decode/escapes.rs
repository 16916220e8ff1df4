//! Lossy repair of JSON text that `serde_json` refuses because of one string escape:
//! a lone surrogate (`\ud83d` without its pair, which `JSON.parse` accepts and a Rust
//! `String` cannot hold) or an invalid escape (`\x41`, `\u12`). Each becomes U+FFFD,
//! so the record still decodes and still counts. A raw control character is left
//! alone: `JSON.parse` rejects it too, and Claude Code never writes one, so such a line
//! is damage, counted as not JSON. Used only after a parse failed: the fast path never
//! pays for it.

/// The repaired text, or `None` when there was nothing to repair.
pub(crate) fn repair(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut in_string = false;
    let mut i = 0;
    let replace = |out: &mut String, copied: &mut usize, from: usize, to: usize, with: &str| {
        out.push_str(&text[*copied..from]);
        out.push_str(with);
        *copied = to;
    };
    while i < b.len() {
        match b[i] {
            b'"' => {
                in_string = !in_string;
                i += 1;
            }
            b'\\' if in_string => match b.get(i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                Some(b'u') => match hex4(b, i + 2) {
                    Some(0xd800..=0xdbff) => {
                        let paired = b.get(i + 6) == Some(&b'\\')
                            && b.get(i + 7) == Some(&b'u')
                            && matches!(hex4(b, i + 8), Some(0xdc00..=0xdfff));
                        if paired {
                            i += 12;
                        } else {
                            replace(&mut out, &mut copied, i, i + 6, "\\ufffd");
                            i += 6;
                        }
                    }
                    Some(0xdc00..=0xdfff) => {
                        replace(&mut out, &mut copied, i, i + 6, "\\ufffd");
                        i += 6;
                    }
                    Some(_) => i += 6,
                    None => {
                        // `\u` with fewer than four hex digits: drop the escape.
                        replace(&mut out, &mut copied, i, i + 2, "\\ufffd");
                        i += 2;
                    }
                },
                Some(_) => {
                    let len = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                    replace(&mut out, &mut copied, i, i + 1 + len, "\\ufffd");
                    i += 1 + len;
                }
                None => i += 1,
            },
            _ => i += 1,
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let d = b.get(at..at + 4)?;
    if !d.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(d).ok()?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(t: &str) -> String {
        let r = repair(t).expect("something to repair");
        serde_json::from_str::<String>(&r).unwrap()
    }

    #[test]
    fn lone_surrogates_and_bad_escapes_become_replacement_characters() {
        assert_eq!(decoded(r#""a\ud83db""#), "a\u{fffd}b");
        assert_eq!(decoded(r#""\udc00""#), "\u{fffd}");
        assert_eq!(decoded(r#""\ud83d\ud83d\ude00""#), "\u{fffd}\u{1f600}");
        assert_eq!(decoded(r#""\x41""#), "\u{fffd}41");
        assert_eq!(decoded(r#""\u12""#), "\u{fffd}12");
        assert_eq!(repair("\"a\tb\""), None);
        assert_eq!(decoded(r#""\é""#), "\u{fffd}");
    }

    #[test]
    fn valid_text_needs_no_repair() {
        assert_eq!(repair(r#"{"a": "\ud83d\ude00 \n \u0041 \\ud800"}"#), None);
    }
}
