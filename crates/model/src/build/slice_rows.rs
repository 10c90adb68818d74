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
use crate::tables::args_cells::{args_cell, ArgsCell};
use crate::tables::based_times::{TimeCells, TimeLayout};
use crate::tables::slices::slice_columns;
use crate::tables::sparse::{narrow_cell, Narrow, Sparse, U40};
use crate::tables::{Ns, SliceId, SliceTable};

macro_rules! row {
    ($($(#[$doc:meta])* $c:ident: $t:ty,)*) => {
        /// One row of the slice table.
        pub(super) struct Row {
            pub ts: i64,
            pub cat: StrId,
            $(pub $c: $t,)*
            pub dur: i64,
            pub self_ns: i64,
            pub args: TextRef,
            pub depth: u32,
            pub offset: u64,
            pub tts: Option<Ns>,
            pub tdur: Option<Ns>,
            pub end_args: TextRef,
            pub cname: StrId,
        }
    };
}
slice_columns!(row);

/// The earliest and latest start and thread time of the rows a table will get,
/// noted before they are written: they choose the layouts of the time columns
/// (`tables::based_times`), and whether the thread times are kept at all.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TimeSpans {
    ts: Option<(i64, i64)>,
    tts: Option<(i64, i64)>,
    /// Whether some row has a thread time (`tts` or `tdur`).
    pub thread_times: bool,
}

fn widen_span(span: &mut Option<(i64, i64)>, v: i64) {
    *span = Some(match *span {
        Some((lo, hi)) => (lo.min(v), hi.max(v)),
        None => (v, v),
    });
}

fn join_span(a: Option<(i64, i64)>, b: Option<(i64, i64)>) -> Option<(i64, i64)> {
    match (a, b) {
        (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
        (a, b) => a.or(b),
    }
}

impl TimeSpans {
    /// Notes a record's start, thread time, and whether it has a thread time.
    #[inline]
    pub fn note(&mut self, ts: i64, tts: Option<Ns>, thread_time: bool) {
        widen_span(&mut self.ts, ts);
        if let Some(t) = tts {
            widen_span(&mut self.tts, t.get());
        }
        self.thread_times |= thread_time;
    }

    /// The spans of both.
    pub fn join(self, other: TimeSpans) -> TimeSpans {
        TimeSpans {
            ts: join_span(self.ts, other.ts),
            tts: join_span(self.tts, other.tts),
            thread_times: self.thread_times || other.thread_times,
        }
    }

    fn layout(span: Option<(i64, i64)>) -> TimeLayout {
        TimeLayout::spanning(span.map(|s| s.0), span.map(|s| s.1))
    }
}

/// The sparse cells of the rows a range was given, and the values too wide for
/// their narrow cells, by row.
#[derive(Default)]
pub(super) struct SparseCells {
    pub end_args: Vec<(u32, TextRef)>,
    pub cname: Vec<(u32, StrId)>,
    pub ts: Vec<(u32, i64)>,
    pub cat: Vec<(u32, StrId)>,
    pub tts: Vec<(u32, Option<Ns>)>,
    pub dur: Vec<(u32, i64)>,
    pub self_ns: Vec<(u32, i64)>,
    pub args: Vec<(u32, TextRef)>,
    pub depth: Vec<(u32, u32)>,
    pub offset: Vec<(u32, u64)>,
    pub tdur: Vec<(u32, Option<Ns>)>,
}

impl SparseCells {
    pub fn append(&mut self, mut other: SparseCells) {
        self.end_args.append(&mut other.end_args);
        self.cname.append(&mut other.cname);
        self.ts.append(&mut other.ts);
        self.cat.append(&mut other.cat);
        self.tts.append(&mut other.tts);
        self.dur.append(&mut other.dur);
        self.self_ns.append(&mut other.self_ns);
        self.args.append(&mut other.args);
        self.depth.append(&mut other.depth);
        self.offset.append(&mut other.offset);
        self.tdur.append(&mut other.tdur);
    }

    /// Puts the cells in `table` (whose narrow columns are written; the time
    /// columns take theirs in `set_len`).
    fn store(self, table: &mut SliceTable) {
        table.end_args = Sparse::from_pairs(self.end_args);
        table.cname = Sparse::from_pairs(self.cname);
        table.cat.wide = Sparse::from_pairs(self.cat);
        table.dur.wide = Sparse::from_pairs(self.dur);
        table.self_ns.wide = Sparse::from_pairs(self.self_ns);
        table.args.wide = Sparse::from_pairs(self.args);
        table.depth.wide = Sparse::from_pairs(self.depth);
        table.offset.wide = Sparse::from_pairs(self.offset);
        table.tdur.wide = Sparse::from_pairs(self.tdur);
    }
}

/// The spare capacity of `v` (which must be empty), `n` cells.
fn spare<T>(v: &mut Vec<T>, n: usize) -> &mut [MaybeUninit<T>] {
    v.reserve_exact(n);
    &mut v.spare_capacity_mut()[..n]
}

macro_rules! columns {
    ($($(#[$doc:meta])* $c:ident: $t:ty,)*) => {
        /// A range of rows of every column, not yet written.
        pub(super) struct RowsMut<'a> {
            ts: TimeCells<'a, i64>,
            cat: &'a mut [MaybeUninit<u16>],
            $($c: &'a mut [MaybeUninit<$t>],)*
            dur: &'a mut [MaybeUninit<u32>],
            self_ns: &'a mut [MaybeUninit<u32>],
            args: &'a mut [MaybeUninit<ArgsCell>],
            depth: &'a mut [MaybeUninit<u16>],
            offset: &'a mut [MaybeUninit<U40>],
            /// Empty when the table keeps no thread times.
            tts: TimeCells<'a, Option<Ns>>,
            tdur: &'a mut [MaybeUninit<u32>],
            /// Row id of the range's first row.
            base: u32,
            /// Rows written so far.
            filled: usize,
            cells: SparseCells,
        }

        impl<'a> RowsMut<'a> {
            /// The spare capacity of every column of `table` (which must be empty),
            /// `n` rows long, for rows within `spans`; the thread time columns
            /// only if `spans` has thread times.
            pub fn of(table: &'a mut SliceTable, n: usize, spans: TimeSpans) -> RowsMut<'a> {
                assert!(table.is_empty(), "rows are written into an empty table");
                let times = if spans.thread_times { n } else { 0 };
                let tts = if spans.thread_times {
                    table.tts.spare(TimeSpans::layout(spans.tts), n)
                } else {
                    TimeCells::none()
                };
                RowsMut {
                    ts: table.ts.spare(TimeSpans::layout(spans.ts), n),
                    cat: spare(&mut table.cat.cells, n),
                    tts,
                    $($c: spare(&mut table.$c, n),)*
                    dur: spare(&mut table.dur.cells, n),
                    self_ns: spare(&mut table.self_ns.cells, n),
                    args: spare(&mut table.args.cells, n),
                    depth: spare(&mut table.depth.cells, n),
                    offset: spare(&mut table.offset.cells, n),
                    tdur: spare(&mut table.tdur.cells, times),
                    base: 0,
                    filled: 0,
                    cells: SparseCells::default(),
                }
            }

            /// Splits off the first `n` rows.
            pub fn split(self, n: usize) -> (RowsMut<'a>, RowsMut<'a>) {
                let ts = self.ts.split(n);
                let cat = self.cat.split_at_mut(n);
                $(let $c = self.$c.split_at_mut(n);)*
                let dur = self.dur.split_at_mut(n);
                let self_ns = self.self_ns.split_at_mut(n);
                let args = self.args.split_at_mut(n);
                let depth = self.depth.split_at_mut(n);
                let offset = self.offset.split_at_mut(n);
                let times = if self.tts.is_empty() { 0 } else { n };
                let tts = self.tts.split(times);
                let tdur = self.tdur.split_at_mut(times);
                (
                    RowsMut {
                        ts: ts.0,
                        cat: cat.0,
                        $($c: $c.0,)*
                        dur: dur.0,
                        self_ns: self_ns.0,
                        args: args.0,
                        depth: depth.0,
                        offset: offset.0,
                        tts: tts.0,
                        tdur: tdur.0,
                        base: self.base,
                        filled: 0,
                        cells: SparseCells::default(),
                    },
                    RowsMut {
                        ts: ts.1,
                        cat: cat.1,
                        $($c: $c.1,)*
                        dur: dur.1,
                        self_ns: self_ns.1,
                        args: args.1,
                        depth: depth.1,
                        offset: offset.1,
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
                let row = self.base + i as u32;
                let cells = &mut self.cells;
                self.ts.write(i, r.ts, row, &mut cells.ts);
                self.cat[i].write(narrow_cell(r.cat, row, &mut cells.cat));
                $(self.$c[i].write(r.$c);)*
                self.dur[i].write(narrow_cell(r.dur, row, &mut cells.dur));
                self.self_ns[i].write(narrow_cell(r.self_ns, row, &mut cells.self_ns));
                self.args[i].write(args_cell(r.args, r.offset, row, &mut cells.args));
                self.depth[i].write(narrow_cell(r.depth, row, &mut cells.depth));
                self.offset[i].write(narrow_cell(r.offset, row, &mut cells.offset));
                if let Some(tdur) = self.tdur.get_mut(i) {
                    self.tts.write(i, r.tts, row, &mut cells.tts);
                    tdur.write(narrow_cell(r.tdur, row, &mut cells.tdur));
                } else {
                    debug_assert!(r.tts.is_none() && r.tdur.is_none(), "thread times kept");
                }
                if r.end_args != TextRef::NONE {
                    cells.end_args.push((row, r.end_args));
                }
                if r.cname != StrId::NONE {
                    cells.cname.push((row, r.cname));
                }
                self.filled += 1;
            }

            /// Rows written so far.
            pub fn len(&self) -> usize {
                self.filled
            }

            /// Sets the self time of written row `i` (of the range), once, on a
            /// row pushed with a self time that fits its cell (the stack lane
            /// pushes 0 for the rows whose self time it sets when they leave the
            /// stack): a value that does not fit then has no earlier one to
            /// replace beside the column.
            pub fn set_self_ns(&mut self, i: usize, v: i64) {
                assert!(i < self.filled, "a row is written before it is changed");
                // SAFETY: `push` wrote the rows below `filled`.
                let old = unsafe { self.self_ns[i].assume_init() };
                assert!(old != <i64 as Narrow>::WIDE, "a row's self time is set once");
                let row = self.base + i as u32;
                self.self_ns[i].write(narrow_cell(v, row, &mut self.cells.self_ns));
            }

            /// Sets the depth of written row `i` (of the range), whose depth cell
            /// was written narrow (not wide).
            pub fn set_depth(&mut self, i: usize, depth: u32) {
                assert!(i < self.filled, "a row is written before it is changed");
                let row = self.base + i as u32;
                self.depth[i].write(narrow_cell(depth, row, &mut self.cells.depth));
            }

            /// Start, flags and depth of written row `i` (of the range).
            pub fn written(&self, i: usize) -> (i64, u8, u32) {
                assert!(i < self.filled, "only written rows are read");
                // SAFETY: `push` wrote every column of the rows below `filled`
                // (`set_*` only write them again).
                let row = self.base + i as u32;
                let (ts, flags, cell) = unsafe {
                    (
                        self.ts.written(i, row, &self.cells.ts),
                        self.flags[i].assume_init(),
                        self.depth[i].assume_init(),
                    )
                };
                let depth = if cell == <u32 as Narrow>::WIDE {
                    self.cells
                        .depth
                        .iter()
                        .rev()
                        .find(|c| c.0 == row)
                        .map_or(u32::MAX, |c| c.1)
                } else {
                    <u32 as Narrow>::widen(cell)
                };
                (ts, flags, depth)
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

        /// Marks the first `n` rows of every column written, and stores the
        /// `cells` gathered from every range.
        ///
        /// # Safety
        /// Every row below `n` of every column must have been written through
        /// [`RowsMut::push`] on ranges that cover `0..n` (checked by the caller
        /// with [`RowsMut::is_full`] on each range), made by [`RowsMut::of`] with
        /// the same `thread_times`.
        pub(super) unsafe fn set_len(
            table: &mut SliceTable,
            n: usize,
            thread_times: bool,
            mut cells: SparseCells,
        ) {
            // SAFETY: the caller guarantees the rows are initialised; capacity was
            // reserved by `RowsMut::of`.
            $(unsafe { table.$c.set_len(n) };)*
            // SAFETY: as above (the narrow cells are written by the same pushes).
            unsafe {
                table.ts.set_len(n, std::mem::take(&mut cells.ts));
                table.cat.cells.set_len(n);
                table.dur.cells.set_len(n);
                table.self_ns.cells.set_len(n);
                table.args.cells.set_len(n);
                table.depth.cells.set_len(n);
                table.offset.cells.set_len(n);
            }
            if thread_times {
                // SAFETY: as above; the thread times were reserved (and so
                // written) only when kept.
                unsafe {
                    table.tts.set_len(n, std::mem::take(&mut cells.tts));
                    table.tdur.cells.set_len(n);
                }
            }
            cells.store(table);
        }
    };
}

slice_columns!(columns);
