//! Redaction of a finished scan, before anything shows it: the secret rules, what the
//! texts themselves teach, and every value the configuration marks as secret
//! ([`ScanReport::secrets`]).

use std::sync::Arc;

use super::*;
use crate::redact::{Redactor, RedactorBuilder};

/// One text of a server that redaction passes over.
enum Text<'a> {
    Str(&'a mut String),
    /// A message shared with other records ([`super::shared_message`]).
    SharedStr(&'a mut Arc<str>),
    Path(&'a mut PathBuf),
    /// A path shared with the other records of its file.
    Shared(&'a mut Arc<PathBuf>),
}

/// Every text of `s` that redaction passes over, in one order for learning and
/// redacting (a text redacted but never learned from could hold a secret the other
/// texts are not told of).
fn for_each_text(s: &mut ServerReport, f: &mut dyn FnMut(Text)) {
    f(Text::Str(&mut s.name));
    for t in [&mut s.project, &mut s.folder, &mut s.project_folder]
        .into_iter()
        .flatten()
    {
        f(Text::Str(t));
    }
    let d = &mut s.diagnosis;
    for t in d
        .bad_tool_path
        .iter_mut()
        .chain(d.negotiated_protocol_version.iter_mut())
        .chain(d.filled_fields.iter_mut())
    {
        f(Text::Str(t));
    }
    f(Text::Path(&mut s.source));
    for e in &mut s.evidence {
        f(Text::SharedStr(&mut e.message));
        f(Text::Shared(&mut e.file));
    }
    for t in &mut s.stderr_tail {
        f(Text::Str(t));
    }
    if let Some(l) = &mut s.launch {
        for t in l
            .argv
            .iter_mut()
            .chain(std::iter::once(&mut l.url))
            .chain(l.env_names.iter_mut())
        {
            f(Text::Str(t));
        }
        if let Some(p) = &mut l.file {
            f(Text::Path(p));
        }
    }
}

pub fn redact_report(report: &mut ScanReport) {
    use crate::redact::output::{path, shared_path, warning};
    // Learned from the texts where they are (a copy of every text would double the
    // memory of a scan of many servers), each server on its own in parallel, then merged
    // in the servers' order: the same secrets, in the same order, as one pass. A server
    // none of whose texts the rules found anything in is left as it is when nothing was
    // learned anywhere: the second pass would only run the same rules over the same
    // texts again (it was half of this function's time on 100,000 servers).
    let learned: Vec<(RedactorBuilder, bool)> = report
        .servers
        .par_iter_mut()
        .map(|s| {
            let mut b = RedactorBuilder::new();
            let mut hit = false;
            // A session's records share their file's path: looked at once.
            let mut last_file: Option<Arc<PathBuf>> = None;
            for_each_text(s, &mut |t| match t {
                Text::Str(t) => hit |= b.learn_secrets(t),
                Text::SharedStr(t) => hit |= b.learn_secrets(t),
                Text::Path(p) => hit |= b.learn_secrets(&p.to_string_lossy()),
                Text::Shared(p) => {
                    if last_file.as_ref().is_none_or(|f| !Arc::ptr_eq(f, p)) {
                        hit |= b.learn_secrets(&p.to_string_lossy());
                        last_file = Some(Arc::clone(p));
                    }
                }
            });
            (b, hit)
        })
        .collect();
    // Every value the configuration marks as secret first ([`super::secrets`]).
    let mut b = RedactorBuilder::new();
    b.learn_configured_secrets(&report.secrets);
    let mut hits = Vec::with_capacity(learned.len());
    for (l, hit) in learned {
        b.merge_learned(l);
        hits.push(hit);
    }
    // (kept for what the resolution joins after: [`ScanReport::shown_by`])
    let r: Arc<Redactor> = Arc::new(b.build());
    let rules_only = r.rules_only();
    report
        .servers
        .par_iter_mut()
        .zip(hits)
        .filter(|(_, hit)| *hit || !rules_only)
        .for_each(|(s, _)| {
            // what the resolution matches and reads by, kept when redaction changes it
            let read = s.as_read();
            // Records sharing a path share its redaction too.
            let mut last: Option<(Arc<PathBuf>, Arc<PathBuf>)> = None;
            for_each_text(s, &mut |t| match t {
                Text::Str(t) => r.apply(t),
                Text::SharedStr(t) => {
                    let mut text = t.to_string();
                    r.apply(&mut text);
                    if *text != **t {
                        *t = text.into();
                    }
                }
                Text::Path(p) => path(&r, p),
                Text::Shared(p) => match &last {
                    Some((was, now)) if Arc::ptr_eq(was, p) => *p = Arc::clone(now),
                    _ => {
                        let was = Arc::clone(p);
                        shared_path(&r, p);
                        last = Some((was, Arc::clone(p)));
                    }
                },
            });
            // a name holding a secret gets its tag, which tells it from the others that
            // print alike ([`super::select::tag`])
            super::select::tag_shown(&read.name, &mut s.name);
            // a folder several configured names share: each name with its own tag
            if s.shared_by.len() > 1 {
                s.name = super::select::shown_sharing(&r, &mut s.shared_by);
            }
            if s.as_read.is_none()
                && (s.name != read.name
                    || s.project != read.project
                    || s.project_folder != read.project_folder
                    || s.folder != read.folder
                    || s.shared_by != read.shared_by)
            {
                s.as_read = Some(Box::new(read));
            }
        });
    report.shown_by = Some(Arc::clone(&r));
    for w in &mut report.warnings {
        warning(&r, w);
    }
    // The names `--server` missed, listed on stderr as "Known servers" (a folder can be
    // named after a token, and a server filtered out was not learned from).
    for n in &mut report.unfiltered_names {
        *n = super::select::shown_by(&r, n);
    }
    // each once as printed: a logged name and its configured row print alike
    report.unfiltered_names.sort();
    report.unfiltered_names.dedup();
    for p in &mut report.searched {
        path(&r, p);
    }
}

/// What the configuration joined to a redacted scan holds of a configured value
/// ([`ScanReport::secrets`]), hidden as the servers' texts are: the configured servers
/// without a log (their names printed with their tags, as a logged server's; the name
/// as configured is kept for `--server`), the keys and warnings that decide each
/// server's state. The secret rules saw the names already ([`super::select::printed`]);
/// a name holding a value its own entry configures (`cfg-VALUE` with `env: {KEY:
/// VALUE}`) was shown whole.
pub(crate) fn configured_rows(report: &mut ScanReport) {
    // the rows' projects as the servers' are shown ([`redact_report`]): a project path
    // holding a secret is one group of the screen, its logged and its unlogged servers
    if let Some(shown) = report.shown_by.clone() {
        for row in &mut report.configured {
            shown.apply(&mut row.project);
            shown.apply(&mut row.project_folder);
        }
    }
    let r = {
        let mut b = RedactorBuilder::new();
        b.learn_configured_secrets(&report.secrets);
        b.build()
    };
    if r.rules_only() {
        return;
    }
    let deciders = |c: &mut configured::Configured| {
        for d in &mut c.decided_by {
            r.apply(&mut d.key);
        }
        for w in &mut c.warnings {
            r.apply(w);
        }
    };
    for row in &mut report.configured {
        // printed already (a tag where the secret rules changed it): a configured value
        // hidden in it gives no tag, as in a logged server's name
        // ([`super::select::tag_shown`])
        r.apply(&mut row.name);
        deciders(&mut row.configured);
    }
    for s in report.servers.iter_mut().chain(&mut report.filtered_out) {
        if let configured::Configuration::Configured(c) = &mut s.configuration {
            deciders(c);
        }
    }
    // "Known servers" and "did you mean" list the rows a filter left out too
    for n in &mut report.unfiltered_names {
        r.apply(n);
    }
    report.unfiltered_names.sort();
    report.unfiltered_names.dedup();
}
