//! `mcplogs completions SHELL` and `mcplogs man`: generated from the clap definitions,
//! so they never drift from the real flags.

use clap::CommandFactory;

use crate::cli::Cli;
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;

pub fn completions(shell: clap_complete::Shell) -> Result<ExitCode, Error> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "mcplogs", &mut out);
    output::stdout(&String::from_utf8_lossy(&out))?;
    Ok(ExitCode::Clean)
}

pub fn man() -> Result<ExitCode, Error> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut out)
        .map_err(Error::WriteOutput)?;
    output::stdout(&String::from_utf8_lossy(&out))?;
    Ok(ExitCode::Clean)
}
