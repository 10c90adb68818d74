//! `tracescope tables`: one table of the model as JSON lines or CSV, streamed
//! from the table's declaration (`tracescope_model::TABLES`).

use std::io::{BufWriter, Write};

use anyhow::{bail, Result};
use tracescope_model::{Table, Value, TABLES};

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Format {
    Jsonl,
    Csv,
}

pub fn run(inputs: &crate::load::Inputs, table: &str, format: Format) -> Result<()> {
    let Some(decl) = tracescope_model::table(table) else {
        let names: Vec<&str> = TABLES.iter().map(|t| t.name).collect();
        bail!(
            "no table named {table:?}; the tables are: {}",
            names.join(", ")
        );
    };
    let trace = inputs.load_until_exit()?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = write_rows(&mut out, decl, trace, format).and_then(|_| out.flush());
    match result {
        // A closed pipe (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

fn write_rows(
    out: &mut impl Write,
    table: &Table,
    trace: &tracescope_model::Trace,
    format: Format,
) -> std::io::Result<()> {
    let columns: Vec<&str> = table.columns().iter().map(|c| c.name).collect();
    let mut line = String::new();
    let mut result = Ok(());
    if let Format::Csv = format {
        writeln!(out, "{}", columns.join(","))?;
    }
    table.for_each_row(trace, |cells| {
        if result.is_err() {
            return;
        }
        line.clear();
        match format {
            Format::Jsonl => {
                line.push('{');
                for (k, (col, cell)) in columns.iter().zip(cells).enumerate() {
                    if k > 0 {
                        line.push(',');
                    }
                    tracescope_format::json::value::write_string(col, &mut line);
                    line.push(':');
                    json_cell(cell, &mut line);
                }
                line.push('}');
            }
            Format::Csv => {
                for (k, cell) in cells.iter().enumerate() {
                    if k > 0 {
                        line.push(',');
                    }
                    csv_cell(cell, &mut line);
                }
            }
        }
        line.push('\n');
        result = out.write_all(line.as_bytes());
    });
    result
}

/// A cell as JSON: numbers and booleans bare, text quoted, JSON args as written.
pub fn json_cell(cell: &Value<'_>, out: &mut String) {
    use std::fmt::Write as _;
    match cell {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::UInt(u) => {
            let _ = write!(out, "{u}");
        }
        Value::Float(f) if f.is_finite() => {
            let _ = write!(out, "{f}");
        }
        Value::Float(_) => out.push_str("null"),
        Value::Str(s) => tracescope_format::json::value::write_string(s, out),
        Value::String(s) => tracescope_format::json::value::write_string(s, out),
        Value::Json(j) => out.push_str(j),
    }
}

/// A cell as CSV: quoted when it holds a comma, quote or line break.
pub fn csv_cell(cell: &Value<'_>, out: &mut String) {
    let s = tracescope_model::Cell::from(cell).to_string();
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(&s);
    }
}
