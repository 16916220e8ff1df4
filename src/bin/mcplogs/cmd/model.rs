//! `mcplogs model [--json] [VERSION]` (hidden): the model of Claude Code's builds, one
//! row a behaviour that differs between them, and what it predicts for VERSION.
//! `scripts/observe-build` compares it with what a real build does.

use mcplogs::claude_code::lifecycle::{BOUNDARIES, ClaudeVersion, OBSERVED, facts};
use mcplogs::json_doc;

use crate::cli::ModelArgs;
use crate::error::Error;
use crate::exit_codes::ExitCode;
use crate::output;

pub fn run(args: ModelArgs) -> Result<ExitCode, Error> {
    let build = match &args.version {
        Some(v) => Some(ClaudeVersion::parse(v).ok_or_else(|| Error::ClaudeVersion(v.clone()))?),
        None => None,
    };
    let doc = json_doc::ModelDocument {
        schema_version: json_doc::MODEL_SCHEMA_VERSION,
        oldest_observed: OBSERVED.from.to_string(),
        newest_observed: OBSERVED.to.to_string(),
        unpublished: OBSERVED.unpublished.iter().map(|v| v.to_string()).collect(),
        build: build.map(|b| b.to_string()),
        build_note: build.and_then(|b| b.model_note()),
        behaviours: BOUNDARIES
            .iter()
            .map(|row| json_doc::ModelBehaviour {
                behaviour: row.behaviour.name().to_string(),
                last_without: row.last_without.to_string(),
                first_with: row.first_with.to_string(),
                fixture: row.fixture.to_string(),
                prediction: build.map(|b| b.has(row.behaviour).as_str().to_string()),
            })
            .collect(),
        facts: facts()
            .into_iter()
            .map(|f| json_doc::ModelFact {
                prediction: build.map(|v| f.holds_on(v).as_str().to_string()),
                applies_with: f.applies_with.map(|b| b.name().to_string()),
                observed_on: f.observed_on.iter().map(|b| b.to_string()).collect(),
                fact: f.name,
                value: f.value,
            })
            .collect(),
    };
    if args.json {
        output::stdout(&output::json(&doc)?)?;
        return Ok(ExitCode::Clean);
    }
    // (each line fitted to the terminal, its words kept, a table row without the
    // padding after its last column: helper-81 #11)
    let width = output::width();
    let line = |t: &str| mcplogs::text::layout::wrap_keeping(t, "", 2, width);
    let mut text = line(&format!(
        "Observed builds: {} to {} (never published: {})",
        doc.oldest_observed,
        doc.newest_observed,
        doc.unpublished.join(", ")
    ));
    if let Some(n) = &doc.build_note {
        text.push_str(&line(n));
    }
    let w = doc
        .behaviours
        .iter()
        .map(|b| b.behaviour.len())
        .max()
        .unwrap_or(0);
    text.push('\n');
    // (a row wider than the terminal, with a build's column, goes on below it)
    text.push_str(&line(
        format!(
            "{:<w$}  {:<12}  {:<10}  {:<22}{}",
            "behaviour",
            "last without",
            "first with",
            "fixture",
            doc.build
                .as_deref()
                .map(|b| format!("  {b}"))
                .unwrap_or_default(),
        )
        .trim_end(),
    ));
    for b in &doc.behaviours {
        text.push_str(&line(
            format!(
                "{:<w$}  {:<12}  {:<10}  {:<22}{}",
                b.behaviour,
                b.last_without,
                b.first_with,
                b.fixture,
                b.prediction
                    .as_deref()
                    .map(|p| format!("  {p}"))
                    .unwrap_or_default(),
            )
            .trim_end(),
        ));
    }
    text.push('\n');
    text.push_str(&line(
        "Facts (observed on the builds named, assumed on the others; one \"with\" a behaviour holds from that behaviour's first build):",
    ));
    for f in &doc.facts {
        let scope = f
            .applies_with
            .as_deref()
            .map(|b| format!(" (with {b})"))
            .unwrap_or_default();
        let here = f
            .prediction
            .as_deref()
            .zip(doc.build.as_deref())
            .map(|(p, b)| format!("; on {b}: {p}"))
            .unwrap_or_default();
        text.push_str(&line(&format!(
            "{}: {}{scope}; observed on {}{here}",
            f.fact,
            f.value,
            f.observed_on.join(", ")
        )));
    }
    output::stdout(&text)?;
    Ok(ExitCode::Clean)
}
