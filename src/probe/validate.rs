//! Claude Code's checks of `tools/list` results, per page and per tool, reported
//! field by field.
//!
//! Claude Code validates each result with the MCP SDK's schema: a tool is an object
//! with a string `name`, an optional string `title`/`description`, an `inputSchema`
//! object whose `type` is `"object"` (optional `properties` object, optional `required`
//! array of strings), an optional `outputSchema` object (any `type`: the model's
//! `OutputSchemaTypeNotObject` row), optional
//! `annotations` object. Under revision 2026-07-28 the result also needs `resultType`,
//! `ttlMs` (a number) and `cacheScope` (`"public"` or `"private"`). One bad tool or one
//! bad page fails the whole list (observed: reference section 3). A name seen twice is
//! kept once (observed with 2.1.332: four tools, one name twice, three tools loaded).

use std::collections::HashSet;

use serde_json::Value;

use crate::claude_code::lifecycle::{ToolDefect, Treatment};

/// Why one tool is not loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct RejectedTool {
    /// 1-based page.
    pub page: usize,
    /// Index in that page's `tools`.
    pub index: usize,
    pub name: Option<String>,
    /// A stable reason code (`input-schema-type`, `duplicate-name`...).
    pub reason: &'static str,
    /// Where, as `tools[2].inputSchema.type`.
    pub path: String,
    /// What was expected and what was there.
    pub detail: String,
    /// Whether this alone makes Claude Code drop the whole list (a duplicate does not).
    pub fails_list: bool,
}

/// A problem with a page's envelope (not with one tool).
#[derive(Debug, Clone, PartialEq)]
pub struct EnvelopeIssue {
    pub page: usize,
    pub field: String,
    pub kind: EnvelopeKind,
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvelopeKind {
    /// `resultType`, `ttlMs` or `cacheScope` absent (modern era only).
    Missing,
    /// Present with the wrong type or value.
    WrongType,
    /// The result itself is malformed (`tools` not an array, `nextCursor` not a string).
    Malformed,
}

/// The validation of every page of one listing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListCheck {
    pub pages: usize,
    pub returned: usize,
    /// Tools that pass on their own (duplicates excluded).
    pub valid: usize,
    pub rejected: Vec<RejectedTool>,
    pub envelope: Vec<EnvelopeIssue>,
}

impl ListCheck {
    pub fn first_bad_tool(&self) -> Option<&RejectedTool> {
        self.rejected.iter().find(|r| r.fails_list)
    }

    pub fn missing(&self, field: &str) -> bool {
        self.envelope
            .iter()
            .any(|e| e.kind == EnvelopeKind::Missing && e.field == field)
    }

    pub fn wrong_types(&self) -> bool {
        self.envelope
            .iter()
            .any(|e| e.kind == EnvelopeKind::WrongType)
    }

    pub fn malformed(&self) -> Option<&EnvelopeIssue> {
        self.envelope
            .iter()
            .find(|e| e.kind == EnvelopeKind::Malformed)
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    super::transport::printable(&s, 60, false)
}

/// The 2026-07-28 fields of one result (`resultType`, `ttlMs`, `cacheScope`): each one
/// absent or of the wrong type.
fn envelope_fields(
    obj: &serde_json::Map<String, Value>,
) -> Vec<(&'static str, EnvelopeKind, String)> {
    /// What a value of a field must be.
    type Valid = fn(&Value) -> bool;
    /// Each field, what a value of it must be, and that said in words.
    const FIELDS: [(&str, Valid, &str); 3] = [
        ("resultType", Value::is_string, "a string"),
        ("ttlMs", Value::is_number, "a number"),
        (
            "cacheScope",
            |v| matches!(v.as_str(), Some("public" | "private")),
            "\"public\" or \"private\"",
        ),
    ];
    FIELDS
        .iter()
        .filter_map(|&(name, valid, expected)| match obj.get(name) {
            None => Some((
                name,
                EnvelopeKind::Missing,
                "required under 2026-07-28, absent".to_string(),
            )),
            Some(v) if valid(v) => None,
            Some(v) => Some((
                name,
                EnvelopeKind::WrongType,
                format!("expected {expected}, got {}", short(v)),
            )),
        })
        .collect()
}

/// The envelope of a `prompts/list` or `resources/list` result (one page): under
/// 2026-07-28 the same three fields as `tools/list` (observed: 2.1.288 rejects the list
/// without them, 2.1.302 and later fill them in; `claude_code::lifecycle`).
pub fn check_list_envelope(result: &Value, modern: bool) -> Vec<EnvelopeIssue> {
    let Some(obj) = result.as_object() else {
        return vec![EnvelopeIssue {
            page: 1,
            field: "result".into(),
            kind: EnvelopeKind::Malformed,
            detail: format!("expected an object, got {}", type_name(result)),
        }];
    };
    if !modern {
        return Vec::new();
    }
    envelope_fields(obj)
        .into_iter()
        .map(|(field, kind, detail)| EnvelopeIssue {
            page: 1,
            field: field.into(),
            kind,
            detail,
        })
        .collect()
}

/// Checks every page; `modern`: the 2026-07-28 envelope fields are required.
pub fn check_pages(pages: &[Value], modern: bool) -> ListCheck {
    let mut c = ListCheck {
        pages: pages.len(),
        ..ListCheck::default()
    };
    let mut names: HashSet<String> = HashSet::new();
    for (pi, page) in pages.iter().enumerate() {
        let p = pi + 1;
        let mut issue = |field: &str, kind, detail: String| {
            c.envelope.push(EnvelopeIssue {
                page: p,
                field: field.to_string(),
                kind,
                detail,
            })
        };
        let Some(obj) = page.as_object() else {
            issue(
                "result",
                EnvelopeKind::Malformed,
                format!("expected an object, got {}", type_name(page)),
            );
            continue;
        };
        if modern {
            for (field, kind, detail) in envelope_fields(obj) {
                issue(field, kind, detail);
            }
        }
        match obj.get("nextCursor") {
            None | Some(Value::String(_)) => {}
            Some(v) => issue(
                "nextCursor",
                EnvelopeKind::Malformed,
                format!("expected a string, got {}", type_name(v)),
            ),
        }
        let tools = match obj.get("tools") {
            Some(Value::Array(a)) => a,
            Some(v) => {
                issue(
                    "tools",
                    EnvelopeKind::Malformed,
                    format!("expected an array, got {}", type_name(v)),
                );
                continue;
            }
            None => {
                issue("tools", EnvelopeKind::Malformed, "required, absent".into());
                continue;
            }
        };
        for (i, tool) in tools.iter().enumerate() {
            c.returned += 1;
            let name = tool.get("name").and_then(Value::as_str).map(str::to_string);
            match check_tool(tool) {
                Some((reason, path, detail)) => c.rejected.push(RejectedTool {
                    page: p,
                    index: i,
                    name,
                    reason,
                    path: format!("tools[{i}]{path}"),
                    detail,
                    fails_list: true,
                }),
                None => {
                    let n = name.clone().unwrap_or_default();
                    if names.insert(n) {
                        c.valid += 1;
                    } else {
                        c.rejected.push(RejectedTool {
                            page: p,
                            index: i,
                            name,
                            reason: "duplicate-name",
                            path: format!("tools[{i}].name"),
                            detail: "a tool of this name came earlier; Claude Code keeps one"
                                .into(),
                            fails_list: false,
                        });
                    }
                }
            }
        }
    }
    c
}

/// The first problem of one tool: (reason code, path below the tool, detail).
fn check_tool(tool: &Value) -> Option<(&'static str, String, String)> {
    let Some(t) = tool.as_object() else {
        return Some((
            "not-an-object",
            String::new(),
            format!("expected an object, got {}", type_name(tool)),
        ));
    };
    match t.get("name") {
        None => return Some(("missing-name", ".name".into(), "required, absent".into())),
        Some(Value::String(_)) => {}
        Some(v) => {
            return Some((
                "name-not-a-string",
                ".name".into(),
                format!("expected a string, got {}", type_name(v)),
            ));
        }
    }
    for field in ["title", "description"] {
        if let Some(v) = t.get(field)
            && !v.is_string()
        {
            return Some((
                "field-not-a-string",
                format!(".{field}"),
                format!("expected a string, got {}", type_name(v)),
            ));
        }
    }
    match t.get("inputSchema") {
        None => {
            return Some((
                "missing-input-schema",
                ".inputSchema".into(),
                "required, absent".into(),
            ));
        }
        Some(s) => {
            if let Some((reason, path, detail)) = check_schema(s, "input") {
                return Some((reason, format!(".inputSchema{path}"), detail));
            }
        }
    }
    if let Some(s) = t.get("outputSchema")
        && let Some((reason, path, detail)) = check_schema(s, "output")
        // an `outputSchema.type` other than "object" is loaded by every build (the model)
        && !(reason == "output-schema-type"
            && ToolDefect::OutputSchemaTypeNotObject.treatment() == Treatment::Accepted)
    {
        return Some((reason, format!(".outputSchema{path}"), detail));
    }
    if let Some(a) = t.get("annotations") {
        let Some(ann) = a.as_object() else {
            return Some((
                "annotations-invalid",
                ".annotations".into(),
                format!("expected an object, got {}", type_name(a)),
            ));
        };
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            if let Some(v) = ann.get(hint)
                && !v.is_boolean()
            {
                return Some((
                    "annotations-invalid",
                    format!(".annotations.{hint}"),
                    format!("expected a boolean, got {}", type_name(v)),
                ));
            }
        }
        if let Some(v) = ann.get("title")
            && !v.is_string()
        {
            return Some((
                "annotations-invalid",
                ".annotations.title".into(),
                format!("expected a string, got {}", type_name(v)),
            ));
        }
    }
    if let Some(m) = t.get("_meta")
        && !m.is_object()
    {
        return Some((
            "meta-invalid",
            "._meta".into(),
            format!("expected an object, got {}", type_name(m)),
        ));
    }
    None
}

fn check_schema(s: &Value, which: &str) -> Option<(&'static str, String, String)> {
    let (not_object, bad_type, bad_props, bad_required) = if which == "input" {
        (
            "input-schema-not-an-object",
            "input-schema-type",
            "input-schema-properties",
            "input-schema-required",
        )
    } else {
        (
            "output-schema-not-an-object",
            "output-schema-type",
            "output-schema-properties",
            "output-schema-required",
        )
    };
    let Some(o) = s.as_object() else {
        return Some((
            not_object,
            String::new(),
            format!("expected an object, got {}", type_name(s)),
        ));
    };
    match o.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        None => {
            return Some((
                bad_type,
                ".type".into(),
                "expected \"object\", absent".into(),
            ));
        }
        Some(v) => {
            return Some((
                bad_type,
                ".type".into(),
                format!("expected \"object\", got {}", short(v)),
            ));
        }
    }
    if let Some(p) = o.get("properties")
        && !p.is_object()
    {
        return Some((
            bad_props,
            ".properties".into(),
            format!("expected an object, got {}", type_name(p)),
        ));
    }
    if let Some(r) = o.get("required") {
        match r.as_array() {
            Some(a) if a.iter().all(Value::is_string) => {}
            _ => {
                return Some((
                    bad_required,
                    ".required".into(),
                    "expected an array of strings".into(),
                ));
            }
        }
    }
    None
}

/// The keywords under which Claude Code's check of `x-mcp-header` declarations looks
/// further, a declaration there being misplaced (the SDK in the 2.1.288 and 2.1.332
/// binaries); those whose value is a map of schemas are [`MAP_KEYWORDS`].
const NESTED_KEYWORDS: [&str; 18] = [
    "items",
    "prefixItems",
    "contains",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "patternProperties",
    "dependentSchemas",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "$defs",
    "definitions",
];
const MAP_KEYWORDS: [&str; 4] = [
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// Why Claude Code would exclude a tool for the `x-mcp-header` declarations of its
/// `inputSchema` on a 2026-07-28 HTTP connection (`[mcp-sdk] excluding tool ... invalid
/// x-mcp-header declaration — <reason>`), in its words; `None`: kept. A declaration
/// must sit on a property reached through `properties` only, be a non-empty RFC 9110
/// token, on a string, integer, boolean or number property, and be unique ignoring case.
pub fn x_mcp_header_problem(schema: &Value) -> Option<String> {
    fn walk(
        node: &Value,
        path: &mut Vec<String>,
        reachable: bool,
        seen: &mut Vec<(String, String)>,
        depth: usize,
    ) -> Option<String> {
        let obj = node.as_object()?;
        // deeper than any real schema: Claude Code would recurse; mcplogs stops
        if depth > 64 {
            return None;
        }
        let at = || path.join(".");
        if let Some(h) = obj.get("x-mcp-header") {
            if !reachable || path.is_empty() {
                return Some(format!(
                    "{}: x-mcp-header is only permitted on properties statically reachable via a chain of 'properties' keys",
                    at()
                ));
            }
            let name = match h.as_str() {
                Some(n) if !n.is_empty() => n,
                _ => return Some(format!("{}: x-mcp-header MUST be a non-empty string", at())),
            };
            let token = name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
            if !token {
                return Some(format!(
                    "{}: x-mcp-header {name:?} is not a valid RFC 9110 token",
                    at()
                ));
            }
            let ty = obj.get("type").and_then(Value::as_str);
            if !matches!(ty, Some("string" | "integer" | "boolean" | "number")) {
                return Some(format!(
                    "{}: x-mcp-header is only permitted on primitive-typed properties; got {}",
                    at(),
                    ty.unwrap_or("<none>")
                ));
            }
            let lower = name.to_ascii_lowercase();
            if let Some((_, first)) = seen.iter().find(|(l, _)| *l == lower) {
                return Some(format!(
                    "x-mcp-header {name:?} is not case-insensitively unique (also declared as {first:?})"
                ));
            }
            seen.push((lower, name.to_string()));
        }
        if let Some(Value::Object(props)) = obj.get("properties") {
            for (k, v) in props {
                path.push(k.clone());
                let r = walk(v, path, reachable, seen, depth + 1);
                path.pop();
                if r.is_some() {
                    return r;
                }
            }
        }
        for key in NESTED_KEYWORDS {
            let Some(v) = obj.get(key) else { continue };
            let children: Vec<&Value> = match v {
                Value::Array(a) => a.iter().collect(),
                Value::Object(m) if MAP_KEYWORDS.contains(&key) => m.values().collect(),
                other => vec![other],
            };
            for c in children {
                path.push(format!("<{key}>"));
                let r = walk(c, path, false, seen, depth + 1);
                path.pop();
                if r.is_some() {
                    return r;
                }
            }
        }
        None
    }
    walk(schema, &mut Vec::new(), true, &mut Vec::new(), 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str) -> Value {
        json!({"name": name, "inputSchema": {"type": "object", "properties": {}}})
    }

    #[test]
    fn a_healthy_modern_page_passes() {
        let p = json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": [tool("a"), tool("b")]});
        let c = check_pages(&[p], true);
        assert_eq!((c.returned, c.valid), (2, 2));
        assert!(c.rejected.is_empty() && c.envelope.is_empty());
    }

    #[test]
    fn envelope_fields_only_count_in_the_modern_era() {
        let p = json!({"tools": [tool("a")], "ttlMs": "60000"});
        assert!(
            check_pages(std::slice::from_ref(&p), false)
                .envelope
                .is_empty()
        );
        let c = check_pages(&[p], true);
        assert!(c.missing("resultType") && c.missing("cacheScope") && c.wrong_types());
    }

    #[test]
    fn a_bad_tool_names_its_field() {
        let mut bad = tool("c");
        bad["inputSchema"]["type"] = json!("string");
        let c = check_pages(&[json!({"tools": [tool("a"), tool("b"), bad]})], false);
        let r = c.first_bad_tool().unwrap();
        assert_eq!(r.path, "tools[2].inputSchema.type");
        assert_eq!(r.reason, "input-schema-type");
        assert_eq!(r.name.as_deref(), Some("c"));
        assert_eq!(c.valid, 2);
    }

    #[test]
    fn duplicates_are_rejected_without_failing_the_list() {
        let c = check_pages(
            &[json!({"tools": [tool("a")]}), json!({"tools": [tool("a")]})],
            false,
        );
        assert_eq!(c.returned, 2);
        assert_eq!(c.valid, 1);
        assert_eq!(c.rejected[0].reason, "duplicate-name");
        assert_eq!(c.rejected[0].page, 2);
        assert!(c.first_bad_tool().is_none());
    }

    #[test]
    fn malformed_results_and_schemas() {
        let c = check_pages(&[json!({"tools": {}}), json!([1])], false);
        assert_eq!(c.envelope.len(), 2);
        let c = check_pages(
            &[
                json!({"tools": [{"name": 3}, {"name": "x", "inputSchema": {"type": "object", "required": [1]}},
                                 {"name": "y", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}}]}),
            ],
            false,
        );
        let reasons: Vec<&str> = c.rejected.iter().map(|r| r.reason).collect();
        assert_eq!(reasons, vec!["name-not-a-string", "input-schema-required"]);
    }

    #[test]
    fn x_mcp_header_declarations_as_claude_code_checks_them() {
        let schema = |q: Value| json!({"type": "object", "properties": {"q": q}});
        // the fixture's two declarations: kept and excluded
        assert_eq!(
            x_mcp_header_problem(&schema(
                json!({"type": "string", "x-mcp-header": "X-Query"})
            )),
            None
        );
        let bad = x_mcp_header_problem(&schema(
            json!({"type": "string", "x-mcp-header": "bad header"}),
        ))
        .unwrap();
        assert!(
            bad.starts_with("q: ") && bad.contains("RFC 9110 token"),
            "{bad}"
        );
        assert!(
            x_mcp_header_problem(&schema(json!({"type": "string", "x-mcp-header": ""})))
                .unwrap()
                .contains("non-empty string")
        );
        assert!(
            x_mcp_header_problem(&schema(json!({"type": "object", "x-mcp-header": "X-A"})))
                .unwrap()
                .contains("got object")
        );
        // not reachable through `properties` alone, or on the schema itself
        let nested = json!({"type": "object", "properties": {"q": {"type": "array",
            "items": {"type": "string", "x-mcp-header": "X-A"}}}});
        assert!(
            x_mcp_header_problem(&nested)
                .unwrap()
                .contains("statically reachable")
        );
        let top = json!({"type": "object", "x-mcp-header": "X-A"});
        assert!(
            x_mcp_header_problem(&top)
                .unwrap()
                .contains("statically reachable")
        );
        // unique ignoring case
        let twice = json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "X-A"},
            "b": {"type": "string", "x-mcp-header": "x-a"}}});
        assert!(
            x_mcp_header_problem(&twice)
                .unwrap()
                .contains("case-insensitively unique")
        );
        // no declaration at all, or not a schema: nothing to say
        assert_eq!(x_mcp_header_problem(&json!({"type": "object"})), None);
        assert_eq!(x_mcp_header_problem(&json!("x")), None);
    }
}
