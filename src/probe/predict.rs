//! From what the server did to what a given Claude Code build will conclude, in
//! mcplogs' verdict vocabulary.
//!
//! Version families (reference section 3, all observed):
//! - stdio negotiation default: legacy on 2.1.280/2.1.288, modern on 2.1.300 and later
//!   (builds 2.1.289-2.1.299 were not observed; mcplogs takes them as legacy);
//! - HTTP: modern by default on every build; SSE: always legacy;
//! - `MCP_PROTOCOL_NEGOTIATION=auto` turns negotiation on, `=legacy` off; other values
//!   are ignored by Claude Code (the default applies);
//! - missing `resultType`/`ttlMs`/`cacheScope` under 2026-07-28: rejected by 2.1.280,
//!   2.1.288 and 2.1.300, filled in by 2.1.310 and later (2.1.301-2.1.309 not observed:
//!   taken as rejecting); wrong types are rejected by every build.

use std::fmt;

use crate::classify::verdict::{Cause, Era, Verdict};
use crate::settings::NegotiationValue;

use super::session::{Attempt, ListFailure, Mode, NegotiatedEra};
use super::transport::Failure;
use super::validate::{ListCheck, check_pages};
use crate::claude_code::config::TransportKind;

/// A Claude Code version `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ClaudeVersion(pub u32, pub u32, pub u32);

/// The builds whose behaviour was observed.
pub const KNOWN_VERSIONS: [ClaudeVersion; 6] = [
    ClaudeVersion(2, 1, 280),
    ClaudeVersion(2, 1, 288),
    ClaudeVersion(2, 1, 300),
    ClaudeVersion(2, 1, 310),
    ClaudeVersion(2, 1, 321),
    ClaudeVersion(2, 1, 332),
];
pub const NEWEST_KNOWN: ClaudeVersion = ClaudeVersion(2, 1, 332);
const STDIO_MODERN_FROM: ClaudeVersion = ClaudeVersion(2, 1, 300);
const FILLS_FIELDS_FROM: ClaudeVersion = ClaudeVersion(2, 1, 310);

impl ClaudeVersion {
    /// `2.1.288`, `v2.1.288` or `claude --version`'s `2.1.288 (Claude Code)`.
    pub fn parse(s: &str) -> Option<ClaudeVersion> {
        let word = s.split_whitespace().next()?;
        let word = word.strip_prefix('v').unwrap_or(word);
        let mut it = word.split('.').map(|p| p.parse::<u32>().ok());
        let v = ClaudeVersion(it.next()??, it.next()??, it.next()??);
        if it.next().is_some() {
            return None;
        }
        Some(v)
    }

    pub fn stdio_defaults_to_modern(self) -> bool {
        self >= STDIO_MODERN_FROM
    }

    /// The most `tools/list` pages Claude Code follows: 20 in 2.1.288, 250 in 2.1.332
    /// (constants in the binaries; builds before 2.1.310 are taken as 2.1.288).
    pub fn page_cap(self) -> usize {
        if self >= FILLS_FIELDS_FROM { 250 } else { 20 }
    }

    pub fn fills_missing_fields(self) -> bool {
        self >= FILLS_FIELDS_FROM
    }

    /// Whether this build's behaviour was observed, or is inferred from its neighbours.
    pub fn is_known(self) -> bool {
        KNOWN_VERSIONS.contains(&self)
    }

    pub fn is_older_than_known(self) -> bool {
        self < KNOWN_VERSIONS[0]
    }
}

impl fmt::Display for ClaudeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// Which handshake Claude Code starts for this transport and setting.
pub fn mode_for(
    transport: TransportKind,
    negotiation: Option<&NegotiationValue>,
    version: ClaudeVersion,
) -> Mode {
    if transport == TransportKind::Sse {
        return Mode::Legacy;
    }
    match negotiation {
        Some(NegotiationValue::Legacy) => Mode::Legacy,
        Some(NegotiationValue::Auto) => Mode::Discover,
        _ => match transport {
            TransportKind::Http => Mode::Discover,
            _ if version.stdio_defaults_to_modern() => Mode::Discover,
            _ => Mode::Legacy,
        },
    }
}

/// What Claude Code will conclude.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    pub claude_version: ClaudeVersion,
    /// The setting this prediction assumes (`None`: nothing set).
    pub negotiation: Option<String>,
    pub mode: Mode,
    pub verdict: Verdict,
    pub cause: Option<Cause>,
    pub era: Option<Era>,
    pub negotiated_version: Option<String>,
    /// Fields Claude Code will fill in (`tolerated`).
    pub filled_fields: Vec<String>,
    /// For a bad tool: where (`page 2, tools[1].inputSchema.type`).
    pub bad_tool_path: Option<String>,
    /// Tools Claude Code will load.
    pub tools_loaded: usize,
    /// One line: why.
    pub reason: String,
}

impl Prediction {
    pub fn diagnosis(&self) -> crate::classify::verdict::Diagnosis {
        let mut d = crate::classify::verdict::Diagnosis::new(self.verdict);
        d.cause = self.cause;
        d.era = self.era;
        d.negotiated_protocol_version = self.negotiated_version.clone();
        d.filled_fields = self.filled_fields.clone();
        d.bad_tool_path = self.bad_tool_path.clone();
        d
    }
}

/// The verdict Claude Code `version` reaches on `attempt` (which must have been run in
/// the mode [`mode_for`] picks), with the setting `negotiation` noted.
pub fn predict(
    attempt: &Attempt,
    version: ClaudeVersion,
    negotiation: Option<String>,
) -> Prediction {
    let era = attempt.era.map(|e| match e {
        NegotiatedEra::Modern => Era::Modern,
        NegotiatedEra::Legacy => Era::Legacy,
    });
    let mut p = Prediction {
        claude_version: version,
        negotiation,
        mode: attempt.mode,
        verdict: Verdict::Healthy,
        cause: None,
        era,
        negotiated_version: attempt.negotiated_version.clone(),
        filled_fields: Vec::new(),
        bad_tool_path: None,
        tools_loaded: 0,
        reason: String::new(),
    };
    if let Some(f) = &attempt.failure {
        let (verdict, cause) = match f {
            Failure::CommandNotFound { .. } => {
                (Verdict::ConnectionFailed, Some(Cause::CommandNotFound))
            }
            Failure::Closed { .. } => (Verdict::ConnectionFailed, Some(Cause::ConnectionClosed)),
            Failure::Timeout { .. } => (Verdict::ConnectionFailed, Some(Cause::Timeout)),
            Failure::NeedsAuth { .. } => (Verdict::ConnectionFailed, Some(Cause::NeedsAuth)),
            Failure::VersionUnsupported { .. } => (Verdict::VersionUnsupported, None),
            Failure::Spawn { .. }
            | Failure::HttpStatus { .. }
            | Failure::Http { .. }
            | Failure::BadInitResult { .. }
            | Failure::CrossOrigin { .. } => (Verdict::ConnectionFailed, Some(Cause::Other)),
        };
        p.verdict = verdict;
        p.cause = cause;
        p.era = None;
        p.negotiated_version = None;
        p.reason = f.to_string();
        return p;
    }
    if !attempt.has_tools_capability() {
        p.reason =
            "connected; the server declares no tools capability, so Claude Code lists no tools"
                .into();
        return p;
    }
    let modern = attempt.era == Some(NegotiatedEra::Modern);
    let cap = version.page_cap();
    let pages = &attempt.pages[..attempt.pages.len().min(cap)];
    let check = check_pages(pages, modern);
    // Claude Code stops walking at its page cap (every build) and at a cursor it already
    // sent (2.1.332: "tools/list returned a nextCursor already sent in this walk (page
    // N); stopping"; 2.1.288 follows it until the cap), keeping the tools so far.
    let stopped = match &attempt.list_failure {
        Some(ListFailure::RepeatedCursor { page, cursor }) => Some(format!(
            "page {page} repeats nextCursor {cursor:?}: Claude Code stops following it and keeps the tools so far"
        )),
        // Claude Code's own cap comes first: the note below says so
        Some(ListFailure::PageCap { .. } | ListFailure::ToolCap { .. })
            if attempt.pages.len() >= cap =>
        {
            None
        }
        Some(ListFailure::PageCap { pages }) => Some(format!(
            "mcplogs stopped after {pages} pages (--max-pages); Claude Code {version} would follow up to {cap}"
        )),
        Some(ListFailure::ToolCap { tools }) => {
            Some(format!("mcplogs stopped after {tools} tools"))
        }
        _ => None,
    };
    let stopped = stopped.or_else(|| {
        (attempt.pages.len() > cap).then(|| {
            format!("Claude Code {version} stops after {cap} pages and keeps the tools so far")
        })
    });
    let list_failure = attempt.list_failure.as_ref().filter(|f| {
        !matches!(
            f,
            ListFailure::RepeatedCursor { .. }
                | ListFailure::PageCap { .. }
                | ListFailure::ToolCap { .. }
        )
    });
    if let Some(lf) = list_failure {
        // pages before the failure do not matter: Claude Code keeps nothing
        p.verdict = Verdict::ToolsFetchFailed;
        p.cause = Some(match lf {
            ListFailure::Closed { .. } => Cause::ConnectionClosed,
            ListFailure::Timeout { .. } => Cause::Timeout,
            _ => Cause::Other,
        });
        p.reason = format!("tools/list failed: {lf}");
        return p;
    }
    list_verdict(&mut p, &check, modern, version);
    if let Some(note) = stopped {
        p.reason = format!("{}; {note}", p.reason);
    }
    if let Some(s) = attempt
        .steps
        .iter()
        .find(|s| s.name == "server/discover" && s.ms >= SLOW_DISCOVER_MS)
    {
        p.reason = format!(
            "{}; server/discover took {} ms, near or past the 3 s Claude Code waits for it on stdio (the 2.1.332 binary); past it, Claude Code sends initialize to the same process, and a server that rejects that and answers a second server/discover is connected on 2026-07-28 without a restart (observed with 2.1.288 and 2.1.332 on Python mcp 2.3.0)",
            p.reason, s.ms
        );
    }
    p
}

/// A `server/discover` answer this slow is near Claude Code's stdio probe wait (3000 ms
/// in the 2.1.332 binary).
const SLOW_DISCOVER_MS: u64 = 2000;

fn list_verdict(p: &mut Prediction, check: &ListCheck, modern: bool, version: ClaudeVersion) {
    // the order of mcplogs' classifier: a bad tool, wrong types, missing resultType,
    // missing cache fields
    if let Some(bad) = check.first_bad_tool() {
        p.verdict = Verdict::ToolsFetchFailed;
        p.cause = Some(Cause::InvalidToolDefinition);
        p.bad_tool_path = Some(bad.path.clone());
        p.reason = format!(
            "page {}, {}: {} ({}); one bad tool makes Claude Code drop the whole list",
            bad.page, bad.path, bad.detail, bad.reason
        );
        return;
    }
    if let Some(m) = check.malformed() {
        p.verdict = Verdict::ToolsFetchFailed;
        p.cause = Some(Cause::Other);
        p.reason = format!("page {}, {}: {}", m.page, m.field, m.detail);
        return;
    }
    if modern {
        if check.wrong_types() {
            let e = check
                .envelope
                .iter()
                .find(|e| e.kind == super::validate::EnvelopeKind::WrongType)
                .expect("wrong type");
            p.verdict = Verdict::ToolsFetchFailed;
            p.cause = Some(Cause::WrongFieldTypes);
            p.reason = format!(
                "page {}, {}: {}; every build rejects wrong types",
                e.page, e.field, e.detail
            );
            return;
        }
        let missing: Vec<String> = ["resultType", "ttlMs", "cacheScope"]
            .iter()
            .filter(|f| check.missing(f))
            .map(|f| f.to_string())
            .collect();
        if !missing.is_empty() {
            let first_page = check
                .envelope
                .iter()
                .find(|e| e.kind == super::validate::EnvelopeKind::Missing)
                .map_or(1, |e| e.page);
            if version.fills_missing_fields() {
                p.verdict = Verdict::Tolerated;
                p.filled_fields = missing.clone();
                p.tools_loaded = check.valid;
                p.reason = format!(
                    "the result omits {} (page {first_page}) although 2026-07-28 was negotiated; Claude Code {version} fills them in",
                    missing.join(", ")
                );
            } else {
                p.verdict = Verdict::ToolsFetchFailed;
                p.cause = Some(if check.missing("resultType") {
                    Cause::MissingResultType
                } else {
                    Cause::MissingCacheFields
                });
                p.reason = format!(
                    "the result omits {} (page {first_page}) although 2026-07-28 was negotiated; Claude Code {version} rejects it",
                    missing.join(", ")
                );
            }
            return;
        }
    }
    p.tools_loaded = check.valid;
    p.reason = format!(
        "{} tools on {} page(s), all accepted{}",
        check.valid,
        check.pages,
        if check.rejected.is_empty() {
            String::new()
        } else {
            format!(" ({} duplicate name(s) kept once)", check.rejected.len())
        }
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        assert_eq!(
            ClaudeVersion::parse("2.1.288 (Claude Code)"),
            Some(ClaudeVersion(2, 1, 288))
        );
        assert_eq!(ClaudeVersion::parse("v2.1.3"), Some(ClaudeVersion(2, 1, 3)));
        assert_eq!(ClaudeVersion::parse("2.1"), None);
        assert_eq!(ClaudeVersion::parse("2.1.x"), None);
    }

    #[test]
    fn negotiation_defaults_per_transport_and_version() {
        let old = ClaudeVersion(2, 1, 288);
        let new = ClaudeVersion(2, 1, 300);
        let auto = NegotiationValue::Auto;
        let legacy = NegotiationValue::Legacy;
        let junk = NegotiationValue::Unrecognised("on".into());
        assert_eq!(mode_for(TransportKind::Stdio, None, old), Mode::Legacy);
        assert_eq!(mode_for(TransportKind::Stdio, None, new), Mode::Discover);
        assert_eq!(
            mode_for(TransportKind::Stdio, Some(&auto), old),
            Mode::Discover
        );
        assert_eq!(
            mode_for(TransportKind::Stdio, Some(&junk), old),
            Mode::Legacy
        );
        assert_eq!(mode_for(TransportKind::Http, None, old), Mode::Discover);
        assert_eq!(
            mode_for(TransportKind::Http, Some(&legacy), new),
            Mode::Legacy
        );
        assert_eq!(mode_for(TransportKind::Sse, Some(&auto), new), Mode::Legacy);
    }

    #[test]
    fn fill_in_starts_at_2_1_310() {
        assert!(!ClaudeVersion(2, 1, 300).fills_missing_fields());
        assert!(ClaudeVersion(2, 1, 310).fills_missing_fields());
    }
}
