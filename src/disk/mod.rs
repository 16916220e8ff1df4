//! The disk Claude Code's MCP logs take: where it went ([`du`]) and giving it back
//! ([`prune`]). Claude Code never rotates these logs.

pub mod du;
pub mod prune;
