//! `mcplogs du`: disk use of the MCP logs per project and per server.

use mcplogs::render;

use crate::cli::DuArgs;
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;

pub fn run(args: DuArgs) -> Result<ExitCode, Error> {
    // `prune` takes the same log folders and homes: the hint below names them, so it
    // runs on what this `du` measured (as the user typed them: it runs from here).
    let prune = prune_command(&args.discovery.paths, &args.discovery.home);
    let opts = mcplogs::scan::ScanOptions {
        managed_dir: args.managed_dir.clone(),
        ..args.discovery.scan_options()
    };
    let mut du = mcplogs::disk::du::disk_use(&opts)?;
    if let Some(dir) = mcplogs::scan::cache::default_dir() {
        du.own_cache = mcplogs::disk::du::own_cache_use(&dir, &mut du.warnings);
    }
    if opts.request.paths.is_empty() {
        du.discovery_cache = discovery_cache_use(&opts.request.homes);
    }
    mcplogs::disk::du::redact(&mut du, &opts.request.homes, opts.managed_dir.as_deref());
    output::grouped_warnings(&du.warnings, false);
    let text = if args.output.json {
        output::json_redacted(&render::du::du_json(&du), true)?
    } else {
        // Home as ~ (JSON keeps paths whole).
        let mut t = render::du::du_table(&du, output::width(), output::home());
        let shown = du
            .own_cache
            .as_ref()
            .map(|c| output::tilde(&c.path.display().to_string()))
            .unwrap_or_default();
        if let Some(line) = render::du::cache_line(&du, &shown, output::width()) {
            t.push_str(&line);
        }
        let shown = du
            .discovery_cache
            .as_ref()
            .map(|c| output::tilde(&c.path.display().to_string()))
            .unwrap_or_default();
        if let Some(line) = render::du::discovery_cache_line(&du, &shown, output::width()) {
            t.push_str(&line);
        }
        if du.bytes > 0 {
            t.push_str(&format!(
                "Reclaim space: {} shows what can go (it keeps what explains each verdict).\n",
                mcplogs::text::code_span(&prune)
            ));
        }
        mcplogs::redact::output::text(&t)
    };
    if du.projects.is_empty() {
        // A filter that matches none of the logs found is a usage error, as in scan.
        if opts.server.is_some() || opts.project.is_some() {
            let mut all_opts = opts.clone();
            all_opts.server = None;
            all_opts.project = None;
            let all = mcplogs::disk::du::disk_use(&all_opts)?;
            let found: usize = all.projects.iter().map(|p| p.servers.len()).sum();
            if found > 0 {
                let what = crate::cmd::scan::filter_missed(
                    opts.server.as_deref(),
                    opts.project.as_deref(),
                    |want| {
                        all.projects
                            .iter()
                            .any(|p| want.selects(Some(&p.project), p.folder.as_deref()))
                    },
                )
                .unwrap_or_default();
                output::note(format_args!(
                    "mcplogs: {what} ({} found: `mcplogs du{}` lists them)",
                    mcplogs::text::count(found, "server"),
                    mcplogs::advice::home_flags(&opts.request.homes)
                ));
                return Ok(ExitCode::Error);
            }
        }
        output::note(format_args!(
            "mcplogs: no MCP server logs found{}",
            mcplogs::advice::NO_LOGS_HINT
        ));
    }
    if args.output.json {
        output::stdout(&text)?;
    } else {
        output::screen(&text)?;
    }
    Ok(ExitCode::Clean)
}

/// `mcplogs prune [PATH...] [--home DIR...] --dry-run`, each path quoted for the shell.
fn prune_command(paths: &[std::path::PathBuf], homes: &[std::path::PathBuf]) -> String {
    let word = |p: &std::path::Path| mcplogs::text::shell_word(&p.display().to_string());
    let mut c = String::from("mcplogs prune");
    for p in paths {
        c.push(' ');
        // a relative path starting with `-` (given after `--`) as `./-x`: never an option
        if p.to_string_lossy().starts_with('-') {
            c.push_str(&word(&std::path::Path::new(".").join(p)));
        } else {
            c.push_str(&word(p));
        }
    }
    for h in homes {
        c.push(' ');
        c.push_str(&mcplogs::text::option_word("--home", &word(h)));
    }
    c.push_str(" --dry-run");
    c
}

/// Claude Code's MCP discovery cache of the first home that has entries (this machine's
/// with its `CLAUDE_CONFIG_DIR`, or each `--home`'s `.claude`): listed, nothing opened.
fn discovery_cache_use(homes: &[std::path::PathBuf]) -> Option<mcplogs::disk::du::CacheUse> {
    use mcplogs::claude_code::discovery_cache as dc;
    let this_machine = homes.is_empty();
    let homes: Vec<std::path::PathBuf> = if this_machine {
        directories::BaseDirs::new()
            .map(|b| b.home_dir().to_path_buf())
            .into_iter()
            .collect()
    } else {
        homes.to_vec()
    };
    homes.iter().find_map(|h| {
        let env = |k: &str| {
            if this_machine {
                std::env::var_os(k)
            } else {
                None
            }
        };
        let dir = mcplogs::claude_code::paths::config_dir(Some(h), &env)?;
        let listing = dc::list(&dc::folder_in(&dir));
        // every entry, not only the newest the scan looks at
        (!listing.entries.is_empty()).then_some(mcplogs::disk::du::CacheUse {
            bytes: listing.total_bytes,
            files: listing.total as u64,
            path: listing.folder,
        })
    })
}
