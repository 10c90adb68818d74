//! Times loading a trace and one query on it, separately (wall and CPU time of the
//! process), for benchmarks on a busy machine where whole-process wall time is noisy.
//!
//! `cargo run --release -p tracescope-sql --example time_query -- TRACE.json "SQL"`

use std::sync::Arc;
use std::time::Instant;

use tracescope_model::{LoadOptions, Trace};
use tracescope_sql::{Database, Loaded, Output};

struct Owned(Trace);
impl AsRef<Trace> for Owned {
    fn as_ref(&self) -> &Trace {
        &self.0
    }
}

use tracescope_testdata::process_cpu_seconds as cpu;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, sql) = (&args[0], &args[1]);
    let (w0, c0) = (Instant::now(), cpu());
    let source = tracescope_format::Source::open(path).expect("opens");
    let trace = Trace::from_source(source, &LoadOptions::default()).expect("loads");
    let (w1, c1) = (Instant::now(), cpu());
    let db = Database::open(vec![Loaded::new("t", Arc::new(Owned(trace)))]).expect("db");
    let mut rows = 0;
    db.run(sql, |o| {
        if let Output::Row(_) = o {
            rows += 1;
        }
        true
    })
    .expect("query");
    let (w2, c2) = (Instant::now(), cpu());
    println!(
        "load {:.2} s wall {:.2} s cpu; query {:.2} s wall {:.2} s cpu; {rows} rows",
        (w1 - w0).as_secs_f64(),
        c1 - c0,
        (w2 - w1).as_secs_f64(),
        c2 - c1
    );
    std::mem::forget(db);
}
