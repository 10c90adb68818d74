//! Any bytes as an ETW record file and as one Chrome event payload: no panic, no
//! hang; a payload that decodes encodes to bytes that decode to the same payload
//! (not always the same bytes: invalid UTF-8 in strings is read as U+FFFD).
//!
//! Run (nightly): `cargo +nightly fuzz run read_etw -- -max_total_time=300`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tracescope_format::etw::{decode_payload, encode_payload, read_records, Bitness};

fuzz_target!(|data: &[u8]| {
    let _ = read_records(data);
    let Some((&opcode, payload)) = data.split_first() else { return };
    for bits in [Bitness::B32, Bitness::B64] {
        if let Ok(p) = decode_payload(opcode, payload, bits) {
            let mut again = Vec::new();
            if encode_payload(&p, bits, &mut again).is_ok() {
                let back = decode_payload(opcode, &again, bits).expect("our bytes decode");
                assert_eq!(back, p, "decode -> encode -> decode is stable");
            }
        }
    }
});
