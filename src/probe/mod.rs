//! `mcplogs probe`: replay Claude Code's handshake against a configured server and
//! predict what a given Claude Code build will do with it.
//!
//! [`config`] resolves the servers the way Claude Code does; [`transport`] speaks stdio,
//! Streamable HTTP and legacy SSE, bounded, ending everything a stdio server started
//! (`reap`) and sending configured headers only to the configured origin;
//! [`session`] drives the lifecycle exactly as Claude Code does on the wire and records
//! steps and a transcript; [`validate`] applies Claude Code's checks field by field;
//! [`predict`] turns all that into a verdict per Claude Code version and negotiation
//! setting; [`render`] builds the JSON document, the transcript lines and the text.

pub mod predict;
mod reap;
pub mod session;
pub mod transport;
pub mod validate;

use std::path::PathBuf;
use std::time::Instant;

use crate::settings::NegotiationValue;

pub use crate::claude_code::config::{ServerConfig, TransportKind};
pub use predict::{ClaudeVersion, Prediction};
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
        if self.legacy_fix_helps() && crate::advice::legacy_fix_wording(&d).is_none() {
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
            match SseTransport::connect(&cfg.url, &cfg.headers, start + limits.budget) {
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
    let prediction = predict::predict(by_mode(mode), v, negotiation);
    let with_legacy = predict::predict(by_mode(Mode::Legacy), v, Some("legacy".into()));
    let a = by_mode(mode);
    let tools = validate::check_pages(&a.pages, a.era == Some(session::NegotiatedEra::Modern));
    ServerProbe {
        config: cfg.clone(),
        attempts,
        prediction,
        with_legacy,
        tools,
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
}

/// The checks a client can drive, over every handshake run.
pub fn contract(p: &ServerProbe, budget_ms: u64) -> Vec<ContractCheck> {
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
    out.push(ContractCheck {
        name: "tools-capable-handshake",
        passed: Some(failures.is_empty() && no_tools.is_empty()),
        detail: if !failures.is_empty() {
            failures.join("; ")
        } else if !no_tools.is_empty() {
            format!("no tools capability declared ({})", no_tools.join(", "))
        } else {
            "every handshake succeeded and declared tools".into()
        },
    });
    let list_fail: Vec<String> = p
        .attempts
        .iter()
        .filter_map(|a| {
            a.list_failure
                .as_ref()
                .map(|f| format!("{}: {f}", a.mode.as_str()))
        })
        .collect();
    out.push(ContractCheck {
        name: "pagination",
        passed: Some(list_fail.is_empty()),
        detail: if list_fail.is_empty() {
            let pages: Vec<String> = p
                .attempts
                .iter()
                .filter(|a| a.failure.is_none())
                .map(|a| format!("{}: {} page(s)", a.mode.as_str(), a.pages.len()))
                .collect();
            format!("complete and loop-free ({})", pages.join(", "))
        } else {
            list_fail.join("; ")
        },
    });
    let mut bad = Vec::new();
    let mut dups = Vec::new();
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
            if r.fails_list { &mut bad } else { &mut dups }.push(line);
        }
        for e in &c.envelope {
            bad.push(format!(
                "{}: page {}, {}: {}",
                a.mode.as_str(),
                e.page,
                e.field,
                e.detail
            ));
        }
    }
    out.push(ContractCheck {
        name: "every-tool-accepted",
        passed: Some(bad.is_empty()),
        detail: if bad.is_empty() {
            "every tool and every result envelope passes".into()
        } else {
            bad.join("; ")
        },
    });
    out.push(ContractCheck {
        name: "unique-names",
        passed: Some(dups.is_empty()),
        detail: if dups.is_empty() {
            "no tool name twice".into()
        } else {
            dups.join("; ")
        },
    });
    let declared = p.attempts.iter().any(Attempt::declares_list_changed);
    let seen = p.attempts.iter().any(|a| a.list_changed_seen);
    out.push(ContractCheck {
        name: "list-changed",
        passed: match (declared, seen) {
            (false, true) => Some(false),
            (true, true) => Some(true),
            _ => None,
        },
        detail: match (declared, seen) {
            (false, true) => {
                "notifications/tools/list_changed sent without declaring tools.listChanged".into()
            }
            (true, true) => "declared and sent".into(),
            (true, false) => {
                "declared; not triggered (mcplogs cannot change the server's tools)".into()
            }
            (false, false) => "not declared".into(),
        },
    });
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
    out.push(ContractCheck {
        name: "timeout-budget",
        passed: Some(slow.is_empty()),
        detail: if slow.is_empty() {
            let ms: Vec<String> = p
                .attempts
                .iter()
                .map(|a| format!("{}: {} ms", a.mode.as_str(), a.elapsed_ms))
                .collect();
            format!("within {budget_ms} ms ({})", ms.join(", "))
        } else {
            format!("over {budget_ms} ms: {}", slow.join(", "))
        },
    });
    out
}
