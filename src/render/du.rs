//! `mcplogs du`: the table (projects largest first, each followed by its servers) and
//! the `--json` document.

use super::warnings_json;
use crate::disk::du::{DiskUse, ProjectUse, ServerUse};
use crate::json_doc::{self, SCHEMA_VERSION};
use crate::text::layout;
use crate::text::terminal_safe;

/// A session's start time as every screen shows times: local, to the minute, with the
/// zone (`2026-11-29 12:43 CET`), as `scan`'s LAST SEEN.
fn shown_time(ts: Option<&str>) -> String {
    ts.map_or_else(|| "-".to_string(), crate::time::local_time)
}

/// `mcplogs du`: projects largest first, each followed by its servers. Paths and names
/// are never cut: with a `width`, one too long for its column goes on a line of its own.
/// `home` is shown as `~`.
pub fn du_table(du: &crate::disk::du::DiskUse, width: Option<usize>, home: Option<&str>) -> String {
    use crate::disk::du::human_bytes;
    if du.projects.is_empty() {
        return String::new();
    }
    let mut rows = Vec::new();
    for p in &du.projects {
        let mut project = layout::tilde(&p.project, home);
        if let Some(root) = &p.root {
            project.push_str(&format!(
                " (in {})",
                layout::tilde(&root.display().to_string(), home)
            ));
        }
        rows.push(vec![
            terminal_safe(&project, false),
            human_bytes(p.bytes),
            p.files.to_string(),
            shown_time(p.oldest.as_deref()),
            shown_time(p.newest.as_deref()),
        ]);
        for s in &p.servers {
            rows.push(vec![
                format!("  {}", terminal_safe(&s.name, false)),
                human_bytes(s.bytes),
                s.files.to_string(),
                shown_time(s.oldest.as_deref()),
                shown_time(s.newest.as_deref()),
            ]);
        }
    }
    let mut out = layout::table_first_wraps(
        &[
            "PROJECT / SERVER",
            "SIZE",
            "FILES",
            "OLDEST SESSION",
            "NEWEST SESSION",
        ],
        &rows,
        width,
    );
    out.push_str(&format!(
        "\nTotal: {} in {}\n",
        human_bytes(du.bytes),
        crate::text::count(du.files, "file")
    ));
    out
}

/// `mcplogs' own cache: 1.2 MiB in 45 files (~/.cache/mcplogs), not in the total
/// above.` (or `None` when there is none).
/// `path` is how to show the folder (`~` for the home); with a `width`, lines fit it.
pub fn cache_line(du: &DiskUse, path: &str, width: Option<usize>) -> Option<String> {
    let c = du.own_cache.as_ref()?;
    Some(layout::wrap(
        &format!(
            "mcplogs' own cache: {} in {} ({}){}; pruning removes the entries of pruned or vanished logs.",
            crate::disk::du::human_bytes(c.bytes),
            crate::text::count(c.files as usize, "file"),
            terminal_safe(path, false),
            if du.projects.is_empty() {
                ""
            } else {
                ", not in the total"
            },
        ),
        "",
        2,
        width,
    ))
}

/// `Claude Code's MCP discovery cache: 862 B in 1 entry (~/.claude/mcp-discovery-cache):
/// Claude Code's state, not logs; not in the total, and prune leaves it alone.` (or
/// `None` when there is none).
pub fn discovery_cache_line(du: &DiskUse, path: &str, width: Option<usize>) -> Option<String> {
    let c = du.discovery_cache.as_ref()?;
    Some(layout::wrap(
        &format!(
            "Claude Code's MCP discovery cache: {} in {} ({}): Claude Code's state, not logs; not in the total, and prune leaves it alone.",
            crate::disk::du::human_bytes(c.bytes),
            if c.files == 1 {
                "1 entry".to_string()
            } else {
                format!("{} entries", c.files)
            },
            terminal_safe(path, false),
        ),
        "",
        2,
        width,
    ))
}

pub fn du_json(du: &DiskUse) -> json_doc::DuDocument {
    json_doc::DuDocument {
        schema_version: SCHEMA_VERSION,
        bytes: du.bytes,
        files: du.files as u64,
        projects: du.projects.iter().map(du_project).collect(),
        mcplogs_cache: du.own_cache.as_ref().map(|c| json_doc::DuCache {
            path: c.path.display().to_string(),
            bytes: c.bytes,
            files: c.files,
        }),
        discovery_cache: du.discovery_cache.as_ref().map(|c| json_doc::DuCache {
            path: c.path.display().to_string(),
            bytes: c.bytes,
            files: c.files,
        }),
        warnings: warnings_json(&du.warnings),
    }
}

fn du_project(p: &ProjectUse) -> json_doc::DuProject {
    json_doc::DuProject {
        project: p.project.clone(),
        folder: p.folder.clone(),
        path: p.path.as_ref().map(|x| x.display().to_string()),
        bytes: p.bytes,
        files: p.files as u64,
        oldest_session: p.oldest.clone(),
        newest_session: p.newest.clone(),
        servers: p.servers.iter().map(du_server).collect(),
    }
}

fn du_server(s: &ServerUse) -> json_doc::DuServer {
    json_doc::DuServer {
        name: s.name.clone(),
        folder: s.folder.clone(),
        path: s.path.display().to_string(),
        bytes: s.bytes,
        files: s.files as u64,
        oldest_session: s.oldest.clone(),
        newest_session: s.newest.clone(),
    }
}
