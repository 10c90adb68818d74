//! The checks the fuzz targets run on each input (`fuzz/fuzz_targets/*`), here so
//! that the stable-Rust replay of the committed corpus
//! (`crates/format/tests/fuzz_corpus.rs`) runs exactly the same code. Each panics
//! when a property fails; none may hang or allocate without bound.

use std::sync::OnceLock;

use crate::ctf::{read_trace_bytes, write_dir, CtfWriteOptions};
use crate::etw::{decode_payload, encode_payload, read_records, Bitness};
use crate::json::{read_events, read_json, EventSink, JsonWriter, ReadOptions};
use crate::{Diagnostics, Event, RatioExceeded, Source, SourceOptions};

/// One fuzz target's check of one input.
pub type Check = fn(&[u8]);

/// Fuzz targets by name, for the replay.
pub const TARGETS: [(&str, Check); 4] = [
    ("read_json", read_json_target),
    ("read_ctf", read_ctf_target),
    ("read_etw", read_etw_target),
    ("decompress", decompress_target),
];

#[derive(Default)]
struct Collect<'a>(Vec<Event<'a>>);

impl<'a> EventSink<'a> for Collect<'a> {
    fn event(&mut self, event: Event<'a>, _: &mut Diagnostics) {
        self.0.push(event);
    }
}

/// The parallel reads run on rayon's global pool, made once with two threads: a
/// pool built per input would cost more than the read, and leaves thread-local
/// data that the leak checker reports.
fn global_pool() -> usize {
    static POOL: std::sync::Once = std::sync::Once::new();
    POOL.call_once(|| {
        // Already built (a test binary that used rayon first): use it as it is.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build_global();
    });
    0
}

fn events<'a>(
    text: &'a str,
    threads: usize,
    chunk_bytes: usize,
) -> Option<(Vec<Event<'a>>, Diagnostics)> {
    let trace = read_json(
        text,
        Collect::default,
        &ReadOptions {
            threads,
            chunk_bytes,
        },
    )
    .ok()?;
    Some((
        trace.parts.into_iter().flat_map(|p| p.0).collect(),
        trace.diagnostics,
    ))
}

/// Events as the writer puts them back: raw values compacted, offsets dropped.
fn written(events: &[Event<'_>]) -> Vec<u8> {
    let mut w = JsonWriter::new(Vec::new()).expect("writing to memory");
    for e in events {
        w.write_event(e).expect("writing to memory");
    }
    w.finish(&Default::default()).expect("writing to memory")
}

/// Any bytes: `read_json` must not panic or hang, a parallel read in tiny parts must
/// equal the sequential one, and what the writer makes of the events must read back
/// as the same events.
pub fn read_json_target(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Some((seq, diags)) = events(&text, 1, usize::MAX) else {
        return;
    };
    let (par, par_diags) =
        events(&text, global_pool(), 16).expect("the parallel read finds the same trace");
    assert!(par == seq, "parallel read differs");
    assert_eq!(par_diags, diags);

    // Events with no field at all are written as `{}` and (rightly) read as nothing.
    let kept: Vec<Event<'_>> = seq
        .into_iter()
        .filter(|e| {
            *e != Event {
                offset: e.offset,
                ..Event::default()
            }
        })
        .collect();
    let out = written(&kept);
    let out = std::str::from_utf8(&out).expect("the writer writes UTF-8");
    let (again, _) = events(out, 1, usize::MAX).expect("written output is a trace");
    assert_eq!(
        written(&again),
        out.as_bytes(),
        "write -> read -> write is stable"
    );
    assert_eq!(again.len(), kept.len());
}

/// Metadata and stream of a small trace written by tracescope: a valid start.
fn ctf_written() -> &'static (Vec<u8>, Vec<u8>) {
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
        let stream = std::fs::read(dir.join("chrome_0")).expect("stream");
        let _ = std::fs::remove_dir_all(&dir);
        (meta, stream)
    })
}

/// Any bytes as a CTF stream under tracescope's own metadata (first byte even), or
/// as metadata text with tracescope's stream (first byte odd): no panic, no hang.
pub fn read_ctf_target(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (meta, stream) = ctf_written();
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
}

/// Any bytes as an ETW record file and as one Chrome event payload: no panic, no
/// hang; a payload that decodes encodes to bytes that decode to the same payload
/// (not always the same bytes: invalid UTF-8 in strings is read as U+FFFD).
pub fn read_etw_target(data: &[u8]) {
    let _ = read_records(data);
    let Some((&opcode, payload)) = data.split_first() else {
        return;
    };
    for bits in [Bitness::B32, Bitness::B64] {
        if let Ok(p) = decode_payload(opcode, payload, bits) {
            let mut again = Vec::new();
            if encode_payload(&p, bits, &mut again).is_ok() {
                let back = decode_payload(opcode, &again, bits).expect("our bytes decode");
                assert_eq!(back, p, "decode -> encode -> decode is stable");
            }
        }
    }
}

/// Any bytes as a gzip or zstd stream (the first byte picks which magic goes in
/// front, or none): no panic, no hang, and never more text than the ratio allows.
pub fn decompress_target(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut bytes = match mode % 3 {
        0 => vec![0x1f, 0x8b],
        1 => vec![0x28, 0xb5, 0x2f, 0xfd],
        _ => Vec::new(),
    };
    bytes.extend_from_slice(rest);
    let len = bytes.len() as u64;
    // Small limits, so a stream that expands well meets them within a run.
    let (ratio, floor) = (20, 1 << 16);
    // Any size is decoded in the background when it is known ahead, so the fuzzer
    // drives that path too.
    let opts = SourceOptions {
        max_ratio: ratio,
        always_allowed: floor,
        pipeline_from: 0,
    };
    match Source::from_bytes_with(bytes, &opts) {
        // Invalid UTF-8 becomes U+FFFD: up to three bytes of text per byte.
        Ok(s) => assert!(s.text().len() as u64 <= 3 * (len * ratio).max(floor)),
        Err(e) => {
            if let Some(r) = RatioExceeded::of(&e) {
                assert!(r.decompressed <= (r.consumed * ratio).max(floor) + (1 << 20));
            }
        }
    }
}
