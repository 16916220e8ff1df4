//! No command prints a secret unless `--no-redact`: `scan`, `explain`, `du`, `settings`
//! and `fix` pass every text they show through the secret rules, human and JSON alike
//! (home folders and user names stay: on the user's own terminal they are the point).
//!
//! Two layers: each report's fields are redacted before rendering
//! (`scan::redact_report`, `explain::redact_report`, `du::redact`), so a cut to one line
//! never leaves half a secret the rules can no longer see; then the rendered text or
//! JSON document is redacted once more as a whole ([`text`], [`json_value`]), so no
//! field a renderer adds later escapes the redactor. These helpers know no report type.

use std::path::PathBuf;

use serde_json::Value;

use super::Redactor;
use crate::text::json_str::push_string;
use crate::warning::Warning;

/// Redacts a path in place (as text; a path that changes becomes the redacted text).
pub fn path(r: &Redactor, p: &mut PathBuf) {
    let s = p.to_string_lossy();
    if let Some(red) = r.redacted(&s).filter(|red| *red != s) {
        *p = PathBuf::from(red);
    }
}

/// [`path`] for a path shared with others: replaced (not changed in place) when the
/// redaction changes it, so the others keep theirs.
pub fn shared_path(r: &Redactor, p: &mut std::sync::Arc<PathBuf>) {
    let s = p.to_string_lossy();
    if let Some(red) = r.redacted(&s).filter(|red| *red != s) {
        *p = std::sync::Arc::new(PathBuf::from(red));
    }
}

/// Redacts a warning's message and path.
pub fn warning(r: &Redactor, w: &mut Warning) {
    r.apply(&mut w.message);
    if let Some(p) = w.path.as_mut() {
        path(r, p);
    }
}

/// The secrets of a rendered text hidden (the last pass over human output).
pub fn text(t: &str) -> String {
    Redactor::redact_own_secrets(t)
}

/// Redacts every string of a JSON document in place, object keys included.
pub fn json_value(r: &Redactor, v: &mut Value) {
    if !r.is_enabled() {
        return;
    }
    match v {
        Value::String(s) => r.apply(s),
        Value::Array(a) => {
            flag_values(r, a);
            a.iter_mut().for_each(|x| json_value(r, x))
        }
        Value::Object(o) => {
            rename_keys(r, o);
            o.values_mut().for_each(|x| json_value(r, x))
        }
        _ => {}
    }
}

/// A command line as JSON writes it (`"args": ["--token", "V"]`): a flag and its value
/// are two strings, each harmless alone. Each neighbouring pair is read as one line, and
/// what the rules hide in it is hidden in the value (before each string is redacted
/// alone).
fn flag_values(r: &Redactor, a: &mut [Value]) {
    for i in 1..a.len() {
        if let (Value::String(k), Value::String(v)) = (&a[i - 1], &a[i])
            && let Some(rest) = flag_value(r, k, v)
        {
            a[i] = Value::String(rest);
        }
    }
}

/// What [`flag_values`] makes of `v` after `k`: `None` when it stays as it is.
pub(super) fn flag_value(r: &Redactor, k: &str, v: &str) -> Option<String> {
    let joined = format!("{k} {v}");
    let red = r.redact(&joined);
    match red.strip_prefix(&format!("{k} ")) {
        Some(rest) if red != joined && rest != v => Some(rest.to_string()),
        _ => None,
    }
}

/// Puts each entry whose key the rules change back under the redacted key, after the
/// others (keys rarely change, so most objects are only looked at). Values are left to
/// the caller.
fn rename_keys(r: &Redactor, o: &mut serde_json::Map<String, Value>) {
    let renamed: Vec<(String, String)> = o
        .keys()
        .filter_map(|k| {
            r.redacted(k)
                .filter(|red| red != k)
                .map(|red| (k.clone(), red))
        })
        .collect();
    for (k, red) in renamed {
        if let Some(val) = o.remove(&k) {
            o.insert(red, val);
        }
    }
}

/// [`json_secrets`] of `v`, written as `serde_json::to_string_pretty` writes the value
/// nested `level` levels deep in a document (two spaces a level): its first line as it
/// is, the others `level` levels further in. The same text as redacting, then
/// serialising and indenting, without the second walk and the serialiser's generic
/// machinery (most of the cost of a `scan --json` row).
pub fn json_secrets_pretty(v: &mut Value, level: usize) -> String {
    let r = Redactor::secrets_only(std::iter::empty());
    // A scan row is a few KiB: room for most at once.
    let mut out = String::with_capacity(4096);
    write_redacted(&r, v, level, &mut out);
    out
}

/// Writes `v` redacted (each string once, as [`json_value`] redacts it) in the pretty
/// form, `level` levels in.
pub(super) fn write_redacted(r: &Redactor, v: &mut Value, level: usize, out: &mut String) {
    use std::fmt::Write as _;
    let indent = |out: &mut String, level: usize| {
        for _ in 0..level {
            out.push_str("  ");
        }
    };
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::String(s) => match r.redacted(s) {
            Some(red) => push_string(out, &red),
            None => push_string(out, s),
        },
        Value::Array(a) if a.is_empty() => out.push_str("[]"),
        Value::Array(a) => {
            flag_values(r, a);
            out.push('[');
            for (i, x) in a.iter_mut().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                indent(out, level + 1);
                write_redacted(r, x, level + 1, out);
            }
            out.push('\n');
            indent(out, level);
            out.push(']');
        }
        Value::Object(o) if o.is_empty() => out.push_str("{}"),
        Value::Object(o) => {
            rename_keys(r, o);
            out.push('{');
            for (i, (k, x)) in o.iter_mut().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                indent(out, level + 1);
                push_string(out, k);
                out.push_str(": ");
                write_redacted(r, x, level + 1, out);
            }
            out.push('\n');
            indent(out, level);
            out.push('}');
        }
    }
}

/// [`json_value`] with the secret rules alone.
pub fn json_secrets(v: &mut Value) {
    json_value(&Redactor::secrets_only(std::iter::empty()), v);
}

#[cfg(test)]
mod tests {
    use super::*;

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
                let mut expected = doc.clone();
                json_secrets(&mut expected);
                let expected = serde_json::to_string_pretty(&expected)
                    .unwrap()
                    .replace('\n', &format!("\n{}", "  ".repeat(level)));
                let mut v = doc.clone();
                assert_eq!(json_secrets_pretty(&mut v, level), expected, "{doc}");
            }
        }
    }
}
