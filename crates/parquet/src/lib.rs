//! tracescope-parquet: the model's declared tables (`tracescope_model::TABLES`) as
//! Parquet files in Hive partitions, `DIR/<table>/trace=<name>/part-0.parquet`, so
//! Spark, DuckDB, Polars and Trino read `DIR/slices` as one table with a `trace`
//! column. Columns and ids are those of `tracescope tables` and `query`, typed:
//! INT64 nanoseconds and ids, DOUBLE, BOOLEAN, UTF-8 strings (dictionary-encoded),
//! nulls where a value is absent; zstd-compressed.
//!
//! Each partition is written in a hidden temporary directory beside its final
//! place and renamed into it, so a reader never sees half a file and a failed
//! export leaves what was there before.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::SchemaDescriptor;
use rayon::prelude::*;
use tracescope_model::{RowSource, Table, Trace, TABLES};

mod args;
mod buf;
mod dict;
mod encode;
mod ints;
mod pages;

use encode::Encoder;
pub use encode::Layout;

/// Runs encoded side by side before their row groups are appended: enough to
/// keep every core busy, few enough that the encoded groups waiting to be
/// written stay small.
fn window() -> usize {
    2 * rayon::current_num_threads()
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("writing {0}: {1}")]
    Parquet(PathBuf, parquet::errors::ParquetError),
}

/// One file written: its table, trace, path, rows and bytes.
#[derive(Clone, Debug)]
pub struct Written {
    pub table: &'static str,
    pub trace: String,
    pub path: PathBuf,
    pub rows: usize,
    pub bytes: u64,
    /// Values that have no Parquet form in their column and were written as null
    /// (a pid named by a string in the INT64 `pid` column).
    pub nulled: usize,
}

/// A value of the `trace=` partition as Hive escapes it (`%XX` for the characters
/// a path or a partition name cannot hold).
pub fn hive_escape(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_control() || "\"#%'*/:=?\\\u{7f}{[]^".contains(c) {
            for b in c.to_string().bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The tables an export writes unless told otherwise: every declared table but
/// `args`. The `args` table is each row's `args` column flattened (one row per
/// leaf, as Perfetto's `args`); it holds nothing the JSON columns do not, and on a
/// typical trace it has four times the rows of `slices` and half the export's
/// work. Engines read the JSON columns directly (`json_extract` in DuckDB and
/// Trino, `get_json_object` in Spark, `str.json_path_match` in Polars).
pub fn default_tables() -> Vec<&'static Table> {
    TABLES
        .iter()
        .copied()
        .filter(|t| t.name != "args")
        .collect()
}

/// The tables a `--tables` list names: comma-separated table names, or `all`.
/// An unknown name is an error that lists the tables.
pub fn tables_named(list: &str) -> Result<Vec<&'static Table>, String> {
    if list.trim() == "all" {
        return Ok(TABLES.to_vec());
    }
    let mut out: Vec<&'static Table> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let Some(t) = TABLES.iter().find(|t| t.name == name) else {
            let names: Vec<&str> = TABLES.iter().map(|t| t.name).collect();
            return Err(format!(
                "no table named {name:?}; the tables are: {} (or `all`)",
                names.join(", ")
            ));
        };
        if !out.iter().any(|o| o.name == t.name) {
            out.push(t);
        }
    }
    if out.is_empty() {
        return Err("--tables names no table".to_string());
    }
    // Declared order, whatever order the list gave.
    out.sort_by_key(|t| TABLES.iter().position(|d| d.name == t.name));
    Ok(out)
}

/// Writes `tables` of each trace (name, trace) under `dir`, the tables side by
/// side, and the runs of each table side by side too.
pub fn export(
    dir: &Path,
    traces: &[(String, &Trace)],
    tables: &[&'static Table],
) -> Result<Vec<Written>, Error> {
    let jobs: Vec<(&String, &Trace, &'static Table)> = traces
        .iter()
        .flat_map(|(name, trace)| tables.iter().map(move |t| (name, *trace, *t)))
        .collect();
    jobs.par_iter()
        .map(|(name, trace, table)| write_partition(dir, table, name, trace))
        .collect()
}

/// Writes one table of one trace into its partition, through a temporary
/// directory renamed into place.
pub fn write_partition(
    dir: &Path,
    table: &'static Table,
    name: &str,
    trace: &Trace,
) -> Result<Written, Error> {
    let part = format!("trace={}", hive_escape(name));
    let table_dir = dir.join(table.name);
    let final_dir = table_dir.join(&part);
    let tmp_dir = table_dir.join(format!(".{part}.tmp-{}", std::process::id()));
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e| Error::Io(p, e)
    };
    std::fs::create_dir_all(&tmp_dir).map_err(io(&tmp_dir))?;
    let file_path = tmp_dir.join("part-0.parquet");
    let written = write_table(&file_path, table, trace, Layout::default());
    let (rows, nulled) = match written {
        Ok(x) => x,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp_dir);
            return Err(e);
        }
    };
    // Replace what was there: the old partition moves aside, the new one takes its
    // place, then the old one goes.
    let old = table_dir.join(format!(".{part}.old-{}", std::process::id()));
    let had_old = final_dir.exists();
    if had_old {
        std::fs::rename(&final_dir, &old).map_err(io(&final_dir))?;
    }
    std::fs::rename(&tmp_dir, &final_dir).map_err(io(&final_dir))?;
    if had_old {
        std::fs::remove_dir_all(&old).map_err(io(&old))?;
    }
    let path = final_dir.join("part-0.parquet");
    let bytes = std::fs::metadata(&path).map_err(io(&path))?.len();
    Ok(Written {
        table: table.name,
        trace: name.to_string(),
        path,
        rows,
        bytes,
        nulled,
    })
}

/// Writes one table of a trace as one Parquet file at `path`, its rows cut as
/// `layout` says; returns the rows and the values nulled. The table's runs are
/// encoded side by side, a window at a time, and their row groups appended in
/// order.
pub fn write_table(
    path: &Path,
    table: &Table,
    trace: &Trace,
    layout: Layout,
) -> Result<(usize, usize), Error> {
    let pq = |e| Error::Parquet(path.to_path_buf(), e);
    let columns = table.columns();
    let schema = Arc::new(encode::schema(&columns).map_err(pq)?);
    let props = encode::properties(&columns).map_err(pq)?;
    let delta_props = encode::delta_properties(&columns).map_err(pq)?;
    let dict_props = encode::dictionary_properties(&columns).map_err(pq)?;
    let enc = Encoder {
        table,
        trace,
        fills: columns.iter().map(|c| table.fill(c.name)).collect(),
        columns,
        descr: SchemaDescriptor::new(schema.clone()),
        props: props.clone(),
        delta_props,
        dict_props,
        layout: Layout {
            row_group: layout.row_group.max(1),
            arg_sets_per_run: layout.arg_sets_per_run.max(1),
        },
        pool: Default::default(),
        release: encode::release(trace),
    };
    let order = match &table.rows {
        RowSource::Indexed { order, .. } => order(trace),
        RowSource::ArgSets { .. } => Vec::new(),
    };
    let runs = enc.runs(&order);
    let file = File::create(path).map_err(|e| Error::Io(path.to_path_buf(), e))?;
    let mut writer = SerializedFileWriter::new(file, schema, props).map_err(pq)?;
    let (mut rows, mut nulled) = (0, 0);
    for window in runs.chunks(window()) {
        let encoded: Vec<_> = window.par_iter().map(|run| enc.encode(run)).collect();
        if enc.reads_text() {
            // The args text of a window's events is read: let its pages go again
            // (the load let them go once parsed), or the whole file stays resident.
            enc.release_text();
        }
        for run in encoded {
            let run = run.map_err(pq)?;
            rows += run.rows;
            nulled += run.nulled;
            for group in run.groups {
                let mut rg = writer.next_row_group().map_err(pq)?;
                for (data, close) in group.chunks {
                    rg.append_column(&data, close).map_err(pq)?;
                }
                rg.close().map_err(pq)?;
            }
        }
    }
    writer.close().map_err(pq)?;
    Ok((rows, nulled))
}
