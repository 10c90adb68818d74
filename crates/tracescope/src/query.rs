//! `tracescope query`: SQL over one or more traces (see `tracescope-sql`).

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use tracescope_model::Trace;
use tracescope_sql::{Cell, Database, Loaded, Output};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns.
    Table,
    Csv,
    /// One JSON object per row.
    Jsonl,
    /// One JSON array of row objects.
    Json,
}

/// Why `query` failed: a bad query (exit 2, SQLite's message) or anything else.
pub enum Failure {
    Sql(String),
    Other(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure::Other(e)
    }
}

/// A trace as `Database` holds it.
struct Owned(Trace);

impl AsRef<Trace> for Owned {
    fn as_ref(&self) -> &Trace {
        &self.0
    }
}

/// Loads the files side by side (see [`crate::load::load_many`]).
pub fn load_all(files: &[PathBuf]) -> Result<Vec<Loaded>> {
    Ok(crate::load::load_many(files)?
        .into_iter()
        .map(|(name, t)| {
            let t: Arc<dyn AsRef<Trace> + Send + Sync> = Arc::new(Owned(t));
            Loaded::new(name, t)
        })
        .collect())
}

pub fn run(files: &[PathBuf], sql: &str, format: Format) -> Result<(), Failure> {
    if files.is_empty() {
        return Err(Failure::Other(anyhow::anyhow!(
            "give at least one trace file"
        )));
    }
    let loaded = load_all(files)?;
    let db = Database::open(loaded).map_err(|e| Failure::Other(anyhow::anyhow!("{e}")))?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut printer = Printer::new(format);
    let mut io: std::io::Result<()> = Ok(());
    let result = db.run(sql, |o| {
        if io.is_ok() {
            io = match o {
                Output::Columns(cols) => printer.start(&mut out, cols),
                Output::Row(row) => printer.row(&mut out, row),
            };
        }
        io.is_ok()
    });
    if io.is_ok() {
        io = printer.finish(&mut out).and_then(|_| out.flush());
    }
    // The traces are dropped with the process (freeing them piece by piece only
    // delays the exit).
    std::mem::forget(db);
    if let Err(e) = result {
        return Err(Failure::Sql(e.describe(sql)));
    }
    match io {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.context("writing the result").map_err(Failure::Other),
    }
}

/// The SQL of `--sql` or `--file`.
pub fn read_sql(sql: Option<String>, file: Option<PathBuf>) -> Result<String> {
    match (sql, file) {
        (Some(s), None) => Ok(s),
        (None, Some(f)) => {
            std::fs::read_to_string(&f).with_context(|| format!("reading {}", f.display()))
        }
        _ => bail!("give the query with --sql TEXT or --file QUERY.sql"),
    }
}

/// `query --schema`: every table with its columns and their docs.
pub fn schema() -> String {
    let mut s = String::new();
    for t in tracescope_sql::schema() {
        s.push_str(&format!("{}: {}\n", t.name, t.doc));
        for (name, ty, doc) in &t.columns {
            s.push_str(&format!("  {name:<22} {ty:<12} {doc}\n"));
        }
        s.push('\n');
    }
    s.push_str("Views (Perfetto's names):\n");
    s.push_str(tracescope_sql::views_sql().trim());
    s.push('\n');
    s
}

/// Writes result sets in one format; `table` holds its rows to align them.
struct Printer {
    format: Format,
    columns: Vec<String>,
    held: Vec<Vec<String>>,
    rows: usize,
    sets: usize,
}

fn text(c: &Cell) -> String {
    match c {
        Cell::Null => String::new(),
        Cell::Int(i) => i.to_string(),
        Cell::Real(r) => r.to_string(),
        Cell::Text(t) => t.clone(),
        Cell::Blob(b) => b.iter().map(|x| format!("{x:02x}")).collect(),
    }
}

/// A cell as JSON.
pub fn json_cell(c: &Cell, out: &mut String) {
    match c {
        Cell::Null => out.push_str("null"),
        Cell::Int(i) => out.push_str(&i.to_string()),
        Cell::Real(r) if r.is_finite() => out.push_str(&r.to_string()),
        Cell::Real(_) => out.push_str("null"),
        Cell::Text(t) => tracescope_format::json::value::write_string(t, out),
        Cell::Blob(_) => tracescope_format::json::value::write_string(&text(c), out),
    }
}

fn csv(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

impl Printer {
    fn new(format: Format) -> Printer {
        Printer {
            format,
            columns: Vec::new(),
            held: Vec::new(),
            rows: 0,
            sets: 0,
        }
    }

    fn start(&mut self, out: &mut impl Write, cols: &[String]) -> std::io::Result<()> {
        self.finish(out)?;
        self.sets += 1;
        self.columns = cols.to_vec();
        self.rows = 0;
        match self.format {
            Format::Csv => writeln!(
                out,
                "{}",
                cols.iter().map(|c| csv(c)).collect::<Vec<_>>().join(",")
            ),
            Format::Json => write!(out, "["),
            _ => Ok(()),
        }
    }

    fn row(&mut self, out: &mut impl Write, row: &[Cell]) -> std::io::Result<()> {
        self.rows += 1;
        match self.format {
            Format::Table => {
                self.held.push(
                    row.iter()
                        .map(|c| {
                            if *c == Cell::Null {
                                "NULL".into()
                            } else {
                                text(c)
                            }
                        })
                        .collect(),
                );
                Ok(())
            }
            Format::Csv => writeln!(
                out,
                "{}",
                row.iter()
                    .map(|c| csv(&text(c)))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Format::Jsonl | Format::Json => {
                let mut s = String::new();
                if self.format == Format::Json && self.rows > 1 {
                    s.push(',');
                }
                s.push('{');
                for (k, (name, c)) in self.columns.iter().zip(row).enumerate() {
                    if k > 0 {
                        s.push(',');
                    }
                    tracescope_format::json::value::write_string(name, &mut s);
                    s.push(':');
                    json_cell(c, &mut s);
                }
                s.push('}');
                if self.format == Format::Jsonl {
                    s.push('\n');
                }
                out.write_all(s.as_bytes())
            }
        }
    }

    fn finish(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        if self.sets == 0 {
            return Ok(());
        }
        match self.format {
            Format::Json => {
                writeln!(out, "]")?;
                self.sets = 0;
            }
            Format::Table => {
                let mut w: Vec<usize> = self.columns.iter().map(|c| c.chars().count()).collect();
                for r in &self.held {
                    for (k, c) in r.iter().enumerate() {
                        w[k] = w[k].max(c.chars().count());
                    }
                }
                let line = |cells: &[String]| {
                    let parts: Vec<String> = cells
                        .iter()
                        .zip(&w)
                        .map(|(c, &n)| format!("{c}{}", " ".repeat(n - c.chars().count())))
                        .collect();
                    parts.join("  ").trim_end().to_string()
                };
                writeln!(out, "{}", line(&self.columns))?;
                for r in std::mem::take(&mut self.held) {
                    writeln!(out, "{}", line(&r))?;
                }
                writeln!(
                    out,
                    "({} row{})",
                    self.rows,
                    if self.rows == 1 { "" } else { "s" }
                )?;
                self.sets = 0;
            }
            _ => self.sets = 0,
        }
        Ok(())
    }
}
