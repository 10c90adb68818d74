//! The document around the event list: which form the trace has, its metadata, and
//! the only errors that are fatal (input holding no trace at all).

use std::borrow::Cow;

use super::early::EarlyParts;
use super::lexer::{cow, excerpt, Fail, Lexer};
use super::list::{read_part, PartEnd, PartPlan};
use super::parallel::PartLists;
use super::value::{line_col, unescape};
use super::{EventSink, Form, JsonTrace, ReadError, ReadOptions};
use crate::{DiagKind, Diagnostics, Event, RawJson};

/// Reads a JSON trace. The event list is cut into parts of about
/// `opts.chunk_bytes`, each read into its own sink from `make_sink` (in parallel on
/// `opts.threads` threads), and `parts` holds the sinks in file order. Where parts
/// are cut depends only on the text and `chunk_bytes`, never on the thread count, so
/// every thread count gives the same parts, events and diagnostics.
///
/// A parallel read may call `make_sink` for guessed parts it then drops unused.
pub fn read_json<'a, S, F>(
    text: &'a str,
    make_sink: F,
    opts: &ReadOptions,
) -> Result<JsonTrace<'a, S>, ReadError>
where
    S: EventSink<'a> + Send,
    F: Fn() -> S + Sync,
{
    read_json_after(text, make_sink, opts, None)
}

/// [`read_json`], using the parts [`read_early`](super::read_early) read from this
/// same text while it was arriving (parts that do not fit are read again).
pub fn read_json_after<'a, S, F>(
    text: &'a str,
    make_sink: F,
    opts: &ReadOptions,
    early: Option<EarlyParts<S>>,
) -> Result<JsonTrace<'a, S>, ReadError>
where
    S: EventSink<'a> + Send,
    F: Fn() -> S + Sync,
{
    let mut lists = PartLists::new(&make_sink, opts, early);
    let doc = read_document(text, &mut lists)?;
    Ok(doc.into_trace(lists.parts))
}

/// Reads a JSON trace in one pass on this thread, handing each event to `f` in file
/// order. The result's `parts` is empty: the events went to `f`.
pub fn read_events<'a, F>(text: &'a str, mut f: F) -> Result<JsonTrace<'a, ()>, ReadError>
where
    F: FnMut(Event<'a>, &mut Diagnostics),
{
    let mut lists = |text: &'a str, start: usize, closer: Option<u8>| {
        let plan = PartPlan {
            start,
            closer,
            stop_at: usize::MAX,
            speculative: false,
        };
        let part = read_part(text, plan, &mut f);
        ListOutcome {
            end: part.end,
            events: part.events,
            diags: part.diags,
        }
    };
    Ok(read_document(text, &mut lists)?.into_trace(Vec::new()))
}

/// What reading one event list gave.
pub(crate) struct ListOutcome {
    /// `Closed`, `Truncated` or `Lost`.
    pub end: PartEnd,
    pub events: u64,
    pub diags: Diagnostics,
}

/// Reads an event list that starts at `start` (just after `[`, or at the first
/// object of a bare list when `closer` is `None`).
pub(crate) trait Lists<'a> {
    fn read_list(&mut self, text: &'a str, start: usize, closer: Option<u8>) -> ListOutcome;
}

impl<'a, F: FnMut(&'a str, usize, Option<u8>) -> ListOutcome> Lists<'a> for F {
    fn read_list(&mut self, text: &'a str, start: usize, closer: Option<u8>) -> ListOutcome {
        self(text, start, closer)
    }
}

/// Everything but the sinks.
struct Doc<'a> {
    form: Form,
    events: u64,
    metadata: Vec<(Cow<'a, str>, RawJson<'a>)>,
    stack_frames: Option<RawJson<'a>>,
    samples: Option<RawJson<'a>>,
    system_trace_events: Option<RawJson<'a>>,
    cpu_profile: Option<RawJson<'a>>,
    diags: Diagnostics,
}

impl<'a> Doc<'a> {
    fn new(form: Form, diags: Diagnostics) -> Self {
        Doc {
            form,
            events: 0,
            metadata: Vec::new(),
            stack_frames: None,
            samples: None,
            system_trace_events: None,
            cpu_profile: None,
            diags,
        }
    }

    fn add_list(&mut self, out: ListOutcome) -> PartEnd {
        self.events += out.events;
        self.diags.merge(out.diags);
        out.end
    }

    fn into_trace<S>(self, parts: Vec<S>) -> JsonTrace<'a, S> {
        JsonTrace {
            form: self.form,
            parts,
            events: self.events,
            metadata: self.metadata,
            stack_frames: self.stack_frames,
            samples: self.samples,
            system_trace_events: self.system_trace_events,
            cpu_profile: self.cpu_profile,
            diagnostics: self.diags,
        }
    }
}

fn fatal(text: &str, at: usize, message: &str) -> ReadError {
    let (line, column) = line_col(text, at);
    ReadError {
        message: message.to_string(),
        offset: at as u64,
        line,
        column,
    }
}

fn read_document<'a>(text: &'a str, lists: &mut dyn Lists<'a>) -> Result<Doc<'a>, ReadError> {
    let bom = if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let mut lx = Lexer::new(text, bom);
    lx.ws();
    match lx.peek() {
        None => Err(fatal(text, lx.pos, "no trace: the input is empty")),
        Some(b'[') => {
            let mut doc = Doc::new(Form::Array, std::mem::take(&mut lx.diags));
            if let PartEnd::Closed(end) =
                doc.add_list(lists.read_list(text, lx.pos + 1, Some(b']')))
            {
                trailing(&mut lx, &mut doc.diags, end);
            }
            Ok(doc)
        }
        Some(b'{') => object(text, lx, lists),
        Some(_) => Err(fatal(
            text,
            lx.pos,
            "no trace: expected a JSON array or object",
        )),
    }
}

/// After the trace's last value: anything but whitespace and comments is counted.
fn trailing(lx: &mut Lexer<'_>, diags: &mut Diagnostics, end: usize) {
    lx.pos = end;
    lx.ws();
    if lx.pos < lx.b.len() {
        lx.diag(DiagKind::TrailingContent, lx.pos);
    }
    diags.merge(std::mem::take(&mut lx.diags));
}

/// Why reading the members of the top-level object stopped.
enum Stop {
    /// At its `}`; the offset is just past it.
    Closed(usize),
    /// The event list ended it (truncated or lost; already reported).
    ListEnded,
    /// The input ended inside the member that starts here (or between members).
    Eof(usize),
    Syntax(usize),
}

impl Stop {
    fn from_fail(fail: Fail, member_start: usize) -> Stop {
        match fail {
            Fail::Eof => Stop::Eof(member_start),
            Fail::Syntax(at) => Stop::Syntax(at),
        }
    }
}

/// What the keys of a top-level object say it is.
#[derive(Default)]
struct Keys {
    trace_events: bool,
    /// `systemTraceEvents`, `samples` or `stackFrames`: a trace even without events.
    other_trace: bool,
    /// `nodes` holding an array or `head` holding an object: a raw `.cpuprofile`.
    profile: bool,
    /// `ph`: the object is itself an event.
    ph: bool,
}

impl Keys {
    fn any(&self) -> bool {
        self.trace_events || self.other_trace || self.profile || self.ph
    }
}

/// A top-level object: the object form, a raw `.cpuprofile`, or bare events.
fn object<'a>(
    text: &'a str,
    mut lx: Lexer<'a>,
    lists: &mut dyn Lists<'a>,
) -> Result<Doc<'a>, ReadError> {
    let open = lx.pos;
    // Comments before the `{`: kept apart, since a bare-events reading starts over.
    let leading = std::mem::take(&mut lx.diags);
    let mut doc = Doc::new(Form::Object, Diagnostics::new());
    let mut keys = Keys::default();
    lx.pos += 1;
    lx.dirty = false;
    let stop = 'members: loop {
        lx.ws();
        match lx.peek() {
            Some(b'"') => {}
            Some(b'}') => break Stop::Closed(lx.pos + 1),
            Some(_) => break Stop::Syntax(lx.pos),
            None => break Stop::Eof(text.len()),
        }
        let key_at = lx.pos;
        let key = match lx.string_str().and_then(|k| lx.expect(b':').map(|_| k)) {
            Ok((k, esc)) => cow(k, esc),
            Err(e) => break Stop::from_fail(e, key_at),
        };
        lx.ws();
        if key == "traceEvents" && lx.peek() == Some(b'[') {
            if keys.trace_events {
                lx.diag(DiagKind::DuplicateKey, key_at);
            }
            keys.trace_events = true;
            let out = lists.read_list(text, lx.pos + 1, Some(b']'));
            lx.diags.merge(out.diags);
            doc.events += out.events;
            match out.end {
                PartEnd::Closed(end) => lx.pos = end,
                // Truncated or lost: the list reader has said so.
                _ => break 'members Stop::ListEnded,
            }
        } else {
            let (at, raw, clean) = match lx.raw_value(1) {
                Ok(v) => v,
                Err(e) => break Stop::from_fail(e, key_at),
            };
            let value = RawJson {
                text: Cow::Borrowed(raw),
                clean,
            };
            member(&mut lx, &mut doc, &mut keys, key, key_at, at, value);
        }
        match lx.after_member(b'}') {
            Ok(true) => break Stop::Closed(lx.pos),
            Ok(false) => {}
            Err(e) => break Stop::from_fail(e, text.len()),
        }
    };
    let end = match stop {
        Stop::Closed(end) => Some(end),
        Stop::ListEnded => None,
        Stop::Eof(at) => {
            lx.diag(DiagKind::Truncated, at);
            None
        }
        Stop::Syntax(at) if keys.any() => {
            lx.diag(DiagKind::SyntaxError, at);
            None
        }
        Stop::Syntax(at) => return Err(fatal(text, at, "no trace: malformed JSON object")),
    };

    if !keys.trace_events && keys.profile {
        // A raw V8 profile: the whole document is the profile.
        let close = end.unwrap_or(text.len());
        let mut doc = Doc::new(Form::CpuProfile, leading);
        doc.cpu_profile = Some(RawJson {
            text: Cow::Borrowed(&text[open..close]),
            clean: !lx.dirty,
        });
        doc.diags.merge(lx.diags);
        if let Some(end) = end {
            trailing(&mut Lexer::new(text, end), &mut doc.diags, end);
        }
        return Ok(doc);
    }
    if !keys.trace_events && keys.ph {
        // The object is an event, maybe the first of several: read them as a list.
        let mut diags = leading;
        diags.add(DiagKind::BareEvents, open as u64, || {
            excerpt(text.as_bytes(), open)
        });
        let mut doc = Doc::new(Form::BareEvents, diags);
        if let PartEnd::Closed(end) = doc.add_list(lists.read_list(text, open, None)) {
            trailing(&mut Lexer::new(text, end), &mut doc.diags, end);
        }
        return Ok(doc);
    }
    if !keys.any() {
        return Err(fatal(
            text,
            open,
            "no trace: a JSON object without traceEvents, systemTraceEvents, samples, stackFrames, \
             a CPU profile's nodes, or an event's ph",
        ));
    }
    doc.diags = leading;
    doc.diags.merge(std::mem::take(&mut lx.diags));
    if let Some(end) = end {
        trailing(&mut lx, &mut doc.diags, end);
    }
    Ok(doc)
}

/// One top-level member other than an event list.
fn member<'a>(
    lx: &mut Lexer<'a>,
    doc: &mut Doc<'a>,
    keys: &mut Keys,
    key: Cow<'a, str>,
    key_at: usize,
    at: usize,
    value: RawJson<'a>,
) {
    let first = value.text.as_bytes().first().copied();
    let slot = match &*key {
        "stackFrames" => &mut doc.stack_frames,
        "samples" => &mut doc.samples,
        "systemTraceEvents" => {
            if first != Some(b'"') {
                lx.diag(DiagKind::NonStringSystemTrace, at);
            }
            &mut doc.system_trace_events
        }
        _ => {
            match &*key {
                "traceEvents" => lx.diag(DiagKind::BadField, at),
                "displayTimeUnit" => {
                    let unit = value
                        .text
                        .strip_prefix('"')
                        .and_then(|t| t.strip_suffix('"'))
                        .map(unescape);
                    if !matches!(unit.as_deref(), Some("ms" | "ns")) {
                        lx.diag(DiagKind::BadDisplayTimeUnit, at);
                    }
                }
                "nodes" => keys.profile |= first == Some(b'['),
                "head" => keys.profile |= first == Some(b'{'),
                "ph" => keys.ph = true,
                _ => {}
            }
            doc.metadata.push((key, value));
            return;
        }
    };
    keys.other_trace = true;
    if slot.is_some() {
        lx.diag(DiagKind::DuplicateKey, key_at);
    }
    *slot = Some(value);
}
