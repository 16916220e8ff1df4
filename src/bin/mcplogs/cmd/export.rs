//! `mcplogs export`: scan as `scan` does, then send each verdict and configured state
//! the destination has not accepted yet (OTLP/HTTP, or `--file`), and say so in one
//! line on stderr. The logic is the library's (`mcplogs::export`).

use std::time::Instant;

use mcplogs::export::{self, Keys, RecordOptions, config, file, otlp, store};
use mcplogs::redact::RedactorBuilder;
use mcplogs::scan::{ScanOptions, scan};
use mcplogs::settings;

use crate::cli::ExportArgs;
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;

pub fn run(mut args: ExportArgs) -> Result<ExitCode, Error> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let dropped = drop_what_projects_passed(&cwd, args.managed_dir.as_deref());
    if args.detach {
        return detach(&dropped);
    }
    if let Some(d) = &dropped {
        output::warning(d);
    }
    // `export NAME`, as `scan NAME`: a word naming no file but a server is its `--server`
    super::scan::name_as_server(
        &mut args.discovery,
        args.managed_dir.as_deref(),
        "exporting",
    )?;
    let opts = ScanOptions {
        index: args.cache.index_dir(),
        // no record carries a server's stderr
        stderr_tails: mcplogs::scan::StderrTails::Skip,
        managed_dir: args.managed_dir.clone(),
        ..args.discovery.scan_options()
    };
    // Where and what to send: this machine's managed and user settings and its
    // environment, never a project's settings (`config`), and never the settings of a
    // home named with --home (whose logs are read, not whose collector is trusted).
    let mut here = settings::Sources::for_this_machine(&cwd);
    if let Some(d) = &args.managed_dir {
        here.managed_dir = d.clone();
    }
    let environment = |k: &str| std::env::var(k).ok();
    // A hook runs where the session was; its project folder, which Claude Code names in
    // the hook's environment, may be above it: its settings are a project's too.
    let hook_project: Vec<std::path::PathBuf> = std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|d| !d.is_empty())
        .map(std::path::PathBuf::from)
        .into_iter()
        .collect();
    let resolution =
        config::resolve_layers(&config::read_layers(&here, &hook_project, &environment));
    for ignored in resolution.ignored.iter().filter(|i| i.is_warning()) {
        output::warning(ignored);
    }
    let cfg = resolution.config?;
    if cfg.disabled && !args.dry_run {
        output::note("mcplogs: export is turned off here (MCPLOGS_EXPORT_DISABLED=1)");
        return Ok(ExitCode::Clean);
    }
    // Where the records go, and the name of its ledger.
    let destination = match (&args.file, &cfg.endpoint) {
        (Some(f), _) => {
            let abs = std::path::absolute(f).unwrap_or_else(|_| f.clone());
            format!("file:{}", abs.display())
        }
        (None, Some(url)) => url.clone(),
        (None, None) if args.dry_run => "dry-run".to_string(),
        (None, None) => return Err(Error::ExportNowhere),
    };
    let shown = match &args.file {
        Some(f) => output_path(f),
        None => config::shown_endpoint(&destination),
    };

    let cache = mcplogs::scan::cache::default_dir().ok_or(store::StoreError::NoCacheDir)?;
    let dir = store::private_dir(&cache)?;
    let keys = Keys::new(store::machine_key(&dir)?, cfg.fleet_key.as_deref());
    let mut ledger = match store::Ledger::open(dir, &destination) {
        Ok(l) => l,
        Err(store::StoreError::Busy) => {
            output::note(format_args!(
                "mcplogs: another export to {shown} is running; it sends these records"
            ));
            return Ok(ExitCode::Clean);
        }
        Err(e) => return Err(e.into()),
    };

    let mut report = scan(&opts)?;
    mcplogs::resolve::resolve(
        &mut report,
        &opts,
        &cwd,
        args.managed_dir.as_deref(),
        mcplogs::resolve::Steps {
            launch: mcplogs::resolve::Launch::Skip,
            redact_report: false,
            fixes: mcplogs::resolve::Fixes::Skip,
        },
    );
    // A `~/.claude.json` that cannot be parsed: the records carry no configuration, said
    // (helper-78 L3: export said nothing of it)
    if let Some(w) = &report.config_problem {
        output::warning(w);
    }
    // A filter that matches none of the servers found is a usage error, as in `scan` and
    // `du` (the names are not listed: nothing here is redacted yet).
    if crate::cmd::scan::found_nothing(&report)
        && !report.unfiltered_names.is_empty()
        && let Some(what) = crate::cmd::scan::filter_missed(
            opts.server.as_deref(),
            opts.project.as_deref(),
            |want| crate::cmd::scan::left_out_project(&report, want),
        )
    {
        output::note(format_args!(
            "mcplogs: export: {what} ({} found: `mcplogs scan{}` lists them); nothing sent",
            mcplogs::text::count(report.unfiltered_names.len(), "server"),
            mcplogs::advice::home_flags(&opts.request.homes)
        ));
        return Ok(ExitCode::Error);
    }
    let items = export::items(&report, &keys);
    let redactor = if cfg.details {
        let home_dir = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
        let machine =
            RedactorBuilder::for_machine(&opts.request.homes, home_dir.as_deref(), &|k| {
                std::env::var_os(k)
            });
        export::redactor_for(machine, &report.secrets, &items)
    } else {
        mcplogs::redact::Redactor::disabled()
    };
    let now = mcplogs::time::now();
    let today = now.div_euclid(86_400);
    let record_options = RecordOptions {
        details: cfg.details,
        redactor: &redactor,
        resource: &cfg.resource,
        now: mcplogs::time::format_iso(now),
        machine_id: keys.machine_id(),
    };

    if args.dry_run {
        output::note(format_args!(
            "mcplogs: export --dry-run: {}",
            dry_run_destination(&cfg, resolution.source.as_ref(), &shown)
        ));
        for lower in resolution.ignored.iter().filter(|i| !i.is_warning()) {
            output::note(format_args!("mcplogs: export --dry-run: {lower}"));
        }
        let mut text = String::new();
        for (id, item) in &items {
            if ledger.seen(id, today) {
                continue;
            }
            // Escaped as every JSON document is (DEL, C1 and bidi controls `\u`-escaped):
            // the output pass would otherwise write them as `\x7f`, which JSON refuses.
            let line = serde_json::to_string(&export::record(id, *item, &keys, &record_options))?;
            text.push_str(&mcplogs::text::sanitize::json(&line));
            text.push('\n');
        }
        output::write_stdout(&text).map_err(Error::WriteOutput)?;
        return Ok(ExitCode::Clean);
    }

    let deadline = Instant::now() + cfg.timeout;
    let mut client = None;
    let mut lines = None;
    let sink: &mut dyn export::Sink = match &args.file {
        Some(f) => lines.insert(file::JsonLines::new(f, args.max_file_mib << 20)),
        None => client.insert(otlp::Client::new(
            &destination,
            cfg.headers.clone(),
            cfg.protocol,
            cfg.resource.clone(),
            cfg.redactor(),
        )),
    };
    let outcome = export::send_all(
        &items,
        &keys,
        &record_options,
        &mut ledger,
        today,
        sink,
        deadline,
    );
    let rejected_message = client.and_then(|c| c.rejected_message);
    // What was accepted is remembered even when a later batch failed.
    ledger.save(today)?;
    let rejected = if outcome.rejected > 0 {
        format!(
            "; the collector refused {} for good{}",
            mcplogs::text::count(outcome.rejected as usize, "record"),
            rejected_message
                .map(|m| format!(" ({})", mcplogs::text::sanitize::text(&m)))
                .unwrap_or_default()
        )
    } else {
        String::new()
    };
    if let Some(failure) = outcome.failure {
        return Err(Error::ExportFailed(format!(
            "export to {shown} failed: {failure}; {} go out on the next run{}",
            mcplogs::text::count(outcome.left, "record"),
            if outcome.sent > 0 {
                format!(" ({} sent)", outcome.sent)
            } else {
                String::new()
            }
        )));
    }
    if outcome.sent == 0 && outcome.rejected == 0 {
        output::note(format_args!(
            "mcplogs: export: nothing new for {shown} ({} already sent)",
            mcplogs::text::count(outcome.already, "record")
        ));
    } else {
        output::note(format_args!(
            "mcplogs: export: {} sent to {shown}{}{rejected}",
            mcplogs::text::count(outcome.sent, "record"),
            if outcome.already > 0 {
                format!(" ({} already sent before)", outcome.already)
            } else {
                String::new()
            }
        ));
    }
    super::leave_to_exit(items);
    super::leave_to_exit(report);
    Ok(ExitCode::Clean)
}

/// What `--dry-run` says of the destination: where the records would go, which
/// settings chose it, and what they add (headers are counted, never shown).
fn dry_run_destination(
    cfg: &config::ExportConfig,
    source: Option<&config::Origin>,
    shown: &str,
) -> String {
    let from = source.map_or_else(|| "no settings".to_string(), ToString::to_string);
    let headers = match cfg.headers.len() {
        0 => String::new(),
        n => format!(
            " with {} (values not shown)",
            mcplogs::text::count(n, "header")
        ),
    };
    // (--dry-run and --file do not go together)
    let to = match &cfg.endpoint {
        Some(_) => format!("the records would go to {shown}{headers}, set in {from}"),
        None => {
            "no endpoint is set (in managed settings, the user's settings or the environment): nothing would be sent".to_string()
        }
    };
    let details = if cfg.details {
        format!("; details on (OTEL_LOG_TOOL_DETAILS, set in {from})")
    } else {
        "; details off".to_string()
    };
    format!("{to}{details}")
}

/// A path for a message: terminal-safe.
fn output_path(p: &std::path::Path) -> String {
    mcplogs::text::sanitize::text(&p.display().to_string()).into_owned()
}

/// Drops from this process's environment every variable that a project's settings set
/// to the same value, naming those that decide where export looks or how it connects
/// (`config::CONNECTION_VARIABLES`: the home, Claude Code's configuration folder,
/// mcplogs' cache, proxies, certificates, the resolver): Claude Code passes a project's `env` on to the hook
/// that runs `export --detach`, so there they are the repository's choice, and a
/// repository must not choose whose settings name the collector, which key hashes the
/// names, or a proxy that sees the token. Returns the warning that says so.
fn drop_what_projects_passed(
    cwd: &std::path::Path,
    managed_dir: Option<&std::path::Path>,
) -> Option<String> {
    let mut sources = settings::Sources::for_this_machine(cwd);
    if let Some(d) = managed_dir {
        sources.managed_dir = d.to_path_buf();
    }
    let mut projects = vec![cwd.to_path_buf()];
    projects.extend(
        std::env::var_os("CLAUDE_PROJECT_DIR")
            .filter(|d| !d.is_empty())
            .map(std::path::PathBuf::from),
    );
    // (every variable: a project's settings may set one a library reads that mcplogs
    // does not know of; only the connection variables are named when dropped)
    let environment: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    let passed = config::passed_from_projects(&sources, &projects, &environment);
    for k in &passed.keys {
        // SAFETY: export's `run` calls this first, before any thread of this process is
        // started (the scan's pool, the sender), so nothing reads the environment
        // concurrently.
        unsafe { std::env::remove_var(k) };
    }
    passed.warning()
}

/// `--detach`: the same command line without `--detach`, started in a session of its
/// own (so the hook's end does not end it), stdin and stdout empty, stderr into
/// `<cache>/export/last-run.log` (0600); returns at once.
fn detach(dropped: &Option<String>) -> Result<ExitCode, Error> {
    use std::process::{Command, Stdio};
    let cache = mcplogs::scan::cache::default_dir().ok_or(store::StoreError::NoCacheDir)?;
    let dir = store::private_dir(&cache)?;
    let log_path = dir.path().join("last-run.log");
    let log = dir
        .open_private("last-run.log", true)
        .map_err(|source| store::StoreError::Io {
            path: log_path.clone(),
            source,
        })?;
    // What was dropped from the environment goes into the log the detached run writes
    // (it inherits the environment without it, so it cannot tell).
    if let Some(d) = dropped {
        use std::io::Write;
        let _ = writeln!(&log, "mcplogs: warning: {d}");
    }
    let exe = std::env::current_exe().map_err(|source| store::StoreError::Io {
        path: "the running mcplogs".into(),
        source,
    })?;
    let mut cmd = Command::new(exe);
    cmd.args(std::env::args_os().skip(1).filter(|a| a != "--detach"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log));
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
    }
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt;
        // DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP
        cmd.creation_flags(0x0000_0008 | 0x0000_0200);
    }
    cmd.spawn().map_err(|source| store::StoreError::Io {
        path: "the running mcplogs".into(),
        source,
    })?;
    Ok(ExitCode::Clean)
}
