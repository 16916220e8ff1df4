//! `mcplogs statusline` and `mcplogs hook`: Claude Code runs them with the session as
//! JSON on stdin. Neither ever fails on Claude Code's screen: bad input is a neutral
//! mark (status line) or silence (hook), the reason on stderr, exit 0.

use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use colored::Colorize;

use crate::cli::{HookArgs, StatuslineArgs};
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;
use mcplogs::claude_code::paths::{HOME_LAYOUTS, Os, default_cache_root};
use mcplogs::status::{self, Piece, SessionInput};
use mcplogs::store::Store;

/// Claude Code's input is a few kilobytes; more is not its JSON.
const INPUT_MAX_BYTES: u64 = 1024 * 1024;

/// stdin, bounded; a terminal is no input (nobody is piping the session in).
fn read_input() -> Vec<u8> {
    let stdin = io::stdin();
    if stdin.is_terminal() {
        return Vec::new();
    }
    let mut bytes = Vec::new();
    let _ = stdin.lock().take(INPUT_MAX_BYTES).read_to_end(&mut bytes);
    bytes
}

/// The cache roots to look in: this machine's, or those of `--home`.
/// `--home`, absolute: the commands the status line and the hook name run in the user's
/// terminal, elsewhere than the session's folder they run in.
fn homes_given(home: Option<&Path>) -> Vec<PathBuf> {
    home.map(|h| std::path::absolute(h).unwrap_or_else(|_| h.to_path_buf()))
        .into_iter()
        .collect()
}

fn cache_roots(home: Option<&Path>) -> Vec<PathBuf> {
    // Absolute, so a memo names its log files wherever `prune` runs from.
    let home = home.map(|h| std::path::absolute(h).unwrap_or_else(|_| h.to_path_buf()));
    match home.as_deref() {
        Some(h) => HOME_LAYOUTS
            .iter()
            .map(|l| l.iter().fold(h.to_path_buf(), |p, c| p.join(c)))
            .collect(),
        None => {
            let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
            default_cache_root(Os::current(), home.as_deref(), &|k| std::env::var_os(k))
                .into_iter()
                .collect()
        }
    }
}

fn paint(p: &Piece) -> String {
    match p {
        Piece::Plain(s) => s.normal().to_string(),
        Piece::Good(s) => s.green().to_string(),
        Piece::Pending(s) => s.yellow().to_string(),
        Piece::Bad(s) => s.red().bold().to_string(),
        Piece::Detail(s) => s.dimmed().to_string(),
    }
}

/// The first line the user's own status line command prints for the same input.
fn run_wrapped(command: &str, input: &[u8]) -> String {
    let mut cmd = if cfg!(windows) {
        let mut c = Command::new("cmd");
        c.arg("/C").arg(command);
        c
    } else {
        let mut c = Command::new("sh");
        c.arg("-c").arg(command);
        c
    };
    let child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            output::warning(format!("--wrap: cannot run {command:?}: {e}"));
            return String::new();
        }
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    match child.wait_with_output() {
        Ok(out) => String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim_end()
            .to_string(),
        Err(e) => {
            output::warning(format!("--wrap: {command:?}: {e}"));
            String::new()
        }
    }
}

/// mcplogs' cache folder for the memos and told-lists: `None` when there is none, it
/// cannot be made, or it is refused (someone else's, open to others, a link: one line on
/// stderr says so; the run goes on without it).
fn open_store(command: &str) -> Option<Store> {
    let dir = mcplogs::scan::cache::default_dir()?;
    match Store::open(&dir) {
        Ok(s) => Some(s),
        Err(e) => {
            if e.is_refusal() {
                output::note(format_args!("mcplogs {command}: {e}"));
            }
            None
        }
    }
}

pub fn run(args: StatuslineArgs) -> Result<ExitCode, Error> {
    let bytes = read_input();
    let own = args
        .wrap
        .as_deref()
        .map(|c| run_wrapped(c, &bytes))
        .unwrap_or_default();
    let joined = |mcp: &str| -> String {
        let mut line = own.clone();
        if !mcp.is_empty() {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&args.prefix);
            line.push_str(mcp);
            line.push_str(&args.suffix);
        }
        line
    };
    let input = match status::parse_input(&bytes) {
        Ok(i) => i,
        Err(e) => {
            output::note(format_args!("mcplogs statusline: {e}"));
            output::stdout(&format!(
                "{}\n",
                joined(&status::NEUTRAL_MARK.dimmed().to_string())
            ))?;
            return Ok(ExitCode::Clean);
        }
    };
    let store = open_store("statusline");
    // A read budget a run: a session's first run on a log of hundreds of megabytes stays
    // as quick as the others, its servers not decided yet (`…`) until later runs have
    // read on (the hook, once a prompt, reads whole: what it tells the model is exact).
    let mut s = status::session_status_within(
        &input,
        &cache_roots(args.home.as_deref()),
        store.as_ref(),
        Some(status::read_budget()),
    );
    // its failing servers resolved as `scan` resolves them (their configuration and the
    // settings of the session's project): the same verdict and the same fix
    mcplogs::resolve::session(
        &mut s,
        &homes_given(args.home.as_deref()),
        args.managed_dir.as_deref(),
        mcplogs::probe::installed_claude_version,
    );
    let taken = [&args.prefix, &args.suffix, &own]
        .iter()
        .map(|t| t.chars().count())
        .sum::<usize>()
        + usize::from(!own.is_empty());
    let width = input.width().saturating_sub(taken);
    let line: String = status::status_line(&s, width).iter().map(paint).collect();
    output::stdout(&format!("{}\n", joined(&line)))?;
    Ok(ExitCode::Clean)
}

pub fn hook(args: HookArgs) -> Result<ExitCode, Error> {
    let bytes = read_input();
    let input: SessionInput = match status::parse_input(&bytes) {
        Ok(i) => i,
        Err(e) => {
            output::note(format_args!("mcplogs hook: {e}; saying nothing"));
            return Ok(ExitCode::Clean);
        }
    };
    let session = input.session_id.clone().unwrap_or_default();
    let store = open_store("hook");
    let mut s =
        status::session_status_with(&input, &cache_roots(args.home.as_deref()), store.as_ref());
    // its failing servers resolved as `scan` resolves them (their configuration and the
    // settings of the session's project): the same verdict and the same fix
    mcplogs::resolve::session(
        &mut s,
        &homes_given(args.home.as_deref()),
        args.managed_dir.as_deref(),
        mcplogs::probe::installed_claude_version,
    );
    let new = status::not_told(store.as_ref(), &session, &s);
    let homes = homes_given(args.home.as_deref());
    let scan = mcplogs::advice::scan_command(&homes);
    let Some(message) = status::hook_message_for(&s, &new, &scan) else {
        return Ok(ExitCode::Clean);
    };
    let doc = mcplogs::json_doc::HookOutput {
        hook_specific_output: mcplogs::json_doc::HookSpecificOutput {
            hook_event_name: input
                .hook_event_name
                .clone()
                .unwrap_or_else(|| mcplogs::settings::setup::HOOK_EVENT.to_string()),
            additional_context: message,
        },
    };
    output::stdout(&output::json(&doc)?)?;
    if let Some(d) = &store
        && let Err(e) = status::remember_told(d, &session, &new)
    {
        output::note(format_args!(
            "mcplogs hook: cannot remember what was told ({e}); it may be told again"
        ));
    }
    Ok(ExitCode::Clean)
}
