//! JSON Lines: the per-server `.jsonl` files of every current Claude Code version.

use std::io::{self, BufRead};
use std::path::PathBuf;
use std::sync::Arc;

use super::lines::{Line, LineReader};
use super::{Damage, MAX_LINE_BYTES, parse_json_lossy, record_from_json};
use crate::logs::record::RecordRef;

pub(super) fn decode<R: BufRead>(
    reader: R,
    file: &Arc<PathBuf>,
    sink: &mut dyn FnMut(RecordRef<'_>),
) -> io::Result<Damage> {
    let mut damage = Damage::default();
    let mut lines = LineReader::new(reader, MAX_LINE_BYTES);
    while let Some(line) = lines.next_line()? {
        damage.lines += 1;
        match line.content {
            Line::TooLong(_) => damage.too_long += 1,
            Line::Text(t) => decode_line(t, line.terminated, line.no, file, &mut damage, sink),
        }
    }
    Ok(damage)
}

/// Decodes one physical line into a record, counting what is wrong with it.
pub(super) fn decode_line(
    raw: &[u8],
    terminated: bool,
    line_no: usize,
    file: &Arc<PathBuf>,
    damage: &mut Damage,
    sink: &mut dyn FnMut(RecordRef<'_>),
) {
    let bytes = raw.trim_ascii();
    if bytes.is_empty() {
        return;
    }
    let parsed = match std::str::from_utf8(bytes) {
        // The common case, read without building a `Value` (see `fields`); anything it
        // cannot read goes the repairing way below.
        Ok(text) => match super::fields::record_from_text(text, file, line_no, sink) {
            Ok(true) => return,
            Ok(false) => {
                damage.not_a_record += 1;
                return;
            }
            Err(_) => parse_json_lossy(text, damage),
        },
        Err(_) => {
            // A bad byte inside a Server stderr line should not cost the record.
            let text = String::from_utf8_lossy(bytes);
            let v = parse_json_lossy(&text, damage);
            if v.is_some() {
                damage.invalid_utf8 += 1;
            }
            v
        }
    };
    match parsed {
        Some(value) => match record_from_json(value, file, line_no) {
            Some(record) => sink(record.as_ref()),
            None => damage.not_a_record += 1,
        },
        None if !terminated => damage.truncated_last = true,
        None => damage.not_json += 1,
    }
}
