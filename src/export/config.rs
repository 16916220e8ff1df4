//! Where and how `mcplogs export` sends: the standard OpenTelemetry exporter variables
//! (`OTEL_EXPORTER_OTLP_*`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SERVICE_NAME`), Claude
//! Code's `OTEL_LOG_TOOL_DETAILS`, and mcplogs' own `MCPLOGS_EXPORT_KEY` and
//! `MCPLOGS_EXPORT_DISABLED`, read from the settings `env` blocks Claude Code reads and
//! the environment ([`read_layers`]), and decided by [`resolve_layers`]:
//!
//! - the exporter's variables ([`EXPORTER_VARIABLES`]: where records go, with which
//!   headers, in which protocol, holding what) are one unit, taken whole from the one
//!   layer, highest first, that sets any of them: managed settings, then the user's
//!   settings, then the environment (Claude Code's order). A lower layer's value is not
//!   mixed in, so the logs-specific endpoint of a lower layer never beats the general
//!   endpoint of a higher one, and a token set for one collector never goes to another;
//! - a project's settings (`.claude/settings.json`, `.claude/settings.local.json`) are
//!   never read for export: whoever wrote a cloned repository must not redirect the
//!   records of every project, add headers, or turn details on. What they set is
//!   reported ([`Ignored`]), and so is an environment value equal to a project's: Claude
//!   Code passes a project's `env` on to the hooks it runs, `export --detach` among them
//!   (all but the `OTEL_*` variables, which it removes from a hook's environment
//!   whatever set them; observed, docs/claude-code.md).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::settings::env::{env_keys_in_file, env_keys_in_file_or_unknown};
use crate::settings::layers::{LayerKind, Sources};

/// The exporter's variables: one unit, from one layer ([`resolve_layers`]). Every
/// variable that says where records go or what they hold is here.
pub const EXPORTER_VARIABLES: [&str; 11] = [
    "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_LOGS_TIMEOUT",
    "OTEL_EXPORTER_OTLP_TIMEOUT",
    "OTEL_RESOURCE_ATTRIBUTES",
    "OTEL_SERVICE_NAME",
    "OTEL_LOG_TOOL_DETAILS",
];

/// Every variable export reads, in the order docs/export.md lists them: the exporter's,
/// then mcplogs' own two.
pub const VARIABLES: [&str; 13] = {
    let mut out = [KEY_VARIABLE; 13];
    let mut i = 0;
    while i < EXPORTER_VARIABLES.len() {
        out[i] = EXPORTER_VARIABLES[i];
        i += 1;
    }
    out[12] = DISABLED_VARIABLE;
    out
};

/// The admin's key for the hashes that stand for names (docs/export.md).
pub const KEY_VARIABLE: &str = "MCPLOGS_EXPORT_KEY";

/// The admin's switch that turns export off.
pub const DISABLED_VARIABLE: &str = "MCPLOGS_EXPORT_DISABLED";

/// The time limit when none is set: a few seconds, so a collector that is down or
/// slow never holds up the session that ran the hook. (The OpenTelemetry default of
/// 10 s is meant for a process that exports in the background.)
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// The shortest admin key accepted: shorter ones are guessable.
pub const MIN_KEY_BYTES: usize = 16;

/// OTLP over HTTP: protobuf or JSON bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Protobuf,
    Json,
}

impl Protocol {
    pub fn content_type(self) -> &'static str {
        match self {
            Protocol::Protobuf => "application/x-protobuf",
            Protocol::Json => "application/json",
        }
    }
}

/// What the variables say, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportConfig {
    /// The full URL records are POSTed to; `None` when no endpoint variable is set.
    pub endpoint: Option<String>,
    /// Extra request headers (an `Authorization` or API key): never shown.
    pub headers: Vec<(String, String)>,
    pub protocol: Protocol,
    pub timeout: Duration,
    /// The resource's attributes (`service.name` and `service.version` included).
    pub resource: BTreeMap<String, String>,
    /// `OTEL_LOG_TOOL_DETAILS=1`: names, paths and error text are sent.
    pub details: bool,
    /// `MCPLOGS_EXPORT_KEY`: the fleet's key for the hashes.
    pub fleet_key: Option<String>,
    /// `MCPLOGS_EXPORT_DISABLED=1`: the admin turned export off (the hook does nothing).
    pub disabled: bool,
}

impl ExportConfig {
    /// A redactor that knows this configuration's secrets: every header value (each is
    /// a credential, whatever its name: an `Authorization` value and its bare token
    /// after `Bearer `, an API key) and the endpoint's own (a password in the URL, a
    /// token in its query), with the usual secret rules. Every text a collector returns
    /// goes through it before it is shown or kept.
    pub fn redactor(&self) -> crate::redact::Redactor {
        let mut b = crate::redact::RedactorBuilder::new();
        for (_, value) in &self.headers {
            // Learned as an `Authorization` value is: the name of an OTLP header says
            // nothing (`x-honeycomb-team`, `DD-API-KEY`, `signoz-access-token`...).
            b.learn_configured("Authorization", value);
        }
        if let Some(url) = &self.endpoint {
            b.learn_secrets(url);
        }
        b.build()
    }
}

/// A variable that cannot be used. Its value is never quoted (headers hold tokens).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{var} is not an http:// or https:// URL")]
    BadEndpoint { var: &'static str },
    #[error(
        "{var} asks for {protocol:?}: mcplogs sends OTLP over HTTP only (http/protobuf or http/json); set OTEL_EXPORTER_OTLP_LOGS_PROTOCOL and an HTTP endpoint (port 4318) for it"
    )]
    Protocol { var: &'static str, protocol: String },
    #[error("{var}: entry {entry} is not key=value")]
    BadPair { var: &'static str, entry: usize },
    #[error("{var} is not a whole number of milliseconds")]
    BadTimeout { var: &'static str },
    #[error(
        "{KEY_VARIABLE} is shorter than {MIN_KEY_BYTES} bytes: a short key lets anyone guess the names behind the hashes"
    )]
    ShortKey,
}

/// Where a layer's values come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub kind: LayerKind,
    /// `None` for the environment.
    pub path: Option<PathBuf>,
}

impl Origin {
    /// A project's settings file: `.claude/settings.json` or `.claude/settings.local.json`.
    pub fn is_project(&self) -> bool {
        is_project_layer(self.kind)
    }
}

/// A project's layer ([`Origin::is_project`]): what export never reads, and what may
/// have set the environment a hook runs in.
fn is_project_layer(kind: LayerKind) -> bool {
    matches!(kind, LayerKind::Project | LayerKind::Local)
}

/// `user settings /home/u/.claude/settings.json`, `the environment`.
impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            LayerKind::ManagedDropIn | LayerKind::Managed => "managed settings",
            LayerKind::Local => "local project settings",
            LayerKind::Project => "project settings",
            LayerKind::User => "user settings",
            LayerKind::Environment => return f.write_str("the environment"),
        };
        match &self.path {
            Some(p) => write!(f, "{kind} {}", p.display()),
            None => f.write_str(kind),
        }
    }
}

/// What one layer sets of [`VARIABLES`] (empty values left out: they set nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerValues {
    pub origin: Origin,
    pub values: Vec<(&'static str, String)>,
    /// A project's file mcplogs cannot read in full, and why: what it sets is unknown
    /// ([`crate::settings::env::env_keys_in_file_or_unknown`]).
    pub unread: Option<String>,
}

impl LayerValues {
    fn get(&self, key: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }

    fn sets_exporter(&self) -> bool {
        self.values
            .iter()
            .any(|(k, _)| EXPORTER_VARIABLES.contains(k))
    }
}

/// Every layer's values of [`VARIABLES`], highest precedence first (managed, local,
/// project, user), then the project files of `other_projects` (the folder Claude Code
/// names a hook's project, `CLAUDE_PROJECT_DIR`, when it is not the current one), the
/// environment last; each file read once, as Claude Code reads it (strict JSON, through
/// symlinks). A project's file that is the user's own settings file (a project opened
/// in the home folder) is the user's: it is read as that only.
pub fn read_layers(
    sources: &Sources,
    other_projects: &[PathBuf],
    environment: &dyn Fn(&str) -> Option<String>,
) -> Vec<LayerValues> {
    let mut files = sources.files();
    for dir in other_projects
        .iter()
        .filter(|d| !same_file(d, &sources.project_dir))
    {
        let other = Sources {
            project_dir: dir.clone(),
            ..sources.clone()
        };
        files.extend(
            other
                .files()
                .into_iter()
                .filter(|(k, _)| is_project_layer(*k)),
        );
    }
    let user_file = files
        .iter()
        .find(|(k, _)| *k == LayerKind::User)
        .map(|(_, p)| p.clone());
    let mut out: Vec<LayerValues> = files
        .into_iter()
        .filter(|(kind, path)| {
            let project = is_project_layer(*kind);
            !(project && user_file.as_deref().is_some_and(|u| same_file(u, path)))
        })
        .map(|(kind, path)| {
            // a project's file read to fail closed: one mcplogs cannot read may set
            // anything the environment holds (helper-92 #1)
            let (values, unread) = if is_project_layer(kind) {
                match env_keys_in_file_or_unknown(&path, &VARIABLES) {
                    Ok(v) => (v, None),
                    Err(why) => (Vec::new(), Some(why)),
                }
            } else {
                (env_keys_in_file(&path, &VARIABLES), None)
            };
            LayerValues {
                values: values
                    .into_iter()
                    .filter(|(_, v)| !v.trim().is_empty())
                    .collect(),
                origin: Origin {
                    kind,
                    path: Some(path),
                },
                unread,
            }
        })
        .collect();
    out.push(LayerValues {
        origin: Origin {
            kind: LayerKind::Environment,
            path: None,
        },
        values: VARIABLES
            .iter()
            .filter_map(|k| Some((*k, environment(k).filter(|v| !v.trim().is_empty())?)))
            .collect(),
        unread: None,
    });
    out
}

/// The variables Claude Code sets for the hooks it runs (observed: docs/claude-code.md):
/// the hook's own, never a project's to drop.
pub const HOOK_VARIABLES: [&str; 3] =
    ["CLAUDE_PROJECT_DIR", "CLAUDE_CODE_SESSION_ID", "CLAUDECODE"];

/// Variables outside [`VARIABLES`] that decide where export looks and how it connects:
/// the home and Claude Code's configuration folder (where the user's settings are),
/// mcplogs' cache (the key and the ledger), the proxies, the certificates trusted and
/// the C library's resolver (`LOCALDOMAIN`, `RES_OPTIONS`, `HOSTALIASES`: which address
/// the collector's name resolves to; a repository's `LOCALDOMAIN` with `ndots` sent the
/// token to its own name server's answer: helper-100 #1). When a project's settings set
/// one of them, a hook's environment carries it ([`passed_from_projects`]); export then
/// drops it and says so (and drops, without a word, any other variable a project set:
/// export reads none of them, and a library might).
pub const CONNECTION_VARIABLES: [&str; 21] = [
    "HOME",
    "USERPROFILE",
    "CLAUDE_CONFIG_DIR",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "MCPLOGS_CACHE_DIR",
    "LOCALAPPDATA",
    "APPDATA",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "LOCALDOMAIN",
    "RES_OPTIONS",
    "HOSTALIASES",
];

/// The [`CONNECTION_VARIABLES`] of `environment` (name, value) that a project's settings
/// `env` set to the same value ([`VARIABLES`] are [`resolve_layers`]'s to name and
/// ignore): Claude Code passes a project's `env` on to the hooks it runs (observed,
/// docs/claude-code.md), so in a hook they are the repository's choice, not the
/// user's. The projects are `project_dirs` (the current folder, and the one a hook's
/// `CLAUDE_PROJECT_DIR` names), their `.claude/settings.json` and
/// `.claude/settings.local.json`, read as Claude Code reads them; a project file that
/// is the user's own settings file (a project in the home folder) is not a project's.
///
/// Which file is the user's own is decided by the home and configuration folder no
/// project set: a repository that sets `CLAUDE_CONFIG_DIR` (`.claude`, relative) or
/// `HOME` would otherwise make its own settings file "the user's", and nothing it sets
/// would be dropped, its proxy seeing the fleet's token (helper-96 #1, #2). So every
/// project file is read first as a project's; when one of them set the home or the
/// configuration folder, the user's file is the one the rest of the environment names
/// (the home's `.claude/settings.json`), or none.
pub fn passed_from_projects(
    sources: &Sources,
    project_dirs: &[PathBuf],
    environment: &[(String, String)],
) -> Passed {
    let set = |k: &str| {
        environment
            .iter()
            .find(|(ek, v)| ek == k && !v.trim().is_empty())
            .map(|(_, v)| v.trim())
    };
    // Every project file, read once, each with what it set.
    let read: Vec<(PathBuf, Passed)> = project_dirs
        .iter()
        .flat_map(|dir| {
            Sources {
                project_dir: dir.clone(),
                ..sources.clone()
            }
            .files()
        })
        .filter(|(k, _)| is_project_layer(*k))
        .map(|(_, f)| {
            let passed = passed_in_file(&f, environment);
            (f, passed)
        })
        .collect();
    let mut first = Passed::default();
    for (_, p) in &read {
        first.absorb(p);
    }
    // A configuration folder a project set is the project's too: the settings file in
    // it, which Claude Code would read as the user's, may have set the rest
    // (helper-98 F9; not observed, the safe side).
    let theirs = first
        .has("CLAUDE_CONFIG_DIR")
        .then(|| set("CLAUDE_CONFIG_DIR"))
        .flatten()
        .map(|d| passed_in_file(&PathBuf::from(d).join("settings.json"), environment));
    if let Some(t) = &theirs {
        first.absorb(t);
    }
    let homes = ["HOME", "USERPROFILE"];
    let user_file = if homes.iter().any(|k| first.has(k)) {
        None
    } else if first.has("CLAUDE_CONFIG_DIR") {
        // the home the environment names (no project set it)
        let home = homes.iter().find_map(|h| set(h)).map(PathBuf::from);
        crate::claude_code::paths::user_settings_file(home.as_deref(), &|_| None)
    } else {
        sources
            .files()
            .into_iter()
            .find(|(k, _)| *k == LayerKind::User)
            .map(|(_, p)| p)
    };
    let Some(user_file) = user_file else {
        return first;
    };
    let mut passed = Passed::default();
    for (_, p) in read.iter().filter(|(f, _)| !same_file(&user_file, f)) {
        passed.absorb(p);
    }
    if let Some(t) = &theirs {
        passed.absorb(t);
    }
    passed
}

/// The variables of `environment` a project's settings `file` sets to the same value,
/// or may set (a file that cannot be read in full: every connection variable).
fn passed_in_file(file: &Path, environment: &[(String, String)]) -> Passed {
    // ([`VARIABLES`] are [`resolve_layers`]'s, which names them as it ignores them; the
    // variables Claude Code sets for the hook itself are its, whatever a project's
    // settings say: dropping `CLAUDE_PROJECT_DIR` hid the project's own settings from
    // export, and its endpoint took the fleet's token, helper-105 #1)
    let all: Vec<&str> = environment
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !VARIABLES.contains(k) && !HOOK_VARIABLES.contains(k))
        .collect();
    let names: Vec<&str> = all
        .iter()
        .copied()
        .filter(|k| CONNECTION_VARIABLES.contains(k))
        .collect();
    let mut passed = Passed::default();
    match env_keys_in_file_or_unknown(file, &all) {
        Ok(set) => {
            for (k, v) in set {
                let same = environment
                    .iter()
                    .any(|(ek, ev)| ek == k && ev.trim() == v.trim());
                if same {
                    passed.add(k);
                }
            }
        }
        // fail closed: what it sets is unknown, so each may be its value
        Err(why) if !names.is_empty() => {
            for k in &names {
                passed.add(k);
            }
            passed.unread.push((file.to_path_buf(), why));
        }
        Err(_) => {}
    }
    passed
}

/// The variables of the environment a project's settings may have set
/// ([`passed_from_projects`]).
#[derive(Debug, Default, PartialEq)]
pub struct Passed {
    /// Each variable once: the [`CONNECTION_VARIABLES`] and any other a project set to
    /// the same value.
    pub keys: Vec<String>,
    /// The project settings files mcplogs could not read in full, and why: every
    /// variable of the environment is taken as theirs.
    pub unread: Vec<(PathBuf, String)>,
}

impl Passed {
    /// What `export` says when it drops them, `None` when there are none: the
    /// [`CONNECTION_VARIABLES`] are named (the others change nothing export does).
    pub fn warning(&self) -> Option<String> {
        // (in the list's order: the environment's is the platform's)
        let named: Vec<&str> = CONNECTION_VARIABLES
            .into_iter()
            .filter(|k| self.has(k))
            .collect();
        if named.is_empty() {
            return None;
        }
        let keys = named.join(", ");
        Some(match &self.unread[..] {
            [] => format!(
                "export ignores {keys} in the environment: {} a project's settings set, which Claude Code passes on to the hooks it runs; export runs without {}",
                if named.len() == 1 {
                    "the value"
                } else {
                    "values"
                },
                if named.len() == 1 { "it" } else { "them" }
            ),
            unread => format!(
                "export ignores {keys} in the environment: {} may set them (mcplogs cannot read {}), and Claude Code passes a project's settings on to the hooks it runs; export runs without them",
                unread
                    .iter()
                    .map(|(p, why)| format!(
                        "{} ({why})",
                        crate::text::sanitize::text(&p.display().to_string())
                    ))
                    .collect::<Vec<_>>()
                    .join(", "),
                if unread.len() == 1 { "it" } else { "them" }
            ),
        })
    }

    fn add(&mut self, k: &str) {
        if !self.keys.iter().any(|p| p == k) {
            self.keys.push(k.to_string());
        }
    }

    /// What `other` found too.
    fn absorb(&mut self, other: &Passed) {
        for k in &other.keys {
            self.add(k);
        }
        self.unread.extend(other.unread.iter().cloned());
    }

    fn has(&self, k: &str) -> bool {
        self.keys.iter().any(|p| p == k)
    }
}

/// The same file: the same path, or both resolve to one.
fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

/// Why a layer's variables were not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IgnoredWhy {
    /// A project's settings file: never read for export.
    Project,
    /// An environment value equal to a project file's value of the same variable:
    /// Claude Code passes a project's `env` on to a hook, so it is the project's.
    FromProject,
    /// An environment value while a project's settings file (the origin) cannot be
    /// read in full (why): it may be the project's.
    FromUnreadProject(String),
    /// A lower layer's exporter variables: a higher layer sets the exporter.
    Lower,
}

/// Variables a layer sets that export does not use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    pub origin: Origin,
    pub keys: Vec<&'static str>,
    pub why: IgnoredWhy,
}

impl Ignored {
    /// Whether a person is told on every run ([`IgnoredWhy::Lower`] is the ordinary
    /// precedence, shown by `--dry-run` only).
    pub fn is_warning(&self) -> bool {
        self.why != IgnoredWhy::Lower
    }
}

/// `export ignores OTEL_LOG_TOOL_DETAILS in project settings /p/.claude/settings.json: ...`
impl fmt::Display for Ignored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keys = self.keys.join(", ");
        match &self.why {
            IgnoredWhy::Project => write!(
                f,
                "export ignores {keys} in {}: a project's settings never choose where export sends, its headers or what it sends (set them in managed settings, the user's settings or the environment)",
                self.origin
            ),
            IgnoredWhy::FromProject => write!(
                f,
                "export ignores {keys} in the environment: the value a project's settings set, which Claude Code passes on to the hooks it runs"
            ),
            IgnoredWhy::FromUnreadProject(why) => write!(
                f,
                "export ignores {keys} in the environment: {} may set them (mcplogs cannot read it: {why}), and Claude Code passes a project's settings on to the hooks it runs",
                self.origin
            ),
            IgnoredWhy::Lower => write!(
                f,
                "{keys} in {} not used: export takes all its OTEL_* variables from one place, the highest that sets any",
                self.origin
            ),
        }
    }
}

/// What the layers decide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    pub config: Result<ExportConfig, ConfigError>,
    /// The layer the exporter's variables came from; `None` when no layer export reads
    /// sets any.
    pub source: Option<Origin>,
    /// What was not used, and why, in precedence order.
    pub ignored: Vec<Ignored>,
}

/// Decides the configuration from every layer's values ([`read_layers`]), as the
/// module documentation says: the exporter's variables from the highest layer that
/// sets any of them, among managed, user and environment; [`KEY_VARIABLE`] and
/// [`DISABLED_VARIABLE`] each from the highest of those that sets it; a project's
/// files never.
pub fn resolve_layers(layers: &[LayerValues]) -> Resolution {
    let mut ignored = Vec::new();
    let project_values: Vec<(&'static str, &str)> = layers
        .iter()
        .filter(|l| l.origin.is_project())
        .flat_map(|l| l.values.iter().map(|(k, v)| (*k, v.as_str())))
        .collect();
    // a project's file mcplogs cannot read: the environment may hold any of its values
    let unread = layers
        .iter()
        .find(|l| l.origin.is_project() && l.unread.is_some());
    let mut trusted: Vec<LayerValues> = Vec::new();
    for layer in layers {
        if layer.origin.is_project() {
            if !layer.values.is_empty() {
                ignored.push(Ignored {
                    origin: layer.origin.clone(),
                    keys: layer.values.iter().map(|(k, _)| *k).collect(),
                    why: IgnoredWhy::Project,
                });
            }
            continue;
        }
        let mut layer = layer.clone();
        if layer.origin.kind == LayerKind::Environment {
            let (copied, own): (Vec<_>, Vec<_>) = layer.values.into_iter().partition(|(k, v)| {
                unread.is_some()
                    || project_values
                        .iter()
                        .any(|(pk, pv)| pk == k && pv.trim() == v.trim())
            });
            if !copied.is_empty() {
                ignored.push(Ignored {
                    origin: unread.map_or_else(|| layer.origin.clone(), |u| u.origin.clone()),
                    keys: copied.iter().map(|(k, _)| *k).collect(),
                    why: match unread.and_then(|u| u.unread.clone()) {
                        Some(why) => IgnoredWhy::FromUnreadProject(why),
                        None => IgnoredWhy::FromProject,
                    },
                });
            }
            layer.values = own;
        }
        trusted.push(layer);
    }
    let source = trusted.iter().position(LayerValues::sets_exporter);
    if let Some(i) = source {
        for lower in &trusted[i + 1..] {
            let keys: Vec<&'static str> = lower
                .values
                .iter()
                .map(|(k, _)| *k)
                .filter(|k| EXPORTER_VARIABLES.contains(k))
                .collect();
            if !keys.is_empty() {
                ignored.push(Ignored {
                    origin: lower.origin.clone(),
                    keys,
                    why: IgnoredWhy::Lower,
                });
            }
        }
    }
    let config = resolve(&|k| {
        if EXPORTER_VARIABLES.contains(&k) {
            source.and_then(|i| trusted[i].get(k)).map(str::to_string)
        } else {
            trusted.iter().find_map(|l| l.get(k)).map(str::to_string)
        }
    });
    Resolution {
        config,
        source: source.map(|i| trusted[i].origin.clone()),
        ignored,
    }
}

/// Resolves every variable through `var` (the values of one source: [`resolve_layers`]).
pub fn resolve(var: &dyn Fn(&str) -> Option<String>) -> Result<ExportConfig, ConfigError> {
    let get = |k: &'static str| var(k).filter(|v| !v.trim().is_empty()).map(|v| (k, v));
    let endpoint = match get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT") {
        Some((k, v)) => Some(checked_url(k, v.trim())?),
        None => match get("OTEL_EXPORTER_OTLP_ENDPOINT") {
            Some((k, v)) => {
                let base = checked_url(k, v.trim())?;
                // The path is added before a query (`?key=...`), if there is one.
                let (path, query) = match base.find('?') {
                    Some(i) => base.split_at(i),
                    None => (base.as_str(), ""),
                };
                let slash = if path.ends_with('/') { "" } else { "/" };
                Some(format!("{path}{slash}v1/logs{query}"))
            }
            None => None,
        },
    };
    let mut headers: Vec<(String, String)> = Vec::new();
    for k in [
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
    ] {
        if let Some((k, v)) = get(k) {
            for (name, value) in pairs(k, &v)? {
                headers.retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
                headers.push((name, value));
            }
        }
    }
    let protocol = match get("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL")
        .or_else(|| get("OTEL_EXPORTER_OTLP_PROTOCOL"))
    {
        None => Protocol::Protobuf,
        Some((k, v)) => match v.trim() {
            "http/protobuf" => Protocol::Protobuf,
            "http/json" => Protocol::Json,
            other => {
                return Err(ConfigError::Protocol {
                    var: k,
                    protocol: crate::text::one_line(other, 40),
                });
            }
        },
    };
    let timeout = match get("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT")
        .or_else(|| get("OTEL_EXPORTER_OTLP_TIMEOUT"))
    {
        None => DEFAULT_TIMEOUT,
        Some((k, v)) => match v.trim().parse::<u64>() {
            Ok(ms) if ms > 0 => Duration::from_millis(ms),
            _ => return Err(ConfigError::BadTimeout { var: k }),
        },
    };
    let mut resource = BTreeMap::new();
    resource.insert("service.name".to_string(), "mcplogs".to_string());
    if let Some((k, v)) = get("OTEL_RESOURCE_ATTRIBUTES") {
        resource.extend(pairs(k, &v)?);
    }
    if let Some((_, v)) = get("OTEL_SERVICE_NAME") {
        resource.insert("service.name".to_string(), v.trim().to_string());
    }
    resource.insert(
        "service.version".to_string(),
        env!("CARGO_PKG_VERSION").to_string(),
    );
    let fleet_key = get(KEY_VARIABLE).map(|(_, v)| v);
    if fleet_key.as_ref().is_some_and(|k| k.len() < MIN_KEY_BYTES) {
        return Err(ConfigError::ShortKey);
    }
    Ok(ExportConfig {
        endpoint,
        headers,
        protocol,
        timeout,
        resource,
        details: get("OTEL_LOG_TOOL_DETAILS").is_some_and(|(_, v)| is_on(&v)),
        fleet_key,
        disabled: get(DISABLED_VARIABLE).is_some_and(|(_, v)| is_on(&v)),
    })
}

/// `1` or `true` (any case), as Claude Code's switches read.
fn is_on(v: &str) -> bool {
    matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true")
}

fn checked_url(var: &'static str, v: &str) -> Result<String, ConfigError> {
    let lower = v.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"))
        .ok_or(ConfigError::BadEndpoint { var })?;
    if rest.is_empty()
        || rest.starts_with('/')
        || v.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(ConfigError::BadEndpoint { var });
    }
    Ok(v.to_string())
}

/// `key1=value1,key2=value2` (the W3C baggage form the OpenTelemetry variables use),
/// percent-decoded, keys and values trimmed. An empty entry is skipped.
fn pairs(var: &'static str, v: &str) -> Result<Vec<(String, String)>, ConfigError> {
    let mut out = Vec::new();
    for (i, entry) in v.split(',').enumerate() {
        if entry.trim().is_empty() {
            continue;
        }
        let (k, val) = entry
            .split_once('=')
            .ok_or(ConfigError::BadPair { var, entry: i + 1 })?;
        let k = percent_decode(k.trim());
        if k.is_empty() || k.chars().any(|c| c.is_control()) {
            return Err(ConfigError::BadPair { var, entry: i + 1 });
        }
        let val = percent_decode(val.trim());
        if val.chars().any(|c| c == '\r' || c == '\n' || c == '\0') {
            return Err(ConfigError::BadPair { var, entry: i + 1 });
        }
        out.push((k, val));
    }
    Ok(out)
}

fn percent_decode(s: &str) -> String {
    String::from_utf8_lossy(&crate::text::percent_decoded_bytes(s)).into_owned()
}

/// The endpoint as it may be shown: scheme, host, port and path, without a user,
/// password or query (which can hold a token).
pub fn shown_endpoint(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let host = authority.rsplit('@').next().unwrap_or_default();
    crate::text::sanitize::text(&format!("{scheme}://{host}{path}")).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve_with(vars: &[(&str, &str)]) -> Result<ExportConfig, ConfigError> {
        let m: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        resolve(&|k| m.get(k).cloned())
    }

    #[test]
    fn the_logs_endpoint_is_used_as_is_and_the_base_gets_v1_logs() {
        let c = resolve_with(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318")]).unwrap();
        assert_eq!(c.endpoint.as_deref(), Some("http://c:4318/v1/logs"));
        let c = resolve_with(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "https://c/otlp/")]).unwrap();
        assert_eq!(c.endpoint.as_deref(), Some("https://c/otlp/v1/logs"));
        let c = resolve_with(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "https://c/o?k=1")]).unwrap();
        assert_eq!(c.endpoint.as_deref(), Some("https://c/o/v1/logs?k=1"));
        let c = resolve_with(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"),
            ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://l:9/custom"),
        ])
        .unwrap();
        assert_eq!(c.endpoint.as_deref(), Some("http://l:9/custom"));
        assert_eq!(resolve_with(&[]).unwrap().endpoint, None);
        assert_eq!(
            resolve_with(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "c:4318")]),
            Err(ConfigError::BadEndpoint {
                var: "OTEL_EXPORTER_OTLP_ENDPOINT"
            })
        );
    }

    #[test]
    fn headers_decode_and_the_logs_headers_win_per_name() {
        let c = resolve_with(&[
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "Authorization=Bearer%20abc, x-a=1",
            ),
            ("OTEL_EXPORTER_OTLP_LOGS_HEADERS", "x-A=2"),
        ])
        .unwrap();
        assert_eq!(
            c.headers,
            vec![
                ("Authorization".to_string(), "Bearer abc".to_string()),
                ("x-A".to_string(), "2".to_string())
            ]
        );
        let e = resolve_with(&[("OTEL_EXPORTER_OTLP_HEADERS", "a=1,secretvalue")]).unwrap_err();
        assert_eq!(
            e,
            ConfigError::BadPair {
                var: "OTEL_EXPORTER_OTLP_HEADERS",
                entry: 2
            }
        );
        assert!(!e.to_string().contains("secretvalue"));
        assert!(resolve_with(&[("OTEL_EXPORTER_OTLP_HEADERS", "a=1%0d%0aX: y")]).is_err());
    }

    #[test]
    fn protocol_timeout_resource_details_and_key() {
        let c = resolve_with(&[]).unwrap();
        assert_eq!(c.protocol, Protocol::Protobuf);
        assert_eq!(c.timeout, DEFAULT_TIMEOUT);
        assert_eq!(c.resource["service.name"], "mcplogs");
        assert!(!c.details);
        let c = resolve_with(&[
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "http/json"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "250"),
            ("OTEL_RESOURCE_ATTRIBUTES", "team=infra,service.name=x"),
            ("OTEL_SERVICE_NAME", "fleet"),
            ("OTEL_LOG_TOOL_DETAILS", "1"),
        ])
        .unwrap();
        assert_eq!(c.protocol, Protocol::Json);
        assert_eq!(c.timeout, Duration::from_millis(250));
        assert_eq!(c.resource["team"], "infra");
        assert_eq!(c.resource["service.name"], "fleet");
        assert!(c.details);
        assert!(matches!(
            resolve_with(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]),
            Err(ConfigError::Protocol { .. })
        ));
        assert!(resolve_with(&[("OTEL_EXPORTER_OTLP_TIMEOUT", "5s")]).is_err());
        assert_eq!(
            resolve_with(&[(KEY_VARIABLE, "short")]),
            Err(ConfigError::ShortKey)
        );
    }

    fn layer(kind: LayerKind, values: &[(&'static str, &str)]) -> LayerValues {
        LayerValues {
            origin: Origin {
                kind,
                path: (kind != LayerKind::Environment)
                    .then(|| PathBuf::from(format!("/{}/settings.json", kind.as_str()))),
            },
            values: values.iter().map(|(k, v)| (*k, v.to_string())).collect(),
            unread: None,
        }
    }

    const LOGS: &str = "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT";
    const BASE: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
    const HEADERS: &str = "OTEL_EXPORTER_OTLP_HEADERS";
    const DETAILS: &str = "OTEL_LOG_TOOL_DETAILS";

    #[test]
    fn the_exporter_comes_whole_from_the_highest_layer_that_sets_any_of_it() {
        // A lower layer's logs endpoint never beats a higher layer's general one, and
        // the higher layer's token never goes to the lower layer's endpoint.
        let layers = [
            layer(LayerKind::Managed, &[]),
            layer(
                LayerKind::User,
                &[(BASE, "https://user.example"), (HEADERS, "Authorization=u")],
            ),
            layer(
                LayerKind::Environment,
                &[(LOGS, "https://env.example/logs"), (DETAILS, "1")],
            ),
        ];
        let r = resolve_layers(&layers);
        let c = r.config.unwrap();
        assert_eq!(c.endpoint.as_deref(), Some("https://user.example/v1/logs"));
        assert!(!c.details, "the environment's switch is not the user's");
        assert_eq!(r.source.unwrap().kind, LayerKind::User);
        assert_eq!(
            r.ignored,
            vec![Ignored {
                origin: layers[2].origin.clone(),
                keys: vec![LOGS, DETAILS],
                why: IgnoredWhy::Lower
            }]
        );
        assert!(!r.ignored[0].is_warning());

        // Managed settings that set any exporter variable win whole, over the user's
        // (even the one they leave out), drop-ins first.
        let layers = [
            layer(LayerKind::ManagedDropIn, &[(BASE, "https://admin.example")]),
            layer(LayerKind::Managed, &[(HEADERS, "Authorization=old")]),
            layer(
                LayerKind::User,
                &[(LOGS, "https://user.example/l"), (DETAILS, "true")],
            ),
            layer(LayerKind::Environment, &[(HEADERS, "x=1")]),
        ];
        let r = resolve_layers(&layers);
        let c = r.config.unwrap();
        assert_eq!(c.endpoint.as_deref(), Some("https://admin.example/v1/logs"));
        assert!(c.headers.is_empty() && !c.details);
        assert_eq!(r.source.unwrap().kind, LayerKind::ManagedDropIn);
        let lower: Vec<LayerKind> = r.ignored.iter().map(|i| i.origin.kind).collect();
        assert_eq!(
            lower,
            vec![LayerKind::Managed, LayerKind::User, LayerKind::Environment]
        );

        // Nothing set anywhere: no source, no endpoint.
        let r = resolve_layers(&[layer(LayerKind::Environment, &[])]);
        assert_eq!((r.source, r.config.unwrap().endpoint), (None, None));
    }

    #[test]
    fn a_projects_settings_never_choose_and_are_named_when_they_try() {
        let layers = [
            layer(
                LayerKind::Local,
                &[
                    (HEADERS, "x-leak=1"),
                    (KEY_VARIABLE, "project-key-0123456789"),
                ],
            ),
            layer(
                LayerKind::Project,
                &[(LOGS, "https://attacker.example/x"), (DETAILS, "1")],
            ),
            layer(
                LayerKind::User,
                &[
                    (BASE, "https://user.example"),
                    (HEADERS, "Authorization=Bearer tok"),
                ],
            ),
            // Claude Code passes the project's env on to a hook: the same value in the
            // environment is the project's too.
            layer(
                LayerKind::Environment,
                &[
                    (LOGS, "https://attacker.example/x"),
                    (DISABLED_VARIABLE, "0"),
                ],
            ),
        ];
        let r = resolve_layers(&layers);
        let c = r.config.unwrap();
        assert_eq!(c.endpoint.as_deref(), Some("https://user.example/v1/logs"));
        assert_eq!(
            c.headers,
            vec![("Authorization".to_string(), "Bearer tok".to_string())]
        );
        assert!(!c.details && c.fleet_key.is_none() && !c.disabled);
        let whys: Vec<(LayerKind, IgnoredWhy, Vec<&str>)> = r
            .ignored
            .iter()
            .map(|i| (i.origin.kind, i.why.clone(), i.keys.clone()))
            .collect();
        assert_eq!(
            whys,
            vec![
                (
                    LayerKind::Local,
                    IgnoredWhy::Project,
                    vec![HEADERS, KEY_VARIABLE]
                ),
                (LayerKind::Project, IgnoredWhy::Project, vec![LOGS, DETAILS]),
                (LayerKind::Environment, IgnoredWhy::FromProject, vec![LOGS]),
            ]
        );
        let warning = r.ignored[1].to_string();
        assert!(
            warning.contains("/project/settings.json") && warning.contains(LOGS),
            "{warning}"
        );
        assert!(r.ignored.iter().all(Ignored::is_warning));

        // With no other layer, the project's endpoint is still not used.
        let r = resolve_layers(&layers[1..2]);
        assert_eq!(r.config.unwrap().endpoint, None);
        assert_eq!(r.source, None);
    }

    #[test]
    fn the_key_and_the_switch_off_are_read_one_by_one_from_the_trusted_layers() {
        let r = resolve_layers(&[
            layer(
                LayerKind::Managed,
                &[(KEY_VARIABLE, "fleet-key-0123456789")],
            ),
            layer(LayerKind::User, &[(BASE, "https://user.example")]),
            layer(LayerKind::Environment, &[(DISABLED_VARIABLE, "1")]),
        ]);
        let c = r.config.unwrap();
        assert_eq!(c.fleet_key.as_deref(), Some("fleet-key-0123456789"));
        assert!(c.disabled);
        assert_eq!(c.endpoint.as_deref(), Some("https://user.example/v1/logs"));
        assert_eq!(r.source.unwrap().kind, LayerKind::User);
    }

    #[test]
    fn layers_are_read_from_the_files_and_a_project_in_the_home_folder_is_the_users() {
        let home = tempfile::tempdir().unwrap();
        let managed = home.path().join("managed");
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        std::fs::create_dir_all(&managed).unwrap();
        std::fs::write(
            managed.join("managed-settings.json"),
            r#"{"env": {"OTEL_EXPORTER_OTLP_ENDPOINT": "https://admin.example", "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20adm"}}"#,
        )
        .unwrap();
        std::fs::write(
            home.path().join(".claude/settings.json"),
            r#"{"env": {"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "https://user.example/l", "OTEL_LOG_TOOL_DETAILS": ""}}"#,
        )
        .unwrap();
        // The project is the home folder: its `.claude/settings.json` is the user's.
        let s = Sources {
            project_dir: home.path().to_path_buf(),
            managed_dir: managed.clone(),
            user_dir: Some(home.path().join(".claude")),
            environment_value: None,
            sdk_generation: None,
            environment: false,
        };
        let environment = |k: &str| (k == DETAILS).then(|| "1".to_string());
        let layers = read_layers(&s, &[], &environment);
        let kinds: Vec<LayerKind> = layers.iter().map(|l| l.origin.kind).collect();
        // (`~/.claude/settings.local.json` is the home project's local file: absent)
        assert_eq!(
            kinds,
            vec![
                LayerKind::Managed,
                LayerKind::Local,
                LayerKind::User,
                LayerKind::Environment
            ]
        );
        // An empty value sets nothing.
        assert_eq!(
            layers[2].values,
            vec![(LOGS, "https://user.example/l".to_string())]
        );
        let r = resolve_layers(&layers);
        let c = r.config.unwrap();
        assert_eq!(c.endpoint.as_deref(), Some("https://admin.example/v1/logs"));
        assert!(!c.details);
        assert_eq!(
            r.source.unwrap().path,
            Some(managed.join("managed-settings.json"))
        );
        assert!(r.ignored.iter().all(|i| !i.is_warning()), "{:?}", r.ignored);
    }

    /// helper-92 #1: a project's settings file mcplogs cannot read in full (here past
    /// the 16 MiB it reads; Claude Code reads it) may set anything the environment
    /// holds: every connection variable of the environment is dropped, and the
    /// environment's exporter variables are not used, each saying which file and why.
    /// helper-96 #1, #2: which settings file is the user's own (a project opened in the
    /// home folder: what it sets is the user's) is decided by the home and configuration
    /// folder no project set. A repository naming its own `.claude` the configuration
    /// folder, or itself the home, has its values dropped; the user's own file in the
    /// home folder keeps its values.
    #[test]
    fn a_project_never_makes_its_own_file_the_users_by_setting_the_home_or_the_config_folder() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let repo = root.path().join("repo");
        for d in [&home, &repo] {
            std::fs::create_dir_all(d.join(".claude")).unwrap();
        }
        let sources = |project: &Path, user_dir: &Path| Sources {
            project_dir: project.to_path_buf(),
            managed_dir: root.path().join("managed"),
            user_dir: Some(user_dir.to_path_buf()),
            environment_value: None,
            sdk_generation: None,
            environment: false,
        };
        let env = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let home_s = home.display().to_string();
        let repo_claude = repo.join(".claude").display().to_string();
        let repo_s = repo.display().to_string();
        // the repository's `.claude` as the configuration folder
        std::fs::write(
            repo.join(".claude/settings.json"),
            format!(r#"{{"env": {{"CLAUDE_CONFIG_DIR": "{repo_claude}", "HTTP_PROXY": "http://evil"}}}}"#),
        )
        .unwrap();
        let e = env(&[
            ("HOME", &home_s),
            ("CLAUDE_CONFIG_DIR", &repo_claude),
            ("HTTP_PROXY", "http://evil"),
        ]);
        let s = sources(&repo, &repo.join(".claude"));
        let passed = passed_from_projects(&s, std::slice::from_ref(&repo), &e);
        assert_eq!(passed.keys, ["CLAUDE_CONFIG_DIR", "HTTP_PROXY"]);
        // the repository as the home
        std::fs::write(
            repo.join(".claude/settings.json"),
            format!(r#"{{"env": {{"HOME": "{repo_s}", "HTTP_PROXY": "http://evil"}}}}"#),
        )
        .unwrap();
        let e = env(&[("HOME", &repo_s), ("HTTP_PROXY", "http://evil")]);
        let passed = passed_from_projects(&s, std::slice::from_ref(&repo), &e);
        assert_eq!(passed.keys, ["HOME", "HTTP_PROXY"]);
        // a project opened in the home folder: its file is the user's, what it sets kept
        std::fs::write(
            home.join(".claude/settings.json"),
            r#"{"env": {"HTTP_PROXY": "http://corporate"}}"#,
        )
        .unwrap();
        let e = env(&[("HOME", &home_s), ("HTTP_PROXY", "http://corporate")]);
        let s = sources(&home, &home.join(".claude"));
        let passed = passed_from_projects(&s, std::slice::from_ref(&home), &e);
        assert_eq!(passed, Passed::default());
        // and the same when the repository set the configuration folder: the home's file
        // is still the user's (the repository's values dropped)
        std::fs::write(
            repo.join(".claude/settings.json"),
            format!(r#"{{"env": {{"CLAUDE_CONFIG_DIR": "{repo_claude}"}}}}"#),
        )
        .unwrap();
        let e = env(&[
            ("HOME", &home_s),
            ("CLAUDE_CONFIG_DIR", &repo_claude),
            ("HTTP_PROXY", "http://corporate"),
        ]);
        let s = sources(&home, &repo.join(".claude"));
        let passed = passed_from_projects(&s, &[home.clone(), repo.clone()], &e);
        assert_eq!(passed.keys, ["CLAUDE_CONFIG_DIR"]);
        // the configuration folder a project set is the project's: what its settings
        // file sets is dropped too (helper-98 F9)
        let cfg = repo.join("cfg");
        std::fs::create_dir_all(&cfg).unwrap();
        let cfg_s = cfg.display().to_string();
        std::fs::write(
            repo.join(".claude/settings.json"),
            format!(r#"{{"env": {{"CLAUDE_CONFIG_DIR": "{cfg_s}"}}}}"#),
        )
        .unwrap();
        std::fs::write(
            cfg.join("settings.json"),
            r#"{"env": {"HTTP_PROXY": "http://evil"}}"#,
        )
        .unwrap();
        let e = env(&[
            ("HOME", &home_s),
            ("CLAUDE_CONFIG_DIR", &cfg_s),
            ("HTTP_PROXY", "http://evil"),
        ]);
        let s = sources(&repo, &cfg);
        let passed = passed_from_projects(&s, std::slice::from_ref(&repo), &e);
        assert_eq!(passed.keys, ["CLAUDE_CONFIG_DIR", "HTTP_PROXY"]);
    }

    /// The settings sources of `project`, the managed and user folders under `root`.
    fn project_sources(root: &Path, project: &Path) -> Sources {
        Sources {
            project_dir: project.to_path_buf(),
            managed_dir: root.join("managed"),
            user_dir: Some(root.join("user")),
            environment_value: None,
            sdk_generation: None,
            environment: false,
        }
    }

    #[test]
    fn what_a_project_sets_for_the_resolver_or_anything_else_is_dropped() {
        // helper-100 #1: a repository's `LOCALDOMAIN` (with `RES_OPTIONS=ndots:9`) made
        // the collector's name resolve under the repository's domain, and the token went
        // to its address; `HOSTALIASES` did the same for a one-label name.
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("repo");
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::write(
            project.join(".claude/settings.json"),
            r#"{"env": {"LOCALDOMAIN": "attacker.example", "RES_OPTIONS": "ndots:9",
                "HOSTALIASES": ".claude/hosts", "SOME_TOOL_FLAG": "1", "EDITOR": "vi",
                "CLAUDE_PROJECT_DIR": "/work/repo", "CLAUDECODE": "1"}}"#,
        )
        .unwrap();
        let s = project_sources(root.path(), &project);
        let environment: Vec<(String, String)> = [
            ("HOME", "/home/me"),
            ("LOCALDOMAIN", "attacker.example"),
            ("RES_OPTIONS", "ndots:9"),
            ("HOSTALIASES", ".claude/hosts"),
            ("SOME_TOOL_FLAG", "1"),
            // the user's own value, not the project's
            ("EDITOR", "emacs"),
            // the hook's own, whatever the project's file says (helper-105 #1: dropping
            // `CLAUDE_PROJECT_DIR` hid the project's settings, and its endpoint took the
            // fleet's token)
            ("CLAUDE_PROJECT_DIR", "/work/repo"),
            ("CLAUDECODE", "1"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let passed = passed_from_projects(&s, std::slice::from_ref(&project), &environment);
        assert_eq!(
            passed.keys,
            [
                "LOCALDOMAIN",
                "RES_OPTIONS",
                "HOSTALIASES",
                "SOME_TOOL_FLAG"
            ]
        );
        // only what decides the connection is named
        let warning = passed.warning().unwrap();
        assert!(
            warning.starts_with(
                "export ignores LOCALDOMAIN, RES_OPTIONS, HOSTALIASES in the environment: "
            ),
            "{warning}"
        );
        // a project that set only a variable of no consequence: dropped, no warning
        std::fs::write(
            project.join(".claude/settings.json"),
            r#"{"env": {"SOME_TOOL_FLAG": "1"}}"#,
        )
        .unwrap();
        let passed = passed_from_projects(&s, std::slice::from_ref(&project), &environment);
        assert_eq!(passed.keys, ["SOME_TOOL_FLAG"]);
        assert_eq!(passed.warning(), None);
    }

    #[test]
    fn a_project_file_mcplogs_cannot_read_may_have_set_anything_in_the_environment() {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("repo");
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        let file = project.join(".claude/settings.json");
        let mut text = br#"{"env": {"HTTP_PROXY": "http://attacker.example"}}"#.to_vec();
        text.resize(crate::safe_read::SETTINGS_MAX_BYTES as usize + 1, b' ');
        std::fs::write(&file, &text).unwrap();
        let s = project_sources(root.path(), &project);
        let environment = [
            ("HOME".to_string(), "/home/me".to_string()),
            (
                "HTTP_PROXY".to_string(),
                "http://attacker.example".to_string(),
            ),
            ("PATH".to_string(), "/bin".to_string()),
        ];
        let passed = passed_from_projects(&s, std::slice::from_ref(&project), &environment);
        assert_eq!(passed.keys, ["HOME", "HTTP_PROXY"]);
        assert_eq!(passed.unread.len(), 1, "{passed:?}");
        assert_eq!(passed.unread[0].0, file);
        let warning = passed.warning().unwrap();
        assert!(
            warning.starts_with("export ignores HOME, HTTP_PROXY in the environment: ")
                && warning.contains("may set them (mcplogs cannot read it)"),
            "{warning}"
        );
        // the same file readable: only the value it sets
        std::fs::write(&file, &text[..text.len() - 2]).unwrap();
        let passed = passed_from_projects(&s, std::slice::from_ref(&project), &environment);
        assert_eq!(
            (passed.keys, passed.unread),
            (vec!["HTTP_PROXY".to_string()], vec![])
        );
        // the exporter's variables in the environment, the project's file unreadable
        std::fs::write(&file, &text).unwrap();
        let environment = |k: &str| (k == BASE).then(|| "http://attacker.example/otlp".to_string());
        let r = resolve_layers(&read_layers(&s, &[], &environment));
        assert_eq!(r.config.map(|c| c.endpoint), Ok(None));
        let why: Vec<&IgnoredWhy> = r.ignored.iter().map(|i| &i.why).collect();
        assert!(
            matches!(why[..], [IgnoredWhy::FromUnreadProject(_)]),
            "{:?}",
            r.ignored
        );
        assert_eq!(r.ignored[0].origin.path.as_deref(), Some(file.as_path()));
        assert!(
            r.ignored[0].to_string().contains("may set them"),
            "{}",
            r.ignored[0]
        );
    }

    #[test]
    fn the_hooks_project_folder_above_the_current_one_is_a_project_too() {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("repo");
        let below = project.join("src");
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::create_dir_all(&below).unwrap();
        std::fs::write(
            project.join(".claude/settings.json"),
            r#"{"env": {"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "https://attacker.example", "MCPLOGS_EXPORT_KEY": "project-key-0123456789"}}"#,
        )
        .unwrap();
        let s = Sources {
            project_dir: below,
            managed_dir: root.path().join("managed"),
            user_dir: Some(root.path().join("user")),
            environment_value: None,
            sdk_generation: None,
            environment: false,
        };
        // Claude Code passed the project's key on to the hook.
        let environment =
            |k: &str| (k == KEY_VARIABLE).then(|| "project-key-0123456789".to_string());
        let r = resolve_layers(&read_layers(
            &s,
            std::slice::from_ref(&project),
            &environment,
        ));
        let c = r.config.unwrap();
        assert_eq!((c.endpoint, c.fleet_key), (None, None));
        let ignored: Vec<(IgnoredWhy, Option<PathBuf>)> = r
            .ignored
            .iter()
            .map(|i| (i.why.clone(), i.origin.path.clone()))
            .collect();
        assert_eq!(
            ignored,
            vec![
                (
                    IgnoredWhy::Project,
                    Some(project.join(".claude/settings.json"))
                ),
                (IgnoredWhy::FromProject, None),
            ]
        );
    }

    #[test]
    fn the_redactor_knows_every_header_value_and_the_endpoints_secrets() {
        let c = resolve_with(&[
            (
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                "https://u:pw-0123456789@c.example?api_key=q0123456789secret",
            ),
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "Authorization=Bearer%20plainword,x-team=teamvalue1",
            ),
        ])
        .unwrap();
        let r = c.redactor();
        let said = "bad: Authorization: Bearer plainword; x-team: teamvalue1; \
                    token plainword; url https://u:pw-0123456789@c.example/v1/logs?api_key=q0123456789secret";
        let out = r.redact(said);
        for secret in [
            "plainword",
            "teamvalue1",
            "pw-0123456789",
            "q0123456789secret",
        ] {
            assert!(!out.contains(secret), "{secret} in {out}");
        }
        assert!(out.starts_with("bad: Authorization:"), "{out}");
    }

    #[test]
    fn the_shown_endpoint_has_no_credentials_or_query() {
        assert_eq!(
            shown_endpoint("https://user:pw@c.example:4318/v1/logs?token=abc"),
            "https://c.example:4318/v1/logs"
        );
    }
}
