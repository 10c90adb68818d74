//! The sample table's leaf frames, in 2 bytes a row when every frame's index fits.

use std::ops::Range;

use super::ids::FrameId;

/// Each sample's leaf frame (`None`: an empty stack). 2 bytes a row while every
/// frame's index is below 65,535 (a profile has hundreds to a few thousand nodes,
/// and a 1 GB trace millions of samples), else the 4-byte `Option<FrameId>` of
/// every row. Built wide, then [`LeafFrames::narrowed`].
#[derive(Clone, Debug)]
pub(crate) enum LeafFrames {
    /// `0` for `None`, else the frame's index plus one.
    Narrow(Vec<u16>),
    Wide(Vec<Option<FrameId>>),
}

impl Default for LeafFrames {
    fn default() -> Self {
        LeafFrames::Wide(Vec::new())
    }
}

/// A frame as a narrow cell, if its index fits.
fn narrow(f: Option<FrameId>) -> Option<u16> {
    match f {
        None => Some(0),
        Some(f) => u16::try_from(f.index() + 1).ok(),
    }
}

fn widen(cell: u16) -> Option<FrameId> {
    (cell != 0).then(|| FrameId::new(u32::from(cell) - 1))
}

impl LeafFrames {
    pub fn len(&self) -> usize {
        match self {
            LeafFrames::Narrow(v) => v.len(),
            LeafFrames::Wide(v) => v.len(),
        }
    }

    /// The leaf frame of row `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<FrameId> {
        match self {
            LeafFrames::Narrow(v) => widen(v[i]),
            LeafFrames::Wide(v) => v[i],
        }
    }

    /// The leaf frames of `rows`, in order.
    pub fn range(&self, rows: Range<usize>) -> impl Iterator<Item = Option<FrameId>> + '_ {
        rows.map(|i| self.get(i))
    }

    /// The rows as `Option<FrameId>`s, to write while the table is built (a narrow
    /// column is widened first).
    pub fn building(&mut self) -> &mut Vec<Option<FrameId>> {
        if let LeafFrames::Narrow(v) = self {
            *self = LeafFrames::Wide(v.iter().map(|&c| widen(c)).collect());
        }
        match self {
            LeafFrames::Wide(v) => v,
            LeafFrames::Narrow(_) => unreachable!("widened above"),
        }
    }

    /// The same frames, in 2 bytes a row if every one fits.
    pub fn narrowed(self) -> LeafFrames {
        let LeafFrames::Wide(wide) = self else {
            return self;
        };
        match wide
            .iter()
            .map(|&f| narrow(f))
            .collect::<Option<Vec<u16>>>()
        {
            Some(cells) => LeafFrames::Narrow(cells),
            None => LeafFrames::Wide(wide),
        }
    }

    /// Bytes a row.
    #[cfg(test)]
    pub fn row_bytes(&self) -> usize {
        match self {
            LeafFrames::Narrow(_) => 2,
            LeafFrames::Wide(_) => 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn column(indexes: &[Option<u32>]) -> Vec<Option<FrameId>> {
        indexes.iter().map(|i| i.map(FrameId::new)).collect()
    }

    #[test]
    fn frames_whose_indexes_fit_are_narrow_and_read_back() {
        let rows = column(&[None, Some(0), Some(1), Some(65_533), Some(65_534), None]);
        let col = LeafFrames::Wide(rows.clone()).narrowed();
        assert_eq!(col.row_bytes(), 2);
        assert_eq!(col.range(0..rows.len()).collect::<Vec<_>>(), rows);
    }

    #[test]
    fn one_frame_past_two_bytes_keeps_the_column_wide() {
        let rows = column(&[Some(3), None, Some(65_535)]);
        let col = LeafFrames::Wide(rows.clone()).narrowed();
        assert_eq!(col.row_bytes(), 4);
        assert_eq!(col.range(0..3).collect::<Vec<_>>(), rows);
        let mut col = LeafFrames::Wide(column(&[Some(7)])).narrowed();
        col.building().push(Some(FrameId::new(70_000)));
        assert_eq!(col.get(0), Some(FrameId::new(7)));
        assert_eq!(col.get(1), Some(FrameId::new(70_000)));
    }

    proptest! {
        #[test]
        fn narrowed_reads_back_every_row(rows in prop::collection::vec(
            prop::option::of(prop_oneof![0u32..70_000, 65_530u32..65_540, Just(u32::MAX - 1)]),
            0..300,
        )) {
            let rows = column(&rows);
            let col = LeafFrames::Wide(rows.clone()).narrowed();
            prop_assert_eq!(col.len(), rows.len());
            prop_assert_eq!(col.range(0..rows.len()).collect::<Vec<_>>(), rows);
        }
    }
}
