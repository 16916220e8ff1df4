//! The classifier on arbitrary messages: each input line is one message (so a corpus
//! of real log lines is a session). `classify`, `read_signal` and `tools_failure_cause`
//! never panic, and the diagnosis's evidence indexes point into the session.
#![no_main]

#[path = "../checks/classify.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
