//! A column that has a value on few rows: the rows that have one, sorted, and their
//! values, instead of a cell on every row; and a column of narrow cells whose few
//! values that do not fit are kept in one.

use super::ids::Ns;
use crate::strings::StrId;

/// Values on some rows of a table, looked up by row (binary search).
#[derive(Clone, Debug, Default)]
pub(crate) struct Sparse<T> {
    rows: Vec<u32>,
    values: Vec<T>,
}

impl<T: Copy> Sparse<T> {
    /// From (row, value) pairs in any order, each row at most once.
    pub fn from_pairs(mut pairs: Vec<(u32, T)>) -> Sparse<T> {
        // Written in row order by the builder: the sort only checks that.
        pairs.sort_unstable_by_key(|p| p.0);
        debug_assert!(pairs.windows(2).all(|w| w[0].0 < w[1].0));
        let (rows, values) = pairs.into_iter().unzip();
        Sparse { rows, values }
    }

    /// The value of row `i`, if it has one.
    pub fn get(&self, i: usize) -> Option<T> {
        let i = u32::try_from(i).ok()?;
        self.rows.binary_search(&i).ok().map(|k| self.values[k])
    }

    /// How many rows have a value.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.rows.capacity() * 4 + self.values.capacity() * std::mem::size_of::<T>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_without_a_value_read_none() {
        let s = Sparse::from_pairs(vec![(7, 'b'), (2, 'a'), (9, 'c')]);
        let got: Vec<_> = (0..11).map(|i| s.get(i)).collect();
        let mut want = vec![None; 11];
        want[2] = Some('a');
        want[7] = Some('b');
        want[9] = Some('c');
        assert_eq!(got, want);
        assert_eq!(Sparse::<u8>::default().get(0), None);
    }
}

/// A value stored in a narrower cell when it fits ([`Narrow::narrow`]); a value
/// that does not is kept whole in a [`Sparse`] beside the column, its cell
/// [`Narrow::WIDE`].
pub(crate) trait Narrow: Copy {
    type Cell: Copy + PartialEq;
    /// The cell of a value kept apart.
    const WIDE: Self::Cell;
    /// The cell of `self`, if it fits one (never `WIDE`).
    fn narrow(self) -> Option<Self::Cell>;
    /// The value of a cell other than `WIDE`.
    fn widen(cell: Self::Cell) -> Self;
}

/// A column of [`Narrow`] cells and the values that did not fit.
#[derive(Clone, Debug, Default)]
pub(crate) struct NarrowColumn<T: Narrow> {
    pub cells: Vec<T::Cell>,
    pub wide: Sparse<T>,
}

impl<T: Narrow> NarrowColumn<T> {
    /// The value of row `i`.
    pub fn get(&self, i: usize) -> T {
        let c = self.cells[i];
        if c == T::WIDE {
            match self.wide.get(i) {
                Some(v) => v,
                None => unreachable!("a wide cell's value is kept"),
            }
        } else {
            T::widen(c)
        }
    }
}

/// The cell of `v`, or `WIDE` with (`row`, `v`) added to `wide`.
pub(crate) fn narrow_cell<T: Narrow>(v: T, row: u32, wide: &mut Vec<(u32, T)>) -> T::Cell {
    v.narrow().unwrap_or_else(|| {
        wide.push((row, v));
        T::WIDE
    })
}

/// Nesting depths: under 65,535 in any real trace.
impl Narrow for u32 {
    type Cell = u16;
    const WIDE: u16 = u16::MAX;
    fn narrow(self) -> Option<u16> {
        u16::try_from(self).ok().filter(|&c| c != Self::WIDE)
    }
    fn widen(cell: u16) -> u32 {
        cell.into()
    }
}

/// Categories in 2 bytes: a trace has few, interned among its first strings.
impl Narrow for StrId {
    type Cell = u16;
    const WIDE: u16 = u16::MAX;
    fn narrow(self) -> Option<u16> {
        self.0.narrow()
    }
    fn widen(cell: u16) -> StrId {
        StrId(cell.into())
    }
}

/// Byte offsets in 5 bytes: files up to 1 TiB.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, packed)]
pub(crate) struct U40 {
    low: u32,
    high: u8,
}

impl Narrow for u64 {
    type Cell = U40;
    const WIDE: U40 = U40 {
        low: u32::MAX,
        high: u8::MAX,
    };
    fn narrow(self) -> Option<U40> {
        let high = u8::try_from(self >> 32).ok()?;
        Some(U40 {
            low: self as u32,
            high,
        })
        .filter(|&c| c != Self::WIDE)
    }
    fn widen(cell: U40) -> u64 {
        (u64::from(cell.high) << 32) | u64::from(cell.low)
    }
}

/// Durations in 4 bytes: from 0 to 4.29 s (`u32::MAX - 1` ns); negative ones and
/// longer ones are kept whole.
impl Narrow for i64 {
    type Cell = u32;
    const WIDE: u32 = u32::MAX;
    fn narrow(self) -> Option<u32> {
        u32::try_from(self).ok().filter(|&c| c != Self::WIDE)
    }
    fn widen(cell: u32) -> i64 {
        cell.into()
    }
}

/// Thread durations (`tdur`) in 4 bytes: up to 4.29 s, or absent.
impl Narrow for Option<Ns> {
    type Cell = u32;
    const WIDE: u32 = u32::MAX;
    fn narrow(self) -> Option<u32> {
        match self {
            None => Some(NO_NS),
            Some(v) => u32::try_from(v.get()).ok().filter(|&c| c < NO_NS),
        }
    }
    fn widen(cell: u32) -> Option<Ns> {
        (cell != NO_NS).then(|| Ns::new(cell.into()))
    }
}

/// The cell of an absent `Option<Ns>`.
const NO_NS: u32 = u32::MAX - 1;

#[cfg(test)]
mod narrow_tests {
    use super::*;

    /// Every value reads back as written: the ones that fit from their cell, the
    /// others (and the cell values kept as markers) from the side table.
    fn round_trip<T: Narrow + PartialEq + std::fmt::Debug>(values: &[T]) -> usize {
        let mut wide = Vec::new();
        let cells = values
            .iter()
            .enumerate()
            .map(|(i, &v)| narrow_cell(v, i as u32, &mut wide))
            .collect();
        let n = wide.len();
        let col = NarrowColumn {
            cells,
            wide: Sparse::from_pairs(wide),
        };
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(col.get(i), v, "row {i}");
        }
        n
    }

    #[test]
    fn values_that_do_not_fit_are_kept_whole() {
        let depths = [0, 1, 65_534, 65_535, 65_536, u32::MAX];
        assert_eq!(round_trip(&depths), 3);
        let offsets = [0, 1 << 32, (1 << 40) - 2, (1 << 40) - 1, 1 << 40, u64::MAX];
        assert_eq!(round_trip(&offsets), 3);
        let cats = [0, 1, 65_534, 65_535, 65_536, u32::MAX].map(StrId);
        assert_eq!(round_trip(&cats), 3);
        let times = [
            None,
            Some(Ns::new(0)),
            Some(Ns::new(4_294_967_293)),
            Some(Ns::new(4_294_967_294)),
            Some(Ns::new(4_294_967_295)),
            Some(Ns::new(-1)),
            Some(Ns::new(i64::MAX)),
        ];
        assert_eq!(round_trip(&times), 4);
        let durations = [
            0,
            1,
            4_294_967_294,
            4_294_967_295,
            4_294_967_296,
            -1,
            i64::MIN,
            i64::MAX,
        ];
        assert_eq!(round_trip(&durations), 5);
        assert_eq!(std::mem::size_of::<U40>(), 5);
    }

    proptest::proptest! {
        /// Any durations, near the cell's edges or anywhere, read back exactly.
        #[test]
        fn any_durations_read_back(
            values in proptest::collection::vec(
                proptest::prop_oneof![
                    (u32::MAX as i64 - 3)..(u32::MAX as i64 + 3),
                    -3i64..3,
                    proptest::num::i64::ANY,
                ],
                0..64,
            )
        ) {
            round_trip(&values);
        }
    }
}
