//! The thin binary: parse flags, run one command, print its error once, pick the exit
//! code. Each subcommand is a module of [`cmd`]; all output goes through [`output`].

// Only `output` writes to stdout and stderr (with `writeln!`, so a closed or full stream
// never panics); `println!`/`eprintln!` would panic on one.

#[cfg(target_os = "linux")]
mod alloc;
mod cli;
mod cmd;
mod complete;
mod error;
mod exit_codes;
mod output;
mod progress;

use std::io::{self, IsTerminal};

use clap::Parser;

use cli::{Cli, ColorChoice};
use exit_codes::ExitCode;

fn main() -> std::process::ExitCode {
    #[cfg(target_os = "linux")]
    alloc::configure();
    // The shell asking for completions (`COMPLETE=bash mcplogs -- …`): answer and exit.
    clap_complete::CompleteEnv::with_factory(<Cli as clap::CommandFactory>::command)
        .var(complete::VAR)
        .shells(complete::SHELLS)
        .complete();
    // Before parsing: `--since` and `--older-than` read the clock as they are parsed.
    if let Err(e) = mcplogs::time::check_clock() {
        let e = error::Error::from(e);
        output::error(&e);
        return ExitCode::of_error(&e).into();
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    set_colour(cli.color);
    let result = cmd::run(cli.command);
    // Ctrl-C during a probe: the handler ended the servers, and the probe may have seen
    // them end before the handler's own exit ran
    if exit_codes::interrupted() {
        return ExitCode::Interrupted.into();
    }
    match result {
        Ok(code) => code.into(),
        Err(e) => {
            output::error(&e);
            ExitCode::of_error(&e).into()
        }
    }
}

/// clap's own output: help and version on stdout (exit 0); a usage error on stderr with
/// the one prefix every mcplogs error has, `mcplogs: error:` (exit 2).
fn usage_error(e: clap::Error) -> std::process::ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = output::write_stdout(&e.render().to_string());
            return ExitCode::Clean.into();
        }
        // `mcplogs` alone: the help, as a usage error.
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            output::usage(e.render().to_string().trim_end());
            return ExitCode::Error.into();
        }
        _ => {}
    }
    let text = e.render().to_string();
    let text = text.strip_prefix("error: ").unwrap_or(&text);
    output::usage(&format!("mcplogs: error: {}", text.trim_end()));
    ExitCode::Error.into()
}

/// Colour on or off. An explicit `--color always` or `--color never` is the user's
/// choice for this run and beats `NO_COLOR` (no-color.org: a command-line argument
/// overrides it); `auto` means a terminal on stdout and no non-empty `NO_COLOR`.
fn set_colour(choice: ColorChoice) {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let on = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => !no_color && io::stdout().is_terminal(),
    };
    colored::control::set_override(on);
}
