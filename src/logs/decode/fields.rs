//! A record's fields read straight from a line's JSON text, without building a
//! `serde_json::Value` (an ordered map of every key, each string copied) only to take
//! four strings out of it and drop the rest. On a tree of 100,000 server folders that
//! tree was a fifth of a scan's CPU time.
//!
//! It reads the same records as [`record_from_json`](super::record_from_json) on a parsed
//! value, to the byte: every value is still parsed with `deserialize_any`, as a `Value`
//! is (so numbers out of range, bad escapes and the nesting limit fail the same way); a
//! key given twice keeps its last value, as the map does; the level keys are tried in
//! [`LEVEL_KEYS`](super::LEVEL_KEYS) order; only string values count. A line it cannot
//! read is handed to the repairing path by the caller, which parses it as before.

use std::borrow::Cow;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::LEVEL_KEYS;
use crate::logs::record::{Level, RecordRef};

/// Hands the record in `text` to `sink`, borrowed from `text` where it has no escapes:
/// `Ok(false)` for JSON that is not a record, `Err` for text that is not JSON as
/// `serde_json` reads it (the caller then tries its repair).
pub(super) fn record_from_text(
    text: &str,
    file: &Arc<PathBuf>,
    line: usize,
    sink: &mut dyn FnMut(RecordRef<'_>),
) -> Result<bool, serde_json::Error> {
    // Read in place (a `Fields` is a few hundred bytes: returned and moved, it was copied
    // twice a line).
    let mut flat = Fields::default();
    let parsed;
    let fields = if read_flat(text, &mut flat) {
        &flat
    } else {
        match serde_json::from_str(text)? {
            Top(Some(f)) => {
                parsed = f;
                &parsed
            }
            Top(None) => return Ok(false),
        }
    };
    match fields.record(file, line) {
        Some(r) => {
            sink(r);
            Ok(true)
        }
        None => Ok(false),
    }
}

/// [`read_flat`] into new fields.
#[cfg(test)]
fn flat_fields(text: &str) -> Option<Fields<'_>> {
    let mut fields = Fields::default();
    read_flat(text, &mut fields).then_some(fields)
}

/// Reads into `fields` a line that is one flat object of strings under plain keys (what
/// Claude Code writes), without `serde`; `false` for any other line, which `serde`
/// then reads (and tells whether it is JSON at all). What it reads, it reads as `serde`
/// does: JSON whitespace between tokens, the last value of a key given twice, escapes
/// decoded; a key with an escape, a value that is not a string, a surrogate escape, a
/// control character, an unknown escape or anything after the object is left to
/// `serde`. Most of a scan's decoding time was `serde`'s generic visiting of these
/// few strings.
fn read_flat<'a>(text: &'a str, fields: &mut Fields<'a>) -> bool {
    let b = text.as_bytes();
    let ws = |i: &mut usize| {
        while b
            .get(*i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            *i += 1;
        }
    };
    let mut i = 0;
    ws(&mut i);
    if b.get(i) != Some(&b'{') {
        return false;
    }
    i += 1;
    ws(&mut i);
    if b.get(i) == Some(&b'}') {
        i += 1;
        ws(&mut i);
        return i == b.len();
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return false;
        }
        let Some((key, next)) = string_at(text, i + 1) else {
            return false;
        };
        let Cow::Borrowed(key) = key else {
            return false;
        };
        i = next;
        ws(&mut i);
        if b.get(i) != Some(&b':') {
            return false;
        }
        i += 1;
        ws(&mut i);
        if b.get(i) != Some(&b'"') {
            return false;
        }
        let Some((value, next)) = string_at(text, i + 1) else {
            return false;
        };
        i = next;
        if let Some(slot) = fields.slot(key_kind(key)) {
            *slot = Some(Value::Str(value));
        }
        ws(&mut i);
        match b.get(i) {
            Some(b',') => {
                i += 1;
                ws(&mut i);
            }
            Some(b'}') => {
                i += 1;
                ws(&mut i);
                return i == b.len();
            }
            _ => return false,
        }
    }
}

/// The JSON string whose text starts at `start` (after its opening quote), decoded, and
/// where it ends (after its closing quote); `None` for a string [`read_flat`] leaves
/// to `serde`.
fn string_at(text: &str, start: usize) -> Option<(Cow<'_, str>, usize)> {
    let b = text.as_bytes();
    let mut owned: Option<String> = None;
    // The start of the text not yet copied into `owned` (quotes, backslashes and
    // control characters are ASCII: every index here is at a character boundary).
    let mut run = start;
    let mut i = start;
    loop {
        i += crate::text::json_str::plain_len(&b[i..]);
        match *b.get(i)? {
            b'"' => {
                let s = match owned {
                    None => Cow::Borrowed(&text[start..i]),
                    Some(mut o) => {
                        o.push_str(&text[run..i]);
                        Cow::Owned(o)
                    }
                };
                return Some((s, i + 1));
            }
            b'\\' => {
                let letter = *b.get(i + 1)?;
                let (c, len) = match crate::text::json_str::short_escape(letter) {
                    Some(c) => (c, 2),
                    None if letter == b'u' => {
                        let hex = std::str::from_utf8(b.get(i + 2..i + 6)?).ok()?;
                        if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                            return None;
                        }
                        // A surrogate (a pair, or one alone) is left to `serde`.
                        (char::from_u32(u32::from_str_radix(hex, 16).ok()?)?, 6)
                    }
                    None => return None,
                };
                let o = owned.get_or_insert_with(|| String::with_capacity(text.len() - start));
                o.push_str(&text[run..i]);
                o.push(c);
                i += len;
                run = i;
            }
            // A control character, which JSON does not allow in a string.
            _ => return None,
        }
    }
}

/// A key's last value: a string, or anything else (which never counts).
enum Value<'a> {
    Str(Cow<'a, str>),
    Other,
}

#[derive(Default)]
struct Fields<'a> {
    /// Indexed as [`LEVEL_KEYS`].
    levels: [Option<Value<'a>>; LEVEL_KEYS.len()],
    timestamp: Option<Value<'a>>,
    session_id: Option<Value<'a>>,
    cwd: Option<Value<'a>>,
}

impl<'a> Fields<'a> {
    /// Where the value of a key of this kind goes (`None`: nowhere, it is not read).
    fn slot(&mut self, key: KeyKind) -> Option<&mut Option<Value<'a>>> {
        match key {
            KeyKind::Level(i) => Some(&mut self.levels[i]),
            KeyKind::Timestamp => Some(&mut self.timestamp),
            KeyKind::SessionId => Some(&mut self.session_id),
            KeyKind::Cwd => Some(&mut self.cwd),
            KeyKind::Other => None,
        }
    }

    /// The record these fields make, borrowed from them; `None` without a message.
    fn record<'f>(&'f self, file: &'f Arc<PathBuf>, line: usize) -> Option<RecordRef<'f>> {
        fn string<'f>(v: &'f Option<Value<'_>>) -> Option<&'f str> {
            match v {
                Some(Value::Str(s)) => Some(s),
                _ => None,
            }
        }
        let (key, message) = LEVEL_KEYS
            .iter()
            .zip(&self.levels)
            .find_map(|(k, v)| string(v).map(|m| (*k, m)))?;
        Some(RecordRef {
            message,
            level: Level::parse(key).unwrap_or(Level::Debug),
            timestamp: string(&self.timestamp),
            session_id: string(&self.session_id),
            cwd: string(&self.cwd),
            server: None,
            file,
            line,
        })
    }
}

/// The whole line: an object's fields, or `None` for any other JSON value.
struct Top<'a>(Option<Fields<'a>>);

impl<'de> Deserialize<'de> for Top<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Top<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top<'de>, A::Error> {
                let mut fields = Fields::default();
                while let Some(Key(key)) = map.next_key()? {
                    match fields.slot(key) {
                        Some(slot) => *slot = Some(map.next_value()?),
                        None => {
                            map.next_value::<Skip>()?;
                        }
                    }
                }
                Ok(Top(Some(fields)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Top<'de>, A::Error> {
                skip_seq(seq)?;
                Ok(Top(None))
            }
            scalars!(Top(None));
        }
        d.deserialize_any(V)
    }
}

/// The visits of scalars, each answering `$v` (strings are read and dropped).
macro_rules! scalars {
    ($v:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($v)
        }
    };
}
use scalars;

enum KeyKind {
    Level(usize),
    Timestamp,
    SessionId,
    Cwd,
    Other,
}

/// What a key of a record's object is.
fn key_kind(k: &str) -> KeyKind {
    match k {
        "timestamp" => KeyKind::Timestamp,
        "sessionId" => KeyKind::SessionId,
        "cwd" => KeyKind::Cwd,
        _ => LEVEL_KEYS
            .iter()
            .position(|l| *l == k)
            .map_or(KeyKind::Other, KeyKind::Level),
    }
}

struct Key(KeyKind);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, k: &str) -> Result<Key, E> {
                Ok(Key(key_kind(k)))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Value<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Value<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Value<'de>, E> {
                Ok(Value::Str(Cow::Borrowed(s)))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Value<'de>, E> {
                Ok(Value::Str(Cow::Owned(s)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Value<'de>, A::Error> {
                skip_map(map)?;
                Ok(Value::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Value<'de>, A::Error> {
                skip_seq(seq)?;
                Ok(Value::Other)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Value<'de>, E> {
                Ok(Value::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Value<'de>, E> {
                Ok(Value::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Value<'de>, E> {
                Ok(Value::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Value<'de>, E> {
                Ok(Value::Other)
            }
            // A string with escapes, decoded into a scratch buffer.
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Value<'de>, E> {
                Ok(Value::Str(Cow::Owned(s.to_string())))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Value<'de>, E> {
                Ok(Value::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// Any value, parsed (so it is checked as a `Value` would be) and dropped.
struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Skip;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Skip, A::Error> {
                skip_map(map)?;
                Ok(Skip)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Skip, A::Error> {
                skip_seq(seq)?;
                Ok(Skip)
            }
            scalars!(Skip);
        }
        d.deserialize_any(V)
    }
}

fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<Skip, Skip>()?.is_some() {}
    Ok(())
}

fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<Skip>()?.is_some() {}
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::record::Record;
    use proptest::prelude::*;

    fn by_value(text: &str) -> Result<Option<Record>, ()> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|_| ())?;
        Ok(super::super::record_from_json(
            v,
            &Arc::new(PathBuf::from("f")),
            7,
        ))
    }

    fn by_text(text: &str) -> Result<Option<Record>, ()> {
        let mut out = None;
        record_from_text(text, &Arc::new(PathBuf::from("f")), 7, &mut |r| {
            out = Some(r.to_record())
        })
        .map_err(|_| ())?;
        Ok(out)
    }

    #[test]
    fn reads_what_the_value_path_reads() {
        let deep_ok = format!("{}1{}", "[".repeat(100), "]".repeat(100));
        let too_deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        let cases = [
            r#"{"debug":"hello","timestamp":"2026-11-29T12:00:00.000Z","sessionId":"s","cwd":"/w"}"#.to_string(),
            r#"{"error":"e","debug":"d"}"#.to_string(),
            r#"{"debug":"d","error":"e"}"#.to_string(),
            r#"{"info":"i","warning":"w"}"#.to_string(),
            r#"{"verbose":"v"}"#.to_string(),
            r#"{"error":1,"debug":"d"}"#.to_string(),
            r#"{"error":"first","error":2}"#.to_string(),
            r#"{"error":2,"error":"last"}"#.to_string(),
            r#"{"debug":"a","timestamp":"t1","timestamp":"t2"}"#.to_string(),
            r#"{"debug":"a","timestamp":5}"#.to_string(),
            r#"{"\u0064ebug":"esc\"aped \u00e9 \ud83d\ude00"}"#.to_string(),
            r#"{"debug":"x","other":{"a":[1,2,{"b":null}],"c":true}}"#.to_string(),
            r#"{"debug":"x","n":1e999}"#.to_string(),
            r#"{"debug":"x","n":-0.5e-3}"#.to_string(),
            r#"{"debug":"\ud83d"}"#.to_string(),
            r#"{"debug":"\x41"}"#.to_string(),
            r#"{"nothing":"here"}"#.to_string(),
            r#"["debug","x"]"#.to_string(),
            r#""debug""#.to_string(),
            "42".to_string(),
            "null".to_string(),
            r#"{"debug":"x"} trailing"#.to_string(),
            r#"{"debug":"x""#.to_string(),
            r#"{"debug":"x",}"#.to_string(),
            format!(r#"{{"debug":"x","deep":{deep_ok}}}"#),
            format!(r#"{{"debug":"x","deep":{too_deep}}}"#),
            format!(r#"{{"debug":{too_deep}}}"#),
            "{}".to_string(),
        ];
        for c in &cases {
            assert_eq!(by_text(c), by_value(c), "{c}");
        }
    }

    #[test]
    fn a_line_that_is_not_json_is_an_error_for_the_repairing_path() {
        assert!(by_text("not json").is_err());
        assert!(by_text(r#"{"debug":"\ud83d"}"#).is_err());
    }

    fn owned(f: &Fields<'_>) -> Option<Record> {
        f.record(&Arc::new(PathBuf::from("f")), 7)
            .map(|r| r.to_record())
    }

    /// The serde way, for comparing.
    fn by_serde(text: &str) -> Result<Option<Record>, ()> {
        let Top(fields) = serde_json::from_str(text).map_err(|_| ())?;
        Ok(fields.and_then(|f| owned(&f)))
    }

    #[test]
    fn claude_codes_lines_take_the_flat_way() {
        let lines = [
            r#"{"debug":"Starting connection with timeout of 30000ms","timestamp":"2026-11-29T12:43:57.181Z","sessionId":"ecb5338d-ccf6-4d7f-af58-a78eb3cd9cd1","cwd":"/tmp/p"}"#,
            r#"{"error":"Server stderr: starting (stdio)\nready \u00e9\t\"q\" \\ \/","timestamp":"t","sessionId":"s","cwd":"C:\\w"}"#,
            r#"{ "debug" : "x" , "other" : "y" }"#,
            "{}",
        ];
        for l in lines {
            let flat = flat_fields(l).map(|f| owned(&f));
            assert!(flat.is_some(), "{l}");
            assert_eq!(Ok(flat.unwrap()), by_serde(l), "{l}");
        }
        let r = by_text(lines[1]).unwrap().unwrap();
        assert_eq!(
            r.message,
            "Server stderr: starting (stdio)\nready é\t\"q\" \\ /"
        );
        assert_eq!(r.cwd.as_deref(), Some(r"C:\w"));
        // Left to serde: a key with an escape, a value that is not a string, a
        // surrogate, a control character, an unknown escape, trailing text, a
        // trailing comma.
        for l in [
            r#"{"\u0064ebug":"x"}"#,
            r#"{"debug":"x","n":1}"#,
            r#"{"debug":"\ud83d\ude00"}"#,
            "{\"debug\":\"a\u{1}b\"}",
            r#"{"debug":"\x41"}"#,
            r#"{"debug":"x"} y"#,
            r#"{"debug":"x",}"#,
            r#"{"debug":"x""#,
            r#"["debug"]"#,
        ] {
            assert!(flat_fields(l).is_none(), "{l}");
        }
    }

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            8 => "[a-z /:.é😀-]{0,12}",
            2 => Just(r#"\""#.to_string()),
            2 => Just(r"\\".to_string()),
            2 => Just(r"\/".to_string()),
            2 => Just(r"\n\t\r\b\f".to_string()),
            2 => Just(r"\u00e9\u0041\u001B\u0000".to_string()),
            1 => Just(r"\uD83D\uDE00".to_string()),
            1 => Just(r"\uDE00".to_string()),
            1 => Just(r"\u12".to_string()),
            1 => Just(r"\x".to_string()),
            1 => Just("\u{1}".to_string()),
            1 => Just("\u{7f}".to_string()),
            1 => Just("\"".to_string()),
            1 => Just("\\".to_string()),
        ]
    }

    fn json_value() -> impl Strategy<Value = String> {
        prop_oneof![
            12 => proptest::collection::vec(piece(), 0..6).prop_map(|p| format!("\"{}\"", p.concat())),
            1 => Just("1".to_string()),
            1 => Just("null".to_string()),
            1 => Just("{\"a\":[1]}".to_string()),
        ]
    }

    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("\"debug\"".to_string()),
            Just("\"error\"".to_string()),
            Just("\"warning\"".to_string()),
            Just("\"timestamp\"".to_string()),
            Just("\"sessionId\"".to_string()),
            Just("\"cwd\"".to_string()),
            Just("\"other\"".to_string()),
            Just(r#""\u0064ebug""#.to_string()),
            Just("\"de\\\"bug\"".to_string()),
        ]
    }

    fn ws() -> impl Strategy<Value = String> {
        prop_oneof![
            12 => Just(String::new()),
            2 => Just(" ".to_string()),
            2 => Just("\t\r\n ".to_string()),
            1 => Just("\u{c}".to_string()),
        ]
    }

    proptest::proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]
        #[test]
        fn the_flat_way_reads_what_serde_reads(
            entries in proptest::collection::vec((ws(), key(), ws(), ws(), json_value(), ws()), 0..5),
            tail in prop_oneof![6 => Just(""), 1 => Just(","), 1 => Just(" x"), 1 => Just("}"), 1 => Just("  ")],
        ) {
            let body: Vec<String> = entries
                .iter()
                .map(|(a, k, b, c, v, d)| format!("{a}{k}{b}:{c}{v}{d}"))
                .collect();
            let text = format!("{{{}}}{tail}", body.join(","));
            if let Some(f) = flat_fields(&text) {
                let flat = owned(&f);
                proptest::prop_assert_eq!(Ok(flat), by_serde(&text), "{}", text);
            }
        }
    }
}
