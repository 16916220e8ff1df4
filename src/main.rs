//! The thin binary: parse flags, call the library, render, pick the exit code.

mod cli;
mod cmd_docs;
mod cmd_report;
mod cmd_settings;
mod exit_codes;
mod progress;

use std::io::{self, IsTerminal, Read, Write};

use clap::Parser;

use cli::{Cli, ColorChoice, Command, DiscoveryArgs, DuArgs, ExplainArgs, ScanArgs};
use exit_codes::ExitCode;
use mcplogs::discovery::Request;
use mcplogs::render::{json, table};
use mcplogs::scan::{ScanOptions, ScanReport, scan_with_progress};
use mcplogs::settings;
use mcplogs::warning::Warning;

fn main() {
    let cli = Cli::parse();
    set_colour(cli.color);
    let code = match cli.command {
        Command::Scan(args) => run_scan(args),
        Command::Explain(args) => run_explain(args),
        Command::Settings(args) => cmd_settings::run_settings(args),
        Command::Fix(args) => cmd_settings::run_fix(args),
        Command::Report(args) => cmd_report::run_report(args),
        Command::Du(args) => run_du(args),
        Command::Completions(args) => cmd_docs::completions(args.shell),
        Command::Man => cmd_docs::man(),
    };
    std::process::exit(code as i32);
}

fn set_colour(choice: ColorChoice) {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let on = !no_color
        && match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => io::stdout().is_terminal(),
        };
    colored::control::set_override(on);
}

pub(crate) fn error(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("mcplogs: error: {message}");
    ExitCode::Error
}

/// One line per kind of warning, or every warning with `all` (`--verbose`).
pub(crate) fn print_warnings(warnings: &[Warning], all: bool) {
    let mut err = io::stderr().lock();
    for line in mcplogs::warning::summary_lines(warnings, all) {
        let _ = writeln!(err, "mcplogs: warning: {line}");
    }
}

/// The width to fit: `COLUMNS` when set, else the terminal's when stdout is one, else
/// `None` (piped: nothing is cut or wrapped).
pub(crate) fn output_width() -> Option<usize> {
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
    {
        return Some(n.max(40));
    }
    if !io::stdout().is_terminal() {
        return None;
    }
    terminal_columns().map(|w| w.max(40))
}

/// The terminal's columns. On Unix straight from TIOCGWINSZ, since `terminal_size`
/// gives up when the row count is 0 (as under `script` after `stty cols 80`).
#[cfg(unix)]
fn terminal_columns() -> Option<usize> {
    // SAFETY: TIOCGWINSZ writes one `winsize` into the struct we own; fd 1 is only read.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(1, libc::TIOCGWINSZ, &mut ws) } == 0;
    (ok && ws.ws_col > 0).then_some(usize::from(ws.ws_col))
}

#[cfg(not(unix))]
fn terminal_columns() -> Option<usize> {
    terminal_size::terminal_size().map(|(terminal_size::Width(w), _)| usize::from(w))
}

/// Writes to stdout; a closed pipe (`| head`) is not an error worth a message.
pub(crate) fn emit(text: &str) -> Result<(), io::Error> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// The scan the discovery flags ask for (`scan` and `report` share them).
pub(crate) fn scan_options(args: DiscoveryArgs) -> ScanOptions {
    ScanOptions {
        request: Request {
            homes: args.home,
            paths: args.paths,
        },
        server: args.server,
        project: args.project,
        since: args.since,
    }
}

fn run_scan(args: ScanArgs) -> ExitCode {
    let opts = scan_options(args.discovery);
    let bar = progress::ScanProgress::new();
    let mut report = match scan_with_progress(&opts, &|p| bar.update(p)) {
        Ok(r) => r,
        Err(e) => return error(e),
    };
    bar.finish();
    if !args.no_redact {
        mcplogs::redact::output::scan_report(&mut report);
    }
    print_warnings(&report.warnings, args.verbose);
    let cwd = std::env::current_dir().unwrap_or_default();
    mcplogs::advice::attach(&mut report, &opts.request.homes, &cwd);
    let negotiation =
        settings::effective_negotiation(&settings::Sources::for_scan(&opts.request.homes, &cwd));
    let text = if args.json {
        let mut doc = json::scan_json(&report);
        doc["settings"] = settings::render::settings_json(&negotiation);
        let mut s = serde_json::to_string_pretty(&doc).expect("json");
        s.push('\n');
        s
    } else if report.servers.is_empty() {
        String::new()
    } else {
        let width = output_width();
        let home = directories::BaseDirs::new().map(|b| b.home_dir().display().to_string());
        let mut t = table::scan_screen(
            &report,
            &table::ScreenOptions {
                width,
                home,
                verbose: args.verbose,
            },
        );
        t.push_str("\nSettings (for this folder)\n");
        for line in settings::render::summary_lines(&negotiation) {
            t.push_str(&table::wrap(&line, "  ", 4, width));
        }
        t
    };
    if let Some(m) = nothing_found(&report, &opts) {
        eprintln!("{m}");
        // A --server name that matches none of the servers found is a usage error.
        if opts.server.is_some() && !report.unfiltered_names.is_empty() {
            return ExitCode::Error;
        }
    }
    if let Err(e) = emit(&text) {
        return error(format!("cannot write output: {e}"));
    }
    ExitCode::from_problems(report.has_problems())
}

/// The stderr line for a scan that found no server, if it found none.
pub(crate) fn nothing_found(report: &ScanReport, opts: &ScanOptions) -> Option<String> {
    if !report.servers.is_empty() {
        return None;
    }
    let searched: Vec<String> = report
        .searched
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let known = &report.unfiltered_names;
    if let Some(want) = &opts.server
        && !known.is_empty()
    {
        let hint = mcplogs::names::did_you_mean(want, known)
            .map(|n| format!(" Did you mean `{n}`?"))
            .unwrap_or_default();
        return Some(format!(
            "mcplogs: no server named {want:?}.{hint} Known servers: {}",
            known.join(", ")
        ));
    }
    if let Some(want) = &opts.project
        && !known.is_empty()
    {
        return Some(format!(
            "mcplogs: no project path contains {want:?} ({} server(s) found in other projects: `mcplogs du` lists the projects)",
            known.len()
        ));
    }
    if let (Some(since), Some(newest)) = (opts.since, report.newest_log) {
        let now = mcplogs::time::now();
        return Some(format!(
            "mcplogs: no MCP server activity since {}; the newest log was last written {} ({}). Widen --since, or drop it",
            mcplogs::time::format_iso(since).replace(".000Z", "Z"),
            mcplogs::time::age(now - newest),
            mcplogs::time::format_iso(newest).replace(".000Z", "Z"),
        ));
    }
    let filtered = opts.server.is_some() || opts.project.is_some();
    Some(format!(
        "mcplogs: no MCP server logs{} found (searched: {})",
        if filtered {
            " matching the filters"
        } else {
            ""
        },
        searched.join(", ")
    ))
}

fn run_du(args: DuArgs) -> ExitCode {
    let opts = scan_options(args.discovery);
    let du = match mcplogs::du::disk_use(&opts) {
        Ok(d) => d,
        Err(e) => return error(e),
    };
    print_warnings(&du.warnings, false);
    let text = if args.json {
        let mut s = serde_json::to_string_pretty(&json::du_json(&du)).expect("json");
        s.push('\n');
        s
    } else {
        table::du_table(&du)
    };
    if du.projects.is_empty() {
        eprintln!("mcplogs: no MCP server logs found");
    }
    if let Err(e) = emit(&text) {
        return error(format!("cannot write output: {e}"));
    }
    ExitCode::Clean
}

fn run_explain(args: ExplainArgs) -> ExitCode {
    let mut bytes = Vec::new();
    let read = match args.file.as_deref() {
        Some(p) if p.as_os_str() != "-" => std::fs::read(p)
            .map(|b| bytes = b)
            .map_err(|e| format!("{}: {e}", p.display())),
        _ => {
            if io::stdin().is_terminal() {
                eprintln!("Paste `claude mcp list` output, then Ctrl-D");
            }
            io::stdin().read_to_end(&mut bytes)
        }
        .map(|_| ())
        .map_err(|e| format!("stdin: {e}")),
    };
    if let Err(e) = read {
        return error(e);
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut report = mcplogs::explain::explain(&text);
    if !args.no_redact {
        mcplogs::redact::output::explain_report(&mut report);
    }
    if report.entries.is_empty() {
        return error(
            "no server lines recognised: give `claude mcp list` output (for example `claude mcp list | mcplogs explain`) or one error message from an MCP log",
        );
    }
    let out = if args.json {
        let mut s = serde_json::to_string_pretty(&json::explain_json(&report)).expect("json");
        s.push('\n');
        s
    } else {
        table::explain_table(&report)
    };
    if let Err(e) = emit(&out) {
        return error(format!("cannot write output: {e}"));
    }
    ExitCode::from_problems(report.has_problems())
}
