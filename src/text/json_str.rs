//! The text of JSON strings: where the next byte that is not itself is (a quote, a
//! backslash, a control character), what a one-letter escape stands for, and a string
//! written as serde_json writes it. For the record reader, which reads Claude Code's
//! lines, for redaction's JSON-unescaped view, and for the redacted JSON that
//! `scan --json` writes a row at a time.

/// How many bytes at the start of `b` are neither a quote, a backslash nor a control
/// character (what a JSON string holds as it is): sixteen at a time with SSE2 (part of
/// every x86-64 CPU), where the record reader spent a seventh of a scan's instructions
/// eight at a time; the last bytes (and other architectures) eight at a time.
#[cfg(target_arch = "x86_64")]
pub fn plain_len(b: &[u8]) -> usize {
    // SAFETY: SSE2 is part of the x86-64 architecture: every CPU that runs this has it.
    unsafe { plain_len_sse2(b) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn plain_len_sse2(b: &[u8]) -> usize {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    let quote = _mm_set1_epi8(b'"' as i8);
    let backslash = _mm_set1_epi8(b'\\' as i8);
    let last_control = _mm_set1_epi8(0x1f);
    let mut i = 0;
    while let Some(chunk) = b.get(i..i + 16) {
        // SAFETY: `chunk` is 16 readable bytes, and an unaligned load has no other
        // requirement.
        let v = unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) };
        // A byte is a control character when the smaller of it and 0x1f is itself.
        let looked_for = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
            _mm_cmpeq_epi8(_mm_min_epu8(v, last_control), v),
        );
        let mask = _mm_movemask_epi8(looked_for) as u32;
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += 16;
    }
    i + plain_len_swar(&b[i..])
}

#[cfg(not(target_arch = "x86_64"))]
pub fn plain_len(b: &[u8]) -> usize {
    plain_len_swar(b)
}

/// [`plain_len`] eight bytes at a time, each test a borrow that sets the high bit of a
/// byte that is the one looked for (the lowest such byte is exact; bytes above it may be
/// set too).
fn plain_len_swar(b: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_in = |v: u64| v.wrapping_sub(ONES) & !v;
    let mut i = 0;
    while let Some(chunk) = b.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        let found = (zero_in(w ^ (ONES * u64::from(b'"')))
            | zero_in(w ^ (ONES * u64::from(b'\\')))
            | (w.wrapping_sub(ONES * 0x20) & !w))
            & HIGH;
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + b[i..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .unwrap_or(b.len() - i)
}

/// The character a JSON escape of one letter stands for (`n` in `\n`), for the eight
/// that JSON defines; `None` for any other byte (`u` included).
pub fn short_escape(letter: u8) -> Option<char> {
    Some(match letter {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        _ => return None,
    })
}

/// Appends `s` as a JSON string, quotes included, escaped as serde_json escapes it: a
/// quote and a backslash by a backslash, the five control characters JSON names by
/// their letter, the other control characters as `\u00xx`; everything else as it is.
pub fn push_string(out: &mut String, s: &str) {
    out.push('"');
    let b = s.as_bytes();
    let mut i = 0;
    loop {
        let run = plain_len(&b[i..]);
        out.push_str(&s[i..i + run]);
        i += run;
        let Some(&c) = b.get(i) else {
            break;
        };
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(c >> 4)]));
                out.push(char::from(HEX[usize::from(c & 0xf)]));
            }
        }
        i += 1;
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_len_stops_at_the_first_quote_backslash_or_control() {
        let naive = |b: &[u8]| {
            b.iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
                .unwrap_or(b.len())
        };
        // Every length up to a few SIMD widths, each special byte (and the bytes next to
        // the ranges: 0x1f/0x20, 0x7f, 0x80, 0xff) at every place, alone and after an
        // earlier one.
        let special = [b'"', b'\\', 0x00, 0x0a, 0x1f];
        let plain = [b'a', 0x20, 0x7f, 0x80, 0xff, b'!', b'#', b'[', b']'];
        for len in 0..70 {
            for &fill in &plain {
                let base = vec![fill; len];
                assert_eq!(plain_len(&base), len, "len {len}, fill {fill:#x}");
                for at in 0..len {
                    for &sp in &special {
                        let mut b = base.clone();
                        b[at] = sp;
                        assert_eq!(plain_len(&b), naive(&b), "{b:?}");
                        assert_eq!(plain_len_swar(&b), naive(&b), "{b:?}");
                        if at + 3 < len {
                            b[at + 3] = b'"';
                            assert_eq!(plain_len(&b), at, "{b:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut texts: Vec<String> = (0u32..0x80)
            .filter_map(char::from_u32)
            .map(|c| format!("a{c}b{c}"))
            .collect();
        texts.extend(
            [
                "",
                "plain",
                "\"quoted\" \\ back",
                "é \u{202e} \u{7f} \u{85} 😀",
                "long text with a quote at the end, past sixteen bytes\"",
                "\u{1}\u{1f}\u{1b}[31m",
            ]
            .map(String::from),
        );
        for t in texts {
            let mut got = String::new();
            push_string(&mut got, &t);
            assert_eq!(got, serde_json::to_string(&t).unwrap(), "{t:?}");
        }
    }
}
