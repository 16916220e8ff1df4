//! The integration tests: one crate (one link step), a module per area. They run the
//! real binary with a pinned environment (see `common`) or call the library directly.

// The tests read their own fixtures and outputs directly; the library reads only
// through `safe_read` (clippy.toml).
#![allow(clippy::disallowed_methods)]
// Tests may print what helps when they fail.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;
mod config_args_secrets;
mod config_secret_names;
mod config_secrets;
mod config_secrets_gaps;
mod configured;

#[cfg(unix)]
mod cache_trust;
#[cfg(unix)]
mod confinement;

#[cfg(unix)]
mod advice_wording;
mod bad_input;
mod basics;
mod cached_flags;
mod clock;
#[cfg(unix)]
mod completion_shells;
mod decode_formats;
mod decode_property;
mod direction;
mod discovery_cache;
mod discovery_cache_more;
#[cfg(unix)]
mod discovery_cache_surfaces;
mod doc_paths;
#[cfg(unix)]
mod docs_true;
mod explain;
mod explain_log;
mod export;
#[cfg(unix)]
mod fix_engine;
#[cfg(unix)]
mod fix_plan;
mod fix_remote;
mod fuzz_corpus;
mod fuzz_regressions;
#[cfg(unix)]
mod hostile;
mod human_output;
mod index;
mod index_details;
mod index_listing;
mod index_shape;
mod junit;
mod lifecycle;
mod names_across_projects;
mod never_cut;
mod newest_first;
mod one_answer;
mod one_answer_gaps;
mod one_fix;
#[cfg(unix)]
mod one_resolution;
#[cfg(unix)]
mod printed_commands;
#[cfg(unix)]
mod probe;
#[cfg(unix)]
mod probe_agree;
#[cfg(unix)]
mod probe_ci;
mod probe_flags;
mod probe_lifecycle;
mod probe_oauth;
mod probe_remote_cause;
#[cfg(unix)]
mod probe_trust;
#[cfg(unix)]
mod probe_wire;
mod prune;
mod read_once;
#[cfg(unix)]
mod redact_then_cut;
#[cfg(unix)]
mod redacted_identity;
mod redaction_corpus;
mod remote;
mod report_cli;
mod report_leak;
#[cfg(unix)]
mod report_snapshot;
mod review_leftovers;
mod samples;
mod scale;
#[cfg(unix)]
mod script_versions;
mod sdk_generation;
mod secrets_output;
#[cfg(unix)]
mod settings_cli;
#[cfg(unix)]
mod settings_faults;
#[cfg(unix)]
mod settings_fix;
mod settings_portable;
mod settings_property;
#[cfg(unix)]
mod settings_pty;
#[cfg(unix)]
mod settings_race;
#[cfg(unix)]
mod settings_undo;
#[cfg(unix)]
mod statusline;
mod statusline_budget;
#[cfg(unix)]
mod terminal_safety;
#[cfg(unix)]
mod token_names;
#[cfg(unix)]
mod token_names_alike;
mod trust_decode;
#[cfg(unix)]
mod trust_settings;
#[cfg(unix)]
mod trust_surfaces;
mod vocabulary;
mod wire;
