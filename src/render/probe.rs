//! The probe's outputs: the `--json` document, the `--transcript` JSON lines and the
//! human text, each field redacted by the probe's [`redactor`] as it is rendered.
//! Each piece is escaped, redacted, then cut to the width ([`crate::text::cut`]): a
//! secret cut short no longer matches its rule.

use colored::Colorize;
use serde_json::Value;

use crate::classify::verdict::Verdict;
use crate::json_doc;
use crate::probe::predict::Prediction;
use crate::probe::session::{Attempt, Mode};
use crate::probe::transport::{Failure, printable};
use crate::probe::{ClaudeVersion, ContractCheck, Outcome, ServerProbe};
use crate::redact::Redactor;
use crate::redact::output::json_value;

/// The probe's redactor: the project's one ([`crate::redact`]), with the secret rules,
/// every configured env and header value of `configs` that could be a secret
/// ([`crate::redact::RedactorBuilder::learn_configured_secrets`]: by its key's name, its shape, or its length
/// and entropy) and every one of `secrets` (all the configuration's,
/// `crate::scan::secrets::collect`); one that changes nothing with `enabled` false
/// (`--no-redact`).
/// The renderers below redact each field they print with it, before cutting it to fit;
/// what they take from fixed vocabularies (verdicts, causes, eras, handshakes,
/// transports, scopes, categories) is never passed through it, and server names are
/// hidden as `scan` hides them (`name`; escaped first in the text, `text_name`).
pub fn redactor(
    configs: &[&crate::probe::ServerConfig],
    secrets: &crate::redact::configured::ConfiguredSecrets,
    enabled: bool,
) -> Redactor {
    if !enabled {
        return Redactor::disabled();
    }
    crate::resolve::configured_redactor(configs, secrets)
}

/// A server's name, or a connection id made from it: a name can hold a token, or a
/// configured value (`cfg-VALUE`), hidden as `scan` hides it in the name
/// (`cfg-[REDACTED:config]`). Not escaped: `--json` escapes as it writes.
fn name(r: &Redactor, s: &str) -> String {
    r.redact(s)
}

/// A server's name in the human text: escaped (a colour or cursor sequence in a name
/// never reaches the terminal, and the width is the escaped text's), then [`name`].
fn text_name(r: &Redactor, s: &str) -> String {
    name(r, &printable(s, usize::MAX, false))
}

fn red_opt(r: &Redactor, s: &Option<String>) -> Option<String> {
    s.as_deref().map(|s| r.redact(s))
}

fn red_json(r: &Redactor, v: &Value) -> Value {
    let mut v = v.clone();
    json_value(r, &mut v);
    v
}

/// A list of strings redacted as JSON redacts one (`["--token", "V"]` is read as one
/// command line, so the value of a secret flag is hidden).
fn red_list(r: &Redactor, list: &[String]) -> Vec<String> {
    let mut v = Value::Array(list.iter().cloned().map(Value::String).collect());
    json_value(r, &mut v);
    match v {
        Value::Array(a) => a
            .into_iter()
            .map(|x| match x {
                Value::String(s) => s,
                other => other.to_string(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn prediction_json(
    p: &Prediction,
    r: &Redactor,
    recommendation: String,
) -> json_doc::ProbePrediction {
    json_doc::ProbePrediction {
        claude_version: p.claude_version.to_string(),
        negotiation: p.negotiation.clone(),
        handshake: p.mode.as_str().to_string(),
        verdict: p.verdict.as_str().to_string(),
        cause: p.cause.map(|c| c.as_str().to_string()),
        era: p.era.map(|e| e.as_str().to_string()),
        negotiated_protocol_version: red_opt(r, &p.negotiated_version),
        filled_fields: p.filled_fields.clone(),
        bad_tool_path: red_opt(r, &p.bad_tool_path),
        tools_loaded: p.tools_loaded as u64,
        lost_lists: p.lost_lists.clone(),
        reason: r.redact(&p.reason),
        recommendation: r.redact(&recommendation),
    }
}

/// The most characters of one server-given string (a header value, a metadata field, a
/// URL) the output shows: redacted first, then cut with a visible mark.
pub const MAX_SERVER_TEXT: usize = 300;

/// `s`, already redacted, in at most [`MAX_SERVER_TEXT`] characters: a longer one is cut
/// (never inside a redaction marker) and says how long it was.
fn bounded(s: String) -> String {
    let n = s.chars().count();
    if n <= MAX_SERVER_TEXT {
        return s;
    }
    format!(
        "{} [cut: {n} characters in all]",
        crate::text::cut(&s, MAX_SERVER_TEXT)
    )
}

/// The `WWW-Authenticate` header of a 401, when the failure has one.
fn www_of(f: Option<&Failure>) -> Option<&str> {
    match f {
        Some(Failure::NeedsAuth {
            www_authenticate: Some(h),
        }) => Some(h),
        _ => None,
    }
}

/// `detail`, a step's, redacted and bounded. The 401's `WWW-Authenticate` header in it
/// (`www`) is, in the document (`json`), named where it is kept once (the failure's
/// `wwwAuthenticate`); in the text, redacted alone and bounded.
fn step_detail(r: &Redactor, detail: &str, www: Option<&str>, json: bool) -> String {
    let Some(h) = www.filter(|h| !h.is_empty() && detail.contains(*h)) else {
        return bounded(r.redact(detail));
    };
    if json {
        return bounded(r.redact(&detail.replace(
            &format!("(WWW-Authenticate: {h})"),
            "(WWW-Authenticate: see failure.wwwAuthenticate)",
        )));
    }
    let parts: Vec<String> = detail.split(h).map(|p| r.redact(p)).collect();
    parts.join(&bounded(r.redact(h)))
}

fn failure_json(f: &Failure, r: &Redactor) -> json_doc::ProbeFailure {
    let (http_status, www_authenticate) = match f {
        Failure::HttpStatus { status, .. } => (Some(*status), None),
        Failure::NeedsAuth { www_authenticate } => (
            Some(401),
            www_authenticate.as_deref().map(|h| bounded(r.redact(h))),
        ),
        _ => (None, None),
    };
    json_doc::ProbeFailure {
        category: f.category(),
        message: step_detail(r, &f.to_string(), www_of(Some(f)), true),
        http_status,
        www_authenticate,
    }
}

fn steps_json(a: &Attempt, r: &Redactor) -> Vec<json_doc::ProbeStep> {
    a.steps
        .iter()
        .map(|s| json_doc::ProbeStep {
            connection_id: name(r, &a.connection_id),
            step: r.redact(&s.name),
            sent: red_opt(r, &s.sent),
            received: red_opt(r, &s.received),
            ms: s.ms,
            ok: s.ok,
            detail: s
                .detail
                .as_deref()
                .map(|d| step_detail(r, d, www_of(a.failure.as_ref()), true)),
        })
        .collect()
}

fn attempt_json(a: &Attempt, r: &Redactor) -> json_doc::ProbeAttempt {
    json_doc::ProbeAttempt {
        handshake: a.mode.as_str().to_string(),
        connection_id: name(r, &a.connection_id),
        era: a.era.map(|e| {
            match e {
                crate::probe::session::NegotiatedEra::Modern => "modern",
                _ => "legacy",
            }
            .to_string()
        }),
        negotiated_protocol_version: red_opt(r, &a.negotiated_version),
        discover_note: red_opt(r, &a.discover_note),
        server_info: a.server_info.as_ref().map(|v| red_json(r, v)),
        capabilities: a.capabilities.as_ref().map(|v| red_json(r, v)),
        failure: a.failure.as_ref().map(|f| failure_json(f, r)),
        list_failure: a.list_failure.as_ref().map(|f| r.redact(&f.to_string())),
        pages: a.pages.len() as u64,
        elapsed_ms: a.elapsed_ms,
        steps: steps_json(a, r),
        non_json_lines: json_doc::ProbeNoise {
            count: a.noise_lines as u64,
            examples: a.noise_examples.iter().map(|e| r.redact(e)).collect(),
        },
        stderr: a.stderr.as_ref().map(|s| json_doc::ProbeStderr {
            bytes: s.bytes,
            lines: s.lines,
            kept: r.redact(&s.text()),
        }),
        transcript_events_dropped: a.events_dropped as u64,
        lists: a
            .lists
            .iter()
            .map(|l| {
                let modern = a.era == Some(crate::probe::session::NegotiatedEra::Modern);
                json_doc::ProbeListFetch {
                    method: l.list.method().to_string(),
                    items: l.result.as_ref().ok().map(|v| {
                        v.get(l.list.what())
                            .and_then(Value::as_array)
                            .map_or(0, Vec::len) as u64
                    }),
                    envelope: l
                        .result
                        .as_ref()
                        .map(|v| crate::probe::validate::check_list_envelope(v, modern))
                        .unwrap_or_default()
                        .iter()
                        .map(|e| envelope_json(e, r))
                        .collect(),
                    error: l.result.as_ref().err().map(|e| r.redact(&e.to_string())),
                }
            })
            .collect(),
        stray_responses: a
            .strays
            .iter()
            .map(|s| json_doc::ProbeStrayResponse {
                id: red_json(r, &s.id),
                kind: s.kind.as_str().to_string(),
                method: s.method.clone(),
            })
            .collect(),
    }
}

fn envelope_json(
    e: &crate::probe::validate::EnvelopeIssue,
    r: &Redactor,
) -> json_doc::ProbeEnvelopeIssue {
    json_doc::ProbeEnvelopeIssue {
        page: e.page as u64,
        field: r.redact(&e.field),
        detail: r.redact(&e.detail),
        kind: match e.kind {
            crate::probe::validate::EnvelopeKind::Missing => "missing",
            crate::probe::validate::EnvelopeKind::WrongType => "wrong-type",
            crate::probe::validate::EnvelopeKind::Malformed => "malformed",
        }
        .to_string(),
    }
}

/// A discovery URL as the output shows it: without user information and query values
/// ([`crate::probe::oauth::shown_url`]), then redacted with `r`; whole with `--no-redact`.
fn oauth_url(r: &Redactor, url: &str) -> String {
    bounded(if r.is_enabled() {
        r.redact(&crate::probe::oauth::shown_url(url))
    } else {
        url.to_string()
    })
}

/// The OAuth discovery of a server that answered 401, as the document shows it; `None`
/// when there was none.
fn oauth_json(p: &ServerProbe, r: &Redactor) -> Option<json_doc::ProbeOauth> {
    use crate::probe::oauth::{AuthCheck, HEADERS_SENT};
    let Some(AuthCheck::Discovery(d)) = &p.auth else {
        return None;
    };
    let registration = d
        .steps
        .iter()
        .find(|s| s.kind == crate::probe::oauth::StepKind::Registration)
        .map_or("not-reached", |s| s.outcome.as_str());
    Some(json_doc::ProbeOauth {
        cause: d.cause.as_str().to_string(),
        failed_step: d.first_failing().map(|s| s.kind.as_str().to_string()),
        deciding_step: d.deciding().map(|s| s.kind.as_str().to_string()),
        resource_metadata_url: d.resource_metadata_url.as_deref().map(|u| oauth_url(r, u)),
        authorization_server: d.authorization_server.as_deref().map(|u| oauth_url(r, u)),
        registration: registration.to_string(),
        registration_endpoint: d.registration_endpoint.as_deref().map(|u| oauth_url(r, u)),
        headers_sent: HEADERS_SENT.iter().map(ToString::to_string).collect(),
        registered: false,
        summary: r.redact(&d.summary),
        steps: d
            .steps
            .iter()
            .map(|s| json_doc::ProbeOauthStep {
                step: s.kind.as_str().to_string(),
                url: oauth_url(r, &s.url),
                status: s.status,
                outcome: s.outcome.as_str().to_string(),
                contacted: s.contacted,
                ms: s.ms,
                detail: bounded(r.redact(&s.detail)),
            })
            .collect(),
    })
}

/// The OAuth discovery's lines of the text: a heading, then one line a step (its time,
/// name, mark, status and URL, then what it found), wrapped as the handshake's steps.
fn oauth_text(p: &ServerProbe, width: Option<usize>, r: &Redactor) -> String {
    use crate::probe::oauth::{AuthCheck, StepOutcome};
    let Some(AuthCheck::Discovery(d)) = &p.auth else {
        return String::new();
    };
    let mut out = line(
        "  ",
        &format!(
            "OAuth discovery as Claude Code {} follows it (no browser, no token, nothing registered):",
            p.prediction.claude_version
        ),
        width,
    );
    for s in &d.steps {
        let mark = match s.outcome {
            o if o.ok() => "ok  ".green().to_string(),
            StepOutcome::NotFound | StepOutcome::FallBack => "miss".yellow().to_string(),
            StepOutcome::NotRun => "skip".dimmed().to_string(),
            _ => "FAIL".red().bold().to_string(),
        };
        let status = s
            .status
            .map_or_else(|| "   ".to_string(), |c| format!("{c:>3}"));
        let left = format!("    {mark} {status} ");
        let url = oauth_url(r, &s.url);
        let detail = bounded(r.redact(&s.detail));
        let what = if url.is_empty() {
            format!("{}: {detail}", s.kind.words())
        } else {
            format!("{} {url}: {detail}", s.kind.words())
        };
        out.push_str(&line(&left, &field(r, &what), width));
    }
    out
}

/// The probe's timeouts, as the document shows them.
pub fn timeouts_json(t: &crate::probe::ProbeTimeouts, r: &Redactor) -> json_doc::ProbeTimeouts {
    let one = |s: &crate::probe::TimeoutSetting| json_doc::ProbeTimeout {
        variable: s.var.to_string(),
        ms: s.ms,
        value: red_opt(r, &s.raw),
        decided_by: red_opt(r, &s.decided_by),
    };
    json_doc::ProbeTimeouts {
        mcp_timeout: one(&t.request),
        connect_timeout: one(&t.connect_wait),
    }
}

/// One server in the `--json` document, redacted field by field with `r` (the probe's
/// [`redactor`]); `contract` with `--contract`.
pub fn server_json(
    p: &ServerProbe,
    contract: Option<&[ContractCheck]>,
    r: &Redactor,
) -> json_doc::ProbeServer {
    let c = &p.config;
    let a = p.predicted_attempt();
    let list_fails = p.prediction.verdict == Verdict::ToolsFetchFailed;
    let non_empty = |s: &str| (!s.is_empty()).then(|| r.redact(s));
    json_doc::ProbeServer {
        name: name(r, &c.name),
        scope: c.scope.as_str().to_string(),
        source: c
            .source
            .as_ref()
            .map(|s| r.redact(&s.display().to_string())),
        transport: c.transport.as_str().to_string(),
        command: non_empty(&c.command),
        args: red_list(r, &c.args),
        url: non_empty(&c.url),
        env_keys: c.env.keys().map(|k| name(r, k)).collect(),
        header_names: c.headers.keys().map(|k| name(r, k)).collect(),
        approved: c.approved,
        warnings: c.warnings.iter().map(|w| r.redact(w)).collect(),
        prediction: prediction_json(&p.prediction, r, p.recommendation()),
        with_legacy: prediction_json(&p.with_legacy, r, p.recommendation_with_legacy()),
        legacy_fix_helps: p.legacy_fix_helps(),
        steps: steps_json(a, r),
        oauth: oauth_json(p, r),
        tools: json_doc::ProbeTools {
            returned: p.tools.returned as u64,
            accepted: p.prediction.tools_loaded as u64,
            rejected: p
                .tools
                .rejected
                .iter()
                .map(|t| json_doc::ProbeRejectedTool {
                    name: red_opt(r, &t.name),
                    reason: t.reason.to_string(),
                    page: t.page as u64,
                    path: r.redact(&t.path),
                    detail: r.redact(&t.detail),
                    fails_list: t.fails_list,
                })
                .collect(),
            envelope: p
                .tools
                .envelope
                .iter()
                .map(|e| envelope_json(e, r))
                .collect(),
            pages: p.tools.pages as u64,
            whole_list_dropped: list_fails && p.tools.returned > 0,
        },
        attempts: p.attempts.iter().map(|a| attempt_json(a, r)).collect(),
        contract: contract.map(|checks| {
            checks
                .iter()
                .map(|c| json_doc::ProbeContractCheck {
                    check: c.name.to_string(),
                    passed: c.passed,
                    detail: r.redact(&c.detail),
                    builds: c.builds.iter().map(ToString::to_string).collect(),
                })
                .collect()
        }),
    }
}

/// The transcript of every connection, one JSON object per line, redacted with `r`
/// (the probe's [`redactor`]): names by the secret rules, each message's strings by
/// `r`, the direction and the error category not at all; escaped as `--json` is
/// ([`crate::text::sanitize::json`]).
pub fn transcript_lines(probes: &[ServerProbe], r: &Redactor) -> Result<String, serde_json::Error> {
    let mut out = String::new();
    for p in probes {
        for a in &p.attempts {
            for e in &a.events {
                let line = json_doc::TranscriptEvent {
                    seq: e.seq as u64,
                    server: name(r, &p.config.name),
                    connection_id: name(r, &e.connection_id),
                    direction: e.direction.to_string(),
                    t_ms: e.t_ms,
                    id: e.id.as_ref().map(|v| red_json(r, v)),
                    method: red_opt(r, &e.method),
                    error_category: e.error_category.clone(),
                    payload: red_json(r, &e.payload),
                };
                // Escaped as every `--json` document is (DEL, C1 and bidi controls
                // `\u`-escaped): one line per event, whatever a name or payload holds.
                out.push_str(&crate::text::sanitize::json(&serde_json::to_string(&line)?));
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// What the human text shows of `s` in `max` columns: escaped, redacted with `r`, then
/// cut (the report's table cells).
fn cut(r: &Redactor, s: &str, max: usize) -> String {
    crate::text::cut(&r.redact(&printable(s, usize::MAX, false)), max.max(8))
}

/// `s` escaped and redacted with `r`, whole.
fn field(r: &Redactor, s: &str) -> String {
    r.redact(&printable(s, usize::MAX, false))
}

/// One line of the text: `left` (already escaped), then `text` (escaped and redacted),
/// wrapped at `width` with a hanging indent under the start of `text`, every character
/// kept; `None` (piped): one line, nothing cut.
fn line(left: &str, text: &str, width: Option<usize>) -> String {
    let indent = crate::text::layout::cols(left).min(width.map_or(usize::MAX, |w| w / 2));
    crate::text::layout::wrap_keeping(text, left, indent, width)
}

/// `text`, escaped, wrapped into lines of at most `width` columns, each starting with
/// `indent` (the one layout toolkit's wrap); `None`: one line.
fn wrap(text: &str, indent: &str, width: Option<usize>) -> String {
    crate::text::layout::wrap_keeping(
        &printable(text, usize::MAX, false),
        indent,
        crate::text::layout::cols(indent),
        width,
    )
}

fn paint(v: Verdict, s: &str) -> String {
    super::paint(v, s).to_string()
}

fn label(p: &Prediction) -> String {
    crate::classify::verdict::label(p.verdict, p.cause)
}

fn setting(p: &Prediction) -> String {
    match &p.negotiation {
        Some(n) => format!("MCP_PROTOCOL_NEGOTIATION={n}"),
        None => "MCP_PROTOCOL_NEGOTIATION not set".into(),
    }
}

/// The builds counted per outcome, with the versions of those that do not keep the tools:
/// `2 keep the tools, 1 loses them (2.1.288), 1 cannot tell (2.1.300)`.
pub fn outcomes_phrase(outcomes: &[(ClaudeVersion, Outcome)]) -> String {
    let of = |o: Outcome| -> Vec<String> {
        outcomes
            .iter()
            .filter(|(_, x)| *x == o)
            .map(|(v, _)| v.to_string())
            .collect()
    };
    let mut parts = Vec::new();
    for (o, one, many) in [
        (Outcome::Keeps, "keeps the tools", "keep the tools"),
        (Outcome::Changes, "changes them", "change them"),
        (Outcome::Loses, "loses them", "lose them"),
        (Outcome::Unknown, "cannot be told", "cannot be told"),
    ] {
        let vs = of(o);
        if vs.is_empty() {
            continue;
        }
        let verb = if vs.len() == 1 { one } else { many };
        if o == Outcome::Keeps {
            parts.push(format!("{} {verb}", vs.len()));
        } else {
            parts.push(format!("{} {verb} ({})", vs.len(), vs.join(", ")));
        }
    }
    format!(
        "of {}: {}",
        crate::text::count(outcomes.len(), "Claude Code build"),
        parts.join(", ")
    )
}

/// The first check that failed, with the builds it fails on: `every-tool-accepted
/// (2.1.288)`.
pub fn first_failure(checks: &[ContractCheck]) -> Option<String> {
    checks.iter().find(|c| c.passed == Some(false)).map(|c| {
        let vs: Vec<String> = c.builds.iter().map(ToString::to_string).collect();
        format!("{} ({})", c.name, vs.join(", "))
    })
}

/// The summary line of one server, first on the screen: what the modelled builds do with
/// its tools and, with `--contract`, the first failing check.
pub fn summary_text(
    p: &ServerProbe,
    contract: Option<&[ContractCheck]>,
    width: Option<usize>,
    r: &Redactor,
) -> String {
    let mut text = outcomes_phrase(&p.build_outcomes());
    if let Some(checks) = contract {
        let failed = checks.iter().filter(|c| c.passed == Some(false)).count();
        let na = checks.iter().filter(|c| c.passed.is_none()).count();
        let passed = checks.iter().filter(|c| c.passed == Some(true)).count();
        text.push_str(&format!(
            "; contract: {passed} passed, {failed} failed, {na} n/a"
        ));
        if let Some(f) = first_failure(checks) {
            text.push_str(&format!("; first failing check: {f}"));
        }
    }
    line(&format!("{}: ", text_name(r, &p.config.name)), &text, width)
}

/// The human text for one server; `width`: the terminal's columns (long lines wrap with a
/// hanging indent, nothing is cut), `None` when piped (one line each, nothing cut). Each
/// field is redacted with `r` (the probe's [`redactor`]).
pub fn server_text(p: &ServerProbe, width: Option<usize>, r: &Redactor) -> String {
    let width = width.map(|w| w.max(crate::text::layout::MIN_WIDTH));
    let c = &p.config;
    let mut out = String::new();
    let what = match c.transport {
        crate::probe::TransportKind::Stdio => {
            let mut s = c.command.clone();
            for a in &c.args {
                s.push(' ');
                s.push_str(a);
            }
            field(r, &s)
        }
        _ => field(r, &c.url),
    };
    let head = format!(
        "{} · {} · {} scope · ",
        text_name(r, &c.name),
        c.transport.as_str(),
        c.scope.as_str()
    );
    out.push_str(&crate::text::layout::wrap_keeping(
        &what,
        &head.bold().to_string(),
        4,
        width,
    ));
    for warn in &c.warnings {
        out.push_str(&line("  warning: ", &field(r, warn), width));
    }
    if c.approved == Some(false) {
        out.push_str(&line(
            "  ",
            "note: a project server not approved yet: Claude Code will not start it until approved",
            width,
        ));
    }
    let a = p.predicted_attempt();
    out.push_str(&line(
        "  ",
        &format!(
            "handshake as Claude Code {} does it ({}, {}):",
            p.prediction.claude_version,
            p.prediction.mode.as_str(),
            setting(&p.prediction)
        ),
        width,
    ));
    // the steps' names in one column as wide as the longest (`notifications/initialized`)
    let names: Vec<String> = a.steps.iter().map(|s| field(r, &s.name)).collect();
    let name_w = names
        .iter()
        .map(|n| crate::text::layout::cols(n))
        .max()
        .unwrap_or(0)
        .max(20);
    for (s, name) in a.steps.iter().zip(&names) {
        let mark = if s.ok {
            "ok  ".green().to_string()
        } else {
            "FAIL".red().bold().to_string()
        };
        let www = www_of(a.failure.as_ref()).map(|h| printable(h, usize::MAX, false));
        let detail =
            |d: &str| step_detail(r, &printable(d, usize::MAX, false), www.as_deref(), false);
        let what = match (&s.received, &s.detail) {
            (Some(got), Some(d)) => format!("{}; {}", field(r, got), detail(d)),
            (Some(got), None) => field(r, got),
            (None, Some(d)) => detail(d),
            (None, None) => String::new(),
        };
        let pad = " ".repeat(name_w.saturating_sub(crate::text::layout::cols(name)));
        let left = format!("  {:>6} ms  {name}{pad} {mark} ", s.ms);
        out.push_str(&line(&left, &what, width));
    }
    out.push_str(&oauth_text(p, width, r));
    if a.noise_lines > 0 {
        out.push_str(&line(
            "  ",
            &format!(
                "stdout: {} ignored, e.g. {}",
                crate::text::count(a.noise_lines, "non-JSON line"),
                field(
                    r,
                    a.noise_examples.first().map(String::as_str).unwrap_or("")
                )
            ),
            width,
        ));
    }
    if let Some(s) = &a.stderr
        && s.bytes > 0
    {
        // redacted whole first: a secret the server wrote across two lines (or two
        // writes) ends the last line (helper-100 #3: its second part was shown)
        let text = r.redact(&s.text());
        let last = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        out.push_str(&line(
            "  ",
            &format!(
                "stderr: {}, {}; last: {}",
                crate::text::count(s.lines as usize, "line"),
                crate::text::count(s.bytes as usize, "byte"),
                field(r, last)
            ),
            width,
        ));
    }
    let t = &p.tools;
    if a.failure.is_none() {
        // Counts that add up: what was returned is what loads plus what does not.
        let loaded = p.prediction.tools_loaded;
        let bad = t.rejected.len();
        let summary = if p.prediction.verdict == Verdict::ToolsFetchFailed && t.returned > 0 {
            let tools = crate::text::count(bad, "tool");
            let why = match (bad, t.envelope.is_empty()) {
                (0, _) => "the result itself is rejected".to_string(),
                (_, true) => format!("{tools} with a bad definition"),
                (_, false) => {
                    format!("{tools} with a bad definition, and the result itself is rejected")
                }
            };
            format!(
                "{} returned, none loaded: Claude Code drops the whole list ({why})",
                t.returned
            )
        } else if t.returned > loaded {
            format!(
                "{} returned, {loaded} loaded, {} not",
                t.returned,
                t.returned - loaded
            )
        } else {
            format!("{} returned, {loaded} loaded", t.returned)
        };
        out.push_str(&line("  tools: ", &summary, width));
        for bad in t.rejected.iter().take(10) {
            let text = format!(
                "page {}, {} {}: {}",
                bad.page,
                bad.path,
                bad.name
                    .as_deref()
                    .map(|n| format!("({n})"))
                    .unwrap_or_default(),
                bad.detail,
            );
            out.push_str(&line(
                "    ",
                &format!("{} [{}]", field(r, &text), bad.reason),
                width,
            ));
        }
        if t.rejected.len() > 10 {
            out.push_str(&format!("    ... and {} more\n", t.rejected.len() - 10));
        }
        for e in t.envelope.iter().take(6) {
            let text = format!("page {}, {}: {}", e.page, e.field, e.detail);
            out.push_str(&line("    ", &field(r, &text), width));
        }
        if t.envelope.len() > 6 {
            out.push_str(&format!("    ... and {} more\n", t.envelope.len() - 6));
        }
    }
    let pred = &p.prediction;
    let l = format!(
        "  Claude Code {} ({}): ",
        pred.claude_version,
        setting(pred)
    );
    out.push_str(&format!("{l}{}\n", paint(pred.verdict, &label(pred))));
    out.push_str(&wrap(&r.redact(&pred.reason), "    ", width));
    // the limits, when something sets them or the prediction turns on them
    let t = &p.timeouts;
    let timed_out = matches!(
        pred.cause,
        Some(
            crate::classify::verdict::Cause::Timeout
                | crate::classify::verdict::Cause::ToolsTimeout
        )
    );
    if timed_out
        || p.budget.from_flag
        || t.request.decided_by.is_some()
        || t.connect_wait.decided_by.is_some()
    {
        // the probe's own budget only when --timeout set one; else it is the limit
        let text = if p.budget.from_flag {
            format!(
                "waited against {}; Claude Code's limits: {}, {}",
                p.budget.describe(),
                p.budget.describe_limit(),
                t.connect_wait.describe()
            )
        } else {
            format!(
                "Claude Code's limits: {}, which the probe waited for; {}",
                p.budget.describe_limit(),
                t.connect_wait.describe()
            )
        };
        out.push_str(&wrap(&r.redact(&text), "    ", width));
    }
    if pred.mode != Mode::Legacy || pred.verdict.is_problem() {
        let wl = &p.with_legacy;
        let skipped = p.not_run.iter().find(|n| n.mode == Mode::Legacy);
        let tail = if let Some(n) = skipped {
            format!(" -> cannot tell ({})", n.reason)
        } else if p.legacy_fix_helps() {
            use crate::settings::target::FixTarget;
            match p.settings.as_deref() {
                // `fix` writes it: the command; else (in place, refused, managed, a
                // conflict) the advice below says why not (helper-99 #4: "`mcplogs fix`
                // will help" of a file `fix` refuses)
                Some(a) if !matches!(a.target, FixTarget::Write { .. }) || a.conflict.is_some() => {
                    " -> the legacy setting will help (below)".to_string()
                }
                a => format!(
                    " -> {} will help",
                    crate::text::code_span(
                        &a.map_or_else(|| "mcplogs fix".to_string(), crate::advice::fix_command)
                    )
                ),
            }
        } else if p.cut_short() || p.cut_short_for(wl) {
            // either attempt stopped by --timeout: its outcome is not known
            " -> cannot tell (the probe stopped at --timeout)".to_string()
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
        out.push_str(&wrap(&r.redact(&p.recommendation()), "  ", width));
    }
    out
}

/// The word a check's result is shown as: `pass`, `FAIL`, `n/a`.
pub fn check_mark(c: &ContractCheck) -> &'static str {
    match c.passed {
        Some(true) => "pass",
        Some(false) => "FAIL",
        None => "n/a",
    }
}

/// The `--contract` lines, each check's detail redacted with `r`; on a terminal (`width`)
/// wrapped under the detail's first column, never cut; piped (`None`) one line each.
pub fn contract_text(checks: &[ContractCheck], width: Option<usize>, r: &Redactor) -> String {
    let width = width.map(|w| w.max(crate::text::layout::MIN_WIDTH));
    let mut out = String::from("  contract:\n");
    for c in checks {
        let mark = match c.passed {
            Some(true) => "pass".green().to_string(),
            Some(false) => "FAIL".red().bold().to_string(),
            None => "n/a ".dimmed().to_string(),
        };
        let left = format!("    {mark} {:<25} ", c.name);
        out.push_str(&line(&left, &field(r, &c.detail), width));
    }
    out
}

/// The `## Probe` section `mcplogs report --probe` appends: one line per server, each
/// cell redacted with `r` (the probe's [`redactor`]) before it is cut.
pub fn markdown_summary(probes: &[ServerProbe], r: &Redactor) -> String {
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
    // Escaped and redacted, cut, then made Markdown: a code span no backtick ends, text
    // no `<` turns into HTML, and no `|` or backslash that adds a column.
    for p in probes {
        let detail = p
            .tools
            .first_bad_tool()
            .map(|t| format!("page {}, {}: {}", t.page, t.path, t.detail))
            .unwrap_or_else(|| p.prediction.reason.clone());
        let detail = r.redact(&detail);
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} / {} | {} |\n",
            crate::text::markdown_code(&cut(r, &name(r, &p.config.name), 160)),
            p.config.transport.as_str(),
            label(&p.prediction),
            label(&p.with_legacy),
            p.tools.returned,
            p.prediction.tools_loaded,
            crate::text::markdown_text(&cut(r, &detail, 160))
        ));
    }
    out
}

/// Text for XML character data and attribute values, well-formed XML 1.0 for any input:
/// every character the sanitizer would not let through (C0 controls, tab and newline
/// included, DEL, C1 and bidi controls) is first made visible as on a terminal (`\x01`,
/// `\n`, `<U+202E>`), as are U+FFFE and U+FFFF (which XML 1.0 forbids), and then `&`,
/// `<`, `>` and both quotes are escaped. So the marker of a bidi control reads
/// `&lt;U+202E&gt;`, no text can close an attribute or open an element, and the output
/// pass before stdout ([`crate::text::sanitize::output`]) has nothing left to rewrite.
fn xml(s: &str) -> String {
    let shown = crate::text::sanitize::text(s);
    let mut out = String::with_capacity(shown.len());
    for c in shown.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\u{fffe}' | '\u{ffff}' => out.push_str(&format!("&lt;U+{:04X}&gt;", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// One `<testsuite>` of [`junit_document`]: a server's configured name (as configured;
/// the document redacts and escapes it), the seconds its handshakes took and its
/// contract checks.
#[derive(Debug, Clone)]
pub struct JunitSuite<'a> {
    pub server: &'a str,
    pub secs: f64,
    pub checks: &'a [ContractCheck],
}

/// `--format junit`: one `<testsuite>` per server, one `<testcase>` per contract check
/// and modelled Claude Code build. A check that fails on a build is a `<failure>` with
/// its reason; one that could not run (`n/a`) is `<skipped>` with why; the rest passed.
/// Every text is redacted with `r`, escaped as XML 1.0 allows and whole (nothing is cut).
pub fn junit(probes: &[ServerProbe], contracts: &[Vec<ContractCheck>], r: &Redactor) -> String {
    let suites: Vec<JunitSuite> = probes
        .iter()
        .zip(contracts)
        .map(|(p, checks)| JunitSuite {
            server: &p.config.name,
            secs: p.attempts.iter().map(|a| a.elapsed_ms).sum::<u64>() as f64 / 1000.0,
            checks,
        })
        .collect();
    junit_document(&suites, r)
}

/// The JUnit XML document of [`junit`], from its suites. Well-formed for any name and
/// detail: each is redacted with `r`, then with the secrets the rules find in all of
/// them together (what a last pass over the whole text would hide: a key in one field,
/// its value in another), and only then escaped; the document is never redacted after
/// escaping, since a replacement there could cut an entity in half.
pub fn junit_document(suites: &[JunitSuite], r: &Redactor) -> String {
    let builds = crate::probe::CONTRACT_BUILDS;
    let names: Vec<String> = suites.iter().map(|s| name(r, s.server)).collect();
    let details: Vec<Vec<String>> = suites
        .iter()
        .map(|s| s.checks.iter().map(|c| field(r, &c.detail)).collect())
        .collect();
    let own = if r.is_enabled() {
        Redactor::secrets_only(
            names
                .iter()
                .chain(details.iter().flatten())
                .map(String::as_str),
        )
    } else {
        Redactor::disabled()
    };
    let mut suites_xml = String::new();
    let (mut tests, mut failures, mut skipped) = (0usize, 0usize, 0usize);
    for ((s, server), details) in suites.iter().zip(&names).zip(&details) {
        let server = own.redact(server);
        let classname = xml(&format!("mcplogs.probe.contract.{server}"));
        let (mut t, mut f, mut k) = (0usize, 0usize, 0usize);
        let mut cases = String::new();
        for (c, detail) in s.checks.iter().zip(details) {
            let detail = xml(&own.redact(detail));
            let check = xml(c.name);
            for v in builds {
                t += 1;
                let case = format!(
                    "    <testcase classname=\"{classname}\" name=\"{}\"",
                    xml(&format!("{} on Claude Code {v}", c.name))
                );
                match c.passed {
                    Some(false) if c.builds.contains(&v) => {
                        f += 1;
                        cases.push_str(&format!(
                            "{case}>\n      <failure message=\"{detail}\" type=\"{check}\">{detail}</failure>\n    </testcase>\n"
                        ));
                    }
                    None => {
                        k += 1;
                        cases.push_str(&format!(
                            "{case}>\n      <skipped message=\"{detail}\"/>\n    </testcase>\n"
                        ));
                    }
                    _ => cases.push_str(&format!("{case}/>\n")),
                }
            }
        }
        let secs = if s.secs.is_finite() {
            s.secs.max(0.0)
        } else {
            0.0
        };
        suites_xml.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{t}\" failures=\"{f}\" errors=\"0\" skipped=\"{k}\" time=\"{secs:.3}\">\n{cases}  </testsuite>\n",
            xml(&format!("mcplogs probe --contract: {server}"))
        ));
        tests += t;
        failures += f;
        skipped += k;
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcplogs probe --contract\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">\n{suites_xml}</testsuites>\n"
    )
}
