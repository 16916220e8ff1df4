//! Assembling a server from its sessions: which session decides, the history kept, and the
//! fold into what the report needs once the sessions are dropped.

use std::path::PathBuf;

use super::*;
use crate::classify::verdict::{Diagnosis, Verdict};
use crate::classify::{Decision, decide};
use crate::claude_code::names::NameMap;
use crate::logs::session::SessionLog;

/// A server being assembled from its log files, before its verdict is picked.
pub(super) struct ServerInProgress {
    /// The log folder's encoded server name and project folder (`None` for a debug log).
    pub(super) folder: Option<String>,
    pub(super) project_folder: Option<String>,
    pub(super) name: Option<String>,
    pub(super) source: PathBuf,
    /// Session files of the server (after `--since`), read or not.
    pub(super) session_files: usize,
    pub(super) files_read: usize,
    /// The sessions read, in time order.
    pub(super) sessions: Vec<SessionLog>,
    /// The stderr records of the files read, taken as they were read (when the tails
    /// are wanted, [`ReadOptions::stderr`](super::read::ReadOptions)).
    pub(super) stderr: Option<Vec<(PathBuf, super::stderr::Captured)>>,
    /// `--since`: none of its sessions is since the cut-off, and these are the newest
    /// sessions read without it, for the state a scan without `--since` gives it
    /// ([`super::read::Unit::SinceDir`]).
    pub(super) before_since: bool,
}

impl ServerInProgress {
    /// The server's report, made where it was read (so the sessions it read never pile
    /// up for the whole tree), with the working directories its sessions recorded.
    /// Only its name waits for [`name`], which needs every project's `.mcp.json`.
    pub(super) fn fold(mut self, tails: StderrTails) -> (ServerReport, Vec<String>) {
        let diagnoses: Vec<&Diagnosis> = self.sessions.iter().map(|s| &s.diagnosis).collect();
        // The window read was enough to decide (that is where reading stopped), so this
        // is the session a reading of every file would pick.
        let chosen = match decide(&diagnoses, false) {
            Decision::Session(i) => Some(i),
            Decision::NeedOlder | Decision::NoSessions => None,
        };
        let latest = diagnoses
            .iter()
            .rposition(|d| d.verdict != Verdict::Unknown);
        let latest_only_connected = matches!((chosen, latest), (Some(c), Some(l)) if c < l)
            && chosen.is_some_and(|c| diagnoses[c].verdict != Verdict::Healthy);
        // (kept only when it is not the deciding session, which the report holds
        // already: [`ServerReport::newest_session`]; a box on each of 100,000 servers
        // was 10 MB of a scan's peak)
        let newest = self.sessions.len().checked_sub(1);
        let latest_session = self.sessions.last().filter(|_| chosen != newest).map(|s| {
            Box::new(LatestSession {
                id: (!s.id.is_empty()).then(|| std::sync::Arc::from(s.id.as_str())),
                started: super::process_start(&s.file).map(|t| t.max(0) as u64),
            })
        });
        let failed_sessions = diagnoses.iter().filter(|d| d.verdict.is_problem()).count();

        let mut history: Vec<VerdictSeen> = Vec::new();
        for s in &self.sessions {
            let d = &s.diagnosis;
            let last = s.last_timestamp.clone();
            match history
                .iter_mut()
                .find(|h| h.verdict == d.verdict && h.cause == d.cause)
            {
                Some(h) => {
                    h.sessions += 1;
                    if last > h.last_seen {
                        h.last_seen = last;
                    }
                }
                None => history.push(VerdictSeen {
                    verdict: d.verdict,
                    cause: d.cause,
                    sessions: 1,
                    last_seen: last,
                }),
            }
        }

        let mut cwds: Vec<String> = Vec::new();
        for c in self.sessions.iter().filter_map(|s| s.cwd.as_ref()) {
            if !cwds.contains(c) {
                cwds.push(c.clone());
            }
        }
        // The project: the latest working directory its folder is the log folder of (a
        // session whose directory moved into a subfolder names the subfolder last,
        // whose settings are not the project's: helper-98 F4); none such (logs moved
        // under another folder's name), the latest working directory.
        let project_folder = self.project_folder.as_deref();
        let latest = || self.sessions.iter().rev().filter_map(|s| s.cwd.as_deref());
        let cwd = project_folder
            .and_then(|f| latest().find_map(|c| crate::claude_code::names::project_in(c, f)))
            .or_else(|| latest().next())
            .map(str::to_string);
        history.shrink_to_fit();
        let sessions_read = self.sessions.len();
        // The deciding session's stderr records, for a server whose tail is shown
        // (`stderr::attach`): those of the session of its last evidence record, as
        // `stderr::server_stderr` finds them.
        let stderr_context = chosen.and_then(|i| {
            let session = &self.sessions[i];
            let wanted = match tails {
                StderrTails::Failing => session.diagnosis.verdict.is_problem(),
                StderrTails::ConnectionFailures => {
                    session.diagnosis.verdict == Verdict::ConnectionFailed
                }
                StderrTails::Report => session.diagnosis.verdict.is_problem(),
                StderrTails::Skip => false,
            };
            let files = self.stderr.as_mut().filter(|_| wanted)?;
            let Some(last) = session.evidence.last() else {
                return Some(super::stderr::Context::default());
            };
            let (_, captured) = files.iter_mut().find(|(f, _)| *f == *last.file)?;
            let context = captured.take(last.session_id.as_deref());
            // `report` shows no tail: only its own records are kept.
            Some(match tails {
                StderrTails::Report => context.only_report(),
                _ => context,
            })
        });
        drop(self.stderr.take());
        let decided = chosen.map(|i| {
            let mut session = self
                .sessions
                .into_iter()
                .nth(i)
                .expect("chosen is an index");
            // The connection's capabilities decided the verdict already and no output
            // shows them: kept for each of 100,000 servers they were a third of the
            // scan's memory.
            session.diagnosis.capabilities = None;
            // Nor the indexes of its evidence records: the records are `evidence` now.
            session.diagnosis.evidence = Vec::new();
            let evidence: Vec<Evidence> = evidence_of(&session.evidence);
            // The evidence records' path when it is the file's (it always is; a copy
            // of it for each of 100,000 servers was 19 MB).
            let file = match evidence.first() {
                Some(e) if *e.file == session.file => std::sync::Arc::clone(&e.file),
                _ => std::sync::Arc::new(session.file),
            };
            (session.diagnosis, evidence, session.last_timestamp, file)
        });
        let (diagnosis, evidence, last_seen, deciding_file) = match decided {
            Some((d, e, last, file)) => (d, e, last, Some(file)),
            None => (Diagnosis::new(Verdict::Unknown), Vec::new(), None, None),
        };
        let name = match (self.name, &self.folder) {
            (Some(n), _) => n,
            // Named by `name` from the folder.
            (None, Some(_)) => String::new(),
            (None, None) => "unknown".to_string(),
        };
        let report = ServerReport {
            name,
            folder: self.folder,
            // The latest working directory; else `name` takes it from the configuration.
            project: cwd,
            project_folder: self.project_folder,
            source: self.source,
            failed_sessions,
            sessions: self.session_files,
            sessions_read,
            files_read: self.files_read,
            diagnosis,
            last_seen,
            evidence,
            history,
            latest_only_connected,
            latest_session,
            deciding_file,
            shared_by: Vec::new(),
            settings: None,
            configuration: super::configured::Configuration::default(),
            stderr_tail: Vec::new(),
            stderr_context,
            launch: None,
            project_here: None,
            fix: None,
            discovery_cache: None,
            as_read: None,
        };
        (report, cwds)
    }
}

/// Finishes a report made by `ServerInProgress::fold` once `names` knows every
/// configuration: a log folder's server is named by the configuration (or its folder),
/// and a project with no working directory recorded gets the configured path.
pub fn name(s: &mut ServerReport, names: &NameMap) {
    let Some(folder) = &s.folder else { return };
    let project_folder = s.project_folder.as_deref();
    let (name, shared_by) = names.name_of(folder, project_folder);
    s.name = name;
    if !shared_by.is_empty() {
        s.shared_by = shared_by;
    }
    if s.project.is_none() {
        s.project = project_folder
            .and_then(|f| names.project(f))
            .map(str::to_string)
            .or_else(|| s.project_folder.clone());
    }
}

/// A session's records as evidence, their session id shared: one session's records
/// almost always name the same one.
fn evidence_of(records: &[crate::logs::record::Record]) -> Vec<Evidence> {
    let mut last: Option<std::sync::Arc<str>> = None;
    records
        .iter()
        .map(|r| {
            let session_id = r.session_id.as_deref().map(|id| match &last {
                Some(l) if **l == *id => std::sync::Arc::clone(l),
                _ => {
                    let new: std::sync::Arc<str> = id.into();
                    last = Some(std::sync::Arc::clone(&new));
                    new
                }
            });
            Evidence::with_session(r, session_id)
        })
        .collect()
}
