//! Which MCP servers Claude Code would start for a project, resolved the way it does:
//! user scope (`mcpServers` at the top of `~/.claude.json`), local scope
//! (`projects["<abs path>"].mcpServers` there) and project scope (`<project>/.mcp.json`),
//! local beating project beating user on a name clash, with `${VAR}` and
//! `${VAR:-default}` expanded in command, args, env, url and headers.
//!
//! [`resolve_states`] adds what Claude Code does with each of them in the project (starts
//! it, asks first, disabled, denied by managed policy, skipped as invalid) and the file
//! and key that decide it, from every settings layer and the managed files: the one
//! resolution `scan`, `report`, `probe` and `settings` share (observed facts in
//! docs/claude-code.md, "Configured servers and their states").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::claude_code::layer::LayerKind;
use crate::safe_read::{Follow, ReadError, read_regular};
use serde_json::{Map, Value};

/// Where a server's configuration came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Local,
    Project,
    User,
    /// `managed-mcp.json` in the managed settings folder.
    Managed,
    /// `--command` / `--url` on the command line (server-author mode).
    CommandLine,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Local => "local",
            Scope::Project => "project",
            Scope::User => "user",
            Scope::Managed => "managed",
            Scope::CommandLine => "command-line",
        }
    }
}

/// The transport Claude Code uses for a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    Stdio,
    /// Streamable HTTP (`"type": "http"`).
    Http,
    /// The legacy HTTP+SSE transport (`"type": "sse"`).
    Sse,
}

impl TransportKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Stdio => "stdio",
            TransportKind::Http => "http",
            TransportKind::Sse => "sse",
        }
    }
}

/// One server, ready to be started: every `${VAR}` already expanded.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    pub name: String,
    pub scope: Scope,
    /// The file the entry was read from (none for the command line).
    pub source: Option<PathBuf>,
    pub transport: TransportKind,
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub url: String,
    pub headers: BTreeMap<String, String>,
    /// Project servers need approval before Claude Code starts them; `None` when the
    /// question does not arise (user and local scope).
    pub approved: Option<bool>,
    /// Problems found while resolving (unset variables, an unknown type...).
    pub warnings: Vec<String>,
    /// What Claude Code does with it in the project: [`resolve`] gives only what the
    /// entry itself says (starts, or skipped as invalid); [`resolve_states`] the rest.
    pub state: ServerState,
    /// The files and keys that decide `state` (empty for a server that starts unasked).
    pub decided_by: Vec<Decider>,
    /// The entry's `type` when it is none mcplogs can probe (`ws`, `sdk`, an unknown
    /// one: only stdio, http and sse are): `transport` then means nothing.
    pub unprobed_type: Option<String>,
}

impl ServerConfig {
    /// Every value that must never be shown: env values and header values.
    pub fn secret_values(&self) -> Vec<(&str, &str)> {
        self.env
            .iter()
            .chain(self.headers.iter())
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }

    /// A server from `--command "node server.js" [-- ARGS...]`: the command line is split on
    /// whitespace (quotes group words), as a shell would for a simple command.
    pub fn from_command(
        command: &str,
        extra_args: &[String],
    ) -> Result<ServerConfig, CommandLineError> {
        let mut words = split_words(command)?;
        if words.is_empty() {
            return Err(CommandLineError::EmptyCommand);
        }
        let program = words.remove(0);
        words.extend(extra_args.iter().cloned());
        Ok(ServerConfig {
            name: Path::new(&program)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| program.clone()),
            scope: Scope::CommandLine,
            source: None,
            transport: TransportKind::Stdio,
            command: program,
            args: words,
            env: BTreeMap::new(),
            url: String::new(),
            headers: BTreeMap::new(),
            approved: None,
            warnings: Vec::new(),
            state: ServerState::Starts,
            decided_by: Vec::new(),
            unprobed_type: None,
        })
    }

    /// A server from `--url URL [--header K:V]... [--sse]`.
    pub fn from_url(
        url: &str,
        headers: &[String],
        transport: TransportKind,
    ) -> Result<ServerConfig, CommandLineError> {
        let lower = url.trim().to_ascii_lowercase();
        if !(lower.starts_with("http://") || lower.starts_with("https://")) {
            return Err(CommandLineError::NotHttpUrl(match url.split_once("://") {
                Some((scheme, _))
                    if !scheme.is_empty()
                        && scheme.len() <= 20
                        && scheme
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c)) =>
                {
                    format!("a {scheme}: URL")
                }
                Some(_) => "a URL of another scheme".to_string(),
                None => "no scheme".to_string(),
            }));
        }
        let mut map = BTreeMap::new();
        for h in headers {
            let (k, v) = h
                .split_once(':')
                .ok_or_else(|| CommandLineError::HeaderWithoutColon(h.clone()))?;
            let k = k.trim();
            if k.is_empty() {
                return Err(CommandLineError::EmptyHeaderName(h.clone()));
            }
            map.insert(k.to_string(), v.trim().to_string());
        }
        Ok(ServerConfig {
            name: name_of_url(url),
            scope: Scope::CommandLine,
            source: None,
            transport,
            command: String::new(),
            args: Vec::new(),
            env: BTreeMap::new(),
            url: url.to_string(),
            headers: map,
            approved: None,
            warnings: Vec::new(),
            state: ServerState::Starts,
            decided_by: Vec::new(),
            unprobed_type: None,
        })
    }
}

/// The name of a server given by its URL alone: its host (and port) and path, without
/// the scheme, the user information, the query or the fragment (any of which may hold a
/// credential), and without a trailing `/`; `server` when nothing is left.
fn name_of_url(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let name = format!("{host}{}", path.trim_end_matches('/'));
    if name.trim().is_empty() {
        "server".into()
    } else {
        name
    }
}

/// A server given on the command line (`--command`, `--url`, `--header`) that cannot
/// be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandLineError {
    #[error("the command is empty")]
    EmptyCommand,
    #[error("unbalanced quote in {0:?}")]
    UnbalancedQuote(String),
    #[error("--header {0:?}: expected NAME:VALUE")]
    HeaderWithoutColon(String),
    #[error("--header {0:?}: empty header name")]
    EmptyHeaderName(String),
    /// A `--url` whose scheme is not http or https (only the scheme is shown: the rest
    /// may hold a credential).
    #[error(
        "expected an http:// or https:// URL, got {0}: Claude Code reaches remote servers over HTTP(S) only"
    )]
    NotHttpUrl(String),
}

/// Splits a command line into words: whitespace separates, single and double quotes
/// group, a backslash escapes the next character outside single quotes.
pub fn split_words(s: &str) -> Result<Vec<String>, CommandLineError> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => cur.push(c),
            (_, '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                    in_word = true;
                }
            }
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err(CommandLineError::UnbalancedQuote(s.to_string()));
    }
    if in_word {
        out.push(cur);
    }
    Ok(out)
}

/// A configuration file that could not be used, with what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{}: {error}", path.display())]
pub struct ConfigProblem {
    pub path: PathBuf,
    #[source]
    pub error: ConfigFileError,
}

/// Why a configuration file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigFileError {
    /// Not a regular file, too large, or unreadable.
    #[error("{0}")]
    Read(#[source] ReadError),
    /// Read, but not JSON (the message says where, for a one-line warning).
    #[error("not valid JSON ({0})")]
    Json(#[source] serde_json::Error),
}

/// Every server configured for a project, in Claude Code's precedence.
#[derive(Debug, Default)]
pub struct Resolved {
    pub servers: Vec<ServerConfig>,
    /// Files that exist but could not be read or parsed (the rest still counts).
    pub problems: Vec<ConfigProblem>,
    /// Files that were looked at.
    pub searched: Vec<PathBuf>,
    /// Settings files that exist but could not be read (a FIFO, a folder, no
    /// permission): their approval lists are not known; said once, never a row.
    pub unread_settings: Vec<ConfigProblem>,
    /// Settings files that Claude Code ignores as a whole (not strict JSON): none of
    /// their lists is in effect.
    pub ignored: Vec<PathBuf>,
}

/// Largest configuration file read (a `~/.claude.json` holds history and can grow).
const MAX_CONFIG_BYTES: u64 = 64 * 1024 * 1024;

fn read_json(path: &Path) -> Result<Option<Value>, ConfigFileError> {
    // Regular files only, bounded, never a blocking open of a FIFO (safe_read).
    let Some(file) =
        read_regular(path, MAX_CONFIG_BYTES, Follow::Links).map_err(ConfigFileError::Read)?
    else {
        return Ok(None);
    };
    parse_json(&file.bytes)
}

/// The configuration file at `path` as [`read_config_file`] reads it, telling an absent
/// file (`None`, and nothing at all under a file's path) from one that is there but
/// refused, unreadable, empty or not JSON (`Some(None)`): for a caller that looks at the
/// folder only when the file is not there (every project `~/.claude.json` lists).
pub fn read_config_file_there(path: &Path) -> Option<Option<Value>> {
    match read_regular(path, MAX_CONFIG_BYTES, Follow::Links) {
        Ok(None) => None,
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotADirectory => None,
        Ok(Some(file)) => Some(parse_json(&file.bytes).ok().flatten()),
        Err(_) => Some(None),
    }
}

fn parse_json(bytes: &[u8]) -> Result<Option<Value>, ConfigFileError> {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_start_matches('\u{feff}');
    if text.trim().is_empty() {
        return Ok(None);
    }
    serde_json::from_str(text)
        .map(Some)
        .map_err(ConfigFileError::Json)
}

/// `~/.claude.json` (the global configuration) read once, for resolving any number of
/// projects against it: it holds every project's history and can be megabytes, and a
/// scan resolves each of its projects (it was read and parsed again for each).
#[derive(Debug, Clone)]
pub struct GlobalConfig {
    path: PathBuf,
    doc: Option<std::sync::Arc<Value>>,
    /// Why it could not be read or parsed, in words ([`Self::problem`]); a resolution
    /// that needs the error itself reads it again (rare, and the error is not kept).
    problem: Option<String>,
}

impl GlobalConfig {
    pub fn read(path: &Path) -> GlobalConfig {
        let (doc, problem) = match read_json(path) {
            Ok(doc) => (doc.map(std::sync::Arc::new), None),
            Err(e) => (None, Some(e.to_string())),
        };
        GlobalConfig {
            path: path.to_path_buf(),
            doc,
            problem,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn doc(&self) -> Result<Option<std::sync::Arc<Value>>, ConfigFileError> {
        if self.problem.is_some() {
            return read_json(&self.path).map(|d| d.map(std::sync::Arc::new));
        }
        Ok(self.doc.clone())
    }
}

/// Resolves every server for `project` (an absolute path).
pub fn resolve(
    global_config: Option<&Path>,
    project: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Resolved {
    resolve_in(global_config.map(GlobalConfig::read).as_ref(), project, env)
}

/// [`resolve`] against a global configuration read once for many projects.
pub fn resolve_in(
    global: Option<&GlobalConfig>,
    project: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Resolved {
    let global_config = global.map(GlobalConfig::path);
    let mut r = Resolved::default();
    let mut by_name: Vec<ServerConfig> = Vec::new();
    let add = |cfg: ServerConfig, list: &mut Vec<ServerConfig>| {
        if !list.iter().any(|s| s.name == cfg.name) {
            list.push(cfg);
        }
    };

    let mut approval = Approval::default();
    let mut local: Option<(PathBuf, Map<String, Value>)> = None;
    let mut user: Option<(PathBuf, Map<String, Value>)> = None;
    if let Some(g) = global {
        let path = g.path();
        r.searched.push(path.to_path_buf());
        match g.doc() {
            Ok(Some(doc)) => {
                if let Some(m) = doc.get("mcpServers").and_then(Value::as_object) {
                    user = Some((path.to_path_buf(), m.clone()));
                }
                if let Some(p) = project_entry(&doc, project) {
                    if let Some(m) = p.get("mcpServers").and_then(Value::as_object) {
                        local = Some((path.to_path_buf(), m.clone()));
                    }
                    approval.read(p);
                }
            }
            Ok(None) => {}
            Err(error) => r.problems.push(ConfigProblem {
                path: path.to_path_buf(),
                error,
            }),
        }
    }
    let mut project_servers: Option<(PathBuf, Map<String, Value>)> = None;
    let mcp_json = super::paths::project_mcp_json(project);
    r.searched.push(mcp_json.clone());
    match read_json(&mcp_json) {
        Ok(Some(doc)) => {
            if let Some(m) = doc.get("mcpServers").and_then(Value::as_object) {
                project_servers = Some((mcp_json.clone(), m.clone()));
            }
        }
        Ok(None) => {}
        Err(error) => r.problems.push(ConfigProblem {
            path: mcp_json.clone(),
            error,
        }),
    }
    for settings in [
        super::paths::project_local_settings(project),
        super::paths::project_settings(project),
    ] {
        if let Ok(Some(doc)) = read_json(&settings) {
            approval.read(&doc);
        }
    }
    if let Some(home_settings) = global_config
        .and_then(Path::parent)
        .map(|d| d.join(".claude").join("settings.json"))
        && let Ok(Some(doc)) = read_json(&home_settings)
    {
        approval.read(&doc);
    }

    for (scope, entry) in [
        (Scope::Local, local),
        (Scope::Project, project_servers),
        (Scope::User, user),
    ] {
        let Some((path, servers)) = entry else {
            continue;
        };
        for (name, value) in servers {
            let mut cfg = server_from_json(&name, &value, scope, &path, env);
            if scope == Scope::Project {
                cfg.approved = Some(approval.approves(&name));
            }
            add(cfg, &mut by_name);
        }
    }
    r.servers = by_name;
    r
}

/// A value a configuration file gives one of its MCP servers that may be a secret:
/// what `crate::scan::secrets` hands the redactor.
#[derive(Clone, PartialEq, Eq)]
pub enum ConfiguredValue {
    /// An `env` variable or a header: its name and its value (`${VAR}` expanded).
    Keyed(String, String),
    /// A server's `url` (`${VAR}` expanded): its credentials and query may be secrets.
    Url(String),
    /// A stdio server's `args` (`${VAR}` expanded), in order: the value after a
    /// secret-looking flag (`--api-token T`, `--password=P`) and the credentials of a
    /// URL among them may be secrets.
    Args(Vec<String>),
}

/// Every `env` value, header value, `url` and `args` of every MCP server a configuration
/// document lists: its top-level `mcpServers` (`~/.claude.json`'s user scope, a
/// `.mcp.json`, a `managed-mcp.json`) and each `projects.*.mcpServers` (local scope,
/// every project's), `${VAR}` expanded through `env` as Claude Code expands them.
pub fn configured_values(
    doc: &Value,
    env: &dyn Fn(&str) -> Option<String>,
    out: &mut dyn FnMut(ConfiguredValue),
) {
    let mut of_servers = |servers: Option<&Value>| {
        let Some(servers) = servers.and_then(Value::as_object) else {
            return;
        };
        for entry in servers.values().filter_map(Value::as_object) {
            let text = |v: &Value| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            for key in ["env", "headers"] {
                for (k, v) in entry
                    .get(key)
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                {
                    let (expanded, _) = expand_vars(&text(v), env);
                    out(ConfiguredValue::Keyed(k.clone(), expanded));
                }
            }
            if let Some(url) = entry.get("url").and_then(Value::as_str) {
                out(ConfiguredValue::Url(expand_vars(url, env).0));
            }
            if let Some(args) = entry.get("args").and_then(Value::as_array) {
                let args: Vec<String> = args
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|a| expand_vars(a, env).0)
                    .collect();
                if !args.is_empty() {
                    out(ConfiguredValue::Args(args));
                }
            }
        }
    };
    of_servers(doc.get("mcpServers"));
    if let Some(projects) = doc.get("projects").and_then(Value::as_object) {
        for p in projects.values() {
            of_servers(p.get("mcpServers"));
        }
    }
}

/// A configuration file (`.mcp.json`, `managed-mcp.json`) read and parsed as every
/// other is here (bounded, regular files only); `None` when absent, unreadable or not
/// JSON.
pub fn read_config_file(path: &Path) -> Option<Value> {
    read_json(path).ok().flatten()
}

impl GlobalConfig {
    /// The parsed document, when it could be read.
    pub fn document(&self) -> Option<std::sync::Arc<Value>> {
        self.doc.clone()
    }

    /// Why the file, there, could not be read or parsed (a write cut short, a trailing
    /// comma, too large), as it was read; `None` when it was read or is not there.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    /// Every `"key": "string"` pair the file's text holds, at any depth, read without
    /// parsing it: for a file that cannot be parsed ([`Self::problem`]), whose
    /// configured values must still be hidden where they reappear. Empty when the file
    /// is not there or is refused (a FIFO, a link to a device, too large).
    pub fn string_pairs(&self) -> Vec<(String, String)> {
        let Ok(Some(file)) = read_regular(&self.path, MAX_CONFIG_BYTES, Follow::Links) else {
            return Vec::new();
        };
        string_pairs_in(&String::from_utf8_lossy(&file.bytes))
    }
}

/// The `"key": "string"` pairs of a JSON text that may be cut short or malformed, each
/// string unescaped as JSON unescapes it (one that does not unescape is skipped); a
/// list of strings (`"args": ["--token", "..."]`) is one pair per string, under its key.
fn string_pairs_in(text: &str) -> Vec<(String, String)> {
    const STR: &str = r#""((?:[^"\\\n]|\\.)*)""#;
    static PAIR: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(&format!(
            r#"{STR}\s*:\s*(?:{STR}|\[((?:\s*"(?:[^"\\\n]|\\.)*"\s*,?)*)\s*\]?)"#
        ))
        .expect("pair pattern compiles")
    });
    static ITEM: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(STR).expect("item pattern compiles"));
    let unescape = |s: &str| serde_json::from_str::<String>(&format!("\"{s}\"")).ok();
    let mut out = Vec::new();
    for c in PAIR.captures_iter(text) {
        let Some(key) = unescape(&c[1]) else { continue };
        if let Some(v) = c.get(2) {
            out.extend(unescape(v.as_str()).map(|v| (key.clone(), v)));
        } else if let Some(list) = c.get(3) {
            for i in ITEM.captures_iter(list.as_str()) {
                out.extend(unescape(&i[1]).map(|v| (key.clone(), v)));
            }
        }
    }
    out
}

/// Whether `project` is one Claude Code knows: listed in `~/.claude.json` `projects`, or
/// holding a `.mcp.json`.
pub fn is_known_project(global: Option<&GlobalConfig>, project: &Path) -> bool {
    if project.join(".mcp.json").is_file() {
        return true;
    }
    global
        .and_then(|g| g.doc().ok().flatten())
        .is_some_and(|doc| project_entry(&doc, project).is_some())
}

/// Every project `~/.claude.json` lists, each with whether its entry configures servers
/// of its own (`projects[P].mcpServers`, not empty): a scan of the home joins the
/// configuration of such a project, or of one whose folder holds a `.mcp.json`, even
/// when none of its servers has a log yet.
pub fn listed_projects(global: Option<&GlobalConfig>) -> Vec<(PathBuf, bool)> {
    let Some(doc) = global.and_then(|g| g.doc().ok().flatten()) else {
        return Vec::new();
    };
    let Some(projects) = doc.get("projects").and_then(Value::as_object) else {
        return Vec::new();
    };
    projects
        .iter()
        .map(|(k, v)| {
            let own = v
                .get("mcpServers")
                .and_then(Value::as_object)
                .is_some_and(|m| !m.is_empty());
            (PathBuf::from(k), own)
        })
        .collect()
}

fn project_entry<'a>(doc: &'a Value, project: &Path) -> Option<&'a Value> {
    let projects = doc.get("projects")?.as_object()?;
    let wanted = project.to_string_lossy();
    if let Some(p) = projects.get(wanted.as_ref()) {
        return Some(p);
    }
    let canon = std::fs::canonicalize(project).ok()?;
    projects.get(canon.to_string_lossy().as_ref())
}

/// `enableAllProjectMcpServers`, `enabledMcpjsonServers`, `disabledMcpjsonServers`.
#[derive(Debug, Default)]
struct Approval {
    all: bool,
    enabled: Vec<String>,
    disabled: Vec<String>,
}

impl Approval {
    fn read(&mut self, doc: &Value) {
        if doc.get("enableAllProjectMcpServers") == Some(&Value::Bool(true)) {
            self.all = true;
        }
        let names = |k: &str| string_list(doc, k);
        self.enabled.extend(names("enabledMcpjsonServers"));
        self.disabled.extend(names("disabledMcpjsonServers"));
    }

    fn approves(&self, name: &str) -> bool {
        !self.disabled.iter().any(|n| n == name)
            && (self.all || self.enabled.iter().any(|n| n == name))
    }
}

/// A `command` that is `npx` itself (any case, any folder, `.cmd` or not), which a
/// Windows Claude Code does not start without `cmd /c`.
pub fn runs_npx_directly(command: &str) -> bool {
    let base = command
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(command)
        .to_ascii_lowercase();
    matches!(base.as_str(), "npx" | "npx.cmd")
}

/// Whether a configuration is for Windows: mcplogs runs on Windows, or the settings
/// file, the command or an argument is a Windows path (`C:\...`, `\\server\share`), as in
/// a Windows home read on another system.
pub fn is_windows_config(file: &Path, command: &str, args: &[String]) -> bool {
    fn windows_path(s: &str) -> bool {
        let b = s.as_bytes();
        (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'\\' | b'/'))
            || s.starts_with("\\\\")
    }
    cfg!(windows)
        || windows_path(&file.to_string_lossy())
        || windows_path(command)
        || args.iter().any(|a| windows_path(a))
}

fn server_from_json(
    name: &str,
    value: &Value,
    scope: Scope,
    path: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> ServerConfig {
    let mut warnings = Vec::new();
    let mut unset = Vec::new();
    let mut expand = |s: &str, what: &str| -> String {
        let (out, missing) = expand_vars(s, env);
        for m in missing {
            unset.push(format!(
                "{what}: environment variable {m} is not set and has no default"
            ));
        }
        out
    };
    let obj = value.as_object();
    let str_of = |k: &str| obj.and_then(|o| o.get(k)).and_then(Value::as_str);
    let command = str_of("command").unwrap_or_default().to_string();
    let url = str_of("url").unwrap_or_default().to_string();
    let ty = str_of("type");
    let mut unprobed_type = None;
    let transport = match ty {
        Some("http") => TransportKind::Http,
        Some("sse") => TransportKind::Sse,
        Some("stdio") | None => TransportKind::Stdio,
        Some(other) => {
            warnings.push(format!(
                "type {other:?} is not one mcplogs can probe (stdio, http, sse)"
            ));
            unprobed_type = Some(other.to_string());
            TransportKind::Stdio
        }
    };
    if obj.is_none() {
        warnings.push("the entry is not a JSON object".into());
    }
    let command = expand(&command, "command");
    let url = expand(&url, "url");
    let args: Vec<String> = obj
        .and_then(|o| o.get("args"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect()
        })
        .unwrap_or_default();
    let args: Vec<String> = args.iter().map(|a| expand(a, "args")).collect();
    let map_of = |k: &str| -> Vec<(String, String)> {
        obj.and_then(|o| o.get(k))
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| {
                        let v = match v {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        (k.clone(), v)
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let env_map = map_of("env")
        .into_iter()
        .map(|(k, v)| {
            let v = expand(&v, &format!("env.{k}"));
            (k, v)
        })
        .collect();
    let headers = map_of("headers")
        .into_iter()
        .map(|(k, v)| {
            let v = expand(&v, &format!("headers.{k}"));
            (k, v)
        })
        .collect();
    warnings.extend(unset);
    if transport == TransportKind::Stdio && command.is_empty() && unprobed_type.is_none() {
        warnings.push("no \"command\" configured".into());
    }
    if transport != TransportKind::Stdio && url.is_empty() {
        warnings.push("no \"url\" configured".into());
    }
    if obj.and_then(|o| o.get("disabled")) == Some(&Value::Bool(true)) {
        warnings.push(
            "\"disabled\": true is not a key Claude Code reads: it starts the server anyway (turn it off with /mcp or disabledMcpjsonServers)".into(),
        );
    }
    if transport == TransportKind::Stdio
        && runs_npx_directly(&command)
        && is_windows_config(path, &command, &args)
    {
        warnings.push(format!(
            "on Windows Claude Code is reported not to start \"{command}\" directly (`claude mcp list` warns, by a user's report: Windows requires 'cmd /c' wrapper to execute npx; not verified here): use \"command\": \"cmd\" with \"args\": [\"/c\", \"npx\", ...]"
        ));
    }
    let state = entry_state(value, name);
    ServerConfig {
        name: name.to_string(),
        scope,
        source: Some(path.to_path_buf()),
        transport,
        command,
        args,
        env: env_map,
        url,
        headers,
        approved: None,
        warnings,
        state,
        decided_by: Vec::new(),
        unprobed_type,
    }
}

// ---------------------------------------------------------------------------
// What Claude Code does with each configured server (issue 21). Observed with 2.1.288 and
// 2.1.332 (`-p`, `claude mcp list` and interactive), fixtures in tests/fixtures/configured/,
// facts in docs/claude-code.md "Configured servers and their states (observed)".
// ---------------------------------------------------------------------------

/// What Claude Code does with a configured server in this project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    /// Claude Code starts it (an unexpanded `${VAR}` is started as written).
    Starts,
    /// A `.mcp.json` server no settings file approves: interactive Claude Code asks
    /// before starting it (and starts nothing of it while it asks); `claude -p` and
    /// `--dangerously-skip-permissions` start it unasked.
    PendingApproval,
    /// Turned off for this project (`disabledMcpServers`, `disabledMcpjsonServers`).
    Disabled,
    /// Managed policy keeps it out: `deniedMcpServers`, a missing `allowedMcpServers`
    /// entry, or a `managed-mcp.json` (which takes exclusive control).
    Denied,
    /// Claude Code skips the entry: no command or url, or an unknown type. The text is
    /// what is wrong.
    Skipped(String),
}

/// [`ServerState::Skipped`]'s name in text and in `--json`.
pub const CONFIGURATION_ERROR: &str = "configuration-error";

impl ServerState {
    /// The names used in text and in `--json` (a contract: never rename).
    pub fn as_str(&self) -> &'static str {
        match self {
            ServerState::Starts => "starts",
            ServerState::PendingApproval => "pending-approval",
            ServerState::Disabled => "disabled",
            ServerState::Denied => "denied-by-policy",
            ServerState::Skipped(_) => CONFIGURATION_ERROR,
        }
    }
}

/// A file and key that decide a server's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decider {
    pub file: PathBuf,
    /// The key as it is written in the file (`disabledMcpjsonServers`,
    /// `projects["/p"].disabledMcpServers`).
    pub key: String,
    /// The settings layer (`user`, `project`, `local`, `managed`, ...), or `claude.json`,
    /// `mcp.json`, `managed-mcp.json` for the configuration files.
    pub layer: &'static str,
}

/// The settings files that bear on a project's servers, highest precedence first (what
/// `settings::layers::Sources::files` lists), and the managed folder
/// (`managed-mcp.json`); `settings::layers::Sources::state_sources` makes one.
#[derive(Debug, Clone, Default)]
pub struct StateSources {
    pub settings: Vec<(LayerKind, PathBuf)>,
    pub managed_dir: Option<PathBuf>,
}

/// The approval and policy keys read from every settings layer.
#[derive(Debug, Default)]
struct Keys {
    /// `(name, decider)` of every `disabledMcpjsonServers` entry.
    disabled_mcpjson: Vec<(String, Decider)>,
    enabled_mcpjson: Vec<(String, Decider)>,
    enable_all: Vec<Decider>,
    /// Managed layers only.
    denied: Vec<(Value, Decider)>,
    /// `None`: no managed allow list; `Some`: only these (with the file that lists).
    allowed: Option<(Vec<Value>, Decider)>,
    /// An approval list that is not a list of names (`FILE: KEY ...`): read as empty,
    /// said on every `.mcp.json` server.
    malformed: Vec<String>,
}

fn string_list(doc: &Value, key: &str) -> Vec<String> {
    doc.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

impl Keys {
    fn read(&mut self, doc: &Value, file: &Path, layer: &'static str, prefix: &str, managed: bool) {
        let decider = |key: &str| Decider {
            file: file.to_path_buf(),
            key: format!("{prefix}{key}"),
            layer,
        };
        for key in ["disabledMcpjsonServers", "enabledMcpjsonServers"] {
            let ok = match doc.get(key) {
                None => true,
                Some(Value::Array(a)) => a.iter().all(Value::is_string),
                Some(_) => false,
            };
            if !ok {
                self.malformed.push(format!(
                    "{prefix}{key} in {} is not a list of server names: mcplogs reads no name from it (Claude Code's settings check may reject it or the whole file)",
                    file.display()
                ));
            }
        }
        for n in string_list(doc, "disabledMcpjsonServers") {
            self.disabled_mcpjson
                .push((n, decider("disabledMcpjsonServers")));
        }
        for n in string_list(doc, "enabledMcpjsonServers") {
            self.enabled_mcpjson
                .push((n, decider("enabledMcpjsonServers")));
        }
        if doc.get("enableAllProjectMcpServers") == Some(&Value::Bool(true)) {
            self.enable_all.push(decider("enableAllProjectMcpServers"));
        }
        if !managed {
            return;
        }
        if let Some(a) = doc.get("deniedMcpServers").and_then(Value::as_array) {
            for e in a {
                self.denied.push((e.clone(), decider("deniedMcpServers")));
            }
        }
        if let Some(a) = doc.get("allowedMcpServers").and_then(Value::as_array)
            && self.allowed.is_none()
        {
            self.allowed = Some((a.clone(), decider("allowedMcpServers")));
        }
    }
}

/// Whether a managed `allowedMcpServers` / `deniedMcpServers` entry names this server:
/// `{"serverName": ...}`, `{"serverCommand": [command, args...]}` (the whole command
/// line, exactly) or `{"serverUrl": "https://*.example.com/*"}` (`*` matches anything).
/// A deny entry's URL pattern also matches the URL with a trailing slash added
/// (observed on 2.1.332; 2.1.288 starts such a server: case `managed-deny-forms`).
fn policy_entry_matches(entry: &Value, cfg: &ServerConfig, deny: bool) -> bool {
    if let Some(n) = entry.get("serverName").and_then(Value::as_str) {
        return n == cfg.name;
    }
    if let Some(c) = entry.get("serverCommand").and_then(Value::as_array) {
        let want: Vec<&str> = c.iter().filter_map(Value::as_str).collect();
        let have: Vec<&str> = std::iter::once(cfg.command.as_str())
            .chain(cfg.args.iter().map(String::as_str))
            .collect();
        return !cfg.command.is_empty() && want == have;
    }
    if let Some(u) = entry.get("serverUrl").and_then(Value::as_str) {
        if cfg.url.is_empty() {
            return false;
        }
        return wildcard(u, &cfg.url)
            || (deny
                && cfg
                    .url
                    .strip_suffix('/')
                    .is_some_and(|bare| !u.ends_with('/') && wildcard(u, bare)));
    }
    false
}

/// Whether a managed `allowedMcpServers` list admits this server. Observed on 2.1.288
/// and 2.1.332 (cases `managed-allow-command`, `managed-allow-url`): once the list holds
/// a `serverCommand` entry, a stdio server is admitted only by its command (a
/// `serverName` entry naming it no longer counts), and once it holds a `serverUrl`
/// entry, a remote server only by its URL; otherwise by name. An empty list admits
/// nothing.
fn allowed_by(list: &[Value], cfg: &ServerConfig) -> bool {
    let has = |k: &str| list.iter().any(|e| e.get(k).is_some());
    let form = if !cfg.command.is_empty() && has("serverCommand") {
        "serverCommand"
    } else if cfg.command.is_empty() && !cfg.url.is_empty() && has("serverUrl") {
        "serverUrl"
    } else {
        "serverName"
    };
    list.iter()
        .filter(|e| e.get(form).is_some())
        .any(|e| policy_entry_matches(e, cfg, false))
}

/// `*` matches any run of characters; everything else matches itself.
fn wildcard(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let mut rest = text;
    for (i, p) in parts.iter().enumerate() {
        if i == 0 {
            let Some(r) = rest.strip_prefix(p) else {
                return false;
            };
            rest = r;
        } else if i == parts.len() - 1 {
            return rest.ends_with(p);
        } else {
            match rest.find(p) {
                Some(at) => rest = &rest[at + p.len()..],
                None => return false,
            }
        }
    }
    true
}

/// Every server configured for `project` with the state Claude Code gives it there, the
/// files and keys that decide it, and the files that could not be read. The one
/// resolution `scan`, `report`, `probe` and `settings` share.
pub fn resolve_states(
    global_config: Option<&Path>,
    project: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    sources: &StateSources,
) -> Resolved {
    let global = global_config.map(GlobalConfig::read);
    resolve_states_in(global.as_ref(), project, env, sources)
}

/// [`resolve_states`] against a global configuration read once for many projects.
pub fn resolve_states_in(
    global: Option<&GlobalConfig>,
    project: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    sources: &StateSources,
) -> Resolved {
    let global_config = global.map(GlobalConfig::path);
    let mut r = resolve_in(global, project, env);
    let mut keys = Keys::default();
    let mut disabled_here: Vec<String> = Vec::new();
    let project_key = project.to_string_lossy().into_owned();
    if let Some(g) = global
        && let Ok(Some(doc)) = g.doc()
        && let Some(p) = project_entry(&doc, project)
    {
        let prefix = format!(
            "projects[{}].",
            serde_json::to_string(&project_key).unwrap_or_default()
        );
        disabled_here = string_list(p, "disabledMcpServers");
        // The keys' old home: Claude Code moves them into settings.local.json at start-up
        // (observed), and honours them meanwhile.
        keys.read(p, g.path(), "claude.json", &prefix, false);
    }
    for (kind, file) in &sources.settings {
        r.searched.push(file.clone());
        // Claude Code reads strict JSON only: a file that is not is ignored as a whole.
        let doc = match read_json(file) {
            Ok(Some(doc)) => doc,
            Ok(None) => continue,
            Err(error @ ConfigFileError::Read(_)) => {
                r.unread_settings.push(ConfigProblem {
                    path: file.clone(),
                    error,
                });
                continue;
            }
            Err(_) => {
                r.ignored.push(file.clone());
                continue;
            }
        };
        let managed = matches!(kind, LayerKind::Managed | LayerKind::ManagedDropIn);
        keys.read(&doc, file, kind.as_str(), "", managed);
    }
    let disabled_key = format!(
        "projects[{}].disabledMcpServers",
        serde_json::to_string(&project_key).unwrap_or_default()
    );

    // managed-mcp.json: its servers, and exclusive control over every other scope.
    let mut managed_servers = Vec::new();
    let mut exclusive: Option<PathBuf> = None;
    if let Some(dir) = &sources.managed_dir {
        let path = dir.join("managed-mcp.json");
        r.searched.push(path.clone());
        match read_json(&path) {
            Ok(Some(doc)) => {
                exclusive = Some(path.clone());
                if let Some(m) = doc.get("mcpServers").and_then(Value::as_object) {
                    for (name, value) in m {
                        managed_servers.push(server_from_json(
                            name,
                            value,
                            Scope::Managed,
                            &path,
                            env,
                        ));
                    }
                }
            }
            Ok(None) => {}
            Err(error) => r.problems.push(ConfigProblem { path, error }),
        }
    }

    for cfg in &mut r.servers {
        let value_state = cfg.state.clone();
        let mut state = value_state;
        let mut by = Vec::new();
        if state == ServerState::Starts {
            match cfg.scope {
                Scope::User | Scope::Local => {
                    if disabled_here.iter().any(|n| n == &cfg.name) {
                        state = ServerState::Disabled;
                        if let Some(g) = global_config {
                            by.push(Decider {
                                file: g.to_path_buf(),
                                key: disabled_key.clone(),
                                layer: "claude.json",
                            });
                        }
                    }
                }
                Scope::Project => {
                    cfg.warnings.extend(keys.malformed.iter().cloned());
                    let off: Vec<Decider> = keys
                        .disabled_mcpjson
                        .iter()
                        .filter(|(n, _)| n == &cfg.name)
                        .map(|(_, d)| d.clone())
                        .collect();
                    if !off.is_empty() {
                        cfg.approved = Some(false);
                        state = ServerState::Disabled;
                        by = off;
                    } else {
                        let on: Vec<Decider> = keys
                            .enabled_mcpjson
                            .iter()
                            .filter(|(n, _)| n == &cfg.name)
                            .map(|(_, d)| d.clone())
                            .chain(keys.enable_all.iter().cloned())
                            .collect();
                        cfg.approved = Some(!on.is_empty());
                        if on.is_empty() {
                            state = ServerState::PendingApproval;
                            by.push(Decider {
                                file: cfg.source.clone().unwrap_or_default(),
                                key: format!("mcpServers.{}", cfg.name),
                                layer: "mcp.json",
                            });
                        } else {
                            by = on;
                        }
                    }
                }
                Scope::Managed | Scope::CommandLine => {}
            }
        }
        // Managed policy outranks everything a user configures.
        if let Some(path) = &exclusive {
            state = ServerState::Denied;
            by = vec![Decider {
                file: path.clone(),
                key: "mcpServers".into(),
                layer: "managed-mcp.json",
            }];
        } else if let Some((_, d)) = keys
            .denied
            .iter()
            .find(|(e, _)| policy_entry_matches(e, cfg, true))
        {
            state = ServerState::Denied;
            by = vec![d.clone()];
        } else if let Some((list, d)) = &keys.allowed
            && !allowed_by(list, cfg)
        {
            state = ServerState::Denied;
            by = vec![d.clone()];
        }
        cfg.state = state;
        cfg.decided_by = by;
    }
    for mut cfg in managed_servers {
        if cfg.state == ServerState::Starts
            && let Some((_, d)) = keys
                .denied
                .iter()
                .find(|(e, _)| policy_entry_matches(e, &cfg, true))
        {
            cfg.state = ServerState::Denied;
            cfg.decided_by = vec![d.clone()];
        }
        r.servers.push(cfg);
    }
    r
}

/// Whether `probe` and `report --probe` may start (or connect to) a server the user did
/// not name. A repository's `.mcp.json` is code from whoever wrote the repository:
/// Claude Code asks before starting it, and so mcplogs neither runs its command nor
/// sends its headers (which may expand the user's environment variables) to its URL
/// unless the user approved it or names it (`mcplogs probe NAME`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeApproval {
    /// Not a project server, or approved where Claude Code records the user's own
    /// answer: `~/.claude.json`, the user's `settings.json`, managed settings, or the
    /// project's `.claude/settings.local.json` when the git index shows it is the
    /// user's ([`LocalOrigin::Untracked`]: Claude Code writes it when the user
    /// approves, and keeps it out of git).
    Unasked,
    /// A `.mcp.json` server no settings file approves (Claude Code asks first).
    NotApproved,
    /// Approved only by files the project itself can ship, or that mcplogs cannot tell
    /// from such a file, each with why mcplogs does not count it.
    NotCounted(Vec<(Decider, String)>),
}

/// Why a committed `.claude/settings.json` approval is not counted.
pub const PROJECT_APPROVAL_NOT_COUNTED: &str = "the project's .claude/settings.json is committed with the repository, so a cloned repository can approve its own servers there";
/// Why a `.claude/settings.local.json` that git tracks is not counted.
pub const TRACKED_LOCAL_APPROVAL_NOT_COUNTED: &str = "this .claude/settings.local.json is tracked by git (committed with the repository), so it may come from whoever wrote the repository rather than from your answer to Claude Code";
/// Why a `.claude/settings.local.json` outside any git repository is not counted.
pub const NO_REPOSITORY_LOCAL_APPROVAL_NOT_COUNTED: &str = "no git repository holds this project, so mcplogs cannot tell a settings.local.json you approved from one that came with the project: a downloaded archive or a copy carries it too";

/// Where a project's `.claude/settings.local.json` comes from, as far as the git index
/// of the repository holding it says ([`local_origin`]). The index is read, git is not
/// run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalOrigin {
    /// The repository tracks the project's `.mcp.json` but not this file: it was not
    /// part of what the repository brought, so it is where Claude Code recorded the
    /// user's answer.
    Untracked,
    /// Tracked: it came with the repository.
    Tracked,
    /// Not established (no repository, an index mcplogs cannot read, a `.mcp.json` the
    /// repository does not track either): why, in words.
    Unknown(String),
}

/// The [`ProbeApproval`] of each server resolved by [`resolve_states`], from the same
/// deciders that give it its state (`scan`, `report` and `probe` agree on which servers
/// are approved, and `probe` says which approval it does not count and why), reading
/// each git index once.
pub fn probe_approvals(servers: &[&ServerConfig]) -> Vec<ProbeApproval> {
    let mut origins: Vec<((PathBuf, PathBuf), LocalOrigin)> = Vec::new();
    servers
        .iter()
        .map(|cfg| {
            if cfg.scope != Scope::Project {
                return ProbeApproval::Unasked;
            }
            let approvals: Vec<&Decider> = cfg
                .decided_by
                .iter()
                .filter(|d| {
                    d.key.ends_with("enabledMcpjsonServers")
                        || d.key.ends_with("enableAllProjectMcpServers")
                })
                .collect();
            if cfg.state != ServerState::Starts || approvals.is_empty() {
                return ProbeApproval::NotApproved;
            }
            let mut not_counted = Vec::new();
            for d in approvals {
                let why = match d.layer {
                    "project" => Some(PROJECT_APPROVAL_NOT_COUNTED.to_string()),
                    "local" => {
                        // the project's .mcp.json: the server's source, else beside .claude
                        let mcp_json = cfg.source.clone().unwrap_or_else(|| {
                            d.file
                                .parent()
                                .and_then(Path::parent)
                                .unwrap_or(Path::new(""))
                                .join(".mcp.json")
                        });
                        let key = (d.file.clone(), mcp_json);
                        let origin = match origins.iter().find(|(k, _)| *k == key) {
                            Some((_, o)) => o.clone(),
                            None => {
                                let o = local_origin(&key.0, &key.1);
                                origins.push((key, o.clone()));
                                o
                            }
                        };
                        match origin {
                            LocalOrigin::Untracked => None,
                            LocalOrigin::Tracked => {
                                Some(TRACKED_LOCAL_APPROVAL_NOT_COUNTED.to_string())
                            }
                            LocalOrigin::Unknown(why) => Some(why),
                        }
                    }
                    _ => None,
                };
                match why {
                    None => return ProbeApproval::Unasked,
                    Some(why) => not_counted.push((d.clone(), why)),
                }
            }
            ProbeApproval::NotCounted(not_counted)
        })
        .collect()
}

/// Whether the project's `.claude/settings.local.json` (`local`) is the user's own, as
/// the git index of the repository holding it says: [`LocalOrigin::Untracked`] only when
/// that index is read whole and lists the project's `.mcp.json` (`mcp_json`: the
/// repository brought the project) but not `local`. Everything else fails closed: no
/// repository (a downloaded archive or a copy carries the file as easily as the
/// author's `.mcp.json`), a `.mcp.json` the repository does not track either (a project
/// unpacked inside someone's repository), an index that is missing, not a regular
/// file, over [`MAX_GIT_INDEX`], not a git index of version 2 to 4, split
/// (`core.splitIndex`: most entries live in another file) or with a required extension
/// mcplogs does not know. The index's kind and size are checked before it is opened
/// (non-blocking), and it is read as a stream, never held whole.
pub fn local_origin(local: &Path, mcp_json: &Path) -> LocalOrigin {
    let mut dir = local.parent();
    while let Some(d) = dir {
        let dot_git = d.join(".git");
        let git_dir = match std::fs::metadata(&dot_git) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                dir = d.parent();
                continue;
            }
            Err(e) => {
                return unknown_index(&dot_git, &format!("cannot be read ({e})"));
            }
            Ok(m) if m.is_dir() => dot_git,
            Ok(m) if m.is_file() => {
                // a worktree or a submodule: `gitdir: <path>`
                let linked = read_regular(&dot_git, 64 * 1024, Follow::Links)
                    .ok()
                    .flatten()
                    .and_then(|r| {
                        String::from_utf8_lossy(&r.bytes)
                            .lines()
                            .find_map(|l| l.strip_prefix("gitdir:"))
                            .map(|g| d.join(g.trim()))
                    });
                match linked {
                    Some(g) => g,
                    None => {
                        return unknown_index(&dot_git, "names no git folder mcplogs can read");
                    }
                }
            }
            Ok(m) => {
                return unknown_index(&dot_git, &format!("is {}", crate::safe_read::kind_of(&m)));
            }
        };
        let rel = |p: &Path| -> Option<String> {
            let r = p.strip_prefix(d).ok()?;
            let parts: Vec<String> = r
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            Some(parts.join("/"))
        };
        let (Some(local_rel), Some(mcp_rel)) = (rel(local), rel(mcp_json)) else {
            return LocalOrigin::Unknown(format!(
                "the project's .mcp.json is not in the git repository at {} that holds this file, so that repository does not say whether the file came with the project",
                d.display()
            ));
        };
        let index = git_dir.join("index");
        return match index_lists(&index, &[&local_rel, &mcp_rel]) {
            Err(why) => unknown_index(&index, &why),
            Ok(listed) if listed[0] => LocalOrigin::Tracked,
            Ok(listed) if !listed[1] => LocalOrigin::Unknown(format!(
                "the git repository at {} tracks neither this file nor the project's .mcp.json, so the project did not come with that repository and mcplogs cannot tell a settings.local.json you approved from one that came with the project",
                d.display()
            )),
            Ok(_) => LocalOrigin::Untracked,
        };
    }
    LocalOrigin::Unknown(NO_REPOSITORY_LOCAL_APPROVAL_NOT_COUNTED.to_string())
}

fn unknown_index(path: &Path, why: &str) -> LocalOrigin {
    LocalOrigin::Unknown(format!(
        "mcplogs cannot tell whether git tracks this file, so it may have come with the project: {} {why}",
        path.display()
    ))
}

/// A git index larger than this is not read (what it would say is not established).
pub const MAX_GIT_INDEX: u64 = 256 * 1024 * 1024;

/// The longest path an index entry is read with (git's own limit is the system's,
/// 4096 on Linux).
const MAX_INDEX_PATH: usize = 64 * 1024;

/// Whether an index entry's `path` lists `want`: itself, or (a sparse index) a folder
/// outside the cone kept as one `dir/` entry holding it. `lenient` for the file whose
/// tracking makes an approval not count: also an entry standing where one of its
/// folders is (a tracked symbolic link or submodule: the repository decides what is
/// read through it, `.claude -> cfg` with `cfg/settings.local.json` committed), and in
/// any ASCII case (a case-insensitive file system reads `.Claude/SETTINGS.LOCAL.JSON`
/// as the same file). Never lenient for what would make one count.
fn entry_lists(path: &[u8], want: &[u8], lenient: bool) -> bool {
    let under = |folder: &[u8]| {
        want.len() > folder.len()
            && want[folder.len()] == b'/'
            && want[..folder.len()].eq_ignore_ascii_case(folder)
    };
    path == want
        || (path.last() == Some(&b'/') && want.starts_with(path))
        || (lenient && (path.eq_ignore_ascii_case(want) || under(path)))
}

/// Why an index was not read to its end.
enum IndexError {
    /// Not laid out as an index with this hash size (another size may fit).
    Malformed,
    /// Laid out right, but it says something mcplogs does not decide on.
    Refused(String),
}

/// Which of `paths` (relative to the work tree, `/`-separated) the git index at
/// `index` lists, or why it could not be read: opened as every file mcplogs reads
/// ([`crate::safe_read::open_checked`]: kind and size from the metadata first, a
/// non-blocking open, the file checked), then read as a stream (SHA-1 entries first, then SHA-256). A sparse index's
/// folder entry lists every path under it.
fn index_lists(index: &Path, paths: &[&str]) -> Result<Vec<bool>, String> {
    use crate::safe_read::ReadError;
    use std::io::{Read, Seek, SeekFrom};
    let (mut file, meta) = match crate::safe_read::open_checked(index, MAX_GIT_INDEX, Follow::Links)
    {
        Ok(Some(opened)) => opened,
        Ok(None) => return Err("does not exist".into()),
        Err(ReadError::NotRegular { kind }) => return Err(format!("is {kind}")),
        Err(ReadError::TooLarge { limit }) => {
            return Err(format!(
                "is larger than {} MiB, and mcplogs does not read it",
                limit / (1024 * 1024)
            ));
        }
        Err(ReadError::Replaced) => return Err("was replaced while being read".into()),
        Err(e) => return Err(format!("cannot be read ({e})")),
    };
    let len = meta.len();
    for hash in [20, 32] {
        if hash == 32 {
            file.seek(SeekFrom::Start(0))
                .map_err(|e| format!("cannot be read ({e})"))?;
        }
        let mut r = std::io::BufReader::new((&mut file).take(len));
        match parse_index(&mut r, len, hash, paths) {
            Ok(listed) => return Ok(listed),
            Err(IndexError::Refused(why)) => return Err(why),
            Err(IndexError::Malformed) => {}
        }
    }
    Err("is not a git index mcplogs can read (versions 2 to 4)".into())
}

/// Reads an index of `len` bytes from `r` with `hash`-byte object names (20: SHA-1, 32:
/// SHA-256): its entries (versions 2 and 3 padded, version 4 prefix-compressed), then
/// its extensions up to the trailing checksum, which must end the file exactly.
fn parse_index(
    r: &mut impl std::io::BufRead,
    len: u64,
    hash: usize,
    paths: &[&str],
) -> Result<Vec<bool>, IndexError> {
    use std::io::{BufRead, Read};
    fn exact(r: &mut impl Read, buf: &mut [u8]) -> Result<(), IndexError> {
        r.read_exact(buf).map_err(|_| IndexError::Malformed)
    }
    let mut read = 0u64;
    let mut header = [0u8; 12];
    exact(r, &mut header)?;
    read += 12;
    if &header[..4] != b"DIRC" {
        return Err(IndexError::Refused("is not a git index".into()));
    }
    let version = u32::from_be_bytes([header[4], header[5], header[6], header[7]]);
    if !(2..=4).contains(&version) {
        return Err(IndexError::Refused(format!(
            "is a git index of version {version}, which mcplogs does not read"
        )));
    }
    let count = u32::from_be_bytes([header[8], header[9], header[10], header[11]]) as u64;
    // the smallest entry: 40 bytes of stat data, the name, 2 of flags, a path's NUL
    if count.saturating_mul(40 + hash as u64 + 3) > len {
        return Err(IndexError::Malformed);
    }
    let mut listed = vec![false; paths.len()];
    let mut path: Vec<u8> = Vec::new();
    let mut fixed = vec![0u8; 40 + hash + 2];
    for _ in 0..count {
        exact(r, &mut fixed)?;
        let flags = u16::from_be_bytes([fixed[40 + hash], fixed[41 + hash]]);
        let mut entry = fixed.len();
        if flags & 0x4000 != 0 {
            if version < 3 {
                return Err(IndexError::Malformed);
            }
            exact(r, &mut [0u8; 2])?;
            entry += 2;
        }
        if version >= 4 {
            // how many bytes of the previous path to drop, a git varint
            let mut strip: u64 = 0;
            let mut byte = [0u8; 1];
            for i in 0.. {
                if i > 9 {
                    return Err(IndexError::Malformed);
                }
                exact(r, &mut byte)?;
                read += 1;
                strip = (strip << 7) | u64::from(byte[0] & 0x7f);
                if byte[0] & 0x80 == 0 {
                    break;
                }
                strip += 1;
            }
            let keep = usize::try_from(strip)
                .ok()
                .and_then(|s| path.len().checked_sub(s))
                .ok_or(IndexError::Malformed)?;
            path.truncate(keep);
        } else {
            path.clear();
        }
        let got = (&mut *r)
            .take(MAX_INDEX_PATH as u64 + 1)
            .read_until(0, &mut path)
            .map_err(|_| IndexError::Malformed)?;
        if path.last() != Some(&0) {
            return Err(IndexError::Malformed);
        }
        path.pop();
        // a version 4 path keeps its predecessor's prefix: bounded as a whole, not only
        // what each entry adds (else a crafted index grows it to the file's size)
        let name_len = (flags & 0xfff) as usize;
        if path.len() > MAX_INDEX_PATH || name_len != path.len().min(0xfff) {
            return Err(IndexError::Malformed);
        }
        entry += got;
        if version < 4 {
            // 1 to 8 NULs end an entry at a multiple of 8: one was read with the path
            let pad = (8 - (entry - 1) % 8) - 1;
            let mut zeros = [0u8; 8];
            exact(r, &mut zeros[..pad])?;
            if zeros[..pad].iter().any(|&b| b != 0) {
                return Err(IndexError::Malformed);
            }
            entry += pad;
        }
        read += entry as u64;
        for (i, p) in paths.iter().enumerate() {
            if entry_lists(&path, p.as_bytes(), i == 0) {
                listed[i] = true;
            }
        }
    }
    // the extensions, up to the checksum
    loop {
        let left = len.checked_sub(read).ok_or(IndexError::Malformed)?;
        if left == hash as u64 {
            return Ok(listed);
        }
        if left < 8 + hash as u64 {
            return Err(IndexError::Malformed);
        }
        let mut head = [0u8; 8];
        exact(r, &mut head)?;
        let size = u32::from_be_bytes([head[4], head[5], head[6], head[7]]) as u64;
        if size > left - 8 - hash as u64 {
            return Err(IndexError::Malformed);
        }
        let sig = &head[..4];
        if sig == b"link" {
            return Err(IndexError::Refused(
                "is a split index (core.splitIndex: most entries live in a shared index file), which mcplogs does not read".into(),
            ));
        }
        // an extension whose name starts with a capital is optional; lower case ones
        // change what the entries mean (git itself stops at one it does not know)
        if !sig[0].is_ascii_uppercase() && sig != b"sdir" {
            return Err(IndexError::Refused(format!(
                "has a required extension {:?} mcplogs does not know",
                String::from_utf8_lossy(sig)
            )));
        }
        let skipped = std::io::copy(&mut (&mut *r).take(size), &mut std::io::sink())
            .map_err(|_| IndexError::Malformed)?;
        if skipped != size {
            return Err(IndexError::Malformed);
        }
        read += 8 + size;
    }
}

/// The state an entry gives itself: Claude Code skips an entry without a command (stdio)
/// or url (http, sse), or of an unknown type (observed: `Skipped — invalid MCP server
/// config for "x": command: expected string, received undefined`, `Skipped — unknown MCP
/// server type "x" for server "y"`).
fn entry_state(value: &Value, name: &str) -> ServerState {
    let _ = name;
    let Some(obj) = value.as_object() else {
        return ServerState::Skipped("the entry is not a JSON object".into());
    };
    let has = |k: &str| obj.get(k).is_some_and(Value::is_string);
    match obj.get("type").and_then(Value::as_str) {
        None | Some("stdio") if !has("command") => ServerState::Skipped(
            "no \"command\" (command: expected string, received undefined)".into(),
        ),
        Some("http" | "sse" | "ws" | "sse-ide" | "ws-ide") if !has("url") => {
            ServerState::Skipped("no \"url\" (url: expected string, received undefined)".into())
        }
        None
        | Some("stdio" | "http" | "sse" | "ws" | "sse-ide" | "ws-ide" | "sdk" | "claudeai-proxy") => {
            ServerState::Starts
        }
        Some(other) => ServerState::Skipped(format!("unknown MCP server type {other:?}")),
    }
}

/// Expands `${VAR}` and `${VAR:-default}`; returns the text and the names that were
/// unset without a default (those stay as written, as Claude Code leaves them).
pub fn expand_vars(s: &str, env: &dyn Fn(&str) -> Option<String>) -> (String, Vec<String>) {
    let mut out = String::with_capacity(s.len());
    let mut missing = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[i..]);
            rest = "";
            break;
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        match (env(name), default) {
            (Some(v), _) => out.push_str(&v),
            (None, Some(d)) => out.push_str(d),
            (None, None) => {
                out.push_str(&rest[i..i + 3 + end]);
                missing.push(name.to_string());
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    (out, missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file cut short still gives its string pairs, nested, escaped or not; a pair
    /// whose string does not unescape is skipped.
    #[test]
    fn string_pairs_of_a_file_cut_short() {
        let text = r#"{"projects": {"/p": {"mcpServers": {"a": {"env": {"API_KEY": "k\u0041y9", "N": "x\"q"}, "bad": "\uZZZZ"}}}, "cut": "#;
        assert_eq!(
            string_pairs_in(text),
            vec![
                ("API_KEY".to_string(), "kAy9".to_string()),
                ("N".to_string(), "x\"q".to_string()),
            ]
        );
        let text = r#"{"a": {"args": ["--api-key", "Arg9x"], "env": {"K": "${V}"}}, "b": ["x""#;
        assert_eq!(
            string_pairs_in(text),
            vec![
                ("args".to_string(), "--api-key".to_string()),
                ("args".to_string(), "Arg9x".to_string()),
                ("K".to_string(), "${V}".to_string()),
                ("b".to_string(), "x".to_string()),
            ]
        );
    }

    /// A git index (SHA-1) of `version` listing `paths` (in order), then `extensions`
    /// and a zero checksum (as `index.skipHash` writes it).
    fn index_of(version: u32, paths: &[&str], extensions: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
        let mut b = b"DIRC".to_vec();
        b.extend(version.to_be_bytes());
        b.extend((paths.len() as u32).to_be_bytes());
        let mut prev = "";
        for p in paths {
            let start = b.len();
            b.extend([0u8; 60]);
            b.extend((p.len().min(0xfff) as u16).to_be_bytes());
            if version >= 4 {
                let common = prev
                    .bytes()
                    .zip(p.bytes())
                    .take_while(|(a, c)| a == c)
                    .count();
                assert!(prev.len() - common < 0x80, "a one-byte varint");
                b.push((prev.len() - common) as u8);
                b.extend(&p.as_bytes()[common..]);
                b.push(0);
            } else {
                b.extend(p.as_bytes());
                b.push(0);
                while !(b.len() - start).is_multiple_of(8) {
                    b.push(0);
                }
            }
            prev = p;
        }
        for (sig, data) in extensions {
            b.extend(*sig);
            b.extend((data.len() as u32).to_be_bytes());
            b.extend(*data);
        }
        b.extend([0u8; 20]);
        b
    }

    const LOCAL: &str = ".claude/settings.local.json";

    #[allow(clippy::disallowed_methods)] // writes its own test files
    fn lists(bytes: &[u8], paths: &[&str]) -> Result<Vec<bool>, String> {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("index");
        std::fs::write(&f, bytes).unwrap();
        index_lists(&f, paths)
    }

    #[test]
    fn a_git_index_lists_a_path_only_as_a_whole_entry() {
        let other = format!("sub/{LOCAL}");
        for version in [2, 3, 4] {
            let index = index_of(version, &[".mcp.json", LOCAL, "sub/x"], &[]);
            assert_eq!(
                lists(&index, &[LOCAL, ".mcp.json", "sub"]),
                Ok(vec![true, true, false]),
                "version {version}"
            );
            // another folder's file of that name is not this one
            let index = index_of(version, &[".mcp.json", &other], &[]);
            assert_eq!(
                lists(&index, &[LOCAL, ".mcp.json"]),
                Ok(vec![false, true]),
                "version {version}"
            );
        }
        // a sparse index's folder entry lists what is under it
        let index = index_of(3, &[".claude/", ".mcp.json"], &[(b"sdir", b"")]);
        assert_eq!(lists(&index, &[LOCAL]), Ok(vec![true]));
        // optional extensions are skipped, a split index is not read, nor an unknown
        // required extension
        let index = index_of(2, &[".mcp.json"], &[(b"TREE", b"abc"), (b"UNTR", b"")]);
        assert_eq!(lists(&index, &[LOCAL, ".mcp.json"]), Ok(vec![false, true]));
        let split = index_of(2, &[".mcp.json"], &[(b"link", &[0u8; 20])]);
        assert!(lists(&split, &[LOCAL]).unwrap_err().contains("split index"));
        let unknown = index_of(2, &[".mcp.json"], &[(b"zzzz", b"")]);
        assert!(
            lists(&unknown, &[LOCAL])
                .unwrap_err()
                .contains("extension \"zzzz\"")
        );
    }

    /// A repository decides what is read through a folder it tracks as a symbolic link
    /// (`.claude -> cfg`, `cfg/settings.local.json` committed), and a case-insensitive file
    /// system reads another case as the same file: either lists the local file (its
    /// approval then does not count). Never so for `.mcp.json`, whose listing lets one
    /// count.
    #[test]
    fn a_tracked_link_or_another_case_lists_the_local_file() {
        for version in [2, 3, 4] {
            for entry in [
                ".claude",
                ".Claude",
                ".CLAUDE/settings.local.json",
                ".claude/SETTINGS.LOCAL.JSON",
            ] {
                let index = index_of(
                    version,
                    &[entry, ".mcp.json", "cfg/settings.local.json"],
                    &[],
                );
                assert_eq!(
                    lists(&index, &[LOCAL, ".mcp.json"]),
                    Ok(vec![true, true]),
                    "version {version}: {entry}"
                );
            }
            // a folder of the same name's prefix is not one of its folders
            let index = index_of(version, &[".claudex", ".mcp.json"], &[]);
            assert_eq!(lists(&index, &[LOCAL, ".mcp.json"]), Ok(vec![false, true]));
            // `.mcp.json` only as itself
            let index = index_of(version, &[".MCP.JSON"], &[]);
            assert_eq!(lists(&index, &[LOCAL, ".mcp.json"]), Ok(vec![false, false]));
        }
    }

    /// A version 4 path keeps its predecessor's prefix: one growing past the bound
    /// entry by entry is refused (a crafted index held twice its size in memory).
    #[test]
    fn a_version_4_path_is_bounded_as_a_whole() {
        let long = "a".repeat(MAX_INDEX_PATH - 10);
        let longer = format!("{long}{}", "b".repeat(20));
        let index = index_of(4, &[&long, &longer], &[]);
        assert!(lists(&index, &[LOCAL]).is_err());
        // within the bound, read
        let index = index_of(4, &[&long, &format!("{long}b")], &[]);
        assert_eq!(lists(&index, &[LOCAL]), Ok(vec![false]));
    }

    /// What cannot be read as a whole index says nothing (not "not tracked").
    #[test]
    fn an_index_that_cannot_be_read_whole_says_nothing() {
        let good = index_of(2, &[".mcp.json"], &[]);
        for (bytes, why) in [
            (b"not an index".to_vec(), "is not a git index"),
            (Vec::new(), "is not a git index mcplogs can read"),
            (
                good[..good.len() - 1].to_vec(),
                "is not a git index mcplogs can read",
            ),
            (
                [&good[..], b"x"].concat(),
                "is not a git index mcplogs can read",
            ),
            ([&b"DIRC\0\0\0\x05"[..], &good[8..]].concat(), "version 5"),
            (
                [&b"DIRC\0\0\0\x02\xff\xff\xff\xff"[..], &good[12..]].concat(),
                "is not a git index mcplogs can read",
            ),
        ] {
            let got = lists(&bytes, &[LOCAL]);
            assert!(
                got.as_ref().is_err_and(|e| e.contains(why)),
                "{why}: {got:?}"
            );
        }
    }

    /// The index's kind and size are checked before it is opened: a FIFO does not hang,
    /// a file over the bound is not read.
    #[test]
    #[allow(clippy::disallowed_methods)] // makes its own test files
    fn an_index_is_checked_before_it_is_read() {
        let tmp = tempfile::tempdir().unwrap();
        let big = tmp.path().join("big");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_GIT_INDEX + 1)
            .unwrap();
        assert!(
            index_lists(&big, &[LOCAL])
                .unwrap_err()
                .contains("larger than")
        );
        assert!(
            index_lists(tmp.path(), &[LOCAL])
                .unwrap_err()
                .contains("is a folder")
        );
        assert!(
            index_lists(&tmp.path().join("none"), &[LOCAL])
                .unwrap_err()
                .contains("does not exist")
        );
        #[cfg(unix)]
        {
            let fifo = tmp.path().join("fifo");
            let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            // SAFETY: a valid NUL-terminated path
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            assert!(index_lists(&fifo, &[LOCAL]).unwrap_err().contains("FIFO"));
        }
    }

    /// `resolve` reads the global configuration as it is at each call (a caller that
    /// resolves many projects reads it once, as a `GlobalConfig`): rewritten in place,
    /// replaced by a rename or removed, the next resolution sees it.
    #[test]
    #[allow(clippy::disallowed_methods)] // writes its own test files
    fn the_global_configuration_is_read_again_once_it_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let global = tmp.path().join(".claude.json");
        let project = tmp.path().join("p");
        std::fs::create_dir_all(&project).unwrap();
        let names = || -> Vec<String> {
            let mut n: Vec<String> = resolve(Some(&global), &project, &|_| None)
                .servers
                .into_iter()
                .map(|s| s.name)
                .collect();
            n.sort();
            n
        };
        let write = |names: &[&str]| {
            let servers: serde_json::Map<String, Value> = names
                .iter()
                .map(|n| (n.to_string(), serde_json::json!({"command": "x"})))
                .collect();
            serde_json::json!({ "mcpServers": servers }).to_string()
        };
        std::fs::write(&global, write(&["one"])).unwrap();
        assert_eq!(names(), ["one"]);
        assert_eq!(names(), ["one"]);
        std::fs::write(&global, write(&["one", "two"])).unwrap();
        assert_eq!(names(), ["one", "two"]);
        let next = tmp.path().join("next.json");
        std::fs::write(&next, write(&["three", "four"])).unwrap();
        std::fs::rename(&next, &global).unwrap();
        assert_eq!(names(), ["four", "three"]);
        std::fs::remove_file(&global).unwrap();
        assert!(names().is_empty());
    }

    #[test]
    fn npx_without_cmd_is_flagged_only_in_a_windows_configuration() {
        for c in [
            "npx",
            "NPX",
            "npx.cmd",
            "C:\\Program Files\\nodejs\\npx.cmd",
            "/usr/bin/npx",
        ] {
            assert!(runs_npx_directly(c), "{c}");
        }
        for c in ["cmd", "npx-run", "node", ""] {
            assert!(!runs_npx_directly(c), "{c}");
        }
        let linux = Path::new("/home/me/.claude.json");
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(is_windows_config(
            linux,
            "npx",
            &args(&["-y", "C:\\Users\\me"])
        ));
        assert!(is_windows_config(linux, "npx", &args(&["d:/data"])));
        assert!(is_windows_config(linux, "\\\\host\\share\\npx", &[]));
        assert!(is_windows_config(
            Path::new("C:\\Users\\me\\.claude.json"),
            "npx",
            &[]
        ));
        assert_eq!(
            is_windows_config(linux, "npx", &args(&["-y", "pkg", "a:b"])),
            cfg!(windows)
        );
    }

    #[test]
    fn a_url_only_server_is_named_by_its_host_and_path() {
        let n = |u: &str| name_of_url(u);
        assert_eq!(n("http://127.0.0.1:8080/mcp"), "127.0.0.1:8080/mcp");
        assert_eq!(
            n("https://api.example.com/v1/mcp/"),
            "api.example.com/v1/mcp"
        );
        assert_eq!(n("https://example.com"), "example.com");
        // credentials in the user information, the query or the fragment stay out
        assert_eq!(
            n("https://user:pw@h.example/mcp?token=abc#frag"),
            "h.example/mcp"
        );
        assert_eq!(n("http:///"), "server");
        let c = ServerConfig::from_url("http://h:1/sse", &[], TransportKind::Sse).unwrap();
        assert_eq!(c.name, "h:1/sse");
    }

    fn env(k: &str) -> Option<String> {
        match k {
            "TOKEN" => Some("s3cr3t".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn expansion_with_and_without_defaults() {
        assert_eq!(expand_vars("a ${TOKEN} b", &env).0, "a s3cr3t b");
        assert_eq!(expand_vars("${NOPE:-x:y}", &env).0, "x:y");
        assert_eq!(expand_vars("${EMPTY:-d}", &env).0, "");
        let (t, m) = expand_vars("pre ${NOPE} post ${TOKEN", &env);
        assert_eq!(t, "pre ${NOPE} post ${TOKEN");
        assert_eq!(m, vec!["NOPE".to_string()]);
    }

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(
            split_words(r#"node "my server.js" --x='a b' c\ d"#).unwrap(),
            vec!["node", "my server.js", "--x=a b", "c d"]
        );
        assert!(split_words("node 'open").is_err());
    }

    #[test]
    fn scopes_and_precedence() {
        let dir = tempfile::tempdir().unwrap();
        let proj = dir.path().join("proj");
        std::fs::create_dir_all(&proj).unwrap();
        let global = dir.path().join(".claude.json");
        let key = proj.to_string_lossy().to_string();
        std::fs::write(
            &global,
            serde_json::json!({
                "mcpServers": {"a": {"command": "user-a"}, "u": {"type": "http", "url": "${URL:-http://x/mcp}", "headers": {"Authorization": "Bearer ${TOKEN}"}}},
                "projects": {key: {"mcpServers": {"a": {"command": "local-a"}}, "enabledMcpjsonServers": ["p"]}}
            })
            .to_string(),
        )
        .unwrap();
        std::fs::write(
            proj.join(".mcp.json"),
            r#"{"mcpServers":{"a":{"command":"project-a"},"p":{"command":"p","args":["${TOKEN}"]},"q":{"type":"sse","url":"http://y"}}}"#,
        )
        .unwrap();
        let r = resolve(Some(&global), &proj, &env);
        let names: Vec<(&str, Scope)> = r
            .servers
            .iter()
            .map(|s| (s.name.as_str(), s.scope))
            .collect();
        assert_eq!(
            names,
            vec![
                ("a", Scope::Local),
                ("p", Scope::Project),
                ("q", Scope::Project),
                ("u", Scope::User)
            ]
        );
        assert_eq!(r.servers[0].command, "local-a");
        assert_eq!(r.servers[1].args, vec!["s3cr3t"]);
        assert_eq!(r.servers[1].approved, Some(true));
        assert_eq!(r.servers[2].approved, Some(false));
        assert_eq!(r.servers[2].transport, TransportKind::Sse);
        assert_eq!(r.servers[3].url, "http://x/mcp");
        assert_eq!(r.servers[3].headers["Authorization"], "Bearer s3cr3t");
    }

    fn stdio(name: &str, command: &str, args: &[&str]) -> ServerConfig {
        let mut c = ServerConfig::from_command(command, &[]).unwrap();
        c.name = name.into();
        c.args = args.iter().map(|a| a.to_string()).collect();
        c
    }

    fn remote(name: &str, url: &str) -> ServerConfig {
        let mut c = ServerConfig::from_url(url, &[], TransportKind::Http).unwrap();
        c.name = name.into();
        c
    }

    /// The allow list's forms as both builds apply them (cases `managed-allow-command`,
    /// `managed-allow-url`): a `serverCommand` entry makes stdio servers answer by
    /// command only, a `serverUrl` entry remote servers by URL only.
    #[test]
    fn an_allow_list_admits_by_command_or_url_once_it_has_such_entries() {
        let cmd: Vec<Value> = serde_json::from_str(
            r#"[{"serverName":"by-name"},{"serverName":"web"},{"serverCommand":["python3","s.py","--name","ok"]}]"#,
        )
        .unwrap();
        assert!(allowed_by(
            &cmd,
            &stdio("ok", "python3", &["s.py", "--name", "ok"])
        ));
        assert!(!allowed_by(&cmd, &stdio("by-name", "python3", &["s.py"])));
        assert!(!allowed_by(
            &cmd,
            &stdio("other", "python3", &["s.py", "--name", "ok", "x"])
        ));
        assert!(allowed_by(&cmd, &remote("web", "http://h/mcp")));
        assert!(!allowed_by(&cmd, &remote("elsewhere", "http://h/mcp")));
        let url: Vec<Value> = serde_json::from_str(
            r#"[{"serverName":"by-name"},{"serverName":"web"},{"serverUrl":"http://h:1/allowed/*"}]"#,
        )
        .unwrap();
        assert!(allowed_by(&url, &remote("x", "http://h:1/allowed/mcp")));
        assert!(!allowed_by(&url, &remote("web", "http://h:1/name/mcp")));
        assert!(allowed_by(&url, &stdio("by-name", "python3", &[])));
        assert!(!allowed_by(&[], &stdio("by-name", "python3", &[])));
    }

    #[test]
    fn a_deny_url_pattern_also_matches_the_url_with_a_trailing_slash() {
        let exact = serde_json::json!({"serverUrl": "http://h:1/exact/mcp"});
        assert!(policy_entry_matches(
            &exact,
            &remote("a", "http://h:1/exact/mcp"),
            true
        ));
        assert!(policy_entry_matches(
            &exact,
            &remote("a", "http://h:1/exact/mcp/"),
            true
        ));
        assert!(!policy_entry_matches(
            &exact,
            &remote("a", "http://h:1/exact/mcp/"),
            false
        ));
        assert!(!policy_entry_matches(
            &exact,
            &remote("a", "http://h:1/exact/mcpx"),
            true
        ));
        let star = serde_json::json!({"serverUrl": "http://127.0.0.1:*/denied/*"});
        assert!(policy_entry_matches(
            &star,
            &remote("a", "http://127.0.0.1:42999/denied/mcp"),
            true
        ));
        assert!(!policy_entry_matches(
            &star,
            &remote("a", "http://127.0.0.1:42999/ok/mcp"),
            true
        ));
        let cmd = serde_json::json!({"serverCommand": ["python3", "s.py"]});
        assert!(policy_entry_matches(
            &cmd,
            &stdio("a", "python3", &["s.py"]),
            true
        ));
        assert!(!policy_entry_matches(
            &cmd,
            &stdio("a", "python3", &["s.py", "x"]),
            true
        ));
    }

    #[test]
    fn a_broken_file_is_a_problem_not_a_stop() {
        let dir = tempfile::tempdir().unwrap();
        let global = dir.path().join(".claude.json");
        std::fs::write(&global, "{ nope").unwrap();
        std::fs::write(
            dir.path().join(".mcp.json"),
            r#"{"mcpServers":{"p":{"command":"p"}}}"#,
        )
        .unwrap();
        let r = resolve(Some(&global), dir.path(), &env);
        assert_eq!(r.problems.len(), 1);
        assert_eq!(r.servers.len(), 1);
    }

    /// A FIFO as `.mcp.json` (or `~/.claude.json`) is a problem named in one line, and
    /// nothing blocks on it.
    #[cfg(unix)]
    #[test]
    fn a_fifo_as_a_config_file_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join(".mcp.json");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid, NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let r = resolve(None, dir.path(), &env);
        assert_eq!(r.problems.len(), 1);
        assert!(matches!(
            r.problems[0].error,
            ConfigFileError::Read(ReadError::NotRegular { .. })
        ));
        assert_eq!(
            r.problems[0].to_string(),
            format!(
                "{}: not a regular file but a FIFO (named pipe)",
                fifo.display()
            )
        );
    }
}
