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
    /// `mcplogs fix SERVER`: only this server.
    pub server: Option<&'a str>,
    /// `mcplogs fix --except SERVER`: no change for these servers.
    pub except: &'a [String],
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
    let command: std::sync::Arc<str> =
        format!("mcplogs fix{}", crate::advice::home_flags(homes)).into();
    let verify: std::sync::Arc<str> = crate::advice::verify_command(homes).into();
    let shared_homes: std::sync::Arc<[PathBuf]> = homes.into();
    let found = if home_scan {
        fixes::find(
            report,
            &Context {
                homes,
                cwd,
                managed_dir,
                server: ask.server,
                except: ask.except,
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
    // Each server takes its changes and steps by its label: indexed once (a pass over
    // every change for every server was quadratic, most of a 100,000-server scan's time);
    // what no server takes is left, in order, for the unlogged ones.
    let mut unplaced: Taken<(String, FixChange)> = Taken::new(states, |(w, _)| w);
    let mut steps: Taken<fixes::UserStep> = Taken::new(found.steps, |st| &st.server);
    let mut placed_of: HashMap<&str, Vec<&(String, String, FixCause)>> = HashMap::new();
    for p in &in_place {
        placed_of.entry(p.0.as_str()).or_default().push(p);
    }
    // a server whose project also has one that speaks only the new protocol gets no
    // legacy change (no value serves both: the engine's step says so, as `fix` does)
    let conflicted: Vec<bool> = if crate::advice::any_modern_only(report) {
        let conflicts = crate::advice::Conflicts::new(report, cwd);
        report
            .servers
            .iter()
            .map(|s| crate::advice::needs_legacy_setting(s) && conflicts.of(s).is_some())
            .collect()
    } else {
        Vec::new()
    };
    for (i, s) in report.servers.iter_mut().enumerate() {
        let label = fixes::label(&s.name, s.project.as_deref());
        let mut fix = ServerFix {
            command: std::sync::Arc::clone(&command),
            verify: std::sync::Arc::clone(&verify),
            homes: std::sync::Arc::clone(&shared_homes),
            ..ServerFix::default()
        };
        if !conflicted.get(i).copied().unwrap_or(false)
            && let Some(c) = legacy_change(s)
        {
            fix.changes.push(c);
        }
        fix.changes
            .extend(unplaced.take(&label).into_iter().map(|(_, c)| c));
        let placed: &[&(String, String, FixCause)] =
            placed_of.get(label.as_str()).map_or(&[], Vec::as_slice);
        for (_, what, cause) in placed {
            fix.changes.push(FixChange {
                cause: *cause,
                why: what.clone(),
                change: None,
                state: FixState::InPlace,
            });
        }
        fix.steps = steps
            .take(&label)
            .into_iter()
            .map(|st| st.text)
            // the command is absolute now (in place): the engine's "put its absolute
            // path" step is about the old one
            .filter(|t| {
                !(placed.iter().any(|p| p.2 == FixCause::CommandPath)
                    && t.starts_with("its command `"))
            })
            .collect();
        // Kept for every server until the command's end, so kept at their length: the
        // lists grown a push at a time and the sentences formatted had room to spare,
        // a sixth of a 100,000-server scan's peak (issue 55).
        fix.changes.shrink_to_fit();
        fix.steps.shrink_to_fit();
        for t in &mut fix.steps {
            t.shrink_to_fit();
        }
        s.fix = (!fix.changes.is_empty() || !fix.steps.is_empty()).then(|| Box::new(fix));
    }
    // a configured server without a log (a `.mcp.json` server `fix` enables): its row
    // says so, as a logged server's own fix does
    for row in report.configured.iter_mut() {
        let label = fixes::label(&row.name, Some(&row.project));
        let changes: Vec<FixChange> = unplaced.peek(&label).map(|(_, c)| c.clone()).collect();
        row.fix = (!changes.is_empty()).then(|| {
            Box::new(ServerFix {
                command: std::sync::Arc::clone(&command),
                verify: std::sync::Arc::clone(&verify),
                homes: std::sync::Arc::clone(&shared_homes),
                changes,
                steps: Vec::new(),
            })
        });
    }
    report.fix_unlogged = ServerFix {
        command,
        verify,
        homes: shared_homes,
        changes: unplaced.rest().map(|(_, c)| c).collect(),
        steps: steps
            .rest()
            .map(|s| format!("{}: {}", s.server, s.text))
            .collect(),
    };
}

/// Items for servers, each taken by the first server of its label (in their order),
/// the rest left in order.
struct Taken<T> {
    items: Vec<Option<T>>,
    of: HashMap<String, Vec<usize>>,
}

impl<T> Taken<T> {
    fn new(items: Vec<T>, label: impl Fn(&T) -> &String) -> Self {
        let mut of: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, t) in items.iter().enumerate() {
            of.entry(label(t).clone()).or_default().push(i);
        }
        Taken {
            items: items.into_iter().map(Some).collect(),
            of,
        }
    }

    /// Every item of `label` not taken yet, in order.
    fn take(&mut self, label: &str) -> Vec<T> {
        let Some(at) = self.of.remove(label) else {
            return Vec::new();
        };
        at.into_iter()
            .filter_map(|i| self.items[i].take())
            .collect()
    }

    /// Every item of `label` not taken yet, in order, left in place.
    fn peek<'a>(&'a self, label: &str) -> impl Iterator<Item = &'a T> + 'a {
        self.of
            .get(label)
            .into_iter()
            .flatten()
            .filter_map(|&i| self.items[i].as_ref())
    }

    /// What no server took, in order.
    fn rest(self) -> impl Iterator<Item = T> {
        self.items.into_iter().flatten()
    }
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
    // each file's group by its path (a search of every group for each change was
    // quadratic in the files)
    let mut group_of: HashMap<PathBuf, usize> = HashMap::new();
    let mut ident_of: HashMap<PathBuf, PathBuf> = HashMap::new();
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
        // one group a file, however its path is spelled (two projects sharing one
        // `.claude` folder through a link): keyed by its identity, each path resolved once
        let key = match ident_of.get(&c.file) {
            Some(k) => k.clone(),
            None => {
                let k = engine::identity(&c.file);
                ident_of.insert(c.file.clone(), k.clone());
                k
            }
        };
        match group_of.get(&key) {
            Some(&i) => {
                let g = &mut groups[i];
                if let Some(first) = g.1.first() {
                    engine::take_unlinked_spelling(&mut g.0, first.layer, &c.file, c.layer);
                }
                g.1.push(c)
            }
            None => {
                group_of.insert(key, groups.len());
                groups.push((c.file.clone(), vec![c]));
            }
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
    // made once, at its length (a clone is), for the change and its declared edit
    let mut why = a.target.reason();
    why.shrink_to_fit();
    let (state, change) = match &a.target {
        FixTarget::Write { kind, path, .. } => (
            FixState::Planned,
            Some(Change {
                cause: FixCause::Negotiation,
                server: fixes::label(&s.name, s.project.as_deref()),
                why: why.clone(),
                file: path.clone(),
                layer: kind.as_str(),
                edit: Edit::Set {
                    path: vec!["env".into(), key.into()],
                    value: serde_json::Value::String(crate::settings::LEGACY.into()),
                },
            }),
        ),
        t if t.is_in_effect() => (FixState::InPlace, None),
        _ => (FixState::Refused { why: why.clone() }, None),
    };
    Some(FixChange {
        cause: FixCause::Negotiation,
        why,
        change,
        state,
    })
}
