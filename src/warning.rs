//! Non-fatal problems: a damaged file, an unreadable folder. Collected, never printed by
//! the library; the binary shows them on stderr and `--json` lists them.

use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub path: Option<PathBuf>,
    pub message: String,
}

impl Warning {
    pub fn new(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Warning {
            path: Some(path.into()),
            message: message.into(),
        }
    }

    pub fn general(message: impl Into<String>) -> Self {
        Warning {
            path: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}: {}", p.display(), self.message),
            None => f.write_str(&self.message),
        }
    }
}
