//! The fuzz targets' seed corpora (fuzz/corpus/<target>/) and the inputs they once
//! found (tests/fuzz-regressions/<target>-*.bin), replayed through the same checks the
//! fuzz targets run (fuzz/checks/), so the invariants hold in every `cargo test` and
//! the checks compile with the library. How to fuzz: docs/fuzzing.md.

use std::path::Path;

#[path = "../../fuzz/checks/classify.rs"]
mod classify;
#[path = "../../fuzz/checks/decode.rs"]
mod decode;
#[path = "../../fuzz/checks/explain.rs"]
mod explain;
#[path = "../../fuzz/checks/scan_stream.rs"]
mod scan_stream;
#[path = "../../fuzz/checks/settings_edit.rs"]
mod settings_edit;

/// Runs `check` on every file of the target's corpus and on its regression inputs,
/// naming the file that breaks an invariant. Returns how many inputs ran.
fn replay(target: &str, check: fn(&[u8])) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(root.join("fuzz/corpus").join(target))
        .unwrap_or_else(|e| panic!("fuzz/corpus/{target}: {e}"))
        .map(|e| e.unwrap().path())
        .collect();
    let prefix = format!("{}-", target.replace('_', "-"));
    files.extend(
        std::fs::read_dir(root.join("tests/fuzz-regressions"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .starts_with(&prefix)
            }),
    );
    files.sort();
    for f in &files {
        let data = std::fs::read(f).unwrap();
        if let Err(e) = std::panic::catch_unwind(|| check(&data)) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{}: {msg}", f.display());
        }
    }
    files.len()
}

#[test]
fn classify_corpus() {
    assert!(replay("classify", classify::check) >= 10);
}

#[test]
fn decode_corpus() {
    assert!(replay("decode", decode::check) >= 10);
}

#[test]
fn explain_corpus() {
    assert!(replay("explain", explain::check) >= 5);
}

#[test]
fn scan_stream_corpus() {
    assert!(replay("scan_stream", scan_stream::check) >= 10);
}

#[test]
fn settings_edit_corpus() {
    let ran = replay("settings_edit", settings_edit::check);
    // The check works in one folder per process; leave nothing behind.
    std::fs::remove_dir_all(&*settings_edit::DIR).unwrap();
    assert!(ran >= 10);
}
