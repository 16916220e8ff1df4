//! `mcplogs probe`: replay Claude Code's handshake against a configured server and
//! predict what a given Claude Code build will do with it.
//!
//! [`crate::claude_code::config`] resolves the servers the way Claude Code does; [`transport`] speaks stdio,
//! Streamable HTTP and legacy SSE, bounded, ending everything a stdio server started
//! (`reap`) and sending configured headers only to the configured origin;
//! [`session`] drives the lifecycle exactly as Claude Code does on the wire and records
//! steps and a transcript; [`validate`] applies Claude Code's checks field by field;
//! [`predict`] turns all that into a verdict per Claude Code version and negotiation
//! setting; [`crate::render::probe`] builds the JSON document, the transcript lines and the text.

pub mod oauth;
pub mod predict;
mod reap;
pub mod session;
pub mod transport;
pub mod validate;

use std::path::PathBuf;
use std::time::Instant;

use crate::claude_code::lifecycle;
use crate::settings::NegotiationValue;

pub use crate::claude_code::config::{ServerConfig, TransportKind};
/// The builds every contract check answers for (`claude_code::lifecycle`'s).
pub use crate::claude_code::lifecycle::CONTRACT_BUILDS;
pub use predict::{ClaudeVersion, Prediction, ProbeTimeouts, TimeoutSetting};
pub use session::{Attempt, Limits, Mode};

use session::Step;
use transport::{Failure, HttpTransport, SseTransport, StdioTransport, Transport};
use validate::ListCheck;

/// What a probe assumes about Claude Code.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    pub claude_version: ClaudeVersion,
    /// The effective `MCP_PROTOCOL_NEGOTIATION` (None: nothing set).
    pub negotiation: Option<NegotiationValue>,
    /// `MCP_SDK_GENERATION=v1` is in effect: every build observed then uses the classic
    /// handshake, whatever `negotiation` says (`lifecycle::SDK_V1`).
    pub sdk_v1: bool,
    /// The feature flags cached in `.claude.json` that pick the handshake when
    /// `negotiation` is unset (`claude_code::flags`), and whether Claude Code reads them.
    pub flags: crate::claude_code::flags::CachedFlags,
    /// `MCP_TIMEOUT` and `MCP_CONNECT_TIMEOUT_MS` as Claude Code will apply them; the
    /// probe waits `MCP_TIMEOUT` for each request ([`Limits::request_wait`]).
    pub timeouts: ProbeTimeouts,
    pub limits: Limits,
    /// Where stdio servers start (Claude Code starts them in the project folder).
    pub project_dir: Option<PathBuf>,
    /// Run both handshakes even when the prediction needs only one (`--contract`).
    pub both_modes: bool,
    /// What bounds each connection, as every sentence about time names it.
    pub budget: Budget,
    /// Where each server's current step is kept for a live display (`None`: nowhere).
    pub watch: Option<Watch>,
    /// The settings of the project probed in, as `scan` resolves them for its servers
    /// ([`crate::settings::target::SettingsAdvice::for_project`]): the legacy advice
    /// names the file `mcplogs fix` writes there, or says the fix is in place, in
    /// `scan`'s words. `None`: not known (the advice names no file).
    pub settings: Option<std::sync::Arc<crate::settings::target::SettingsAdvice>>,
    /// The CA file `NODE_EXTRA_CA_CERTS` names in the project probed in (its settings, or
    /// the environment): Claude Code trusts its certificates beside the public ones, so
    /// the probe does too (helper-102 #2: a server Claude Code connected was predicted to
    /// fail for an untrusted certificate).
    pub extra_ca: Option<std::sync::Arc<crate::settings::ca::CaFile>>,
}

/// What one server's probe is doing now: the step and the wait it is in.
#[derive(Debug, Clone)]
pub struct Activity {
    pub server: String,
    /// `spawn`, `initialize`, `tools/list page 2`...; empty once done.
    pub step: String,
    /// When the wait began.
    pub since: Instant,
    /// When the wait ends at the latest.
    pub until: Instant,
    pub done: bool,
}

/// Every server's [`Activity`], shared with a display (the binary's progress line); the
/// library only writes it.
#[derive(Debug, Clone, Default)]
pub struct Watch(std::sync::Arc<std::sync::Mutex<Vec<Activity>>>);

impl Watch {
    fn slot(&self, server: &str) -> WatchSlot {
        let mut v = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        v.push(Activity {
            server: server.to_string(),
            step: String::new(),
            since: now,
            until: now,
            done: false,
        });
        WatchSlot {
            watch: self.clone(),
            index: v.len() - 1,
        }
    }

    /// A copy of every server's activity.
    pub fn snapshot(&self) -> Vec<Activity> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// One server's place in a [`Watch`].
#[derive(Debug, Clone)]
pub struct WatchSlot {
    watch: Watch,
    index: usize,
}

impl WatchSlot {
    /// The step now waited for, until `until`.
    pub fn step(&self, step: &str, until: Instant) {
        let mut v = self.watch.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(a) = v.get_mut(self.index) {
            a.step = step.to_string();
            a.since = Instant::now();
            a.until = until;
        }
    }

    fn done(&self) {
        let mut v = self.watch.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(a) = v.get_mut(self.index) {
            a.done = true;
            a.step.clear();
        }
    }
}

/// The one account of how long the probe waits, which every sentence about time
/// names: `--timeout` when given, else Claude Code's `MCP_TIMEOUT` (from the layer that
/// sets it, or Claude Code's default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    /// Milliseconds per connection (`--timeout`) or per request (`MCP_TIMEOUT`).
    pub ms: u64,
    /// Set by `--timeout`; otherwise `MCP_TIMEOUT` decides ([`Budget::limit`]).
    pub from_flag: bool,
    /// Claude Code's own limit, as the settings decide it.
    pub limit: TimeoutSetting,
}

impl Budget {
    pub fn new(flag: Option<std::time::Duration>, timeouts: &ProbeTimeouts) -> Budget {
        Budget {
            ms: flag.map_or(timeouts.request.ms, |d| d.as_millis() as u64),
            from_flag: flag.is_some(),
            limit: timeouts.request.clone(),
        }
    }

    /// `--timeout 3000 ms`, `MCP_TIMEOUT=300 ms (environment)`, `MCP_TIMEOUT 30000 ms
    /// (default)` ([`TimeoutSetting::describe`], the one wording).
    pub fn describe(&self) -> String {
        if self.from_flag {
            format!("--timeout {} ms", self.ms)
        } else {
            self.describe_limit()
        }
    }

    /// Claude Code's own limit: `MCP_TIMEOUT=300 ms (environment)`, `MCP_TIMEOUT 30000
    /// ms (default)`.
    pub fn describe_limit(&self) -> String {
        self.limit.describe()
    }

    /// Whether `--timeout` stops the probe before Claude Code's own limit: a server
    /// silent that long may still answer Claude Code.
    pub fn shorter_than_claude_code(&self) -> bool {
        self.from_flag && self.ms < self.limit.ms
    }

    /// Whether `p` is a timeout this budget caused before Claude Code's own limit: the
    /// probe cannot tell what Claude Code gets.
    pub fn cuts_short(&self, p: &Prediction) -> bool {
        use crate::classify::verdict::Cause;
        self.shorter_than_claude_code()
            && matches!(p.cause, Some(Cause::Timeout | Cause::ToolsTimeout))
    }

    /// `p` as the probe reports it: a timeout this budget caused before Claude Code's
    /// own limit is verdict `unknown` (its cause, the timeout, is kept), so the summary
    /// line, the JSON verdict and the exit code all say "cannot tell".
    pub fn settle(&self, mut p: Prediction) -> Prediction {
        if self.cuts_short(&p) {
            p.verdict = crate::classify::verdict::Verdict::Unknown;
        }
        p
    }

    /// The sentence for a wait the probe gave up before Claude Code would: what was
    /// waited, against what, and how to learn more.
    pub fn cut_short(&self, claude_version: ClaudeVersion) -> String {
        format!(
            "The probe stopped waiting at {}, before Claude Code's limit, {}: run it again with a longer --timeout (above {} ms), or without one, to learn whether Claude Code {claude_version} gets an answer.",
            self.describe(),
            self.describe_limit(),
            self.limit.ms
        )
    }
}

/// Everything known about one server after probing it.
#[derive(Debug, Clone)]
pub struct ServerProbe {
    pub config: ServerConfig,
    /// One per handshake run (discover and/or legacy), in the order run.
    pub attempts: Vec<Attempt>,
    pub prediction: Prediction,
    pub with_legacy: Prediction,
    /// The tool checks of the attempt the prediction is based on.
    pub tools: ListCheck,
    /// The limits predicted with.
    pub timeouts: ProbeTimeouts,
    /// What the probe waited against.
    pub budget: Budget,
    /// The effective `MCP_PROTOCOL_NEGOTIATION` probed with.
    pub negotiation: Option<NegotiationValue>,
    /// `MCP_SDK_GENERATION=v1` was in effect ([`ProbeOptions::sdk_v1`]).
    pub sdk_v1: bool,
    /// [`ProbeOptions::flags`].
    pub flags: crate::claude_code::flags::CachedFlags,
    /// The handshakes the budget left no time for, and why.
    pub not_run: Vec<NotRun>,
    /// Where a stdio server was started (`ProbeOptions::project_dir`), for the command
    /// the advice gives to run by hand.
    pub project_dir: Option<PathBuf>,
    /// [`ProbeOptions::settings`].
    pub settings: Option<std::sync::Arc<crate::settings::target::SettingsAdvice>>,
    /// A remote server that asked for credentials (401, or 403 to a configured
    /// `Authorization` header): the refused header, or the OAuth discovery Claude Code
    /// follows ([`oauth`]); `None` otherwise.
    pub auth: Option<oauth::AuthCheck>,
    /// What the output's redaction hides of the command to run by hand (set by the
    /// caller, whose redactor decides: [`ServerProbe::mark_hidden`]; nothing when it
    /// does not redact).
    pub printed_hidden: crate::advice::ByHand,
}

/// A handshake the probe did not run: the whole probe of a server shares one budget,
/// and the attempts before it spent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotRun {
    pub mode: Mode,
    /// `not run: the budget of 3000 ms (--timeout 3000 ms) was spent on the discover
    /// handshake`.
    pub reason: String,
}

/// Less than this left of the budget and a further handshake is not started: it could
/// only time out, which would say nothing about the server.
const MIN_ATTEMPT: std::time::Duration = std::time::Duration::from_millis(100);

/// What one Claude Code build does with a server's tools (the summary line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every tool the server lists loads as it is.
    Keeps,
    /// Some load, but not all or not as listed (dropped, renamed, truncated lists).
    Changes,
    /// None load (the connection or the list fails).
    Loses,
    /// The probe stopped waiting before Claude Code would, or the build's handshake was
    /// not run: unknown.
    Unknown,
}

impl ServerProbe {
    /// What each modelled build (`claude_code::lifecycle::CONTRACT_BUILDS`, and the
    /// build predicted for when it is another one) does with the tools, from the
    /// handshakes run; a build whose handshake was not run is [`Outcome::Unknown`].
    pub fn build_outcomes(&self) -> Vec<(ClaudeVersion, Outcome)> {
        let mut builds = lifecycle::CONTRACT_BUILDS.to_vec();
        if !builds.contains(&self.prediction.claude_version) {
            builds.push(self.prediction.claude_version);
            builds.sort();
        }
        builds
            .into_iter()
            .map(|v| match self.build_prediction(v) {
                None => (v, Outcome::Unknown),
                Some((p, a)) => (v, self.outcome_of(&p, a)),
            })
            .collect()
    }

    /// What build `v` does with this server: its prediction from the handshake that
    /// build uses (with the negotiation probed with), and that handshake; `None` when
    /// the handshake was not run. The one per-build computation the summary line, the
    /// JSON and the contract's per-build failures share.
    pub fn build_prediction(&self, v: ClaudeVersion) -> Option<(Prediction, &Attempt)> {
        let handshake = handshake_setting(self.negotiation.as_ref(), self.sdk_v1);
        let mode = server_mode(
            &self.config,
            self.negotiation.as_ref(),
            self.sdk_v1,
            &self.flags,
            v,
        );
        let a = self.attempt(mode)?;
        let served = predict::Served {
            name: &self.config.name,
            transport: self.config.transport,
        };
        let p = predict::predict(
            a,
            self.config.transport,
            v,
            handshake.as_ref().map(|n| n.as_str().to_string()),
            &self.timeouts,
            &served,
        );
        let p = oauth::settle(p, a.failure.as_ref(), self.auth.as_ref());
        Some((self.budget.settle(p), a))
    }

    /// The modelled builds ([`lifecycle::CONTRACT_BUILDS`]) whose prediction `lost`
    /// says loses something: what a contract check names as its failing builds.
    fn builds_where(&self, lost: impl Fn(&Prediction) -> bool) -> Vec<ClaudeVersion> {
        lifecycle::CONTRACT_BUILDS
            .iter()
            .copied()
            .filter(|v| self.build_prediction(*v).is_some_and(|(p, _)| lost(&p)))
            .collect()
    }

    fn outcome_of(&self, p: &Prediction, a: &Attempt) -> Outcome {
        use crate::classify::verdict::Verdict;
        if self.cut_short_for(p) {
            return Outcome::Unknown;
        }
        match p.verdict {
            Verdict::Unknown => Outcome::Unknown,
            Verdict::ConnectionFailed | Verdict::VersionUnsupported | Verdict::ToolsFetchFailed => {
                Outcome::Loses
            }
            Verdict::Degraded => Outcome::Changes,
            Verdict::Healthy | Verdict::Tolerated => {
                let modern = a.era == Some(session::NegotiatedEra::Modern);
                let c = validate::check_pages(&a.pages, modern);
                if p.tools_loaded < c.returned || !predict::renamed_tools(&a.pages).is_empty() {
                    Outcome::Changes
                } else {
                    Outcome::Keeps
                }
            }
        }
    }
}

impl ServerProbe {
    pub fn attempt(&self, mode: Mode) -> Option<&Attempt> {
        self.attempts.iter().find(|a| a.mode == mode)
    }

    /// The attempt the prediction is based on.
    pub fn predicted_attempt(&self) -> &Attempt {
        self.attempt(self.prediction.mode)
            .expect("the predicted mode was run")
    }

    /// Whether the prediction's timeout is the probe's own `--timeout`, shorter than
    /// Claude Code's limit: what Claude Code concludes is then unknown.
    pub fn cut_short(&self) -> bool {
        self.cut_short_for(&self.prediction)
    }

    /// Whether `p` (the prediction, or the one with the legacy setting) is a timeout
    /// the probe's `--timeout` caused before Claude Code's own limit: it cannot tell.
    pub fn cut_short_for(&self, p: &Prediction) -> bool {
        self.budget.cuts_short(p)
    }

    /// Whether `MCP_PROTOCOL_NEGOTIATION=legacy` turns a failure into a working server.
    pub fn legacy_fix_helps(&self) -> bool {
        // an unknown legacy outcome (not run, or stopped by --timeout) helps nobody
        self.prediction.verdict.is_problem()
            && !self.with_legacy.verdict.is_problem()
            && self.with_legacy.verdict != crate::classify::verdict::Verdict::Unknown
    }

    /// For a stdio server that exited or was not found at start-up: the command the
    /// probe started, to run by hand in the folder it started it in, as `scan`'s advice
    /// gives it (`runByHand`), then what the failure means. `None` for a URL, for a
    /// timeout (its own advice names the limit that was waited for), or a command no
    /// one-line command can show.
    fn connection_failure_by_hand(
        &self,
        d: &crate::classify::verdict::Diagnosis,
    ) -> Option<String> {
        use crate::classify::verdict::{Cause, Verdict};
        if d.verdict != Verdict::ConnectionFailed
            || !matches!(
                d.cause,
                Some(Cause::ConnectionClosed | Cause::CommandNotFound)
            )
            || self.config.transport != TransportKind::Stdio
        {
            return None;
        }
        let command = self.command_line()?;
        // (a folder whose path the output hides is said in words, not gone into)
        let command = match &self.project_dir {
            Some(dir) if !self.printed_hidden.hidden_folder => {
                crate::text::shell_in_folder(&dir.display().to_string(), &command)?
            }
            _ => command,
        };
        let env_names: Vec<String> = self.config.env.keys().cloned().collect();
        Some(crate::advice::by_hand_advice(
            &command,
            &env_names,
            self.config.source.as_deref(),
            d,
            self.printed_hidden,
        ))
    }

    /// The command the probe started, quoted as a shell reads it; `None` for a URL or a
    /// command no one-line command can show.
    fn command_line(&self) -> Option<String> {
        let argv: Vec<&str> = std::iter::once(self.config.command.as_str())
            .chain(self.config.args.iter().map(String::as_str))
            .collect();
        crate::text::shell_command(&argv)
    }

    /// Marks what `hides` (whether the output's redaction changes a text) hides of the
    /// command to run by hand: its folder, one of its arguments.
    pub fn mark_hidden(&mut self, hides: &dyn Fn(&str) -> bool) {
        self.printed_hidden = crate::advice::ByHand {
            hidden_folder: self
                .project_dir
                .as_ref()
                .is_some_and(|d| hides(&d.display().to_string())),
            hidden_argument: self.command_line().is_some_and(|c| hides(&c)),
        };
    }

    /// `scan`'s advice for a remote cause (`advice::remote`), naming the server as
    /// `scan` does: by its configured name, and its URL (a server given by `--url` is
    /// configured nowhere: the sentence names no name).
    fn remote_advice(&self, d: &crate::classify::verdict::Diagnosis) -> Option<String> {
        if self.config.transport == TransportKind::Stdio {
            return None;
        }
        let name = (self.config.scope != crate::claude_code::config::Scope::CommandLine)
            .then_some(self.config.name.as_str());
        let url = Some(self.config.url.as_str()).filter(|u| !u.is_empty());
        crate::advice::remote::remote_advice_for(
            d,
            name,
            url,
            Some((self.config.scope, self.config.transport)),
        )
    }

    /// For a server that answered 401 and whose OAuth discovery failed in a way no
    /// observed cause names (`other`): advice naming the failing step and its URL, not
    /// the generic advice of a server that cannot be reached (it answered).
    fn oauth_step_advice(&self, p: &Prediction) -> Option<String> {
        use crate::classify::verdict::Cause;
        let oauth::AuthCheck::Discovery(d) = self.auth.as_ref()? else {
            return None;
        };
        if p.cause != Some(Cause::Other)
            || d.cause != Cause::Other
            || !p.reason.starts_with("the server answered 401")
        {
            return None;
        }
        let s = d.deciding().or_else(|| d.first_failing())?;
        let at = match s.kind {
            oauth::StepKind::ResourceMetadata => "the protected resource's metadata",
            oauth::StepKind::AuthServerMetadata => "the authorization server's metadata",
            oauth::StepKind::Registration => "the client registration",
        };
        let url = oauth::quoted_url(&s.url);
        let what = match s.status {
            None => format!(
                "{at} at {url} does not answer: check that the authorization server is running and reachable from this machine"
            ),
            Some(c) if c >= 500 => format!(
                "{at} at {url} answers HTTP {c}: the authorization server's operator must fix it"
            ),
            Some(c) => format!(
                "{at} at {url} (HTTP {c}) is not metadata Claude Code can use: the authorization server's operator must fix it"
            ),
        };
        Some(format!(
            "The server answered 401, so Claude Code signs in with OAuth, and its discovery fails at the {} step: {what}; `claude mcp login` cannot get past this step.",
            s.kind.words(),
        ))
    }

    /// What to do about the prediction with `MCP_PROTOCOL_NEGOTIATION=legacy`: the
    /// verdict's advice, or for a stdio server that still cannot connect, the command to
    /// run by hand.
    pub fn recommendation_with_legacy(&self) -> String {
        let d = self.with_legacy.diagnosis();
        self.oauth_step_advice(&self.with_legacy)
            .or_else(|| self.connection_failure_by_hand(&d))
            .or_else(|| self.remote_advice(&d))
            .unwrap_or_else(|| crate::advice::diagnosis_recommendation(&d))
    }

    /// What to do about the prediction. When legacy turns the failure into a working
    /// server and the verdict's own advice is not already the legacy fix, that is the
    /// advice (the generic advice of, say, a connection failure says the setting will
    /// not help, which the probe has just seen to be false for this server).
    pub fn recommendation(&self) -> String {
        let d = self.prediction.diagnosis();
        if self.cut_short() {
            return self.budget.cut_short(self.prediction.claude_version);
        }
        // lost prompts or resources: the verdict's own advice says what legacy does for
        // them, never the fix for tools that load anyway
        if self.legacy_fix_helps()
            && crate::advice::legacy_fix_wording(&d).is_none()
            && d.cause != Some(crate::classify::verdict::Cause::ListsRejected)
        {
            let fix = self
                .settings
                .as_deref()
                .map_or_else(|| "mcplogs fix".to_string(), crate::advice::fix_command);
            return format!(
                "with MCP_PROTOCOL_NEGOTIATION=legacy the probe got this server's tools ({} loaded): `{fix}` sets it where it wins in this project; then restart Claude Code.",
                self.with_legacy.tools_loaded
            );
        }
        if let Some(by_hand) = self.connection_failure_by_hand(&d) {
            return by_hand;
        }
        if let Some(oauth) = self.oauth_step_advice(&self.prediction) {
            return oauth;
        }
        if let Some(remote) = self.remote_advice(&d) {
            return remote;
        }
        // `scan`'s advice for the verdict, knowing the project's settings as it does
        let rec = crate::advice::recommendation(&d, self.settings.as_deref());
        // the advice's "(N ms here)" says which layer set that limit, as every other
        // sentence about time does
        match d.timeout_ms {
            Some(ms) if ms == self.budget.limit.ms => rec.replace(
                &format!(" ({ms} ms here)"),
                &format!(
                    " ({ms} ms here: {})",
                    self.budget
                        .limit
                        .decided_by
                        .as_deref()
                        .unwrap_or("Claude Code's default")
                ),
            ),
            _ => rec,
        }
    }
}

/// The certificates of `ca` as the roots of an HTTPS server's connections, when they
/// verify its chain (a handshake whose only roots are theirs, as `fix --ca-file` checks
/// a file): Claude Code trusts them beside the public roots, and a chain either public
/// roots or these verify is one it trusts. `None`: not HTTPS, or they do not verify it
/// (the public roots then, as without the file).
fn extra_roots(cfg: &ServerConfig, ca: &crate::settings::ca::CaFile) -> Option<ExtraRoots> {
    use crate::advice::fixes::NetChecks;
    if cfg.transport == TransportKind::Stdio {
        return None;
    }
    let (host, port, true) = crate::advice::remote::endpoint(&cfg.url)? else {
        return None;
    };
    // (through the proxy the environment names, as `fix --ca-file` checks a file)
    let verified = crate::advice::remote::LiveNet.verify_chain(ca, &host, port);
    (verified == crate::settings::ca::ChainCheck::Verified).then(|| {
        std::sync::Arc::new(
            ureq::tls::parse_pem(&ca.bytes)
                .filter_map(|i| match i {
                    Ok(ureq::tls::PemItem::Certificate(c)) => Some(c),
                    _ => None,
                })
                .collect(),
        )
    })
}

/// Root certificates a connection trusts instead of the public ones.
pub type ExtraRoots = std::sync::Arc<Vec<ureq::tls::Certificate<'static>>>;

/// Opens the transport and runs one lifecycle in `mode`.
#[allow(clippy::too_many_arguments)]
pub fn run_attempt(
    cfg: &ServerConfig,
    mode: Mode,
    claude_version: ClaudeVersion,
    limits: Limits,
    project_dir: Option<&std::path::Path>,
    watch: Option<&WatchSlot>,
    trusted: Option<&ExtraRoots>,
) -> Attempt {
    let start = Instant::now();
    let wait_until = start
        + limits.request_wait.map_or(limits.budget, |w| {
            limits.budget.min(w + session::WAIT_MARGIN)
        });
    if let Some(w) = watch {
        let what = match cfg.transport {
            TransportKind::Stdio => "starting the server",
            _ => "connecting",
        };
        w.step(&format!("{} ({})", what, mode.as_str()), wait_until);
    }
    let connection_id = format!("{}/{}", cfg.name, mode.as_str());
    let version = claude_version.to_string();
    let failed = |f: Failure, step: Step| {
        session::failed_attempt(mode, connection_id.clone(), step, f, start)
    };
    let mut open: Box<dyn Transport> = match cfg.transport {
        TransportKind::Stdio => {
            match StdioTransport::spawn(&cfg.command, &cfg.args, &cfg.env, project_dir) {
                Ok(t) => {
                    let step = Step {
                        name: "spawn".into(),
                        sent: None,
                        received: None,
                        ms: start.elapsed().as_millis() as u64,
                        ok: true,
                        detail: Some(format!("pid {}, own process group", t.pid())),
                    };
                    let mut t = t;
                    let mut a = session::run(
                        &mut t,
                        mode,
                        connection_id,
                        &version,
                        limits,
                        start,
                        Some(step),
                        watch,
                    );
                    a.stderr = t.close();
                    return a;
                }
                Err(f) => {
                    let step = Step {
                        name: "spawn".into(),
                        sent: None,
                        received: None,
                        ms: start.elapsed().as_millis() as u64,
                        ok: false,
                        detail: Some(f.to_string()),
                    };
                    return failed(f, step);
                }
            }
        }
        TransportKind::Http => match HttpTransport::new(&cfg.url, &cfg.headers, trusted) {
            Ok(t) => Box::new(t),
            Err(f) => {
                let step = Step {
                    name: "connect".into(),
                    sent: None,
                    received: None,
                    ms: 0,
                    ok: false,
                    detail: Some(f.to_string()),
                };
                return failed(f, step);
            }
        },
        TransportKind::Sse => {
            match SseTransport::connect(&cfg.url, &cfg.headers, wait_until, trusted) {
                Ok(t) => Box::new(t),
                Err(f) => {
                    let step = Step {
                        name: "GET (SSE stream)".into(),
                        sent: Some("GET".into()),
                        received: None,
                        ms: start.elapsed().as_millis() as u64,
                        ok: false,
                        detail: Some(f.to_string()),
                    };
                    return failed(f, step);
                }
            }
        }
    };
    session::run(
        open.as_mut(),
        mode,
        connection_id,
        &version,
        limits,
        start,
        None,
        watch,
    )
}

/// The setting the handshake is picked by: `MCP_SDK_GENERATION=v1` means the classic
/// handshake on every observed build (the older client, or the legacy handshake forced:
/// `lifecycle::SDK_V1`), over `MCP_PROTOCOL_NEGOTIATION=auto` as well.
pub fn handshake_setting(
    negotiation: Option<&NegotiationValue>,
    sdk_v1: bool,
) -> Option<NegotiationValue> {
    if sdk_v1 && lifecycle::SDK_V1_MEANS_LEGACY.value {
        Some(NegotiationValue::Legacy)
    } else {
        negotiation.cloned()
    }
}

/// What `MCP_SDK_GENERATION`, as the settings layers and the environment set it, means
/// for the predicted build: a sentence for the probe's output, or `None` when nothing
/// sets it. `decided_by` names the layer (`environment`, `user (<file>)`...).
pub fn sdk_generation_note(
    value: Option<&str>,
    decided_by: &str,
    build: ClaudeVersion,
) -> Option<String> {
    use lifecycle::{SDK_V1, SdkV1};
    let value = value?;
    if value == "v2" {
        return Some(format!(
            "MCP_SDK_GENERATION=v2 ({decided_by}): Claude Code's default client; the prediction is unchanged."
        ));
    }
    if value != "v1" {
        return Some(format!(
            "MCP_SDK_GENERATION={value} ({decided_by}) is neither v1 nor v2: Claude Code ignores it (with a warning in its debug log); the prediction is unchanged."
        ));
    }
    let what = match SDK_V1.on(build) {
        Some(SdkV1::OlderClient) => format!(
            "Claude Code {build} then runs its older MCP client, which uses the classic handshake only (its log's `Connection established` record has no protocolEra)"
        ),
        Some(SdkV1::ForcedLegacy) => format!(
            "Claude Code {build} has only the v2 client and forces the legacy handshake with it, over MCP_PROTOCOL_NEGOTIATION=auto too"
        ),
        None => format!(
            "Claude Code {build} was not observed with it ({} ran the older client, {} forced the legacy handshake; both mean the classic handshake)",
            SDK_V1.older_client_through, SDK_V1.forced_legacy_from
        ),
    };
    Some(format!(
        "MCP_SDK_GENERATION=v1 ({decided_by}): {what}; the probe predicts with the legacy handshake."
    ))
}

/// A cached feature flag the prediction depends on (`probe --json`'s `flags`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlagDependency {
    pub name: String,
    /// The cached value (a boolean as it is; anything else described); `None`: not read.
    pub value: Option<String>,
    /// Whether mcplogs read the value (it is cached in `.claude.json`).
    pub read: bool,
    /// What the prediction assumes, in one sentence.
    pub note: String,
    /// The flag, as read, makes Claude Code run its v1 client.
    pub sdk_v1: bool,
}

/// Whether the prediction depends on [`lifecycle::CLIENT_FLAG`]: only when
/// `MCP_SDK_GENERATION` is unset and `build` has two clients. `cached`: `None` when
/// `.claude.json` could not be read, `Some(None)` when the flag is not cached there.
/// `off_by`: the variable that turns Claude Code's feature flags off
/// ([`crate::claude_code::flags::flags_off_by`]), when one does.
pub fn client_flag_dependency(
    sdk_set: bool,
    build: ClaudeVersion,
    cached: Option<Option<&serde_json::Value>>,
    off_by: Option<&str>,
) -> Option<FlagDependency> {
    use lifecycle::{CLIENT_FLAG, SDK_V1, SdkV1};
    if sdk_set || SDK_V1.on(build) != Some(SdkV1::OlderClient) {
        return None;
    }
    let flag = cached.flatten();
    if let Some(off) = off_by {
        // Claude Code's flags are off: the client flag reads its default (v2)
        return (flag == Some(&serde_json::Value::Bool(false))).then(|| FlagDependency {
            name: CLIENT_FLAG.to_string(),
            value: Some("false".to_string()),
            read: true,
            note: format!(
                "the feature flag {CLIENT_FLAG} is cached false in .claude.json but not in effect: {off} turns Claude Code's feature flags off, so Claude Code {build} runs its default client (v2); the prediction is unchanged."
            ),
            sdk_v1: false,
        });
    }
    let value = flag.map(|v| match v {
        serde_json::Value::Bool(b) => b.to_string(),
        serde_json::Value::Null => "null".to_string(),
        _ => "not a boolean".to_string(),
    });
    let (note, sdk_v1) = match flag {
        Some(serde_json::Value::Bool(false)) => (
            format!(
                "MCP_SDK_GENERATION is unset and the feature flag {CLIENT_FLAG} cached in .claude.json is false: Claude Code {build} then runs its older MCP client (v1), which uses the classic handshake only; the probe predicts with the legacy handshake."
            ),
            true,
        ),
        Some(_) => (
            format!(
                "MCP_SDK_GENERATION is unset and the feature flag {CLIENT_FLAG} cached in .claude.json is not false: Claude Code {build} runs its default client (v2); the prediction is unchanged."
            ),
            false,
        ),
        None => (
            format!(
                "MCP_SDK_GENERATION is unset, so Claude Code {build} picks its MCP client by the feature flag {CLIENT_FLAG}, whose value mcplogs could not read ({}): the prediction assumes the default client (v2), as when the flag is true or absent; if Claude Code has it false, it runs its older client and the classic handshake (set MCP_SDK_GENERATION to decide it).",
                if cached.is_none() {
                    ".claude.json unreadable or absent"
                } else {
                    "not cached in .claude.json"
                }
            ),
            false,
        ),
    };
    Some(FlagDependency {
        name: CLIENT_FLAG.to_string(),
        read: flag.is_some(),
        value,
        note,
        sdk_v1,
    })
}

/// The handshake Claude Code `v` uses for `cfg`: `MCP_SDK_GENERATION=v1` and
/// `MCP_PROTOCOL_NEGOTIATION` (`legacy`, `auto`) first; unset (or a value Claude Code
/// ignores), the cached flags of [`crate::claude_code::flags`]: the transport's flag, then
/// the denylist (observed on 2.1.287, 2.1.310 and 2.1.336, `tests/e2e/flags.py`).
pub fn server_mode(
    cfg: &ServerConfig,
    negotiation: Option<&NegotiationValue>,
    sdk_v1: bool,
    flags: &crate::claude_code::flags::CachedFlags,
    v: ClaudeVersion,
) -> Mode {
    let handshake = handshake_setting(negotiation, sdk_v1);
    if matches!(
        handshake,
        Some(NegotiationValue::Legacy | NegotiationValue::Auto)
    ) {
        return predict::mode_for(cfg.transport, handshake.as_ref(), v);
    }
    let (t, url) = flag_transport(cfg);
    if crate::claude_code::flags::negotiates(t, url, v, flags) {
        Mode::Discover
    } else {
        Mode::Legacy
    }
}

fn flag_transport(cfg: &ServerConfig) -> (crate::claude_code::flags::Transport, Option<&str>) {
    crate::claude_code::flags::transport_of(cfg.transport, &cfg.url)
}

/// The negotiation flags the prediction for `servers` depends on, each with its cached
/// value or that it could not be read: none when `MCP_PROTOCOL_NEGOTIATION` is `legacy`
/// or `auto` or `MCP_SDK_GENERATION=v1` is in effect (they decide alone); the flag of
/// each transport probed; the denylist when a server would negotiate. With Claude Code's
/// flags off ([`crate::claude_code::flags::flags_off_by`]) only a cached value that would
/// have changed the prediction is named, as not in effect.
pub fn negotiation_flag_dependencies(
    servers: &[ServerConfig],
    negotiation: Option<&NegotiationValue>,
    sdk_v1: bool,
    flags: &crate::claude_code::flags::CachedFlags,
    build: ClaudeVersion,
) -> Vec<FlagDependency> {
    use crate::claude_code::flags::{
        DENYLIST, Transport, default_negotiates, denylist_matches, flag_negotiates,
    };
    if matches!(
        handshake_setting(negotiation, sdk_v1),
        Some(NegotiationValue::Legacy | NegotiationValue::Auto)
    ) {
        return Vec::new();
    }
    let why = if flags.readable {
        "not cached in .claude.json"
    } else {
        ".claude.json unreadable or absent"
    };
    let hs = |on: bool| {
        if on {
            "the negotiated (2026-07-28 first)"
        } else {
            "the legacy"
        }
    };
    let mut out = Vec::new();
    for (t, name, label) in [
        (
            Transport::Stdio,
            crate::claude_code::flags::NEGOTIATION_STDIO,
            "stdio",
        ),
        (
            Transport::Http,
            crate::claude_code::flags::NEGOTIATION_HTTP,
            "HTTP",
        ),
    ] {
        if !servers.iter().any(|s| flag_transport(s).0 == t) {
            continue;
        }
        let default = default_negotiates(t, build);
        let cached = flags.transport_flag(t);
        let dep = |value: Option<String>, read: bool, note: String| FlagDependency {
            name: name.to_string(),
            value,
            read,
            note,
            sdk_v1: false,
        };
        match (&flags.off_by, cached) {
            (Some(off), Some(Some(b))) if b != default => out.push(dep(
                Some(b.to_string()),
                true,
                format!(
                    "the feature flag {name} is cached {b} in .claude.json but not in effect: {off} turns Claude Code's feature flags off, so {label} servers get the build's default, {} handshake, on Claude Code {build}; the prediction uses the default.",
                    hs(default)
                ),
            )),
            (Some(_), _) => {}
            (None, Some(Some(b))) => out.push(dep(
                Some(b.to_string()),
                true,
                format!(
                    "MCP_PROTOCOL_NEGOTIATION is unset and the feature flag {name} cached in .claude.json is {b}: Claude Code {build} gives {label} servers {} handshake (its default: {}); the probe predicts with it.",
                    hs(b),
                    hs(default).trim_start_matches("the ")
                ),
            )),
            (None, Some(None)) => out.push(dep(
                Some("not a boolean".to_string()),
                true,
                format!(
                    "MCP_PROTOCOL_NEGOTIATION is unset and the feature flag {name} cached in .claude.json is not a boolean: Claude Code {build} then uses its default, {} handshake, for {label} servers; the prediction is unchanged.",
                    hs(default)
                ),
            )),
            (None, None) => out.push(dep(
                None,
                false,
                format!(
                    "MCP_PROTOCOL_NEGOTIATION is unset, so Claude Code {build} picks the handshake of {label} servers by the feature flag {name}, which mcplogs could not read ({why}): the prediction assumes its default, {} handshake; cached {}, it would be {} one (set MCP_PROTOCOL_NEGOTIATION to decide it).",
                    hs(default),
                    !default,
                    hs(!default)
                ),
            )),
        }
    }
    let negotiating: Vec<&ServerConfig> = servers
        .iter()
        .filter(|s| flag_negotiates(flag_transport(s).0, build, flags))
        .collect();
    if negotiating.is_empty() {
        return out;
    }
    let dep = |value: Option<String>, read: bool, note: String| FlagDependency {
        name: DENYLIST.to_string(),
        value,
        read,
        note,
        sdk_v1: false,
    };
    match (&flags.off_by, &flags.denylist) {
        (Some(off), Some(list)) if !list.is_empty() => out.push(dep(
            Some(entries(list.len())),
            true,
            format!(
                "the feature flag {DENYLIST} is cached in .claude.json but not in effect: {off} turns Claude Code's feature flags off; the prediction ignores it."
            ),
        )),
        (Some(_), _) => {}
        (None, Some(list)) => {
            let named: Vec<&str> = negotiating
                .iter()
                .filter(|s| denylist_matches(list, flag_transport(s).1))
                .map(|s| s.name.as_str())
                .collect();
            let note = if named.is_empty() {
                format!(
                    "the feature flag {DENYLIST} cached in .claude.json names none of the servers that negotiate: the prediction is unchanged."
                )
            } else {
                format!(
                    "the feature flag {DENYLIST} cached in .claude.json names {}: Claude Code {build} gives {} the legacy handshake instead of negotiating; the probe predicts with it.",
                    named.join(", "),
                    if named.len() == 1 { "it" } else { "them" }
                )
            };
            out.push(dep(Some(entries(list.len())), true, note));
        }
        (None, None) => out.push(dep(
            None,
            false,
            format!(
                "the feature flag {DENYLIST} (hosts, or `*`, given the legacy handshake instead of negotiating on Claude Code {build}) could not be read ({why}): the prediction assumes it names none of the probed servers."
            ),
        )),
    }
    out
}

/// `a list of 2 entries`: a list flag described without its items (they may name hosts).
fn entries(n: usize) -> String {
    format!("a list of {n} entr{}", if n == 1 { "y" } else { "ies" })
}

/// Probes one server: the handshake Claude Code would use under the effective setting,
/// and the legacy one.
pub fn probe_server(cfg: &ServerConfig, opts: &ProbeOptions) -> ServerProbe {
    let v = opts.claude_version;
    let handshake = handshake_setting(opts.negotiation.as_ref(), opts.sdk_v1);
    let mode = server_mode(cfg, opts.negotiation.as_ref(), opts.sdk_v1, &opts.flags, v);
    // the predicted handshake first: it always runs, the others get what is left
    let mut modes = vec![mode];
    if mode != Mode::Legacy {
        modes.push(Mode::Legacy);
    }
    if opts.both_modes && cfg.transport != TransportKind::Sse && !modes.contains(&Mode::Discover) {
        modes.push(Mode::Discover);
    }
    let slot = opts.watch.as_ref().map(|w| w.slot(&cfg.name));
    let trusted = opts.extra_ca.as_deref().and_then(|ca| extra_roots(cfg, ca));
    // one deadline for the whole probe of this server, shared by every attempt
    let deadline = Instant::now() + opts.limits.budget;
    let mut attempts: Vec<Attempt> = Vec::new();
    let mut not_run: Vec<NotRun> = Vec::new();
    for &m in &modes {
        let left = deadline.saturating_duration_since(Instant::now());
        if m != mode && left < MIN_ATTEMPT {
            let spent: Vec<&str> = attempts.iter().map(|a| a.mode.as_str()).collect();
            not_run.push(NotRun {
                mode: m,
                reason: format!(
                    "not run: the budget of {} ms ({}) was spent on the {} handshake",
                    opts.budget.ms,
                    opts.budget.describe(),
                    spent.join(" and ")
                ),
            });
            continue;
        }
        let limits = Limits {
            budget: left,
            ..opts.limits
        };
        attempts.push(run_attempt(
            cfg,
            m,
            v,
            limits,
            opts.project_dir.as_deref(),
            slot.as_ref(),
            trusted.as_ref(),
        ));
    }
    // the discovery waits no longer than Claude Code's connection would
    let discovery_until = deadline.min(
        Instant::now()
            + opts
                .limits
                .request_wait
                .unwrap_or(std::time::Duration::from_secs(30)),
    );
    let auth = auth_check(cfg, &attempts, discovery_until, slot.as_ref());
    if let Some(s) = &slot {
        s.done();
    }
    let by_mode = |m: Mode| attempts.iter().find(|a| a.mode == m).expect("run");
    let settle = |p: Prediction, a: &Attempt| {
        opts.budget
            .settle(oauth::settle(p, a.failure.as_ref(), auth.as_ref()))
    };
    let negotiation = handshake.as_ref().map(|n| n.as_str().to_string());
    let served = predict::Served {
        name: &cfg.name,
        transport: cfg.transport,
    };
    let prediction = settle(
        predict::predict(
            by_mode(mode),
            cfg.transport,
            v,
            negotiation,
            &opts.timeouts,
            &served,
        ),
        by_mode(mode),
    );
    let with_legacy = match attempts.iter().find(|a| a.mode == Mode::Legacy) {
        Some(a) => settle(
            predict::predict(
                a,
                cfg.transport,
                v,
                Some("legacy".into()),
                &opts.timeouts,
                &served,
            ),
            a,
        ),
        None => predict::not_run(
            Mode::Legacy,
            v,
            Some("legacy".into()),
            not_run
                .iter()
                .find(|n| n.mode == Mode::Legacy)
                .map_or_else(|| "not run".to_string(), |n| n.reason.clone()),
        ),
    };
    let a = by_mode(mode);
    let tools = validate::check_pages(&a.pages, a.era == Some(session::NegotiatedEra::Modern));
    ServerProbe {
        config: cfg.clone(),
        attempts,
        prediction,
        with_legacy,
        tools,
        timeouts: opts.timeouts.clone(),
        budget: opts.budget.clone(),
        negotiation: opts.negotiation.clone(),
        sdk_v1: opts.sdk_v1,
        flags: opts.flags.clone(),
        not_run,
        project_dir: opts.project_dir.clone(),
        settings: opts.settings.clone(),
        auth,
        printed_hidden: crate::advice::ByHand::default(),
    }
}

/// Less than this left of the budget and the OAuth discovery still gets it: each of
/// its requests is short, and without it the probe could not name the failing step.
const MIN_DISCOVERY: std::time::Duration = std::time::Duration::from_secs(2);

/// For a remote server that asked for credentials: a configured `Authorization` header
/// it refused (401 or 403: Claude Code then tries no OAuth, observed), or the OAuth
/// discovery after a 401 ([`oauth::discover`]), once per server, within `deadline`
/// (the probe's budget or Claude Code's `MCP_TIMEOUT`, whichever ends first; at least
/// [`MIN_DISCOVERY`]).
fn auth_check(
    cfg: &ServerConfig,
    attempts: &[Attempt],
    deadline: Instant,
    watch: Option<&WatchSlot>,
) -> Option<oauth::AuthCheck> {
    if cfg.transport == TransportKind::Stdio {
        return None;
    }
    let failure = attempts
        .iter()
        .filter_map(|a| a.failure.as_ref())
        .find(|f| oauth::auth_status(f).is_some())?;
    let status = oauth::auth_status(failure)?;
    if oauth::has_authorization(&cfg.headers) {
        return Some(oauth::AuthCheck::HeaderRejected { status });
    }
    let Failure::NeedsAuth { www_authenticate } = failure else {
        return None;
    };
    let deadline = deadline.max(Instant::now() + MIN_DISCOVERY);
    if let Some(w) = watch {
        w.step("OAuth discovery", deadline);
    }
    Some(oauth::AuthCheck::Discovery(oauth::discover(
        &cfg.url,
        www_authenticate.as_deref(),
        deadline,
    )))
}

/// `claude --version`, when Claude Code is installed and answers within two seconds.
pub fn installed_claude_version() -> Option<ClaudeVersion> {
    use std::io::Read;
    let mut child = std::process::Command::new("claude")
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let until = Instant::now() + std::time::Duration::from_secs(2);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < until => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut out = String::new();
    child
        .stdout
        .take()?
        .take(4096)
        .read_to_string(&mut out)
        .ok()?;
    ClaudeVersion::parse(out.trim())
}

/// One result of the server-author contract (`--contract`).
#[derive(Debug, Clone, PartialEq)]
pub struct ContractCheck {
    pub name: &'static str,
    /// `None`: could not be checked.
    pub passed: Option<bool>,
    pub detail: String,
    /// The modelled builds it answers for: those that would lose, truncate or rename a
    /// tool when it fails, every modelled build otherwise.
    pub builds: Vec<ClaudeVersion>,
}

fn check(
    name: &'static str,
    passed: Option<bool>,
    detail: String,
    failing: Vec<ClaudeVersion>,
) -> ContractCheck {
    let all = lifecycle::CONTRACT_BUILDS.to_vec();
    let builds = if passed == Some(false) && !failing.is_empty() {
        failing
    } else {
        all
    };
    let detail = if passed == Some(false) {
        let names: Vec<String> = builds.iter().map(ToString::to_string).collect();
        format!("on {}: {detail}", names.join(", "))
    } else {
        detail
    };
    ContractCheck {
        name,
        passed,
        detail,
        builds,
    }
}

/// Why the checks that need a tools list have none: every handshake failed, none
/// declared tools, or every first `tools/list` failed. `None`: a list arrived.
fn no_list_reason(p: &ServerProbe) -> Option<String> {
    if p.attempts.iter().any(|a| !a.pages.is_empty()) {
        return None;
    }
    if p.attempts.iter().all(|a| a.failure.is_some()) {
        return Some("not checked: no handshake succeeded, so no tools/list was sent".into());
    }
    if !p
        .attempts
        .iter()
        .any(|a| a.failure.is_none() && a.has_tools_capability())
    {
        return Some("not checked: no handshake declared tools, so no tools/list was sent".into());
    }
    Some("not checked: no tools/list result arrived (see tools-listed)".into())
}

/// Whether the server answered anything on this connection (a handshake, an error, a
/// stray response): what the timing and ordering checks need.
fn heard_from(a: &Attempt) -> bool {
    a.era.is_some()
        || !a.strays.is_empty()
        || a.steps
            .iter()
            .any(|s| s.received.is_some() && s.name != "spawn")
}

/// The checks a client can drive, over every handshake run. A check fails wherever a
/// modelled build (`claude_code::lifecycle::CONTRACT_BUILDS`) would lose, truncate or
/// rename a tool, and names those builds.
pub fn contract(p: &ServerProbe, budget: &Budget) -> Vec<ContractCheck> {
    use crate::classify::verdict::Cause;
    let all = || lifecycle::CONTRACT_BUILDS.to_vec();
    let mut out = Vec::new();
    let failures: Vec<String> = p
        .attempts
        .iter()
        .filter_map(|a| {
            a.failure
                .as_ref()
                .map(|f| format!("{}: {f}", a.mode.as_str()))
        })
        .collect();
    let no_tools: Vec<&str> = p
        .attempts
        .iter()
        .filter(|a| a.failure.is_none() && !a.has_tools_capability())
        .map(|a| a.mode.as_str())
        .collect();
    out.push(check(
        "tools-capable-handshake",
        Some(failures.is_empty() && no_tools.is_empty()),
        if !failures.is_empty() {
            failures.join("; ")
        } else if !no_tools.is_empty() {
            format!(
                "no tools capability declared ({}): Claude Code never sends tools/list",
                no_tools.join(", ")
            )
        } else {
            "every handshake succeeded and declared tools".into()
        },
        all(),
    ));
    let no_list = no_list_reason(p);
    // every tools/list request answered: a JSON-RPC error, a crash, a timeout or an HTTP
    // failure on any page (the first one included) is not a pagination problem
    let listed: Vec<&Attempt> = p
        .attempts
        .iter()
        .filter(|a| a.failure.is_none() && a.has_tools_capability())
        .collect();
    let unanswered: Vec<String> = listed
        .iter()
        .filter_map(|a| match &a.list_failure {
            Some(
                f @ (session::ListFailure::RpcError { .. }
                | session::ListFailure::Closed { .. }
                | session::ListFailure::Timeout { .. }
                | session::ListFailure::Transport { .. }),
            ) => Some(format!("{}: tools/list {f}", a.mode.as_str())),
            _ => None,
        })
        .collect();
    out.push(check(
        "tools-listed",
        if listed.is_empty() {
            None
        } else {
            Some(unanswered.is_empty())
        },
        if listed.is_empty() {
            if p.attempts.iter().all(|a| a.failure.is_some()) {
                "not checked: no handshake succeeded, so no tools/list was sent".into()
            } else {
                "not checked: no handshake declared tools, so no tools/list was sent".into()
            }
        } else if unanswered.is_empty() {
            let pages = pages_per_attempt(&listed);
            format!("every tools/list request got a result ({})", pages)
        } else {
            unanswered.join("; ")
        },
        all(),
    ));
    // pagination: the page cap, a repeated cursor, over the walks that got a page
    let mut list_fail: Vec<String> = Vec::new();
    let walked: Vec<&Attempt> = p
        .attempts
        .iter()
        .filter(|a| a.failure.is_none() && !a.pages.is_empty())
        .collect();
    for a in &walked {
        let m = a.mode.as_str();
        match &a.list_failure {
            Some(session::ListFailure::RepeatedCursor { page, cursor }) => {
                let guard: Vec<String> = lifecycle::CONTRACT_BUILDS
                    .iter()
                    .filter(|v| v.stops_at_repeated_cursor())
                    .map(ToString::to_string)
                    .collect();
                list_fail.push(format!(
                    "{m}: page {page} repeats nextCursor {cursor:?} (Claude Code {} stops there; older builds follow it to {} pages)",
                    guard.join(", "),
                    lifecycle::PAGE_CAP.value
                ));
            }
            Some(session::ListFailure::PageCap { pages }) => list_fail.push(format!(
                "{m}: more than {pages} pages; Claude Code keeps the first {}",
                lifecycle::PAGE_CAP.value
            )),
            Some(f @ session::ListFailure::ToolCap { .. }) => list_fail.push(format!("{m}: {f}")),
            _ if a.pages.len() > lifecycle::PAGE_CAP.value => {
                let modern = a.era == Some(session::NegotiatedEra::Modern);
                let kept = validate::check_pages(&a.pages[..lifecycle::PAGE_CAP.value], modern);
                let whole = validate::check_pages(&a.pages, modern);
                list_fail.push(format!(
                    "{m}: {} pages; Claude Code stops after {}: {} of {} tools",
                    a.pages.len(),
                    lifecycle::PAGE_CAP.value,
                    kept.valid,
                    whole.valid
                ));
            }
            _ => {}
        }
    }
    // a walk cut short by a failed later page is checked as far as it went
    let partial: Vec<&str> = walked
        .iter()
        .filter(|a| {
            matches!(
                a.list_failure,
                Some(
                    session::ListFailure::RpcError { .. }
                        | session::ListFailure::Closed { .. }
                        | session::ListFailure::Timeout { .. }
                        | session::ListFailure::Transport { .. }
                )
            )
        })
        .map(|a| a.mode.as_str())
        .collect();
    out.push(check(
        "pagination",
        match (&no_list, list_fail.is_empty()) {
            (Some(_), _) => None,
            (None, ok) => Some(ok),
        },
        if let Some(why) = &no_list {
            why.clone()
        } else if list_fail.is_empty() {
            let pages = pages_per_attempt(&walked);
            let mut d = format!(
                "loop-free, within {} pages ({})",
                lifecycle::PAGE_CAP.value,
                pages
            );
            if !partial.is_empty() {
                d.push_str(&format!(
                    "; checked as far as the walk went ({} stopped at a failed page: see tools-listed)",
                    partial.join(", ")
                ));
            }
            d
        } else {
            list_fail.join("; ")
        },
        all(),
    ));
    let mut bad = Vec::new();
    let mut bad_builds: Vec<ClaudeVersion> = Vec::new();
    let mut dups = Vec::new();
    let mut renamed = Vec::new();
    for a in &p.attempts {
        let modern = a.era == Some(session::NegotiatedEra::Modern);
        let c = validate::check_pages(&a.pages, modern);
        for r in &c.rejected {
            let line = format!(
                "{}: page {}, {} ({}): {}",
                a.mode.as_str(),
                r.page,
                r.path,
                r.reason,
                r.detail
            );
            if r.fails_list {
                bad_builds = all();
                bad.push(line);
            } else {
                dups.push(line);
            }
        }
        for e in &c.envelope {
            // missing fields lose the list only on the builds whose own prediction (the
            // handshake that build uses, and whether it fills them in) rejects it: the
            // per-build predictions of the summary line, not a second model
            let losing: Vec<ClaudeVersion> = match e.kind {
                validate::EnvelopeKind::Missing => {
                    let mode = a.mode;
                    p.builds_where(|pr| {
                        pr.mode == mode
                            && matches!(
                                pr.cause,
                                Some(Cause::MissingResultType | Cause::MissingCacheFields)
                            )
                    })
                }
                _ => all(),
            };
            if losing.is_empty() {
                // no modelled build uses this handshake with these fields missing
                continue;
            }
            for v in losing {
                if !bad_builds.contains(&v) {
                    bad_builds.push(v);
                }
            }
            bad.push(format!(
                "{}: page {}, {}: {}",
                a.mode.as_str(),
                e.page,
                e.field,
                e.detail
            ));
        }
        for r in predict::renamed_tools(&a.pages) {
            renamed.push(format!("{}: {r}", a.mode.as_str()));
        }
    }
    bad_builds.sort();
    let ran = |ok: bool| if no_list.is_some() { None } else { Some(ok) };
    out.push(check(
        "every-tool-accepted",
        ran(bad.is_empty()),
        if let Some(why) = &no_list {
            why.clone()
        } else if bad.is_empty() {
            "every tool and every result envelope passes".into()
        } else {
            bad.join("; ")
        },
        bad_builds,
    ));
    out.push(check(
        "unique-names",
        ran(dups.is_empty()),
        if let Some(why) = &no_list {
            why.clone()
        } else if dups.is_empty() {
            "no tool name twice".into()
        } else {
            format!("Claude Code keeps one of each name: {}", dups.join("; "))
        },
        all(),
    ));
    renamed.dedup();
    out.push(check(
        "tool-names",
        ran(renamed.is_empty()),
        if let Some(why) = &no_list {
            why.clone()
        } else if renamed.is_empty() {
            format!(
                "every name is non-empty and within [{}]",
                lifecycle::NAME_CHARSET.value
            )
        } else {
            format!("Claude Code renames: {}", renamed.join("; "))
        },
        all(),
    ));
    out.push(name_length_check(p, no_list.as_deref()));
    out.push(header_check(p, no_list.as_deref()));
    out.push(lists_check(p));
    out.push(strays_check(p));
    let declared = p.attempts.iter().any(Attempt::declares_list_changed);
    let seen = p.attempts.iter().any(|a| a.list_changed_seen);
    let shook = p.attempts.iter().any(|a| a.failure.is_none());
    out.push(check(
        "list-changed",
        match (declared, seen) {
            (false, true) => Some(false),
            (true, true) => Some(true),
            _ => None,
        },
        match (declared, seen) {
            (false, true) => {
                "notifications/tools/list_changed sent without declaring tools.listChanged: Claude Code ignores it".into()
            }
            (true, true) => "declared and sent".into(),
            (true, false) => {
                "declared; not triggered (mcplogs cannot change the server's tools)".into()
            }
            (false, false) if !shook => {
                "not checked: no handshake succeeded, so no capabilities arrived".into()
            }
            (false, false) => "not declared".into(),
        },
        all(),
    ));
    let timed: Vec<&Attempt> = p
        .attempts
        .iter()
        .filter(|a| heard_from(a) || timed_out(a))
        .collect();
    let slow: Vec<String> = timed
        .iter()
        .filter(|a| a.elapsed_ms > budget.ms || timed_out(a))
        .map(|a| format!("{}: {} ms", a.mode.as_str(), a.elapsed_ms))
        .collect();
    out.push(check(
        "timeout-budget",
        if timed.is_empty() {
            None
        } else {
            Some(slow.is_empty())
        },
        if timed.is_empty() {
            "not checked: the server never answered and no wait ran out".into()
        } else if slow.is_empty() {
            let ms: Vec<String> = timed
                .iter()
                .map(|a| format!("{}: {} ms", a.mode.as_str(), a.elapsed_ms))
                .collect();
            format!("within {} ({})", budget.describe(), ms.join(", "))
        } else {
            format!("over {}: {}", budget.describe(), slow.join(", "))
        },
        all(),
    ));
    // a handshake the budget left no time for: what passed on the others is not a pass
    // for the server (a failure seen stays one)
    if !p.not_run.is_empty() {
        let why: Vec<String> = p
            .not_run
            .iter()
            .map(|n| format!("{}: {}", n.mode.as_str(), n.reason))
            .collect();
        for c in out.iter_mut().filter(|c| c.passed == Some(true)) {
            c.passed = None;
            c.detail = format!(
                "not checked: {} (on the handshakes run: {})",
                why.join("; "),
                c.detail
            );
        }
    }
    out
}

/// `discover: 1 page, legacy: 2 pages`: how many tools/list pages each handshake read.
fn pages_per_attempt(attempts: &[&Attempt]) -> String {
    attempts
        .iter()
        .map(|a| {
            format!(
                "{}: {}",
                a.mode.as_str(),
                crate::text::count(a.pages.len(), "page")
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every tool of every handshake, once per name.
fn listed_tools(p: &ServerProbe) -> Vec<&serde_json::Value> {
    let mut seen = std::collections::HashSet::new();
    p.attempts
        .iter()
        .flat_map(|a| a.pages.iter())
        .filter_map(|pg| pg.get("tools").and_then(serde_json::Value::as_array))
        .flatten()
        .filter(|t| seen.insert(t.get("name").map(ToString::to_string)))
        .collect()
}

/// Full tool names (`mcp__<server>__<tool>`, under this server's name) the builds from
/// 2.1.292 on do not send to the model. `no_list`: why no tools/list arrived, which
/// makes the check `n/a` (it never passes unchecked).
fn name_length_check(p: &ServerProbe, no_list: Option<&str>) -> ContractCheck {
    let max = lifecycle::TOOL_NAME_MAX_CHARS.value;
    let long: Vec<String> = listed_tools(p)
        .into_iter()
        .filter_map(|t| t.get("name").and_then(serde_json::Value::as_str))
        .filter_map(|n| {
            let full = lifecycle::model_tool_name(&p.config.name, n)
                .chars()
                .count();
            (full > max).then(|| format!("{n:?} ({full} characters)"))
        })
        .collect();
    let losing: Vec<ClaudeVersion> = lifecycle::CONTRACT_BUILDS
        .iter()
        .copied()
        .filter(|v| v.has(lifecycle::Behaviour::ToolNameLimit).is_yes())
        .collect();
    if let Some(why) = no_list {
        return check("tool-name-length", None, why.to_string(), losing);
    }
    check(
        "tool-name-length",
        Some(long.is_empty()),
        if long.is_empty() {
            format!(
                "every full name mcp__{}__<tool> within {max} characters",
                lifecycle::model_tool_part(&p.config.name)
            )
        } else {
            format!(
                "full names over {max} characters as server {:?}, not sent to the model: {}",
                p.config.name,
                long.join(", ")
            )
        },
        losing,
    )
}

/// `x-mcp-header` declarations: an invalid one loses its tool on a 2026-07-28 HTTP
/// connection (never on stdio or legacy, where it is kept). `no_list` as in
/// [`name_length_check`].
fn header_check(p: &ServerProbe, no_list: Option<&str>) -> ContractCheck {
    if let Some(why) = no_list {
        return check(
            "x-mcp-header",
            None,
            why.to_string(),
            lifecycle::CONTRACT_BUILDS.to_vec(),
        );
    }
    let bad: Vec<String> = listed_tools(p)
        .into_iter()
        .filter_map(|t| {
            let why = t
                .get("inputSchema")
                .and_then(validate::x_mcp_header_problem)?;
            let name = t
                .get("name")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("?");
            Some(format!("{name:?}: {why}"))
        })
        .collect();
    // lost only where a handshake of this server reached the era that checks them
    let lost = lifecycle::HEADER_CHECK_ON_MODERN_HTTP.value
        && p.config.transport == TransportKind::Http
        && p.attempts
            .iter()
            .any(|a| a.era == Some(session::NegotiatedEra::Modern));
    let detail = if bad.is_empty() {
        "every x-mcp-header declaration is valid (or none is made)".to_string()
    } else if lost {
        format!(
            "left out of tools/list on a 2026-07-28 HTTP connection: {}",
            bad.join("; ")
        )
    } else {
        format!(
            "kept here ({}, no 2026-07-28 handshake over HTTP), but left out over HTTP in the 2026-07-28 era: {}",
            p.config.transport.as_str(),
            bad.join("; ")
        )
    };
    check(
        "x-mcp-header",
        Some(bad.is_empty() || !lost),
        detail,
        lifecycle::CONTRACT_BUILDS.to_vec(),
    )
}

fn timed_out(a: &Attempt) -> bool {
    matches!(a.failure, Some(Failure::Timeout { .. }))
        || matches!(a.list_failure, Some(session::ListFailure::Timeout { .. }))
}

/// `prompts/list` and `resources/list`: under 2026-07-28 a result without
/// `resultType`/`ttlMs`/`cacheScope` loses the list on the builds that do not fill them in
/// (the tools load); not applicable when the server declares neither.
fn lists_check(p: &ServerProbe) -> ContractCheck {
    let mut bad = Vec::new();
    let mut losing: Vec<ClaudeVersion> = Vec::new();
    let mut fetched = 0;
    for a in &p.attempts {
        let modern = a.era == Some(session::NegotiatedEra::Modern);
        for l in &a.lists {
            fetched += 1;
            let Ok(result) = &l.result else {
                continue;
            };
            let issues = validate::check_list_envelope(result, modern);
            if issues.is_empty() {
                continue;
            }
            let missing = issues
                .iter()
                .all(|e| e.kind == validate::EnvelopeKind::Missing);
            // the builds whose own prediction loses this list over this handshake
            let mode = a.mode;
            let what = l.list.what();
            let builds: Vec<ClaudeVersion> = if missing {
                p.builds_where(|pr| pr.mode == mode && pr.lost_lists.iter().any(|x| x == what))
            } else {
                lifecycle::CONTRACT_BUILDS.to_vec()
            };
            if builds.is_empty() {
                continue;
            }
            let fields: Vec<String> = issues
                .iter()
                .map(|e| format!("{} ({})", e.field, e.detail))
                .collect();
            let names: Vec<String> = builds.iter().map(ToString::to_string).collect();
            bad.push(format!(
                "{}: {}: {}; Claude Code {} rejects it and loses the {} (the tools load){}",
                a.mode.as_str(),
                l.list.method(),
                fields.join(", "),
                names.join(", "),
                l.list.what(),
                if missing {
                    "; legacy negotiation does not need these fields, and later builds fill them in"
                } else {
                    ""
                }
            ));
            for v in builds {
                if !losing.contains(&v) {
                    losing.push(v);
                }
            }
        }
    }
    losing.sort();
    let passed = if fetched == 0 {
        None
    } else {
        Some(bad.is_empty())
    };
    check(
        "lists-accepted",
        passed,
        match passed {
            None if p.attempts.iter().all(|a| a.failure.is_some()) => {
                "not checked: no handshake succeeded, so no capabilities arrived".into()
            }
            None => "not applicable: the server declares neither prompts nor resources".into(),
            Some(true) => "every prompts/list and resources/list result passes".into(),
            Some(false) => bad.join("; "),
        },
        losing,
    )
}

/// Every response follows the request it answers. One that arrives before its request
/// was sent is dropped by every observed build; one written before the server read its
/// request is taken as the answer and the real answer ignored (the model's rows).
fn strays_check(p: &ServerProbe) -> ContractCheck {
    use session::StrayKind;
    let mut bad = Vec::new();
    for a in &p.attempts {
        for s in &a.strays {
            let what = s.method.as_deref().unwrap_or("?");
            match s.kind {
                StrayKind::BeforeRequest => bad.push(format!(
                    "{}: a response to id {} ({what}) came before the request was sent: Claude Code drops it",
                    a.mode.as_str(),
                    s.id
                )),
                StrayKind::Duplicate => bad.push(format!(
                    "{}: two responses to id {} ({what}), one written before the server read the request: Claude Code takes the first it reads as the answer",
                    a.mode.as_str(),
                    s.id
                )),
                StrayKind::UnknownId => {}
            }
        }
    }
    let heard = p.attempts.iter().any(heard_from);
    check(
        "responses-follow-requests",
        heard.then_some(bad.is_empty()),
        if !heard {
            "not checked: the server never answered".into()
        } else if bad.is_empty() {
            "every response came after its request, once".into()
        } else {
            bad.join("; ")
        },
        lifecycle::CONTRACT_BUILDS.to_vec(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn timeouts(ms: u64, by: Option<&str>) -> ProbeTimeouts {
        let mut t = ProbeTimeouts::default();
        t.request.ms = ms;
        t.request.decided_by = by.map(str::to_string);
        t
    }

    #[test]
    fn the_budget_names_the_flag_or_the_setting_that_decided_it() {
        let b = Budget::new(Some(Duration::from_secs(3)), &timeouts(30_000, None));
        assert_eq!(b.describe(), "--timeout 3000 ms");
        assert_eq!(b.describe_limit(), "MCP_TIMEOUT 30000 ms (default)");
        assert!(b.shorter_than_claude_code());
        let text = b.cut_short(ClaudeVersion(2, 1, 332));
        assert!(text.contains("--timeout 3000 ms") && text.contains("above 30000 ms"));
        let b = Budget::new(None, &timeouts(1500, Some("environment")));
        assert_eq!(b.describe(), "MCP_TIMEOUT=1500 ms (environment)");
        assert_eq!(b.ms, 1500);
        assert!(!b.shorter_than_claude_code());
        // a --timeout longer than Claude Code's limit does not cut anything short
        let b = Budget::new(Some(Duration::from_secs(60)), &timeouts(30_000, None));
        assert!(!b.shorter_than_claude_code());
    }

    /// Any prediction (the main one or the one with the legacy setting) that timed out
    /// at a `--timeout` below Claude Code's limit is cut short: "cannot tell".
    #[test]
    fn a_timeout_the_flag_caused_is_cut_short_in_either_prediction() {
        use crate::classify::verdict::{Cause, Verdict};
        let p = |cause| Prediction {
            verdict: Verdict::ConnectionFailed,
            cause,
            ..predict::not_run(
                Mode::Legacy,
                ClaudeVersion(2, 1, 332),
                Some("legacy".into()),
                String::new(),
            )
        };
        let short = Budget::new(Some(Duration::from_secs(3)), &timeouts(30_000, None));
        assert!(short.cuts_short(&p(Some(Cause::Timeout))));
        assert!(short.cuts_short(&p(Some(Cause::ToolsTimeout))));
        assert!(!short.cuts_short(&p(Some(Cause::ConnectionClosed))));
        let claude_codes = Budget::new(None, &timeouts(30_000, None));
        assert!(!claude_codes.cuts_short(&p(Some(Cause::Timeout))));
    }
}
