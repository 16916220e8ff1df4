//! Claude Code's MCP discovery cache (`<config dir>/mcp-discovery-cache/`), as far as it
//! can be read without its key: whether it is on, its tunables, and its entries' names,
//! sizes and write times. Observed on 2.1.288, 2.1.310 and 2.1.332 (issue 54,
//! tests/fixtures/discovery-cache/); the rules below were read in those builds' code.
//!
//! Each entry is one file per server, protocol era and Claude Code version, named by a
//! hash and **sealed** (encrypted with a key Claude Code keeps in its secure storage):
//! which server an entry is for cannot be read, and mcplogs never tries (it never reads
//! the key, nor an entry's bytes). The folder is listed, bounded, without following
//! links; nothing in it is opened.

use std::path::{Path, PathBuf};

/// The folder under Claude Code's configuration folder (`~/.claude`, or
/// `$CLAUDE_CONFIG_DIR`).
pub const FOLDER_NAME: &str = "mcp-discovery-cache";
/// The switch (`1`/`true` on, `0`/`false` off; off wins over the rollout flag).
pub const SWITCH_VAR: &str = "MCP_DISCOVERY_CACHE";
pub const TTL_VAR: &str = "MCP_DISCOVERY_CACHE_TTL_S";
pub const MAX_STALE_VAR: &str = "MCP_DISCOVERY_CACHE_MAX_STALE_S";
pub const STRIKES_VAR: &str = "MCP_DISCOVERY_CACHE_STRIKES";
/// The rollout flag in `cachedGrowthBookFeatures` of `~/.claude.json`.
pub const ROLLOUT_FLAG: &str = "tengu_mcp_discovery_cache_enable";
/// Within this age an entry is served without contacting the server (seconds; 2.1.288,
/// 2.1.310, 2.1.332 code: 900, capped at the max-stale age).
pub const DEFAULT_TTL_S: u64 = 900;
/// Past the TTL, an entry is served while a refresh runs, until this age (14400 s = 4 h,
/// capped at 7 days).
pub const DEFAULT_MAX_STALE_S: u64 = 14_400;
pub const MAX_STALE_CAP_S: u64 = 604_800;
/// Refresh failures in a row (a failed connection or `tools/list`, each a strike) at
/// which an entry is deleted; below it a strike rewrites the entry and keeps it (observed
/// on 2.1.287, 2.1.332 and 2.1.336, tests/fixtures/discovery-cache-more/).
pub const DEFAULT_STRIKES: u64 = 1;
/// At most this many entries (the newest by write time) are considered: more than a
/// machine's servers, eras and builds make.
pub const MAX_ENTRIES: usize = 256;
/// At most this many names of the folder are looked at (a hostile folder of millions).
pub const MAX_NAMES: usize = 65_536;
/// Claude Code refuses and deletes an entry larger than this (docs/claude-code.md, "The
/// MCP discovery cache": entries over 8 MB); such a file is never one that served.
pub const MAX_ENTRY_BYTES: u64 = 8 * 1024 * 1024;

/// Why the cache is on or off, as Claude Code decides it (observed on 2.1.287 and
/// 2.1.336, tests/e2e/discovery_cache_more.py `flag-gb`, `flag-false-gb`, `flag`,
/// `flag-false`): `MCP_DISCOVERY_CACHE` false turns it off; else the rollout flag cached
/// false turns it off even with the variable on (a kill switch); else the variable on, or
/// the flag cached true, turns it on. The cached flag counts only while Claude Code's
/// feature flags are on ([`crate::claude_code::flags::flags_off_by`]): under the offline
/// runs' `DISABLE_TELEMETRY` it was ignored both ways.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Switch {
    /// `MCP_DISCOVERY_CACHE` turns it on, from the named layer.
    OnByVariable(String),
    /// The rollout flag cached in `~/.claude.json` is true.
    OnByFlag,
    /// `MCP_DISCOVERY_CACHE` turns it off, from the named layer.
    OffByVariable(String),
    /// The rollout flag cached in `~/.claude.json` is false: off even when
    /// `MCP_DISCOVERY_CACHE` turns it on.
    OffByFlag,
    /// Nothing turns it on; a rollout flag cached true is not read because the named
    /// variable turns Claude Code's feature flags off.
    FlagNotRead(String),
    /// Nothing turns it on.
    Off,
}

impl Switch {
    /// `variable`: the effective `MCP_DISCOVERY_CACHE` and the layer that sets it;
    /// `flag`: the rollout flag as cached (`None`: absent or unreadable); `flags_off`:
    /// the variable (and its layer) that turns Claude Code's feature flags off, when one
    /// does.
    pub fn decide(
        variable: Option<(&str, &str)>,
        flag: Option<bool>,
        flags_off: Option<&str>,
    ) -> Switch {
        let flag_read = if flags_off.is_none() { flag } else { None };
        match variable.map(|(v, by)| (v.trim().to_ascii_lowercase(), by)) {
            Some((v, by)) if matches!(v.as_str(), "0" | "false" | "no" | "off") => {
                Switch::OffByVariable(by.to_string())
            }
            _ if flag_read == Some(false) => Switch::OffByFlag,
            Some((v, by)) if matches!(v.as_str(), "1" | "true" | "yes" | "on") => {
                Switch::OnByVariable(by.to_string())
            }
            _ if flag_read == Some(true) => Switch::OnByFlag,
            _ => match (flag, flags_off) {
                (Some(true), Some(off)) => Switch::FlagNotRead(off.to_string()),
                _ => Switch::Off,
            },
        }
    }

    pub fn is_on(&self) -> bool {
        matches!(self, Switch::OnByVariable(_) | Switch::OnByFlag)
    }

    /// `on (MCP_DISCOVERY_CACHE=1, environment)`...
    pub fn describe(&self) -> String {
        match self {
            Switch::OnByVariable(by) => format!("on ({SWITCH_VAR}, {by})"),
            Switch::OnByFlag => format!("on (feature flag {ROLLOUT_FLAG} cached in .claude.json)"),
            Switch::OffByVariable(by) => format!("off ({SWITCH_VAR}, {by})"),
            Switch::OffByFlag => format!(
                "off (feature flag {ROLLOUT_FLAG} cached false in .claude.json, which outranks {SWITCH_VAR})"
            ),
            Switch::FlagNotRead(off) => format!(
                "off (feature flag {ROLLOUT_FLAG} is cached true, but {off} turns Claude Code's feature flags off)"
            ),
            Switch::Off => "off".to_string(),
        }
    }
}

/// The rollout flag as `.claude.json` caches it: `Some(bool)` when
/// `cachedGrowthBookFeatures.<ROLLOUT_FLAG>` is a boolean. Only that key is looked at.
pub fn rollout_flag(claude_json: &serde_json::Value) -> Option<bool> {
    claude_json
        .get("cachedGrowthBookFeatures")?
        .get(ROLLOUT_FLAG)?
        .as_bool()
}

/// The switches (environment variables, or the settings layers' `env`) that change what
/// Claude Code does with MCP servers between sessions.
pub const SWITCHES: [&str; 5] = [
    SWITCH_VAR,
    TTL_VAR,
    MAX_STALE_VAR,
    STRIKES_VAR,
    "MCP_SDK_GENERATION",
];

/// The feature flags Claude Code caches in `cachedGrowthBookFeatures` of `~/.claude.json`
/// that its code consults for MCP servers, with what each changes and where it was read
/// (docs/claude-code.md, "MCP feature flags"). Offline runs never fetch them.
pub const MCP_FLAGS: [(&str, &str); 8] = [
    (
        ROLLOUT_FLAG,
        "true turns the discovery cache on when MCP_DISCOVERY_CACHE is unset (2.1.287 to 2.1.336)",
    ),
    (
        "tengu_brindle_causeway",
        "picks the MCP client when MCP_SDK_GENERATION is unset: false gives v1 (2.1.287 to 2.1.322, the builds with two clients; run on 2.1.287 and 2.1.310)",
    ),
    (
        "tengu_mcp_protocol_negotiation_http",
        "false gives HTTP servers the legacy handshake when MCP_PROTOCOL_NEGOTIATION is unset (2.1.287 to 2.1.336; run on 2.1.287, 2.1.310, 2.1.336)",
    ),
    (
        "tengu_mcp_protocol_negotiation_stdio",
        "a boolean picks the stdio handshake when MCP_PROTOCOL_NEGOTIATION is unset: false legacy, true negotiated (2.1.287 to 2.1.336; run on 2.1.287, 2.1.310, 2.1.336)",
    ),
    (
        "tengu_mcp_protocol_negotiation_claudeai",
        "false gives claude.ai connectors the legacy handshake (read in 2.1.287 to 2.1.336)",
    ),
    (
        "tengu_mcp_protocol_negotiation_ccr",
        "false gives servers behind the remote-session proxy the legacy handshake (read in 2.1.287 to 2.1.336)",
    ),
    (
        "tengu_mcp_negotiation_server_denylist",
        "the servers whose host it names (or every server, *) get the legacy handshake when MCP_PROTOCOL_NEGOTIATION is unset (2.1.287 to 2.1.336; run on 2.1.287, 2.1.310, 2.1.336)",
    ),
    (
        "tengu_mcp_issuer_strict_echo",
        "true refuses an OAuth authorization response whose issuer differs (read in 2.1.287 to 2.1.336)",
    ),
];

/// Each of [`MCP_FLAGS`] cached in `claude_json`: its name, its value described without
/// showing a string or a list's items (they may name hosts), and what it changes.
pub fn cached_flags(claude_json: &serde_json::Value) -> Vec<(String, String, String)> {
    let Some(features) = claude_json.get("cachedGrowthBookFeatures") else {
        return Vec::new();
    };
    MCP_FLAGS
        .iter()
        .filter_map(|(name, what)| {
            let v = features.get(*name)?;
            let shown = match v {
                serde_json::Value::Bool(b) => b.to_string(),
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::Null => "null".to_string(),
                serde_json::Value::String(t) => {
                    format!("a string of {} characters", t.chars().count())
                }
                serde_json::Value::Array(a) => format!(
                    "a list of {} entr{}",
                    a.len(),
                    if a.len() == 1 { "y" } else { "ies" }
                ),
                serde_json::Value::Object(o) => format!(
                    "an object of {} key{}",
                    o.len(),
                    if o.len() == 1 { "" } else { "s" }
                ),
            };
            Some((name.to_string(), shown, what.to_string()))
        })
        .collect()
}

/// The largest integer Claude Code keeps from a whole-number variable (JavaScript's
/// `Number.MAX_SAFE_INTEGER`: larger values are clamped to it).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// A whole-number variable of at least 1 read as 2.1.336's code reads the cache's three
/// (`F.int({min:1})`): the value trimmed; up to 32 characters, an exponent form
/// (`1e9`) counts when it is a whole number, a grouped one (`1,000`, `1_000`) without
/// its separators; otherwise JavaScript's `parseInt(value, 10)`: an optional sign and the
/// leading digits (`3.5` is 3, `0x3` is 0, `12abc` is 12). Not finite, or below 1:
/// `None` (the default applies). Larger than 2^53 - 1: clamped to it.
pub fn positive_int(value: &str) -> Option<u64> {
    let t = value.trim();
    let n: f64 = match special_form(t) {
        Some(n) => n?,
        None => parse_int(t)?,
    };
    if !n.is_finite() || n < 1.0 {
        return None;
    }
    Some((n as u64).min(MAX_SAFE_INTEGER))
}

/// The exponent and grouped forms (`Some(None)`: an exponent form that is no whole
/// number); `None`: neither.
fn special_form(t: &str) -> Option<Option<f64>> {
    static EXPONENT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^[+-]?(\d+(\.\d*)?|\.\d+)[eE][+-]?\d+$").expect("regex")
    });
    if t.chars().count() > 32 {
        return None;
    }
    if EXPONENT.is_match(t) {
        let n: f64 = t.parse().ok()?;
        return Some((n.fract() == 0.0 && n.is_finite()).then_some(n));
    }
    // `^[+-]?\d{1,3}([_,\u00A0\u202F ])\d{3}(?:\1\d{3})*$`
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let negative = t.starts_with('-');
    let lead = body.chars().take_while(char::is_ascii_digit).count();
    if !(1..=3).contains(&lead) {
        return None;
    }
    let sep = body[lead..].chars().next()?;
    if !matches!(sep, '_' | ',' | '\u{00A0}' | '\u{202F}' | ' ') {
        return None;
    }
    let groups: Vec<&str> = body[lead..].split(sep).skip(1).collect();
    if groups.is_empty()
        || !groups
            .iter()
            .all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let digits: String = body.chars().filter(char::is_ascii_digit).collect();
    let n: f64 = digits.parse().ok()?;
    Some(Some(if negative { -n } else { n }))
}

/// JavaScript's `parseInt(t, 10)` of a trimmed text: `None` for its NaN.
fn parse_int(t: &str) -> Option<f64> {
    let (negative, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let digits: String = body.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return None;
    }
    let n: f64 = digits.parse().ok()?;
    Some(if negative { -n } else { n })
}

/// The TTL and max-stale ages Claude Code uses, from the variables' values, read as the
/// builds' code reads them ([`positive_int`]; not a whole number of at least 1: the
/// default; max-stale at most 7 days, the TTL at most max-stale).
pub fn ages(ttl: Option<&str>, max_stale: Option<&str>) -> (u64, u64) {
    let positive = |v: Option<&str>| v.and_then(positive_int);
    let max_stale = positive(max_stale)
        .unwrap_or(DEFAULT_MAX_STALE_S)
        .min(MAX_STALE_CAP_S);
    let ttl = positive(ttl).unwrap_or(DEFAULT_TTL_S).min(max_stale);
    (ttl, max_stale)
}

/// One entry of the folder: its file name (a hash), size and write time. An entry is
/// rewritten when a refresh succeeds, so the write time is when its tools were last
/// listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub bytes: u64,
    /// Seconds since the epoch.
    pub written: u64,
}

/// How old an entry is against the TTL and max-stale ages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// Served without contacting the server, until the given time.
    Fresh { until: u64 },
    /// Served while a refresh runs, until the given time.
    Stale { until: u64 },
    /// Deleted when next read.
    Expired,
}

impl Entry {
    pub fn freshness(&self, now: u64, ttl_s: u64, max_stale_s: u64) -> Freshness {
        let age = now.saturating_sub(self.written);
        if age < ttl_s {
            Freshness::Fresh {
                until: self.written + ttl_s,
            }
        } else if age < max_stale_s {
            Freshness::Stale {
                until: self.written + max_stale_s,
            }
        } else {
            Freshness::Expired
        }
    }
}

/// The folder's entries as listed: `.json` regular files only (a symlink, folder or
/// other kind is counted in `refused`, never followed), at most [`MAX_ENTRIES`] looked at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    pub folder: PathBuf,
    /// Whether the folder exists (as a real folder, not a link).
    pub exists: bool,
    pub entries: Vec<Entry>,
    pub refused: usize,
    /// More than [`MAX_ENTRIES`] entries (only the newest kept), or more than
    /// [`MAX_NAMES`] names (the rest not looked at).
    pub truncated: bool,
    /// Every entry seen, those past [`MAX_ENTRIES`] too (a lower bound when more than
    /// [`MAX_NAMES`] names were in the folder: see [`Listing::names_capped`]).
    pub total: usize,
    /// Their total size in bytes.
    pub total_bytes: u64,
    /// More than [`MAX_NAMES`] names: `total` is a lower bound.
    pub names_capped: bool,
}

impl Listing {
    /// The entries' total size in bytes.
    pub fn bytes(&self) -> u64 {
        self.entries.iter().map(|e| e.bytes).sum()
    }
}

/// An entry's name as Claude Code writes it: 32 hexadecimal digits and `.json`.
fn is_entry_name(name: &str) -> bool {
    name.strip_suffix(".json")
        .is_some_and(|h| h.len() == 32 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The cache folder of a configuration folder.
pub fn folder_in(config_dir: &Path) -> PathBuf {
    config_dir.join(FOLDER_NAME)
}

/// Lists `folder` without opening anything in it and without following links.
pub fn list(folder: &Path) -> Listing {
    let mut out = Listing {
        folder: folder.to_path_buf(),
        ..Listing::default()
    };
    match std::fs::symlink_metadata(folder) {
        Ok(m) if m.is_dir() => out.exists = true,
        Ok(_) => {
            out.refused = 1;
            return out;
        }
        Err(_) => return out,
    }
    let Ok(rd) = std::fs::read_dir(folder) else {
        return out;
    };
    for (i, e) in rd.enumerate() {
        if i >= MAX_NAMES {
            out.truncated = true;
            out.names_capped = true;
            break;
        }
        let Ok(e) = e else { continue };
        let name = e.file_name().to_string_lossy().into_owned();
        // lock folders (`<entry>.json.lock`) and temporary files belong to a write
        if name.ends_with(".json.lock") || name.contains(".json.tmp.") {
            continue;
        }
        let Ok(m) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        if !m.is_file() || !is_entry_name(&name) || m.len() > MAX_ENTRY_BYTES {
            out.refused += 1;
            continue;
        }
        let written = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs());
        out.total += 1;
        out.total_bytes += m.len();
        out.entries.push(Entry {
            name,
            bytes: m.len(),
            written,
        });
    }
    if out.entries.len() > MAX_ENTRIES {
        // the newest: the ones a recent session can have been served from
        out.entries
            .sort_by(|a, b| b.written.cmp(&a.written).then(a.name.cmp(&b.name)));
        out.entries.truncate(MAX_ENTRIES);
        out.truncated = true;
    }
    out.entries.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry over Claude Code's 8 MB limit is not one (a sparse 2 GB file costs
    /// nothing to list); of more than 256 entries the newest are kept, and the listing
    /// says some were left.
    #[test]
    fn an_oversized_entry_is_refused_and_the_newest_256_are_kept() {
        let d = tempfile::tempdir().unwrap();
        let big = std::fs::File::create(d.path().join("big.json")).unwrap();
        big.set_len(2 << 30).unwrap();
        let l = list(d.path());
        assert_eq!((l.entries.len(), l.refused, l.truncated), (0, 1, false));
        for i in 0..300u64 {
            let p = d.path().join(format!("{i:032x}.json"));
            std::fs::write(&p, b"{}").unwrap();
            let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000 + i);
            std::fs::File::options()
                .write(true)
                .open(&p)
                .unwrap()
                .set_modified(t)
                .unwrap();
        }
        let l = list(d.path());
        assert!(l.truncated);
        assert_eq!(l.entries.len(), MAX_ENTRIES);
        assert!(
            l.entries
                .iter()
                .all(|e| e.written >= 1_000_000 + 300 - MAX_ENTRIES as u64)
        );
    }

    #[test]
    fn the_variable_decides_before_the_flag_and_off_wins() {
        assert_eq!(
            Switch::decide(Some(("1", "environment")), None, None),
            Switch::OnByVariable("environment".into())
        );
        assert_eq!(
            Switch::decide(Some(("0", "environment")), Some(true), None),
            Switch::OffByVariable("environment".into())
        );
        assert_eq!(Switch::decide(None, Some(true), None), Switch::OnByFlag);
        assert_eq!(Switch::decide(None, Some(false), None), Switch::OffByFlag);
        assert_eq!(
            Switch::decide(Some(("maybe", "user")), None, None),
            Switch::Off
        );
        // the cached false outranks the variable (a kill switch), while the flags are read
        assert_eq!(
            Switch::decide(Some(("1", "environment")), Some(false), None),
            Switch::OffByFlag
        );
        // the telemetry switches turn the flags off: the variable alone decides
        let off = Some("DISABLE_TELEMETRY (environment)");
        assert_eq!(
            Switch::decide(Some(("1", "environment")), Some(false), off),
            Switch::OnByVariable("environment".into())
        );
        assert_eq!(
            Switch::decide(None, Some(true), off),
            Switch::FlagNotRead("DISABLE_TELEMETRY (environment)".into())
        );
        assert!(!Switch::decide(None, Some(true), off).is_on());
        let doc = serde_json::json!({"cachedGrowthBookFeatures": {ROLLOUT_FLAG: true}});
        assert_eq!(rollout_flag(&doc), Some(true));
        assert_eq!(rollout_flag(&serde_json::json!({})), None);
    }

    #[test]
    fn cached_flags_show_booleans_and_never_a_string_or_list() {
        let doc = serde_json::json!({"cachedGrowthBookFeatures": {
            ROLLOUT_FLAG: true,
            "tengu_brindle_causeway": false,
            "tengu_mcp_negotiation_server_denylist": ["mcp.example.com", "b"],
            "tengu_mcp_issuer_strict_echo": "secret-host.example",
            "tengu_unrelated": true,
        }});
        let f = cached_flags(&doc);
        let shown: Vec<(&str, &str)> = f.iter().map(|(n, v, _)| (n.as_str(), v.as_str())).collect();
        assert_eq!(
            shown,
            [
                (ROLLOUT_FLAG, "true"),
                ("tengu_brindle_causeway", "false"),
                (
                    "tengu_mcp_negotiation_server_denylist",
                    "a list of 2 entries"
                ),
                ("tengu_mcp_issuer_strict_echo", "a string of 19 characters"),
            ]
        );
        assert!(cached_flags(&serde_json::json!({})).is_empty());
    }

    #[test]
    fn ages_default_and_cap_as_the_builds_do() {
        assert_eq!(ages(None, None), (900, 14_400));
        assert_eq!(ages(Some("1"), None), (1, 14_400));
        // the TTL never exceeds max-stale, max-stale never 7 days
        assert_eq!(ages(Some("99999"), Some("60")), (60, 60));
        assert_eq!(ages(None, Some("9999999")), (900, 604_800));
        assert_eq!(ages(Some("0"), Some("-5")), (900, 14_400));
    }

    #[test]
    fn freshness_follows_the_entry_write_time() {
        let e = Entry {
            name: "a.json".into(),
            bytes: 1,
            written: 1_000,
        };
        assert_eq!(
            e.freshness(1_100, 900, 14_400),
            Freshness::Fresh { until: 1_900 }
        );
        assert_eq!(
            e.freshness(2_000, 900, 14_400),
            Freshness::Stale { until: 15_400 }
        );
        assert_eq!(e.freshness(15_400, 900, 14_400), Freshness::Expired);
    }

    #[test]
    fn the_listing_opens_nothing_and_follows_no_link() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join(FOLDER_NAME);
        assert!(!list(&f).exists);
        std::fs::create_dir(&f).unwrap();
        std::fs::write(f.join("0123abcd0123abcd0123abcd0123abcd.json"), b"sealed").unwrap();
        std::fs::create_dir(f.join("0123abcd0123abcd0123abcd0123abcd.json.lock")).unwrap();
        std::fs::write(f.join("notes.txt"), b"x").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("/etc/passwd", f.join("evil.json")).unwrap();
        let l = list(&f);
        assert!(l.exists);
        assert_eq!(l.entries.len(), 1);
        assert_eq!(l.entries[0].name, "0123abcd0123abcd0123abcd0123abcd.json");
        assert_eq!((l.total, l.total_bytes), (1, 6));
        assert_eq!(l.entries[0].bytes, 6);
        #[cfg(unix)]
        assert_eq!(l.refused, 2);
        // a folder that is itself a link is not listed
        #[cfg(unix)]
        {
            let link = d.path().join("linked");
            std::os::unix::fs::symlink(&f, &link).unwrap();
            let l = list(&link);
            assert!(!l.exists);
            assert!(l.entries.is_empty());
        }
    }

    #[test]
    fn the_numbers_are_read_as_the_builds_code_reads_them() {
        for (v, want) in [
            ("3", Some(3)),
            (" 3 ", Some(3)),
            ("+3", Some(3)),
            ("03", Some(3)),
            ("3.5", Some(3)),
            ("12abc", Some(12)),
            ("1e9", Some(1_000_000_000)),
            ("1e3", Some(1000)),
            ("1.5e1", Some(15)),
            ("1,000", Some(1000)),
            ("1_000", Some(1000)),
            ("99999999999999999999", Some(MAX_SAFE_INTEGER)),
            ("18446744073709551615", Some(MAX_SAFE_INTEGER)),
            ("1e400", None),
            ("1.5e0", None),
            ("1e-3", None),
            ("0x3", None),
            ("0", None),
            ("-3", None),
            ("", None),
            ("abc", None),
        ] {
            assert_eq!(positive_int(v), want, "{v:?}");
        }
        // one over-large value is the largest, never the default
        assert_eq!(
            ages(Some("99999999999999999999"), Some("99999999999999999999")),
            (MAX_STALE_CAP_S, MAX_STALE_CAP_S)
        );
        assert_eq!(
            ages(Some("1e9"), None),
            (DEFAULT_MAX_STALE_S, DEFAULT_MAX_STALE_S)
        );
        assert_eq!(
            ages(Some("0x3"), None),
            (DEFAULT_TTL_S, DEFAULT_MAX_STALE_S)
        );
    }
}
