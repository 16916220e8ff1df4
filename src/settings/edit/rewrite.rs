//! `--rewrite-strict`: a JSON5 settings file written out again as strict JSON with the key
//! set, keeping each value's literal text (numbers digit for digit, strict strings
//! verbatim, lone surrogates as written), or refused, naming the value it cannot keep
//! (`Infinity`, `NaN`, hex). The minimal splice edits are the parent module's.

use super::{EditError, Style};
use crate::settings::json::{
    self, Dialect, Doc, Kind, Member as JsonMember, Node as JsonNode, NodeId,
};
use crate::settings::strictness::split_bom;
use crate::settings::{LEGACY, NEGOTIATION_KEY};

/// `--rewrite-strict`: the JSON5 `doc` (comments and trailing commas gone) written as
/// strict JSON with the key set, in the original's indentation unit and line endings,
/// keeping (or not) its final newline and BOM. Every value keeps its literal text; a
/// JSON5 number is respelled only where no digit changes (`+1`, `.5`, `5.`), and one
/// with no strict-JSON form (`Infinity`, `NaN`, hex) is refused.
pub fn rewrite_strict(original: &str, doc: &Doc) -> Result<String, EditError> {
    let (bom, body) = split_bom(original);
    let mut doc = doc.clone();
    set_legacy_in_tree(&mut doc)?;
    let style = Style::detect(body);
    let mut text = emit(&doc, &style.unit)?;
    if body.ends_with('\n') || body.trim().is_empty() {
        text.push('\n');
    }
    if style.newline == "\r\n" {
        text = text.replace('\n', "\r\n");
    }
    let new = json::parse(&text, Dialect::Strict).map_err(|_| EditError::Verification)?;
    if tokens(&new, false)? != tokens(&doc, true)? {
        return Err(EditError::Verification);
    }
    Ok(format!("{bom}{text}"))
}

/// Sets the key in the tree: in the last `env` (added at the end when absent), the last
/// key of that name (added at the end when absent).
fn set_legacy_in_tree(doc: &mut Doc) -> Result<(), EditError> {
    let legacy = format!("\"{LEGACY}\"");
    let new_node = |doc: &mut Doc, kind: Kind, text: &str| -> NodeId {
        let start = doc.text.len();
        doc.text.push_str(text);
        doc.nodes.push(JsonNode {
            start,
            end: doc.text.len(),
            kind,
        });
        doc.nodes.len() - 1
    };
    let member = |doc: &mut Doc, key: &str, value: NodeId| -> JsonMember {
        let start = doc.text.len();
        doc.text
            .push_str(&serde_json::to_string(key).expect("string"));
        JsonMember {
            key: key.to_string(),
            key_units: key.encode_utf16().collect(),
            key_start: start,
            key_end: doc.text.len(),
            key_strict: true,
            value,
        }
    };
    let value = new_node(
        doc,
        Kind::String {
            units: LEGACY.encode_utf16().collect(),
            strict: true,
        },
        &legacy,
    );
    let root = doc.root;
    let env = match doc
        .members(root)
        .and_then(|m| m.iter().rposition(|m| m.key == "env"))
    {
        Some(i) => doc.members(root).expect("object")[i].value,
        None => {
            let env = new_node(doc, Kind::Object(Vec::new()), "");
            let m = member(doc, "env", env);
            let Kind::Object(members) = &mut doc.nodes[root].kind else {
                return Err(EditError::NotAnObject);
            };
            members.push(m);
            env
        }
    };
    let key = member(doc, NEGOTIATION_KEY, value);
    let Kind::Object(members) = &mut doc.nodes[env].kind else {
        return Err(EditError::EnvNotAnObject);
    };
    match members.iter().rposition(|m| m.key == NEGOTIATION_KEY) {
        Some(j) => members[j].value = value,
        None => members.push(key),
    }
    Ok(())
}

/// A JSON5 number's strict-JSON spelling with the same digits, if it has one.
fn strict_number(raw: &str) -> Option<String> {
    let (sign, rest) = match raw.as_bytes().first() {
        Some(b'-') => ("-", &raw[1..]),
        Some(b'+') => ("", &raw[1..]),
        _ => ("", raw),
    };
    if rest.starts_with(['I', 'N']) || rest.starts_with("0x") || rest.starts_with("0X") {
        return None;
    }
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let mantissa = mantissa.strip_suffix('.').unwrap_or(mantissa);
    let lead = if mantissa.starts_with('.') { "0" } else { "" };
    Some(format!("{sign}{lead}{mantissa}{exp}"))
}

/// A string as strict JSON: code units kept exactly, a lone surrogate as `\uXXXX`.
fn encode_units(units: &[u16]) -> String {
    let mut out = String::from("\"");
    for r in char::decode_utf16(units.iter().copied()) {
        match r {
            Ok('"') => out.push_str("\\\""),
            Ok('\\') => out.push_str("\\\\"),
            Ok('\n') => out.push_str("\\n"),
            Ok('\r') => out.push_str("\\r"),
            Ok('\t') => out.push_str("\\t"),
            Ok(c) if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            Ok(c) => out.push(c),
            Err(e) => out.push_str(&format!("\\u{:04x}", e.unpaired_surrogate())),
        }
    }
    out.push('"');
    out
}

fn cannot_keep(doc: &Doc, id: NodeId) -> EditError {
    let (line, column) = json::line_column(&doc.text, doc.node(id).start);
    EditError::CannotKeep {
        literal: doc.raw(id).to_string(),
        line,
        column,
    }
}

/// Pretty strict JSON (serde_json's pretty layout, `unit` per level), without recursion.
/// The deepest nesting `--rewrite-strict` lays out (a settings file is a few levels
/// deep; a hostile one nested 100,000 deep would need gigabytes of indentation).
pub const MAX_REWRITE_DEPTH: usize = 1000;

fn emit(doc: &Doc, unit: &str) -> Result<String, EditError> {
    enum Task<'a> {
        Text(String),
        Value(NodeId, usize),
        Key(&'a JsonMember),
    }
    let mut out = String::new();
    let mut tasks = vec![Task::Value(doc.root, 0)];
    while let Some(t) = tasks.pop() {
        match t {
            Task::Text(s) => out.push_str(&s),
            Task::Key(m) => {
                if m.key_strict {
                    out.push_str(&doc.text[m.key_start..m.key_end]);
                } else {
                    out.push_str(&encode_units(&m.key_units));
                }
                out.push_str(": ");
            }
            Task::Value(_, depth) if depth > MAX_REWRITE_DEPTH => {
                return Err(EditError::TooDeep);
            }
            Task::Value(id, depth) => match &doc.node(id).kind {
                Kind::Object(members) if members.is_empty() => out.push_str("{}"),
                Kind::Array(items) if items.is_empty() => out.push_str("[]"),
                Kind::Object(members) => {
                    out.push_str("{\n");
                    let inner = unit.repeat(depth + 1);
                    tasks.push(Task::Text(format!("\n{}}}", unit.repeat(depth))));
                    for (k, m) in members.iter().enumerate().rev() {
                        if k + 1 < members.len() {
                            tasks.push(Task::Text(",\n".into()));
                        }
                        tasks.push(Task::Value(m.value, depth + 1));
                        tasks.push(Task::Key(m));
                        tasks.push(Task::Text(inner.clone()));
                    }
                }
                Kind::Array(items) => {
                    out.push_str("[\n");
                    let inner = unit.repeat(depth + 1);
                    tasks.push(Task::Text(format!("\n{}]", unit.repeat(depth))));
                    for (k, item) in items.iter().enumerate().rev() {
                        if k + 1 < items.len() {
                            tasks.push(Task::Text(",\n".into()));
                        }
                        tasks.push(Task::Value(*item, depth + 1));
                        tasks.push(Task::Text(inner.clone()));
                    }
                }
                Kind::String { strict: true, .. } | Kind::Literal => out.push_str(doc.raw(id)),
                Kind::String { units, .. } => out.push_str(&encode_units(units)),
                Kind::Number => {
                    out.push_str(&strict_number(doc.raw(id)).ok_or_else(|| cannot_keep(doc, id))?)
                }
            },
        }
    }
    Ok(out)
}

/// The document as a flat list of values (strings as code units, numbers as their
/// strict-JSON text), for comparing a rewrite with what it rewrote.
#[derive(Debug, PartialEq, Eq)]
enum Tok<'a> {
    Open(u8),
    Close(u8),
    Key(&'a [u16]),
    Str(&'a [u16]),
    Num(String),
    Lit(&'a str),
}

fn tokens(doc: &Doc, json5_numbers: bool) -> Result<Vec<Tok<'_>>, EditError> {
    enum Task {
        Value(NodeId),
        Key(NodeId, usize),
        Close(u8),
    }
    let mut out = Vec::new();
    let mut tasks = vec![Task::Value(doc.root)];
    while let Some(t) = tasks.pop() {
        match t {
            Task::Close(c) => out.push(Tok::Close(c)),
            Task::Key(obj, k) => {
                out.push(Tok::Key(&doc.members(obj).expect("object")[k].key_units))
            }
            Task::Value(id) => match &doc.node(id).kind {
                Kind::Object(members) => {
                    out.push(Tok::Open(b'{'));
                    tasks.push(Task::Close(b'}'));
                    for (k, m) in members.iter().enumerate().rev() {
                        tasks.push(Task::Value(m.value));
                        tasks.push(Task::Key(id, k));
                    }
                }
                Kind::Array(items) => {
                    out.push(Tok::Open(b'['));
                    tasks.push(Task::Close(b']'));
                    tasks.extend(items.iter().rev().map(|i| Task::Value(*i)));
                }
                Kind::String { units, .. } => out.push(Tok::Str(units)),
                Kind::Literal => out.push(Tok::Lit(doc.raw(id))),
                Kind::Number if json5_numbers => out.push(Tok::Num(
                    strict_number(doc.raw(id)).ok_or_else(|| cannot_keep(doc, id))?,
                )),
                Kind::Number => out.push(Tok::Num(doc.raw(id).to_string())),
            },
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrite_strict_keeps_unit_newlines_and_order() {
        let original = "{\r\n    // c\r\n    \"b\": 1,\r\n    \"a\": [1, 2,],\r\n}\r\n";
        let crate::settings::strictness::Strictness::NonStrict { doc, .. } =
            crate::settings::strictness::check(original)
        else {
            panic!()
        };
        assert_eq!(
            rewrite_strict(original, &doc).unwrap(),
            "{\r\n    \"b\": 1,\r\n    \"a\": [\r\n        1,\r\n        2\r\n    ],\r\n    \"env\": {\r\n        \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\r\n    }\r\n}\r\n"
        );
    }

    #[test]
    fn a_rewrite_refuses_nesting_deeper_than_it_lays_out() {
        for (depth, ok) in [(MAX_REWRITE_DEPTH - 1, true), (98_400, false)] {
            let text = format!(
                "{{\"x\": {}NaN{}, // c\n}}",
                "[".repeat(depth),
                "]".repeat(depth)
            );
            let crate::settings::strictness::Strictness::NonStrict { doc, .. } =
                crate::settings::strictness::check(&text)
            else {
                panic!("JSON5 expected");
            };
            match rewrite_strict(&text, &doc) {
                Err(EditError::CannotKeep { .. }) => assert!(ok, "{depth}"),
                Err(EditError::TooDeep) => assert!(!ok, "{depth}"),
                other => panic!("{depth}: {other:?}"),
            }
        }
    }
}
