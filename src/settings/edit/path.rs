//! Minimal edits at any key path of a strict-JSON object (`["mcpServers", "far",
//! "command"]`), for the fix engine ([`crate::settings::engine`]): a value set or
//! replaced, objects on the way created when missing, or a member removed. Only the
//! bytes that must change are touched, and every result is parsed again and checked: it
//! must equal the old document with exactly that one change.

use serde_json::Value;

use super::{
    EditError, ObjectSpan, Style, insert_member, line_indent_mode, line_start, parse_strict,
    pretty, remove_member, splice, starts_line,
};
use crate::settings::strictness::split_bom;

/// The value at `path` in strict-JSON `text` (the last of duplicate keys, as Claude
/// Code's parser keeps); `None` when absent or when the text is not strict JSON.
pub fn value_at(text: &str, path: &[String]) -> Option<Value> {
    let (_, body) = split_bom(text);
    let root: Value = serde_json::from_str(body).ok()?;
    let mut v = &root;
    for k in path {
        v = v.as_object()?.get(k)?;
    }
    Some(v.clone())
}

/// The shortest prefix of `path` absent from `text`: where a set creates the first new
/// member. `None` when the whole path exists.
pub fn first_missing(text: &str, path: &[String]) -> Option<usize> {
    let (_, body) = split_bom(text);
    let root: Value = serde_json::from_str(body).unwrap_or(Value::Object(Default::default()));
    let mut v = &root;
    for (i, k) in path.iter().enumerate() {
        match v.as_object().and_then(|o| o.get(k)) {
            Some(next) => v = next,
            None => return Some(i + 1),
        }
    }
    None
}

/// Sets `path` to `value` (created with any missing objects on the way, each new
/// member first in its object), or removes the member at `path` when `value` is `None`
/// (absent already: the text as it is). Refuses a path through something that is not an
/// object.
pub fn set_at(text: &str, path: &[String], value: Option<&Value>) -> Result<String, EditError> {
    let Some((last_key, parents)) = path.split_last() else {
        return Err(EditError::NotAnObject);
    };
    let (bom, body) = split_bom(text);
    let blank = body.trim_matches([' ', '\t', '\n', '\r']).is_empty();
    if blank && value.is_none() {
        return Ok(text.to_string());
    }
    let body_owned;
    let body = if blank {
        body_owned = "{}\n".to_string();
        body_owned.as_str()
    } else {
        body
    };
    let doc = parse_strict(body)?;
    let style = Style::detect(body);
    let render = |v: &Value, line_indent: &str| -> String {
        match line_indent_mode(line_indent) {
            None => serde_json::to_string(v).expect("a JSON value"),
            Some(indent) => pretty(v, &style.unit, indent, style.newline),
        }
    };
    let mut node = doc.root;
    let mut edited: Option<String> = None;
    for (depth, key) in parents.iter().chain(std::iter::once(last_key)).enumerate() {
        let obj = ObjectSpan::of(&doc, node)
            .ok_or_else(|| EditError::NotAnObjectAtPath(path[..depth].join(".")))?;
        let is_last = depth + 1 == path.len();
        match obj.last_index(key) {
            Some(i) if !is_last => node = obj.members[i].value,
            Some(i) => {
                let m = &obj.members[i];
                edited = Some(match value {
                    Some(v) => {
                        let indent = if starts_line(body, m.key_start) {
                            format!("\n{}", &body[line_start(body, m.key_start)..m.key_start])
                        } else {
                            String::new()
                        };
                        splice(body, m.value_start, m.value_end, &render(v, &indent))
                    }
                    None => remove_member(body, &obj, i),
                });
            }
            None => {
                let Some(v) = value else {
                    return Ok(text.to_string());
                };
                let mut nested = v.clone();
                for k in path[depth + 1..].iter().rev() {
                    let mut m = serde_json::Map::new();
                    m.insert(k.clone(), nested);
                    nested = Value::Object(m);
                }
                edited = Some(insert_member(
                    body,
                    &obj,
                    key,
                    &|indent| render(&nested, indent),
                    &style,
                ));
            }
        }
        if edited.is_some() {
            break;
        }
    }
    let edited = edited.ok_or(EditError::Verification)?;
    // The check: the old document with exactly this change, nothing else.
    let mut want: Value = serde_json::from_str(body).map_err(|_| EditError::Verification)?;
    put(&mut want, path, value);
    let got: Value = serde_json::from_str(&edited).map_err(|_| EditError::Verification)?;
    if got != want {
        return Err(EditError::Verification);
    }
    Ok(format!("{bom}{edited}"))
}

/// `path` in `doc` set to `value` (objects created on the way) or removed.
fn put(doc: &mut Value, path: &[String], value: Option<&Value>) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut v = doc;
    for k in parents {
        let Some(o) = v.as_object_mut() else { return };
        v = o
            .entry(k.clone())
            .or_insert_with(|| Value::Object(Default::default()));
    }
    if let Some(o) = v.as_object_mut() {
        match value {
            Some(x) => {
                o.insert(last.clone(), x.clone());
            }
            None => {
                o.remove(last);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn replaces_a_nested_string_in_place() {
        let t = "{\n  \"mcpServers\": {\n    \"far\": {\n      \"command\": \"farstub\",\n      \"args\": []\n    }\n  },\n  \"n\": 1\n}\n";
        let out = set_at(
            t,
            &p(&["mcpServers", "far", "command"]),
            Some(&json!("/opt/bin/farstub")),
        )
        .unwrap();
        assert_eq!(out, t.replace("\"farstub\"", "\"/opt/bin/farstub\""));
    }

    #[test]
    fn creates_missing_objects_first_in_their_parent() {
        let t = "{\n  \"model\": \"opus\"\n}\n";
        let out = set_at(t, &p(&["env", "MCP_TIMEOUT"]), Some(&json!("60000"))).unwrap();
        assert_eq!(
            out,
            "{\n  \"env\": {\n    \"MCP_TIMEOUT\": \"60000\"\n  },\n  \"model\": \"opus\"\n}\n"
        );
        assert_eq!(first_missing(t, &p(&["env", "MCP_TIMEOUT"])), Some(1));
        assert_eq!(first_missing(&out, &p(&["env", "MCP_TIMEOUT"])), None);
    }

    #[test]
    fn removes_a_member_and_leaves_the_rest_byte_for_byte() {
        let t = "{\n  \"env\": {\n    \"MCP_TIMEOUT\": \"60000\",\n    \"A\": \"1\"\n  }\n}\n";
        let out = set_at(t, &p(&["env", "MCP_TIMEOUT"]), None).unwrap();
        assert_eq!(out, "{\n  \"env\": {\n    \"A\": \"1\"\n  }\n}\n");
        // absent: nothing to remove
        assert_eq!(
            set_at(&out, &p(&["env", "MCP_TIMEOUT"]), None).unwrap(),
            out
        );
    }

    #[test]
    fn arrays_are_written_in_the_files_style() {
        let t = "{\n  \"disabledMcpjsonServers\": [\n    \"p-off\"\n  ]\n}\n";
        let out = set_at(t, &p(&["disabledMcpjsonServers"]), Some(&json!([]))).unwrap();
        let out = set_at(
            &out,
            &p(&["enabledMcpjsonServers"]),
            Some(&json!(["p-off"])),
        )
        .unwrap();
        assert_eq!(
            out,
            "{\n  \"enabledMcpjsonServers\": [\n    \"p-off\"\n  ],\n  \"disabledMcpjsonServers\": []\n}\n"
        );
    }

    #[test]
    fn a_path_through_a_non_object_is_refused() {
        let t = "{\"mcpServers\": []}";
        assert_eq!(
            set_at(t, &p(&["mcpServers", "x", "command"]), Some(&json!("y"))),
            Err(EditError::NotAnObjectAtPath("mcpServers".into()))
        );
    }

    #[test]
    fn a_blank_file_becomes_an_object() {
        assert_eq!(
            set_at("", &p(&["env", "K"]), Some(&json!("v"))).unwrap(),
            "{\n  \"env\": {\n    \"K\": \"v\"\n  }\n}\n"
        );
    }
}
