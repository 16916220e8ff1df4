//! The `mcplogs explain --json` document (`docs/schema/explain.schema.json`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Diagnosis;

/// `mcplogs explain --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExplainDocument {
    pub schema_version: u32,
    /// One entry per server line (or one for a pasted message).
    pub servers: Vec<ExplainServer>,
}

/// One explained server line or message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExplainServer {
    /// The server name, when the pasted text has one.
    pub name: Option<String>,
    /// The command or URL `claude mcp list` showed.
    pub target: Option<String>,
    /// The status as printed (`✓ Connected`), or the pasted message's first line.
    pub status: String,
    /// As in `scan --json`.
    #[serde(flatten)]
    pub diagnosis: Diagnosis,
    /// One line: what to do.
    pub recommendation: String,
    /// The text after the status, zod errors included.
    pub detail: Option<String>,
    /// A configuration state instead of a verdict (the verdict is then `unknown`):
    /// `disabled` (`⊘ Disabled for this project`) or `pending-approval` (`⏸ Pending
    /// approval`); null otherwise.
    pub state: Option<String>,
}
