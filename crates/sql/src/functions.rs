//! Perfetto's functions: `EXTRACT_ARG(arg_set_id, key)` and the flow table
//! functions `DIRECTLY_CONNECTED_FLOW`, `FOLLOWING_FLOW`, `PRECEDING_FLOW`.

use std::borrow::Cow;
use std::ffi::{c_int, CStr};
use std::marker::PhantomData;
use std::sync::Arc;

use rusqlite::functions::FunctionFlags;
use rusqlite::types::{Null, ToSqlOutput, Value as SqlValue, ValueRef};
use rusqlite::vtab::{
    Context, Filters, IndexConstraintOp, IndexInfo, VTab, VTabConnection, VTabCursor,
};
use rusqlite::{ffi, Connection};
use tracescope_model::{ArgSetId, ArgValue, RowSource, SliceRef, Trace};

use crate::vtab::set_value;
use crate::Shared;

/// Registers `EXTRACT_ARG`.
pub fn register(conn: &Connection, shared: Arc<Shared>) -> rusqlite::Result<()> {
    let shared_fn = shared.clone();
    conn.create_scalar_function(
        "extract_arg",
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        move |ctx| {
            let id = match ctx.get_raw(0) {
                ValueRef::Integer(i) => i,
                _ => return Ok(ToSqlOutput::Owned(SqlValue::Null)),
            };
            let key: String = match ctx.get_raw(1) {
                ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                _ => return Ok(ToSqlOutput::Owned(SqlValue::Null)),
            };
            let Some((k, local)) = shared_fn.local("args", id) else {
                return Ok(ToSqlOutput::Owned(SqlValue::Null));
            };
            let args = shared_fn.traces[k].trace().arg_set(ArgSetId::at(local));
            let v = args.iter().find(|a| a.key == key).map(|a| &a.value);
            Ok(ToSqlOutput::Owned(match v {
                None => SqlValue::Null,
                Some(ArgValue::Int(i)) => SqlValue::Integer(*i),
                Some(ArgValue::Bool(b)) => SqlValue::Integer(*b as i64),
                Some(ArgValue::Real(r)) => SqlValue::Real(*r),
                Some(ArgValue::Str(s)) => SqlValue::Text(s.clone()),
            }))
        },
    )?;
    for kind in [Kind::Directly, Kind::Following, Kind::Preceding] {
        let module: &'static rusqlite::vtab::Module<FlowFn> = Box::leak(Box::new(
            rusqlite::vtab::Module::<FlowFn>::eponymous_only_module(),
        ));
        conn.create_module(kind.name(), module, Some((shared.clone(), kind)))?;
    }
    Ok(())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Directly,
    Following,
    Preceding,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Directly => "directly_connected_flow",
            Kind::Following => "following_flow",
            Kind::Preceding => "preceding_flow",
        }
    }
}

/// A slice of the `slice` table's id space, resolved in one trace.
fn slice_ref(t: &Trace, id: usize) -> Option<SliceRef> {
    let (ns, ni) = (t.tables.slices.len(), t.tables.instants.len());
    if id < ns {
        Some(SliceRef::Thread(tracescope_model::SliceId::at(id)))
    } else if id >= ns + ni && id - ns - ni < t.tables.async_slices.len() {
        Some(SliceRef::Async(tracescope_model::AsyncSliceId::at(
            id - ns - ni,
        )))
    } else {
        None
    }
}

/// Whether `a` is `b` or inside it (through parents).
fn within(t: &Trace, a: SliceRef, b: SliceRef) -> bool {
    let mut cur = Some(a);
    let mut steps = 0;
    while let Some(c) = cur {
        if c == b {
            return true;
        }
        steps += 1;
        if steps > 100_000 {
            return false;
        }
        cur = match c {
            SliceRef::Thread(s) => t.tables.slices.parent[s.index()].map(SliceRef::Thread),
            SliceRef::Async(s) => t.tables.async_slices.parent[s.index()].map(SliceRef::Async),
        };
    }
    false
}

/// Flow rows connected to `start` as the function of `kind` defines them.
pub fn connected(t: &Trace, start: SliceRef, kind: Kind) -> Vec<u32> {
    let f = &t.tables.flows;
    let mut seen = vec![false; f.len()];
    let mut out = Vec::new();
    let mut todo: Vec<(SliceRef, bool)> = vec![(start, true), (start, false)];
    while let Some((s, forward)) = todo.pop() {
        if (kind == Kind::Following && !forward) || (kind == Kind::Preceding && forward) {
            continue;
        }
        for (k, seen_k) in seen.iter_mut().enumerate() {
            if *seen_k {
                continue;
            }
            let (here, there) = if forward {
                (f.from[k], f.to[k])
            } else {
                (f.to[k], f.from[k])
            };
            let hit = match kind {
                Kind::Directly => here == s,
                // A chain goes on from the slice or anything it encloses.
                Kind::Following => within(t, here, s),
                // ... or back from the slice or anything enclosing it.
                Kind::Preceding => within(t, s, here),
            };
            if hit {
                *seen_k = true;
                out.push(k as u32);
                todo.push((there, forward));
            }
        }
    }
    out.sort_unstable();
    out
}

#[repr(C)]
pub struct FlowFn {
    base: ffi::sqlite3_vtab,
    shared: Arc<Shared>,
    kind: Kind,
}

fn flow_columns() -> &'static [tracescope_model::Column] {
    match &crate::perfetto::FLOW.rows {
        RowSource::Indexed { columns, .. } => columns,
        RowSource::ArgSets { .. } => &[],
    }
}

unsafe impl<'vtab> VTab<'vtab> for FlowFn {
    type Aux = (Arc<Shared>, Kind);
    type Cursor = FlowCursor<'vtab>;

    fn connect(
        _db: &mut VTabConnection,
        aux: Option<&Self::Aux>,
        _module_name: &[u8],
        _database_name: &[u8],
        _table_name: &[u8],
        _args: &[&[u8]],
    ) -> rusqlite::Result<(Cow<'static, CStr>, Self)> {
        let (shared, kind) = aux
            .ok_or_else(|| rusqlite::Error::ModuleError("no traces".into()))?
            .clone();
        let schema = crate::vtab::declare(
            flow_columns().iter().map(|c| format!("\"{}\"", c.name)),
            "trace TEXT, start_id HIDDEN",
        )?;
        Ok((
            Cow::Owned(schema),
            FlowFn {
                base: ffi::sqlite3_vtab::default(),
                shared,
                kind,
            },
        ))
    }

    fn best_index(&self, info: &mut IndexInfo) -> rusqlite::Result<bool> {
        let hidden = flow_columns().len() as c_int + 1;
        let arg = info.constraints().enumerate().find(|(_, c)| {
            c.column() == hidden && c.operator() == IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_EQ
        });
        let Some((i, c)) = arg.map(|(i, c)| (i, c.is_usable())) else {
            return Err(rusqlite::Error::ModuleError(format!(
                "{}() takes a slice id",
                self.kind.name()
            )));
        };
        if !c {
            return Ok(false);
        }
        let mut u = info.constraint_usage(i);
        u.set_argv_index(1);
        u.set_omit(true);
        info.set_estimated_cost(10.0);
        Ok(true)
    }

    fn open(&'vtab mut self) -> rusqlite::Result<FlowCursor<'vtab>> {
        Ok(FlowCursor {
            base: ffi::sqlite3_vtab_cursor::default(),
            shared: self.shared.clone(),
            kind: self.kind,
            rows: Vec::new(),
            trace: 0,
            pos: 0,
            phantom: PhantomData,
        })
    }
}

#[repr(C)]
pub struct FlowCursor<'vtab> {
    base: ffi::sqlite3_vtab_cursor,
    shared: Arc<Shared>,
    kind: Kind,
    rows: Vec<u32>,
    trace: usize,
    pos: usize,
    phantom: PhantomData<&'vtab FlowFn>,
}

unsafe impl VTabCursor for FlowCursor<'_> {
    fn filter(
        &mut self,
        _idx_num: c_int,
        _idx_str: Option<&str>,
        args: &Filters<'_>,
    ) -> rusqlite::Result<()> {
        self.rows.clear();
        self.pos = 0;
        let v: rusqlite::types::Value = args.get(0)?;
        if let ValueRef::Integer(id) = ValueRef::from(&v) {
            if let Some((k, local)) = self.shared.local("slice", id) {
                let t = self.shared.traces[k].trace();
                if let Some(start) = slice_ref(t, local) {
                    self.rows = connected(t, start, self.kind);
                    self.trace = k;
                }
            }
        }
        Ok(())
    }

    fn next(&mut self) -> rusqlite::Result<()> {
        self.pos += 1;
        Ok(())
    }

    fn eof(&self) -> bool {
        self.pos >= self.rows.len()
    }

    fn column(&self, ctx: &mut Context, i: c_int) -> rusqlite::Result<()> {
        let cols = flow_columns();
        let k = self.trace;
        match cols.get(i as usize) {
            Some(c) => {
                let v = (c.get)(self.shared.traces[k].trace(), self.rows[self.pos] as usize);
                if let (tracescope_model::ColumnType::Id(space), tracescope_model::Value::Int(id)) =
                    (c.ty, &v)
                {
                    return ctx.set_result(id + self.shared.base(space, k));
                }
                set_value(ctx, v)
            }
            None if i as usize == cols.len() => ctx.set_result(self.shared.traces[k].name.as_str()),
            None => ctx.set_result(Null),
        }
    }

    fn rowid(&self) -> rusqlite::Result<i64> {
        Ok(self.rows[self.pos] as i64)
    }
}
