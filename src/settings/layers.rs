//! The settings layers Claude Code reads for one project, highest precedence first, and
//! what each one says about `MCP_PROTOCOL_NEGOTIATION`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::json::Doc;
use super::strictness::{self, Strictness};
use super::{NEGOTIATION_KEY, NegotiationValue, TextProblem};
use crate::claude_code::paths::{self, Os};
use crate::safe_read::{Follow, SETTINGS_MAX_BYTES, read_regular};

/// The layer kinds are Claude Code's (its precedence order): `claude_code::layer`.
pub use crate::claude_code::layer::LayerKind;

/// Why a settings file that exists cannot be read.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LayerReadError {
    /// Not a regular file, over the size cap, replaced while opened, or an I/O error.
    #[error("{0}")]
    Read(#[source] std::sync::Arc<crate::safe_read::ReadError>),
    #[error("not UTF-8 text")]
    NotUtf8,
}

/// Two errors are the same when they say the same (an I/O error has no equality).
impl PartialEq for LayerReadError {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

/// Whether Claude Code reads a layer.
#[derive(Debug, Clone, PartialEq)]
pub enum LayerStatus {
    Absent,
    /// Exists but cannot be read (permissions, a folder in its place, not UTF-8...).
    Unreadable {
        error: LayerReadError,
    },
    /// Strict JSON: in effect.
    Strict,
    /// JSON5 but not strict JSON: Claude Code ignores the file entirely, so `env_keys`
    /// are not in effect.
    Ignored {
        problem: TextProblem,
        env_keys: Vec<String>,
    },
    /// Not even JSON5.
    Invalid {
        problem: TextProblem,
    },
    /// The process environment: always read.
    Environment,
}

impl LayerStatus {
    /// The names used in `--json` (a contract: never rename).
    pub fn as_str(&self) -> &'static str {
        match self {
            LayerStatus::Absent => "absent",
            LayerStatus::Unreadable { .. } => "unreadable",
            LayerStatus::Strict => "strict",
            LayerStatus::Ignored { .. } => "ignored",
            LayerStatus::Invalid { .. } => "invalid",
            LayerStatus::Environment => "environment",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct SettingsLayer {
    pub kind: LayerKind,
    /// `None` for the environment.
    pub path: Option<PathBuf>,
    pub status: LayerStatus,
    /// What the layer sets, whether or not Claude Code reads it (see [`Self::in_effect`]).
    pub negotiation: Option<NegotiationValue>,
}

impl SettingsLayer {
    pub fn present(&self) -> bool {
        match self.status {
            LayerStatus::Absent => false,
            LayerStatus::Environment => self.negotiation.is_some(),
            _ => true,
        }
    }

    /// Whether Claude Code reads this layer (so its value, if any, counts).
    pub fn in_effect(&self) -> bool {
        matches!(self.status, LayerStatus::Strict | LayerStatus::Environment)
    }

    /// The value this layer contributes to the effective setting.
    pub fn effective_value(&self) -> Option<&NegotiationValue> {
        self.negotiation.as_ref().filter(|_| self.in_effect())
    }

    /// A file that exists but mcplogs could not read: what it sets is unknown (Claude
    /// Code may read it: another user, a FIFO with a writer, bytes that are not UTF-8).
    pub fn is_unknown(&self) -> bool {
        matches!(self.status, LayerStatus::Unreadable { .. })
    }

    /// "local settings /p/.claude/settings.local.json could not be read (permission
    /// denied)": a layer [`Self::is_unknown`] names, and why.
    pub fn unread_text(&self) -> String {
        let path = self
            .path
            .as_deref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        match &self.status {
            LayerStatus::Unreadable { error } => {
                format!("{} settings {path} could not be read ({error})", self.kind)
            }
            _ => format!("{} settings {path}", self.kind),
        }
    }

    /// A file a person should repair: Claude Code skips it, or cannot read it.
    pub fn is_problem(&self) -> bool {
        matches!(
            self.status,
            LayerStatus::Ignored { .. }
                | LayerStatus::Invalid { .. }
                | LayerStatus::Unreadable { .. }
        )
    }
}

/// Where the layers are. Built from an OS, a home and an environment so every OS's rules
/// are testable anywhere; tests also point `managed_dir` at a temporary folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sources {
    pub project_dir: PathBuf,
    pub managed_dir: PathBuf,
    /// `None` when neither `CLAUDE_CONFIG_DIR` nor a home is known.
    pub user_dir: Option<PathBuf>,
    /// `MCP_PROTOCOL_NEGOTIATION` in the environment Claude Code would inherit.
    pub environment_value: Option<String>,
    /// `MCP_SDK_GENERATION` there (`v1` puts the legacy handshake in effect:
    /// [`crate::settings::effective::EffectiveNegotiation::sdk_v1`]).
    pub sdk_generation: Option<String>,
    /// Whether the environment mcplogs runs in is a layer (this machine); false for a
    /// home copied from elsewhere (`--home`), whose environment is not known here.
    pub environment: bool,
}

impl Sources {
    /// The settings layers `mcplogs settings` shows, and the managed folder, as the
    /// server states are resolved from them ([`crate::claude_code::config::StateSources`]).
    pub fn state_sources(&self) -> crate::claude_code::config::StateSources {
        crate::claude_code::config::StateSources {
            settings: self.files(),
            managed_dir: Some(self.managed_dir.clone()),
        }
    }

    pub fn new(
        os: Os,
        home: Option<&Path>,
        project_dir: &Path,
        env: &dyn Fn(&str) -> Option<OsString>,
    ) -> Sources {
        Sources::new_in(paths::managed_dir(os), home, project_dir, env)
    }

    /// [`Sources::new`] with the managed settings in `managed_dir`: what a session's
    /// settings passed on to the environment is told against the files Claude Code read,
    /// the managed ones among them.
    pub fn new_in(
        managed_dir: PathBuf,
        home: Option<&Path>,
        project_dir: &Path,
        env: &dyn Fn(&str) -> Option<OsString>,
    ) -> Sources {
        let mut sources = Sources {
            project_dir: project_dir.to_path_buf(),
            managed_dir,
            user_dir: paths::config_dir(home, env),
            environment_value: env(NEGOTIATION_KEY).map(|v| v.to_string_lossy().into_owned()),
            sdk_generation: env(crate::claude_code::lifecycle::SDK_GENERATION_VAR)
                .map(|v| v.to_string_lossy().into_owned()),
            environment: true,
        };
        if env("CLAUDECODE").is_some_and(|v| v == "1") {
            let session_project = env("CLAUDE_PROJECT_DIR")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from);
            sources.leave_what_settings_passed(session_project.as_deref());
        }
        sources
    }

    /// Run inside Claude Code (`CLAUDECODE=1`: a hook, the Bash tool, a `!` command, the
    /// status line), the environment holds the `env` of the session's settings files
    /// (observed: docs/claude-code.md), so a value one of them sets is that file's, not
    /// the shell's: taken as the environment's, it was every project's (helper-99 #1:
    /// `scan` in project a, whose local settings set `legacy`, said the fix was in place
    /// for a failing server of project b, and `fix` wrote nothing for b). Such a value
    /// is left to its file (read with the layers of each project); one no settings file
    /// of the session's project (`CLAUDE_PROJECT_DIR`, else this project) sets stays the
    /// environment's.
    fn leave_what_settings_passed(&mut self, session_project: Option<&Path>) {
        if self.environment_value.is_none() && self.sdk_generation.is_none() {
            return;
        }
        let session = Sources {
            project_dir: session_project.unwrap_or(&self.project_dir).to_path_buf(),
            ..self.clone()
        };
        let set: Vec<(String, String)> = session
            .files()
            .iter()
            .flat_map(|(_, f)| super::env::all_env_in_file(f))
            .collect();
        let passed = |key: &str, value: &Option<String>| {
            value
                .as_deref()
                .is_some_and(|v| set.iter().any(|(k, sv)| k == key && sv == v))
        };
        if passed(NEGOTIATION_KEY, &self.environment_value) {
            self.environment_value = None;
        }
        if passed(
            crate::claude_code::lifecycle::SDK_GENERATION_VAR,
            &self.sdk_generation,
        ) {
            self.sdk_generation = None;
        }
    }

    /// This machine: its OS, the home folder, the real environment.
    pub fn for_this_machine(project_dir: &Path) -> Sources {
        Sources::for_this_machine_in(project_dir, None)
    }

    /// [`Sources::for_this_machine`], with the managed settings in `managed_dir` when
    /// given (`--managed-dir`), read from the start (what the session's settings passed
    /// on is told with them: [`Sources::new_in`]).
    pub fn for_this_machine_in(project_dir: &Path, managed_dir: Option<&Path>) -> Sources {
        let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
        let os = Os::current();
        let managed = managed_dir.map_or_else(|| paths::managed_dir(os), Path::to_path_buf);
        Sources::new_in(managed, home.as_deref(), project_dir, &|k| {
            std::env::var_os(k)
        })
    }

    /// The settings that go with a scan: this machine's, or, when the scan reads a home
    /// copied from elsewhere (`--home`), that home's user settings with no environment
    /// layer (the other machine's environment is not known here).
    pub fn for_scan(homes: &[PathBuf], project_dir: &Path) -> Sources {
        match homes.first() {
            None => Sources::for_this_machine(project_dir),
            Some(home) => Sources {
                environment: false,
                ..Sources::new(Os::current(), Some(home), project_dir, &|_| None)
            },
        }
    }

    /// [`Sources::for_scan`], with the managed settings in `managed_dir` when given
    /// (`--managed-dir`): every command reads a project's layers through this.
    pub fn for_scan_in(
        homes: &[PathBuf],
        project_dir: &Path,
        managed_dir: Option<&Path>,
    ) -> Sources {
        if homes.is_empty() {
            return Sources::for_this_machine_in(project_dir, managed_dir);
        }
        let mut sources = Sources::for_scan(homes, project_dir);
        if let Some(d) = managed_dir {
            sources.managed_dir = d.to_path_buf();
        }
        sources
    }

    /// Every settings file, highest precedence first (no environment layer).
    pub fn files(&self) -> Vec<(LayerKind, PathBuf)> {
        let mut files = Vec::new();
        let drop_ins = paths::managed_drop_ins(&self.managed_dir);
        // (a folder found missing in this resolution is not looked up again: `absent`)
        let listed = if crate::absent::known_gone(&drop_ins) {
            Err(std::io::ErrorKind::NotFound.into())
        } else {
            std::fs::read_dir(&drop_ins)
        };
        if let Err(e) = &listed
            && e.kind() == std::io::ErrorKind::NotFound
        {
            crate::absent::note_gone(&drop_ins);
        }
        let mut names: Vec<PathBuf> = listed
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "json"))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        for p in names.into_iter().rev() {
            files.push((LayerKind::ManagedDropIn, p));
        }
        files.push((
            LayerKind::Managed,
            paths::managed_settings(&self.managed_dir),
        ));
        files.push((
            LayerKind::Local,
            paths::project_local_settings(&self.project_dir),
        ));
        files.push((
            LayerKind::Project,
            paths::project_settings(&self.project_dir),
        ));
        if let Some(user) = &self.user_dir {
            files.push((LayerKind::User, user.join("settings.json")));
        }
        files
    }

    /// Every layer, highest precedence first, read from disk now. A project opened in
    /// the home folder has the user's own file as its `.claude/settings.json`: one layer,
    /// the user's (helper-98 F8: `~/.claude/settings.json` was called project settings).
    /// ([`Self::files`] keeps both: `export` asks which files a project could have set,
    /// and a repository naming its own `.claude` the configuration folder is one.)
    pub fn read(&self) -> Vec<SettingsLayer> {
        let files = self.files();
        let user = files
            .iter()
            .find(|(k, _)| *k == LayerKind::User)
            .map(|(_, p)| p.clone());
        let mut layers: Vec<SettingsLayer> = files
            .into_iter()
            .filter(|(k, p)| *k != LayerKind::Project || user.as_ref() != Some(p))
            .map(|(kind, path)| read_layer(kind, &path))
            .collect();
        layers.push(SettingsLayer {
            kind: LayerKind::Environment,
            path: None,
            status: LayerStatus::Environment,
            negotiation: self
                .environment_value
                .as_deref()
                .map(NegotiationValue::from_text),
        });
        layers
    }
}

/// Reads one settings file (through symlinks, as Claude Code does).
pub fn read_layer(kind: LayerKind, path: &Path) -> SettingsLayer {
    let layer = |status, negotiation| SettingsLayer {
        kind,
        path: Some(path.to_path_buf()),
        status,
        negotiation,
    };
    // Through symlinks, as Claude Code reads it; only a regular file, never blocking.
    let bytes = match read_regular(path, SETTINGS_MAX_BYTES, Follow::Links) {
        Ok(Some(r)) => r.bytes,
        Ok(None) => return layer(LayerStatus::Absent, None),
        Err(e) => {
            return layer(
                LayerStatus::Unreadable {
                    error: LayerReadError::Read(std::sync::Arc::new(e)),
                },
                None,
            );
        }
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return layer(
            LayerStatus::Unreadable {
                error: LayerReadError::NotUtf8,
            },
            None,
        );
    };
    match strictness::check(&text) {
        Strictness::Strict(object) => layer(LayerStatus::Strict, negotiation_in(&object)),
        Strictness::NonStrict { problem, doc } => layer(
            LayerStatus::Ignored {
                problem,
                env_keys: strictness::env_keys(&doc),
            },
            negotiation_in(&doc),
        ),
        Strictness::Invalid { problem } => layer(LayerStatus::Invalid { problem }, None),
    }
}

/// `env.MCP_PROTOCOL_NEGOTIATION` of a parsed settings file (the last of duplicate
/// keys, as `JSON.parse` keeps); a value that is not a string is shown as written.
pub fn negotiation_in(doc: &Doc) -> Option<NegotiationValue> {
    Some(match super::env::env_entry(doc, NEGOTIATION_KEY)? {
        Ok(s) => NegotiationValue::from_text(&s),
        Err(e) => NegotiationValue::Unrecognised(e.json),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::env_of;

    #[test]
    fn managed_folder_per_os() {
        assert_eq!(
            paths::managed_dir(Os::Linux),
            PathBuf::from("/etc/claude-code")
        );
        assert_eq!(
            paths::managed_dir(Os::MacOs),
            PathBuf::from("/Library/Application Support/ClaudeCode")
        );
        assert_eq!(
            paths::managed_dir(Os::Windows),
            PathBuf::from(r"C:\Program Files\ClaudeCode")
        );
    }

    #[test]
    fn sources_per_os_in_precedence_order() {
        let home = Path::new("/home/u");
        for (os, managed) in [
            (Os::Linux, "/etc/claude-code"),
            (Os::MacOs, "/Library/Application Support/ClaudeCode"),
            (Os::Windows, r"C:\Program Files\ClaudeCode"),
        ] {
            let s = Sources::new(os, Some(home), Path::new("/p"), &env_of(&[]));
            let files = s.files();
            let kinds: Vec<LayerKind> = files.iter().map(|(k, _)| *k).collect();
            assert_eq!(
                kinds,
                vec![
                    LayerKind::Managed,
                    LayerKind::Local,
                    LayerKind::Project,
                    LayerKind::User
                ]
            );
            assert_eq!(files[0].1, Path::new(managed).join("managed-settings.json"));
            assert_eq!(files[1].1, Path::new("/p/.claude/settings.local.json"));
            assert_eq!(files[2].1, Path::new("/p/.claude/settings.json"));
            assert_eq!(files[3].1, Path::new("/home/u/.claude/settings.json"));
        }
    }

    #[test]
    fn claude_config_dir_replaces_dot_claude_unless_empty() {
        let env = env_of(&[("CLAUDE_CONFIG_DIR", "/cfg")]);
        assert_eq!(
            paths::user_settings_file(Some(Path::new("/home/u")), &env),
            Some(PathBuf::from("/cfg/settings.json"))
        );
        let empty = env_of(&[("CLAUDE_CONFIG_DIR", "")]);
        assert_eq!(
            paths::user_settings_file(Some(Path::new("/home/u")), &empty),
            Some(PathBuf::from("/home/u/.claude/settings.json"))
        );
        assert_eq!(paths::user_settings_file(None, &env_of(&[])), None);
    }

    #[test]
    fn environment_value_is_read_from_env() {
        let env = env_of(&[("MCP_PROTOCOL_NEGOTIATION", "auto")]);
        let s = Sources::new(Os::Linux, None, Path::new("/p"), &env);
        let layers = s.read();
        let last = layers.last().unwrap();
        assert_eq!(last.kind, LayerKind::Environment);
        assert_eq!(last.negotiation, Some(NegotiationValue::Auto));
    }

    #[test]
    fn inside_claude_code_a_value_the_sessions_settings_set_is_theirs_not_the_environments() {
        // helper-99 #1: run by a hook (or the Bash tool) in project a, whose local
        // settings set `legacy`, mcplogs saw `legacy` in its environment and took it as
        // every project's.
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let (a, b) = (root.path().join("a"), root.path().join("b"));
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(a.join(".claude")).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(
            a.join(".claude/settings.local.json"),
            r#"{"env": {"MCP_PROTOCOL_NEGOTIATION": "legacy"}}"#,
        )
        .unwrap();
        let a_s = a.display().to_string();
        // (an empty managed folder: the host's is never read)
        let managed = root.path().join("managed");
        let env = |claude_code: bool, project: Option<&str>| {
            let a_s = a_s.clone();
            let project = project.map(str::to_string);
            move |k: &str| -> Option<OsString> {
                match k {
                    "MCP_PROTOCOL_NEGOTIATION" => Some("legacy".into()),
                    "MCP_SDK_GENERATION" => Some("v1".into()),
                    "CLAUDECODE" if claude_code => Some("1".into()),
                    "CLAUDE_PROJECT_DIR" => project.clone().or(Some(a_s.clone())).map(Into::into),
                    _ => None,
                }
            }
        };
        let s = Sources::new_in(managed.clone(), Some(&home), &b, &env(true, None));
        // a's file set it; the shell set `MCP_SDK_GENERATION` (no file does)
        assert_eq!(
            (s.environment_value.as_deref(), s.sdk_generation.as_deref()),
            (None, Some("v1"))
        );
        // and the same run from a (the session's project as the current one)
        let s = Sources::new_in(managed.clone(), Some(&home), &a, &env(true, Some("")));
        assert_eq!(s.environment_value, None);
        // outside Claude Code the environment is the user's shell's
        let s = Sources::new_in(managed.clone(), Some(&home), &b, &env(false, None));
        assert_eq!(s.environment_value.as_deref(), Some("legacy"));
        // a session in b, which sets nothing: the value came from the shell
        let b_s = b.display().to_string();
        let s = Sources::new_in(managed.clone(), Some(&home), &b, &env(true, Some(&b_s)));
        assert_eq!(s.environment_value.as_deref(), Some("legacy"));
    }

    /// helper-98 F8: run in the home folder, `~/.claude/settings.json` is the project's
    /// `.claude/settings.json` too: one layer, the user's (it was said to be project
    /// settings); `files` keeps both for `export`'s trust checks.
    #[test]
    fn the_home_folders_project_file_is_the_users_one_layer() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::write(
            home.join(".claude/settings.json"),
            r#"{"env": {"MCP_PROTOCOL_NEGOTIATION": "legacy"}}"#,
        )
        .unwrap();
        let s = Sources {
            project_dir: home.clone(),
            managed_dir: root.path().join("managed"),
            user_dir: Some(home.join(".claude")),
            environment_value: None,
            sdk_generation: None,
            environment: false,
        };
        let kinds: Vec<LayerKind> = s.read().iter().map(|l| l.kind).collect();
        assert!(!kinds.contains(&LayerKind::Project), "{kinds:?}");
        let user = s
            .read()
            .into_iter()
            .find(|l| l.kind == LayerKind::User)
            .unwrap();
        assert_eq!(user.negotiation, Some(NegotiationValue::Legacy));
        assert!(s.files().iter().any(|(k, _)| *k == LayerKind::Project));
        // another project: both layers
        let other = Sources {
            project_dir: root.path().join("proj"),
            ..s
        };
        assert!(other.read().iter().any(|l| l.kind == LayerKind::Project));
    }

    #[test]
    fn drop_ins_sorted_last_name_first() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("managed-settings.d");
        std::fs::create_dir(&d).unwrap();
        for n in ["10-a.json", "20-b.json", "notes.txt"] {
            std::fs::write(d.join(n), "{}").unwrap();
        }
        let s = Sources {
            project_dir: PathBuf::from("/p"),
            managed_dir: dir.path().to_path_buf(),
            user_dir: None,
            environment_value: None,
            sdk_generation: None,
            environment: false,
        };
        let files = s.files();
        assert_eq!(files[0], (LayerKind::ManagedDropIn, d.join("20-b.json")));
        assert_eq!(files[1], (LayerKind::ManagedDropIn, d.join("10-a.json")));
        assert_eq!(files[2].0, LayerKind::Managed);
        assert_eq!(files.len(), 5);
    }
}
