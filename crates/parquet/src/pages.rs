//! Column chunks written page by page without the column writer, from the
//! row group's buffers: the JSON columns as PLAIN pages, and columns of few
//! distinct cells ([`crate::dict`]) as a dictionary page and RLE_DICTIONARY
//! data pages; zstd'ed, handed to the page writer.
//!
//! JSON: the args text of every row straight from the buffer into pages
//! (4-byte length, bytes). The args are most of an export's bytes (431 MB of a
//! 1 GB trace's slices), and the column writer made a `ByteArray` (a refcount)
//! of each, checked its UTF-8 again and copied it once more (BENCHMARKS.md,
//! "SQL and Parquet", round 8).
//!
//! Dictionaries: the column writer hashed and compared every name, category
//! and pid of every row to find its dictionary index; the model's ids give it
//! (BENCHMARKS.md, "SQL and Parquet", round 9).
//!
//! What the column writer would write for such columns: v1 data pages,
//! definition levels RLE, the chunk's metadata and offset index; min/max
//! statistics of integers (not of text: see `encode::builder`), no column index.

use std::cell::RefCell;

use bytes::Bytes;
use parquet::basic::{Compression, Encoding, EncodingMask, PageType, ZstdLevel};
use parquet::column::page::{CompressedPage, Page, PageWriter};
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{ColumnChunkMetaData, OffsetIndexBuilder, PageEncodingStats};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::statistics::{Statistics, ValueStatistics};
use parquet::file::writer::{SerializedPageWriter, TrackedWrite};
use parquet::schema::types::ColumnDescPtr;

use crate::buf::Buf;
use crate::dict::Dict;
use crate::encode::ZSTD_LEVEL;

thread_local! {
    /// A zstd context and page buffers per encoding thread, reused from page to
    /// page (a fresh context is a few hundred KB of zeroed pages).
    static SCRATCH: RefCell<Option<Scratch>> = const { RefCell::new(None) };
}

struct Scratch {
    zstd: zstd::bulk::Compressor<'static>,
    page: Vec<u8>,
    packed: Vec<u8>,
}

/// Calls `f` with this thread's [`Scratch`].
fn with_scratch<T>(f: impl FnOnce(&mut Scratch) -> Result<T>) -> Result<T> {
    SCRATCH.with(|cell| {
        let mut cell = cell.borrow_mut();
        let scratch = match cell.as_mut() {
            Some(s) => s,
            None => cell.insert(Scratch {
                zstd: zstd::bulk::Compressor::new(ZSTD_LEVEL)
                    .map_err(|e| ParquetError::External(Box::new(e)))?,
                page: Vec::new(),
                packed: Vec::new(),
            }),
        };
        f(scratch)
    })
}

/// zstd is left out of a chunk when it saves less than this share (in percent)
/// of the chunk's first data page: bit-packed dictionary indexes of names,
/// pids and depths come out of zstd 0-13% smaller on a 1 GB trace, for as much
/// CPU a byte as the args text, which it shrinks 8 times (BENCHMARKS.md,
/// "Export, round 10"). Parquet names the codec per column chunk.
const MIN_ZSTD_SAVING_PERCENT: usize = 10;

/// A column chunk being written in memory, page by page, with what its
/// metadata and offset index need.
struct Chunk {
    /// Whether the chunk's pages are zstd'ed; decided by the first data page
    /// ([`MIN_ZSTD_SAVING_PERCENT`]) unless told before.
    zstd: Option<bool>,
    sink: TrackedWrite<Vec<u8>>,
    offsets: OffsetIndexBuilder,
    compressed: u64,
    uncompressed: u64,
    written: u64,
    data_pages: i32,
    /// Where the first data page starts (after the dictionary page, if any).
    data_offset: Option<i64>,
    dictionary: bool,
}

impl Chunk {
    fn new() -> Chunk {
        Chunk {
            zstd: None,
            sink: TrackedWrite::new(Vec::new()),
            offsets: OffsetIndexBuilder::new(),
            compressed: 0,
            uncompressed: 0,
            written: 0,
            data_pages: 0,
            data_offset: None,
            dictionary: false,
        }
    }

    /// Decides whether the chunk is zstd'ed from `body`, its first data page
    /// (before a dictionary page is written).
    fn decide(&mut self, zstd: &mut zstd::bulk::Compressor<'static>, body: &[u8]) -> Result<()> {
        let out = compress(zstd, body)?;
        self.zstd = Some(worth(body, &out));
        Ok(())
    }

    /// Compresses `body` (or not: `zstd`) and writes it as a data page of
    /// `rows` rows (or, with `rows` `None`, as the chunk's dictionary page of
    /// `values` values).
    fn page(
        &mut self,
        zstd: &mut zstd::bulk::Compressor<'static>,
        body: &[u8],
        rows: Option<u32>,
        values: u32,
        encoding: Encoding,
    ) -> Result<()> {
        let buf = match self.zstd {
            Some(false) => Bytes::copy_from_slice(body),
            Some(true) => Bytes::from(compress(zstd, body)?),
            None => {
                let out = compress(zstd, body)?;
                let worth = worth(body, &out);
                self.zstd = Some(worth);
                match worth {
                    true => Bytes::from(out),
                    false => Bytes::copy_from_slice(body),
                }
            }
        };
        let page = match rows {
            Some(rows) => Page::DataPage {
                buf,
                num_values: rows,
                encoding,
                def_level_encoding: Encoding::RLE,
                rep_level_encoding: Encoding::RLE,
                statistics: None,
            },
            None => Page::DictionaryPage {
                buf,
                num_values: values,
                encoding,
                is_sorted: false,
            },
        };
        let spec = SerializedPageWriter::new(&mut self.sink)
            .write_page(CompressedPage::new(page, body.len()))?;
        if let Some(rows) = rows {
            self.offsets.append_row_count(rows as i64);
            self.offsets
                .append_offset_and_size(spec.offset as i64, spec.compressed_size as i32);
            self.data_offset.get_or_insert(spec.offset as i64);
            self.data_pages += 1;
        } else {
            self.dictionary = true;
        }
        self.compressed += spec.compressed_size as u64;
        self.uncompressed += spec.uncompressed_size as u64;
        self.written += spec.bytes_written;
        Ok(())
    }

    /// The chunk's bytes and metadata: `rows` rows, data pages of `encoding`.
    fn finish(
        self,
        descr: ColumnDescPtr,
        rows: usize,
        encoding: Encoding,
        statistics: Option<Statistics>,
    ) -> Result<(Bytes, ColumnCloseResult)> {
        let mut encodings = vec![Encoding::RLE, encoding];
        let mut stats = Vec::new();
        if self.dictionary {
            encodings.push(Encoding::PLAIN);
            stats.push(PageEncodingStats {
                page_type: PageType::DICTIONARY_PAGE,
                encoding: Encoding::PLAIN,
                count: 1,
            });
        }
        stats.push(PageEncodingStats {
            page_type: PageType::DATA_PAGE,
            encoding,
            count: self.data_pages,
        });
        let codec = match self.zstd {
            Some(false) => Compression::UNCOMPRESSED,
            _ => Compression::ZSTD(ZstdLevel::try_new(ZSTD_LEVEL)?),
        };
        let mut metadata = ColumnChunkMetaData::builder(descr)
            .set_compression(codec)
            .set_encodings_mask(EncodingMask::new_from_encodings(encodings.iter()))
            .set_page_encoding_stats(stats)
            .set_total_compressed_size(self.compressed as i64)
            .set_total_uncompressed_size(self.uncompressed as i64)
            .set_num_values(rows as i64)
            .set_data_page_offset(self.data_offset.unwrap_or(0))
            .set_dictionary_page_offset(self.dictionary.then_some(0));
        if let Some(s) = statistics {
            metadata = metadata.set_statistics(s);
        }
        let close = ColumnCloseResult {
            bytes_written: self.written,
            rows_written: rows as u64,
            metadata: metadata.build()?,
            bloom_filter: None,
            column_index: None,
            offset_index: Some(self.offsets.build()),
        };
        Ok((Bytes::from(self.sink.into_inner()?), close))
    }
}

/// `body` zstd'ed.
fn compress(zstd: &mut zstd::bulk::Compressor<'static>, body: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(zstd::zstd_safe::compress_bound(body.len()));
    zstd.compress_to_buffer(body, &mut out)
        .map_err(|e| ParquetError::External(Box::new(e)))?;
    Ok(out)
}

/// Whether zstd saves at least [`MIN_ZSTD_SAVING_PERCENT`] of `body` (`out`).
fn worth(body: &[u8], out: &[u8]) -> bool {
    out.len() * 100 <= body.len() * (100 - MIN_ZSTD_SAVING_PERCENT)
}

/// The strings of a row group (`data`, each present value's end in `ends`, a
/// definition level per row in `defs`) as one column chunk of column `descr`.
pub(crate) fn json_chunk(
    descr: ColumnDescPtr,
    props: &WriterProperties,
    data: &[u8],
    ends: &[usize],
    defs: &[i16],
) -> Result<(Bytes, ColumnCloseResult)> {
    with_scratch(|scratch| {
        let optional = descr.max_def_level() > 0;
        let size_limit = props.column_data_page_size_limit(descr.path()).max(1);
        let row_limit = props.data_page_row_count_limit().max(1);
        let mut chunk = Chunk::new();
        let (mut row, mut value) = (0, 0);
        // An empty chunk has no page, as the column writer writes it.
        while row < defs.len() {
            // The page's rows: up to the row limit or the size limit.
            let (first_row, first_value) = (row, value);
            let start = if value == 0 { 0 } else { ends[value - 1] };
            while row < defs.len() && row - first_row < row_limit {
                if defs[row] == 1 || !optional {
                    value += 1;
                }
                row += 1;
                if ends
                    .get(value.wrapping_sub(1))
                    .is_some_and(|&e| e - start >= size_limit)
                {
                    break;
                }
            }
            let page = &mut scratch.page;
            page.clear();
            if optional {
                put_levels(&defs[first_row..row], &mut scratch.packed, page);
            }
            plain_strings(data, start, &ends[first_value..value], page);
            let rows = Some((row - first_row) as u32);
            chunk.page(&mut scratch.zstd, page, rows, 0, Encoding::PLAIN)?;
        }
        chunk.finish(descr, defs.len(), Encoding::PLAIN, None)
    })
}

/// A row group of a column of few distinct cells ([`Dict`]) as one column
/// chunk of column `descr`: its distinct cells as a PLAIN dictionary page,
/// then each row's index in RLE_DICTIONARY data pages (or, when every row is
/// null, PLAIN pages of definition levels only).
pub(crate) fn dictionary_chunk(
    descr: ColumnDescPtr,
    props: &WriterProperties,
    dict: &Dict,
) -> Result<(Bytes, ColumnCloseResult)> {
    with_scratch(|scratch| {
        let optional = descr.max_def_level() > 0;
        let row_limit = props.data_page_row_count_limit().max(1);
        let (values, indices, defs) = (&dict.values, &dict.indices, &dict.defs);
        let entries = values.values_len();
        let width = bit_width(entries.saturating_sub(1) as u32);
        // The data pages' rows, and the values (indexes) of each.
        let mut pages = Vec::new();
        let (mut row, mut value) = (0, 0);
        while row < defs.len() {
            let (first_row, first_value) = (row, value);
            row = (row + row_limit).min(defs.len());
            value += match optional {
                true => defs[first_row..row].iter().filter(|&&d| d == 1).count(),
                false => row - first_row,
            };
            pages.push((first_row..row, first_value..value));
        }
        let body = |rows: &std::ops::Range<usize>,
                    vals: &std::ops::Range<usize>,
                    packed: &mut Vec<u8>,
                    page: &mut Vec<u8>| {
            page.clear();
            if optional {
                put_levels(&defs[rows.clone()], packed, page);
            }
            if entries > 0 {
                page.push(width as u8);
                hybrid(&indices[vals.clone()], width, page);
            }
        };
        let mut chunk = Chunk::new();
        let encoding = if entries == 0 {
            Encoding::PLAIN
        } else {
            // zstd or not, by the first data page, before the dictionary's.
            if let Some((rows, vals)) = pages.first() {
                body(rows, vals, &mut scratch.packed, &mut scratch.page);
                chunk.decide(&mut scratch.zstd, &scratch.page)?;
            }
            scratch.page.clear();
            plain(values, &mut scratch.page)?;
            let page = &scratch.page;
            chunk.page(
                &mut scratch.zstd,
                page,
                None,
                entries as u32,
                Encoding::PLAIN,
            )?;
            Encoding::RLE_DICTIONARY
        };
        for (rows, vals) in &pages {
            body(rows, vals, &mut scratch.packed, &mut scratch.page);
            let n = Some(rows.len() as u32);
            chunk.page(&mut scratch.zstd, &scratch.page, n, 0, encoding)?;
        }
        let statistics = match props.statistics_enabled(descr.path()) {
            EnabledStatistics::None => None,
            _ => statistics(values, defs.len() - indices.len()),
        };
        chunk.finish(descr, defs.len(), encoding, statistics)
    })
}

/// The chunk's min and max (of integers: text has none, `encode::builder`)
/// and its nulls.
fn statistics(values: &Buf, nulls: usize) -> Option<Statistics> {
    match values {
        Buf::Int(v, _) => {
            let (min, max) = (v.iter().min().copied(), v.iter().max().copied());
            let stats = ValueStatistics::new(min, max, None, Some(nulls as u64), false);
            Some(Statistics::Int64(
                stats.with_backwards_compatible_min_max(true),
            ))
        }
        _ => None,
    }
}

/// Appends `defs` as a page's definition levels: their length (4 bytes), then
/// the levels ([`levels`]), `packed` holding them meanwhile.
fn put_levels(defs: &[i16], packed: &mut Vec<u8>, page: &mut Vec<u8>) {
    levels(defs, packed);
    page.extend_from_slice(&(packed.len() as u32).to_le_bytes());
    page.extend_from_slice(packed);
}

/// Appends the strings of `data` ending at `ends` (the first starting at
/// `start`) PLAIN: a 4-byte length, then the bytes.
fn plain_strings(data: &[u8], start: usize, ends: &[usize], page: &mut Vec<u8>) {
    let mut from = start;
    for &end in ends {
        page.extend_from_slice(&((end - from) as u32).to_le_bytes());
        page.extend_from_slice(&data[from..end]);
        from = end;
    }
}

/// Appends the values of a dictionary PLAIN (its cells: strings or integers).
fn plain(values: &Buf, page: &mut Vec<u8>) -> Result<()> {
    match values {
        Buf::Bytes(data, ends, _) => plain_strings(data, 0, ends, page),
        Buf::Int(v, _) => v
            .iter()
            .for_each(|x| page.extend_from_slice(&x.to_le_bytes())),
        Buf::Double(v, _) => v
            .iter()
            .for_each(|x| page.extend_from_slice(&x.to_le_bytes())),
        Buf::Bool(..) | Buf::Dict(_) => {
            return Err(ParquetError::General("no dictionary of this kind".into()))
        }
    }
    Ok(())
}

/// Bits to write values up to `max`.
fn bit_width(max: u32) -> u32 {
    32 - max.leading_zeros()
}

/// Appends `v` as a ULEB128 varint.
fn varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Groups of 8 values of a bit-packed run at most: a run's header then fits a
/// byte, as other writers keep it.
const MAX_GROUPS: usize = 63;

/// Appends `vals` (each below `1 << width`) as the RLE / bit-packed hybrid:
/// a run of 8 equal values or more (from a group boundary), or of the last
/// values, as one RLE run, the values between them bit-packed in groups of 8
/// (the last one padded with zeros, which only the end of a page may hold).
fn hybrid(vals: &[u32], width: u32, out: &mut Vec<u8>) {
    let bytes = width.div_ceil(8) as usize;
    let (mut i, mut literal) = (0, 0);
    while i < vals.len() {
        let v = vals[i];
        let run = vals[i..].iter().take_while(|&&x| x == v).count();
        // Values that go with the literals before them to end a group of 8.
        let pad = (8 - (i - literal) % 8) % 8;
        // A run from a group boundary: of 8 or more, or the last values.
        if run >= pad + 8 || (i + run == vals.len() && run > pad) {
            i += pad;
            bit_packed(&vals[literal..i], width, out);
            varint(out, ((run - pad) as u64) << 1);
            out.extend_from_slice(&v.to_le_bytes()[..bytes]);
            i += run - pad;
            literal = i;
        } else {
            i += run;
        }
    }
    bit_packed(&vals[literal..], width, out);
}

/// Appends `vals` as bit-packed runs of at most [`MAX_GROUPS`] groups.
fn bit_packed(vals: &[u32], width: u32, out: &mut Vec<u8>) {
    for run in vals.chunks(MAX_GROUPS * 8) {
        let groups = run.len().div_ceil(8);
        varint(out, ((groups as u64) << 1) | 1);
        let (mut acc, mut bits) = (0u64, 0u32);
        let padding = std::iter::repeat_n(&0, groups * 8 - run.len());
        for &v in run.iter().chain(padding) {
            acc |= (v as u64) << bits;
            bits += width;
            while bits >= 8 {
                out.push(acc as u8);
                acc >>= 8;
                bits -= 8;
            }
        }
    }
}

/// Definition levels of 0 and 1 as the RLE / bit-packed hybrid (bit width 1):
/// one RLE run when they are all equal, else one bit-packed run.
fn levels(defs: &[i16], out: &mut Vec<u8>) {
    out.clear();
    if defs.is_empty() {
        return;
    }
    if defs.iter().all(|&d| d == defs[0]) {
        varint(out, (defs.len() as u64) << 1);
        out.push(defs[0] as u8);
        return;
    }
    let groups = defs.len().div_ceil(8);
    varint(out, ((groups as u64) << 1) | 1);
    for group in defs.chunks(8) {
        let byte = group
            .iter()
            .enumerate()
            .fold(0u8, |b, (k, &d)| b | (((d & 1) as u8) << k));
        out.push(byte);
    }
}

#[cfg(test)]
mod tests {
    use super::{bit_width, hybrid, levels};

    #[test]
    fn hybrid_runs_are_rle_from_a_group_boundary_and_bit_packed_between() {
        let mut out = Vec::new();
        // 10 zeros: one RLE run (10 << 1, value in a byte); then 1, 2, 3
        // bit-packed at 2 bits in one group padded with zeros.
        hybrid(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3], 2, &mut out);
        assert_eq!(out, [20, 0, (1 << 1) | 1, 1 | (2 << 2) | (3 << 4), 0]);
        // A run after a lone value: 7 of it end the first group, bit-packed,
        // the other 13 are a run.
        out.clear();
        let mut vals = vec![1];
        vals.extend([0; 20]);
        hybrid(&vals, 1, &mut out);
        assert_eq!(out, [(1 << 1) | 1, 1, 13 << 1, 0]);
        // Too short a run to leave the literals: bit-packed with them, but
        // the last values are a run however short.
        out.clear();
        hybrid(&[1, 0, 0, 0, 0, 0, 0, 2, 0], 2, &mut out);
        assert_eq!(out, [(1 << 1) | 1, 1, 2 << 6, 1 << 1, 0]);
        // Width 0 (a dictionary of one value): a run without value bytes.
        out.clear();
        hybrid(&[0; 5], 0, &mut out);
        assert_eq!(out, [5 << 1]);
        // 600 distinct values: runs of at most 63 groups.
        out.clear();
        let vals: Vec<u32> = (0..600).collect();
        hybrid(&vals, bit_width(599), &mut out);
        assert_eq!(out[0], (63 << 1) | 1);
        assert_eq!(out[1 + 63 * 10], (12 << 1) | 1);
        assert_eq!(out.len(), 1 + 63 * 10 + 1 + 12 * 10);
    }

    #[test]
    fn levels_are_one_run_when_equal_else_bit_packed() {
        let mut out = Vec::new();
        levels(&[1; 300], &mut out);
        // 300 << 1 = 600 as a varint, then the value.
        assert_eq!(out, [0xd8, 0x04, 1]);
        levels(&[1, 0, 1, 1, 0, 0, 0, 0, 1], &mut out);
        // Two groups of 8: 0b0000_1101, then 0b1.
        assert_eq!(out, [(2 << 1) | 1, 0b0000_1101, 0b1]);
        levels(&[], &mut out);
        assert!(out.is_empty());
    }

    /// zstd or not is decided per chunk by its first data page, and named in
    /// the chunk's metadata: text that shrinks is zstd'ed, noise is not.
    #[test]
    fn a_chunk_is_zstd_ed_only_when_its_first_page_shrinks() {
        use std::sync::Arc;

        use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
        use parquet::file::properties::WriterProperties;
        use parquet::schema::types::{SchemaDescriptor, Type};

        let field = Type::primitive_type_builder("args", Physical::BYTE_ARRAY)
            .with_repetition(Repetition::REQUIRED)
            .with_logical_type(Some(LogicalType::Json))
            .build()
            .unwrap();
        let schema = Type::group_type_builder("schema")
            .with_fields(vec![Arc::new(field)])
            .build()
            .unwrap();
        let descr = SchemaDescriptor::new(Arc::new(schema));
        let props = WriterProperties::builder().build();
        // Ten cells of 700 bytes: their 4-byte lengths are too few to shrink.
        let ends: Vec<usize> = (1..=10).map(|i| i * 700).collect();
        let defs = vec![1i16; 10];
        let codec = |data: &[u8]| {
            let (_, close) =
                super::json_chunk(descr.column(0), &props, data, &ends, &defs).unwrap();
            close.metadata.compression()
        };
        assert!(matches!(
            codec("{\"a\":1}".repeat(1000).as_bytes()),
            Compression::ZSTD(_)
        ));
        let mut x: u64 = 7;
        let noise: Vec<u8> = (0..7000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        assert_eq!(codec(&noise), Compression::UNCOMPRESSED);
    }
}
