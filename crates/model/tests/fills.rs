//! Every column's fill ([`Table::fill`]) gives the cells its getter gives, on
//! every row, in any block of rows: the Parquet export writes the fills.

mod common;

use tracescope_model::{Cell, Fill, RowSource, Table, Trace, TABLES};

/// The cells of `column` (with fill `fill`) for `rows`, by the fill.
fn filled(trace: &Trace, fill: Fill, rows: &[u32]) -> Vec<Cell> {
    match fill {
        Fill::Int(f) => {
            let mut out = Vec::new();
            f(trace, rows, &mut out);
            out.iter()
                .map(|v| v.map_or(Cell::Null, Cell::Int))
                .collect()
        }
        Fill::Float(f) => {
            let mut out = Vec::new();
            f(trace, rows, &mut out);
            out.into_iter().map(Cell::Float).collect()
        }
        Fill::Bool(f) => {
            let mut out = Vec::new();
            f(trace, rows, &mut out);
            out.into_iter().map(Cell::Bool).collect()
        }
        Fill::Json(f) => {
            let mut out = Vec::new();
            f(trace, rows, &mut |v| {
                out.push(v.map_or(Cell::Null, |s| Cell::Json(s.to_string())))
            });
            out
        }
        Fill::Keyed { keys, cell } => {
            let mut out = Vec::new();
            keys(trace, rows, &mut out);
            out.iter().map(|&k| Cell::from(&cell(trace, k))).collect()
        }
    }
}

/// Checks every fill of `table` on `trace`; returns how many columns have one.
fn check(table: &Table, trace: &Trace) -> usize {
    let RowSource::Indexed { order, columns, .. } = &table.rows else {
        return 0;
    };
    let rows = order(trace);
    let mut n = 0;
    for c in columns.iter() {
        let Some(fill) = table.fill(c.name) else {
            continue;
        };
        n += 1;
        let want: Vec<Cell> = rows
            .iter()
            .map(|&i| Cell::from(&(c.get)(trace, i as usize)))
            .collect();
        // Whole, and in blocks of 3 rows (fills append).
        assert_eq!(
            filled(trace, fill, &rows),
            want,
            "{}.{}",
            table.name,
            c.name
        );
        let blocks: Vec<Cell> = rows
            .chunks(3)
            .flat_map(|b| filled(trace, fill, b))
            .collect();
        assert_eq!(blocks, want, "{}.{} in blocks", table.name, c.name);
    }
    n
}

#[test]
fn fills_give_the_getters_cells() {
    let traces = [
        common::load_fixture("sql/args.json"),
        common::load_fixture("sql/browser.json"),
        common::load_fixture("phases/profile-chunks.json"),
        common::load_fixture("phases/profile-start-stop.json"),
        // Sparse cells (closing args, cname) and thread times too wide for their cells.
        common::load_fixture("phases/slice-sparse-cells.json"),
        // Samples on two threads, of two profiles interleaved, one weight not 1.
        common::load_fixture("phases/samples-threads-profiles.json"),
    ];
    let mut with_fills = std::collections::BTreeMap::new();
    for trace in &traces {
        for table in TABLES {
            *with_fills.entry(table.name).or_insert(0) += check(table, trace);
        }
    }
    // The slices and samples tables have fills, and the fixtures have rows of both.
    let rows = |name: &str| {
        traces
            .iter()
            .map(|t| t.rows(name).unwrap().rows.len())
            .sum::<usize>()
    };
    assert!(rows("slices") > 5 && rows("samples") > 5);
    assert_eq!(with_fills["slices"], 18 * traces.len());
    assert_eq!(with_fills["samples"], 9 * traces.len());
}

#[test]
fn a_fill_names_only_declared_columns() {
    for table in TABLES {
        let names: Vec<&str> = table.columns().iter().map(|c| c.name).collect();
        for guess in ["ts_ns", "dur_ns", "id", "thread_id", "weight", "nope", ""] {
            if table.fill(guess).is_some() {
                assert!(names.contains(&guess), "{}.{guess}", table.name);
            }
        }
    }
    let slices = tracescope_model::table("slices").unwrap();
    assert!(slices.fill("name").is_some() && slices.fill("nope").is_none());
}
