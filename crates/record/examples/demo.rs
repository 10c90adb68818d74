//! Instrument a small multi-threaded program and record its trace.
//!
//!     cargo run --release -p tracescope-record --example demo -- demo.json
//!     tracescope view demo.json
//!
//! Categories can be chosen at run time: `TRACESCOPE_CATEGORIES='*,-verbose'`.

use std::time::Duration;

use tracescope_record::{
    display, set_process_name, set_thread_name, trace_async_begin, trace_async_end,
    trace_async_step, trace_counter, trace_counter_id, trace_event, trace_flow_end,
    trace_flow_start, trace_instant, trace_legacy_async_begin, trace_legacy_async_end,
    trace_legacy_async_step_into, trace_object_delete, trace_object_new, trace_object_snapshot,
    Builder,
};

fn parse_block(block: u64) -> u64 {
    trace_event!("demo", "parse_block", "block" => block);
    let mut sum = 0u64;
    for i in 0..20_000 * (block % 3 + 1) {
        sum = sum.wrapping_mul(31).wrapping_add(i);
    }
    trace_instant!("verbose", "parsed", "checksum" => sum);
    sum
}

fn main() -> std::io::Result<()> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "demo.json".into());
    let guard = Builder::new().process_name("demo").to_file(&path)?;
    set_process_name("tracescope-record demo");
    set_thread_name("main");

    trace_object_new!("demo", "Cache", 1u64);
    let mut workers = Vec::new();
    for w in 0..3u64 {
        {
            // Each job's flow starts here and ends in the worker's job slice.
            trace_event!("demo", "dispatch", "worker" => w);
            for job in 0..5u64 {
                trace_flow_start!("demo", "dispatch", w * 100 + job);
            }
        }
        let worker = std::thread::Builder::new()
            .name(format!("worker-{w}"))
            .spawn(move || {
                for job in 0..5u64 {
                    let id = w * 100 + job;
                    trace_event!("demo", "job", "worker" => w, "job" => job);
                    trace_flow_end!("demo", "dispatch", id);
                    parse_block(id);
                    trace_counter_id!("demo", "jobs done", w, "jobs" => job + 1);
                    std::thread::sleep(Duration::from_millis(2));
                }
                // A v2 flow: the worker's report slice points at the merge.
                trace_event!("demo", "report", flow_out = 1000 + w, "worker" => w);
            })?;
        workers.push(worker);
    }

    trace_async_begin!("net", "download", 7u64, "url" => "https://example.invalid/data");
    for step in 0..4u64 {
        trace_counter!("demo", "progress", "bytes" => step * 1024, "ratio" => step as f64 / 4.0);
        trace_async_step!("net", "chunk", 7u64, "n" => step);
        trace_object_snapshot!("demo", "Cache", 1u64, "entries" => step, "state" => display(format_args!("warm {step}")));
        std::thread::sleep(Duration::from_millis(3));
    }
    trace_async_end!("net", "download", 7u64, "status" => 200);

    trace_legacy_async_begin!("demo", "merge", 1u64);
    for w in workers {
        w.join().expect("worker panicked");
    }
    for w in 0..3u64 {
        trace_legacy_async_step_into!("demo", "merge", 1u64, format!("worker {w}"));
        trace_event!("demo", "merge_results", flow_in = 1000 + w, "worker" => w);
    }
    trace_legacy_async_end!("demo", "merge", 1u64);
    trace_object_delete!("demo", "Cache", 1u64);
    trace_instant!(global: "demo", "done");
    let stats = guard.finish();
    eprintln!(
        "wrote {} events ({} dropped) to {path}",
        stats.events, stats.dropped
    );
    Ok(())
}
