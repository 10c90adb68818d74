//! Chrome's compact model back to [`Event`]: slots first, then the reserved
//! arguments written by [`to_chrome`](super::to_chrome()) override or add fields.
//! Arguments from other producers (or reserved ones that do not parse) are kept as
//! plain string args, so nothing a foreign payload holds is lost.

use std::borrow::Cow;

use super::chrome::{ChromePayload, ChromeType};
use super::fastjson;
use crate::id::{Id, Id2, Int64, Pid};
use crate::json::Value;
use crate::{Event, RawJson};

fn opt_string(v: &Value<'_>) -> Option<Option<Cow<'static, str>>> {
    match v {
        Value::Null => Some(None),
        Value::String(s) => Some(Some(Cow::Owned(s.to_string()))),
        _ => None,
    }
}

fn id_of(v: &Value<'_>) -> Option<Id<'static>> {
    match v {
        Value::Number(n) => Int64::parse(n).map(Id::Int),
        Value::String(s) => Some(Id::Str(Cow::Owned(s.to_string()))),
        _ => None,
    }
}

fn pid_of(v: &Value<'_>) -> Option<Option<Pid<'static>>> {
    match v {
        Value::Null => Some(None),
        Value::Number(n) => Int64::parse(n).map(|i| Some(Pid::Int(i))),
        Value::String(s) => Some(Some(Pid::Str(Cow::Owned(s.to_string())))),
        _ => None,
    }
}

fn raw(text: &str) -> RawJson<'static> {
    RawJson::owned(text.to_string())
}

/// The string field a reserved argument holds.
fn str_field<'e, 'a>(ev: &'e mut Event<'a>, key: &str) -> Option<&'e mut Option<Cow<'a, str>>> {
    Some(match key {
        "@ph" => &mut ev.ph,
        "@name" => &mut ev.name,
        "@cat" => &mut ev.cat,
        "@scope" => &mut ev.scope,
        "@s" => &mut ev.s,
        "@bp" => &mut ev.bp,
        "@cname" => &mut ev.cname,
        _ => return None,
    })
}

/// Phases that are `&'static` so the common `@ph` values cost no allocation.
fn static_phase(s: &str) -> Cow<'static, str> {
    const PHASES: [&str; 8] = ["X", "i", "b", "e", "n", "p", "R", "I"];
    PHASES
        .iter()
        .find(|p| **p == s)
        .map_or_else(|| Cow::Owned(s.to_string()), |p| Cow::Borrowed(*p))
}

/// Applies one reserved argument; `false` when the name is not reserved or the value
/// does not have the shape this mapping writes. The texts the mapping writes most
/// (plain strings, integers) are read directly, others by the full parser.
fn apply_reserved(ev: &mut Event<'_>, key: &str, text: &str) -> bool {
    if let Some(s) = fastjson::simple_string(text) {
        let value = if key == "@ph" {
            Some(static_phase(s))
        } else {
            Some(Cow::Owned(s.to_string()))
        };
        if let Some(slot) = str_field(ev, key) {
            *slot = value;
            return true;
        }
    }
    if let Some(i) = fastjson::simple_int(text) {
        let slot = match key {
            "@dur" => &mut ev.dur,
            "@tts" => &mut ev.tts,
            "@tdur" => &mut ev.tdur,
            _ => return apply_reserved_parsed(ev, key, text),
        };
        return i.map(|i| *slot = Some(i)).is_some();
    }
    apply_reserved_parsed(ev, key, text)
}

fn apply_reserved_parsed(ev: &mut Event<'_>, key: &str, text: &str) -> bool {
    let Ok(v) = Value::parse(text) else {
        return false;
    };
    let int = || match &v {
        Value::Number(n) => n.parse::<i64>().ok(),
        _ => None,
    };
    if let Some(slot) = str_field(ev, key) {
        return opt_string(&v).map(|s| *slot = s).is_some();
    }
    match key {
        "@ts" => v == Value::Null && ev.ts.take().is_some(),
        "@dur" => int().map(|i| ev.dur = Some(i)).is_some(),
        "@tts" => int().map(|i| ev.tts = Some(i)).is_some(),
        "@tdur" => int().map(|i| ev.tdur = Some(i)).is_some(),
        "@pid" => pid_of(&v).map(|p| ev.pid = p).is_some(),
        "@tid" => pid_of(&v).map(|p| ev.tid = p).is_some(),
        "@id" => id_of(&v).map(|i| ev.id = Some(i)).is_some(),
        "@id2" => {
            let id2 = match v.as_object() {
                Some([(k, i)]) if k == "local" => id_of(i).map(Id2::Local),
                Some([(k, i)]) if k == "global" => id_of(i).map(Id2::Global),
                _ => None,
            };
            id2.map(|i| ev.id2 = Some(i)).is_some()
        }
        "@bind_id" => id_of(&v).map(|i| ev.bind_id = Some(i)).is_some(),
        "@sf" => id_of(&v).map(|i| ev.sf = Some(i)).is_some(),
        "@esf" => id_of(&v).map(|i| ev.esf = Some(i)).is_some(),
        "@flow_in" => v.as_bool().map(|b| ev.flow_in = Some(b)).is_some(),
        "@flow_out" => v.as_bool().map(|b| ev.flow_out = Some(b)).is_some(),
        "@stack" => {
            ev.stack = Some(raw(text));
            true
        }
        "@estack" => {
            ev.estack = Some(raw(text));
            true
        }
        "@args" => {
            ev.args = Some(raw(text));
            true
        }
        "@extra" => match v {
            Value::Object(m) => {
                ev.extra = m
                    .iter()
                    .map(|(k, v)| (Cow::Owned(k.to_string()), RawJson::owned(v.to_compact())))
                    .collect();
                true
            }
            _ => false,
        },
        _ => false,
    }
}

type Arg<'a> = (Cow<'a, str>, Cow<'a, str>);

/// Expands `@more` (the overflow of arguments past the 7th); borrows when there is none.
fn expand_more<'s, 'a>(args: &'s [Arg<'a>]) -> Cow<'s, [Arg<'a>]> {
    if !args.iter().any(|(k, _)| k == "@more") {
        return Cow::Borrowed(args);
    }
    let mut out = Vec::with_capacity(args.len() + 4);
    for (k, v) in args {
        if k == "@more" {
            if let Ok(Value::Object(m)) = Value::parse(v) {
                if m.iter().all(|(_, v)| v.as_str().is_some()) {
                    for (mk, mv) in m {
                        let Value::String(s) = mv else {
                            unreachable!("checked above")
                        };
                        out.push((Cow::Owned(mk.into_owned()), Cow::Owned(s.into_owned())));
                    }
                    continue;
                }
            }
        }
        out.push((k.clone(), v.clone()));
    }
    Cow::Owned(out)
}

/// Builds the event of one Chrome record; `None` for the End half of an `X` (its
/// Begin carries the whole event). `offset` is the record's position in its input.
/// The event's name and categories borrow what the payload borrows.
pub fn from_chrome<'a>(
    p: ChromePayload<'a>,
    ts: i64,
    pid: i64,
    tid: i64,
    offset: u64,
) -> Option<Event<'a>> {
    let fields = ChromeFields {
        ty: p.ty,
        name: &p.name,
        id: p.id,
        categories: &p.categories,
        args: &p.args,
        stack: p.stack.as_deref(),
    };
    chrome_event(&fields, ts, pid, tid, offset)
}

/// A Chrome payload by reference, so decoders can reuse their buffers.
pub(crate) struct ChromeFields<'s, 'a> {
    pub ty: ChromeType,
    pub name: &'s Cow<'a, str>,
    pub id: u64,
    pub categories: &'s Cow<'a, str>,
    pub args: &'s [Arg<'a>],
    pub stack: Option<&'s [u64]>,
}

/// [`from_chrome`] on borrowed fields. Name and categories are cloned, which costs
/// nothing when they borrow the input (the usual case: valid UTF-8).
pub(crate) fn chrome_event<'a>(
    p: &ChromeFields<'_, 'a>,
    ts: i64,
    pid: i64,
    tid: i64,
    offset: u64,
) -> Option<Event<'a>> {
    let ty = p.ty;
    // The End half of an X is dropped: skip building it when its last `@ph` (which
    // wins) is a plain "X" and no `@more` could hold another.
    if ty == ChromeType::End
        && !p.args.iter().any(|(k, _)| k == "@more")
        && p.args
            .iter()
            .rev()
            .find(|(k, _)| k == "@ph")
            .is_some_and(|(_, v)| v == "\"X\"")
    {
        return None;
    }
    let mut ev = Event {
        ph: Some(Cow::Borrowed(ty.phase())),
        name: Some(p.name.clone()),
        cat: (!p.categories.is_empty()).then(|| p.categories.clone()),
        ts: Some(ts),
        pid: Some(Pid::Int(Int64::I(pid))),
        tid: Some(Pid::Int(Int64::I(tid))),
        id: (p.id != 0).then(|| Id::Int(Int64::from_u64(p.id))),
        offset,
        ..Event::default()
    };
    if let Some(stack) = p.stack {
        use std::fmt::Write;
        let mut s = String::with_capacity(stack.len() * 8 + 2);
        s.push('[');
        for (i, a) in stack.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            let _ = write!(s, "{a}");
        }
        s.push(']');
        ev.stack = Some(RawJson::owned(s));
    }
    let args = expand_more(p.args);
    let mut user = String::new();
    let mut push_user = |k: &str, value: &dyn Fn(&mut String)| {
        if user.is_empty() {
            user.reserve(args.iter().map(|(k, v)| k.len() + v.len() + 8).sum());
            user.push('{');
        } else {
            user.push(',');
        }
        fastjson::push_string(k, &mut user);
        user.push(':');
        value(&mut user);
    };
    for (k, v) in args.iter() {
        if let Some(key) = k.strip_prefix("@=") {
            if fastjson::is_compact_json(v) || Value::parse(v).is_ok() {
                push_user(key, &|o| o.push_str(v));
                continue;
            }
        } else if k.starts_with('@') && apply_reserved(&mut ev, k, v) {
            continue;
        }
        push_user(k, &|o| fastjson::push_string(v, o));
    }
    if ty == ChromeType::End && ev.ph.as_deref() == Some("X") {
        return None;
    }
    if !user.is_empty() {
        user.push('}');
        ev.args = Some(RawJson::owned(user));
    }
    Some(ev)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The direct reading of plain strings and integers gives what the full parser
    /// gives, including rejections.
    #[test]
    fn fast_reserved_values_match_the_parser() {
        let keys = [
            "@ph", "@name", "@cat", "@s", "@dur", "@tts", "@id", "@ts", "@stack", "@x",
        ];
        let texts = [
            "\"X\"",
            "\"i\"",
            "\"abc\"",
            "\"a\\nb\"",
            "\"\"",
            "900",
            "-0",
            "0",
            "007",
            "1.5",
            "99999999999999999999",
            " 12",
            "null",
            "\"X",
            "true",
            "[1]",
        ];
        for k in keys {
            for t in texts {
                let (mut a, mut b) = (Event::default(), Event::default());
                let fast = apply_reserved(&mut a, k, t);
                let slow = apply_reserved_parsed(&mut b, k, t);
                assert_eq!((fast, &a), (slow, &b), "{k} = {t}");
            }
        }
    }

    #[test]
    fn x_end_halves_are_dropped_only_when_ph_ends_as_x() {
        let end = |args: Vec<(&'static str, &'static str)>| ChromePayload {
            ty: ChromeType::End,
            name: "n".into(),
            id: 0,
            categories: "".into(),
            args: args
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
            stack: None,
        };
        assert!(from_chrome(end(vec![("@ph", "\"X\"")]), 0, 0, 0, 0).is_none());
        assert!(from_chrome(end(vec![("@ph", " \"X\" ")]), 0, 0, 0, 0).is_none());
        let later = end(vec![("@ph", "\"X\""), ("@ph", "\"e\"")]);
        assert_eq!(
            from_chrome(later, 0, 0, 0, 0).unwrap().ph.as_deref(),
            Some("e")
        );
        let more = end(vec![("@ph", "\"X\""), ("@more", "{\"@ph\":\"\\\"n\\\"\"}")]);
        assert_eq!(
            from_chrome(more, 0, 0, 0, 0).unwrap().ph.as_deref(),
            Some("n")
        );
    }
}
