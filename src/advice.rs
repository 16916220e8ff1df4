//! Advice that knows the settings. The verdict stays what the logs say; what to do about
//! a server the legacy setting would help depends on the settings layers of its project
//! now: the fix may be in place already (the failure is from before it), it may have to
//! go into the project's `.claude/settings.local.json` because the project overrides the
//! user file, or a managed file may make it impossible.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::scan::{ScanReport, ServerReport};
use crate::settings::layers::LayerKind;
use crate::settings::target::{self, FixTarget};
use crate::settings::{EffectiveNegotiation, Sources, effective_negotiation};
use crate::time::EpochSeconds;

/// The command that checks a fix worked, after a restart or `/mcp`.
pub const VERIFY_COMMAND: &str = "mcplogs scan --since 10m";

/// What the settings mean for one server the legacy setting would help.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsAdvice {
    /// The project whose settings layers were read.
    pub project_dir: PathBuf,
    pub target: FixTarget,
    /// When `legacy` is in effect: when the deciding file was last changed.
    pub set_at: Option<EpochSeconds>,
}

impl SettingsAdvice {
    pub fn for_project(e: &EffectiveNegotiation) -> Self {
        let target = target::choose(e);
        let set_at = match &target {
            FixTarget::InEffect { layer } => layer
                .path
                .as_deref()
                .and_then(|p| std::fs::metadata(p).ok())
                .and_then(|m| m.modified().ok())
                .map(crate::time::system_time_secs),
            _ => None,
        };
        SettingsAdvice {
            project_dir: e.project_dir.clone(),
            target,
            set_at,
        }
    }
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
    let mut cache: HashMap<PathBuf, SettingsAdvice> = HashMap::new();
    for s in &mut report.servers {
        if !s.diagnosis.legacy_fix_applies() {
            continue;
        }
        let dir = project_dir_of(s, cwd);
        let advice = cache
            .entry(dir.clone())
            .or_insert_with(|| SettingsAdvice::for_project(&read(&dir)));
        s.settings = Some(advice.clone());
    }
}

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

/// [`Diagnosis::recommendation`](crate::verdict::Diagnosis::recommendation) knowing the
/// settings of the server's project: the legacy advice then names the file `mcplogs fix`
/// writes, or says the fix is in place.
pub fn recommendation(d: &crate::verdict::Diagnosis, settings: Option<&SettingsAdvice>) -> String {
    match (settings, d.legacy_fix_wording()) {
        (Some(_), Some((what, newer))) => legacy_recommendation(settings, what, newer),
        _ => d.recommendation(),
    }
}

/// What to do about a server the legacy setting would help, given its settings.
/// `what` says what the server's tools/list result got wrong.
pub fn legacy_recommendation(advice: Option<&SettingsAdvice>, what: &str, newer: &str) -> String {
    let head = crate::verdict::legacy_head(what);
    let report = "and report it to the server's authors";
    let Some(a) = advice else {
        return crate::verdict::legacy_recommendation_unplaced(what, newer);
    };
    match &a.target {
        FixTarget::Write { path, .. } => format!(
            "{head}: run `{}`, which sets MCP_PROTOCOL_NEGOTIATION=legacy in {}{newer}, {report}.",
            fix_command(&a.target, &a.project_dir),
            path.display()
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
