//! Record `tracing` spans and events with tracescope-record's layer.
//!
//!     cargo run -p tracescope-record --features tracing --example tracing_layer -- layer.json
//!     tracescope view layer.json

use tracing_subscriber::layer::SubscriberExt;

#[tracing::instrument]
fn fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

fn main() -> std::io::Result<()> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "layer.json".into());
    let guard = tracescope_record::Builder::new().to_file(&path)?;
    let subscriber = tracing_subscriber::registry().with(tracescope_record::TracescopeLayer::new());
    tracing::subscriber::set_global_default(subscriber).expect("no other global subscriber");

    let handles: Vec<_> = (0..2)
        .map(|t| {
            std::thread::spawn(move || {
                let span = tracing::info_span!("thread_work", t);
                let _entered = span.enter();
                tracing::info!(result = fib(12 + t), "computed");
            })
        })
        .collect();
    for h in handles {
        h.join().expect("thread panicked");
    }
    // One span entered on two threads: an async operation on the trace.
    let shared = tracing::info_span!("request", id = 42);
    shared.in_scope(|| tracing::info!("first half"));
    let moved = shared.clone();
    std::thread::spawn(move || moved.in_scope(|| tracing::info!("second half")))
        .join()
        .expect("thread panicked");
    drop(shared);
    eprintln!("{:?}", guard.finish());
    Ok(())
}
