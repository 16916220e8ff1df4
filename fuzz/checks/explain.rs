//! The `explain` parser on arbitrary pasted text, through both renderers.
//!
//! Shared by the fuzz target (fuzz/fuzz_targets/explain.rs) and the corpus replay in
//! the test suite (tests/cli/fuzz_corpus.rs): `check` panics on a broken invariant.

use mcplogs::explain::explain;
use mcplogs::render::explain as table;
use mcplogs::render::explain::explain_json;

pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let report = explain(&text);
    let _ = report.has_problems();
    for e in &report.entries {
        let _ = e.recommendation();
    }
    let _ = table::explain_table(&report, Some(80), Some("/home/u"));
    let doc = explain_json(&report);
    serde_json::to_string_pretty(&doc).expect("explain JSON serializes");
}
