//! `mcplogs scan`: the screen (a table, or a list below its three columns; `--verbose`
//! evidence) and the `--json` document (whose shapes are `json_doc`'s).

use colored::Colorize;

use super::{paint, verdict_label, warnings_json};
use crate::advice::reason::short_reason;
use crate::classify::verdict::Verdict;
use crate::json_doc::{self, SCHEMA_VERSION};
use crate::scan::{Evidence, ScanReport, ServerReport, VerdictSeen};
use crate::settings::LayerKind;
use crate::settings::target::FixTarget;
use crate::text::layout::{block, cols, tilde, tilde_within, wrap, wrap_keeping};
use crate::text::{cut, pretty_message, terminal_safe};

#[derive(Debug, Clone, Default)]
pub struct ScreenOptions {
    /// The terminal's width in columns; `None` (piped, no `COLUMNS`): nothing is cut or
    /// wrapped, the layout is the same.
    pub width: Option<usize>,
    /// This user's home folder, shown as `~` in project headings.
    pub home: Option<String>,
    /// The working directory: a log tree under it is shown relative to it, as the user
    /// typed it (`sample-logs/…`).
    pub cwd: Option<String>,
    pub verbose: bool,
    /// The `--home` folders scanned, as given: the commands shown carry them.
    pub homes: Vec<std::path::PathBuf>,
}

/// A project path for a heading: the home folder as `~`.
fn project_heading(project: Option<&str>, home: Option<&str>) -> String {
    let Some(p) = project else {
        return "(debug logs: project not recorded)".to_string();
    };
    tilde(&terminal_safe(p, false), home)
}

/// A log tree for a heading: relative to the working directory when under it, else with
/// the home folder as `~`.
fn tree_shown(tree: &std::path::Path, o: &ScreenOptions) -> String {
    if let Some(rest) = o
        .cwd
        .as_deref()
        .and_then(|c| tree.strip_prefix(c).ok())
        .filter(|r| !r.as_os_str().is_empty())
    {
        return terminal_safe(&rest.display().to_string(), false);
    }
    tilde(
        &terminal_safe(&tree.display().to_string(), false),
        o.home.as_deref(),
    )
}

/// What one action covers: the servers, by name and project.
struct Action {
    /// Fixes first, then failures, then servers that work only because Claude Code
    /// is lenient.
    rank: u8,
    text: String,
    servers: Vec<String>,
}

/// The advice, each action once with the servers it covers (as `flutter doctor`
/// groups its checks). The legacy fix is grouped by the file it writes.
fn actions(report: &ScanReport, home: Option<&str>) -> (Vec<Action>, bool) {
    // Each server listed as its name and its project's number ([`NAME_SEP`]), named as
    // shown once the items are made: with its project where its name is under two
    // items and in two projects (helper-81 #10: `no-resulttype` under the legacy fix
    // and under "works today", one of each project, read as two answers for one
    // server), plainly otherwise (a label on each of 100,000 servers sharing names
    // across projects cost the screen a sixth of its memory).
    let mut names = Listed::default();
    let mut out = Grouped::default();
    let mut any_fix_or_in_place = false;
    let mut push = |rank: u8, text: String, server: String| {
        out.add(text, server, |text| Action {
            rank,
            text,
            servers: Vec::new(),
        })
    };
    let mut legacy: Grouped<(String, LayerKind, Vec<String>)> = Grouped::default();
    let mut legacy_advice: Option<std::sync::Arc<crate::settings::target::SettingsAdvice>> = None;
    // whether every project of those servers is gone (the note says so only then)
    let mut legacy_gone = true;
    // servers healthy only under a legacy setting no longer set: (the file `fix` would
    // write for them, their own action, their name)
    let mut removed: Vec<(Option<String>, String, String)> = Vec::new();
    for s in &report.servers {
        // Not started now (or no longer configured): its state says what to do, its
        // old verdict does not.
        if let Some(text) = crate::advice::configured::logged_way_out(s, home, &report.homes) {
            // a `.mcp.json` server `mcplogs fix` enables: its action, as a row's
            match crate::advice::fix_action(s).filter(|e| e.planned) {
                Some(e) => {
                    any_fix_or_in_place = true;
                    push(
                        0,
                        tilde_within(&terminal_safe(&e.text, false), home),
                        names.label(&s.name, s.project.as_deref()),
                    );
                }
                None => push(3, text, names.label(&s.name, s.project.as_deref())),
            }
            // a `.mcp.json` server pending approval that fails (`claude -p` started it):
            // what makes it fail has its item too (helper-88 #10)
            if !crate::advice::pending_and_failing(s) {
                continue;
            }
        }
        if s.diagnosis.verdict == Verdict::Healthy {
            if crate::advice::legacy_removed_note(s).is_some() {
                // the same change as the legacy action's, when that writes its file:
                // joined to it below (one change, one action)
                let file = s.settings.as_ref().and_then(|a| match &a.target {
                    FixTarget::Write { path, .. } => Some(tilde(
                        &terminal_safe(&path.display().to_string(), false),
                        home,
                    )),
                    _ => None,
                });
                removed.push((
                    file,
                    crate::advice::for_server_in(s, &report.homes),
                    names.label(&s.name, s.project.as_deref()),
                ));
            }
            continue;
        }
        let name = names.label(&s.name, s.project.as_deref());
        // the fix engine's change (planned, made, or not offered on this build): it
        // replaces the server's own advice, so the screen never says to hand-edit what
        // `fix` does
        if let Some(e) = crate::advice::fix_action(s) {
            any_fix_or_in_place |= e.planned || e.in_place;
            let rank = if e.planned || e.in_place { 0 } else { 1 };
            push(
                rank,
                tilde_within(&terminal_safe(&e.text, false), home),
                name,
            );
            continue;
        }
        let rank = if s.diagnosis.verdict.is_problem() {
            1
        } else {
            2
        };
        if s.diagnosis.verdict == Verdict::Tolerated && !s.is_shared() {
            push(rank, crate::advice::TOLERATED_ACTION.to_string(), name);
            continue;
        }
        // The legacy fix: one action for every file `mcplogs fix` writes (one change,
        // one action), built below.
        if !s.is_shared()
            && s.diagnosis.legacy_fix_applies()
            && let Some(a) = &s.settings
            && a.conflict.is_none()
            && let FixTarget::Write { path, kind, .. } = &a.target
        {
            any_fix_or_in_place = true;
            let file = tilde(&terminal_safe(&path.display().to_string(), false), home);
            legacy_advice.get_or_insert_with(|| std::sync::Arc::clone(a));
            legacy_gone &= a.project_gone;
            legacy.add(file, name, |file| (file, *kind, Vec::new()));
            continue;
        }
        let (rank, text) = if !s.is_shared()
            && s.diagnosis.legacy_fix_applies()
            && let Some(a) = &s.settings
            && a.conflict.is_none()
        {
            any_fix_or_in_place = true;
            (
                0,
                // the command's own paths under the home folder as `~` too (outside
                // any quotes, so the shell still expands it), as the file is shown
                tilde_within(
                    &match &a.target {
                        FixTarget::Write { path, kind, .. } => crate::advice::legacy_action(
                            a,
                            *kind,
                            &tilde(&terminal_safe(&path.display().to_string(), false), home),
                        ),
                        _ => crate::advice::for_server_in(s, &report.homes),
                    },
                    home,
                ),
            )
        } else {
            (rank, crate::advice::for_server_in(s, &report.homes))
        };
        push(rank, text, name);
    }
    for (file, text, name) in removed {
        match file.filter(|f| legacy.has(f)) {
            Some(file) => legacy.add(file, name, |_| unreachable!("a file of the list")),
            None => push(0, text, name),
        }
    }
    let legacy = legacy.items;
    if let Some(a) = &legacy_advice {
        let text = match legacy.as_slice() {
            [(file, kind, _)] => {
                let mut a = (**a).clone();
                a.project_gone = legacy_gone;
                crate::advice::legacy_action(&a, *kind, file)
            }
            _ => crate::advice::legacy_action_files(a, &names.shown_in_files(&legacy, home)),
        };
        // the command's own paths under the home folder as `~` too (outside any
        // quotes, so the shell still expands it), as the files are shown
        let text = tilde_within(&text, home);
        for (_, _, names) in &legacy {
            for n in names {
                push(0, text.clone(), n.clone());
            }
        }
    }
    for r in &report.configured {
        // a `.mcp.json` server `mcplogs fix` enables: its action, as a logged server's
        if let Some(e) = crate::advice::row_fix_action(r) {
            any_fix_or_in_place |= e.planned || e.in_place;
            let rank = if e.planned || e.in_place { 0 } else { 3 };
            push(
                rank,
                tilde_within(&terminal_safe(&e.text, false), home),
                names.label(&r.name, Some(&r.project)),
            );
            continue;
        }
        let rank = if r.is_problem() { 1 } else { 3 };
        let text = if r.not_seen_since().is_some() {
            crate::advice::configured::not_seen_way_out(report.since, &report.homes)
        } else {
            crate::advice::configured::row_way_out(r, home, &report.homes)
        };
        push(rank, text, names.label(&r.name, Some(&r.project)));
    }
    let mut out = out.items;
    out.sort_by_key(|a| a.rank);
    name_servers(&mut out, &names.projects, home);
    (out, any_fix_or_in_place)
}

/// The projects of the servers [`actions`] lists, each numbered once.
#[derive(Default)]
struct Listed<'a> {
    projects: Vec<&'a str>,
    numbers: std::collections::HashMap<&'a str, usize>,
}

impl<'a> Listed<'a> {
    /// A server as listed: its name (terminal-safe), [`NAME_SEP`], its project's number.
    fn label(&mut self, name: &str, project: Option<&'a str>) -> String {
        let p = project.unwrap_or("");
        let ix = match self.numbers.get(p) {
            Some(&ix) => ix,
            None => {
                self.projects.push(p);
                self.numbers.insert(p, self.projects.len() - 1);
                self.projects.len() - 1
            }
        };
        format!("{}{NAME_SEP}{ix}", terminal_safe(name, false))
    }

    /// The files of the legacy action with their servers as a sentence names them (not
    /// as labels: helper-95 #6 read `srv\x000`): a name under two files with its
    /// project (`srv (~/work/a)`), any other plainly.
    fn shown_in_files(
        &self,
        files: &[(String, LayerKind, Vec<String>)],
        home: Option<&str>,
    ) -> Vec<(String, LayerKind, Vec<String>)> {
        let under_two = |name: &str| {
            files
                .iter()
                .filter(|(_, _, ns)| ns.iter().any(|l| unlabel(l).0 == name))
                .count()
                > 1
        };
        files
            .iter()
            .map(|(file, kind, labels)| {
                let names = labels
                    .iter()
                    .map(|l| {
                        let (n, ix) = unlabel(l);
                        match ix.and_then(|i| self.projects.get(i)) {
                            Some(p) if !p.is_empty() && under_two(n) => {
                                format!("{n} ({})", tilde(&terminal_safe(p, false), home))
                            }
                            _ => n.to_string(),
                        }
                    })
                    .collect();
                (file.clone(), *kind, names)
            })
            .collect()
    }
}

/// Between a listed server's name and its project's number in [`actions`].
const NAME_SEP: char = '\u{0}';

/// A listed server's name and its project's number ([`Listed::label`]); a text that is
/// no label is a name of no project.
fn unlabel(label: &str) -> (&str, Option<usize>) {
    match label.rsplit_once(NAME_SEP) {
        Some((n, ix)) => (n, ix.parse().ok()),
        None => (label, None),
    }
}

/// The servers of each item as shown: a name under two items and in two projects with
/// its project (`no-resulttype (~/work/api)`), or with how many when more than
/// [`PROJECTS_NAMED`] of them are under the item (`no-resulttype (98 projects)`: a name a
/// hundred projects hold is one entry, not a hundred); any other name plainly; each
/// once an item.
fn name_servers(items: &mut [Action], projects: &[&str], home: Option<&str>) {
    fn split(s: &str) -> (&str, usize) {
        let (n, ix) = unlabel(s);
        (n, ix.unwrap_or(usize::MAX))
    }
    // per name: the first item and project it is under, and whether it is under another
    // item too and in another project too
    let labelled: std::collections::HashSet<String> = {
        let mut seen: std::collections::HashMap<&str, (usize, usize, bool, bool)> =
            std::collections::HashMap::new();
        for (i, a) in items.iter().enumerate() {
            for s in &a.servers {
                let (n, ix) = split(s);
                let e = seen.entry(n).or_insert((i, ix, false, false));
                e.2 |= e.0 != i;
                e.3 |= e.1 != ix;
            }
        }
        seen.into_iter()
            .filter(|(_, e)| e.2 && e.3)
            .map(|(n, _)| n.to_string())
            .collect()
    };
    for a in items.iter_mut() {
        let servers = std::mem::take(&mut a.servers);
        // each name once, in the order first listed, with its projects (labelled ones)
        let mut order: Vec<(&str, Vec<usize>)> = Vec::new();
        let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for s in &servers {
            let (n, ix) = split(s);
            let pos = *at.entry(n).or_insert_with(|| {
                order.push((n, Vec::new()));
                order.len() - 1
            });
            let ixs = &mut order[pos].1;
            if labelled.contains(n) && ixs.len() <= PROJECTS_NAMED && !ixs.contains(&ix) {
                ixs.push(ix);
            }
        }
        for (n, ixs) in order {
            let named: Vec<&str> = ixs
                .iter()
                .filter_map(|&ix| projects.get(ix).copied())
                .filter(|p| !p.is_empty())
                .collect();
            if named.is_empty() {
                a.servers.push(n.to_string());
            } else if ixs.len() > PROJECTS_NAMED {
                a.servers
                    .push(format!("{n} (more than {PROJECTS_NAMED} projects)"));
            } else {
                for p in named {
                    a.servers
                        .push(format!("{n} ({})", tilde(&terminal_safe(p, false), home)));
                }
            }
        }
    }
}

/// How many projects a name under an item is named with at most ([`name_servers`]).
const PROJECTS_NAMED: usize = 3;

/// Items made once a key (an action's text, a legacy fix's file), in the order first
/// seen, each with the names given for it, once each, in the order first given: found
/// by the key in a map (a search of the list for every server was quadratic: on
/// 100,000 servers with a project each, a tenth of a scan).
struct Grouped<T> {
    items: Vec<T>,
    at: std::collections::HashMap<String, usize>,
    named: std::collections::HashSet<(usize, String)>,
    /// How many entries of each name (without its project) an item holds.
    per_name: std::collections::HashMap<(usize, String), usize>,
}

impl<T> Default for Grouped<T> {
    fn default() -> Self {
        Grouped {
            items: Vec::new(),
            at: std::collections::HashMap::new(),
            named: std::collections::HashSet::new(),
            per_name: std::collections::HashMap::new(),
        }
    }
}

/// The names an item of [`Grouped`] holds.
trait Names {
    fn names(&mut self) -> &mut Vec<String>;
}

impl Names for Action {
    fn names(&mut self) -> &mut Vec<String> {
        &mut self.servers
    }
}

impl Names for (String, LayerKind, Vec<String>) {
    fn names(&mut self) -> &mut Vec<String> {
        &mut self.2
    }
}

impl<T: Names> Grouped<T> {
    fn has(&self, key: &str) -> bool {
        self.at.contains_key(key)
    }

    /// `name` under `key`'s item, made by `make` the first time.
    fn add(&mut self, key: String, name: String, make: impl FnOnce(String) -> T) {
        let i = match self.at.get(&key) {
            Some(&i) => i,
            None => {
                self.items.push(make(key.clone()));
                self.at.insert(key, self.items.len() - 1);
                self.items.len() - 1
            }
        };
        // (a name with its project's number, [`NAME_SEP`]: at most one more project of
        // a name an item keeps than [`name_servers`] names, so 100,000 servers sharing
        // names keep a few entries each, not one a server)
        let plain = unlabel(&name).0;
        let kept = self.per_name.entry((i, plain.to_string())).or_insert(0);
        if *kept > PROJECTS_NAMED {
            return;
        }
        if self.named.insert((i, name.clone())) {
            *kept += 1;
            self.items[i].names().push(name);
        }
    }
}

/// The one-line summary: "10 servers: 6 fail, 4 can be fixed with `mcplogs fix`",
/// counting the servers the fix engine changes (or changed) too: the count is the
/// servers `mcplogs fix` plans.
pub fn summary_line(report: &ScanReport) -> String {
    let n = report.servers.len() + report.configured.len();
    let failing = report.servers.iter().filter(|s| s.fails_now()).count();
    // a server of the engine's, unless the legacy setting already counts it
    let by_engine = |in_place: bool| {
        report
            .servers
            .iter()
            .filter(|s| !s.legacy_fix_applies())
            .filter(|s| {
                crate::advice::fix_action(s)
                    .is_some_and(|e| if in_place { e.in_place } else { e.planned })
            })
            .count()
    };
    // and the `.mcp.json` servers without a log that `mcplogs fix` enables
    let rows_fixable = report
        .configured
        .iter()
        .filter(|r| crate::advice::row_fix_action(r).is_some_and(|e| e.planned))
        .count();
    let engine_fixable = by_engine(false) + rows_fixable;
    let engine_in_place = by_engine(true);
    let legacy_fixable = report
        .servers
        .iter()
        .filter(|s| s.legacy_fix_applies())
        .count();
    let fixable = legacy_fixable + engine_fixable;
    let in_place = report
        .servers
        .iter()
        .filter(|s| {
            s.diagnosis.legacy_fix_applies()
                && s.settings.as_ref().is_some_and(|a| a.target.is_in_effect())
        })
        .count();
    // (of the servers Claude Code starts now: one disabled, or skipped for a
    // configuration error, is counted by its state, helper-88 #11)
    let tolerated = report
        .servers
        .iter()
        .filter(|s| s.diagnosis.verdict == Verdict::Tolerated && s.counts_now())
        .count();
    let unfixed = report
        .servers
        .iter()
        .filter(|s| crate::advice::legacy_removed_note(s).is_some())
        .count();
    let mut parts = Vec::new();
    // `--since`: servers with sessions, none since the cut-off, were not looked at:
    // "none fail" would be about them too
    let not_seen = report
        .configured
        .iter()
        .filter(|r| r.not_seen_since().is_some())
        .count();
    if failing == 0 && not_seen > 0 {
        let seen = report.servers.len();
        parts.push(match seen {
            0 => "none seen since".to_string(),
            1 => "the 1 seen since does not fail".to_string(),
            n => format!("none of the {n} seen since fail"),
        });
    } else if failing == 0 && unfixed > 0 {
        parts.push("none fail now".to_string());
    } else if failing == 0 {
        parts.push("none fail".to_string());
    } else {
        parts.push(format!(
            "{failing} {}",
            crate::text::agree(failing, "fails", "fail")
        ));
    }
    if fixable > 0 {
        // The command as the advice below words it, when one command fixes them all.
        let mut commands: Vec<String> = report
            .servers
            .iter()
            .filter(|s| s.legacy_fix_applies())
            .filter_map(|s| s.settings.as_deref().map(crate::advice::fix_command))
            .collect();
        // the engine's changes are planned by the same `mcplogs fix` (with --home)
        commands.extend(
            report
                .servers
                .iter()
                .filter(|s| crate::advice::fix_action(s).is_some_and(|e| e.planned))
                .filter_map(|s| s.fix.as_deref().map(|f| f.command.to_string())),
        );
        commands.extend(
            report
                .configured
                .iter()
                .filter(|r| crate::advice::row_fix_action(r).is_some_and(|e| e.planned))
                .filter_map(|r| r.fix.as_deref().map(|f| f.command.to_string())),
        );
        commands.sort();
        commands.dedup();
        // A long command (a copied home, a project's file) is left to the advice below,
        // where it is shown whole.
        match commands.as_slice() {
            [one] if one == "mcplogs fix" => {
                parts.push(format!("{fixable} can be fixed with `{one}`"))
            }
            _ if engine_fixable > 0 => {
                parts.push(format!("{fixable} can be fixed with mcplogs fix (below)"))
            }
            _ => parts.push(format!(
                "{fixable} can be fixed with the legacy setting (below)"
            )),
        }
    }
    let in_place = in_place + engine_in_place;
    if in_place > 0 {
        parts.push(format!(
            "{in_place} already fixed (restart Claude Code to check)"
        ));
    }
    if unfixed > 0 {
        parts.push(format!(
            "{unfixed} {} again at the next start (the legacy setting was removed)",
            crate::text::agree(unfixed, "fails", "fail")
        ));
    }
    if tolerated > 0 {
        parts.push(format!(
            "{tolerated} {} only because Claude Code fills in missing fields",
            crate::text::agree(tolerated, "works", "work")
        ));
    }
    parts.extend(state_counts(report));
    format!(
        "{n} server{}: {}",
        if n == 1 { "" } else { "s" },
        parts.join(", ")
    )
}

/// The configuration states, counted apart from the verdicts: "2 disabled, 1 pending
/// approval, 1 configuration error, 1 not started, 1 no longer configured".
fn state_counts(report: &ScanReport) -> Vec<String> {
    use crate::claude_code::config::ServerState;
    use crate::scan::configured::Configuration;
    let mut counts: Vec<(&'static str, usize)> = vec![
        ("disabled", 0),
        ("pending approval", 0),
        ("denied by policy", 0),
        ("configuration error", 0),
        ("not started", 0),
        ("no longer configured", 0),
    ];
    let mut bump = |label: &str| {
        if let Some(c) = counts.iter_mut().find(|(l, _)| *l == label) {
            c.1 += 1;
        }
    };
    let label = |st: &ServerState| match st {
        ServerState::Starts => "not started",
        ServerState::PendingApproval => "pending approval",
        ServerState::Disabled => "disabled",
        ServerState::Denied => "denied by policy",
        ServerState::Skipped(_) => "configuration error",
    };
    for s in &report.servers {
        match &s.configuration {
            Configuration::NotConfigured => bump("no longer configured"),
            // (one skipped with its file: the file's row counts)
            Configuration::Configured(c) if c.skipped_with_file() => {}
            Configuration::Configured(c) if c.state != ServerState::Starts => bump(label(&c.state)),
            _ => {}
        }
    }
    let mut not_seen = 0;
    for r in &report.configured {
        if r.not_seen_since().is_some() {
            not_seen += 1;
        } else {
            bump(label(&r.configured.state));
        }
    }
    let mut out: Vec<String> = counts
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(l, n)| {
            if l == "configuration error" && n > 1 {
                format!("{n} configuration errors")
            } else {
                format!("{n} {l}")
            }
        })
        .collect();
    if not_seen > 0 {
        out.insert(
            0,
            format!(
                "{not_seen} not seen since {}",
                report
                    .since
                    .map(|t| crate::time::cut_off(&crate::time::format_iso(t)))
                    .unwrap_or_else(|| "--since".to_string())
            ),
        );
    }
    out
}

/// One row of the scan table: a logged server with its verdict, or a configured server
/// without a log with its state.
struct RowView<'a> {
    project: Option<&'a str>,
    tree: Option<&'a std::path::Path>,
    name: String,
    /// The verdict, or the state (`disabled`, `pending approval`, ...).
    label: String,
    verdict: Option<Verdict>,
    /// For a state row: whether it is a configuration error (red) or pending (yellow).
    state_problem: bool,
    state_pending: bool,
    time: String,
    reason: String,
    only_connected: bool,
}

impl RowView<'_> {
    fn painted(&self) -> String {
        match self.verdict {
            Some(v) => paint(v, &self.label).to_string(),
            None if self.state_problem => self.label.red().bold().to_string(),
            None if self.state_pending => self.label.yellow().to_string(),
            None => self.label.dimmed().to_string(),
        }
    }
}

/// Where a table row comes from: a logged server, or a configured server without a log
/// with the project it is shown under (that of the logged group it closes, if any).
#[derive(Clone, Copy)]
enum RowSource<'a> {
    Logged(&'a ServerReport),
    Configured(&'a crate::scan::configured::ConfiguredRow, Option<&'a str>),
}

/// The rows in table order: the logged servers as sorted, each project's configured
/// servers without a log right after its logged ones, then projects with no log at all.
/// Only where each row comes from is listed (a list of 100,000 made rows would be a
/// sixth of a scan's memory); rows are made from it a share at a time.
fn row_sources(report: &ScanReport) -> Vec<RowSource<'_>> {
    let mut out = Vec::with_capacity(report.servers.len() + report.configured.len());
    let mut used = vec![false; report.configured.len()];
    // (a row goes under its own project's servers; under those of another spelling of
    // its log folder only when its project has none: two projects write one folder)
    let logged: std::collections::HashSet<&str> = report
        .servers
        .iter()
        .filter_map(|s| s.project.as_deref())
        .collect();
    for (i, s) in report.servers.iter().enumerate() {
        out.push(RowSource::Logged(s));
        let last_of_project = report
            .servers
            .get(i + 1)
            .is_none_or(|n| n.project != s.project);
        if last_of_project {
            for (j, r) in report.configured.iter().enumerate() {
                if !used[j]
                    && (s.project.as_deref() == Some(r.project.as_str())
                        || (!logged.contains(r.project.as_str())
                            && s.project_folder.as_deref() == Some(r.project_folder.as_str())
                            // (not another project that writes the same folder: its
                            // row goes under its own heading, helper-98 F3)
                            && s.project.as_deref().is_none_or(|p| {
                                !crate::claude_code::names::encodes_to(p, &r.project_folder)
                            })))
                {
                    used[j] = true;
                    out.push(RowSource::Configured(r, s.project.as_deref()));
                }
            }
        }
    }
    for (j, r) in report.configured.iter().enumerate() {
        if !used[j] {
            out.push(RowSource::Configured(r, Some(r.project.as_str())));
        }
    }
    out
}

/// The LAST SEEN column of the row `src` stands for.
fn row_time(src: RowSource<'_>) -> String {
    match src {
        RowSource::Logged(s) => s
            .last_seen
            .as_deref()
            .map(crate::time::local_time)
            .unwrap_or_else(|| "-".to_string()),
        // `--since`: its last session, all older than the cut-off
        RowSource::Configured(r, _) => r
            .not_seen_since()
            .map(crate::time::local_time)
            .unwrap_or_else(|| "-".to_string()),
    }
}

/// The row `src` stands for, its time made by [`row_time`]. Without `reasons`, its
/// reason and log tree are left empty (the pass that measures the columns needs
/// neither).
fn row_view<'a>(
    src: RowSource<'a>,
    home: Option<&str>,
    reasons: bool,
    time: String,
) -> RowView<'a> {
    use crate::advice::configured::row_label;
    match src {
        RowSource::Logged(s) => RowView {
            project: s.project.as_deref(),
            tree: if reasons { s.log_tree() } else { None },
            name: terminal_safe(&s.name, false),
            label: s.diagnosis.verdict.as_str().to_string(),
            verdict: Some(s.diagnosis.verdict),
            state_problem: false,
            state_pending: false,
            time,
            reason: if reasons {
                logged_reason(s, home)
            } else {
                String::new()
            },
            only_connected: s.latest_only_connected,
        },
        RowSource::Configured(r, project) => RowView {
            project,
            tree: None,
            name: terminal_safe(&r.name, false),
            label: row_label(r).to_string(),
            verdict: None,
            state_problem: r.is_problem(),
            state_pending: r.configured.state
                == crate::claude_code::config::ServerState::PendingApproval,
            time,
            reason: match &r.ran_since {
                _ if !reasons => String::new(),
                Some(t)
                    if r.configured.state == crate::claude_code::config::ServerState::Starts =>
                {
                    format!(
                        "configured; Claude Code ran here since ({}) without starting it",
                        crate::time::local_time(t)
                    )
                }
                _ => crate::advice::configured::row_reason(r, home),
            },
            only_connected: false,
        },
    }
}

/// How many rows are made at once (in parallel) before they are written.
const ROW_SHARE: usize = 4096;

/// The widths of the table's columns, and its form at the terminal's width.
struct TableLayout {
    name_w: usize,
    verdict_w: usize,
    time_w: usize,
    /// The columns before REASON, with their gaps.
    fixed: usize,
    /// The reason in its own column (else on the line below the server).
    inline: bool,
    /// Below the width of the three columns: each server's name on its own line.
    list: bool,
}

/// One row's lines, laid out as `l` says.
fn row_lines(r: &RowView<'_>, l: &TableLayout, o: &ScreenOptions) -> String {
    let mut out = String::new();
    if l.list {
        let w = o.width.unwrap_or(usize::MAX);
        out.push_str(&wrap_keeping(&r.name, "  ", 4, o.width).bold().to_string());
        out.push_str(&format!("    {} · {}\n", r.painted(), r.time));
        if !r.reason.is_empty() {
            out.push_str(&format!("    {}\n", cut(&r.reason, w - 4).dimmed()));
        }
        if r.only_connected {
            out.push_str(&wrap(
                crate::advice::LATEST_ONLY_CONNECTED,
                "    ",
                4,
                o.width,
            ));
        }
        return out;
    }
    let name = match o.width {
        Some(_) => cut(&r.name, l.name_w),
        None => r.name.clone(),
    };
    let mut line = format!(
        "  {name}{}  {}{}  {}",
        " ".repeat(l.name_w.saturating_sub(cols(&name))),
        r.painted(),
        " ".repeat(l.verdict_w - cols(&r.label)),
        r.time,
    );
    let reason = r.reason.as_str();
    if l.inline {
        if !reason.is_empty() {
            line.push_str(&" ".repeat(l.time_w - cols(&r.time) + 2));
            match o.width {
                Some(w) => line.push_str(&cut(reason, w - l.fixed)),
                None => line.push_str(reason),
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    } else {
        out.push_str(line.trim_end());
        out.push('\n');
        if !reason.is_empty() {
            let indent = 4 + l.name_w;
            let w = o.width.unwrap_or(usize::MAX);
            out.push_str(&" ".repeat(indent));
            out.push_str(&cut(reason, w.saturating_sub(indent)).dimmed().to_string());
            out.push('\n');
        }
    }
    if r.only_connected {
        out.push_str(&wrap(
            crate::advice::LATEST_ONLY_CONNECTED,
            "    ",
            4,
            o.width,
        ));
    }
    out
}

/// A logged server's REASON column: a note on its configuration, then its short reason.
fn logged_reason(s: &ServerReport, home: Option<&str>) -> String {
    use crate::advice::configured::logged_note;
    let short = short_reason(s);
    let short = match (s.is_shared(), short.is_empty()) {
        (true, true) => "shared log folder".to_string(),
        (true, false) => format!("shared log folder; {short}"),
        (false, _) => short,
    };
    match logged_note(s, home) {
        Some(n) if short.is_empty() => n,
        Some(n) => format!("{n}; {short}"),
        None => short,
    }
}

/// `mcplogs scan`: the summary, the servers grouped under their project, then what to
/// do (each action once, with its servers and the exact command). Fits `width`.
pub fn scan_screen(report: &ScanReport, o: &ScreenOptions) -> String {
    if report.servers.is_empty() && report.configured.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    out.push_str(
        &wrap(&summary_line(report), "", 2, o.width)
            .trim_end()
            .bold()
            .to_string(),
    );
    out.push_str("\n\n");

    // The columns' widths from a first pass over the rows, which are made again, a
    // share at a time, as they are written. Both passes make rows in parallel; the
    // times (a time zone lookup each) are made once, in the first.
    use rayon::prelude::*;
    let sources = row_sources(report);
    let home = o.home.as_deref();
    let mut times: Vec<String> = sources.par_iter().map(|&src| row_time(src)).collect();
    let (name_w, marked_w, verdict_w, time_w) = sources
        .par_iter()
        .zip(&times)
        .map(|(&src, time)| {
            let r = row_view(src, home, false, String::new());
            let w = cols(&r.name);
            let marked = if r.name.contains("[REDACTED:") { w } else { 0 };
            (w, marked, cols(&r.label), cols(time))
        })
        .reduce(
            || (cols("SERVER"), 0, cols("VERDICT"), 9),
            |a, b| (a.0.max(b.0), a.1.max(b.1), a.2.max(b.2), a.3.max(b.3)),
        );
    // A name holding a redacted secret is never cut (a cut would leave `…` of it, and
    // its tag is what tells it from the others printing alike): its column widens to it
    // as far as the three columns fit.
    let name_w = match o.width {
        Some(w) => {
            let room = w.saturating_sub(2 + 2 + verdict_w + 2 + time_w);
            name_w.min((w / 4).max(12).max(marked_w.min(room)))
        }
        None => name_w,
    };
    let fixed = 2 + name_w + 2 + verdict_w + 2 + time_w + 2;
    // The reason goes in its own column when at least 30 columns are left for it, else on
    // the line below the server.
    let inline = o.width.is_none_or(|w| w >= fixed + 30);
    // Below the width of the three columns, a list: each server's name on its own line,
    // its verdict and time under it, then the reason.
    let list = o.width.is_some_and(|w| w < fixed - 2);
    let layout = TableLayout {
        name_w,
        verdict_w,
        time_w,
        fixed,
        inline,
        list,
    };
    let head = if inline {
        format!(
            "  {:<name_w$}  {:<verdict_w$}  {:<time_w$}  REASON",
            "SERVER", "VERDICT", "LAST SEEN"
        )
    } else {
        format!(
            "  {:<name_w$}  {:<verdict_w$}  LAST SEEN",
            "SERVER", "VERDICT"
        )
    };

    // A project whose logs sit in more than one log tree gets a group per tree, each
    // heading naming its tree.
    let mut trees: std::collections::BTreeMap<Option<&str>, std::collections::BTreeSet<_>> =
        std::collections::BTreeMap::new();
    let of_server: Vec<(Option<&str>, Option<&std::path::Path>)> = report
        .servers
        .par_iter()
        .map(|s| (s.project.as_deref(), s.log_tree()))
        .collect();
    let mut last = None;
    for pair in of_server {
        // A project's servers come together, most of them of one tree.
        if last != Some(pair) {
            trees.entry(pair.0).or_default().insert(pair.1);
            last = Some(pair);
        }
    }
    let mut group: Option<(Option<&str>, Option<&std::path::Path>)> = None;
    for (share, times) in sources.chunks(ROW_SHARE).zip(times.chunks_mut(ROW_SHARE)) {
        let made: Vec<(Option<&str>, Option<&std::path::Path>, String)> = share
            .par_iter()
            .zip(times.par_iter_mut())
            .map(|(&src, time)| {
                let r = row_view(src, home, true, std::mem::take(time));
                (r.project, r.tree, row_lines(&r, &layout, o))
            })
            .collect();
        for (p, tree, lines) in made {
            let key = (p, tree);
            if group.is_none_or(|g| g.0 != p || (tree.is_some() && g.1 != tree)) {
                if group.is_some() {
                    out.push('\n');
                }
                // a path is never cut: a long one wraps, every character kept
                let heading = project_heading(p, home);
                for line in wrap_keeping(&heading, "", 0, o.width).lines() {
                    out.push_str(&line.bold().to_string());
                    out.push('\n');
                }
                if let Some(tree) = key.1
                    && trees.get(&p).is_some_and(|t| t.len() > 1)
                {
                    let line = format!("logs in {}", tree_shown(tree, o));
                    for line in wrap_keeping(&line, "  ", 4, o.width).lines() {
                        out.push_str(&line.dimmed().to_string());
                        out.push('\n');
                    }
                }
                if !list {
                    out.push_str(&head.dimmed().to_string());
                    out.push('\n');
                }
                group = Some(key);
            }
            out.push_str(&lines);
        }
    }

    let (acts, any_fix) = actions(report, o.home.as_deref());
    if !acts.is_empty() {
        out.push('\n');
        out.push_str(&"What to do".bold().to_string());
        out.push('\n');
        for (i, a) in acts.iter().enumerate() {
            let first = format!("  {}. ", i + 1);
            let indent = cols(&first);
            // every path under the home as `~`, as the table and the rest say it
            let text = tilde_within(&a.text, o.home.as_deref());
            // (advice and names: every character kept, a long path or name broken
            // across lines rather than cut)
            out.push_str(&wrap_keeping(&text, &first, indent, o.width));
            out.push_str(&wrap_keeping(
                &a.servers.join(", "),
                &format!("{}Servers: ", " ".repeat(indent)),
                indent + 9,
                o.width,
            ));
        }
        if any_fix {
            out.push_str(&wrap(&crate::advice::after_fix(&o.homes), "  ", 2, o.width));
        }
    }
    if o.verbose {
        for s in &report.servers {
            out.push('\n');
            out.push_str(&server_details(s, o));
        }
    } else {
        let hints = stderr_hints(report, o);
        if !hints.is_empty() {
            out.push('\n');
            out.push_str(&"Server stderr".bold().to_string());
            out.push('\n');
            out.push_str(&hints);
        }
    }
    out
}

/// Fields of one line (`label: value`, given plain and as shown), three spaces apart;
/// a field that would pass `width` starts a new line indented by two.
fn fields_line(fields: &[(String, String)], width: Option<usize>) -> String {
    let mut out = String::from("  ");
    let mut col = 2;
    for (i, (plain, shown)) in fields.iter().enumerate() {
        if i > 0 {
            if width.is_some_and(|w| col + 3 + cols(plain) > w) {
                out.push_str("\n  ");
                col = 2;
            } else {
                out.push_str("   ");
                col += 3;
            }
        }
        out.push_str(shown);
        col += cols(plain);
    }
    out.push('\n');
    out
}

/// A plain field, shown as it is.
fn field(label: &str, value: &str) -> (String, String) {
    let f = format!("{label}: {value}");
    (f.clone(), f)
}

fn server_details(s: &ServerReport, o: &ScreenOptions) -> String {
    let home = o.home.as_deref();
    let mut out = String::new();
    let project = s
        .project
        .as_deref()
        .map(|p| tilde(&terminal_safe(p, false), home))
        .unwrap_or_else(|| "-".to_string());
    out.push_str(&format!(
        "{} — {project}\n",
        terminal_safe(&s.name, false).bold(),
    ));
    let label = verdict_label(&s.diagnosis);
    out.push_str(&fields_line(
        &[
            (
                format!("verdict: {label}"),
                format!("verdict: {}", paint(s.diagnosis.verdict, &label)),
            ),
            field("era", s.diagnosis.era.map(|e| e.as_str()).unwrap_or("-")),
            field(
                "protocol",
                &terminal_safe(
                    s.diagnosis
                        .negotiated_protocol_version
                        .as_deref()
                        .unwrap_or("-"),
                    false,
                ),
            ),
        ],
        o.width,
    ));
    out.push_str(&fields_line(
        &[
            field(
                "sessions",
                &format!(
                    "{} ({} read, {} of them failed)",
                    s.sessions, s.sessions_read, s.failed_sessions
                ),
            ),
            field(
                "last seen",
                &terminal_safe(s.last_seen.as_deref().unwrap_or("-"), false),
            ),
        ],
        o.width,
    ));
    if let Some(p) = s.diagnosis.tools_proof {
        out.push_str(&format!("  tools loaded: {p}\n"));
    }
    // File and folder names can hold line breaks and tabs (a folder named
    // "x\n  FAKE  healthy" would forge a line): escaped like every other name. Paths are
    // never cut (they are there to be copied), but broken after a `/` to fit; the home
    // folder shows as `~`.
    // a folder named after a secret with the tag of the name that logs in it, as every
    // other output prints that name (`mcp-logs-[REDACTED:github-token]#3fa2`)
    let mut logs = s.source.display().to_string();
    if let Some(tag) = folder_tag(s) {
        logs.push_str(tag);
    }
    out.push_str(&wrap_keeping(
        &tilde(&terminal_safe(&logs, false), home),
        "  logs: ",
        4,
        o.width,
    ));
    if s.history.len() > 1 {
        out.push_str("  history:\n");
        for h in &s.history {
            let label = crate::classify::verdict::label(h.verdict, h.cause);
            out.push_str(&wrap(
                &format!(
                    "{label}: {}, last {}",
                    crate::text::count(h.sessions, "session"),
                    terminal_safe(h.last_seen.as_deref().unwrap_or("-"), false)
                ),
                "    ",
                6,
                o.width,
            ));
        }
    }
    out.push_str("  evidence:\n");
    for e in &s.evidence {
        out.push_str(&evidence_block(e, &s.source, o));
    }
    out.push_str(&launch_lines(s, o));
    if !s.stderr_tail.is_empty() {
        out.push_str("  stderr (its last lines in that session):\n");
        for l in &s.stderr_tail {
            out.push_str(&wrap_keeping(&terminal_safe(l, false), "    ", 6, o.width));
        }
    }
    // the settings file it names under the home folder, as `~` like the paths above
    let fix = tilde_within(&crate::advice::for_server_in(s, &o.homes), home);
    out.push_str(&wrap_keeping(&fix, "  fix: ", 7, o.width));
    out
}

/// The server's configured command or URL (`command:` / `url:`) and the file it is in,
/// for `--verbose`; nothing when no entry was found.
fn launch_lines(s: &ServerReport, o: &ScreenOptions) -> String {
    let Some(l) = &s.launch else {
        return String::new();
    };
    let home = o.home.as_deref();
    let mut out = String::new();
    if l.is_stdio() {
        let shown = crate::text::shell_command(&l.argv).unwrap_or_else(|| l.argv.join(" "));
        // (a path under the home as `~`, as every path on the screen: helper-81 #2)
        out.push_str(&wrap_keeping(
            &terminal_safe(&tilde_within(&shown, home), false),
            "  command: ",
            4,
            o.width,
        ));
        if !l.env_names.is_empty() {
            out.push_str(&wrap(
                &terminal_safe(&l.env_names.join(", "), false),
                "  env set by its entry: ",
                4,
                o.width,
            ));
        }
    } else if !l.url.is_empty() {
        out.push_str(&wrap_keeping(
            &terminal_safe(&l.url, false),
            &format!("  url ({}): ", l.transport.as_str()),
            4,
            o.width,
        ));
    }
    if let Some(f) = &l.file {
        out.push_str(&wrap_keeping(
            &tilde(&terminal_safe(&f.display().to_string(), false), home),
            &format!("  configured in ({} scope): ", l.scope.as_str()),
            4,
            o.width,
        ));
    }
    out
}

/// Without `--verbose`: a line per failing server that wrote on stderr, with its last
/// line (cut to the width) and how to see more.
fn stderr_hints(report: &ScanReport, o: &ScreenOptions) -> String {
    let mut out = String::new();
    for s in &report.servers {
        let Some(last) = s.stderr_tail.last() else {
            continue;
        };
        // Where the stderr says why: a server that did not connect.
        if !s.fails_now() || s.diagnosis.verdict != Verdict::ConnectionFailed {
            continue;
        }
        // The server's last words are never cut: wrapped, every character kept.
        out.push_str(&wrap_keeping(
            &terminal_safe(last, false),
            &format!("  {} last wrote on stderr: ", terminal_safe(&s.name, false)),
            4,
            o.width,
        ));
    }
    if !out.is_empty() {
        out.push_str("  (--verbose shows each one's last stderr lines and configured command)\n");
    }
    out
}

/// One piece of evidence: where (the file relative to the server's log folder, shown
/// just above, when it is in it), when, the level, then the message, wrapped with every
/// character kept.
/// The tag of a server's printed name ([`crate::scan::select::tag`]) when its log folder's
/// name is printed redacted: one server's folder (a folder several names share is named
/// by them all).
fn folder_tag(s: &ServerReport) -> Option<&str> {
    let folder = s.folder.as_deref()?;
    if !folder.contains("[REDACTED") || s.shared_by.len() > 1 {
        return None;
    }
    let last = s.source.file_name()?.to_string_lossy();
    if !last.ends_with(folder) {
        return None;
    }
    crate::scan::select::tag_of(&s.name)
}

fn evidence_block(e: &Evidence, logs: &std::path::Path, o: &ScreenOptions) -> String {
    let file = e
        .file
        .strip_prefix(logs)
        .ok()
        .filter(|r| !r.as_os_str().is_empty());
    let file = file.unwrap_or(&e.file).display().to_string();
    let file = tilde(&terminal_safe(&file, false), o.home.as_deref());
    let mut out = format!(
        "    {file}:{}  {}  {}\n",
        e.line,
        terminal_safe(e.timestamp.as_deref().unwrap_or("-"), false),
        e.level.as_str().to_uppercase()
    );
    // pretty-printed JSON keeps its indentation on every wrapped line
    out.push_str(&block(
        &terminal_safe(&pretty_message(&e.message), true),
        6,
        o.width,
    ));
    out
}

// --json

/// `scan --json`; `settings` is the settings layers for the current directory.
pub fn scan_json(report: &ScanReport, settings: json_doc::Settings) -> json_doc::ScanDocument {
    json_doc::ScanDocument {
        servers: report
            .servers
            .iter()
            .map(|s| server_json(s, &report.homes))
            .collect(),
        ..scan_json_head(report, settings)
    }
}

/// [`scan_json`] without its servers (`servers` is empty): with
/// [`scan_json_servers`], for a writer that serialises the servers one at a time
/// instead of holding the whole document (100,000 servers make 150 MB of JSON).
pub fn scan_json_head(report: &ScanReport, settings: json_doc::Settings) -> json_doc::ScanDocument {
    json_doc::ScanDocument {
        schema_version: SCHEMA_VERSION,
        servers: Vec::new(),
        warnings: warnings_json(&crate::warning::collapse(report.warnings.clone())),
        settings,
        configured: report
            .configured
            .iter()
            .map(|r| configured_json(r, &report.homes))
            .collect(),
    }
}

/// The `servers` of [`scan_json`], each made when it is serialised: a writer that
/// serialises many at once in parallel makes them in parallel too.
pub fn scan_json_servers(report: &ScanReport) -> impl Iterator<Item = ScanServerRow<'_>> + '_ {
    report
        .servers
        .iter()
        .map(|s| ScanServerRow(s, &report.homes))
}

/// One server of `scan --json`, made ([`json_doc::ScanServer`]) when it is serialised
/// (with the homes scanned, for the commands its recommendation prints).
pub struct ScanServerRow<'a>(&'a ServerReport, &'a [std::path::PathBuf]);

impl serde::Serialize for ScanServerRow<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        server_json(self.0, self.1).serialize(s)
    }
}

fn server_json(s: &ServerReport, homes: &[std::path::PathBuf]) -> json_doc::ScanServer {
    let d = &s.diagnosis;
    json_doc::ScanServer {
        name: s.name.clone(),
        project: s.project.clone(),
        // Knowing the settings: the fix applies only if writing it can take effect.
        diagnosis: super::diagnosis_json(d, s.legacy_fix_applies()),
        last_seen: s.last_seen.clone(),
        shared_by: s.shared_by.clone(),
        sessions: s.sessions as u64,
        sessions_read: s.sessions_read as u64,
        files_read: s.files_read as u64,
        failed_sessions: s.failed_sessions as u64,
        tools_proof: d.tools_proof.map(|p| p.to_string()),
        tools_not_sent: d.tools_not_sent as u64,
        latest_session_only_connected: s.latest_only_connected,
        recommendation: crate::advice::for_server_in(s, homes),
        evidence: s.evidence.iter().map(evidence_json).collect(),
        folder: s.folder.clone(),
        project_folder: s.project_folder.clone(),
        source: s.source.display().to_string(),
        history: s.history.iter().map(history_json).collect(),
        configuration: configuration_json(&s.configuration),
        stderr_tail: s.stderr_tail.clone(),
        launch: s.launch.as_deref().map(launch_json),
        run_by_hand: if s.diagnosis.verdict == Verdict::ConnectionFailed {
            crate::advice::run_by_hand(s)
        } else {
            None
        },
        fix: s.fix.as_deref().map(fix_json),
        discovery_cache: s
            .discovery_cache
            .as_deref()
            .map(super::discovery_cache_json),
    }
}

/// `servers[].fix`: the resolution's answer of what `mcplogs fix` would do.
pub(crate) fn fix_json(f: &crate::scan::fix::ServerFix) -> json_doc::ServerFix {
    use crate::scan::fix::FixState;
    use crate::settings::engine::Edit;
    json_doc::ServerFix {
        fixable: f.fixable(),
        command: f.command.to_string(),
        changes: f
            .changes
            .iter()
            .map(|c| {
                let ch = c.change.as_ref();
                let (key, value, move_name, list) = match ch.map(|ch| &ch.edit) {
                    Some(Edit::Set { path, value }) => {
                        (Some(path.clone()), Some(value.clone()), None, None)
                    }
                    Some(Edit::MoveName {
                        parent,
                        from,
                        to,
                        name,
                    }) => {
                        let (move_name, list) = match (from, to) {
                            (Some(from), Some(to)) => (
                                Some(json_doc::FixMove {
                                    from: from.clone(),
                                    to: to.clone(),
                                    name: name.clone(),
                                }),
                                None,
                            ),
                            (from, to) => (
                                None,
                                to.as_ref()
                                    .map(|l| (l, "add"))
                                    .or(from.as_ref().map(|l| (l, "remove")))
                                    .map(|(l, op)| json_doc::FixListEdit {
                                        list: l.clone(),
                                        op: op.to_string(),
                                        name: name.clone(),
                                    }),
                            ),
                        };
                        (Some(parent.clone()), None, move_name, list)
                    }
                    None => (None, None, None, None),
                };
                json_doc::FixChange {
                    cause: c.cause.as_str().to_string(),
                    state: c.state.as_str().to_string(),
                    why: c.why.clone(),
                    file: ch.map(|ch| ch.file.display().to_string()),
                    layer: ch.map(|ch| ch.layer.to_string()),
                    key,
                    value,
                    move_name,
                    list,
                    offered: !matches!(c.state, FixState::NotOffered { .. }),
                    not_offered: match &c.state {
                        FixState::NotOffered { build, observed } => Some(format!(
                            "observed to work on Claude Code {observed}; this machine runs {build}"
                        )),
                        _ => None,
                    },
                    refused: match &c.state {
                        FixState::Refused { why } => Some(why.clone()),
                        _ => None,
                    },
                }
            })
            .collect(),
        steps: f.steps.clone(),
    }
}

pub(crate) fn launch_json(l: &crate::scan::configured::Launch) -> json_doc::ServerLaunch {
    json_doc::ServerLaunch {
        transport: l.transport.as_str().into(),
        command: l.argv.clone(),
        url: (!l.url.is_empty()).then(|| l.url.clone()),
        env_names: l.env_names.clone(),
        scope: l.scope.as_str().into(),
        file: l.file.as_ref().map(|f| f.display().to_string()),
    }
}

fn decided_by_json(c: &crate::scan::configured::Configured) -> Vec<json_doc::DecidedBy> {
    c.decided_by
        .iter()
        .map(|d| json_doc::DecidedBy {
            file: d.file.display().to_string(),
            key: d.key.clone(),
            layer: d.layer.to_string(),
        })
        .collect()
}

fn detail_of(c: &crate::scan::configured::Configured) -> Option<String> {
    match &c.state {
        crate::claude_code::config::ServerState::Skipped(why) => Some(why.clone()),
        _ => None,
    }
}

fn configuration_json(
    c: &crate::scan::configured::Configuration,
) -> Option<json_doc::ServerConfiguration> {
    use crate::scan::configured::Configuration;
    match c {
        Configuration::Unchecked => None,
        Configuration::NotConfigured => Some(json_doc::ServerConfiguration {
            state: "not-configured".into(),
            scope: None,
            file: None,
            decided_by: Vec::new(),
            detail: None,
            warnings: Vec::new(),
        }),
        Configuration::Configured(c) => Some(server_configuration_json(c)),
    }
}

/// The `configuration` object of a configured server: scan's `servers[]` and
/// settings' `servers[]`.
pub(crate) fn server_configuration_json(
    c: &crate::scan::configured::Configured,
) -> json_doc::ServerConfiguration {
    json_doc::ServerConfiguration {
        state: c.state.as_str().into(),
        scope: Some(c.scope.as_str().into()),
        file: c.file.as_ref().map(|f| f.display().to_string()),
        decided_by: decided_by_json(c),
        detail: detail_of(c),
        warnings: c.warnings.clone(),
    }
}

fn configured_json(
    r: &crate::scan::configured::ConfiguredRow,
    homes: &[std::path::PathBuf],
) -> json_doc::ConfiguredServer {
    json_doc::ConfiguredServer {
        name: r.name.clone(),
        project: r.project.clone(),
        project_folder: r.project_folder.clone(),
        state: r.state_name().into(),
        scope: r.configured.scope.as_str().into(),
        file: r.configured.file.as_ref().map(|f| f.display().to_string()),
        decided_by: decided_by_json(&r.configured),
        detail: detail_of(&r.configured),
        warnings: r.configured.warnings.clone(),
        ran_since: r.ran_since.clone(),
        recommendation: crate::advice::row_fix_action(r)
            .map(|e| e.text)
            .unwrap_or_else(|| crate::advice::configured::row_way_out(r, None, homes)),
        last_session: r.last_session.clone(),
        fix: r.fix.as_deref().map(fix_json),
    }
}

fn history_json(h: &VerdictSeen) -> json_doc::VerdictSeen {
    json_doc::VerdictSeen {
        verdict: h.verdict.as_str().to_string(),
        cause: h.cause.map(|c| c.as_str().to_string()),
        sessions: h.sessions as u64,
        last_seen: h.last_seen.clone(),
    }
}

fn evidence_json(e: &Evidence) -> json_doc::Evidence {
    json_doc::Evidence {
        file: e.file.display().to_string(),
        line: e.line as u64,
        timestamp: e.timestamp.clone(),
        level: e.level.as_str().to_string(),
        message: e.message.to_string(),
    }
}

#[cfg(test)]
mod wrapping {
    use super::*;

    #[test]
    fn fields_start_a_new_line_only_when_the_next_would_not_fit() {
        let f = [field("verdict", "healthy"), field("era", "legacy")];
        assert_eq!(
            fields_line(&f, Some(40)),
            "  verdict: healthy   era: legacy\n"
        );
        assert_eq!(
            fields_line(&f, Some(32)),
            "  verdict: healthy   era: legacy\n"
        );
        assert_eq!(
            fields_line(&f, Some(31)),
            "  verdict: healthy\n  era: legacy\n"
        );
        assert_eq!(fields_line(&f, None), "  verdict: healthy   era: legacy\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(rank: u8, text: &str, servers: &[(&str, usize)]) -> Action {
        Action {
            rank,
            text: text.to_string(),
            servers: servers
                .iter()
                .map(|(n, ix)| format!("{n}{NAME_SEP}{ix}"))
                .collect(),
        }
    }

    /// helper-95 #6: the legacy action naming two files named their servers by their
    /// labels (`srv\x000`, `srv\x001`); a name under both files is said with its
    /// project, any other plainly.
    #[test]
    fn the_legacy_actions_files_name_their_servers_as_shown() {
        let mut names = Listed::default();
        let a = names.label("srv", Some("/home/me/work/a"));
        let b = names.label("srv", Some("/home/me/work/b"));
        let other = names.label("other", Some("/home/me/work/b"));
        let files = [
            ("A".to_string(), LayerKind::Local, vec![a]),
            ("B".to_string(), LayerKind::User, vec![b, other]),
        ];
        let shown = names.shown_in_files(&files, Some("/home/me"));
        let said: Vec<&Vec<String>> = shown.iter().map(|(_, _, n)| n).collect();
        assert_eq!(
            said,
            [
                &vec!["srv (~/work/a)".to_string()],
                &vec!["srv (~/work/b)".to_string(), "other".to_string()]
            ]
        );
    }

    /// A name under two items and in two projects is named with its project, or with
    /// how many when an item holds it in more than three; any other name plainly, once
    /// an item (helper-81 #10; run J: a label a server cost 100,000 folders' scan).
    #[test]
    fn a_name_two_items_and_projects_hold_is_said_with_its_projects() {
        let projects = ["/p/a", "/p/b", "/p/c", "/p/d", "/p/e"];
        let mut items = vec![
            item(
                0,
                "fix",
                &[("x", 0), ("y", 0), ("y", 1), ("z", 0), ("z", 1)],
            ),
            item(
                1,
                "works",
                &[("x", 1), ("z", 2), ("z", 3), ("z", 4), ("z", 0)],
            ),
        ];
        name_servers(&mut items, &projects, None);
        assert_eq!(items[0].servers, ["x (/p/a)", "y", "z (/p/a)", "z (/p/b)"]);
        assert_eq!(items[1].servers, ["x (/p/b)", "z (more than 3 projects)"]);
    }
}
