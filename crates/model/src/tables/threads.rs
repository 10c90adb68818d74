//! Threads: one row per (process, tid) named by any event.

use super::decl::{Column, ColumnType as T, Fill, RowSource, Table, Value};
use super::ids::{ProcessId, ThreadId};
use super::processes::PidK;
use crate::strings::StrId;
use crate::trace::Trace;

#[derive(Clone, Debug)]
pub struct Thread {
    pub process: ProcessId,
    pub tid: PidK,
    pub name: StrId,
    pub sort_index: Option<i64>,
}

impl Trace {
    pub fn thread(&self, t: ThreadId) -> &Thread {
        &self.tables.threads[t.index()]
    }

    /// The pid of a thread's process (null without a thread).
    pub fn thread_pid_value(&self, t: Option<ThreadId>) -> Value<'_> {
        t.map_or(Value::Null, |t| {
            self.process_pid_value(self.thread(t).process)
        })
    }

    /// The tid of a thread (null without a thread: global instants, events without one).
    pub fn tid_value(&self, t: Option<ThreadId>) -> Value<'_> {
        t.map_or(Value::Null, |t| self.pid_value(self.thread(t).tid))
    }

    /// The name of a thread (null when unnamed or without a thread).
    pub fn thread_name_value(&self, t: Option<ThreadId>) -> Value<'_> {
        t.map_or(Value::Null, |t| self.opt_str_value(self.thread(t).name))
    }
}

/// A table whose rows each have a thread.
pub(crate) trait RowThread {
    /// The thread of row `i`.
    fn thread_of(t: &Trace, i: usize) -> ThreadId;
}

/// The keyed fills ([`Fill::Keyed`]) of the `pid` and `tid` columns of a table
/// whose rows each have a thread: keyed by process and by thread.
pub(crate) fn thread_fill<R: RowThread>(column: &str) -> Option<Fill> {
    Some(match column {
        "pid" => Fill::Keyed {
            keys: |t, rows, out| {
                out.extend(
                    rows.iter()
                        .map(|&i| t.thread(R::thread_of(t, i as usize)).process.raw()),
                )
            },
            cell: |t, k| t.process_pid_value(ProcessId::new(k)),
        },
        "tid" => Fill::Keyed {
            keys: |t, rows, out| {
                out.extend(rows.iter().map(|&i| R::thread_of(t, i as usize).raw()))
            },
            cell: |t, k| t.tid_value(Some(ThreadId::new(k))),
        },
        _ => return None,
    })
}

fn row(t: &Trace, i: usize) -> &Thread {
    &t.tables.threads[i]
}

pub static TABLE: Table = Table {
    fills: None,
    name: "threads",
    doc: "One row per thread (pid, tid) named by any event, with its metadata.",
    rows: RowSource::Indexed {
        len: |t| t.tables.threads.len(),
        order: |t| t.thread_order.iter().map(|th| th.raw()).collect(),
        columns: &[
            Column {
                name: "pid",
                ty: T::Pid,
                nullable: false,
                doc: "pid of the thread's process",
                get: |t, i| t.process_pid_value(row(t, i).process),
            },
            Column {
                name: "tid",
                ty: T::Pid,
                nullable: false,
                doc: "tid as written (an integer, or the string naming the thread)",
                get: |t, i| t.pid_value(row(t, i).tid),
            },
            Column {
                name: "name",
                ty: T::Str,
                nullable: true,
                doc: "thread_name metadata",
                get: |t, i| t.opt_str_value(row(t, i).name),
            },
            Column {
                name: "sort_index",
                ty: T::Int,
                nullable: true,
                doc: "thread_sort_index metadata",
                get: |t, i| Value::opt_int(row(t, i).sort_index),
            },
            Column {
                name: "process_name",
                ty: T::Str,
                nullable: true,
                doc: "name of the thread's process",
                get: |t, i| t.opt_str_value(t.process(row(t, i).process).name),
            },
            Column {
                name: "id",
                ty: T::Id("threads"),
                nullable: false,
                doc: "row id (ThreadId): slices.thread_id and others point here",
                get: |_, i| ThreadId::at(i).into(),
            },
            Column {
                name: "process_id",
                ty: T::Id("processes"),
                nullable: false,
                doc: "the thread's process (processes.id)",
                get: |t, i| row(t, i).process.into(),
            },
        ],
    },
};
