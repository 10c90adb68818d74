//! A column of times in 4 bytes a row, for rows in (mostly) time order: each
//! block of rows keeps its smallest time, and each row its distance from it.

use std::ops::Range;

use super::sparse::Sparse;

/// The first row of `rows` where `pred` fails, or `rows.end`: a binary search,
/// as `slice::partition_point`, over rows read through a column's accessor.
pub(crate) fn partition_rows(rows: Range<usize>, mut pred: impl FnMut(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (rows.start, rows.end.max(rows.start));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Rows a block: its base costs 8 / 256 of a byte a row, and a block holds at
/// most a few thread boundaries' jumps back in time.
const BLOCK_SHIFT: u32 = 8;
const BLOCK: usize = 1 << BLOCK_SHIFT;

/// The cell of a row whose distance from its block's base does not fit a `u32`
/// (over 4.29 s): its time is kept whole beside the column.
const WIDE: u32 = u32::MAX;

/// Times (i64 ns) by row. A row's time is its block's base (the block's smallest
/// time) plus its own `u32` offset: exact for any times, 4 bytes a row when the
/// rows of a block lie within 4.29 s of each other (rows sorted by time, the
/// samples of a thread), and 16 for each that does not, kept in a sparse side table.
/// When a third of the rows or more would be kept apart (times far apart on
/// every row), the column is one `i64` a row instead.
#[derive(Clone, Debug)]
pub struct BlockTimes(Repr);

#[derive(Clone, Debug)]
enum Repr {
    Blocks {
        /// Each block's smallest time.
        bases: Vec<i64>,
        /// Each row's time minus its block's base, or [`WIDE`].
        offsets: Vec<u32>,
        /// The times of the rows whose cell is [`WIDE`].
        wide: Sparse<i64>,
    },
    Whole(Vec<i64>),
}

impl Default for BlockTimes {
    fn default() -> Self {
        BlockTimes(Repr::Whole(Vec::new()))
    }
}

impl BlockTimes {
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Blocks { offsets, .. } => offsets.len(),
            Repr::Whole(all) => all.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The time of row `i`.
    #[inline]
    pub fn get(&self, i: usize) -> i64 {
        match &self.0 {
            Repr::Blocks {
                bases,
                offsets,
                wide,
            } => {
                let cell = offsets[i];
                if cell != WIDE {
                    bases[i >> BLOCK_SHIFT] + i64::from(cell)
                } else {
                    match wide.get(i) {
                        Some(t) => t,
                        None => unreachable!("a wide cell's time is kept"),
                    }
                }
            }
            Repr::Whole(all) => all[i],
        }
    }

    /// The times of `rows`, in row order.
    pub fn iter(&self, rows: Range<usize>) -> impl ExactSizeIterator<Item = i64> + '_ {
        rows.map(|i| self.get(i))
    }

    /// The first row of `rows` whose time fails `pred`, or `rows.end` (as
    /// `slice::partition_point` on the times of `rows`, which `pred` must
    /// partition: true on a prefix, false after).
    pub fn partition_point(&self, rows: Range<usize>, mut pred: impl FnMut(i64) -> bool) -> usize {
        partition_rows(rows, |i| pred(self.get(i)))
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        match &self.0 {
            Repr::Blocks {
                bases,
                offsets,
                wide,
            } => bases.capacity() * 8 + offsets.capacity() * 4 + wide.heap_bytes(),
            Repr::Whole(all) => all.capacity() * 8,
        }
    }

    /// How many rows keep their time whole (every row when the column is one
    /// `i64` a row).
    pub fn wide_rows(&self) -> usize {
        match &self.0 {
            Repr::Blocks { wide, .. } => wide.len(),
            Repr::Whole(all) => all.len(),
        }
    }
}

impl FromIterator<i64> for BlockTimes {
    fn from_iter<I: IntoIterator<Item = i64>>(times: I) -> Self {
        let mut b = BlockTimesBuilder::default();
        for t in times {
            b.push(t);
        }
        b.finish()
    }
}

/// Makes a [`BlockTimes`] a row at a time: the rows of the last block are held
/// whole until it is full.
#[derive(Debug, Default)]
pub(crate) struct BlockTimesBuilder {
    bases: Vec<i64>,
    offsets: Vec<u32>,
    /// (row, time) of the rows whose cell is [`WIDE`], in row order.
    wide: Vec<(u32, i64)>,
    /// The times of the rows after the full blocks (fewer than [`BLOCK`]).
    pending: Vec<i64>,
}

impl BlockTimesBuilder {
    /// Room for `n` rows.
    pub fn with_capacity(n: usize) -> Self {
        BlockTimesBuilder {
            bases: Vec::with_capacity(n.div_ceil(BLOCK)),
            offsets: Vec::with_capacity(n),
            wide: Vec::new(),
            pending: Vec::with_capacity(BLOCK),
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.offsets.len() + self.pending.len()
    }

    /// Appends a row.
    pub fn push(&mut self, t: i64) {
        self.pending.push(t);
        if self.pending.len() == BLOCK {
            self.flush();
        }
    }

    /// The time of row `i` (of those pushed).
    pub fn get(&self, i: usize) -> i64 {
        let done = self.offsets.len();
        if i >= done {
            return self.pending[i - done];
        }
        let cell = self.offsets[i];
        if cell != WIDE {
            return self.bases[i >> BLOCK_SHIFT] + i64::from(cell);
        }
        let k = self.wide.partition_point(|w| (w.0 as usize) < i);
        self.wide[k].1
    }

    /// Keeps the first `n` rows.
    pub fn truncate(&mut self, n: usize) {
        let done = self.offsets.len();
        if n >= done {
            self.pending.truncate(n - done);
            return;
        }
        // The block of row `n` is made pending again, with its rows before `n`.
        let start = n & !(BLOCK - 1);
        let kept: Vec<i64> = (start..n).map(|i| self.get(i)).collect();
        self.bases.truncate(start >> BLOCK_SHIFT);
        self.offsets.truncate(start);
        let w = self.wide.partition_point(|w| (w.0 as usize) < start);
        self.wide.truncate(w);
        self.pending.clear();
        self.pending.extend(kept);
    }

    /// Writes the pending rows as a block (full, or the last one).
    fn flush(&mut self) {
        let Some(&base) = self.pending.iter().min() else {
            return;
        };
        let first = self.offsets.len();
        self.bases.push(base);
        for (k, &t) in self.pending.iter().enumerate() {
            // `t >= base`: the distance is exact in a u64.
            let cell = u32::try_from(t.abs_diff(base))
                .ok()
                .filter(|&c| c != WIDE)
                .unwrap_or_else(|| {
                    self.wide.push(((first + k) as u32, t));
                    WIDE
                });
            self.offsets.push(cell);
        }
        self.pending.clear();
    }

    /// The column of the rows pushed.
    pub fn finish(mut self) -> BlockTimes {
        self.flush();
        let n = self.offsets.len();
        if self.wide.len() * 3 >= n && n > 0 {
            let all = (0..n).map(|i| self.get(i)).collect();
            return BlockTimes(Repr::Whole(all));
        }
        self.bases.shrink_to_fit();
        self.offsets.shrink_to_fit();
        BlockTimes(Repr::Blocks {
            bases: self.bases,
            offsets: self.offsets,
            wide: Sparse::from_pairs(self.wide),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every representation reads back every time, by row, by range and by
    /// binary search.
    fn reads_back(col: &BlockTimes, times: &[i64]) {
        assert_eq!(col.len(), times.len());
        for (i, &t) in times.iter().enumerate() {
            assert_eq!(col.get(i), t, "row {i}");
        }
        assert_eq!(col.iter(0..times.len()).collect::<Vec<_>>(), times);
    }

    fn is_blocks(col: &BlockTimes) -> bool {
        matches!(col.0, Repr::Blocks { .. })
    }

    /// Sorted runs (threads) one after another, times 100 µs apart: 4 bytes a
    /// row, a thread's start jumping back in time kept whole when it lands in a
    /// block of a thread over 4.29 s later.
    #[test]
    fn threads_of_sorted_times_are_four_bytes_a_row() {
        let mut times = Vec::new();
        for thread in 0..40 {
            // Threads starting 0..10 s into the trace, 1,000 samples each.
            let start = (thread % 10) * 1_000_000_000i64;
            times.extend((0..1000).map(|k| start + k * 100_000));
        }
        let col: BlockTimes = times.iter().copied().collect();
        reads_back(&col, &times);
        assert!(is_blocks(&col));
        assert!(col.wide_rows() < 40 * BLOCK, "{}", col.wide_rows());
        assert!(col.heap_bytes() < times.len() * 5, "{}", col.heap_bytes());
    }

    /// Times that do not fit their block's base plus a u32 are kept whole: the
    /// extremes of i64, offsets of exactly u32::MAX - 1, u32::MAX and past it.
    #[test]
    fn offsets_that_do_not_fit_are_kept_whole() {
        let max = i64::from(u32::MAX);
        let mut times = vec![0i64; 4 * BLOCK];
        times[1] = max - 1;
        times[2] = max;
        times[3] = max + 1;
        times[4] = i64::MAX;
        times[BLOCK] = i64::MIN;
        times[BLOCK + 1] = i64::MIN + max;
        times[2 * BLOCK] = -5;
        times[2 * BLOCK + 1] = -5 + max - 1;
        let col: BlockTimes = times.iter().copied().collect();
        reads_back(&col, &times);
        assert!(is_blocks(&col));
        // Block 0: u32::MAX and over; block 1: every row but the base's own.
        assert_eq!(col.wide_rows(), 3 + (BLOCK - 1));
    }

    /// Times far apart on most rows: one i64 a row.
    #[test]
    fn times_far_apart_are_kept_whole() {
        let times: Vec<i64> = (0..1000).map(|k| k * 5_000_000_000).collect();
        let col: BlockTimes = times.iter().copied().collect();
        reads_back(&col, &times);
        assert!(!is_blocks(&col));
        assert_eq!(col.heap_bytes(), 8 * times.len());
        let empty: BlockTimes = std::iter::empty().collect();
        assert!(empty.is_empty());
    }

    #[test]
    fn partition_point_over_a_range_is_the_slices() {
        let times: Vec<i64> = (0..3 * BLOCK as i64).map(|k| k * 7 - 1000).collect();
        let col: BlockTimes = times.iter().copied().collect();
        for (lo, hi) in [(0, times.len()), (5, 300), (256, 512), (100, 100), (9, 3)] {
            for x in [-2000, -1000, -999, 0, 7, 1000, 5000] {
                let want = lo + times[lo..hi.max(lo)].partition_point(|&t| t < x);
                assert_eq!(
                    col.partition_point(lo..hi, |t| t < x),
                    want,
                    "{lo}..{hi} {x}"
                );
            }
        }
    }

    /// Times near each other, far apart or at the extremes.
    fn time() -> impl Strategy<Value = i64> {
        prop_oneof![
            4 => 0i64..10_000_000_000,
            1 => any::<i64>(),
            1 => Just(i64::MIN),
            1 => Just(i64::MAX),
            1 => (0i64..3).prop_map(|k| i64::from(u32::MAX) - 1 + k),
        ]
    }

    proptest! {
        /// Any times read back exactly, whichever form the column takes, also
        /// after the builder dropped rows and took others (a thread sorted by
        /// time after it was written).
        #[test]
        fn block_times_round_trip(
            times in prop::collection::vec(time(), 0..1200),
            sorted in any::<bool>(),
            cut in 0usize..1200,
            again in prop::collection::vec(time(), 0..300),
        ) {
            let mut times = times;
            if sorted {
                times.sort_unstable();
            }
            let col: BlockTimes = times.iter().copied().collect();
            reads_back(&col, &times);
            let mut b = BlockTimesBuilder::with_capacity(times.len());
            for &t in &times {
                b.push(t);
            }
            let cut = cut.min(times.len());
            b.truncate(cut);
            prop_assert_eq!(b.len(), cut);
            times.truncate(cut);
            for &t in &again {
                b.push(t);
            }
            times.extend(&again);
            for (i, &t) in times.iter().enumerate() {
                prop_assert_eq!(b.get(i), t);
            }
            reads_back(&b.finish(), &times);
        }
    }
}
