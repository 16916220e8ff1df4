//! `mcplogs explain`: pasted `claude mcp list` output or one error message, explained.

use std::io::{self, IsTerminal};

use mcplogs::explain::explain_json;
use mcplogs::render::table;
use mcplogs::safe_read::{EXPLAIN_MAX_BYTES, read_bounded, read_input_file};

use crate::cli::ExplainArgs;
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;

pub fn run(args: ExplainArgs) -> Result<ExitCode, Error> {
    let bytes = match args.file.as_deref() {
        Some(p) if p.as_os_str() != "-" => {
            read_input_file(p, EXPLAIN_MAX_BYTES).map_err(|source| Error::ReadFile {
                path: p.to_path_buf(),
                source,
            })?
        }
        _ => {
            if io::stdin().is_terminal() {
                output::note("Paste `claude mcp list` output, then Ctrl-D");
            }
            read_bounded(io::stdin().lock(), EXPLAIN_MAX_BYTES).map_err(Error::ReadStdin)?
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut report = mcplogs::explain::explain(&text);
    if !args.redact.no_redact {
        mcplogs::explain::redact_report(&mut report, &text);
    }
    if report.entries.is_empty() {
        return Err(Error::NothingToExplain);
    }
    let out = if args.output.json {
        output::json_redacted(&explain_json(&report), !args.redact.no_redact)?
    } else if args.redact.no_redact {
        table::explain_table(&report)
    } else {
        mcplogs::redact::output::text(&table::explain_table(&report))
    };
    output::stdout(&out)?;
    Ok(ExitCode::from_problems(report.has_problems()))
}
