//! The pipeline direction (CONTRIBUTING.md, "Pipeline direction"): every `crate::X` a
//! library module names must be in that module's row of the table. Comments are
//! ignored; test code counts.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The table between the `direction-table` markers: module -> what it may import.
fn allowed() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = fs::read_to_string(root.join("CONTRIBUTING.md")).unwrap();
    let start = doc
        .find("<!-- direction-table:start -->")
        .expect("table start");
    let end = doc.find("<!-- direction-table:end -->").expect("table end");
    let mut table = BTreeMap::new();
    for row in doc[start..end].lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        if cells[0] == "module" || cells[0].starts_with("---") {
            continue;
        }
        // reasons in parentheses may hold commas: drop them before splitting
        let mut names = String::new();
        let mut depth = 0usize;
        for c in cells[1].chars() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ if depth == 0 => names.push(c),
                _ => {}
            }
        }
        let may: BTreeSet<String> = names
            .split(',')
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty())
            .collect();
        assert!(table.insert(cells[0].to_string(), may).is_none(), "{row}");
    }
    table
}

fn library_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            library_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every `crate::a::b::c` path outside comments, as its lower-case segments.
fn crate_paths(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap();
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            let before = rest[..i].chars().next_back();
            rest = &rest[i + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // e.g. `mycrate::`
            }
            let mut segments = Vec::new();
            let mut tail = rest;
            loop {
                let name: String = tail
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                // modules are lower case; a type, function or `{` ends the path
                if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_lowercase()) {
                    break;
                }
                tail = &tail[name.len()..];
                segments.push(name);
                match tail.strip_prefix("::") {
                    Some(t) => tail = t,
                    None => break,
                }
            }
            if !segments.is_empty() {
                found.insert(segments.join("::"));
            }
        }
    }
    found
}

/// The module path of a library file: `src/logs/decode/stream.rs` -> `logs::decode::stream`.
fn module_of(rel: &Path) -> String {
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    parts.join("::")
}

/// The row a module path belongs to: the longest row that is a whole-segment prefix of it.
fn row_of<'a>(rows: &'a BTreeMap<String, BTreeSet<String>>, path: &str) -> Option<&'a str> {
    rows.keys()
        .filter(|r| path == r.as_str() || path.starts_with(&format!("{r}::")))
        .max_by_key(|r| r.len())
        .map(String::as_str)
}

/// The edges between rows that the library's code has, file by file.
fn edges(
    table: &BTreeMap<String, BTreeSet<String>>,
) -> (Vec<(String, String, String)>, Vec<String>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    library_files(&src, &mut files);
    let mut found = Vec::new();
    let mut unplaced = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        if rel.starts_with("bin") || rel == Path::new("lib.rs") {
            continue; // the binary may import anything
        }
        let module = module_of(rel);
        let Some(row) = row_of(table, &module) else {
            unplaced.push(format!(
                "{}: module {module} has no row in the table",
                rel.display()
            ));
            continue;
        };
        for used in crate_paths(&fs::read_to_string(&f).unwrap()) {
            let to = row_of(table, &used).unwrap_or(used.as_str());
            if to != row {
                found.push((row.to_string(), to.to_string(), rel.display().to_string()));
            }
        }
    }
    (found, unplaced)
}

#[test]
fn library_modules_import_only_what_the_table_allows() {
    let table = allowed();
    let (found, mut wrong) = edges(&table);
    let mut seen = BTreeSet::new();
    for (from, to, file) in &found {
        seen.insert(from.clone());
        if !table[from].contains(to) {
            wrong.push(format!("{file}: {from} imports {to}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "against the pipeline direction:\n{}",
        wrong.join("\n")
    );
    let unknown: Vec<String> = table
        .iter()
        .flat_map(|(r, may)| may.iter().map(move |m| (r, m)))
        .filter(|(_, m)| !table.contains_key(*m))
        .map(|(r, m)| format!("{r} may import {m}, which has no row"))
        .collect();
    assert!(unknown.is_empty(), "{unknown:?}");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let stale: Vec<&String> = table
        .keys()
        .filter(|m| {
            let p = src.join(m.replace("::", "/"));
            !p.is_dir() && !p.with_extension("rs").is_file()
        })
        .collect();
    assert!(
        stale.is_empty(),
        "rows for modules that do not exist: {stale:?}"
    );
}

/// The rows and the edges the code has between them form no cycle: every stage can be
/// read knowing only those before it.
#[test]
fn the_modules_import_each_other_in_no_cycle() {
    let table = allowed();
    let (found, _) = edges(&table);
    let mut graph: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (from, to, _) in &found {
        graph.entry(from).or_default().insert(to);
    }
    // depth-first search for a back edge
    fn visit<'a>(
        n: &'a str,
        g: &BTreeMap<&'a str, BTreeSet<&'a str>>,
        state: &mut BTreeMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<&'a str>> {
        match state.get(n) {
            Some(2) => return None,
            Some(1) => {
                let at = path.iter().position(|p| *p == n).unwrap();
                let mut cycle = path[at..].to_vec();
                cycle.push(n);
                return Some(cycle);
            }
            _ => {}
        }
        state.insert(n, 1);
        path.push(n);
        for m in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, g, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(n, 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if let Some(c) = visit(n, &graph, &mut state, &mut Vec::new()) {
            panic!("modules import each other in a cycle: {}", c.join(" -> "));
        }
    }
}

#[test]
fn rows_are_found_by_their_longest_prefix() {
    let mut t = BTreeMap::new();
    for r in ["logs", "logs::decode", "classify::verdict", "classify"] {
        t.insert(r.to_string(), BTreeSet::new());
    }
    assert_eq!(row_of(&t, "logs::decode::stream"), Some("logs::decode"));
    assert_eq!(row_of(&t, "logs::discovery"), Some("logs"));
    assert_eq!(row_of(&t, "logs_extra"), None);
    assert_eq!(row_of(&t, "classify::verdict"), Some("classify::verdict"));
    assert_eq!(row_of(&t, "classify::signal"), Some("classify"));
    assert_eq!(module_of(Path::new("logs/decode/mod.rs")), "logs::decode");
    assert_eq!(module_of(Path::new("scan/cache.rs")), "scan::cache");
}

#[test]
fn the_check_sees_imports_and_skips_comments() {
    let text = "use crate::scan::X;\n// crate::render\n/// [`crate::redact`]\nlet a = crate::text::one_line(s, 1); // crate::du\nmycrate::x";
    let got: Vec<String> = crate_paths(text).into_iter().collect();
    assert_eq!(got, ["scan", "text::one_line"]);
    let deep =
        "use crate::logs::decode::stream::Scanner;\nuse crate::classify::verdict::{Cause, Era};";
    let got: Vec<String> = crate_paths(deep).into_iter().collect();
    assert_eq!(got, ["classify::verdict", "logs::decode::stream"]);
}
