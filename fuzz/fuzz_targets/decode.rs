//! The record decoder on arbitrary bytes, in all three formats: whatever `sniff` says,
//! and then each format forced. Never panics; every record's line number lies within
//! the input; the damage counts add up.
#![no_main]

#[path = "../checks/decode.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
