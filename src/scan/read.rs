//! Reading one unit (a server's log folder or a debug log): the files to read, the summary
//! cache for the unchanged ones, decoding into sessions, and the progress counter.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicU64, Ordering};

use super::assemble::ServerInProgress;
use super::*;
use crate::classify::verdict::Diagnosis;
use crate::classify::{Decision, NewestFirst, decide};
use crate::logs::decode;
use crate::logs::discovery::ServerDir;
use crate::logs::record::RecordRef;
use crate::logs::session::{SessionGrouper, SessionLog};
use crate::safe_read::{self, OpenFolder};
use crate::scan::cache::{FolderIndex, Reading};
use crate::time::EpochSeconds;
use crate::warning::Warning;
use std::ffi::OsStr;

pub(super) enum Unit {
    ServerDir(ServerDir),
    /// `--since`: a server folder with only its files written since the cut-off, and
    /// the names of all its files: when none of its sessions is recent, those are read
    /// for the state a scan without `--since` gives it (no row of its own; it counts
    /// among the home's servers, as a filter's left-out servers do).
    SinceDir(ServerDir, Vec<Box<std::ffi::OsStr>>),
    DebugLog(PathBuf),
}

impl Unit {
    pub(super) fn files(&self) -> impl Iterator<Item = PathBuf> + '_ {
        let (dir, log) = match self {
            Unit::ServerDir(d) | Unit::SinceDir(d, _) => (Some(d), None),
            Unit::DebugLog(p) => (None, Some(p.clone())),
        };
        dir.into_iter().flat_map(ServerDir::files).chain(log)
    }

    /// The server folder (or log file named alone) the summary index keeps this unit
    /// under; `None` for a debug log (not indexed).
    pub(super) fn folder(&self) -> Option<&Path> {
        match self {
            Unit::ServerDir(d) | Unit::SinceDir(d, _) => Some(&d.path),
            Unit::DebugLog(_) => None,
        }
    }

    fn file_count(&self) -> usize {
        match self {
            Unit::ServerDir(d) | Unit::SinceDir(d, _) => d.file_names.len(),
            Unit::DebugLog(_) => 1,
        }
    }

    /// `--since`: a file last written before the cut-off holds no session after it.
    /// Returns whether anything is left to read. With `whole`, a server folder keeps the
    /// names of all its files ([`Unit::SinceDir`]): a scan of a home, whose servers'
    /// states count over the home's servers.
    pub(super) fn drop_files_before(
        &mut self,
        since: Option<EpochSeconds>,
        whole: bool,
        warnings: &mut Vec<Warning>,
    ) -> bool {
        let Some(since) = since else { return true };
        let mut recent = |p: &Path| match std::fs::metadata(p).and_then(|m| m.modified()) {
            Ok(t) => crate::time::system_time_secs(t) >= since,
            Err(e) => {
                warnings.push(Warning::new(p, format!("cannot read: {e}")));
                false
            }
        };
        match std::mem::replace(self, Unit::DebugLog(PathBuf::new())) {
            Unit::ServerDir(mut d) | Unit::SinceDir(mut d, _) => {
                let path = &d.path;
                // (the recent names copied, not all of them: they are the fewer)
                let since: Vec<Box<std::ffi::OsStr>> = d
                    .file_names
                    .iter()
                    .filter(|n| recent(&crate::logs::discovery::file_in(path, n)))
                    .cloned()
                    .collect();
                let all = std::mem::replace(&mut d.file_names, since);
                *self = match whole.then_some(all) {
                    Some(all) => Unit::SinceDir(d, all),
                    None => Unit::ServerDir(d),
                };
                true
            }
            Unit::DebugLog(p) => {
                let keep = recent(&p);
                *self = Unit::DebugLog(p);
                keep
            }
        }
    }

    pub(super) fn read(
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
        let (mut dir, all) = match self {
            Unit::ServerDir(d) => (d, None),
            Unit::SinceDir(d, all) => (d, Some(all)),
            Unit::DebugLog(log) => {
                return read_debug_log(log, warnings, &keep_session, file_done, bytes_read);
            }
        };
        let mut index = o.index.and_then(|c| FolderIndex::load(c, &dir.path));
        // Listed here: its files are opened through the folder the listing opened.
        let mut folder = None;
        if !dir.listed {
            // Found, not listed (a scan with the index): the listing the index
            // keeps, when the folder is unchanged, else listed now (and kept).
            match index.as_ref().and_then(|i| i.listing(&dir.path)) {
                Some(names) => {
                    dir.file_names = names;
                    dir.listed = true;
                }
                None => {
                    let before = index
                        .as_ref()
                        .and_then(|_| Reading::start_folder(&dir.path));
                    let mut listing = Vec::new();
                    folder = dir.list_open(&mut listing);
                    if let Some(i) = index.as_mut() {
                        i.keep_listing(before.filter(|_| listing.is_empty()), &dir.file_names);
                    }
                    warnings.extend(listing);
                }
            }
        }
        let mut p = read_dir_or_afresh(
            (&dir, folder.as_ref()),
            o,
            &mut index,
            &keep_session,
            warnings,
            file_done,
            bytes_read,
        );
        let mut all = all;
        if p.sessions.is_empty()
            && let Some(all) = all.take()
        {
            // `--since`, and no session since: the verdict a scan without it gives the
            // server, decided as cheaply as it can be (no evidence, no stderr, no
            // history), for what counts over a home's servers. Not counted as progress
            // (the progress counted the files since the cut-off); what is wrong in the
            // files before the cut-off is not this scan's to say.
            dir.file_names = all;
            p = read_again((&dir, folder.as_ref()), &whole_of(o), &mut index, &|_| true);
            p.before_since = true;
        }
        let parts = by_project(
            p,
            (&dir, folder.as_ref()),
            all,
            o,
            &mut index,
            &keep_session,
        );
        if let Some(index) = index {
            index.save(o.index.expect("an index was loaded"), &dir.path);
        }
        parts
    }
}

/// `p`, the reading of a server folder, as one reading per project that writes the
/// folder: two projects whose paths differ only where the encoding loses it (`my_app`,
/// `my-app`) write one log folder, and each project's sessions are a server of their
/// own, read and decided apart (helper-95 #1: the one row took the other project's name,
/// and `fix` wrote into the other project's settings). The projects are found in every
/// file of the folder (those read to decide may not hold each: helper-98 F2), when the
/// sessions read name two, or when two known projects write the folder; `p` alone for a
/// folder of one project (nearly always).
fn by_project(
    p: ServerInProgress,
    (dir, folder): (&ServerDir, Option<&OpenFolder>),
    all: Option<Vec<Box<std::ffi::OsStr>>>,
    o: &ReadOptions,
    index: &mut Option<FolderIndex>,
    keep_session: &dyn Fn(&SessionLog) -> bool,
) -> Vec<ServerInProgress> {
    let project_folder = dir.project_folder.as_deref();
    let shared = o
        .shared_projects
        .zip(project_folder)
        .is_some_and(|(s, f)| s.contains(f));
    if !shared && projects_sharing(&p.sessions, project_folder).is_none() {
        return vec![p];
    }
    // (`--since` with no session since: each project's state without it, as `p`'s)
    let (opts, keep): (ReadOptions, &dyn Fn(&SessionLog) -> bool) = match p.before_since {
        true => (whole_of(o), &|_| true),
        false => (*o, keep_session),
    };
    let every = ReadOptions {
        all: true,
        window: 0,
        evidence: false,
        stderr: false,
        report_stderr: false,
        ..opts
    };
    // every session, also those before `--since`: a project of the folder with none
    // since is "not seen since" as a folder of its own would be (helper-98 F3: it was
    // neither a row nor that)
    // (`--since`: the folder's every file, not those since)
    let whole = all.map(|names| ServerDir {
        file_names: names,
        ..dir.clone()
    });
    let whole = whole.as_ref().unwrap_or(dir);
    let every = read_again((whole, folder), &every, index, &|_| true);
    let Some(keys) = projects_sharing(&every.sessions, project_folder) else {
        return vec![p];
    };
    keys.iter()
        .map(|key| {
            let own = |s: &SessionLog| keep(s) && key_of(s, &keys) == *key;
            let mut q = read_again((dir, folder), &opts, index, &own);
            q.before_since = p.before_since;
            if q.sessions.is_empty() && !p.before_since {
                // `--since`, and none of this project's sessions since: its state
                // without it, as a folder with no session since gets
                let all_own = |s: &SessionLog| key_of(s, &keys) == *key;
                q = read_again((whole, folder), &whole_of(o), index, &all_own);
                q.before_since = true;
            }
            let counted = |s: &SessionLog| q.before_since || keep(s);
            // its own files, not the folder's (helper-98 F7)
            let mut files: Vec<&Path> = every
                .sessions
                .iter()
                .filter(|s| key_of(s, &keys) == *key && counted(s))
                .map(|s| s.file.as_path())
                .collect();
            files.sort_unstable();
            files.dedup();
            q.session_files = files.len();
            q
        })
        .collect()
}

/// [`read_dir_or_afresh`] of a folder read once already: its files counted as progress
/// and its warnings said by that first reading.
fn read_again(
    dir: (&ServerDir, Option<&OpenFolder>),
    o: &ReadOptions,
    index: &mut Option<FolderIndex>,
    keep_session: &dyn Fn(&SessionLog) -> bool,
) -> ServerInProgress {
    read_dir_or_afresh(
        dir,
        o,
        index,
        keep_session,
        &mut Vec::new(),
        &|| {},
        &|_| {},
    )
}

/// The options of a reading of a server folder for the state a scan without `--since`
/// gives it (as cheap as it can be: no evidence, no stderr, no history).
fn whole_of<'a>(o: &ReadOptions<'a>) -> ReadOptions<'a> {
    ReadOptions {
        since_iso: None,
        all: false,
        window: 0,
        evidence: false,
        stderr: false,
        report_stderr: false,
        ..*o
    }
}

/// The projects whose sessions a server folder of project folder `project_folder`
/// holds, when there are several: the projects of the working directories its sessions
/// recorded ([`crate::claude_code::names::project_in`]; a session that recorded none, or
/// one in no such project, is the folder's latest project's), newest first. `None` for
/// one project (nearly always).
fn projects_sharing(sessions: &[SessionLog], project_folder: Option<&str>) -> Option<Vec<String>> {
    let project_folder = project_folder?;
    let mut cwds: Vec<&str> = Vec::new();
    for cwd in sessions.iter().rev().filter_map(|s| s.cwd.as_deref()) {
        if !cwds.contains(&cwd) {
            cwds.push(cwd);
        }
    }
    // (one working directory, nearly always: nothing encoded)
    if cwds.len() < 2 {
        return None;
    }
    let mut keys: Vec<String> = Vec::new();
    for c in cwds {
        if let Some(p) = crate::claude_code::names::project_in(c, project_folder)
            && !keys.iter().any(|k| k == p)
        {
            keys.push(p.to_string());
        }
    }
    (keys.len() > 1).then_some(keys)
}

/// The project of `projects_sharing`'s `keys` a session is read with: its working
/// directory when it is one of them, else the newest (a session that recorded none, or
/// another, goes where the folder's latest project is; one in a project's subfolder is
/// that project's).
fn key_of<'k>(s: &SessionLog, keys: &'k [String]) -> &'k str {
    s.cwd
        .as_deref()
        .and_then(|c| keys.iter().find(|k| *k == c || within(c, k)))
        .unwrap_or(&keys[0])
}

/// Whether the folder `path` is inside the folder `dir` (a session whose working
/// directory moved into its project's subfolder is the project's: helper-98 F4).
fn within(path: &str, dir: &str) -> bool {
    path.strip_prefix(dir)
        .is_some_and(|rest| rest.starts_with(['/', '\\']))
}

/// [`read_dir`] with the folder's summaries in `index`; when a summarised file changed in
/// a way its key did not show (only a write racing this scan can do that), everything is
/// read afresh, and the folder's summaries are forgotten (`index` is then `None`).
fn read_dir_or_afresh(
    (dir, folder): (&ServerDir, Option<&OpenFolder>),
    o: &ReadOptions,
    index: &mut Option<FolderIndex>,
    keep_session: &dyn Fn(&SessionLog) -> bool,
    warnings: &mut Vec<Warning>,
    file_done: &dyn Fn(),
    bytes_read: &dyn Fn(u64),
) -> ServerInProgress {
    match read_dir(
        dir,
        folder,
        o,
        index.as_mut(),
        keep_session,
        file_done,
        bytes_read,
    ) {
        Ok((p, w)) => {
            warnings.extend(w);
            p
        }
        Err(Changed) => {
            if let Some(mut i) = index.take() {
                i.clear();
                i.save(o.index.expect("an index was loaded"), &dir.path);
            }
            let (p, w) = read_dir(dir, folder, o, None, keep_session, file_done, bytes_read)
                .unwrap_or_else(|Changed| unreachable!("no index, nothing cached"));
            warnings.extend(w);
            p
        }
    }
}

/// One debug log, which covers every server of its session.
fn read_debug_log(
    log: PathBuf,
    warnings: &mut Vec<Warning>,
    keep_session: &dyn Fn(&SessionLog) -> bool,
    file_done: &dyn Fn(),
    bytes_read: &dyn Fn(u64),
) -> Vec<ServerInProgress> {
    let mut by_server: BTreeMap<String, SessionGrouper> = BTreeMap::new();
    let _ = decode_into(
        &log,
        Opening::Named,
        warnings,
        &mut |r| {
            let name = r.server.unwrap_or_default();
            match by_server.get_mut(name) {
                Some(g) => g.push_ref(r),
                None => by_server.entry(name.to_string()).or_default().push_ref(r),
            }
        },
        None,
        bytes_read,
    );
    file_done();
    by_server
        .into_iter()
        .map(|(name, g)| {
            let sessions: Vec<SessionLog> = g.finish().into_iter().filter(keep_session).collect();
            ServerInProgress {
                folder: None,
                project_folder: None,
                name: Some(name),
                source: log.clone(),
                session_files: sessions.len(),
                files_read: 1,
                sessions,
                // a debug log's stderr records are told apart by server
                // too: its tails are read again (`stderr::attach`)
                stderr: None,
                before_since: false,
            }
        })
        .collect()
}

/// How a unit is read.
#[derive(Clone, Copy)]
pub(super) struct ReadOptions<'a> {
    pub(super) since_iso: Option<&'a str>,
    pub(super) all: bool,
    pub(super) window: usize,
    pub(super) index: Option<&'a super::cache::Index>,
    /// The deciding session's evidence records are wanted (a summary has none).
    pub(super) evidence: bool,
    /// The stderr tails are wanted: each file read keeps its sessions' last `Server
    /// stderr` records as it is read ([`stderr::FileStderr`]), so no file is read again
    /// for them.
    pub(super) stderr: bool,
    /// And what `report` shows of each session's stderr ([`stderr::ReportStderr`]).
    pub(super) report_stderr: bool,
    /// The encoded project folders two or more known projects write: each of their log
    /// folders is read whole for the projects it holds ([`projects_sharing`]).
    pub(super) shared_projects: Option<&'a std::collections::HashSet<String>>,
}

/// A file summarised in the index no longer matches its summary.
pub(super) struct Changed;

/// One file's sessions, from the index when its summary matches, else read (and then
/// summarised). Returns whether they came from the index.
/// With `stderr`, a file read (not one taken from the index) also gives its sessions'
/// stderr records ([`stderr::Captured`]).
pub(super) fn read_sessions(
    f: &Path,
    opening: Opening<'_>,
    index: Option<&mut FolderIndex>,
    warnings: &mut Vec<Warning>,
    bytes_read: &dyn Fn(u64),
    stderr: bool,
    report_stderr: bool,
) -> (Vec<SessionLog>, bool, Option<stderr::Captured>) {
    if let Some(summary) = index.as_ref().and_then(|i| i.lookup(f)) {
        if let Some(d) = summary.damage {
            warnings.push(Warning::new(f, d));
        }
        return (summary.sessions, true, None);
    }
    let reading = index.as_ref().and_then(|_| Reading::start(f));
    let mut grouper = SessionGrouper::default();
    let mut tails = stderr.then(|| stderr::FileStderr::new(report_stderr));
    let mut tap = |r: RecordRef<'_>| {
        if let Some(t) = tails.as_mut() {
            t.push(r)
        }
    };
    let (outcome, tapped) = decode_into(
        f,
        opening,
        warnings,
        &mut |r| grouper.push_ref(r),
        stderr.then_some(&mut tap as decode::stream::Tap<'_>),
        bytes_read,
    );
    let sessions = grouper.finish();
    if let (Some(index), Some(reading), Some(damage)) = (index, reading, outcome) {
        index.store(f, reading, &sessions, damage.as_deref());
    }
    let tails = tails.filter(|_| tapped);
    (sessions, false, tails.map(stderr::FileStderr::finish))
}

/// The stderr records are taken in the first read of files up to this size. Taking them
/// decodes every `Server stderr` line of every file read, where reading the deciding
/// file again decodes only its own: on small files (nearly all) the second open and
/// read cost more than that decoding, on a file of a gigabyte of base64 stderr the
/// decoding costs as much as the read itself (measured: `scan --json` 1.8x `rg` against
/// 0.95x, docs/benchmarks-history.md), so a larger deciding file is read again.
const TAP_UP_TO: u64 = 4 << 20;

/// Reads a server folder newest first, one file at a time (a file is one process, and a
/// session never spans files), until the verdict is decided and the history window is
/// read. Sessions summarised in the index are taken from it; when the deciding one is,
/// and evidence is wanted, its file is read again for the records (and must still
/// summarise the same).
pub(super) fn read_dir(
    dir: &ServerDir,
    folder: Option<&OpenFolder>,
    o: &ReadOptions,
    mut index: Option<&mut FolderIndex>,
    keep_session: &dyn Fn(&SessionLog) -> bool,
    file_done: &dyn Fn(),
    bytes_read: &dyn Fn(u64),
) -> Result<(ServerInProgress, Vec<Warning>), Changed> {
    let mut warnings = Vec::new();
    // Newest first: (file, its sessions kept, whether from the index).
    let mut chunks: Vec<(PathBuf, Vec<SessionLog>, bool)> = Vec::new();
    // Each chunk's sessions' places among its file's sessions (`--since` drops some).
    let mut places: Vec<Vec<usize>> = Vec::new();
    // The files read (not taken from the index), with their sessions' stderr records.
    let mut captured: Vec<(PathBuf, stderr::Captured)> = Vec::new();
    let mut walk = NewestFirst::default();
    let tap = o.stderr || index.is_some();
    let mut decided_after: Option<usize> = None;
    let opening = |name: &OsStr| match name.is_empty() {
        true => Opening::Named,
        false => Opening::Listed(folder),
    };
    for (read, name) in dir.file_names.iter().rev().enumerate() {
        let f = crate::logs::discovery::file_in(&dir.path, name);
        // With the index, the stderr records are taken in the read too: the deciding
        // session's are kept with its details, for a later scan that shows them.
        let (sessions, cached, tails) = read_sessions(
            &f,
            opening(name),
            index.as_deref_mut(),
            &mut warnings,
            bytes_read,
            tap,
            o.report_stderr,
        );
        file_done();
        if let Some(t) = tails {
            captured.push((f.clone(), t));
        }
        let (chunk, place): (Vec<SessionLog>, Vec<usize>) = sessions
            .into_iter()
            .enumerate()
            .filter(|(_, s)| keep_session(s))
            .map(|(i, s)| (s, i))
            .unzip();
        places.push(place);
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
            // Its details as the index keeps them (its evidence records, its stderr
            // context), when it is summarised there with them: nothing to read.
            let kept = at.filter(|&k| chunks[k].2).and_then(|k| {
                let d = index
                    .as_ref()?
                    .details(o.index?, &chunks[k].0, *places[k].get(i)?)?;
                Some((k, d))
            });
            if let Some((k, d)) = kept {
                let session = &mut chunks[k].1[i];
                session.evidence = d.evidence;
                if let Some(parts) = d.stderr {
                    let id = session.evidence.last().and_then(|r| r.session_id.clone());
                    captured.push((chunks[k].0.clone(), stderr::Captured::of_session(id, parts)));
                }
            } else if let Some(k) = at {
                if chunks[k].2 {
                    let name = dir.file_names.get(dir.file_names.len() - 1 - k);
                    let (fresh, _, tails) = read_sessions(
                        &chunks[k].0,
                        name.map_or(Opening::Named, |n| opening(n)),
                        None,
                        &mut Vec::new(),
                        bytes_read,
                        tap,
                        o.report_stderr,
                    );
                    if let Some(t) = tails {
                        captured.push((chunks[k].0.clone(), t));
                    }
                    let fresh: Vec<SessionLog> =
                        fresh.into_iter().filter(|s| keep_session(s)).collect();
                    if !same_summaries(&fresh, &chunks[k].1) {
                        return Err(Changed);
                    }
                    chunks[k].1 = fresh;
                    chunks[k].2 = false;
                }
                // Read now: its details kept for the next scan.
                if let (Some(ix), Some(o_index), Some(&place), Some(session)) =
                    (index, o.index, places[k].get(i), chunks[k].1.get(i))
                {
                    let id = session
                        .evidence
                        .last()
                        .and_then(|r| r.session_id.as_deref());
                    let parts = captured
                        .iter()
                        .rev()
                        .find(|(f, _)| *f == chunks[k].0)
                        .map(|(_, c)| c.parts_of(id));
                    ix.keep_details(
                        o_index,
                        &chunks[k].0,
                        place,
                        &session.evidence,
                        parts,
                        session.cwd.as_deref(),
                    );
                }
            }
        }
    }
    let files_read = chunks.len();
    let sessions: Vec<SessionLog> = chunks.into_iter().rev().flat_map(|c| c.1).collect();
    Ok((
        ServerInProgress {
            source: dir.path.clone(),
            session_files: dir.file_names.len(),
            files_read,
            folder: Some(dir.folder.clone()),
            project_folder: dir.project_folder.clone(),
            name: None,
            sessions,
            stderr: o.stderr.then_some(captured),
            before_since: false,
        },
        warnings,
    ))
}

/// Whether two readings of a file summarise it the same (evidence aside).
pub(super) fn same_summaries(a: &[SessionLog], b: &[SessionLog]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.diagnosis == y.diagnosis
                && x.first_timestamp == y.first_timestamp
                && x.last_timestamp == y.last_timestamp
                && x.cwd == y.cwd
        })
}

pub(super) fn mtime(p: &Path) -> Option<EpochSeconds> {
    let t = std::fs::metadata(p).and_then(|m| m.modified()).ok()?;
    Some(crate::time::system_time_secs(t))
}

/// How much of a file's end [`last_record_time`] reads first.
const TAIL_BYTES: u64 = 256 * 1024;

/// When the last record of the log file `p` was written, by the records' own
/// timestamps (never the file's mtime, which a copy or a backup restore sets to another
/// time): the latest `"timestamp"` in its last [`TAIL_BYTES`], else in the whole file
/// (a last record longer than that). `None` when no record has a time.
pub(crate) fn last_record_time(p: &Path) -> Option<EpochSeconds> {
    last_record(p).0
}

/// The latest record time of a log file ([`last_record_time`]) and the working
/// directory its last record in the file's tail names (`cwd`: the project), when one
/// does.
pub(crate) fn last_record(p: &Path) -> (Option<EpochSeconds>, Option<String>) {
    static CWD: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#""cwd"\s*:\s*("(?:[^"\\]|\\.){1,4096}")"#).expect("regex")
    });
    let cwd = |text: &str| {
        CWD.captures_iter(text)
            .last()
            .and_then(|c| serde_json::from_str::<String>(&c[1]).ok())
    };
    use std::io::{Read, Seek, SeekFrom};
    let Ok((mut f, meta)) = crate::safe_read::open_regular(p) else {
        return (None, None);
    };
    let start = meta.len().saturating_sub(TAIL_BYTES);
    let mut tail = Vec::new();
    if f.seek(SeekFrom::Start(start)).is_err() || f.take(TAIL_BYTES).read_to_end(&mut tail).is_err()
    {
        return (None, None);
    }
    let text = String::from_utf8_lossy(&tail);
    (record_time(p, &text, start == 0), cwd(&text))
}

/// [`last_record_time`] from a file's tail `text` (the whole file when `whole`), else
/// from every record of the file.
fn record_time(p: &Path, text: &str, whole: bool) -> Option<EpochSeconds> {
    static TIMESTAMP: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#""timestamp"\s*:\s*"([^"\\]{1,64})""#).expect("regex")
    });
    let latest = |text: &str| {
        TIMESTAMP
            .captures_iter(text)
            .filter_map(|c| crate::time::parse_iso(&c[1]))
            .max()
    };
    if let Some(t) = latest(text) {
        return Some(t);
    }
    if whole {
        return None;
    }
    let mut newest = None;
    decode::for_each_record(p, &mut |r| {
        if let Some(t) = r.timestamp.as_deref().and_then(crate::time::parse_iso) {
            newest = newest.max(Some(t));
        }
    })
    .ok()?;
    newest
}

pub(super) fn file_len(p: &Path) -> u64 {
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}

/// Reads one file into `sink`; an unreadable or damaged file becomes one warning.
/// Returns the damage summary of a file read to its end (`None` when it could not be).
pub(super) fn decode_into(
    f: &Path,
    opening: Opening<'_>,
    warnings: &mut Vec<Warning>,
    sink: &mut dyn FnMut(RecordRef<'_>),
    tap: Option<decode::stream::Tap<'_>>,
    bytes_read: &dyn Fn(u64),
) -> (Option<Option<String>>, bool) {
    let read = opening
        .open(f)
        .and_then(|file| decode::decode_listed_tapped(file, f, sink, tap, TAP_UP_TO, bytes_read));
    match read {
        Ok((_, damage, tapped)) => {
            let summary = damage.summary();
            if let Some(summary) = &summary {
                warnings.push(Warning::new(f, summary.clone()));
            }
            (Some(summary), tapped)
        }
        Err(e) => {
            warnings.push(Warning::new(f, format!("cannot read: {e}")));
            (None, false)
        }
    }
}

/// How a log file is opened.
#[derive(Clone, Copy)]
pub(super) enum Opening<'a> {
    /// Named alone (a file given, a debug log): links followed, its kind checked.
    Named,
    /// Found by listing its folder as a regular file: opened without following a link,
    /// through the folder when the listing kept it open ([`safe_read::Listed`]).
    Listed(Option<&'a OpenFolder>),
}

impl Opening<'_> {
    fn open(self, f: &Path) -> std::io::Result<safe_read::Listed> {
        match (self, f.file_name()) {
            (Opening::Listed(Some(folder)), Some(name)) => folder.open_listed(name),
            (Opening::Listed(_), _) => safe_read::open_listed(f),
            (Opening::Named, _) => safe_read::open_named(f),
        }
    }
}

pub(super) struct ProgressCounter {
    pub(super) files_total: u64,
    pub(super) bytes_total: u64,
    pub(super) files_done: AtomicU64,
    pub(super) bytes_done: AtomicU64,
}

impl ProgressCounter {
    /// The totals to count towards; the bytes only when `measure` (a `stat` a file).
    pub(super) fn new(units: &[Unit], measure: bool) -> Self {
        use rayon::prelude::*;
        let bytes_total = if measure {
            units
                .par_iter()
                .map(|u| u.files().map(|f| file_len(&f)).sum::<u64>())
                .sum()
        } else {
            0
        };
        ProgressCounter {
            files_total: units.iter().map(|u| u.file_count() as u64).sum(),
            bytes_total,
            files_done: AtomicU64::new(0),
            bytes_done: AtomicU64::new(0),
        }
    }

    pub(super) fn file_done(&self) -> Progress {
        Progress {
            files_done: self.files_done.fetch_add(1, Ordering::Relaxed) + 1,
            files_total: self.files_total,
            bytes_done: self.bytes_done.load(Ordering::Relaxed),
            bytes_total: self.bytes_total,
        }
    }

    /// Called per block read, so progress moves within a large file.
    pub(super) fn bytes_read(&self, bytes: u64) -> Progress {
        Progress {
            files_done: self.files_done.load(Ordering::Relaxed),
            files_total: self.files_total,
            bytes_done: (self.bytes_done.fetch_add(bytes, Ordering::Relaxed) + bytes)
                .min(self.bytes_total),
            bytes_total: self.bytes_total,
        }
    }
}
