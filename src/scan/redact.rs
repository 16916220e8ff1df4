//! Redaction of a finished scan, before anything shows it.

use std::sync::Arc;

use super::*;

pub fn redact_report(report: &mut ScanReport) {
    use crate::redact::output::{path, warning};
    // Learned from the texts where they are (a copy of every text would double the
    // memory of a scan of many servers), each server on its own in parallel, then merged
    // in the servers' order: the same secrets, in the same order, as one pass. Every
    // text the second pass redacts is learned from, so a server none of whose texts the
    // rules found anything in is left as it is when nothing was learned anywhere: the
    // second pass would only run the same rules over the same texts again (it was half
    // of this function's time on 100,000 servers).
    let learned: Vec<(crate::redact::RedactorBuilder, bool)> = report
        .servers
        .par_iter()
        .map(|s| {
            let mut b = crate::redact::RedactorBuilder::new();
            let mut hit = false;
            for t in [&s.name]
                .into_iter()
                .chain(
                    [&s.project, &s.folder, &s.project_folder]
                        .into_iter()
                        .flatten(),
                )
                .chain(texts_of(&s.diagnosis))
            {
                hit |= b.learn_secrets(t);
            }
            hit |= b.learn_secrets(&s.source.to_string_lossy());
            let mut last_file: Option<&Arc<PathBuf>> = None;
            for e in &s.evidence {
                hit |= b.learn_secrets(&e.message);
                // A session's records share their file's path: looked at once.
                if last_file.is_none_or(|f| !Arc::ptr_eq(f, &e.file)) {
                    hit |= b.learn_secrets(&e.file.to_string_lossy());
                    last_file = Some(&e.file);
                }
            }
            (b, hit)
        })
        .collect();
    let mut b = crate::redact::RedactorBuilder::new();
    let mut hits = Vec::with_capacity(learned.len());
    for (l, hit) in learned {
        b.merge_learned(l);
        hits.push(hit);
    }
    let r = b.build();
    let rules_only = r.rules_only();
    report
        .servers
        .par_iter_mut()
        .zip(hits)
        .filter(|(_, hit)| *hit || !rules_only)
        .for_each(|(s, _)| {
            r.apply(&mut s.name);
            for t in [&mut s.project, &mut s.folder, &mut s.project_folder]
                .into_iter()
                .flatten()
            {
                r.apply(t);
            }
            let d = &mut s.diagnosis;
            for t in d
                .bad_tool_path
                .iter_mut()
                .chain(d.negotiated_protocol_version.iter_mut())
                .chain(d.filled_fields.iter_mut())
            {
                r.apply(t);
            }
            path(&r, &mut s.source);
            // Records sharing a path share its redaction too.
            let mut last: Option<(Arc<PathBuf>, Arc<PathBuf>)> = None;
            for e in &mut s.evidence {
                r.apply(&mut e.message);
                match &last {
                    Some((was, now)) if Arc::ptr_eq(was, &e.file) => e.file = Arc::clone(now),
                    _ => {
                        let was = Arc::clone(&e.file);
                        crate::redact::output::shared_path(&r, &mut e.file);
                        last = Some((was, Arc::clone(&e.file)));
                    }
                }
            }
        });
    for w in &mut report.warnings {
        warning(&r, w);
    }
    for p in &mut report.searched {
        path(&r, p);
    }
}

/// The texts of a diagnosis that the redaction passes over.
fn texts_of(d: &Diagnosis) -> impl Iterator<Item = &String> {
    d.bad_tool_path
        .iter()
        .chain(d.negotiated_protocol_version.iter())
        .chain(d.filled_fields.iter())
}
