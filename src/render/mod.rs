//! Turning reports into text: the human table, `--verbose` evidence, and `--json`.
//! Renderers return strings; the binary decides where they go.

pub mod json;
pub mod prune;
pub mod reason;
pub mod table;

// The text forms live in the `text` leaf (explain and settings use them too); they are
// re-exported here for the renderers.
pub use crate::text::{one_line, pretty_message, shell_word, terminal_safe};
