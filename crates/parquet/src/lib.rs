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

use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical, ZstdLevel};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnPath, Type as SchemaType};
use tracescope_model::{ColumnInfo, ColumnType, Table, Trace, Value, TABLES};

/// Rows per row group: the columns of a row group are buffered whole (the
/// args JSON of 1 M slices is ~200 MB), so groups of DuckDB's default size keep
/// the export's memory near the model's; compression works per page anyway.
const ROW_GROUP: usize = 122_880;

/// zstd level: 1 costs about half the CPU of 3 for a few percent of size
/// (BENCHMARKS.md, "SQL and Parquet").
const ZSTD_LEVEL: i32 = 1;

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

/// Writes every declared table of each trace (name, trace) under `dir`, the
/// tables side by side (each file is written by one thread, in table order).
pub fn export(dir: &Path, traces: &[(String, &Trace)]) -> Result<Vec<Written>, Error> {
    use rayon::prelude::*;
    let jobs: Vec<(&String, &Trace, &'static Table)> = traces
        .iter()
        .flat_map(|(name, trace)| TABLES.iter().map(move |t| (name, *trace, *t)))
        .collect();
    jobs.par_iter()
        .map(|(name, trace, table)| write_partition(dir, table, name, trace))
        .collect()
}

/// The Parquet type of a declared column.
fn physical(ty: ColumnType) -> (Physical, Option<LogicalType>) {
    match ty {
        ColumnType::Id(_)
        | ColumnType::Int
        | ColumnType::Pid
        | ColumnType::Time
        | ColumnType::Duration => (Physical::INT64, None),
        ColumnType::Float | ColumnType::Number => (Physical::DOUBLE, None),
        ColumnType::Bool => (Physical::BOOLEAN, None),
        ColumnType::Str => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
        ColumnType::Json => (Physical::BYTE_ARRAY, Some(LogicalType::Json)),
    }
}

/// A pid column may meet a pid named by a string, which INT64 cannot hold.
fn optional(c: &ColumnInfo) -> bool {
    c.nullable || c.ty == ColumnType::Pid
}

fn schema(columns: &[ColumnInfo]) -> parquet::errors::Result<SchemaType> {
    let fields = columns
        .iter()
        .map(|c| {
            let (p, l) = physical(c.ty);
            let rep = if optional(c) {
                Repetition::OPTIONAL
            } else {
                Repetition::REQUIRED
            };
            SchemaType::primitive_type_builder(c.name, p)
                .with_repetition(rep)
                .with_logical_type(l)
                .build()
                .map(Arc::new)
        })
        .collect::<parquet::errors::Result<Vec<_>>>()?;
    SchemaType::group_type_builder("schema")
        .with_fields(fields)
        .build()
}

/// One column's buffered values and definition levels (1 present, 0 null).
enum Buf {
    Int(Vec<i64>, Vec<i16>),
    Double(Vec<f64>, Vec<i16>),
    Bool(Vec<bool>, Vec<i16>),
    /// Strings of the row group end to end, with each present value's end: one
    /// buffer instead of an allocation per cell (cut into `ByteArray`s sharing it
    /// when the row group is written).
    Bytes(Vec<u8>, Vec<usize>, Vec<i16>),
}

impl Buf {
    fn new(ty: ColumnType) -> Buf {
        match physical(ty).0 {
            Physical::INT64 => Buf::Int(Vec::new(), Vec::new()),
            Physical::DOUBLE => Buf::Double(Vec::new(), Vec::new()),
            Physical::BOOLEAN => Buf::Bool(Vec::new(), Vec::new()),
            _ => Buf::Bytes(Vec::new(), Vec::new(), Vec::new()),
        }
    }

    /// Adds a cell; `false` when it has no form in this column (written as null,
    /// or as 0 / "" / false in a column declared never null).
    fn push(&mut self, v: &Value<'_>, optional: bool) -> bool {
        let (present, kept) = match self {
            Buf::Int(vals, defs) => {
                let x = match v {
                    Value::Int(i) => Some(*i),
                    // Above i64::MAX: the same 64 bits (a pid or count written as u64).
                    Value::UInt(u) => Some(*u as i64),
                    Value::Bool(b) => Some(*b as i64),
                    _ => None,
                };
                defs.push(x.is_some() as i16);
                vals.extend(x);
                (x.is_some(), x.is_some() || *v == Value::Null)
            }
            Buf::Double(vals, defs) => {
                let x = match v {
                    Value::Int(i) => Some(*i as f64),
                    Value::UInt(u) => Some(*u as f64),
                    Value::Float(f) => Some(*f),
                    _ => None,
                };
                defs.push(x.is_some() as i16);
                vals.extend(x);
                (x.is_some(), x.is_some() || *v == Value::Null)
            }
            Buf::Bool(vals, defs) => {
                let x = match v {
                    Value::Bool(b) => Some(*b),
                    _ => None,
                };
                defs.push(x.is_some() as i16);
                vals.extend(x);
                (x.is_some(), x.is_some() || *v == Value::Null)
            }
            Buf::Bytes(data, ends, defs) => {
                use std::io::Write;
                let present = match v {
                    Value::Null => false,
                    Value::Bool(b) => write!(data, "{b}").is_ok(),
                    Value::Int(i) => write!(data, "{i}").is_ok(),
                    Value::UInt(u) => write!(data, "{u}").is_ok(),
                    Value::Float(f) => write!(data, "{f}").is_ok(),
                    Value::Str(s) => {
                        data.extend_from_slice(s.as_bytes());
                        true
                    }
                    Value::String(s) => {
                        data.extend_from_slice(s.as_bytes());
                        true
                    }
                    Value::Json(s) => {
                        data.extend_from_slice(s.as_bytes());
                        true
                    }
                };
                defs.push(present as i16);
                if present {
                    ends.push(data.len());
                }
                (present, true)
            }
        };
        if !present && !optional {
            match self {
                Buf::Int(vals, _) => vals.push(0),
                Buf::Double(vals, _) => vals.push(0.0),
                Buf::Bool(vals, _) => vals.push(false),
                Buf::Bytes(data, ends, _) => ends.push(data.len()),
            }
            return false;
        }
        kept
    }

    fn clear(&mut self) {
        match self {
            Buf::Int(v, d) => (v.clear(), d.clear()),
            Buf::Double(v, d) => (v.clear(), d.clear()),
            Buf::Bool(v, d) => (v.clear(), d.clear()),
            Buf::Bytes(v, e, d) => {
                v.clear();
                (e.clear(), d.clear())
            }
        };
    }
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
    let written = write_file(&file_path, table, trace);
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

/// Rows and nulled values written.
fn write_file(path: &Path, table: &Table, trace: &Trace) -> Result<(usize, usize), Error> {
    let pq = |e| Error::Parquet(path.to_path_buf(), e);
    let columns = table.columns();
    let schema = Arc::new(schema(&columns).map_err(pq)?);
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(
            ZstdLevel::try_new(ZSTD_LEVEL).map_err(pq)?,
        ))
        // Dictionaries for names and categories (few distinct values); ids, times
        // and args JSON are mostly distinct, where a dictionary only costs time.
        .set_dictionary_enabled(false)
        .set_created_by(format!("tracescope {}", env!("CARGO_PKG_VERSION")));
    let props = columns
        .iter()
        .filter(|c| c.ty == ColumnType::Str)
        .fold(props, |p, c| {
            p.set_column_dictionary_enabled(ColumnPath::from(c.name), true)
        });
    // No min/max of JSON text: nobody prunes on it, and it costs a comparison
    // of every value.
    let props = columns
        .iter()
        .filter(|c| c.ty == ColumnType::Json)
        .fold(props, |p, c| {
            p.set_column_statistics_enabled(ColumnPath::from(c.name), EnabledStatistics::None)
        });
    let props = Arc::new(props.build());
    let file = File::create(path).map_err(|e| Error::Io(path.to_path_buf(), e))?;
    let mut writer = SerializedFileWriter::new(file, schema, props).map_err(pq)?;
    let mut bufs: Vec<Buf> = columns.iter().map(|c| Buf::new(c.ty)).collect();
    let (mut rows, mut pending, mut nulled) = (0usize, 0usize, 0usize);
    let mut failed: Option<Error> = None;
    table.for_each_row(trace, |cells| {
        if failed.is_some() {
            return;
        }
        for ((b, v), c) in bufs.iter_mut().zip(cells).zip(&columns) {
            nulled += !b.push(v, optional(c)) as usize;
        }
        rows += 1;
        pending += 1;
        if pending == ROW_GROUP {
            if let Err(e) = flush(&mut writer, &mut bufs, &columns) {
                failed = Some(pq(e));
            }
            pending = 0;
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    if pending > 0 || rows == 0 {
        flush(&mut writer, &mut bufs, &columns).map_err(pq)?;
    }
    writer.close().map_err(pq)?;
    Ok((rows, nulled))
}

/// Definition levels for an optional column.
fn defs(opt: bool, d: &[i16]) -> Option<&[i16]> {
    opt.then_some(d)
}

/// Writes the buffered rows as one row group.
fn flush(
    writer: &mut SerializedFileWriter<File>,
    bufs: &mut [Buf],
    columns: &[ColumnInfo],
) -> parquet::errors::Result<()> {
    let mut rg = writer.next_row_group()?;
    let mut k = 0;
    while let Some(mut col) = rg.next_column()? {
        let opt = optional(&columns[k]);
        match &mut bufs[k] {
            Buf::Int(v, d) => {
                col.typed::<Int64Type>()
                    .write_batch(v, defs(opt, d), None)?;
            }
            Buf::Double(v, d) => {
                col.typed::<DoubleType>()
                    .write_batch(v, defs(opt, d), None)?;
            }
            Buf::Bool(v, d) => {
                col.typed::<BoolType>().write_batch(v, defs(opt, d), None)?;
            }
            Buf::Bytes(data, ends, d) => {
                let all = bytes::Bytes::from(std::mem::take(data));
                let mut start = 0;
                let v: Vec<ByteArray> = ends
                    .iter()
                    .map(|&end| {
                        let cell = ByteArray::from(all.slice(start..end));
                        start = end;
                        cell
                    })
                    .collect();
                col.typed::<ByteArrayType>()
                    .write_batch(&v, defs(opt, d), None)?;
            }
        }
        col.close()?;
        bufs[k].clear();
        k += 1;
    }
    rg.close()?;
    Ok(())
}
