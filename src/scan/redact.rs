//! Redaction of a finished scan, before anything shows it.

use super::*;

pub fn redact_report(report: &mut ScanReport) {
    use crate::redact::output::{path, warning};
    // Learned from the texts where they are (a copy of every text would double the
    // memory of a scan of many servers), each server on its own in parallel, then merged
    // in the servers' order: the same secrets, in the same order, as one pass.
    let learned: Vec<crate::redact::RedactorBuilder> = report
        .servers
        .par_iter()
        .map(|s| {
            let mut b = crate::redact::RedactorBuilder::new();
            b.learn_secrets(&s.name);
            for t in [&s.project, &s.folder, &s.diagnosis.bad_tool_path]
                .into_iter()
                .flatten()
            {
                b.learn_secrets(t);
            }
            b.learn_secrets(&s.source.to_string_lossy());
            for e in &s.evidence {
                b.learn_secrets(&e.message);
            }
            b
        })
        .collect();
    let mut b = crate::redact::RedactorBuilder::new();
    for l in learned {
        b.merge_learned(l);
    }
    let r = b.build();
    report.servers.par_iter_mut().for_each(|s| {
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
        for e in &mut s.evidence {
            r.apply(&mut e.message);
            crate::redact::output::shared_path(&r, &mut e.file);
        }
    });
    for w in &mut report.warnings {
        warning(&r, w);
    }
    for p in &mut report.searched {
        path(&r, p);
    }
}
