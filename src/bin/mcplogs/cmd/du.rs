//! `mcplogs du`: disk use of the MCP logs per project and per server.

use mcplogs::render;

use crate::cli::DuArgs;
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;

pub fn run(args: DuArgs) -> Result<ExitCode, Error> {
    let opts = args.discovery.scan_options();
    let mut du = mcplogs::disk::du::disk_use(&opts)?;
    if let Some(dir) = mcplogs::scan::cache::default_dir() {
        du.own_cache = mcplogs::disk::du::own_cache_use(&dir, &mut du.warnings);
    }
    mcplogs::disk::du::redact(&mut du);
    output::grouped_warnings(&du.warnings, false);
    let text = if args.output.json {
        output::json_redacted(&render::du::du_json(&du), true)?
    } else {
        // Home as ~ before the table cuts long paths to fit (JSON keeps them whole).
        for p in &mut du.projects {
            p.project = output::tilde(&format!("{}/", p.project))
                .trim_end_matches('/')
                .to_string();
        }
        let mut t = render::du::du_table(&du, output::width());
        let shown = du
            .own_cache
            .as_ref()
            .map(|c| output::tilde(&c.path.display().to_string()))
            .unwrap_or_default();
        if let Some(line) = render::du::cache_line(&du, &shown, output::width()) {
            t.push_str(&line);
        }
        if du.bytes > 0 {
            t.push_str("Reclaim space: `mcplogs prune --dry-run` shows what can go (it keeps what explains each verdict).\n");
        }
        mcplogs::redact::output::text(&t)
    };
    if du.projects.is_empty() {
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
