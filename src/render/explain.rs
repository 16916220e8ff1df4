//! `mcplogs explain`: per entry its verdict, then the status, detail and fix.

use colored::Colorize;

use super::{paint, verdict_label};
use crate::explain::ExplainReport;
use crate::json_doc;
use crate::text::layout::wrap_keeping;
use crate::text::{one_line, terminal_safe};

/// `explain`'s screen: per entry its verdict, then the status, detail and fix, each
/// wrapped to `width` under its label.
pub fn explain_table(report: &ExplainReport, width: Option<usize>) -> String {
    let mut out = String::new();
    for e in &report.entries {
        let name = e.name.as_deref().unwrap_or("(pasted message)");
        out.push_str(&format!(
            "{}: {}\n",
            terminal_safe(name, false).bold(),
            match e.state {
                // A state instead of a verdict: not a failure, never healthy.
                Some(state) => state.dimmed().to_string(),
                None => paint(e.diagnosis.verdict, &verdict_label(&e.diagnosis)).to_string(),
            }
        ));
        out.push_str(&wrap_keeping(
            &terminal_safe(&e.status, false),
            "  status: ",
            4,
            width,
        ));
        if let Some(d) = &e.detail {
            // one line of the detail, cut to what fits on two lines at most
            let room = width.map_or(100, |w| (2 * w).saturating_sub(14).min(200));
            out.push_str(&wrap_keeping(&one_line(d, room), "  detail: ", 4, width));
        }
        if let Some(c) = e.stdio_command() {
            out.push_str(&wrap_keeping(
                &terminal_safe(c, false),
                "  command: ",
                4,
                width,
            ));
        }
        if let Some(era) = e.diagnosis.era {
            out.push_str(&format!("  era: {}\n", era.as_str()));
        }
        if let Some(p) = &e.diagnosis.bad_tool_path {
            out.push_str(&wrap_keeping(
                &terminal_safe(p, false),
                "  bad field: ",
                4,
                width,
            ));
        }
        out.push_str(&wrap_keeping(&e.recommendation(), "  fix: ", 7, width));
    }
    out
}

/// `mcplogs explain --json` ([`json_doc::ExplainDocument`], fields in docs/json.md).
pub fn explain_json(report: &ExplainReport) -> json_doc::ExplainDocument {
    json_doc::ExplainDocument {
        schema_version: json_doc::SCHEMA_VERSION,
        servers: report
            .entries
            .iter()
            .map(|e| {
                let d = &e.diagnosis;
                json_doc::ExplainServer {
                    name: e.name.clone(),
                    target: e.target.clone(),
                    status: e.status.clone(),
                    diagnosis: super::diagnosis_json(d, d.legacy_fix_applies()),
                    recommendation: e.recommendation(),
                    detail: e.detail.clone(),
                    state: e.state.map(str::to_string),
                }
            })
            .collect(),
    }
}
