//! Parts shared by several documents: a warning, an evidence record.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A damaged or unreadable file that the command skipped in part or whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Warning {
    /// The file, or null when the warning is about no single file.
    pub file: Option<String>,
    /// One line, such as `skipped 2 of 40 lines (1 not valid JSON, a truncated last record)`.
    pub message: String,
}

/// One decoded log record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Evidence {
    /// The log file.
    pub file: String,
    /// 1-based line in the file.
    pub line: u64,
    /// ISO-8601 time of the record, or null.
    pub timestamp: Option<String>,
    /// `debug`, `info`, `warn`, `error`, ...
    pub level: String,
    /// The message, decoded, exactly as logged (after redaction).
    pub message: String,
}
