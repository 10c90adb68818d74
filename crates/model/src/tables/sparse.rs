//! A column that has a value on few rows: the rows that have one, sorted, and their
//! values, instead of a cell on every row.

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
