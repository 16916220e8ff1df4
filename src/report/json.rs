//! `mcplogs report --json`: the report's content as data (fields in docs/report.md).
//! Messages stay exactly as logged (after redaction); nothing is left out for size.

use serde_json::{Value, json};

use super::{EvidenceItem, Report, ServerSection};
use crate::render::json::SCHEMA_VERSION;

pub fn report_json(r: &Report) -> Value {
    let st = &r.settings;
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "redacted": r.is_redacted(),
        "versions": {
            "mcplogs": r.versions.mcplogs,
            "os": r.versions.os,
            "arch": r.versions.arch,
            "claudeCode": r.versions.claude_code,
        },
        "whatsWrong": r.problem_servers().map(|s| json!({
            "name": s.name,
            "project": s.project,
            "summary": s.summary,
        })).collect::<Vec<_>>(),
        "servers": r.servers.iter().map(server_json).collect::<Vec<_>>(),
        "settings": {
            "project": st.project,
            "layers": st.layers.iter().map(|l| json!({
                "layer": l.layer,
                "path": l.path,
                "status": l.status,
                "negotiation": l.value,
                "inEffect": l.in_effect,
                "decides": l.decides,
            })).collect::<Vec<_>>(),
            "effective": {
                "value": st.effective_value,
                "layer": st.effective_layer,
                "path": st.effective_path,
                "text": st.effective_text,
            },
            "problems": st.problems,
        },
        "legacyFixApplied": st.legacy_applied,
        "warnings": r.warnings,
    })
}

fn server_json(s: &ServerSection) -> Value {
    json!({
        "name": s.name,
        "project": s.project,
        "verdict": s.verdict.as_str(),
        "cause": s.cause.map(|c| c.as_str()),
        "era": s.era.map(|e| e.as_str()),
        "negotiatedProtocolVersion": s.negotiated_protocol_version,
        "legacyFixApplies": s.legacy_fix_applies,
        "filledFields": s.filled_fields,
        "badToolPath": s.bad_tool_path,
        "lastSeen": s.last_seen,
        "sessions": s.sessions,
        "failedSessions": s.failed_sessions,
        "problem": s.is_problem(),
        "summary": s.summary,
        "recommendation": s.recommendation,
        "source": s.source,
        "evidence": s.evidence.iter().map(record_json).collect::<Vec<_>>(),
        "stderr": s.stderr.iter().map(record_json).collect::<Vec<_>>(),
    })
}

fn record_json(e: &EvidenceItem) -> Value {
    json!({
        "file": e.file,
        "location": e.location,
        "line": e.line,
        "timestamp": e.timestamp,
        "level": e.level,
        "message": e.message,
    })
}
