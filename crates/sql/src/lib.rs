//! tracescope-sql: SQL over loaded traces.
//!
//! SQLite (compiled in) with one virtual table per declared table of the model
//! (`tracescope_model::TABLES`: cells read from the model's columns, nothing
//! copied) under our names, plus Perfetto's names (`slice`, `thread`, `process`,
//! `track`, `counter`, `flow`, `args`, `thread_slice`, `thread_or_process_slice`,
//! `stats`, `EXTRACT_ARG`, ...) so Perfetto users' queries run unchanged. Several
//! traces load side by side: every table has a `trace` column, and row ids are
//! numbered across the traces so joins on ids stay within one trace.
//!
//! Not here: loading files (the binary does), Parquet (`tracescope export`).

mod args_tab;
mod functions;
mod perfetto;
mod spec;
mod vtab;

use std::sync::Arc;

use fallible_iterator::FallibleIterator;
use rustc_hash::FxHashMap;
use tracescope_model::Trace;

pub use functions::Kind as FlowKind;
pub use rusqlite::InterruptHandle;

/// A loaded trace and the name its `trace` column shows.
pub struct Loaded {
    pub name: String,
    trace: Arc<dyn AsRef<Trace> + Send + Sync>,
}

impl Loaded {
    pub fn new(name: impl Into<String>, trace: Arc<dyn AsRef<Trace> + Send + Sync>) -> Loaded {
        Loaded {
            name: name.into(),
            trace,
        }
    }

    pub fn trace(&self) -> &Trace {
        (*self.trace).as_ref()
    }
}

/// What the virtual tables share: the traces, the tables, and where each trace's
/// ids start in each id space.
pub struct Shared {
    pub traces: Vec<Loaded>,
    specs: Vec<spec::Spec>,
    /// Per id space (a table name): each trace's first id, then the total.
    bases: FxHashMap<&'static str, Vec<i64>>,
}

impl Shared {
    fn base(&self, space: &str, trace: usize) -> i64 {
        self.bases.get(space).map_or(0, |b| b[trace])
    }

    /// The trace and its own id of a global id.
    fn local(&self, space: &str, id: i64) -> Option<(usize, usize)> {
        let b = self.bases.get(space)?;
        let k = b.partition_point(|&x| x <= id).checked_sub(1)?;
        (k + 1 < b.len()).then(|| (k, (id - b[k]) as usize))
    }
}

/// A SQL error: SQLite's message and, for errors in the text, the byte offset.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryError {
    pub message: String,
    pub offset: Option<usize>,
    /// The query ran out of time (interrupted).
    pub interrupted: bool,
}

impl QueryError {
    fn new(message: impl Into<String>) -> QueryError {
        QueryError {
            message: message.into(),
            offset: None,
            interrupted: false,
        }
    }

    /// The message with the line and column of the offset in `sql`, and a caret
    /// under the place.
    pub fn describe(&self, sql: &str) -> String {
        let Some(off) = self.offset.filter(|&o| o <= sql.len()) else {
            return self.message.clone();
        };
        let before = &sql[..floor_char(sql, off)];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |p| p + 1);
        let col = before[line_start..].chars().count() + 1;
        let text = sql[line_start..].lines().next().unwrap_or("");
        format!(
            "{} (line {line}, column {col})\n  {text}\n  {}^",
            self.message,
            " ".repeat(col - 1)
        )
    }
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for QueryError {}

/// One cell of a result.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl From<rusqlite::types::ValueRef<'_>> for Cell {
    fn from(v: rusqlite::types::ValueRef<'_>) -> Cell {
        use rusqlite::types::ValueRef as V;
        match v {
            V::Null => Cell::Null,
            V::Integer(i) => Cell::Int(i),
            V::Real(r) => Cell::Real(r),
            V::Text(t) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
            V::Blob(b) => Cell::Blob(b.to_vec()),
        }
    }
}

/// What [`Database::run`] hands over: a statement's column names, then its rows.
pub enum Output<'a> {
    Columns(&'a [String]),
    Row(&'a [Cell]),
}

/// A table for `query --schema` and the Query tab: name, doc, columns.
pub struct SchemaTable {
    pub name: &'static str,
    pub doc: &'static str,
    pub columns: Vec<(&'static str, &'static str, &'static str)>,
}

/// An open database over one or more traces.
pub struct Database {
    conn: rusqlite::Connection,
    shared: Arc<Shared>,
}

impl Database {
    /// Opens SQLite over the traces (their names must differ).
    pub fn open(traces: Vec<Loaded>) -> Result<Database, QueryError> {
        let specs = spec::specs();
        let mut bases: FxHashMap<&'static str, Vec<i64>> = FxHashMap::default();
        let mut add = |name: &'static str, len: &dyn Fn(&Trace) -> usize| {
            let mut b = vec![0i64];
            for t in &traces {
                b.push(b.last().copied().unwrap_or(0) + len(t.trace()) as i64);
            }
            bases.insert(name, b);
        };
        for s in &specs {
            add(s.name(), &|t| s.len(t));
        }
        add("args", &|t| t.arg_set_space());
        let shared = Arc::new(Shared {
            traces,
            specs,
            bases,
        });
        let conn = rusqlite::Connection::open_in_memory().map_err(err)?;
        const DECL: rusqlite::vtab::Module<vtab::DeclTab> =
            rusqlite::vtab::Module::read_only_module();
        const ARGS: rusqlite::vtab::Module<args_tab::ArgsTab> =
            rusqlite::vtab::Module::eponymous_only_module();
        conn.create_module(c"tracescope", &DECL, Some(shared.clone()))
            .map_err(err)?;
        conn.create_module(c"args", &ARGS, Some(shared.clone()))
            .map_err(err)?;
        let mut ddl = String::new();
        for s in &shared.specs {
            let n = s.name();
            ddl.push_str(&format!(
                "CREATE VIRTUAL TABLE temp.{n} USING tracescope({n});\n"
            ));
        }
        ddl.push_str(&perfetto::VIEWS.replace("CREATE VIEW", "CREATE TEMP VIEW"));
        conn.execute_batch(&ddl).map_err(err)?;
        functions::register(&conn, shared.clone()).map_err(err)?;
        Ok(Database { conn, shared })
    }

    /// The names of the tables and views queries can read.
    pub fn table_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .shared
            .specs
            .iter()
            .map(|s| s.name().to_string())
            .collect();
        names.push("args".into());
        for line in perfetto::VIEWS.lines() {
            if let Some(rest) = line.strip_prefix("CREATE VIEW ") {
                names.push(rest.split_whitespace().next().unwrap_or("").to_string());
            }
        }
        names.sort();
        names
    }

    /// A handle that stops the running query from another thread.
    pub fn interrupt_handle(&self) -> InterruptHandle {
        self.conn.get_interrupt_handle()
    }

    /// Runs every statement of `sql`. For each statement that returns rows, `sink`
    /// gets its column names, then each row until it returns `false` (the rest of
    /// that statement's rows are skipped). `INCLUDE PERFETTO MODULE ...;`
    /// statements are accepted and ignored.
    pub fn run(
        &self,
        sql: &str,
        mut sink: impl FnMut(Output<'_>) -> bool,
    ) -> Result<(), QueryError> {
        let text = blank_includes(sql);
        let mut batch = rusqlite::Batch::new(&self.conn, &text);
        loop {
            let stmt = match batch.next() {
                Ok(Some(s)) => s,
                Ok(None) => return Ok(()),
                Err(e) => return Err(self.error(e, &text)),
            };
            let mut stmt = stmt;
            let names: Vec<String> = stmt.column_names().map(|s| s.to_string()).collect();
            let n = names.len();
            if n > 0 {
                sink(Output::Columns(&names));
            }
            let mut rows = stmt.raw_query();
            let mut cells: Vec<Cell> = Vec::with_capacity(n);
            let mut more = true;
            loop {
                match rows.next() {
                    Ok(Some(r)) => {
                        if !more {
                            continue;
                        }
                        cells.clear();
                        for i in 0..n {
                            cells.push(r.get_ref(i).map_err(err)?.into());
                        }
                        more = sink(Output::Row(&cells));
                        if !more {
                            break;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => return Err(self.error(e, &text)),
                }
            }
        }
    }

    /// Every row of the last statement that returns rows: column names and rows.
    pub fn query(&self, sql: &str) -> Result<(Vec<String>, Vec<Vec<Cell>>), QueryError> {
        let (mut cols, mut rows) = (Vec::new(), Vec::new());
        self.run(sql, |o| {
            match o {
                Output::Columns(c) => (cols, rows) = (c.to_vec(), Vec::new()),
                Output::Row(r) => rows.push(r.to_vec()),
            }
            true
        })?;
        Ok((cols, rows))
    }

    fn error(&self, e: rusqlite::Error, text: &str) -> QueryError {
        let mut q = match &e {
            rusqlite::Error::SqlInputError {
                msg, sql, offset, ..
            } => QueryError {
                message: msg.clone(),
                offset: (*offset >= 0).then(|| text.len() - sql.len() + *offset as usize),
                interrupted: false,
            },
            rusqlite::Error::SqliteFailure(f, msg)
                if f.code == rusqlite::ErrorCode::OperationInterrupted =>
            {
                QueryError {
                    message: msg.clone().unwrap_or_else(|| "interrupted".into()),
                    offset: None,
                    interrupted: true,
                }
            }
            other => err(other.clone_message()),
        };
        if q.message.starts_with("no such table") {
            q.message = format!(
                "{}; the tables are: {}",
                q.message,
                self.table_names().join(", ")
            );
        }
        q
    }
}

trait CloneMessage {
    fn clone_message(&self) -> String;
}

impl CloneMessage for rusqlite::Error {
    fn clone_message(&self) -> String {
        match self {
            rusqlite::Error::SqliteFailure(_, Some(m)) => m.clone(),
            other => other.to_string(),
        }
    }
}

fn err(e: impl std::fmt::Display) -> QueryError {
    QueryError::new(e.to_string())
}

/// `INCLUDE PERFETTO MODULE x.y;` statements replaced by spaces (offsets stay).
fn blank_includes(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    loop {
        let lower = rest.to_ascii_lowercase();
        let Some(at) = find_include(&lower) else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..at]);
        let end = rest[at..].find(';').map_or(rest.len(), |p| at + p + 1);
        out.extend(
            rest[at..end]
                .chars()
                .map(|c| if c == '\n' { '\n' } else { ' ' }),
        );
        rest = &rest[end..];
    }
}

/// Where `include perfetto module` starts as a statement (after start, `;` or
/// whitespace).
fn find_include(lower: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(p) = lower[from..].find("include") {
        let at = from + p;
        let words: Vec<&str> = lower[at..].split_whitespace().take(3).collect();
        let starts = lower[..at].trim_end().is_empty() || lower[..at].trim_end().ends_with(';');
        if starts && words.len() == 3 && words[1] == "perfetto" && words[2].starts_with("module") {
            return Some(at);
        }
        from = at + 7;
    }
    None
}

/// Every table and view with its columns (name, type, doc), for `query --schema`.
pub fn schema() -> Vec<SchemaTable> {
    let mut out = Vec::new();
    for s in spec::specs() {
        out.push(SchemaTable {
            name: s.name(),
            doc: s.table.doc,
            columns: s
                .table
                .columns()
                .iter()
                .map(|c| (c.name, c.ty.as_str(), c.doc))
                .chain(std::iter::once((
                    "trace",
                    "string",
                    "the trace's file name",
                )))
                .collect(),
        });
    }
    let args = tracescope_model::table("args").expect("declared");
    out.push(SchemaTable {
        name: "args",
        doc: args.doc,
        columns: args
            .columns()
            .iter()
            .map(|c| (c.name, c.ty.as_str(), c.doc))
            .chain([
                (
                    "id",
                    "int",
                    "orders the args of a set (and sets among themselves)",
                ),
                ("trace", "string", "the trace's file name"),
            ])
            .collect(),
    });
    out
}

/// The views over those tables, as SQL.
pub fn views_sql() -> &'static str {
    perfetto::VIEWS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_are_blanked_in_place() {
        let s = "INCLUDE PERFETTO MODULE slices.with_context;\nSELECT 1; include  perfetto module a.b ;";
        let b = blank_includes(s);
        assert_eq!(b.len(), s.len());
        assert_eq!(b.trim(), "SELECT 1;");
        assert_eq!(
            blank_includes("SELECT 'include perfetto module'"),
            "SELECT 'include perfetto module'"
        );
    }
}
