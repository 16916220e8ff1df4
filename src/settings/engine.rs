//! The fix engine: every cause mcplogs can fix with a local file declares its change
//! ([`Change`]: the file, the key path, the value or how it merges with what is there,
//! the settings layer that must hold it, the builds it was observed to work on), and a
//! plan is the changes grouped by file ([`plan_file`]): one diff, one backup and one
//! undo record a file, written through the same path as every settings change
//! (`fix::write_with_undo`: backup with the file's owner and at most its bits,
//! atomic swap that refuses a file changed since it was read, symlinks written through
//! to their target, hard links and non-regular files refused, comments refused).
//!
//! The legacy setting alone in a file keeps its own planner ([`super::fix::plan_fix`],
//! with `--rewrite-strict`); mixed with another change in the same file it is one more
//! [`Edit::Set`] here.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::diff;
use super::edit::path::{first_missing, set_at, value_at};
use super::fix::{AppliedFix, Written, write_with_undo};
use super::strictness::{self, Strictness};
use super::undo;
use super::write::{FileSnapshot, Fs, RealFs};
use super::{SettingsError, TextProblem};
use crate::json_doc::KeyChangeRecord;

/// A cause with a local fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FixCause {
    /// `MCP_PROTOCOL_NEGOTIATION=legacy` (the modern era rejects the server's lists).
    Negotiation,
    /// A stdio server's command is not on the PATH Claude Code gets: its absolute path.
    CommandPath,
    /// A server slower than `MCP_TIMEOUT`: a longer one.
    Timeout,
    /// A `.mcp.json` server in `disabledMcpjsonServers`: moved to the enabled list.
    DisabledMcpjson,
    /// A server that speaks only the 2026-07-28 protocol, met with the legacy handshake:
    /// `MCP_PROTOCOL_NEGOTIATION=auto` in its project's `.claude/settings.local.json`.
    ModernNegotiation,
    /// An HTTPS server whose certificate chain Claude Code does not trust:
    /// `NODE_EXTRA_CA_CERTS` naming a PEM file that verifies it (checked by a handshake,
    /// `settings::ca`). Never `NODE_TLS_REJECT_UNAUTHORIZED`.
    TrustedCa,
    /// A proxy that refuses the server's host: the host added to `NO_PROXY`, merged with
    /// the value in effect (every host already there kept; the proxy itself untouched).
    NoProxy,
}

impl FixCause {
    /// The name in text and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            FixCause::Negotiation => "legacy-negotiation",
            FixCause::CommandPath => "command-path",
            FixCause::Timeout => "longer-timeout",
            FixCause::DisabledMcpjson => "enable-mcpjson-server",
            FixCause::ModernNegotiation => "modern-negotiation",
            FixCause::TrustedCa => "trusted-ca",
            FixCause::NoProxy => "no-proxy",
        }
    }

    /// The Claude Code builds on which the change was observed to make a failing server
    /// connect with its tools (docs/claude-code.md, "Fixes proven on real builds";
    /// tests/e2e/fixes.py and run.py run them). Between two of them `mcplogs fix` offers
    /// the fix (`advice::fixes::offered_on`); outside, it says so and writes nothing.
    pub fn observed_on(self) -> &'static [&'static str] {
        match self {
            FixCause::Negotiation => &["2.1.288", "2.1.300", "2.1.332"],
            FixCause::CommandPath => &[
                "2.1.287", "2.1.288", "2.1.300", "2.1.310", "2.1.332", "2.1.336",
            ],
            FixCause::Timeout => &[
                "2.1.287", "2.1.288", "2.1.300", "2.1.310", "2.1.332", "2.1.336",
            ],
            FixCause::DisabledMcpjson => &[
                "2.1.287", "2.1.288", "2.1.300", "2.1.310", "2.1.332", "2.1.336",
            ],
            FixCause::ModernNegotiation => &[
                "2.1.287", "2.1.288", "2.1.300", "2.1.310", "2.1.332", "2.1.336",
            ],
            // tests/e2e/fixes_remote.py
            FixCause::TrustedCa | FixCause::NoProxy => {
                &["2.1.287", "2.1.288", "2.1.310", "2.1.336"]
            }
        }
    }

    /// `2.1.288 to 2.1.332`, for the advice.
    pub fn observed_range(self) -> String {
        let b = self.observed_on();
        match (b.first(), b.last()) {
            (Some(f), Some(l)) if f != l => format!("{f} to {l}"),
            (Some(f), _) => (*f).to_string(),
            _ => String::new(),
        }
    }
}

/// How a change writes its key.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// `path` set to `value` (objects on the way created when missing).
    Set { path: Vec<String>, value: Value },
    /// `name` taken out of the string list at `parent` + `from` (when there) and added
    /// to the list at `parent` + `to` (created when missing): merged with what the file
    /// holds when it is written, not when it was planned. `parent` is empty for a
    /// settings file's top-level keys, `["projects", "<dir>"]` for `~/.claude.json`'s
    /// entry of a project (where Claude Code may have recorded the answer). `from`
    /// `None`: only added (an approval in another file than the one disabling it);
    /// `to` `None`: only taken out.
    MoveName {
        parent: Vec<String>,
        from: Option<String>,
        to: Option<String>,
        name: String,
    },
}

/// One declared change for one server.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub cause: FixCause,
    /// The server it is for, as the user knows it (`far (/home/u/proj)`).
    pub server: String,
    /// Why, in one sentence (shown above the diff).
    pub why: String,
    /// The file it writes (absolute).
    pub file: PathBuf,
    /// The layer that file is for the server's project (`user`, `local`, `claude.json`,
    /// `mcp.json`).
    pub layer: &'static str,
    pub edit: Edit,
}

/// The changes of one file, planned: nothing written yet.
#[derive(Debug, Clone, PartialEq)]
pub struct FilePlan {
    pub path: PathBuf,
    pub snapshot: FileSnapshot,
    pub new_bytes: Vec<u8>,
    /// Unified diff, lines as in the files (show it through `redact::diff::for_display`).
    pub diff: String,
    pub changes: Vec<Change>,
    /// The keys set, for the undo record.
    pub records: Vec<KeyChangeRecord>,
}

/// Reads `path` and applies `changes` to its text. `None`: the file already holds
/// every change. A file that is not strict JSON is refused (Claude Code would ignore it
/// or, for `~/.claude.json`, mcplogs would have to rewrite it whole).
pub fn plan_file(path: &Path, changes: Vec<Change>) -> Result<Option<FilePlan>, SettingsError> {
    let changes = one_per_key(changes);
    // a project's own file (by the layer it is for the server's project): no link on the
    // way from the project to it
    let project = changes
        .iter()
        .find_map(|c| super::write::project_root_for_layer(path, c.layer));
    let snapshot = FileSnapshot::read_in(path, project.as_deref())?;
    let Some((new_text, records)) = edited(path, snapshot.bytes.as_deref(), &changes)? else {
        return Ok(None);
    };
    let old_text = snapshot
        .bytes
        .as_deref()
        .map(|b| String::from_utf8_lossy(b).into_owned());
    super::fix::within_read_limit(path, &new_text, false)?;
    Ok(Some(FilePlan {
        path: path.to_path_buf(),
        diff: diff::unified(
            old_text.as_deref(),
            Some(&new_text),
            &path.display().to_string(),
        ),
        new_bytes: new_text.into_bytes(),
        snapshot,
        changes,
        records,
    }))
}

/// Whether `a` and `b` are one file: the same path, or (through a symbolic link, `..`,
/// or another spelling) the same file once their folders are resolved (a file not yet
/// there: its folder's). Two projects sharing one `.claude` folder through a link plan
/// one edit of their one `settings.local.json`.
pub fn same_file(a: &Path, b: &Path) -> bool {
    a == b || identity(a) == identity(b)
}

/// Items grouped by file, however each file is spelled ([`same_file`]), in the order
/// their files first came: each path's [`identity`] is found once and looked up in a
/// map (comparing every path with every group resolved both paths each time: on a fix
/// over thousands of projects, millions of `canonicalize` calls).
#[derive(Debug)]
pub struct ByFile<T> {
    groups: Vec<(PathBuf, T)>,
    at: std::collections::HashMap<PathBuf, usize>,
}

impl<T> Default for ByFile<T> {
    fn default() -> Self {
        ByFile {
            groups: Vec::new(),
            at: std::collections::HashMap::new(),
        }
    }
}

impl<T> ByFile<T> {
    /// The group of `path`'s file (the path as it was first given), made with `make`
    /// when there is none yet; whether it was made now.
    pub fn group(&mut self, path: &Path, make: impl FnOnce() -> T) -> (&mut (PathBuf, T), bool) {
        let id = identity(path);
        let (i, made) = match self.at.get(&id) {
            Some(&i) => (i, false),
            None => {
                self.groups.push((path.to_path_buf(), make()));
                self.at.insert(id, self.groups.len() - 1);
                (self.groups.len() - 1, true)
            }
        };
        (&mut self.groups[i], made)
    }

    /// The group of `path`'s file, when there is one.
    pub fn get_mut(&mut self, path: &Path) -> Option<&mut (PathBuf, T)> {
        let i = *self.at.get(&identity(path))?;
        self.groups.get_mut(i)
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The groups, in the order their files first came.
    pub fn into_groups(self) -> Vec<(PathBuf, T)> {
        self.groups
    }
}

/// Whether `path`, a file of the `layer` layer, is reached through a symbolic link in its
/// project (the file or a folder between the project and it), which the writer refuses
/// ([`SettingsError::ProjectLink`]). Of two spellings of one file (two projects sharing
/// one `.claude` folder through a link), the plan keeps one that is not.
pub fn through_a_project_link(path: &Path, layer: &str) -> bool {
    super::write::project_root_for_layer(path, layer)
        .is_some_and(|root| super::write::link_in_project(&root, path).is_some())
}

/// Of two spellings of one file, the one the writer takes: `kept` (of `kept_layer`)
/// becomes `other` when `kept` is reached through a link in its project and `other` is
/// not ([`through_a_project_link`]). Whether it did.
pub fn take_unlinked_spelling(
    kept: &mut PathBuf,
    kept_layer: &str,
    other: &Path,
    other_layer: &str,
) -> bool {
    let take =
        through_a_project_link(kept, kept_layer) && !through_a_project_link(other, other_layer);
    if take {
        *kept = other.to_path_buf();
    }
    take
}

/// A file's identity for [`same_file`]: its canonical path, or its folder's canonical
/// path and its name when the file is not there; the path itself when neither resolves.
/// Two paths are [`same_file`] when their identities are equal (a key to group by).
pub fn identity(p: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(p) {
        return c;
    }
    match (p.parent().map(std::fs::canonicalize), p.file_name()) {
        (Some(Ok(dir)), Some(name)) => dir.join(name),
        _ => p.to_path_buf(),
    }
}

/// The changes of one file with one value a key: two servers' changes of the same key
/// (two projects sharing the file, or two servers of one project) are one edit. The
/// same value once; two numbers (`MCP_TIMEOUT`), the larger; two comma lists
/// (`NO_PROXY`), merged in order. Any other disagreement keeps the first change's
/// value. The servers of the changes merged are named together.
fn one_per_key(changes: Vec<Change>) -> Vec<Change> {
    let mut out: Vec<Change> = Vec::new();
    for c in changes {
        let Edit::Set { path, value } = &c.edit else {
            out.push(c);
            continue;
        };
        let Some(prev) = out
            .iter_mut()
            .find(|o| matches!(&o.edit, Edit::Set { path: p, .. } if p == path))
        else {
            out.push(c);
            continue;
        };
        let Edit::Set { value: had, .. } = &prev.edit else {
            continue;
        };
        if let Some(v) = agreed(had, value)
            && v != *had
        {
            prev.edit = Edit::Set {
                path: path.clone(),
                value: v,
            };
            prev.why = c.why.clone();
        }
        for who in c.server.split(", ") {
            if !prev.server.split(", ").any(|w| w == who) {
                prev.server = format!("{}, {who}", prev.server);
            }
        }
    }
    out
}

/// The one value two changes of a key agree on ([`one_per_key`]); `None`: the first's.
fn agreed(a: &Value, b: &Value) -> Option<Value> {
    let (Value::String(x), Value::String(y)) = (a, b) else {
        return None;
    };
    if x == y {
        return Some(a.clone());
    }
    if let (Ok(m), Ok(n)) = (x.trim().parse::<u64>(), y.trim().parse::<u64>()) {
        return Some(if n > m { b.clone() } else { a.clone() });
    }
    if x.contains(',') || y.contains(',') {
        let mut items: Vec<&str> = Vec::new();
        for i in x.split(',').chain(y.split(',')).map(str::trim) {
            if !i.is_empty() && !items.contains(&i) {
                items.push(i);
            }
        }
        return Some(Value::String(items.join(",")));
    }
    None
}

/// The text with every change made, and what each set; `None` when nothing changes.
fn edited(
    path: &Path,
    bytes: Option<&[u8]>,
    changes: &[Change],
) -> Result<Option<(String, Vec<KeyChangeRecord>)>, SettingsError> {
    let mut text = match bytes {
        None => String::new(),
        Some(b) => {
            let t = std::str::from_utf8(b).map_err(|_| SettingsError::Invalid {
                path: path.to_path_buf(),
                problem: TextProblem {
                    line: 1,
                    column: 1,
                    message: "not UTF-8 text".into(),
                },
            })?;
            strict(path, t)?;
            t.to_string()
        }
    };
    let mut records = Vec::new();
    for c in changes {
        let sets: Vec<(Vec<String>, Value)> = match &c.edit {
            Edit::Set { path, value } => vec![(path.clone(), value.clone())],
            Edit::MoveName {
                parent,
                from,
                to,
                name,
            } => {
                let at = |key: &str| -> Vec<String> {
                    let mut p = parent.clone();
                    p.push(key.to_string());
                    p
                };
                let list = |key: &str| -> Vec<Value> {
                    value_at(&text, &at(key))
                        .and_then(|v| v.as_array().cloned())
                        .unwrap_or_default()
                };
                let named = Value::String(name.clone());
                let mut out = Vec::new();
                if let Some(from) = from {
                    let disabled = list(from);
                    if disabled.contains(&named) {
                        let kept: Vec<Value> =
                            disabled.into_iter().filter(|v| *v != named).collect();
                        out.push((at(from), Value::Array(kept)));
                    }
                }
                if let Some(to) = to {
                    let mut enabled = list(to);
                    if !enabled.contains(&named) {
                        enabled.push(named);
                        out.push((at(to), Value::Array(enabled)));
                    }
                }
                out
            }
        };
        for (key, value) in sets {
            if value_at(&text, &key).as_ref() == Some(&value) {
                continue;
            }
            records.push(record_of(&text, &key, &value));
            text =
                set_at(&text, &key, Some(&value)).map_err(|problem| SettingsError::CannotEdit {
                    path: path.to_path_buf(),
                    problem,
                })?;
        }
    }
    if records.is_empty() {
        return Ok(None);
    }
    Ok(Some((text, records)))
}

/// What setting `key` to `value` in `text` changes, for undo: the first member created
/// (with what it holds) or the key's previous value.
fn record_of(text: &str, key: &[String], value: &Value) -> KeyChangeRecord {
    match first_missing(text, key) {
        Some(n) => {
            let mut written = value.clone();
            for k in key[n..].iter().rev() {
                let mut m = serde_json::Map::new();
                m.insert(k.clone(), written);
                written = Value::Object(m);
            }
            KeyChangeRecord {
                path: key[..n].to_vec(),
                previous_json: None,
                written_json: written.to_string(),
            }
        }
        None => KeyChangeRecord {
            path: key.to_vec(),
            previous_json: value_at(text, key).map(|v| v.to_string()),
            written_json: value.to_string(),
        },
    }
}

fn strict(path: &Path, text: &str) -> Result<(), SettingsError> {
    match strictness::check(text) {
        Strictness::Strict(_) => Ok(()),
        Strictness::NonStrict { problem, doc } => Err(SettingsError::NotStrict {
            path: path.to_path_buf(),
            env_keys: strictness::env_keys(&doc),
            problem,
        }),
        Strictness::Invalid { problem } => Err(SettingsError::Invalid {
            path: path.to_path_buf(),
            problem,
        }),
    }
}

/// How many times a file another program rewrites while mcplogs writes it
/// (`~/.claude.json`: Claude Code keeps it up to date as it runs) is read again, its
/// changes made again, before the plan stops.
pub const REREAD_ATTEMPTS: usize = 3;

/// Backup, atomic write, undo record. A file changed since it was planned is read
/// again and the same changes made to what it holds now, up to [`REREAD_ATTEMPTS`]
/// times (the keys are merged with the new text, as when planned); the diff shown
/// stays true for the keys mcplogs sets.
pub fn apply_file(plan: &FilePlan) -> Result<AppliedFix, SettingsError> {
    apply_file_in(&RealFs, plan)
}

/// [`apply_file`] through `files`.
pub fn apply_file_in(files: &dyn Fs, plan: &FilePlan) -> Result<AppliedFix, SettingsError> {
    let mut current = plan.clone();
    for attempt in 0.. {
        match write_with_undo(
            files,
            &current.snapshot,
            Written {
                backup: undo::backup_path(&current.path),
                state: undo::state_path(&current.path),
                new_bytes: &current.new_bytes,
                kind: if current.snapshot.bytes.is_none() {
                    "create"
                } else {
                    "edit"
                },
                env_existed: false,
                previous: None,
                changes: current.records.clone(),
            },
        ) {
            Err(SettingsError::ChangedSinceRead { .. }) if attempt + 1 < REREAD_ATTEMPTS => {
                match plan_file(&current.path, current.changes.clone())? {
                    Some(p) => current = p,
                    // Someone else made the change meanwhile: nothing left to write.
                    None => {
                        return Err(SettingsError::ChangedSinceRead {
                            path: current.path.clone(),
                        });
                    }
                }
            }
            other => return other,
        }
    }
    unreachable!("the loop returns")
}

/// Undo of an engine record in a file changed since: each recorded key put back (last
/// first) when it still holds what mcplogs wrote; a key changed since is left alone and
/// stops the undo unless `force`. Forced, a list mcplogs moved a name in (added to, or
/// taken out of) and the user changed since gets just that name moved back, every name
/// the user added or removed since kept; the second value says so, a line a list.
pub(super) fn undo_changed(
    settings: &Path,
    text: &str,
    records: &[KeyChangeRecord],
    force: bool,
) -> Result<(String, Vec<String>), SettingsError> {
    let mut notes = Vec::new();
    strict(settings, text).map_err(|e| match e {
        SettingsError::NotStrict { problem, .. } => SettingsError::NoLongerStrict {
            path: settings.to_path_buf(),
            problem,
            backup: Some(undo::backup_path(settings)),
        },
        other => other,
    })?;
    let mut out = text.to_string();
    for r in records.iter().rev() {
        let now = value_at(&out, &r.path);
        let written: Option<Value> = serde_json::from_str(&r.written_json).ok();
        let previous: Option<Value> = r
            .previous_json
            .as_deref()
            .and_then(|p| serde_json::from_str(p).ok());
        if now == previous {
            continue;
        }
        // The object that held the key is gone (the user deleted the server since):
        // putting back the one key would make a stub entry of it (`"far": {"command":
        // "farstub"}` without its type and args); forced, it is left gone.
        if force
            && previous.is_some()
            && let Some((_, parent)) = r.path.split_last()
            && !parent.is_empty()
            && value_at(&out, parent).is_none()
        {
            continue;
        }
        if now != written && !force {
            return Err(SettingsError::KeyChangedSince {
                path: settings.to_path_buf(),
                key: r.path.join("."),
                now: now.map(|v| v.to_string()),
                written: r.written_json.clone(),
            });
        }
        let cannot = |problem| SettingsError::CannotEdit {
            path: settings.to_path_buf(),
            problem,
        };
        if now != written
            && let Some((key, value, note)) = names_moved_back(&out, r, previous.as_ref())
        {
            out = set_at(&out, &key, value.as_ref()).map_err(cannot)?;
            notes.push(note);
            continue;
        }
        out = set_at(&out, &r.path, previous.as_ref()).map_err(cannot)?;
    }
    Ok((out, notes))
}

/// A list of names mcplogs changed (a name added or taken out: `Edit::MoveName`) that
/// the user changed since: the list as it is now with only mcplogs' names moved back
/// (those it added taken out, those it took out put back), the key path, and a line
/// saying so. `None`: not such a list (the caller puts the recorded value back).
fn names_moved_back(
    text: &str,
    r: &KeyChangeRecord,
    previous: Option<&Value>,
) -> Option<(Vec<String>, Option<Value>, String)> {
    // the record of a created key holds the first member created: unwrap it down to
    // the list (one member a level)
    let mut key = r.path.clone();
    let mut written: Value = serde_json::from_str(&r.written_json).ok()?;
    if previous.is_none() {
        while let Value::Object(m) = &written {
            let (k, v) = (m.len() == 1).then(|| m.iter().next())??;
            key.push(k.clone());
            written = v.clone();
        }
    }
    let strings = |v: &Value| -> Option<Vec<String>> {
        v.as_array()?
            .iter()
            .map(|x| x.as_str().map(str::to_string))
            .collect()
    };
    let written = strings(&written)?;
    let before = match previous {
        Some(p) => strings(p)?,
        None => Vec::new(),
    };
    let mut now = strings(&value_at(text, &key)?)?;
    let added: Vec<&String> = written.iter().filter(|n| !before.contains(n)).collect();
    let removed: Vec<&String> = before.iter().filter(|n| !written.contains(n)).collect();
    if added.is_empty() && removed.is_empty() {
        return None;
    }
    now.retain(|n| !added.contains(&n));
    for n in &removed {
        if !now.contains(n) {
            now.push((*n).clone());
        }
    }
    let quoted = |v: &[&String]| {
        v.iter()
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let what = match (added.is_empty(), removed.is_empty()) {
        (false, true) => format!("{} taken out", quoted(&added)),
        (true, false) => format!("{} put back", quoted(&removed)),
        _ => format!(
            "{} taken out, {} put back",
            quoted(&added),
            quoted(&removed)
        ),
    };
    let note = format!(
        "{}: changed since mcplogs' fix; only {what}, every other name as it is now",
        key.join(".")
    );
    // a list mcplogs created, left empty: gone, as before
    let value = (previous.is_some() || !now.is_empty())
        .then(|| Value::Array(now.into_iter().map(Value::String).collect()));
    Some((key, value, note))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// [`ByFile`] groups two spellings of one file (through a linked folder, with a
    /// `..`) as one, in the order the files first came, each group under the path it
    /// was first given; another file, or one not there yet in another folder, is its own.
    #[cfg(unix)]
    #[test]
    fn by_file_groups_every_spelling_of_a_file_once_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::fs::write(real.join("a.json"), "{}").unwrap();
        std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
        let mut g: ByFile<Vec<u32>> = ByFile::default();
        let spellings = [
            real.join("a.json"),
            dir.path().join("link/a.json"),
            dir.path().join("link/../real/a.json"),
        ];
        for (i, p) in spellings.iter().enumerate() {
            let ((_, v), made) = g.group(p, Vec::new);
            assert_eq!(made, i == 0, "{}", p.display());
            v.push(i as u32);
        }
        let ((_, v), made) = g.group(&real.join("b.json"), Vec::new);
        assert!(made, "a file not there yet is its own group");
        v.push(9);
        assert!(g.get_mut(&dir.path().join("link/b.json")).is_some());
        assert!(g.get_mut(&dir.path().join("c.json")).is_none());
        assert!(!g.is_empty());
        assert_eq!(
            g.into_groups(),
            [
                (real.join("a.json"), vec![0, 1, 2]),
                (real.join("b.json"), vec![9])
            ]
        );
    }

    fn change(file: &Path, edit: Edit) -> Change {
        Change {
            cause: FixCause::CommandPath,
            server: "far (/p)".into(),
            why: "test".into(),
            file: file.to_path_buf(),
            layer: "claude.json",
            edit,
        }
    }

    fn set(path: &[&str], value: Value) -> Edit {
        Edit::Set {
            path: path.iter().map(|s| s.to_string()).collect(),
            value,
        }
    }

    #[test]
    fn several_changes_of_one_file_are_one_text_and_undo_takes_out_only_them() {
        let f = Path::new("/x/.claude.json");
        let text = "{\n  \"mcpServers\": {\n    \"far\": {\n      \"command\": \"farstub\"\n    }\n  },\n  \"numStartups\": 1\n}\n";
        let changes = vec![
            change(
                f,
                set(&["mcpServers", "far", "command"], json!("/opt/farstub")),
            ),
            change(
                f,
                Edit::MoveName {
                    parent: Vec::new(),
                    from: Some("disabledMcpjsonServers".into()),
                    to: Some("enabledMcpjsonServers".into()),
                    name: "p-off".into(),
                },
            ),
        ];
        let (new, records) = edited(f, Some(text.as_bytes()), &changes).unwrap().unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(
            value_at(&new, &["mcpServers".into(), "far".into(), "command".into()]),
            Some(json!("/opt/farstub"))
        );
        assert_eq!(
            value_at(&new, &["enabledMcpjsonServers".into()]),
            Some(json!(["p-off"]))
        );
        // Claude Code rewrote another key since: undo keeps it and takes out ours.
        let since = new.replace("\"numStartups\": 1", "\"numStartups\": 2");
        let undone = undo_changed(f, &since, &records, false).unwrap().0;
        assert_eq!(
            undone,
            text.replace("\"numStartups\": 1", "\"numStartups\": 2")
        );
        // A key the user changed since stops the undo, unless forced.
        let changed = since.replace("/opt/farstub", "/usr/bin/farstub");
        assert!(matches!(
            undo_changed(f, &changed, &records, false),
            Err(SettingsError::KeyChangedSince { .. })
        ));
        assert!(undo_changed(f, &changed, &records, true).is_ok());
        // The user deleted the server since: forced, it stays deleted (no stub entry).
        let deleted = since.replace("\"far\": {\n      \"command\": \"/opt/farstub\"\n    }", "");
        assert_ne!(deleted, since);
        let undone = undo_changed(f, &deleted, &records, true).unwrap().0;
        assert_eq!(
            value_at(&undone, &["mcpServers".into(), "far".into()]),
            None
        );
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // a test's own temporary files
    fn a_file_rewritten_between_plan_and_write_is_read_again_and_keeps_both_changes() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join(".claude.json");
        std::fs::write(&f, "{\n  \"mcpServers\": {\n    \"far\": {\n      \"command\": \"farstub\"\n    }\n  },\n  \"numStartups\": 1\n}\n").unwrap();
        let c = vec![change(
            &f,
            set(&["mcpServers", "far", "command"], json!("/opt/farstub")),
        )];
        let plan = plan_file(&f, c).unwrap().unwrap();
        // Claude Code writes its own change in between (a new file, as it writes)
        let theirs = "{\n  \"mcpServers\": {\n    \"far\": {\n      \"command\": \"farstub\"\n    }\n  },\n  \"numStartups\": 2\n}\n";
        let tmp = d.path().join("tmp");
        std::fs::write(&tmp, theirs).unwrap();
        std::fs::rename(&tmp, &f).unwrap();
        apply_file(&plan).unwrap();
        let now = std::fs::read_to_string(&f).unwrap();
        assert_eq!(now, theirs.replace("\"farstub\"", "\"/opt/farstub\""));
        // the backup is what the write replaced, so undo gives back their change too
        assert_eq!(
            std::fs::read_to_string(undo::backup_path(&f)).unwrap(),
            theirs
        );
        match undo::plan_undo(&f, false).unwrap() {
            undo::UndoPlan::Pending(p) => undo::apply_undo(&p).unwrap(),
            other => panic!("{other:?}"),
        }
        assert_eq!(std::fs::read_to_string(&f).unwrap(), theirs);
    }

    #[test]
    fn nothing_to_change_is_no_plan() {
        let f = Path::new("/x/settings.json");
        let text = "{\"env\": {\"MCP_TIMEOUT\": \"60000\"}}";
        let c = vec![change(f, set(&["env", "MCP_TIMEOUT"], json!("60000")))];
        assert_eq!(edited(f, Some(text.as_bytes()), &c).unwrap(), None);
    }

    #[test]
    fn comments_are_refused() {
        let f = Path::new("/x/settings.json");
        let c = vec![change(f, set(&["env", "MCP_TIMEOUT"], json!("60000")))];
        assert!(matches!(
            edited(f, Some(b"{ // hi\n}"), &c),
            Err(SettingsError::NotStrict { .. })
        ));
    }
}
