//! `mcplogs probe`: replay Claude Code's handshake against a configured server and
//! predict what a given Claude Code build will do with it.
//!
//! [`crate::claude_code::config`] resolves the servers the way Claude Code does; [`transport`] speaks stdio,
//! Streamable HTTP and legacy SSE, bounded, ending everything a stdio server started
//! (`reap`) and sending configured headers only to the configured origin;
//! [`session`] drives the lifecycle exactly as Claude Code does on the wire and records
//! steps and a transcript; [`validate`] applies Claude Code's checks field by field;
//! [`predict`] turns all that into a verdict per Claude Code version and negotiation
//! setting; [`crate::render::probe`] builds the JSON document, the transcript lines and the text.

pub mod predict;
mod reap;
pub mod session;
pub mod transport;
pub mod validate;

use std::path::PathBuf;
use std::time::Instant;

use crate::claude_code::lifecycle;
use crate::settings::NegotiationValue;

pub use crate::claude_code::config::{ServerConfig, TransportKind};
pub use predict::{ClaudeVersion, Prediction, ProbeTimeouts, TimeoutSetting};
pub use session::{Attempt, Limits, Mode};

use session::Step;
use transport::{Failure, HttpTransport, SseTransport, StdioTransport, Transport};
use validate::ListCheck;

/// What a probe assumes about Claude Code.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    pub claude_version: ClaudeVersion,
    /// The effective `MCP_PROTOCOL_NEGOTIATION` (None: nothing set).
    pub negotiation: Option<NegotiationValue>,
    /// `MCP_TIMEOUT` and `MCP_CONNECT_TIMEOUT_MS` as Claude Code will apply them; the
    /// probe waits `MCP_TIMEOUT` for each request ([`Limits::request_wait`]).
    pub timeouts: ProbeTimeouts,
    pub limits: Limits,
    /// Where stdio servers start (Claude Code starts them in the project folder).
    pub project_dir: Option<PathBuf>,
    /// Run both handshakes even when the prediction needs only one (`--contract`).
    pub both_modes: bool,
}

/// Everything known about one server after probing it.
#[derive(Debug, Clone)]
pub struct ServerProbe {
    pub config: ServerConfig,
    /// One per handshake run (discover and/or legacy), in the order run.
    pub attempts: Vec<Attempt>,
    pub prediction: Prediction,
    pub with_legacy: Prediction,
    /// The tool checks of the attempt the prediction is based on.
    pub tools: ListCheck,
    /// The limits predicted with.
    pub timeouts: ProbeTimeouts,
}

impl ServerProbe {
    pub fn attempt(&self, mode: Mode) -> Option<&Attempt> {
        self.attempts.iter().find(|a| a.mode == mode)
    }

    /// The attempt the prediction is based on.
    pub fn predicted_attempt(&self) -> &Attempt {
        self.attempt(self.prediction.mode)
            .expect("the predicted mode was run")
    }

    /// Whether `MCP_PROTOCOL_NEGOTIATION=legacy` turns a failure into a working server.
    pub fn legacy_fix_helps(&self) -> bool {
        self.prediction.verdict.is_problem() && !self.with_legacy.verdict.is_problem()
    }

    /// What to do about the prediction. When legacy turns the failure into a working
    /// server and the verdict's own advice is not already the legacy fix, that is the
    /// advice (the generic advice of, say, a connection failure says the setting will
    /// not help, which the probe has just seen to be false for this server).
    pub fn recommendation(&self) -> String {
        let d = self.prediction.diagnosis();
        // lost prompts or resources: the verdict's own advice says what legacy does for
        // them, never the fix for tools that load anyway
        if self.legacy_fix_helps()
            && crate::advice::legacy_fix_wording(&d).is_none()
            && d.cause != Some(crate::classify::verdict::Cause::ListsRejected)
        {
            return format!(
                "with MCP_PROTOCOL_NEGOTIATION=legacy the probe got this server's tools ({} loaded): `mcplogs fix` sets it for this project; then restart Claude Code.",
                self.with_legacy.tools_loaded
            );
        }
        crate::advice::diagnosis_recommendation(&d)
    }
}

/// Opens the transport and runs one lifecycle in `mode`.
pub fn run_attempt(
    cfg: &ServerConfig,
    mode: Mode,
    claude_version: ClaudeVersion,
    limits: Limits,
    project_dir: Option<&std::path::Path>,
) -> Attempt {
    let start = Instant::now();
    let connection_id = format!("{}/{}", cfg.name, mode.as_str());
    let version = claude_version.to_string();
    let failed = |f: Failure, step: Step| {
        session::failed_attempt(mode, connection_id.clone(), step, f, start)
    };
    let mut open: Box<dyn Transport> = match cfg.transport {
        TransportKind::Stdio => {
            match StdioTransport::spawn(&cfg.command, &cfg.args, &cfg.env, project_dir) {
                Ok(t) => {
                    let step = Step {
                        name: "spawn".into(),
                        sent: None,
                        received: None,
                        ms: start.elapsed().as_millis() as u64,
                        ok: true,
                        detail: Some(format!("pid {}, own process group", t.pid())),
                    };
                    let mut t = t;
                    let mut a = session::run(
                        &mut t,
                        mode,
                        connection_id,
                        &version,
                        limits,
                        start,
                        Some(step),
                    );
                    a.stderr = t.close();
                    return a;
                }
                Err(f) => {
                    let step = Step {
                        name: "spawn".into(),
                        sent: None,
                        received: None,
                        ms: start.elapsed().as_millis() as u64,
                        ok: false,
                        detail: Some(f.to_string()),
                    };
                    return failed(f, step);
                }
            }
        }
        TransportKind::Http => match HttpTransport::new(&cfg.url, &cfg.headers) {
            Ok(t) => Box::new(t),
            Err(f) => {
                let step = Step {
                    name: "connect".into(),
                    sent: None,
                    received: None,
                    ms: 0,
                    ok: false,
                    detail: Some(f.to_string()),
                };
                return failed(f, step);
            }
        },
        TransportKind::Sse => {
            let wait = limits.request_wait.map_or(limits.budget, |w| {
                limits.budget.min(w + session::WAIT_MARGIN)
            });
            match SseTransport::connect(&cfg.url, &cfg.headers, start + wait) {
                Ok(t) => Box::new(t),
                Err(f) => {
                    let step = Step {
                        name: "GET (SSE stream)".into(),
                        sent: Some("GET".into()),
                        received: None,
                        ms: start.elapsed().as_millis() as u64,
                        ok: false,
                        detail: Some(f.to_string()),
                    };
                    return failed(f, step);
                }
            }
        }
    };
    session::run(
        open.as_mut(),
        mode,
        connection_id,
        &version,
        limits,
        start,
        None,
    )
}

/// Probes one server: the handshake Claude Code would use under the effective setting,
/// and the legacy one.
pub fn probe_server(cfg: &ServerConfig, opts: &ProbeOptions) -> ServerProbe {
    let v = opts.claude_version;
    let mode = predict::mode_for(cfg.transport, opts.negotiation.as_ref(), v);
    let mut modes = vec![mode];
    if mode != Mode::Legacy {
        modes.push(Mode::Legacy);
    }
    if opts.both_modes && cfg.transport != TransportKind::Sse && !modes.contains(&Mode::Discover) {
        modes.insert(0, Mode::Discover);
    }
    let attempts: Vec<Attempt> = modes
        .iter()
        .map(|&m| run_attempt(cfg, m, v, opts.limits, opts.project_dir.as_deref()))
        .collect();
    let by_mode = |m: Mode| attempts.iter().find(|a| a.mode == m).expect("run");
    let negotiation = opts.negotiation.as_ref().map(|n| n.as_str().to_string());
    let prediction = predict::predict(by_mode(mode), v, negotiation, &opts.timeouts);
    let with_legacy = predict::predict(
        by_mode(Mode::Legacy),
        v,
        Some("legacy".into()),
        &opts.timeouts,
    );
    let a = by_mode(mode);
    let tools = validate::check_pages(&a.pages, a.era == Some(session::NegotiatedEra::Modern));
    ServerProbe {
        config: cfg.clone(),
        attempts,
        prediction,
        with_legacy,
        tools,
        timeouts: opts.timeouts.clone(),
    }
}

/// `claude --version`, when Claude Code is installed and answers within two seconds.
pub fn installed_claude_version() -> Option<ClaudeVersion> {
    use std::io::Read;
    let mut child = std::process::Command::new("claude")
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let until = Instant::now() + std::time::Duration::from_secs(2);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < until => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut out = String::new();
    child
        .stdout
        .take()?
        .take(4096)
        .read_to_string(&mut out)
        .ok()?;
    ClaudeVersion::parse(out.trim())
}

/// One result of the server-author contract (`--contract`).
#[derive(Debug, Clone, PartialEq)]
pub struct ContractCheck {
    pub name: &'static str,
    /// `None`: could not be checked.
    pub passed: Option<bool>,
    pub detail: String,
    /// The modelled builds it answers for: those that would lose, truncate or rename a
    /// tool when it fails, every modelled build otherwise.
    pub builds: Vec<ClaudeVersion>,
}

fn check(
    name: &'static str,
    passed: Option<bool>,
    detail: String,
    failing: Vec<ClaudeVersion>,
) -> ContractCheck {
    let all = lifecycle::CONTRACT_BUILDS.to_vec();
    let builds = if passed == Some(false) && !failing.is_empty() {
        failing
    } else {
        all
    };
    let detail = if passed == Some(false) {
        let names: Vec<String> = builds.iter().map(ToString::to_string).collect();
        format!("on {}: {detail}", names.join(", "))
    } else {
        detail
    };
    ContractCheck {
        name,
        passed,
        detail,
        builds,
    }
}

/// The checks a client can drive, over every handshake run. A check fails wherever a
/// modelled build (`claude_code::lifecycle::CONTRACT_BUILDS`) would lose, truncate or
/// rename a tool, and names those builds.
pub fn contract(p: &ServerProbe, budget_ms: u64) -> Vec<ContractCheck> {
    let all = || lifecycle::CONTRACT_BUILDS.to_vec();
    let mut out = Vec::new();
    let failures: Vec<String> = p
        .attempts
        .iter()
        .filter_map(|a| {
            a.failure
                .as_ref()
                .map(|f| format!("{}: {f}", a.mode.as_str()))
        })
        .collect();
    let no_tools: Vec<&str> = p
        .attempts
        .iter()
        .filter(|a| a.failure.is_none() && !a.has_tools_capability())
        .map(|a| a.mode.as_str())
        .collect();
    out.push(check(
        "tools-capable-handshake",
        Some(failures.is_empty() && no_tools.is_empty()),
        if !failures.is_empty() {
            failures.join("; ")
        } else if !no_tools.is_empty() {
            format!(
                "no tools capability declared ({}): Claude Code never sends tools/list",
                no_tools.join(", ")
            )
        } else {
            "every handshake succeeded and declared tools".into()
        },
        all(),
    ));
    // pagination: list failures, the page cap, a repeated cursor
    let mut list_fail: Vec<String> = Vec::new();
    for a in p.attempts.iter().filter(|a| a.failure.is_none()) {
        let m = a.mode.as_str();
        match &a.list_failure {
            Some(session::ListFailure::RepeatedCursor { page, cursor }) => {
                let guard: Vec<String> = lifecycle::CONTRACT_BUILDS
                    .iter()
                    .filter(|v| v.stops_at_repeated_cursor())
                    .map(ToString::to_string)
                    .collect();
                list_fail.push(format!(
                    "{m}: page {page} repeats nextCursor {cursor:?} (Claude Code {} stops there; older builds follow it to {} pages)",
                    guard.join(", "),
                    lifecycle::PAGE_CAP.value
                ));
            }
            Some(session::ListFailure::PageCap { pages }) => list_fail.push(format!(
                "{m}: more than {pages} pages; Claude Code keeps the first {}",
                lifecycle::PAGE_CAP.value
            )),
            Some(f) => list_fail.push(format!("{m}: {f}")),
            None if a.pages.len() > lifecycle::PAGE_CAP.value => {
                let modern = a.era == Some(session::NegotiatedEra::Modern);
                let kept = validate::check_pages(&a.pages[..lifecycle::PAGE_CAP.value], modern);
                let whole = validate::check_pages(&a.pages, modern);
                list_fail.push(format!(
                    "{m}: {} pages; Claude Code stops after {}: {} of {} tools",
                    a.pages.len(),
                    lifecycle::PAGE_CAP.value,
                    kept.valid,
                    whole.valid
                ));
            }
            None => {}
        }
    }
    out.push(check(
        "pagination",
        Some(list_fail.is_empty()),
        if list_fail.is_empty() {
            let pages: Vec<String> = p
                .attempts
                .iter()
                .filter(|a| a.failure.is_none())
                .map(|a| {
                    format!(
                        "{}: {}",
                        a.mode.as_str(),
                        crate::text::count(a.pages.len(), "page")
                    )
                })
                .collect();
            format!(
                "complete, loop-free, within {} pages ({})",
                lifecycle::PAGE_CAP.value,
                pages.join(", ")
            )
        } else {
            list_fail.join("; ")
        },
        all(),
    ));
    let mut bad = Vec::new();
    let mut bad_builds: Vec<ClaudeVersion> = Vec::new();
    let mut dups = Vec::new();
    let mut renamed = Vec::new();
    for a in &p.attempts {
        let modern = a.era == Some(session::NegotiatedEra::Modern);
        let c = validate::check_pages(&a.pages, modern);
        for r in &c.rejected {
            let line = format!(
                "{}: page {}, {} ({}): {}",
                a.mode.as_str(),
                r.page,
                r.path,
                r.reason,
                r.detail
            );
            if r.fails_list {
                bad_builds = all();
                bad.push(line);
            } else {
                dups.push(line);
            }
        }
        for e in &c.envelope {
            // missing fields lose the list only where the build does not fill them in
            let losing: Vec<ClaudeVersion> = match e.kind {
                validate::EnvelopeKind::Missing => lifecycle::CONTRACT_BUILDS
                    .iter()
                    .copied()
                    .filter(|v| !v.fills_missing_fields(lifecycle::List::Tools))
                    .collect(),
                _ => all(),
            };
            for v in losing {
                if !bad_builds.contains(&v) {
                    bad_builds.push(v);
                }
            }
            bad.push(format!(
                "{}: page {}, {}: {}",
                a.mode.as_str(),
                e.page,
                e.field,
                e.detail
            ));
        }
        for r in predict::renamed_tools(&a.pages) {
            renamed.push(format!("{}: {r}", a.mode.as_str()));
        }
    }
    bad_builds.sort();
    out.push(check(
        "every-tool-accepted",
        Some(bad.is_empty()),
        if bad.is_empty() {
            "every tool and every result envelope passes".into()
        } else {
            bad.join("; ")
        },
        bad_builds,
    ));
    out.push(check(
        "unique-names",
        Some(dups.is_empty()),
        if dups.is_empty() {
            "no tool name twice".into()
        } else {
            format!("Claude Code keeps one of each name: {}", dups.join("; "))
        },
        all(),
    ));
    renamed.dedup();
    out.push(check(
        "tool-names",
        Some(renamed.is_empty()),
        if renamed.is_empty() {
            format!(
                "every name is non-empty and within [{}]",
                lifecycle::NAME_CHARSET.value
            )
        } else {
            format!("Claude Code renames: {}", renamed.join("; "))
        },
        all(),
    ));
    out.push(lists_check(p));
    out.push(strays_check(p));
    let declared = p.attempts.iter().any(Attempt::declares_list_changed);
    let seen = p.attempts.iter().any(|a| a.list_changed_seen);
    out.push(check(
        "list-changed",
        match (declared, seen) {
            (false, true) => Some(false),
            (true, true) => Some(true),
            _ => None,
        },
        match (declared, seen) {
            (false, true) => {
                "notifications/tools/list_changed sent without declaring tools.listChanged: Claude Code ignores it".into()
            }
            (true, true) => "declared and sent".into(),
            (true, false) => {
                "declared; not triggered (mcplogs cannot change the server's tools)".into()
            }
            (false, false) => "not declared".into(),
        },
        all(),
    ));
    let slow: Vec<String> = p
        .attempts
        .iter()
        .filter(|a| {
            a.elapsed_ms > budget_ms
                || matches!(a.failure, Some(Failure::Timeout { .. }))
                || matches!(a.list_failure, Some(session::ListFailure::Timeout { .. }))
        })
        .map(|a| format!("{}: {} ms", a.mode.as_str(), a.elapsed_ms))
        .collect();
    out.push(check(
        "timeout-budget",
        Some(slow.is_empty()),
        if slow.is_empty() {
            let ms: Vec<String> = p
                .attempts
                .iter()
                .map(|a| format!("{}: {} ms", a.mode.as_str(), a.elapsed_ms))
                .collect();
            format!("within {budget_ms} ms ({})", ms.join(", "))
        } else {
            format!("over {budget_ms} ms: {}", slow.join(", "))
        },
        all(),
    ));
    out
}

/// `prompts/list` and `resources/list`: under 2026-07-28 a result without
/// `resultType`/`ttlMs`/`cacheScope` loses the list on the builds that do not fill them in
/// (the tools load); not applicable when the server declares neither.
fn lists_check(p: &ServerProbe) -> ContractCheck {
    let mut bad = Vec::new();
    let mut losing: Vec<ClaudeVersion> = Vec::new();
    let mut fetched = 0;
    for a in &p.attempts {
        let modern = a.era == Some(session::NegotiatedEra::Modern);
        for l in &a.lists {
            fetched += 1;
            let Ok(result) = &l.result else {
                continue;
            };
            let issues = validate::check_list_envelope(result, modern);
            if issues.is_empty() {
                continue;
            }
            let missing = issues
                .iter()
                .all(|e| e.kind == validate::EnvelopeKind::Missing);
            let builds: Vec<ClaudeVersion> = lifecycle::CONTRACT_BUILDS
                .iter()
                .copied()
                .filter(|v| !missing || !v.fills_missing_fields(l.list))
                .collect();
            let fields: Vec<String> = issues
                .iter()
                .map(|e| format!("{} ({})", e.field, e.detail))
                .collect();
            let names: Vec<String> = builds.iter().map(ToString::to_string).collect();
            bad.push(format!(
                "{}: {}: {}; Claude Code {} rejects it and loses the {} (the tools load){}",
                a.mode.as_str(),
                l.list.method(),
                fields.join(", "),
                names.join(", "),
                l.list.what(),
                if missing {
                    "; legacy negotiation does not need these fields, and later builds fill them in"
                } else {
                    ""
                }
            ));
            for v in builds {
                if !losing.contains(&v) {
                    losing.push(v);
                }
            }
        }
    }
    losing.sort();
    let passed = if fetched == 0 {
        None
    } else {
        Some(bad.is_empty())
    };
    check(
        "lists-accepted",
        passed,
        match passed {
            None => "the server declares neither prompts nor resources".into(),
            Some(true) => "every prompts/list and resources/list result passes".into(),
            Some(false) => bad.join("; "),
        },
        losing,
    )
}

/// Every response follows the request it answers. One that arrives before its request
/// was sent is dropped by every observed build; one written before the server read its
/// request is taken as the answer and the real answer ignored (the model's rows).
fn strays_check(p: &ServerProbe) -> ContractCheck {
    use session::StrayKind;
    let mut bad = Vec::new();
    for a in &p.attempts {
        for s in &a.strays {
            let what = s.method.as_deref().unwrap_or("?");
            match s.kind {
                StrayKind::BeforeRequest => bad.push(format!(
                    "{}: a response to id {} ({what}) came before the request was sent: Claude Code drops it",
                    a.mode.as_str(),
                    s.id
                )),
                StrayKind::Duplicate => bad.push(format!(
                    "{}: two responses to id {} ({what}), one written before the server read the request: Claude Code takes the first it reads as the answer",
                    a.mode.as_str(),
                    s.id
                )),
                StrayKind::UnknownId => {}
            }
        }
    }
    check(
        "responses-follow-requests",
        Some(bad.is_empty()),
        if bad.is_empty() {
            "every response came after its request, once".into()
        } else {
            bad.join("; ")
        },
        lifecycle::CONTRACT_BUILDS.to_vec(),
    )
}
