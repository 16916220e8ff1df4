//! The thin binary: parse flags, call the library, render, pick the exit code.

mod cli;
mod cmd_prune;
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
        Command::Prune(args) => cmd_prune::run_prune(args),
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

fn print_warnings(warnings: &[Warning]) {
    let mut err = io::stderr().lock();
    for w in warnings {
        let _ = writeln!(err, "mcplogs: warning: {w}");
    }
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
        all: false,
        no_history: false,
    }
}

fn run_scan(args: ScanArgs) -> ExitCode {
    let opts = ScanOptions {
        all: args.all,
        ..scan_options(args.discovery)
    };
    let bar = progress::ScanProgress::new();
    let mut report = match scan_with_progress(&opts, &|p| bar.update(p)) {
        Ok(r) => r,
        Err(e) => return error(e),
    };
    bar.finish();
    if !args.no_redact {
        mcplogs::redact::output::scan_report(&mut report);
    }
    print_warnings(&report.warnings);
    let cwd = std::env::current_dir().unwrap_or_default();
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
        let mut t = table::scan_table(&report, args.verbose);
        t.push_str("\nSettings:\n");
        for line in settings::render::summary_lines(&negotiation) {
            t.push_str(&format!("  {line}\n"));
        }
        t
    };
    if let Some(m) = nothing_found(&report, &opts) {
        eprintln!("{m}");
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
    print_warnings(&du.warnings);
    let text = if args.json {
        let mut s = serde_json::to_string_pretty(&json::du_json(&du)).expect("json");
        s.push('\n');
        s
    } else {
        let mut t = table::du_table(&du);
        if du.bytes > 0 {
            t.push_str("Reclaim space: `mcplogs prune --dry-run` shows what can go (it keeps what explains each verdict).\n");
        }
        t
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
        _ => io::stdin()
            .read_to_end(&mut bytes)
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
        return error("nothing to explain: paste `claude mcp list` output or an error message");
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
