//! Processes: one row per pid named by any event.

use super::decl::{Column, ColumnType as T, RowSource, Table, Value};
use super::ids::ProcessId;
use crate::strings::StrId;
use crate::trace::Trace;
use tracescope_format::Int64;

/// A pid or tid: an integer, or a string naming the process or thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PidK {
    Int(Int64),
    Str(StrId),
}

#[derive(Clone, Debug)]
pub struct Process {
    pub pid: PidK,
    pub name: StrId,
    pub sort_index: Option<i64>,
    /// `process_labels`, joined with "," in the order read.
    pub labels: StrId,
    pub uptime_seconds: Option<f64>,
    /// URL of the frame this process renders (`TracingStartedInBrowser`).
    pub frame_url: StrId,
    pub renders_frames: bool,
}

impl Trace {
    pub fn process(&self, p: ProcessId) -> &Process {
        &self.tables.processes[p.index()]
    }

    /// A pid or tid as a cell: the integer, or the string naming it.
    pub fn pid_value(&self, p: PidK) -> Value<'_> {
        match p {
            PidK::Int(i) => Value::int(i),
            PidK::Str(s) => Value::Str(self.str(s)),
        }
    }

    /// The pid of a process.
    pub fn process_pid_value(&self, p: ProcessId) -> Value<'_> {
        self.pid_value(self.process(p).pid)
    }
}

fn row(t: &Trace, i: usize) -> &Process {
    &t.tables.processes[i]
}

pub static TABLE: Table = Table {
    fills: None,
    name: "processes",
    doc: "One row per process (pid) named by any event, with its metadata.",
    rows: RowSource::Indexed {
        len: |t| t.tables.processes.len(),
        order: |t| t.process_order.iter().map(|p| p.raw()).collect(),
        columns: &[
            Column {
                name: "pid",
                ty: T::Pid,
                nullable: false,
                doc: "pid as written (an integer, or the string naming the process)",
                get: |t, i| t.pid_value(row(t, i).pid),
            },
            Column {
                name: "name",
                ty: T::Str,
                nullable: true,
                doc: "process_name metadata",
                get: |t, i| t.opt_str_value(row(t, i).name),
            },
            Column {
                name: "sort_index",
                ty: T::Int,
                nullable: true,
                doc: "process_sort_index metadata",
                get: |t, i| Value::opt_int(row(t, i).sort_index),
            },
            Column {
                name: "labels",
                ty: T::Str,
                nullable: true,
                doc: "process_labels, joined with ','",
                get: |t, i| t.opt_str_value(row(t, i).labels),
            },
            Column {
                name: "frame_url",
                ty: T::Str,
                nullable: true,
                doc: "URL of the frame the process renders (TracingStartedInBrowser)",
                get: |t, i| t.opt_str_value(row(t, i).frame_url),
            },
            Column {
                name: "uptime_seconds",
                ty: T::Float,
                nullable: true,
                doc: "process_uptime_seconds metadata",
                get: |t, i| row(t, i).uptime_seconds.map_or(Value::Null, Value::Float),
            },
            Column {
                name: "threads",
                ty: T::Int,
                nullable: false,
                doc: "number of threads of the process",
                get: |t, i| {
                    let p = ProcessId::at(i);
                    Value::Int(t.tables.threads.iter().filter(|th| th.process == p).count() as i64)
                },
            },
            Column {
                name: "id",
                ty: T::Id("processes"),
                nullable: false,
                doc: "row id (ProcessId): threads.process_id and others point here",
                get: |_, i| ProcessId::at(i).into(),
            },
        ],
    },
};
