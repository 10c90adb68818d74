//! A JSON trace file that grows while it is viewed (`tracescope view --follow`).
//!
//! Each poll reads only the bytes appended since the last one. The complete events
//! among them (up to the last `}` that closes an event; a partial event waits for
//! the rest) become one more *segment*: read into records by the same parts as a
//! whole file, interning into the string table and process registry kept from the
//! reads before, and appended to the records kept from them. A segment is its own
//! input text at its place in the file's byte offsets, so offsets and args are
//! those of the file. Each version's tables are then built from all the records
//! (so a `B` of an earlier read is closed by an `E` appended later, like any
//! other): the bytes are read once. The slice step, the costliest, goes on from
//! where the last version left it ([`LiveSlices`]); the other tables are rebuilt.
//!
//! A file shorter than what was read (rewritten) is read again from the start. The
//! missing `]` of a file being written is normal, so no `truncated` diagnostic.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use tracescope_format::json::{self, Value};
use tracescope_format::{DiagKind, Diagnostics};

use super::live_slices::LiveSlices;
use super::part::{PartBuilder, Shared};
use super::records::Records;
use super::registry::SharedRegistry;
use crate::args::{text_ref, SharedArena, TextFile, Texts};
use crate::strings::SharedStrings;
use crate::trace::{InputFile, LoadOptions, TopLevel, Trace, TraceInfo, TraceText};

/// A followed file: what was read of it, and the records that make its model.
pub struct Follow {
    path: PathBuf,
    name: String,
    opts: LoadOptions,
    /// `None` until the file holds at least one complete event.
    grown: Option<Grown>,
    /// Bytes of the file read so far.
    read_len: u64,
    /// The bytes read after the last complete event (all of them before the
    /// first event): they wait for the rest.
    pending: Vec<u8>,
    /// Bytes read from the file by the last poll and in all.
    pub last_read: u64,
    pub total_read: u64,
}

/// What a poll found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// No new complete event (the file did not grow, or only by a partial event).
    None,
    /// New events were read from the appended bytes.
    Appended,
    /// The file was shorter than before: read again from the start.
    Reloaded,
}

struct Segment {
    /// Where the segment's text starts among the file's bytes.
    base: u64,
    text: Arc<String>,
}

struct Grown {
    segments: Vec<Segment>,
    /// Every record but the duration ones, which are in `slices`.
    records: Records,
    slices: LiveSlices,
    strings: SharedStrings,
    registry: SharedRegistry,
    arena: SharedArena,
    diagnostics: Diagnostics,
    /// Format, top-level metadata and time unit, from the first read.
    info: TraceInfo,
    /// The top-level stackFrames, samples and cpuProfile of the first read.
    top: [Option<String>; 3],
    events: u64,
    /// The file offset just after the last complete event read.
    cut: u64,
    /// The event list was closed (`]`): later bytes are not events.
    closed: bool,
}

/// One segment's text shared by every version of the model built on it.
struct SegmentText(Arc<String>);

impl TraceText for SegmentText {
    fn text(&self) -> &str {
        &self.0
    }
}

impl Follow {
    /// Starts following `path` (plain JSON), reading what it holds now. A gzip or
    /// zstd file is refused: its appended bytes are no JSON to read on their own.
    pub fn open(path: &Path, name: String, opts: LoadOptions) -> std::io::Result<Follow> {
        let mut head = [0u8; 4];
        let n = std::io::Read::read(&mut std::fs::File::open(path)?, &mut head)?;
        let packed = tracescope_format::Compression::detect(&head[..n]);
        if packed != tracescope_format::Compression::None {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "it is {} compressed, and only a plain JSON file can be followed: follow the \
                     file the program writes, or view this one without --follow",
                    packed.as_str()
                ),
            ));
        }
        let mut f = Follow {
            path: path.to_path_buf(),
            name,
            opts,
            grown: None,
            read_len: 0,
            pending: Vec::new(),
            last_read: 0,
            total_read: 0,
        };
        f.poll()?;
        Ok(f)
    }

    /// Bytes of the file read so far.
    pub fn bytes(&self) -> u64 {
        self.read_len
    }

    /// Event objects in the model.
    pub fn events(&self) -> u64 {
        self.grown.as_ref().map_or(0, |g| g.events)
    }

    /// Reads what was appended since the last poll (or everything, if the file
    /// is shorter than before).
    pub fn poll(&mut self) -> std::io::Result<Change> {
        self.last_read = 0;
        let len = std::fs::metadata(&self.path)?.len();
        let mut change = Change::None;
        if len < self.read_len {
            self.grown = None;
            self.read_len = 0;
            self.pending.clear();
            change = Change::Reloaded;
        }
        if len > self.read_len {
            let mut file = File::open(&self.path)?;
            file.seek(SeekFrom::Start(self.read_len))?;
            let before = self.pending.len();
            // Up to `len` only: what the writer adds meanwhile waits for the next poll.
            (&mut file)
                .take(len - self.read_len)
                .read_to_end(&mut self.pending)?;
            let got = (self.pending.len() - before) as u64;
            self.read_len += got;
            self.last_read = got;
            self.total_read += got;
        }
        let read = match self.grown {
            None => self.first_read(),
            Some(_) => self.append(),
        };
        Ok(match (change, read) {
            (Change::Reloaded, _) => Change::Reloaded,
            (_, true) => Change::Appended,
            _ => Change::None,
        })
    }

    /// Reads the pending bytes as a whole file; true when it held an event.
    fn first_read(&mut self) -> bool {
        if self.pending.is_empty() {
            return false;
        }
        let text = Arc::new(utf8(self.pending.clone()));
        let strings = SharedStrings::default();
        let registry = SharedRegistry::default();
        let arena = SharedArena::default();
        let input = text.as_str();
        let shared = Shared::of(input, &strings, &registry, &arena);
        let Ok(json::JsonTrace {
            form,
            parts,
            events,
            metadata,
            stack_frames,
            samples,
            system_trace_events,
            cpu_profile,
            diagnostics,
        }) = json::read_json(input, || PartBuilder::new(&shared), &self.opts.read)
        else {
            return false;
        };
        if events == 0 {
            return false;
        }
        let mut records = Records::concat(parts.into_iter().map(|p| p.records).collect());
        let last = last_offset(&records).unwrap_or(0) as usize;
        let mut slices = LiveSlices::default();
        slices.add(records.take_dur());
        let (end, closed) = events_end(&input.as_bytes()[last..]);
        let cut = last + end.unwrap_or(input.len() - last);
        let mut info = TraceInfo {
            format: form.as_str().to_string(),
            ..TraceInfo::default()
        };
        for (key, v) in &metadata {
            if key == "displayTimeUnit" {
                info.display_time_unit = Value::parse(&v.text)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string));
            }
            info.metadata
                .push((key.to_string(), text_ref(input, &arena, &v.text)));
        }
        info.system_trace_events = system_trace_events
            .as_ref()
            .map(|r| text_ref(input, &arena, &r.text));
        let own =
            |r: &Option<tracescope_format::RawJson<'_>>| r.as_ref().map(|r| r.text.to_string());
        let top = [own(&stack_frames), own(&samples), own(&cpu_profile)];
        // What the reader said about the partial event is said again once it is whole.
        let mut diagnostics = diagnostics.before(cut as u64);
        diagnostics.remove(DiagKind::Truncated);
        self.pending.drain(..cut);
        self.grown = Some(Grown {
            segments: vec![Segment { base: 0, text }],
            records,
            slices,
            strings,
            registry,
            arena,
            diagnostics,
            info,
            top,
            events,
            cut: cut as u64,
            closed,
        });
        true
    }

    /// Reads the complete events among the pending bytes as one more segment;
    /// true when there were any.
    fn append(&mut self) -> bool {
        let Some(g) = self.grown.as_mut() else {
            return false;
        };
        if g.closed {
            return false;
        }
        let (end, closed) = events_end(&self.pending);
        g.closed = closed;
        let Some(end) = end else {
            return false;
        };
        // The segment is the bytes from just before the cut (the `}` there becomes
        // the `[` that opens the list; the `,` after it, a space), so its offsets
        // plus `base` are the file's.
        let mut bytes = Vec::with_capacity(end + 1);
        bytes.push(b'[');
        bytes.extend(self.pending.drain(..end));
        if let Some(i) = bytes[1..].iter().position(|b| !b.is_ascii_whitespace()) {
            if bytes[1 + i] == b',' {
                bytes[1 + i] = b' ';
            }
        }
        let base = g.cut - 1;
        let text = Arc::new(utf8(bytes));
        let input = text.as_str();
        let shared = Shared {
            base,
            ..Shared::of(input, &g.strings, &g.registry, &g.arena)
        };
        match json::read_json(input, || PartBuilder::new(&shared), &self.opts.read) {
            Ok(read) => {
                let mut recs = Records::concat(read.parts.into_iter().map(|p| p.records).collect());
                recs.place(base, 0);
                g.slices.add(recs.take_dur());
                g.records.extend(recs);
                g.events += read.events;
                let mut d = read.diagnostics;
                d.remove(DiagKind::Truncated);
                g.diagnostics.merge(d.placed(base, &self.name));
            }
            Err(e) => {
                let name = &self.name;
                g.diagnostics
                    .add(DiagKind::SyntaxError, base + e.offset, || {
                        format!("{name}: appended bytes that are no events: {}", e.message)
                    });
            }
        }
        g.cut += end as u64;
        g.segments.push(Segment { base, text });
        true
    }

    /// The model of everything read so far (an empty trace before the first event).
    pub fn trace(&mut self) -> Trace {
        let t0 = Instant::now();
        let Some(g) = &mut self.grown else {
            return Trace::from_events(Vec::new(), "json-array", self.read_len);
        };
        let texts = Texts {
            files: g
                .segments
                .iter()
                .map(|s| TextFile {
                    base: s.base,
                    text: s.text.as_str(),
                    name: &self.name,
                    binary: &[],
                })
                .collect(),
        };
        let [sf, samples, profile] = &g.top;
        let top = TopLevel {
            stack_frames: sf.as_deref(),
            samples: samples.as_deref(),
            cpu_profile: profile.as_deref(),
            source_name: &self.opts.source_name,
        };
        let mut info = TraceInfo {
            bytes: self.read_len,
            ..g.info.clone()
        };
        let built = Trace::finish_into(
            &mut info,
            g.records.clone(),
            &texts,
            g.strings.copy(),
            g.registry.copy(),
            g.arena.copy(),
            &top,
            g.diagnostics.clone(),
            Some(&mut g.slices),
        );
        info.events = g.events;
        let inputs = g
            .segments
            .iter()
            .map(|s| {
                let text: Box<dyn TraceText> = Box::new(SegmentText(s.text.clone()));
                InputFile::placed(text, s.base, self.name.clone(), 0)
            })
            .collect();
        let mut trace = Trace::assemble(info, built, inputs);
        trace.info.load_ms = t0.elapsed().as_secs_f64() * 1e3;
        trace
    }
}

/// The text of `bytes`, each byte that is not UTF-8 replaced by `?` (not U+FFFD:
/// offsets must stay the file's).
fn utf8(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            let mut bytes = e.into_bytes();
            let mut at = 0;
            while let Err(bad) = std::str::from_utf8(&bytes[at..]) {
                let from = at + bad.valid_up_to();
                let n = bad.error_len().unwrap_or(bytes.len() - from);
                bytes[from..from + n].fill(b'?');
                at = from + n;
            }
            String::from_utf8(bytes).unwrap_or_default()
        }
    }
}

/// Where the last complete event among `bytes` ends (they start between events of
/// the list), and whether the list's `]` was seen.
fn events_end(bytes: &[u8]) -> (Option<usize>, bool) {
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    let mut end = None;
    for (i, &b) in bytes.iter().enumerate() {
        if in_str {
            match b {
                _ if esc => esc = false,
                b'\\' => esc = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b']' if depth == 0 => return (end, true),
            b'}' | b']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    end = Some(i + 1);
                }
            }
            _ => {}
        }
    }
    (end, false)
}

/// The offset of the last event that made a record.
fn last_offset(r: &Records) -> Option<u64> {
    let dur = std::iter::once(&r.dur)
        .chain(&r.dur_parts)
        .filter_map(|p| p.recs.iter().map(|x| x.offset(&p.wide)).max());
    let m = |it: &mut dyn Iterator<Item = u64>| it.max();
    [
        dur.max(),
        m(&mut r.instants.iter().map(|x| x.offset)),
        m(&mut r.asyncs.iter().map(|x| x.offset)),
        m(&mut r.flows.iter().map(|x| x.offset)),
        m(&mut r.flows_v2.iter().map(|x| x.offset)),
        m(&mut r.counters.iter().map(|x| x.offset)),
        m(&mut r.objects.iter().map(|x| x.offset)),
        m(&mut r.profiles.iter().map(|x| x.offset)),
        m(&mut r.chunks.iter().map(|x| x.offset)),
        m(&mut r.samples.iter().map(|x| x.offset)),
        m(&mut r.metadata.iter().map(|x| x.offset)),
        m(&mut r.other.iter().map(|x| x.offset)),
    ]
    .into_iter()
    .flatten()
    .max()
}
