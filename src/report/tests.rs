use std::path::{Path, PathBuf};

use super::stderr::ServerStderr;
use super::*;
use crate::classify::verdict::{Cause, Diagnosis, Era, Verdict};
use crate::logs::record::Level;
use crate::redact::RedactorBuilder;
use crate::scan::{Evidence, ScanReport, ServerReport};
use crate::settings::{
    EffectiveNegotiation, LayerKind, LayerStatus, NegotiationValue, SettingsLayer,
};

/// The report with every failing server taken as Claude Code's problem: for the tests of
/// Claude Code's bug template (the sample's failures are the servers' own).
fn as_claude_codes(mut r: Report) -> Report {
    for s in &mut r.servers {
        if s.audience.is_some() {
            s.audience = Some(crate::advice::Audience::ClaudeCode);
        }
    }
    r
}

fn versions() -> Versions {
    Versions {
        mcplogs: "9.9.9".into(),
        os: "testos".into(),
        arch: "testarch".into(),
        claude_code: Some("2.1.288 (Claude Code)".into()),
    }
}

fn ev(file: &str, line: usize, ts: &str, message: &str) -> Evidence {
    Evidence {
        file: PathBuf::from(file).into(),
        line,
        timestamp: Some(ts.into()),
        level: Level::Error,
        message: message.into(),
        session_id: None,
    }
}

fn failing(name: &str, evidence: Vec<Evidence>) -> ServerReport {
    let mut d = Diagnosis::new(Verdict::ToolsFetchFailed);
    d.cause = Some(Cause::MissingResultType);
    d.era = Some(Era::Modern);
    d.negotiated_protocol_version = Some("2026-07-28".into());
    ServerReport {
        project: Some("/Users/alice/proj".into()),
        project_folder: Some("-Users-alice-proj".into()),
        last_seen: Some("2026-11-29T12:12:49.609Z".into()),
        sessions: 2,
        sessions_read: 2,
        files_read: 2,
        evidence,
        ..ServerReport::of_one_session(
            name,
            PathBuf::from(format!(
                "/Users/alice/Library/Caches/claude-cli-nodejs/-Users-alice-proj/mcp-logs-{name}"
            )),
            d,
        )
    }
}

fn healthy(name: &str) -> ServerReport {
    let mut s = failing(name, Vec::new());
    s.diagnosis = Diagnosis::new(Verdict::Healthy);
    s.diagnosis.era = Some(Era::Legacy);
    s.failed_sessions = 0;
    s
}

fn negotiation(user_value: Option<&str>) -> EffectiveNegotiation {
    EffectiveNegotiation::from_layers(
        Path::new("/Users/alice/proj"),
        vec![
            SettingsLayer {
                kind: LayerKind::User,
                path: Some(PathBuf::from("/Users/alice/.claude/settings.json")),
                status: LayerStatus::Strict,
                negotiation: user_value.map(NegotiationValue::from_text),
            },
            SettingsLayer {
                kind: LayerKind::Environment,
                path: None,
                status: LayerStatus::Environment,
                negotiation: None,
            },
        ],
    )
}

fn sample() -> ScanReport {
    let file = "/Users/alice/Library/Caches/claude-cli-nodejs/-Users-alice-proj/mcp-logs-docs/2026-11-29T12-12-47-473Z.jsonl";
    ScanReport {
        servers: vec![
            failing(
                "docs",
                vec![ev(
                    file,
                    7,
                    "2026-11-29T12:12:47.574Z",
                    "Failed to fetch tools: Invalid result for tools/list: [{\"code\":\"invalid_type\",\"path\":[\"resultType\"],\"message\":\"Required\"}] token sk-ant-api03-AbCdEf0123456789xyz",
                )],
            ),
            healthy("fine"),
        ],
        warnings: Vec::new(),
        searched: Vec::new(),
        ..Default::default()
    }
}

#[test]
fn markdown_follows_the_bug_form() {
    let r = as_claude_codes(build(
        &sample(),
        &ServerStderr::default(),
        &negotiation(None),
        versions(),
    ));
    let md = markdown::render(&r);
    let mut last = 0;
    for h in [
        "### What's Wrong?",
        "### What Should Happen?",
        "### Error Messages/Logs",
        "### Steps to Reproduce",
        "### Claude Code Version",
        "### Operating System",
        "### Additional Information",
        "#### Environment",
        "#### MCP servers",
        "#### MCP_PROTOCOL_NEGOTIATION settings",
        "#### Recommendations",
    ] {
        let at = md.find(h).unwrap_or_else(|| panic!("{h} missing:\n{md}"));
        assert!(at >= last, "{h} out of order");
        last = at;
    }
    assert!(md.contains(
        "`docs` (project `/Users/alice/proj`): `tools-fetch-failed (missing-resultType)`"
    ));
    assert!(md.contains("testos (testarch)"));
    assert!(md.contains("`2.1.288 (Claude Code)`"));
    // The zod error is pretty-printed in a fenced block.
    assert!(md.contains("```text\nFailed to fetch tools: Invalid result for tools/list:\n[\n  {\n    \"code\": \"invalid_type\""), "{md}");
    assert!(md.contains(
        "`mcp-logs-docs/2026-11-29T12-12-47-473Z.jsonl:7` · `2026-11-29T12:12:47.574Z` · error"
    ));
    assert!(md.contains("applied: **no** (the effective value is not set)"));
    assert!(md.contains("It would fix `docs`."));
    // Healthy servers are in the table, not in What's Wrong.
    assert!(md.contains("| `fine` |"));
    assert!(
        !md.split("### What Should Happen?")
            .next()
            .unwrap()
            .contains("`fine`")
    );
}

#[test]
fn unknown_claude_version_and_no_problems() {
    let scan = ScanReport {
        servers: vec![healthy("fine")],
        ..Default::default()
    };
    let mut v = versions();
    v.claude_code = None;
    let r = build(
        &scan,
        &ServerStderr::default(),
        &negotiation(Some("legacy")),
        v,
    );
    assert!(!r.has_problems());
    let md = markdown::render(&r);
    assert!(md.contains("### Claude Code Version\n\nunknown"));
    assert!(md.contains("no failing MCP server"));
    assert!(md.contains("applied: **yes**"));
}

#[test]
fn redaction_covers_every_section() {
    let mut r = as_claude_codes(build(
        &sample(),
        &ServerStderr::default(),
        &negotiation(Some("auto")),
        versions(),
    ));
    r.redact(RedactorBuilder::new().home("/Users/alice").user("alice"));
    assert!(r.is_redacted());
    let md = markdown::render(&r);
    let js = serde_json::to_string(&json::report_json(&r)).expect("json");
    for out in [&md, &js] {
        assert!(!out.contains("alice"), "{out}");
        assert!(!out.contains("sk-ant-"), "{out}");
        assert!(out.contains("[REDACTED:anthropic-api-key]"));
        assert!(out.contains("~/proj"));
        assert!(out.contains("~/.claude/settings.json"));
        assert!(out.contains("tools-fetch-failed"));
    }
    assert!(md.contains("Redacted: the home folder is shown as ~"));
}

#[test]
fn json_shape() {
    let r = build(
        &sample(),
        &ServerStderr::default(),
        &negotiation(Some("legacy")),
        versions(),
    );
    let j = serde_json::to_value(json::report_json(&r)).expect("json");
    assert_eq!(j["schemaVersion"], 3);
    assert_eq!(j["redacted"], false);
    assert_eq!(j["versions"]["claudeCode"], "2.1.288 (Claude Code)");
    assert_eq!(j["whatsWrong"].as_array().unwrap().len(), 1);
    assert_eq!(j["servers"][0]["verdict"], "tools-fetch-failed");
    assert_eq!(j["servers"][0]["problem"], true);
    assert_eq!(j["servers"][0]["evidence"][0]["line"], 7);
    assert_eq!(j["servers"][1]["problem"], false);
    assert_eq!(j["settings"]["effective"]["value"], "legacy");
    assert_eq!(j["settings"]["layers"][0]["decides"], true);
    assert_eq!(j["legacyFixApplied"], true);
}

/// Evidence worth well over 65,536 characters: the oldest records go first, the newest
/// of each server stays, and the note says what was left out.
#[test]
fn oversized_evidence_is_trimmed_oldest_first_with_a_note() {
    let big = |i: usize| format!("Failed to fetch tools: record {i} {}", "x".repeat(3000));
    let a: Vec<Evidence> = (0..20)
        .map(|i| {
            ev(
                "/l/mcp-logs-a/f.jsonl",
                i + 1,
                &format!("2026-01-01T00:00:{i:02}Z"),
                &big(i),
            )
        })
        .collect();
    let b: Vec<Evidence> = (0..20)
        .map(|i| {
            ev(
                "/l/mcp-logs-b/f.jsonl",
                i + 1,
                &format!("2026-01-02T00:00:{i:02}Z"),
                &big(100 + i),
            )
        })
        .collect();
    let scan = ScanReport {
        servers: vec![failing("a", a), failing("b", b)],
        ..Default::default()
    };
    let r = as_claude_codes(build(
        &scan,
        &ServerStderr::default(),
        &negotiation(None),
        versions(),
    ));
    let full = markdown::render(&r);
    assert!(full.chars().count() > 120_000);

    let (text, fitted) = limit::fit(&r, GITHUB_BODY_LIMIT);
    assert!(
        text.chars().count() <= GITHUB_BODY_LIMIT,
        "{}",
        text.chars().count()
    );
    assert!(text.contains("log records were left out"), "{text}");
    // Server a's records are all older than b's: a loses them all before b loses one.
    let left_a = fitted.servers[0].evidence.len();
    let left_b = fitted.servers[1].evidence.len();
    assert_eq!(left_a, 0);
    assert!(left_b > 0 && left_b < 20);
    assert!(text.contains("record 119"), "the newest record stays");
    assert!(!text.contains("record 100 "), "the oldest of b goes");
    assert_eq!(fitted.omitted.total(), 40 - left_b);
    assert!(text.contains(&format!("{} log records", 40 - left_b)));
    // Still a complete report.
    assert!(text.contains("#### Recommendations"));
}

#[test]
fn a_report_within_the_limit_is_unchanged() {
    let r = build(
        &sample(),
        &ServerStderr::default(),
        &negotiation(None),
        versions(),
    );
    let (text, fitted) = limit::fit(&r, GITHUB_BODY_LIMIT);
    assert_eq!(text, markdown::render(&r));
    assert!(fitted.omitted.is_empty());
}

/// The report of `servers` fitted to GitHub's limit.
fn fitted(servers: Vec<ServerReport>) -> (String, Report) {
    let scan = ScanReport {
        servers,
        ..Default::default()
    };
    let r = build(
        &scan,
        &ServerStderr::default(),
        &negotiation(None),
        versions(),
    );
    limit::fit(&r, GITHUB_BODY_LIMIT)
}

#[test]
fn too_long_without_evidence_is_cut_with_a_note() {
    let (text, fitted) = fitted(
        (0..3000)
            .map(|i| healthy(&format!("server-{i:04}")))
            .collect(),
    );
    assert!(fitted.omitted.cut);
    assert!(text.chars().count() <= GITHUB_BODY_LIMIT);
    assert!(text.ends_with("so its end was cut.\n\n") || text.contains("so its end was cut."));
}

#[test]
fn a_report_of_thousands_of_failing_servers_keeps_its_sections_when_cut() {
    // Every server loses its records: the note names the first few, not all 3,000 (it
    // named all, passed the limit alone, and the cut left only the first line).
    let (text, fitted) = fitted(
        (0..3000)
            .map(|i| {
                let name = format!("server-{i:04}");
                let e = ev(
                    &format!("/l/mcp-logs-{name}/f.jsonl"),
                    1,
                    "2026-01-01T00:00:00Z",
                    "Failed to fetch tools: resultType missing",
                );
                failing(&name, vec![e])
            })
            .collect(),
    );
    assert!(fitted.omitted.cut);
    assert_eq!(fitted.omitted.total(), 3000);
    let n = text.chars().count();
    assert!(
        n <= GITHUB_BODY_LIMIT && n > GITHUB_BODY_LIMIT - 2000,
        "{n}"
    );
    assert!(text.matches("\n## `server-").count() > 20, "{text}");
    assert!(text.contains("3000 log records were left out"), "{text}");
    assert!(
        text.contains("9`, and 2990 from 2990 other servers)"),
        "{text}"
    );
    // The ten named are the first of the report's order among equals.
    assert!(
        text.contains("(1 from `server-0000`, 1 from `server-0001`"),
        "{text}"
    );
    assert!(text.contains("so its end was cut."));
}

#[test]
fn unreadable_stderr_is_a_warning_in_the_report_not_an_empty_section() {
    // The failing server's log file does not exist on this machine.
    let mut scan = sample();
    let stderr = super::stderr::gather(&mut scan, true);
    assert_eq!(stderr.records, vec![Vec::new(), Vec::new()]);
    assert_eq!(stderr.warnings.len(), 1, "{:?}", stderr.warnings);
    let w = stderr.warnings[0].to_string();
    assert!(
        w.starts_with("/Users/alice/Library/Caches/claude-cli-nodejs/-Users-alice-proj/mcp-logs-docs/2026-11-29T12-12-47-473Z.jsonl: cannot read its Server stderr records: "),
        "{w}"
    );
    let r = build(&scan, &stderr, &negotiation(None), versions());
    assert_eq!(r.warnings, vec![w]);
}

#[test]
fn stderr_records_are_read_from_the_deciding_session() {
    // A real log file of a sample server (its first record is `Server stderr: ...`).
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs/linux-home/.cache/claude-cli-nodejs/-tmp-mcplogs-samples-home-linux-work-api/mcp-logs-wrong-types/2026-11-29T12-43-47-423Z.jsonl");
    let mut scan = sample();
    let mut e = scan.servers[0].evidence[0].clone();
    e.file = file.into();
    e.session_id = Some("5a717dc3-4645-4eef-b132-4989b265ef18".into());
    scan.servers[0].evidence = vec![e];
    let stderr = super::stderr::gather(&mut scan, true);
    assert!(stderr.warnings.is_empty(), "{:?}", stderr.warnings);
    assert!(!stderr.of(0).is_empty());
    for r in stderr.of(0) {
        assert!(
            r.message.starts_with("Server stderr: mcplogs-stub: "),
            "{}",
            r.message
        );
    }
    assert!(stderr.of(1).is_empty());
}

#[test]
fn failures_of_the_servers_get_the_authors_report() {
    let r = build(
        &sample(),
        &ServerStderr::default(),
        &negotiation(None),
        versions(),
    );
    assert_eq!(r.audience(), Some(crate::advice::Audience::ServerAuthor));
    let md = markdown::render(&r);
    assert!(md.contains("for the authors of these MCP servers"), "{md}");
    assert!(
        md.contains("## `docs`: Claude Code rejects its tools/list"),
        "{md}"
    );
    assert!(
        md.contains("**What to fix:** tools/list results must carry `resultType`"),
        "{md}"
    );
    assert!(md.contains("### Steps to Reproduce"), "{md}");
    // not Claude Code's form
    assert!(!md.contains("### What Should Happen?"), "{md}");
}

#[test]
fn a_capped_render_is_the_whole_render_or_sure_to_be_too_long() {
    // Both audiences (the authors' report for one failing server, the Claude Code one
    // for many), with non-ASCII text (a character is up to four bytes), every limit
    // around the lengths that matter: `render_within` gives the whole render when it
    // fits, and gives up only on a text that is longer than the limit.
    let many = ScanReport {
        servers: (0..400)
            .map(|i| {
                failing(
                    &format!("s\u{e9}rver-{i:03}"),
                    vec![ev(
                        "/tmp/x.jsonl",
                        i + 1,
                        "2026-11-29T12:12:47.574Z",
                        "Connection failed: \u{1F600} \u{65e5}\u{672c} ECONNREFUSED",
                    )],
                )
            })
            .collect(),
        ..Default::default()
    };
    for (scan, audience) in [
        (sample(), Some(crate::advice::Audience::ServerAuthor)),
        (many, None),
    ] {
        let mut r = build(
            &scan,
            &ServerStderr::default(),
            &negotiation(None),
            versions(),
        );
        if audience.is_none() {
            r = as_claude_codes(r);
        }
        let whole = markdown::render(&r);
        let n = whole.chars().count();
        let mut gave_up = 0;
        for limit in (0..=n + 10)
            .step_by(n / 97 + 1)
            .chain([n / 4, n / 4 + 1, n - 1, n])
        {
            match markdown::render_within(&r, limit) {
                Some(t) => assert_eq!(t, whole, "limit {limit}"),
                None => {
                    gave_up += 1;
                    assert!(n > limit, "gave up at {limit} on a text of {n}");
                }
            }
        }
        assert!(gave_up > 0, "no limit was small enough to give up on");
        assert_eq!(
            markdown::render_within(&r, n).as_deref(),
            Some(whole.as_str())
        );
    }
}

/// Texts that come again (a file's path, the same error in server after server) are
/// learned and redacted once per share of texts: every text ends as the report's
/// redactor makes it, across shares, and a secret learned in one text is hidden bare in
/// the copies of another that came before it.
#[test]
fn repeated_texts_end_as_the_redactor_makes_each() {
    let file =
        "/Users/alice/Library/Caches/claude-cli-nodejs/-Users-alice-proj/mcp-logs-docs/a.jsonl";
    let bare = "upstream refused the call made with Q7zz81kLmN0pQ4rS";
    let mut servers = Vec::new();
    for i in 0..3000 {
        let mut evidence = vec![
            ev(file, 1, "2026-11-29T12:12:47.574Z", bare),
            ev(
                file,
                2,
                "2026-11-29T12:12:47.574Z",
                "Connection failed: ECONNREFUSED",
            ),
        ];
        if i == 2500 {
            evidence.push(ev(
                file,
                3,
                "2026-11-29T12:12:48.000Z",
                "password=Q7zz81kLmN0pQ4rS",
            ));
        }
        servers.push(failing(&format!("s{}", i % 7), evidence));
    }
    let scan = ScanReport {
        servers,
        ..Default::default()
    };
    let mut r = build(
        &scan,
        &ServerStderr::default(),
        &negotiation(None),
        versions(),
    );
    let before: Vec<String> = r.strings_mut().into_iter().map(|s| s.clone()).collect();
    assert!(before.len() > 3 * SHARE, "{} texts", before.len());
    r.redact(RedactorBuilder::new().home("/Users/alice").user("alice"));
    let redactor = r.redactor().clone();
    let after: Vec<String> = r.strings_mut().into_iter().map(|s| s.clone()).collect();
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(*a, redactor.redacted(b).unwrap_or_else(|| b.clone()), "{b}");
        assert!(
            !a.contains("Q7zz81kLmN0pQ4rS") && !a.contains("alice"),
            "{a}"
        );
    }
}

/// `scan`'s report made as `mcplogs report` makes it: whole ([`build`], then each
/// section completed and the whole report redacted), or taken from the scan a few
/// servers at a time, learned from as it is made ([`build_taking`]).
fn made_both_ways(scan: &ScanReport, records: bool) -> (Report, Report) {
    made_reaching(scan, records, None)
}

/// [`made_both_ways`], the report taken from the scan keeping only the sections within
/// `reach`.
fn made_reaching(scan: &ScanReport, records: bool, reach: Option<Reach>) -> (Report, Report) {
    made_with(scan, records, reach, false)
}

/// [`made_reaching`], the taken report's records kept as read ([`Making::defer_records`]).
fn made_with(
    scan: &ScanReport,
    records: bool,
    reach: Option<Reach>,
    defer_records: bool,
) -> (Report, Report) {
    let machine = || RedactorBuilder::new().home("/Users/alice").user("alice");
    let launch = |name: &str| Some(format!("npx {name}-server --dir /Users/carol/x"));
    let mut whole = build(
        scan,
        &ServerStderr::default(),
        &negotiation(None),
        versions(),
    );
    for s in &mut whole.servers {
        s.launch = launch(&s.name);
    }
    whole.redact(machine());
    let learn = machine();
    let mut taking = build_taking(
        &mut scan.clone(),
        ServerStderr::default(),
        &negotiation(None),
        versions(),
        &Making {
            launch: &|s: &ServerReport| launch(&s.name),
            learn: Some(&learn),
            records,
            reach,
            defer_records,
        },
    );
    taking.redact(machine());
    (whole, taking)
}

/// `report --json`'s sections with their records kept as read and made as each is
/// written: the same document as the report made whole, every record redacted as it
/// was (what the records taught hidden elsewhere, a short secret a later round meets
/// hidden by the rules), and the records' texts are not held in the sections.
#[test]
fn records_kept_as_read_are_written_as_the_report_made_whole_writes_them() {
    let scan = learning_scan(SECTIONS_AT_ONCE * 2 + 10);
    let (whole, taking) = made_with(&scan, true, None, true);
    assert!(
        taking
            .servers
            .iter()
            .all(|s| s.evidence.is_empty() && s.stderr.is_empty())
    );
    let doc = json::report_json(&taking);
    let text = serde_json::to_string(&doc).expect("json");
    assert!(text.contains("\"evidence\":[{"), "records are written");
    assert!(!text.contains("carol") && !text.contains("sk-ant-api03-abc"));
    assert_eq!(doc, json::report_json(&whole));
}

/// Servers whose records name another user's home and a token: what redaction learns
/// from a record and then hides everywhere (a server's name, its launch).
fn learning_scan(n: usize) -> ScanReport {
    let servers = (0..n)
        .map(|i| {
            let name = if i % 7 == 3 {
                format!("carol-{i:04}")
            } else {
                format!("server-{i:04}")
            };
            let e = ev(
                &format!("/Users/carol/.cache/claude-cli-nodejs/p/mcp-logs-{name}/f.jsonl"),
                1,
                &format!("2026-01-01T00:00:{:02}Z", i % 60),
                "Failed to fetch tools: resultType missing; token sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 in /Users/carol/x",
            );
            if i % 5 == 0 {
                healthy(&name)
            } else {
                failing(&name, vec![e.clone(), e])
            }
        })
        .collect();
    ScanReport {
        servers,
        ..Default::default()
    }
}

#[test]
fn a_report_learned_from_as_it_is_made_is_redacted_as_one_made_whole() {
    let (whole, taking) = made_both_ways(&learning_scan(3000), true);
    let md = markdown::render(&whole);
    // what the records taught is hidden elsewhere: the test would see a difference
    assert!(
        !md.contains("carol") && !md.contains("sk-ant-api03-abc"),
        "{md}"
    );
    assert!(md.contains("npx"), "{md}");
    assert_eq!(md, markdown::render(&taking));
    assert_eq!(json::report_json(&whole), json::report_json(&taking));
    assert_eq!(
        limit::fit(&whole, GITHUB_BODY_LIMIT).0,
        limit::fit_owned(taking, GITHUB_BODY_LIMIT).0
    );
}

#[test]
fn a_report_sure_to_be_too_long_for_any_record_is_cut_the_same_without_them() {
    let limit = 2_000;
    let scan = learning_scan(800);
    assert!(records_never_fit(&scan, limit));
    assert!(!records_never_fit(&scan, GITHUB_BODY_LIMIT));
    assert!(!records_never_fit(&sample(), GITHUB_BODY_LIMIT));
    let (whole, taking) = made_both_ways(&scan, false);
    assert!(taking.servers.iter().all(|s| s.evidence.is_empty()));
    let (text, fitted) = limit::fit(&whole, limit);
    let (taken, taken_fitted) = limit::fit_owned(taking, limit);
    assert!(fitted.omitted.cut && fitted.omitted.total() == 2 * 640);
    assert_eq!(text, taken);
    assert_eq!(fitted.omitted, taken_fitted.omitted);
}

/// Servers of every kind the report divides them into, with as many records as their
/// place gives (some far beyond any reach with the most): `legacy` makes every failing
/// one Claude Code's problem (the bug template), else the servers' authors'.
fn reaching_scan(n: usize, legacy: bool) -> ScanReport {
    let mut scan = learning_scan(n);
    for (i, s) in scan.servers.iter_mut().enumerate() {
        if legacy && s.diagnosis.verdict.is_problem() {
            s.diagnosis.era = Some(Era::Legacy);
        }
        // a few with the most records, near the end (beyond any reach), and ties
        let more = match i % 97 {
            0 if i > n / 2 => 9,
            13 => 3,
            _ => 0,
        };
        let e = s.evidence.first().cloned();
        if let Some(e) = e {
            s.evidence.extend(std::iter::repeat_n(e, more));
        }
        // one that fails for the user's own set-up, whose section is not the report's
        if i % 11 == 5 {
            s.diagnosis.cause = Some(Cause::CommandNotFound);
            s.diagnosis.verdict = Verdict::ConnectionFailed;
        }
    }
    scan
}

/// Issue 55, item 2: a Markdown report sure to be cut within the entries of the servers
/// it is about keeps only the sections it can show (and those the note names), and
/// prints, notes and exits exactly as the report that kept every one.
#[test]
fn a_report_keeps_only_the_sections_it_can_show_and_prints_the_same() {
    for legacy in [false, true] {
        let limit = 2_000;
        let scan = reaching_scan(6_000, legacy);
        let reach = sections_within_reach(&scan, limit, false).expect("cut within its entries");
        let (whole, taking) = made_reaching(&scan, false, Some(reach));
        assert!(
            taking.servers.len() <= reach.reported + markdown::NOTE_NAMES,
            "{} sections kept, reach {}",
            taking.servers.len(),
            reach.reported
        );
        assert!(taking.servers.len() < scan.servers.len() / 10);
        assert_eq!(whole.has_problems(), taking.has_problems());
        assert_eq!(whole.audience(), taking.audience());
        let (text, fitted) = limit::fit(&whole, limit);
        let (taken, taken_fitted) = limit::fit_owned(taking, limit);
        assert!(fitted.omitted.cut, "{text}");
        assert_eq!(text, taken);
        assert_eq!(fitted.omitted.total(), taken_fitted.omitted.total());
        // the note names servers beyond the reach that had the most records
        let note = markdown::omitted_note(&fitted);
        assert!(note.contains("11 from `server-3007`"), "{note}");
    }
}

/// Without a reach the report keeps every server: a refused report (no failure, or only
/// the user's own set-up) names them all, and one that fits shows them all.
#[test]
fn a_report_that_can_show_or_name_every_server_has_no_reach() {
    let limit = 2_000;
    let mut own = reaching_scan(6_000, false);
    for s in &mut own.servers {
        if s.diagnosis.verdict.is_problem() {
            s.diagnosis.cause = Some(Cause::CommandNotFound);
            s.diagnosis.verdict = Verdict::ConnectionFailed;
        }
    }
    assert!(sections_within_reach(&own, limit, false).is_none());
    assert!(sections_within_reach(&own, limit, true).is_some());
    let mut fine = own.clone();
    fine.servers
        .iter_mut()
        .for_each(|s| s.diagnosis = Diagnosis::new(Verdict::Healthy));
    assert!(sections_within_reach(&fine, limit, true).is_none());
    assert!(sections_within_reach(&reaching_scan(50, false), GITHUB_BODY_LIMIT, false).is_none());
}

/// [`markdown::entry_floor`] holds: each more server the report is about adds at least
/// that many characters to its text, redacted, when every value is empty or redacted
/// away, in both layouts.
#[test]
fn each_entry_adds_at_least_its_floor() {
    for legacy in [false, true] {
        let empty = |i: usize| {
            let mut s = failing("", Vec::new());
            if legacy {
                s.diagnosis.era = Some(Era::Legacy);
            }
            s.project = None;
            s.last_seen = None;
            s.diagnosis.negotiated_protocol_version = None;
            s.source = PathBuf::from(format!("/Users/alice/{i}"));
            s
        };
        let text = |n: usize| {
            let scan = ScanReport {
                servers: (0..n).map(empty).collect(),
                ..Default::default()
            };
            let mut r = build(
                &scan,
                &ServerStderr::default(),
                &negotiation(None),
                versions(),
            );
            for s in &mut r.servers {
                s.summary.clear();
            }
            r.redact(RedactorBuilder::new().home("/Users/alice").user("alice"));
            let audience = r.audience().unwrap();
            let md = r.redactor().redact(&markdown::render(&r));
            // the bug template's entries are their lines in "What's Wrong?", before the
            // rest lists them again
            let entries = md.split("### What Should Happen?").next().unwrap();
            (entries.chars().count(), audience)
        };
        let (one, audience) = text(1);
        let (three, _) = text(3);
        assert_eq!(
            audience,
            if legacy {
                crate::advice::Audience::ClaudeCode
            } else {
                crate::advice::Audience::ServerAuthor
            }
        );
        let floor = markdown::entry_floor(audience);
        assert!(
            (three - one) / 2 >= floor,
            "{one} -> {three}, floor {floor}"
        );
    }
}

/// What a report keeps per server is its section (issue 55: 100,000 of them are made
/// while the scan's 100,000 reports are still held): nothing most servers lack is kept
/// inline (the discovery cache's answer inline made each section 96 bytes larger).
#[test]
fn a_section_keeps_inline_only_what_every_server_has() {
    let size = std::mem::size_of::<ServerSection>();
    assert!(size <= 496, "ServerSection is {size} bytes");
}

/// The report's stderr records as they were made before the scan took them in its read
/// (the newest [`crate::scan::stderr::CONTEXT_RECORDS`] read again, the last
/// [`stderr::MAX_STDERR_RECORDS`] shown, the ones before them the redaction's context):
/// the reference the records taken in the read must equal.
fn stderr_read_again(s: &ServerReport, redactor: Option<&Redactor>) -> Vec<Evidence> {
    use crate::scan::stderr::{CONTEXT_BYTES, CONTEXT_RECORDS, PREFIX, last_lines};
    let text_of = |m: &str| -> String {
        match m.strip_prefix(PREFIX) {
            Some(t) => {
                let t = t.strip_prefix(':').unwrap_or(t);
                t.strip_prefix(' ').unwrap_or(t).to_string()
            }
            None => m.to_string(),
        }
    };
    let mut records = crate::scan::stderr::server_stderr(s, CONTEXT_RECORDS).unwrap();
    let shown_from = records.len().saturating_sub(stderr::MAX_STDERR_RECORDS);
    let mut shown = records.split_off(shown_from);
    let mut parts: Vec<String> = Vec::new();
    if redactor.is_some() {
        let mut budget = CONTEXT_BYTES;
        for e in records.iter().rev() {
            if budget == 0 {
                break;
            }
            parts.push(last_lines(&text_of(&e.message), &mut budget));
        }
        parts.reverse();
    }
    let context = parts.len();
    let mut dropped = Vec::new();
    let mut prefixes = Vec::new();
    for e in &shown {
        let text = text_of(&e.message);
        let prefix = e.message[..e.message.len() - text.len()].to_string();
        let bounded = crate::text::whole_words(
            &text,
            (2 * MAX_MESSAGE_CHARS).saturating_sub(prefix.chars().count()),
        );
        dropped.push(text[bounded.len()..].chars().count());
        prefixes.push(prefix);
        parts.push(bounded.to_string());
    }
    if let Some(r) = redactor {
        r.apply_joined(&mut parts);
    }
    for (((e, p), dropped), prefix) in shown
        .iter_mut()
        .zip(parts.drain(context..))
        .zip(dropped)
        .zip(prefixes)
    {
        e.message = clip_message(&format!("{prefix}{p}"), dropped).into();
    }
    shown
}

/// A failing server's log whose deciding session wrote `count` stderr records of every
/// shape (short, multi-line, long lines with and without spaces, larger than the
/// redaction's context, a PEM key a line a record, tokens broken over two records),
/// with another session's records between them.
fn stderr_log(seed: u64, count: usize) -> String {
    let mut seed = seed;
    let mut next = |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let line = |sid: &str, key: &str, text: &str| {
        format!(
            "{{\"{key}\":{},\"timestamp\":\"2026-12-01T10:00:00.000Z\",\"sessionId\":\"{sid}\"}}\n",
            serde_json::to_string(text).unwrap()
        )
    };
    let mine = "11111111-2222-4333-8444-555555555555";
    let mut f = line(mine, "debug", "Starting connection with timeout of 30000ms");
    for i in 0..count {
        let text = match next(8) {
            0 => "-----BEGIN PRIVATE KEY-----".to_string(),
            1 => format!("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC{i:04}BKcwggSjAgEAAoIBAQC7VJTUt9Us8"),
            2 => format!("using ghp_0123456789abcdef{i:04}"),
            3 => "KLMNOPQRSTUVWXYZ0123 continues".to_string(),
            4 => "word ".repeat(next(4000) as usize),
            5 => "x".repeat(next(20_000) as usize),
            6 => (0..next(40))
                .map(|l| format!("line {l} of {i}\n"))
                .collect(),
            _ => format!("record {i}"),
        };
        f.push_str(&line(mine, "error", &format!("Server stderr: {text}")));
        if next(5) == 0 {
            f.push_str(&line(
                "99999999-2222-4333-8444-555555555555",
                "error",
                &format!("Server stderr: another session's {i}"),
            ));
        }
    }
    f.push_str(&line(
        mine,
        "error",
        "Connection failed (CONNECTION_CLOSED): Connection closed",
    ));
    f
}

/// `report`'s stderr records taken in the scan's read of the deciding file are those
/// the file read again gives (and gave before: [`stderr_read_again`]), redacted or not,
/// whatever the records' number and shapes; and once taken, the file is not read again
/// (its removal after the scan changes nothing and warns of nothing).
#[test]
fn stderr_records_taken_in_the_read_are_those_read_again() {
    use crate::scan::{ScanOptions, StderrTails, scan};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("claude-cli-nodejs");
    let folder = root.join("-tmp-proj/mcp-logs-crash");
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("2026-12-01T10-00-00-000Z.jsonl");
    let options = |tails| ScanOptions {
        request: crate::scan::Request {
            homes: Vec::new(),
            paths: vec![root.clone()],
        },
        stderr_tails: tails,
        ..ScanOptions::default()
    };
    let redactor = crate::redact::Redactor::secrets_only(std::iter::empty());
    for (seed, count) in [
        (1, 0),
        (2, 1),
        (3, 19),
        (4, 20),
        (5, 21),
        (6, 300),
        (7, 600),
    ] {
        std::fs::write(&file, stderr_log(seed, count)).unwrap();
        for redact in [true, false] {
            let mut taken = scan(&options(StderrTails::Report)).unwrap();
            assert_eq!(taken.servers.len(), 1);
            assert!(taken.servers[0].diagnosis.verdict.is_problem());
            let reference = stderr_read_again(&taken.servers[0], redact.then_some(&redactor));
            let mut again = scan(&options(StderrTails::Skip)).unwrap();
            let read_again = stderr::gather(&mut again, redact);
            std::fs::rename(&file, file.with_extension("gone")).unwrap();
            let from_read = stderr::gather(&mut taken, redact);
            std::fs::rename(file.with_extension("gone"), &file).unwrap();
            assert!(from_read.warnings.is_empty(), "{:?}", from_read.warnings);
            assert_eq!(from_read.of(0), reference, "seed {seed}, redact {redact}");
            assert_eq!(read_again.of(0), reference, "seed {seed}, redact {redact}");
            assert_eq!(
                reference.len(),
                count.min(stderr::MAX_STDERR_RECORDS),
                "seed {seed}"
            );
        }
    }
}

/// A text [`build_taking`] met in an earlier round of sections is not learned from
/// again, but its rule hits still decide how it is redacted: a short secret (too short
/// to be hidden as a learned literal elsewhere) in a record every server repeats is
/// hidden in the last round's sections as in the first's.
#[test]
fn a_text_learned_in_an_earlier_round_is_still_redacted_by_the_rules() {
    let n = SECTIONS_AT_ONCE * 2 + 10;
    let servers = (0..n)
        .map(|i| {
            let name = format!("server-{i:05}");
            let e = ev(
                &format!("/Users/carol/.cache/claude-cli-nodejs/p/mcp-logs-{name}/f.jsonl"),
                1,
                "2026-01-01T00:00:00Z",
                "connection refused for PASSWORD=hunt3r",
            );
            failing(&name, vec![e])
        })
        .collect();
    let scan = ScanReport {
        servers,
        ..Default::default()
    };
    let (whole, taking) = made_both_ways(&scan, true);
    let json = serde_json::to_string(&json::report_json(&taking)).expect("json");
    assert!(json.contains("PASSWORD=[REDACTED"), "the rule hides it");
    assert!(!json.contains("hunt3r"), "a later round's section shows it");
    assert_eq!(json::report_json(&taking), json::report_json(&whole));
}

#[test]
fn a_tolerated_servers_rule_reads_as_a_sentence() {
    let mut s = failing("lenient", Vec::new());
    s.diagnosis = Diagnosis::new(Verdict::Tolerated);
    s.diagnosis.era = Some(Era::Modern);
    s.failed_sessions = 0;
    let scan = ScanReport {
        servers: vec![s],
        ..ScanReport::default()
    };
    let r = build(
        &scan,
        &ServerStderr::default(),
        &negotiation(None),
        versions(),
    );
    let md = markdown::render(&r);
    let flat = md.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("fills them in; builds that do not fill them in reject the list."),
        "{md}"
    );
    assert!(!flat.contains("and builds that do not reject"), "{md}");
}
