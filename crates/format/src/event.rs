//! [`Event`]: one trace event with every field of the format, borrowed from the input.

use std::borrow::Cow;

use crate::id::{Id, Id2, Pid};

/// A JSON value kept as text, parsed only when someone asks.
///
/// `clean` is false when the text holds comments or trailing commas (JSONC); such text
/// is valid for tracescope's tolerant parser but must be compacted before it is
/// written out as strict JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawJson<'a> {
    pub text: Cow<'a, str>,
    pub clean: bool,
}

impl<'a> RawJson<'a> {
    pub fn borrowed(text: &'a str) -> Self {
        RawJson {
            text: Cow::Borrowed(text),
            clean: true,
        }
    }

    pub fn owned(text: String) -> RawJson<'static> {
        RawJson {
            text: Cow::Owned(text),
            clean: true,
        }
    }

    pub fn into_owned(self) -> RawJson<'static> {
        RawJson {
            text: Cow::Owned(self.text.into_owned()),
            clean: self.clean,
        }
    }
}

/// An event's `args` left as the bytes its binary input holds them in, turned into
/// JSON text only when someone asks ([`EncodedArgs::to_json`]).
///
/// A CTF trace in tracescope's own layout keeps each record's arguments as
/// `struct { string arg_name; string arg_value; } arguments[N]` (the reserved
/// argument mapping of [`crate::etw`]); rewriting them as JSON on every load cost
/// more than the rest of the decoding. A reader hands these out only when asked to
/// ([`crate::ctf::CtfRuns::with_encoded_args`]): a consumer that keeps the input
/// (the model keeps the stream files mapped) then reads them back from there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncodedArgs<'a> {
    /// The record's `arguments`: name and value strings in turn, each ended by a NUL.
    pub bytes: &'a [u8],
    /// Where `bytes` start in the reader's space of input offsets (the stream files
    /// of the trace one after another, the first at 0).
    pub at: u64,
}

impl EncodedArgs<'_> {
    /// The args as the reader would have given them in [`Event::args`] (`None`
    /// when that is absent).
    pub fn to_json(&self) -> Option<String> {
        crate::ctf::args_json(self.bytes)
    }
}

/// One event of a trace, as the format defines it.
///
/// Times are integer nanoseconds (the JSON's microseconds converted exactly). A field
/// that is present with a value of the wrong type is not lost: the reader leaves the
/// typed field empty, records a `bad_field` diagnostic and keeps the pair in `extra`,
/// so writing the event back reproduces it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Event<'a> {
    /// The phase, the whole string (`"X"`, `"b"`, `"XXX"`); `None` when absent.
    pub ph: Option<Cow<'a, str>>,
    pub name: Option<Cow<'a, str>>,
    pub cat: Option<Cow<'a, str>>,
    pub ts: Option<i64>,
    pub dur: Option<i64>,
    pub tts: Option<i64>,
    pub tdur: Option<i64>,
    pub pid: Option<Pid<'a>>,
    pub tid: Option<Pid<'a>>,
    pub id: Option<Id<'a>>,
    pub id2: Option<Id2<'a>>,
    pub scope: Option<Cow<'a, str>>,
    /// Instant scope `s`.
    pub s: Option<Cow<'a, str>>,
    /// Flow binding point `bp`.
    pub bp: Option<Cow<'a, str>>,
    pub bind_id: Option<Id<'a>>,
    pub flow_in: Option<bool>,
    pub flow_out: Option<bool>,
    pub cname: Option<Cow<'a, str>>,
    pub sf: Option<Id<'a>>,
    pub esf: Option<Id<'a>>,
    pub stack: Option<RawJson<'a>>,
    pub estack: Option<RawJson<'a>>,
    pub args: Option<RawJson<'a>>,
    /// `args` still encoded as the input holds them (`args` is then `None`): see
    /// [`EncodedArgs`]; [`Event::args_text`] gives the text either way.
    pub encoded_args: Option<EncodedArgs<'a>>,
    /// Fields the format does not define (and defined ones with unusable values),
    /// in the order they were read.
    pub extra: Vec<(Cow<'a, str>, RawJson<'a>)>,
    /// Byte offset of the event in its input (decompressed JSON text, or the record
    /// position for binary formats). Orders events of equal time by file order.
    pub offset: u64,
}

impl<'a> Event<'a> {
    pub fn ph_str(&self) -> &str {
        self.ph.as_deref().unwrap_or("")
    }

    /// The `args` text: as read, or made now from [`Event::encoded_args`].
    pub fn args_text(&self) -> Option<Cow<'_, str>> {
        match (&self.args, &self.encoded_args) {
            (Some(a), _) => Some(Cow::Borrowed(&a.text)),
            (None, Some(e)) => e.to_json().map(Cow::Owned),
            (None, None) => None,
        }
    }

    /// Copies every borrowed part so the event outlives its input.
    pub fn into_owned(self) -> Event<'static> {
        fn s(c: Option<Cow<'_, str>>) -> Option<Cow<'static, str>> {
            c.map(|c| Cow::Owned(c.into_owned()))
        }
        Event {
            ph: s(self.ph),
            name: s(self.name),
            cat: s(self.cat),
            ts: self.ts,
            dur: self.dur,
            tts: self.tts,
            tdur: self.tdur,
            pid: self.pid.map(Pid::into_owned),
            tid: self.tid.map(Pid::into_owned),
            id: self.id.map(Id::into_owned),
            id2: self.id2.map(Id2::into_owned),
            scope: s(self.scope),
            s: s(self.s),
            bp: s(self.bp),
            bind_id: self.bind_id.map(Id::into_owned),
            flow_in: self.flow_in,
            flow_out: self.flow_out,
            cname: s(self.cname),
            sf: self.sf.map(Id::into_owned),
            esf: self.esf.map(Id::into_owned),
            stack: self.stack.map(RawJson::into_owned),
            estack: self.estack.map(RawJson::into_owned),
            args: match (self.args, self.encoded_args) {
                (Some(a), _) => Some(a.into_owned()),
                (None, Some(e)) => e.to_json().map(RawJson::owned),
                (None, None) => None,
            },
            encoded_args: None,
            extra: self
                .extra
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k.into_owned()), v.into_owned()))
                .collect(),
            offset: self.offset,
        }
    }
}
