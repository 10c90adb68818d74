//! How a chunk of integers is written, chosen from its values: most of a
//! table's columns are INT64 (ids, times, pids), and written PLAIN they are 8
//! bytes a value for zstd to squeeze, which was half the zstd time of an export
//! (BENCHMARKS.md, "SQL and Parquet", round 8). A dictionary (pids, tids,
//! threads, depths: a few distinct values) or deltas (times, durations) hand
//! zstd a fraction of that, and are smaller too; ids in time order, whose
//! deltas jump from thread to thread, stay PLAIN, where zstd does better.

use std::io::Write;

/// How a chunk of integers is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntEncoding {
    Plain,
    /// `DELTA_BINARY_PACKED`.
    Delta,
    /// `RLE_DICTIONARY` (the writer falls back to PLAIN if the dictionary grows
    /// beyond its page limit).
    Dictionary,
}

/// Values looked at to choose: the first of the chunk (rows are in time order,
/// so these are a fair sample of the row group).
const SAMPLE: usize = 4096;

/// At most one distinct value in this many (of the sample): a dictionary.
const DISTINCT_EVERY: usize = 16;

/// Deltas win unless PLAIN and zstd are smaller by more than this (in
/// percent): deltas cost a few times less CPU to write than zstd over 8 bytes
/// a value, and durations, say, come out 5-8% bigger as deltas.
const DELTA_SLACK_PERCENT: usize = 10;

/// The encoding for a chunk of `vals` (the present values, in row order);
/// `ascending` when they are sorted (two at least).
pub(crate) fn choose(vals: &[i64], ascending: bool) -> IntEncoding {
    if ascending {
        return IntEncoding::Delta;
    }
    let sample = &vals[..vals.len().min(SAMPLE)];
    if sample.len() < 2 {
        return IntEncoding::Plain;
    }
    let mut sorted = sample.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() * DISTINCT_EVERY <= sample.len() {
        return IntEncoding::Dictionary;
    }
    let plain = plain_zstd_size(sample);
    if delta_size(sample) * 100 <= plain * (100 + DELTA_SLACK_PERCENT) {
        IntEncoding::Delta
    } else {
        IntEncoding::Plain
    }
}

/// The size of `vals` written PLAIN then zstd'ed (at the export's level).
fn plain_zstd_size(vals: &[i64]) -> usize {
    let mut plain = Vec::with_capacity(vals.len() * 8);
    for v in vals {
        let _ = plain.write_all(&v.to_le_bytes());
    }
    zstd::bulk::compress(&plain, crate::encode::ZSTD_LEVEL).map_or(plain.len(), |z| z.len())
}

/// The size of `vals` as `DELTA_BINARY_PACKED` writes them: blocks of 128
/// deltas, each with its minimum (a varint) and four miniblocks of 32 deltas
/// above it, bit-packed at the widest one's width.
fn delta_size(vals: &[i64]) -> usize {
    let deltas: Vec<i64> = vals.windows(2).map(|w| w[1].wrapping_sub(w[0])).collect();
    let mut size = 10;
    for block in deltas.chunks(128) {
        let min = block.iter().copied().min().unwrap_or(0);
        size += 10 + 4;
        for mini in block.chunks(32) {
            let widest = mini.iter().map(|d| d.wrapping_sub(min) as u64).max();
            let bits = 64 - widest.unwrap_or(0).leading_zeros() as usize;
            size += 32 * bits / 8;
        }
    }
    size
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_distinct_values_take_a_dictionary() {
        let pids: Vec<i64> = (0..10_000).map(|i| [1000, 2000, 2001][i % 3]).collect();
        assert_eq!(choose(&pids, false), IntEncoding::Dictionary);
    }

    #[test]
    fn sorted_values_take_deltas() {
        let ts: Vec<i64> = (0..10_000).map(|i| i * 1000).collect();
        assert_eq!(choose(&ts, true), IntEncoding::Delta);
    }

    #[test]
    fn small_varied_values_take_deltas_and_interleaved_ids_stay_plain() {
        // Durations: a pseudo-random walk over a few thousand values.
        let mut x: u64 = 7;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let durs: Vec<i64> = (0..10_000).map(|_| (next() % 5000) as i64).collect();
        assert_eq!(choose(&durs, false), IntEncoding::Delta);
        // Ids of rows of many threads in time order: each thread's ascend, far
        // apart from the next thread's.
        let ids: Vec<i64> = (0..10_000)
            .map(|i| (next() % 14) as i64 * 250_000 + i as i64 / 14)
            .collect();
        assert_eq!(choose(&ids, false), IntEncoding::Plain);
    }

    #[test]
    fn a_chunk_of_one_value_or_none_is_plain() {
        assert_eq!(choose(&[], false), IntEncoding::Plain);
        assert_eq!(choose(&[5], false), IntEncoding::Plain);
    }

    #[test]
    fn delta_size_counts_bit_widths() {
        // 129 equal steps: one block, every delta at the minimum, 0 bits each.
        let steps: Vec<i64> = (0..129).map(|i| i * 10).collect();
        assert_eq!(delta_size(&steps), 10 + 14);
    }
}
