//! Every sentence mcplogs says about what to do: the one recommendation per verdict and
//! cause, the legacy fix worded with the settings that decide, the notes for shared log
//! folders and health-check sessions, and the scan screen's actions. Renderers, the
//! report, explain and the probe take their wording from here and nowhere else.

use std::path::Path;

use crate::classify::verdict::{Cause, Diagnosis, Transport, Verdict};
use crate::claude_code::lifecycle;
use crate::scan::{CacheServedKind, ServerReport};
use crate::settings::layers::LayerKind;
use crate::settings::target::{FixTarget, SettingsAdvice};

use super::{legacy_curable_failure, works_only_under_legacy};

/// The command that checks a fix worked, after a restart or `/mcp`.
pub const VERIFY_COMMAND: &str = "mcplogs scan --since 10m";

/// What to do about one scanned server: the one sentence every output shows.
pub fn for_server(s: &ServerReport) -> String {
    for_server_in(s, homes_of(s))
}

/// [`for_server`], the commands it prints with `--home` for each of `homes` (the homes
/// the scan read: run as printed from any folder, they read the same ones).
pub fn for_server_in(s: &ServerReport, homes: &[std::path::PathBuf]) -> String {
    let sentence = for_server_alone(s, homes);
    match s.discovery_cache.as_deref() {
        Some(c) if c.kind == CacheServedKind::Deleted => format!(
            "{sentence} A failed connection deletes the server's MCP discovery cache entry, if it had one: in the next session {}.",
            c.next_session
        ),
        Some(c) if c.kind == CacheServedKind::Struck => format!(
            "{sentence} The failed refresh counted a strike against the server's MCP discovery cache entry, which Claude Code kept (MCP_DISCOVERY_CACHE_STRIKES is above 1): {}.",
            c.next_session
        ),
        _ => sentence,
    }
}

/// What Claude Code's discovery cache did, when it decided what the user saw (issue 54):
/// the sentence of a server served from the cache, or kept on its cached tools.
pub fn discovery_cache_sentence(s: &ServerReport, homes: &[std::path::PathBuf]) -> Option<String> {
    let c = s.discovery_cache.as_deref()?;
    let at = |t: Option<u64>| t.map_or_else(|| "an unknown time".to_string(), local);
    match c.kind {
        CacheServedKind::Served => Some(format!(
            "Claude Code's MCP discovery cache served this server's tools in the project's last session ({}) without contacting it, so that session logged nothing for it: Claude Code showed it pending with the tools cached at {} (`/mcp`: `cached ... ago · connects on first use`), and whether the server works now is unknown (the history shows its last logged sessions). Next: {}. To see its live state, run {}, or set \"discoveryCache\": false in its configuration entry (which also drops its cached entries).",
            c.session.as_deref().unwrap_or("unknown"),
            at(c.cached_at),
            c.next_session,
            probe_command(s, homes)
        )),
        CacheServedKind::Kept => Some(format!(
            "The server's tools/list failed when Claude Code refreshed its MCP discovery cache entry (cached at {}; the evidence says how) and the session ended before the refresh did, so Claude Code kept showing the cached tools, which may no longer match the server's. Next: {}. Read the evidence and report it to the server's authors; MCP_PROTOCOL_NEGOTIATION cannot help.",
            at(c.cached_at),
            c.next_session
        )),
        CacheServedKind::Deleted | CacheServedKind::Struck => None,
    }
}

/// `mcplogs probe --project DIR NAME`: the server as its own project configures it, so
/// the command runs as printed from any folder (with the `--home` flags of `homes`, the
/// homes the scan read: the configuration it joined).
fn probe_command(s: &ServerReport, homes: &[std::path::PathBuf]) -> String {
    let project = s
        .project
        .as_deref()
        .map(|p| format!("--project {} ", crate::text::shell_word_typed_quoted(p)))
        .unwrap_or_default();
    crate::text::code_span(&format!(
        "mcplogs probe{} {project}{}",
        home_flags(homes),
        name_word(&s.name)
    ))
}

/// The homes the scan of `s` read (`--home`; empty: this machine's), for the commands
/// its advice prints: its fix's (every server of a resolved scan has one), else its
/// settings advice's.
fn homes_of(s: &ServerReport) -> &[std::path::PathBuf] {
    s.fix
        .as_deref()
        .map(|f| &f.homes[..])
        .or_else(|| s.settings.as_deref().map(|a| &a.homes[..]))
        .unwrap_or_default()
}

fn local(t: u64) -> String {
    crate::time::local_time(&crate::time::format_iso(t as i64))
}

/// A `.mcp.json` server nobody approved that fails now (its logs are from `claude -p` or
/// `claude mcp list`, which start it unasked): its failure has advice of its own beside
/// the approval.
pub fn pending_and_failing(s: &ServerReport) -> bool {
    s.fails_now()
        && matches!(&s.configuration, crate::scan::configured::Configuration::Configured(c)
            if c.state == crate::claude_code::config::ServerState::PendingApproval)
}

fn for_server_alone(s: &ServerReport, homes: &[std::path::PathBuf]) -> String {
    // A server Claude Code no longer starts: its state says what to do, not its old
    // verdict. A shared folder's mixed records cannot back advice for one server.
    // ... unless `mcplogs fix` enables it (a `.mcp.json` server in disabledMcpjsonServers)
    // A `.mcp.json` server pending approval that fails (its logs are from `claude -p`,
    // which starts it unasked): what makes it fail (helper-88 #10: the approval alone,
    // beside a summary counting the legacy fix); its state says it is pending, and the
    // screen lists the approval as an item of its own
    let pending_and_failing = pending_and_failing(s);
    let text = super::fix_action(s)
        .filter(|a| a.planned && !s.counts_now())
        .map(|a| a.text)
        .or_else(|| {
            super::configured::logged_way_out(s, None, homes).filter(|_| !pending_and_failing)
        })
        .or_else(|| discovery_cache_sentence(s, homes))
        .or_else(|| shared_note(s))
        .or_else(|| legacy_removed_note(s))
        .or_else(|| super::fix_action(s).map(|a| a.text))
        .or_else(|| super::remote::for_remote_server(s))
        .or_else(|| connection_failure_by_hand(s))
        .unwrap_or_else(
            || match (s.settings.as_deref(), legacy_fix_wording(&s.diagnosis)) {
                (Some(a), Some((what, newer))) => legacy_recommendation(Some(a), what, &newer),
                _ => diagnosis_recommendation_with(
                    &s.diagnosis,
                    &format!("mcplogs fix{}", home_flags(homes)),
                ),
            },
        );
    // a server slower than MCP_TIMEOUT in a gone project: its own settings (which may
    // set the short value) were not read, so no file is known to decide it there
    if s.project_here() == crate::scan::ProjectHere::Gone
        && matches!(
            s.diagnosis.cause,
            Some(
                crate::classify::verdict::Cause::Timeout
                    | crate::classify::verdict::Cause::ToolsTimeout
            )
        )
        && !text.is_empty()
        && !text.contains("no longer exists")
    {
        format!(
            "{text} (Its project folder {} no longer exists, so its own settings were not read and mcplogs fix writes nothing for it there.)",
            s.project.as_deref().unwrap_or_default()
        )
    } else {
        text
    }
}

/// The command that starts a stdio server as Claude Code does, to run by hand in the
/// user's shell: its configured command and arguments, quoted, in its project folder
/// when that exists here (Claude Code starts servers there) and its path is printed as
/// it is (a path holding a secret is printed redacted, and `cd` into the redacted form
/// could not run: the advice then names the folder in words, `folder_hidden`). `None`
/// for a remote server, one whose entry was not found, or a command no one-line command
/// can show.
pub fn run_by_hand(s: &ServerReport) -> Option<String> {
    let launch = s.launch.as_ref().filter(|l| l.is_stdio())?;
    let command = crate::text::shell_command(&launch.argv)?;
    match s.project.as_deref() {
        Some(p) if s.project_here() == crate::scan::ProjectHere::Folder && !folder_hidden(s) => {
            crate::text::shell_in_folder(p, &command)
        }
        _ => Some(command),
    }
}

/// Whether `s`'s project folder exists here and its path is printed redacted (it holds
/// a secret: the scan's redaction changed it, or the secret rules find one in it, which
/// every output's redaction hides): the folder to run its command in is then said in
/// words, not in a `cd`.
fn folder_hidden(s: &ServerReport) -> bool {
    !s.launch.as_ref().is_some_and(|l| l.shown_whole)
        && s.project_here() == crate::scan::ProjectHere::Folder
        && (s
            .as_read
            .as_ref()
            .is_some_and(|r| r.project.as_deref() != s.project.as_deref())
            || s.project.as_deref().is_some_and(path_holds_secret))
}

/// Whether the secret rules find anything in `path` (every output hides it): a `cd`
/// into it (or a command holding it) would be printed redacted, and could not run as
/// printed.
pub fn path_holds_secret(path: &str) -> bool {
    // the rules alone, which remember the texts they found nothing in (a command or a
    // path repeated over a scan's servers is searched once)
    static RULES: std::sync::LazyLock<crate::redact::Redactor> =
        std::sync::LazyLock::new(|| crate::redact::Redactor::secrets_only(std::iter::empty()));
    RULES.redacted(path).is_some()
}

/// After "run its command by hand": what a stdio server's connection failure means and
/// what to do next.
pub fn connection_failure_why(d: &Diagnosis) -> String {
    match d.cause {
        Some(Cause::CommandNotFound) => {
            "If the shell does not find it either, install it or put its absolute path in the server's \"command\"; if the shell finds it, Claude Code's PATH differs from your shell's: put the absolute path in \"command\".".to_string()
        }
        Some(Cause::ConnectionClosed) => {
            "The server exited or closed the connection during start-up: its stderr says why.".to_string()
        }
        Some(Cause::Timeout) => format!(
            "It did not answer the handshake within MCP_TIMEOUT{}: check that it starts on its own (no prompts, no slow installs), or set MCP_TIMEOUT={} (milliseconds) in the env block of your Claude Code settings or in the environment.",
            timeout_phrase(d),
            suggested_timeout(d)
        ),
        _ => "Read what it prints on stderr; MCP_PROTOCOL_NEGOTIATION will not help.".to_string(),
    }
}

/// For a stdio server that could not connect (other than for credentials): the exact
/// command to run by hand first, then what the failure means.
fn connection_failure_by_hand(s: &ServerReport) -> Option<String> {
    let d = &s.diagnosis;
    if d.verdict != Verdict::ConnectionFailed
        || matches!(d.cause, Some(Cause::NeedsAuth | Cause::ModernOnly))
    {
        return None;
    }
    let command = run_by_hand(s)?;
    let launch = s.launch.as_ref()?;
    Some(by_hand_advice(
        &command,
        &launch.env_names,
        launch.file.as_deref(),
        d,
        ByHand {
            hidden_folder: folder_hidden(s),
            hidden_argument: !launch.shown_whole
                && (command.contains("[REDACTED:") || path_holds_secret(&command)),
        },
    ))
}

/// "Run its command by hand": `command` (already quoted, in its folder), the variables
/// its entry sets (`env_names`, from `file`), then what the failure `d` means. `scan`'s
/// and `probe`'s advice for a stdio server that could not connect.
/// `hidden`: what the output hides of the command ([`ByHand`]).
pub fn by_hand_advice(
    command: &str,
    env_names: &[String],
    file: Option<&std::path::Path>,
    d: &Diagnosis,
    hidden: ByHand,
) -> String {
    let env = if env_names.is_empty() {
        String::new()
    } else {
        format!(
            " with the variables its entry's \"env\" sets ({}{})",
            env_names.join(", "),
            file.map(|f| format!(", in {}", f.display()))
                .unwrap_or_default()
        )
    };
    let why = connection_failure_why(d);
    let start = if hidden.hidden_folder {
        "In its project folder (its path holds a secret, shown redacted), run its"
    } else {
        "Run its"
    };
    // an argument holding a secret is printed redacted: the command runs only with the
    // value put back, which is said
    let hidden_argument = if hidden.hidden_argument {
        " (an argument of it holds a secret, shown redacted: put the value back before you run it)"
    } else {
        ""
    };
    format!(
        "{start} command by hand{env} and read its stderr (a working server waits for input: stop it with Ctrl-C): {}{hidden_argument}. {why}",
        crate::text::code_span(command)
    )
}

/// What the output hides of a command to run by hand ([`by_hand_advice`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ByHand {
    /// The command is to run in a folder whose path is printed redacted, so it does not
    /// go into it: the folder is said in words.
    pub hidden_folder: bool,
    /// One of its arguments is printed redacted: said to need its value put back.
    pub hidden_argument: bool,
}

/// For a shared log folder: says so, and how to tell the servers apart.
pub fn shared_note(s: &ServerReport) -> Option<String> {
    if !s.is_shared() {
        return None;
    }
    Some(format!(
        "The configured servers {} all write into one log folder (mcp-logs-{}: Claude Code turns every character other than a letter or digit into '-'), with their records mixed, so this verdict is the folder's, not one server's. To tell them apart, rename one so the names differ in a letter or digit, or run `claude --debug-file FILE` and `mcplogs scan FILE` (debug logs name each server).",
        s.shared_by.join(", "),
        s.folder.as_deref().unwrap_or("?")
    ))
}

/// For a failure the legacy setting fixes: what the server's tools/list result got
/// wrong, and the note on newer Claude Code versions (empty when none applies). The
/// advice module words the recommendation with the settings that decide.
pub fn legacy_fix_wording(d: &Diagnosis) -> Option<(&'static str, String)> {
    if d.verdict != Verdict::ToolsFetchFailed || !d.legacy_fix_applies() {
        return None;
    }
    let c = d.cause?;
    let what = match c {
        Cause::MissingResultType => "omits resultType",
        Cause::MissingCacheFields => "omits ttlMs/cacheScope",
        _ => "gives ttlMs/cacheScope the wrong types",
    };
    let newer = if c == Cause::WrongFieldTypes {
        String::new()
    } else {
        format!(
            " (Claude Code {} and later also tolerate the omission)",
            lifecycle::Behaviour::FillsMissingTools.first_build()
        )
    };
    Some((what, newer))
}

/// A parenthesised note (` (Claude Code 2.1.302 and later ...)`) as a sentence of its
/// own (` Claude Code 2.1.302 and later ....`); empty stays empty.
fn as_sentence(note: &str) -> String {
    let inner = note
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    if inner.is_empty() {
        String::new()
    } else {
        format!(" {inner}.")
    }
}

/// The first build that fills in the missing 2026-07-28 fields of every list named
/// (`resources`, `prompts`, `tools`), from the model.
fn first_filling(lists: &[String]) -> lifecycle::ClaudeVersion {
    lists
        .iter()
        .filter_map(|l| match l.as_str() {
            "tools" => Some(lifecycle::List::Tools),
            "resources" => Some(lifecycle::List::Resources),
            "prompts" => Some(lifecycle::List::Prompts),
            _ => None,
        })
        .map(|l| lifecycle::Behaviour::fills_missing(l).first_build())
        .max()
        .unwrap_or_else(|| lifecycle::Behaviour::FillsMissingTools.first_build())
}

/// ` (3000 ms here)` when the connection's limit was logged.
fn timeout_phrase(d: &Diagnosis) -> String {
    d.timeout_ms
        .map(|t| format!(" ({t} ms here)"))
        .unwrap_or_default()
}

/// A handshake timeout logged before `MCP_TIMEOUT` ran out: the negotiating path's
/// budget (`lifecycle::initialize_budget_ms`), with the builds from the model.
fn budget_sentence(d: &Diagnosis) -> String {
    let limit = d
        .timeout_ms
        .unwrap_or(lifecycle::DEFAULT_MCP_TIMEOUT_MS.value);
    let after = d.failed_after_ms.unwrap_or(0);
    let newest = lifecycle::NEWEST_KNOWN;
    let short = lifecycle::Behaviour::StdioShortDiscoverHold.first_build();
    format!(
        "The connection timed out after {after} ms, before MCP_TIMEOUT ({limit} ms here) ran out: when Claude Code tries server/discover first and the server rejects it, initialize gets only part of MCP_TIMEOUT (of {limit} ms, {} ms for a stdio server from Claude Code {short} on, {} ms for HTTP and older builds; the rest is held for server/discover). Set MCP_TIMEOUT={} (milliseconds) in the env block of your Claude Code settings or in the environment, or MCP_PROTOCOL_NEGOTIATION=legacy, which gives initialize all of it; and check that the server starts on its own (no prompts, no slow installs).",
        lifecycle::initialize_budget_ms(newest, false, limit),
        lifecycle::initialize_budget_ms(newest, true, limit),
        suggested_timeout(d)
    )
}

/// The `MCP_TIMEOUT` that fixes a request slower than the logged limit (the model's).
fn suggested_timeout(d: &Diagnosis) -> u64 {
    lifecycle::suggested_mcp_timeout_ms(
        d.timeout_ms
            .unwrap_or(lifecycle::DEFAULT_MCP_TIMEOUT_MS.value),
    )
}

/// One line telling the user what to do; never the legacy fix where it cannot help.
/// The legacy advice here names no file: `advice::recommendation` words it knowing
/// the settings of the server's project.
pub fn diagnosis_recommendation(d: &Diagnosis) -> String {
    diagnosis_recommendation_with(d, "mcplogs fix")
}

/// [`diagnosis_recommendation`] with the legacy fix run as `fix` (`mcplogs fix` and the
/// home and project folders the user named).
pub fn diagnosis_recommendation_with(d: &Diagnosis, fix: &str) -> String {
    if let Some((what, newer)) = legacy_fix_wording(d) {
        return legacy_recommendation_unplaced(what, &newer, fix);
    }
    if let Some(a) = super::remote::remote_advice(d, None, None) {
        return a;
    }
    match (d.verdict, d.cause) {
        (Verdict::Healthy, _) => "Nothing to do.".to_string(),
        (Verdict::Tolerated, _) => format!(
            "Works today because Claude Code filled in {}; report to the server's authors that its {} result{} omit{} fields required by the protocol revision it negotiated (2026-07-28).",
            if d.filled_fields.is_empty() {
                "missing fields".to_string()
            } else {
                d.filled_fields.join(", ")
            },
            if d.filled_lists.is_empty() {
                "tools/list".to_string()
            } else {
                d.filled_lists
                    .iter()
                    .map(|l| format!("{l}/list"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            },
            if d.filled_lists.len() > 1 { "s" } else { "" },
            if d.filled_lists.len() > 1 { "" } else { "s" },
        ),
        (Verdict::ToolsFetchFailed, Some(c)) if c.is_negotiation_field_error() => {
            "The server's tools/list result breaks the protocol although the legacy era was negotiated, so MCP_PROTOCOL_NEGOTIATION=legacy cannot help: report it to the server's authors.".to_string()
        }
        (Verdict::ToolsFetchFailed, Some(Cause::InvalidToolDefinition))
            if d
                .bad_tool_path
                .as_deref()
                .is_some_and(|p| p.ends_with(".inputSchema.type")) =>
        {
            format!(
                "A tool's inputSchema does not say \"type\": \"object\" at its top (at {}; a top-level anyOf or oneOf without it is rejected too), and one bad tool makes Claude Code drop the whole list: add \"type\": \"object\" at the top of that tool's inputSchema in the server, or report it to its authors; MCP_PROTOCOL_NEGOTIATION cannot help.",
                d.bad_tool_path.as_deref().unwrap_or_default()
            )
        }
        (Verdict::ToolsFetchFailed, Some(Cause::InvalidToolDefinition)) => format!(
            "A tool definition is invalid{}: fix or update the server (report it to its authors); MCP_PROTOCOL_NEGOTIATION cannot help.",
            d.bad_tool_path
                .as_deref()
                .map(|p| format!(" (at {p})"))
                .unwrap_or_default()
        ),
        (Verdict::ToolsFetchFailed, Some(Cause::NoToolsCapability)) => {
            "The server's handshake declares no tools capability, so Claude Code never asks for its tools (connected, 0 tools): if it should offer tools, its authors must declare capabilities.tools; MCP_PROTOCOL_NEGOTIATION cannot help.".to_string()
        }
        (Verdict::ToolsFetchFailed, Some(Cause::ToolsTimeout)) => format!(
            "tools/list took longer than MCP_TIMEOUT{}, so Claude Code gave up on the tools (no retry): set MCP_TIMEOUT={} (milliseconds) in the env block of your Claude Code settings or in the environment, then restart Claude Code; MCP_PROTOCOL_NEGOTIATION cannot help.",
            timeout_phrase(d),
            suggested_timeout(d)
        ),
        (Verdict::Degraded, Some(Cause::PaginationTruncated)) => format!(
            "Claude Code follows tools/list for at most {} pages and the server still returned a nextCursor, so its tools after page {} are missing (`mcplogs probe` counts them): its authors should return more tools per page; MCP_PROTOCOL_NEGOTIATION cannot help.",
            lifecycle::PAGE_CAP.value,
            lifecycle::PAGE_CAP.value
        ),
        (Verdict::Degraded, Some(Cause::ListsRejected)) => {
            let lists = if d.lost_lists.is_empty() {
                vec!["resources".to_string(), "prompts".to_string()]
            } else {
                d.lost_lists.clone()
            };
            let methods: Vec<String> = lists.iter().map(|l| format!("{l}/list")).collect();
            format!(
                "Claude Code rejected the server's {} result{} (missing fields required by revision 2026-07-28), so its {} are missing; its tools load and need nothing. MCP_PROTOCOL_NEGOTIATION=legacy would bring them back (the legacy era does not require those fields), as would Claude Code {} or later, which fills them in; report it to the server's authors.",
                methods.join(" and "),
                if lists.len() > 1 { "s" } else { "" },
                lists.join(" and "),
                first_filling(&lists)
            )
        }
        (Verdict::Degraded, Some(Cause::StaleAfterRefresh)) => {
            "The server announced new tools (tools/list_changed) and Claude Code's refetch failed (the evidence says how: a rejected list, an error or a timeout), so for the rest of that session it kept the tools of its first listing, which worked, and the new ones were missing. A new session lists the tools afresh: if the server still answers tools/list this way, that session gets none of its tools (tools-fetch-failed). Read the evidence and report it to the server's authors; MCP_PROTOCOL_NEGOTIATION cannot help.".to_string()
        }
        (Verdict::Degraded, Some(Cause::ToolNameTooLong)) => format!(
            // The log names only the tools lost, never how many the server has: when
            // those were all of them the model gets none (issue 51), so no claim that
            // "the others work".
            "Claude Code {} and later do not send a tool whose full name (mcp__<server>__<tool>) is longer than {} characters to the model, so {} missing (the evidence names {}); the log does not say how many tools the server has: if these are all of them, the model gets none of this server's tools. Give the server a shorter name in its configuration (its name is part of every tool's full name), or ask its authors to shorten those tool names; MCP_PROTOCOL_NEGOTIATION cannot help.",
            lifecycle::Behaviour::ToolNameLimit.first_build(),
            lifecycle::TOOL_NAME_MAX_CHARS.value,
            match d.tools_not_sent {
                0 => "some of this server's tools are".to_string(),
                1 => "1 of this server's tools is".to_string(),
                n => format!("{n} of this server's tools are"),
            },
            if d.tools_not_sent == 1 { "it" } else { "them" }
        ),
        (Verdict::Degraded, Some(Cause::ToolHeaderInvalid)) => {
            "On a 2026-07-28 HTTP connection Claude Code leaves out every tool whose inputSchema declares an invalid x-mcp-header (not an RFC 9110 token, not on a string, integer, boolean or number property reached through \"properties\" alone, or not unique ignoring case) and keeps the others; only Claude Code's own stderr says so. Ask the server's authors to fix the declaration (`mcplogs probe` names the tool); MCP_PROTOCOL_NEGOTIATION=legacy keeps the tool, since the legacy era does not check it.".to_string()
        }
        (Verdict::Degraded, _) => {
            "Claude Code loaded the server's tools but lost part of what it offers: read the evidence.".to_string()
        }
        (Verdict::ToolsFetchFailed, _) => {
            "tools/list was rejected for a reason unrelated to protocol negotiation: read the evidence and report it to the server's authors; MCP_PROTOCOL_NEGOTIATION will not help.".to_string()
        }
        (Verdict::VersionUnsupported | Verdict::ConnectionFailed, Some(Cause::ModernOnly)) => {
            let how = if d.verdict == Verdict::VersionUnsupported {
                "answered the legacy handshake's initialize with a version that handshake cannot accept"
            } else {
                "refused the version the legacy handshake's initialize proposed"
            };
            format!(
                "The server speaks only the 2026-07-28 protocol: it {how}. Claude Code uses the legacy handshake when MCP_PROTOCOL_NEGOTIATION=legacy is in effect for the project (`mcplogs settings`, run in the project, says which file sets it; a setting in the user file covers every project) or, for stdio servers, on builds before {}. MCP_PROTOCOL_NEGOTIATION=auto in the project's .claude/settings.local.json makes it negotiate the new protocol ({} writes it); if another server of the project needs the legacy setting, no value serves both.",
                lifecycle::Behaviour::StdioNegotiates.first_build(),
                crate::text::code_span(fix),
            )
        }
        (Verdict::VersionUnsupported, _) => {
            "The server answered initialize with a protocol version Claude Code did not propose: update the server or Claude Code. MCP_PROTOCOL_NEGOTIATION=legacy does not help: this fails in the legacy handshake itself.".to_string()
        }
        (Verdict::ConnectionFailed, Some(Cause::CommandNotFound)) => {
            "The server's command was not found: install it, or put its absolute path in the server's \"command\" (Claude Code's PATH may differ from your shell's).".to_string()
        }
        // Advice follows the transport: a URL has no command to run by hand.
        (Verdict::ConnectionFailed, Some(Cause::ConnectionClosed))
            if d.transport == Some(Transport::Remote) =>
        {
            "The server closed the connection during start-up: check that it is running at its URL and read the evidence for what it answered; MCP_PROTOCOL_NEGOTIATION will not help.".to_string()
        }
        (Verdict::ConnectionFailed, Some(Cause::ConnectionClosed))
            if d.transport == Some(Transport::Stdio) =>
        {
            "The server process exited or closed the connection during start-up: its stderr says why (the same scan with --verbose shows the last lines it wrote); run its command (its entry in Claude Code's configuration) by hand to see it again.".to_string()
        }
        (Verdict::ConnectionFailed, Some(Cause::ConnectionClosed)) => {
            "The server closed the connection during start-up: for a command, its stderr says why (the same scan with --verbose shows the last lines it wrote; run its command by hand to see it again); for a URL, check that the server is running there.".to_string()
        }
        (Verdict::ConnectionFailed, Some(Cause::Timeout))
            if d
                .failed_after_ms
                .zip(d.timeout_ms)
                .is_some_and(|(after, limit)| after < limit) =>
        {
            budget_sentence(d)
        }
        (Verdict::ConnectionFailed, Some(Cause::Timeout))
            if d.transport == Some(Transport::Remote) =>
        {
            format!(
                "The server did not answer the handshake within MCP_TIMEOUT{}: check that it is up and reachable at its URL, or set MCP_TIMEOUT={} (milliseconds) in the env block of your Claude Code settings or in the environment.",
                timeout_phrase(d),
                suggested_timeout(d)
            )
        }
        (Verdict::ConnectionFailed, Some(Cause::Timeout)) if d.timeout_ms.is_some() => format!(
            "The server did not answer the handshake within MCP_TIMEOUT{}: check that it starts on its own (no prompts, no slow installs), or set MCP_TIMEOUT={} (milliseconds) in the env block of your Claude Code settings or in the environment.",
            timeout_phrase(d),
            suggested_timeout(d)
        ),
        (Verdict::ConnectionFailed, Some(Cause::Timeout)) => {
            "The server did not answer in time: check that it starts on its own (no prompts, no slow installs) or raise MCP_TIMEOUT (milliseconds).".to_string()
        }
        (Verdict::ConnectionFailed, Some(Cause::NeedsAuth)) => {
            "The server needs authentication: run /mcp in Claude Code and authenticate, or configure its credentials.".to_string()
        }
        (Verdict::ConnectionFailed, _) if d.transport == Some(Transport::Remote) => {
            "Claude Code could not connect to the server's URL: the evidence holds the HTTP answer or the network error; check the URL and that the server is running there, and report an error answer (such as an unsupported protocol version) to the server's authors; MCP_PROTOCOL_NEGOTIATION will not help.".to_string()
        }
        (Verdict::ConnectionFailed, _) if d.transport == Some(Transport::Stdio) => {
            "Claude Code could not start or connect to the server: check its command and arguments, and read the evidence; MCP_PROTOCOL_NEGOTIATION will not help.".to_string()
        }
        (Verdict::ConnectionFailed, _) => {
            "Claude Code could not connect: check the server's command or URL and that it is running; MCP_PROTOCOL_NEGOTIATION will not help.".to_string()
        }
        (Verdict::Unknown, _) => {
            "No decisive record in the logs: run `claude --debug` or `claude mcp list`, then scan again.".to_string()
        }
    }
}

/// The head of the legacy advice: what the server negotiated and got wrong.
pub fn legacy_head(what: &str) -> String {
    format!("The server negotiated revision 2026-07-28 but its tools/list result {what}")
}

/// The legacy advice when the settings are not known: it names no file.
pub fn legacy_recommendation_unplaced(what: &str, newer: &str, fix: &str) -> String {
    format!(
        "{}: run {}, which sets MCP_PROTOCOL_NEGOTIATION=legacy in the settings file that wins{newer}, and report it to the server's authors.",
        legacy_head(what),
        crate::text::code_span(fix)
    )
}

/// For a server that [`works_only_under_legacy`] while the legacy setting is no longer
/// in effect: its verdict does not hold past the next start.
pub fn legacy_removed_note(s: &ServerReport) -> Option<String> {
    if !works_only_under_legacy(s) {
        return None;
    }
    let a = s.settings.as_ref()?;
    if a.target.is_in_effect() {
        return None;
    }
    let failed = legacy_curable_failure(s)?;
    let again = match &a.target {
        FixTarget::Write { .. } => {
            format!("run {} again", crate::text::code_span(&fix_command(a)))
        }
        _ => "set MCP_PROTOCOL_NEGOTIATION=legacy again".to_string(),
    };
    Some(format!(
        "This verdict was observed under MCP_PROTOCOL_NEGOTIATION=legacy, which is no longer set: at its next start Claude Code negotiates revision 2026-07-28 again (its default for HTTP servers, and for stdio servers from {} on), and the server fails as it did before ({}{}). To keep it working, {again}, and tell the server's authors.",
        lifecycle::Behaviour::StdioNegotiates.first_build(),
        failed.verdict,
        failed.cause.map(|c| format!(", {c}")).unwrap_or_default(),
    ))
}

/// The scan screen's few words for such a server.
pub const LEGACY_REMOVED_REASON: &str = "seen under legacy, no longer set: fails at next start";

/// The `mcplogs fix` command for a project's advice, as it runs where the scan ran: with
/// `--home` for each home the scan read (so it writes that home's user file). `fix`
/// plans each failing server's own project (the file that wins there, the user file or
/// a project's local file, gone projects included), from any folder: one command for
/// every project, never one per file. Paths quoted for the user's shell.
pub fn fix_command(a: &SettingsAdvice) -> String {
    format!("mcplogs fix{}", home_flags(&a.homes))
}

/// For the scan screen's grouped action: that a project folder is gone (the same words
/// for every project, so the servers of several gone projects share one action).
pub fn projects_gone_note(a: &SettingsAdvice) -> &'static str {
    if a.project_gone {
        " (The project folder of these servers no longer exists, so only the settings outside it were read; the table heads each group with its folder.)"
    } else {
        ""
    }
}

/// When the server's project folder is gone: says so (empty otherwise).
pub fn project_gone_note(a: &SettingsAdvice) -> String {
    if a.project_gone {
        format!(
            " (Its project folder {} no longer exists, so only the settings outside it were read.)",
            a.project_dir.display()
        )
    } else {
        String::new()
    }
}

/// [`diagnosis_recommendation`] knowing the
/// settings of the server's project: the legacy advice then names the file `mcplogs fix`
/// writes, or says the fix is in place.
pub fn recommendation(
    d: &crate::classify::verdict::Diagnosis,
    settings: Option<&SettingsAdvice>,
) -> String {
    match (settings, legacy_fix_wording(d)) {
        (Some(_), Some((what, newer))) => legacy_recommendation(settings, what, &newer),
        _ => diagnosis_recommendation(d),
    }
}

/// Whom the legacy setting written to a `kind` file affects: it is not per server.
pub fn legacy_scope(kind: LayerKind) -> &'static str {
    match kind {
        LayerKind::Local | LayerKind::Project => "with every server of that project",
        _ => "with every server of every project whose own settings do not set it",
    }
}

/// What the legacy setting costs the servers that did not need it, and the undo
/// command for the fix `fix` (a [`fix_command`]).
pub fn legacy_cost(fix: &str) -> String {
    if fix == "mcplogs fix" {
        format!(
            "they lose revision 2026-07-28 features such as URL elicitation until `{fix} --undo`"
        )
    } else {
        "they lose revision 2026-07-28 features such as URL elicitation until it is undone: the same command with --undo".to_string()
    }
}

/// The legacy fix as one action for several servers when the settings are not known
/// (`explain` on pasted text): `fix --dry-run` names the file and why.
pub fn legacy_action_unplaced(homes: &[std::path::PathBuf], project: Option<&Path>) -> String {
    let (fix, place) = unplaced_fix_command(homes, project);
    format!(
        "Run {}{place} ({} first shows which settings file it writes and why). It sets MCP_PROTOCOL_NEGOTIATION=legacy: Claude Code then uses the older protocol revision ({}), which these servers need: their tools/list answers break rules of the new revision. Also tell the servers' authors.",
        crate::text::code_span(&fix),
        crate::text::code_span(&format!("{fix} --dry-run")),
        legacy_cost(&fix)
    )
}

/// `mcplogs fix` with the home folders and project folder the user named (`explain
/// --home/--project`), and where to run it: " in the project" when no project was
/// named, else nothing.
pub fn unplaced_fix_command(
    homes: &[std::path::PathBuf],
    project: Option<&Path>,
) -> (String, &'static str) {
    let mut fix = format!("mcplogs fix{}", home_flags(homes));
    // a project folder named but not here: `fix` cannot take it (its settings are not
    // on this machine), and only the settings outside it count
    let place = match project {
        Some(p) if p.is_dir() => {
            fix.push_str(&format!(
                " --project {}",
                crate::text::shell_word(&p.display().to_string())
            ));
            ""
        }
        Some(_) => "",
        None => " in the project",
    };
    (fix, place)
}

/// The scan screen's action for servers the legacy fix helps: the command, the file
/// (as shown), whom it affects and at what cost, and why these servers need it.
pub fn legacy_action(a: &SettingsAdvice, kind: LayerKind, file_shown: &str) -> String {
    format!(
        "Run {}. It sets MCP_PROTOCOL_NEGOTIATION=legacy in {file_shown}: Claude Code then uses the older protocol revision {} ({}), which these servers need: their tools/list answers break rules of the new revision. Also tell the servers' authors.{}",
        crate::text::code_span(&fix_command(a)),
        legacy_scope(kind),
        legacy_cost(&fix_command(a)),
        projects_gone_note(a),
    )
}

/// The scan screen's one action for every server the legacy fix helps when `fix` writes
/// several files (`files`: each as shown, its kind and its servers): one command, each
/// file with the servers it is for.
pub fn legacy_action_files(
    a: &SettingsAdvice,
    files: &[(String, LayerKind, Vec<String>)],
) -> String {
    let each: Vec<String> = files
        .iter()
        .map(|(file, kind, servers)| {
            format!(
                "in {file} for {} ({})",
                servers.join(", "),
                legacy_scope(*kind)
            )
        })
        .collect();
    format!(
        "Run {}. It sets MCP_PROTOCOL_NEGOTIATION=legacy {}, each the file that wins in those servers' project: Claude Code then uses the older protocol revision there ({}), which these servers need: their tools/list answers break rules of the new revision. Also tell the servers' authors.",
        crate::text::code_span(&fix_command(a)),
        each.join(", and "),
        legacy_cost(&fix_command(a)),
    )
}

/// What to do about a server the legacy setting would help, given its settings.
/// `what` says what the server's tools/list result got wrong.
pub fn legacy_recommendation(advice: Option<&SettingsAdvice>, what: &str, newer: &str) -> String {
    let head = legacy_head(what);
    let report = "and report it to the server's authors";
    let Some(a) = advice else {
        return legacy_recommendation_unplaced(what, newer, "mcplogs fix");
    };
    match &a.target {
        FixTarget::Write { .. } if let Some(other) = &a.conflict => format!(
            "{head}. MCP_PROTOCOL_NEGOTIATION=legacy would help it, but {other}, which that setting would reach too, speaks only the new protocol, which it breaks: no value serves both, so mcplogs writes neither. Report it to the server's authors (its evidence says how), or ask the authors of {other} to accept the legacy handshake."
        ),
        // (the note on newer builds as a sentence of its own: two parentheses in a row
        // read as one aside broken in two)
        FixTarget::Write { path, kind, .. } => format!(
            "{head}: run {}, which sets MCP_PROTOCOL_NEGOTIATION=legacy in {} (Claude Code then uses the older revision {}; {}), {report}.{}{}",
            crate::text::code_span(&fix_command(a)),
            path.display(),
            legacy_scope(*kind),
            legacy_cost(&fix_command(a)),
            as_sentence(newer),
            project_gone_note(a),
        ),
        FixTarget::InEffect { layer } => format!(
            "{head}. The fix is in place: {} sets MCP_PROTOCOL_NEGOTIATION=legacy now, and this failure is from a connection made before it took effect. To verify, restart Claude Code or run /mcp, then {}.",
            layer
                .path
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "the environment".into()),
            crate::text::code_span(&verify_command(&a.homes))
        ),
        FixTarget::SdkV1 { by } => format!(
            "{head}. The fix is in place: MCP_SDK_GENERATION=v1 ({by}) gives every server the legacy handshake now, and this failure is from a connection made before it took effect. To verify, restart Claude Code or run /mcp, then {}.",
            crate::text::code_span(&verify_command(&a.homes))
        ),
        FixTarget::InEffectUnread { .. } => format!(
            "{head}. The legacy setting would help, but {}. Check how Claude Code is started (a `--settings` file, another CLAUDE_CONFIG_DIR, a wrapper script), set it where that instance reads it, and restart Claude Code. Meanwhile, report it to the server's authors.",
            a.target.reason()
        ),
        FixTarget::Managed { .. } => format!(
            "{head}. The legacy setting would help, but {}. Meanwhile, report it to the server's authors.",
            a.target.reason()
        ),
        FixTarget::NoUserFile => format!(
            "{head}: set MCP_PROTOCOL_NEGOTIATION=legacy in the \"env\" block of your Claude Code settings{newer}, {report}."
        ),
        FixTarget::Unwritable { why, .. } => format!(
            "{head}. The legacy setting would help{newer}, but `mcplogs fix` refuses the file that wins there: {why}. Meanwhile, report it to the server's authors."
        ),
    }
}

/// Said under a verdict decided by an earlier session because the latest one only
/// connected.
pub const LATEST_ONLY_CONNECTED: &str = "Note: the latest session only connected (like a `claude mcp list` health check) and shows nothing about tools; this verdict comes from an earlier session on the same server version. To confirm, start `claude` in the project and use one of the server's tools (or open /mcp), then scan again.";

/// The scan screen's action for a `tolerated` server.
pub const TOLERATED_ACTION: &str = "Works today only because Claude Code fills in fields the server's tools/list result leaves out (revision 2026-07-28 requires them; older Claude Code builds reject it): tell the server's authors.";

/// [`VERIFY_COMMAND`] for the logs of `homes` (as the user gave them; empty: this
/// machine's), so it checks the same logs the advice was about.
pub fn verify_command(homes: &[std::path::PathBuf]) -> String {
    format!("{} --since 10m", scan_command(homes))
}

/// `mcplogs scan` of `homes` (as the user gave them; empty: this machine's): what every
/// command naming a scan prints, so it reads the same logs.
pub fn scan_command(homes: &[std::path::PathBuf]) -> String {
    format!("mcplogs scan{}", home_flags(homes))
}

/// ` --home DIR` for each of `homes`, quoted for the user's shell (empty: this
/// machine's): what every printed command carries to read the same homes.
pub fn home_flags(homes: &[std::path::PathBuf]) -> String {
    // Every server's advice asks it of the same homes: made once a thread (quoting each
    // home was 2% of a scan of 10,000 folders, in its part that runs on one core).
    thread_local! {
        static LAST: std::cell::RefCell<Option<(Vec<std::path::PathBuf>, String)>> =
            const { std::cell::RefCell::new(None) };
    }
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if let Some((h, flags)) = last.as_ref()
            && h.as_slice() == homes
        {
            return flags.clone();
        }
        let flags: String = homes
            .iter()
            .map(|h| {
                format!(
                    " {}",
                    crate::text::option_word(
                        "--home",
                        &crate::text::shell_word(&h.display().to_string())
                    )
                )
            })
            .collect();
        *last = Some((homes.to_vec(), flags.clone()));
        flags
    })
}

/// The scan screen's last line when it proposed a fix (`homes` as in
/// [`verify_command`]).
pub fn after_fix(homes: &[std::path::PathBuf]) -> String {
    format!(
        "After a fix, restart Claude Code or run /mcp in it, then check with {}.",
        crate::text::code_span(&verify_command(homes))
    )
}

/// After "no logs found": where logs come from.
pub const NO_LOGS_HINT: &str = ". Claude Code writes a server's log when it starts the server: run `claude` in the project (or `claude mcp list` there), then scan again";

/// For a server's authors: the rule its tool names break (`tool-name-too-long`).
pub fn tool_name_limit_rule() -> String {
    format!(
        "tool names: the full name `mcp__<server>__<tool>` must be at most {} characters; Claude Code {} and later do not send longer ones to the model (the log below names them).",
        lifecycle::TOOL_NAME_MAX_CHARS.value,
        lifecycle::Behaviour::ToolNameLimit.first_build()
    )
}

/// For `claude mcp list`'s warning that a Windows configuration starts npx without
/// `cmd /c` (`explain`): the change that makes it start.
pub fn windows_cmd_wrapper_note(name: Option<&str>) -> String {
    let name = name_or_placeholder(name);
    format!(
        "On Windows Claude Code does not start npx directly: give the server \"command\": \"cmd\" and \"args\": [\"/c\", \"npx\", ...] (or add it again with `claude mcp add {name} -- cmd /c npx ...`), then restart Claude Code; `mcplogs settings` lists such entries."
    )
}

/// `explain` on a `⏸ Pending approval` line.
pub const PENDING_APPROVAL: &str = "The project's .mcp.json server is waiting for approval: start Claude Code in that project and approve it (or run `claude mcp reset-project-choices`).";

/// A pasted server's name quoted for the shell, or the placeholder `NAME`.
fn name_or_placeholder(name: Option<&str>) -> String {
    name.map_or_else(|| "NAME".to_string(), name_word)
}

/// A server name as a word of a command mcplogs prints: quoted as
/// [`crate::text::shell_word_typed`] quotes it, and always quoted when it holds a
/// secret, since the redaction every output passes through then makes it
/// `[REDACTED:...]`, a glob pattern to the shell when bare.
pub fn name_word(name: &str) -> String {
    // with its tag when it holds a secret, which the redaction leaves after
    // `[REDACTED:...]` and which selects this one server among the names printing alike
    let tagged = crate::scan::select::tagged(name);
    if tagged != name {
        let typed = crate::text::shell_word_typed(&tagged);
        return if typed == tagged {
            crate::text::shell_word_quoted(&tagged)
        } else {
            typed
        };
    }
    crate::text::shell_word_typed(name)
}

/// `` `mcplogs scan --server NAME` `` for a pasted server, with `--home` for each of
/// `homes` (the homes `explain` was told to read: run as printed, it reads them too).
pub fn scan_server(name: Option<&str>, homes: &[std::path::PathBuf]) -> String {
    crate::text::code_span(&format!(
        "{} {}",
        scan_command(homes),
        crate::text::option_word("--server", &name_or_placeholder(name))
    ))
}

/// What to do when the detail that would decide the cause was cut off.
pub fn cut_detail_note(name: Option<&str>, homes: &[std::path::PathBuf]) -> String {
    let scan = scan_server(name, homes);
    format!(
        "The pasted detail is cut off, so it does not say which part of the tools/list result was rejected, nor whether MCP_PROTOCOL_NEGOTIATION=legacy would help. Run {scan} (the server's log holds the whole message), or paste the whole `claude mcp list` output."
    )
}

/// What to do about a bare `! Connected · tools fetch failed` status (no detail pasted):
/// the status says tools failed, not why.
pub fn status_only_note(name: Option<&str>, homes: &[std::path::PathBuf]) -> String {
    let scan = scan_server(name, homes);
    format!(
        "The status says Claude Code rejected the server's tools, not why, so neither the cause nor whether MCP_PROTOCOL_NEGOTIATION=legacy would help is known from it. The server's log says: run {scan}, or paste the detail `claude mcp list` prints after the status."
    )
}

/// `explain` on a `⊘ Disabled for this project (re-enable via /mcp)` line (the commands
/// with `--home` for each of `homes`, the homes `explain` was told to read).
pub fn disabled_for_project(homes: &[std::path::PathBuf]) -> String {
    let home = home_flags(homes);
    format!(
        "Disabled for this project: Claude Code does not start it here, and it is not a failure. A user or local server is named in `projects[\"<project>\"].disabledMcpServers` of ~/.claude.json (the /mcp toggle): to turn it back on, use /mcp in Claude Code (select it, enable it) or remove its name from that list. A project (.mcp.json) server is named in a `disabledMcpjsonServers` list instead (the approval dialog's Esc writes it into the project's .claude/settings.local.json): remove its name from that list, or run `mcplogs fix{home} NAME`. `mcplogs scan{home}` in the project names the file."
    )
}

#[cfg(test)]
mod name_word_tests {
    use super::name_word;

    /// A name holding a token is quoted although its characters are safe bare: the
    /// redaction makes it `[REDACTED:...]`, which the shell would take as a glob.
    #[test]
    fn a_name_holding_a_token_is_always_quoted() {
        let token = format!("ghp_{}", "Z9y8X7w6V5".repeat(4).get(..36).unwrap());
        let word = name_word(&token);
        // single quotes in sh and in PowerShell alike
        assert!(word.starts_with('\'') && word.ends_with('\''), "{word}");
        assert_eq!(name_word("plain-name"), "plain-name");
        let redacted = crate::redact::Redactor::redact_own_secrets(&word);
        assert!(redacted.starts_with("'[REDACTED:"), "{redacted}");
        // with the tag that selects this one server
        let tagged = crate::scan::select::printed(&token);
        assert_eq!(redacted, format!("'{tagged}'"));
    }
}
