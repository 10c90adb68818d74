//! Any bytes: `read_json` must not panic or hang, a parallel read in tiny parts must
//! equal the sequential one, and what the writer makes of the events must read back
//! as the same events (see `tracescope_format::fuzzing`).
//!
//! Run (nightly): `cargo +nightly fuzz run read_json -- -max_total_time=900`
//! from `fuzz/`, seeded with the committed corpus (`fuzz/corpus/read_json`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tracescope_format::fuzzing::read_json_target(data));
