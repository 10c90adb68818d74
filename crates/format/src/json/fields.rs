//! One event object to an [`Event`]: the hot path of the reader.
//!
//! Keys are matched as bytes, strings borrow the input unless they hold escapes, and
//! `args`/`stack`/`estack` are stepped over without building anything. A field with a
//! value of the wrong type is not lost: it stays `None`, is counted as `bad_field` and
//! goes to `extra` as written, so the writer puts it back.

use std::borrow::Cow;

use super::lexer::{cow, excerpt, Fail, Lexer, Scan};
use super::value::Value;
use crate::time::micros_text_to_ns;
use crate::{DiagKind, Event, Id, Id2, Int64, Pid, RawJson};

/// The fields the format defines, as bit positions of a "seen" mask.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Ph,
    Name,
    Cat,
    Ts,
    Dur,
    Tts,
    Tdur,
    Pid,
    Tid,
    Id,
    Id2,
    Scope,
    S,
    Bp,
    BindId,
    FlowIn,
    FlowOut,
    Cname,
    Sf,
    Esf,
    Stack,
    Estack,
    Args,
}

impl Field {
    /// What a value of the field must be, for a `bad_field` example.
    fn expected(self) -> &'static str {
        match self {
            Field::Ts => "is not a number of microseconds (the event is placed at 0)",
            Field::Dur | Field::Tts | Field::Tdur => "is not a number of microseconds",
            Field::Pid | Field::Tid => "is neither an integer nor a string",
            Field::Id | Field::BindId | Field::Sf | Field::Esf => {
                "is neither an integer nor a string"
            }
            Field::Id2 => "is not {\"local\": id} or {\"global\": id}",
            Field::FlowIn | Field::FlowOut => "is neither true nor false",
            _ => "is not a string",
        }
    }
}

#[inline]
fn field(key: &[u8]) -> Option<Field> {
    Some(match key {
        b"ph" => Field::Ph,
        b"name" => Field::Name,
        b"cat" => Field::Cat,
        b"ts" => Field::Ts,
        b"dur" => Field::Dur,
        b"tts" => Field::Tts,
        b"tdur" => Field::Tdur,
        b"pid" => Field::Pid,
        b"tid" => Field::Tid,
        b"id" => Field::Id,
        b"id2" => Field::Id2,
        b"scope" => Field::Scope,
        b"s" => Field::S,
        b"bp" => Field::Bp,
        b"bind_id" => Field::BindId,
        b"flow_in" => Field::FlowIn,
        b"flow_out" => Field::FlowOut,
        b"cname" => Field::Cname,
        b"sf" => Field::Sf,
        b"esf" => Field::Esf,
        b"stack" => Field::Stack,
        b"estack" => Field::Estack,
        b"args" => Field::Args,
        _ => return None,
    })
}

/// Depth of an event's values: the event list is 1, the event 2.
const DEPTH: u32 = 2;

impl<'a> Lexer<'a> {
    /// At `{`: reads one event object into `ev`, which must be empty (`Default`);
    /// returns false for an empty `{}`. Filling the caller's slot saves moving the
    /// large `Event` through return values on the hot path. After an error `ev` holds
    /// part of the event and must be reset.
    pub fn event(&mut self, ev: &mut Event<'a>) -> Scan<bool> {
        let start = self.pos;
        self.pos += 1;
        self.ws();
        match self.peek() {
            Some(b'"') => {}
            Some(b'}') => {
                self.pos += 1;
                return Ok(false);
            }
            Some(_) => return Err(Fail::Syntax(self.pos)),
            None => return Err(Fail::Eof),
        }
        ev.offset = start as u64;
        self.sub_ns = [None, None];
        let mut seen = 0u32;
        loop {
            let key_at = self.pos;
            let (k, esc) = self.string_str()?;
            let key = cow(k, esc);
            self.colon()?;
            if let Some(b' ' | b'\n' | b'\r' | b'\t' | b'/') = self.peek() {
                self.ws();
            }
            match field(key.as_bytes()) {
                Some(f) => {
                    let bit = 1u32 << f as u32;
                    if seen & bit != 0 {
                        self.duplicate(ev, &key, key_at);
                        clear(ev, f);
                    }
                    seen |= bit;
                    self.field(ev, f, key)?;
                }
                None => {
                    if ev.extra.iter().any(|(x, _)| *x == key) {
                        self.duplicate(ev, &key, key_at);
                    }
                    let (_, raw, clean) = self.raw_value(DEPTH)?;
                    ev.extra.push((
                        key,
                        RawJson {
                            text: Cow::Borrowed(raw),
                            clean,
                        },
                    ));
                }
            }
            if self.next_member(b'}')? {
                self.round_span(ev);
                return Ok(true);
            }
            if self.peek() != Some(b'"') {
                return Err(Fail::Syntax(self.pos));
            }
        }
    }

    /// A key seen again: the last value wins, so forget what the earlier one left in
    /// `extra` (the caller clears the typed field).
    #[cold]
    fn duplicate(&mut self, ev: &mut Event<'a>, key: &str, at: usize) {
        self.diag(DiagKind::DuplicateKey, at);
        ev.extra.retain(|(x, _)| x != key);
    }

    /// Reads the value of a defined field (the cursor is at the value).
    fn field(&mut self, ev: &mut Event<'a>, f: Field, key: Cow<'a, str>) -> Scan<()> {
        let at = self.pos;
        let first = self.peek();
        let ok = match f {
            Field::Ph
            | Field::Name
            | Field::Cat
            | Field::Scope
            | Field::S
            | Field::Bp
            | Field::Cname => {
                if first == Some(b'"') {
                    let (s, esc) = self.string_str()?;
                    *string_slot(ev, f) = Some(cow(s, esc));
                    true
                } else {
                    false
                }
            }
            Field::Ts | Field::Dur | Field::Tts | Field::Tdur => match self.time()? {
                (Some(ns), text) => {
                    *time_slot(ev, f) = Some(ns);
                    match f {
                        Field::Ts => self.sub_ns[0] = text.filter(|t| below_ns(t)),
                        Field::Dur => self.sub_ns[1] = text.filter(|t| below_ns(t)),
                        _ => {}
                    }
                    true
                }
                (None, _) => false,
            },
            Field::Pid | Field::Tid => match first {
                Some(b'"') => {
                    let (s, esc) = self.string_str()?;
                    let v = Some(Pid::from_str_value(cow(s, esc)));
                    if f == Field::Pid {
                        ev.pid = v;
                    } else {
                        ev.tid = v;
                    }
                    true
                }
                Some(b'-' | b'0'..=b'9') => match self.number()?.int64() {
                    Some(n) => {
                        *if f == Field::Pid {
                            &mut ev.pid
                        } else {
                            &mut ev.tid
                        } = Some(Pid::Int(n));
                        true
                    }
                    None => false,
                },
                _ => false,
            },
            Field::Id | Field::BindId | Field::Sf | Field::Esf => match self.id()? {
                Some(id) => {
                    *id_slot(ev, f) = Some(id);
                    true
                }
                None => false,
            },
            Field::Id2 => match self.id2()? {
                Some(id2) => {
                    ev.id2 = Some(id2);
                    true
                }
                None => false,
            },
            Field::FlowIn | Field::FlowOut => {
                let v = match first {
                    Some(b't') if self.b[at..].starts_with(b"true") => Some(true),
                    Some(b'f') if self.b[at..].starts_with(b"false") => Some(false),
                    _ => None,
                };
                if let Some(v) = v {
                    self.pos += if v { 4 } else { 5 };
                    *if f == Field::FlowIn {
                        &mut ev.flow_in
                    } else {
                        &mut ev.flow_out
                    } = Some(v);
                }
                v.is_some()
            }
            Field::Stack | Field::Estack | Field::Args => {
                let (_, raw, clean) = self.raw_value(DEPTH)?;
                let v = Some(RawJson {
                    text: Cow::Borrowed(raw),
                    clean,
                });
                match f {
                    Field::Stack => ev.stack = v,
                    Field::Estack => ev.estack = v,
                    _ => ev.args = v,
                }
                true
            }
        };
        if !ok {
            // Keep the value as written, so nothing is lost and the writer restores it.
            self.pos = at;
            let (_, raw, clean) = self.raw_value(DEPTH)?;
            let text = self.text;
            self.diag_with(DiagKind::BadField, at, || {
                format!("`{key}` {}: {}", f.expected(), excerpt(text, at))
            });
            ev.extra.push((
                key,
                RawJson {
                    text: Cow::Borrowed(raw),
                    clean,
                },
            ));
        }
        Ok(())
    }

    /// A time in microseconds, as a number or a numeric string, to nanoseconds.
    /// `Ok(None)` when the value is of another kind or out of range.
    /// Also gives the number's text (when it has no escapes), for spans that must
    /// be rounded at both ends.
    fn time(&mut self) -> Scan<(Option<i64>, Option<&'a str>)> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => {
                let n = self.number()?;
                Ok((n.micros_to_ns(), Some(n.text)))
            }
            Some(b'"') => {
                let at = self.pos;
                let (s, esc) = self.string_str()?;
                let ns = micros_text_to_ns(&cow(s, esc));
                if ns.is_some() {
                    self.diag(DiagKind::NumericString, at);
                }
                Ok((ns, (!esc).then_some(s.trim())))
            }
            _ => Ok((None, None)),
        }
    }

    /// `dur` of a span whose `ts` or `dur` has digits below a nanosecond: both ends
    /// are rounded to ns, then subtracted (spec section 3), not each value alone.
    fn round_span(&mut self, ev: &mut Event<'a>) {
        if let ([Some(_), _] | [_, Some(_)], Some(ts), Some(dur)) = (self.sub_ns, ev.ts, ev.dur) {
            let texts = (
                self.sub_ns[0].map(str::to_string),
                self.sub_ns[1].map(str::to_string),
            );
            let ts_text = texts.0.unwrap_or_else(|| ns_text(ts));
            let dur_text = texts.1.unwrap_or_else(|| ns_text(dur));
            if let Some(span) = crate::time::span_ns(&ts_text, &dur_text) {
                ev.dur = Some(span);
            }
        }
        self.sub_ns = [None, None];
    }

    /// An id: an integer (written as a number, exact to 64 bits) or a string.
    fn id(&mut self) -> Scan<Option<Id<'a>>> {
        match self.peek() {
            Some(b'"') => {
                let (s, esc) = self.string_str()?;
                Ok(Some(Id::Str(cow(s, esc))))
            }
            Some(b'-' | b'0'..=b'9') => Ok(self.number()?.int64().map(Id::Int)),
            _ => Ok(None),
        }
    }

    /// `{"local": x}` or `{"global": x}` with exactly that one member, read with the
    /// same tolerant parser `value::compact` uses, so a value kept raw here stays
    /// unusable after the writer compacts it. `Ok(None)` for anything else.
    fn id2(&mut self) -> Scan<Option<Id2<'a>>> {
        let (_, raw, _) = self.raw_value(DEPTH)?;
        let Ok(Value::Object(members)) = Value::parse(raw) else {
            return Ok(None);
        };
        let [(key, value)] = &members[..] else {
            return Ok(None);
        };
        let id = match value {
            Value::Number(n) => match Int64::parse_number(n) {
                Some(v) => Id::Int(v),
                None => return Ok(None),
            },
            Value::String(s) => Id::Str(s.clone()),
            _ => return Ok(None),
        };
        Ok(match &**key {
            "global" => Some(Id2::Global(id)),
            "local" => Some(Id2::Local(id)),
            _ => None,
        })
    }
}

fn string_slot<'e, 'a>(ev: &'e mut Event<'a>, f: Field) -> &'e mut Option<Cow<'a, str>> {
    match f {
        Field::Ph => &mut ev.ph,
        Field::Name => &mut ev.name,
        Field::Cat => &mut ev.cat,
        Field::Scope => &mut ev.scope,
        Field::S => &mut ev.s,
        Field::Bp => &mut ev.bp,
        _ => &mut ev.cname,
    }
}

/// Whether microsecond text has digits below a nanosecond (more than 3 decimals, or
/// an exponent).
fn below_ns(text: &str) -> bool {
    text.bytes().any(|b| b == b'e' || b == b'E')
        || text.split_once('.').is_some_and(|(_, f)| f.len() > 3)
}

/// Integer ns as exact microsecond text.
fn ns_text(ns: i64) -> String {
    let mut s = String::new();
    crate::time::ns_to_micros_text(ns, &mut s);
    s
}

fn time_slot<'e>(ev: &'e mut Event<'_>, f: Field) -> &'e mut Option<i64> {
    match f {
        Field::Ts => &mut ev.ts,
        Field::Dur => &mut ev.dur,
        Field::Tts => &mut ev.tts,
        _ => &mut ev.tdur,
    }
}

fn id_slot<'e, 'a>(ev: &'e mut Event<'a>, f: Field) -> &'e mut Option<Id<'a>> {
    match f {
        Field::Id => &mut ev.id,
        Field::BindId => &mut ev.bind_id,
        Field::Sf => &mut ev.sf,
        _ => &mut ev.esf,
    }
}

/// Forgets a field's earlier value when its key comes again.
fn clear(ev: &mut Event<'_>, f: Field) {
    match f {
        Field::Ph
        | Field::Name
        | Field::Cat
        | Field::Scope
        | Field::S
        | Field::Bp
        | Field::Cname => *string_slot(ev, f) = None,
        Field::Ts | Field::Dur | Field::Tts | Field::Tdur => *time_slot(ev, f) = None,
        Field::Id | Field::BindId | Field::Sf | Field::Esf => *id_slot(ev, f) = None,
        Field::Pid => ev.pid = None,
        Field::Tid => ev.tid = None,
        Field::Id2 => ev.id2 = None,
        Field::FlowIn => ev.flow_in = None,
        Field::FlowOut => ev.flow_out = None,
        Field::Stack => ev.stack = None,
        Field::Estack => ev.estack = None,
        Field::Args => ev.args = None,
    }
}
