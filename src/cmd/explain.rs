//! `mcplogs explain`: pasted `claude mcp list` output or one error message, explained.

use std::io::{self, IsTerminal, Read};

use mcplogs::render::{json, table};

use crate::cli::ExplainArgs;
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;

pub fn run(args: ExplainArgs) -> Result<ExitCode, Error> {
    let bytes = match args.file.as_deref() {
        Some(p) if p.as_os_str() != "-" => std::fs::read(p).map_err(|source| Error::ReadFile {
            path: p.to_path_buf(),
            source,
        })?,
        _ => {
            if io::stdin().is_terminal() {
                output::note("Paste `claude mcp list` output, then Ctrl-D");
            }
            let mut bytes = Vec::new();
            io::stdin()
                .read_to_end(&mut bytes)
                .map_err(Error::ReadStdin)?;
            bytes
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut report = mcplogs::explain::explain(&text);
    if !args.redact.no_redact {
        mcplogs::explain::redact_report(&mut report);
    }
    if report.entries.is_empty() {
        return Err(Error::NothingToExplain);
    }
    let out = if args.output.json {
        output::json(&json::explain_json(&report))?
    } else {
        table::explain_table(&report)
    };
    output::stdout(&out)?;
    Ok(ExitCode::from_problems(report.has_problems()))
}
