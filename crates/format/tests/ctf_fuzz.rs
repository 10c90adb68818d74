//! Property tests: the CTF reader never panics, whatever the metadata text or the
//! stream bytes (damaged copies of an LTTng-style trace and of one we write). The
//! LTTng-style trace is a real one from the external corpus when `../shared` is
//! there, else the fixture `binary/ctf/generic-lttng-style` (said in one line).

mod ctf_support;

use std::sync::OnceLock;

use proptest::prelude::*;
use tracescope_format::ctf::read_trace_bytes;
use tracescope_format::ctf::tsdl::parse_metadata;
use tracescope_format::Diagnostics;

/// A trace we write (small packets, so several), built once for all cases.
fn ours() -> (Vec<u8>, Vec<u8>) {
    static OURS: OnceLock<(Vec<u8>, Vec<u8>)> = OnceLock::new();
    OURS.get_or_init(write_ours).clone()
}

fn write_ours() -> (Vec<u8>, Vec<u8>) {
    let events = ctf_support::events_of(
        r#"[{"ph":"X","name":"a","cat":"c","ts":1,"dur":2,"pid":1,"tid":1,"args":{"k":"v","n":[1]}},
            {"ph":"I","name":"b","ts":5,"pid":1,"tid":1,"stack":[1,2,3]},
            {"ph":"C","name":"c","ts":6,"pid":1,"tid":1,"args":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}}]"#,
    );
    let (meta, stream) = ctf_support::written(&events, 256);
    (meta.into_bytes(), stream)
}

fn lttng() -> (Vec<u8>, Vec<u8>) {
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    let d = DIR.get_or_init(|| {
        tracescope_testdata::corpus(
            "corpus/ctf/wk-heartbeat-u",
            "damaging a real LTTng trace (the fixture is damaged instead)",
        )
        .unwrap_or_else(|| tracescope_testdata::fixture("binary/ctf/generic-lttng-style"))
    });
    let stream = std::fs::read_dir(d)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().unwrap() != "metadata")
        .unwrap();
    (
        std::fs::read(d.join("metadata")).unwrap(),
        std::fs::read(stream).unwrap(),
    )
}

fn damage(mut b: Vec<u8>, edits: &[(usize, u8)], cut: usize) -> Vec<u8> {
    for &(at, v) in edits {
        if !b.is_empty() {
            let i = at % b.len();
            b[i] = v;
        }
    }
    let keep = b.len().saturating_sub(cut % 64);
    b.truncate(keep);
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn damaged_streams_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..12), cut in any::<usize>(), which in any::<bool>()) {
        let (meta, stream) = if which { ours() } else { lttng() };
        let bad = damage(stream, &edits, cut);
        let mut diags = Diagnostics::new();
        let _ = read_trace_bytes(&meta, &[("s", &bad)], &mut diags);
    }

    #[test]
    fn damaged_metadata_never_panics(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8), cut in any::<usize>(), which in any::<bool>()) {
        let (meta, stream) = if which { ours() } else { lttng() };
        let bad = damage(meta, &edits, cut);
        let mut diags = Diagnostics::new();
        let _ = read_trace_bytes(&bad, &[("s", &stream)], &mut diags);
    }

    #[test]
    fn any_metadata_text_never_panics(text in "[a-z_{}();:=<>\\[\\]., 0-9\"x-]{0,200}") {
        let _ = parse_metadata(&text);
    }
}

/// Regression (found by `cargo fuzz run read_ctf`): a packetized metadata file cut
/// inside its packet header panicked on a reversed slice.
#[test]
fn packetized_metadata_cut_inside_its_header_is_an_error() {
    let mut m = Vec::new();
    m.extend_from_slice(&0x75D1_1D57u32.to_le_bytes()); // metadata packet magic
    m.extend_from_slice(&[0; 20]); // uuid, checksum
    m.extend_from_slice(&(40u32 * 8).to_le_bytes()); // content size in bits
    m.extend_from_slice(&(40u32 * 8).to_le_bytes()); // packet size in bits
    m.extend_from_slice(&[0, 0, 0]); // compression, encryption, checksum scheme
    let mut diags = Diagnostics::default();
    let err = read_trace_bytes(&m, &[], &mut diags).unwrap_err();
    assert!(err.to_string().contains("cut off"), "{err}");
}
