//! Any CTF event as a generic [`Event`]: an instant named by its event class, with
//! the context and payload fields as args (JSON: integers as numbers, enums as their
//! label, strings and text arrays as strings, structs as objects, arrays and
//! sequences as arrays, variants as their selected option).

use std::borrow::Cow;

use super::decode::{Decoder, Val};
use super::types::Type;
use crate::id::{Int64, Pid};
use crate::json::value::write_string;
use crate::{Event, RawJson};

/// Writes the value at `slot` as JSON.
pub fn write_value(d: &Decoder<'_, '_>, ty: &Type, slot: u32, out: &mut String) {
    use std::fmt::Write;
    let Some(v) = d.vals.get(slot as usize) else {
        out.push_str("null");
        return;
    };
    match (ty, *v) {
        (Type::Enum { entries, .. }, Val::U(_) | Val::I(_)) => {
            let n = match *v {
                Val::U(u) => i128::from(u),
                Val::I(i) => i128::from(i),
                _ => 0,
            };
            match entries.iter().find(|(_, lo, hi)| (*lo..=*hi).contains(&n)) {
                Some((label, _, _)) => write_string(label, out),
                None => {
                    let _ = write!(out, "{n}");
                }
            }
        }
        (_, Val::U(u)) => {
            let _ = write!(out, "{u}");
        }
        (_, Val::I(i)) => {
            let _ = write!(out, "{i}");
        }
        (_, Val::F(f)) if f.is_finite() => {
            let _ = write!(out, "{f:?}");
        }
        (_, Val::Str(s)) => write_string(&String::from_utf8_lossy(s), out),
        (Type::Struct { fields, .. }, Val::Kids { start, .. }) => {
            out.push('{');
            for (i, (name, f)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(display_name(name), out);
                out.push(':');
                write_value(d, f, start + i as u32, out);
            }
            out.push('}');
        }
        (Type::Array { elem, .. }, Val::Kids { start, len }) => {
            out.push('[');
            for i in 0..len {
                if i > 0 {
                    out.push(',');
                }
                write_value(d, elem, start + i, out);
            }
            out.push(']');
        }
        (Type::Variant { options, .. }, Val::Var { opt, slot }) => {
            write_value(d, &options[opt as usize].1, slot, out)
        }
        _ => out.push_str("null"),
    }
}

/// A field name as babeltrace2 shows it: TSDL's escaping underscore removed.
pub fn display_name(n: &str) -> &str {
    n.strip_prefix('_').filter(|s| !s.is_empty()).unwrap_or(n)
}

/// The first integer field among the event's contexts (and the packet context)
/// named one of `names`.
fn context_int(d: &Decoder<'_, '_>, names: &[&str]) -> Option<i64> {
    for name in names {
        for k in [4, 3, 1] {
            if let Some((_, s)) = d.scopes[k].and_then(|sc| d.child(sc.0, sc.1, name)) {
                if let Some(v) = d.int_value(s) {
                    return Some(v);
                }
            }
        }
    }
    None
}

/// Builds the generic event of the decoded event in `d`. Its pid is the context's
/// `vpid`/`pid` (else 0), its tid the context's `vtid`/`tid`, else the packet's
/// `cpu_id` (kernel traces), else 0; `cat` is the trace's `domain` (else `ctf`).
pub fn generic_event(
    d: &Decoder<'_, '_>,
    class_name: &str,
    domain: &str,
    ts: i64,
    offset: u64,
) -> Event<'static> {
    let mut args = String::from("{");
    for k in [3, 4, 5] {
        let Some((ty, slot)) = d.scopes[k] else {
            continue;
        };
        let (Type::Struct { fields, .. }, Some(Val::Kids { start, .. })) =
            (ty, d.vals.get(slot as usize))
        else {
            continue;
        };
        for (i, (name, f)) in fields.iter().enumerate() {
            if args.len() > 1 {
                args.push(',');
            }
            write_string(display_name(name), &mut args);
            args.push(':');
            write_value(d, f, start + i as u32, &mut args);
        }
    }
    args.push('}');
    let pid = context_int(d, &["vpid", "pid"]).unwrap_or(0);
    let tid = context_int(d, &["vtid", "tid", "cpu_id"]).unwrap_or(0);
    Event {
        ph: Some(Cow::Borrowed("I")),
        name: Some(Cow::Owned(class_name.to_string())),
        cat: Some(Cow::Owned(domain.to_string())),
        ts: Some(ts),
        pid: Some(Pid::Int(Int64::I(pid))),
        tid: Some(Pid::Int(Int64::I(tid))),
        s: Some(Cow::Borrowed("t")),
        args: Some(RawJson::owned(args)),
        offset,
        ..Event::default()
    }
}
