//! The process exit codes, a documented contract (README, "Exit codes").

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// Nothing wrong: every server is `healthy`, `tolerated` or `unknown`.
    Clean = 0,
    /// At least one server has a problem.
    ProblemsFound = 1,
    /// Usage error, or a named path / file that cannot be read.
    Error = 2,
}

impl ExitCode {
    pub fn from_problems(found: bool) -> Self {
        if found {
            ExitCode::ProblemsFound
        } else {
            ExitCode::Clean
        }
    }
}
