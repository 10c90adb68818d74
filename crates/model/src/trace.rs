//! [`Trace`]: a loaded trace, its tables and what the reader learnt about it.

use std::borrow::Cow;
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use tracescope_format::json::{self, ReadError, ReadOptions, Value};
use tracescope_format::{Diagnostics, Event, EventRuns, Int64};

use crate::args::{resolve, SharedArena, TextRef};
use crate::build::part::{PartBuilder, Shared};
use crate::build::records::Records;
use crate::build::registry::SharedRegistry;
use crate::build::{finish, TraceFacts};
use crate::strings::{SharedStrings, StrId, StringTable};
use crate::tables::*;

/// The text a trace was read from, kept for lazy args.
pub trait TraceText: Send + Sync {
    fn text(&self) -> &str;

    /// The bytes in `range` have been parsed and are not needed for now (a mapped
    /// file can drop them from memory; they come back when args are read).
    fn release(&self, _range: std::ops::Range<usize>) {}

    /// While the text is still arriving (a compressed input decoded in the
    /// background) or not checked as UTF-8 yet (a big plain file): its start, at
    /// least `min` bytes of it unless it is shorter (see
    /// [`tracescope_format::Source::prefix_bytes`]). `None`: wait for
    /// [`text`](Self::text).
    fn prefix(&self, _min: usize) -> Option<tracescope_format::json::Prefix<'_>> {
        None
    }

    /// What the readers of unchecked prefixes found to be UTF-8 (see
    /// [`tracescope_format::Source::checked_by`]); before [`text`](Self::text).
    fn checked_by(&self, _checked: &tracescope_format::json::CheckedBytes) {}

    /// The text's size when it is still arriving and its size is known ahead.
    fn expected_len(&self) -> Option<usize> {
        None
    }

    /// The bytes of a binary input that args are read from (a CTF stream file,
    /// whose [`text`](Self::text) is empty); empty for text.
    fn binary(&self) -> &[u8] {
        &[]
    }
}

impl TraceText for String {
    fn text(&self) -> &str {
        self
    }
}

/// Top-level parts of the document besides the event list.
pub(crate) struct TopLevel<'t> {
    pub stack_frames: Option<&'t str>,
    pub samples: Option<&'t str>,
    pub cpu_profile: Option<&'t str>,
    pub source_name: &'t str,
}

/// What is known about the trace as a whole.
#[derive(Clone, Debug, Default)]
pub struct TraceInfo {
    /// `json-array`, `json-object`, `json-bare-events`, `cpuprofile`, `events`.
    pub format: String,
    /// Bytes of the input as given (compressed size for .gz/.zst).
    pub bytes: u64,
    /// Event objects read (`{}` elements not counted).
    pub events: u64,
    /// Events per `ph` string (`""` for events without one), in first-seen order.
    pub phases: Vec<(String, u64)>,
    pub start_ns: Option<i64>,
    pub end_ns: Option<i64>,
    /// Top-level keys other than the event list, values as written.
    pub metadata: Vec<(String, TextRef)>,
    pub display_time_unit: Option<String>,
    pub num_cpus: Option<i64>,
    pub system_trace_events: Option<TextRef>,
    pub load_ms: f64,
    /// Milliseconds per load step (`read` is parsing into records, in parallel).
    pub load_phases: Vec<(&'static str, f64)>,
}

/// All tables of a trace.
#[derive(Debug, Default)]
pub struct Tables {
    pub strings: StringTable,
    pub processes: Vec<Process>,
    pub threads: Vec<Thread>,
    pub slices: SliceTable,
    pub instants: InstantTable,
    pub async_slices: AsyncSliceTable,
    pub flows: FlowTable,
    pub counters: CounterTable,
    pub objects: Vec<Object>,
    pub snapshots: Vec<Snapshot>,
    pub frames: Vec<Frame>,
    pub profiles: Vec<Profile>,
    pub samples: SampleTable,
    pub metadata: Vec<MetadataEvent>,
    pub other: OtherTable,
    pub(crate) arena: crate::args::ArenaText,
}

/// A loaded trace.
pub struct Trace {
    pub info: TraceInfo,
    pub tables: Tables,
    pub diagnostics: Diagnostics,
    /// Processes in display order.
    pub process_order: Vec<ProcessId>,
    /// Threads in display order (grouped by process, in process order).
    pub thread_order: Vec<ThreadId>,
    /// The input files (one, or the files of `view A B`), each at its place in the
    /// trace's byte offsets.
    files: Vec<InputFile>,
    /// Of several files: each process's file and pid as written (the table's pid
    /// may have been made unique). Empty for one file.
    pub process_origins: Vec<(u32, PidK)>,
}

/// One input file of a trace: its text, where its byte offsets start among the
/// trace's, its name and how far its times were moved.
pub struct InputFile {
    pub base: u64,
    pub name: String,
    /// Nanoseconds added to the file's timestamps (`--align start`, `FILE@+1ms`).
    pub shift_ns: i64,
    text: Box<dyn TraceText>,
}

impl InputFile {
    pub fn text(&self) -> &str {
        self.text.text()
    }

    /// Lets a mapped file's pages go from memory (they fault back in from the page
    /// cache when read again): a pass over every event's args, as the Parquet
    /// export makes, would otherwise keep the whole file resident.
    pub fn release(&self) {
        let len = self.text().len().max(self.text.binary().len());
        self.text.release(0..len);
    }

    /// A binary input's bytes (see [`TraceText::binary`]).
    pub fn binary(&self) -> &[u8] {
        self.text.binary()
    }
}

/// Decoded events as [`EventRuns`]: runs of consecutive events, each moved out
/// of the vector by the run that builds it.
struct DecodedRuns<'e, 'a> {
    chunks: Vec<Mutex<&'e mut [Event<'a>]>>,
}

impl<'a> EventRuns<'a> for DecodedRuns<'_, 'a> {
    fn runs(&self) -> usize {
        self.chunks.len()
    }

    fn run(&self, k: usize, _diags: &mut Diagnostics, each: &mut dyn FnMut(Event<'a>)) {
        let mut chunk = self.chunks[k].lock().unwrap_or_else(|e| e.into_inner());
        for ev in chunk.iter_mut() {
            each(std::mem::take(ev));
        }
    }
}

/// Settings for loading.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    pub read: ReadOptions,
    /// Name used for a raw `.cpuprofile`'s process and thread (the file name).
    pub source_name: String,
}

impl Trace {
    /// Reads JSON trace text (already decompressed).
    pub fn from_json(
        text: Box<dyn TraceText>,
        bytes: u64,
        opts: &LoadOptions,
    ) -> Result<Trace, ReadError> {
        let t0 = Instant::now();
        let strings = SharedStrings::default();
        let registry = SharedRegistry::default();
        let arena = SharedArena::default();
        // A text still arriving is read as it comes; each attempt at a part has a
        // `Shared` of its own whose input is the prefix it was read on.
        let early_len = text.expected_len().filter(|_| opts.read.threads != 1);
        let slots = early_len.map_or(0, |len| json::early_slots(len, &opts.read));
        let early_shared: Vec<std::sync::OnceLock<Shared<'_>>> =
            (0..slots).map(|_| std::sync::OnceLock::new()).collect();
        // Parts read early let their pages go too (a mapped file still being
        // checked; a no-op for decoded text).
        let release = |r: std::ops::Range<usize>| text.release(r);
        let sizes = std::sync::Arc::new(crate::build::records::PartSizes::default());
        let early = early_len.map(|len| {
            json::read_early(
                |min| text.prefix(min),
                len,
                &opts.read,
                |slot, prefix| {
                    PartBuilder::new(early_shared[slot].get_or_init(|| Shared {
                        release: Some(&release),
                        sizes: sizes.clone(),
                        ..Shared::of(prefix, &strings, &registry, &arena)
                    }))
                },
            )
        });
        if let Some(early) = &early {
            text.checked_by(early.checked());
        }
        let input = text.text();
        let shared = Shared {
            release: Some(&release),
            sizes,
            ..Shared::of(input, &strings, &registry, &arena)
        };
        let json::JsonTrace {
            form,
            parts,
            events,
            metadata,
            stack_frames,
            samples,
            system_trace_events,
            cpu_profile,
            diagnostics,
        } = json::read_json_after(input, || PartBuilder::new(&shared), &opts.read, early)?;
        let read_ms = t0.elapsed().as_secs_f64() * 1e3;
        let recs = Records::concat(parts.into_iter().map(|p| p.records).collect());
        let mut info = TraceInfo {
            format: form.as_str().to_string(),
            bytes,
            load_phases: vec![
                ("read", read_ms),
                ("join", t0.elapsed().as_secs_f64() * 1e3 - read_ms),
            ],
            ..TraceInfo::default()
        };
        // Top-level values borrow the input; re-slice them from it (or copy the rare
        // owned one) so nothing here keeps the parts' shared state borrowed.
        let detach = |r: Option<tracescope_format::RawJson<'_>>| match r {
            None => None,
            Some(r) => match raw_ref(input, &r.text) {
                t if !t.is_none() => Some(Cow::Borrowed(resolve(input, "", t))),
                _ => Some(Cow::Owned(r.text.into_owned())),
            },
        };
        let (sf_text, samples_text, profile_text) =
            (detach(stack_frames), detach(samples), detach(cpu_profile));
        let top = TopLevel {
            stack_frames: sf_text.as_deref(),
            samples: samples_text.as_deref(),
            cpu_profile: profile_text.as_deref(),
            source_name: &opts.source_name,
        };
        for (k, v) in &metadata {
            if k == "displayTimeUnit" {
                info.display_time_unit = Value::parse(&v.text)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string));
            }
            info.metadata
                .push((k.to_string(), crate::args::text_ref(input, &arena, &v.text)));
        }
        info.system_trace_events = system_trace_events
            .as_ref()
            .map(|r| crate::args::text_ref(input, &arena, &r.text));
        let diags = diagnostics;
        let texts = crate::args::Texts::one(input);
        let tables = Self::finish_into(
            &mut info, recs, &texts, strings, registry, arena, &top, diags, None,
        );
        info.events = events;
        let mut trace = Trace::assemble(info, tables, vec![InputFile::whole(text)]);
        trace.info.load_ms = t0.elapsed().as_secs_f64() * 1e3;
        Ok(trace)
    }

    /// Builds a trace from events of any reader (CTF, ETW records, tests), in input
    /// order. Runs of events go through builders in parallel, as JSON parts do.
    pub fn from_events(events: Vec<Event<'_>>, format: &str, bytes: u64) -> Trace {
        let run = (events.len() / (4 * rayon::current_num_threads())).max(1 << 14);
        Self::from_events_in_runs(events, format, bytes, run)
    }

    /// [`Trace::from_events`] with runs of `run` events (tests check that any run
    /// length gives the same model).
    pub fn from_events_in_runs(
        mut events: Vec<Event<'_>>,
        format: &str,
        bytes: u64,
        run: usize,
    ) -> Trace {
        let runs = DecodedRuns {
            chunks: events.chunks_mut(run.max(1)).map(Mutex::new).collect(),
        };
        Self::from_event_runs(runs, format, bytes)
    }

    /// Builds a trace from a reader that hands its events over in runs (CTF): one
    /// part per run, in parallel, so all the events are never held at once. The runs
    /// are dropped once every part is built (a CTF trace's record index, 8 bytes a
    /// record, is then no longer held while the tables are made).
    pub fn from_event_runs<'a>(runs: impl EventRuns<'a>, format: &str, bytes: u64) -> Trace {
        let files = vec![InputFile::whole(Box::new(String::new()))];
        Self::from_runs_of(runs, format, bytes, files)
    }

    /// Builds a trace from a CTF trace in tracescope's own layout, run by run as
    /// [`Trace::from_event_runs`] does, with each event's args left encoded in the
    /// stream files ([`TextRef::is_ctf`]): the trace keeps the files (mapped, as a
    /// JSON input's text), each at its place in the space of input offsets, and
    /// writes an event's args text only when it is asked for. Nothing goes to the
    /// arena but stacks, so a load neither writes nor spills the args.
    pub fn from_ctf_runs(runs: tracescope_format::ctf::CtfRuns<'_>, bytes: u64) -> Trace {
        let mut base = 0;
        let files = (runs.files().iter())
            .map(|f| {
                let at = base;
                base += f.bytes().len() as u64;
                InputFile::placed(Box::new(f.clone()), at, String::new(), 0)
            })
            .collect();
        Self::from_runs_of(runs.with_encoded_args(), "ctf", bytes, files)
    }

    /// [`Trace::from_event_runs`], the events' text (or binary) inputs being `files`.
    fn from_runs_of<'a>(
        runs: impl EventRuns<'a>,
        format: &str,
        bytes: u64,
        files: Vec<InputFile>,
    ) -> Trace {
        let t0 = Instant::now();
        let strings = SharedStrings::default();
        let registry = SharedRegistry::default();
        let arena = SharedArena::default();
        let shared = Shared::of("", &strings, &registry, &arena);
        let parts: Vec<(Records, Diagnostics)> = (0..runs.runs())
            .into_par_iter()
            .map(|k| {
                let mut part = PartBuilder::new(&shared);
                let (mut diags, mut read) = (Diagnostics::new(), Diagnostics::new());
                runs.run(k, &mut read, &mut |ev| {
                    json::EventSink::event(&mut part, ev, &mut diags)
                });
                read.merge(diags);
                (part.finish(), read)
            })
            .collect();
        drop(runs);
        let mut diags = Diagnostics::new();
        let mut records = Vec::with_capacity(parts.len());
        for (r, d) in parts {
            records.push(r);
            diags.merge(d);
        }
        let read_ms = t0.elapsed().as_secs_f64() * 1e3;
        let recs = Records::concat(records);
        let events = recs.events;
        let mut info = TraceInfo {
            format: format.to_string(),
            bytes,
            load_phases: vec![
                ("read", read_ms),
                ("join", t0.elapsed().as_secs_f64() * 1e3 - read_ms),
            ],
            ..TraceInfo::default()
        };
        let top = TopLevel {
            stack_frames: None,
            samples: None,
            cpu_profile: None,
            source_name: format,
        };
        let texts = texts_of(&files);
        let tables = Self::finish_into(
            &mut info, recs, &texts, strings, registry, arena, &top, diags, None,
        );
        drop(texts);
        info.events = events;
        let mut trace = Trace::assemble(info, tables, files);
        trace.info.load_ms = t0.elapsed().as_secs_f64() * 1e3;
        trace
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn finish_into(
        info: &mut TraceInfo,
        mut recs: Records,
        input: &crate::args::Texts<'_>,
        strings: SharedStrings,
        registry: SharedRegistry,
        arena: SharedArena,
        top: &TopLevel<'_>,
        diags: Diagnostics,
        live: Option<&mut crate::build::LiveSlices>,
    ) -> (Tables, Diagnostics, TraceFacts) {
        info.phases = std::mem::take(&mut recs.phases);
        info.start_ns = recs.min_ts;
        info.end_ns = recs.max_end;
        finish(recs, input, strings, registry, arena, top, diags, live)
    }

    pub(crate) fn assemble(
        mut info: TraceInfo,
        built: (Tables, Diagnostics, TraceFacts),
        files: Vec<InputFile>,
    ) -> Trace {
        let (tables, diagnostics, facts) = built;
        info.num_cpus = facts.num_cpus;
        info.load_phases.extend(facts.phases);
        let (process_order, thread_order) = display_order(&tables);
        Trace {
            info,
            tables,
            diagnostics,
            process_order,
            thread_order,
            files,
            process_origins: Vec::new(),
        }
    }

    /// The trace text (JSON input) of a trace read from one file.
    pub fn text(&self) -> &str {
        self.files.first().map_or("", InputFile::text)
    }

    /// The input files (one, or each file of several loaded as one trace).
    pub fn files(&self) -> &[InputFile] {
        &self.files
    }

    /// The input texts at their places in the trace's byte offsets.
    pub fn texts(&self) -> crate::args::Texts<'_> {
        texts_of(&self.files)
    }

    /// The text of the file holding byte `offset` (of any file), and the offset
    /// within it: where an event is written.
    pub fn text_at(&self, offset: u64) -> (&str, u64) {
        let i = self
            .files
            .partition_point(|f| f.base <= offset)
            .saturating_sub(1);
        match self.files.get(i) {
            Some(f) => (f.text(), offset - f.base.min(offset)),
            None => ("", offset),
        }
    }

    /// The event written at byte `offset` (of any input file), as written.
    pub fn event_text(&self, offset: u64) -> &str {
        let (text, at) = self.text_at(offset);
        crate::query::details::raw_event(text, at)
    }

    /// The raw JSON text behind a [`TextRef`]: borrowed from the input or the
    /// arena, or written now for the encoded args of a CTF record.
    pub fn raw(&self, r: TextRef) -> Cow<'_, str> {
        if self.files.len() == 1 && !r.is_ctf() {
            return Cow::Borrowed(resolve(self.text(), self.tables.arena.as_str(), r));
        }
        let arena = self.tables.arena.as_str();
        if r.is_none() || r.is_arena() {
            return Cow::Borrowed(resolve("", arena, r));
        }
        let i = self
            .files
            .partition_point(|f| f.base <= r.offset())
            .saturating_sub(1);
        let Some(f) = self.files.get(i) else {
            return Cow::Borrowed("");
        };
        let local = r.offset() - f.base.min(r.offset());
        if r.is_ctf() {
            return Cow::Owned(crate::args::ctf_args(f.binary(), local, r.len));
        }
        Cow::Borrowed(resolve(
            f.text(),
            arena,
            TextRef {
                start: local,
                len: r.len,
            },
        ))
    }

    /// Asks the CPU to bring the start of `r`'s text (two cache lines) into
    /// cache, ahead of reading it (a hint: nothing happens elsewhere than on x86-64).
    #[inline]
    pub fn prefetch(&self, r: TextRef) {
        if !r.is_none() && !r.is_arena() && self.files.len() == 1 {
            if let Some(text) = self.text().as_bytes().get(r.offset() as usize..) {
                crate::prefetch(text.as_ptr());
                if let Some(more) = text.get(64..r.len as usize) {
                    crate::prefetch(more.as_ptr());
                }
            }
        }
    }

    pub fn str(&self, id: StrId) -> &str {
        self.tables.strings.get(id)
    }

    /// A name for display: "(unnamed)" when absent.
    pub fn name(&self, id: StrId) -> &str {
        if id.is_none() {
            "(unnamed)"
        } else {
            self.str(id)
        }
    }

    pub fn pid_text(&self, p: PidK) -> Cow<'_, str> {
        match p {
            PidK::Int(i) => Cow::Owned(i.to_string()),
            PidK::Str(s) => Cow::Borrowed(self.str(s)),
        }
    }

    pub fn id_text(&self, id: IdVal) -> Option<Cow<'_, str>> {
        match id {
            IdVal::None => None,
            IdVal::Int(i) => Some(Cow::Owned(i.to_string())),
            IdVal::Str(s) => Some(Cow::Borrowed(self.str(s))),
        }
    }

    /// Compact JSON of `args` merged with the closing event's `args` (its keys win).
    pub fn merged_args(&self, args: TextRef, end_args: TextRef) -> Option<String> {
        let a = (!args.is_none()).then(|| self.raw(args));
        let e = (!end_args.is_none()).then(|| self.raw(end_args));
        match (a.as_deref(), e.as_deref()) {
            (None, None) => None,
            (Some(a), None) => Some(json::value::compact(a)),
            (None, Some(e)) => Some(json::value::compact(e)),
            (Some(a), Some(e)) => match (Value::parse(a), Value::parse(e)) {
                (Ok(Value::Object(mut am)), Ok(Value::Object(em))) => {
                    for (k, v) in em {
                        match am.iter_mut().find(|(ak, _)| *ak == k) {
                            Some(slot) => slot.1 = v,
                            None => am.push((k, v)),
                        }
                    }
                    Some(Value::Object(am).to_compact())
                }
                _ => Some(json::value::compact(e)),
            },
        }
    }

    /// The process's display name: its name, else `"Process <pid>"`.
    pub fn process_label(&self, p: ProcessId) -> String {
        let proc_ = self.process(p);
        if proc_.name.is_none() {
            format!("Process {}", self.pid_text(proc_.pid))
        } else {
            self.str(proc_.name).to_string()
        }
    }

    /// A process as headings show it: `Name (pid 1)`, `Process 1` without a name, and
    /// just `name` for a process named by its string pid.
    pub fn process_heading(&self, p: ProcessId) -> String {
        let pr = self.process(p);
        heading(self, "Process", "pid", pr.pid, pr.name)
    }

    /// A thread as headings show it: `Name (tid 7)`, `Thread 7`, or `name`.
    pub fn thread_heading(&self, t: ThreadId) -> String {
        let th = self.thread(t);
        heading(self, "Thread", "tid", th.tid, th.name)
    }

    pub fn thread_label(&self, t: ThreadId) -> String {
        let th = self.thread(t);
        if th.name.is_none() {
            format!("Thread {}", self.pid_text(th.tid))
        } else {
            self.str(th.name).to_string()
        }
    }
}

fn heading(trace: &Trace, kind: &str, id_kind: &str, id: PidK, name: StrId) -> String {
    match id {
        _ if name.is_none() => format!("{kind} {}", trace.pid_text(id)),
        PidK::Str(s) if s == name => trace.str(name).to_string(),
        _ => format!("{} ({id_kind} {})", trace.str(name), trace.pid_text(id)),
    }
}

/// The range of `input` a value covers, found by address (the reader borrows
/// top-level values from the input), or `NONE` for text held elsewhere.
fn raw_ref(input: &str, s: &str) -> TextRef {
    let (base, p) = (input.as_ptr() as usize, s.as_ptr() as usize);
    if p >= base && p + s.len() <= base + input.len() {
        TextRef {
            start: (p - base) as u64,
            len: s.len().min(u32::MAX as usize) as u32,
        }
    } else {
        TextRef::NONE
    }
}

/// Sort key for names and ids: present before absent.
fn pid_order(p: PidK, strings: &StringTable) -> (u8, Int64, String) {
    match p {
        PidK::Int(i) => (0, i, String::new()),
        PidK::Str(s) => (1, Int64::I(0), strings.get(s).to_string()),
    }
}

/// Processes: frame renderers first, then sort index (absent after), name (absent
/// after), id. Threads the same way within their process.
fn display_order(t: &Tables) -> (Vec<ProcessId>, Vec<ThreadId>) {
    let s = &t.strings;
    let mut procs: Vec<ProcessId> = (0..t.processes.len()).map(ProcessId::at).collect();
    procs.sort_by_cached_key(|&p| {
        let pr = &t.processes[p.index()];
        (
            !pr.renders_frames,
            pr.sort_index.is_none(),
            pr.sort_index,
            pr.name.is_none(),
            s.get(pr.name).to_string(),
            pid_order(pr.pid, s),
        )
    });
    let mut rank = vec![0u32; t.processes.len()];
    for (i, &p) in procs.iter().enumerate() {
        rank[p.index()] = i as u32;
    }
    let mut threads: Vec<ThreadId> = (0..t.threads.len()).map(ThreadId::at).collect();
    threads.sort_by_cached_key(|&i| {
        let th = &t.threads[i.index()];
        (
            rank[th.process.index()],
            th.sort_index.is_none(),
            th.sort_index,
            th.name.is_none(),
            s.get(th.name).to_string(),
            pid_order(th.tid, s),
        )
    });
    (procs, threads)
}

impl InputFile {
    /// The only file of a trace.
    pub(crate) fn whole(text: Box<dyn TraceText>) -> InputFile {
        InputFile {
            base: 0,
            name: String::new(),
            shift_ns: 0,
            text,
        }
    }

    pub(crate) fn placed(text: Box<dyn TraceText>, base: u64, name: String, shift_ns: i64) -> Self {
        InputFile {
            base,
            name,
            shift_ns,
            text,
        }
    }
}

/// The files at their places in the trace's byte offsets.
fn texts_of(files: &[InputFile]) -> crate::args::Texts<'_> {
    crate::args::Texts {
        files: files
            .iter()
            .map(|f| crate::args::TextFile {
                base: f.base,
                text: f.text(),
                name: &f.name,
                binary: f.binary(),
            })
            .collect(),
    }
}

/// A CTF stream file: no text, its bytes hold the encoded args of its records.
impl TraceText for tracescope_format::ctf::StreamFile {
    fn text(&self) -> &str {
        ""
    }

    fn release(&self, range: std::ops::Range<usize>) {
        tracescope_format::ctf::StreamFile::release(self, range)
    }

    fn binary(&self) -> &[u8] {
        self.bytes()
    }
}

impl TraceText for tracescope_format::Source {
    fn text(&self) -> &str {
        tracescope_format::Source::text(self)
    }

    fn release(&self, range: std::ops::Range<usize>) {
        tracescope_format::Source::release(self, range)
    }

    fn prefix(&self, min: usize) -> Option<tracescope_format::json::Prefix<'_>> {
        tracescope_format::Source::prefix_bytes(self, min)
    }

    fn checked_by(&self, checked: &tracescope_format::json::CheckedBytes) {
        tracescope_format::Source::checked_by(self, checked)
    }

    fn expected_len(&self) -> Option<usize> {
        tracescope_format::Source::expected_len(self)
    }
}

/// A source shared with whoever reads its diagnostics once the text is all there.
impl TraceText for std::sync::Arc<tracescope_format::Source> {
    fn text(&self) -> &str {
        (**self).text()
    }

    fn release(&self, range: std::ops::Range<usize>) {
        (**self).release(range)
    }

    fn prefix(&self, min: usize) -> Option<tracescope_format::json::Prefix<'_>> {
        (**self).prefix_bytes(min)
    }

    fn checked_by(&self, checked: &tracescope_format::json::CheckedBytes) {
        (**self).checked_by(checked)
    }

    fn expected_len(&self) -> Option<usize> {
        (**self).expected_len()
    }
}

impl Trace {
    /// Loads an opened source (plain, gzip or zstd JSON): the reader's diagnostics
    /// about the bytes (invalid UTF-8, truncated compression) join the trace's.
    pub fn from_source(
        source: tracescope_format::Source,
        opts: &LoadOptions,
    ) -> Result<Trace, ReadError> {
        let bytes = source.input_len();
        // Shared, so its diagnostics can be read once the text is all there (a
        // compressed input may still be decoding while the reader starts).
        let source = std::sync::Arc::new(source);
        let mut trace = Trace::from_json(Box::new(source.clone()), bytes, opts)?;
        trace.diagnostics.merge(source.diagnostics().clone());
        Ok(trace)
    }
}
