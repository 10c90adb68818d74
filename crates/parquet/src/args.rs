//! The `args` table's cells written straight from each leaf into typed buffers,
//! without a getter call and a [`Value`](tracescope_model::Value) per cell: two
//! thirds of an export's rows are args (one per leaf value), and the getters'
//! calls, the cells moved through `Value` and a `String` made for every
//! number's `display_value` were a quarter of the table's time.
//!
//! The cells are those of the declared getters (`tables/arg_sets.rs`): used
//! only while the declaration holds exactly [`COLUMNS`] (else the getters are),
//! and `tests/layout.rs` compares every cell with `Trace::rows`.

use std::io::Write;

use tracescope_model::tables::arg_sets::{ArgRef, LeafValue};
use tracescope_model::ColumnInfo;

use crate::buf::Buf;

/// The args table's columns, in their declared order, that [`push`] fills.
const COLUMNS: [&str; 8] = [
    "arg_set_id",
    "flat_key",
    "key",
    "int_value",
    "string_value",
    "real_value",
    "value_type",
    "display_value",
];

/// Whether `columns` (the args table's declaration) are those [`push`] fills.
pub(crate) fn direct(columns: &[ColumnInfo]) -> bool {
    columns.iter().map(|c| c.name).eq(COLUMNS)
}

/// Adds one leaf's row to the buffers of [`COLUMNS`] (never a value without a
/// form: nothing is nulled).
pub(crate) fn push(bufs: &mut [Buf], a: &ArgRef<'_>) {
    let [Buf::Int(set, _), Buf::Bytes(flat, flat_ends, flat_defs), Buf::Bytes(key, key_ends, key_defs), Buf::Int(int, int_defs), Buf::Bytes(text, text_ends, text_defs), Buf::Double(real, real_defs), Buf::Bytes(ty, ty_ends, ty_defs), Buf::Bytes(shown, shown_ends, shown_defs)] =
        bufs
    else {
        unreachable!("the buffers are made for COLUMNS")
    };
    set.push(a.arg_set_id.raw() as i64);
    let string = |data: &mut Vec<u8>, ends: &mut Vec<usize>, defs: &mut Vec<i16>, s: &[u8]| {
        data.extend_from_slice(s);
        ends.push(data.len());
        defs.push(1);
    };
    string(flat, flat_ends, flat_defs, a.flat_key.as_bytes());
    string(key, key_ends, key_defs, a.key.as_bytes());
    string(ty, ty_ends, ty_defs, a.value.type_name().as_bytes());
    let as_int = match a.value {
        LeafValue::Int(i) => Some(i),
        LeafValue::Bool(b) => Some(b as i64),
        _ => None,
    };
    int.extend(as_int);
    int_defs.push(as_int.is_some() as i16);
    match a.value {
        LeafValue::Str(s) => {
            string(text, text_ends, text_defs, s.as_bytes());
            string(shown, shown_ends, shown_defs, s.as_bytes());
        }
        other => {
            text_defs.push(0);
            let _ = match other {
                LeafValue::Int(i) => write!(shown, "{i}"),
                LeafValue::Real(r) => write!(shown, "{r}"),
                LeafValue::Bool(b) => write!(shown, "{b}"),
                LeafValue::Str(_) => Ok(()),
            };
            shown_ends.push(shown.len());
            shown_defs.push(1);
        }
    }
    match a.value {
        LeafValue::Real(r) => {
            real.push(r);
            real_defs.push(1);
        }
        _ => real_defs.push(0),
    }
}

#[cfg(test)]
mod tests {
    /// The declared args table is the one `push` fills (else every export would
    /// quietly take the getters' slower path, and `tests/layout.rs` would not
    /// compare this one with them).
    #[test]
    fn the_declared_args_table_is_filled_directly() {
        let table = tracescope_model::table("args").expect("an args table");
        assert!(super::direct(&table.columns()));
    }
}
