//! Diagnostics: what the reader repaired or could not place, one row per occurrence
//! (kinds and severities: `docs/reading-rules.md`, "Diagnostics").

use super::decl::{Column, ColumnType as T, RowSource, Table, Value};
use crate::trace::Trace;

fn d(t: &Trace, i: usize) -> tracescope_format::Occurrence<'_> {
    t.diagnostics.occurrence(i)
}

pub static TABLE: Table = Table {
    fills: None,
    name: "diagnostics",
    doc: "What the reader repaired or could not place: one row per occurrence, by offset.",
    rows: RowSource::Indexed {
        len: |t| t.diagnostics.occurrence_count(),
        order: |t| (0..t.diagnostics.occurrence_count() as u32).collect(),
        columns: &[
            Column {
                name: "kind",
                ty: T::Str,
                nullable: false,
                doc: "diagnostic kind (docs/reading-rules.md lists them)",
                get: |t, i| Value::Str(d(t, i).kind.as_str()),
            },
            Column {
                name: "severity",
                ty: T::Str,
                nullable: false,
                doc: "error, warning or info",
                get: |t, i| Value::Str(d(t, i).kind.severity().as_str()),
            },
            Column {
                name: "offset",
                ty: T::Int,
                nullable: false,
                doc: "byte offset in the (decompressed) input",
                get: |t, i| Value::UInt(d(t, i).offset),
            },
            Column {
                name: "example",
                ty: T::Str,
                nullable: true,
                doc: "excerpt of the input there; kept for the first 100 occurrences of each kind",
                get: |t, i| d(t, i).example.map_or(Value::Null, Value::Str),
            },
        ],
    },
};
