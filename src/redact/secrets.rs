//! The secret patterns, in the order they run. Each rule names the part to hide (the
//! `s` group); the rest of the match (a scheme, a key name, a quote) stays visible so
//! the reader still sees what kind of value was there.

use std::sync::LazyLock;

use regex::{Captures, Regex};

/// One secret pattern. `keep` may veto a match (a key that does not look secret, a
/// value that is a number), in which case the text is left as it was.
pub struct Rule {
    pub kind: &'static str,
    pub regex: Regex,
    pub keep: fn(&Captures) -> bool,
}

fn always(_: &Captures) -> bool {
    false
}

fn rule(kind: &'static str, pattern: &str, keep: fn(&Captures) -> bool) -> Rule {
    Rule {
        kind,
        regex: Regex::new(pattern).expect("secret pattern compiles"),
        keep,
    }
}

/// Whether a key name says its value is a secret: `*_KEY`, `apiKey`, `*TOKEN*`,
/// `*SECRET*`, `*PASSWORD*`, `*PASSWD*`, `*CREDENTIAL*`, `*PASSPHRASE*`.
pub fn key_looks_secret(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    if [
        "token",
        "secret",
        "password",
        "passwd",
        "credential",
        "passphrase",
    ]
    .iter()
    .any(|w| lower.contains(w))
    {
        return true;
    }
    // `*_KEY`, `api-key`, `apiKey`: "key" as its own word at the end, never `monkey`.
    let Some(stem) = key.len().checked_sub(3).map(|i| &key[..i]) else {
        return false;
    };
    if !lower.ends_with("key") || !key.is_char_boundary(stem.len()) {
        return false;
    }
    stem.is_empty()
        || stem.ends_with(['_', '-', '.'])
        || key[stem.len()..].starts_with('K')
        || lower.ends_with("apikey")
}

/// Values that are not secrets even under a secret-looking key: numbers, booleans,
/// null, nothing, or a value an earlier rule already replaced.
fn value_is_harmless(v: &str) -> bool {
    v.is_empty()
        || v.starts_with("[REDACTED")
        || v.bytes().all(|b| b.is_ascii_digit())
        || ["true", "false", "null", "undefined"].contains(&v.to_ascii_lowercase().as_str())
}

fn keep_pair(c: &Captures) -> bool {
    !key_looks_secret(&c["k"]) || value_is_harmless(&c["s"])
}

/// `KEY: value` only for keys that look like identifiers (`X-Api-Key`, `API_TOKEN`), so
/// prose such as "invalid token: expected ..." is left alone.
fn keep_colon_pair(c: &Captures) -> bool {
    let k = &c["k"];
    !(k.contains(['_', '-'])) || keep_pair(c)
}

/// The rules, in order: credentials with structure first (URLs, headers), then the
/// provider token formats (most specific first: `sk-ant-` before `sk-`), then secret
/// key/value pairs, then e-mail addresses.
pub static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        rule(
            "url-credentials",
            r#"(?i)\b[a-z][a-z0-9+.-]*://(?P<s>[^\s/?#@"'\\<>]+)@"#,
            always,
        ),
        rule(
            "authorization",
            r#"(?i)\bauthorization\\*"?\s*[:=]\s*\\*"?(?:(?:bearer|basic|token|digest)\s+)?(?P<s>[^\s"'\\,;}\])]+)"#,
            |c| c["s"].starts_with("[REDACTED"),
        ),
        rule(
            "bearer-token",
            r"(?i)\bbearer\s+(?P<s>[A-Za-z0-9._~+/=-]{8,})",
            always,
        ),
        rule(
            "anthropic-api-key",
            r"\b(?P<s>sk-ant-[A-Za-z0-9_-]{8,})",
            always,
        ),
        rule("openai-api-key", r"\b(?P<s>sk-[A-Za-z0-9_-]{16,})", always),
        rule(
            "github-token",
            r"\b(?P<s>gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
            always,
        ),
        rule(
            "slack-token",
            r"\b(?P<s>xox[abposr]-[A-Za-z0-9-]{10,})",
            always,
        ),
        rule(
            "aws-access-key",
            r"\b(?P<s>(?:AKIA|ASIA)[A-Z0-9]{16})\b",
            always,
        ),
        rule("google-api-key", r"\b(?P<s>AIza[0-9A-Za-z_-]{35,})", always),
        // "KEY": "value" (also when the JSON is itself escaped inside a message).
        rule(
            "secret",
            r#"\\*"(?P<k>[A-Za-z0-9_.-]+)\\*"\s*:\s*\\*"(?P<s>[^"\\]*)\\*""#,
            keep_pair,
        ),
        // KEY=value, as in environments and command lines.
        rule(
            "secret",
            r#"\b(?P<k>[A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*["']?(?P<s>[^\s"'&,;]+)"#,
            keep_pair,
        ),
        // KEY: value, as in headers and YAML.
        rule(
            "secret",
            r#"\b(?P<k>[A-Za-z_][A-Za-z0-9_.-]*)\s*:\s*["']?(?P<s>[^\s"'&,;]+)"#,
            keep_colon_pair,
        ),
        rule(
            "email",
            r"(?P<s>\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})\b",
            always,
        ),
    ]
});

/// Applies one rule; `found` receives each hidden value with its kind.
pub fn apply(rule: &Rule, text: &str, found: &mut dyn FnMut(&str, &'static str)) -> String {
    rule.regex
        .replace_all(text, |c: &Captures| {
            let whole = c.get(0).expect("match");
            if (rule.keep)(c) {
                return whole.as_str().to_string();
            }
            let s = c.name("s").expect("every rule has an s group");
            found(s.as_str(), rule.kind);
            format!(
                "{}[REDACTED:{}]{}",
                &text[whole.start()..s.start()],
                rule.kind,
                &text[s.end()..whole.end()]
            )
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_key_names() {
        for k in [
            "API_KEY",
            "ANTHROPIC_API_KEY",
            "apiKey",
            "x-api-key",
            "GITHUB_TOKEN",
            "accessToken",
            "CLIENT_SECRET",
            "DB_PASSWORD",
            "passwd",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "key",
        ] {
            assert!(key_looks_secret(k), "{k}");
        }
        for k in [
            "monkey",
            "hasTools",
            "cwd",
            "PATH",
            "HOME",
            "resultType",
            "keyboard",
            "PWD",
        ] {
            assert!(!key_looks_secret(k), "{k}");
        }
    }
}
