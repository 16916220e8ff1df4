//! The secret patterns. Each rule names the part to hide (the `s` group); the rest of
//! the match (a scheme, a key name, a quote) stays visible so the reader still sees what
//! kind of value was there.
//!
//! Speed: a report or a scan may pass megabytes of server stderr through these rules.
//! Every rule lists anchors, literals one of which each of its matches contains (`sk-`,
//! `eyJ`, `://`, a secret-looking word). One Aho-Corasick pass finds the anchors; a rule
//! runs only on windows around its anchors' hits, so text with no anchor (base64 image
//! data, ordinary log lines) costs one linear scan, whatever the number of rules.

use std::sync::LazyLock;

use crate::text::needles::Needles;
use regex::{Captures, Regex};

/// How far before an anchor a match may start (a key name before its secret word).
const WINDOW_BEFORE: usize = 256;
/// How far after an anchor a match may end (a PEM private key body is a few KB).
const WINDOW_AFTER: usize = 16 * 1024;

/// One secret pattern. `keep` may veto a match (a key that does not look secret, a
/// value that is a number), in which case the text is left as it was.
pub struct Rule {
    pub kind: &'static str,
    pub regex: Regex,
    pub keep: fn(&Captures) -> bool,
    /// Literals (ASCII, any case) one of which every match contains.
    pub anchors: &'static [&'static str],
    /// For a rule whose every match holds an anchor inside a key of
    /// `[A-Za-z0-9_.-]` directly followed by one of these bytes: an anchor's hit whose run
    /// of key bytes ends at another ASCII byte (or the text's end) cannot be in a match,
    /// and gets no window ([`Scanner::find`]). Words such as `authentication` and
    /// `keyboard` in prose then cost nothing: each hit's window reaches 16 KiB on.
    pub key_then: Option<&'static [u8]>,
}

/// The bytes of a key as the rules with [`Rule::key_then`] write it:
/// `[A-Za-z0-9_.-]`. (Their `(?i)` lets the class take a few non-ASCII letters too,
/// such as `ſ` for `s`: a run ending at a non-ASCII byte is never ruled out.)
fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

fn never(_: &Captures) -> bool {
    false
}

fn rule(
    kind: &'static str,
    anchors: &'static [&'static str],
    pattern: &str,
    keep: fn(&Captures) -> bool,
) -> Rule {
    Rule {
        kind,
        regex: Regex::new(pattern).expect("secret pattern compiles"),
        keep,
        anchors,
        key_then: None,
    }
}

/// The words of a key: split at `_ - . $` and at camelCase humps, lower case.
fn key_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// Whether a key name says its value is a secret: `*_KEY`, `apiKey`, `*TOKEN*`,
/// `*SECRET*`, `*PASSWORD*`, `*PASSWD*`, `*CREDENTIAL*`, `*PASSPHRASE*`, `*COOKIE*`,
/// `PASS`, `*_PASS`, `PGPASS`, `MYSQL_PWD`, `AUTH`, `*_AUTH`, and a last word naming a
/// credential (`verifier`, `jwt`, `dsn`, `signature`...).
pub fn key_looks_secret(key: &str) -> bool {
    classic_key_looks_secret(key) || key_names_credential(key)
}

/// Last words of a key that say something about a secret rather than hold it
/// (`AUTH_TYPE`, `token_endpoint`, `secretName`, `PASSWORD_FILE`, `GITHUB_TOKEN_SCOPE`,
/// `AWS_ACCESS_KEY_ID`): such a key's value is configuration (helper-80 #9, #10).
pub const ABOUT_A_SECRET: &[&str] = &[
    "ref",
    "policy",
    "strength",
    "rules",
    "hint",
    "reset",
    "type",
    "mode",
    "method",
    "methods",
    "provider",
    "name",
    "store",
    "kind",
    "scheme",
    "url",
    "uri",
    "host",
    "endpoint",
    "file",
    "path",
    "dir",
    "region",
    "version",
    "flow",
    "format",
    "header",
    "env",
    "var",
    "source",
    "scope",
    "scopes",
    "ttl",
    "expiry",
    "expires",
    "timeout",
    "length",
    "prefix",
    "enabled",
    "required",
    "strategy",
    "algorithm",
    "alg",
    "location",
    "manager",
    "helper",
    "command",
    "cmd",
    "tokenizer",
    "count",
    "limit",
    "size",
];

/// First words of a key that make it an error's code naming a secret, not a secret
/// (`NoSuchKey: An error occurred`, AWS's `InvalidAccessKeyId`, `ExpiredToken`,
/// `MissingAuthenticationToken`): what follows is the error's message.
const ERROR_CODE_WORDS: &[&str] = &[
    "no",
    "invalid",
    "missing",
    "expired",
    "unknown",
    "malformed",
    "incomplete",
    "unrecognized",
    "unsupported",
    "revoked",
];

/// [`key_looks_secret`] without the credential words.
fn classic_key_looks_secret(key: &str) -> bool {
    let words = key_words(key);
    let Some(last) = words.last() else {
        return false;
    };
    // (`passwordless`, `tokenless`: no secret)
    if ABOUT_A_SECRET.contains(&last.as_str()) || last.ends_with("less") {
        return false;
    }
    // (the code's own name: `botocore.errorfactory.NoSuchKey`)
    let code = key_words(key.rsplit('.').next().unwrap_or(key));
    if code.len() > 1 && ERROR_CODE_WORDS.contains(&code[0].as_str()) {
        return false;
    }
    // (a shell's previous working directory, as `PWD` is its working directory)
    if key.eq_ignore_ascii_case("oldpwd") {
        return false;
    }
    let lower = key.to_ascii_lowercase();
    if [
        "token",
        "secret",
        "password",
        "passwd",
        "credential",
        "passphrase",
        "cookie",
        "apikey",
        "privatekey",
    ]
    .iter()
    .any(|w| lower.contains(w))
    {
        return true;
    }
    // `PWD` alone is the working directory; `MYSQL_PWD`, `DBPWD` are passwords.
    let pwd = words
        .iter()
        .any(|w| (w == "pwd" && words.len() > 1) || (w.ends_with("pwd") && w.len() > 3));
    let pass = words.iter().any(|w| w == "pass" || w.ends_with("pass"));
    let auth = words.iter().any(|w| w == "auth");
    // `api_keys`, `ACCESS_KEYS`: keys; `primary_keys`, `sort_keys` are no secrets.
    let keys = last == "keys"
        && words.len() > 1
        && [
            "api", "access", "secret", "private", "signing", "client", "license", "master",
        ]
        .contains(&words[words.len() - 2].as_str());
    // `pw`, `ADMIN_PW`, `pwHash`: a password (never the working directory `PWD`)
    let pw = last == "pw";
    // `creds`, `DB_CREDS`, `awsCreds`: credentials, as `credentials` is (`creds=hunter2`
    // was shown: a credential word's value had to look made up)
    let creds = words.iter().any(|w| w.ends_with("creds"));
    pwd || pass || auth || pw || creds || last == "key" || keys
}

/// Whether a key's last word names a credential ([`CREDENTIAL_WORDS`]: an OAuth
/// exchange's `code_verifier` and `client_assertion`, a `jwt`, a `dsn` with its
/// password, a request `signature`, a GitHub `pat`); not before another word
/// (`OTP_VERSION`, `jwt_algorithm`, `signature_method`, `client_assertion_type`). Such a
/// key's value counts as a secret only when it looks made up ([`keep_pair`]): the same
/// words name code and settings (`sig = hmac.new(...)`, `"hmac": "sha256"`).
fn key_names_credential(key: &str) -> bool {
    key_words(key)
        .last()
        .is_some_and(|w| CREDENTIAL_WORDS.contains(&w.as_str()))
}

/// Words of a key that name a credential as its last word ([`key_names_credential`]).
const CREDENTIAL_WORDS: &[&str] = &[
    "verifier",
    "assertion",
    "jwt",
    "dsn",
    "signature",
    "sig",
    "creds",
    "hmac",
    "csrf",
    "otp",
    "passcode",
    "pat",
];

/// Values that are not secrets even under a secret-looking key: numbers, booleans,
/// null, nothing, or a value already replaced.
pub fn value_is_harmless(v: &str) -> bool {
    let v = v.trim();
    // (a word closing a parenthesis: MySQL's `(using password: NO)`)
    let v = v
        .strip_suffix(')')
        .filter(|w| !w.contains('('))
        .unwrap_or(v);
    v.is_empty()
        || v.starts_with("[REDACTED")
        || v.starts_with("<private-host>")
        || v == "********"
        || v.bytes().all(|b| b.is_ascii_digit())
        || [
            "true",
            "false",
            "null",
            "undefined",
            "none",
            "yes",
            "no",
            "[]",
            "{}",
        ]
        .contains(&v.to_ascii_lowercase().as_str())
        || names_a_value(v)
}

/// The fewest digits of a number that is a secret under its key ([`secret_number`]): a
/// PIN's four, as after `password:` ([`keep_password_label`]); a shorter one is a
/// count or a test's placeholder (`DB_PASSWORD=1`, `SECRET=0`).
const MIN_SECRET_NUMBER: usize = 4;

/// Last words of a key that names a PIN: its value is a secret when it is a number
/// ([`secret_number`]); no other value is one by this key alone.
/// A one-time password's (`otp`, `totp`: `otp=123456`, helper-97) too: a number is all
/// it ever is.
const PIN_WORDS: &[&str] = &["pin", "pincode", "passcode", "otp", "totp"];

/// Whether `v` is a number that is a secret under `key`, which [`value_is_harmless`]
/// takes every number for (helper-92 #4: `DB_PASSWORD=83927461` was shown, and a
/// configured `DB_PASSWORD: "83927461"` never learned): `MIN_SECRET_NUMBER` digits
/// or more under a key whose last word names a password, a secret or a PIN
/// (`DB_PASSWORD`, `dbPassword`, `MYSQL_PWD`, `ADMIN_PW`, `NUMPIN_SECRET`, `SIM_PIN`,
/// `passcode`). A key whose last word says something about the secret keeps its number
/// (`PASSWORD_MIN_LENGTH=8`, `TOKEN_TTL=3600`, `SECRET_ROTATION_DAYS=90`,
/// `PASSWORD_MAX_AGE=9000`), and so does a token's or a key's (`MAX_TOKENS=4096`,
/// `API_KEY=12345`: a count or a placeholder far more often than a credential).
pub fn secret_number(key: &str, v: &str) -> bool {
    let v = v.trim();
    if v.len() < MIN_SECRET_NUMBER || !v.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let words = key_words(key);
    let Some(last) = words.last() else {
        return false;
    };
    let password =
        PASSWORD_LABELS.iter().any(|w| last.ends_with(w)) || last == "pw" || last == "pass";
    // (`PIN_CODE`, `pin-code`: the PIN's code, helper-97)
    let pin_code = last == "code" && words.len() > 1 && words[words.len() - 2] == "pin";
    PIN_WORDS.contains(&last.as_str()) || pin_code || (password && classic_key_looks_secret(key))
}

/// A value that names where the secret comes from instead of holding it: a placeholder
/// (`<your key>`, `<KEY>`), a variable (`$TOKEN`, `${GITHUB_TOKEN}`, `%TOKEN%`), code
/// reading one (`process.env.GITHUB_TOKEN;`, `os.environ[`, `os.getenv(`), a call or an
/// index cut at its quote (`getToken(`, `headers[`), a stack frame's place
/// (`(/app/chunk-3m9hzpb5.js:12:30111)`) (helper-80 #11, #12).
/// What follows `$`, or lies in `${...}`, `$(...)` or `%...%`: a variable's name if `v`
/// is a variable (`${AUTH` too: a rule's value stops before the brace).
fn variable_name(v: &str) -> Option<&str> {
    v.strip_prefix("${")
        .map(|r| r.strip_suffix('}').unwrap_or(r))
        // (Kubernetes' `$(DB_PASSWORD)`)
        .or_else(|| {
            v.strip_prefix("$(")
                .map(|r| r.strip_suffix(')').unwrap_or(r))
        })
        .or_else(|| v.strip_prefix('$'))
        .or_else(|| v.strip_prefix('%').and_then(|r| r.strip_suffix('%')))
}

fn names_a_value(v: &str) -> bool {
    // A variable's name as environments write them: upper case (`DB_PASS`) or lower
    // case without digits (`token`); `$Pa55w0rd` is a password (helper-82 B3).
    let ident = |s: &str| {
        let b = s.as_bytes();
        !b.is_empty()
            && !b[0].is_ascii_digit()
            && (b
                .iter()
                .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
                || b.iter().all(|&c| c.is_ascii_lowercase() || c == b'_'))
    };
    let v = v.trim_end_matches([';', ',']);
    // (a default after `:-`, `-`, `:=` or `=` is a value: `${POSTGRES_PASSWORD:-s3cr3t}`)
    let variable = variable_name(v).is_some_and(ident);
    // (`<your key>`, `<API_KEY>`: words, never a made-up `<Gh7kd92x>`)
    let placeholder = v.starts_with('<')
        && v[1..]
            .trim_end_matches('>')
            .bytes()
            .all(|c| c.is_ascii_alphabetic() || b" _-".contains(&c));
    let code = [
        "process.env.",
        "process.env[",
        "os.environ",
        "os.getenv(",
        "env::var(",
        "System.getenv(",
        "ENV[",
        "ENV.fetch(",
        "getenv(",
    ]
    .iter()
    .any(|p| v.starts_with(p));
    // (Go's conversions too, `[]byte(`, `[]byte(os.Getenv(`)
    let callee = v.strip_prefix("[]").unwrap_or(v);
    let call = (callee.ends_with('(') || callee.ends_with('['))
        && callee
            .bytes()
            .take(callee.len() - 1)
            .all(|b| b.is_ascii_alphabetic() || b"_.(".contains(&b));
    // `(/app/chunk.js:12:30111)`: a path, then a line number
    let frame = v.starts_with('(')
        && v.ends_with(')')
        && v.contains(['/', '\\', '.'])
        && v[..v.len() - 1]
            .rsplit(':')
            .next()
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    variable || placeholder || code || call || frame
}

/// A locator ([`super::configured::is_locator`]) two folders deep or more
/// (`/run/secrets/db_password`): `password=/Kj3nd92kS` is a password that starts with a
/// slash (helper-82 B3).
fn deep_locator(v: &str) -> bool {
    let rest = v
        .split_once("://")
        .map_or(v.trim_start_matches(['/', '~']), |(_, r)| r);
    let rest = rest
        .get(2..)
        .filter(|_| v.as_bytes().get(1) == Some(&b':'))
        .unwrap_or(rest);
    super::configured::is_locator(v) && rest.trim_matches('/').contains('/')
}

/// `KEY=value` ([`RULES`]): [`keep_pair`], and kept when the `=` ends its word and
/// the "value" after a space is the next option (`mysql --password= -u root`: an empty
/// password).
fn keep_eq_pair(c: &Captures) -> bool {
    let (Some(m), Some(k), Some(s)) = (c.get(0), c.name("k"), c.name("s")) else {
        return false;
    };
    let between = &m.as_str()[k.end() - m.start()..s.start() - m.start()];
    let next_option = between.starts_with('=') && between.len() > 1 && s.as_str().starts_with('-');
    next_option || keep_pair(c)
}

fn keep_pair(c: &Captures) -> bool {
    if secret_number(&c["k"], &c["s"]) {
        return false;
    }
    if classic_key_looks_secret(&c["k"]) {
        // (`GOOGLE_APPLICATION_CREDENTIALS=/home/x/creds.json`: where it is)
        value_is_harmless(&c["s"]) || deep_locator(&c["s"])
    } else if about_a_secret(&c["k"]) {
        let v = c["s"].trim();
        !(token_like(v, 12) || is_uuid(v) || super::configured::looks_random(v))
    } else {
        // a key secret only by a credential word: a value that looks made up
        keep_unless_made_up_pair(c)
    }
}

/// Whether `s` looks made up: at least `min` characters, letters and digits, no white
/// space, not a UUID (`ArrowDown`, `deepStrictEqual` are words of code).
fn made_up(s: &str, min: usize) -> bool {
    let letters = s.bytes().any(|b| b.is_ascii_alphabetic());
    let digits = s.bytes().any(|b| b.is_ascii_digit());
    s.chars().count() >= min && letters && digits && !s.contains(char::is_whitespace) && !is_uuid(s)
}

/// A Vault batch or recovery token's look-alike ([`RULES`], helper-86 #2): `hvb.` and
/// `hvr.` also start host and class names (`hvb.payments-gateway.example.com`,
/// `hvb.RiskEngineV2`); the tokens are long random strings with digits throughout.
fn vault_look_alike(s: &str) -> bool {
    let Some(body) = s.strip_prefix("hvb.").or_else(|| s.strip_prefix("hvr.")) else {
        return false;
    };
    body.len() < 24 || body.bytes().filter(u8::is_ascii_digit).count() < 4
}

/// A client's password flag ([`RULES`]): kept when it is a shell variable (`$PW`,
/// `${PW}`, `%PW%`) or harmless.
fn keep_named_or_harmless(c: &Captures) -> bool {
    let s = c["s"].trim();
    // (on a client's command line any shell name: `-a "$redisPass2"`)
    let named = variable_name(s).is_some_and(|v| {
        !v.is_empty()
            && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !v.as_bytes()[0].is_ascii_digit()
    });
    // (`docker run -p 27017:27017` on a `mongo` line: ports)
    let ports = s
        .bytes()
        .all(|b| b.is_ascii_digit() || b == b':' || b == b'.');
    named || ports || value_is_harmless(s) || flag_in_prose(c)
}

/// A client's flag written about, not used (helper-86 #1): its "value" closes a quote or
/// a code span, is shell syntax (`2>&1`, `(see`), or, after a space, a plain lower-case
/// word (`unzip -P followed by the password`, `mongodump -p is deprecated`). A password
/// given after a space is kept hidden when it holds anything but lower-case letters.
fn flag_in_prose(c: &Captures) -> bool {
    let s = c["s"].trim();
    let Some(first) = s.chars().next() else {
        return true;
    };
    if "`()<>|&;,.".contains(first)
        || s.starts_with(|c: char| c.is_ascii_digit()) && s.contains('>')
    {
        return true;
    }
    // (bare values only: a quoted one is a password whatever it says)
    let whole = c.get(0).map_or("", |m| m.as_str());
    let spaced = c
        .name("s")
        .zip(c.get(0))
        .and_then(|(v, m)| whole[..v.start() - m.start()].chars().last())
        .is_some_and(|b| b == ' ' || b == '\t');
    let word = s.trim_end_matches([',', '.', ';', ':', '!', '?']);
    spaced && !word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase())
}

/// A header's value written apart from its name ([`RULES`]): hidden when one of its
/// words looks made up (`ApiKey zq8Kx2PLm9vv`), kept when none does (`required`).
fn keep_unless_a_made_up_word(c: &Captures) -> bool {
    !c["s"]
        .split([' ', '\t', ','])
        .any(|w| token_like(w.trim_matches(['"', '\'']), 12))
}

/// A bare key's quoted value in a printed object ([`RULES`]): [`keep_classic_pair`],
/// and kept when it describes rather than holds (a schema's `{ token: 'string' }`, a
/// sentence: `{ password: 'The user password' }`).
fn keep_described_or_classic_pair(c: &Captures) -> bool {
    let v = c["s"].trim();
    const TYPES: &[&str] = &[
        "string", "number", "boolean", "object", "array", "integer", "any", "unknown", "str",
        "bool", "int",
    ];
    TYPES.contains(&v.to_ascii_lowercase().as_str())
        || v.contains(char::is_whitespace)
        || keep_quoted_key_pair(c)
}

/// A quoted key's quoted value (`{'password': 'x y'}`, a Python dict): a key naming a
/// password holds one whatever it looks like; `token`, `key`, `auth` hold code's words
/// as often (`{'Key': 'Name'}`, `{ key: 'ArrowDown' }`: helper-82 A3), so theirs is
/// hidden when it looks made up.
fn keep_quoted_key_pair(c: &Captures) -> bool {
    (!names_a_password(&c["k"]) && !made_up(c["s"].trim(), 8)) || keep_classic_pair(c)
}

/// A pair's quoted value in the other spellings ([`RULES`]): hidden when it looks made
/// up ([`keep_unless_made_up_pair`]); assigned in code (`password := "x"`, `apiKey =>
/// 'x'`, `[]byte("x")`) to a key naming a password or an API key, hidden unless harmless
/// (`token => 'T_STRING'`, `key => 'utf8mb4'` are code's words).
fn keep_code_literal(c: &Captures) -> bool {
    let code =
        matches!(&c["sep"], "=>" | ":=") || c.name("open").is_some_and(|o| o.as_str() == "[]byte(");
    keep_unless_made_up_pair(c)
        && !(code
            && (names_a_password(&c["k"]) || names_an_api_key(&c["k"]))
            && !keep_classic_pair(c))
}

/// Whether a key names an API key (`apiKey`, `API_KEY`, `x-api-key`, `--apikey`).
fn names_an_api_key(key: &str) -> bool {
    let words = key_words(key);
    words.iter().any(|w| w == "apikey") || words.windows(2).any(|p| p[0] == "api" && p[1] == "key")
}

/// Whether a key holds a secret whatever its value looks like, a plain word included:
/// it names a password or a secret (`names_a_password`: `--password`, `--passwd`,
/// `--client-secret`), a token (`--token`, `--access-token`, `--auth-token`) or an API
/// key (`--api-key`, `--apikey`). `auth`, `key` or `credentials` alone name a method, a
/// key's name or a file as often (`--auth oauth`, `--key signing`), and do not; a key
/// that says something about the secret (`--password-file`, `--token-type`) is
/// [`key_looks_secret`]'s to rule out.
pub fn holds_any_value(key: &str) -> bool {
    names_a_password(key)
        || names_an_api_key(key)
        || key_words(key).last().is_some_and(|w| w.ends_with("token"))
}

/// Whether a key names a password (or a secret): its value is one whatever it looks
/// like, where a `token` or a `key` holds code's words as often.
fn names_a_password(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    ["password", "passwd", "passphrase"]
        .iter()
        .any(|w| k.contains(w))
        || key_words(&k)
            .last()
            .is_some_and(|w| ["secret", "pw", "pwd", "pass"].contains(&w.as_str()))
}

/// The first field of Go's printed struct (`{Token:V ...}`, [`RULES`]): a password's
/// value hidden unless harmless; a `Key`'s when it is shaped as a credential
/// (`{Key:Name Value:x}` is an AWS tag, `{Key:uploads/a.pdf}` an object); another
/// secret word's when it looks made up and holds no path or dotted name.
fn keep_go_field(c: &Captures) -> bool {
    let k = c["k"].to_ascii_lowercase();
    let v = c["s"].trim();
    // (the key as written: `SecretName`, `TokenType` are words about a secret)
    if !classic_key_looks_secret(&c["k"]) || (value_is_harmless(v) && !secret_number(&c["k"], v)) {
        return true;
    }
    if ["password", "passwd", "passphrase", "secret"]
        .iter()
        .any(|w| k.contains(w))
    {
        return false;
    }
    if k == "key" {
        return !token_like(v, 12);
    }
    // (`{Token:a.b/c}`: a path or a dotted name)
    !made_up(v, 8) || v.contains(['/', '.', ':'])
}

/// A plural secret key's list (`API_KEYS=k1,k2`, [`RULES`]): hidden whole unless every
/// value is harmless; `sort_keys=a,b` and keys whose last word is no secret's plural
/// (`PASSWORD_RULES=upper,digit`) are no such list.
fn keep_unless_plural_secret_list(c: &Captures) -> bool {
    let plural = key_words(&c["k"])
        .last()
        .is_some_and(|w| SECRET_PLURALS.contains(&w.as_str()));
    !plural
        || !classic_key_looks_secret(&c["k"])
        || c["s"]
            .split(',')
            .all(|v| value_is_harmless(v) || names_a_value(v))
}

/// The last words of a key holding a list of secrets ([`keep_unless_plural_secret_list`];
/// the anchors of its rule too).
const SECRET_PLURALS: &[&str] = &[
    "keys",
    "apikeys",
    "tokens",
    "secrets",
    "passwords",
    "passwds",
    "passphrases",
    "credentials",
    "creds",
];

/// A pair whose key alone says secret in the classic way ([`classic_key_looks_secret`]):
/// its value hidden unless harmless.
fn keep_classic_pair(c: &Captures) -> bool {
    !classic_key_looks_secret(&c["k"])
        || (value_is_harmless(&c["s"]) && !secret_number(&c["k"], &c["s"]))
}

/// Whether `s` is shaped as a generated credential: `min` characters or more of a
/// token's alphabet (letters, digits, `_ - . ~ + / =`), letters and digits, in mixed
/// case or 20 characters or more; not a UUID, nor a name of words (`Mcp-Protocol-Version2`,
/// `max_retries2`, `tools-list-v3`: helper-82 A2). What the rules that meet ordinary
/// text more often than credentials (`key: V`, `token: V`, a header's value written apart)
/// ask of a value.
fn token_like(s: &str, min: usize) -> bool {
    let b = s.as_bytes();
    let alphabet = b
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || b"_-.~+/=".contains(c));
    let upper = b.iter().any(u8::is_ascii_uppercase);
    let lower = b.iter().any(u8::is_ascii_lowercase);
    let digits = b.iter().any(u8::is_ascii_digit);
    // words joined: every piece between separators a word (letters, a digit or two
    // at its end) or a number
    let words = s.split(['_', '-', '.', '/']).all(|w| {
        let letters = w.trim_end_matches(|c: char| c.is_ascii_digit());
        (w.len() - letters.len() <= 2 && letters.bytes().all(|c| c.is_ascii_alphabetic()))
            && (letters.len() <= 1
                || letters[1..].bytes().all(|c| c.is_ascii_lowercase())
                || letters.bytes().all(|c| c.is_ascii_uppercase()))
            || w.bytes().all(|c| c.is_ascii_digit())
    });
    b.len() >= min
        && alphabet
        && (upper || lower)
        && digits
        && ((upper && lower) || b.len() >= 20)
        && !words
        && !is_uuid(s)
}

/// A key whose last word describes a secret rather than holds it
/// ([`ABOUT_A_SECRET`]: `SECRET_ID`, `ADMIN_PASSWORD_ENV`) and which says secret
/// without it: its value is configuration unless it is shaped as a credential
/// ([`token_like`]) or is a UUID (a Vault `secret_id`; helper-82 B1, B2).
fn about_a_secret(key: &str) -> bool {
    let words = key_words(key);
    match words.split_last() {
        Some((last, rest)) if ABOUT_A_SECRET.contains(&last.as_str()) || last == "id" => {
            !rest.is_empty() && classic_key_looks_secret(&rest.join("_"))
        }
        _ => false,
    }
}

/// A list under a key ([`RULES`]): hidden whole when its key looks secret and one of
/// its values looks made up.
fn keep_unless_made_up_list(c: &Captures) -> bool {
    !key_looks_secret(&c["k"])
        || !c["s"]
            .split(['"', '\'', ','])
            .any(|item| made_up(item.trim(), 8))
}

/// A pair in one of the other spellings ([`RULES`]): hidden only when its key looks
/// secret and its value looks made up.
fn keep_unless_made_up_pair(c: &Captures) -> bool {
    !key_looks_secret(&c["k"]) || !made_up(&c["s"], 8) || value_is_harmless(&c["s"])
}

/// `KEY: value` only for keys that look like identifiers (`X-Api-Key`, `API_TOKEN`,
/// `accessToken`), so prose such as "invalid token: expected ..." is left alone.
fn keep_colon_pair(c: &Captures) -> bool {
    let k = &c["k"];
    // (Rust's `Some(...)`: its rules above judge what it holds, `Some(ApiKey(..))` is
    // code)
    if c["s"].starts_with("Some(") {
        return true;
    }
    let camel = k
        .as_bytes()
        .windows(2)
        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    // (`password: x`, `db.secret: x`: a password's plain label)
    if password_label(k) {
        return keep_password_label(c);
    }
    // (`creds: abc123`: a credential's plain label)
    if creds_label(k) && !keep_creds_label(c) {
        return false;
    }
    // (`DB_PIN: 4821`; a word after it is a sentence's, `PIN: 1234 attempts`, as after
    // `password:`)
    if secret_number(k, &c["s"]) {
        return c.name("next").is_some();
    }
    // A plain word (`apikey: x`) is a key only when its value looks made up, not like
    // prose ("invalid token: expected number").
    let strong = k.eq_ignore_ascii_case("apikey");
    let made_up = c["s"]
        .bytes()
        .any(|b| b.is_ascii_digit() || b.is_ascii_punctuation());
    // (`token: zqx12345abc`, `API key: ...`: any secret-looking key before a value
    // that looks made up, letters and digits, 8 or more: prose after `token:` is words;
    // after `token:` or `credentials:` a short one too, `token: ab12cd34`,
    // `credentials: C51xq7Lm2Pz9` (helper-97), not `token: rparen2`)
    let token = key_words(k)
        .last()
        .is_some_and(|w| SHORT_CREDENTIAL_KEYS.contains(&w.as_str()));
    let made_up_value = classic_key_looks_secret(k)
        && (token_like(&c["s"], 16) || (token && short_token_like(&c["s"])));
    !(k.contains(['_', '-']) || camel || (strong && made_up) || made_up_value) || keep_pair(c)
}

/// The last words of a key after whose colon a short credential ([`short_token_like`])
/// is one ([`keep_colon_pair`]): a token's, and credentials' (helper-97: `credentials:
/// C51xq7Lm2Pz9` was shown, 12 characters being too few for [`token_like`]).
const SHORT_CREDENTIAL_KEYS: &[&str] = &["token", "credentials", "credential"];

/// A short credential's shape, for where [`token_like`]'s 16 characters are too many
/// (`token: ab12cd34`): 6 characters or more of a token's alphabet, one piece of which
/// (between `_ - . /`) is 6 characters or more and turns from letters to digits or back
/// three times or more, with three digits or more or in mixed case (`ab12cd34`,
/// `a1B2c3D`, `Zq8K2PL`); a word and a number (`rparen2`, `ident42abc`, `cl100k_base`,
/// `v1beta2`, `utf8mb4`) is none.
fn short_token_like(s: &str) -> bool {
    let alphabet = s
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || b"_-.~+/=".contains(&c));
    token_like(s, 16)
        || (s.len() >= 6
            && alphabet
            && !is_uuid(s)
            && s.split(['_', '-', '.', '/']).any(|p| {
                let b = p.as_bytes();
                let turns = b
                    .windows(2)
                    .filter(|w| w[0].is_ascii_digit() != w[1].is_ascii_digit())
                    .count();
                let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
                let mixed = b.iter().any(u8::is_ascii_lowercase)
                    && b.iter().skip(1).any(u8::is_ascii_uppercase);
                b.len() >= 6 && turns >= 3 && (digits >= 3 || mixed)
            }))
}

/// The plain labels credentials follow (`creds:`, `credentials:`, `db.creds:`), whose
/// value [`keep_creds_label`] judges.
const CREDS_LABELS: &[&str] = &["creds", "credentials", "credential"];

fn creds_label(k: &str) -> bool {
    let last = k.rsplit('.').next().unwrap_or(k);
    CREDS_LABELS.iter().any(|l| last.eq_ignore_ascii_case(l))
}

/// The value after a credentials' plain label ([`CREDS_LABELS`]): a short secret
/// (`creds: abc123`, `credentials: s3cr3t`, `creds: P@ss`) when it is a word of four
/// characters or more holding a letter and a digit or a sign ([`letter_and_other`]),
/// but for a word and its one digit (`invalid2`, `oauth2`: a state, a scheme), and is
/// not kept as after `password:` ([`keep_password_label`]: `credentials: sha256`, a
/// place, a placeholder). A plain word (`creds: loaded`, `credentials: expired`) is a
/// state far more often than a secret, and stays; so does a value of several words
/// (`credentials: found in ~/.aws`) and `user:password` (the rule for it judges it).
fn keep_creds_label(c: &Captures) -> bool {
    let v = c["s"].trim();
    let word = v.trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
    let word_and_digit = word
        .strip_suffix(|ch: char| ch.is_ascii_digit())
        .is_some_and(|w| w.bytes().all(|b| b.is_ascii_alphabetic()));
    word.chars().count() < 4
        || word.contains(':')
        || word_and_digit
        || !letter_and_other(word)
        || keep_password_label(c)
}

/// Whether `word` holds a letter and a digit or a sign, as a password written by hand
/// does (`hunter2`, `P@ss`, `Xk8mQ2pL9v`); a plain word (`sommer`) or a name of words
/// (`aws-prod`, `my_profile`) holds none.
fn letter_and_other(word: &str) -> bool {
    word.chars().any(char::is_alphabetic)
        && word
            .bytes()
            .any(|b| b.is_ascii_digit() || b"!@#$%^&*+=?~".contains(&b))
}

/// The plain labels a password follows (`password:`, `Passwd:`, `PWD:`, `secret:`,
/// `passphrase:`, after dotted names too: `db.password:`), whose value
/// [`keep_password_label`] judges.
const PASSWORD_LABELS: &[&str] = &["password", "passwd", "pwd", "secret", "passphrase"];

fn password_label(k: &str) -> bool {
    let last = k.rsplit('.').next().unwrap_or(k);
    PASSWORD_LABELS.iter().any(|l| last.eq_ignore_ascii_case(l))
}

/// What a single word after a password's label (`password:`, `passwd:`, `pwd:`, ...)
/// is when it is no password: a state (`password: required`, `Password: not set`,
/// `secret: missing`), a word of the sentence the label is in (`password: is
/// required`, `Password: Enter yours`: also the word after the value, `password:
/// expires in 3 days`), a type (`password: string`) or a placeholder's word
/// (`changeme`, `redacted`). Any other single word there is taken for a password
/// (`password: correcthorsebattery`).
pub const NOT_A_PASSWORD: &[&str] = &[
    // states a password is in, and what keeps or checks it (helper-89 #3: these were
    // hidden as passwords)
    "locked",
    "unlocked",
    "rotated",
    "pending",
    "cached",
    "matched",
    "mismatched",
    "correct",
    "validated",
    "salted",
    "obfuscated",
    "entered",
    "typed",
    "reused",
    "compromised",
    "breached",
    "leaked",
    "strong",
    "medium",
    "fair",
    "good",
    "excellent",
    "sufficient",
    "insufficient",
    "acceptable",
    "unacceptable",
    "allowed",
    "forbidden",
    "granted",
    "refused",
    "failure",
    "succeeded",
    "passed",
    "interactive",
    "non-interactive",
    "created",
    "deleted",
    "deprecated",
    "generated",
    "autogenerated",
    "auto-generated",
    "randomized",
    "recommended",
    "permanent",
    "previous",
    "last",
    "native",
    "strength",
    "confirmation",
    "synced",
    "transmitted",
    "supported",
    "unsupported",
    "unavailable",
    "authentication",
    "ldap",
    "sso",
    "pam",
    "saml",
    "ntlm",
    "md5",
    "pbkdf2",
    "argon2",
    "scram-sha-256",
    // (a hash or an encoding it goes through: `password is utf-8 encoded`)
    "sha1",
    "sha-1",
    "sha256",
    "sha-256",
    "sha512",
    "sha-512",
    "utf8",
    "utf-8",
    "base64",
    "vault",
    "mounted",
    "ask",
    "password",
    "rotation",
    "version",
    "active",
    "inactive",
    "due",
    "after",
    "against",
    "above",
    "below",
    "over",
    "soon",
    "success",
    "temporary",
    "initial",
    "confirm",
    "retype",
    "repeat",
    "again",
    "plaintext",
    "cleartext",
    "oauth",
    "oauth1",
    "oauth2",
    "kerberos",
    "keychain",
    "keyring",
    "bcrypt",
    "scrypt",
    "notset",
    "required",
    "missing",
    "invalid",
    "incorrect",
    "wrong",
    "empty",
    "blank",
    "none",
    "null",
    "nil",
    "undefined",
    "unknown",
    "not",
    "set",
    "unset",
    "true",
    "false",
    "on",
    "off",
    "ok",
    "okay",
    "yes",
    "no",
    "expired",
    "expires",
    "expiring",
    "changed",
    "unchanged",
    "change",
    "reset",
    "prompt",
    "prompted",
    "provided",
    "supplied",
    "needed",
    "optional",
    "mandatory",
    "absent",
    "present",
    "found",
    "given",
    "specified",
    "configured",
    "stored",
    "saved",
    "updated",
    "accepted",
    "rejected",
    "denied",
    "failed",
    "verified",
    "mismatch",
    "matches",
    "match",
    "ignored",
    "skipped",
    "default",
    "disabled",
    "enabled",
    "protected",
    "encrypted",
    "hashed",
    "sent",
    "weak",
    "short",
    "too",
    "enter",
    "type",
    "use",
    "see",
    "check",
    "please",
    // a schema's or a signature's type (`password: string`, `password: str = ...`)
    "string",
    "str",
    "secretstr",
    "text",
    "number",
    "integer",
    "int",
    "boolean",
    "bool",
    "object",
    "any",
    // placeholders
    "hidden",
    "masked",
    "redacted",
    "omitted",
    "removed",
    "filtered",
    "censored",
    "secret",
    "changeme",
    "placeholder",
    "example",
    // a sentence's small words
    "is",
    "was",
    "are",
    "were",
    "be",
    "been",
    "has",
    "have",
    "had",
    "will",
    "would",
    "should",
    "must",
    "can",
    "cannot",
    "could",
    "may",
    "might",
    "does",
    "did",
    "do",
    "for",
    "the",
    "a",
    "an",
    "and",
    "or",
    "but",
    "of",
    "to",
    "in",
    "at",
    "by",
    "with",
    "from",
    "as",
    "if",
    "then",
    "than",
    "this",
    "that",
    "these",
    "those",
    "it",
    "its",
    "your",
    "yours",
    "my",
    "our",
    "their",
    "you",
    "we",
    "they",
    "any",
    "all",
    "each",
    "only",
    "also",
    "still",
    "already",
    "now",
    "here",
    "there",
    "via",
    "using",
    "when",
    "where",
    "which",
    "what",
    "how",
    "same",
    "new",
    "old",
    "current",
    "never",
    "always",
];

/// A placeholder's form, where a password's value would be: a repeated mark (`***`,
/// `xxx`, `...`, `-`, `?`), a format's (`%s`, `%v`, `{}`, `{0}`, `{password}`), words in
/// brackets (`[hidden]`, `(redacted)`, `<nil>`).
fn placeholder(v: &str) -> bool {
    let b = v.as_bytes();
    let repeated = v
        .chars()
        .next()
        .is_some_and(|first| "*xX•.-?#".contains(first) && v.chars().all(|c| c == first));
    let format = (v.len() <= 3
        && v.starts_with('%')
        && v[1..].bytes().all(|c| c.is_ascii_alphabetic() || c == b'+'))
        || (v.starts_with('{')
            && v.ends_with('}')
            && v.bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"{}_.".contains(&c)));
    let bracketed = b.len() > 2
        && matches!(
            (b[0], b[b.len() - 1]),
            (b'[', b']') | (b'(', b')') | (b'<', b'>')
        )
        && b[1..b.len() - 1]
            .iter()
            .all(|c| c.is_ascii_alphabetic() || b" _-.:".contains(c));
    repeated || format || bracketed
}

/// The value after a password's plain label ([`PASSWORD_LABELS`], [`RULES`]): hidden
/// unless it is harmless ([`value_is_harmless`]), a place (`pwd: /home/x/app`), a
/// placeholder ([`placeholder`]), a word of [`NOT_A_PASSWORD`], or a word the sentence
/// goes on after with one of them (`password: expires in 3 days`); a number alone is a
/// PIN from four digits on (`Password: 8 characters` is prose). A quoted value with
/// spaces is a sentence unless it holds a digit or a sign (`"The user password"`).
fn keep_password_label(c: &Captures) -> bool {
    let v = c["s"].trim();
    // (Rust's `Some(`: its rules judge it)
    if v.starts_with("Some(") {
        return true;
    }
    if v.contains(char::is_whitespace) {
        return !v
            .bytes()
            .any(|b| b.is_ascii_digit() || b.is_ascii_punctuation())
            || keep_pair(c);
    }
    let word = v.trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
    // (a remark in parentheses: `Passphrase: (empty for none)`)
    let remark = word
        .strip_prefix('(')
        .is_some_and(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphabetic()));
    let next = c.name("next").map(|n| n.as_str().to_ascii_lowercase());
    if !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) {
        return next.is_some() || word.len() < 4;
    }
    let prose = is_a_state;
    let alphabetic = !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphabetic());
    // `pwd: /home/app`, `pwd: ~/work`: the working directory (helper-89 #3, #10)
    let folder = c["k"].eq_ignore_ascii_case("pwd") && v.starts_with(['/', '~', '.']);
    folder
        || value_is_harmless(v)
        || deep_locator(v)
        || remark
        || placeholder(v)
        || placeholder(word)
        || prose(word)
        // (a word the sentence goes on after with a verb: `pwd: command not found`,
        // `password: rotation is due`; after any other word it is judged alone:
        // `password: sunflower for alice` is a password, helper-90 #2)
        || (alphabetic && next.is_some_and(|n| SENTENCE_GOES_ON.contains(&n.as_str())))
}

/// The next words that make a single word after a password's label the subject of a
/// sentence (`pwd: command not found`) rather than a value.
const SENTENCE_GOES_ON: &[&str] = &[
    "not", "is", "was", "are", "were", "has", "have", "had", "will", "would", "must", "cannot",
    "can", "should", "does", "did", "after", "due",
];

/// The value after `password is` ([`RULES`]): after `password is:` (`Your password is:
/// hunter2`), or quoted, judged as after `password:` ([`keep_password_label`]); after
/// `password is` and a space, where a sentence goes on far more often (`password is
/// incorrect`, `password is valid`, `password is used to sign in`), only a word holding a
/// letter and a digit or a sign (`hunter2`, `P@ssw0rd`) is a password, and then as after
/// `password:` (`password is md5`, a scheme of [`NOT_A_PASSWORD`], stays).
fn keep_password_is(c: &Captures) -> bool {
    let (Some(m), Some(s)) = (c.get(0), c.name("s")) else {
        return true;
    };
    let quoted = m.as_str()[..s.start() - m.start()].ends_with(['"', '\'']);
    let word = s
        .as_str()
        .trim()
        .trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
    let letter = word.bytes().any(|b| b.is_ascii_alphabetic());
    let other = word
        .bytes()
        .any(|b| b.is_ascii_digit() || b"!@#$%^&*+=?~".contains(&b));
    let labelled = c.name("colon").is_some() || quoted;
    !(labelled || (letter && other)) || keep_password_label(c)
}

/// The value after `auth token:` or `access token:` ([`RULES`]): hidden when it is a
/// generated word, six characters or more of a token's alphabet holding letters and
/// digits, with a piece (between `_ - . /`) turning between them twice or more (`a8f3k2`,
/// `2aabfe22`, `PtdbmF4RPA`) or shaped as a credential ([`token_like`]), and is not kept
/// by what a password's label keeps ([`keep_password_label`]: a state of
/// [`NOT_A_PASSWORD`], a placeholder, `(none)`, the sentence going on). A word alone
/// (`expired`, `refreshed`, `obtained`: a token's state far more often than a token is
/// letters alone), a word and its number (`oauth2`, `sha256`, `tools-v2`) or a UUID is
/// none.
fn keep_token_label(c: &Captures) -> bool {
    let word = c["s"]
        .trim()
        .trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
    let alphabet = word
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"_-.~+/=".contains(&b));
    let turns = |p: &str| {
        p.as_bytes()
            .windows(2)
            .filter(|w| w[0].is_ascii_digit() != w[1].is_ascii_digit())
            .count()
    };
    let generated = alphabet
        && made_up(word, 6)
        && (word.split(['_', '-', '.', '/']).any(|p| turns(p) >= 2) || token_like(word, 10));
    !generated || keep_password_label(c)
}

/// A user's password after `credentials:`, `creds:` or `basic auth:` written as
/// `user:password` ([`RULES`]): kept when the "user" is a word about a secret (`type:`,
/// `file:`, `env:`, `provider:`: [`ABOUT_A_SECRET`]) or a number (a time: `12:30`), and
/// when the "password" is harmless, a placeholder, a word of [`NOT_A_PASSWORD`]
/// (`aws:default`) or a name of parts (`arn:aws:iam::1:role/x`, `secretsmanager:prod/db`,
/// `file:///x`: another `:` or a `/`, unless it looks random).
fn keep_user_password(c: &Captures) -> bool {
    let user = c["user"].to_ascii_lowercase();
    let v = c["s"].trim();
    ABOUT_A_SECRET.contains(&user.as_str())
        || user.bytes().all(|b| b.is_ascii_digit())
        || says_no_password(v)
        || (v.contains([':', '/']) && !super::configured::looks_random(v))
}

/// Whether `v` after a password's label says there is none to hide: harmless (a
/// number, a boolean), a placeholder, or a state of [`NOT_A_PASSWORD`].
fn says_no_password(v: &str) -> bool {
    value_is_harmless(v) || placeholder(v) || is_a_state(v)
}

/// Whether `w` is one of [`NOT_A_PASSWORD`]'s states, case aside.
pub fn is_a_state(w: &str) -> bool {
    NOT_A_PASSWORD.contains(&w.to_ascii_lowercase().as_str())
}

/// The text of an XML element named for a secret (`<password>V</password>`,
/// `<apiKey>V</apiKey>`, `<ns:token>V</ns:token>`, [`RULES`]): kept unless the closing
/// tag names the same element and the name looks secret ([`classic_key_looks_secret`]:
/// `<PasswordHint>`, `<TokenType>`, `<SecretName>` say something about one). A
/// password's, a token's or an API key's text is judged as after `password:`
/// ([`keep_password_label`]: `<password>required</password>`, a number under four
/// digits, `${DB_PASSWORD}`, `{{token}}` stay); another's (`<key>`, `<auth>`) is hidden
/// when it looks made up (`<key>password</key>` is a property list's key).
fn keep_xml_element(c: &Captures) -> bool {
    let k = &c["k"];
    let name = k.rsplit(':').next().unwrap_or(k);
    if !c["close"].eq_ignore_ascii_case(k) || !classic_key_looks_secret(name) {
        return true;
    }
    if holds_any_value(name) {
        return keep_password_label(c);
    }
    let v = c["s"].trim();
    !made_up(v, 8) || value_is_harmless(v)
}

/// The word before `:` in `word:x@host` that makes it no user's password
/// ([`keep_bare_userinfo`]): a mail header's or a field's label (`From:bob@example.com`,
/// `email:bob@x.io`), a URI scheme written without `//` (`mailto:`, `sip:`), a package
/// manager's alias (`npm:lodash@4.17.21`, `jsr:`, `workspace:`).
const NOT_A_USER: &[&str] = &[
    "mailto",
    "mail",
    "email",
    "e-mail",
    "from",
    "to",
    "cc",
    "bcc",
    "reply-to",
    "sender",
    "author",
    "contact",
    "sip",
    "sips",
    "xmpp",
    "im",
    "npm",
    "jsr",
    "workspace",
    "patch",
    "link",
    "file",
    "github",
    "git",
];

/// The last labels of a host name that say it is a private one (as [`HOST_RULES`]
/// reads them).
const PRIVATE_HOST_SUFFIXES: &[&str] = &[
    "local",
    "localdomain",
    "internal",
    "lan",
    "corp",
    "intranet",
    "arpa",
    "private",
];

/// `user:password@host` written without a scheme ([`RULES`]: `connecting
/// admin:PW@db.internal:5432`, helper-97): the password, unless `user` is a label
/// ([`NOT_A_USER`]: `email:bob@example.com`), the "password" is harmless (a number: a
/// port, a time, `admin:8080@`), a placeholder or a state, or the host reads as a mail
/// domain and the "password" as a mailbox's name: a password is hidden before a port,
/// a host of one label (`localhost`, `db`), an IPv4 address or a private host
/// (`.internal`, `.local`), and before any other host only when it looks made up
/// (`contact:bob@example.com` is a mailbox).
fn keep_bare_userinfo(c: &Captures) -> bool {
    let user = c["user"].to_ascii_lowercase();
    let v = c["s"].trim();
    let host = c["host"].to_ascii_lowercase();
    let labels: Vec<&str> = host.split('.').collect();
    let ipv4 = labels.len() == 4
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()));
    let private = c.name("port").is_some()
        || labels.len() == 1
        || ipv4
        || labels
            .last()
            .is_some_and(|l| PRIVATE_HOST_SUFFIXES.contains(l));
    // (`pkg:npm/%40scope/name@1.0.0`: a version after the `@`, no host)
    let version = !ipv4
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()));
    // (`registry:5000/team/mcp-server@sha256:...`: a host, its port and a path, then an
    // image digest's algorithm, no password: helper-105)
    let port_and_path = v
        .split_once('/')
        .is_some_and(|(p, _)| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    let digest = matches!(
        host.as_str(),
        "sha1" | "sha224" | "sha256" | "sha384" | "sha512" | "md5" | "blake2b" | "blake3"
    );
    NOT_A_USER.contains(&user.as_str())
        || version
        || port_and_path
        || digest
        || says_no_password(v)
        || !(private || made_up(v, 8))
}

/// The names of a web framework's session cookie (Django's `sessionid`, PHP's
/// `PHPSESSID`, Java's `JSESSIONID`, ASP.NET's, Express's `connect.sid`): whoever holds
/// its value is logged in (helper-97: `sessionid=V` was shown). A `session_id` or an
/// MCP session's `Mcp-Session-Id` names a session to find in logs, and stays.
const SESSION_COOKIES: &[&str] = &[
    "sessionid",
    "phpsessid",
    "jsessionid",
    "asp.net_sessionid",
    "aspsessionid",
    "connect.sid",
];

/// A session cookie's value ([`SESSION_COOKIES`], [`RULES`]): kept when harmless (a
/// number), a placeholder, a variable or a UUID (a request's id more often than a
/// cookie's).
fn keep_session_cookie(c: &Captures) -> bool {
    let v = c["s"].trim();
    value_is_harmless(v) || placeholder(v) || is_uuid(v)
}

/// A session's id ([`RULES`]): hidden when it, or a piece of it between `.`, `:` and
/// `%` (Express's signed `s:ID.SIG`, URL-encoded), looks generated ([`token_like`]:
/// `8f3a9c2b7d1e4f6a0b5c8d2e7f1a3b9c`, `Zk3q9LmP2vX8rT5wNc7Y`); kept when it is a
/// UUID, a number, a placeholder or a name (`session_id=3`, `sid=main`, a Windows
/// `sid=S-1-5-21-...` of numbers).
fn keep_session_id(c: &Captures) -> bool {
    let v = c["s"].trim();
    let generated = v
        .split(['.', ':', '%'])
        .any(|p| token_like(p, 16) || super::configured::looks_random(p));
    !generated || is_uuid(v) || value_is_harmless(v) || placeholder(v)
}

/// A value alone on the line after its key, indented further (YAML's block value,
/// [`RULES`]: `password:` then `  V`, `password: |` then `  V`): judged as after
/// `password:` ([`keep_password_label`]) under a key naming a password, a secret, a
/// token or an API key ([`holds_any_value`]); kept under any other key, and when the
/// line is not indented further than the key's (the next key of the same mapping).
fn keep_block_value(c: &Captures) -> bool {
    let k = &c["k"];
    c["vind"].len() <= c["ind"].len()
        || !classic_key_looks_secret(k)
        || !holds_any_value(k)
        || keep_password_label(c)
}

/// A password's label in another language ([`RULES`]): German `Passwort` (and the
/// `pässwort` of a text spelled to slip past an English rule), `Kennwort`, French `mot
/// de passe`, Spanish `contraseña`, Portuguese `senha`, Dutch `wachtwoord`, Russian
/// `пароль`: the languages a server's stderr is most often written in after English.
/// A small list on purpose: each label is an anchor every text is searched for.
const FOREIGN_PASSWORD_LABELS: &str =
    r"pa(?:ss|ß)wort|pässwort|kennwort|mot de passe|contrase(?:ñ|n)a|senha|wachtwoord|пароль";

/// The same in Chinese (`密码`, `密碼`), Japanese (`パスワード`) and Korean (`비밀번호`),
/// after an ASCII or a full-width colon (`密码：abc`). No word boundary comes before
/// them (`用户密码：` is a user's password).
const CJK_PASSWORD_LABELS: &str = "密码|密碼|パスワード|비밀번호";

/// Words a sentence says after a password's label in another language where no password
/// is (`Passwort: falsch`, `mot de passe : incorrect`, `contraseña: requerida`, `senha:
/// inválida`, `wachtwoord: verlopen`, `пароль: неверный`), lower case: its states, and
/// the small words a sentence starts with there (`Passwort: ist abgelaufen`).
const FOREIGN_NOT_A_PASSWORD: &[&str] = &[
    // German
    "erforderlich",
    "falsch",
    "ungültig",
    "leer",
    "fehlt",
    "abgelaufen",
    "geändert",
    "nicht",
    "ist",
    "wird",
    "gesetzt",
    "vergessen",
    "korrekt",
    "richtig",
    "bitte",
    "eingeben",
    "ändern",
    "zurücksetzen",
    "bestätigen",
    "erfolgreich",
    "gespeichert",
    "verschlüsselt",
    "fehlerhaft",
    "abgelehnt",
    "benötigt",
    "muss",
    "zu",
    "keins",
    "kein",
    "keines",
    // French
    "incorrect",
    "incorrecte",
    "invalide",
    "requis",
    "obligatoire",
    "vide",
    "expiré",
    "oublié",
    "manquant",
    "changé",
    "modifié",
    "est",
    "non",
    "défini",
    "erroné",
    "trop",
    "doit",
    "saisir",
    "confirmer",
    "valide",
    "aucun",
    // Spanish and Portuguese
    "incorrecta",
    "incorrecto",
    "inválida",
    "invalida",
    "requerida",
    "obligatoria",
    "vacía",
    "vacia",
    "caducada",
    "expirada",
    "olvidada",
    "es",
    "cambiada",
    "debe",
    "demasiado",
    "introduzca",
    "ingrese",
    "confirmar",
    "válida",
    "incorreta",
    "obrigatória",
    "vazia",
    "esquecida",
    "é",
    "não",
    "alterada",
    "muito",
    "digite",
    "informe",
    "errada",
    "ninguna",
    "nenhuma",
    // Dutch
    "onjuist",
    "ongeldig",
    "vereist",
    "verplicht",
    "leeg",
    "verlopen",
    "vergeten",
    "niet",
    "gewijzigd",
    "moet",
    "te",
    "voer",
    "bevestigen",
    "fout",
    "geen",
    // Russian
    "неверный",
    "неверен",
    "неверно",
    "обязателен",
    "обязательно",
    "пустой",
    "пуст",
    "истек",
    "истёк",
    "не",
    "изменен",
    "изменён",
    "забыли",
    "введите",
    "подтвердите",
    "слишком",
    "должен",
    "требуется",
    "неправильный",
    "нет",
];

/// The value after a password's label in another language ([`FOREIGN_PASSWORD_LABELS`],
/// [`CJK_PASSWORD_LABELS`]): a password, whatever it looks like (`Passwort: sommer`,
/// `contraseña=luna`, `пароль: zima`: a plain word hid nothing before), unless it is
/// harmless (a number under four digits), a placeholder, a state of [`NOT_A_PASSWORD`]
/// or [`FOREIGN_NOT_A_PASSWORD`], or a plain word the sentence goes on after (`more`:
/// `Passwort: bitte eingeben`; one holding a digit or a sign is hidden there too). After
/// a CJK label a value of no ASCII letter, digit or sign is the sentence's (`密码：错误`,
/// `密码：不能为空`).
fn keep_foreign_password(c: &Captures) -> bool {
    let word = c["s"].trim().trim_end_matches([
        '.', ',', ';', ':', '!', '?', ')', '。', '，', '！', '？', '）',
    ]);
    let pin = word.len() >= MIN_SECRET_NUMBER && word.bytes().all(|b| b.is_ascii_digit());
    if pin {
        return false;
    }
    let lower = word.to_lowercase();
    if word.is_empty()
        || value_is_harmless(word)
        || placeholder(word)
        || is_a_state(word)
        || FOREIGN_NOT_A_PASSWORD.contains(&lower.as_str())
    {
        return true;
    }
    if c.name("cjk").is_some() {
        return !word.bytes().any(|b| b.is_ascii_graphic());
    }
    !letter_and_other(word) && c.name("more").is_some()
}

/// A UUID (session ids, request ids) is not a secret, even next to a secret word.
fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| {
            if [8, 13, 18, 23].contains(&i) {
                c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

/// High-entropy values: at least 32 characters, both letters and digits, not a UUID.
fn keep_high_entropy(c: &Captures) -> bool {
    let s = &c["s"];
    let letters = s.bytes().any(|b| b.is_ascii_alphabetic());
    let digits = s.bytes().any(|b| b.is_ascii_digit());
    !(letters && digits) || is_uuid(s.trim_end_matches('=')) || value_is_harmless(s)
}

/// `Authorization: <scheme> <credential>` with one of the four schemes the rule before
/// it shows (that rule hides their credential alone), or with a word after the scheme
/// that does not look made up (`Authorization: required for this endpoint`).
fn keep_known_scheme_or_harmless(c: &Captures) -> bool {
    let s = &c["s"];
    let (scheme, credential) = s.split_once([' ', '\t']).unwrap_or((s, ""));
    let credential = credential.trim_start();
    ["bearer", "basic", "token", "digest"].contains(&scheme.to_ascii_lowercase().as_str())
        || !made_up(credential, 8)
        || value_is_harmless(credential)
}

/// `Authorization: Bearer` with its token on the next line (a wrapped screen line, a
/// header folded in a log): the scheme word is no secret; the token is found on its own.
fn keep_scheme_or_harmless(c: &Captures) -> bool {
    ["bearer", "basic", "token", "digest"].contains(&c["s"].to_ascii_lowercase().as_str())
        || digest_parameter(c)
        || keep_harmless(c)
}

/// `Authorization: Digest username="u", ...`: the value after the scheme is its first
/// parameter (`username=`, the rule stopping at its quote), not a credential; the
/// Digest rule hides its `response` ([`RULES`], helper-97: `Digest
/// [REDACTED:authorization]"u", response="V"` hid the parameter's name and showed the
/// response).
fn digest_parameter(c: &Captures) -> bool {
    let whole = c.get(0).map_or("", |m| m.as_str());
    let name = c["s"].split_once('=').map_or("", |(n, _)| n);
    whole.to_ascii_lowercase().contains("digest")
        && !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `Basic <base64>` after any key (or none), as a `Bearer` token is: a secret when the
/// base64 is whole (padded to four characters) and reads as `user:password` (printable,
/// with a colon); `Basic realm="x"`, `basic authentication` are words.
fn keep_unless_basic_credentials(c: &Captures) -> bool {
    let s = &c["s"];
    if !s.len().is_multiple_of(4) {
        return true;
    }
    let mut bits = 0u32;
    let mut n = 0;
    let mut out: Vec<u8> = Vec::with_capacity(s.len() / 4 * 3);
    for b in s.bytes().take_while(|&b| b != b'=') {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            _ => 63,
        };
        bits = (bits << 6) | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    let text = String::from_utf8_lossy(&out);
    !(text.contains(':') && text.chars().all(|ch| !ch.is_control()) && !text.contains('\u{FFFD}'))
}

/// A value after `password ` or `token ` (a space, no `=` or `:`) is a secret only when
/// it looks made up: six characters or more, letters and digits, not a UUID.
fn keep_unless_made_up(c: &Captures) -> bool {
    // (`at fetchToken (/app/chunk-3m9hzpb5.js:12:30)`: a stack frame's place)
    if c["s"].starts_with('(') {
        return true;
    }
    // (Go's `{Key:password Value:x}`: the next field, which the key-value rule judges)
    if c["s"].starts_with("Value:") {
        return true;
    }
    let s = c["s"].trim_end_matches(['.', ')', ']', '}']);
    let letters = s.bytes().any(|b| b.is_ascii_alphabetic());
    let digits = s.bytes().any(|b| b.is_ascii_digit());
    !(s.chars().count() >= 6 && letters && digits) || is_uuid(s) || value_is_harmless(s)
}

/// The auth-params a `WWW-Authenticate: Bearer` challenge carries (RFC 6750, RFC 9728,
/// and those servers are seen to add): `Bearer resource_metadata="..."` is a challenge,
/// not a token.
const AUTH_PARAMS: &[&str] = &[
    "realm",
    "scope",
    "error",
    "error_description",
    "error_uri",
    "resource_metadata",
    "resource",
    "authorization_uri",
    "as_uri",
    "trusted_issuers",
    "client_id",
];

/// `Bearer` followed by an auth-param list, not a token: a token68 holds `=` only as
/// its trailing padding, so `name=value` (an `=` followed by more) is a parameter, and
/// so is a known parameter name followed by `=` (then a quoted value, or none). Its
/// values are left to the other rules (a query's `token=`, a `ghp_` token...).
fn keep_auth_param(c: &Captures) -> bool {
    let s = &c["s"];
    let (name, value) = match s.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None if c.name("eq").is_some() => (s, Some("")),
        None => return false,
    };
    let Some(value) = value else { return false };
    let param_name = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !param_name {
        return false;
    }
    // `name=value`: more than padding after the `=`
    if !value.trim_start_matches('=').is_empty() && !value.starts_with('=') {
        return true;
    }
    // `name=` then a value already redacted (`PASSWORD=[REDACTED:secret]`), or then a
    // quoted value after a known parameter name (a token of letters alone, padded, could
    // end a quoted string the same way)
    value.is_empty()
        && (c.name("marker").is_some() || AUTH_PARAMS.contains(&name.to_ascii_lowercase().as_str()))
}

/// `Bearer name=value` left as an auth-param list (not a token; see the bearer-token rule): where the
/// parameter (`s`) starts, where its `=` is, and where it ends, in `text`'s offsets.
/// Such a parameter goes whole when anything else is redacted inside its name or at its
/// `=`: cut there, the name's first piece next to the marker is a bearer token to the
/// next pass (`Bearer ghp_ghp_[REDACTED:secret]`), so redaction would not be
/// idempotent, and a piece of what may be a token would be shown.
pub fn kept_bearer_params(text: &str) -> Vec<KeptParam> {
    let rule = &RULES[bearer_rule()];
    let mut v = Vec::new();
    each_match(rule, text, |c, kept| {
        if !kept {
            return;
        }
        let s = c.name("s").expect("the bearer rule has an s group");
        let eq = match s.as_str().find('=') {
            Some(i) => s.start() + i,
            None => c.name("eq").map_or(s.end(), |e| e.end() - 1),
        };
        v.push(KeptParam {
            start: s.start(),
            eq,
            end: s.end(),
        });
    });
    v
}

/// Each match of `rule` in `hay`, in order, and whether the rule keeps it (`keep`).
/// After a kept `Bearer` parameter list the search goes on from inside it: a
/// parameter's value may hold another `Bearer` and its token
/// (`Bearer a=Bearer sk-...`), which the next pass would find once the first is hidden.
/// So it does after a kept `KEY=value` (a key that is no secret's, or a harmless value):
/// the value may itself be a pair (`FOO=PASSWORD=hunter2`, `url=https://h/?token=...`),
/// which the match of its outer pair hid from the rule. At most [`NESTED_VALUES`] values
/// deep: each search inside a value can run to that value's end, so `x=x=x=...` would
/// otherwise cost the square of its length.
fn each_match<'h>(rule: &Rule, hay: &'h str, mut f: impl FnMut(&Captures<'h>, bool)) {
    let mut at = 0;
    // how many values deep the search is, and where the outermost of them ends
    let (mut depth, mut inside_until) = (0, 0);
    while at <= hay.len() {
        let Some(c) = rule.regex.captures_at(hay, at) else {
            break;
        };
        let m = c.get(0).expect("a match");
        let kept = (rule.keep)(&c);
        f(&c, kept);
        if m.start() >= inside_until {
            depth = 0;
        }
        let next = match c.name("s") {
            Some(s)
                if kept
                    && depth < NESTED_VALUES
                    && (rule.kind == "bearer-token" || c.name("k").is_some()) =>
            {
                if depth == 0 {
                    inside_until = s.end();
                }
                depth += 1;
                s.start()
            }
            _ => m.end(),
        };
        at = if next > m.start() {
            next
        } else {
            // (an empty match: on by a character)
            hay[m.start()..]
                .chars()
                .next()
                .map_or(hay.len() + 1, |ch| m.start() + ch.len_utf8())
        };
    }
}

/// Whether rule `ri` hides `[start, end)` of `text` when the text stops at `end`: a value
/// a view that joined lines ran on past a line break, cut back to it
/// (`super::end_at_labelled_lines`), judged as its line holds it. `PASSWORD=x` and `echo
/// done` on the next line: `x` is hidden; `password: required` and `for login` on the
/// next line: `required` is no password (`requiredfor` looked made up).
pub fn hides_cut_value(ri: usize, text: &str, start: usize, end: usize) -> bool {
    let from = floor_boundary(text, start.saturating_sub(WINDOW_BEFORE));
    let Some(hay) = text.get(from..end) else {
        return true;
    };
    let mut hidden = false;
    each_match(&RULES[ri], hay, |c, kept| {
        hidden |= !kept
            && c.name("s")
                .is_some_and(|s| from + s.start() <= start && from + s.end() >= end);
    });
    hidden
}

/// How many values deep [`each_match`] searches on inside kept pairs' values.
const NESTED_VALUES: usize = 8;

/// One of [`kept_bearer_params`].
#[derive(Debug, Clone, Copy)]
pub struct KeptParam {
    pub start: usize,
    /// The `=` after the parameter's name.
    pub eq: usize,
    pub end: usize,
}

/// The rank ([`Found::rule`]) of the bearer-token rule (found once).
pub fn bearer_rule() -> usize {
    static RANK: LazyLock<usize> = LazyLock::new(|| {
        RULES
            .iter()
            .position(|r| r.kind == "bearer-token")
            .expect("a bearer-token rule")
    });
    *RANK
}

fn keep_harmless(c: &Captures) -> bool {
    value_is_harmless(&c["s"])
}

const SECRET_WORDS: &[&str] = &[
    "token",
    "secret",
    "pass",
    "pwd",
    "pw",
    "auth",
    "key",
    "cred",
    "cookie",
    // ([`CREDENTIAL_WORDS`]: `sig` stands for `signature` too)
    "verifier",
    "assertion",
    "jwt",
    "dsn",
    "sig",
    "hmac",
    "csrf",
    "otp",
];

/// The clients whose own flag takes a password ([`RULES`]), and that flag: the client
/// (a regex), then the flag with what may separate it from its value.
const CLIENT_PASSWORD_FLAGS: &[(&str, &str)] = &[
    // (attached only: `mysql -p db` asks for the password, and `db` is the database)
    (
        "mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlslap|mysqlpump|mysqlbinlog|mariadb|mariadb-dump|mariadb-admin|mariadb-show|mariadb-import|mariadb-check",
        "-p",
    ),
    (
        r"sshpass|(?:docker|podman|nerdctl|buildah|skopeo|helm[ \t]+registry|oras|crane[ \t]+auth|cf)[ \t]+login|mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongofiles",
        r"-p[ \t]*",
    ),
    ("redis-cli|valkey-cli|keydb-cli", r"-a[ \t]*"),
    // (`-W` asks for the password)
    (
        "ldapsearch|ldapmodify|ldapadd|ldapdelete|ldapwhoami|ldappasswd|ldapcompare|ldapmodrdn|ldapexop",
        r"-w[ \t]*",
    ),
    ("sqlcmd|osql", r"-P[ \t]*"),
    ("mosquitto_pub|mosquitto_sub|mosquitto_rr", r"-P[ \t]*"),
    ("zip|unzip|zipcloak", r"-P[ \t]*"),
    // (attached only: `7z a -p x.7z` asks for it)
    ("7z|7za|7zr|7zz", "-p"),
];

/// The anchors of [`CLIENT_PASSWORD_FLAGS`]' rule: a literal of every client's name.
const CLIENT_ANCHORS: &[&str] = &[
    "mysql",
    "mariadb",
    "sshpass",
    "login ",
    // (not `mongo` nor `ldap` alone: every `mongodb://` and `ldap://` URL holds them)
    "mongo ",
    "mongosh ",
    "mongodump",
    "mongorestore",
    "mongoexport",
    "mongoimport",
    "mongofiles",
    "redis-cli",
    "valkey-cli",
    "keydb-cli",
    "ldapsearch",
    "ldapmodify",
    "ldapadd",
    "ldapdelete",
    "ldapwhoami",
    "ldappasswd",
    "ldapcompare",
    "ldapmodrdn",
    "ldapexop",
    "sqlcmd",
    "osql",
    "mosquitto_",
    "zip",
    "7z",
];

/// The secret rules, most specific first: where two rules find overlapping secrets,
/// the earlier rule's kind is the one shown.
pub static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    // The value of a `KEY=` / `KEY:` / `"KEY":` pair, in each spelling: double-quoted
    // (escaped quotes, spaces and semicolons inside), single-quoted, or bare.
    const DQ: &str = r#""(?P<s>(?:[^"\\\n]|\\.)*)""#;
    const SQ: &str = r"'(?P<s>[^'\n]*)'";
    const KEY: &str = r"(?-u:\b)(?P<k>[A-Za-z_][A-Za-z0-9_.-]*)";
    // `Authorization` and what separates it from its value: `:`, `=`, `=>`, `:=`, with
    // the quotes and escapes a JSON or code text puts around it.
    const AUTH_HEAD: &str =
        r#"(?i)(?-u:\b)authorization\\*["']?[ \t]*(?:=>|:=|[:=])[ \t]*\\*["']?"#;
    // A key (quoted or not) and any pair's separator, for the other spellings below.
    const ANY_SEP: &str = r#"["']?[ \t]*(?:=>|:=|:|=)[ \t]*"#;
    let mut v = vec![
        rule(
            "private-key",
            &["private key-----", "private key block-----"],
            // Its body: base64 words (and an encrypted key's `Proc-Type:`, `DEK-Info:`
            // headers), each after white space, an escaped line break or nothing (a key
            // flattened on one line) and followed by one (or the END line, or the
            // text's end): without an END line the key
            // ends where its body does, never at the end of the text (a key cut short
            // in a server's stderr took the rest of a screen, other servers included).
            &format!(
                r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?P<s>(?:{SEP}*(?:Proc-Type:[^\n\\]*|DEK-Info:[^\n\\]*|Version:[^\n\\]*|Comment:[^\n\\]*|[A-Za-z0-9+/=]+))+)(?:{SEP}|-----|\z)",
                // (a quote's or a comment's mark before a body line too: `> MIIE...`)
                SEP = r"(?:[ \t\r\n>|#*]|\\[nrt])"
            ),
            keep_harmless,
        ),
        rule(
            "url-credentials",
            &["://"],
            r#"(?i)(?-u:\b)[a-z][a-z0-9+.-]*://(?P<s>[^\s/?#@"'\\<>]+)@"#,
            never,
        ),
        // A PuTTY key file's private part.
        rule(
            "private-key",
            &["private-lines:"],
            // (each body line ends its line: `Private-MAC:` after it keeps its label)
            r"(?i)Private-Lines:[ \t]*[0-9]+(?P<s>(?:(?:[ \t]*(?:\r?\n|\\[nr]))+[A-Za-z0-9+/=]{4,})+)(?:[ \t]*(?:\r?\n|\\[nr])|\z)",
            never,
        ),
        // Tokens of a shape of their own, with no word before them: Google OAuth
        // (`ya29.`, `GOCSPX-`), PyPI, Notion, Vault (service, batch and recovery tokens),
        // Shopify, Figma, Atlassian, Replicate, Groq, Linear (API keys and OAuth tokens),
        // DigitalOcean (personal, OAuth and refresh tokens), xAI, Perplexity (helper-80
        // #7), Supabase, Grafana service accounts, Sentry (organization and user tokens),
        // Postman, Databricks (`dapi` and 32 hex digits, an Azure one ending `-2`, then no
        // more of a word: `dapine`, a longer hex string are none) and Tailscale
        // (`tskey-auth-`, `tskey-api-`, `tskey-client-`, or the older `tskey-` alone: its
        // id, a dash, and a secret holding digits: hyphenated words after `tskey-` are
        // prose).
        rule(
            "token",
            &[
                "ya29.",
                "gocspx-",
                "pypi-age",
                "ntn_",
                "hvs.",
                "hvb.",
                "hvr.",
                "shpat_",
                "shpss_",
                "shpca_",
                "shppa_",
                "figd_",
                "atatt3",
                "r8_",
                "gsk_",
                "lin_api_",
                "lin_oauth_",
                "dop_v1_",
                "doo_v1_",
                "dor_v1_",
                "xai-",
                "pplx-",
                "sbp_",
                "glsa_",
                "sntrys_",
                "sntryu_",
                "pmak-",
                "dapi",
                "tskey-",
            ],
            r"(?:^|[^A-Za-z0-9_])(?P<s>(?:ya29\.[A-Za-z0-9_.-]{20,}|GOCSPX-[A-Za-z0-9_-]{20,}|pypi-AgE[A-Za-z0-9_-]{40,}|ntn_[A-Za-z0-9]{30,}|hv[sbr]\.[A-Za-z0-9_-]{20,}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}|figd_[A-Za-z0-9_-]{20,}|ATATT3[A-Za-z0-9_=-]{20,}|r8_[A-Za-z0-9]{20,}|gsk_[A-Za-z0-9]{20,}|lin_(?:api|oauth)_[A-Za-z0-9]{20,}|do[opr]_v1_[a-f0-9]{40,}|xai-[A-Za-z0-9]{20,}|pplx-[A-Za-z0-9]{20,}|sbp_[a-f0-9]{40}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|sntrys_[A-Za-z0-9+/=_-]{40,}|sntryu_[a-f0-9]{64}|PMAK-[A-Fa-f0-9]{24}-[A-Fa-f0-9]{34}|dapi[a-f0-9]{32}(?:-[0-9]{1,2})?(?-u:\b)|tskey-(?:(?:auth|api|client|scim|webhook)-)?[A-Za-z0-9]{4,}-(?P<tailscale>[A-Za-z0-9]{16,})))",
            |c| {
                c.name("tailscale")
                    .is_some_and(|t| !made_up(t.as_str(), 16))
                    || vault_look_alike(&c["s"])
            },
        ),
        // A Telegram bot's token in its API's path (`/bot123456:AAH.../getUpdates`), a
        // Mattermost or Rocket.Chat hook's key.
        rule(
            "token",
            &["/bot"],
            r"/bot[0-9]+:(?P<s>[A-Za-z0-9_-]{20,})",
            never,
        ),
        // A Telegram bot's token anywhere else (`TELEGRAM: 123456789:AAHdq...`): the bot's
        // id (6 to 10 digits: the Bot API's documentation writes
        // `123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11`), a colon and 35 characters (34 in
        // Telegram's examples), which start with `A` (the anchor: a digit and a colon
        // begin every time of day) and end there.
        rule(
            "token",
            &[":a"],
            r"(?:^|[^A-Za-z0-9_:-])[0-9]{6,10}:(?P<s>A[A-Za-z0-9_-]{33,34})(?:[^A-Za-z0-9_-]|$)",
            // (random: upper and lower case and digits, not `AAAA...`)
            |c| {
                let b = c["s"].as_bytes();
                !(b.iter().any(u8::is_ascii_lowercase)
                    && b.iter().any(u8::is_ascii_uppercase)
                    && b.iter().any(u8::is_ascii_digit))
            },
        ),
        // (a Mattermost key: 26 lower-case letters and digits; a React hook's file,
        // `/hooks/useAuthSession.ts`, is camelCase)
        rule(
            "webhook",
            &["/hooks/"],
            r#"/hooks/(?P<s>[a-z0-9]{26})(?:[/?#\s"')]|$)"#,
            |c| !c["s"].bytes().any(|b| b.is_ascii_digit()),
        ),
        // A Rocket.Chat incoming hook: `/hooks/<id>/<token>`, the id 17 letters and digits
        // (24 in newer servers), the token 48 and made up (a path of words and a file,
        // `/hooks/useSessionStorage/...`, is none).
        rule(
            "webhook",
            &["/hooks/"],
            r#"/hooks/[A-Za-z0-9]{17,24}/(?P<s>[A-Za-z0-9]{24,})(?:[/?#\s"')]|$)"#,
            |c| !token_like(&c["s"], 24),
        ),
        // A Discord bot's token after `Bot` (its three dotted parts).
        rule(
            "token",
            &["bot "],
            r"(?-u:\b)Bot[ \t]+(?P<s>[MNO][A-Za-z0-9]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,})",
            never,
        ),
        // A password holding `/`, `#`, `?`, `@` or a quote (a generated one, base64): to
        // the first `@` a host follows (a host, a port of digits, then the path or the
        // end: in `p@ss:w/rd@db:5432` the `ss:w` after the first `@` is no host and
        // port, and was taken for one, showing `ss:w/rd`); not a
        // port and a path (`https://h:443/@scope/pkg` has no credentials), nor the quote
        // that closes the URL's string (`'http://h:80','a@b.com'`).
        rule(
            "url-credentials",
            &["://"],
            r#"(?i)(?P<q>["'`]?)(?-u:\b)[a-z][a-z0-9+.-]*://(?P<s>[^\s/?#@:"'\\<>\[]*:[^\s\\<>]*?)@(?:\[[0-9a-z:.%]*\]|[a-z0-9][a-z0-9.%-]*)(?::[0-9]*)?(?:[/?#\s"'),]|$)"#,
            |c| {
                let pw = c["s"].split_once(':').map_or("", |(_, p)| p);
                // (a port, then a path, a query or a fragment: `localhost:3000?r=a@b`)
                let port = pw
                    .split(['/', '?', '#'])
                    .next()
                    .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
                    && pw.contains('/');
                let closed = c["q"].chars().next().is_some_and(|q| pw.contains(q));
                port || closed || !pw.contains(['/', '#', '?', '@', '"', '\'', '`'])
            },
        ),
        rule(
            "authorization",
            &["authorization"],
            &format!(
                r#"{AUTH_HEAD}(?:(?:bearer|basic|token|digest)[ \t]+)?(?P<s>[^\s"'\\,;}}\])]+)"#
            ),
            keep_scheme_or_harmless,
        ),
        // A scheme of its own (`ApiKey`, `Bot`, `SSWS`) goes with its credential: the
        // rule above took the scheme word for the value and left the credential.
        rule(
            "authorization",
            &["authorization"],
            &format!(r#"{AUTH_HEAD}(?P<s>[A-Za-z][A-Za-z0-9_.-]*[ \t]+[^\s"'\\,;}}\])]+)"#),
            keep_known_scheme_or_harmless,
        ),
        // A Digest authorization's `response` (RFC 7616: the hash of the password with
        // the nonce and the request; with them the password is guessed offline), among
        // the parameters after `Digest` (helper-97). The user name, the realm, the nonces
        // and the URI are the request's, and stay.
        rule(
            "authorization",
            &["digest"],
            r#"(?i)(?-u:\b)digest[ \t]+(?:[A-Za-z0-9_-]+[ \t]*=[ \t]*(?:"[^"\n]*"|[^\s,"]*)[ \t]*,[ \t]*)*?response[ \t]*=[ \t]*"?(?P<s>[A-Za-z0-9+/=_-]+)"#,
            keep_harmless,
        ),
        // And its `username` (quoted, or bare to the next comma): the account the response
        // is the password of, which with it is all a guess offline needs; a log shows it
        // beside the server's name. The realm, the nonces, the URI and the algorithm stay
        // (`Digest username="alice", ...` showed the user).
        rule(
            "authorization",
            &["digest"],
            r#"(?i)(?-u:\b)digest[ \t]+(?:[A-Za-z0-9_-]+[ \t]*=[ \t]*(?:"[^"\n]*"|[^\s,"]*)[ \t]*,[ \t]*)*?username[ \t]*=[ \t]*"?(?P<s>[^",\r\n]*[^",\s])"#,
            keep_harmless,
        ),
        rule(
            "cookie",
            &["cookie"],
            r#"(?i)(?-u:\b)(?:set-)?cookie\\*"?[ \t]*[:=][ \t]*\\*"?(?P<s>[^\r\n"\\]+)"#,
            keep_harmless,
        ),
        rule(
            "bearer-token",
            &["bearer"],
            r"(?i)(?-u:\b)bearer\s+(?P<s>[A-Za-z0-9._~+/=-]{8,})(?P<eq>[ \t]*=)?(?P<marker>\[REDACTED)?",
            keep_auth_param,
        ),
        rule(
            "basic-auth",
            &["basic"],
            r"(?i)(?-u:\b)basic[ \t]+(?P<s>[A-Za-z0-9+/]{4,}={0,2})",
            keep_unless_basic_credentials,
        ),
        rule(
            "jwt",
            &["eyj"],
            r"(?P<s>eyJ[A-Za-z0-9_-]{4,}[.-]eyJ[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*)?)",
            never,
        ),
        rule(
            "anthropic-api-key",
            &["sk-ant-"],
            r"(?P<s>sk-ant-[A-Za-z0-9_-]{8,})",
            never,
        ),
        rule(
            "stripe-key",
            // (and a webhook endpoint's signing secret, `whsec_`: with it anyone can
            // sign events the endpoint takes for Stripe's)
            &["_live_", "_test_", "-live-", "-test-", "whsec_"],
            r"(?P<s>(?:sk|rk)[_-](?:live|test)[_-][A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{24,})",
            never,
        ),
        rule(
            "openai-api-key",
            &["sk-"],
            r"(?:^|[^A-Za-z])(?P<s>sk-[A-Za-z0-9_-]{16,})",
            never,
        ),
        rule(
            "github-token",
            &[
                "ghp_",
                "gho_",
                "ghu_",
                "ghs_",
                "ghr_",
                "ghp-",
                "gho-",
                "ghu-",
                "ghs-",
                "ghr-",
                "github_pat_",
                "github-pat-",
            ],
            r"(?P<s>gh[pousr][_-][A-Za-z0-9]{20,}|github[_-]pat[_-][A-Za-z0-9_-]{20,})",
            never,
        ),
        rule(
            "slack-token",
            &["xox", "xapp-"],
            // (`xoxe-1-...`: a rotating token's refresh token; `xoxe.xoxp-...`: the
            // rotating token itself)
            r"(?P<s>(?:xoxe\.)?xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]+-[A-Za-z0-9-]{10,})",
            never,
        ),
        // A webhook's URL is its credential: its path after the host.
        rule(
            "webhook",
            &["hooks.slack.com/", "/webhooks/", "office.com/webhook"],
            // (Slack, Discord, and Microsoft 365's connectors: `*.webhook.office.com/
            // webhookb2/...`, `outlook.office.com/webhook/...`)
            r"(?i)(?:hooks\.slack\.com/(?:services|workflows|triggers)/|/api/(?:v[0-9]+/)?webhooks/|office\.com/webhook(?:b2)?/)(?P<s>[A-Za-z0-9/_@-]{8,})",
            never,
        ),
        rule(
            "age-secret-key",
            &["age-secret-key-1"],
            // (bech32: upper case as age writes it, lower case as valid)
            r"(?P<s>(?:AGE-SECRET-KEY-1[A-Z0-9]{20,}|age-secret-key-1[a-z0-9]{20,}))",
            never,
        ),
        rule(
            "aws-access-key",
            &["akia", "asia"],
            r"(?P<s>(?:AKIA|ASIA)[A-Z0-9]{16})(?:[^A-Za-z0-9]|$)",
            never,
        ),
        rule(
            "aws-secret-key",
            &["aws"],
            r#"(?i)aws[A-Za-z0-9_.-]{0,30}?(?:secret|sk)[A-Za-z0-9_.-]{0,30}\\*["']?\s*[:=]\s*\\*["']?(?P<s>[A-Za-z0-9/+=]{40})"#,
            never,
        ),
        rule(
            "google-api-key",
            &["aiza"],
            r"(?P<s>AIza[0-9A-Za-z_-]{35,})",
            never,
        ),
        // `_` and `.` become `-` in a folder name Claude Code made from a path or name.
        rule(
            "gitlab-token",
            &["glpat-", "glpat_"],
            r"(?P<s>glpat[_-][A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*)",
            never,
        ),
        rule(
            "huggingface-token",
            &["hf_", "hf-"],
            r"(?:^|[^A-Za-z0-9])(?P<s>hf[_-][A-Za-z0-9]{30,})",
            never,
        ),
        rule(
            "npm-token",
            &["npm_", "npm-"],
            r"(?:^|[^A-Za-z0-9])(?P<s>npm[_-][A-Za-z0-9]{36,})",
            never,
        ),
        rule(
            "sendgrid-key",
            &["sg.", "sg-"],
            r"(?:^|[^A-Za-z0-9])(?P<s>SG[.-][A-Za-z0-9_-]{16,32}[.-][A-Za-z0-9_-]{16,64})",
            never,
        ),
        // A `.netrc` entry, on one line or several: its password, whatever it looks like.
        rule(
            "netrc-password",
            &["password"],
            r"(?i)(?-u:\b)(?:machine\s+\S+|default)(?:\s+(?:login|account)\s+\S+)*\s+password\s+(?P<s>\S+)",
            keep_harmless,
        ),
        // `htpasswd -b FILE USER PW` (batch mode takes the password on the command
        // line; `-n` writes no file: `htpasswd -nb USER PW`; flags apart or together,
        // `-B` is bcrypt); without `-b` it asks (helper-89 #1, helper-90 #9)
        rule(
            "secret",
            &["htpasswd"],
            r#"(?-u:\b)htpasswd(?P<f>(?:[ \t]+-[A-Za-z]+)+)[ \t]+[^-\s]\S*[ \t]+[^-\s]\S*[ \t]+(?P<s>[^\s'"]+)"#,
            |c| !c["f"].contains('b') || c["f"].contains('n') || keep_harmless(c),
        ),
        rule(
            "secret",
            &["htpasswd"],
            r#"(?-u:\b)htpasswd(?P<f>(?:[ \t]+-[A-Za-z]+)+)[ \t]+[^-\s]\S*[ \t]+(?P<s>[^\s'"]+)"#,
            |c| !c["f"].contains('b') || !c["f"].contains('n') || keep_harmless(c),
        ),
    ];
    // SQL: `CREATE USER u IDENTIFIED BY 'PW'` (`IDENTIFIED WITH plugin BY`), `SET
    // PASSWORD ... = PASSWORD('PW')`; PHP's `define('DB_PASSWORD', 'PW')` under a
    // secret-looking name (helper-89 #1)
    for value in [DQ, SQ] {
        // PostgreSQL: `CREATE ROLE u WITH LOGIN PASSWORD 'PW'`, `ALTER USER u
        // [ENCRYPTED] PASSWORD 'PW'` (helper-90 #9)
        v.push(rule(
            "secret",
            &["password"],
            &format!(r"(?i)(?-u:\b)(?:user|role)(?-u:\b)[^;\n]*?(?-u:\b)password[ \t]+{value}"),
            keep_harmless,
        ));
        v.push(rule(
            "secret",
            &["identified"],
            &format!(r"(?i)(?-u:\b)identified[ \t]+(?:with[ \t]+\S+[ \t]+)?by[ \t]+(?:password[ \t]+)?{value}"),
            keep_harmless,
        ));
        v.push(rule(
            "secret",
            &["password("],
            &format!(r"(?i)(?-u:\b)password\([ \t]*{value}[ \t]*\)"),
            keep_harmless,
        ));
        v.push(rule(
            "secret",
            &["define("],
            &format!(
                r#"(?i)(?-u:\b)define\([ \t]*['"](?P<k>[A-Za-z0-9_.-]+)['"][ \t]*,[ \t]*{value}"#
            ),
            keep_pair,
        ));
    }
    // Command-line arguments: `--token V`, `--password=V`, `--api-key "V W"`. (A bare
    // value never ends with a backtick or a full stop: the end of a code span or of a
    // sentence, `--max-tokens 8192`. is not part of the value; nor with a backslash: a
    // wrapped command's continuation, `--api-token \` at a line's end, is no value. Nor
    // does it start with a dash: that is the next flag, and a switch before a secret
    // flag took it for its value, `--stdio --password V` read as `--stdio` and
    // `--password`, kept, the search going on past the secret flag: helper-92 #2.)
    const FLAG_BARE: &str = r#"(?P<s>[^\s"'&,-][^\s"'&,]*[^\s"'&,`.\\]|[^\s"'&,`.\\-])"#;
    for value in [DQ, SQ, FLAG_BARE] {
        v.push(rule(
            "secret",
            SECRET_WORDS,
            // (its value on its own line: a line after a flag ending one is its own
            // text, `--password` ending a stderr tail and the screen's `fix:` next)
            &format!(r#"(?:^|[\s"'\[,])--?(?P<k>[A-Za-z0-9][A-Za-z0-9_-]*)(?:[ \t]+|=){value}"#),
            // (`-pS3cretPw app`: the "key" is a value written against its flag)
            |c| c["s"].starts_with('-') || made_up(&c["k"], 6) || keep_pair(c),
        ));
    }
    // "KEY": "value", as JSON writes it (escaped JSON is read in its decoded view).
    v.push(rule(
        "secret",
        SECRET_WORDS,
        &format!(r#""(?P<k>[A-Za-z0-9_.$-]+)"\s*:\s*{DQ}"#),
        keep_pair,
    ));
    // KEY=value, as in environments and command lines; KEY: value, as in headers/YAML.
    // (a bare value never starts with `>` or `=`: `key => x`, `key := x`, `a == b` are
    // no pairs, and the rule took the arrow's last character for a value)
    const BARE_AFTER: &str = r#"(?P<s>[^\s"'&,>=][^\s"'&,]*[^\s"'&,`.\\]|[^\s"'&,>=`.\\])"#;
    for value in [DQ, SQ, BARE_AFTER] {
        v.push(rule(
            "secret",
            SECRET_WORDS,
            &format!(r"{KEY}[ \t]*=[ \t]*{value}"),
            keep_eq_pair,
        ));
        // (and the word after the value, not followed by `:` or `=`: it may say the value
        // after a password's label is a sentence's, [`keep_password_label`])
        v.push(rule(
            "secret",
            SECRET_WORDS,
            &format!(r"{KEY}[ \t]*:[ \t]*{value}(?:[ \t]+(?P<next>[A-Za-z]+)(?:[\s,.;!?)]|$))?"),
            keep_colon_pair,
        ));
    }
    // The other spellings of a pair, for a quoted value that looks made up (letters and
    // digits, eight characters or more: [`keep_unless_made_up_pair`]): `KEY => "v"`
    // (Ruby, Perl, PHP), `KEY := "v"` (Go), a key in quotes (`'x-api-key': 'v'`, a
    // Python dict), `key: 'v'` as Node prints an object (nested too), and the first
    // value of a list (`"token": ["v"]`). A plain word there is code or prose
    // (`key: 'ArrowDown'`, `Unexpected token: 'function'`); but a value assigned in code
    // (`:=`, `=>`, Go's `[]byte("v")`) to a password or an API key is one whatever it
    // looks like ([`keep_code_literal`]).
    for value in [DQ, SQ] {
        v.push(rule(
            "secret",
            SECRET_WORDS,
            &format!(
                r#"{KEY}["']?[ \t]*(?P<sep>=>|:=|:|=)[ \t]*(?P<open>\[\]byte\(|\[[ \t]*)?{value}"#
            ),
            keep_code_literal,
        ));
    }
    // A list of two or more quoted values under a secret-looking key (`"tokens": ["a",
    // "b"]`, `'api_keys': ['a', 'b']`, `tokens: ['a','b']`): all of them, when one looks
    // made up (the rule above hides a list's first value only).
    for item in [r#""(?:[^"\\\n]|\\.)*""#, r"'[^'\n]*'"] {
        v.push(rule(
            "secret",
            SECRET_WORDS,
            &format!(
                r#"{KEY}{ANY_SEP}\[[ \t]*(?P<s>{item}(?:[ \t]*,[ \t]*{item})+)[ \t]*,?[ \t]*\]"#
            ),
            keep_unless_made_up_list,
        ));
    }
    // `curl -u user:password`, `--user user:password` (also `-su`, `-uUSER:PW`, quoted):
    // the password. Only on a curl command line: `docker run -u node:node` is a user and
    // a group.
    for value in [
        r#""[^":\n]*:(?P<s>[^"\n]+)""#,
        r"'[^':\n]*:(?P<s>[^'\n]+)'",
        r#"[^\s:"']*:(?P<s>[^\s"']+)"#,
    ] {
        v.push(rule(
            "secret",
            &["curl"],
            &format!(
                r"(?-u:\b)curl(?-u:\b)[^\n]*?[ \t](?:-[A-Za-z]*[uU][ \t]*|--(?:proxy-)?user(?:[ \t]+|=)){value}"
            ),
            keep_harmless,
        ));
    }
    // The password of a client's own flag, on that client's command line only (the
    // same letters are other options elsewhere: `ssh -p 22`, `grep -a`): `mysql -pPW`
    // (attached: `-p PW` asks for it, and `PW` is the database), `sshpass -p PW`,
    // `docker login -p PW` (podman, nerdctl, buildah, skopeo, helm, oras too),
    // `redis-cli -a PW` (valkey-cli, keydb-cli), `mongosh -p PW` (and MongoDB's tools:
    // `mongodump -p PW`...), `ldapsearch -w PW` (`-W` asks for it), `sqlcmd -P PW`,
    // `mosquitto_pub -P PW`, `cf login -p PW`, `zip -P PW`, `7z a -pPW` (attached;
    // `-p` alone asks) ([`CLIENT_PASSWORD_FLAGS`]); and HTTPie's `-a user:password`. A
    // shell variable (`-a "$REDIS_PASSWORD"`) names the password and is kept.
    // (one rule for all the clients, for each spelling of the value: a rule costs a
    // little on every text with one of its anchors, whether it matches or not)
    let clients = CLIENT_PASSWORD_FLAGS
        .iter()
        .map(|(client, flag)| {
            // An archiver's name only where a command starts (after a space, a slash or
            // nothing: `backup.zip -P 2222` is a file name before another tool's flag).
            let start = if client.starts_with("zip") || client.starts_with("7z") {
                r"(?:^|[\s/])"
            } else {
                r"(?-u:\b)"
            };
            format!(r"{start}(?:{client})(?:\.exe)?(?:[ \t][^\n]*?)?[ \t]{flag}")
        })
        .collect::<Vec<_>>()
        .join("|");
    for value in [DQ, SQ, r#"(?P<s>[^\s"'-][^\s"']*)"#] {
        v.push(rule(
            "secret",
            CLIENT_ANCHORS,
            &format!(r"(?:{clients}){value}"),
            keep_named_or_harmless,
        ));
    }
    // `smbclient -U user%password` (Samba's other clients too): the part after the `%`.
    for value in [
        r#""[^"%\n]*%(?P<s>[^"\n]+)""#,
        r"'[^'%\n]*%(?P<s>[^'\n]+)'",
        r#"[^\s%"'-][^\s%"']*%(?P<s>[^\s"']+)"#,
    ] {
        v.push(rule(
            "secret",
            &["smbclient", "rpcclient", "smbcacls", "smbget"],
            &format!(
                r"(?-u:\b)(?:smbclient|rpcclient|smbcacls|smbget)(?:\.exe)?(?:[ \t][^\n]*?)?[ \t](?:-U[ \t]*|--user(?:=|[ \t]+)){value}"
            ),
            keep_named_or_harmless,
        ));
    }
    // smbclient's password given as its second argument, after the share
    // (`smbclient //server/share PW -U alice`, `\\server\share`, quoted too): a word
    // after the share that is no option.
    for value in [DQ, SQ, r#"(?P<s>[^\s"'-][^\s"']*)"#] {
        v.push(rule(
            "secret",
            &["smbclient"],
            &format!(
                r#"(?-u:\b)smbclient(?:\.exe)?(?:[ \t][^\n]*?)?[ \t]["']?(?://|\\\\)[^\s/\\"']+[/\\][^\s"']+["']?[ \t]+{value}"#
            ),
            keep_named_or_harmless,
        ));
    }
    for value in [
        r#""[^":\n]*:(?P<s>[^"\n]+)""#,
        r"'[^':\n]*:(?P<s>[^'\n]+)'",
        r#"[^\s:"'-][^\s:"']*:(?P<s>[^\s"']+)"#,
    ] {
        v.push(rule(
            "secret",
            &["http ", "https ", "xh ", "xhs "],
            &format!(
                r"(?:^|[\s/])(?:http|https|xh|xhs)(?:\.exe)?(?:[ \t][^\n]*?)?[ \t]-a[ \t]*{value}"
            ),
            keep_named_or_harmless,
        ));
    }
    // `npm config set KEY VALUE` (pnpm's, yarn's too) with a space, not `=`:
    // `npm config set //registry.npmjs.org/:_auth dXNlcjpwYXNz`, `_password`,
    // `_authToken`, `yarn config set npmAuthToken V`: the value under a secret-looking key
    // ([`keep_classic_pair`]; `npm config set registry https://...` stays). The `=`
    // spelling is the pair rules'.
    v.push(rule(
        "secret",
        &["config set"],
        r#"(?-u:\b)(?:npm|pnpm|yarn)[ \t]+config[ \t]+set[ \t]+(?:--?[A-Za-z-]+[ \t]+)*["']?(?P<k>[^\s="']+)["']?[ \t]+["']?(?P<s>[^\s"']+)"#,
        keep_classic_pair,
    ));
    // `credentials: user:password` (also `credential:`, `creds:`, `basic auth:`): the
    // password, whatever it looks like ([`keep_user_password`]; the colon pair rule
    // reads `credentials: x` as prose unless `x` looks made up, and `app:hunter2` does
    // not).
    v.push(rule(
        "secret",
        &["credentials:", "credential:", "creds:", "basic auth:"],
        r#"(?i)(?-u:\b)(?:credentials?|creds|basic auth):[ \t]*["'`]?(?P<user>[A-Za-z0-9_.@+-]+):(?P<s>[^\s"'`]*[^\s"'`.,;)\]}])"#,
        keep_user_password,
    ));
    // An XML element named for a secret (`<password>V</password>`, `<apiKey>V</apiKey>`,
    // helper-97): its text ([`keep_xml_element`]; no back-reference in these patterns, so
    // the closing tag is compared there). Anchored on the name's end and the tag's `>`.
    v.push(rule(
        "secret",
        &[
            "password>",
            "passwd>",
            "passphrase>",
            "secret>",
            "token>",
            "key>",
            "pwd>",
            "pass>",
            "credential>",
            "credentials>",
            "auth>",
        ],
        r"<(?P<k>[A-Za-z_][A-Za-z0-9_.:-]*)>(?P<s>[^<>\n]+)</(?P<close>[A-Za-z_][A-Za-z0-9_.:-]*)>",
        keep_xml_element,
    ));
    // `user:password@host` without a scheme (`connecting admin:PW@db.internal:5432`,
    // helper-97: the host rule hid the host and the password was shown): the password
    // ([`keep_bare_userinfo`]). With a scheme it is the URL rule's.
    v.push(rule(
        "url-credentials",
        &["@"],
        r#"(?:^|[\s"'(=,;<\[])(?P<user>[A-Za-z0-9._%+-]+):(?P<s>[^\s:@/"'<>()\[\]{}]+)@(?P<host>[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?P<port>:[0-9]{1,5})?(?:[/\s"'),;>\]]|$)"#,
        keep_bare_userinfo,
    ));
    // The same with a password holding `/`, `:`, `[`, `]` or `@` (`admin:p/a:ss[1]@db.
    // internal:5432`, `admin:p@ss@db:5432`, a generated one): to the last `@` a host
    // follows, not to the first, whose host would be the password's rest (the rule
    // above stops at these, and the e-mail rule took `ss@db.internal`, showing `p`).
    // Not `//` after the "user" (a URL, the URL rules'), nor a password of none of
    // those characters (the rule above's).
    v.push(rule(
        "url-credentials",
        &["@"],
        r#"(?:^|[\s"'(=,;<\[])(?P<user>[A-Za-z0-9._%+-]+):(?P<s>[^\s"'<>(){}]+)@(?P<host>[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?P<port>:[0-9]{1,5})?(?:[/\s"'),;>\]]|$)"#,
        |c| {
            let v = &c["s"];
            v.starts_with('/') || !v.contains(['/', ':', '[', ']', '@']) || keep_bare_userinfo(c)
        },
    ));
    // A web framework's session cookie outside a `Cookie` header (`sessionid=V`,
    // `PHPSESSID: V`, `"JSESSIONID": "V"`): its value ([`SESSION_COOKIES`]).
    v.push(rule(
        "cookie",
        &["sessionid", "sessid", "connect.sid"],
        // (classic ASP's name ends with eight letters of its own: `ASPSESSIONIDQQGGQGAA`)
        &format!(
            r#"(?i)(?:^|[^A-Za-z0-9_.-])(?P<k>(?:{})(?:[a-z]{{8}})?)["']?[ \t]*[:=][ \t]*["']?(?P<s>[^\s"'&;,<>]+)"#,
            SESSION_COOKIES
                .iter()
                .map(|n| regex::escape(n))
                .collect::<Vec<_>>()
                .join("|")
        ),
        keep_session_cookie,
    ));
    // A session's id under its key (`session_id=V` in a URL, `sid=V`, `"session-id": "V"`,
    // `Mcp-Session-Id: V`): its value, when it looks generated ([`keep_session_id`]).
    // Whoever holds a server's session id may speak in that session; a counter
    // (`session_id=3`), a UUID (what Claude Code's own logs hold, and what a reader
    // looks up) and a name stay.
    v.push(rule(
        "session-id",
        &[
            "session_id",
            "session-id",
            "sessionid",
            "sess_id",
            "sess-id",
            "session_key",
            "session-key",
            "sid=",
            "sid:",
            "sid\"",
            "sid'",
        ],
        r#"(?i)(?:^|[^A-Za-z0-9_.-])(?P<k>(?:[A-Za-z0-9]+[_-])*(?:session[_-]?id|sess[_-]id|session[_-]key|sid))["']?[ \t]*[:=][ \t]*["']?(?P<s>[^\s"'&;,<>()\[\]{}]+)"#,
        keep_session_id,
    ));
    // YAML's block value: a key ending its line (or a block scalar's `|`, `>`), the
    // value alone on the next line, indented further than that line (`password:` then
    // `  V`, `- password:`, `db: password:` as a log's prefix writes it, helper-97):
    // judged as after `password:` ([`keep_block_value`]). A single word or a quoted
    // value only: an indented line of words after a label is a message's (`invalid
    // password:` then `  must be at least 8 characters`).
    // (a word ending with `:` opens a mapping of its own, and is no value: matched,
    // the search would go on from inside it, past the start of its line)
    for value in [DQ, SQ, r#"(?P<s>[^\s#"'](?:[^\s]*[^\s:])?)"#] {
        v.push(rule(
            "secret",
            &["password:", "passwd:", "passphrase:", "secret:", "token:", "key:", "pwd:"],
            &format!(
                r"(?m)^(?P<ind>[ \t]*)(?:[^\n]*?[ \t])?(?P<k>[A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:[ \t]*(?:[|>][+-]?[ \t]*)?\r?\n(?P<vind>[ \t]+){value}[ \t]*\r?$"
            ),
            keep_block_value,
        ));
    }
    // A password's label in another language (`Passwort: V`, `mot de passe = V`,
    // `contraseña: V`, `密码：V`, helper-97): the value, unless the sentence's
    // ([`keep_foreign_password`]).
    v.push(rule(
        "secret",
        &[
            "sswort",
            "ßwort",
            "kennwort",
            "mot de passe",
            "contrase",
            "senha",
            "wachtwoord",
            "ароль",
        ],
        &format!(
            r#"(?i)(?:^|[^\w])(?P<k>{FOREIGN_PASSWORD_LABELS})["']?[ \t]*[:=：][ \t]*["']?(?P<s>[^\s"'&,;]+)(?P<more>[ \t]+\p{{L}})?"#
        ),
        keep_foreign_password,
    ));
    v.push(rule(
        "secret",
        &["密码", "密碼", "パスワード", "비밀번호"],
        &format!(
            r#"(?P<k>{CJK_PASSWORD_LABELS})(?P<cjk>)["'」]?[ \t]*[:=：][ \t]*["'「]?(?P<s>[^\s"'&,;，。、」]+)"#
        ),
        keep_foreign_password,
    ));
    // `Authorization` in the other ways code writes a header: `setHeader('Authorization',
    // 'v')`, a raw header list (`['Authorization', 'v', ...]`), `headers["Authorization"]
    // = "v"`, and Go's printed `map[Authorization:[v]]`: the whole value when a word of it
    // looks made up (a `Bearer` token is the bearer rule's, found anyway).
    for value in [DQ, SQ] {
        v.push(rule(
            "authorization",
            &["authorization"],
            &format!(r#"(?i)(?-u:\b)authorization["']\]?[ \t]*[,=][ \t]*{value}"#),
            keep_unless_a_made_up_word,
        ));
    }
    v.push(rule(
        "authorization",
        &["authorization"],
        r"(?i)(?-u:\b)authorization:\[(?P<s>[^\]\n]+)\]",
        keep_unless_a_made_up_word,
    ));
    // A bare value after `:=` or `=>` (Go, Ruby, Perl, PHP: `token := abc123def456`,
    // `'password' => Hunter2Hunter2`), when it looks made up: code there is a call or a
    // name (`token := os.Getenv("T")`).
    v.push(rule(
        "secret",
        SECRET_WORDS,
        &format!(
            r#"{KEY}["']?[ \t]*(?:=>|:=)[ \t]*(?P<s>[A-Za-z0-9_+/~-]{{8,}})(?:[^A-Za-z0-9_+/~.(\[-]|$)"#
        ),
        keep_unless_made_up_pair,
    ));
    // A key in single quotes whose name alone says secret (`'password': 'a b c'`, a
    // Python dict), as a JSON key in double quotes is: whatever its value looks like.
    v.push(rule(
        "secret",
        SECRET_WORDS,
        &format!(r#"["'](?P<k>[A-Za-z0-9_.$-]+)["'][ \t]*:[ \t]*{SQ}"#),
        keep_quoted_key_pair,
    ));
    // So is a key written bare in a printed object or at a line's start (Node's
    // `{ user: 'bob', password: 'x' }`, Rust's `Config { password: "x" }`, YAML's
    // `password: "x"` and `- password: "x"`): the object's `{` or `,`, or the line's
    // start (and a list item's dash), before it.
    for value in [DQ, SQ] {
        v.push(rule(
            "secret",
            SECRET_WORDS,
            &format!(r#"(?m)(?:[{{,]|^)[ \t]*(?:-[ \t]+)?(?P<k>[A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:[ \t]*{value}"#),
            keep_described_or_classic_pair,
        ));
    }
    // Rust's `{:?}` of an optional field: `Config { password: Some("x") }`, judged as
    // the quoted value above (`Some(42)` holds no string).
    v.push(rule(
        "secret",
        &["some(\""],
        &format!(
            r#"(?m)(?:[{{,(]|^)[ \t]*(?P<k>[A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:[ \t]*Some\({DQ}\)"#
        ),
        keep_described_or_classic_pair,
    ));
    // And the unquoted `Some(V)` a newtype or a hand-written `Debug` prints
    // (`token: Some(tok_9f8a7b6c5d4e)`): hidden when it looks made up, as a value after
    // `token:`, or under a password's key (`Some(Redacted)`, `Some(TokenKind::Bearer)`
    // are code). The colon rules leave a `Some(` to these.
    v.push(rule(
        "secret",
        &["some("],
        r"(?-u:\b)(?P<k>[A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:[ \t]*Some\((?P<s>[A-Za-z0-9_.~+/=-]+)\)",
        |c| {
            let v = &c["s"];
            // (a password's whatever it looks like, but for a type's or a variant's name)
            let name = v.starts_with(|c: char| c.is_ascii_uppercase())
                && v.bytes().all(|b| b.is_ascii_alphabetic());
            !classic_key_looks_secret(&c["k"])
                || value_is_harmless(v)
                || if names_a_password(&c["k"]) {
                    name
                } else {
                    !short_token_like(v)
                }
        },
    ));
    // Go's `%+v` of a struct: its first field, right after the `{` (`&{Token:abc123...
    // Expiry:...}`), a single word the colon rule above reads as prose.
    v.push(rule(
        "secret",
        SECRET_WORDS,
        r"\{(?P<k>[A-Za-z_][A-Za-z0-9_]*):(?P<s>[^\s{}\[\]]+)(?:[ }]|$)",
        keep_go_field,
    ));
    // A key-value pair written as two fields, the key's name in the first: Go's
    // `{Key:password Value:x}` (an AWS tag, a parameter), `{"Name": "DB_PASSWORD",
    // "Value": "x"}`, Kubernetes' `- name: DB_PASSWORD` and `value: x` on the next line:
    // the value, judged as `DB_PASSWORD=x` ([`keep_pair`]).
    for value in [DQ, SQ, r#"(?P<s>[^\s"'{}\[\],]+)"#] {
        v.push(rule(
            "secret",
            &["value"],
            &format!(
                r#"(?i)(?-u:\b)(?:key|name)["']?[ \t]*[:=][ \t]*["']?(?P<k>[A-Za-z_][A-Za-z0-9_.-]*)["']?[ \t]*,?[ \t]*(?:\r?\n[ \t]*)?["']?value["']?[ \t]*[:=][ \t]*{value}"#
            ),
            keep_pair,
        ));
    }
    // A list of values after a plural secret key (`API_KEYS=k1,k2,k3`): all of them (the
    // pair rule takes the first).
    v.push(rule(
        "secret",
        SECRET_PLURALS,
        &format!(r#"{KEY}[ \t]*=[ \t]*(?P<s>[^\s"'&,=]+(?:,[^\s"'&,=]+)+)"#),
        keep_unless_plural_secret_list,
    ));
    // An ODBC connection string's `PWD=` (`...;UID=sa;PWD=x;`): after a `;` it is no
    // working directory.
    v.push(rule(
        "secret",
        &["pwd"],
        r#"(?i);[ \t]*pwd[ \t]*=[ \t]*(?P<s>\{[^}\n]*\}|[^;"'\s]+)"#,
        // (`cd /app;PWD=/app;ls`: the working directory)
        |c| value_is_harmless(&c["s"]) || super::configured::is_locator(&c["s"]),
    ));
    // And a URL query's `pwd=`, `pw=`, `pass=` (`/login?user=app&pwd=PW`): no shell
    // sets its working directory there (helper-89 #1)
    v.push(rule(
        "secret",
        &["pwd=", "pw=", "pass="],
        r#"(?i)[?&](?:pwd|pw|pass)=(?P<s>[^&#\s"'<>]+)"#,
        |c| value_is_harmless(&c["s"]) || super::configured::is_locator(&c["s"]),
    ));
    // And a URL query's or a form's `p=` beside a user's parameter (`u=`, `user=`,
    // `username=`, `login=`, `email=`) in the same query, before it or after it
    // (`/login?u=admin&p=letmein`): a password. Elsewhere `p=` is a page, a paragraph, a
    // parameter of any kind (`?q=foo&p=2`); beside a user a number is still a page
    // (`?user=bob&p=2`) and kept, as harmless values are.
    for query in [
        r#"(?i)(?:^|[?&\s"'])(?:u|user|username|login|email)=[^&#\s"'<>]*(?:&[^&#\s"'<>]*)*?&p=(?P<s>[^&#\s"'<>]+)"#,
        r#"(?i)[?&]p=(?P<s>[^&#\s"'<>]+)(?:&[^&#\s"'<>]*)*?&(?:u|user|username|login|email)="#,
    ] {
        v.push(rule("secret", &["?p=", "&p="], query, keep_harmless));
    }
    // So is a `PWD=` opening a connection string (`PWD=x;UID=sa;Server=db`): a `;` and
    // another key follow it.
    v.push(rule(
        "secret",
        &["pwd"],
        r#"(?i)(?:^|[^A-Za-z0-9_.;-])pwd[ \t]*=[ \t]*(?P<s>\{[^}\n]*\}|[^;"'\s]+)[ \t]*;[ \t]*[A-Za-z][A-Za-z ]*="#,
        // (`PWD=/home/x;OLDPWD=/`: the working directory)
        |c| value_is_harmless(&c["s"]) || super::configured::is_locator(&c["s"]),
    ));
    // A PIN under its key (`SIM_PIN=4821`, `pin: 4821`, `"device_pin": "4821"`,
    // `PINCODE=4821`, `PIN_CODE=1234`): a number of four digits or more ([`secret_number`]; `spin: 1200`
    // is no PIN's key); no secret word anchors it, and the pair rules do not look there.
    // (Anchored on the key's end and what follows it: `pin` alone starts and ends too
    // many words, `ping`, `mapping`, `spinner`.)
    v.push(rule(
        "secret",
        &[
            "pin=", "pin:", "pin\"", "pin'", "pin =", "pin :", "pincode", "pin_code", "pin-code",
        ],
        r#"(?i)(?-u:\b)(?P<k>[A-Za-z0-9_.-]*pin(?:[_-]?code)?)["']? ?[:=] ?["']?(?P<s>[0-9]+)(?:[^A-Za-z0-9_.-]|[.-](?:[^A-Za-z0-9_]|$)|$)"#,
        |c| !secret_number(&c["k"], &c["s"]),
    ));
    // A PIN after its flag and a space (`--pin 1234`, `--sim-pin 4821`, `--pin-code
    // 1234`, helper-97): the flag rule's anchors are the secret words, and `pin` is none
    // of them (it starts and ends too many words); a number after the flag only, as
    // after the key above.
    v.push(rule(
        "secret",
        &["-pin ", "_pin ", "-pin\t", "pin-code ", "pin_code ", "pincode "],
        r#"(?i)(?:^|[\s"'\[,])--?(?P<k>[A-Za-z0-9_-]*pin(?:[_-]?code)?)[ \t]+(?P<s>[0-9]+)(?:[^A-Za-z0-9_.-]|[.-](?:[^A-Za-z0-9_]|$)|$)"#,
        |c| !secret_number(&c["k"], &c["s"]),
    ));
    // `API key zq8Kx2PLm9vv`, `apikey zq8...`: the words, a space, a made-up value.
    v.push(rule(
        "secret",
        &["key"],
        r"(?i)(?-u:\b)(?P<k>api[ _-]?key|access[ _-]?key|secret[ _-]?key)[ \t]+(?P<s>[A-Za-z0-9_+/=-]{8,})",
        |c| !token_like(&c["s"], 12),
    ));
    // `auth token: V`, `access token: V`: the words, a colon and a generated value
    // ([`keep_token_label`]: `auth token: a8f3k2` is one, `auth token: expired` a
    // state). The colon pair rule takes `token` alone for the key, whose short values
    // must pass for a parser's too (`Unexpected token: punc2`).
    for value in [DQ, SQ, BARE_AFTER] {
        v.push(rule(
            "secret",
            &["auth token", "access token"],
            &format!(
                r"(?i)(?-u:\b)(?P<k>(?:auth|access) token)[ \t]*:[ \t]*{value}(?:[ \t]+(?P<next>[A-Za-z]+)(?:[\s,.;!?)]|$))?"
            ),
            keep_token_label,
        ));
    }
    // An OAuth authorization code in a JSON body or a form (`"code": "..."`,
    // `code=...&grant_type=authorization_code`), judged as in a URL's query below.
    for value in [DQ, SQ] {
        v.push(rule(
            "secret",
            &["\"code\"", "'code'"],
            &format!(r#"["']code["'][ \t]*:[ \t]*{value}"#),
            // (mixed case: `ERR_HTTP2_STREAM_ERROR` is an error's code, code to run
            // holds other characters: helper-82 A4)
            |c| {
                let v = &c["s"];
                !(token_like(v, 16)
                    && v.bytes().any(|b| b.is_ascii_uppercase())
                    && v.bytes().any(|b| b.is_ascii_lowercase()))
            },
        ));
    }
    // An OAuth authorization code in a URL's query (`?code=`, whose key alone says
    // nothing elsewhere: `code=ENOENT`), when it looks made up and is long (`?code=US`
    // is a country, `?code=SUMMER2024` a promotion).
    v.push(rule(
        "secret",
        &["code="],
        r#"(?:[?&#]|^|[\s"'])code=(?P<s>[^&#\s"'<>]+)"#,
        |c| !made_up(&c["s"], 16),
    ));
    // A long hex or base64 token right after a secret-looking word.
    v.push(Rule {
        key_then: Some(HIGH_ENTROPY_SEPARATORS),
        ..rule(
        "high-entropy",
        &[
            "token",
            "secret",
            "pass",
            "pwd",
            "auth",
            "key",
            "credential",
            "cookie",
            "signature",
        ],
        r#"(?i)(?P<k>[A-Za-z0-9_.-]*(?:token|secret|pass|pwd|auth|key|credential|cookie|signature)[A-Za-z0-9_.-]*)[ \t"'=:\\]{1,8}(?:(?:bearer|basic|token)[ \t]+)?(?P<s>[A-Za-z0-9+/_-]{32,}={0,2})"#,
        keep_high_entropy,
    )
    });
    // `password is V`, `Your password is: V` (`passwd`, `passphrase` too): a password
    // after the colon, or a word holding a letter and a digit or a sign after the space
    // alone ([`keep_password_is`]: `password is incorrect`, `password is too short` are
    // sentences).
    for value in [DQ, SQ, BARE_AFTER] {
        v.push(rule(
            "secret",
            &["password is", "passwd is", "passphrase is"],
            &format!(
                r"(?i)(?-u:\b)(?P<k>[A-Za-z0-9_.-]*(?:password|passwd|passphrase)) is(?:(?P<colon>[ \t]*:)[ \t]*|[ \t]+){value}(?:[ \t]+(?P<next>[A-Za-z]+)(?:[\s,.;!?)]|$))?"
            ),
            keep_password_is,
        ));
    }
    // `password V`, `token V`: the word, a space, and a value that looks made up (letters
    // and digits, not a UUID), so prose ("the token expired", "Unexpected token <",
    // "password reset") is left alone.
    for value in [DQ, SQ, r#"(?P<s>[^\s"'&,;]*[^\s"'&,;`.])"#] {
        v.push(rule(
            "secret",
            &["password", "passwd", "secret", "token"],
            &format!(
                r"(?i)(?-u:\b)(?P<k>[A-Za-z0-9_.-]*(?:password|passwd|secret|token))[ \t]+{value}"
            ),
            keep_unless_made_up,
        ));
    }
    v.push(rule(
        "email",
        &["@"],
        // Not the `user:password@host` of a URL (the URL rule hides the credentials), a
        // Git remote (`git@github.com:org/repo.git`) or a package file
        // (`pkg@latest.tgz`).
        r"(?:^|[^A-Za-z0-9._%+:/-])(?P<s>[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.(?P<tld>[A-Za-z]{2,}))(?-u:\b)(?P<remote>:[A-Za-z0-9_~.-]+/)?",
        |c| {
            // (a Git remote's `git@`; a file's extension that is no domain: `.md`,
            // `.sh`, `.py`, `.zip` are countries' and a company's, helper-82 B5)
            (c.name("remote").is_some() && c["s"].starts_with("git@"))
                || ["tgz", "js", "json", "ts", "txt", "gz", "tar", "mjs", "cjs"]
                    .contains(&c["tld"].to_ascii_lowercase().as_str())
        },
    ));
    v
});

/// The first group and colon of every unique-local (`fc00::/7`) and link-local
/// (`fe80::/10`) IPv6 address: the anchors of its rule.
static PRIVATE_IPV6_ANCHORS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let hex = "0123456789abcdef";
    let mut v = Vec::new();
    for (first, seconds) in [("fc", hex), ("fd", hex), ("fe", "89ab")] {
        for a in seconds.chars() {
            for b in hex.chars() {
                if first == "fe" {
                    v.push(format!("fe{a}{b}:"));
                } else {
                    v.push(format!("{first}{a}{b}:"));
                }
            }
        }
    }
    v.sort();
    v.dedup();
    v.into_iter()
        .map(|a| &*Box::leak(a.into_boxed_str()))
        .collect()
});

/// Private hostnames, RFC 1918 addresses and unique-local or link-local IPv6 addresses
/// (`report` masks them unless `--keep-hosts`).
pub static HOST_RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        // `fd12:3456::1`, `fe80::1%eth0`, `[fd00::1]:8080`: at least two colons, so a
        // hex word or a time is not one.
        Rule {
            kind: "private-host",
            regex: Regex::new(
                r"(?i)(?:^|[^0-9a-z:.%-])(?P<s>(?:f[cd][0-9a-f]{2}|fe[89ab][0-9a-f]):(?:[0-9a-f]{0,4}:){1,6}[0-9a-f]{0,4}(?:%[0-9a-z_.-]+)?)(?:[^0-9a-z:%]|$)",
            )
            .expect("private IPv6 pattern compiles"),
            keep: never,
            anchors: PRIVATE_IPV6_ANCHORS.as_slice(),
            key_then: None,
        },
        rule(
            "private-host",
            &["10.", "172.", "192.168."],
            r"(?:^|[^0-9.])(?P<s>(?:10\.[0-9]{1,3}|172\.(?:1[6-9]|2[0-9]|3[01])|192\.168)\.[0-9]{1,3}\.[0-9]{1,3})(?:[^0-9]|$)",
            never,
        ),
        rule(
            "private-host",
            &[
                ".local",
                ".internal",
                ".lan",
                ".corp",
                ".intranet",
                ".home.arpa",
                ".private",
            ],
            // Not a file name (`settings.local.json`) or a path component.
            r"(?i)(?:^|[^A-Za-z0-9./\\-]|//)(?P<s>[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.(?:local|localdomain|internal|lan|corp|intranet|home\.arpa|private))(?:$|[^A-Za-z0-9.\-]|\.(?:$|[^A-Za-z0-9]))",
            never,
        ),
        // A single-label host in a URL (`http://buildbox:8080/`) names a private machine.
        rule(
            "private-host",
            &["://"],
            r"(?i)(?-u:\b)[a-z][a-z0-9+.-]*://(?:[^\s/?#@]*@)?(?P<s>[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)(?:[:/?#\s]|$)",
            |c| c["s"].eq_ignore_ascii_case("localhost"),
        ),
    ]
});

/// A secret found: a byte range of the text searched, and the kind of secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub start: usize,
    pub end: usize,
    pub kind: &'static str,
    /// The index of the rule that found it (lower = more specific).
    pub rule: usize,
}

/// What follows the key of the `high-entropy` rule (`[ \t"'=:\\]`): its
/// [`Rule::key_then`].
const HIGH_ENTROPY_SEPARATORS: &[u8] = b" \t\"'=:\\";

/// A set of rules with the anchor prefilter.
pub struct Scanner {
    rules: &'static [Rule],
    anchors: Needles,
    /// For each anchor pattern, the rules it stands for.
    anchor_rules: Vec<Vec<usize>>,
}

impl Scanner {
    fn new(rules: &'static [Rule]) -> Scanner {
        let mut patterns: Vec<String> = Vec::new();
        let mut anchor_rules: Vec<Vec<usize>> = Vec::new();
        for (ri, r) in rules.iter().enumerate() {
            for a in r.anchors {
                let a = a.to_ascii_lowercase();
                match patterns.iter().position(|p| *p == a) {
                    Some(i) => anchor_rules[i].push(ri),
                    None => {
                        patterns.push(a);
                        anchor_rules.push(vec![ri]);
                    }
                }
            }
        }
        let anchors = Needles::new(&patterns, true);
        Scanner {
            rules,
            anchors,
            anchor_rules,
        }
    }

    /// Every secret in `text`, in no particular order.
    pub fn find(&self, text: &str, out: &mut Vec<Found>) {
        if !self.anchors.is_match(text) {
            return;
        }
        // Windows per rule, from the anchors' hits (overlapping hits are all reported,
        // so `sk-ant-` reaches both its rule and the `sk-` rule).
        let mut windows: Vec<Vec<(usize, usize)>> = vec![Vec::new(); self.rules.len()];
        let bytes = text.as_bytes();
        // The run of key bytes the last hit looked along ([`Rule::key_then`]): every hit
        // inside it ends its run at the same byte, so a long run is walked once.
        let mut run: (usize, usize) = (0, 0);
        self.anchors.for_each(text, |anchor, m_start, m_end| {
            let start = floor_boundary(text, m_start.saturating_sub(WINDOW_BEFORE));
            let end = ceil_boundary(text, (m_end + WINDOW_AFTER).min(text.len()));
            for &ri in &self.anchor_rules[anchor] {
                if let Some(then) = self.rules[ri].key_then {
                    if !(run.0..=run.1).contains(&m_end) {
                        let stop = bytes[m_end..]
                            .iter()
                            .position(|&b| !is_key_byte(b))
                            .map_or(bytes.len(), |i| m_end + i);
                        run = (m_end, stop);
                    }
                    let ruled_out = bytes
                        .get(run.1)
                        .is_none_or(|&b| b.is_ascii() && !then.contains(&b));
                    if ruled_out {
                        continue;
                    }
                }
                let w = &mut windows[ri];
                match w.last_mut() {
                    Some(last) if start >= last.0 && start <= last.1 => last.1 = last.1.max(end),
                    _ => w.push((start, end)),
                }
            }
        });
        // (one window or none: nothing to merge, and most rules have none)
        for ws in windows.iter_mut().filter(|ws| ws.len() > 1) {
            merge(ws);
        }
        // A long text (a whole rendered screen) has its rules run in parallel, each over
        // its own windows, the hits kept in the rules' order: each rule's hits are the
        // same whichever thread finds them.
        if text.len() >= PARALLEL_TEXT_BYTES {
            use rayon::prelude::*;
            let per_rule: Vec<Vec<Found>> = windows
                .par_iter()
                .enumerate()
                .map(|(ri, ws)| {
                    let mut found = Vec::new();
                    self.run_rule(text, ri, ws, &mut found);
                    found
                })
                .collect();
            out.extend(per_rule.into_iter().flatten());
            return;
        }
        for (ri, ws) in windows.iter().enumerate() {
            self.run_rule(text, ri, ws, out);
        }
    }

    /// Rule `ri` over its (merged) windows of `text`.
    fn run_rule(&self, text: &str, ri: usize, ws: &[(usize, usize)], out: &mut Vec<Found>) {
        let rule = &self.rules[ri];
        for &(ws_start, ws_end) in ws {
            let hay = &text[ws_start..ws_end];
            each_match(rule, hay, |c, kept| {
                if kept {
                    return;
                }
                let Some(s) = c.name("s") else { return };
                if s.is_empty() {
                    return;
                }
                let start = ws_start + s.start();
                let mut end = ws_start + s.end();
                // A parenthesis the value closes but never opened is the text's
                // (`(password: 83927461)` lost its `)`, helper-97): its last character,
                // left out, shows a password ending so one character short.
                if s.as_str().ends_with(')') && !s.as_str().contains('(') && s.len() > 1 {
                    end -= 1;
                }
                // Cut by the window: hide the rest of the value as well.
                if end == ws_end && ws_end < text.len() {
                    end = text[end..]
                        .find(|ch: char| ch.is_whitespace() || matches!(ch, '"' | '\''))
                        .map_or(text.len(), |i| end + i);
                }
                out.push(Found {
                    start,
                    end,
                    kind: rule.kind,
                    rule: ri,
                });
            });
        }
    }
}

/// From this length on, [`Scanner::find`] runs its rules in parallel (and a text's views
/// are searched in parallel).
pub(crate) const PARALLEL_TEXT_BYTES: usize = 256 * 1024;

/// Sorts and merges overlapping windows.
fn merge(ws: &mut Vec<(usize, usize)>) {
    ws.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(ws.len());
    for &(s, e) in ws.iter() {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    *ws = out;
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

pub static SECRETS: LazyLock<Scanner> = LazyLock::new(|| Scanner::new(&RULES));
pub static HOSTS: LazyLock<Scanner> = LazyLock::new(|| Scanner::new(&HOST_RULES));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_key_names() {
        for k in [
            "API_KEY",
            "ANTHROPIC_API_KEY",
            "apiKey",
            "x-api-key",
            "GITHUB_TOKEN",
            "accessToken",
            "CLIENT_SECRET",
            "DB_PASSWORD",
            "passwd",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "key",
            "MYSQL_PWD",
            "DBPWD",
            "myKey",
            "v2Key",
            "DB_PASS",
            "PGPASS",
            "PASS",
            "AUTH",
            "NPM_AUTH",
            "Set-Cookie",
        ] {
            assert!(key_looks_secret(k), "{k}");
        }
        for k in [
            "monkey",
            "hasTools",
            "cwd",
            "PATH",
            "HOME",
            "resultType",
            "keyboard",
            "PWD",
            "author",
            "passed",
            "sessionId",
        ] {
            assert!(!key_looks_secret(k), "{k}");
        }
    }

    #[test]
    fn every_rule_has_anchors_its_matches_contain() {
        for r in RULES.iter().chain(HOST_RULES.iter()) {
            assert!(!r.anchors.is_empty(), "{}", r.kind);
        }
    }

    /// [`Rule::key_then`]: a hit whose key run ends elsewhere gets no window, and the
    /// matches are those of every window. Each text has an anchor in prose (its run ends
    /// at a space or a line break, before any separator) and one in a key; the key's
    /// value is found wherever the prose puts it, with a non-ASCII key letter the
    /// rule's `(?i)` takes (`ſ`) and a 2-byte character before the key.
    #[test]
    fn a_hit_ruled_out_by_its_key_run_loses_no_match() {
        let value = "Zq8vN2kLw5Rt7Yp3Xs9Mb4Hc6Jd1Fg0A";
        let hidden = |text: &str| {
            let mut found = Vec::new();
            SECRETS.find(text, &mut found);
            found
                .iter()
                .filter(|f| f.kind == "high-entropy")
                .map(|f| text[f.start..f.end].to_string())
                .collect::<Vec<String>>()
        };
        for text in [
            format!("needs authentication\nauth_code: {value}"),
            format!("auth_code={value} after keyboard input"),
            format!("é authentication failed; the session_key \"{value}\""),
            format!("authſ: {value}"),
            format!("{}\nkey_material={value}", "authentication ".repeat(5000)),
        ] {
            assert_eq!(hidden(&text), [value], "{text}");
        }
        // (no separator after any key run: nothing to find; a space is one)
        assert!(hidden(&format!("authentication, {value}")).is_empty());
        assert_eq!(hidden(&format!("authentication {value}")), [value]);
    }
}

#[cfg(test)]
mod nested_values {
    use super::*;

    /// A long run of pairs, each the value of the one before (`x=x=x=...`): the matches
    /// every rule looks at cover the run a bounded number of times, not once a pair
    /// (each of which runs on to the run's end: the square of its length).
    #[test]
    fn pairs_inside_values_are_searched_a_bounded_depth() {
        for hay in [
            "x=".repeat(20_000),
            "x: ".repeat(20_000),
            "Bearer a=".repeat(20_000),
        ] {
            for rule in RULES.iter() {
                let mut covered = 0;
                each_match(rule, &hay, |c, _| {
                    covered += c.get(0).map_or(0, |m| m.len())
                });
                assert!(
                    covered <= (NESTED_VALUES + 2) * hay.len(),
                    "{}: {covered} bytes matched of {}",
                    rule.kind,
                    hay.len()
                );
            }
        }
        // two deep is found
        let mut found = Vec::new();
        SECRETS.find("A=B=PASSWORD=hunter2hunter2", &mut found);
        assert_eq!(found.len(), 1, "{found:?}");
    }
}
