//! A settings diff made fit to show (`settings::diff::unified` makes it). Secret values
//! (keys like `*_KEY`, `*_TOKEN`, `*SECRET*`, `*PASSWORD*`) are masked on every line
//! shown: a diff ends up in terminals, screenshots and bug reports. The key mcplogs sets
//! is never one of them. Control characters in the file's lines are escaped.

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::configured::ConfiguredSecrets;
use super::{Redactor, RedactorBuilder};
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

/// `line` with the values of secret keys replaced by [`MASK`]. First the redactor
/// replaces what its rules recognise by `[REDACTED:<kind>]`: values under keys this
/// module's rule misses (`AWS_BEARER_TOKEN_BEDROCK`, `apiKey`, `MYSQL_PWD`, `PGPASS`,
/// `AUTH`, `PASS`), a proxy URL's password, a `Bearer` token in custom headers.
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

/// `diff` (a unified diff of one file) with every file line masked and made
/// terminal-safe. The two header lines and the `@@` and `\ No newline` lines are
/// mcplogs' own: only secrets in them (in the file's path) are hidden.
///
/// The old side (context and removed lines) and the new side (context and added lines)
/// are each redacted as one text, so a value on the line after its key (`"DB_PASSWORD":`
/// then `"hunter2"`) is still seen; the redactor keeps line breaks, so each line is then
/// taken back from its side by position.
pub fn for_display(diff: &str) -> String {
    for_display_with(diff, &ConfiguredSecrets::new())
}

/// [`for_display`] that also hides every value of `configured` (the values the
/// configuration marks as secret, as `scan` hides them): a file written on one line
/// (`~/.claude.json`, a compact `.mcp.json`) shows every server's `env` and `headers`
/// in the one line the diff changes, and a pretty one may in its context lines.
pub fn for_display_with(diff: &str, configured: &ConfiguredSecrets) -> String {
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let own = |i: usize, body: &str| i < 2 || body.starts_with("@@") || body.starts_with('\\');
    let mut old_side: Vec<&str> = Vec::new();
    let mut new_side: Vec<&str> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let body = line.strip_suffix('\n').unwrap_or(line);
        if own(i, body) {
            continue;
        }
        match body.chars().next() {
            Some(' ') => {
                old_side.push(&body[1..]);
                new_side.push(&body[1..]);
            }
            Some('-') => old_side.push(&body[1..]),
            Some('+') => new_side.push(&body[1..]),
            _ => {}
        }
    }
    let (old_text, new_text) = (old_side.join("\n"), new_side.join("\n"));
    let r = {
        let mut b = RedactorBuilder::new();
        b.learn_secrets(&old_text);
        b.learn_secrets(&new_text);
        b.learn_configured_secrets(configured);
        b.build()
    };
    let split = |t: &str, n: usize| {
        let v: Vec<String> = r.redact(t).split('\n').map(str::to_string).collect();
        (v.len() == n).then_some(v)
    };
    let red_old = split(&old_text, old_side.len());
    let red_new = split(&new_text, new_side.len());
    let (mut oi, mut ni) = (0, 0);
    let mut out = String::with_capacity(diff.len());
    for (i, line) in lines.iter().enumerate() {
        let body = line.strip_suffix('\n').unwrap_or(line);
        match body.chars().next() {
            Some(sign @ (' ' | '-' | '+')) if !own(i, body) => {
                let side = if sign == '+' {
                    ni += 1;
                    red_new.as_ref().and_then(|v| v.get(ni - 1))
                } else {
                    oi += 1;
                    if sign == ' ' {
                        ni += 1;
                    }
                    red_old.as_ref().and_then(|v| v.get(oi - 1))
                };
                let shown = match side {
                    Some(l) => mask_pairs(l),
                    None => mask_pairs(&r.redact(&mask_secrets(&body[1..]))),
                };
                out.push(sign);
                out.push_str(&terminal_safe(&shown, true));
            }
            // mcplogs' own lines; the headers hold the file's path, which can hold a
            // secret (a project folder named after a token): the secret rules see them.
            _ => out.push_str(&terminal_safe(
                &r.redact(&Redactor::secrets_only([body]).redact(body)),
                true,
            )),
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
    fn values_on_the_line_after_their_key_and_new_key_shapes() {
        // What settings::diff::unified makes of adding the key above a password whose
        // value sits on the next line.
        let d = for_display(
            "--- s.json\n+++ s.json\n@@ -1,8 +1,9 @@\n {\n   \"env\": {\n+    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n     \"DB_PASSWORD\":\n       \"hunter2x\",\n     \"MYSQL_PWD\": \"pw1\",\n     \"PGPASS\": \"pw2\"\n   }\n }\n",
        );
        for secret in ["hunter2x", "pw1", "pw2"] {
            assert!(!d.contains(secret), "{secret} in\n{d}");
        }
        assert!(
            d.contains("\"MYSQL_PWD\": \"********\"")
                || d.contains("\"MYSQL_PWD\": \"[REDACTED:secret]\""),
            "{d}"
        );
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

    /// A file written on one line (`~/.claude.json` as some tools write it): the line
    /// the fix changes holds every server's `env` and `headers`; the values the
    /// configuration marks as secret are hidden as `scan` hides them, on both sides.
    #[test]
    fn configured_secrets_on_a_compact_line_are_hidden() {
        let raw = "--- c.json\n+++ c.json\n@@ -1 +1 @@\n-{\"disabledMcpjsonServers\":[\"off\"],\"mcpServers\":{\"loc\":{\"command\":\"x\",\"env\":{\"FOO_SETTING\":\"Xr7Tb2Qm9Kd4Lp6Vn3Ws\"},\"headers\":{\"X-Tenant\":\"tenantsecretword\"}}}}\n+{\"disabledMcpjsonServers\":[],\"mcpServers\":{\"loc\":{\"command\":\"x\",\"env\":{\"FOO_SETTING\":\"Xr7Tb2Qm9Kd4Lp6Vn3Ws\"},\"headers\":{\"X-Tenant\":\"tenantsecretword\"}}}}\n";
        // without them: the rules alone do not know the value (the finding)
        assert!(for_display(raw).contains("Xr7Tb2Qm9Kd4Lp6Vn3Ws"));
        let mut c = ConfiguredSecrets::new();
        c.add("FOO_SETTING", "Xr7Tb2Qm9Kd4Lp6Vn3Ws");
        let d = for_display_with(raw, &c);
        assert!(!d.contains("Xr7Tb2Qm9Kd4Lp6Vn3Ws"), "{d}");
        assert_eq!(d.matches("[REDACTED:config]").count(), 2, "{d}");
        assert!(d.contains("-{\"disabledMcpjsonServers\":[\"off\"]"), "{d}");
        assert!(
            d.starts_with("--- c.json\n+++ c.json\n@@ -1 +1 @@\n"),
            "{d}"
        );
    }

    #[test]
    fn file_lines_are_escaped_and_own_lines_kept() {
        // settings::diff::unified(Some("{\"a\": \"\u{1b}[2J\"}"), Some("{}\n"), "-- x")
        let raw = "--- -- x\n+++ -- x\n@@ -1 +1 @@\n-{\"a\": \"\u{1b}[2J\"}\n\\ No newline at end of file\n+{}\n";
        let d = for_display(raw);
        assert_eq!(
            d,
            "--- -- x\n+++ -- x\n@@ -1 +1 @@\n-{\"a\": \"\\x1b[2J\"}\n\\ No newline at end of file\n+{}\n"
        );
    }

    #[test]
    fn a_removed_value_on_the_line_after_its_key_is_masked() {
        let d = for_display(
            "--- s.json\n+++ s.json\n@@ -1,5 +1,3 @@\n {\n-  \"DB_PASSWORD\":\n-    \"hunter2x\",\n   \"x\": 1\n }\n\\ No newline at end of file\n",
        );
        assert!(!d.contains("hunter2x"), "{d}");
        assert!(d.contains("-  \"DB_PASSWORD\":\n"), "{d}");
        assert!(
            d.starts_with("--- s.json\n+++ s.json\n@@ -1,5 +1,3 @@\n {\n"),
            "{d}"
        );
        assert!(d.ends_with("\n }\n\\ No newline at end of file\n"), "{d}");
    }
}
