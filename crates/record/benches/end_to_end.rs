//! Whole-process CPU per span, background threads included: the recording
//! thread's cost plus the work of the thread that formats and writes the file,
//! for our `tracing` layer, our `trace_event!`, and `tracing-chrome` (whose
//! thread builds and serializes a JSON value per event). fastrace is left out:
//! it writes no Chrome JSON.
//!
//!     cargo bench -p tracescope-record --features tracing --bench end_to_end

use tracescope_record::{trace_event, Builder, TracescopeLayer};
use tracing_subscriber::layer::SubscriberExt;

const SPANS: u64 = 200_000;

/// CPU time of the whole process so far, in seconds.
fn process_cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer; the clock exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(name)
}

/// ns of process CPU per span, from the first span to the file being complete.
fn ours(layer: bool) -> f64 {
    let guard = Builder::new()
        .signals(false)
        .buffer_size(64 << 20)
        .to_file(path("tracescope-e2e.json"))
        .unwrap();
    let t = process_cpu();
    if layer {
        let subscriber = tracing_subscriber::registry().with(TracescopeLayer::new());
        tracing::subscriber::with_default(subscriber, || {
            for _ in 0..SPANS {
                let _span = tracing::info_span!("work").entered();
            }
        });
    } else {
        for _ in 0..SPANS {
            trace_event!("bench", "work");
        }
    }
    let stats = guard.finish();
    let cpu = process_cpu() - t;
    assert_eq!(stats.dropped, 0);
    assert_eq!(stats.events, 2 * SPANS);
    cpu * 1e9 / SPANS as f64
}

fn tracing_chrome() -> f64 {
    let t = process_cpu();
    let (layer, flush) = tracing_chrome::ChromeLayerBuilder::new()
        .file(path("tracescope-e2e-chrome.json"))
        .include_args(false)
        .build();
    let subscriber = tracing_subscriber::registry().with(layer);
    tracing::subscriber::with_default(subscriber, || {
        for _ in 0..SPANS {
            let _span = tracing::info_span!("work").entered();
        }
    });
    drop(flush); // waits for its writer thread to finish the file
    (process_cpu() - t) * 1e9 / SPANS as f64
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    println!("process CPU ns per span (200k spans, file complete), 5 runs");
    println!("run | tracescope layer | trace_event! | tracing-chrome | chrome/layer");
    for run in 0..5 {
        let (layer, scope, chrome) = (ours(true), ours(false), tracing_chrome());
        println!(
            "#{run} | {layer:.0} | {scope:.0} | {chrome:.0} | {:.1}x",
            chrome / layer
        );
    }
    for f in ["tracescope-e2e.json", "tracescope-e2e-chrome.json"] {
        let _ = std::fs::remove_file(path(f));
    }
}
