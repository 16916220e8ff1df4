//! Joins what Claude Code configures for a project ([`crate::claude_code::config`]) with
//! the servers the logs show: every configured server gets a row, the ones that never
//! wrote a log included, and a log of a server no longer configured says so.

use std::path::{Path, PathBuf};

use crate::claude_code::config::{ConfigProblem, Decider, Resolved, Scope, ServerState};
use crate::claude_code::names::encode_folder_name;
use crate::time::EpochSeconds;

use super::{ScanReport, ServerReport};

/// One project's configuration, resolved by the caller (the binary knows the home, the
/// environment and the managed folder).
#[derive(Debug)]
pub struct ProjectConfig {
    /// The project's absolute path.
    pub dir: PathBuf,
    pub resolved: Resolved,
    /// Whether the configuration is known well enough to say that a logged server is
    /// no longer configured: the folder exists and every configuration file was read.
    pub complete: bool,
    /// The global configuration (`~/.claude.json`) was found.
    global_found: bool,
}

/// [`ServerState::Skipped`]'s name in text and in `--json`, for the commands that name
/// the state without reading the configuration themselves (`explain`, `report`).
pub use crate::claude_code::config::CONFIGURATION_ERROR;

/// What the configuration says about one server.
#[derive(Debug, Clone, PartialEq)]
pub struct Configured {
    pub state: ServerState,
    /// The files and keys that decide the state (none for a server that starts).
    pub decided_by: Vec<Decider>,
    pub scope: Scope,
    /// The file the server's entry is in (none for an unreadable file's row).
    pub file: Option<PathBuf>,
    /// Problems in the entry that do not stop it (an unset `${VAR}`, `"disabled": true`).
    pub warnings: Vec<String>,
    /// The entry's transport; `None` for an unreadable file's row.
    pub transport: Option<crate::claude_code::config::TransportKind>,
    /// The settings files of its project Claude Code ignores as a whole (not strict
    /// JSON): what the way out must not ask to edit.
    pub ignored: Vec<PathBuf>,
    /// The settings files of its project that cannot be read (a FIFO, a folder, no
    /// permission): what the way out must not ask to edit either.
    pub unread: Vec<PathBuf>,
}

/// A logged server's place in the configuration.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Configuration {
    /// Not looked up (debug logs, a project folder that does not exist here).
    #[default]
    Unchecked,
    /// Configured in none of the files mcplogs reads: removed since, or a plugin,
    /// claude.ai or `--mcp-config` server. Its verdict is history: it never counts as
    /// failing now.
    NotConfigured,
    /// Boxed: most of a large scan's servers are one of the others, and the report of
    /// each of 100,000 holds this.
    Configured(Box<Configured>),
}

/// A configured server without a log in its project.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfiguredRow {
    /// The name as shown (through the secret rules: a name can hold a token).
    pub name: String,
    /// The name as configured, which may hold a token: never shown, only matched
    /// against a name the user gives (`--server`, `fix NAME`, `--except`:
    /// [`super::select::NameWant`]).
    pub configured_name: String,
    /// The project's path.
    pub project: String,
    /// Its encoded folder name (`-home-ana-proj`).
    pub project_folder: String,
    pub configured: Configured,
    /// For a server that starts: when the newest log of any server in the project was
    /// written, if after the server's configuration file last changed (Claude Code ran
    /// since, and did not start it).
    pub ran_since: Option<String>,
    /// `--since`: when its newest log (all of it older than the cut-off) was last
    /// written; `None` when it has no log at all, or without `--since`.
    pub last_session: Option<String>,
    /// `--since`'s cut-off, for a row with a [`ConfiguredRow::last_session`].
    pub since: Option<EpochSeconds>,
    /// What `mcplogs fix` would change for it (a `.mcp.json` server it enables), set by
    /// the resolution; `None` when nothing.
    pub fix: Option<Box<super::fix::ServerFix>>,
}

impl ConfiguredRow {
    /// The state's name: the configuration state, `not-seen-since` for a server Claude
    /// Code would start whose logs are all older than `--since`, or `not-started` for
    /// one it has no log of (`docs/json.md`).
    pub fn state_name(&self) -> &'static str {
        match self.configured.state {
            ServerState::Starts if self.last_session.is_some() => "not-seen-since",
            ServerState::Starts => "not-started",
            ref s => s.as_str(),
        }
    }

    /// A server Claude Code starts whose every session is older than `--since`.
    pub fn not_seen_since(&self) -> Option<&str> {
        match self.configured.state {
            ServerState::Starts => self.last_session.as_deref(),
            _ => None,
        }
    }

    /// A configuration error makes the scan's exit code 1; the other states do not.
    pub fn is_problem(&self) -> bool {
        matches!(self.configured.state, ServerState::Skipped(_))
    }
}

/// How much a configured state makes a log folder's verdict count now, first first: a
/// server Claude Code starts, one it asks about, an entry it skips (a problem of its
/// own), then one turned off or kept out. A folder several names share takes the
/// first of their states.
fn rank(state: &ServerState) -> u8 {
    match state {
        ServerState::Starts => 0,
        ServerState::PendingApproval => 1,
        ServerState::Skipped(_) => 2,
        ServerState::Disabled => 3,
        ServerState::Denied => 4,
    }
}

/// Log folders of servers Claude Code adds itself (plugins, claude.ai connectors): their
/// configuration is not in the files mcplogs reads.
fn added_by_claude_code(folder: &str) -> bool {
    folder.starts_with("plugin-")
        || folder.starts_with("claude-ai-")
        || folder.starts_with("claude_ai_")
}

impl Configured {
    /// Skipped with its whole file (a logged server that only a project `.mcp.json`
    /// that is not valid JSON can configure, [`Configured::of_problem`]): the file's row
    /// is the problem, counted and advised once (helper-90 #3: one broken file was a
    /// configuration error per server it could hold).
    pub fn skipped_with_file(&self) -> bool {
        matches!(self.state, ServerState::Skipped(_)) && self.transport.is_none()
    }

    /// What the resolution says about one configured server.
    pub fn of(s: &crate::claude_code::config::ServerConfig) -> Configured {
        Configured {
            state: s.state.clone(),
            // a name written twice in one list is one decider
            decided_by: s.decided_by.iter().fold(Vec::new(), |mut v: Vec<_>, d| {
                if !v.contains(d) {
                    v.push(d.clone());
                }
                v
            }),
            scope: s.scope,
            file: s.source.clone(),
            warnings: s.warnings.clone(),
            transport: Some(s.transport),
            ignored: Vec::new(),
            unread: Vec::new(),
        }
    }

    /// A configuration file that could not be read or parsed: a configuration error of
    /// the whole file (Claude Code loads none of its servers).
    pub fn of_problem(problem: &ConfigProblem) -> Configured {
        Configured {
            state: ServerState::Skipped(format!(
                "{}; Claude Code loads none of its servers",
                problem.error
            )),
            decided_by: Vec::new(),
            scope: Scope::Project,
            file: Some(problem.path.clone()),
            warnings: Vec::new(),
            transport: None,
            ignored: Vec::new(),
            unread: Vec::new(),
        }
    }
}

/// The name a file's row goes by (`.mcp.json`).
fn problem_name(problem: &ConfigProblem) -> String {
    problem
        .path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Every configured server of one resolution with what the configuration says about it,
/// in Claude Code's precedence, then a row per file that could not be read: what `scan`
/// joins and `settings` shows.
pub fn entries(resolved: &Resolved) -> Vec<(String, Configured)> {
    resolved
        .servers
        .iter()
        .map(|s| (s.name.clone(), Configured::of(s)))
        .chain(
            resolved
                .problems
                .iter()
                .map(|p| (problem_name(p), Configured::of_problem(p))),
        )
        .collect()
}

fn in_project(row: &ServerReport, dir: &Path, folder: &str) -> bool {
    // as read: a project path holding a secret is shown redacted
    let dir = dir.to_string_lossy();
    match row.project_as_read() {
        Some(p) if p == dir.as_ref() => true,
        // another project writing the same folder (`my_app`, `my-app`): its row is not
        // this project's (helper-98 F3: with `--since`, this project's server, seen
        // before only, was taken for the other's row and said nothing)
        Some(p) if crate::claude_code::names::encodes_to(p, folder) => false,
        _ => row.project_folder_as_read() == Some(folder),
    }
}

impl ProjectConfig {
    /// The project's own `.mcp.json` when it is the one file that failed, as not valid
    /// JSON, the folder and the global configuration being there: Claude Code then loads
    /// none of its servers and every other file's are known.
    fn broken_mcp_json(&self) -> Option<&ConfigProblem> {
        let [problem] = self.resolved.problems.as_slice() else {
            return None;
        };
        let ours = problem.path.parent() == Some(self.dir.as_path())
            && problem.path.file_name().is_some_and(|n| n == ".mcp.json");
        let json = matches!(
            problem.error,
            crate::claude_code::config::ConfigFileError::Json(_)
        );
        // (`complete` but for this one file)
        let rest = self.dir.is_dir() && self.global_found;
        (ours && json && rest).then_some(problem)
    }

    /// `dir`'s configuration, with `complete` worked out: the folder exists here, the
    /// global configuration was found, and no file failed to read.
    pub fn new(dir: PathBuf, global_config: Option<&Path>, resolved: Resolved) -> ProjectConfig {
        let global_found = global_config.is_some_and(Path::is_file);
        let complete = dir.is_dir() && global_found && resolved.problems.is_empty();
        ProjectConfig {
            dir,
            resolved,
            complete,
            global_found,
        }
    }
}

/// The projects whose configuration a scan joins: every project of the logs that is a
/// folder on this machine, and the working directory when Claude Code knows it as a
/// project (`known`) or the logs have it.
///
/// `within`: for a scan of another home (`--home DIR`), only its projects inside it
/// count (a copied home's logs name folders of the machine it came from, which may exist
/// here with other contents).
pub fn projects_to_check(
    report: &ScanReport,
    cwd: &Path,
    within: Option<&Path>,
    known: &dyn Fn(&Path) -> bool,
    listed: &[(PathBuf, bool)],
) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    // each project once (10,000 projects' servers each looked through the list was
    // quadratic)
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for s in &report.servers {
        if s.folder.is_none() {
            continue;
        }
        if let Some(project) = s.project_as_read()
            && seen.insert(project)
            && within.is_none_or(|w| Path::new(project).starts_with(w))
            && s.project_here() == super::ProjectHere::Folder
        {
            out.push(PathBuf::from(project));
        }
    }
    // `--server`: the projects of the servers it left out too (a configured server
    // without a log is found as plain `scan` finds it)
    for project in &report.unfiltered_projects {
        if seen.insert(project)
            && within.is_none_or(|w| Path::new(project).starts_with(w))
            && super::ProjectHere::of(Some(project)) == super::ProjectHere::Folder
        {
            out.push(PathBuf::from(project));
        }
    }
    // `--since`: the projects whose every session is older (no row of theirs left):
    // their servers are "not seen since", as in a project with a session since
    // (helper-81 #1: the project was dropped, a failing server with it)
    for project in report.not_since.iter().filter_map(|n| n.project.as_deref()) {
        if seen.insert(project)
            && within.is_none_or(|w| Path::new(project).starts_with(w))
            && super::ProjectHere::of(Some(project)) == super::ProjectHere::Folder
        {
            out.push(PathBuf::from(project));
        }
    }
    // (and those whose records name no `cwd`: a listed project of that folder name;
    // helper-83 #1)
    let not_since_folders: std::collections::HashSet<&str> = report
        .not_since
        .iter()
        .filter(|n| n.project.is_none())
        .filter_map(|n| n.project_folder.as_deref())
        .collect();
    // the projects `~/.claude.json` lists that configure servers (their own, or a
    // `.mcp.json`) but have no log yet, or none since `--since`: their servers are
    // listed from any folder, as from the project itself
    for (dir, own) in listed {
        let Some(project) = dir.to_str() else {
            continue;
        };
        if !seen.contains(project)
            && dir.is_absolute()
            && within.is_none_or(|w| dir.starts_with(w))
            && (*own
                || dir.join(".mcp.json").is_file()
                || (!not_since_folders.is_empty()
                    && not_since_folders.contains(encode_folder_name(project).as_str())))
            && super::ProjectHere::of(Some(project)) == super::ProjectHere::Folder
        {
            seen.insert(project);
            out.push(dir.clone());
        }
    }
    if !out.iter().any(|o| o == cwd) && known(cwd) {
        out.push(cwd.to_path_buf());
    }
    out
}

/// Joins every project's configuration into the report.
pub fn join(report: &mut ScanReport, projects: Vec<ProjectConfig>, opts: &super::ScanOptions) {
    // A configured name as the report shows names: through the secret rules (a name can
    // hold a token, printed with its tag: [`super::select::printed`]), before anything
    // cuts it to a column; a logged name was redacted so already, and is matched in that
    // form too (the tag tells apart two names printing alike).
    let shown = |n: &str| {
        if opts.no_redact {
            n.to_string()
        } else {
            super::select::printed(n)
        }
    };
    // a settings file no project could read, said once (the user file is every
    // project's)
    let mut unread: Vec<PathBuf> = Vec::new();
    for p in projects {
        for u in &p.resolved.unread_settings {
            if !unread.contains(&u.path) {
                unread.push(u.path.clone());
                report.warnings.push(crate::warning::Warning::new(
                    &u.path,
                    format!("cannot be read ({})", u.error),
                ));
            }
        }
        let folder = encode_folder_name(&p.dir.to_string_lossy());
        let project = p.dir.to_string_lossy().into_owned();
        let newest_log = report
            .servers
            .iter()
            .filter(|s| in_project(s, &p.dir, &folder))
            .filter_map(|s| s.last_seen.clone())
            .max();
        let mut matched = vec![false; report.servers.len()];
        let of = |cfg: &crate::claude_code::config::ServerConfig| Configured {
            ignored: p.resolved.ignored.clone(),
            unread: p
                .resolved
                .unread_settings
                .iter()
                .map(|u| u.path.clone())
                .collect(),
            ..Configured::of(cfg)
        };
        // a row of this project without a log, not looked at since `--since`
        let row = |name: &str, configured: Configured| ConfiguredRow {
            name: shown(name),
            configured_name: name.to_string(),
            project: project.clone(),
            project_folder: folder.clone(),
            configured,
            ran_since: None,
            last_session: None,
            since: None,
            fix: None,
        };
        // The entries Claude Code skips among a shared folder's names: each its own
        // configuration-error row when the folder takes another name's state (helper-89
        // #2: the skipped name's problem disappeared behind the one that starts)
        let mut skipped_sharing: Vec<(usize, usize)> = Vec::new();
        // which entry each row took its state from (by its place in the resolution)
        let mut took_from: Vec<Option<usize>> = vec![None; report.servers.len()];
        for (at, cfg) in p.resolved.servers.iter().enumerate() {
            let enc = encode_folder_name(&cfg.name);
            let name = shown(&cfg.name);
            let mut found = false;
            for (i, row) in report.servers.iter_mut().enumerate() {
                if !in_project(row, &p.dir, &folder) {
                    continue;
                }
                // by name (a folder several names share: each of its names, printed
                // with its tag as `name` is: its folder is redacted, and names holding
                // different tokens redact alike), or by its log folder, the name encoded
                if row.name_as_read() == cfg.name
                    || row.name == name
                    || row.shared_by_as_read().contains(&cfg.name)
                    || row.shared_by.contains(&name)
                    || row.folder_as_read() == Some(enc.as_str())
                {
                    matched[i] = true;
                    found = true;
                    // A folder several names share takes the state of the one that
                    // most counts now: one of them disabled while another still starts
                    // and fails was "disabled", its failure history (helper-88 #1).
                    let outranks = match &row.configuration {
                        Configuration::Configured(c) => {
                            row.is_shared() && rank(&cfg.state) < rank(&c.state)
                        }
                        _ => true,
                    };
                    if outranks {
                        row.configuration = Configuration::Configured(Box::new(of(cfg)));
                        took_from[i] = Some(at);
                    }
                    if row.is_shared() && matches!(cfg.state, ServerState::Skipped(_)) {
                        skipped_sharing.push((i, at));
                    }
                }
            }
            if found {
                continue;
            }
            let ran_since = match (&cfg.state, &newest_log) {
                (ServerState::Starts, Some(t)) => {
                    let changed = cfg
                        .source
                        .as_deref()
                        .and_then(|f| std::fs::metadata(f).ok())
                        .and_then(|m| m.modified().ok())
                        .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
                        .map(|d| d.as_secs() as EpochSeconds);
                    let log_time = crate::time::parse_iso(t);
                    match (changed, log_time) {
                        (Some(c), Some(l)) if l > c => Some(t.clone()),
                        _ => None,
                    }
                }
                _ => None,
            };
            // `--since`: its log folder is there, every session in it older
            let last_session = report
                .not_since
                .iter()
                .filter(|n| n.project_folder.as_deref() == Some(folder.as_str()) && n.folder == enc)
                .map(|n| n.last_written)
                .max()
                .map(crate::time::format_iso);
            report.configured.push(ConfiguredRow {
                name,
                ran_since: if last_session.is_some() {
                    None
                } else {
                    ran_since
                },
                since: last_session.as_ref().and(report.since),
                last_session,
                ..row(&cfg.name, of(cfg))
            });
        }
        // (by the entry, not its state: two names skipped for the same reason are two
        // problems)
        for (i, at) in skipped_sharing {
            let cfg = &p.resolved.servers[at];
            if took_from[i] != Some(at) {
                report.configured.push(row(&cfg.name, of(cfg)));
            }
        }
        for problem in &p.resolved.problems {
            report
                .configured
                .push(row(&problem_name(problem), Configured::of_problem(problem)));
        }
        // The logged servers of the project no file configures: not started now, when
        // every file was read ("no longer configured"), or when the one file that could
        // not be is the project's `.mcp.json`, not valid JSON: Claude Code loads none of
        // its servers (observed on 2.1.288 and 2.1.332), so they are skipped with it
        // (helper-88 #2: they counted as failing, with `fix` and a report for them).
        let unconfigured = match p.broken_mcp_json() {
            Some(problem) => Configuration::Configured(Box::new(Configured::of_problem(problem))),
            None if p.complete => Configuration::NotConfigured,
            None => continue,
        };
        for (i, row) in report.servers.iter_mut().enumerate() {
            if matched[i] || !in_project(row, &p.dir, &folder) {
                continue;
            }
            if row
                .folder
                .as_deref()
                .is_some_and(|f| !added_by_claude_code(f))
                && row.configuration == Configuration::Unchecked
            {
                row.configuration = unconfigured.clone();
            }
        }
    }
    // a printed form matched as the names are printed: knowing the configured values
    let want = opts.server.as_deref().map(|w| {
        // as the logged servers were chosen: a server of exactly that name, logged
        // or configured, is chosen by name only
        super::select::NameWant::knowing(w, &report.secrets)
            .by_name_only_if(report.by_name_only)
            .named_exactly_if_any(
                report
                    .configured
                    .iter()
                    .map(|r| r.configured_name.as_str())
                    .chain(report.unfiltered_names.iter().map(String::as_str))
                    .chain(report.servers.iter().map(|s| s.name.as_str())),
            )
    });
    let project_want = opts
        .project
        .as_deref()
        .map(|p| super::select::ProjectWant::knowing(p, &report.secrets, super::home_of_screen()));
    // A name only a configured row has exactly (in a project's `.mcp.json` the scan did
    // not read): the logged servers the scan chose by their log folder's name go too, as
    // they would have had it known the name (helper-86 #3).
    if let Some(w) = &want
        && w.is_by_name_only()
        && !report.by_name_only
    {
        let (kept, left): (Vec<_>, Vec<_>) = std::mem::take(&mut report.servers)
            .into_iter()
            .partition(|s| w.selects(&s.name, s.folder.as_deref()));
        report.servers = kept;
        for mut s in left {
            s.left_out();
            report.filtered_out.push(s);
        }
        report.by_name_only = true;
    }
    let keeps = |r: &ConfiguredRow| {
        // by its name or its log folder's (the name encoded, as a logged row is: `--since`
        // leaves a server whose sessions are all older a row of this list, which
        // `--server my-srv` selects as it selects the logged `my_srv` without `--since`)
        // (a shared folder's name, its names joined, selects each of them: a skipped
        // one's own row too)
        want.as_ref().is_none_or(|w| {
            w.selects(
                &r.configured_name,
                Some(&encode_folder_name(&r.configured_name)),
            ) || w.joins(&r.configured_name)
        }) && project_want
            .as_ref()
            .is_none_or(|p| p.selects(Some(&r.project), Some(&r.project_folder)))
    };
    // what the filters leave out is among the servers "did you mean" and "Known servers"
    // list: a configured server without a log is one scan shows, as a logged one is
    if want.is_some() || opts.project.is_some() {
        let left_out: Vec<String> = report
            .configured
            .iter()
            .filter(|r| !keeps(r))
            .map(|r| r.name.clone())
            .collect();
        report.unfiltered_names.extend(left_out);
        report.unfiltered_names.sort();
        report.unfiltered_names.dedup();
    }
    report.configured.retain(|r| keeps(r));
    report.configured.sort_by(|a, b| {
        (a.project.as_str(), a.name.to_lowercase())
            .cmp(&(b.project.as_str(), b.name.to_lowercase()))
    });
}

/// How Claude Code starts a logged server, as its configuration says now.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub transport: crate::claude_code::config::TransportKind,
    /// The program, then its arguments, `${VAR}` expanded as Claude Code expands them
    /// (stdio); empty for a remote server.
    pub argv: Vec<String>,
    /// The URL (http, sse); empty for a stdio server.
    pub url: String,
    /// The names of the variables the entry's `env` sets (their values are never kept:
    /// they are where credentials go).
    pub env_names: Vec<String>,
    pub scope: Scope,
    /// The file the entry is in.
    pub file: Option<PathBuf>,
    /// The output it goes into is not redacted (`--no-redact`): its folder and
    /// arguments are printed as they are, and a command to run by hand goes into its
    /// folder whatever that path holds (set by the resolution).
    pub shown_whole: bool,
}

impl Launch {
    pub fn of(cfg: &crate::claude_code::config::ServerConfig) -> Launch {
        use crate::claude_code::config::TransportKind;
        let argv = if cfg.transport == TransportKind::Stdio && !cfg.command.is_empty() {
            std::iter::once(cfg.command.clone())
                .chain(cfg.args.iter().cloned())
                .collect()
        } else {
            Vec::new()
        };
        Launch {
            transport: cfg.transport,
            argv,
            url: if cfg.transport == TransportKind::Stdio {
                String::new()
            } else {
                cfg.url.clone()
            },
            env_names: cfg.env.keys().cloned().collect(),
            scope: cfg.scope,
            file: cfg.source.clone(),
            shown_whole: false,
        }
    }

    /// Whether Claude Code starts the server as a process (stdio) with a command.
    pub fn is_stdio(&self) -> bool {
        self.transport == crate::claude_code::config::TransportKind::Stdio && !self.argv.is_empty()
    }
}

/// Finds each logged server's configuration entry and keeps how it is started
/// ([`ServerReport::launch`]). `resolve` gives a project's configuration (called once a
/// project); a project folder that does not exist here (or, for a scan of another home,
/// lies outside `within`) still has the entries of the home's `~/.claude.json` (user
/// and local scope), but not those of its `.mcp.json`, which is not this project's.
/// A shared log folder's servers get none (nothing says which one wrote the records).
pub fn attach_launch(
    report: &mut ScanReport,
    within: Option<&Path>,
    resolve: &dyn Fn(&Path) -> Resolved,
) {
    let mut cache: std::collections::HashMap<PathBuf, Resolved> = Default::default();
    for s in &mut report.servers {
        let (Some(folder), Some(project)) = (s.folder_as_read(), s.project_as_read()) else {
            continue;
        };
        if s.is_shared() {
            continue;
        }
        let dir = Path::new(project);
        if !dir.is_absolute() {
            continue;
        }
        let here = s.project_here() == super::ProjectHere::Folder
            && within.is_none_or(|w| dir.starts_with(w));
        let resolved = cache
            .entry(dir.to_path_buf())
            .or_insert_with(|| resolve(dir));
        let cfg = resolved
            .servers
            .iter()
            .filter(|c| here || c.scope != Scope::Project)
            .find(|c| c.name == s.name_as_read())
            .or_else(|| {
                resolved
                    .servers
                    .iter()
                    .filter(|c| here || c.scope != Scope::Project)
                    .find(|c| encode_folder_name(&c.name) == folder)
            });
        s.launch = cfg.map(|c| Box::new(Launch::of(c)));
    }
}
