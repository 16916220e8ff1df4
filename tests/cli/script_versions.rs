//! The scripts that install Claude Code builds take ASCII versions only (issue 50):
//! Python's `\d` and `str.isdigit` also take Arabic-Indic or fullwidth digits, which
//! would reach npm and the cache's paths. The shell installer (the one place that calls
//! npm), scripts/observe-build and the e2e scripts' `--versions` (tests/e2e/run.py's
//! `VERSION`) refuse them; no npm runs (a stand-in on PATH records any call).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Versions that are not ASCII `major.minor.patch`.
const NOT_VERSIONS: &[&str] = &[
    "2.1.\u{663}\u{663}\u{662}", // Arabic-Indic 332
    "\u{ff12}.1.332",            // a fullwidth 2
    "2.1.\u{6f3}\u{6f3}\u{6f2}", // Extended Arabic-Indic
    "2.1.\u{967}",               // Devanagari 1
    "2.1.332\n",
    " 2.1.332",
    "2.1.332 --registry=http://127.0.0.1:9",
    "../2.1.332",
    "2.1",
    "2.1.332.1",
    "2.1.0332", // a leading zero: no version npm publishes
    "",
];

/// A folder holding an `npm` that records its arguments in `calls` and fails.
fn fake_npm(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let npm = bin.join("npm");
    std::fs::write(
        &npm,
        format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\nexit 1\n",
            dir.join("calls").display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&npm, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// python3, leaving no `__pycache__` in the checkout.
fn python3() -> Command {
    let mut c = Command::new("python3");
    c.env("PYTHONDONTWRITEBYTECODE", "1");
    c
}

fn with_fake_npm(c: &mut Command, dir: &Path) {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![fake_npm(dir)];
    dirs.extend(std::env::split_paths(&path));
    c.env("PATH", std::env::join_paths(dirs).unwrap());
}

fn npm_calls(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("calls")).unwrap_or_default()
}

fn install(dir: &Path, version: &str) -> Output {
    let cache = dir.join("cache");
    let mut c = Command::new("bash");
    c.arg(repo().join("scripts/samples/install_claude.sh"))
        .arg(&cache)
        .arg(version);
    with_fake_npm(&mut c, dir);
    c.output().unwrap()
}

#[test]
fn the_installer_refuses_non_ascii_digits_before_npm() {
    for v in NOT_VERSIONS {
        let dir = tempfile::tempdir().unwrap();
        let o = install(dir.path(), v);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{v:?}: {err}");
        assert!(err.contains("is not a version"), "{v:?}: {err}");
        assert_eq!(npm_calls(dir.path()), "", "{v:?} reached npm");
        assert!(
            !dir.path().join("cache").exists(),
            "{v:?} made a cache folder"
        );
    }
    // an ASCII version passes the check and reaches (the stand-in) npm
    let dir = tempfile::tempdir().unwrap();
    let o = install(dir.path(), "2.1.332");
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        npm_calls(dir.path()).contains("@anthropic-ai/claude-code-linux-x64@2.1.332"),
        "{}",
        npm_calls(dir.path())
    );
}

#[test]
fn observe_build_refuses_non_ascii_digits_before_installing() {
    for v in NOT_VERSIONS {
        let dir = tempfile::tempdir().unwrap();
        let mut c = python3();
        c.arg(repo().join("scripts/observe-build"))
            .args(["--cache", &dir.path().join("cache").display().to_string()])
            .args(["--mcplogs", "/nonexistent/mcplogs", "--"])
            .arg(v);
        with_fake_npm(&mut c, dir.path());
        let o = c.output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{v:?}: {err}");
        assert!(err.contains("is not a version such as"), "{v:?}: {err}");
        assert_eq!(npm_calls(dir.path()), "", "{v:?} reached npm");
    }
    // an ASCII version gets past the version check (to the missing binary)
    let o = python3()
        .arg(repo().join("scripts/observe-build"))
        .args(["--mcplogs", "/nonexistent/mcplogs", "2.1.332"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no mcplogs binary"), "{err}");
}

/// tests/e2e/run.py's check, which every e2e script's `--versions` uses, on the same
/// versions (and its `argparse` type refuses a list holding one).
#[test]
fn the_e2e_scripts_version_check_takes_ascii_digits_only() {
    let check = r#"
import argparse, json, sys
sys.path.insert(0, sys.argv[1])
import run
bad = json.loads(sys.argv[2])
assert run.is_version("2.1.332") and run.is_version("10.20.300")
for v in bad:
    assert not run.is_version(v), v
    try:
        run.versions_arg("2.1.288," + v)
    except argparse.ArgumentTypeError:
        pass
    else:
        raise AssertionError("versions_arg took " + repr(v))
assert run.versions_arg("2.1.288,2.1.332") == "2.1.288,2.1.332"
print("ok")
"#;
    let bad: Vec<&&str> = NOT_VERSIONS.iter().filter(|v| !v.is_empty()).collect();
    let o = python3()
        .args(["-c", check])
        .arg(repo().join("tests/e2e"))
        .arg(serde_json::to_string(&bad).unwrap())
        .output()
        .unwrap();
    assert!(
        o.status.success() && String::from_utf8_lossy(&o.stdout).trim() == "ok",
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}
