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
    fit_owned(report.clone(), limit)
}

/// How much of the report without any record [`fit_owned`] renders to know it is too
/// long, and to cut it: this many times the limit in bytes (a character is at most four
/// bytes, so twice the limit in characters at least; the cut keeps less than the limit).
const PREFIX_LIMITS: usize = 8;

/// [`fit`] of a report it may change: a report too long even without any record (a
/// report of thousands of servers) is not copied without them, its records are taken
/// out in place, and only the beginning of its text is made, as far as the cut can
/// reach (on 100,000 servers the copy and the whole text, tens of megabytes, then
/// redacted whole, were most of `report`'s memory).
pub fn fit_owned(mut report: Report, limit: usize) -> (String, Report) {
    report.omitted = Omitted::default();
    if let Some(counts) = report.records_left_out.take() {
        // Made without its records, sure to be too long with any
        // ([`super::records_never_fit`]): what it had is noted as left out.
        for (s, n) in report.servers.iter().zip(counts) {
            if n > 0 {
                report.omitted.records.push((s.name.clone(), n));
            }
        }
        // and those of the servers it kept no section of (`super::Making::reach`)
        report.omitted.unnamed = report.beyond.records;
        return cut_without_records(report, limit);
    }
    if let Some(plain) = markdown::render_within(&report, limit)
        && chars(&plain) <= limit
    {
        let text = report.redactor().redact(&plain);
        if chars(&text) <= limit {
            return (text, report);
        }
    }
    // Without any record: the records taken out, each server's count noted (as
    // `without` notes them for every record).
    let mut records = Vec::with_capacity(report.servers.len());
    let mut omitted = Omitted::default();
    for s in &mut report.servers {
        let stderr = std::mem::take(&mut s.stderr);
        let evidence = std::mem::take(&mut s.evidence);
        let n = stderr.len() + evidence.len();
        if n > 0 {
            omitted.records.push((s.name.clone(), n));
        }
        records.push((stderr, evidence));
    }
    report.omitted = omitted;
    let (plain, whole) = markdown::render_prefix(&report, limit.saturating_mul(PREFIX_LIMITS));
    if !whole || chars(&plain) > limit {
        drop((records, plain));
        return cut_without_records(report, limit);
    }
    // It fits without some records: put them back, and find how many go.
    report.omitted = Omitted::default();
    for (s, (stderr, evidence)) in report.servers.iter_mut().zip(records) {
        s.stderr = stderr;
        s.evidence = evidence;
    }
    fit_records(&report, limit)
}

/// `report`, too long without any record (and holding none, what it had noted in its
/// `omitted`), cut: only the beginning of its text that the cut can keep is made (what
/// [`fit`] does with the whole text, which goes on past the cut).
fn cut_without_records(report: Report, limit: usize) -> (String, Report) {
    let (plain, whole) = markdown::render_prefix(&report, limit.saturating_mul(PREFIX_LIMITS));
    let text = report.redactor().redact(&plain);
    let text = if whole || chars(&text) > limit {
        text
    } else {
        // Redaction made the beginning shorter than the cut: the whole text.
        drop((plain, text));
        report.redactor().redact(&markdown::render(&report))
    };
    cut(text, report, limit)
}

/// [`fit`] of a report too long with every record, that fits without some (or is still
/// too long without all of them).
fn fit_records(report: &Report, limit: usize) -> (String, Report) {
    let redact = |text: &str| report.redactor().redact(text);
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
    let (text, r) = if chars(&all_out_plain) > limit {
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

    cut(text, r, limit)
}

/// `text` (of `r`, too long without any record) cut at a line end, with the note saying so.
fn cut(text: String, mut r: Report, limit: usize) -> (String, Report) {
    // Still too long without any record: cut at a line end and say so.
    r.omitted.cut = true;
    // The note alone (without the per-server counts): the note reads only `omitted`, so
    // the counts step aside for it rather than the whole report being cloned.
    let records = std::mem::take(&mut r.omitted.records);
    let unnamed = std::mem::take(&mut r.omitted.unnamed);
    let note = format!("\n\n{}", markdown::omitted_note(&r));
    r.omitted.records = records;
    r.omitted.unnamed = unnamed;
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
        learned: None,
        records_left_out: None,
        beyond: report.beyond,
        shared: report.shared.clone(),
        // (a Markdown report keeps its records in its sections)
        deferred: Vec::new(),
        config_unreadable: report.config_unreadable,
        problems: report.problems,
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
        config_error_now: s.config_error_now,
        shared: s.shared,
        discovery_cache: s.discovery_cache.clone(),
    }
}

fn chars(s: &str) -> usize {
    s.chars().count()
}
