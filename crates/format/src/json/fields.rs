//! One event object to an [`Event`]: the hot path of the reader.
//!
//! Keys are matched as bytes, strings borrow the input unless they hold escapes, and
//! `args`/`stack`/`estack` are stepped over without building anything. A field with a
//! value of the wrong type is not lost: it stays `None`, is counted as `bad_field` and
//! goes to `extra` as written, so the writer puts it back.

use std::borrow::Cow;

use super::lexer::{cow, excerpt, quote_or_backslash_in, word_after, word_at, Fail, Lexer, Scan};
use super::value::{unescape, Value};
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

/// The defined keys. Each is at most 8 bytes, so it fits one word.
const KEYS: [(&[u8], Field); 23] = [
    (b"ph", Field::Ph),
    (b"name", Field::Name),
    (b"cat", Field::Cat),
    (b"ts", Field::Ts),
    (b"dur", Field::Dur),
    (b"tts", Field::Tts),
    (b"tdur", Field::Tdur),
    (b"pid", Field::Pid),
    (b"tid", Field::Tid),
    (b"id", Field::Id),
    (b"id2", Field::Id2),
    (b"scope", Field::Scope),
    (b"s", Field::S),
    (b"bp", Field::Bp),
    (b"bind_id", Field::BindId),
    (b"flow_in", Field::FlowIn),
    (b"flow_out", Field::FlowOut),
    (b"cname", Field::Cname),
    (b"sf", Field::Sf),
    (b"esf", Field::Esf),
    (b"stack", Field::Stack),
    (b"estack", Field::Estack),
    (b"args", Field::Args),
];

/// A key of at most 8 bytes as a word: its bytes little-endian, zeros after.
const fn key_word(key: &[u8]) -> u64 {
    let mut w = 0u64;
    let mut i = 0;
    while i < key.len() {
        w |= (key[i] as u64) << (8 * i);
        i += 1;
    }
    w
}

/// A multiplier that sends the words of the 23 keys to 23 different slots of 32
/// (found by search; `KEY_TABLE` fails to compile if it ever does not).
const KEY_HASH: u64 = 0x95b7_a664_df80_3b71;

const fn key_slot(word: u64) -> usize {
    (word.wrapping_mul(KEY_HASH) >> 59) as usize
}

/// Each key's word, length and field, in its slot.
const KEY_TABLE: [Option<(u64, usize, Field)>; 32] = {
    let mut table = [None; 32];
    let mut i = 0;
    while i < KEYS.len() {
        let (key, f) = KEYS[i];
        assert!(key.len() <= 8);
        let word = key_word(key);
        let slot = key_slot(word);
        assert!(
            table[slot].is_none(),
            "two keys in one slot: change KEY_HASH"
        );
        table[slot] = Some((word, key.len(), f));
        i += 1;
    }
    table
};

/// The field a key names: its word looked up in [`KEY_TABLE`].
#[inline]
fn known(word: u64, len: usize) -> Option<Field> {
    match KEY_TABLE[key_slot(word)] {
        Some((w, l, f)) if w == word && l == len => Some(f),
        _ => None,
    }
}

/// The field a key (unescaped) names.
fn field(key: &[u8]) -> Option<Field> {
    (key.len() <= 8).then(|| known(key_word(key), key.len()))?
}

/// How many guesses [`Lexer::key_after`] holds: one per defined field, one for an
/// event's first key, rounded up to a power of two so that an index masked with
/// `GUESSES - 1` needs no bounds check on the hot path.
pub(super) const GUESSES: usize = (KEYS.len() + 1).next_power_of_two();

/// A guess that matches no key.
pub(super) const NO_GUESS: u8 = KEYS.len() as u8;

/// Each defined key with its closing quote, as the word of text after its opening
/// quote (masked), and that mask; a key of 8 bytes (and [`NO_GUESS`]) never matches.
const KEY_QUOTED: [(u64, u64); GUESSES] = {
    let mut t = [(1u64, 0u64); GUESSES];
    let mut i = 0;
    while i < KEYS.len() {
        let (key, f) = KEYS[i];
        assert!(f as usize == i, "KEYS is in the order of Field");
        if key.len() < 8 {
            let word = key_word(key) | (b'"' as u64) << (8 * key.len());
            t[i] = (word, u64::MAX >> (64 - 8 * (key.len() + 1)));
        }
        i += 1;
    }
    t
};

/// What the text after a key's opening quote is compared with when a field is
/// guessed ([`Lexer::key_after`]): the key, its closing quote and, when they fit
/// in the word, the colon after it (so a match steps over all of them at once).
#[derive(Clone, Copy)]
struct Guess {
    word: u64,
    mask: u64,
    field: Field,
    /// Bytes from the opening quote to after what the word holds.
    skip: u8,
    /// The word holds the colon.
    colon: bool,
}

/// [`Guess`] by field, then one for [`NO_GUESS`] that never matches.
const GUESS: [Guess; GUESSES] = {
    let never = Guess {
        word: 1,
        mask: 0,
        field: Field::Ph,
        skip: 0,
        colon: false,
    };
    let mut t = [never; GUESSES];
    let mut i = 0;
    while i < KEYS.len() {
        let (key, f) = KEYS[i];
        let (word, mask) = KEY_QUOTED[i];
        if key.len() + 2 <= 8 {
            t[i] = Guess {
                word: word | (b':' as u64) << (8 * (key.len() + 1)),
                mask: u64::MAX >> (64 - 8 * (key.len() + 2)),
                field: f,
                skip: key.len() as u8 + 3,
                colon: true,
            };
        } else if key.len() < 8 {
            t[i] = Guess {
                word,
                mask,
                field: f,
                skip: key.len() as u8 + 2,
                colon: false,
            };
        }
        i += 1;
    }
    t
};

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
        let mut last = NO_GUESS as usize;
        loop {
            let key_at = self.pos;
            let g = GUESS[self.key_after[last] as usize & (GUESSES - 1)];
            // A defined key is not kept as text: only a diagnostic or `extra` needs
            // it, and then `key_text` reads it again.
            let known = match word_after(self.b, key_at + 1) {
                Some(w) if w & g.mask == g.word => {
                    self.pos = key_at + g.skip as usize;
                    if !g.colon {
                        self.colon()?;
                    }
                    Some(g.field)
                }
                _ => self.missed_key(ev, key_at, last)?,
            };
            if let Some(f) = known {
                last = f as usize;
                let mut first = self.peek();
                if let Some(b' ' | b'\n' | b'\r' | b'\t' | b'/') = first {
                    self.ws();
                    first = self.peek();
                }
                let bit = 1u32 << f as u32;
                if seen & bit != 0 {
                    let key = self.key_text(key_at);
                    self.duplicate(ev, &key, key_at);
                    clear(ev, f);
                }
                seen |= bit;
                self.field(ev, f, key_at, first)?;
            }
            // The next key right after a comma, as compact JSON has it: what
            // `next_member` and the test below find, in one look.
            if let Some([b',', b'"', ..]) = self.b.get(self.pos..) {
                self.pos += 1;
                continue;
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

    /// At a key's `"` that is not the guessed one ([`GUESS`], after the field `last`):
    /// reads the key and its colon. A defined key is returned, and becomes the guess
    /// after `last`; any other key has its value read into `extra` here, and gives
    /// `None`. Out of line: most keys are guessed.
    #[inline(never)]
    fn missed_key(
        &mut self,
        ev: &mut Event<'a>,
        key_at: usize,
        last: usize,
    ) -> Scan<Option<Field>> {
        let f = match self.short_key() {
            Some((f, end)) => {
                self.pos = end;
                Ok(f)
            }
            None => {
                let (k, esc) = self.string_str()?;
                let key = cow(k, esc);
                field(key.as_bytes()).ok_or(key)
            }
        };
        self.colon()?;
        let key = match f {
            Ok(f) => {
                self.key_after[last] = f as u8;
                return Ok(Some(f));
            }
            Err(key) => key,
        };
        // Whitespace first, as for a defined key: a comment's diagnostic comes
        // before a duplicate's.
        self.ws();
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
        Ok(None)
    }

    /// At a key's `"`: the field it names and the offset after its closing quote,
    /// when it is a defined key written without escapes, found from one word of the
    /// text. `None` sends the key the general way ([`field`]).
    #[inline]
    fn short_key(&self) -> Option<(Field, usize)> {
        let at = self.pos + 1;
        if at + 8 > self.b.len() {
            return None;
        }
        let w = word_at(self.b, at);
        let len = quote_or_backslash_in(w);
        if len == 8 || self.b[at + len] != b'"' {
            return None;
        }
        let word = w & ((1u64 << (8 * len)) - 1);
        known(word, len).map(|f| (f, at + len + 1))
    }

    /// The key whose `"` is at `at`, a string this lexer has stepped over, as
    /// text (unescaped), read again.
    #[cold]
    fn key_text(&mut self, at: usize) -> Cow<'a, str> {
        let pos = std::mem::replace(&mut self.pos, at);
        let key = self.string_str().map(|(k, esc)| cow(k, esc));
        self.pos = pos;
        // It was read before with success, so it is again.
        key.unwrap_or_default()
    }

    /// A key seen again: the last value wins, so forget what the earlier one left in
    /// `extra` (the caller clears the typed field).
    #[cold]
    fn duplicate(&mut self, ev: &mut Event<'a>, key: &str, at: usize) {
        self.diag(DiagKind::DuplicateKey, at);
        ev.extra.retain(|(x, _)| x != key);
    }

    /// Reads the value of a defined field (the cursor is at the value).
    /// `key_at` is where its key's `"` is.
    /// `first` is the value's first byte (`self.peek()`, which the caller has).
    #[inline(always)]
    fn field(
        &mut self,
        ev: &mut Event<'a>,
        f: Field,
        key_at: usize,
        first: Option<u8>,
    ) -> Scan<()> {
        let at = self.pos;
        let ok = match f {
            Field::Ph
            | Field::Name
            | Field::Cat
            | Field::Scope
            | Field::S
            | Field::Bp
            | Field::Cname => self.string_field(string_slot(ev, f), first)?,
            Field::Ts => self.time_field(&mut ev.ts, Some(0))?,
            Field::Dur => self.time_field(&mut ev.dur, Some(1))?,
            Field::Tts => self.time_field(&mut ev.tts, None)?,
            Field::Tdur => self.time_field(&mut ev.tdur, None)?,
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
                        let slot = if f == Field::Pid {
                            &mut ev.pid
                        } else {
                            &mut ev.tid
                        };
                        // Empty as the event comes (a duplicate is cleared first):
                        // nothing to drop, so no call to drop it.
                        if slot.is_none() {
                            *slot = Some(Pid::Int(n));
                        } else {
                            replace_pid(slot, n);
                        }
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
            let text = self.b;
            let key = self.key_text(key_at);
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

    /// A string field's value into its slot; false when the value (whose first
    /// byte is `first`) is not a string.
    #[inline(always)]
    fn string_field(&mut self, slot: &mut Option<Cow<'a, str>>, first: Option<u8>) -> Scan<bool> {
        if first != Some(b'"') {
            return Ok(false);
        }
        let (s, esc) = self.string_str()?;
        // Written apart: built in one place and then copied, the value was read
        // back 16 bytes wide after 8-byte stores (a stalled store forward on most
        // fields of every event).
        if esc {
            *slot = Some(unescape(s));
        } else {
            *slot = Some(Cow::Borrowed(s));
        }
        Ok(true)
    }

    /// A time field's value into its slot, and its text into `sub_ns[sub_ns]`
    /// when given ([`time`](Self::time)); false when the value is not a time.
    #[inline(always)]
    fn time_field(&mut self, slot: &mut Option<i64>, sub_ns: Option<usize>) -> Scan<bool> {
        match self.time()? {
            (Some(ns), text) => {
                *slot = Some(ns);
                if let Some(i) = sub_ns {
                    self.sub_ns[i] = text;
                }
                Ok(true)
            }
            (None, _) => Ok(false),
        }
    }

    /// A time in microseconds, as a number or a numeric string, to nanoseconds.
    /// `Ok(None)` when the value is of another kind or out of range.
    /// Also gives the number's text when it has digits below a nanosecond (and no
    /// escapes), for spans that must be rounded at both ends.
    fn time(&mut self) -> Scan<(Option<i64>, Option<&'a str>)> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => {
                let n = self.number()?;
                Ok((n.micros_to_ns(), n.below_ns.then_some(n.text)))
            }
            Some(b'"') => {
                let at = self.pos;
                let (s, esc) = self.string_str()?;
                let ns = micros_text_to_ns(&cow(s, esc));
                if ns.is_some() {
                    self.diag(DiagKind::NumericString, at);
                }
                let text = (!esc).then_some(s.trim()).filter(|t| below_ns(t));
                Ok((ns, text))
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

/// Sets a `pid`/`tid` slot that holds something, out of line (only a slot the
/// caller broke the empty-event rule for does).
#[cold]
fn replace_pid(slot: &mut Option<Pid<'_>>, n: Int64) {
    *slot = Some(Pid::Int(n));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Diagnostics;

    fn read(text: &str) -> (Scan<bool>, Event<'_>, Diagnostics) {
        let mut l = Lexer::new(text, 0);
        let mut ev = Event::default();
        let r = l.event(&mut ev);
        (r, ev, l.diags)
    }

    /// The guessed next key (`Lexer::key_after`) reads every event as a fresh lexer
    /// does, whatever came before: keys in changing orders, keys that a guess is a
    /// prefix of or that hold escapes, unknown keys, a key near the end of the text.
    #[test]
    fn key_guesses_change_nothing() {
        let events = [
            r#"{"args":{},"cat":"c","dur":1.5,"name":"n","ph":"X","pid":1,"tid":2,"ts":3}"#,
            r#"{"args":{},"cat":"c","dur":1.5,"name":"n","ph":"X","pid":1,"tid":2,"ts":3}"#,
            r#"{"args":{},"cat":"c","name":"m","ph":"M","pid":1,"tid":2,"ts":0}"#,
            r#"{"args":{},"cat":"c","durx":1,"na\u006de":"e","ph":"X","pi":1,"tts":2,"ts":4}"#,
            r#"{"args":{},"cat":"c","dur":1,"name":"n","ph":"X","pid":"p","tid":2,"tsx":3}"#,
            r#"{"ts":5,"ts":6,"tid":1,"tdur":2,"bind_id":3,"flow_out":true,"flow_in":false}"#,
            r#"{"bind_id":3,"bind_idx":4,"flow_out":true,"flow_outx":1,"s":"g","sf":1,"cat":"c"}"#,
            r#"{ "ph" : "B" , "name":"n\"q","ts":1}"#,
            r#"{"ts":1}"#,
            r#"{"t"#,
            r#"{"ts""#,
        ];
        let all: String = events.join(",");
        let mut primed = Lexer::new(all.as_str(), 0);
        for round in 0..3 {
            let mut at = 0;
            for e in events {
                primed.pos = at;
                let mut ev = Event::default();
                let r = primed.event(&mut ev);
                let mut fresh = Lexer::new(all.as_str(), at);
                let mut ev_fresh = Event::default();
                let want = fresh.event(&mut ev_fresh);
                assert_eq!(
                    (format!("{r:?}"), format!("{ev:?}")),
                    (format!("{want:?}"), format!("{ev_fresh:?}")),
                    "{round} {e}"
                );
                at += e.len() + 1;
            }
        }
    }

    /// Each defined key is found from its word, and only it: a longer, shorter or
    /// differently padded key is not.
    #[test]
    fn key_table() {
        for (key, f) in KEYS {
            assert!(field(key) == Some(f), "{key:?}");
            let text = format!("\"{}\":1,\"x\":2}}", std::str::from_utf8(key).unwrap());
            let l = Lexer::new(&text, 0);
            let found = l.short_key().map(|(f, end)| (f as u32, end));
            // A key of 8 bytes has its closing quote past the word: the general way.
            let want = (key.len() < 8).then_some((f as u32, key.len() + 2));
            assert_eq!(found, want, "{key:?}");
        }
        for key in ["p", "phx", "ph\0", "Ph", "", "argss", "flow_outx", "tsx"] {
            assert!(field(key.as_bytes()).is_none(), "{key:?}");
            let text = format!("\"{key}\":1,\"x\":2}}");
            assert!(Lexer::new(&text, 0).short_key().is_none(), "{key:?}");
        }
    }

    /// Keys read through the word path, the escaped path, near the end of the input,
    /// and unknown keys, give the same event.
    #[test]
    fn keys_every_way() {
        let plain =
            r#"{"ph":"X","name":"a","ts":1.5,"dur":2,"pid":1,"tid":2,"flow_out":true,"args":{}}"#;
        let escaped = r#"{"p\u0068":"X","n\u0061me":"a","ts":1.5,"d\u0075r":2,"pid":1,"tid":2,"flow_\u006fut":true,"args":{}}"#;
        let (r, a, _) = read(plain);
        assert_eq!(r, Ok(true));
        assert_eq!(
            (a.ph_str(), a.ts, a.dur, a.flow_out),
            ("X", Some(1500), Some(2000), Some(true))
        );
        let (r, b, _) = read(escaped);
        assert_eq!(r, Ok(true));
        assert_eq!(a, b);
        // The shortest events: every key within 8 bytes of the end.
        let (r, ev, _) = read(r#"{"ts":1}"#);
        assert_eq!((r, ev.ts), (Ok(true), Some(1000)));
        let (r, ev, _) = read(r#"{"s":"g"}"#);
        assert_eq!((r, ev.s.as_deref()), (Ok(true), Some("g")));
        assert_eq!(read(r#"{"ts""#).0, Err(Fail::Eof));
        assert_eq!(read(r#"{"ts"#).0, Err(Fail::Eof));
        // An unknown key that starts like a known one stays in `extra`.
        let (r, ev, _) = read(r#"{"tsx":5,"ph\"":1,"ts":2}"#);
        assert_eq!((r, ev.ts), (Ok(true), Some(2000)));
        let keys: Vec<&str> = ev.extra.iter().map(|(k, _)| &**k).collect();
        assert_eq!(keys, ["tsx", "ph\""]);
        // A duplicate found through the word path still counts.
        let (_, ev, d) = read(r#"{"name":"a","n\u0061me":"b","name":"c"}"#);
        assert_eq!(
            (ev.name.as_deref(), d.count(DiagKind::DuplicateKey)),
            (Some("c"), 2)
        );
    }

    /// Spans are rounded at both ends exactly when `ts` or `dur` has digits below a
    /// nanosecond, as numbers or as numeric strings.
    #[test]
    fn sub_ns_spans() {
        for (ts, dur) in [
            ("0.0004", "0.0004"),
            ("0.0006", "0.0004"),
            ("0.0004", "0.0006"),
            ("1.5e-3", "1"),
            ("0.001", "0.0015"),
            ("\"0.0006\"", "0.0004"),
            ("0.0014", "0.0014"),
        ] {
            let want = crate::time::span_ns(ts.trim_matches('"'), dur).unwrap();
            let text = format!(r#"{{"ph":"X","ts":{ts},"dur":{dur}}}"#);
            let (r, ev, _) = read(&text);
            assert_eq!((r, ev.dur), (Ok(true), Some(want)), "{text}");
        }
        // 1.4 ns from 1.4 ns: rounded alone the span is 1 ns, between its rounded ends
        // (1 and 3 ns) it is 2.
        let (_, ev, _) = read(r#"{"ph":"X","ts":0.0014,"dur":0.0014}"#);
        assert_eq!(ev.dur, Some(2));
        let (_, ev, _) = read(r#"{"ph":"X","ts":1.001,"dur":2.002}"#);
        assert_eq!(ev.dur, Some(2002));
    }
}
