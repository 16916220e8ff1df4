//! The scan's prefiltered JSON Lines reader (`decode::stream`) on arbitrary bytes, with
//! block sizes from 8 bytes up, against the plain decoder. Never panics; every record it
//! gives is the plain decoder's record for the same line; every line that holds a needle
//! and fits in a block is given; both count the same lines.
#![no_main]

#[path = "../checks/scan_stream.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
