//! Events kept but not drawn: `v`/`V`, `c`, `(`/`)`, unknown phases, and events
//! that could not be placed (async without id, ...).

use super::arg_sets::ArgOwner;
use super::decl::{order_by, Column, ColumnType as T, RowSource, Table, Value};
use super::ids::{Ns, ProcessId, ThreadId};
use crate::args::TextRef;
use crate::strings::StrId;
use crate::trace::Trace;

#[derive(Clone, Debug, Default)]
pub struct OtherTable {
    pub ph: Vec<StrId>,
    pub name: Vec<StrId>,
    pub cat: Vec<StrId>,
    pub process: Vec<ProcessId>,
    pub thread: Vec<Option<ThreadId>>,
    /// `None` when the event has no `ts`.
    pub ts: Vec<Option<Ns>>,
    pub args: Vec<TextRef>,
    pub offset: Vec<u64>,
}

impl OtherTable {
    pub fn len(&self) -> usize {
        self.ts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }
}

fn o(t: &Trace) -> &OtherTable {
    &t.tables.other
}

pub static TABLE: Table = Table {
    fills: None,
    name: "other",
    doc: "Events kept but not drawn: v/V, c, (/), unknown phases, events that could not be placed.",
    rows: RowSource::Indexed {
        len: |t| o(t).len(),
        order: |t| {
            let (prank, _) = t.ranks();
            let o = o(t);
            order_by(o.len(), |&i| {
                let i = i as usize;
                (
                    o.ts[i].map_or(i64::MIN, Ns::get),
                    prank[o.process[i].index()],
                    o.offset[i],
                )
            })
        },
        columns: &[
            Column {
                name: "ph",
                ty: T::Str,
                nullable: false,
                doc: "phase as written",
                get: |t, i| Value::Str(t.str(o(t).ph[i])),
            },
            Column {
                name: "name",
                ty: T::Str,
                nullable: false,
                doc: "event name",
                get: |t, i| t.name_value(o(t).name[i]),
            },
            Column {
                name: "pid",
                ty: T::Pid,
                nullable: false,
                doc: "pid of the event",
                get: |t, i| t.process_pid_value(o(t).process[i]),
            },
            Column {
                name: "tid",
                ty: T::Pid,
                nullable: true,
                doc: "tid of the event",
                get: |t, i| t.tid_value(o(t).thread[i]),
            },
            Column {
                name: "ts_ns",
                ty: T::Time,
                nullable: true,
                doc: "time (null when the event has none)",
                get: |t, i| Value::opt_int(o(t).ts[i].map(Ns::get)),
            },
            Column {
                name: "cat",
                ty: T::Str,
                nullable: true,
                doc: "event category",
                get: |t, i| t.opt_str_value(o(t).cat[i]),
            },
            Column {
                name: "args",
                ty: T::Json,
                nullable: true,
                doc: "args as compact JSON",
                get: |t, i| t.args_value(o(t).args[i], TextRef::NONE),
            },
            Column {
                name: "id",
                ty: T::Id("other"),
                nullable: false,
                doc: "row id",
                get: |_, i| Value::Int(i as i64),
            },
            Column {
                name: "process_id",
                ty: T::Id("processes"),
                nullable: false,
                doc: "the event's process (processes.id)",
                get: |t, i| o(t).process[i].into(),
            },
            Column {
                name: "thread_id",
                ty: T::Id("threads"),
                nullable: true,
                doc: "the event's thread (threads.id)",
                get: |t, i| o(t).thread[i].into(),
            },
            Column {
                name: "arg_set_id",
                ty: T::Id("args"),
                nullable: true,
                doc: "the event's args in the args table",
                get: |t, i| t.arg_set_id(ArgOwner::Other(i)).into(),
            },
        ],
    },
};
