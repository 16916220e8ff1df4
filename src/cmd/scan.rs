//! `mcplogs scan`: every server's verdict, as a table or one JSON document.

use mcplogs::render::{json, table};
use mcplogs::scan::{ScanOptions, ScanReport, scan_with_progress};
use mcplogs::settings;

use crate::cli::ScanArgs;
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;
use crate::progress::ScanProgress;

pub fn run(args: ScanArgs) -> Result<ExitCode, Error> {
    let opts = ScanOptions {
        all: args.all,
        ..args.discovery.scan_options()
    };
    let bar = ScanProgress::new();
    let mut report = scan_with_progress(&opts, &|p| bar.update(p))?;
    bar.finish();
    if !args.redact.no_redact {
        mcplogs::scan::redact_report(&mut report);
    }
    output::warnings(&report.warnings);
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut sources = settings::Sources::for_scan(&opts.request.homes, &cwd);
    if let Some(d) = args.managed_dir {
        sources.managed_dir = d;
    }
    let negotiation = settings::effective_negotiation(&sources);
    let text = if args.output.json {
        let mut doc = json::scan_json(&report);
        doc["settings"] = settings::render::settings_json(&negotiation);
        output::json(&doc)?
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
        output::note(m);
    }
    output::stdout(&text)?;
    Ok(ExitCode::from_problems(report.has_problems()))
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
