//! The `--json` documents. These shapes are a documented, stable contract (README,
//! "JSON output"): fields may be added, never renamed or removed.

use serde_json::{Value, json};

use crate::explain::ExplainReport;
use crate::scan::{Evidence, ScanReport, ServerReport};
use crate::verdict::Diagnosis;
use crate::warning::Warning;

pub const SCHEMA_VERSION: u32 = 1;

pub fn scan_json(report: &ScanReport) -> Value {
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "servers": report.servers.iter().map(server_json).collect::<Vec<_>>(),
        "warnings": warnings_json(&crate::warning::collapse(report.warnings.clone())),
    })
}

pub fn warnings_json(warnings: &[Warning]) -> Value {
    Value::Array(
        warnings
            .iter()
            .map(|w| {
                json!({
                    "file": w.path.as_ref().map(|p| p.display().to_string()),
                    "message": w.message,
                })
            })
            .collect(),
    )
}

fn server_json(s: &ServerReport) -> Value {
    let d = &s.diagnosis;
    let mut v = json!({
        "name": s.name,
        "project": s.project,
    });
    let obj = v.as_object_mut().expect("object");
    for (k, val) in diagnosis_fields(d) {
        obj.insert(k.to_string(), val);
    }
    // Knowing the settings: true only if writing the fix can take effect.
    obj.insert("legacyFixApplies".into(), json!(s.legacy_fix_applies()));
    obj.insert("lastSeen".into(), json!(s.last_seen));
    obj.insert("sharedBy".into(), json!(s.shared_by));
    obj.insert("sessions".into(), json!(s.sessions));
    obj.insert("sessionsRead".into(), json!(s.sessions_read));
    obj.insert("filesRead".into(), json!(s.files_read));
    obj.insert("failedSessions".into(), json!(s.failed_sessions));
    obj.insert(
        "toolsProof".into(),
        json!(s.diagnosis.tools_proof.map(|p| p.to_string())),
    );
    obj.insert(
        "latestSessionOnlyConnected".into(),
        json!(s.latest_only_connected),
    );
    obj.insert("recommendation".into(), json!(s.recommendation()));
    obj.insert(
        "evidence".into(),
        Value::Array(s.evidence.iter().map(evidence_json).collect()),
    );
    obj.insert("folder".into(), json!(s.folder));
    obj.insert("projectFolder".into(), json!(s.project_folder));
    obj.insert("source".into(), json!(s.source.display().to_string()));
    obj.insert(
        "history".into(),
        Value::Array(
            s.history
                .iter()
                .map(|h| {
                    json!({
                        "verdict": h.verdict.as_str(),
                        "cause": h.cause.map(|c| c.as_str()),
                        "sessions": h.sessions,
                        "lastSeen": h.last_seen,
                    })
                })
                .collect(),
        ),
    );
    v
}

/// The diagnosis fields shared by `scan --json` and `explain --json`, in contract order.
pub fn diagnosis_fields(d: &Diagnosis) -> Vec<(&'static str, Value)> {
    vec![
        ("verdict", json!(d.verdict.as_str())),
        ("cause", json!(d.cause.map(|c| c.as_str()))),
        ("era", json!(d.era.map(|e| e.as_str()))),
        (
            "negotiatedProtocolVersion",
            json!(d.negotiated_protocol_version),
        ),
        ("legacyFixApplies", json!(d.legacy_fix_applies())),
        ("filledFields", json!(d.filled_fields)),
        ("badToolPath", json!(d.bad_tool_path)),
    ]
}

fn evidence_json(e: &Evidence) -> Value {
    json!({
        "file": e.file.display().to_string(),
        "line": e.line,
        "timestamp": e.timestamp,
        "level": e.level.as_str(),
        "message": e.message,
    })
}

pub fn explain_json(report: &ExplainReport) -> Value {
    let entries: Vec<Value> = report
        .entries
        .iter()
        .map(|e| {
            let mut v = json!({
                "name": e.name,
                "target": e.target,
                "status": e.status,
            });
            let obj = v.as_object_mut().expect("object");
            for (k, val) in diagnosis_fields(&e.diagnosis) {
                obj.insert(k.to_string(), val);
            }
            obj.insert("recommendation".into(), json!(e.recommendation()));
            obj.insert("detail".into(), json!(e.detail));
            v
        })
        .collect();
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "servers": entries,
    })
}

pub fn du_json(du: &crate::du::DiskUse) -> Value {
    let server = |s: &crate::du::ServerUse| {
        json!({
            "name": s.name,
            "folder": s.folder,
            "path": s.path.display().to_string(),
            "bytes": s.bytes,
            "files": s.files,
            "oldestSession": s.oldest,
            "newestSession": s.newest,
        })
    };
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "bytes": du.bytes,
        "files": du.files,
        "projects": du.projects.iter().map(|p| json!({
            "project": p.project,
            "folder": p.folder,
            "path": p.path.as_ref().map(|x| x.display().to_string()),
            "bytes": p.bytes,
            "files": p.files,
            "oldestSession": p.oldest,
            "newestSession": p.newest,
            "servers": p.servers.iter().map(server).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "warnings": warnings_json(&du.warnings),
    })
}
