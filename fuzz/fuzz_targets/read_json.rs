//! Any bytes: `read_json` must not panic or hang, a parallel read in tiny parts must
//! equal the sequential one, and what the writer makes of the events must read back
//! as the same events.
//!
//! Run (nightly): `cargo +nightly fuzz run read_json -- -max_total_time=300`
//! from the repository root, seeded with the fixtures:
//! `cargo +nightly fuzz run read_json tests/fixtures/phases`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tracescope_format::json::{read_json, EventSink, JsonWriter, ReadOptions};
use tracescope_format::{Diagnostics, Event};

#[derive(Default)]
struct Collect<'a>(Vec<Event<'a>>);

impl<'a> EventSink<'a> for Collect<'a> {
    fn event(&mut self, event: Event<'a>, _: &mut Diagnostics) {
        self.0.push(event);
    }
}

fn events<'a>(text: &'a str, threads: usize, chunk_bytes: usize) -> Option<(Vec<Event<'a>>, Diagnostics)> {
    let trace = read_json(text, Collect::default, &ReadOptions { threads, chunk_bytes }).ok()?;
    Some((trace.parts.into_iter().flat_map(|p| p.0).collect(), trace.diagnostics))
}

/// Events as the writer puts them back: raw values compacted, offsets dropped.
fn written(events: &[Event<'_>]) -> Vec<u8> {
    let mut w = JsonWriter::new(Vec::new()).expect("writing to memory");
    for e in events {
        w.write_event(e).expect("writing to memory");
    }
    w.finish(&Default::default()).expect("writing to memory")
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Some((seq, diags)) = events(&text, 1, usize::MAX) else { return };
    let (par, par_diags) = events(&text, 2, 16).expect("the parallel read finds the same trace");
    assert!(par == seq, "parallel read differs");
    assert_eq!(par_diags, diags);

    // Events with no field at all are written as `{}` and (rightly) read as nothing.
    let kept: Vec<Event<'_>> =
        seq.into_iter().filter(|e| *e != Event { offset: e.offset, ..Event::default() }).collect();
    let out = written(&kept);
    let out = std::str::from_utf8(&out).expect("the writer writes UTF-8");
    let (again, _) = events(out, 1, usize::MAX).expect("written output is a trace");
    assert_eq!(written(&again), out.as_bytes(), "write -> read -> write is stable");
    assert_eq!(again.len(), kept.len());
});
