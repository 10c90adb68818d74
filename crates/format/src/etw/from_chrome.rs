//! The seed's Chrome model back to [`Event`]: slots first, then the reserved
//! arguments written by [`to_chrome`](super::to_chrome) override or add fields.
//! Arguments from other producers (or reserved ones that do not parse) are kept as
//! plain string args, so nothing a foreign payload holds is lost.

use std::borrow::Cow;

use super::chrome::ChromePayload;
use crate::id::{Id, Id2, Int64, Pid};
use crate::json::value::write_string;
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

/// Applies one reserved argument; `false` when the name is not reserved or the value
/// does not have the shape this mapping writes.
fn apply_reserved(ev: &mut Event<'static>, key: &str, text: &str) -> bool {
    let Ok(v) = Value::parse(text) else {
        return false;
    };
    let set_str =
        |slot: &mut Option<Cow<'static, str>>| opt_string(&v).map(|s| *slot = s).is_some();
    let int = || match &v {
        Value::Number(n) => n.parse::<i64>().ok(),
        _ => None,
    };
    match key {
        "@ph" => set_str(&mut ev.ph),
        "@name" => set_str(&mut ev.name),
        "@cat" => set_str(&mut ev.cat),
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
        "@scope" => set_str(&mut ev.scope),
        "@s" => set_str(&mut ev.s),
        "@bp" => set_str(&mut ev.bp),
        "@cname" => set_str(&mut ev.cname),
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

/// Expands `@more` (the overflow of arguments past the 7th) in place.
fn expand_more<'a>(args: Vec<(Cow<'a, str>, Cow<'a, str>)>) -> Vec<(Cow<'a, str>, Cow<'a, str>)> {
    if !args.iter().any(|(k, _)| k == "@more") {
        return args;
    }
    let mut out = Vec::with_capacity(args.len() + 4);
    for (k, v) in args {
        if k == "@more" {
            if let Ok(Value::Object(m)) = Value::parse(&v) {
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
        out.push((k, v));
    }
    out
}

/// Builds the event of one Chrome record; `None` for the End half of an `X` (its
/// Begin carries the whole event). `offset` is the record's position in its input.
pub fn from_chrome(
    p: ChromePayload<'_>,
    ts: i64,
    pid: i64,
    tid: i64,
    offset: u64,
) -> Option<Event<'static>> {
    let ty = p.ty;
    let mut ev = Event {
        ph: Some(Cow::Borrowed(ty.phase())),
        name: Some(Cow::Owned(p.name.into_owned())),
        cat: (!p.categories.is_empty()).then(|| Cow::Owned(p.categories.into_owned())),
        ts: Some(ts),
        pid: Some(Pid::Int(Int64::I(pid))),
        tid: Some(Pid::Int(Int64::I(tid))),
        id: (p.id != 0).then(|| Id::Int(Int64::from_u64(p.id))),
        offset,
        ..Event::default()
    };
    if let Some(stack) = p.stack {
        let mut s = String::with_capacity(stack.len() * 8 + 2);
        s.push('[');
        for (i, a) in stack.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(&a.to_string());
        }
        s.push(']');
        ev.stack = Some(RawJson::owned(s));
    }
    let mut user = String::new();
    let mut push_user = |k: &str, value: &dyn Fn(&mut String)| {
        user.push(if user.is_empty() { '{' } else { ',' });
        write_string(k, &mut user);
        user.push(':');
        value(&mut user);
    };
    for (k, v) in expand_more(p.args) {
        if let Some(key) = k.strip_prefix("@=") {
            if Value::parse(&v).is_ok() {
                push_user(key, &|o| o.push_str(&v));
                continue;
            }
        } else if k.starts_with('@') && apply_reserved(&mut ev, &k, &v) {
            continue;
        }
        push_user(&k, &|o| write_string(&v, o));
    }
    if ty == super::chrome::ChromeType::End && ev.ph.as_deref() == Some("X") {
        return None;
    }
    if !user.is_empty() {
        user.push('}');
        ev.args = Some(RawJson::owned(user));
    }
    Some(ev)
}
