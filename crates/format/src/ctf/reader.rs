//! Reads CTF traces into events: Chrome's layout (written by tracescope or
//! rewritten by babeltrace2) back into the exact events, any other event class as a
//! generic event (see [`super::generic`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs;
use std::path::Path;

use rayon::prelude::*;

use super::decode::{Decoder, Val};
use super::fast::{decode_packet, detect, split_packets, FastLayout};
use super::files::{FileBytes, StreamFile};
use super::fill::fill;
use super::generic::generic_event;
use super::index::{RecordIndex, INDEX_FILE};
use super::metadata::{metadata_text, search};
use super::order::{self, Decoded};
use super::runs::{fast_runs, CtfRuns};
use super::tsdl::parse_metadata;
use super::types::{Clock, EventClass, IntType, Metadata, StreamClass, Type};
use super::writer::CTF_MAGIC;
use super::CtfError;
use crate::etw::{from_chrome, ChromePayload, ChromeType};
use crate::{DiagKind, Diagnostics, Event};

/// Reads every trace at or under `path` into events that own their strings: for
/// callers that keep the events past the files. [`open_dir`] and
/// [`CtfFiles::events`] read without copying names and categories.
pub fn read_dir(path: &Path) -> Result<(Vec<Event<'static>>, Diagnostics), CtfError> {
    let files = open_dir(path)?;
    let (events, diags) = files.events()?;
    Ok((events.into_iter().map(Event::into_owned).collect(), diags))
}

/// The files of the CTF traces at or under a path (one trace directory, or e.g. an
/// LTTng session holding `kernel/` and `ust/` traces), large stream files mapped.
pub struct CtfFiles {
    traces: Vec<TraceFiles>,
}

struct TraceFiles {
    metadata: Vec<u8>,
    /// The record index beside the streams ([`INDEX_FILE`]), read when the runs
    /// are made (not held through the load).
    index: std::path::PathBuf,
    /// Stream files by name, in name order.
    streams: Vec<(String, StreamFile)>,
}

/// Opens every trace at or under `path`; [`CtfFiles::events`] decodes them.
pub fn open_dir(path: &Path) -> Result<CtfFiles, CtfError> {
    let found = search(path);
    if found.traces.is_empty() {
        return Err(match found.rejected.into_iter().next() {
            Some((p, reason)) => CtfError::NotMetadata {
                path: p.display().to_string(),
                reason,
            },
            None => CtfError::NotCtf(path.display().to_string()),
        });
    }
    let traces = found
        .traces
        .iter()
        .map(|d| open_trace(d))
        .collect::<Result<_, _>>()?;
    Ok(CtfFiles { traces })
}

impl CtfFiles {
    /// The size of the metadata and stream files, in bytes.
    pub fn bytes(&self) -> u64 {
        let trace = |t: &TraceFiles| {
            t.metadata.len()
                + t.streams
                    .iter()
                    .map(|(_, s)| s.bytes().len())
                    .sum::<usize>()
        };
        self.traces.iter().map(|t| trace(t) as u64).sum()
    }

    /// The events as runs decoded on demand ([`CtfRuns`]), when the files are one
    /// trace in tracescope's own layout whose every packet the fast path reads;
    /// `None` otherwise, and [`CtfFiles::events`] reads them (with the general
    /// decoder's diagnostics). Both give the same events in the same order.
    pub fn runs(&self) -> Option<CtfRuns<'_>> {
        let [t] = self.traces.as_slice() else {
            return None;
        };
        let streams: Vec<(&[u8], Option<&std::fs::File>)> = t
            .streams
            .iter()
            .map(|(_, d)| (d.bytes(), d.0.mapped_file()))
            .collect();
        let files = t.streams.iter().map(|(_, d)| d.clone()).collect();
        // Opened here: its records are read straight into the runs.
        let index = fs::File::open(&t.index).ok().and_then(RecordIndex::open);
        fast_runs(&t.metadata, &streams, index).map(|r| r.of_files(files))
    }

    /// Decodes every trace: events in input order (by time across traces), names,
    /// categories and other strings borrowed from the files where they are valid
    /// UTF-8, and what the reader repaired or skipped.
    pub fn events(&self) -> Result<(Vec<Event<'_>>, Diagnostics), CtfError> {
        let mut diags = Diagnostics::new();
        let mut events = Vec::new();
        for t in &self.traces {
            let refs: Vec<(&str, &[u8])> = t
                .streams
                .iter()
                .map(|(n, d)| (n.as_str(), d.bytes()))
                .collect();
            let mut more = read_trace_bytes(&t.metadata, &refs, &mut diags)?;
            if events.is_empty() {
                // Events are large: take the first trace's vector rather than copy it.
                events = more;
            } else {
                events.append(&mut more);
            }
        }
        if self.traces.len() > 1 {
            events.sort_by_key(|e| e.ts);
        }
        Ok((events, diags))
    }
}

fn open_trace(dir: &Path) -> Result<TraceFiles, CtfError> {
    let io = |e: std::io::Error, p: &Path| CtfError::Io(format!("{}: {e}", p.display()));
    let meta_path = dir.join("metadata");
    let metadata = fs::read(&meta_path).map_err(|e| io(e, &meta_path))?;
    let mut files: Vec<_> = fs::read_dir(dir)
        .map_err(|e| io(e, dir))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && p.file_name()
                    .is_some_and(|n| n != "metadata" && !n.to_string_lossy().starts_with('.'))
        })
        .collect();
    files.sort();
    // Each real file once: a link to a stream beside it would read its events twice.
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| fs::canonicalize(f).is_ok_and(|real| seen.insert(real)));
    let mut streams = Vec::with_capacity(files.len());
    for f in &files {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let bytes = FileBytes::open(f).map_err(|e| io(e, f))?;
        streams.push((name, StreamFile(std::sync::Arc::new(bytes))));
    }
    Ok(TraceFiles {
        metadata,
        index: dir.join(INDEX_FILE),
        streams,
    })
}

/// Reads one trace from memory: its metadata file and its stream files (name,
/// bytes). The events borrow from the stream bytes.
pub fn read_trace_bytes<'a>(
    metadata: &[u8],
    streams: &[(&str, &'a [u8])],
    diags: &mut Diagnostics,
) -> Result<Vec<Event<'a>>, CtfError> {
    let meta = parse_metadata(&metadata_text(metadata)?)?;
    let classes: HashMap<(u64, u64), &EventClass> = meta
        .events
        .iter()
        .map(|e| ((e.stream_id, e.id), e))
        .collect();
    let fast = detect(&meta);
    let mut out = Decoded {
        all_seq: true,
        ..Decoded::default()
    };
    for (name, data) in streams {
        match &fast {
            Some(layout) => read_stream_fast(&meta, &classes, layout, data, name, &mut out, diags),
            None => read_stream(&meta, &classes, data, name, 0, false, &mut out, diags),
        }
    }
    Ok(order::in_order(out))
}

/// Reads a stream in tracescope's layout: sound packets by the fast path in
/// parallel, the others (and everything after a broken header) by the generic one.
fn read_stream_fast<'a>(
    meta: &Metadata,
    classes: &HashMap<(u64, u64), &EventClass>,
    layout: &FastLayout,
    data: &'a [u8],
    file: &str,
    out: &mut Decoded<'a>,
    diags: &mut Diagnostics,
) {
    let (packets, rest) = split_packets(data);
    if !fill(out, data, &packets, layout) {
        // Some packet is not as written: per-packet vectors, the generic decoder for
        // those the fast path rejects.
        let decoded: Vec<_> = packets
            .par_iter()
            .map(|&p| {
                let mut v = (Vec::new(), Vec::new());
                decode_packet(data, p, layout, &mut v).map(|()| v)
            })
            .collect();
        for (p, d) in packets.iter().zip(decoded) {
            match d {
                Some((mut events, mut seqs)) => {
                    out.events.append(&mut events);
                    out.seqs.append(&mut seqs);
                }
                None => read_stream(meta, classes, data, file, p.pos, true, out, diags),
            }
        }
    }
    if let Some(pos) = rest {
        read_stream(meta, classes, data, file, pos, false, out, diags);
    }
}

fn update_clock(clock: &mut u64, v: u64, size: u32) {
    if size >= 64 {
        *clock = v;
        return;
    }
    // A shorter timestamp holds the low bits; it wrapped if below the current ones.
    let mask = (1u64 << size) - 1;
    let mut c = (*clock & !mask) | (v & mask);
    if (v & mask) < (*clock & mask) {
        c = c.wrapping_add(1u64 << size);
    }
    *clock = c;
}

/// A timestamp-like field of the compound at `at`: its value and integer type.
fn clock_field<'t>(
    d: &Decoder<'_, 't>,
    at: (&'t Type, u32),
    name: &str,
) -> Option<(u64, &'t IntType)> {
    let (ty, slot) = d.find_last(at, name)?;
    match ty {
        Type::Int(i) => Some((d.uint(slot)?, i)),
        _ => None,
    }
}

/// Decodes the packets of a stream file from byte `start` (a packet start): all of
/// them, or with `one` only the first.
#[allow(clippy::too_many_arguments)]
fn read_stream<'a>(
    meta: &Metadata,
    classes: &HashMap<(u64, u64), &EventClass>,
    data: &'a [u8],
    file: &str,
    start: u64,
    one: bool,
    out: &mut Decoded<'a>,
    diags: &mut Diagnostics,
) {
    let default_stream = StreamClass::default();
    let domain = meta.env("domain").unwrap_or("ctf").to_string();
    let mut d = Decoder::new(data, meta.byte_order);
    let mut pos = start; // packet start, bytes
    let mut clock_value = 0u64;
    let mut clock: &Clock = meta.clock(None).unwrap_or(&DEFAULT_CLOCK);
    let at = |bit: u64| bit / 8;
    let total = data.len() as u64;
    while pos < total {
        d.vals.clear();
        d.scopes = [None; 6];
        d.pos = pos * 8;
        d.end = total * 8;
        let fail = |diags: &mut Diagnostics, e: super::decode::DecodeError| {
            diags.add(DiagKind::SyntaxError, at(e.bit), || {
                format!("{file}: byte {}: {}", at(e.bit), e.message)
            });
        };
        if let Some(h) = &meta.packet_header {
            match d.root(h) {
                Ok(s) => d.scopes[0] = Some((h, s)),
                Err(e) => return fail(diags, e),
            }
        }
        let header = d.scopes[0];
        let field = |d: &Decoder<'_, '_>, sc: Option<(&Type, u32)>, n: &str| {
            sc.and_then(|sc| d.child(sc.0, sc.1, n))
                .and_then(|(_, s)| d.uint(s))
        };
        if let Some(m) = field(&d, header, "magic") {
            if m != u64::from(CTF_MAGIC) {
                diags.add(DiagKind::SyntaxError, pos, || {
                    format!("{file}: packet at byte {pos} has magic {m:#x}, not 0xc1fc1fc1")
                });
                return;
            }
        }
        let sid = field(&d, header, "stream_id")
            .unwrap_or_else(|| meta.streams.first().map_or(0, |s| s.id));
        let stream = meta
            .streams
            .iter()
            .find(|s| s.id == sid)
            .unwrap_or(&default_stream);
        if let Some(pc) = &stream.packet_context {
            match d.root(pc) {
                Ok(s) => d.scopes[1] = Some((pc, s)),
                Err(e) => return fail(diags, e),
            }
        }
        let ctx = d.scopes[1];
        let packet_bits = field(&d, ctx, "packet_size").unwrap_or((total - pos) * 8);
        let content_bits = field(&d, ctx, "content_size").unwrap_or(packet_bits);
        if packet_bits < 8
            || content_bits > packet_bits
            || packet_bits % 8 != 0
            || content_bits < d.pos - pos * 8
        {
            diags.add(DiagKind::SyntaxError, pos, || {
                format!("{file}: packet at byte {pos} has content size {content_bits} and packet size {packet_bits} bits")
            });
            return;
        }
        if pos + packet_bits / 8 > total {
            diags.add(DiagKind::Truncated, pos, || {
                format!(
                    "{file}: packet at byte {pos} of {} bytes is cut off at {total}",
                    packet_bits / 8
                )
            });
        }
        d.end = (pos * 8 + content_bits).min(total * 8);
        if let Some(c) = ctx {
            if let Some((v, t)) = clock_field(&d, c, "timestamp_begin") {
                clock = meta.clock(t.clock.as_deref()).unwrap_or(clock);
                clock_value = v;
            }
        }
        let mark = d.vals.len();
        while d.pos < d.end {
            d.vals.truncate(mark);
            d.scopes[2..].iter_mut().for_each(|s| *s = None);
            let ev_bit = d.pos;
            let ev_start = ev_bit / 8;
            match read_event(&mut d, stream, classes, &mut clock_value, &mut clock, meta) {
                // An event that reads no bits (no header, no fields) would be read
                // again at the same place for ever: the rest of the packet is lost.
                Ok((class, _)) if d.pos == ev_bit => {
                    fail(diags, d.err(format!(
                        "event class `{}` reads no bytes, so its events cannot be told apart; the rest of the packet is skipped",
                        class.name
                    )));
                    break;
                }
                Ok((class, ts)) => {
                    if let Some((event, seq)) = to_event(&d, class, ts, ev_start, &domain) {
                        out.push(event, seq);
                    }
                }
                Err(e) => {
                    fail(diags, e);
                    break;
                }
            }
        }
        pos += packet_bits / 8;
        if one {
            return;
        }
    }
}

static DEFAULT_CLOCK: Clock = Clock {
    name: String::new(),
    freq: 1_000_000_000,
    offset_s: 0,
    offset: 0,
};

fn read_event<'a, 't>(
    d: &mut Decoder<'a, 't>,
    stream: &'t StreamClass,
    classes: &HashMap<(u64, u64), &'t EventClass>,
    clock_value: &mut u64,
    clock: &mut &'t Clock,
    meta: &'t Metadata,
) -> Result<(&'t EventClass, i64), super::decode::DecodeError> {
    let mut id = 0;
    if let Some(h) = &stream.event_header {
        let s = d.root(h)?;
        d.scopes[2] = Some((h, s));
        if let Some((_, slot)) = d.find_last((h, s), "id") {
            id = d.uint(slot).unwrap_or(0);
        }
        if let Some((v, t)) = clock_field(d, (h, s), "timestamp") {
            *clock = meta.clock(t.clock.as_deref()).unwrap_or(clock);
            update_clock(clock_value, v, t.size);
        }
    }
    let ts = clock.to_ns(*clock_value);
    if let Some(c) = &stream.event_context {
        let s = d.root(c)?;
        d.scopes[3] = Some((c, s));
    }
    let class = match classes.get(&(stream.id, id)) {
        Some(c) => *c,
        None => {
            return Err(d.err(format!(
                "no event class has id {id} in stream {}",
                stream.id
            )))
        }
    };
    if let Some(c) = &class.context {
        let s = d.root(c)?;
        d.scopes[4] = Some((c, s));
    }
    if let Some(f) = &class.fields {
        let s = d.root(f)?;
        d.scopes[5] = Some((f, s));
    }
    Ok((class, ts))
}

fn str_of<'a>(d: &Decoder<'a, '_>, at: Option<(&Type, u32)>) -> Option<Cow<'a, str>> {
    match d.vals.get(at?.1 as usize)? {
        Val::Str(s) => Some(String::from_utf8_lossy(s)),
        _ => None,
    }
}

/// The Chrome payload of the decoded event, when its class has that layout.
fn chrome_payload<'a>(d: &Decoder<'a, '_>, class: &EventClass) -> Option<ChromePayload<'a>> {
    let ty = ChromeType::from_name(class.name.strip_prefix("Chrome")?)?;
    let f = d.scopes[5]?;
    let name = str_of(d, d.child(f.0, f.1, "name"))?;
    let id = d.uint(d.child(f.0, f.1, "id")?.1)?;
    let categories = str_of(d, d.child(f.0, f.1, "categories"))?;
    let mut args = Vec::new();
    if let Some((aty, aslot)) = d.child(f.0, f.1, "arguments") {
        let (Type::Array { elem, .. }, Val::Kids { start, len }) = (aty, d.vals[aslot as usize])
        else {
            return None;
        };
        for i in 0..len {
            let k = str_of(d, d.child(elem, start + i, "arg_name"))?;
            let v = str_of(d, d.child(elem, start + i, "arg_value"))?;
            args.push((k, v));
        }
    }
    let stack = match d.child(f.0, f.1, "stack") {
        Some((_, sslot)) => {
            let Val::Kids { start, len } = d.vals[sslot as usize] else {
                return None;
            };
            Some(
                (start..start + len)
                    .map(|s| d.uint(s))
                    .collect::<Option<Vec<u64>>>()?,
            )
        }
        None => None,
    };
    Some(ChromePayload {
        ty,
        name,
        id,
        categories,
        args,
        stack,
    })
}

fn ctx_value(d: &Decoder<'_, '_>, name: &str) -> Option<u32> {
    [4, 3].iter().find_map(|&k| {
        d.scopes[k]
            .and_then(|sc| d.child(sc.0, sc.1, name))
            .map(|(_, s)| s)
    })
}

fn to_event<'a>(
    d: &Decoder<'a, '_>,
    class: &EventClass,
    ts: i64,
    offset: u64,
    domain: &str,
) -> Option<(Event<'a>, Option<u64>)> {
    if let Some(p) = chrome_payload(d, class) {
        let pid = ctx_value(d, "pid")
            .and_then(|s| d.int_value(s))
            .unwrap_or(0);
        let tid = ctx_value(d, "tid")
            .and_then(|s| d.int_value(s))
            .unwrap_or(0);
        let seq = ctx_value(d, "seq").and_then(|s| d.uint(s));
        // `None` for the End half of an X, which its Begin already holds.
        return from_chrome(p, ts, pid, tid, offset).map(|event| (event, seq));
    }
    Some((generic_event(d, &class.name, domain, ts, offset), None))
}
