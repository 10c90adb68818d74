//! Sustained rate to a file.
//!
//! - burst: 8 threads record 1M instants each as fast as they can, with rings
//!   large enough to hold them, into a file (and, to separate formatting from
//!   I/O, into `io::sink()`); the rate is events written per wall second from
//!   the start to the end of the trace (the final drain included).
//! - writer: the writer's CPU per event, alone (one thread, `io::sink()`).
//! - paced: 8 threads record at a paced total rate for one second each run;
//!   the highest rate with no drop is the sustained rate.
//!
//!     cargo bench -p tracescope-record --bench throughput [-- burst|paced|writer]

use std::time::{Duration, Instant};

use tracescope_record::{trace_instant, Builder};

const THREADS: u64 = 8;
const CHUNK: u64 = 4096;

fn run(rate: u64, secs: f64, ring_bytes: usize) -> (f64, u64, u64, u64) {
    let path = std::env::temp_dir().join("tracescope-bench-throughput.json");
    let guard = Builder::new()
        .signals(false)
        .buffer_size(ring_bytes)
        .to_file(&path)
        .unwrap();
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

/// CPU time of the whole process so far.
fn process_cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer; the clock exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// 8 threads x 1M instants, unpaced; returns (M events/s, CPU s, dropped, bytes).
fn burst(to_file: bool, writer_threads: usize) -> (f64, f64, u64, u64) {
    const PER_THREAD: u64 = 1_000_000;
    let path = std::env::temp_dir().join("tracescope-bench-burst.json");
    let builder = Builder::new()
        .signals(false)
        .buffer_size(32 << 20)
        .writer_threads(writer_threads);
    let guard = if to_file {
        builder.to_file(&path).unwrap()
    } else {
        builder.to_writer(std::io::sink()).unwrap()
    };
    tracescope_record::flush();
    let cpu = process_cpu();
    let start = Instant::now();
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            std::thread::spawn(|| {
                for i in 0..PER_THREAD {
                    trace_instant!("tp", "e", "i" => i);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let stats = guard.finish();
    let elapsed = start.elapsed().as_secs_f64();
    let cpu = process_cpu() - cpu;
    let _ = std::fs::remove_file(&path);
    assert_eq!(stats.events + stats.dropped, THREADS * PER_THREAD);
    (
        stats.events as f64 / elapsed / 1e6,
        cpu,
        stats.dropped,
        stats.bytes,
    )
}

/// CPU cost per event of the writer alone: one thread records 2M instants into
/// a ring that holds them all, then the session ends and one writer thread
/// formats them to `io::sink()`. Returns process CPU ns per event for the
/// recording and for the drain.
fn writer_cost() -> (f64, f64) {
    const N: u64 = 2_000_000;
    let guard = Builder::new()
        .signals(false)
        .buffer_size(128 << 20)
        .flush_interval(Duration::from_millis(100))
        .writer_threads(1)
        .to_writer(std::io::sink())
        .unwrap();
    trace_instant!("tp", "warm");
    tracescope_record::flush();
    let t0 = process_cpu();
    for i in 0..N {
        trace_instant!("tp", "e", "i" => i);
    }
    let t1 = process_cpu();
    let stats = guard.finish();
    let t2 = process_cpu();
    assert_eq!(stats.dropped, 0);
    ((t1 - t0) * 1e9 / N as f64, (t2 - t1) * 1e9 / N as f64)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list` asks benches for their names
    }
    let only = |name: &str| {
        let picked: Vec<String> = std::env::args()
            .skip(1)
            .filter(|a| ["burst", "paced", "writer"].contains(&a.as_str()))
            .collect();
        picked.is_empty() || picked.iter().any(|a| a == name)
    };
    if only("writer") {
        // The writer may have drained part of the events while they were
        // recorded: the sum of both columns is what counts.
        println!("writer: 2M instants (one int arg) formatted to io::sink()");
        println!("run | record CPU ns/event | drain CPU ns/event | total");
        for run in 0..5 {
            let (rec, drain) = writer_cost();
            println!("#{run} | {rec:.1} | {drain:.1} | {:.1}", rec + drain);
        }
    }
    if only("burst") {
        println!("burst: 8 threads x 1M instants (one int arg), 32 MiB rings");
        println!("sink | writer threads | M events/s (wall) | CPU s | dropped | MB written");
        for run in 0..3 {
            for to_file in [true, false] {
                for writers in [1, 2] {
                    let (rate, cpu, dropped, bytes) = burst(to_file, writers);
                    println!(
                        "{} | {writers} #{run} | {rate:>6.1} | {cpu:.3} | {dropped} | {:.0}",
                        if to_file { "file" } else { "null" },
                        bytes as f64 / 1e6
                    );
                }
            }
        }
    }
    if !only("paced") {
        return;
    }
    // The default ring (4 MiB, about 90 ms of one thread's events at 15 M/s
    // in total) and a larger one that rides out longer scheduling stalls.
    for ring_mib in [4, 16] {
        println!("8 threads, paced, 1 s per run, instants to a file, {ring_mib} MiB rings");
        println!("target M/s | achieved M/s | events | dropped | MB written");
        let mut best = 0.0;
        for target in [5, 10, 15, 20, 25, 30, 40, 60, 80] {
            let (achieved, events, dropped, bytes) = run(target * 1_000_000, 1.0, ring_mib << 20);
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
}
