//! `mcplogs explain`: pasted `claude mcp list` output or one error message, explained.

use std::io::{self, IsTerminal};

use mcplogs::render;
use mcplogs::render::explain::{explain_json_head, explain_json_servers};
use mcplogs::safe_read::{EXPLAIN_MAX_BYTES, read_bounded, read_input_file};

use crate::cli::ExplainArgs;
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;

pub fn run(args: ExplainArgs) -> Result<ExitCode, Error> {
    let bytes = match (args.message.clone(), args.file.as_deref()) {
        (Some(m), _) => m.into_bytes(),
        (None, Some(p)) if names_no_file(p) && looks_like_pasted_text(p) => {
            output::note(format_args!(
                "mcplogs: no file of that name: explaining the argument as a message (`--message TEXT` says so)"
            ));
            p.to_string_lossy().into_owned().into_bytes()
        }
        (None, Some(p)) if p.as_os_str() != "-" => {
            read_input_file(p, EXPLAIN_MAX_BYTES).map_err(|source| Error::ReadFile {
                path: p.to_path_buf(),
                source,
            })?
        }
        (None, _) => {
            if io::stdin().is_terminal() {
                output::note("Paste `claude mcp list` output, then Ctrl-D");
            }
            read_bounded(io::stdin().lock(), EXPLAIN_MAX_BYTES).map_err(Error::ReadStdin)?
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    // A server's log (named, or piped): read as `scan` reads it, each session
    // classified, never its many lines taken as one pasted message.
    let logged = if args.message.is_none() && mcplogs::explain::is_server_log(&bytes) {
        explain_log(&args, &bytes)
    } else {
        None
    };
    let from_log = logged.is_some();
    let mut report = logged.unwrap_or_else(|| {
        mcplogs::explain::explain_in(&text, &args.home.iter().cloned().collect::<Vec<_>>())
    });
    report.homes = args.home.iter().cloned().collect();
    report.project = args.project.clone();
    // Each pasted server's own state, found by the name as pasted (the real name, before
    // the redaction below hides a token or a configured value in it), its note then
    // redacted with the rest.
    if !from_log && !args.no_logs && mcplogs::explain::wants_local(&report) {
        attach_local(&mut report, &args);
    }
    if !args.redact.no_redact {
        // Every value the configuration marks as secret (this machine's, or --home's),
        // hidden wherever the paste shows it: as `scan` learns them, every project the
        // homes list and --managed-dir's files too (a paste from any folder).
        let secrets = mcplogs::scan::secrets::collect(&mcplogs::scan::secrets::Places {
            homes: args.home.iter().cloned().collect(),
            projects: vec![project_dir(&args)],
            managed_dir: args.managed_dir.clone(),
            listed: true,
        });
        mcplogs::explain::redact_report(&mut report, &text, &secrets);
    }
    if report.entries.is_empty() {
        return Err(Error::NothingToExplain);
    }
    if args.output.json {
        // Written as it is made (each server redacted as its turn comes): a 16 MiB paste
        // is 240,000 entries, and its document as one value peaked at 1.9 GB.
        output::json_streamed(
            &explain_json_head(),
            "servers",
            explain_json_servers(&report),
            !args.redact.no_redact,
        )?;
        return Ok(ExitCode::from_problems(report.has_problems()));
    }
    let out = if args.redact.no_redact {
        render::explain::explain_table(&report, output::width(), output::home())
    } else {
        mcplogs::redact::output::text(&render::explain::explain_table(
            &report,
            output::width(),
            output::home(),
        ))
    };
    output::screen(&out)?;
    Ok(ExitCode::from_problems(report.has_problems()))
}

/// Each failing named server's own log in the project `claude mcp list` ran in (this
/// machine's, or `--home`'s): its last stderr lines and configured command. A scan of
/// that project's logs, through the index; logs that cannot be read leave the paste
/// explained on its own (scan says why).
fn attach_local(report: &mut mcplogs::explain::ExplainReport, args: &ExplainArgs) {
    let project = project_dir(args);
    let opts = mcplogs::scan::ScanOptions {
        // only this project's log folders are read (a machine's whole cache would be
        // read for a few names otherwise), and its servers kept
        only_project_folder: Some(mcplogs::claude_code::names::encode_folder_name(
            &project.to_string_lossy(),
        )),
        project: Some(project.to_string_lossy().into_owned()),
        ..home_scan(args)
    };
    // the folder `claude mcp list` ran in is the one whose settings are "here"
    let Some(scanned) = scan_resolved(&opts, &project, args) else {
        return;
    };
    mcplogs::explain::attach_local(report, &scanned, &project);
    if args.project.is_none() {
        attach_anywhere(report, args, &project);
    }
}

/// What explain scans of the homes (`--home`, else this machine's): through the index,
/// redacted unless `--no-redact`, with `--managed-dir`'s files.
fn home_scan(args: &ExplainArgs) -> mcplogs::scan::ScanOptions {
    mcplogs::scan::ScanOptions {
        request: mcplogs::logs::discovery::Request {
            homes: args.home.iter().cloned().collect(),
            paths: Vec::new(),
        },
        index: mcplogs::scan::cache::default_dir(),
        no_redact: args.redact.no_redact,
        managed_dir: args.managed_dir.clone(),
        ..mcplogs::scan::ScanOptions::default()
    }
}

/// The scan `opts` asks for, resolved as `scan` resolves it, `dir` the folder whose
/// settings are "here": the verdict and advice explain shows for a logged server are
/// scan's own. `None` when the logs cannot be read (the paste is explained on its own;
/// scan says why).
fn scan_resolved(
    opts: &mcplogs::scan::ScanOptions,
    dir: &std::path::Path,
    args: &ExplainArgs,
) -> Option<mcplogs::scan::ScanReport> {
    let mut scanned = mcplogs::scan::scan(opts).ok()?;
    let redact = !args.redact.no_redact;
    mcplogs::resolve::resolve(
        &mut scanned,
        opts,
        dir,
        args.managed_dir.as_deref(),
        mcplogs::resolve::Steps {
            launch: mcplogs::resolve::Launch::Attach { redact },
            redact_report: redact,
            fixes: mcplogs::resolve::Fixes::Find {
                build: mcplogs::probe::installed_claude_version,
            },
        },
    );
    Some(scanned)
}

/// Without `--project`, a pasted name the working folder's project does not know is
/// looked for in every project, as `mcplogs scan` run here finds and resolves it
/// ([`mcplogs::explain::attach_anywhere`]): one project, its resolution; several, the
/// command that explains the paste in each.
fn attach_anywhere(
    report: &mut mcplogs::explain::ExplainReport,
    args: &ExplainArgs,
    here: &std::path::Path,
) {
    let unfound = report
        .entries
        .iter()
        .any(|e| e.name.is_some() && e.state.is_none() && e.local.is_none());
    if !unfound {
        return;
    }
    let opts = home_scan(args);
    let Some(scanned) = scan_resolved(&opts, here, args) else {
        return;
    };
    // the servers this folder's project configures itself: their project is this one
    let own_here: Vec<String> =
        mcplogs::resolve::configured_in(&opts.request.homes, here, args.managed_dir.as_deref())
            .servers
            .into_iter()
            .filter(|s| {
                use mcplogs::claude_code::config::Scope;
                matches!(s.scope, Scope::Local | Scope::Project)
            })
            .map(|s| s.name)
            .collect();
    let explain_in = |project: &str| explain_command(args, project);
    mcplogs::explain::attach_anywhere(report, &scanned, here, &own_here, &explain_in);
}

/// `mcplogs explain` of the same input in `project`, runnable as printed: the file by
/// its absolute path (the message itself for `--message`; stdin, pasted again, for a
/// paste), with `--home` as given.
fn explain_command(args: &ExplainArgs, project: &str) -> String {
    use mcplogs::text::{option_word, shell_word_typed as word};
    // each value given as one (`--message=-x`: a value starting with `-` would be read
    // as an option), the file last
    let mut c = "mcplogs explain".to_string();
    let mut push = |w: String| {
        c.push(' ');
        c.push_str(&w);
    };
    match (&args.message, args.file.as_deref()) {
        (Some(m), _) => push(option_word("--message", &word(m))),
        // an argument naming no file was explained as the message it reads as
        (None, Some(p)) if p.as_os_str() != "-" && names_no_file(p) => {
            push(option_word("--message", &word(&p.to_string_lossy())))
        }
        // (absolute: it starts with `/`, never read as an option)
        (None, Some(p)) if p.as_os_str() != "-" => {
            let p = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
            push(word(&p.to_string_lossy()))
        }
        _ => {}
    }
    if let Some(h) = &args.home {
        let h = std::path::absolute(h).unwrap_or_else(|_| h.clone());
        push(option_word("--home", &word(&h.to_string_lossy())));
    }
    push(option_word("--project", &word(project)));
    c
}

/// A server's log file (or the same bytes piped on stdin), scanned as `mcplogs scan
/// FILE` scans it and resolved as it resolves it (the working folder, or `--project`,
/// is "here"): its verdict, cause and advice are scan's. `None` when the scan finds no
/// server in it (the input is then explained as a paste).
fn explain_log(args: &ExplainArgs, bytes: &[u8]) -> Option<mcplogs::explain::ExplainReport> {
    use mcplogs::logs::discovery::Request;
    use mcplogs::scan::{ScanOptions, scan};
    let named = args
        .file
        .as_deref()
        .filter(|p| p.as_os_str() != "-" && p.is_file());
    // piped bytes are scanned from a private copy (scan reads files), named by no folder
    let tmp;
    let path = match named {
        Some(p) => p.to_path_buf(),
        None => {
            tmp = tempfile::tempdir().ok()?;
            let p = tmp.path().join("stdin.jsonl");
            std::fs::write(&p, bytes).ok()?;
            p
        }
    };
    let opts = ScanOptions {
        request: Request {
            homes: args.home.iter().cloned().collect(),
            paths: vec![path],
        },
        no_redact: args.redact.no_redact,
        managed_dir: args.managed_dir.clone(),
        ..ScanOptions::default()
    };
    let mut scanned = scan(&opts).ok()?;
    if scanned.servers.is_empty() {
        return None;
    }
    let redact = !args.redact.no_redact;
    mcplogs::resolve::resolve(
        &mut scanned,
        &opts,
        &project_dir(args),
        args.managed_dir.as_deref(),
        mcplogs::resolve::Steps {
            launch: mcplogs::resolve::Launch::Attach { redact },
            redact_report: redact,
            fixes: mcplogs::resolve::Fixes::Find {
                build: mcplogs::probe::installed_claude_version,
            },
        },
    );
    Some(mcplogs::explain::from_log_scan(&scanned, named.is_some()))
}

/// The project `claude mcp list` ran in: `--project`, else the working directory.
fn project_dir(args: &ExplainArgs) -> std::path::PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    match &args.project {
        Some(p) => {
            let p = cwd.join(p);
            std::fs::canonicalize(&p).unwrap_or(p)
        }
        None => std::fs::canonicalize(&cwd).unwrap_or(cwd),
    }
}

/// Nothing exists at `p`, not even a dangling link.
fn names_no_file(p: &std::path::Path) -> bool {
    std::fs::symlink_metadata(p).is_err_and(|e| e.kind() == io::ErrorKind::NotFound)
}

/// An argument that is text a user pasted rather than a path: it holds a space and a
/// word of a status or log message, or a status glyph.
fn looks_like_pasted_text(p: &std::path::Path) -> bool {
    let t = p.to_string_lossy();
    t.contains(['✓', '✔', '✗', '✘', '×', '⏸', '—', '…', '\n'])
        || (t.contains(' ')
            && [
                "failed",
                "Failed",
                "Connected",
                "error",
                "Error",
                "tools/list",
                "timed out",
            ]
            .iter()
            .any(|w| t.contains(w)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn explain_args(argv: &[&str]) -> ExplainArgs {
        match crate::cli::Cli::try_parse_from(argv).unwrap().command {
            crate::cli::Command::Explain(a) => a,
            _ => unreachable!("an explain command"),
        }
    }

    /// The command explain prints to explain the same input in another project reads
    /// back as the same input: a message (or a folder) starting with `-` given as a
    /// value (`--message '-leaky: …'` was clap's "unexpected argument '-l'").
    #[test]
    fn the_printed_explain_command_reads_back_as_printed() {
        for (argv, project) in [
            (
                &[
                    "mcplogs",
                    "explain",
                    "--message=-leaky: python3 s.py - ✗ Failed",
                ][..],
                "/p",
            ),
            (
                &["mcplogs", "explain", "--message", "plain: x", "--home=-h"][..],
                "-odd",
            ),
        ] {
            let args = explain_args(argv);
            let printed = explain_command(&args, project);
            let words = shlex_split(&printed);
            let back = explain_args(&words.iter().map(String::as_str).collect::<Vec<_>>());
            assert_eq!(back.message, args.message, "{printed}");
            assert_eq!(
                back.project.as_deref(),
                Some(std::path::Path::new(project)),
                "{printed}"
            );
        }
    }

    /// Splits a printed command as a POSIX shell does, for words in single quotes or
    /// none (what these cases print).
    fn shlex_split(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = String::new();
        let mut quoted = false;
        let mut any = false;
        for c in s.chars() {
            match c {
                '\'' => {
                    quoted = !quoted;
                    any = true;
                }
                ' ' if !quoted => {
                    if any {
                        out.push(std::mem::take(&mut cur));
                    }
                    any = false;
                }
                _ => {
                    cur.push(c);
                    any = true;
                }
            }
        }
        if any {
            out.push(cur);
        }
        out
    }
}
