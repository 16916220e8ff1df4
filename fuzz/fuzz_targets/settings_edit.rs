//! The settings editor on arbitrary file contents, through the real files: `fix` either
//! refuses, leaving the file, and no backup or undo record, behind; or writes strict
//! JSON (serde_json parses it) holding every original key and value plus
//! env.MCP_PROTOCOL_NEGOTIATION = "legacy". `fix --undo` then gives back the original
//! bytes. A JSON5 file refused as not strict goes again with `--rewrite-strict`.
#![no_main]

#[path = "../checks/settings_edit.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
