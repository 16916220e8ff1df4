//! `mcplogs completions SHELL`, `mcplogs man` and `mcplogs docs`: generated from the clap
//! definitions, so they never drift from the real flags, and the guides of docs/ bundled
//! into the binary, so an installed user has them without the source tree.

use std::path::{Path, PathBuf};

use clap::CommandFactory;

use crate::cli::{Cli, ManArgs};
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;

/// The script that registers mcplogs' dynamic completion with `shell`: subcommands and
/// flags as clap defines them, and server names ([`crate::complete::server_names`])
/// asked of mcplogs itself at each Tab.
pub fn completions(shell: clap_complete::Shell) -> Result<ExitCode, Error> {
    let out = crate::complete::registration(&shell.to_string()).map_err(Error::WriteOutput)?;
    output::stdout(&String::from_utf8_lossy(&out))?;
    Ok(ExitCode::Clean)
}

/// The guides, by topic, in the order `mcplogs docs` lists them.
const GUIDES: &[(&str, &str, &str)] = &[
    (
        "usage",
        "every command, large log trees, damaged input",
        include_str!("../../../../docs/usage.md"),
    ),
    (
        "settings",
        "settings layers, which file `fix` writes",
        include_str!("../../../../docs/settings.md"),
    ),
    (
        "verdicts",
        "verdicts, causes and terms",
        include_str!("../../../../docs/verdicts.md"),
    ),
    (
        "report",
        "what a report holds, redaction",
        include_str!("../../../../docs/report.md"),
    ),
    (
        "probe",
        "`probe`, server-author mode, transcripts",
        include_str!("../../../../docs/probe.md"),
    ),
    (
        "json",
        "the --json contract, every field",
        include_str!("../../../../docs/json.md"),
    ),
    (
        "prune",
        "what `prune` deletes and never deletes",
        include_str!("../../../../docs/prune.md"),
    ),
    (
        "claude-code",
        "what mcplogs knows of Claude Code; status line, hook",
        include_str!("../../../../docs/claude-code.md"),
    ),
    (
        "export",
        "`export`: verdicts to OpenTelemetry, deployment, queries",
        include_str!("../../../../docs/export.md"),
    ),
    (
        "scanning",
        "newest-first reading, large files",
        include_str!("../../../../docs/scanning.md"),
    ),
];

/// `mcplogs docs [TOPIC]`: the guide, or the list of guides.
pub fn docs(topic: Option<&str>) -> Result<ExitCode, Error> {
    let Some(topic) = topic else {
        let mut out = String::from("Guides (mcplogs docs TOPIC):\n");
        for (name, about, _) in GUIDES {
            out.push_str(&format!("  {name:<10} {about}\n"));
        }
        output::screen(&out)?;
        return Ok(ExitCode::Clean);
    };
    let wanted = topic.trim_end_matches(".md").to_ascii_lowercase();
    match GUIDES.iter().find(|(name, _, _)| *name == wanted) {
        Some((_, _, text)) => {
            // fitted to a terminal; piped (`> usage.md`) exactly as bundled
            output::screen(text)?;
            Ok(ExitCode::Clean)
        }
        None => Err(Error::UnknownTopic {
            kind: "guide",
            given: topic.to_string(),
            known: GUIDES
                .iter()
                .map(|(n, _, _)| *n)
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

/// The pages: `mcplogs` and one `mcplogs-SUBCOMMAND` per visible subcommand.
fn pages() -> Vec<clap::Command> {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut pages = vec![cmd.clone()];
    pages.extend(
        cmd.get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| s.clone().version(env!("CARGO_PKG_VERSION"))),
    );
    pages
}

/// One page in roff. The after-help text (examples, aligned comments) is laid out as it
/// is in `--help`, unfilled, under EXAMPLES, instead of justified into one paragraph.
fn render_page(cmd: clap::Command) -> Result<Vec<u8>, Error> {
    let extra = cmd.get_after_help().map(|t| t.to_string());
    let cmd = cmd.after_help(None::<&str>);
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut out)
        .map_err(Error::WriteOutput)?;
    if let Some(text) = extra {
        let text = text.strip_prefix("EXAMPLES:\n").unwrap_or(&text);
        out.extend_from_slice(b".SH EXAMPLES\n.nf\n");
        for line in text.lines() {
            out.extend_from_slice(roff_line(line).as_bytes());
            out.push(b'\n');
        }
        out.extend_from_slice(b".fi\n");
    }
    Ok(out)
}

/// A line of literal text for roff: backslashes escaped, and a leading `.` or `'`
/// (which roff would read as a request) guarded.
fn roff_line(line: &str) -> String {
    let line = line.replace('\\', "\\e");
    let line = if line.is_empty() {
        " ".to_string()
    } else {
        line
    };
    if line.starts_with(['.', '\'']) {
        format!("\\&{line}")
    } else {
        line
    }
}

/// The page's file name: `mcplogs.1`, `mcplogs-scan.1`.
fn file_name(cmd: &clap::Command) -> String {
    format!(
        "{}.1",
        cmd.get_display_name().unwrap_or_else(|| cmd.get_name())
    )
}

pub fn man(args: ManArgs) -> Result<ExitCode, Error> {
    let pages = pages();
    if args.install {
        let default = args.dir.is_none();
        let dir = match args.dir {
            Some(dir) => dir,
            None => default_man_dir()?,
        };
        return install(&pages, &dir, default);
    }
    let page = match args.page.as_deref() {
        None => pages.into_iter().next().expect("the main page"),
        Some(want) => {
            let known: Vec<String> = pages[1..]
                .iter()
                .map(|c| c.get_name().to_string())
                .collect();
            let found = pages.into_iter().skip(1).find(|c| c.get_name() == want);
            found.ok_or_else(|| Error::UnknownTopic {
                kind: "subcommand",
                given: want.to_string(),
                known: known.join(", "),
            })?
        }
    };
    output::stdout(&String::from_utf8_lossy(&render_page(page)?))?;
    Ok(ExitCode::Clean)
}

/// `share/man/man1` beside the folder holding this binary: `man` derives its search
/// path from PATH (`X/bin` -> `X/share/man`) on Linux (man-db) and macOS.
fn default_man_dir() -> Result<PathBuf, Error> {
    let exe = std::env::current_exe().map_err(|source| Error::ManInstall {
        dir: PathBuf::from("(this binary's folder)"),
        source,
    })?;
    let bin = exe.parent().unwrap_or(Path::new("."));
    let prefix = bin.parent().unwrap_or(bin);
    Ok(prefix.join("share").join("man").join("man1"))
}

fn install(pages: &[clap::Command], dir: &Path, default: bool) -> Result<ExitCode, Error> {
    let fail = |source| Error::ManInstall {
        dir: dir.to_path_buf(),
        source,
    };
    // Folders as `mkdir -p` makes them: 0777 less the umask (0755 with the usual 022).
    std::fs::create_dir_all(dir).map_err(fail)?;
    for page in pages {
        let text = render_page(page.clone())?;
        let path = dir.join(file_name(page));
        // Through a temporary file and a rename, so a reader never sees half a page, and
        // the rename replaces whatever is at the final name (a link is never followed).
        // Man pages are for every user of the system: the file is created 0666 less the
        // umask (0644 with the usual 022), as any installer does, not tempfile's 0600.
        let mut builder = tempfile::Builder::new();
        builder.prefix(".mcplogs-man-");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let mut tmp = builder.tempfile_in(dir).map_err(fail)?;
        std::io::Write::write_all(&mut tmp, &text).map_err(fail)?;
        tmp.persist(&path).map_err(|e| fail(e.error))?;
    }
    let how = match std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        Some(bin) if default => format!(
            "`man mcplogs` finds them while {} is on PATH",
            bin.display()
        ),
        _ => format!("read one with `man -l {}`", dir.join("mcplogs.1").display()),
    };
    output::note(format_args!(
        "mcplogs: {} man pages written to {}; {how}",
        pages.len(),
        dir.display(),
    ));
    Ok(ExitCode::Clean)
}
