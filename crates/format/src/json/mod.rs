//! The JSON codec: a tolerant, parallel reader and a streaming writer.
//!
//! Reading follows `docs/reading-rules.md` sections 1 and 2: array and object forms,
//! truncated input, trailing commas, JSONC comments, `{}` elements, bare event lists,
//! raw `.cpuprofile` documents. Every repair is a [`Diagnostic`](crate::Diagnostic);
//! only text that holds no trace at all is a [`ReadError`].
//!
//! Entry points: [`read_json`] (parts read in parallel, one sink each, the same result
//! as a sequential read), [`read_events`] (one pass into a closure) and [`JsonWriter`].
//! Offsets count bytes of the text given to the reader (with
//! [`Source`](crate::Source), its `text()`). Layout: `lexer` scans bytes, `fields`
//! reads one event, `list` reads a run of the event list with recovery, `parallel`
//! cuts the list into parts, `reader` handles the document around it, `writer` writes.

use std::borrow::Cow;

use crate::{Diagnostics, Event, RawJson};

mod early;
mod fields;
mod lexer;
mod list;
mod parallel;
mod reader;
mod starts;
pub mod value;
pub mod writer;

pub use early::{early_slots, read_early, CheckedBytes, EarlyParts};
pub use lexer::Prefix;
pub use reader::{read_events, read_json, read_json_after};
pub use value::{Cursor, Value};
pub use writer::{JsonWriter, Trailer};

/// Receives the events of one contiguous part of the event list, in file order.
///
/// The reader creates one sink per part (with the factory given to [`read_json`]) and
/// may fill several at once on different threads; the parts come back in file order.
pub trait EventSink<'a> {
    fn event(&mut self, event: Event<'a>, diags: &mut Diagnostics);

    /// Receives an event in the reader's own slot, which must be left empty
    /// (`Event::default()`) for the next one. The default moves it to
    /// [`event`](Self::event); a sink that only reads the event can take it by
    /// reference and save moving the large `Event` once per event.
    #[inline]
    fn event_in_place(&mut self, event: &mut Event<'a>, diags: &mut Diagnostics) {
        self.event(std::mem::take(event), diags)
    }

    /// Called once the part's last event has been given, with the bytes of the text
    /// the part covered: a sink that keeps only offsets into a mapped file can hand
    /// those pages back here with [`Source::release`](crate::Source::release).
    fn part_done(&mut self, bytes: std::ops::Range<usize>, diags: &mut Diagnostics) {
        let _ = (bytes, diags);
    }
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
