//! `mcplogs setup statusline|hook [--undo]`: the library plans and applies through the
//! settings writer `fix` uses; this module shows the diff, asks, and says what to do.

use std::path::PathBuf;

use crate::cli::{SetupArgs, SetupFlags, SetupWhat};
use crate::cmd::fix::{go_ahead, print_diff};
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;
use mcplogs::settings::Sources;
use mcplogs::settings::setup::{self, Install, SetupOptions, SetupPlan};
use mcplogs::settings::undo::{self, UndoPlan};

/// The command lines installed, after the binary's quoted absolute path. `--color
/// always`: Claude Code's status line is not a terminal to mcplogs (a pipe), yet shows
/// colours; an explicit `--color` beats NO_COLOR (edit the installed command to
/// `--color never` for a plain line).
pub const STATUSLINE_ARGS: &str = "statusline --color always";
pub const HOOK_ARGS: &str = "hook";
/// The status line command as a user types it (mcplogs on PATH), for advice.
pub const STATUSLINE_COMMAND: &str = "mcplogs statusline --color always";

/// `--detach`: Claude Code ends a SessionEnd hook after about 1.5 s (docs/claude-code.md).
pub const EXPORT_HOOK_ARGS: &str = "export --detach";

/// The binary to install: `--binary PATH` (made absolute and canonical, and runnable),
/// else this one when its path is stable; then checked to answer `--version`. With
/// `--dry-run`, a path that may not stay (a cargo build, a temporary folder) is still
/// shown in the diff, with a warning that the real run refuses it.
fn binary(flags: &SetupFlags) -> Result<PathBuf, Error> {
    use mcplogs::settings::binary;
    let path = match &flags.binary {
        Some(p) => {
            let p = binary::canonical(p)?;
            binary::check_executable(&p)?;
            p
        }
        None => match binary::own_stable_path() {
            Ok(p) => p,
            Err(problem) if flags.dry_run && problem.may_not_stay() => {
                output::warning(format_args!(
                    "{problem}: the diff below shows it, but setup without --dry-run refuses to install it; install mcplogs (for example `cargo install --path .`, or a release build copied into a folder on PATH) and run setup from the installed binary, or name one with --binary PATH"
                ));
                binary::own_path()?
            }
            Err(problem) => return Err(problem.into()),
        },
    };
    binary::check_runs(&path)?;
    Ok(path)
}

pub fn run(args: SetupArgs) -> Result<ExitCode, Error> {
    let (install, flags) = match args.what {
        SetupWhat::Statusline(f) => (Install::StatusLine, f),
        SetupWhat::Hook(f) if f.export => (Install::ExportHook, f),
        SetupWhat::Hook(f) => (Install::Hook, f),
    };
    let path = settings_file(&flags)?;
    // the values the configuration marks as secret, hidden in the diff and in the
    // status line of the user's own shown below (as `settings` hides them)
    crate::cmd::fix::learn_configured(&[], flags.project.as_deref(), flags.managed_dir.clone());
    if flags.undo {
        return run_undo(install, &flags, &path);
    }
    let sources = sources(&flags)?;
    if let Some(b) = setup::blocked(&setup::integrations(&sources), install) {
        return Err(Error::SetupBlocked(b));
    }
    let exe = binary(&flags)?;
    let exe = mcplogs::text::shell_word(&exe.display().to_string());
    let command = match install {
        Install::StatusLine => format!("{exe} {STATUSLINE_ARGS}"),
        Install::Hook => format!("{exe} {HOOK_ARGS}"),
        Install::ExportHook => format!("{exe} {EXPORT_HOOK_ARGS}"),
    };
    let command = command.as_str();
    let plan = setup::plan_setup(
        &path,
        install,
        &SetupOptions {
            command: command.to_string(),
            wrap: flags.wrap,
        },
    )?;
    let pending = match plan {
        SetupPlan::AlreadyInstalled { path } => {
            output::note(format_args!(
                "{} already runs {}: nothing to write.",
                path.display(),
                mcplogs::text::code_span(command)
            ));
            return Ok(ExitCode::Clean);
        }
        SetupPlan::OwnStatusLine { path, command: own } => {
            output::stdout(&compose_advice(&path, &own))?;
            return Ok(ExitCode::Clean);
        }
        SetupPlan::Pending(p) => p,
    };
    output::note(format_args!(
        "Writing {}: {}.",
        path.display(),
        match install {
            Install::StatusLine => "Claude Code's status line, under the prompt",
            Install::Hook =>
                "a UserPromptSubmit hook (`mcplogs docs claude-code` says why not SessionStart)",
            Install::ExportHook =>
                "a SessionEnd hook that exports the session's verdicts in the background",
        }
    ));
    print_diff(&pending.diff, flags.dry_run)?;
    if !go_ahead(flags.dry_run, flags.yes)? {
        return Ok(ExitCode::Clean);
    }
    let applied = setup::apply_setup(&pending)?;
    let what = match install {
        Install::StatusLine => "statusline",
        Install::Hook => "hook",
        Install::ExportHook => "hook --export",
    };
    output::wrote(
        &path,
        applied.backup.as_deref(),
        &format!(
            " Undo with `mcplogs setup {what} --undo --settings {}`.",
            mcplogs::text::shell_word(&path.display().to_string())
        ),
    );
    output::note(match install {
        Install::StatusLine => {
            "Claude Code reads it at once; the line shows this session's MCP servers."
        }
        Install::Hook => {
            "Claude Code runs it from the next prompt on; it speaks only when a server of the session failed."
        }
        Install::ExportHook => {
            "Claude Code runs it when a session ends; `mcplogs export --dry-run` shows what it sends, and last-run.log in mcplogs' cache folder what the last run said."
        }
    });
    Ok(ExitCode::Clean)
}

/// How to add mcplogs to a status line of one's own, without mcplogs touching it. The
/// user's command is shown with its secrets hidden, as `settings` and the `--wrap` diff
/// show it (an API key, a URL's password: the screen ends up in bug reports); `--wrap`
/// takes it from the file as it is.
fn compose_advice(path: &std::path::Path, own: &str) -> String {
    let shown = crate::cmd::fix::redact_as_diff(own);
    let hidden = if shown == own {
        ""
    } else {
        "  (secrets hidden here; --wrap keeps the command as it is)\n"
    };
    let own_safe = mcplogs::text::terminal_safe(&shown, false);
    // the command `--wrap` writes, whole only when nothing in it was hidden (with a
    // secret hidden, the line printed would not be the one written, nor run as it)
    let wrapped = if hidden.is_empty() {
        format!(
            "{STATUSLINE_COMMAND} --wrap {}",
            mcplogs::text::shell_word(&own_safe)
        )
    } else {
        format!("{STATUSLINE_COMMAND} --wrap followed by your command, quoted")
    };
    format!(
        "{} already has a status line of your own:\n  {own_safe}\n{hidden}\
         mcplogs leaves it alone. To add the MCP part to it, either:\n\
         \x20 - run `mcplogs setup statusline --wrap`: mcplogs then runs your command with the\n\
         \x20   same input and prints its line followed by the MCP part\n\
         \x20   (command: {wrapped}), or\n\
         \x20 - in your script, keep the input and pass it on:\n\
         \x20   input=$(cat)\n\
         \x20   echo \"<your line> $(printf '%s' \"$input\" | {STATUSLINE_COMMAND})\"\n",
        path.display(),
    )
}

fn settings_file(flags: &SetupFlags) -> Result<PathBuf, Error> {
    if let Some(p) = &flags.settings {
        return std::path::absolute(p).map_err(|source| Error::SettingsPath {
            path: p.clone(),
            source,
        });
    }
    let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    mcplogs::claude_code::paths::user_settings_file(home.as_deref(), &|k| std::env::var_os(k))
        .ok_or(Error::NoHomeFolder)
}

fn sources(flags: &SetupFlags) -> Result<Sources, Error> {
    let project = match &flags.project {
        Some(p) if !p.is_dir() => return Err(Error::NotAFolder(p.clone())),
        Some(p) => std::path::absolute(p),
        None => std::env::current_dir(),
    }
    .map_err(Error::ProjectFolder)?;
    Ok(Sources::for_this_machine_in(
        &project,
        flags.managed_dir.as_deref(),
    ))
}

fn run_undo(
    install: Install,
    flags: &SetupFlags,
    path: &std::path::Path,
) -> Result<ExitCode, Error> {
    let pending = match setup::plan_setup_undo(path, install, flags.force)? {
        UndoPlan::Pending(p) => p,
        UndoPlan::NothingToUndo => {
            output::note(format_args!(
                "No mcplogs setup of {} in {} to undo (no {}).",
                install.key(),
                path.display(),
                undo::state_path_for(path, install.change()).display()
            ));
            return Ok(ExitCode::Clean);
        }
        UndoPlan::NotOurs { path, key } => {
            output::note(format_args!(
                "{} changed since mcplogs' setup and its {key} no longer holds mcplogs' entry: leaving it alone (--force takes the recorded state back anyway).",
                path.display()
            ));
            return Ok(ExitCode::Clean);
        }
        refused @ (UndoPlan::FileRemoved { .. } | UndoPlan::KeyChanged { .. }) => {
            return Err(crate::cmd::fix::undo_refused(refused));
        }
    };
    crate::cmd::fix::finish_undo(
        &pending,
        path,
        "setup",
        "taking out only mcplogs' entry",
        flags.dry_run,
        flags.yes,
    )
}
