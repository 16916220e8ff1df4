//! The one layout toolkit every screen goes through: display width, cuts (always given
//! redacted text), word wrapping with hanging indents, tables that turn into a list
//! when they cannot fit, and [`fit`], the last pass over a whole screen that keeps
//! every line within the terminal.
//!
//! Width is counted as a terminal counts it: East Asian wide characters take two
//! columns, combining marks none, and the colour escapes `colored` adds (`ESC [ … m`)
//! none. Everything else that could move the cursor has been escaped by
//! [`crate::text::sanitize`] before it gets here.
//!
//! `width: None` means piped output: nothing is cut or wrapped, a table keeps its
//! columns, so scripts see one line per item.

use unicode_width::UnicodeWidthChar;

/// Below this a terminal is taken to be this wide: nothing readable fits in less.
pub const MIN_WIDTH: usize = 40;

/// Columns of `s` on a terminal.
pub fn cols(s: &str) -> usize {
    atoms(s).map(|(_, w)| w).sum()
}

/// `s` as the pieces a line may break between, each with its columns: a character, or
/// a whole colour escape (no columns, never split).
fn atoms(s: &str) -> impl Iterator<Item = (&str, usize)> + '_ {
    let mut rest = s;
    std::iter::from_fn(move || {
        let c = rest.chars().next()?;
        let len = if c == '\u{1b}' && rest[1..].starts_with('[') {
            // CSI: ESC [ parameters, then one final byte in @..~
            rest[2..]
                .find(|c: char| ('@'..='~').contains(&c))
                .map_or(rest.len(), |i| i + 3)
        } else {
            c.len_utf8()
        };
        let (atom, tail) = rest.split_at(len);
        rest = tail;
        let w = if c == '\u{1b}' {
            0
        } else {
            c.width().unwrap_or(0)
        };
        Some((atom, w))
    })
}

/// The byte length of the longest start of `s` within `max` columns.
fn prefix_len(s: &str, max: usize) -> usize {
    let (mut used, mut len) = (0, 0);
    for (a, w) in atoms(s) {
        if used + w > max {
            break;
        }
        used += w;
        len += a.len();
    }
    len
}

/// The byte offset where the longest end of `s` within `max` columns starts.
fn suffix_start(s: &str, max: usize) -> usize {
    let mut used = 0;
    let mut start = s.len();
    for (i, c) in s.char_indices().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > max {
            break;
        }
        used += w;
        start = i;
    }
    start
}

/// The one cut for display: `s` in at most `max` columns, ending in `…` when something
/// was left out. Redact first, then cut: a secret cut short no longer matches its rule
/// (`ghp_CutLeak0123…`, `jane.doe@corp-ex…`), so every caller gives this text that is
/// already redacted, and the cut may then fall inside a word (a server name, a path),
/// but never inside a redaction marker: a marker it would split goes whole.
pub fn cut(s: &str, max: usize) -> String {
    cut_marked(s, max, false)
}

/// [`cut`]; `more`: something follows `s` that is left out anyway (a message's other
/// lines), so the `…` is due even when `s` fits.
pub(crate) fn cut_marked(s: &str, max: usize, more: bool) -> String {
    let w = cols(s);
    if w <= max && !more {
        return s.to_string();
    }
    if w < max {
        return format!("{s}…");
    }
    let end = prefix_len(s, max.saturating_sub(1));
    let end = match markers(s).find(|&(a, b)| a < end && end < b) {
        Some((a, _)) => a,
        None => end,
    };
    format!("{}…", s[..end].trim_end())
}

/// [`cut`] for a column of paths and names: `s` in at most `max` columns with its
/// middle replaced by `…`, keeping its leading spaces (an indented server name stays
/// indented) and both ends of a path. Given redacted text, like [`cut`], and like it
/// never splitting a redaction marker: one the cut would split is left out whole.
pub fn cut_middle(s: &str, max: usize) -> String {
    if cols(s) <= max {
        return s.to_string();
    }
    let body = s.trim_start_matches(' ');
    let indent = s.len() - body.len();
    let room = max.saturating_sub(indent + 1);
    let head_n = room.div_ceil(2);
    let mut head = prefix_len(body, head_n);
    let mut tail = suffix_start(body, room - head_n);
    for (a, b) in markers(body) {
        if a < head && head < b {
            head = a;
        }
        if a < tail && tail < b {
            tail = b;
        }
    }
    format!("{}{}…{}", " ".repeat(indent), &body[..head], &body[tail..])
}

/// The byte ranges of the redactor's markers in `s` (`[REDACTED:kind]`, `<user>`,
/// `<private-host>`), which a cut must keep whole or leave out.
fn markers(s: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let redacted = s
        .match_indices("[REDACTED:")
        .filter_map(move |(i, _)| s[i..].find(']').map(|j| (i, i + j + 1)));
    let fixed = ["<user>", "<private-host>"]
        .into_iter()
        .flat_map(move |m| s.match_indices(m).map(|(i, m)| (i, i + m.len())));
    redacted.chain(fixed)
}

/// Wraps `text` (one line) to `width` columns; the first line starts after `first`
/// (written by this call), the others after `indent` spaces (a hanging indent).
/// `None`: one line. A word longer than a line (a path) is cut in the middle with `…`:
/// for names whose whole form is shown elsewhere.
pub fn wrap(text: &str, first: &str, indent: usize, width: Option<usize>) -> String {
    wrap_with(text, first, indent, width, false)
}

/// [`wrap`], but a word longer than a line is broken across lines, every character
/// kept (after a `/`, `,` or `-` where one is near the end of the line): for log
/// messages, advice, paths and diffs, where nothing may go missing.
pub fn wrap_keeping(text: &str, first: &str, indent: usize, width: Option<usize>) -> String {
    wrap_with(text, first, indent, width, true)
}

/// The columns a wrapped line may use: `width`, but never so little that the text
/// after the indent gets fewer than 20 columns.
fn room(width: usize, indent: usize) -> usize {
    width.max(indent + 20)
}

/// One word of a text to wrap: a plain word, or a shell word of a command in backquotes
/// (a quoted argument holding spaces stays one word).
struct Unit<'a> {
    text: std::borrow::Cow<'a, str>,
    /// Inside a command, after its first word: a line may break before it only with a
    /// shell continuation (` \` at the end of the line), so the command still runs as
    /// printed when copied from the screen.
    continues: bool,
}

/// The words of `text` ([`Unit`]).
fn units(text: &str) -> Vec<Unit<'_>> {
    let mut out: Vec<Unit> = Vec::new();
    let (mut tick, mut quote) = (false, false);
    // The last unit is a quoted argument still open: the next piece belongs to it.
    let mut joining = false;
    for piece in text.split(' ') {
        if !joining && piece.is_empty() {
            continue;
        }
        let starts_in_command = tick;
        let mut chars = piece.chars();
        while let Some(c) = chars.next() {
            match c {
                '`' if !quote => tick = !tick,
                '\\' if tick && !quote => {
                    chars.next();
                }
                '\'' if tick => quote = !quote,
                _ => {}
            }
        }
        match out.last_mut() {
            Some(last) if joining => {
                let mut t = std::mem::take(&mut last.text).into_owned();
                t.push(' ');
                t.push_str(piece);
                last.text = t.into();
            }
            _ => out.push(Unit {
                text: piece.into(),
                continues: starts_in_command,
            }),
        }
        joining = tick && quote;
    }
    out
}

fn wrap_with(text: &str, first: &str, indent: usize, width: Option<usize>, keep: bool) -> String {
    let Some(width) = width else {
        return format!("{first}{text}\n");
    };
    let room = room(width, indent);
    let mut out = String::from(first);
    let mut col = cols(first);
    let mut line_empty = true;
    let new_line = |out: &mut String, col: &mut usize| {
        out.push('\n');
        out.push_str(&" ".repeat(indent));
        *col = indent;
    };
    let units = units(text);
    for (i, unit) in units.iter().enumerate() {
        let word = unit.text.as_ref();
        let w = cols(word);
        // Room for the ` \` a break inside a command after this word would need.
        let reserve = if units.get(i + 1).is_some_and(|n| n.continues) {
            2
        } else {
            0
        };
        if !line_empty && col + 1 + w + reserve > room {
            if unit.continues {
                out.push_str(" \\");
            }
            new_line(&mut out, &mut col);
            line_empty = true;
        }
        if !line_empty {
            out.push(' ');
            col += 1;
        }
        // A command's word is never cut: broken so that it still pastes as itself.
        let in_command = unit.continues || reserve > 0;
        // (the ` \` after it counts: a word that fits only without it is broken too)
        if col + w + reserve > room {
            if in_command && !word.contains('\u{1b}') {
                col = push_command_word(&mut out, col, word, room, reserve, unit.continues);
            } else if keep || in_command {
                let mut rest = word;
                while !rest.is_empty() {
                    let mut take = break_at(rest, room.saturating_sub(col + reserve));
                    if take == 0 {
                        if col > indent {
                            // not even one character fits after what is there
                            new_line(&mut out, &mut col);
                            continue;
                        }
                        take = rest.chars().next().map_or(rest.len(), char::len_utf8);
                    }
                    out.push_str(&rest[..take]);
                    col += cols(&rest[..take]);
                    rest = &rest[take..];
                    if !rest.is_empty() {
                        new_line(&mut out, &mut col);
                    }
                }
            } else {
                let piece = cut_middle(word, room.saturating_sub(col));
                col += cols(&piece);
                out.push_str(&piece);
            }
        } else {
            out.push_str(word);
            col += w;
        }
        line_empty = false;
    }
    out.push('\n');
    out
}

/// One word of a command too long for the rest of the line, broken so that it still
/// runs as printed when pasted: each piece but the last ends with a backslash and the
/// next starts at column 0 (the shell drops a backslash-newline, and an indent would
/// split the word); inside single quotes the piece closes its quote first and the next
/// opens it again (`'ab'\` then `'cd'`). Never right after an escaping backslash.
/// `tick` is whether the word starts inside the command's backquotes. Returns the
/// column after it.
fn push_command_word(
    out: &mut String,
    mut col: usize,
    word: &str,
    room: usize,
    reserve: usize,
    mut tick: bool,
) -> usize {
    let (mut quote, mut escaped) = (false, false);
    let mut left = cols(word);
    for c in word.chars() {
        let cw = cols(c.encode_utf8(&mut [0; 4]));
        // the rest fits with what must follow it on this line: no more breaks
        let rest_fits = col + left + reserve <= room;
        // room for the character and the widest mark, `'\`
        if !rest_fits && !escaped && col + cw + 2 > room && col > usize::from(quote) {
            if quote {
                out.push_str("'\\\n'");
                col = 1;
            } else {
                out.push_str("\\\n");
                col = 0;
            }
        }
        out.push(c);
        col += cw;
        left -= cw.min(left);
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '`' if !quote => tick = !tick,
            '\\' if tick && !quote => escaped = true,
            '\'' if tick => quote = !quote,
            _ => {}
        }
    }
    col
}

/// Where to break a word too long for `room` columns: after the last `/` (or `\`) in
/// its first `room` columns when that keeps at least half of them, else the last `,`,
/// else the last `-`, `&` or `?`, else at
/// `room`; 0 when not even the first character fits.
fn break_at(word: &str, room: usize) -> usize {
    let hard = prefix_len(word, room);
    if hard >= word.len() {
        return word.len();
    }
    if hard == 0 {
        return 0;
    }
    // a path's separators first, then JSON's commas, then hyphens and URL punctuation
    let tiers: [&[char]; 3] = [&['/', '\\'], &[','], &['-', '&', '?']];
    let soft = tiers.iter().find_map(|tier| {
        word[..hard]
            .rfind(*tier)
            .map(|i| i + 1)
            .filter(|&i| cols(&word[..i]) * 2 >= room)
    });
    soft.unwrap_or(hard)
}

/// A block of several lines (an evidence message, pretty-printed JSON), each wrapped
/// keeping every character, after `indent` spaces plus its own leading spaces.
pub fn block(text: &str, indent: usize, width: Option<usize>) -> String {
    let mut out = String::new();
    for l in text.lines() {
        let body = l.trim_start_matches(' ');
        let at = indent + l.len() - body.len();
        out.push_str(&wrap_keeping(body, &" ".repeat(at), at, width));
    }
    out
}

/// The last pass over a screen: a line wider than `width` is wrapped (every character
/// kept) with a hanging indent two past its own, so that no line passes the terminal,
/// whatever a renderer missed. Lines that fit, and everything when piped, are unchanged.
pub fn fit(text: &str, width: Option<usize>) -> String {
    let Some(width) = width else {
        return text.to_string();
    };
    if text.lines().all(|l| cols(l) <= width) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for l in text.split_inclusive('\n') {
        let (line, nl) = match l.strip_suffix('\n') {
            Some(line) => (line, "\n"),
            None => (l, ""),
        };
        if cols(line) <= width {
            out.push_str(l);
            continue;
        }
        let body = line.trim_start_matches(' ');
        let lead = line.len() - body.len();
        let hang = (lead + 2).min(width / 2);
        let wrapped = wrap_keeping(body, &" ".repeat(lead.min(width / 2)), hang, Some(width));
        out.push_str(wrapped.strip_suffix('\n').unwrap_or(&wrapped));
        out.push_str(nl);
    }
    out
}

/// `path` with the home folder shown as `~`.
pub fn tilde(path: &str, home: Option<&str>) -> String {
    if let Some(h) = home.filter(|h| !h.is_empty())
        && let Some(rest) = path.strip_prefix(h)
        && (rest.is_empty() || rest.starts_with(['/', '\\']))
    {
        return format!("~{rest}");
    }
    path.to_string()
}

/// `text` (a sentence naming paths) with the home folder as `~` wherever a path under
/// it starts, as [`tilde`] does for a path alone.
pub fn tilde_within(text: &str, home: Option<&str>) -> String {
    let Some(h) = home
        .map(|h| h.trim_end_matches(['/', '\\']))
        .filter(|h| !h.is_empty())
    else {
        return text.to_string();
    };
    let mut out = text.to_string();
    // A home holding a quote appears quoted for the shell with the quote escaped
    // (`'/home/it'\''s me/x'`, PowerShell `'C:\Users\O''Brien\x'`): that spelling is
    // the same path and goes to `~` too, or one screen would show both forms.
    let escaped = if cfg!(windows) {
        let q = super::powershell_single_quoted(h);
        q[1..q.len() - 1].to_string()
    } else {
        h.replace('\'', r"'\''")
    };
    for sep in ['/', '\\'] {
        if escaped != h {
            out = out.replace(&format!("'{escaped}{sep}"), &format!("~{sep}'"));
        }
        // A path quoted for the shell (`'/home/ana/my dir'`) keeps working: `~` is
        // expanded only outside the quotes (`~/'my dir'`).
        out = out.replace(&format!("'{h}{sep}"), &format!("~{sep}'"));
        out = out.replace(&format!("{h}{sep}"), &format!("~{sep}"));
    }
    out
}

/// One line of a unified diff fitted to `width`: a line too long goes on over as many
/// lines as it needs, each starting with the line's own sign (`+`, `-` or a space) and
/// two spaces, so every piece still reads as part of the same side, every character
/// kept.
pub fn diff_line(line: &str, width: Option<usize>) -> Vec<String> {
    let Some(width) = width.filter(|&w| cols(line) > w) else {
        return vec![line.to_string()];
    };
    let sign = line
        .chars()
        .next()
        .filter(|c| matches!(c, '+' | '-' | ' ' | '@'));
    let Some(sign) = sign else {
        return fit(line, Some(width)).lines().map(str::to_string).collect();
    };
    let room = width.max(MIN_WIDTH);
    let mut out = Vec::new();
    let mut rest = line;
    let mut lead = String::new();
    while !rest.is_empty() {
        let avail = room - cols(&lead);
        let take = match break_at(rest, avail) {
            0 => rest.chars().next().map_or(rest.len(), char::len_utf8),
            n => n,
        };
        out.push(format!("{lead}{}", &rest[..take]));
        rest = &rest[take..];
        lead = format!("{sign}  ");
    }
    out
}

/// A column of a [`table`].
#[derive(Debug, Clone, Copy)]
pub struct Column<'a> {
    pub title: &'a str,
    /// May be cut in the middle ([`cut_middle`]) down to [`SHRINK_MIN`] columns to fit:
    /// for paths and names whose whole form the user has elsewhere.
    pub shrink: bool,
}

impl<'a> Column<'a> {
    /// The columns of a table whose first column alone (project paths and server
    /// names: the one of free length) may be cut to fit.
    pub fn first_shrinks(titles: &[&'a str]) -> Vec<Column<'a>> {
        titles
            .iter()
            .enumerate()
            .map(|(i, &title)| Column {
                title,
                shrink: i == 0,
            })
            .collect()
    }
}

/// A shrinkable column is never cut below this.
pub const SHRINK_MIN: usize = 16;

/// Columns two spaces apart, left-aligned, the header bold on a terminal. With a
/// `width`, shrinkable columns are cut in the middle to fit; when even that cannot fit,
/// each row becomes a small block instead (its first cell, then `title: value` lines),
/// which fits any width. `None` (piped): the plain table.
pub fn table(columns: &[Column], rows: &[Vec<String>], width: Option<usize>) -> String {
    use colored::Colorize;
    let mut widths: Vec<usize> = columns.iter().map(|c| cols(c.title)).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cols(cell));
        }
    }
    let gaps = 2 * columns.len().saturating_sub(1);
    let total = |w: &[usize]| w.iter().sum::<usize>() + gaps;
    let mut cut_rows = None;
    if let Some(width) = width.filter(|&w| total(&widths) > w) {
        // shrink the widest shrinkable column first, down to its floor
        let mut w = widths.clone();
        while total(&w) > width {
            let Some(i) = (0..columns.len())
                .filter(|&i| columns[i].shrink && w[i] > SHRINK_MIN.max(cols(columns[i].title)))
                .max_by_key(|&i| w[i])
            else {
                break;
            };
            let floor = SHRINK_MIN.max(cols(columns[i].title));
            w[i] = w[i].saturating_sub(total(&w) - width).max(floor);
        }
        if total(&w) > width {
            return list(columns, rows, width);
        }
        cut_rows = Some(
            rows.iter()
                .map(|r| {
                    r.iter()
                        .enumerate()
                        .map(|(i, c)| {
                            if columns[i].shrink {
                                cut_middle(c, w[i])
                            } else {
                                c.clone()
                            }
                        })
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>(),
        );
        widths = w;
    }
    let rows = cut_rows.as_deref().unwrap_or(rows);
    let line = |cells: &mut dyn Iterator<Item = &str>| table_line(cells, &widths);
    let head = line(&mut columns.iter().map(|c| c.title));
    let mut out = format!("{}\n", head.trim_end().bold());
    for row in rows {
        out.push_str(&line(&mut row.iter().map(String::as_str)));
    }
    out
}

/// One line of a table: each cell padded to its column's width, two spaces between
/// columns, no trailing white space.
fn table_line(cells: &mut dyn Iterator<Item = &str>, widths: &[usize]) -> String {
    let mut out = String::new();
    for (i, cell) in cells.enumerate() {
        if i > 0 {
            out.push_str("  ");
        }
        out.push_str(cell);
        out.push_str(&" ".repeat(widths[i].saturating_sub(cols(cell))));
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// [`table`] for a first column of paths and names that are never cut (`du`, `prune`):
/// when a first cell is wider than its column can be, it goes on a line of its own,
/// wrapped with every character kept, and the row's other cells follow on the next
/// line under their titles. When even the other columns cannot fit, the list layout.
/// `None` (piped): the plain table.
pub fn table_first_wraps(titles: &[&str], rows: &[Vec<String>], width: Option<usize>) -> String {
    use colored::Colorize;
    let columns: Vec<Column> = titles
        .iter()
        .map(|&title| Column {
            title,
            shrink: false,
        })
        .collect();
    let Some(width) = width else {
        return table(&columns, rows, None);
    };
    let mut widths: Vec<usize> = titles.iter().map(|t| cols(t)).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate().skip(1) {
            widths[i] = widths[i].max(cols(cell));
        }
    }
    let gaps = 2 * titles.len().saturating_sub(1);
    let others: usize = widths[1..].iter().sum::<usize>() + gaps;
    let widest_first = rows
        .iter()
        .filter_map(|r| r.first())
        .map(|c| cols(c))
        .chain([cols(titles[0])])
        .max()
        .unwrap_or(0);
    let Some(room) = width.checked_sub(others).filter(|&r| r >= SHRINK_MIN) else {
        return list(&columns, rows, width);
    };
    widths[0] = widest_first.min(room).max(cols(titles[0]));
    let line = |cells: &mut dyn Iterator<Item = &str>| table_line(cells, &widths);
    let head = line(&mut titles.iter().copied());
    let mut out = format!("{}\n", head.trim_end().bold());
    for row in rows {
        let Some((first, rest)) = row.split_first() else {
            continue;
        };
        if cols(first) <= widths[0] {
            out.push_str(&line(&mut row.iter().map(String::as_str)));
            continue;
        }
        // the whole cell on its own lines, continuation lines indented two more
        let lead = first.len() - first.trim_start_matches(' ').len();
        out.push_str(&wrap_keeping(
            &first[lead..],
            &first[..lead],
            lead + 2,
            Some(width),
        ));
        out.push_str(&line(
            &mut std::iter::once("").chain(rest.iter().map(String::as_str)),
        ));
    }
    out
}

/// The list layout of a table that cannot fit: per row, its first cell, then one
/// `title: value` line per other non-empty cell, wrapped with every character kept.
fn list(columns: &[Column], rows: &[Vec<String>], width: usize) -> String {
    use colored::Colorize;
    let mut out = String::new();
    for row in rows {
        let Some((first, rest)) = row.split_first() else {
            continue;
        };
        // where the row's text starts, after its indent and a marker such as `* `
        let lead = first.len() - first.trim_start_matches([' ', '*']).len();
        let head = wrap_keeping(&first[lead..], &first[..lead], lead + 2, Some(width));
        out.push_str(&head.bold().to_string());
        for (c, cell) in columns[1..].iter().zip(rest) {
            let cell = cell.trim();
            if cell.is_empty() {
                continue;
            }
            // `FILE` reads as `file:`; a variable's name stays as it is spelled
            let title = c.title.trim();
            let title = if title.contains('_') {
                title.to_string()
            } else {
                title.to_lowercase()
            };
            let label = format!("{}  {title}: ", " ".repeat(lead));
            out.push_str(&wrap_keeping(cell, &label, lead + 4, Some(width)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_first_cell_too_wide_goes_on_its_own_line_whole() {
        let long = "/home/someone/a/rather/long/project/path/that/does/not/fit/in/the/column";
        let rows = vec![
            vec![long.to_string(), "1.0 KiB".to_string(), "3".to_string()],
            vec!["  short".to_string(), "512 B".to_string(), "1".to_string()],
        ];
        let t = super::table_first_wraps(&["PROJECT / SERVER", "SIZE", "FILES"], &rows, Some(40));
        for l in t.lines() {
            assert!(super::cols(l) <= 40, "{l:?}\n{t}");
        }
        // every character of the path is there, in order
        let joined: String = t
            .lines()
            .skip(1)
            .take_while(|l| !l.contains("KiB"))
            .map(str::trim)
            .collect();
        assert_eq!(joined, long, "{t}");
        assert!(t.contains("1.0 KiB"), "{t}");
        assert!(
            t.lines()
                .any(|l| l.starts_with("  short") && l.contains("512 B")),
            "{t}"
        );
        // piped: one row per line, nothing moved
        let piped = super::table_first_wraps(&["PROJECT / SERVER", "SIZE", "FILES"], &rows, None);
        assert!(
            piped
                .lines()
                .any(|l| l.starts_with(long) && l.contains("1.0 KiB")),
            "{piped}"
        );
    }

    use super::*;
    use proptest::prelude::*;

    /// The words `sh` reads from `command` (`printf '%s\n' WORDS` run by `sh -c`).
    #[cfg(unix)]
    fn words_sh_reads(command: &str) -> Vec<String> {
        let o = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("printf '%s\\n' {command}"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{command:?}");
        String::from_utf8(o.stdout)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// A command word too long for its line is broken with a backslash-newline (closing
    /// and reopening its quotes), so the command pasted from the screen is the same
    /// command; every line fits, a word that fits only without the ` \` after it too.
    #[cfg(unix)]
    #[test]
    fn a_command_broken_inside_a_word_pastes_as_the_same_command() {
        let widths = [20usize, 31, 40, 57, 80];
        for n in [10usize, 60, 74, 75, 76, 77, 78, 79, 80, 150] {
            let plain = format!("/{}", "x".repeat(n - 1));
            let spaced = format!("'/home/my dir/{}'", "y".repeat(n));
            let escaped = format!("'/it'\\''s/{}'", "z".repeat(n));
            for arg in [&plain, &spaced, &escaped] {
                let command = format!("--home {arg} --dry-run");
                let text = format!("Reclaim space: `mcplogs prune {command}` shows it.");
                let want = words_sh_reads(&format!("mcplogs prune {command}"));
                for &width in &widths {
                    for indent in [0usize, 2, 5] {
                        let out = wrap(&text, "", indent, Some(width));
                        for l in out.lines() {
                            assert!(cols(l) <= width.max(indent + 20), "{width}: {l:?}\n{out}");
                        }
                        let (a, b) = (out.find('`').unwrap(), out.rfind('`').unwrap());
                        let pasted = &out[a + 1..b];
                        assert_eq!(words_sh_reads(pasted), want, "{width}/{indent}:\n{out}");
                    }
                }
            }
        }
    }

    #[test]
    fn width_counts_wide_characters_and_skips_colour() {
        assert_eq!(cols("abc"), 3);
        assert_eq!(cols("日本"), 4);
        assert_eq!(cols("e\u{301}"), 1);
        assert_eq!(cols("\u{1b}[1;31mred\u{1b}[0m"), 3);
        assert_eq!(cols("…"), 1);
    }

    #[test]
    fn cut_never_splits_a_marker() {
        assert_eq!(cut("short", 5), "short");
        assert_eq!(cut("a b c d", 6), "a b c…");
        assert_eq!(cut("mcp-logs-a-very-long-server-name", 12), "mcp-logs-a-…");
        assert_eq!(cut("x [REDACTED:github-token] y", 20), "x…");
        assert_eq!(cut("x [REDACTED:github-token] y", 8), "x…");
        assert_eq!(
            cut("x [REDACTED:github-token] y", 26),
            "x [REDACTED:github-token]…"
        );
        assert_eq!(cut("proj_[REDACTED:github-token]_x", 12), "proj_…");
        assert_eq!(
            cut("proj_[REDACTED:github-token]_x", 30),
            "proj_[REDACTED:github-token]_x"
        );
        assert_eq!(
            cut("proj_[REDACTED:github-token]_x", 29),
            "proj_[REDACTED:github-token]…"
        );
        assert_eq!(cut("~/<user>/<private-host>x", 13), "~/<user>/…");
        assert_eq!(cut("a [b] [c", 100), "a [b] [c");
        assert_eq!(cut("a [b] [cdefgh", 9), "a [b] [c…");
        assert_eq!(cut("anything", 0), "…");
        // by columns: a wide character is two
        assert_eq!(cut("日本語テキスト", 7), "日本語…");
    }

    #[test]
    fn cut_middle_keeps_both_ends_and_whole_markers() {
        assert_eq!(cut_middle("short", 5), "short");
        assert_eq!(cut_middle("  abcdefghij", 8), "  abc…ij");
        assert_eq!(cut_middle("/home/x/projects/api", 10), "/home…/api");
        assert_eq!(
            cut_middle("/w/proj_[REDACTED:github-token]_x/y", 16),
            "/w/proj_…_x/y"
        );
        assert_eq!(cut_middle("a[REDACTED:x]bcdefghijk", 8), "a…ijk");
        assert_eq!(cut_middle("abcdefgh[REDACTED:x]b", 8), "abcd…b");
        assert!(cols(&cut_middle("/home/日本語/projects/日本語", 12)) <= 12);
    }

    #[test]
    fn long_words_break_after_a_slash_when_one_is_near() {
        let path = "/home/jane/.cache/claude-cli-nodejs/-home-jane-work-api/mcp-logs-github";
        let out = wrap_keeping(path, "  logs: ", 4, Some(40));
        assert_eq!(
            out,
            "  logs: /home/jane/.cache/\n    claude-cli-nodejs/\n    -home-jane-work-api/mcp-logs-github\n"
        );
    }

    #[test]
    fn fit_leaves_fitting_lines_alone_and_wraps_the_rest() {
        let text = "short\n  a line that is much too long for the width given here\n";
        assert_eq!(fit(text, None), text);
        let out = fit(text, Some(40));
        assert!(out.starts_with("short\n  a line that is much too long for the\n    width"));
        for l in out.lines() {
            assert!(cols(l) <= 40, "{l:?}");
        }
    }

    #[test]
    fn a_table_cuts_its_shrinkable_column_then_turns_into_a_list() {
        let columns = [
            Column {
                title: "NAME",
                shrink: true,
            },
            Column {
                title: "STATUS",
                shrink: false,
            },
        ];
        let rows = vec![vec![
            "/a/very/long/path/to/somewhere".to_string(),
            "ok".to_string(),
        ]];
        assert_eq!(
            table(&columns, &rows, None),
            "NAME                            STATUS\n/a/very/long/path/to/somewhere  ok\n"
        );
        let cut = table(&columns, &rows, Some(26));
        assert!(cut.lines().all(|l| cols(l) <= 26), "{cut}");
        assert!(cut.contains("/a/very/l…omewhere  ok"), "{cut}");
        let fixed = [
            Column {
                title: "NAME",
                shrink: false,
            },
            Column {
                title: "STATUS",
                shrink: false,
            },
        ];
        assert_eq!(
            table(&fixed, &rows, Some(30)),
            "/a/very/long/path/to/somewhere\n  status: ok\n"
        );
    }

    #[test]
    fn a_long_diff_line_goes_on_with_its_own_sign() {
        let line = format!("+{}", "x".repeat(90));
        let out = diff_line(&line, Some(40));
        assert!(
            out.iter().all(|l| l.starts_with('+') && cols(l) <= 40),
            "{out:?}"
        );
        assert_eq!(
            out.concat().replace("+  ", "").replace('+', ""),
            "x".repeat(90)
        );
        assert_eq!(diff_line("-short", Some(40)), vec!["-short"]);
        assert_eq!(diff_line(&line, None), vec![line.clone()]);
    }

    proptest! {
        /// Wrapped for keeping, a text fits the width and loses nothing: its words
        /// (long ones in pieces) come back in order once the line breaks are taken out.
        #[test]
        fn wrap_keeping_fits_and_keeps_every_character(
            words in prop::collection::vec("[a-zé日:/\"\\\\,-]{1,120}", 0..30),
            width in 40usize..140,
            indent in 0usize..12,
        ) {
            let text = words.join(" ");
            let first = " ".repeat(indent);
            let out = wrap_keeping(&text, &first, indent, Some(width));
            for line in out.lines() {
                prop_assert!(cols(line) <= width, "{line:?}");
            }
            let joined: String = out.split(['\n', ' ']).collect();
            let expected: String = text.split(' ').collect();
            prop_assert_eq!(joined, expected);
            // piped: one line, as given
            prop_assert_eq!(wrap_keeping(&text, &first, indent, None), format!("{first}{text}\n"));
        }

        /// Any screen passed through [`fit`] has no line wider than the terminal and
        /// keeps every non-space character in order.
        #[test]
        fn fit_keeps_every_character_within_the_width(
            lines in prop::collection::vec("( {0,6})[a-z日/,\\- ]{0,200}", 0..12),
            width in 40usize..140,
        ) {
            let text = lines.join("\n");
            let out = fit(&text, Some(width));
            for line in out.lines() {
                prop_assert!(cols(line) <= width, "{line:?}");
            }
            let strip = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
            prop_assert_eq!(strip(&out), strip(&text));
        }
    }
}

#[cfg(test)]
mod command_wrap_tests {
    use super::*;

    #[test]
    fn a_command_breaks_only_between_its_words_with_a_continuation() {
        let text = "Run `mcplogs fix --home '/tmp/it'\\''s a home' --settings '/tmp/it'\\''s a home/.claude/settings.json'`. It sets it.";
        let out = wrap(text, "  1. ", 5, Some(50));
        for line in out.lines() {
            assert!(line.chars().count() <= 50, "{line}");
        }
        // Joined back as a shell reads a continuation, the command is whole.
        let joined = out.replace(" \\\n     ", " ").replace("\n     ", " ");
        assert!(joined.contains(&text[4..text.len() - 11]), "{out}");
        // Never broken inside a quoted argument.
        assert!(!out.contains("'/tmp/it'\\''s \\\n"), "{out}");
        assert!(out.contains(" \\\n"), "{out}");
        // A quoted path under the home keeps its `~` outside the quotes.
        assert_eq!(
            tilde_within("`cd '/home/ana/my dir' && x`", Some("/home/ana")),
            "`cd ~/'my dir' && x`"
        );
        // So does a home holding a quote, in its quoted spelling (issue 51 item 9: one
        // screen showed `~/.claude/settings.json` beside the same path in full).
        #[cfg(unix)]
        assert_eq!(
            tilde_within(
                "`mcplogs fix --settings '/tmp/it'\\''s me/.claude/settings.json'` writes /tmp/it's me/.claude/settings.json",
                Some("/tmp/it's me")
            ),
            "`mcplogs fix --settings ~/'.claude/settings.json'` writes ~/.claude/settings.json"
        );
        // Plain words wrap as before, with no continuation.
        let plain = wrap(&"word ".repeat(30), "", 0, Some(40));
        assert!(!plain.contains('\\'), "{plain}");
    }
}
