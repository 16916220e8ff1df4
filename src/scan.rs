//! `mcplogs scan`: discovery -> decoding -> sessions -> classification, per server.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::classify::{Decision, NewestFirst, decide};
use crate::decode;
use crate::discovery::{self, DiscoveryError, Request, ServerDir};
use crate::index::{FolderIndex, Reading};
use crate::names::{NameMap, claude_json_in};
use crate::record::{Level, Record};
use crate::session::{SessionGrouper, SessionLog};
use crate::time::EpochSeconds;
use crate::verdict::{Cause, Diagnosis, Verdict};
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
    /// The cache folder holding the summary index ([`crate::index`]); `None` reads every
    /// file it looks at (`--no-cache`, and library callers unless they ask).
    pub index: Option<PathBuf>,
    /// The caller shows no evidence (`prune`): a deciding session summarised in the
    /// index is not read again for its records.
    pub skip_evidence: bool,
}

/// After the files that decide a server's verdict, this many older files are read too
/// (when they exist), so that `history` and `failedSessions` show whether the verdict is
/// new. Files, not days: one file is one Claude Code process, and an image server's
/// files can be gigabytes each, so a window in days could mean reading everything.
pub const HISTORY_WINDOW_FILES: usize = 2;

/// One record shown as evidence for a verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    pub file: PathBuf,
    pub line: usize,
    pub timestamp: Option<String>,
    pub level: Level,
    pub message: String,
    /// The record's session (not shown; lets a reader find the session again).
    pub session_id: Option<String>,
}

impl From<&Record> for Evidence {
    fn from(r: &Record) -> Self {
        Evidence {
            file: r.file.to_path_buf(),
            line: r.line,
            timestamp: r.timestamp.clone(),
            level: r.level,
            message: r.message.clone(),
            session_id: r.session_id.clone(),
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
    /// The file holding the deciding session.
    pub deciding_file: Option<PathBuf>,
    /// Configured names (two or more) that all write into this server's log folder:
    /// their records are interleaved and nothing in them says which server wrote which,
    /// so the verdict belongs to the folder, not to one of the names.
    pub shared_by: Vec<String>,
    /// For a server the legacy setting would help: what its project's settings say now
    /// (set by [`crate::advice::attach`]; `None` until then).
    pub settings: Option<crate::advice::SettingsAdvice>,
}

impl ServerReport {
    pub fn recommendation(&self) -> String {
        // A shared folder's mixed records cannot back advice for one server.
        self.shared_note()
            .or_else(|| crate::advice::legacy_removed_note(self))
            .unwrap_or_else(|| {
                crate::advice::recommendation(&self.diagnosis, self.settings.as_ref())
            })
    }

    /// For a shared log folder: says so, and how to tell the servers apart.
    pub fn shared_note(&self) -> Option<String> {
        if self.shared_by.len() < 2 {
            return None;
        }
        Some(format!(
            "The configured servers {} all write into one log folder (mcp-logs-{}: Claude Code turns every character other than a letter or digit into '-'), with their records mixed, so this verdict is the folder's, not one server's. To tell them apart, rename one so the names differ in a letter or digit, or run `claude --debug-file FILE` and `mcplogs scan FILE` (debug logs name each server).",
            self.shared_by.join(", "),
            self.folder.as_deref().unwrap_or("?")
        ))
    }

    /// The log tree (the `claude-cli-nodejs` folder) the server's log folder sits in;
    /// `None` for a debug log. Two trees can hold the same project (a home and a copied
    /// cache, or two homes scanned at once): their rows are told apart by it.
    pub fn log_tree(&self) -> Option<&std::path::Path> {
        self.folder.as_ref()?;
        self.source.parent()?.parent()
    }

    /// Whether more than one configured server wrote this log folder.
    pub fn is_shared(&self) -> bool {
        self.shared_by.len() > 1
    }

    /// Whether writing the legacy fix can make this server work: the logs say the
    /// setting helps, and (once the settings are known) a file mcplogs may write wins
    /// and does not already hold `legacy`.
    pub fn legacy_fix_applies(&self) -> bool {
        !self.is_shared()
            && self.diagnosis.legacy_fix_applies()
            && self.settings.as_ref().is_none_or(|a| a.target.can_write())
    }
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
}

impl ScanReport {
    pub fn has_problems(&self) -> bool {
        self.servers
            .iter()
            .any(|s| s.diagnosis.verdict.is_problem())
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
    scan_with_progress(opts, &|_| {})
}

/// Scans with a progress callback, called from worker threads after each file.
pub fn scan_with_progress(
    opts: &ScanOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<ScanReport, DiscoveryError> {
    let found = discovery::discover(&opts.request)?;
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
            .filter_map(|f| mtime(f))
            .max()
    });
    units.retain_mut(|u| u.drop_files_before(opts.since, &mut warnings));
    let counter = ProgressCounter::new(&units);
    // Each server is folded into its summary where it was read: the sessions it read
    // (each with its evidence and capabilities) never pile up for the whole tree.
    let mut results: Vec<(Vec<Folded>, Vec<Warning>)> = units
        .into_par_iter()
        .map(|u| {
            let mut w = Vec::new();
            let window = if opts.no_history {
                0
            } else {
                HISTORY_WINDOW_FILES
            };
            let p = u.read(
                &ReadOptions {
                    since_iso: since_iso.as_deref(),
                    all: opts.all,
                    window,
                    index: opts.index.as_deref(),
                    evidence: !opts.skip_evidence,
                },
                &mut w,
                &|| progress(counter.file_done()),
                &|bytes| progress(counter.bytes_read(bytes)),
            );
            (p.into_iter().map(ServerInProgress::fold).collect(), w)
        })
        .collect();
    // The per-unit lists are kept as they came: each is freed as its servers become
    // reports, so the summaries and the reports are never both whole in memory.
    let mut servers_found = 0;
    for (p, w) in &mut results {
        servers_found += p.len();
        warnings.append(w);
    }

    // Project folders may hold a .mcp.json naming their servers: each working
    // directory is looked at once, in the order the sessions name them (the servers of
    // a project share one).
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for cwd in results.iter().flat_map(|(p, _)| p).flat_map(|p| &p.cwds) {
        if seen.insert(cwd) {
            let mcp = Path::new(cwd).join(".mcp.json");
            if mcp.is_file() {
                names.add_mcp_json(&mcp);
            }
        }
    }
    drop(seen);

    let mut all: Vec<ServerReport> = Vec::with_capacity(servers_found);
    for (p, _) in results {
        all.extend(
            p.into_iter()
                .filter(|p| p.sessions_read > 0)
                .map(|p| p.into_report(&names)),
        );
    }
    let mut unfiltered_names: Vec<String> = Vec::new();
    if opts.server.is_some() || opts.project.is_some() {
        unfiltered_names = all.iter().map(|s| s.name.clone()).collect();
        unfiltered_names.sort();
        unfiltered_names.dedup();
    }
    let mut servers = all;
    servers.retain(|s| keep(s, opts));
    // Grouped by project, then by log tree (a project found in two trees is two groups,
    // not one list with each name twice), then by name.
    sort_servers(&mut servers);
    Ok(ScanReport {
        servers,
        // Not collapsed: `--verbose` lists every one; the binary groups them by kind.
        warnings,
        searched: found.searched,
        newest_log,
        unfiltered_names,
    })
}

/// Sorts by project, log tree, name (case-insensitive), then source: a stable sort of
/// the servers' indexes (only the lowercase names are made; the other keys are borrowed),
/// then the servers moved into that order in place.
fn sort_servers(servers: &mut [ServerReport]) {
    let lower: Vec<String> = servers.iter().map(|s| s.name.to_lowercase()).collect();
    let mut order: Vec<usize> = (0..servers.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&servers[a], &servers[b]);
        x.project
            .cmp(&y.project)
            .then_with(|| x.log_tree().cmp(&y.log_tree()))
            .then_with(|| lower[a].cmp(&lower[b]))
            .then_with(|| x.source.cmp(&y.source))
    });
    drop(lower);
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

enum Unit {
    ServerDir(ServerDir),
    DebugLog(PathBuf),
}

impl Unit {
    fn files(&self) -> &[PathBuf] {
        match self {
            Unit::ServerDir(d) => &d.files,
            Unit::DebugLog(p) => std::slice::from_ref(p),
        }
    }

    /// `--since`: a file last written before the cut-off holds no session after it.
    /// Returns whether anything is left to read.
    fn drop_files_before(
        &mut self,
        since: Option<EpochSeconds>,
        warnings: &mut Vec<Warning>,
    ) -> bool {
        let Some(since) = since else { return true };
        let mut recent = |p: &PathBuf| match std::fs::metadata(p).and_then(|m| m.modified()) {
            Ok(t) => crate::time::system_time_secs(t) >= since,
            Err(e) => {
                warnings.push(Warning::new(p, format!("cannot read: {e}")));
                false
            }
        };
        match self {
            Unit::ServerDir(d) => {
                d.files.retain(|p| recent(p));
                true
            }
            Unit::DebugLog(p) => recent(p),
        }
    }

    fn read(
        self,
        o: &ReadOptions,
        warnings: &mut Vec<Warning>,
        file_done: &dyn Fn(),
        bytes_read: &dyn Fn(u64),
    ) -> Vec<ServerInProgress> {
        let since_iso = o.since_iso;
        let keep_session = |s: &SessionLog| match (since_iso, &s.last_timestamp) {
            (Some(cut), Some(last)) => last.as_str() >= cut,
            _ => true,
        };
        match self {
            Unit::ServerDir(dir) => {
                let mut index = o.index.and_then(|c| FolderIndex::load(c, &dir.path));
                let p = match read_dir(
                    &dir,
                    o,
                    index.as_mut(),
                    &keep_session,
                    file_done,
                    bytes_read,
                ) {
                    Ok((p, w)) => {
                        warnings.extend(w);
                        p
                    }
                    Err(Changed) => {
                        // A summarised file changed in a way its key did not show (only a
                        // write racing this scan can do that): read everything afresh,
                        // and forget the folder's summaries.
                        if let Some(mut i) = index.take() {
                            i.clear();
                            i.save(&dir.path);
                        }
                        let (p, w) = read_dir(&dir, o, None, &keep_session, file_done, bytes_read)
                            .unwrap_or_else(|Changed| unreachable!("no index, nothing cached"));
                        warnings.extend(w);
                        p
                    }
                };
                if let Some(index) = index {
                    index.save(&dir.path);
                }
                vec![p]
            }
            Unit::DebugLog(log) => {
                // One debug log covers every server of its session.
                let mut by_server: BTreeMap<String, SessionGrouper> = BTreeMap::new();
                decode_into(
                    &log,
                    warnings,
                    &mut |r| {
                        let name = r.server.clone().unwrap_or_default();
                        by_server.entry(name).or_default().push(r);
                    },
                    bytes_read,
                );
                file_done();
                by_server
                    .into_iter()
                    .map(|(name, g)| {
                        let sessions: Vec<SessionLog> =
                            g.finish().into_iter().filter(keep_session).collect();
                        ServerInProgress {
                            folder: None,
                            project_folder: None,
                            name: Some(name),
                            source: log.clone(),
                            session_files: sessions.len(),
                            files_read: 1,
                            sessions,
                        }
                    })
                    .collect()
            }
        }
    }
}

/// How a unit is read.
struct ReadOptions<'a> {
    since_iso: Option<&'a str>,
    all: bool,
    window: usize,
    index: Option<&'a Path>,
    /// The deciding session's evidence records are wanted (a summary has none).
    evidence: bool,
}

/// A file summarised in the index no longer matches its summary.
struct Changed;

/// One file's sessions, from the index when its summary matches, else read (and then
/// summarised). Returns whether they came from the index.
fn read_sessions(
    f: &Path,
    index: Option<&mut FolderIndex>,
    warnings: &mut Vec<Warning>,
    bytes_read: &dyn Fn(u64),
) -> (Vec<SessionLog>, bool) {
    if let Some(summary) = index.as_ref().and_then(|i| i.lookup(f)) {
        if let Some(d) = summary.damage {
            warnings.push(Warning::new(f, d));
        }
        return (summary.sessions, true);
    }
    let reading = index.as_ref().and_then(|_| Reading::start(f));
    let mut grouper = SessionGrouper::default();
    let outcome = decode_into(f, warnings, &mut |r| grouper.push(r), bytes_read);
    let sessions = grouper.finish();
    if let (Some(index), Some(reading), Some(damage)) = (index, reading, outcome) {
        index.store(f, reading, &sessions, damage.as_deref());
    }
    (sessions, false)
}

/// Reads a server folder newest first, one file at a time (a file is one process, and a
/// session never spans files), until the verdict is decided and the history window is
/// read. Sessions summarised in the index are taken from it; when the deciding one is,
/// and evidence is wanted, its file is read again for the records (and must still
/// summarise the same).
fn read_dir(
    dir: &ServerDir,
    o: &ReadOptions,
    mut index: Option<&mut FolderIndex>,
    keep_session: &dyn Fn(&SessionLog) -> bool,
    file_done: &dyn Fn(),
    bytes_read: &dyn Fn(u64),
) -> Result<(ServerInProgress, Vec<Warning>), Changed> {
    let mut warnings = Vec::new();
    // Newest first: (file, its sessions kept, whether from the index).
    let mut chunks: Vec<(&Path, Vec<SessionLog>, bool)> = Vec::new();
    let mut walk = NewestFirst::default();
    let mut decided_after: Option<usize> = None;
    for (read, f) in dir.files.iter().rev().enumerate() {
        let (sessions, cached) = read_sessions(f, index.as_deref_mut(), &mut warnings, bytes_read);
        file_done();
        let chunk: Vec<SessionLog> = sessions.into_iter().filter(|s| keep_session(s)).collect();
        if o.all {
            chunks.push((f, chunk, cached));
            continue;
        }
        for s in chunk.iter().rev() {
            walk.push(&s.diagnosis);
        }
        chunks.push((f, chunk, cached));
        if decided_after.is_none() && walk.decided().is_some() {
            decided_after = Some(read + 1);
        }
        if decided_after.is_some_and(|n| read + 1 >= n + o.window) {
            break;
        }
    }
    if o.evidence {
        // The deciding session, as `into_report` will pick it.
        let diagnoses: Vec<&Diagnosis> = chunks
            .iter()
            .rev()
            .flat_map(|c| c.1.iter().map(|s| &s.diagnosis))
            .collect();
        if let Decision::Session(mut i) = decide(&diagnoses, false) {
            let at = chunks.iter().rev().position(|c| {
                let n = c.1.len();
                if i < n {
                    true
                } else {
                    i -= n;
                    false
                }
            });
            let at = at.map(|k| chunks.len() - 1 - k);
            if let Some(k) = at.filter(|&k| chunks[k].2) {
                let f = chunks[k].0;
                let (fresh, _) = read_sessions(f, None, &mut Vec::new(), bytes_read);
                let fresh: Vec<SessionLog> =
                    fresh.into_iter().filter(|s| keep_session(s)).collect();
                if !same_summaries(&fresh, &chunks[k].1) {
                    return Err(Changed);
                }
                chunks[k].1 = fresh;
                chunks[k].2 = false;
            }
        }
    }
    let files_read = chunks.len();
    let sessions: Vec<SessionLog> = chunks.into_iter().rev().flat_map(|c| c.1).collect();
    Ok((
        ServerInProgress {
            source: dir.path.clone(),
            session_files: dir.files.len(),
            files_read,
            folder: Some(dir.folder.clone()),
            project_folder: dir.project_folder.clone(),
            name: None,
            sessions,
        },
        warnings,
    ))
}

/// Whether two readings of a file summarise it the same (evidence aside).
fn same_summaries(a: &[SessionLog], b: &[SessionLog]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.diagnosis == y.diagnosis
                && x.first_timestamp == y.first_timestamp
                && x.last_timestamp == y.last_timestamp
                && x.cwd == y.cwd
        })
}

fn mtime(p: &Path) -> Option<EpochSeconds> {
    let t = std::fs::metadata(p).and_then(|m| m.modified()).ok()?;
    Some(crate::time::system_time_secs(t))
}

fn file_len(p: &Path) -> u64 {
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}

/// Reads one file into `sink`; an unreadable or damaged file becomes one warning.
/// Returns the damage summary of a file read to its end (`None` when it could not be).
fn decode_into(
    f: &Path,
    warnings: &mut Vec<Warning>,
    sink: &mut dyn FnMut(Record),
    bytes_read: &dyn Fn(u64),
) -> Option<Option<String>> {
    match decode::decode_prefiltered_progress(f, sink, bytes_read) {
        Ok((_, damage)) => {
            let summary = damage.summary();
            if let Some(summary) = &summary {
                warnings.push(Warning::new(f, summary.clone()));
            }
            Some(summary)
        }
        Err(e) => {
            warnings.push(Warning::new(f, format!("cannot read: {e}")));
            None
        }
    }
}

struct ProgressCounter {
    files_total: u64,
    bytes_total: u64,
    files_done: AtomicU64,
    bytes_done: AtomicU64,
}

impl ProgressCounter {
    fn new(units: &[Unit]) -> Self {
        let files = units.iter().flat_map(|u| u.files());
        ProgressCounter {
            files_total: files.clone().count() as u64,
            bytes_total: files.map(|f| file_len(f)).sum(),
            files_done: AtomicU64::new(0),
            bytes_done: AtomicU64::new(0),
        }
    }

    fn file_done(&self) -> Progress {
        Progress {
            files_done: self.files_done.fetch_add(1, Ordering::Relaxed) + 1,
            files_total: self.files_total,
            bytes_done: self.bytes_done.load(Ordering::Relaxed),
            bytes_total: self.bytes_total,
        }
    }

    /// Called per block read, so progress moves within a large file.
    fn bytes_read(&self, bytes: u64) -> Progress {
        Progress {
            files_done: self.files_done.load(Ordering::Relaxed),
            files_total: self.files_total,
            bytes_done: (self.bytes_done.fetch_add(bytes, Ordering::Relaxed) + bytes)
                .min(self.bytes_total),
            bytes_total: self.bytes_total,
        }
    }
}

/// A server being assembled from its log files, before its verdict is picked.
struct ServerInProgress {
    /// The log folder's encoded server name and project folder (`None` for a debug log).
    folder: Option<String>,
    project_folder: Option<String>,
    name: Option<String>,
    source: PathBuf,
    /// Session files of the server (after `--since`), read or not.
    session_files: usize,
    files_read: usize,
    /// The sessions read, in time order.
    sessions: Vec<SessionLog>,
}

/// A server once read: what its report needs, without the sessions. Only the names
/// (known once every server is read, from the `.mcp.json` files their sessions' working
/// directories hold) are missing.
struct Folded {
    folder: Option<String>,
    project_folder: Option<String>,
    name: Option<String>,
    source: PathBuf,
    session_files: usize,
    files_read: usize,
    sessions_read: usize,
    failed_sessions: usize,
    /// The deciding session's diagnosis, evidence, last timestamp and file.
    decided: Option<(Diagnosis, Vec<Evidence>, Option<String>, PathBuf)>,
    latest_only_connected: bool,
    history: Vec<VerdictSeen>,
    /// The latest working directory recorded.
    cwd: Option<String>,
    /// Every working directory the sessions recorded, once each, in session order.
    cwds: Vec<String>,
}

impl ServerInProgress {
    fn fold(self) -> Folded {
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
    fn into_report(self, names: &NameMap) -> ServerReport {
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

/// Unless `--no-redact`, `scan` hides the secrets in every text it shows: names,
/// projects, folders, zod paths, filled fields, evidence messages and file paths,
/// warnings, searched roots (evidence holds server stderr, command lines and headers;
/// names and zod paths come from whoever wrote the logs). Home folders and user names
/// stay: on the user's own terminal they are the point.
pub fn redact_report(report: &mut ScanReport) {
    use crate::redact::output::{path, warning};
    // Learned from the texts where they are (a copy of every text would double the
    // memory of a scan of many servers).
    let mut b = crate::redact::RedactorBuilder::new();
    for s in &report.servers {
        b.learn_secrets(&s.name);
        for t in [&s.project, &s.folder, &s.diagnosis.bad_tool_path]
            .into_iter()
            .flatten()
        {
            b.learn_secrets(t);
        }
        b.learn_secrets(&s.source.to_string_lossy());
        for e in &s.evidence {
            b.learn_secrets(&e.message);
        }
    }
    let r = b.build();
    for s in &mut report.servers {
        r.apply(&mut s.name);
        for t in [&mut s.project, &mut s.folder, &mut s.project_folder]
            .into_iter()
            .flatten()
        {
            r.apply(t);
        }
        let d = &mut s.diagnosis;
        for t in d
            .bad_tool_path
            .iter_mut()
            .chain(d.negotiated_protocol_version.iter_mut())
            .chain(d.filled_fields.iter_mut())
        {
            r.apply(t);
        }
        path(&r, &mut s.source);
        for e in &mut s.evidence {
            r.apply(&mut e.message);
            path(&r, &mut e.file);
        }
    }
    for w in &mut report.warnings {
        warning(&r, w);
    }
    for p in &mut report.searched {
        path(&r, p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str, project: Option<&str>, source: &str) -> ServerReport {
        ServerReport {
            name: name.to_string(),
            folder: Some(name.to_string()),
            project: project.map(str::to_string),
            project_folder: None,
            source: PathBuf::from(source),
            diagnosis: Diagnosis::new(Verdict::Healthy),
            last_seen: None,
            sessions: 1,
            sessions_read: 1,
            files_read: 1,
            failed_sessions: 0,
            evidence: Vec::new(),
            history: Vec::new(),
            latest_only_connected: false,
            deciding_file: None,
            shared_by: Vec::new(),
            settings: None,
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
