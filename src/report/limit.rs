//! Keeping the Markdown under GitHub's issue body limit: the oldest evidence goes first
//! (across all servers), and the report says what was left out. If the report is still
//! too long with no evidence at all (thousands of servers), its end is cut, with a note.

use super::{Report, markdown};

/// Renders `report` as Markdown no longer than `limit` characters, leaving out the
/// oldest evidence records first. Returns the text and the report as rendered (with
/// [`Report::omitted`] filled in). The redactor runs once more over the final text, so
/// nothing escapes it through a renderer.
pub fn fit(report: &Report, limit: usize) -> (String, Report) {
    let mut r = report.clone();
    r.omitted = Default::default();
    let render = |r: &Report| r.redactor().redact(&markdown::render(r));
    let mut text = render(&r);
    if chars(&text) <= limit {
        return (text, r);
    }

    // Every record, oldest first: by timestamp (records without one count as oldest),
    // then by position, so the newest record of each server goes last.
    let mut order: Vec<(Option<String>, usize, usize)> = r
        .servers
        .iter()
        .enumerate()
        .flat_map(|(si, s)| {
            s.evidence
                .iter()
                .enumerate()
                .map(move |(ei, e)| (e.timestamp.clone(), si, ei))
        })
        .collect();
    order.sort();
    let mut dropped = vec![Vec::new(); r.servers.len()];
    for (_, si, ei) in order {
        dropped[si].push(ei);
        let mut trial = report.clone();
        trial.omitted = Default::default();
        for (si, eis) in dropped.iter().enumerate() {
            if eis.is_empty() {
                continue;
            }
            let s = &mut trial.servers[si];
            let mut i = 0;
            s.evidence.retain(|_| {
                let keep = !eis.contains(&i);
                i += 1;
                keep
            });
            trial.omitted.records.push((s.name.clone(), eis.len()));
        }
        text = render(&trial);
        r = trial;
        if chars(&text) <= limit {
            return (text, r);
        }
    }

    // Still too long without evidence: cut at a line end and say so.
    r.omitted.cut = true;
    let note = format!(
        "\n\n{}",
        markdown::omitted_note(&Report {
            omitted: super::Omitted {
                records: Vec::new(),
                cut: true
            },
            ..r.clone()
        })
    );
    let keep = limit.saturating_sub(chars(&note));
    let mut cut: String = text.chars().take(keep).collect();
    if let Some(nl) = cut.rfind('\n') {
        cut.truncate(nl);
    }
    cut.push_str(&note);
    (cut, r)
}

fn chars(s: &str) -> usize {
    s.chars().count()
}
