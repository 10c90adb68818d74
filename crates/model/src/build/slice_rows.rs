//! Filling the slice table's columns in place, one thread's rows per worker.
//!
//! Every thread's row count is known before its slices are built (each `X`, `B` or
//! `ui-nest` begin opens exactly one slice), so the columns are allocated once at
//! their final size and each worker writes its own disjoint range. Building a
//! table per thread and appending them copied every column once more into fresh
//! pages: on a 1 GB trace that copy and its page faults were the largest single
//! cost of the slice step. The cells few rows have (the closing `E`'s args,
//! `cname`) are gathered per worker as (row, value) pairs instead.

use std::mem::MaybeUninit;

use crate::args::TextRef;
use crate::strings::StrId;
use crate::tables::slices::slice_columns;
use crate::tables::{Ns, SliceId, SliceTable};

macro_rules! row {
    ($($(#[$doc:meta])* $c:ident: $t:ty,)*) => {
        /// One row of the slice table.
        pub(super) struct Row {
            $(pub $c: $t,)*
            pub tts: Option<Ns>,
            pub tdur: Option<Ns>,
            pub end_args: TextRef,
            pub cname: StrId,
        }
    };
}
slice_columns!(row);

/// The sparse cells of the rows a range was given, by row.
#[derive(Default)]
pub(super) struct SparseCells {
    pub end_args: Vec<(u32, TextRef)>,
    pub cname: Vec<(u32, StrId)>,
}

impl SparseCells {
    pub fn append(&mut self, mut other: SparseCells) {
        self.end_args.append(&mut other.end_args);
        self.cname.append(&mut other.cname);
    }
}

macro_rules! columns {
    ($($(#[$doc:meta])* $c:ident: $t:ty,)*) => {
        /// A range of rows of every column, not yet written.
        pub(super) struct RowsMut<'a> {
            $($c: &'a mut [MaybeUninit<$t>],)*
            /// Empty when the table keeps no thread times.
            tts: &'a mut [MaybeUninit<Option<Ns>>],
            tdur: &'a mut [MaybeUninit<Option<Ns>>],
            /// Row id of the range's first row.
            base: u32,
            /// Rows written so far.
            filled: usize,
            cells: SparseCells,
        }

        impl<'a> RowsMut<'a> {
            /// The spare capacity of every column of `table` (which must be empty),
            /// `n` rows long; the thread time columns only if `thread_times`.
            pub fn of(table: &'a mut SliceTable, n: usize, thread_times: bool) -> RowsMut<'a> {
                assert!(table.is_empty(), "rows are written into an empty table");
                let times = if thread_times { n } else { 0 };
                RowsMut {
                    $($c: {
                        table.$c.reserve_exact(n);
                        &mut table.$c.spare_capacity_mut()[..n]
                    },)*
                    tts: {
                        table.tts.reserve_exact(times);
                        &mut table.tts.spare_capacity_mut()[..times]
                    },
                    tdur: {
                        table.tdur.reserve_exact(times);
                        &mut table.tdur.spare_capacity_mut()[..times]
                    },
                    base: 0,
                    filled: 0,
                    cells: SparseCells::default(),
                }
            }

            /// Splits off the first `n` rows.
            pub fn split(self, n: usize) -> (RowsMut<'a>, RowsMut<'a>) {
                $(let $c = self.$c.split_at_mut(n);)*
                let times = if self.tts.is_empty() { 0 } else { n };
                let tts = self.tts.split_at_mut(times);
                let tdur = self.tdur.split_at_mut(times);
                (
                    RowsMut {
                        $($c: $c.0,)*
                        tts: tts.0,
                        tdur: tdur.0,
                        base: self.base,
                        filled: 0,
                        cells: SparseCells::default(),
                    },
                    RowsMut {
                        $($c: $c.1,)*
                        tts: tts.1,
                        tdur: tdur.1,
                        base: self.base + n as u32,
                        filled: 0,
                        cells: SparseCells::default(),
                    },
                )
            }

            pub fn push(&mut self, r: Row) {
                let i = self.filled;
                $(self.$c[i].write(r.$c);)*
                if let (Some(tts), Some(tdur)) = (self.tts.get_mut(i), self.tdur.get_mut(i)) {
                    tts.write(r.tts);
                    tdur.write(r.tdur);
                } else {
                    debug_assert!(r.tts.is_none() && r.tdur.is_none(), "thread times kept");
                }
                let row = self.base + i as u32;
                if r.end_args != TextRef::NONE {
                    self.cells.end_args.push((row, r.end_args));
                }
                if r.cname != StrId::NONE {
                    self.cells.cname.push((row, r.cname));
                }
                self.filled += 1;
            }

            /// Whether every row of the range was written.
            pub fn is_full(&self) -> bool {
                self.filled == self.ts.len()
            }

            /// The sparse cells of the rows written.
            pub fn take_cells(&mut self) -> SparseCells {
                std::mem::take(&mut self.cells)
            }
        }

        /// Marks the first `n` rows of every column written.
        ///
        /// # Safety
        /// Every row below `n` of every column must have been written through
        /// [`RowsMut::push`] on ranges that cover `0..n` (checked by the caller
        /// with [`RowsMut::is_full`] on each range), made by [`RowsMut::of`] with
        /// the same `thread_times`.
        pub(super) unsafe fn set_len(table: &mut SliceTable, n: usize, thread_times: bool) {
            // SAFETY: the caller guarantees the rows are initialised; capacity was
            // reserved by `RowsMut::of`.
            $(unsafe { table.$c.set_len(n) };)*
            if thread_times {
                // SAFETY: as above; the thread times were reserved (and so
                // written) only when kept.
                unsafe {
                    table.tts.set_len(n);
                    table.tdur.set_len(n);
                }
            }
        }
    };
}

slice_columns!(columns);
