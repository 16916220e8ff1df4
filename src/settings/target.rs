//! Which settings file `mcplogs fix` writes: the layer that wins, with the least
//! intrusion (reference, section 4).
//!
//! - Nothing above the user file sets `MCP_PROTOCOL_NEGOTIATION`: the user file
//!   (`~/.claude/settings.json`), which covers every project.
//! - The project's shared `.claude/settings.json` or its `.claude/settings.local.json`
//!   sets another value: the project's `.claude/settings.local.json`, which outranks the
//!   shared file and is meant to stay uncommitted (a fix in the user file would do nothing
//!   there: observed with 2.1.288 and 2.1.300).
//! - A managed file sets another value: nothing mcplogs may write can win, and mcplogs
//!   never writes a managed file.

use std::path::{Path, PathBuf};

use super::effective::EffectiveNegotiation;
use super::layers::{LayerKind, SettingsLayer};
use super::{NEGOTIATION_KEY, NegotiationValue};

/// Where the legacy fix goes for one project, and why.
#[derive(Debug, Clone, PartialEq)]
pub enum FixTarget {
    /// Write `path` (a `kind` layer).
    Write {
        kind: LayerKind,
        path: PathBuf,
        /// The layer above the user file whose value the write must outrank, if any.
        outranks: Option<SettingsLayer>,
        /// The layers above `path` that could not be read: whether one of them sets the
        /// key is unknown, so the write may not take effect ([`unknown_text`]).
        unknown: Vec<SettingsLayer>,
    },
    /// `legacy` is already in effect, decided by this layer.
    InEffect { layer: SettingsLayer },
    /// `MCP_SDK_GENERATION=v1` is in effect (`by`: where it is set): every build then
    /// uses the legacy handshake whatever `MCP_PROTOCOL_NEGOTIATION` says (the older
    /// client, or its compatibility mode: docs/claude-code.md), so the legacy setting is
    /// in place already (helper-95 #5: `fix` offered to write it).
    SdkV1 { by: String },
    /// `legacy` is in effect by this layer, whose file was last changed before the
    /// server's failing connection was made: the setting was there, and that session
    /// used the new handshake all the same, so Claude Code did not read it (another
    /// `--settings` file or configuration folder, say). Writing it again changes nothing
    /// (helper-95 #3: "made before it took effect" was said of it, and a restart advised
    /// into the same failure). Made per server by [`SettingsAdvice::as_of_connection`].
    InEffectUnread { layer: SettingsLayer },
    /// A managed settings file sets another value; no file mcplogs may write outranks it.
    Managed { layer: SettingsLayer },
    /// No home folder and no `CLAUDE_CONFIG_DIR`: the user file cannot be located.
    NoUserFile,
    /// The file that wins (`kind`, at `path`) is one `mcplogs fix` refuses to write: not
    /// a regular file (a FIFO, a device), hard-linked, unreadable, or a project's file
    /// reached through a symbolic link. `why` is the refusal `fix` gives.
    Unwritable {
        kind: LayerKind,
        path: PathBuf,
        why: String,
    },
}

impl FixTarget {
    /// Whether the legacy handshake is in effect already (the setting, or
    /// `MCP_SDK_GENERATION=v1`): nothing to write.
    pub fn is_in_effect(&self) -> bool {
        matches!(self, FixTarget::InEffect { .. } | FixTarget::SdkV1 { .. })
    }

    /// Whether writing the fix can change what Claude Code uses.
    pub fn can_write(&self) -> bool {
        matches!(self, FixTarget::Write { .. })
    }

    /// The file to write, when there is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            FixTarget::Write { path, .. } => Some(path),
            _ => None,
        }
    }

    /// One sentence saying which file and why (the "why" `fix` prints above its diff).
    /// A layer above the file that could not be read is said, never taken as setting
    /// nothing.
    pub fn reason(&self) -> String {
        match self {
            FixTarget::Write { unknown, .. } if !unknown.is_empty() => {
                let unknown: Vec<&SettingsLayer> = unknown.iter().collect();
                format!("{}; but {}", self.known_reason(), unknown_text(&unknown))
            }
            _ => self.known_reason(),
        }
    }

    fn known_reason(&self) -> String {
        match self {
            FixTarget::Write {
                kind: LayerKind::Local,
                outranks: None,
                path,
                ..
            } => format!(
                "the user settings file would also reach a server of another project that speaks only the new protocol, which the legacy setting breaks; the project's local file {} reaches this project only and is not meant to be committed",
                path.display()
            ),
            FixTarget::Write {
                outranks: None,
                unknown,
                ..
            } if !unknown.is_empty() => format!(
                "it is the user settings file, and no layer with higher precedence that mcplogs could read sets {NEGOTIATION_KEY} in this project"
            ),
            FixTarget::Write { outranks: None, .. } => format!(
                "it is the user settings file, and nothing with higher precedence sets {NEGOTIATION_KEY} in this project"
            ),
            FixTarget::Write {
                path,
                outranks: Some(layer),
                ..
            } => format!(
                "{} sets {NEGOTIATION_KEY} to \"{}\", which outranks the user settings file; the project's local file {} outranks it in turn and is not meant to be committed",
                layer_path(layer),
                value_of(layer),
                path.display()
            ),
            FixTarget::InEffect { layer } => format!(
                "{} already sets env.{NEGOTIATION_KEY} to \"legacy\"",
                layer_path(layer)
            ),
            FixTarget::SdkV1 { by } => format!(
                "MCP_SDK_GENERATION=v1 ({by}) already gives every server the legacy handshake, whatever {NEGOTIATION_KEY} says"
            ),
            FixTarget::InEffectUnread { layer } => format!(
                "{} already set env.{NEGOTIATION_KEY} to \"legacy\" when the failing connection was made, and Claude Code used the new handshake all the same, so it did not read that file",
                layer_path(layer)
            ),
            FixTarget::Managed { layer } => format!(
                "the managed settings file {} sets {NEGOTIATION_KEY} to \"{}\"; managed settings outrank every file a user may write, and mcplogs never writes them: ask whoever administers this machine to change it",
                layer_path(layer),
                value_of(layer)
            ),
            FixTarget::NoUserFile => {
                "cannot find the home folder, so the user settings file is unknown".to_string()
            }
            FixTarget::Unwritable { why, .. } => {
                format!("mcplogs fix cannot write the file that wins there: {why}")
            }
        }
    }

    /// This target, or [`FixTarget::Unwritable`] when its file is one `mcplogs fix`
    /// refuses when it reads it ([`super::write::FileSnapshot::read`]: a project's file
    /// through a link, not a regular file, hard-linked, unreadable), so that the advice
    /// never names a fix that exits 2. Each file is read once in `known` (why it is
    /// refused, or `None`): the user's file is the target of every project that does
    /// not decide the value itself.
    pub fn checked(
        self,
        known: &mut std::collections::HashMap<std::path::PathBuf, Option<String>>,
    ) -> FixTarget {
        let FixTarget::Write { kind, path, .. } = &self else {
            return self;
        };
        let why = known
            .entry(path.clone())
            .or_insert_with(|| {
                // as `fix` plans it: a file it refuses to read, and one it will not edit
                // (JSON5, which Claude Code ignores whole: helper-95 #2, every command
                // said "run `mcplogs fix`", which then exited 2)
                super::fix::plan_fix(path, super::fix::FixOptions::default())
                    .err()
                    .map(|e| format!("{e}{}", e.hint()))
            })
            .clone();
        match why {
            None => self,
            Some(why) => FixTarget::Unwritable {
                kind: *kind,
                path: path.clone(),
                why,
            },
        }
    }
}

/// "local settings /p/.claude/settings.local.json could not be read (permission
/// denied), so whether it sets MCP_PROTOCOL_NEGOTIATION is unknown: if it does, this
/// fix does not take effect there" (several layers joined): a check that did not run.
pub fn unknown_text(layers: &[&SettingsLayer]) -> String {
    let names: Vec<String> = layers.iter().map(|l| l.unread_text()).collect();
    let (it, does) = if layers.len() > 1 {
        ("one of them", "one does")
    } else {
        ("it", "it does")
    };
    format!(
        "{}, so whether {it} sets {NEGOTIATION_KEY} is unknown: if {does}, this fix does not take effect there",
        names.join(" and ")
    )
}

fn layer_path(l: &SettingsLayer) -> String {
    match &l.path {
        Some(p) => p.display().to_string(),
        None => "the process environment".to_string(),
    }
}

fn value_of(l: &SettingsLayer) -> String {
    l.effective_value()
        .map(NegotiationValue::as_str)
        .unwrap_or("")
        .to_string()
}

/// The layers of `e` above `path` that could not be read, owned.
pub fn unknown_above(e: &EffectiveNegotiation, path: &Path) -> Vec<SettingsLayer> {
    e.unknown_above(path).into_iter().cloned().collect()
}

/// Chooses the file for `e`'s project (see the module comment).
pub fn choose(e: &EffectiveNegotiation) -> FixTarget {
    // (tested before MCP_PROTOCOL_NEGOTIATION by Claude Code: it outranks every layer of it)
    if let Some(by) = &e.sdk_v1 {
        return FixTarget::SdkV1 { by: by.clone() };
    }
    if let Some(layer) = e.deciding_layer() {
        if e.is_legacy() {
            return FixTarget::InEffect {
                layer: layer.clone(),
            };
        }
        match layer.kind {
            LayerKind::Managed | LayerKind::ManagedDropIn => {
                return FixTarget::Managed {
                    layer: layer.clone(),
                };
            }
            LayerKind::Local | LayerKind::Project => {
                let path = e.project_dir.join(".claude").join("settings.local.json");
                return FixTarget::Write {
                    kind: LayerKind::Local,
                    unknown: unknown_above(e, &path),
                    path,
                    outranks: Some(layer.clone()),
                };
            }
            LayerKind::User | LayerKind::Environment => {}
        }
    }
    match e.layers.iter().find(|l| l.kind == LayerKind::User) {
        Some(SettingsLayer {
            path: Some(path), ..
        }) => FixTarget::Write {
            kind: LayerKind::User,
            unknown: unknown_above(e, path),
            path: path.clone(),
            outranks: None,
        },
        _ => FixTarget::NoUserFile,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::layers::LayerStatus;

    fn layer(kind: LayerKind, v: Option<&str>) -> SettingsLayer {
        SettingsLayer {
            kind,
            path: Some(PathBuf::from(format!("/{}", kind.as_str()))),
            status: LayerStatus::Strict,
            negotiation: v.map(NegotiationValue::from_text),
        }
    }

    fn stack(
        managed: Option<&str>,
        local: Option<&str>,
        project: Option<&str>,
        user: Option<&str>,
    ) -> EffectiveNegotiation {
        EffectiveNegotiation::from_layers(
            Path::new("/p"),
            vec![
                layer(LayerKind::Managed, managed),
                layer(LayerKind::Local, local),
                layer(LayerKind::Project, project),
                layer(LayerKind::User, user),
                SettingsLayer {
                    kind: LayerKind::Environment,
                    path: None,
                    status: LayerStatus::Environment,
                    negotiation: Some(NegotiationValue::Auto),
                },
            ],
        )
    }

    #[test]
    fn nothing_above_the_user_file_targets_it() {
        let t = choose(&stack(None, None, None, Some("auto")));
        assert_eq!(t.path(), Some(Path::new("/user")));
        assert!(t.can_write());
        // It reaches this project; it never claims the others (their own files may win).
        assert!(t.reason().contains("in this project"), "{}", t.reason());
        assert!(!t.reason().contains("every project"));
        // The environment's auto does not change that: settings env beats it.
        assert_eq!(
            choose(&stack(None, None, None, None)).path(),
            Some(Path::new("/user"))
        );
    }

    #[test]
    fn a_project_override_targets_the_local_file() {
        let t = choose(&stack(None, None, Some("auto"), Some("legacy")));
        assert_eq!(t.path(), Some(Path::new("/p/.claude/settings.local.json")));
        let why = t.reason();
        assert!(
            why.contains("/project sets MCP_PROTOCOL_NEGOTIATION to \"auto\""),
            "{why}"
        );
        assert!(why.contains("not meant to be committed"), "{why}");
        // The local file itself saying auto: still the local file.
        let t = choose(&stack(None, Some("auto"), None, None));
        assert_eq!(t.path(), Some(Path::new("/p/.claude/settings.local.json")));
    }

    #[test]
    fn legacy_in_effect_anywhere_means_nothing_to_write() {
        for e in [
            stack(None, None, None, Some("legacy")),
            stack(None, Some("legacy"), Some("auto"), None),
            stack(Some("legacy"), Some("auto"), None, None),
        ] {
            assert!(matches!(choose(&e), FixTarget::InEffect { .. }));
            assert!(!choose(&e).can_write());
        }
    }

    #[test]
    fn a_managed_value_is_never_a_target() {
        let t = choose(&stack(Some("auto"), None, None, None));
        assert!(matches!(t, FixTarget::Managed { .. }));
        assert!(t.path().is_none());
        assert!(t.reason().contains("mcplogs never writes them"));
    }

    #[test]
    fn an_ignored_project_file_does_not_count() {
        let mut e = stack(None, None, Some("auto"), None);
        e.layers[2].status = LayerStatus::Ignored {
            problem: crate::settings::TextProblem {
                line: 1,
                column: 1,
                message: "comment".into(),
            },
            env_keys: vec![],
        };
        let e = EffectiveNegotiation::from_layers(Path::new("/p"), e.layers);
        assert_eq!(choose(&e).path(), Some(Path::new("/user")));
    }
}

/// What the settings mean for one server the legacy setting would help.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsAdvice {
    /// The project whose settings layers were read.
    pub project_dir: PathBuf,
    pub target: FixTarget,
    /// When `legacy` is in effect: when the deciding file was last changed.
    pub set_at: Option<crate::time::EpochSeconds>,
    /// The home folders the scan read (`--home`): `mcplogs fix` must be given them too,
    /// to write their user file (empty: this machine's).
    pub homes: Vec<PathBuf>,
    /// The server's project folder does not exist here: only the files outside it were
    /// read, and the fix command names the file it writes instead of a project.
    pub project_gone: bool,
    /// A server of the project (or of every project: a user-scope one) that speaks only
    /// the new protocol, which the legacy setting breaks: no value serves both, so
    /// `mcplogs fix` writes neither (`advice::Conflicts`), and the advice says so.
    pub conflict: Option<String>,
}

impl SettingsAdvice {
    /// This advice for a server whose failing connection was made at `connected`
    /// (the start of the process that made it): the legacy setting in effect by a file last
    /// changed before then is [`FixTarget::InEffectUnread`]; `None` when nothing
    /// changes (the file changed later, or either time is not known).
    pub fn as_of_connection(&self, connected: Option<crate::time::EpochSeconds>) -> Option<Self> {
        let FixTarget::InEffect { layer } = &self.target else {
            return None;
        };
        (self.set_at? < connected?).then(|| SettingsAdvice {
            target: FixTarget::InEffectUnread {
                layer: layer.clone(),
            },
            ..self.clone()
        })
    }

    /// [`Self::for_project`] with its target [`FixTarget::checked`] as `mcplogs fix`
    /// plans it: what `probe` advises for one project (helper-99 #4: it said "run
    /// `mcplogs fix`" of a JSON5 file `fix` refuses, where `scan` gave fix's reason).
    pub fn for_project_as_fix_plans(e: &EffectiveNegotiation) -> Self {
        let a = Self::for_project(e);
        SettingsAdvice {
            target: a.target.clone().checked(&mut Default::default()),
            ..a
        }
    }

    pub fn for_project(e: &EffectiveNegotiation) -> Self {
        let target = choose(e);
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
            homes: Vec::new(),
            project_gone: false,
            conflict: None,
        }
    }
}
