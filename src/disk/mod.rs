//! The disk Claude Code's MCP logs take: where it went ([`du`]) and giving it back
//! ([`prune`]). Claude Code never rotates these logs.

pub mod du;
pub mod prune;

/// Every value the configuration marks as secret that a command on the disk's logs must
/// hide, as `scan` hides them (a server named `svc-VALUE`, `VALUE` another entry's `env`
/// value, is `svc-[REDACTED:config]`): the configuration of the `homes` (none: this
/// machine's), of the working folder, of the `projects` that are folders here, and of
/// every project the homes list.
pub(crate) fn configured_secrets<'a>(
    projects: impl IntoIterator<Item = &'a str>,
    homes: &[std::path::PathBuf],
) -> crate::redact::configured::ConfiguredSecrets {
    let projects: Vec<std::path::PathBuf> = std::env::current_dir()
        .into_iter()
        .chain(
            projects
                .into_iter()
                .map(std::path::PathBuf::from)
                .filter(|p| p.is_absolute() && p.is_dir()),
        )
        .collect();
    crate::scan::secrets::collect(&crate::scan::secrets::Places {
        homes: homes.to_vec(),
        projects,
        managed_dir: None,
        listed: true,
    })
}
