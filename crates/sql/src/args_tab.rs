//! The `args` virtual table: arg sets parsed only when read. `arg_set_id = X` (a
//! join from `slice.arg_set_id`) parses that one event's args; a full scan parses
//! every event's, one at a time.

use std::borrow::Cow;
use std::ffi::{c_int, CStr};
use std::marker::PhantomData;
use std::sync::Arc;

use rusqlite::ffi;
use rusqlite::types::ValueRef;
use rusqlite::vtab::{
    Context, Filters, IndexConstraintOp, IndexInfo, VTab, VTabConnection, VTabCursor,
};
use tracescope_model::{Arg, ArgSetId, RowSource, Value};

use crate::vtab::set_value;
use crate::Shared;

/// The model's args columns, then `id` (orders args within and across sets),
/// then `trace`.
fn columns() -> &'static [tracescope_model::Column<tracescope_model::ArgGetter>] {
    match &tracescope_model::table("args").expect("declared").rows {
        RowSource::ArgSets { columns } => columns,
        RowSource::Indexed { .. } => &[],
    }
}

#[repr(C)]
pub struct ArgsTab {
    base: ffi::sqlite3_vtab,
    shared: Arc<Shared>,
}

unsafe impl<'vtab> VTab<'vtab> for ArgsTab {
    type Aux = Arc<Shared>;
    type Cursor = ArgsCursor<'vtab>;

    fn connect(
        _db: &mut VTabConnection,
        aux: Option<&Self::Aux>,
        _module_name: &[u8],
        _database_name: &[u8],
        _table_name: &[u8],
        _args: &[&[u8]],
    ) -> rusqlite::Result<(Cow<'static, CStr>, Self)> {
        let shared = aux
            .ok_or_else(|| rusqlite::Error::ModuleError("no traces".into()))?
            .clone();
        let schema = crate::vtab::declare(
            columns().iter().map(|c| format!("\"{}\"", c.name)),
            "\"id\" INTEGER, \"trace\" TEXT",
        )?;
        Ok((
            Cow::Owned(schema),
            ArgsTab {
                base: ffi::sqlite3_vtab::default(),
                shared,
            },
        ))
    }

    fn best_index(&self, info: &mut IndexInfo) -> rusqlite::Result<bool> {
        let eq = info.constraints().enumerate().find(|(_, c)| {
            c.is_usable()
                && c.column() == 0
                && c.operator() == IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_EQ
        });
        let total: f64 = self
            .shared
            .traces
            .iter()
            .map(|t| t.trace().arg_set_space() as f64 * 4.0)
            .sum::<f64>()
            .max(1.0);
        if let Some((i, _)) = eq {
            let mut u = info.constraint_usage(i);
            u.set_argv_index(1);
            u.set_omit(true);
            info.set_idx_num(1);
            info.set_estimated_rows(4);
            info.set_estimated_cost(10.0);
        } else {
            info.set_idx_num(0);
            info.set_estimated_rows(total as i64);
            info.set_estimated_cost(total * 100.0);
        }
        Ok(true)
    }

    fn open(&'vtab mut self) -> rusqlite::Result<ArgsCursor<'vtab>> {
        Ok(ArgsCursor {
            base: ffi::sqlite3_vtab_cursor::default(),
            shared: self.shared.clone(),
            sets: Vec::new(),
            next_set: 0,
            buf: Vec::new(),
            pos: 0,
            trace: 0,
            phantom: PhantomData,
        })
    }
}

#[repr(C)]
pub struct ArgsCursor<'vtab> {
    base: ffi::sqlite3_vtab_cursor,
    shared: Arc<Shared>,
    /// Arg sets still to read: (trace, first id, end id).
    sets: Vec<(usize, usize, usize)>,
    next_set: usize,
    buf: Vec<Arg>,
    pos: usize,
    trace: usize,
    phantom: PhantomData<&'vtab ArgsTab>,
}

impl ArgsCursor<'_> {
    /// Fills `buf` from the next arg set with args, if any.
    fn fill(&mut self) {
        while self.pos >= self.buf.len() {
            let Some(&(k, next, end)) = self.sets.get(self.next_set) else {
                return;
            };
            if next >= end {
                self.next_set += 1;
                continue;
            }
            self.sets[self.next_set].1 += 1;
            let t = self.shared.traces[k].trace();
            let id = ArgSetId::at(next);
            self.buf = match t.arg_owner(id) {
                Some(owner) if t.arg_set_id(owner).is_some() => t.arg_set(id),
                _ => Vec::new(),
            };
            self.pos = 0;
            self.trace = k;
        }
    }
}

unsafe impl VTabCursor for ArgsCursor<'_> {
    fn filter(
        &mut self,
        idx_num: c_int,
        _idx_str: Option<&str>,
        args: &Filters<'_>,
    ) -> rusqlite::Result<()> {
        let shared = self.shared.clone();
        self.sets.clear();
        if idx_num == 1 {
            let v: rusqlite::types::Value = args.get(0)?;
            let id = match ValueRef::from(&v) {
                ValueRef::Integer(i) => Some(i),
                ValueRef::Real(r) if r.fract() == 0.0 => Some(r as i64),
                _ => None,
            };
            if let Some((k, local)) = id.and_then(|id| shared.local("args", id)) {
                self.sets.push((k, local, local + 1));
            }
        } else {
            for (k, t) in shared.traces.iter().enumerate() {
                self.sets.push((k, 0, t.trace().arg_set_space()));
            }
        }
        self.next_set = 0;
        self.buf.clear();
        self.pos = 0;
        self.fill();
        Ok(())
    }

    fn next(&mut self) -> rusqlite::Result<()> {
        self.pos += 1;
        self.fill();
        Ok(())
    }

    fn eof(&self) -> bool {
        self.pos >= self.buf.len()
    }

    fn column(&self, ctx: &mut Context, i: c_int) -> rusqlite::Result<()> {
        let arg = &self.buf[self.pos];
        let cols = columns();
        let set = arg.arg_set_id.raw() as i64 + self.shared.base("args", self.trace);
        match i as usize {
            0 => ctx.set_result(set),
            c if c < cols.len() => set_value(ctx, (cols[c].get)(&arg.as_ref())),
            c if c == cols.len() => ctx.set_result((set << 16) + self.pos.min(0xffff) as i64),
            _ => set_value(ctx, Value::Str(&self.shared.traces[self.trace].name)),
        }
    }

    fn rowid(&self) -> rusqlite::Result<i64> {
        let set = self.buf[self.pos].arg_set_id.raw() as i64 + self.shared.base("args", self.trace);
        Ok((set << 16) + self.pos as i64)
    }
}
