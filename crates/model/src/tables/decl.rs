//! How a table declares its columns, once, for every reader: `tracescope tables`
//! (CSV, JSON lines), SQL, Parquet and the server's JSON all go through
//! [`TABLES`], so adding a column is one entry in the module that owns the table.

use std::borrow::Cow;
use std::fmt;

use tracescope_format::Int64;

use super::arg_sets::ArgRef;
use crate::strings::StrId;
use crate::trace::Trace;

/// What a column holds. Every reader maps these to its own types (SQL
/// affinity, Parquet physical and logical type, JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// A row id of the named table (`0..rows`), used for joins.
    Id(&'static str),
    /// A 64-bit integer.
    Int,
    /// A pid or tid: an integer as written (possibly above `i64::MAX`), or a string
    /// when the trace names it by one.
    Pid,
    /// A time in nanoseconds.
    Time,
    /// A duration in nanoseconds.
    Duration,
    Float,
    /// An integer or a float, as written (counter values).
    Number,
    Bool,
    Str,
    /// JSON text (args).
    Json,
}

impl ColumnType {
    pub fn as_str(self) -> &'static str {
        match self {
            ColumnType::Id(_) => "id",
            ColumnType::Int => "int",
            ColumnType::Pid => "pid",
            ColumnType::Time => "time_ns",
            ColumnType::Duration => "duration_ns",
            ColumnType::Float => "float",
            ColumnType::Number => "number",
            ColumnType::Bool => "bool",
            ColumnType::Str => "string",
            ColumnType::Json => "json",
        }
    }
}

/// Reads one cell: the trace and a row index.
pub type Getter = for<'t> fn(&'t Trace, usize) -> Value<'t>;

/// Reads one cell of a row of the args table.
pub type ArgGetter = for<'a> fn(&'a ArgRef<'a>) -> Value<'a>;

/// One column: its name, type, nullability, a line of doc and how to read it.
pub struct Column<G = Getter> {
    pub name: &'static str,
    pub ty: ColumnType,
    pub nullable: bool,
    pub doc: &'static str,
    pub get: G,
}

/// A column without its getter, for schemas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnInfo {
    pub name: &'static str,
    pub ty: ColumnType,
    pub nullable: bool,
    pub doc: &'static str,
}

impl<G> Column<G> {
    pub fn info(&self) -> ColumnInfo {
        ColumnInfo {
            name: self.name,
            ty: self.ty,
            nullable: self.nullable,
            doc: self.doc,
        }
    }
}

/// Where a table's rows come from.
pub enum RowSource {
    /// Rows `0..len`, one per model row (the row index is its id).
    Indexed {
        len: fn(&Trace) -> usize,
        /// Row indexes in the order `tracescope tables` prints them (time order,
        /// then display order).
        order: fn(&Trace) -> Vec<u32>,
        columns: &'static [Column],
    },
    /// The args of every event, flattened (see [`super::arg_sets`]).
    ArgSets {
        columns: &'static [Column<ArgGetter>],
    },
}

/// A table's declaration.
pub struct Table {
    pub name: &'static str,
    pub doc: &'static str,
    pub rows: RowSource,
    /// The fills of some of its columns, by name ([`Fill`]), if it has any.
    pub fills: Option<fn(&str) -> Option<Fill>>,
}

impl Table {
    pub fn columns(&self) -> Vec<ColumnInfo> {
        match &self.rows {
            RowSource::Indexed { columns, .. } => columns.iter().map(Column::info).collect(),
            RowSource::ArgSets { columns } => columns.iter().map(Column::info).collect(),
        }
    }

    /// Calls `each` with the cells of every row, in `tables` order. The cells
    /// borrow from the trace or from the row being read (args are walked one arg
    /// set at a time), so they live for the call only.
    pub fn for_each_row(&self, trace: &Trace, mut each: impl FnMut(&[Value<'_>])) {
        match &self.rows {
            RowSource::Indexed { order, columns, .. } => {
                let mut cells = Vec::new();
                for i in order(trace) {
                    cells.clear();
                    cells.extend(columns.iter().map(|c| (c.get)(trace, i as usize)));
                    each(&cells);
                }
            }
            RowSource::ArgSets { columns } => super::arg_sets::for_each_arg(trace, |arg| {
                // On the stack: the cells borrow from this arg only.
                let cells: [Value<'_>; MAX_ARG_COLUMNS] =
                    std::array::from_fn(|k| columns.get(k).map_or(Value::Null, |c| (c.get)(arg)));
                each(&cells[..columns.len()]);
            }),
        }
    }
}

/// A column's cells for a block of rows read straight from the model's
/// vectors: what its getter gives, without a call and a [`Value`] per cell,
/// for readers of whole columns (the Parquet export). Some columns of the big
/// tables have one ([`Table::fill`]); `tests/fills.rs` holds each to its getter.
#[derive(Clone, Copy)]
pub enum Fill {
    /// An integer, or null, for each row of the block.
    Int(for<'t> fn(&'t Trace, &[u32], &mut Vec<Option<i64>>)),
    /// A float for each row of the block.
    Float(for<'t> fn(&'t Trace, &[u32], &mut Vec<f64>)),
    /// A boolean for each row of the block.
    Bool(for<'t> fn(&'t Trace, &[u32], &mut Vec<bool>)),
    /// JSON text, or null, for each row of the block, handed to the callback
    /// in order.
    Json(for<'t> fn(&'t Trace, &[u32], &mut TextSink<'_>)),
    /// A column of few distinct cells, each row's given as a key: a model id
    /// (an interned string, a thread, a lane) that `cell` turns into the
    /// row's cell. Rows with one key have one cell, so a reader makes each
    /// key's cell once (a dictionary) and never reads or compares a cell per
    /// row. Keys are row indexes of small model tables: dense from 0.
    Keyed {
        keys: for<'t> fn(&'t Trace, &[u32], &mut Vec<u32>),
        cell: for<'t> fn(&'t Trace, u32) -> Value<'t>,
    },
}

/// Where a [`Fill::Json`] hands each row's text (or null).
pub type TextSink<'s> = dyn FnMut(Option<&str>) + 's;

impl Table {
    /// The fill of column `name` of this table, if it has one.
    pub fn fill(&self, name: &str) -> Option<Fill> {
        self.fills.and_then(|fills| fills(name))
    }
}

/// Appends `get(col[i])` for each row `i` of `rows`: the body of most fills.
#[inline]
pub(crate) fn gather<T: Copy, U>(col: &[T], rows: &[u32], out: &mut Vec<U>, get: impl Fn(T) -> U) {
    out.extend(rows.iter().map(|&i| get(col[i as usize])));
}

/// Columns of the args table at most (checked where they are declared).
pub(crate) const MAX_ARG_COLUMNS: usize = 12;

/// Every table, in the order `tracescope tables` and `query --schema` list them.
pub static TABLES: &[&Table] = &[
    &super::processes::TABLE,
    &super::threads::TABLE,
    &super::slices::TABLE,
    &super::instants::TABLE,
    &super::async_slices::TABLE,
    &super::flows::TABLE,
    &super::counters::SERIES_TABLE,
    &super::counters::TABLE,
    &super::objects::TABLE,
    &super::objects::SNAPSHOTS_TABLE,
    &super::samples::PROFILES_TABLE,
    &super::samples::FRAMES_TABLE,
    &super::samples::TABLE,
    &super::metadata::TABLE,
    &super::diagnostics::TABLE,
    &super::other::TABLE,
    &super::arg_sets::TABLE,
];

/// The declaration of table `name`.
pub fn table(name: &str) -> Option<&'static Table> {
    TABLES.iter().copied().find(|t| t.name == name)
}

/// One cell, borrowing from the trace where it can.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'t> {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(&'t str),
    /// A string made for the cell (a stack, an id as written).
    String(String),
    /// JSON text (borrowed when the trace holds it as written).
    Json(Cow<'t, str>),
}

impl Value<'_> {
    /// The same value, owning its text.
    pub fn owned(&self) -> Value<'static> {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(*b),
            Value::Int(i) => Value::Int(*i),
            Value::UInt(u) => Value::UInt(*u),
            Value::Float(f) => Value::Float(*f),
            Value::Str(s) => Value::String(s.to_string()),
            Value::String(s) => Value::String(s.clone()),
            Value::Json(s) => Value::Json(Cow::Owned(s.to_string())),
        }
    }

    pub fn int(i: Int64) -> Value<'static> {
        match i {
            Int64::I(v) => Value::Int(v),
            Int64::U(v) => Value::UInt(v),
        }
    }

    pub fn opt_int(v: Option<i64>) -> Value<'static> {
        v.map_or(Value::Null, Value::Int)
    }
}

/// One value of a row, owned: what `Trace::rows` returns and tests compare.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    /// JSON text, written as is in JSON output.
    Json(String),
}

impl From<&Value<'_>> for Cell {
    fn from(v: &Value<'_>) -> Cell {
        match v {
            Value::Null => Cell::Null,
            Value::Bool(b) => Cell::Bool(*b),
            Value::Int(i) => Cell::Int(*i),
            Value::UInt(u) => Cell::UInt(*u),
            Value::Float(f) => Cell::Float(*f),
            Value::Str(s) => Cell::Str(s.to_string()),
            Value::String(s) => Cell::Str(s.clone()),
            Value::Json(s) => Cell::Json(s.to_string()),
        }
    }
}

impl fmt::Display for Cell {
    /// Plain text, as in CSV.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Null => Ok(()),
            Cell::Bool(b) => write!(f, "{b}"),
            Cell::Int(i) => write!(f, "{i}"),
            Cell::UInt(u) => write!(f, "{u}"),
            Cell::Float(x) => write!(f, "{x}"),
            Cell::Str(s) | Cell::Json(s) => f.write_str(s),
        }
    }
}

/// A whole table as owned cells, in `tables` order.
pub struct Rows {
    pub columns: Vec<&'static str>,
    pub rows: Vec<Vec<Cell>>,
}

impl Rows {
    /// The cell of `column` in row `i`, for tests.
    pub fn get(&self, i: usize, column: &str) -> &Cell {
        let c = self
            .columns
            .iter()
            .position(|c| *c == column)
            .unwrap_or(usize::MAX);
        self.rows
            .get(i)
            .and_then(|r| r.get(c))
            .unwrap_or(&Cell::Null)
    }
}

impl Trace {
    /// The rows of table `name` as owned cells, or `None` if there is no such table.
    pub fn rows(&self, name: &str) -> Option<Rows> {
        let table = table(name)?;
        let mut rows = Vec::new();
        table.for_each_row(self, |cells| {
            rows.push(cells.iter().map(Cell::from).collect())
        });
        Some(Rows {
            columns: table.columns().iter().map(|c| c.name).collect(),
            rows,
        })
    }

    /// A string cell: null when absent (empty).
    pub fn opt_str_value(&self, s: StrId) -> Value<'_> {
        if s.is_none() {
            Value::Null
        } else {
            Value::Str(self.str(s))
        }
    }

    /// A name cell: "(unnamed)" when absent.
    pub fn name_value(&self, s: StrId) -> Value<'_> {
        Value::Str(self.name(s))
    }

    /// Display rank of each process and thread, for ordering rows.
    pub(crate) fn ranks(&self) -> (Vec<u32>, Vec<u32>) {
        let mut pr = vec![0; self.tables.processes.len()];
        for (i, &p) in self.process_order.iter().enumerate() {
            pr[p.index()] = i as u32;
        }
        let mut tr = vec![0; self.tables.threads.len()];
        for (i, &t) in self.thread_order.iter().enumerate() {
            tr[t.index()] = i as u32;
        }
        (pr, tr)
    }
}

/// Row indexes `0..n` sorted by `key`.
pub(crate) fn order_by<K: Ord>(n: usize, key: impl FnMut(&u32) -> K) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(key);
    order
}
