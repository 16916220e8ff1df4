//! Advice that knows the settings. The verdict stays what the logs say; what to do about
//! a server the legacy setting would help depends on the settings layers of its project
//! now: the fix may be in place already (the failure is from before it), it may have to
//! go into the project's `.claude/settings.local.json` because the project overrides the
//! user file, or a managed file may make it impossible.

pub mod configured;
mod fix_action;
pub mod fixes;
pub mod reason;
pub mod remote;
mod sentences;

pub use fix_action::{FixAction, fix_action, row_fix_action};
pub use sentences::*;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::classify::verdict::{Era, Verdict};
use crate::scan::{ScanReport, ServerReport};
use crate::settings::target::{FixTarget, SettingsAdvice};
use crate::settings::{EffectiveNegotiation, Sources, effective_negotiation};

/// The project folder whose settings apply to a server, and whether it is gone: its
/// real working directory when that is a folder on this machine; the same path, gone,
/// when it is an absolute path that no longer exists (only the files outside it count,
/// never the current directory's: an unrelated folder); else `fallback` (the current
/// directory, whose settings `scan` shows too: a server whose project is not recorded).
pub fn project_dir_of(s: &ServerReport, fallback: &Path) -> (PathBuf, bool) {
    use crate::scan::ProjectHere;
    // the project as read: one whose path holds a secret is shown redacted
    match (s.project_as_read(), s.project_here()) {
        (Some(p), ProjectHere::Folder) => (PathBuf::from(p), false),
        (Some(p), ProjectHere::Gone) => (PathBuf::from(p), true),
        _ => (fallback.to_path_buf(), false),
    }
}

/// Reads the settings of every project that has a server the legacy setting would help
/// and attaches the advice. `homes` as in the scan (`--home`): a copied home's user file
/// and no environment; `cwd` stands in for servers whose project is unknown.
pub fn attach(report: &mut ScanReport, homes: &[PathBuf], cwd: &Path) {
    attach_with(report, homes, cwd, &|dir| {
        effective_negotiation(&Sources::for_scan(homes, dir))
    });
}

/// [`attach`] with the settings reader given (tests point it at temporary folders);
/// `homes` as in the scan, for the commands the advice prints.
pub fn attach_with(
    report: &mut ScanReport,
    homes: &[PathBuf],
    cwd: &Path,
    read: &dyn Fn(&Path) -> EffectiveNegotiation,
) {
    // One advice a project, shared by its servers (a copy each was 200 bytes and two
    // paths for each of thousands of servers).
    let mut cache: HashMap<PathBuf, std::sync::Arc<SettingsAdvice>> = HashMap::new();
    // A gone project has no settings files of its own: every gone project's advice is
    // the settings outside them, read once (10,000 gone projects read the user's files
    // 10,000 times), with its own folder named.
    let mut gone_read: Option<SettingsAdvice> = None;
    // each target file read once to tell whether `fix` refuses it
    let mut refusals: HashMap<PathBuf, Option<String>> = HashMap::new();
    let modern_only = modern_only_servers(report, cwd);
    // each legacy server's conflict, by project (a user-scope server that speaks only
    // the new protocol conflicts in every project): the servers a filter left out count
    let conflicts: Vec<Option<String>> = if modern_only.is_empty() {
        Vec::new()
    } else {
        let c = Conflicts::new(report, cwd);
        report
            .servers
            .iter()
            .map(|s| {
                needs_legacy_setting(s)
                    .then(|| c.of(s).map(|o| o.name.clone()))
                    .flatten()
            })
            .collect()
    };
    for (i, s) in report.servers.iter_mut().enumerate() {
        if !needs_legacy_setting(s) {
            continue;
        }
        let conflict = conflicts.get(i).cloned().flatten();
        let (dir, gone) = project_dir_of(s, cwd);
        let advice = cache.entry(dir.clone()).or_insert_with(|| {
            let mut a = match &gone_read {
                Some(first) if gone => SettingsAdvice {
                    project_dir: dir.clone(),
                    ..first.clone()
                },
                _ => {
                    let e = read(&dir);
                    let mut a = SettingsAdvice::for_project(&e);
                    // a file `fix` would refuse is said, never advised
                    a.target = legacy_target(&e, &modern_only, read)
                        .0
                        .checked(&mut refusals);
                    a
                }
            };
            a.homes = homes.to_vec();
            a.project_gone = gone;
            if gone && gone_read.is_none() {
                gone_read = Some(a.clone());
            }
            a.conflict = conflict;
            std::sync::Arc::new(a)
        });
        // a setting in effect since before the failing connection was not read
        s.settings = match s
            .diagnosis
            .legacy_fix_applies()
            .then(|| advice.as_of_connection(connected_at(s)))
            .flatten()
        {
            Some(unread) => Some(std::sync::Arc::new(unread)),
            None => Some(std::sync::Arc::clone(advice)),
        };
    }
}

/// When a server's deciding connection was made, as far as its logs say: the start of
/// the process that wrote its deciding file ([`ServerReport::started_at`]), else the
/// earliest time among its evidence records.
fn connected_at(s: &ServerReport) -> Option<crate::time::EpochSeconds> {
    s.started_at().or_else(|| {
        s.evidence
            .iter()
            .filter_map(|e| e.timestamp.as_deref().and_then(crate::time::parse_iso))
            .min()
    })
}

/// A server the legacy setting is for, in every command: one that fails in a way it
/// cures, or one that works only under it ([`works_only_under_legacy`]). `scan` advises
/// `mcplogs fix` for both, and `fix` plans for both.
pub fn needs_legacy_setting(s: &ServerReport) -> bool {
    s.diagnosis.legacy_fix_applies() || works_only_under_legacy(s)
}

/// A server whose latest verdict was observed in the legacy era after sessions that
/// failed in a way the legacy setting cures: whether it keeps working depends on that
/// setting (after `mcplogs fix --undo`, it fails again at its next start).
pub fn works_only_under_legacy(s: &ServerReport) -> bool {
    s.diagnosis.verdict == Verdict::Healthy
        && s.diagnosis.era == Some(Era::Legacy)
        && legacy_curable_failure(s).is_some()
}

/// A server the legacy setting breaks: it speaks only the 2026-07-28 protocol
/// ([`Cause::ModernOnly`](crate::classify::verdict::Cause::ModernOnly) now, or connected
/// in the modern era after sessions that failed so). `MCP_PROTOCOL_NEGOTIATION=legacy`
/// must not reach its project (observed on 2.1.287 to 2.1.336: it fails there), and
/// `auto` in its project's local settings makes it connect.
pub fn needs_modern_negotiation(s: &ServerReport) -> bool {
    use crate::classify::verdict::Cause;
    let modern_only = |c: Option<Cause>| c == Some(Cause::ModernOnly);
    (s.counts_now() && s.fails_now() && modern_only(s.diagnosis.cause))
        || (matches!(s.diagnosis.verdict, Verdict::Healthy | Verdict::Degraded)
            && s.diagnosis.era == Some(Era::Modern)
            && s.history.iter().any(|h| modern_only(h.cause)))
}

/// For a server that one negotiation value cures (the legacy setting, or `auto` for a
/// server that speaks only the new protocol), the first other server of the same
/// project that needs the opposite value: then no value of `MCP_PROTOCOL_NEGOTIATION`
/// serves both, and `mcplogs fix` writes neither (it lists the conflict as the user's
/// to settle). `cwd` stands in for servers whose project is unknown.
pub fn negotiation_conflict<'a>(
    report: &'a ScanReport,
    s: &ServerReport,
    cwd: &Path,
) -> Option<&'a ServerReport> {
    Conflicts::new(report, cwd).of(s)
}

/// [`negotiation_conflict`] for many servers of one report: the servers each value
/// cures, indexed once by project (a pass over every server for each server asked was
/// quadratic: most of a 100,000-server scan's time).
pub struct Conflicts<'a> {
    /// The report's servers, then those its filter left out (`filtered_out`): a
    /// filtered view counts them as the full scan does.
    servers: Vec<&'a ServerReport>,
    cwd: PathBuf,
    /// The servers that need the legacy setting ([`needs_legacy_setting`], counted
    /// now), and those that need `auto` ([`needs_modern_negotiation`]).
    legacy: Wanting,
    modern: Wanting,
}

/// Servers (their indexes, in the report's order) that want one value: by project
/// folder, and those in every project ([`in_every_project`]).
#[derive(Default)]
struct Wanting {
    by_project: HashMap<PathBuf, Vec<usize>>,
    everywhere: Vec<usize>,
}

impl Wanting {
    fn add(&mut self, i: usize, s: &ServerReport, cwd: &Path) {
        self.by_project
            .entry(project_dir_of(s, cwd).0)
            .or_default()
            .push(i);
        if in_every_project(s) {
            self.everywhere.push(i);
        }
    }
}

impl<'a> Conflicts<'a> {
    pub fn new(report: &'a ScanReport, cwd: &Path) -> Self {
        let mut c = Conflicts {
            servers: every_server(report).collect(),
            cwd: cwd.to_path_buf(),
            legacy: Wanting::default(),
            modern: Wanting::default(),
        };
        for (i, o) in every_server(report).enumerate() {
            if o.counts_now() && needs_legacy_setting(o) {
                c.legacy.add(i, o, cwd);
            }
            if needs_modern_negotiation(o) {
                c.modern.add(i, o, cwd);
            }
        }
        c
    }

    /// [`negotiation_conflict`] of `s`: the first other server of its project (or of
    /// every project) that needs the opposite value.
    pub fn of(&self, s: &ServerReport) -> Option<&'a ServerReport> {
        let opposite = if needs_modern_negotiation(s) {
            &self.legacy
        } else if needs_legacy_setting(s) {
            &self.modern
        } else {
            return None;
        };
        let project = project_dir_of(s, &self.cwd).0;
        let servers = &self.servers;
        let first = |at: &[usize]| at.iter().copied().find(|&i| !std::ptr::eq(servers[i], s));
        let here = opposite.by_project.get(&project).and_then(|at| first(at));
        let anywhere = first(&opposite.everywhere);
        match (here, anywhere) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
        .map(|i| servers[i])
    }
}

/// The report's servers, then those its filter left out (`--server`, `--match-project`:
/// their configuration joined when they need a negotiation value, by the resolution):
/// what a negotiation value reaches does not depend on the view.
fn every_server(report: &ScanReport) -> impl Iterator<Item = &ServerReport> {
    report.servers.iter().chain(&report.filtered_out)
}

/// Whether any server of `report` (those a filter left out too) speaks only the new
/// protocol ([`needs_modern_negotiation`]): a conflict needs one.
pub fn any_modern_only(report: &ScanReport) -> bool {
    every_server(report).any(needs_modern_negotiation)
}

/// A server configured in the user scope (`mcpServers` of `~/.claude.json`): Claude Code
/// starts it in every project, so a setting that reaches any project reaches it.
pub fn in_every_project(s: &ServerReport) -> bool {
    matches!(
        &s.configuration,
        crate::scan::configured::Configuration::Configured(c)
            if c.scope == crate::claude_code::config::Scope::User
    )
}

/// A server known to speak only the new protocol ([`needs_modern_negotiation`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ModernOnly {
    pub name: String,
    /// The project folder of its log.
    pub project: PathBuf,
    /// Configured in the user scope: Claude Code starts it in every project.
    pub everywhere: bool,
}

/// The servers known to speak only the new protocol. The legacy setting must not be
/// written where it reaches them (the user file covers every project that does not
/// decide the value itself; a user-scope server runs in every project).
pub fn modern_only_servers(report: &ScanReport, cwd: &Path) -> Vec<ModernOnly> {
    every_server(report)
        .filter(|s| needs_modern_negotiation(s))
        .map(|s| ModernOnly {
            name: s.name.clone(),
            project: project_dir_of(s, cwd).0,
            everywhere: in_every_project(s),
        })
        .collect()
}

/// The first of `modern_only` that a legacy setting in `file` would reach (`read` gives
/// a project's settings): a user-scope one whatever the file (it runs in every project
/// the file reaches), else one whose project the file reaches.
pub fn reached_modern_only<'a>(
    file: &Path,
    modern_only: &'a [ModernOnly],
    read: &dyn Fn(&Path) -> EffectiveNegotiation,
) -> Option<&'a ModernOnly> {
    modern_only
        .iter()
        .find(|m| m.everywhere || read(&m.project).reached_by(file))
}

/// Where the legacy setting goes for the project of `e`: the file [`choose`] picks, except
/// the user file when it would also reach a server of another project that speaks only
/// the new protocol (`modern_only`: each one's name and project, from
/// [`modern_only_servers`]; `read` gives a project's settings): then the project's own
/// `.claude/settings.local.json`, and the name of the server it spares. Scan's advice
/// and `mcplogs fix` both take it from here.
///
/// [`choose`]: crate::settings::target::choose
pub fn legacy_target<'a>(
    e: &EffectiveNegotiation,
    modern_only: &'a [ModernOnly],
    read: &dyn Fn(&Path) -> EffectiveNegotiation,
) -> (FixTarget, Option<&'a ModernOnly>) {
    use crate::settings::layers::LayerKind;
    let target = crate::settings::target::choose(e);
    if let FixTarget::Write {
        kind: LayerKind::User,
        path: user,
        ..
    } = &target
        && let Some(m) = modern_only
            .iter()
            .filter(|m| m.everywhere || m.project != e.project_dir)
            .find(|m| m.everywhere || read(&m.project).reached_by(user))
    {
        let path = e.project_dir.join(".claude").join("settings.local.json");
        return (
            FixTarget::Write {
                kind: LayerKind::Local,
                unknown: crate::settings::target::unknown_above(e, &path),
                path,
                outranks: None,
            },
            Some(m),
        );
    }
    (target, None)
}

/// The latest earlier verdict of `s` that the legacy setting cures.
pub(crate) fn legacy_curable_failure(s: &ServerReport) -> Option<&crate::scan::VerdictSeen> {
    s.history.iter().find(|h| {
        h.verdict == Verdict::ToolsFetchFailed
            && h.cause.is_some_and(|c| c.is_negotiation_field_error())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::NegotiationValue;
    use crate::settings::layers::{LayerKind, LayerStatus, SettingsLayer};

    /// A command in a sentence is a code span holding it whole: a home holding a
    /// backtick ended a single-backtick span early, and the command could not be copied
    /// from it (helper-77 #10).
    #[test]
    fn a_command_holding_a_backtick_is_one_code_span() {
        let homes = [PathBuf::from("/tmp/h $x`id`")];
        let line = sentences::after_fix(&homes);
        assert!(
            line.ends_with("check with `` mcplogs scan --home '/tmp/h $x`id`' --since 10m ``."),
            "{line}"
        );
        assert!(sentences::after_fix(&[]).ends_with("check with `mcplogs scan --since 10m`."));
    }

    fn e(project: Option<&str>, user: Option<&str>) -> EffectiveNegotiation {
        let l = |kind: LayerKind, path: &str, v: Option<&str>| SettingsLayer {
            kind,
            path: Some(PathBuf::from(path)),
            status: LayerStatus::Strict,
            negotiation: v.map(NegotiationValue::from_text),
        };
        EffectiveNegotiation::from_layers(
            Path::new("/w/app"),
            vec![
                l(LayerKind::Project, "/w/app/.claude/settings.json", project),
                l(LayerKind::User, "/h/.claude/settings.json", user),
            ],
        )
    }

    #[test]
    fn recommendation_names_the_file_that_wins() {
        let a = SettingsAdvice::for_project(&e(Some("auto"), Some("legacy")));
        let r = legacy_recommendation(Some(&a), "omits resultType", "");
        // `fix` plans each server's own project: the one command, run from any folder.
        assert!(r.contains("run `mcplogs fix`, which sets"), "{r}");
        assert!(r.contains("/w/app/.claude/settings.local.json"), "{r}");
        let a = SettingsAdvice::for_project(&e(None, None));
        let r = legacy_recommendation(Some(&a), "omits resultType", "");
        assert!(r.contains("run `mcplogs fix`, which sets"), "{r}");
        assert!(r.contains("/h/.claude/settings.json"), "{r}");
    }

    #[test]
    fn in_effect_says_the_failure_is_old_and_how_to_verify() {
        let a = SettingsAdvice::for_project(&e(None, Some("legacy")));
        let r = legacy_recommendation(Some(&a), "omits resultType", "");
        assert!(r.contains("The fix is in place"), "{r}");
        assert!(r.contains("before it took effect"), "{r}");
        assert!(r.contains("`mcplogs scan --since 10m`"), "{r}");
        assert!(!r.contains("run `mcplogs fix`"), "{r}");
    }

    /// Issue 51: a server whose one tool is dropped for its name's length loses every
    /// tool; the log never says how many it has, so the advice never says the others
    /// work (the verdict, a failing one, is checked in `tests/cli/one_answer.rs`).
    #[test]
    fn tools_dropped_for_their_names_never_say_the_others_work() {
        use crate::classify::verdict::{Cause, Diagnosis, Verdict};
        for n in [0, 1, 3] {
            let mut d = Diagnosis::new(Verdict::Degraded);
            d.cause = Some(Cause::ToolNameTooLong);
            d.tools_not_sent = n;
            let r = diagnosis_recommendation(&d);
            assert!(!r.contains("others work"), "{r}");
            assert!(r.contains("none of this server's tools"), "{r}");
        }
    }
}

/// Who can act on a failing server, which decides what `report` writes: Claude Code's
/// bug template, a report for the server's authors, or no report but the fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Audience {
    /// Looks like Claude Code's own problem: two servers' logs mixed in one folder
    /// (its folder-name encoding), or the 2026-07-28 fields demanded of a server that
    /// negotiated the legacy revision.
    ClaudeCode,
    /// The server sent something Claude Code rightly rejects, or exited: its authors
    /// fix it (`invalid-tool-definition`, the 2026-07-28 field errors, an unsupported
    /// protocol version, a JSON-RPC error, an exit during start-up).
    ServerAuthor,
    /// The user's own set-up: a command not installed, credentials not given, a server
    /// not running or too slow for the timeout. Nobody else can fix it.
    UserConfig,
}

impl Audience {
    pub fn as_str(self) -> &'static str {
        match self {
            Audience::ClaudeCode => "claude-code",
            Audience::ServerAuthor => "server-author",
            Audience::UserConfig => "user-config",
        }
    }
}

/// Who can act on `s`; `None` for a server that neither fails nor is to be reported.
/// A `tolerated` server works, yet its advice (every command's) tells the user to
/// report it to its authors: theirs too (issue 51: `report` left it out).
pub fn audience(s: &ServerReport) -> Option<Audience> {
    use crate::classify::verdict::Cause;
    let d = &s.diagnosis;
    if d.verdict == Verdict::Tolerated && !s.is_shared() {
        return Some(Audience::ServerAuthor);
    }
    if !d.verdict.is_problem() {
        return None;
    }
    if s.is_shared() {
        return Some(Audience::ClaudeCode);
    }
    Some(match (d.verdict, d.cause) {
        (_, Some(c)) if c.is_negotiation_field_error() && d.era == Some(Era::Legacy) => {
            Audience::ClaudeCode
        }
        // the negotiation setting in effect, not the server (it speaks the newer revision)
        (
            _,
            Some(Cause::CommandNotFound | Cause::NeedsAuth | Cause::Timeout | Cause::ModernOnly),
        ) => Audience::UserConfig,
        // an expired certificate only its operator can renew
        (Verdict::ConnectionFailed, Some(Cause::TlsExpired)) => Audience::ServerAuthor,
        // the user's trust store, proxy, DNS, URL, client id or token (issue 52)
        (
            Verdict::ConnectionFailed,
            Some(
                Cause::TlsUntrusted
                | Cause::TlsHostname
                | Cause::ProxyRefused
                | Cause::NameNotResolved
                | Cause::ConnectionRefused
                | Cause::OauthNoRegistration
                | Cause::AuthHeaderRejected,
            ),
        ) => Audience::UserConfig,
        // could not connect at all (refused, bad URL, DNS): the server is not running
        // where the configuration says
        (Verdict::ConnectionFailed, Some(Cause::Other) | None) => Audience::UserConfig,
        _ => Audience::ServerAuthor,
    })
}
