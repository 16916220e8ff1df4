//! Redaction for text that leaves the machine (`mcplogs report`), and, secrets only,
//! for the log text `scan` and `explain` print ([`Redactor::secrets_only`], applied by `scan::redact_report` and `explain::redact_report`). Every replacement is
//! visible: secrets become `[REDACTED:<kind>]`, the home folder `~`, the user name
//! `<user>`.
//!
//! Order matters, and is always:
//! 1. secret patterns ([`secrets::RULES`]): URL credentials, `Authorization:` values,
//!    `Bearer` tokens, provider keys and tokens, secret-looking `KEY=value` /
//!    `"KEY": "value"` / `KEY: value` pairs, e-mail addresses. They run first because a
//!    secret may contain the user name (`alice@example.com`), and replacing the name
//!    first would leave the rest of the secret behind;
//! 2. secrets learned from other texts, in their encoded-folder form (a token in a
//!    `cwd` reappears with `_` turned into `-` in the project folder's name);
//! 3. the known home folders, every form, longest first;
//! 4. any home of a known user (`/Users/alice`, `C:\Users\alice`, `-home-alice`...);
//! 5. the bare user names.
//!
//! Build one with [`RedactorBuilder`]: give it the homes and user names known from the
//! machine, then let it [`RedactorBuilder::learn`] from every text to be redacted, so a
//! user name seen only in a copied log (`C:\Users\bob` in a `cwd`) is redacted
//! everywhere, bare mentions included.

pub mod diff;
mod home;
pub mod secrets;

use regex::Regex;

pub use home::{home_forms, user_names_in};

/// Bare user names shorter than this are not replaced on their own (a two-letter name
/// would eat ordinary words); they are still replaced inside home paths.
const MIN_BARE_USER_LEN: usize = 3;
/// Learned secret values shorter than this are not replaced as literals elsewhere.
const MIN_LEARNED_SECRET_LEN: usize = 8;

#[derive(Debug, Default, Clone)]
pub struct RedactorBuilder {
    homes: Vec<String>,
    users: Vec<String>,
    learned_secrets: Vec<(String, &'static str)>,
}

impl RedactorBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// What this machine says about its user: the homes named on the command line (and
    /// their absolute forms), `$HOME`, `%USERPROFILE%`, and the user names in `$USER`,
    /// `$USERNAME` and `$LOGNAME`. `env` reads a variable; injected for tests.
    pub fn for_machine(
        homes: &[std::path::PathBuf],
        home_dir: Option<&std::path::Path>,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Self {
        let mut b = RedactorBuilder::new();
        let mut add = |p: &std::path::Path| {
            b.add_home(&p.to_string_lossy());
            if let Ok(abs) = std::fs::canonicalize(p) {
                b.add_home(&abs.to_string_lossy());
            }
        };
        for h in homes {
            add(h);
        }
        if let Some(h) = home_dir {
            add(h);
        }
        for var in ["HOME", "USERPROFILE"] {
            if let Some(h) = env(var).filter(|v| !v.is_empty()) {
                add(std::path::Path::new(&h));
            }
        }
        for var in ["USER", "USERNAME", "LOGNAME"] {
            if let Some(u) = env(var) {
                b.add_user(&u.to_string_lossy());
            }
        }
        b
    }

    /// A home folder: redacted in every form; a user name in it is learned.
    pub fn home(mut self, path: &str) -> Self {
        self.add_home(path);
        self
    }

    pub fn add_home(&mut self, path: &str) {
        let path = path.trim_end_matches(['/', '\\']);
        if path.is_empty() || self.homes.iter().any(|h| h == path) {
            return;
        }
        self.homes.push(path.to_string());
        for u in user_names_in(path) {
            self.add_user(&u);
        }
    }

    /// A user name (`$USER`, `$USERNAME`).
    pub fn user(mut self, name: &str) -> Self {
        self.add_user(name);
        self
    }

    pub fn add_user(&mut self, name: &str) {
        let name = name.trim();
        if !name.is_empty() && !self.users.iter().any(|u| u.eq_ignore_ascii_case(name)) {
            self.users.push(name.to_string());
        }
    }

    /// Reads a text that will be redacted: learns the user names its home paths show and
    /// the secrets it holds, so their other spellings are redacted in every text.
    pub fn learn(&mut self, text: &str) {
        self.learn_users(text);
        self.learn_secrets(text);
    }

    fn learn_users(&mut self, text: &str) {
        // Known homes first, so `/tmp/x/home/project` under a home `/tmp/x/home` does
        // not read as the home of a user called "project".
        let mut scrubbed = text.to_string();
        let mut forms: Vec<String> = self.homes.iter().flat_map(|h| home_forms(h)).collect();
        forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        for f in &forms {
            if scrubbed.contains(f.as_str()) {
                scrubbed = scrubbed.replace(f.as_str(), "~");
            }
        }
        for u in user_names_in(&scrubbed) {
            self.add_user(&u);
        }
    }

    /// Learns only the secrets `text` holds (see [`Redactor::secrets_only`]).
    pub fn learn_secrets(&mut self, text: &str) {
        let mut found: Vec<(String, &'static str)> = Vec::new();
        let mut t = text.to_string();
        for rule in secrets::RULES.iter() {
            t = secrets::apply(rule, &t, &mut |s, kind| found.push((s.to_string(), kind)));
        }
        for (value, kind) in found {
            let encoded = crate::names::encode_folder_name(&value);
            for v in [value, encoded] {
                if v.len() >= MIN_LEARNED_SECRET_LEN
                    && !self.learned_secrets.iter().any(|(s, _)| *s == v)
                {
                    self.learned_secrets.push((v, kind));
                }
            }
        }
    }

    pub fn build(self) -> Redactor {
        let mut literal_secrets = self.learned_secrets;
        literal_secrets.sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));

        let mut forms: Vec<String> = self.homes.iter().flat_map(|h| home_forms(h)).collect();
        forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        forms.dedup();
        let homes = alternation(forms.iter().map(|f| regex::escape(f)));

        let users_ok: Vec<&String> = self.users.iter().filter(|u| !u.is_empty()).collect();
        let user_homes = alternation(users_ok.iter().map(|u| home::generic_home_pattern(u)));
        let mut bare: Vec<String> = users_ok
            .iter()
            .filter(|u| u.chars().count() >= MIN_BARE_USER_LEN)
            .flat_map(|u| home::user_spellings(u))
            .collect();
        bare.sort_by_key(|b| std::cmp::Reverse(b.len()));
        let bare_users = alternation(bare.iter().map(|b| regex::escape(b)));

        Redactor {
            enabled: true,
            literal_secrets,
            homes,
            user_homes,
            bare_users,
        }
    }
}

/// One case-insensitive regex matching any of `parts` (in order), or none when empty.
fn alternation(parts: impl Iterator<Item = String>) -> Option<Regex> {
    let parts: Vec<String> = parts.collect();
    if parts.is_empty() {
        return None;
    }
    Some(Regex::new(&format!("(?i)(?:{})", parts.join("|"))).expect("alternation compiles"))
}

/// Replaces every match of `re` by `with`, unless the match continues into a longer
/// word or path component (`/home/alice` in `/home/alicebob`, `alice` in `malice`).
fn replace_bounded(re: &Regex, text: &str, with: &str, check_before: bool) -> String {
    let is_word = |c: char| c.is_ascii_alphanumeric();
    re.replace_all(text, |c: &regex::Captures| {
        let m = c.get(0).expect("match");
        let after = text[m.end()..].chars().next().is_some_and(is_word);
        let before = check_before && text[..m.start()].chars().next_back().is_some_and(is_word);
        if after || before {
            m.as_str().to_string()
        } else {
            with.to_string()
        }
    })
    .into_owned()
}

/// Applies the redaction rules (see the module documentation for their order).
#[derive(Debug, Clone)]
pub struct Redactor {
    enabled: bool,
    literal_secrets: Vec<(String, &'static str)>,
    homes: Option<Regex>,
    user_homes: Option<Regex>,
    bare_users: Option<Regex>,
}

impl Redactor {
    /// A redactor that changes nothing (`--no-redact`).
    pub fn disabled() -> Self {
        Redactor {
            enabled: false,
            literal_secrets: Vec::new(),
            homes: None,
            user_homes: None,
            bare_users: None,
        }
    }

    /// Only the secret rules, and the secrets learned from `texts` in their other
    /// spellings: no home folder or user name is touched. For the text from logs that
    /// `scan` and `explain` print, where paths are the point but tokens never are.
    pub fn secrets_only<'a>(texts: impl IntoIterator<Item = &'a str>) -> Self {
        let mut b = RedactorBuilder::new();
        for t in texts {
            b.learn_secrets(t);
        }
        b.build()
    }

    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    pub fn redact(&self, text: &str) -> String {
        if !self.enabled {
            return text.to_string();
        }
        let mut t = text.to_string();
        for rule in secrets::RULES.iter() {
            t = secrets::apply(rule, &t, &mut |_, _| {});
        }
        for (secret, kind) in &self.literal_secrets {
            if t.contains(secret.as_str()) {
                t = t.replace(secret.as_str(), &format!("[REDACTED:{kind}]"));
            }
        }
        if let Some(re) = &self.homes {
            t = replace_bounded(re, &t, "~", false);
        }
        if let Some(re) = &self.user_homes {
            t = replace_bounded(re, &t, "~", false);
        }
        if let Some(re) = &self.bare_users {
            t = replace_bounded(re, &t, "<user>", true);
        }
        t
    }

    /// Redacts in place.
    pub fn apply(&self, text: &mut String) {
        if self.enabled {
            *text = self.redact(text);
        }
    }
}

#[cfg(test)]
mod tests;
