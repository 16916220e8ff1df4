//! Keeping the Markdown under GitHub's issue body limit. What goes first: the servers'
//! stderr records, oldest first, then the evidence records, oldest first (across all
//! servers, so the newest record of each server stays longest); the report says what
//! was left out. If it is still too long with no record at all (thousands of servers),
//! its end is cut, with a note.

use super::{EvidenceItem, Omitted, Report, ServerSection, markdown};

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Kind {
    Stderr,
    Evidence,
}

/// Renders `report` as Markdown no longer than `limit` characters. Returns the text and
/// the report as rendered (with [`Report::omitted`] filled in). The redactor runs once
/// more over the final text, so nothing escapes it through a renderer. Lengths are
/// measured on the plain render (the report's fields are redacted already, so the last
/// pass hardly changes them); only the chosen text is redacted, and checked again.
pub fn fit(report: &Report, limit: usize) -> (String, Report) {
    let redact = |text: &str| report.redactor().redact(text);
    // The report as rendered with nothing left out; cloned only when it is the answer
    // (a clone of 100,000 servers is a copy of most of `report`'s memory).
    let whole = || Report {
        omitted: Omitted::default(),
        ..report.clone()
    };
    // Rendered only as far as it can still fit.
    let plain = if report.omitted == Omitted::default() {
        markdown::render_within(report, limit)
    } else {
        markdown::render_within(&whole(), limit)
    };
    if let Some(plain) = plain
        && chars(&plain) <= limit
    {
        let text = redact(&plain);
        if chars(&text) <= limit {
            return (text, whole());
        }
    }

    // (kind, timestamp, server, index): records without a timestamp count as oldest;
    // ties keep the log order.
    let mut order: Vec<(Kind, Option<String>, usize, usize)> = Vec::new();
    for (si, s) in report.servers.iter().enumerate() {
        for (kind, list) in [(Kind::Stderr, &s.stderr), (Kind::Evidence, &s.evidence)] {
            for (i, e) in list.iter().enumerate() {
                order.push((kind, e.timestamp.clone(), si, i));
            }
        }
    }
    order.sort();
    let order: Vec<(Kind, usize, usize)> = order
        .into_iter()
        .map(|(kind, _, si, i)| (kind, si, i))
        .collect();
    // The fewest records to leave out, oldest first: the text shrinks as more go, so a
    // binary search over how many finds it in a dozen renders, not one per record (a
    // report 600 records too long re-rendered and re-redacted 600 times: 17 s).
    // The search rests on that (fewer records, shorter text), so when the text is still
    // too long without any record no count fits: one render says so, rather than a dozen
    // renders of the whole report that all fail (100,000 servers: each is tens of
    // megabytes, and they were most of `report`'s time); it is the text the cut starts from.
    let all_out = without(report, &order);
    let all_out_plain = markdown::render(&all_out);
    let (text, mut r) = if chars(&all_out_plain) > limit {
        (redact(&all_out_plain), all_out)
    } else {
        drop((all_out, all_out_plain));
        let fits_plain = |n: usize| {
            markdown::render_within(&without(report, &order[..n]), limit)
                .is_some_and(|t| chars(&t) <= limit)
        };
        let (mut lo, mut hi) = (1, order.len());
        let mut first = order.len() + 1;
        while lo <= hi {
            let mid = lo + (hi - lo) / 2;
            if fits_plain(mid) {
                first = mid;
                hi = mid - 1;
            } else {
                lo = mid + 1;
            }
        }
        let mut last = None;
        for n in first..=order.len() {
            let r = without(report, &order[..n]);
            let text = redact(&markdown::render(&r));
            if chars(&text) <= limit {
                return (text, r);
            }
            last = Some((text, r));
        }
        last.unwrap_or_else(|| {
            let r = without(report, &order);
            (redact(&markdown::render(&r)), r)
        })
    };

    // Still too long without any record: cut at a line end and say so.
    r.omitted.cut = true;
    // The note alone (without the per-server counts): the note reads only `omitted`, so
    // the counts step aside for it rather than the whole report being cloned.
    let records = std::mem::take(&mut r.omitted.records);
    let note = format!("\n\n{}", markdown::omitted_note(&r));
    r.omitted.records = records;
    let keep = limit.saturating_sub(chars(&note));
    let mut cut: String = text.chars().take(keep).collect();
    if let Some(nl) = cut.rfind('\n') {
        cut.truncate(nl);
    }
    cut.push_str(note.trim_end());
    cut.push('\n');
    (cut, r)
}

/// `report` without the `dropped` records, with the count per server noted. The records
/// left out are never copied (a copy of the whole report, records and all, was the
/// peak of `report` on 100,000 servers).
fn without(report: &Report, dropped: &[(Kind, usize, usize)]) -> Report {
    let dropped: std::collections::HashSet<&(Kind, usize, usize)> = dropped.iter().collect();
    let mut omitted = Omitted::default();
    let servers = report
        .servers
        .iter()
        .enumerate()
        .map(|(si, s)| {
            let kept = |kind: Kind, list: &[EvidenceItem]| -> Vec<EvidenceItem> {
                list.iter()
                    .enumerate()
                    .filter(|(i, _)| !dropped.contains(&(kind, si, *i)))
                    .map(|(_, e)| e.clone())
                    .collect()
            };
            let stderr = kept(Kind::Stderr, &s.stderr);
            let evidence = kept(Kind::Evidence, &s.evidence);
            let n = s.stderr.len() + s.evidence.len() - stderr.len() - evidence.len();
            if n > 0 {
                omitted.records.push((s.name.clone(), n));
            }
            section_with(s, stderr, evidence)
        })
        .collect();
    Report {
        versions: report.versions.clone(),
        servers,
        configured: report.configured.clone(),
        settings: report.settings.clone(),
        warnings: report.warnings.clone(),
        machine_state: report.machine_state.clone(),
        omitted,
        redactor: report.redactor.clone(),
        secrets: report.secrets.clone(),
    }
}

/// A copy of `s` with these records.
fn section_with(
    s: &ServerSection,
    stderr: Vec<EvidenceItem>,
    evidence: Vec<EvidenceItem>,
) -> ServerSection {
    ServerSection {
        name: s.name.clone(),
        project: s.project.clone(),
        diagnosis: s.diagnosis.clone(),
        legacy_fix_applies: s.legacy_fix_applies,
        last_seen: s.last_seen.clone(),
        sessions: s.sessions,
        sessions_read: s.sessions_read,
        failed_sessions: s.failed_sessions,
        source: s.source.clone(),
        audience: s.audience,
        launch: s.launch.clone(),
        summary: s.summary.clone(),
        recommendation: s.recommendation.clone(),
        fix_action: s.fix_action.clone(),
        evidence,
        stderr,
        counts_now: s.counts_now,
        discovery_cache: s.discovery_cache.clone(),
    }
}

fn chars(s: &str) -> usize {
    s.chars().count()
}
