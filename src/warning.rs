//! Non-fatal problems: a damaged file, an unreadable folder. Collected, never printed by
//! the library; the binary shows them on stderr and `--json` lists them.

use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub path: Option<PathBuf>,
    pub message: String,
}

impl Warning {
    pub fn new(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Warning {
            path: Some(path.into()),
            message: message.into(),
        }
    }

    pub fn general(message: impl Into<String>) -> Self {
        Warning {
            path: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}: {}", p.display(), self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// More warnings than this with the same message in one folder are shown as one.
const COLLAPSE_OVER: usize = 5;

/// Collapses runs of identical warnings in one folder (100,000 empty files are one
/// problem, not 100,000 lines): `<folder>: 100000 files: empty file, no records`.
pub fn collapse(warnings: Vec<Warning>) -> Vec<Warning> {
    use std::collections::HashMap;
    let key = |w: &Warning| {
        w.path
            .as_ref()
            .and_then(|p| p.parent())
            .map(|d| (d.to_path_buf(), w.message.clone()))
    };
    let mut counts: HashMap<(PathBuf, String), usize> = HashMap::new();
    for w in &warnings {
        if let Some(k) = key(w) {
            *counts.entry(k).or_default() += 1;
        }
    }
    let mut out = Vec::new();
    let mut emitted: std::collections::HashSet<(PathBuf, String)> = Default::default();
    for w in warnings {
        match key(&w) {
            Some(k) if counts[&k] > COLLAPSE_OVER => {
                if emitted.insert(k.clone()) {
                    out.push(Warning::new(&k.0, format!("{} files: {}", counts[&k], k.1)));
                }
            }
            _ => out.push(w),
        }
    }
    out
}

/// What kind of problem a warning is: its message without the parts that name one
/// case (a symlink's target in parentheses, an OS error number).
pub fn kind_of(message: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in message.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    let mut s = out.split_whitespace().collect::<Vec<_>>().join(" ");
    s = s.replace(" ,", ",");
    s
}

/// For the terminal: more than [`COLLAPSE_OVER`] warnings of one kind become one line
/// with a count and the first path (`--verbose` prints them all). Order is kept.
pub fn collapse_kinds(warnings: &[Warning]) -> Vec<Warning> {
    use std::collections::HashMap;
    let mut counts: HashMap<String, usize> = HashMap::new();
    for w in warnings {
        *counts.entry(kind_of(&w.message)).or_default() += 1;
    }
    let mut out = Vec::new();
    let mut emitted = std::collections::HashSet::new();
    for w in warnings {
        let k = kind_of(&w.message);
        let n = counts[&k];
        if n <= COLLAPSE_OVER {
            out.push(w.clone());
        } else if emitted.insert(k.clone()) {
            let first = w
                .path
                .as_ref()
                .map(|p| format!(", the first {}", p.display()))
                .unwrap_or_default();
            out.push(Warning::general(format!(
                "{n} warnings: {k}{first} (--verbose lists them)"
            )));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_of_one_kind_become_one_line_with_a_count() {
        let mut ws: Vec<Warning> = (0..9)
            .map(|i| {
                Warning::new(
                    format!("/r/l{i}"),
                    format!("symlink inside the log tree (to /t{i}), not followed"),
                )
            })
            .collect();
        ws.insert(1, Warning::new("/r/x", "cannot read: denied"));
        let out = collapse_kinds(&ws);
        assert_eq!(
            out.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
            vec![
                "9 warnings: symlink inside the log tree, not followed, the first /r/l0 (--verbose lists them)",
                "/r/x: cannot read: denied",
            ]
        );
        assert_eq!(collapse_kinds(&ws[..3]).len(), 3);
    }

    #[test]
    fn many_identical_warnings_in_a_folder_become_one() {
        let mut ws: Vec<Warning> = (0..7)
            .map(|i| Warning::new(format!("/d/{i}.jsonl"), "empty file, no records"))
            .collect();
        ws.push(Warning::new("/d/x.jsonl", "skipped 1 of 3 lines"));
        ws.push(Warning::new("/e/1.jsonl", "empty file, no records"));
        let out = collapse(ws);
        assert_eq!(
            out.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
            vec![
                "/d: 7 files: empty file, no records",
                "/d/x.jsonl: skipped 1 of 3 lines",
                "/e/1.jsonl: empty file, no records",
            ]
        );
    }
}
