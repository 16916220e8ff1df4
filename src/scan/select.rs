//! A server named on the command line (`scan --server`, `scan NAME`, `fix NAME`,
//! `fix --except`, `probe NAME`, `du --server`): as the user wrote it, or as mcplogs
//! prints it. A name holding a token is printed redacted (`[REDACTED:github-token]`),
//! and a configured server's row keeps only that form: both forms select the server, so
//! every printed command runs as printed and the real name works too.

use crate::claude_code::names::server_matches;

/// The name asked for, with the form mcplogs would print it in when the two differ (or
/// when it is already a printed, redacted form).
#[derive(Debug, Clone)]
pub struct NameWant {
    given: String,
    shown: Option<String>,
}

impl NameWant {
    pub fn new(given: &str) -> Self {
        let shown = crate::redact::output::text(given);
        let printed_form = shown != given || given.contains("[REDACTED");
        NameWant {
            given: given.to_string(),
            shown: printed_form.then_some(shown),
        }
    }

    /// What an error or a note may echo of the name: its printed form (never a token).
    pub fn echo(&self) -> &str {
        self.shown.as_deref().unwrap_or(&self.given)
    }

    /// Whether it selects the server `name` (logged in `folder`): the configured or folder
    /// name as [`server_matches`] has it, or the same printed form.
    pub fn selects(&self, name: &str, folder: Option<&str>) -> bool {
        server_matches(name, folder, &self.given) || self.same_printed(name)
    }

    /// Exactly `name` (case counts), or the same printed form: `probe NAME`, `fix NAME`.
    pub fn is(&self, name: &str) -> bool {
        name == self.given || self.same_printed(name)
    }

    fn same_printed(&self, name: &str) -> bool {
        let Some(shown) = self.shown.as_deref() else {
            return false;
        };
        if shown == self.given {
            // a printed form given: the server printed so
            crate::redact::output::text(name).eq_ignore_ascii_case(shown)
        } else {
            // the real name given: a server known by its printed form only (a configured
            // row keeps no token), never another real name that prints the same
            name.contains("[REDACTED") && name.eq_ignore_ascii_case(shown)
        }
    }
}

/// `name` as a message may echo it: the printed form of a name holding a token.
pub fn echo(name: &str) -> String {
    NameWant::new(name).echo().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

    #[test]
    fn the_real_name_and_the_printed_form_both_select() {
        let shown = crate::redact::output::text(TOKEN);
        assert_ne!(shown, TOKEN);
        for given in [TOKEN, shown.as_str()] {
            let w = NameWant::new(given);
            // a logged server keeps its real name, a configured row the printed form
            assert!(w.selects(TOKEN, None), "{given}");
            assert!(w.selects(&shown, None), "{given}");
            assert!(w.is(TOKEN) && w.is(&shown), "{given}");
            assert!(!w.selects("p-ok", None));
            assert!(!w.echo().contains(TOKEN));
        }
        let plain = NameWant::new("p-ok");
        assert!(plain.selects("P-OK", None) && plain.is("p-ok") && !plain.is("P-OK"));
        assert!(!plain.selects(&shown, None));
        assert_eq!(echo(TOKEN), shown);
        // another token printing the same is not the server asked for by its real name
        let other = TOKEN.replace('A', "Z");
        assert!(!NameWant::new(&other).selects(TOKEN, None));
        assert!(NameWant::new(&other).selects(&shown, None));
    }
}
