//! `bench_load`: the viewer server under load (issue 13).
//!
//!     cargo run --release -p tracescope-gen -- --events 10000000 /tmp/t10m.json
//!     cargo build --release -p tracescope --examples
//!     target/release/examples/bench_load /tmp/t10m.json [CLIENTS] [REQUESTS] [TRACESCOPE_BIN]
//!
//! Starts `tracescope view --no-open TRACE` (default binary: target/release/tracescope),
//! then runs CLIENTS (16) concurrent clients of REQUESTS (2,000) mixed tile, search
//! and details requests each, with hostile ones mixed in (see `driver.rs`). Prints
//! errors, latency per kind of request and the server's memory before and after.

mod driver;

use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(trace) = args.first() else {
        eprintln!("usage: bench_load TRACE [CLIENTS] [REQUESTS] [TRACESCOPE_BIN]");
        std::process::exit(2);
    };
    let clients = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(16);
    let requests = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let bin = args.get(3).map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/release/tracescope")
    });
    let t = std::time::Instant::now();
    let server = driver::Server::start(&bin, trace.as_ref());
    println!("server ready in {:.1} s", t.elapsed().as_secs_f64());
    let plan = driver::Plan::from_server(server.port);
    let before = server.memory_mb();
    println!(
        "{} tracks, {} slices; {clients} clients x {requests} requests",
        plan.tracks.len(),
        plan.slices
    );
    let report = driver::run(server.port, &plan, clients, requests, 4);
    let after = server.memory_mb();
    let errors = report.errors();
    println!(
        "{} requests in {:.1} s ({:.0}/s), {} errors, slowest {:.1} ms",
        report.requests(),
        report.wall.as_secs_f64(),
        report.requests() as f64 / report.wall.as_secs_f64(),
        errors.len(),
        report.max_ms()
    );
    println!("server memory before: {before}\nserver memory after:  {after}\n");
    print!("{}", report.table());
    for e in errors.iter().take(10) {
        println!("error: {e}");
    }
    // Still answering after all of it.
    let a = driver::Conn::open(server.port)
        .and_then(|mut c| c.get("/api/summary"))
        .map(|a| a.status);
    println!("\nafter the run: /api/summary -> {a:?}");
}
