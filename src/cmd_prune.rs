//! `mcplogs prune`: shows the plan, asks (or refuses without a terminal), deletes.
//! All decisions and safety checks live in the library (`mcplogs::prune`).

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use clap::Args;

use crate::exit_codes::ExitCode;
use crate::{emit, error, print_warnings};
use mcplogs::prune::{self, PruneOptions};
use mcplogs::render::prune::{outcome_text, plan_text, prune_json, question};

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcplogs prune --dry-run                 what would go, deleting nothing
  mcplogs prune --older-than 7d           keep the last week
  mcplogs prune --home /mnt/old-laptop/home/ana --yes")]
pub struct PruneArgs {
    /// Cache folders (claude-cli-nodejs, or a folder inside one) or debug folders
    /// (~/.claude/debug). Default: this OS's cache folder and ~/.claude/debug.
    pub paths: Vec<PathBuf>,

    /// Treat DIR as a home folder (from any OS): prune its caches and .claude/debug
    #[arg(long, value_name = "DIR")]
    pub home: Vec<PathBuf>,

    /// Only files last modified longer ago than this (90m, 36h, 7d, 2w)
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub older_than: Option<Duration>,

    /// Only print the plan; delete nothing
    #[arg(long)]
    pub dry_run: bool,

    /// Delete without asking (needed when standard input is not a terminal)
    #[arg(long, short)]
    pub yes: bool,

    /// One JSON document on stdout (the plan, and what was deleted)
    #[arg(long)]
    pub json: bool,
}

fn parse_duration(arg: &str) -> Result<Duration, String> {
    // `--since` takes the same durations; a date is refused here.
    let now = mcplogs::time::now();
    if arg.contains('-') {
        return Err("expected a duration such as 90m, 36h, 7d or 2w".into());
    }
    let since = mcplogs::time::parse_since(arg, now)?;
    Ok(Duration::from_secs(now.saturating_sub(since) as u64))
}

pub fn run_prune(args: PruneArgs) -> ExitCode {
    let opts = PruneOptions {
        paths: args.paths,
        homes: args.home,
        older_than: args.older_than,
    };
    let plan = match prune::plan(&opts, SystemTime::now()) {
        Ok(p) => p,
        Err(e) => return error(e),
    };
    print_warnings(&plan.warnings);
    let show = |outcome: Option<&prune::Outcome>| -> Result<(), io::Error> {
        if args.json {
            let mut s = serde_json::to_string_pretty(&prune_json(&plan, outcome)).expect("json");
            s.push('\n');
            emit(&s)
        } else {
            match outcome {
                None => emit(&plan_text(&plan)),
                Some(o) => emit(&outcome_text(o)),
            }
        }
    };
    if args.dry_run || plan.files == 0 {
        return match show(None) {
            Ok(()) => ExitCode::Clean,
            Err(e) => error(format!("cannot write output: {e}")),
        };
    }
    if !args.yes {
        if !io::stdin().is_terminal() {
            let _ = show(None);
            return error(
                "refusing to delete without confirmation: standard input is not a terminal (read the plan, then run again with --yes)",
            );
        }
        if !args.json
            && let Err(e) = show(None)
        {
            return error(format!("cannot write output: {e}"));
        }
        let mut err = io::stderr().lock();
        let _ = write!(err, "{}", question(&plan));
        let _ = err.flush();
        drop(err);
        let mut answer = String::new();
        match io::stdin().lock().read_line(&mut answer) {
            Ok(_) if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") => {}
            Ok(n) => {
                if n == 0 {
                    eprintln!();
                }
                eprintln!("mcplogs: nothing deleted");
                return ExitCode::Clean;
            }
            Err(e) => return error(format!("cannot read the answer: {e}")),
        }
    }
    let outcome = prune::execute(&plan, SystemTime::now());
    print_warnings(&outcome.skipped);
    match show(Some(&outcome)) {
        Ok(()) => ExitCode::Clean,
        Err(e) => error(format!("cannot write output: {e}")),
    }
}
