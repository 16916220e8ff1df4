//! Dynamic shell completion (clap_complete's engine): `--server NAME` and `probe NAME`
//! complete to the servers this machine knows, configured (`~/.claude.json` and the
//! current project's `.mcp.json`) or logged (`mcp-logs-<server>` folders in the default
//! cache). The shell calls `COMPLETE=<shell> mcplogs -- <words>`; `mcplogs completions
//! SHELL` prints the script that registers it.

use std::collections::BTreeSet;

use clap_complete::engine::CompletionCandidate;
use mcplogs::claude_code::config;

/// The environment variable the shell's script sets to ask for completions.
pub const VAR: &str = "COMPLETE";

/// Server names to offer, sorted, each once. Unreadable files give fewer names, never
/// an error: completion must not print anything but candidates.
pub fn server_names() -> Vec<CompletionCandidate> {
    let mut names = BTreeSet::new();
    let env = |k: &str| std::env::var(k).ok();
    if let Ok(cwd) = std::env::current_dir() {
        let global = mcplogs::claude_code::paths::global_config_here();
        for s in config::resolve(global.as_deref(), &cwd, &env).servers {
            names.insert(s.name);
        }
    }
    if let Ok(found) =
        mcplogs::logs::discovery::discover(&mcplogs::logs::discovery::Request::default())
    {
        for d in found.server_dirs {
            names.insert(d.folder);
        }
    }
    names
        .into_iter()
        .filter(|n| !n.chars().any(char::is_control))
        .map(CompletionCandidate::new)
        .collect()
}

/// The registration script for `shell` (what `mcplogs completions SHELL` prints).
pub fn registration(shell: &str) -> std::io::Result<Vec<u8>> {
    let shells = clap_complete::env::Shells::builtins();
    let completer = shells.completer(shell).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            format!("no dynamic completion for {shell}"),
        )
    })?;
    let mut out = Vec::new();
    completer.write_registration(VAR, "mcplogs", "mcplogs", "mcplogs", &mut out)?;
    Ok(out)
}
