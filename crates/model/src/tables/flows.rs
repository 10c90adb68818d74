//! Flow arrows, one row each (v1 `s`/`t`/`f` and v2 `bind_id`).

use super::async_slices::IdVal;
use super::decl::{order_by, Column, ColumnType as T, RowSource, Table, Value};
use super::ids::{AsyncSliceId, SliceId, ThreadId};
use crate::strings::StrId;
use crate::trace::Trace;

/// The end of a flow arrow: a thread slice or an async slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SliceRef {
    Thread(SliceId),
    Async(AsyncSliceId),
}

impl SliceRef {
    /// The row index in its table.
    pub fn raw(self) -> u32 {
        match self {
            SliceRef::Thread(s) => s.raw(),
            SliceRef::Async(a) => a.raw(),
        }
    }

    pub fn thread_slice(self) -> Option<SliceId> {
        match self {
            SliceRef::Thread(s) => Some(s),
            SliceRef::Async(_) => None,
        }
    }

    pub fn async_slice(self) -> Option<AsyncSliceId> {
        match self {
            SliceRef::Thread(_) => None,
            SliceRef::Async(a) => Some(a),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct FlowTable {
    pub id: Vec<IdVal>,
    pub name: Vec<StrId>,
    pub cat: Vec<StrId>,
    pub from: Vec<SliceRef>,
    pub to: Vec<SliceRef>,
    pub from_ts: Vec<i64>,
    pub to_ts: Vec<i64>,
    /// Thread of the flow event (v1) or of the bound slice (v2) at each end.
    pub from_thread: Vec<Option<ThreadId>>,
    pub to_thread: Vec<Option<ThreadId>>,
    pub v2: Vec<bool>,
}

impl FlowTable {
    pub fn len(&self) -> usize {
        self.id.len()
    }
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }
}

impl Trace {
    /// The name of a flow's end slice.
    pub fn slice_ref_name(&self, r: SliceRef) -> StrId {
        match r {
            SliceRef::Thread(i) => self.tables.slices.name[i.index()],
            SliceRef::Async(i) => self.tables.async_slices.name[i.index()],
        }
    }
}

fn f(t: &Trace) -> &FlowTable {
    &t.tables.flows
}

pub static TABLE: Table = Table {
    fills: None,
    name: "flows",
    doc: "Flow arrows between slices (v1 s/t/f steps and v2 bind_id), one row per arrow.",
    rows: RowSource::Indexed {
        len: |t| f(t).len(),
        order: |t| {
            let (_, trank) = t.ranks();
            let f = f(t);
            let rank = |th: Option<ThreadId>| th.map_or(u32::MAX, |th| trank[th.index()]);
            order_by(f.len(), |&i| {
                let i = i as usize;
                (f.from_ts[i], rank(f.from_thread[i]), f.to_ts[i])
            })
        },
        columns: &[
            Column {
                name: "id",
                ty: T::Str,
                nullable: true,
                doc: "the flow's id as written (id or bind_id)",
                get: |t, i| t.id_value(f(t).id[i]),
            },
            Column {
                name: "from_pid",
                ty: T::Pid,
                nullable: true,
                doc: "pid at the arrow's start",
                get: |t, i| t.thread_pid_value(f(t).from_thread[i]),
            },
            Column {
                name: "from_tid",
                ty: T::Pid,
                nullable: true,
                doc: "tid at the arrow's start",
                get: |t, i| t.tid_value(f(t).from_thread[i]),
            },
            Column {
                name: "from_name",
                ty: T::Str,
                nullable: false,
                doc: "name of the slice the arrow leaves",
                get: |t, i| t.name_value(t.slice_ref_name(f(t).from[i])),
            },
            Column {
                name: "from_ts_ns",
                ty: T::Time,
                nullable: false,
                doc: "time the arrow leaves",
                get: |t, i| Value::Int(f(t).from_ts[i]),
            },
            Column {
                name: "to_pid",
                ty: T::Pid,
                nullable: true,
                doc: "pid at the arrow's end",
                get: |t, i| t.thread_pid_value(f(t).to_thread[i]),
            },
            Column {
                name: "to_tid",
                ty: T::Pid,
                nullable: true,
                doc: "tid at the arrow's end",
                get: |t, i| t.tid_value(f(t).to_thread[i]),
            },
            Column {
                name: "to_name",
                ty: T::Str,
                nullable: false,
                doc: "name of the slice the arrow enters",
                get: |t, i| t.name_value(t.slice_ref_name(f(t).to[i])),
            },
            Column {
                name: "to_ts_ns",
                ty: T::Time,
                nullable: false,
                doc: "time the arrow arrives",
                get: |t, i| Value::Int(f(t).to_ts[i]),
            },
            Column {
                name: "name",
                ty: T::Str,
                nullable: true,
                doc: "name of the flow events",
                get: |t, i| t.opt_str_value(f(t).name[i]),
            },
            Column {
                name: "cat",
                ty: T::Str,
                nullable: true,
                doc: "category of the flow events",
                get: |t, i| t.opt_str_value(f(t).cat[i]),
            },
            Column {
                name: "version",
                ty: T::Int,
                nullable: false,
                doc: "1 for s/t/f events, 2 for bind_id",
                get: |t, i| Value::Int(if f(t).v2[i] { 2 } else { 1 }),
            },
            Column {
                name: "flow_id",
                ty: T::Id("flows"),
                nullable: false,
                doc: "row id (`id` is the trace's own)",
                get: |_, i| Value::Int(i as i64),
            },
            Column {
                name: "from_slice_id",
                ty: T::Id("slices"),
                nullable: true,
                doc: "the thread slice the arrow leaves (slices.id)",
                get: |t, i| f(t).from[i].thread_slice().into(),
            },
            Column {
                name: "to_slice_id",
                ty: T::Id("slices"),
                nullable: true,
                doc: "the thread slice the arrow enters (slices.id)",
                get: |t, i| f(t).to[i].thread_slice().into(),
            },
            Column {
                name: "from_async_slice_id",
                ty: T::Id("async_slices"),
                nullable: true,
                doc: "the async slice the arrow leaves",
                get: |t, i| f(t).from[i].async_slice().into(),
            },
            Column {
                name: "to_async_slice_id",
                ty: T::Id("async_slices"),
                nullable: true,
                doc: "the async slice the arrow enters",
                get: |t, i| f(t).to[i].async_slice().into(),
            },
            Column {
                name: "from_thread_id",
                ty: T::Id("threads"),
                nullable: true,
                doc: "thread at the arrow's start (threads.id)",
                get: |t, i| f(t).from_thread[i].into(),
            },
            Column {
                name: "to_thread_id",
                ty: T::Id("threads"),
                nullable: true,
                doc: "thread at the arrow's end (threads.id)",
                get: |t, i| f(t).to_thread[i].into(),
            },
        ],
    },
};
