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
use mcplogs::settings::layers::user_settings_file;
use mcplogs::settings::render::{layer_name, settings_json, settings_text};
use mcplogs::settings::undo::{self, UndoHow, UndoPlan};
use mcplogs::settings::{EffectiveNegotiation, NEGOTIATION_KEY, Sources, effective_negotiation};

pub fn run_settings(args: SettingsArgs) -> ExitCode {
    let report = match read_layers(args.project.as_deref(), args.managed_dir) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let text = if args.json {
        let mut doc = settings_json(&report);
        mcplogs::redact::output::json_secrets(&mut doc);
        crate::json_text(&doc)
    } else {
        mcplogs::redact::output::text(&settings_text(&report))
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

fn settings_path(args: &FixArgs) -> Result<PathBuf, ExitCode> {
    if let Some(p) = &args.settings {
        // The undo record must name the file from any folder.
        return std::path::absolute(p).map_err(|e| error(format!("{}: {e}", p.display())));
    }
    let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    user_settings_file(home.as_deref(), &|k| std::env::var_os(k)).ok_or_else(|| {
        error("cannot find the home folder: name the settings file with --settings PATH")
    })
}

pub fn run_fix(args: FixArgs) -> ExitCode {
    let path = match settings_path(&args) {
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
    if let Ok(layers) = read_layers(args.project.as_deref(), args.managed_dir.clone()) {
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
            say!(
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
            Ok(names) => say!("The legacy fix helps: {}", names.join(", ")),
        }
    }
    print_diff(&pending.diff);
    if let Some(code) = stop_before_writing(args.dry_run, args.yes) {
        return code;
    }
    match fix::apply_fix(&pending) {
        Ok(applied) => {
            let undo_cmd = match &args.settings {
                Some(p) => format!("mcplogs fix --undo --settings {}", p.display()),
                None => "mcplogs fix --undo".to_string(),
            };
            say!(
                "{} {}{}. Undo with `{undo_cmd}`.",
                "Wrote".green().bold(),
                path.display(),
                applied
                    .backup
                    .as_ref()
                    .map(|b| format!(" (backup: {})", b.display()))
                    .unwrap_or_default(),
            );
            say!(
                "Claude Code picks up env changes for new connections: restart the session or run /mcp to reconnect."
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
            say!(
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
        say!(
            "{} is already as it was before mcplogs' fix.",
            path.display()
        );
    } else {
        say!(
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
            say!("{} {}.", done.green().bold(), path.display());
            ExitCode::Clean
        }
        Err(e) => error(e),
    }
}

/// After the diff: `--dry-run` stops here, and so does anything but a yes at the prompt.
/// `None` means go ahead and write.
fn stop_before_writing(dry_run: bool, yes: bool) -> Option<ExitCode> {
    if dry_run {
        say!("Dry run: nothing written.");
        return Some(ExitCode::Clean);
    }
    match confirm(yes) {
        Ok(true) => None,
        Ok(false) => {
            say!("Not applied: nothing written.");
            Some(ExitCode::Clean)
        }
        Err(code) => Some(code),
    }
}

fn warn(message: impl std::fmt::Display) {
    let message = mcplogs::redact::output::text(&message.to_string());
    say!(
        "mcplogs: {} {}",
        "warning:".yellow().bold(),
        mcplogs::sanitize::text(&message)
    );
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
            say!();
            Ok(false)
        }
        Ok(_) => Ok(matches!(
            answer.trim().to_ascii_lowercase().as_str(),
            "y" | "yes"
        )),
        Err(e) => Err(error(format!("cannot read the answer: {e}"))),
    }
}
