//! From what the server did to what a given Claude Code build will conclude, in
//! mcplogs' verdict vocabulary. What each build does is not written here: it is read from
//! the one model, `claude_code::lifecycle` (negotiation defaults, envelope fields, page
//! cap and cursor guard, tool defects, capability gating).

use crate::classify::verdict::{Cause, Era, Verdict};
use crate::settings::NegotiationValue;

use super::session::{Attempt, ListFailure, Mode, NegotiatedEra};
use super::transport::Failure;
use super::validate::{ListCheck, check_pages};
use crate::claude_code::config::TransportKind;

use crate::claude_code::lifecycle::{self, List};
pub use crate::claude_code::lifecycle::{ClaudeVersion, NEWEST_KNOWN, OBSERVED};

/// Which handshake Claude Code starts for this transport and setting.
pub fn mode_for(
    transport: TransportKind,
    negotiation: Option<&NegotiationValue>,
    version: ClaudeVersion,
) -> Mode {
    if transport == TransportKind::Sse && !lifecycle::SSE_NEGOTIATES.value {
        return Mode::Legacy;
    }
    let negotiates = match negotiation {
        Some(NegotiationValue::Legacy) => false,
        Some(NegotiationValue::Auto) => true,
        _ => match transport {
            TransportKind::Http => lifecycle::HTTP_NEGOTIATES.value,
            _ => version.stdio_defaults_to_modern(),
        },
    };
    if negotiates {
        Mode::Discover
    } else {
        Mode::Legacy
    }
}

/// One limit Claude Code applies, and where its value comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeoutSetting {
    /// `MCP_TIMEOUT` or `MCP_CONNECT_TIMEOUT_MS`.
    pub var: &'static str,
    pub ms: u64,
    /// The value as written in the deciding layer; `None`: nothing sets it.
    pub raw: Option<String>,
    /// `environment`, `user (/home/u/.claude/settings.json)`...; `None`: the default.
    pub decided_by: Option<String>,
}

impl TimeoutSetting {
    /// `MCP_TIMEOUT=300 ms (environment)`, `MCP_TIMEOUT 30000 ms (default)`.
    pub fn describe(&self) -> String {
        match &self.decided_by {
            Some(by) => format!("{}={} ms ({by})", self.var, self.ms),
            None => format!("{} {} ms (default)", self.var, self.ms),
        }
    }
}

/// The limits a prediction is made with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeTimeouts {
    /// `MCP_TIMEOUT`.
    pub request: TimeoutSetting,
    /// `MCP_CONNECT_TIMEOUT_MS` (blocking `-p` only).
    pub connect_wait: TimeoutSetting,
}

impl Default for ProbeTimeouts {
    fn default() -> Self {
        let d = lifecycle::Timeouts::default();
        ProbeTimeouts {
            request: TimeoutSetting {
                var: lifecycle::MCP_TIMEOUT_VAR,
                ms: d.request_ms,
                raw: None,
                decided_by: None,
            },
            connect_wait: TimeoutSetting {
                var: lifecycle::CONNECT_TIMEOUT_VAR,
                ms: d.connect_wait_ms,
                raw: None,
                decided_by: None,
            },
        }
    }
}

impl ProbeTimeouts {
    /// What `version` takes from each variable's layers (highest precedence first, the
    /// environment last; [`crate::settings::env::env_values`]), through the model.
    pub fn from_layers(
        version: ClaudeVersion,
        request: &[crate::settings::env::EnvValue],
        connect_wait: &[crate::settings::env::EnvValue],
    ) -> ProbeTimeouts {
        let pick =
            |var: &'static str, layers: &[crate::settings::env::EnvValue], project_rule: bool| {
                let view: Vec<(bool, Option<&str>)> = layers
                    .iter()
                    .map(|l| (project_rule && l.is_project(), l.value.as_deref()))
                    .collect();
                let (i, ms) = if project_rule {
                    lifecycle::deciding_timeout(version, &view)
                } else {
                    lifecycle::deciding_connect_wait(&view)
                };
                TimeoutSetting {
                    var,
                    ms,
                    raw: i.and_then(|i| layers[i].value.clone()),
                    decided_by: i.map(|i| layers[i].describe()),
                }
            };
        ProbeTimeouts {
            request: pick(lifecycle::MCP_TIMEOUT_VAR, request, true),
            connect_wait: pick(lifecycle::CONNECT_TIMEOUT_VAR, connect_wait, false),
        }
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
    /// For `lists-rejected`: `prompts`, `resources`.
    pub lost_lists: Vec<String>,
    /// For `tolerated`: the lists Claude Code fills in (`tools`, `prompts`...).
    pub filled_lists: Vec<String>,
    /// The `MCP_TIMEOUT` predicted with, in ms.
    pub timeout_ms: Option<u64>,
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
        d.lost_lists = self.lost_lists.clone();
        d.filled_lists = self.filled_lists.clone();
        d.timeout_ms = self.timeout_ms;
        d
    }
}

/// The verdict Claude Code `version` reaches on `attempt` (which must have been run in
/// the mode [`mode_for`] picks), with the setting `negotiation` noted.
pub fn predict(
    attempt: &Attempt,
    transport: TransportKind,
    version: ClaudeVersion,
    negotiation: Option<String>,
    timeouts: &ProbeTimeouts,
    server: &Served,
) -> Prediction {
    let mut p = predict_tools(attempt, transport, version, negotiation, timeouts);
    uncertain_note(&mut p, version);
    if p.verdict.is_problem() && p.verdict != Verdict::Degraded {
        return p;
    }
    tools_left_out(&mut p, attempt, version, server);
    lists_verdict(&mut p, attempt, version);
    strays_note(&mut p, attempt);
    connect_wait_note(&mut p, attempt, timeouts);
    p
}

/// The prediction for a handshake the probe did not run (the budget was spent before
/// it): unknown, with `reason` saying why.
pub fn not_run(
    mode: Mode,
    version: ClaudeVersion,
    negotiation: Option<String>,
    reason: String,
) -> Prediction {
    Prediction {
        claude_version: version,
        negotiation,
        mode,
        verdict: Verdict::Unknown,
        cause: None,
        era: None,
        negotiated_version: None,
        filled_fields: Vec::new(),
        bad_tool_path: None,
        tools_loaded: 0,
        lost_lists: Vec::new(),
        filled_lists: Vec::new(),
        timeout_ms: None,
        reason,
    }
}

/// A build inside a range not bisected: the prediction takes the older builds' side of
/// each such behaviour, and says so.
fn uncertain_note(p: &mut Prediction, version: ClaudeVersion) {
    for row in version.uncertain() {
        p.reason = format!(
            "{}; uncertain: Claude Code {version} lies between {} (without {}) and {} (with it), and was not observed: predicted as {}",
            p.reason,
            row.last_without,
            row.behaviour.name(),
            row.first_with,
            row.last_without
        );
    }
}

fn predict_tools(
    attempt: &Attempt,
    transport: TransportKind,
    version: ClaudeVersion,
    negotiation: Option<String>,
    timeouts: &ProbeTimeouts,
) -> Prediction {
    let limit = &timeouts.request;
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
        lost_lists: Vec::new(),
        filled_lists: Vec::new(),
        timeout_ms: Some(limit.ms),
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
            // scan's cause: a server that speaks only the new protocol
            Failure::VersionUnsupported { version } => (
                Verdict::VersionUnsupported,
                crate::claude_code::lifecycle::newer_than_legacy_handshake(version)
                    .then_some(Cause::ModernOnly),
            ),
            // scan's cause for the same failure in Claude Code's log
            Failure::Http {
                cause: Some(cause), ..
            } => (Verdict::ConnectionFailed, Some(*cause)),
            // a proxy's `407 Proxy Authentication Required` (scan: `(407)`)
            Failure::HttpStatus { status: 407, .. } => {
                (Verdict::ConnectionFailed, Some(Cause::ProxyRefused))
            }
            // an error answer to initialize, as Claude Code logs it
            // (`Connection failed (-32602): Unsupported protocol version`): scan's cause
            Failure::BadInitResult { message } if logged_cause(message).is_some() => {
                (Verdict::ConnectionFailed, logged_cause(message))
            }
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
        p.reason = match f {
            Failure::Timeout { waited_ms } => {
                timeout_reason("the handshake", *waited_ms, limit, version)
            }
            _ => f.to_string(),
        };
        return p;
    }
    // an answer that came in the probe's margin, past Claude Code's limit
    if let Some(ms) = attempt.handshake_ms.filter(|ms| *ms > limit.ms) {
        p.verdict = Verdict::ConnectionFailed;
        p.cause = Some(Cause::Timeout);
        p.era = None;
        p.negotiated_version = None;
        p.reason = format!(
            "the handshake took {ms} ms, past {}: Claude Code {version} gives up on the connection (CONNECT_TIMEOUT)",
            limit.describe()
        );
        return p;
    }
    // the negotiating path: server/discover failed, then the classic initialize, which
    // gets only part of MCP_TIMEOUT (the model's budget)
    if attempt.mode == Mode::Discover
        && attempt.era == Some(NegotiatedEra::Legacy)
        && let Some(init) = attempt
            .steps
            .iter()
            .find(|s| s.name == "initialize" && s.ok)
    {
        let budget =
            lifecycle::initialize_budget_ms(version, transport == TransportKind::Http, limit.ms);
        if init.ms > budget {
            p.verdict = Verdict::ConnectionFailed;
            p.cause = Some(Cause::Timeout);
            p.era = None;
            p.negotiated_version = None;
            p.reason = format!(
                "server/discover failed, so Claude Code {version} sent initialize, which answered after {} ms: on this path initialize gets only about {budget} ms of {} (the rest is held for server/discover), so Claude Code gives up on the connection (CONNECT_TIMEOUT: Request timed out); under MCP_PROTOCOL_NEGOTIATION=legacy initialize gets all of it",
                init.ms,
                limit.describe()
            );
            return p;
        }
    }
    if !attempt.has_tools_capability() {
        let offers_other = attempt.capabilities.as_ref().is_some_and(|c| {
            ["prompts", "resources"]
                .iter()
                .any(|k| c.get(k).is_some_and(|v| !v.is_null()))
        });
        p.reason =
            "connected; the server declares no tools capability, so Claude Code never sends tools/list and lists no tools"
                .into();
        if lifecycle::TOOLS_NEED_CAPABILITY.value && !offers_other {
            p.verdict = Verdict::ToolsFetchFailed;
            p.cause = Some(Cause::NoToolsCapability);
        }
        return p;
    }
    let modern = attempt.era == Some(NegotiatedEra::Modern);
    let cap = version.page_cap();
    let pages = &attempt.pages[..attempt.pages.len().min(cap)];
    let check = check_pages(pages, modern);
    // Claude Code stops walking at its page cap (every build) and, from the cursor guard's build on, at a
    // cursor it already sent, keeping the tools so far (the model's rows).
    let mut truncated = attempt.pages.len() > cap;
    let stopped = match &attempt.list_failure {
        Some(ListFailure::RepeatedCursor { page, cursor })
            if version.stops_at_repeated_cursor() =>
        {
            Some(format!(
                "page {page} repeats nextCursor {cursor:?}: Claude Code {version} stops following it and keeps the tools so far"
            ))
        }
        Some(ListFailure::RepeatedCursor { page, cursor }) => {
            truncated = true;
            Some(format!(
                "page {page} repeats nextCursor {cursor:?}: Claude Code {version} follows it until its {cap}-page cap and keeps each tool once"
            ))
        }
        // Claude Code's own cap comes first: the note below says so
        Some(ListFailure::PageCap { .. } | ListFailure::ToolCap { .. })
            if attempt.pages.len() >= cap =>
        {
            None
        }
        Some(ListFailure::PageCap { pages }) => Some(format!(
            "mcplogs stopped after {pages} pages (--max-pages); Claude Code {version} would follow up to {cap}"
        )),
        Some(ListFailure::ToolCap { tools }) => Some(format!(
            "mcplogs stopped after {}",
            crate::text::count(*tools, "tool")
        )),
        _ => None,
    };
    if matches!(attempt.list_failure, Some(ListFailure::PageCap { .. }))
        && attempt.pages.len() >= cap
    {
        truncated = true;
    }
    let stopped = stopped.or_else(|| {
        truncated.then(|| {
            let all = check_pages(&attempt.pages, modern).valid;
            let more = if matches!(attempt.list_failure, Some(ListFailure::PageCap { .. })) {
                "+"
            } else {
                ""
            };
            format!(
                "Claude Code {version} stops after {cap} pages: {} of {all}{more} tools",
                check.valid
            )
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
            ListFailure::Timeout { .. } => Cause::ToolsTimeout,
            _ => Cause::Other,
        });
        p.reason = match lf {
            ListFailure::Timeout { page } => {
                let waited = page_ms(attempt, *page).unwrap_or(0);
                timeout_reason(&format!("tools/list page {page}"), waited, limit, version)
            }
            _ => format!("tools/list failed: {lf}"),
        };
        return p;
    }
    if let Some((page, ms)) = (1..=attempt.pages.len())
        .filter_map(|pg| page_ms(attempt, pg).map(|ms| (pg, ms)))
        .find(|(_, ms)| *ms > limit.ms)
    {
        p.verdict = Verdict::ToolsFetchFailed;
        p.cause = Some(Cause::ToolsTimeout);
        p.reason = format!(
            "tools/list page {page} took {ms} ms, past {}: Claude Code {version} gives up on the tools (`Failed to fetch tools: Request timed out`, no retry)",
            limit.describe()
        );
        return p;
    }
    list_verdict(&mut p, &check, modern, version);
    if truncated && matches!(p.verdict, Verdict::Healthy | Verdict::Tolerated) {
        p.verdict = Verdict::Degraded;
        p.cause = Some(Cause::PaginationTruncated);
    }
    if let Some(note) = stopped {
        p.reason = format!("{}; {note}", p.reason);
    }
    if !p.verdict.is_problem() || p.verdict == Verdict::Degraded {
        let renamed = renamed_tools(pages);
        if !renamed.is_empty() {
            p.reason = format!(
                "{}; renamed by Claude Code: {}",
                p.reason,
                renamed.join(", ")
            );
        }
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

/// How long the `tools/list` request of `page` took.
fn page_ms(attempt: &Attempt, page: usize) -> Option<u64> {
    let name = format!("tools/list page {page}");
    attempt.steps.iter().find(|s| s.name == name).map(|s| s.ms)
}

/// Why a request without an answer means what it means: past Claude Code's limit, or
/// the probe gave up first (`--timeout` shorter than the limit).
fn timeout_reason(
    what: &str,
    waited_ms: u64,
    limit: &TimeoutSetting,
    version: ClaudeVersion,
) -> String {
    if waited_ms < limit.ms {
        format!(
            "{what} got no answer in the {waited_ms} ms mcplogs waited (--timeout), before Claude Code's limit, {}: the probe cannot tell whether Claude Code {version} gets one; run it with a longer --timeout",
            limit.describe()
        )
    } else {
        format!(
            "{what} got no answer within {}: Claude Code {version} gives up there (`Request timed out`, no retry)",
            limit.describe()
        )
    }
}

/// `prompts/list` and `resources/list` as `version` takes them: under 2026-07-28 a
/// result without `resultType`/`ttlMs`/`cacheScope` is rejected (the list is lost, the
/// tools load) or filled in, per the model.
fn lists_verdict(p: &mut Prediction, attempt: &Attempt, version: ClaudeVersion) {
    let modern = attempt.era == Some(NegotiatedEra::Modern);
    let mut notes = Vec::new();
    for fetch in &attempt.lists {
        let Ok(result) = &fetch.result else {
            notes.push(format!(
                "{} failed: {}",
                fetch.list.method(),
                fetch
                    .result
                    .as_ref()
                    .err()
                    .map(ToString::to_string)
                    .unwrap_or_default()
            ));
            continue;
        };
        let missing: Vec<String> = super::validate::check_list_envelope(result, modern)
            .into_iter()
            .filter(|e| e.kind == super::validate::EnvelopeKind::Missing)
            .map(|e| e.field)
            .collect();
        if missing.is_empty() {
            continue;
        }
        if version.fills_missing_fields(fetch.list) {
            for f in &missing {
                if !p.filled_fields.contains(f) {
                    p.filled_fields.push(f.clone());
                }
            }
            p.filled_lists.push(fetch.list.what().to_string());
            notes.push(format!(
                "{} omits {}; Claude Code {version} fills them in",
                fetch.list.method(),
                missing.join(", ")
            ));
        } else {
            p.lost_lists.push(fetch.list.what().to_string());
            notes.push(format!(
                "{} omits {} although 2026-07-28 was negotiated: Claude Code {version} rejects it and loses the server's {}",
                fetch.list.method(),
                missing.join(", "),
                fetch.list.what()
            ));
        }
    }
    p.lost_lists.sort();
    if !p.lost_lists.is_empty() {
        if p.verdict == Verdict::Healthy || p.verdict == Verdict::Tolerated {
            p.verdict = Verdict::Degraded;
            p.cause = Some(Cause::ListsRejected);
        }
        notes.push("its tools load".into());
    } else if !p.filled_fields.is_empty() && p.verdict == Verdict::Healthy {
        p.verdict = Verdict::Tolerated;
    }
    if !notes.is_empty() {
        p.reason = format!("{}; {}", p.reason, notes.join("; "));
    }
}

/// The server as Claude Code names and reaches it: what decides which listed tools
/// reach the model.
#[derive(Debug, Clone, Copy)]
pub struct Served<'a> {
    /// The configured name (the `<server>` of `mcp__<server>__<tool>`).
    pub name: &'a str,
    pub transport: TransportKind,
}

/// Tools that are listed and valid but never reach the model: an invalid `x-mcp-header`
/// declaration on a 2026-07-28 HTTP connection, a full name over the limit (the model's
/// rows). Only those tools are lost: the server is degraded.
fn tools_left_out(p: &mut Prediction, attempt: &Attempt, version: ClaudeVersion, server: &Served) {
    let modern = attempt.era == Some(NegotiatedEra::Modern);
    let header_check = lifecycle::HEADER_CHECK_ON_MODERN_HTTP.value
        && modern
        && server.transport == TransportKind::Http;
    let pages = &attempt.pages[..attempt.pages.len().min(version.page_cap())];
    let mut excluded = Vec::new();
    let mut too_long = Vec::new();
    for t in pages
        .iter()
        .filter_map(|pg| pg.get("tools").and_then(|t| t.as_array()))
        .flatten()
    {
        let Some(name) = t.get("name").and_then(|n| n.as_str()) else {
            continue;
        };
        if header_check
            && let Some(why) = t
                .get("inputSchema")
                .and_then(super::validate::x_mcp_header_problem)
        {
            excluded.push(format!("{name:?} ({why})"));
        } else if !lifecycle::sends_tool_name(version, server.name, name) {
            too_long.push(format!(
                "{name:?} ({} characters as {})",
                lifecycle::model_tool_name(server.name, name)
                    .chars()
                    .count(),
                crate::text::cut(&lifecycle::model_tool_name(server.name, name), 40)
            ));
        }
    }
    if excluded.is_empty() && too_long.is_empty() {
        return;
    }
    p.tools_loaded = p
        .tools_loaded
        .saturating_sub(excluded.len() + too_long.len());
    if matches!(p.verdict, Verdict::Healthy | Verdict::Tolerated) {
        p.verdict = Verdict::Degraded;
        p.cause = Some(if excluded.is_empty() {
            Cause::ToolNameTooLong
        } else {
            Cause::ToolHeaderInvalid
        });
    }
    if !excluded.is_empty() {
        p.reason = format!(
            "{}; Claude Code {version} leaves out {} tool(s) with an invalid x-mcp-header declaration on a 2026-07-28 HTTP connection: {}",
            p.reason,
            excluded.len(),
            excluded.join(", ")
        );
    }
    if !too_long.is_empty() {
        p.reason = format!(
            "{}; Claude Code {version} does not send {} tool(s) whose full name is longer than {} characters: {}",
            p.reason,
            too_long.len(),
            lifecycle::TOOL_NAME_MAX_CHARS.value,
            too_long.join(", ")
        );
    }
}

/// What the builds do with responses that answer no pending request (the model's rows).
fn strays_note(p: &mut Prediction, attempt: &Attempt) {
    use super::session::StrayKind;
    for s in &attempt.strays {
        let what = s.method.as_deref().unwrap_or("a request");
        let note = match s.kind {
            StrayKind::BeforeRequest if lifecycle::EARLY_RESPONSE_DROPPED.value => format!(
                "a response to id {} arrived before {what} was sent: Claude Code drops it and uses the real answer",
                s.id
            ),
            StrayKind::Duplicate if lifecycle::FIRST_ANSWER_TAKEN.value => format!(
                "two responses to id {} ({what}), one written before the server read the request: Claude Code takes the first, as the probe did, and ignores the other",
                s.id
            ),
            _ => continue,
        };
        p.reason = format!("{}; {note}", p.reason);
    }
}

/// Blocking `claude -p` waits `MCP_CONNECT_TIMEOUT_MS` for servers, then goes on with
/// the slower ones `pending` (their connection continues in the background).
fn connect_wait_note(p: &mut Prediction, attempt: &Attempt, timeouts: &ProbeTimeouts) {
    let wait = &timeouts.connect_wait;
    if attempt.elapsed_ms > wait.ms {
        p.reason = format!(
            "{}; it needed {} ms in all, more than a blocking `claude -p` waits ({}): -p starts without it (status `pending`), an interactive session gets it when it is ready",
            p.reason,
            attempt.elapsed_ms,
            wait.describe()
        );
    }
}

/// Tool names Claude Code shows under another name (`"a b" -> a_b`), from the model.
pub fn renamed_tools(pages: &[serde_json::Value]) -> Vec<String> {
    let mut out = Vec::new();
    for page in pages {
        for t in page
            .get("tools")
            .and_then(|t| t.as_array())
            .into_iter()
            .flatten()
        {
            if let Some(name) = t.get("name").and_then(|n| n.as_str())
                && lifecycle::renames(name).is_some()
            {
                out.push(format!(
                    "{name:?} -> {:?}",
                    lifecycle::model_tool_part(name)
                ));
            }
        }
    }
    out
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
            if version.fills_missing_fields(List::Tools) {
                p.verdict = Verdict::Tolerated;
                p.filled_fields = missing.clone();
                p.filled_lists.push(List::Tools.what().to_string());
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
        "{} on {}, all accepted{}",
        crate::text::count(check.valid, "tool"),
        crate::text::count(check.pages, "page"),
        if check.rejected.is_empty() {
            String::new()
        } else {
            format!(
                " ({} kept once)",
                crate::text::count(check.rejected.len(), "duplicate name")
            )
        }
    );
}

/// Scan's cause of an error answer to `initialize` (`initialize answered error -32602:
/// Unsupported protocol version`), read from the record Claude Code writes for it
/// (`Connection failed (-32602): Unsupported protocol version`): only a server that
/// speaks only the new protocol; any other error stays `other` as before.
fn logged_cause(message: &str) -> Option<Cause> {
    let (code, text) = message
        .strip_prefix("initialize answered error ")?
        .split_once(": ")?;
    crate::claude_code::lifecycle::refuses_legacy_version(&format!(
        "Connection failed ({code}): {text}"
    ))
    .then_some(Cause::ModernOnly)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_defaults_per_transport_and_version() {
        // the bisected boundary: 2.1.291 without, 2.1.292 with
        let old = ClaudeVersion(2, 1, 291);
        let new = ClaudeVersion(2, 1, 292);
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
}
