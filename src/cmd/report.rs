//! `mcplogs report`: scan as `scan` does, build the report, redact it, fit it under
//! GitHub's limit, and write it to stdout or `--output`. Everything written to stderr
//! goes through the same redactor as the report.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mcplogs::redact::{Redactor, RedactorBuilder};
use mcplogs::report::{self, GITHUB_BODY_LIMIT, Versions};
use mcplogs::scan::scan;
use mcplogs::settings;

use crate::cli::ReportArgs;
use crate::cmd::scan::nothing_found;
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;

/// How long `claude --version` may take before the version is "unknown".
const CLAUDE_VERSION_TIMEOUT: Duration = Duration::from_secs(1);

pub fn run(args: ReportArgs) -> Result<ExitCode, Error> {
    let no_redact = args.redact.no_redact;
    let opts = mcplogs::scan::ScanOptions {
        index: args.cache.index_dir(),
        ..args.discovery.scan_options()
    };
    let home_dir = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    let machine = RedactorBuilder::for_machine(&opts.request.homes, home_dir.as_deref(), &|k| {
        std::env::var_os(k)
    })
    .mask_hosts(!args.keep_hosts);
    // For messages written before the report exists (a bad path on the command line).
    let early = if no_redact {
        Redactor::disabled()
    } else {
        machine.clone().build()
    };
    if no_redact {
        output::note(
            "mcplogs: --no-redact: this report is NOT redacted; home folders, user names and any secrets in the logs appear as they are",
        );
    }

    let mut scanned = scan(&opts).map_err(|e| Error::Redacted {
        message: early.redact(&e.to_string()),
        source: e.error,
    })?;
    let cwd = std::env::current_dir().unwrap_or_default();
    let sources_for = |dir: &std::path::Path| {
        let mut sources = settings::Sources::for_scan(&opts.request.homes, dir);
        if let Some(d) = &args.managed_dir {
            sources.managed_dir = d.clone();
        }
        sources
    };
    let negotiation = settings::effective_negotiation(&sources_for(&cwd));
    mcplogs::advice::attach_with(&mut scanned, &cwd, &|dir| {
        settings::effective_negotiation(&sources_for(dir))
    });

    // Read the problem servers' stderr records again: the report's one extra read of
    // the logs. A file that fails here is a warning (shown below, redacted, and listed in
    // the report), not an error.
    let stderr = report::stderr::gather(&scanned);
    let mut rep = report::build(
        &scanned,
        &stderr,
        &negotiation,
        Versions::this_machine(claude_version()),
    );
    if !no_redact {
        rep.redact(machine);
    }
    let redactor = rep.redactor().clone();
    output::warnings(&rep.warnings);
    if let Some(m) = nothing_found(&scanned, &opts) {
        output::note(redactor.redact(&m));
    }

    // `--probe`: this project's configured servers, probed; redacted with the probe's
    // redactor (which knows their configured secrets), then like the rest.
    let probed = args
        .probe
        .then(|| crate::cmd::probe::probe_for_report(&cwd));
    let text = if args.output.json {
        let mut doc = report::json::report_json(&rep);
        doc.probe = probed.as_ref().map(|(probes, probe_redactor)| {
            probes
                .iter()
                .map(|p| mcplogs::probe::render::server_json(p, None, probe_redactor))
                .collect()
        });
        let mut doc = serde_json::to_value(doc)?;
        mcplogs::redact::output::json_value(&redactor, &mut doc);
        output::json(&doc)?
    } else {
        let (text, fitted) = report::limit::fit(&rep, GITHUB_BODY_LIMIT);
        if !fitted.omitted.is_empty() {
            output::note(format_args!(
                "mcplogs: the report was over GitHub's {GITHUB_BODY_LIMIT}-character limit: {} left out{}",
                mcplogs::text::count(fitted.omitted.total(), "log record"),
                if fitted.omitted.cut {
                    ", and its end cut"
                } else {
                    ""
                }
            ));
        }
        match &probed {
            Some((probes, probe_redactor)) => format!(
                "{text}{}",
                redactor.redact(&mcplogs::probe::render::markdown_summary(
                    probes,
                    probe_redactor
                ))
            ),
            None => text,
        }
    };

    let written = match &args.output_file {
        Some(path) => {
            std::fs::write(path, mcplogs::sanitize::output(&text, false).as_bytes()).map(|_| {
                output::note(format_args!(
                    "mcplogs: report written to {} ({} characters)",
                    redactor.redact(&path.display().to_string()),
                    text.chars().count()
                ));
            })
        }
        None => output::write_stdout(&text),
    };
    if let Err(source) = written {
        let target = args
            .output_file
            .as_ref()
            .map(|p| redactor.redact(&p.display().to_string()))
            .unwrap_or_else(|| "stdout".to_string());
        return Err(Error::WriteReport { target, source });
    }
    Ok(ExitCode::from_problems(rep.has_problems()))
}

/// The first line `claude --version` prints, if it answers within a second. A reader
/// thread holds the pipe, so a `claude` that hangs (or leaves a child holding its
/// stdout) cannot block the report.
fn claude_version() -> Option<String> {
    let candidates: &[&str] = if cfg!(windows) {
        &["claude", "claude.cmd"]
    } else {
        &["claude"]
    };
    let mut child = candidates.iter().find_map(|c| {
        Command::new(c)
            .arg("--version")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()
    })?;
    let mut stdout = child.stdout.take()?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        let _ = tx.send(s);
    });
    match rx.recv_timeout(CLAUDE_VERSION_TIMEOUT) {
        Ok(out) => {
            let ok = child.wait().is_ok_and(|s| s.success());
            let line = out.lines().map(str::trim).find(|l| !l.is_empty())?;
            ok.then(|| mcplogs::text::whole_words(line, 200).to_string())
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            None
        }
    }
}
