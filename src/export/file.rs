//! The file form: the same records as JSON Lines appended to a file a log shipper
//! tails, kept under a size cap by renaming it to `<file>.1` (the one older
//! generation kept) before a batch would pass the cap. Created 0600 (unix), never
//! through a symbolic link, only ever a regular file.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::{Accepted, SendError, Sink};
use crate::json_doc::ExportRecord;

/// The cap when none is given: 10 MiB (twice that on disk with `<file>.1`).
pub const DEFAULT_MAX_BYTES: u64 = 10 << 20;

pub struct JsonLines {
    path: PathBuf,
    max_bytes: u64,
}

impl JsonLines {
    pub fn new(path: &Path, max_bytes: u64) -> JsonLines {
        JsonLines {
            path: path.to_path_buf(),
            max_bytes,
        }
    }

    /// The rotated generation's path: `<file>.1`.
    pub fn rotated(&self) -> PathBuf {
        let mut s = self.path.clone().into_os_string();
        s.push(".1");
        PathBuf::from(s)
    }

    fn err(&self, source: std::io::Error) -> SendError {
        SendError::File {
            path: self.path.display().to_string(),
            source,
        }
    }

    fn open(&self) -> std::io::Result<File> {
        // A FIFO, device or folder at the path is refused before it is opened.
        match fs::symlink_metadata(&self.path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "a symbolic link (not followed)",
                ));
            }
            Ok(m) if !m.is_file() => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("not a regular file: {}", crate::safe_read::kind_of(&m)),
                ));
            }
            _ => {}
        }
        // created 0600, no link followed, never blocking, our own regular file made 0600
        // (one left 0400 under umask 0277 too): the store's one way to open a private file
        crate::store::open_private_append(&self.path)
    }
}

impl Sink for JsonLines {
    fn send(&mut self, batch: &[ExportRecord], _deadline: Instant) -> Result<Accepted, SendError> {
        let mut text = Vec::new();
        for r in batch {
            // Escaped as `--dry-run` and every JSON document are (DEL, C1 and bidi
            // controls `\u`-escaped): the same value, and no raw control for a
            // shipper's terminal.
            let line = serde_json::to_string(r).map_err(|e| self.err(e.into()))?;
            text.extend_from_slice(crate::text::sanitize::json(&line).as_bytes());
            text.push(b'\n');
        }
        let mut f = self.open().map_err(|e| self.err(e))?;
        let len = f.metadata().map_err(|e| self.err(e))?.len();
        if len > 0 && len + text.len() as u64 > self.max_bytes {
            drop(f);
            fs::rename(&self.path, self.rotated()).map_err(|e| self.err(e))?;
            f = self.open().map_err(|e| self.err(e))?;
        }
        f.write_all(&text).map_err(|e| self.err(e))?;
        f.sync_data().map_err(|e| self.err(e))?;
        Ok(Accepted::default())
    }
}
