//! `mcplogs scan`: discovery -> decoding -> sessions -> classification, per server.

mod assemble;
pub mod cache;
pub mod configured;
pub mod fix;
mod read;
pub(crate) use read::last_record_time;
mod redact;
pub mod secrets;
pub mod select;
pub mod stderr;

/// A log folder's server named as a scan names it, from the configuration's names.
pub use assemble::name as name_from_configuration;
use read::{ProgressCounter, ReadOptions, Unit, mtime};
pub(crate) use redact::configured_rows;
pub use redact::redact_report;

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::classify::verdict::{Cause, Diagnosis, Verdict};
use crate::claude_code::names::NameMap;
use crate::claude_code::paths::claude_json_in;
/// What to scan: the homes and the paths named ([`ScanOptions::request`]).
pub use crate::logs::discovery::Request;
use crate::logs::discovery::{self, DiscoveryError};
use crate::logs::record::{Level, Record};
use crate::time::EpochSeconds;
use crate::warning::Warning;

#[derive(Debug, Default, Clone)]
pub struct ScanOptions {
    pub request: Request,
    /// Keep only servers with this name (configured or folder name, case-insensitive).
    pub server: Option<String>,
    /// Keep only servers whose project path or folder contains this.
    pub project: Option<String>,
    /// Only sessions with records at or after this time (`--since`).
    pub since: Option<EpochSeconds>,
    /// Read every session file (`--all`) instead of stopping, newest first, once the
    /// verdict is decided and the history window is read.
    pub all: bool,
    /// Stop as soon as each verdict is decided, without the history window (for
    /// callers that need only the deciding sessions, such as `prune`).
    pub no_history: bool,
    /// The cache folder holding the summary index ([`crate::scan::cache`]); `None` reads every
    /// file it looks at (`--no-cache`, and library callers unless they ask).
    pub index: Option<PathBuf>,
    /// The caller shows no evidence (`prune`): a deciding session summarised in the
    /// index is not read again for its records.
    pub skip_evidence: bool,
    /// Which failing servers get their last stderr lines (read again from the deciding
    /// file: only for what the caller shows).
    pub stderr_tails: StderrTails,
    /// Read only the server folders of this encoded project folder (`explain`: the
    /// project `claude mcp list` ran in), and no debug log: nothing else is opened.
    pub only_project_folder: Option<String>,
    /// The managed settings folder (`--managed-dir`) whose `managed-mcp.json` and
    /// settings hold configured secrets ([`secrets`]); `None`: this OS's.
    pub managed_dir: Option<PathBuf>,
    /// `--no-redact`: the stderr tails are cut without being redacted first (they are
    /// otherwise redacted whole, before any cut: [`stderr`]).
    pub no_redact: bool,
}

/// Which failing servers get [`ServerReport::stderr_tail`], each read again from its
/// deciding file (about a second of a 100,000-server scan when every one is).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StderrTails {
    /// Every failing server (`scan --json`, `scan --verbose`, `explain`).
    #[default]
    Failing,
    /// Only the servers that failed to connect, and only their last line (the plain
    /// screen's hint names their last words).
    ConnectionFailures,
    /// None (callers that show no stderr: `fix`, `export`, `prune`).
    Skip,
    /// No tail; for every failing server, what `report` shows of its stderr
    /// ([`stderr::ReportStderr`], in [`ServerReport::stderr_context`]), taken in the
    /// scan's read of the deciding file where it can be (else `report` reads it again).
    Report,
}

/// After the files that decide a server's verdict, this many older files are read too
/// (when they exist), so that `history` and `failedSessions` show whether the verdict is
/// new. Files, not days: one file is one Claude Code process, and an image server's
/// files can be gigabytes each, so a window in days could mean reading everything.
pub const HISTORY_WINDOW_FILES: usize = 2;

/// One record shown as evidence for a verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    /// Shared with the other records of its file (100,000 servers' evidence each
    /// holding a copy of its path was a tenth of a scan's memory).
    pub file: std::sync::Arc<PathBuf>,
    pub line: usize,
    pub timestamp: Option<String>,
    pub level: Level,
    /// Shared with the other records that say the same ([`shared_message`]): 100,000
    /// servers' evidence held tens of megabytes of the same few messages.
    pub message: std::sync::Arc<str>,
    /// The record's session (not shown; lets a reader find the session again), shared
    /// by the records of one session.
    pub session_id: Option<std::sync::Arc<str>>,
}

impl From<&Record> for Evidence {
    fn from(r: &Record) -> Self {
        Evidence::with_session(r, r.session_id.as_deref().map(Into::into))
    }
}

impl Evidence {
    /// A placeholder record that only names its file, time and session: what the status
    /// line's resolution knows of a session it read no record of (`crate::resolve`).
    pub fn of_session(file: PathBuf, timestamp: Option<String>, session_id: &str) -> Self {
        Evidence {
            file: std::sync::Arc::new(file),
            line: 0,
            timestamp,
            level: Level::Debug,
            message: shared_message(""),
            session_id: Some(session_id.into()),
        }
    }

    /// The record as evidence, its session id given (shared with the session's other
    /// records).
    pub fn with_session(r: &Record, session_id: Option<std::sync::Arc<str>>) -> Self {
        Evidence {
            file: std::sync::Arc::clone(&r.file),
            line: r.line,
            timestamp: r.timestamp.clone(),
            level: r.level,
            message: shared_message(&r.message),
            session_id,
        }
    }
}

/// `message` as an `Arc`, shared with the evidence of this thread's scan that says the
/// same (a failing server writes the same lines in every session and project). The
/// messages kept to share are bounded: forgotten all at once when full.
pub fn shared_message(message: &str) -> std::sync::Arc<str> {
    use std::cell::RefCell;
    use std::collections::HashSet;
    use std::sync::Arc;
    const KEPT: usize = 4096;
    thread_local! {
        static SEEN: RefCell<HashSet<Arc<str>>> = RefCell::new(HashSet::new());
    }
    SEEN.with(|seen| {
        let mut seen = seen.borrow_mut();
        if let Some(m) = seen.get(message) {
            return Arc::clone(m);
        }
        if seen.len() >= KEPT {
            seen.clear();
        }
        let m: Arc<str> = message.into();
        seen.insert(Arc::clone(&m));
        m
    })
}

/// How often a verdict was seen for a server, and when last.
#[derive(Debug, Clone, PartialEq)]
pub struct VerdictSeen {
    pub verdict: Verdict,
    pub cause: Option<Cause>,
    pub sessions: usize,
    pub last_seen: Option<String>,
}

#[derive(Debug, Clone)]
pub struct ServerReport {
    /// The configured name when known, else the folder's encoded name.
    pub name: String,
    /// The `mcp-logs-*` folder's server part, when the logs came from a cache tree.
    pub folder: Option<String>,
    /// The real working directory (records' `cwd`), else the project path known from
    /// `~/.claude.json`, else the encoded folder name; `None` for debug logs, which do
    /// not say which project they ran in.
    pub project: Option<String>,
    pub project_folder: Option<String>,
    /// The log folder or debug log the server's records came from.
    pub source: PathBuf,
    /// The deciding session's diagnosis; its `capabilities` are not kept (`None`): they
    /// helped decide, and no output shows them.
    pub diagnosis: Diagnosis,
    pub last_seen: Option<String>,
    /// Session files of the server (one per Claude Code process); for a debug log, the
    /// sessions in it.
    pub sessions: usize,
    /// Sessions read: those of the newest files, back to the deciding session and the
    /// history window (all of them with `--all`).
    pub sessions_read: usize,
    /// Files read, out of `sessions` for a log folder.
    pub files_read: usize,
    /// Failed sessions among those read.
    pub failed_sessions: usize,
    pub evidence: Vec<Evidence>,
    /// Verdicts of the sessions read.
    pub history: Vec<VerdictSeen>,
    /// The latest session only connected (a health check, or a session that ended before
    /// any tool was used) and an earlier session on the same connection decided.
    pub latest_only_connected: bool,
    /// The newest session in its log when it is not the deciding one (a later one that
    /// only connected, or decided nothing), or when the evidence that names the deciding
    /// one was let go ([`Self::left_out`]): whether its project's last session logged it,
    /// for the discovery cache's resolution (`crate::resolve`); read through
    /// [`Self::newest_session`].
    pub latest_session: Option<Box<LatestSession>>,
    /// The file holding the deciding session (shared with its evidence records).
    pub deciding_file: Option<std::sync::Arc<PathBuf>>,
    /// Configured names (two or more) that all write into this server's log folder:
    /// their records are interleaved and nothing in them says which server wrote which,
    /// so the verdict belongs to the folder, not to one of the names.
    pub shared_by: Vec<String>,
    /// For a server the legacy setting would help: what its project's settings say now
    /// (set by `advice::attach`; `None` until then), shared by the servers of a project.
    pub settings: Option<std::sync::Arc<crate::settings::target::SettingsAdvice>>,
    /// What the project's configuration says about the server now (set by
    /// [`configured::join`]; unchecked until then).
    pub configuration: configured::Configuration,
    /// For a failing server: the last lines it wrote on stderr in the deciding session
    /// (its `Server stderr` records), oldest first, bounded ([`stderr::TAIL_LINES`]
    /// lines of at most [`stderr::TAIL_LINE_CHARS`] characters); empty when it wrote
    /// none, or when the caller shows no evidence.
    pub stderr_tail: Vec<String>,
    /// What the stderr tail is made from, taken in the scan's read of the deciding file
    /// (until the scan makes the tail from it; `None` then, and when it was not).
    pub stderr_context: Option<stderr::Context>,
    /// How the configuration starts the server now (its command and arguments, or its
    /// URL), when an entry of that name is found (set by [`configured::attach_launch`]).
    /// Boxed: most servers of a large scan have none, and 100,000 reports each holding
    /// a whole one inline was a tenth of the scan's memory.
    pub launch: Option<Box<configured::Launch>>,
    /// Where its project folder stands on this machine, looked up once a project at the
    /// end of the scan (100,000 servers asked it several times each: a quarter of a
    /// million failed `stat`s); `None` until then, and [`ServerReport::project_here`]
    /// looks it up itself.
    pub project_here: Option<ProjectHere>,
    /// What `mcplogs fix` would do for it (set by `resolve`; `None` until then, and when
    /// no file can change anything for it and there is nothing only the user can do).
    pub fix: Option<Box<fix::ServerFix>>,
    /// What Claude Code's MCP discovery cache did to the server in its project's last
    /// session, when it decided what the user saw (set by the resolution,
    /// `crate::resolve`; boxed, as most servers have none).
    pub discovery_cache: Option<Box<CacheServed>>,
    /// The server's name, project and folders as its logs gave them, when the scan's
    /// redaction changed any of them ([`redact_report`]; `None` otherwise): what the
    /// resolution matches against the configuration, and the project folder whose files
    /// it reads (a project path or a name holding a secret is shown redacted, and is
    /// still that project and that configured name: [`ServerReport::as_read`]).
    pub as_read: Option<Box<AsRead>>,
}

/// What redaction changed of a server's identity ([`ServerReport::as_read`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsRead {
    pub name: String,
    pub project: Option<String>,
    pub project_folder: Option<String>,
    pub folder: Option<String>,
    pub shared_by: Vec<String>,
}

/// When the process that wrote the log file `file` started: its name
/// (`2026-12-06T00-02-06-913Z.jsonl`, [`crate::time::file_name_time`]).
pub(crate) fn process_start(file: &Path) -> Option<crate::time::EpochSeconds> {
    crate::time::file_name_time(file.file_name()?.to_str()?)
        .and_then(|iso| crate::time::parse_iso(&iso))
}

/// The newest session of a server's log ([`ServerReport::latest_session`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestSession {
    /// Its session id; `None` when the index kept none (it keeps the deciding
    /// session's records only).
    pub id: Option<std::sync::Arc<str>>,
    /// When its process started (its log file's name), seconds since the epoch.
    pub started: Option<u64>,
}

/// What Claude Code's MCP discovery cache did to an HTTP or SSE server in its project's
/// last session (issue 54): the server's verdict says what the user saw, this says why.
/// Times are seconds since the epoch.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheServed {
    pub kind: CacheServedKind,
    /// The logged session's diagnosis the cache's verdict replaced (`Served`, `Kept`):
    /// a server Claude Code does not start gets it back (nothing is served for it).
    pub replaced: Option<Box<crate::classify::verdict::Diagnosis>>,
    /// The project's last session (its id), and when its transcript was last written.
    pub session: Option<String>,
    pub session_at: Option<u64>,
    /// When the entry that served it was written (its tools last listed).
    pub cached_at: Option<u64>,
    /// Until when Claude Code serves that entry (`Served`: the TTL; `Kept`: max-stale).
    pub until: Option<u64>,
    /// What the next session will do, in words.
    pub next_session: String,
}

/// See [`CacheServed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheServedKind {
    /// Within the TTL: shown with its cached tools, not contacted (verdict `unknown`,
    /// cause `served-from-cache`).
    Served,
    /// Past the TTL, within max-stale: the cached tools kept while the refresh's
    /// `tools/list` failed and the session ended before the refresh did (verdict
    /// `degraded`, cause `stale-after-refresh`).
    Kept,
    /// The connection failed, which deletes the server's entry: the next session starts
    /// without one (the verdict is the failure's).
    Deleted,
    /// A refresh of the server's entry failed (its connection or its `tools/list`) and,
    /// with `MCP_DISCOVERY_CACHE_STRIKES` above 1, counted a strike: the entry was
    /// rewritten during the session and kept (the verdict is the failure's).
    Struck,
}

impl CacheServedKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CacheServedKind::Served => "served-from-cache",
            CacheServedKind::Kept => "cached-tools-kept",
            CacheServedKind::Deleted => "entry-deleted",
            CacheServedKind::Struck => "strike-counted",
        }
    }
}

/// Where a server's project folder stands on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectHere {
    /// A folder here (Claude Code would start the server in it).
    Folder,
    /// Nothing at that absolute path any more.
    Gone,
    /// Something else: a relative or unknown project, or not a folder.
    Other,
}

impl ProjectHere {
    /// Looks `project` up (only an absolute path can be a folder here).
    pub fn of(project: Option<&str>) -> ProjectHere {
        match project.map(Path::new) {
            // one `stat` for the common cases (a folder, nothing); a link is followed
            Some(p) if p.is_absolute() => match std::fs::symlink_metadata(p) {
                Err(_) => ProjectHere::Gone,
                Ok(m) if m.is_dir() => ProjectHere::Folder,
                Ok(m) if m.file_type().is_symlink() && p.is_dir() => ProjectHere::Folder,
                Ok(_) => ProjectHere::Other,
            },
            _ => ProjectHere::Other,
        }
    }
}

impl ServerReport {
    /// A report of one session of `name` read from `source` and diagnosed `diagnosis`,
    /// with nothing else known yet (no evidence, history, configuration or advice): what
    /// a pasted session is, and where tests start.
    pub fn of_one_session(name: &str, source: PathBuf, diagnosis: Diagnosis) -> ServerReport {
        let failed = usize::from(diagnosis.verdict.is_problem());
        ServerReport {
            name: name.to_string(),
            folder: Some(name.to_string()),
            project: None,
            project_folder: None,
            source,
            diagnosis,
            last_seen: None,
            sessions: 1,
            sessions_read: 1,
            files_read: 1,
            failed_sessions: failed,
            evidence: Vec::new(),
            history: Vec::new(),
            latest_only_connected: false,
            latest_session: None,
            deciding_file: None,
            shared_by: Vec::new(),
            settings: None,
            configuration: configured::Configuration::default(),
            stderr_tail: Vec::new(),
            stderr_context: None,
            launch: None,
            project_here: None,
            fix: None,
            discovery_cache: None,
            as_read: None,
        }
    }

    /// The server's identity as its logs gave it, before the scan's redaction (the
    /// shown one when redaction changed nothing).
    pub fn as_read(&self) -> AsRead {
        match &self.as_read {
            Some(a) => (**a).clone(),
            None => AsRead {
                name: self.name.clone(),
                project: self.project.clone(),
                project_folder: self.project_folder.clone(),
                folder: self.folder.clone(),
                shared_by: self.shared_by.clone(),
            },
        }
    }

    /// The name as the logs and the configuration give it (before redaction).
    pub fn name_as_read(&self) -> &str {
        self.as_read.as_deref().map_or(&self.name, |a| &a.name)
    }

    /// The project path as read (before redaction).
    pub fn project_as_read(&self) -> Option<&str> {
        match &self.as_read {
            Some(a) => a.project.as_deref(),
            None => self.project.as_deref(),
        }
    }

    /// The encoded project folder as read (before redaction).
    pub fn project_folder_as_read(&self) -> Option<&str> {
        match &self.as_read {
            Some(a) => a.project_folder.as_deref(),
            None => self.project_folder.as_deref(),
        }
    }

    /// The log folder's server part as read (before redaction).
    pub fn folder_as_read(&self) -> Option<&str> {
        match &self.as_read {
            Some(a) => a.folder.as_deref(),
            None => self.folder.as_deref(),
        }
    }

    /// The configured names sharing its log folder, as configured (before redaction).
    pub fn shared_by_as_read(&self) -> &[String] {
        self.as_read
            .as_deref()
            .map_or(&self.shared_by, |a| &a.shared_by)
    }

    /// Where its project folder stands here: as the scan looked it up, else looked up now.
    pub fn project_here(&self) -> ProjectHere {
        self.project_here
            .unwrap_or_else(|| ProjectHere::of(self.project.as_deref()))
    }

    /// The log tree (the `claude-cli-nodejs` folder) the server's log folder sits in;
    /// `None` for a debug log. Two trees can hold the same project (a home and a copied
    /// cache, or two homes scanned at once): their rows are told apart by it.
    pub fn log_tree(&self) -> Option<&std::path::Path> {
        self.folder.as_ref()?;
        self.source.parent()?.parent()
    }

    /// When the process that wrote its deciding session started (its log file's name).
    pub fn started_at(&self) -> Option<crate::time::EpochSeconds> {
        process_start(self.deciding_file.as_deref()?)
    }

    /// The newest session of its log: [`Self::latest_session`] when that is not the
    /// deciding session, else the deciding one (its evidence's session id, its file's
    /// start).
    pub fn newest_session(&self) -> Option<LatestSession> {
        if let Some(l) = &self.latest_session {
            return Some((**l).clone());
        }
        self.deciding_file.as_ref()?;
        Some(LatestSession {
            id: self.evidence.iter().find_map(|e| e.session_id.clone()),
            started: self.started_at().map(|t| t.max(0) as u64),
        })
    }

    /// Whether the verdict is about a server Claude Code starts now: false for one no
    /// longer configured, disabled, denied by policy or skipped since its last log (its
    /// verdict is history: never counted as failing, never a reason for `mcplogs fix`).
    pub fn counts_now(&self) -> bool {
        match &self.configuration {
            configured::Configuration::Unchecked => true,
            configured::Configuration::NotConfigured => false,
            configured::Configuration::Configured(c) => matches!(
                c.state,
                crate::claude_code::config::ServerState::Starts
                    | crate::claude_code::config::ServerState::PendingApproval
            ),
        }
    }

    /// Whether the server fails now: a problem verdict on a server Claude Code starts.
    pub fn fails_now(&self) -> bool {
        self.diagnosis.verdict.is_problem() && self.counts_now()
    }

    /// What makes the exit code 1 for it, in every command: it fails now, or Claude Code
    /// now skips it for an error in its configuration.
    pub fn is_problem_now(&self) -> bool {
        self.fails_now() || self.config_error_now()
    }

    /// Whether Claude Code now skips the server for an error in its configuration
    /// (its logs are from before): a problem as a configured entry without logs is
    /// ([`configured::ConfiguredRow::is_problem`]), whatever its logs said.
    pub fn config_error_now(&self) -> bool {
        matches!(
            &self.configuration,
            configured::Configuration::Configured(c)
                if matches!(c.state, crate::claude_code::config::ServerState::Skipped(_))
                    && !c.skipped_with_file()
        )
    }

    /// Made a server a filter left out: what counts over the home's servers stays, its
    /// records go (no output shows them).
    pub fn left_out(&mut self) {
        // (its newest session, which the evidence going named)
        if self.latest_session.is_none() {
            self.latest_session = self.newest_session().map(Box::new);
        }
        self.evidence = Vec::new();
        self.stderr_tail = Vec::new();
        self.stderr_context = None;
    }

    /// Whether more than one configured server wrote this log folder.
    pub fn is_shared(&self) -> bool {
        self.shared_by.len() > 1
    }

    /// Whether writing the legacy fix can make this server work: the logs say the
    /// setting helps, and (once the settings are known) a file mcplogs may write wins
    /// and does not already hold `legacy`, and no server it reaches speaks only the new
    /// protocol (no value would serve both).
    pub fn legacy_fix_applies(&self) -> bool {
        !self.is_shared()
            && self.counts_now()
            && self.diagnosis.legacy_fix_applies()
            && self
                .settings
                .as_ref()
                .is_none_or(|a| a.target.can_write() && a.conflict.is_none())
    }
}

/// A server log folder whose every session is older than `--since`.
#[derive(Debug, Clone, PartialEq)]
pub struct NotSince {
    /// The encoded project folder name, when the layout shows it.
    pub project_folder: Option<String>,
    /// The encoded server name (the folder name without `mcp-logs-`).
    pub folder: String,
    /// When its last record was written (seconds since the epoch): the latest record
    /// time of the file written last; that file's mtime only when no record has a time.
    pub last_written: EpochSeconds,
    /// The project its last record ran in (that record's `cwd`, when its folder's name
    /// is the project folder's): whose configuration is joined, so a project whose
    /// every session is older keeps its servers, "not seen since".
    pub project: Option<String>,
}

#[derive(Debug, Default, Clone)]
pub struct ScanReport {
    pub servers: Vec<ServerReport>,
    pub warnings: Vec<Warning>,
    /// The roots and paths that were searched.
    pub searched: Vec<PathBuf>,
    /// With `--since`: when the newest log file found was last written (seconds since
    /// the epoch), whether or not it was recent enough; says why a scan found nothing.
    pub newest_log: Option<EpochSeconds>,
    /// With `--server` or `--project`: every server name found before filtering, sorted,
    /// for "did you mean".
    pub unfiltered_names: Vec<String>,
    /// With `--server`: the projects of the logged servers it left out (each once), whose
    /// configuration is joined all the same: a configured server without a log of its own
    /// is found by name as plain `scan` lists it.
    pub unfiltered_projects: Vec<String>,
    /// With `--server` or `--match-project`: the logged servers the filter left out,
    /// without their evidence, for what counts over a home's servers (the discovery
    /// cache's one eligible server), so a filtered view says what the full scan says.
    pub filtered_out: Vec<ServerReport>,
    /// Configured servers without a log in their project (set by [`configured::join`]).
    pub configured: Vec<configured::ConfiguredRow>,
    /// `--since`: the cut-off (seconds since the epoch); `None` without `--since`.
    pub since: Option<EpochSeconds>,
    /// `--since`: the server log folders that have sessions, none of them since the
    /// cut-off (so no row of their own): a configured server among them is "not seen
    /// since", never "no log of it yet" ([`configured::join`]).
    pub not_since: Vec<NotSince>,
    /// The homes the advice's commands carry (`mcplogs scan --home DIR --server NAME`)
    /// and whose settings decide for its servers: `--home`'s (none: this machine's), or
    /// for a scan of paths the one home its logs lie in (`printed_homes`).
    pub homes: Vec<PathBuf>,
    /// Every value the configuration marks as a secret ([`secrets::collect`], read
    /// once by the scan): every redaction of this report and of what is made from it
    /// learns them ([`redact_report`], `report`, `export`, `probe`). Never written
    /// anywhere.
    pub secrets: crate::redact::configured::ConfiguredSecrets,
    /// What `mcplogs fix SERVER` would do for a configured server without a log (a
    /// `.mcp.json` server it enables), and what only the user can do for it (set by
    /// `resolve`; a logged server's are its own [`ServerReport::fix`]).
    pub fix_unlogged: fix::ServerFix,
    /// For a scan of a home: the state Claude Code keeps on that machine that changes
    /// what it shows for MCP servers (set by the resolution, `crate::resolve`).
    pub machine_state: Option<MachineState>,
    /// How the scan's redaction shows its texts ([`redact_report`], when it ran): the
    /// configured rows joined after it show their projects the same way.
    pub shown_by: Option<std::sync::Arc<crate::redact::Redactor>>,
    /// The home's `~/.claude.json` is there but could not be read or parsed: the
    /// resolution's warning of it (also among `warnings`), for a command that shows the
    /// scan's other warnings not (`fix`, `export`): no server's configuration is known.
    pub config_problem: Option<Warning>,
    /// `--server NAME` kept the logged servers of exactly that name only
    /// ([`select::NameWant::named_exactly_if_any`]): the configured rows are chosen so too
    /// (a server of another name whose logged row was left out is no "configured only"
    /// row).
    pub by_name_only: bool,
}

/// What Claude Code keeps between sessions on a machine and that changes what it shows
/// for MCP servers (issue 54): its MCP discovery cache, the switches set in the
/// environment or the settings' `env`, and the MCP feature flags it cached in
/// `.claude.json`. Values only; no credential is ever read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MachineState {
    /// Whether the discovery cache is on for HTTP and SSE servers.
    pub discovery_cache_on: bool,
    /// The same in words, with what decides it and its ages (`on (MCP_DISCOVERY_CACHE,
    /// environment); TTL 900 s, max-stale 14400 s, strikes 1`).
    pub discovery_cache: String,
    /// The cache's entries (sealed files; never opened).
    pub cache_entries: usize,
    /// Each switch set: its name, value and where it is set.
    pub switches: Vec<(String, String, String)>,
    /// Each MCP feature flag cached in `.claude.json`: its name, its value (a boolean or
    /// number as it is; a string or list only described, never shown: it may name
    /// hosts) and what it changes.
    pub flags: Vec<(String, String, String)>,
    /// What the discovery cache did, as the scan's warnings say it (they are among
    /// [`ScanReport::warnings`] too; the report gives them their own place).
    pub notes: Vec<String>,
}

impl ScanReport {
    /// A server failing now, or a configuration Claude Code skips: exit code 1. States
    /// (disabled, pending approval, denied by policy, not started) are not problems.
    pub fn has_problems(&self) -> bool {
        self.servers.iter().any(ServerReport::is_problem_now)
            || self
                .configured
                .iter()
                .any(configured::ConfiguredRow::is_problem)
    }
}

/// How far a scan has got, for a progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub files_done: u64,
    pub files_total: u64,
    pub bytes_done: u64,
    pub bytes_total: u64,
}

pub fn scan(opts: &ScanOptions) -> Result<ScanReport, DiscoveryError> {
    scan_with_progress(opts, None)
}

/// Scans with a progress callback, called from worker threads after each file. Without
/// one the files are not measured first (a `stat` of each of 341,785 files was a tenth
/// of a scan of 100,000 folders, for a total no one would see).
pub fn scan_with_progress(
    opts: &ScanOptions,
    progress: Option<&(dyn Fn(Progress) + Sync)>,
) -> Result<ScanReport, DiscoveryError> {
    // With no count of files to show and no time to cut at, each server folder is
    // listed as it is read, through the descriptor its files are then opened with
    // (`safe_read::OpenFolder`); with the index, an unchanged one's listing comes from
    // the index.
    let found = if progress.is_none() && opts.since.is_none() {
        discovery::discover_unlisted(&opts.request)?
    } else {
        discovery::discover(&opts.request)?
    };
    let printed = printed_homes(&opts.request, &found);
    let mut warnings = found.warnings;
    let mut names = NameMap::default();
    for home in &found.homes {
        names.add_claude_json(&claude_json_in(home));
    }

    // Work units: one per server folder (its files in start-time order, since sessions
    // can span files) and one per debug log. Units run in parallel.
    let mut units: Vec<Unit> = found
        .server_dirs
        .into_iter()
        .map(Unit::ServerDir)
        .chain(found.debug_logs.into_iter().map(Unit::DebugLog))
        .collect();
    let since_iso = opts.since.map(crate::time::format_iso);
    let newest_log = opts.since.and_then(|_| {
        units
            .iter()
            .flat_map(|u| u.files())
            .filter_map(|f| mtime(&f))
            .max()
    });
    if let Some(want) = &opts.only_project_folder {
        units.retain(|u| {
            matches!(u, Unit::ServerDir(d) if d.project_folder.as_deref() == Some(want.as_str()))
        });
    }
    // `--since`: every server folder with its newest file's time, before the older
    // files go: those left without a session since are "not seen since" (below)
    // (with the file written last: its last record's time is read only for the
    // folders left without a row)
    let mut before_since: Vec<(PathBuf, PathBuf, NotSince)> = Vec::new();
    if opts.since.is_some() {
        for u in &units {
            if let Unit::ServerDir(d) = u
                && let Some((t, newest)) = u.files().filter_map(|f| Some((mtime(&f)?, f))).max()
            {
                before_since.push((
                    d.path.clone(),
                    newest,
                    NotSince {
                        project_folder: d.project_folder.clone(),
                        folder: d.folder.clone(),
                        last_written: t,
                        project: None,
                    },
                ));
            }
        }
    }
    // (a scan of files or folders named joins no configuration: nothing counts over
    // its servers)
    let whole = opts.request.paths.is_empty();
    units.retain_mut(|u| u.drop_files_before(opts.since, whole, &mut warnings));
    let counter = ProgressCounter::new(&units, progress.is_some());
    let report_progress = |p: Progress| {
        if let Some(f) = progress {
            f(p)
        }
    };
    // The index folder, opened once for the run (mcplogs' cache folder checked there):
    // one that is someone else's or open to others is refused with a warning. Each
    // project's index is written once the last of its server folders is read.
    let index = opts.index.as_deref().and_then(|dir| {
        match cache::Index::open(dir, units.iter().filter_map(Unit::folder)) {
            Ok(mut f) => {
                // What the index keeps of a deciding session holds no configured secret
                // known now: the homes' `.claude.json` (user and every project's local
                // servers), `managed-mcp.json`, the `.mcp.json` and settings of the
                // working directory and of every project the homes list.
                f.learn_secrets(&secrets::collect(&secrets::Places {
                    homes: opts.request.homes.clone(),
                    projects: std::env::current_dir().into_iter().collect(),
                    managed_dir: opts.managed_dir.clone(),
                    listed: true,
                }));
                // and those of the project each deciding session ran in (one the homes do
                // not list is known from its logs only)
                let (homes, managed_dir) = (opts.request.homes.clone(), opts.managed_dir.clone());
                f.learn_project_secrets(cache::ProjectSecrets(Box::new(move |p: &Path| {
                    if !p.is_dir() {
                        return crate::redact::configured::ConfiguredSecrets::default();
                    }
                    // the homes, managed files and environment are learned above
                    secrets::of_project(&homes, p, managed_dir.as_deref())
                })));
                Some(f)
            }
            Err(e) => {
                if e.is_refusal() {
                    warnings.push(Warning::new(&e.path, e.problem.to_string()));
                }
                None
            }
        }
    });
    let read_options = ReadOptions {
        since_iso: since_iso.as_deref(),
        all: opts.all,
        window: if opts.no_history {
            0
        } else {
            HISTORY_WINDOW_FILES
        },
        index: index.as_ref(),
        evidence: !opts.skip_evidence,
        stderr: !opts.skip_evidence && opts.stderr_tails != StderrTails::Skip,
        report_stderr: !opts.skip_evidence && opts.stderr_tails == StderrTails::Report,
        shared_projects: Some(names.shared_project_folders()).filter(|s| !s.is_empty()),
    };
    let mcp_json = McpJsonSeen::default();
    // Each server becomes its report where it was read: the sessions it read (each with
    // its evidence and capabilities) never pile up for the whole tree. A unit is one
    // server folder (or a debug log, which can hold several servers: `more`).
    // The rest of a unit's answer boxed, when it has any (few have): the list of units'
    // answers becomes the servers' list in place, and room left over in each slot of it
    // (three empty lists, 72 bytes a server) stayed allocated to the end of the command.
    struct UnitOut {
        server: Option<ServerReport>,
        rest: Option<Box<UnitRest>>,
        /// `--since`: the server has no session since, and `server` is its state
        /// without `--since` ([`assemble::ServerInProgress::before_since`]).
        before_since: bool,
    }
    struct UnitRest {
        /// The folder's other servers (another project's sessions in it), each with
        /// whether it has no session since, as `before_since`.
        more: Vec<(ServerReport, bool)>,
        warnings: Vec<Warning>,
        mcp_json_cwds: Vec<String>,
    }
    let mut results: Vec<UnitOut> = units
        .into_par_iter()
        .map(|u| {
            let mut warnings = Vec::new();
            let p = u.read(
                &read_options,
                &mut warnings,
                &|| report_progress(counter.file_done()),
                &|bytes| report_progress(counter.bytes_read(bytes)),
            );
            let mut mcp_json_cwds = Vec::new();
            let mut servers = p.into_iter().filter_map(|p| {
                let before_since = p.before_since;
                let tails = if before_since {
                    StderrTails::Skip
                } else {
                    opts.stderr_tails
                };
                let (report, cwds) = p.fold(tails);
                mcp_json_cwds.extend(cwds.into_iter().filter(|c| mcp_json.holds_one(c)));
                (report.sessions_read > 0).then_some((report, before_since))
            });
            let (server, before_since) = match servers.next() {
                Some((s, b)) => (Some(s), b),
                None => (None, false),
            };
            let more: Vec<(ServerReport, bool)> = servers.collect();
            let rest = (!more.is_empty() || !warnings.is_empty() || !mcp_json_cwds.is_empty())
                .then(|| {
                    Box::new(UnitRest {
                        more,
                        warnings,
                        mcp_json_cwds,
                    })
                });
            UnitOut {
                server,
                rest,
                before_since,
            }
        })
        .collect();
    if let Some(index) = index {
        index.finish();
    }
    let mut more = Vec::new();
    // `--since`: the other projects of a folder two projects share, with no session
    // since (helper-98 F1: shown as rows of their own, with their old verdicts)
    let mut more_older = Vec::new();
    for r in results.iter_mut() {
        let Some(rest) = r.rest.as_mut() else {
            continue;
        };
        warnings.append(&mut rest.warnings);
        // (each project's part of a shared folder on its own: one project seen since,
        // the other not, is one row and one "not seen since", helper-98 F3)
        for (s, before_since) in rest.more.drain(..) {
            match before_since {
                true => more_older.push(s),
                false => more.push(s),
            }
        }
    }

    // Project folders may hold a .mcp.json naming their servers: each, once, in the
    // order the sessions name their working directories (the servers of a project
    // share one).
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for cwd in results
        .iter()
        .filter_map(|r| r.rest.as_deref())
        .flat_map(|r| &r.mcp_json_cwds)
    {
        if seen.insert(cwd) {
            names.add_mcp_json(&Path::new(cwd).join(".mcp.json"));
        }
    }
    drop(seen);

    // Collected in place (the units' list becomes the servers' list): a second list of
    // 100,000 reports was a sixth of the scan's memory. A debug log's other servers go
    // last; the sort below orders them all.
    // `--since`: the servers with no session since, as a scan without it gives them: no
    // row of their own, but they count among the home's servers as a filter's left-out
    // servers do (below), so every server shown gets the answer the full scan gives it.
    let mut older: Vec<ServerReport> = Vec::new();
    if opts.since.is_some() {
        for r in results.iter_mut().filter(|r| r.before_since) {
            older.extend(r.server.take());
        }
        older.append(&mut more_older);
    }
    let mut all: Vec<ServerReport> = results.into_iter().filter_map(|r| r.server).collect();
    all.append(&mut more);
    for s in all.iter_mut().chain(&mut older) {
        assemble::name(s, &names);
    }
    // A printed form (`svc-[REDACTED:config]`) is matched as the names are printed:
    // knowing the values the configuration marks as secret, read first for it (and
    // kept: below). A real name needs none of them.
    // (`--match-project` too: `~/work/p-[REDACTED:config]`)
    let printed_given = [&opts.server, &opts.project]
        .into_iter()
        .flatten()
        .any(|g| select::is_printed_form(g));
    let secrets_read = (printed_given && !opts.no_redact).then(|| {
        secrets::collect(&secrets::Places {
            homes: opts.request.homes.clone(),
            projects: projects_here(&[], &all),
            managed_dir: opts.managed_dir.clone(),
            listed: true,
        })
    });
    let want = opts.server.as_deref().map(|given| {
        match &secrets_read {
            Some(secrets) => select::NameWant::knowing(given, secrets),
            None => select::NameWant::new(given),
        }
        // a server of exactly that name, logged or configured: the name, not its folder's
        .named_exactly_if_any(
            all.iter()
                .chain(&older)
                .map(|s| s.name.as_str())
                .chain(names.configured_names()),
        )
    });
    let project_want = opts.project.as_deref().map(|given| match &secrets_read {
        Some(secrets) => select::ProjectWant::knowing(given, secrets, home_of_screen()),
        None => select::ProjectWant::new(given),
    });
    let mut unfiltered_names: Vec<String> = Vec::new();
    if opts.server.is_some() || opts.project.is_some() {
        unfiltered_names = all.iter().map(|s| s.name.clone()).collect();
        unfiltered_names.sort();
        unfiltered_names.dedup();
    }
    let mut unfiltered_projects: Vec<String> = Vec::new();
    if opts.server.is_some() {
        let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for s in all
            .iter()
            .filter(|s| s.folder.is_some() && !keep(s, want.as_ref(), project_want.as_ref()))
        {
            if let Some(p) = s.project.as_deref()
                && seen.insert(p)
            {
                unfiltered_projects.push(p.to_string());
            }
        }
    }
    let not_since: Vec<NotSince> = if before_since.is_empty() {
        Vec::new()
    } else {
        let seen: std::collections::HashSet<&Path> =
            all.iter().map(|s| s.source.as_path()).collect();
        use rayon::prelude::*;
        before_since
            .into_par_iter()
            .filter(|(p, _, _)| !seen.contains(p.as_path()))
            .map(|(_, newest, mut n)| {
                // the records' time, as a row's LAST SEEN is (a copied or restored
                // file's mtime is another time); the mtime only when no record has one
                let (t, cwd) = read::last_record(&newest);
                if let Some(t) = t {
                    n.last_written = t;
                }
                // (a record naming another project than its folder's names none)
                n.project = cwd.filter(|c| {
                    n.project_folder
                        .as_deref()
                        .is_some_and(|f| crate::claude_code::names::encodes_to(c, f))
                });
                n
            })
            // `--match-project` keeps its own
            .filter(|n| {
                project_want
                    .as_ref()
                    .is_none_or(|w| w.selects(n.project.as_deref(), n.project_folder.as_deref()))
            })
            .collect()
    };
    // a project of a folder two projects write, with no session since beside the other
    // project's row: "not seen since" too (helper-98 F3: neither a row nor that; the
    // folder's own entry above gives way to the other project's row)
    let mut not_since = not_since;
    if opts.since.is_some() && !older.is_empty() {
        let rows: std::collections::HashSet<&Path> =
            all.iter().map(|s| s.source.as_path()).collect();
        not_since.extend(
            older
                .iter()
                .filter(|s| rows.contains(s.source.as_path()))
                .filter_map(|s| {
                    Some(NotSince {
                        project_folder: s.project_folder.clone(),
                        folder: s.folder.clone()?,
                        last_written: s.last_seen.as_deref().and_then(crate::time::parse_iso)?,
                        project: s.project.clone(),
                    })
                })
                .filter(|n| {
                    project_want.as_ref().is_none_or(|w| {
                        w.selects(n.project.as_deref(), n.project_folder.as_deref())
                    })
                }),
        );
    }
    let (mut servers, mut filtered_out): (Vec<ServerReport>, Vec<ServerReport>) =
        if want.is_some() || opts.project.is_some() {
            all.into_iter()
                .partition(|s| keep(s, want.as_ref(), project_want.as_ref()))
        } else {
            (all, Vec::new())
        };
    filtered_out.append(&mut older);
    for s in &mut filtered_out {
        s.left_out();
    }
    // Grouped by project, then by log tree (a project found in two trees is two groups,
    // not one list with each name twice), then by name.
    sort_servers(&mut servers);
    look_up_projects(&mut servers);
    // Nothing learns them under `--no-redact`: the configuration is not read for them.
    let secrets = if opts.no_redact {
        crate::redact::configured::ConfiguredSecrets::default()
    } else if let Some(secrets) = secrets_read {
        // the same projects: every server found, shown or left out by the filter
        secrets
    } else {
        // The projects of every server found, shown or left out by a filter, and every
        // project the homes list: a secret one of them configures is hidden whichever
        // servers this run shows.
        secrets::collect(&secrets::Places {
            homes: opts.request.homes.clone(),
            projects: projects_here(&servers, &filtered_out),
            managed_dir: opts.managed_dir.clone(),
            listed: true,
        })
    };
    if !opts.skip_evidence {
        let redactor = (!opts.no_redact).then(|| {
            let mut b = crate::redact::RedactorBuilder::new();
            b.learn_configured_secrets(&secrets);
            b.build()
        });
        stderr::attach(&mut servers, opts.stderr_tails, redactor.as_ref());
    }
    Ok(ScanReport {
        servers,
        // Not collapsed: `--verbose` lists every one; the binary groups them by kind.
        warnings,
        searched: found.searched,
        newest_log,
        unfiltered_names,
        unfiltered_projects,
        filtered_out,
        configured: Vec::new(),
        since: opts.since,
        not_since,
        homes: printed,
        secrets,
        fix_unlogged: Default::default(),
        machine_state: None,
        shown_by: None,
        // (the resolution reads the configuration)
        config_problem: None,
        by_name_only: want.as_ref().is_some_and(select::NameWant::is_by_name_only),
    })
}

/// The homes the commands printed about a scan carry ([`ScanReport::homes`]): `--home`'s;
/// for a scan of paths, the one home every log found lies in by its cache layout (a copy
/// of a home's cache named by its path: `mcplogs fix` and the check after it read that
/// home), unless it is this machine's, whose commands need no flag; none when the logs
/// lie in no home, or in several.
fn printed_homes(
    req: &crate::logs::discovery::Request,
    found: &discovery::Discovered,
) -> Vec<PathBuf> {
    if !req.homes.is_empty() || req.paths.is_empty() {
        return req.homes.clone();
    }
    let mut homes = found.server_dirs.iter().map(|d| d.home.as_ref());
    let Some(Some(first)) = homes.next() else {
        return Vec::new();
    };
    if !found.debug_logs.is_empty() || homes.any(|h| h != Some(first)) {
        return Vec::new();
    }
    let first = std::path::absolute(first).unwrap_or_else(|_| first.clone());
    let mine = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    let same = |a: &Path, b: &Path| {
        a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
    };
    if mine.as_deref().is_some_and(|m| same(m, &first)) {
        return Vec::new();
    }
    vec![first]
}

/// The project folders whose configuration holds the servers' secrets: the working
/// directory, and each project of the servers shown or left out by a filter that is a
/// folder here, once.
fn projects_here(servers: &[ServerReport], filtered_out: &[ServerReport]) -> Vec<PathBuf> {
    let cwd = std::env::current_dir().ok();
    let mut out: Vec<PathBuf> = cwd.iter().cloned().collect();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    // A filter's left-out servers have no `project_here` looked up: their folder is
    // looked at once a project.
    let shown = servers.iter().map(|s| (s, true));
    for (s, looked_up) in shown.chain(filtered_out.iter().map(|s| (s, false))) {
        let Some(p) = s.project.as_deref() else {
            continue;
        };
        if cwd.as_deref() == Some(Path::new(p)) || !seen.insert(p) {
            continue;
        }
        let here = if looked_up {
            s.project_here == Some(ProjectHere::Folder)
        } else {
            Path::new(p).is_dir()
        };
        if here {
            out.push(PathBuf::from(p));
        }
    }
    out
}

/// Each server's [`ProjectHere`], one look-up a project (the servers come grouped by
/// project: a run of equal projects shares the last answer).
fn look_up_projects(servers: &mut [ServerReport]) {
    let mut last: Option<(String, ProjectHere)> = None;
    for s in servers.iter_mut() {
        let here = match (&last, s.project.as_deref()) {
            (Some((p, h)), Some(q)) if p == q => *h,
            (_, q) => {
                let h = ProjectHere::of(q);
                if let Some(q) = q {
                    last = Some((q.to_string(), h));
                }
                h
            }
        };
        s.project_here = Some(here);
    }
}

/// Which working directories hold a `.mcp.json`, each looked at once for all the
/// servers of its project (the workers share it).
#[derive(Default)]
struct McpJsonSeen(std::sync::Mutex<std::collections::HashMap<String, bool>>);

impl McpJsonSeen {
    fn holds_one(&self, cwd: &str) -> bool {
        let lock = || self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&known) = lock().get(cwd) {
            return known;
        }
        // Not held while looking: two workers may both look, and agree.
        let holds = Path::new(cwd).join(".mcp.json").is_file();
        lock().insert(cwd.to_string(), holds);
        holds
    }
}

/// Sorts by project, log tree, name (case-insensitive), then source: a stable sort of
/// the servers' indexes (only the lowercase names are made; the other keys are borrowed),
/// then the servers moved into that order in place.
fn sort_servers(servers: &mut [ServerReport]) {
    let lower: Vec<String> = servers.par_iter().map(|s| s.name.to_lowercase()).collect();
    // Each server's log tree by its rank among the few trees scanned, found once: a
    // parent is found by parsing the path, and two paths compare component by component
    // (for the servers of one project, every component of two equal paths).
    let trees: Vec<Option<&std::path::Path>> = servers.par_iter().map(|s| s.log_tree()).collect();
    // The servers of a tree come together from discovery: the runs go first.
    let mut distinct = trees.clone();
    distinct.dedup();
    distinct.sort();
    distinct.dedup();
    let tree_rank: Vec<usize> = trees
        .iter()
        .map(|t| {
            distinct
                .binary_search(t)
                .expect("each tree is among the distinct")
        })
        .collect();
    let mut order: Vec<usize> = (0..servers.len()).collect();
    order.par_sort_by(|&a, &b| {
        let (x, y) = (&servers[a], &servers[b]);
        x.project
            .cmp(&y.project)
            .then_with(|| tree_rank[a].cmp(&tree_rank[b]))
            .then_with(|| lower[a].cmp(&lower[b]))
            .then_with(|| x.source.cmp(&y.source))
    });
    drop((lower, trees, distinct, tree_rank));
    // Position i receives the server at order[i]: follow each cycle once.
    const DONE: usize = usize::MAX;
    for i in 0..order.len() {
        if order[i] == DONE {
            continue;
        }
        let mut j = i;
        loop {
            let k = order[j];
            order[j] = DONE;
            if k == i {
                break;
            }
            servers.swap(j, k);
            j = k;
        }
    }
}

fn keep(
    s: &ServerReport,
    want: Option<&select::NameWant>,
    project: Option<&select::ProjectWant>,
) -> bool {
    want.is_none_or(|want| want.selects(&s.name, s.folder.as_deref()))
        && project.is_none_or(|p| p.selects(s.project.as_deref(), s.project_folder.as_deref()))
}

/// The folder a printed path's leading `~` stands for: the home folder, as the screen
/// writes it (the binary's `output::home`).
pub(crate) fn home_of_screen() -> Option<&'static str> {
    static HOME: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    HOME.get_or_init(|| directories::BaseDirs::new().map(|b| b.home_dir().display().to_string()))
        .as_deref()
}

/// Unless `--no-redact`, `scan` hides the secrets in every text it shows: names,
/// projects, folders, zod paths, filled fields, evidence messages and file paths,
/// warnings, searched roots (evidence holds server stderr, command lines and headers;
/// names and zod paths come from whoever wrote the logs). Home folders and user names
/// stay: on the user's own terminal they are the point.
#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str, project: Option<&str>, source: &str) -> ServerReport {
        ServerReport {
            project: project.map(str::to_string),
            ..ServerReport::of_one_session(
                name,
                PathBuf::from(source),
                Diagnosis::new(Verdict::Healthy),
            )
        }
    }

    #[test]
    fn servers_sort_as_by_their_cached_keys_stably() {
        // Every pattern of equal and unequal keys, duplicates (stability) included.
        let mut v = Vec::new();
        for i in 0..300usize {
            let project = ["/a", "/b", "/B"].get(i % 4).copied();
            let tree = ["/t1", "/t2"][i / 7 % 2];
            let name = ["Zeta", "alpha", "Alpha", "beta"][i * 7 % 4];
            let folder = ["x", "y"][i / 3 % 2];
            let mut s = server(name, project, &format!("{tree}/p/mcp-logs-{folder}"));
            s.sessions = i; // tells equal keys apart
            v.push(s);
        }
        let mut want = v.clone();
        want.sort_by_cached_key(|s| {
            (
                s.project.clone(),
                s.log_tree().map(Path::to_path_buf),
                s.name.to_lowercase(),
                s.source.clone(),
            )
        });
        sort_servers(&mut v);
        let ids = |v: &[ServerReport]| v.iter().map(|s| s.sessions).collect::<Vec<_>>();
        assert_eq!(ids(&v), ids(&want));
    }
}
