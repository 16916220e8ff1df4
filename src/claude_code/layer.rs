//! Leaf: the kinds of settings layer Claude Code reads, in its precedence order. Known
//! here, in the model of Claude Code, so that `claude_code` never imports `settings`
//! (which reads the layers' files and imports `claude_code`).

use std::fmt;

/// One kind of layer, in precedence order (the first wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LayerKind {
    /// `managed-settings.d/*.json`: merged on top of `managed-settings.json` in name
    /// order, so the last name wins (the systemd drop-in convention Claude Code follows).
    ManagedDropIn,
    /// `managed-settings.json` in the per-OS folder an administrator owns.
    Managed,
    /// `<project>/.claude/settings.local.json`.
    Local,
    /// `<project>/.claude/settings.json`.
    Project,
    /// `$CLAUDE_CONFIG_DIR/settings.json` or `~/.claude/settings.json`.
    User,
    /// The environment Claude Code was started with: settings `env` beats it.
    Environment,
}

impl LayerKind {
    /// The names used in text and in `--json` (a contract: never rename).
    pub fn as_str(self) -> &'static str {
        match self {
            LayerKind::ManagedDropIn => "managed-drop-in",
            LayerKind::Managed => "managed",
            LayerKind::Local => "local",
            LayerKind::Project => "project",
            LayerKind::User => "user",
            LayerKind::Environment => "environment",
        }
    }
}

impl fmt::Display for LayerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
