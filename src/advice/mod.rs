//! Advice that knows the settings. The verdict stays what the logs say; what to do about
//! a server the legacy setting would help depends on the settings layers of its project
//! now: the fix may be in place already (the failure is from before it), it may have to
//! go into the project's `.claude/settings.local.json` because the project overrides the
//! user file, or a managed file may make it impossible.

pub mod reason;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::classify::verdict::{Era, Verdict};
use crate::scan::{ScanReport, ServerReport};
use crate::settings::layers::LayerKind;
use crate::settings::target::{FixTarget, SettingsAdvice};
use crate::settings::{EffectiveNegotiation, Sources, effective_negotiation};

/// The command that checks a fix worked, after a restart or `/mcp`.
pub const VERIFY_COMMAND: &str = "mcplogs scan --since 10m";

/// What to do about one scanned server: the one sentence every output shows.
pub fn for_server(s: &ServerReport) -> String {
    // A shared folder's mixed records cannot back advice for one server.
    shared_note(s)
        .or_else(|| legacy_removed_note(s))
        .unwrap_or_else(|| recommendation(&s.diagnosis, s.settings.as_deref()))
}

/// For a shared log folder: says so, and how to tell the servers apart.
pub fn shared_note(s: &ServerReport) -> Option<String> {
    if !s.is_shared() {
        return None;
    }
    Some(format!(
        "The configured servers {} all write into one log folder (mcp-logs-{}: Claude Code turns every character other than a letter or digit into '-'), with their records mixed, so this verdict is the folder's, not one server's. To tell them apart, rename one so the names differ in a letter or digit, or run `claude --debug-file FILE` and `mcplogs scan FILE` (debug logs name each server).",
        s.shared_by.join(", "),
        s.folder.as_deref().unwrap_or("?")
    ))
}

/// The project folder whose settings apply to a server: its real working directory
/// when that is a folder on this machine, else `fallback` (the current directory, whose
/// settings `scan` shows too: logs copied from elsewhere, or a project since removed).
pub fn project_dir_of(s: &ServerReport, fallback: &Path) -> PathBuf {
    match s.project.as_deref().map(Path::new) {
        Some(p) if p.is_absolute() && p.is_dir() => p.to_path_buf(),
        _ => fallback.to_path_buf(),
    }
}

/// Reads the settings of every project that has a server the legacy setting would help
/// and attaches the advice. `homes` as in the scan (`--home`): a copied home's user file
/// and no environment; `cwd` stands in for servers whose project is unknown.
pub fn attach(report: &mut ScanReport, homes: &[PathBuf], cwd: &Path) {
    attach_with(report, cwd, &|dir| {
        effective_negotiation(&Sources::for_scan(homes, dir))
    });
}

/// [`attach`] with the settings reader given (tests point it at temporary folders).
pub fn attach_with(
    report: &mut ScanReport,
    cwd: &Path,
    read: &dyn Fn(&Path) -> EffectiveNegotiation,
) {
    // One advice a project, shared by its servers (a copy each was 200 bytes and two
    // paths for each of thousands of servers).
    let mut cache: HashMap<PathBuf, std::sync::Arc<SettingsAdvice>> = HashMap::new();
    for s in &mut report.servers {
        if !s.diagnosis.legacy_fix_applies() && !works_only_under_legacy(s) {
            continue;
        }
        let dir = project_dir_of(s, cwd);
        let advice = cache
            .entry(dir.clone())
            .or_insert_with(|| std::sync::Arc::new(SettingsAdvice::for_project(&read(&dir))));
        s.settings = Some(std::sync::Arc::clone(advice));
    }
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
fn legacy_curable_failure(s: &ServerReport) -> Option<&crate::scan::VerdictSeen> {
    s.history.iter().find(|h| {
        h.verdict == Verdict::ToolsFetchFailed
            && h.cause.is_some_and(|c| c.is_negotiation_field_error())
    })
}

/// For a server that [`works_only_under_legacy`] while the legacy setting is no longer
/// in effect: its verdict does not hold past the next start.
pub fn legacy_removed_note(s: &ServerReport) -> Option<String> {
    if !works_only_under_legacy(s) {
        return None;
    }
    let a = s.settings.as_ref()?;
    if matches!(a.target, FixTarget::InEffect { .. }) {
        return None;
    }
    let failed = legacy_curable_failure(s)?;
    let again = match &a.target {
        FixTarget::Write { .. } => {
            format!("run `{}` again", fix_command(&a.target, &a.project_dir))
        }
        _ => "set MCP_PROTOCOL_NEGOTIATION=legacy again".to_string(),
    };
    Some(format!(
        "This verdict was observed under MCP_PROTOCOL_NEGOTIATION=legacy, which is no longer set: at its next start Claude Code negotiates revision 2026-07-28 again (its default for HTTP servers, and for stdio servers from 2.1.300 on), and the server fails as it did before ({}{}). To keep it working, {again}, and tell the server's authors.",
        failed.verdict,
        failed.cause.map(|c| format!(", {c}")).unwrap_or_default(),
    ))
}

/// The scan screen's few words for such a server.
pub const LEGACY_REMOVED_REASON: &str = "seen under legacy, no longer set: fails at next start";

/// The `mcplogs fix` command for a target: plain for the user file, with `--project`
/// for a project's local file.
pub fn fix_command(target: &FixTarget, project_dir: &Path) -> String {
    match target {
        FixTarget::Write {
            kind: LayerKind::Local,
            ..
        } => format!(
            "mcplogs fix --project {}",
            crate::text::shell_word(&project_dir.display().to_string())
        ),
        _ => "mcplogs fix".to_string(),
    }
}

/// [`Diagnosis::recommendation`](crate::classify::verdict::Diagnosis::recommendation) knowing the
/// settings of the server's project: the legacy advice then names the file `mcplogs fix`
/// writes, or says the fix is in place.
pub fn recommendation(
    d: &crate::classify::verdict::Diagnosis,
    settings: Option<&SettingsAdvice>,
) -> String {
    match (settings, d.legacy_fix_wording()) {
        (Some(_), Some((what, newer))) => legacy_recommendation(settings, what, newer),
        _ => d.recommendation(),
    }
}

/// Whom the legacy setting written to a `kind` file affects: it is not per server.
pub fn legacy_scope(kind: LayerKind) -> &'static str {
    match kind {
        LayerKind::Local | LayerKind::Project => "with every server of that project",
        _ => "with every server in every project",
    }
}

/// What the legacy setting costs the servers that did not need it.
pub const LEGACY_COST: &str =
    "they lose revision 2026-07-28 features such as URL elicitation until `mcplogs fix --undo`";

/// The scan screen's action for servers the legacy fix helps: the command, the file
/// (as shown), whom it affects and at what cost, and why these servers need it.
pub fn legacy_action(
    target: &FixTarget,
    project_dir: &Path,
    kind: LayerKind,
    file_shown: &str,
) -> String {
    format!(
        "Run `{}`. It sets MCP_PROTOCOL_NEGOTIATION=legacy in {file_shown}: Claude Code then uses the older protocol revision {} ({LEGACY_COST}), which these servers need: their tools/list answers break rules of the new revision. Also tell the servers' authors.",
        fix_command(target, project_dir),
        legacy_scope(kind),
    )
}

/// What to do about a server the legacy setting would help, given its settings.
/// `what` says what the server's tools/list result got wrong.
pub fn legacy_recommendation(advice: Option<&SettingsAdvice>, what: &str, newer: &str) -> String {
    let head = crate::classify::verdict::legacy_head(what);
    let report = "and report it to the server's authors";
    let Some(a) = advice else {
        return crate::classify::verdict::legacy_recommendation_unplaced(what, newer);
    };
    match &a.target {
        FixTarget::Write { path, kind, .. } => format!(
            "{head}: run `{}`, which sets MCP_PROTOCOL_NEGOTIATION=legacy in {}{newer} (Claude Code then uses the older revision {}; {LEGACY_COST}), {report}.",
            fix_command(&a.target, &a.project_dir),
            path.display(),
            legacy_scope(*kind),
        ),
        FixTarget::InEffect { layer } => format!(
            "{head}. The fix is in place: {} sets MCP_PROTOCOL_NEGOTIATION=legacy now, and this failure is from a connection made before it took effect. To verify, restart Claude Code or run /mcp, then `{VERIFY_COMMAND}`.",
            layer
                .path
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "the environment".into())
        ),
        FixTarget::Managed { .. } => format!(
            "{head}. The legacy setting would help, but {}. Meanwhile, {report}.",
            a.target.reason()
        ),
        FixTarget::NoUserFile => format!(
            "{head}: set MCP_PROTOCOL_NEGOTIATION=legacy in the \"env\" block of your Claude Code settings{newer}, {report}."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::NegotiationValue;
    use crate::settings::layers::{LayerStatus, SettingsLayer};

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
        assert!(r.contains("`mcplogs fix --project /w/app`"), "{r}");
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

/// Who can act on `s`; `None` for a server that does not fail.
pub fn audience(s: &ServerReport) -> Option<Audience> {
    use crate::classify::verdict::Cause;
    let d = &s.diagnosis;
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
        // could not connect at all (refused, bad URL, DNS): the server is not running
        // where the configuration says
        (Verdict::ConnectionFailed, Some(Cause::Other) | None) => Audience::UserConfig,
        _ => Audience::ServerAuthor,
    })
}
