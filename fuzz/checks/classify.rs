//! The classifier on arbitrary messages: each input line is one message (so a corpus
//! of real log lines is a session). `classify`, `read_signal` and `tools_failure_cause`
//! never panic, and the diagnosis's evidence indexes point into the session.
//!
//! Shared by the fuzz target (fuzz/fuzz_targets/classify.rs) and the corpus replay in
//! the test suite (tests/cli/fuzz_corpus.rs): `check` panics on a broken invariant.

use mcplogs::classify::{classify, pick_deciding_session, read_signal, tools_failure_cause};

pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    // The whole input as one message (multi-line zod errors), then line by line.
    let _ = read_signal(&text);
    let _ = tools_failure_cause(&text);
    let messages: Vec<&str> = text.split('\n').collect();
    for m in &messages {
        let _ = read_signal(m);
        let _ = tools_failure_cause(m);
    }
    let d = classify(&messages);
    for &i in &d.evidence {
        assert!(
            i < messages.len(),
            "evidence index {i} of {}",
            messages.len()
        );
    }
    let _ = mcplogs::advice::diagnosis_recommendation(&d);
    let _ = d.legacy_fix_applies();
    let whole = classify(&[text.as_ref()]);
    let _ = pick_deciding_session(&[d, whole]);
}
