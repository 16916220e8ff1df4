//! What Claude Code's MCP discovery cache means for a scan of a home (issue 54): the
//! cache's state as one note, and per HTTP/SSE server what the cache did or will do.
//! Observed on 2.1.288, 2.1.310 and 2.1.332 (docs/claude-code.md, "The MCP discovery
//! cache"); the notes are scan warnings, so the screen and `--json` both carry them.
//!
//! Nothing here reads a credential or a cache entry's bytes: the cache folder is listed
//! ([`dc::list`]: bounded, no link followed, nothing opened), the
//! transcripts folder of a project is listed for its newest session's name and time,
//! and one flag is taken from `.claude.json` as the resolution read it (with its bound).

use std::path::{Path, PathBuf};

use crate::classify::verdict::{Cause, Verdict};
use crate::claude_code::config::{GlobalConfig, TransportKind};
use crate::claude_code::discovery_cache::{self as dc, Freshness, Listing, Switch};
use crate::scan::{
    CacheServed, CacheServedKind, MachineState, ScanOptions, ScanReport, ServerReport,
};
use crate::settings;
use crate::warning::Warning;

/// At most this many transcripts of a project are looked at for its newest session.
const MAX_TRANSCRIPTS: usize = 20_000;

/// The cache as one home has it.
pub(super) struct CacheState {
    switch: Switch,
    /// The variable that turns Claude Code's cached feature flags off, and its layer.
    flags_off: Option<String>,
    listing: Listing,
    ttl_s: u64,
    max_stale_s: u64,
    strikes: u64,
    /// `None`: no configuration folder to look in (no home): nothing listed.
    config_dir: Option<PathBuf>,
    /// The cache's variables set, each with the layer that sets it.
    switches: Vec<(String, String, String)>,
}

fn iso(t: u64) -> String {
    crate::time::local_time(&crate::time::format_iso(t as i64))
}

/// Where each switch is set for a scan: `(value, layer)` of the effective one, from the
/// settings layers' `env` and (this machine only) the environment.
type Lookup = Box<dyn Fn(&str) -> Option<(String, String)>>;

fn lookup(opts: &ScanOptions, cwd: &Path, managed_dir: Option<&Path>) -> Lookup {
    let this_machine = opts.request.homes.is_empty();
    let sources = super::sources_for(&opts.request.homes, cwd, managed_dir);
    Box::new(move |var: &str| {
        settings::env::env_values(
            &sources,
            var,
            if this_machine {
                std::env::var(var).ok()
            } else {
                None
            },
        )
        .into_iter()
        .find_map(|l| Some((l.value.clone()?, l.describe())))
    })
}

fn config_dir_of(opts: &ScanOptions) -> Option<PathBuf> {
    let this_machine = opts.request.homes.is_empty();
    let home = match opts.request.homes.first() {
        Some(h) => h.clone(),
        None => directories::BaseDirs::new()?.home_dir().to_path_buf(),
    };
    let env = |k: &str| {
        if this_machine {
            std::env::var_os(k)
        } else {
            None
        }
    };
    crate::claude_code::paths::config_dir(Some(&home), &env)
}

/// Whether the scanned machine's discovery cache folder holds anything (one entry
/// listed; nothing opened): the status line resolves the servers a session did not log
/// only then.
pub(super) fn has_entries(opts: &ScanOptions) -> bool {
    config_dir_of(opts).is_some_and(|d| {
        std::fs::read_dir(dc::folder_in(&d)).is_ok_and(|mut rd| rd.next().is_some())
    })
}

/// The cache's state on the scanned machine (its switch, ages, strikes and listing), read
/// once a resolution: the notes ([`apply`]) and the machine's state ([`machine_state`])
/// are both made from it.
pub(super) fn read(
    opts: &ScanOptions,
    cwd: &Path,
    managed_dir: Option<&Path>,
    global: Option<&GlobalConfig>,
) -> CacheState {
    let layer = lookup(opts, cwd, managed_dir);
    let config_dir = config_dir_of(opts);
    let variable = layer(dc::SWITCH_VAR);
    let listing = config_dir
        .as_ref()
        .map(|d| dc::list(&dc::folder_in(d)))
        .unwrap_or_default();
    // `.claude.json`, as the resolution read it
    let flag = global
        .and_then(GlobalConfig::document)
        .and_then(|doc| dc::rollout_flag(&doc));
    let flags_off = crate::claude_code::flags::flags_off_by(|v| layer(v));
    let switch = Switch::decide(
        variable.as_ref().map(|(v, by)| (v.as_str(), by.as_str())),
        flag,
        flags_off.as_deref(),
    );
    let (ttl_s, max_stale_s) = dc::ages(
        layer(dc::TTL_VAR).as_ref().map(|(v, _)| v.as_str()),
        layer(dc::MAX_STALE_VAR).as_ref().map(|(v, _)| v.as_str()),
    );
    let strikes = layer(dc::STRIKES_VAR)
        .and_then(|(v, _)| dc::positive_int(&v))
        .unwrap_or(dc::DEFAULT_STRIKES);
    let switches = dc::SWITCHES
        .iter()
        .filter_map(|k| layer(k).map(|(v, by)| (k.to_string(), v, by)))
        .collect();
    CacheState {
        switch,
        flags_off,
        listing,
        ttl_s,
        max_stale_s,
        strikes,
        config_dir,
        switches,
    }
}

/// What Claude Code keeps on the scanned machine that changes what it shows for MCP
/// servers: the cache's switch and ages, the switches set, the MCP flags cached in
/// `.claude.json` (described, never a string's text). For a scan of a home.
pub(super) fn machine_state(st: &CacheState, global: Option<&GlobalConfig>) -> MachineState {
    let doc = global.and_then(GlobalConfig::document);
    MachineState {
        discovery_cache_on: st.switch.is_on(),
        discovery_cache: format!(
            "{}; TTL {} s, max-stale {} s, strikes {}",
            st.switch.describe(),
            st.ttl_s,
            st.max_stale_s,
            st.strikes
        ),
        cache_entries: st.listing.total,
        notes: Vec::new(),
        switches: st.switches.clone(),
        flags: doc
            .as_deref()
            .map(dc::cached_flags)
            .unwrap_or_default()
            .into_iter()
            .map(|(name, value, what)| match &st.flags_off {
                Some(off) => (
                    name,
                    value,
                    format!("not read now: {off} turns Claude Code's feature flags off; {what}"),
                ),
                None => (name, value, what),
            })
            .collect(),
    }
}

/// The newest session of a project, from its transcripts' names and write times
/// (`<config dir>/projects/<encoded project>/<session id>.jsonl`; never opened), and
/// every session id that has a transcript (a `claude mcp list` check has none).
struct Transcripts {
    newest: Option<(String, u64)>,
    /// Each with its transcript's write time.
    ids: std::collections::HashMap<String, u64>,
}

fn transcripts(config_dir: &Path, project_folder: &str) -> Transcripts {
    let mut out = Transcripts {
        newest: None,
        ids: std::collections::HashMap::new(),
    };
    let dir = config_dir.join("projects").join(project_folder);
    if !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
        return out;
    }
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return out;
    };
    for e in rd.take(MAX_TRANSCRIPTS).flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(id) = name.strip_suffix(".jsonl") else {
            continue;
        };
        let Ok(m) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        if !m.is_file() {
            continue;
        }
        let Some(t) = m.modified().ok() else { continue };
        let t = crate::time::system_time_secs(t).max(0) as u64;
        out.ids.insert(id.to_string(), t);
        if out.newest.as_ref().is_none_or(|(_, bt)| t > *bt) {
            out.newest = Some((id.to_string(), t));
        }
    }
    out
}

/// Whether the server's log holds the project's last session `sid`: its newest session
/// is that one (a later one than the deciding session when that one only connected, a
/// short session passed over for an older one that decided). Without the newest
/// session's id (the index keeps the deciding session's only), by its process's start:
/// no other session of the project ended after it started. Nothing known: it does (the
/// cache decides nothing).
fn logs_session(
    latest: Option<&crate::scan::LatestSession>,
    own: Option<&str>,
    s: &ServerReport,
    sid: &str,
    tr: &Transcripts,
) -> bool {
    if let Some(id) = latest.and_then(|l| l.id.as_deref()) {
        return id == sid;
    }
    if !s.latest_only_connected
        && let Some(own) = own
    {
        return own == sid;
    }
    match latest.and_then(|l| l.started) {
        Some(b) => tr.ids.iter().all(|(id, written)| id == sid || *written < b),
        None => own.is_none_or(|o| o == sid),
    }
}

/// When the deciding session's process started ([`ServerReport::started_at`]).
fn session_start(s: &ServerReport) -> Option<u64> {
    s.started_at().map(|t| t.max(0) as u64)
}

/// The entry rewritten during the deciding session (from its start to its last record):
/// a refresh that failed and counted a strike, with `MCP_DISCOVERY_CACHE_STRIKES` above 1
/// (observed: the entry's write time moves, its size stays; at the last strike it goes).
fn struck_entry<'a>(
    entries: &'a [dc::Entry],
    s: &ServerReport,
    at: u64,
    slack: u64,
) -> Option<&'a dc::Entry> {
    let start = session_start(s)?;
    entries
        .iter()
        .filter(|e| e.written + slack >= start && e.written <= at + 1)
        .max_by_key(|e| e.written)
}

fn is_remote(s: &ServerReport) -> bool {
    match &s.launch {
        Some(l) => matches!(l.transport, TransportKind::Http | TransportKind::Sse),
        None => s.diagnosis.transport == Some(crate::classify::verdict::Transport::Remote),
    }
}

fn deciding_session(s: &ServerReport) -> Option<&str> {
    s.evidence.iter().find_map(|e| e.session_id.as_deref())
}

/// Why Claude Code never caches the server's lists, from its configuration entry (the
/// builds' code: `"discoveryCache": false`, which also purges its entries; a
/// `headersHelper`; a `${VAR}` placeholder in its URL or headers). `None`: eligible, or
/// its entry was not found.
fn not_cached_because(s: &ServerReport, global: Option<&GlobalConfig>) -> Option<&'static str> {
    let launch = s.launch.as_ref()?;
    let file = launch.file.as_deref()?;
    let doc = match global.filter(|g| g.path() == file) {
        Some(g) => g.document()?,
        None => std::sync::Arc::new(crate::claude_code::config::read_config_file(file)?),
    };
    let in_servers = |v: &serde_json::Value| v.get("mcpServers")?.get(&s.name).cloned();
    let entry = in_servers(&doc).or_else(|| {
        let projects = doc.get("projects")?.as_object()?;
        let own = s.project.as_deref().and_then(|p| projects.get(p));
        own.and_then(in_servers)
            .or_else(|| projects.values().find_map(in_servers))
    })?;
    opted_out(&entry)
}

/// See [`not_cached_because`].
fn opted_out(entry: &serde_json::Value) -> Option<&'static str> {
    if entry.get("discoveryCache") == Some(&serde_json::Value::Bool(false)) {
        return Some("\"discoveryCache\": false");
    }
    if entry.get("headersHelper").is_some() {
        return Some("a headersHelper");
    }
    let placeholder = |v: Option<&serde_json::Value>| {
        v.and_then(|v| v.as_str()).is_some_and(|t| t.contains("${"))
    };
    let in_headers = entry
        .get("headers")
        .and_then(|h| h.as_object())
        .is_some_and(|h| h.values().any(|v| placeholder(Some(v))));
    (placeholder(entry.get("url")) || in_headers).then_some("a ${VAR} placeholder")
}

/// The entry that most likely served `s`: among `candidates`, the one written nearest
/// the server's last logged record (an entry is written when its tools are listed), else
/// the newest. Returns it and how many candidates there were.
fn likeliest<'a>(
    candidates: Vec<&'a dc::Entry>,
    s: &ServerReport,
) -> Option<(&'a dc::Entry, usize)> {
    let n = candidates.len();
    let last = last_record_of(s);
    let near = last.and_then(|l| {
        candidates
            .iter()
            .filter(|e| e.written.abs_diff(l) <= NEAR_S)
            .min_by_key(|e| e.written.abs_diff(l))
            .copied()
    });
    near.or_else(|| candidates.iter().max_by_key(|e| e.written).copied())
        .map(|e| (e, n))
}

/// How near an entry's write time must be to a server's last record to be called its.
const NEAR_S: u64 = 120;

/// What the next session does after a failed connection deleted the entry.
const NEXT_AFTER_DELETE: &str = "it has no cached entry, so it connects afresh and shows the server failed, with no tools, for as long as the server cannot be reached (observed on 2.1.287, 2.1.288, 2.1.332 and 2.1.336)";

/// Whether [`apply`] may count the scan's servers: the cache holds entries.
pub(super) fn counts_servers(st: &CacheState) -> bool {
    st.config_dir.is_some() && !st.listing.entries.is_empty()
}

/// Applies the cache to the report of a scan of a home: the cache's state as one note,
/// and per HTTP/SSE server what Claude Code showed in its project's last session when the
/// cache decided it (the server's verdict, cause and [`crate::scan::CacheServed`]); none
/// for files or folders named on the command line.
pub(super) fn apply(
    report: &mut ScanReport,
    st: &CacheState,
    global: Option<&GlobalConfig>,
) -> Vec<Warning> {
    let Some(config_dir) = st.config_dir.as_deref() else {
        return Vec::new();
    };
    // Nothing to say without entries unless the variable turns the cache on.
    if st.listing.entries.is_empty()
        && st.listing.refused == 0
        && !matches!(st.switch, Switch::OnByVariable(_))
    {
        return Vec::new();
    }
    let entries = &st.listing.entries;
    if !st.switch.is_on() && entries.is_empty() {
        return Vec::new();
    }
    let now = crate::time::now().max(0) as u64;
    let mut out = Vec::new();
    // MCP_DISCOVERY_CACHE_STRIKES not set where mcplogs runs, and one server the cache
    // can hold: an entry rewritten while it failed can be no other server's
    // (counted among every logged server, those a filter left out too: `scan --server X`
    // gives X what the full scan gives it)
    let eligible = report
        .servers
        .iter()
        .chain(&report.filtered_out)
        .filter(|s| is_remote(s) && not_cached_because(s, global).is_none())
        .count();
    let strikes_unset = eligible == 1 && !st.switches.iter().any(|(k, _, _)| k == dc::STRIKES_VAR);
    // the servers the cache can hold, by name (one server logged in two projects is one
    // server: its entry is the same), and the sessions that listed each one's tools
    let mut held: Vec<&str> = Vec::new();
    let mut listings: Vec<Listed> = Vec::new();
    for s in report
        .servers
        .iter()
        .chain(&report.filtered_out)
        .filter(|s| is_remote(s) && not_cached_because(s, global).is_none())
    {
        if !held.contains(&s.name.as_str()) {
            held.push(&s.name);
        }
        if let Some(l) = Listed::of(s) {
            listings.push(l);
        }
    }
    let one_server = held.len() == 1;
    // the newest few: a long list is one line no one reads
    const DESCRIBED: usize = 8;
    let mut newest: Vec<_> = entries.iter().collect();
    newest.sort_by_key(|e| std::cmp::Reverse(e.written));
    let mut described: Vec<String> = newest
        .iter()
        .take(DESCRIBED)
        .map(|e| match e.freshness(now, st.ttl_s, st.max_stale_s) {
            _ if e.written > now + CLOCK_SLACK_S => format!(
                "written {}, in the future of this machine's clock (the clock or the files' times are off)",
                iso(e.written)
            ),
            Freshness::Fresh { until } => {
                format!("written {}, fresh until {}", iso(e.written), iso(until))
            }
            Freshness::Stale { until } => {
                format!("written {}, stale until {}", iso(e.written), iso(until))
            }
            Freshness::Expired => format!("written {}, expired", iso(e.written)),
        })
        .collect();
    if st.listing.total > DESCRIBED {
        described.push(format!(
            "{}{} older",
            if st.listing.names_capped {
                "at least "
            } else {
                ""
            },
            st.listing.total - DESCRIBED
        ));
    }
    if st.listing.truncated {
        described.push(format!("only the newest {} were considered", entries.len()));
    }
    out.push(Warning::new(
        &st.listing.folder,
        format!(
            "Claude Code's MCP discovery cache is {} (TTL {} s, max-stale {} s): {} entr{}{}{}. Each entry is sealed by Claude Code: which server it is for cannot be read. A fresh entry serves an HTTP or SSE server's tools without contacting it, so that session writes nothing to its log; a stale one serves them while a refresh runs.",
            st.switch.describe(),
            st.ttl_s,
            st.max_stale_s,
            if st.listing.names_capped {
                format!("more than {}", st.listing.total)
            } else {
                st.listing.total.to_string()
            },
            if st.listing.total == 1 { "y" } else { "ies" },
            if described.is_empty() {
                String::new()
            } else {
                format!(" ({})", described.join("; "))
            },
            if st.listing.refused > 0 {
                format!(
                    "; {} other item{} left unread (not a regular .json file)",
                    st.listing.refused,
                    if st.listing.refused == 1 { "" } else { "s" }
                )
            } else {
                String::new()
            },
        ),
    ));
    // Nothing mcplogs can read turns the cache on, and nothing turns it off, yet it holds
    // entries: they were written while it was on (Claude Code writes none otherwise), so
    // the variable was set where Claude Code ran (a shell, a launcher) and mcplogs does
    // not see it. The entries are read as Claude Code read them; a session that served a
    // server from one wrote no log for it, whatever this environment says.
    let inferred = matches!(st.switch, Switch::Off | Switch::FlagNotRead(_)) && !entries.is_empty();
    if inferred && let Some(w) = out.last_mut() {
        w.message.push_str(" Nothing mcplogs reads turns it on here, but Claude Code writes entries only while it is on: MCP_DISCOVERY_CACHE was set where Claude Code ran, so the servers' verdicts read the entries as Claude Code did.");
    }
    if !st.switch.is_on() && !inferred {
        return out;
    }
    let cx = Ctx {
        st,
        global,
        config_dir,
        strikes_unset,
        one_server,
        listings,
    };
    // each project's transcripts listed once, however many of its servers are remote
    let mut sessions: std::collections::HashMap<String, Transcripts> =
        std::collections::HashMap::new();
    for s in report.servers.iter_mut().filter(|s| is_remote(s)) {
        resolve_server(s, &cx, &mut sessions, &mut out);
    }
    out
}

/// What [`resolve_server`] reads, the same for every server of a scan.
struct Ctx<'a> {
    st: &'a CacheState,
    global: Option<&'a GlobalConfig>,
    config_dir: &'a Path,
    /// MCP_DISCOVERY_CACHE_STRIKES not set where mcplogs runs, and one server the cache
    /// can hold.
    strikes_unset: bool,
    /// The cache can hold one server only (by name; logged in one project or several).
    one_server: bool,
    /// The logged sessions that listed a server's tools, each of which wrote its entry.
    listings: Vec<Listed>,
}

/// A server's deciding session that listed its tools (an entry is written then): the
/// entry's key is the server's name and URL, not its project.
struct Listed {
    name: String,
    url: Option<String>,
    project_folder: Option<String>,
    from: u64,
    to: u64,
}

impl Listed {
    fn of(s: &ServerReport) -> Option<Listed> {
        if !matches!(
            s.diagnosis.verdict,
            Verdict::Healthy | Verdict::Tolerated | Verdict::Degraded
        ) || s.discovery_cache.is_some()
        {
            return None;
        }
        Some(Listed {
            name: s.name.clone(),
            url: s.launch.as_ref().map(|l| l.url.clone()),
            project_folder: s.project_folder.clone(),
            from: session_start(s)?,
            to: last_record_of(s)?,
        })
    }

    /// Whether `e` was written in this session, by the same server as `s` logged in
    /// another project (the same name, and the same URL when both are known).
    fn wrote(&self, e: &dc::Entry, s: &ServerReport) -> bool {
        self.name == s.name
            && self.project_folder != s.project_folder
            && (self.url.is_none()
                || s.launch
                    .as_ref()
                    .is_none_or(|l| Some(&l.url) == self.url.as_ref()))
            && self.from <= e.written + 1
            && e.written <= self.to + 1
    }
}

/// When the server's last logged record was written ([`ServerReport::last_seen`]).
fn last_record_of(s: &ServerReport) -> Option<u64> {
    s.last_seen
        .as_deref()
        .and_then(crate::time::parse_iso)
        .map(|t| t.max(0) as u64)
}

/// What the cache did to one HTTP or SSE server in its project's last session (see
/// [`apply`]); a note about it, when one is said, goes into `out`.
fn resolve_server(
    s: &mut ServerReport,
    cx: &Ctx,
    sessions: &mut std::collections::HashMap<String, Transcripts>,
    out: &mut Vec<Warning>,
) {
    let (st, global, config_dir, strikes_unset) =
        (cx.st, cx.global, cx.config_dir, cx.strikes_unset);
    let entries = &st.listing.entries;
    if not_cached_because(s, global).is_some() {
        return;
    }
    let latest = s.newest_session();
    let latest = latest.as_ref();
    let own = deciding_session(s).map(str::to_string).or_else(|| {
        // a server left out without its evidence (`--since`): its newest session when
        // that is the deciding one
        latest
            .filter(|_| !s.latest_only_connected)
            .and_then(|l| l.id.as_deref().map(str::to_string))
    });
    let (last, has_transcript, own_at, logged_last) = match s.project_folder.as_deref() {
        Some(p) => {
            let tr = sessions
                .entry(p.to_string())
                .or_insert_with(|| transcripts(config_dir, p));
            let own = own.as_deref();
            (
                tr.newest.clone(),
                own.is_none_or(|o| tr.ids.is_empty() || tr.ids.contains_key(o)),
                own.and_then(|o| tr.ids.get(o).copied()),
                tr.newest
                    .as_ref()
                    .is_none_or(|(sid, _)| logs_session(latest, own, s, sid, tr)),
            )
        }
        None => (None, true, None, true),
    };
    let last_record = last_record_of(s);
    // A deciding session without a transcript is a `claude mcp list` check, which
    // neither reads nor changes the cache (observed on 2.1.287, 2.1.332, 2.1.336).
    let check = !has_transcript;
    let failed = matches!(
        s.diagnosis.verdict,
        Verdict::ConnectionFailed | Verdict::VersionUnsupported
    );
    // MCP_DISCOVERY_CACHE_STRIKES not set where mcplogs runs (it may have been where
    // Claude Code ran): an entry rewritten during the failing session is the folder's
    // evidence that a strike was counted and the entry kept, not deleted.
    let rewritten = |at: Option<u64>| {
        strikes_unset && at.is_some_and(|at| struck_entry(entries, s, at, 0).is_some())
    };
    let inferred = st.strikes <= 1 && rewritten(last_record);
    // At one strike a failed connection deleted the entry it had, so only an entry it
    // could not have deleted serves a later session: one the same server wrote after it
    // (its name and URL are the entry's key, not its project: listed in another
    // project's session), or, when the cache can hold this server only, one written
    // before the failing session that outlived it, which is the other handshake's or
    // client's (`MCP_PROTOCOL_NEGOTIATION` legacy or auto, `MCP_SDK_GENERATION`: each
    // keyed apart, neither deleting the other's).
    let deleted_own = failed && st.strikes <= 1 && !check && !inferred;
    let started = session_start(s);
    let usable = |e: &dc::Entry| {
        !deleted_own
            || (last_record.is_some_and(|r| e.written > r)
                && cx.listings.iter().any(|l| l.wrote(e, s)))
            || (cx.one_server && started.is_some_and(|b| e.written < b))
    };
    let serving = |t: u64| -> Vec<&dc::Entry> {
        entries
            .iter()
            .filter(|e| usable(e) && e.written <= t && t < e.written + st.max_stale_s)
            .collect()
    };
    match last {
        // A last logged session whose connection failed deleted the entry (observed,
        // MCP_DISCOVERY_CACHE_STRIKES at its default of 1; above 1 it counted a
        // strike and kept it), and one that never connected wrote none: nothing could
        // serve it since. A check run after the project's last session is the last
        // word.
        Some((sid, t))
            if !(logged_last
                || (deleted_own && serving(t).is_empty())
                || (check && last_record.is_some_and(|r| r > t))) =>
        {
            // Not logged in the project's last session: an entry written before it
            // and fresh then served it (a stale one would have been refreshed, which
            // logs); the nearest-to-fresh one when several were written before it.
            let before = serving(t);
            let fresh: Vec<&dc::Entry> = before
                .iter()
                .copied()
                .filter(|e| t < e.written + st.ttl_s)
                .collect();
            let pick = if fresh.is_empty() { before } else { fresh };
            match likeliest(pick, s) {
                Some((e, n)) => served(s, sid, t, e, n, st, failed && inferred),
                None => out.push(Warning::general(format!(
                    "{}: not contacted in this project's last session ({sid}, {}), and no discovery cache entry was fresh then: it may have been served stale or not started; the verdict is of its last logged session ({}); live state unknown.",
                    s.name,
                    iso(t),
                    s.last_seen
                        .as_deref()
                        .map_or("an earlier session".to_string(), crate::time::local_time)
                ))),
            }
        }
        last => {
            let session_at = last.as_ref().map(|(_, t)| *t);
            let failed_at = last_record.or(session_at);
            if check {
                // `claude mcp list` neither reads nor changes the cache
                return;
            }
            // The entry the failing session rewrote, when a strike could have kept
            // it: a second's slack where the strikes are known to be above 1; none
            // where that is inferred from the folder alone (an entry another session
            // wrote just before this one started is not its strike).
            let struck_now = failed_at
                .filter(|_| st.strikes > 1 || strikes_unset)
                .and_then(|at| {
                    struck_entry(entries, s, at, u64::from(st.strikes > 1)).map(|e| (at, e))
                });
            match s.diagnosis.verdict {
                Verdict::ToolsFetchFailed | Verdict::ConnectionFailed
                    if let Some((at, e)) = struck_now =>
                {
                    // The refresh ran to its failure and counted a strike: the entry
                    // was rewritten during the session and kept. The session's tools
                    // are the live failure's (interactive /mcp: `couldn't load tools`
                    // or failed), not the cached ones.
                    struck(s, own.or(last.map(|l| l.0)), at, e, st, st.strikes <= 1);
                }
                Verdict::ToolsFetchFailed => {
                    // Past the TTL, within max-stale when the refresh ran: the cached
                    // tools stayed while the live list failed (a refresh cut short by
                    // the session's end: one that runs to its failure replaces them).
                    let Some(at) = failed_at else { return };
                    let stale: Vec<&dc::Entry> = entries
                        .iter()
                        .filter(|e| {
                            e.written + st.ttl_s <= at + 1 && at < e.written + st.max_stale_s
                        })
                        .collect();
                    if let Some((e, n)) = likeliest(stale, s) {
                        kept(s, own.or(last.map(|l| l.0)), at, e, n, st);
                    }
                }
                Verdict::ConnectionFailed => {
                    // the time of the session named: the failing one's own when it is
                    // not the project's last
                    let newer = matches!((&own, &last), (Some(o), Some((sid, _))) if o != sid);
                    s.discovery_cache = Some(Box::new(CacheServed {
                        kind: CacheServedKind::Deleted,
                        replaced: None,
                        session: own.or(last.map(|l| l.0)),
                        session_at: if newer {
                            own_at.or(failed_at)
                        } else {
                            session_at
                        },
                        cached_at: None,
                        until: None,
                        next_session: NEXT_AFTER_DELETE.to_string(),
                    }));
                }
                _ => {}
            }
        }
    }
}

/// Claude Code serves nothing from its cache for a server it does not start (removed,
/// renamed, disabled, denied, skipped): once the configuration is joined, such a server
/// gets its logged verdict back and no cache cause, only its configuration's answer.
pub(super) fn unless_started(report: &mut ScanReport) {
    for s in report
        .servers
        .iter_mut()
        .filter(|s| s.discovery_cache.is_some() && !s.counts_now())
    {
        if let Some(d) = s.discovery_cache.take().and_then(|c| c.replaced) {
            s.diagnosis = *d;
        }
    }
}

fn which(n: usize) -> String {
    if n > 1 {
        format!(
            " (one of {n} entries that could be its: entries are sealed, so which is whose is told by their write times)"
        )
    } else {
        String::new()
    }
}

/// Within the TTL: shown with the cached tools, not contacted.
fn served(
    s: &mut ServerReport,
    sid: String,
    t: u64,
    e: &dc::Entry,
    n: usize,
    st: &CacheState,
    inferred: bool,
) {
    let mut d = crate::classify::verdict::Diagnosis::new(Verdict::Unknown);
    d.cause = Some(Cause::ServedFromCache);
    d.transport = Some(crate::classify::verdict::Transport::Remote);
    d.era = s.diagnosis.era;
    d.negotiated_protocol_version = s.diagnosis.negotiated_protocol_version.clone();
    let replaced = Some(Box::new(std::mem::replace(&mut s.diagnosis, d)));
    let fresh_until = e.written + st.ttl_s;
    let stale_until = e.written + st.max_stale_s;
    let now = crate::time::now().max(0) as u64;
    // an entry past its TTL at the session (served stale, the refresh cut short or
    // not logged): never a "served again until" time already past
    let (until, next_session) = if e.written > now + CLOCK_SLACK_S {
        (
            fresh_until,
            format!(
                "its entry was written at {}, which is in the future of this machine's clock: the clock or the files' times are off, so when it stops being served cannot be told ({})",
                iso(e.written),
                strikes_words(st.strikes, inferred)
            ),
        )
    } else if now >= stale_until {
        (
            stale_until,
            format!(
                "its entry is past max-stale since {}: the next session lists the server afresh (Claude Code drops an entry that old when it reads it){}",
                iso(stale_until),
                which(n)
            ),
        )
    } else if t < fresh_until && now >= fresh_until {
        (
            stale_until,
            format!(
                "its entry was fresh until {} (now past){}, so the next session (before {}, max-stale) shows the cached tools while it refreshes the entry, and once that refresh ends a server that fails to connect or to list its tools is shown failing, and the failure counts a strike ({}; observed on 2.1.287, 2.1.332 and 2.1.336)",
                iso(fresh_until),
                which(n),
                iso(stale_until),
                strikes_words(st.strikes, inferred)
            ),
        )
    } else if t < fresh_until {
        (
            fresh_until,
            format!(
                "until {} it is served from the cache again without being contacted{}; after that (until {}, max-stale), a session shows the cached tools while it refreshes the entry, and once that refresh ends a server that fails to connect or to list its tools is shown failing, and the failure counts a strike ({}; observed on 2.1.287, 2.1.332 and 2.1.336)",
                iso(fresh_until),
                which(n),
                iso(stale_until),
                strikes_words(st.strikes, inferred)
            ),
        )
    } else {
        (
            stale_until,
            format!(
                "its entry was past its TTL ({}) at that session, so it was served stale while a refresh was due{}; the next session (before {}, max-stale) shows the cached tools while it refreshes the entry, and once that refresh ends a server that fails to connect or to list its tools is shown failing, and the failure counts a strike ({})",
                iso(fresh_until),
                which(n),
                iso(stale_until),
                strikes_words(st.strikes, inferred)
            ),
        )
    };
    s.discovery_cache = Some(Box::new(CacheServed {
        kind: CacheServedKind::Served,
        replaced,
        session: Some(sid),
        session_at: Some(t),
        cached_at: Some(e.written),
        until: Some(until),
        next_session,
    }));
}

/// How far ahead of this machine's clock an entry's write time may be before it is said
/// to be in the future (file systems round write times).
const CLOCK_SLACK_S: u64 = 5;

/// Past the TTL: the cached tools kept while the refresh's tools/list failed.
fn kept(
    s: &mut ServerReport,
    session: Option<String>,
    at: u64,
    e: &dc::Entry,
    n: usize,
    st: &CacheState,
) {
    let replaced = Some(Box::new(s.diagnosis.clone()));
    s.diagnosis.verdict = Verdict::Degraded;
    s.diagnosis.cause = Some(Cause::StaleAfterRefresh);
    let until = e.written + st.max_stale_s;
    s.discovery_cache = Some(Box::new(CacheServed {
        kind: CacheServedKind::Kept,
        replaced,
        session,
        session_at: Some(at),
        cached_at: Some(e.written),
        until: Some(until),
        next_session: format!(
            "the refresh was cut short by the session's end (`claude -p` exits first), so the cached tools stayed and no strike was counted (observed on 2.1.288 and 2.1.332); a session that lives until its refresh ends (an interactive one, or a long `-p`) shows the cached tools only until then and the live failure after (`/mcp`: couldn't load tools), and that failure counts a strike ({}; observed on 2.1.287, 2.1.332 and 2.1.336); the entry serves no longer than {}{}",
            strikes_words(st.strikes, false),
            iso(until),
            which(n)
        ),
    }));
}

/// A refresh that failed and counted a strike (MCP_DISCOVERY_CACHE_STRIKES above 1): the
/// entry kept, rewritten at `e.written`; when it was listed is inside the seal.
fn struck(
    s: &mut ServerReport,
    session: Option<String>,
    at: u64,
    e: &dc::Entry,
    st: &CacheState,
    inferred: bool,
) {
    s.discovery_cache = Some(Box::new(CacheServed {
        kind: CacheServedKind::Struck,
        replaced: None,
        session,
        session_at: Some(at),
        cached_at: Some(e.written),
        until: None,
        next_session: format!(
            "the entry stays until {} delete it; a strike rewrites it without changing when its tools were listed, so the next session within the TTL of that listing shows the cached tools without contacting the server, and a later one refreshes it again (observed on 2.1.287, 2.1.332 and 2.1.336)",
            if inferred {
                format!("MCP_DISCOVERY_CACHE_STRIKES failed refreshes in a row ({INFERRED})")
            } else {
                format!(
                    "{} failed refreshes in a row (MCP_DISCOVERY_CACHE_STRIKES)",
                    st.strikes
                )
            }
        ),
    }));
}

/// What is said when the folder shows a strike counted while MCP_DISCOVERY_CACHE_STRIKES
/// is not set where mcplogs runs.
const INFERRED: &str = "the variable is not set where mcplogs runs, but the entry was rewritten and kept during the failing session, so it was above 1 where Claude Code ran";

/// What a strike does at this setting, in words.
fn strikes_words(strikes: u64, inferred: bool) -> String {
    if inferred {
        format!(
            "the entry is kept, rewritten, until MCP_DISCOVERY_CACHE_STRIKES failures in a row delete it: {INFERRED}"
        )
    } else if strikes <= 1 {
        "at the default of one strike (MCP_DISCOVERY_CACHE_STRIKES) the entry is deleted, so the session after it lists afresh".to_string()
    } else {
        format!(
            "the entry is kept, rewritten, until {strikes} failures in a row (MCP_DISCOVERY_CACHE_STRIKES) delete it"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str, project_folder: &str) -> ServerReport {
        ServerReport {
            project_folder: Some(project_folder.to_string()),
            sessions: 2,
            sessions_read: 2,
            files_read: 2,
            latest_only_connected: true,
            ..ServerReport::of_one_session(
                name,
                PathBuf::from("/logs"),
                crate::classify::verdict::Diagnosis::new(Verdict::ToolsFetchFailed),
            )
        }
    }

    fn transcripts_of(sessions: &[(&str, u64)]) -> Transcripts {
        Transcripts {
            newest: sessions
                .iter()
                .max_by_key(|(_, t)| *t)
                .map(|(id, t)| (id.to_string(), *t)),
            ids: sessions
                .iter()
                .map(|(id, t)| (id.to_string(), *t))
                .collect(),
        }
    }

    /// adv-22 r7: an older failing session decided, and the project's last session, short
    /// and only connected, is in the log all the same: not "served from cache".
    #[test]
    fn the_last_session_is_looked_for_in_the_servers_log_not_its_deciding_session() {
        let s = server("remote", "-w-a");
        let tr = transcripts_of(&[("s1", 100), ("s2", 200)]);
        let latest = crate::scan::LatestSession {
            id: Some("s2".into()),
            started: Some(150),
        };
        assert!(logs_session(Some(&latest), Some("s1"), &s, "s2", &tr));
        // a session after it that logged nothing for the server
        let tr3 = transcripts_of(&[("s1", 100), ("s2", 200), ("s3", 300)]);
        assert!(!logs_session(Some(&latest), Some("s1"), &s, "s3", &tr3));
        // the index kept no id: by when its process started
        let no_id = crate::scan::LatestSession {
            id: None,
            started: Some(150),
        };
        assert!(logs_session(Some(&no_id), Some("s1"), &s, "s2", &tr));
        assert!(!logs_session(Some(&no_id), Some("s1"), &s, "s3", &tr3));
    }

    /// adv-22 r9: the entry is the server's (its name and URL), not its project's: one it
    /// wrote while listed in another project is one that can serve this project.
    #[test]
    fn an_entry_written_while_the_server_was_listed_in_another_project_is_its() {
        let here = server("remote", "-w-a");
        let mut there = server("remote", "-w-b");
        there.diagnosis = crate::classify::verdict::Diagnosis::new(Verdict::Healthy);
        there.last_seen = Some("2026-12-08T01:29:52.000Z".to_string());
        there.deciding_file = Some(std::sync::Arc::new(PathBuf::from(
            "/logs/2026-12-08T01-29-50-000Z.jsonl",
        )));
        let l = Listed::of(&there).expect("listed its tools");
        let at = crate::time::parse_iso("2026-12-08T01:29:51.000Z").unwrap() as u64;
        let entry = |written| dc::Entry {
            name: "0123456789abcdef0123456789abcdef.json".into(),
            bytes: 849,
            written,
        };
        assert!(l.wrote(&entry(at), &here));
        // written long after that session: not its
        assert!(!l.wrote(&entry(at + 600), &here));
        // another server's name, or the same project (its own log would hold it)
        assert!(!l.wrote(&entry(at), &server("other", "-w-a")));
        assert!(!l.wrote(&entry(at), &server("remote", "-w-b")));
    }

    /// adv-22 r2/r4: Claude Code serves nothing from the cache for a server it does not
    /// start (removed, renamed, disabled): only that answer, the logged verdict back.
    #[test]
    fn a_server_claude_code_does_not_start_is_not_served_from_cache() {
        use crate::scan::configured::Configuration;
        for configuration in [Configuration::NotConfigured, Configuration::Unchecked] {
            let mut s = server("remote", "-w-a");
            s.diagnosis = crate::classify::verdict::Diagnosis::new(Verdict::Healthy);
            let st = CacheState {
                switch: Switch::Off,
                flags_off: None,
                listing: Listing::default(),
                ttl_s: 900,
                max_stale_s: 14_400,
                strikes: 1,
                config_dir: None,
                switches: Vec::new(),
            };
            let e = dc::Entry {
                name: "0123456789abcdef0123456789abcdef.json".into(),
                bytes: 849,
                written: 1_000,
            };
            served(&mut s, "s2".into(), 1_010, &e, 1, &st, false);
            assert_eq!(s.diagnosis.cause, Some(Cause::ServedFromCache));
            s.configuration = configuration.clone();
            let mut report = ScanReport {
                servers: vec![s],
                ..ScanReport::default()
            };
            unless_started(&mut report);
            let s = &report.servers[0];
            if configuration == Configuration::NotConfigured {
                assert_eq!(s.diagnosis.verdict, Verdict::Healthy);
                assert!(s.discovery_cache.is_none());
            } else {
                assert_eq!(s.diagnosis.cause, Some(Cause::ServedFromCache));
            }
        }
    }

    #[test]
    fn a_strike_deletes_at_one_and_keeps_above() {
        assert!(strikes_words(1, false).contains("deleted"));
        assert!(strikes_words(3, false).contains("until 3 failures in a row"));
        assert!(!strikes_words(1, true).contains("deleted"));
    }
}
