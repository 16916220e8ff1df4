//! Which value of `MCP_PROTOCOL_NEGOTIATION` Claude Code ends up with, and which layer
//! decides it: the highest-precedence layer Claude Code reads that sets the key.

use std::path::{Path, PathBuf};

use super::NegotiationValue;
use super::layers::{LayerKind, SettingsLayer, Sources};

#[derive(Debug, Clone, PartialEq)]
pub struct EffectiveNegotiation {
    pub project_dir: PathBuf,
    /// Highest precedence first; the environment last.
    pub layers: Vec<SettingsLayer>,
    /// Index into `layers` of the layer that decides; `None`: nothing sets the key, so
    /// Claude Code's default applies.
    pub decided_by: Option<usize>,
    /// Where `MCP_SDK_GENERATION=v1` is set, when it is in effect: the legacy handshake
    /// whatever the key says ([`crate::settings::target::FixTarget::SdkV1`]).
    pub sdk_v1: Option<String>,
}

impl EffectiveNegotiation {
    pub fn from_layers(project_dir: &Path, layers: Vec<SettingsLayer>) -> Self {
        let decided_by = layers.iter().position(|l| l.effective_value().is_some());
        EffectiveNegotiation {
            project_dir: project_dir.to_path_buf(),
            layers,
            decided_by,
            sdk_v1: None,
        }
    }

    pub fn value(&self) -> Option<&NegotiationValue> {
        self.deciding_layer().and_then(|l| l.effective_value())
    }

    pub fn deciding_layer(&self) -> Option<&SettingsLayer> {
        self.decided_by.map(|i| &self.layers[i])
    }

    pub fn is_legacy(&self) -> bool {
        self.value().is_some_and(NegotiationValue::is_legacy)
    }

    /// Files Claude Code skips although they exist (not strict JSON, invalid, unreadable).
    pub fn problem_layers(&self) -> impl Iterator<Item = &SettingsLayer> {
        self.layers.iter().filter(|l| l.is_problem())
    }

    /// Layers above the file at `path` (by precedence) whose value is in effect and is
    /// not `legacy`: a fix to `path` would not change what Claude Code uses. A path that
    /// is none of the layers is taken as the user file's rank (the lowest file layer).
    pub fn overriding(&self, path: &Path) -> Vec<&SettingsLayer> {
        self.layers[..self.rank_of(path)]
            .iter()
            .filter(|l| l.effective_value().is_some_and(|v| !v.is_legacy()))
            .collect()
    }

    /// Layers above the file at `path` (ranked as in [`Self::overriding`]) that exist
    /// but could not be read (permission denied, a FIFO, not UTF-8...): whether they set
    /// the key is unknown, so a fix to `path` may not take effect. A check that did not
    /// run: said, never taken as "nothing sets it".
    pub fn unknown_above(&self, path: &Path) -> Vec<&SettingsLayer> {
        self.layers[..self.rank_of(path)]
            .iter()
            .filter(|l| l.is_unknown())
            .collect()
    }

    /// Layers above the deciding one (every file layer when nothing decides) that could
    /// not be read: the value in effect is unknown while any is.
    pub fn unknown_deciders(&self) -> Vec<&SettingsLayer> {
        let above = self.decided_by.unwrap_or(self.layers.len());
        self.layers[..above]
            .iter()
            .filter(|l| l.is_unknown())
            .collect()
    }

    fn rank_of(&self, path: &Path) -> usize {
        self.layers
            .iter()
            .position(|l| l.path.as_deref().is_some_and(|p| same_file(p, path)))
            .unwrap_or_else(|| {
                self.layers
                    .iter()
                    .position(|l| l.kind == LayerKind::User)
                    .unwrap_or(self.layers.len())
            })
    }
}

impl EffectiveNegotiation {
    /// Whether `legacy` written to the file at `path` takes effect in this project: the
    /// file is one of its layers (the user file always is; a project's own files only
    /// for that project) and no layer above it sets another value.
    pub fn reached_by(&self, path: &Path) -> bool {
        match self
            .layers
            .iter()
            .position(|l| l.path.as_deref().is_some_and(|p| same_file(p, path)))
        {
            Some(rank) => !self.layers[..rank]
                .iter()
                .any(|l| l.effective_value().is_some_and(|v| !v.is_legacy())),
            None => false,
        }
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// The settings report for one project: every layer and the effective value. This is
/// what `mcplogs settings` shows and what a `scan` summary can be built from with
/// [`crate::render::settings::summary_lines`].
pub fn effective_negotiation(sources: &Sources) -> EffectiveNegotiation {
    let mut e = EffectiveNegotiation::from_layers(&sources.project_dir, sources.read());
    // exactly `v1`, as `probe` reads it (Claude Code ignores any other value); the
    // environment as `sources` holds it (this machine's, or none for a copied home)
    e.sdk_v1 = crate::settings::env::env_values(
        sources,
        crate::claude_code::lifecycle::SDK_GENERATION_VAR,
        sources
            .sdk_generation
            .clone()
            .filter(|_| sources.environment),
    )
    .into_iter()
    .find_map(|l| Some((l.value.clone()?, l.describe())))
    .filter(|(v, _)| v == "v1")
    .map(|(_, by)| by);
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::layers::LayerStatus;

    fn layer(kind: LayerKind, status: LayerStatus, v: Option<&str>) -> SettingsLayer {
        SettingsLayer {
            kind,
            path: Some(PathBuf::from(format!("/{}", kind.as_str()))),
            status,
            negotiation: v.map(NegotiationValue::from_text),
        }
    }

    #[test]
    fn settings_env_beats_the_shell() {
        let e = EffectiveNegotiation::from_layers(
            Path::new("/p"),
            vec![
                layer(LayerKind::User, LayerStatus::Strict, Some("legacy")),
                SettingsLayer {
                    kind: LayerKind::Environment,
                    path: None,
                    status: LayerStatus::Environment,
                    negotiation: Some(NegotiationValue::Auto),
                },
            ],
        );
        assert_eq!(e.value(), Some(&NegotiationValue::Legacy));
        assert_eq!(e.deciding_layer().unwrap().kind, LayerKind::User);
    }

    #[test]
    fn an_ignored_file_does_not_decide() {
        let ignored = LayerStatus::Ignored {
            problem: crate::settings::TextProblem {
                line: 1,
                column: 1,
                message: "x".into(),
            },
            env_keys: vec!["MCP_PROTOCOL_NEGOTIATION".into()],
        };
        let e = EffectiveNegotiation::from_layers(
            Path::new("/p"),
            vec![
                layer(LayerKind::Project, ignored, Some("legacy")),
                layer(LayerKind::User, LayerStatus::Strict, Some("auto")),
            ],
        );
        assert_eq!(e.value(), Some(&NegotiationValue::Auto));
        assert_eq!(e.problem_layers().count(), 1);
    }

    /// A layer that could not be read is unknown above every file below it, and makes
    /// the value unknown while it is above the deciding layer (or nothing decides).
    #[test]
    fn an_unreadable_layer_is_unknown_never_nothing() {
        let unreadable = LayerStatus::Unreadable {
            error: crate::settings::layers::LayerReadError::NotUtf8,
        };
        let e = EffectiveNegotiation::from_layers(
            Path::new("/p"),
            vec![
                layer(LayerKind::Local, unreadable, None),
                layer(LayerKind::Project, LayerStatus::Strict, None),
                layer(LayerKind::User, LayerStatus::Absent, None),
            ],
        );
        assert_eq!(e.value(), None);
        let kinds = |v: Vec<&SettingsLayer>| v.iter().map(|l| l.kind).collect::<Vec<_>>();
        assert_eq!(kinds(e.unknown_deciders()), vec![LayerKind::Local]);
        assert_eq!(
            kinds(e.unknown_above(Path::new("/user"))),
            vec![LayerKind::Local]
        );
        assert!(e.unknown_above(Path::new("/local")).is_empty());
        assert!(
            e.layers[0]
                .unread_text()
                .starts_with("local settings /local could not be read (not UTF-8")
        );
    }

    #[test]
    fn nothing_set_means_default() {
        let e = EffectiveNegotiation::from_layers(
            Path::new("/p"),
            vec![layer(LayerKind::User, LayerStatus::Absent, None)],
        );
        assert_eq!(e.value(), None);
        assert!(!e.is_legacy());
    }

    #[test]
    fn overriding_lists_only_higher_non_legacy_layers() {
        let e = EffectiveNegotiation::from_layers(
            Path::new("/p"),
            vec![
                layer(LayerKind::Managed, LayerStatus::Strict, Some("legacy")),
                layer(LayerKind::Local, LayerStatus::Strict, Some("auto")),
                layer(LayerKind::Project, LayerStatus::Strict, None),
                layer(LayerKind::User, LayerStatus::Strict, Some("auto")),
            ],
        );
        let over: Vec<LayerKind> = e
            .overriding(Path::new("/user"))
            .iter()
            .map(|l| l.kind)
            .collect();
        assert_eq!(over, vec![LayerKind::Local]);
        assert!(e.overriding(Path::new("/local")).is_empty());
        // An unknown path ranks as the user file.
        assert_eq!(e.overriding(Path::new("/elsewhere")).len(), 1);
        // Reach: the local file wins here; the user file, below it, does not; a file
        // that is none of this project's layers never does.
        assert!(e.reached_by(Path::new("/local")));
        assert!(!e.reached_by(Path::new("/user")));
        assert!(!e.reached_by(Path::new("/elsewhere")));
    }
}
