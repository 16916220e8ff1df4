//! `mcplogs completions SHELL` and `mcplogs man`: generated from the clap definitions,
//! so they never drift from the real flags.

use clap::CommandFactory;

use crate::cli::Cli;
use crate::exit_codes::ExitCode;
use crate::{emit, error};

pub fn completions(shell: clap_complete::Shell) -> ExitCode {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "mcplogs", &mut out);
    write(&out)
}

pub fn man() -> ExitCode {
    let mut out = Vec::new();
    if let Err(e) = clap_mangen::Man::new(Cli::command()).render(&mut out) {
        return error(format!("cannot render the man page: {e}"));
    }
    write(&out)
}

fn write(bytes: &[u8]) -> ExitCode {
    match emit(&String::from_utf8_lossy(bytes)) {
        Ok(()) => ExitCode::Clean,
        Err(e) => error(format!("cannot write output: {e}")),
    }
}
