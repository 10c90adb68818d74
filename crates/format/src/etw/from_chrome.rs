//! Chrome's compact model back to [`Event`]: slots first, then the reserved
//! arguments written by [`to_chrome`](super::to_chrome()) override or add fields.
//! Arguments from other producers (or reserved ones that do not parse) are kept as
//! plain string args, so nothing a foreign payload holds is lost.

use std::borrow::Cow;

use super::chrome::{ChromePayload, ChromeType};
use super::fastjson;
use crate::id::{Id, Id2, Int64, Pid};
use crate::json::value::unescape;
use crate::json::Value;
use crate::{EncodedArgs, Event, RawJson};

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
        let owned = || Cow::Owned(s.to_string());
        if let Some(slot) = str_field(ev, key) {
            *slot = Some(if key == "@ph" {
                static_phase(s)
            } else {
                owned()
            });
            return true;
        }
        if let Some(slot) = id_field(ev, key) {
            *slot = Some(Id::Str(owned()));
            return true;
        }
        match key {
            "@pid" => ev.pid = Some(Pid::Str(owned())),
            "@tid" => ev.tid = Some(Pid::Str(owned())),
            _ => return apply_reserved_parsed(ev, key, text),
        }
        return true;
    }
    if let Some(i) = fastjson::simple_int(text) {
        let slot = match key {
            "@dur" => &mut ev.dur,
            "@tts" => &mut ev.tts,
            "@tdur" => &mut ev.tdur,
            _ => {
                // The integer text is the number's text as the parser gives it.
                let Some(n) = Int64::parse(text) else {
                    return apply_reserved_parsed(ev, key, text);
                };
                if let Some(slot) = id_field(ev, key) {
                    *slot = Some(Id::Int(n));
                    return true;
                }
                match key {
                    "@pid" => ev.pid = Some(Pid::Int(n)),
                    "@tid" => ev.tid = Some(Pid::Int(n)),
                    _ => return apply_reserved_parsed(ev, key, text),
                }
                return true;
            }
        };
        return i.map(|i| *slot = Some(i)).is_some();
    }
    if let Some(slot) = raw_field(ev, key) {
        // Raw JSON kept as written: compact text is proven valid without building
        // the parser's tree (`@args` is on a quarter of a big trace's records).
        if fastjson::is_compact_json(text) {
            *slot = Some(raw(text));
            return true;
        }
    }
    apply_reserved_parsed(ev, key, text)
}

/// The field a reserved argument of raw JSON text holds.
fn raw_field<'e, 'a>(ev: &'e mut Event<'a>, key: &str) -> Option<&'e mut Option<RawJson<'a>>> {
    Some(match key {
        "@args" => &mut ev.args,
        "@stack" => &mut ev.stack,
        "@estack" => &mut ev.estack,
        _ => return None,
    })
}

/// The id field a reserved argument holds.
fn id_field<'e, 'a>(ev: &'e mut Event<'a>, key: &str) -> Option<&'e mut Option<Id<'a>>> {
    Some(match key {
        "@id" => &mut ev.id,
        "@bind_id" => &mut ev.bind_id,
        "@sf" => &mut ev.sf,
        "@esf" => &mut ev.esf,
        _ => return None,
    })
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
        args: p.args.as_slice(),
        stack: p.stack.as_deref(),
    };
    let mut event = None;
    chrome_event(&fields, ts, pid, tid, offset, None, |ev| event = Some(ev));
    event
}

/// A Chrome payload by reference, so decoders can reuse their buffers and hand
/// over arguments as they hold them.
pub(crate) struct ChromeFields<'s, 'a, A: ArgList> {
    pub ty: ChromeType,
    pub name: &'s Cow<'a, str>,
    pub id: u64,
    pub categories: &'s Cow<'a, str>,
    pub args: A,
    pub stack: Option<&'s [u64]>,
}

/// A record's arguments, names and values as text, in order.
pub(crate) trait ArgList {
    fn each(&self, f: impl FnMut(&str, &str));
}

impl ArgList for &[Arg<'_>] {
    fn each(&self, mut f: impl FnMut(&str, &str)) {
        for (k, v) in self.iter() {
            f(k, v);
        }
    }
}

/// [`from_chrome`] on borrowed fields, the event given to `emit` (not for the End
/// half of an `X`). Name and categories are cloned, which costs nothing when they
/// borrow the input (the usual case: valid UTF-8). The event (hundreds of bytes)
/// goes to `emit` from where it is built: returned in an `Option`, it was copied at
/// each step on its way to the model (a few copies an event, 5% of a CTF load).
///
/// With `encoded` (the record's arguments as its input holds them), the event's
/// args are left there ([`Event::encoded_args`]) whenever they would be present:
/// the reserved arguments still go into the event's fields, but nothing is written
/// as JSON ([`args_json`] writes it when asked).
#[inline]
pub(crate) fn chrome_event<'a, A: ArgList>(
    p: &ChromeFields<'_, 'a, A>,
    ts: i64,
    pid: i64,
    tid: i64,
    offset: u64,
    encoded: Option<EncodedArgs<'a>>,
    emit: impl FnOnce(Event<'a>),
) {
    let ty = p.ty;
    // The End half of an X is dropped: skip building it when its last `@ph` (which
    // wins) is a plain "X" and no `@more` could hold another.
    let (mut size, mut more, mut x) = (0, false, false);
    p.args.each(|k, v| {
        size += k.len() + v.len() + 8;
        more |= k == "@more";
        if k == "@ph" {
            x = v == "\"X\"";
        }
    });
    if ty == ChromeType::End && x && !more {
        return;
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
    let mut user = String::new();
    let kept = match encoded {
        Some(_) => note_args(&mut ev, &p.args),
        None => {
            write_args(&mut ev, &p.args, size, &mut user);
            false
        }
    };
    if ty == ChromeType::End && ev.ph.as_deref() == Some("X") {
        return;
    }
    if kept {
        ev.encoded_args = encoded;
    } else if !user.is_empty() {
        ev.args = Some(RawJson::owned(user));
    }
    emit(ev);
}

/// The `args` text of a record's arguments, as [`chrome_event`] gives it (`None`
/// when the event has none): what [`EncodedArgs::to_json`] gives for arguments
/// left encoded. The reserved arguments are applied to an event of their own,
/// as the decoding did, so that each one is read exactly as it was then.
pub(crate) fn args_json(args: &impl ArgList) -> Option<String> {
    let mut size = 0;
    args.each(|k, v| size += k.len() + v.len() + 8);
    // What `chrome_event` starts from that a reserved argument reads: a time.
    let mut ev = Event {
        ts: Some(0),
        ..Event::default()
    };
    let mut user = String::new();
    write_args(&mut ev, args, size, &mut user);
    if user.is_empty() {
        ev.args.map(|a| a.text.into_owned())
    } else {
        Some(user)
    }
}

/// [`write_args`] without writing: the reserved arguments that apply go into the
/// event's fields as there; `true` when the event has args (a member of the
/// object `write_args` writes, or `@args`).
fn note_args(ev: &mut Event<'_>, args: &impl ArgList) -> bool {
    let mut kept = false;
    args.each(|k, v| {
        if k != "@more" || !more_members(v, |mk, mv| kept |= note_arg(ev, mk, mv)) {
            kept |= note_arg(ev, k, v);
        }
    });
    kept
}

/// [`write_arg`] without writing: `true` when the argument is part of the args
/// (a member, whether `write_arg` writes its value as JSON or as a string; or
/// `@args`, which is the whole args when nothing else is, and a member when it
/// does not parse). Other reserved arguments are applied as there.
fn note_arg(ev: &mut Event<'_>, k: &str, v: &str) -> bool {
    if k.starts_with("@=") || k == "@args" {
        return true;
    }
    !(k.starts_with('@') && apply_reserved(ev, k, v))
}

/// The record's arguments in one pass: reserved ones into the event's fields, the
/// others written to `user` as one JSON object (left empty when there are none).
/// `@more` (the overflow past the 7th argument) is read member by member from its
/// text, as if its members were arguments of their own. `size` is what to reserve
/// for the object.
fn write_args(ev: &mut Event<'_>, args: &impl ArgList, size: usize, user: &mut String) {
    args.each(|k, v| {
        if k != "@more" || !more_members(v, |mk, mv| write_arg(ev, mk, mv, size, user)) {
            write_arg(ev, k, v, size, user);
        }
    });
    if !user.is_empty() {
        user.push('}');
    }
}

/// One argument: into the event when it is a reserved one that applies, else a
/// member of `user` (`@=key` values are JSON text, written as they are when valid);
/// `size` is what to reserve for the whole object.
fn write_arg(ev: &mut Event<'_>, k: &str, v: &str, size: usize, user: &mut String) {
    let (key, json) = match k.strip_prefix("@=") {
        Some(key) if fastjson::is_compact_json(v) || Value::parse(v).is_ok() => (key, true),
        Some(_) => (k, false),
        None if k.starts_with('@') && apply_reserved(ev, k, v) => return,
        None => (k, false),
    };
    if user.is_empty() {
        user.reserve(size);
        user.push('{');
    } else {
        user.push(',');
    }
    fastjson::push_string(key, user);
    user.push(':');
    if json {
        user.push_str(v);
    } else {
        fastjson::push_string(v, user);
    }
}

/// Gives each member of `@more`'s text (an object whose values are all strings) to
/// `each`, unescaped; `false`, having given none, when the text is anything else
/// (it is then a plain argument). Compact text (what the mapping writes) is read
/// directly; other text by the parser.
fn more_members(text: &str, mut each: impl FnMut(&str, &str)) -> bool {
    if let Some(members) = fastjson::compact_members(text) {
        fn string(v: &str) -> Option<&str> {
            v.strip_prefix('"')?.strip_suffix('"')
        }
        if !members.iter().all(|(_, v)| string(v).is_some()) {
            return false;
        }
        for (k, v) in members {
            each(&unescape(k), &unescape(string(v).unwrap_or_default()));
        }
        return true;
    }
    let Ok(Value::Object(m)) = Value::parse(text) else {
        return false;
    };
    if !m.iter().all(|(_, v)| v.as_str().is_some()) {
        return false;
    }
    for (k, v) in &m {
        each(k, v.as_str().expect("a string, checked above"));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The direct reading of plain strings and integers gives what the full parser
    /// gives, including rejections.
    #[test]
    fn fast_reserved_values_match_the_parser() {
        let keys = [
            "@ph", "@name", "@cat", "@s", "@dur", "@tts", "@id", "@ts", "@stack", "@x", "@pid",
            "@tid", "@bind_id", "@sf", "@esf", "@args", "@flow_in",
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
            "18446744073709551615",
            "-9223372036854775808",
            " 12",
            "null",
            "\"X",
            "true",
            "[1]",
            "{}",
            r#"{"a":[1,{"b":null}],"c":"d\"e"}"#,
            r#"{"a":1,}"#,
            r#"{ "a" : 1 }"#,
            "[1,2",
        ];
        // Deeper than the direct check follows: the parser decides.
        let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
        let texts = texts.iter().copied().chain([deep.as_str()]);
        let keys = keys.iter().chain(&["@estack"]);
        for k in keys {
            for t in texts.clone() {
                let (mut a, mut b) = (Event::default(), Event::default());
                let fast = apply_reserved(&mut a, k, t);
                let slow = apply_reserved_parsed(&mut b, k, t);
                assert_eq!((fast, &a), (slow, &b), "{k} = {t}");
            }
        }
    }

    /// The path this one-pass writer replaced: `@more` expanded into a new list by
    /// the parser, then each argument applied, reserved ones by the parser.
    fn old_path(ev: &mut Event<'_>, args: &[Arg<'_>]) -> String {
        let mut expanded: Vec<(String, String)> = Vec::new();
        for (k, v) in args {
            if k == "@more" {
                if let Ok(Value::Object(m)) = Value::parse(v) {
                    if m.iter().all(|(_, v)| v.as_str().is_some()) {
                        for (mk, mv) in m {
                            expanded.push((mk.to_string(), mv.as_str().unwrap().to_string()));
                        }
                        continue;
                    }
                }
            }
            expanded.push((k.to_string(), v.to_string()));
        }
        let mut user = String::new();
        let mut push_user = |k: &str, v: String| {
            user.push(if user.is_empty() { '{' } else { ',' });
            crate::json::value::write_string(k, &mut user);
            user.push(':');
            user.push_str(&v);
        };
        for (k, v) in &expanded {
            if let Some(key) = k.strip_prefix("@=") {
                if Value::parse(v).is_ok() {
                    push_user(key, v.clone());
                    continue;
                }
            } else if k.starts_with('@') && apply_reserved_parsed(ev, k, v) {
                continue;
            }
            let mut s = String::new();
            crate::json::value::write_string(v, &mut s);
            push_user(k, s);
        }
        if !user.is_empty() {
            user.push('}');
        }
        user
    }

    /// The one-pass writer gives the old path's args text and event fields, on
    /// escapes, nested objects, arrays, `@` keys, big integers, floats, empty
    /// objects and `@more` in every shape.
    #[test]
    fn one_pass_args_match_the_old_path() {
        let cases: Vec<Vec<(&str, &str)>> = vec![
            vec![],
            vec![("type", "scavenge"), ("q", "a\"b\\c\n\u{1}é\u{7f}")],
            vec![(
                "@=data",
                r#"{"frame":"F2","url":"u","n":{"deep":[1,{"x":null}]},"s":"r\"F\"\n"}"#,
            )],
            vec![
                ("@=list", "[1,2.5,-0.0,\"x\",[],{}]"),
                ("@=empty", "{}"),
                ("@=arr", "[]"),
            ],
            vec![
                ("@=big", "99999999999999999999"),
                ("@=neg", "-9223372036854775809"),
            ],
            vec![
                ("@=ratio", "0.547"),
                ("@=e", "1.5e-3"),
                ("@=t", "true"),
                ("@=n", "null"),
            ],
            vec![
                ("@=bad", "{not json"),
                ("@=sp", " { \"a\" : 1 } "),
                ("@=@ph", "\"user\""),
            ],
            vec![
                ("@ph", "\"X\""),
                ("@dur", "182741"),
                ("@tts", "16341195"),
                ("@tdur", "-5"),
            ],
            vec![
                ("@id", "\"0x142\""),
                ("@bind_id", "77"),
                ("@sf", "18446744073709551615"),
            ],
            vec![
                ("@esf", "99999999999999999999"),
                ("@id", "1.5"),
                ("@id", "-0"),
            ],
            vec![
                ("@pid", "\"browser\""),
                ("@tid", "12"),
                ("@pid", "null"),
                ("@tid", "-3"),
            ],
            vec![
                ("@id2", r#"{"local":"0x1"}"#),
                ("@flow_in", "true"),
                ("@ts", "null"),
            ],
            vec![("@name", "\"n\\u00e9\""), ("@cat", "null"), ("@args", "{}")],
            vec![("@args", "{}"), ("k", "v")],
            vec![
                ("@stack", "[1,2]"),
                ("@extra", r#"{"x":{"y":[1]},"z":"w"}"#),
            ],
            vec![
                ("@x", "\"unknown\""),
                ("@", "v"),
                ("@dur", "\"5\""),
                ("@dur", "1e3"),
            ],
            vec![
                ("a", "1"),
                (
                    "@more",
                    r#"{"@tts":"16341195","@tdur":"102334","k\"q":"v\n"}"#,
                ),
            ],
            vec![("@more", "{}"), ("b", "2")],
            vec![("@more", r#"{"a":1,"b":"c"}"#)],
            vec![("@more", r#"{ "@ph" : "\"n\"", "x" : "y" }"#)],
            vec![("@more", "not json"), ("@more", "[\"a\"]")],
            vec![("@more", r#"{"@more":"{\"a\":\"b\"}","@=j":"[1]"}"#)],
        ];
        for case in cases {
            let args: Vec<Arg<'_>> = case.iter().map(|&(k, v)| (k.into(), v.into())).collect();
            let (mut old, mut new) = (Event::default(), Event::default());
            let old_text = old_path(&mut old, &args);
            let mut new_text = String::new();
            write_args(&mut new, &args.as_slice(), 0, &mut new_text);
            assert_eq!((&new_text, &new), (&old_text, &old), "{case:?}");
            if !new_text.is_empty() {
                assert!(Value::parse(&new_text).is_ok(), "{new_text}");
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
