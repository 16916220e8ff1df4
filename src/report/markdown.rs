//! The Markdown report. Its `###` sections are the labels of Claude Code's GitHub bug
//! form (`.github/ISSUE_TEMPLATE/bug_report.yml` in anthropics/claude-code: "What's
//! Wrong?", "What Should Happen?", "Error Messages/Logs", "Steps to Reproduce", "Claude
//! Code Version", "Operating System", "Additional Information"), which is how GitHub
//! lays out a submitted form, so the report pastes straight into an issue body. The
//! form's dropdowns mcplogs cannot know (model, regression, platform, terminal) are left
//! to the reporter.
//!
//! Every value taken from logs or settings goes into a code span or a fenced block, so
//! it renders as written (`<user>` would otherwise vanish as an HTML tag).

use super::{EvidenceItem, GITHUB_BODY_LIMIT, Report, ServerSection};
use crate::advice::Audience;
use crate::text::{pretty_message, terminal_safe};

/// An inline code span holding `s` exactly (one line; pipes escaped for table cells):
/// [`crate::text::markdown_code`].
pub fn code(s: &str) -> String {
    crate::text::markdown_code(s)
}

/// [`code`] outside a table (a list item, a heading): pipes kept as they are
/// ([`crate::text::markdown_code_outside_tables`]).
fn code_line(s: &str) -> String {
    crate::text::markdown_code_outside_tables(s)
}

/// Plain text that must not turn into HTML or break a table:
/// [`crate::text::markdown_text`].
pub fn text(s: &str) -> String {
    crate::text::markdown_text(s)
}

/// A fenced block that no line of `body` can close early.
pub fn fenced(body: &str, info: &str) -> String {
    // (the run counted in the body as it is shown)
    let body = terminal_safe(body, true);
    let fence = "`".repeat((crate::text::backtick_run(&body) + 1).max(3));
    let nl = if body.ends_with('\n') { "" } else { "\n" };
    format!("{fence}{info}\n{body}{nl}{fence}\n")
}

fn or_dash(v: Option<&str>) -> String {
    v.map(code).unwrap_or_else(|| "-".to_string())
}

/// The whole report, as it stands (see [`super::limit::fit`] for the size limit): for
/// the servers' authors when the failures are theirs (`server_author`), else Claude
/// Code's bug template.
pub fn render(r: &Report) -> String {
    render_capped(r, usize::MAX).unwrap_or_else(|whole| whole)
}

/// [`render`], or `None` once the text is sure to be longer than `limit` characters:
/// a render only adds text (the trailing white space trimmed at its end aside), and a
/// character is at most four bytes, so a text whose bytes, trailing white space left
/// out, pass four times the limit has passed it. On 100,000 servers the whole render
/// (tens of megabytes, only to learn it is too long) was a tenth of `report`.
pub fn render_within(r: &Report, limit: usize) -> Option<String> {
    render_capped(r, limit.saturating_mul(4)).ok()
}

/// [`render`] as far as `cap` bytes: the whole text and `true`, or, once the text has
/// passed `cap` bytes (trailing white space left out), what was made so far and `false`
/// (whole lines and more: a beginning of [`render`]'s text, for a caller that keeps only
/// its beginning).
pub fn render_prefix(r: &Report, cap: usize) -> (String, bool) {
    match render_capped(r, cap) {
        Ok(text) => (text, true),
        Err(prefix) => (prefix, false),
    }
}

/// Whether `out` has passed `cap` bytes, trailing white space left out.
fn past(out: &str, cap: usize) -> bool {
    out.len() > cap && out.trim_end().len() > cap
}

/// The text, or `Err` with what was made once it passed `cap` bytes.
fn render_capped(r: &Report, cap: usize) -> Result<String, String> {
    if r.audience() == Some(Audience::ServerAuthor) {
        return server_author(r, cap);
    }
    let mut out = String::new();
    out.push_str(&format!(
        "<!-- Written by mcplogs {} (mcplogs report). {} Read it once before posting. -->\n\n",
        r.versions.mcplogs,
        if r.is_redacted() {
            "Redacted: the home folder is shown as ~, the user name as <user>, secrets as [REDACTED:kind]."
        } else {
            "NOT REDACTED: home folders, user names and any secrets in the logs appear as they are."
        }
    ));

    if !what_is_wrong(r, &mut out, cap) {
        return Err(out);
    }
    what_should_happen(r, &mut out);
    if !logs(r, &mut out, cap) {
        return Err(out);
    }

    out.push_str("### Steps to Reproduce\n\n");
    out.push_str(&configured_steps(r));
    out.push_str("1. Start Claude Code in the project shown above with these servers configured (or run `claude mcp list` there).\n");
    out.push_str("2. <!-- Add what else you did. The logs above were written by Claude Code itself and collected with mcplogs. -->\n\n");

    out.push_str("### Claude Code Version\n\n");
    out.push_str(&format!("{}\n\n", claude_version(r)));
    out.push_str("### Operating System\n\n");
    out.push_str(&format!("{} ({})\n\n", r.versions.os, r.versions.arch));

    out.push_str("### Additional Information\n\n");
    environment(r, &mut out);
    verdict_table(r, &mut out);
    others(r, &mut out);
    settings(r, &mut out);
    claude_code_state(r, &mut out);
    recommendations(r, &mut out);
    if !r.warnings.is_empty() {
        out.push_str("#### Damaged or unreadable log files\n\n");
        for w in &r.warnings {
            out.push_str(&format!("- {}\n", code_line(w)));
        }
        out.push('\n');
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    Ok(out)
}

fn claude_version(r: &Report) -> String {
    match &r.versions.claude_code {
        Some(v) => code(v),
        None => "unknown: `claude --version` did not answer within a second; run it and add what it prints".to_string(),
    }
}

fn server_label(s: &ServerSection) -> String {
    match &s.project {
        Some(p) => format!("{} (project {})", code_line(&s.name), code_line(p)),
        None => code_line(&s.name),
    }
}

/// The first section; `false` as soon as `out` passes `cap` bytes (see [`past`]).
fn what_is_wrong(r: &Report, out: &mut String, cap: usize) -> bool {
    out.push_str("### What's Wrong?\n\n");
    let problems: Vec<&ServerSection> = r.reported_servers().collect();
    if problems.is_empty() {
        out.push_str(&format!(
            "mcplogs found no failing MCP server in Claude Code's logs ({} checked); see the table under Additional Information.\n\n",
            crate::text::count(r.servers.len(), "server")
        ));
        return true;
    }
    for s in problems {
        out.push_str(&format!(
            "- {}: {}: {}\n",
            server_label(s),
            code(&s.verdict_text()),
            text(&s.summary)
        ));
        if past(out, cap) {
            return false;
        }
    }
    out.push('\n');
    true
}

fn what_should_happen(r: &Report, out: &mut String) {
    out.push_str("### What Should Happen?\n\n");
    let names: Vec<String> = r.reported_servers().map(|s| code(&s.name)).collect();
    if names.is_empty() {
        out.push_str("Every MCP server connects and its tools are available.\n\n");
    } else {
        out.push_str(&format!(
            "{} should connect, and {} tools should be available in Claude Code.\n\n",
            names.join(", "),
            if names.len() == 1 { "its" } else { "their" }
        ));
    }
}

/// The logs section; `false` as soon as `out` passes `cap` bytes (see [`past`]).
fn logs(r: &Report, out: &mut String, cap: usize) -> bool {
    out.push_str("### Error Messages/Logs\n\n");
    if !r.omitted.is_empty() {
        out.push_str(&omitted_note(r));
    }
    let mut any = false;
    for s in r.reported_servers() {
        any = true;
        out.push_str(&format!(
            "#### {}: {}\n\n",
            code(&s.name),
            code(&s.verdict_text())
        ));
        server_records(s, out);
        if past(out, cap) {
            return false;
        }
    }
    if !any {
        out.push_str("No error records: no server failed.\n\n");
    }
    true
}

/// A server's evidence, then its stderr lines of the same session.
fn server_records(s: &ServerSection, out: &mut String) {
    if s.evidence.is_empty() {
        out.push_str("(no record left: see the note above)\n\n");
    }
    for e in &s.evidence {
        evidence(e, out);
    }
    if !s.stderr.is_empty() {
        out.push_str("Server stderr in the same session:\n\n");
        let lines: Vec<&str> = s.stderr.iter().map(|e| e.message.as_str()).collect();
        out.push_str(&fenced(&lines.join("\n"), "text"));
        out.push('\n');
    }
}

/// How each reported server is configured to start (redacted), as the first steps.
fn configured_steps(r: &Report) -> String {
    let mut out = String::new();
    let servers: Vec<&ServerSection> = r.reported_servers().collect();
    if servers.is_empty() {
        return out;
    }
    out.push_str("Configured servers (from Claude Code's configuration; environment and header values left out):\n\n");
    for s in servers {
        out.push_str(&format!("- {}: {}\n", code_line(&s.name), launch(r, s)));
    }
    out.push('\n');
    out
}

fn launch(r: &Report, s: &ServerSection) -> String {
    match &s.launch {
        Some(l) => code_line(l),
        // (a `~/.claude.json` that is not valid JSON says nothing of where it is not)
        // (each of the names is configured: helper-86 #9, it said none was)
        None if s.shared => "several configured servers, each named here, write one log folder: `claude mcp get NAME` in the project shows how each starts".to_string(),
        None if r.config_unreadable => "not known: `~/.claude.json` could not be read as JSON, so the servers it configures are not known".to_string(),
        None => "not found in `~/.claude.json` or this project's `.mcp.json` (a plugin's or claude.ai server, or configured elsewhere)".to_string(),
    }
}

/// Failing servers that are not this report's readers' concern, by name and whom they
/// concern; then the configurations Claude Code skips (the user's to fix: the exit code
/// is 1 for them, helper-88 #5).
fn others(r: &Report, out: &mut String) {
    let others: Vec<&ServerSection> = r.other_failing_servers().collect();
    let skipped: Vec<(&str, &str)> = r.config_errors().collect();
    if others.is_empty() && skipped.is_empty() {
        return;
    }
    out.push_str("#### Other servers to act on (not part of this report)\n\n");
    for s in others {
        let whose = match s.audience {
            Some(Audience::ServerAuthor) => {
                "for the server's authors: `mcplogs report --server NAME`"
            }
            Some(Audience::UserConfig) => "the user's own set-up",
            _ => "see `mcplogs scan`",
        };
        // the fix `scan` gives it, when `mcplogs fix` has one (named, not as a command
        // to run: the report's paths are redacted, its `--home` among them)
        let fix = s
            .fix_action
            .as_deref()
            .map(|cause| format!(": fixable with mcplogs fix ({})", text(cause)))
            .unwrap_or_default();
        out.push_str(&format!(
            "- {}: {} ({whose}){fix}\n",
            code(&s.name),
            code(&s.verdict_text())
        ));
    }
    for (name, _) in skipped {
        out.push_str(&format!(
            "- {}: {} (the user's own set-up: Claude Code skips its configuration)\n",
            code(name),
            code(crate::scan::configured::CONFIGURATION_ERROR)
        ));
    }
    out.push('\n');
}

/// The report for the authors of the failing servers: per server, what it sent, the
/// field to fix, and how to reproduce, one section each (each server's authors get
/// their own section, to paste into their tracker).
fn server_author(r: &Report, cap: usize) -> Result<String, String> {
    let mut out = String::new();
    out.push_str(&format!(
        "<!-- Written by mcplogs {} (mcplogs report) for the authors of these MCP servers: paste each server's section into its own tracker. {} Read it once before posting. -->\n\n",
        r.versions.mcplogs,
        if r.is_redacted() {
            "Redacted: the home folder is shown as ~, the user name as <user>, secrets as [REDACTED:kind]."
        } else {
            "NOT REDACTED: home folders, user names and any secrets in the logs appear as they are."
        }
    ));
    if !r.omitted.is_empty() {
        out.push_str(&omitted_note(r));
    }
    // a name two projects' sections hold is told apart by its project, as `scan`'s
    // table heads its groups (two like headings read as one server said twice)
    let mut names: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for s in r.reported_servers() {
        *names.entry(s.name.as_str()).or_default() += 1;
    }
    for s in r.reported_servers() {
        out.push_str(&format!(
            "## {}: Claude Code {} ({})\n\n",
            if names.get(s.name.as_str()).is_some_and(|n| *n > 1) {
                server_label(s)
            } else {
                code_line(&s.name)
            },
            match s.diagnosis.verdict {
                crate::classify::verdict::Verdict::ToolsFetchFailed => "rejects its tools/list",
                crate::classify::verdict::Verdict::Tolerated =>
                    "fills in what its tools/list result omits",
                crate::classify::verdict::Verdict::VersionUnsupported =>
                    "rejects its protocol version",
                _ => "cannot connect to it",
            },
            code(&s.verdict_text())
        ));
        out.push_str(&format!("{}\n\n", text(&s.summary)));
        out.push_str(&format!("**What to fix:** {}\n\n", what_to_fix(s)));
        if s.diagnosis
            .cause
            .is_some_and(|c| c.is_negotiation_field_error())
        {
            out.push_str("Until it is fixed, Claude Code users can work around it with `MCP_PROTOCOL_NEGOTIATION=legacy` (the older revision, for every server).\n\n");
        }
        out.push_str(&format!(
            "**Seen with:** Claude Code {} · era {} · protocol {} · {} seen, {} read, {} of them failed · last seen {}\n\n",
            r.versions.claude_code.as_deref().map(code).unwrap_or_else(|| "(version unknown: add what `claude --version` prints)".to_string()),
            s.diagnosis.era.map(|e| e.as_str()).unwrap_or("-"),
            or_dash(s.diagnosis.negotiated_protocol_version.as_deref()),
            crate::text::count(s.sessions, "session"),
            s.sessions_read,
            s.failed_sessions,
            or_dash(s.last_seen.as_deref()),
        ));
        out.push_str("### What Claude Code logged\n\n");
        server_records(s, &mut out);
        out.push_str("### Steps to Reproduce\n\n");
        out.push_str(&format!("1. Configure the server: {}\n", launch(r, s)));
        out.push_str(
            "2. Start Claude Code in a project with it, or check the server directly with `mcplogs probe --command 'COMMAND ARGS' --contract` (or `--url URL`), which replays Claude Code's handshake and names the field and build.\n\n"
        );
        if past(&out, cap) {
            return Err(out);
        }
    }
    let mut rest = String::new();
    others(r, &mut rest);
    out.push_str(&rest.replacen("#### ", "## ", 1));
    out.push_str(&format!(
        "<sub>{} on {} ({}).</sub>\n",
        code(&format!("mcplogs {}", r.versions.mcplogs)),
        code(&r.versions.os),
        code(&r.versions.arch)
    ));
    Ok(out)
}

/// The field (or answer) the server's authors must change, in one sentence.
fn what_to_fix(s: &ServerSection) -> String {
    use crate::classify::verdict::{Cause, Verdict};
    let revision = s
        .diagnosis
        .negotiated_protocol_version
        .as_deref()
        .map(code)
        .unwrap_or_else(|| "2026-07-28".to_string());
    match (s.diagnosis.verdict, s.diagnosis.cause) {
        (_, Some(Cause::InvalidToolDefinition)) => match &s.diagnosis.bad_tool_path {
            Some(p) => format!(
                "the tool definition at {}: Claude Code rejects the whole tools/list for it (an `inputSchema` must be a JSON Schema object with `\"type\": \"object\"`).",
                code(p)
            ),
            None => "a tool definition in tools/list (see the log below for the path).".to_string(),
        },
        (_, Some(Cause::MissingResultType)) => format!(
            "tools/list results must carry `resultType` under the revision the server negotiated ({revision})."
        ),
        (_, Some(Cause::MissingCacheFields)) => format!(
            "tools/list results must carry `ttlMs` (a number) and `cacheScope` (`\"public\"` or `\"private\"`) under the revision the server negotiated ({revision})."
        ),
        (_, Some(Cause::WrongFieldTypes)) => format!(
            "`ttlMs` must be a number and `cacheScope` one of `\"public\"` and `\"private\"` in tools/list results under {revision}."
        ),
        (Verdict::VersionUnsupported, _) => {
            "initialize must answer with a protocol version Claude Code proposed.".to_string()
        }
        (_, Some(Cause::ConnectionClosed))
            if s.diagnosis.transport == Some(crate::classify::verdict::Transport::Remote) =>
        {
            "the server closes the connection during start-up: the log below shows what it answered."
                .to_string()
        }
        (_, Some(Cause::ConnectionClosed)) => {
            "the server exits (or closes stdio) during start-up: its stderr below says why."
                .to_string()
        }
        (_, Some(Cause::ToolNameTooLong)) => crate::advice::tool_name_limit_rule(),
        (Verdict::Tolerated, _) => format!(
            "{} results must carry {} under the revision the server negotiated ({revision}): the Claude Code build that logged this fills them in; builds that do not fill them in reject the list.",
            if s.diagnosis.filled_lists.is_empty() {
                "tools/list".to_string()
            } else {
                s.diagnosis
                    .filled_lists
                    .iter()
                    .map(|l| format!("{l}/list"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            },
            if s.diagnosis.filled_fields.is_empty() {
                "every field that revision requires".to_string()
            } else {
                s.diagnosis
                    .filled_fields
                    .iter()
                    .map(|f| code(f))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ),
        _ => "the error the server returned (below).".to_string(),
    }
}

fn evidence(e: &EvidenceItem, out: &mut String) {
    let mut head = vec![code(&e.location)];
    if let Some(t) = &e.timestamp {
        head.push(code(t));
    }
    head.push(e.level.clone());
    out.push_str(&head.join(" · "));
    out.push_str("\n\n");
    out.push_str(&fenced(&pretty_message(&e.message), "text"));
    out.push('\n');
}

/// The fewest characters one entry of a server the report is about adds to the Markdown
/// (as [`render`] lays out a report for `audience`), whatever its values and however
/// they are redacted: the fixed text of its line in "What's Wrong?" (`- ``: ``: ` and
/// its line break), or of its section in a report for the servers' authors (the
/// headings and the steps to reproduce). `super::sections_within_reach` rests on it;
/// a test holds it against renders of servers whose values are all empty.
pub fn entry_floor(audience: Audience) -> usize {
    match audience {
        Audience::ServerAuthor => 256,
        _ => 11,
    }
}

/// The most servers [`omitted_note`] names.
pub(crate) const NOTE_NAMES: usize = 10;

/// The note saying what the size limit left out.
pub fn omitted_note(r: &Report) -> String {
    let mut note = String::new();
    let unnamed = r.omitted.unnamed;
    if !r.omitted.records.is_empty() || unnamed.servers > 0 {
        // The servers that lost the most first, and only the first few by name: a
        // report of thousands of servers named every one, and the note alone passed the
        // limit, so the cut that followed left nothing but the report's first line.
        // (The servers the report kept no section of are among the others: those of
        // them with the most are kept, `super::build_taking`.)
        let mut most: Vec<&(String, usize)> = r.omitted.records.iter().collect();
        most.sort_by_key(|r| std::cmp::Reverse(r.1));
        let (named, others) = most.split_at(most.len().min(NOTE_NAMES));
        let mut per: Vec<String> = named
            .iter()
            .map(|(name, n)| format!("{} from {}", n, code(name)))
            .collect();
        if !others.is_empty() || unnamed.servers > 0 {
            per.push(format!(
                "and {} from {}",
                others.iter().map(|(_, n)| n).sum::<usize>() + unnamed.records,
                crate::text::count(others.len() + unnamed.servers, "other server")
            ));
        }
        note.push_str(&format!(
            "> **Note:** {} {} left out to keep this report under GitHub's {}-character limit, servers' stderr lines first, then the oldest evidence ({}). `mcplogs report --json` has every record.\n\n",
            crate::text::count(r.omitted.total(), "log record"),
            crate::text::agree(r.omitted.total(), "was", "were"),
            thousands(GITHUB_BODY_LIMIT),
            per.join(", ")
        ));
    }
    if r.omitted.cut {
        note.push_str(&format!(
            "> **Note:** even without evidence this report was longer than {} characters, so its end was cut.\n\n",
            thousands(GITHUB_BODY_LIMIT)
        ));
    }
    note
}

pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn environment(r: &Report, out: &mut String) {
    out.push_str("#### Environment\n\n");
    out.push_str("| | |\n|---|---|\n");
    out.push_str(&format!("| mcplogs | {} |\n", code(&r.versions.mcplogs)));
    out.push_str(&format!("| Claude Code | {} |\n", claude_version(r)));
    out.push_str(&format!("| OS | {} |\n", code(&r.versions.os)));
    out.push_str(&format!("| Architecture | {} |\n", code(&r.versions.arch)));
    out.push_str(&format!(
        "| Redaction | {} |\n\n",
        if r.is_redacted() { "on" } else { "off" }
    ));
}

fn verdict_table(r: &Report, out: &mut String) {
    out.push_str("#### MCP servers\n\n");
    if r.servers.is_empty() && r.configured.is_empty() {
        out.push_str("No MCP server logs found.\n\n");
        return;
    }
    out.push_str("| Server | Project | Verdict | Era | Protocol | Sessions seen | Read | Failed (of read) | Last seen | Legacy fix applies |\n");
    out.push_str("|---|---|---|---|---|---|---|---|---|---|\n");
    for s in &r.servers {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            code(&s.name),
            or_dash(s.project.as_deref()),
            code(&s.verdict_text()),
            s.diagnosis.era.map(|e| e.as_str()).unwrap_or("-"),
            or_dash(s.diagnosis.negotiated_protocol_version.as_deref()),
            s.sessions,
            s.sessions_read,
            s.failed_sessions,
            or_dash(s.last_seen.as_deref()),
            if s.legacy_fix_applies { "yes" } else { "no" },
        ));
    }
    out.push('\n');
    if !r.configured.is_empty() {
        out.push_str("Configured, without a log (Claude Code did not start them):\n\n");
        out.push_str("| Server | Project | State | Why |\n|---|---|---|---|\n");
        for c in &r.configured {
            out.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                code(&c.name),
                text(&c.project),
                code(&c.state),
                text(&c.reason),
            ));
        }
        out.push('\n');
    }
}

fn settings(r: &Report, out: &mut String) {
    let st = &r.settings;
    out.push_str("#### MCP_PROTOCOL_NEGOTIATION settings\n\n");
    out.push_str(&format!(
        "Layers for project {}, highest precedence first (* = the layer that decides):\n\n",
        code(&st.project)
    ));
    out.push_str("| Layer | File | Status | Value |\n|---|---|---|---|\n");
    for l in &st.layers {
        let value = match (&l.value, l.in_effect) {
            (None, _) => "-".to_string(),
            (Some(v), true) => code(v),
            (Some(v), false) => format!("{} (not in effect)", code(v)),
        };
        out.push_str(&format!(
            "| {}{} | {} | {} | {} |\n",
            l.layer,
            if l.decides { " *" } else { "" },
            l.path
                .as_deref()
                .map(code)
                .unwrap_or_else(|| "(process environment)".to_string()),
            l.status,
            value
        ));
    }
    out.push('\n');
    for p in &st.problems {
        out.push_str(&format!("- Warning: {}\n", text(p)));
    }
    if !st.problems.is_empty() {
        out.push('\n');
    }
    out.push_str(&format!("Effective: {}\n\n", text(&st.effective_text)));
    let needing: Vec<String> = r
        .servers
        .iter()
        .filter(|s| s.legacy_fix_applies)
        .map(|s| code(&s.name))
        .collect();
    let applied = if st.legacy_applied {
        "**yes** (the effective value is `legacy`)".to_string()
    } else {
        format!(
            "**no** (the effective value is {})",
            st.effective_value
                .as_deref()
                .map(code)
                .unwrap_or_else(|| "not set".to_string())
        )
    };
    out.push_str(&format!(
        "Legacy fix (`MCP_PROTOCOL_NEGOTIATION=legacy`) applied: {applied}.\n"
    ));
    match (needing.is_empty(), st.legacy_applied) {
        (true, _) => out.push_str("No server in these logs needs it.\n\n"),
        (false, false) => out.push_str(&format!(
            "It would fix {}.\n\n",
            needing.join(", ")
        )),
        (false, true) => out.push_str(&format!(
            "Yet {} still negotiated the modern era in the logs shown: those sessions may predate the setting, or Claude Code was started with another configuration.\n\n",
            needing.join(", ")
        )),
    }
}

fn recommendations(r: &Report, out: &mut String) {
    out.push_str("#### Recommendations\n\n");
    let mut any = false;
    for s in r.servers.iter().filter(|s| {
        s.is_problem() || s.diagnosis.verdict == crate::classify::verdict::Verdict::Tolerated
    }) {
        any = true;
        out.push_str(&format!(
            "- {}: {}\n",
            code(&s.name),
            text(&s.recommendation)
        ));
    }
    if !any {
        out.push_str("Nothing to do.\n");
    }
    out.push('\n');
}

/// What Claude Code keeps on this machine that changes what it shows for MCP servers
/// (issue 54): said only when something is on, set or cached.
fn claude_code_state(r: &Report, out: &mut String) {
    let Some(m) = &r.machine_state else { return };
    if !m.discovery_cache_on
        && m.cache_entries == 0
        && m.switches.is_empty()
        && m.flags.is_empty()
        && m.notes.is_empty()
    {
        return;
    }
    out.push_str(
        "#### Claude Code's state on this machine

",
    );
    out.push_str(&format!(
        "- MCP discovery cache: {} ({} entr{})\n",
        text(&m.discovery_cache),
        m.cache_entries,
        if m.cache_entries == 1 { "y" } else { "ies" }
    ));
    for (name, value, set_in) in &m.switches {
        out.push_str(&format!(
            "- switch {} = {} ({})\n",
            code(name),
            code(value),
            text(set_in)
        ));
    }
    for (name, value, changes) in &m.flags {
        out.push_str(&format!(
            "- cached flag {} = {}: {}\n",
            code(name),
            code(value),
            text(changes)
        ));
    }
    for n in &m.notes {
        out.push_str(&format!("- {}\n", code_line(n)));
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_survive_backticks_and_pipes() {
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(code("x `y` z"), "``x `y` z``");
        assert_eq!(code("`q"), "`` `q ``");
        // outside a table a pipe stays as it is (a backslash would be shown)
        assert_eq!(code_line("a|b"), "`a|b`");
        assert_eq!(code_line("x `y|z`"), "`` x `y|z` ``");
    }

    #[test]
    fn fences_are_longer_than_any_backtick_run() {
        let f = fenced("a\n```\nb", "text");
        assert!(f.starts_with("````text\n"));
        assert!(f.ends_with("\n````\n"));
    }

    #[test]
    fn text_escapes_html() {
        assert_eq!(text("<user> a|b"), "\\<user\\> a\\|b");
    }

    #[test]
    fn thousands_separator() {
        assert_eq!(thousands(65536), "65,536");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000000), "1,000,000");
    }
}
