//! One event object to an [`Event`]: the hot path of the reader.
//!
//! Keys are matched as bytes, strings borrow the input unless they hold escapes, and
//! `args`/`stack`/`estack` are stepped over without building anything. A field with a
//! value of the wrong type is not lost: it stays `None`, is counted as `bad_field` and
//! goes to `extra` as written, so the writer puts it back.

use std::borrow::Cow;

use super::lexer::{cow, Fail, Lexer, Scan};
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
    /// At `{`: reads one event object. `Ok(None)` for an empty `{}`.
    pub fn event(&mut self) -> Scan<Option<Event<'a>>> {
        let start = self.pos;
        self.pos += 1;
        self.ws();
        match self.peek() {
            Some(b'"') => {}
            Some(b'}') => {
                self.pos += 1;
                return Ok(None);
            }
            Some(_) => return Err(Fail::Syntax(self.pos)),
            None => return Err(Fail::Eof),
        }
        let mut ev = Event {
            offset: start as u64,
            ..Event::default()
        };
        let mut seen = 0u32;
        loop {
            let key_at = self.pos;
            let (k, esc) = self.string_str()?;
            let key = cow(k, esc);
            self.expect(b':')?;
            self.ws();
            match field(key.as_bytes()) {
                Some(f) => {
                    let bit = 1u32 << f as u32;
                    if seen & bit != 0 {
                        self.duplicate(&mut ev, &key, key_at);
                        clear(&mut ev, f);
                    }
                    seen |= bit;
                    self.field(&mut ev, f, key)?;
                }
                None => {
                    if ev.extra.iter().any(|(x, _)| *x == key) {
                        self.duplicate(&mut ev, &key, key_at);
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
            if self.after_member(b'}')? {
                return Ok(Some(ev));
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
                Some(ns) => {
                    *time_slot(ev, f) = Some(ns);
                    true
                }
                None => false,
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
                Some(b'-' | b'0'..=b'9') => match Int64::parse_number(self.number()?) {
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
            Field::Id2 => match self.id2() {
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
            self.diag(DiagKind::BadField, at);
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
    fn time(&mut self) -> Scan<Option<i64>> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => Ok(micros_text_to_ns(self.number()?)),
            Some(b'"') => {
                let at = self.pos;
                let (s, esc) = self.string_str()?;
                let ns = micros_text_to_ns(cow(s, esc).trim());
                if ns.is_some() {
                    self.diag(DiagKind::NumericString, at);
                }
                Ok(ns)
            }
            _ => Ok(None),
        }
    }

    /// An id: an integer (written as a number, exact to 64 bits) or a string.
    fn id(&mut self) -> Scan<Option<Id<'a>>> {
        match self.peek() {
            Some(b'"') => {
                let (s, esc) = self.string_str()?;
                Ok(Some(Id::Str(cow(s, esc))))
            }
            Some(b'-' | b'0'..=b'9') => Ok(Int64::parse_number(self.number()?).map(Id::Int)),
            _ => Ok(None),
        }
    }

    /// `{"local": x}` or `{"global": x}` with exactly that one member and no comments;
    /// `None` for anything else (the caller then keeps the value as written).
    fn id2(&mut self) -> Option<Id2<'a>> {
        let b = self.b;
        let blank = |i: &mut usize| {
            while let Some(b' ' | b'\n' | b'\r' | b'\t') = b.get(*i) {
                *i += 1;
            }
        };
        let mut probe = Lexer::new(self.text, self.pos + 1);
        if self.peek() != Some(b'{') {
            return None;
        }
        blank(&mut probe.pos);
        if probe.peek() != Some(b'"') {
            return None;
        }
        let (key, esc) = probe.string_str().ok()?;
        let global = match &*cow(key, esc) {
            "global" => true,
            "local" => false,
            _ => return None,
        };
        blank(&mut probe.pos);
        if probe.peek() != Some(b':') {
            return None;
        }
        probe.pos += 1;
        blank(&mut probe.pos);
        let id = probe.id().ok()??;
        blank(&mut probe.pos);
        if probe.peek() != Some(b'}') {
            return None;
        }
        self.pos = probe.pos + 1;
        Some(if global {
            Id2::Global(id)
        } else {
            Id2::Local(id)
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
