//! A column whose value holds over long runs of rows (the samples' thread and
//! profile): each run's first row and its value, instead of a cell on every row.

use std::ops::Range;

/// Values by runs of rows: run `k` covers rows `starts[k]..starts[k + 1]` (the
/// last up to the table's length). Adjacent runs differ in value.
#[derive(Clone, Debug)]
pub(crate) struct Runs<T> {
    starts: Vec<u32>,
    values: Vec<T>,
}

impl<T> Default for Runs<T> {
    fn default() -> Self {
        Runs {
            starts: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl<T: Copy + PartialEq> Runs<T> {
    /// Row `row` (the next row of the table) has value `v`. Pushed twice, a row
    /// keeps the second value.
    pub fn push(&mut self, row: u32, v: T) {
        debug_assert!(self.starts.last().is_none_or(|&s| s <= row));
        if self.starts.last() == Some(&row) {
            self.starts.pop();
            self.values.pop();
        }
        if self.values.last() != Some(&v) {
            self.starts.push(row);
            self.values.push(v);
        }
    }

    /// Forgets the values of rows `row..` (to write them again).
    pub fn truncate(&mut self, row: u32) {
        let k = self.starts.partition_point(|&s| s < row);
        self.starts.truncate(k);
        self.values.truncate(k);
    }

    /// The value of row `i` (a row of the table).
    pub fn get(&self, i: usize) -> T {
        let k = self.starts.partition_point(|&s| s as usize <= i);
        self.values[k.checked_sub(1).expect("row before the first run")]
    }

    /// Each run's value and rows, in row order, for a table of `len` rows.
    pub fn iter(&self, len: usize) -> impl Iterator<Item = (T, Range<usize>)> + '_ {
        let ends = self.starts.iter().skip(1).map(|&s| s as usize).chain([len]);
        self.values
            .iter()
            .zip(self.starts.iter().zip(ends))
            .map(|(&v, (&s, e))| (v, s as usize..e))
    }

    pub fn shrink_to_fit(&mut self) {
        self.starts.shrink_to_fit();
        self.values.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_their_run_and_runs_merge_equal_neighbours() {
        let mut r = Runs::default();
        for (row, v) in [(0, 'a'), (1, 'a'), (2, 'b'), (3, 'b'), (4, 'a')] {
            r.push(row, v);
        }
        assert_eq!(r.iter(6).count(), 3);
        let got: Vec<_> = (0..6).map(|i| r.get(i)).collect();
        assert_eq!(got, ['a', 'a', 'b', 'b', 'a', 'a']);
        let runs: Vec<_> = r.iter(6).collect();
        assert_eq!(runs, [('a', 0..2), ('b', 2..4), ('a', 4..6)]);
        // Rewriting rows 3.. keeps the run that starts before them.
        r.truncate(3);
        r.push(3, 'b');
        r.push(4, 'c');
        assert_eq!(
            r.iter(5).collect::<Vec<_>>(),
            [('a', 0..2), ('b', 2..4), ('c', 4..5)]
        );
        assert_eq!(Runs::<u8>::default().iter(0).count(), 0);
        // A row pushed again keeps its last value: no empty run.
        r.push(5, 'd');
        r.push(5, 'c');
        assert_eq!(
            r.iter(6).collect::<Vec<_>>(),
            [('a', 0..2), ('b', 2..4), ('c', 4..6)]
        );
    }
}
