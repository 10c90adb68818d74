//! Counters: series `(pid, name, id, args key)` and their samples.

use super::decl::{order_by, Column, ColumnType as T, RowSource, Table, Value};
use super::ids::{ProcessId, SeriesId};
use crate::strings::StrId;
use crate::trace::Trace;
use tracescope_format::Int64;

/// A counter series: one key of `args` of `(pid, name, id)` counter events.
#[derive(Clone, Debug)]
pub struct CounterSeries {
    pub process: ProcessId,
    /// `name`, or `name[id]` when the counter has an id.
    pub counter: StrId,
    pub series: StrId,
    /// Rows of this series in `CounterTable` samples: start..end, sorted by time.
    pub rows: (u32, u32),
}

/// Counter samples, grouped by series (in series order), each series in time order.
#[derive(Clone, Debug, Default)]
pub struct CounterTable {
    pub series: Vec<CounterSeries>,
    pub sample_series: Vec<SeriesId>,
    pub ts: Vec<i64>,
    pub value: Vec<f64>,
    /// Integers a float cannot hold exactly, by sample row.
    pub exact: rustc_hash::FxHashMap<u32, Int64>,
}

impl CounterTable {
    pub fn series_of(&self, row: usize) -> &CounterSeries {
        &self.series[self.sample_series[row].index()]
    }

    /// A sample's value as written: exact integers as integers.
    pub fn value_cell(&self, row: usize) -> Value<'static> {
        let v = self.value[row];
        match self.exact.get(&(row as u32)) {
            Some(e) => Value::int(*e),
            None if v.fract() == 0.0 && v.abs() < 9.0e15 => Value::Int(v as i64),
            None => Value::Float(v),
        }
    }
}

fn c(t: &Trace) -> &CounterTable {
    &t.tables.counters
}

fn series(t: &Trace, i: usize) -> &CounterSeries {
    &c(t).series[i]
}

pub static SERIES_TABLE: Table = Table {
    fills: None,
    name: "counter_series",
    doc: "Counter series: one per (pid, counter name and id, args key).",
    rows: RowSource::Indexed {
        len: |t| c(t).series.len(),
        order: |t| {
            let (prank, _) = t.ranks();
            order_by(c(t).series.len(), |&i| {
                (prank[series(t, i as usize).process.index()], i)
            })
        },
        columns: &[
            Column {
                name: "pid",
                ty: T::Pid,
                nullable: false,
                doc: "pid of the counter events",
                get: |t, i| t.process_pid_value(series(t, i).process),
            },
            Column {
                name: "name",
                ty: T::Str,
                nullable: false,
                doc: "counter name, or name[id] when it has an id",
                get: |t, i| t.name_value(series(t, i).counter),
            },
            Column {
                name: "series",
                ty: T::Str,
                nullable: false,
                doc: "the args key",
                get: |t, i| Value::Str(t.str(series(t, i).series)),
            },
            Column {
                name: "samples",
                ty: T::Int,
                nullable: false,
                doc: "number of samples",
                get: |t, i| {
                    let r = series(t, i).rows;
                    Value::Int((r.1 - r.0) as i64)
                },
            },
            Column {
                name: "id",
                ty: T::Id("counter_series"),
                nullable: false,
                doc: "row id (SeriesId): counters.series_id points here",
                get: |_, i| SeriesId::at(i).into(),
            },
            Column {
                name: "process_id",
                ty: T::Id("processes"),
                nullable: false,
                doc: "the counter's process (processes.id)",
                get: |t, i| series(t, i).process.into(),
            },
        ],
    },
};

pub static TABLE: Table = Table {
    fills: None,
    name: "counters",
    doc: "Counter samples: one row per series per C event.",
    rows: RowSource::Indexed {
        len: |t| c(t).ts.len(),
        order: |t| {
            let (prank, _) = t.ranks();
            let c = c(t);
            order_by(c.ts.len(), |&i| {
                let i = i as usize;
                (
                    c.ts[i],
                    prank[c.series_of(i).process.index()],
                    c.sample_series[i],
                )
            })
        },
        columns: &[
            Column {
                name: "pid",
                ty: T::Pid,
                nullable: false,
                doc: "pid of the counter event",
                get: |t, i| t.process_pid_value(c(t).series_of(i).process),
            },
            Column {
                name: "name",
                ty: T::Str,
                nullable: false,
                doc: "counter name, or name[id] when it has an id",
                get: |t, i| t.name_value(c(t).series_of(i).counter),
            },
            Column {
                name: "series",
                ty: T::Str,
                nullable: false,
                doc: "the args key",
                get: |t, i| Value::Str(t.str(c(t).series_of(i).series)),
            },
            Column {
                name: "ts_ns",
                ty: T::Time,
                nullable: false,
                doc: "time",
                get: |t, i| Value::Int(c(t).ts[i]),
            },
            Column {
                name: "value",
                ty: T::Number,
                nullable: false,
                doc: "value as written (integers exact)",
                get: |t, i| c(t).value_cell(i),
            },
            Column {
                name: "id",
                ty: T::Id("counters"),
                nullable: false,
                doc: "row id",
                get: |_, i| Value::Int(i as i64),
            },
            Column {
                name: "series_id",
                ty: T::Id("counter_series"),
                nullable: false,
                doc: "the sample's series (counter_series.id)",
                get: |t, i| c(t).sample_series[i].into(),
            },
        ],
    },
};
