//! Stage 1 and 2 of the pipeline: where Claude Code's MCP logs are ([`discovery`]), bytes
//! to records in every format it has written ([`decode`], [`record`]), and records grouped
//! into sessions, each classified as it streams ([`session`]).

pub mod decode;
pub mod discovery;
pub mod record;
pub mod session;
