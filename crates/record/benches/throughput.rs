//! Sustained rate to a file: 8 threads record instants at a paced total rate
//! for one second each run; reports the rate achieved, drops and bytes. The
//! highest rate with no drop is the sustained rate.
//!
//!     cargo bench -p tracescope-record --bench throughput

use std::time::{Duration, Instant};

use tracescope_record::{trace_instant, Builder};

const THREADS: u64 = 8;
const CHUNK: u64 = 4096;

fn run(rate: u64, secs: f64) -> (f64, u64, u64, u64) {
    let path = std::env::temp_dir().join("tracescope-bench-throughput.json");
    let guard = Builder::new().signals(false).to_file(&path).unwrap();
    tracescope_record::flush(); // the writer is up before the clock starts
    let per_thread = (rate as f64 * secs) as u64 / THREADS;
    let start = Instant::now();
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            std::thread::spawn(move || {
                let per_sec = rate as f64 / THREADS as f64;
                let mut sent = 0;
                while sent < per_thread {
                    for _ in 0..CHUNK {
                        trace_instant!("tp", "e");
                    }
                    sent += CHUNK;
                    // Pace: sleep (leaving the CPU to the writer) until these are due.
                    let due = Duration::from_secs_f64(sent as f64 / per_sec);
                    if let Some(wait) = due.checked_sub(start.elapsed()) {
                        std::thread::sleep(wait);
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let stats = guard.finish(); // includes draining everything to the file
    let elapsed = start.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(&path);
    (
        stats.events as f64 / elapsed,
        stats.events,
        stats.dropped,
        stats.bytes,
    )
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list` asks benches for their names
    }
    println!("8 threads, paced, 1 s per run, instants to a file");
    println!("target M/s | achieved M/s | events | dropped | MB written");
    let mut best = 0.0;
    for target in [5, 10, 15, 20, 25, 30, 40, 60, 80] {
        let (achieved, events, dropped, bytes) = run(target * 1_000_000, 1.0);
        println!(
            "{target:>10} | {:>12.1} | {events:>9} | {dropped:>7} | {:>10.0}",
            achieved / 1e6,
            bytes as f64 / 1e6
        );
        if dropped == 0 && achieved > best {
            best = achieved;
        }
        if dropped > events / 10 {
            break;
        }
    }
    println!("sustained without drops: {:.1} M events/s", best / 1e6);
}
