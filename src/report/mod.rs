//! `mcplogs report`: a Markdown report to paste into a bug issue (Claude Code's or an MCP
//! server's), and the same content as JSON.
//!
//! [`stderr::gather`] gives the problem servers' stderr records (taken in the scan's
//! read; the few it could not take are read again: the one step here that reads files;
//! the command runs it and shows its warnings);
//! [`build`] turns a scan, those records, the negotiation settings and the versions into a [`Report`]
//! (plain data, every free text a `String`); [`build_taking`] makes the same from the
//! scan's servers as it frees them, learning the redaction from each section as it is
//! made, and, for a Markdown report sure to be too long for any record
//! ([`records_never_fit`]), keeps only how many records each server had;
//! [`Report::redact`] redacts all of it in place; [`markdown::render`] and [`json::report_json`] render it, and
//! [`limit::fit`] keeps the Markdown under GitHub's issue body limit by leaving out the
//! oldest evidence first. Nothing here prints or runs programs: the Claude Code version
//! arrives as a value.

pub mod json;
pub mod limit;
pub mod markdown;
pub mod stderr;

use crate::advice::Audience;
use crate::classify::verdict::{Cause, Diagnosis, Verdict};
use crate::redact::{Redactor, RedactorBuilder};
use crate::render::settings::{effective_line, problem_lines};
use crate::scan::{Evidence, ScanReport, ServerReport};
use crate::settings::EffectiveNegotiation;
use crate::text::recent::{self, Recent};
use stderr::ServerStderr;

/// GitHub rejects issue bodies longer than this many characters.
pub const GITHUB_BODY_LIMIT: usize = 65_536;

/// The versions the report states. Injected so tests are deterministic.
#[derive(Debug, Clone, PartialEq)]
pub struct Versions {
    pub mcplogs: String,
    pub os: String,
    pub arch: String,
    /// What `claude --version` printed, or `None` ("unknown").
    pub claude_code: Option<String>,
}

impl Versions {
    /// This build and this machine; the Claude Code version comes from the caller.
    pub fn this_machine(claude_code: Option<String>) -> Self {
        Versions {
            mcplogs: env!("CARGO_PKG_VERSION").to_string(),
            os: std::env::consts::OS.to_string(),
            arch: std::env::consts::ARCH.to_string(),
            claude_code,
        }
    }
}

/// One decoded log record shown as evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct EvidenceItem {
    /// The log file's full path.
    pub file: String,
    /// Short form for the report: `<log folder>/<file>:<line>`.
    pub location: String,
    pub line: usize,
    pub timestamp: Option<String>,
    pub level: String,
    /// The decoded message, exactly as logged (pretty-printed only when rendered).
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ServerSection {
    pub name: String,
    pub project: Option<String>,
    /// The verdict and what it rests on, as the scan decided it.
    pub diagnosis: Diagnosis,
    /// Knowing the settings: whether writing the legacy fix can take effect.
    pub legacy_fix_applies: bool,
    pub last_seen: Option<String>,
    /// Sessions seen in the log folder.
    pub sessions: usize,
    /// Of those, the sessions read (newest first, until the verdict was decided).
    pub sessions_read: usize,
    /// Of the sessions read, those that failed.
    pub failed_sessions: usize,
    pub source: String,
    /// Who can act on it (`None`: it does not fail).
    pub audience: Option<Audience>,
    /// How the server is configured to start (`command args…`, or its URL), from
    /// Claude Code's configuration files: for the steps to reproduce. Redacted like
    /// every text here; environment and header values are never included.
    pub launch: Option<String>,
    /// One sentence saying what is wrong (for problem servers) or how it stands.
    pub summary: String,
    pub recommendation: String,
    /// The fix engine's change `mcplogs fix` plans for it, by its cause name
    /// (`command-path`), as `scan` gives it ([`crate::advice::fix_action`]): a report
    /// for the servers' authors still names it beside a server of the user's own set-up.
    pub fix_action: Option<String>,
    /// The decisive records of the deciding (latest decisive) session, oldest first.
    pub evidence: Vec<EvidenceItem>,
    /// For problem servers: the `Server stderr` records of that session, oldest first.
    pub stderr: Vec<EvidenceItem>,
    /// False for a server Claude Code no longer starts (no longer configured, disabled,
    /// denied, skipped): its verdict is history and never a problem now.
    pub counts_now: bool,
    /// Claude Code now skips it for an error in its configuration
    /// ([`ServerReport::config_error_now`]): a problem of the user's own set-up.
    pub config_error_now: bool,
    /// Several configured servers write its log folder ([`ServerReport::is_shared`]): its
    /// name is theirs joined with ` + `, and no one launch line is its.
    pub shared: bool,
    /// What Claude Code's MCP discovery cache did to it, when that decided its verdict.
    /// Boxed, as the scan's: most servers have none, and 100,000 sections each holding
    /// a whole one inline was 11 MB.
    pub discovery_cache: Option<Box<crate::scan::CacheServed>>,
}

impl ServerSection {
    pub fn is_problem(&self) -> bool {
        self.diagnosis.verdict.is_problem() && self.counts_now
    }

    /// What makes the exit code 1 for it ([`ServerReport::is_problem_now`]): a failure
    /// now, or a configuration Claude Code skips.
    pub fn is_problem_now(&self) -> bool {
        self.is_problem() || self.config_error_now
    }

    /// `tools-fetch-failed (missing-resultType)`.
    pub fn verdict_text(&self) -> String {
        match self.diagnosis.cause {
            Some(c) => format!("{} ({c})", self.diagnosis.verdict),
            None => self.diagnosis.verdict.to_string(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct LayerItem {
    pub layer: String,
    /// `None` for the process environment.
    pub path: Option<String>,
    pub status: String,
    pub value: Option<String>,
    pub in_effect: bool,
    pub decides: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SettingsSection {
    pub project: String,
    /// Highest precedence first.
    pub layers: Vec<LayerItem>,
    pub effective_value: Option<String>,
    pub effective_layer: Option<String>,
    pub effective_path: Option<String>,
    /// One sentence: the effective value and where it comes from.
    pub effective_text: String,
    /// The effective value is `legacy`: the legacy fix is applied.
    pub legacy_applied: bool,
    /// Settings files Claude Code skips, one sentence each.
    pub problems: Vec<String>,
}

/// What the size limit left out.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Omitted {
    /// Evidence records left out, per server name, in report order.
    pub records: Vec<(String, usize)>,
    /// Records left out of servers the report kept no section of (beyond what a
    /// Markdown report can show: [`Making::reach`]): counted, never named (the note
    /// names only the servers that lost the most, and those are kept).
    pub unnamed: Unnamed,
    /// The text was still too long without any evidence and was cut.
    pub cut: bool,
}

/// Records left out of servers not named one by one ([`Omitted::unnamed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Unnamed {
    /// Servers that had any.
    pub servers: usize,
    /// Their records.
    pub records: usize,
}

impl Omitted {
    pub fn total(&self) -> usize {
        self.records.iter().map(|(_, n)| n).sum::<usize>() + self.unnamed.records
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty() && self.unnamed.servers == 0 && !self.cut
    }
}

/// A configured server without a log (scan's [`crate::scan::configured::ConfiguredRow`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ConfiguredSection {
    pub name: String,
    pub project: String,
    /// `disabled`, `pending-approval`, ... (docs/json.md).
    pub state: String,
    /// The state in words, with the file and key that decide it.
    pub reason: String,
    pub recommendation: String,
    /// Claude Code skips it for an error in its configuration
    /// ([`crate::scan::configured::ConfiguredRow::is_problem`]).
    pub config_error: bool,
}

/// How many texts [`Report::redact`] gives a worker at once.
const SHARE: usize = 4096;

#[derive(Debug, Clone)]
pub struct Report {
    pub versions: Versions,
    pub servers: Vec<ServerSection>,
    /// Configured servers that wrote no log: their states.
    pub configured: Vec<ConfiguredSection>,
    pub settings: SettingsSection,
    /// Damaged or unreadable files, one line each.
    pub warnings: Vec<String>,
    /// Claude Code's state on the machine (discovery cache, switches, cached MCP flags).
    pub machine_state: Option<crate::scan::MachineState>,
    /// Set by [`limit::fit`].
    pub omitted: Omitted,
    redactor: Redactor,
    /// The scan's configured secrets ([`crate::scan::ScanReport::secrets`]): what
    /// [`Self::redact`] learns first.
    secrets: crate::redact::configured::ConfiguredSecrets,
    /// Set by [`build_taking`] when it learned from each section as it made it (before
    /// freeing what the section does not keep): what [`Self::redact`] learned from the
    /// servers' texts, and which of the texts kept the secret rules found something in.
    learned: Option<Learned>,
    /// Set by [`build_taking`] when it kept no record ([`Making::records`]): how many
    /// each server had, for the note saying what was left out ([`limit::fit_owned`]).
    records_left_out: Option<Vec<usize>>,
    /// Set by [`build_taking`] when it kept only the sections a Markdown report can show
    /// ([`Making::reach`]): what the servers it kept none of add to the report.
    beyond: Beyond,
    /// The log folders several configured names share: each server's name (the names
    /// joined with ` + `) and the names, which [`Self::redact`] prints each with its
    /// own tag, as `scan` does.
    shared: std::collections::HashMap<String, Vec<String>>,
    /// With [`Making::defer_records`]: each server's records, in the servers' order
    /// (empty otherwise).
    deferred: Vec<Deferred>,
    /// The home's `~/.claude.json` could not be parsed ([`ScanReport::config_problem`]):
    /// a server without a launch line is not known to be configured elsewhere.
    pub config_unreadable: bool,
    /// The scan's [`ScanReport::has_problems`]: a server failing now or a configuration
    /// Claude Code skips, logged or not (the exit code, as `scan`'s).
    problems: bool,
}

/// What the servers [`build_taking`] kept no section of ([`Making::reach`]) still add
/// to the report: the records they had (for the note saying what was left out).
#[derive(Debug, Clone, Copy, Default)]
struct Beyond {
    records: Unnamed,
}

/// The names of `servers` that share a log folder: [`Report::shared`].
fn shared_names<'a>(
    servers: impl IntoIterator<Item = &'a ServerReport>,
) -> std::collections::HashMap<String, Vec<String>> {
    servers
        .into_iter()
        .filter(|s| s.is_shared())
        .map(|s| (s.name.clone(), s.shared_by.clone()))
        .collect()
}

/// What [`build_taking`] learned from the servers' texts, in their order.
#[derive(Debug, Clone)]
struct Learned {
    servers: RedactorBuilder,
    /// One a text the sections keep, in [`section_strings`]'s order.
    hits: Vec<bool>,
}

/// What `mcplogs report` adds to each server's section before it is redacted, and how
/// [`build_taking`] keeps the sections.
pub struct Making<'a> {
    /// How the server is configured to start ([`ServerSection::launch`]): its own
    /// launch, as the scan's resolution found it for its project ([`launch_line`]).
    pub launch: &'a (dyn Fn(&ServerReport) -> Option<String> + Sync),
    /// The redaction's learning so far (the machine's homes and users), when the report
    /// is redacted: each section is learned from as it is made ([`Report::redact`] then
    /// learns the rest of the report, in the order it learns a whole report).
    pub learn: Option<&'a RedactorBuilder>,
    /// Keep each server's records (evidence and stderr); without, only how many each
    /// had: for a Markdown report sure to be too long to show any
    /// ([`records_never_fit`]).
    pub records: bool,
    /// Keep only the sections a Markdown report can show ([`Reach`], from
    /// [`sections_within_reach`]); `None` keeps every server's.
    pub reach: Option<Reach>,
    /// Keep each server's records as the scan read them (its paths and messages shared
    /// between records), not as the section's texts, and make those when the section is
    /// written ([`Report::sections`]): for `report --json`, which writes one section at
    /// a time (100,000 servers' records as texts were about half of its peak).
    /// Learned from as they are made all the same, and redacted the same.
    pub defer_records: bool,
}

/// A section's records kept as the scan read them ([`Making::defer_records`]), and
/// whether the secret rules found anything in each of their texts, in
/// [`section_strings`]' order.
#[derive(Debug, Clone, Default)]
struct Deferred {
    evidence: Vec<Evidence>,
    stderr: Vec<Evidence>,
    hits: Vec<bool>,
}

/// How far into its servers a Markdown report too long for any record can show
/// anything ([`sections_within_reach`]): its text is cut within the first `reported`
/// entries of the servers it is about, so a section past them, or of a server it is not
/// about, is never printed. [`build_taking`] keeps those sections, and the few the
/// note saying what was left out names, and of the others only what they add up to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    /// Whom the report is for ([`Report::audience`], known from the scan).
    audience: Audience,
    /// How many of its servers' sections can be shown at most.
    reported: usize,
}

impl Report {
    pub fn problem_servers(&self) -> impl Iterator<Item = &ServerSection> {
        self.servers.iter().filter(|s| s.is_problem())
    }

    /// The entries Claude Code skips for an error in their configuration, each name with
    /// what fixes it: the logged servers it now skips, then the configured ones without
    /// logs. (With only these, [`Self::has_problems`] and no [`Self::audience`].)
    pub fn config_errors(&self) -> impl Iterator<Item = (&str, &str)> {
        let logged = self
            .servers
            .iter()
            .filter(|s| s.config_error_now)
            .map(|s| (s.name.as_str(), s.recommendation.as_str()));
        let configured = self
            .configured
            .iter()
            .filter(|c| c.config_error)
            .map(|c| (c.name.as_str(), c.recommendation.as_str()));
        logged.chain(configured)
    }

    /// Whether the scan found a problem ([`ScanReport::has_problems`]): the exit code.
    pub fn has_problems(&self) -> bool {
        self.problems
    }

    /// Whom this report is for: Claude Code's tracker when any failing server looks
    /// like Claude Code's problem, else the servers' authors when any server sent
    /// something wrong, else the user (whose own set-up needs the fix, not a report).
    /// `None` when no server fails.
    pub fn audience(&self) -> Option<Audience> {
        self.servers.iter().filter_map(|s| s.audience).min()
    }

    /// The servers this report is about: those of [`Self::audience`], failing or
    /// `tolerated` (whose advice, in every command, is to report it to its authors).
    pub fn reported_servers(&self) -> impl Iterator<Item = &ServerSection> {
        let a = self.audience();
        self.servers
            .iter()
            .filter(move |s| s.audience.is_some() && s.audience == a)
    }

    /// The other servers someone should act on (failing, or `tolerated`, for other
    /// readers), listed by name only.
    pub fn other_failing_servers(&self) -> impl Iterator<Item = &ServerSection> {
        let a = self.audience();
        self.servers
            .iter()
            .filter(move |s| s.audience.is_some() && s.audience != a)
    }

    pub fn is_redacted(&self) -> bool {
        self.redactor.is_enabled()
    }

    /// The redactor in use (a disabled one until [`Self::redact`]).
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Each server's section whole, as it is written: with its records made now, and
    /// redacted as [`Self::redact`] redacts them, when they were kept as read
    /// ([`Making::defer_records`]); else as kept.
    pub fn sections(&self) -> impl Iterator<Item = std::borrow::Cow<'_, ServerSection>> {
        use std::borrow::Cow;
        self.servers.iter().enumerate().map(|(i, s)| {
            let Some(d) = self.deferred.get(i) else {
                return Cow::Borrowed(s);
            };
            let mut whole = s.clone();
            whole.evidence = d.evidence.iter().map(evidence_item).collect();
            whole.stderr = d.stderr.iter().map(evidence_item).collect();
            if self.redactor.is_enabled() {
                let texts: Vec<&mut String> = whole
                    .evidence
                    .iter_mut()
                    .chain(whole.stderr.iter_mut())
                    .flat_map(record_strings)
                    .collect();
                redact_texts(&self.redactor, texts, &d.hits);
            }
            Cow::Owned(whole)
        })
    }

    /// Redacts every text of the report in place. `builder` holds what is known about
    /// the machine (homes, user names); it first learns from every text here, so a user
    /// name or secret seen in one place is redacted in all its spellings everywhere.
    pub fn redact(&mut self, builder: RedactorBuilder) {
        // a name holding a secret gets its tag, as in `scan` (two names printing alike
        // told apart: [`crate::scan::select::tag`])
        let names: Vec<String> = self
            .servers
            .iter()
            .map(|s| s.name.clone())
            .chain(self.configured.iter().map(|c| c.name.clone()))
            .collect();
        self.redact_all(builder);
        let now = self
            .servers
            .iter_mut()
            .map(|s| &mut s.name)
            .chain(self.configured.iter_mut().map(|c| &mut c.name));
        for (name, was) in now.zip(&names) {
            crate::scan::select::tag_shown(was, name);
        }
        // a folder several names share: each name with its own tag, as `scan` prints it
        // (one tag of the names joined tells none of them apart)
        if !self.shared.is_empty() {
            let r = &self.redactor;
            for (s, was) in self.servers.iter_mut().zip(&names) {
                if let Some(list) = self.shared.get(was) {
                    let plain: Vec<String> = list.iter().map(|n| r.redact(n)).collect();
                    let mut tagged = list.clone();
                    s.name = crate::scan::select::shown_sharing(r, &mut tagged);
                    // the sentences naming the folder's servers (the summary's, and the
                    // recommendation's `advice::shared_note`) name each with its tag too
                    if plain != tagged {
                        let from = format!("The configured servers {} ", plain.join(", "));
                        let to = format!("The configured servers {} ", tagged.join(", "));
                        for text in [&mut s.summary, &mut s.recommendation] {
                            if text.contains(&from) {
                                *text = text.replacen(&from, &to, 1);
                            }
                        }
                    }
                }
            }
        }
    }

    fn redact_all(&mut self, mut builder: RedactorBuilder) {
        use rayon::prelude::*;
        // Every value the configuration marks as secret, wherever it reappears.
        builder.learn_configured_secrets(&self.secrets);
        if let Some(learned) = self.learned.take() {
            return self.redact_learned(builder, learned);
        }
        // Learned in shares in parallel, merged in the texts' order: what one pass over
        // every text would learn, in the same order (a report of 100,000 servers holds
        // millions of texts).
        // Each text's rule hits are known from learning: a text they found nothing in is
        // not run through the rules again (half of the redaction's time).
        let mut strings = self.strings_mut();
        // A text learned again teaches nothing new (what it holds is known): the texts
        // seen last in a share keep their answer (a server's file and its records'
        // messages come again and again).
        let learned: Vec<(RedactorBuilder, Vec<bool>)> = strings
            .par_chunks(SHARE)
            .map(|share| {
                let mut b = builder.learner();
                let mut seen: Recent<bool> = Recent::default();
                let hits = share
                    .iter()
                    .map(|s| seen.get_or_insert_with(s, || b.learn(s)))
                    .collect();
                (b, hits)
            })
            .collect();
        let mut hits = Vec::with_capacity(strings.len());
        for (l, h) in learned {
            builder.merge_learned(l);
            hits.extend(h);
        }
        let redactor = builder.build();
        // One redactor for every text: the same text redacts the same, so the texts
        // seen last in a share keep their redacted form.
        strings
            .par_chunks_mut(SHARE)
            .zip(hits.par_chunks(SHARE))
            .for_each(|(share, hits)| {
                redact_texts(&redactor, share.iter_mut().map(|s| &mut **s), hits)
            });
        drop(strings);
        self.redactor = redactor;
    }

    /// [`Self::redact`] of a report whose servers' texts [`build_taking`] learned from:
    /// the same learning, in the same order (the configured secrets, the head, the
    /// servers, the rest), and the same redaction of every text kept.
    fn redact_learned(&mut self, mut builder: RedactorBuilder, learned: Learned) {
        use rayon::prelude::*;
        let mut head = builder.learner();
        let head_hits: Vec<bool> = self
            .versions
            .claude_code
            .iter()
            .map(|c| head.learn(c))
            .collect();
        builder.merge_learned(head);
        builder.merge_learned(learned.servers);
        let mut tail = builder.learner();
        let mut seen: Recent<bool> = Recent::default();
        let tail_hits: Vec<bool> = tail_strings(
            &mut self.configured,
            &mut self.settings,
            &mut self.warnings,
            &mut self.machine_state,
        )
        .into_iter()
        .map(|s| seen.get_or_insert_with(s, || tail.learn(s)))
        .collect();
        builder.merge_learned(tail);
        let redactor = builder.build();
        let redact_all =
            |strings: Vec<&mut String>, hits: &[bool]| redact_texts(&redactor, strings, hits);
        redact_all(self.versions.claude_code.iter_mut().collect(), &head_hits);
        // Each share of servers with its share of the hits.
        let mut shares: Vec<(&mut [ServerSection], &[bool])> = Vec::new();
        let mut hits: &[bool] = &learned.hits;
        let mut rest: &mut [ServerSection] = &mut self.servers;
        while !rest.is_empty() {
            let n = SECTIONS_AT_ONCE.min(rest.len());
            let (share, after) = std::mem::take(&mut rest).split_at_mut(n);
            let n: usize = share.iter_mut().map(|s| section_strings(s).len()).sum();
            let (h, more) = hits.split_at(n.min(hits.len()));
            shares.push((share, h));
            hits = more;
            rest = after;
        }
        shares.into_par_iter().for_each(|(share, hits)| {
            redact_all(share.iter_mut().flat_map(section_strings).collect(), hits);
        });
        redact_all(
            tail_strings(
                &mut self.configured,
                &mut self.settings,
                &mut self.warnings,
                &mut self.machine_state,
            ),
            &tail_hits,
        );
        self.redactor = redactor;
    }

    /// Every free text of the report: what redaction must see.
    fn strings_mut(&mut self) -> Vec<&mut String> {
        let mut v: Vec<&mut String> = Vec::new();
        if let Some(c) = self.versions.claude_code.as_mut() {
            v.push(c);
        }
        for s in &mut self.servers {
            v.extend(section_strings(s));
        }
        v.extend(tail_strings(
            &mut self.configured,
            &mut self.settings,
            &mut self.warnings,
            &mut self.machine_state,
        ));
        v
    }
}

/// Redacts each text in place, the ones whose learning found a secret (`hits`) fully and
/// the others by the rules alone; a text seen lately in the same run is redacted once.
fn redact_texts<'a>(
    redactor: &Redactor,
    texts: impl IntoIterator<Item = &'a mut String>,
    hits: &[bool],
) {
    let mut seen: Recent<Option<String>> = Recent::default();
    for (s, &hit) in texts.into_iter().zip(hits) {
        let red = seen.get_or_insert_with(s, || {
            if hit {
                redactor.redacted(s)
            } else {
                redactor.redacted_rules_clean(s)
            }
        });
        if let Some(r) = red {
            *s = r;
        }
    }
}

/// A server's free texts, in the order redaction learns them: its records' last.
fn section_strings(s: &mut ServerSection) -> Vec<&mut String> {
    let mut v: Vec<&mut String> = Vec::new();
    v.push(&mut s.name);
    v.extend(s.project.as_mut());
    v.extend(s.diagnosis.negotiated_protocol_version.as_mut());
    v.extend(s.diagnosis.filled_fields.iter_mut());
    v.extend(s.diagnosis.bad_tool_path.as_mut());
    v.extend(s.last_seen.as_mut());
    v.push(&mut s.source);
    v.extend(s.launch.as_mut());
    v.push(&mut s.summary);
    v.push(&mut s.recommendation);
    for e in s.evidence.iter_mut().chain(s.stderr.iter_mut()) {
        v.extend(record_strings(e));
    }
    v
}

/// A record's free texts, in the order redaction learns them.
fn record_strings(e: &mut EvidenceItem) -> Vec<&mut String> {
    let mut v: Vec<&mut String> = vec![&mut e.file, &mut e.location];
    v.extend(e.timestamp.as_mut());
    v.push(&mut e.message);
    v
}

/// The report's free texts after its servers', in the order redaction learns them.
fn tail_strings<'a>(
    configured: &'a mut [ConfiguredSection],
    st: &'a mut SettingsSection,
    warnings: &'a mut [String],
    machine_state: &'a mut Option<crate::scan::MachineState>,
) -> Vec<&'a mut String> {
    let mut v: Vec<&mut String> = Vec::new();
    for c in configured {
        v.push(&mut c.name);
        v.push(&mut c.project);
        v.push(&mut c.reason);
        v.push(&mut c.recommendation);
    }
    v.push(&mut st.project);
    for l in &mut st.layers {
        v.extend(l.path.as_mut());
        v.extend(l.value.as_mut());
    }
    v.extend(st.effective_value.as_mut());
    v.extend(st.effective_path.as_mut());
    v.push(&mut st.effective_text);
    v.extend(st.problems.iter_mut());
    v.extend(warnings.iter_mut());
    if let Some(m) = machine_state {
        v.push(&mut m.discovery_cache);
        v.extend(m.notes.iter_mut());
        for (_, value, set_in) in &mut m.switches {
            v.push(value);
            v.push(set_in);
        }
    }
    v
}

/// Whether the Markdown report of `scan` is sure to be longer than `limit` characters
/// with no record at all, so that it is cut without any ([`limit::fit`]): its servers'
/// lines alone pass the limit. Each line ends with a line break, which neither a
/// value nor redaction takes away; a server the report is about has at least four
/// lines, any other at least one (its row in the table), except where the report is
/// for servers' authors, which shows only the other failing ones, a line each.
pub fn records_never_fit(scan: &ScanReport, limit: usize) -> bool {
    let (a, reported, others_failing) = audiences(scan);
    let others = if a == Some(Audience::ServerAuthor) {
        others_failing
    } else {
        scan.servers.len() - reported
    };
    // (a margin for the trailing line breaks the render trims)
    4 * reported + others > limit + 16
}

/// The scan's servers as the report divides them: whom it is for (as [`Report::audience`]
/// chooses), how many it is about ([`Report::reported_servers`]), and how many others
/// someone should act on ([`Report::other_failing_servers`]).
fn audiences(scan: &ScanReport) -> (Option<Audience>, usize, usize) {
    let audience = |s: &ServerReport| crate::advice::audience(s).filter(|_| s.counts_now());
    let a = scan.servers.iter().filter_map(audience).min();
    let (mut reported, mut others) = (0, 0);
    for s in &scan.servers {
        match audience(s) {
            Some(x) if Some(x) == a => reported += 1,
            Some(_) => others += 1,
            None => {}
        }
    }
    (a, reported, others)
}

/// For a Markdown report of `scan` sure to be cut within the entries of the servers it
/// is about (each adds at least [`markdown::entry_floor`] characters, whatever their
/// values and their redaction, and there are too many for `limit`): how far it can
/// reach ([`Making::reach`]). `None` when it may show every server, or when the report
/// may be refused and then names every failing server (no failure, or only the user's
/// own set-up, without `force`). The bound is twice what the floor allows, as margin for
/// a redaction of the final text that takes in more than a value.
pub fn sections_within_reach(scan: &ScanReport, limit: usize, force: bool) -> Option<Reach> {
    let (a, reported, _) = audiences(scan);
    let audience = a.filter(|a| force || *a != Audience::UserConfig)?;
    let within = 2 * (limit + 16) / markdown::entry_floor(audience) + 1;
    (reported > within).then_some(Reach {
        audience,
        reported: within,
    })
}

/// Builds the (unredacted) report. No I/O: `stderr` comes from [`stderr::gather`] (or
/// is empty), and its warnings join the scan's.
pub fn build(
    scan: &ScanReport,
    stderr: &ServerStderr,
    negotiation: &EffectiveNegotiation,
    versions: Versions,
) -> Report {
    Report {
        versions,
        servers: scan
            .servers
            .iter()
            .enumerate()
            .map(|(i, s)| server_section(s, stderr.of(i), &scan.homes))
            .collect(),
        configured: scan
            .configured
            .iter()
            .map(|r| ConfiguredSection {
                name: r.name.clone(),
                project: r.project.clone(),
                state: r.state_name().to_string(),
                config_error: r.is_problem(),
                reason: crate::advice::configured::row_reason(r, None),
                // a `.mcp.json` server `mcplogs fix` enables: its action, as scan's
                recommendation: crate::advice::row_fix_action(r)
                    .map(|e| e.text)
                    .unwrap_or_else(|| {
                        crate::advice::configured::row_way_out(r, None, &scan.homes)
                    }),
            })
            .collect(),
        settings: settings_section(negotiation),
        warnings: {
            // the discovery cache's notes have their place in Claude Code's state
            let cache_note = |w: &crate::warning::Warning| {
                scan.machine_state
                    .as_ref()
                    .is_some_and(|m| m.notes.contains(&w.to_string()))
            };
            let all: Vec<_> = scan
                .warnings
                .iter()
                .filter(|w| !cache_note(w))
                .chain(&stderr.warnings)
                .cloned()
                .collect();
            crate::warning::summary_lines(&all, false)
        },
        machine_state: scan.machine_state.clone(),
        omitted: Omitted::default(),
        redactor: Redactor::disabled(),
        secrets: scan.secrets.clone(),
        learned: None,
        records_left_out: None,
        beyond: Beyond::default(),
        shared: shared_names(&scan.servers),
        deferred: Vec::new(),
        config_unreadable: scan.config_problem.is_some(),
        problems: scan.has_problems(),
    }
}

/// How many servers [`build_taking`] turns into sections at once.
const SECTIONS_AT_ONCE: usize = 1024;

/// [`build`], taking the scan's servers and `stderr`'s records as it goes: a few
/// servers at a time become their sections, and their reports are freed, so the scan's
/// servers and the report's are never both whole in memory (on 100,000 servers each is
/// about 200 MB). The scan keeps everything else (its configured rows, warnings,
/// secrets); its `servers` are left empty.
pub fn build_taking(
    scan: &mut ScanReport,
    stderr: ServerStderr,
    negotiation: &EffectiveNegotiation,
    versions: Versions,
    making: &Making,
) -> Report {
    use rayon::prelude::*;
    let ServerStderr { records, warnings } = stderr;
    // (asked of the whole scan, before its servers are taken)
    let problems = scan.has_problems();
    let servers = std::mem::take(&mut scan.servers);
    let homes = scan.homes.clone();
    let mut report = build(
        scan,
        &ServerStderr {
            records: Vec::new(),
            warnings,
        },
        negotiation,
        versions,
    );
    // (room for the sections is made once they are known: a Markdown report sure to be
    // cut keeps a few hundred of 100,000, and room for every one was 50 MB beside the
    // scan's servers, at this command's peak)
    report.shared = shared_names(&servers);
    report.problems = problems;
    let mut learned = making.learn.map(|b| Learned {
        servers: b.learner(),
        hits: Vec::new(),
    });
    let mut keep = Keeping::new(making.reach, servers.len());
    // The texts learned from in the rounds before (at most [`LEARNED_BEFORE`]): one
    // learned again teaches nothing new, and logs repeat the same names, times and
    // messages from project to project. Only earlier rounds' texts are skipped, so what
    // is learned, and in which order, does not depend on how the workers share a round.
    let mut learned_before: Recent<bool> = Recent::sized(LEARNED_BEFORE);
    let mut servers = servers.into_iter();
    let mut records = records.into_iter();
    loop {
        let share: Vec<(ServerReport, Vec<Evidence>)> = servers
            .by_ref()
            .take(SECTIONS_AT_ONCE)
            .map(|s| (s, records.next().unwrap_or_default()))
            .collect();
        if share.is_empty() {
            break;
        }
        // Made, learned from and trimmed a few at a time by each worker, in order (each
        // server's report freed by the worker that made its section).
        let parts: Vec<(Vec<Made>, Option<RedactorBuilder>, Recent<bool>)> = share
            .into_par_iter()
            .chunks(LEARNED_AT_ONCE)
            .map(|part| {
                let mut learner = making.learn.map(RedactorBuilder::learner);
                // (with every server's records, a part has a few thousand texts)
                let mut seen: Recent<bool> = Recent::sized(if making.records {
                    recent::Size::SMALL
                } else {
                    LEARNED_IN_A_PART
                });
                let made = part
                    .into_iter()
                    .map(|(mut s, mut stderr)| {
                        let mut section = server_section(&s, &stderr, &homes);
                        section.launch = (making.launch)(&s);
                        // (kept as read, for the section's writing: [`Deferred`])
                        let mut deferred = making.defer_records.then(|| Deferred {
                            evidence: std::mem::take(&mut s.evidence),
                            stderr: if section.diagnosis.verdict.is_problem() {
                                std::mem::take(&mut stderr)
                            } else {
                                Vec::new()
                            },
                            hits: Vec::new(),
                        });
                        drop((s, stderr));
                        let records = section.evidence.len() + section.stderr.len();
                        let record_texts: usize = section
                            .evidence
                            .iter()
                            .chain(&section.stderr)
                            .map(|e| 3 + usize::from(e.timestamp.is_some()))
                            .sum();
                        let mut hits = Vec::new();
                        if let Some(l) = learner.as_mut() {
                            let texts = section_strings(&mut section);
                            let kept = if making.records {
                                texts.len()
                            } else {
                                texts.len() - record_texts
                            };
                            hits.reserve_exact(kept);
                            for (i, t) in texts.into_iter().enumerate() {
                                let hit = match learned_before.get(t) {
                                    Some(hit) => *hit,
                                    None => seen.get_or_insert_with(t, || l.learn(t)),
                                };
                                if i < kept {
                                    hits.push(hit);
                                }
                            }
                        }
                        if let Some(d) = deferred.as_mut() {
                            // the records' hits go with them
                            let own = hits.len().saturating_sub(record_texts);
                            d.hits = hits.split_off(own);
                        }
                        if !making.records || deferred.is_some() {
                            section.evidence = Vec::new();
                            section.stderr = Vec::new();
                        }
                        Made {
                            section,
                            hits,
                            records,
                            deferred,
                        }
                    })
                    .collect();
                (made, learner, seen)
            })
            .collect();
        for (made, part_learned, seen) in parts {
            learned_before.absorb(seen);
            if let (Some(all), Some(part)) = (learned.as_mut(), part_learned) {
                all.servers.merge_learned(part);
            }
            for m in made {
                keep.push(m);
            }
        }
    }
    let (kept, beyond) = keep.finish();
    report.servers = kept.sections;
    report.deferred = kept.deferred;
    if let Some(l) = learned.as_mut() {
        l.hits = kept.hits;
    }
    report.beyond = beyond;
    report.learned = learned;
    report.records_left_out = (!making.records).then_some(kept.records);
    report
}

/// How a server is configured to start, as a report's steps to reproduce show it: its
/// command and arguments as a shell reads them (stdio), or its URL and transport; `None`
/// for an entry with neither.
pub fn launch_line(l: &crate::scan::configured::Launch) -> Option<String> {
    if l.is_stdio() {
        Some(
            l.argv
                .iter()
                .map(|w| crate::text::shell_word(w))
                .collect::<Vec<_>>()
                .join(" "),
        )
    } else {
        // a remote server's URL (a stdio entry without a command has none)
        (!l.url.is_empty()).then(|| format!("{} ({})", l.url, l.transport.as_str()))
    }
}

/// How many servers one worker of [`build_taking`] makes and learns from in turn.
const LEARNED_AT_ONCE: usize = 64;

/// The table of texts a worker of [`build_taking`] learned in its part of a round
/// ([`LEARNED_AT_ONCE`] servers, a few hundred texts when their records are not kept):
/// a table of [`recent::SLOTS`] made for each part (100,000 servers: 1,563 of them,
/// each 96 KiB filled, then read whole into [`LEARNED_BEFORE`]) was a tenth of the
/// making of the sections. (With the records, a part keeps that size.)
const LEARNED_IN_A_PART: recent::Size = recent::Size {
    slots: 1024,
    budget_bytes: 256 << 10,
};

/// The table of texts [`build_taking`] learned in its rounds before. Each round of
/// [`SECTIONS_AT_ONCE`] servers brings a few thousand texts seen once (each server's
/// own paths) among those seen again (times, messages, log folder names): in a table of
/// [`recent::SLOTS`] the new ones pushed out many of the others every round (and the
/// hash then put whole runs of times in one slot), and 100,000 servers' times and
/// messages were learned again 340,000 times. 64 Ki slots and 4 MiB of text: at most
/// about 6.5 MiB with the allocator's rounding, beside the reports it frees.
const LEARNED_BEFORE: recent::Size = recent::Size {
    slots: 1 << 16,
    budget_bytes: 4 << 20,
};

/// A section [`build_taking`] made: with the rule hits of the texts it keeps, in
/// [`section_strings`]'s order, and how many records it had.
struct Made {
    section: ServerSection,
    hits: Vec<bool>,
    records: usize,
    /// Its records kept as read ([`Making::defer_records`]).
    deferred: Option<Deferred>,
}

/// Which sections [`build_taking`] keeps, given in report order: every one, or with a
/// [`Reach`] those within it and the few [`markdown::omitted_note`] can name (those with
/// the most records), the others only counted.
struct Keeping {
    reach: Option<Reach>,
    /// Kept, each with its place in the report (with a reach).
    kept: Vec<(usize, Made)>,
    /// Without a reach: every section, its texts' hits and its records, in report order,
    /// put where the report keeps them (room made once for all of them: 100,000
    /// sections grown a push at a time, then moved into the report, were two and three
    /// copies of every section's fields at `report --json`'s peak).
    all: Kept,
    /// Beyond the reach, with records: those with the most, ranked as the note ranks
    /// them (most records first, then report order), each with its place in the report.
    /// At most [`markdown::NOTE_NAMES`].
    most: Vec<(usize, Made)>,
    /// How many sections were given.
    given: usize,
    /// How many of them the report is about.
    reported: usize,
    beyond: Beyond,
}

/// The sections [`Keeping`] keeps, with their texts' hits (in the texts' order) and
/// each one's number of records.
#[derive(Default)]
struct Kept {
    sections: Vec<ServerSection>,
    hits: Vec<bool>,
    records: Vec<usize>,
    deferred: Vec<Deferred>,
}

impl Kept {
    fn push(&mut self, m: Made) {
        self.hits.extend(m.hits);
        self.records.push(m.records);
        self.sections.push(m.section);
        self.deferred.extend(m.deferred);
    }
}

impl Keeping {
    /// `sections`: how many will be given.
    fn new(reach: Option<Reach>, sections: usize) -> Self {
        let mut all = Kept::default();
        if reach.is_none() {
            all.sections.reserve_exact(sections);
            all.records.reserve_exact(sections);
        }
        Keeping {
            reach,
            kept: Vec::new(),
            all,
            most: Vec::new(),
            given: 0,
            reported: 0,
            beyond: Beyond::default(),
        }
    }

    fn push(&mut self, m: Made) {
        let at = self.given;
        self.given += 1;
        let Some(reach) = self.reach else {
            return self.all.push(m);
        };
        if m.section.audience == Some(reach.audience) {
            self.reported += 1;
            if self.reported <= reach.reported {
                return self.kept.push((at, m));
            }
        }
        if m.records == 0 {
            return;
        }
        // Among those with the most records, or only counted. Given in report order, a
        // section ranks after every one given before with as many records.
        let place = self.most.partition_point(|(_, x)| x.records >= m.records);
        if place >= markdown::NOTE_NAMES {
            return self.count(&m);
        }
        self.most.insert(place, (at, m));
        if self.most.len() > markdown::NOTE_NAMES
            && let Some((_, out)) = self.most.pop()
        {
            self.count(&out);
        }
    }

    fn count(&mut self, m: &Made) {
        self.beyond.records.servers += 1;
        self.beyond.records.records += m.records;
    }

    /// The sections kept, in report order, and what the others add up to.
    fn finish(self) -> (Kept, Beyond) {
        let mut all = self.all;
        let mut kept = self.kept;
        if !self.most.is_empty() {
            kept.extend(self.most);
            kept.sort_by_key(|(at, _)| *at);
        }
        all.sections.reserve_exact(kept.len());
        all.records.reserve_exact(kept.len());
        for (_, m) in kept {
            all.push(m);
        }
        (all, self.beyond)
    }
}

fn server_section(
    s: &ServerReport,
    stderr: &[Evidence],
    homes: &[std::path::PathBuf],
) -> ServerSection {
    let d = &s.diagnosis;
    ServerSection {
        name: s.name.clone(),
        project: s.project.clone(),
        diagnosis: d.clone(),
        legacy_fix_applies: s.legacy_fix_applies(),
        last_seen: s.last_seen.clone(),
        sessions: s.sessions,
        sessions_read: s.sessions_read,
        failed_sessions: s.failed_sessions,
        // (what `display()` shows, without the formatter: a tenth of the report's making)
        source: s.source.to_string_lossy().into_owned(),
        audience: crate::advice::audience(s).filter(|_| s.counts_now()),
        launch: None,
        summary: summary(s),
        recommendation: crate::advice::for_server_in(s, homes),
        fix_action: crate::advice::fix_action(s)
            .filter(|a| a.planned)
            .and_then(|_| {
                s.fix
                    .as_deref()?
                    .engine_change(|st| *st == crate::scan::fix::FixState::Planned)
            })
            .map(|c| c.cause.as_str().to_string()),
        evidence: s.evidence.iter().map(evidence_item).collect(),
        stderr: if d.verdict.is_problem() {
            stderr
                .iter()
                // cut to MAX_MESSAGE_CHARS already, after redaction (stderr::gather)
                .map(evidence_item)
                .collect()
        } else {
            Vec::new()
        },
        counts_now: s.counts_now(),
        config_error_now: s.config_error_now(),
        shared: s.is_shared(),
        discovery_cache: s.discovery_cache.clone(),
    }
}

fn evidence_item(e: &Evidence) -> EvidenceItem {
    // The path as `display()` shows it, made once (on 10,000 servers the formatter was
    // half of making the sections), and its last two names taken from that text: a log
    // file's path is its folder's joined with its name, with no `.` or `..` in it.
    let file = e.file.to_string_lossy().into_owned();
    let mut names = file.rsplit(std::path::is_separator);
    let file_name = names.next().unwrap_or_default();
    let line = e.line.to_string();
    let mut location = String::with_capacity(file_name.len() + line.len() + 32);
    if let Some(dir) = names.next().filter(|d| d.starts_with("mcp-logs-")) {
        location.push_str(dir);
        location.push('/');
    }
    location.push_str(file_name);
    location.push(':');
    location.push_str(&line);
    EvidenceItem {
        file,
        location,
        line: e.line,
        timestamp: e.timestamp.clone(),
        level: e.level.as_str().to_string(),
        message: e.message.to_string(),
    }
}

/// A report shows at most this much of one stderr line: servers dump megabytes of base64
/// there, and every character shown must also pass the redaction rules (measured: a
/// report on the 2 GiB benchmark tree took 117 s with whole lines, 17 s clipped).
pub const MAX_MESSAGE_CHARS: usize = 4096;

/// Cuts an over-long message (already redacted: [`stderr::redacted`]) to whole
/// words ([`crate::text::whole_words`]), saying how many characters are not shown:
/// those cut here and `dropped`, cut before redaction.
fn clip_message(m: &str, dropped: usize) -> String {
    let kept = crate::text::whole_words(m, MAX_MESSAGE_CHARS);
    if kept.len() == m.len() && dropped == 0 {
        return m.to_string();
    }
    format!(
        "{kept} … [{} more characters not shown]",
        m[kept.len()..].chars().count() + dropped
    )
}

/// One sentence, without the server's name: what is wrong, or how the server stands.
fn summary(s: &ServerReport) -> String {
    let d = &s.diagnosis;
    let era = match (d.era, &d.negotiated_protocol_version) {
        (Some(e), Some(v)) => format!("; {} era, protocol {v}", e.as_str()),
        (Some(e), None) => format!("; {} era", e.as_str()),
        (None, _) => String::new(),
    };
    let what = match d.verdict {
        Verdict::ToolsFetchFailed if d.cause == Some(Cause::NoToolsCapability) => {
            "the server declares no tools capability, so Claude Code never lists its tools".to_string()
        }
        Verdict::ToolsFetchFailed if d.cause == Some(Cause::ToolsTimeout) => {
            "Claude Code connects, then gives up on tools/list after MCP_TIMEOUT, so the server shows as connected with no tools".to_string()
        }
        Verdict::ToolsFetchFailed => format!(
            "Claude Code connects, then rejects the server's tools/list result ({}{era}), so the server shows as connected with no tools",
            d.cause.map(Cause::as_str).unwrap_or("other")
        ),
        Verdict::VersionUnsupported => "the server answers initialize with a protocol version Claude Code did not propose, so it never connects".to_string(),
        Verdict::ConnectionFailed => format!(
            "Claude Code cannot connect to the server ({})",
            d.cause.map(Cause::as_str).unwrap_or("other")
        ),
        Verdict::Degraded => format!(
            "Claude Code loads the server's tools but loses part of what it offers ({}{era})",
            d.cause.map(Cause::as_str).unwrap_or("other")
        ),
        Verdict::Healthy => format!("connected, tools accepted{era}"),
        Verdict::Tolerated => format!(
            "works, but only because Claude Code filled in {} that the server's tools/list result omits{era}",
            if d.filled_fields.is_empty() {
                "fields".to_string()
            } else {
                d.filled_fields.join(", ")
            }
        ),
        Verdict::Unknown => "the logs hold no decisive record".to_string(),
    };
    let what = crate::text::sentence(&if s.is_shared() {
        format!(
            "the configured servers {} share this log folder (their names encode to the same folder name), so their records are mixed and the verdict is the folder's, not one server's; the mixed records say: {what}",
            s.shared_by.join(", ")
        )
    } else {
        what
    });
    let when = s
        .last_seen
        .as_deref()
        .map(|t| format!(", the last at {t}"))
        .unwrap_or_default();
    if d.verdict.is_problem() && s.sessions_read < s.sessions {
        // The scan read the newest files only (it stops once the verdict is decided).
        let read = if s.sessions_read == 1 {
            "the latest session".to_string()
        } else {
            format!(
                "{} of the {}",
                s.failed_sessions,
                crate::text::count(s.sessions_read, "latest session")
            )
        };
        format!(
            "{what}. {} failed ({} in all){when}.",
            crate::text::sentence(&read),
            s.sessions
        )
    } else if d.verdict.is_problem() {
        let seen = if s.sessions == 1 {
            let at = s
                .last_seen
                .as_deref()
                .map(|t| format!(" at {t}"))
                .unwrap_or_default();
            return format!("{what}. Its one session failed{at}.");
        } else {
            format!(
                "{} of {}",
                s.failed_sessions,
                crate::text::count(s.sessions, "session")
            )
        };
        format!("{what}. {seen} failed{when}.")
    } else {
        format!("{what}.")
    }
}

fn settings_section(e: &EffectiveNegotiation) -> SettingsSection {
    use crate::settings::LayerStatus;
    let layers = e
        .layers
        .iter()
        .enumerate()
        .map(|(i, l)| LayerItem {
            layer: l.kind.as_str().to_string(),
            path: l.path.as_ref().map(|p| p.display().to_string()),
            status: match &l.status {
                LayerStatus::Environment if l.negotiation.is_some() => "set".to_string(),
                LayerStatus::Environment => "unset".to_string(),
                s => s.as_str().to_string(),
            },
            value: l.negotiation.as_ref().map(|v| v.as_str().to_string()),
            in_effect: l.in_effect() && l.present(),
            decides: e.decided_by == Some(i),
        })
        .collect();
    let decider = e.deciding_layer();
    SettingsSection {
        project: e.project_dir.display().to_string(),
        layers,
        effective_value: e.value().map(|v| v.as_str().to_string()),
        effective_layer: decider.map(|l| l.kind.as_str().to_string()),
        effective_path: decider
            .and_then(|l| l.path.as_ref())
            .map(|p| p.display().to_string()),
        effective_text: effective_line(e),
        legacy_applied: e.is_legacy(),
        problems: problem_lines(e),
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod clip_tests {
    use super::*;

    #[test]
    fn long_messages_are_cut_at_a_word_boundary() {
        assert_eq!(clip_message("short", 0), "short");
        let secret = "sk-ant-api03-".to_string() + &"x".repeat(MAX_MESSAGE_CHARS);
        let m = format!("Server stderr: token {secret}");
        let c = clip_message(&m, 0);
        assert!(!c.contains("sk-ant"), "no partial secret: {c}");
        assert!(c.starts_with("Server stderr: token … ["), "{c}");
        assert!(c.ends_with("more characters not shown]"));
    }
}
