//! No command prints a secret unless `--no-redact`: `scan` (evidence records hold server
//! stderr, command lines and headers; server names, project paths and zod paths come
//! from whoever wrote the logs), `explain` (pasted `claude mcp list` output shows command
//! lines and URLs), `du`, `settings` and `fix` pass every text they show through the
//! secret rules, human and JSON alike. Home folders and user names stay: on the user's
//! own terminal they are the point. Everything else is left exactly as it was.
//!
//! Two layers: the reports' fields are redacted before rendering (so a cut to one line
//! never leaves half a secret the rules can no longer see), and the rendered text or
//! JSON document is redacted once more as a whole ([`text`], [`json_value`]), so no
//! field a renderer adds later escapes the redactor.

use std::path::PathBuf;

use serde_json::Value;

use super::Redactor;
use crate::explain::ExplainReport;
use crate::scan::ScanReport;
use crate::warning::Warning;

fn path(r: &Redactor, p: &mut PathBuf) {
    let s = p.to_string_lossy();
    let red = r.redact(&s);
    if red != s {
        *p = PathBuf::from(red);
    }
}

fn warning(r: &Redactor, w: &mut Warning) {
    r.apply(&mut w.message);
    if let Some(p) = w.path.as_mut() {
        path(r, p);
    }
}

/// Hides the secrets in every text of `report`: names, projects, folders, zod paths,
/// filled fields, evidence messages and file paths, warnings, searched roots.
pub fn scan_report(report: &mut ScanReport) {
    let mut texts: Vec<String> = Vec::new();
    for s in &report.servers {
        texts.push(s.name.clone());
        texts.extend(s.project.clone());
        texts.extend(s.folder.clone());
        texts.extend(s.diagnosis.bad_tool_path.clone());
        texts.push(s.source.to_string_lossy().into_owned());
        texts.extend(s.evidence.iter().map(|e| e.message.clone()));
    }
    let r = Redactor::secrets_only(texts.iter().map(String::as_str));
    for s in &mut report.servers {
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
            path(&r, &mut e.file);
        }
    }
    for w in &mut report.warnings {
        warning(&r, w);
    }
    for p in &mut report.searched {
        path(&r, p);
    }
}

/// Hides the secrets in the warnings of a `du` run and in its names and paths.
pub fn disk_use(du: &mut crate::du::DiskUse) {
    let r = Redactor::secrets_only(std::iter::empty());
    for p in &mut du.projects {
        r.apply(&mut p.project);
        if let Some(f) = p.folder.as_mut() {
            r.apply(f);
        }
        if let Some(x) = p.path.as_mut() {
            path(&r, x);
        }
        for s in &mut p.servers {
            r.apply(&mut s.name);
            r.apply(&mut s.folder);
            path(&r, &mut s.path);
        }
    }
    for w in &mut du.warnings {
        warning(&r, w);
    }
}

/// Hides the secrets in every field of `report` that was pasted text. `input` is the
/// whole paste: a key and its value may land in different fields (`KEY: value` reads
/// as a server name and a status), so the secrets are learned from it whole.
pub fn explain_report(report: &mut ExplainReport, input: &str) {
    let r = Redactor::secrets_only(std::iter::once(input).chain(report.entries.iter().flat_map(
        |e| {
            [
                e.name.as_deref(),
                e.target.as_deref(),
                Some(e.status.as_str()),
                e.detail.as_deref(),
            ]
            .into_iter()
            .flatten()
        },
    )));
    for e in &mut report.entries {
        for field in [&mut e.name, &mut e.target, &mut e.detail, &mut e.note]
            .into_iter()
            .flatten()
        {
            r.apply(field);
        }
        r.apply(&mut e.status);
        if let Some(p) = e.diagnosis.bad_tool_path.as_mut() {
            r.apply(p);
        }
        for f in &mut e.diagnosis.filled_fields {
            r.apply(f);
        }
    }
}

/// The secrets of a rendered text hidden (the last pass over human output).
pub fn text(t: &str) -> String {
    Redactor::secrets_only([t]).redact(t)
}

/// Redacts every string of a JSON document in place, object keys included.
pub fn json_value(r: &Redactor, v: &mut Value) {
    if !r.is_enabled() {
        return;
    }
    match v {
        Value::String(s) => r.apply(s),
        Value::Array(a) => a.iter_mut().for_each(|x| json_value(r, x)),
        Value::Object(o) => {
            let keys: Vec<String> = o.keys().cloned().collect();
            for k in keys {
                let red = r.redact(&k);
                if red != k {
                    if let Some(mut val) = o.remove(&k) {
                        json_value(r, &mut val);
                        o.insert(red, val);
                    }
                } else if let Some(val) = o.get_mut(&k) {
                    json_value(r, val);
                }
            }
        }
        _ => {}
    }
}

/// [`json_value`] with the secret rules alone.
pub fn json_secrets(v: &mut Value) {
    json_value(&Redactor::secrets_only(std::iter::empty()), v);
}
