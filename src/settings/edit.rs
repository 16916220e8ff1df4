//! Minimal text edits to a strict-JSON settings file: set `env.MCP_PROTOCOL_NEGOTIATION`,
//! or put back what it was. Only the bytes that must change are touched, so indentation,
//! line endings, key order, other values and the final newline stay as the user had them.
//! Every result is parsed again and compared with the intended object before it is
//! returned: an edit that would change anything else is an error, never a write.

use serde_json::{Map, Value};

use super::strictness::split_bom;
use super::{LEGACY, NEGOTIATION_KEY};

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
    /// Internal check failed: the edit would have changed something else.
    #[error("mcplogs could not make this edit without changing anything else (please report this)")]
    Verification,
}

/// Sets `env.MCP_PROTOCOL_NEGOTIATION` to `"legacy"` in strict-JSON `text`.
/// An empty file becomes [`fresh_file`] (its BOM kept).
pub fn set_legacy(text: &str) -> Result<String, EditError> {
    let (bom, body) = split_bom(text);
    if body.trim().is_empty() {
        return Ok(format!("{bom}{}", fresh_file()));
    }
    // New keys go first (see `insert_member`), and the check below holds us to it.
    let mut expected = parse_object(body)?;
    if !expected.contains_key("env") {
        expected.shift_insert(0, "env".into(), Value::Object(Map::new()));
    }
    let Some(Value::Object(env)) = expected.get_mut("env") else {
        return Err(EditError::EnvNotAnObject);
    };
    if let Some(v) = env.get_mut(NEGOTIATION_KEY) {
        *v = Value::String(LEGACY.into());
    } else {
        env.shift_insert(0, NEGOTIATION_KEY.into(), Value::String(LEGACY.into()));
    }

    let root = locate_root_object(body)?;
    let style = Style::detect(body);
    let legacy = format!("\"{LEGACY}\"");
    let edited = match root.last_member("env") {
        Some(env) => {
            let Node::Object(env_obj) = &env.value else {
                return Err(EditError::EnvNotAnObject);
            };
            match env_obj.last_member(NEGOTIATION_KEY) {
                Some(m) => splice(body, m.value_start, m.value_end, &legacy),
                None => insert_member(body, env_obj, NEGOTIATION_KEY, &|_| legacy.clone(), &style),
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
    verify(bom, &edited, &expected)
}

/// Undo for one key: puts `env.MCP_PROTOCOL_NEGOTIATION` back to `previous` (absent
/// when `None`). When the key was absent and `env` did not exist before the fix, an
/// `env` left empty is removed too.
pub fn restore_key(
    text: &str,
    previous: Option<&Value>,
    env_existed: bool,
) -> Result<String, EditError> {
    let (bom, body) = split_bom(text);
    let mut expected = parse_object(body)?;
    let root = locate_root_object(body)?;
    let Some(env) = root.last_member("env") else {
        // Nothing of ours is left to put back.
        return Ok(text.to_string());
    };
    let Node::Object(env_obj) = &env.value else {
        return Err(EditError::EnvNotAnObject);
    };
    let Some(key_index) = env_obj
        .members
        .iter()
        .rposition(|m| m.key == NEGOTIATION_KEY)
    else {
        return Ok(text.to_string());
    };
    let expected_env = expected
        .get_mut("env")
        .and_then(Value::as_object_mut)
        .ok_or(EditError::EnvNotAnObject)?;
    let edited = match previous {
        Some(v) => {
            expected_env.insert(NEGOTIATION_KEY.into(), v.clone());
            let m = &env_obj.members[key_index];
            let text = serde_json::to_string(v).map_err(|_| EditError::Verification)?;
            splice(body, m.value_start, m.value_end, &text)
        }
        None => {
            expected_env.shift_remove(NEGOTIATION_KEY);
            if !env_existed && expected_env.is_empty() && env_obj.members.len() == 1 {
                expected.shift_remove("env");
                let index = root
                    .members
                    .iter()
                    .rposition(|m| m.key == "env")
                    .ok_or(EditError::Verification)?;
                remove_member(body, &root, index)
            } else {
                remove_member(body, env_obj, key_index)
            }
        }
    };
    verify(bom, &edited, &expected)
}

/// `--rewrite-strict`: the JSON5 `object` (comments and trailing commas already gone)
/// written as strict JSON with the key set, in the original's indentation unit and line
/// endings, keeping (or not) its final newline and BOM.
pub fn rewrite_strict(original: &str, object: &Map<String, Value>) -> Result<String, EditError> {
    let (bom, body) = split_bom(original);
    let mut expected = object.clone();
    let env = expected
        .entry("env")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(env) = env else {
        return Err(EditError::EnvNotAnObject);
    };
    env.insert(NEGOTIATION_KEY.into(), Value::String(LEGACY.into()));
    let style = Style::detect(body);
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(style.unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&expected, &mut ser).map_err(|_| EditError::Verification)?;
    let mut text = String::from_utf8(out).map_err(|_| EditError::Verification)?;
    if body.ends_with('\n') || body.trim().is_empty() {
        text.push('\n');
    }
    if style.newline == "\r\n" {
        text = text.replace('\n', "\r\n");
    }
    verify(bom, &text, &expected)
}

fn parse_object(body: &str) -> Result<Map<String, Value>, EditError> {
    if body.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err(EditError::NotAnObject),
    }
}

fn verify(bom: &str, body: &str, expected: &Map<String, Value>) -> Result<String, EditError> {
    let got = parse_object(body).map_err(|_| EditError::Verification)?;
    if !ordered_eq(&got, expected) {
        return Err(EditError::Verification);
    }
    Ok(format!("{bom}{body}"))
}

/// Equality that also holds key order (JSON objects compare without it; users do not).
fn ordered_eq(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    a.len() == b.len()
        && a.iter().zip(b.iter()).all(|((ka, va), (kb, vb))| {
            ka == kb
                && match (va, vb) {
                    (Value::Object(x), Value::Object(y)) => ordered_eq(x, y),
                    _ => va == vb,
                }
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

// ---- A span-recording scanner for strict JSON (the text was validated before). ----

#[derive(Debug)]
struct Member {
    key: String,
    key_start: usize,
    key_end: usize,
    value_start: usize,
    value_end: usize,
    value: Node,
}

#[derive(Debug)]
struct ObjectSpan {
    /// Byte offset of `{`.
    open: usize,
    /// Byte offset of `}`.
    close: usize,
    members: Vec<Member>,
}

impl ObjectSpan {
    /// JSON.parse keeps the last of duplicate keys, so edits go to the last.
    fn last_member(&self, key: &str) -> Option<&Member> {
        self.members.iter().rev().find(|m| m.key == key)
    }
}

#[derive(Debug)]
enum Node {
    Object(ObjectSpan),
    Other,
}

fn locate_root_object(body: &str) -> Result<ObjectSpan, EditError> {
    let mut s = JsonCursor {
        b: body.as_bytes(),
        pos: 0,
    };
    s.ws();
    match s.value() {
        Some(Node::Object(o)) => Ok(o),
        _ => Err(EditError::NotAnObject),
    }
}

struct JsonCursor<'a> {
    b: &'a [u8],
    pos: usize,
}

impl JsonCursor<'_> {
    fn ws(&mut self) {
        while self
            .b
            .get(self.pos)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn value(&mut self) -> Option<Node> {
        match self.peek()? {
            b'{' => self.object().map(Node::Object),
            b'[' => {
                self.pos += 1;
                self.ws();
                if self.peek()? == b']' {
                    self.pos += 1;
                    return Some(Node::Other);
                }
                loop {
                    self.value()?;
                    self.ws();
                    match self.peek()? {
                        b',' => {
                            self.pos += 1;
                            self.ws();
                        }
                        b']' => {
                            self.pos += 1;
                            return Some(Node::Other);
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => {
                self.string()?;
                Some(Node::Other)
            }
            _ => {
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.'))
                {
                    self.pos += 1;
                }
                (self.pos > start).then_some(Node::Other)
            }
        }
    }

    /// Skips a string; returns its span.
    fn string(&mut self) -> Option<(usize, usize)> {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.peek()? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return Some((start, self.pos));
                }
                _ => self.pos += 1,
            }
        }
    }

    fn object(&mut self) -> Option<ObjectSpan> {
        let open = self.pos;
        self.pos += 1;
        let mut members = Vec::new();
        self.ws();
        if self.peek()? == b'}' {
            let close = self.pos;
            self.pos += 1;
            return Some(ObjectSpan {
                open,
                close,
                members,
            });
        }
        loop {
            if self.peek()? != b'"' {
                return None;
            }
            let (key_start, key_end) = self.string()?;
            let raw = std::str::from_utf8(&self.b[key_start..key_end]).ok()?;
            let key: String = serde_json::from_str(raw).ok()?;
            self.ws();
            if self.peek()? != b':' {
                return None;
            }
            self.pos += 1;
            self.ws();
            let value_start = self.pos;
            let value = self.value()?;
            let value_end = self.pos;
            members.push(Member {
                key,
                key_start,
                key_end,
                value_start,
                value_end,
                value,
            });
            self.ws();
            match self.peek()? {
                b',' => {
                    self.pos += 1;
                    self.ws();
                }
                b'}' => {
                    let close = self.pos;
                    self.pos += 1;
                    return Some(ObjectSpan {
                        open,
                        close,
                        members,
                    });
                }
                _ => return None,
            }
        }
    }
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
        let auto = Value::String("auto".into());
        assert_eq!(
            restore_key(t, Some(&auto), true).unwrap(),
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

    #[test]
    fn rewrite_strict_keeps_unit_newlines_and_order() {
        let original = "{\r\n    // c\r\n    \"b\": 1,\r\n    \"a\": [1, 2,],\r\n}\r\n";
        let crate::settings::strictness::Strictness::NonStrict { object, .. } =
            crate::settings::strictness::check(original)
        else {
            panic!()
        };
        assert_eq!(
            rewrite_strict(original, &object).unwrap(),
            "{\r\n    \"b\": 1,\r\n    \"a\": [\r\n        1,\r\n        2\r\n    ],\r\n    \"env\": {\r\n        \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\r\n    }\r\n}\r\n"
        );
    }
}
