//! Any other key of the settings' `env` block (`MCP_TIMEOUT`, `MCP_CONNECT_TIMEOUT_MS`),
//! read from the same layers, in the same precedence, with the same strictness as
//! `MCP_PROTOCOL_NEGOTIATION` ([`super::layers`]): a file Claude Code ignores (not
//! strict JSON, unreadable) sets nothing, and the environment comes last. Which of the
//! values a build then uses is the model's business (`claude_code::lifecycle`).

use std::path::{Path, PathBuf};

use super::json::Doc;
use super::layers::{LayerKind, Sources};
use super::strictness::{self, Strictness};
use crate::safe_read::{Follow, SETTINGS_MAX_BYTES, read_regular};

/// What one layer says about one `env` key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvValue {
    pub kind: LayerKind,
    /// `None` for the environment.
    pub path: Option<PathBuf>,
    /// The value as written (a value that is not a JSON string as its JSON text);
    /// `None`: the layer does not set it, or Claude Code does not read the layer.
    pub value: Option<String>,
}

impl EnvValue {
    /// A project layer: `.claude/settings.json` or `.claude/settings.local.json`.
    pub fn is_project(&self) -> bool {
        matches!(self.kind, LayerKind::Project | LayerKind::Local)
    }

    /// `user (/home/u/.claude/settings.json)`, or `environment`.
    pub fn describe(&self) -> String {
        match &self.path {
            Some(p) => format!("{} ({})", self.kind.as_str(), p.display()),
            None => self.kind.as_str().to_string(),
        }
    }
}

/// Every layer's value of `env.<key>`, highest precedence first, the environment
/// (`environment`, the value Claude Code would inherit) last.
pub fn env_values(sources: &Sources, key: &str, environment: Option<String>) -> Vec<EnvValue> {
    let mut out: Vec<EnvValue> = sources
        .files()
        .into_iter()
        .map(|(kind, path)| EnvValue {
            kind,
            value: read_key(&path, key),
            path: Some(path),
        })
        .collect();
    out.push(EnvValue {
        kind: LayerKind::Environment,
        path: None,
        value: environment,
    });
    out
}

/// `env.<key>` of each of `keys` in a settings file Claude Code reads (strict JSON),
/// the file read once.
pub fn read_keys(path: &Path, keys: &[&str]) -> Vec<Option<String>> {
    let doc = read_regular(path, SETTINGS_MAX_BYTES, Follow::Links)
        .ok()
        .flatten()
        .and_then(|f| String::from_utf8(f.bytes).ok());
    let Some(text) = doc else {
        return vec![None; keys.len()];
    };
    match strictness::check(&text) {
        Strictness::Strict(doc) => keys.iter().map(|k| env_in(&doc, k)).collect(),
        _ => vec![None; keys.len()],
    }
}

/// `env.<key>` of a settings file Claude Code reads (strict JSON), through symlinks.
fn read_key(path: &Path, key: &str) -> Option<String> {
    env_keys_in_file(path, &[key]).pop().map(|(_, v)| v)
}

/// `env.<key>` for each of `keys` that a settings file Claude Code reads (strict JSON)
/// sets, in the order of `keys`; the file read once, through symlinks. A file Claude
/// Code ignores (not strict JSON, unreadable, absent) sets nothing.
pub fn env_keys_in_file<'k>(path: &Path, keys: &[&'k str]) -> Vec<(&'k str, String)> {
    let Some(bytes) = read_regular(path, SETTINGS_MAX_BYTES, Follow::Links)
        .ok()
        .flatten()
        .map(|r| r.bytes)
    else {
        return Vec::new();
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Vec::new();
    };
    keys_in_text(&text, keys)
}

/// `env.<key>` for each of `keys` that a settings text Claude Code reads (strict JSON)
/// sets, in the order of `keys`; none from a text it ignores.
fn keys_in_text<'k>(text: &str, keys: &[&'k str]) -> Vec<(&'k str, String)> {
    match strictness::check(text) {
        Strictness::Strict(doc) => keys
            .iter()
            .filter_map(|k| Some((*k, env_in(&doc, k)?)))
            .collect(),
        _ => Vec::new(),
    }
}

/// [`env_keys_in_file`] for a check that must fail closed (`export`'s guard against a
/// project's `env`, which Claude Code passes on to the hooks it runs): `Err` with why
/// when the file is there but mcplogs cannot read it in full (larger than it reads, not
/// a regular file, unreadable), as Claude Code may still read it (the size it stops at is
/// not known for every build: docs/claude-code.md). A file that is not UTF-8 is read
/// with each invalid byte as U+FFFD, as Claude Code reads it (observed on 2.1.288 and
/// 2.1.336: its `env` reaches a hook; it was taken as setting nothing, helper-92 #1).
pub fn env_keys_in_file_or_unknown<'k>(
    path: &Path,
    keys: &[&'k str],
) -> Result<Vec<(&'k str, String)>, String> {
    let bytes = match read_regular(path, SETTINGS_MAX_BYTES, Follow::Links) {
        Ok(None) => return Ok(Vec::new()),
        Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => return Ok(Vec::new()),
        Err(e) => return Err(e.to_string()),
        Ok(Some(r)) => r.bytes,
    };
    Ok(keys_in_text(&String::from_utf8_lossy(&bytes), keys))
}

/// Every `env` variable a settings file Claude Code reads (strict JSON) sets, with its
/// value (a value that is not a string as its JSON text), each key once (the last of
/// duplicates, as `JSON.parse` keeps), in the file's order; the file read once, through
/// symlinks. A file Claude Code ignores sets nothing.
pub fn all_env_in_file(path: &Path) -> Vec<(String, String)> {
    let Some(text) = read_regular(path, SETTINGS_MAX_BYTES, Follow::Links)
        .ok()
        .flatten()
        .and_then(|f| String::from_utf8(f.bytes).ok())
    else {
        return Vec::new();
    };
    let Strictness::Strict(doc) = strictness::check(&text) else {
        return Vec::new();
    };
    let Some(members) = doc
        .last_member(doc.root, "env")
        .and_then(|env| doc.members(env.value))
    else {
        return Vec::new();
    };
    // the last of each key, in the order of those: the members walked from the end, each
    // key kept at its first sighting (a retain a member was quadratic: a cloned
    // repository's file of a million keys held a scan for hours)
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut out: Vec<(String, String)> = Vec::new();
    for m in members.iter().rev() {
        if seen.insert(m.key.as_str()) {
            let v = doc
                .string(m.value)
                .unwrap_or_else(|| doc.raw(m.value).to_string());
            out.push((m.key.clone(), v));
        }
    }
    out.reverse();
    out
}

/// `env.<key>` of a parsed settings file (the last of duplicate keys, as `JSON.parse`
/// keeps); a value that is not a string as its JSON text.
pub fn env_in(doc: &Doc, key: &str) -> Option<String> {
    env_entry(doc, key).map(|e| e.unwrap_or_else(|e| e.json))
}

/// An `env` value that is not a JSON string (a number, `true`, an object...).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a string: {json}")]
pub struct NotAString {
    /// The value's JSON text, as written.
    pub json: String,
}

/// `env.<key>`, the last of duplicate keys (as `JSON.parse` keeps): `Ok` a string's
/// value, `Err` anything else, with its JSON text. Every `env` key is read through this.
pub fn env_entry(doc: &Doc, key: &str) -> Option<Result<String, NotAString>> {
    let env = doc.last_member(doc.root, "env")?;
    let m = doc.last_member(env.value, key)?;
    Some(doc.string(m.value).ok_or_else(|| NotAString {
        json: doc.raw(m.value).to_string(),
    }))
}

/// The value of `env.<key>` Claude Code uses (the highest layer that sets it, the
/// environment last) and the layer that sets it (`user (<file>)`, `environment`): how
/// `MCP_SDK_GENERATION` and the flags' switches are resolved, for `probe` and `scan`
/// alike.
pub fn effective_value(sources: &Sources, key: &str) -> Option<(String, String)> {
    // the environment is a layer on this machine only (`--home`: not known here)
    let environment = sources
        .environment
        .then(|| std::env::var(key).ok())
        .flatten();
    env_values(sources, key, environment)
        .into_iter()
        .find_map(|l| Some((l.value.clone()?, l.describe())))
}

/// The feature flags that pick the handshake, as cached in `claude_json` (`None`: absent
/// or unreadable), and the variable of `sources` or the environment that turns Claude
/// Code's flags off ([`crate::claude_code::flags::flags_off_by`]): the one resolution
/// `probe` predicts with and `scan` explains with.
pub fn cached_flags(
    sources: &Sources,
    claude_json: Option<&serde_json::Value>,
) -> crate::claude_code::flags::CachedFlags {
    let mut f = crate::claude_code::flags::CachedFlags::from_claude_json(claude_json);
    f.off_by = crate::claude_code::flags::flags_off_by(|var| effective_value(sources, var));
    f
}

/// [`cached_flags`] with the `.claude.json` of `home` (`None`: this machine's), as
/// `CLAUDE_CONFIG_DIR` places it.
pub fn cached_flags_in(
    sources: &Sources,
    home: Option<&Path>,
) -> (
    Option<serde_json::Value>,
    crate::claude_code::flags::CachedFlags,
) {
    let path = match home {
        Some(h) => crate::claude_code::paths::global_config(Some(h), &|k| std::env::var_os(k)),
        None => crate::claude_code::paths::global_config_here(),
    };
    let doc = path.and_then(|p| crate::claude_code::config::read_config_file(&p));
    let flags = cached_flags(sources, doc.as_ref());
    (doc, flags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claude_code::paths::Os;
    use crate::test_support::env_of;

    /// Each key once, the last of duplicates, in the order of those (as `JSON.parse`
    /// keeps them); a file of many keys is read in one pass (checked by the count of
    /// keys a large file gives, not by time).
    #[test]
    #[allow(clippy::disallowed_methods)] // writes its own test file
    fn every_key_once_the_last_of_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("settings.json");
        std::fs::write(&f, r#"{"env": {"A": "1", "B": "2", "A": "3", "C": 4}}"#).unwrap();
        assert_eq!(
            all_env_in_file(&f),
            [("B", "2"), ("A", "3"), ("C", "4")]
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .to_vec()
        );
        let many: Vec<String> = (0..200_000).map(|i| format!("\"K{i}\": \"v\"")).collect();
        std::fs::write(&f, format!("{{\"env\": {{{}}}}}", many.join(","))).unwrap();
        assert_eq!(all_env_in_file(&f).len(), 200_000);
    }

    #[test]
    fn every_layer_in_precedence_order_and_ignored_files_set_nothing() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        std::fs::write(
            home.path().join(".claude/settings.json"),
            r#"{"env": {"MCP_TIMEOUT": "10000"}}"#,
        )
        .unwrap();
        std::fs::create_dir_all(project.path().join(".claude")).unwrap();
        // JSON5, not strict JSON: Claude Code ignores the whole file
        std::fs::write(
            project.path().join(".claude/settings.json"),
            "{env: {MCP_TIMEOUT: '5'},}",
        )
        .unwrap();
        std::fs::write(
            project.path().join(".claude/settings.local.json"),
            r#"{"env": {"MCP_TIMEOUT": 60000}}"#,
        )
        .unwrap();
        let mut s = Sources::new(Os::Linux, Some(home.path()), project.path(), &env_of(&[]));
        s.managed_dir = home.path().join("managed");
        let v = env_values(&s, "MCP_TIMEOUT", Some("3000".into()));
        let got: Vec<(LayerKind, Option<&str>, bool)> = v
            .iter()
            .map(|e| (e.kind, e.value.as_deref(), e.is_project()))
            .collect();
        assert_eq!(
            got,
            vec![
                (LayerKind::Managed, None, false),
                (LayerKind::Local, Some("60000"), true),
                (LayerKind::Project, None, true),
                (LayerKind::User, Some("10000"), false),
                (LayerKind::Environment, Some("3000"), false),
            ]
        );
        assert_eq!(v[4].describe(), "environment");
    }
}
