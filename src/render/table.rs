//! The human-readable output of `scan` and `explain`. Colour goes through `colored`,
//! whose global switch the binary sets (terminal, `--color`, `NO_COLOR`).

use colored::{ColoredString, Colorize};

use crate::explain::ExplainReport;
use crate::scan::{Evidence, ScanReport, ServerReport};
use crate::text::{one_line, pretty_message, terminal_safe};
use crate::verdict::{Diagnosis, Verdict};

const PROJECT_WIDTH: usize = 36;

/// Said under a verdict decided by an earlier session because the latest one only
/// connected.
pub const LATEST_ONLY_CONNECTED: &str = "Note: the latest session only connected (like a `claude mcp list` health check) and shows nothing about tools; this verdict comes from an earlier session on the same server version. To confirm, start `claude` in the project and use one of the server's tools (or open /mcp), then scan again.";
const EVIDENCE_WIDTH: usize = 70;

fn paint(verdict: Verdict, text: &str) -> ColoredString {
    match verdict {
        Verdict::Healthy => text.green(),
        Verdict::Tolerated => text.yellow(),
        Verdict::Unknown => text.dimmed(),
        _ => text.red().bold(),
    }
}

/// `tools-fetch-failed (missing-resultType)`.
pub fn verdict_label(d: &Diagnosis) -> String {
    match d.cause {
        Some(c) => format!("{} ({})", d.verdict, c),
        None => d.verdict.to_string(),
    }
}

/// Keeps the end of a long path, where the project's own name is.
fn shorten_left(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let tail: String = s.chars().skip(n - (max - 1)).collect();
    format!("…{tail}")
}

/// `2026-11-29T11:50:31.063Z` -> `2026-11-29 11:50`.
fn short_time(ts: Option<&str>) -> String {
    match ts {
        Some(t) if t.len() >= 16 && t.as_bytes()[10] == b'T' => {
            format!("{} {}", &t[..10], &t[11..16])
        }
        Some(t) => t.to_string(),
        None => "-".to_string(),
    }
}

/// A plain text table with left-aligned columns; `paint_col` colours one column after
/// padding so escape codes do not upset the alignment.
fn table(header: &[&str], rows: &[Vec<String>], paint_col: Option<(usize, &[Verdict])>) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let line = |cells: &[String], verdict: Option<Verdict>, out: &mut String| {
        let last = cells.len() - 1;
        for (i, cell) in cells.iter().enumerate() {
            let pad = if i == last {
                0
            } else {
                widths[i] - cell.chars().count() + 2
            };
            match (paint_col, verdict) {
                (Some((c, _)), Some(v)) if c == i => out.push_str(&paint(v, cell).to_string()),
                _ => out.push_str(cell),
            }
            out.push_str(&" ".repeat(pad));
        }
        out.push('\n');
    };
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    let mut head = String::new();
    line(&header, None, &mut head);
    out.push_str(&head.trim_end().bold().to_string());
    out.push('\n');
    for (r, row) in rows.iter().enumerate() {
        let v = paint_col.map(|(_, vs)| vs[r]);
        line(row, v, &mut out);
    }
    out
}

pub fn scan_table(report: &ScanReport, verbose: bool) -> String {
    if report.servers.is_empty() {
        return String::new();
    }
    let rows: Vec<Vec<String>> = report
        .servers
        .iter()
        .map(|s| {
            vec![
                terminal_safe(&s.name, false),
                shorten_left(
                    &terminal_safe(s.project.as_deref().unwrap_or("-"), false),
                    PROJECT_WIDTH,
                ),
                verdict_label(&s.diagnosis),
                s.diagnosis
                    .era
                    .map(|e| e.as_str())
                    .unwrap_or("-")
                    .to_string(),
                short_time(s.last_seen.as_deref()),
                headline(s),
            ]
        })
        .collect();
    let verdicts: Vec<Verdict> = report.servers.iter().map(|s| s.diagnosis.verdict).collect();
    let mut out = table(
        &[
            "SERVER",
            "PROJECT",
            "VERDICT",
            "ERA",
            "LAST SEEN",
            "EVIDENCE",
        ],
        &rows,
        Some((2, &verdicts)),
    );

    let needing: Vec<&ServerReport> = report
        .servers
        .iter()
        .filter(|s| s.diagnosis.verdict != Verdict::Healthy)
        .collect();
    if !needing.is_empty() {
        out.push_str("\nWhat to do:\n");
        for s in needing {
            out.push_str(&format!(
                "  {} ({}): {}\n",
                paint(s.diagnosis.verdict, &terminal_safe(&s.name, false)),
                shorten_left(
                    &terminal_safe(s.project.as_deref().unwrap_or("-"), false),
                    PROJECT_WIDTH
                ),
                s.recommendation()
            ));
            if s.latest_only_connected {
                out.push_str(&format!("    {}\n", LATEST_ONLY_CONNECTED));
            }
        }
    }
    if verbose {
        for s in &report.servers {
            out.push('\n');
            out.push_str(&server_details(s));
        }
    }
    out
}

/// The one-line evidence: the decisive record's message.
fn headline(s: &ServerReport) -> String {
    let decisive = s
        .evidence
        .iter()
        .rev()
        .find(|e| {
            s.diagnosis.verdict == Verdict::Healthy
                || !e.message.starts_with("Connection established")
        })
        .or(s.evidence.last());
    match decisive {
        Some(e) => one_line(&e.message, EVIDENCE_WIDTH),
        None => "-".to_string(),
    }
}

fn server_details(s: &ServerReport) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{} — {}\n",
        terminal_safe(&s.name, false).bold(),
        terminal_safe(s.project.as_deref().unwrap_or("-"), false)
    ));
    out.push_str(&format!(
        "  verdict: {}   era: {}   protocol: {}\n",
        paint(s.diagnosis.verdict, &verdict_label(&s.diagnosis)),
        s.diagnosis.era.map(|e| e.as_str()).unwrap_or("-"),
        s.diagnosis
            .negotiated_protocol_version
            .as_deref()
            .unwrap_or("-")
    ));
    out.push_str(&format!(
        "  sessions: {} ({} read, {} of them failed)   last seen: {}\n",
        s.sessions,
        s.sessions_read,
        s.failed_sessions,
        s.last_seen.as_deref().unwrap_or("-")
    ));
    if let Some(p) = s.diagnosis.tools_proof {
        out.push_str(&format!("  tools loaded: {p}\n"));
    }
    out.push_str(&format!("  logs: {}\n", s.source.display()));
    if s.history.len() > 1 {
        out.push_str("  history:\n");
        for h in &s.history {
            let label = match h.cause {
                Some(c) => format!("{} ({c})", h.verdict),
                None => h.verdict.to_string(),
            };
            out.push_str(&format!(
                "    {label}: {} session(s), last {}\n",
                h.sessions,
                h.last_seen.as_deref().unwrap_or("-")
            ));
        }
    }
    out.push_str("  evidence:\n");
    for e in &s.evidence {
        out.push_str(&evidence_block(e));
    }
    out.push_str(&format!("  fix: {}\n", s.recommendation()));
    out
}

fn evidence_block(e: &Evidence) -> String {
    let mut out = format!(
        "    {}:{}  {}  {}\n",
        e.file.display(),
        e.line,
        e.timestamp.as_deref().unwrap_or("-"),
        e.level.as_str().to_uppercase()
    );
    for l in terminal_safe(&pretty_message(&e.message), true).lines() {
        out.push_str("      ");
        out.push_str(l);
        out.push('\n');
    }
    out
}

pub fn explain_table(report: &ExplainReport) -> String {
    let mut out = String::new();
    for e in &report.entries {
        let name = e.name.as_deref().unwrap_or("(pasted message)");
        out.push_str(&format!(
            "{}: {}\n",
            terminal_safe(name, false).bold(),
            paint(e.diagnosis.verdict, &verdict_label(&e.diagnosis))
        ));
        out.push_str(&format!("  status: {}\n", terminal_safe(&e.status, false)));
        if let Some(d) = &e.detail {
            out.push_str(&format!("  detail: {}\n", one_line(d, 100)));
        }
        if let Some(era) = e.diagnosis.era {
            out.push_str(&format!("  era: {}\n", era.as_str()));
        }
        if let Some(p) = &e.diagnosis.bad_tool_path {
            out.push_str(&format!("  bad field: {}\n", terminal_safe(p, false)));
        }
        out.push_str(&format!("  fix: {}\n", e.recommendation()));
    }
    out
}

/// `mcplogs du`: projects largest first, each followed by its servers.
pub fn du_table(du: &crate::du::DiskUse) -> String {
    use crate::du::human_bytes;
    if du.projects.is_empty() {
        return String::new();
    }
    let mut rows = Vec::new();
    for p in &du.projects {
        rows.push(vec![
            terminal_safe(&p.project, false),
            human_bytes(p.bytes),
            p.files.to_string(),
            short_time(p.oldest.as_deref()),
            short_time(p.newest.as_deref()),
        ]);
        for s in &p.servers {
            rows.push(vec![
                format!("  {}", terminal_safe(&s.name, false)),
                human_bytes(s.bytes),
                s.files.to_string(),
                short_time(s.oldest.as_deref()),
                short_time(s.newest.as_deref()),
            ]);
        }
    }
    let mut out = table(
        &[
            "PROJECT / SERVER",
            "SIZE",
            "FILES",
            "OLDEST SESSION",
            "NEWEST SESSION",
        ],
        &rows,
        None,
    );
    out.push_str(&format!(
        "\nTotal: {} in {} files\n",
        human_bytes(du.bytes),
        du.files
    ));
    out
}
