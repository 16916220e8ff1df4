//! Values from a configuration that may or may not be secrets: an MCP server's env and
//! header values (`mcplogs probe`). A configured value is learned as a secret, and then
//! hidden wherever it reappears, only where it could be one:
//!
//! - its key says so ([`key_looks_secret`]: `API_KEY`, `GITHUB_TOKEN`,
//!   `DB_PASSWORD`, `X-Auth`..., and the `Authorization` and `Proxy-Authorization`
//!   headers), unless the value is harmless ([`value_is_harmless`]: a number,
//!   a boolean) or says where something is ([`is_locator`]: `TOKEN_URL`,
//!   `GOOGLE_APPLICATION_CREDENTIALS=/path/creds.json`); a number is one under a
//!   password's, a secret's or a PIN's key ([`secret_number`]: `DB_PASSWORD=83927461`);
//! - its shape: what the secret rules find in it (`sk-live-…`, `ghp_…`, a JWT, the
//!   credentials of a URL), and only that part;
//! - its length and entropy: a long value written in a token's alphabet that reads as
//!   random ([`looks_random`]).
//!
//! Anything else (`NODE_ENV=production`, `LOG_LEVEL=debug`, `STUB_DISCOVER=modern`, a
//! path, a URL without credentials) is configuration, not a secret, and stays visible.
//! A value under a secret-looking key is learned from 4 characters on, a number from 6
//! digits, any other from the redactor's minimum for learned secrets (8); shorter ones
//! are not learned as
//! literals (masking `abc` everywhere would garble the output), and the rules still
//! hide them where they stand after their key (`PASSWORD=abc`).

use super::secrets::{holds_any_value, key_looks_secret, secret_number, value_is_harmless};
use super::{MIN_LEARNED_SECRET_LEN, RedactorBuilder};

/// The kind a learned configured value is shown as: `[REDACTED:config]`.
pub const KIND: &str = "config";

/// Headers that carry a credential although their name is not a secret-looking key.
const CREDENTIAL_HEADERS: &[&str] = &["authorization", "proxy-authorization"];

/// Shortest value under a secret-looking key (or a credential header) learned.
const MIN_KEYED_LEN: usize = 4;
/// Shortest number learned as a secret ([`secret_number`]: under a password's, a
/// secret's or a PIN's key). A number of four or five digits is a port, a year, a count
/// or a duration in a server's stderr far more often than its PIN echoed: hidden
/// everywhere, and with the word around it (`3000ms`, `2024-11-29`), it would garble
/// them; the rules still hide it after its key (`DB_PIN=4821`, `password: 4821`).
const MIN_NUMBER_LEN: usize = 6;
/// Shortest value [`looks_random`] considers.
const MIN_RANDOM_LEN: usize = 20;
/// Shortest value written in one case and digits (hex, lower-case base32) that
/// [`looks_random`] considers.
const MIN_ONE_CASE_RANDOM_LEN: usize = 32;

/// Whether the configured value `value` of `key` could be a secret by its key's name or
/// by its length and entropy (its shape is the secret rules' to judge).
pub fn could_be_secret(key: &str, value: &str) -> bool {
    let v = value.trim();
    (!value_is_harmless(v) && ((key_says_secret(key) && !is_locator(v)) || looks_random(v)))
        || secret_number(key, v)
}

/// A URL or an absolute path, in one word: where something is, not a secret itself
/// (the secret rules still find the credentials or a token inside it). A value that
/// reads as random is no locator, though base64 may start with `/`.
pub fn is_locator(v: &str) -> bool {
    let b = v.as_bytes();
    let url = v.split_once("://").is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    });
    let path = v.starts_with('/')
        || v.starts_with("~/")
        || (b.len() > 2
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'\\' | b'/'));
    (url || path) && !v.contains(char::is_whitespace) && !looks_random(v)
}

fn key_says_secret(key: &str) -> bool {
    let header = CREDENTIAL_HEADERS
        .iter()
        .any(|h| key.trim().eq_ignore_ascii_case(h));
    header || key_looks_secret(key)
}

/// A value that reads as random rather than as words: at least 20 characters of a
/// token's alphabet (letters, digits, `+ / = _ -`) that either mix lower case, upper
/// case and digits and change between them at every other character or so (base64,
/// base62 tokens), or are 32 characters or more of letters and digits in one case with
/// an entropy of at least 3.5 bits a character (hex digests, base32). `MyProject_2024`,
/// `production-eu-west-1a`, `--max-old-space-size=4096`, a path, a version or a date are
/// not; a UUID is not (its dashes).
pub fn looks_random(v: &str) -> bool {
    let n = v.chars().count();
    if n < MIN_RANDOM_LEN
        || !v
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+/=_-".contains(&b))
    {
        return false;
    }
    let has = |f: fn(&u8) -> bool| v.as_bytes().iter().any(f);
    let (lower, upper, digit) = (
        has(u8::is_ascii_lowercase),
        has(u8::is_ascii_uppercase),
        has(u8::is_ascii_digit),
    );
    if lower && upper && digit {
        return class_changes(v) * 2 >= n - 1;
    }
    let body = v.trim_end_matches('=');
    digit
        && (lower || upper)
        && !(lower && upper)
        && n >= MIN_ONE_CASE_RANDOM_LEN
        && body.bytes().all(|b| b.is_ascii_alphanumeric())
        && entropy_bits(body) >= 3.5
}

/// How many neighbouring characters differ in class (lower, upper, digit, other).
fn class_changes(v: &str) -> usize {
    let class = |b: u8| match b {
        b'a'..=b'z' => 0,
        b'A'..=b'Z' => 1,
        b'0'..=b'9' => 2,
        _ => 3,
    };
    v.as_bytes()
        .windows(2)
        .filter(|w| class(w[0]) != class(w[1]))
        .count()
}

/// Shannon entropy in bits per character.
fn entropy_bits(v: &str) -> f64 {
    let mut counts = [0usize; 256];
    for b in v.bytes() {
        counts[b as usize] += 1;
    }
    let n = v.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

impl RedactorBuilder {
    /// Learns a configured value (`key` = `value`, an env variable or a header of an MCP
    /// server) as a secret where it could be one (see the module documentation), so it
    /// is hidden in every text this redactor redacts, wherever it reappears.
    pub fn learn_configured(&mut self, key: &str, value: &str) {
        let v = value.trim();
        // Its shape: what the secret rules find in it, alone.
        self.learn_secrets(v);
        if !could_be_secret(key, v) {
            return;
        }
        let min = if v.bytes().all(|b| b.is_ascii_digit()) {
            MIN_NUMBER_LEN
        } else if key_says_secret(key) {
            MIN_KEYED_LEN
        } else {
            MIN_LEARNED_SECRET_LEN
        };
        self.learn_literal(v, min);
        // `Bearer <token>`: the token alone, as a server may echo it.
        if let Some((_, token)) = v.split_once(char::is_whitespace) {
            let token = token.trim();
            if !value_is_harmless(token) {
                self.learn_literal(token, min);
            }
        }
    }

    /// Learns every value of `secrets` ([`Self::learn_configured`]), and each of its
    /// values secret whatever their key and shape (a URL's query values and password, a
    /// cookie's values) from `MIN_LEARNED_SECRET_LEN` characters on.
    pub fn learn_configured_secrets(&mut self, secrets: &ConfiguredSecrets) {
        for (k, v) in &secrets.pairs {
            self.learn_configured(k, v);
        }
        for v in &secrets.always {
            self.learn_secrets(v);
            if !v.starts_with("[REDACTED") {
                self.learn_literal(v, MIN_LEARNED_SECRET_LEN);
            }
        }
    }

    /// A command line as `claude mcp list` prints it (its arguments unquoted, joined by
    /// spaces), where no configuration was read to learn its secrets from (`explain` of
    /// a paste, helper-97: `node s.js -k V` and `npx some-mcp V` showed `V` in the
    /// command and the advice): each word that reads as random ([`looks_random`]: a
    /// short flag's value, a bare positional word; a `--flag=`'s value; a URL's parts),
    /// which the secret rules do not find already, is hidden wherever it reappears. A
    /// path, a package's name, a version, a date and a plain word never read as random;
    /// a secret flag's value is the rules' (`--token V`), and a URL's query values too
    /// (learned whatever they look like, as a configured URL's are, `?transport=
    /// streamable` would hide `streamable` in every sentence). Learned alone, not in its
    /// base64 forms: a paste of 16 MiB holds 150,000 commands.
    pub fn learn_printed_command(&mut self, command: &str) {
        for w in command.split_whitespace() {
            let parts: Vec<&str> = if w.contains("://") {
                w.split(['/', '?', '&', '#', '=']).collect()
            } else if is_flag(w) {
                w.split_once('=').map(|(_, v)| v).into_iter().collect()
            } else {
                vec![w]
            };
            for part in parts {
                if looks_random(part) {
                    let mut found = Vec::new();
                    super::secrets::SECRETS.find(part, &mut found);
                    if found.is_empty() {
                        self.add_learned(part.to_string(), KIND);
                    }
                }
            }
        }
    }

    fn learn_literal(&mut self, v: &str, min: usize) {
        // a label's own word or a state (`DB_PASSWORD: "password"`): hidden where a rule
        // finds it, never everywhere (every `password` label went)
        if v.chars().count() >= min && !super::is_label_word(v) {
            self.add_learned(v.to_string(), KIND);
            if v.len() >= MIN_LEARNED_SECRET_LEN {
                for form in base64_forms(v.as_bytes()) {
                    self.add_learned(form, KIND);
                }
            }
        }
    }
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` in base64 (standard alphabet), with its `=` padding.
fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(BASE64[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The base64 forms a learned value may be written in, so a server that prints it
/// encoded (`echo "$TOKEN" | base64`, a `Basic` header of a URL's `user:password`)
/// shows it no better: the value encoded alone (with and without its `=` padding),
/// and the characters that stand for it alone inside a longer encoded text, at each
/// of the three byte alignments it may start at; each in the standard and the URL-safe
/// alphabet (`-_` for `+/`).
fn base64_forms(v: &[u8]) -> Vec<String> {
    let whole = base64(v);
    let mut forms = vec![whole.trim_end_matches('=').to_string(), whole];
    for k in 0..3usize {
        let mut bytes = vec![0u8; k];
        bytes.extend_from_slice(v);
        let enc = base64(&bytes);
        // the characters whose six bits all come from `v`'s bytes
        let first = (8 * k).div_ceil(6);
        let last = (8 * (k + v.len())) / 6;
        if let Some(core) = enc.get(first..last)
            && core.len() >= MIN_LEARNED_SECRET_LEN
        {
            forms.push(core.to_string());
        }
    }
    let url_safe: Vec<String> = forms
        .iter()
        .filter(|f| f.contains(['+', '/']))
        .map(|f| f.replace('+', "-").replace('/', "_"))
        .collect();
    forms.extend(url_safe);
    forms
}

/// Every value the configuration marks as a secret, gathered once a run from every
/// configuration file mcplogs reads (`crate::scan::secrets::collect`): each MCP
/// server's `env` and `headers` values, the credentials and query values of its `url`,
/// and the `OTEL_EXPORTER_OTLP_*HEADERS` values. Every redactor of an output learns them
/// ([`RedactorBuilder::learn_configured_secrets`]), so a value a server echoes on
/// stderr or in an error message is hidden wherever it reappears.
///
/// Held in memory only: it is never serialised, and its `Debug` form shows how many
/// values it holds, never one of them.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ConfiguredSecrets {
    /// `(key, value)`, each once, in the order found.
    pairs: Vec<(String, String)>,
    /// Values secret whatever their key and shape (a URL's query values, a cookie's
    /// values), each once, in the order found.
    always: Vec<String>,
    /// What `pairs` and `always` hold, to tell one added before at once (a settings file
    /// of a cloned repository can hold a million `env` keys: a look through the list
    /// for each was quadratic).
    seen_pairs: std::collections::HashSet<(String, String)>,
    seen_always: std::collections::HashSet<String>,
}

impl std::fmt::Debug for ConfiguredSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ConfiguredSecrets({} values)", self.len())
    }
}

impl ConfiguredSecrets {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty() && self.always.is_empty()
    }

    pub fn len(&self) -> usize {
        self.pairs.len() + self.always.len()
    }

    /// An `env` variable or a header of an MCP server: learned where it could be a
    /// secret ([`RedactorBuilder::learn_configured`]). A `Cookie` header's value is
    /// learned whole and per cookie too: each `name=value` part and each value, whatever
    /// their shape (a server may echo one cookie, or its value alone).
    pub fn add(&mut self, key: &str, value: &str) {
        let value = value.trim();
        let pair = (key.to_string(), value.to_string());
        if value.is_empty() || !self.seen_pairs.insert(pair.clone()) {
            return;
        }
        self.pairs.push(pair);
        if key.trim().eq_ignore_ascii_case("cookie") {
            for part in value.split(';').map(str::trim) {
                if let Some((name, v)) = part.split_once('=') {
                    self.add_always(part);
                    self.add_always(v);
                    self.add(name.trim(), v);
                }
            }
        }
    }

    /// A configured `env` or header value: [`Self::add`], and a URL in it as
    /// [`Self::add_url`] (`DATABASE_URL=postgres://user:pw@host`: its password alone
    /// too, as a server may echo it).
    pub fn add_configured(&mut self, key: &str, value: &str) {
        if value.contains("://") {
            self.add_url(value);
        }
        self.add_connection_string(value);
        self.add(key, value);
    }

    /// The pairs of a connection string (`Server=db;User Id=sa;Password=a b;`, an
    /// Azure `AccountKey=...;`), each value under its own key: the secret rules find
    /// `Password=a` in a text and leave what follows a space, so a value a server
    /// echoes whole is hidden whole.
    fn add_connection_string(&mut self, text: &str) {
        if !text.contains(';') {
            return;
        }
        for part in text.split(';') {
            if let Some((k, v)) = part.split_once('=') {
                let v = v.trim().trim_matches(['"', '\'']);
                self.add(k.trim(), v);
            }
        }
    }

    /// A value secret whatever its key and shape (learned from
    /// [`MIN_LEARNED_SECRET_LEN`] characters on).
    fn add_always(&mut self, value: &str) {
        let value = value.trim();
        if value.is_empty() || !self.seen_always.insert(value.to_string()) {
            return;
        }
        self.always.push(value.to_string());
    }

    /// A server's `url`: its user information (`user:password@`) and every query value
    /// (`?api_key=...`), each under its own key, percent-decoded and as written; the
    /// password, a user information without one (`token@host`) and every query value are
    /// secrets whatever their key and shape (`?sig=...`, `?code=...`).
    pub fn add_url(&mut self, url: &str) {
        let url = url.trim();
        let Some((_, rest)) = url.split_once("://") else {
            return;
        };
        // A password holding `/`, `?`, `#` or `@` (helper-80 #1): `user:` then all up to
        // the last `@` before the host, the rest read as a URL without them.
        let rest = match generated_password_userinfo(rest) {
            Some((user, password, after)) => {
                self.add("password", password);
                self.add_always(password);
                self.add_always(&percent_decoded(password));
                self.add_always(&format!("{user}:{password}"));
                after
            }
            None => rest,
        };
        let (authority_and_path, query) = match rest.split_once('?') {
            Some((a, q)) => (a, q.split('#').next().unwrap_or_default()),
            None => (rest.split('#').next().unwrap_or_default(), ""),
        };
        let authority = authority_and_path
            .split(['/', '\\'])
            .next()
            .unwrap_or_default();
        // A path's part that reads as random is a key (`/api/mcp/s/<key>/mcp`, a
        // webhook's; helper-80 #5).
        for part in authority_and_path.split('/').skip(1) {
            if looks_random(part) {
                self.add_always(part);
                self.add_always(&percent_decoded(part));
            }
        }
        if let Some((userinfo, _)) = authority.rsplit_once('@') {
            match userinfo.split_once(':') {
                Some((user, password)) => {
                    self.add("password", password);
                    self.add("password", &percent_decoded(password));
                    self.add_always(password);
                    self.add_always(&percent_decoded(password));
                    // `user:password`, as a `Basic` header carries it (base64)
                    self.add_always(&percent_decoded(userinfo));
                    // `token@host`, `user:token@host`: a user part that reads as random
                    // is a credential too.
                    self.add("user", user);
                }
                None => {
                    self.add("userinfo", userinfo);
                    self.add_always(userinfo);
                    self.add_always(&percent_decoded(userinfo));
                }
            }
        }
        for pair in query.split('&') {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let k = percent_decoded(k);
            self.add(&k, v);
            self.add(&k, &percent_decoded(v));
            self.add_always(v);
            self.add_always(&percent_decoded(v));
        }
    }

    /// A stdio server's arguments: the value of a flag (`--api-token T`,
    /// `--password=P`) under the flag's name, learned where that name looks secret; any
    /// other argument by its shape and randomness alone; the credentials and query of a
    /// URL among them as [`Self::add_url`]'s.
    pub fn add_args(&mut self, args: &[String]) {
        let mut flag: Option<&str> = None;
        for a in args.iter().map(|a| a.trim()) {
            if a.contains("://") {
                self.add_url(
                    a.split_once('=')
                        .filter(|(f, _)| is_flag(f))
                        .map_or(a, |(_, v)| v),
                );
            }
            // A value starting with a dash after a flag holding a secret
            // (`--token -Kk8x2...`): a generated token can start so, and no option reads
            // as one (a long option is `--word`, a short one is a few letters).
            if let Some(f) = flag.filter(|f| flag_names_secret(f))
                && dash_value(a)
            {
                self.add(f, a);
                flag = None;
                continue;
            }
            // Windows style, `/token:VALUE` or `/token=VALUE`: only under a name holding
            // a secret (a path's `/usr:...` names none).
            if let Some((name, value)) = slash_flag(a) {
                self.add(value_key(name, value), value);
                flag = None;
                continue;
            }
            if is_flag(a) {
                match a.split_once('=') {
                    Some((name, value)) => {
                        self.add(value_key(name, value), value);
                        flag = None;
                    }
                    None => flag = Some(a),
                }
                continue;
            }
            self.add_connection_string(a);
            self.add(flag.take().map_or("", |f| value_key(f, a)), a);
        }
    }

    /// `OTEL_EXPORTER_OTLP_HEADERS`-style `name=value,name=value` (values may be
    /// percent-encoded): each value under its header's name, and the whole value.
    pub fn add_header_list(&mut self, variable: &str, list: &str) {
        self.add(variable, list);
        self.add_always(list);
        for entry in list.split(',') {
            if let Some((name, value)) = entry.split_once('=') {
                let name = percent_decoded(name.trim());
                self.add(&name, value);
                self.add(&name, &percent_decoded(value.trim()));
                // a header these variables carry is an exporter's credential, whatever
                // its name (`x-honeycomb-team=...`: helper-80 #8, shown in a fix's diff)
                self.add_always(value);
                self.add_always(&percent_decoded(value.trim()));
            }
        }
    }

    /// Adds every value `other` holds.
    pub fn extend(&mut self, other: &ConfiguredSecrets) {
        for (k, v) in &other.pairs {
            self.add(k, v);
        }
        for v in &other.always {
            self.add_always(v);
        }
    }
}

/// The key a flag's value is learned under: the flag, when it names a secret
/// ([`flag_names_secret`]) and the value reads as one (a digit or a sign in it, or
/// mixed case: `hunter2pw`, `Tok3nValue`) or the flag holds a secret whatever it looks
/// like ([`holds_any_value`]: `--password horsebatterystaplez`, `--token=quietmeadowlark`;
/// helper-92 #4: a plain word there was never learned, and shown where the server echoed
/// it and in `fix`'s diff); else none, and the value is learned by its shape and
/// randomness alone. A plain word after another flag (`--auth-provider github`,
/// `--no-auth stdio`, `--auth oauth`) is configuration, and learned as a secret it was
/// hidden in every text, a server's own name and mcplogs' sentences included; so is a
/// word of the flag's own name, a label's word or a state ([`super::is_label_word`]:
/// `--password password`, `--token token`, `--secret required`), which would take the
/// flags and the labels with it. (A variable, `${DB_PASSWORD}`, is harmless and never
/// learned; another flag is no value.)
fn value_key<'a>(flag: &'a str, value: &str) -> &'a str {
    let made_up = value
        .chars()
        .any(|c| c.is_ascii_digit() || !c.is_alphabetic())
        || value.chars().skip(1).any(char::is_uppercase) && value.chars().any(char::is_lowercase);
    let word = value.to_ascii_lowercase();
    let plain_secret = holds_any_value(flag)
        && !flag.to_ascii_lowercase().contains(&word)
        && !super::is_label_word(value);
    if ((made_up || plain_secret) && flag_names_secret(flag)) || secret_number(flag, value) {
        flag
    } else {
        ""
    }
}

/// Whether a flag names a secret value: its name looks secret, and it is neither a
/// switch (`--no-auth`) nor a flag that says something about the secret rather than
/// holding it (`--auth-type`, `--token-type`, `--secret-name`, `--password-store`).
fn flag_names_secret(flag: &str) -> bool {
    let name = flag.trim_start_matches('-');
    // (a flag about the secret is `key_looks_secret`'s: its last word)
    !name.to_ascii_lowercase().starts_with("no-") && key_looks_secret(name)
}

/// A command-line flag: `-x`, `--name`, `--name=value` (a dash then a letter).
fn is_flag(a: &str) -> bool {
    let name = a.trim_start_matches('-');
    a.starts_with('-')
        && a.len() - name.len() <= 2
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
}

/// A flag's value that starts with a dash (`-Kk8x2Qp9`): one dash, then at least
/// [`MIN_LEARNED_SECRET_LEN`] characters with a digit or mixed case, no `=` (an option
/// `-abc`, `-v` or `--verbose` never reads so).
fn dash_value(a: &str) -> bool {
    let Some(rest) = a.strip_prefix('-') else {
        return false;
    };
    !rest.starts_with('-')
        && !a.contains('=')
        && rest.chars().count() >= MIN_LEARNED_SECRET_LEN
        && (rest.chars().any(|c| c.is_ascii_digit())
            || rest.chars().any(char::is_uppercase) && rest.chars().any(char::is_lowercase))
}

/// A Windows-style flag with its value, `/token:VALUE` or `/token=VALUE`, when its name
/// holds a secret ([`flag_names_secret`]): the name (with its slash) and the value.
fn slash_flag(a: &str) -> Option<(&str, &str)> {
    let rest = a.strip_prefix('/')?;
    let at = rest.find([':', '='])?;
    let name = &rest[..at];
    let value = &rest[at + 1..];
    (!name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !value.is_empty()
        && flag_names_secret(name))
    .then_some((&a[..=at], value))
}

/// A URL's `user:password@` (after its `://`) whose password holds `/`, `?`, `#` or
/// `@`: the user, the password and the rest from the host on. The user holds none of
/// them; the host, after the last `@`, no `@` either; a port then a path
/// (`h:443/@scope/pkg`) is no password.
fn generated_password_userinfo(rest: &str) -> Option<(&str, &str, &str)> {
    let (user, after_user) = rest.split_once(':')?;
    if user.contains(['/', '?', '#', '@']) || user.contains(char::is_whitespace) {
        return None;
    }
    let at = after_user.rfind('@')?;
    let password = &after_user[..at];
    let host = &after_user[at + 1..];
    let port_and_path = password
        .split('/')
        .next()
        .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    (password.contains(['/', '?', '#', '@']) && !port_and_path && !host.is_empty())
        .then_some((user, password, host))
}

/// `%XX` decoded (a non-UTF-8 result left as written).
fn percent_decoded(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    String::from_utf8(crate::text::percent_decoded_bytes(s)).unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor(pairs: &[(&str, &str)]) -> super::super::Redactor {
        let mut b = RedactorBuilder::new();
        for (k, v) in pairs {
            b.learn_configured(k, v);
        }
        b.build()
    }

    #[test]
    fn plain_configuration_is_not_a_secret() {
        let r = redactor(&[
            ("STUB_DISCOVER", "modern"),
            ("NODE_ENV", "production"),
            ("LOG_LEVEL", "debug"),
            ("REGION", "production-eu-west-1a"),
            ("NODE_OPTIONS", "--max-old-space-size=4096"),
            ("PROJECT", "MyProject_Name2024abc"),
            ("BIN", "/opt/homebrew/bin/node18"),
            ("API_BASE", "https://api.example.com/v1"),
            ("REQUEST_ID", "123e4567-e89b-12d3-a456-426614174000"),
            ("MAX_TOKENS", "4096"),
            ("AUTH_ENABLED", "true"),
            ("OAUTH_TOKEN_URL", "https://auth.example.com/oauth/token"),
            (
                "GOOGLE_APPLICATION_CREDENTIALS",
                "/home/u/.config/gcloud/creds.json",
            ),
        ]);
        let text = "healthy-modern in production, LOG debug, production-eu-west-1a \
                    --max-old-space-size=4096 MyProject_Name2024abc /opt/homebrew/bin/node18 \
                    https://api.example.com/v1 123e4567-e89b-12d3-a456-426614174000 4096 true \
                    https://auth.example.com/oauth/token /home/u/.config/gcloud/creds.json";
        assert_eq!(r.redact(text), text);
    }

    #[test]
    fn a_secret_by_key_shape_or_entropy_is_hidden_wherever_it_reappears() {
        let r = redactor(&[
            ("DB_PASSWORD", "correct horse battery"),
            ("STRIPE", "sk-live-4eC39HqLyjWDarjtT1zdp7dc"),
            ("SESSION", "aPnfYclXezicN0pYbC77Jt95EQo"),
            ("DIGEST", "a10fae37823f695974045c1b30e25d94c1e51c51"),
            ("Authorization", "Bearer opaque-0123"),
            ("PGPASSWORD", "pw42"),
            (
                "DATABASE_URL",
                "postgres://app:hunter2hunter2@db.internal/app",
            ),
        ]);
        assert_eq!(
            r.redact(
                "pw correct horse battery; sk-live-4eC39HqLyjWDarjtT1zdp7dc; \
                 aPnfYclXezicN0pYbC77Jt95EQo a10fae37823f695974045c1b30e25d94c1e51c51 \
                 token opaque-0123 at db.internal with app:hunter2hunter2, pw42 pw4"
            ),
            "pw [REDACTED:config]; [REDACTED:stripe-key]; [REDACTED:config] \
             [REDACTED:config] token [REDACTED:secret] at db.internal with [REDACTED:url-credentials], \
             [REDACTED:config] pw4"
        );
    }

    /// helper-92 #3: a server's stderr line is bounded at a word before redaction, so a
    /// configured value of several words can be cut after its first words: those are
    /// hidden at a line's (or the text's) end, never elsewhere, and another value
    /// starting inside them is still found.
    #[test]
    fn a_passphrases_first_words_at_a_lines_end_are_hidden() {
        let r = redactor(&[
            ("DB_PASSWORD", "correct horse battery staple"),
            ("API_KEY", "horse-9f8e7d6c5b4a"),
        ]);
        for (text, shown) in [
            ("w w correct horse", "w w [REDACTED:config]"),
            ("w correct horse battery\nnext", "w [REDACTED:config]\nnext"),
            ("w correct\r\nnext", "w [REDACTED:config]\r\nnext"),
            ("correct horse battery staple!", "[REDACTED:config]!"),
            // not at a line's end: the words are not the value
            ("a correct horse is fast", "a correct horse is fast"),
            ("correct", "[REDACTED:config]"),
            ("is incorrect", "is incorrect"),
            ("the cor", "the cor"),
            // another value inside them
            (
                "correct horse-9f8e7d6c5b4a ok",
                "correct [REDACTED:config] ok",
            ),
        ] {
            assert_eq!(r.redact(text), shown, "{text:?}");
        }
        assert_eq!(
            super::super::first_words("correct  horse battery staple "),
            ["correct", "correct  horse", "correct  horse battery"]
        );
        assert!(super::super::first_words(&"word ".repeat(60)).is_empty());
    }

    /// helper-100 #2: a value of several words a server wrote across two stderr records
    /// (a pipe read's boundary) or two lines: the first words were hidden at the first
    /// line's end, the rest shown at the next one's start. Its last words are hidden at a
    /// line's start (after its indentation), never elsewhere.
    #[test]
    fn a_passphrases_last_words_at_a_lines_start_are_hidden() {
        let r = redactor(&[("SERVICE_CREDENTIAL", "oscar quiet meadow lark")]);
        for (text, shown) in [
            (
                "words: oscar quiet\n meadow lark",
                "words: [REDACTED:config]\n [REDACTED:config]",
            ),
            (
                "words: oscar quiet\nmeadow lark\n",
                "words: [REDACTED:config]\n[REDACTED:config]\n",
            ),
            (
                "pass oscar\n quiet meadow lark",
                "pass [REDACTED:config]\n [REDACTED:config]",
            ),
            ("x\r\n\tmeadow lark, then", "x\r\n\t[REDACTED:config], then"),
            ("lark", "[REDACTED:config]"),
            // not at a line's start, or inside a word: not the value
            ("a meadow lark sings", "a meadow lark sings"),
            ("skylark", "skylark"),
            ("larks are birds", "larks are birds"),
        ] {
            assert_eq!(r.redact(text), shown, "{text:?}");
        }
        assert_eq!(
            super::super::last_words(" correct horse  battery staple"),
            ["horse  battery staple", "battery staple", "staple"]
        );
        assert!(super::super::last_words("one").is_empty());
        assert!(super::super::last_words(&"word ".repeat(60)).is_empty());
        // as the scan's stderr tail joins its records
        let mut parts = vec!["words: oscar quiet".to_string(), " meadow lark".to_string()];
        r.apply_joined(&mut parts);
        assert_eq!(parts, ["words: [REDACTED:config]", " [REDACTED:config]"]);
    }

    /// A configured value that is a label's own word or a state (`DB_PASSWORD:
    /// "password"`) is not learned: every `password` of every text was hidden (found by
    /// helper-93).
    #[test]
    fn a_configured_label_word_is_not_learned() {
        let r = redactor(&[("DB_PASSWORD", "password"), ("API_SECRET", "Required")]);
        let text = "the password field is required; Password missing";
        assert_eq!(r.redact(text), text);
        // a real one still is learned
        let r = redactor(&[("DB_PASSWORD", "hunter2hunter2")]);
        assert_eq!(r.redact("echo hunter2hunter2"), "echo [REDACTED:config]");
    }

    fn redactor_of(s: &ConfiguredSecrets) -> super::super::Redactor {
        let mut b = RedactorBuilder::new();
        b.learn_configured_secrets(s);
        b.build()
    }

    /// A secret flag's value starting with a dash, and a Windows-style `/token:VALUE`,
    /// are learned (helper-76 #4, #5: both were printed bare when a server echoed them);
    /// an option after a secret flag and a path holding a colon are not.
    #[test]
    fn a_dash_leading_value_and_a_windows_style_flag_are_learned() {
        let mut s = ConfiguredSecrets::new();
        let args = [
            "--api-token",
            "-Kk8x2Qp9ZzLm",
            "/token:tok9valuexyz",
            "/usr/lib:/opt/Lib2024x",
            "--token-refresh",
            "-v",
            "--secret",
            "--verbose",
            "/token=",
            "--pat",
            "PatSpace9876abcQ",
        ]
        .map(String::from);
        s.add_args(&args);
        let r = redactor_of(&s);
        let shown = r.redact("lib /opt/Lib2024x; echo -Kk8x2Qp9ZzLm, tok9valuexyz; -v --verbose");
        assert!(!shown.contains("Kk8x2Qp9ZzLm"), "{shown}");
        assert!(!shown.contains("tok9valuexyz"), "{shown}");
        assert!(!r.redact("pat PatSpace9876abcQ").contains("PatSpace"));
        assert!(shown.contains("/opt/Lib2024x"), "{shown}");
        assert!(shown.ends_with(" -v --verbose"), "{shown}");
        // the flag after a secret flag stays a flag: the value after it is its own
        assert!(!dash_value("--verbose") && !dash_value("-v") && !dash_value("-abc"));
        assert!(!dash_value("-Xmx=2048m") && dash_value("-Kk8x2Qp9"));
        assert_eq!(slash_flag("/token:abc"), Some(("/token", "abc")));
        assert_eq!(slash_flag("/home/u:x"), None);
        assert_eq!(slash_flag("/token:"), None);
    }

    /// A plain word after a flag that holds a secret (`--password`, `--token=`,
    /// `--api-key`, `--client-secret`) is learned whatever its shape (helper-92 #4: it
    /// was shown where the server echoed it, and in `fix`'s diff); a variable, another
    /// flag, a plain word after a flag that may name something else (`--auth oauth`,
    /// `--key signing`) or says something about the secret (`--password-file`), and a
    /// word of the flag's name or a state (`--token token`, `--secret required`) are not.
    #[test]
    fn a_plain_word_after_a_flag_holding_a_secret_is_learned() {
        let mut s = ConfiguredSecrets::new();
        let args = [
            "--stdio",
            "--password",
            "horsebatterystaplez",
            "--token=quietmeadowlark",
            "--api-key",
            "meadowkey",
            "--client-secret",
            "riverstone",
            "--db-passwd",
            "lanternfish",
            "--auth",
            "oauth",
            "--key",
            "signing",
            "--password-file",
            "secretsfile",
            "--token",
            "${MCP_TOKEN}",
            "--secret",
            "$SECRET",
            "--passphrase",
            "passphrase",
            "--token",
            "token",
            "--secret",
            "required",
            "--access-token",
            "--verbose",
        ]
        .map(String::from);
        s.add_args(&args);
        let r = redactor_of(&s);
        for v in [
            "horsebatterystaplez",
            "quietmeadowlark",
            "meadowkey",
            "riverstone",
            "lanternfish",
        ] {
            assert_eq!(r.redact(&format!("echo {v}!")), "echo [REDACTED:config]!");
        }
        let kept = "oauth signing secretsfile ${MCP_TOKEN} $SECRET --verbose stdio; \
                    the token and the passphrase are required";
        assert_eq!(r.redact(kept), kept);
    }

    /// A number under a password's, a secret's or a PIN's key is learned from six
    /// digits on (helper-92 #4: `DB_PASSWORD: "83927461"` was taken for harmless); a
    /// shorter one is left to the rules where it follows its key, and a number under a
    /// key that says something about the secret or counts is no secret.
    #[test]
    fn a_number_under_a_passwords_key_is_learned_from_six_digits() {
        let mut s = ConfiguredSecrets::new();
        s.add_configured("DB_PASSWORD", "83927461");
        s.add_configured("NUMPIN_SECRET", "55512345");
        s.add_configured("SIM_PIN", "482193");
        s.add_configured("DB_PIN", "4821");
        s.add_configured("PASSWORD_MIN_LENGTH", "12345678");
        s.add_configured("MAX_TOKENS", "40960000");
        s.add_configured("TOKEN_TTL", "36000000");
        s.add_args(&["--stdio", "--password", "19283746", "--pin", "555123"].map(String::from));
        let r = redactor_of(&s);
        assert_eq!(
            r.redact("echo 83927461 55512345 482193 19283746 555123"),
            "echo [REDACTED:config] [REDACTED:config] [REDACTED:config] [REDACTED:config] \
             [REDACTED:config]"
        );
        let kept = "4821 12345678 40960000 36000000 in 3000ms on 2024-11-29";
        assert_eq!(r.redact(kept), kept);
        assert!(could_be_secret("DB_PASSWORD", "4821"));
        assert!(!could_be_secret("DB_PASSWORD", "482"));
        assert!(!could_be_secret("SECRET_ROTATION_DAYS", "9000"));
    }

    /// A configured URL's password holding `/ # ? @` is learned whole, and a plain word
    /// under a key that describes a secret (`AUTH_PROVIDER`) is not learned (helper-80
    /// #1, #9: the password was cut at `/`; `github` was hidden everywhere).
    #[test]
    fn a_generated_url_password_is_learned_and_a_described_word_is_not() {
        let mut s = ConfiguredSecrets::new();
        s.add_url("postgresql://svc:Zq9/x+Yw3#k@10.1.2.3:5432/prod");
        s.add_configured("AUTH_PROVIDER", "github");
        s.add_configured("GITHUB_TOKEN_SCOPE", "repo");
        let r = redactor_of(&s);
        let shown = r.redact("password Zq9/x+Yw3#k rejected; github report");
        assert!(!shown.contains("Zq9/x+Yw3#k"), "{shown}");
        assert!(shown.ends_with("; github report"), "{shown}");
    }

    /// An exporter header list's values are credentials whatever their header's name
    /// (helper-80 #8: `x-honeycomb-team=...` was shown in a fix's diff).
    #[test]
    fn a_header_lists_values_are_learned_whatever_their_names() {
        let mut s = ConfiguredSecrets::new();
        s.add_header_list(
            "OTEL_EXPORTER_OTLP_HEADERS",
            "x-honeycomb-team=zqxHoneyKey123,x-other=1",
        );
        let r = redactor_of(&s);
        let shown = r.redact("sent x-honeycomb-team: zqxHoneyKey123 to the collector");
        assert!(!shown.contains("zqxHoneyKey123"), "{shown}");
        assert!(shown.contains("x-honeycomb-team"), "{shown}");
    }

    /// A connection string's password in an argument or an `env` value is learned
    /// whole (helper-79: the rules hid `Password=a` of `Password=a b;` and showed `b`).
    #[test]
    fn a_connection_strings_password_is_learned_whole() {
        let mut s = ConfiguredSecrets::new();
        s.add_args(
            &[
                "--conn",
                "Server=db;User Id=sa;Password=Pw 7 horse;Encrypt=true",
            ]
            .map(String::from),
        );
        s.add_configured(
            "STORAGE",
            "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;",
        );
        let r = redactor_of(&s);
        let shown = r.redact(
            "login failed for sa (password Pw 7 horse); key Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==",
        );
        assert!(!shown.contains("7 horse"), "{shown}");
        assert!(!shown.contains("Zm9vYmFy"), "{shown}");
        // the other parts are configuration
        let kept = "Server=db; User Id=sa; AccountName=acct; Encrypt=true";
        assert_eq!(r.redact(kept), kept);
    }

    #[test]
    fn every_query_value_of_a_configured_url_is_hidden_whatever_its_key() {
        let mut s = ConfiguredSecrets::new();
        s.add_url(
            "https://127.0.0.1:47302/sse?ref=hunter22pw&ticket=abcd1234efgh&n=1&enc=a%2Bb%2Fc%3D1234",
        );
        s.add_url("https://tok3nWord@h.example/mcp");
        let r = redactor_of(&s);
        assert_eq!(
            r.redact(
                "403 for https://127.0.0.1:47302/sse?ref=hunter22pw&ticket=abcd1234efgh&n=1; \
                 ref hunter22pw ticket abcd1234efgh n 1 enc a+b/c=1234 user tok3nWord"
            ),
            "403 for https://127.0.0.1:47302/sse?ref=[REDACTED:config]&ticket=[REDACTED:config]&n=1; \
             ref [REDACTED:config] ticket [REDACTED:config] n 1 enc [REDACTED:config] user [REDACTED:config]"
        );
    }

    #[test]
    fn a_cookie_header_is_hidden_whole_per_cookie_and_per_value() {
        let mut s = ConfiguredSecrets::new();
        s.add(
            "Cookie",
            "session=cookieval99887766; theme=dark; sid=XyZ12345",
        );
        let r = redactor_of(&s);
        assert_eq!(
            r.redact("echo cookieval99887766 and sid=XyZ12345, XyZ12345; theme dark"),
            "echo [REDACTED:config] and [REDACTED:config], [REDACTED:config]; theme dark"
        );
    }

    #[test]
    fn a_learned_value_is_hidden_in_its_base64_forms() {
        let mut s = ConfiguredSecrets::new();
        s.add("FOO_SETTING", "Xr7Tb2Qm9Kd4Lp6Vn3Ws");
        s.add_url("https://urluser:UrlPassw0rd@127.0.0.1:47301/mcp");
        let r = redactor_of(&s);
        for (encoded, what) in [
            ("WHI3VGIyUW05S2Q0THA2Vm4zV3MK", "echo | base64"),
            ("WHI3VGIyUW05S2Q0THA2Vm4zV3M=", "alone, padded"),
            ("WHI3VGIyUW05S2Q0THA2Vm4zV3M", "alone, unpadded"),
            ("a2V5PVhyN1RiMlFtOUtkNExwNlZuM1dzOw==", "after 4 bytes"),
            (
                "az1YcjdUYjJRbTlLZDRMcDZWbjNXcyBhbmQgbW9yZQ==",
                "after 2 bytes",
            ),
            ("+/9YcjdUYjJRbTlLZDRMcDZWbjNXcz8+", "standard alphabet"),
            ("-_9YcjdUYjJRbTlLZDRMcDZWbjNXcz8-", "URL-safe alphabet"),
            ("dXJsdXNlcjpVcmxQYXNzdzByZA==", "a URL's user:password"),
        ] {
            let red = r.redact(&format!("stderr: sent {encoded} now"));
            assert!(red.contains("[REDACTED:config]"), "{what}: {red}");
            for piece in ["VGIyUW05S2Q0THA2", "UYjJRbTlLZDRMcDZW", "cjpVcmxQYXNzdzBy"] {
                assert!(!red.contains(piece), "{what}: {red}");
            }
            assert!(
                red.starts_with("stderr: sent ") && red.ends_with(" now"),
                "{red}"
            );
        }
        // plain base64 text of something else stays
        let other = "stderr: Y29ycmVjdCBob3JzZSBiYXR0ZXJ5 aGVsbG8gd29ybGQ=";
        assert_eq!(r.redact(other), other);
    }

    #[test]
    fn a_learned_value_with_an_invisible_or_control_character_inside_is_hidden() {
        let mut s = ConfiguredSecrets::new();
        s.add("FOO_SETTING", "Xr7Tb2Qm9Kd4Lp6Vn3Ws");
        let r = redactor_of(&s);
        for (text, want) in [
            (
                "zw Xr7Tb2Q\u{200B}m9Kd4Lp6Vn3Ws end",
                "zw [REDACTED:config] end",
            ),
            (
                "esc Xr7Tb2Q\x1b[0mm9Kd4Lp6Vn3Ws end",
                "esc [REDACTED:config] end",
            ),
            ("cr Xr7Tb2Qm9K\rd4Lp6Vn3Ws end", "cr [REDACTED:config] end"),
            (
                "soft Xr7Tb2Qm9K\u{AD}d4Lp6Vn3Ws end",
                "soft [REDACTED:config] end",
            ),
            (
                r#"{"error":"Server stderr: Xr7Tb2Q\u001b[0mm9Kd4Lp6Vn3Ws"}"#,
                r#"{"error":"Server stderr: [REDACTED:config]"}"#,
            ),
            // colour around it, and on the next line, stays
            (
                "\x1b[31mkey\x1b[0m Xr7Tb2Qm9K\u{200B}d4Lp6Vn3Ws\r\n\x1b[1mnext\x1b[0m",
                "\x1b[31mkey\x1b[0m [REDACTED:config]\r\n\x1b[1mnext\x1b[0m",
            ),
        ] {
            assert_eq!(r.redact(text), want, "{text:?}");
            assert_eq!(r.redact(want), want);
        }
    }

    #[test]
    fn randomness_needs_length_a_tokens_alphabet_and_mixing() {
        assert!(looks_random("B2ce2kBQwo9ApDAvEaW9zg"));
        assert!(looks_random("CHWLq5isDmuEUisCgCa8Y-U"));
        assert!(looks_random("6s2o2sc4k0gj6s8xzqxm8fhf1cwftakz"));
        assert!(!looks_random("B2ce2kBQwo9ApDAvEa9")); // 19 characters
        assert!(!looks_random("ProductionServer2024x"));
        assert!(!looks_random("my_very_long_feature_flag_name_2"));
        assert!(!looks_random("0000000000000000000000000000000000000001"));
        assert!(!looks_random("2026-07-28T00:00:00Z"));
        assert!(!looks_random("v1.2.3-beta.4+build5"));
        assert!(!could_be_secret("API_KEY", "12345"));
        assert!(could_be_secret("x-api-key", "short-but-keyed"));
        assert!(could_be_secret("Proxy-Authorization", "Basic abc"));
        assert!(!could_be_secret(
            "AUTH_URL",
            "https://sso.example.com/login"
        ));
        assert!(!could_be_secret("KEY_FILE_SECRET", r"C:\keys\server.pem"));
        assert!(could_be_secret(
            "SIGNING_SECRET",
            "/aB3xY9kLmN2pQ7rSx1Zq+w=="
        ));
        assert!(could_be_secret("API_TOKEN", "https token with spaces"));
    }

    /// A command line as `claude mcp list` prints it: a short flag's value, a bare word
    /// and a `--flag=`'s value that read as random, and a URL's random part, are learned (helper-97: `node
    /// s.js -k V` and `npx some-mcp V` showed `V` in `explain`'s command and advice); a
    /// path, a package, a version, a port, a date and a URL's plain query value are not.
    #[test]
    fn a_printed_commands_random_words_are_learned() {
        let mut b = RedactorBuilder::new();
        b.learn_printed_command("node s.js -k E06xq7Lm2Pz9Rt5Wv8Yb3Nk6");
        b.learn_printed_command(
            "npx some-mcp E10xq7Lm2Pz9Rt5Wv8Yb3Nk6 --seed=Q7xRt5Wv8Yb3Nk6X10xq7Lm",
        );
        b.learn_printed_command(
            "https://mcp.example.com/s/AbC9dEf2GhI4jKl6MnO8pQr0/mcp?transport=streamable",
        );
        let ordinary = "npx -y @modelcontextprotocol/server-filesystem@2025.1.14 /home/u/Projects/my_repo_2024 \
                        --port 8080 --since 2024-11-29T12:00:00Z uvx mcp-server-git==0.6.2 \
                        C:\\Users\\u\\AppData\\Roaming\\npm\\node_modules\\pkg\\dist\\index.js streamable";
        b.learn_printed_command(ordinary);
        let r = b.build();
        let shown = r.redact(
            "E06xq7Lm2Pz9Rt5Wv8Yb3Nk6 E10xq7Lm2Pz9Rt5Wv8Yb3Nk6 AbC9dEf2GhI4jKl6MnO8pQr0 Q7xRt5Wv8Yb3Nk6X10xq7Lm",
        );
        assert_eq!(
            shown,
            "[REDACTED:config] [REDACTED:config] [REDACTED:config] [REDACTED:config]"
        );
        assert_eq!(r.redact(ordinary), ordinary);
    }
}
