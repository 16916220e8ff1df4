//! `mcplogs scan`: discovery -> decoding -> sessions -> classification, per server.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::classify::{classify, pick_deciding_session};
use crate::decode::{self, DecodedFile};
use crate::discovery::{self, DiscoveryError, Request, ServerDir};
use crate::names::{NameMap, claude_json_in};
use crate::record::{Level, Record};
use crate::session::{SessionLog, group_sessions};
use crate::verdict::{Cause, Diagnosis, Verdict};
use crate::warning::Warning;

#[derive(Debug, Default, Clone)]
pub struct ScanOptions {
    pub request: Request,
    /// Keep only servers with this name (configured or folder name, case-insensitive).
    pub server: Option<String>,
    /// Keep only servers whose project path or folder contains this.
    pub project: Option<String>,
}

/// One record shown as evidence for a verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    pub file: PathBuf,
    pub line: usize,
    pub timestamp: Option<String>,
    pub level: Level,
    pub message: String,
}

impl From<&Record> for Evidence {
    fn from(r: &Record) -> Self {
        Evidence {
            file: r.file.to_path_buf(),
            line: r.line,
            timestamp: r.timestamp.clone(),
            level: r.level,
            message: r.message.clone(),
        }
    }
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
    pub diagnosis: Diagnosis,
    pub last_seen: Option<String>,
    pub sessions: usize,
    pub failed_sessions: usize,
    pub evidence: Vec<Evidence>,
    pub history: Vec<VerdictSeen>,
}

impl ServerReport {
    pub fn recommendation(&self) -> String {
        self.diagnosis.recommendation()
    }
}

#[derive(Debug, Default, Clone)]
pub struct ScanReport {
    pub servers: Vec<ServerReport>,
    pub warnings: Vec<Warning>,
    /// The roots and paths that were searched.
    pub searched: Vec<PathBuf>,
}

impl ScanReport {
    pub fn has_problems(&self) -> bool {
        self.servers
            .iter()
            .any(|s| s.diagnosis.verdict.is_problem())
    }
}

pub fn scan(opts: &ScanOptions) -> Result<ScanReport, DiscoveryError> {
    let found = discovery::discover(&opts.request)?;
    let mut warnings = found.warnings;
    let mut names = NameMap::default();
    for home in &found.homes {
        names.add_claude_json(&claude_json_in(home));
    }

    let mut pending: Vec<Pending> = Vec::new();
    for dir in &found.server_dirs {
        let records = decode_all(&dir.files, &mut warnings);
        pending.push(Pending {
            dir: Some(dir.clone()),
            name: None,
            source: dir.path.clone(),
            sessions: group_sessions(records),
        });
    }
    for log in &found.debug_logs {
        let records = decode_all(std::slice::from_ref(log), &mut warnings);
        // One debug log covers every server of its session.
        let mut by_server: BTreeMap<String, Vec<Record>> = BTreeMap::new();
        for r in records {
            let name = r.server.clone().unwrap_or_default();
            by_server.entry(name).or_default().push(r);
        }
        for (name, records) in by_server {
            pending.push(Pending {
                dir: None,
                name: Some(name),
                source: log.clone(),
                sessions: group_sessions(records),
            });
        }
    }

    // Project folders may hold a .mcp.json naming their servers.
    for p in &pending {
        for s in &p.sessions {
            if let Some(cwd) = s.cwd() {
                let mcp = Path::new(cwd).join(".mcp.json");
                if mcp.is_file() {
                    names.add_mcp_json(&mcp);
                }
            }
        }
    }

    let mut servers: Vec<ServerReport> = pending
        .into_iter()
        .map(|p| p.into_report(&names))
        .filter(|s| keep(s, opts))
        .collect();
    servers.sort_by_cached_key(|s| (s.project.clone(), s.name.to_lowercase(), s.source.clone()));
    Ok(ScanReport {
        servers,
        warnings,
        searched: found.searched,
    })
}

struct Pending {
    dir: Option<ServerDir>,
    name: Option<String>,
    source: PathBuf,
    sessions: Vec<SessionLog>,
}

impl Pending {
    fn into_report(self, names: &NameMap) -> ServerReport {
        let diagnoses: Vec<Diagnosis> = self
            .sessions
            .iter()
            .map(|s| classify(&s.messages()))
            .collect();
        let chosen = pick_deciding_session(&diagnoses);

        let (diagnosis, evidence, last_seen) = match chosen {
            Some(i) => {
                let session = &self.sessions[i];
                let d = diagnoses[i].clone();
                let evidence: Vec<Evidence> = if d.evidence.is_empty() {
                    session
                        .records
                        .last()
                        .map(Evidence::from)
                        .into_iter()
                        .collect()
                } else {
                    d.evidence
                        .iter()
                        .map(|&j| Evidence::from(&session.records[j]))
                        .collect()
                };
                (d, evidence, session.last_timestamp().map(str::to_string))
            }
            None => (Diagnosis::new(Verdict::Unknown), Vec::new(), None),
        };

        let mut history: Vec<VerdictSeen> = Vec::new();
        for (s, d) in self.sessions.iter().zip(&diagnoses) {
            let last = s.last_timestamp().map(str::to_string);
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

        let cwd = self
            .sessions
            .iter()
            .rev()
            .find_map(|s| s.cwd())
            .map(str::to_string);
        let folder = self.dir.as_ref().map(|d| d.folder.clone());
        let project_folder = self.dir.as_ref().and_then(|d| d.project_folder.clone());
        let name = match (&self.name, &folder) {
            (Some(n), _) => n.clone(),
            (None, Some(f)) => names.server(f).unwrap_or(f).to_string(),
            (None, None) => "unknown".to_string(),
        };
        let project = cwd
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
            failed_sessions: diagnoses.iter().filter(|d| d.verdict.is_problem()).count(),
            sessions: self.sessions.len(),
            diagnosis,
            last_seen,
            evidence,
            history,
        }
    }
}

fn keep(s: &ServerReport, opts: &ScanOptions) -> bool {
    if let Some(want) = &opts.server {
        let matches = s.name.eq_ignore_ascii_case(want)
            || s.folder.as_deref().is_some_and(|f| {
                f.eq_ignore_ascii_case(want)
                    || f.eq_ignore_ascii_case(&crate::names::encode_folder_name(want))
            });
        if !matches {
            return false;
        }
    }
    if let Some(sub) = &opts.project {
        let sub = sub.to_lowercase();
        let hit = s
            .project
            .as_deref()
            .is_some_and(|p| p.to_lowercase().contains(&sub))
            || s.project_folder
                .as_deref()
                .is_some_and(|f| f.to_lowercase().contains(&sub));
        if !hit {
            return false;
        }
    }
    true
}

/// Decodes files in order; unreadable or damaged files become one warning each.
fn decode_all(files: &[PathBuf], warnings: &mut Vec<Warning>) -> Vec<Record> {
    let mut records = Vec::new();
    for f in files {
        match decode::decode_file(f) {
            Ok(DecodedFile {
                records: mut r,
                damage,
                ..
            }) => {
                if let Some(summary) = damage.summary() {
                    warnings.push(Warning::new(f, summary));
                }
                records.append(&mut r);
            }
            Err(e) => warnings.push(Warning::new(f, format!("cannot read: {e}"))),
        }
    }
    records
}
