//! `mcplogs settings`: every settings layer and the effective MCP_PROTOCOL_NEGOTIATION.

use std::path::{Path, PathBuf};

use mcplogs::render::settings::{integrations_text, settings_json, settings_text};
use mcplogs::settings::{EffectiveNegotiation, Sources, effective_negotiation};

use crate::cli::SettingsArgs;
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;

pub fn run(args: SettingsArgs) -> Result<ExitCode, Error> {
    let report = read_layers(args.project.as_deref(), args.managed_dir.clone())?;
    let text = if args.output.json {
        output::json_redacted(&settings_json(&report), true)?
    } else {
        let mut sources = Sources::for_this_machine(&report.project_dir);
        if let Some(d) = args.managed_dir {
            sources.managed_dir = d;
        }
        let integrations = mcplogs::settings::setup::integrations(&sources);
        mcplogs::redact::output::text(&format!(
            "{}{}",
            settings_text(&report, output::width(), output::home()),
            integrations_text(&integrations)
        ))
    };
    if args.output.json {
        output::stdout(&text)?;
    } else {
        output::screen(&text)?;
    }
    Ok(ExitCode::from_problems(
        report.problem_layers().next().is_some(),
    ))
}

/// The layers that count for `project` (default: the current directory).
pub(crate) fn read_layers(
    project: Option<&Path>,
    managed_dir: Option<PathBuf>,
) -> Result<EffectiveNegotiation, Error> {
    let project = match project {
        Some(p) if !p.is_dir() => return Err(Error::NotAFolder(p.to_path_buf())),
        Some(p) => std::path::absolute(p),
        None => std::env::current_dir(),
    }
    .map_err(Error::ProjectFolder)?;
    let mut sources = Sources::for_this_machine(&project);
    if let Some(d) = managed_dir {
        sources.managed_dir = d;
    }
    Ok(effective_negotiation(&sources))
}
