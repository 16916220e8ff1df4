//! Whether Claude Code reads a settings file: it parses strict JSON (tolerating a UTF-8
//! BOM and an empty file) and ignores a file that fails, as a whole. JSON5 tells a file a
//! person meant as settings (comments, trailing commas) from one that is just broken.

use serde_json::{Map, Value};

use super::TextProblem;

const BOM: &str = "\u{feff}";

/// What a settings file's text is, from Claude Code's point of view.
#[derive(Debug, Clone, PartialEq)]
pub enum Strictness {
    /// Strict JSON holding an object: Claude Code reads it.
    Strict(Map<String, Value>),
    /// JSON5 (comments, trailing commas...) but not strict JSON: Claude Code ignores it.
    /// `problem` is the first place strict JSON parsing fails.
    NonStrict {
        problem: TextProblem,
        object: Map<String, Value>,
    },
    /// Neither, or not an object at the top.
    Invalid { problem: TextProblem },
}

/// Splits off a leading UTF-8 BOM, which Claude Code tolerates and an edit must keep.
pub fn split_bom(text: &str) -> (&str, &str) {
    match text.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", text),
    }
}

pub fn check(text: &str) -> Strictness {
    let (_, body) = split_bom(text);
    if body.trim().is_empty() {
        return Strictness::Strict(Map::new());
    }
    let strict_error = match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(map)) => return Strictness::Strict(map),
        Ok(_) => return not_an_object(),
        Err(e) => e,
    };
    match json5::from_str::<Value>(body) {
        Ok(Value::Object(object)) => Strictness::NonStrict {
            problem: TextProblem {
                line: strict_error.line(),
                column: strict_error.column().max(1),
                message: strict_message(&strict_error),
            },
            object,
        },
        Ok(_) => not_an_object(),
        Err(e) => {
            // JSON5's position is the more useful one here: the first strict-JSON
            // problem may be a harmless comment before the real damage.
            let (line, column) = match e.position() {
                Some(p) => (p.line + 1, p.column + 1),
                None => (strict_error.line(), strict_error.column().max(1)),
            };
            Strictness::Invalid {
                problem: TextProblem {
                    line,
                    column,
                    message: json5_message(&e),
                },
            }
        }
    }
}

fn not_an_object() -> Strictness {
    Strictness::Invalid {
        problem: TextProblem {
            line: 1,
            column: 1,
            message: "the top level is not a JSON object".to_string(),
        },
    }
}

/// serde_json's message without its own " at line X column Y" suffix (we show ours).
fn strict_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    match full.rfind(" at line ") {
        Some(i) => full[..i].to_string(),
        None => full,
    }
}

fn json5_message(e: &json5::Error) -> String {
    let full = e.to_string();
    match full.rfind(" at line ") {
        Some(i) => full[..i].to_string(),
        None => full,
    }
}

/// The keys of an `env` object, for "these are not in effect".
pub fn env_keys(object: &Map<String, Value>) -> Vec<String> {
    match object.get("env") {
        Some(Value::Object(env)) => env.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_object_is_strict() {
        let Strictness::Strict(m) = check("{\"env\": {\"A\": \"1\"}}") else {
            panic!("not strict")
        };
        assert_eq!(env_keys(&m), vec!["A"]);
    }

    #[test]
    fn empty_file_and_bom_are_tolerated() {
        assert_eq!(check(""), Strictness::Strict(Map::new()));
        assert_eq!(check(" \n"), Strictness::Strict(Map::new()));
        assert!(matches!(check("\u{feff}{}"), Strictness::Strict(_)));
    }

    #[test]
    fn comment_is_non_strict_with_position_and_keys() {
        let text = "{\n  \"env\": {\n    // legacy please\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n  },\n}\n";
        match check(text) {
            Strictness::NonStrict { problem, object } => {
                assert_eq!((problem.line, problem.column), (3, 5));
                assert_eq!(env_keys(&object), vec!["MCP_PROTOCOL_NEGOTIATION"]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn trailing_comma_is_non_strict() {
        let text = "{\"a\": 1,}";
        match check(text) {
            Strictness::NonStrict { problem, .. } => assert_eq!(problem.line, 1),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn broken_text_is_invalid_with_json5_position() {
        match check("{\n  \"a\": 1\n  \"b\": 2\n}") {
            Strictness::Invalid { problem } => assert_eq!(problem.line, 3),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn non_object_top_level_is_invalid() {
        assert!(matches!(check("[1]"), Strictness::Invalid { .. }));
        assert!(matches!(check("// c\n[1,]"), Strictness::Invalid { .. }));
    }
}
