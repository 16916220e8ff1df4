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

pub use fix_action::{FixAction, fix_action};
pub use sentences::*;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::classify::verdict::{Era, Verdict};
use crate::scan::{ScanReport, ServerReport};
use crate::settings::target::SettingsAdvice;
use crate::settings::{EffectiveNegotiation, Sources, effective_negotiation};

/// The project folder whose settings apply to a server, and whether it is gone: its
/// real working directory when that is a folder on this machine; the same path, gone,
/// when it is an absolute path that no longer exists (only the files outside it count,
/// never the current directory's: an unrelated folder); else `fallback` (the current
/// directory, whose settings `scan` shows too: a server whose project is not recorded).
pub fn project_dir_of(s: &ServerReport, fallback: &Path) -> (PathBuf, bool) {
    use crate::scan::ProjectHere;
    match (s.project.as_deref(), s.project_here()) {
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
    for s in &mut report.servers {
        if !needs_legacy_setting(s) {
            continue;
        }
        let (dir, gone) = project_dir_of(s, cwd);
        let advice = cache.entry(dir.clone()).or_insert_with(|| {
            let mut a = match &gone_read {
                Some(first) if gone => SettingsAdvice {
                    project_dir: dir.clone(),
                    ..first.clone()
                },
                _ => SettingsAdvice::for_project(&read(&dir)),
            };
            a.homes = homes.to_vec();
            a.project_gone = gone;
            if gone && gone_read.is_none() {
                gone_read = Some(a.clone());
            }
            std::sync::Arc::new(a)
        });
        s.settings = Some(std::sync::Arc::clone(advice));
    }
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
        (_, Some(Cause::CommandNotFound | Cause::NeedsAuth | Cause::Timeout)) => {
            Audience::UserConfig
        }
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
