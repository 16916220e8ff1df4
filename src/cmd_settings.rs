//! `mcplogs settings` and `mcplogs fix [--undo]`: the binary side. The library plans and
//! applies; this file shows the diff, asks, and picks the exit code.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use colored::Colorize;

use crate::cli::{FixArgs, SettingsArgs};
use crate::exit_codes::ExitCode;
use crate::{emit, error};
use mcplogs::discovery::Request;
use mcplogs::scan::{ScanOptions, scan};
use mcplogs::settings::fix::{self, FixOptions, FixPlan};
use mcplogs::settings::layers::LayerKind;
use mcplogs::settings::render::{layer_name, settings_json, settings_text};
use mcplogs::settings::target::{self, FixTarget};
use mcplogs::settings::undo::{self, UndoHow, UndoPlan};
use mcplogs::settings::{EffectiveNegotiation, NEGOTIATION_KEY, Sources, effective_negotiation};

pub fn run_settings(args: SettingsArgs) -> ExitCode {
    let report = match read_layers(args.project.as_deref(), args.managed_dir) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let text = if args.json {
        let mut s = serde_json::to_string_pretty(&settings_json(&report)).expect("json");
        s.push('\n');
        s
    } else {
        settings_text(&report)
    };
    if let Err(e) = emit(&text) {
        return error(format!("cannot write output: {e}"));
    }
    ExitCode::from_problems(report.problem_layers().next().is_some())
}

fn read_layers(
    project: Option<&Path>,
    managed_dir: Option<PathBuf>,
) -> Result<EffectiveNegotiation, ExitCode> {
    let project = match project {
        Some(p) if !p.is_dir() => {
            return Err(error(format!("{}: not a folder", p.display())));
        }
        Some(p) => std::path::absolute(p),
        None => std::env::current_dir(),
    }
    .map_err(|e| error(format!("cannot find the project folder: {e}")))?;
    let mut sources = Sources::for_this_machine(&project);
    if let Some(d) = managed_dir {
        sources.managed_dir = d;
    }
    Ok(effective_negotiation(&sources))
}

/// The file to fix and why: `--settings` when given, else the layer that wins for the
/// project with the least intrusion (`settings::target`). Legacy already in effect, or
/// a managed file deciding, end the command here.
fn settings_path(args: &FixArgs) -> Result<(PathBuf, Option<String>), ExitCode> {
    if let Some(p) = &args.settings {
        // The undo record must name the file from any folder.
        return std::path::absolute(p)
            .map(|p| (p, None))
            .map_err(|e| error(format!("{}: {e}", p.display())));
    }
    let layers = read_layers(args.project.as_deref(), args.managed_dir.clone())?;
    let target = target::choose(&layers);
    match &target {
        FixTarget::Write { path, .. } => Ok((path.clone(), Some(target.reason()))),
        FixTarget::InEffect { .. } if args.undo => {
            // Undo needs the file mcplogs wrote, which holds legacy now.
            undo_target(&layers).ok_or_else(|| error("no mcplogs fix to undo"))
        }
        FixTarget::InEffect { .. } => {
            eprintln!(
                "{}: nothing to write. If a server still fails, restart Claude Code or run /mcp, then check with `{}`.",
                target.reason(),
                mcplogs::advice::VERIFY_COMMAND
            );
            Err(ExitCode::Clean)
        }
        FixTarget::Managed { .. } if args.undo => {
            undo_target(&layers).ok_or_else(|| error("no mcplogs fix to undo"))
        }
        FixTarget::Managed { .. } | FixTarget::NoUserFile => {
            Err(error(format!("not writing anything: {}", target.reason())))
        }
    }
}

/// For `fix --undo` without `--settings`: the project's local file if mcplogs fixed it,
/// else the user file.
fn undo_target(layers: &EffectiveNegotiation) -> Option<(PathBuf, Option<String>)> {
    let files: Vec<&PathBuf> = [LayerKind::Local, LayerKind::User]
        .iter()
        .filter_map(|k| layers.layers.iter().find(|l| l.kind == *k))
        .filter_map(|l| l.path.as_ref())
        .collect();
    files
        .iter()
        .find(|p| undo::state_path(p).exists())
        .or(files.last())
        .map(|p| ((*p).clone(), None))
}

pub fn run_fix(args: FixArgs) -> ExitCode {
    let (path, why) = match settings_path(&args) {
        Ok(p) => p,
        Err(code) => return code,
    };
    if args.undo {
        return run_undo(&args, &path);
    }
    let plan = match fix::plan_fix(
        &path,
        FixOptions {
            rewrite_strict: args.rewrite_strict,
        },
    ) {
        Ok(p) => p,
        Err(e) => return error(e),
    };
    if args.settings.is_some()
        && let Ok(layers) = read_layers(args.project.as_deref(), args.managed_dir.clone())
    {
        for l in layers.overriding(&path) {
            warn(format!(
                "{} sets {NEGOTIATION_KEY} to \"{}\" and takes precedence over {}: the fix there has no effect for {} until that changes",
                layer_name(l),
                l.negotiation.as_ref().map(|v| v.as_str()).unwrap_or(""),
                path.display(),
                layers.project_dir.display(),
            ));
        }
    }
    let pending = match plan {
        FixPlan::AlreadyLegacy { path } => {
            eprintln!(
                "{} already sets env.{NEGOTIATION_KEY} to \"legacy\": nothing to write.",
                path.display()
            );
            return ExitCode::Clean;
        }
        FixPlan::Pending(p) => p,
    };
    if !args.force {
        match servers_needing_fix(&args.home) {
            Err(code) => return code,
            Ok(names) if names.is_empty() => {
                let msg = "no scanned server needs the legacy fix (MCP_PROTOCOL_NEGOTIATION=legacy helps only servers whose tools/list failed under the modern protocol era)";
                if !args.dry_run {
                    return error(format!("{msg}; pass --force to apply it anyway"));
                }
                warn(msg);
            }
            Ok(names) => eprintln!("The legacy fix helps: {}", names.join(", ")),
        }
    }
    if let Some(why) = &why {
        eprintln!("Writing {}: {why}.", path.display());
    }
    print_diff(&pending.diff);
    if let Some(code) = stop_before_writing(args.dry_run, args.yes) {
        return code;
    }
    match fix::apply_fix(&pending) {
        Ok(applied) => {
            let undo_cmd = match &args.settings {
                Some(p) => format!("mcplogs fix --undo --settings {}", p.display()),
                None => format!(
                    "mcplogs fix --undo --settings {}",
                    mcplogs::render::shell_word(&path.display().to_string())
                ),
            };
            eprintln!(
                "{} {}{}. Undo with `{undo_cmd}`.",
                "Wrote".green().bold(),
                path.display(),
                applied
                    .backup
                    .as_ref()
                    .map(|b| format!(" (backup: {})", b.display()))
                    .unwrap_or_default(),
            );
            eprintln!(
                "Claude Code picks up env changes for new connections: restart Claude Code or run /mcp to reconnect, then check with `{}`.",
                mcplogs::advice::VERIFY_COMMAND
            );
            ExitCode::Clean
        }
        Err(e) => error(e),
    }
}

fn run_undo(args: &FixArgs, path: &Path) -> ExitCode {
    let pending = match undo::plan_undo(path, args.force) {
        Ok(UndoPlan::Pending(p)) => p,
        Ok(UndoPlan::NothingToUndo) => {
            eprintln!(
                "No mcplogs fix of {} to undo (no {}).",
                path.display(),
                undo::state_path(path).display()
            );
            return ExitCode::Clean;
        }
        Ok(UndoPlan::ChangedByUser { reason }) => return error(reason),
        Err(e) => return error(e),
    };
    if pending.diff.is_empty() {
        eprintln!(
            "{} is already as it was before mcplogs' fix.",
            path.display()
        );
    } else {
        eprintln!(
            "{}",
            match pending.how {
                UndoHow::RestoreBackup => "Unchanged since mcplogs' fix: restoring the backup.",
                UndoHow::RemoveCreatedFile => {
                    "Unchanged since mcplogs' fix, which created it: removing the file."
                }
                UndoHow::RestoreKey => {
                    "Changed since mcplogs' fix: putting back only the key mcplogs set."
                }
            }
        );
        print_diff(&pending.diff);
        if let Some(code) = stop_before_writing(args.dry_run, args.yes) {
            return code;
        }
    }
    match undo::apply_undo(&pending) {
        Ok(()) => {
            let done = match pending.how {
                UndoHow::RemoveCreatedFile => "Removed",
                _ => "Restored",
            };
            eprintln!("{} {}.", done.green().bold(), path.display());
            ExitCode::Clean
        }
        Err(e) => error(e),
    }
}

/// After the diff: `--dry-run` stops here, and so does anything but a yes at the prompt.
/// `None` means go ahead and write.
fn stop_before_writing(dry_run: bool, yes: bool) -> Option<ExitCode> {
    if dry_run {
        eprintln!("Dry run: nothing written.");
        return Some(ExitCode::Clean);
    }
    match confirm(yes) {
        Ok(true) => None,
        Ok(false) => {
            eprintln!("Not applied: nothing written.");
            Some(ExitCode::Clean)
        }
        Err(code) => Some(code),
    }
}

fn warn(message: impl std::fmt::Display) {
    eprintln!("mcplogs: {} {message}", "warning:".yellow().bold());
}

/// Names of the scanned servers the fix helps. `homes` empty: this machine's caches.
fn servers_needing_fix(homes: &[PathBuf]) -> Result<Vec<String>, ExitCode> {
    let opts = ScanOptions {
        request: Request {
            homes: homes.to_vec(),
            paths: Vec::new(),
        },
        ..ScanOptions::default()
    };
    let report = scan(&opts).map_err(error)?;
    Ok(fix::servers_needing_fix(&report)
        .into_iter()
        .map(|s| format!("{} ({})", s.name, s.project.as_deref().unwrap_or("-")))
        .collect())
}

fn print_diff(diff: &str) {
    let mut out = String::new();
    for line in diff.lines() {
        let painted = if line.starts_with("+++") || line.starts_with("---") {
            line.bold()
        } else if line.starts_with("@@") {
            line.cyan()
        } else if line.starts_with('+') {
            line.green()
        } else if line.starts_with('-') {
            line.red()
        } else {
            line.normal()
        };
        out.push_str(&format!("{painted}\n"));
    }
    let _ = emit(&out);
}

/// `--yes`, or a terminal answering y. No terminal and no `--yes`: refuse (exit 2),
/// since nobody has seen the diff.
fn confirm(yes: bool) -> Result<bool, ExitCode> {
    if yes {
        return Ok(true);
    }
    if !io::stdin().is_terminal() {
        return Err(error(
            "refusing to write without confirmation: standard input is not a terminal (read the diff, then run again with --yes)",
        ));
    }
    let mut err = io::stderr().lock();
    let _ = write!(err, "Apply? [y/N] ");
    let _ = err.flush();
    drop(err);
    let mut answer = String::new();
    match io::stdin().lock().read_line(&mut answer) {
        // End of input (Ctrl-D) is a no.
        Ok(0) => {
            eprintln!();
            Ok(false)
        }
        Ok(_) => Ok(matches!(
            answer.trim().to_ascii_lowercase().as_str(),
            "y" | "yes"
        )),
        Err(e) => Err(error(format!("cannot read the answer: {e}"))),
    }
}
