//! Thread slices: `B`/`E` pairs, `X`, `ui-nest` lanes, did-not-finish ones.

use super::arg_sets::ArgOwner;
use super::args_cells::{ArgsCell, ArgsColumn};
use super::based_times::TimeColumn;
use super::block_times::partition_rows;
use super::decl::{gather, order_by, Column, ColumnType as T, Fill, RowSource, Table, Value};
use super::ids::{Ns, SliceId, ThreadId};
use super::sparse::{Narrow, NarrowColumn, Sparse};
use super::threads::{thread_fill, RowThread};
use crate::args::TextRef;
use crate::strings::StrId;
use crate::trace::Trace;

/// Which lane of its thread a slice is drawn on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Lane {
    /// The call stack (`B`/`E`, `X`), including extra rows for improper overlaps.
    Stack = 0,
    /// Out-of-band `ui-nest` operations (`docs/reading-rules.md`, section 3).
    UiNest = 1,
}

impl Lane {
    pub fn as_str(self) -> &'static str {
        match self {
            Lane::Stack => "stack",
            Lane::UiNest => "ui-nest",
        }
    }
}

/// Slice flags.
pub mod slice_flags {
    /// Never closed (`B` without `E`, `X` without `dur`): ends at the thread's last end.
    pub const DID_NOT_FINISH: u8 = 1;
    /// Kept on an extra row because it overlaps a sibling improperly.
    pub const OVERLAP: u8 = 2;
    /// Made from `B`/`E` (else from `X`).
    pub const BEGIN_END: u8 = 4;
}

/// Calls `$then!` with the slice table's dense columns (a cell on every row): the
/// struct below and the builder's in-place row writer (`build::slice_rows`) are
/// made from this one list. A slice's thread and lane are those of its track
/// ([`SliceTable::tracks`]); the cells most slices lack are kept apart (see
/// [`SliceTable`]'s other fields).
macro_rules! slice_columns {
    ($then:ident) => {
        $then! {
            name: StrId,
            parent: Option<SliceId>,
            flags: u8,
        }
    };
}
pub(crate) use slice_columns;

macro_rules! storage {
    ($($(#[$doc:meta])* $c:ident: $t:ty,)*) => {
        /// Thread slices, sorted by (thread, lane, start, longer first, file order):
        /// row `i` is `SliceId::new(i)`.
        #[derive(Clone, Debug, Default)]
        pub struct SliceTable {
            $($(#[$doc])* pub $c: Vec<$t>,)*
            /// Start, in 5 bytes (from the earliest start; see
            /// `tables::based_times`).
            pub(crate) ts: TimeColumn<i64>,
            /// Category, in 2 bytes (interned early: categories are few).
            pub(crate) cat: NarrowColumn<StrId>,
            /// Duration (to the thread's last end when it did not finish), in 4
            /// bytes.
            pub(crate) dur: NarrowColumn<i64>,
            /// Duration minus that of its children, in 4 bytes.
            pub(crate) self_ns: NarrowColumn<i64>,
            /// `args` of the `B`/`X` event, in 6 bytes (where they start after
            /// the event's offset, or in the arena, and their length).
            pub(crate) args: ArgsColumn,
            /// Nesting depth on its lane (0: root), in 2 bytes.
            pub(crate) depth: NarrowColumn<u32>,
            /// Byte offset of the `B`/`X` event, in 5 bytes.
            pub(crate) offset: NarrowColumn<u64>,
            /// Thread time at start (`tts`) of every row, in 5 bytes as `ts`, or
            /// empty when no event of the trace has thread times (most tools other
            /// than Chrome write none).
            pub(crate) tts: TimeColumn<Option<Ns>>,
            /// Thread duration (`tdur`, or `tts` of the `E` minus that of the `B`),
            /// in 4 bytes; empty as `tts`.
            pub(crate) tdur: NarrowColumn<Option<Ns>>,
            /// `args` of the closing `E` (merged over `args` when read), on the rows
            /// of `B`/`E` pairs whose `E` has some.
            pub(crate) end_args: Sparse<TextRef>,
            /// `cname` (a colour name), on the rows that have one.
            pub(crate) cname: Sparse<StrId>,
            /// Row ranges per thread and lane, sorted by (thread, lane); they cover
            /// every row.
            pub tracks: Vec<SliceTrack>,
        }

        impl SliceTable {
            /// Bytes of a row in the columns every row has (the thread times
            /// when kept).
            pub fn row_bytes(&self) -> usize {
                use std::mem::size_of;
                let times = if self.tts.is_empty() {
                    0
                } else {
                    self.tts.cell_bytes() + size_of::<<Option<Ns> as Narrow>::Cell>()
                };
                0 $(+ size_of::<$t>())*
                    + self.ts.cell_bytes()
                    + size_of::<<StrId as Narrow>::Cell>()
                    + 2 * size_of::<<i64 as Narrow>::Cell>()
                    + size_of::<ArgsCell>()
                    + size_of::<<u32 as Narrow>::Cell>()
                    + size_of::<<u64 as Narrow>::Cell>()
                    + times
            }
        }
    };
}
slice_columns!(storage);

/// A contiguous run of slice rows: one lane of one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceTrack {
    pub thread: ThreadId,
    pub lane: Lane,
    pub rows: (u32, u32),
    pub max_depth: u32,
}

impl SliceTable {
    pub fn len(&self) -> usize {
        self.ts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }

    /// Start.
    #[inline]
    pub fn ts(&self, i: usize) -> i64 {
        self.ts.get(i)
    }

    /// The first row of `rows` whose start fails `pred`, or `rows.end` (as
    /// `slice::partition_point` on the starts of `rows`, which `pred` must
    /// partition: true on a prefix, false after).
    pub fn ts_partition_point(
        &self,
        rows: std::ops::Range<usize>,
        mut pred: impl FnMut(i64) -> bool,
    ) -> usize {
        partition_rows(rows, |i| pred(self.ts(i)))
    }

    /// Category ([`StrId::NONE`] without).
    #[inline]
    pub fn cat(&self, i: usize) -> StrId {
        self.cat.get(i)
    }

    pub fn end(&self, i: usize) -> i64 {
        self.ts(i).saturating_add(self.dur(i))
    }

    /// Duration (to the thread's last end when it did not finish).
    pub fn dur(&self, i: usize) -> i64 {
        self.dur.get(i)
    }

    /// Duration minus that of its children.
    pub fn self_ns(&self, i: usize) -> i64 {
        self.self_ns.get(i)
    }

    /// `args` of the `B`/`X` event ([`TextRef::NONE`] without).
    pub fn args(&self, i: usize) -> TextRef {
        self.args.get(i, || self.offset(i))
    }

    pub fn did_not_finish(&self, i: usize) -> bool {
        self.flags[i] & slice_flags::DID_NOT_FINISH != 0
    }

    pub fn overlap(&self, i: usize) -> bool {
        self.flags[i] & slice_flags::OVERLAP != 0
    }

    /// The track (index in [`SliceTable::tracks`]) that holds row `i`.
    pub fn track_of(&self, i: usize) -> usize {
        self.tracks.partition_point(|t| (t.rows.1 as usize) <= i)
    }

    /// The thread of row `i`.
    pub fn thread(&self, i: usize) -> ThreadId {
        self.tracks[self.track_of(i)].thread
    }

    /// The lane of row `i`.
    pub fn lane(&self, i: usize) -> Lane {
        self.tracks[self.track_of(i)].lane
    }

    /// The thread of every row, in row order (what a pass over all rows reads
    /// instead of a search per row).
    pub fn threads(&self) -> impl Iterator<Item = ThreadId> + '_ {
        self.tracks
            .iter()
            .flat_map(|t| std::iter::repeat_n(t.thread, (t.rows.1 - t.rows.0) as usize))
    }

    /// Nesting depth on its lane (0: root).
    pub fn depth(&self, i: usize) -> u32 {
        self.depth.get(i)
    }

    /// Byte offset of the `B`/`X` event.
    pub fn offset(&self, i: usize) -> u64 {
        self.offset.get(i)
    }

    /// Thread time at start (`tts`).
    pub fn tts(&self, i: usize) -> Option<Ns> {
        if self.tts.is_empty() {
            return None;
        }
        self.tts.get(i)
    }

    /// Thread duration (`tdur`, or `tts` of the `E` minus that of the `B`).
    pub fn tdur(&self, i: usize) -> Option<Ns> {
        if self.tdur.cells.is_empty() {
            return None;
        }
        self.tdur.get(i)
    }

    /// `args` of the closing `E` ([`TextRef::NONE`] without).
    pub fn end_args(&self, i: usize) -> TextRef {
        self.end_args.get(i).unwrap_or(TextRef::NONE)
    }

    /// The slice's `cname` ([`StrId::NONE`] without).
    pub fn cname(&self, i: usize) -> StrId {
        self.cname.get(i).unwrap_or(StrId::NONE)
    }
}

fn s(t: &Trace) -> &SliceTable {
    &t.tables.slices
}

fn thread(t: &Trace, i: usize) -> Option<ThreadId> {
    Some(s(t).thread(i))
}

pub static TABLE: Table = Table {
    fills: Some(fill),
    name: "slices",
    doc: "Thread slices: B/E pairs, X events, ui-nest lanes; nested per thread.",
    rows: RowSource::Indexed {
        len: |t| s(t).len(),
        order: |t| {
            let (_, trank) = t.ranks();
            let s = s(t);
            // (thread rank, lane) of every row, found once rather than per compare.
            let track_rank: Vec<(u32, Lane)> = s
                .tracks
                .iter()
                .flat_map(|tr| {
                    let key = (trank[tr.thread.index()], tr.lane);
                    std::iter::repeat_n(key, (tr.rows.1 - tr.rows.0) as usize)
                })
                .collect();
            order_by(s.len(), |&i| {
                let i = i as usize;
                (s.ts(i), track_rank[i], s.depth(i), s.offset(i))
            })
        },
        columns: &[
            Column {
                name: "pid",
                ty: T::Pid,
                nullable: false,
                doc: "pid of the slice's thread",
                get: |t, i| t.thread_pid_value(thread(t, i)),
            },
            Column {
                name: "tid",
                ty: T::Pid,
                nullable: false,
                doc: "tid of the slice's thread",
                get: |t, i| t.tid_value(thread(t, i)),
            },
            Column {
                name: "thread_name",
                ty: T::Str,
                nullable: true,
                doc: "name of the slice's thread",
                get: |t, i| t.thread_name_value(thread(t, i)),
            },
            Column {
                name: "name",
                ty: T::Str,
                nullable: false,
                doc: "event name ('(unnamed)' when absent)",
                get: |t, i| t.name_value(s(t).name[i]),
            },
            Column {
                name: "cat",
                ty: T::Str,
                nullable: true,
                doc: "event category",
                get: |t, i| t.opt_str_value(s(t).cat(i)),
            },
            Column {
                name: "ts_ns",
                ty: T::Time,
                nullable: false,
                doc: "start",
                get: |t, i| Value::Int(s(t).ts(i)),
            },
            Column {
                name: "dur_ns",
                ty: T::Duration,
                nullable: false,
                doc: "duration (to the thread's last end when it did not finish)",
                get: |t, i| Value::Int(s(t).dur(i)),
            },
            Column {
                name: "depth",
                ty: T::Int,
                nullable: false,
                doc: "nesting depth on its lane (0: root)",
                get: |t, i| Value::Int(s(t).depth(i) as i64),
            },
            Column {
                name: "self_ns",
                ty: T::Duration,
                nullable: false,
                doc: "duration minus that of its children",
                get: |t, i| Value::Int(s(t).self_ns(i)),
            },
            Column {
                name: "did_not_finish",
                ty: T::Bool,
                nullable: false,
                doc: "never closed (B without E, X without dur)",
                get: |t, i| Value::Bool(s(t).did_not_finish(i)),
            },
            Column {
                name: "args",
                ty: T::Json,
                nullable: true,
                doc: "args as compact JSON (the closing E's args merged over the B's)",
                get: |t, i| t.args_value(s(t).args(i), s(t).end_args(i)),
            },
            Column {
                name: "lane",
                ty: T::Str,
                nullable: false,
                doc: "'stack' or 'ui-nest'",
                get: |t, i| Value::Str(s(t).lane(i).as_str()),
            },
            Column {
                name: "overlap",
                ty: T::Bool,
                nullable: false,
                doc: "on an extra row: it overlaps a sibling improperly",
                get: |t, i| Value::Bool(s(t).overlap(i)),
            },
            Column {
                name: "tts_ns",
                ty: T::Time,
                nullable: true,
                doc: "thread time at start (tts)",
                get: |t, i| Value::opt_int(s(t).tts(i).map(Ns::get)),
            },
            Column {
                name: "tdur_ns",
                ty: T::Duration,
                nullable: true,
                doc: "thread time duration (tdur)",
                get: |t, i| Value::opt_int(s(t).tdur(i).map(Ns::get)),
            },
            Column {
                name: "id",
                ty: T::Id("slices"),
                nullable: false,
                doc: "row id (SliceId)",
                get: |_, i| SliceId::at(i).into(),
            },
            Column {
                name: "parent_id",
                ty: T::Id("slices"),
                nullable: true,
                doc: "the enclosing slice (null for roots and overlap rows)",
                get: |t, i| s(t).parent[i].into(),
            },
            Column {
                name: "thread_id",
                ty: T::Id("threads"),
                nullable: false,
                doc: "the slice's thread (threads.id)",
                get: |t, i| s(t).thread(i).into(),
            },
            Column {
                name: "arg_set_id",
                ty: T::Id("args"),
                nullable: true,
                doc: "the slice's args in the args table (null without args)",
                get: |t, i| t.arg_set_id(ArgOwner::Slice(i)).into(),
            },
        ],
    },
};

/// Rows ahead of the one read whose args text [`fill`] asks for.
const PREFETCH_AHEAD: usize = 16;

/// The rows of this table, by thread.
struct SliceRows;

impl RowThread for SliceRows {
    fn thread_of(t: &Trace, i: usize) -> ThreadId {
        s(t).thread(i)
    }
}

/// The fills of the slice table's columns ([`Fill`]): the same cells as the
/// getters above.
pub(crate) fn fill(column: &str) -> Option<Fill> {
    if let Some(fill) = thread_fill::<SliceRows>(column) {
        return Some(fill);
    }
    Some(match column {
        "ts_ns" => Fill::Int(|t, rows, out| {
            let s = s(t);
            out.extend(rows.iter().map(|&i| Some(s.ts(i as usize))));
        }),
        "dur_ns" => Fill::Int(|t, rows, out| {
            let s = s(t);
            out.extend(rows.iter().map(|&i| Some(s.dur(i as usize))));
        }),
        "depth" => Fill::Int(|t, rows, out| {
            let s = s(t);
            out.extend(rows.iter().map(|&i| Some(s.depth(i as usize) as i64)));
        }),
        "self_ns" => Fill::Int(|t, rows, out| {
            let s = s(t);
            out.extend(rows.iter().map(|&i| Some(s.self_ns(i as usize))));
        }),
        "did_not_finish" => Fill::Bool(|t, rows, out| {
            gather(&s(t).flags, rows, out, |f| {
                f & slice_flags::DID_NOT_FINISH != 0
            })
        }),
        "overlap" => Fill::Bool(|t, rows, out| {
            gather(&s(t).flags, rows, out, |f| f & slice_flags::OVERLAP != 0)
        }),
        "args" => Fill::Json(|t, rows, each| {
            let s = s(t);
            for (k, &i) in rows.iter().enumerate() {
                // The args lie all over the file, in file order where rows are
                // in time order: ask for a later row's text while this one's is
                // read, or every row waits for memory.
                if let Some(&later) = rows.get(k + PREFETCH_AHEAD) {
                    t.prefetch(s.args(later as usize));
                }
                let i = i as usize;
                each(t.args_text(s.args(i), s.end_args(i)).as_deref());
            }
        }),
        "tts_ns" => Fill::Int(|t, rows, out| {
            let s = s(t);
            out.extend(rows.iter().map(|&i| s.tts(i as usize).map(Ns::get)));
        }),
        "tdur_ns" => Fill::Int(|t, rows, out| {
            let s = s(t);
            out.extend(rows.iter().map(|&i| s.tdur(i as usize).map(Ns::get)));
        }),
        "id" => Fill::Int(|_, rows, out| out.extend(rows.iter().map(|&i| Some(i as i64)))),
        "parent_id" => {
            Fill::Int(|t, rows, out| gather(&s(t).parent, rows, out, |p| p.map(|p| p.raw() as i64)))
        }
        // Columns of few distinct cells, by the model id each row's stands for.
        "thread_id" => Fill::Keyed {
            keys: |t, rows, out| out.extend(rows.iter().map(|&i| s(t).thread(i as usize).raw())),
            cell: |_, k| ThreadId::new(k).into(),
        },
        "thread_name" => Fill::Keyed {
            keys: |t, rows, out| {
                let name = |i: u32| t.thread(s(t).thread(i as usize)).name.0;
                out.extend(rows.iter().map(|&i| name(i)))
            },
            cell: |t, k| t.opt_str_value(StrId(k)),
        },
        "name" => Fill::Keyed {
            keys: |t, rows, out| gather(&s(t).name, rows, out, |n| n.0),
            cell: |t, k| t.name_value(StrId(k)),
        },
        "cat" => Fill::Keyed {
            keys: |t, rows, out| {
                let s = s(t);
                out.extend(rows.iter().map(|&i| s.cat(i as usize).0))
            },
            cell: |t, k| t.opt_str_value(StrId(k)),
        },
        "lane" => Fill::Keyed {
            keys: |t, rows, out| out.extend(rows.iter().map(|&i| s(t).lane(i as usize) as u32)),
            cell: |_, k| {
                [Lane::Stack, Lane::UiNest]
                    .get(k as usize)
                    .map_or(Value::Null, |l| Value::Str(l.as_str()))
            },
        },
        _ => return None,
    })
}
