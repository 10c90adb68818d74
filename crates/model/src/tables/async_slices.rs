//! Async slices: nestable (`b`/`n`/`e`) and legacy (`S`/`T`/`p`/`F`) operations.

use super::arg_sets::ArgOwner;
use super::decl::{order_by, Column, ColumnType as T, RowSource, Table, Value};
use super::ids::{AsyncGroupId, AsyncSliceId, ProcessId, ThreadId};
use crate::args::TextRef;
use crate::strings::StrId;
use crate::trace::Trace;
use tracescope_format::Int64;

/// An id as written on an event (`id`, `id2.*`, `bind_id`): integers exact,
/// strings interned. Display with [`crate::Trace::id_text`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IdVal {
    #[default]
    None,
    Int(Int64),
    Str(StrId),
}

/// Async slices. Rows of one operation are contiguous, its root first; operations
/// are grouped by [`AsyncGroup`] (rows of one group are contiguous too).
#[derive(Clone, Debug, Default)]
pub struct AsyncSliceTable {
    pub process: Vec<ProcessId>,
    /// Thread of the event that opened the row.
    pub thread: Vec<Option<ThreadId>>,
    pub name: Vec<StrId>,
    pub cat: Vec<StrId>,
    pub id: Vec<IdVal>,
    pub ts: Vec<i64>,
    pub dur: Vec<i64>,
    pub depth: Vec<u32>,
    pub parent: Vec<Option<AsyncSliceId>>,
    pub did_not_finish: Vec<bool>,
    /// Row within the process's group of this operation (lane packing).
    pub lane: Vec<u32>,
    pub group: Vec<AsyncGroupId>,
    pub args: Vec<TextRef>,
    pub end_args: Vec<TextRef>,
    pub offset: Vec<u64>,
    /// `true` for legacy `S`/`T`/`p`/`F` operations.
    pub legacy: Vec<bool>,
    /// Tracks: per process, operations grouped by the name of their root.
    pub groups: Vec<AsyncGroup>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsyncGroup {
    pub process: ProcessId,
    pub name: StrId,
    pub lanes: u32,
    /// Every operation of the group has an `id2.global` id.
    pub global: bool,
}

impl AsyncSliceTable {
    pub fn len(&self) -> usize {
        self.ts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }
}

impl Trace {
    /// An id as written, as a cell.
    pub fn id_value(&self, id: IdVal) -> Value<'_> {
        match id {
            IdVal::None => Value::Null,
            IdVal::Int(i) => Value::int(i),
            IdVal::Str(s) => Value::Str(self.str(s)),
        }
    }
}

fn s(t: &Trace) -> &AsyncSliceTable {
    &t.tables.async_slices
}

pub static TABLE: Table = Table {
    fills: None,
    name: "async_slices",
    doc: "Async operations: nestable b/n/e slices and legacy S/T/p/F operations with their steps.",
    rows: RowSource::Indexed {
        len: |t| s(t).len(),
        order: |t| {
            let (prank, _) = t.ranks();
            let s = s(t);
            order_by(s.len(), |&i| {
                let i = i as usize;
                (
                    s.ts[i],
                    prank[s.process[i].index()],
                    s.depth[i],
                    s.offset[i],
                )
            })
        },
        columns: &[
            Column {
                name: "pid",
                ty: T::Pid,
                nullable: false,
                doc: "pid of the operation",
                get: |t, i| t.process_pid_value(s(t).process[i]),
            },
            Column {
                name: "name",
                ty: T::Str,
                nullable: false,
                doc: "event name (a legacy step's name is its step)",
                get: |t, i| t.name_value(s(t).name[i]),
            },
            Column {
                name: "cat",
                ty: T::Str,
                nullable: true,
                doc: "event category",
                get: |t, i| t.opt_str_value(s(t).cat[i]),
            },
            Column {
                name: "id",
                ty: T::Str,
                nullable: true,
                doc: "the operation's id as written (id, id2.local, id2.global)",
                get: |t, i| t.id_value(s(t).id[i]),
            },
            Column {
                name: "ts_ns",
                ty: T::Time,
                nullable: false,
                doc: "start",
                get: |t, i| Value::Int(s(t).ts[i]),
            },
            Column {
                name: "dur_ns",
                ty: T::Duration,
                nullable: false,
                doc: "duration (to the trace's end when it did not finish)",
                get: |t, i| Value::Int(s(t).dur[i]),
            },
            Column {
                name: "depth",
                ty: T::Int,
                nullable: false,
                doc: "nesting depth in its operation",
                get: |t, i| Value::Int(s(t).depth[i] as i64),
            },
            Column {
                name: "did_not_finish",
                ty: T::Bool,
                nullable: false,
                doc: "never closed",
                get: |t, i| Value::Bool(s(t).did_not_finish[i]),
            },
            Column {
                name: "tid",
                ty: T::Pid,
                nullable: true,
                doc: "tid of the event that opened the row",
                get: |t, i| t.tid_value(s(t).thread[i]),
            },
            Column {
                name: "lane",
                ty: T::Int,
                nullable: false,
                doc: "row on its async track",
                get: |t, i| Value::Int(s(t).lane[i] as i64),
            },
            Column {
                name: "args",
                ty: T::Json,
                nullable: true,
                doc: "args as compact JSON (the closing event's merged over the opening one's)",
                get: |t, i| t.args_value(s(t).args[i], s(t).end_args[i]),
            },
            Column {
                name: "legacy",
                ty: T::Bool,
                nullable: false,
                doc: "a legacy S/T/p/F operation",
                get: |t, i| Value::Bool(s(t).legacy[i]),
            },
            Column {
                name: "async_slice_id",
                ty: T::Id("async_slices"),
                nullable: false,
                doc: "row id (AsyncSliceId; `id` is the trace's own)",
                get: |_, i| AsyncSliceId::at(i).into(),
            },
            Column {
                name: "parent_id",
                ty: T::Id("async_slices"),
                nullable: true,
                doc: "the enclosing row of the operation (async_slice_id)",
                get: |t, i| s(t).parent[i].into(),
            },
            Column {
                name: "process_id",
                ty: T::Id("processes"),
                nullable: false,
                doc: "the operation's process (processes.id)",
                get: |t, i| s(t).process[i].into(),
            },
            Column {
                name: "thread_id",
                ty: T::Id("threads"),
                nullable: true,
                doc: "thread of the event that opened the row",
                get: |t, i| s(t).thread[i].into(),
            },
            Column {
                name: "arg_set_id",
                ty: T::Id("args"),
                nullable: true,
                doc: "the row's args in the args table",
                get: |t, i| t.arg_set_id(ArgOwner::Async(i)).into(),
            },
        ],
    },
};
