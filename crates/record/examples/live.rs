//! A program that runs for a while, for watching its trace grow:
//!
//!     cargo run --release -p tracescope-record --example live -- live.json 30 &
//!     tracescope view --follow live.json
//!
//! Every 50 ms a "frame" (update, then layout or paint) on the main thread and a
//! "job" on a worker, for the given number of seconds (default 30).

use std::time::{Duration, Instant};

use tracescope_record::{set_process_name, set_thread_name, trace_counter, trace_event, Builder};

fn spin(us: u64) {
    let end = Instant::now() + Duration::from_micros(us);
    while Instant::now() < end {
        std::hint::spin_loop();
    }
}

fn frame(n: u64) {
    trace_event!("live", "frame", "n" => n);
    {
        trace_event!("live", "update");
        spin(2000 + 300 * (n % 7));
    }
    if n.is_multiple_of(3) {
        trace_event!("live", "layout");
        spin(4000);
    } else {
        trace_event!("live", "paint");
        spin(1500);
    }
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "live.json".into());
    let secs: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(30);
    let guard = Builder::new().to_file(&path)?;
    set_process_name("live example");
    set_thread_name("main");
    let until = Instant::now() + Duration::from_secs(secs);
    let worker = std::thread::spawn(move || {
        set_thread_name("worker");
        let mut k = 0u64;
        while Instant::now() < until {
            {
                trace_event!("live", "job", "k" => k);
                spin(8000);
            }
            k += 1;
            std::thread::sleep(Duration::from_millis(30));
        }
    });
    let mut n = 0u64;
    while Instant::now() < until {
        frame(n);
        trace_counter!("live", "frames", "done" => n + 1);
        n += 1;
        std::thread::sleep(Duration::from_millis(40));
    }
    worker.join().ok();
    let stats = guard.finish();
    eprintln!("{} events in {path}", stats.events);
    Ok(())
}
