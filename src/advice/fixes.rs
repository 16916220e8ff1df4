//! Which declared change ([`crate::settings::engine::Change`]) each scanned server needs, beside
//! the legacy setting (planned by `mcplogs fix` as before): the absolute path of a
//! command Claude Code cannot find, a longer `MCP_TIMEOUT`, a `.mcp.json` server taken
//! off `disabledMcpjsonServers` (where the approval dialog's default answer puts it; kept
//! off with `mcplogs fix --except SERVER`). What no file can fix is a [`UserStep`]: what
//! only the user can do, with the exact command or change.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::classify::verdict::Cause;
use crate::claude_code::config::{Scope, ServerState, TransportKind};
use crate::claude_code::lifecycle::{self, ClaudeVersion};
use crate::scan::configured::{Configuration, Configured};
use crate::scan::{ScanReport, ServerReport};
use crate::settings::ca::{CaFile, ChainCheck};
use crate::settings::edit::path::value_at;
use crate::settings::engine::{Change, Edit, FixCause};
use crate::settings::layers::{LayerKind, Sources};

/// What the caller knows that the scan does not.
pub struct Context<'a> {
    pub homes: &'a [PathBuf],
    pub cwd: &'a Path,
    pub managed_dir: Option<&'a Path>,
    /// `mcplogs fix SERVER`: only this server (its configured name).
    pub server: Option<&'a str>,
    /// `mcplogs fix --except SERVER`: these servers (configured names) get no change
    /// and no step.
    pub except: &'a [String],
    /// `--command-path`: the command's absolute path, for a server whose command is
    /// not found (with `server`).
    pub command_path: Option<&'a Path>,
    /// The `PATH` to look commands up in (the user's, where mcplogs runs).
    pub path_var: Option<std::ffi::OsString>,
    /// The Claude Code build here, when known.
    pub build: Option<ClaudeVersion>,
    /// `--ca-file`: the CA file the user named (read and checked by the caller).
    pub ca_file: Option<&'a CaFile>,
    /// The network checks `mcplogs fix` makes before it writes a remote server's fix (a
    /// TLS handshake for a CA file, a direct connection for `NO_PROXY`). `None` (`scan`):
    /// nothing is sent anywhere, so no CA file is found, and `NO_PROXY` is offered
    /// unchecked.
    pub net: Option<&'a dyn NetChecks>,
}

/// What `mcplogs fix` asks the network before it writes a remote server's fix.
pub trait NetChecks {
    /// A TLS handshake to `host:port` with only `ca`'s certificates as roots.
    fn verify_chain(&self, ca: &CaFile, host: &str, port: u16) -> ChainCheck;
    /// Whether `host:port` accepts a connection without the proxy (`Err`: why not).
    fn reachable_directly(&self, host: &str, port: u16) -> Result<(), String>;
}

/// Something only the user can do for a server, with the exact command or change.
#[derive(Debug, Clone, PartialEq)]
pub struct UserStep {
    /// `far (/home/u/proj)`.
    pub server: String,
    pub text: String,
}

/// The changes and the user's steps for a scan.
#[derive(Debug, Default)]
pub struct Found {
    pub changes: Vec<Change>,
    pub steps: Vec<UserStep>,
}

/// `far (/home/u/proj)`: how a [`Change`] and a [`UserStep`] name their server.
pub fn label(name: &str, project: Option<&str>) -> String {
    format!("{name} ({})", project.unwrap_or("-"))
}

/// The changes every failing server of `report` can get from a file (besides the legacy
/// setting), and what only the user can do.
pub fn find(report: &ScanReport, cx: &Context) -> Found {
    let mut found = Found::default();
    // Each configuration file read once, however many of its servers are not found.
    let mut texts: HashMap<PathBuf, Option<String>> = HashMap::new();
    // as written or as printed (a name holding a token or a configured value is printed
    // redacted: [`crate::scan::select`])
    use crate::scan::select::NameWant;
    let want = |n: &str| NameWant::knowing(n, &report.secrets);
    let server = cx.server.map(want);
    let except: Vec<NameWant> = cx.except.iter().map(|e| want(e)).collect();
    let named =
        |n: &str| server.as_ref().is_none_or(|s| s.is(n)) && !except.iter().any(|e| e.is(n));
    // a conflict needs a server that speaks only the new protocol (rare): looked for
    // once, not once a server
    let any_modern = super::any_modern_only(report);
    let conflicts = any_modern.then(|| super::Conflicts::new(report, cx.cwd));
    for s in report.servers.iter().filter(|s| named(&s.name)) {
        let who = label(&s.name, s.project.as_deref());
        if !s.counts_now() {
            if let Configuration::Configured(c) = &s.configuration {
                enable(&mut found, c, &s.name, s.project.as_deref(), &who, cx);
            }
            continue;
        }
        if s.is_shared() {
            continue;
        }
        let had = (found.changes.len(), found.steps.len());
        if let Some(conflicts) = &conflicts
            && super::needs_legacy_setting(s)
            && let Some(other) = conflicts.of(s)
        {
            found.steps.push(conflict_step(&who, &other.name, &s.name));
        }
        // whether a file (of the project, or the user's) has a change for its cause
        let a_file_could_help = match s.diagnosis.cause {
            Some(Cause::CommandNotFound) => {
                command_path(&mut found, s, &who, cx, &mut texts);
                true
            }
            Some(Cause::Timeout | Cause::ToolsTimeout) => {
                timeout(&mut found, s, &who, cx);
                true
            }
            Some(Cause::ModernOnly) => {
                modern_negotiation(&mut found, conflicts.as_ref(), s, &who, cx);
                true
            }
            Some(Cause::TlsUntrusted) => {
                super::remote::trusted_ca(&mut found, s, &who, cx);
                true
            }
            Some(Cause::ProxyRefused) => {
                super::remote::no_proxy(&mut found, s, &who, cx);
                true
            }
            Some(Cause::NeedsAuth) => {
                // the command `scan` gives (`claude mcp login NAME`, or /mcp in Claude
                // Code), the project it is run in said in words; one whose folder is gone
                // is said so, never "start claude in" it (helper-81 #6, #7; helper-83 #2)
                let (dir, gone) = super::project_dir_of(s, cx.cwd);
                let login = super::remote::login_command(&s.name)
                    .unwrap_or_else(|| format!("claude mcp login {}", s.name));
                let text = if gone {
                    format!(
                        "sign in with {} (or /mcp in Claude Code), run where Claude Code configures it: its project folder {} no longer exists (no file holds a sign-in mcplogs could write)",
                        crate::text::code_span(&login),
                        dir.display()
                    )
                } else {
                    format!(
                        "sign in with {} run in {} (or start `claude` there, run /mcp, pick {} and authenticate; no file holds a sign-in mcplogs could write)",
                        crate::text::code_span(&login),
                        dir.display(),
                        s.name
                    )
                };
                found.steps.push(UserStep {
                    server: who.clone(),
                    text,
                });
                false
            }
            _ => false,
        };
        if s.diagnosis.tools_not_sent > 0 {
            found.steps.push(tool_name_step(s, &who));
        }
        // its project folder is gone and nothing above (a user-scope entry, the user
        // file) helps it, though a file of that project could have: said, never
        // silence (a server only its authors can mend gets no word of the folder: no
        // file, there or anywhere, would help it, as with its folder here)
        if let (project, true) = super::project_dir_of(s, cx.cwd)
            && s.diagnosis.verdict.is_problem()
            && a_file_could_help
            && !super::needs_legacy_setting(s)
            && (found.changes.len(), found.steps.len()) == had
        {
            found.steps.push(gone_step(&who, &project, cx));
        }
    }
    for row in report
        .configured
        .iter()
        .filter(|r| named(&r.configured_name))
    {
        let who = label(&row.name, Some(&row.project));
        // the name as configured (the lists hold it so; a name holding a token is shown
        // redacted, and every message is redacted whole as it is printed)
        enable(
            &mut found,
            &row.configured,
            &row.configured_name,
            Some(&row.project),
            &who,
            cx,
        );
    }
    found
}

/// A failing server whose project folder no longer exists on this machine: nothing is
/// written for it, and why (the commands with the scan's `--home` flags).
fn gone_step(who: &str, project: &Path, cx: &Context) -> UserStep {
    UserStep {
        server: who.to_string(),
        text: format!(
            "nothing is written for it: its project folder {} no longer exists on this machine, so no settings decide anything for it there (if the project moved, run Claude Code in its new folder, then {} again; {} removes logs you no longer need)",
            project.display(),
            crate::text::code_span(&fix_command(cx, &[])),
            crate::text::code_span(&format!("mcplogs prune{}", super::home_flags(cx.homes))),
        ),
    }
}

/// Whether the fix for `cause` is offered on `build`: from the first to the last build
/// it was observed on ([`FixCause::observed_on`]). `None` (the build is not known):
/// offered.
pub fn offered_on(cause: FixCause, build: Option<ClaudeVersion>) -> bool {
    let Some(b) = build else { return true };
    let builds: Vec<ClaudeVersion> = cause
        .observed_on()
        .iter()
        .filter_map(|v| ClaudeVersion::parse(v))
        .collect();
    match (builds.iter().min(), builds.iter().max()) {
        (Some(lo), Some(hi)) => *lo <= b && b <= *hi,
        _ => false,
    }
}

/// Whether the fix for `cause` is offered on this build; when not, says so as a step.
pub(super) fn offered(found: &mut Found, cause: FixCause, who: &str, cx: &Context) -> bool {
    if offered_on(cause, cx.build) {
        return true;
    }
    found.steps.push(UserStep {
        server: who.to_string(),
        text: format!(
            "mcplogs' {} fix was observed to work on Claude Code {} only, and this is {}: make the change by hand if you want it (docs/claude-code.md)",
            cause.as_str(),
            cause.observed_range(),
            cx.build.map(|b| b.to_string()).unwrap_or_default()
        ),
    });
    false
}

/// A `.mcp.json` server off by `disabledMcpjsonServers` in a settings file mcplogs may
/// write: moved to `enabledMcpjsonServers` in the same place (the same file, and in
/// `~/.claude.json` the same project's entry, where Claude Code may have recorded it).
/// A disabled list wins in any layer, so every list naming it is moved, or none:
/// - a managed file (`managed-settings.json`, `managed-settings.d/*.json`) lists it:
///   nothing is planned (no file mcplogs may write outranks it); `fix NAME` says to ask
///   whoever administers the machine;
/// - plain `mcplogs fix` moves it only from where the approval dialog's default answer
///   (Esc, or "Continue without") writes the list: the project's
///   `.claude/settings.local.json` and its old home, `projects[P]` of `~/.claude.json`.
///   A name in the shared project file or the user file was put there by someone: only
///   `mcplogs fix NAME` changes it, and plain `fix` says so (and plans nothing for the
///   server, which would stay off);
/// - `mcplogs fix NAME` takes it out of the shared project file's or the user file's
///   list but approves it only in the project's `.claude/settings.local.json` (where the
///   dialog records an answer): an approval in the user file would approve the name in
///   every project, one in the shared file for the whole team. An approval in any layer
///   starts a server no layer disables (docs/claude-code.md, "Every layer counts").
///
/// `disabledMcpServers` (the /mcp toggle) is a deliberate off and never changed.
fn enable(
    found: &mut Found,
    c: &Configured,
    name: &str,
    project: Option<&str>,
    who: &str,
    cx: &Context,
) {
    if c.state != ServerState::Disabled || c.scope != Scope::Project {
        return;
    }
    // each list once (a name written twice in one list is one change)
    let mut lists: Vec<&crate::claude_code::config::Decider> = Vec::new();
    for d in c
        .decided_by
        .iter()
        .filter(|d| d.key.ends_with("disabledMcpjsonServers"))
    {
        if !lists.iter().any(|l| l.file == d.file && l.key == d.key) {
            lists.push(d);
        }
    }
    if lists.is_empty() {
        return;
    }
    let managed: Vec<String> = lists
        .iter()
        .filter(|d| d.layer.starts_with("managed"))
        .map(|d| d.file.display().to_string())
        .collect();
    if !managed.is_empty() {
        // an administrator's choice: said when the user names the server only
        if cx.server.is_some() {
            found.steps.push(UserStep {
                server: who.to_string(),
                text: format!(
                    "the managed settings {} {} disable{} it; ask whoever administers this machine (a disabled list wins in any layer, so no file mcplogs may write can turn it on)",
                    if managed.len() == 1 { "file" } else { "files" },
                    managed.join(", "),
                    if managed.len() == 1 { "s" } else { "" },
                ),
            });
        }
        return;
    }
    let deliberate: Vec<&&crate::claude_code::config::Decider> = lists
        .iter()
        .filter(|d| !written_by_dialog(d.layer))
        .collect();
    // where `fix NAME` approves a name it takes out of a deliberate list
    let local = project.map(|p| Path::new(p).join(".claude").join("settings.local.json"));
    if cx.server.is_none() && !deliberate.is_empty() {
        let files: Vec<String> = deliberate
            .iter()
            .map(|d| format!("{} ({})", d.file.display(), layer_words(d.layer)))
            .collect();
        found.steps.push(UserStep {
            server: who.to_string(),
            text: format!(
                "nothing is written for it: disabledMcpjsonServers of {} lists it, and the approval dialog never writes there, so someone put it there on purpose (a disabled list wins in any layer, so it stays off). {} takes it out of every list that holds it and approves it in {} (this project only)",
                files.join(" and "),
                crate::text::code_span(&fix_command(cx, &[positional(name)])),
                local
                    .as_deref()
                    .map(|l| l.display().to_string())
                    .unwrap_or_else(|| ".claude/settings.local.json".into()),
            ),
        });
        return;
    }
    if !offered(found, FixCause::DisabledMcpjson, who, cx) {
        return;
    }
    // approved by a move in a dialog's list; a list that cannot be edited (the name
    // shown redacted) keeps it off, so nothing is approved then
    let (mut approved, mut stuck) = (false, false);
    for d in &lists {
        let Some(parent) = list_parent(&d.key, &d.file, name) else {
            stuck = true;
            found.steps.push(UserStep {
                server: who.to_string(),
                text: format!(
                    "{} of {} disables it: take its name out of that list",
                    d.key,
                    d.file.display()
                ),
            });
            continue;
        };
        let enabled_key = d
            .key
            .replace("disabledMcpjsonServers", "enabledMcpjsonServers");
        let dialog = written_by_dialog(d.layer);
        approved |= dialog;
        let why = if dialog {
            // (the dialog writes the local file; `~/.claude.json`'s project entry is the
            // list's old home, moved there at start-up: helper-81 #8 read two places)
            let who_wrote = if d.layer == "claude.json" {
                "the old home of the list the approval dialog's Esc or \"Continue without\" writes, which Claude Code moves into .claude/settings.local.json at start-up"
            } else {
                "the approval dialog's Esc or \"Continue without\" writes that list"
            };
            format!(
                "{name} is listed in {} of {} ({who_wrote}), so Claude Code never starts it; moved to {enabled_key}. To keep it off, answer no, or run {}",
                d.key,
                d.file.display(),
                crate::text::code_span(&except_command(cx, name)),
            )
        } else {
            format!(
                "{name} is listed in {} of {} ({}; the approval dialog never writes there, so someone put it there), so Claude Code never starts it; taken out of that list because you named {name}, and approved only in this project's local settings (not in this file, which would approve it {})",
                d.key,
                d.file.display(),
                layer_words(d.layer),
                if d.layer == "user" {
                    "in every project"
                } else {
                    "for everyone who shares the file"
                },
            )
        };
        found.changes.push(Change {
            cause: FixCause::DisabledMcpjson,
            server: who.to_string(),
            why,
            file: d.file.clone(),
            layer: d.layer,
            edit: Edit::MoveName {
                parent,
                from: Some("disabledMcpjsonServers".into()),
                to: dialog.then(|| "enabledMcpjsonServers".to_string()),
                name: name.to_string(),
            },
        });
    }
    // taken out of a deliberate list only: approved where the dialog records an answer
    if !approved
        && !stuck
        && let Some(local) = local
    {
        found.changes.push(Change {
            cause: FixCause::DisabledMcpjson,
            server: who.to_string(),
            why: format!(
                "{name} approved in enabledMcpjsonServers of {} (this project's local settings, where the approval dialog records an answer), so Claude Code starts it in this project only",
                local.display()
            ),
            file: local,
            layer: "local",
            edit: Edit::MoveName {
                parent: Vec::new(),
                from: None,
                to: Some("enabledMcpjsonServers".into()),
                name: name.to_string(),
            },
        });
    }
}

/// Whether Claude Code's approval dialog writes `disabledMcpjsonServers` in a file of
/// this layer: the project's `.claude/settings.local.json`, and `~/.claude.json`'s
/// project entry (the list's old home, which Claude Code migrates).
fn written_by_dialog(layer: &str) -> bool {
    matches!(layer, "local" | "claude.json")
}

/// What a settings layer is, in words.
fn layer_words(layer: &str) -> &'static str {
    match layer {
        "project" => "the project's shared settings, often committed for the whole team",
        "user" => "your user settings, for every project",
        "local" => "the project's local settings",
        "claude.json" => "Claude Code's own state file",
        _ => "a settings file",
    }
}

/// `mcplogs fix` with the scan's `--home` flags and `args` (already quoted).
fn fix_command(cx: &Context, args: &[String]) -> String {
    let mut c = format!("mcplogs fix{}", super::home_flags(cx.homes));
    for a in args {
        c.push(' ');
        c.push_str(a);
    }
    c
}

/// `mcplogs fix NAME --command-path PATH` with the scan's `--home` flags (`path`
/// already quoted): the option before `-- NAME` for a name starting with `-` (after
/// `--` it would be read as a name).
fn command_path_command(cx: &Context, name: &str, path: &str) -> String {
    // the option first, the name last (after `--` when it starts with `-`: everything
    // after `--` is positional)
    fix_command(cx, &[format!("--command-path {path}"), positional(name)])
}

/// A server name as `mcplogs fix`'s argument, quoted: after `--` when it starts with
/// `-` (else the name would be read as an option).
fn positional(name: &str) -> String {
    // quoted when it holds a token: printed redacted, `[REDACTED:…]` is a glob
    crate::text::positional_word(&super::name_word(name))
}

/// The printed command that keeps `name` off: `--except=NAME` (a name may start with
/// `-`), quoted, with the scan's `--home` flags.
pub fn except_command(cx: &Context, name: &str) -> String {
    fix_command(cx, &[format!("--except={}", super::name_word(name))])
}

/// The object holding the `disabledMcpjsonServers` that `key` names
/// (`disabledMcpjsonServers`: the top level; `projects["/p"].disabledMcpjsonServers`:
/// that project's entry, under the member name the file uses, which may be the folder's
/// canonical form). `None`: a key of another form, or no list there holds `name`.
/// A file mcplogs does not write (a hard link, not a regular file): the parent its key
/// names, unchecked, so the change is planned and its refusal said wherever the plan is
/// (scan's line, fix's error), never a silent hand-edit step.
fn list_parent(key: &str, file: &Path, name: &str) -> Option<Vec<String>> {
    const LIST: &str = "disabledMcpjsonServers";
    let text = match crate::settings::write::FileSnapshot::read(file) {
        Ok(f) => f
            .bytes
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default(),
        Err(_) => {
            return if key == LIST {
                Some(Vec::new())
            } else {
                let quoted = key
                    .strip_prefix("projects[")?
                    .strip_suffix(&format!("].{LIST}"))?;
                let dir: String = serde_json::from_str(quoted).ok()?;
                Some(vec!["projects".to_string(), dir])
            };
        }
    };
    // the list must hold `name` as written: a name shown redacted (it holds a secret) is
    // not the file's, and moving it would write the placeholder
    let holds = |parent: &[String]| {
        let mut at = parent.to_vec();
        at.push(LIST.into());
        value_at(&text, &at)
            .and_then(|v| v.as_array().cloned())
            .is_some_and(|a| a.contains(&Value::String(name.into())))
    };
    if key == LIST {
        return holds(&[]).then(Vec::new);
    }
    let quoted = key
        .strip_prefix("projects[")?
        .strip_suffix(&format!("].{LIST}"))?;
    let dir: String = serde_json::from_str(quoted).ok()?;
    let canon = std::fs::canonicalize(&dir)
        .ok()
        .map(|p| p.to_string_lossy().into_owned());
    std::iter::once(dir).chain(canon).find_map(|d| {
        let parent = vec!["projects".to_string(), d];
        holds(&parent).then_some(parent)
    })
}

/// The key path of a server's entry in its configuration file.
fn entry_path(scope: Scope, name: &str, project: Option<&str>) -> Option<Vec<String>> {
    match scope {
        Scope::User | Scope::Project => Some(vec!["mcpServers".into(), name.into()]),
        Scope::Local => Some(vec![
            "projects".into(),
            project?.to_string(),
            "mcpServers".into(),
            name.into(),
        ]),
        Scope::Managed | Scope::CommandLine => None,
    }
}

fn command_path(
    found: &mut Found,
    s: &ServerReport,
    who: &str,
    cx: &Context,
    texts: &mut HashMap<PathBuf, Option<String>>,
) {
    let Some(launch) = s.launch.as_deref() else {
        return;
    };
    let (Some(command), Some(file)) = (launch.argv.first(), launch.file.as_ref()) else {
        return;
    };
    if launch.transport != TransportKind::Stdio {
        return;
    }
    let step = |text: String| UserStep {
        server: who.to_string(),
        text,
    };
    let Some(mut key) = entry_path(launch.scope, &s.name, s.project.as_deref()) else {
        found.steps.push(step(format!(
            "its command `{command}` is not on the PATH Claude Code gets, and its entry is in {}, which mcplogs does not write: put the command's absolute path there",
            file.display()
        )));
        return;
    };
    key.push("command".into());
    // The entry must hold the bare name as written (no `${VAR}` to keep).
    // read as the write will read it: bounded, regular files only
    // A file mcplogs does not write (a project's file through a link, not a regular
    // file): unchecked, so the change is planned and its refusal said wherever the plan
    // is (scan's line, fix's error), never a hand-edit step naming only the link.
    let text =
        texts.entry(file.clone()).or_insert_with(
            || match crate::settings::write::FileSnapshot::read(file) {
                Ok(f) => Some(
                    f.bytes
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                        .unwrap_or_default(),
                ),
                Err(_) => None,
            },
        );
    if text
        .as_deref()
        .is_some_and(|t| value_at(t, &key) != Some(Value::String(command.clone())))
        || command.contains(['/', '\\'])
    {
        found.steps.push(step(format!(
            "its command `{command}` was not found; put the command's absolute path as \"command\" of its entry in {}",
            file.display()
        )));
        return;
    }
    let chosen = match (cx.server, cx.command_path) {
        (Some(_), Some(p)) => Some(p.to_path_buf()),
        _ => match executables_named(command, cx.path_var.as_deref()).as_slice() {
            [one] => Some(one.clone()),
            [] => {
                found.steps.push(step(format!(
                    "its command `{command}` is on neither Claude Code's PATH nor yours: install it, or name it with {}",
                    crate::text::code_span(&command_path_command(
                        cx,
                        &s.name,
                        &crate::text::shell_word_typed(&format!("/ABSOLUTE/PATH/{command}"))
                    ))
                )));
                None
            }
            several => {
                found.steps.push(step(format!(
                    "your PATH holds {} programs named `{command}` ({}): choose one with {}",
                    several.len(),
                    several
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    crate::text::code_span(&command_path_command(cx, &s.name, "PATH"))
                )));
                None
            }
        },
    };
    let Some(abs) = chosen else { return };
    if !offered(found, FixCause::CommandPath, who, cx) {
        return;
    }
    found.changes.push(Change {
        cause: FixCause::CommandPath,
        server: who.to_string(),
        why: command_path_why(command, &abs, cx.command_path.is_some(), launch.scope),
        file: file.clone(),
        layer: match launch.scope {
            Scope::Project => "mcp.json",
            _ => "claude.json",
        },
        edit: Edit::Set {
            path: key,
            value: Value::String(abs.display().to_string()),
        },
    });
}

/// Why the command-path change, with what the user should know: a path they named whose
/// file name is not the command's, and a machine's own path written into a project's
/// `.mcp.json` (usually committed and shared).
fn command_path_why(command: &str, abs: &Path, named: bool, scope: Scope) -> String {
    let mut why = if named {
        format!(
            "Claude Code could not start `{command}` (not on the PATH it gets); you named {}",
            abs.display()
        )
    } else {
        format!(
            "Claude Code could not start `{command}` (not on the PATH it gets); {} is the one on yours",
            abs.display()
        )
    };
    let file_name = abs.file_name().map(|n| n.to_string_lossy().into_owned());
    let same = file_name.as_deref().is_some_and(|n| {
        n == command
            || (cfg!(windows)
                && [".exe", ".cmd", ".bat"]
                    .iter()
                    .any(|e| n.eq_ignore_ascii_case(&format!("{command}{e}"))))
    });
    if !same {
        why.push_str(&format!(
            ", a program named `{}`, not `{command}`: the server will run that program instead",
            file_name.unwrap_or_default()
        ));
    }
    if scope == Scope::Project {
        why.push_str(
            ". This writes a path of this machine into the project's .mcp.json, which is usually committed and shared: other machines may not have it there",
        );
    }
    why
}

/// Every executable file named `name` in the folders of `path_var`, each once (a
/// folder listed twice, or two links to one file, count once).
pub fn executables_named(name: &str, path_var: Option<&std::ffi::OsStr>) -> Vec<PathBuf> {
    let Some(var) = path_var else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = Vec::new();
    let mut real: Vec<PathBuf> = Vec::new();
    for dir in std::env::split_paths(var).filter(|d| d.is_absolute()) {
        for candidate in candidates(&dir, name) {
            if !is_executable(&candidate) {
                continue;
            }
            let canon = std::fs::canonicalize(&candidate).unwrap_or_else(|_| candidate.clone());
            if !real.contains(&canon) {
                real.push(canon);
                found.push(candidate);
            }
        }
    }
    found
}

fn candidates(dir: &Path, name: &str) -> Vec<PathBuf> {
    if cfg!(windows) {
        [".exe", ".cmd", ".bat", ""]
            .iter()
            .map(|ext| dir.join(format!("{name}{ext}")))
            .collect()
    } else {
        vec![dir.join(name)]
    }
}

fn is_executable(p: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    true
}

fn timeout(found: &mut Found, s: &ServerReport, who: &str, cx: &Context) {
    let (project, gone) = super::project_dir_of(s, cx.cwd);
    // its project's own files (which may set a shorter one, and outrank the user file on
    // older builds) cannot be read: no file is known to decide it there (`find` says the
    // folder is gone)
    if gone {
        return;
    }
    let sources = Sources::for_scan_in(cx.homes, &project, cx.managed_dir);
    let var = lifecycle::MCP_TIMEOUT_VAR;
    let layers = crate::settings::env::env_values(&sources, var, std::env::var(var).ok());
    let limit = s
        .diagnosis
        .timeout_ms
        .unwrap_or(lifecycle::DEFAULT_MCP_TIMEOUT_MS.value);
    let want = lifecycle::suggested_mcp_timeout_ms(limit);
    let step = |text: String| UserStep {
        server: who.to_string(),
        text,
    };
    // the highest file layer that sets it decides where the longer value goes
    let setter = layers
        .iter()
        .find(|l| l.value.is_some() && l.kind != LayerKind::Environment);
    let (kind, file) = match setter {
        Some(l) if matches!(l.kind, LayerKind::Managed | LayerKind::ManagedDropIn) => {
            found.steps.push(step(format!(
                "the managed settings file {} sets {var}; ask whoever administers this machine for {var}={want}",
                l.path.as_deref().map(|p| p.display().to_string()).unwrap_or_default()
            )));
            return;
        }
        // The shared project file: the project's local file outranks it, uncommitted.
        Some(l) if l.kind == LayerKind::Project => match sources
            .files()
            .into_iter()
            .find(|(k, _)| *k == LayerKind::Local)
        {
            Some((k, p)) => (k, p),
            None => return,
        },
        Some(l) => (l.kind, l.path.clone().unwrap_or_default()),
        None => match &sources.user_dir {
            Some(u) => (LayerKind::User, u.join("settings.json")),
            None => return,
        },
    };
    if let Some(now) = crate::settings::env::read_keys(&file, &[var])
        .pop()
        .flatten()
        && lifecycle::timeout_ms(&now).is_some_and(|ms| ms >= want)
    {
        return;
    }
    if !offered(found, FixCause::Timeout, who, cx) {
        return;
    }
    found.changes.push(Change {
        cause: FixCause::Timeout,
        server: who.to_string(),
        why: format!(
            "it took longer than MCP_TIMEOUT ({limit} ms); {var}={want} in the env of {} (the {} settings, which decide it in {})",
            file.display(),
            kind.as_str(),
            project.display()
        ),
        file,
        layer: kind.as_str(),
        edit: Edit::Set {
            path: vec!["env".into(), var.into()],
            value: Value::String(want.to_string()),
        },
    });
}

/// A server that speaks only the 2026-07-28 protocol, met with the legacy handshake:
/// `MCP_PROTOCOL_NEGOTIATION=auto` in its project's `.claude/settings.local.json`, which
/// outranks the user file, the shared project file and the environment (observed on
/// 2.1.287, 2.1.288, 2.1.300, 2.1.310, 2.1.332 and 2.1.336 with `legacy` in the user
/// file: the server connected with its tools). Never where a managed file decides, and never in a project where another
/// failing server needs the legacy setting: no value serves both.
fn modern_negotiation(
    found: &mut Found,
    conflicts: Option<&super::Conflicts>,
    s: &ServerReport,
    who: &str,
    cx: &Context,
) {
    use crate::settings::{NEGOTIATION_KEY, NegotiationValue, effective_negotiation};
    let (project, gone) = super::project_dir_of(s, cx.cwd);
    if gone {
        return;
    }
    let sources = Sources::for_scan_in(cx.homes, &project, cx.managed_dir);
    let e = effective_negotiation(&sources);
    if e.value() == Some(&NegotiationValue::Auto) {
        return; // in place: `in_place` says so
    }
    if let Some(l) = e.deciding_layer()
        && matches!(l.kind, LayerKind::Managed | LayerKind::ManagedDropIn)
    {
        found.steps.push(UserStep {
            server: who.to_string(),
            text: format!(
                "the managed settings file {} sets {NEGOTIATION_KEY}, and no file mcplogs may write outranks it: ask whoever administers this machine for {NEGOTIATION_KEY}=auto in this project",
                l.path.as_deref().map(|p| p.display().to_string()).unwrap_or_default()
            ),
        });
        return;
    }
    if let Some(other) = conflicts.and_then(|c| c.of(s)) {
        found.steps.push(conflict_step(who, &s.name, &other.name));
        return;
    }
    // MCP_SDK_GENERATION=v1 outranks MCP_PROTOCOL_NEGOTIATION (the older client, or the
    // legacy handshake forced: docs/claude-code.md): `auto` would change nothing
    // as `probe` reads it: exactly `v1` (Claude Code ignores any other value)
    if let Some((v, by)) = crate::settings::env::effective_value(
        &sources,
        crate::claude_code::lifecycle::SDK_GENERATION_VAR,
    ) && v == "v1"
    {
        found.steps.push(UserStep {
            server: who.to_string(),
            text: format!(
                "MCP_SDK_GENERATION=v1 ({by}) gives every server the legacy handshake whatever {NEGOTIATION_KEY} says, and {} speaks only the 2026-07-28 protocol: take MCP_SDK_GENERATION out of {by} (mcplogs writes nothing: {NEGOTIATION_KEY}=auto would change nothing while it is set)",
                s.name
            ),
        });
        return;
    }
    if !offered(found, FixCause::ModernNegotiation, who, cx) {
        return;
    }
    let file = project.join(".claude").join("settings.local.json");
    let from = e
        .deciding_layer()
        .and_then(|l| l.path.as_deref())
        .map(|p| format!("legacy is in effect from {}", p.display()))
        .unwrap_or_else(|| {
            // the cached flags, resolved as `probe` resolves them (settings::env)
            let (_, flags) =
                crate::settings::env::cached_flags_in(&sources, cx.homes.first().map(PathBuf::as_path));
            use crate::claude_code::flags::{Transport, transport_of};
            let (t, url) = s
                .launch
                .as_deref()
                .map_or((Transport::Stdio, None), |l| transport_of(l.transport, &l.url));
            match crate::claude_code::flags::legacy_because(t, url, &flags) {
                Some(why) => format!("nothing sets legacy now, but {why}"),
                None => "nothing sets legacy now: its log is from a session that used the legacy handshake (the setting then, or a stdio server on a build before 2.1.292)".to_string(),
            }
        });
    found.changes.push(Change {
        cause: FixCause::ModernNegotiation,
        server: who.to_string(),
        why: format!(
            "it speaks only the 2026-07-28 protocol and {from}; {NEGOTIATION_KEY}=auto in {} (the local settings of {}, which outrank the user file and the project's shared file) makes Claude Code negotiate it there only",
            file.display(),
            project.display()
        ),
        file,
        layer: LayerKind::Local.as_str(),
        edit: Edit::Set {
            path: vec!["env".into(), NEGOTIATION_KEY.into()],
            value: Value::String("auto".into()),
        },
    });
}

/// Two servers of one project need opposite values of `MCP_PROTOCOL_NEGOTIATION`:
/// `modern` speaks only the new protocol, `legacy` needs the legacy setting.
fn conflict_step(who: &str, modern: &str, legacy: &str) -> UserStep {
    UserStep {
        server: who.to_string(),
        text: format!(
            "in this project {legacy} needs MCP_PROTOCOL_NEGOTIATION=legacy and {modern} speaks only the new protocol, which that setting breaks: no value serves both, so mcplogs writes neither; ask the authors of {legacy} to fix its tools/list (its evidence says how), or of {modern} to accept the legacy handshake"
        ),
    }
}

/// A failing server whose cause the configuration no longer has: the engine's fix (or
/// the user's own) is in place, and the log is older than it. `(label, what, cause)` for
/// each.
pub fn in_place(
    report: &ScanReport,
    homes: &[PathBuf],
    cwd: &Path,
    managed_dir: Option<&Path>,
) -> Vec<(String, String, FixCause)> {
    let mut out = Vec::new();
    for s in report
        .servers
        .iter()
        .filter(|s| s.fails_now() && !s.is_shared())
    {
        let who = label(&s.name, s.project.as_deref());
        match s.diagnosis.cause {
            Some(Cause::CommandNotFound) => {
                let Some(cmd) = s.launch.as_deref().and_then(|l| l.argv.first()) else {
                    continue;
                };
                let p = Path::new(cmd);
                if p.is_absolute() && is_executable(p) {
                    out.push((
                        who,
                        format!("its command is now {cmd}"),
                        FixCause::CommandPath,
                    ));
                }
            }
            Some(Cause::Timeout | Cause::ToolsTimeout) => {
                let Some(limit) = s.diagnosis.timeout_ms else {
                    continue;
                };
                let (project, _) = super::project_dir_of(s, cwd);
                let sources = Sources::for_scan_in(homes, &project, managed_dir);
                let var = lifecycle::MCP_TIMEOUT_VAR;
                let now = crate::settings::env::env_values(&sources, var, std::env::var(var).ok())
                    .into_iter()
                    .find(|l| l.value.is_some());
                if let Some(l) = now
                    && let Some(ms) = l.value.as_deref().and_then(lifecycle::timeout_ms)
                    && ms > limit
                {
                    out.push((
                        who,
                        format!(
                            "{var} is now {ms} ms ({}), above the {limit} ms it failed with",
                            l.describe()
                        ),
                        FixCause::Timeout,
                    ));
                }
            }
            Some(Cause::ModernOnly) => {
                let (project, _) = super::project_dir_of(s, cwd);
                let e = crate::settings::effective_negotiation(&Sources::for_scan_in(
                    homes,
                    &project,
                    managed_dir,
                ));
                if e.value() == Some(&crate::settings::NegotiationValue::Auto) {
                    let from = e
                        .deciding_layer()
                        .and_then(|l| l.path.as_deref())
                        .map(|p| format!(" (from {})", p.display()))
                        .unwrap_or_default();
                    out.push((
                        who,
                        format!("MCP_PROTOCOL_NEGOTIATION is now auto{from}, which negotiates the new protocol"),
                        FixCause::ModernNegotiation,
                    ));
                }
            }
            Some(c @ (Cause::TlsUntrusted | Cause::ProxyRefused)) => {
                if let Some(what) = super::remote::in_place(s, homes, cwd, managed_dir) {
                    let cause = if c == Cause::TlsUntrusted {
                        FixCause::TrustedCa
                    } else {
                        FixCause::NoProxy
                    };
                    out.push((who, what, cause));
                }
            }
            _ => {}
        }
    }
    out
}

/// A tool dropped for its long name: never fixed (the key is referred to by permission
/// rules, hooks, sign-ins, approval lists and a team's `.mcp.json`), only explained.
fn tool_name_step(s: &ServerReport, who: &str) -> UserStep {
    let max = lifecycle::TOOL_NAME_MAX_CHARS.value;
    let file = s
        .launch
        .as_deref()
        .and_then(|l| l.file.as_ref())
        .map(|f| f.display().to_string())
        .unwrap_or_else(|| "its configuration file".into());
    // `mcp__` + key + `__` + tool: the longest name dropped says how much too long
    let longest = s
        .evidence
        .iter()
        .filter_map(|e| name_length_in(&e.message))
        .max();
    let key_len = s.name.chars().count();
    let fits = longest.map(|n| key_len as i64 - (n as i64 - max as i64));
    let advice = match fits {
        Some(k) if k >= 1 => {
            let shorter: String = s.name.chars().take(k as usize).collect();
            let shorter = shorter.trim_end_matches(['-', '_']).to_string();
            format!(
                "rename the key \"{}\" in {file} to one of at most {k} characters (such as \"{shorter}\") yourself, and update what refers to it",
                s.name
            )
        }
        Some(_) => format!(
            "no key is short enough for its longest tool name: the server's authors must shorten the tool's name (its key \"{}\" is in {file})",
            s.name
        ),
        None => format!(
            "rename the key \"{}\" in {file} to a shorter one yourself, and update what refers to it",
            s.name
        ),
    };
    UserStep {
        server: who.to_string(),
        text: format!(
            "{} of its tools {} not sent to the model: `mcp__{}__<tool>` is over {max} characters. mcplogs never renames a server (permission rules, hook matchers, sign-ins, the approval lists and a team's .mcp.json refer to the key, and a rename can silently switch a rule off): {advice}",
            s.diagnosis.tools_not_sent,
            if s.diagnosis.tools_not_sent == 1 {
                "is"
            } else {
                "are"
            },
            s.name,
        ),
    }
}

/// `... its name has 129 characters and the API accepts at most 128`: the 129.
fn name_length_in(message: &str) -> Option<usize> {
    let rest = &message[message.find("its name has ")? + "its name has ".len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offered_between_the_first_and_the_last_observed_build() {
        let c = FixCause::CommandPath;
        assert!(offered_on(c, None));
        assert!(offered_on(c, ClaudeVersion::parse("2.1.300")));
        assert!(offered_on(c, ClaudeVersion::parse("2.1.336")));
        assert!(offered_on(c, ClaudeVersion::parse("2.1.287")));
        assert!(!offered_on(c, ClaudeVersion::parse("2.1.286")));
        assert!(!offered_on(c, ClaudeVersion::parse("2.1.337")));
    }

    #[test]
    fn the_length_of_a_dropped_name_is_read_from_claude_codes_message() {
        assert_eq!(
            name_length_in(
                "Tool \"mcp__a__b\" is not sent to Claude: its name has 129 characters and the API accepts at most 128"
            ),
            Some(129)
        );
        assert_eq!(name_length_in("its name has many characters"), None);
    }

    #[cfg(unix)]
    #[test]
    fn one_executable_a_folder_listed_twice_counts_once_a_plain_file_never() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a"), d.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let exe = a.join("tool");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(b.join("tool"), "not executable").unwrap();
        let var = std::env::join_paths([&a, &b, &a]).unwrap();
        assert_eq!(executables_named("tool", Some(&var)), vec![exe.clone()]);
        let other = b.join("tool");
        std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(executables_named("tool", Some(&var)).len(), 2);
        assert!(executables_named("tool", None).is_empty());
    }
}
