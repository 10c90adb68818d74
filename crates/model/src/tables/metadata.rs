//! Metadata (`M`) events, kept and listed whether or not they were applied.

use super::arg_sets::ArgOwner;
use super::decl::{Column, ColumnType as T, RowSource, Table};
use super::ids::{ProcessId, ThreadId};
use crate::args::TextRef;
use crate::strings::StrId;
use crate::trace::Trace;

#[derive(Clone, Debug)]
pub struct MetadataEvent {
    pub process: ProcessId,
    pub thread: Option<ThreadId>,
    pub name: StrId,
    pub args: TextRef,
    pub offset: u64,
}

fn m(t: &Trace, i: usize) -> &MetadataEvent {
    &t.tables.metadata[i]
}

pub static TABLE: Table = Table {
    fills: None,
    name: "metadata",
    doc: "Metadata (M) events in file order: process_name, thread_name, sort indexes, ...",
    rows: RowSource::Indexed {
        len: |t| t.tables.metadata.len(),
        order: |t| (0..t.tables.metadata.len() as u32).collect(),
        columns: &[
            Column {
                name: "pid",
                ty: T::Pid,
                nullable: false,
                doc: "pid of the event",
                get: |t, i| t.process_pid_value(m(t, i).process),
            },
            Column {
                name: "tid",
                ty: T::Pid,
                nullable: true,
                doc: "tid of the event",
                get: |t, i| t.tid_value(m(t, i).thread),
            },
            Column {
                name: "name",
                ty: T::Str,
                nullable: false,
                doc: "metadata name (process_name, thread_name, ...)",
                get: |t, i| t.name_value(m(t, i).name),
            },
            Column {
                name: "args",
                ty: T::Json,
                nullable: true,
                doc: "args as compact JSON",
                get: |t, i| t.args_value(m(t, i).args, TextRef::NONE),
            },
            Column {
                name: "id",
                ty: T::Id("metadata"),
                nullable: false,
                doc: "row id",
                get: |_, i| super::Value::Int(i as i64),
            },
            Column {
                name: "process_id",
                ty: T::Id("processes"),
                nullable: false,
                doc: "the event's process (processes.id)",
                get: |t, i| m(t, i).process.into(),
            },
            Column {
                name: "thread_id",
                ty: T::Id("threads"),
                nullable: true,
                doc: "the event's thread (threads.id)",
                get: |t, i| m(t, i).thread.into(),
            },
            Column {
                name: "arg_set_id",
                ty: T::Id("args"),
                nullable: true,
                doc: "the event's args in the args table",
                get: |t, i| t.arg_set_id(ArgOwner::Metadata(i)).into(),
            },
        ],
    },
};
