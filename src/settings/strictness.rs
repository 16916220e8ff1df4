//! Whether Claude Code reads a settings file: it parses strict JSON (tolerating a UTF-8
//! BOM and an empty file) and ignores a file that fails, as a whole. JSON5 tells a file a
//! person meant as settings (comments, trailing commas) from one that is just broken.

use super::TextProblem;
use super::json::{self, Dialect, Doc, Kind, line_column};

const BOM: &str = "\u{feff}";

/// What a settings file's text is, from Claude Code's point of view.
#[derive(Debug, Clone, PartialEq)]
pub enum Strictness {
    /// Strict JSON (as `JSON.parse` reads it) holding an object: Claude Code reads it.
    Strict(Doc),
    /// JSON5 (comments, trailing commas...) but not strict JSON: Claude Code ignores it.
    /// `problem` is the first place strict JSON parsing fails.
    NonStrict { problem: TextProblem, doc: Doc },
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
    if body.trim_matches([' ', '\t', '\n', '\r']).is_empty() {
        return Strictness::Strict(Doc::empty_object());
    }
    let strict_error = match json::parse(body, Dialect::Strict) {
        Ok(doc) if doc.is_object() => return Strictness::Strict(doc),
        Ok(_) => return not_an_object(),
        Err(e) => e,
    };
    let problem = |e: &json::ParseError| {
        let (line, column) = line_column(body, e.offset);
        let rest = &body[e.offset.min(body.len())..];
        let message = if rest.starts_with("//") || rest.starts_with("/*") {
            "a comment, which strict JSON does not allow".to_string()
        } else {
            e.message.clone()
        };
        TextProblem {
            line,
            column,
            message,
        }
    };
    match json::parse(body, Dialect::Json5) {
        Ok(doc) if doc.is_object() => Strictness::NonStrict {
            problem: problem(&strict_error),
            doc,
        },
        Ok(_) => not_an_object(),
        // JSON5's position is the more useful one here: the first strict-JSON
        // problem may be a harmless comment before the real damage.
        Err(e) => Strictness::Invalid {
            problem: problem(&e),
        },
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

/// The keys of the `env` object `JSON.parse` would keep (the last `env`), in order,
/// each once.
pub fn env_keys(doc: &Doc) -> Vec<String> {
    let Some(env) = doc.last_member(doc.root, "env") else {
        return Vec::new();
    };
    let Kind::Object(members) = &doc.node(env.value).kind else {
        return Vec::new();
    };
    let mut keys: Vec<String> = Vec::new();
    for m in members {
        if !keys.contains(&m.key) {
            keys.push(m.key.clone());
        }
    }
    keys
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
        assert_eq!(check(""), Strictness::Strict(Doc::empty_object()));
        assert_eq!(check(" \n"), Strictness::Strict(Doc::empty_object()));
        assert!(matches!(check("\u{feff}{}"), Strictness::Strict(_)));
    }

    #[test]
    fn comment_is_non_strict_with_position_and_keys() {
        let text = "{\n  \"env\": {\n    // legacy please\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n  },\n}\n";
        match check(text) {
            Strictness::NonStrict { problem, doc } => {
                assert_eq!((problem.line, problem.column), (3, 5));
                assert_eq!(env_keys(&doc), vec!["MCP_PROTOCOL_NEGOTIATION"]);
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
    fn json_parse_accepts_huge_numbers_lone_surrogates_and_depth() {
        for t in [
            "{\"a\": 1e400}",
            "{\"a\": -12345678901234567890123}",
            "{\"a\": \"\\ud800\"}",
            &format!("{{\"x\": {}{}}}", "[".repeat(50_000), "]".repeat(50_000)),
        ] {
            assert!(
                matches!(check(t), Strictness::Strict(_)),
                "{}",
                &t[..t.len().min(40)]
            );
        }
    }

    #[test]
    fn non_object_top_level_is_invalid() {
        assert!(matches!(check("[1]"), Strictness::Invalid { .. }));
        assert!(matches!(check("// c\n[1,]"), Strictness::Invalid { .. }));
    }
}
