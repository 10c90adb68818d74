//! A column of times in 5 bytes a row: each row's distance from one base (the
//! earliest time the column will hold), for columns written in place in any row
//! order, such as the slice table's starts and thread times.
//!
//! [`super::block_times`] packs times tighter (4 bytes) but needs each block's
//! rows in hand to find its base; the slice table's rows are written by several
//! workers at once, straight into their final places, so only a base known before
//! any row is written will do. 40 bits of nanoseconds span 18 minutes, which holds
//! the whole of most traces; a column whose times span more is kept whole (8 bytes
//! a row), decided before writing from the earliest and latest time. A value that
//! still does not fit (a row whose time was not among those) is kept whole in a
//! side table, its cell [`WIDE`].

use std::mem::MaybeUninit;

use super::ids::Ns;
use super::sparse::{Narrow, Sparse, U40};

/// The cell of a row whose time is kept in the side table.
const WIDE: u64 = (1 << 40) - 1;
/// The cell of an absent time (`Option<Ns>`'s `None`).
const ABSENT: u64 = (1 << 40) - 2;
/// Distances from the base that fit a cell: below the two marker cells.
const LIMIT: u64 = ABSENT;

/// A time a [`TimeColumn`] holds: `i64` ns, or an optional one.
pub(crate) trait BasedTime: Copy + PartialEq + std::fmt::Debug {
    /// The cell of `self` at `base`, if it fits one (never [`WIDE`]).
    fn rel(self, base: i64) -> Option<u64>;
    /// The value of a cell other than [`WIDE`].
    fn abs(rel: u64, base: i64) -> Self;
}

fn distance(v: i64, base: i64) -> Option<u64> {
    let d = v.checked_sub(base)?;
    u64::try_from(d).ok().filter(|&d| d < LIMIT)
}

impl BasedTime for i64 {
    fn rel(self, base: i64) -> Option<u64> {
        distance(self, base)
    }
    fn abs(rel: u64, base: i64) -> i64 {
        base + rel as i64
    }
}

impl BasedTime for Option<Ns> {
    fn rel(self, base: i64) -> Option<u64> {
        match self {
            None => Some(ABSENT),
            Some(v) => distance(v.get(), base),
        }
    }
    fn abs(rel: u64, base: i64) -> Option<Ns> {
        (rel != ABSENT).then(|| Ns::new(base + rel as i64))
    }
}

/// The cell of a distance below [`LIMIT`], or of a marker.
fn cell(rel: u64) -> U40 {
    match rel.narrow() {
        Some(c) => c,
        None => <u64 as Narrow>::WIDE,
    }
}

/// How a column keeps its times: chosen before any row is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimeLayout {
    /// 5-byte distances from `base`.
    Based(i64),
    /// One whole value a row.
    Whole,
}

impl TimeLayout {
    /// The layout for times from `min` to `max` (both `None`: no times at all).
    pub fn spanning(min: Option<i64>, max: Option<i64>) -> TimeLayout {
        match (min, max) {
            (Some(lo), Some(hi)) if distance(hi, lo).is_some() => TimeLayout::Based(lo),
            (None, None) => TimeLayout::Based(0),
            _ => TimeLayout::Whole,
        }
    }
}

/// Times by row (see the module's doc).
#[derive(Clone, Debug)]
pub(crate) enum TimeColumn<T: BasedTime> {
    Based {
        base: i64,
        cells: Vec<U40>,
        wide: Sparse<T>,
    },
    Whole(Vec<T>),
}

impl<T: BasedTime> Default for TimeColumn<T> {
    fn default() -> Self {
        TimeColumn::Whole(Vec::new())
    }
}

impl<T: BasedTime> TimeColumn<T> {
    pub fn len(&self) -> usize {
        match self {
            TimeColumn::Based { cells, .. } => cells.len(),
            TimeColumn::Whole(all) => all.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The time of row `i`.
    #[inline]
    pub fn get(&self, i: usize) -> T {
        match self {
            TimeColumn::Based { base, cells, wide } => {
                let rel = u64::widen(cells[i]);
                if rel != WIDE {
                    T::abs(rel, *base)
                } else {
                    match wide.get(i) {
                        Some(v) => v,
                        None => unreachable!("a wide cell's time is kept"),
                    }
                }
            }
            TimeColumn::Whole(all) => all[i],
        }
    }

    /// Bytes a row takes in the column (its side table aside).
    pub fn cell_bytes(&self) -> usize {
        match self {
            TimeColumn::Based { .. } => std::mem::size_of::<U40>(),
            TimeColumn::Whole(_) => std::mem::size_of::<T>(),
        }
    }

    /// How many rows are kept in the side table.
    #[cfg(test)]
    pub fn wide_rows(&self) -> usize {
        match self {
            TimeColumn::Based { wide, .. } => wide.len(),
            TimeColumn::Whole(_) => 0,
        }
    }

    /// The spare capacity for `n` rows in `layout` (the column must be empty),
    /// to be written in place; [`TimeColumn::set_len`] then marks them written.
    pub fn spare(&mut self, layout: TimeLayout, n: usize) -> TimeCells<'_, T> {
        assert!(self.is_empty(), "rows are written into an empty column");
        *self = match layout {
            TimeLayout::Based(base) => TimeColumn::Based {
                base,
                cells: Vec::new(),
                wide: Sparse::from_pairs(Vec::new()),
            },
            TimeLayout::Whole => TimeColumn::Whole(Vec::new()),
        };
        match self {
            TimeColumn::Based { base, cells, .. } => {
                cells.reserve_exact(n);
                TimeCells::Based {
                    base: *base,
                    cells: &mut cells.spare_capacity_mut()[..n],
                }
            }
            TimeColumn::Whole(all) => {
                all.reserve_exact(n);
                TimeCells::Whole(&mut all.spare_capacity_mut()[..n])
            }
        }
    }

    /// Marks the first `n` rows written and keeps `wide`, the rows whose cells
    /// were written [`WIDE`].
    ///
    /// # Safety
    /// Every row below `n` must have been written through [`TimeCells::write`] on
    /// cells from [`TimeColumn::spare`] of this column.
    pub unsafe fn set_len(&mut self, n: usize, wide_rows: Vec<(u32, T)>) {
        match self {
            TimeColumn::Based { cells, wide, .. } => {
                // SAFETY: the caller guarantees the rows are written.
                unsafe { cells.set_len(n) };
                *wide = Sparse::from_pairs(wide_rows);
            }
            TimeColumn::Whole(all) => {
                debug_assert!(wide_rows.is_empty(), "a whole column keeps every time");
                // SAFETY: as above.
                unsafe { all.set_len(n) };
            }
        }
    }
}

/// Rows of a [`TimeColumn`] not yet written (see [`TimeColumn::spare`]).
pub(crate) enum TimeCells<'a, T> {
    Based {
        base: i64,
        cells: &'a mut [MaybeUninit<U40>],
    },
    Whole(&'a mut [MaybeUninit<T>]),
}

impl<'a, T: BasedTime> TimeCells<'a, T> {
    /// No rows (a column the table does not keep).
    pub fn none() -> TimeCells<'a, T> {
        TimeCells::Whole(&mut [])
    }

    pub fn len(&self) -> usize {
        match self {
            TimeCells::Based { cells, .. } => cells.len(),
            TimeCells::Whole(all) => all.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Splits off the first `n` rows.
    pub fn split(self, n: usize) -> (TimeCells<'a, T>, TimeCells<'a, T>) {
        match self {
            TimeCells::Based { base, cells } => {
                let (a, b) = cells.split_at_mut(n);
                (
                    TimeCells::Based { base, cells: a },
                    TimeCells::Based { base, cells: b },
                )
            }
            TimeCells::Whole(all) => {
                let (a, b) = all.split_at_mut(n);
                (TimeCells::Whole(a), TimeCells::Whole(b))
            }
        }
    }

    /// Writes `v` at `i`, or a [`WIDE`] cell with (`row`, `v`) added to `wide`.
    #[inline]
    pub fn write(&mut self, i: usize, v: T, row: u32, wide: &mut Vec<(u32, T)>) {
        match self {
            TimeCells::Based { base, cells } => {
                let rel = v.rel(*base).unwrap_or_else(|| {
                    wide.push((row, v));
                    WIDE
                });
                // `WIDE` is `U40`'s own marker (its largest value).
                cells[i].write(cell(rel));
            }
            TimeCells::Whole(all) => {
                all[i].write(v);
            }
        }
    }

    /// The time written at `i` for `row` (`wide`: the rows written wide so far).
    ///
    /// # Safety
    /// Row `i` must have been written.
    pub unsafe fn written(&self, i: usize, row: u32, wide: &[(u32, T)]) -> T {
        match self {
            TimeCells::Based { base, cells } => {
                // SAFETY: the caller guarantees the row is written.
                let rel = u64::widen(unsafe { cells[i].assume_init() });
                if rel != WIDE {
                    T::abs(rel, *base)
                } else {
                    match wide.iter().rev().find(|c| c.0 == row) {
                        Some(c) => c.1,
                        None => unreachable!("a wide cell's time is kept"),
                    }
                }
            }
            // SAFETY: as above.
            TimeCells::Whole(all) => unsafe { all[i].assume_init() },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `values` as rows of a column in `layout` and reads them back.
    fn round_trip<T: BasedTime>(layout: TimeLayout, values: &[T]) -> TimeColumn<T> {
        let mut col = TimeColumn::default();
        let mut wide = Vec::new();
        {
            let cells = col.spare(layout, values.len());
            // Written in two ranges, the second first, as workers do.
            let (mut a, mut b) = cells.split(values.len() / 2);
            let half = values.len() / 2;
            for (i, &v) in values[half..].iter().enumerate() {
                let row = (half + i) as u32;
                b.write(i, v, row, &mut wide);
                assert_eq!(unsafe { b.written(i, row, &wide) }, v);
            }
            for (i, &v) in values[..half].iter().enumerate() {
                a.write(i, v, i as u32, &mut wide);
                assert_eq!(unsafe { a.written(i, i as u32, &wide) }, v);
            }
        }
        // SAFETY: every row was written above.
        unsafe { col.set_len(values.len(), wide) };
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(col.get(i), v, "row {i}");
        }
        col
    }

    #[test]
    fn times_within_the_span_fit_their_cells() {
        let base = -5_000;
        let times = [base, base + 1, 0, base + LIMIT as i64 - 1];
        let layout = TimeLayout::spanning(Some(base), Some(base + LIMIT as i64 - 1));
        assert_eq!(layout, TimeLayout::Based(base));
        let col = round_trip(layout, &times);
        assert_eq!((col.wide_rows(), col.cell_bytes()), (0, 5));
    }

    #[test]
    fn times_outside_the_span_are_kept_whole() {
        let times = [
            10,
            9,
            10 + LIMIT as i64,
            10 + WIDE as i64,
            i64::MIN,
            i64::MAX,
            11,
        ];
        let col = round_trip(TimeLayout::Based(10), &times);
        assert_eq!(col.wide_rows(), 5);
    }

    #[test]
    fn a_span_past_the_cells_keeps_the_column_whole() {
        let (lo, hi) = (100, 100 + LIMIT as i64);
        let layout = TimeLayout::spanning(Some(lo), Some(hi));
        assert_eq!(layout, TimeLayout::Whole);
        let col = round_trip(layout, &[lo, hi, i64::MIN, i64::MAX]);
        assert_eq!((col.wide_rows(), col.cell_bytes()), (0, 8));
        assert_eq!(
            TimeLayout::spanning(Some(i64::MIN), Some(i64::MAX)),
            TimeLayout::Whole
        );
        assert_eq!(TimeLayout::spanning(None, None), TimeLayout::Based(0));
    }

    #[test]
    fn absent_thread_times_take_a_cell_of_their_own() {
        let ns = |v: i64| Some(Ns::new(v));
        let times = [
            None,
            ns(7),
            ns(7 + ABSENT as i64),
            ns(7 + WIDE as i64),
            ns(6),
            None,
            ns(7 + LIMIT as i64 - 1),
        ];
        let col = round_trip(TimeLayout::Based(7), &times);
        assert_eq!(col.wide_rows(), 3);
        round_trip(TimeLayout::Whole, &times);
    }

    proptest::proptest! {
        /// Any times, near the base, near the cells' edges or anywhere, read back
        /// exactly in either layout.
        #[test]
        fn any_times_read_back(
            base in proptest::num::i64::ANY,
            values in proptest::collection::vec(
                proptest::prop_oneof![
                    -3i64..3,
                    (LIMIT as i64 - 3)..(WIDE as i64 + 3),
                    proptest::num::i64::ANY,
                ],
                0..64,
            )
        ) {
            let values: Vec<i64> = values.iter().map(|v| base.wrapping_add(*v)).collect();
            round_trip(TimeLayout::Based(base), &values);
            round_trip(TimeLayout::Whole, &values);
        }
    }
}
