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
}

/// A server once read: what its report needs, without the sessions. Only the names
/// (known once every server is read, from the `.mcp.json` files their sessions' working
/// directories hold) are missing.
pub(super) struct Folded {
    pub(super) folder: Option<String>,
    pub(super) project_folder: Option<String>,
    pub(super) name: Option<String>,
    pub(super) source: PathBuf,
    pub(super) session_files: usize,
    pub(super) files_read: usize,
    pub(super) sessions_read: usize,
    pub(super) failed_sessions: usize,
    /// The deciding session's diagnosis, evidence, last timestamp and file.
    pub(super) decided: Option<(Diagnosis, Vec<Evidence>, Option<String>, PathBuf)>,
    pub(super) latest_only_connected: bool,
    pub(super) history: Vec<VerdictSeen>,
    /// The latest working directory recorded.
    pub(super) cwd: Option<String>,
    /// Every working directory the sessions recorded, once each, in session order.
    pub(super) cwds: Vec<String>,
}

impl ServerInProgress {
    pub(super) fn fold(self) -> Folded {
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
        let cwd = self.sessions.iter().rev().find_map(|s| s.cwd.clone());
        history.shrink_to_fit();
        let sessions_read = self.sessions.len();
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
            (
                session.diagnosis,
                session.evidence.iter().map(Evidence::from).collect(),
                session.last_timestamp,
                session.file,
            )
        });
        Folded {
            folder: self.folder,
            project_folder: self.project_folder,
            name: self.name,
            source: self.source,
            session_files: self.session_files,
            files_read: self.files_read,
            sessions_read,
            failed_sessions,
            decided,
            latest_only_connected,
            history,
            cwd,
            cwds,
        }
    }
}

impl Folded {
    pub(super) fn into_report(self, names: &NameMap) -> ServerReport {
        let (diagnosis, evidence, last_seen, deciding_file) = match self.decided {
            Some((d, e, last, file)) => (d, e, last, Some(file)),
            None => (Diagnosis::new(Verdict::Unknown), Vec::new(), None, None),
        };
        let folder = self.folder;
        let project_folder = self.project_folder;
        let shared_by = match (&self.name, &folder) {
            (None, Some(f)) => {
                let sharing = names.sharing(f, project_folder.as_deref());
                if sharing.len() > 1 {
                    sharing
                } else {
                    Vec::new()
                }
            }
            _ => Vec::new(),
        };
        let name = match (&self.name, &folder) {
            (Some(n), _) => n.clone(),
            // Never attribute a shared folder's verdict silently to one of its names.
            (None, Some(_)) if !shared_by.is_empty() => shared_by.join(" + "),
            (None, Some(f)) => names.server(f).unwrap_or(f).to_string(),
            (None, None) => "unknown".to_string(),
        };
        let project = self
            .cwd
            .or_else(|| {
                project_folder
                    .as_deref()
                    .and_then(|f| names.project(f))
                    .map(str::to_string)
            })
            .or_else(|| project_folder.clone());

        ServerReport {
            name,
            folder,
            project,
            project_folder,
            source: self.source,
            failed_sessions: self.failed_sessions,
            sessions: self.session_files,
            sessions_read: self.sessions_read,
            files_read: self.files_read,
            diagnosis,
            last_seen,
            evidence,
            history: self.history,
            latest_only_connected: self.latest_only_connected,
            deciding_file,
            shared_by,
            settings: None,
            configuration: super::configured::Configuration::default(),
        }
    }
}
