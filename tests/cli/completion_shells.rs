//! Tab completion in real shells (issue 42, item 1): a cloned repository's `.mcp.json`
//! names servers that are shell code (`$(...)`, backquotes, `;`, quotes, spaces, globs,
//! newlines). bash, zsh and fish are driven in a pseudo-terminal through the script
//! `mcplogs completions SHELL` prints: type `mcplogs probe PREFIX`, Tab, Enter. The
//! command that runs is a stand-in that records its arguments (and hands completion
//! requests to the real binary), so each test sees exactly what the shell ran: the
//! whole name as one argument, and no marker file from any of the names.
//!
//! A shell that is not installed is skipped with a message, except under `CI=true`
//! (`.ci/run` installs them), where that fails.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use rexpect::session::spawn_command;

/// Hostile names, each with the prefix typed before Tab.
const CASES: &[(&str, &str)] = &[
    ("a", "a$(touch PWNED1)b"),
    ("b", "b`touch PWNED2`c"),
    ("c", "c;touch PWNED3"),
    ("d", "d'q\"e"),
    ("e", "e f g"),
    ("f", "f*"),
    ("g", "g$HOME&&touch PWNED4"),
    ("i", "i!x[y]?"),
    // An opening quote typed by the user.
    ("'a", "a$(touch PWNED1)b"),
];

/// A name with a newline: it cannot be offered safely, so Tab leaves `h` as typed.
const NEWLINE_NAME: &str = "h\ntouch PWNED5";

/// Two names with a long common beginning: the first Tab inserts only that much (in
/// bash, an opened quote), then `B` and Tab complete the second.
const TWO: [(&str, &str); 2] = [("zz", "zz$(touch PWNA)1"), ("zz", "zz$(touch PWNB)2")];

/// A folder in the project (a cloned repository's), offered by `--home`'s path completion.
const PATH_NAME: &str = "z$(touch PWNED6)dir";

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    bin: PathBuf,
    args_out: PathBuf,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    let bin = dir.path().join("bin");
    for d in [&home, &project, &bin] {
        fs::create_dir_all(d).unwrap();
    }
    let mut servers = serde_json::Map::new();
    for (_, name) in CASES
        .iter()
        .copied()
        .chain([("h", NEWLINE_NAME)])
        .chain(TWO)
    {
        servers.insert(name.into(), serde_json::json!({"command": "true"}));
    }
    fs::write(
        project.join(".mcp.json"),
        serde_json::json!({ "mcpServers": servers }).to_string(),
    )
    .unwrap();
    // Files a glob in a candidate could match, were it expanded.
    for f in ["fA", "fB", "'f*'", "ixy"] {
        fs::write(project.join(f), "").unwrap();
    }
    // A folder the path completion of `--home` offers.
    fs::create_dir_all(project.join(PATH_NAME)).unwrap();
    let args_out = dir.path().join("args.out");
    let real = env!("CARGO_BIN_EXE_mcplogs");
    let wrapper = format!(
        "#!/bin/sh\nif [ -n \"$COMPLETE\" ]; then exec '{real}' \"$@\"; fi\nfor a in \"$@\"; do printf '%s\\036' \"$a\"; done > '{}'\n",
        args_out.display()
    );
    let w = bin.join("mcplogs");
    crate::common::write_program(&w, &wrapper);
    World {
        _dir: dir,
        home,
        project,
        bin,
        args_out,
    }
}

/// The shell's path, or `None` (and a message) when it is missing outside CI.
fn shell(name: &str) -> Option<PathBuf> {
    for dir in ["/usr/bin", "/bin", "/usr/local/bin", "/opt/homebrew/bin"] {
        let p = Path::new(dir).join(name);
        if p.is_file() {
            return Some(p);
        }
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{name} is not installed: .ci/run installs it for this test");
    }
    eprintln!("SKIPPED: {name} is not installed here, so its completion was not tested");
    None
}

/// The registration script, as `mcplogs completions SHELL` prints it.
fn registration(w: &World, sh: &str) -> PathBuf {
    let out = Command::new(env!("CARGO_BIN_EXE_mcplogs"))
        .args(["completions", sh])
        .env_clear()
        .env("HOME", &w.home)
        .output()
        .unwrap();
    assert!(out.status.success());
    let p = w.home.join(format!("mcplogs.{sh}"));
    fs::write(&p, out.stdout).unwrap();
    p
}

fn markers(w: &World) -> Vec<String> {
    let mut found = Vec::new();
    for d in [&w.home, &w.project, w.bin.parent().unwrap()] {
        for e in fs::read_dir(d).unwrap() {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            if n.starts_with("PWNED") {
                found.push(format!("{}/{n}", d.display()));
            }
        }
    }
    found
}

/// Starts `sh`, sources the registration, then for each case types the prefix, Tab and
/// Enter, and checks what ran.
fn drive(sh: &str, argv: &[&str], source: &str) {
    let Some(path) = shell(sh) else { return };
    let w = world();
    let script = registration(&w, sh);
    let mut cmd = Command::new(path);
    cmd.args(argv)
        .env_clear()
        .env("HOME", &w.home)
        .env("PATH", format!("{}:/usr/bin:/bin", w.bin.display()))
        .env("TERM", "xterm")
        .env("LANG", "C.UTF-8")
        .current_dir(&w.project);
    let mut p = spawn_command(cmd, Some(30_000)).unwrap();
    p.send_line(&source.replace("SCRIPT", &script.display().to_string()))
        .unwrap();
    p.send_line("printf '%s-%s\\n' READY 0").unwrap();
    p.exp_string("READY-0").unwrap();
    let path_arg = format!("{PATH_NAME}/");
    let cases: Vec<(String, Vec<&str>)> = CASES
        .iter()
        .chain(&[("h", "h")])
        .map(|(prefix, want)| (format!("mcplogs probe {prefix}"), vec!["probe", want]))
        .chain([
            (
                "mcplogs scan --home z".to_string(),
                vec!["scan", "--home", path_arg.as_str()],
            ),
            ("mcplogs probe zz\tB".to_string(), vec!["probe", TWO[1].1]),
        ])
        .collect();
    for (i, (prefix, want)) in cases.iter().enumerate() {
        let _ = fs::remove_file(&w.args_out);
        p.send(prefix).unwrap();
        p.send("\t").unwrap();
        p.send("\r").unwrap();
        // Sequential input: the completion, then the command, then this marker.
        p.send_line(&format!("printf '%s-%s\\n' DONE {i}")).unwrap();
        p.exp_string(&format!("DONE-{i}"))
            .unwrap_or_else(|e| panic!("{sh}: {prefix:?}: no marker ({e})"));
        let got = fs::read_to_string(&w.args_out)
            .unwrap_or_else(|e| panic!("{sh}: {prefix:?} ran nothing ({e})"));
        let args: Vec<&str> = got.split('\u{1e}').filter(|a| !a.is_empty()).collect();
        assert_eq!(&args, want, "{sh}: typed {prefix:?}");
        assert_eq!(markers(&w), Vec::<String>::new(), "{sh}: typed {prefix:?}");
    }
    p.send_line("exit").unwrap();
    let _ = p.exp_eof();
    assert_eq!(markers(&w), Vec::<String>::new(), "{sh}");
}

#[test]
fn bash_completes_hostile_names_as_one_literal_argument() {
    drive(
        "bash",
        &["--norc", "--noprofile", "-i"],
        "PS1='$ '; source SCRIPT",
    );
}

#[test]
fn zsh_completes_hostile_names_as_one_literal_argument() {
    drive(
        "zsh",
        &["-f", "-i"],
        "autoload -Uz compinit && compinit -u -D && source SCRIPT",
    );
}

#[test]
fn fish_completes_hostile_names_as_one_literal_argument() {
    drive("fish", &["--no-config", "-i"], "source SCRIPT");
}

/// Under clap_complete's own bash script (a copy saved from an older mcplogs), which
/// would insert candidates unquoted, a name that needs quoting is not offered at all.
#[test]
fn without_mcplogs_bash_script_a_name_that_needs_quoting_is_left_out() {
    let w = world();
    // The candidates for `mcplogs probe WORD` as `shell` asks for them, with `env`.
    let complete = |shell: &str, word: &str, env: &[(&str, &str)]| {
        let out = Command::new(env!("CARGO_BIN_EXE_mcplogs"))
            .args(["--", "mcplogs", "probe", word])
            .env_clear()
            .env("HOME", &w.home)
            .env("COMPLETE", shell)
            .envs(env.iter().copied())
            .current_dir(&w.project)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let bash = [("_CLAP_COMPLETE_INDEX", "2"), ("_CLAP_IFS", "\n")];
    let text = complete("bash", "", &bash);
    assert!(!text.contains("PWNED"), "{text}");
    assert!(!text.contains("e f g"), "{text}");
    // With mcplogs' script, the same names come single-quoted.
    let text = complete(
        "bash",
        "",
        &[&bash[..], &[("_MCPLOGS_COMPLETE_QUOTING", "single")]].concat(),
    );
    assert!(text.lines().any(|l| l == "'a$(touch PWNED1)b'"), "{text}");
    assert!(text.lines().any(|l| l == "'e f g'"), "{text}");
    assert!(!text.contains("PWNED5"), "{text}");
    // PowerShell inserts text as it is: every candidate comes as one literal word.
    assert_eq!(complete("powershell", "'d", &[]), "'d''q\"e'\n");
}

/// Issue 51 item 9: Tab completes both spellings of the output file on `report` and
/// `export` (`--ou` to `--output`, `--fi` to `--file`; clap lists an alias once typed).
#[test]
fn report_and_export_complete_both_spellings_of_the_output_file() {
    let tmp = tempfile::tempdir().unwrap();
    for sub in ["report", "export"] {
        for (typed, flag) in [("--ou", "--output"), ("--fi", "--file")] {
            let out = Command::new(env!("CARGO_BIN_EXE_mcplogs"))
                .args(["--", "mcplogs", sub, typed])
                .env_clear()
                .env("HOME", tmp.path())
                .env("COMPLETE", "bash")
                .env("_CLAP_COMPLETE_INDEX", "2")
                .env("_CLAP_IFS", "\n")
                .current_dir(tmp.path())
                .output()
                .unwrap();
            let text = String::from_utf8(out.stdout).unwrap();
            assert!(text.lines().any(|l| l == flag), "{sub} {typed}: {text}");
        }
    }
}
