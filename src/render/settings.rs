//! Text and JSON for `mcplogs settings`, and the few lines a `scan` summary can show.
//! Like [`crate::render`], these return strings; the binary decides where they go.

use colored::Colorize;

use crate::advice::configured;
use crate::claude_code::config::ServerState;
use crate::json_doc;
use crate::scan::configured::Configured;
use crate::settings::effective::EffectiveNegotiation;
use crate::settings::layers::{LayerKind, LayerStatus, SettingsLayer};
use crate::settings::{NEGOTIATION_KEY, NegotiationValue};
use crate::text::layout::{self, Column};
use crate::text::terminal_safe;

/// What Claude Code does when nothing sets the variable (reference, section 3).
/// Observed: 2.1.288 negotiates the modern revision only with HTTP servers, 2.1.332
/// with stdio servers too (its stdio flag defaults to on).
/// What an unset value means, the build that changed it from the model.
fn default_meaning() -> String {
    format!(
        "not set: Claude Code's default (modern negotiation with HTTP servers; with stdio servers too from {} on)",
        crate::claude_code::lifecycle::Behaviour::StdioNegotiates.first_build()
    )
}

fn value_text(v: &NegotiationValue) -> String {
    match v {
        NegotiationValue::Unrecognised(s) => format!(
            "{:?} (not accepted: only auto or legacy)",
            terminal_safe(s, false)
        ),
        v => v.to_string(),
    }
}

fn where_text(l: &SettingsLayer) -> String {
    match &l.path {
        Some(p) => terminal_safe(&p.display().to_string(), false),
        None => "(process environment)".to_string(),
    }
}

fn status_text(l: &SettingsLayer) -> String {
    match &l.status {
        LayerStatus::Absent => "absent".into(),
        LayerStatus::Unreadable { .. } => "unreadable".into(),
        LayerStatus::Strict => "strict JSON".into(),
        LayerStatus::Ignored { .. } => "IGNORED".into(),
        LayerStatus::Invalid { .. } => "INVALID".into(),
        LayerStatus::Environment if l.negotiation.is_some() => "set".into(),
        LayerStatus::Environment => "unset".into(),
    }
}

fn layer_value(l: &SettingsLayer) -> String {
    match (&l.negotiation, l.in_effect()) {
        (None, _) => "-".into(),
        (Some(v), true) => value_text(v),
        (Some(v), false) => format!("{} (not in effect)", value_text(v)),
    }
}

/// "user settings /home/u/.claude/settings.json" or "the process environment".
pub fn layer_name(l: &SettingsLayer) -> String {
    match l.kind {
        LayerKind::Environment => "the process environment".into(),
        LayerKind::ManagedDropIn => format!("managed drop-in {}", where_text(l)),
        k => format!("{k} settings {}", where_text(l)),
    }
}

/// One sentence per file Claude Code skips, naming it and what that costs.
pub fn problem_lines(e: &EffectiveNegotiation) -> Vec<String> {
    e.problem_layers()
        .map(|l| {
            let path = where_text(l);
            match &l.status {
                LayerStatus::Ignored { problem, env_keys } => {
                    let keys = if env_keys.is_empty() {
                        String::new()
                    } else {
                        format!("; env keys not in effect: {}", env_keys.join(", "))
                    };
                    format!(
                        "{path} is ignored entirely by Claude Code: not strict JSON ({problem}){keys}"
                    )
                }
                LayerStatus::Invalid { problem } => {
                    format!("{path} is invalid (neither JSON nor JSON5: {problem}); Claude Code ignores it")
                }
                LayerStatus::Unreadable { error } => {
                    format!("{path} cannot be read ({error})")
                }
                _ => String::new(),
            }
        })
        .collect()
}

/// "MCP_PROTOCOL_NEGOTIATION = legacy, from user settings /home/u/.claude/settings.json".
/// A layer above the deciding one that could not be read makes the value unknown: said
/// ("unknown: ... could not be read"), never "not set" (a check that did not run).
pub fn effective_line(e: &EffectiveNegotiation) -> String {
    let unknown = e.unknown_deciders();
    let unread = || {
        unknown
            .iter()
            .map(|l| terminal_safe(&l.unread_text(), false))
            .collect::<Vec<_>>()
            .join(" and ")
    };
    match (e.value(), e.deciding_layer()) {
        (Some(v), Some(l)) if !unknown.is_empty() => format!(
            "{NEGOTIATION_KEY} is unknown: {}, and it takes precedence; of the layers read, {} sets {}",
            unread(),
            layer_name(l),
            value_text(v)
        ),
        (Some(v), Some(l)) => format!(
            "{NEGOTIATION_KEY} = {}, from {}",
            value_text(v),
            layer_name(l)
        ),
        _ if !unknown.is_empty() => format!(
            "{NEGOTIATION_KEY} is unknown: {}; no layer read sets it (if none does, it is {})",
            unread(),
            default_meaning()
        ),
        _ => format!("{NEGOTIATION_KEY} is {}", default_meaning()),
    }
}

/// The short block for `mcplogs scan`: the effective value and any file Claude Code
/// skips. Plain text, one line each, no colour.
pub fn summary_lines(e: &EffectiveNegotiation) -> Vec<String> {
    let mut lines = vec![effective_line(e)];
    lines.extend(
        problem_lines(e)
            .into_iter()
            .map(|p| format!("warning: {p}")),
    );
    lines
}

/// The full `mcplogs settings` text, fitted to `width` (a table, or below that a list),
/// paths under `home` shown as `~`.
pub fn settings_text(e: &EffectiveNegotiation, width: Option<usize>, home: Option<&str>) -> String {
    let columns = [
        Column {
            title: "  LAYER",
            shrink: false,
        },
        Column {
            title: "FILE",
            shrink: false,
        },
        Column {
            title: "STATUS",
            shrink: false,
        },
        Column {
            title: NEGOTIATION_KEY,
            shrink: false,
        },
    ];
    let rows: Vec<Vec<String>> = e
        .layers
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let status = status_text(l);
            let status = if l.is_problem() {
                status.red().bold()
            } else if l.status == LayerStatus::Absent {
                status.dimmed()
            } else {
                status.normal()
            };
            let marker = if e.decided_by == Some(i) { "*" } else { " " };
            vec![
                format!("{marker} {}", l.kind),
                layout::tilde(&where_text(l), home),
                status.to_string(),
                layer_value(l),
            ]
        })
        .collect();
    let mut out = layout::wrap_keeping(
        &format!(
            "Settings layers for {} (highest precedence first):",
            layout::tilde(
                &terminal_safe(&e.project_dir.display().to_string(), false),
                home
            )
        ),
        "",
        2,
        width,
    );
    out.push('\n');
    out.push_str(&layout::table(&columns, &rows, width));
    let problems = problem_lines(e);
    if !problems.is_empty() {
        out.push('\n');
        for p in problems {
            let mark = format!("{} ", "!".red().bold());
            out.push_str(&layout::wrap_keeping(
                &layout::tilde_within(&p, home),
                &mark,
                2,
                width,
            ));
        }
    }
    out.push('\n');
    let line = layout::tilde_within(&effective_line(e), home);
    let line = layout::wrap_keeping(&line, "Effective: ", 2, width);
    if e.is_legacy() {
        out.push_str(&line.green().to_string());
    } else {
        out.push_str(&line);
    }
    out
}

/// The servers block of `mcplogs settings`: every server configured for the project
/// (`servers`: [`crate::scan::configured::entries`] of the one resolution), its scope,
/// file and state in a table, then a note per server that needs one (who approves it,
/// or the file and key that keep it off and the way out) and its entry's warnings.
pub fn servers_text(
    project: &std::path::Path,
    servers: &[(String, Configured)],
    width: Option<usize>,
    home: Option<&str>,
) -> String {
    let project = layout::tilde(&terminal_safe(&project.display().to_string(), false), home);
    if servers.is_empty() {
        return layout::wrap_keeping(
            &format!(
                "MCP servers: none configured for {project} (in ~/.claude.json, its .mcp.json or managed-mcp.json)."
            ),
            "",
            2,
            width,
        );
    }
    let columns = [
        Column {
            title: "  SERVER",
            shrink: true,
        },
        Column {
            title: "SCOPE",
            shrink: false,
        },
        Column {
            title: "STATE",
            shrink: false,
        },
        Column {
            title: "FILE",
            shrink: true,
        },
    ];
    let rows: Vec<Vec<String>> = servers
        .iter()
        .map(|(name, c)| {
            let label = configured::state_label(c);
            let label = match c.state {
                ServerState::Starts => label.green().to_string(),
                ServerState::Skipped(_) => label.red().bold().to_string(),
                ServerState::PendingApproval => label.yellow().to_string(),
                _ => label.dimmed().to_string(),
            };
            vec![
                format!("  {}", terminal_safe(name, false)),
                c.scope.as_str().to_string(),
                label,
                c.file
                    .as_ref()
                    .map(|f| layout::tilde(&terminal_safe(&f.display().to_string(), false), home))
                    .unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    let mut out = layout::wrap_keeping(
        &format!("MCP servers configured for {project} (what Claude Code does with each there):"),
        "",
        2,
        width,
    );
    out.push('\n');
    out.push_str(&layout::table(&columns, &rows, width));
    let mut notes = String::new();
    for (name, c) in servers {
        let name = terminal_safe(name, false);
        if let Some(note) = configured::settings_note(c, &name, home) {
            let note = terminal_safe(&note, false);
            notes.push_str(&layout::wrap_keeping(
                &note,
                &format!("  {name}: "),
                4,
                width,
            ));
        }
        for w in &c.warnings {
            let w = terminal_safe(w, false);
            let mark = format!("  {} {name}: ", "!".yellow().bold());
            notes.push_str(&layout::wrap_keeping(&w, &mark, 4, width));
        }
    }
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes);
    }
    out
}

/// The project's servers in `settings --json` (`servers[]`).
pub fn servers_json(servers: &[(String, Configured)]) -> Vec<json_doc::SettingsServer> {
    servers
        .iter()
        .map(|(name, c)| json_doc::SettingsServer {
            name: name.clone(),
            configuration: super::scan::server_configuration_json(c),
            note: configured::settings_note(c, name, None),
        })
        .collect()
}

/// `mcplogs settings --json` ([`json_doc::SettingsDocument`], fields in docs/json.md):
/// the layers, and the project's `servers` ([`crate::scan::configured::entries`]).
pub fn settings_json(
    e: &EffectiveNegotiation,
    servers: &[(String, Configured)],
) -> json_doc::SettingsDocument {
    settings_layers_json(e).into_document(servers_json(servers))
}

/// The settings layers as part of another document (`scan --json`'s `settings`).
pub fn settings_layers_json(e: &EffectiveNegotiation) -> json_doc::Settings {
    let layers = e
        .layers
        .iter()
        .map(|l| {
            let (problem, ignored_env_keys, error) = match &l.status {
                LayerStatus::Ignored { problem, env_keys } => {
                    (Some(problem), env_keys.clone(), None)
                }
                LayerStatus::Invalid { problem } => (Some(problem), Vec::new(), None),
                LayerStatus::Unreadable { error } => (None, Vec::new(), Some(error.to_string())),
                _ => (None, Vec::new(), None),
            };
            json_doc::SettingsLayer {
                layer: l.kind.as_str().to_string(),
                path: l.path.as_ref().map(|p| p.display().to_string()),
                present: l.present(),
                status: l.status.as_str().to_string(),
                strict: match l.status {
                    LayerStatus::Strict => Some(true),
                    LayerStatus::Ignored { .. } | LayerStatus::Invalid { .. } => Some(false),
                    _ => None,
                },
                in_effect: l.in_effect() && l.present(),
                negotiation: l.negotiation.as_ref().map(|v| v.as_str().to_string()),
                problem: problem.map(|p| json_doc::TextProblem {
                    line: p.line as u64,
                    column: p.column as u64,
                    message: p.message.clone(),
                }),
                ignored_env_keys,
                error,
            }
        })
        .collect();
    let decider = e.deciding_layer();
    json_doc::Settings {
        project: e.project_dir.display().to_string(),
        layers,
        effective: json_doc::Effective {
            value: e.value().map(|v| v.as_str().to_string()),
            legacy: e.is_legacy(),
            layer: decider.map(|l| l.kind.as_str().to_string()),
            path: decider
                .and_then(|l| l.path.as_ref())
                .map(|p| p.display().to_string()),
        },
    }
}

/// `mcplogs settings`' lines on the status line and the hook: installed or not, where,
/// and what stops them.
pub fn integrations_text(i: &crate::settings::setup::Integrations) -> String {
    let place = |k: &LayerKind, p: &std::path::Path| {
        format!(
            "{k} settings {}",
            terminal_safe(&p.display().to_string(), false)
        )
    };
    let mut out = String::from("\nStatus line and hook (mcplogs setup):\n");
    match i.effective_status_line() {
        Some((k, p, c)) if crate::settings::setup::is_our_statusline_command(c) => {
            out.push_str(&format!("  status line: mcplogs, in {}\n", place(k, p)));
        }
        Some((k, p, c)) => out.push_str(&format!(
            "  status line: your own, in {} ({}); `mcplogs setup statusline` shows how to add mcplogs\n",
            place(k, p),
            // redacted alone, before it is cut and put in the sentence: a secret's value
            // at its end took the sentence's `);` with it (helper-77 #9)
            terminal_safe(&crate::text::cut(&crate::redact::output::text(c), 60), false)
        )),
        None => out.push_str("  status line: not installed (`mcplogs setup statusline`)\n"),
    }
    match i.hooks.first() {
        Some((k, p)) => out.push_str(&format!(
            "  hook: mcplogs, {} in {}\n",
            crate::settings::setup::HOOK_EVENT,
            place(k, p)
        )),
        None => out.push_str("  hook: not installed (`mcplogs setup hook`)\n"),
    }
    if let Some((k, p)) = i.disable_all_hooks.first() {
        out.push_str(&format!(
            "  {} disableAllHooks is true in {}: Claude Code runs no hook and no status line\n",
            "!".red().bold(),
            place(k, p)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::settings::TextProblem;
    use crate::settings::*;

    fn report() -> EffectiveNegotiation {
        EffectiveNegotiation::from_layers(
            Path::new("/p"),
            vec![
                SettingsLayer {
                    kind: LayerKind::Project,
                    path: Some(PathBuf::from("/p/.claude/settings.json")),
                    status: LayerStatus::Ignored {
                        problem: TextProblem {
                            line: 2,
                            column: 3,
                            message: "expected value".into(),
                        },
                        env_keys: vec!["MCP_PROTOCOL_NEGOTIATION".into()],
                    },
                    negotiation: Some(NegotiationValue::Legacy),
                },
                SettingsLayer {
                    kind: LayerKind::User,
                    path: Some(PathBuf::from("/h/.claude/settings.json")),
                    status: LayerStatus::Strict,
                    negotiation: Some(NegotiationValue::Auto),
                },
                SettingsLayer {
                    kind: LayerKind::Environment,
                    path: None,
                    status: LayerStatus::Environment,
                    negotiation: None,
                },
            ],
        )
    }

    #[test]
    fn summary_names_the_decider_and_the_ignored_file() {
        assert_eq!(
            summary_lines(&report()),
            vec![
                "MCP_PROTOCOL_NEGOTIATION = auto, from user settings /h/.claude/settings.json"
                    .to_string(),
                "warning: /p/.claude/settings.json is ignored entirely by Claude Code: not strict JSON (line 2, column 3: expected value); env keys not in effect: MCP_PROTOCOL_NEGOTIATION".to_string(),
            ]
        );
    }

    #[test]
    fn json_shape() {
        let j = serde_json::to_value(settings_json(&report(), &[])).expect("json");
        assert_eq!(j["schemaVersion"], 3);
        assert_eq!(j["effective"]["value"], "auto");
        assert_eq!(j["effective"]["layer"], "user");
        assert_eq!(j["layers"][0]["status"], "ignored");
        assert_eq!(j["layers"][0]["strict"], false);
        assert_eq!(j["layers"][0]["inEffect"], false);
        assert_eq!(j["layers"][0]["problem"]["line"], 2);
        assert_eq!(j["layers"][0]["negotiation"], "legacy");
        assert_eq!(j["layers"][2]["present"], false);
        assert_eq!(j["layers"][2]["path"], serde_json::Value::Null);
    }

    #[test]
    fn default_when_nothing_sets_it() {
        let e = EffectiveNegotiation::from_layers(Path::new("/p"), vec![]);
        assert!(effective_line(&e).contains("not set"));
    }
}
