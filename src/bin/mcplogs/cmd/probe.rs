//! `mcplogs probe`: from its flags (`cli::ProbeArgs`) to the rendered probe and its exit
//! code; the logic is in `mcplogs::probe`.

use crate::cli::{ProbeArgs, ProbeFormat};
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;
use mcplogs::claude_code::config::{ServerConfig, TransportKind};
use mcplogs::claude_code::flags::CachedFlags;
use mcplogs::json_doc;
use mcplogs::probe::predict::NEWEST_KNOWN;
use mcplogs::probe::{self as probe, Budget, ClaudeVersion, Limits, ProbeOptions, ServerProbe};
use mcplogs::redact::Redactor;
use mcplogs::render::probe as render;
use mcplogs::safe_read;
use mcplogs::settings::{Sources, effective_negotiation};
use std::path::PathBuf;
use std::time::Duration;

/// `MCP_TIMEOUT` and `MCP_CONNECT_TIMEOUT_MS` from the settings layers and the
/// environment, as `version` reads them.
fn read_timeouts(sources: &Sources, version: ClaudeVersion) -> probe::ProbeTimeouts {
    use mcplogs::claude_code::lifecycle::{CONNECT_TIMEOUT_VAR, MCP_TIMEOUT_VAR};
    use mcplogs::settings::env::env_values;
    let layers = |var: &str| env_values(sources, var, std::env::var(var).ok());
    probe::ProbeTimeouts::from_layers(
        version,
        &layers(MCP_TIMEOUT_VAR),
        &layers(CONNECT_TIMEOUT_VAR),
    )
}

/// `MCP_SDK_GENERATION` from the settings layers and the environment, as Claude Code
/// reads it (the highest layer that sets it wins, as for `MCP_PROTOCOL_NEGOTIATION`):
/// the value and the layer that sets it.
fn read_sdk_generation(sources: &Sources) -> Option<(String, String)> {
    mcplogs::settings::env::effective_value(
        sources,
        mcplogs::claude_code::lifecycle::SDK_GENERATION_VAR,
    )
}

/// The feature flags that pick the handshake, cached in the `.claude.json` of `homes`
/// (the first; none: this machine's, as `scan --home` and `fix --home` read it), and the
/// variable (settings layers' `env` or the environment) that turns Claude Code's flags
/// off, if one does (the resolution `scan`'s advice uses too).
fn read_flags(
    sources: &Sources,
    homes: &[std::path::PathBuf],
) -> (Option<serde_json::Value>, CachedFlags) {
    mcplogs::settings::env::cached_flags_in(sources, homes.first().map(std::path::PathBuf::as_path))
}

/// The prediction's dependency on the cached client flag (`MCP_SDK_GENERATION` unset on a
/// build with two clients), read from the home's `.claude.json`.
fn client_flag(
    sdk: Option<&(String, String)>,
    version: ClaudeVersion,
    doc: Option<&serde_json::Value>,
    flags: &CachedFlags,
) -> Option<probe::FlagDependency> {
    use mcplogs::claude_code::lifecycle::CLIENT_FLAG;
    let cached = doc.map(|d| {
        d.get("cachedGrowthBookFeatures")
            .and_then(|f| f.get(CLIENT_FLAG))
    });
    probe::client_flag_dependency(sdk.is_some(), version, cached, flags.off_by.as_deref())
}

/// Each request waits Claude Code's `MCP_TIMEOUT`; `--timeout`, when given, bounds the
/// whole connection (and may stop the probe before Claude Code's limit: the prediction
/// then says so).
fn limits_for(
    timeout: Option<Duration>,
    timeouts: &probe::ProbeTimeouts,
    max_pages: usize,
) -> Limits {
    Limits {
        budget: timeout.unwrap_or(NO_BUDGET),
        request_wait: Some(Duration::from_millis(timeouts.request.ms)),
        max_pages,
        ..Limits::default()
    }
}

/// Without `--timeout` the connection has no budget of its own (each request is bounded).
const NO_BUDGET: Duration = Duration::from_secs(24 * 3600);

/// Every server at once: each probe waits on its own process or socket.
fn probe_all(servers: &[ServerConfig], opts: &ProbeOptions) -> Vec<ServerProbe> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = servers
            .iter()
            .map(|s| scope.spawn(|| probe::probe_server(s, opts)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a probe thread panicked"))
            .collect()
    })
}

/// The servers that may be started without being named
/// ([`mcplogs::claude_code::config::probe_approvals`]);
/// one note on stderr per project server left out, saying how to probe it anyway, its
/// name as `scan` shows it and the configured values `names` knows hidden
/// ([`shown_name`]).
fn started_unasked(
    servers: Vec<ServerConfig>,
    how: &str,
    names: &Redactor,
    homes: &[PathBuf],
) -> Vec<ServerConfig> {
    use mcplogs::claude_code::config::ServerState;
    // Claude Code does not start these in this project: probing them would say nothing
    // about what it sees.
    let (servers, off): (Vec<_>, Vec<_>) = servers
        .into_iter()
        .partition(|s| matches!(s.state, ServerState::Starts | ServerState::PendingApproval));
    for s in &off {
        if let Some(line) =
            mcplogs::advice::configured::probe_left_out(&as_shown(s, names), None, homes)
        {
            names_note(names, &line);
        }
    }
    use mcplogs::claude_code::config::{ProbeApproval, probe_approvals};
    // one decision per server, each git index read once
    let approvals = probe_approvals(&servers.iter().collect::<Vec<_>>());
    let mut run = Vec::new();
    for (s, approval) in servers.into_iter().zip(approvals) {
        if approval == ProbeApproval::Unasked {
            run.push(s);
        } else {
            names_note(
                names,
                &not_probed_line(&shown_name(names, &s.name), &approval, how),
            );
        }
    }
    run
}

/// The servers mcplogs can probe, and how many are of a type it cannot
/// ([`ServerConfig::unprobed_type`]), each named in a note on stderr (as `scan` shows
/// it, [`shown_name`]): started as a stdio server, such an entry was predicted to fail
/// on every build (helper-88 #12), a check that never ran.
fn probeable(servers: Vec<ServerConfig>, names: &Redactor) -> (Vec<ServerConfig>, usize) {
    let (servers, unprobed): (Vec<_>, Vec<_>) =
        servers.into_iter().partition(|s| s.unprobed_type.is_none());
    for s in &unprobed {
        names_note(
            names,
            &format!(
                "mcplogs: note: {} is a {:?} server, a type mcplogs cannot probe (it probes stdio, http and sse servers): not probed, nothing predicted for it",
                shown_name(names, &s.name),
                s.unprobed_type.as_deref().unwrap_or_default()
            ),
        );
    }
    (servers, unprobed.len())
}

/// `s` named as [`shown_name`] prints its name, for a line about it.
fn as_shown(s: &ServerConfig, names: &Redactor) -> ServerConfig {
    let mut s = s.clone();
    s.name = shown_name(names, &s.name);
    s
}

/// [`note`] of a line naming configured servers: what else it quotes of the
/// configuration (a key naming a server) hidden by `names` too.
fn names_note(names: &Redactor, line: &str) {
    note(names.redact(line));
}

/// A configured server's name as `scan` shows it ([`mcplogs::scan::select::shown_by`]
/// with the configuration's secrets: `cfg-VALUE`, VALUE a configured value, is
/// `cfg-[REDACTED:config]`), the form every name the probe prints takes and which
/// `probe NAME` takes too; as it is with `--no-redact` (`names` disabled). Escaped as
/// scan escapes a name: a colour sequence in it never reaches a colour terminal through
/// a note (which keeps the colours it is given).
fn shown_name(names: &Redactor, real: &str) -> String {
    mcplogs::text::terminal_safe(&mcplogs::scan::select::shown_by(names, real), false)
}

/// The redactor of a project's configured values for the names the probe prints
/// ([`shown_name`]): every value its configuration marks as secret, as `scan` and
/// `settings` hide them in a name; disabled with `--no-redact`.
fn names_redactor(
    secrets: &mcplogs::redact::configured::ConfiguredSecrets,
    enabled: bool,
) -> Redactor {
    render::redactor(&[], secrets, enabled)
}

/// The command that probes a named server of `project` from `cwd`: `mcplogs probe`,
/// with `--project DIR` when the project is not the current folder, and the `--home`
/// flags of `homes` (the configuration read).
fn probe_command(project: &std::path::Path, cwd: &std::path::Path, homes: &[PathBuf]) -> String {
    let homes = mcplogs::advice::home_flags(homes);
    if project == cwd {
        format!("mcplogs probe{homes}")
    } else {
        format!(
            "mcplogs probe{homes} --project {}",
            mcplogs::text::shell_word_typed_quoted(&project.to_string_lossy())
        )
    }
}

/// Why a project server was not probed unasked: no approval at all, or the approvals
/// mcplogs does not count (file, key and why), and how to probe it anyway: `shown`, the
/// name as printed ([`shown_name`]), which that command takes.
fn not_probed_line(
    shown: &str,
    approval: &mcplogs::claude_code::config::ProbeApproval,
    how: &str,
) -> String {
    use mcplogs::claude_code::config::ProbeApproval;
    // (a code span holding it whole: a name can hold a backtick)
    let named = mcplogs::text::code_span(&format!("{} {}", how, mcplogs::advice::name_word(shown)));
    match approval {
        ProbeApproval::NotCounted(list) => {
            let what: Vec<String> = list
                .iter()
                .map(|(d, why)| format!("{} in {} ({why})", d.key, d.file.display()))
                .collect();
            // an approval in the project's settings.local.json that mcplogs cannot tell
            // from the project's own: listing it there again would not count either
            let advice = if list.iter().any(|(d, _)| d.layer == "local") {
                format!("Name it to probe it anyway: {named}")
            } else {
                format!(
                    "To have it probed unasked, list it in enabledMcpjsonServers of this project's .claude/settings.local.json (where Claude Code records your approval) or of your ~/.claude/settings.json; or name it to probe it anyway: {named}"
                )
            };
            format!(
                "mcplogs: \"{}\": not probed: a project server (.mcp.json) approved only by {}; mcplogs does not count that approval. {advice}",
                shown,
                what.join(" and ")
            )
        }
        _ => format!(
            "mcplogs: \"{}\": not probed: a project server (.mcp.json) that no settings file approves (interactive Claude Code asks before starting it); its command and URL come with the project, so mcplogs starts it only when named: {named}",
            shown
        ),
    }
}

/// Probes the servers a report covers (`covered`: each name with its project folder,
/// the current folder when it has none here), each in its own project with that
/// project's settings, for `mcplogs report --probe`: the probes, in the report's order,
/// and the redactor that knows their configured secrets ([`render::redactor`]). A
/// covered server no longer configured in its project, or one mcplogs may not start
/// unasked, is left out with a line on stderr.
pub fn probe_for_report(
    covered: &[(String, Option<String>)],
    cwd: &std::path::Path,
    homes: &[PathBuf],
    managed_dir: Option<&std::path::Path>,
) -> (Vec<ServerProbe>, Redactor) {
    let version = probe::installed_claude_version().unwrap_or(NEWEST_KNOWN);
    let _ = crate::exit_codes::install_interrupt_handler();
    // A report that covers no server (`--force` with no log) probes the current
    // folder's configured servers: the servers as they answer now are its content.
    let here: Vec<(String, Option<String>)>;
    let covered = if covered.is_empty() {
        here = mcplogs::resolve::configured_in(homes, cwd, managed_dir)
            .servers
            .into_iter()
            .map(|s| (s.name, None))
            .collect();
        &here
    } else {
        covered
    };
    // one group per project folder, in the order the report first names it
    let mut groups: Vec<(std::path::PathBuf, Vec<&str>)> = Vec::new();
    for (name, project) in covered {
        let dir = project
            .as_deref()
            .map(std::path::Path::new)
            .filter(|p| p.is_absolute() && p.is_dir())
            .map_or_else(|| cwd.to_path_buf(), std::path::Path::to_path_buf);
        match groups.iter_mut().find(|(d, _)| *d == dir) {
            Some((_, names)) => {
                if !names.contains(&name.as_str()) {
                    names.push(name)
                }
            }
            None => groups.push((dir, vec![name])),
        }
    }
    // Every value the configuration marks as secret, read once: the covered projects',
    // the managed files', and every project the home lists (as `scan` reads them), for
    // the names on stderr and the probes' redaction
    let secrets = mcplogs::scan::secrets::collect(&mcplogs::scan::secrets::Places {
        homes: homes.to_vec(),
        projects: groups.iter().map(|(dir, _)| dir.clone()).collect(),
        managed_dir: managed_dir.map(std::path::Path::to_path_buf),
        listed: true,
    });
    // the names on stderr as `scan` shows them
    let names_r = names_redactor(&secrets, true);
    let mut probes = Vec::new();
    let mut all_servers = Vec::new();
    for (project, names) in groups {
        // resolved as `scan` resolves the project (its settings, the managed folder)
        let sources = mcplogs::resolve::sources_for(homes, &project, managed_dir);
        let resolved = mcplogs::resolve::configured_in(homes, &project, managed_dir);
        let mut wanted = Vec::new();
        for n in &names {
            match resolved.servers.iter().find(|s| s.name == *n) {
                Some(s) => wanted.push(s.clone()),
                None => names_note(
                    &names_r,
                    &format!(
                        "mcplogs: \"{}\": not probed: no longer configured for {}",
                        shown_name(&names_r, n),
                        project.display()
                    ),
                ),
            }
        }
        let servers = started_unasked(
            wanted,
            &probe_command(&project, cwd, homes),
            &names_r,
            homes,
        );
        if servers.is_empty() {
            continue;
        }
        let negotiation = effective_negotiation(&sources);
        let timeouts = read_timeouts(&sources, version);
        let sdk = read_sdk_generation(&sources);
        let (doc, flags) = read_flags(&sources, homes);
        let flag_v1 =
            client_flag(sdk.as_ref(), version, doc.as_ref(), &flags).is_some_and(|f| f.sdk_v1);
        let opts = ProbeOptions {
            extra_ca: mcplogs::settings::ca::extra_ca_in_effect(&sources).map(std::sync::Arc::new),
            claude_version: version,
            negotiation: negotiation.value().cloned(),
            sdk_v1: sdk.as_ref().is_some_and(|(v, _)| v == "v1") || flag_v1,
            flags,
            limits: limits_for(None, &timeouts, Limits::default().max_pages),
            budget: Budget::new(None, &timeouts),
            timeouts,
            project_dir: Some(project.clone()),
            both_modes: false,
            watch: None,
            settings: Some(std::sync::Arc::new(
                mcplogs::settings::target::SettingsAdvice {
                    // the fix commands it prints carry the homes read
                    homes: homes.to_vec(),
                    ..mcplogs::settings::target::SettingsAdvice::for_project_as_fix_plans(
                        &negotiation,
                    )
                },
            )),
        };
        probes.extend(probe_all(&servers, &opts));
        all_servers.extend(servers);
    }
    let redactor = render::redactor(&all_servers.iter().collect::<Vec<_>>(), &secrets, true);
    mark_hidden(&mut probes, &redactor);
    (probes, redactor)
}

/// Marks what `redactor` hides of each probe's command to run by hand (a configured
/// value in its folder's path or its arguments: [`probe::ServerProbe::mark_hidden`]).
fn mark_hidden(probes: &mut [ServerProbe], redactor: &Redactor) {
    if !redactor.is_enabled() {
        return;
    }
    let hides = |t: &str| redactor.redact(t).contains("[REDACTED:") && !t.contains("[REDACTED:");
    for p in probes {
        p.mark_hidden(&hides);
    }
}

pub fn run(args: ProbeArgs) -> Result<ExitCode, Error> {
    let format = if args.json {
        ProbeFormat::Json
    } else {
        args.format.unwrap_or(ProbeFormat::Text)
    };
    if format == ProbeFormat::Junit && !args.contract {
        return Err(Error::JunitWithoutContract);
    }
    let project = match &args.project {
        Some(p) if !p.is_dir() => return Err(Error::NotAFolder(p.clone())),
        Some(p) => std::path::absolute(p),
        None => std::env::current_dir(),
    };
    let project = project.map_err(Error::ProjectFolder)?;

    let (version, version_source) = match &args.claude_version {
        Some(v) => match ClaudeVersion::parse(v) {
            Some(v) => (v, "flag"),
            None => {
                return Err(Error::ClaudeVersion(v.clone()));
            }
        },
        None => match probe::installed_claude_version() {
            Some(v) => (v, "installed"),
            None => (NEWEST_KNOWN, "newest-known"),
        },
    };
    let model_note = version.model_note();
    if let Some(n) = &model_note {
        note(format!("mcplogs: note: {n}"));
    }

    // the project's settings and configuration as `scan` resolves them
    let sources = mcplogs::resolve::sources_for(&args.home, &project, args.managed_dir.as_deref());
    let negotiation = effective_negotiation(&sources);
    let negotiation_value = negotiation.value().cloned();
    let sdk = read_sdk_generation(&sources);
    let sdk_note = sdk
        .as_ref()
        .and_then(|(v, by)| probe::sdk_generation_note(Some(v), by, version));
    if let Some(n) = &sdk_note {
        note(format!("mcplogs: note: {n}"));
    }
    let (claude_json, cached_flags) = read_flags(&sources, &args.home);
    let flag = client_flag(sdk.as_ref(), version, claude_json.as_ref(), &cached_flags);
    if let Some(f) = &flag {
        note(format!("mcplogs: note: {}", f.note));
    }

    // Every value the configuration marks as secret, not only the probed servers'.
    let secrets = if args.no_redact {
        mcplogs::redact::configured::ConfiguredSecrets::new()
    } else {
        // (every project the home lists too, as `scan` reads them: a name holding
        // another project's configured value is shown as scan shows it)
        mcplogs::scan::secrets::collect(&mcplogs::scan::secrets::Places {
            homes: args.home.clone(),
            projects: vec![project.clone()],
            managed_dir: args.managed_dir.clone(),
            listed: true,
        })
    };
    // every server name printed as `scan` shows it (a configured value in it hidden)
    let names_r = std::sync::Arc::new(names_redactor(&secrets, !args.no_redact));
    let shown = |real: &str| shown_name(&names_r, real);

    // which servers
    if let (Some(first), Some(flag)) = (
        args.names.first(),
        match (&args.command, &args.url) {
            (Some(_), _) => Some("--command"),
            (None, Some(_)) => Some("--url"),
            (None, None) => None,
        },
    ) {
        return Err(Error::ProbeNameWithServer {
            flag,
            name: names_r.redact(first),
        });
    }
    let servers: Vec<ServerConfig> = if let Some(cmd) = &args.command {
        match ServerConfig::from_command(cmd, &args.command_args) {
            Ok(c) => vec![c],
            Err(source) => {
                return Err(Error::ProbeServer {
                    flag: "--command",
                    source,
                });
            }
        }
    } else if let Some(url) = &args.url {
        let kind = if args.sse {
            TransportKind::Sse
        } else {
            TransportKind::Http
        };
        match ServerConfig::from_url(url, &args.headers, kind) {
            Ok(c) => vec![c],
            Err(source) => {
                return Err(Error::ProbeServer {
                    flag: "--url",
                    source,
                });
            }
        }
    } else {
        // The same settings layers and managed folder (`--managed-dir`) as the negotiation.
        let resolved =
            mcplogs::resolve::configured_in(&args.home, &project, args.managed_dir.as_deref());
        for p in &resolved.problems {
            output::warning(p);
        }
        if args.names.is_empty() {
            if resolved.servers.is_empty() {
                let searched: Vec<String> = resolved
                    .searched
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect();
                note(format!(
                    "mcplogs: no MCP server configured for {} (searched: {})",
                    project.display(),
                    searched.join(", ")
                ));
                // A configuration file that could not be read (its warning is above)
                // may hold the servers: that is an I/O error, not "nothing configured".
                if !resolved.problems.is_empty() {
                    return Ok(ExitCode::Error);
                }
                // A CI job whose target went missing must not stay green.
                if args.contract {
                    return Err(Error::ContractWithoutServer { project });
                }
                // `--json` prints its one document (with no servers) on exit 0 too.
                if format != ProbeFormat::Json {
                    return Ok(ExitCode::Clean);
                }
            }
            let cwd = std::env::current_dir().unwrap_or_default();
            let servers = started_unasked(
                resolved.servers,
                &probe_command(&project, &cwd, &args.home),
                &names_r,
                &args.home,
            );
            let (servers, _) = probeable(servers, &names_r);
            if servers.is_empty() && args.contract {
                return Err(Error::ContractWithoutServer { project });
            }
            if servers.is_empty() && format != ProbeFormat::Json {
                return Ok(ExitCode::Clean);
            }
            servers
        } else {
            let mut picked = Vec::new();
            let mut unknown = false;
            for n in &args.names {
                // as written or as printed (a name holding a token is printed redacted,
                // one holding a configured value too: `cfg-[REDACTED:config]`, as scan
                // shows it)
                let want = if args.no_redact {
                    mcplogs::scan::select::NameWant::new(n)
                } else {
                    mcplogs::scan::select::NameWant::shown_by(n, std::sync::Arc::clone(&names_r))
                };
                let selected: Vec<&ServerConfig> = resolved
                    .servers
                    .iter()
                    .filter(|s| want.is(&s.name))
                    .collect();
                // a printed form naming several servers printing alike: which one?
                if let Some(e) = want.ambiguous(selected.iter().map(|s| s.name.as_str())) {
                    return Err(Error::AmbiguousName(e));
                }
                match selected.first() {
                    Some(s) => {
                        if let Some(line) = mcplogs::advice::configured::probe_named_note(
                            &as_shown(s, &names_r),
                            None,
                            &args.home,
                        ) {
                            names_note(&names_r, &line);
                        }
                        picked.push((*s).clone())
                    }
                    None => {
                        unknown = true;
                        // echoed as printed: never a token or configured value a name holds
                        let n = names_r.redact(want.echo());
                        let names: Vec<String> =
                            resolved.servers.iter().map(|s| shown(&s.name)).collect();
                        let line = match mcplogs::claude_code::names::did_you_mean(
                            &n,
                            names.iter().map(String::as_str),
                        ) {
                            Some(s) => format!(
                                "mcplogs: no server named {n:?} is configured for {}; did you mean {s:?}?",
                                project.display()
                            ),
                            None => format!(
                                "mcplogs: no server named {n:?} is configured for {} (configured: {})",
                                project.display(),
                                if names.is_empty() {
                                    "none".to_string()
                                } else {
                                    names.join(", ")
                                }
                            ),
                        };
                        names_note(&names_r, &line);
                    }
                }
            }
            if unknown {
                return Err(Error::UnknownServers(args.names.len() - picked.len()));
            }
            // named, and of a type mcplogs cannot probe: never probed as another type
            let (picked, unprobed) = probeable(picked, &names_r);
            if unprobed > 0 {
                return Err(Error::UnprobedTypes(unprobed));
            }
            picked
        }
    };

    // Opened before any server starts: a FIFO, device or folder is refused at once
    // (never opened for a blocking write), and a new file is 0600.
    let transcript = match args.transcript.as_deref() {
        None => None,
        Some(p) if p == std::path::Path::new("-") => {
            if format != ProbeFormat::Text {
                return Err(Error::TranscriptAndJsonOnStdout);
            }
            Some(None)
        }
        Some(p) => Some(Some(safe_read::create_private(p).map_err(|source| {
            Error::OpenTranscript {
                path: p.to_path_buf(),
                source,
            }
        })?)),
    };

    if let Err(e) = crate::exit_codes::install_interrupt_handler() {
        output::warning(format_args!(
            "cannot catch Ctrl-C ({e}); an interrupted probe may leave a server running"
        ));
    }
    // the negotiation flags the prediction rests on (once the servers are known)
    let sdk_v1_in_effect =
        sdk.as_ref().is_some_and(|(v, _)| v == "v1") || flag.as_ref().is_some_and(|f| f.sdk_v1);
    let mut flag = flag.into_iter().collect::<Vec<_>>();
    for f in probe::negotiation_flag_dependencies(
        &servers,
        negotiation_value.as_ref(),
        sdk_v1_in_effect,
        &cached_flags,
        version,
    ) {
        note(format!("mcplogs: note: {}", f.note));
        flag.push(f);
    }
    let timeouts = read_timeouts(&sources, version);
    let budget = Budget::new(args.timeout, &timeouts);
    let progress = crate::progress::ProbeProgress::new(budget.describe());
    let opts = ProbeOptions {
        extra_ca: mcplogs::settings::ca::extra_ca_in_effect(&sources).map(std::sync::Arc::new),
        claude_version: version,
        negotiation: negotiation_value.clone(),
        sdk_v1: sdk_v1_in_effect,
        flags: cached_flags.clone(),
        limits: limits_for(args.timeout, &timeouts, args.max_pages),
        timeouts: timeouts.clone(),
        project_dir: Some(project.clone()),
        both_modes: args.contract,
        budget: budget.clone(),
        watch: progress.watch(),
        // the project's settings as `scan` resolves them: the same legacy advice
        settings: Some(std::sync::Arc::new(
            mcplogs::settings::target::SettingsAdvice {
                // the fix commands it prints carry `--home`, as `scan --home`'s do
                homes: args.home.clone(),
                ..mcplogs::settings::target::SettingsAdvice::for_project_as_fix_plans(&negotiation)
            },
        )),
    };
    let mut probes = probe_all(&servers, &opts);
    progress.finish();
    if !args.no_redact {
        // a name holding a secret printed with its tag, as `scan` prints it (names
        // printing alike told apart): the redaction below hides the name, not the tag
        for p in &mut probes {
            p.config.name = mcplogs::scan::select::tagged(&p.config.name);
        }
    }
    let redactor = render::redactor(
        &servers.iter().collect::<Vec<_>>(),
        &secrets,
        !args.no_redact,
    );
    mark_hidden(&mut probes, &redactor);
    let contracts: Vec<Vec<probe::ContractCheck>> = if args.contract {
        probes.iter().map(|p| probe::contract(p, &budget)).collect()
    } else {
        Vec::new()
    };

    if let Some(file) = transcript {
        let text = render::transcript_lines(&probes, &redactor)?;
        match file {
            None => output::stdout(&text)?,
            Some(mut f) => {
                use std::io::Write;
                f.write_all(text.as_bytes())
                    .and_then(|_| f.flush())
                    .map_err(|source| Error::WriteTranscript {
                        path: args.transcript.clone().unwrap_or_default(),
                        source,
                    })?
            }
        }
    }

    let on_terminal = {
        use std::io::IsTerminal;
        std::io::stdout().is_terminal()
    };
    let decided_by = negotiation.deciding_layer().map(|l| match &l.path {
        Some(p) => format!("{} ({})", l.kind.as_str(), p.display()),
        None => l.kind.as_str().to_string(),
    });
    let text = if format == ProbeFormat::Junit {
        // Not redacted again as a whole: the renderer redacts every text before it
        // escapes it (a replacement made after escaping could cut an entity in half).
        render::junit(&probes, &contracts, &redactor)
    } else if format == ProbeFormat::Json {
        // (every path and note as redacted as the servers' fields: a project folder or
        // a settings file's path can hold a configured value)
        let doc = json_doc::ProbeDocument {
            schema_version: json_doc::PROBE_SCHEMA_VERSION,
            project: redactor.redact(&project.display().to_string()),
            claude_version: version.to_string(),
            claude_version_source: version_source.to_string(),
            claude_version_note: model_note.clone(),
            negotiation: json_doc::ProbeNegotiation {
                value: negotiation_value.as_ref().map(|v| v.as_str().to_string()),
                decided_by: decided_by.map(|d| redactor.redact(&d)),
            },
            sdk_generation: json_doc::ProbeSdkGeneration {
                value: sdk.as_ref().map(|(v, _)| v.clone()),
                decided_by: sdk.as_ref().map(|(_, by)| by.clone()),
                note: sdk_note.clone(),
            },
            flags: flag
                .iter()
                .map(|f| json_doc::ProbeFlag {
                    name: f.name.clone(),
                    value: f.value.clone(),
                    read: f.read,
                    note: f.note.clone(),
                })
                .collect(),
            timeouts: render::timeouts_json(&timeouts, &redactor),
            servers: probes
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    render::server_json(p, contracts.get(i).map(Vec::as_slice), &redactor)
                })
                .collect(),
        };
        // Each field was redacted as the document was built; the secret rules pass over
        // the whole document once more (as every command's JSON), then the one JSON
        // printer writes it (DEL, C1 and bidi controls `\u`-escaped).
        let mut v = serde_json::to_value(&doc)?;
        if redactor.is_enabled() {
            mcplogs::redact::output::json_secrets(&mut v);
        }
        output::json(&v)?
    } else {
        // Piped, nothing is cut or wrapped (COLUMNS or not): a CI log keeps every reason.
        let width = if on_terminal { output::width() } else { None };
        let mut out = String::new();
        for (i, p) in probes.iter().enumerate() {
            out.push_str(&render::summary_text(
                p,
                contracts.get(i).map(Vec::as_slice),
                width,
                &redactor,
            ));
        }
        for (i, p) in probes.iter().enumerate() {
            out.push('\n');
            out.push_str(&render::server_text(p, width, &redactor));
            if let Some(c) = contracts.get(i) {
                out.push_str(&render::contract_text(c, width, &redactor));
            }
        }
        // Each field was redacted before it was cut to fit; the secret rules pass over
        // the finished text once more, as over every command's output.
        if redactor.is_enabled() {
            mcplogs::redact::output::text(&out)
        } else {
            out
        }
    };
    if format == ProbeFormat::Text && on_terminal {
        output::screen(&text)?;
    } else {
        output::stdout(&text)?;
    }
    Ok(exit_code(&args, &probes, &contracts))
}

fn exit_code(
    args: &ProbeArgs,
    probes: &[ServerProbe],
    contracts: &[Vec<probe::ContractCheck>],
) -> ExitCode {
    let problems = if args.contract {
        contracts.iter().flatten().any(|c| c.passed == Some(false))
    } else {
        probes.iter().any(|p| p.prediction.verdict.is_problem())
    };
    ExitCode::from_problems(problems)
}

/// A line on stderr with its secrets hidden: server names and commands come from
/// configuration files, and a name can hold a token (`tok_ghp_…`).
fn note(line: String) {
    output::note(mcplogs::redact::output::text(&line));
}
