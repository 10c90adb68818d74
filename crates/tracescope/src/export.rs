//! `tracescope export --format parquet`: every declared table of each trace as
//! Parquet in Hive partitions (see `tracescope-parquet`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Parquet,
}

pub fn run(files: &[PathBuf], out: &Path, _format: Format, tables: Option<&str>) -> Result<()> {
    if files.is_empty() {
        bail!("give at least one trace file");
    }
    let tables = match tables {
        Some(list) => tracescope_parquet::tables_named(list).map_err(anyhow::Error::msg)?,
        None => tracescope_parquet::default_tables(),
    };
    let traces = crate::load::load_many(files)?;
    crate::keep_freed_buffers();
    let named: Vec<(String, &tracescope_model::Trace)> =
        traces.iter().map(|(n, t)| (n.clone(), t)).collect();
    let written = tracescope_parquet::export(out, &named, &tables)?;
    let mut text = report(out, traces.len(), &written);
    if !tables.iter().any(|t| t.name == "args") {
        text.push_str("note: the args table (the `args` columns flattened) was not written; `--tables all` adds it\n");
    }
    // The files are written: a reader that stopped early (`| head`) is not an error.
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r?,
    }
    // The models go with the process (freeing them piece by piece only delays the exit).
    std::mem::forget(traces);
    Ok(())
}

/// Rows and bytes per table over all traces.
fn report(out: &Path, traces: usize, written: &[tracescope_parquet::Written]) -> String {
    let mut tables: Vec<(&str, usize, u64)> = Vec::new();
    for w in written {
        match tables.iter_mut().find(|t| t.0 == w.table) {
            Some(t) => {
                t.1 += w.rows;
                t.2 += w.bytes;
            }
            None => tables.push((w.table, w.rows, w.bytes)),
        }
    }
    let rows: usize = tables.iter().map(|t| t.1).sum();
    let bytes: u64 = tables.iter().map(|t| t.2).sum();
    let mut s = format!(
        "wrote {} tables of {traces} trace{} to {}: {rows} rows, {}\n",
        tables.len(),
        if traces == 1 { "" } else { "s" },
        out.display(),
        size(bytes)
    );
    for (t, r, b) in tables {
        s.push_str(&format!("  {t:<16} {r:>10} rows  {:>10}\n", size(b)));
    }
    let nulled: usize = written.iter().map(|w| w.nulled).sum();
    if nulled > 0 {
        s.push_str(&format!(
            "note: {nulled} pids named by strings were written as null (INT64 columns); `tracescope tables` shows them\n"
        ));
    }
    s
}

fn size(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.2} GB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}
