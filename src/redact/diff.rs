//! A settings diff made fit to show (`settings::diff::unified` makes it). Secret values
//! (keys like `*_KEY`, `*_TOKEN`, `*SECRET*`, `*PASSWORD*`) are masked on every line
//! shown: a diff ends up in terminals, screenshots and bug reports. The key mcplogs sets
//! is never one of them. Control characters in the file's lines are escaped.

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::secrets;
use crate::text::terminal_safe;

/// What stands in for a secret value.
pub const MASK: &str = "********";

/// A `key: value` pair with a string value, in strict JSON or JSON5 spelling (a diff of
/// `--rewrite-strict` shows the JSON5 lines it removes).
static PAIR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?x)
        (?P<key>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[A-Za-z_$][A-Za-z0-9_$]*)
        (?P<colon>\s*:\s*)
        (?P<val>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
        "#,
    )
    .expect("valid regex")
});

/// Whether a key (quotes removed) names a secret.
pub fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_uppercase();
    k.ends_with("_KEY") || k.ends_with("_TOKEN") || k.contains("SECRET") || k.contains("PASSWORD")
}

/// `line` with the values of secret keys replaced by [`MASK`]. First the redactor's
/// secret rules replace what they recognise by `[REDACTED:<kind>]`: values under keys
/// this module's rule misses (`AWS_BEARER_TOKEN_BEDROCK`, `apiKey`), a proxy URL's
/// password, a `Bearer` token in custom headers.
pub fn mask_secrets(line: &str) -> String {
    let mut redacted = line.to_string();
    for rule in secrets::RULES.iter() {
        redacted = secrets::apply(rule, &redacted, &mut |_, _| {});
    }
    let line = redacted.as_str();
    PAIR.replace_all(line, |c: &Captures| {
        let key = c["key"].trim_matches(|ch| ch == '"' || ch == '\'');
        let q = &c["val"][..1];
        if is_secret_key(key) {
            format!("{}{}{q}{MASK}{q}", &c["key"], &c["colon"])
        } else {
            c[0].to_string()
        }
    })
    .into_owned()
}

/// `diff` (a unified diff of one file) with every file line masked ([`mask_secrets`]) and
/// made terminal-safe. The two header lines and the `@@` and `\ No newline` lines are
/// mcplogs' own and stay as they are.
pub fn for_display(diff: &str) -> String {
    let mut out = String::with_capacity(diff.len());
    for (i, line) in diff.split_inclusive('\n').enumerate() {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let own = i < 2 || body.starts_with("@@") || body.starts_with('\\');
        match body.chars().next() {
            Some(sign @ (' ' | '-' | '+')) if !own => {
                out.push(sign);
                out.push_str(&terminal_safe(&mask_secrets(&body[1..]), true));
            }
            _ => out.push_str(body),
        }
        if line.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_keys() {
        for k in [
            "ANTHROPIC_API_KEY",
            "gh_token",
            "MY_SECRET_X",
            "db_password",
            "secret",
        ] {
            assert!(is_secret_key(k), "{k}");
        }
        for k in ["MCP_PROTOCOL_NEGOTIATION", "KEYBOARD", "model", "TOKENS"] {
            assert!(!is_secret_key(k), "{k}");
        }
    }

    #[test]
    fn masks_values_of_secret_keys_only() {
        assert_eq!(
            mask_secrets(r#"    "ANTHROPIC_API_KEY": "sk-ant-123","#),
            r#"    "ANTHROPIC_API_KEY": "********","#
        );
        assert_eq!(mask_secrets(r#"  "model": "opus""#), r#"  "model": "opus""#);
        assert_eq!(
            mask_secrets(r#"{"A_TOKEN":"x\"y", "B": "z"}"#),
            r#"{"A_TOKEN":"********", "B": "z"}"#
        );
        assert_eq!(
            mask_secrets("  db_password: 'hunter2',"),
            "  db_password: '********',"
        );
        assert_eq!(mask_secrets(r#""X_KEY": "it's""#), r#""X_KEY": "********""#);
    }

    #[test]
    fn diff_shows_only_changed_lines_with_masked_context() {
        // What settings::diff::unified makes of adding the key next to a token.
        let raw = "--- s.json\n+++ s.json\n@@ -1,5 +1,6 @@\n {\n   \"env\": {\n+    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n     \"GH_TOKEN\": \"ghp_secret\"\n   }\n }\n";
        let d = for_display(raw);
        assert_eq!(
            d,
            "--- s.json\n+++ s.json\n@@ -1,5 +1,6 @@\n {\n   \"env\": {\n+    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n     \"GH_TOKEN\": \"********\"\n   }\n }\n"
        );
        assert!(!d.contains("ghp_secret"));
    }

    #[test]
    fn secrets_under_other_keys_are_redacted_too() {
        assert_eq!(
            mask_secrets(r#"    "AWS_BEARER_TOKEN_BEDROCK": "abcdefghijklmnop","#),
            r#"    "AWS_BEARER_TOKEN_BEDROCK": "[REDACTED:secret]","#
        );
        assert_eq!(
            mask_secrets(r#"    "HTTPS_PROXY": "http://bob:hunter2@proxy:3128","#),
            r#"    "HTTPS_PROXY": "http://[REDACTED:url-credentials]@proxy:3128","#
        );
        assert_eq!(
            mask_secrets(
                r#"  "ANTHROPIC_CUSTOM_HEADERS": "X-Trace: 1, Authorization: Bearer abcdefgh1234""#
            ),
            r#"  "ANTHROPIC_CUSTOM_HEADERS": "X-Trace: 1, Authorization: Bearer [REDACTED:authorization]""#
        );
        // Not secrets: numbers under a TOKENS key, the key mcplogs sets.
        for line in [
            r#"    "MAX_THINKING_TOKENS": "31999","#,
            r#"    "MCP_PROTOCOL_NEGOTIATION": "legacy""#,
        ] {
            assert_eq!(mask_secrets(line), line);
        }
    }

    #[test]
    fn file_lines_are_escaped_and_own_lines_kept() {
        // settings::diff::unified(Some("{\"a\": \"\u{1b}[2J\"}"), Some("{}\n"), "-- x")
        let raw = "--- -- x\n+++ -- x\n@@ -1 +1 @@\n-{\"a\": \"\u{1b}[2J\"}\n\\ No newline at end of file\n+{}\n";
        let d = for_display(raw);
        assert_eq!(
            d,
            "--- -- x\n+++ -- x\n@@ -1 +1 @@\n-{\"a\": \"\\u{1b}[2J\"}\n\\ No newline at end of file\n+{}\n"
        );
    }
}
