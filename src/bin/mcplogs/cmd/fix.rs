//! `mcplogs fix [--undo]`: the library plans and applies; this module shows the diff,
//! asks, and picks the exit code.

use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};

use colored::Colorize;

use crate::cli::FixArgs;
use crate::cmd::settings::read_layers_in;
use crate::error::{Error, FIX_NOT_NEEDED};
use crate::exit_codes::ExitCode;
use crate::output;
use mcplogs::logs::discovery::Request;
use mcplogs::render::settings::layer_name;
use mcplogs::scan::{ScanOptions, scan};
use mcplogs::settings::EffectiveNegotiation;
use mcplogs::settings::NEGOTIATION_KEY;
use mcplogs::settings::fix::{self, FixOptions, FixPlan};
use mcplogs::settings::layers::LayerKind;
use mcplogs::settings::target::{self, FixTarget};
use mcplogs::settings::undo::{self, UndoHow, UndoPlan};

/// The file to fix and why: `--settings` when given, else the layer that wins for the
/// project with the least intrusion (`settings::target`). `None`: legacy is in effect
/// already, nothing to write (said on stderr).
fn settings_path(args: &FixArgs) -> Result<Option<(PathBuf, Option<String>)>, Error> {
    if let Some(p) = &args.settings {
        // The undo record must name the file from any folder.
        return std::path::absolute(p)
            .map(|p| Some((p, None)))
            .map_err(|source| Error::SettingsPath {
                path: p.clone(),
                source,
            });
    }
    let layers = read_layers_in(
        args.project.as_deref(),
        args.managed_dir.clone(),
        &args.home,
    )?;
    let target = target::choose(&layers);
    match &target {
        FixTarget::Write { path, .. } if !args.undo => {
            Ok(Some((path.clone(), Some(target.reason()))))
        }
        // Undo needs the file mcplogs wrote, whatever wins now.
        _ if args.undo => Ok(undo_target(&layers)),
        FixTarget::InEffect { .. } => {
            output::note(format_args!(
                "{}: nothing to write. If a server still fails, restart Claude Code or run /mcp, then check with `{}`.",
                target.reason(),
                mcplogs::advice::verify_command(&args.home)
            ));
            Ok(None)
        }
        _ => Err(Error::FixBlocked(Box::new(target))),
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

pub fn run(args: FixArgs) -> Result<ExitCode, Error> {
    let Some((path, why)) = settings_path(&args)? else {
        return Ok(ExitCode::Clean);
    };
    if args.undo {
        return run_undo(&args, &path);
    }
    let plan = fix::plan_fix(
        &path,
        FixOptions {
            rewrite_strict: args.rewrite_strict,
        },
    )?;
    if args.settings.is_some()
        && let Ok(layers) = read_layers_in(
            args.project.as_deref(),
            args.managed_dir.clone(),
            &args.home,
        )
    {
        for l in layers.overriding(&path) {
            output::warning(format!(
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
            output::note(format_args!(
                "{} already sets env.{NEGOTIATION_KEY} to \"legacy\": nothing to write.",
                path.display()
            ));
            return Ok(ExitCode::Clean);
        }
        FixPlan::Pending(p) => p,
    };
    if !args.force {
        let names = servers_needing_fix(&args.home, args.managed_dir.as_deref())?;
        if names.is_empty() {
            if !args.dry_run {
                return Err(Error::FixNotNeeded);
            }
            output::warning(FIX_NOT_NEEDED);
        } else {
            output::note(format_args!("The legacy fix helps: {}", names.join(", ")));
        }
    }
    if let Some(why) = &why {
        output::note(format_args!("Writing {}: {why}.", path.display()));
    }
    print_diff(&pending.diff, args.dry_run)?;
    if !go_ahead(args.dry_run, args.yes)? {
        return Ok(ExitCode::Clean);
    }
    let applied = fix::apply_fix(&pending)?;
    // `path` is absolute (the file written), so the command runs from any folder.
    let undo_cmd = format!(
        "mcplogs fix --undo --settings {}",
        mcplogs::text::shell_word(&path.display().to_string())
    );
    output::note(format_args!(
        "{} {}{}. Undo with `{undo_cmd}`.",
        "Wrote".green().bold(),
        path.display(),
        applied
            .backup
            .as_ref()
            .map(|b| format!(" (backup: {})", b.display()))
            .unwrap_or_default(),
    ));
    output::note(format_args!(
        "Claude Code picks up env changes for new connections: restart Claude Code or run /mcp to reconnect, then check with `{}`.",
        mcplogs::advice::verify_command(&args.home)
    ));
    Ok(ExitCode::Clean)
}

fn run_undo(args: &FixArgs, path: &Path) -> Result<ExitCode, Error> {
    let pending = match undo::plan_undo(path, args.force)? {
        UndoPlan::Pending(p) => p,
        UndoPlan::NothingToUndo => {
            output::note(format_args!(
                "No mcplogs fix of {} to undo (no {}).",
                path.display(),
                undo::state_path(path).display()
            ));
            return Ok(ExitCode::Clean);
        }
        UndoPlan::FileRemoved { path } => return Err(Error::UndoFileRemoved { path }),
        // Only `setup --undo` plans this.
        UndoPlan::NotOurs { .. } => return Ok(ExitCode::Clean),
        UndoPlan::KeyChanged {
            path,
            now,
            previous,
        } => {
            return Err(Error::UndoKeyChanged {
                path,
                now,
                previous,
            });
        }
    };
    finish_undo(
        &pending,
        path,
        "fix",
        "putting back only the key mcplogs set",
        args.dry_run,
        args.yes,
    )
}

/// The end of every undo (`fix --undo`, `setup --undo`): what will happen, the diff, the
/// confirmation, the write, and what was done. `what` names the change undone (`fix`,
/// `setup`); `restore_key` says what a key-only undo does.
pub(crate) fn finish_undo(
    pending: &undo::PendingUndo,
    path: &Path,
    what: &str,
    restore_key: &str,
    dry_run: bool,
    yes: bool,
) -> Result<ExitCode, Error> {
    if pending.diff.is_empty() {
        output::note(format_args!(
            "{} is already as it was before mcplogs' {what}.",
            path.display()
        ));
    } else {
        output::note(match pending.how {
            UndoHow::RestoreBackup => {
                format!("Unchanged since mcplogs' {what}: restoring the backup.")
            }
            UndoHow::RemoveCreatedFile => {
                format!("Unchanged since mcplogs' {what}, which created it: removing the file.")
            }
            UndoHow::RestoreKey => format!("Changed since mcplogs' {what}: {restore_key}."),
        });
        print_diff(&pending.diff, dry_run)?;
        if !go_ahead(dry_run, yes)? {
            return Ok(ExitCode::Clean);
        }
    }
    undo::apply_undo(pending)?;
    let done = match pending.how {
        UndoHow::RemoveCreatedFile => "Removed",
        _ => "Restored",
    };
    output::note(format_args!("{} {}.", done.green().bold(), path.display()));
    Ok(ExitCode::Clean)
}

/// After the diff: `--dry-run` stops here, and so does anything but a yes at the prompt.
/// `true` means go ahead and write.
pub(crate) fn go_ahead(dry_run: bool, yes: bool) -> Result<bool, Error> {
    if dry_run {
        output::note("Dry run: nothing written.");
        return Ok(false);
    }
    let yes = confirm(yes)?;
    if !yes {
        output::note("Not applied: nothing written.");
    }
    Ok(yes)
}

/// Names of the scanned servers the fix helps. `homes` empty: this machine's caches.
fn servers_needing_fix(
    homes: &[PathBuf],
    managed_dir: Option<&std::path::Path>,
) -> Result<Vec<String>, Error> {
    let opts = ScanOptions {
        request: Request {
            homes: homes.to_vec(),
            paths: Vec::new(),
        },
        stderr_tails: mcplogs::scan::StderrTails::Skip,
        ..ScanOptions::default()
    };
    let mut report = scan(&opts)?;
    // A server Claude Code no longer starts (disabled, denied, no longer configured) is
    // never an argument for the fix.
    let cwd = std::env::current_dir().unwrap_or_default();
    super::scan::join_configuration(&mut report, &opts, &cwd, managed_dir);
    Ok(report
        .servers
        .iter()
        .filter(|s| s.counts_now() && s.diagnosis.legacy_fix_applies())
        .map(|s| format!("{} ({})", s.name, s.project.as_deref().unwrap_or("-")))
        .collect())
}

/// The last diff [`print_diff`] showed, uncoloured and unfitted: [`confirm`] shows it again
/// on stderr when stdout is not a terminal (`mcplogs fix > fix.log`), so the question
/// "Apply?" is never asked without the diff beside it.
static SHOWN_DIFF: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

/// The diff, secrets masked and control characters escaped, coloured on a terminal.
pub(crate) fn print_diff(diff: &str, dry_run: bool) -> Result<(), Error> {
    let diff = output::tilde(&mcplogs::redact::diff::for_display(diff));
    if let Ok(mut shown) = SHOWN_DIFF.lock() {
        shown.clone_from(&diff);
    }
    let width = output::width();
    let mut out = String::new();
    for line in diff
        .lines()
        .flat_map(|l| mcplogs::text::layout::diff_line(l, width))
    {
        let line = line.as_str();
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
    // As before the redesign, a diff that cannot be shown does not stop the command:
    // the confirmation still stands between it and any write. A dry run shows nothing
    // but the diff, so there a failed write is the command's failure (exit 2), not a
    // silent success.
    match output::screen(&out) {
        Err(e) if dry_run => Err(e),
        _ => Ok(()),
    }
}

/// `--yes`, or a terminal answering y. No terminal and no `--yes`: refuse (exit 2),
/// since nobody has seen the diff.
fn confirm(yes: bool) -> Result<bool, Error> {
    if yes {
        return Ok(true);
    }
    if !io::stdin().is_terminal() {
        return Err(Error::NotConfirmed);
    }
    // The question is asked on stderr; the diff went to stdout. Redirected, the user
    // would be asked about a change they cannot see: show it here too.
    if !io::stdout().is_terminal() {
        let diff = SHOWN_DIFF.lock().map(|d| d.clone()).unwrap_or_default();
        if !diff.is_empty() {
            output::note("The change (stdout is not a terminal, so it is shown here too):");
            output::stderr_block(&format!("{}\n", diff.trim_end_matches('\n')));
        }
    }
    output::ask("Apply? [y/N] ").map_err(Error::ReadAnswer)
}
