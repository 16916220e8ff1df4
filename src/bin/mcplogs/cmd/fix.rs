//! `mcplogs fix [--undo]`: the library plans and applies; this module shows the diff,
//! asks, and picks the exit code.

use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};

use colored::Colorize;

use crate::cli::FixArgs;
use crate::cmd::settings::read_layers_in;
use crate::error::{Error, FIX_NOT_NEEDED};
use crate::exit_codes::ExitCode;
use crate::output;
use mcplogs::advice::fixes::{self, Found, UserStep};
use mcplogs::claude_code::lifecycle::ClaudeVersion;
use mcplogs::logs::discovery::Request;
use mcplogs::redact::configured::ConfiguredSecrets;
use mcplogs::render::settings::layer_name;
use mcplogs::scan::select::NameWant;
use mcplogs::scan::{ScanOptions, ScanReport, scan};
use mcplogs::settings::NEGOTIATION_KEY;
use mcplogs::settings::engine::{self, Change, Edit, FilePlan, FixCause};
use mcplogs::settings::fix::{self, FixOptions, FixPlan};
use mcplogs::settings::layers::LayerKind;
use mcplogs::settings::target::{self, FixTarget};
use mcplogs::settings::undo::{self, UndoHow, UndoPlan};
use mcplogs::settings::{EffectiveNegotiation, SettingsError, Sources};

/// The file to fix and why: `--settings` when given, else the layer that wins for the
/// project with the least intrusion (`settings::target`). `None`: legacy is in effect
/// already, nothing to write (said on stderr).
fn settings_path(args: &FixArgs) -> Result<Option<(PathBuf, Option<String>)>, Error> {
    if let Some(p) = &args.settings {
        // The undo record must name the file from any folder.
        return std::path::absolute(p)
            .map(|p| Some((p, None)))
            .map_err(|source| Error::SettingsPath {
                path: p.clone(),
                source,
            });
    }
    let layers = read_layers_in(
        args.project.as_deref(),
        args.managed_dir.clone(),
        &args.home,
    )?;
    let target = target::choose(&layers);
    match &target {
        FixTarget::Write { path, .. } if !args.undo => {
            Ok(Some((path.clone(), Some(target.reason()))))
        }
        // Undo needs the file mcplogs wrote, whatever wins now.
        _ if args.undo => Ok(undo_target(&layers)),
        t if t.is_in_effect() => {
            note(format_args!(
                "{}: nothing to write. If a server still fails, restart Claude Code or run /mcp, then check with {}.",
                target.reason(),
                mcplogs::text::code_span(&mcplogs::advice::verify_command(&args.home))
            ));
            Ok(None)
        }
        _ => Err(Error::FixBlocked(Box::new(target))),
    }
}

/// For `fix --undo` without `--settings`: the project's local file if mcplogs fixed it,
/// else the user file.
fn undo_target(layers: &EffectiveNegotiation) -> Option<(PathBuf, Option<String>)> {
    let files: Vec<&PathBuf> = [LayerKind::Local, LayerKind::User]
        .iter()
        .filter_map(|k| layers.layers.iter().find(|l| l.kind == *k))
        .filter_map(|l| l.path.as_ref())
        .collect();
    files
        .iter()
        .find(|p| undo::state_path(p).exists())
        .or(files.last())
        .map(|p| ((*p).clone(), None))
}

/// A scanned server the legacy fix helps, with the settings layers of its own project.
struct Failing {
    /// "name (project)", as the notes show it.
    label: String,
    project: PathBuf,
    layers: std::rc::Rc<EffectiveNegotiation>,
}

/// A file to write and why it was chosen (shown above the diff).
type FileAndWhy = (PathBuf, Option<String>);

/// One file of the plan: the servers whose project it reaches, and why this file.
struct Planned {
    path: PathBuf,
    why: Option<String>,
    pending: fix::PendingFix,
}

pub fn run(mut args: FixArgs) -> Result<ExitCode, Error> {
    // A project reached through a symlink is the folder it names: Claude Code records
    // the real path as the project (its `cwd`), and `fix --undo` run in it reads the
    // real path as the current folder (helper-99 #2: `fix --project` through a link
    // warned that its own file would not take effect, and the plain undo refused).
    if let Some(p) = args.project.take() {
        args.project = Some(std::fs::canonicalize(&p).unwrap_or(p));
    }
    if args.undo {
        return run_undo_cmd(&args);
    }
    if let Some(p) = &args.command_path {
        check_command_path(p)?;
    }
    // read and checked before anything is planned: its absolute path is what is written
    let ca_file = match &args.ca_file {
        Some(p) => {
            Some(
                mcplogs::settings::ca::read_ca_file(p).map_err(|source| Error::CaFile {
                    path: p.clone(),
                    source,
                })?,
            )
        }
        None => None,
    };
    if let Some(name) = args.server.as_deref()
        && args.except.iter().any(|e| NameWant::new(e).is(name))
    {
        return Err(Error::FixServerExcepted {
            name: mcplogs::scan::select::echo(name),
        });
    }
    // `--settings FILE` or `--project DIR`: that one file, as the user named it, for the
    // legacy setting only. Else one file per failing server's project: the file that
    // wins there, and every other change the fix engine declares for a failing server.
    let explicit = args.settings.is_some() || args.project.is_some();
    let report = if args.force && explicit {
        None
    } else {
        Some(scan_for_fix(&args, ca_file.as_ref())?)
    };
    match &report {
        Some(r) => set_configured(r.secrets.clone()),
        None => learn_configured(
            &args.home,
            args.project.as_deref(),
            args.managed_dir.clone(),
        ),
    }
    if let Some(r) = &report {
        // a `~/.claude.json` that cannot be parsed: its servers are not planned for
        // (helper-78 L3: fix said nothing of it)
        if let Some(w) = &r.config_problem {
            warning(w);
        }
        tag_names_of(r);
        for name in args.server.iter().chain(&args.except) {
            if !server_known(r, name) {
                return Err(Error::FixUnknownServer {
                    name: mcplogs::scan::select::echo(name),
                    list: crate::cmd::scan::scan_command(&args.home, &[]),
                    close: differs_in_case(r, name),
                });
            }
        }
        if let Some(name) = args.server.as_deref() {
            server_unique(r, name)?;
            excepted(r, name, &args.except)?;
        }
    }
    let failing = match &report {
        Some(r) => servers_needing_fix(&args, r),
        None => Vec::new(),
    };
    // which project each planned file reaches, asked once a project
    let reach = Reach::default();
    let found = match &report {
        Some(r) if !explicit => engine_found(r),
        // `--project DIR` / `--settings FILE`: the engine's changes that go in that
        // project's files / that file; each other one said, never silently dropped
        Some(r) => {
            let mut f = engine_found(r);
            let all = f.changes.len();
            f.changes = only_named_files(&args, f.changes);
            if f.changes.is_empty() && all > 0 && failing.is_empty() && !args.force {
                say_steps(&f.steps);
                note(format_args!(
                    "Nothing to write there: every change goes in another file (said above)."
                ));
                return Ok(ExitCode::Clean);
            }
            f
        }
        None => Found::default(),
    };
    // a CA file the user named that verified no server's chain: nothing is written
    if let Some(ca) = &ca_file
        && !found.changes.iter().any(|c| c.cause == FixCause::TrustedCa)
    {
        say_steps(&found.steps);
        return Err(Error::CaFileNotUsed {
            path: ca.path.clone(),
            why: if found.steps.is_empty() {
                "no failing server has a certificate Claude Code does not trust (`mcplogs scan` shows each server's cause)".to_string()
            } else {
                "no change for a server that fails for an untrusted certificate was planned with it (why is said above)".to_string()
            },
        });
    }
    // the engine's changes grouped by file, in the order the servers came
    let mut groups: engine::ByFile<Vec<Change>> = engine::ByFile::default();
    for c in found.changes {
        // one file however it is reached (two projects sharing a linked `.claude`)
        let ((p, cs), _) = groups.group(&c.file, Vec::new);
        if let Some(first) = cs.first() {
            engine::take_unlinked_spelling(p, first.layer, &c.file, c.layer);
        }
        cs.push(c)
    }
    let engine_any = !groups.is_empty();
    let mut files: Vec<(PathBuf, Option<String>)> = Vec::new();
    if explicit {
        // the legacy setting in the named file: when a server needs it, or asked with
        // --force, or when nothing else is planned (said as before)
        if !failing.is_empty() || args.force || !engine_any {
            match settings_path(&args)? {
                Some(one) => files.push(one),
                None if !engine_any => return Ok(ExitCode::Clean),
                None => {}
            }
        }
    } else if failing.is_empty() {
        if !engine_any {
            // Nothing any file can change: never a legacy diff that helps no server.
            if let Some(name) = args.server.as_deref() {
                say_steps(&found.steps);
                return nothing_for(name, &args, found.steps.is_empty());
            }
            if !args.force && !args.except.is_empty() {
                // `--except` left out what there was to change (scan prints
                // `mcplogs fix --except=NAME` to keep a server off): said so, never the
                // legacy setting's --force, which would write what nobody asked for; the
                // same with or without --dry-run, whatever steps only the user can take
                // are said first (with such a step it was the error below, exit 2, where
                // --dry-run said 'Nothing to write', exit 0)
                say_steps(&found.steps);
                note(
                    "no server but those --except leaves out has anything mcplogs fix can change: nothing to write.",
                );
                return Ok(ExitCode::Clean);
            }
            if !args.force && !found.steps.is_empty() {
                // what only the user can do is the answer: not the legacy fix's error
                say_steps(&found.steps);
                let what = "nothing mcplogs fix can change for the servers above (only you can, as said there)".to_string();
                if args.dry_run {
                    note(format_args!("{what}. Nothing to write."));
                    return Ok(ExitCode::Clean);
                }
                return Err(Error::FixNothingFor { what });
            }
            if !args.force {
                say_steps(&found.steps);
                if args.dry_run {
                    note(format_args!(
                        "{FIX_NOT_NEEDED}: nothing to write (--force shows and writes it anyway)."
                    ));
                    return Ok(ExitCode::Clean);
                }
                return Err(Error::FixNotNeeded);
            }
            let Some(one) = settings_path(&args)? else {
                return Ok(ExitCode::Clean);
            };
            refuse_reaching_modern_only(&args, report.as_ref(), &one.0)?;
            files.push(one);
        }
    } else {
        match per_project_files(&args, &failing, report.as_ref())? {
            Some(f) => files = f,
            None if engine_any => {}
            None => return Ok(ExitCode::Clean),
        }
    }
    if args.settings.is_some()
        && let Some((path, _)) = files.first()
        && let Ok(layers) = read_layers_in(
            args.project.as_deref(),
            args.managed_dir.clone(),
            &args.home,
        )
    {
        let unknown = layers.unknown_above(path);
        if !unknown.is_empty() {
            warning(format!(
                "above {} in {}: {}",
                path.display(),
                layers.project_dir.display(),
                target::unknown_text(&unknown)
            ));
        }
        for l in layers.overriding(path) {
            warning(format!(
                "{} sets {NEGOTIATION_KEY} to \"{}\" and takes precedence over {}: the fix there has no effect for {} until that changes",
                layer_name(l),
                l.negotiation.as_ref().map(|v| v.as_str()).unwrap_or(""),
                path.display(),
                layers.project_dir.display(),
            ));
        }
    }
    // Every file planned before anything is written: a file that cannot be fixed stops
    // the whole plan.
    let mut plan: Vec<Planned> = Vec::new();
    for (path, why) in files {
        // A file the engine writes too gets the legacy setting as one more of its
        // changes: one diff, one backup and one undo record a file.
        if let Some((_, cs)) = groups.get_mut(&path) {
            cs.push(legacy_change(&path, why.as_deref(), &failing, &reach));
            continue;
        }
        match fix::plan_fix_in(
            &path,
            project_of(&args, &path).as_deref(),
            FixOptions {
                rewrite_strict: args.rewrite_strict,
            },
        )? {
            FixPlan::AlreadyLegacy { path } => note(format_args!(
                "{} already sets env.{NEGOTIATION_KEY} to \"legacy\": nothing to write.",
                path.display()
            )),
            FixPlan::Pending(pending) => plan.push(Planned { path, why, pending }),
        }
    }
    let mut engine_plans: Vec<FilePlan> = Vec::new();
    for (path, changes) in groups.into_groups() {
        if let Some(p) = engine::plan_file(&path, changes)? {
            engine_plans.push(p);
        }
    }
    if plan.is_empty() && engine_plans.is_empty() {
        say_steps(&found.steps);
        return Ok(ExitCode::Clean);
    }
    if failing.is_empty() && !args.force && !engine_any {
        if !args.dry_run {
            return Err(Error::FixNotNeeded);
        }
        // never a diff that helps no server; --force shows it
        note(format_args!(
            "{FIX_NOT_NEEDED}: nothing to write (--force shows and writes it anyway)."
        ));
        return Ok(ExitCode::Clean);
    } else if !failing.is_empty() {
        let written: Vec<&Path> = plan
            .iter()
            .map(|p| p.path.as_path())
            .chain(engine_plans.iter().filter_map(|p| {
                p.changes
                    .iter()
                    .any(|c| c.cause == FixCause::Negotiation)
                    .then_some(p.path.as_path())
            }))
            .collect();
        say_reach(&failing, &written, &reach);
    }
    // Several files get the legacy setting: each names the servers it covers.
    let legacy_files = plan.len()
        + engine_plans
            .iter()
            .filter(|p| p.changes.iter().any(|c| c.cause == FixCause::Negotiation))
            .count();
    for p in &plan {
        if let Some(why) = &p.why {
            let covers: Vec<&str> = failing
                .iter()
                .filter(|f| reach.reached(f, &p.path))
                .map(|f| f.label.as_str())
                .collect();
            let named = if legacy_files > 1 && !covers.is_empty() {
                format!(" (for {})", covers.join(", "))
            } else {
                String::new()
            };
            note(format_args!("Writing {}{named}: {why}.", p.path.display()));
        }
    }
    for p in &engine_plans {
        for c in &p.changes {
            note(format_args!(
                "For {} ({}): {}.",
                c.server,
                c.cause.as_str(),
                c.why
            ));
        }
    }
    let diff: String = plan
        .iter()
        .map(|p| p.pending.diff.as_str())
        .chain(engine_plans.iter().map(|p| p.diff.as_str()))
        .collect();
    print_diff(&diff, args.dry_run)?;
    say_steps(&found.steps);
    if !go_ahead(args.dry_run, args.yes)? {
        return Ok(ExitCode::Clean);
    }
    let mut written: Vec<(PathBuf, fix::AppliedFix)> = Vec::new();
    for p in &plan {
        match fix::apply_fix(&p.pending) {
            Ok(applied) => written.push((p.path.clone(), applied)),
            Err(e) => {
                roll_back(&args, &written);
                return Err(e.into());
            }
        }
    }
    for p in &engine_plans {
        match engine::apply_file(p) {
            Ok(applied) => written.push((p.path.clone(), applied)),
            Err(e) => {
                roll_back(&args, &written);
                return Err(e.into());
            }
        }
    }
    let paths: Vec<PathBuf> = written.iter().map(|(p, _)| p.clone()).collect();
    // A plan of the failing servers' projects is recorded for `fix --undo` from any
    // folder; a file the user named (`--settings`, `--project`) is undone by naming it.
    let recorded = !explicit && record_plan(&args, &paths);
    // Every path is absolute (the file written), so the command runs from any folder.
    // (with the `--home` flags when a plan is recorded: the record that home keeps is
    // told of the undo)
    let homes = if recorded {
        mcplogs::advice::home_flags(&args.home)
    } else {
        String::new()
    };
    let undo_cmd = match paths.as_slice() {
        [one] if !recorded || !engine_any => format!(
            "mcplogs fix --undo{homes} --settings {}",
            mcplogs::text::shell_word(&one.display().to_string())
        ),
        _ if recorded => format!(
            "mcplogs fix --undo{}",
            mcplogs::advice::home_flags(&args.home)
        ),
        _ => paths
            .iter()
            .map(|p| {
                format!(
                    "mcplogs fix --undo{homes} --settings {}",
                    mcplogs::text::shell_word(&p.display().to_string())
                )
            })
            .collect::<Vec<_>>()
            .join("` and `"),
    };
    for (i, (path, applied)) in written.iter().enumerate() {
        // the undo command after the last file written
        let undo = if i + 1 == written.len() {
            format!(" Undo with {}.", mcplogs::text::code_span(&undo_cmd))
        } else {
            String::new()
        };
        output::wrote(path, applied.backup.as_deref(), &undo);
    }
    // an `env` value is read for each new connection; an approval list or a server's
    // entry when Claude Code starts
    let env_changed = !plan.is_empty()
        || engine_plans.iter().flat_map(|p| &p.changes).any(
            |c| matches!(&c.edit, Edit::Set { path, .. } if path.first().is_some_and(|k| k == "env")),
        );
    if env_changed {
        note(format_args!(
            "Claude Code picks up env changes for new connections: restart Claude Code or run /mcp to reconnect, then check with {}.",
            mcplogs::text::code_span(&mcplogs::advice::verify_command(&args.home))
        ));
    } else {
        note(format_args!(
            "Claude Code reads the approval lists and the servers' entries when it starts: restart Claude Code, then check with {}.",
            mcplogs::text::code_span(&mcplogs::advice::verify_command(&args.home))
        ));
    }
    Ok(ExitCode::Clean)
}

/// Whether `want` is one of a row's names: its own, or one of the names sharing its log
/// folder (`api-v2 + api_v2`: helper-81 #3, `fix api-v2` said no such server).
fn names_row(want: &NameWant, s: &mcplogs::scan::ServerReport) -> bool {
    want.is(&s.name) || s.shared_by.iter().any(|n| want.is(n))
}

/// A server's name (logged or configured) that is `name` but for case, as printed: the
/// server `scan --server NAME` selects (helper-86 #8: `fix` said none was there).
fn differs_in_case(report: &ScanReport, name: &str) -> Option<String> {
    let want = want_of(report, name);
    let mut close: Vec<String> = report
        .servers
        .iter()
        .flat_map(|s| std::iter::once(&s.name).chain(&s.shared_by))
        .chain(report.configured.iter().map(|r| &r.configured_name))
        .filter(|n| {
            !n.contains(mcplogs::claude_code::names::SHARED_SEP) && n.eq_ignore_ascii_case(name)
        })
        .map(|n| format!("{:?}", want.print(n)))
        .collect();
    close.sort();
    close.dedup();
    // (every one: `Wrong-Types` and `wrong-types` are two servers, helper-88 #12)
    (!close.is_empty()).then(|| close.join(" or "))
}

/// Whether `fix NAME` names a server the scan knows: logged, or configured for a
/// scanned project or for the folder `fix` runs in.
fn server_known(report: &ScanReport, name: &str) -> bool {
    let want = want_of(report, name);
    if report.servers.iter().any(|s| names_row(&want, s))
        || report
            .configured
            .iter()
            .any(|r| want.is(&r.configured_name))
    {
        return true;
    }
    let env = |k: &str| std::env::var(k).ok();
    std::env::current_dir().ok().is_some_and(|cwd| {
        let global = mcplogs::claude_code::paths::global_config_here();
        mcplogs::claude_code::config::resolve(global.as_deref(), &cwd, &env)
            .servers
            .iter()
            .any(|s| want.is(&s.name))
    })
}

/// `fix NAME --except OTHER` where OTHER leaves out every server NAME selects (one
/// written as scan prints it, the other as configured): the usage error the same text
/// twice gets before the scan.
fn excepted(report: &ScanReport, name: &str, except: &[String]) -> Result<(), Error> {
    let want = want_of(report, name);
    let except: Vec<NameWant> = except.iter().map(|e| want_of(report, e)).collect();
    let mut selected = report
        .servers
        .iter()
        .map(|s| s.name.as_str())
        .chain(report.configured.iter().map(|r| r.configured_name.as_str()))
        .filter(|n| want.is(n))
        .peekable();
    if selected.peek().is_some() && selected.all(|n| except.iter().any(|e| e.is(n))) {
        return Err(Error::FixServerExcepted {
            name: want.echo().to_string(),
        });
    }
    Ok(())
}

/// `NAME` as `fix` matches it: as written, or as `scan` prints it (a token or a value
/// the configuration marks as secret hidden: [`mcplogs::scan::select`]).
fn want_of(report: &ScanReport, name: &str) -> NameWant {
    NameWant::knowing(name, &report.secrets)
}

/// `fix NAME` with a printed form (a name holding a token or a configured value,
/// redacted) that servers of more than one name print as: a usage error, never a guess.
fn server_unique(report: &ScanReport, name: &str) -> Result<(), Error> {
    let want = want_of(report, name);
    if !want.is_printed_form() {
        return Ok(());
    }
    let selected = report
        .servers
        .iter()
        .map(|s| s.name.as_str())
        .chain(report.configured.iter().map(|r| r.configured_name.as_str()))
        .filter(|n| want.is(n));
    match want.ambiguous(selected) {
        Some(e) => Err(Error::AmbiguousName(e)),
        None => Ok(()),
    }
}

/// `fix NAME` where no file mcplogs writes would change anything for NAME: said, with
/// where to look (the steps only the user can take were said before). A dry run ends
/// cleanly; otherwise the command fails (exit 2), since the fix asked for was not made.
fn nothing_for(name: &str, args: &FixArgs, no_steps: bool) -> Result<ExitCode, Error> {
    // never the token a name may hold: its printed form, which `--server` takes too
    let name = &mcplogs::scan::select::echo(name);
    let what = format!(
        "nothing mcplogs fix can change for {}{}: {} shows its state and what to do",
        mcplogs::text::shell_word_typed(name),
        if no_steps {
            ""
        } else {
            " (only you can, as said above)"
        },
        mcplogs::text::code_span(&format!(
            "mcplogs scan {}{}",
            mcplogs::text::option_word("--server", &mcplogs::text::shell_word_typed(name)),
            mcplogs::advice::home_flags(&args.home)
        ))
    );
    if args.dry_run {
        note(format_args!("{what}. Nothing to write."));
        return Ok(ExitCode::Clean);
    }
    Err(Error::FixNothingFor { what })
}

/// `--command-path`: written as the server's command, so it must be an absolute path to
/// an executable regular file (a link to one is fine: Claude Code follows it).
fn check_command_path(p: &Path) -> Result<(), Error> {
    let refuse = |why: String| {
        Err(Error::CommandPath {
            path: p.to_path_buf(),
            why,
        })
    };
    if !p.is_absolute() {
        return refuse(
            "not an absolute path (Claude Code starts the server from another folder)".into(),
        );
    }
    let meta = match std::fs::metadata(p) {
        Ok(m) => m,
        Err(e) => return refuse(format!("cannot be read ({e})")),
    };
    if !meta.is_file() {
        return refuse("not a regular file".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 == 0 {
            return refuse("not executable (no x permission)".into());
        }
    }
    Ok(())
}

/// The legacy setting as one change of a file the engine writes too, for the failing
/// servers it reaches (the file wins in their project) and no others.
fn legacy_change(path: &Path, why: Option<&str>, failing: &[Failing], reach: &Reach) -> Change {
    Change {
        cause: FixCause::Negotiation,
        server: failing
            .iter()
            .filter(|f| reach.reached(f, path))
            .map(|f| f.label.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        why: why.map_or_else(
            || format!("{NEGOTIATION_KEY}=legacy in {}", path.display()),
            |w| format!("{NEGOTIATION_KEY}=legacy in {}: {w}", path.display()),
        ),
        file: path.to_path_buf(),
        layer: "settings",
        edit: Edit::Set {
            path: vec!["env".into(), NEGOTIATION_KEY.into()],
            value: serde_json::Value::String(mcplogs::settings::LEGACY.into()),
        },
    }
}

/// `--force` writes the legacy setting where the user asks: never where it reaches a
/// server known to speak only the new protocol (the setting breaks it).
fn refuse_reaching_modern_only(
    args: &FixArgs,
    report: Option<&ScanReport>,
    file: &Path,
) -> Result<(), Error> {
    let Some(r) = report else { return Ok(()) };
    let cwd = std::env::current_dir().unwrap_or_default();
    let modern_only = mcplogs::advice::modern_only_servers(r, &cwd);
    let read =
        |p: &Path| mcplogs::resolve::negotiation_in(&args.home, p, args.managed_dir.as_deref());
    match mcplogs::advice::reached_modern_only(file, &modern_only, &read) {
        Some(m) => Err(Error::FixWouldBreak {
            file: file.to_path_buf(),
            server: m.name.clone(),
        }),
        None => Ok(()),
    }
}

/// A note of `fix` on stderr with the secrets of its text hidden: server labels, project
/// folders and file paths come from the machine, and may hold a token (as `scan` hides
/// them).
fn note(line: impl std::fmt::Display) {
    output::note(hidden(line.to_string()));
}

/// [`note`] for a warning.
fn warning(line: impl std::fmt::Display) {
    output::warning(hidden(line.to_string()));
}

/// `line` as [`note`] prints it: each scanned name holding a secret tagged, then every
/// value the configuration marks as secret hidden (a server named `svc-VALUE`, `VALUE`
/// another entry's `env` value, shown `svc-[REDACTED:config]` as `scan` shows it), then
/// the secret rules.
fn hidden(line: String) -> String {
    let mut line = tagged(line);
    if let Some(r) = configured_redactor() {
        r.apply(&mut line);
    }
    mcplogs::redact::output::text(&line)
}

/// The redactor of the values the configuration marks as secret ([`CONFIGURED`], once
/// they are read), made once.
fn configured_redactor() -> Option<&'static mcplogs::redact::Redactor> {
    static R: std::sync::OnceLock<mcplogs::redact::Redactor> = std::sync::OnceLock::new();
    let c = CONFIGURED.get().filter(|c| !c.is_empty())?;
    Some(R.get_or_init(|| {
        let mut b = mcplogs::redact::RedactorBuilder::new();
        b.learn_configured_secrets(c);
        b.build()
    }))
}

/// The scanned servers' names that hold a secret, longest first, each with its tag
/// ([`mcplogs::scan::select::tagged`]): set once the scan is made.
static TAGGED: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();

/// Keeps the scanned names holding a secret, so that [`note`] and [`warning`] print each
/// with its tag, as `scan` does (two names printing alike told apart), and the scan's
/// configured secrets, which they hide.
fn tag_names_of(report: &ScanReport) {
    let mut names: Vec<(String, String)> = report
        .servers
        .iter()
        .map(|s| s.name.as_str())
        .chain(report.configured.iter().map(|r| r.configured_name.as_str()))
        .filter_map(|n| {
            let t = mcplogs::scan::select::tagged(n);
            (t != n).then(|| (n.to_string(), t))
        })
        .collect();
    names.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    names.dedup();
    let _ = TAGGED.set(names);
    // (the scan's configured secrets are kept by `run`: [`set_configured`])
}

/// `line` with each name [`tag_names_of`] kept followed by its tag (where no tag follows
/// it yet), before the redaction hides the name.
fn tagged(line: String) -> String {
    tag_in(line, TAGGED.get().map_or(&[], Vec::as_slice))
}

/// [`tagged`] with the names `names` (longest first): a name is tagged only where it
/// stands alone, not inside a longer name (`ghp_X` in `ghp_X-extra`, tagged first as
/// itself) nor where a tag follows it already.
fn tag_in(mut line: String, names: &[(String, String)]) -> String {
    let in_name = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '#');
    for (name, with_tag) in names {
        if !line.contains(name.as_str()) {
            continue;
        }
        let mut out = String::with_capacity(line.len() + 8);
        let mut at = 0;
        for (i, _) in line.match_indices(name.as_str()) {
            let alone = !line[..i].chars().next_back().is_some_and(in_name)
                && !line[i + name.len()..].chars().next().is_some_and(in_name);
            if alone {
                out.push_str(&line[at..i]);
                out.push_str(with_tag);
                at = i + name.len();
            }
        }
        out.push_str(&line[at..]);
        line = out;
    }
    line
}

/// What only the user can do, after the plan, each with its server.
fn say_steps(steps: &[UserStep]) {
    for s in steps {
        note(step_line(s));
    }
}

/// A step only the user can take, as said: its server and text escaped as every name
/// and value mcplogs shows is (a name holding `ESC[31m` printed raw on a terminal, where
/// the last pass keeps colour sequences, which a note's own colour may be).
fn step_line(s: &UserStep) -> String {
    use mcplogs::text::sanitize::text;
    format!("Only you can fix {}: {}.", text(&s.server), text(&s.text))
}

/// The engine's changes for the scanned servers (with `SERVER`, that one only), as the
/// resolution found them ([`mcplogs::resolve::fixes`], the answer `scan` shows): those
/// planned, and those whose file refuses them (planning them again says why, and stops
/// the plan, as before); a change not offered on this build is a step only the user can
/// take.
fn engine_found(report: &ScanReport) -> Found {
    use mcplogs::scan::fix::{FixState, ServerFix};
    let mut found = Found::default();
    let mut take = |who: &str, f: &ServerFix| {
        for c in f
            .changes
            .iter()
            .filter(|c| c.cause != FixCause::Negotiation)
        {
            match (&c.state, &c.change) {
                (FixState::Planned | FixState::Refused { .. }, Some(ch)) => {
                    found.changes.push(ch.clone())
                }
                (FixState::NotOffered { build, observed }, _) => found.steps.push(UserStep {
                    server: who.to_string(),
                    text: format!(
                        "`mcplogs fix` does not offer its {} fix here: observed to work on Claude Code {observed}; this machine runs {build}. To make it by hand: {}",
                        c.cause.as_str(),
                        c.why
                    ),
                }),
                _ => {}
            }
        }
    };
    for s in &report.servers {
        let who = fixes::label(&s.name, s.project.as_deref());
        if let Some(f) = s.fix.as_deref() {
            take(&who, f);
        }
    }
    for c in &report.fix_unlogged.changes {
        take(
            c.change.as_ref().map_or("", |ch| ch.server.as_str()),
            &ServerFix {
                changes: vec![c.clone()],
                ..ServerFix::default()
            },
        );
    }
    for s in &report.servers {
        let who = fixes::label(&s.name, s.project.as_deref());
        for t in s.fix.iter().flat_map(|f| f.steps.iter()) {
            found.steps.push(UserStep {
                server: who.clone(),
                text: t.clone(),
            });
        }
    }
    for t in &report.fix_unlogged.steps {
        let (server, text) = t.split_once(": ").unwrap_or(("", t));
        found.steps.push(UserStep {
            server: server.to_string(),
            text: text.to_string(),
        });
    }
    found
}

/// `fix --project DIR` / `fix --settings FILE`: the changes that go in that project's
/// files (under DIR, or DIR's entry of `~/.claude.json`) / in that file; every other one
/// is said on stderr with where it goes and the command that writes it.
fn only_named_files(args: &FixArgs, changes: Vec<Change>) -> Vec<Change> {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let project = args.project.as_deref().map(canon);
    let (keep, other): (Vec<Change>, Vec<Change>) = changes.into_iter().partition(|c| {
        if let Some(file) = &args.settings {
            return engine::same_file(file, &c.file);
        }
        let Some(dir) = &project else { return true };
        let key = match &c.edit {
            Edit::Set { path, .. } => path.as_slice(),
            Edit::MoveName { parent, .. } => parent.as_slice(),
        };
        canon(&c.file).starts_with(dir)
            || (key.len() >= 2 && key[0] == "projects" && canon(Path::new(&key[1])) == *dir)
    });
    // a disabled list wins in any layer: a server whose lists are not all in the named
    // files would stay off, so none of its lists is moved
    let (keep, held): (Vec<Change>, Vec<Change>) = keep.into_iter().partition(|c| {
        c.cause != FixCause::DisabledMcpjson
            || !other
                .iter()
                .any(|o| o.cause == FixCause::DisabledMcpjson && o.server == c.server)
    });
    for c in &held {
        note(format_args!(
            "For {} ({}): not written in {} either: another file outside what you named disables it too (said here), and a disabled list wins in any layer.",
            c.server,
            c.cause.as_str(),
            c.file.display(),
        ));
    }
    let named = match (&args.settings, &args.project) {
        (Some(f), _) => format!("not the file --settings names ({})", f.display()),
        (None, Some(d)) => format!("not a file of --project {}", d.display()),
        (None, None) => String::new(),
    };
    for c in &other {
        note(format_args!(
            "For {} ({}): not written: its change goes in {}, {named}; `mcplogs fix{}` (without --project or --settings) writes it.",
            c.server,
            c.cause.as_str(),
            c.file.display(),
            mcplogs::advice::home_flags(&args.home),
        ));
    }
    keep
}

/// The file each failing server's project needs, grouped by file (several projects
/// share the user file), with why. `None`: nothing to write (legacy in effect in every
/// project, said on stderr). A project no file mcplogs may write can reach (a managed
/// value) is said as a warning; if that leaves nothing to write, the command fails.
fn per_project_files(
    args: &FixArgs,
    failing: &[Failing],
    report: Option<&ScanReport>,
) -> Result<Option<Vec<FileAndWhy>>, Error> {
    // (file, target, projects) in the order the servers came
    let mut groups: mcplogs::settings::engine::ByFile<(FixTarget, Vec<PathBuf>)> =
        mcplogs::settings::engine::ByFile::default();
    let mut blocked: Option<FixTarget> = None;
    let mut seen: std::collections::HashSet<&Path> = std::collections::HashSet::new();
    let cwd = std::env::current_dir().unwrap_or_default();
    let modern_only =
        report.map_or_else(Vec::new, |r| mcplogs::advice::modern_only_servers(r, &cwd));
    // the local file chosen over the user file, and why (the first project's words)
    let mut local_why: std::collections::HashMap<PathBuf, String> =
        std::collections::HashMap::new();
    for f in failing {
        if !seen.insert(&f.project) {
            continue;
        }
        // The user file reaches every project that does not decide the value itself:
        // not where it would reach a server that speaks only the new protocol.
        let read =
            |p: &Path| mcplogs::resolve::negotiation_in(&args.home, p, args.managed_dir.as_deref());
        let (target, spared) = mcplogs::advice::legacy_target(&f.layers, &modern_only, &read);
        if let (Some(m), Some(path)) = (spared, target.path()) {
            local_why.entry(path.to_path_buf()).or_insert_with(|| {
                format!(
                    "not the user file: it would also reach {} ({}), which speaks only the new protocol and fails under legacy; the local settings of {} reach this project only",
                    m.name,
                    if m.everywhere {
                        "configured for every project".to_string()
                    } else {
                        format!("in {}", m.project.display())
                    },
                    f.project.display()
                )
            });
        }
        match &target {
            FixTarget::Write { path, .. } => {
                let ((p, (t, projects)), made) =
                    groups.group(path, || (target.clone(), Vec::new()));
                if !made
                    && mcplogs::settings::engine::take_unlinked_spelling(p, "local", path, "local")
                {
                    *t = target.clone();
                }
                projects.push(f.project.clone())
            }
            // (`InEffectUnread` is a server's, never a project's target)
            FixTarget::InEffect { .. }
            | FixTarget::SdkV1 { .. }
            | FixTarget::InEffectUnread { .. } => note(format_args!(
                "{}: {}: nothing to write there. If a server still fails, restart Claude Code or run /mcp, then check with {}.",
                f.project.display(),
                target.reason(),
                mcplogs::text::code_span(&mcplogs::advice::verify_command(&args.home))
            )),
            FixTarget::Managed { .. } | FixTarget::NoUserFile | FixTarget::Unwritable { .. } => {
                warning(format!("{}: {}", f.project.display(), target.reason()));
                blocked.get_or_insert(target.clone());
            }
        }
    }
    if groups.is_empty() {
        return match blocked {
            Some(t) => Err(Error::FixBlocked(Box::new(t))),
            None => Ok(None),
        };
    }
    // each project's failing servers' entry, found once (the user file can hold
    // thousands of projects)
    let mut failing_of: std::collections::HashMap<&Path, &Failing> =
        std::collections::HashMap::new();
    for f in failing {
        failing_of.entry(&f.project).or_insert(f);
    }
    Ok(Some(
        groups
            .into_groups()
            .into_iter()
            .map(|(path, (target, projects))| {
                let why = match &target {
                    _ if let Some(w) = local_why.get(&path) => w.clone(),
                    FixTarget::Write { outranks: None, .. } => {
                        // a layer above the file that could not be read: said, never
                        // taken as setting nothing
                        let unknown: Vec<&mcplogs::settings::layers::SettingsLayer> = projects
                            .iter()
                            .filter_map(|p| failing_of.get(p.as_path()))
                            .flat_map(|f| f.layers.unknown_above(&path))
                            .collect();
                        let mut why = format!(
                            "it is the user settings file, and {} with higher precedence {}sets {NEGOTIATION_KEY} in {}",
                            if unknown.is_empty() { "nothing" } else { "no layer" },
                            if unknown.is_empty() { "" } else { "that mcplogs could read " },
                            projects
                                .iter()
                                .map(|p| p.display().to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        );
                        if !unknown.is_empty() {
                            why.push_str("; but ");
                            why.push_str(&target::unknown_text(&unknown));
                        }
                        why
                    }
                    _ => target.reason(),
                };
                (path, Some(why))
            })
            .collect(),
    ))
}

/// Whether a file reaches a failing server's project ([`EffectiveNegotiation::reached_by`]),
/// and with no layer above it that could not be read: asked once a project and file (the
/// servers of a project share its layers, and each answer resolves the layers' paths:
/// on 100,000 servers, seconds of `canonicalize`). For one plan, before it is written.
#[derive(Default)]
struct Reach(std::cell::RefCell<std::collections::HashMap<(PathBuf, PathBuf), (bool, bool)>>);

impl Reach {
    /// (reached, reached with nothing unknown above the file)
    fn of(&self, f: &Failing, path: &Path) -> (bool, bool) {
        // (a project's servers share its layers: `servers_needing_fix`)
        let key = (f.project.clone(), path.to_path_buf());
        if let Some(&r) = self.0.borrow().get(&key) {
            return r;
        }
        let reached = f.layers.reached_by(path);
        let r = (reached, reached && f.layers.unknown_above(path).is_empty());
        self.0.borrow_mut().insert(key, r);
        r
    }

    fn reached(&self, f: &Failing, path: &Path) -> bool {
        self.of(f, path).0
    }
}

/// Which failing servers the plan reaches (the written file wins in their project), and
/// a warning for each it does not: the plan never claims a reach it does not have.
fn say_reach(failing: &[Failing], written: &[&Path], reach: &Reach) {
    let (reached, missed): (Vec<&Failing>, Vec<&Failing>) = failing
        .iter()
        .partition(|f| written.iter().any(|p| reach.reached(f, p)));
    // reached unless a layer above the file, which could not be read, sets the key: not
    // claimed, said
    let (reached, unknown): (Vec<&Failing>, Vec<&Failing>) = reached
        .into_iter()
        .partition(|f| written.iter().any(|p| reach.of(f, p).1));
    if !reached.is_empty() {
        note(format_args!(
            "The legacy fix helps: {}",
            reached
                .iter()
                .map(|f| f.label.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for f in unknown {
        let above: Vec<_> = written
            .iter()
            .filter(|p| reach.reached(f, p))
            .flat_map(|p| f.layers.unknown_above(p))
            .collect();
        warning(format!(
            "this change may not take effect for {}: {}",
            f.label,
            target::unknown_text(&above)
        ));
    }
    for f in missed {
        let target = target::choose(&f.layers);
        let detail = match &target {
            FixTarget::Write { path, .. } => format!(
                "its project needs {} ({}); `mcplogs fix` without --project or --settings writes it",
                path.display(),
                target.reason()
            ),
            FixTarget::InEffect { .. } => target.reason(),
            _ => target.reason(),
        };
        warning(format!(
            "this change does not take effect for {}: {detail}",
            f.label
        ));
    }
}

/// After a failed write in a plan of several files: undoes the files already written,
/// so the plan is all or nothing as far as it can be. Best effort: what cannot be undone
/// is said, with why, and its backup and undo record are left in place (named).
fn roll_back(args: &FixArgs, written: &[(PathBuf, fix::AppliedFix)]) {
    for (path, _) in written.iter().rev() {
        let done = match plan_undo_of(args, path, false) {
            Ok(UndoPlan::Pending(p)) => undo::apply_undo(&p).map_err(|e| e.to_string()),
            Ok(other) => Err(match other {
                UndoPlan::FileRemoved { .. } => "it was removed since".to_string(),
                UndoPlan::KeyChanged { .. } => "its key was changed since".to_string(),
                _ => "no undo record of it was found".to_string(),
            }),
            Err(e) => Err(e.to_string()),
        };
        match done {
            Ok(()) => note(format_args!(
                "Put back {} (the plan stopped).",
                path.display()
            )),
            Err(why) => warning(format!(
                "{} was written and could not be put back: {why}. {} `mcplogs fix --undo --settings {}`",
                path.display(),
                kept_for_undo(path),
                mcplogs::text::shell_word(&path.display().to_string())
            )),
        }
    }
}

/// The project `path` is a file of, by the one rule of every write and undo
/// ([`mcplogs::settings::write::project_of`]), the user's own file being this home's.
fn project_of(args: &FixArgs, path: &Path) -> Option<PathBuf> {
    mcplogs::settings::write::project_of(path, user_file(args).as_deref())
}

/// The undo of `path` as planned for every `fix --undo` and every roll-back: refused,
/// as the fix refused it, where a link lies on the way from its project to it.
fn plan_undo_of(args: &FixArgs, path: &Path, force: bool) -> Result<UndoPlan, SettingsError> {
    undo::plan_undo_in(path, project_of(args, path).as_deref(), force)
}

/// Where the backup and the undo record of `path` are kept, for an undo not made:
/// "Nothing is lost: its backup X and its undo record Y are kept; ... run" (a file the
/// fix created has no backup), the command to follow.
fn kept_for_undo(path: &Path) -> String {
    let record = undo::state_path(path);
    let backup = undo::backup_path(path);
    let files = if std::fs::symlink_metadata(&backup).is_ok() {
        format!(
            "its backup {} and its undo record {} are kept",
            backup.display(),
            record.display()
        )
    } else {
        format!("its undo record {} is kept", record.display())
    };
    format!("Nothing is lost: {files}; once that is mended, run")
}

/// The user settings file of the home `fix` works on: where the plan record goes. Its
/// path only (asked for every file planned and undone: reading every settings layer
/// each time to find it was repeated I/O).
fn user_file(args: &FixArgs) -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    Sources::for_scan_in(&args.home, &cwd, args.managed_dir.as_deref())
        .files()
        .into_iter()
        .find(|(kind, _)| *kind == LayerKind::User)
        .map(|(_, path)| path)
}

/// Records the files written (with those of an earlier plan still undoable) so that
/// `fix --undo` undoes the whole plan from any folder. `false`: no record (said).
fn record_plan(args: &FixArgs, written: &[PathBuf]) -> bool {
    let Some(user) = user_file(args) else {
        return false;
    };
    let mut files: Vec<PathBuf> = undo::load_plan(&user)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| !written.contains(p) && undo::state_path(p).exists())
        .collect();
    files.extend(written.iter().cloned());
    match undo::save_plan(&user, &files) {
        Ok(()) => true,
        Err(e) => {
            warning(format!("the plan's record was not written: {e}"));
            false
        }
    }
}

/// `fix --undo`: `--settings FILE` or `--project DIR` undo that one file as before;
/// otherwise the whole last plan (every file it wrote), from any folder.
fn run_undo_cmd(args: &FixArgs) -> Result<ExitCode, Error> {
    learn_configured(
        &args.home,
        args.project.as_deref(),
        args.managed_dir.clone(),
    );
    if args.settings.is_none()
        && args.project.is_none()
        && let Some(user) = user_file(args)
    {
        let files = undo::load_plan(&user)?;
        if !files.is_empty() {
            return run_undo_plan(args, &user, &files);
        }
    }
    let Some((path, _)) = settings_path(args)? else {
        return Ok(ExitCode::Clean);
    };
    run_undo(args, &path)
}

/// Undoes every file of the plan: each planned (and verified) first, one diff, one
/// confirmation, then each written back.
fn run_undo_plan(args: &FixArgs, user: &Path, files: &[PathBuf]) -> Result<ExitCode, Error> {
    let mut pendings: Vec<(PathBuf, Box<undo::PendingUndo>)> = Vec::new();
    for path in files {
        // a project's file: put back only if no link is on the way from its project,
        // as the fix wrote it
        let planned = plan_undo_of(args, path, args.force).map_err(|e| undo_not_made(e, path))?;
        match planned {
            UndoPlan::Pending(p) => pendings.push((path.clone(), p)),
            UndoPlan::NothingToUndo | UndoPlan::NotOurs { .. } => note(format_args!(
                "No mcplogs fix of {} to undo (no {}).",
                path.display(),
                undo::state_path(path).display()
            )),
            refused @ (UndoPlan::FileRemoved { .. } | UndoPlan::KeyChanged { .. }) => {
                return Err(undo_refused(refused));
            }
        }
    }
    if pendings.is_empty() {
        if !args.dry_run {
            undo::remove_plan(user)?;
        }
        return Ok(ExitCode::Clean);
    }
    for (path, p) in &pendings {
        let how = undo_how(p.how, "fix", FIX_RESTORE_KEY);
        let mut first = how.chars();
        let how: String = first
            .next()
            .map(|c| c.to_lowercase().chain(first).collect())
            .unwrap_or_default();
        note(format_args!("{}: {how}", path.display()));
        for n in &p.notes {
            note(format_args!("  {n}."));
        }
    }
    let diff: String = pendings.iter().map(|(_, p)| p.diff.as_str()).collect();
    if !diff.is_empty() {
        print_diff(&diff, args.dry_run)?;
        if !go_ahead(args.dry_run, args.yes)? {
            return Ok(ExitCode::Clean);
        }
    } else if args.dry_run {
        return Ok(ExitCode::Clean);
    }
    for (path, p) in &pendings {
        undo::apply_undo(p)?;
        let done = match p.how {
            UndoHow::RemoveCreatedFile | UndoHow::RemoveEmptiedFile => "Removed",
            _ => "Restored",
        };
        note(format_args!("{} {}.", done.green().bold(), path.display()));
    }
    undo::remove_plan(user)?;
    // a folder a fix created, left empty now that the plan's record is gone too
    for (_, p) in &pendings {
        undo::remove_created_folder(p);
    }
    Ok(ExitCode::Clean)
}

fn run_undo(args: &FixArgs, path: &Path) -> Result<ExitCode, Error> {
    let planned = plan_undo_of(args, path, args.force).map_err(|e| undo_not_made(e, path))?;
    let pending = match planned {
        UndoPlan::Pending(p) => p,
        UndoPlan::NothingToUndo => {
            note(format_args!(
                "No mcplogs fix of {} to undo (no {}).",
                path.display(),
                undo::state_path(path).display()
            ));
            return Ok(ExitCode::Clean);
        }
        // Only `setup --undo` plans this.
        UndoPlan::NotOurs { .. } => return Ok(ExitCode::Clean),
        refused @ (UndoPlan::FileRemoved { .. } | UndoPlan::KeyChanged { .. }) => {
            return Err(undo_refused(refused));
        }
    };
    let code = finish_undo(
        &pending,
        path,
        "fix",
        FIX_RESTORE_KEY,
        args.dry_run,
        args.yes,
    )?;
    if !args.dry_run && !undo::state_path(path).exists() {
        forget_in_plan(args, path, &pending);
    }
    Ok(code)
}

/// After `fix --undo --settings FILE` (or `--project DIR`) undid `undone`: the plan's
/// record names it no more (a plain `fix --undo` would say there is nothing to undo in
/// it), and goes with the last file it names, with the folder the fix made for it when
/// nothing else is left there. The record is the one beside the user file of this run's
/// homes, or beside `undone` itself when that is a user file with one (an undo run
/// without the fix's `--home`). A record that cannot be read or changed is said.
fn forget_in_plan(args: &FixArgs, undone: &Path, pending: &undo::PendingUndo) {
    let mut users: Vec<PathBuf> = user_file(args).into_iter().collect();
    if undo::plan_path(undone).exists() && !users.iter().any(|u| u == undone) {
        users.push(undone.to_path_buf());
    }
    for user in users {
        forget_in_plan_of(&user, undone, pending);
    }
}

/// [`forget_in_plan`] for the plan's record beside `user`.
fn forget_in_plan_of(user: &Path, undone: &Path, pending: &undo::PendingUndo) {
    let files = match undo::load_plan(user) {
        Ok(files) => files,
        Err(e) => {
            return warning(format!(
                "the plan's record was not checked for {}: {e}",
                undone.display()
            ));
        }
    };
    // the same file however its path is spelled (the file itself may be gone)
    let key = mcplogs::settings::engine::identity;
    let was = key(undone);
    if !files.iter().any(|p| key(p) == was) {
        return;
    }
    let rest: Vec<PathBuf> = files
        .into_iter()
        .filter(|p| key(p) != was && undo::state_path(p).exists())
        .collect();
    // the undone fix made the folder the record is in: the record's removal takes it
    let made_folder = pending.new_bytes.is_none()
        && pending.state.created_folder.as_deref() == user.parent()
        && user.parent().is_some();
    let done = if rest.is_empty() {
        undo::remove_plan(user)
    } else {
        undo::save_plan_made(user, &rest, made_folder)
    };
    match done {
        // a folder the fix made, left empty now that the record is gone too
        Ok(()) => undo::remove_created_folder(pending),
        Err(e) => warning(format!(
            "the plan's record still names {}: {e}",
            undone.display()
        )),
    }
}

/// An undo refused before anything was written: the refusal, and where the backup and
/// the undo record are kept ([`Error::UndoNotMade`]) when a project's link is the reason
/// (mended, the same command undoes the fix).
fn undo_not_made(e: SettingsError, path: &Path) -> Error {
    match e {
        SettingsError::ProjectLink { .. } | SettingsError::Relinked { .. } => Error::UndoNotMade {
            source: Box::new(e),
            kept: kept_for_undo(path),
            command: format!(
                "mcplogs fix --undo --settings {}",
                mcplogs::text::shell_word(&path.display().to_string())
            ),
        },
        other => other.into(),
    }
}

/// What `fix --undo` does to a file changed since: put the key back.
const FIX_RESTORE_KEY: &str = "putting back only the key mcplogs set";

/// How an undo goes, in one sentence: `Unchanged since mcplogs' fix: restoring the
/// backup.` (`what` is `fix` or `setup`; `restore_key` says what a changed file gets).
fn undo_how(how: UndoHow, what: &str, restore_key: &str) -> String {
    match how {
        UndoHow::RestoreBackup => format!("Unchanged since mcplogs' {what}: restoring the backup."),
        UndoHow::RemoveCreatedFile => {
            format!("Unchanged since mcplogs' {what}, which created it: removing the file.")
        }
        UndoHow::RestoreKey => format!("Changed since mcplogs' {what}: {restore_key}."),
        UndoHow::RemoveEmptiedFile => format!(
            "Changed since mcplogs' {what}, which created it: {restore_key} leaves nothing in it, so removing the file."
        ),
    }
}

/// The error for an undo the plan refuses: the file is gone, or its key was changed.
pub(crate) fn undo_refused(plan: UndoPlan) -> Error {
    match plan {
        UndoPlan::FileRemoved { path } => Error::UndoFileRemoved { path },
        UndoPlan::KeyChanged {
            path,
            now,
            previous,
        } => Error::UndoKeyChanged {
            path,
            now,
            previous,
        },
        // Every other plan goes ahead or says why not; only these two are refusals.
        other => unreachable!("not a refused undo: {other:?}"),
    }
}

/// The end of every undo (`fix --undo`, `setup --undo`): what will happen, the diff, the
/// confirmation, the write, and what was done. `what` names the change undone (`fix`,
/// `setup`); `restore_key` says what a key-only undo does.
pub(crate) fn finish_undo(
    pending: &undo::PendingUndo,
    path: &Path,
    what: &str,
    restore_key: &str,
    dry_run: bool,
    yes: bool,
) -> Result<ExitCode, Error> {
    if pending.diff.is_empty() {
        note(format_args!(
            "{} is already as it was before mcplogs' {what}.",
            path.display()
        ));
    } else {
        note(undo_how(pending.how, what, restore_key));
        for n in &pending.notes {
            note(format_args!("  {n}."));
        }
        print_diff(&pending.diff, dry_run)?;
        if !go_ahead(dry_run, yes)? {
            return Ok(ExitCode::Clean);
        }
    }
    undo::apply_undo(pending)?;
    let done = match pending.how {
        UndoHow::RemoveCreatedFile | UndoHow::RemoveEmptiedFile => "Removed",
        _ => "Restored",
    };
    note(format_args!("{} {}.", done.green().bold(), path.display()));
    Ok(ExitCode::Clean)
}

/// After the diff: `--dry-run` stops here, and so does anything but a yes at the prompt.
/// `true` means go ahead and write.
pub(crate) fn go_ahead(dry_run: bool, yes: bool) -> Result<bool, Error> {
    if dry_run {
        note("Dry run: nothing written.");
        return Ok(false);
    }
    let yes = confirm(yes)?;
    if !yes {
        note("Not applied: nothing written.");
    }
    Ok(yes)
}

/// The scan `fix` decides on: this machine's caches (or `--home`), joined with what
/// the configuration says now.
fn scan_for_fix(
    args: &FixArgs,
    ca_file: Option<&mcplogs::settings::ca::CaFile>,
) -> Result<ScanReport, Error> {
    let opts = ScanOptions {
        request: Request {
            homes: args.home.to_vec(),
            paths: Vec::new(),
        },
        stderr_tails: mcplogs::scan::StderrTails::Skip,
        ..ScanOptions::default()
    };
    let mut report = scan(&opts)?;
    // A server Claude Code no longer starts (disabled, denied, no longer configured) is
    // never an argument for the fix (unless named: `fix SERVER` enables it).
    // How each server is started is the command a path fix is about (never shown whole,
    // so not masked here).
    let cwd = std::env::current_dir().unwrap_or_default();
    mcplogs::resolve::resolve(
        &mut report,
        &opts,
        &cwd,
        args.managed_dir.as_deref(),
        mcplogs::resolve::Steps {
            launch: mcplogs::resolve::Launch::Attach { redact: false },
            redact_report: false,
            fixes: mcplogs::resolve::Fixes::Skip,
        },
    );
    // what `fix` changes: the one resolution `scan` shows, asked with this command's
    // SERVER and options
    let build = || match &args.claude_version {
        Some(v) => ClaudeVersion::parse(v),
        None => mcplogs::probe::installed_claude_version(),
    };
    mcplogs::resolve::fixes::attach(
        &mut report,
        &args.home,
        &cwd,
        args.managed_dir.as_deref(),
        true,
        &mcplogs::resolve::fixes::Ask {
            server: args.server.as_deref(),
            except: &args.except,
            command_path: args.command_path.as_deref(),
            build: &build,
            ca_file,
            net: Some(&mcplogs::advice::remote::LiveNet),
        },
    );
    Ok(report)
}

/// The scanned servers the legacy fix helps (with `SERVER`, that one only), each with
/// its own project's settings layers (`homes` empty: this machine's caches).
fn servers_needing_fix(args: &FixArgs, report: &ScanReport) -> Vec<Failing> {
    let homes = &args.home;
    let managed_dir = args.managed_dir.as_deref();
    let cwd = std::env::current_dir().unwrap_or_default();
    // each project's layers read once, shared by its servers (found by a search of the
    // list per server, that was quadratic: most of a fix over 100,000 servers)
    let mut read: std::collections::HashMap<PathBuf, std::rc::Rc<EffectiveNegotiation>> =
        std::collections::HashMap::new();
    let mut out = Vec::new();
    let server = args.server.as_deref().map(|n| want_of(report, n));
    let except: Vec<NameWant> = args.except.iter().map(|e| want_of(report, e)).collect();
    for s in &report.servers {
        // the servers the resolution gives the legacy setting (as `scan` shows them)
        let legacy = s
            .fix
            .as_deref()
            .is_some_and(|f| f.changes.iter().any(|c| c.cause == FixCause::Negotiation));
        if !legacy {
            continue;
        }
        if server.as_ref().is_some_and(|w| !names_row(w, s))
            || except.iter().any(|e| names_row(e, s))
        {
            continue;
        }
        let (project, _gone) = mcplogs::advice::project_dir_of(s, &cwd);
        let layers = std::rc::Rc::clone(read.entry(project.clone()).or_insert_with(|| {
            std::rc::Rc::new(mcplogs::resolve::negotiation_in(
                homes,
                &project,
                managed_dir,
            ))
        }));
        out.push(Failing {
            label: format!("{} ({})", s.name, s.project.as_deref().unwrap_or("-")),
            project,
            layers,
        });
    }
    out
}

/// The last diff [`print_diff`] showed, uncoloured and unfitted: [`confirm`] shows it again
/// on stderr when stdout is not a terminal (`mcplogs fix > fix.log`), so the question
/// "Apply?" is never asked without the diff beside it.
static SHOWN_DIFF: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

/// Every value the configuration marks as secret (the servers' `env` and `headers`
/// values, their URLs' credentials), hidden in every diff `fix` and `setup` show and in
/// `fix`'s notes, as `scan` hides them: set once a run ([`set_configured`],
/// [`learn_configured`]).
static CONFIGURED: std::sync::OnceLock<ConfiguredSecrets> = std::sync::OnceLock::new();

/// Keeps the configured secrets the scan read ([`CONFIGURED`]).
fn set_configured(secrets: ConfiguredSecrets) {
    let _ = CONFIGURED.set(secrets);
}

/// Reads the configured secrets as `scan` reads them (the homes' `~/.claude.json`, the
/// managed files, the `.mcp.json` and settings of `project` or the working folder and of
/// every project the homes list), for a command that shows a diff without a scan
/// (`fix --undo`, `setup`).
pub(crate) fn learn_configured(
    homes: &[PathBuf],
    project: Option<&Path>,
    managed_dir: Option<PathBuf>,
) {
    if CONFIGURED.get().is_some() {
        return;
    }
    let projects = match project {
        Some(p) => std::path::absolute(p).ok(),
        None => std::env::current_dir().ok(),
    };
    set_configured(mcplogs::scan::secrets::collect(
        &mcplogs::scan::secrets::Places {
            homes: homes.to_vec(),
            projects: projects.into_iter().collect(),
            managed_dir,
            listed: true,
        },
    ));
}

/// `text` with its secrets hidden as a diff's lines are: the secret rules, then the
/// configured secrets ([`CONFIGURED`]).
pub(crate) fn redact_as_diff(text: &str) -> String {
    let text = mcplogs::redact::output::text(text);
    match configured_redactor() {
        Some(r) => r.redact(&text),
        None => text,
    }
}

/// The diff, secrets masked and control characters escaped, coloured on a terminal: a
/// file written on one line (`~/.claude.json`, a compact `.mcp.json`) shows every
/// configured secret in the line a change touches, so they are hidden ([`CONFIGURED`]).
pub(crate) fn print_diff(diff: &str, dry_run: bool) -> Result<(), Error> {
    // the file names shortened under the home; the lines of the files never: a diff
    // shows the bytes written (a `~` inside JSON would be another key); the values the
    // configuration marks as secret hidden as everywhere else
    let none = ConfiguredSecrets::new();
    let configured = CONFIGURED.get().unwrap_or(&none);
    let diff: String = mcplogs::redact::diff::for_display_with(diff, configured)
        .split_inclusive('\n')
        .map(|l| {
            if l.starts_with("--- ") || l.starts_with("+++ ") {
                output::tilde(l)
            } else {
                l.to_string()
            }
        })
        .collect();
    if let Ok(mut shown) = SHOWN_DIFF.lock() {
        shown.clone_from(&diff);
    }
    let width = output::width();
    let mut out = String::new();
    for line in diff
        .lines()
        .flat_map(|l| mcplogs::text::layout::diff_line(l, width))
    {
        let line = line.as_str();
        let painted = if line.starts_with("+++") || line.starts_with("---") {
            line.bold()
        } else if line.starts_with("@@") {
            line.cyan()
        } else if line.starts_with('+') {
            line.green()
        } else if line.starts_with('-') {
            line.red()
        } else {
            line.normal()
        };
        out.push_str(&format!("{painted}\n"));
    }
    // As before the redesign, a diff that cannot be shown does not stop the command:
    // the confirmation still stands between it and any write. A dry run shows nothing
    // but the diff, so there a failed write is the command's failure (exit 2), not a
    // silent success.
    match output::screen(&out) {
        Err(e) if dry_run => Err(e),
        _ => Ok(()),
    }
}

/// `--yes`, or a terminal answering y. No terminal and no `--yes`: refuse (exit 2),
/// since nobody has seen the diff.
fn confirm(yes: bool) -> Result<bool, Error> {
    if yes {
        return Ok(true);
    }
    if !io::stdin().is_terminal() {
        return Err(Error::NotConfirmed);
    }
    // The question is asked on stderr; the diff went to stdout. Redirected, the user
    // would be asked about a change they cannot see: show it here too.
    if !io::stdout().is_terminal() {
        let diff = SHOWN_DIFF.lock().map(|d| d.clone()).unwrap_or_default();
        if !diff.is_empty() {
            note("The change (stdout is not a terminal, so it is shown here too):");
            output::stderr_block(&format!("{}\n", diff.trim_end_matches('\n')));
        }
    }
    output::ask("Apply? [y/N] ").map_err(Error::ReadAnswer)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A step names its server and says its text escaped: a name's escape sequence never
    /// reaches the terminal raw (colour sequences pass the last pass there).
    #[test]
    fn a_step_is_said_escaped() {
        let line = step_line(&UserStep {
            server: "esc\x1b[31mred".into(),
            text: "ask the authors of esc\x1b[31mred\u{200b}".into(),
        });
        assert!(
            !line.contains('\x1b') && !line.contains('\u{200b}'),
            "{line:?}"
        );
        assert!(
            line.starts_with("Only you can fix esc\\x1b[31mred: "),
            "{line:?}"
        );
    }

    /// A name holding a token is tagged where it stands alone, once; not inside a longer
    /// name that begins with it (tagged as itself), nor again after its tag.
    #[test]
    fn a_name_is_tagged_only_where_it_stands_alone() {
        let short = "ghp_Z9y8X7w6V5Z9y8X7w6V5Z9y8X7w6V5abcdef";
        let long = format!("{short}-extra");
        let names: Vec<(String, String)> = [long.clone(), short.to_string()]
            .into_iter()
            .map(|n| {
                let t = mcplogs::scan::select::tagged(&n);
                (n, t)
            })
            .collect();
        let line = format!("fix `{short}` and `{long}`; `{short}` again");
        let out = tag_in(line, &names);
        assert_eq!(
            out,
            format!(
                "fix `{}` and `{}`; `{}` again",
                names[1].1, names[0].1, names[1].1
            )
        );
        assert_eq!(tag_in(out.clone(), &names), out);
    }
}
