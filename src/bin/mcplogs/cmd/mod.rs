//! One module per subcommand. Each `run(args)` parses nothing (clap did), calls the
//! library, renders, writes through [`crate::output`], and returns the exit code for a
//! finished run or the [`Error`] that stopped it; `main` prints that error.

pub mod docs;
pub mod du;
pub mod explain;
pub mod export;
pub mod fix;
pub mod model;
pub mod probe;
pub mod prune;
pub mod report;
pub mod scan;
pub mod settings;
pub mod setup;
pub mod statusline;

use std::path::PathBuf;

use crate::cli::Command;
use crate::error::Error;
use crate::exit_codes::ExitCode;

/// `--project DIR` as mcplogs prints a project folder whose path holds a configured
/// value (`~/work/p-[REDACTED:config]`): the folder it stands for, said on stderr
/// ([`mcplogs::scan::select::printed_project`]); two folders printing so: a usage error.
fn printed_project(
    project: &mut Option<std::path::PathBuf>,
    homes: &[std::path::PathBuf],
    managed_dir: Option<&std::path::Path>,
) -> Result<(), Error> {
    let Some(given) = project.as_deref() else {
        return Ok(());
    };
    match mcplogs::scan::select::printed_project(given, homes, managed_dir) {
        None => Ok(()),
        Some(Err(e)) => Err(Error::AmbiguousName(e)),
        Some(Ok(dir)) => {
            crate::output::note(format_args!(
                "mcplogs: --project {}: the project folder printed so",
                mcplogs::text::shell_word_typed(&given.to_string_lossy())
            ));
            *project = Some(dir);
            Ok(())
        }
    }
}

/// `--home` folders made absolute, each checked to be a folder (as `scan` refuses one
/// that is not).
fn absolute_homes(homes: Vec<PathBuf>) -> Result<Vec<PathBuf>, Error> {
    homes
        .into_iter()
        .map(|h| {
            if !h.is_dir() {
                return Err(Error::NotAFolder(h));
            }
            std::path::absolute(&h).map_err(|_| Error::NotAFolder(h))
        })
        .collect()
}

/// `--home` folders made absolute as written (no link resolved, nothing checked: the
/// command says what is wrong with one), for the commands that print commands carrying
/// them: those then run as printed from any folder.
fn absolute_as_given(homes: &mut [PathBuf]) {
    for h in homes {
        if let Ok(a) = std::path::absolute(&*h) {
            *h = a;
        }
    }
}

pub fn run(mut command: Command) -> Result<ExitCode, Error> {
    match &mut command {
        Command::Scan(a) => absolute_as_given(&mut a.discovery.home),
        Command::Report(a) => absolute_as_given(&mut a.discovery.home),
        Command::Du(a) => absolute_as_given(&mut a.discovery.home),
        Command::Export(a) => absolute_as_given(&mut a.discovery.home),
        Command::Prune(a) => absolute_as_given(&mut a.home),
        Command::Explain(a) => absolute_as_given(a.home.as_mut_slice()),
        _ => {}
    }
    match command {
        Command::Scan(args) => scan::run(args),
        Command::Explain(mut args) => {
            let homes: Vec<_> = args.home.iter().cloned().collect();
            printed_project(&mut args.project, &homes, args.managed_dir.as_deref())?;
            explain::run(args)
        }
        Command::Settings(mut args) => {
            printed_project(&mut args.project, &[], args.managed_dir.as_deref())?;
            settings::run(args)
        }
        Command::Fix(mut args) => {
            // absolute: the plan's record and the undo commands name files under them,
            // and `fix --undo` runs from any folder
            args.home = absolute_homes(args.home)?;
            printed_project(&mut args.project, &args.home, args.managed_dir.as_deref())?;
            fix::run(args)
        }
        Command::Report(args) => report::run(args),
        Command::Du(args) => du::run(args),
        Command::Prune(args) => prune::run(args),
        Command::Completions(args) => docs::completions(args.shell),
        Command::Man(args) => docs::man(args),
        Command::Docs(args) => docs::docs(args.topic.as_deref(), args.name.as_deref()),
        Command::Probe(mut args) => {
            args.home = absolute_homes(args.home)?;
            printed_project(&mut args.project, &args.home, args.managed_dir.as_deref())?;
            probe::run(args)
        }
        Command::Statusline(args) => statusline::run(args),
        Command::Hook(args) => statusline::hook(args),
        Command::Setup(args) => setup::run(args),
        Command::Model(args) => model::run(args),
        Command::Export(args) => export::run(args),
    }
}

/// Leaves `data` to the end of the process, which comes right after the command: the
/// OS takes a process's memory back at once, where freeing the reports of 100,000
/// servers piece by piece took a tenth of a second on one thread (`scan --json`) and
/// those of a report more. Only for plain data, whose dropping does nothing else (no
/// file to flush, no child to wait for).
pub(crate) fn leave_to_exit<T>(data: T) {
    std::mem::forget(data);
}
