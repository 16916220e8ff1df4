//! The probe's outputs: the `--json` document, the `--transcript` JSON lines and the
//! human text. Nothing here is redacted: the caller runs the finished text through
//! [`Masker`], which knows every configured secret.

use colored::Colorize;
use serde_json::{Value, json};

use super::predict::Prediction;
use super::session::{Attempt, Mode};
use super::transport::{Failure, printable};
use super::{ContractCheck, ServerProbe};
use crate::verdict::Verdict;

pub const SCHEMA_VERSION: u32 = 1;

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

fn prediction_json(p: &Prediction) -> Value {
    let d = p.diagnosis();
    json!({
        "claudeVersion": p.claude_version.to_string(),
        "negotiation": p.negotiation,
        "handshake": p.mode.as_str(),
        "verdict": p.verdict.as_str(),
        "cause": p.cause.map(|c| c.as_str()),
        "era": p.era.map(|e| e.as_str()),
        "negotiatedProtocolVersion": p.negotiated_version,
        "filledFields": p.filled_fields,
        "badToolPath": p.bad_tool_path,
        "toolsLoaded": p.tools_loaded,
        "reason": p.reason,
        "recommendation": d.recommendation(),
    })
}

fn failure_json(f: &Failure) -> Value {
    let mut v = json!({"category": f.category(), "message": f.to_string()});
    match f {
        Failure::HttpStatus { status, .. } => v["httpStatus"] = json!(status),
        Failure::NeedsAuth { www_authenticate } => {
            v["httpStatus"] = json!(401);
            v["wwwAuthenticate"] = json!(www_authenticate);
        }
        _ => {}
    }
    v
}

fn steps_json(a: &Attempt) -> Value {
    Value::Array(
        a.steps
            .iter()
            .map(|s| {
                json!({"connectionId": a.connection_id, "step": s.name, "sent": s.sent,
                       "received": s.received, "ms": s.ms, "ok": s.ok, "detail": s.detail})
            })
            .collect(),
    )
}

fn attempt_json(a: &Attempt) -> Value {
    json!({
        "handshake": a.mode.as_str(),
        "connectionId": a.connection_id,
        "era": a.era.map(|e| match e { super::session::NegotiatedEra::Modern => "modern", _ => "legacy" }),
        "negotiatedProtocolVersion": a.negotiated_version,
        "discoverNote": a.discover_note,
        "serverInfo": a.server_info,
        "capabilities": a.capabilities,
        "failure": a.failure.as_ref().map(failure_json),
        "listFailure": a.list_failure.as_ref().map(|f| f.to_string()),
        "pages": a.pages.len(),
        "elapsedMs": a.elapsed_ms,
        "steps": steps_json(a),
        "nonJsonLines": {"count": a.noise_lines, "examples": a.noise_examples},
        "stderr": a.stderr.as_ref().map(|s| json!({"bytes": s.bytes, "lines": s.lines, "kept": s.text()})),
        "transcriptEventsDropped": a.events_dropped,
    })
}

/// One server in the `--json` document.
pub fn server_json(p: &ServerProbe) -> Value {
    let c = &p.config;
    let a = p.predicted_attempt();
    let list_fails = p.prediction.verdict == Verdict::ToolsFetchFailed;
    json!({
        "name": c.name,
        "scope": c.scope.as_str(),
        "source": c.source.as_ref().map(|s| s.display().to_string()),
        "transport": c.transport.as_str(),
        "command": if c.command.is_empty() { Value::Null } else { json!(c.command) },
        "args": c.args,
        "url": if c.url.is_empty() { Value::Null } else { json!(c.url) },
        "envKeys": c.env.keys().collect::<Vec<_>>(),
        "headerNames": c.headers.keys().collect::<Vec<_>>(),
        "approved": c.approved,
        "warnings": c.warnings,
        "prediction": prediction_json(&p.prediction),
        "withLegacy": prediction_json(&p.with_legacy),
        "legacyFixHelps": p.legacy_fix_helps(),
        "steps": steps_json(a),
        "tools": {
            "returned": p.tools.returned,
            "accepted": p.prediction.tools_loaded,
            "rejected": p.tools.rejected.iter().map(|r| json!({
                "name": r.name, "reason": r.reason, "page": r.page, "path": r.path,
                "detail": r.detail, "failsList": r.fails_list})).collect::<Vec<_>>(),
            "envelope": p.tools.envelope.iter().map(|e| json!({
                "page": e.page, "field": e.field, "detail": e.detail,
                "kind": match e.kind {
                    super::validate::EnvelopeKind::Missing => "missing",
                    super::validate::EnvelopeKind::WrongType => "wrong-type",
                    super::validate::EnvelopeKind::Malformed => "malformed",
                }})).collect::<Vec<_>>(),
            "pages": p.tools.pages,
            "wholeListDropped": list_fails && p.tools.returned > 0,
        },
        "attempts": p.attempts.iter().map(attempt_json).collect::<Vec<_>>(),
    })
}

pub fn contract_json(checks: &[ContractCheck]) -> Value {
    Value::Array(
        checks
            .iter()
            .map(|c| json!({"check": c.name, "passed": c.passed, "detail": c.detail}))
            .collect(),
    )
}

/// The transcript of every connection, one JSON object per line.
pub fn transcript_lines(probes: &[ServerProbe]) -> String {
    let mut out = String::new();
    for p in probes {
        for a in &p.attempts {
            for e in &a.events {
                let line = json!({
                    "seq": e.seq,
                    "server": p.config.name,
                    "connectionId": e.connection_id,
                    "direction": e.direction,
                    "tMs": e.t_ms,
                    "id": e.id,
                    "method": e.method,
                    "errorCategory": e.error_category,
                    "payload": e.payload,
                });
                out.push_str(&serde_json::to_string(&line).expect("json"));
                out.push('\n');
            }
        }
    }
    out
}

fn cut(s: &str, max: usize) -> String {
    printable(s, max.max(8), false)
}

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
pub fn server_text(p: &ServerProbe, width: usize) -> String {
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
    out.push_str(&format!("{}{}\n", head.bold(), cut(&what, room)));
    for warn in &c.warnings {
        out.push_str(&format!("  warning: {}\n", cut(warn, w - 11)));
    }
    if c.approved == Some(false) {
        out.push_str(&format!(
            "  {}\n",
            cut("note: a project server not approved yet: Claude Code will not start it until approved", w - 2)
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
        let left = format!("  {:>6} ms  {:<20} ", s.ms, cut(&s.name, 20));
        let room = w.saturating_sub(left.chars().count() + 5);
        out.push_str(&format!("{left}{mark} {}\n", cut(&what, room)));
    }
    if a.noise_lines > 0 {
        out.push_str(&format!(
            "  stdout: {} non-JSON line(s) ignored, e.g. {}\n",
            a.noise_lines,
            cut(
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
        out.push_str(&format!("; last: {}\n", cut(last, room)));
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
            out.push_str(&format!("    {}\n", cut(&line, w - 4)));
        }
        if t.rejected.len() > 10 {
            out.push_str(&format!("    ... and {} more\n", t.rejected.len() - 10));
        }
        for e in t.envelope.iter().take(6) {
            let line = format!("page {}, {}: {}", e.page, e.field, e.detail);
            out.push_str(&format!("    {}\n", cut(&line, w - 4)));
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

pub fn contract_text(checks: &[ContractCheck], width: usize) -> String {
    let mut out = String::from("  contract:\n");
    for c in checks {
        let mark = match c.passed {
            Some(true) => "pass".green().to_string(),
            Some(false) => "FAIL".red().bold().to_string(),
            None => "n/a ".dimmed().to_string(),
        };
        let left = format!("    {mark} {:<24} ", c.name);
        out.push_str(&format!("{left}{}\n", cut(&c.detail, width.max(60) - 35)));
    }
    out
}

/// The `## Probe` section `mcplogs report --probe` appends: one line per server.
pub fn markdown_summary(probes: &[ServerProbe]) -> String {
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
    let cell = |s: &str| printable(s, 160, false).replace('|', "\\|");
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
