//! Any bytes as a CTF stream under tracescope's own metadata (first byte even), or
//! as metadata text (first byte odd): no panic, no hang (see
//! `tracescope_format::fuzzing`).
//!
//! Run (nightly): `cargo +nightly fuzz run read_ctf -- -max_total_time=900`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tracescope_format::fuzzing::read_ctf_target(data));
