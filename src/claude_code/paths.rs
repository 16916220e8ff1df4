//! Claude Code's paths and file names, on every OS: the cache root its MCP logs go under,
//! the log folder names, the configuration folder (`CLAUDE_CONFIG_DIR`), `.claude.json`,
//! the project's `.mcp.json` and settings files, and the managed folder. Written down in
//! `docs/claude-code.md` ("Where the per-server MCP logs live", "Settings"); every other
//! module asks here.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The cache folder's name (Node's `env-paths` with app `claude-cli`, suffix `-nodejs`).
pub const CACHE_DIR_NAME: &str = "claude-cli-nodejs";
/// A server's log folder is `mcp-logs-<encoded server name>`.
pub const SERVER_DIR_PREFIX: &str = "mcp-logs-";
/// Debug logs (`--debug`) go into `<config dir>/debug/<session>.txt`.
pub const DEBUG_DIR_NAME: &str = "debug";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    MacOs,
    Windows,
}

impl Os {
    pub fn current() -> Os {
        #[cfg(target_os = "macos")]
        {
            Os::MacOs
        }
        #[cfg(windows)]
        {
            Os::Windows
        }
        #[cfg(not(any(target_os = "macos", windows)))]
        {
            Os::Linux
        }
    }
}

/// The cache layouts, relative to a home folder, for `--home`: a home copied from any OS.
pub const HOME_LAYOUTS: [&[&str]; 3] = [
    &["Library", "Caches", CACHE_DIR_NAME],
    &["AppData", "Local", CACHE_DIR_NAME, "Cache"],
    &[".cache", CACHE_DIR_NAME],
];

/// An environment variable as Claude Code reads it: unset and empty are the same.
fn non_empty(env: &dyn Fn(&str) -> Option<OsString>, key: &str) -> Option<PathBuf> {
    env(key).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// Claude Code's cache root on `os` (Node's `env-paths` rules with app `claude-cli`).
/// `env` reads an environment variable; injected so each OS's rule is testable anywhere.
pub fn default_cache_root(
    os: Os,
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Option<PathBuf> {
    match os {
        Os::MacOs => Some(home?.join("Library").join("Caches").join(CACHE_DIR_NAME)),
        Os::Windows => {
            let local = non_empty(env, "LOCALAPPDATA")
                .or_else(|| home.map(|h| h.join("AppData").join("Local")))?;
            Some(local.join(CACHE_DIR_NAME).join("Cache"))
        }
        Os::Linux => {
            let cache =
                non_empty(env, "XDG_CACHE_HOME").or_else(|| home.map(|h| h.join(".cache")))?;
            Some(cache.join(CACHE_DIR_NAME))
        }
    }
}

/// The home a cache root belongs to, when the root has one of [`HOME_LAYOUTS`].
pub fn home_of_cache_root(root: &Path) -> Option<PathBuf> {
    'layouts: for layout in HOME_LAYOUTS {
        let mut p = root;
        for comp in layout.iter().rev() {
            if p.file_name().and_then(|n| n.to_str()) != Some(comp) {
                continue 'layouts;
            }
            match p.parent() {
                Some(parent) => p = parent,
                None => continue 'layouts,
            }
        }
        return Some(p.to_path_buf());
    }
    None
}

/// `$CLAUDE_CONFIG_DIR` when it is set and not empty (an empty value is unset, as for
/// Claude Code: it never means the current directory).
pub fn config_dir_override(env: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    non_empty(env, "CLAUDE_CONFIG_DIR")
}

/// Claude Code's configuration folder: [`config_dir_override`], else `<home>/.claude`
/// (all OSes). It holds the user `settings.json` and `debug/`.
pub fn config_dir(home: Option<&Path>, env: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    config_dir_override(env).or_else(|| home.map(|h| h.join(".claude")))
}

/// The user settings file: what `mcplogs fix` edits by default.
pub fn user_settings_file(
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Option<PathBuf> {
    config_dir(home, env).map(|d| d.join("settings.json"))
}

/// Where Claude Code keeps its global config (servers of the user and local scopes,
/// per-project state): `$CLAUDE_CONFIG_DIR/.claude.json` when that is set, else
/// `~/.claude.json`.
pub fn global_config(
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Option<PathBuf> {
    match config_dir_override(env) {
        Some(d) => Some(claude_json_in(&d)),
        None => home.map(claude_json_in),
    }
}

/// [`global_config`] of this machine: the user's home and the process environment.
pub fn global_config_here() -> Option<PathBuf> {
    let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    global_config(home.as_deref(), &|k| std::env::var_os(k))
}

/// `.claude.json` in a home (or in a `CLAUDE_CONFIG_DIR`).
pub fn claude_json_in(dir: &Path) -> PathBuf {
    dir.join(".claude.json")
}

/// The debug-log folder of a home.
pub fn debug_dir_of_home(home: &Path) -> PathBuf {
    home.join(".claude").join(DEBUG_DIR_NAME)
}

/// The debug-log folder of a configuration folder.
pub fn debug_dir_in(config_dir: &Path) -> PathBuf {
    config_dir.join(DEBUG_DIR_NAME)
}

/// A project's `.mcp.json` (project-scope servers).
pub fn project_mcp_json(project: &Path) -> PathBuf {
    project.join(".mcp.json")
}

/// A project's shared settings file, `.claude/settings.json`.
pub fn project_settings(project: &Path) -> PathBuf {
    project.join(".claude").join("settings.json")
}

/// A project's own uncommitted settings file, `.claude/settings.local.json`.
pub fn project_local_settings(project: &Path) -> PathBuf {
    project.join(".claude").join("settings.local.json")
}

/// The folder an administrator's managed settings live in, per OS.
pub fn managed_dir(os: Os) -> PathBuf {
    match os {
        Os::MacOs => PathBuf::from("/Library/Application Support/ClaudeCode"),
        Os::Windows => PathBuf::from(r"C:\Program Files\ClaudeCode"),
        Os::Linux => PathBuf::from("/etc/claude-code"),
    }
}

/// The managed settings file in a managed folder.
pub fn managed_settings(dir: &Path) -> PathBuf {
    dir.join("managed-settings.json")
}

/// The managed drop-in folder, read after [`managed_settings`] in name order.
pub fn managed_drop_ins(dir: &Path) -> PathBuf {
    dir.join("managed-settings.d")
}

/// The managed MCP servers file in a managed folder.
pub fn managed_mcp_json(dir: &Path) -> PathBuf {
    dir.join("managed-mcp.json")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::env_of;

    #[test]
    fn an_empty_claude_config_dir_is_unset_for_every_path() {
        let home = Path::new("/h");
        let empty = env_of(&[("CLAUDE_CONFIG_DIR", "")]);
        assert_eq!(config_dir_override(&empty), None);
        assert_eq!(
            config_dir(Some(home), &empty),
            Some(PathBuf::from("/h/.claude"))
        );
        assert_eq!(
            global_config(Some(home), &empty),
            Some(PathBuf::from("/h/.claude.json"))
        );
        assert_eq!(
            user_settings_file(Some(home), &empty),
            Some(PathBuf::from("/h/.claude/settings.json"))
        );
        let set = env_of(&[("CLAUDE_CONFIG_DIR", "/cfg")]);
        assert_eq!(config_dir(Some(home), &set), Some(PathBuf::from("/cfg")));
        assert_eq!(
            global_config(Some(home), &set),
            Some(PathBuf::from("/cfg/.claude.json"))
        );
        assert_eq!(global_config(None, &env_of(&[])), None);
    }

    #[test]
    fn default_roots_per_os() {
        let home = Path::new("/h");
        assert_eq!(
            default_cache_root(Os::MacOs, Some(home), &env_of(&[])),
            Some(PathBuf::from("/h/Library/Caches/claude-cli-nodejs"))
        );
        assert_eq!(
            default_cache_root(Os::Linux, Some(home), &env_of(&[])),
            Some(PathBuf::from("/h/.cache/claude-cli-nodejs"))
        );
        assert_eq!(
            default_cache_root(Os::Linux, Some(home), &env_of(&[("XDG_CACHE_HOME", "/x")])),
            Some(PathBuf::from("/x/claude-cli-nodejs"))
        );
        assert_eq!(
            default_cache_root(Os::Windows, Some(home), &env_of(&[("LOCALAPPDATA", "/L")])),
            Some(PathBuf::from("/L/claude-cli-nodejs/Cache"))
        );
        assert_eq!(
            default_cache_root(Os::Windows, Some(home), &env_of(&[("LOCALAPPDATA", "")])),
            Some(PathBuf::from("/h/AppData/Local/claude-cli-nodejs/Cache"))
        );
    }

    #[test]
    fn homes_are_recognised_from_each_layout() {
        for layout in HOME_LAYOUTS {
            let root = layout
                .iter()
                .fold(PathBuf::from("/copy/home"), |p, c| p.join(c));
            assert_eq!(home_of_cache_root(&root), Some(PathBuf::from("/copy/home")));
        }
        assert_eq!(home_of_cache_root(Path::new("/x/claude-cli-nodejs")), None);
    }
}
