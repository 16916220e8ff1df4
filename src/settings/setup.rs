//! `mcplogs setup statusline` and `mcplogs setup hook`: the same writer as the legacy fix
//! ([`super::write`]: snapshot, backup, atomic write; [`super::undo`]: the undo record,
//! checked before use), for two other keys of a settings file: `statusLine` and `hooks`.
//! Each install has its own backup and undo record ([`Change`]), so undoing the status
//! line never touches the fix or the hook.
//!
//! A user's own `statusLine` is never replaced: the plan says so and names it
//! ([`SetupPlan::OwnStatusLine`]), and only `wrap` puts mcplogs around it (it runs the
//! user's command with the same input and appends its own part).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::diff;
use super::edit::{self, EditError};
use super::fix::AppliedFix;
use super::layers::{LayerKind, Sources};
use super::strictness::{self, Strictness};
use super::undo::{self, Change, KeyUndo, UndoPlan, backup_path_for, state_path_for};
use super::write::FileSnapshot;
use super::{SettingsError, TextProblem};
use crate::safe_read::{Follow, SETTINGS_MAX_BYTES, read_regular};

/// The hook event `setup hook` installs. Observed (2.1.288, 2.1.332, docs/claude-code.md):
/// `SessionStart` runs before Claude Code starts any MCP server, so it can never know;
/// by the first `UserPromptSubmit` the servers have decided (or are still pending, and
/// the hook speaks at a later prompt).
pub const HOOK_EVENT: &str = "UserPromptSubmit";
/// `statusLine.refreshInterval` set by `setup statusline`: Claude Code redraws the status
/// line on its own events only, and its first draw comes before the servers connect.
pub const REFRESH_SECS: u64 = 10;
/// What mcplogs' own entries start with, as installed from PATH (their identity is
/// [`is_our_statusline_command`] and [`is_our_hook_command`]).
pub const STATUSLINE_MARK: &str = "mcplogs statusline";
pub const HOOK_MARK: &str = "mcplogs hook";
/// The hook event `setup hook --export` installs. Observed (2.1.288, 2.1.332,
/// docs/claude-code.md): `SessionEnd` runs at the end of `claude -p` and of an
/// interactive session (`/exit`, Ctrl-C twice), after the session's MCP logs are
/// written; a hook still running after about 1.5 s is ended, hence `--detach`.
pub const EXPORT_HOOK_EVENT: &str = "SessionEnd";
pub const EXPORT_HOOK_MARK: &str = "mcplogs export";

/// What `mcplogs setup` installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Install {
    StatusLine,
    Hook,
    /// `mcplogs export --detach` as a `SessionEnd` hook.
    ExportHook,
}

impl Install {
    /// The top-level settings key it edits.
    pub fn key(self) -> &'static str {
        match self {
            Install::StatusLine => "statusLine",
            Install::Hook | Install::ExportHook => "hooks",
        }
    }

    pub fn change(self) -> Change {
        match self {
            Install::StatusLine => Change::StatusLine,
            Install::Hook => Change::Hook,
            Install::ExportHook => Change::ExportHook,
        }
    }

    /// `setup-statusline`, `setup-hook`: the undo record's `kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            Install::StatusLine => "setup-statusline",
            Install::Hook => "setup-hook",
            Install::ExportHook => "setup-export-hook",
        }
    }

    /// A hook's event and the mcplogs subcommand its handler runs; `None` for the status
    /// line.
    pub fn hook(self) -> Option<(&'static str, &'static str)> {
        match self {
            Install::StatusLine => None,
            Install::Hook => Some((HOOK_EVENT, "hook")),
            Install::ExportHook => Some((EXPORT_HOOK_EVENT, "export")),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupOptions {
    /// The command line to install (`mcplogs statusline --color always`, `mcplogs hook`).
    pub command: String,
    /// Status line only: wrap the user's own `statusLine` command instead of refusing.
    pub wrap: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PendingSetup {
    pub install: Install,
    pub snapshot: FileSnapshot,
    pub new_bytes: Vec<u8>,
    /// The key's value before, as its literal JSON text (`None`: absent).
    pub previous: Option<String>,
    /// Unified diff (show it through `redact::diff::for_display`).
    pub diff: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SetupPlan {
    /// mcplogs' status line or hook is there already.
    AlreadyInstalled {
        path: PathBuf,
    },
    /// The file has a status line of the user's own; nothing is written without `wrap`.
    OwnStatusLine {
        path: PathBuf,
        command: String,
    },
    Pending(PendingSetup),
}

/// The words of a command line as a POSIX shell splits them (single and double quotes,
/// backslashes), enough to recognise mcplogs' own command however its path is quoted;
/// `None` when the line holds anything a shell would run besides one command: an
/// unquoted `|`, `;`, `&`, `<`, `>`, `(`, `)`, `#`, a newline, or a `$` or backquote
/// outside single quotes.
fn shell_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                let mut closed = false;
                for q in chars.by_ref() {
                    if q == '\'' {
                        closed = true;
                        break;
                    }
                    word.push(q);
                }
                if !closed {
                    return None;
                }
            }
            '"' => {
                in_word = true;
                let mut closed = false;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => {
                            closed = true;
                            break;
                        }
                        '$' | '`' => return None,
                        '\\' => {
                            let n = chars.next()?;
                            if !matches!(n, '"' | '\\' | '$' | '`') {
                                word.push('\\');
                            }
                            word.push(n);
                        }
                        _ => word.push(q),
                    }
                }
                if !closed {
                    return None;
                }
            }
            '\\' => {
                in_word = true;
                let n = chars.next()?;
                if n == '\n' {
                    return None;
                }
                // A Windows path as `text::shell_word` leaves it there (unquoted:
                // `C:\Tools\mcplogs.exe`) keeps its separators; a shell escape of a
                // letter or digit would stand for the letter alone, and no command of
                // mcplogs' is written with one.
                if n.is_ascii_alphanumeric() {
                    word.push('\\');
                }
                word.push(n);
            }
            '|' | ';' | '&' | '<' | '>' | '(' | ')' | '$' | '`' | '\n' | '\r' => return None,
            '#' if !in_word => return None,
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

/// Whether `command` runs mcplogs' subcommand `sub` and nothing else: the program
/// `mcplogs` (by any path, quoted or not) and `sub`, then only words the shell passes
/// to it. The rest of the words are returned.
fn runs_mcplogs(command: &str, sub: &str) -> Option<Vec<String>> {
    let words = shell_words(command)?;
    let [program, first, rest @ ..] = words.as_slice() else {
        return None;
    };
    let name = program
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(program.as_str());
    let name = name
        .strip_suffix(".exe")
        .or_else(|| name.strip_suffix(".EXE"))
        .unwrap_or(name);
    (name == "mcplogs" && first == sub).then(|| rest.to_vec())
}

/// Whether `command` is mcplogs' hook, as `setup hook` writes it: the program `mcplogs`
/// (by any path, quoted or not), the subcommand `hook`, then only its own `--options`
/// (and their values), and nothing a shell would run besides (no unquoted `|`, `;`,
/// `&`, redirection, `$` or backquote).
/// Identity, not a substring: a user's `prompt-logger`, `echo "mcplogs hook"`,
/// `mcplogs hook | tee log` or a wrapper around mcplogs are theirs.
pub fn is_our_hook_command(command: &str) -> bool {
    runs_mcplogs(command, "hook")
        .is_some_and(|rest| rest.first().is_none_or(|w| w.starts_with("--")))
}

/// Whether `command` is mcplogs' status line, as `setup statusline` writes it (with
/// `--color always`, and `--wrap 'THEIRS'` when it wraps the user's own): the program
/// `mcplogs`, the subcommand `statusline`, and nothing a shell would run besides.
pub fn is_our_statusline_command(command: &str) -> bool {
    runs_mcplogs(command, "statusline")
        .is_some_and(|rest| rest.first().is_none_or(|w| w.starts_with("--")))
}

/// Whether one hook handler (`{"type": "command", "command": ...}`) runs `mcplogs
/// SUBCOMMAND` (`hook`, or `export` for `setup hook --export`).
fn is_handler_of(handler: &Value, subcommand: &str) -> bool {
    handler.get("type").and_then(Value::as_str) == Some("command")
        && handler
            .get("command")
            .and_then(Value::as_str)
            .and_then(|c| runs_mcplogs(c, subcommand))
            .is_some_and(|rest| rest.first().is_none_or(|w| w.starts_with("--")))
}

/// The handlers of one matcher group (`{"matcher": ..., "hooks": [...]}`), if it is one.
fn handlers(group: &Value) -> Option<&Vec<Value>> {
    group.get("hooks")?.as_array()
}

/// Whether a `hooks` value holds mcplogs' hook: a handler of any group of any event.
pub fn has_our_hook(hooks: &Value) -> bool {
    has_hook_marked(hooks, "hook")
}

/// Whether a `hooks` value holds a handler running `mcplogs SUBCOMMAND` (`hook`,
/// `export`), in any group of any event.
pub fn has_hook_marked(hooks: &Value, subcommand: &str) -> bool {
    hooks.as_object().is_some_and(|events| {
        events.values().filter_map(Value::as_array).any(|groups| {
            groups
                .iter()
                .filter_map(handlers)
                .any(|hs| hs.iter().any(|h| is_handler_of(h, subcommand)))
        })
    })
}

/// The `statusLine.command` of a settings object, if any.
pub fn status_command(settings: &Value) -> Option<&str> {
    settings.get("statusLine")?.get("command")?.as_str()
}

fn strict(path: &Path, text: &str) -> Result<Value, SettingsError> {
    match strictness::check(text) {
        Strictness::Strict(_) => {}
        Strictness::NonStrict { problem, doc } => {
            return Err(SettingsError::NotStrict {
                path: path.to_path_buf(),
                env_keys: strictness::env_keys(&doc),
                problem,
            });
        }
        Strictness::Invalid { problem } => {
            return Err(SettingsError::Invalid {
                path: path.to_path_buf(),
                problem,
            });
        }
    }
    let body = strictness::split_bom(text).1;
    if body.trim().is_empty() {
        return Ok(json!({}));
    }
    serde_json::from_str(body).map_err(|e| SettingsError::Invalid {
        path: path.to_path_buf(),
        problem: TextProblem {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        },
    })
}

fn cannot(path: &Path, problem: EditError) -> SettingsError {
    SettingsError::CannotEdit {
        path: path.to_path_buf(),
        problem,
    }
}

/// Reads `path` and works out the install.
pub fn plan_setup(
    path: &Path,
    install: Install,
    opts: &SetupOptions,
) -> Result<SetupPlan, SettingsError> {
    let snapshot = FileSnapshot::read(path)?;
    let text = match &snapshot.bytes {
        None => String::new(),
        Some(b) => String::from_utf8(b.clone()).map_err(|_| SettingsError::Invalid {
            path: path.to_path_buf(),
            problem: TextProblem {
                line: 1,
                column: 1,
                message: "not UTF-8 text".into(),
            },
        })?,
    };
    let settings = strict(path, &text)?;
    if !settings.is_object() {
        return Err(cannot(path, EditError::NotAnObject));
    }
    let current = settings.get(install.key());
    let new_value = match install {
        Install::StatusLine => match current {
            Some(v)
                if v.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(is_our_statusline_command) =>
            {
                return Ok(SetupPlan::AlreadyInstalled {
                    path: path.to_path_buf(),
                });
            }
            Some(v) if !opts.wrap => {
                return Ok(SetupPlan::OwnStatusLine {
                    path: path.to_path_buf(),
                    command: v
                        .get("command")
                        .and_then(Value::as_str)
                        .map_or_else(|| v.to_string(), str::to_string),
                });
            }
            Some(Value::Object(m)) => {
                let Some(Value::String(own)) = m.get("command") else {
                    return Err(cannot(path, EditError::NotAnObjectAt("statusLine.command")));
                };
                let mut m = m.clone();
                m.insert(
                    "command".into(),
                    Value::String(format!(
                        "{} --wrap {}",
                        opts.command,
                        crate::text::shell_word(own)
                    )),
                );
                m.entry("refreshInterval").or_insert(json!(REFRESH_SECS));
                Value::Object(m)
            }
            Some(_) => return Err(cannot(path, EditError::NotAnObjectAt("statusLine"))),
            None => json!({
                "type": "command",
                "command": opts.command,
                "refreshInterval": REFRESH_SECS,
            }),
        },
        Install::Hook | Install::ExportHook => {
            let (event, mark) = install.hook().unwrap_or((HOOK_EVENT, "hook"));
            if current.is_some_and(|h| has_hook_marked(h, mark)) {
                return Ok(SetupPlan::AlreadyInstalled {
                    path: path.to_path_buf(),
                });
            }
            let mut hooks = match current {
                None => serde_json::Map::new(),
                Some(Value::Object(m)) => m.clone(),
                Some(_) => return Err(cannot(path, EditError::NotAnObjectAt("hooks"))),
            };
            let entry = json!({"hooks": [{"type": "command", "command": opts.command}]});
            match hooks
                .entry(event)
                .or_insert_with(|| Value::Array(Vec::new()))
            {
                Value::Array(a) => a.push(entry),
                _ => {
                    return Err(cannot(
                        path,
                        EditError::NotAnObjectAt(if install == Install::Hook {
                            "hooks.UserPromptSubmit"
                        } else {
                            "hooks.SessionEnd"
                        }),
                    ));
                }
            }
            Value::Object(hooks)
        }
    };
    let previous = literal_of(&text, install.key());
    let new_text =
        edit::set_top_level(&text, install.key(), &new_value).map_err(|e| cannot(path, e))?;
    super::fix::within_read_limit(path, &new_text, false)?;
    Ok(SetupPlan::Pending(PendingSetup {
        install,
        diff: diff::unified(
            snapshot.bytes.as_ref().map(|_| text.as_str()),
            Some(&new_text),
            &path.display().to_string(),
        ),
        previous,
        new_bytes: new_text.into_bytes(),
        snapshot,
    }))
}

/// The literal JSON text of the top-level `key` in strict `text` (the last of duplicates).
fn literal_of(text: &str, key: &str) -> Option<String> {
    let Strictness::Strict(doc) = strictness::check(text) else {
        return None;
    };
    let m = doc.last_member(doc.root, key)?;
    Some(doc.raw(m.value).to_string())
}

/// Backup, atomic write, undo record: as [`super::fix::apply_fix`], in the install's own
/// backup and record.
pub fn apply_setup(p: &PendingSetup) -> Result<AppliedFix, SettingsError> {
    let change = p.install.change();
    super::fix::write_with_undo(
        &super::write::RealFs,
        &p.snapshot,
        super::fix::Written {
            backup: backup_path_for(&p.snapshot.path, change),
            state: state_path_for(&p.snapshot.path, change),
            new_bytes: &p.new_bytes,
            kind: p.install.as_str(),
            env_existed: p.previous.is_some(),
            previous: p.previous.clone(),
            changes: Vec::new(),
        },
    )
}

/// `mcplogs setup ... --undo`: unchanged since the install, the backup comes back (or
/// the file goes); changed since, only mcplogs' entry goes, everything else stays.
/// Apply with [`undo::apply_undo`].
pub fn plan_setup_undo(
    settings: &Path,
    install: Install,
    force: bool,
) -> Result<UndoPlan, SettingsError> {
    undo::plan_undo_for(settings, None, install.change(), |current_text, state| {
        // Changed since: take out only mcplogs' entry.
        let now = match strict(settings, current_text) {
            Ok(v) => v,
            Err(SettingsError::NotStrict { problem, .. }) => {
                return Err(SettingsError::NoLongerStrict {
                    path: settings.to_path_buf(),
                    problem,
                    backup: state.backup_path.clone(),
                });
            }
            Err(e) => return Err(e),
        };
        let ours = match install {
            Install::StatusLine => status_command(&now).is_some_and(is_our_statusline_command),
            Install::Hook | Install::ExportHook => {
                let sub = install.hook().map_or("hook", |h| h.1);
                now.get("hooks").is_some_and(|h| has_hook_marked(h, sub))
            }
        };
        if !ours && !force {
            return Ok(KeyUndo::Refuse(UndoPlan::NotOurs {
                path: settings.to_path_buf(),
                key: install.key(),
            }));
        }
        match install {
            Install::StatusLine => {
                edit::restore_top_level(current_text, "statusLine", state.previous_json.as_deref())
            }
            Install::Hook | Install::ExportHook => {
                let mark = install.hook().map_or("hook", |h| h.1);
                let hooks = now.get("hooks").cloned().unwrap_or_else(|| json!({}));
                let before: Option<Value> = state
                    .previous_json
                    .as_deref()
                    .and_then(|p| serde_json::from_str(p).ok());
                let kept = without_hook_marked(hooks, before.as_ref(), mark);
                match kept {
                    None => edit::restore_top_level(current_text, "hooks", None),
                    Some(v) => edit::set_top_level(current_text, "hooks", &v),
                }
            }
        }
        .map(KeyUndo::Text)
        .map_err(|e| cannot(settings, e))
    })
}

/// `hooks` without mcplogs' own handlers, taken out by identity ([`is_our_hook_command`])
/// wherever they are, and nothing else: a user's handler in the same group or another
/// stays, with its group. A group goes only when taking ours out emptied it; an event
/// list left empty goes when `before` (the `hooks` before the install) did not have it;
/// `None` when nothing is left of a `hooks` that did not exist before.
#[cfg(test)]
fn without_our_hook(hooks: Value, before: Option<&Value>) -> Option<Value> {
    without_hook_marked(hooks, before, "hook")
}

/// [`without_our_hook`] for the handlers running `mcplogs SUBCOMMAND`.
fn without_hook_marked(hooks: Value, before: Option<&Value>, subcommand: &str) -> Option<Value> {
    let Value::Object(mut m) = hooks else {
        return Some(hooks);
    };
    // What was there before, as the user's: another install of mcplogs' (its hook, its
    // export hook) is no setting of theirs to keep an empty event or `hooks` for.
    let before = before.and_then(|b| {
        ["hook", "export"]
            .into_iter()
            .try_fold(b.clone(), |h, sub| without_hook_marked(h, None, sub))
    });
    let before = before.as_ref();
    let mut emptied_events = Vec::new();
    for (event, list) in m.iter_mut() {
        let Value::Array(groups) = list else {
            continue;
        };
        let before_len = groups.len();
        groups.retain_mut(|group| {
            let Some(Value::Array(hs)) = group.get_mut("hooks") else {
                return true;
            };
            let n = hs.len();
            hs.retain(|h| !is_handler_of(h, subcommand));
            // Emptied by taking ours out: the group was ours. Empty before: the user's.
            !(hs.is_empty() && n > 0)
        });
        if groups.is_empty() && before_len > 0 {
            emptied_events.push(event.clone());
        }
    }
    m.retain(|event, _| {
        !(emptied_events.contains(event) && before.and_then(|b| b.get(event)).is_none())
    });
    if m.is_empty() && before.is_none() {
        return None;
    }
    Some(Value::Object(m))
}

/// What the settings layers say about the status line and hooks, for `mcplogs settings`
/// and for `setup` to refuse an install that would never run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Integrations {
    /// Each layer's `statusLine.command`, highest precedence first.
    pub status_lines: Vec<(LayerKind, PathBuf, String)>,
    /// The layers holding mcplogs' hook.
    pub hooks: Vec<(LayerKind, PathBuf)>,
    /// The layers setting `disableAllHooks: true` (which stops hooks and the status line).
    pub disable_all_hooks: Vec<(LayerKind, PathBuf)>,
    /// The managed layers setting `allowManagedHooksOnly: true`.
    pub managed_hooks_only: Vec<(LayerKind, PathBuf)>,
}

impl Integrations {
    /// The status line Claude Code shows: the highest layer's.
    pub fn effective_status_line(&self) -> Option<&(LayerKind, PathBuf, String)> {
        self.status_lines.first()
    }

    pub fn status_line_installed(&self) -> bool {
        self.effective_status_line()
            .is_some_and(|(_, _, c)| is_our_statusline_command(c))
    }
}

fn is_managed(k: LayerKind) -> bool {
    matches!(k, LayerKind::Managed | LayerKind::ManagedDropIn)
}

/// Reads every settings file of `sources` (strict JSON only: Claude Code ignores the rest).
pub fn integrations(sources: &Sources) -> Integrations {
    let mut out = Integrations::default();
    for (kind, path) in sources.files() {
        let Ok(Some(r)) = read_regular(&path, SETTINGS_MAX_BYTES, Follow::Links) else {
            continue;
        };
        let Ok(text) = String::from_utf8(r.bytes) else {
            continue;
        };
        let Strictness::Strict(_) = strictness::check(&text) else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<Value>(strictness::split_bom(&text).1) else {
            continue;
        };
        if let Some(c) = status_command(&v) {
            out.status_lines.push((kind, path.clone(), c.to_string()));
        }
        if v.get("hooks").is_some_and(has_our_hook) {
            out.hooks.push((kind, path.clone()));
        }
        if v.get("disableAllHooks") == Some(&Value::Bool(true)) {
            out.disable_all_hooks.push((kind, path.clone()));
        }
        if is_managed(kind) && v.get("allowManagedHooksOnly") == Some(&Value::Bool(true)) {
            out.managed_hooks_only.push((kind, path.clone()));
        }
    }
    out
}

/// Why an install would never run, if it would not.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Blocked {
    #[error(
        "{} sets disableAllHooks to true, which stops every hook and the status line: mcplogs installs nothing while it does{}",
        .path.display(),
        if *.managed { " (a managed file: ask its administrator)" } else { "; remove it there first if you want them" }
    )]
    DisableAllHooks { path: PathBuf, managed: bool },
    #[error(
        "{} (managed) sets allowManagedHooksOnly to true: a hook in your settings would never run, so mcplogs does not install one",
        .0.display()
    )]
    ManagedHooksOnly(PathBuf),
    #[error(
        "{} (managed) sets a statusLine, which outranks yours: a status line in your settings would never show",
        .0.display()
    )]
    ManagedStatusLine(PathBuf),
}

/// Whether `install` can take effect given the layers.
pub fn blocked(i: &Integrations, install: Install) -> Option<Blocked> {
    if let Some((k, p)) = i.disable_all_hooks.first() {
        return Some(Blocked::DisableAllHooks {
            path: p.clone(),
            managed: is_managed(*k),
        });
    }
    match install {
        Install::Hook | Install::ExportHook => i
            .managed_hooks_only
            .first()
            .map(|(_, p)| Blocked::ManagedHooksOnly(p.clone())),
        Install::StatusLine => i
            .status_lines
            .iter()
            .find(|(k, _, _)| is_managed(*k))
            .map(|(_, p, _)| Blocked::ManagedStatusLine(p.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_hook_is_known_by_identity_not_by_a_substring() {
        for ours in [
            "mcplogs hook",
            "  mcplogs   hook ",
            "/usr/local/bin/mcplogs hook",
            "'/home/me/my tools/mcplogs' hook",
            "\"/opt/x y/mcplogs\" hook",
            r"'C:\Tools\mcplogs.exe' hook",
            r"C:\Tools\mcplogs.exe hook",
            "mcplogs hook --home /srv/claude",
        ] {
            assert!(is_our_hook_command(ours), "{ours}");
        }
        for theirs in [
            "/home/me/bin/prompt-logger",
            "echo \"mcplogs hook\"",
            "echo mcplogs hook",
            "mcplogs hook | tee /tmp/log",
            "mcplogs hook; rm -rf x",
            "mcplogs hook > out",
            "mcplogs-wrapper hook",
            "not-mcplogs hook",
            "mcplogs statusline",
            "mcplogs hook extra",
            "mcplogs",
            "",
            "sh -c 'mcplogs hook'",
            "mcplogs hook && x",
            "mcplogs hook # note",
            "mcplogs hook $(x)",
            "'mcplogs hook",
        ] {
            assert!(!is_our_hook_command(theirs), "{theirs}");
        }
        for ours in [
            "mcplogs statusline --color always",
            "/opt/bin/mcplogs statusline --color always --wrap '~/bin/status.sh; echo x'",
            r"mcplogs statusline --wrap 'a'\''b | c'",
        ] {
            assert!(is_our_statusline_command(ours), "{ours}");
        }
        for theirs in [
            "my-status; mcplogs statusline",
            "mcplogs statusline | cut -c1-10",
            "echo mcplogs statusline",
            "~/bin/status.sh",
        ] {
            assert!(!is_our_statusline_command(theirs), "{theirs}");
        }
    }

    #[test]
    fn undo_keeps_every_neighbour_of_our_handler() {
        let ours = json!({"type": "command", "command": "mcplogs hook"});
        let logger = json!({"type": "command", "command": "/home/me/bin/prompt-logger"});
        let other = json!({"type": "command", "command": "echo mcplogs hook"});
        // The user added theirs to our group, before and after ours: the group stays.
        let h = json!({"UserPromptSubmit": [
            {"hooks": [logger.clone(), ours.clone(), other.clone()]}
        ]});
        assert_eq!(
            without_our_hook(h, None),
            Some(json!({"UserPromptSubmit": [{"hooks": [logger.clone(), other.clone()]}]}))
        );
        // Groups of theirs before and after ours, a matcher kept, an empty group of
        // theirs kept, another event untouched; our own group goes.
        let h = json!({
            "UserPromptSubmit": [
                {"matcher": "x", "hooks": [logger.clone()]},
                {"hooks": [ours.clone()]},
                {"hooks": []},
                {"hooks": [other.clone()]}
            ],
            "Stop": [{"hooks": [logger.clone()]}]
        });
        assert_eq!(
            without_our_hook(h, Some(&json!({"Stop": [{"hooks": [logger.clone()]}]}))),
            Some(json!({
                "UserPromptSubmit": [
                    {"matcher": "x", "hooks": [logger.clone()]},
                    {"hooks": []},
                    {"hooks": [other.clone()]}
                ],
                "Stop": [{"hooks": [logger.clone()]}]
            }))
        );
        // Ours in another event (moved by the user) goes there too.
        let h = json!({"Stop": [{"hooks": [ours.clone(), logger.clone()]}]});
        assert_eq!(
            without_our_hook(h, Some(&json!({}))),
            Some(json!({"Stop": [{"hooks": [logger.clone()]}]}))
        );
        // An event list that was there before, emptied of ours, stays (empty).
        let h = json!({"UserPromptSubmit": [{"hooks": [ours.clone()]}]});
        assert_eq!(
            without_our_hook(h, Some(&json!({"UserPromptSubmit": []}))),
            Some(json!({"UserPromptSubmit": []}))
        );
        assert!(has_our_hook(&json!({"E": [{"hooks": [ours]}]})));
        assert!(!has_our_hook(&json!({"E": [{"hooks": [other, logger]}]})));
    }

    #[test]
    fn a_hook_entry_is_taken_out_and_what_it_created_goes_with_it() {
        let ours = json!({"hooks": [{"type": "command", "command": "mcplogs hook"}]});
        let theirs = json!({"hooks": [{"type": "command", "command": "echo hi"}]});
        let h = json!({"UserPromptSubmit": [theirs.clone(), ours.clone()]});
        assert_eq!(
            without_our_hook(h, Some(&json!({"UserPromptSubmit": [theirs.clone()]}))),
            Some(json!({"UserPromptSubmit": [theirs.clone()]}))
        );
        assert_eq!(
            without_our_hook(json!({"UserPromptSubmit": [ours.clone()]}), None),
            None
        );
        assert_eq!(
            without_our_hook(
                json!({"UserPromptSubmit": [ours], "Stop": [theirs.clone()]}),
                Some(&json!({"Stop": [theirs.clone()]}))
            ),
            Some(json!({"Stop": [theirs]}))
        );
    }
}
