//! What to do about a remote (HTTP) server whose log names why it could not connect
//! (issue 52): its certificate, the proxy, its host name, its port, its OAuth
//! registration or its configured `Authorization` header. Each sentence names the exact
//! setting or command; a setting is named as a fix only where a real build was observed
//! connecting after it ([`observed_settings_fix`], the runs under
//! tests/fixtures/remote/). Certificate checks are never advised off.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::fixes::{Context, Found, UserStep};
use crate::classify::verdict::{Cause, Diagnosis, Verdict};
use crate::claude_code::config::{Scope, TransportKind};
use crate::scan::ServerReport;
use crate::settings::ca::{self, CaFile, ChainCheck};
use crate::settings::engine::{Change, Edit, FixCause};
use crate::settings::env::{EnvValue, env_values};
use crate::settings::layers::{LayerKind, Sources};

/// A settings change observed to fix a class of failure: the variable to set in the
/// `env` block of `~/.claude/settings.json` (or in the environment Claude Code starts
/// in), what its value is, and the builds and fixtures it was observed on. The fix
/// engine (`mcplogs fix`) may offer exactly these; nothing else here is a settings fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObservedSettingsFix {
    /// The `env` variable (`NODE_EXTRA_CA_CERTS`, `NO_PROXY`).
    pub variable: &'static str,
    /// What its value must hold, in words.
    pub value: &'static str,
    /// The oldest and newest builds it was observed to fix, from the settings file's
    /// `env` as well as from the environment.
    pub builds: (&'static str, &'static str),
    /// The fixtures (tests/fixtures/remote/) of the failing run and of the run the
    /// setting fixed, in the settings file and in the environment.
    pub failing: &'static str,
    pub fixed_in_settings: &'static str,
    pub fixed_in_environment: &'static str,
}

/// The settings change observed to fix `cause`, if any: `NODE_EXTRA_CA_CERTS` for an
/// untrusted certificate, `NO_PROXY` for a proxy that refuses (observed on 2.1.287,
/// 2.1.310 and 2.1.336, both in `~/.claude/settings.json` `env` and in the
/// environment). An expired certificate, a certificate for another name, a name that
/// does not resolve, a refused port, OAuth and a refused header have none.
pub fn observed_settings_fix(cause: Cause) -> Option<ObservedSettingsFix> {
    match cause {
        Cause::TlsUntrusted => Some(ObservedSettingsFix {
            variable: "NODE_EXTRA_CA_CERTS",
            value: "the path of a PEM file holding the certificate authority that signed the server's certificate (for a TLS-inspecting company proxy, that proxy's CA)",
            builds: ("2.1.287", "2.1.336"),
            failing: "tls-untrusted-ca",
            fixed_in_settings: "tls-ca-settings",
            fixed_in_environment: "tls-ca-env",
        }),
        Cause::ProxyRefused => Some(ObservedSettingsFix {
            variable: "NO_PROXY",
            value: "a comma-separated list of host names (a leading dot for a whole domain) reached without the proxy; keep the hosts already there",
            builds: ("2.1.287", "2.1.336"),
            failing: "proxy-407-http",
            fixed_in_settings: "no-proxy-settings",
            fixed_in_environment: "no-proxy-env",
        }),
        _ => None,
    }
}

/// The host of a URL (`https://mcp.example.com:8443/mcp` -> `mcp.example.com`), for the
/// `NO_PROXY` advice; `None` when it has none.
fn host_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        authority.split(':').next()?
    };
    (!host.is_empty() && host.chars().all(|c| c.is_ascii_graphic())).then_some(host)
}

/// `claude mcp login NAME`, as the user's shell runs it; `None` when the name holds a
/// control character. A name that begins with `-` follows `--` (`claude mcp login -h`
/// prints the command's help; `claude mcp login -- -h` signs in to the server `-h`:
/// observed on 2.1.287 and 2.1.336, helper-96 #5).
pub fn login_command(name: &str) -> Option<String> {
    let mut argv = vec!["claude", "mcp", "login"];
    argv.extend(name_words(name));
    crate::text::shell_command(&argv)
}

/// A server's name as the last options of a `claude mcp` command: after `--` when it
/// would read as an option (also in `claude mcp add`, where `--` then ends the options
/// and the name and URL follow: observed on 2.1.287 and 2.1.336).
fn name_words(name: &str) -> Vec<&str> {
    if name.starts_with('-') {
        vec!["--", name]
    } else {
        vec![name]
    }
}

/// The advice for a remote failure of `d` whose cause names it; `name` the server's
/// configured name and `url` its URL when known (the sentences then name them).
pub fn remote_advice(d: &Diagnosis, name: Option<&str>, url: Option<&str>) -> Option<String> {
    remote_advice_for(d, name, url, None)
}

/// The scope a `claude mcp` command names for a server configured there (`None`: a
/// managed server or one given on the command line, which no such command changes).
fn scope_word(scope: Scope) -> Option<&'static str> {
    match scope {
        Scope::Local | Scope::Project | Scope::User => Some(scope.as_str()),
        Scope::Managed | Scope::CommandLine => None,
    }
}

/// The commands that give a server an OAuth client id: `claude mcp add` refuses a name
/// that exists ("MCP server corp already exists in user config", observed on 2.1.336),
/// so the server is removed from its scope first, then added again there with the id
/// (observed: the entry then holds `"oauth": {"clientId": ...}`). `entry`: its scope and
/// transport when its configuration is known.
fn add_again_with_client_id(
    name: Option<&str>,
    url: Option<&str>,
    entry: Option<(Scope, TransportKind)>,
) -> String {
    let name_s = name
        .and_then(|n| crate::text::shell_command(&name_words(n)))
        .unwrap_or_else(|| "<server name>".to_string());
    let url_s = url
        .and_then(|u| crate::text::shell_command(&[u]))
        .unwrap_or_else(|| "<url>".to_string());
    // (a remote server's; `http` when not known)
    let transport = match entry.map(|e| e.1) {
        Some(t @ TransportKind::Sse) => t.as_str(),
        _ => TransportKind::Http.as_str(),
    };
    match entry.map(|e| scope_word(e.0)) {
        // a managed server: only its administrator changes its entry
        Some(None) => "ask the administrators who manage the server's entry (managed-mcp.json) to give it the client id (`\"oauth\": {\"clientId\": \"<client id>\"}` in its entry)".to_string(),
        Some(Some(scope)) => format!(
            "remove the server and add it again with it (`claude mcp remove -s {scope} {name_s}`, then `claude mcp add -s {scope} --transport {transport} --client-id <client id> {name_s} {url_s}`, plus `--client-secret`, which prompts for it, when they gave you a secret too; `claude mcp add` refuses a name that exists)"
        ),
        None => format!(
            "remove the server and add it again with it, in the scope it was added in (`claude mcp remove {name_s}`, then `claude mcp add -s <local, project or user> --transport {transport} --client-id <client id> {name_s} {url_s}`, plus `--client-secret`, which prompts for it, when they gave you a secret too; `claude mcp add` refuses a name that exists)"
        ),
    }
}

/// [`remote_advice`] for a server whose configuration is known: `entry` is its scope
/// and transport (the commands that change its entry name them).
pub fn remote_advice_for(
    d: &Diagnosis,
    name: Option<&str>,
    url: Option<&str>,
    entry: Option<(Scope, TransportKind)>,
) -> Option<String> {
    if d.verdict != Verdict::ConnectionFailed {
        return None;
    }
    let login = match name.and_then(login_command) {
        Some(c) => format!("`{c}`"),
        None => "`claude mcp login <server name>`".to_string(),
    };
    let cause = d.cause?;
    let settings_form = |fix: ObservedSettingsFix, value: &str| {
        // (`no_proxy` where the environment spells it so: it wins over `NO_PROXY`,
        // observed; helper-106: `probe` advised a `NO_PROXY` that changed nothing)
        let variable = match fix.variable {
            NO_PROXY_VAR if lowercase_no_proxy() => NO_PROXY_LOWER_VAR,
            v => v,
        };
        format!(
            "set {variable}={value} in the \"env\" block of ~/.claude/settings.json (observed to work from Claude Code {} to {}) or in the environment Claude Code starts in, then restart Claude Code",
            fix.builds.0, fix.builds.1
        )
    };
    Some(match cause {
        Cause::TlsUntrusted => {
            let fix = observed_settings_fix(cause)?;
            format!(
                "Claude Code does not trust the server's TLS certificate (self-signed, or signed by a certificate authority it does not know, such as a company proxy that inspects TLS): {}, where the value is the path of a PEM file holding that certificate authority (`mcplogs fix --ca-file /path/to/ca.pem` checks the file against the server, then writes it); or have the server use a certificate from a public authority.",
                settings_form(fix, "/path/to/ca.pem")
            )
        }
        Cause::TlsExpired => {
            "The server's TLS certificate has expired: its operator must renew it. No Claude Code setting fixes this (NODE_EXTRA_CA_CERTS does not: observed).".to_string()
        }
        Cause::TlsHostname => format!(
            "The server's TLS certificate is for another host name than the one in its URL{}: use the host name the certificate names in the server's URL, or have its operator issue a certificate for this name. No Claude Code setting fixes this (NODE_EXTRA_CA_CERTS does not: observed).",
            url.and_then(host_of)
                .map(|h| format!(" ({h})"))
                .unwrap_or_default()
        ),
        Cause::ProxyRefused => {
            let fix = observed_settings_fix(cause)?;
            let value = match url.and_then(host_of) {
                Some(h) => format!("<the hosts already there>,{h}"),
                None => "<the hosts already there>,<the server's host>".to_string(),
            };
            format!(
                "The proxy in HTTPS_PROXY/HTTP_PROXY refused the connection (403: not allowed there; 407: it wants credentials). If the server is reached without the proxy, {}; otherwise ask the proxy's administrators to allow the server's host.",
                settings_form(fix, &value)
            )
        }
        Cause::NameNotResolved => format!(
            "The server's host name{} does not resolve on this machine: check its URL for a typo, and that the DNS (or the VPN) that knows the name is in use. No Claude Code setting fixes this.",
            url.and_then(host_of)
                .map(|h| format!(" ({h})"))
                .unwrap_or_default()
        ),
        Cause::ConnectionRefused => {
            "Nothing accepts connections at the server's host and port (ECONNREFUSED): start the server, or correct the port in its URL; when HTTPS_PROXY or HTTP_PROXY is set, check that the proxy itself is running. No Claude Code setting fixes this.".to_string()
        }
        Cause::OauthNoRegistration => format!(
            "The server's authorization server offers no dynamic client registration, so Claude Code cannot register itself: ask the server's operator for an OAuth client id, {}, then sign in with {login}.",
            add_again_with_client_id(name, url, entry)
        ),
        Cause::AuthHeaderRejected => format!(
            "The server refused the Authorization header set in the server's \"headers\" (HTTP 401 or 403), and while that header is set Claude Code does not try OAuth: replace the token with one valid for this endpoint, or remove the header and sign in with {login} if the server offers OAuth."
        ),
        Cause::NeedsAuth => format!(
            "The server needs authentication: sign in with {login} (or /mcp in Claude Code); for a token the server's operator gave you, set it in the server's \"headers\" instead."
        ),
        _ => return None,
    })
}

/// [`remote_advice`] for a scanned server: its name, and its URL when the configuration
/// has its entry.
pub fn for_remote_server(s: &ServerReport) -> Option<String> {
    let url = s
        .launch
        .as_ref()
        .filter(|l| !l.is_stdio())
        .map(|l| l.url.as_str())
        .filter(|u| !u.is_empty());
    let entry = s.launch.as_ref().map(|l| (l.scope, l.transport));
    remote_advice_for(&s.diagnosis, Some(&s.name), url, entry)
}

/// The few words beside the verdict for a remote cause (`None` for the others).
pub fn remote_reason(d: &Diagnosis, decisive: &str) -> Option<String> {
    Some(match d.cause? {
        Cause::TlsUntrusted => {
            "TLS certificate not trusted (self-signed or unknown CA)".to_string()
        }
        Cause::TlsExpired => "TLS certificate expired".to_string(),
        Cause::TlsHostname => "TLS certificate is for another host name".to_string(),
        Cause::ProxyRefused => match status_in(decisive) {
            Some(s) => format!("proxy refused ({s})"),
            None => "proxy refused".to_string(),
        },
        Cause::NameNotResolved => "host name does not resolve".to_string(),
        Cause::ConnectionRefused => "connection refused (nothing listens there)".to_string(),
        Cause::OauthNoRegistration => "auth server offers no client registration".to_string(),
        Cause::AuthHeaderRejected => match status_in(decisive) {
            Some(s) => format!("configured Authorization header refused (HTTP {s})"),
            None => "configured Authorization header refused".to_string(),
        },
        _ => return None,
    })
}

/// The proxy's or server's status in a deciding record: `tunnel: 407 Proxy ...`,
/// `(407)`, `(HTTP 401)`.
fn status_in(m: &str) -> Option<&str> {
    let three = |s: &'static str| -> Option<usize> { m.find(s).map(|i| i + s.len()) };
    let at = three("tunnel: ")
        .or_else(|| three("(HTTP "))
        .or_else(|| three("("))?;
    let s = m.get(at..at + 3)?;
    s.bytes().all(|b| b.is_ascii_digit()).then_some(s)
}

/// The variable of the trusted-CA fix.
pub const CA_VAR: &str = ca::EXTRA_CA_VAR;
/// The variable of the no-proxy fix.
pub const NO_PROXY_VAR: &str = "NO_PROXY";
/// Its lowercase spelling, which wins over it wherever it is set (observed, below).
pub const NO_PROXY_LOWER_VAR: &str = "no_proxy";

/// The value of the variable `k` in this process's environment, when not blank.
fn set_in_environment(k: &str) -> Option<String> {
    std::env::var(k).ok().filter(|v| !v.trim().is_empty())
}

/// Whether the environment spells the no-proxy list `no_proxy` ([`no_proxy_layers`]).
fn lowercase_no_proxy() -> bool {
    set_in_environment(NO_PROXY_LOWER_VAR).is_some()
}

/// The no-proxy list in effect for a project, as Claude Code reads it: a lowercase
/// `no_proxy` set anywhere (a settings layer's `env`, or the environment) wins over every
/// `NO_PROXY` (observed on 2.1.336: the shell's `no_proxy` over `NO_PROXY` in
/// `~/.claude/settings.json`, helper-102 #3: the fix wrote `NO_PROXY` and nothing
/// changed). The layers of the spelling in effect, and that spelling.
fn no_proxy_layers(sources: &Sources) -> (Vec<EnvValue>, &'static str) {
    let lower = env_values(
        sources,
        NO_PROXY_LOWER_VAR,
        set_in_environment(NO_PROXY_LOWER_VAR),
    );
    if lower.iter().any(|l| l.value.is_some()) {
        return (lower, NO_PROXY_LOWER_VAR);
    }
    (
        env_values(sources, NO_PROXY_VAR, set_in_environment(NO_PROXY_VAR)),
        NO_PROXY_VAR,
    )
}

/// A remote server's URL, from its configuration.
fn url_of(s: &ServerReport) -> Option<&str> {
    s.launch
        .as_ref()
        .filter(|l| !l.is_stdio())
        .map(|l| l.url.as_str())
        .filter(|u| !u.is_empty())
}

/// `(host, port, https)` of a URL; the port is the scheme's default when absent.
pub fn endpoint(url: &str) -> Option<(String, u16, bool)> {
    let (scheme, rest) = url.split_once("://")?;
    let https = scheme.eq_ignore_ascii_case("https");
    if !https && !scheme.eq_ignore_ascii_case("http") {
        return None;
    }
    let host = host_of(url)?.to_string();
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let after = match authority.strip_prefix('[') {
        Some(v6) => v6.split_once(']').map_or("", |(_, r)| r),
        None => authority.split_once(':').map_or("", |(_, p)| p),
    };
    let port = match after.trim_start_matches(':') {
        "" => {
            if https {
                443
            } else {
                80
            }
        }
        p => p.parse().ok()?,
    };
    Some((host, port, https))
}

/// `NO_PROXY` and `no_proxy` of the environment mcplogs runs in (the one Claude Code is
/// started from, as far as mcplogs knows), merged: both spellings are read by Node's
/// HTTP clients.
fn environment_no_proxy() -> Option<String> {
    let both: Vec<String> = ["NO_PROXY", "no_proxy"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .filter(|v| !v.trim().is_empty())
        .collect();
    match both.as_slice() {
        [] => None,
        [one] => Some(one.clone()),
        [a, b] => Some(merged_no_proxy(a, b.split(','))),
        _ => None,
    }
}

/// `list` with each of `hosts` not already in it appended (compared without case and
/// surrounding spaces); the hosts already there kept, in their order.
pub fn merged_no_proxy<'h>(list: &str, hosts: impl IntoIterator<Item = &'h str>) -> String {
    let mut out: Vec<String> = list
        .split(',')
        .map(|e| e.trim().to_string())
        .filter(|e| !e.is_empty())
        .collect();
    for h in hosts.into_iter().map(str::trim).filter(|h| !h.is_empty()) {
        if !out.iter().any(|e| e.eq_ignore_ascii_case(h)) {
            out.push(h.to_string());
        }
    }
    out.join(",")
}

/// Where an `env` variable of a remote fix goes for the server's project: the highest
/// settings file that sets it (a shared project file: the project's local file, which
/// outranks it and stays uncommitted), else the user file. `Err`: a managed file sets
/// it (what to ask for), or there is no user file. A project layer's value of either
/// was observed to be read (`NO_PROXY`; `NODE_EXTRA_CA_CERTS` on 2.1.336).
fn layer_for(
    layers: &[EnvValue],
    sources: &Sources,
    var: &str,
    want: &str,
) -> Result<(LayerKind, PathBuf), String> {
    let setter = layers
        .iter()
        .find(|l| l.value.is_some() && l.kind != LayerKind::Environment);
    match setter {
        Some(l) if matches!(l.kind, LayerKind::Managed | LayerKind::ManagedDropIn) => Err(format!(
            "the managed settings file {} sets {var}; ask whoever administers this machine for {var}={want}",
            l.path
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        )),
        Some(l) if l.kind == LayerKind::Project => sources
            .files()
            .into_iter()
            .find(|(k, _)| *k == LayerKind::Local)
            .ok_or_else(|| {
                format!("set {var}={want} in the project's .claude/settings.local.json")
            }),
        Some(l) => Ok((l.kind, l.path.clone().unwrap_or_default())),
        None => match &sources.user_dir {
            Some(u) => Ok((LayerKind::User, u.join("settings.json"))),
            None => Err(format!(
                "set {var}={want} in the \"env\" block of ~/.claude/settings.json"
            )),
        },
    }
}

/// The trusted-CA fix for a server whose certificate Claude Code does not trust:
/// `NODE_EXTRA_CA_CERTS` naming the CA file the user gave (`--ca-file`) or, without one,
/// the first file the machine already trusts (`SSL_CERT_FILE`, the system bundle) that
/// verifies the server's chain in a live handshake. Without the network check (`scan`)
/// nothing is found; a check that fails or did not run writes nothing and says what only
/// the user can do.
pub(super) fn trusted_ca(found: &mut Found, s: &ServerReport, who: &str, cx: &Context) {
    let step = |text: String| UserStep {
        server: who.to_string(),
        text,
    };
    let Some(net) = cx.net else { return };
    let Some((host, port, true)) = url_of(s).and_then(endpoint) else {
        return;
    };
    let (project, _) = super::project_dir_of(s, cx.cwd);
    let sources = Sources::for_scan_in(cx.homes, &project, cx.managed_dir);
    let layers = env_values(&sources, CA_VAR, std::env::var(CA_VAR).ok());
    let by_hand = |file: &str| {
        format!(
            "set {CA_VAR} in the \"env\" block of {file} to the path of a PEM file holding the certificate authority that signed the server's certificate (`mcplogs fix --ca-file PATH` checks such a file against the server and writes it), then restart Claude Code"
        )
    };
    // (a project's layer is read: observed on 2.1.336; the value goes into its local
    // file, which outranks it)
    let (kind, file) = match layer_for(&layers, &sources, CA_VAR, "/path/to/ca.pem") {
        Ok(w) => w,
        Err(why) => {
            found.steps.push(step(why));
            return;
        }
    };
    // the value the file holds now, when it already verifies the chain: nothing to do
    let now = layers
        .iter()
        .find(|l| l.path.as_deref() == Some(file.as_path()))
        .and_then(|l| l.value.clone());
    if let Some(now) = &now
        && cx.ca_file.is_none()
        && let Ok(f) = ca::read_ca_file(Path::new(now))
        && net.verify_chain(&f, &host, port) == ChainCheck::Verified
    {
        return;
    }
    if !super::fixes::offered(found, FixCause::TrustedCa, who, cx) {
        return;
    }
    let candidates: Vec<(CaFile, String)> = match cx.ca_file {
        Some(f) => vec![(f.clone(), "the file you named".to_string())],
        None => {
            let ssl = std::env::var_os("SSL_CERT_FILE");
            ca::trusted_candidates(ssl.as_deref())
                .into_iter()
                .filter_map(|p| {
                    let from_env = ssl.as_deref().is_some_and(|v| Path::new(v) == p);
                    let f = ca::read_ca_file(&p).ok()?;
                    Some((
                        f,
                        if from_env {
                            "SSL_CERT_FILE, which your machine trusts for other tools"
                        } else {
                            "the system's CA bundle, which your machine trusts for other tools"
                        }
                        .to_string(),
                    ))
                })
                .collect()
        }
    };
    let mut tried: Vec<String> = Vec::new();
    // the value in effect now when another layer gives it (the environment Claude Code
    // starts in, mostly): the value written replaces it, so what it trusts must be in
    // the new file too (helper-102 #1: the shell's CA file was replaced, and a server it
    // verified stopped connecting)
    // (whichever layer holds it, the file written too: a bundle made as advised, then
    // replaced by the next `--ca-file`, helper-105 #2)
    let elsewhere = layers.iter().find(|l| l.value.is_some()).and_then(|l| {
        let v = l.value.clone()?;
        let old = ca::read_ca_file(Path::new(&v)).ok()?;
        Some((old, l.describe()))
    });
    for (f, what) in candidates {
        match net.verify_chain(&f, &host, port) {
            ChainCheck::Verified
                if let Some((old, by)) = &elsewhere
                    && old.path != f.path
                    && !ca::holds_all_of(&f, old) =>
            {
                // (a name neither file has: `cat OLD NEW > OLD` empties OLD first,
                // helper-105 #3; the folder may not be there yet: the command runs as
                // printed)
                let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
                let bundle = ["ca-bundle.pem", "ca-bundle-2.pem", "ca-bundle-3.pem"]
                    .into_iter()
                    .find(|n| {
                        let at = home.as_ref().map(|h| h.join(".claude").join(n));
                        at.as_ref().is_none_or(|p| *p != old.path && *p != f.path)
                    })
                    .unwrap_or("ca-bundle-new.pem");
                let bundle = format!("~/.claude/{bundle}");
                let cat = crate::text::shell_command(&[
                    "cat",
                    &old.path.display().to_string(),
                    &f.path.display().to_string(),
                ])
                .unwrap_or_default();
                found.steps.push(step(format!(
                    "{} verifies the server's certificate, but {CA_VAR} is {} now ({by}), and a value in {} replaces it: the servers that need a certificate authority from it would no longer be trusted. Put both into one file and name that: `mkdir -p ~/.claude && {cat} > {bundle}`, then `mcplogs fix --ca-file {bundle}`",
                    f.path.display(),
                    old.path.display(),
                    file.display(),
                )));
                return;
            }
            ChainCheck::Verified => {
                let replaces = now
                    .as_deref()
                    .filter(|n| Path::new(n) != f.path)
                    .map(|n| format!(", replacing {n} (it did not verify the server's certificate; {CA_VAR} names one file, so a CA you still need from it must go into one file with this one)"))
                    .unwrap_or_default();
                found.changes.push(Change {
                    cause: FixCause::TrustedCa,
                    server: who.to_string(),
                    why: format!(
                        "Claude Code does not trust the certificate of {host}:{port}; {CA_VAR}={} ({what}) in the env of {} (the {} settings, which decide it in {}): a TLS handshake with {host}:{port} using only that file's {} certificate{} as roots verified the server's chain{replaces}",
                        f.path.display(),
                        file.display(),
                        kind.as_str(),
                        project.display(),
                        f.certificates,
                        if f.certificates == 1 { "" } else { "s" },
                    ),
                    file,
                    layer: kind.as_str(),
                    edit: Edit::Set {
                        path: vec!["env".into(), CA_VAR.into()],
                        value: Value::String(f.path.display().to_string()),
                    },
                });
                return;
            }
            ChainCheck::Failed(why) => tried.push(format!("{}: {why}", f.path.display())),
            ChainCheck::NotRun(why) => {
                found.steps.push(step(format!(
                    "the check of {} against {host}:{port} did not run ({why}), so nothing is written: {}",
                    f.path.display(),
                    by_hand(&file.display().to_string())
                )));
                return;
            }
        }
    }
    let tried = if tried.is_empty() {
        "no file the machine trusts for other tools (SSL_CERT_FILE, the system's CA bundle) was found".to_string()
    } else {
        format!(
            "checked against {host}:{port} and refused: {}",
            tried.join("; ")
        )
    };
    found.steps.push(step(format!(
        "{tried}. Nothing is written: {}",
        by_hand(&file.display().to_string())
    )));
}

/// The no-proxy fix for a server the proxy refused: its host added to `NO_PROXY`,
/// merged with the value in effect in its project (the highest settings layer that sets
/// it, else the environment's `NO_PROXY`/`no_proxy`), every host already there kept and
/// nothing else touched (the proxy variables stay). With the network check (`fix`), only
/// when the server accepts a connection without the proxy.
pub(super) fn no_proxy(found: &mut Found, s: &ServerReport, who: &str, cx: &Context) {
    let step = |text: String| UserStep {
        server: who.to_string(),
        text,
    };
    let Some((host, port, _)) = url_of(s).and_then(endpoint) else {
        return;
    };
    let (project, _) = super::project_dir_of(s, cx.cwd);
    let sources = Sources::for_scan_in(cx.homes, &project, cx.managed_dir);
    let (layers, var) = no_proxy_layers(&sources);
    let in_effect = layers.iter().find(|l| l.value.is_some());
    let base = in_effect.and_then(|l| l.value.clone()).unwrap_or_default();
    if ca::no_proxy_covers(&base, &host) {
        return;
    }
    let want = merged_no_proxy(&base, [host.as_str()]);
    let (kind, file) = match layer_for(&layers, &sources, var, &want) {
        Ok(w) => w,
        Err(why) => {
            found.steps.push(step(why));
            return;
        }
    };
    if let Some(net) = cx.net
        && let Err(why) = net.reachable_directly(&host, port)
    {
        found.steps.push(step(format!(
            "{host}:{port} cannot be reached without the proxy ({why}), so {NO_PROXY_VAR} would not help: ask the proxy's administrators to allow {host}"
        )));
        return;
    }
    if !super::fixes::offered(found, FixCause::NoProxy, who, cx) {
        return;
    }
    let kept = match in_effect {
        Some(l) if !base.trim().is_empty() => {
            format!(
                ", every host of the value in effect ({}) kept",
                l.describe()
            )
        }
        _ => String::new(),
    };
    found.changes.push(Change {
        cause: FixCause::NoProxy,
        server: who.to_string(),
        why: format!(
            "the proxy in HTTPS_PROXY/HTTP_PROXY refused {host}{}; {var}={want} in the env of {} (the {} settings, which decide it in {}){kept}{}; the proxy setting itself is left as it is",
            if cx.net.is_some() {
                ", which accepts connections without it"
            } else {
                " (`mcplogs fix` first checks that it accepts connections without it)"
            },
            file.display(),
            kind.as_str(),
            project.display(),
            if var == NO_PROXY_LOWER_VAR {
                " (spelled no_proxy: where it is set, Claude Code reads it over NO_PROXY)"
            } else {
                ""
            }
        ),
        file,
        layer: kind.as_str(),
        edit: Edit::Set {
            path: vec!["env".into(), var.into()],
            value: Value::String(want),
        },
    });
}

/// A failing remote server whose fix is in place since its log: `NO_PROXY` in effect
/// now covers its host; or a settings file sets `NODE_EXTRA_CA_CERTS` to an existing
/// file and was written after the log that failed (whether the file verifies the chain
/// is for the next session to show: `scan` sends nothing anywhere).
pub(super) fn in_place(
    s: &ServerReport,
    homes: &[PathBuf],
    cwd: &Path,
    managed_dir: Option<&Path>,
) -> Option<String> {
    let (host, _, https) = url_of(s).and_then(endpoint)?;
    let (project, _) = super::project_dir_of(s, cwd);
    let sources = Sources::for_scan_in(homes, &project, managed_dir);
    match s.diagnosis.cause? {
        Cause::ProxyRefused => {
            let (layers, var) = no_proxy_layers(&sources);
            let l = layers.into_iter().find(|l| l.value.is_some())?;
            ca::no_proxy_covers(l.value.as_deref()?, &host).then(|| {
                format!(
                    "{var} now holds {host} ({}), so the proxy is not used for it",
                    l.describe()
                )
            })
        }
        Cause::TlsUntrusted if https => {
            let layers = env_values(&sources, CA_VAR, None);
            let l = layers.into_iter().find(|l| l.value.is_some())?;
            let value = l.value.clone()?;
            let settings = l.path.as_deref()?;
            let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
            let log = s.deciding_file.as_deref().map(|f| f.as_path())?;
            let newer = modified(settings)? >= modified(log)?;
            (newer && Path::new(&value).is_file()).then(|| {
                format!(
                    "{CA_VAR} is now {value} ({}), set after its last failing session",
                    l.describe()
                )
            })
        }
        _ => None,
    }
}

/// The checks `mcplogs fix` makes on this machine's network: the TLS handshake
/// through the proxy the environment names for the server (unless its `NO_PROXY`
/// covers it), and a direct connection for `NO_PROXY`. Only a handshake or a
/// connection: no request, no credential.
pub struct LiveNet;

impl super::fixes::NetChecks for LiveNet {
    fn verify_chain(&self, ca: &CaFile, host: &str, port: u16) -> ChainCheck {
        let var = |k: &str| std::env::var(k).ok();
        let proxy = ca::proxy_for(
            host,
            var("HTTPS_PROXY").or_else(|| var("https_proxy")).as_deref(),
            environment_no_proxy().as_deref(),
        );
        ca::verify_chain(
            ca,
            host,
            port,
            proxy.as_ref().map(|(h, p)| (h.as_str(), *p)),
        )
    }

    fn reachable_directly(&self, host: &str, port: u16) -> Result<(), String> {
        use std::net::{TcpStream, ToSocketAddrs};
        let addrs = (host.trim_matches(['[', ']']), port)
            .to_socket_addrs()
            .map_err(|e| e.to_string())?;
        let mut last = String::from("the name has no address");
        for a in addrs {
            match TcpStream::connect_timeout(&a, ca::HANDSHAKE_TIMEOUT) {
                Ok(_) => return Ok(()),
                Err(e) => last = e.to_string(),
            }
        }
        Err(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(cause: Cause) -> Diagnosis {
        Diagnosis {
            cause: Some(cause),
            ..Diagnosis::new(Verdict::ConnectionFailed)
        }
    }

    #[test]
    fn a_settings_fix_is_named_only_where_one_was_observed() {
        let with_fix: Vec<Cause> = Cause::ALL
            .iter()
            .copied()
            .filter(|c| observed_settings_fix(*c).is_some())
            .collect();
        assert_eq!(with_fix, vec![Cause::TlsUntrusted, Cause::ProxyRefused]);
        for c in [Cause::TlsUntrusted, Cause::ProxyRefused] {
            let fix = observed_settings_fix(c).unwrap();
            let a =
                remote_advice(&failed(c), Some("corp"), Some("https://mcp.corp.test/mcp")).unwrap();
            assert!(a.contains(fix.variable), "{a}");
            assert!(a.contains("~/.claude/settings.json"), "{a}");
            // each fixture the fact rests on is kept
            let root =
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/remote");
            for f in [fix.failing, fix.fixed_in_settings, fix.fixed_in_environment] {
                for b in [fix.builds.0, fix.builds.1] {
                    assert!(root.join(f).join(b).is_dir(), "{f}/{b}");
                }
            }
        }
        for c in [
            Cause::TlsExpired,
            Cause::TlsHostname,
            Cause::NameNotResolved,
            Cause::ConnectionRefused,
        ] {
            let a = remote_advice(&failed(c), Some("corp"), None).unwrap();
            assert!(a.contains("No Claude Code setting fixes this"), "{a}");
        }
        for &c in Cause::ALL {
            if let Some(a) = remote_advice(&failed(c), Some("corp"), None) {
                assert!(!a.contains("REJECT_UNAUTHORIZED"), "{a}");
            }
        }
    }

    #[test]
    fn the_advice_names_the_server_its_host_and_the_command() {
        let a = remote_advice(
            &failed(Cause::ProxyRefused),
            Some("corp"),
            Some("https://user@mcp.corp.test:8443/mcp?x=1"),
        )
        .unwrap();
        assert!(
            a.contains("NO_PROXY=<the hosts already there>,mcp.corp.test"),
            "{a}"
        );
        let a = remote_advice(
            &failed(Cause::OauthNoRegistration),
            Some("my server"),
            Some("https://a.test/mcp"),
        )
        .unwrap();
        assert!(
            a.contains("--client-id <client id> 'my server' https://a.test/mcp"),
            "{a}"
        );
        assert!(a.contains("`claude mcp login 'my server'`"), "{a}");
        let a = remote_advice(&failed(Cause::NeedsAuth), Some("corp"), None).unwrap();
        assert!(a.contains("`claude mcp login corp`"), "{a}");
        // a name that reads as an option follows `--` (helper-96 #5: `claude mcp login
        // -h` prints the help)
        let a = remote_advice(&failed(Cause::NeedsAuth), Some("-h"), None).unwrap();
        assert!(a.contains("`claude mcp login -- -h`"), "{a}");
        let a = remote_advice(
            &failed(Cause::OauthNoRegistration),
            Some("--version"),
            Some("https://a.test/mcp"),
        )
        .unwrap();
        assert!(
            a.contains("--client-id <client id> -- --version https://a.test/mcp`")
                && a.contains("`claude mcp login -- --version`"),
            "{a}"
        );
        // `claude mcp add` refuses a name that exists (observed on 2.1.336): the server
        // is removed from its own scope first, and added again there
        for (scope, transport, word, t) in [
            (Scope::User, TransportKind::Http, "user", "http"),
            (Scope::Local, TransportKind::Sse, "local", "sse"),
            (Scope::Project, TransportKind::Http, "project", "http"),
        ] {
            let a = remote_advice_for(
                &failed(Cause::OauthNoRegistration),
                Some("corp"),
                Some("https://a.test/mcp"),
                Some((scope, transport)),
            )
            .unwrap();
            assert!(
                a.contains(&format!(
                    "`claude mcp remove -s {word} corp`, then `claude mcp add -s {word} --transport {t} --client-id <client id> corp https://a.test/mcp`"
                )),
                "{a}"
            );
        }
        let a = remote_advice_for(
            &failed(Cause::OauthNoRegistration),
            Some("corp"),
            Some("https://a.test/mcp"),
            Some((Scope::Managed, TransportKind::Http)),
        )
        .unwrap();
        assert!(
            a.contains("managed-mcp.json") && !a.contains("claude mcp add"),
            "{a}"
        );
        assert_eq!(host_of("http://[::1]:80/x"), Some("::1"));
        assert_eq!(host_of("not a url"), None);
        // a stdio failure or another verdict gets none of this
        assert_eq!(remote_advice(&failed(Cause::Timeout), None, None), None);
        assert_eq!(
            remote_advice(&Diagnosis::new(Verdict::Healthy), None, None),
            None
        );
    }

    #[test]
    fn no_proxy_is_merged_keeping_every_host_once_and_endpoints_get_their_ports() {
        assert_eq!(
            merged_no_proxy(" localhost, .corp.test,,127.0.0.1 ", ["127.0.0.2"]),
            "localhost,.corp.test,127.0.0.1,127.0.0.2"
        );
        assert_eq!(
            merged_no_proxy("A.test", ["a.TEST", "b.test"]),
            "A.test,b.test"
        );
        assert_eq!(merged_no_proxy("", ["h"]), "h");
        assert_eq!(
            endpoint("https://u:p@mcp.corp.test/mcp"),
            Some(("mcp.corp.test".into(), 443, true))
        );
        assert_eq!(
            endpoint("http://127.0.0.2:8080/x?y"),
            Some(("127.0.0.2".into(), 8080, false))
        );
        assert_eq!(endpoint("https://[::1]:9/x"), Some(("::1".into(), 9, true)));
        assert_eq!(endpoint("ftp://h/x"), None);
        assert_eq!(endpoint("https://h:notaport/x"), None);
    }

    #[test]
    fn the_reason_reads_the_status_from_the_deciding_record() {
        let d = failed(Cause::ProxyRefused);
        assert_eq!(
            remote_reason(&d, "Connection failed (ERR_PROXY_TUNNEL): Proxy refused to open a tunnel: 407 Proxy Authentication Required").unwrap(),
            "proxy refused (407)"
        );
        assert_eq!(
            remote_reason(&d, "Connection failed (407): Error POSTing to endpoint: x").unwrap(),
            "proxy refused (407)"
        );
        let d = failed(Cause::AuthHeaderRejected);
        assert_eq!(
            remote_reason(
                &d,
                "Server rejected the configured Authorization header (HTTP 403). Check"
            )
            .unwrap(),
            "configured Authorization header refused (HTTP 403)"
        );
    }
}
