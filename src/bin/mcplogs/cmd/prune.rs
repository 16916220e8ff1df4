//! `mcplogs prune`: shows the plan, asks (or refuses without a terminal), deletes.
//! Every decision and safety check lives in the library (`mcplogs::disk::prune`).

use std::io::{self, IsTerminal};

use mcplogs::disk::prune::{self, Outcome, Plan, PruneOptions};
use mcplogs::render::prune::{outcome_text, plan_text, prune_json, question};

use crate::cli::PruneArgs;
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;

pub fn run(args: PruneArgs) -> Result<ExitCode, Error> {
    let opts = PruneOptions {
        paths: args.paths,
        homes: args.home,
        older_than: args.older_than,
        index: args.cache.index_dir(),
        // With --no-cache too: what describes the deleted logs goes with them.
        own_cache: mcplogs::scan::cache::default_dir(),
    };
    let plan = prune::plan(&opts, mcplogs::time::now_system())?;
    // The secret rules and the configuration's secret values, as scan and du hide them
    // (a folder `mcp-logs-svc-VALUE`, VALUE another entry's env value, in a warning).
    let r = {
        let mut b = mcplogs::redact::RedactorBuilder::new();
        b.learn_configured_secrets(&mcplogs::disk::du::configured_secrets(
            plan.groups.iter().map(|g| g.project.as_str()),
            &opts.homes,
            args.managed_dir.as_deref(),
        ));
        b.build()
    };
    let redacted = |warnings: &[mcplogs::warning::Warning]| {
        let mut warnings = warnings.to_vec();
        for w in &mut warnings {
            mcplogs::redact::output::warning(&r, w);
        }
        warnings
    };
    output::grouped_warnings(&redacted(&plan.warnings), false);
    // What the table shows, redacted before it is laid out (a token in a folder name
    // would otherwise shift the columns once masked); deleting uses `plan` itself.
    let mut shown = plan.clone();
    for g in &mut shown.groups {
        // the home as `~`, as scan and du show a project
        g.project = r.redact(&mcplogs::text::layout::tilde(&g.project, output::home()));
        // with its tag, as `scan` prints it
        g.server = mcplogs::scan::select::shown_by(&r, &g.server);
    }
    let json = args.output.json;
    let show = |outcome: Option<&Outcome>| -> Result<(), Error> {
        if json {
            let mut doc = serde_json::to_value(prune_json(&plan, outcome))?;
            mcplogs::redact::output::json_value(&r, &mut doc);
            output::stdout(&output::json_redacted(&doc, false)?)
        } else {
            match outcome {
                None => output::screen(&r.redact(&plan_text(&shown, output::width()))),
                Some(o) => output::screen(&r.redact(&outcome_text(o))),
            }
        }
    };
    if args.dry_run || (plan.files == 0 && plan.cache.is_empty()) {
        show(None)?;
        return Ok(ExitCode::Clean);
    }
    if !args.yes {
        if !io::stdin().is_terminal() {
            show(None)?;
            return Err(Error::NotConfirmedPrune);
        }
        if !json {
            show(None)?;
        }
        if !ask(&plan)? {
            output::note("mcplogs: nothing deleted");
            // `--json` prints its one document on exit 0: the plan, nothing done.
            if json {
                show(None)?;
            }
            return Ok(ExitCode::Clean);
        }
    }
    let outcome = prune::execute(&plan, mcplogs::time::now_system());
    output::warnings(&redacted(&outcome.skipped));
    show(Some(&outcome))?;
    Ok(ExitCode::Clean)
}

/// `Delete N files (X GiB)? [y/N]` on a terminal; end of input is a no.
fn ask(plan: &Plan) -> Result<bool, Error> {
    output::ask(&question(plan)).map_err(Error::ReadAnswer)
}
