//! Objects (`N`..`D`) and their `O` snapshots.

use super::arg_sets::ArgOwner;
use super::async_slices::IdVal;
use super::decl::{order_by, Column, ColumnType as T, RowSource, Table, Value};
use super::ids::{ObjectId, ProcessId, SnapshotId};
use crate::args::TextRef;
use crate::strings::StrId;
use crate::trace::Trace;

/// An object instance, from its `N` (or first `O`) to its `D`.
#[derive(Clone, Debug)]
pub struct Object {
    pub process: ProcessId,
    pub global: bool,
    pub name: StrId,
    pub cat: StrId,
    pub id: IdVal,
    pub start: i64,
    pub end: i64,
    /// Never deleted: lives to the end of the trace.
    pub alive_at_end: bool,
    pub snapshots: Vec<SnapshotId>,
    pub offset: u64,
}

#[derive(Clone, Debug)]
pub struct Snapshot {
    pub object: ObjectId,
    pub ts: i64,
    pub args: TextRef,
    pub offset: u64,
}

fn o(t: &Trace, i: usize) -> &Object {
    &t.tables.objects[i]
}

fn sn(t: &Trace, i: usize) -> &Snapshot {
    &t.tables.snapshots[i]
}

pub static TABLE: Table = Table {
    fills: None,
    name: "objects",
    doc: "Object instances (N to D, or from a first O snapshot).",
    rows: RowSource::Indexed {
        len: |t| t.tables.objects.len(),
        order: |t| {
            let (prank, _) = t.ranks();
            order_by(t.tables.objects.len(), |&i| {
                let ob = o(t, i as usize);
                (ob.start, prank[ob.process.index()], ob.offset)
            })
        },
        columns: &[
            Column {
                name: "pid",
                ty: T::Pid,
                nullable: false,
                doc: "pid of the object's events",
                get: |t, i| t.process_pid_value(o(t, i).process),
            },
            Column {
                name: "name",
                ty: T::Str,
                nullable: false,
                doc: "object name (its type)",
                get: |t, i| t.name_value(o(t, i).name),
            },
            Column {
                name: "id",
                ty: T::Str,
                nullable: true,
                doc: "the object's id as written",
                get: |t, i| t.id_value(o(t, i).id),
            },
            Column {
                name: "start_ns",
                ty: T::Time,
                nullable: false,
                doc: "creation",
                get: |t, i| Value::Int(o(t, i).start),
            },
            Column {
                name: "end_ns",
                ty: T::Time,
                nullable: false,
                doc: "deletion (the trace's end when never deleted)",
                get: |t, i| Value::Int(o(t, i).end),
            },
            Column {
                name: "snapshots",
                ty: T::Int,
                nullable: false,
                doc: "number of snapshots",
                get: |t, i| Value::Int(o(t, i).snapshots.len() as i64),
            },
            Column {
                name: "cat",
                ty: T::Str,
                nullable: true,
                doc: "event category",
                get: |t, i| t.opt_str_value(o(t, i).cat),
            },
            Column {
                name: "alive_at_end",
                ty: T::Bool,
                nullable: false,
                doc: "never deleted",
                get: |t, i| Value::Bool(o(t, i).alive_at_end),
            },
            Column {
                name: "object_id",
                ty: T::Id("objects"),
                nullable: false,
                doc: "row id (ObjectId; `id` is the trace's own)",
                get: |_, i| ObjectId::at(i).into(),
            },
            Column {
                name: "process_id",
                ty: T::Id("processes"),
                nullable: false,
                doc: "the object's process (processes.id)",
                get: |t, i| o(t, i).process.into(),
            },
        ],
    },
};

pub static SNAPSHOTS_TABLE: Table = Table {
    fills: None,
    name: "snapshots",
    doc: "Object snapshots (O events), with their args.",
    rows: RowSource::Indexed {
        len: |t| t.tables.snapshots.len(),
        order: |t| {
            order_by(t.tables.snapshots.len(), |&i| {
                (sn(t, i as usize).ts, sn(t, i as usize).offset)
            })
        },
        columns: &[
            Column {
                name: "ts_ns",
                ty: T::Time,
                nullable: false,
                doc: "time of the snapshot",
                get: |t, i| Value::Int(sn(t, i).ts),
            },
            Column {
                name: "args",
                ty: T::Json,
                nullable: true,
                doc: "args as compact JSON (the snapshot)",
                get: |t, i| t.args_value(sn(t, i).args, TextRef::NONE),
            },
            Column {
                name: "id",
                ty: T::Id("snapshots"),
                nullable: false,
                doc: "row id (SnapshotId)",
                get: |_, i| SnapshotId::at(i).into(),
            },
            Column {
                name: "object_id",
                ty: T::Id("objects"),
                nullable: false,
                doc: "the snapshot's object (objects.object_id)",
                get: |t, i| sn(t, i).object.into(),
            },
            Column {
                name: "arg_set_id",
                ty: T::Id("args"),
                nullable: true,
                doc: "the snapshot's args in the args table",
                get: |t, i| t.arg_set_id(ArgOwner::Snapshot(i)).into(),
            },
        ],
    },
};
