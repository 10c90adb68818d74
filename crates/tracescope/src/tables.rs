//! `tracescope tables`: one table of the model as JSON lines or CSV.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{bail, Result};
use tracescope_model::{Cell, TABLE_NAMES};

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Format {
    Jsonl,
    Csv,
}

pub fn run(path: &Path, table: &str, format: Format) -> Result<()> {
    if !TABLE_NAMES.contains(&table) {
        bail!(
            "no table named {table:?}; the tables are: {}",
            TABLE_NAMES.join(", ")
        );
    }
    let trace = crate::load::load_until_exit(path)?;
    let Some(rows) = trace.rows(table) else {
        bail!("no table named {table:?}")
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = write_rows(&mut out, &rows, format).and_then(|_| out.flush());
    match result {
        // A closed pipe (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

fn write_rows(
    out: &mut impl Write,
    rows: &tracescope_model::Rows,
    format: Format,
) -> std::io::Result<()> {
    match format {
        Format::Jsonl => {
            let mut line = String::new();
            for row in &rows.rows {
                line.clear();
                line.push('{');
                for (k, (col, cell)) in rows.columns.iter().zip(row).enumerate() {
                    if k > 0 {
                        line.push(',');
                    }
                    tracescope_format::json::value::write_string(col, &mut line);
                    line.push(':');
                    json_cell(cell, &mut line);
                }
                line.push_str("}\n");
                out.write_all(line.as_bytes())?;
            }
        }
        Format::Csv => {
            writeln!(out, "{}", rows.columns.join(","))?;
            for row in &rows.rows {
                let cells: Vec<String> = row.iter().map(csv_cell).collect();
                writeln!(out, "{}", cells.join(","))?;
            }
        }
    }
    Ok(())
}

fn json_cell(cell: &Cell, out: &mut String) {
    match cell {
        Cell::Null => out.push_str("null"),
        Cell::Float(f) if !f.is_finite() => out.push_str("null"),
        Cell::Str(s) => tracescope_format::json::value::write_string(s, out),
        Cell::Json(j) => out.push_str(j),
        other => out.push_str(&other.to_string()),
    }
}

fn csv_cell(cell: &Cell) -> String {
    let s = cell.to_string();
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}
