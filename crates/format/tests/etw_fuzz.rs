//! Property tests: the ETW decoders never panic on any bytes, and random payloads
//! round-trip exactly.

use proptest::prelude::*;
use tracescope_format::etw::{
    decode_payload, encode_payload, read_records, Bitness, ChromePayload, ChromeType,
};

fn bits() -> impl Strategy<Value = Bitness> {
    prop_oneof![Just(Bitness::B32), Just(Bitness::B64)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn payload_decoder_never_panics(op in any::<u8>(), bytes in proptest::collection::vec(any::<u8>(), 0..96), b in bits()) {
        if let Err(e) = decode_payload(op, &bytes, b) {
            prop_assert!(e.offset <= bytes.len() as u64);
        }
    }

    #[test]
    fn record_reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..256), bits64 in any::<bool>()) {
        let mut file = b"TSETWREC\x01\x00".to_vec();
        file.push(if bits64 { 64 } else { 32 });
        file.extend_from_slice(&[0; 5]);
        file.extend_from_slice(&bytes);
        let _ = read_records(&file);
        let _ = read_records(&bytes);
    }

    #[test]
    fn payloads_round_trip(
        ty in 1u8..=15,
        name in "[^\x00]{0,12}",
        id in any::<u64>(),
        cats in "[a-z,]{0,10}",
        args in proptest::collection::vec(("[^\x00]{0,6}", "[^\x00]{0,6}"), 0..=7),
        stack in proptest::option::of(proptest::collection::vec(any::<u32>(), 0..5)),
        b in bits(),
    ) {
        let p = ChromePayload {
            ty: ChromeType::from_u8(ty).unwrap(),
            name: name.into(),
            id,
            categories: cats.into(),
            args: args.into_iter().map(|(k, v)| (k.into(), v.into())).collect(),
            stack: stack.map(|s| s.into_iter().map(u64::from).collect()),
        };
        let mut out = Vec::new();
        let op = encode_payload(&p, b, &mut out).unwrap();
        prop_assert_eq!(decode_payload(op.0, &out, b).unwrap(), p);
    }
}
