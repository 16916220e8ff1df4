//! What export keeps in mcplogs' private cache folder (`<cache>/export/`): the
//! machine's key (`key`), and per destination the ids of the records the destination
//! accepted (`sent-<id>.json`, the watermark) and a lock (`sent-<id>.lock`), and the last
//! background run's stderr (`last-run.log`). All of it goes through mcplogs' one private
//! store ([`crate::store`]): the folder 0700 and the files 0600, no symbolic link
//! followed, the key created exclusively, the ledger written to an exclusive temporary
//! file, flushed, then renamed over the old one.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::store::{Folder, Store};

/// The largest ledger read: 64 MiB (about a million records' ids).
const MAX_LEDGER_BYTES: u64 = 64 << 20;

/// A ledger entry not seen in a scan for this long is dropped: its logs are gone.
pub const FORGET_AFTER_DAYS: i64 = 90;

/// Something export could not store or read. The ledger or key is then not used: the
/// run sends nothing (rather than sending everything again, or forgetting).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("mcplogs' cache folder is unknown (set MCPLOGS_CACHE_DIR)")]
    NoCacheDir,
    /// The cache folder, or its `export` folder, was refused or could not be made.
    #[error(transparent)]
    Private(#[from] crate::store::StoreError),
    #[error("cannot use {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path} is damaged ({detail}); move it away to start again (every record is then sent once more)"
    )]
    Damaged { path: PathBuf, detail: String },
    #[error("another `mcplogs export` to the same destination is running")]
    Busy,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// `<cache>/export`, through the private store: the cache folder checked (the user's
/// own, not open to others, not a link), `export` created 0700 when missing and
/// refused when it is a link or not a folder.
pub fn private_dir(cache: &Path) -> Result<Folder, StoreError> {
    Ok(Store::open(cache)?.folder("export")?)
}

/// The machine's key: 32 random bytes, hex in `<dir>/key`, made on first use
/// (exclusively and whole: two exports starting at once agree on one key).
pub fn machine_key(dir: &Folder) -> Result<Vec<u8>, StoreError> {
    let path = dir.path().join("key");
    for _ in 0..2 {
        if let Some(bytes) = dir.read("key", 1024).map_err(io(&path))? {
            let text = String::from_utf8_lossy(&bytes);
            let text = text.trim();
            if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Ok(text.as_bytes().to_vec());
            }
            return Err(StoreError::Damaged {
                path,
                detail: "not 64 hex digits".into(),
            });
        }
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| StoreError::Io {
            path: path.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
        let hex = crate::text::hex(&bytes);
        if dir
            .create_exclusive("key", format!("{hex}\n").as_bytes())
            .map_err(io(&path))?
        {
            return Ok(hex.into_bytes());
        }
        // another export made it first: read theirs
    }
    Err(StoreError::Damaged {
        path,
        detail: "made and gone again".into(),
    })
}

/// HMAC-SHA-256 (RFC 2104) of `msg` under `key`.
pub fn hmac(key: &[u8], msg: &[u8]) -> [u8; 32] {
    let mut k = [0u8; 64];
    if key.len() > 64 {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(k.map(|b| b ^ 0x36));
    inner.update(msg);
    let inner = inner.finalize();
    let mut outer = Sha256::new();
    outer.update(k.map(|b| b ^ 0x5c));
    outer.update(inner);
    outer.finalize().into()
}

/// A keyed id: the first 16 bytes of the HMAC, as 32 hex digits.
pub fn keyed_id(key: &[u8], parts: &[&str]) -> String {
    let msg = parts.join("\u{0}");
    crate::text::hex(&hmac(key, msg.as_bytes())[..16])
}

/// The ids of the records one destination accepted, each with the day it was last
/// seen in a scan.
#[derive(Debug)]
pub struct Ledger {
    dir: Folder,
    name: String,
    sent: HashMap<String, i64>,
    /// Held while the ledger is in use (unix: an flock on `sent-<id>.lock`).
    _lock: fs::File,
}

impl Ledger {
    /// Opens (and locks) the ledger of `destination` in `dir`. A second export to the
    /// same destination at the same time gets [`StoreError::Busy`].
    pub fn open(dir: Folder, destination: &str) -> Result<Ledger, StoreError> {
        let id = crate::text::hex(&Sha256::digest(destination.as_bytes())[..8]);
        let name = format!("sent-{id}.json");
        let lock_name = format!("sent-{id}.lock");
        let lock_path = dir.path().join(&lock_name);
        let lock = dir
            .open_private(&lock_name, false)
            .map_err(io(&lock_path))?;
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            // SAFETY: flock on a descriptor this function owns.
            if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
                let e = std::io::Error::last_os_error();
                return Err(if e.kind() == std::io::ErrorKind::WouldBlock {
                    StoreError::Busy
                } else {
                    io(&lock_path)(e)
                });
            }
        }
        let path = dir.path().join(&name);
        let sent = match dir.read(&name, MAX_LEDGER_BYTES) {
            Ok(None) => HashMap::new(),
            Ok(Some(bytes)) => parse(&bytes).ok_or_else(|| StoreError::Damaged {
                path: path.clone(),
                detail: "not a ledger".into(),
            })?,
            Err(e) => {
                return Err(StoreError::Damaged {
                    path,
                    detail: e.to_string(),
                });
            }
        };
        Ok(Ledger {
            dir,
            name,
            sent,
            _lock: lock,
        })
    }

    pub fn path(&self) -> PathBuf {
        self.dir.path().join(&self.name)
    }

    pub fn len(&self) -> usize {
        self.sent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sent.is_empty()
    }

    /// Whether the destination accepted the record `id`; a record seen again is kept
    /// another [`FORGET_AFTER_DAYS`].
    pub fn seen(&mut self, id: &str, today: i64) -> bool {
        match self.sent.get_mut(id) {
            Some(day) => {
                *day = today;
                true
            }
            None => false,
        }
    }

    /// Records that the destination accepted `ids`.
    pub fn accepted<'a>(&mut self, ids: impl IntoIterator<Item = &'a str>, today: i64) {
        for id in ids {
            self.sent.insert(id.to_string(), today);
        }
    }

    /// Writes the ledger (dropping ids not seen for [`FORGET_AFTER_DAYS`]): exclusive
    /// temporary file, flushed, renamed over the old one.
    pub fn save(&mut self, today: i64) -> Result<(), StoreError> {
        self.sent.retain(|_, day| today - *day <= FORGET_AFTER_DAYS);
        let mut ids: Vec<(&String, &i64)> = self.sent.iter().collect();
        ids.sort();
        let mut text = String::with_capacity(ids.len() * 44 + 32);
        text.push_str("{\"format\":1,\"sent\":{");
        for (i, (id, day)) in ids.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&format!("\"{id}\":{day}"));
        }
        text.push_str("}}\n");
        self.dir
            .write_durable(&self.name, text.as_bytes())
            .map_err(io(&self.path()))
    }
}

fn parse(bytes: &[u8]) -> Option<HashMap<String, i64>> {
    #[derive(serde::Deserialize)]
    struct Doc {
        format: u32,
        sent: HashMap<String, i64>,
    }
    let d: Doc = serde_json::from_slice(bytes).ok()?;
    (d.format == 1).then_some(d.sent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231() {
        // Test case 2.
        let got = hmac(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(
            crate::text::hex(&got),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Test case 6: a key longer than the block.
        let got = hmac(
            &[0xaa; 131],
            b"Test Using Larger Than Block-Size Key - Hash Key First",
        );
        assert_eq!(
            crate::text::hex(&got),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn the_key_is_made_once_private_and_kept() {
        let t = tempfile::tempdir().unwrap();
        let dir = private_dir(t.path()).unwrap();
        let k1 = machine_key(&dir).unwrap();
        let k2 = machine_key(&dir).unwrap();
        assert_eq!(k1, k2);
        assert_eq!(k1.len(), 64);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&dir.path().join("key")), 0o600);
            assert_eq!(mode(dir.path()), 0o700);
        }
        let other = tempfile::tempdir().unwrap();
        let k3 = machine_key(&private_dir(other.path()).unwrap()).unwrap();
        assert_ne!(k1, k3);
    }

    #[cfg(unix)]
    #[test]
    #[allow(clippy::disallowed_methods)] // reads back its own planted target
    fn symbolic_links_are_not_followed() {
        let t = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), t.path().join("export")).unwrap();
        assert!(matches!(
            private_dir(t.path()),
            Err(StoreError::Private(e)) if e.is_refusal()
        ));
        let t = tempfile::tempdir().unwrap();
        let dir = private_dir(t.path()).unwrap();
        let target = elsewhere.path().join("target");
        fs::write(&target, "x".repeat(64)).unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join("key")).unwrap();
        assert!(machine_key(&dir).is_err());
        // nor at the lock, the ledger or the background run's log
        let dir = private_dir(t.path()).unwrap();
        let lock = Sha256::digest(b"http://c/v1/logs");
        let lock = format!("sent-{}.lock", crate::text::hex(&lock[..8]));
        std::os::unix::fs::symlink(&target, dir.path().join(&lock)).unwrap();
        assert!(Ledger::open(dir, "http://c/v1/logs").is_err());
        let dir = private_dir(t.path()).unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join("last-run.log")).unwrap();
        assert!(dir.open_private("last-run.log", true).is_err());
        let dir = private_dir(t.path()).unwrap();
        let mut l = Ledger::open(dir, "file:/x").unwrap();
        std::os::unix::fs::symlink(&target, l.path()).unwrap();
        l.accepted(["a"], 1);
        l.save(1).unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "x".repeat(64));
        assert!(
            !fs::symlink_metadata(l.path())
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn the_ledger_keeps_what_was_accepted_forgets_old_ids_and_locks() {
        let t = tempfile::tempdir().unwrap();
        let dir = || private_dir(t.path()).unwrap();
        {
            let mut l = Ledger::open(dir(), "http://c/v1/logs").unwrap();
            assert!(l.is_empty());
            #[cfg(unix)]
            assert!(matches!(
                Ledger::open(dir(), "http://c/v1/logs"),
                Err(StoreError::Busy)
            ));
            l.accepted(["a", "b"], 100);
            l.accepted(["old"], 100 - FORGET_AFTER_DAYS - 1);
            l.save(100).unwrap();
        }
        let mut l = Ledger::open(dir(), "http://c/v1/logs").unwrap();
        assert_eq!(l.len(), 2);
        assert!(l.seen("a", 101));
        assert!(!l.seen("old", 101));
        let other = Ledger::open(dir(), "file:/x").unwrap();
        assert!(other.is_empty());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(l.path()).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        fs::write(l.path(), "{not json").unwrap();
        drop(l);
        assert!(matches!(
            Ledger::open(dir(), "http://c/v1/logs"),
            Err(StoreError::Damaged { .. })
        ));
    }
}
