//! The `scan --json` and `du --json` documents, filled from the reports. The shapes
//! are defined in [`crate::wire`] and documented in docs/json.md.

use crate::du::{DiskUse, ProjectUse, ServerUse};
use crate::scan::{Evidence, ScanReport, ServerReport, VerdictSeen};
use crate::warning::Warning;
use crate::wire::{self, SCHEMA_VERSION};

/// `scan --json`; `settings` is the settings layers for the current directory.
pub fn scan_json(report: &ScanReport, settings: wire::Settings) -> wire::ScanDocument {
    wire::ScanDocument {
        servers: scan_json_servers(report).collect(),
        ..scan_json_head(report, settings)
    }
}

/// [`scan_json`] without its servers (`servers` is empty): with
/// [`scan_json_servers`], for a writer that serialises the servers one at a time
/// instead of holding the whole document (100,000 servers make 150 MB of JSON).
pub fn scan_json_head(report: &ScanReport, settings: wire::Settings) -> wire::ScanDocument {
    wire::ScanDocument {
        schema_version: SCHEMA_VERSION,
        servers: Vec::new(),
        warnings: warnings_json(&crate::warning::collapse(report.warnings.clone())),
        settings,
    }
}

/// The `servers` of [`scan_json`], each made when it is asked for.
pub fn scan_json_servers(report: &ScanReport) -> impl Iterator<Item = wire::ScanServer> + '_ {
    report.servers.iter().map(server_json)
}

pub fn warnings_json(warnings: &[Warning]) -> Vec<wire::Warning> {
    warnings
        .iter()
        .map(|w| wire::Warning {
            file: w.path.as_ref().map(|p| p.display().to_string()),
            message: w.message.clone(),
        })
        .collect()
}

fn server_json(s: &ServerReport) -> wire::ScanServer {
    let d = &s.diagnosis;
    wire::ScanServer {
        name: s.name.clone(),
        project: s.project.clone(),
        verdict: d.verdict.as_str().to_string(),
        cause: d.cause.map(|c| c.as_str().to_string()),
        era: d.era.map(|e| e.as_str().to_string()),
        negotiated_protocol_version: d.negotiated_protocol_version.clone(),
        // Knowing the settings: true only if writing the fix can take effect.
        legacy_fix_applies: s.legacy_fix_applies(),
        filled_fields: d.filled_fields.clone(),
        bad_tool_path: d.bad_tool_path.clone(),
        last_seen: s.last_seen.clone(),
        shared_by: s.shared_by.clone(),
        sessions: s.sessions as u64,
        sessions_read: s.sessions_read as u64,
        files_read: s.files_read as u64,
        failed_sessions: s.failed_sessions as u64,
        tools_proof: d.tools_proof.map(|p| p.to_string()),
        latest_session_only_connected: s.latest_only_connected,
        recommendation: s.recommendation(),
        evidence: s.evidence.iter().map(evidence_json).collect(),
        folder: s.folder.clone(),
        project_folder: s.project_folder.clone(),
        source: s.source.display().to_string(),
        history: s.history.iter().map(history_json).collect(),
    }
}

fn history_json(h: &VerdictSeen) -> wire::VerdictSeen {
    wire::VerdictSeen {
        verdict: h.verdict.as_str().to_string(),
        cause: h.cause.map(|c| c.as_str().to_string()),
        sessions: h.sessions as u64,
        last_seen: h.last_seen.clone(),
    }
}

fn evidence_json(e: &Evidence) -> wire::Evidence {
    wire::Evidence {
        file: e.file.display().to_string(),
        line: e.line as u64,
        timestamp: e.timestamp.clone(),
        level: e.level.as_str().to_string(),
        message: e.message.clone(),
    }
}

pub fn du_json(du: &DiskUse) -> wire::DuDocument {
    wire::DuDocument {
        schema_version: SCHEMA_VERSION,
        bytes: du.bytes,
        files: du.files as u64,
        projects: du.projects.iter().map(du_project).collect(),
        warnings: warnings_json(&du.warnings),
    }
}

fn du_project(p: &ProjectUse) -> wire::DuProject {
    wire::DuProject {
        project: p.project.clone(),
        folder: p.folder.clone(),
        path: p.path.as_ref().map(|x| x.display().to_string()),
        bytes: p.bytes,
        files: p.files as u64,
        oldest_session: p.oldest.clone(),
        newest_session: p.newest.clone(),
        servers: p.servers.iter().map(du_server).collect(),
    }
}

fn du_server(s: &ServerUse) -> wire::DuServer {
    wire::DuServer {
        name: s.name.clone(),
        folder: s.folder.clone(),
        path: s.path.display().to_string(),
        bytes: s.bytes,
        files: s.files as u64,
        oldest_session: s.oldest.clone(),
        newest_session: s.newest.clone(),
    }
}
