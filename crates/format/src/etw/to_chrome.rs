//! [`Event`] to Chrome's compact model, losslessly: what the model has a slot for goes
//! in the slot, everything else rides in reserved arguments (see the module docs of
//! [`crate::etw`] for the full table).

use std::borrow::Cow;
use std::ops::RangeInclusive;

use super::chrome::{Bitness, ChromePayload, ChromeType, MAX_ARGS};
use super::fastjson;
use crate::id::{Id, Id2, Int64, Pid};
use crate::json::value::{compact, unescape, write_string};
use crate::json::Value;
use crate::{Event, RawJson};

/// One Chrome event with the header fields ETW and CTF keep outside the payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChromeRecord<'a> {
    /// Nanoseconds.
    pub ts: i64,
    pub pid: i64,
    pub tid: i64,
    pub payload: ChromePayload<'a>,
}

/// What the container can hold outside the payload.
#[derive(Clone, Debug)]
pub struct MapOptions {
    /// The pid/tid values the header holds (ETW: `0..=u32::MAX`, CTF: all of `i64`);
    /// others ride in `@pid`/`@tid`.
    pub pid_range: RangeInclusive<i64>,
    /// Stack addresses wider than this ride in `@stack` as JSON.
    pub bits: Bitness,
}

impl MapOptions {
    pub fn etw(bits: Bitness) -> MapOptions {
        MapOptions {
            pid_range: 0..=u32::MAX as i64,
            bits,
        }
    }

    pub fn ctf(bits: Bitness) -> MapOptions {
        MapOptions {
            pid_range: i64::MIN..=i64::MAX,
            bits,
        }
    }
}

type Arg<'a> = (Cow<'a, str>, Cow<'a, str>);

fn json_str(s: &str) -> Cow<'static, str> {
    let mut out = String::with_capacity(s.len() + 2);
    write_string(s, &mut out);
    Cow::Owned(out)
}

fn json_opt_str(s: Option<&str>) -> Cow<'static, str> {
    s.map_or(Cow::Borrowed("null"), json_str)
}

fn json_id(id: &Id<'_>) -> Cow<'static, str> {
    match id {
        Id::Int(v) => Cow::Owned(v.to_string()),
        Id::Str(s) => json_str(s),
    }
}

fn json_pid(p: Option<&Pid<'_>>) -> Cow<'static, str> {
    match p {
        None => Cow::Borrowed("null"),
        Some(Pid::Int(v)) => Cow::Owned(v.to_string()),
        Some(Pid::Str(s)) => json_str(s),
    }
}

fn has_nul(s: &str) -> bool {
    memchr::memchr(0, s.as_bytes()).is_some()
}

/// A string slot: the text itself, or `""` plus a reserved argument when the value
/// is absent or holds a NUL.
fn slot<'a>(v: Option<&'a str>, key: &'static str, res: &mut Vec<Arg<'a>>) -> Cow<'a, str> {
    match v {
        Some(s) if !has_nul(s) => Cow::Borrowed(s),
        _ => {
            res.push((Cow::Borrowed(key), json_opt_str(v)));
            Cow::Borrowed("")
        }
    }
}

/// A raw value as strict compact JSON, as the JSON writer writes it: a raw control
/// byte inside a string (a NUL above all, which would end the payload string) is
/// written as its `\u00XX` escape, which reads back as the same value.
fn raw_compact<'a>(r: &'a RawJson<'_>) -> Cow<'a, str> {
    if r.clean && !r.text.bytes().any(|b| b < 0x20) {
        Cow::Borrowed(&r.text)
    } else {
        Cow::Owned(compact(&r.text))
    }
}

/// Splits an `args` object into one argument per key: string values as they are,
/// other values (and keys that start with `@`) as `@=key` with JSON text. Returns
/// `None` when the args cannot be split faithfully (not an object, empty, a NUL in a
/// key or a string value that is not JSON-escapable as a payload string).
fn split_args<'a>(raw: &'a RawJson<'_>, out: &mut Vec<Arg<'a>>) -> bool {
    match fastjson::compact_members(&raw.text) {
        Some(members) => split_compact(members, out),
        None => split_parsed(&raw.text, out),
    }
}

fn split_parsed<'a>(text: &'a str, out: &mut Vec<Arg<'a>>) -> bool {
    let Ok(Value::Object(members)) = Value::parse(text) else {
        return false;
    };
    if members.is_empty() || members.iter().any(|(k, _)| has_nul(k)) {
        return false;
    }
    for (k, v) in members {
        match v {
            Value::String(s) if !k.starts_with('@') && !has_nul(&s) => out.push((k, s)),
            v => {
                let key = Cow::Owned(format!("@={k}"));
                out.push((key, Cow::Owned(v.to_compact())));
            }
        }
    }
    true
}

fn reserved_key(k: &str) -> Cow<'static, str> {
    let mut key = String::with_capacity(k.len() + 2);
    key.push_str("@=");
    key.push_str(k);
    Cow::Owned(key)
}

/// [`split_args`] for a compact object, reading members from the text rather than
/// from a parsed tree; gives what the parser's members give.
fn split_compact<'a>(members: Vec<(&'a str, &'a str)>, out: &mut Vec<Arg<'a>>) -> bool {
    if members.is_empty() {
        return false;
    }
    for (k, v) in members {
        let k = unescape(k);
        if has_nul(&k) {
            return false;
        }
        match v.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
            Some(body) => {
                let s = unescape(body);
                if !k.starts_with('@') && !has_nul(&s) {
                    out.push((k, s));
                } else {
                    out.push((reserved_key(&k), json_str(&s)));
                }
            }
            // Without escapes a compact value is already its compact form.
            None if !v.contains('\\') => out.push((reserved_key(&k), Cow::Borrowed(v))),
            None => out.push((reserved_key(&k), Cow::Owned(compact(v)))),
        }
    }
    true
}

/// The stack as addresses when it is a JSON array of plain non-negative integers
/// that fit `bits` (so writing them back as `[a,b]` gives the same JSON).
pub(crate) fn stack_addresses(raw: &RawJson<'_>, bits: Bitness) -> Option<Vec<u64>> {
    let Ok(Value::Array(items)) = Value::parse(&raw.text) else {
        return None;
    };
    items
        .iter()
        .map(|v| match v {
            Value::Number(n)
                if n.bytes().all(|b| b.is_ascii_digit())
                    && (n.len() == 1 || !n.starts_with('0')) =>
            {
                n.parse::<u64>().ok().filter(|&a| a <= bits.max_address())
            }
            _ => None,
        })
        .collect()
}

/// Maps one event to its Chrome record (two for `X`: a Begin and an End at `ts+dur`,
/// the End marked `@ph:"X"` so decoding drops it), appending to `out`.
pub fn to_chrome<'a>(ev: &'a Event<'_>, opts: &MapOptions, out: &mut Vec<ChromeRecord<'a>>) {
    let ph = ev.ph.as_deref();
    let (ty, own) = ph.map_or((ChromeType::Instant, false), ChromeType::for_phase);
    let mut args: Vec<Arg<'a>> = Vec::new();
    let mut res: Vec<Arg<'a>> = Vec::new();
    let r = |k: &'static str| Cow::Borrowed(k);

    if !own {
        res.push((r("@ph"), json_opt_str(ph)));
    }
    let name = slot(ev.name.as_deref(), "@name", &mut res);
    // Most JSON events have no `cat`: an empty categories string means none, and an
    // empty `cat` rides in `@cat`.
    let categories = match ev.cat.as_deref() {
        None => Cow::Borrowed(""),
        Some("") => {
            res.push((r("@cat"), r("\"\"")));
            Cow::Borrowed("")
        }
        c => slot(c, "@cat", &mut res),
    };
    if ev.ts.is_none() {
        res.push((r("@ts"), r("null")));
    }
    for (k, v) in [("@dur", ev.dur), ("@tts", ev.tts), ("@tdur", ev.tdur)] {
        if let Some(v) = v {
            res.push((r(k), Cow::Owned(v.to_string())));
        }
    }
    let pid_slot = |p: Option<&Pid<'_>>, key: &'static str, res: &mut Vec<Arg<'a>>| match p {
        Some(Pid::Int(Int64::I(v))) if opts.pid_range.contains(v) => *v,
        other => {
            res.push((r(key), json_pid(other)));
            0
        }
    };
    let pid = pid_slot(ev.pid.as_ref(), "@pid", &mut res);
    let tid = pid_slot(ev.tid.as_ref(), "@tid", &mut res);
    // Slot 0 means "no id" (the model's B/E convention); every other id that is not a
    // positive integer rides in `@id`, with its integer key in the slot if it has one.
    let id = match &ev.id {
        None => 0,
        Some(Id::Int(Int64::U(v))) => *v,
        Some(Id::Int(Int64::I(v))) if *v > 0 => *v as u64,
        Some(other) => {
            res.push((r("@id"), json_id(other)));
            match other.key() {
                crate::id::IdKey::Int(v) => v,
                crate::id::IdKey::Str(_) => 0,
            }
        }
    };
    if let Some(id2) = &ev.id2 {
        let (k, i) = match id2 {
            Id2::Local(i) => ("local", i),
            Id2::Global(i) => ("global", i),
        };
        res.push((r("@id2"), Cow::Owned(format!("{{\"{k}\":{}}}", json_id(i)))));
    }
    for (k, v) in [("@scope", &ev.scope), ("@s", &ev.s), ("@bp", &ev.bp)] {
        if let Some(v) = v {
            res.push((r(k), json_str(v)));
        }
    }
    if let Some(b) = &ev.bind_id {
        res.push((r("@bind_id"), json_id(b)));
    }
    for (k, v) in [("@flow_in", ev.flow_in), ("@flow_out", ev.flow_out)] {
        if let Some(v) = v {
            res.push((r(k), r(if v { "true" } else { "false" })));
        }
    }
    if let Some(c) = &ev.cname {
        res.push((r("@cname"), json_str(c)));
    }
    for (k, v) in [("@sf", &ev.sf), ("@esf", &ev.esf)] {
        if let Some(v) = v {
            res.push((r(k), json_id(v)));
        }
    }
    let stack = ev.stack.as_ref().and_then(|s| {
        let a = stack_addresses(s, opts.bits);
        if a.is_none() {
            res.push((r("@stack"), raw_compact(s)));
        }
        a
    });
    if let Some(s) = &ev.estack {
        res.push((r("@estack"), raw_compact(s)));
    }
    if let Some(a) = &ev.args {
        if !split_args(a, &mut args) {
            args.clear();
            res.push((r("@args"), raw_compact(a)));
        }
    }
    if !ev.extra.is_empty() {
        let mut o = String::from("{");
        for (i, (k, v)) in ev.extra.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            write_string(k, &mut o);
            o.push(':');
            o.push_str(&raw_compact(v));
        }
        o.push('}');
        res.push((r("@extra"), Cow::Owned(o)));
    }
    args.append(&mut res);
    if args.len() > MAX_ARGS {
        // The opcode counts 7 arguments: the 7th holds the rest as a JSON object.
        let rest = args.split_off(MAX_ARGS - 1);
        let mut o = String::from("{");
        for (i, (k, v)) in rest.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            write_string(k, &mut o);
            o.push(':');
            write_string(v, &mut o);
        }
        o.push('}');
        args.push((r("@more"), Cow::Owned(o)));
    }

    let ts = ev.ts.unwrap_or(0);
    let end = (ph == Some("X")).then(|| ChromeRecord {
        ts: ts.saturating_add(ev.dur.unwrap_or(0)),
        pid,
        tid,
        payload: ChromePayload {
            ty: ChromeType::End,
            name: name.clone(),
            id,
            categories: categories.clone(),
            args: vec![(r("@ph"), r("\"X\""))],
            stack: None,
        },
    });
    out.push(ChromeRecord {
        ts,
        pid,
        tid,
        payload: ChromePayload {
            ty,
            name,
            id,
            categories,
            args,
            stack,
        },
    });
    out.extend(end);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reading members from compact text gives what the parsed tree gives.
    #[test]
    fn compact_split_matches_the_parser() {
        let texts = [
            r#"{"a":"b","n":1,"o":{"x":[1,"y"]},"a":"dup"}"#,
            r#"{"@k":"v","e":"\u00e9\n","q":{"s":"\"t\""},"z":"\u0000"}"#,
            r#"{"\u0000":1}"#,
            r#"{"k\"":null,"t":true,"f":-1.5e3}"#,
            r#"{}"#,
        ];
        for t in texts {
            let members = fastjson::compact_members(t).expect(t);
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            let ok = split_compact(members, &mut fast);
            assert_eq!(ok, split_parsed(t, &mut slow), "{t}");
            if ok {
                assert_eq!(fast, slow, "{t}");
            }
        }
    }
}
