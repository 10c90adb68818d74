//! Times the Parquet export of each table of a trace on its own (wall and CPU
//! time of the process, the table's runs side by side on the rayon pool), after
//! the load, for benchmarks on a busy machine where the whole export's wall time
//! says little about where it goes.
//!
//! `cargo run --release -p tracescope-parquet --example time_tables -- TRACE.json OUT_DIR [TABLE...]`
//! (only the tables named, when any are).

use std::path::Path;
use std::time::Instant;

use tracescope_model::{LoadOptions, Trace, TABLES};
use tracescope_parquet::{write_table, Layout};

use tracescope_testdata::process_cpu_seconds as cpu;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, out) = (&args[0], Path::new(&args[1]));
    let only = &args[2..];
    std::fs::create_dir_all(out).expect("makes the output directory");
    let (w0, c0) = (Instant::now(), cpu());
    let source = tracescope_format::Source::open(path).expect("opens");
    let trace = Trace::from_source(source, &LoadOptions::default()).expect("loads");
    let (w1, c1) = (Instant::now(), cpu());
    println!(
        "load {:.2} s wall {:.2} s cpu",
        (w1 - w0).as_secs_f64(),
        c1 - c0
    );
    let (mut wall, mut total) = (0.0, 0.0);
    for table in TABLES
        .iter()
        .filter(|t| only.is_empty() || only.iter().any(|o| o == t.name))
    {
        let (w, c) = (Instant::now(), cpu());
        let file = out.join(format!("{}.parquet", table.name));
        let (rows, _) = write_table(&file, table, &trace, Layout::default()).expect("writes");
        let (dw, dc) = (w.elapsed().as_secs_f64(), cpu() - c);
        let bytes = std::fs::metadata(&file).map_or(0, |m| m.len());
        (wall, total) = (wall + dw, total + dc);
        println!(
            "{:<16} {rows:>10} rows {:>8.1} MB {dw:>6.2} s wall {dc:>6.2} s cpu",
            table.name,
            bytes as f64 / 1e6
        );
    }
    println!("all tables {wall:.2} s wall {total:.2} s cpu");
}
