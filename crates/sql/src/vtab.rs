//! One SQLite virtual table module for every declared table: cells are read from
//! the model through the declaration's getters (no copy of the tables), one row per
//! model row and trace, with a `trace` column last.
//!
//! Pushed down: the row id (`=`, `<`, `>`, ...: a range of rows), `trace =`, a
//! thread (`thread_id =`, `utid =`: that thread's runs) and the start time (binary
//! search in each sorted run). A `GROUP BY` on one column (and `trace`) is
//! consumed: rows come out grouped, so SQLite aggregates them as they stream
//! instead of sorting them first.

use std::borrow::Cow;
use std::ffi::{c_int, CStr, CString};
use std::marker::PhantomData;
use std::ops::Range;

use rusqlite::ffi;
use rusqlite::types::{Null, ValueRef};
use rusqlite::vtab::{
    Context, CreateVTab, DistinctMode, Filters, IndexConstraintOp, IndexInfo, VTab, VTabConnection,
    VTabCursor, VTabKind,
};
use rustc_hash::FxHashMap;
use tracescope_model::{ColumnType, Trace, Value};

use crate::spec::Spec;
use crate::Shared;

#[repr(C)]
pub struct DeclTab {
    base: ffi::sqlite3_vtab,
    shared: std::sync::Arc<Shared>,
    spec: usize,
}

/// The role of a pushed-down constraint.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    RowId,
    Trace,
    Thread,
    Ts,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Eq,
    Gt,
    Ge,
    Lt,
    Le,
}

impl Op {
    fn of(op: IndexConstraintOp) -> Option<Op> {
        Some(match op {
            IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_EQ => Op::Eq,
            IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_GT => Op::Gt,
            IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_GE => Op::Ge,
            IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_LT => Op::Lt,
            IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_LE => Op::Le,
            _ => return None,
        })
    }
}

/// The `CREATE TABLE` statement a virtual table declares to SQLite: its columns,
/// then `tail` (the trace column, hidden arguments).
pub(crate) fn declare(
    columns: impl Iterator<Item = String>,
    tail: &str,
) -> rusqlite::Result<CString> {
    let mut schema = String::from("CREATE TABLE x(");
    for c in columns {
        schema.push_str(&c);
        schema.push_str(", ");
    }
    schema.push_str(tail);
    schema.push(')');
    CString::new(schema).map_err(|e| rusqlite::Error::ModuleError(e.to_string()))
}

/// The plan `best_index` chose, as text for `filter`: one `role:op` per argument,
/// then the grouping (`g:<column>` and `+trace`).
fn encode(cons: &[(Role, Op)], group: Grouping) -> String {
    let mut s: Vec<String> = cons.iter().map(|(r, o)| format!("{r:?}:{o:?}")).collect();
    if let Some((c, with_trace)) = group {
        s.push(format!("g:{c}:{with_trace}"));
    }
    s.join(",")
}

/// The GROUP BY a plan consumes: the grouped column, and whether `trace` is grouped too.
type Grouping = Option<(usize, bool)>;

fn decode(s: &str) -> (Vec<(Role, Op)>, Grouping) {
    let mut cons = Vec::new();
    let mut group = None;
    for part in s.split(',').filter(|p| !p.is_empty()) {
        let mut it = part.split(':');
        let (a, b) = (it.next().unwrap_or(""), it.next().unwrap_or(""));
        if a == "g" {
            let c = b.parse().unwrap_or(0);
            group = Some((c, it.next() == Some("true")));
            continue;
        }
        let role = match a {
            "RowId" => Role::RowId,
            "Trace" => Role::Trace,
            "Thread" => Role::Thread,
            _ => Role::Ts,
        };
        let op = match b {
            "Eq" => Op::Eq,
            "Gt" => Op::Gt,
            "Ge" => Op::Ge,
            "Lt" => Op::Lt,
            _ => Op::Le,
        };
        cons.push((role, op));
    }
    (cons, group)
}

/// SQLite's declared type for a column (its affinity).
fn sql_type(ty: ColumnType) -> &'static str {
    match ty {
        ColumnType::Id(_)
        | ColumnType::Int
        | ColumnType::Time
        | ColumnType::Duration
        | ColumnType::Bool => "INTEGER",
        ColumnType::Float => "REAL",
        ColumnType::Str | ColumnType::Json => "TEXT",
        ColumnType::Pid | ColumnType::Number => "",
    }
}

impl DeclTab {
    fn spec(&self) -> &Spec {
        &self.shared.specs[self.spec]
    }

    fn trace_col(&self) -> usize {
        self.spec().columns().len()
    }
}

unsafe impl<'vtab> VTab<'vtab> for DeclTab {
    type Aux = std::sync::Arc<Shared>;
    type Cursor = DeclCursor<'vtab>;

    fn connect(
        _db: &mut VTabConnection,
        aux: Option<&Self::Aux>,
        _module_name: &[u8],
        _database_name: &[u8],
        _table_name: &[u8],
        args: &[&[u8]],
    ) -> rusqlite::Result<(Cow<'static, CStr>, Self)> {
        let shared = aux
            .ok_or_else(|| rusqlite::Error::ModuleError("no traces".into()))?
            .clone();
        let name = args
            .last()
            .map(|a| String::from_utf8_lossy(a).trim().to_string())
            .unwrap_or_default();
        let spec = shared
            .specs
            .iter()
            .position(|s| s.name() == name)
            .ok_or_else(|| rusqlite::Error::ModuleError(format!("no table {name}")))?;
        let schema = declare(
            shared.specs[spec]
                .columns()
                .iter()
                .map(|c| format!("\"{}\" {}", c.name, sql_type(c.ty))),
            "\"trace\" TEXT",
        )?;
        Ok((
            Cow::Owned(schema),
            DeclTab {
                base: ffi::sqlite3_vtab::default(),
                shared,
                spec,
            },
        ))
    }

    fn best_index(&self, info: &mut IndexInfo) -> rusqlite::Result<bool> {
        let spec = self.spec();
        let trace_col = self.trace_col() as c_int;
        let mut cons: Vec<(usize, Role, Op)> = Vec::new();
        for (i, c) in info.constraints().enumerate() {
            if !c.is_usable() {
                continue;
            }
            let Some(op) = Op::of(c.operator()) else {
                continue;
            };
            let col = c.column();
            let role = if Some(col as usize) == spec.row_id {
                Role::RowId
            } else if col == trace_col && op == Op::Eq {
                Role::Trace
            } else if Some(col as usize) == spec.thread && op == Op::Eq {
                Role::Thread
            } else if Some(col as usize) == spec.ts {
                Role::Ts
            } else {
                continue;
            };
            cons.push((i, role, op));
        }
        let total: f64 = self
            .shared
            .traces
            .iter()
            .map(|t| spec.len(t.trace()) as f64)
            .sum::<f64>()
            .max(1.0);
        let mut rows = total;
        for (k, &(i, role, _)) in cons.iter().enumerate() {
            let mut u = info.constraint_usage(i);
            u.set_argv_index(k as c_int + 1);
            // Row ids and traces are matched exactly; threads and times narrow the
            // rows to a superset that SQLite checks again.
            u.set_omit(matches!(role, Role::RowId | Role::Trace));
        }
        for &(_, role, op) in &cons {
            rows = match (role, op) {
                (Role::RowId, Op::Eq) => 1.0,
                (Role::RowId, _) => rows / 3.0,
                (Role::Trace, _) => rows / self.shared.traces.len().max(1) as f64,
                (Role::Thread, _) => rows / 10.0,
                (Role::Ts, Op::Eq) => rows / 100.0,
                (Role::Ts, _) => rows / 4.0,
            }
            .max(1.0);
        }
        // ORDER BY the row id: the natural order. GROUP BY one column (and the
        // trace): rows come out grouped.
        let order: Vec<(c_int, bool)> = info
            .order_bys()
            .map(|o| (o.column(), o.is_order_by_desc()))
            .collect();
        let mut group = None;
        if !order.is_empty() {
            let by_row_id =
                order.len() == 1 && Some(order[0].0 as usize) == spec.row_id && !order[0].1;
            let grouped = matches!(info.distinct(), DistinctMode::Grouped);
            let others: Vec<c_int> = order
                .iter()
                .map(|o| o.0)
                .filter(|&c| c != trace_col)
                .collect();
            if by_row_id {
                info.set_order_by_consumed(true);
            } else if grouped && others.len() == 1 && others[0] >= 0 && others[0] < trace_col {
                group = Some((others[0] as usize, others.len() < order.len()));
                info.set_order_by_consumed(true);
            }
        }
        let plan: Vec<(Role, Op)> = cons.iter().map(|c| (c.1, c.2)).collect();
        info.set_idx_str(&encode(&plan, group));
        info.set_estimated_rows(rows as i64);
        info.set_estimated_cost(rows);
        Ok(true)
    }

    fn open(&'vtab mut self) -> rusqlite::Result<DeclCursor<'vtab>> {
        Ok(DeclCursor {
            base: ffi::sqlite3_vtab_cursor::default(),
            shared: self.shared.clone(),
            spec: self.spec,
            segs: Vec::new(),
            seg: 0,
            pos: 0,
            phantom: PhantomData,
        })
    }
}

impl CreateVTab<'_> for DeclTab {
    const KIND: VTabKind = VTabKind::Default;
}

/// Rows of one trace, in output order.
pub(crate) enum Rows {
    Range(Range<u32>),
    List(Vec<u32>),
}

impl Rows {
    fn len(&self) -> usize {
        match self {
            Rows::Range(r) => r.len(),
            Rows::List(l) => l.len(),
        }
    }

    fn get(&self, k: usize) -> u32 {
        match self {
            Rows::Range(r) => r.start + k as u32,
            Rows::List(l) => l[k],
        }
    }
}

#[repr(C)]
pub struct DeclCursor<'vtab> {
    base: ffi::sqlite3_vtab_cursor,
    shared: std::sync::Arc<Shared>,
    spec: usize,
    /// (trace, rows) in output order.
    segs: Vec<(usize, Rows)>,
    seg: usize,
    pos: usize,
    phantom: PhantomData<&'vtab DeclTab>,
}

/// A constraint's value as a bound on integers.
fn int_arg(v: ValueRef<'_>) -> Option<f64> {
    match v {
        ValueRef::Integer(i) => Some(i as f64),
        ValueRef::Real(r) => Some(r),
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// Narrows `lo..hi` (inclusive bounds on a value) by a comparison.
fn narrow(lo: &mut f64, hi: &mut f64, op: Op, v: f64) {
    match op {
        // Row ids and times are integers: equal to a fraction, none is.
        Op::Eq if v.fract() != 0.0 => *lo = f64::INFINITY,
        Op::Eq => {
            *lo = lo.max(v);
            *hi = hi.min(v);
        }
        Op::Gt => *lo = lo.max(v.floor() + 1.0),
        Op::Ge => *lo = lo.max(v.ceil()),
        Op::Lt => *hi = hi.min(v.ceil() - 1.0),
        Op::Le => *hi = hi.min(v.floor()),
    }
}

/// A grouping key: a cell's value, strings borrowed from the trace when they can be.
#[derive(Hash, PartialEq, Eq)]
enum Key<'t> {
    Null,
    /// An interned string by address: one trace's strings are stored once each.
    Ptr(usize),
    Int(i64),
    UInt(u64),
    Float(u64),
    Str(Cow<'t, str>),
}

fn key(v: Value<'_>) -> Key<'_> {
    match v {
        Value::Str(s) => Key::Ptr(s.as_ptr() as usize ^ (s.len() << 48)),
        Value::Null => Key::Null,
        Value::Bool(b) => Key::Int(b as i64),
        Value::Int(i) => Key::Int(i),
        Value::UInt(u) => Key::UInt(u),
        Value::Float(f) => Key::Float(f.to_bits()),
        Value::String(s) => Key::Str(Cow::Owned(s)),
        Value::Json(s) => Key::Str(s),
    }
}

impl DeclCursor<'_> {
    fn spec(&self) -> &Spec {
        &self.shared.specs[self.spec]
    }

    fn skip_empty(&mut self) {
        while self.seg < self.segs.len() && self.pos >= self.segs[self.seg].1.len() {
            self.seg += 1;
            self.pos = 0;
        }
    }

    /// The rows of one trace that the constraints leave.
    fn trace_rows(&self, k: usize, cons: &[(Role, Op, Option<f64>)]) -> Vec<Rows> {
        let shared = &self.shared;
        let spec = self.spec();
        let t = shared.traces[k].trace();
        let n = spec.len(t) as f64;
        let base = shared.base(spec.name(), k) as f64;
        let (mut lo, mut hi) = (0.0f64, n - 1.0);
        let (mut ts_lo, mut ts_hi) = (f64::MIN, f64::MAX);
        let mut thread: Option<f64> = None;
        for &(role, op, v) in cons {
            let Some(v) = v else {
                // Compared with NULL (or a non-number): no row matches.
                if role != Role::Trace {
                    return Vec::new();
                }
                continue;
            };
            match role {
                Role::RowId => narrow(&mut lo, &mut hi, op, v - base),
                Role::Ts => narrow(&mut ts_lo, &mut ts_hi, op, v),
                Role::Thread => thread = Some(v - shared.base("threads", k) as f64),
                Role::Trace => {}
            }
        }
        if lo > hi || ts_lo > ts_hi {
            return Vec::new();
        }
        let ids = lo as u32..(hi + 1.0) as u32;
        let Some(runs) = spec
            .runs
            .filter(|_| thread.is_some() || ts_lo > f64::MIN || ts_hi < f64::MAX)
        else {
            return vec![Rows::Range(ids)];
        };
        let ts_col = spec.ts.map(|c| spec.columns()[c].get);
        let ts_of = |i: u32| match ts_col.map(|g| g(t, i as usize)) {
            Some(Value::Int(v)) => v as f64,
            _ => f64::MIN,
        };
        let mut out = Vec::new();
        for run in runs(t) {
            if let (Some(want), Some(th)) = (thread, run.thread) {
                if want != th as f64 {
                    continue;
                }
            }
            let mut r = run.rows.start.max(ids.start)..run.rows.end.min(ids.end);
            if r.is_empty() {
                continue;
            }
            if run.sorted && ts_col.is_some() {
                let first = partition(r.clone(), |i| ts_of(i) < ts_lo);
                let end = partition(r.clone(), |i| ts_of(i) <= ts_hi);
                r = first..end.max(first);
            }
            if !r.is_empty() {
                out.push(Rows::Range(r));
            }
        }
        out
    }
}

/// The first row of `r` for which `before` is false (`before` must be true for a
/// prefix of the rows, false after).
fn partition(r: Range<u32>, before: impl Fn(u32) -> bool) -> u32 {
    let (mut a, mut b) = (r.start, r.end);
    while a < b {
        let m = a + (b - a) / 2;
        if before(m) {
            a = m + 1;
        } else {
            b = m;
        }
    }
    a
}

unsafe impl VTabCursor for DeclCursor<'_> {
    fn filter(
        &mut self,
        _idx_num: c_int,
        idx_str: Option<&str>,
        args: &Filters<'_>,
    ) -> rusqlite::Result<()> {
        let (plan, group) = decode(idx_str.unwrap_or(""));
        let mut cons = Vec::new();
        let mut want_trace: Option<Option<String>> = None;
        for (k, &(role, op)) in plan.iter().enumerate() {
            let v: rusqlite::types::Value = args.get(k)?;
            let v = ValueRef::from(&v);
            if role == Role::Trace {
                want_trace = Some(match v {
                    ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
                    _ => None,
                });
            }
            cons.push((role, op, int_arg(v)));
        }
        let traces: Vec<usize> = (0..self.shared.traces.len())
            .filter(|&k| match &want_trace {
                None => true,
                Some(w) => w.as_deref() == Some(self.shared.traces[k].name.as_str()),
            })
            .collect();
        let mut segs: Vec<(usize, Rows)> = Vec::new();
        for k in traces {
            for rows in self.trace_rows(k, &cons) {
                segs.push((k, rows));
            }
        }
        if let Some((col, with_trace)) = group {
            segs = self.grouped(segs, col, with_trace);
        }
        self.segs = segs;
        self.seg = 0;
        self.pos = 0;
        self.skip_empty();
        Ok(())
    }

    fn next(&mut self) -> rusqlite::Result<()> {
        self.pos += 1;
        self.skip_empty();
        Ok(())
    }

    fn eof(&self) -> bool {
        self.seg >= self.segs.len()
    }

    fn column(&self, ctx: &mut Context, i: c_int) -> rusqlite::Result<()> {
        let (k, rows) = &self.segs[self.seg];
        let row = rows.get(self.pos) as usize;
        let shared = &self.shared;
        let columns = self.spec().columns();
        let Some(col) = columns.get(i as usize) else {
            return ctx.set_result(shared.traces[*k].name.as_str());
        };
        let t = shared.traces[*k].trace();
        let v = (col.get)(t, row);
        if let (ColumnType::Id(target), Value::Int(id)) = (col.ty, &v) {
            return ctx.set_result(id + shared.base(target, *k));
        }
        set_value(ctx, v)
    }

    fn rowid(&self) -> rusqlite::Result<i64> {
        let (k, rows) = &self.segs[self.seg];
        Ok(((*k as i64) << 32) | rows.get(self.pos) as i64)
    }
}

impl DeclCursor<'_> {
    /// Reorders the rows so that equal values of column `col` (per trace when
    /// `with_trace`) are adjacent: a counting sort over the groups' first sightings.
    fn grouped(
        &self,
        segs: Vec<(usize, Rows)>,
        col: usize,
        with_trace: bool,
    ) -> Vec<(usize, Rows)> {
        let get = self.spec().columns()[col].get;
        let shared = &self.shared;
        let mut groups: FxHashMap<(usize, Key<'_>), u32> = FxHashMap::default();
        let mut items: Vec<(u32, u32)> = Vec::new();
        let mut gidx: Vec<u32> = Vec::new();
        // Strings are keyed by address first (an interned name is stored once, so
        // this is fast), then groups with equal text are merged below.
        let mut texts: Vec<(usize, Option<&str>)> = Vec::new();
        for (k, rows) in &segs {
            let t: &Trace = shared.traces[*k].trace();
            let tk = if with_trace { *k } else { 0 };
            for j in 0..rows.len() {
                let row = rows.get(j);
                let next = groups.len() as u32;
                let v = get(t, row as usize);
                let text = match v {
                    Value::Str(s) => Some(s),
                    _ => None,
                };
                let g = *groups.entry((tk, key(v))).or_insert_with(|| {
                    texts.push((tk, text));
                    next
                });
                items.push((*k as u32, row));
                gidx.push(g);
            }
        }
        let mut same: FxHashMap<(usize, &str), u32> = FxHashMap::default();
        let canon: Vec<u32> = texts
            .iter()
            .enumerate()
            .map(|(g, &(tk, text))| match text {
                Some(s) => *same.entry((tk, s)).or_insert(g as u32),
                None => g as u32,
            })
            .collect();
        if canon.iter().enumerate().any(|(g, &c)| c != g as u32) {
            gidx.iter_mut().for_each(|g| *g = canon[*g as usize]);
        }
        let mut start = vec![0u32; groups.len() + 1];
        for &g in &gidx {
            start[g as usize + 1] += 1;
        }
        for g in 1..start.len() {
            start[g] += start[g - 1];
        }
        let mut order = vec![0u32; items.len()];
        for (i, &g) in gidx.iter().enumerate() {
            let slot = &mut start[g as usize];
            order[*slot as usize] = i as u32;
            *slot += 1;
        }
        drop(gidx);
        let mut out: Vec<(usize, Rows)> = Vec::new();
        for &i in &order {
            let (k, row) = items[i as usize];
            match out.last_mut() {
                Some((last, Rows::List(l))) if *last == k as usize => l.push(row),
                _ => out.push((k as usize, Rows::List(vec![row]))),
            }
        }
        out
    }
}

/// Hands a cell to SQLite: integers beyond `i64` as text, booleans as 0/1.
pub(crate) fn set_value(ctx: &mut Context, v: Value<'_>) -> rusqlite::Result<()> {
    match v {
        Value::Null => ctx.set_result(Null),
        Value::Bool(b) => ctx.set_result(b as i64),
        Value::Int(i) => ctx.set_result(i),
        Value::UInt(u) => match i64::try_from(u) {
            Ok(i) => ctx.set_result(i),
            Err(_) => ctx.set_result(u.to_string()),
        },
        Value::Float(f) => ctx.set_result(f),
        Value::Str(s) => ctx.set_result(s),
        Value::String(s) => ctx.set_result(&s),
        Value::Json(s) => ctx.set_result(&*s),
    }
}
