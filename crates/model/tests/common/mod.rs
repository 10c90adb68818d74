//! Helpers for the model's tests: load JSON text or a file, read rows.
#![allow(dead_code)]

use std::path::Path;

use tracescope_format::Source;
use tracescope_model::{Cell, LoadOptions, Trace};

pub fn load(json: &str) -> Trace {
    Trace::from_json(
        Box::new(json.to_string()),
        json.len() as u64,
        &LoadOptions::default(),
    )
    .expect("loads")
}

/// Loads a trace file (plain or compressed JSON, or a `.cpuprofile`) as the CLI does.
pub fn load_path(p: &Path) -> Trace {
    let src = Source::open(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let opts = LoadOptions {
        source_name: p.file_name().unwrap().to_string_lossy().into(),
        ..Default::default()
    };
    Trace::from_source(src, &opts).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Loads a fixture (a path under `tests/fixtures/`).
pub fn load_fixture(rel: &str) -> Trace {
    load_path(&tracescope_testdata::fixture(rel))
}

/// Loads a trace of the external corpus (a path under `../shared`), or `None` after
/// one line saying the calling test skipped `what`.
pub fn load_corpus(rel: &str, what: &str) -> Option<Trace> {
    tracescope_testdata::corpus(rel, what).map(|p| load_path(&p))
}

/// Rows of a table as `name` -> list of (column -> cell) for compact assertions.
pub fn col(t: &Trace, table: &str, column: &str) -> Vec<Cell> {
    let r = t.rows(table).expect("table");
    (0..r.rows.len())
        .map(|i| r.get(i, column).clone())
        .collect()
}

pub fn s(x: &str) -> Cell {
    Cell::Str(x.to_string())
}

pub fn i(x: i64) -> Cell {
    Cell::Int(x)
}

pub fn diag_kinds(t: &Trace) -> Vec<&'static str> {
    t.diagnostics
        .sorted()
        .iter()
        .map(|d| d.kind.as_str())
        .collect()
}

/// (name, ts, dur, depth, pid, tid) of a slice.
pub type SliceRow = (String, i64, i64, i64, Cell, Cell);

/// Every slice, in table order.
pub fn slices(t: &Trace) -> Vec<SliceRow> {
    let r = t.rows("slices").unwrap();
    (0..r.rows.len())
        .map(|k| {
            let int = |c: &str| match r.get(k, c) {
                Cell::Int(v) => *v,
                other => panic!("{c}: {other:?}"),
            };
            (
                r.get(k, "name").to_string(),
                int("ts_ns"),
                int("dur_ns"),
                int("depth"),
                r.get(k, "pid").clone(),
                r.get(k, "tid").clone(),
            )
        })
        .collect()
}

/// How many samples have each stack, by stack.
pub fn stack_counts(t: &Trace) -> Vec<(String, usize)> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for st in col(t, "samples", "stack") {
        let st = st.to_string();
        match counts.iter_mut().find(|(s, _)| *s == st) {
            Some((_, n)) => *n += 1,
            None => counts.push((st, 1)),
        }
    }
    counts.sort();
    counts
}
