//! Filling the slice table's columns in place, one thread's rows per worker.
//!
//! Every thread's row count is known before its slices are built (each `X`, `B` or
//! `ui-nest` begin opens exactly one slice), so the columns are allocated once at
//! their final size and each worker writes its own disjoint range. Building a
//! table per thread and appending them copied every column once more into fresh
//! pages: on a 1 GB trace that copy and its page faults were the largest single
//! cost of the slice step.

use std::mem::MaybeUninit;

use crate::args::TextRef;
use crate::strings::StrId;
use crate::tables::slices::slice_columns;
use crate::tables::{Lane, Ns, SliceId, SliceTable, ThreadId};

macro_rules! row {
    ($($(#[$doc:meta])* $c:ident: $t:ty,)*) => {
        /// One row of the slice table.
        pub(super) struct Row {
            $(pub $c: $t,)*
        }
    };
}
slice_columns!(row);

macro_rules! columns {
    ($($(#[$doc:meta])* $c:ident: $t:ty,)*) => {
        /// A range of rows of every column, not yet written.
        pub(super) struct RowsMut<'a> {
            $($c: &'a mut [MaybeUninit<$t>],)*
            /// Rows written so far.
            filled: usize,
        }

        impl<'a> RowsMut<'a> {
            /// The spare capacity of every column of `table` (which must be empty),
            /// `n` rows long.
            pub fn of(table: &'a mut SliceTable, n: usize) -> RowsMut<'a> {
                assert!(table.is_empty(), "rows are written into an empty table");
                RowsMut {
                    $($c: {
                        table.$c.reserve_exact(n);
                        &mut table.$c.spare_capacity_mut()[..n]
                    },)*
                    filled: 0,
                }
            }

            /// Splits off the first `n` rows.
            pub fn split(self, n: usize) -> (RowsMut<'a>, RowsMut<'a>) {
                $(let $c = self.$c.split_at_mut(n);)*
                (
                    RowsMut { $($c: $c.0,)* filled: 0 },
                    RowsMut { $($c: $c.1,)* filled: 0 },
                )
            }

            pub fn push(&mut self, r: Row) {
                let i = self.filled;
                $(self.$c[i].write(r.$c);)*
                self.filled += 1;
            }

            /// Whether every row of the range was written.
            pub fn is_full(&self) -> bool {
                self.filled == self.ts.len()
            }
        }

        /// Marks the first `n` rows of every column written.
        ///
        /// # Safety
        /// Every row below `n` of every column must have been written through
        /// [`RowsMut::push`] on ranges that cover `0..n` (checked by the caller
        /// with [`RowsMut::is_full`] on each range).
        pub(super) unsafe fn set_len(table: &mut SliceTable, n: usize) {
            // SAFETY: the caller guarantees the rows are initialised; capacity was
            // reserved by `RowsMut::of`.
            $(unsafe { table.$c.set_len(n) };)*
        }
    };
}

slice_columns!(columns);
