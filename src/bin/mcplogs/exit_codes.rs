//! The process exit codes, a documented contract (docs/usage.md, "Exit codes"), and the one
//! place that maps an error to its code.

use crate::error::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// Nothing wrong: every server is `healthy`, `tolerated` or `unknown`.
    Clean = 0,
    /// At least one server has a problem.
    ProblemsFound = 1,
    /// Usage error, or a named path / file that cannot be read.
    Error = 2,
    /// Interrupted by Ctrl-C or SIGTERM (128 + SIGINT), after the probe ended its servers.
    Interrupted = 130,
}

impl ExitCode {
    pub fn from_problems(found: bool) -> Self {
        if found {
            ExitCode::ProblemsFound
        } else {
            ExitCode::Clean
        }
    }

    /// The code for a command that failed. Every error is a usage or I/O error today;
    /// the match is exhaustive so that a new kind of error has to choose.
    pub fn of_error(e: &Error) -> Self {
        match e {
            Error::Clock(_)
            | Error::ExportConfig(_)
            | Error::ExportNowhere
            | Error::ExportStore(_)
            | Error::ExportFailed(_)
            | Error::UnknownTopic { .. }
            | Error::ManInstall { .. }
            | Error::Discovery(_)
            | Error::Settings(_)
            | Error::UndoNotMade { .. }
            | Error::Json(_)
            | Error::ReadFile { .. }
            | Error::ReadStdin(_)
            | Error::NothingToExplain
            | Error::NothingToReport { .. }
            | Error::FixBlocked(_)
            | Error::FixWouldBreak { .. }
            | Error::WriteOutput(_)
            | Error::WriteReport { .. }
            | Error::OpenReport { .. }
            | Error::Redacted { .. }
            | Error::NotAFolder(_)
            | Error::ClaudeVersion(_)
            | Error::ProbeServer { .. }
            | Error::ProbeNameWithServer { .. }
            | Error::UnknownServers(_)
            | Error::UnprobedTypes(_)
            | Error::AmbiguousName(_)
            | Error::ScanNameUnknown { .. }
            | Error::ContractWithoutServer { .. }
            | Error::JunitWithoutContract
            | Error::WriteTranscript { .. }
            | Error::OpenTranscript { .. }
            | Error::TranscriptAndJsonOnStdout
            | Error::ProjectFolder(_)
            | Error::SettingsPath { .. }
            | Error::NoHomeFolder
            | Error::FixNotNeeded
            | Error::CommandPath { .. }
            | Error::CaFile { .. }
            | Error::CaFileNotUsed { .. }
            | Error::FixUnknownServer { .. }
            | Error::FixServerExcepted { .. }
            | Error::FixNothingFor { .. }
            | Error::NotConfirmed
            | Error::NotConfirmedPrune
            | Error::Prune(_)
            | Error::ReadAnswer(_)
            | Error::UndoFileRemoved { .. }
            | Error::UndoKeyChanged { .. }
            | Error::SetupBlocked(_)
            | Error::SetupBinary(_) => ExitCode::Error,
        }
    }
}

/// Set by the interrupt handler before it ends the servers.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether Ctrl-C or SIGTERM arrived: the command's own result (a server that ended
/// because the handler ended it) is then not the exit code, [`ExitCode::Interrupted`] is.
pub fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

/// On Ctrl-C or SIGTERM: end every server the probe started and what they started, then
/// exit with [`ExitCode::Interrupted`]. The library only ends the servers; exiting is the
/// binary's.
pub fn install_interrupt_handler() -> Result<(), ctrlc::Error> {
    ctrlc::set_handler(|| {
        // first: the main thread may see its servers end before this thread exits
        INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
        mcplogs::probe::transport::kill_all_active();
        std::process::exit(ExitCode::Interrupted as i32);
    })
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(code: ExitCode) -> Self {
        std::process::ExitCode::from(code as u8)
    }
}
