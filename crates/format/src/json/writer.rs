//! [`JsonWriter`]: streams events out as a strict JSON trace in the object form, one
//! event per line, losing no field: what the reader kept (unknown keys, values of the
//! wrong type in `extra`, raw `args`) is written back as it was read.

use std::borrow::Cow;
use std::io::{self, BufWriter, Write};

use super::value::{compact, write_string};
use super::JsonTrace;
use crate::time::ns_to_micros_text;
use crate::{Event, Id, Id2, Pid, RawJson};

/// Everything of a trace that is written after the event list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trailer<'a> {
    /// Top-level keys in order (`displayTimeUnit`, `metadata`, `otherData`, ...).
    pub metadata: Vec<(Cow<'a, str>, RawJson<'a>)>,
    pub stack_frames: Option<RawJson<'a>>,
    pub samples: Option<RawJson<'a>>,
    pub system_trace_events: Option<RawJson<'a>>,
}

impl<'a, S> JsonTrace<'a, S> {
    /// The parts of the trace a writer puts after the events (cheap: borrowed text).
    pub fn trailer(&self) -> Trailer<'a> {
        Trailer {
            metadata: self.metadata.clone(),
            stack_frames: self.stack_frames.clone(),
            samples: self.samples.clone(),
            system_trace_events: self.system_trace_events.clone(),
        }
    }
}

/// Writes `{"traceEvents":[` ... `]` + trailer + `}`. Output is buffered inside, so
/// any `Write` (a file, a socket) can be given as it is.
///
/// An event with no field at all is written as `{}`, which a reader skips: there is
/// nothing in it to keep.
pub struct JsonWriter<W: Write> {
    out: BufWriter<W>,
    line: String,
    events: u64,
}

impl<W: Write> JsonWriter<W> {
    pub fn new(w: W) -> io::Result<Self> {
        let mut out = BufWriter::with_capacity(1 << 16, w);
        out.write_all(b"{\"traceEvents\":[")?;
        Ok(JsonWriter {
            out,
            line: String::with_capacity(512),
            events: 0,
        })
    }

    /// Events written so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    pub fn write_event(&mut self, ev: &Event<'_>) -> io::Result<()> {
        self.line.clear();
        self.line
            .push_str(if self.events == 0 { "\n" } else { ",\n" });
        write_event(ev, &mut self.line);
        self.events += 1;
        self.out.write_all(self.line.as_bytes())
    }

    /// Closes the event list, writes the trailer and returns the inner writer, flushed.
    pub fn finish(mut self, trailer: &Trailer<'_>) -> io::Result<W> {
        let mut s = String::from("\n]");
        for (key, value) in &trailer.metadata {
            member(&mut s, key, value);
        }
        let named = [
            ("stackFrames", &trailer.stack_frames),
            ("samples", &trailer.samples),
            ("systemTraceEvents", &trailer.system_trace_events),
        ];
        for (key, value) in named {
            if let Some(v) = value {
                member(&mut s, key, v);
            }
        }
        s.push_str("}\n");
        self.out.write_all(s.as_bytes())?;
        self.out.into_inner().map_err(|e| e.into_error())
    }
}

fn member(s: &mut String, key: &str, value: &RawJson<'_>) {
    s.push_str(",\n");
    write_string(key, s);
    s.push(':');
    write_raw(value, s);
}

/// A raw value as strict JSON on one line: verbatim when it is clean and holds no
/// control byte (no newline, no raw tab in a string), else re-written compactly.
fn write_raw(v: &RawJson<'_>, out: &mut String) {
    if v.clean && !v.text.bytes().any(|b| b < 0x20) {
        out.push_str(&v.text);
    } else {
        out.push_str(&compact(&v.text));
    }
}

/// Writes one event object (fields in a fixed order, then `extra` as read).
pub fn write_event(ev: &Event<'_>, out: &mut String) {
    let mut w = Obj { out, empty: true };
    w.str("ph", &ev.ph);
    w.str("name", &ev.name);
    w.str("cat", &ev.cat);
    w.time("ts", ev.ts);
    w.time("dur", ev.dur);
    w.time("tts", ev.tts);
    w.time("tdur", ev.tdur);
    w.pid("pid", &ev.pid);
    w.pid("tid", &ev.tid);
    w.id("id", &ev.id);
    if let Some(id2) = &ev.id2 {
        let (kind, id) = match id2 {
            Id2::Local(id) => ("local", id),
            Id2::Global(id) => ("global", id),
        };
        w.key("id2");
        w.out.push('{');
        write_string(kind, w.out);
        w.out.push(':');
        write_id(id, w.out);
        w.out.push('}');
    }
    w.str("scope", &ev.scope);
    w.str("s", &ev.s);
    w.str("bp", &ev.bp);
    w.id("bind_id", &ev.bind_id);
    w.bool("flow_in", ev.flow_in);
    w.bool("flow_out", ev.flow_out);
    w.str("cname", &ev.cname);
    w.id("sf", &ev.sf);
    w.id("esf", &ev.esf);
    w.raw("stack", &ev.stack);
    w.raw("estack", &ev.estack);
    w.raw("args", &ev.args);
    for (k, v) in &ev.extra {
        w.key(k);
        write_raw(v, w.out);
    }
    w.out.push_str(if w.empty { "{}" } else { "}" });
}

fn write_id(id: &Id<'_>, out: &mut String) {
    use std::fmt::Write;
    match id {
        Id::Int(v) => {
            let _ = write!(out, "{v}");
        }
        Id::Str(s) => write_string(s, out),
    }
}

/// The members of one object being written.
struct Obj<'o> {
    out: &'o mut String,
    empty: bool,
}

impl Obj<'_> {
    fn key(&mut self, k: &str) {
        self.out.push(if self.empty { '{' } else { ',' });
        self.empty = false;
        write_string(k, self.out);
        self.out.push(':');
    }

    fn str(&mut self, k: &str, v: &Option<Cow<'_, str>>) {
        if let Some(v) = v {
            self.key(k);
            write_string(v, self.out);
        }
    }

    fn time(&mut self, k: &str, v: Option<i64>) {
        if let Some(ns) = v {
            self.key(k);
            ns_to_micros_text(ns, self.out);
        }
    }

    fn pid(&mut self, k: &str, v: &Option<Pid<'_>>) {
        use std::fmt::Write;
        match v {
            Some(Pid::Int(n)) => {
                self.key(k);
                let _ = write!(self.out, "{n}");
            }
            Some(Pid::Str(s)) => {
                self.key(k);
                write_string(s, self.out);
            }
            None => {}
        }
    }

    fn id(&mut self, k: &str, v: &Option<Id<'_>>) {
        if let Some(id) = v {
            self.key(k);
            write_id(id, self.out);
        }
    }

    fn bool(&mut self, k: &str, v: Option<bool>) {
        if let Some(b) = v {
            self.key(k);
            self.out.push_str(if b { "true" } else { "false" });
        }
    }

    fn raw(&mut self, k: &str, v: &Option<RawJson<'_>>) {
        if let Some(v) = v {
            self.key(k);
            write_raw(v, self.out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Int64;

    #[test]
    fn fixed_field_order_and_exact_text() {
        let ev = Event {
            extra: vec![
                ("zz".into(), RawJson::borrowed("[1, 2]")),
                ("a".into(), RawJson::borrowed("{\"k\":\n1}")),
            ],
            args: Some(RawJson {
                text: "{\"x\":1,}".into(),
                clean: false,
            }),
            tid: Some(Pid::Str("main".into())),
            pid: Some(Pid::Int(Int64::U(u64::MAX))),
            ts: Some(-1500),
            name: Some("q\"".into()),
            ph: Some("X".into()),
            id2: Some(Id2::Global(Id::Str("0x1".into()))),
            flow_in: Some(true),
            ..Event::default()
        };
        let mut s = String::new();
        write_event(&ev, &mut s);
        assert_eq!(
            s,
            r#"{"ph":"X","name":"q\"","ts":-1.5,"pid":18446744073709551615,"tid":"main","id2":{"global":"0x1"},"flow_in":true,"args":{"x":1},"zz":[1, 2],"a":{"k":1}}"#
        );
        let mut s = String::new();
        write_event(&Event::default(), &mut s);
        assert_eq!(s, "{}");
    }

    #[test]
    fn whole_trace() {
        let mut w = JsonWriter::new(Vec::new()).unwrap();
        w.write_event(&Event {
            ph: Some("B".into()),
            ..Event::default()
        })
        .unwrap();
        w.write_event(&Event {
            ph: Some("E".into()),
            ts: Some(1),
            ..Event::default()
        })
        .unwrap();
        let trailer = Trailer {
            metadata: vec![("displayTimeUnit".into(), RawJson::borrowed("\"ns\""))],
            system_trace_events: Some(RawJson::borrowed("\"x\"")),
            ..Trailer::default()
        };
        let out = String::from_utf8(w.finish(&trailer).unwrap()).unwrap();
        assert_eq!(
            out,
            "{\"traceEvents\":[\n{\"ph\":\"B\"},\n{\"ph\":\"E\",\"ts\":0.001}\n],\n\"displayTimeUnit\":\"ns\",\n\"systemTraceEvents\":\"x\"}\n"
        );
    }
}
