//! What SQL knows about each table beyond its declaration: which column is the row
//! id, and which rows are sorted by time (per thread), so constraints on ids,
//! threads and time ranges narrow the rows read instead of filtering all of them.

use std::ops::Range;

use tracescope_model::{Column, ColumnType, RowSource, Table, Trace};

use crate::perfetto;

/// A run of rows sorted by the table's time column, all of one thread when
/// `thread` is set (as a `threads.id`).
pub struct Run {
    pub rows: Range<u32>,
    pub thread: Option<u32>,
    pub sorted: bool,
}

pub struct Spec {
    pub table: &'static Table,
    /// Column holding the row id (`id`, `async_slice_id`, ...): rows are numbered
    /// by it, so `id = 7` reads one row.
    pub row_id: Option<usize>,
    /// Column sorted within each run (the start time), and the thread column.
    pub ts: Option<usize>,
    pub thread: Option<usize>,
    pub runs: Option<fn(&Trace) -> Vec<Run>>,
}

impl Spec {
    pub fn name(&self) -> &'static str {
        self.table.name
    }

    pub fn columns(&self) -> &'static [Column] {
        match &self.table.rows {
            RowSource::Indexed { columns, .. } => columns,
            RowSource::ArgSets { .. } => &[],
        }
    }

    pub fn len(&self, t: &Trace) -> usize {
        match &self.table.rows {
            RowSource::Indexed { len, .. } => len(t),
            RowSource::ArgSets { .. } => t.arg_set_space(),
        }
    }

    fn new(
        table: &'static Table,
        ts: &str,
        thread: &str,
        runs: Option<fn(&Trace) -> Vec<Run>>,
    ) -> Spec {
        let columns = match &table.rows {
            RowSource::Indexed { columns, .. } => *columns,
            RowSource::ArgSets { .. } => &[],
        };
        let find = |n: &str| columns.iter().position(|c| c.name == n);
        Spec {
            table,
            row_id: columns
                .iter()
                .position(|c| c.ty == ColumnType::Id(table.name)),
            ts: runs.and(find(ts)),
            thread: runs.and(find(thread)),
            runs,
        }
    }
}

fn slice_runs(t: &Trace) -> Vec<Run> {
    t.tables
        .slices
        .tracks
        .iter()
        .map(|tr| Run {
            rows: tr.rows.0..tr.rows.1,
            thread: Some(tr.thread.raw()),
            sorted: true,
        })
        .collect()
}

fn whole(n: usize, sorted: bool) -> Run {
    Run {
        rows: 0..n as u32,
        thread: None,
        sorted,
    }
}

/// Runs of equal keys in a column sorted by key.
fn runs_by<K: PartialEq + Copy>(keys: &[K], thread: impl Fn(K) -> Option<u32>) -> Vec<Run> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < keys.len() {
        let k = keys[i];
        let n = keys[i..].iter().take_while(|&&x| x == k).count();
        out.push(Run {
            rows: i as u32..(i + n) as u32,
            thread: thread(k),
            sorted: true,
        });
        i += n;
    }
    out
}

/// Every table SQL serves through the generic virtual table (`args` has its own).
pub fn specs() -> Vec<Spec> {
    let model = |name: &str| tracescope_model::table(name).expect("declared table");
    let mut out = vec![
        Spec::new(model("processes"), "", "", None),
        Spec::new(model("threads"), "", "", None),
        Spec::new(model("slices"), "ts_ns", "thread_id", Some(slice_runs)),
        Spec::new(
            model("instants"),
            "ts_ns",
            "",
            Some(|t| vec![whole(t.tables.instants.len(), true)]),
        ),
        Spec::new(model("async_slices"), "", "", None),
        Spec::new(model("flows"), "", "", None),
        Spec::new(model("counter_series"), "", "", None),
        Spec::new(
            model("counters"),
            "ts_ns",
            "",
            Some(|t| runs_by(&t.tables.counters.sample_series, |_| None)),
        ),
        Spec::new(model("objects"), "", "", None),
        Spec::new(model("snapshots"), "", "", None),
        Spec::new(model("profiles"), "", "", None),
        Spec::new(model("frames"), "", "", None),
        Spec::new(
            model("samples"),
            "ts_ns",
            "thread_id",
            Some(|t| {
                let s = &t.tables.samples;
                s.threads()
                    .map(|(th, rows)| Run {
                        rows: rows.start as u32..rows.end as u32,
                        thread: Some(th.raw()),
                        sorted: true,
                    })
                    .collect()
            }),
        ),
        Spec::new(model("diagnostics"), "", "", None),
        Spec::new(model("other"), "", "", None),
        Spec::new(&perfetto::SLICE, "ts", "utid", Some(perfetto_slice_runs)),
        Spec::new(&perfetto::TRACK, "", "", None),
        Spec::new(
            &perfetto::COUNTER,
            "ts",
            "",
            Some(|t| runs_by(&t.tables.counters.sample_series, |_| None)),
        ),
        Spec::new(&perfetto::FLOW, "", "", None),
        Spec::new(&perfetto::METADATA, "", "", None),
        Spec::new(&perfetto::STATS, "", "", None),
    ];
    out.shrink_to_fit();
    out
}

/// `slice`: thread slices by track, then the instants (sorted, any thread), then the
/// async slices (in operation order, not time order).
fn perfetto_slice_runs(t: &Trace) -> Vec<Run> {
    let (ns, ni, na) = (
        t.tables.slices.len() as u32,
        t.tables.instants.len() as u32,
        t.tables.async_slices.len() as u32,
    );
    let mut runs = slice_runs(t);
    runs.push(Run {
        rows: ns..ns + ni,
        thread: None,
        sorted: true,
    });
    runs.push(Run {
        rows: ns + ni..ns + ni + na,
        thread: None,
        sorted: false,
    });
    runs
}
