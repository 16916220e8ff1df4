//! Command-line flags, kept apart from the logic they drive.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "mcplogs",
    version,
    about = "Diagnose Claude Code MCP server failures from the logs already on your disk",
    long_about = None
)]
pub struct Cli {
    /// When to use colour: auto = only on a terminal. NO_COLOR always disables it.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,

    #[command(subcommand)]
    pub command: Command,
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
    Scan(ScanArgs),
    /// Explain pasted `claude mcp list` output or one error message (stdin or FILE)
    Explain(ExplainArgs),
}

#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Cache roots, project folders, mcp-logs-* folders, log files or debug logs.
    /// Default: this OS's Claude Code cache folder.
    pub paths: Vec<PathBuf>,

    /// Treat DIR as a home folder (from any OS) and scan its Claude Code caches
    #[arg(long, value_name = "DIR")]
    pub home: Vec<PathBuf>,

    /// Only servers with this name (configured name or log folder name)
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,

    /// Only projects whose path contains this text
    #[arg(long, value_name = "SUBSTRING")]
    pub project: Option<String>,

    /// One JSON document on stdout (the contract is in the README)
    #[arg(long)]
    pub json: bool,

    /// Show the decoded evidence records with file:line and timestamps
    #[arg(long, short)]
    pub verbose: bool,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// A file holding the pasted text; stdin when absent or `-`
    pub file: Option<PathBuf>,

    /// One JSON document on stdout
    #[arg(long)]
    pub json: bool,
}
