//! The classifier: a pure function from one session's decoded messages to a diagnosis.

mod signal;

pub use signal::{Signal, read_signal, tools_failure_cause};

use crate::verdict::{Cause, Diagnosis, Era, Verdict};

/// At most this many records are kept as evidence of one failure (retries and reconnects
/// can repeat the same error dozens of times).
const MAX_FAILURE_EVIDENCE: usize = 4;

#[derive(Debug)]
enum State {
    Nothing,
    Connected {
        era: Option<Era>,
        version: Option<String>,
        at: Option<usize>,
        tolerated: Option<(Vec<String>, usize)>,
        tools_failed: Option<ToolsFailure>,
    },
    VersionUnsupported(Vec<usize>),
    ConnectionFailed(Cause, Vec<usize>),
}

#[derive(Debug)]
struct ToolsFailure {
    cause: Cause,
    bad_tool_path: Option<String>,
    evidence: Vec<usize>,
    has_final: bool,
}

/// Classifies one session, given its messages in time order. The latest event wins: a
/// reconnect that succeeds clears an earlier failure, and a later failure overrides an
/// earlier success.
pub fn classify<S: AsRef<str>>(messages: &[S]) -> Diagnosis {
    let mut state = State::Nothing;
    for (i, m) in messages.iter().enumerate() {
        let Some(signal) = read_signal(m.as_ref()) else {
            continue;
        };
        state = step(state, signal, i);
    }
    finish(state)
}

fn step(state: State, signal: Signal, i: usize) -> State {
    match signal {
        Signal::Connected { era, version } => State::Connected {
            era,
            version,
            at: Some(i),
            tolerated: None,
            tools_failed: None,
        },
        Signal::Tolerated { fields } => match state {
            State::Connected {
                era,
                version,
                at,
                tools_failed,
                ..
            } => State::Connected {
                era,
                version,
                at,
                tolerated: Some((fields, i)),
                tools_failed,
            },
            // Only a modern-era client fills in fields, so the era is known even when the
            // capabilities record was trimmed away.
            _ => State::Connected {
                era: Some(Era::Modern),
                version: None,
                at: None,
                tolerated: Some((fields, i)),
                tools_failed: None,
            },
        },
        Signal::ToolsFailed {
            cause,
            bad_tool_path,
            is_final,
        } => {
            let (era, version, at, tolerated, previous) = match state {
                State::Connected {
                    era,
                    version,
                    at,
                    tolerated,
                    tools_failed,
                } => (era, version, at, tolerated, tools_failed),
                _ => (None, None, None, None, None),
            };
            let failure = match previous {
                // The final error restates the retries; its cause is authoritative.
                Some(mut f) if !f.has_final || !is_final => {
                    if is_final || f.cause == Cause::Other {
                        f.cause = cause;
                        f.bad_tool_path = bad_tool_path;
                    }
                    f.has_final |= is_final;
                    push_evidence(&mut f.evidence, i);
                    f
                }
                _ => ToolsFailure {
                    cause,
                    bad_tool_path,
                    evidence: vec![i],
                    has_final: is_final,
                },
            };
            State::Connected {
                era,
                version,
                at,
                tolerated,
                tools_failed: Some(failure),
            }
        }
        Signal::VersionUnsupported => match state {
            State::VersionUnsupported(mut ev) => {
                push_evidence(&mut ev, i);
                State::VersionUnsupported(ev)
            }
            _ => State::VersionUnsupported(vec![i]),
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
    }
}

/// Keeps the first record and the latest few: the first shows how it started, the last
/// shows how it ended.
fn push_evidence(ev: &mut Vec<usize>, i: usize) {
    if ev.len() >= MAX_FAILURE_EVIDENCE {
        ev.remove(1);
    }
    ev.push(i);
}

fn finish(state: State) -> Diagnosis {
    match state {
        State::Nothing => Diagnosis::new(Verdict::Unknown),
        State::VersionUnsupported(ev) => Diagnosis {
            evidence: ev,
            ..Diagnosis::new(Verdict::VersionUnsupported)
        },
        State::ConnectionFailed(cause, ev) => Diagnosis {
            cause: Some(cause),
            evidence: ev,
            ..Diagnosis::new(Verdict::ConnectionFailed)
        },
        State::Connected {
            era,
            version,
            at,
            tolerated,
            tools_failed,
        } => {
            let mut evidence: Vec<usize> = at.into_iter().collect();
            let mut d = match (tools_failed, tolerated) {
                (Some(f), _) => {
                    evidence.extend(f.evidence);
                    let mut d = Diagnosis::new(Verdict::ToolsFetchFailed);
                    d.cause = Some(f.cause);
                    d.bad_tool_path = f.bad_tool_path;
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
            d.evidence = evidence;
            d
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
}
