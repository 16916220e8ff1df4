//! The `explain` parser on arbitrary pasted text, through both renderers.
#![no_main]

#[path = "../checks/explain.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
