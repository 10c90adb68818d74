//! One column's values of a row group, buffered as Parquet wants them: plain
//! vectors of values and definition levels, strings end to end in one buffer.

use parquet::basic::Type as Physical;
use parquet::column::writer::{get_typed_column_writer_mut, ColumnWriter};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use tracescope_model::{ColumnType, Fill, Trace, Value};

use crate::dict::Dict;
use crate::encode::physical;
use crate::ints::{self, IntEncoding};

/// One column's buffered values and definition levels (1 present, 0 null).
pub(crate) enum Buf {
    Int(Vec<i64>, Vec<i16>),
    Double(Vec<f64>, Vec<i16>),
    Bool(Vec<bool>, Vec<i16>),
    /// Strings of the row group end to end, with each present value's end: one
    /// buffer instead of an allocation per cell (cut into `ByteArray`s sharing it
    /// when the row group is written).
    Bytes(Vec<u8>, Vec<usize>, Vec<i16>),
    /// A column of few distinct cells, filled by its keys ([`Fill::Keyed`])
    /// and written as a dictionary by `pages::dictionary_chunk`.
    Dict(Box<Dict>),
}

impl Buf {
    pub(crate) fn new(ty: ColumnType) -> Buf {
        match physical(ty).0 {
            Physical::INT64 => Buf::Int(Vec::new(), Vec::new()),
            Physical::DOUBLE => Buf::Double(Vec::new(), Vec::new()),
            Physical::BOOLEAN => Buf::Bool(Vec::new(), Vec::new()),
            _ => Buf::Bytes(Vec::new(), Vec::new(), Vec::new()),
        }
    }

    /// The buffer of a column of type `ty` with fill `fill`: a dictionary for
    /// a keyed fill.
    pub(crate) fn for_column(ty: ColumnType, fill: Option<Fill>) -> Buf {
        match fill {
            Some(Fill::Keyed { .. }) => Buf::Dict(Box::new(Dict::new(ty))),
            _ => Buf::new(ty),
        }
    }

    /// How many values it holds (nulls of an optional column hold none).
    pub(crate) fn values_len(&self) -> usize {
        match self {
            Buf::Int(v, _) => v.len(),
            Buf::Double(v, _) => v.len(),
            Buf::Bool(v, _) => v.len(),
            Buf::Bytes(_, ends, _) => ends.len(),
            Buf::Dict(d) => d.indices.len(),
        }
    }

    /// Adds a cell; `false` when it has no form in this column (written as null,
    /// or as 0 / "" / false in a column declared never null).
    pub(crate) fn push(&mut self, v: &Value<'_>, optional: bool) -> bool {
        match self {
            Buf::Int(vals, defs) => put(vals, defs, as_int(v), v, optional),
            Buf::Double(vals, defs) => put(vals, defs, as_double(v), v, optional),
            Buf::Bool(vals, defs) => put(vals, defs, as_bool(v), v, optional),
            Buf::Bytes(data, ends, defs) => {
                let present = as_text(data, v);
                defs.push(present as i16);
                if present || !optional {
                    ends.push(data.len());
                }
                // Only null has no text: a null in a column never null is "".
                present || optional
            }
            Buf::Dict(_) => unreachable!("a dictionary is filled by keys, not cells"),
        }
    }

    /// Adds a column's cells, the column's kind matched once; returns how many
    /// had no form in it (as [`Buf::push`]).
    pub(crate) fn extend<'v>(
        &mut self,
        cells: impl Iterator<Item = Value<'v>>,
        optional: bool,
    ) -> usize {
        match self {
            Buf::Int(vals, defs) => cells
                .map(|v| !put(vals, defs, as_int(&v), &v, optional) as usize)
                .sum(),
            Buf::Double(vals, defs) => cells
                .map(|v| !put(vals, defs, as_double(&v), &v, optional) as usize)
                .sum(),
            Buf::Bool(vals, defs) => cells
                .map(|v| !put(vals, defs, as_bool(&v), &v, optional) as usize)
                .sum(),
            Buf::Bytes(..) | Buf::Dict(_) => cells.map(|v| !self.push(&v, optional) as usize).sum(),
        }
    }

    /// Adds a column's cells for `rows` by its fill, `scratch` reused for the
    /// fill's output; returns how many had no form in it (as [`Buf::extend`]),
    /// or `None` when the fill is not of this column's kind (the getter then
    /// adds the cells).
    pub(crate) fn fill(
        &mut self,
        fill: Fill,
        trace: &Trace,
        rows: &[u32],
        optional: bool,
        scratch: &mut Vec<Option<i64>>,
    ) -> Option<usize> {
        let ones = |defs: &mut Vec<i16>| defs.resize(defs.len() + rows.len(), 1);
        match (self, fill) {
            (Buf::Int(vals, defs), Fill::Int(f)) => {
                scratch.clear();
                f(trace, rows, scratch);
                let mut nulled = 0;
                for &x in scratch.iter() {
                    defs.push(x.is_some() as i16);
                    match x {
                        Some(x) => vals.push(x),
                        None if !optional => {
                            vals.push(0);
                            nulled += 1;
                        }
                        None => {}
                    }
                }
                Some(nulled)
            }
            (Buf::Double(vals, defs), Fill::Float(f)) => {
                f(trace, rows, vals);
                ones(defs);
                Some(0)
            }
            (Buf::Bool(vals, defs), Fill::Bool(f)) => {
                f(trace, rows, vals);
                ones(defs);
                Some(0)
            }
            (Buf::Bytes(data, ends, defs), Fill::Json(f)) => {
                let mut nulled = 0;
                f(trace, rows, &mut |text| {
                    defs.push(text.is_some() as i16);
                    if let Some(text) = text {
                        data.extend_from_slice(text.as_bytes());
                    }
                    if text.is_some() || !optional {
                        ends.push(data.len());
                    }
                    nulled += (text.is_none() && !optional) as usize;
                });
                Some(nulled)
            }
            (Buf::Dict(dict), Fill::Keyed { keys, cell }) => {
                Some(dict.fill((keys, cell), trace, rows, optional))
            }
            _ => None,
        }
    }

    /// Writes the buffered values into `col` (a writer of this column's physical
    /// type), `defs` only for an optional column, and empties the buffer. The
    /// strings of a byte array column stay shared with the writer until it is
    /// closed: they come back for [`Buf::reuse`].
    pub(crate) fn write_to(
        &mut self,
        col: &mut ColumnWriter<'_>,
        optional: bool,
    ) -> parquet::errors::Result<Option<bytes::Bytes>> {
        let mut shared = None;
        match self {
            Buf::Int(v, d) => {
                get_typed_column_writer_mut::<Int64Type>(col).write_batch(
                    v,
                    optional.then_some(d.as_slice()),
                    None,
                )?;
            }
            Buf::Double(v, d) => {
                get_typed_column_writer_mut::<DoubleType>(col).write_batch(
                    v,
                    optional.then_some(d.as_slice()),
                    None,
                )?;
            }
            Buf::Bool(v, d) => {
                get_typed_column_writer_mut::<BoolType>(col).write_batch(
                    v,
                    optional.then_some(d.as_slice()),
                    None,
                )?;
            }
            Buf::Bytes(data, ends, d) => {
                let all = bytes::Bytes::from(std::mem::take(data));
                let mut start = 0;
                let cells: Vec<ByteArray> = ends
                    .iter()
                    .map(|&end| {
                        let cell = ByteArray::from(all.slice(start..end));
                        start = end;
                        cell
                    })
                    .collect();
                get_typed_column_writer_mut::<ByteArrayType>(col).write_batch(
                    &cells,
                    optional.then_some(d.as_slice()),
                    None,
                )?;
                shared = Some(all);
            }
            Buf::Dict(_) => unreachable!("a dictionary is written by pages::dictionary_chunk"),
        }
        self.clear();
        Ok(shared)
    }

    /// Takes back the string buffer handed to a writer, once the writer is
    /// closed (nothing else holds it then), so the next row group fills the
    /// same memory instead of faulting in fresh pages.
    pub(crate) fn reuse(&mut self, shared: bytes::Bytes) {
        if let (Buf::Bytes(data, ..), true) = (self, shared.is_unique()) {
            let mut v = Vec::from(shared);
            v.clear();
            *data = v;
        }
    }

    /// How a column of integers is best encoded ([`ints::choose`]); `None`
    /// for other columns.
    pub(crate) fn int_encoding(&self) -> Option<IntEncoding> {
        match self {
            Buf::Int(v, _) => {
                let ascending = v.len() > 1 && v.windows(2).all(|w| w[0] <= w[1]);
                Some(ints::choose(v, ascending))
            }
            _ => None,
        }
    }

    /// A column of strings: its text end to end, each present value's end and
    /// the definition levels.
    pub(crate) fn strings(&self) -> Option<(&[u8], &[usize], &[i16])> {
        match self {
            Buf::Bytes(data, ends, defs) => Some((data, ends, defs)),
            _ => None,
        }
    }

    pub(crate) fn clear(&mut self) {
        match self {
            Buf::Int(v, d) => (v.clear(), d.clear()),
            Buf::Double(v, d) => (v.clear(), d.clear()),
            Buf::Bool(v, d) => (v.clear(), d.clear()),
            Buf::Bytes(v, e, d) => {
                v.clear();
                (e.clear(), d.clear())
            }
            Buf::Dict(dict) => (dict.clear(), ()),
        };
    }
}

/// Adds a value (or null) to a column of fixed-size values: `false` when `v`
/// has no form in it (null, or the zero value in a column declared never null).
#[inline]
fn put<T: Default>(
    vals: &mut Vec<T>,
    defs: &mut Vec<i16>,
    x: Option<T>,
    v: &Value<'_>,
    optional: bool,
) -> bool {
    let present = x.is_some();
    defs.push(present as i16);
    match x {
        Some(x) => vals.push(x),
        None if !optional => vals.push(T::default()),
        None => {}
    }
    present || (optional && *v == Value::Null)
}

#[inline]
fn as_int(v: &Value<'_>) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        // Above i64::MAX: the same 64 bits (a pid or count written as u64).
        Value::UInt(u) => Some(*u as i64),
        Value::Bool(b) => Some(*b as i64),
        _ => None,
    }
}

#[inline]
fn as_double(v: &Value<'_>) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::UInt(u) => Some(*u as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

#[inline]
fn as_bool(v: &Value<'_>) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        _ => None,
    }
}

/// Appends a value as text; `false` for null.
#[inline]
fn as_text(data: &mut Vec<u8>, v: &Value<'_>) -> bool {
    use std::io::Write;
    match v {
        Value::Null => false,
        Value::Bool(b) => write!(data, "{b}").is_ok(),
        Value::Int(i) => write!(data, "{i}").is_ok(),
        Value::UInt(u) => write!(data, "{u}").is_ok(),
        Value::Float(f) => write!(data, "{f}").is_ok(),
        Value::Str(s) => {
            data.extend_from_slice(s.as_bytes());
            true
        }
        Value::String(s) => {
            data.extend_from_slice(s.as_bytes());
            true
        }
        Value::Json(s) => {
            data.extend_from_slice(s.as_bytes());
            true
        }
    }
}
