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

/// The kind of a warning: its message without the parts that vary (numbers, text in
/// parentheses, what follows a colon), so that 748 symlinks are one line, not 748.
pub fn kind(message: &str) -> String {
    let head = message.split(": ").next().unwrap_or(message);
    let mut out = String::new();
    let mut depth = 0usize;
    for c in head.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            c if c.is_ascii_digit() => {
                if !out.ends_with('N') {
                    out.push('N');
                }
            }
            c => out.push(c),
        }
    }
    let mut kind = out.split_whitespace().collect::<Vec<_>>().join(" ");
    kind = kind.replace(" ,", ",");
    kind
}

/// Warnings of one kind: how many, and the first one (shown as an example).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarningGroup {
    pub kind: String,
    pub count: usize,
    pub first: Warning,
}

/// Groups warnings by [`kind`], in order of first appearance. A warning [`collapse`]d
/// from `n files` counts `n` times.
pub fn group(warnings: &[Warning]) -> Vec<WarningGroup> {
    let mut groups: Vec<WarningGroup> = Vec::new();
    for w in warnings {
        let (n, message) = match w.message.split_once(" files: ") {
            Some((n, rest)) if n.parse::<usize>().is_ok() => {
                (n.parse::<usize>().unwrap_or(1), rest)
            }
            _ => (1, w.message.as_str()),
        };
        let k = kind(message);
        match groups.iter_mut().find(|g| g.kind == k) {
            Some(g) => g.count += n,
            None => groups.push(WarningGroup {
                kind: k,
                count: n,
                first: w.clone(),
            }),
        }
    }
    groups
}

/// The lines to show on stderr: every warning when `all`, else one per kind (the
/// warning itself when it is alone, else its kind, count and first path).
pub fn summary_lines(warnings: &[Warning], all: bool) -> Vec<String> {
    if all {
        return warnings.iter().map(|w| w.to_string()).collect();
    }
    group(warnings)
        .into_iter()
        .map(|g| {
            if g.count == 1 {
                g.first.to_string()
            } else {
                format!(
                    "{} warnings: {} (first: {}; --verbose lists them all)",
                    g.count,
                    g.kind.replace('N', "n"),
                    g.first
                        .path
                        .as_ref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_else(|| g.first.message.clone()),
                )
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_of_one_kind_are_one_line() {
        let mut ws: Vec<Warning> = (0..748)
            .map(|i| {
                Warning::new(
                    format!("/etc/x{i}"),
                    format!("symlink inside the log tree (to /y{i}), not followed"),
                )
            })
            .collect();
        ws.push(Warning::new("/d/a.jsonl", "skipped 3 of 9 lines: not JSON"));
        ws.push(Warning::new(
            "/etc/alt",
            "8 files: symlink inside the log tree (to /usr/bin/vi), not followed",
        ));
        let lines = summary_lines(&ws, false);
        assert_eq!(
            lines,
            [
                "756 warnings: symlink inside the log tree, not followed (first: /etc/x0; --verbose lists them all)",
                "/d/a.jsonl: skipped 3 of 9 lines: not JSON",
            ]
        );
        assert_eq!(summary_lines(&ws, true).len(), 750);
        assert_eq!(
            kind("cannot read: Permission denied (os error 13)"),
            "cannot read"
        );
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
