//! `mcplogs export`: every server's verdict, and every configured server's state, as
//! OpenTelemetry log records, for an organisation's own pipeline (docs/export.md).
//!
//! [`items`] lists what a scan says, each with a keyed id ([`store::keyed_id`]); the
//! ledger ([`store::Ledger`]) holds the ids the destination accepted, so each record is
//! sent once; [`record`] makes the record ([`crate::json_doc::ExportRecord`]) with the
//! attributes of docs/export.md (private by default); [`send_all`] hands them in
//! batches to a [`Sink`] (OTLP/HTTP, [`otlp`], or a JSON Lines file, [`file`](mod@file)) and
//! notes in the ledger only what was accepted.

pub mod config;
pub mod file;
pub mod otlp;
pub mod store;

use std::collections::BTreeMap;
use std::time::Instant;

use crate::classify::verdict::{ToolsProof, Verdict};
use crate::json_doc::{ExportAttributes, ExportRecord, SCHEMA_VERSION};
use crate::redact::{Redactor, RedactorBuilder};
use crate::scan::ScanReport;
use crate::scan::ServerReport;
use crate::scan::configured::{Configuration, ConfiguredRow};
use store::{Ledger, keyed_id};

/// `event.name` of a logged server's verdict.
pub const EVENT_VERDICT: &str = "mcplogs.server_verdict";
/// `event.name` of a configured server's state (no log in its project).
pub const EVENT_STATE: &str = "mcplogs.server_state";

/// Records per request: a few hundred KB, under every collector's default body limit.
pub const BATCH: usize = 500;

/// The longest `mcplogs.error`, in characters.
pub const MAX_ERROR_CHARS: usize = 1000;

/// One thing a scan says that becomes one record.
#[derive(Debug, Clone, Copy)]
pub enum Item<'a> {
    Server(&'a ServerReport),
    Configured(&'a ConfiguredRow),
}

/// The keys the hashes are made with.
#[derive(Debug, Clone)]
pub struct Keys {
    /// This machine's key (`<cache>/export/key`): record and machine ids.
    pub machine: Vec<u8>,
    /// The key for names (`mcplogs.server.id`, `mcplogs.project.id`): the admin's
    /// `MCPLOGS_EXPORT_KEY` (the same on every machine, so one server groups across
    /// them), else the machine's.
    pub names: Vec<u8>,
}

impl Keys {
    pub fn new(machine: Vec<u8>, fleet: Option<&str>) -> Keys {
        let names = fleet.map_or_else(|| machine.clone(), |k| k.as_bytes().to_vec());
        Keys { machine, names }
    }

    pub fn machine_id(&self) -> String {
        keyed_id(&self.machine, &["mcplogs.machine.id"])
    }
}

/// The deciding session's id: the first evidence record that names one.
fn session_of(s: &ServerReport) -> Option<&str> {
    s.evidence.iter().find_map(|e| e.session_id.as_deref())
}

fn configuration_state(s: &ServerReport) -> Option<&'static str> {
    match &s.configuration {
        Configuration::Unchecked => None,
        Configuration::NotConfigured => Some("not-configured"),
        Configuration::Configured(c) => Some(c.state.as_str()),
    }
}

/// The record's id: what makes it the same record on the next run. A server's
/// verdict: its log source and name, the deciding session (its file when no record
/// names a session), the verdict, cause and configuration state; a configured
/// server: its project, name, scope, state and detail. Nothing that grows while a
/// session goes on (its last time, its tool calls, the count of sessions) is part of
/// it: one record per session and verdict, however long the session runs.
pub fn item_id(item: Item<'_>, keys: &Keys) -> String {
    match item {
        Item::Server(s) => {
            let session = session_of(s)
                .map(str::to_string)
                .or_else(|| {
                    s.deciding_file
                        .as_ref()
                        .map(|f| f.to_string_lossy().into_owned())
                })
                .unwrap_or_default();
            keyed_id(
                &keys.machine,
                &[
                    "verdict",
                    &s.source.to_string_lossy(),
                    &s.name,
                    &session,
                    s.diagnosis.verdict.as_str(),
                    s.diagnosis.cause.map(|c| c.as_str()).unwrap_or_default(),
                    configuration_state(s).unwrap_or_default(),
                ],
            )
        }
        Item::Configured(r) => {
            let detail = match &r.configured.state {
                crate::claude_code::config::ServerState::Skipped(d) => d.as_str(),
                _ => "",
            };
            keyed_id(
                &keys.machine,
                &[
                    "state",
                    &r.project,
                    &r.name,
                    r.configured.scope.as_str(),
                    r.state_name(),
                    detail,
                ],
            )
        }
    }
}

/// Every record a scan gives, with its id.
pub fn items<'a>(report: &'a ScanReport, keys: &Keys) -> Vec<(String, Item<'a>)> {
    use rayon::prelude::*;
    let mut out: Vec<(String, Item<'a>)> = report
        .servers
        .par_iter()
        .map(|s| (item_id(Item::Server(s), keys), Item::Server(s)))
        .collect();
    out.extend(
        report
            .configured
            .iter()
            .map(|r| (item_id(Item::Configured(r), keys), Item::Configured(r))),
    );
    out
}

/// What a record may hold.
pub struct RecordOptions<'a> {
    /// `OTEL_LOG_TOOL_DETAILS=1`: names, paths and error text (redacted) are sent.
    pub details: bool,
    /// Redacts the texts sent with `details` ([`redactor_for`]).
    pub redactor: &'a Redactor,
    pub resource: &'a BTreeMap<String, String>,
    /// ISO-8601 time of this run.
    pub now: String,
    pub machine_id: String,
}

/// The redactor `report` uses, having learned the scan's configured secrets
/// ([`crate::scan::ScanReport::secrets`]) and the texts the records will hold (only
/// needed with details: without them no text of the logs is sent).
pub fn redactor_for(
    machine: RedactorBuilder,
    secrets: &crate::redact::configured::ConfiguredSecrets,
    items: &[(String, Item<'_>)],
) -> Redactor {
    let mut b = machine;
    b.learn_configured_secrets(secrets);
    for (_, item) in items {
        for t in detail_texts(*item).into_iter().flatten() {
            b.learn(t);
        }
    }
    b.build()
}

/// The name, project and error text of an item (what only `details` sends).
fn detail_texts<'a>(item: Item<'a>) -> [Option<&'a str>; 3] {
    match item {
        Item::Server(s) => [
            Some(&s.name),
            s.project.as_deref(),
            (s.diagnosis.verdict != Verdict::Healthy)
                .then(|| deciding_message(s))
                .flatten(),
        ],
        Item::Configured(r) => [
            Some(&r.name),
            Some(&r.project),
            match &r.configured.state {
                crate::claude_code::config::ServerState::Skipped(d) => Some(d.as_str()),
                _ => None,
            },
        ],
    }
}

/// The message a verdict rests on: its last error-level evidence record, else its
/// last evidence record.
fn deciding_message(s: &ServerReport) -> Option<&str> {
    use crate::logs::record::Level;
    s.evidence
        .iter()
        .rev()
        .find(|e| e.level == Level::Error)
        .or_else(|| s.evidence.last())
        .map(|e| &*e.message)
}

fn bounded(redactor: &Redactor, text: &str) -> String {
    let t = redactor.redact(text);
    crate::text::layout::cut(&t, MAX_ERROR_CHARS)
}

/// The record of one item.
pub fn record(id: &str, item: Item<'_>, keys: &Keys, o: &RecordOptions<'_>) -> ExportRecord {
    let opt = |t: Option<&str>| {
        if o.details {
            t.map(|t| bounded(o.redactor, t))
        } else {
            None
        }
    };
    let [name, project, error] = detail_texts(item);
    let project_id = project.map(|p| keyed_id(&keys.names, &["project", p]));
    let server_id = keyed_id(&keys.names, &["server", name.unwrap_or_default()]);
    match item {
        Item::Server(s) => {
            let d = &s.diagnosis;
            // (what makes `scan` exit 1: a configuration Claude Code skips too)
            let problem = s.is_problem_now();
            let (severity_text, severity_number) = if problem {
                ("ERROR", 17)
            } else if d.verdict.is_problem() || d.verdict == Verdict::Tolerated {
                ("WARN", 13)
            } else {
                ("INFO", 9)
            };
            let configured = match &s.configuration {
                Configuration::Configured(c) => Some(c),
                _ => None,
            };
            let first_seen = s
                .evidence
                .iter()
                .filter_map(|e| e.timestamp.as_deref())
                .min()
                .map(str::to_string);
            ExportRecord {
                schema_version: SCHEMA_VERSION,
                timestamp: s.last_seen.clone().unwrap_or_else(|| o.now.clone()),
                observed_timestamp: o.now.clone(),
                severity_text: severity_text.into(),
                severity_number,
                body: crate::classify::verdict::label(d.verdict, d.cause),
                attributes: ExportAttributes {
                    event_name: EVENT_VERDICT.into(),
                    session_id: session_of(s).map(str::to_string),
                    record_id: id.to_string(),
                    machine_id: o.machine_id.clone(),
                    verdict: d.verdict.as_str().into(),
                    cause: d.cause.map(|c| c.as_str().into()),
                    era: d.era.map(|e| e.as_str().into()),
                    protocol_version: d.negotiated_protocol_version.clone(),
                    configuration_state: configuration_state(s).map(Into::into),
                    problem,
                    legacy_fix_applies: s.legacy_fix_applies(),
                    server_scope: configured.map(|c| c.scope.as_str().into()),
                    transport_type: configured
                        .and_then(|c| c.transport)
                        .map(|t| t.as_str().into()),
                    server_id,
                    server_name: opt(name),
                    project_id,
                    project: opt(project),
                    error: opt(error),
                    tool_calls: match d.tools_proof {
                        Some(ToolsProof::ToolCalls { calls }) => Some(calls as u64),
                        _ => None,
                    },
                    connected_seconds: match d.tools_proof {
                        Some(ToolsProof::LongConnection { secs }) => Some(secs),
                        _ => None,
                    },
                    sessions: s.sessions as u64,
                    failed_sessions: s.failed_sessions as u64,
                    first_seen,
                    last_seen: s.last_seen.clone(),
                },
                resource: o.resource.clone(),
            }
        }
        Item::Configured(r) => {
            let problem = r.is_problem();
            ExportRecord {
                schema_version: SCHEMA_VERSION,
                timestamp: o.now.clone(),
                observed_timestamp: o.now.clone(),
                severity_text: if problem { "ERROR" } else { "INFO" }.into(),
                severity_number: if problem { 17 } else { 9 },
                body: r.state_name().into(),
                attributes: ExportAttributes {
                    event_name: EVENT_STATE.into(),
                    session_id: None,
                    record_id: id.to_string(),
                    machine_id: o.machine_id.clone(),
                    verdict: r.state_name().into(),
                    cause: None,
                    era: None,
                    protocol_version: None,
                    configuration_state: Some(r.configured.state.as_str().into()),
                    problem,
                    legacy_fix_applies: false,
                    server_scope: Some(r.configured.scope.as_str().into()),
                    transport_type: r.configured.transport.map(|t| t.as_str().into()),
                    server_id,
                    server_name: opt(name),
                    project_id,
                    project: opt(project),
                    error: opt(error),
                    tool_calls: None,
                    connected_seconds: None,
                    sessions: 0,
                    failed_sessions: 0,
                    first_seen: None,
                    last_seen: r.ran_since.clone(),
                },
                resource: o.resource.clone(),
            }
        }
    }
}

/// What a destination said to one batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Accepted {
    /// Records the destination refused for good (OTLP partial success): not sent again.
    pub rejected: u64,
}

/// Why a batch did not go out. Its records go out on the next run.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    #[error("no answer within {0} ms")]
    Timeout(u64),
    #[error("the collector answered HTTP {status}{}", detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
    Status { status: u16, detail: Option<String> },
    #[error("{0}")]
    Connect(String),
    #[error("cannot write {path}: {source}")]
    File {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// Where records go.
pub trait Sink {
    /// Sends one batch before `deadline`.
    fn send(&mut self, batch: &[ExportRecord], deadline: Instant) -> Result<Accepted, SendError>;
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Records the destination accepted in this run.
    pub sent: usize,
    /// Records it had accepted before (nothing new).
    pub already: usize,
    /// Records refused for good by the destination (partial success), with its message.
    pub rejected: u64,
    /// Records not sent: they go out on the next run.
    pub left: usize,
    /// Why the run stopped early.
    pub failure: Option<SendError>,
}

/// Sends every item the ledger does not hold, in batches of [`BATCH`], until the
/// deadline; each accepted batch goes into the ledger (saved by the caller).
pub fn send_all(
    items: &[(String, Item<'_>)],
    keys: &Keys,
    options: &RecordOptions<'_>,
    ledger: &mut Ledger,
    today: i64,
    sink: &mut dyn Sink,
    deadline: Instant,
) -> Outcome {
    let mut out = Outcome::default();
    let fresh: Vec<&(String, Item<'_>)> = items
        .iter()
        .filter(|(id, _)| {
            let seen = ledger.seen(id, today);
            out.already += usize::from(seen);
            !seen
        })
        .collect();
    let mut chunks = fresh.chunks(BATCH);
    for chunk in chunks.by_ref() {
        let batch: Vec<ExportRecord> = chunk
            .iter()
            .map(|(id, item)| record(id, *item, keys, options))
            .collect();
        match sink.send(&batch, deadline) {
            Ok(a) => {
                ledger.accepted(chunk.iter().map(|(id, _)| id.as_str()), today);
                out.sent += chunk.len() - (a.rejected.min(chunk.len() as u64) as usize);
                out.rejected += a.rejected;
            }
            Err(e) => {
                out.left += chunk.len();
                out.failure = Some(e);
                break;
            }
        }
    }
    out.left += chunks.map(<[_]>::len).sum::<usize>();
    out
}
