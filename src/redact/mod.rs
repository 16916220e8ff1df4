//! Redaction: one redactor for every output. `report` (Markdown and JSON) redacts
//! secrets, home folders, user names and private hosts; `scan`, `explain`, `settings` and
//! `fix` diffs redact secrets ([`Redactor::secrets_only`], [`output`]). Every replacement
//! is visible: secrets become `[REDACTED:<kind>]`, the home folder `~`, the user name
//! `<user>`.
//!
//! How a text is redacted:
//! 1. it is read in every encoding a secret may hide in ([`views`]): as written,
//!    JSON-unescaped (`\u0041`, `\/`, twice for JSON inside JSON), URL-decoded (`%3A`),
//!    and with line breaks inside a token removed (a token split across two lines);
//! 2. in each view, the finders mark byte ranges, mapped back to the original text:
//!    the secret patterns ([`secrets::RULES`], behind an anchor prefilter, so they cost
//!    almost nothing on text with no secret-looking literal), private hosts (`report`),
//!    secrets learned from other texts (in their encoded-folder form: a token in a `cwd`
//!    reappears with `_` turned into `-` in the project folder's name), the known home
//!    folders in every form, any home of a known user, and the bare user names;
//! 3. overlapping secret ranges are merged (the most specific rule names the kind);
//!    home and user ranges count only outside secrets, since a secret may contain the user
//!    name (`alice@example.com`) and must go whole;
//! 4. each range is replaced in one pass; a line break inside a range is kept, so a
//!    diff or a PEM block keeps its lines.
//!
//! Build one with [`RedactorBuilder`]: give it the homes and user names known from the
//! machine, then let it [`RedactorBuilder::learn`] from every text to be redacted, so a
//! user name seen only in a copied log (`C:\Users\bob` in a `cwd`) is redacted
//! everywhere, bare mentions included.

pub mod configured;
pub mod diff;
mod home;
pub mod output;
pub mod pretty;
pub mod secrets;
pub mod views;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::Regex;

use crate::text::recent::Recent;
pub use home::{home_forms, user_names_in};
use secrets::Found;

/// What the redactor writes in place of what it hides (a home folder's `~` aside).
static MARKER: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(r"\[REDACTED:[a-z0-9-]+\]|<user>|<private-host>").expect("marker regex")
});

/// Bare user names shorter than this are not replaced on their own (a two-letter name
/// would eat ordinary words); they are still replaced inside home paths.
const MIN_BARE_USER_LEN: usize = 3;
/// Learned secret values shorter than this are not replaced as literals elsewhere.
const MIN_LEARNED_SECRET_LEN: usize = 8;

/// The words the secret rules find a value by (`password`, `passphrase`...), and the
/// states [`secrets::NOT_A_PASSWORD`] holds: a value that is one of them is hidden where
/// a rule finds it, never learned to be hidden everywhere (it would take the labels).
const LABEL_WORDS: &[&str] = &[
    "password",
    "passwords",
    "passphrase",
    "credential",
    "credentials",
    "creds",
    "privatekey",
    "private_key",
    "secretkey",
    "secret_key",
    "accesstoken",
    "access_token",
    "authtoken",
    "auth_token",
    "client_secret",
];

/// Whether `value` is one of [`LABEL_WORDS`] or a state of [`secrets::NOT_A_PASSWORD`],
/// case aside.
fn is_label_word(value: &str) -> bool {
    let v = value.to_ascii_lowercase();
    LABEL_WORDS.contains(&v.as_str()) || secrets::is_a_state(&v)
}

/// A learned value of several words (a configured passphrase) this long at most gives
/// its first words as literals of their own, hidden only at a line's end
/// ([`first_words`]): a line cut before redaction (a server's stderr is bounded at a
/// word before it is redacted) showed them (helper-92 #3).
const MAX_FIRST_WORDS_VALUE: usize = 256;
/// Of those, the first words at least this long are hidden (shorter ones are common
/// words ending many lines).
const MIN_FIRST_WORDS: usize = 4;

/// The first words of `v`, each run of them that is at least [`MIN_FIRST_WORDS`] long
/// and is not the whole value: `correct`, `correct horse`, `correct horse battery` of
/// `correct horse battery staple`. None for a value of one word or over
/// [`MAX_FIRST_WORDS_VALUE`] bytes.
fn first_words(v: &str) -> Vec<&str> {
    if v.len() > MAX_FIRST_WORDS_VALUE {
        return Vec::new();
    }
    let trimmed = v.trim_end();
    trimmed
        .char_indices()
        .filter(|&(i, c)| {
            c.is_whitespace() && i > 0 && !trimmed[..i].ends_with(char::is_whitespace)
        })
        .map(|(i, _)| &trimmed[..i])
        .filter(|p| p.trim_start().chars().count() >= MIN_FIRST_WORDS)
        .collect()
}

/// The last words of `v`, each run of them that is at least [`MIN_FIRST_WORDS`] long
/// and is not the whole value: `staple`, `battery staple`, `horse battery staple` of
/// `correct horse battery staple`, hidden only at a line's start: a value a server wrote
/// across two stderr records (a pipe read's boundary) or two lines ends the second one's
/// first words (helper-100 #2: the first half hidden, the rest shown). None for a value
/// of one word or over [`MAX_FIRST_WORDS_VALUE`] bytes.
fn last_words(v: &str) -> Vec<&str> {
    if v.len() > MAX_FIRST_WORDS_VALUE {
        return Vec::new();
    }
    let trimmed = v.trim_start();
    trimmed
        .char_indices()
        .filter(|&(i, c)| {
            c.is_whitespace()
                && trimmed[i + c.len_utf8()..]
                    .chars()
                    .next()
                    .is_some_and(|n| !n.is_whitespace())
        })
        .map(|(i, c)| &trimmed[i + c.len_utf8()..])
        .filter(|p| p.trim_end().chars().count() >= MIN_FIRST_WORDS)
        .collect()
}

/// Where a learned literal counts as the secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    /// Anywhere: a value learned whole.
    Anywhere,
    /// At a line's end only: the first words of a value of several words.
    LineEnd,
    /// At a line's start only (after its indentation): its last words.
    LineStart,
}

#[derive(Debug, Default, Clone)]
pub struct RedactorBuilder {
    homes: Vec<String>,
    /// Every form of every home, longest first (made again when a home is added, not
    /// for every text learned from).
    home_forms: Vec<String>,
    /// Finds any of `home_forms` in one pass: most texts learned from hold no home, and
    /// looking for each form in turn was a quarter of `report`'s learning.
    home_finder: Option<AhoCorasick>,
    users: Vec<String>,
    learned_secrets: Vec<(String, &'static str)>,
    /// The values of `learned_secrets`, to tell a value learned before in one look (a
    /// paste of 16,000 tokens compared each new one with every one before).
    learned_values: std::collections::HashSet<String>,
    mask_hosts: bool,
}
impl RedactorBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Also mask private hostnames and RFC 1918 addresses (`report`, unless
    /// `--keep-hosts`).
    pub fn mask_hosts(mut self, on: bool) -> Self {
        self.mask_hosts = on;
        self
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
        self.home_forms = self.homes.iter().flat_map(|h| home_forms(h)).collect();
        self.home_forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        // (the crate's choice of automaton, with its SIMD prefilter: a few short paths, not
        // the long learned values a DFA's build is quadratic in)
        self.home_finder = AhoCorasick::new(&self.home_forms).ok();
        for u in home::user_names_in_home(path) {
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
    ///
    /// Returns whether the secret rules found anything in the text: when they did not,
    /// [`Redactor::redacted_rules_clean`] redacts it without running them again.
    pub fn learn(&mut self, text: &str) -> bool {
        // Known homes first, so `/tmp/x/home/project` under a home `/tmp/x/home` does
        // not read as the home of a user called "project".
        let mut scrubbed = std::borrow::Cow::Borrowed(text);
        // (no form in the text: none is replaced, so none can appear)
        let any_home = match &self.home_finder {
            Some(finder) => finder.is_match(text),
            None => !self.home_forms.is_empty(),
        };
        if any_home {
            for f in &self.home_forms {
                if scrubbed.contains(f.as_str()) {
                    scrubbed = scrubbed.replace(f.as_str(), "~").into();
                }
            }
        }
        match scrubbed {
            // No home in it: the views the user names are read from are the secrets'.
            std::borrow::Cow::Borrowed(_) => {
                let (views, hits) = views_and_hits(text);
                self.learn_users_in(&views);
                self.learn_found(text, &views, &hits);
                hits.iter().any(|h| !h.is_empty())
            }
            std::borrow::Cow::Owned(scrubbed) => {
                self.learn_users_in(&views::views(&scrubbed));
                self.learn_secrets(text)
            }
        }
    }

    /// The user names in a text's views (in every encoding: `%2FUsers%2Fjane.doe` names
    /// a user too).
    fn learn_users_in(&mut self, views: &[views::View]) {
        for view in views {
            for u in user_names_in(&view.text) {
                self.add_user(&u);
            }
        }
    }

    /// Learns only the secrets `text` holds (see [`Redactor::secrets_only`]).
    /// Returns whether any rule found anything in the text: when none did, a
    /// [`Redactor::rules_only`] leaves the text as it is.
    pub fn learn_secrets(&mut self, text: &str) -> bool {
        if known_clean(text) {
            return false;
        }
        let (views, hits) = views_and_hits(text);
        self.learn_found(text, &views, &hits);
        hits.iter().any(|h| !h.is_empty())
    }

    /// [`Self::learn_secrets`], given the text's views and the rules' hits in each.
    fn learn_found(&mut self, text: &str, views: &[views::View], hits: &[Vec<Found>]) {
        let mut found: Vec<(String, &'static str)> = Vec::new();
        for (view, hits) in views.iter().zip(hits) {
            for f in hits.iter().copied() {
                found.push((view.text[f.start..f.end].to_string(), f.kind));
                let (s, e) = view.to_original(f.start, f.end);
                found.push((text[s..e].to_string(), f.kind));
            }
        }
        // A secret split over lines is learned line by line: each piece may turn up
        // alone in another text (a pasted line, a field of its own).
        let pieces = found.into_iter().flat_map(|(value, kind)| {
            let lines: Vec<String> = value.lines().map(|l| l.trim().to_string()).collect();
            lines.into_iter().map(move |l| (l, kind))
        });
        for (value, kind) in pieces {
            // a label's own word or a state (`--password password`, `password:
            // password`): hidden where the rule found it, never learned, or every
            // `password` of the text went (helper-89 #10: `--[REDACTED:secret]`)
            if is_label_word(&value) {
                continue;
            }
            let encoded = crate::claude_code::names::encode_folder_name(&value);
            for v in [value, encoded] {
                if v.len() >= MIN_LEARNED_SECRET_LEN {
                    self.add_learned(v, kind);
                }
            }
        }
    }

    /// A builder that knows this one's homes and nothing learned: to learn a share of
    /// the texts, then [`Self::merge_learned`] back (learning reads the homes, never
    /// what was learned before).
    pub fn learner(&self) -> RedactorBuilder {
        RedactorBuilder {
            homes: self.homes.clone(),
            home_forms: self.home_forms.clone(),
            home_finder: self.home_finder.clone(),
            ..RedactorBuilder::default()
        }
    }

    /// Adds what `other` learned, in its order, as if its texts had been learned here
    /// after this builder's: builders that learned parts of a list in parallel, merged
    /// in the list's order, equal one that learned the whole list in turn.
    pub fn merge_learned(&mut self, other: RedactorBuilder) {
        for u in &other.users {
            self.add_user(u);
        }
        for (v, kind) in other.learned_secrets {
            self.add_learned(v, kind);
        }
    }

    /// Learns the secret value `v` of `kind`, unless it was learned before (the first
    /// kind stays).
    fn add_learned(&mut self, v: String, kind: &'static str) {
        if !self.learned_values.contains(&v) {
            self.learned_values.insert(v.clone());
            self.learned_secrets.push((v, kind));
        }
    }

    pub fn build(self) -> Redactor {
        // each value whole, then the first words of those of several words, hidden only
        // at a line's end ([`first_words`]), and their last words, only at a line's
        // start ([`last_words`]); a value learned whole is never one
        let mut literal_secrets: Vec<(String, &'static str, Place)> = Vec::new();
        for (v, kind) in &self.learned_secrets {
            let parts = first_words(v)
                .into_iter()
                .map(|p| (p, Place::LineEnd))
                .chain(last_words(v).into_iter().map(|p| (p, Place::LineStart)));
            for (p, place) in parts {
                if !self.learned_values.contains(p) {
                    literal_secrets.push((p.to_string(), kind, place));
                }
            }
        }
        literal_secrets.sort();
        literal_secrets.dedup_by(|a, b| a.0 == b.0);
        literal_secrets.extend(
            self.learned_secrets
                .into_iter()
                .map(|(v, k)| (v, k, Place::Anywhere)),
        );
        literal_secrets.sort_by_key(|(s, _, _)| std::cmp::Reverse(s.len()));
        let literals = (!literal_secrets.is_empty()).then(|| {
            // A contiguous NFA, never a DFA: a DFA's build follows each state's failure
            // chain for every byte class, quadratic in a long periodic value (a line of
            // 64 KiB repeating `-----BEGIN PRIVATE KEY----- MIIE… `, learned whole as a
            // private key, took 15 to 50 s); the NFA is built and searched in linear time.
            let ac = AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .kind(Some(AhoCorasickKind::ContiguousNFA))
                .build(literal_secrets.iter().map(|(s, _, _)| s))
                .expect("literals compile");
            (
                ac,
                literal_secrets
                    .iter()
                    .map(|&(_, k, place)| (k, place))
                    .collect(),
            )
        });

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
            mask_hosts: self.mask_hosts,
            literals,
            homes,
            user_homes,
            bare_users,
        }
    }
}

/// What a range is replaced by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Secret(&'static str),
    Home,
    User,
}

#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    class: Class,
    /// Lower wins when secret ranges overlap.
    rank: usize,
}

/// Applies the redaction rules (see the module documentation).
#[derive(Debug, Clone)]
pub struct Redactor {
    enabled: bool,
    mask_hosts: bool,
    /// Learned secrets, and the kind of each pattern, and where it counts (the first
    /// or last words of one only at a line's end or start).
    literals: Option<(AhoCorasick, Vec<(&'static str, Place)>)>,
    homes: Option<Regex>,
    user_homes: Option<Regex>,
    bare_users: Option<Regex>,
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

impl Redactor {
    /// A redactor that changes nothing (`--no-redact`).
    pub fn disabled() -> Self {
        Redactor {
            enabled: false,
            mask_hosts: false,
            literals: None,
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

    /// `Redactor::secrets_only([text]).redact(text)`, with the text's views made and the
    /// rules run over them once, not once to learn and again to redact (the last pass
    /// over a whole rendered screen, which no other work waits beside).
    pub fn redact_own_secrets(text: &str) -> String {
        if text.is_empty() {
            return String::new();
        }
        let (views, hits) = views_and_hits(text);
        let mut b = RedactorBuilder::new();
        b.learn_found(text, &views, &hits);
        b.build()
            .redacted_with(text, &views, hits)
            .unwrap_or_else(|| text.to_string())
    }

    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Whether only the secret rules can change a text: nothing learned, no home, no user
    /// name, no host mask. Such a redactor leaves a text unchanged when the rules found
    /// nothing in it (what [`RedactorBuilder::learn_secrets`] tells).
    pub fn rules_only(&self) -> bool {
        !self.mask_hosts
            && self.literals.is_none()
            && self.homes.is_none()
            && self.user_homes.is_none()
            && self.bare_users.is_none()
    }

    /// The ranges of `view` (a decoded view of `text`) to replace, in `text`'s offsets.
    /// `found` holds what the secret rules find in the view (see [`views_and_hits`]).
    fn find(&self, text: &str, view: &views::View, mut found: Vec<Found>, out: &mut Vec<Span>) {
        let t: &str = &view.text;
        if self.mask_hosts {
            let base = secrets::RULES.len();
            let mut hosts = Vec::new();
            secrets::HOSTS.find(t, &mut hosts);
            found.extend(hosts.into_iter().map(|f| Found {
                rule: base + f.rule,
                ..f
            }));
        }
        self.find_literals(text, view, out);
        let mut push = |s: usize, e: usize, class: Class, rank: usize| {
            let (os, oe) = view.to_original(s, e);
            if os < oe && text.is_char_boundary(os) && text.is_char_boundary(oe) {
                out.push(Span {
                    start: os,
                    end: oe,
                    class,
                    rank,
                });
            }
        };
        for f in found {
            push(f.start, f.end, Class::Secret(f.kind), f.rule);
        }
        let bounded = |re: &Regex, check_before: bool, class: Class| {
            let mut v = Vec::new();
            for m in re.find_iter(t) {
                let after = t[m.end()..].chars().next().is_some_and(is_word);
                let before =
                    check_before && t[..m.start()].chars().next_back().is_some_and(is_word);
                if !(after || before) {
                    v.push((m.start(), m.end(), class));
                }
            }
            v
        };
        let mut others = Vec::new();
        if let Some(re) = &self.homes {
            others.extend(bounded(re, false, Class::Home));
        }
        if let Some(re) = &self.user_homes {
            // a user's home starts a path: `/tmp/run/home/work/proj` holds none
            others.extend(
                bounded(re, false, Class::Home)
                    .into_iter()
                    .filter(|(s, _, _)| home::starts_a_path(t, *s)),
            );
        }
        if let Some(re) = &self.bare_users {
            others.extend(bounded(re, true, Class::User));
        }
        for (s, e, class) in others {
            push(s, e, class, usize::MAX);
        }
    }

    /// The learned secrets in `view` (a decoded view of `text`), in `text`'s offsets.
    fn find_literals(&self, text: &str, view: &views::View, out: &mut Vec<Span>) {
        let Some((ac, kinds)) = &self.literals else {
            return;
        };
        let t: &str = &view.text;
        // Whether a line break of `text` was left out of the view at `p` (a view that
        // joins lines): a word does not go on across it.
        let joined_at = |p: usize| {
            let (a, b) = view.removed_at(p);
            text.as_bytes()
                .get(a..b)
                .is_some_and(|r| r.contains(&b'\n'))
        };
        // Where the last span taken ends, in the view: a match inside it is taken, and
        // a word is widened only up to it, so each byte is looked at a bounded number
        // of times (a line of one repeated value is not scanned again for every match).
        let mut taken = 0;
        let mut from = 0;
        while let Some(m) = ac.find(aho_corasick::Input::new(t).span(from..t.len())) {
            from = m.end();
            if m.end() <= taken {
                continue;
            }
            let (kind, place) = kinds[m.pattern().as_usize()];
            // a value's first words, not at a line's end or inside a word, or its last
            // words, not at a line's start or inside a word: not it; another value may
            // start inside them
            let word_before = t[..m.start()].chars().next_back().is_some_and(is_word);
            let misplaced = match place {
                Place::Anywhere => false,
                Place::LineEnd => {
                    (!matches!(t.as_bytes().get(m.end()), None | Some(b'\n' | b'\r'))
                        && !joined_at(m.end()))
                        || word_before
                }
                Place::LineStart => {
                    let indent = t[..m.start()].trim_end_matches([' ', '\t']).len();
                    !(indent == 0 || t.as_bytes()[indent - 1] == b'\n' || joined_at(indent))
                        || t[m.end()..].chars().next().is_some_and(is_word)
                }
            };
            if misplaced {
                from = m.start() + t[m.start()..].chars().next().map_or(1, char::len_utf8);
                continue;
            }
            // A learned value found inside a longer word takes the whole word: cut
            // out of its middle, it would leave word pieces that read differently
            // next to the marker (`x[REDACTED]Bearer y` is a bearer token to the
            // next pass), and a word that holds a secret is no better shown. A word
            // ends where a line break was removed: the next line's word is another.
            let mut start = m.start();
            for (i, c) in t[taken.min(m.start())..m.start()].char_indices().rev() {
                if !is_word(c) || joined_at(start) {
                    break;
                }
                start = taken.min(m.start()) + i;
            }
            let mut end = m.end();
            for c in t[m.end()..].chars() {
                if !is_word(c) || joined_at(end) {
                    break;
                }
                end += c.len_utf8();
            }
            taken = end;
            let (os, oe) = view.to_original(start, end);
            if os < oe && text.is_char_boundary(os) && text.is_char_boundary(oe) {
                out.push(Span {
                    start: os,
                    end: oe,
                    class: Class::Secret(kind),
                    rank: usize::MAX / 2,
                });
            }
        }
    }

    /// The text with every secret (and, as built, home folder, user name and private
    /// host) replaced.
    pub fn redact(&self, text: &str) -> String {
        self.redacted(text).unwrap_or_else(|| text.to_string())
    }

    /// [`Self::redact`], `None` when nothing is replaced (no copy made).
    pub fn redacted(&self, text: &str) -> Option<String> {
        if !self.enabled || text.is_empty() {
            return None;
        }
        // A redactor of the rules alone leaves a text they find nothing in as it is.
        if self.rules_only() && known_clean(text) {
            return None;
        }
        let (views, hits) = views_and_hits(text);
        self.redacted_with(text, &views, hits)
    }

    /// [`Self::redacted`] of `text`, given its views and the rules' hits in each.
    fn redacted_with(
        &self,
        text: &str,
        views: &[views::View],
        hits: Vec<Vec<Found>>,
    ) -> Option<String> {
        let mut spans = Vec::new();
        for (view, found) in views.iter().zip(hits) {
            self.find(text, view, found, &mut spans);
            // A learned value broken across a line end (a configured key a server echoed
            // over two lines of one record) is found with every line break removed.
            if self.literals.is_some()
                && let Some(joined) = view.lines_joined()
            {
                self.find_literals(text, &joined, &mut spans);
            }
        }
        if spans.is_empty() {
            return None;
        }
        // A marker an earlier pass wrote is left as it is: a learned value or a user
        // name can be a word of it (`[REDACTED:authorization]`, `<user>`), and
        // replacing that would make a second pass change what the first wrote.
        let markers: Vec<(usize, usize)> = MARKER
            .find_iter(text)
            .map(|m| (m.start(), m.end()))
            .collect();
        // (The markers are in order and disjoint: the one a span could lie in is the
        // last that starts at or before it.)
        spans.retain(|s| {
            let i = markers.partition_point(|&(ms, _)| ms <= s.start);
            i.checked_sub(1).is_none_or(|i| s.end > markers[i].1)
        });
        if spans.is_empty() {
            return None;
        }
        whole_bearer_params(text, views, &mut spans);
        let chosen = choose(spans);
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for s in chosen {
            out.push_str(&text[at..s.start]);
            // A home opening a single-quoted word (`'/home/ana/my dir/x'`, a printed
            // command's) becomes `~/'my dir/x'`: `~` inside the quotes is no home to the
            // shell (helper-83 #5: a report's `python3 '~/bin/stub.py'` ran nothing).
            if s.class == Class::Home && out.ends_with('\'') && text[s.end..].starts_with('/') {
                out.pop();
                out.push_str("~/'");
                at = s.end + 1;
                continue;
            }
            let with = match s.class {
                Class::Secret(kind) => format!("[REDACTED:{kind}]"),
                Class::Home => "~".to_string(),
                Class::User => "<user>".to_string(),
            };
            // Keep line breaks (`\r\n` as written), so a diff or a PEM block keeps its
            // lines.
            let mut segs = text[s.start..s.end].split('\n').peekable();
            while let Some(seg) = segs.next() {
                let last = segs.peek().is_none();
                let (body, cr) = match seg.strip_suffix('\r') {
                    Some(body) if !last => (body, true),
                    _ => (seg, false),
                };
                if !body.trim().is_empty() {
                    out.push_str(&with);
                }
                if cr {
                    out.push('\r');
                }
                if !last {
                    out.push('\n');
                }
            }
            at = s.end;
        }
        out.push_str(&text[at..]);
        Some(out)
    }

    /// [`Self::redacted`] of a text the secret rules are known to find nothing in (what
    /// [`RedactorBuilder::learn`] said of it): its views are searched for what was
    /// learned, homes and user names, without running the rules a second time.
    pub fn redacted_rules_clean(&self, text: &str) -> Option<String> {
        if !self.enabled || text.is_empty() {
            return None;
        }
        let views = views::views(text);
        let hits = vec![Vec::new(); views.len()];
        self.redacted_with(text, &views, hits)
    }

    /// Redacts `parts` (the records of one stream: a server's stderr) as one text, the
    /// parts joined by line breaks, then gives each part its own redacted lines back:
    /// a secret that spans two parts (a PEM key's BEGIN line in one record and its body
    /// in the next, a token broken across two records) is found whole, and each part
    /// keeps its line count (redaction keeps every line break, see the module
    /// documentation). Any cut for a view comes after this.
    pub fn apply_joined(&self, parts: &mut [String]) {
        if !self.enabled || parts.is_empty() {
            return;
        }
        let joined = parts.join("\n");
        let Some(red) = self.redacted(&joined) else {
            return;
        };
        let mut lines = red.split('\n');
        for p in parts.iter_mut() {
            let n = p.bytes().filter(|&b| b == b'\n').count() + 1;
            let mut out = String::with_capacity(p.len());
            for i in 0..n {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(lines.next().unwrap_or_default());
            }
            *p = out;
        }
    }

    /// Redacts in place.
    pub fn apply(&self, text: &mut String) {
        if let Some(r) = self.redacted(text) {
            *text = r;
        }
    }
}

thread_local! {
    /// Texts seen last in which the secret rules found nothing (a server's name, a JSON
    /// key, the same error in server after server): nothing to learn from them, and
    /// nothing in them for the rules alone to hide.
    static CLEAN: std::cell::RefCell<Recent<()>> = std::cell::RefCell::new(Recent::default());
}

/// Whether `text` is one of the texts seen last in which the secret rules found nothing.
fn known_clean(text: &str) -> bool {
    CLEAN.with(|c| c.borrow().get(text).is_some())
}

/// A text's views, and what the secret rules find in each (a text they find nothing in
/// is remembered as clean).
fn views_and_hits(text: &str) -> (Vec<views::View<'_>>, Vec<Vec<Found>>) {
    let views = views::views(text);
    let find = |v: &views::View<'_>| {
        let mut found = Vec::new();
        secrets::SECRETS.find(&v.text, &mut found);
        end_at_labelled_lines(v, &mut found);
        found
    };
    // A long text (a whole rendered screen) has its views searched in parallel too.
    let hits: Vec<Vec<Found>> = if text.len() >= secrets::PARALLEL_TEXT_BYTES {
        use rayon::prelude::*;
        views.par_iter().map(find).collect()
    } else {
        views.iter().map(find).collect()
    };
    if hits.iter().all(Vec::is_empty) {
        CLEAN.with(|c| c.borrow_mut().insert(text, ()));
    }
    (views, hits)
}

/// The longest label [`end_at_labelled_lines`] looks back over from its colon.
const MAX_LABEL_LEN: usize = 48;

/// A secret found in a view that joined lines goes on across a removed line break only
/// into the rest of a token: where the line after the break starts with a label (a word
/// of letters, then a colon, then white space or the text's end: `Error: ...`,
/// `warning:`) and the secret would take that colon, it ends at the break. No token
/// holds a colon followed by a space, and a value would only run on through one because
/// the rule's value (`KEY=value`, a cookie) ends at white space, not at the end of the
/// token: so `PASSWORD=x` and `Error: something` on the next line are two lines of text,
/// and only `x` is the value. A token's own rule stops at the colon and is left whole
/// (`ghp_abcdefghij` and `klmnopqrstuvwxyz: expired` on the next: the whole token).
fn end_at_labelled_lines(view: &views::View, found: &mut Vec<Found>) {
    let t = view.text.as_bytes();
    for f in found.iter_mut() {
        let mut c = f.start;
        while let Some(off) = memchr::memchr(b':', &t[c..f.end]) {
            c += off;
            let ends_label = t.get(c + 1).is_none_or(|b| b.is_ascii_whitespace());
            // The label's first letter, right after a removed line break.
            let label_start = (1..=MAX_LABEL_LEN.min(c - f.start))
                .map(|n| c - n)
                .take_while(|&q| t[q].is_ascii_alphabetic())
                .find(|&q| {
                    q >= f.start && {
                        let (a, b) = view.removed_at(q);
                        a < b
                    }
                });
            if ends_label && let Some(q) = label_start {
                cut_at_break(view, f, q);
                break;
            }
            c += 1;
        }
    }
    // A value that runs on past a removed break into a word of the next line (`next`,
    // `Content-Type:`, `listening`: letters, each piece capitalised at most) ends at the
    // break: that line starts with words (helper-79 M2: `PASSWORD=x` then `echo done`
    // on the next line hid `echo`). Only a value a pair's key, a header or `Bearer` names: a
    // token of a shape of its own (`ghp_...`) broken there is taken whole as before.
    for f in found.iter_mut() {
        if !VALUE_KINDS.contains(&f.kind) {
            continue;
        }
        let last = f.end.min(f.start + MAX_WRAPPED_VALUE);
        let Some(q) = (f.start + 1..last).find(|&q| {
            let (a, b) = view.removed_at(q);
            a < b
        }) else {
            continue;
        };
        // (a word alone on its line may be the rest of the value, `Xk9aB2m` then
        // `Qwerty`: only a word that more words follow, or a label, starts a line of
        // text; helper-82 B4)
        let next = NextLine::of(view, q, f.end);
        if reads_as_words(next.word) && (next.word.ends_with(':') || next.label || next.more_words)
        {
            cut_at_break(view, f, q);
        }
    }
    // A token of a shape of its own (a JWT, `ghp_...`, an e-mail address) that runs on
    // past a removed break into a word of the next line ends at the break too, when the
    // token before the break is whole (its rule hides it alone) and more words or a
    // label follow that word, or it is a word of [`MIN_WORD_AFTER_TOKEN`] letters or
    // more alone (`Killed`): `token eyJ...` and `fatal: cannot reach db` on the next
    // line hid `fatal` (helper-92). A generated token's rest is that only by chance. One
    // too short for its rule before the break is a token a wrap cut, and goes whole
    // (`ghp_abcdefghij` and `klmnopqrstuvwxyz: expired` on the next line), as does a
    // rest of a few letters alone (`xyz`).
    for f in found.iter_mut() {
        if VALUE_KINDS.contains(&f.kind) {
            continue;
        }
        // (the break in the run of word bytes the token ends with: the first, so the
        // next line's word is all that is after it)
        let low = f.start + 1;
        let mut q = None;
        let mut p = f.end;
        while p > low
            && f.end - p < MAX_WRAPPED_VALUE
            && (t[p - 1].is_ascii_alphabetic() || matches!(t[p - 1], b'-' | b'_'))
        {
            p -= 1;
            let (a, b) = view.removed_at(p);
            if a < b {
                q = Some(p);
            }
        }
        let Some(q) = q else {
            continue;
        };
        let next = NextLine::of(view, q, f.end);
        if reads_as_words(next.word)
            && (next.label || next.more_words || next.word.len() >= MIN_WORD_AFTER_TOKEN)
            && secrets::hides_cut_value(f.rule, &view.text, f.start, q)
        {
            f.end = q;
        }
    }
    // a value that was all label (`API_TOKEN=` ending its line, `fix:` starting the
    // next) is no value
    found.retain(|f| f.end > f.start);
}

/// What a secret found in a joining view ran on into after the removed line break at
/// `q` ([`end_at_labelled_lines`]): the next line's first word (up to the secret's end)
/// and what follows it on that line.
struct NextLine<'a> {
    word: &'a str,
    /// A label's colon right after the word.
    label: bool,
    /// More words after it on the line.
    more_words: bool,
}

impl<'a> NextLine<'a> {
    fn of(view: &'a views::View, q: usize, end: usize) -> Self {
        let rest_of_line = view.text[end..].split('\n').next().unwrap_or_default();
        NextLine {
            word: &view.text[q..end],
            label: rest_of_line.starts_with(':'),
            more_words: rest_of_line.starts_with([' ', '\t']) && !rest_of_line.trim().is_empty(),
        }
    }
}

/// The fewest letters of a word alone on the line after a whole token that
/// [`end_at_labelled_lines`] takes for a word, not the token's rest.
const MIN_WORD_AFTER_TOKEN: usize = 4;

/// The kinds of the rules that hide a value a key, a header or `Bearer` names, which
/// [`end_at_labelled_lines`] ends at a line's words after its first removed break; every
/// other rule's is a token of a shape of its own.
const VALUE_KINDS: &[&str] = &[
    "secret",
    "authorization",
    "cookie",
    "bearer-token",
    "session-id",
];

/// Ends a secret found in a joining view at the removed line break `q`, and drops it
/// when its rule, reading the value as its line holds it, keeps it: the value judged
/// was the joined one (`password: required` then `for login` read `requiredfor`).
fn cut_at_break(view: &views::View, f: &mut Found, q: usize) {
    f.end = if secrets::hides_cut_value(f.rule, &view.text, f.start, q) {
        q
    } else {
        f.start
    };
}

/// How far into a value [`end_at_labelled_lines`] looks for a removed line break.
const MAX_WRAPPED_VALUE: usize = 256;

/// Whether `s` is words as a line starts with them: letters in pieces joined by `-` or
/// `_`, each piece a letter then lower-case letters, perhaps a colon at the end.
fn reads_as_words(s: &str) -> bool {
    let s = s.strip_suffix(':').unwrap_or(s);
    !s.is_empty()
        && s.split(['-', '_']).all(|piece| {
            let mut b = piece.bytes();
            b.next().is_some_and(|c| c.is_ascii_alphabetic()) && b.all(|c| c.is_ascii_lowercase())
        })
}

/// What follows `Bearer` goes whole or not at all: a `Bearer name=value` parameter the
/// bearer rule left (an auth-param list, not a token) is taken whole, as a bearer token,
/// when another range starts inside its name or at its `=` (a learned value that is the
/// name's end, a token inside it). Else the name's first piece would be left beside a
/// marker, which the next pass reads as a bearer token.
fn whole_bearer_params(text: &str, views: &[views::View], spans: &mut Vec<Span>) {
    let mut params: Vec<(usize, usize, usize)> = Vec::new();
    for view in views {
        for p in secrets::kept_bearer_params(&view.text) {
            let (start, end) = view.to_original(p.start, p.end);
            let (_, eq_end) = view.to_original(p.start, p.eq + 1);
            if start < end && text.is_char_boundary(start) && text.is_char_boundary(end) {
                params.push((start, eq_end, end));
            }
        }
    }
    let rank = secrets::bearer_rule();
    // Taking one whole may cut into another (a parameter read in two views): again
    // until nothing changes, each taken once.
    let mut taken = vec![false; params.len()];
    loop {
        let mut changed = false;
        for (i, &(start, eq_end, end)) in params.iter().enumerate() {
            let cut = spans
                .iter()
                .any(|s| s.start < eq_end && s.end > start && !(s.start <= start && s.end >= end));
            if !taken[i] && cut {
                taken[i] = true;
                changed = true;
                spans.push(Span {
                    start,
                    end,
                    class: Class::Secret("bearer-token"),
                    rank,
                });
            }
        }
        if !changed {
            break;
        }
    }
}

/// The ranges to replace, sorted and disjoint: secrets merged where they overlap (the
/// lowest rank names the kind); homes and users only where no secret is, longest first.
fn choose(mut spans: Vec<Span>) -> Vec<Span> {
    let (mut secrets, mut others): (Vec<Span>, Vec<Span>) = spans
        .drain(..)
        .partition(|s| matches!(s.class, Class::Secret(_)));
    secrets.sort_by_key(|s| (s.start, s.rank));
    let mut merged: Vec<Span> = Vec::new();
    for s in secrets {
        match merged.last_mut() {
            Some(m) if s.start < m.end => {
                m.end = m.end.max(s.end);
                if s.rank < m.rank {
                    m.rank = s.rank;
                    m.class = s.class;
                }
            }
            _ => merged.push(s),
        }
    }
    // Homes before user names, longer before shorter, then by position.
    others.sort_by_key(|s| {
        (
            s.class != Class::Home,
            std::cmp::Reverse(s.end - s.start),
            s.start,
        )
    });
    // The ranges taken, by start (disjoint, so their ends are in order too: the only
    // one a new range can overlap first is the last that starts before its end).
    let mut taken: std::collections::BTreeMap<usize, Span> =
        merged.into_iter().map(|s| (s.start, s)).collect();
    for o in others {
        let free = taken
            .range(..o.end)
            .next_back()
            .is_none_or(|(_, t)| t.end <= o.start);
        if free {
            taken.insert(o.start, o);
        }
    }
    taken.into_values().collect()
}

/// One case-insensitive regex matching any of `parts` (in order), or none when empty.
fn alternation(parts: impl Iterator<Item = String>) -> Option<Regex> {
    let parts: Vec<String> = parts.collect();
    if parts.is_empty() {
        return None;
    }
    Some(Regex::new(&format!("(?i)(?:{})", parts.join("|"))).expect("alternation compiles"))
}

#[cfg(test)]
mod tests;
