//! A table's rows cut into runs that are encoded side by side on the rayon pool,
//! each into finished column chunks in memory (values, dictionary, statistics,
//! zstd), then appended to the file in order: the file holds the rows in
//! `tables` order, and both cores work on one big table (the args: one row per
//! leaf value) instead of one core per table.

use std::ops::Range;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use parquet::basic::{Compression, Encoding, LogicalType, Repetition, Type as Physical, ZstdLevel};
use parquet::column::writer::{get_column_writer, ColumnCloseResult};
use parquet::errors::Result;
use parquet::file::properties::{
    EnabledStatistics, WriterProperties, WriterPropertiesBuilder, WriterPropertiesPtr,
};
use parquet::file::writer::{SerializedPageWriter, TrackedWrite};
use parquet::schema::types::{ColumnPath, SchemaDescriptor, Type as SchemaType};
use rayon::prelude::*;
use tracescope_model::tables::arg_sets::{for_each_arg_in, ArgRef};
use tracescope_model::{ColumnInfo, ColumnType, Fill, InputFile, RowSource, Table, Trace, Value};

use crate::args;
use crate::buf::Buf;
use crate::ints::IntEncoding;
use crate::pages;

/// How a table's rows are cut: rows per row group and arg sets per run of the
/// args table. Any layout gives the same rows in the same order (tests cut them
/// small to cross every boundary).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Rows per row group: the columns of a row group are buffered whole (the
    /// args JSON of 1 M slices is ~200 MB), so groups of DuckDB's default size
    /// (122,880) keep the export's memory near the model's; compression works
    /// per page anyway.
    pub row_group: usize,
    /// Arg sets per run of the args table: about one row group of leaves for
    /// events with three or four args each (a run starts a new row group
    /// whenever one fills, so events with many args only make more groups).
    pub arg_sets_per_run: usize,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            row_group: 122_880,
            arg_sets_per_run: 32_768,
        }
    }
}

/// Rows of an indexed table read a column at a time (see [`Encoder::encode`]).
const BLOCK: usize = 2048;

/// Arg sets walked between two releases of the trace's mapped text.
const RELEASE_EVERY: usize = 8192;

/// zstd level: 1 costs about half the CPU of 3 for a few percent of size
/// (BENCHMARKS.md, "SQL and Parquet").
pub(crate) const ZSTD_LEVEL: i32 = 1;

/// The Parquet type of a declared column.
pub(crate) fn physical(ty: ColumnType) -> (Physical, Option<LogicalType>) {
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
pub(crate) fn optional(c: &ColumnInfo) -> bool {
    c.nullable || c.ty == ColumnType::Pid
}

pub(crate) fn schema(columns: &[ColumnInfo]) -> Result<SchemaType> {
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
        .collect::<Result<Vec<_>>>()?;
    SchemaType::group_type_builder("schema")
        .with_fields(fields)
        .build()
}

/// The writer's properties: those of the file and of its column chunks (see
/// [`delta_properties`] and [`dictionary_properties`] for chunks of integers).
pub(crate) fn properties(columns: &[ColumnInfo]) -> Result<WriterPropertiesPtr> {
    Ok(Arc::new(builder(columns)?.build()))
}

/// The properties of a chunk of integers written as deltas
/// (`DELTA_BINARY_PACKED`, see [`crate::ints::choose`]): a few bits a value (times in
/// time order, durations) instead of 8 bytes each for zstd to find again. Not
/// zstd'ed: bit-packed already, the big ones of a 1 GB trace (times, durations,
/// ids in order) came out of zstd 0-11% smaller (BENCHMARKS.md, "Export, round
/// 10"); Parquet names the codec per column chunk.
pub(crate) fn delta_properties(columns: &[ColumnInfo]) -> Result<WriterPropertiesPtr> {
    let props = columns
        .iter()
        .filter(|c| physical(c.ty).0 == Physical::INT64)
        .fold(builder(columns)?, |p, c| {
            let path = ColumnPath::from(c.name);
            p.set_column_encoding(path.clone(), Encoding::DELTA_BINARY_PACKED)
                .set_column_compression(path, Compression::UNCOMPRESSED)
        });
    Ok(Arc::new(props.build()))
}

/// The properties of a chunk of integers with few distinct values (pids,
/// tids, thread ids, depths; see [`crate::ints::choose`]): dictionary-encoded, a few
/// bits a value.
pub(crate) fn dictionary_properties(columns: &[ColumnInfo]) -> Result<WriterPropertiesPtr> {
    let props = columns
        .iter()
        .filter(|c| physical(c.ty).0 == Physical::INT64)
        .fold(builder(columns)?, |p, c| {
            p.set_column_dictionary_enabled(ColumnPath::from(c.name), true)
        });
    Ok(Arc::new(props.build()))
}

fn builder(columns: &[ColumnInfo]) -> Result<WriterPropertiesBuilder> {
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(ZSTD_LEVEL)?))
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
    // No min/max of text: rows are in time (or arg set) order, so the min and
    // max of a row group's names, keys or JSON span nearly everything and prune
    // nothing, and they cost a comparison of every value.
    let props = columns
        .iter()
        .filter(|c| matches!(c.ty, ColumnType::Json | ColumnType::Str))
        .fold(props, |p, c| {
            p.set_column_statistics_enabled(ColumnPath::from(c.name), EnabledStatistics::None)
        });
    Ok(props)
}

/// One row group, encoded: each column's chunk and its metadata.
pub(crate) struct RowGroup {
    pub(crate) chunks: Vec<(Bytes, ColumnCloseResult)>,
}

/// A part of a table's rows, encoded on its own.
pub(crate) enum Run<'o> {
    /// Model rows, in `tables` order.
    Rows(&'o [u32]),
    /// Arg sets by id.
    ArgSets(Range<usize>),
}

/// What encoding needs of a table: its columns, their Parquet descriptors and
/// the writer's properties.
pub(crate) struct Encoder<'a> {
    pub(crate) table: &'a Table,
    pub(crate) trace: &'a Trace,
    pub(crate) columns: Vec<ColumnInfo>,
    /// The fill of each column, if it has one ([`Table::fill`]).
    pub(crate) fills: Vec<Option<Fill>>,
    pub(crate) descr: SchemaDescriptor,
    pub(crate) props: WriterPropertiesPtr,
    /// For chunks of integers written as deltas.
    pub(crate) delta_props: WriterPropertiesPtr,
    /// For chunks of integers with few distinct values.
    pub(crate) dict_props: WriterPropertiesPtr,
    pub(crate) layout: Layout,
    /// Emptied buffers of finished runs, kept with their capacity: a run fills
    /// memory that is already there rather than pages the allocator returned
    /// to the kernel (which come back zeroed, at a cost).
    pub(crate) pool: Mutex<Vec<Vec<Buf>>>,
    /// Whether the text read is let go as the export goes ([`release`]).
    pub(crate) release: bool,
}

/// Whether an export lets the pages of the trace's mapped text go as it reads
/// the args: only when the text is over half the memory available. Letting go
/// keeps the export's memory near the model's, but every run of arg sets
/// faults its pages back in (the args table reads them by thread, all over the
/// file): on a 1 GB trace, 2.6 s of system time and 2.1 s of the args table's
/// CPU (BENCHMARKS.md, "Export, round 5"), for at most the file's size in page
/// cache that the kernel may reclaim anyway.
pub(crate) fn release(trace: &Trace) -> bool {
    let text: usize = (trace.files().iter())
        .map(|f| f.text().len().max(f.binary().len()))
        .sum();
    tracescope_format::source::too_big_to_keep_mapped(text as u64)
}

/// A run's rows: the row groups it filled, and values nulled.
pub(crate) struct Encoded {
    pub(crate) groups: Vec<RowGroup>,
    pub(crate) rows: usize,
    pub(crate) nulled: usize,
}

impl Encoder<'_> {
    /// Lets the mapped text's pages go, if the trace's text is too big to keep
    /// (`release`).
    pub(crate) fn release_text(&self) {
        if self.release {
            self.trace.files().iter().for_each(InputFile::release);
        }
    }

    /// Whether the table's cells read the trace's text (args), not only the model.
    pub(crate) fn reads_text(&self) -> bool {
        matches!(self.table.rows, RowSource::ArgSets { .. })
            || self.columns.iter().any(|c| c.ty == ColumnType::Json)
    }

    /// The runs of the table, in order (one at least: an empty table is one
    /// empty row group); `order` holds the row order of an indexed table.
    pub(crate) fn runs<'o>(&self, order: &'o [u32]) -> Vec<Run<'o>> {
        match self.table.rows {
            RowSource::Indexed { .. } if order.is_empty() => vec![Run::Rows(&[])],
            RowSource::Indexed { .. } => {
                order.chunks(self.layout.row_group).map(Run::Rows).collect()
            }
            RowSource::ArgSets { .. } => {
                let (n, per) = (self.trace.arg_set_space(), self.layout.arg_sets_per_run);
                let starts = (0..n.max(1)).step_by(per);
                starts.map(|s| Run::ArgSets(s..(s + per).min(n))).collect()
            }
        }
    }

    /// Encodes the rows of one run into row groups of at most `layout.row_group` rows
    /// (one group, maybe empty, at least).
    pub(crate) fn encode(&self, run: &Run<'_>) -> Result<Encoded> {
        let bufs = self.pool.lock().map(|mut p| p.pop()).unwrap_or(None);
        let mut sink = Sink {
            enc: self,
            bufs: bufs.unwrap_or_else(|| {
                let columns = self.columns.iter().zip(&self.fills);
                columns.map(|(c, f)| Buf::for_column(c.ty, *f)).collect()
            }),
            optional: self.columns.iter().map(optional).collect(),
            pending: 0,
            failed: None,
            out: Encoded {
                groups: Vec::new(),
                rows: 0,
                nulled: 0,
            },
        };
        match (&self.table.rows, run) {
            (RowSource::Indexed { columns, .. }, Run::Rows(rows)) => {
                // A run of an indexed table is one row group, filled a column at
                // a time in blocks of rows: a getter and a buffer at a time
                // (predictable branches, the model's columns read as a few
                // sequential streams), while the block's rows (and the args text
                // that two columns read) stay in cache from one column to the next.
                // Columns with a fill are read straight from the model's vectors.
                let fills = &self.fills;
                let mut scratch = Vec::new();
                for block in rows.chunks(BLOCK) {
                    for (k, (c, buf)) in columns.iter().zip(&mut sink.bufs).enumerate() {
                        let opt = sink.optional[k];
                        let filled = fills[k]
                            .and_then(|f| buf.fill(f, self.trace, block, opt, &mut scratch));
                        sink.out.nulled += match filled {
                            Some(nulled) => nulled,
                            None => {
                                let cells = block.iter().map(|&i| (c.get)(self.trace, i as usize));
                                buf.extend(cells, opt)
                            }
                        };
                    }
                }
                sink.out.rows = rows.len();
                sink.out.groups.push(self.row_group(&mut sink.bufs)?);
            }
            (RowSource::ArgSets { columns }, Run::ArgSets(ids)) => {
                // Events of one kind after another: instants or async slices lie
                // all over the file, so a run of them would fault in every page
                // of it; letting the pages go every few thousand events keeps
                // the resident text small (when it must be: `release`).
                for s in ids.clone().step_by(RELEASE_EVERY) {
                    let part = s..(s + RELEASE_EVERY).min(ids.end);
                    if args::direct(&self.columns) {
                        for_each_arg_in(self.trace, part, |arg| sink.arg(arg));
                    } else {
                        for_each_arg_in(self.trace, part, |arg| {
                            sink.row(columns.iter().map(|c| (c.get)(arg)))
                        });
                    }
                    self.release_text();
                }
            }
            _ => unreachable!("runs are made for their table's row source"),
        }
        if let Some(e) = sink.failed {
            return Err(e);
        }
        let mut out = sink.out;
        if sink.pending > 0 || out.groups.is_empty() {
            out.groups.push(self.row_group(&mut sink.bufs)?);
        }
        if let Ok(mut pool) = self.pool.lock() {
            pool.push(sink.bufs);
        }
        Ok(out)
    }

    /// Encodes the buffered rows as one row group, each column chunk into
    /// memory, and empties the buffers. The chunks are encoded side by side:
    /// a window's runs end unevenly, and a table's last run is often alone,
    /// with a core idle but for its columns.
    fn row_group(&self, bufs: &mut [Buf]) -> Result<RowGroup> {
        let chunks = bufs
            .par_iter_mut()
            .enumerate()
            .map(|(k, buf)| self.chunk(k, buf))
            .collect::<Result<_>>()?;
        Ok(RowGroup { chunks })
    }

    /// Encodes column `k`'s buffered values as a column chunk in memory, and
    /// empties its buffer.
    fn chunk(&self, k: usize, buf: &mut Buf) -> Result<(Bytes, ColumnCloseResult)> {
        if let Buf::Dict(dict) = buf {
            let chunk = pages::dictionary_chunk(self.descr.column(k), &self.props, dict);
            dict.clear();
            return chunk;
        }
        if let (ColumnType::Json, Some((data, ends, defs))) = (self.columns[k].ty, buf.strings()) {
            let chunk = pages::json_chunk(self.descr.column(k), &self.props, data, ends, defs);
            buf.clear();
            return chunk;
        }
        let mut sink = TrackedWrite::new(Vec::new());
        let (close, shared) = {
            let pages = Box::new(SerializedPageWriter::new(&mut sink));
            let props = match buf.int_encoding() {
                Some(IntEncoding::Delta) => &self.delta_props,
                Some(IntEncoding::Dictionary) => &self.dict_props,
                Some(IntEncoding::Plain) | None => &self.props,
            };
            let mut col = get_column_writer(self.descr.column(k), props.clone(), pages);
            let shared = buf.write_to(&mut col, optional(&self.columns[k]))?;
            (col.close()?, shared)
        };
        if let Some(shared) = shared {
            buf.reuse(shared);
        }
        Ok((Bytes::from(sink.into_inner()?), close))
    }
}

/// Rows being buffered into row groups.
struct Sink<'e, 'a> {
    enc: &'e Encoder<'a>,
    bufs: Vec<Buf>,
    optional: Vec<bool>,
    pending: usize,
    failed: Option<parquet::errors::ParquetError>,
    out: Encoded,
}

impl Sink<'_, '_> {
    fn row<'v>(&mut self, cells: impl Iterator<Item = Value<'v>>) {
        for ((b, v), opt) in self.bufs.iter_mut().zip(cells).zip(&self.optional) {
            self.out.nulled += !b.push(&v, *opt) as usize;
        }
        self.end_row();
    }

    /// Adds a row of the args table (see [`args::push`]).
    fn arg(&mut self, a: &ArgRef<'_>) {
        args::push(&mut self.bufs, a);
        self.end_row();
    }

    /// Counts the row just added; encodes the row group it filled.
    fn end_row(&mut self) {
        self.out.rows += 1;
        self.pending += 1;
        if self.pending == self.enc.layout.row_group {
            match self.failed {
                None => match self.enc.row_group(&mut self.bufs) {
                    Ok(g) => self.out.groups.push(g),
                    Err(e) => self.failed = Some(e),
                },
                // The run's result is the error: keep no rows.
                Some(_) => self.bufs.iter_mut().for_each(Buf::clear),
            }
            self.pending = 0;
        }
    }
}
