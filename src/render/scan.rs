//! `mcplogs scan`: the screen (a table, or a list below its three columns; `--verbose`
//! evidence) and the `--json` document (whose shapes are `json_doc`'s).

use colored::Colorize;

use super::{paint, verdict_label, warnings_json};
use crate::advice::reason::short_reason;
use crate::classify::verdict::Verdict;
use crate::json_doc::{self, SCHEMA_VERSION};
use crate::scan::{Evidence, ScanReport, ServerReport, VerdictSeen};
use crate::settings::target::FixTarget;
use crate::text::layout::{block, cols, tilde, tilde_within, wrap, wrap_keeping};
use crate::text::{cut, pretty_message, terminal_safe};

/// Said under a verdict decided by an earlier session because the latest one only
/// connected.
pub const LATEST_ONLY_CONNECTED: &str = "Note: the latest session only connected (like a `claude mcp list` health check) and shows nothing about tools; this verdict comes from an earlier session on the same server version. To confirm, start `claude` in the project and use one of the server's tools (or open /mcp), then scan again.";

#[derive(Debug, Clone, Default)]
pub struct ScreenOptions {
    /// The terminal's width in columns; `None` (piped, no `COLUMNS`): nothing is cut or
    /// wrapped, the layout is the same.
    pub width: Option<usize>,
    /// This user's home folder, shown as `~` in project headings.
    pub home: Option<String>,
    /// The working directory: a log tree under it is shown relative to it, as the user
    /// typed it (`sample-logs/…`).
    pub cwd: Option<String>,
    pub verbose: bool,
}

/// A project path for a heading: the home folder as `~`.
fn project_heading(project: Option<&str>, home: Option<&str>) -> String {
    let Some(p) = project else {
        return "(debug logs: project not recorded)".to_string();
    };
    tilde(&terminal_safe(p, false), home)
}

/// A log tree for a heading: relative to the working directory when under it, else with
/// the home folder as `~`.
fn tree_shown(tree: &std::path::Path, o: &ScreenOptions) -> String {
    if let Some(rest) = o
        .cwd
        .as_deref()
        .and_then(|c| tree.strip_prefix(c).ok())
        .filter(|r| !r.as_os_str().is_empty())
    {
        return terminal_safe(&rest.display().to_string(), false);
    }
    tilde(
        &terminal_safe(&tree.display().to_string(), false),
        o.home.as_deref(),
    )
}

/// What one action covers: the servers, by name and project.
struct Action {
    /// Fixes first, then failures, then servers that work only because Claude Code
    /// is lenient.
    rank: u8,
    text: String,
    servers: Vec<String>,
}

/// The advice, each action once with the servers it covers (as `flutter doctor`
/// groups its checks). The legacy fix is grouped by the file it writes.
fn actions(report: &ScanReport, home: Option<&str>) -> (Vec<Action>, bool) {
    let mut out: Vec<Action> = Vec::new();
    let mut any_fix_or_in_place = false;
    let mut push =
        |rank: u8, text: String, server: String| match out.iter_mut().find(|a| a.text == text) {
            Some(a) => {
                if !a.servers.contains(&server) {
                    a.servers.push(server)
                }
            }
            None => out.push(Action {
                rank,
                text,
                servers: vec![server],
            }),
        };
    for s in &report.servers {
        if s.diagnosis.verdict == Verdict::Healthy {
            if crate::advice::legacy_removed_note(s).is_some() {
                push(
                    0,
                    crate::advice::for_server(s),
                    terminal_safe(&s.name, false),
                );
            }
            continue;
        }
        let name = terminal_safe(&s.name, false);
        let rank = if s.diagnosis.verdict.is_problem() {
            1
        } else {
            2
        };
        if s.diagnosis.verdict == Verdict::Tolerated && !s.is_shared() {
            push(rank, "Works today only because Claude Code fills in fields the server's tools/list result leaves out (revision 2026-07-28 requires them; older Claude Code builds reject it): tell the server's authors.".to_string(), name);
            continue;
        }
        let (rank, text) = if !s.is_shared()
            && s.diagnosis.legacy_fix_applies()
            && let Some(a) = &s.settings
        {
            any_fix_or_in_place = true;
            (
                0,
                match &a.target {
                    FixTarget::Write { path, kind, .. } => crate::advice::legacy_action(
                        &a.target,
                        &a.project_dir,
                        *kind,
                        &tilde(&terminal_safe(&path.display().to_string(), false), home),
                    ),
                    _ => crate::advice::for_server(s),
                },
            )
        } else {
            (rank, crate::advice::for_server(s))
        };
        push(rank, text, name);
    }
    out.sort_by_key(|a| a.rank);
    (out, any_fix_or_in_place)
}

/// The one-line summary: "10 servers: 6 fail, 4 can be fixed with `mcplogs fix`".
pub fn summary_line(report: &ScanReport) -> String {
    let n = report.servers.len();
    let failing = report
        .servers
        .iter()
        .filter(|s| s.diagnosis.verdict.is_problem())
        .count();
    let fixable = report
        .servers
        .iter()
        .filter(|s| s.legacy_fix_applies())
        .count();
    let in_place = report
        .servers
        .iter()
        .filter(|s| {
            s.diagnosis.legacy_fix_applies()
                && s.settings
                    .as_ref()
                    .is_some_and(|a| matches!(a.target, FixTarget::InEffect { .. }))
        })
        .count();
    let tolerated = report
        .servers
        .iter()
        .filter(|s| s.diagnosis.verdict == Verdict::Tolerated)
        .count();
    let unfixed = report
        .servers
        .iter()
        .filter(|s| crate::advice::legacy_removed_note(s).is_some())
        .count();
    let mut parts = Vec::new();
    if failing == 0 && unfixed > 0 {
        parts.push("none fail now".to_string());
    } else if failing == 0 {
        parts.push("none fail".to_string());
    } else {
        parts.push(format!(
            "{failing} {}",
            crate::text::agree(failing, "fails", "fail")
        ));
    }
    if fixable > 0 {
        parts.push(format!("{fixable} can be fixed with `mcplogs fix`"));
    }
    if in_place > 0 {
        parts.push(format!(
            "{in_place} already fixed (restart Claude Code to check)"
        ));
    }
    if unfixed > 0 {
        parts.push(format!(
            "{unfixed} {} again at the next start (the legacy setting was removed)",
            crate::text::agree(unfixed, "fails", "fail")
        ));
    }
    if tolerated > 0 {
        parts.push(format!(
            "{tolerated} {} only because Claude Code fills in missing fields",
            crate::text::agree(tolerated, "works", "work")
        ));
    }
    format!(
        "{n} server{}: {}",
        if n == 1 { "" } else { "s" },
        parts.join(", ")
    )
}

/// `mcplogs scan`: the summary, the servers grouped under their project, then what to
/// do (each action once, with its servers and the exact command). Fits `width`.
pub fn scan_screen(report: &ScanReport, o: &ScreenOptions) -> String {
    if report.servers.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    out.push_str(
        &wrap(&summary_line(report), "", 2, o.width)
            .trim_end()
            .bold()
            .to_string(),
    );
    out.push_str("\n\n");

    let times: Vec<String> = report
        .servers
        .iter()
        .map(|s| {
            s.last_seen
                .as_deref()
                .map(crate::time::local_time)
                .unwrap_or_else(|| "-".to_string())
        })
        .collect();
    let reasons: Vec<String> = report.servers.iter().map(short_reason).collect();
    let names: Vec<String> = report
        .servers
        .iter()
        .map(|s| terminal_safe(&s.name, false))
        .collect();
    let name_w = names
        .iter()
        .map(|n| cols(n))
        .chain([cols("SERVER")])
        .max()
        .unwrap_or(6);
    let name_w = match o.width {
        Some(w) => name_w.min((w / 4).max(12)),
        None => name_w,
    };
    let verdict_w = report
        .servers
        .iter()
        .map(|s| cols(s.diagnosis.verdict.as_str()))
        .chain([cols("VERDICT")])
        .max()
        .unwrap_or(7);
    let time_w = times.iter().map(|t| cols(t)).chain([9]).max().unwrap_or(9);
    let fixed = 2 + name_w + 2 + verdict_w + 2 + time_w + 2;
    // The reason goes in its own column when at least 30 columns are left for it, else on
    // the line below the server.
    let inline = o.width.is_none_or(|w| w >= fixed + 30);
    // Below the width of the three columns, a list: each server's name on its own line,
    // its verdict and time under it, then the reason.
    let list = o.width.is_some_and(|w| w < fixed - 2);
    let head = if inline {
        format!(
            "  {:<name_w$}  {:<verdict_w$}  {:<time_w$}  REASON",
            "SERVER", "VERDICT", "LAST SEEN"
        )
    } else {
        format!(
            "  {:<name_w$}  {:<verdict_w$}  LAST SEEN",
            "SERVER", "VERDICT"
        )
    };

    // A project whose logs sit in more than one log tree gets a group per tree, each
    // heading naming its tree.
    let mut trees: std::collections::BTreeMap<Option<&str>, std::collections::BTreeSet<_>> =
        std::collections::BTreeMap::new();
    for s in &report.servers {
        trees
            .entry(s.project.as_deref())
            .or_default()
            .insert(s.log_tree());
    }
    let mut group: Option<(Option<&str>, Option<&std::path::Path>)> = None;
    for (i, s) in report.servers.iter().enumerate() {
        let p = s.project.as_deref();
        let key = (p, s.log_tree());
        if group != Some(key) {
            if group.is_some() {
                out.push('\n');
            }
            let heading = project_heading(p, o.home.as_deref());
            let heading = match o.width {
                Some(w) => cut(&heading, w),
                None => heading,
            };
            out.push_str(&heading.bold().to_string());
            out.push('\n');
            if let Some(tree) = key.1
                && trees.get(&p).is_some_and(|t| t.len() > 1)
            {
                let line = format!("  logs in {}", tree_shown(tree, o));
                let line = match o.width {
                    Some(w) => cut(&line, w),
                    None => line,
                };
                out.push_str(&line.dimmed().to_string());
                out.push('\n');
            }
            if !list {
                out.push_str(&head.dimmed().to_string());
                out.push('\n');
            }
            group = Some(key);
        }
        if list {
            let w = o.width.unwrap_or(usize::MAX);
            out.push_str(&wrap_keeping(&names[i], "  ", 4, o.width).bold().to_string());
            let verdict = paint(s.diagnosis.verdict, s.diagnosis.verdict.as_str());
            out.push_str(&format!("    {verdict} · {}\n", times[i]));
            let reason = if s.is_shared() {
                format!("shared log folder; {}", reasons[i])
            } else {
                reasons[i].clone()
            };
            if !reason.is_empty() {
                out.push_str(&format!("    {}\n", cut(&reason, w - 4).dimmed()));
            }
            if s.latest_only_connected {
                out.push_str(&wrap(LATEST_ONLY_CONNECTED, "    ", 4, o.width));
            }
            continue;
        }
        let name = match o.width {
            Some(_) => cut(&names[i], name_w),
            None => names[i].clone(),
        };
        let verdict = s.diagnosis.verdict.as_str();
        let mut line = format!(
            "  {name}{}  {}{}  {}",
            " ".repeat(name_w.saturating_sub(cols(&name))),
            paint(s.diagnosis.verdict, verdict),
            " ".repeat(verdict_w - cols(verdict)),
            times[i],
        );
        let reason = if s.is_shared() {
            format!("shared log folder; {}", reasons[i])
        } else {
            reasons[i].clone()
        };
        if inline {
            if !reason.is_empty() {
                line.push_str(&" ".repeat(time_w - cols(&times[i]) + 2));
                line.push_str(&match o.width {
                    Some(w) => cut(&reason, w - fixed),
                    None => reason,
                });
            }
            out.push_str(&line);
            out.push('\n');
        } else {
            out.push_str(&line);
            out.push('\n');
            if !reason.is_empty() {
                let indent = 4 + name_w;
                let w = o.width.unwrap_or(usize::MAX);
                out.push_str(&" ".repeat(indent));
                out.push_str(&cut(&reason, w.saturating_sub(indent)).dimmed().to_string());
                out.push('\n');
            }
        }
        if s.latest_only_connected {
            out.push_str(&wrap(LATEST_ONLY_CONNECTED, "    ", 4, o.width));
        }
    }

    let (acts, any_fix) = actions(report, o.home.as_deref());
    if !acts.is_empty() {
        out.push('\n');
        out.push_str(&"What to do".bold().to_string());
        out.push('\n');
        for (i, a) in acts.iter().enumerate() {
            let first = format!("  {}. ", i + 1);
            let indent = cols(&first);
            out.push_str(&wrap(&a.text, &first, indent, o.width));
            out.push_str(&wrap(
                &a.servers.join(", "),
                &format!("{}Servers: ", " ".repeat(indent)),
                indent + 9,
                o.width,
            ));
        }
        if any_fix {
            out.push_str(&wrap(
                &format!(
                    "After a fix, restart Claude Code or run /mcp in it, then check with `{}`.",
                    crate::advice::VERIFY_COMMAND
                ),
                "  ",
                2,
                o.width,
            ));
        }
    }
    if o.verbose {
        for s in &report.servers {
            out.push('\n');
            out.push_str(&server_details(s, o));
        }
    }
    out
}

/// Fields of one line (`label: value`, given plain and as shown), three spaces apart;
/// a field that would pass `width` starts a new line indented by two.
fn fields_line(fields: &[(String, String)], width: Option<usize>) -> String {
    let mut out = String::from("  ");
    let mut col = 2;
    for (i, (plain, shown)) in fields.iter().enumerate() {
        if i > 0 {
            if width.is_some_and(|w| col + 3 + cols(plain) > w) {
                out.push_str("\n  ");
                col = 2;
            } else {
                out.push_str("   ");
                col += 3;
            }
        }
        out.push_str(shown);
        col += cols(plain);
    }
    out.push('\n');
    out
}

/// A plain field, shown as it is.
fn field(label: &str, value: &str) -> (String, String) {
    let f = format!("{label}: {value}");
    (f.clone(), f)
}

fn server_details(s: &ServerReport, o: &ScreenOptions) -> String {
    let home = o.home.as_deref();
    let mut out = String::new();
    let project = s
        .project
        .as_deref()
        .map(|p| tilde(&terminal_safe(p, false), home))
        .unwrap_or_else(|| "-".to_string());
    out.push_str(&format!(
        "{} — {project}\n",
        terminal_safe(&s.name, false).bold(),
    ));
    let label = verdict_label(&s.diagnosis);
    out.push_str(&fields_line(
        &[
            (
                format!("verdict: {label}"),
                format!("verdict: {}", paint(s.diagnosis.verdict, &label)),
            ),
            field("era", s.diagnosis.era.map(|e| e.as_str()).unwrap_or("-")),
            field(
                "protocol",
                &terminal_safe(
                    s.diagnosis
                        .negotiated_protocol_version
                        .as_deref()
                        .unwrap_or("-"),
                    false,
                ),
            ),
        ],
        o.width,
    ));
    out.push_str(&fields_line(
        &[
            field(
                "sessions",
                &format!(
                    "{} ({} read, {} of them failed)",
                    s.sessions, s.sessions_read, s.failed_sessions
                ),
            ),
            field(
                "last seen",
                &terminal_safe(s.last_seen.as_deref().unwrap_or("-"), false),
            ),
        ],
        o.width,
    ));
    if let Some(p) = s.diagnosis.tools_proof {
        out.push_str(&format!("  tools loaded: {p}\n"));
    }
    // File and folder names can hold line breaks and tabs (a folder named
    // "x\n  FAKE  healthy" would forge a line): escaped like every other name. Paths are
    // never cut (they are there to be copied), but broken after a `/` to fit; the home
    // folder shows as `~`.
    out.push_str(&wrap_keeping(
        &tilde(&terminal_safe(&s.source.display().to_string(), false), home),
        "  logs: ",
        4,
        o.width,
    ));
    if s.history.len() > 1 {
        out.push_str("  history:\n");
        for h in &s.history {
            let label = match h.cause {
                Some(c) => format!("{} ({c})", h.verdict),
                None => h.verdict.to_string(),
            };
            out.push_str(&wrap(
                &format!(
                    "{label}: {}, last {}",
                    crate::text::count(h.sessions, "session"),
                    terminal_safe(h.last_seen.as_deref().unwrap_or("-"), false)
                ),
                "    ",
                6,
                o.width,
            ));
        }
    }
    out.push_str("  evidence:\n");
    for e in &s.evidence {
        out.push_str(&evidence_block(e, &s.source, o));
    }
    // the settings file it names under the home folder, as `~` like the paths above
    let fix = tilde_within(&crate::advice::for_server(s), home);
    out.push_str(&wrap_keeping(&fix, "  fix: ", 7, o.width));
    out
}

/// One piece of evidence: where (the file relative to the server's log folder, shown
/// just above, when it is in it), when, the level, then the message, wrapped with every
/// character kept.
fn evidence_block(e: &Evidence, logs: &std::path::Path, o: &ScreenOptions) -> String {
    let file = e
        .file
        .strip_prefix(logs)
        .ok()
        .filter(|r| !r.as_os_str().is_empty());
    let file = file.unwrap_or(&e.file).display().to_string();
    let file = tilde(&terminal_safe(&file, false), o.home.as_deref());
    let mut out = format!(
        "    {file}:{}  {}  {}\n",
        e.line,
        terminal_safe(e.timestamp.as_deref().unwrap_or("-"), false),
        e.level.as_str().to_uppercase()
    );
    // pretty-printed JSON keeps its indentation on every wrapped line
    out.push_str(&block(
        &terminal_safe(&pretty_message(&e.message), true),
        6,
        o.width,
    ));
    out
}

// --json

/// `scan --json`; `settings` is the settings layers for the current directory.
pub fn scan_json(report: &ScanReport, settings: json_doc::Settings) -> json_doc::ScanDocument {
    json_doc::ScanDocument {
        servers: scan_json_servers(report).collect(),
        ..scan_json_head(report, settings)
    }
}

/// [`scan_json`] without its servers (`servers` is empty): with
/// [`scan_json_servers`], for a writer that serialises the servers one at a time
/// instead of holding the whole document (100,000 servers make 150 MB of JSON).
pub fn scan_json_head(report: &ScanReport, settings: json_doc::Settings) -> json_doc::ScanDocument {
    json_doc::ScanDocument {
        schema_version: SCHEMA_VERSION,
        servers: Vec::new(),
        warnings: warnings_json(&crate::warning::collapse(report.warnings.clone())),
        settings,
    }
}

/// The `servers` of [`scan_json`], each made when it is asked for.
pub fn scan_json_servers(report: &ScanReport) -> impl Iterator<Item = json_doc::ScanServer> + '_ {
    report.servers.iter().map(server_json)
}

fn server_json(s: &ServerReport) -> json_doc::ScanServer {
    let d = &s.diagnosis;
    json_doc::ScanServer {
        name: s.name.clone(),
        project: s.project.clone(),
        verdict: d.verdict.as_str().to_string(),
        cause: d.cause.map(|c| c.as_str().to_string()),
        era: d.era.map(|e| e.as_str().to_string()),
        negotiated_protocol_version: d.negotiated_protocol_version.clone(),
        // Knowing the settings: true only if writing the fix can take effect.
        legacy_fix_applies: s.legacy_fix_applies(),
        filled_fields: d.filled_fields.clone(),
        bad_tool_path: d.bad_tool_path.clone(),
        last_seen: s.last_seen.clone(),
        shared_by: s.shared_by.clone(),
        sessions: s.sessions as u64,
        sessions_read: s.sessions_read as u64,
        files_read: s.files_read as u64,
        failed_sessions: s.failed_sessions as u64,
        tools_proof: d.tools_proof.map(|p| p.to_string()),
        latest_session_only_connected: s.latest_only_connected,
        recommendation: crate::advice::for_server(s),
        evidence: s.evidence.iter().map(evidence_json).collect(),
        folder: s.folder.clone(),
        project_folder: s.project_folder.clone(),
        source: s.source.display().to_string(),
        history: s.history.iter().map(history_json).collect(),
    }
}

fn history_json(h: &VerdictSeen) -> json_doc::VerdictSeen {
    json_doc::VerdictSeen {
        verdict: h.verdict.as_str().to_string(),
        cause: h.cause.map(|c| c.as_str().to_string()),
        sessions: h.sessions as u64,
        last_seen: h.last_seen.clone(),
    }
}

fn evidence_json(e: &Evidence) -> json_doc::Evidence {
    json_doc::Evidence {
        file: e.file.display().to_string(),
        line: e.line as u64,
        timestamp: e.timestamp.clone(),
        level: e.level.as_str().to_string(),
        message: e.message.clone(),
    }
}

#[cfg(test)]
mod wrapping {
    use super::*;

    #[test]
    fn fields_start_a_new_line_only_when_the_next_would_not_fit() {
        let f = [field("verdict", "healthy"), field("era", "legacy")];
        assert_eq!(
            fields_line(&f, Some(40)),
            "  verdict: healthy   era: legacy\n"
        );
        assert_eq!(
            fields_line(&f, Some(32)),
            "  verdict: healthy   era: legacy\n"
        );
        assert_eq!(
            fields_line(&f, Some(31)),
            "  verdict: healthy\n  era: legacy\n"
        );
        assert_eq!(fields_line(&f, None), "  verdict: healthy   era: legacy\n");
    }
}
