//! The args table: each event's args flattened into one row per leaf value, as
//! Perfetto's `args` table has them (`args.a.b`, `args.list[0]`). Args stay text in
//! the model; an arg set is parsed only when someone reads it.

use tracescope_format::json::Value as Json;

use super::decl::{Column, ColumnType as T, RowSource, Table, Value};
use super::ids::ArgSetId;
use crate::args::TextRef;
use crate::trace::Trace;

/// The event an arg set belongs to: a row of one of the tables with args.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgOwner {
    Slice(usize),
    Instant(usize),
    Async(usize),
    Snapshot(usize),
    Metadata(usize),
    Other(usize),
}

/// One leaf value of an arg set.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub arg_set_id: ArgSetId,
    /// The key without array indexes (`args.list`).
    pub flat_key: String,
    /// The full key (`args.list[0]`).
    pub key: String,
    pub value: ArgValue,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    Int(i64),
    /// Also integers beyond 64 bits.
    Real(f64),
    Str(String),
    Bool(bool),
}

impl ArgValue {
    pub fn type_name(&self) -> &'static str {
        match self {
            ArgValue::Int(_) => "int",
            ArgValue::Real(_) => "real",
            ArgValue::Str(_) => "string",
            ArgValue::Bool(_) => "bool",
        }
    }

    /// The value as text, as Perfetto's `display_value`.
    pub fn display(&self) -> String {
        match self {
            ArgValue::Int(i) => i.to_string(),
            ArgValue::Real(r) => r.to_string(),
            ArgValue::Str(s) => s.clone(),
            ArgValue::Bool(b) => b.to_string(),
        }
    }
}

const OWNERS: [fn(usize) -> ArgOwner; 6] = [
    ArgOwner::Slice,
    ArgOwner::Instant,
    ArgOwner::Async,
    ArgOwner::Snapshot,
    ArgOwner::Metadata,
    ArgOwner::Other,
];

/// Rows of each owner table, in the order of [`OWNERS`]: arg set ids number the
/// rows of these tables one after the other.
fn lens(t: &Trace) -> [usize; 6] {
    let tb = &t.tables;
    [
        tb.slices.len(),
        tb.instants.len(),
        tb.async_slices.len(),
        tb.snapshots.len(),
        tb.metadata.len(),
        tb.other.len(),
    ]
}

impl ArgOwner {
    /// Index in [`OWNERS`] and row.
    fn split(self) -> (usize, usize) {
        match self {
            ArgOwner::Slice(i) => (0, i),
            ArgOwner::Instant(i) => (1, i),
            ArgOwner::Async(i) => (2, i),
            ArgOwner::Snapshot(i) => (3, i),
            ArgOwner::Metadata(i) => (4, i),
            ArgOwner::Other(i) => (5, i),
        }
    }
}

impl Trace {
    /// The raw args of an owner (and the closing event's, for slices).
    pub fn owner_args(&self, owner: ArgOwner) -> (TextRef, TextRef) {
        let t = &self.tables;
        match owner {
            ArgOwner::Slice(i) => (t.slices.args[i], t.slices.end_args[i]),
            ArgOwner::Instant(i) => (t.instants.args[i], TextRef::NONE),
            ArgOwner::Async(i) => (t.async_slices.args[i], t.async_slices.end_args[i]),
            ArgOwner::Snapshot(i) => (t.snapshots[i].args, TextRef::NONE),
            ArgOwner::Metadata(i) => (t.metadata[i].args, TextRef::NONE),
            ArgOwner::Other(i) => (t.other.args[i], TextRef::NONE),
        }
    }

    /// The arg set of an event, or `None` when it has no args (or only `{}`).
    pub fn arg_set_id(&self, owner: ArgOwner) -> Option<ArgSetId> {
        let (a, e) = self.owner_args(owner);
        let empty = |r: TextRef| r.is_none() || self.raw(r).trim() == "{}";
        if empty(a) && empty(e) {
            return None;
        }
        let (k, row) = owner.split();
        Some(ArgSetId::at(lens(self)[..k].iter().sum::<usize>() + row))
    }

    /// How many arg set ids the trace numbers (ids are `0..arg_set_space()`; an
    /// event without args leaves its id unused).
    pub fn arg_set_space(&self) -> usize {
        lens(self).iter().sum()
    }

    /// The event an arg set belongs to.
    pub fn arg_owner(&self, id: ArgSetId) -> Option<ArgOwner> {
        let mut row = id.index();
        for (len, make) in lens(self).into_iter().zip(OWNERS) {
            if row < len {
                return Some(make(row));
            }
            row -= len;
        }
        None
    }

    /// The flattened args of one arg set (parsed now).
    pub fn arg_set(&self, id: ArgSetId) -> Vec<Arg> {
        let mut out = Vec::new();
        if let Some(owner) = self.arg_owner(id) {
            let (a, e) = self.owner_args(owner);
            if let Some(text) = self.merged_args(a, e) {
                if let Ok(v) = Json::parse(&text) {
                    flatten(id, &v, "args", "args", &mut out);
                }
            }
        }
        out
    }

    /// A JSON cell of `args` merged with the closing event's `args`.
    pub fn args_value(&self, args: TextRef, end_args: TextRef) -> Value<'_> {
        self.merged_args(args, end_args)
            .map_or(Value::Null, Value::Json)
    }
}

/// One row per leaf: objects add `.key`, arrays `[i]` (to `key` only); nulls and
/// empty objects make no row.
fn flatten(id: ArgSetId, v: &Json<'_>, flat: &str, key: &str, out: &mut Vec<Arg>) {
    let leaf = |value| Arg {
        arg_set_id: id,
        flat_key: flat.to_string(),
        key: key.to_string(),
        value,
    };
    match v {
        Json::Null => {}
        Json::Bool(b) => out.push(leaf(ArgValue::Bool(*b))),
        Json::Number(n) => {
            let value = match tracescope_format::Int64::parse_number(n) {
                Some(tracescope_format::Int64::I(i)) => ArgValue::Int(i),
                _ => ArgValue::Real(n.parse().unwrap_or(f64::NAN)),
            };
            out.push(leaf(value));
        }
        Json::String(s) => out.push(leaf(ArgValue::Str(s.to_string()))),
        Json::Array(items) => {
            for (i, it) in items.iter().enumerate() {
                flatten(id, it, flat, &format!("{key}[{i}]"), out);
            }
        }
        Json::Object(members) => {
            for (k, it) in members {
                flatten(id, it, &format!("{flat}.{k}"), &format!("{key}.{k}"), out);
            }
        }
    }
}

/// Calls `each` with every arg of every arg set, in arg set order.
pub fn for_each_arg(trace: &Trace, mut each: impl FnMut(&Arg)) {
    for (len, make) in lens(trace).into_iter().zip(OWNERS) {
        for row in 0..len {
            if let Some(id) = trace.arg_set_id(make(row)) {
                for arg in trace.arg_set(id) {
                    each(&arg);
                }
            }
        }
    }
}

fn int(a: &Arg) -> Option<i64> {
    match a.value {
        ArgValue::Int(i) => Some(i),
        ArgValue::Bool(b) => Some(b as i64),
        _ => None,
    }
}

pub static TABLE: Table = Table {
    name: "args",
    doc: "Every event's args flattened, one row per leaf value (Perfetto's args table).",
    rows: RowSource::ArgSets {
        columns: &[
            Column {
                name: "arg_set_id",
                ty: T::Id("args"),
                nullable: false,
                doc: "the arg set (slices.arg_set_id and others point here)",
                get: |a| a.arg_set_id.into(),
            },
            Column {
                name: "flat_key",
                ty: T::Str,
                nullable: false,
                doc: "key without array indexes (args.list)",
                get: |a| Value::Str(&a.flat_key),
            },
            Column {
                name: "key",
                ty: T::Str,
                nullable: false,
                doc: "full key (args.list[0])",
                get: |a| Value::Str(&a.key),
            },
            Column {
                name: "int_value",
                ty: T::Int,
                nullable: true,
                doc: "integer and bool values",
                get: |a| Value::opt_int(int(a)),
            },
            Column {
                name: "string_value",
                ty: T::Str,
                nullable: true,
                doc: "string values",
                get: |a| match &a.value {
                    ArgValue::Str(s) => Value::Str(s),
                    _ => Value::Null,
                },
            },
            Column {
                name: "real_value",
                ty: T::Float,
                nullable: true,
                doc: "floating-point values (and integers beyond 64 bits)",
                get: |a| match a.value {
                    ArgValue::Real(r) => Value::Float(r),
                    _ => Value::Null,
                },
            },
            Column {
                name: "value_type",
                ty: T::Str,
                nullable: false,
                doc: "int, real, string or bool",
                get: |a| Value::Str(a.value.type_name()),
            },
            Column {
                name: "display_value",
                ty: T::Str,
                nullable: false,
                doc: "the value as text",
                get: |a| Value::String(a.value.display()),
            },
        ],
    },
};
