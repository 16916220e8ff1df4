//! The docs stay true by test (issue 43 items 12-13): the README quotes Cargo.toml's
//! Rust version, lists every verdict and state, its sample screens are what the binary
//! prints, the exit codes are documented in one table, and every example in every
//! command's help runs as typed.
//!
//! After an intended change of a screen shown in the README or docs/usage.md:
//! `README_UPDATE=1 cargo test --test cli docs_true`, then read `git diff README.md docs`.

use std::fs;
use std::path::Path;

use crate::common::*;
use mcplogs::classify::verdict::Verdict;
use mcplogs::claude_code::config::ServerState;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn readme() -> String {
    fs::read_to_string(root().join("README.md")).unwrap()
}

/// The Markdown section under `## title`, up to the next `## `.
fn section<'a>(text: &'a str, title: &str) -> &'a str {
    let start = text
        .find(&format!("\n## {title}\n"))
        .unwrap_or_else(|| panic!("no section {title:?}"));
    let rest = &text[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 4);
    &rest[..end]
}

#[test]
fn readme_quotes_the_rust_version_of_cargo_toml() {
    let toml = fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let version = toml
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .expect("Cargo.toml has a rust-version")
        .trim_matches('"');
    let readme = readme();
    assert!(
        readme.contains(&format!("Rust {version} or later")),
        "README must say `Rust {version} or later`"
    );
    // and no other Rust version
    let re = regex::Regex::new(r"Rust (1\.[0-9]+)").unwrap();
    for c in re.captures_iter(&readme) {
        assert_eq!(&c[1], version, "README names Rust {}", &c[1]);
    }
}

#[test]
fn readme_lists_every_verdict_and_every_state() {
    let readme = readme();
    let verdicts = section(&readme, "Verdicts");
    let rows: Vec<&str> = verdicts.lines().filter(|l| l.starts_with("| `")).collect();
    for v in Verdict::ALL {
        let cell = format!("| `{}` |", v.as_str());
        assert!(
            rows.iter().any(|r| r.starts_with(&cell)),
            "README's verdict table lacks {cell}"
        );
    }
    // The states a configured server without a log shows instead, with their JSON names.
    for state in [
        ServerState::Starts,
        ServerState::PendingApproval,
        ServerState::Disabled,
        ServerState::Denied,
        ServerState::Skipped(String::new()),
    ] {
        let json = match state {
            ServerState::Starts => "not-started",
            ref s => s.as_str(),
        };
        assert!(
            rows.iter().any(|r| r.contains(&format!("| `{json}` |"))),
            "README's state table lacks `{json}`"
        );
    }
    assert!(
        rows.iter().any(|r| r.starts_with("| `not started` |")),
        "README's state table lacks `not started`"
    );
}

/// Every fenced `text` block of the README and docs/usage.md that starts with
/// `$ mcplogs …` is that command's real output at 80 columns (TZ=UTC, no colour, an
/// empty home, run from a copy of the repository's `sample-logs` as their relative paths
/// assume).
#[test]
fn sample_screens_in_the_docs_are_the_real_output() {
    // The screens run on a copy of the samples whose projects are moved where nothing
    // is, and are shown with the samples' paths: what this machine has where the
    // samples ran (their generator's projects) changes no screen.
    let gone = samples_gone();
    let gone = gone.path().to_str().unwrap();
    let copy = tempfile::tempdir().unwrap();
    copy_samples_moved(&samples(), &copy.path().join("sample-logs"), gone);
    let mut checked = 0;
    let mut stale = Vec::new();
    for doc in ["README.md", "docs/usage.md"] {
        let path = root().join(doc);
        let text = fs::read_to_string(&path).unwrap();
        let mut out = String::new();
        let mut rest = text.as_str();
        while let Some(i) = rest.find("```text\n$ mcplogs ") {
            // a home of its own for each screen: what an earlier one left in mcplogs'
            // cache (index sizes vary with file times) is not part of the next one
            let tmp = tempfile::tempdir().unwrap();
            let (before, block) = rest.split_at(i + "```text\n".len());
            out.push_str(before);
            let end = block.find("\n```").expect("a closed block");
            let (shown, after) = block.split_at(end + 1);
            let command = shown.lines().next().unwrap();
            let args: Vec<&str> = command
                .trim_start_matches("$ mcplogs ")
                .split_whitespace()
                .collect();
            let mut c = mcplogs(tmp.path());
            c.current_dir(copy.path())
                .env("COLUMNS", "80")
                .env("TZ", "UTC")
                .env("NO_COLOR", "1")
                .args(&args);
            let r = run(&mut c);
            // Log folders are shown resolved (absolute): the checkout's own path is
            // this machine's, so it is left out, and where it was, line breaks fall
            // elsewhere on another machine, inside that path too when it is long:
            // such a screen is compared with all white space removed.
            let here = format!("{}/", copy.path().display());
            let stdout = moved_back(&r.stdout, gone);
            // (a command the machine's path makes too long for a line is continued on
            // the next with a backslash, which the docs' shorter path does not need)
            let squash = |s: &str| s.replace("\\\n", "").split_whitespace().collect::<String>();
            let real = format!("{command}\n{}", stdout.replace(&here, ""));
            let same = if squash(&stdout).contains(&squash(&here)) {
                squash(&real).replace(&squash(&here), "") == squash(shown)
            } else {
                real == shown
            };
            if !same {
                stale.push(format!(
                    "--- {doc}\n{shown}--- real (exit {}, stderr {:?})\n{real}",
                    r.code, r.stderr
                ));
            }
            // an unchanged screen is kept as written (this machine's line breaks
            // around its own path are not the docs')
            out.push_str(if same { shown } else { &real });
            rest = after;
            checked += 1;
        }
        out.push_str(rest);
        if std::env::var_os("README_UPDATE").is_some() {
            fs::write(&path, out).unwrap();
        }
    }
    assert!(checked >= 5, "the docs' sample screens were not found");
    if std::env::var_os("README_UPDATE").is_some() {
        return;
    }
    assert!(
        stale.is_empty(),
        "sample output in the docs differs from the binary's (README_UPDATE=1 rewrites it):\n{}",
        stale.join("\n")
    );
}

/// The exit codes: one table (docs/usage.md, "Exit codes"), every code in it, and the
/// README and `--help` naming the same codes.
#[test]
fn exit_codes_are_documented_in_one_table_and_in_the_help() {
    let usage = fs::read_to_string(root().join("docs/usage.md")).unwrap();
    let usage = usage.replace("\n### Exit codes\n", "\n## Exit codes\n");
    let table = section(&usage, "Exit codes");
    let tmp = tempfile::tempdir().unwrap();
    let help = run(mcplogs(tmp.path()).arg("--help")).stdout;
    let readme = readme();
    let readme_codes = section(&readme, "Exit codes");
    for code in ["0", "1", "2", "130"] {
        assert!(
            table.lines().any(|l| l.starts_with(&format!("| {code} |"))),
            "docs/usage.md's table lacks {code}"
        );
        let said = regex::Regex::new(&format!(r"(^|[\s:,(]){code}[\s,]")).unwrap();
        assert!(
            said.is_match(&help),
            "--help does not name exit code {code}"
        );
        assert!(
            said.is_match(readme_codes),
            "the README does not name exit code {code}"
        );
    }
    assert!(readme_codes.contains("docs/usage.md"));
}

/// The visible subcommands of `mcplogs [SUB…] --help` (its `Commands:` list).
fn subcommands(dir: &Path, path: &[&str]) -> Vec<String> {
    let help = run(mcplogs(dir).args(path).arg("--help")).stdout;
    let Some((_, list)) = help.split_once("Commands:\n") else {
        return Vec::new();
    };
    list.lines()
        .take_while(|l| l.starts_with("  "))
        // a wrapped description goes on further indented
        .filter(|l| !l[2..].starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect()
}

/// Every command and subcommand has examples in its help, and every example parses as
/// typed: run in a throw-away home (stdin closed, so nothing that asks writes), none is
/// a usage error.
#[test]
fn every_help_example_runs_as_typed() {
    let sb = Sandbox::new();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_mcplogs"))
        .parent()
        .unwrap()
        .to_path_buf();
    let mut commands: Vec<Vec<String>> = Vec::new();
    for sub in subcommands(&sb.home, &[]) {
        let nested = subcommands(&sb.home, &[&sub]);
        commands.push(vec![sub.clone()]);
        for n in nested {
            commands.push(vec![sub.clone(), n]);
        }
    }
    assert!(commands.len() >= 14, "{commands:?}");
    let mut ran = 0;
    for cmd in &commands {
        // probe's examples start servers and reach URLs: tests/cli/probe.rs runs each
        // against local stubs (`every_probe_example_in_the_help_and_the_docs_runs_as_typed`)
        if cmd[0] == "probe" || cmd[0] == "export" {
            continue;
        }
        let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        let r = run(mcplogs(&sb.home).args(&args).arg("--help"));
        let examples = r
            .stdout
            .split_once("EXAMPLES:")
            .unwrap_or_else(|| panic!("`mcplogs {} --help` has no examples", cmd.join(" ")))
            .1;
        let lines: Vec<&str> = examples
            .lines()
            .skip(1)
            .map(str::trim)
            .take_while(|l| !l.is_empty())
            .filter(|l| !l.starts_with('#'))
            .collect();
        assert!(!lines.is_empty(), "{cmd:?}: {}", r.stdout);
        for line in lines {
            let typed = line.split("  #").next().unwrap().trim();
            if !typed.contains("mcplogs") {
                continue;
            }
            let mut c = std::process::Command::new("sh");
            c.args(["-c", typed])
                .env_clear()
                .env(
                    "PATH",
                    format!(
                        "{}:{}",
                        bin_dir.display(),
                        std::env::var("PATH").unwrap_or_default()
                    ),
                )
                .env("HOME", &sb.home)
                .env("MCPLOGS_CACHE_DIR", sb.dir.path().join("cache"))
                .current_dir(&sb.project)
                .stdin(std::process::Stdio::null());
            clock_env(&mut c);
            let o = output_within(&mut c, std::time::Duration::from_secs(60));
            let e = String::from_utf8_lossy(&o.stderr);
            for clap_error in [
                "unexpected argument",
                "unrecognized subcommand",
                "invalid value",
                "required arguments were not provided",
                "Usage: mcplogs",
            ] {
                assert!(
                    !e.contains(clap_error),
                    "`{typed}` (from `mcplogs {} --help`) is not accepted as typed: {e}",
                    cmd.join(" ")
                );
            }
            ran += 1;
        }
    }
    assert!(ran >= 30, "only {ran} examples ran");
}

/// What an installed user is pointed to ships inside the binary (issue 43 item 12): no
/// help text and no guide printed by `mcplogs docs` cites a file of the repository's
/// docs/ (a guide or a schema), and every `mcplogs docs …` they cite instead works.
#[test]
fn help_and_guides_cite_only_what_ships_in_the_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let repo_doc = regex::Regex::new(r"docs/[A-Za-z0-9_./*-]+|\]\([^)#:]+\.md").unwrap();
    let cited = regex::Regex::new(r"mcplogs docs (schema [a-z-]+|[a-z-]+)").unwrap();
    let mut citations: Vec<(String, String)> = Vec::new();
    // every help, every nesting level
    let mut helps = vec![vec![]];
    for sub in subcommands(tmp.path(), &[]) {
        for n in subcommands(tmp.path(), &[&sub]) {
            helps.push(vec![sub.clone(), n]);
        }
        helps.push(vec![sub]);
    }
    for path in &helps {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let r = run(mcplogs(tmp.path()).args(&args).arg("--help"));
        assert_eq!(r.code, 0, "{path:?}");
        let what = format!("`mcplogs {} --help`", path.join(" "));
        if let Some(m) = repo_doc.find(&r.stdout) {
            panic!(
                "{what} cites {:?}, which an installed user does not have",
                m.as_str()
            );
        }
        for c in cited.captures_iter(&r.stdout) {
            citations.push((what.clone(), c[1].to_string()));
        }
    }
    // every guide, as `mcplogs docs TOPIC` prints it
    let list = run(mcplogs(tmp.path()).arg("docs"));
    let topics: Vec<String> = list
        .stdout
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    assert!(topics.len() >= 10, "{}", list.stdout);
    for topic in topics.iter().filter(|t| *t != "schema") {
        let r = run(mcplogs(tmp.path()).args(["docs", topic]));
        assert_eq!(r.code, 0, "{topic}");
        let mut fenced = false;
        for line in r.stdout.lines() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                continue;
            }
            if fenced {
                continue;
            }
            if let Some(m) = repo_doc.find(line) {
                let rest = line[m.end()..].trim_start_matches('`');
                assert!(
                    rest.starts_with(" (in mcplogs' source repository)"),
                    "`mcplogs docs {topic}` cites {:?} as if it were installed: {line}",
                    m.as_str()
                );
            }
            for c in cited.captures_iter(line) {
                citations.push((format!("`mcplogs docs {topic}`"), c[1].to_string()));
            }
        }
    }
    assert!(citations.len() >= 20, "{citations:?}");
    for (source, cite) in citations {
        if cite == "TOPIC" || cite.starts_with("schema NAME") {
            continue;
        }
        let args: Vec<&str> = std::iter::once("docs")
            .chain(cite.split_whitespace())
            .collect();
        let r = run(mcplogs(tmp.path()).args(&args));
        assert_eq!(
            r.code, 0,
            "{source} cites `mcplogs docs {cite}`: {}",
            r.stderr
        );
        assert!(
            !r.stdout.is_empty(),
            "{source}: `mcplogs docs {cite}` is empty"
        );
    }
}

/// Every schema of docs/schema/ ships in the binary, byte for byte.
#[test]
fn every_schema_ships_in_the_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let mut n = 0;
    for e in fs::read_dir(root().join("docs/schema")).unwrap() {
        let p = e.unwrap().path();
        let file = p.file_name().unwrap().to_str().unwrap().to_string();
        let name = file.trim_end_matches(".schema.json");
        let r = run(mcplogs(tmp.path()).args(["docs", "schema", name]));
        assert_eq!(
            r.code, 0,
            "docs/schema/{file} is not shipped: add it to SCHEMAS in src/bin/mcplogs/cmd/docs.rs"
        );
        assert_eq!(r.stdout, fs::read_to_string(&p).unwrap(), "{file}");
        n += 1;
    }
    assert!(n >= 9);
    let r = run(mcplogs(tmp.path()).args(["docs", "schema", "nope"]));
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("no schema named \"nope\""),
        "{}",
        r.stderr
    );
}

/// Whether the dotted field path (`layers[].inEffect`, `effective.path`) names a field of
/// the JSON schema `node`, following `$ref`s, `anyOf`/`oneOf` and array `items`.
fn schema_has_path(root_schema: &serde_json::Value, node: &serde_json::Value, path: &str) -> bool {
    let node = match node.get("$ref").and_then(|r| r.as_str()) {
        Some(r) => {
            let name = r.trim_start_matches("#/$defs/");
            &root_schema["$defs"][name]
        }
        None => node,
    };
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(alts) = node.get(key).and_then(|a| a.as_array())
            && alts.iter().any(|a| schema_has_path(root_schema, a, path))
        {
            return true;
        }
    }
    if path.is_empty() {
        return true;
    }
    if let Some(rest) = path.strip_prefix("[]") {
        let rest = rest.strip_prefix('.').unwrap_or(rest);
        return node
            .get("items")
            .is_some_and(|i| schema_has_path(root_schema, i, rest));
    }
    let end = path.find(['.', '[']).unwrap_or(path.len());
    let (field, rest) = path.split_at(end);
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    node.get("properties")
        .and_then(|p| p.get(field))
        .is_some_and(|f| schema_has_path(root_schema, f, rest))
}

/// The backticked field paths in the first column of every table of `text`.
fn documented_fields(text: &str) -> Vec<String> {
    let tick = regex::Regex::new(
        r"`([A-Za-z_][A-Za-z0-9_]*(?:\[\])?(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\[\])?)*)`",
    )
    .unwrap();
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(row) = line.strip_prefix("| ") else {
            continue;
        };
        let first = row.split(" | ").next().unwrap_or("");
        out.extend(tick.captures_iter(first).map(|c| c[1].to_string()));
    }
    out
}

/// The field tables of `settings --json` in docs/settings.md and docs/json.md name only
/// fields the document has (issue 51 item 9: docs/settings.md documented
/// `in_effect` where `settings --json` writes `inEffect`).
#[test]
fn every_documented_json_field_is_in_its_schema() {
    let json_md = fs::read_to_string(root().join("docs/json.md")).unwrap();
    let settings_md = fs::read_to_string(root().join("docs/settings.md")).unwrap();
    let settings_json = settings_md
        .split("### `mcplogs settings --json`")
        .nth(1)
        .expect("docs/settings.md has its `mcplogs settings --json` section");
    // Other sections of docs/json.md describe nested objects by their own field names
    // (explain's `logs[]` rows say `name`), so the settings document, whose tables name
    // every field from the top, is the one checked whole.
    let checked = [
        ("docs/settings.md", "settings", settings_json),
        ("docs/json.md", "settings", section(&json_md, "settings")),
    ];
    let mut missing = Vec::new();
    let mut n = 0;
    for (doc, name, text) in &checked {
        let schema: serde_json::Value = serde_json::from_str(
            &fs::read_to_string(root().join(format!("docs/schema/{name}.schema.json"))).unwrap(),
        )
        .unwrap();
        for field in documented_fields(text) {
            n += 1;
            if !schema_has_path(&schema, &schema, &field) {
                missing.push(format!("{doc} ({name}): `{field}`"));
            }
        }
    }
    assert!(n > 30, "only {n} documented fields found");
    assert!(
        missing.is_empty(),
        "documented fields the schema does not have:\n{}",
        missing.join("\n")
    );
}

/// Every subcommand `cli.rs` defines (the `Command` enum's variants, kebab-case).
fn defined_subcommands() -> Vec<String> {
    let cli = fs::read_to_string(root().join("src/bin/mcplogs/cli.rs")).unwrap();
    let body = cli
        .split("pub enum Command {")
        .nth(1)
        .and_then(|b| b.split("\n}\n").next())
        .expect("cli.rs has `pub enum Command`");
    let variant = regex::Regex::new(r"(?m)^    ([A-Z][A-Za-z]*)\(").unwrap();
    variant
        .captures_iter(body)
        .map(|c| {
            let mut out = String::new();
            for (i, ch) in c[1].chars().enumerate() {
                if ch.is_ascii_uppercase() && i > 0 {
                    out.push('-');
                }
                out.push(ch.to_ascii_lowercase());
            }
            out
        })
        .collect()
}

/// Issue 51 item 9: every subcommand is listed in `mcplogs --help`, in the README's
/// command table, in docs/usage.md's synopsis, and has its man page (`model` was in none).
#[test]
fn every_subcommand_is_in_help_readme_usage_and_man() {
    let defined = defined_subcommands();
    assert!(defined.len() >= 15, "{defined:?}");
    let tmp = tempfile::tempdir().unwrap();
    let listed = subcommands(tmp.path(), &[]);
    let readme = readme();
    let table = section(&readme, "Commands");
    let usage = fs::read_to_string(root().join("docs/usage.md")).unwrap();
    let synopsis = section(&usage, "Usage")
        .split("```")
        .nth(1)
        .expect("docs/usage.md's Usage opens with the synopsis block");
    let dir = tmp.path().join("man");
    let r = run(mcplogs(tmp.path())
        .args(["man", "--install", "--dir"])
        .arg(&dir));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let main_page = fs::read_to_string(dir.join("man1/mcplogs.1"))
        .or_else(|_| fs::read_to_string(dir.join("mcplogs.1")))
        .unwrap();
    let mut missing = Vec::new();
    for sub in &defined {
        if !listed.contains(sub) {
            missing.push(format!("{sub}: not in `mcplogs --help`"));
        }
        if !table.contains(&format!("`mcplogs {sub}")) {
            missing.push(format!("{sub}: not in README.md's command table"));
        }
        if !synopsis.contains(&format!("mcplogs {sub}")) {
            missing.push(format!("{sub}: not in docs/usage.md's synopsis"));
        }
        let page = format!("mcplogs-{sub}.1");
        if !dir.join("man1").join(&page).exists() && !dir.join(&page).exists() {
            missing.push(format!("{sub}: no man page {page}"));
        }
        if !main_page.contains(&format!("mcplogs\\-{sub}(1)")) {
            missing.push(format!("{sub}: not in mcplogs(1)'s SEE ALSO"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
