//! What to say about a configured server Claude Code does not start (or no longer
//! configures): its state in words, the file and key that decide it, and the exact way
//! out. Facts in docs/claude-code.md, "Configured servers and their states (observed)".

use crate::claude_code::config::{Decider, Scope, ServerConfig, ServerState};
use crate::scan::ServerReport;
use crate::scan::configured::{Configuration, Configured, ConfiguredRow};

/// `~/.claude.json projects["/p"].disabledMcpServers`; `home` shown as `~`.
pub fn decider_text(d: &Decider, home: Option<&str>) -> String {
    let file = d.file.display().to_string();
    let file = match home {
        Some(h) if !h.is_empty() && file.starts_with(h) => format!("~{}", &file[h.len()..]),
        _ => file,
    };
    format!("{file} {}", d.key)
}

fn deciders(c: &Configured, home: Option<&str>) -> String {
    let all: Vec<String> = c.decided_by.iter().map(|d| decider_text(d, home)).collect();
    all.join(" and ")
}

/// The files and the last part of their keys, for a short reason:
/// `~/.claude.json disabledMcpServers`.
fn short_deciders(c: &Configured, home: Option<&str>) -> String {
    let all: Vec<String> = c
        .decided_by
        .iter()
        .map(|d| {
            let key = d.key.rsplit('.').next().unwrap_or(&d.key);
            decider_text(
                &Decider {
                    file: d.file.clone(),
                    key: key.to_string(),
                    layer: d.layer,
                },
                home,
            )
        })
        .collect();
    all.join(", ")
}

/// The short reason beside a row: the state in a few words, then the file and key.
pub fn state_reason(c: &Configured, home: Option<&str>) -> String {
    match &c.state {
        ServerState::Starts => "configured; no log of it yet".to_string(),
        ServerState::PendingApproval => {
            "⏸ pending approval: interactive Claude Code asks first".to_string()
        }
        ServerState::Disabled => format!("⊘ by {}", short_deciders(c, home)),
        ServerState::Denied => format!("by {}", short_deciders(c, home)),
        ServerState::Skipped(why) => format!("skipped: {why}"),
    }
}

/// The state in a word or two: `starts` (`approved` for a `.mcp.json` server a
/// settings file approves), `pending approval`, `disabled`, `denied by policy`,
/// `config error`. What `mcplogs settings` shows in its STATE column.
pub fn state_label(c: &Configured) -> &'static str {
    match c.state {
        ServerState::Starts if c.scope == Scope::Project => "approved",
        ServerState::Starts => "starts",
        ServerState::PendingApproval => "pending approval",
        ServerState::Disabled => "disabled",
        ServerState::Denied => "denied by policy",
        ServerState::Skipped(_) => "config error",
    }
}

/// The state label shown in the VERDICT column of a row without a log (without one
/// since `--since`: `not seen since`).
pub fn row_label(row: &ConfiguredRow) -> &'static str {
    match row.configured.state {
        ServerState::Starts if row.not_seen_since().is_some() => "not seen since",
        ServerState::Starts => "not started",
        _ => state_label(&row.configured),
    }
}

/// `--since`'s cut-off and a log time, in the local form every screen uses.
fn at(iso: &str) -> String {
    crate::time::local_time(iso)
}

/// A not-seen row's cut-off (or `none` without one) and last session, apart
/// ([`crate::time::local_times_apart`]).
fn since_and_last(row: &ConfiguredRow, last: &str, none: &str) -> (String, String) {
    match row.since {
        Some(t) => crate::time::local_times_apart(&crate::time::format_iso(t), last),
        None => (none.to_string(), at(last)),
    }
}

/// The short reason beside a row without a log: [`state_reason`], or for a server
/// whose every session is older than `--since`, "no session since …" with the last
/// one's time (it has logs: never "no log of it yet").
pub fn row_reason(row: &ConfiguredRow, home: Option<&str>) -> String {
    match row.not_seen_since() {
        Some(last) => {
            let (since, last) = since_and_last(row, last, "--since");
            format!("no session since {since}; the last at {last}")
        }
        None => state_reason(&row.configured, home),
    }
}

/// What to do about a row without a log: [`way_out`], or for a server not seen since
/// `--since`, that its state now is unknown and how to see it (the command for the
/// `homes` scanned, as printed: it runs from any folder).
pub fn row_way_out(
    row: &ConfiguredRow,
    home: Option<&str>,
    homes: &[std::path::PathBuf],
) -> String {
    match row.not_seen_since() {
        Some(last) => {
            let (since, last) = since_and_last(row, last, "the --since cut-off");
            format!(
                "Claude Code has not started it since {since} (its last session was at {last}), so this scan says nothing of it: restart Claude Code in the project (or reconnect it with /mcp), then scan again; {} without --since shows its last verdict.",
                crate::text::code_span(&format!(
                    "{} {}",
                    crate::advice::scan_command(homes),
                    crate::text::option_word("--server", &crate::advice::name_word(&row.name))
                ))
            )
        }
        None => way_out_in(&row.configured, Some(&row.name), home, homes),
    }
}

/// What "What to do" says once for every server not seen since `--since` (cut-off
/// `since`): one item, the servers listed under it (helper-83 #8: an item a server,
/// each differing only by its name and last session).
pub fn not_seen_way_out(
    since: Option<crate::time::EpochSeconds>,
    homes: &[std::path::PathBuf],
) -> String {
    format!(
        "Claude Code has not started these since {}, so this scan says nothing of them: restart Claude Code in their projects (or reconnect them with /mcp), then scan again; {} without --since shows their last verdicts.",
        since
            .map(|t| crate::time::cut_off(&crate::time::format_iso(t)))
            .unwrap_or_else(|| "the --since cut-off".to_string()),
        crate::text::code_span(&crate::advice::scan_command(homes))
    )
}

/// What `mcplogs settings` says under its table about one server: who approves a
/// `.mcp.json` server that starts, and for every other state the file and key that
/// decide it and the way out ([`way_out`]); nothing for a server that simply starts.
pub fn settings_note(c: &Configured, name: &str, home: Option<&str>) -> Option<String> {
    match c.state {
        ServerState::Starts if c.decided_by.is_empty() => None,
        ServerState::Starts => Some(format!("approved by {}.", deciders(c, home))),
        _ => Some(way_out_for(c, Some(name), home)),
    }
}

/// A file as the way out names it (`home` shown as `~`).
fn file_text(file: &std::path::Path, home: Option<&str>) -> String {
    let d = Decider {
        file: file.to_path_buf(),
        key: String::new(),
        layer: "",
    };
    decider_text(&d, home).trim_end().to_string()
}

/// What to do, in one paragraph: the file and key responsible and the way out
/// ([`way_out_for`] with the server's name unknown: `SERVER` in a command).
pub fn way_out(c: &Configured, home: Option<&str>) -> String {
    way_out_for(c, None, home)
}

/// The user or shared project settings files that disable `c` and that `mcplogs fix`
/// will not edit, being hard-linked: `~/.claude/settings.json has 2 hard links`.
fn hard_linked_lists(c: &Configured, home: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for d in c.decided_by.iter().filter(|d| {
        d.key.ends_with("disabledMcpjsonServers") && matches!(d.layer, "project" | "user")
    }) {
        if let Some(n) = crate::settings::write::hard_links(&d.file) {
            let said = format!("{} has {n} hard links", file_text(&d.file, home));
            if !out.contains(&said) {
                out.push(said);
            }
        }
    }
    out
}

/// [`way_out`] of the server `name` (as printed: a name holding a secret redacted), so
/// a command names it.
pub fn way_out_for(c: &Configured, name: Option<&str>, home: Option<&str>) -> String {
    way_out_in(c, name, home, &[])
}

/// [`way_out_for`], its `mcplogs` commands with `--home` for each of `homes` (the homes
/// scanned: run as printed from any folder, they read the same ones).
pub fn way_out_in(
    c: &Configured,
    name: Option<&str>,
    home: Option<&str>,
    homes: &[std::path::PathBuf],
) -> String {
    let by = deciders(c, home);
    let first_key = c.decided_by.first().map(|d| d.key.as_str()).unwrap_or("");
    match &c.state {
        ServerState::Starts => "Claude Code has not started it in this project since it was configured: start `claude` there (or run `claude mcp list`), then scan again.".to_string(),
        ServerState::PendingApproval if let Some(local) = c.ignored.iter().find(|f| f.ends_with(".claude/settings.local.json")) => format!(
            "A project (.mcp.json) server nobody approved: interactive Claude Code asks before starting it (`claude -p` starts it unasked). {} is ignored entirely by Claude Code (not strict JSON), so no approval or disabled list in it is in effect: make it strict JSON first (`mcplogs settings` shows where it breaks), then start `claude` in the project and choose \"Use this MCP server\".",
            decider_text(&Decider { file: local.clone(), key: String::new(), layer: "" }, home).trim_end()
        ),
        ServerState::PendingApproval if let Some(local) = c.unread.iter().find(|f| f.ends_with(".claude/settings.local.json")) => format!(
            "A project (.mcp.json) server nobody approved: interactive Claude Code asks before starting it (`claude -p` starts it unasked). {} cannot be read (not a regular file, or not readable), so whether it approves or disables the server is not known: replace it with a regular file first, then start `claude` in the project and choose \"Use this MCP server\", or add its name to enabledMcpjsonServers in that file.",
            file_text(local, home)
        ),
        ServerState::PendingApproval => "A project (.mcp.json) server nobody approved: interactive Claude Code asks before starting it, and Esc or \"Continue without using this MCP server\" adds it to disabledMcpjsonServers in .claude/settings.local.json (`claude -p` starts it unasked). To approve it, start `claude` in the project and choose \"Use this MCP server\", or add its name to enabledMcpjsonServers in .claude/settings.local.json.".to_string(),
        ServerState::Disabled if first_key.ends_with("disabledMcpServers") => format!(
            "Disabled for this project by {by} (`claude mcp list` says \"Disabled for this project\"). To turn it back on: /mcp in Claude Code (select it, enable it), or remove its name from that list."
        ),
        // a managed file: the administrator's, never written by Claude Code
        ServerState::Disabled
            if c.decided_by.iter().any(|d| {
                d.key.ends_with("disabledMcpjsonServers") && d.layer.starts_with("managed")
            }) =>
        {
            format!(
                "Turned off by {by}: Claude Code neither starts nor lists it, and a disabled list wins over enabledMcpjsonServers and enableAllProjectMcpServers in every file. The managed settings are your administrator's (Claude Code never writes them, and no other file can turn it on): ask whoever administers this machine."
            )
        }
        // the shared project file or the user file: someone put it there
        ServerState::Disabled
            if c.decided_by.iter().any(|d| {
                d.key.ends_with("disabledMcpjsonServers") && matches!(d.layer, "project" | "user")
            }) =>
        {
            let start = format!(
                "Turned off by {by}: Claude Code neither starts nor lists it, and a disabled list wins over enabledMcpjsonServers and enableAllProjectMcpServers in every file. The approval dialog writes only .claude/settings.local.json (~/.claude.json's project entry is that list's old home, moved there at start-up), so a name in .claude/settings.json or ~/.claude/settings.json was put there on purpose (a shared project file may be your team's). To use it: remove its name from every list that holds it and approve it in the project"
            );
            let linked = hard_linked_lists(c, home);
            if linked.is_empty() {
                let fix = format!(
                    "mcplogs fix{} {}",
                    super::home_flags(homes),
                    crate::text::positional_word(
                        &name.map_or_else(|| "SERVER".to_string(), super::name_word)
                    )
                );
                format!(
                    "{start} ({} does both, approving it in this project's .claude/settings.local.json only), then restart Claude Code.",
                    crate::text::code_span(&fix)
                )
            } else {
                format!(
                    "{start}, then restart Claude Code. `mcplogs fix` cannot make this change: {}, and mcplogs does not edit hard-linked settings files (replacing one would leave the other names with the old content): take the name out by hand, or replace the extra links with symlinks.",
                    linked.join(" and ")
                )
            }
        }
        ServerState::Disabled => format!(
            "Turned off by {by}: Claude Code neither starts nor lists it, and this list outranks enabledMcpjsonServers and enableAllProjectMcpServers in every file (Claude Code writes it there when someone answers the approval question with Esc or \"Continue without\"). To use it: remove its name from that list (or run `claude mcp reset-project-choices`), then restart Claude Code."
        ),
        ServerState::Denied if first_key == "mcpServers" => format!(
            "The managed {by} takes exclusive control: Claude Code starts only the servers it lists. Ask your administrator."
        ),
        ServerState::Denied if first_key == "allowedMcpServers" => format!(
            "Not on the managed allow list ({by}): Claude Code neither starts nor lists it. Ask your administrator to allow it."
        ),
        ServerState::Denied => format!(
            "Denied by managed policy ({by}): Claude Code neither starts nor lists it. Ask your administrator."
        ),
        ServerState::Skipped(why) => skipped_way_out(
            why,
            &c.file
                .as_ref()
                .map(|f| {
                    let d = Decider { file: f.clone(), key: String::new(), layer: "" };
                    decider_text(&d, home).trim_end().to_string()
                })
                .unwrap_or_else(|| "its file".to_string()),
        ),
    }
}

/// The next step for an entry Claude Code skips (`why`, in `file`): `scan`'s, and
/// `explain`'s for the same line of `claude mcp list`.
pub fn skipped_way_out(why: &str, file: &str) -> String {
    format!(
        "Claude Code skips it: {why}. Fix it in {file} (`claude mcp list` names the problem under \"MCP config diagnostics\")."
    )
}

/// The short reason for a logged server that the configuration no longer starts, if so.
pub fn logged_note(s: &ServerReport, home: Option<&str>) -> Option<String> {
    match &s.configuration {
        Configuration::NotConfigured => Some("no longer configured (logs from before)".to_string()),
        // (`now denied by FILE KEY`: the row's verdict column holds the logs' verdict, so
        // the state is named here, helper-88 #12)
        Configuration::Configured(c) if !s.counts_now() => Some(match c.state {
            ServerState::Denied => format!("now denied {} (logs from before)", state_reason(c, home)),
            _ => format!("now {} (logs from before)", state_reason(c, home)),
        }),
        Configuration::Configured(c) if c.state == ServerState::PendingApproval => Some(
            "⏸ pending approval: interactive Claude Code asks first (these logs are from `claude -p` or `claude mcp list`, which start it unasked)".to_string(),
        ),
        Configuration::Configured(c) => entry_warning(s, c).map(str::to_string),
        _ => None,
    }
}

/// A warning about the entry worth a row's note: `"disabled": true` (which Claude Code
/// ignores), or an unset `${VAR}` when the server failed (Claude Code started it with the
/// text as written). Unset variables of a working server are not shown: the environment
/// Claude Code ran in may differ from the one mcplogs sees.
fn entry_warning<'a>(s: &ServerReport, c: &'a Configured) -> Option<&'a str> {
    c.warnings.iter().map(String::as_str).find(|w| {
        w.starts_with("\"disabled\": true")
            || (w.contains("is not set and has no default") && s.diagnosis.verdict.is_problem())
    })
}

/// The way out for a logged server the configuration no longer starts, if so (its
/// commands with `--home` for each of `homes`, as [`way_out_in`]).
pub fn logged_way_out(
    s: &ServerReport,
    home: Option<&str>,
    homes: &[std::path::PathBuf],
) -> Option<String> {
    match &s.configuration {
        // (`mcplogs prune` keeps a server's newest file and its deciding session's: it
        // never removes such a server's logs, which the advice said it could: helper-99
        // #5)
        Configuration::NotConfigured => Some(format!("Configured in none of ~/.claude.json, .mcp.json and managed-mcp.json (removed since, or a --mcp-config server): its logs are history and do not count as failing now. To remove them, delete its log folder {} (prune keeps each server's newest files).", s.source.display())),
        // (a configuration Claude Code skips is a problem now itself: its logs' verdict
        // is what does not count, helper-88 #6)
        Configuration::Configured(c) if !s.counts_now() => Some(format!(
            "{} Its logs are from before: their verdict does not count as failing now.",
            way_out_in(c, Some(&s.name), home, homes)
        )),
        Configuration::Configured(c) if c.state == ServerState::PendingApproval => {
            Some(way_out_in(c, Some(&s.name), home, homes))
        }
        Configuration::Configured(c) => entry_warning(s, c).map(|w| {
            if w.starts_with("\"disabled\"") {
                "Remove \"disabled\": true from the entry: Claude Code does not read it and starts the server. To turn the server off, use /mcp, or (for a .mcp.json server) its name in disabledMcpjsonServers of .claude/settings.local.json.".to_string()
            } else {
                format!("{w}: Claude Code started the server with the text as written (`claude mcp list` says \"Missing environment variables\"). Set the variable where Claude Code starts, or give it a default (`${{VAR:-default}}`).")
            }
        }),
        _ => None,
    }
}

/// What Claude Code does instead of starting `s` in the project, as a clause (`Claude
/// Code does not start it (disabled), by ~/.claude.json projects["/p"].disabledMcpServers`),
/// or `None` when it starts it (or asks first: `claude -p` starts it unasked).
fn not_started_clause(s: &ServerConfig, home: Option<&str>) -> Option<String> {
    let what = match &s.state {
        ServerState::Starts | ServerState::PendingApproval => return None,
        ServerState::Skipped(why) => format!("Claude Code skips it ({why})"),
        other => format!("Claude Code does not start it ({})", other.as_str()),
    };
    let by: Vec<String> = s.decided_by.iter().map(|d| decider_text(d, home)).collect();
    Some(if by.is_empty() {
        what
    } else {
        format!("{what}, by {}", by.join(" and "))
    })
}

/// `probe` without names leaves out a server Claude Code does not start in the
/// project: the line that says so, if `s` is one.
/// (`homes`: the `--home` the commands printed carry, helper-88 #12)
pub fn probe_left_out(
    s: &ServerConfig,
    home: Option<&str>,
    homes: &[std::path::PathBuf],
) -> Option<String> {
    not_started_clause(s, home).map(|why| {
        format!(
            "mcplogs: \"{}\": not probed: {why} in this project (`{}` says what to do)",
            s.name,
            super::scan_command(homes)
        )
    })
}

/// `probe NAME` of a server Claude Code does not start (or asks about first) in the
/// project: probed as named, and this line says the probe is not what Claude Code sees
/// there.
pub fn probe_named_note(
    s: &ServerConfig,
    home: Option<&str>,
    homes: &[std::path::PathBuf],
) -> Option<String> {
    if s.state == ServerState::PendingApproval {
        return Some(format!(
            "mcplogs: note: \"{}\": pending approval in this project: interactive Claude Code asks before starting it (`claude -p` starts it unasked); probing it as named",
            s.name
        ));
    }
    not_started_clause(s, home).map(|why| {
        format!(
            "mcplogs: note: \"{}\": {why} in this project; probing it as named, which is not what Claude Code does there (`{}` says what to do)",
            s.name,
            super::scan_command(homes)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `--since` row's command names the server as every printed command does
    /// ([`crate::advice::name_word`]): a name with an invisible character in the form
    /// the shell turns back into it (the screen shows the character escaped, so a plain
    /// quoted word did not select the server), a name holding a token quoted, with its
    /// tag.
    #[test]
    fn the_since_rows_command_runs_as_printed() {
        let row = |name: &str| ConfiguredRow {
            name: name.to_string(),
            configured_name: name.to_string(),
            project: "/p".into(),
            project_folder: "-p".into(),
            configured: Configured {
                state: ServerState::Starts,
                decided_by: Vec::new(),
                scope: Scope::Project,
                file: None,
                warnings: Vec::new(),
                transport: None,
                ignored: Vec::new(),
                unread: Vec::new(),
            },
            ran_since: None,
            last_session: Some("2026-12-06T04:00:00.000Z".into()),
            since: None,
            fix: None,
        };
        let text = row_way_out(&row("zw\u{200b}name"), None, &[]);
        assert!(
            text.contains("`mcplogs scan --server $'zw\\xe2\\x80\\x8bname'`"),
            "{text}"
        );
        let token = "ghp_Z9y8X7w6V5Z9y8X7w6V5Z9y8X7w6V5abcdef";
        let text = row_way_out(&row(token), None, &[]);
        let word = crate::advice::name_word(token);
        assert!(word.starts_with('\'') && word.contains('#'), "{word}");
        assert!(text.contains(&format!("--server {word}`")), "{text}");
    }
}
