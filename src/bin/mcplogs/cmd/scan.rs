//! `mcplogs scan`: every server's verdict, as a table or one JSON document.

use mcplogs::render;
use mcplogs::resolve;
use mcplogs::scan::{ScanOptions, ScanReport, StderrTails, scan_with_progress};

use std::path::PathBuf;

use crate::cli::{DiscoveryArgs, ScanArgs};
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;
use crate::progress::ScanProgress;

/// `scan NAME` where NAME is no file or folder: `probe NAME` takes a server's name, so
/// `scan` does too when NAME names a server configured for this folder or logged
/// (NAME then stands for `--server NAME`, said on stderr); a plain word that names
/// neither is an error naming both readings. A NAME with a folder separator, or one
/// beside `--server`, stays a path (discovery says it is missing).
pub(crate) fn name_as_server(
    discovery: &mut DiscoveryArgs,
    managed_dir: Option<&std::path::Path>,
    doing: &str,
) -> Result<(), Error> {
    if discovery.server.is_some() {
        return Ok(());
    }
    let missing: Vec<usize> = (0..discovery.paths.len())
        .filter(|&i| std::fs::symlink_metadata(&discovery.paths[i]).is_err())
        .collect();
    let [i] = missing[..] else {
        return Ok(());
    };
    let Some(name) = discovery.paths[i]
        .to_str()
        .filter(|n| !n.is_empty() && !n.contains(['/', '\\']) && !n.starts_with('.'))
        .map(str::to_string)
    else {
        return Ok(());
    };
    let rest: Vec<PathBuf> = discovery
        .paths
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != i)
        .map(|(_, p)| p.clone())
        .collect();
    // as written or as printed: a printed form (`svc-[REDACTED:config]`) matched knowing
    // the values the configuration marks as secret, as the scan matches `--server`
    let secrets = mcplogs::scan::select::is_printed_form(&name).then(|| {
        mcplogs::scan::secrets::collect(&mcplogs::scan::secrets::Places {
            homes: discovery.home.clone(),
            projects: std::env::current_dir().into_iter().collect(),
            managed_dir: managed_dir.map(std::path::Path::to_path_buf),
            listed: true,
        })
    });
    let want_of = |name: &str| match &secrets {
        Some(secrets) => mcplogs::scan::select::NameWant::knowing(name, secrets),
        None => mcplogs::scan::select::NameWant::new(name),
    };
    let want = want_of(&name);
    // configured for this folder or any project the homes list, as `--server` finds
    // them
    let configured_names: Vec<String> = std::env::current_dir()
        .ok()
        .map(|cwd| mcplogs::resolve::configured_names(&discovery.home, &cwd, managed_dir))
        .unwrap_or_default();
    // (a log folder several names share is named by them joined with ` + `, as `scan`
    // prints it and `--server` takes it: each of them configured, helper-86 #7)
    let configured_selects = |want: &mcplogs::scan::select::NameWant| {
        configured_names
            .iter()
            .any(|n| want.selects(n, Some(&mcplogs::claude_code::names::encode_folder_name(n))))
    };
    let configured =
        configured_selects(&want) || names_a_shared_folder(&name, &configured_names, &want_of);
    // the logged servers' folder names (read only when no configured name matched)
    let logged_names = || -> Vec<String> {
        mcplogs::logs::discovery::discover(&mcplogs::logs::discovery::Request {
            homes: discovery.home.clone(),
            paths: rest.clone(),
        })
        .map(|found| found.server_dirs.into_iter().map(|d| d.folder).collect())
        .unwrap_or_default()
    };
    let logged = if configured {
        Vec::new()
    } else {
        logged_names()
    };
    if configured || logged.iter().any(|f| want.selects(f, Some(f))) {
        output::note(format_args!(
            "mcplogs: no file or folder named {}: {doing} the server of that name (`--server`)",
            mcplogs::advice::name_word(want.echo())
        ));
        discovery.paths = rest;
        discovery.server = Some(name);
        return Ok(());
    }
    // the nearest name, printed as every command prints it (a token in it redacted)
    let near = mcplogs::claude_code::names::did_you_mean(
        &name,
        configured_names.iter().chain(&logged).map(String::as_str),
    )
    .map(|n| want.print(n));
    Err(Error::ScanNameUnknown {
        name: want.echo().to_string(),
        list: scan_command(&discovery.home, &rest),
        near,
    })
}

/// Whether `name` is the name `scan` prints for a log folder several configured names
/// share (helper-86 #7): two or more of `configured`, each once, in the order the scan
/// joins them (sorted), all writing one folder. Each name as written or as printed
/// (`want_of` a part: a name holding a secret is printed redacted, helper-88 #3).
fn names_a_shared_folder(
    name: &str,
    configured: &[String],
    want_of: &dyn Fn(&str) -> mcplogs::scan::select::NameWant,
) -> bool {
    use mcplogs::claude_code::names::encode_folder_name;
    // each part a configured name, case aside as `--server` takes it (helper-89 #9)
    let parts: Option<Vec<&str>> = name
        .split(mcplogs::claude_code::names::SHARED_SEP)
        .map(|p| {
            let want = want_of(p);
            configured
                .iter()
                .find(|n| n.eq_ignore_ascii_case(p) || want.is(n))
                .map(String::as_str)
        })
        .collect();
    parts.is_some_and(|parts| {
        parts.len() > 1
            && parts.windows(2).all(|w| w[0] < w[1])
            && parts
                .iter()
                .all(|p| encode_folder_name(p) == encode_folder_name(parts[0]))
    })
}

/// `mcplogs scan` of `homes` and `paths`, as the user runs it (each quoted for the
/// shell): the scan a hint names, of what this one read.
pub(crate) fn scan_command(homes: &[std::path::PathBuf], paths: &[std::path::PathBuf]) -> String {
    command_reading("scan", homes, paths)
}

/// `mcplogs SUB` reading `homes` and `paths` (each quoted for the shell).
pub(crate) fn command_reading(
    sub: &str,
    homes: &[std::path::PathBuf],
    paths: &[std::path::PathBuf],
) -> String {
    let mut c = format!("mcplogs {sub}{}", mcplogs::advice::home_flags(homes));
    for p in paths {
        c.push(' ');
        c.push_str(&mcplogs::text::shell_word(&p.display().to_string()));
    }
    c
}

pub fn run(mut args: ScanArgs) -> Result<ExitCode, Error> {
    name_as_server(&mut args.discovery, args.managed_dir.as_deref(), "scanning")?;
    let opts = ScanOptions {
        all: args.all,
        index: args.cache.index_dir(),
        // the screen without --verbose names only the connection failures' last words
        stderr_tails: if args.output.json || args.verbose {
            StderrTails::Failing
        } else {
            StderrTails::ConnectionFailures
        },
        managed_dir: args.managed_dir.clone(),
        no_redact: args.redact.no_redact,
        ..args.discovery.scan_options()
    };
    let bar = ScanProgress::new();
    let update = |p| bar.update(p);
    let mut report = scan_with_progress(&opts, bar.shown().then_some(&update as _))?;
    bar.finish();
    let cwd = std::env::current_dir().unwrap_or_default();
    let managed_dir = args.managed_dir.as_deref();
    let redact = !args.redact.no_redact;
    resolve::resolve(
        &mut report,
        &opts,
        &cwd,
        managed_dir,
        resolve::Steps {
            launch: resolve::Launch::Attach { redact },
            redact_report: redact,
            fixes: resolve::Fixes::Find {
                build: mcplogs::probe::installed_claude_version,
            },
        },
    );
    let negotiation = resolve::negotiation_in(&opts.request.homes, &cwd, managed_dir);
    // a settings file this folder's layers cannot read is said once, in the screen's
    // settings section (the JSON's `settings`), not again among the warnings
    let said: Vec<std::path::PathBuf> = negotiation
        .problem_layers()
        .filter_map(|l| l.path.clone())
        .collect();
    report.warnings.retain(|w| {
        !(w.message.starts_with("cannot be read (")
            && w.path.as_ref().is_some_and(|p| said.contains(p)))
    });
    output::grouped_warnings(&report.warnings, args.verbose);
    if let Some(m) = nothing_found(&report, &opts) {
        output::note(m);
        // A filter (--server, --match-project) that matches none of the servers found is
        // a usage error, the same for both (docs/usage.md, "Exit codes"); a server whose
        // every session is older than `--since` is there, seen before (exit 0)
        if (opts.server.is_some() || opts.project.is_some())
            && !report.unfiltered_names.is_empty()
            && last_before_since(&report, &opts).is_none()
        {
            return Ok(ExitCode::Error);
        }
    }
    if args.output.json {
        // Written as it is made: for 100,000 servers the whole document would be 150 MB.
        output::json_streamed(
            &render::scan::scan_json_head(
                &report,
                mcplogs::render::settings::settings_layers_json(&negotiation),
            ),
            "servers",
            render::scan::scan_json_servers(&report),
            !args.redact.no_redact,
        )?;
        let code = ExitCode::from_problems(report.has_problems());
        super::leave_to_exit(report);
        return Ok(code);
    }
    // Only before the screen, this command's peak; not for JSON (see alloc.rs).
    #[cfg(target_os = "linux")]
    crate::alloc::give_back_at_once();
    let problems = report.has_problems();
    // a change `mcplogs fix` would refuse to write (its file): the server keeps its own
    // advice on the screen, and this says why `fix` does not make it
    let refused: Vec<String> = report
        .servers
        .iter()
        .filter_map(|s| {
            let f = s.fix.as_deref()?;
            let c = f.changes.iter().find(|c| {
                c.cause != mcplogs::settings::engine::FixCause::Negotiation
                    && matches!(c.state, mcplogs::scan::fix::FixState::Refused { .. })
            })?;
            let mcplogs::scan::fix::FixState::Refused { why } = &c.state else {
                return None;
            };
            Some(format!(
                "{}: `mcplogs fix` cannot make its change ({}): {why}.",
                mcplogs::advice::fixes::label(&s.name, s.project.as_deref()),
                c.cause.as_str()
            ))
        })
        .chain(report.configured.iter().filter_map(|r| {
            let f = r.fix.as_deref()?;
            let c = f
                .changes
                .iter()
                .find(|c| matches!(c.state, mcplogs::scan::fix::FixState::Refused { .. }))?;
            let mcplogs::scan::fix::FixState::Refused { why } = &c.state else {
                return None;
            };
            Some(format!(
                "{}: `mcplogs fix` cannot make its change ({}): {why}.",
                mcplogs::advice::fixes::label(&r.name, Some(&r.project)),
                c.cause.as_str()
            ))
        }))
        .collect();
    let text = if report.servers.is_empty() && report.configured.is_empty() {
        String::new()
    } else {
        let width = output::width();
        let home = output::home().map(str::to_string);
        let mut t = render::scan::scan_screen(
            &report,
            &render::scan::ScreenOptions {
                width,
                home,
                cwd: std::env::current_dir()
                    .ok()
                    .map(|d| d.display().to_string()),
                verbose: args.verbose,
                homes: report.homes.clone(),
            },
        );
        // (bold as the screen's other headings: only where colour is on)
        t.push_str(&format!(
            "\n{}\n",
            colored::Colorize::bold("Settings (for this folder)")
        ));
        for line in mcplogs::render::settings::summary_lines(&negotiation) {
            // paths as on every screen: `~/…` under the home
            let line = output::tilde(&line);
            t.push_str(&mcplogs::text::layout::wrap(&line, "  ", 4, width));
        }
        t.shrink_to_fit();
        if args.redact.no_redact {
            t
        } else {
            // The screen is made: the report (most of a large scan's memory) goes
            // while the last passes copy the text, freed on a thread of its own
            // (100,000 servers' reports took a tenth of a second to free).
            // The last pass with the scan's own redactor (the secret rules, the
            // configuration's values and what the texts taught): what the resolution
            // added from the servers' names and projects as read (the settings files of
            // a project whose path holds one) is shown as the rest.
            let shown = report.shown_by.clone();
            std::thread::scope(|scope| {
                scope.spawn(move || drop(report));
                match shown {
                    Some(r) => r.redact(&t),
                    None => mcplogs::redact::output::text(&t),
                }
            })
        }
    };
    output::screen(&text)?;
    // what the What-to-do items say (a fix `mcplogs fix` plans, or made) is not
    // repeated here: only why `fix` cannot make a change the screen does not show
    for n in refused {
        output::note(n);
    }
    Ok(ExitCode::from_problems(problems))
}

/// Why `--since` found nothing, in the scan's local time form with its zone. `--since`
/// keeps the sessions whose records are that recent, in files written since: the
/// sentence says which of the two clocks ruled everything out, never both at once.
fn since_message(since: i64, newest_file: i64, now: i64) -> String {
    let at = |t: i64| mcplogs::time::local_time(&mcplogs::time::format_iso(t));
    if newest_file >= since {
        // Files written since, records all older: copied or restored logs keep their
        // records' own times.
        format!(
            "mcplogs: no MCP server activity since {}: log files were written since (the newest at {}, {}), but every record in them is older (copied or restored logs keep their records' times). Widen --since, or drop it",
            at(since),
            at(newest_file),
            mcplogs::time::age(now - newest_file),
        )
    } else {
        format!(
            "mcplogs: no MCP server activity since {}: no log file was written since; the newest was last written {} ({}). Widen --since, or drop it",
            at(since),
            at(newest_file),
            mcplogs::time::age(now - newest_file),
        )
    }
}

/// What a `--server`/`--match-project` filter that kept nothing missed, as `export` and
/// `du` say it: the project when none found is the one asked for (`project_found`,
/// asked only then), else the name.
pub(crate) fn filter_missed(
    server: Option<&str>,
    project: Option<&str>,
    project_found: impl FnOnce(&mcplogs::scan::select::ProjectWant) -> bool,
) -> Option<String> {
    let no_project = |p: &str| format!("no project path contains {p:?}");
    match (server, project) {
        (Some(_), Some(p)) if !project_found(&mcplogs::scan::select::ProjectWant::new(p)) => {
            Some(no_project(p))
        }
        (Some(s), _) => Some(format!(
            "no server named {:?}",
            mcplogs::scan::select::echo(s)
        )),
        (None, Some(p)) => Some(no_project(p)),
        (None, None) => None,
    }
}

/// Whether `want` selects a project of a server `--server` left out (with `--server`, the
/// projects found): else no project found is the one `--match-project` asks for.
pub(crate) fn left_out_project(
    report: &ScanReport,
    want: &mcplogs::scan::select::ProjectWant,
) -> bool {
    report
        .unfiltered_projects
        .iter()
        .any(|p| want.selects(Some(p), None))
}

/// With `--since` and `--server NAME`: when the last session of a log folder NAME selects,
/// every session of which is older than the cut-off, was written.
fn last_before_since(report: &ScanReport, opts: &ScanOptions) -> Option<i64> {
    opts.since?;
    let want = mcplogs::scan::select::NameWant::new(opts.server.as_deref()?);
    report
        .not_since
        .iter()
        .filter(|n| want.selects(&n.folder, Some(&n.folder)))
        .map(|n| n.last_written)
        .max()
}

/// No server, logged or configured: what [`nothing_found`] says something of.
pub(crate) fn found_nothing(report: &ScanReport) -> bool {
    report.servers.is_empty() && report.configured.is_empty()
}

/// The stderr line for a scan that found no server, if it found none.
pub(crate) fn nothing_found(report: &ScanReport, opts: &ScanOptions) -> Option<String> {
    if !found_nothing(report) {
        return None;
    }
    let searched: Vec<String> = report
        .searched
        .iter()
        .map(|p| mcplogs::text::sanitize::text(&p.display().to_string()).into_owned())
        .collect();
    let known = &report.unfiltered_names;
    // `--since` with the name of a logged server no file configures now (a configured
    // one gets a "not seen since" row): every session of it older (helper-88 #12, it
    // said no server had that name)
    if let (Some(want), Some(since), Some(last)) =
        (&opts.server, opts.since, last_before_since(report, opts))
    {
        let at = |t: i64| mcplogs::time::local_time(&mcplogs::time::format_iso(t));
        return Some(format!(
            "mcplogs: no session of {:?} since {}: its last was at {} ({} shows it)",
            mcplogs::scan::select::echo(want),
            at(since),
            at(last),
            mcplogs::text::code_span(&format!(
                "{} --server {}",
                command_reading("scan", &opts.request.homes, &opts.request.paths),
                mcplogs::text::shell_word(&mcplogs::scan::select::echo(want))
            ))
        ));
    }
    // `--server` and `--match-project`: no project found is the one asked for (with
    // `--server` the left-out servers' projects are known): that is what is wrong
    let no_such_project = opts.server.is_some()
        && opts.project.as_deref().is_some_and(|p| {
            !left_out_project(report, &mcplogs::scan::select::ProjectWant::new(p))
        });
    if let Some(want) = &opts.server
        && !known.is_empty()
        && !no_such_project
    {
        // the name is there, in projects `--match-project` leaves out: "did you mean"
        // the very name given would send the user round in a circle
        if let Some(project) = &opts.project
            && known
                .iter()
                .any(|n| mcplogs::scan::select::NameWant::new(want).is(n))
        {
            // (the name as printed: a token in it is never echoed, and the printed form
            // selects the server as the name does)
            let list = format!(
                "{} --server {}",
                command_reading("scan", &opts.request.homes, &opts.request.paths),
                mcplogs::text::shell_word(&mcplogs::scan::select::echo(want))
            );
            return Some(format!(
                "mcplogs: no server named {:?} in a project whose path contains {:?}: that name is only in other projects ({} lists each with its project)",
                mcplogs::scan::select::echo(want),
                mcplogs::scan::select::echo(project),
                mcplogs::text::code_span(&list)
            ));
        }
        let hint =
            mcplogs::claude_code::names::did_you_mean(want, known.iter().map(String::as_str))
                .map(|n| format!(" Did you mean {}?", mcplogs::text::code_span(n)))
                .unwrap_or_default();
        let want = mcplogs::scan::select::echo(want);
        return Some(format!(
            "mcplogs: no server named {want:?}.{hint} Known servers: {}",
            known.join(", ")
        ));
    }
    if let Some(want) = &opts.project
        && !known.is_empty()
    {
        return Some(format!(
            "mcplogs: no project path contains {want:?} ({} found in other projects: {} lists the projects)",
            mcplogs::text::count(known.len(), "server"),
            mcplogs::text::code_span(&command_reading(
                "du",
                &opts.request.homes,
                &opts.request.paths
            ))
        ));
    }
    if let (Some(since), Some(newest)) = (opts.since, report.newest_log) {
        return Some(since_message(since, newest, mcplogs::time::now()));
    }
    let filtered = opts.server.is_some() || opts.project.is_some();
    Some(format!(
        "mcplogs: no MCP server logs{} found (searched: {}){}",
        if filtered {
            " matching the filters"
        } else {
            ""
        },
        searched.join(", "),
        if filtered {
            ""
        } else {
            mcplogs::advice::NO_LOGS_HINT
        }
    ))
}
