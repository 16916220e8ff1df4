//! `mcplogs explain`: the summary line (as `scan`'s), per entry its verdict, status and
//! detail, then "What to do": each action once, with the servers it covers.

use colored::Colorize;

use super::{paint, verdict_label};
use crate::explain::{ExplainEntry, ExplainReport};
use crate::json_doc;
use crate::text::layout::{cols, tilde_within, wrap, wrap_keeping};
use crate::text::{one_line, terminal_safe};

/// The one-line summary, as `scan`'s: "11 servers: 9 fail, 3 can be fixed with
/// `mcplogs fix`, 1 disabled". Pasted messages without a server name are "messages".
pub fn explain_summary(report: &ExplainReport) -> String {
    let n = report.entries.len();
    let noun = if report.entries.iter().all(|e| e.name.is_none()) {
        "message"
    } else {
        "server"
    };
    let failing = report.entries.iter().filter(|e| e.fails_now()).count();
    // as scan counts them: the legacy setting's, and the fix engine's
    let fixable = report
        .entries
        .iter()
        .filter(|e| e.legacy_fix_applies() || e.engine_fix_command().is_some())
        .count();
    let engine_fixable = report
        .entries
        .iter()
        .any(|e| !e.legacy_fix_applies() && e.engine_fix_command().is_some());
    let tolerated = report
        .entries
        .iter()
        // (of the servers Claude Code still starts, as scan counts them: helper-90 #6)
        .filter(|e| {
            e.diagnosis.verdict == crate::classify::verdict::Verdict::Tolerated
                && e.local.as_ref().is_none_or(|l| l.counts_now)
        })
        .count();
    let mut parts = vec![if failing == 0 {
        "none fail".to_string()
    } else {
        format!("{failing} {}", crate::text::agree(failing, "fails", "fail"))
    }];
    if fixable > 0 {
        // as scan: the command only when it is the bare one; else the action below
        // shows it whole
        // each entry's own command: `scan`'s for a server whose log was found
        let mut commands: Vec<String> = report
            .entries
            .iter()
            .filter_map(|e| {
                e.fix_command_in(&report.homes, report.project.as_deref())
                    .or_else(|| e.engine_fix_command().map(str::to_string))
            })
            .collect();
        commands.sort();
        commands.dedup();
        parts.push(
            if let [fix] = commands.as_slice()
                && fix == "mcplogs fix"
            {
                format!("{fixable} can be fixed with `{fix}`")
            } else if engine_fixable {
                format!("{fixable} can be fixed with mcplogs fix (below)")
            } else {
                format!("{fixable} can be fixed with the legacy setting (below)")
            },
        );
    }
    if tolerated > 0 {
        parts.push(format!(
            "{tolerated} {} only because Claude Code fills in missing fields",
            crate::text::agree(tolerated, "works", "work")
        ));
    }
    let mut states: Vec<(String, usize)> = Vec::new();
    for s in report.entries.iter().filter_map(|e| e.state) {
        let label = s.replace('-', " ");
        match states.iter_mut().find(|(l, _)| *l == label) {
            Some(c) => c.1 += 1,
            None => states.push((label, 1)),
        }
    }
    // (as scan counts them: a logged server Claude Code now skips, or a pasted one)
    let skipped = report
        .entries
        .iter()
        .filter(|e| e.config_error_now() && e.state.is_none())
        .count();
    match states.iter_mut().find(|(l, _)| l == "configuration error") {
        Some(c) => c.1 += skipped,
        None if skipped > 0 => states.push(("configuration error".to_string(), skipped)),
        None => {}
    }
    parts.extend(states.into_iter().map(|(l, c)| match c {
        1 => format!("1 {l}"),
        _ if l == "configuration error" => format!("{c} configuration errors"),
        _ => format!("{c} {l}"),
    }));
    format!("{}: {}", crate::text::count(n, noun), parts.join(", "))
}

/// One action of "What to do": its text and the entries it covers.
struct Action {
    rank: u8,
    text: String,
    servers: Vec<String>,
}

/// Each action once, with the servers it covers, in the order scan gives them: the
/// legacy fix, then failures, then the rest. A healthy entry needs none.
fn actions(report: &ExplainReport) -> Vec<Action> {
    use crate::classify::verdict::Verdict;
    let mut out: Vec<Action> = Vec::new();
    // Where each action's text is in `out`, and the names each lists already: one look
    // each, where a paste of 200,000 entries compared every name with every one before.
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut listed: std::collections::HashSet<(usize, String)> = std::collections::HashSet::new();
    for e in &report.entries {
        let d = &e.diagnosis;
        if d.verdict == Verdict::Healthy && e.note.is_none() {
            continue;
        }
        let (rank, text) = if e.engine_fix_command().is_some() {
            // a change `mcplogs fix` plans: first, as scan ranks it
            (
                0,
                e.recommendation_in(&report.homes, report.project.as_deref()),
            )
        } else if let Some(l) = &e.local {
            // the log decided: scan's advice, ranked as scan ranks it
            (
                if l.legacy_fix_applies {
                    0
                } else if d.verdict.is_problem() {
                    1
                } else {
                    2
                },
                l.recommendation.clone(),
            )
        } else if e.note.is_none() && d.legacy_fix_applies() {
            (
                0,
                crate::advice::legacy_action_unplaced(&report.homes, report.project.as_deref()),
            )
        } else if e.state.is_some() {
            (
                3,
                e.recommendation_in(&report.homes, report.project.as_deref()),
            )
        } else if d.verdict.is_problem() {
            (
                1,
                e.recommendation_in(&report.homes, report.project.as_deref()),
            )
        } else {
            (
                2,
                e.recommendation_in(&report.homes, report.project.as_deref()),
            )
        };
        let name = e.name.as_deref().map(|n| terminal_safe(n, false));
        let i = *at.entry(text).or_insert_with_key(|text| {
            out.push(Action {
                rank,
                text: text.clone(),
                servers: Vec::new(),
            });
            out.len() - 1
        });
        if let Some(n) = name
            && listed.insert((i, n.clone()))
        {
            out[i].servers.push(n);
        }
    }
    out.sort_by_key(|a| a.rank);
    out
}

/// `explain`'s screen: the summary, per entry its verdict, then the status and detail
/// (whole when piped; at a terminal at most two lines), each wrapped to `width` under
/// its label, then "What to do". Paths under `home` (this user's home folder) are shown
/// as `~`, as `scan` shows them ([`crate::text::layout::tilde_within`]).
pub fn explain_table(report: &ExplainReport, width: Option<usize>, home: Option<&str>) -> String {
    let mut out = wrap(&explain_summary(report), "", 2, width);
    out.push('\n');
    for e in &report.entries {
        out.push_str(&entry_lines(e, width, home));
    }
    let acts = actions(report);
    if !acts.is_empty() {
        out.push('\n');
        out.push_str(&"What to do".bold().to_string());
        out.push('\n');
        let any_fix = acts.iter().any(|a| a.rank == 0);
        for (i, a) in acts.iter().enumerate() {
            let first = format!("  {}. ", i + 1);
            let indent = cols(&first);
            out.push_str(&wrap_keeping(
                &tilde_within(&a.text, home),
                &first,
                indent,
                width,
            ));
            if !a.servers.is_empty() {
                out.push_str(&wrap(
                    &a.servers.join(", "),
                    &format!("{}Servers: ", " ".repeat(indent)),
                    indent + 9,
                    width,
                ));
            }
        }
        if any_fix {
            out.push_str(&wrap(
                &tilde_within(&crate::advice::after_fix(&report.homes), home),
                "  ",
                2,
                width,
            ));
        }
    }
    out
}

fn entry_lines(e: &ExplainEntry, width: Option<usize>, home: Option<&str>) -> String {
    // every text that may name a path: the home folder as `~`, as scan shows it
    let terminal_safe = |t: &str, multi: bool| tilde_within(&terminal_safe(t, multi), home);
    let name = e.name.as_deref().unwrap_or("(pasted message)");
    let mut out = format!(
        "{}: {}\n",
        terminal_safe(name, false).bold(),
        match e.state {
            // A state instead of a verdict: not a failure, never healthy.
            Some(state) => state.dimmed().to_string(),
            None => paint(e.diagnosis.verdict, &verdict_label(&e.diagnosis)).to_string(),
        }
    );
    out.push_str(&wrap_keeping(
        &terminal_safe(&e.status, false),
        "  status: ",
        4,
        width,
    ));
    match (&e.detail, width) {
        // at a terminal, one line of the detail cut to what fits on two lines at most
        // (the whole detail is in the paste)
        (Some(d), Some(w)) => {
            let room = (2 * w).saturating_sub(14).min(200);
            out.push_str(&wrap_keeping(
                &tilde_within(&one_line(d, room), home),
                "  detail: ",
                4,
                width,
            ));
        }
        // piped: all of it, every line
        (Some(d), None) => {
            for (i, line) in d.lines().enumerate() {
                let first = if i == 0 { "  detail: " } else { "    " };
                out.push_str(&format!("{first}{}\n", terminal_safe(line, false)));
            }
        }
        (None, _) => {}
    }
    let launch = e.local.as_ref().and_then(|l| l.launch.as_ref());
    match launch {
        // the configured command, quoted as a shell reads it (`claude mcp list` prints
        // it unquoted)
        Some(l) if l.is_stdio() => {
            let shown = crate::text::shell_command(&l.argv).unwrap_or_else(|| l.argv.join(" "));
            out.push_str(&wrap_keeping(
                &terminal_safe(&shown, false),
                "  command: ",
                4,
                width,
            ));
        }
        Some(l) if !l.url.is_empty() => {
            out.push_str(&wrap_keeping(
                &terminal_safe(&l.url, false),
                &format!("  url ({}): ", l.transport.as_str()),
                4,
                width,
            ));
        }
        _ => {
            if let Some(c) = e.stdio_command() {
                out.push_str(&wrap_keeping(
                    &terminal_safe(c, false),
                    "  command: ",
                    4,
                    width,
                ));
            }
        }
    }
    if let Some(l) = e.local.as_ref().filter(|l| !l.stderr_tail.is_empty()) {
        // the log's failing session, when it ended (the paste says nothing of when)
        let when = l
            .last_seen
            .as_deref()
            .map(|t| format!(" ({})", crate::time::local_time(t)))
            .unwrap_or_default();
        out.push_str(&wrap(&format!("stderr in its log{when}:"), "  ", 4, width));
        for line in &l.stderr_tail {
            out.push_str(&wrap_keeping(&terminal_safe(line, false), "    ", 6, width));
        }
    }
    if let Some(era) = e.diagnosis.era {
        out.push_str(&format!("  era: {}\n", era.as_str()));
    }
    if let Some(p) = &e.diagnosis.bad_tool_path {
        out.push_str(&wrap_keeping(
            &terminal_safe(p, false),
            "  bad field: ",
            4,
            width,
        ));
    }
    out
}

/// `mcplogs explain --json` ([`json_doc::ExplainDocument`], fields in docs/json.md).
/// The whole document (for a caller that wants it as a value; the command writes
/// [`explain_json_head`] and [`explain_json_servers`] as they are made).
pub fn explain_json(report: &ExplainReport) -> json_doc::ExplainDocument {
    json_doc::ExplainDocument {
        servers: report
            .entries
            .iter()
            .map(|e| server_json(e, report))
            .collect(),
        ..explain_json_head()
    }
}

/// [`explain_json`] with `servers` empty: the rest of the document, written around the
/// servers as they are made (`output::json_streamed`), so a 16 MiB paste's document never
/// exists whole (it peaked at 1.9 GB as one JSON value).
pub fn explain_json_head() -> json_doc::ExplainDocument {
    json_doc::ExplainDocument {
        schema_version: json_doc::SCHEMA_VERSION,
        servers: Vec::new(),
    }
}

/// The `servers` of [`explain_json`], each made when it is serialised.
pub fn explain_json_servers(
    report: &ExplainReport,
) -> impl Iterator<Item = ExplainServerRow<'_>> + Send + '_ {
    report
        .entries
        .iter()
        .map(move |e| ExplainServerRow(e, report))
}

/// One server of `explain --json`, made ([`json_doc::ExplainServer`]) when it is
/// serialised.
pub struct ExplainServerRow<'a>(&'a ExplainEntry, &'a ExplainReport);

impl serde::Serialize for ExplainServerRow<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        server_json(self.0, self.1).serialize(s)
    }
}

fn server_json(e: &ExplainEntry, report: &ExplainReport) -> json_doc::ExplainServer {
    let d = &e.diagnosis;
    json_doc::ExplainServer {
        name: e.name.clone(),
        target: e.target.clone(),
        status: e.status.clone(),
        diagnosis: super::diagnosis_json(d, e.legacy_fix_applies()),
        recommendation: e.recommendation_in(&report.homes, report.project.as_deref()),
        detail: e.detail.clone(),
        state: e.state.map(str::to_string),
        problem: e.is_problem(),
        logs: e.local.as_ref().map(|l| l.source.display().to_string()),
        stderr_tail: e
            .local
            .as_ref()
            .map(|l| l.stderr_tail.clone())
            .unwrap_or_default(),
        launch: e
            .local
            .as_ref()
            .and_then(|l| l.launch.as_ref())
            .map(super::scan::launch_json),
        run_by_hand: e.local.as_ref().and_then(|l| l.run_by_hand.clone()),
    }
}
