//! The unified diff shown before every write. Secret values (keys like `*_KEY`,
//! `*_TOKEN`, `*SECRET*`, `*PASSWORD*`) are masked on every line shown: a diff ends up in
//! terminals, screenshots and bug reports. The key mcplogs sets is never one of them.

use std::sync::LazyLock;

use regex::{Captures, Regex};
use similar::{ChangeTag, TextDiff};

use crate::redact::Redactor;
use crate::sanitize;

/// Lines of context around each change, as `diff -u`.
const CONTEXT: usize = 3;

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
/// this module's rule misses (`AWS_BEARER_TOKEN_BEDROCK`, `apiKey`, `MYSQL_PWD`), a
/// proxy URL's password, a `Bearer` token in custom headers.
pub fn mask_secrets(line: &str) -> String {
    mask_pairs(&Redactor::secrets_only([line]).redact(line))
}

/// The [`MASK`] step alone, on text the redactor already saw.
fn mask_pairs(line: &str) -> String {
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

/// The lines of `text` after redaction of the whole text (so a value on the line after
/// its key, or a key split over lines, is still seen), one per line of `text`.
fn redacted_lines(r: &Redactor, text: Option<&str>) -> Option<Vec<String>> {
    let text = text?;
    let red = r.redact(text);
    let lines: Vec<String> = red.split_inclusive('\n').map(str::to_string).collect();
    (lines.len() == text.split_inclusive('\n').count()).then_some(lines)
}

/// A unified diff from `old` (`None`: the file does not exist) to `new` (`None`: the
/// file is removed), labelled with `path`. Empty when nothing changes.
pub fn unified(old: Option<&str>, new: Option<&str>, path: &str) -> String {
    let (a, b) = (old.unwrap_or(""), new.unwrap_or(""));
    if old == new {
        return String::new();
    }
    let redactor = Redactor::secrets_only(old.into_iter().chain(new));
    let (red_old, red_new) = (
        redacted_lines(&redactor, old),
        redacted_lines(&redactor, new),
    );
    let diff = TextDiff::from_lines(a, b);
    let mut out = String::new();
    out.push_str(&format!(
        "--- {}\n+++ {}\n",
        if old.is_some() { path } else { "/dev/null" },
        if new.is_some() { path } else { "/dev/null" },
    ));
    for hunk in diff.unified_diff().context_radius(CONTEXT).iter_hunks() {
        out.push_str(&format!("{}\n", hunk.header()));
        for change in hunk.iter_changes() {
            let sign = match change.tag() {
                ChangeTag::Equal => ' ',
                ChangeTag::Delete => '-',
                ChangeTag::Insert => '+',
            };
            let redacted = match change.tag() {
                ChangeTag::Insert => change.new_index().and_then(|i| red_new.as_ref()?.get(i)),
                _ => change.old_index().and_then(|i| red_old.as_ref()?.get(i)),
            };
            let shown = match redacted {
                Some(l) => mask_pairs(l),
                None => mask_secrets(change.value()),
            };
            // CRLF files: show the line, not a stray carriage return.
            let line = shown.trim_end_matches('\n').trim_end_matches('\r');
            out.push(sign);
            out.push_str(&sanitize::multiline(line));
            out.push('\n');
            if change.missing_newline() {
                out.push_str("\\ No newline at end of file\n");
            }
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
        let old = "{\n  \"env\": {\n    \"GH_TOKEN\": \"ghp_secret\"\n  }\n}\n";
        let new = "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n    \"GH_TOKEN\": \"ghp_secret\"\n  }\n}\n";
        let d = unified(Some(old), Some(new), "s.json");
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
    fn new_and_removed_files() {
        let d = unified(None, Some("{}\n"), "s.json");
        assert!(d.starts_with("--- /dev/null\n+++ s.json\n"));
        assert!(d.ends_with("+{}\n"));
        let d = unified(Some("{}"), None, "s.json");
        assert!(d.contains("+++ /dev/null\n"));
        assert!(d.contains("-{}\n\\ No newline at end of file\n"));
        assert_eq!(unified(Some("x"), Some("x"), "s"), "");
    }

    #[test]
    fn crlf_lines_print_without_carriage_returns() {
        let d = unified(Some("{\r\n}\r\n"), Some("{\r\n  \"a\": 1\r\n}\r\n"), "s");
        assert!(!d.contains('\r'));
        assert!(d.contains("+  \"a\": 1\n"));
    }
}
