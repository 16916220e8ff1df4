//! Which session speaks for a server: from the diagnoses of its sessions, in time order,
//! to the one that decides ([`decide`], and [`NewestFirst`] for a scan that reads newest
//! first). The state machine that diagnoses one session is in the parent module.

use crate::classify::verdict::{Diagnosis, Verdict};

/// Picks the session whose diagnosis stands for the server, from all of its sessions in
/// time order (see [`decide`]); `None` when there are none.
pub fn pick_deciding_session<D: std::borrow::Borrow<Diagnosis>>(diagnoses: &[D]) -> Option<usize> {
    match decide(diagnoses, false) {
        Decision::Session(i) => Some(i),
        Decision::NeedOlder | Decision::NoSessions => None,
    }
}

/// What [`decide`] concluded from the sessions it was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// This session decides, whatever older sessions hold.
    Session(usize),
    /// Older sessions could change the answer: read them first.
    NeedOlder,
    /// No sessions at all (and none older).
    NoSessions,
}

/// The deciding rule, for the newest sessions of a server in time order. `older_unread`
/// says whether sessions older than the slice exist and were not read; the answer is
/// then [`Decision::NeedOlder`] whenever they could change it, so that reading newest
/// first and stopping at the first [`Decision::Session`] gives exactly the session a
/// reading of every session would.
///
/// The rule: the latest session with a decisive record decides, with one exception.
/// `claude mcp list` health checks connect but never fetch tools, so their sessions look
/// healthy even when tools fail. A healthy session that only connected (no tool call,
/// closed within [`HEALTH_CHECK_MAX_SECS`](super::HEALTH_CHECK_MAX_SECS)) therefore does not hide an earlier tools
/// failure (or tolerance) seen on a connection with identical capabilities (same era,
/// protocol and server version); going back, the first session that proves the tools
/// were loaded (tool calls, or a connection that outlived any health check) on those
/// capabilities decides `healthy`, and a different connection (after the legacy fix, a
/// server update) leaves the latest session deciding.
pub fn decide<D: std::borrow::Borrow<Diagnosis>>(diagnoses: &[D], older_unread: bool) -> Decision {
    let mut walk = NewestFirst::default();
    for d in diagnoses.iter().rev() {
        if walk.push(d.borrow()) {
            break;
        }
    }
    let from_newest = match (walk.decided(), older_unread) {
        (Some(k), _) => k,
        (None, true) => return Decision::NeedOlder,
        (None, false) => match walk.finish() {
            Some(k) => k,
            None => return Decision::NoSessions,
        },
    };
    Decision::Session(diagnoses.len() - 1 - from_newest)
}

/// [`decide`]'s rule, fed one session at a time from the newest to the oldest, so that
/// a scan reading files newest first decides in one pass over what it read. Positions
/// count from the newest session (0).
#[derive(Debug, Default)]
pub struct NewestFirst {
    seen: usize,
    /// The latest session with a decisive record, and its capabilities while the walk
    /// looks past sessions that only connected.
    latest: Option<(usize, Option<std::sync::Arc<serde_json::Value>>)>,
    decided: Option<usize>,
}

impl NewestFirst {
    /// Takes the next older session; returns whether the deciding session is known.
    pub fn push(&mut self, d: &Diagnosis) -> bool {
        if self.decided.is_some() {
            return true;
        }
        let k = self.seen;
        self.seen += 1;
        match &self.latest {
            None => {
                if d.verdict == Verdict::Unknown {
                    return false;
                }
                if d.verdict != Verdict::Healthy
                    || d.capabilities.is_none()
                    || d.tools_proof.is_some()
                {
                    self.decided = Some(k);
                } else {
                    self.latest = Some((k, d.capabilities.clone()));
                }
            }
            Some((latest, caps)) => {
                let same = d.capabilities == *caps;
                self.decided = match d.verdict {
                    Verdict::Unknown => None,
                    Verdict::Healthy if same && d.tools_proof.is_some() => Some(k),
                    Verdict::Healthy if same => None,
                    Verdict::ToolsFetchFailed | Verdict::Degraded | Verdict::Tolerated if same => {
                        Some(k)
                    }
                    _ => Some(*latest),
                };
            }
        }
        self.decided.is_some()
    }

    /// The deciding session, when the sessions pushed so far settle it.
    pub fn decided(&self) -> Option<usize> {
        self.decided
    }

    /// The deciding session once no older session exists: the latest decisive one, or
    /// the newest when none is decisive.
    pub fn finish(&self) -> Option<usize> {
        self.decided
            .or(self.latest.as_ref().map(|(k, _)| *k))
            .or((self.seen > 0).then_some(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::classify;
    use crate::classify::tests::*;
    use crate::classify::verdict::ToolsProof;

    #[test]
    fn health_check_session_does_not_hide_tools_failure() {
        let failed = classify(&[
            modern("1.0"),
            "Failed to fetch tools: Invalid result for tools/list: missing required resultType"
                .into(),
        ]);
        let check = classify(&[modern("1.0")]);
        let updated = classify(&[modern("1.1")]);
        let unknown = classify(&["Starting connection with timeout of 30000ms"]);
        assert_eq!(check.verdict, Verdict::Healthy);
        // Same connection as the failure: the health check says nothing about tools.
        assert_eq!(
            pick_deciding_session(&[failed.clone(), check.clone(), unknown.clone()]),
            Some(0)
        );
        // The server changed since: the newer session decides.
        assert_eq!(
            pick_deciding_session(&[failed.clone(), updated.clone()]),
            Some(1)
        );
        // A failure after a healthy session is the latest news.
        assert_eq!(pick_deciding_session(&[check.clone(), failed]), Some(1));
        assert_eq!(
            pick_deciding_session(std::slice::from_ref(&unknown)),
            Some(0)
        );
        assert_eq!(pick_deciding_session::<Diagnosis>(&[]), None);
    }

    #[test]
    fn tool_calls_and_long_connections_prove_tools_were_loaded() {
        let failed = classify(&[
            modern("1.0"),
            "Failed to fetch tools: Invalid result for tools/list: missing required resultType"
                .into(),
        ]);
        let check = classify(&[
            modern("1.0"),
            "STDIO connection closed after 0s (cleanly)".into(),
        ]);
        let used = classify(&[
            modern("1.0"),
            "Calling MCP tool: search".into(),
            "Tool 'search' completed successfully in 2s".into(),
        ]);
        let long = classify(&[
            modern("1.0"),
            "STDIO connection closed after 6469s (cleanly)".into(),
        ]);
        let short = classify(&[
            modern("1.0"),
            "STDIO connection closed after 120s (cleanly)".into(),
        ]);
        assert_eq!(used.tools_proof, Some(ToolsProof::ToolCalls { calls: 1 }));
        assert_eq!(used.evidence, vec![0, 1]);
        assert_eq!(
            long.tools_proof,
            Some(ToolsProof::LongConnection { secs: 6469 })
        );
        assert_eq!(short.tools_proof, None);
        assert_eq!(check.tools_proof, None);
        // Fixed without a version change: the session that called tools decides.
        assert_eq!(pick_deciding_session(&[&failed, &used]), Some(1));
        assert_eq!(pick_deciding_session(&[&failed, &long]), Some(1));
        assert_eq!(
            pick_deciding_session(&[&failed, &used, &check, &check]),
            Some(1)
        );
        // Health checks alone prove nothing.
        assert_eq!(
            pick_deciding_session(&[&used, &failed, &check, &short]),
            Some(1)
        );
        // Newest first: undecided until the failure (or a proof) is reached.
        assert_eq!(decide(&[&check, &check], true), Decision::NeedOlder);
        assert_eq!(decide(&[&check, &check], false), Decision::Session(1));
        assert_eq!(decide(&[&failed, &check], true), Decision::Session(0));
        assert_eq!(decide::<Diagnosis>(&[], true), Decision::NeedOlder);
        assert_eq!(decide::<Diagnosis>(&[], false), Decision::NoSessions);
    }

    #[test]
    fn a_healthy_session_without_capabilities_decides_at_once() {
        // Nothing to compare an earlier failure with: it is the latest news.
        let plain = session(&[CONNECTED_PLAIN]);
        assert_eq!(plain.verdict, Verdict::Healthy);
        assert_eq!(decide(&[&plain], true), Decision::Session(0));
        let failed = session(&[&modern("1.0"), FINAL_RESULT_TYPE]);
        assert_eq!(decide(&[&failed, &plain], true), Decision::Session(1));
    }

    #[test]
    fn looking_past_health_checks_skips_unknown_sessions_and_needs_the_same_connection() {
        let m = modern("1.0");
        let failed = session(&[&m, FINAL_RESULT_TYPE]);
        let check = session(&[&m]);
        let unknown = session(&["Starting connection with timeout of 30000ms"]);
        let used_elsewhere = session(&[&modern("1.1"), "Calling MCP tool: search"]);
        // an unknown session between the check and the failure says nothing
        assert_eq!(pick_deciding_session(&[&failed, &unknown, &check]), Some(0));
        // tools proven on another connection (another server version) do not decide
        // for this one: the latest session does
        assert_eq!(pick_deciding_session(&[&used_elsewhere, &check]), Some(1));
        // nor does a failure behind a health check of another connection
        let other_check = session(&[&modern("1.1")]);
        assert_eq!(
            pick_deciding_session(&[&failed, &other_check, &check]),
            Some(2)
        );
    }
}
