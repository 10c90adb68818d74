//! Any bytes as an ETW record file and as one Chrome event payload: no panic, no
//! hang, payloads stable through encode and decode (see `tracescope_format::fuzzing`).
//!
//! Run (nightly): `cargo +nightly fuzz run read_etw -- -max_total_time=900`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tracescope_format::fuzzing::read_etw_target(data));
