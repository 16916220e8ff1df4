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

/// [`json_value`] with the secret rules alone.
pub fn json_secrets(v: &mut Value) {
    json_value(&Redactor::secrets_only(std::iter::empty()), v);
}
