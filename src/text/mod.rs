//! Leaf: text forms shared by every renderer (terminal-safe escaping, one-line and
//! pretty forms of a log message) and every cut of a text: [`cut`] and [`cut_middle`]
//! for display, always after redaction, and [`whole_words`] for bounds set before it.
//! Imports nothing from the crate but the leaf [`crate::text::sanitize`]. Widths, cuts, wrapping
//! and tables: [`layout`], the one layout toolkit. Literal needles found wherever they
//! occur: [`needles`]. What was worked out for the texts seen last: [`recent`]. JSON
//! string text, found and written: [`json_str`].

pub mod json_str;
pub mod layout;
pub mod needles;
pub mod recent;
pub mod sanitize;

pub use layout::{cut, cut_middle};

/// Makes text safe for a terminal or Markdown: see [`crate::text::sanitize`] (the other
/// leaf this one uses), which this calls. Newlines and tabs are kept only when
/// `keep_newlines` is set.
pub fn terminal_safe(s: &str, keep_newlines: bool) -> String {
    if keep_newlines {
        crate::text::sanitize::multiline(s).into_owned()
    } else {
        crate::text::sanitize::text(s).into_owned()
    }
}

/// `s` with its pipes escaped for a cell of a GitHub-flavoured Markdown table. GFM splits
/// a row at every `|` not escaped by a backslash, pairing backslashes with the character
/// after them from the left (cmark-gfm's cell scanner, also inside code spans), and then
/// turns `\|` into `|`. So a `|` becomes `\|`, and a run of backslashes right before it
/// is doubled first (`a\|b` would otherwise be `a\\|b`: an escaped backslash, then a
/// cell boundary). No text can add a column or end a row (newlines are the caller's:
/// every cell is one line of [`terminal_safe`] text).
pub fn table_pipes(s: &str) -> String {
    escaped_after_backslashes(s, &['|'])
}

/// `s` with each of `special` escaped by a backslash, and the run of backslashes right
/// before it doubled, so that run stays backslashes and the escape holds (Markdown reads
/// a backslash pair as one backslash).
fn escaped_after_backslashes(s: &str, special: &[char]) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    let mut run = 0;
    for c in s.chars() {
        if c == '\\' {
            run += 1;
            continue;
        }
        if special.contains(&c) {
            out.push_str(&"\\".repeat(2 * run));
            out.push('\\');
        } else {
            out.push_str(&"\\".repeat(run));
        }
        out.push(c);
        run = 0;
    }
    out.push_str(&"\\".repeat(run));
    out
}

/// An inline Markdown code span holding `s` on one line ([`terminal_safe`]), fit for a
/// table cell ([`table_pipes`]): fenced by one more backtick than its longest run, so no
/// backtick in it ends the span (and nothing after it reads as HTML).
pub fn markdown_code(s: &str) -> String {
    ticked(&table_pipes(&terminal_safe(s, false)))
}

/// [`markdown_code`] outside a table (a list item, a heading): its pipes as they are,
/// since a backslash inside a code span is shown there (`a|b` read `a\|b`, helper-92
/// #6).
pub fn markdown_code_outside_tables(s: &str) -> String {
    ticked(&terminal_safe(s, false))
}

/// `s` in a code span whose backticks no run in it closes.
fn ticked(s: &str) -> String {
    let ticks = "`".repeat(backtick_run(s) + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{s}{pad}{ticks}")
}

/// Plain Markdown text on one line ([`terminal_safe`]) that renders as written and fits a
/// table cell: `<`, `>` and `|` escaped, each with the backslashes right before it
/// doubled (no HTML, no cell boundary; `\\<` would be a backslash and a tag). Other
/// backslashes and backticks stay: the advice sentences it shows mark commands as code
/// spans, and a Windows path keeps its backslashes there.
pub fn markdown_text(s: &str) -> String {
    escaped_after_backslashes(&terminal_safe(s, false), &['|', '<', '>'])
}

/// The first line of a message, cut to `max` characters with an ellipsis ([`cut`]).
pub fn one_line(s: &str, max: usize) -> String {
    let first = s.lines().next().unwrap_or("").trim_end();
    let more = s.lines().nth(1).is_some();
    layout::cut_marked(&terminal_safe(first, false), max, more)
}

/// Where a word ends, for cutting: whitespace, and the commas between the members of
/// compact JSON (which has no spaces).
fn ends_word(c: char) -> bool {
    c.is_whitespace() || c == ','
}

/// The longest start of `s` of at most `max` characters that ends where a word ends
/// (trailing spaces trimmed): `""` when the first word alone is longer. For bounds
/// applied before redaction (a log line kept to 4096 characters for speed, a server's
/// error message kept to 200): a secret is kept whole or not at all, never as a prefix
/// its rule no longer recognises (`ghp_CutLeak0123` is no token, `jane.doe@corp-ex` no
/// address).
pub fn whole_words(s: &str, max: usize) -> &str {
    // No more bytes than the bound: no more characters either.
    if s.len() <= max {
        return s;
    }
    // ASCII up to the bound (a server's base64 on stderr): bytes are characters, and
    // the last word end is found with `memchr` (the character walk was half of a scan
    // that keeps the stderr tails of a 1.5 GiB file of such lines).
    if let Some(head) = s.as_bytes().get(..=max)
        && head.is_ascii()
    {
        let kept = &head[..max];
        let cut = if ends_word(char::from(head[max])) {
            Some(max)
        } else {
            // `ends_word` of an ASCII character: ASCII whitespace, or a comma.
            [
                memchr::memrchr3(b' ', b',', b'\t', kept),
                memchr::memrchr3(b'\n', b'\r', 0x0b, kept),
                memchr::memrchr(0x0c, kept),
            ]
            .into_iter()
            .flatten()
            .max()
        };
        return cut.map_or("", |i| s[..i].trim_end());
    }
    let Some((end, next)) = s.char_indices().nth(max) else {
        return s;
    };
    let kept = &s[..end];
    let kept = if ends_word(next) {
        kept
    } else {
        match kept.rfind(ends_word) {
            Some(i) => &kept[..i],
            None => "",
        }
    };
    kept.trim_end()
}

/// Re-indents embedded JSON (zod issue lists, capabilities) for reading. Messages stay
/// exactly as logged in `--json`; this is for `--verbose` and reports only.
pub fn pretty_message(message: &str) -> String {
    let start = ["Invalid result for tools/list:", "capabilities:"]
        .iter()
        .find_map(|k| message.find(k).map(|i| i + k.len()));
    let Some(start) = start else {
        return message.to_string();
    };
    let rest = &message[start..];
    let Some(offset) = rest.find(['[', '{']) else {
        return message.to_string();
    };
    let json_start = start + offset;
    let mut stream =
        serde_json::Deserializer::from_str(&message[json_start..]).into_iter::<serde_json::Value>();
    match stream.next() {
        Some(Ok(v)) => {
            let end = json_start + stream.byte_offset();
            let pretty = serde_json::to_string_pretty(&v).unwrap_or_default();
            format!(
                "{}\n{}{}",
                message[..json_start].trim_end(),
                pretty,
                &message[end..]
            )
        }
        _ => message.to_string(),
    }
}

/// A word quoted for the user's shell, for commands mcplogs prints for the user to copy
/// (the one quoting function: every printed command goes through it). On Unix, POSIX
/// `sh`: unchanged when it holds only characters no shell treats specially (and does not
/// start with `~`, which the shell would expand), else in single quotes, a `'` written
/// `'\''`. On Windows, PowerShell: unchanged when safe, else
/// [`powershell_single_quoted`] (a quoted program is run with the call operator, see
/// [`shell_command`]).
pub fn shell_word(s: &str) -> String {
    if is_plain_word(s) {
        return s.to_string();
    }
    shell_word_quoted(s)
}

/// [`shell_word`], quoted even when it would be safe bare: for a word the redaction
/// may still rewrite (a server name holding a token becomes `[REDACTED:...]`, a glob
/// pattern to the shell when bare).
pub fn shell_word_quoted(s: &str) -> String {
    if cfg!(windows) {
        powershell_single_quoted(s)
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// [`shell_word_typed`], quoted even when it would be safe bare: for a path the output's
/// redaction may still rewrite (`p-[REDACTED:config]` bare is a glob to the shell).
pub fn shell_word_typed_quoted(s: &str) -> String {
    if s.chars().any(sanitize::is_unsafe) {
        shell_word_typed(s)
    } else {
        shell_word_quoted(s)
    }
}

/// [`shell_word`], for a word that may hold characters the screen escapes (a control
/// character, a bidi control: a server name can): in `sh` those make `$'...'` with
/// `\xHH` escapes of its UTF-8 bytes (bash, zsh, ksh and recent dash read it, in any
/// locale), so the command
/// runs as printed; the escaped screen would otherwise show `\x1b` inside plain
/// quotes, which the shell takes literally. PowerShell: `` `u{HHHH} `` in double quotes.
pub fn shell_word_typed(s: &str) -> String {
    if !s.chars().any(sanitize::is_unsafe) {
        return shell_word(s);
    }
    let mut out = String::new();
    if cfg!(windows) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' | '`' | '$' => {
                    out.push('`');
                    out.push(c);
                }
                c if sanitize::is_unsafe(c) => out.push_str(&format!("`u{{{:04x}}}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        return out;
    }
    out.push_str("$'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            // its UTF-8 bytes, each `\xHH`: `\uHHHH` is expanded by bash only in a
            // UTF-8 locale (under LANG=C it stays the literal text `\u202E`)
            c if sanitize::is_unsafe(c) => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// PowerShell's single quotes: `'` and the typographic quotes it also accepts (a `’` in
/// a name would otherwise end the quoting).
pub const POWERSHELL_QUOTES: [char; 5] = ['\'', '\u{2018}', '\u{2019}', '\u{201a}', '\u{201b}'];

/// `s` in PowerShell's single quotes, every quote character doubled: one literal word,
/// nothing in it expanded.
pub fn powershell_single_quoted(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        if POWERSHELL_QUOTES.contains(&c) {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// `--OPTION WORD` for a command mcplogs prints, `WORD` quoted by [`shell_word`] or its
/// kin: `--OPTION=WORD` when the program gets it starting with `-` (bare, `'-…'`,
/// `$'-…'`), which clap would read as an option (`--server -dash` is a usage error,
/// `--server --help` lacks its value), so the command runs as printed.
pub fn option_word(option: &str, word: &str) -> String {
    if reaches_as_option(word) {
        format!("{option}={word}")
    } else {
        format!("{option} {word}")
    }
}

/// A positional `WORD` of a command mcplogs prints, quoted as for [`option_word`]: `--
/// WORD` when the program gets it starting with `-` (`mcplogs fix -dash` is a usage
/// error, `mcplogs fix --help` prints the help). Everything after `--` is positional: the
/// word goes last.
pub fn positional_word(word: &str) -> String {
    if reaches_as_option(word) {
        format!("-- {word}")
    } else {
        word.to_string()
    }
}

/// `s` (a command mcplogs prints in a sentence) as an inline code span: between single
/// backticks, or when it holds a backtick (a name can), between a run of one more than
/// its longest run, a space inside each (CommonMark's code span, which the report
/// renders), so no backtick inside ends it and a reader copies it whole.
pub fn code_span(s: &str) -> String {
    let run = backtick_run(s);
    if run == 0 {
        return format!("`{s}`");
    }
    let ticks = "`".repeat(run + 1);
    format!("{ticks} {s} {ticks}")
}

/// The longest run of backticks in `s`: a Markdown code span or fence around it takes
/// one more, so nothing inside ends it.
pub fn backtick_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Whether a quoted word reaches the program starting with `-`.
fn reaches_as_option(word: &str) -> bool {
    let w = word.strip_prefix('$').unwrap_or(word);
    w.strip_prefix(['\'', '"']).unwrap_or(w).starts_with('-')
}

/// Whether `s` reads as itself, unquoted, in the user's shell.
fn is_plain_word(s: &str) -> bool {
    let extra = if cfg!(windows) {
        "/._-+:=\\"
    } else {
        "/._-+:=@%,~"
    };
    !s.is_empty()
        && !s.starts_with('~')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || extra.contains(c))
}

/// A command line (program, then arguments) quoted for the user's shell, each word by
/// [`shell_word`]; `None` when a word holds a control character (a newline, an
/// escape), which no one-line command can show as it is.
pub fn shell_command<S: AsRef<str>>(argv: &[S]) -> Option<String> {
    let first = argv.first()?;
    if argv
        .iter()
        .any(|w| w.as_ref().chars().any(char::is_control))
    {
        return None;
    }
    let words: Vec<String> = argv.iter().map(|w| shell_word(w.as_ref())).collect();
    let line = words.join(" ");
    // PowerShell runs a quoted program only through the call operator.
    if cfg!(windows) && !is_plain_word(first.as_ref()) {
        return Some(format!("& {line}"));
    }
    Some(line)
}

/// `command` run in folder `dir`: `cd DIR && COMMAND` (`Set-Location DIR; COMMAND` in
/// PowerShell); `None` when the folder's name holds a control character.
pub fn shell_in_folder(dir: &str, command: &str) -> Option<String> {
    if dir.chars().any(char::is_control) {
        return None;
    }
    // Always quoted: a report's redaction may still rewrite part of the path (the user
    // name as `<user>`), which bare would read as redirections to the shell; quoted, it
    // is a folder that does not exist, and `&&` stops there.
    Some(if cfg!(windows) {
        format!("Set-Location {}; {command}", shell_word_quoted(dir))
    } else {
        format!("cd {} && {command}", shell_word_quoted(dir))
    })
}

#[cfg(test)]
mod markdown_tests {
    use super::*;
    use proptest::prelude::*;

    /// A table row split as cmark-gfm splits it: the outer pipes dropped, a cell runs to
    /// the next `|` not escaped (a backslash takes the character after it along, from
    /// the left), and `\|` in a cell becomes `|`.
    fn gfm_cells(row: &str) -> Vec<String> {
        let inner = row.trim().strip_prefix('|').unwrap_or(row.trim());
        let mut cells = vec![String::new()];
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    let cell = cells.last_mut().expect("a cell");
                    cell.push('\\');
                    if let Some(n) = chars.next() {
                        cell.push(n);
                    }
                }
                '|' => cells.push(String::new()),
                c => cells.last_mut().expect("a cell").push(c),
            }
        }
        if cells.last().is_some_and(|c| c.trim().is_empty()) {
            cells.pop();
        }
        cells
            .into_iter()
            .map(|c| c.trim().replace("\\|", "|"))
            .collect()
    }

    /// What CommonMark shows of plain inline text made of escapes and characters only:
    /// a backslash before ASCII punctuation shows the punctuation.
    fn shown_text(cell: &str) -> String {
        let mut out = String::new();
        let mut chars = cell.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, chars.peek()) {
                ('\\', Some(n)) if n.is_ascii_punctuation() => {
                    out.push(*n);
                    chars.next();
                }
                (c, _) => out.push(c),
            }
        }
        out
    }

    /// What CommonMark shows of a cell that is one code span: the text between its
    /// backtick fences, one space stripped from each side when both sides have one.
    fn shown_code(cell: &str) -> String {
        let n = cell.chars().take_while(|&c| c == '`').count();
        let inner = &cell[n..cell.len() - n];
        match inner.strip_prefix(' ').and_then(|i| i.strip_suffix(' ')) {
            Some(i) if !inner.trim().is_empty() => i.to_string(),
            _ => inner.to_string(),
        }
    }

    /// Whether every run of backslashes in `s` shows as written in plain Markdown once
    /// [`markdown_text`] escaped it.
    fn backslashes_read_as_written(s: &str) -> bool {
        let mut run = 0;
        for c in s.chars().chain(std::iter::once(' ')) {
            if c == '\\' {
                run += 1;
                continue;
            }
            let fine =
                run == 0 || matches!(c, '|' | '<' | '>') || (run == 1 && !c.is_ascii_punctuation());
            if !fine {
                return false;
            }
            run = 0;
        }
        true
    }

    fn cell_text() -> impl Strategy<Value = String> {
        let c = prop_oneof![
            2 => any::<char>(),
            3 => prop::sample::select(vec!['|', '\\', '`', '<', '>', ' ', 'a', '\n']),
        ];
        prop::collection::vec(c, 0..24).prop_map(String::from_iter)
    }

    #[test]
    fn pipes_and_backslashes_keep_a_table_row() {
        assert_eq!(table_pipes("a|b"), "a\\|b");
        assert_eq!(table_pipes("a\\|b"), "a\\\\\\|b");
        assert_eq!(markdown_text("a\\|b<c>"), "a\\\\\\|b\\<c\\>");
        assert_eq!(markdown_text("C:\\Users\\x"), "C:\\Users\\x");
        assert_eq!(markdown_code("x `y` z"), "``x `y` z``");
        let row = format!(
            "| {} | {} |",
            markdown_code("a\\|b"),
            markdown_text("a\\|b")
        );
        assert_eq!(gfm_cells(&row).len(), 2, "{row}");
    }

    proptest! {
        /// Any text in a code span and as plain text is two cells, no more, and the
        /// plain text without backticks shows exactly what it was (made terminal-safe);
        /// the code span too, but for the backslashes doubled before a pipe (a code span
        /// shows every backslash).
        #[test]
        fn any_text_stays_in_its_cell(s in cell_text()) {
            let row = format!("| {} | {} |", markdown_code(&s), markdown_text(&s));
            let cells = gfm_cells(&row);
            prop_assert_eq!(cells.len(), 2, "{}", row);
            let safe = terminal_safe(&s, false);
            // Exact where Markdown leaves the text as written: no backtick (a code span
            // shows escapes as written), and no backslash run before other punctuation
            // or of two or more before anything else (Markdown reads those as escapes;
            // only the runs before `|`, `<` and `>` are doubled).
            if !safe.contains('`') && backslashes_read_as_written(&safe) {
                prop_assert_eq!(shown_text(&cells[1]), safe.trim(), "{}", row);
            }
            if !safe.is_empty() && !safe.contains("\\|") {
                let code = shown_code(&cells[0]);
                prop_assert_eq!(code.trim(), safe.trim(), "{}", row);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_starting_with_a_dash_is_given_as_a_value() {
        for (name, option, positional) in [
            ("my-db", "--server my-db", "my-db"),
            ("-dash", "--server=-dash", "-- -dash"),
            ("--help", "--server=--help", "-- --help"),
            ("-a b", "--server='-a b'", "-- '-a b'"),
            ("a -b", "--server 'a -b'", "'a -b'"),
        ] {
            let w = shell_word_typed(name);
            assert_eq!(option_word("--server", &w), option.replace("'-a b'", &w));
            assert_eq!(positional_word(&w), positional.replace("'-a b'", &w));
        }
        let typed = shell_word_typed("-\u{202e}x");
        assert!(option_word("--server", &typed).starts_with("--server="));
    }

    #[test]
    fn a_code_span_holding_a_backtick_has_a_longer_fence() {
        assert_eq!(code_span("mcplogs fix a"), "`mcplogs fix a`");
        assert_eq!(code_span("mcplogs fix 'b`t'"), "`` mcplogs fix 'b`t' ``");
        assert_eq!(code_span("x ``y` z"), "``` x ``y` z ```");
    }

    /// A name with a control or bidi character is printed in a form the shell turns
    /// back into the same bytes, in printable ASCII (the screen shows it as it is).
    #[cfg(unix)]
    #[test]
    fn a_word_with_control_characters_is_typed_back_by_the_shell() {
        let name = "ev\u{1b}[2J\u{202e}it's\\";
        let w = shell_word_typed(name);
        assert_eq!(w, "$'ev\\x1b[2J\\xe2\\x80\\xaeit\\'s\\\\'");
        assert!(w.chars().all(|c| c.is_ascii_graphic()), "{w}");
        assert_eq!(shell_word_typed("plain"), "plain");
        assert_eq!(shell_word_typed("a b"), "'a b'");
        if std::path::Path::new("/bin/bash").exists() {
            // in any locale: `\uHHHH` would stay literal text under LC_ALL=C
            for locale in ["C", "C.UTF-8"] {
                let out = std::process::Command::new("/bin/bash")
                    .args(["-c", &format!("printf %s {w}")])
                    .env("LC_ALL", locale)
                    .env("LANG", locale)
                    .output()
                    .unwrap();
                assert_eq!(String::from_utf8(out.stdout).unwrap(), name, "{locale}");
            }
        }
    }

    /// Every PowerShell quote character is doubled, so none can end the quoting (the
    /// Windows form of `shell_word`, and completion's).
    #[test]
    fn powershell_quoting_doubles_every_quote_character() {
        assert_eq!(powershell_single_quoted("it's"), "'it''s'");
        assert_eq!(
            powershell_single_quoted("a\u{2019}; rm x"),
            "'a\u{2019}\u{2019}; rm x'"
        );
        for q in POWERSHELL_QUOTES {
            let quoted = powershell_single_quoted(&format!("x{q}y"));
            assert_eq!(quoted.matches(q).count() % 2, 0, "{quoted}");
            assert!(quoted.contains(&format!("{q}{q}")), "{quoted}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn shell_words_read_back_as_themselves() {
        assert_eq!(shell_word("/a/b-c_d.e"), "/a/b-c_d.e");
        assert_eq!(shell_word("~/x"), "'~/x'");
        assert_eq!(shell_word("a~b"), "a~b");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("it's here"), "'it'\\''s here'");
        assert_eq!(shell_word("$(rm -rf x)"), "'$(rm -rf x)'");
        assert_eq!(
            shell_command(&["python3", "a b.py", "--x"]).as_deref(),
            Some("python3 'a b.py' --x")
        );
        assert_eq!(shell_command(&["a", "x\ny"]), None);
        assert_eq!(shell_command::<&str>(&[]), None);
        assert_eq!(
            shell_in_folder("/w/my app", "run").as_deref(),
            Some("cd '/w/my app' && run")
        );
        // a plain path quoted too: a redaction inside it stays a word
        assert_eq!(
            shell_in_folder("/srv/alice/app", "run").as_deref(),
            Some("cd '/srv/alice/app' && run")
        );
        // What sh makes of each quoted word is the word itself.
        for w in [
            "plain",
            "two words",
            "it's",
            "a\"b",
            "$HOME",
            "`id`",
            "~",
            "-n",
            "*",
            "a;b|c&d",
        ] {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s {}", shell_word(w)))
                .output()
                .expect("sh runs");
            assert_eq!(String::from_utf8_lossy(&out.stdout), w, "{w}");
        }
    }

    #[test]
    fn hex_is_two_lower_case_digits_a_byte() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        assert_eq!(hex(&[]), "");
    }

    #[test]
    fn escapes_terminal_controls() {
        assert_eq!(
            terminal_safe("a\u{1b}]52;c;ZXZpbA==\u{7}b\rc\u{202e}", false),
            "a\\x1b]52;c;ZXZpbA==\\x07b\\rc<U+202E>"
        );
        assert_eq!(terminal_safe("x\ny", true), "x\ny");
        assert_eq!(terminal_safe("x\ny", false), "x\\ny");
    }

    #[test]
    fn one_line_cuts_and_marks_more() {
        assert_eq!(one_line("abc", 10), "abc");
        assert_eq!(one_line("abcdefghijkl", 5), "abcd…");
        assert_eq!(one_line("ab\ncd", 10), "ab…");
        assert_eq!(one_line("ab cdefgh", 5), "ab c…");
        assert_eq!(one_line("ab [REDACTED:x] y", 8), "ab…");
    }

    #[test]
    fn whole_words_never_ends_inside_a_word() {
        assert_eq!(whole_words("one two three", 100), "one two three");
        assert_eq!(whole_words("one two three", 7), "one two");
        assert_eq!(whole_words("one two three", 6), "one");
        assert_eq!(whole_words("one two three", 8), "one two");
        assert_eq!(whole_words("onetwothree", 5), "");
        assert_eq!(whole_words(r#"{"a":1,"token":"ghp_x"}"#, 18), r#"{"a":1"#);
        assert_eq!(whole_words("é é é", 3), "é é");
    }

    /// The ASCII way and the character walk agree, on every word end and length.
    #[test]
    fn whole_words_of_ascii_is_the_character_walk() {
        fn walk(s: &str, max: usize) -> &str {
            let Some((end, next)) = s.char_indices().nth(max) else {
                return s;
            };
            let kept = &s[..end];
            let kept = if ends_word(next) {
                kept
            } else {
                kept.rfind(ends_word).map_or("", |i| &kept[..i])
            };
            kept.trim_end()
        }
        let pieces = [
            "ab", " ", ",", "\t", "\n", "\r", "\u{b}", "\u{c}", "xyz", "é", "\u{85}",
        ];
        let mut seed: u64 = 7;
        for _ in 0..5000 {
            let mut s = String::new();
            for _ in 0..(seed % 12) {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                s.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
            }
            for max in 0..s.len() + 2 {
                assert_eq!(whole_words(&s, max), walk(&s, max), "{s:?} {max}");
            }
        }
    }

    #[test]
    fn pretty_prints_embedded_zod_errors() {
        let m = "Failed to fetch tools: Invalid result for tools/list: [{\"path\":[\"ttlMs\"],\"message\":\"Required\"}]";
        let p = pretty_message(m);
        assert!(p.starts_with("Failed to fetch tools: Invalid result for tools/list:\n[\n  {"));
        assert!(p.contains("\"path\": [\n      \"ttlMs\"\n    ]"));
    }
}

/// A JSON path as Claude Code's zod issues give it (`["tools", 2, "inputSchema"]`), in
/// the form every output shows: `tools[2].inputSchema`.
pub fn json_path<'a>(segments: impl IntoIterator<Item = &'a serde_json::Value>) -> String {
    let mut out = String::new();
    for p in segments {
        match p {
            serde_json::Value::Number(n) => out.push_str(&format!("[{n}]")),
            serde_json::Value::String(s) if out.is_empty() => out.push_str(s),
            serde_json::Value::String(s) => {
                out.push('.');
                out.push_str(s);
            }
            other => out.push_str(&format!(".{other}")),
        }
    }
    out
}

/// Bytes as lower-case hexadecimal, two digits a byte (a digest's usual form).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    s
}

/// `n` and a noun in the right number: `1 file`, `2 files` (nouns that take an `s`).
pub fn count(n: usize, singular: &str) -> String {
    if n == 1 {
        format!("1 {singular}")
    } else {
        format!("{n} {singular}s")
    }
}

/// `s` starting a sentence: its first letter in upper case (`the server answers` ->
/// `The server answers`); the rest, names and code included, as it is.
pub fn sentence(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A verb agreeing with a count: `1 fails`, `2 fail` (`agree(n, "fails", "fail")`).
pub fn agree<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

#[cfg(test)]
mod count_tests {
    #[test]
    fn counts_and_verbs_agree() {
        assert_eq!(super::count(0, "file"), "0 files");
        assert_eq!(super::count(1, "file"), "1 file");
        assert_eq!(super::count(2, "session"), "2 sessions");
        assert_eq!(super::agree(1, "fails", "fail"), "fails");
        assert_eq!(super::agree(3, "fails", "fail"), "fail");
        assert_eq!(super::sentence("the server answers"), "The server answers");
        assert_eq!(super::sentence("`x` fails"), "`x` fails");
        assert_eq!(super::sentence(""), "");
    }
}

/// `%XX` sequences decoded to their bytes (an invalid or cut-short sequence is kept as
/// written): the one percent-decoding of a URL's parts and of the OTLP header lists.
pub fn percent_decoded_bytes(s: &str) -> Vec<u8> {
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    out
}
