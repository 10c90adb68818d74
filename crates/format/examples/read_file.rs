//! Reads a JSON trace on one thread into a sink that only counts events: the reader's
//! own cost, for profilers (`valgrind --tool=callgrind`, `perf stat`).
//!
//! Run: `cargo run --release -p tracescope-format --example read_file -- FILE [REPEATS]
//! [--unchecked]`. With `--unchecked` the bytes are read as a big mapped file is, not
//! known to be UTF-8 ([`Prefix::unchecked`], through `read_early`): the lexer checks
//! string bodies itself.

use std::sync::atomic::{AtomicU64, Ordering};

use tracescope_format::json::{read_early, read_json, EventSink, Prefix, ReadOptions};
use tracescope_format::{Diagnostics, Event};

/// Events counted by sinks that are gone.
static EVENTS: AtomicU64 = AtomicU64::new(0);

struct Count(u64);

impl<'a> EventSink<'a> for Count {
    fn event(&mut self, event: Event<'a>, _: &mut Diagnostics) {
        self.0 += 1;
        std::hint::black_box(event);
    }

    fn event_in_place(&mut self, event: &mut Event<'a>, _: &mut Diagnostics) {
        self.0 += 1;
        std::hint::black_box(&*event);
        *event = Event::default();
    }
}

impl Drop for Count {
    fn drop(&mut self) {
        EVENTS.fetch_add(self.0, Ordering::Relaxed);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let unchecked = args.iter().any(|a| a == "--unchecked");
    let mut plain = args.iter().filter(|a| !a.starts_with("--"));
    let path = plain
        .next()
        .expect("usage: read_file FILE [REPEATS] [--unchecked]");
    let repeats: usize = plain.next().map_or(1, |r| r.parse().expect("REPEATS"));
    let bytes = std::fs::read(path).expect("read the file");
    let opts = ReadOptions {
        threads: 1,
        ..ReadOptions::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a thread pool");
    let text = (!unchecked).then(|| std::str::from_utf8(&bytes).expect("UTF-8"));
    for _ in 0..repeats {
        EVENTS.store(0, Ordering::Relaxed);
        let start = std::time::Instant::now();
        match text {
            Some(text) => {
                read_json(text, || Count(0), &opts).expect("a trace");
            }
            None => {
                let prefix = Prefix::unchecked(&bytes);
                let parts = pool
                    .install(|| read_early(|_| Some(prefix), bytes.len(), &opts, |_, _| Count(0)));
                drop(parts);
            }
        }
        eprintln!(
            "{} events, {:.1} ms",
            EVENTS.load(Ordering::Relaxed),
            start.elapsed().as_secs_f64() * 1e3
        );
    }
}
