//! `mcplogs report --json`: the report's content as data ([`json_doc::ReportDocument`],
//! fields in docs/json.md). Messages stay exactly as logged (after redaction); nothing
//! is left out for size.

use super::{EvidenceItem, LayerItem, Report, ServerSection};
use crate::json_doc::{self, SCHEMA_VERSION};

pub fn report_json(r: &Report) -> json_doc::ReportDocument {
    json_doc::ReportDocument {
        servers: r.sections().map(|s| server_json(&s)).collect(),
        ..report_json_head(r)
    }
}

/// [`report_json`] with `servers` empty: the document's head, for a caller that writes
/// the servers one at a time ([`server_json`]) into it as it writes it, rather than
/// the whole document at once (100,000 servers: hundreds of megabytes of JSON, and
/// gigabytes as one JSON value).
pub fn report_json_head(r: &Report) -> json_doc::ReportDocument {
    let st = &r.settings;
    json_doc::ReportDocument {
        probe: None,
        written: true,
        not_written: None,
        claude_code_state: r
            .machine_state
            .as_ref()
            .map(|m| json_doc::ReportClaudeCodeState {
                discovery_cache_on: m.discovery_cache_on,
                discovery_cache: m.discovery_cache.clone(),
                discovery_cache_entries: m.cache_entries as u64,
                switches: m
                    .switches
                    .iter()
                    .map(|(name, value, set_in)| json_doc::ReportSwitch {
                        name: name.clone(),
                        value: value.clone(),
                        set_in: set_in.clone(),
                    })
                    .collect(),
                flags: m
                    .flags
                    .iter()
                    .map(|(name, value, changes)| json_doc::ReportFlag {
                        name: name.clone(),
                        value: value.clone(),
                        changes: changes.clone(),
                    })
                    .collect(),
                notes: m.notes.clone(),
            }),
        configured: r
            .configured
            .iter()
            .map(|c| json_doc::ReportConfigured {
                name: c.name.clone(),
                project: c.project.clone(),
                state: c.state.clone(),
                reason: c.reason.clone(),
                recommendation: c.recommendation.clone(),
            })
            .collect(),
        schema_version: SCHEMA_VERSION,
        redacted: r.is_redacted(),
        versions: json_doc::Versions {
            mcplogs: r.versions.mcplogs.clone(),
            os: r.versions.os.clone(),
            arch: r.versions.arch.clone(),
            claude_code: r.versions.claude_code.clone(),
        },
        whats_wrong: r
            .problem_servers()
            .map(|s| json_doc::WhatsWrong {
                name: s.name.clone(),
                project: s.project.clone(),
                summary: s.summary.clone(),
            })
            .collect(),
        servers: Vec::new(),
        settings: json_doc::ReportSettings {
            project: st.project.clone(),
            layers: st.layers.iter().map(layer_json).collect(),
            effective: json_doc::ReportEffective {
                value: st.effective_value.clone(),
                layer: st.effective_layer.clone(),
                path: st.effective_path.clone(),
                text: st.effective_text.clone(),
            },
            problems: st.problems.clone(),
        },
        legacy_fix_applied: st.legacy_applied,
        warnings: r.warnings.clone(),
    }
}

fn layer_json(l: &LayerItem) -> json_doc::ReportLayer {
    json_doc::ReportLayer {
        layer: l.layer.clone(),
        path: l.path.clone(),
        status: l.status.clone(),
        negotiation: l.value.clone(),
        in_effect: l.in_effect,
        decides: l.decides,
    }
}

/// One server of `report --json`'s `servers`.
pub fn server_json(s: &ServerSection) -> json_doc::ReportServer {
    json_doc::ReportServer {
        name: s.name.clone(),
        project: s.project.clone(),
        diagnosis: crate::render::diagnosis_json(&s.diagnosis, s.legacy_fix_applies),
        last_seen: s.last_seen.clone(),
        sessions: s.sessions as u64,
        sessions_read: s.sessions_read as u64,
        failed_sessions: s.failed_sessions as u64,
        // (what makes the exit code 1, as `export`'s `mcplogs.problem`)
        problem: s.is_problem_now(),
        audience: s.audience.map(|a| a.as_str().to_string()),
        launch: s.launch.clone(),
        summary: s.summary.clone(),
        recommendation: s.recommendation.clone(),
        source: s.source.clone(),
        evidence: s.evidence.iter().map(record_json).collect(),
        stderr: s.stderr.iter().map(record_json).collect(),
        discovery_cache: s
            .discovery_cache
            .as_deref()
            .map(crate::render::discovery_cache_json),
    }
}

fn record_json(e: &EvidenceItem) -> json_doc::ReportRecord {
    json_doc::ReportRecord {
        file: e.file.clone(),
        location: e.location.clone(),
        line: e.line as u64,
        timestamp: e.timestamp.clone(),
        level: e.level.clone(),
        message: e.message.clone(),
    }
}
