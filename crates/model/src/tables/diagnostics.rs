//! Diagnostics: what the reader repaired or could not place, one row per kind.

use super::decl::{Column, ColumnType as T, RowSource, Table, Value};
use crate::trace::Trace;

fn d(t: &Trace, i: usize) -> &tracescope_format::Diagnostic {
    t.diagnostics.sorted()[i]
}

pub static TABLE: Table = Table {
    name: "diagnostics",
    doc: "What the reader repaired or could not place: one row per kind, with its count and first occurrence.",
    rows: RowSource::Indexed {
        len: |t| t.diagnostics.len(),
        order: |t| (0..t.diagnostics.len() as u32).collect(),
        columns: &[
            Column { name: "kind", ty: T::Str, nullable: false, doc: "diagnostic kind (tracescope validate describes each)", get: |t, i| Value::Str(d(t, i).kind.as_str()) },
            Column { name: "count", ty: T::Int, nullable: false, doc: "occurrences", get: |t, i| Value::UInt(d(t, i).count) },
            Column { name: "offset", ty: T::Int, nullable: false, doc: "byte offset of the first occurrence", get: |t, i| Value::UInt(d(t, i).offset) },
            Column { name: "example", ty: T::Str, nullable: false, doc: "excerpt of the input at the first occurrence", get: |t, i| Value::Str(&d(t, i).example) },
        ],
    },
};
