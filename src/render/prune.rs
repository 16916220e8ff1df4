//! The output of `mcplogs prune`: the plan (per project and server, then the total),
//! what was kept and why, and what deleting did.

use crate::json_doc::{self, SCHEMA_VERSION};

use super::terminal_safe;
use crate::disk::du::human_bytes;
use crate::disk::prune::{CacheKind, CacheWhy, Kind, Outcome, Plan};
use crate::text::layout::{self, wrap};

/// The plan as a table: per project, its server folders, largest first, then the
/// total and what is kept. With a `width`, lines fit it.
pub fn plan_text(plan: &Plan, width: Option<usize>) -> String {
    let mut out = String::new();
    if plan.groups.is_empty() {
        out.push_str(&wrap(
            "Nothing to prune: every file is the newest of its server, holds a deciding session, is in use or is not old enough.",
            "",
            2,
            width,
        ));
    } else {
        // Projects in order of their largest folder; each one's folders largest first.
        // (each project's folders gathered in one pass: a search of every folder for
        // each project was quadratic, most of a dry run over 10,000 projects)
        let mut projects: Vec<(&str, Vec<_>)> = Vec::new();
        let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for g in &plan.groups {
            let i = *at.entry(g.project.as_str()).or_insert_with(|| {
                projects.push((&g.project, Vec::new()));
                projects.len() - 1
            });
            projects[i].1.push(g);
        }
        let mut rows: Vec<Vec<String>> = Vec::new();
        for (p, groups) in projects {
            rows.push(vec![
                terminal_safe(p, false),
                groups
                    .iter()
                    .map(|g| g.files.len())
                    .sum::<usize>()
                    .to_string(),
                human_bytes(groups.iter().map(|g| g.bytes).sum()),
            ]);
            for g in groups {
                rows.push(vec![
                    format!("  {}", terminal_safe(&g.server, false)),
                    g.files.len().to_string(),
                    human_bytes(g.bytes),
                ]);
            }
        }
        // paths and names are never cut: one too long goes on a line of its own
        out.push_str(&layout::table_first_wraps(
            &["PROJECT / SERVER", "FILES", "SIZE"],
            &rows,
            width,
        ));
        out.push_str(&format!(
            "\nTo delete: {}, {}\n",
            crate::text::count(plan.files, "file"),
            human_bytes(plan.bytes)
        ));
    }
    let k = &plan.kept;
    let mut why = Vec::new();
    let in_use = format!(
        "modified in the last {} minutes",
        crate::disk::prune::IN_USE_SECS / 60
    );
    for (n, what) in [
        (k.newest, "newest of their server"),
        (
            k.deciding,
            crate::text::agree(
                k.deciding,
                "holds a deciding session or is newer",
                "hold a deciding session or are newer",
            ),
        ),
        (k.in_use, in_use.as_str()),
        (k.too_young, "newer than --older-than"),
        (k.foreign, "not named like Claude Code logs"),
    ] {
        if n > 0 {
            why.push(format!("{n} {what}"));
        }
    }
    if !why.is_empty() {
        out.push_str(&wrap(&format!("Kept: {}", why.join(", ")), "", 2, width));
    }
    if let Some(line) = cache_line(plan) {
        out.push_str(&wrap(&line, "", 2, width));
    }
    out
}

/// `Also from mcplogs' cache: 29 status line memos, 2 hook told-lists (4.5 MiB), of
/// logs deleted here or gone already.`
fn cache_line(plan: &Plan) -> Option<String> {
    if plan.cache.is_empty() {
        return None;
    }
    let count = |k: CacheKind| plan.cache.iter().filter(|e| e.kind == k).count();
    let mut what = Vec::new();
    for (k, one, many) in [
        (
            CacheKind::StatusMemo,
            "status line memo",
            "status line memos",
        ),
        (CacheKind::HookTold, "hook told-list", "hook told-lists"),
        (CacheKind::Index, "index file", "index files"),
        (CacheKind::Leftover, "leftover", "leftovers"),
    ] {
        let n = count(k);
        if n > 0 {
            what.push(format!("{n} {}", if n == 1 { one } else { many }));
        }
    }
    let pruned = plan.cache.iter().any(|e| e.why == CacheWhy::LogsPruned);
    let gone = plan.cache.iter().any(|e| e.why == CacheWhy::LogsGone);
    let of = match (pruned, gone) {
        (true, true) => "of logs deleted here or gone already",
        (true, false) => "of the logs deleted here",
        _ => "of logs gone already",
    };
    Some(format!(
        "Also from mcplogs' cache: {} ({}), {of} (`--json` lists them).",
        what.join(", "),
        human_bytes(plan.cache_bytes)
    ))
}

/// `Delete 12 files (3.4 GiB)? [y/N] `
pub fn question(plan: &Plan) -> String {
    let cache = if plan.cache.is_empty() {
        String::new()
    } else {
        let n = plan.cache.len();
        format!(
            " and {n} {} of mcplogs' cache",
            crate::text::agree(n, "entry", "entries")
        )
    };
    format!(
        "Delete {} ({}){cache}? [y/N] ",
        crate::text::count(plan.files, "file"),
        human_bytes(plan.bytes)
    )
}

pub fn outcome_text(o: &Outcome) -> String {
    let mut out = format!(
        "Deleted {}, freed {}.\n",
        crate::text::count(o.deleted, "file"),
        human_bytes(o.bytes_freed)
    );
    if o.cache_removed > 0 {
        let n = o.cache_removed;
        out.push_str(&format!(
            "Removed {n} {} of mcplogs' cache ({}).\n",
            crate::text::agree(n, "entry", "entries"),
            human_bytes(o.cache_bytes_freed)
        ));
    }
    if !o.skipped.is_empty() {
        out.push_str(&format!(
            "Left {} in place (see the warnings).\n",
            crate::text::count(o.skipped.len(), "file")
        ));
    }
    out
}

pub fn prune_json(plan: &Plan, outcome: Option<&Outcome>) -> json_doc::PruneDocument {
    let k = &plan.kept;
    json_doc::PruneDocument {
        schema_version: SCHEMA_VERSION,
        roots: plan.roots.iter().map(|p| p.display().to_string()).collect(),
        files: plan.files as u64,
        bytes: plan.bytes,
        groups: plan
            .groups
            .iter()
            .map(|g| json_doc::PruneGroup {
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
                    .map(|c| json_doc::PruneFile {
                        path: c.path.display().to_string(),
                        bytes: c.bytes,
                    })
                    .collect(),
                bytes: g.bytes,
                kept_files: g.kept_files as u64,
                kept_bytes: g.kept_bytes,
            })
            .collect(),
        kept: json_doc::PruneKept {
            newest: k.newest as u64,
            deciding: k.deciding as u64,
            in_use: k.in_use as u64,
            too_young: k.too_young as u64,
            foreign: k.foreign as u64,
        },
        deleted: outcome.map(|o| o.deleted as u64),
        bytes_freed: outcome.map(|o| o.bytes_freed),
        skipped: super::warnings_json(outcome.map(|o| o.skipped.as_slice()).unwrap_or(&[])),
        cache: plan
            .cache
            .iter()
            .map(|e| json_doc::PruneCacheEntry {
                path: e.path.display().to_string(),
                bytes: e.bytes,
                kind: match e.kind {
                    CacheKind::StatusMemo => "statusline-memo",
                    CacheKind::HookTold => "hook-told",
                    CacheKind::Index => "index",
                    CacheKind::Leftover => "leftover",
                }
                .to_string(),
                reason: match e.why {
                    CacheWhy::LogsPruned => "logs-pruned",
                    CacheWhy::LogsGone => "logs-gone",
                }
                .to_string(),
            })
            .collect(),
        cache_bytes: plan.cache_bytes,
        cache_removed: outcome.map(|o| o.cache_removed as u64),
        warnings: super::warnings_json(&plan.warnings),
    }
}
