//! The classifier: from one session's decoded messages, in time order, to a diagnosis.
//! [`classify`] is the pure function over a slice; [`Classifier`] takes the messages one
//! at a time and keeps only its evidence, so a session of any length needs bounded memory.
//! Which of a server's sessions speaks for it is [`decide`]'s, in `decide.rs`.

mod decide;
#[cfg(test)]
mod remote_tests;
mod signal;
pub mod verdict;

pub use decide::{Decision, NewestFirst, decide, pick_deciding_session};
pub use signal::{Signal, read_signal, tools_failure_cause};

use crate::classify::verdict::{Cause, Diagnosis, Era, ToolsProof, Verdict};
use crate::claude_code::lifecycle;

/// A connection that stayed open longer than this was not a `claude mcp list` health
/// check. Health checks close at once (`STDIO connection closed after 0s`, observed in
/// every version), `claude -p` runs that only connect after 2 to 9 s (the samples), and
/// a server that never answers is given up after MCP_TIMEOUT (30 s by default); a
/// session that lasted minutes or hours was used. Two minutes leaves room for slow
/// starts without counting a short-lived process as proof.
pub const HEALTH_CHECK_MAX_SECS: u64 = 120;

/// At most this many records are kept as evidence of one failure (retries and reconnects
/// can repeat the same error dozens of times).
const MAX_FAILURE_EVIDENCE: usize = 4;

/// `E` is whatever stands for a record as evidence: an index for [`classify`], the
/// record itself when streaming.
#[derive(Debug)]
enum State<E> {
    Nothing,
    Connected {
        era: Option<Era>,
        version: Option<String>,
        capabilities: Option<std::sync::Arc<serde_json::Value>>,
        at: Option<E>,
        tolerated: Option<(Vec<String>, E)>,
        tools_failed: Option<ToolsFailure<E>>,
        later: Later<E>,
    },
    /// `true`: the server answered a version newer than the legacy handshake proposes.
    VersionUnsupported(bool, Vec<E>),
    ConnectionFailed(Cause, Vec<E>),
}

#[derive(Debug)]
struct ToolsFailure<E> {
    cause: Cause,
    bad_tool_path: Option<String>,
    evidence: Vec<E>,
    has_final: bool,
    /// The failure is of the refetch after `tools/list_changed`, the first listing
    /// having succeeded: Claude Code keeps the previous tools.
    after_refresh: bool,
}

/// What a connection logs after its handshake besides the tools verdict: the page cap,
/// rejected resources/prompts lists, the refresh that proved the first listing accepted.
#[derive(Debug)]
struct Later<E> {
    truncated: Option<E>,
    /// `resources` / `prompts`, with their latest record.
    lists_failed: Vec<(&'static str, E)>,
    /// The first `Received tools/list_changed` record of this connection that no tools
    /// failure preceded: the first listing was accepted, so Claude Code keeps its tools
    /// through every later refresh that fails, the second as well as the first (observed
    /// 2.1.288, 2.1.310, 2.1.332: `lc-one-bad`, `lc-twice-bad`, `lc-error`, `lc-hang`).
    listed: Option<E>,
}

impl<E> Default for Later<E> {
    fn default() -> Self {
        Later {
            truncated: None,
            lists_failed: Vec::new(),
            listed: None,
        }
    }
}

impl<E> State<E> {
    /// A connection whose start was not seen (trimmed logs): nothing known of it yet.
    fn connected_unseen() -> Self {
        State::Connected {
            era: None,
            version: None,
            capabilities: None,
            at: None,
            tolerated: None,
            tools_failed: None,
            later: Later::default(),
        }
    }
}

/// The classifier fed one message at a time.
#[derive(Debug)]
pub struct Classifier<E> {
    state: State<E>,
    /// The `MCP_TIMEOUT` of the latest `Starting connection` record.
    timeout_ms: Option<u64>,
    /// When the latest connection failed on a timeout, in ms.
    failed_after_ms: Option<u64>,
    /// Proof that the current connection's tools were loaded, with its first record.
    proof: Option<(ToolsProof, E)>,
    /// Tools Claude Code did not send to the model for their name's length: how many,
    /// and the first and latest records. Kept across reconnects: Claude Code logs each
    /// name once per process, and drops it again from every later list.
    not_sent: Option<(usize, Vec<E>)>,
    /// The transport the latest record naming one named.
    transport: Option<crate::classify::verdict::Transport>,
}

impl<E> Default for Classifier<E> {
    fn default() -> Self {
        Classifier {
            state: State::Nothing,
            timeout_ms: None,
            failed_after_ms: None,
            proof: None,
            not_sent: None,
            transport: None,
        }
    }
}

impl<E> Classifier<E> {
    /// Reads one message; `evidence` is called only when the message decides something.
    pub fn feed(&mut self, message: &str, evidence: impl FnOnce() -> E) {
        if let Some(t) = signal::transport_of(message) {
            self.transport = Some(t);
        }
        let Some(signal) = read_signal(message) else {
            return;
        };
        match signal {
            // How long a connection lasted changes no verdict; it proves the tools were
            // loaded only for a connection that is up (a failed one also closes).
            Signal::Closed { secs } => {
                if secs > HEALTH_CHECK_MAX_SECS
                    && matches!(self.state, State::Connected { .. })
                    && self.proof.is_none()
                {
                    self.proof = Some((ToolsProof::LongConnection { secs }, evidence()));
                }
            }
            Signal::Starting { timeout_ms } => self.timeout_ms = Some(timeout_ms),
            Signal::ToolNameTooLong => match &mut self.not_sent {
                Some((n, ev)) => {
                    *n += 1;
                    push_evidence(ev, evidence());
                }
                None => self.not_sent = Some((1, vec![evidence()])),
            },
            Signal::ToolCalled => {
                match &mut self.proof {
                    Some((ToolsProof::ToolCalls { calls }, _)) => *calls += 1,
                    _ => self.proof = Some((ToolsProof::ToolCalls { calls: 1 }, evidence())),
                }
                // A tool was called, so the tools were loaded, whatever failed before
                // (trimmed logs may lack the connection record; a refetch can succeed).
                let state = std::mem::replace(&mut self.state, State::Nothing);
                self.state = match state {
                    State::Connected {
                        era,
                        version,
                        capabilities,
                        at,
                        tolerated,
                        later,
                        ..
                    } => State::Connected {
                        era,
                        version,
                        capabilities,
                        at,
                        tolerated,
                        tools_failed: None,
                        later,
                    },
                    _ => State::connected_unseen(),
                };
            }
            signal => {
                // A new connection, or a failure, starts over: the proof was of the
                // previous connection.
                if !matches!(
                    signal,
                    Signal::Tolerated { .. }
                        | Signal::ToolsFailed { .. }
                        | Signal::PageCap
                        | Signal::ListChanged
                        | Signal::ListFailed { .. }
                ) {
                    self.proof = None;
                }
                // the latest failure's time, kept over a reconnection's records (the
                // `Connection failed (CONNECT_TIMEOUT)` record after it has none)
                match signal {
                    Signal::ConnectionFailed {
                        cause: Cause::Timeout,
                    } => {
                        if let Some(ms) = failed_after(message) {
                            self.failed_after_ms = Some(ms);
                        } else if message.contains("limit:") {
                            // `Connection timeout triggered after 3024ms (limit: 3000ms)`
                            self.failed_after_ms = None;
                        }
                    }
                    Signal::ConnectionFailed { .. } => self.failed_after_ms = None,
                    _ => {}
                }
                let state = std::mem::replace(&mut self.state, State::Nothing);
                self.state = step(state, signal, evidence());
            }
        }
    }

    /// The diagnosis (its `evidence` indices left empty) and the evidence, in order.
    pub fn finish(self) -> (Diagnosis, Vec<E>) {
        let (mut d, mut evidence) = finish(self.state);
        d.timeout_ms = self.timeout_ms;
        d.transport = self.transport;
        if let Some((n, ev)) = self.not_sent
            && matches!(
                d.verdict,
                Verdict::Healthy | Verdict::Tolerated | Verdict::Degraded
            )
        {
            // Only those tools are lost: the server is degraded, never healthy. A
            // degraded server keeps its own cause and shows these records too.
            d.tools_not_sent = n;
            if d.verdict != Verdict::Degraded {
                d.verdict = Verdict::Degraded;
                d.cause = Some(Cause::ToolNameTooLong);
            }
            evidence.extend(ev);
        }
        if d.verdict == Verdict::ConnectionFailed && d.cause == Some(Cause::Timeout) {
            d.failed_after_ms = self.failed_after_ms;
        }
        if let Some((proof, e)) = self.proof
            && matches!(d.verdict, Verdict::Healthy | Verdict::Tolerated)
        {
            d.tools_proof = Some(proof);
            if d.verdict == Verdict::Healthy {
                evidence.push(e);
            }
        }
        (d, evidence)
    }
}

/// Classifies one session, given its messages in time order. The latest event wins: a
/// reconnect that succeeds clears an earlier failure, and a later failure overrides an
/// earlier success.
pub fn classify<S: AsRef<str>>(messages: &[S]) -> Diagnosis {
    let mut c = Classifier::default();
    for (i, m) in messages.iter().enumerate() {
        c.feed(m.as_ref(), || i);
    }
    let (mut d, evidence) = c.finish();
    d.evidence = evidence;
    d
}

/// `7117` of `Connection failed after 7117ms, ...` (also `HTTP Connection failed after
/// 5040ms: ...`).
fn failed_after(message: &str) -> Option<u64> {
    let at = message.find(crate::claude_code::markers::FAILED_AFTER_MARKER)?;
    let rest = &message[at + crate::claude_code::markers::FAILED_AFTER_MARKER.len()..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && rest[digits..].starts_with("ms"))
        .then(|| rest[..digits].parse().ok())
        .flatten()
}

fn step<E>(state: State<E>, signal: Signal, i: E) -> State<E> {
    match signal {
        Signal::Connected {
            era,
            version,
            capabilities,
        } => State::Connected {
            era,
            version,
            capabilities,
            at: Some(i),
            tolerated: None,
            tools_failed: None,
            later: Later::default(),
        },
        Signal::Tolerated { fields } => match state {
            State::Connected {
                era,
                version,
                capabilities,
                at,
                tools_failed,
                later,
                ..
            } => State::Connected {
                era,
                version,
                capabilities,
                at,
                tolerated: Some((fields, i)),
                tools_failed,
                later,
            },
            // Only a modern-era client fills in fields, so the era is known even when the
            // capabilities record was trimmed away.
            _ => State::Connected {
                era: Some(Era::Modern),
                version: None,
                capabilities: None,
                at: None,
                tolerated: Some((fields, i)),
                tools_failed: None,
                later: Later::default(),
            },
        },
        Signal::ToolsFailed {
            cause,
            bad_tool_path,
            is_final,
        } => {
            let mut state = match state {
                c @ State::Connected { .. } => c,
                _ => State::connected_unseen(),
            };
            let State::Connected {
                tools_failed,
                later,
                ..
            } = &mut state
            else {
                unreachable!("made Connected above")
            };
            // a refresh whose listing fails: the first listing had succeeded
            let after_refresh = later.listed.is_some();
            let failure = match tools_failed.take() {
                Some(mut f) if !f.has_final || !is_final => {
                    // The final error restates the retries and is authoritative, unless
                    // masking left it vaguer than they were (`missing required
                    // [redacted]` after `missing required resultType`).
                    if cause != Cause::Other && (is_final || f.cause == Cause::Other) {
                        f.cause = cause;
                        f.bad_tool_path = bad_tool_path;
                    }
                    f.has_final |= is_final;
                    // Retries repeat the same text: the first and the latest tell it all.
                    f.evidence.truncate(1);
                    f.evidence.push(i);
                    f
                }
                _ => ToolsFailure {
                    cause,
                    bad_tool_path,
                    evidence: vec![i],
                    has_final: is_final,
                    after_refresh,
                },
            };
            *tools_failed = Some(failure);
            state
        }
        Signal::PageCap | Signal::ListChanged | Signal::ListFailed { .. } => {
            let mut state = state;
            if let State::Connected {
                tools_failed,
                later,
                ..
            } = &mut state
            {
                match signal {
                    Signal::PageCap => later.truncated = Some(i),
                    // a refresh only replaces tools that were listed: no failure
                    // before the first refresh means the first listing was accepted
                    Signal::ListChanged if later.listed.is_none() && tools_failed.is_none() => {
                        later.listed = Some(i);
                    }
                    Signal::ListFailed { list, .. } => {
                        later.lists_failed.retain(|(l, _)| *l != list);
                        later.lists_failed.push((list, i));
                    }
                    _ => {}
                }
            }
            state
        }
        Signal::VersionUnsupported { modern } => match state {
            State::VersionUnsupported(_, mut ev) => {
                push_evidence(&mut ev, i);
                State::VersionUnsupported(modern, ev)
            }
            _ => State::VersionUnsupported(modern, vec![i]),
        },
        Signal::ConnectionFailed { cause } => match state {
            State::ConnectionFailed(old, mut ev) => {
                push_evidence(&mut ev, i);
                let best = if signal::cause_rank(cause) > signal::cause_rank(old) {
                    cause
                } else {
                    old
                };
                State::ConnectionFailed(best, ev)
            }
            _ => State::ConnectionFailed(cause, vec![i]),
        },
        // Handled by the classifier itself (they prove, or count across connections).
        Signal::ToolCalled
        | Signal::Closed { .. }
        | Signal::Starting { .. }
        | Signal::ToolNameTooLong => state,
    }
}

/// Keeps the first record and the latest few: the first shows how it started, the last
/// shows how it ended.
fn push_evidence<E>(ev: &mut Vec<E>, i: E) {
    if ev.len() >= MAX_FAILURE_EVIDENCE {
        ev.remove(1);
    }
    ev.push(i);
}

fn finish<E>(state: State<E>) -> (Diagnosis, Vec<E>) {
    match state {
        State::Nothing => (Diagnosis::new(Verdict::Unknown), Vec::new()),
        State::VersionUnsupported(modern, ev) => (
            Diagnosis {
                cause: modern.then_some(Cause::ModernOnly),
                ..Diagnosis::new(Verdict::VersionUnsupported)
            },
            ev,
        ),
        State::ConnectionFailed(cause, ev) => (
            Diagnosis {
                cause: Some(cause),
                ..Diagnosis::new(Verdict::ConnectionFailed)
            },
            ev,
        ),
        State::Connected {
            era,
            version,
            capabilities,
            at,
            tolerated,
            tools_failed,
            later,
        } => {
            let mut evidence: Vec<E> = at.into_iter().collect();
            let no_tools = capabilities
                .as_ref()
                .is_some_and(|c| lifecycle::declares_no_tools(c));
            let mut d = match (tools_failed, tolerated) {
                (Some(f), _) if f.after_refresh => {
                    // the refresh record is what tells a kept listing from a lost one
                    evidence.extend(later.listed);
                    evidence.extend(f.evidence);
                    let mut d = Diagnosis::new(Verdict::Degraded);
                    d.cause = Some(Cause::StaleAfterRefresh);
                    d.bad_tool_path = f.bad_tool_path;
                    d
                }
                (Some(f), _) => {
                    evidence.extend(f.evidence);
                    let mut d = Diagnosis::new(Verdict::ToolsFetchFailed);
                    d.cause = Some(f.cause);
                    d.bad_tool_path = f.bad_tool_path;
                    d
                }
                (None, _) if no_tools => {
                    let mut d = Diagnosis::new(Verdict::ToolsFetchFailed);
                    d.cause = Some(Cause::NoToolsCapability);
                    d
                }
                (None, _) if later.truncated.is_some() => {
                    evidence.extend(later.truncated);
                    let mut d = Diagnosis::new(Verdict::Degraded);
                    d.cause = Some(Cause::PaginationTruncated);
                    d
                }
                (None, _) if !later.lists_failed.is_empty() => {
                    let mut d = Diagnosis::new(Verdict::Degraded);
                    d.cause = Some(Cause::ListsRejected);
                    for (list, e) in later.lists_failed {
                        d.lost_lists.push(list.to_string());
                        evidence.push(e);
                    }
                    d.lost_lists.sort();
                    d
                }
                (None, Some((fields, i))) => {
                    evidence.push(i);
                    let mut d = Diagnosis::new(Verdict::Tolerated);
                    d.filled_fields = fields;
                    d
                }
                (None, None) => Diagnosis::new(Verdict::Healthy),
            };
            d.era = era.or_else(|| infer_era(&d));
            d.negotiated_protocol_version = version;
            d.capabilities = capabilities;
            (d, evidence)
        }
    }
}

/// `resultType`, `ttlMs` and `cacheScope` exist only in revision 2026-07-28: a complaint
/// about them means the modern era was negotiated, even when the capabilities record is
/// missing (trimmed logs, pasted `claude mcp list` output).
fn infer_era(d: &Diagnosis) -> Option<Era> {
    match d.verdict {
        Verdict::Tolerated => Some(Era::Modern),
        Verdict::ToolsFetchFailed if d.cause.is_some_and(Cause::is_negotiation_field_error) => {
            Some(Era::Modern)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_decisive_is_unknown() {
        let d = classify(&["Starting connection with timeout of 30000ms"]);
        assert_eq!(d.verdict, Verdict::Unknown);
        assert!(d.evidence.is_empty());
    }

    #[test]
    fn server_stderr_never_decides() {
        let d = classify(&[
            r#"Connection established with capabilities: {"hasTools":true,"protocolEra":"legacy","negotiatedProtocolVersion":"2025-11-25"}"#,
            "Server stderr: Connection failed: spawn npx ENOENT",
        ]);
        assert_eq!(d.verdict, Verdict::Healthy);
        assert_eq!(d.era, Some(Era::Legacy));
        assert_eq!(d.negotiated_protocol_version.as_deref(), Some("2025-11-25"));
    }

    #[test]
    fn reconnect_success_clears_earlier_failure() {
        let d = classify(&[
            "Connection failed after 5ms (ENOENT): Executable not found in $PATH: \"x\"",
            r#"Connection established with capabilities: {"protocolEra":"legacy"}"#,
        ]);
        assert_eq!(d.verdict, Verdict::Healthy);
        assert_eq!(d.evidence, vec![1]);
    }

    #[test]
    fn most_specific_connection_cause_wins() {
        let d = classify(&[
            "Connection timeout triggered after 30016ms (limit: 30000ms)",
            "Connection failed: MCP error -32000: Connection closed",
        ]);
        assert_eq!(d.verdict, Verdict::ConnectionFailed);
        assert_eq!(d.cause, Some(Cause::Timeout));
        assert_eq!(d.evidence, vec![0, 1]);
    }

    pub(super) fn modern(caps_version: &str) -> String {
        format!(
            r#"Connection established with capabilities: {{"hasTools":true,"serverVersion":{{"name":"s","version":"{caps_version}"}},"protocolEra":"modern","negotiatedProtocolVersion":"2026-07-28"}}"#
        )
    }

    #[test]
    fn a_tool_call_after_a_failure_in_one_connection_means_tools_loaded() {
        let d = classify(&[
            modern("1.0"),
            "Failed to fetch tools: Invalid result for tools/list: missing required resultType"
                .into(),
            "Calling MCP tool: search".into(),
        ]);
        assert_eq!(d.verdict, Verdict::Healthy);
        // A new connection starts without proof; a failure after a call wins.
        let d = classify(&[
            modern("1.0"),
            "Calling MCP tool: search".into(),
            modern("1.0"),
        ]);
        assert_eq!(d.tools_proof, None);
        let d = classify(&[
            modern("1.0"),
            "Calling MCP tool: search".into(),
            "Failed to fetch tools: Connection closed".into(),
        ]);
        assert_eq!(d.verdict, Verdict::ToolsFetchFailed);
        assert_eq!(d.tools_proof, None);
    }

    // Real wording, from sample-logs/ (Claude Code 2.1.288 and 2.1.332).
    pub(super) const RETRY_RESULT_TYPE: &str = "tools/list failed (Invalid result for tools/list: missing required resultType — servers implementing protocol revision 2026-07-28 MUST include it (the absent-means-complete bridge applies only to earlier-revision servers)); retrying in 500ms";
    pub(super) const FINAL_RESULT_TYPE: &str = "Failed to fetch tools: Invalid result for tools/list: missing required resultType — servers implementing protocol revision 2026-07-28 MUST include it (the absent-means-complete bridge applies only to earlier-revision servers)";
    const RETRY_OTHER: &str =
        "tools/list failed (Internal error: tool registry unavailable); retrying in 250ms";
    pub(super) const FINAL_OTHER: &str =
        "Failed to fetch tools: Internal error: tool registry unavailable";
    const RETRY_BAD_TOOL: &str = "tools/list failed (Invalid result for tools/list: tools.2.inputSchema.type: Invalid input: expected \"object\"); retrying in 250ms";
    pub(super) const FINAL_BAD_TOOL: &str = "Failed to fetch tools: Invalid result for tools/list: tools.2.inputSchema.type: Invalid input: expected \"object\"";
    pub(super) const TOLERATED: &str = "tools/list result omits required fields although the server negotiated 2026-07-28; filled in ttlMs=0, cacheScope=\"private\" instead of rejecting it (not logged again for tools/list on this connection)";
    const VERSION: &str =
        "Connection failed: Server's protocol version is not supported: 1999-01-01";
    const CLOSED: &str = "Connection failed (CONNECTION_CLOSED): Connection closed";
    const TIMEOUT: &str = "Connection failed (CONNECT_TIMEOUT): MCP server \"hangs\" connection timed out after 3000ms";

    pub(super) fn session(messages: &[&str]) -> Diagnosis {
        classify(messages)
    }

    #[test]
    fn tool_calls_are_counted_from_the_first() {
        let m = modern("1.0");
        let d = session(&[
            &m,
            "Calling MCP tool: search",
            "Calling MCP tool: search",
            "Calling MCP tool: fetch",
        ]);
        assert_eq!(d.tools_proof, Some(ToolsProof::ToolCalls { calls: 3 }));
        // the connection, then the first call
        assert_eq!(d.evidence, vec![0, 1]);
    }

    #[test]
    fn tolerance_on_a_connection_keeps_what_the_connection_said() {
        let m = modern("1.0");
        let d = session(&[&m, TOLERATED]);
        assert_eq!(d.verdict, Verdict::Tolerated);
        assert_eq!(d.negotiated_protocol_version.as_deref(), Some("2026-07-28"));
        assert!(d.capabilities.is_some());
        assert_eq!(d.filled_fields, ["ttlMs", "cacheScope"]);
        assert_eq!(d.evidence, vec![0, 1]);
        // Without the connection record (trimmed away): modern, since only that era
        // fills fields in, and nothing else known.
        let d = session(&[TOLERATED]);
        assert_eq!(d.era, Some(Era::Modern));
        assert_eq!(d.negotiated_protocol_version, None);
        assert_eq!(d.evidence, vec![0]);
    }

    #[test]
    fn retries_and_their_final_error_are_one_failure() {
        let m = modern("1.0");
        let d = session(&[&m, RETRY_RESULT_TYPE, RETRY_RESULT_TYPE, FINAL_RESULT_TYPE]);
        assert_eq!(d.verdict, Verdict::ToolsFetchFailed);
        assert_eq!(d.cause, Some(Cause::MissingResultType));
        // the connection, the first retry and the final error
        assert_eq!(d.evidence, vec![0, 1, 3]);
        // A second final error is a second fetch: it starts over, and decides.
        let d = session(&[&m, RETRY_RESULT_TYPE, FINAL_RESULT_TYPE, FINAL_OTHER]);
        assert_eq!(d.cause, Some(Cause::Other));
        assert_eq!(d.evidence, vec![0, 3]);
        // A retry after a final error joins it (and, vaguer, does not change its cause).
        let d = session(&[&m, FINAL_RESULT_TYPE, RETRY_OTHER]);
        assert_eq!(d.cause, Some(Cause::MissingResultType));
        assert_eq!(d.evidence, vec![0, 1, 2]);
    }

    #[test]
    fn the_final_error_names_the_cause_unless_it_says_less_than_the_retries() {
        let m = modern("1.0");
        // The final error is authoritative...
        let d = session(&[&m, RETRY_OTHER, FINAL_RESULT_TYPE]);
        assert_eq!(d.cause, Some(Cause::MissingResultType));
        // ...unless it is vaguer than the retries.
        let d = session(&[&m, RETRY_RESULT_TYPE, FINAL_OTHER]);
        assert_eq!(d.cause, Some(Cause::MissingResultType));
        // A precise retry after a vague one says more.
        let d = session(&[&m, RETRY_OTHER, RETRY_RESULT_TYPE]);
        assert_eq!(d.cause, Some(Cause::MissingResultType));
        // Among retries, the first precise cause stays; a precise final error wins.
        let d = session(&[&m, RETRY_RESULT_TYPE, RETRY_OTHER]);
        assert_eq!(d.cause, Some(Cause::MissingResultType));
        assert_eq!(d.evidence, vec![0, 1, 2]);
        let d = session(&[&m, RETRY_RESULT_TYPE, RETRY_BAD_TOOL]);
        assert_eq!(d.cause, Some(Cause::MissingResultType));
        assert_eq!(d.bad_tool_path, None);
        let d = session(&[&m, RETRY_RESULT_TYPE, FINAL_BAD_TOOL]);
        assert_eq!(d.cause, Some(Cause::InvalidToolDefinition));
        assert!(d.bad_tool_path.is_some());
    }

    /// A version newer than every one the legacy handshake proposes, in either form
    /// (answered, or refused with -32602), is a server that speaks only the new
    /// protocol; an older or unparsable one is not.
    #[test]
    fn a_server_answering_or_refusing_with_the_new_protocol_is_modern_only() {
        let answered = "Connection failed: Server's protocol version is not supported: 2026-07-28";
        let d = session(&[answered]);
        assert_eq!(d.verdict, Verdict::VersionUnsupported);
        assert_eq!(d.cause, Some(Cause::ModernOnly));
        let d = session(&[VERSION]);
        assert_eq!(d.verdict, Verdict::VersionUnsupported);
        assert_eq!(d.cause, None, "1999-01-01 is older, not the new protocol");
        let refused = "Connection failed (-32602): Unsupported protocol version";
        let d = session(&[refused]);
        assert_eq!(d.verdict, Verdict::ConnectionFailed);
        assert_eq!(d.cause, Some(Cause::ModernOnly));
        // an HTTP server naming only an older version it supports is not
        let d = session(&[
            "Connection failed (400): Error POSTing to endpoint: {\"error\": {\"code\": -32000, \"message\": \"Bad Request: Unsupported protocol version: 2025-11-25 (supported versions: 2025-03-26)\"}}",
        ]);
        assert_ne!(d.cause, Some(Cause::ModernOnly));
        for (v, newer) in [
            ("2026-07-28", true),
            ("2025-11-25", false),
            ("2024-11-05", false),
            ("2026-07-28.", true),
            ("later", false),
            ("2026-7-28", false),
        ] {
            assert_eq!(
                crate::claude_code::lifecycle::newer_than_legacy_handshake(v),
                newer,
                "{v}"
            );
        }
    }

    #[test]
    fn repeated_version_refusals_keep_the_first_and_the_latest() {
        let d = session(&[VERSION, VERSION]);
        assert_eq!(d.verdict, Verdict::VersionUnsupported);
        assert_eq!(d.evidence, vec![0, 1]);
        let d = session(&[VERSION; 9]);
        assert_eq!(d.evidence.len(), MAX_FAILURE_EVIDENCE);
        assert_eq!(d.evidence[0], 0);
        assert_eq!(d.evidence.last(), Some(&8));
    }

    #[test]
    fn a_more_specific_connection_cause_wins_in_either_order() {
        for order in [[CLOSED, TIMEOUT], [TIMEOUT, CLOSED]] {
            let d = session(&order);
            assert_eq!(d.verdict, Verdict::ConnectionFailed);
            assert_eq!(d.cause, Some(Cause::Timeout), "{order:?}");
            assert_eq!(d.evidence, vec![0, 1]);
        }
    }

    pub(super) const CONNECTED_PLAIN: &str = "Successfully connected (transport: stdio) in 137ms";

    #[test]
    fn the_era_is_inferred_only_from_what_only_the_modern_era_says() {
        // A connection record without capabilities, then tolerance: modern.
        let d = session(&[CONNECTED_PLAIN, TOLERATED]);
        assert_eq!(d.verdict, Verdict::Tolerated);
        assert_eq!(d.era, Some(Era::Modern));
        // A missing 2026-07-28 field: modern; any other failure: not known.
        assert_eq!(session(&[FINAL_RESULT_TYPE]).era, Some(Era::Modern));
        assert_eq!(
            session(&[CONNECTED_PLAIN, FINAL_RESULT_TYPE]).era,
            Some(Era::Modern)
        );
        assert_eq!(session(&[CONNECTED_PLAIN, FINAL_BAD_TOOL]).era, None);
        assert_eq!(session(&[FINAL_OTHER]).era, None);
        assert_eq!(session(&[CONNECTED_PLAIN]).era, None);
    }

    // Real records of tests/fixtures/lifecycle/ (name-long, http-400-version,
    // ping-modern, exit-after-tools on 2.1.332).
    const NOT_SENT_129: &str = "Tool \"mcp__name-long__n129_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\" is not sent to Claude: its name has 129 characters and the API accepts at most 128";
    const NOT_SENT_200: &str = "Tool \"mcp__name-long__n200_x\" is not sent to Claude: its name has 200 characters and the API accepts at most 128";
    const LEGACY_CAPS: &str = r#"Connection established with capabilities: {"hasTools":true,"protocolEra":"legacy","negotiatedProtocolVersion":"2025-11-25"}"#;

    #[test]
    fn a_tool_not_sent_for_its_name_degrades_the_server_and_is_counted() {
        let d = session(&[LEGACY_CAPS, NOT_SENT_129, NOT_SENT_200]);
        assert_eq!(d.verdict, Verdict::Degraded);
        assert_eq!(d.cause, Some(Cause::ToolNameTooLong));
        assert_eq!(d.tools_not_sent, 2);
        assert_eq!(d.evidence, vec![0, 1, 2]);
        // logged once per name in a process: a reconnect later in it does not clear it
        let d = session(&[LEGACY_CAPS, NOT_SENT_129, LEGACY_CAPS]);
        assert_eq!(d.cause, Some(Cause::ToolNameTooLong));
        assert_eq!(d.tools_not_sent, 1);
        // a tool call proves the others loaded, not the lost one
        let d = session(&[LEGACY_CAPS, NOT_SENT_129, "Calling MCP tool: alpha"]);
        assert_eq!(d.verdict, Verdict::Degraded);
        assert_eq!(d.tools_proof, None);
        // a worse verdict keeps its own cause; another degradation its own, counted
        let d = session(&[LEGACY_CAPS, NOT_SENT_129, FINAL_OTHER]);
        assert_eq!(d.verdict, Verdict::ToolsFetchFailed);
        let d = session(&[
            LEGACY_CAPS,
            NOT_SENT_129,
            "tools/list still returning nextCursor after 20 pages; stopping",
        ]);
        assert_eq!(d.cause, Some(Cause::PaginationTruncated));
        assert_eq!(d.tools_not_sent, 1);
    }

    #[test]
    fn a_tool_name_holding_other_wording_is_still_one_tool_not_sent() {
        let m = "Tool \"mcp__s__Failed to fetch tools: x\" is not sent to Claude: its name has 140 characters and the API accepts at most 128";
        let d = session(&[LEGACY_CAPS, m]);
        assert_eq!(d.cause, Some(Cause::ToolNameTooLong));
        // server stderr saying it decides nothing; nor a sentence that only looks alike
        let d = session(&[
            LEGACY_CAPS,
            &format!("Server stderr: {NOT_SENT_129}"),
            "Tool \"x\" is not sent to Claude: its name has many characters",
        ]);
        assert_eq!(d.verdict, Verdict::Healthy);
    }

    #[test]
    fn the_transport_is_read_from_the_records_that_name_it() {
        use crate::classify::verdict::Transport;
        let http = [
            "Initializing HTTP transport to http://127.0.0.1:41425/mcp",
            "HTTP Connection failed after 1750ms: Error POSTing to endpoint: {\"jsonrpc\": \"2.0\", \"id\": null, \"error\": {\"code\": -32000, \"message\": \"Bad Request: Unsupported protocol version: 2025-11-25 (supported versions: 2025-03-26)\"}} (code: CLIENT_HTTP_NOT_IMPLEMENTED, errno: none)",
            "Connection failed (400): Error POSTing to endpoint: {\"jsonrpc\": \"2.0\", \"id\": null, \"error\": {\"code\": -32000, \"message\": \"Bad Request: Unsupported protocol version: 2025-11-25 (supported versions: 2025-03-26)\"}}",
        ];
        let d = session(&http);
        assert_eq!(d.verdict, Verdict::ConnectionFailed);
        // an HTTP error answer: the server answered, nothing closed
        assert_eq!(d.cause, Some(Cause::Other));
        assert_eq!(d.transport, Some(Transport::Remote));
        let d = session(&[CONNECTED_PLAIN, CLOSED]);
        assert_eq!(d.transport, Some(Transport::Stdio));
        assert_eq!(d.cause, Some(Cause::ConnectionClosed));
        let d = session(&[CLOSED]);
        assert_eq!(d.transport, None);
        // server stderr never names it
        let d = session(&["Server stderr: Initializing HTTP transport to x", CLOSED]);
        assert_eq!(d.transport, None);
    }

    #[test]
    fn a_modern_connection_dropping_pings_and_a_server_leaving_after_its_tools_are_healthy() {
        let modern_caps = modern("1.0");
        let d = session(&[
            "Successfully connected (transport: stdio) in 770ms",
            &modern_caps,
            "STDIO connection dropped after 0s uptime",
            "Connection error: Dropped inbound request 'ping': not servable on this connection's protocol era",
            "STDIO connection dropped after 2s uptime",
            "Connection error: Dropped inbound request 'ping': not servable on this connection's protocol era",
            "STDIO connection closed after 15s (with errors)",
        ]);
        assert_eq!(d.verdict, Verdict::Healthy, "{d:?}");
        let d = session(&[
            "Successfully connected (transport: stdio) in 762ms",
            LEGACY_CAPS,
            "STDIO connection closed after 3s (cleanly)",
            "Cleared connection cache for reconnection",
        ]);
        assert_eq!(d.verdict, Verdict::Healthy, "{d:?}");
    }
}

#[cfg(test)]
mod refresh_tests {
    use super::tests::{FINAL_OTHER, FINAL_RESULT_TYPE, RETRY_RESULT_TYPE, modern, session};
    use super::*;

    const LIST_CHANGED: &str = "Received tools/list_changed notification, refreshing tools";

    #[test]
    fn every_failed_refresh_after_an_accepted_listing_keeps_the_tools() {
        let m = modern("1.0");
        // lc-twice-bad: two refreshes, each rejected (three retries and a final error)
        let d = session(&[
            &m,
            LIST_CHANGED,
            RETRY_RESULT_TYPE,
            FINAL_RESULT_TYPE,
            LIST_CHANGED,
            RETRY_RESULT_TYPE,
            FINAL_RESULT_TYPE,
        ]);
        assert_eq!(d.verdict, Verdict::Degraded);
        assert_eq!(d.cause, Some(Cause::StaleAfterRefresh));
        // the connection, the refresh that proves the first listing, the latest failure
        assert_eq!(d.evidence, vec![0, 1, 6]);
        // one refresh failing on a timeout
        let d = session(&[&m, LIST_CHANGED, "Failed to fetch tools: Request timed out"]);
        assert_eq!(d.cause, Some(Cause::StaleAfterRefresh));
        assert_eq!(d.evidence, vec![0, 1, 2]);
    }

    #[test]
    fn a_refresh_after_a_failed_first_listing_proves_nothing() {
        let m = modern("1.0");
        let d = session(&[&m, FINAL_RESULT_TYPE, LIST_CHANGED, FINAL_OTHER]);
        assert_eq!(d.verdict, Verdict::ToolsFetchFailed);
        // and a new connection forgets the refresh of the previous one
        let d = session(&[&m, LIST_CHANGED, &m, FINAL_OTHER]);
        assert_eq!(d.verdict, Verdict::ToolsFetchFailed);
    }
}
