//! A chunk of a JSON column written page by page without the column writer:
//! the args text of every row straight from the row group's buffer into PLAIN
//! pages (4-byte length, bytes), zstd'ed, handed to the page writer. The args
//! are most of an export's bytes (431 MB of a 1 GB trace's slices), and the
//! column writer made a `ByteArray` (a refcount) of each, checked its UTF-8
//! again and copied it once more (BENCHMARKS.md, "SQL and Parquet", round 8).
//!
//! What the column writer would write for such a column (optional or not, no
//! dictionary, no statistics): v1 data pages, definition levels RLE, the
//! chunk's metadata and offset index.

use std::cell::RefCell;

use bytes::Bytes;
use parquet::basic::{Compression, Encoding, EncodingMask, PageType, ZstdLevel};
use parquet::column::page::{CompressedPage, Page, PageWriter};
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{ColumnChunkMetaData, OffsetIndexBuilder, PageEncodingStats};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedPageWriter, TrackedWrite};
use parquet::schema::types::ColumnDescPtr;

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

/// The strings of a row group (`data`, each present value's end in `ends`, a
/// definition level per row in `defs`) as one column chunk of column `descr`.
pub(crate) fn json_chunk(
    descr: ColumnDescPtr,
    props: &WriterProperties,
    data: &[u8],
    ends: &[usize],
    defs: &[i16],
) -> Result<(Bytes, ColumnCloseResult)> {
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
        write_chunk(descr, props, data, ends, defs, scratch)
    })
}

fn write_chunk(
    descr: ColumnDescPtr,
    props: &WriterProperties,
    data: &[u8],
    ends: &[usize],
    defs: &[i16],
    scratch: &mut Scratch,
) -> Result<(Bytes, ColumnCloseResult)> {
    let optional = descr.max_def_level() > 0;
    let size_limit = props.column_data_page_size_limit(descr.path()).max(1);
    let row_limit = props.data_page_row_count_limit().max(1);
    let mut sink = TrackedWrite::new(Vec::new());
    let mut offsets = OffsetIndexBuilder::new();
    let (mut compressed, mut uncompressed, mut written, mut pages) = (0u64, 0u64, 0u64, 0);
    {
        let mut writer = SerializedPageWriter::new(&mut sink);
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
                levels(&defs[first_row..row], &mut scratch.packed);
                page.extend_from_slice(&(scratch.packed.len() as u32).to_le_bytes());
                page.extend_from_slice(&scratch.packed);
            }
            let mut from = start;
            for &end in &ends[first_value..value] {
                page.extend_from_slice(&((end - from) as u32).to_le_bytes());
                page.extend_from_slice(&data[from..end]);
                from = end;
            }
            let bound = zstd::zstd_safe::compress_bound(page.len());
            let mut out = Vec::with_capacity(bound);
            scratch
                .zstd
                .compress_to_buffer(page.as_slice(), &mut out)
                .map_err(|e| ParquetError::External(Box::new(e)))?;
            let rows = (row - first_row) as u32;
            let spec = writer.write_page(CompressedPage::new(
                Page::DataPage {
                    buf: Bytes::from(out),
                    num_values: rows,
                    encoding: Encoding::PLAIN,
                    def_level_encoding: Encoding::RLE,
                    rep_level_encoding: Encoding::RLE,
                    statistics: None,
                },
                page.len(),
            ))?;
            offsets.append_row_count(rows as i64);
            offsets.append_offset_and_size(spec.offset as i64, spec.compressed_size as i32);
            compressed += spec.compressed_size as u64;
            uncompressed += spec.uncompressed_size as u64;
            written += spec.bytes_written;
            pages += 1;
        }
        writer.close()?;
    }
    let metadata = ColumnChunkMetaData::builder(descr)
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(ZSTD_LEVEL)?))
        .set_encodings_mask(EncodingMask::new_from_encodings(
            [Encoding::PLAIN, Encoding::RLE].iter(),
        ))
        .set_page_encoding_stats(vec![PageEncodingStats {
            page_type: PageType::DATA_PAGE,
            encoding: Encoding::PLAIN,
            count: pages,
        }])
        .set_total_compressed_size(compressed as i64)
        .set_total_uncompressed_size(uncompressed as i64)
        .set_num_values(defs.len() as i64)
        .set_data_page_offset(0)
        .build()?;
    let close = ColumnCloseResult {
        bytes_written: written,
        rows_written: defs.len() as u64,
        metadata,
        bloom_filter: None,
        column_index: None,
        offset_index: Some(offsets.build()),
    };
    Ok((Bytes::from(sink.into_inner()?), close))
}

/// Definition levels of 0 and 1 as the RLE / bit-packed hybrid (bit width 1):
/// one RLE run when they are all equal, else one bit-packed run.
fn levels(defs: &[i16], out: &mut Vec<u8>) {
    out.clear();
    let varint = |out: &mut Vec<u8>, mut v: u64| loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            break;
        }
        out.push(byte | 0x80);
    };
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
    use super::levels;

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
}
