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
use crate::scan::{ScanOptions, ScanReport, ServerReport};
use crate::settings;
use crate::warning::Warning;

/// At most this many transcripts of a project are looked at for its newest session.
const MAX_TRANSCRIPTS: usize = 20_000;

/// The cache as one home has it.
struct CacheState {
    switch: Switch,
    listing: Listing,
    ttl_s: u64,
    max_stale_s: u64,
    config_dir: PathBuf,
}

fn iso(t: u64) -> String {
    crate::time::local_time(&crate::time::format_iso(t as i64))
}

fn state(
    opts: &ScanOptions,
    cwd: &Path,
    managed_dir: Option<&Path>,
    global: Option<&GlobalConfig>,
) -> Option<CacheState> {
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
    let config_dir = crate::claude_code::paths::config_dir(Some(&home), &env)?;
    let sources = super::sources_for(&opts.request.homes, cwd, managed_dir);
    let layer = |var: &str| {
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
    };
    let variable = layer(dc::SWITCH_VAR);
    let listing = dc::list(&dc::folder_in(&config_dir));
    let on_by_variable = Switch::decide(
        variable.as_ref().map(|(v, by)| (v.as_str(), by.as_str())),
        None,
    )
    .is_on();
    // Nothing to say without entries unless the variable turns the cache on.
    if listing.entries.is_empty() && listing.refused == 0 && !on_by_variable {
        return None;
    }
    // `.claude.json`, as the resolution read it
    let flag = global
        .and_then(GlobalConfig::document)
        .and_then(|doc| dc::rollout_flag(&doc));
    let switch = Switch::decide(
        variable.as_ref().map(|(v, by)| (v.as_str(), by.as_str())),
        flag,
    );
    let (ttl_s, max_stale_s) = dc::ages(
        layer(dc::TTL_VAR).as_ref().map(|(v, _)| v.as_str()),
        layer(dc::MAX_STALE_VAR).as_ref().map(|(v, _)| v.as_str()),
    );
    Some(CacheState {
        switch,
        listing,
        ttl_s,
        max_stale_s,
        config_dir,
    })
}

/// The newest session of a project, from its transcripts' names and write times
/// (`<config dir>/projects/<encoded project>/<session id>.jsonl`; never opened).
fn newest_session(config_dir: &Path, project_folder: &str) -> Option<(String, u64)> {
    let dir = config_dir.join("projects").join(project_folder);
    if !std::fs::symlink_metadata(&dir).ok()?.is_dir() {
        return None;
    }
    let mut best: Option<(String, u64)> = None;
    for e in std::fs::read_dir(&dir)
        .ok()?
        .take(MAX_TRANSCRIPTS)
        .flatten()
    {
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
        let t = crate::time::system_time_secs(m.modified().ok()?).max(0) as u64;
        if best.as_ref().is_none_or(|(_, bt)| t > *bt) {
            best = Some((id.to_string(), t));
        }
    }
    best
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

/// The notes for a scan of a home (none for files or folders named on the command line).
pub(super) fn notes(
    report: &ScanReport,
    opts: &ScanOptions,
    cwd: &Path,
    managed_dir: Option<&Path>,
    global: Option<&GlobalConfig>,
) -> Vec<Warning> {
    let Some(st) = state(opts, cwd, managed_dir, global) else {
        return Vec::new();
    };
    let entries = &st.listing.entries;
    if !st.switch.is_on() && entries.is_empty() {
        return Vec::new();
    }
    let now = crate::time::now().max(0) as u64;
    let mut out = Vec::new();
    let described: Vec<String> = entries
        .iter()
        .map(|e| match e.freshness(now, st.ttl_s, st.max_stale_s) {
            Freshness::Fresh { until } => {
                format!("written {}, fresh until {}", iso(e.written), iso(until))
            }
            Freshness::Stale { until } => {
                format!("written {}, stale until {}", iso(e.written), iso(until))
            }
            Freshness::Expired => format!("written {}, expired", iso(e.written)),
        })
        .collect();
    out.push(Warning::new(
        &st.listing.folder,
        format!(
            "Claude Code's MCP discovery cache is {} (TTL {} s, max-stale {} s): {} entr{}{}{}. Each entry is sealed by Claude Code: which server it is for cannot be read. A fresh entry serves an HTTP or SSE server's tools without contacting it, so that session writes nothing to its log; a stale one serves them while a refresh runs.",
            st.switch.describe(),
            st.ttl_s,
            st.max_stale_s,
            entries.len(),
            if entries.len() == 1 { "y" } else { "ies" },
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
    if !st.switch.is_on() {
        return out;
    }
    for s in report.servers.iter().filter(|s| is_remote(s)) {
        let last = s
            .project_folder
            .as_deref()
            .and_then(|p| newest_session(&st.config_dir, p));
        let own = deciding_session(s);
        let seen = s.last_seen.as_deref().map(crate::time::local_time);
        let seen = seen.as_deref().unwrap_or("an earlier session");
        match last {
            Some((sid, t)) if own.is_some_and(|o| o != sid) => {
                // the newest entry that was fresh when that session was written last
                let fresh = entries
                    .iter()
                    .filter(|e| e.written <= t && t < e.written + st.ttl_s)
                    .map(|e| e.written)
                    .max();
                out.push(Warning::general(match fresh {
                    Some(at) => format!(
                        "{}: served from cache, not contacted this session ({sid}, {}); cached at {}; live state unknown: Claude Code showed it pending with its cached tools, and the verdict is of its last logged session ({seen}).",
                        s.name,
                        iso(t),
                        iso(at)
                    ),
                    None => format!(
                        "{}: not contacted in this project's last session ({sid}, {}), and no discovery cache entry was fresh then: it may have been served stale or not started; the verdict is of its last logged session ({seen}); live state unknown.",
                        s.name,
                        iso(t)
                    ),
                }));
            }
            _ => match (s.diagnosis.verdict, s.diagnosis.cause) {
                (Verdict::ToolsFetchFailed, c)
                    if c != Some(Cause::StaleAfterRefresh) && !entries.is_empty() =>
                {
                    out.push(Warning::general(format!(
                        "{}: its tools/list failed while Claude Code's discovery cache holds entries: if one was this server's, Claude Code kept serving the cached tools (shown pending with them) while this refresh failed, at most until the entry's max-stale age ({} s after it was written).",
                        s.name, st.max_stale_s
                    )));
                }
                (Verdict::ConnectionFailed, _) => {
                    out.push(Warning::general(format!(
                        "{}: a failed connection deletes the server's discovery cache entry, so the next session connects afresh and fails the same way while the server is unreachable.",
                        s.name
                    )));
                }
                _ => {}
            },
        }
    }
    out
}
