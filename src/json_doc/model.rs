//! The `mcplogs model --json [VERSION]` document: the model of Claude Code's builds
//! (`claude_code::lifecycle`), for `scripts/observe-build` to compare real builds with
//! (`docs/schema/model.schema.json`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The version of the `model --json` document.
pub const MODEL_SCHEMA_VERSION: u32 = 2;

/// `mcplogs model --json [VERSION]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelDocument {
    /// [`MODEL_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The oldest and newest builds observed, and the numbers between never published.
    pub oldest_observed: String,
    pub newest_observed: String,
    pub unpublished: Vec<String>,
    /// The build asked about (`null`: none, only the table).
    pub build: Option<String>,
    /// For a build not observed: what its predictions rest on.
    pub build_note: Option<String>,
    /// One per behaviour that differs between builds, newest boundary first.
    pub behaviours: Vec<ModelBehaviour>,
    /// What the model gives every build, each with the builds it was observed on.
    pub facts: Vec<ModelFact>,
}

/// A fact the model gives every build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelFact {
    /// `page-cap`, `default-mcp-timeout-ms`, `tool-defect:missing-input-schema`...
    pub fact: String,
    /// Its value: `20`, `30000`, `true`, `drops-list`...
    pub value: String,
    /// The builds it was observed on; on the others it is assumed.
    pub observed_on: Vec<String>,
    /// The behaviour (a row of `behaviours`) from whose first build it holds; `null`:
    /// every build.
    pub applies_with: Option<String>,
    /// For the build asked about: `yes`, `no` or `uncertain` (whether it holds there);
    /// `null` without a build.
    pub prediction: Option<String>,
}

/// One row of the table, and what the model predicts for the build asked about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelBehaviour {
    /// `stdio-negotiates`, `fills-missing-tools`...
    pub behaviour: String,
    /// The last build observed without it.
    pub last_without: String,
    /// The first build observed with it.
    pub first_with: String,
    /// The fixture under tests/fixtures/lifecycle/ that shows it on both builds.
    pub fixture: String,
    /// For the build asked about: `yes`, `no` or `uncertain`; `null` without a build.
    pub prediction: Option<String>,
}
