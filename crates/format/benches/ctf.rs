//! CTF write and read throughput, in MB/s of the JSON text the same events take,
//! and the size of CTF versus JSON.
//!
//! `cargo bench -p tracescope-format --bench ctf`

use std::borrow::Cow;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tracescope_format::ctf::{open_dir, read_dir, write_dir, CtfWriteOptions};
use tracescope_format::id::{Int64, Pid};
use tracescope_format::{Event, RawJson};

const EVENTS: usize = 400_000;

/// A Chrome-like mix (complete slices with source args, B/E pairs, counters,
/// instants) as Events, and the JSON text of the same events.
fn trace() -> (Vec<Event<'static>>, usize) {
    let mut events = Vec::with_capacity(EVENTS);
    let mut json = String::from("{\"traceEvents\":[\n");
    for i in 0..EVENTS {
        let ts = 1_000_000 + i as i64 * 1_250;
        let tid = 100 + (i % 8) as i64;
        let (ph, name, cat, args, dur): (&str, String, &str, Option<String>, Option<i64>) = match i
            % 5
        {
            0 | 1 => (
                "X",
                "ThreadControllerImpl::RunTask".into(),
                "toplevel",
                Some(format!(
                    r#"{{"src_file":"../../base/task/sequence_manager.cc","src_func":"PostTask","seq":{i}}}"#
                )),
                Some(900),
            ),
            2 => (
                "B",
                format!("Layout{}", i % 17),
                "blink,devtools.timeline",
                Some(r#"{"beginData":{"frame":"F2145804653F"}}"#.into()),
                None,
            ),
            3 => (
                "E",
                format!("Layout{}", (i - 1) % 17),
                "blink,devtools.timeline",
                None,
                None,
            ),
            _ => (
                "C",
                "JSHeap".into(),
                "v8",
                Some(format!(r#"{{"used":{},"total":{}}}"#, 1000 + i, 4096 + i)),
                None,
            ),
        };
        json.push_str(&format!(
            r#"{{"ph":"{ph}","name":"{name}","cat":"{cat}","ts":{}.{:03},"pid":4242,"tid":{tid}"#,
            ts / 1000,
            ts % 1000
        ));
        if let Some(d) = dur {
            json.push_str(&format!(r#","dur":{}.{:03}"#, d / 1000, d % 1000));
        }
        if let Some(a) = &args {
            json.push_str(&format!(r#","args":{a}"#));
        }
        json.push_str("},\n");
        events.push(Event {
            ph: Some(Cow::Borrowed(ph)),
            name: Some(Cow::Owned(name)),
            cat: Some(Cow::Borrowed(cat)),
            ts: Some(ts),
            dur,
            pid: Some(Pid::Int(Int64::I(4242))),
            tid: Some(Pid::Int(Int64::I(tid))),
            args: args.map(RawJson::owned),
            ..Event::default()
        });
    }
    json.push_str("]}\n");
    (events, json.len())
}

fn bench(c: &mut Criterion) {
    let (events, json_bytes) = trace();
    let dir = std::env::temp_dir().join(format!("tracescope-ctf-bench-{}", std::process::id()));
    let stats = write_dir(&dir, &events, &CtfWriteOptions::default()).unwrap();
    eprintln!(
        "{EVENTS} events: JSON {:.1} MB, CTF {:.1} MB ({:.0}% of JSON, {} records, {} packets)",
        json_bytes as f64 / 1e6,
        stats.bytes as f64 / 1e6,
        stats.bytes as f64 * 100.0 / json_bytes as f64,
        stats.records,
        stats.packets
    );
    let mut g = c.benchmark_group("ctf");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(json_bytes as u64));
    g.bench_function("write", |b| {
        b.iter(|| write_dir(&dir, black_box(&events), &CtfWriteOptions::default()).unwrap())
    });
    // As `tracescope view DIR` reads: open the files, decode events that borrow
    // from them, free both (all inside the timing).
    g.bench_function("read", |b| {
        b.iter(|| {
            let files = open_dir(black_box(&dir)).unwrap();
            let (events, diags) = files.events().unwrap();
            black_box((events.len(), diags.len()))
        })
    });
    // `read_dir`: the same, then every string copied so the events own them.
    g.bench_function("read_owned", |b| {
        b.iter(|| read_dir(black_box(&dir)).unwrap())
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
