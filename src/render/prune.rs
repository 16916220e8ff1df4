//! The output of `mcplogs prune`: the plan (per project and server, then the total),
//! what was kept and why, and what deleting did.

use crate::wire::{self, SCHEMA_VERSION};

use super::terminal_safe;
use crate::du::human_bytes;
use crate::prune::{Kind, Outcome, Plan};

/// The plan as a table: one line per folder, largest first, then the total.
pub fn plan_text(plan: &Plan) -> String {
    let mut out = String::new();
    if plan.groups.is_empty() {
        out.push_str("Nothing to prune: every file is the newest of its server, holds a deciding session, is in use or is not old enough.\n");
    } else {
        let rows: Vec<[String; 4]> = plan
            .groups
            .iter()
            .map(|g| {
                [
                    terminal_safe(&g.project, false),
                    terminal_safe(&g.server, false),
                    g.files.len().to_string(),
                    human_bytes(g.bytes),
                ]
            })
            .collect();
        let header = ["PROJECT", "SERVER", "FILES", "SIZE"];
        let mut w = header.map(|h| h.chars().count());
        for r in &rows {
            for (i, c) in r.iter().enumerate() {
                w[i] = w[i].max(c.chars().count());
            }
        }
        let line = |c: [&str; 4]| {
            format!(
                "{:<w0$}  {:<w1$}  {:>w2$}  {:>w3$}\n",
                c[0],
                c[1],
                c[2],
                c[3],
                w0 = w[0],
                w1 = w[1],
                w2 = w[2],
                w3 = w[3]
            )
        };
        out.push_str(&line(header));
        for r in &rows {
            out.push_str(&line([&r[0], &r[1], &r[2], &r[3]]));
        }
        out.push_str(&format!(
            "\nTo delete: {} files, {}\n",
            plan.files,
            human_bytes(plan.bytes)
        ));
    }
    let k = &plan.kept;
    let mut why = Vec::new();
    for (n, what) in [
        (k.newest, "newest of their server"),
        (k.deciding, "hold a deciding session or are newer"),
        (k.in_use, "modified in the last 10 minutes"),
        (k.too_young, "newer than --older-than"),
        (k.foreign, "not named like Claude Code logs"),
    ] {
        if n > 0 {
            why.push(format!("{n} {what}"));
        }
    }
    if !why.is_empty() {
        out.push_str(&format!("Kept: {}\n", why.join(", ")));
    }
    out
}

/// `Delete 12 files (3.4 GiB)? [y/N] `
pub fn question(plan: &Plan) -> String {
    format!(
        "Delete {} files ({})? [y/N] ",
        plan.files,
        human_bytes(plan.bytes)
    )
}

pub fn outcome_text(o: &Outcome) -> String {
    let mut out = format!(
        "Deleted {} files, freed {}.\n",
        o.deleted,
        human_bytes(o.bytes_freed)
    );
    if !o.skipped.is_empty() {
        out.push_str(&format!(
            "Left {} files in place (see the warnings).\n",
            o.skipped.len()
        ));
    }
    out
}

pub fn prune_json(plan: &Plan, outcome: Option<&Outcome>) -> wire::PruneDocument {
    let k = &plan.kept;
    wire::PruneDocument {
        schema_version: SCHEMA_VERSION,
        roots: plan.roots.iter().map(|p| p.display().to_string()).collect(),
        files: plan.files as u64,
        bytes: plan.bytes,
        groups: plan
            .groups
            .iter()
            .map(|g| wire::PruneGroup {
                kind: match g.kind {
                    Kind::ServerLogs => "server-logs",
                    Kind::DebugLogs => "debug-logs",
                }
                .to_string(),
                project: g.project.clone(),
                server: g.server.clone(),
                path: g.dir.display().to_string(),
                files: g
                    .files
                    .iter()
                    .map(|c| wire::PruneFile {
                        path: c.path.display().to_string(),
                        bytes: c.bytes,
                    })
                    .collect(),
                bytes: g.bytes,
                kept_files: g.kept_files as u64,
                kept_bytes: g.kept_bytes,
            })
            .collect(),
        kept: wire::PruneKept {
            newest: k.newest as u64,
            deciding: k.deciding as u64,
            in_use: k.in_use as u64,
            too_young: k.too_young as u64,
            foreign: k.foreign as u64,
        },
        deleted: outcome.map(|o| o.deleted as u64),
        bytes_freed: outcome.map(|o| o.bytes_freed),
        skipped: super::json::warnings_json(outcome.map(|o| o.skipped.as_slice()).unwrap_or(&[])),
        warnings: super::json::warnings_json(&plan.warnings),
    }
}
