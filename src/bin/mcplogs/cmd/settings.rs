//! `mcplogs settings`: every settings layer, the effective MCP_PROTOCOL_NEGOTIATION, and
//! every MCP server configured for the project with the state Claude Code gives it there.

use std::path::{Path, PathBuf};

use mcplogs::claude_code::config::{self, ServerState};
use mcplogs::render::settings::{integrations_text, servers_text, settings_json, settings_text};
use mcplogs::scan::configured::{Configured, entries};
use mcplogs::settings::{EffectiveNegotiation, Sources, effective_negotiation};

use crate::cli::SettingsArgs;
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;

pub fn run(args: SettingsArgs) -> Result<ExitCode, Error> {
    let report = read_layers(args.project.as_deref(), args.managed_dir.clone())?;
    let sources = Sources::for_this_machine_in(&report.project_dir, args.managed_dir.as_deref());
    // Every value the configuration marks as secret (this machine's files, as `scan` run
    // here reads them: this project's and every listed one's), hidden wherever the
    // screen or document shows it.
    let configured = {
        let mut b = mcplogs::redact::RedactorBuilder::new();
        b.learn_configured_secrets(&mcplogs::scan::secrets::collect(
            &mcplogs::scan::secrets::Places {
                homes: Vec::new(),
                projects: vec![report.project_dir.clone()],
                managed_dir: Some(sources.managed_dir.clone()),
                listed: true,
            },
        ));
        b.build()
    };
    // each name as every command prints it: a name holding a secret redacted, with its
    // tag (`[REDACTED:kind]#xxxx`), which tells it from a name printing alike and which
    // `fix NAME` and `probe NAME` take
    let servers: Vec<(String, Configured)> = configured_servers(&report.project_dir, &sources)
        .into_iter()
        .map(|(n, c)| (mcplogs::scan::select::shown_by(&configured, &n), c))
        .collect();
    let text = if args.output.json {
        let mut doc = serde_json::to_value(settings_json(&report, &servers))?;
        mcplogs::redact::output::json_value(&configured, &mut doc);
        output::json_redacted(&doc, true)?
    } else {
        let integrations = mcplogs::settings::setup::integrations(&sources);
        configured.redact(&mcplogs::redact::output::text(&format!(
            "{}\n{}{}",
            settings_text(&report, output::width(), output::home()),
            servers_text(
                &report.project_dir,
                &servers,
                output::width(),
                output::home()
            ),
            integrations_text(&integrations)
        )))
    };
    if args.output.json {
        output::stdout(&text)?;
    } else {
        output::screen(&text)?;
    }
    // A configuration Claude Code skips is a problem, like a settings file it ignores.
    let config_error = servers
        .iter()
        .any(|(_, c)| matches!(c.state, ServerState::Skipped(_)));
    Ok(ExitCode::from_problems(
        report.problem_layers().next().is_some() || config_error,
    ))
}

/// Every server configured for `project`, with its state: the same resolution as `scan`
/// ([`config::resolve_states`] over the same settings layers and managed folder).
fn configured_servers(project: &Path, sources: &Sources) -> Vec<(String, Configured)> {
    let global = mcplogs::claude_code::paths::global_config_here();
    let env = |k: &str| std::env::var(k).ok();
    let resolved =
        config::resolve_states(global.as_deref(), project, &env, &sources.state_sources());
    entries(&resolved)
}

/// The layers that count for `project` (default: the current directory).
pub(crate) fn read_layers(
    project: Option<&Path>,
    managed_dir: Option<PathBuf>,
) -> Result<EffectiveNegotiation, Error> {
    read_layers_in(project, managed_dir, &[])
}

/// [`read_layers`] for a scan of `homes` (`--home`): the first home's user file, and no
/// environment layer (that machine's environment is not known here); this machine's
/// layers when `homes` is empty.
pub(crate) fn read_layers_in(
    project: Option<&Path>,
    managed_dir: Option<PathBuf>,
    homes: &[PathBuf],
) -> Result<EffectiveNegotiation, Error> {
    let project = match project {
        Some(p) if !p.is_dir() => return Err(Error::NotAFolder(p.to_path_buf())),
        Some(p) => std::path::absolute(p),
        None => std::env::current_dir(),
    }
    .map_err(Error::ProjectFolder)?;
    let mut sources = Sources::for_scan(homes, &project);
    if let Some(d) = managed_dir {
        sources.managed_dir = d;
    }
    Ok(effective_negotiation(&sources))
}
