//! A value serialised straight to the text of its redacted `serde_json::Value`
//! ([`super::output::json_secrets`], then `serde_json::to_string_pretty`), without
//! building the `Value` first: the same pretty form, each string through the secret
//! rules once, a flag's value hidden in its neighbour, and an entry whose key the rules
//! change put last as `serde_json::Map` puts it. For the rows
//! of `scan --json`, where making, walking and freeing each row's `Value` was most of
//! the cost of a row. Keys of one object are taken to be unique (as those of a struct
//! or a map are).

use std::borrow::Cow;
use std::fmt::Write as _;

use serde::ser::{self, Error as _, Serialize};
use serde_json::{Error, Value};

use super::Redactor;
use super::output::flag_value;
use crate::text::json_str::push_string;

/// `serde_json::to_value(v)` redacted by [`super::output::json_secrets`] and written by
/// `serde_json::to_string_pretty` as if nested `level` levels deep (two spaces a level):
/// its first line as it is, the others `level` levels further in.
pub fn to_secrets_pretty<T: Serialize + ?Sized>(v: &T, level: usize) -> Result<String, Error> {
    let r = Redactor::secrets_only(std::iter::empty());
    let mut w = Writer {
        r: &r,
        // A scan row is a few KiB: room for most at once.
        out: String::with_capacity(4096),
        level,
        pending: None,
        taken: None,
    };
    v.serialize(&mut w)?;
    Ok(w.out)
}

struct Writer<'r> {
    r: &'r Redactor,
    out: String,
    /// The depth of the value being written.
    level: usize,
    /// Set while the next value written is an array's element: the previous element as
    /// the flag step left it, if it was a string (so this one may be its value).
    pending: Option<Option<String>>,
    /// After an element: the element as the flag step left it, if it was a string.
    taken: Option<String>,
}

impl<'r> Writer<'r> {
    fn indent(&mut self, level: usize) {
        for _ in 0..level {
            self.out.push_str("  ");
        }
    }

    /// A value that is not a string starts: an element it is ends the flag step.
    fn other(&mut self) {
        self.pending = None;
        self.taken = None;
    }

    /// A string value (what `serde_json::Value::String` holds).
    fn string(&mut self, s: &str) {
        match self.pending.take() {
            Some(prev) => {
                let v = prev.and_then(|k| flag_value(self.r, &k, s));
                let v = v.unwrap_or_else(|| s.to_string());
                self.redacted_string(&v);
                self.taken = Some(v);
            }
            None => {
                self.redacted_string(s);
                self.taken = None;
            }
        }
    }

    fn redacted_string(&mut self, s: &str) {
        match self.r.redacted(s) {
            Some(red) => push_string(&mut self.out, &red),
            None => push_string(&mut self.out, s),
        }
    }

    /// A number as serde_json makes it a `Value`: a number, or `null` for a float that
    /// is not finite.
    fn number(&mut self, v: Value) {
        self.other();
        match v {
            Value::Number(n) => {
                let _ = write!(self.out, "{n}");
            }
            _ => self.out.push_str("null"),
        }
    }

    /// A line break and the indent of an element or entry of the value being written,
    /// after a comma unless it is the `first`.
    fn item_start(&mut self, first: bool) {
        self.out.push_str(if first { "\n" } else { ",\n" });
        self.indent(self.level + 1);
    }

    /// Writes `value` one level in (an element, an entry's value).
    fn nested<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.level += 1;
        let done = value.serialize(&mut *self);
        self.level -= 1;
        done
    }

    /// Ends the array or object being written with `bracket`, on a line of its own
    /// when it has items.
    fn close(&mut self, bracket: char, items: bool) {
        if items {
            self.out.push('\n');
            self.indent(self.level);
        }
        self.out.push(bracket);
        self.other();
    }

    fn open(&mut self, bracket: char) {
        self.other();
        self.out.push(bracket);
    }

    fn object(&mut self, variant: bool) -> Object<'_, 'r> {
        self.open('{');
        let start = self.out.len();
        Object {
            w: self,
            start,
            entries: Vec::new(),
            key: None,
            variant,
        }
    }

    fn array(&mut self, variant: bool) -> Array<'_, 'r> {
        self.open('[');
        Array {
            w: self,
            first: true,
            prev: None,
            variant,
        }
    }

    /// `{"variant": ` of an enum's variant with data; [`Self::close_variant`] ends it.
    fn open_variant(&mut self, variant: &'static str) {
        self.open('{');
        self.item_start(true);
        self.key(variant);
        self.level += 1;
    }

    fn close_variant(&mut self) {
        self.level -= 1;
        self.close('}', true);
    }

    /// Writes a key, redacted; the redacted key if the rules changed it.
    fn key(&mut self, k: &str) -> Option<String> {
        let red = self.r.redacted(k).filter(|red| red != k);
        self.key_as_is(red.as_deref().unwrap_or(k));
        red
    }

    /// Writes a key as it is, and the colon after it.
    fn key_as_is(&mut self, k: &str) {
        push_string(&mut self.out, k);
        self.out.push_str(": ");
    }
}

struct Array<'a, 'r> {
    w: &'a mut Writer<'r>,
    first: bool,
    prev: Option<String>,
    /// The array is an enum variant's data (`{"variant": [...]}`).
    variant: bool,
}

impl Array<'_, '_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.w.item_start(self.first);
        self.first = false;
        self.w.pending = Some(self.prev.take());
        self.w.nested(value)?;
        self.prev = self.w.taken.take();
        Ok(())
    }

    fn end(self) -> Result<(), Error> {
        self.w.close(']', !self.first);
        if self.variant {
            self.w.close_variant();
        }
        Ok(())
    }
}

struct Object<'a, 'r> {
    w: &'a mut Writer<'r>,
    /// Where the first entry starts (after the `{`).
    start: usize,
    entries: Vec<Entry>,
    /// The key given by `serialize_key`, waiting for its value.
    key: Option<String>,
    /// The object is an enum variant's data (`{"variant": {...}}`).
    variant: bool,
}

/// An entry written: its key as given, the key written if the rules changed it, and
/// where its value's text is in `out`.
struct Entry {
    key: Cow<'static, str>,
    renamed: Option<String>,
    value: (usize, usize),
}

impl Object<'_, '_> {
    fn entry<T: Serialize + ?Sized>(
        &mut self,
        key: Cow<'static, str>,
        value: &T,
    ) -> Result<(), Error> {
        self.w.item_start(self.entries.is_empty());
        let renamed = match &key {
            // A struct's field name is a word of mcplogs' own documents, never a secret,
            // a home or a user's name (a test in tests/cli/secrets_output.rs holds every
            // field name of every document schema unchanged by the rules), so it is
            // written as it is.
            Cow::Borrowed(field) => {
                self.w.key_as_is(field);
                None
            }
            Cow::Owned(k) => self.w.key(k),
        };
        let from = self.w.out.len();
        self.w.pending = None;
        self.w.nested(value)?;
        self.entries.push(Entry {
            key,
            renamed,
            value: (from, self.w.out.len()),
        });
        Ok(())
    }

    fn end(self) -> Result<(), Error> {
        let w = self.w;
        if self.entries.iter().any(|e| e.renamed.is_some()) {
            // As `serde_json::Map` does it: each entry whose key changes, in turn, is
            // taken out by its key (the last entry takes its place) and put back under
            // the new key, last, or in place of the value of an entry with that key.
            let values: Vec<String> = self
                .entries
                .iter()
                .map(|e| w.out[e.value.0..e.value.1].to_string())
                .collect();
            let mut map: Vec<(&str, usize)> = self
                .entries
                .iter()
                .enumerate()
                .map(|(i, e)| (&*e.key, i))
                .collect();
            for e in &self.entries {
                let Some(new) = e.renamed.as_deref() else {
                    continue;
                };
                let Some(at) = map.iter().position(|(k, _)| *k == e.key) else {
                    continue;
                };
                let (_, v) = map.swap_remove(at);
                match map.iter().position(|(k, _)| *k == new) {
                    Some(same) => map[same].1 = v,
                    None => map.push((new, v)),
                }
            }
            w.out.truncate(self.start);
            for (n, (k, v)) in map.iter().enumerate() {
                w.item_start(n == 0);
                w.key_as_is(k);
                w.out.push_str(&values[*v]);
            }
        }
        w.close('}', !self.entries.is_empty());
        if self.variant {
            w.close_variant();
        }
        Ok(())
    }
}

/// `fn $name(self, v: $type)`: the number as serde_json makes it a `Value` (a number
/// too wide for one is an error there and here; a float that is not finite is `null`).
macro_rules! numbers {
    ($($name:ident: $type:ty),*) => {
        $(fn $name(self, v: $type) -> Result<(), Error> {
            self.number(serde_json::to_value(v)?);
            Ok(())
        })*
    };
}

impl<'a, 'r> ser::Serializer for &'a mut Writer<'r> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Array<'a, 'r>;
    type SerializeTuple = Array<'a, 'r>;
    type SerializeTupleStruct = Array<'a, 'r>;
    type SerializeTupleVariant = Array<'a, 'r>;
    type SerializeMap = Object<'a, 'r>;
    type SerializeStruct = Object<'a, 'r>;
    type SerializeStructVariant = Object<'a, 'r>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.other();
        self.out.push_str(if v { "true" } else { "false" });
        Ok(())
    }

    numbers!(
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_i128: i128,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64,
        serialize_u128: u128,
        serialize_f32: f32,
        serialize_f64: f64
    );

    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.string(v);
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        // An array of numbers, as serde_json makes bytes a `Value`.
        let mut a = self.array(false);
        for b in v {
            a.element(b)?;
        }
        a.end()
    }

    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Error> {
        self.other();
        self.out.push_str("null");
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.string(variant);
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.open_variant(variant);
        value.serialize(&mut *self)?;
        self.close_variant();
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Array<'a, 'r>, Error> {
        Ok(self.array(false))
    }

    fn serialize_tuple(self, _len: usize) -> Result<Array<'a, 'r>, Error> {
        Ok(self.array(false))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Array<'a, 'r>, Error> {
        Ok(self.array(false))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Array<'a, 'r>, Error> {
        self.open_variant(variant);
        Ok(self.array(true))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Object<'a, 'r>, Error> {
        Ok(self.object(false))
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Object<'a, 'r>, Error> {
        Ok(self.object(false))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Object<'a, 'r>, Error> {
        self.open_variant(variant);
        Ok(self.object(true))
    }
}

/// `impl $trait for Array`: each element (`$method`) in turn; the same four ways of
/// writing an array.
macro_rules! array_impl {
    ($($trait:ident: $method:ident),*) => {
        $(impl ser::$trait for Array<'_, '_> {
            type Ok = ();
            type Error = Error;

            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.element(value)
            }

            fn end(self) -> Result<(), Error> {
                Array::end(self)
            }
        })*
    };
}

array_impl!(
    SerializeSeq: serialize_element,
    SerializeTuple: serialize_element,
    SerializeTupleStruct: serialize_field,
    SerializeTupleVariant: serialize_field
);

/// `impl $trait for Object`: each field under its name; a struct and a struct variant.
macro_rules! struct_impl {
    ($($trait:ident),*) => {
        $(impl ser::$trait for Object<'_, '_> {
            type Ok = ();
            type Error = Error;

            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                self.entry(Cow::Borrowed(key), value)
            }

            fn end(self) -> Result<(), Error> {
                Object::end(self)
            }
        })*
    };
}

struct_impl!(SerializeStruct, SerializeStructVariant);

impl ser::SerializeMap for Object<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(key.serialize(KeyText)?);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error::custom("a map value without its key"))?;
        self.entry(Cow::Owned(key), value)
    }

    fn end(self) -> Result<(), Error> {
        Object::end(self)
    }
}

/// `fn $name(self, v: $type) -> Result<String, Error>`: the value's text, as a key.
macro_rules! key_as_text {
    ($($name:ident: $type:ty),*) => {
        $(fn $name(self, v: $type) -> Result<String, Error> {
            Ok(v.to_string())
        })*
    };
}

/// `fn $name(self, _: $type) -> Result<String, Error>`: not a key.
macro_rules! key_refused {
    ($($name:ident: $type:ty),*) => {
        $(fn $name(self, _: $type) -> Result<String, Error> {
            Err(key_error())
        })*
    };
}

/// A map key as the text serde_json makes of it (`serde_json::to_value` accepts the
/// same keys: strings, characters, booleans, integers and what wraps them).
struct KeyText;

impl ser::Serializer for KeyText {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = ser::Impossible<String, Error>;
    type SerializeTuple = ser::Impossible<String, Error>;
    type SerializeTupleStruct = ser::Impossible<String, Error>;
    type SerializeTupleVariant = ser::Impossible<String, Error>;
    type SerializeMap = ser::Impossible<String, Error>;
    type SerializeStruct = ser::Impossible<String, Error>;
    type SerializeStructVariant = ser::Impossible<String, Error>;

    key_as_text!(
        serialize_bool: bool,
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_i128: i128,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64,
        serialize_u128: u128,
        serialize_char: char,
        serialize_str: &str
    );
    key_refused!(serialize_bytes: &[u8]);

    fn serialize_f32(self, v: f32) -> Result<String, Error> {
        float_key(v.is_finite(), v)
    }

    fn serialize_f64(self, v: f64) -> Result<String, Error> {
        float_key(v.is_finite(), v)
    }

    fn serialize_none(self) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_unit(self) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<String, Error> {
        Ok(variant.to_string())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<String, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_error())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_error())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_error())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_error())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_error())
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        Err(key_error())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_error())
    }
}

/// A finite number as a key: its text as serde_json writes the number.
fn float_key(finite: bool, v: impl Serialize) -> Result<String, Error> {
    if !finite {
        return Err(Error::custom("float key must be finite"));
    }
    serde_json::to_string(&v)
}

fn key_error() -> Error {
    Error::custom("key must be a string")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::output::json_secrets;

    /// What the row writer stands for: the value redacted, serialised by serde_json and
    /// indented for its depth.
    fn by_value(v: &Value, level: usize) -> String {
        let mut v = v.clone();
        json_secrets(&mut v);
        serde_json::to_string_pretty(&v)
            .unwrap()
            .replace('\n', &format!("\n{}", "  ".repeat(level)))
    }
    use proptest::prelude::*;

    #[test]
    fn the_pretty_writer_writes_what_redacting_then_serde_writes() {
        let token = "ghp_0123456789abcdef0123456789abcdef0123";
        let docs = [
            serde_json::json!({}),
            serde_json::json!([]),
            serde_json::json!(null),
            serde_json::json!(format!("alone {token}")),
            serde_json::json!({
                "name": "srv \u{202e} é \"q\" \\ \n\t\u{1}",
                "n": [0, -3, 18446744073709551615u64, 1.5, -0.0, 1e300, 2.5e-8],
                "flags": [true, false, null],
                "args": ["--token", "v1-sEcReT-00000001-x9Q2", "--other", "plain"],
                "nested": {"empty": {}, "list": [[], {}, [token, {"k": token}]]},
                token: "a key that is a secret",
                "last": {"password": "hunter2-but-longer", "deep": [[["x"]]]},
            }),
        ];
        for doc in docs {
            for level in [0, 1, 2, 5] {
                assert_eq!(
                    to_secrets_pretty(&doc, level).unwrap(),
                    by_value(&doc, level),
                    "{doc}"
                );
            }
        }
    }

    /// Strings with what the rules and the writer change: secrets (two that redact
    /// alike), a flag and its value, escapes, a marker, plain words.
    const STRINGS: &[&str] = &[
        "",
        "plain",
        "--token",
        "v1-sEcReT-00000001-x9Q2",
        "ghp_0123456789abcdef0123456789abcdef0123",
        "ghp_abcdefabcdef0123456789abcdef01234567",
        "password hunter2-but-longer",
        "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345",
        "é \u{202e} \"q\" \\ \n\t\u{1}",
        "[REDACTED:github-token]",
        "name",
    ];

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            proptest::sample::select(STRINGS).prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec((proptest::sample::select(STRINGS), inner), 0..6)
                    .prop_map(|entries| {
                        Value::Object(
                            entries
                                .into_iter()
                                .map(|(k, v)| (k.to_string(), v))
                                .collect(),
                        )
                    }),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn a_value_is_written_as_redacting_its_value_writes_it(v in value(), level in 0usize..4) {
            let expected = by_value(&v, level);
            proptest::prop_assert_eq!(to_secrets_pretty(&v, level).unwrap(), expected);
        }
    }

    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    enum Kind {
        Plain,
        WithToken(String),
        Pair(String, u8),
        Shaped {
            secret_field: String,
            n: Option<f32>,
        },
    }

    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Row {
        name: String,
        kinds: Vec<Kind>,
        args: Vec<String>,
        missing: Option<String>,
        unit: (),
        chars: Vec<char>,
        wide: i128,
        map: std::collections::BTreeMap<String, Vec<Option<String>>>,
        keyed: std::collections::BTreeMap<u32, bool>,
    }

    /// A key of another kind than a string.
    #[derive(serde::Serialize)]
    #[serde(untagged)]
    enum Key {
        F(f64),
        B(bool),
        C(char),
    }

    /// A map with keys in the order given.
    struct Pairs(Vec<(Key, u8)>);

    impl Serialize for Pairs {
        fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
        }
    }

    #[test]
    fn a_typed_row_is_written_as_its_redacted_value() {
        let token = "ghp_0123456789abcdef0123456789abcdef0123".to_string();
        let row = Row {
            name: format!("srv {token}"),
            kinds: vec![
                Kind::Plain,
                Kind::WithToken(token.clone()),
                Kind::Pair("--token".into(), 7),
                Kind::Shaped {
                    secret_field: token.clone(),
                    n: Some(1.1),
                },
                Kind::Shaped {
                    secret_field: "x".into(),
                    n: None,
                },
            ],
            args: vec!["--api-key".into(), "v1-sEcReT-00000001-x9Q2".into()],
            missing: None,
            unit: (),
            chars: vec!['a', '"', '\u{202e}'],
            wide: i128::from(u64::MAX),
            map: [
                (
                    token.clone(),
                    vec![Some("--token".into()), Some(token.clone())],
                ),
                ("plain".into(), vec![None, Some("plain".into())]),
            ]
            .into_iter()
            .collect(),
            keyed: [(3, true), (1, false)].into_iter().collect(),
        };
        for level in [0, 2] {
            let expected = by_value(&serde_json::to_value(&row).unwrap(), level);
            assert!(!expected.contains(&token), "{expected}");
            assert_eq!(to_secrets_pretty(&row, level).unwrap(), expected);
        }
        // Keys serde_json makes of numbers and booleans.
        let odd_keys = Pairs(vec![
            (Key::F(1.5), 1),
            (Key::F(-2e-9), 2),
            (Key::B(true), 3),
            (Key::C('k'), 4),
        ]);
        assert_eq!(
            to_secrets_pretty(&odd_keys, 1).unwrap(),
            by_value(&serde_json::to_value(&odd_keys).unwrap(), 1)
        );
        let bad = Pairs(vec![(Key::F(f64::NAN), 1)]);
        assert!(serde_json::to_value(&bad).is_err());
        assert!(to_secrets_pretty(&bad, 0).is_err());
        // What serde_json cannot make a value of fails here too.
        assert!(to_secrets_pretty(&i128::MAX, 0).is_err());
        assert!(serde_json::to_value(i128::MAX).is_err());
    }
}
