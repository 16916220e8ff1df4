//! The binary's one error type. Library errors state facts; the variants here add what
//! only the command line knows (which flag to pass, what to run next). `main` prints an
//! error once, with its `source()` chain, and `exit_codes` maps it to the exit code.

use std::io;
use std::path::PathBuf;

use mcplogs::logs::discovery::DiscoveryError;
use mcplogs::safe_read::ReadError;
use mcplogs::settings::{NEGOTIATION_KEY, NegotiationValue, SettingsError};

/// Why `fix` refuses without `--force` (also shown as a warning with `--dry-run`).
pub const FIX_NOT_NEEDED: &str = "no scanned server needs the legacy fix (MCP_PROTOCOL_NEGOTIATION=legacy helps only servers whose tools/list failed under the modern protocol era)";

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `export`: an OpenTelemetry variable that cannot be used.
    #[error("export: {0}")]
    ExportConfig(#[from] mcplogs::export::config::ConfigError),
    /// `export` with no endpoint and no `--file`.
    #[error(
        "export: nowhere to send: set OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_LOGS_ENDPOINT) in the environment, or in the env block of managed settings or ~/.claude/settings.json (a project's settings are not read), or pass --file FILE (docs/export.md)"
    )]
    ExportNowhere,
    /// `export`: its key or ledger in mcplogs' cache cannot be used.
    #[error("export: {0}")]
    ExportStore(#[from] mcplogs::export::store::StoreError),
    /// `export`: a batch was not accepted; the line says what goes out next run.
    #[error("{0}")]
    ExportFailed(String),
    /// `MCPLOGS_NOW` is set to something that is not a time.
    #[error(transparent)]
    Clock(#[from] mcplogs::time::ClockError),
    /// `mcplogs docs TOPIC` / `mcplogs man SUBCOMMAND` naming nothing there is.
    #[error("no {kind} named {given:?} (there are: {known})")]
    UnknownTopic {
        kind: &'static str,
        given: String,
        known: String,
    },
    /// `mcplogs man --install`: the folder cannot be written.
    #[error("cannot write man pages to {}: {source}", .dir.display())]
    ManInstall { dir: PathBuf, source: io::Error },
    /// A path named on the command line cannot be read.
    #[error(transparent)]
    Discovery(#[from] DiscoveryError),
    /// Reading, planning or writing a settings file failed.
    #[error("{0}{hint}", hint = .0.hint())]
    Settings(#[from] SettingsError),
    /// A JSON document could not be serialized.
    #[error("cannot write JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// `explain FILE`: the file cannot be read.
    #[error("{}: {source}", .path.display())]
    ReadFile { path: PathBuf, source: ReadError },
    /// `explain` from stdin: stdin cannot be read.
    #[error("stdin: {0}")]
    ReadStdin(#[source] ReadError),
    /// `explain`: the input holds nothing it recognises.
    #[error(
        "no server lines recognised: give `claude mcp list` output (for example `claude mcp list | mcplogs explain`) or one error message from an MCP log"
    )]
    NothingToExplain,
    /// `report` with no logs to report on (without `--force`); `detail` says what was
    /// searched, already redacted.
    #[error("nothing to report: {detail} (`--force` writes a report anyway)")]
    NothingToReport { detail: String },
    /// `fix`: no file mcplogs may write can take effect (a managed file decides, or the
    /// user file cannot be located).
    #[error("not writing anything: {}{}", .0.reason(), fix_blocked_hint(.0))]
    FixBlocked(Box<mcplogs::settings::target::FixTarget>),
    /// stdout failed (other than a closed pipe, which is not an error).
    #[error("cannot write output: {0}")]
    WriteOutput(#[source] io::Error),
    /// `report`: stdout or `--output FILE` failed; `target` is already redacted.
    #[error("cannot write {target}: {source}")]
    WriteReport { target: String, source: io::Error },
    /// `report -o FILE` names something that is not a regular file (a FIFO, a device, a
    /// folder), or it cannot be created: refused before anything is scanned, never
    /// opened for a blocking write. `target` is already redacted.
    #[error("{target}: cannot write the report there: {source}")]
    OpenReport { target: String, source: ReadError },
    /// `report`: an error whose text went through the report's redactor.
    #[error("{message}")]
    Redacted { message: String, source: io::Error },
    /// `probe --claude-version` that is not a version.
    #[error("--claude-version {0:?}: expected a version such as 2.1.288")]
    ClaudeVersion(String),
    /// `probe --command`/`--url`/`--header` that cannot be used.
    #[error("{flag}: {source}")]
    ProbeServer {
        flag: &'static str,
        source: mcplogs::claude_code::config::CommandLineError,
    },
    /// `probe NAME... --command/--url`: a name beside the server the flag gives.
    #[error(
        "{flag} gives the server to probe, so {name:?} cannot also name a configured one{}",
        if *flag == "--command" {
            "; the command's own arguments go after `--` (mcplogs probe --command node -- server.js --port 3) or inside its quotes (--command \"node server.js --port 3\")"
        } else {
            ""
        }
    )]
    ProbeNameWithServer { flag: &'static str, name: String },
    /// `probe --contract` with no server to check: none given, none configured or every
    /// configured one left out (each named on stderr).
    #[error(
        "--contract: no server to check in {}: name one with --command or --url, or configure one for the project",
        project.display()
    )]
    ContractWithoutServer { project: PathBuf },
    /// `probe --format junit` without `--contract`: JUnit lists checks, and only
    /// `--contract` runs them.
    #[error("--format junit lists the --contract checks: add --contract")]
    JunitWithoutContract,
    /// `scan NAME`: NAME is neither a file or folder nor the name of a server configured
    /// here or logged.
    #[error(
        "{name}: no such file or folder, and no server of that name is configured here or logged ({} lists the servers; {} filters by name){}",
        mcplogs::text::code_span(list),
        mcplogs::text::code_span(&format!("{list} --server NAME")),
        near.as_ref().map_or(String::new(), |n| format!(". Did you mean {}?", mcplogs::text::code_span(n)))
    )]
    ScanNameUnknown {
        name: String,
        /// The command that lists the servers of the same homes and paths.
        list: String,
        /// The configured or logged server name nearest to `name`, as printed.
        near: Option<String>,
    },
    /// `probe NAME`, `fix NAME`, `du --server NAME`: a printed form (a name holding a
    /// token, redacted) that names several servers printing alike, for a command acting
    /// on one ([`mcplogs::scan::select::NameWant::ambiguous`] says it).
    #[error("{0}")]
    AmbiguousName(String),
    /// `probe NAME...` naming servers that are not configured (each named on stderr).
    #[error("{}", mcplogs::text::count(*.0, "unknown server name"))]
    UnknownServers(usize),
    /// `probe NAME...` naming servers of a type mcplogs cannot probe (each named on
    /// stderr).
    #[error("{} of a type mcplogs cannot probe", mcplogs::text::count(*.0, "server"))]
    UnprobedTypes(usize),
    /// `probe --transcript FILE` cannot be written.
    #[error("{}: cannot write the transcript", path.display())]
    WriteTranscript { path: PathBuf, source: io::Error },
    /// `probe --transcript FILE` names something that is not a regular file (a FIFO, a
    /// device, a folder), or it cannot be created: refused before any server starts.
    #[error("{}: cannot write the transcript there: {source}", path.display())]
    OpenTranscript { path: PathBuf, source: ReadError },
    /// `probe --transcript - --json`: both would go to stdout.
    #[error(
        "--transcript - and the document (--json or --format json/junit) both write to stdout; name a file for the transcript"
    )]
    TranscriptAndJsonOnStdout,
    /// `--project DIR` is not a folder.
    #[error("{}: not a folder", .0.display())]
    NotAFolder(PathBuf),
    /// The current directory cannot be found.
    #[error("cannot find the project folder: {0}")]
    ProjectFolder(#[source] io::Error),
    /// `--settings PATH` cannot be made absolute.
    #[error("{}: {source}", .path.display())]
    SettingsPath { path: PathBuf, source: io::Error },
    /// No home folder, so no default settings file.
    #[error("cannot find the home folder: name the settings file with --settings PATH")]
    NoHomeFolder,
    /// `fix SERVER --command-path PATH`: PATH is not an absolute path to an executable
    /// regular file (checked before anything is planned: the path is written as the
    /// server's command).
    #[error(
        "--command-path {}: {why}; give the absolute path of the server's program (such as /usr/local/bin/NAME)",
        .path.display()
    )]
    CommandPath { path: PathBuf, why: String },
    /// `fix --ca-file PATH`: PATH is not a readable regular file of PEM certificates
    /// (checked before anything is planned: its absolute path is written).
    #[error(
        "--ca-file {}: {source}; give a PEM file holding the certificate authority that signed the server's certificate",
        .path.display()
    )]
    CaFile {
        path: PathBuf,
        #[source]
        source: mcplogs::settings::ca::CaFileError,
    },
    /// `fix --ca-file PATH`: the file verified no failing server's certificate (each
    /// check said why, above), so nothing was written.
    #[error(
        "--ca-file {}: {why}; nothing written",
        .path.display()
    )]
    CaFileNotUsed { path: PathBuf, why: String },
    /// `fix SERVER`: no server of that name is logged or configured.
    #[error(
        "no server {name:?}: none of that name is logged or configured ({} lists the servers){}",
        mcplogs::text::code_span(list),
        match close {
            Some(c) => format!("; did you mean {c}? (`fix` takes a name as configured, case included)"),
            None => String::new(),
        }
    )]
    FixUnknownServer {
        name: String,
        /// The command that lists the servers of the same homes.
        list: String,
        /// The servers' names that differ from NAME in case only (which `--server`
        /// takes, and `scan NAME` shows), as printed, each quoted, joined with `or`.
        close: Option<String>,
    },
    /// `fix SERVER --except SERVER`: the one server asked for is also left out.
    #[error("{name:?} is both the server to fix and excluded by --except: nothing to do")]
    FixServerExcepted { name: String },
    /// `fix SERVER`: no file mcplogs writes would change anything for it (`what` says so
    /// and where to look).
    #[error("{what}; nothing written")]
    FixNothingFor { what: String },
    /// `fix` without `--force` when no scanned server needs it.
    #[error("{FIX_NOT_NEEDED}; pass --force to apply it anyway")]
    FixNotNeeded,
    #[error(
        "not writing MCP_PROTOCOL_NEGOTIATION=legacy into {}: it would reach {server}, which speaks only the new protocol and fails under that setting (see `mcplogs scan`)",
        file.display()
    )]
    FixWouldBreak { file: PathBuf, server: String },
    /// No `--yes` and no terminal to ask.
    #[error(
        "refusing to write without confirmation: standard input is not a terminal (read the diff, then run again with --yes)"
    )]
    NotConfirmed,
    /// `prune` without `--yes` and no terminal to ask.
    #[error(
        "refusing to delete without confirmation: standard input is not a terminal (read the plan, then run again with --yes)"
    )]
    NotConfirmedPrune,
    /// `prune` cannot work on a named path.
    #[error(transparent)]
    Prune(#[from] mcplogs::disk::prune::PruneError),
    /// The confirmation prompt could not be read.
    #[error("cannot read the answer: {0}")]
    ReadAnswer(#[source] io::Error),
    /// `fix --undo` refused before anything was written (a project's file reached
    /// through a link, as the fix refuses it): why, and where its backup and undo record
    /// are kept.
    #[error("{source}. {kept} {}", mcplogs::text::code_span(command))]
    UndoNotMade {
        source: Box<SettingsError>,
        /// "Nothing is lost: its backup X and its undo record Y are kept; once that is
        /// mended, run".
        kept: String,
        command: String,
    },
    /// `fix --undo`: the settings file is gone.
    #[error("{} was removed since mcplogs' fix; nothing to put back", .path.display())]
    UndoFileRemoved { path: PathBuf },
    /// `fix --undo`: the user changed the key since the fix.
    #[error(
        "env.{NEGOTIATION_KEY} in {} is now {}, not the \"legacy\" mcplogs set: leaving that change alone (--force {})",
        .path.display(),
        now_text(.now),
        force_text(.previous)
    )]
    UndoKeyChanged {
        path: PathBuf,
        now: Option<NegotiationValue>,
        previous: Option<String>,
    },
    /// `setup`: the layers would stop the status line or hook from ever running.
    #[error("not writing anything: {0}")]
    SetupBlocked(#[from] mcplogs::settings::setup::Blocked),
    /// `setup`: the binary to install would not keep working for Claude Code.
    #[error(
        "not writing anything: {0}. Setup installs the absolute path of an mcplogs binary that Claude Code can run from any folder: install mcplogs (for example `cargo install --path .`, or a release build copied into a folder on PATH) and run setup from the installed binary, or name one with --binary PATH"
    )]
    SetupBinary(#[from] mcplogs::settings::binary::BinaryProblem),
}

/// The command-line advice when `fix` has no file it may write.
fn fix_blocked_hint(t: &mcplogs::settings::target::FixTarget) -> &'static str {
    match t {
        mcplogs::settings::target::FixTarget::NoUserFile => {
            " (set HOME or CLAUDE_CONFIG_DIR, or name the file with --settings)"
        }
        _ => "",
    }
}

fn now_text(now: &Option<NegotiationValue>) -> String {
    match now {
        Some(v) => format!("\"{v}\""),
        None => "absent".into(),
    }
}

fn force_text(previous: &Option<String>) -> String {
    match previous {
        Some(v) => format!("puts back {v}"),
        None => "removes it".into(),
    }
}

impl Error {
    /// The message and every cause not already part of it, joined by ": ". Most library
    /// messages already name their cause; the chain adds what they leave out.
    pub fn chain(&self) -> String {
        let mut text = self.to_string();
        let mut cause = std::error::Error::source(self);
        while let Some(c) = cause {
            let t = c.to_string();
            if !text.contains(&t) {
                text.push_str(": ");
                text.push_str(&t);
            }
            cause = c.source();
        }
        text
    }
}
