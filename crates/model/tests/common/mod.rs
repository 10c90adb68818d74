//! Helpers for the model's tests: load JSON text or a file, read rows.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use tracescope_model::{Cell, LoadOptions, Trace};

pub fn load(json: &str) -> Trace {
    Trace::from_json(
        Box::new(json.to_string()),
        json.len() as u64,
        &LoadOptions::default(),
    )
    .expect("loads")
}

pub fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

pub fn load_file(rel: &str) -> Trace {
    let p = shared().join(rel);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let opts = LoadOptions {
        source_name: p.file_name().unwrap().to_string_lossy().into(),
        ..Default::default()
    };
    Trace::from_json(Box::new(text.clone()), text.len() as u64, &opts).expect("loads")
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
