//! Minimal text edits to a strict-JSON settings file: set `env.MCP_PROTOCOL_NEGOTIATION`,
//! or put back what it was. Only the bytes that must change are touched, so indentation,
//! line endings, key order, other values and the final newline stay as the user had them.
//! Every result is parsed again and checked before it is returned: every other member
//! must hold exactly the text it held before. An edit that would change anything else is
//! an error, never a write.
//!
//! `--rewrite-strict`, which writes a whole JSON5 file out again as strict JSON, is the
//! other way and lives in `rewrite.rs`.

use super::json::{self, Dialect, Doc, Member as JsonMember, NodeId};
use super::strictness::split_bom;
use super::{LEGACY, NEGOTIATION_KEY};

pub mod path;
mod rewrite;
pub use rewrite::{MAX_REWRITE_DEPTH, rewrite_strict};

/// A fresh settings file the way Claude Code writes one: `JSON.stringify(obj, null, 2)`
/// plus a newline.
pub fn fresh_file() -> String {
    format!("{{\n  \"env\": {{\n    \"{NEGOTIATION_KEY}\": \"{LEGACY}\"\n  }}\n}}\n")
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The text is not strict JSON holding an object (callers check this first).
    #[error("the file is not a JSON object")]
    NotAnObject,
    /// `env` exists but is not an object: there is no safe minimal edit.
    #[error(
        "\"env\" is not an object, so mcplogs cannot add a variable to it without guessing; fix it by hand"
    )]
    EnvNotAnObject,
    /// A member `mcplogs setup` adds to is not of the shape Claude Code documents.
    #[error(
        "\"{0}\" is not of the shape Claude Code expects (an object, or a list of hooks), so mcplogs cannot add to it without guessing; fix it by hand"
    )]
    NotAnObjectAt(&'static str),
    /// A key path of the fix engine goes through a value that is not an object.
    #[error(
        "\"{0}\" is not an object, so mcplogs cannot set a key inside it without guessing; fix it by hand"
    )]
    NotAnObjectAtPath(String),
    /// A JSON5 value with no strict-JSON spelling that keeps it.
    #[error(
        "the value {literal} at line {line}, column {column} has no strict-JSON form that keeps it, so mcplogs will not rewrite the file: change that value by hand"
    )]
    CannotKeep {
        literal: String,
        line: usize,
        column: usize,
    },
    /// Nested deeper than a rewrite lays out: each level is indented one step further,
    /// so the text would grow with the square of the depth.
    #[error(
        "the file nests values more than {MAX_REWRITE_DEPTH} levels deep, so mcplogs will not rewrite it: its indentation alone could take gigabytes"
    )]
    TooDeep,
    /// Internal check failed: the edit would have changed something else.
    #[error("mcplogs could not make this edit without changing anything else (please report this)")]
    Verification,
}

/// A view of one object for splicing: byte offsets of its braces and members.
struct ObjectSpan {
    /// Byte offset of `{`.
    open: usize,
    /// Byte offset of `}`.
    close: usize,
    members: Vec<Member>,
}

struct Member {
    key: String,
    key_start: usize,
    key_end: usize,
    value_start: usize,
    value_end: usize,
    value: NodeId,
}

impl ObjectSpan {
    fn of(doc: &Doc, id: NodeId) -> Option<ObjectSpan> {
        let n = doc.node(id);
        let members = doc.members(id)?;
        Some(ObjectSpan {
            open: n.start,
            close: n.end - 1,
            members: members
                .iter()
                .map(|m| Member {
                    key: m.key.clone(),
                    key_start: m.key_start,
                    key_end: m.key_end,
                    value_start: doc.node(m.value).start,
                    value_end: doc.node(m.value).end,
                    value: m.value,
                })
                .collect(),
        })
    }

    /// JSON.parse keeps the last of duplicate keys, so edits go to the last.
    fn last_index(&self, key: &str) -> Option<usize> {
        self.members.iter().rposition(|m| m.key == key)
    }
}

fn parse_strict(body: &str) -> Result<Doc, EditError> {
    if body.trim_matches([' ', '\t', '\n', '\r']).is_empty() {
        return Ok(Doc::empty_object());
    }
    match json::parse(body, Dialect::Strict) {
        Ok(d) if d.is_object() => Ok(d),
        _ => Err(EditError::NotAnObject),
    }
}

/// Sets `env.MCP_PROTOCOL_NEGOTIATION` to `"legacy"` in strict-JSON `text`.
/// An empty file becomes [`fresh_file`] (its BOM kept).
pub fn set_legacy(text: &str) -> Result<String, EditError> {
    let (bom, body) = split_bom(text);
    if body.trim_matches([' ', '\t', '\n', '\r']).is_empty() {
        return Ok(format!("{bom}{}", fresh_file()));
    }
    let doc = parse_strict(body)?;
    let root = ObjectSpan::of(&doc, doc.root).ok_or(EditError::NotAnObject)?;
    let style = Style::detect(body);
    let legacy = format!("\"{LEGACY}\"");
    // New keys go first (see `insert_member`), and the check below holds us to it.
    let edited = match root.last_index("env") {
        Some(i) => {
            let env_obj =
                ObjectSpan::of(&doc, root.members[i].value).ok_or(EditError::EnvNotAnObject)?;
            match env_obj.last_index(NEGOTIATION_KEY) {
                Some(j) => {
                    let m = &env_obj.members[j];
                    splice(body, m.value_start, m.value_end, &legacy)
                }
                None => insert_member(body, &env_obj, NEGOTIATION_KEY, &|_| legacy.clone(), &style),
            }
        }
        None => {
            let env_value = |line_indent: &str| -> String {
                match line_indent_mode(line_indent) {
                    // Inline object: stay on one line.
                    None => format!("{{\"{NEGOTIATION_KEY}\": {legacy}}}"),
                    Some(indent) => format!(
                        "{{{nl}{indent}{unit}\"{NEGOTIATION_KEY}\": {legacy}{nl}{indent}}}",
                        nl = style.newline,
                        unit = style.unit,
                    ),
                }
            };
            insert_member(body, &root, "env", &env_value, &style)
        }
    };
    let new = parse_strict(&edited).map_err(|_| EditError::Verification)?;
    let is_legacy = |d: &Doc, m: &JsonMember| m.key == NEGOTIATION_KEY && d.raw(m.value) == legacy;
    let ok = (|| {
        let (old_root, new_root) = (doc.members(doc.root)?, new.members(new.root)?);
        match root.last_index("env") {
            None => {
                let env = new_root.first()?;
                let env_members = new.members(env.value)?;
                Some(
                    env.key == "env"
                        && env_members.len() == 1
                        && is_legacy(&new, &env_members[0])
                        && same_all(&doc, old_root, &new, &new_root[1..]),
                )
            }
            Some(i) => {
                let (oe, ne) = (
                    doc.members(old_root[i].value)?,
                    new.members(new_root.get(i)?.value)?,
                );
                let env_ok = match oe.iter().rposition(|m| m.key == NEGOTIATION_KEY) {
                    Some(j) => same_except(&doc, oe, &new, ne, j) && is_legacy(&new, ne.get(j)?),
                    None => is_legacy(&new, ne.first()?) && same_all(&doc, oe, &new, &ne[1..]),
                };
                Some(env_ok && same_except(&doc, old_root, &new, new_root, i))
            }
        }
    })();
    check(ok, bom, edited)
}

/// Undo for one key: puts `env.MCP_PROTOCOL_NEGOTIATION` back to `previous`, the literal
/// JSON text it had (absent when `None`). When the key was absent and `env` did not
/// exist before the fix, an `env` left empty is removed too.
pub fn restore_key(
    text: &str,
    previous: Option<&str>,
    env_existed: bool,
) -> Result<String, EditError> {
    let (bom, body) = split_bom(text);
    let doc = parse_strict(body)?;
    let root = ObjectSpan::of(&doc, doc.root).ok_or(EditError::NotAnObject)?;
    let Some(i) = root.last_index("env") else {
        // Nothing of ours is left to put back.
        return Ok(text.to_string());
    };
    let env_obj = ObjectSpan::of(&doc, root.members[i].value).ok_or(EditError::EnvNotAnObject)?;
    let Some(j) = env_obj.last_index(NEGOTIATION_KEY) else {
        return Ok(text.to_string());
    };
    let drop_env = previous.is_none() && !env_existed && env_obj.members.len() == 1;
    let edited = match previous {
        Some(v) => {
            let m = &env_obj.members[j];
            splice(body, m.value_start, m.value_end, v)
        }
        None if drop_env => remove_member(body, &root, i),
        None => remove_member(body, &env_obj, j),
    };
    let new = parse_strict(&edited).map_err(|_| EditError::Verification)?;
    let ok = (|| {
        let (old_root, new_root) = (doc.members(doc.root)?, new.members(new.root)?);
        if drop_env {
            let mut kept: Vec<JsonMember> = old_root.to_vec();
            kept.remove(i);
            return Some(same_all(&doc, &kept, &new, new_root));
        }
        let (oe, ne) = (
            doc.members(old_root[i].value)?,
            new.members(new_root.get(i)?.value)?,
        );
        let env_ok = match previous {
            Some(v) => {
                same_except(&doc, oe, &new, ne, j)
                    && ne.get(j)?.key == NEGOTIATION_KEY
                    && new.raw(ne[j].value) == v
            }
            None => {
                let mut kept: Vec<JsonMember> = oe.to_vec();
                kept.remove(j);
                same_all(&doc, &kept, &new, ne)
            }
        };
        Some(env_ok && same_except(&doc, old_root, &new, new_root, i))
    })();
    check(ok, bom, edited)
}

/// Sets the top-level member `key` to `value` (written in the file's indentation unit
/// and line endings): its value replaced where it exists (the last of duplicates), else
/// added first. Every other member keeps its exact text; checked like [`set_legacy`].
/// For `mcplogs setup` (`statusLine`, `hooks`).
pub fn set_top_level(
    text: &str,
    key: &str,
    value: &serde_json::Value,
) -> Result<String, EditError> {
    let (bom, body) = split_bom(text);
    let blank = body.trim_matches([' ', '\t', '\n', '\r']).is_empty();
    let body_owned;
    let body = if blank {
        body_owned = "{}\n".to_string();
        body_owned.as_str()
    } else {
        body
    };
    let doc = parse_strict(body)?;
    let root = ObjectSpan::of(&doc, doc.root).ok_or(EditError::NotAnObject)?;
    let style = Style::detect(body);
    let render = |line_indent: &str| -> String {
        match line_indent_mode(line_indent) {
            None => serde_json::to_string(value).expect("a JSON value"),
            Some(indent) => pretty(value, &style.unit, indent, style.newline),
        }
    };
    let index = root.last_index(key);
    let edited = match index {
        Some(i) => {
            let m = &root.members[i];
            let indent = if starts_line(body, m.key_start) {
                format!("\n{}", &body[line_start(body, m.key_start)..m.key_start])
            } else {
                String::new()
            };
            splice(body, m.value_start, m.value_end, &render(&indent))
        }
        None => insert_member(body, &root, key, &render, &style),
    };
    let new = parse_strict(&edited).map_err(|_| EditError::Verification)?;
    let holds = |d: &Doc, m: &JsonMember| {
        m.key == key
            && serde_json::from_str::<serde_json::Value>(d.raw(m.value))
                .ok()
                .as_ref()
                == Some(value)
    };
    let ok = (|| {
        let (old_root, new_root) = (doc.members(doc.root)?, new.members(new.root)?);
        Some(match index {
            Some(i) => {
                same_except(&doc, old_root, &new, new_root, i) && holds(&new, new_root.get(i)?)
            }
            None => {
                holds(&new, new_root.first()?) && same_all(&doc, old_root, &new, &new_root[1..])
            }
        })
    })();
    check(ok, bom, edited)
}

/// Undo of [`set_top_level`]: the top-level `key` back to `previous` (its literal JSON
/// text), or removed when `previous` is `None`. Checked the same way.
pub fn restore_top_level(
    text: &str,
    key: &str,
    previous: Option<&str>,
) -> Result<String, EditError> {
    let (bom, body) = split_bom(text);
    let doc = parse_strict(body)?;
    let root = ObjectSpan::of(&doc, doc.root).ok_or(EditError::NotAnObject)?;
    let Some(i) = root.last_index(key) else {
        return match previous {
            None => Ok(text.to_string()),
            Some(p) => {
                let v: serde_json::Value =
                    serde_json::from_str(p).map_err(|_| EditError::Verification)?;
                set_top_level(text, key, &v)
            }
        };
    };
    let edited = match previous {
        Some(v) => {
            let m = &root.members[i];
            splice(body, m.value_start, m.value_end, v)
        }
        None => remove_member(body, &root, i),
    };
    let new = parse_strict(&edited).map_err(|_| EditError::Verification)?;
    let ok = (|| {
        let (old_root, new_root) = (doc.members(doc.root)?, new.members(new.root)?);
        Some(match previous {
            Some(v) => {
                same_except(&doc, old_root, &new, new_root, i)
                    && new_root.get(i)?.key == key
                    && new.raw(new_root[i].value) == v
            }
            None => {
                let mut kept: Vec<JsonMember> = old_root.to_vec();
                kept.remove(i);
                same_all(&doc, &kept, &new, new_root)
            }
        })
    })();
    check(ok, bom, edited)
}

/// `value` pretty-printed with `unit`, its lines after the first indented by `indent`
/// (the member's own line indentation), with `newline` line endings.
fn pretty(value: &serde_json::Value, unit: &str, indent: &str, newline: &str) -> String {
    use serde::Serialize;
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    value.serialize(&mut ser).expect("a JSON value");
    let text = String::from_utf8(buf).expect("JSON is UTF-8");
    let mut out = String::new();
    for (k, line) in text.split('\n').enumerate() {
        if k > 0 {
            out.push_str(newline);
            out.push_str(indent);
        }
        out.push_str(line);
    }
    out
}

fn check(ok: Option<bool>, bom: &str, edited: String) -> Result<String, EditError> {
    if ok == Some(true) {
        Ok(format!("{bom}{edited}"))
    } else {
        Err(EditError::Verification)
    }
}

/// Same key and exactly the same value text, member by member.
fn same_all(a: &Doc, am: &[JsonMember], b: &Doc, bm: &[JsonMember]) -> bool {
    am.len() == bm.len()
        && am
            .iter()
            .zip(bm)
            .all(|(x, y)| x.key_units == y.key_units && a.raw(x.value) == b.raw(y.value))
}

/// [`same_all`] except at `index` (the member that was edited; same key there).
fn same_except(a: &Doc, am: &[JsonMember], b: &Doc, bm: &[JsonMember], index: usize) -> bool {
    am.len() == bm.len()
        && am.iter().zip(bm).enumerate().all(|(k, (x, y))| {
            x.key_units == y.key_units && (k == index || a.raw(x.value) == b.raw(y.value))
        })
}

fn splice(body: &str, start: usize, end: usize, with: &str) -> String {
    format!("{}{with}{}", &body[..start], &body[end..])
}

/// The file's own line ending and indentation unit.
struct Style {
    newline: &'static str,
    unit: String,
}

impl Style {
    fn detect(body: &str) -> Style {
        let newline = if body.contains("\r\n") { "\r\n" } else { "\n" };
        // The first indented line holds a depth-1 member (or a depth-1 array item):
        // its leading whitespace is one unit. Claude Code's own unit is two spaces.
        let unit = body
            .lines()
            .skip(1)
            .map(|l| {
                let trimmed = l.trim_start_matches([' ', '\t']);
                (&l[..l.len() - trimmed.len()], trimmed.trim())
            })
            .find(|(ws, rest)| !ws.is_empty() && !rest.is_empty())
            .map(|(ws, _)| ws.to_string())
            .unwrap_or_else(|| "  ".to_string());
        Style { newline, unit }
    }
}

/// `Some(indent)` for a member on its own line, `None` for an inline object.
fn line_indent_mode(marker: &str) -> Option<&str> {
    marker.strip_prefix('\n')
}

/// Inserts `"key": value` as the first member of `obj`, so no existing line changes
/// (only an empty or inline object has its line rewritten). `value` receives "\n" plus
/// the new member's indentation for a multi-line layout, or "" for an inline one.
fn insert_member(
    body: &str,
    obj: &ObjectSpan,
    key: &str,
    value: &dyn Fn(&str) -> String,
    style: &Style,
) -> String {
    let key_json = serde_json::to_string(key).expect("string");
    let nl = style.newline;
    match obj.members.first() {
        Some(first) if starts_line(body, first.key_start) => {
            let line_start = line_start(body, first.key_start);
            let indent = &body[line_start..first.key_start];
            let v = value(&format!("\n{indent}"));
            let sep = colon_style(body, first);
            splice(
                body,
                line_start,
                line_start,
                &format!("{indent}{key_json}{sep}{v},{nl}"),
            )
        }
        Some(first) => {
            let v = value("");
            let sep = colon_style(body, first);
            let comma = match obj.members.get(1) {
                Some(second) => {
                    let between = &body[first.value_end..second.key_start];
                    if between.ends_with(' ') { ", " } else { "," }
                }
                None => {
                    if sep.ends_with(' ') {
                        ", "
                    } else {
                        ","
                    }
                }
            };
            splice(
                body,
                first.key_start,
                first.key_start,
                &format!("{key_json}{sep}{v}{comma}"),
            )
        }
        None => {
            // `{}`: open it up in the file's style, aligned with the line it is on.
            let ls = line_start(body, obj.open);
            let base: String = body[ls..obj.open]
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect();
            let indent = format!("{base}{}", style.unit);
            let v = value(&format!("\n{indent}"));
            splice(
                body,
                obj.open + 1,
                obj.close,
                &format!("{nl}{indent}{key_json}: {v}{nl}{base}"),
            )
        }
    }
}

/// Removes member `index` of `obj` with its separator, and its line when it has one.
fn remove_member(body: &str, obj: &ObjectSpan, index: usize) -> String {
    let m = &obj.members[index];
    if obj.members.len() == 1 {
        return splice(body, obj.open + 1, obj.close, "");
    }
    match obj.members.get(index + 1) {
        Some(next) => {
            if starts_line(body, m.key_start) && starts_line(body, next.key_start) {
                splice(
                    body,
                    line_start(body, m.key_start),
                    line_start(body, next.key_start),
                    "",
                )
            } else {
                splice(body, m.key_start, next.key_start, "")
            }
        }
        None => {
            let prev = &obj.members[index - 1];
            splice(body, prev.value_end, m.value_end, "")
        }
    }
}

/// `": "` or `":"` (whatever the file uses between a key and its value).
fn colon_style(body: &str, m: &Member) -> &'static str {
    let between = &body[m.key_end..m.value_start];
    if between.ends_with(' ') || between.ends_with('\t') {
        ": "
    } else {
        ":"
    }
}

fn line_start(body: &str, pos: usize) -> usize {
    body[..pos].rfind('\n').map(|i| i + 1).unwrap_or(0)
}

/// Whether only spaces and tabs precede `pos` on its line (and it is not the first line
/// holding the opening brace).
fn starts_line(body: &str, pos: usize) -> bool {
    let ls = line_start(body, pos);
    ls > 0 && body[ls..pos].chars().all(|c| c == ' ' || c == '\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(t: &str) -> String {
        set_legacy(t).unwrap()
    }

    #[test]
    fn empty_and_blank_become_a_fresh_file() {
        assert_eq!(set(""), fresh_file());
        assert_eq!(set("\n"), fresh_file());
        assert_eq!(set("\u{feff}"), format!("\u{feff}{}", fresh_file()));
    }

    #[test]
    fn empty_object_opens_up() {
        assert_eq!(
            set("{}"),
            "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n  }\n}"
        );
        assert_eq!(
            set("{}\n"),
            "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n  }\n}\n"
        );
    }

    #[test]
    fn no_env_adds_one_block_first() {
        let t = "{\n  \"model\": \"opus\"\n}\n";
        assert_eq!(
            set(t),
            "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n  },\n  \"model\": \"opus\"\n}\n"
        );
    }

    #[test]
    fn env_with_other_keys_gets_one_line() {
        let t = "{\n  \"env\": {\n    \"A_KEY\": \"x\"\n  }\n}\n";
        assert_eq!(
            set(t),
            "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n    \"A_KEY\": \"x\"\n  }\n}\n"
        );
    }

    #[test]
    fn empty_env_opens_up_at_its_indentation() {
        let t = "{\n    \"env\": {},\n    \"a\": 1\n}\n";
        assert_eq!(
            set(t),
            "{\n    \"env\": {\n        \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n    },\n    \"a\": 1\n}\n"
        );
    }

    #[test]
    fn existing_value_is_replaced_in_place() {
        let t = "{\"env\":{\"MCP_PROTOCOL_NEGOTIATION\":\"auto\",\"B\":\"é\"}}";
        assert_eq!(
            set(t),
            "{\"env\":{\"MCP_PROTOCOL_NEGOTIATION\":\"legacy\",\"B\":\"é\"}}"
        );
    }

    #[test]
    fn inline_objects_stay_inline() {
        assert_eq!(
            set("{\"a\": 1}"),
            "{\"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"}, \"a\": 1}"
        );
        assert_eq!(
            set("{\"a\":1,\"b\":2}"),
            "{\"env\":{\"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"},\"a\":1,\"b\":2}"
        );
    }

    #[test]
    fn tabs_and_crlf_are_kept() {
        let t = "{\r\n\t\"a\": 1\r\n}\r\n";
        assert_eq!(
            set(t),
            "{\r\n\t\"env\": {\r\n\t\t\"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\r\n\t},\r\n\t\"a\": 1\r\n}\r\n"
        );
    }

    #[test]
    fn duplicate_env_edits_the_last_one() {
        let t = "{\n  \"env\": {\"X\": \"1\"},\n  \"env\": {\n    \"Y\": \"2\"\n  }\n}";
        let out = set(t);
        assert!(out.contains("\"env\": {\"X\": \"1\"}"));
        assert!(out.contains("\"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n    \"Y\""));
    }

    #[test]
    fn env_not_an_object_is_refused() {
        assert_eq!(
            set_legacy("{\"env\": null}"),
            Err(EditError::EnvNotAnObject)
        );
        assert_eq!(set_legacy("[]"), Err(EditError::NotAnObject));
    }

    #[test]
    fn restore_key_puts_back_the_previous_value() {
        let t = "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n  }\n}\n";
        assert_eq!(
            restore_key(t, Some("\"auto\""), true).unwrap(),
            "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"auto\"\n  }\n}\n"
        );
    }

    #[test]
    fn restore_key_removes_what_the_fix_added() {
        let added_env = set("{\n  \"a\": 1\n}\n");
        assert_eq!(
            restore_key(&added_env, None, false).unwrap(),
            "{\n  \"a\": 1\n}\n"
        );
        let added_key = set("{\n  \"env\": {\n    \"B\": \"2\"\n  }\n}\n");
        assert_eq!(
            restore_key(&added_key, None, true).unwrap(),
            "{\n  \"env\": {\n    \"B\": \"2\"\n  }\n}\n"
        );
        // Last member: the comma before it goes too.
        let last = "{\"env\": {\"B\": \"2\", \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"}}";
        assert_eq!(
            restore_key(last, None, true).unwrap(),
            "{\"env\": {\"B\": \"2\"}}"
        );
        // env existed (empty) before: it stays, empty.
        assert_eq!(
            restore_key(
                "{\"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"}}",
                None,
                true
            )
            .unwrap(),
            "{\"env\": {}}"
        );
    }
}
