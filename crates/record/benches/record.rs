//! Per-event cost of tracescope-record's trace points, its `tracing` layer, and
//! the peers `tracing-chrome` and `fastrace`, measured in the same run.
//!
//!     cargo bench -p tracescope-record --features tracing --bench record
//!
//! Timed in CPU time of the recording thread (`CLOCK_THREAD_CPUTIME_ID`), not
//! wall time: the machine this runs on is shared, and time spent descheduled is
//! not a cost of the trace point. Work done by a peer's or our own background
//! thread is not counted for anyone. Our events are timed in batches that fit
//! the thread's buffer and the writer drains between batches (untimed), so the
//! numbers are the hot-path cost and no event is dropped (checked at the end).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use fastrace::collector::{Config, Reporter, SpanContext, SpanRecord};
use fastrace::local::LocalSpan;
use fastrace::Span;
use tracescope_record::{trace_event, trace_instant, Builder, TracescopeLayer};
use tracing_subscriber::layer::SubscriberExt;

const BATCH: u64 = 50_000;

/// CPU time consumed by the calling thread so far.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer; the clock exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Runs `iters` calls of `f` in batches, flushing (untimed) between batches.
fn batched(iters: u64, mut f: impl FnMut(u64)) -> Duration {
    let mut total = Duration::ZERO;
    let mut done = 0;
    while done < iters {
        let n = BATCH.min(iters - done);
        let t = thread_cpu();
        for i in 0..n {
            f(i);
        }
        total += thread_cpu() - t;
        tracescope_record::flush();
        done += n;
    }
    total
}

/// Runs `iters` calls of `f`, timed in thread CPU time.
fn cpu_timed(iters: u64, mut f: impl FnMut()) -> Duration {
    let t = thread_cpu();
    for _ in 0..iters {
        f();
    }
    thread_cpu() - t
}

fn tmp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(name)
}

fn record(c: &mut Criterion) {
    let guard = Builder::new()
        .buffer_size(64 << 20)
        .categories("*,-off")
        .to_file(tmp("tracescope-bench-record.json"))
        .unwrap();
    let mut g = c.benchmark_group("tracescope_record");
    // What one read of the clock costs here: the floor of any timestamped event.
    #[cfg(target_arch = "x86_64")]
    g.bench_function("rdtsc_only", |b| {
        // SAFETY: rdtsc has no preconditions on x86_64.
        b.iter_custom(|iters| {
            cpu_timed(iters, || {
                black_box(unsafe { core::arch::x86_64::_rdtsc() });
            })
        })
    });
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
        b.iter_custom(|iters| {
            cpu_timed(iters, || {
                trace_instant!("off", "never", "i" => black_box(1u64));
            })
        })
    });
    g.finish();

    // The same span, through three `tracing` layers and fastrace.
    let mut g = c.benchmark_group("span");
    {
        // The registry alone, no layer: what any `tracing` layer costs at least.
        let _default = tracing::subscriber::set_default(tracing_subscriber::registry());
        g.bench_function("registry_only", |b| {
            b.iter_custom(|iters| {
                cpu_timed(iters, || {
                    let _span = tracing::info_span!("work").entered();
                })
            })
        });
    }
    {
        let subscriber = tracing_subscriber::registry().with(TracescopeLayer::new());
        let _default = tracing::subscriber::set_default(subscriber);
        g.bench_function("tracescope_layer", |b| {
            b.iter_custom(|iters| {
                batched(iters, |_| {
                    let _span = tracing::info_span!("work").entered();
                })
            })
        });
    }
    let stats = guard.finish();
    assert_eq!(stats.dropped, 0, "benchmark events were dropped: {stats:?}");
    eprintln!("tracescope_record: {stats:?}");

    {
        let (layer, flush) = tracing_chrome::ChromeLayerBuilder::new()
            .file(tmp("tracescope-bench-tracing-chrome.json"))
            .include_args(false)
            .build();
        let subscriber = tracing_subscriber::registry().with(layer);
        let _default = tracing::subscriber::set_default(subscriber);
        g.bench_function("tracing_chrome", |b| {
            b.iter_custom(|iters| {
                cpu_timed(iters, || {
                    let _span = tracing::info_span!("work").entered();
                })
            })
        });
        drop(flush);
    }

    {
        struct Discard;
        impl Reporter for Discard {
            fn report(&mut self, spans: Vec<SpanRecord>) {
                black_box(spans);
            }
        }
        fastrace::set_reporter(Discard, Config::default());
        // Local spans are collected under a root; 1000 per root amortise it.
        g.bench_function("fastrace", |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut done = 0;
                while done < iters {
                    let n = 1000.min(iters - done);
                    let t = thread_cpu();
                    let root = Span::root("root", SpanContext::random());
                    let parent = root.set_local_parent();
                    for _ in 0..n {
                        let _span = LocalSpan::enter_with_local_parent("work");
                    }
                    drop(parent);
                    drop(root);
                    total += thread_cpu() - t;
                    done += n;
                }
                total
            })
        });
        fastrace::flush();
    }
    g.finish();
}

criterion_group!(benches, record);
criterion_main!(benches);
