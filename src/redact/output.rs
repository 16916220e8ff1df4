//! No command prints a secret unless `--no-redact`: `scan` (evidence records hold server
//! stderr, command lines and headers) and `explain` (pasted `claude mcp list` output
//! shows command lines and URLs) pass the text they took from logs through the secret
//! rules before rendering, human and JSON alike. Home folders and user names stay: on
//! the user's own terminal they are the point. Everything else is left exactly as it was.

use super::Redactor;
use crate::explain::ExplainReport;
use crate::scan::ScanReport;

/// Hides the secrets in every evidence message of `report`.
pub fn scan_report(report: &mut ScanReport) {
    let r = Redactor::secrets_only(
        report
            .servers
            .iter()
            .flat_map(|s| s.evidence.iter().map(|e| e.message.as_str())),
    );
    for s in &mut report.servers {
        for e in &mut s.evidence {
            r.apply(&mut e.message);
        }
    }
}

/// Hides the secrets in every field of `report` that was pasted text.
pub fn explain_report(report: &mut ExplainReport) {
    let r = Redactor::secrets_only(report.entries.iter().flat_map(|e| {
        [
            e.name.as_deref(),
            e.target.as_deref(),
            Some(e.status.as_str()),
            e.detail.as_deref(),
        ]
        .into_iter()
        .flatten()
    }));
    for e in &mut report.entries {
        for field in [&mut e.name, &mut e.target, &mut e.detail]
            .into_iter()
            .flatten()
        {
            r.apply(field);
        }
        r.apply(&mut e.status);
    }
}
