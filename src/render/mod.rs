//! Turning reports into what each command shows: one file per command, its screen and its
//! `--json` document together. Renderers return strings and documents; the binary decides
//! where they go. Colour goes through `colored`, whose global switch the binary sets
//! (terminal, `--color`, `NO_COLOR`).

pub mod du;
pub mod explain;
pub mod probe;
pub mod prune;
pub mod scan;
pub mod settings;

// The text forms live in the `text` leaf (explain and settings use them too); they are
// re-exported here for the renderers.
pub use crate::text::{one_line, pretty_message, shell_word, terminal_safe};

use colored::{ColoredString, Colorize};

use crate::classify::verdict::{Diagnosis, Verdict};

fn paint(verdict: Verdict, text: &str) -> ColoredString {
    match verdict {
        Verdict::Healthy => text.green(),
        Verdict::Tolerated | Verdict::Degraded => text.yellow(),
        Verdict::Unknown => text.dimmed(),
        _ => text.red().bold(),
    }
}

/// `tools-fetch-failed (missing-resultType)`.
pub fn verdict_label(d: &Diagnosis) -> String {
    crate::classify::verdict::label(d.verdict, d.cause)
}

/// The warnings of any `--json` document.
pub fn warnings_json(warnings: &[crate::warning::Warning]) -> Vec<crate::json_doc::Warning> {
    warnings
        .iter()
        .map(|w| crate::json_doc::Warning {
            file: w.path.as_ref().map(|p| p.display().to_string()),
            message: w.message.clone(),
        })
        .collect()
}

/// The diagnosis fields every document carries (`json_doc::Diagnosis`), from a verdict;
/// `legacy_fix_applies` is the caller's, who may know the settings.
pub fn diagnosis_json(d: &Diagnosis, legacy_fix_applies: bool) -> crate::json_doc::Diagnosis {
    crate::json_doc::Diagnosis {
        verdict: d.verdict.as_str().to_string(),
        cause: d.cause.map(|c| c.as_str().to_string()),
        era: d.era.map(|e| e.as_str().to_string()),
        negotiated_protocol_version: d.negotiated_protocol_version.clone(),
        legacy_fix_applies,
        filled_fields: d.filled_fields.clone(),
        bad_tool_path: d.bad_tool_path.clone(),
    }
}

/// `servers[].discoveryCache` of `scan` and `report`.
pub fn discovery_cache_json(c: &crate::scan::CacheServed) -> crate::json_doc::DiscoveryCacheServed {
    let iso = |t: Option<u64>| t.map(|t| crate::time::format_iso(t as i64));
    crate::json_doc::DiscoveryCacheServed {
        state: c.kind.as_str().to_string(),
        session: c.session.clone(),
        session_at: iso(c.session_at),
        cached_at: iso(c.cached_at),
        until: iso(c.until),
        next_session: c.next_session.clone(),
    }
}
