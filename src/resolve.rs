//! One resolution of every scanned server's state, the one every command consults
//! (`scan`, `explain`, `report`, `export`, `fix`, `probe`): beyond its verdict from the
//! logs, how the configuration starts it (`attach_launch`), its configuration and
//! approval in its own project (`join_configuration`), and the settings in effect
//! there, which decide what the fix would change ([`crate::advice::attach_with`]).
//! [`resolve`] runs them in the one order; the binary only parses and renders. What
//! Claude Code's MCP discovery cache did or will do to a server is part of its state too
//! (`discovery`: notes among the report's warnings).

mod discovery;
pub mod fixes;

use std::path::{Path, PathBuf};

use crate::claude_code::config::{self, GlobalConfig};
use crate::scan::configured::{self as joined, ProjectConfig};
use crate::scan::{ScanOptions, ScanReport};
use crate::settings::{self, EffectiveNegotiation, Sources};

/// Whether [`resolve`] finds how each server is started, and what it masks there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launch {
    /// Not needed (`export`, `fix`).
    Skip,
    /// Found, with every value the configuration holds as a secret masked in its
    /// arguments and URL (`redact`: not under `--no-redact`).
    Attach { redact: bool },
}

/// Whether [`resolve`] finds what `mcplogs fix` would do for each server
/// ([`crate::scan::ServerReport::fix`]).
#[derive(Debug, Clone, Copy)]
pub enum Fixes {
    /// Not needed (`export`), or asked by the caller itself ([`fixes::attach`], `fix`
    /// with its `SERVER` and options).
    Skip,
    /// Found, the Claude Code build here told by `build` (`claude --version`), asked
    /// only when a change needs it.
    Find {
        build: fn() -> Option<crate::claude_code::lifecycle::ClaudeVersion>,
    },
}

/// What [`resolve`] does beyond the configuration and the settings advice, which it
/// always joins.
#[derive(Debug, Clone, Copy)]
pub struct Steps {
    pub launch: Launch,
    /// Redacts the scanned report ([`crate::scan::redact_report`]) after the launch is
    /// found and before anything else is joined (the screens of `scan` and `explain`;
    /// `report` redacts its own document).
    pub redact_report: bool,
    pub fixes: Fixes,
}

/// The settings layers of `dir` as a scan of `homes` reads them, with the managed
/// settings in `managed_dir` when given (tests' `--managed-dir`).
pub fn sources_for(homes: &[PathBuf], dir: &Path, managed_dir: Option<&Path>) -> Sources {
    Sources::for_scan_in(homes, dir, managed_dir)
}

/// The settings in effect in `dir` (see [`sources_for`]).
pub fn negotiation_in(
    homes: &[PathBuf],
    dir: &Path,
    managed_dir: Option<&Path>,
) -> EffectiveNegotiation {
    settings::effective_negotiation(&sources_for(homes, dir, managed_dir))
}

/// Every server of `report` resolved: its launch (per `steps`), its configuration and
/// approval in its own project, and the settings advice of that project. `cwd` stands
/// in for servers whose project is unknown (and is the folder whose project servers
/// are checked); `managed_dir` as [`sources_for`].
pub fn resolve(
    report: &mut ScanReport,
    opts: &ScanOptions,
    cwd: &Path,
    managed_dir: Option<&Path>,
    steps: Steps,
) {
    resolve_in(report, opts, cwd, managed_dir, steps, Rows::EveryProject);
}

/// Which configured servers without a log [`resolve`] gives rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rows {
    /// Those of the scanned servers' projects, the working directory's, and every
    /// project `~/.claude.json` lists (`scan` lists them from any folder).
    EveryProject,
    /// Those of the scanned servers' projects and the working directory's only: a
    /// session's resolution ([`session`]), which shows its own project's servers, and
    /// runs with every status line refresh (reading every listed project's files each
    /// time, with hundreds listed, was most of a refresh).
    ThisProject,
}

fn resolve_in(
    report: &mut ScanReport,
    opts: &ScanOptions,
    cwd: &Path,
    managed_dir: Option<&Path>,
    steps: Steps,
    rows: Rows,
) {
    // Every step below looks the projects' settings files up again: a file or folder
    // found missing is not looked up twice (on 100,000 server folders whose projects
    // are gone, over a hundred thousand failed `stat`s).
    let _absent = crate::absent::scope();
    // The configuration's global file, read once for every step below (a scan of log
    // files or folders named on the command line joins no configuration).
    let config = opts.request.paths.is_empty().then(|| config_sources(opts));
    // A `~/.claude.json` there but not readable as JSON is said, whichever projects are
    // joined: without it no configured server, approval or secret of it is known.
    if let Some((Some(global), _)) = &config
        && let Some(problem) = global.problem()
    {
        let w = crate::warning::Warning::new(
            global.path(),
            format!(
                "{problem}: the servers it configures and their states are not known (its values that look secret are still hidden)"
            ),
        );
        report.config_problem = Some(w.clone());
        report.warnings.push(w);
    }
    if let (Launch::Attach { redact }, Some((global, env))) = (steps.launch, &config) {
        attach_launch(report, opts, global.as_ref(), &**env, redact);
    }
    // Claude Code's discovery cache: before the redaction, which passes over warnings
    let mut cache_notes = 0..0;
    if let Some((global, env)) = &config {
        let cache = discovery::read(opts, cwd, managed_dir, global.as_ref());
        // what the cache infers from a home's servers counts the ones a filter left out
        if !report.filtered_out.is_empty() && discovery::counts_servers(&cache) {
            let mut others = ScanReport {
                servers: std::mem::take(&mut report.filtered_out),
                ..ScanReport::default()
            };
            attach_launch(&mut others, opts, global.as_ref(), &**env, false);
            report.filtered_out = others.servers;
        }
        let notes = discovery::apply(report, &cache, global.as_ref());
        cache_notes = report.warnings.len()..report.warnings.len() + notes.len();
        report.warnings.extend(notes);
        report.machine_state = Some(discovery::machine_state(&cache, global.as_ref()));
    }
    if steps.redact_report {
        crate::scan::redact_report(report);
    }
    // the cache's notes as the warnings say them now (redacted in place)
    if let Some(m) = &mut report.machine_state {
        m.notes = report
            .warnings
            .get(cache_notes)
            .unwrap_or_default()
            .iter()
            .map(ToString::to_string)
            .collect();
    }
    if let Some((global, env)) = &config {
        join_configuration(
            report,
            opts,
            cwd,
            managed_dir,
            global.as_ref(),
            &**env,
            rows,
        );
        discovery::unless_started(report);
        if steps.redact_report {
            crate::scan::configured_rows(report);
        }
        join_negotiation_others(report, opts, cwd, managed_dir, global.as_ref(), &**env);
    }
    // the homes the printed commands carry (`ScanReport::homes`: a scan of a home's
    // cache by its path names that home, whose settings decide for its servers)
    let homes = &report.homes.clone();
    crate::advice::attach_with(report, homes, cwd, &|dir| {
        negotiation_in(homes, dir, managed_dir)
    });
    if let Fixes::Find { build } = steps.fixes {
        fixes::attach(
            report,
            homes,
            cwd,
            managed_dir,
            opts.request.paths.is_empty(),
            &fixes::Ask {
                server: None,
                except: &[],
                command_path: None,
                build: &build,
                ca_file: None,
                net: None,
            },
        );
    }
}

/// How the configuration's `${VAR}` are looked up: the real environment, or none.
type EnvLookup = Box<dyn Fn(&str) -> Option<String>>;

/// The servers Claude Code configures for `dir` and each one's state (approval,
/// disabled, denied...), resolved as `join_configuration` resolves a scanned
/// project's: for `homes` as in the scan (none: this machine's, with its environment),
/// the settings layers of [`sources_for`]. `probe` starts what this says Claude Code
/// starts.
pub fn configured_in(
    homes: &[PathBuf],
    dir: &Path,
    managed_dir: Option<&Path>,
) -> config::Resolved {
    let (global, env) = config_sources_of(homes);
    project_states(global.as_ref(), &*env, homes, dir, managed_dir)
}

/// The names of the servers a scan of `homes` lists configured (none: this machine's):
/// those of `cwd` and of every project the homes' `~/.claude.json` lists, as plain
/// `scan` joins them. What `scan NAME` looks a name up in, so it finds every server
/// `scan --server NAME` finds (helper-81 #4: a project's own server, run from another
/// folder, was "no server of that name").
pub fn configured_names(homes: &[PathBuf], cwd: &Path, managed_dir: Option<&Path>) -> Vec<String> {
    let (global, env) = config_sources_of(homes);
    let mut dirs = vec![cwd.to_path_buf()];
    dirs.extend(
        config::listed_projects(global.as_ref())
            .into_iter()
            .map(|(d, _)| d)
            .filter(|d| d.is_absolute() && d.as_path() != cwd),
    );
    let mut names: Vec<String> = dirs
        .iter()
        .flat_map(|d| {
            project_states(global.as_ref(), &*env, homes, d, managed_dir)
                .servers
                .into_iter()
                .map(|s| s.name)
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// One project's configured servers and states, the global file read by the caller.
fn project_states(
    global: Option<&GlobalConfig>,
    env: &dyn Fn(&str) -> Option<String>,
    homes: &[PathBuf],
    dir: &Path,
    managed_dir: Option<&Path>,
) -> config::Resolved {
    let sources = sources_for(homes, dir, managed_dir);
    config::resolve_states_in(global, dir, env, &sources.state_sources())
}

/// Joins what Claude Code configures with the logs (every configured server gets a row):
/// for a scan of a home (this user's, or `--home DIR`'s with no environment), never for
/// log files or folders named on the command line.
fn join_configuration(
    report: &mut ScanReport,
    opts: &ScanOptions,
    cwd: &Path,
    managed_dir: Option<&Path>,
    global: Option<&GlobalConfig>,
    env: &dyn Fn(&str) -> Option<String>,
    rows: Rows,
) {
    let homes = &opts.request.homes;
    let listed = match rows {
        Rows::EveryProject => config::listed_projects(global),
        Rows::ThisProject => Vec::new(),
    };
    gone_listed_projects(report, homes.first().map(|h| h.as_path()), &listed);
    let dirs = joined::projects_to_check(
        report,
        cwd,
        homes.first().map(|h| h.as_path()),
        &|d| config::is_known_project(global, d),
        &listed,
    );
    let projects: Vec<ProjectConfig> = dirs
        .into_iter()
        .map(|dir| {
            let resolved = project_states(global, env, homes, &dir, managed_dir);
            ProjectConfig::new(dir, global.map(|g| g.path()), resolved)
        })
        .collect();
    // A project's own settings file Claude Code ignores (not strict JSON) is said from
    // any folder (the current folder's is in its settings summary already)
    let mut told: Vec<&Path> = Vec::new();
    for p in projects.iter().filter(|p| p.dir != cwd) {
        for f in p.resolved.ignored.iter().filter(|f| f.starts_with(&p.dir)) {
            if !told.contains(&f.as_path()) {
                told.push(f);
                report.warnings.push(crate::warning::Warning::new(
                    f,
                    "ignored entirely by Claude Code: not strict JSON (or unreadable), so none of its settings, approvals or disabled lists are in effect (`mcplogs settings` run in that project shows where it breaks)",
                ));
            }
        }
    }
    joined::join(report, projects, opts);
}

/// With `--server` or `--match-project`: the servers the filter left out that need one
/// value of `MCP_PROTOCOL_NEGOTIATION` (the legacy setting, or `auto` for a server that
/// speaks only the new protocol), their configuration joined as the full scan joins
/// it, when a shown server needs one too: the advice counts them
/// ([`crate::advice::Conflicts`], [`crate::advice::modern_only_servers`]), so a
/// filtered view says what the full scan says of its servers (no value serves both).
/// Nothing is joined for the others (a filtered scan of a large home stays cheap).
fn join_negotiation_others(
    report: &mut ScanReport,
    opts: &ScanOptions,
    cwd: &Path,
    managed_dir: Option<&Path>,
    global: Option<&GlobalConfig>,
    env: &dyn Fn(&str) -> Option<String>,
) {
    use crate::advice::{needs_legacy_setting, needs_modern_negotiation};
    // before the join, a left-out server's configuration is unchecked: it counts as
    // started, so this is every one that may need a value
    let wants =
        |s: &crate::scan::ServerReport| needs_legacy_setting(s) || needs_modern_negotiation(s);
    if report.filtered_out.is_empty() || !report.servers.iter().any(wants) {
        return;
    }
    let (candidates, rest): (
        Vec<crate::scan::ServerReport>,
        Vec<crate::scan::ServerReport>,
    ) = std::mem::take(&mut report.filtered_out)
        .into_iter()
        .partition(|s| wants(s));
    report.filtered_out = rest;
    if candidates.is_empty() {
        return;
    }
    let mut others = ScanReport {
        servers: candidates,
        homes: report.homes.clone(),
        ..ScanReport::default()
    };
    // their rows and warnings are the full scan's, not this view's: dropped; and joined
    // as the full scan joins them, which chooses no server by name (none of them is left
    // out again)
    let whole = ScanOptions {
        server: None,
        ..opts.clone()
    };
    join_configuration(
        &mut others,
        &whole,
        cwd,
        managed_dir,
        global,
        env,
        Rows::ThisProject,
    );
    report.filtered_out.extend(others.servers);
}

/// A project `~/.claude.json` still lists whose folder no longer exists, with rows in
/// the report (its logged servers): said once each, as a warning (its configured servers
/// without a log get no row, its `.mcp.json` and settings are not read). `within` as in
/// [`joined::projects_to_check`]: a copied home's projects of another machine are not
/// "gone".
fn gone_listed_projects(
    report: &mut ScanReport,
    within: Option<&Path>,
    listed: &[(PathBuf, bool)],
) {
    let mut said: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let gone: Vec<String> = report
        .servers
        .iter()
        .filter(|s| s.folder.is_some() && s.project_here() == crate::scan::ProjectHere::Gone)
        .filter_map(|s| s.project.as_deref())
        .filter(|p| {
            within.is_none_or(|w| Path::new(p).starts_with(w))
                && listed.iter().any(|(d, _)| d == Path::new(p))
        })
        .filter(|p| said.insert(p))
        .map(str::to_string)
        .collect();
    for p in gone {
        report.warnings.push(crate::warning::Warning::new(
            p,
            "project folder no longer exists, though ~/.claude.json still lists it: its rows are its logs' verdicts, from before; its .mcp.json and settings were not read, so its servers without a log are not listed",
        ));
    }
}

/// The configuration's global file, read once for every project of the scan, and the
/// `${VAR}` lookup: this user's, or for `--home DIR` that home's `.claude.json` with no
/// environment (the other machine's is not known here).
fn config_sources(opts: &ScanOptions) -> (Option<GlobalConfig>, EnvLookup) {
    config_sources_of(&opts.request.homes)
}

fn config_sources_of(homes: &[PathBuf]) -> (Option<GlobalConfig>, EnvLookup) {
    let (path, env): (_, EnvLookup) = match homes.first() {
        None => (
            crate::claude_code::paths::global_config_here(),
            Box::new(|k: &str| std::env::var(k).ok()),
        ),
        Some(h) => (
            Some(crate::claude_code::paths::claude_json_in(h)),
            Box::new(|_: &str| None),
        ),
    };
    (path.as_deref().map(GlobalConfig::read), env)
}

/// Finds how each logged server is started (its configured command or URL), for a scan
/// of a home; never for log files or folders named on the command line (whose
/// configuration is not known). Before the scan's redaction, which passes over the
/// command too; with `redact`, a value the configuration holds as a secret (an `env` or
/// header value) that also sits in an argument or URL is masked here.
fn attach_launch(
    report: &mut ScanReport,
    opts: &ScanOptions,
    global: Option<&GlobalConfig>,
    env: &dyn Fn(&str) -> Option<String>,
    redact: bool,
) {
    let seen = std::cell::RefCell::new(Vec::new());
    joined::attach_launch(
        report,
        opts.request.homes.first().map(|h| h.as_path()),
        &|dir| {
            let r = config::resolve_in(global, dir, env);
            seen.borrow_mut().extend(r.servers.iter().cloned());
            r
        },
    );
    let seen = seen.into_inner();
    if opts.no_redact {
        for l in report.servers.iter_mut().filter_map(|s| s.launch.as_mut()) {
            l.shown_whole = true;
        }
    }
    if !redact
        || (report.secrets.is_empty()
            && seen
                .iter()
                .all(|c| c.secret_values().is_empty() && c.url.is_empty()))
    {
        return;
    }
    let r = configured_redactor(&seen.iter().collect::<Vec<_>>(), &report.secrets);
    for l in report.servers.iter_mut().filter_map(|s| s.launch.as_mut()) {
        for t in l.argv.iter_mut().chain(std::iter::once(&mut l.url)) {
            *t = r.redact(t);
        }
    }
}

/// The redactor of configured values: the secret rules, every one of `secrets` (all the
/// configuration's, `crate::scan::secrets::collect`) and every env and header value of
/// `configs` that could be a secret, and their URLs
/// ([`crate::redact::RedactorBuilder::learn_configured_secrets`]).
pub fn configured_redactor(
    configs: &[&config::ServerConfig],
    secrets: &crate::redact::configured::ConfiguredSecrets,
) -> crate::redact::Redactor {
    let mut b = crate::redact::RedactorBuilder::new();
    b.learn_configured_secrets(secrets);
    let mut own = crate::redact::configured::ConfiguredSecrets::new();
    for c in configs {
        for (k, v) in c.secret_values() {
            own.add_configured(k, v);
        }
        own.add_url(&c.url);
        own.add_args(&c.args);
    }
    b.learn_configured_secrets(&own);
    b.build()
}

/// The running session's failing servers (`mcplogs statusline`, `mcplogs hook`),
/// resolved by [`resolve`] as `scan` resolves them in the session's project: the name
/// `scan` gives each, whether Claude Code still starts it, and what the settings there
/// say of the fix (the command `scan` gives, or that the fix is in effect already).
/// Reads only the configuration and the settings of that one project, and only when a
/// server fails (the status line refreshes every few seconds). `homes` as in the scan
/// (`--home`).
pub fn session(
    status: &mut crate::status::SessionStatus,
    homes: &[PathBuf],
    managed_dir: Option<&Path>,
    build: fn() -> Option<crate::claude_code::lifecycle::ClaudeVersion>,
) {
    use crate::classify::verdict::Diagnosis;
    use crate::status::{Resolved, ServerState};
    let Some(project_dir) = status.project_dir().map(Path::to_path_buf) else {
        return;
    };
    let Some(log_folder) = status.project_folder.clone() else {
        return;
    };
    // (the servers the cache served are added after these)
    let logged = status.servers.len();
    let failing: Vec<(usize, Diagnosis)> = status
        .servers
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match &s.state {
            ServerState::Failed(d) => Some((i, (**d).clone())),
            _ => None,
        })
        .collect();
    let opts = ScanOptions {
        request: crate::logs::discovery::Request {
            homes: homes.to_vec(),
            paths: Vec::new(),
        },
        ..ScanOptions::default()
    };
    // The servers the session did not log: when the discovery cache holds entries, its
    // resolution tells whether one served them (read from each one's newest file: its
    // last session's verdict and id), as `scan` tells it.
    let unlogged: Vec<(String, PathBuf, Diagnosis, Option<String>)> =
        if status.unlogged.is_empty() || !discovery::has_entries(&opts) {
            Vec::new()
        } else {
            status
                .unlogged
                .iter()
                .filter_map(|(name, files)| {
                    // the newest file whose last session logged a record that matters
                    // (one with none, such as this session's, decides nothing)
                    files.iter().find_map(|file| {
                        let (d, sid) = crate::status::last_session_of(file)?;
                        Some((name.clone(), file.clone(), d, Some(sid?)))
                    })
                })
                .collect()
        };
    if failing.is_empty() && unlogged.is_empty() {
        return;
    }
    let project = project_dir.to_string_lossy().into_owned();
    let project_folder = log_folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let mut names = crate::claude_code::names::NameMap::default();
    let (global, _) = config_sources(&opts);
    if let Some(g) = &global {
        names.add_claude_json(g.path());
    }
    // the project's `.mcp.json` names too, as `scan` reads them: a log folder one of them
    // shares with a user server is the shared folder `scan` resolves (helper-94 F1: a
    // disabled `.mcp.json` twin took the folder, and a failing server read as working)
    names.add_mcp_json(&project_dir.join(".mcp.json"));
    let mut report = ScanReport {
        homes: homes.to_vec(),
        ..ScanReport::default()
    };
    let candidates = failing
        .iter()
        .map(|(i, d)| {
            let st = &status.servers[*i];
            (st.name.clone(), st.file.clone(), d.clone(), None)
        })
        .chain(
            unlogged
                .iter()
                .map(|(n, f, d, sid)| (n.clone(), Some(f.clone()), d.clone(), sid.clone())),
        )
        // the session's other servers too: the cache's resolution counts the servers an
        // entry could be for, as in `scan`
        .chain(
            status
                .servers
                .iter()
                .filter(|s| !matches!(s.state, ServerState::Failed(_)))
                .map(|s| {
                    let d = Diagnosis::new(match s.state {
                        ServerState::Working => crate::classify::verdict::Verdict::Healthy,
                        _ => crate::classify::verdict::Verdict::Unknown,
                    });
                    (s.name.clone(), None, d, None)
                }),
        )
        .collect::<Vec<_>>();
    for (folder, file, d, sid) in candidates {
        // the log file read, and its last record's time: what the discovery cache's
        // resolution reads of a scanned server (its process start, its failure)
        let last_seen = file
            .as_deref()
            .and_then(crate::scan::last_record_time)
            .map(crate::time::format_iso);
        let evidence = match (&sid, &file) {
            (Some(sid), Some(f)) => vec![crate::scan::Evidence::of_session(
                f.clone(),
                last_seen.clone(),
                sid,
            )],
            _ => Vec::new(),
        };
        let mut s = crate::scan::ServerReport {
            project: Some(project.clone()),
            project_folder: project_folder.clone(),
            last_seen,
            failed_sessions: 1,
            evidence,
            latest_session: Some(Box::new(crate::scan::LatestSession {
                id: sid.as_deref().map(std::sync::Arc::from),
                started: None,
            })),
            deciding_file: file.map(std::sync::Arc::new),
            ..crate::scan::ServerReport::of_one_session(
                &folder,
                log_folder.join(format!("mcp-logs-{folder}")),
                d,
            )
        };
        crate::scan::name_from_configuration(&mut s, &names);
        report.servers.push(s);
    }
    resolve_in(
        &mut report,
        &opts,
        &project_dir,
        managed_dir,
        Steps {
            // the engine's command-path fix reads how the server is started
            launch: Launch::Attach { redact: true },
            redact_report: false,
            fixes: Fixes::Find { build },
        },
        Rows::ThisProject,
    );
    status.config_unparsable = report.config_problem.is_some();
    // each name and command as `scan` shows them: a value the configuration marks as
    // secret hidden (`svc-VALUE`, `VALUE` another entry's `env` value, is
    // `svc-[REDACTED:config]`; the status line and the hook pass the secret rules and
    // the tag over it): the values of the homes' `~/.claude.json` (every project's local
    // servers), the managed files and the session's project, the files this resolution
    // reads anyway. Not every listed project's `.mcp.json` and settings: that was most
    // of a refresh with hundreds listed, on every refresh while a server fails (the
    // memos' redactor reads them, once a session: `status::MemoRedactor`).
    let r = {
        let mut b = crate::redact::RedactorBuilder::new();
        b.learn_configured_secrets(&crate::scan::secrets::collect(
            &crate::scan::secrets::Places {
                homes: homes.to_vec(),
                projects: vec![project_dir.clone()],
                managed_dir: managed_dir.map(Path::to_path_buf),
                listed: false,
            },
        ));
        b.build()
    };
    let shown =
        |name: &str| crate::text::terminal_safe(&crate::scan::select::shown_by(&r, name), false);
    // served from the cache in this session: shown as `scan` shows them
    for s in report
        .servers
        .iter()
        .skip(failing.len())
        .take(unlogged.len())
    {
        if s.discovery_cache
            .as_ref()
            .is_some_and(|c| c.kind == crate::scan::CacheServedKind::Served)
        {
            status.servers.push(crate::status::ServerStatus {
                name: s.folder.clone().unwrap_or_default(),
                state: ServerState::Cached,
                resolved: Some(Resolved {
                    name: shown(&s.name),
                    counts: s.counts_now(),
                    fix: None,
                    fix_in_effect: false,
                    shared: s.is_shared(),
                }),
                file: s.deciding_file.as_deref().cloned(),
            });
        }
    }
    // the session's other servers: whether Claude Code still starts each (the status
    // line counts none it no longer starts, as `scan`), now that the configuration is read
    let others = status
        .servers
        .iter()
        .enumerate()
        .take(logged)
        .filter(|(_, s)| !matches!(s.state, ServerState::Failed(_)))
        .map(|(i, _)| i)
        .collect::<Vec<_>>();
    for (i, s) in others
        .into_iter()
        .zip(report.servers.iter().skip(failing.len() + unlogged.len()))
    {
        status.servers[i].resolved = Some(Resolved {
            name: shown(&s.name),
            counts: s.counts_now(),
            fix: None,
            fix_in_effect: false,
            shared: s.is_shared(),
        });
    }
    for ((i, _), s) in failing.iter().zip(&report.servers) {
        // the discovery cache kept its tools: the status line says what scan says
        if s.discovery_cache.is_some() {
            status.servers[*i].state = ServerState::Failed(Box::new(s.diagnosis.clone()));
        }
        let in_effect = s.diagnosis.legacy_fix_applies()
            && s.settings.as_ref().is_some_and(|a| a.target.is_in_effect());
        let engine = s.fix.as_deref();
        status.servers[*i].resolved = Some(Resolved {
            name: shown(&s.name),
            counts: s.counts_now(),
            // the command `scan` gives: the legacy setting's, else the fix engine's
            fix: if s.legacy_fix_applies() {
                Some(
                    s.settings
                        .as_deref()
                        .map_or_else(|| "mcplogs fix".to_string(), crate::advice::fix_command),
                )
            } else {
                engine
                    .filter(|f| f.fixable())
                    .map(|f| r.redact(f.command.as_ref()))
            },
            fix_in_effect: in_effect || engine.is_some_and(|f| f.in_place()),
            shared: s.is_shared(),
        });
    }
}
