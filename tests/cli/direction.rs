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
        let may: BTreeSet<String> = cells[1]
            .split(',')
            .map(|c| c.split('(').next().unwrap().trim().to_string())
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

/// Every `crate::name` outside comments.
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
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

#[test]
fn library_modules_import_only_what_the_table_allows() {
    let table = allowed();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    library_files(&src, &mut files);
    let binary = [
        "main.rs",
        "cli.rs",
        "error.rs",
        "output.rs",
        "exit_codes.rs",
        "progress.rs",
        "complete.rs",
    ];
    let mut wrong = Vec::new();
    let mut seen = BTreeSet::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        if first == "cmd" || binary.contains(&first.as_ref()) || first == "lib.rs" {
            continue;
        }
        let module = first.trim_end_matches(".rs").to_string();
        let Some(may) = table.get(&module) else {
            wrong.push(format!(
                "{}: module {module} has no row in the table",
                rel.display()
            ));
            continue;
        };
        seen.insert(module.clone());
        for used in crate_paths(&fs::read_to_string(&f).unwrap()) {
            if used != module && !may.contains(&used) {
                wrong.push(format!("{}: {module} imports {used}", rel.display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "against the pipeline direction:\n{}",
        wrong.join("\n")
    );
    let stale: Vec<&String> = table.keys().filter(|m| !seen.contains(*m)).collect();
    assert!(
        stale.is_empty(),
        "rows for modules that do not exist: {stale:?}"
    );
}

#[test]
fn the_check_sees_imports_and_skips_comments() {
    let text = "use crate::scan::X;\n// crate::render\n/// [`crate::redact`]\nlet a = crate::text::one_line(s, 1); // crate::du\nmycrate::x";
    let got: Vec<String> = crate_paths(text).into_iter().collect();
    assert_eq!(got, ["scan", "text"]);
}
