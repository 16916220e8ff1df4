//! Dynamic shell completion (clap_complete's engine): `--server NAME` and `probe NAME`
//! complete to the servers this machine knows, configured (`~/.claude.json` and the
//! current project's `.mcp.json`) or logged (`mcp-logs-<server>` folders in the default
//! cache). The shell calls `COMPLETE=<shell> mcplogs -- <words>`; `mcplogs completions
//! SHELL` prints the script that registers it.
//!
//! A server name comes from whoever wrote the configuration, a cloned repository's
//! `.mcp.json` included, so every candidate is text the shell must never run. What each
//! shell does with a candidate (read from clap_complete's registration scripts and
//! checked in real shells by `tests/cli/completion_shells.rs`), and so what is done here:
//!
//! - **bash** puts the candidates into `COMPREPLY=( $(...) )`, which splits them and
//!   expands globs, then inserts them into the command line as they are: clap's script
//!   would let `a$(touch PWNED)b` run at Enter. mcplogs registers its own script
//!   ([`BASH_REGISTRATION`]): globbing is off while the candidates are read, and each
//!   candidate that needs it comes single-quoted ([`bash_quote`]). readline's own
//!   filename quoting (`compopt -o filenames`) is not used: observed in bash 5.2, it
//!   leaves `$` and backquotes unescaped. Under any other script (an older mcplogs'
//!   saved copy), such a candidate is left out.
//! - **zsh** hands the candidates to `_describe`, whose `compadd` quotes them for the
//!   command line; they go out raw, `\` and `:` escaped for `_describe`.
//! - **fish** escapes a completion as it inserts it; candidates go out raw.
//! - **PowerShell** inserts a completion's text as it is: each candidate that needs it is
//!   single-quoted here (`''` for a quote, and the typographic quotes PowerShell also
//!   treats as quotes doubled), which leaves nothing for PowerShell to expand (`@`, `,`
//!   and a leading `-` count as needing it). clap_complete's script hands the typed line
//!   to `Invoke-Expression` at each Tab; a single-quoted candidate stays literal there too.
//!   Not observed here (no PowerShell on the test machines): unit tests only.
//! - **elvish** quotes plain candidates as it inserts them according to its own source,
//!   but that was not observed here: a candidate that needs quoting is left out.
//!
//! Every shell: a candidate holding a control character (a newline would split it) is
//! left out, and the word being completed is compared unquoted, so a name typed with its
//! quotes (`'a b`) still completes.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::Write;

use clap_complete::engine::CompletionCandidate;
use clap_complete::env::{EnvCompleter, Shells};
use mcplogs::claude_code::config;

/// The environment variable the shell's script sets to ask for completions.
pub const VAR: &str = "COMPLETE";

/// Set to `single` by mcplogs' bash script: its candidates may come single-quoted.
const BASH_QUOTING_VAR: &str = "_MCPLOGS_COMPLETE_QUOTING";

/// The shells mcplogs completes for, each with the handling described above.
pub const SHELLS: Shells<'static> = Shells(&[&Bash, &Elvish, &Fish, &Powershell, &Zsh]);

/// Server names to offer, sorted, each once. Unreadable files give fewer names, never
/// an error: completion must not print anything but candidates.
pub fn server_names() -> Vec<CompletionCandidate> {
    let mut names = BTreeSet::new();
    let env = |k: &str| std::env::var(k).ok();
    if let Ok(cwd) = std::env::current_dir() {
        let global = mcplogs::claude_code::paths::global_config_here();
        for s in config::resolve(global.as_deref(), &cwd, &env).servers {
            names.insert(s.name);
        }
    }
    if let Ok(found) =
        mcplogs::logs::discovery::discover(&mcplogs::logs::discovery::Request::default())
    {
        for d in found.server_dirs {
            names.insert(d.folder);
        }
    }
    names
        .into_iter()
        .filter(|n| !n.chars().any(char::is_control))
        .map(CompletionCandidate::new)
        .collect()
}

/// The registration script for `shell` (what `mcplogs completions SHELL` prints).
pub fn registration(shell: &str) -> std::io::Result<Vec<u8>> {
    let completer = SHELLS.completer(shell).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            format!("no dynamic completion for {shell}"),
        )
    })?;
    let mut out = Vec::new();
    completer.write_registration(VAR, "mcplogs", "mcplogs", "mcplogs", &mut out)?;
    Ok(out)
}

/// Characters no shell treats specially in an argument (`~` only at the start, so it
/// is left out too): a word of only these needs no quoting anywhere.
fn plain(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c))
}

/// Plainer still, for PowerShell and elvish, where `@`, `,`, `%`, `+`, `=` or a leading
/// `-` can mean something: letters, digits, `_`, `.`, `/`, `:` and an inner `-`.
/// An option name (`--json`) is plain too.
fn strictly_plain(s: &str) -> bool {
    let s = s.strip_prefix("--").unwrap_or(s);
    !s.starts_with('-')
        && !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:-".contains(c))
}

/// `word` as a POSIX shell reads it: quotes removed, backslash escapes resolved (an
/// unclosed quote runs to the end, as it does while the user is still typing).
fn posix_unquote(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    out.push(q);
                }
            }
            '"' => {
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some(n @ ('"' | '\\' | '$' | '`')) => out.push(n),
                            Some(n) => {
                                out.push('\\');
                                out.push(n);
                            }
                            None => out.push('\\'),
                        },
                        _ => out.push(q),
                    }
                }
            }
            '\\' => {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

use mcplogs::text::POWERSHELL_QUOTES as PS_QUOTES;

/// `word` as PowerShell reads a single-quoted word (or a bare one).
fn powershell_unquote(word: &str) -> String {
    let Some(rest) = word.strip_prefix(PS_QUOTES) else {
        return word.to_string();
    };
    let mut out = String::new();
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        if PS_QUOTES.contains(&c) {
            if chars.peek().is_some_and(|n| PS_QUOTES.contains(n)) {
                chars.next();
                out.push(c);
                continue;
            }
            break;
        }
        out.push(c);
    }
    out
}

/// `s` as one literal PowerShell word: bare when plain, else single-quoted with every
/// quote character doubled (nothing inside single quotes is expanded).
fn powershell_quote(s: &str) -> String {
    if strictly_plain(s) {
        return s.to_string();
    }
    mcplogs::text::powershell_single_quoted(s)
}

/// The engine's candidates for `args` (the word at `index` compared unquoted), without
/// any that hold a control character.
fn candidates(
    cmd: &mut clap::Command,
    mut args: Vec<OsString>,
    index: usize,
    current_dir: Option<&std::path::Path>,
    unquote: fn(&str) -> String,
) -> std::io::Result<Vec<CompletionCandidate>> {
    if let Some(word) = args.get_mut(index)
        && let Some(text) = word.to_str()
    {
        *word = unquote(text).into();
    }
    let found = clap_complete::engine::complete(cmd, args, index, current_dir)?;
    Ok(found
        .into_iter()
        .filter(|c| {
            !c.get_value()
                .to_string_lossy()
                .chars()
                .any(char::is_control)
        })
        .collect())
}

fn env_index() -> usize {
    std::env::var("_CLAP_COMPLETE_INDEX")
        .ok()
        .and_then(|i| i.parse().ok())
        .unwrap_or_default()
}

fn env_ifs() -> String {
    std::env::var("_CLAP_IFS").unwrap_or_else(|_| "\n".to_string())
}

/// One candidate a line, `VALUE<TAB>HELP` (fish, PowerShell), each value as `shown`
/// gives it.
fn write_tab_lines(
    buf: &mut dyn Write,
    found: &[CompletionCandidate],
    shown: impl Fn(&str) -> String,
) -> std::io::Result<()> {
    for c in found {
        write!(buf, "{}", shown(&c.get_value().to_string_lossy()))?;
        if let Some(h) = help_line(c) {
            write!(buf, "\t{h}")?;
        }
        writeln!(buf)?;
    }
    Ok(())
}

fn help_line(c: &CompletionCandidate) -> Option<String> {
    c.get_help()
        .map(|h| h.to_string().lines().next().unwrap_or_default().to_string())
        .map(|h| h.chars().filter(|c| !c.is_control()).collect())
}

/// mcplogs' bash registration: clap_complete's, with globbing off while the candidates
/// are read and readline's quoting asked for when a candidate needs it (see the module
/// documentation). `NAME`, `BIN`, `COMPLETER` and `VAR` are filled in.
pub const BASH_REGISTRATION: &str = r#"
_clap_complete_NAME() {
    local IFS=$'\013'
    local _CLAP_COMPLETE_INDEX=${COMP_CWORD}
    local _CLAP_COMPLETE_COMP_TYPE=${COMP_TYPE}
    if compopt +o nospace 2> /dev/null; then
        local _CLAP_COMPLETE_SPACE=false
    else
        local _CLAP_COMPLETE_SPACE=true
    fi
    local words=("${COMP_WORDS[@]}")
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        words[COMP_CWORD]="$2"
    fi
    local _mcplogs_noglob=false
    [[ $- == *f* ]] && _mcplogs_noglob=true
    set -f
    COMPREPLY=( $( \
        _CLAP_IFS="$IFS" \
        _CLAP_COMPLETE_INDEX="$_CLAP_COMPLETE_INDEX" \
        _CLAP_COMPLETE_COMP_TYPE="$_CLAP_COMPLETE_COMP_TYPE" \
        _CLAP_COMPLETE_SPACE="$_CLAP_COMPLETE_SPACE" \
        QUOTING_VAR=single \
        VAR="bash" \
        COMPLETER -- "${words[@]}" \
    ) )
    local _mcplogs_status=$?
    $_mcplogs_noglob || set +f
    if [[ $_mcplogs_status != 0 ]]; then
        unset COMPREPLY
        return
    fi
    if [[ $_CLAP_COMPLETE_SPACE == false ]] && [[ "${COMPREPLY-}" =~ [=/:]$ ]]; then
        compopt -o nospace
    fi
}
if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -o nospace -o bashdefault -o nosort -F _clap_complete_NAME BIN
else
    complete -o nospace -o bashdefault -F _clap_complete_NAME BIN
fi
"#;

#[derive(Debug, Clone, Copy)]
pub struct Bash;

impl EnvCompleter for Bash {
    fn name(&self) -> &'static str {
        "bash"
    }
    fn is(&self, name: &str) -> bool {
        name == "bash"
    }
    fn write_registration(
        &self,
        var: &str,
        name: &str,
        bin: &str,
        completer: &str,
        buf: &mut dyn Write,
    ) -> std::io::Result<()> {
        let script = BASH_REGISTRATION
            .replace("NAME", &name.replace('-', "_"))
            .replace("BIN", &mcplogs::text::shell_word(bin))
            .replace("COMPLETER", &mcplogs::text::shell_word(completer))
            .replace("QUOTING_VAR", BASH_QUOTING_VAR)
            .replace("VAR", var);
        writeln!(buf, "{script}")
    }
    fn write_complete(
        &self,
        cmd: &mut clap::Command,
        args: Vec<OsString>,
        current_dir: Option<&std::path::Path>,
        buf: &mut dyn Write,
    ) -> std::io::Result<()> {
        // Only mcplogs' own script reads the candidates with globbing off; under any
        // other (clap_complete's, saved from an older mcplogs) a candidate that needs
        // quoting is left out.
        let quoting = std::env::var(BASH_QUOTING_VAR).is_ok_and(|v| v == "single");
        let ifs = env_ifs();
        let values: Vec<String> = candidates(cmd, args, env_index(), current_dir, posix_unquote)?
            .iter()
            .map(|c| c.get_value().to_string_lossy().into_owned())
            .filter(|v| quoting || plain(v))
            .map(|v| bash_quote(&v))
            .filter(|v| !v.contains(ifs.as_str()))
            .collect();
        write!(buf, "{}", values.join(&ifs))
    }
}

/// `s` as one literal bash word: bare when plain, else single-quoted (`'\''` for a
/// quote), a final `/` left outside so bash still sees a folder. bash inserts it as it
/// is; when the user opened the quote already, readline drops theirs for this one.
fn bash_quote(s: &str) -> String {
    if plain(s) {
        return s.to_string();
    }
    let (body, slash) = match s.strip_suffix('/') {
        Some(b) if !b.is_empty() => (b, "/"),
        _ => (s, ""),
    };
    if plain(body) {
        return s.to_string();
    }
    format!("'{}'{slash}", body.replace('\'', r"'\''"))
}

/// `name`, `is` and `write_registration` of a shell whose registration script is
/// clap's own (only the candidates it is sent are mcplogs' own).
macro_rules! clap_registration {
    ($shell:ident, $name:literal, $($is:literal)|+) => {
        fn name(&self) -> &'static str {
            $name
        }
        fn is(&self, name: &str) -> bool {
            matches!(name, $($is)|+)
        }
        fn write_registration(
            &self,
            var: &str,
            name: &str,
            bin: &str,
            completer: &str,
            buf: &mut dyn Write,
        ) -> std::io::Result<()> {
            clap_complete::env::$shell.write_registration(var, name, bin, completer, buf)
        }
    };
}

#[derive(Debug, Clone, Copy)]
pub struct Zsh;

impl EnvCompleter for Zsh {
    clap_registration!(Zsh, "zsh", "zsh");
    fn write_complete(
        &self,
        cmd: &mut clap::Command,
        mut args: Vec<OsString>,
        current_dir: Option<&std::path::Path>,
        buf: &mut dyn Write,
    ) -> std::io::Result<()> {
        let index = env_index();
        if args.len() == index {
            args.push(OsString::new());
        }
        let ifs = env_ifs();
        let escape = |s: &str| s.replace('\\', "\\\\").replace(':', "\\:");
        let lines: Vec<String> = candidates(cmd, args, index, current_dir, posix_unquote)?
            .iter()
            .map(|c| {
                let v = escape(&c.get_value().to_string_lossy());
                match help_line(c) {
                    Some(h) => format!("{v}:{}", h.replace('\\', "\\\\")),
                    None => v,
                }
            })
            .filter(|l| !l.contains(ifs.as_str()))
            .collect();
        write!(buf, "{}", lines.join(&ifs))
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Fish;

impl EnvCompleter for Fish {
    clap_registration!(Fish, "fish", "fish");
    fn write_complete(
        &self,
        cmd: &mut clap::Command,
        args: Vec<OsString>,
        current_dir: Option<&std::path::Path>,
        buf: &mut dyn Write,
    ) -> std::io::Result<()> {
        // The current token comes as typed (`commandline --current-token`).
        let index = args.len().saturating_sub(1);
        let found = candidates(cmd, args, index, current_dir, posix_unquote)?;
        write_tab_lines(buf, &found, str::to_string)
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Powershell;

impl EnvCompleter for Powershell {
    clap_registration!(
        Powershell,
        "powershell",
        "pwsh" | "powershell" | "powershell_ise"
    );
    fn write_complete(
        &self,
        cmd: &mut clap::Command,
        args: Vec<OsString>,
        current_dir: Option<&std::path::Path>,
        buf: &mut dyn Write,
    ) -> std::io::Result<()> {
        let index = args.len().saturating_sub(1);
        let found = candidates(cmd, args, index, current_dir, powershell_unquote)?;
        write_tab_lines(buf, &found, powershell_quote)
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Elvish;

impl EnvCompleter for Elvish {
    clap_registration!(Elvish, "elvish", "elvish");
    fn write_complete(
        &self,
        cmd: &mut clap::Command,
        args: Vec<OsString>,
        current_dir: Option<&std::path::Path>,
        buf: &mut dyn Write,
    ) -> std::io::Result<()> {
        let ifs = env_ifs();
        let values: Vec<String> = candidates(cmd, args, env_index(), current_dir, str::to_string)?
            .iter()
            .map(|c| c.get_value().to_string_lossy().into_owned())
            .filter(|v| strictly_plain(v))
            .collect();
        write!(buf, "{}", values.join(&ifs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_compared_unquoted() {
        assert_eq!(posix_unquote("'a$(touch"), "a$(touch");
        assert_eq!(posix_unquote(r"a\$\(x\ y"), "a$(x y");
        assert_eq!(posix_unquote(r#""a\"b\q""#), r#"a"b\q"#);
        assert_eq!(posix_unquote("plain"), "plain");
        assert_eq!(powershell_unquote("'it''s"), "it's");
        assert_eq!(powershell_unquote("bare"), "bare");
    }

    #[test]
    fn bash_gets_one_literal_word() {
        assert_eq!(bash_quote("db"), "db");
        assert_eq!(bash_quote("a$(x)b"), "'a$(x)b'");
        assert_eq!(bash_quote("it's"), r"'it'\''s'");
        assert_eq!(bash_quote("my dir/"), "'my dir'/");
        assert_eq!(bash_quote("dir/"), "dir/");
        for s in ["x'y", "a`b`$(c)", "'", "a b/", "*"] {
            assert_eq!(posix_unquote(&bash_quote(s)), s);
        }
    }

    #[test]
    fn powershell_gets_one_literal_word() {
        assert_eq!(powershell_quote("db"), "db");
        assert_eq!(powershell_quote("a$(x)b"), "'a$(x)b'");
        assert_eq!(powershell_quote("it's"), "'it''s'");
        assert_eq!(powershell_quote("a\u{2019}b"), "'a\u{2019}\u{2019}b'");
        assert_eq!(powershell_quote("a`b;c"), "'a`b;c'");
        assert_eq!(powershell_quote("a,b"), "'a,b'");
        assert_eq!(powershell_quote("@a"), "'@a'");
        assert_eq!(powershell_quote("my-server.v2"), "my-server.v2");
        assert_eq!(powershell_quote("--json"), "--json");
        assert_eq!(powershell_quote("-x"), "'-x'");
        for s in ["x'y", "a\u{2018}$(b)", "''"] {
            assert_eq!(powershell_unquote(&powershell_quote(s)), s);
        }
    }

    #[test]
    fn only_plain_words_need_no_quoting() {
        for p in ["db", "my-server_2", "a.b:c=d@e%f+g,h/i"] {
            assert!(plain(p), "{p}");
        }
        for q in [
            "", "a b", "a$b", "a`b`", "a;b", "a'b", "a\"b", "a*", "a?", "[a]", "~a", "a!b", "a(b)",
            "a\\b", "a&b", "a|b", "a<b", "a#b", "a{b}",
        ] {
            assert!(!plain(q), "{q}");
        }
    }
}
