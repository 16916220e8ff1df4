//! Which mcplogs binary `mcplogs setup` installs: Claude Code runs the status line and
//! the hook with its own PATH, where a bare `mcplogs` may not be found (the status line
//! then stays blank and the hook fails at every prompt). So setup installs the absolute
//! path of this binary, and only when that path stays valid: not a build inside a cargo
//! `target/` folder (the next `cargo build` or `cargo clean` replaces or removes it), not
//! a temporary folder, and a file that can be run. It then runs the path with
//! `--version` before anything is written.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why a binary's path is not one to install.
#[derive(Debug, thiserror::Error)]
pub enum BinaryProblem {
    #[error("cannot find this program's own path")]
    NoOwnPath(#[source] std::io::Error),
    #[error("{} does not exist or cannot be resolved", .path.display())]
    Missing {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{} is a build inside a cargo target folder, which the next `cargo build` or `cargo clean` replaces or removes",
        .path.display()
    )]
    CargoTarget { path: PathBuf },
    #[error("{} is in a temporary folder ({}), which may be emptied", .path.display(), .temp.display())]
    Temporary { path: PathBuf, temp: PathBuf },
    #[error("{} is not a file that can be run", .path.display())]
    NotExecutable { path: PathBuf },
    #[error("{} did not run: {detail}", .path.display())]
    DoesNotRun { path: PathBuf, detail: String },
}

/// The absolute, canonical path of this running binary, if it is stable
/// ([`check_stable`]).
pub fn own_stable_path() -> Result<PathBuf, BinaryProblem> {
    let path = own_path()?;
    check_stable(&path, &std::env::temp_dir())?;
    Ok(path)
}

/// The absolute, canonical path of this running binary, stable or not.
pub fn own_path() -> Result<PathBuf, BinaryProblem> {
    let exe = std::env::current_exe().map_err(BinaryProblem::NoOwnPath)?;
    canonical(&exe)
}

impl BinaryProblem {
    /// The path exists and runs but may not stay (a cargo build, a temporary folder):
    /// a preview (`--dry-run`) may still show it, with this problem as a warning.
    pub fn may_not_stay(&self) -> bool {
        matches!(self, Self::CargoTarget { .. } | Self::Temporary { .. })
    }
}

/// `path` made absolute and canonical (links resolved: the installed path is the file
/// itself, not a link a package manager may repoint).
pub fn canonical(path: &Path) -> Result<PathBuf, BinaryProblem> {
    std::fs::canonicalize(path).map_err(|source| BinaryProblem::Missing {
        path: path.to_path_buf(),
        source,
    })
}

/// Whether `path` (canonical) stays where it is: not inside a cargo target folder (a
/// folder named `target` that holds the `CACHEDIR.TAG` cargo writes, or whose parent
/// holds a `Cargo.toml`), not under `temp` (or `/tmp`, `/var/tmp`), and runnable.
pub fn check_stable(path: &Path, temp: &Path) -> Result<(), BinaryProblem> {
    for dir in path.ancestors().skip(1) {
        let is_target = dir.file_name().is_some_and(|n| n == "target")
            && (dir.join("CACHEDIR.TAG").is_file()
                || dir.parent().is_some_and(|p| p.join("Cargo.toml").is_file()));
        if is_target {
            return Err(BinaryProblem::CargoTarget {
                path: path.to_path_buf(),
            });
        }
    }
    let temps: Vec<PathBuf> = [temp, Path::new("/tmp"), Path::new("/var/tmp")]
        .iter()
        .map(|t| std::fs::canonicalize(t).unwrap_or_else(|_| t.to_path_buf()))
        .collect();
    if let Some(t) = temps
        .iter()
        .find(|t| t.parent().is_some() && path.starts_with(t))
    {
        return Err(BinaryProblem::Temporary {
            path: path.to_path_buf(),
            temp: t.clone(),
        });
    }
    check_executable(path)
}

/// Whether `path` is a regular file this user may run.
pub fn check_executable(path: &Path) -> Result<(), BinaryProblem> {
    let not = || BinaryProblem::NotExecutable {
        path: path.to_path_buf(),
    };
    let meta = std::fs::metadata(path).map_err(|_| not())?;
    if !meta.is_file() {
        return Err(not());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 == 0 {
            return Err(not());
        }
    }
    Ok(())
}

/// How long `--version` may take.
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(5);

/// Runs `path --version` (no input, output captured, killed after [`VERSION_TIMEOUT`]) and
/// checks it answers as mcplogs: the command setup installs works.
pub fn check_runs(path: &Path) -> Result<String, BinaryProblem> {
    use std::process::{Command, Stdio};
    let fail = |detail: String| BinaryProblem::DoesNotRun {
        path: path.to_path_buf(),
        detail,
    };
    let mut child = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| fail(e.to_string()))?;
    let start = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() < VERSION_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(fail(format!(
                    "`--version` gave no answer within {} s",
                    VERSION_TIMEOUT.as_secs()
                )));
            }
            Err(e) => return Err(fail(e.to_string())),
        }
    };
    let mut out = String::new();
    if let Some(mut o) = child.stdout.take() {
        use std::io::Read;
        let _ = o.by_ref().take(4096).read_to_string(&mut out);
    }
    let out = out.trim().to_string();
    if !status.success() || !out.starts_with("mcplogs ") {
        return Err(fail(format!(
            "`--version` answered {:?} (exit {})",
            crate::text::whole_words(&out, 80),
            status
                .code()
                .map_or_else(|| "by a signal".to_string(), |c| c.to_string())
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cargo_build_and_a_temporary_copy_are_not_stable() {
        let root = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root.path()).unwrap();
        let other_temp = root.join("elsewhere");
        // A cargo project's build.
        let proj = root.join("proj");
        std::fs::create_dir_all(proj.join("target/debug")).unwrap();
        std::fs::write(proj.join("Cargo.toml"), "").unwrap();
        let built = proj.join("target/debug/mcplogs");
        std::fs::write(&built, "").unwrap();
        assert!(matches!(
            check_stable(&built, &other_temp),
            Err(BinaryProblem::CargoTarget { .. })
        ));
        // A folder called target elsewhere is fine, and so is an executable file.
        let bin = root.join("opt/target/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let installed = bin.join("mcplogs");
        std::fs::write(&installed, "").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert!(matches!(
                check_executable(&installed),
                Err(BinaryProblem::NotExecutable { .. })
            ));
            std::fs::set_permissions(&installed, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        if !installed.starts_with("/tmp") && !installed.starts_with("/var/tmp") {
            check_stable(&installed, &other_temp).unwrap();
        }
        // Under the temporary folder.
        assert!(matches!(
            check_stable(&installed, &root),
            Err(BinaryProblem::Temporary { .. })
        ));
        assert!(matches!(
            check_executable(&root),
            Err(BinaryProblem::NotExecutable { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_program_that_is_not_mcplogs_does_not_pass() {
        let e = check_runs(Path::new("/bin/false")).unwrap_err();
        assert!(matches!(e, BinaryProblem::DoesNotRun { .. }), "{e}");
        let e = check_runs(Path::new("/nonexistent/mcplogs")).unwrap_err();
        assert!(e.to_string().contains("did not run"), "{e}");
    }
}
