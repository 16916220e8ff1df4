//! `mcplogs explain`: verdicts for pasted `claude mcp list` output or one error message.
//!
//! `claude mcp list` prints `name: command args - <glyph> <status>`; the glyph varies by
//! platform and version (✓ ✔ ✗ ✘ × ! ⏸), the status may wrap onto its own line, and a
//! tools-fetch failure carries a multi-line zod error after it.

use std::sync::LazyLock;

use regex::Regex;

use crate::classify::verdict::{Cause, Diagnosis, Era, Verdict};
use crate::classify::{self, tools_failure_cause};
use crate::claude_code::markers::{
    CONFIG_DIAGNOSTICS_HEADING, CONFIG_FILE_ERROR, CONFIG_LOCATION, CONFIG_SKIPPED,
    WINDOWS_CMD_WRAPPER_MARKER,
};

const GLYPHS: &[char] = &['✓', '✔', '✗', '✘', '×', '!', '⚠', '⏸', '⊘'];

#[derive(Debug, Clone, PartialEq)]
pub struct ExplainEntry {
    /// The server name, when the pasted text has one.
    pub name: Option<String>,
    /// The command or URL `claude mcp list` showed.
    pub target: Option<String>,
    /// The status as printed (`✓ Connected`), or the pasted message itself.
    pub status: String,
    /// What followed the status: the error detail, zod issues included.
    pub detail: Option<String>,
    pub diagnosis: Diagnosis,
    /// A recommendation for statuses the log verdicts do not cover (pending approval).
    pub note: Option<String>,
    /// A configuration state instead of a verdict: `disabled` (`⊘ Disabled for this
    /// project`), `pending-approval` (`⏸ Pending approval`); the verdict is `unknown`.
    pub state: Option<&'static str>,
    /// What this machine's log of the server says, when `explain` looked
    /// ([`attach_local`]) and found it.
    pub local: Option<LocalEvidence>,
    /// For a configured server without a log here (a pasted disabled `.mcp.json`
    /// server): the command `scan` gives for it when the fix engine plans a change (its
    /// row's `fix`), so it counts as fixable as it does in `scan`.
    pub row_fix_command: Option<String>,
}

/// A failing server's own log on this machine, found for a pasted line by its name in
/// the project `claude mcp list` ran in: its last words on stderr and how its
/// configuration starts it (`claude mcp list` prints the command unquoted).
#[derive(Debug, Clone, PartialEq)]
pub struct LocalEvidence {
    /// The server's log folder.
    pub source: std::path::PathBuf,
    /// When that session's last record was written.
    pub last_seen: Option<String>,
    /// Its last lines on stderr in that session (as `scan`'s `stderrTail`).
    pub stderr_tail: Vec<String>,
    /// Its configured command or URL.
    pub launch: Option<crate::scan::configured::Launch>,
    /// For a stdio server that failed to connect: the exact command to run by hand, in
    /// its project folder (`scan`'s `runByHand`).
    pub run_by_hand: Option<String>,
    /// `scan`'s recommendation for the server, knowing its project's settings: the
    /// entry's, in place of one derived from the paste (issue 51).
    pub recommendation: String,
    /// `scan`'s `legacyFixApplies`: whether writing the legacy fix can take effect in
    /// the server's project.
    pub legacy_fix_applies: bool,
    /// The `mcplogs fix` command `scan` gives for the server (knowing its project's
    /// settings), when the legacy fix applies.
    pub fix_command: Option<String>,
    /// The command `scan` gives when the fix engine plans a change for the server
    /// (the resolution's [`crate::scan::ServerReport::fix`]): it counts as fixable.
    pub engine_fix_command: Option<String>,
    /// `scan`'s [`crate::scan::ServerReport::counts_now`]: false when the configuration
    /// no longer starts it (the paste is older than the change: Claude Code lists a
    /// server it does not start by its state, never as failing).
    pub counts_now: bool,
    /// `scan`'s [`crate::scan::ServerReport::config_error_now`]: Claude Code now skips
    /// it for an error in its configuration (a problem: the exit code is 1, as `scan`'s).
    pub config_error_now: bool,
}

impl ExplainEntry {
    /// Whether it fails now, as `scan` counts it: a problem verdict, of a server the
    /// configuration still starts when this machine's log of it was found (helper-88
    /// #7: a server disabled or removed since the paste was counted as failing, beside
    /// `scan`'s own advice saying its logs do not count).
    pub fn fails_now(&self) -> bool {
        self.diagnosis.verdict.is_problem() && self.local.as_ref().is_none_or(|l| l.counts_now)
    }

    /// Claude Code now skips it for an error in its configuration (its log found here).
    pub fn config_error_now(&self) -> bool {
        self.local.as_ref().is_some_and(|l| l.config_error_now)
    }

    /// What makes the exit code 1, as `scan`'s: it fails now, or Claude Code skips it
    /// for an error in its configuration (found here, or said by the paste's
    /// diagnostics).
    pub fn is_problem(&self) -> bool {
        self.fails_now()
            || self.config_error_now()
            || self.state == Some(crate::scan::configured::CONFIGURATION_ERROR)
    }

    /// The `mcplogs fix` command for this entry when the legacy fix applies: `scan`'s
    /// for a server whose log was found, else `mcplogs fix` with the folders the user
    /// named (`explain --home/--project`: the paste's server is not in any log here).
    pub fn fix_command_in(
        &self,
        homes: &[std::path::PathBuf],
        project: Option<&std::path::Path>,
    ) -> Option<String> {
        if !self.legacy_fix_applies() {
            return None;
        }
        match &self.local {
            Some(l) => l.fix_command.clone(),
            None => Some(crate::advice::unplaced_fix_command(homes, project).0),
        }
    }
}

impl ExplainEntry {
    /// The command of the fix engine's change `scan` gives for this entry's server, when
    /// its log was found and `mcplogs fix` plans one.
    pub fn engine_fix_command(&self) -> Option<&str> {
        match &self.local {
            Some(l) => l.engine_fix_command.as_deref(),
            None => self.row_fix_command.as_deref(),
        }
    }

    /// Whether the legacy fix applies: the log's answer (`scan`'s, knowing the
    /// project's settings) when the log was found, else the paste's.
    pub fn legacy_fix_applies(&self) -> bool {
        self.local.as_ref().map_or_else(
            || self.diagnosis.legacy_fix_applies(),
            |l| l.legacy_fix_applies,
        )
    }

    /// What to do, the legacy fix run as `mcplogs fix` in the project.
    pub fn recommendation(&self) -> String {
        self.recommendation_in(&[], None)
    }

    /// What to do, the commands carrying the home and project folders the user named
    /// (`explain --home/--project`).
    pub fn recommendation_in(
        &self,
        homes: &[std::path::PathBuf],
        project: Option<&std::path::Path>,
    ) -> String {
        if let Some(l) = &self.local {
            // the log decided the verdict: scan's own advice, never one of the paste
            return l.recommendation.clone();
        }
        let (fix, _) = crate::advice::unplaced_fix_command(homes, project);
        self.note
            .clone()
            .or_else(|| self.by_hand(homes))
            .or_else(|| {
                // a remote failure's advice names the server and its URL (`https://h/mcp
                // (HTTP)` as `claude mcp list` prints it)
                let url = self
                    .target
                    .as_deref()
                    .and_then(|t| t.split_whitespace().next())
                    .filter(|u| u.contains("://"));
                crate::advice::remote::remote_advice(&self.diagnosis, self.name.as_deref(), url)
            })
            .unwrap_or_else(|| crate::advice::diagnosis_recommendation_with(&self.diagnosis, &fix))
    }

    /// The command `claude mcp list` showed for a stdio server that failed to connect
    /// (never a URL), the one to run by hand; `None` otherwise.
    pub fn stdio_command(&self) -> Option<&str> {
        let d = &self.diagnosis;
        if d.verdict != Verdict::ConnectionFailed || d.cause == Some(Cause::NeedsAuth) {
            return None;
        }
        self.target
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty() && !t.contains("://"))
    }

    /// For a stdio server that failed to connect: run its command by hand first (the
    /// configured one, quoted, when this machine's log of it was found).
    fn by_hand(&self, homes: &[std::path::PathBuf]) -> Option<String> {
        let command = self.stdio_command()?;
        let then = crate::advice::connection_failure_why(&self.diagnosis);
        if let Some(exact) = self.local.as_ref().and_then(|l| l.run_by_hand.as_deref()) {
            return Some(format!(
                "Run its command by hand and read its stderr (a working server waits for input: stop it with Ctrl-C): {}. {then}",
                crate::text::code_span(exact)
            ));
        }
        let home = crate::advice::home_flags(homes);
        let scan = match &self.name {
            Some(n) => crate::text::code_span(&format!(
                "mcplogs scan{home} {} -v",
                crate::text::option_word("--server", &crate::advice::name_word(n))
            )),
            None => format!("`mcplogs scan{home} -v`"),
        };
        Some(format!(
            "Run its command by hand in the project folder and read its stderr (a working server waits for input: stop it with Ctrl-C): {command} (as `claude mcp list` prints it, arguments unquoted: quote any that hold spaces or shell characters). {scan} in the project shows its configured command quoted, and the last lines it wrote on stderr in Claude Code's log. {then}"
        ))
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExplainReport {
    pub entries: Vec<ExplainEntry>,
    /// The home folders the user named (`--home`): the commands printed carry them.
    pub homes: Vec<std::path::PathBuf>,
    /// The project folder the user named (`--project`): the commands printed carry it.
    pub project: Option<std::path::PathBuf>,
}

impl ExplainReport {
    pub fn has_problems(&self) -> bool {
        self.entries.iter().any(ExplainEntry::is_problem)
    }
}

static ENTRY_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([^\s:][^:]*?):\s+(.*)$").expect("regex"));
static STATUS_IN_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\s-\s+([✓✔✗✘×!⚠⏸⊘])\s*(.*)$").expect("regex"));

struct Partial {
    name: Option<String>,
    target: Option<String>,
    status: Option<String>,
    detail_lines: Vec<String>,
}

/// Removes terminal escape sequences (colour and cursor CSI, OSC titles and links, other
/// two-character escapes) so that output copied from a colour terminal, or captured with
/// `script`, parses like plain text. Carriage returns of CRLF line ends go too.
pub fn strip_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters and intermediates, then one final byte @..~.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC (and DCS, SOS, PM, APC): up to BEL or ESC \.
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' {
                            if chars.peek() == Some(&'\\') {
                                chars.next();
                            }
                            break;
                        }
                    }
                }
                // nF escapes (`ESC ( B` charset selection): intermediates, then a final.
                Some(' '..='/') => {
                    for c in chars.by_ref() {
                        if !(' '..='/').contains(&c) {
                            break;
                        }
                    }
                }
                _ => {}
            },
            // The 8-bit CSI.
            '\u{9b}' => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            c => out.push(c),
        }
    }
    out
}

/// Whether pasted text without any `claude mcp list` status line is a message mcplogs
/// knows: one of its lines is a record the classifier reads, or names an MCP server.
fn recognised_message(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        classify::read_signal(l).is_some()
            || crate::logs::decode::split_mcp_prefix(l).is_some()
            || l.contains("Failed to connect")
            || l.contains("tools fetch failed")
    })
}

pub fn explain(text: &str) -> ExplainReport {
    explain_in(text, &[])
}

/// [`explain`], the commands its notes print carrying the home folders the user named
/// (`explain --home`), so they read the same logs when run as printed; the report's
/// `homes` are those.
pub fn explain_in(text: &str, homes: &[std::path::PathBuf]) -> ExplainReport {
    let stripped = strip_escapes(text);
    let text = stripped.as_str();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut partials: Vec<Partial> = Vec::new();
    // `[Warning] ... Windows requires 'cmd /c' wrapper to execute npx`: about a server,
    // not one of its own (its `word: rest` shape would read as one)
    let mut cmd_wrapper_warnings: Vec<String> = Vec::new();
    // After `MCP config diagnostics`: no more servers, but the files' problems (helper-88
    // #8: its link line read as a server, the entries it skips were left out)
    let mut diagnostics: Option<Diagnostics> = None;
    let mut skipped: Vec<Skipped> = Vec::new();
    for raw in text.lines() {
        let line = raw.trim_end();
        let trimmed = line.trim_start();
        if trimmed.starts_with("Checking MCP server health") {
            // another listing pasted after this one's diagnostics: servers again
            // (helper-89 #4: they were dropped)
            diagnostics = None;
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        if trimmed.contains(WINDOWS_CMD_WRAPPER_MARKER) {
            cmd_wrapper_warnings.push(trimmed.to_string());
            continue;
        }
        if trimmed.starts_with(CONFIG_DIAGNOSTICS_HEADING) {
            diagnostics.get_or_insert_with(Diagnostics::default);
            continue;
        }
        if let Some(d) = diagnostics.as_mut() {
            // (a server's line, status and all, ends the section too)
            let server_line = !line.starts_with(char::is_whitespace)
                && ENTRY_LINE
                    .captures(line)
                    .is_some_and(|c| STATUS_IN_LINE.is_match(&c[2]));
            if !server_line {
                d.read(trimmed, &mut skipped);
                continue;
            }
            diagnostics = None;
        }
        if trimmed.starts_with(GLYPHS) && !trimmed.starts_with("!=") {
            // A status on its own line: wrapped from the entry above, or pasted alone.
            match partials.last_mut() {
                Some(p) if p.status.is_none() => p.status = Some(trimmed.to_string()),
                _ => partials.push(Partial {
                    name: None,
                    target: None,
                    status: Some(trimmed.to_string()),
                    detail_lines: Vec::new(),
                }),
            }
            continue;
        }
        let entry_caps = ENTRY_LINE
            .captures(line)
            .filter(|_| !line.starts_with(char::is_whitespace));
        let has_status = entry_caps
            .as_ref()
            .is_some_and(|c| STATUS_IN_LINE.is_match(&c[2]));
        let starts_entry = entry_caps.is_some()
            && (has_status
                || (partials.last().is_none_or(|p| p.status.is_some())
                    && !looks_like_message(line)));
        if starts_entry {
            let caps = ENTRY_LINE.captures(line).expect("matched");
            let rest = &caps[2];
            let (target, status) = match STATUS_IN_LINE.captures(rest) {
                Some(s) => (
                    rest[..s.get(0).expect("group 0").start()]
                        .trim()
                        .to_string(),
                    Some(format!("{} {}", &s[1], &s[2]).trim().to_string()),
                ),
                // The status wrapped onto the next line, maybe leaving its ` -` here.
                None => (
                    rest.trim()
                        .strip_suffix(" -")
                        .unwrap_or(rest.trim())
                        .to_string(),
                    None,
                ),
            };
            partials.push(Partial {
                name: Some(caps[1].to_string()),
                target: Some(target),
                status,
                detail_lines: Vec::new(),
            });
            continue;
        }
        match partials.last_mut() {
            Some(p) if p.status.is_some() => p.detail_lines.push(line.to_string()),
            Some(p) => {
                // The target itself wrapped.
                let t = p.target.get_or_insert_with(String::new);
                t.push(' ');
                t.push_str(trimmed);
            }
            None => partials.push(Partial {
                name: None,
                target: None,
                status: None,
                detail_lines: vec![line.to_string()],
            }),
        }
    }

    let mut entries: Vec<ExplainEntry> = if partials.iter().any(|p| p.status.is_some()) {
        partials
            .into_iter()
            .filter(|p| p.status.is_some() || p.name.is_some())
            .map(|p| entry_from_status(p, homes))
            .collect()
    } else if !cmd_wrapper_warnings.is_empty() || !skipped.is_empty() {
        Vec::new()
    } else {
        // No status line anywhere: a single pasted error message, if it is one.
        let message = text.trim().to_string();
        if message.is_empty() || !recognised_message(&message) {
            Vec::new()
        } else {
            vec![entry_from_message(message, homes)]
        }
    };
    cmd_wrapper_warnings_placed(&mut entries, cmd_wrapper_warnings);
    entries.extend(skipped.into_iter().map(Skipped::entry));
    ExplainReport {
        entries,
        homes: homes.to_vec(),
        ..ExplainReport::default()
    }
}

/// Reading what `claude mcp list` says under [`CONFIG_DIAGNOSTICS_HEADING`]: the file
/// the lines are about (each entry it skips is taken with why and in which file).
#[derive(Default)]
struct Diagnostics {
    location: Option<String>,
}

struct Skipped {
    name: String,
    why: String,
    file: Option<String>,
}

impl Diagnostics {
    /// One line of the section (trimmed): a `Location:`, a skipped entry's warning, or
    /// something else (the link, a group's heading, a missing variable: no skip).
    fn read(&mut self, line: &str, skipped: &mut Vec<Skipped>) {
        if let Some(file) = line.strip_prefix(CONFIG_LOCATION) {
            self.location = Some(file.trim().to_string());
            return;
        }
        // ` ├ [Warning] [name] mcpServers.name: Skipped — why` (before a file's
        // `[Error]`, whose tag an entry's line may carry too: helper-90 #7)
        if let Some((head, why)) = line.split_once(CONFIG_SKIPPED) {
            if let Some(name) = head
                .split_once("] [")
                .and_then(|(_, rest)| rest.split_once("] "))
                .map(|(name, _)| name)
            {
                skipped.push(Skipped {
                    name: name.to_string(),
                    why: why.trim().to_string(),
                    file: self.location.clone(),
                });
            }
            return;
        }
        // ` └ [Error] MCP config is not a valid JSON`: the whole file is skipped, a row
        // named by the file as `scan` names it (`.mcp.json`)
        if let Some(why) = line.split_once(CONFIG_FILE_ERROR).map(|(_, w)| w.trim())
            && let Some(file) = &self.location
        {
            let name = std::path::Path::new(file)
                .file_name()
                .map_or_else(|| file.clone(), |n| n.to_string_lossy().into_owned());
            skipped.push(Skipped {
                name,
                why: why.to_string(),
                file: Some(file.clone()),
            });
        }
    }
}

impl Skipped {
    /// The entry of a server Claude Code skips: its state, as `scan` gives a
    /// configuration error, and the same next step.
    fn entry(self) -> ExplainEntry {
        let file = self.file.as_deref().unwrap_or("its configuration file");
        ExplainEntry {
            name: Some(self.name),
            target: None,
            status: format!("Skipped — {}", self.why),
            detail: None,
            diagnosis: Diagnosis::new(Verdict::Unknown),
            note: Some(crate::advice::configured::skipped_way_out(&self.why, file)),
            state: Some(crate::scan::configured::CONFIGURATION_ERROR),
            local: None,
            row_fix_command: None,
        }
    }
}

/// Puts each `cmd /c` warning on the entry of the server it names (the longest name
/// found in it as a whole word; of equal ones, the last entry), or on an entry of its
/// own when it names none of them. A warning placed on an entry goes before what its
/// detail held, so the last one placed comes first. The names are searched for all at
/// once in each warning (one automaton), and each entry's detail is made once, so the
/// work grows with the paste, not with warnings times entries.
fn cmd_wrapper_warnings_placed(entries: &mut Vec<ExplainEntry>, warnings: Vec<String>) {
    if warnings.is_empty() {
        return;
    }
    // Each name once, with the last entry that has it (the one the longest-name rule
    // picks among equals).
    let mut last_with: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(n) = e.name.as_deref().filter(|n| !n.is_empty()) {
            last_with.insert(n, i);
        }
    }
    let names: Vec<(&str, usize)> = last_with.into_iter().collect();
    let finder =
        aho_corasick::AhoCorasick::new(names.iter().map(|(n, _)| n)).expect("server names compile");
    let word = |c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | '.');
    let mut placed: Vec<(usize, String)> = Vec::new();
    let mut alone: Vec<String> = Vec::new();
    for warning in warnings {
        let best = finder
            .find_overlapping_iter(warning.as_str())
            .filter(|m| {
                !warning[..m.start()].ends_with(word) && !warning[m.end()..].starts_with(word)
            })
            .map(|m| names[m.pattern().as_usize()])
            .max_by_key(|&(n, i)| (n.len(), i))
            .map(|(_, i)| i);
        match best {
            Some(i) => placed.push((i, warning)),
            None => alone.push(warning),
        }
    }
    let mut on: std::collections::HashMap<usize, Vec<String>> = std::collections::HashMap::new();
    for (i, w) in placed {
        on.entry(i).or_default().push(w);
    }
    for (i, mut ws) in on {
        let e = &mut entries[i];
        e.note = Some(crate::advice::windows_cmd_wrapper_note(e.name.as_deref()));
        ws.reverse();
        ws.extend(e.detail.take());
        e.detail = Some(ws.join("\n"));
    }
    entries.extend(alone.into_iter().map(|warning| ExplainEntry {
        name: None,
        target: None,
        status: crate::text::one_line(&warning, STATUS_CHARS),
        detail: Some(warning),
        diagnosis: Diagnosis::new(Verdict::Unknown),
        note: Some(crate::advice::windows_cmd_wrapper_note(None)),
        state: None,
        local: None,
        row_fix_command: None,
    }));
}

/// Log messages such as `Connection failed: ...` or `Failed to fetch tools: ...` also
/// have the `word: rest` shape; they are messages, not server lines.
fn looks_like_message(line: &str) -> bool {
    classify::read_signal(line).is_some()
        || line.starts_with("Error")
        || line.starts_with("MCP server \"")
}

fn entry_from_status(p: Partial, homes: &[std::path::PathBuf]) -> ExplainEntry {
    let status_line = p.status.unwrap_or_default();
    // `! Connected · tools fetch failed — detail`: split the detail off the status.
    let (status, first_detail) = match status_line.find(" — ") {
        Some(i) => (
            status_line[..i].trim().to_string(),
            Some(status_line[i + " — ".len()..].to_string()),
        ),
        None => (status_line.trim().to_string(), None),
    };
    let mut detail_parts: Vec<String> = first_detail.into_iter().collect();
    detail_parts.extend(p.detail_lines);
    let detail = if detail_parts.is_empty() {
        None
    } else {
        Some(detail_parts.join("\n").trim().to_string())
    };
    let d = detail.as_deref().unwrap_or("");
    let mut note = None;
    let mut state = None;
    let diagnosis = if status.contains("tools fetch failed") {
        let (cause, bad_tool_path) = tools_failure_cause(d);
        let mut diag = Diagnosis::new(Verdict::ToolsFetchFailed);
        diag.bad_tool_path = bad_tool_path;
        if cause == Cause::Other && detail_is_cut(d) {
            // The part that would say which field failed is not there: no cause, and
            // no claim about the legacy setting either way. A bare status line (no
            // detail at all) is what `claude mcp list` printed, not a cut paste.
            note = Some(if d.trim().is_empty() {
                crate::advice::status_only_note(p.name.as_deref(), homes)
            } else {
                crate::advice::cut_detail_note(p.name.as_deref(), homes)
            });
            return ExplainEntry {
                name: p.name,
                target: p.target.filter(|t| !t.is_empty()),
                status,
                detail,
                diagnosis: diag,
                note,
                state: None,
                local: None,
                row_fix_command: None,
            };
        }
        diag.cause = Some(cause);
        if cause.is_negotiation_field_error() {
            diag.era = Some(Era::Modern);
        }
        diag
    } else if status.contains("Needs authentication") {
        Diagnosis {
            cause: Some(Cause::NeedsAuth),
            ..Diagnosis::new(Verdict::ConnectionFailed)
        }
    } else if status.contains("Failed to connect") || status.starts_with(['✗', '✘', '×']) {
        if d.trim().is_empty() {
            // `claude mcp list` says no more; the server's own log does.
            note = Some(format!(
                "`claude mcp list` does not say why. The server's log does: run {}.",
                crate::advice::scan_server(p.name.as_deref(), homes)
            ));
        }
        let failure = classify::classify(&[format!("Connection failed: {d}")]);
        if failure.verdict == Verdict::VersionUnsupported {
            Diagnosis::new(Verdict::VersionUnsupported)
        } else {
            Diagnosis {
                cause: failure.cause.or(Some(Cause::Other)),
                ..Diagnosis::new(Verdict::ConnectionFailed)
            }
        }
    } else if status.contains("Disabled") || status.starts_with('⊘') {
        state = Some("disabled");
        note = Some(crate::advice::disabled_for_project(homes));
        Diagnosis::new(Verdict::Unknown)
    } else if status.contains("Pending approval") {
        state = Some("pending-approval");
        note = Some(crate::advice::PENDING_APPROVAL.to_string());
        Diagnosis::new(Verdict::Unknown)
    } else if status.contains("Connected") {
        Diagnosis::new(Verdict::Healthy)
    } else {
        Diagnosis::new(Verdict::Unknown)
    };
    ExplainEntry {
        name: p.name,
        target: p.target.filter(|t| !t.is_empty()),
        status,
        detail,
        diagnosis,
        note,
        state,
        local: None,
        row_fix_command: None,
    }
}

/// Whether a pasted error detail was cut short: it ends in `...` or `…`, ends at a
/// colon, or opens more brackets or braces than it closes (a zod array cut mid-way).
fn detail_is_cut(detail: &str) -> bool {
    let d = detail.trim();
    let opened = d.matches(['[', '{']).count();
    let closed = d.matches([']', '}']).count();
    d.is_empty() || d.ends_with("...") || d.ends_with('…') || d.ends_with(':') || opened > closed
}

/// How much of a pasted message's first line is its status.
const STATUS_CHARS: usize = 120;

fn entry_from_message(message: String, homes: &[std::path::PathBuf]) -> ExplainEntry {
    // A pasted debug-log line may carry the `MCP server "name":` prefix.
    let (name, body) = match crate::logs::decode::split_mcp_prefix(&message) {
        Some((n, b)) => (Some(n.to_string()), b.to_string()),
        None => (None, message.clone()),
    };
    let mut diagnosis = classify::classify(&[body.as_str()]);
    let mut note = None;
    if diagnosis.verdict == Verdict::ToolsFetchFailed
        && diagnosis.cause == Some(Cause::Other)
        && detail_is_cut(
            body.split_once("tools/list")
                .map_or(body.as_str(), |(_, d)| d),
        )
    {
        diagnosis.cause = None;
        note = Some(crate::advice::cut_detail_note(name.as_deref(), homes));
    }
    ExplainEntry {
        name,
        target: None,
        status: crate::text::one_line(&body, STATUS_CHARS),
        detail: Some(body),
        diagnosis,
        note,
        state: None,
        local: None,
        row_fix_command: None,
    }
}

/// Whether `explain` should look for this machine's log of the entries: some entry
/// names a server (whatever its pasted status: the log's verdict is the one that
/// counts).
pub fn wants_local(report: &ExplainReport) -> bool {
    report
        .entries
        .iter()
        .any(|e| wants_local_entry(e) || (e.name.is_some() && e.state == Some("disabled")))
}

/// A named server line with a status (a configuration state, `disabled` or `pending
/// approval`, is what Claude Code says now, not a verdict: it stays the paste's).
fn wants_local_entry(e: &ExplainEntry) -> bool {
    e.name.is_some() && e.state.is_none()
}

/// Gives each named entry its server's log in `project` (the folder `claude mcp list`
/// ran in) from `scan`, a scan of this machine's logs with their configuration and
/// settings joined, as `mcplogs scan` makes it: the server of that name (or log folder
/// name) whose logs ran in `project`. Where one is found, its verdict, cause and advice
/// are the scan's, taken whole (one resolution, never derived again from the paste,
/// which keeps only its `status` and `detail`); the paste decides only where no log is.
/// What Claude Code's `claude mcp list` shows of a verdict: connected (the tools it
/// loaded, some filled in or lost), tools fetch failed, failed to connect; `None` for
/// what it does not show as one of these.
fn shown_by_mcp_list(v: Verdict) -> Option<u8> {
    match v {
        Verdict::Healthy | Verdict::Tolerated | Verdict::Degraded => Some(0),
        Verdict::ToolsFetchFailed => Some(1),
        Verdict::VersionUnsupported | Verdict::ConnectionFailed => Some(2),
        Verdict::Unknown => None,
    }
}

/// Whether a log's verdict refines the pasted one (the same thing shown, with its
/// cause: `tolerated` for a "✔ Connected", `missing-resultType` for a "tools fetch
/// failed"), rather than contradicting it.
fn log_refines_paste(pasted: Verdict, logged: Verdict) -> bool {
    match shown_by_mcp_list(pasted) {
        None => true,
        shown => shown == shown_by_mcp_list(logged),
    }
}

/// The names of `report`'s entries read again against the servers `scan` knows:
/// `claude mcp list` prints `name: command - status`, and a name may hold `": "` itself
/// (`x: y`, configured and run by Claude Code), which the paste's reading cut at its
/// first one (helper-99 #6: `x` was explained, a server that does not exist). An entry
/// named `x` whose target starts with `y: ` takes the known name `x: y` (the longest).
fn rejoin_names(report: &mut ExplainReport, scan: &crate::scan::ScanReport) {
    let known: Vec<&str> = scan
        .servers
        .iter()
        .map(|s| s.name_as_read())
        .chain(scan.configured.iter().map(|r| r.configured_name.as_str()))
        .filter(|n| n.contains(": "))
        .collect();
    if known.is_empty() {
        return;
    }
    for e in &mut report.entries {
        let (Some(name), Some(target)) = (e.name.as_deref(), e.target.as_deref()) else {
            continue;
        };
        let whole = format!("{name}: {target}");
        let Some(k) = known
            .iter()
            .filter(|k| {
                k.len() > name.len()
                    && whole.starts_with(*k)
                    && whole[k.len()..].starts_with(": ")
                    && k.starts_with(name)
            })
            .max_by_key(|k| k.len())
        else {
            continue;
        };
        let rest = whole[k.len() + 2..].to_string();
        e.name = Some(k.to_string());
        e.target = Some(rest);
    }
}

pub fn attach_local(
    report: &mut ExplainReport,
    scan: &crate::scan::ScanReport,
    project: &std::path::Path,
) {
    use crate::scan::select::NameWant;
    rejoin_names(report, scan);
    let project = project.to_string_lossy();
    // Each entry's name as pasted (the real name `claude mcp list` prints: the paste is
    // redacted after this) selects a server as every command selects one (the real name
    // or its printed form: a logged name, and a configured row's shown name, hold the
    // printed form in a redacted scan; a row keeps the real one to match)
    let names: Vec<(String, NameWant)> = report
        .entries
        .iter()
        .map(|e| {
            let name = e.name.clone().unwrap_or_default();
            let want = NameWant::new(&name);
            (name, want)
        })
        .collect();
    // (`selects` is `server_matches` of the name given, or its printed form)
    // (the name and project as read too: one holding a secret is shown redacted, and
    // the paste names it whole)
    let logged_exactly = |s: &crate::scan::ServerReport, (_, want): &(String, NameWant)| {
        s.project_as_read() == Some(project.as_ref())
            && (want.selects(&s.name, s.folder.as_deref())
                || want.selects(s.name_as_read(), s.folder_as_read()))
    };
    // a name holding a terminal escape reads as the paste parser left it (the escape
    // stripped, [`strip_escapes`]), and is selected so as `--server` selects it
    let logged_stripped = |s: &crate::scan::ServerReport, (_, want): &(String, NameWant)| {
        s.project_as_read() == Some(project.as_ref())
            && pasted_form(s.name_as_read()).is_some_and(|n| want.selects(&n, None))
    };
    // the server of that name: as pasted, else one whose name the paste stripped
    let find_logged = |n: &(String, NameWant),
                       extra: &dyn Fn(&crate::scan::ServerReport) -> bool|
     -> Option<&crate::scan::ServerReport> {
        scan.servers
            .iter()
            .find(|s| logged_exactly(s, n) && extra(s))
            .or_else(|| {
                scan.servers
                    .iter()
                    .find(|s| logged_stripped(s, n) && extra(s))
            })
    };
    let logged = |s: &crate::scan::ServerReport, n: &(String, NameWant)| {
        logged_exactly(s, n) || logged_stripped(s, n)
    };
    let configured_row = |r: &crate::scan::configured::ConfiguredRow,
                          (name, want): &(String, NameWant)| {
        r.project == project.as_ref()
            && (want.is(&r.configured_name)
                || r.name == *name
                || pasted_form(&r.configured_name).is_some_and(|n| want.is(&n)))
    };
    for (e, n) in report
        .entries
        .iter_mut()
        .zip(&names)
        .filter(|(e, _)| wants_local_entry(e))
    {
        let Some(s) = find_logged(n, &|_| true) else {
            continue;
        };
        if !log_refines_paste(e.diagnosis.verdict, s.diagnosis.verdict) {
            // The log says otherwise than what Claude Code showed now: it is another
            // session's (`claude mcp list` itself writes a log that can read healthy
            // while it prints "tools fetch failed"; observed on 2.1.288 and 2.1.332).
            // The paste decides.
            continue;
        }
        e.diagnosis = s.diagnosis.clone();
        e.local = Some(local_evidence(s, &scan.homes));
        // named as scan names it (the paste lost the escape)
        if !logged_exactly(s, n) {
            e.name = Some(s.name.clone());
        }
    }
    // a pasted "⊘ Disabled" server configured here: the file and key that disable it
    // (a `.mcp.json` server's list is `disabledMcpjsonServers`, a user or local one's
    // `disabledMcpServers`), as `scan` names them
    for (e, n) in report
        .entries
        .iter_mut()
        .zip(&names)
        .filter(|(e, _)| e.state == Some("disabled"))
    {
        let name = n.0.as_str();
        // logged, and disabled now as the paste says: scan's resolution of it whole (its
        // next step, `mcplogs fix` when the fix engine enables it, counted as fixable),
        // its log from before; the state stays the paste's (a disabled server does not
        // fail, in scan either)
        if let Some(s) = find_logged(n, &|s| {
            matches!(&s.configuration,
                crate::scan::configured::Configuration::Configured(c)
                    if crate::advice::configured::state_label(c) == "disabled")
        }) {
            e.local = Some(LocalEvidence {
                // it does not start now: running it by hand is not the next step
                run_by_hand: None,
                ..local_evidence(s, &scan.homes)
            });
            if !logged_exactly(s, n) {
                e.name = Some(s.name.clone());
            }
            continue;
        }
        // without a log: the row's action as scan gives it (`mcplogs fix` enabling a
        // `.mcp.json` server), else the file and key that disable it
        if let Some((r, a)) = scan
            .configured
            .iter()
            .filter(|r| configured_row(r, n))
            .filter(|r| crate::advice::configured::state_label(&r.configured) == "disabled")
            .find_map(|r| Some((r, crate::advice::row_fix_action(r).filter(|a| a.planned)?)))
        {
            e.note = Some(a.text);
            e.row_fix_command = r.fix.as_deref().map(|f| f.command.to_string());
            if pasted_form(&r.configured_name).is_some() {
                e.name = Some(r.configured_name.clone());
            }
            continue;
        }
        // each with its real name: the paste's, or the one whose escape it lost
        let row = scan
            .configured
            .iter()
            .filter(|r| configured_row(r, n))
            .map(|r| (r.configured_name.as_str(), &r.configured))
            .chain(
                scan.servers
                    .iter()
                    .filter(|s| logged(s, n))
                    .filter_map(|s| match &s.configuration {
                        crate::scan::configured::Configuration::Configured(c) => {
                            Some((s.name.as_str(), &**c))
                        }
                        _ => None,
                    }),
            )
            .find(|(_, c)| crate::advice::configured::state_label(c) == "disabled");
        if let Some((real, c)) = row {
            let name = if pasted_form(real).is_some() {
                e.name = Some(real.to_string());
                real
            } else {
                name
            };
            // named as printed (a name holding a secret redacted, with its tag), so
            // the command in the note names it
            let printed = crate::scan::select::printed(name);
            e.note = Some(crate::advice::configured::way_out_in(
                c,
                Some(&printed),
                None,
                &report.homes,
            ));
        }
    }
}

/// For `explain` without `--project`: each named entry [`attach_local`] found no server
/// for in `here` (the working folder, taken as the one `claude mcp list` ran in) is
/// looked up in `scan`, a scan of every project (resolved as `mcplogs scan` run here
/// resolves it), by its name as every command selects a server. Logged in one project
/// only, that server is the one: its verdict, cause and advice are scan's, as
/// [`attach_local`] gives them. Logged in several, the entry's advice names them and,
/// for each, the command that explains the paste there (`explain_in(project)`); the
/// paste decides its verdict. An entry whose name `here` knows is left as it is: logged
/// there (the log contradicting the paste, the paste decides), or one of `own_here`,
/// the servers that project itself configures (local or `.mcp.json` scope: a user or
/// managed server runs in any project, and tells none).
pub fn attach_anywhere(
    report: &mut ExplainReport,
    scan: &crate::scan::ScanReport,
    here: &std::path::Path,
    own_here: &[String],
    explain_in: &dyn Fn(&str) -> String,
) {
    use crate::scan::select::NameWant;
    rejoin_names(report, scan);
    let here = here.to_string_lossy();
    for e in report
        .entries
        .iter_mut()
        .filter(|e| wants_local_entry(e) && e.local.is_none())
    {
        let Some(name) = e.name.clone() else {
            continue;
        };
        let want = NameWant::new(&name);
        let selects = |s: &crate::scan::ServerReport| {
            want.selects(&s.name, s.folder.as_deref())
                || want.selects(s.name_as_read(), s.folder_as_read())
                || pasted_form(s.name_as_read()).is_some_and(|n| want.selects(&n, None))
        };
        let found: Vec<&crate::scan::ServerReport> =
            scan.servers.iter().filter(|s| selects(s)).collect();
        if found.is_empty()
            || found.iter().any(|s| s.project_as_read() == Some(&*here))
            || own_here
                .iter()
                .any(|n| want.is(n) || pasted_form(n).is_some_and(|p| want.is(&p)))
        {
            continue;
        }
        let mut projects: Vec<Option<&str>> = Vec::new();
        for s in &found {
            if !projects.contains(&s.project.as_deref()) {
                projects.push(s.project.as_deref());
            }
        }
        if let [_] = projects.as_slice() {
            let s = found[0];
            if log_refines_paste(e.diagnosis.verdict, s.diagnosis.verdict) {
                e.diagnosis = s.diagnosis.clone();
                e.local = Some(local_evidence(s, &scan.homes));
                if pasted_form(&s.name).is_some() {
                    e.name = Some(s.name.clone());
                }
            }
            continue;
        }
        let known: Vec<&str> = projects.iter().flatten().copied().collect();
        if known.is_empty() {
            continue;
        }
        let commands: Vec<String> = known
            .iter()
            .map(|p| crate::text::code_span(&explain_in(p)))
            .collect();
        e.note = Some(format!(
            "Logged in {} projects ({}): its log there says why, and which project `claude mcp list` ran in decides which one. Run {} in the one it ran in.",
            projects.len(),
            known.join(", "),
            commands.join(" or ")
        ));
    }
}

/// `name` as a paste of `claude mcp list` reads after [`strip_escapes`], when it holds a
/// terminal escape (ESC, or the 8-bit CSI) that the parser strips; `None` otherwise.
fn pasted_form(name: &str) -> Option<String> {
    name.contains(['\u{1b}', '\u{9b}'])
        .then(|| strip_escapes(name))
}

/// What `scan` says of one server, as an entry's [`LocalEvidence`].
fn local_evidence(
    s: &crate::scan::ServerReport,
    scan_homes: &[std::path::PathBuf],
) -> LocalEvidence {
    LocalEvidence {
        source: s.source.clone(),
        last_seen: s.last_seen.clone(),
        stderr_tail: s.stderr_tail.clone(),
        launch: s.launch.as_deref().cloned(),
        run_by_hand: (s.diagnosis.verdict == Verdict::ConnectionFailed)
            .then(|| crate::advice::run_by_hand(s))
            .flatten(),
        recommendation: crate::advice::for_server_in(s, scan_homes),
        legacy_fix_applies: s.legacy_fix_applies(),
        fix_command: s.legacy_fix_applies().then(|| {
            s.settings
                .as_deref()
                .map_or_else(|| "mcplogs fix".to_string(), crate::advice::fix_command)
        }),
        engine_fix_command: crate::advice::fix_action(s)
            .filter(|a| a.planned)
            .and(s.fix.as_deref())
            .map(|f| f.command.to_string()),
        counts_now: s.counts_now(),
        config_error_now: s.config_error_now(),
    }
}

/// Whether the input is a server's log (JSON Lines or a JSON array of records, as
/// Claude Code writes them) rather than pasted `claude mcp list` output or one message:
/// such input is explained as `scan` reads it ([`from_log_scan`]), every session
/// grouped and classified, never its lines taken as one message.
pub fn is_server_log(bytes: &[u8]) -> bool {
    use crate::logs::decode::{LogFormat, sniff};
    let head = &bytes[..bytes.len().min(64 * 1024)];
    matches!(
        sniff(head),
        Some(LogFormat::JsonLines | LogFormat::JsonArray)
    )
}

/// A scan of a server's log file, as entries: each server's verdict, cause and advice
/// are the scan's, whole. `named`: the file was named (its folder names the server);
/// piped input names none.
pub fn from_log_scan(scan: &crate::scan::ScanReport, named: bool) -> ExplainReport {
    let entries = scan
        .servers
        .iter()
        .map(|s| ExplainEntry {
            name: named.then(|| s.name.clone()),
            target: None,
            status: crate::advice::reason::short_reason(s),
            detail: None,
            diagnosis: s.diagnosis.clone(),
            note: None,
            state: None,
            local: Some(LocalEvidence {
                // piped: the private copy scan read is gone; `-` is stdin
                source: if named {
                    s.source.clone()
                } else {
                    std::path::PathBuf::from("-")
                },
                ..local_evidence(s, &scan.homes)
            }),
            row_fix_command: None,
        })
        .collect();
    ExplainReport {
        entries,
        ..ExplainReport::default()
    }
}

/// Unless `--no-redact`, `explain` (pasted `claude mcp list` output shows command lines
/// and URLs) hides the secrets in every field that was pasted text. `input` is the whole
/// paste: a key and its value may land in different fields (`KEY: value` reads as a
/// server name and a status), so the secrets are learned from it whole. `secrets`: every
/// value the configuration marks as secret (`crate::scan::secrets::collect`), hidden
/// wherever the paste shows it; and what reads as random in the commands it shows
/// ([`crate::redact::RedactorBuilder::learn_printed_command`]).
pub fn redact_report(
    report: &mut ExplainReport,
    input: &str,
    secrets: &crate::redact::configured::ConfiguredSecrets,
) {
    let mut b = crate::redact::RedactorBuilder::new();
    b.learn_configured_secrets(secrets);
    // The commands the paste shows, read as a server's args: a value that reads as
    // random is hidden with no configuration to learn it from (helper-97).
    for t in report.entries.iter().filter_map(|e| e.target.as_deref()) {
        b.learn_printed_command(t);
    }
    for t in std::iter::once(input).chain(report.entries.iter().flat_map(|e| {
        [
            e.name.as_deref(),
            e.target.as_deref(),
            Some(e.status.as_str()),
            e.detail.as_deref(),
        ]
        .into_iter()
        .flatten()
    })) {
        b.learn_secrets(t);
    }
    let r = b.build();
    for e in &mut report.entries {
        // A status cut from the message (`one_line`) is cut again from the redacted
        // message: redact, then cut (a token cut short no longer matches its rule).
        let cut_from_detail = e
            .detail
            .as_deref()
            .is_some_and(|d| crate::text::one_line(d, STATUS_CHARS) == e.status);
        let name = e.name.clone();
        for field in [&mut e.name, &mut e.target, &mut e.detail, &mut e.note]
            .into_iter()
            .flatten()
        {
            r.apply(field);
        }
        // a name holding a secret with its tag, as `scan` prints it
        if let (Some(now), Some(was)) = (e.name.as_mut(), name) {
            crate::scan::select::tag_shown(&was, now);
        }
        match (&e.detail, cut_from_detail) {
            (Some(d), true) => e.status = crate::text::one_line(d, STATUS_CHARS),
            _ => r.apply(&mut e.status),
        }
        if let Some(p) = e.diagnosis.bad_tool_path.as_mut() {
            r.apply(p);
        }
        for f in &mut e.diagnosis.filled_fields {
            r.apply(f);
        }
    }
}

#[cfg(test)]
mod refine_tests {
    use super::*;

    #[test]
    fn a_log_refines_the_paste_only_where_it_says_the_same_thing() {
        use Verdict::*;
        assert!(log_refines_paste(Healthy, Tolerated));
        assert!(log_refines_paste(Healthy, Degraded));
        assert!(log_refines_paste(ToolsFetchFailed, ToolsFetchFailed));
        assert!(log_refines_paste(ConnectionFailed, VersionUnsupported));
        assert!(log_refines_paste(Unknown, Healthy));
        assert!(!log_refines_paste(ToolsFetchFailed, Healthy));
        assert!(!log_refines_paste(ConnectionFailed, Healthy));
        assert!(!log_refines_paste(Healthy, ToolsFetchFailed));
    }
}

#[cfg(test)]
mod journey_tests {
    use super::*;

    /// `cmd /c` warnings, placed all at once: each on the entry whose name it holds as a
    /// whole word (the longest), several on one entry the last first, one that names no
    /// entry an entry of its own.
    #[test]
    fn cmd_wrapper_warnings_go_to_the_longest_whole_name() {
        let w = |n: &str, k: &str| {
            format!("[Warning] [{n}] {k}: Windows requires 'cmd /c' wrapper to execute npx")
        };
        let paste = format!(
            "files: npx -y files - \u{2717} Failed to connect\nfiles-extra: npx x - \u{2717} Failed to connect\n{}\n{}\n{}\n{}\n",
            w("files-extra", "mcpServers.files-extra"),
            w("files", "mcpServers.files"),
            w("other", "mcpServers.other"),
            w("files", "second"),
        );
        let r = explain(&paste);
        assert_eq!(r.entries.len(), 3, "{r:#?}");
        let detail = |i: usize| r.entries[i].detail.clone().unwrap_or_default();
        assert_eq!(
            detail(0),
            format!(
                "{}\n{}",
                w("files", "second"),
                w("files", "mcpServers.files")
            )
        );
        assert_eq!(detail(1), w("files-extra", "mcpServers.files-extra"));
        assert_eq!(r.entries[2].name, None);
        assert_eq!(detail(2), w("other", "mcpServers.other"));
        assert!(r.entries.iter().all(|e| e.note.is_some()), "{r:#?}");
    }

    #[test]
    fn escapes_are_stripped_before_parsing() {
        let coloured = "\u{1b}]0;title\u{7}Checking MCP server health...\r\n\r\nfs: npx fs - \u{1b}[32m\u{2713} Connected\u{1b}[39m\r\nweb: http://x (HTTP) - \u{1b}[31m\u{2717} Failed to connect\u{1b}[0m\n\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\\n";
        let r = explain(coloured);
        let names: Vec<_> = r
            .entries
            .iter()
            .map(|e| e.name.clone().unwrap_or_default())
            .collect();
        assert_eq!(names, ["fs", "web"], "{r:#?}");
        assert_eq!(r.entries[0].diagnosis.verdict, Verdict::Healthy);
        assert_eq!(r.entries[1].diagnosis.verdict, Verdict::ConnectionFailed);
        assert_eq!(strip_escapes("a\u{1b}[1;31mb\u{9b}0mc\u{1b}(Bd"), "abcd");
    }

    #[test]
    fn unrecognised_input_gives_no_entries() {
        for junk in [
            "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n",
            "\u{89}PNG\r\n\u{1a}\n\0\0\0\rIHDR",
            "hello world",
        ] {
            assert!(explain(junk).entries.is_empty(), "{junk:?}");
        }
        // A known message alone still counts.
        assert_eq!(
            explain("Connection failed: spawn npx ENOENT").entries.len(),
            1
        );
    }

    #[test]
    fn bare_failed_to_connect_points_at_scan() {
        let r = explain("my-db: node server.js - \u{2717} Failed to connect\n");
        let rec = r.entries[0].recommendation();
        assert!(rec.contains("`mcplogs scan --server my-db`"), "{rec}");
    }
}
