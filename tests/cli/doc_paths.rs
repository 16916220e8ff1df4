//! The docs stay true: every repository path that CONTRIBUTING.md, the README, SECURITY.md,
//! BENCHMARKS.md or a guide under docs/ names exists, every relative Markdown link
//! resolves, and nothing in the repository points outside it.

use std::fs;
use std::path::{Path, PathBuf};

use regex::Regex;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn documents() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = [
        "CONTRIBUTING.md",
        "README.md",
        "SECURITY.md",
        "BENCHMARKS.md",
    ]
    .iter()
    .map(|d| root().join(d))
    .filter(|p| p.exists())
    .collect();
    for e in fs::read_dir(root().join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            docs.push(p);
        }
    }
    docs
}

/// The prose of a Markdown text: fenced and indented blocks (example output, which may
/// name files a command would create) left out.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced && !line.starts_with("    ") {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Paths in a text that name the repository's own files: `src/...`, `tests/...` and the
/// other top-level folders. Placeholders (`<case>`, `*`, `{a,b}`, `…`) are not paths.
fn named_paths(text: &str) -> Vec<String> {
    let re = Regex::new(
        r"(?:^|[\s`(\[])((?:src|tests|docs|scripts|sample-logs|fuzz|\.ci)/[A-Za-z0-9_./<>*{}…-]*)",
    )
    .unwrap();
    re.captures_iter(text)
        .map(|c| c[1].trim_end_matches(['.', ',', ':', ';']).to_string())
        .filter(|p| !p.contains(['<', '*', '{', '…']) && !p.contains("xxx") && !p.ends_with('-'))
        .collect()
}

#[test]
fn every_path_the_docs_name_exists() {
    let mut missing = Vec::new();
    let link = Regex::new(r"\]\(([^)#\s]+)(?:#[^)]*)?\)").unwrap();
    for doc in documents() {
        let text = fs::read_to_string(&doc).unwrap();
        let name = doc.strip_prefix(root()).unwrap().display().to_string();
        for p in named_paths(&prose(&text)) {
            if !root().join(&p).exists() {
                missing.push(format!("{name}: {p}"));
            }
        }
        // relative Markdown links, from the document's own folder
        for c in link.captures_iter(&text) {
            let target = &c[1];
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            if !doc.parent().unwrap().join(target).exists() {
                missing.push(format!("{name}: link {target}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "named but not in the repository:\n{}",
        missing.join("\n")
    );
}

#[test]
fn nothing_in_the_repository_points_outside_it() {
    let mut found = Vec::new();
    for e in walkdir::WalkDir::new(root()).into_iter().filter_entry(|e| {
        let n = e.file_name().to_string_lossy();
        !(n == "target" || n == ".git" || n == "mutants.out" || n == "corpus")
    }) {
        let e = e.unwrap();
        let ext = e.path().extension().and_then(|x| x.to_str()).unwrap_or("");
        if !e.file_type().is_file() || !["rs", "md", "sh", "py", "toml", "yml"].contains(&ext) {
            continue;
        }
        if e.path().ends_with("tests/cli/doc_paths.rs") {
            continue;
        }
        let text = fs::read_to_string(e.path()).unwrap_or_default();
        for needle in [
            "../shared/",
            "shared/reference/",
            "DEVELOPERS.md",
            "DEVELOPERS guide",
        ] {
            if text.contains(needle) {
                found.push(format!(
                    "{}: {needle}",
                    e.path().strip_prefix(root()).unwrap().display()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "points outside the repository:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_path_finder_sees_paths_and_skips_placeholders() {
    let got =
        named_paths("see `src/scan/mod.rs`, tests/fixtures/lifecycle/<case>/ and (docs/json.md).");
    assert_eq!(got, ["src/scan/mod.rs", "docs/json.md"]);
}
