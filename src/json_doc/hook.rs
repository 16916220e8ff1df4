//! What `mcplogs hook` prints: the hook output Claude Code reads (its format, not
//! versioned by mcplogs; `docs/schema/hook.schema.json`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What `mcplogs hook` prints when a server of the session failed: Claude Code's
/// documented hook output, whose `additionalContext` it adds to the model's context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HookOutput {
    pub hook_specific_output: HookSpecificOutput,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HookSpecificOutput {
    /// The event the hook ran for (`UserPromptSubmit` or `SessionStart`), as Claude Code
    /// requires it to be echoed.
    pub hook_event_name: String,
    /// The two or three sentences for the model.
    pub additional_context: String,
}
