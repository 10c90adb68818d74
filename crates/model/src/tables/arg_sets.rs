//! The args table: each event's args flattened into one row per leaf value, as
//! Perfetto's `args` table has them (`args.a.b`, `args.list[0]`). Args stay text in
//! the model; an arg set is parsed only when someone reads it.

use std::borrow::Cow;

use super::decl::{ArgGetter, Column, ColumnType as T, RowSource, Table, Value};
use super::ids::ArgSetId;
use crate::args::TextRef;
use crate::trace::Trace;

mod walk;
pub(crate) use walk::known_compact;
pub use walk::{shape, ArgWalk, LeafValue, Shape};

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

/// One leaf value of an arg set, borrowed (from the trace's text or an
/// [`ArgWalk`]): what the declared columns read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArgRef<'a> {
    pub arg_set_id: ArgSetId,
    pub flat_key: &'a str,
    pub key: &'a str,
    pub value: LeafValue<'a>,
}

impl Arg {
    pub fn as_ref(&self) -> ArgRef<'_> {
        ArgRef {
            arg_set_id: self.arg_set_id,
            flat_key: &self.flat_key,
            key: &self.key,
            value: match &self.value {
                ArgValue::Int(i) => LeafValue::Int(*i),
                ArgValue::Real(r) => LeafValue::Real(*r),
                ArgValue::Str(s) => LeafValue::Str(s),
                ArgValue::Bool(b) => LeafValue::Bool(*b),
            },
        }
    }
}

impl ArgRef<'_> {
    pub fn to_owned(&self) -> Arg {
        Arg {
            arg_set_id: self.arg_set_id,
            flat_key: self.flat_key.to_string(),
            key: self.key.to_string(),
            value: match self.value {
                LeafValue::Int(i) => ArgValue::Int(i),
                LeafValue::Real(r) => ArgValue::Real(r),
                LeafValue::Str(s) => ArgValue::Str(s.to_string()),
                LeafValue::Bool(b) => ArgValue::Bool(b),
            },
        }
    }
}

impl LeafValue<'_> {
    pub fn type_name(&self) -> &'static str {
        match self {
            LeafValue::Int(_) => "int",
            LeafValue::Real(_) => "real",
            LeafValue::Str(_) => "string",
            LeafValue::Bool(_) => "bool",
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
            ArgOwner::Slice(i) => (t.slices.args(i), t.slices.end_args(i)),
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
            self.walk_args(&mut ArgWalk::default(), id, a, e, |arg| {
                out.push(arg.to_owned())
            });
        }
        out
    }

    /// The args text of an event (merged with the closing event's: its keys
    /// win), as compact JSON: the text as written when it already is.
    pub fn args_text(&self, args: TextRef, end_args: TextRef) -> Option<Cow<'_, str>> {
        let one = |r: TextRef| {
            let text = self.raw(r);
            // The load found most texts compact already (`TextRef::is_compact`):
            // walking them again was ~7% of an export of slices.
            if r.is_compact() {
                return text;
            }
            match shape(&text) {
                Shape::Compact => text,
                _ => Cow::Owned(tracescope_format::json::value::compact(&text)),
            }
        };
        match (args.is_none(), end_args.is_none()) {
            (true, true) => None,
            (false, true) => Some(one(args)),
            (true, false) => Some(one(end_args)),
            (false, false) => self.merged_args(args, end_args).map(Cow::Owned),
        }
    }

    /// A JSON cell of `args` merged with the closing event's `args`.
    pub fn args_value(&self, args: TextRef, end_args: TextRef) -> Value<'_> {
        self.args_text(args, end_args)
            .map_or(Value::Null, Value::Json)
    }

    /// Calls `each` with every leaf of arg set `id` (the args `args` and
    /// `end_args`), walked with the buffers of `walk`.
    fn walk_args(
        &self,
        walk: &mut ArgWalk,
        id: ArgSetId,
        args: TextRef,
        end_args: TextRef,
        mut each: impl FnMut(&ArgRef<'_>),
    ) {
        let text = match (args.is_none(), end_args.is_none()) {
            (true, true) => return,
            (false, true) => self.raw(args),
            (true, false) => self.raw(end_args),
            (false, false) => match self.merged_args(args, end_args) {
                Some(m) => Cow::Owned(m),
                None => return,
            },
        };
        let text = &*text;
        walk.walk(text);
        for (flat_key, key, value) in walk.leaves(text) {
            each(&ArgRef {
                arg_set_id: id,
                flat_key,
                key,
                value,
            });
        }
    }
}

/// Calls `each` with every arg of every arg set, in arg set order.
pub fn for_each_arg(trace: &Trace, each: impl FnMut(&ArgRef<'_>)) {
    for_each_arg_in(trace, 0..trace.arg_set_space(), each)
}

/// Calls `each` with every arg of the arg sets whose ids are in `ids`, in arg set
/// order: runs of ids walked one after another (or side by side, then put end to
/// end) give the rows of [`for_each_arg`]. An arg set is never cut (a slice's
/// args and its closing event's are one arg set).
pub fn for_each_arg_in(
    trace: &Trace,
    ids: std::ops::Range<usize>,
    mut each: impl FnMut(&ArgRef<'_>),
) {
    let mut walk = ArgWalk::default();
    let mut base = 0;
    for (len, make) in lens(trace).into_iter().zip(OWNERS) {
        let rows = ids.start.max(base) - base..ids.end.min(base + len).saturating_sub(base);
        for row in rows {
            let owner = make(row);
            if let Some(id) = trace.arg_set_id(owner) {
                let (a, e) = trace.owner_args(owner);
                trace.walk_args(&mut walk, id, a, e, &mut each);
            }
        }
        base += len;
    }
}

fn int(a: &ArgRef<'_>) -> Option<i64> {
    match a.value {
        LeafValue::Int(i) => Some(i),
        LeafValue::Bool(b) => Some(b as i64),
        _ => None,
    }
}

pub static TABLE: Table = Table {
    fills: None,
    name: "args",
    doc: "Every event's args flattened, one row per leaf value (Perfetto's args table).",
    rows: RowSource::ArgSets { columns: COLUMNS },
};

const _: () = assert!(COLUMNS.len() <= super::decl::MAX_ARG_COLUMNS);

const COLUMNS: &[Column<ArgGetter>] = &[
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
        get: |a| Value::Str(a.flat_key),
    },
    Column {
        name: "key",
        ty: T::Str,
        nullable: false,
        doc: "full key (args.list[0])",
        get: |a| Value::Str(a.key),
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
        get: |a| match a.value {
            LeafValue::Str(s) => Value::Str(s),
            _ => Value::Null,
        },
    },
    Column {
        name: "real_value",
        ty: T::Float,
        nullable: true,
        doc: "floating-point values (and integers beyond 64 bits)",
        get: |a| match a.value {
            LeafValue::Real(r) => Value::Float(r),
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
        get: |a| match a.value {
            LeafValue::Str(s) => Value::Str(s),
            LeafValue::Bool(b) => Value::Str(if b { "true" } else { "false" }),
            LeafValue::Int(i) => Value::String(i.to_string()),
            LeafValue::Real(r) => Value::String(r.to_string()),
        },
    },
];
