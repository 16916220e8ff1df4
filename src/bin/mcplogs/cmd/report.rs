//! `mcplogs report`: scan as `scan` does, build the report, redact it, fit it under
//! GitHub's limit, and write it to stdout or `--output`. Everything written to stderr
//! goes through the same redactor as the report.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mcplogs::redact::{Redactor, RedactorBuilder};
use mcplogs::report::{self, GITHUB_BODY_LIMIT, Versions};
use mcplogs::safe_read;
use mcplogs::scan::scan;

use crate::cli::ReportArgs;
use crate::cmd::scan::{found_nothing, nothing_found};
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;

/// How long `claude --version` may take before the version is "unknown".
const CLAUDE_VERSION_TIMEOUT: Duration = Duration::from_secs(1);

pub fn run(mut args: ReportArgs) -> Result<ExitCode, Error> {
    // `report NAME`, as `scan NAME`: a word naming no file but a server is its `--server`
    super::scan::name_as_server(
        &mut args.discovery,
        args.managed_dir.as_deref(),
        "reporting on",
    )?;
    let no_redact = args.redact.no_redact;
    let opts = mcplogs::scan::ScanOptions {
        index: args.cache.index_dir(),
        // no tail: each failing server's records as the report shows them, taken in
        // the scan's read (report::stderr reads again only those it could not take)
        stderr_tails: mcplogs::scan::StderrTails::Report,
        managed_dir: args.managed_dir.clone(),
        no_redact,
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
    // `-o FILE`: what is there now must be a regular file (or nothing), checked before
    // the scan, so a FIFO or a device is refused at once instead of blocking the write
    // at the end, and a symbolic link (one a cloned repository can ship as `issue.md`,
    // leading to `~/.bashrc`) is refused, never written through. The file itself is
    // opened only once there is a report to write (non-blocking, no link followed, and
    // checked again after the open).
    if let Some(path) = &args.output_file {
        let refused = |source| Error::OpenReport {
            target: early.redact(&path.display().to_string()),
            source,
        };
        // Absent: it will be created, in a folder that must exist now.
        if !safe_read::output_target(path).map_err(refused)? {
            let parent = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(std::path::Path::new("."));
            if !std::fs::metadata(parent).is_ok_and(|m| m.is_dir()) {
                // the error of the path itself ("No such file or directory")
                let e = std::fs::symlink_metadata(path)
                    .err()
                    .unwrap_or_else(|| std::io::ErrorKind::NotFound.into());
                return Err(refused(safe_read::ReadError::Io(e)));
            }
        }
    }
    if no_redact {
        output::note(
            "mcplogs: --no-redact: this report is NOT redacted; home folders, user names and any secrets in the logs appear as they are",
        );
    }

    // `claude --version` (a Node.js start, up to a second) runs while the logs are read.
    let claude_code = std::thread::spawn(claude_version);
    let mut scanned = scan(&opts).map_err(|e| Error::Redacted {
        message: early.redact(&e.to_string()),
        source: e.error,
    })?;
    // The reading is over: what it freed goes back to the OS before the resolution and
    // the sections, this command's peak (see alloc.rs).
    #[cfg(target_os = "linux")]
    crate::alloc::give_back_at_once();
    let cwd = std::env::current_dir().unwrap_or_default();
    let managed_dir = args.managed_dir.as_deref();
    let negotiation = mcplogs::resolve::negotiation_in(&opts.request.homes, &cwd, managed_dir);
    // Resolved as `scan` resolves them; with how each server is started (the first
    // step for a stdio server that did not connect). The report redacts its own
    // document.
    mcplogs::resolve::resolve(
        &mut scanned,
        &opts,
        &cwd,
        managed_dir,
        mcplogs::resolve::Steps {
            // kept as configured: the report redacts its launch line whole
            // (`config_redactor`), as a shell reads it
            launch: mcplogs::resolve::Launch::Attach { redact: false },
            redact_report: false,
            fixes: mcplogs::resolve::Fixes::Find {
                build: mcplogs::probe::installed_claude_version,
            },
        },
    );

    // The problem servers' stderr records: those the scan took in its read, the others
    // read again (a debug log, a file too large for the scan to take them, a session
    // the index served). A file that fails here is a warning (shown below, redacted,
    // and listed in the report), not an error.
    let stderr = report::stderr::gather(&mut scanned, !no_redact);
    // The configured values that could be secrets (every configuration file the scan
    // read: `ScanReport::secrets`), for the launch lines and the advice that can name
    // a configured command.
    let config_redactor = mcplogs::resolve::configured_redactor(&[], &scanned.secrets);
    // All the rest asks of the scan is whether it found anything: its servers become
    // the report's, each freed once its section is made (100,000 servers: the scan's
    // and the report's were each about 200 MB, and were both held).
    // (what its message names, kept to be said once the report's redactor is known:
    // the names a filter missed are printed as scan prints them)
    let nothing = found_nothing(&scanned).then(|| mcplogs::scan::ScanReport {
        searched: scanned.searched.clone(),
        newest_log: scanned.newest_log,
        unfiltered_names: std::mem::take(&mut scanned.unfiltered_names),
        unfiltered_projects: std::mem::take(&mut scanned.unfiltered_projects),
        ..mcplogs::scan::ScanReport::default()
    });
    // A Markdown report sure to be cut within the entries of the servers it is about
    // keeps only the sections it can show (100,000 servers: a few hundred), the others
    // learned from and counted; it shows no record. Not for `--probe`, which probes
    // every server the report covers.
    let reach = (!args.output.json && !args.probe)
        .then(|| report::sections_within_reach(&scanned, GITHUB_BODY_LIMIT, args.force))
        .flatten();
    // A Markdown report sure to be too long to show any record keeps none (100,000
    // servers: most of the report's memory), only how many each server had.
    let records = args.output.json
        || (reach.is_none() && !report::records_never_fit(&scanned, GITHUB_BODY_LIMIT));
    // Each server's own launch, as the scan resolved it for its project (one answer:
    // `scan` shows the same entry).
    // (`--no-redact`: as configured, as the report says it is)
    let launch = |s: &mcplogs::scan::ServerReport| {
        s.launch.as_deref().and_then(report::launch_line).map(|l| {
            if no_redact {
                l
            } else {
                config_redactor.redact(&l)
            }
        })
    };
    let mut rep = report::build_taking(
        &mut scanned,
        stderr,
        &negotiation,
        Versions::this_machine(claude_code.join().ok().flatten()),
        &report::Making {
            launch: &launch,
            learn: (!no_redact).then_some(&machine),
            records,
            reach,
            // `--json` writes one section at a time: each one's records made then
            defer_records: args.output.json,
        },
    );
    // The servers the report covers, before their names and folders are redacted:
    // what `--probe` probes.
    let covered: Vec<(String, Option<String>)> = if args.probe {
        rep.servers
            .iter()
            .map(|s| (s.name.clone(), s.project.clone()))
            .collect()
    } else {
        Vec::new()
    };
    if !no_redact {
        rep.redact(machine);
    }
    let redactor = rep.redactor().clone();
    output::warnings(&rep.warnings);
    // `--probe` brings its own content (the servers as they answer now), so it writes a
    // report whatever the logs hold, as `--force` does.
    let force = args.force || args.probe;
    // "Known servers" and "did you mean": each name as scan prints it (redacted, with
    // its tag where the secret rules change it), once. Redacted whole below, a logged
    // name read as it was written came out untagged, beside its row's tagged name.
    let nothing = nothing.and_then(|mut found| {
        if !no_redact {
            for n in &mut found.unfiltered_names {
                *n = mcplogs::scan::select::shown_by(&redactor, n);
            }
            found.unfiltered_names.sort();
            found.unfiltered_names.dedup();
        }
        nothing_found(&found, &opts)
    });
    if let Some(m) = nothing {
        let m = prose_redacted(&redactor, &m);
        if !force {
            let m = m.trim_start_matches("mcplogs: ");
            return Err(Error::NothingToReport {
                detail: m.to_string(),
            });
        }
        output::note(m);
    }
    if !force && let Some((code, why)) = refuse(&rep, &listing(&opts)) {
        // `--json` prints one document whenever the exit code is 0 or 1: here, the
        // scanned content with `written: false` and why (on stdout, never in `-o FILE`).
        if args.output.json {
            let mut doc = report::json::report_json_head(&rep);
            doc.written = false;
            doc.not_written = Some(why);
            json_streamed(doc, &rep, &redactor).map_err(Error::WriteOutput)?;
        }
        return Ok(code);
    }

    // `--probe`: this project's configured servers, probed; redacted with the probe's
    // redactor (which knows their configured secrets), then like the rest.
    let probed = args.probe.then(|| {
        crate::cmd::probe::probe_for_report(
            &covered,
            &cwd,
            &opts.request.homes,
            args.managed_dir.as_deref(),
        )
    });
    if args.output.json && args.output_file.is_none() {
        // On stdout, written as it is made, one server at a time.
        let mut doc = report::json::report_json_head(&rep);
        doc.probe = probed.as_ref().map(|(probes, probe_redactor)| {
            probes
                .iter()
                .map(|p| mcplogs::render::probe::server_json(p, None, probe_redactor))
                .collect()
        });
        json_streamed(doc, &rep, &redactor).map_err(|source| Error::WriteReport {
            target: "stdout".to_string(),
            source,
        })?;
        let code = ExitCode::from_problems(rep.has_problems());
        super::leave_to_exit((rep, scanned));
        return Ok(code);
    }
    let problems = rep.has_problems();
    let text = if args.output.json {
        let mut doc = report::json::report_json(&rep);
        doc.probe = probed.as_ref().map(|(probes, probe_redactor)| {
            probes
                .iter()
                .map(|p| mcplogs::render::probe::server_json(p, None, probe_redactor))
                .collect()
        });
        let mut doc = serde_json::to_value(doc)?;
        mcplogs::redact::output::json_value(&redactor, &mut doc);
        super::leave_to_exit(rep);
        output::json(&doc)?
    } else {
        // The report is not needed after this: fitted as it is, not copied.
        let (text, fitted) = report::limit::fit_owned(rep, GITHUB_BODY_LIMIT);
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
        super::leave_to_exit(fitted);
        match &probed {
            // the Probe section goes before the footer (`<sub>mcplogs VERSION on ...`,
            // the report's last line: no log text renders as a `<sub>` tag)
            Some((probes, probe_redactor)) => {
                let section = redactor.redact(&mcplogs::render::probe::markdown_summary(
                    probes,
                    probe_redactor,
                ));
                let at = text.rfind("<sub>").unwrap_or(text.len());
                format!(
                    "{}{}\n{}",
                    &text[..at],
                    section.trim_start_matches('\n'),
                    &text[at..]
                )
            }
            None => text,
        }
    };

    let written = match &args.output_file {
        Some(path) => {
            let mut file = safe_read::create_private(path).map_err(|source| Error::OpenReport {
                target: redactor.redact(&path.display().to_string()),
                source,
            })?;
            std::io::Write::write_all(
                &mut file,
                mcplogs::text::sanitize::output(&text, false).as_bytes(),
            )
            .and_then(|()| std::io::Write::flush(&mut file))
        }
        .map(|()| {
            output::note(format_args!(
                "mcplogs: report written to {} ({} characters)",
                redactor.redact(&path.display().to_string()),
                text.chars().count()
            ));
        }),
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
    // With `--output FILE` the file is the result: written is success (exit 0), so
    // `mcplogs report -o issue.md && open issue.md` works. On stdout the code says, as
    // scan's does, whether a server fails (docs/usage.md, "Exit codes").
    let code = if args.output_file.is_some() {
        ExitCode::Clean
    } else {
        ExitCode::from_problems(problems)
    };
    super::leave_to_exit((scanned, text));
    Ok(code)
}

/// `report --json`'s document on stdout: `head` (the document without its servers), then
/// `rep`'s servers written into it one at a time, each redacted as the whole document
/// was (`redact::output::json_value`, value by value): the same bytes as the document
/// made whole, without a second copy of every server as JSON.
fn json_streamed(
    head: mcplogs::json_doc::ReportDocument,
    rep: &report::Report,
    redactor: &Redactor,
) -> std::io::Result<()> {
    let mut head = serde_json::to_value(head)?;
    mcplogs::redact::output::json_value(redactor, &mut head);
    output::json_value_streamed(head, "servers", rep.sections(), |s| {
        let mut v = serde_json::to_value(report::json::server_json(&s))?;
        mcplogs::redact::output::json_value(redactor, &mut v);
        Ok(v)
    })
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

/// Without `--force`, no report where none is due: no failing server (exit 0), or only
/// failures of the user's own set-up, which get their fix instead (exit 1). `None`: write
/// the report. The reason comes back for `--json`'s document.
/// The `mcplogs scan` that shows the servers this report read (its homes, paths and
/// filters), for the refusal to name.
fn listing(opts: &mcplogs::scan::ScanOptions) -> String {
    let mut c = crate::cmd::scan::scan_command(&opts.request.homes, &opts.request.paths);
    for (flag, v) in [
        ("--server", &opts.server),
        ("--match-project", &opts.project),
    ] {
        if let Some(v) = v {
            c.push_str(&format!(" {flag} {}", mcplogs::text::shell_word(v)));
        }
    }
    c
}

fn refuse(
    rep: &report::Report,
    shows: &str,
) -> Option<(ExitCode, mcplogs::json_doc::ReportNotWritten)> {
    use mcplogs::advice::Audience;
    use mcplogs::json_doc::ReportNotWritten;
    match rep.audience() {
        // A `tolerated` server has an audience (its authors), so none here works only
        // because Claude Code fills in fields: those are reported (issue 51).
        // A configuration Claude Code skips is a problem (`scan` exits 1 for it) of the
        // user's own set-up: as one below.
        None if !rep.has_problems() => {
            let message = format!(
                "no report written: no MCP server fails in these logs ({} checked; {} shows them). `--force` writes one anyway",
                mcplogs::text::count(rep.servers.len(), "server"),
                mcplogs::text::code_span(shows),
            );
            output::note(format_args!("mcplogs: {message}"));
            Some((
                ExitCode::Clean,
                ReportNotWritten {
                    reason: "no-failure".into(),
                    message,
                },
            ))
        }
        None | Some(Audience::UserConfig) => {
            let message = "no report written: what fails is this machine's own set-up, which no bug tracker can fix; each failing server's recommendation is its fix. `--force` writes a report anyway";
            output::note(
                "mcplogs: no report written: what fails is this machine's own set-up, which no bug tracker can fix. The fix:",
            );
            let fixes = rep
                .problem_servers()
                .map(|s| (s.name.as_str(), s.recommendation.as_str()))
                .chain(rep.config_errors());
            for (name, fix) in fixes {
                output::note(format_args!(
                    "  {}: {}",
                    mcplogs::text::sanitize::text(name),
                    fix
                ));
            }
            output::note("(`--force` writes a report anyway)");
            Some((
                ExitCode::from_problems(true),
                ReportNotWritten {
                    reason: "own-setup".into(),
                    message: message.into(),
                },
            ))
        }
        Some(_) => None,
    }
}

/// A diagnostic redacted as the report is, but for the commands in it (in backticks):
/// they name the homes given (`--home DIR`, which the report shows as `~`) and run as
/// printed only with them; what else they hold is printed already (a name as `echo`
/// prints it, a token never).
fn prose_redacted(redactor: &mcplogs::redact::Redactor, m: &str) -> String {
    m.split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                part.to_string()
            } else {
                redactor.redact(part)
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}
