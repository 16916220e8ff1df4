//! Helpers for unit tests only.
#![allow(clippy::disallowed_methods)] // reads the checked-in fuzz seeds

use std::ffi::OsString;

/// An injected environment holding just these variables.
pub fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
    move |k| {
        pairs
            .iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| OsString::from(v))
    }
}

/// The seeds of one fuzz target (`fuzz/corpus/<target>/`), as text (lossy UTF-8), so
/// that `cargo test` checks every seed against the target's invariants.
pub fn fuzz_seeds(target: &str) -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    std::fs::read_dir(dir)
        .expect("the seed folder")
        .map(|e| String::from_utf8_lossy(&std::fs::read(e.unwrap().path()).unwrap()).into_owned())
        .collect()
}
