//! Any bytes as a gzip or zstd stream: no panic, no hang, never more text than the
//! decompression ratio allows (see `tracescope_format::fuzzing`).
//!
//! Run (nightly): `cargo +nightly fuzz run decompress -- -max_total_time=900`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tracescope_format::fuzzing::decompress_target(data));
