//! The feature flags Claude Code caches in `cachedGrowthBookFeatures` of `~/.claude.json`
//! that pick an MCP server's handshake, per build (docs/claude-code.md, "MCP feature
//! flags"). Every flag the builds' MCP code reads is listed by `scripts/mcp-flags` (read
//! in the code of 2.1.287 to 2.1.336); the rows here were also run with planted values,
//! offline (`tests/e2e/flags.py`, fixtures `tests/fixtures/flags/<case>/<build>/`, on
//! [`OBSERVED_ON`]).
//!
//! What was observed, in Claude Code's order:
//! 1. `MCP_PROTOCOL_NEGOTIATION` (`legacy` or `auto`, from the environment or a settings
//!    layer's `env`) decides alone: no flag and no denylist is consulted.
//! 2. Unset, the flag of the server's transport decides ([`TRANSPORT_FLAGS`]): a cached
//!    boolean is used as it is; anything else (absent, a string) counts as the flag's
//!    default, which is the build's own default (stdio: legacy before 2.1.292, negotiate
//!    from it; HTTP: negotiate). SSE servers never negotiate.
//! 3. A server the flags let negotiate is given the legacy handshake when
//!    [`DENYLIST`] lists its host (or a parent domain of it) or `*` (every server, stdio
//!    ones too): `MCP era negotiation denylist matched <host>; the legacy handshake
//!    applies` in the debug log.
//!
//! The flags are read only when Claude Code's feature flags are on: any of
//! [`FLAGS_OFF_VARS`] turns them off and every flag then reads its default (observed
//! with `DISABLE_TELEMETRY` and `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` set together),
//! unless [`DISK_CACHE_VAR`] is set, which makes the cached values count again (observed;
//! the code does not apply it to `CLAUDE_CODE_DISABLE_FEATURE_FLAGS` and
//! `DISABLE_GROWTHBOOK`).

use crate::claude_code::config::TransportKind;
use crate::claude_code::lifecycle::ClaudeVersion;

/// Builds run with planted flags (`tests/e2e/flags.py`).
pub const OBSERVED_ON: &[&str] = &["2.1.287", "2.1.310", "2.1.336"];
/// Builds whose code reads every flag of this module (`scripts/mcp-flags`).
pub const READ_IN: (&str, &str) = ("2.1.287", "2.1.336");

/// The stdio servers' negotiation flag.
pub const NEGOTIATION_STDIO: &str = "tengu_mcp_protocol_negotiation_stdio";
/// The HTTP servers' negotiation flag.
pub const NEGOTIATION_HTTP: &str = "tengu_mcp_protocol_negotiation_http";
/// A list of hosts (`*`: every server) that get the legacy handshake.
pub const DENYLIST: &str = "tengu_mcp_negotiation_server_denylist";

/// The transports' negotiation flags (claude.ai connectors and remote sessions have
/// `tengu_mcp_protocol_negotiation_claudeai` and `_ccr`, which no configured server uses).
pub const TRANSPORT_FLAGS: [(Transport, &str); 2] = [
    (Transport::Stdio, NEGOTIATION_STDIO),
    (Transport::Http, NEGOTIATION_HTTP),
];

/// The variables that turn Claude Code's feature flags off (every flag reads its
/// default): set to any non-empty value for the first two, a true value (`1`, `true`,
/// `yes`, `on`) for the others, as the 2.1.336 code reads them.
pub const FLAGS_OFF_VARS: [&str; 5] = [
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
    "DISABLE_TELEMETRY",
    "DO_NOT_TRACK",
    "CLAUDE_CODE_DISABLE_FEATURE_FLAGS",
    "DISABLE_GROWTHBOOK",
];
/// Makes the cached flags count while telemetry is off (not while
/// `CLAUDE_CODE_DISABLE_FEATURE_FLAGS` or `DISABLE_GROWTHBOOK` is set).
pub const DISK_CACHE_VAR: &str = "CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF";

/// A server's transport, as the flags see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    Http,
    Sse,
}

/// A configured server's transport as the flags see it, with its URL (remote ones).
pub fn transport_of(kind: TransportKind, url: &str) -> (Transport, Option<&str>) {
    match kind {
        TransportKind::Stdio => (Transport::Stdio, None),
        TransportKind::Http => (Transport::Http, Some(url)),
        TransportKind::Sse => (Transport::Sse, Some(url)),
    }
}

/// What `.claude.json` caches of the flags that pick the handshake, and whether Claude
/// Code reads them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CachedFlags {
    /// `.claude.json` was read (a JSON object); false: absent or unreadable.
    pub readable: bool,
    /// [`NEGOTIATION_STDIO`] as cached: `Some(Some(b))` a boolean, `Some(None)` cached
    /// but not a boolean (counts as the default), `None` not cached.
    pub stdio: Option<Option<bool>>,
    /// [`NEGOTIATION_HTTP`], the same way.
    pub http: Option<Option<bool>>,
    /// [`DENYLIST`]: its string entries (`None`: not cached or not a list).
    pub denylist: Option<Vec<String>>,
    /// The variable (and where it is set) that turns the flags off; `None`: they are on.
    pub off_by: Option<String>,
}

impl CachedFlags {
    /// The flags of `claude_json` (`None`: the file absent or unreadable).
    pub fn from_claude_json(claude_json: Option<&serde_json::Value>) -> CachedFlags {
        let Some(doc) = claude_json.filter(|d| d.is_object()) else {
            return CachedFlags::default();
        };
        let features = doc.get("cachedGrowthBookFeatures");
        let get = |name: &str| features.and_then(|f| f.get(name));
        let boolean = |name: &str| get(name).map(serde_json::Value::as_bool);
        CachedFlags {
            readable: true,
            stdio: boolean(NEGOTIATION_STDIO),
            http: boolean(NEGOTIATION_HTTP),
            denylist: get(DENYLIST).and_then(|v| v.as_array()).map(|a| {
                a.iter()
                    .filter_map(|e| e.as_str().filter(|s| !s.is_empty()))
                    .map(str::to_string)
                    .collect()
            }),
            off_by: None,
        }
    }

    /// The transport's flag as cached (see [`CachedFlags::stdio`]).
    pub fn transport_flag(&self, t: Transport) -> Option<Option<bool>> {
        match t {
            Transport::Stdio => self.stdio,
            Transport::Http => self.http,
            Transport::Sse => None,
        }
    }
}

/// Which variable turns the flags off: `lookup(var)` gives a variable's value and where
/// it is set (`environment`, `user (<file>)`...), as the settings layers and the
/// environment resolve it. `None`: the flags are on.
pub fn flags_off_by(lookup: impl Fn(&str) -> Option<(String, String)>) -> Option<String> {
    let truthy = |v: &str| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    };
    let disk = lookup(DISK_CACHE_VAR).is_some_and(|(v, _)| !v.is_empty());
    FLAGS_OFF_VARS.iter().enumerate().find_map(|(i, var)| {
        let (value, by) = lookup(var)?;
        let off = if i < 2 {
            !value.is_empty()
        } else {
            truthy(&value)
        };
        // the disk cache counts again for the telemetry switches, not for the flag switches
        (off && !(disk && i < 3)).then(|| format!("{var} ({by})"))
    })
}

/// The transport flag's default on `build` (what Claude Code does with nothing cached).
pub fn default_negotiates(t: Transport, build: ClaudeVersion) -> bool {
    match t {
        Transport::Stdio => build.stdio_defaults_to_modern(),
        Transport::Http => true,
        Transport::Sse => false,
    }
}

/// Whether the flags let a server of transport `t` negotiate on `build`, with
/// `MCP_PROTOCOL_NEGOTIATION` unset (before the denylist).
pub fn flag_negotiates(t: Transport, build: ClaudeVersion, flags: &CachedFlags) -> bool {
    if t == Transport::Sse {
        return false;
    }
    match (&flags.off_by, flags.transport_flag(t)) {
        (None, Some(Some(b))) => b,
        _ => default_negotiates(t, build),
    }
}

/// Whether `list` names a server at `url` (`None`: a stdio server): `*` names every
/// server; an entry names a host equal to it or below it (`example.com` names
/// `mcp.example.com`), compared without case.
pub fn denylist_matches(list: &[String], url: Option<&str>) -> bool {
    if list.iter().any(|e| e == "*") {
        return true;
    }
    let Some(host) = url.and_then(host_of) else {
        return false;
    };
    list.iter().any(|e| {
        let e = e.to_ascii_lowercase();
        host == e || host.ends_with(&format!(".{e}"))
    })
}

/// The lower-case host of a URL (`http://[::1]:8080/x` -> `[::1]`).
fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if authority.starts_with('[') {
        authority.split_inclusive(']').next()?
    } else {
        authority.split(':').next()?
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Whether a server of transport `t` at `url` negotiates on `build` with
/// `MCP_PROTOCOL_NEGOTIATION` unset: its transport's flag, then the denylist.
pub fn negotiates(
    t: Transport,
    url: Option<&str>,
    build: ClaudeVersion,
    flags: &CachedFlags,
) -> bool {
    flag_negotiates(t, build, flags)
        && !(flags.off_by.is_none()
            && flags
                .denylist
                .as_deref()
                .is_some_and(|l| denylist_matches(l, url)))
}

/// Why the flags gave a server of transport `t` at `url` the legacy handshake with
/// `MCP_PROTOCOL_NEGOTIATION` unset, in words (`None`: they did not, or not by a cached
/// value: the build's default decides then).
pub fn legacy_because(t: Transport, url: Option<&str>, flags: &CachedFlags) -> Option<String> {
    if flags.off_by.is_some() {
        return None;
    }
    let name = TRANSPORT_FLAGS
        .iter()
        .find(|(x, _)| *x == t)
        .map(|(_, n)| *n);
    if let (Some(name), Some(Some(false))) = (name, flags.transport_flag(t)) {
        return Some(format!(
            "the feature flag {name} cached false in .claude.json gives it the legacy handshake"
        ));
    }
    flags
        .denylist
        .as_deref()
        .filter(|l| denylist_matches(l, url))
        .map(|_| {
            format!("the feature flag {DENYLIST} cached in .claude.json names it, which gives it the legacy handshake")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(p: u32) -> ClaudeVersion {
        ClaudeVersion::parse(&format!("2.1.{p}")).unwrap()
    }

    fn cached(doc: serde_json::Value) -> CachedFlags {
        CachedFlags::from_claude_json(Some(
            &serde_json::json!({ "cachedGrowthBookFeatures": doc }),
        ))
    }

    #[test]
    fn the_transport_flag_decides_and_a_non_boolean_is_the_default() {
        // as observed (tests/fixtures/flags): stdio-false, stdio-true, stdio-string
        let f = cached(serde_json::json!({ NEGOTIATION_STDIO: false }));
        assert!(!flag_negotiates(Transport::Stdio, v(336), &f));
        assert!(!flag_negotiates(Transport::Stdio, v(287), &f));
        assert!(flag_negotiates(Transport::Http, v(336), &f));
        let f = cached(serde_json::json!({ NEGOTIATION_STDIO: true }));
        assert!(flag_negotiates(Transport::Stdio, v(287), &f));
        let f =
            cached(serde_json::json!({ NEGOTIATION_STDIO: "false", NEGOTIATION_HTTP: "false" }));
        assert!(!flag_negotiates(Transport::Stdio, v(287), &f));
        assert!(flag_negotiates(Transport::Stdio, v(310), &f));
        assert!(flag_negotiates(Transport::Http, v(310), &f));
        let f = cached(serde_json::json!({ NEGOTIATION_HTTP: false }));
        assert!(!flag_negotiates(Transport::Http, v(287), &f));
        assert!(!flag_negotiates(
            Transport::Sse,
            v(336),
            &CachedFlags::default()
        ));
    }

    #[test]
    fn the_denylist_names_hosts_below_an_entry_and_star_names_every_server() {
        let l = |e: &[&str]| e.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(denylist_matches(
            &l(&["127.0.0.1"]),
            Some("http://127.0.0.1:43020/mcp")
        ));
        assert!(!denylist_matches(&l(&["127.0.0.1"]), None));
        assert!(denylist_matches(&l(&["*"]), None));
        assert!(denylist_matches(
            &l(&["Example.com"]),
            Some("https://mcp.example.COM/x")
        ));
        assert!(!denylist_matches(
            &l(&["example.com"]),
            Some("https://notexample.com/")
        ));
        // a URL's hostname keeps the brackets of an IPv6 address (as JavaScript's URL does)
        assert!(!denylist_matches(&l(&["::1"]), Some("http://[::1]:8/")));
        assert!(denylist_matches(
            &l(&["[::1]"]),
            Some("http://u:p@[::1]:8/")
        ));
        let f = cached(serde_json::json!({ DENYLIST: ["127.0.0.1"] }));
        assert!(!negotiates(
            Transport::Http,
            Some("http://127.0.0.1:1/mcp"),
            v(310),
            &f
        ));
        assert!(negotiates(Transport::Stdio, None, v(310), &f));
    }

    #[test]
    fn telemetry_off_turns_the_flags_off_unless_the_disk_cache_variable_is_set() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (v.to_string(), "environment".to_string()))
            }
        };
        assert_eq!(flags_off_by(env(&[])), None);
        assert_eq!(
            flags_off_by(env(&[("DISABLE_TELEMETRY", "1")])).as_deref(),
            Some("DISABLE_TELEMETRY (environment)")
        );
        assert_eq!(flags_off_by(env(&[("DO_NOT_TRACK", "0")])), None);
        assert_eq!(
            flags_off_by(env(&[("DISABLE_TELEMETRY", "1"), (DISK_CACHE_VAR, "1")])),
            None
        );
        assert!(
            flags_off_by(env(&[
                ("DISABLE_GROWTHBOOK", "true"),
                (DISK_CACHE_VAR, "1")
            ]))
            .is_some()
        );
        let mut f = cached(serde_json::json!({ NEGOTIATION_STDIO: false, DENYLIST: ["*"] }));
        f.off_by = Some("DISABLE_TELEMETRY (environment)".into());
        assert!(negotiates(Transport::Stdio, None, v(336), &f));
    }
}
