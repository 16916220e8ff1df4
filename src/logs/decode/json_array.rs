//! The older per-server format (Claude Code of mid-2025): one pretty-printed JSON array
//! of record objects in a `.txt` file. Elements are parsed one at a time so that a file
//! cut short by a crash still yields every complete record before the cut.

use std::path::PathBuf;
use std::sync::Arc;

use super::{Damage, record_from_json};
use crate::logs::record::Record;

pub(super) fn decode(bytes: &[u8], file: &Arc<PathBuf>, sink: &mut dyn FnMut(Record)) -> Damage {
    let mut damage = Damage {
        lines: bytecount_lines(bytes),
        ..Damage::default()
    };
    let (mut owned, lossy) = match std::str::from_utf8(bytes) {
        Ok(t) => (std::borrow::Cow::Borrowed(t), false),
        Err(_) => (String::from_utf8_lossy(bytes), true),
    };
    if lossy {
        damage.invalid_utf8 += 1;
    }
    let mut pos = skip_ws(&owned, 0);
    if !owned[pos..].starts_with('[') {
        damage.not_json += 1;
        return damage;
    }
    pos += 1;
    let mut cursor = LineCursor { pos: 0, line: 1 };
    let mut repaired_at = None;
    loop {
        let text: &str = &owned;
        pos = skip_ws(text, pos);
        if pos >= text.len() {
            // The closing bracket never came: a truncated file.
            damage.truncated_last = true;
            break;
        }
        if text[pos..].starts_with(']') {
            break;
        }
        if text[pos..].starts_with(',') {
            pos += 1;
            continue;
        }
        let line = cursor.advance(text, pos);
        let mut stream =
            serde_json::Deserializer::from_str(&text[pos..]).into_iter::<serde_json::Value>();
        match stream.next() {
            Some(Ok(value)) => {
                pos += stream.byte_offset();
                match record_from_json(value, file, line) {
                    Some(r) => sink(r),
                    None => damage.not_a_record += 1,
                }
            }
            Some(Err(e)) if e.is_eof() => {
                damage.truncated_last = true;
                break;
            }
            // A lone surrogate or bad escape: repair the rest once, the element counts.
            Some(Err(_)) if repaired_at != Some(pos) => {
                let Some(rest) = super::escapes::repair(&text[pos..]) else {
                    damage.not_json += 1;
                    break;
                };
                damage.bad_escapes += 1;
                repaired_at = Some(pos);
                owned = std::borrow::Cow::Owned(format!("{}{rest}", &text[..pos]));
            }
            _ => {
                // Garbage inside the array: nothing after it can be trusted to align.
                damage.not_json += 1;
                break;
            }
        }
    }
    damage
}

fn skip_ws(text: &str, pos: usize) -> usize {
    let rest = &text[pos..];
    pos + (rest.len() - rest.trim_start().len())
}

/// Turns byte offsets into line numbers without rescanning from the start each time.
struct LineCursor {
    pos: usize,
    line: usize,
}

impl LineCursor {
    fn advance(&mut self, text: &str, pos: usize) -> usize {
        self.line += memchr::memchr_iter(b'\n', &text.as_bytes()[self.pos..pos]).count();
        self.pos = pos;
        self.line
    }
}

fn bytecount_lines(bytes: &[u8]) -> usize {
    let n = memchr::memchr_iter(b'\n', bytes).count();
    if bytes.last().is_some_and(|&b| b != b'\n') {
        n + 1
    } else {
        n
    }
}
