//! Command-line flags, kept apart from the logic they drive.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use mcplogs::logs::discovery::Request;
use mcplogs::scan::ScanOptions;

/// The usual path, shown under `mcplogs --help`.
const JOURNEY: &str = "\
EXAMPLES:
  # A server shows `! Connected · tools fetch failed` in Claude Code:
  mcplogs scan                 # what is wrong and what to do
  mcplogs fix                  # the legacy fix, where it works (asks first)
  # restart Claude Code or run /mcp in it, then check:
  mcplogs scan --since 10m
  mcplogs report -o issue.md   # redacted Markdown for a bug report

  # What does `claude mcp list` mean?
  claude mcp list | mcplogs explain

TERMS:
  revision   a dated version of the MCP protocol (2026-07-28 is the new one)
  era        the handshake Claude Code used: modern (revision 2026-07-28)
             or legacy (the classic initialize)
  tolerated  works only because Claude Code filled in missing fields

Exit codes: 0 nothing wrong (or done: `report -o FILE` wrote FILE),
  1 problems found, 2 usage or I/O error (also a --server or --match-project
  that matches nothing), 130 interrupted. `mcplogs docs usage`: the table.
Colour: only on a terminal, never with NO_COLOR, unless --color always|never.
More: `mcplogs docs TOPIC` (the guides), `mcplogs man --install`.";

#[derive(Debug, Parser)]
#[command(
    name = "mcplogs",
    version,
    about = "Diagnose Claude Code MCP server failures from the logs already on your disk",
    long_about = None,
    after_help = JOURNEY
)]
pub struct Cli {
    /// When to use colour: auto = only on a terminal and without NO_COLOR; always and never
    /// beat NO_COLOR.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,

    #[command(subcommand)]
    pub command: Command,
}

/// `probe --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProbeFormat {
    Text,
    Json,
    Junit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Find every MCP server's logs and give each a verdict, evidence and the fix
    #[command(after_help = SCAN_EXAMPLES)]
    Scan(ScanArgs),
    /// Explain pasted `claude mcp list` output or one error message (stdin or FILE)
    #[command(after_help = EXPLAIN_EXAMPLES)]
    Explain(ExplainArgs),
    /// Show every settings layer Claude Code reads and the effective MCP_PROTOCOL_NEGOTIATION
    #[command(after_help = SETTINGS_EXAMPLES)]
    Settings(SettingsArgs),
    /// Fix what a settings file can fix (legacy negotiation, a command's path, MCP_TIMEOUT, a disabled .mcp.json server) safely: diff, confirmation, backup, undo
    #[command(after_help = FIX_EXAMPLES)]
    Fix(FixArgs),
    /// A redacted Markdown report to paste into a bug issue (Claude Code's or a server's)
    #[command(after_help = REPORT_EXAMPLES)]
    Report(ReportArgs),
    /// Disk use of the MCP logs per project and per server, largest first
    #[command(after_help = DU_EXAMPLES)]
    Du(DuArgs),
    /// Delete old MCP and debug logs, keeping what explains each server's verdict
    Prune(PruneArgs),
    /// Replay Claude Code's handshake against configured servers and predict what it will do
    Probe(ProbeArgs),
    /// One line for Claude Code's status line: this session's MCP servers (JSON on stdin)
    #[command(after_help = STATUSLINE_EXAMPLES)]
    Statusline(StatuslineArgs),
    /// Claude Code hook: tell the model once when this session's MCP servers have no tools
    #[command(after_help = HOOK_EXAMPLES)]
    Hook(HookArgs),
    /// Install the status line or the hook in Claude Code's settings: diff, confirmation, backup, undo
    #[command(after_help = SETUP_EXAMPLES)]
    Setup(SetupArgs),
    /// Send every server's verdict to an OpenTelemetry collector (OTLP/HTTP) or a JSON Lines file, once
    #[command(after_help = EXPORT_EXAMPLES)]
    Export(ExportArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(CompletionsArgs),
    /// Print or install the man pages (roff) generated from these definitions
    #[command(after_help = MAN_EXAMPLES)]
    Man(ManArgs),
    /// Print a bundled guide (usage, settings, verdicts, json, probe, report, prune, claude-code, export, scanning, security, benchmarks) or a JSON schema (schema NAME)
    #[command(after_help = DOCS_EXAMPLES)]
    Docs(DocsArgs),
    /// What differs between Claude Code's builds, from which build, and what mcplogs predicts for one
    #[command(after_help = MODEL_EXAMPLES)]
    Model(ModelArgs),
}

const MODEL_EXAMPLES: &str = "\
EXAMPLES:
  mcplogs model                    # every behaviour that differs between builds
  mcplogs model 2.1.300            # and what the model predicts for 2.1.300
  mcplogs model --json 2.1.340     # as JSON (newer builds: extrapolated, with a note)";

#[derive(Debug, Args)]
pub struct ModelArgs {
    /// A Claude Code build (2.1.300): what the model predicts for it
    #[arg(value_name = "VERSION")]
    pub version: Option<String>,
    /// Print the JSON document (`mcplogs docs schema model`)
    #[arg(long)]
    pub json: bool,
}

const EXPORT_EXAMPLES: &str = "\
EXAMPLES:
  OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 mcplogs export
  mcplogs export --dry-run             # the records it would send, as JSON Lines
  mcplogs export --file ~/mcplogs-export.jsonl   # for a log shipper to tail
  mcplogs setup hook --export          # after every Claude Code session

Configured like Claude Code's own telemetry: OTEL_EXPORTER_OTLP_ENDPOINT,
OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf or
http/json), OTEL_EXPORTER_OTLP_TIMEOUT (ms, default 5000),
OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, all taken from one place:
the highest of managed settings, ~/.claude/settings.json (their env blocks)
and the environment that sets any of them. A project's .claude settings are
never read for export (a warning names them). Names, paths and error text are
sent only with
OTEL_LOG_TOOL_DETAILS=1; otherwise keyed hashes stand for them
(MCPLOGS_EXPORT_KEY: the fleet's key). Each record is sent once: what the
collector accepted is remembered in mcplogs' cache folder, and what it did
not goes out on the next run.

Exit codes: 0 sent (or nothing new), 2 not sent (the records go out on the
next run) or a usage error. Details: mcplogs docs export";

const STATUSLINE_EXAMPLES: &str = "\
EXAMPLES:
  mcplogs setup statusline     # install it (diff, confirmation, backup, --undo)
  echo '{\"session_id\":\"abc\",\"cwd\":\"/work/api\"}' | mcplogs statusline
  mcplogs statusline --prefix ' | ' < input.json     # after your own text

Claude Code runs the status line command with the session as JSON on stdin
and shows its first line. This prints `MCP ✓` when the session's servers
work, `MCP 2✓ 1…` while one is connecting, and names the failing ones with
what helps: `MCP 3✓ 1✗ roblox (tools fetch failed · mcplogs fix)`. Only
the newest log file of each server of this project is read. Bad or empty
input prints `MCP ?` and the reason on stderr, and exits 0.

In your own status line script, save the input and pass it on:
  input=$(cat); echo \"$(my-status <<<\"$input\") $(mcplogs statusline --color always <<<\"$input\")\"
or let mcplogs run it: mcplogs statusline --color always --wrap 'my-status'";

const HOOK_EXAMPLES: &str = "\
EXAMPLES:
  mcplogs setup hook           # install it as a UserPromptSubmit hook
  echo '{\"session_id\":\"abc\",\"cwd\":\"/work/api\",\"hook_event_name\":\"UserPromptSubmit\"}' | mcplogs hook

Silent (no output, exit 0) while every server of the session works or is
still connecting. The first time one has failed, prints the hook JSON that
Claude Code adds to the model's context (hookSpecificOutput.additionalContext):
which servers have no tools and why, what the user can run (`mcplogs fix`,
/mcp), and not to pretend those tools exist. Each server is told once per
session. Why UserPromptSubmit and not SessionStart: `mcplogs docs claude-code`.";

const SETUP_EXAMPLES: &str = "\
EXAMPLES:
  mcplogs setup statusline --dry-run   # the diff, writing nothing
  mcplogs setup statusline             # write it, after a yes
  mcplogs setup statusline --wrap      # keep your own status line, add MCP to it
  mcplogs setup hook --yes
  mcplogs setup hook --undo            # put back what was there

Both write ~/.claude/settings.json (or --settings PATH) through the same
writer as `mcplogs fix`: a backup, an atomic write and an undo record of
their own. A status line of your own is never replaced: without --wrap the
command shows how to add mcplogs to it. Nothing is installed while
disableAllHooks is set, or while a managed file would keep it from running.";

const SETUP_STATUSLINE_EXAMPLES: &str = "\
EXAMPLES:
  mcplogs setup statusline --dry-run   # the diff, writing nothing
  mcplogs setup statusline             # write it, after a yes
  mcplogs setup statusline --wrap      # keep your own status line, add MCP to it
  mcplogs setup statusline --undo      # put back what was there

Writes statusLine in ~/.claude/settings.json (or --settings PATH) through
the writer `mcplogs fix` uses: diff, confirmation, backup, undo. A status
line of your own is never replaced: without --wrap the command shows how to
add mcplogs to it.";

const SETUP_HOOK_EXAMPLES: &str = "\
EXAMPLES:
  mcplogs setup hook --dry-run         # the diff, writing nothing
  mcplogs setup hook --yes             # write it without asking
  mcplogs setup hook --undo            # put back what was there

Adds a UserPromptSubmit hook running `mcplogs hook` to ~/.claude/settings.json
(or --settings PATH) through the writer `mcplogs fix` uses. Nothing is
installed while disableAllHooks is set, or while a managed file would keep
it from running.";

const MAN_EXAMPLES: &str = "\
EXAMPLES:
  mcplogs man --install        # every page, where `man mcplogs` finds it
  mcplogs man scan | man -l -  # one subcommand's page
  mcplogs man > mcplogs.1

--install writes mcplogs.1 and mcplogs-SUBCOMMAND.1 into --dir DIR, by
default share/man/man1 beside the folder that holds this binary
(~/.cargo/share/man/man1 after `cargo install`), which man finds through
PATH on Linux and macOS.";

const DOCS_EXAMPLES: &str = "\
EXAMPLES:
  mcplogs docs                 # the list of guides
  mcplogs docs settings        # which file `mcplogs fix` writes, and why
  mcplogs docs verdicts | less
  mcplogs docs schema scan     # the JSON Schema of `mcplogs scan --json`";

const SCAN_EXAMPLES: &str = "\
EXAMPLES:
  mcplogs scan                   # this machine's Claude Code logs
  mcplogs scan --since 10m       # after a fix and a restart: did it work?
  mcplogs scan --server my-db -v # one server, with the records behind it
  mcplogs scan my-db             # the same, when no file is named my-db
  mcplogs scan --home ~/alice    # a home folder copied from elsewhere
  mcplogs scan ~/.claude/debug/abc.txt   # a debug log
  mcplogs scan --json | jq '.servers[] | select(.legacyFixApplies)'

VERDICTS:
  healthy, tolerated (works only because Claude Code filled in missing
  fields), tools-fetch-failed (connected, but no tools), version-unsupported,
  connection-failed, unknown (no decisive record). The era is the handshake
  Claude Code used: modern (revision 2026-07-28) or legacy.
  Next: `mcplogs fix` where the advice says so; `mcplogs report` to report.";

const EXPLAIN_EXAMPLES: &str = "\
EXAMPLES:
  claude mcp list | mcplogs explain
  mcplogs explain listing.txt
  mcplogs explain -m 'Connection failed: spawn npx ENOENT'
  mcplogs explain listing.txt --project ~/work/api   # the folder it ran in
  mcplogs explain     # then paste, and end with Ctrl-D";

const SETTINGS_EXAMPLES: &str = "\
EXAMPLES:
  mcplogs settings                      # for the project in this folder
  mcplogs settings --project ~/work/api
  mcplogs settings --json               # fields: mcplogs docs settings

Layers, highest first: managed settings, the project's
.claude/settings.local.json, its .claude/settings.json,
~/.claude/settings.json, then the environment.";

const FIX_EXAMPLES: &str = "\
EXAMPLES:
  mcplogs fix --dry-run              # the diff, and which file and why
  mcplogs fix                        # write it, after a yes (from any folder)
  mcplogs fix --project ~/work/api   # only that project's files
  mcplogs fix --undo                 # put back every file it wrote
  mcplogs fix api                    # only api
  mcplogs fix --except api           # every server but api (keeps it off)
  mcplogs fix api --command-path /opt/bin/api   # when PATH has several
  mcplogs fix --ca-file ~/corp-ca.pem   # an HTTPS server's CA, checked first

For each failing server, the fix goes where it wins in that server's project,
with the least intrusion: ~/.claude/settings.json when nothing above it sets the
variable there, else that project's .claude/settings.local.json; never a
managed file (then: exit 2). A command Claude Code cannot find gets its absolute
path in the entry that configures it (~/.claude.json or .mcp.json), a server slower
than MCP_TIMEOUT a longer MCP_TIMEOUT where it takes effect, an HTTPS server
whose certificate is not trusted NODE_EXTRA_CA_CERTS (a CA file a TLS handshake
with the server verified: --ca-file, else SSL_CERT_FILE or the system bundle),
a server the proxy refuses its host in NO_PROXY (merged, the proxy kept), a
.mcp.json server in disabledMcpjsonServers (where the approval dialog's Esc puts
it) moved to enabledMcpjsonServers (--except keeps it off); each change says
which server it is for and why. All files in one diff, one confirmation; what
only you can do (sign in, rename a server) is listed after the plan.
Afterwards restart Claude Code or run /mcp, then `mcplogs scan --since 10m`.";

const REPORT_EXAMPLES: &str = "\
EXAMPLES:
  mcplogs report -o issue.md         # redacted, under GitHub's size limit
  mcplogs report --server my-db
  mcplogs report --json              # fields: mcplogs docs report

Read the report before you post it.";

const DU_EXAMPLES: &str = "\
EXAMPLES:
  mcplogs du
  mcplogs du --home ~/alice --json";

const COMPLETIONS_EXAMPLES: &str = "\
EXAMPLES:
  mcplogs completions bash > ~/.local/share/bash-completion/completions/mcplogs
  mcplogs completions zsh > ~/.zfunc/_mcplogs
  mcplogs completions fish > ~/.config/fish/completions/mcplogs.fish";

#[derive(Debug, Args)]
pub struct StatuslineArgs {
    /// Text before the MCP part (only when there is one)
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub prefix: String,
    /// Text after the MCP part (only when there is one)
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub suffix: String,
    /// Run your own status line command with the same input, and print its first line
    /// followed by the MCP part
    #[arg(long, value_name = "COMMAND")]
    pub wrap: Option<String>,
    /// Read the logs of the Claude Code cache in home folder DIR (for tests)
    #[arg(long, value_name = "DIR", hide = true)]
    pub home: Option<PathBuf>,
    /// Read managed settings from DIR instead of this OS's folder (for tests)
    #[arg(long, value_name = "DIR", hide = true)]
    pub managed_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// Read the logs of the Claude Code cache in home folder DIR (for tests)
    #[arg(long, value_name = "DIR", hide = true)]
    pub home: Option<PathBuf>,
    /// Read managed settings from DIR instead of this OS's folder (for tests)
    #[arg(long, value_name = "DIR", hide = true)]
    pub managed_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SetupArgs {
    #[command(subcommand)]
    pub what: SetupWhat,
}

#[derive(Debug, Subcommand)]
pub enum SetupWhat {
    /// Add `mcplogs statusline` as Claude Code's statusLine command
    #[command(after_help = SETUP_STATUSLINE_EXAMPLES)]
    Statusline(SetupFlags),
    /// Add `mcplogs hook` as a UserPromptSubmit hook
    #[command(after_help = SETUP_HOOK_EXAMPLES)]
    Hook(SetupFlags),
}

#[derive(Debug, Args)]
pub struct SetupFlags {
    /// The settings file to change [default: $CLAUDE_CONFIG_DIR or ~/.claude, settings.json]
    #[arg(long, value_name = "PATH")]
    pub settings: Option<PathBuf>,
    /// Apply without asking (needed when standard input is not a terminal)
    #[arg(long, short)]
    pub yes: bool,
    /// Only print the diff; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Restore the state before mcplogs' last install of this into the file
    #[arg(long)]
    pub undo: bool,
    /// With --undo: take mcplogs' entry out even if the file changed since
    #[arg(long, requires = "undo")]
    pub force: bool,
    /// Status line: wrap your existing statusLine command instead of leaving it alone
    #[arg(long, conflicts_with = "undo")]
    pub wrap: bool,
    /// The mcplogs binary Claude Code runs [default: this one, when it is installed where it stays (not a cargo target/ build or a temporary folder)]
    #[arg(long, value_name = "PATH", conflicts_with = "undo")]
    pub binary: Option<PathBuf>,
    /// Hook: install `mcplogs export --detach` as a SessionEnd hook instead (every
    /// session's verdicts to the OpenTelemetry collector; `mcplogs docs export`)
    #[arg(long, conflicts_with = "wrap")]
    pub export: bool,
    /// The project whose settings layers count (disableAllHooks) [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Read managed settings from DIR instead of this OS's folder (for tests)
    #[arg(long, value_name = "DIR", hide = true)]
    pub managed_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// One subcommand's page (mcplogs-SUBCOMMAND.1) instead of the main one
    #[arg(value_name = "SUBCOMMAND", conflicts_with = "install")]
    pub page: Option<String>,
    /// Write every page, into share/man/man1 beside this binary's folder (or --dir)
    #[arg(long)]
    pub install: bool,
    /// With --install: the folder to write the pages into
    #[arg(long, value_name = "DIR", requires = "install")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DocsArgs {
    /// The guide to print (or `schema`); without one, the list
    #[arg(value_name = "TOPIC")]
    pub topic: Option<String>,
    /// With `schema`: the document whose JSON Schema to print (scan, report, ...)
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to write completions for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `--json`, shared by every command that has a JSON document. Each command words its
/// own help line (`mut_arg`), so the flag is declared once.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// One JSON document on stdout
    #[arg(long)]
    pub json: bool,
}

/// `--no-redact`, shared by every command that redacts. Worded per command, as above.
#[derive(Debug, Args)]
pub struct RedactArgs {
    /// Show secrets (tokens, keys, passwords) as they are
    #[arg(long)]
    pub no_redact: bool,
}

#[derive(Debug, Args)]
pub struct DuArgs {
    #[command(flatten)]
    pub discovery: DiscoveryArgs,

    #[command(flatten)]
    pub output: OutputArgs,

    /// Read managed settings from DIR instead of this OS's folder (for tests)
    #[arg(long, value_name = "DIR", hide = true)]
    pub managed_dir: Option<PathBuf>,
}

/// Where to look for logs and which servers to keep: shared by `scan`, `report`, `du`.
#[derive(Debug, Args)]
pub struct DiscoveryArgs {
    /// Cache roots, project folders, mcp-logs-* folders, log files or debug logs.
    /// Default: this OS's Claude Code cache folder.
    pub paths: Vec<PathBuf>,

    /// Treat DIR as a home folder (from any OS) and scan its Claude Code caches
    #[arg(long, value_name = "DIR")]
    pub home: Vec<PathBuf>,

    /// Only servers with this name (configured name or log folder name)
    #[arg(long, value_name = "NAME", add = clap_complete::engine::ArgValueCandidates::new(crate::complete::server_names))]
    pub server: Option<String>,

    /// Only projects whose path contains this text (formerly --project)
    // `--project` was this flag's name; it stays a hidden alias so scripts keep working,
    // while in `settings` and `fix` `--project DIR` names the project folder.
    #[arg(long = "match-project", alias = "project", value_name = "SUBSTRING")]
    pub match_project: Option<String>,

    /// Only sessions active since then: a duration back from now (10min, 36h, 7d, 2w) or a
    /// UTC date (2026-11-01, 2026-11-01T08:00)
    #[arg(long, value_name = "DURATION|DATE", value_parser = parse_since)]
    pub since: Option<mcplogs::time::EpochSeconds>,
}

fn parse_since(arg: &str) -> Result<mcplogs::time::EpochSeconds, mcplogs::time::SinceError> {
    mcplogs::time::parse_since(arg, mcplogs::time::now())
}

impl DiscoveryArgs {
    /// The scan these flags ask for.
    pub fn scan_options(self) -> ScanOptions {
        ScanOptions {
            request: Request {
                homes: self.home,
                paths: self.paths,
            },
            server: self.server,
            project: self.match_project,
            since: self.since,
            ..ScanOptions::default()
        }
    }
}

/// The positional words of `scan`, `report` and `export`: paths, or one server's name.
const PATHS_OR_NAME: &str = "Cache roots, project folders, mcp-logs-* folders, log files or debug logs; a word that is none of them but a server's name stands for --server NAME. Default: this OS's Claude Code cache folder";

#[derive(Debug, Args)]
#[command(mut_arg("paths", |a| a.help(PATHS_OR_NAME)))]
pub struct ExportArgs {
    #[command(flatten)]
    pub discovery: DiscoveryArgs,

    #[command(flatten)]
    pub cache: CacheArgs,

    /// Append the records as JSON Lines to FILE (for a log shipper to tail) instead of
    /// sending them; FILE is renamed to FILE.1 before it would pass --max-file-mib
    #[arg(long, short = 'o', visible_alias = "output", value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// The size cap of --file, in MiB
    #[arg(long, value_name = "MIB", default_value_t = 10, requires = "file",
          value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub max_file_mib: u64,

    /// Print the records that would be sent as JSON Lines on stdout; send nothing,
    /// remember nothing
    #[arg(long, conflicts_with = "file")]
    pub dry_run: bool,

    /// Run in the background and return at once (for a hook: Claude Code ends a
    /// SessionEnd hook after about a second and a half); the run's line goes to
    /// `last-run.log` in mcplogs' cache folder
    #[arg(long, conflicts_with = "dry_run")]
    pub detach: bool,

    /// Read managed settings from DIR instead of this OS's folder (for tests)
    #[arg(long, value_name = "DIR", hide = true)]
    pub managed_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(
    mut_arg("json", |a| a.help("One JSON document on stdout (fields: `mcplogs docs json`)")),
    mut_arg("no_redact", |a| a.help("Show secrets in log messages (tokens, keys, passwords) as they are")),
    mut_arg("paths", |a| a.help(PATHS_OR_NAME)),
)]
pub struct ScanArgs {
    #[command(flatten)]
    pub discovery: DiscoveryArgs,

    #[command(flatten)]
    pub output: OutputArgs,

    /// Show the decoded evidence records with file:line and timestamps
    #[arg(long, short)]
    pub verbose: bool,

    /// Read every session file. By default each server's files are read newest first,
    /// stopping once its verdict is decided (plus two older files of history); the
    /// verdicts are the same, only the counts and history cover more.
    #[arg(long)]
    pub all: bool,

    #[command(flatten)]
    pub cache: CacheArgs,

    #[command(flatten)]
    pub redact: RedactArgs,

    /// Read managed settings from DIR instead of this OS's folder (for tests)
    #[arg(long, value_name = "DIR", hide = true)]
    pub managed_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(
    mut_arg("no_redact", |a| a.help("Keep home folders, user names and secrets as they are (says so on stderr)")),
    mut_arg("json", |a| a.help("The same content as one JSON document (fields: `mcplogs docs report`)")),
    mut_arg("paths", |a| a.help(PATHS_OR_NAME)),
)]
pub struct ReportArgs {
    #[command(flatten)]
    pub discovery: DiscoveryArgs,

    /// Write the report to FILE instead of stdout
    #[arg(long = "output", short, visible_alias = "file", value_name = "FILE")]
    pub output_file: Option<PathBuf>,

    #[command(flatten)]
    pub cache: CacheArgs,

    #[command(flatten)]
    pub redact: RedactArgs,

    #[command(flatten)]
    pub output: OutputArgs,

    /// Also probe this project's configured servers and add the summary (`mcplogs docs probe`)
    #[arg(long)]
    pub probe: bool,
    /// Keep private hostnames and RFC 1918 addresses (masked by default)
    #[arg(long)]
    pub keep_hosts: bool,
    /// Write a report even with no logs, no failing server, or only failures of your own
    /// set-up (which get the fix instead)
    #[arg(long)]
    pub force: bool,

    /// Read managed settings from DIR instead of this OS's folder (for tests)
    #[arg(long, value_name = "DIR", hide = true)]
    pub managed_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(mut_arg("no_redact", |a| a.help("Show secrets in the pasted text (tokens, keys, passwords) as they are")))]
pub struct ExplainArgs {
    /// A file holding the pasted text; stdin when absent or `-`. An argument that names
    /// no file and reads like a message is explained as the message
    pub file: Option<PathBuf>,

    /// The pasted text itself (quote it), instead of a file or stdin
    #[arg(long, short, value_name = "TEXT", conflicts_with = "file")]
    pub message: Option<String>,

    /// The folder `claude mcp list` ran in: a failing server's log there shows its last
    /// lines on stderr and its configured command [default: the current directory;
    /// a name its project does not know: the one project that logs it]
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,

    /// Read the logs and configuration of DIR as a home folder (from any OS) instead of
    /// this machine's
    #[arg(long, value_name = "DIR", conflicts_with = "no_logs")]
    pub home: Option<PathBuf>,

    /// Explain the pasted text alone, without reading this machine's logs
    #[arg(long)]
    pub no_logs: bool,

    #[command(flatten)]
    pub output: OutputArgs,

    #[command(flatten)]
    pub redact: RedactArgs,
    /// Read managed settings from DIR instead of this OS's folder (for tests)
    #[arg(long, value_name = "DIR", hide = true)]
    pub managed_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(mut_arg("json", |a| a.help("One JSON document on stdout (fields: `mcplogs docs settings`)")))]
pub struct SettingsArgs {
    /// The project whose .claude/ settings count [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,

    #[command(flatten)]
    pub output: OutputArgs,

    /// Read managed settings from DIR instead of this OS's folder (for tests)
    #[arg(long, value_name = "DIR", hide = true)]
    pub managed_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct FixArgs {
    /// Fix this server only (its configured name)
    #[arg(value_name = "SERVER", conflicts_with = "undo")]
    pub server: Option<String>,

    /// Leave this server out of the plan (repeatable): no change for it, a disabled .mcp.json server stays off
    #[arg(long, value_name = "SERVER", conflicts_with = "undo")]
    pub except: Vec<String>,

    /// With SERVER: the absolute path of its command, when Claude Code cannot find it and your PATH holds none or several
    #[arg(
        long,
        value_name = "PATH",
        requires = "server",
        conflicts_with = "undo"
    )]
    pub command_path: Option<PathBuf>,

    /// A PEM file of the certificate authority that signed an HTTPS server's certificate (a TLS-inspecting proxy's CA): checked against each server with an untrusted certificate, then written as NODE_EXTRA_CA_CERTS
    #[arg(long, value_name = "PATH", conflicts_with = "undo")]
    pub ca_file: Option<PathBuf>,

    /// The Claude Code build to offer fixes for [default: `claude --version`] (for tests)
    #[arg(long, value_name = "VERSION", hide = true)]
    pub claude_version: Option<String>,

    /// Write only this settings file: the legacy setting, and the changes that go in it (each other change is said, not written)
    #[arg(long, value_name = "PATH")]
    pub settings: Option<PathBuf>,

    /// Apply without asking (needed when standard input is not a terminal)
    #[arg(long, short)]
    pub yes: bool,

    /// Only print the diff; write nothing
    #[arg(long)]
    pub dry_run: bool,

    /// Convert a file with comments or trailing commas to strict JSON (the diff shows what goes)
    #[arg(long, conflicts_with = "undo")]
    pub rewrite_strict: bool,

    /// Apply even when no scanned server needs the fix; with --undo, put the key back even if it was changed since
    #[arg(long)]
    pub force: bool,

    /// Restore the state before mcplogs' last fix of the file
    #[arg(long)]
    pub undo: bool,

    /// Write only this project's files: the legacy setting in the file that wins there, and the changes that go in its files (each other change is said, not written)
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,

    /// Fix the home folder DIR (from any OS): its logs decide whether any server needs the fix, and its .claude/settings.json is the user settings file [default: this machine]
    #[arg(long, value_name = "DIR")]
    pub home: Vec<PathBuf>,

    /// Read managed settings from DIR instead of this OS's folder (for tests)
    #[arg(long, value_name = "DIR", hide = true)]
    pub managed_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(
    mut_arg("json", |a| a.help("One JSON document on stdout (the plan, and what was deleted)")),
    after_help = prune_after_help()
)]
pub struct PruneArgs {
    /// Cache folders (claude-cli-nodejs, or a folder inside one) or debug folders
    /// (~/.claude/debug). Default: this OS's cache folder and ~/.claude/debug.
    pub paths: Vec<PathBuf>,

    /// Treat DIR as a home folder (from any OS): prune its caches and .claude/debug
    #[arg(long, value_name = "DIR")]
    pub home: Vec<PathBuf>,

    /// Only files last modified longer ago than this (90m, 10min, 36h, 7d, 2w)
    #[arg(long, value_name = "DURATION", value_parser = parse_older_than)]
    pub older_than: Option<std::time::Duration>,

    /// Only print the plan; delete nothing
    #[arg(long)]
    pub dry_run: bool,

    /// Delete without asking (needed when standard input is not a terminal)
    #[arg(long, short)]
    pub yes: bool,

    #[command(flatten)]
    pub cache: CacheArgs,

    #[command(flatten)]
    pub output: OutputArgs,

    /// Read managed settings from DIR instead of this OS's folder (for tests)
    #[arg(long, value_name = "DIR", hide = true)]
    pub managed_dir: Option<PathBuf>,
}

/// `prune --help`'s examples and what it never deletes (the in-use age is the library's).
fn prune_after_help() -> String {
    format!(
        "EXAMPLES:
  mcplogs prune --dry-run         # what would go, deleting nothing
  mcplogs prune --older-than 7d   # keep the last week
  mcplogs prune --home /mnt/old-laptop/home/ana --yes   # a copied home, no question

Never deleted: a file modified in the last {} minutes (Claude Code may be
writing it, whatever --older-than says), the file holding the session that
decides each server's verdict and every newer one (so no verdict changes), the
newest debug log, and anything not named like a Claude Code log.
What mcplogs' own cache keeps about the logs deleted (status line memos, hook
told-lists, index entries) goes with them, as does what describes vanished logs.
Details: `mcplogs docs prune`.",
        mcplogs::disk::prune::IN_USE_SECS / 60
    )
}

/// The summary index of unchanged log files (docs/scanning.md): `scan`, `report`, `prune`.
#[derive(Debug, Args)]
pub struct CacheArgs {
    /// Read every log file looked at, ignoring the index of unchanged files' summaries
    /// (kept in mcplogs' cache folder or $MCPLOGS_CACHE_DIR)
    #[arg(long)]
    pub no_cache: bool,
}

impl CacheArgs {
    /// The cache folder to use, or `None` with `--no-cache`.
    pub fn index_dir(&self) -> Option<PathBuf> {
        if self.no_cache {
            None
        } else {
            mcplogs::scan::cache::default_dir()
        }
    }
}

/// `--older-than`: a duration back from now, in the one grammar; a unit is needed.
fn parse_older_than(arg: &str) -> Result<std::time::Duration, mcplogs::time::DurationError> {
    mcplogs::time::parse_duration(arg, mcplogs::time::BareNumber::Refused)
}

#[derive(Debug, Args)]
#[command(after_help = "EXAMPLES:
  mcplogs probe                   # every server configured for this project
  mcplogs probe github --claude-version 2.1.288 --json
  mcplogs probe --transcript probe.jsonl sso-gateway   # every message, for a bug report
  mcplogs probe --command \"node server.js\" --contract  # server authors: check a build
  mcplogs probe --command \"node server.js\" --contract --format junit > probe.xml
  mcplogs probe --command node -- server.js --port 3   # its arguments after --
  mcplogs probe --url https://example.com/mcp --header \"Authorization: Bearer $TOKEN\"

Names and options go in any order; with --command, the server's own arguments go
after `--` or inside the command's quotes.

Piped, nothing is cut; on a terminal long lines wrap, and a live line on
stderr shows the step, the time waited and the budget waited against.

Exit codes: 0 every server works, 1 a server will fail (or a --contract check
failed; a check that could not run is n/a and does not count), 2 usage error,
unknown server name, --contract with no server to check, or an unreadable
configuration file and no server.")]
pub struct ProbeArgs {
    /// Configured server names [default: every server of the project]
    #[arg(value_name = "NAME", add = clap_complete::engine::ArgValueCandidates::new(crate::complete::server_names))]
    pub names: Vec<String>,

    /// With --command: the server's own arguments, after `--` (they may start with `-`)
    #[arg(value_name = "ARGS", last = true, requires = "command")]
    pub command_args: Vec<String>,

    /// The project whose servers and settings count [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,

    /// Treat DIR as the home folder (from any OS): its Claude Code configuration and user
    /// settings say which servers the project has and how they start (as `scan --home`
    /// reads them) [default: this machine's]
    #[arg(long, value_name = "DIR")]
    pub home: Vec<PathBuf>,

    /// Predict for this Claude Code version [default: `claude --version`, else the
    /// newest version mcplogs knows]
    #[arg(long, value_name = "V")]
    pub claude_version: Option<String>,

    /// Time budget per connection, handshake and every list (500ms, 30s, 2m) [default:
    /// none: each request waits as long as Claude Code would, its MCP_TIMEOUT from the
    /// environment and settings, 30 s when unset]
    #[arg(long, value_name = "DURATION", value_parser = parse_probe_timeout)]
    pub timeout: Option<Duration>,

    /// Stop following nextCursor after this many pages (every Claude Code build up to
    /// 2.1.332 stops at 20: more pages are reported as truncated)
    #[arg(long, value_name = "N", default_value_t = 250)]
    pub max_pages: usize,

    /// One JSON document on stdout (fields: `mcplogs docs probe`); the same as --format json
    #[arg(long, conflicts_with = "format")]
    pub json: bool,

    /// The output: text, json (the --json document) or junit (with --contract: JUnit
    /// XML, one test case per check and Claude Code build, n/a as skipped)
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<ProbeFormat>,

    /// Write every message of every connection to FILE as JSON lines (redacted; a
    /// regular file only, created 0600; `-`: stdout, before the report)
    #[arg(long, value_name = "FILE")]
    pub transcript: Option<PathBuf>,

    /// Probe this stdio command instead of a configured server (server-author mode)
    #[arg(long, value_name = "CMD", conflicts_with = "url")]
    pub command: Option<String>,

    /// Probe this Streamable HTTP URL instead of a configured server
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,

    /// With --url: send this header (repeatable), e.g. "Authorization: Bearer ..."
    #[arg(long = "header", value_name = "K:V", requires = "url")]
    pub headers: Vec<String>,

    /// With --url: the URL speaks the legacy HTTP+SSE transport
    #[arg(long, requires = "url")]
    pub sse: bool,

    /// Run the server-author checks (both handshakes, pagination, every tool, unique
    /// names, listChanged, budget); exit 0 all pass, 1 one fails, 2 usage error
    #[arg(long)]
    pub contract: bool,

    /// Show configured secrets (env and header values) as they are
    #[arg(long)]
    pub no_redact: bool,

    /// Read managed settings from DIR instead of this OS's folder (for tests)
    #[arg(long, value_name = "DIR", hide = true)]
    pub managed_dir: Option<PathBuf>,
}

/// Why `--timeout` was refused.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum TimeoutArgError {
    #[error(transparent)]
    Duration(#[from] mcplogs::time::DurationError),
    #[error("'{0}': must be between 1ms and 60m")]
    OutOfRange(String),
}

/// `--timeout`: `500ms`, `30s`, `2m` (the one grammar), or a bare number of seconds;
/// between 1 ms and 60 min.
fn parse_probe_timeout(s: &str) -> Result<Duration, TimeoutArgError> {
    let d = mcplogs::time::parse_duration(s, mcplogs::time::BareNumber::Seconds)?;
    if !(Duration::from_millis(1)..=Duration::from_secs(3600)).contains(&d) {
        return Err(TimeoutArgError::OutOfRange(s.trim().to_string()));
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::{parse_older_than, parse_probe_timeout};
    use std::time::Duration;

    #[test]
    fn probe_timeouts_are_durations_between_a_millisecond_and_an_hour() {
        assert_eq!(parse_probe_timeout("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_probe_timeout("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_probe_timeout("7"), Ok(Duration::from_secs(7)));
        assert!(parse_probe_timeout("0s").is_err());
        assert!(parse_probe_timeout("3h").is_err());
        assert_eq!(
            parse_probe_timeout("0.5ms").unwrap_err().to_string(),
            "'0.5ms': must be between 1ms and 60m"
        );
    }

    #[test]
    fn older_than_needs_a_unit_and_refuses_dates() {
        assert_eq!(parse_older_than("7d"), Ok(Duration::from_secs(7 * 86_400)));
        assert!(parse_older_than("7").is_err());
        assert!(parse_older_than("2026-11-01").is_err());
    }
}
