//! The probe's outputs: the `--json` document, the `--transcript` JSON lines and the
//! human text. The caller passes the redaction ([`Masker::mask`], which knows every
//! configured secret, and for `report --probe` the report's redactor too): the human
//! text redacts each piece before it cuts it to the width ([`crate::text::cut`]), since
//! a secret cut short no longer matches its rule. The caller runs the finished text
//! through it once more.

use colored::Colorize;
use serde_json::Value;

use super::predict::Prediction;
use super::session::{Attempt, Mode};
use super::transport::{Failure, printable};
use super::{ContractCheck, ServerProbe};
use crate::verdict::Verdict;
use crate::wire;

/// Replaces every configured secret (env and header values) in output text, in its raw
/// and JSON-escaped forms, then applies mcplogs' secret patterns.
#[derive(Debug, Clone, Default)]
pub struct Masker {
    literals: Vec<String>,
    patterns: Option<crate::redact::Redactor>,
}

/// Values shorter than this are masked only when their key looks secret (masking `1`
/// or `true` everywhere would garble the output and protect nothing).
const MIN_MASKED_LEN: usize = 6;

impl Masker {
    pub fn new(configs: &[&super::ServerConfig], enabled: bool) -> Masker {
        if !enabled {
            return Masker::default();
        }
        let mut literals = Vec::new();
        for c in configs {
            for (k, v) in c.secret_values() {
                let v = v.trim();
                let key_secret = crate::redact::secrets::key_looks_secret(k)
                    || k.eq_ignore_ascii_case("authorization");
                if v.is_empty() || (v.chars().count() < MIN_MASKED_LEN && !key_secret) {
                    continue;
                }
                literals.push(v.to_string());
                // the token alone, for `Authorization: Bearer <token>`
                if let Some((_, tok)) = v.split_once(' ')
                    && tok.len() >= MIN_MASKED_LEN
                {
                    literals.push(tok.to_string());
                }
            }
        }
        let mut all = Vec::new();
        for l in literals {
            let escaped = serde_json::to_string(&l).unwrap_or_default();
            let escaped = escaped[1..escaped.len() - 1].to_string();
            if escaped != l {
                all.push(escaped);
            }
            all.push(l);
        }
        all.sort_by_key(|s| std::cmp::Reverse(s.len()));
        all.dedup();
        Masker {
            literals: all,
            patterns: Some(crate::redact::Redactor::secrets_only(std::iter::empty())),
        }
    }

    /// [`Masker::mask`] on every string of a JSON document (keys included), each
    /// string as a whole, and the secret patterns on the document's values
    /// ([`crate::redact::output::json_value`], which also reads `["--token", "V"]` as
    /// one command line). Masking the serialised text instead misses a flag and its
    /// value, which JSON writes as two strings.
    pub fn mask_json(&self, v: &mut Value) {
        fn literals(m: &Masker, v: &mut Value) {
            match v {
                Value::String(s) => {
                    for l in &m.literals {
                        if s.contains(l.as_str()) {
                            *s = s.replace(l.as_str(), "[REDACTED:config]");
                        }
                    }
                }
                Value::Array(a) => a.iter_mut().for_each(|x| literals(m, x)),
                Value::Object(o) => {
                    let old = std::mem::take(o);
                    for (mut k, mut x) in old {
                        for l in &m.literals {
                            if k.contains(l.as_str()) {
                                k = k.replace(l.as_str(), "[REDACTED:config]");
                            }
                        }
                        literals(m, &mut x);
                        o.insert(k, x);
                    }
                }
                _ => {}
            }
        }
        literals(self, v);
        if let Some(r) = &self.patterns {
            crate::redact::output::json_value(r, v);
        }
    }

    pub fn mask(&self, text: &str) -> String {
        let mut t = text.to_string();
        for l in &self.literals {
            if t.contains(l.as_str()) {
                t = t.replace(l.as_str(), "[REDACTED:config]");
            }
        }
        match &self.patterns {
            Some(r) => r.redact(&t),
            None => t,
        }
    }
}

fn prediction_json(p: &Prediction) -> wire::ProbePrediction {
    let d = p.diagnosis();
    wire::ProbePrediction {
        claude_version: p.claude_version.to_string(),
        negotiation: p.negotiation.clone(),
        handshake: p.mode.as_str().to_string(),
        verdict: p.verdict.as_str().to_string(),
        cause: p.cause.map(|c| c.as_str().to_string()),
        era: p.era.map(|e| e.as_str().to_string()),
        negotiated_protocol_version: p.negotiated_version.clone(),
        filled_fields: p.filled_fields.clone(),
        bad_tool_path: p.bad_tool_path.clone(),
        tools_loaded: p.tools_loaded as u64,
        reason: p.reason.clone(),
        recommendation: d.recommendation(),
    }
}

fn failure_json(f: &Failure) -> wire::ProbeFailure {
    let (http_status, www_authenticate) = match f {
        Failure::HttpStatus { status, .. } => (Some(*status), None),
        Failure::NeedsAuth { www_authenticate } => (Some(401), www_authenticate.clone()),
        _ => (None, None),
    };
    wire::ProbeFailure {
        category: f.category(),
        message: f.to_string(),
        http_status,
        www_authenticate,
    }
}

fn steps_json(a: &Attempt) -> Vec<wire::ProbeStep> {
    a.steps
        .iter()
        .map(|s| wire::ProbeStep {
            connection_id: a.connection_id.clone(),
            step: s.name.clone(),
            sent: s.sent.clone(),
            received: s.received.clone(),
            ms: s.ms,
            ok: s.ok,
            detail: s.detail.clone(),
        })
        .collect()
}

fn attempt_json(a: &Attempt) -> wire::ProbeAttempt {
    wire::ProbeAttempt {
        handshake: a.mode.as_str().to_string(),
        connection_id: a.connection_id.clone(),
        era: a.era.map(|e| {
            match e {
                super::session::NegotiatedEra::Modern => "modern",
                _ => "legacy",
            }
            .to_string()
        }),
        negotiated_protocol_version: a.negotiated_version.clone(),
        discover_note: a.discover_note.clone(),
        server_info: a.server_info.clone(),
        capabilities: a.capabilities.clone(),
        failure: a.failure.as_ref().map(failure_json),
        list_failure: a.list_failure.as_ref().map(|f| f.to_string()),
        pages: a.pages.len() as u64,
        elapsed_ms: a.elapsed_ms,
        steps: steps_json(a),
        non_json_lines: wire::ProbeNoise {
            count: a.noise_lines as u64,
            examples: a.noise_examples.clone(),
        },
        stderr: a.stderr.as_ref().map(|s| wire::ProbeStderr {
            bytes: s.bytes,
            lines: s.lines,
            kept: s.text(),
        }),
        transcript_events_dropped: a.events_dropped as u64,
    }
}

/// One server in the `--json` document; `contract` with `--contract`.
pub fn server_json(p: &ServerProbe, contract: Option<&[ContractCheck]>) -> wire::ProbeServer {
    let c = &p.config;
    let a = p.predicted_attempt();
    let list_fails = p.prediction.verdict == Verdict::ToolsFetchFailed;
    let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_string());
    wire::ProbeServer {
        name: c.name.clone(),
        scope: c.scope.as_str().to_string(),
        source: c.source.as_ref().map(|s| s.display().to_string()),
        transport: c.transport.as_str().to_string(),
        command: non_empty(&c.command),
        args: c.args.clone(),
        url: non_empty(&c.url),
        env_keys: c.env.keys().cloned().collect(),
        header_names: c.headers.keys().cloned().collect(),
        approved: c.approved,
        warnings: c.warnings.clone(),
        prediction: prediction_json(&p.prediction),
        with_legacy: prediction_json(&p.with_legacy),
        legacy_fix_helps: p.legacy_fix_helps(),
        steps: steps_json(a),
        tools: wire::ProbeTools {
            returned: p.tools.returned as u64,
            accepted: p.prediction.tools_loaded as u64,
            rejected: p
                .tools
                .rejected
                .iter()
                .map(|r| wire::ProbeRejectedTool {
                    name: r.name.clone(),
                    reason: r.reason.to_string(),
                    page: r.page as u64,
                    path: r.path.clone(),
                    detail: r.detail.clone(),
                    fails_list: r.fails_list,
                })
                .collect(),
            envelope: p
                .tools
                .envelope
                .iter()
                .map(|e| wire::ProbeEnvelopeIssue {
                    page: e.page as u64,
                    field: e.field.clone(),
                    detail: e.detail.clone(),
                    kind: match e.kind {
                        super::validate::EnvelopeKind::Missing => "missing",
                        super::validate::EnvelopeKind::WrongType => "wrong-type",
                        super::validate::EnvelopeKind::Malformed => "malformed",
                    }
                    .to_string(),
                })
                .collect(),
            pages: p.tools.pages as u64,
            whole_list_dropped: list_fails && p.tools.returned > 0,
        },
        attempts: p.attempts.iter().map(attempt_json).collect(),
        contract: contract.map(|checks| {
            checks
                .iter()
                .map(|c| wire::ProbeContractCheck {
                    check: c.name.to_string(),
                    passed: c.passed,
                    detail: c.detail.clone(),
                })
                .collect()
        }),
    }
}

/// The transcript of every connection, one JSON object per line, every string masked.
pub fn transcript_lines(
    probes: &[ServerProbe],
    masker: &Masker,
) -> Result<String, serde_json::Error> {
    let mut out = String::new();
    for p in probes {
        for a in &p.attempts {
            for e in &a.events {
                let line = wire::TranscriptEvent {
                    seq: e.seq as u64,
                    server: p.config.name.clone(),
                    connection_id: e.connection_id.clone(),
                    direction: e.direction.to_string(),
                    t_ms: e.t_ms,
                    id: e.id.clone(),
                    method: e.method.clone(),
                    error_category: e.error_category.clone(),
                    payload: e.payload.clone(),
                };
                let mut v = serde_json::to_value(&line)?;
                masker.mask_json(&mut v);
                out.push_str(&serde_json::to_string(&v)?);
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// What the human text shows of `s` in `max` columns: escaped, redacted, then cut.
fn cut(redact: Redact, s: &str, max: usize) -> String {
    crate::text::cut(&redact(&printable(s, usize::MAX, false)), max.max(8))
}

/// How a caller redacts the text it is given (`Masker::mask`, maybe more).
pub type Redact<'a> = &'a dyn Fn(&str) -> String;

/// Wraps `text` at word boundaries into lines of at most `width` columns, each
/// starting with `indent`.
fn wrap(text: &str, indent: &str, width: usize) -> String {
    let room = width.saturating_sub(indent.chars().count()).max(20);
    let mut out = String::new();
    let mut line = String::new();
    for word in printable(text, usize::MAX, false).split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > room {
            out.push_str(&format!("{indent}{line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("{indent}{line}\n"));
    }
    out
}

fn paint(v: Verdict, s: &str) -> String {
    match v {
        Verdict::Healthy => s.green().to_string(),
        Verdict::Tolerated => s.yellow().to_string(),
        Verdict::Unknown => s.dimmed().to_string(),
        _ => s.red().bold().to_string(),
    }
}

fn label(p: &Prediction) -> String {
    match p.cause {
        Some(c) => format!("{} ({c})", p.verdict),
        None => p.verdict.to_string(),
    }
}

fn setting(p: &Prediction) -> String {
    match &p.negotiation {
        Some(n) => format!("MCP_PROTOCOL_NEGOTIATION={n}"),
        None => "MCP_PROTOCOL_NEGOTIATION not set".into(),
    }
}

/// The human text for one server, every line at most `width` columns.
pub fn server_text(p: &ServerProbe, width: usize, redact: Redact) -> String {
    let w = width.max(60);
    let c = &p.config;
    let mut out = String::new();
    let what = match c.transport {
        super::TransportKind::Stdio => {
            let mut s = c.command.clone();
            for a in &c.args {
                s.push(' ');
                s.push_str(a);
            }
            s
        }
        _ => c.url.clone(),
    };
    let head = format!(
        "{} · {} · {} scope · ",
        c.name,
        c.transport.as_str(),
        c.scope.as_str()
    );
    let room = w.saturating_sub(head.chars().count());
    out.push_str(&format!("{}{}\n", head.bold(), cut(redact, &what, room)));
    for warn in &c.warnings {
        out.push_str(&format!("  warning: {}\n", cut(redact, warn, w - 11)));
    }
    if c.approved == Some(false) {
        out.push_str(&format!(
            "  {}\n",
            cut(redact, "note: a project server not approved yet: Claude Code will not start it until approved", w - 2)
        ));
    }
    let a = p.predicted_attempt();
    out.push_str(&format!(
        "  handshake as Claude Code {} does it ({}, {}):\n",
        p.prediction.claude_version,
        p.prediction.mode.as_str(),
        setting(&p.prediction)
    ));
    for s in &a.steps {
        let mark = if s.ok {
            "ok  ".green().to_string()
        } else {
            "FAIL".red().bold().to_string()
        };
        let what = match (&s.received, &s.detail) {
            (Some(r), Some(d)) => format!("{r}; {d}"),
            (Some(r), None) => r.clone(),
            (None, Some(d)) => d.clone(),
            (None, None) => String::new(),
        };
        let left = format!("  {:>6} ms  {:<20} ", s.ms, cut(redact, &s.name, 20));
        let room = w.saturating_sub(left.chars().count() + 5);
        out.push_str(&format!("{left}{mark} {}\n", cut(redact, &what, room)));
    }
    if a.noise_lines > 0 {
        out.push_str(&format!(
            "  stdout: {} non-JSON line(s) ignored, e.g. {}\n",
            a.noise_lines,
            cut(
                redact,
                a.noise_examples.first().map(String::as_str).unwrap_or(""),
                w.saturating_sub(50)
            )
        ));
    }
    if let Some(s) = &a.stderr
        && s.bytes > 0
    {
        out.push_str(&format!("  stderr: {} line(s), {} bytes", s.lines, s.bytes));
        let text = s.text();
        let last = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        let room = w.saturating_sub(40);
        out.push_str(&format!("; last: {}\n", cut(redact, last, room)));
    }
    let t = &p.tools;
    if a.failure.is_none() {
        out.push_str(&format!(
            "  tools: {} returned, {} accepted, {} rejected",
            t.returned,
            p.prediction.tools_loaded,
            t.rejected.len()
        ));
        if p.prediction.verdict == Verdict::ToolsFetchFailed && t.returned > 0 {
            out.push_str(" (Claude Code drops the whole list)");
        }
        out.push('\n');
        for r in t.rejected.iter().take(10) {
            let line = format!(
                "page {}, {} {}: {} [{}]",
                r.page,
                r.path,
                r.name
                    .as_deref()
                    .map(|n| format!("({n})"))
                    .unwrap_or_default(),
                r.detail,
                r.reason
            );
            out.push_str(&format!("    {}\n", cut(redact, &line, w - 4)));
        }
        if t.rejected.len() > 10 {
            out.push_str(&format!("    ... and {} more\n", t.rejected.len() - 10));
        }
        for e in t.envelope.iter().take(6) {
            let line = format!("page {}, {}: {}", e.page, e.field, e.detail);
            out.push_str(&format!("    {}\n", cut(redact, &line, w - 4)));
        }
    }
    let pred = &p.prediction;
    let l = format!(
        "  Claude Code {} ({}): ",
        pred.claude_version,
        setting(pred)
    );
    out.push_str(&format!("{l}{}\n", paint(pred.verdict, &label(pred))));
    out.push_str(&wrap(&pred.reason, "    ", w));
    if pred.mode != Mode::Legacy || pred.verdict.is_problem() {
        let wl = &p.with_legacy;
        let tail = if p.legacy_fix_helps() {
            " -> `mcplogs fix` will help".to_string()
        } else if pred.verdict.is_problem() {
            " -> legacy does not help".to_string()
        } else {
            String::new()
        };
        out.push_str(&format!(
            "  with MCP_PROTOCOL_NEGOTIATION=legacy: {}{tail}\n",
            paint(wl.verdict, &label(wl))
        ));
    }
    if pred.verdict != Verdict::Healthy {
        out.push_str(&wrap(&pred.diagnosis().recommendation(), "  ", w));
    }
    out
}

pub fn contract_text(checks: &[ContractCheck], width: usize, redact: Redact) -> String {
    let mut out = String::from("  contract:\n");
    for c in checks {
        let mark = match c.passed {
            Some(true) => "pass".green().to_string(),
            Some(false) => "FAIL".red().bold().to_string(),
            None => "n/a ".dimmed().to_string(),
        };
        let left = format!("    {mark} {:<24} ", c.name);
        out.push_str(&format!(
            "{left}{}\n",
            cut(redact, &c.detail, width.max(60) - 35)
        ));
    }
    out
}

/// The `## Probe` section `mcplogs report --probe` appends: one line per server.
pub fn markdown_summary(probes: &[ServerProbe], redact: Redact) -> String {
    let mut out = String::from("\n## Probe\n\n");
    if probes.is_empty() {
        out.push_str("No MCP server is configured for this project.\n");
        return out;
    }
    let p0 = &probes[0].prediction;
    out.push_str(&format!(
        "`mcplogs probe` replayed Claude Code {}'s handshake ({}):\n\n",
        p0.claude_version,
        setting(p0)
    ));
    out.push_str(
        "| server | transport | prediction | with legacy | tools returned / accepted | detail |\n",
    );
    out.push_str("|---|---|---|---|---|---|\n");
    let cell = |s: &str| cut(redact, s, 160).replace('|', "\\|");
    for p in probes {
        let detail = p
            .tools
            .first_bad_tool()
            .map(|r| format!("page {}, {}: {}", r.page, r.path, r.detail))
            .unwrap_or_else(|| p.prediction.reason.clone());
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} / {} | {} |\n",
            cell(&p.config.name),
            p.config.transport.as_str(),
            label(&p.prediction),
            label(&p.with_legacy),
            p.tools.returned,
            p.prediction.tools_loaded,
            cell(&detail)
        ));
    }
    out
}
