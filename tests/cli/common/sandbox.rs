//! A throw-away home, project and managed folder for running the real binary. Every
//! spawned mcplogs gets no inherited environment but PATH, HOME and CLAUDE_CONFIG_DIR
//! inside it, the project as its working directory and the managed folder wherever it
//! reads settings: tests never see ~/.claude, /etc/claude-code or the checkout.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const LEGACY_FRESH: &str =
    "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"\n  }\n}\n";

pub struct Sandbox {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub project: PathBuf,
    pub managed: PathBuf,
    /// [`super::samples_gone`], made the first time a test asks for it.
    samples_gone: std::sync::OnceLock<tempfile::TempDir>,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = super::fixed_length_tempdir();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        let managed = dir.path().join("managed");
        for d in [&home, &project, &managed] {
            fs::create_dir_all(d).unwrap();
        }
        Sandbox {
            dir,
            home,
            project,
            managed,
            samples_gone: std::sync::OnceLock::new(),
        }
    }

    /// Where this sandbox's copies of the samples have their projects
    /// ([`super::copy_samples_moved`]): one folder for all of them, made once.
    pub fn samples_gone(&self) -> &str {
        let dir = self.samples_gone.get_or_init(super::samples_gone);
        dir.path().to_str().unwrap()
    }

    pub fn claude_dir(&self) -> PathBuf {
        self.home.join(".claude")
    }

    pub fn user_settings(&self) -> PathBuf {
        self.claude_dir().join("settings.json")
    }

    pub fn command(&self, bin: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(bin);
        c.args(args);
        if matches!(args.first(), Some(&"scan") | Some(&"report")) {
            c.arg("--managed-dir").arg(&self.managed);
        }
        if matches!(args.first(), Some(&"fix") | Some(&"settings")) {
            c.arg("--managed-dir").arg(&self.managed);
            c.arg("--project").arg(&self.project);
        }
        if args.first() == Some(&"fix") && !args.contains(&"--undo") {
            c.arg("--home").arg(&self.home);
        }
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("USERPROFILE", &self.home)
            .env("CLAUDE_CONFIG_DIR", self.claude_dir())
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("NO_COLOR", "1")
            .current_dir(&self.project);
        super::clock_env(&mut c);
        c
    }

    /// Runs mcplogs with no standard input (not a terminal).
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(Path::new(env!("CARGO_BIN_EXE_mcplogs")), args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// A log folder in which one server failed in the way the legacy fix cures: a copy
    /// of the real macOS sample session (Claude Code 2.1.288, missing resultType).
    pub fn add_server_needing_fix(&self) {
        let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
        let src_dir = walkdir::WalkDir::new(samples.join("macos-home"))
            .into_iter()
            .map(|e| e.unwrap().into_path())
            .find(|p| p.ends_with("mcp-logs-no-resulttype"))
            .expect("sample server");
        let mut files: Vec<PathBuf> = fs::read_dir(&src_dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let newest = files.pop().expect("a session");
        let d = self
            .home
            .join(".cache/claude-cli-nodejs/-tmp-p/mcp-logs-no-resulttype");
        // (its project moved where nothing is, whatever this machine has where the
        // samples ran)
        let to = d.join(newest.file_name().unwrap());
        super::copy_samples_moved(&newest, &to, self.samples_gone());
    }
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

// (used by the unix-only settings tests)
#[cfg(unix)]
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Writes `bytes` to `path` (creating its folder) with exactly `mode`.
pub fn write_with_mode(path: &Path, bytes: &[u8], mode: u32) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
    set_mode(path, mode);
}

#[cfg(unix)]
pub fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

#[cfg(not(unix))]
pub fn set_mode(_path: &Path, _mode: u32) {}

#[cfg(unix)]
pub fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// Names in a folder, sorted: catches stray temporary files and missing backups.
#[cfg(unix)]
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}
