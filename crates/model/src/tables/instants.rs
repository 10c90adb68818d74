//! Instant events (`I`, `i`, `R`) of every scope.

use super::arg_sets::ArgOwner;
use super::decl::{order_by, Column, ColumnType as T, RowSource, Table, Value};
use super::ids::{ProcessId, ThreadId};
use crate::args::TextRef;
use crate::strings::StrId;
use crate::trace::Trace;

/// Instant scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    Thread,
    Process,
    Global,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Thread => "t",
            Scope::Process => "p",
            Scope::Global => "g",
        }
    }
}

/// Instant events, sorted by (ts, file order).
#[derive(Clone, Debug, Default)]
pub struct InstantTable {
    pub scope: Vec<Scope>,
    pub process: Vec<ProcessId>,
    /// `None` for global instants (they make no thread).
    pub thread: Vec<Option<ThreadId>>,
    pub ts: Vec<i64>,
    pub name: Vec<StrId>,
    pub cat: Vec<StrId>,
    pub args: Vec<TextRef>,
    pub cname: Vec<StrId>,
    pub offset: Vec<u64>,
    /// The original phase (`I`, `i` or `R`).
    pub ph: Vec<u8>,
}

impl InstantTable {
    pub fn len(&self) -> usize {
        self.ts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }
}

fn ph_str(ph: u8) -> &'static str {
    match ph {
        b'I' => "I",
        b'i' => "i",
        _ => "R",
    }
}

fn s(t: &Trace) -> &InstantTable {
    &t.tables.instants
}

pub static TABLE: Table = Table {
    fills: None,
    name: "instants",
    doc: "Instant events (I, i, R) of thread, process and global scope.",
    rows: RowSource::Indexed {
        len: |t| s(t).len(),
        order: |t| {
            let (prank, trank) = t.ranks();
            let s = s(t);
            order_by(s.len(), |&i| {
                let i = i as usize;
                (
                    s.ts[i],
                    s.thread[i].map_or(0, |th| trank[th.index()] + 1),
                    prank[s.process[i].index()],
                    s.offset[i],
                )
            })
        },
        columns: &[
            Column {
                name: "scope",
                ty: T::Str,
                nullable: false,
                doc: "'t' thread, 'p' process, 'g' global",
                get: |t, i| Value::Str(s(t).scope[i].as_str()),
            },
            Column {
                name: "pid",
                ty: T::Pid,
                nullable: false,
                doc: "pid of the event",
                get: |t, i| t.process_pid_value(s(t).process[i]),
            },
            Column {
                name: "tid",
                ty: T::Pid,
                nullable: true,
                doc: "tid of the event (null for global instants)",
                get: |t, i| t.tid_value(s(t).thread[i]),
            },
            Column {
                name: "name",
                ty: T::Str,
                nullable: false,
                doc: "event name",
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
                name: "ts_ns",
                ty: T::Time,
                nullable: false,
                doc: "time",
                get: |t, i| Value::Int(s(t).ts[i]),
            },
            Column {
                name: "args",
                ty: T::Json,
                nullable: true,
                doc: "args as compact JSON",
                get: |t, i| t.args_value(s(t).args[i], TextRef::NONE),
            },
            Column {
                name: "ph",
                ty: T::Str,
                nullable: false,
                doc: "phase as written: I, i or R",
                get: |t, i| Value::Str(ph_str(s(t).ph[i])),
            },
            Column {
                name: "id",
                ty: T::Id("instants"),
                nullable: false,
                doc: "row id",
                get: |_, i| Value::Int(i as i64),
            },
            Column {
                name: "process_id",
                ty: T::Id("processes"),
                nullable: false,
                doc: "the event's process (processes.id)",
                get: |t, i| s(t).process[i].into(),
            },
            Column {
                name: "thread_id",
                ty: T::Id("threads"),
                nullable: true,
                doc: "the event's thread (null for global instants)",
                get: |t, i| s(t).thread[i].into(),
            },
            Column {
                name: "arg_set_id",
                ty: T::Id("args"),
                nullable: true,
                doc: "the event's args in the args table",
                get: |t, i| t.arg_set_id(ArgOwner::Instant(i)).into(),
            },
        ],
    },
};
