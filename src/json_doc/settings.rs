//! The `mcplogs settings --json` document (`docs/schema/settings.schema.json`); its
//! layers are also part of `scan --json`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::*;

/// `mcplogs settings --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsDocument {
    pub schema_version: u32,
    /// The project folder the layers were read for.
    pub project: String,
    /// Highest precedence first.
    pub layers: Vec<SettingsLayer>,
    pub effective: Effective,
    /// Every MCP server configured for the project, in Claude Code's precedence, with
    /// what Claude Code does with it there (the resolution `scan` joins with the logs),
    /// then one `configuration-error` entry per configuration file it cannot read.
    pub servers: Vec<SettingsServer>,
}

/// One server configured for the project (`servers[]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsServer {
    /// The server's name (for an unreadable file: the file's name, `.mcp.json`).
    pub name: String,
    /// The same object as `scan --json`'s `servers[].configuration`; `state` is one of
    /// `starts`, `pending-approval`, `disabled`, `denied-by-policy`,
    /// `configuration-error`.
    pub configuration: ServerConfiguration,
    /// For a server Claude Code does not start: the file and key responsible and the
    /// way out; for an approved `.mcp.json` server: what approves it; null otherwise.
    pub note: Option<String>,
}

/// The settings layers as part of another document (`scan --json`'s `settings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Settings {
    /// The project folder the layers were read for.
    pub project: String,
    /// Highest precedence first.
    pub layers: Vec<SettingsLayer>,
    pub effective: Effective,
}

impl Settings {
    /// The standalone `settings --json` document, with the project's servers.
    pub fn into_document(self, servers: Vec<SettingsServer>) -> SettingsDocument {
        SettingsDocument {
            schema_version: SCHEMA_VERSION,
            project: self.project,
            layers: self.layers,
            effective: self.effective,
            servers,
        }
    }
}

/// One settings layer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsLayer {
    /// `managed-drop-in`, `managed`, `local`, `project`, `user` or `environment`.
    pub layer: String,
    /// The file; null for `environment`.
    pub path: Option<String>,
    /// The file exists (for `environment`: the variable is set).
    pub present: bool,
    /// `absent`, `strict`, `ignored`, `invalid`, `unreadable` or `environment`.
    pub status: String,
    /// True or false for a file that exists and was parsed; null otherwise.
    pub strict: Option<bool>,
    /// Claude Code reads this layer (a strict file, or a set variable).
    pub in_effect: bool,
    /// The layer's `env.MCP_PROTOCOL_NEGOTIATION`, or null when absent.
    pub negotiation: Option<String>,
    /// For `ignored` and `invalid`: the first problem.
    pub problem: Option<TextProblem>,
    /// For `ignored`: the `env` keys that are therefore not in effect.
    pub ignored_env_keys: Vec<String>,
    /// For `unreadable`: why.
    pub error: Option<String>,
}

/// Where a settings file stops being strict JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TextProblem {
    /// 1-based.
    pub line: u64,
    /// 1-based.
    pub column: u64,
    pub message: String,
}

/// The value Claude Code uses and the layer that decides it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Effective {
    /// Null: not set (Claude Code's default).
    pub value: Option<String>,
    /// `value` is `legacy`.
    pub legacy: bool,
    /// The deciding layer, or null.
    pub layer: Option<String>,
    /// The deciding layer's file, or null.
    pub path: Option<String>,
}
