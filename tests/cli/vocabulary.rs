//! One vocabulary (issue 43 items 7-11): times with their zone, messages that never mix
//! two clocks, one display form, singular and plural.

use std::path::Path;

use crate::common::*;

fn all_files(dir: &Path) -> Vec<std::path::PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect()
}

/// `scan --since 10m` on copied logs (files written just now, records days old) says
/// the records are older, not that "the newest log was written 10 s ago"; on logs not
/// written since, it says so; both give the time with its zone, never a bare `Z` time.
#[test]
fn since_finding_nothing_names_one_clock_and_the_zone() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("copied");
    copy_tree(&samples().join("linux-home"), &home);
    for f in all_files(&home) {
        set_age(&f, 5);
    }
    let scan = || {
        run(mcplogs(tmp.path())
            .env("TZ", "UTC")
            .args(["scan", "--since", "10m", "--home"])
            .arg(&home))
    };
    let r = scan();
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(
        r.stderr.contains("every record in them is older"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("last written"), "{}", r.stderr);
    let zoned = regex::Regex::new(r"since \d{4}-\d\d-\d\d \d\d:\d\d UTC:").unwrap();
    assert!(zoned.is_match(&r.stderr), "{}", r.stderr);
    assert!(
        !r.stderr.contains("Z;") && !r.stderr.contains("Z ("),
        "{}",
        r.stderr
    );

    // Files last written three days ago: no file since, and when the newest was.
    for f in all_files(&home) {
        set_age(&f, 3 * 86_400);
    }
    let r = scan();
    assert!(
        r.stderr
            .contains("no log file was written since; the newest was last written"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("3 days ago"), "{}", r.stderr);
    let two = regex::Regex::new(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC").unwrap();
    assert_eq!(two.find_iter(&r.stderr).count(), 2, "{}", r.stderr);
}

/// `args` run in a pseudo-terminal of `cols` columns (script(1)), colour codes removed.
#[cfg(unix)]
fn in_pty(sb: &Sandbox, args: &[&str], cols: usize) -> String {
    let bin = env!("CARGO_BIN_EXE_mcplogs");
    let line: Vec<String> = std::iter::once(bin)
        .chain(args.iter().copied())
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let mut c = sb.command(Path::new("script"), &[]);
    c.env_remove("COLUMNS").env("TZ", "UTC").args([
        "-qec",
        &format!("stty cols {cols} rows 50; {}", line.join(" ")),
        "/dev/null",
    ]);
    let o = c.output().expect("script(1) from util-linux runs");
    let text = String::from_utf8_lossy(&o.stdout).replace('\r', "");
    regex::Regex::new("\x1b\\[[0-9;?]*[A-Za-z]")
        .unwrap()
        .replace_all(&text, "")
        .into_owned()
}

/// `du` over every sample root in a terminal of 80 and 120 columns, and piped: no
/// project path or server name is cut (a long one goes on its own lines, whole), times
/// are local with their zone as in `scan`, a project whose logs lie under two roots
/// says which root each row is, and an old-format folder (no `cwd` in its records) is
/// shown by the path another root gives it, not by its encoded name (issue 43 item 7).
#[cfg(unix)]
#[test]
fn du_never_cuts_paths_shows_zones_and_tells_identical_rows_apart() {
    let sb = Sandbox::new();
    let roots = samples();
    let roots = roots.to_str().unwrap();
    let (_, doc) = run_json(mcplogs(&sb.home).args(["du", "--json"]).arg(roots));
    let projects = doc["projects"].as_array().unwrap();
    assert!(projects.len() >= 5, "{doc:#}");
    let piped = run(mcplogs(&sb.home).env("TZ", "UTC").args(["du", roots])).stdout;
    let zoned = regex::Regex::new(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC").unwrap();
    for (cols, text) in [
        (80, in_pty(&sb, &["du", roots], 80)),
        (120, in_pty(&sb, &["du", roots], 120)),
        (usize::MAX, piped),
    ] {
        assert!(text.contains("PROJECT / SERVER"), "{cols}: {text}");
        for l in text.lines() {
            assert!(
                unicode_width::UnicodeWidthStr::width(l) <= cols,
                "{cols}: {l}\n{text}"
            );
        }
        assert!(!text.contains('…'), "{cols}: something was cut\n{text}");
        // the table's text with wrapped lines joined again (no path here has a space)
        let joined: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        for p in projects {
            let path = p["project"].as_str().unwrap();
            assert!(joined.contains(path), "{cols}: {path} is not whole\n{text}");
            for s in p["servers"].as_array().unwrap() {
                let name = s["name"].as_str().unwrap();
                assert!(text.contains(name), "{cols}: {name}\n{text}");
            }
        }
        // every session time with its zone, two per row
        let rows = text
            .lines()
            .filter(|l| l.contains("KiB") && !l.starts_with("Total"))
            .count();
        assert_eq!(zoned.find_iter(&text).count(), 2 * rows, "{cols}\n{text}");
        // no project row is an encoded folder name
        assert!(
            !text.lines().any(|l| l.starts_with("-tmp-")),
            "{cols}: a raw folder name\n{text}"
        );
        // identical project rows say which cache root each is under, each another
        let mut twice = 0;
        for p in projects {
            let path = p["project"].as_str().unwrap();
            let same = projects
                .iter()
                .filter(|q| q["project"] == p["project"])
                .count();
            if same < 2 {
                continue;
            }
            twice += 1;
            let root = p["path"].as_str().unwrap();
            let root = Path::new(root).parent().unwrap().to_str().unwrap();
            let shown = format!("{path}(in{root})");
            assert_eq!(joined.matches(&shown).count(), 1, "{cols}: {shown}\n{text}");
        }
        assert!(
            twice >= 4,
            "{cols}: the samples have two projects under two roots"
        );
    }
    // in JSON the project of the old-format logs is the path, too
    assert!(
        projects
            .iter()
            .all(|p| !p["project"].as_str().unwrap().starts_with("-tmp-")),
        "{doc:#}"
    );
}

/// Undo leaves nothing mcplogs made (issue 43 item 11): after `fix --undo` and `setup
/// … --undo` only the user's own settings file is left, no backup, no record; a file
/// mcplogs created goes again, also when it was only reformatted since (its content,
/// mcplogs' key taken out, is an empty object); a backup someone changed is kept.
#[cfg(unix)]
#[test]
fn undo_leaves_nothing_mcplogs_created() {
    // what is left in the folder; none when undo removed the folder itself (an install
    // that created it, undone last, takes it when nothing else is in it)
    let left_in = |dir: &std::path::Path| {
        if dir.exists() {
            names_in(dir)
        } else {
            Vec::new()
        }
    };
    let managed = |sb: &Sandbox| sb.managed.to_str().unwrap().to_string();
    let setup = |sb: &Sandbox, what: &str, undo: bool| {
        let m = managed(sb);
        let mut args = vec!["setup"];
        args.extend(what.split(' '));
        args.extend(["--yes", "--managed-dir", &m]);
        let bin = env!("CARGO_BIN_EXE_mcplogs");
        if undo {
            args.push("--undo");
        } else {
            // this build lives in a cargo target folder, which setup installs only when named
            args.extend(["--binary", bin]);
        }
        let o = sb.run(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    };
    // An existing file: fix, setup statusline and setup hook, each undone.
    let sb = Sandbox::new();
    let user = "{\n  \"model\": \"opus\"\n}\n";
    std::fs::create_dir_all(sb.claude_dir()).unwrap();
    std::fs::write(sb.user_settings(), user).unwrap();
    let o = sb.run(&["fix", "--force", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    setup(&sb, "statusline", false);
    setup(&sb, "hook", false);
    assert!(left_in(&sb.claude_dir()).len() > 3);
    let o = sb.run(&["fix", "--undo", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    setup(&sb, "hook", true);
    setup(&sb, "statusline", true);
    assert_eq!(left_in(&sb.claude_dir()), ["settings.json"]);
    assert_eq!(std::fs::read_to_string(sb.user_settings()).unwrap(), user);

    // No file (and no folder) before: setup creates them; reformatted since, undo
    // still removes the file, and the folder it created.
    let sb = Sandbox::new();
    setup(&sb, "statusline", false);
    let text = std::fs::read_to_string(sb.user_settings()).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    std::fs::write(sb.user_settings(), serde_json::to_string(&v).unwrap()).unwrap();
    setup(&sb, "statusline", true);
    // the folder the install made goes too
    assert!(!sb.claude_dir().exists(), "{:?}", left_in(&sb.claude_dir()));

    // No file before, two installs: the status line creates the file, the hook joins
    // it. Undone in either order, the file mcplogs created goes with the last of them;
    // a key the user added in between keeps it.
    for first in ["statusline", "hook"] {
        let second = if first == "statusline" {
            "hook"
        } else {
            "statusline"
        };
        let sb = Sandbox::new();
        setup(&sb, "statusline", false);
        setup(&sb, "hook", false);
        setup(&sb, first, true);
        assert!(
            sb.user_settings().exists(),
            "undoing {first} took the other install"
        );
        setup(&sb, second, true);
        assert!(
            !sb.claude_dir().exists(),
            "undo {first} then {second}: {:?}",
            left_in(&sb.claude_dir())
        );
    }
    // Three installs, undone in the order they were made: the hook's and the export
    // hook's `hooks` were mcplogs' own, so nothing of them is kept either.
    let sb = Sandbox::new();
    for what in ["statusline", "hook", "hook --export"] {
        setup(&sb, what, false);
    }
    for what in ["statusline", "hook", "hook --export"] {
        setup(&sb, what, true);
    }
    assert!(!sb.claude_dir().exists(), "{:?}", left_in(&sb.claude_dir()));
    let sb = Sandbox::new();
    setup(&sb, "statusline", false);
    setup(&sb, "hook", false);
    let text = std::fs::read_to_string(sb.user_settings()).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["model"] = "opus".into();
    std::fs::write(
        sb.user_settings(),
        serde_json::to_string_pretty(&v).unwrap(),
    )
    .unwrap();
    setup(&sb, "statusline", true);
    setup(&sb, "hook", true);
    let left: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sb.user_settings()).unwrap()).unwrap();
    assert_eq!(left, serde_json::json!({"model": "opus"}));
    assert_eq!(left_in(&sb.claude_dir()), ["settings.json"]);

    // A backup changed since by someone else is theirs: kept.
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.claude_dir()).unwrap();
    std::fs::write(sb.user_settings(), user).unwrap();
    setup(&sb, "hook", false);
    let backup = sb.claude_dir().join("settings.json.mcplogs-hook-backup");
    assert!(backup.exists());
    let o = sb.run(&["fix", "--force", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let fix_backup = sb.claude_dir().join("settings.json.mcplogs-backup");
    std::fs::write(&fix_backup, "{\"mine\": true}\n").unwrap();
    // the fix's backup no longer matches its record: fix --undo takes out its key only
    let o = sb.run(&["fix", "--undo", "--yes", "--force"]);
    let _ = o;
    assert!(fix_backup.exists(), "a changed backup was removed");
}

/// A filter that matches none of the logs found is a usage error in `du` as in `scan`
/// (exit 2, the line says what exists); with no logs at all it is not.
#[test]
fn a_filter_matching_nothing_exits_2_in_du_as_in_scan() {
    let tmp = tempfile::tempdir().unwrap();
    let home = samples().join("linux-home");
    for (cmd, flag) in [
        ("du", "--server"),
        ("du", "--match-project"),
        ("scan", "--server"),
        ("scan", "--match-project"),
    ] {
        let r = run(mcplogs(tmp.path())
            .args([cmd, flag, "no-such-thing", "--home"])
            .arg(&home));
        assert_eq!(r.code, 2, "{cmd} {flag}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{cmd} {flag}: {}", r.stdout);
        assert!(r.stderr.contains("no-such-thing"), "{}", r.stderr);
    }
    let empty = tmp.path().join("empty-home");
    std::fs::create_dir_all(&empty).unwrap();
    let r = run(mcplogs(tmp.path())
        .args(["du", "--server", "x", "--home"])
        .arg(&empty));
    assert_eq!(r.code, 0, "{}", r.stderr);
}

/// The report's wording (issue 43 item 11): summaries in sentence case, `cacheScope`
/// described as Claude Code's validation says (`"public"` or `"private"`), and an
/// unknown Claude Code version asks for what `claude --version` prints.
#[test]
fn report_wording_sentence_case_cache_scope_and_version() {
    let tmp = tempfile::tempdir().unwrap();
    let no_claude = tmp.path().join("bin");
    std::fs::create_dir_all(&no_claude).unwrap();
    let report = |json: bool| {
        let mut c = mcplogs(tmp.path());
        c.env("PATH", &no_claude)
            .args(["report", "--force", "--home"])
            .arg(samples().join("linux-home"));
        if json {
            c.arg("--json");
        }
        run(&mut c)
    };
    let (r, doc) = {
        let r = report(true);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        (r, v)
    };
    assert_eq!(r.code, 1, "{}", r.stderr);
    let mut n = 0;
    for s in doc["servers"].as_array().unwrap() {
        if let Some(summary) = s["summary"].as_str() {
            let first = summary.chars().next().unwrap();
            assert!(!first.is_lowercase(), "{}: {summary}", s["name"]);
            n += 1;
        }
    }
    assert!(n >= 5, "{doc:#}");
    let md = report(false).stdout;
    assert!(md.contains("`\"public\"`"), "{md}");
    assert!(!md.contains("`cacheScope` a string"), "{md}");
    assert!(md.contains("`claude --version`"), "{md}");
    assert!(!md.contains("(version unknown)"), "{md}");
}
