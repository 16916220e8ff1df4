//! The resolution's last step: what `mcplogs fix` would do for each server
//! ([`crate::scan::fix::ServerFix`]), decided once for every command. The fix engine's
//! changes ([`crate::advice::fixes::find`]), each checked against the builds it was
//! observed to work on ([`crate::advice::fixes::offered_on`]) and against its file
//! (planned as `fix` plans it: a file `fix` would refuse is said, never offered), the
//! changes found made already ([`crate::advice::fixes::in_place`]), the legacy setting
//! from the server's settings advice, and the steps only the user can take.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::advice::fixes::{self, Context};
use crate::claude_code::lifecycle::ClaudeVersion;
use crate::scan::fix::{FixChange, FixState, ServerFix};
use crate::scan::{ScanReport, ServerReport};
use crate::settings::engine::{self, Change, Edit, FixCause};
use crate::settings::target::FixTarget;

/// What `mcplogs fix` is asked beyond the scan: `fix SERVER` (with `--command-path`),
/// and the Claude Code build here.
pub struct Ask<'a> {
    /// `mcplogs fix SERVER`: only this server, and a disabled one may be enabled.
    pub server: Option<&'a str>,
    /// `--command-path` (with `server`).
    pub command_path: Option<&'a Path>,
    /// The Claude Code build here (`claude --version`, or `fix --claude-version`):
    /// asked only when a change needs it (the status line must not start a process on
    /// every refresh). `None`: not known, every fix offered.
    pub build: &'a dyn Fn() -> Option<ClaudeVersion>,
    /// `fix --ca-file`: the CA file the user named, for a server whose certificate is
    /// not trusted.
    pub ca_file: Option<&'a crate::settings::ca::CaFile>,
    /// The network checks a change needs before it is offered (the CA file's handshake,
    /// the direct route for `NO_PROXY`): only `fix` makes them; `None` for every other
    /// command (those changes are then not offered: scan sends nothing anywhere).
    pub net: Option<&'a dyn crate::advice::fixes::NetChecks>,
}

/// Resolves every server's fixes of `report` (after its launch, configuration and
/// settings advice are resolved: the engine reads them). `home_scan`: a scan of a home
/// (log files named on the command line have no configuration for the engine to read).
pub fn attach(
    report: &mut ScanReport,
    homes: &[PathBuf],
    cwd: &Path,
    managed_dir: Option<&Path>,
    home_scan: bool,
    ask: &Ask,
) {
    let command = format!("mcplogs fix{}", crate::advice::home_flags(homes));
    let found = if home_scan {
        fixes::find(
            report,
            &Context {
                homes,
                cwd,
                managed_dir,
                server: ask.server,
                command_path: ask.command_path,
                path_var: std::env::var_os("PATH"),
                // checked below, so that a change not offered still names its file
                build: None,
                ca_file: ask.ca_file,
                net: ask.net,
            },
        )
    } else {
        fixes::Found::default()
    };
    let in_place = if home_scan {
        fixes::in_place(report, homes, cwd, managed_dir)
    } else {
        Vec::new()
    };
    let build: OnceCell<Option<ClaudeVersion>> = OnceCell::new();
    let states = states_of(found.changes, &|| *build.get_or_init(ask.build));
    // Each server takes the changes, steps and in-place notes for its label: grouped
    // once here, each group in order (a partition of every one left, per server, was
    // quadratic: a fifth of a warm scan of 10,000 server folders, most of 100,000's).
    let mut unplaced: Vec<Option<(String, FixChange)>> = states.into_iter().map(Some).collect();
    let mut unplaced_of: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, (w, _)) in unplaced.iter().flatten().enumerate() {
        unplaced_of.entry(w.clone()).or_default().push(i);
    }
    let mut steps: Vec<Option<_>> = found.steps.into_iter().map(Some).collect();
    let mut steps_of: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, st) in steps.iter().flatten().enumerate() {
        steps_of.entry(st.server.clone()).or_default().push(i);
    }
    let mut in_place_of: HashMap<&str, Vec<&(String, String, FixCause)>> = HashMap::new();
    for p in &in_place {
        in_place_of.entry(p.0.as_str()).or_default().push(p);
    }
    // a server whose project also has one that speaks only the new protocol gets no
    // legacy change (no value serves both: the engine's step says so, as `fix` does)
    let conflicted: Vec<bool> = if report
        .servers
        .iter()
        .any(crate::advice::needs_modern_negotiation)
    {
        report
            .servers
            .iter()
            .map(|s| {
                crate::advice::needs_legacy_setting(s)
                    && crate::advice::negotiation_conflict(report, s, cwd).is_some()
            })
            .collect()
    } else {
        Vec::new()
    };
    for (i, s) in report.servers.iter_mut().enumerate() {
        let label = fixes::label(&s.name, s.project.as_deref());
        let mut fix = ServerFix {
            command: command.clone(),
            verify: crate::advice::verify_command(homes),
            ..ServerFix::default()
        };
        if !conflicted.get(i).copied().unwrap_or(false)
            && let Some(c) = legacy_change(s)
        {
            fix.changes.push(c);
        }
        let mine = unplaced_of.remove(&label).unwrap_or_default();
        fix.changes.extend(
            mine.into_iter()
                .filter_map(|i| unplaced[i].take())
                .map(|(_, c)| c),
        );
        let placed: Vec<&(String, String, FixCause)> =
            in_place_of.get(label.as_str()).cloned().unwrap_or_default();
        for (_, what, cause) in &placed {
            fix.changes.push(FixChange {
                cause: *cause,
                why: what.clone(),
                change: None,
                state: FixState::InPlace,
            });
        }
        let mine = steps_of.remove(&label).unwrap_or_default();
        fix.steps = mine
            .into_iter()
            .filter_map(|i| steps[i].take())
            .map(|st| st.text)
            // the command is absolute now (in place): the engine's "put its absolute
            // path" step is about the old one
            .filter(|t| {
                !(placed.iter().any(|p| p.2 == FixCause::CommandPath)
                    && t.starts_with("its command `"))
            })
            .collect();
        s.fix = (!fix.changes.is_empty() || !fix.steps.is_empty()).then(|| Box::new(fix));
    }
    // a configured server without a log (`fix SERVER` enables it)
    report.fix_unlogged = ServerFix {
        command,
        verify: crate::advice::verify_command(homes),
        changes: unplaced.into_iter().flatten().map(|(_, c)| c).collect(),
        steps: steps
            .into_iter()
            .flatten()
            .map(|s| format!("{}: {}", s.server, s.text))
            .collect(),
    };
}

/// Each change's state, with the server it is for: not offered on this build, refused
/// by its file (read and planned as `fix` plans it), or planned. A file that already
/// holds every change of it is no change (the server's in-place check says so when the
/// log is older).
fn states_of(
    changes: Vec<Change>,
    build: &dyn Fn() -> Option<ClaudeVersion>,
) -> Vec<(String, FixChange)> {
    let mut out: Vec<(String, FixChange)> = Vec::new();
    let mut groups: Vec<(PathBuf, Vec<Change>)> = Vec::new();
    for c in changes {
        if !fixes::offered_on(c.cause, build()) {
            out.push((
                c.server.clone(),
                FixChange {
                    cause: c.cause,
                    why: c.why.clone(),
                    state: FixState::NotOffered {
                        build: build().map(|b| b.to_string()).unwrap_or_default(),
                        observed: c.cause.observed_range(),
                    },
                    change: Some(c),
                },
            ));
            continue;
        }
        match groups.iter_mut().find(|(p, _)| *p == c.file) {
            Some((_, cs)) => cs.push(c),
            None => groups.push((c.file.clone(), vec![c])),
        }
    }
    for (path, cs) in groups {
        let state = match engine::plan_file(&path, cs.clone()) {
            Ok(Some(_)) => FixState::Planned,
            Ok(None) => continue,
            Err(e) => FixState::Refused { why: e.to_string() },
        };
        out.extend(cs.into_iter().map(|c| {
            (
                c.server.clone(),
                FixChange {
                    cause: c.cause,
                    why: c.why.clone(),
                    state: state.clone(),
                    change: Some(c),
                },
            )
        }));
    }
    out
}

/// The legacy setting for a server it is for ([`crate::advice::needs_legacy_setting`],
/// started by Claude Code, its log folder its own), from its settings advice: the file
/// that wins in its project, or in effect there already, or why no file mcplogs may
/// write can.
fn legacy_change(s: &ServerReport) -> Option<FixChange> {
    if !(s.counts_now() && !s.is_shared() && crate::advice::needs_legacy_setting(s)) {
        return None;
    }
    let a = s.settings.as_deref()?;
    let key = crate::settings::NEGOTIATION_KEY;
    let (state, change) = match &a.target {
        FixTarget::Write { kind, path, .. } => (
            FixState::Planned,
            Some(Change {
                cause: FixCause::Negotiation,
                server: fixes::label(&s.name, s.project.as_deref()),
                why: a.target.reason(),
                file: path.clone(),
                layer: kind.as_str(),
                edit: Edit::Set {
                    path: vec!["env".into(), key.into()],
                    value: serde_json::Value::String(crate::settings::LEGACY.into()),
                },
            }),
        ),
        FixTarget::InEffect { .. } => (FixState::InPlace, None),
        _ => (
            FixState::Refused {
                why: a.target.reason(),
            },
            None,
        ),
    };
    Some(FixChange {
        cause: FixCause::Negotiation,
        why: a.target.reason(),
        change,
        state,
    })
}
