//! Any bytes as a CTF stream under tracescope's own metadata (first byte even), or
//! as metadata text with an empty stream (first byte odd): no panic, no hang.
//!
//! Run (nightly): `cargo +nightly fuzz run read_ctf -- -max_total_time=300`.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tracescope_format::ctf::{read_trace_bytes, write_dir, CtfWriteOptions};
use tracescope_format::json::read_events;
use tracescope_format::Diagnostics;

/// Metadata and stream of a small trace written by tracescope: a valid start.
fn written() -> &'static (Vec<u8>, Vec<u8>) {
    static W: OnceLock<(Vec<u8>, Vec<u8>)> = OnceLock::new();
    W.get_or_init(|| {
        let text = r#"[{"ph":"X","pid":1,"tid":2,"name":"a","cat":"c","ts":1,"dur":2,"args":{"k":1}},
            {"ph":"i","pid":1,"tid":2,"name":"b","ts":3,"s":"g"},
            {"ph":"C","pid":1,"name":"c","ts":4,"args":{"v":5}}]"#;
        let mut events = Vec::new();
        read_events(text, |e, _| events.push(e)).expect("a trace");
        let dir = std::env::temp_dir().join(format!("tracescope-fuzz-ctf-{}", std::process::id()));
        write_dir(&dir, &events, &CtfWriteOptions::default()).expect("writes");
        let meta = std::fs::read(dir.join("metadata")).expect("metadata");
        let stream = std::fs::read_dir(&dir)
            .expect("dir")
            .map(|e| e.expect("entry").path())
            .find(|p| p.file_name().is_some_and(|n| n != "metadata"))
            .map(|p| std::fs::read(p).expect("stream"))
            .expect("a stream file");
        (meta, stream)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let (meta, stream) = written();
    let mut diags = Diagnostics::default();
    if mode % 2 == 0 {
        // Mutations of a real stream reach deeper than random bytes.
        let mut s = stream.clone();
        for (i, &b) in rest.iter().enumerate() {
            let k = (i * 7919 + b as usize) % s.len().max(1);
            if let Some(x) = s.get_mut(k) {
                *x ^= b;
            }
        }
        let _ = read_trace_bytes(meta, &[("stream", &s)], &mut diags);
        let _ = read_trace_bytes(meta, &[("stream", rest)], &mut diags);
    } else {
        let _ = read_trace_bytes(rest, &[("stream", stream)], &mut diags);
    }
});
