//! A server named on the command line (`scan --server`, `scan NAME`, `fix NAME`,
//! `fix --except`, `probe NAME`, `du --server`): as the user wrote it, or as mcplogs
//! prints it. A name holding a token is printed redacted (`[REDACTED:github-token]`),
//! and a configured server's row keeps only that form: both forms select the server, so
//! every printed command runs as printed and the real name works too.
//!
//! Two names holding different tokens print alike, so a printed name carries a tag
//! after it, [`tag`]: `[REDACTED:github-token]#3fa2`, four hex digits of a hash of the
//! real name (not reversible; the same on every machine). The printed form with its tag
//! selects that one server; without it, every server printing alike (`scan --server`
//! lists them all; a command acting on one server refuses, [`NameWant::ambiguous`]).
//!
//! A name holding a value the configuration marks as secret (an `env` or header value:
//! `svc-VALUE`) is printed with that value hidden and no tag, `svc-[REDACTED:config]`:
//! only a want made knowing those values ([`NameWant::knowing`]) tells which real names
//! print so. Every command taking a server's name makes its want so, and matches by
//! [`NameWant::selects`] or [`NameWant::is`]: one rule for all of them.

use std::sync::Arc;

use crate::claude_code::names::{SHARED_SEP, server_matches};
use crate::redact::Redactor;
use crate::redact::configured::ConfiguredSecrets;
use sha2::Digest;

/// The tag's separator: no secret rule takes `#` into a token, so the whole-text
/// redaction every output passes through leaves the tag after the marker.
const TAG_SEP: char = '#';

/// The tag telling apart names that print alike: `#` and the first four hex digits of
/// the SHA-256 of the real name.
pub fn tag(real: &str) -> String {
    let d = sha2::Sha256::digest(real.as_bytes());
    format!("{TAG_SEP}{:02x}{:02x}", d[0], d[1])
}

/// Gives `shown`, the name `real` as a redaction of the whole output printed it, the
/// tag [`printed`] gives it: only when the secret rules change the name. The rule is
/// this one in every command, whatever else its redactor hides (a user name, a
/// configured value: the name is printed redacted, without a tag).
pub fn tag_shown(real: &str, shown: &mut String) {
    if shown != real && crate::redact::output::text(real) != real {
        shown.push_str(&tag(real));
    }
}

/// `real` as the redactor `r` prints it: redacted, with its tag where the secret rules
/// change it ([`tag_shown`]), as every command prints a server's name.
pub fn shown_by(r: &crate::redact::Redactor, real: &str) -> String {
    if let Some(parts) = shared_parts(real) {
        return parts
            .map(|p| shown_by(r, p))
            .collect::<Vec<_>>()
            .join(SHARED_SEP);
    }
    let mut shown = real.to_string();
    r.apply(&mut shown);
    tag_shown(real, &mut shown);
    shown
}

/// A log folder's name joined from the configured names sharing it (`a + b`): its
/// names, each printed by itself (one tag of the names joined would match neither's
/// printed form), as every command prints and takes it.
fn shared_parts(name: &str) -> Option<std::str::Split<'_, &'static str>> {
    name.contains(SHARED_SEP).then(|| name.split(SHARED_SEP))
}

/// The configured names sharing one log folder, each made [`shown_by`] in place, and
/// the folder's server as it is named then: them joined with ` + ` (one tag of the
/// names joined would tell none of them from a name printing alike).
pub fn shown_sharing(r: &crate::redact::Redactor, names: &mut [String]) -> String {
    for n in names.iter_mut() {
        *n = shown_by(r, n);
    }
    names.join(SHARED_SEP)
}

/// `real` as a text later redacted whole prints it: with its [`tag`] after it when it
/// holds a secret (the redaction then makes it `[REDACTED:kind]#tag`), else as it is.
pub fn tagged(real: &str) -> String {
    if crate::redact::output::text(real) != real {
        format!("{real}{}", tag(real))
    } else {
        real.to_string()
    }
}

/// `real` as mcplogs prints it: redacted, with its [`tag`] when the redaction changed it.
pub fn printed(real: &str) -> String {
    if let Some(parts) = shared_parts(real) {
        return parts.map(printed).collect::<Vec<_>>().join(SHARED_SEP);
    }
    let shown = crate::redact::output::text(real);
    if shown != real {
        format!("{shown}{}", tag(real))
    } else {
        shown
    }
}

/// A printed form split into the form without its tag and the tag (`#3fa2`), if any.
fn split_tag(printed: &str) -> (&str, Option<&str>) {
    if let Some(at) = printed.rfind(TAG_SEP) {
        let t = &printed[at + 1..];
        if t.len() == 4
            && t.bytes().all(|b| b.is_ascii_hexdigit())
            && printed[..at].contains("[REDACTED")
        {
            return (&printed[..at], Some(&printed[at..]));
        }
    }
    (printed, None)
}

/// The tag (`#3fa2`) a printed name ends in, if it has one.
pub fn tag_of(printed: &str) -> Option<&str> {
    split_tag(printed).1
}

/// The name asked for, with the form mcplogs would print it in when the two differ (or
/// when it is already a printed, redacted form).
#[derive(Debug, Clone)]
pub struct NameWant {
    given: String,
    shown: Option<String>,
    /// How the command prints names, when it knows the configured values
    /// ([`NameWant::knowing`]): a real name is compared with a printed form as this
    /// prints it; without it, as the secret rules alone print it.
    shown_by: Option<Arc<Redactor>>,
    /// A server has exactly the name given ([`NameWant::named_exactly_if_any`]): a log
    /// folder's name no longer selects another server whose name encodes to it (`api-v2`
    /// is not `api.v2` of another project when a server is named `api-v2`).
    name_only: bool,
}

/// Whether `given` is a printed form (`[REDACTED:kind]` in it): only such a name needs
/// the configured values to be matched ([`NameWant::knowing`]).
pub fn is_printed_form(given: &str) -> bool {
    given.contains("[REDACTED")
}

/// The redactor printing names as every command prints them, knowing `secrets` (the
/// values the configuration marks as secret): what [`NameWant::shown_by`] takes.
pub fn names_redactor(secrets: &ConfiguredSecrets) -> Redactor {
    let mut b = crate::redact::RedactorBuilder::new();
    b.learn_configured_secrets(secrets);
    b.build()
}

impl NameWant {
    /// The name as given, matched against printed forms as the secret rules print names
    /// (a configured value in a name is not known: [`NameWant::knowing`]).
    pub fn new(given: &str) -> Self {
        Self::made(given, None)
    }

    /// The name as given, matched against printed forms as `r` prints names
    /// ([`shown_by`]): `svc-[REDACTED:config]` selects `svc-VALUE` when `r` hides
    /// `VALUE`, and no name `r` does not print so.
    pub fn shown_by(given: &str, r: Arc<Redactor>) -> Self {
        Self::made(given, Some(r))
    }

    /// [`NameWant::shown_by`] the redactor knowing `secrets` ([`names_redactor`]), made
    /// only when one is needed: a printed form given, or a configured value to hide in
    /// what the want echoes.
    pub fn knowing(given: &str, secrets: &ConfiguredSecrets) -> Self {
        if secrets.is_empty() {
            return Self::new(given);
        }
        Self::shown_by(given, Arc::new(names_redactor(secrets)))
    }

    fn made(given: &str, r: Option<Arc<Redactor>>) -> Self {
        let printed_form = is_printed_form(given);
        let shown = if printed_form {
            given.to_string()
        } else {
            match &r {
                Some(r) => shown_by(r, given),
                None => printed(given),
            }
        };
        NameWant {
            given: given.to_string(),
            shown: (printed_form || shown != given).then_some(shown),
            shown_by: r,
            name_only: false,
        }
    }

    /// The want selecting by name only when one of `names` (the servers' names, as
    /// resolved) is the name given, case aside: the log folder's name is for a server
    /// known by no other name, never a second server beside the one named.
    pub fn named_exactly_if_any<'a>(mut self, names: impl IntoIterator<Item = &'a str>) -> Self {
        self.name_only |= !is_printed_form(&self.given) && names.into_iter().any(|n| self.names(n));
        self
    }

    /// Whether `name` is the name given, case aside, or, for a log folder several names
    /// share (named by them joined with ` + `), one of its names is.
    fn names(&self, name: &str) -> bool {
        name.split(SHARED_SEP)
            .any(|n| n.eq_ignore_ascii_case(&self.given))
    }

    /// For a name given as a shared log folder's printed name (its names joined): whether
    /// `name` is one of them, case aside.
    pub fn joins(&self, name: &str) -> bool {
        shared_parts(&self.given)
            .is_some_and(|mut parts| parts.any(|p| p.eq_ignore_ascii_case(name)))
    }

    /// The want selecting by name only, as another want over the same servers chose
    /// ([`NameWant::is_by_name_only`]): the configured rows as the logged ones.
    pub fn by_name_only_if(mut self, yes: bool) -> Self {
        self.name_only |= yes && !is_printed_form(&self.given);
        self
    }

    /// Whether it selects by name only ([`NameWant::named_exactly_if_any`]).
    pub fn is_by_name_only(&self) -> bool {
        self.name_only
    }

    /// The name as given.
    pub fn given(&self) -> &str {
        &self.given
    }

    /// `real` as this want's commands print it: [`shown_by`] its redactor, else
    /// [`printed`].
    pub fn print(&self, real: &str) -> String {
        match &self.shown_by {
            Some(r) => shown_by(r, real),
            None => printed(real),
        }
    }

    /// What an error or a note may echo of the name: its printed form (never a token).
    pub fn echo(&self) -> &str {
        self.shown.as_deref().unwrap_or(&self.given)
    }

    /// A printed form (`[REDACTED:kind]`, with or without its tag), not a real name.
    pub fn is_printed_form(&self) -> bool {
        self.shown.as_deref() == Some(self.given.as_str())
    }

    /// A printed form without its tag: it selects every server printing so, and names
    /// one server only when one prints so ([`NameWant::ambiguous`]).
    pub fn is_untagged_printed_form(&self) -> bool {
        self.is_printed_form() && split_tag(&self.given).1.is_none()
    }

    /// For a command acting on one server: the usage error's words when this name is a
    /// printed form and the servers it selects have more than one real name (`real`:
    /// each selected server's name as read; one name in several projects is left to the
    /// command's own rule), `None` otherwise. Never one of them picked silently: names
    /// printing alike with different tags are listed by them; names a configured value
    /// makes print alike (no tag tells them apart) need the real name.
    pub fn ambiguous<'a>(&self, real: impl IntoIterator<Item = &'a str>) -> Option<String> {
        if !self.is_printed_form() {
            return None;
        }
        let mut names: Vec<&str> = real.into_iter().collect();
        names.sort_unstable();
        names.dedup();
        let count = names.len();
        if count < 2 {
            return None;
        }
        let mut forms: Vec<String> = names.iter().map(|n| self.print(n)).collect();
        forms.sort_unstable();
        forms.dedup();
        let listed = forms
            .iter()
            .map(|f| format!("{f:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        Some(if forms.len() == count {
            format!(
                "{:?} names {count} servers whose names hold a secret and print alike: give the real name, or the printed form with its tag: {listed}",
                self.given
            )
        } else {
            format!(
                "{:?} names {count} servers whose names hold a secret and print alike ({listed}): give the real name",
                self.given
            )
        })
    }

    /// Whether it selects the server `name` (logged in `folder`): the configured or folder
    /// name as [`server_matches`] has it, or the same printed form.
    pub fn selects(&self, name: &str, folder: Option<&str>) -> bool {
        if self.name_only {
            return self.names(name) || self.same_printed(name);
        }
        server_matches(name, folder, &self.given)
            || self.same_printed(name)
            || folder.is_some_and(|f| self.same_printed(f))
    }

    /// Exactly `name` (case counts), or the same printed form: `probe NAME`, `fix NAME`.
    pub fn is(&self, name: &str) -> bool {
        name == self.given || self.same_printed(name)
    }

    fn same_printed(&self, name: &str) -> bool {
        // a shared log folder's printed name: each of its names in its place
        if let (Some(shown), Some(names)) = (self.shown.as_deref(), shared_parts(name))
            && let Some(given) = shared_parts(shown)
        {
            let (given, names): (Vec<&str>, Vec<&str>) = (given.collect(), names.collect());
            return given.len() == names.len()
                && given.iter().zip(&names).all(|(g, n)| {
                    g.eq_ignore_ascii_case(n)
                        || Self::made(g, self.shown_by.clone()).same_printed_one(n)
                });
        }
        self.same_printed_one(name)
    }

    fn same_printed_one(&self, name: &str) -> bool {
        use std::borrow::Cow;
        let Some(shown) = self.shown.as_deref() else {
            return false;
        };
        let printed_given = shown == self.given;
        // `name` as printed: a real name, or a printed form kept by a row (its tag, if
        // any, is the real name's)
        let name_printed = name.contains("[REDACTED");
        // the real name given: a server known by its printed form only (a configured row
        // keeps no token), never another real name that prints the same: nothing to
        // redact for the others (`--server` over 100,000 servers)
        if !printed_given && !name_printed {
            return false;
        }
        let (want_base, want_tag) = split_tag(shown);
        let (name_base, name_tag): (Cow<str>, Option<&str>) = if name_printed {
            let (base, tag) = split_tag(name);
            (base.into(), tag)
        } else {
            // a real name as the command prints it (without its tag: compared below)
            let base: Cow<str> = match &self.shown_by {
                Some(r) => r.redact(name).into(),
                None => crate::redact::output::text(name).into(),
            };
            (base, None)
        };
        if !name_base.eq_ignore_ascii_case(want_base) {
            return false;
        }
        match (printed_given, want_tag) {
            // a printed form given: with its tag, the one server printing so; without,
            // every server printing alike (a real name's tag made only when asked for)
            (true, None) => true,
            (true, Some(want)) if name_printed => {
                name_tag.is_none_or(|t| t.eq_ignore_ascii_case(want))
            }
            (true, Some(want)) => tag(name).eq_ignore_ascii_case(want),
            (false, _) => name_tag.is_none_or(|t| Some(t) == want_tag),
        }
    }
}

/// A project asked for by `--match-project SUBSTRING`: a part of its path (or of its log
/// folder's name) as the user wrote it, or as mcplogs prints it (a path holding a value
/// the configuration marks as secret is printed `~/work/p-[REDACTED:config]`): the
/// printed form, made by a want knowing those values ([`ProjectWant::knowing`]),
/// selects a project whose path prints with it, never one printing otherwise. A leading
/// `~` of a printed form stands for the home folder, as on the screen.
#[derive(Debug, Clone)]
pub struct ProjectWant {
    given: String,
    /// The printed form, lowercased, `~` expanded; with the redactor printing paths.
    shown: Option<(String, Arc<Redactor>)>,
}

impl ProjectWant {
    /// The substring as given: matched against the real paths only.
    pub fn new(given: &str) -> Self {
        ProjectWant {
            given: given.to_string(),
            shown: None,
        }
    }

    /// The substring as given, and, when it is a printed form, as the paths print
    /// knowing `secrets` (and `home`, the folder `~` stands for).
    pub fn knowing(given: &str, secrets: &ConfiguredSecrets, home: Option<&str>) -> Self {
        if !is_printed_form(given) || secrets.is_empty() {
            return Self::new(given);
        }
        let expanded = match (given.strip_prefix('~'), home) {
            (Some(rest), Some(h)) if rest.is_empty() || rest.starts_with(['/', '\\']) => {
                format!("{}{rest}", h.trim_end_matches(['/', '\\']))
            }
            _ => given.to_string(),
        };
        ProjectWant {
            given: given.to_string(),
            shown: Some((expanded.to_lowercase(), Arc::new(names_redactor(secrets)))),
        }
    }

    /// Whether it selects the project `project` (its log folder `folder`): a part of
    /// either, as [`crate::claude_code::names::project_matches`] has it, or of either as
    /// printed.
    pub fn selects(&self, project: Option<&str>, folder: Option<&str>) -> bool {
        if crate::claude_code::names::project_matches(project, folder, &self.given) {
            return true;
        }
        let Some((shown, r)) = &self.shown else {
            return false;
        };
        [project, folder]
            .into_iter()
            .flatten()
            .any(|p| r.redact(p).to_lowercase().contains(shown.as_str()))
    }
}

/// `--project DIR` given as mcplogs prints a project folder whose path holds a value the
/// configuration marks as secret (`~/work/p-[REDACTED:config]`, in a printed command):
/// the one folder the homes' `~/.claude.json` lists (none: this machine's) whose path
/// prints so, knowing those values (a leading `~` the home folder, as on the screen).
/// `None` when `given` is a folder, is no printed form, or no listed folder prints so
/// (the command then says it is not a folder); `Err` with the usage error's words when
/// several do (never one of them picked).
pub fn printed_project(
    given: &std::path::Path,
    homes: &[std::path::PathBuf],
    managed_dir: Option<&std::path::Path>,
) -> Option<Result<std::path::PathBuf, String>> {
    let text = given.to_str()?;
    if given.is_dir() || !is_printed_form(text) {
        return None;
    }
    let secrets = super::secrets::collect(&super::secrets::Places {
        homes: homes.to_vec(),
        projects: Vec::new(),
        managed_dir: managed_dir.map(std::path::Path::to_path_buf),
        listed: true,
    });
    if secrets.is_empty() {
        return None;
    }
    let r = names_redactor(&secrets);
    let home = super::home_of_screen();
    let expanded = match (text.strip_prefix('~'), home) {
        (Some(rest), Some(h)) if rest.is_empty() || rest.starts_with(['/', '\\']) => {
            format!("{}{rest}", h.trim_end_matches(['/', '\\']))
        }
        _ => text.to_string(),
    };
    let trim = |p: &str| p.trim_end_matches(['/', '\\']).to_string();
    let want = trim(&expanded);
    let mut found: Vec<std::path::PathBuf> = super::secrets::listed_projects(homes)
        .into_iter()
        .filter(|p| p.is_dir() && trim(&r.redact(&p.to_string_lossy())) == want)
        .collect();
    found.dedup();
    match found.len() {
        0 => None,
        1 => found.pop().map(Ok),
        n => Some(Err(format!(
            "{text:?} names {n} project folders whose paths hold a secret and print alike: give the real path"
        ))),
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
        assert_eq!(echo(TOKEN), printed(TOKEN));
        assert!(printed(TOKEN).starts_with(&shown));
        // another token printing the same is not the server asked for by its real name
        let other = TOKEN.replace('A', "Z");
        assert!(!NameWant::new(&other).selects(TOKEN, None));
        assert!(NameWant::new(&other).selects(&shown, None));
    }

    /// Two tokens print alike; their tags tell them apart: the printed form with its tag
    /// selects one, without it both, and only the untagged form is ambiguous.
    #[test]
    fn the_tag_tells_apart_names_printing_alike() {
        let other = TOKEN.replace('A', "Z");
        let (a, b) = (printed(TOKEN), printed(&other));
        assert_ne!(a, b);
        assert!(!a.contains(TOKEN) && a.len() == "[REDACTED:github-token]#0000".len());
        assert_eq!(printed("p-ok"), "p-ok");
        assert_eq!(tagged("p-ok"), "p-ok");
        assert_eq!(crate::redact::output::text(&tagged(TOKEN)), a);
        let wa = NameWant::new(&a);
        assert!(wa.selects(TOKEN, None) && wa.is(TOKEN) && wa.is(&a));
        assert!(wa.selects(&a.to_uppercase(), None));
        assert!(!wa.selects(&other, None) && !wa.is(&other) && !wa.is(&b));
        assert!(!wa.is_untagged_printed_form());
        // the real name: its own tagged row, not the other's
        let real = NameWant::new(TOKEN);
        assert!(real.is(&a) && !real.is(&b));
        let plain = NameWant::new("[REDACTED:github-token]");
        assert!(plain.is(TOKEN) && plain.is(&other) && plain.is(&a) && plain.is(&b));
        assert!(plain.is_untagged_printed_form());
        // one real name (in several projects) is not ambiguous; two are
        assert!(plain.ambiguous([TOKEN, TOKEN]).is_none());
        let err = plain.ambiguous([other.as_str(), TOKEN, TOKEN]).unwrap();
        assert!(err.contains("names 2 servers") && err.contains(&a) && err.contains(&b));
        assert!(real.ambiguous([TOKEN, other.as_str()]).is_none());
        // a `#` not followed by four hex digits is part of the name
        assert!(!NameWant::new("[REDACTED:github-token]#xyz").is(TOKEN));
    }

    /// Every command's redaction tags a name by one rule, [`printed`]'s: a name the
    /// secret rules change gets its tag; one only a configured value or a user name
    /// hides is printed redacted, without one; an unchanged one is left as it is.
    #[test]
    fn a_redacted_name_is_tagged_as_printed_tags_it() {
        let mut shown = crate::redact::output::text(TOKEN);
        tag_shown(TOKEN, &mut shown);
        assert_eq!(shown, printed(TOKEN));
        let mut shown = "[REDACTED:config]".to_string();
        tag_shown("notes-zz9value", &mut shown);
        assert_eq!(shown, "[REDACTED:config]");
        let mut shown = "p-ok".to_string();
        tag_shown("p-ok", &mut shown);
        assert_eq!(shown, "p-ok");
    }

    /// A name holding a configured value prints `svc-[REDACTED:config]`, without a tag:
    /// a want knowing the value selects it by that form as by its real name, never a
    /// name printing otherwise; two names printing so are ambiguous, with the real
    /// names as the way out.
    #[test]
    fn a_printed_form_hiding_a_configured_value_selects_its_server() {
        const VALUE: &str = "Xr7Tb2Qm9Kd4Lp6Vn3Ws";
        const OTHER: &str = "Pq8Zy3Hn5Wc2Jt7Rk4Ls";
        let mut secrets = ConfiguredSecrets::new();
        secrets.add("FOO_SETTING", VALUE);
        secrets.add("BAR_SETTING", OTHER);
        let real = format!("svc-{VALUE}");
        let other = format!("svc-{OTHER}");
        let shown = "svc-[REDACTED:config]";
        assert_eq!(shown_by(&names_redactor(&secrets), &real), shown);
        // without the values, the printed form names nothing
        assert!(!NameWant::new(shown).selects(&real, Some(&real)));
        let want = NameWant::knowing(shown, &secrets);
        assert!(want.selects(&real, Some(&real)) && want.is(&real));
        assert!(NameWant::knowing("SVC-[REDACTED:CONFIG]", &secrets).selects(&real, None));
        assert!(want.selects(&other, None));
        assert!(!want.selects("svc-plain", Some("svc-plain")) && !want.is("svc-"));
        let r = names_redactor(&secrets);
        for n in [format!("svc-{VALUE}x"), format!("x-{VALUE}")] {
            assert_eq!(
                want.is(&n),
                shown_by(&r, &n) == shown,
                "{n}: {}",
                shown_by(&r, &n)
            );
        }
        // a typed pattern is no wildcard
        assert!(!NameWant::knowing("svc-[REDACTED:config]x", &secrets).is(&real));
        assert!(!NameWant::knowing("[REDACTED:config]", &secrets).is(&real));
        // the real name: itself and its printed row, never the other real name
        let by_name = NameWant::knowing(&real, &secrets);
        assert!(by_name.is(&real) && by_name.is(shown) && !by_name.is(&other));
        assert_eq!(by_name.echo(), shown);
        assert!(want.ambiguous([real.as_str(), real.as_str()]).is_none());
        let err = want.ambiguous([real.as_str(), other.as_str()]).unwrap();
        assert!(err.contains("names 2 servers") && err.contains("give the real name"));
        assert!(!err.contains(VALUE) && !err.contains(OTHER));
        assert!(by_name.ambiguous([real.as_str(), other.as_str()]).is_none());
    }
}
