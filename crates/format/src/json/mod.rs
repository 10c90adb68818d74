//! The JSON codec: a tolerant, parallel reader and a streaming writer.
//!
//! Reading follows `spec/reading-rules.md` sections 1 and 2: array and object forms,
//! truncated input, trailing commas, JSONC comments, `{}` elements, bare event lists,
//! raw `.cpuprofile` documents. Every repair is a [`Diagnostic`](crate::Diagnostic);
//! only text that holds no trace at all is a [`ReadError`].

use std::borrow::Cow;

use crate::{Diagnostics, Event, RawJson};

mod fields;
mod lexer;
mod list;
mod parallel;
mod reader;
pub mod value;

pub use reader::{read_events, read_json};
pub use value::Value;

/// Receives the events of one contiguous part of the event list, in file order.
///
/// The reader creates one sink per part (with the factory given to [`read_json`]) and
/// may fill several at once on different threads; the parts come back in file order.
pub trait EventSink<'a> {
    fn event(&mut self, event: Event<'a>, diags: &mut Diagnostics);
}

impl<'a, F: FnMut(Event<'a>, &mut Diagnostics)> EventSink<'a> for F {
    fn event(&mut self, event: Event<'a>, diags: &mut Diagnostics) {
        self(event, diags)
    }
}

/// How the document held its events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `[ev, ...]`
    Array,
    /// `{"traceEvents": [...], ...}`
    Object,
    /// Events not inside any array (`{ev},{ev},`): read as a list, with a diagnostic.
    BareEvents,
    /// A raw V8 `.cpuprofile` (`nodes`/`samples`/`timeDeltas`, or the older `head` form).
    CpuProfile,
}

impl Form {
    pub fn as_str(self) -> &'static str {
        match self {
            Form::Array => "json-array",
            Form::Object => "json-object",
            Form::BareEvents => "json-bare-events",
            Form::CpuProfile => "cpuprofile",
        }
    }
}

/// Reader settings.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// Worker threads for the event list; 0 means one per core.
    pub threads: usize,
    /// Target size in bytes of the parts the event list is cut into.
    pub chunk_bytes: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            threads: 0,
            chunk_bytes: 8 << 20,
        }
    }
}

/// What [`read_json`] found: the sinks holding the events, and everything else.
pub struct JsonTrace<'a, S> {
    pub form: Form,
    /// One sink per part of the event list, in file order.
    pub parts: Vec<S>,
    /// Event objects read (`{}` elements not counted).
    pub events: u64,
    /// Top-level keys other than `traceEvents`, `stackFrames`, `samples` and
    /// `systemTraceEvents`, in file order, values as written (includes
    /// `displayTimeUnit`, `metadata`, `otherData`, ...).
    pub metadata: Vec<(Cow<'a, str>, RawJson<'a>)>,
    pub stack_frames: Option<RawJson<'a>>,
    pub samples: Option<RawJson<'a>>,
    pub system_trace_events: Option<RawJson<'a>>,
    /// The whole document when `form` is [`Form::CpuProfile`].
    pub cpu_profile: Option<RawJson<'a>>,
    pub diagnostics: Diagnostics,
}

/// An input that holds no trace at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} at line {line}, column {column} (byte offset {offset})")]
pub struct ReadError {
    pub message: String,
    pub offset: u64,
    /// 1-based.
    pub line: u64,
    /// 1-based, in characters.
    pub column: u64,
}

// TEMPORARY (not committed): lets the model be tested until the reader lands.
pub fn read_json<'a, S, F>(
    text: &'a str,
    make_sink: F,
    _opts: &ReadOptions,
) -> Result<JsonTrace<'a, S>, ReadError>
where
    S: EventSink<'a> + Send,
    F: Fn() -> S + Sync,
{
    use crate::id::{Id, Id2, Int64, Pid};
    let doc = Value::parse(text.trim_start_matches('\u{feff}'))?;
    let mut jt = JsonTrace {
        form: Form::Array,
        parts: vec![],
        events: 0,
        metadata: vec![],
        stack_frames: None,
        samples: None,
        system_trace_events: None,
        cpu_profile: None,
        diagnostics: Diagnostics::new(),
    };
    let evs: Vec<Value> = match &doc {
        Value::Array(a) => a.clone(),
        Value::Object(m) => {
            jt.form = Form::Object;
            let mut evs = vec![];
            for (k, v) in m {
                let raw = RawJson {
                    text: Cow::Owned(v.to_compact()),
                    clean: true,
                };
                match k.as_ref() {
                    "traceEvents" => evs = v.as_array().unwrap_or(&[]).to_vec(),
                    "stackFrames" => jt.stack_frames = Some(raw),
                    "samples" => jt.samples = Some(raw),
                    _ => jt.metadata.push((Cow::Owned(k.to_string()), raw)),
                }
            }
            evs
        }
        _ => vec![],
    };
    let mut sink = make_sink();
    let s = |v: Option<&Value>| {
        v.and_then(|v| v.as_str())
            .map(|s| Cow::Owned(s.to_string()))
    };
    let t = |v: Option<&Value>| match v {
        Some(Value::Number(n)) => crate::time::micros_text_to_ns(n),
        Some(Value::String(n)) => crate::time::micros_text_to_ns(n),
        _ => None,
    };
    let pid = |v: Option<&Value>| match v {
        Some(Value::Number(n)) => Int64::parse_number(n).map(Pid::Int),
        Some(Value::String(x)) => Some(Pid::from_str_value(Cow::Owned(x.to_string()))),
        _ => None,
    };
    let id = |v: Option<&Value>| match v {
        Some(Value::Number(n)) => Int64::parse(n).map(Id::Int),
        Some(Value::String(x)) => Some(Id::Str(Cow::Owned(x.to_string()))),
        _ => None,
    };
    let raw = |v: Option<&Value>| {
        v.map(|v| RawJson {
            text: Cow::Owned(v.to_compact()),
            clean: true,
        })
    };
    for (i, e) in evs.iter().enumerate() {
        if e.as_object().is_some_and(|o| o.is_empty()) {
            continue;
        }
        jt.events += 1;
        let g = |k| e.get(k);
        let ev = Event {
            ph: s(g("ph")),
            name: s(g("name")),
            cat: s(g("cat")),
            ts: t(g("ts")),
            dur: t(g("dur")),
            tts: t(g("tts")),
            tdur: t(g("tdur")),
            pid: pid(g("pid")),
            tid: pid(g("tid")),
            id: id(g("id")),
            id2: g("id2").and_then(|v| {
                id(v.get("local"))
                    .map(Id2::Local)
                    .or_else(|| id(v.get("global")).map(Id2::Global))
            }),
            scope: s(g("scope")),
            s: s(g("s")),
            bp: s(g("bp")),
            bind_id: id(g("bind_id")),
            flow_in: g("flow_in").and_then(|v| v.as_bool()),
            flow_out: g("flow_out").and_then(|v| v.as_bool()),
            cname: s(g("cname")),
            sf: id(g("sf")),
            esf: None,
            stack: raw(g("stack")),
            estack: None,
            args: raw(g("args")),
            extra: vec![],
            offset: i as u64 * 10,
        };
        sink.event(ev, &mut jt.diagnostics);
    }
    jt.parts.push(sink);
    Ok(jt)
}
