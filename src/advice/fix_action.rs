//! A server's fix engine action, worded once for every screen (`scan`, its JSON
//! `recommendation`, `explain`, `report`): what the resolution found `mcplogs fix`
//! would do for it ([`crate::scan::fix::ServerFix`]), besides the legacy setting, which
//! keeps its own wording.

use crate::scan::ServerReport;
use crate::scan::fix::FixState;

/// The fix engine's action for a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixAction {
    pub text: String,
    /// `mcplogs fix` plans it (it counts as fixable).
    pub planned: bool,
    /// Made already: the failure is from before it.
    pub in_place: bool,
}

/// The fix engine's action for `s`, if it has one: a change `mcplogs fix` plans, one
/// made already, or one not offered on this build (with the change to make by hand). A
/// change whose file `fix` refuses is none: the server keeps its own advice.
pub fn fix_action(s: &ServerReport) -> Option<FixAction> {
    fix_action_of(s.fix.as_deref()?)
}

/// [`fix_action`] of a configured server without a log (a `.mcp.json` server `mcplogs
/// fix` enables), from its row's fix.
pub fn row_fix_action(r: &crate::scan::configured::ConfiguredRow) -> Option<FixAction> {
    fix_action_of(r.fix.as_deref()?)
}

fn fix_action_of(f: &crate::scan::fix::ServerFix) -> Option<FixAction> {
    if let Some(c) = f.engine_change(|st| *st == FixState::Planned) {
        // every file the fix changes for it, not only the first (a name disabled in
        // several layers is moved in each: a disabled list wins in any layer)
        let mut text = format!(
            "Run {} ({}): {}.",
            crate::text::code_span(&f.command),
            c.cause.as_str(),
            c.why
        );
        let mut same: Vec<String> = Vec::new();
        for o in f.changes.iter().filter(|o| {
            o.cause != crate::settings::engine::FixCause::Negotiation
                && o.state == FixState::Planned
                && !std::ptr::eq(*o, c)
        }) {
            match &o.change {
                Some(ch) if o.cause == c.cause => {
                    let file = ch.file.display().to_string();
                    if !same.contains(&file) {
                        same.push(file);
                    }
                }
                _ => text.push_str(&format!(" Also ({}): {}.", o.cause.as_str(), o.why)),
            }
        }
        if !same.is_empty() {
            text.push_str(&format!(
                " It makes the same change in {} too (every file that lists it).",
                same.join(" and ")
            ));
        }
        return Some(FixAction {
            text,
            planned: true,
            in_place: false,
        });
    }
    if let Some(c) = f.engine_change(|st| *st == FixState::InPlace) {
        return Some(FixAction {
            text: format!(
                "Already fixed (restart Claude Code or run /mcp, then check with {}): {}.",
                crate::text::code_span(&f.verify),
                c.why
            ),
            planned: false,
            in_place: true,
        });
    }
    let c = f.engine_change(|st| matches!(st, FixState::NotOffered { .. }))?;
    let FixState::NotOffered { build, observed } = &c.state else {
        return None;
    };
    Some(FixAction {
        text: format!(
            "Not offered by `mcplogs fix` ({}): observed to work on Claude Code {observed}; this machine runs {build}. To make it by hand: {}.",
            c.cause.as_str(),
            c.why
        ),
        planned: false,
        in_place: false,
    })
}
