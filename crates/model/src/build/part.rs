//! The event sink of one part of the input: turns each [`Event`] into a compact
//! record of its family. Runs in parallel with the other parts.

use std::borrow::Cow;

use tracescope_format::json::{EventSink, Prefix, Value};
use tracescope_format::{DiagKind, Diagnostics, Event, Id, Id2, Int64, Pid};

use super::excerpt;
use super::profile_chunk::read_chunk;
use super::records::*;
use super::registry::{LocalRegistry, SharedRegistry};
use crate::args::{in_bytes, LocalArena, SharedArena, TextRef};
use crate::strings::{LocalStrings, SharedStrings, StrId};
use crate::tables::arg_sets::known_compact;
use crate::tables::{IdVal, Ns, PidK, ProcessId, Scope, ThreadId};

/// State shared by all parts of one load.
pub struct Shared<'s> {
    /// The text the parts are read from, as bytes: a prefix read early may not be
    /// checked as UTF-8 yet ([`Prefix`]), so it is only cut for excerpts (repaired
    /// if need be) and compared by address.
    pub input: &'s [u8],
    pub strings: &'s SharedStrings,
    pub registry: &'s SharedRegistry,
    pub arena: &'s SharedArena,
    /// Called with each part's byte range once it is parsed.
    pub release: Option<&'s (dyn Fn(std::ops::Range<usize>) + Sync)>,
    /// Which of several input files this is (0 for one file): its pids and ids are
    /// its own.
    pub file: u32,
    /// Where this file starts among several (0 for one file): the registry orders
    /// processes and threads by first appearance over all files. Records keep the
    /// file's own offsets until [`Records::place`].
    pub base: u64,
    /// What the parts read so far held: a new part reserves as much (shared by
    /// the parts read early, each on a `Shared` of its own, and the final read).
    pub sizes: std::sync::Arc<PartSizes>,
}

impl<'s> Shared<'s> {
    /// One file's text with the tables its parts share; nothing released early.
    pub fn of(
        input: impl Into<Prefix<'s>>,
        strings: &'s SharedStrings,
        registry: &'s SharedRegistry,
        arena: &'s SharedArena,
    ) -> Self {
        Shared {
            input: input.into().as_bytes(),
            strings,
            registry,
            arena,
            release: None,
            file: 0,
            base: 0,
            sizes: Default::default(),
        }
    }
}

pub struct PartBuilder<'a, 's> {
    shared: &'s Shared<'a>,
    strings: LocalStrings<'a, 's>,
    registry: LocalRegistry,
    /// Where texts not in the input go (given to the shared arena when dropped).
    arena: LocalArena<'a>,
    pub records: Records,
    /// For each one-byte phase, where it is in `records.phases`, plus one (0: not
    /// there yet): a phase is counted with a load and an add, not a search.
    phase_at: [u32; 256],
}

impl<'a, 's> PartBuilder<'a, 's> {
    pub fn new(shared: &'s Shared<'a>) -> Self {
        PartBuilder {
            shared,
            strings: LocalStrings::new(shared.strings),
            registry: LocalRegistry::default(),
            arena: shared.arena.local(),
            records: shared.sizes.reserved(),
            phase_at: [0; 256],
        }
    }

    /// The part's records, once its last event is in.
    pub fn finish(&mut self) -> Records {
        self.registry.flush(self.shared.registry);
        std::mem::take(&mut self.records)
    }

    fn str_opt(&mut self, s: &Option<Cow<'a, str>>) -> StrId {
        match s {
            Some(c) => self.strings.intern_cow(c),
            None => StrId::NONE,
        }
    }

    fn pid_k(&mut self, p: &Pid<'a>) -> PidK {
        match p {
            Pid::Int(i) => PidK::Int(*i),
            Pid::Str(s) => PidK::Str(self.strings.intern_cow(s)),
        }
    }

    fn process_of(&mut self, ev: &Event<'a>) -> ProcessId {
        let pid = match &ev.pid {
            Some(p) => self.pid_k(p),
            None => PidK::Int(Int64::I(0)),
        };
        let (file, at) = (self.shared.file, self.shared.base + ev.offset);
        self.registry.process(self.shared.registry, (file, pid), at)
    }

    /// The event's thread, when it has a `tid`.
    fn thread_of(&mut self, ev: &Event<'a>, process: ProcessId) -> Option<ThreadId> {
        ev.tid.is_some().then(|| self.thread_needed(ev, process))
    }

    /// The event's thread: tid 0 when it has no `tid`.
    fn thread_needed(&mut self, ev: &Event<'a>, process: ProcessId) -> ThreadId {
        let tid = match &ev.tid {
            Some(t) => self.pid_k(t),
            None => PidK::Int(Int64::I(0)),
        };
        self.registry.thread(
            self.shared.registry,
            process,
            tid,
            self.shared.base + ev.offset,
        )
    }

    fn text(&mut self, raw: &Option<tracescope_format::RawJson<'a>>) -> TextRef {
        match raw {
            Some(r) => {
                in_bytes(self.shared.input, &r.text).unwrap_or_else(|| self.arena.push(&r.text))
            }
            None => TextRef::NONE,
        }
    }

    /// Where an event's `args` text lives, marked compact when the load can tell
    /// at once ([`TextRef::is_compact`]): text in the input was read by the
    /// reader's validating skip, `clean` says it held no comment or trailing
    /// comma, and a quick look at it (still in cache) finds nothing `compact`
    /// would rewrite. The export then copies it as it is, without walking it.
    ///
    /// The encoded args of a CTF record ([`Event::encoded_args`]) stay in the
    /// stream file, as [`TextRef::in_ctf`]: their text is written when asked for.
    fn args(&mut self, ev: &Event<'a>) -> TextRef {
        if let Some(e) = &ev.encoded_args {
            return match u32::try_from(e.bytes.len()) {
                Ok(len) if e.at < CTF_OFFSETS => TextRef::in_ctf(e.at, len),
                // Past what a reference holds: the text, in the arena.
                _ => match e.to_json() {
                    Some(text) => self.arena.push(&text),
                    None => TextRef::NONE,
                },
            };
        }
        let raw = &ev.args;
        let r = self.text(raw);
        match raw {
            Some(a) if a.clean && !r.is_none() && !r.is_arena() && known_compact(&a.text) => {
                r.known_compact()
            }
            _ => r,
        }
    }

    /// An id as written plus what it compares by.
    pub(super) fn id(&mut self, id: &Id<'a>) -> (IdK, IdVal) {
        match id {
            Id::Int(i) => (
                IdK {
                    v: i.bits(),
                    is_str: false,
                    file: self.shared.file,
                },
                IdVal::Int(*i),
            ),
            Id::Str(s) => {
                let sid = self.strings.intern_cow(s);
                let key = match id.key() {
                    tracescope_format::id::IdKey::Int(v) => IdK {
                        v,
                        is_str: false,
                        file: self.shared.file,
                    },
                    tracescope_format::id::IdKey::Str(_) => IdK {
                        v: sid.0 as u64,
                        is_str: true,
                        file: self.shared.file,
                    },
                };
                (key, IdVal::Str(sid))
            }
        }
    }

    /// The key of an absent id (of this file).
    fn no_id(&self) -> IdK {
        IdK {
            file: self.shared.file,
            ..IdK::default()
        }
    }

    #[inline]
    fn count_phase(&mut self, ph: &str) {
        if let [b] = ph.as_bytes() {
            let at = self.phase_at[*b as usize] as usize;
            // Checked, as `records` is public: a stale place takes the search.
            if let Some((p, n)) = self.records.phases.get_mut(at.wrapping_sub(1)) {
                if p.as_bytes() == [*b] {
                    *n += 1;
                    return;
                }
            }
        }
        self.count_phase_search(ph);
    }

    /// [`count_phase`](Self::count_phase) by a search of the phases so far.
    #[cold]
    fn count_phase_search(&mut self, ph: &str) {
        // Phases are one byte but for odd input: compare that byte, not call `memcmp`.
        let same = |p: &str| match (p.as_bytes(), ph.as_bytes()) {
            ([a], [b]) => a == b,
            (a, b) => a == b,
        };
        let at = match self.records.phases.iter().position(|(p, _)| same(p)) {
            Some(at) => {
                self.records.phases[at].1 += 1;
                at
            }
            None => {
                self.records.phases.push((ph.to_string(), 1));
                self.records.phases.len() - 1
            }
        };
        if let [b] = ph.as_bytes() {
            self.phase_at[*b as usize] = u32::try_from(at + 1).unwrap_or(0);
        }
    }

    fn note_thread_end(&mut self, thread: Option<ThreadId>, end: i64) {
        let Some(thread) = thread else {
            return;
        };
        let t = thread.index();
        if self.records.thread_end.len() <= t {
            self.records.thread_end.resize(t + 1, NO_TIME);
        }
        if self.records.thread_end[t] < end {
            self.records.thread_end[t] = end;
        }
    }

    fn other(&mut self, ev: &Event<'a>, process: ProcessId, thread: Option<ThreadId>, ts: i64) {
        let rec = OtherRec {
            offset: ev.offset,
            ph: self.str_opt(&ev.ph),
            name: self.str_opt(&ev.name),
            cat: self.str_opt(&ev.cat),
            process,
            thread,
            ts: ev.ts.map(|_| Ns::new(ts)),
            args: self.args(ev),
        };
        self.records.other.push(rec);
    }
}

impl<'a, 's> EventSink<'a> for PartBuilder<'a, 's> {
    fn part_done(&mut self, bytes: std::ops::Range<usize>, _diags: &mut Diagnostics) {
        self.registry.flush(self.shared.registry);
        self.shared.sizes.note(&self.records);
        self.strings.release();
        if let Some(release) = self.shared.release {
            release(bytes);
        }
    }

    fn event(&mut self, ev: Event<'a>, diags: &mut Diagnostics) {
        self.record(&ev, diags);
    }

    #[inline]
    fn event_in_place(&mut self, ev: &mut Event<'a>, diags: &mut Diagnostics) {
        self.record(ev, diags);
        *ev = Event::default();
    }
}

impl<'a, 's> PartBuilder<'a, 's> {
    /// Turns one event into the record of its family.
    fn record(&mut self, ev: &Event<'a>, diags: &mut Diagnostics) {
        self.records.events += 1;
        let ph = ev.ph_str();
        self.count_phase(ph);
        let input = self.shared.input;
        let is_meta = ph == "M";
        let ts = match ev.ts {
            Some(t) => t,
            None => {
                // A `ts` that is there but not a number is the reader's `bad_field`,
                // which names it; only an absent one is missing.
                if !is_meta && !ev.extra.iter().any(|(k, _)| k == "ts") {
                    diags.add(DiagKind::MissingTs, ev.offset, || excerpt(input, ev.offset));
                }
                0
            }
        };
        if ev.ts.is_some() && !is_meta {
            let end = ts.saturating_add(ev.dur.unwrap_or(0).max(0));
            self.records.min_ts = opt_min(self.records.min_ts, Some(ts));
            self.records.max_end = opt_max(self.records.max_end, Some(end.max(ts)));
        }
        let process = self.process_of(ev);
        if ev.name.as_deref() == Some("TracingStartedInBrowser") {
            let a = self.args(ev);
            self.records.tracing_started.push((ev.offset, a));
        }
        match ph {
            "B" | "E" | "X" => self.duration(ev, ph, process, ts, diags),
            "I" | "i" | "R" => self.instant(ev, ph, process, ts, diags),
            "C" => self.counter(ev, process, ts, diags),
            "b" | "n" | "e" | "S" | "T" | "p" | "F" => self.async_event(ev, ph, process, ts, diags),
            "s" | "t" | "f" => {
                let thread = self.thread_needed(ev, process);
                self.note_thread_end(Some(thread), ts);
                self.flow_v1(ev, ph, thread, process, ts, diags);
            }
            "N" | "O" | "D" => {
                let thread = self.thread_of(ev, process);
                self.note_thread_end(thread, ts);
                self.object(ev, ph, process, ts);
            }
            "P" => self.sample_event(ev, process, ts, diags),
            "M" => {
                let thread = self.thread_of(ev, process);
                let rec = MetaRec {
                    offset: ev.offset,
                    process,
                    thread,
                    name: self.str_opt(&ev.name),
                    args: self.args(ev),
                };
                self.records.metadata.push(rec);
            }
            _ => {
                let known = matches!(ph, "v" | "V" | "c" | "(" | ")");
                if !known {
                    diags.add(DiagKind::UnknownPhase, ev.offset, || {
                        excerpt(input, ev.offset)
                    });
                }
                let thread = self.thread_of(ev, process);
                self.note_thread_end(thread, ts);
                self.other(ev, process, thread, ts);
            }
        }
    }
}

impl<'a, 's> PartBuilder<'a, 's> {
    fn duration(
        &mut self,
        ev: &Event<'a>,
        ph: &str,
        process: ProcessId,
        ts: i64,
        diags: &mut Diagnostics,
    ) {
        let thread = self.thread_needed(ev, process);
        let mut dur = None;
        if ph == "X" {
            match ev.dur {
                Some(d) if d >= 0 => dur = Some(d),
                Some(_) => {
                    let input = self.shared.input;
                    diags.add(DiagKind::BadField, ev.offset, || {
                        format!("negative dur: {}", excerpt(input, ev.offset))
                    });
                }
                None => {}
            }
        }
        self.note_thread_end(Some(thread), dur.map_or(ts, |d| ts.saturating_add(d)));
        let ui_nest = ph != "X" && args_have_ui_nest(ev);
        let kind = match (ph, ui_nest) {
            ("X", _) => DurKind::X,
            ("B", false) => DurKind::B,
            ("B", true) => DurKind::UiB,
            (_, false) => DurKind::E,
            (_, true) => DurKind::UiE,
        };
        let rec = DurFields {
            offset: ev.offset,
            ts,
            dur: Ns::opt(dur),
            tts: Ns::opt(ev.tts),
            tdur: Ns::opt(ev.tdur),
            thread,
            name: self.str_opt(&ev.name),
            cat: self.str_opt(&ev.cat),
            kind,
            // An empty `{}` on an `E` adds nothing to the slice's args.
            args: if ph == "E" && ev.args_text().is_some_and(|a| a.trim() == "{}") {
                TextRef::NONE
            } else {
                self.args(ev)
            },
            cname: self.str_opt(&ev.cname),
        };
        self.records.dur.push(rec);
        if ph != "E" {
            self.flow_v2(ev, false);
        }
    }

    fn flow_v2(&mut self, ev: &Event<'a>, is_async: bool) {
        let (fin, fout) = (ev.flow_in.unwrap_or(false), ev.flow_out.unwrap_or(false));
        if !(fin || fout) {
            return;
        }
        let id = match (&ev.bind_id, &ev.id) {
            (Some(b), _) => b,
            (None, Some(i)) if !is_async => i,
            _ => return,
        };
        let (key, id) = self.id(id);
        self.records.flows_v2.push(FlowV2Rec {
            offset: ev.offset,
            key,
            id,
            flow_in: fin,
            flow_out: fout,
        });
    }

    fn instant(
        &mut self,
        ev: &Event<'a>,
        ph: &str,
        process: ProcessId,
        ts: i64,
        diags: &mut Diagnostics,
    ) {
        let scope = match ev.s.as_deref() {
            None | Some("t") => Scope::Thread,
            Some("p") => Scope::Process,
            Some("g") => Scope::Global,
            Some(_) => {
                let input = self.shared.input;
                diags.add(DiagKind::UnknownScope, ev.offset, || {
                    excerpt(input, ev.offset)
                });
                Scope::Thread
            }
        };
        let thread = (scope != Scope::Global).then(|| self.thread_needed(ev, process));
        self.note_thread_end(thread, ts);
        let rec = InstantRec {
            offset: ev.offset,
            ts,
            scope,
            process,
            thread,
            name: self.str_opt(&ev.name),
            cat: self.str_opt(&ev.cat),
            args: self.args(ev),
            cname: self.str_opt(&ev.cname),
            ph: ph.as_bytes()[0],
        };
        self.records.instants.push(rec);
    }

    fn counter(&mut self, ev: &Event<'a>, process: ProcessId, ts: i64, diags: &mut Diagnostics) {
        let thread = self.thread_of(ev, process);
        self.note_thread_end(thread, ts);
        let input = self.shared.input;
        let name = ev.name.as_deref().unwrap_or("");
        let counter = match &ev.id {
            Some(id) => {
                let shown = format!("{name}[{}]", id.as_written());
                self.strings.intern_any(&shown)
            }
            None => self.str_opt(&ev.name),
        };
        let text = ev.args_text();
        let parsed = text.as_deref().map(Value::parse);
        let members = match &parsed {
            Some(Ok(Value::Object(m))) => m,
            _ => {
                diags.add(DiagKind::BadCounterValue, ev.offset, || {
                    excerpt(input, ev.offset)
                });
                return;
            }
        };
        for (key, v) in members {
            let (text, from_string) = match v {
                Value::Number(n) => (*n, false),
                Value::String(s) if s.trim().parse::<f64>().is_ok() => (s.trim(), true),
                _ => {
                    diags.add(DiagKind::BadCounterValue, ev.offset, || {
                        excerpt(input, ev.offset)
                    });
                    continue;
                }
            };
            if from_string {
                diags.add(DiagKind::NumericString, ev.offset, || {
                    excerpt(input, ev.offset)
                });
            }
            let value: f64 = text.parse().unwrap_or(0.0);
            let exact = Int64::parse(text).filter(|i| match i {
                Int64::I(v) => (*v as f64) as i64 != *v,
                Int64::U(_) => true,
            });
            let series = self.strings.intern_any(key);
            self.records.counters.push(CounterRec {
                offset: ev.offset,
                ts,
                process,
                counter,
                series,
                value,
                exact,
            });
        }
    }

    /// The async id: `id`, else `id2.global`, else `id2.local` (local to the process).
    fn async_id(
        &mut self,
        ev: &Event<'a>,
        process: ProcessId,
        diags: &mut Diagnostics,
    ) -> Option<(IdK, IdVal, Option<ProcessId>)> {
        let input = self.shared.input;
        if ev.id.is_some() && (ev.id2.is_some() || ev.extra.iter().any(|(k, _)| k == "id2")) {
            diags.add(DiagKind::BadId, ev.offset, || {
                format!("both id and id2: {}", excerpt(input, ev.offset))
            });
        }
        let (id, local) = match (&ev.id, &ev.id2) {
            (Some(id), _) => (id, None),
            (None, Some(Id2::Global(g))) => (g, None),
            (None, Some(Id2::Local(l))) => (l, Some(process)),
            (None, None) => {
                diags.add(DiagKind::BadId, ev.offset, || {
                    format!("no usable id: {}", excerpt(input, ev.offset))
                });
                return None;
            }
        };
        let (k, v) = self.id(id);
        Some((k, v, local))
    }

    fn async_event(
        &mut self,
        ev: &Event<'a>,
        ph: &str,
        process: ProcessId,
        ts: i64,
        diags: &mut Diagnostics,
    ) {
        let thread = self.thread_of(ev, process);
        self.note_thread_end(thread, ts);
        let Some((key_id, id, local)) = self.async_id(ev, process, diags) else {
            self.other(ev, process, thread, ts);
            return;
        };
        let global = ev.id.is_none() && matches!(ev.id2, Some(Id2::Global(_)));
        let legacy = matches!(ph, "S" | "T" | "p" | "F");
        let name = self.str_opt(&ev.name);
        let cat = self.str_opt(&ev.cat);
        let scope = self.str_opt(&ev.scope);
        let key = AsyncKey {
            a: if legacy { name } else { cat },
            id: key_id,
            scope,
            local_process: local,
        };
        let step = if matches!(ph, "T" | "p") {
            let text = ev.args_text();
            text.as_deref()
                .and_then(|a| Value::parse(a).ok())
                .and_then(|v| {
                    v.get("step")
                        .and_then(|s| s.as_str().map(|s| self.strings.intern_any(s)))
                })
                .unwrap_or(StrId::NONE)
        } else {
            StrId::NONE
        };
        let rec = AsyncRec {
            offset: ev.offset,
            ts,
            ph: ph.as_bytes()[0],
            process,
            thread,
            name,
            cat,
            key,
            id,
            args: self.args(ev),
            step,
            global,
        };
        self.records.asyncs.push(rec);
        if matches!(ph, "b" | "n") {
            self.flow_v2(ev, true);
        }
    }

    fn flow_v1(
        &mut self,
        ev: &Event<'a>,
        ph: &str,
        thread: ThreadId,
        process: ProcessId,
        ts: i64,
        diags: &mut Diagnostics,
    ) {
        let Some((key_id, id, _)) = self.async_id(ev, process, diags) else {
            self.other(ev, process, Some(thread), ts);
            return;
        };
        let cat = self.str_opt(&ev.cat);
        let name = self.str_opt(&ev.name);
        let rec = FlowRec {
            offset: ev.offset,
            ts,
            ph: ph.as_bytes()[0],
            thread,
            key: (cat, name, key_id),
            id,
            bind_enclosing: ev.bp.as_deref() == Some("e"),
        };
        self.records.flows.push(rec);
    }

    fn object(&mut self, ev: &Event<'a>, ph: &str, process: ProcessId, ts: i64) {
        let (id_src, global) = match (&ev.id, &ev.id2) {
            (Some(i), _) => (Some(i), false),
            (None, Some(Id2::Global(g))) => (Some(g), true),
            (None, Some(Id2::Local(l))) => (Some(l), false),
            (None, None) => (None, false),
        };
        let (key, id) = match id_src {
            Some(i) => self.id(i),
            None => (self.no_id(), IdVal::None),
        };
        let rec = ObjectRec {
            offset: ev.offset,
            ts,
            ph: ph.as_bytes()[0],
            process,
            global,
            name: self.str_opt(&ev.name),
            cat: self.str_opt(&ev.cat),
            key,
            id,
            args: self.args(ev),
        };
        self.records.objects.push(rec);
    }

    fn sample_event(
        &mut self,
        ev: &Event<'a>,
        process: ProcessId,
        ts: i64,
        diags: &mut Diagnostics,
    ) {
        let name = ev.name.as_deref().unwrap_or("");
        let input = self.shared.input;
        let (key, id) = match &ev.id {
            Some(i) => self.id(i),
            None => (self.no_id(), IdVal::None),
        };
        match name {
            "Profile" => {
                let thread = self.thread_needed(ev, process);
                self.note_thread_end(Some(thread), ts);
                let text = ev.args_text();
                let start = text
                    .as_deref()
                    .and_then(|a| Value::parse(a).ok())
                    .and_then(|v| match v.get("data").and_then(|d| d.get("startTime")) {
                        Some(Value::Number(n)) => tracescope_format::time::micros_text_to_ns(n),
                        _ => None,
                    })
                    .unwrap_or(ts);
                self.records.profiles.push(ProfileRec {
                    offset: ev.offset,
                    start,
                    process,
                    thread,
                    key,
                    id,
                });
            }
            "ProfileChunk" => {
                let thread = self.thread_needed(ev, process);
                let mut chunk = ChunkRec {
                    offset: ev.offset,
                    ts,
                    process,
                    thread,
                    key,
                    id,
                    nodes: Vec::new(),
                    samples: Default::default(),
                    deltas: Default::default(),
                };
                let read = ev
                    .args_text()
                    .map(|a| read_chunk(&a, &mut chunk, self.strings.shared(), diags, ev.offset));
                if !matches!(read, Some(Ok(()))) {
                    diags.add(DiagKind::BadProfile, ev.offset, || {
                        excerpt(input, ev.offset)
                    });
                }
                self.records.chunks.push(chunk);
            }
            _ => {
                let thread = self.thread_needed(ev, process);
                self.note_thread_end(Some(thread), ts);
                let sf = match &ev.sf {
                    Some(i) => {
                        let s = i.as_written();
                        self.strings.intern_any(&s)
                    }
                    None => StrId::NONE,
                };
                let stack = self.text(&ev.stack);
                self.records.samples.push(SampleRec {
                    offset: ev.offset,
                    ts,
                    thread,
                    sf,
                    stack,
                    weight: 1.0,
                });
            }
        }
    }
}

/// Offsets an encoded args reference can hold ([`TextRef::in_ctf`]: below its
/// flag bits).
const CTF_OFFSETS: u64 = 1 << 61;

/// Whether the event's args have a top-level `ui-nest` key. Encoded args are only
/// written out when their bytes could give one: the key's text is in them, or an
/// escape that could spell it.
fn args_have_ui_nest(ev: &Event<'_>) -> bool {
    match (&ev.args, &ev.encoded_args) {
        (Some(a), _) => has_ui_nest(&a.text),
        (None, Some(e)) => {
            let could = memchr::memmem::find(e.bytes, b"ui-nest").is_some()
                || memchr::memchr(b'\\', e.bytes).is_some();
            could && ev.args_text().is_some_and(|t| has_ui_nest(&t))
        }
        (None, None) => false,
    }
}

/// Whether `args` has a top-level `ui-nest` key. A substring test first keeps the
/// common case (no such key) to a memchr-speed scan.
fn has_ui_nest(args: &str) -> bool {
    if !args.contains("ui-nest") {
        return false;
    }
    matches!(Value::parse(args), Ok(v) if v.get("ui-nest").is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The phases as the search alone counted them (each new one appended).
    fn searched(phases: &[&str]) -> Vec<(String, u64)> {
        let mut out: Vec<(String, u64)> = Vec::new();
        for ph in phases {
            match out.iter_mut().find(|(p, _)| p == ph) {
                Some((_, n)) => *n += 1,
                None => out.push((ph.to_string(), 1)),
            }
        }
        out
    }

    proptest! {
        /// Phases counted through `phase_at` come out as the search counts them, in
        /// order of first appearance, whatever the phases (one byte, several, none,
        /// not ASCII) and even when `records` is taken part way.
        #[test]
        fn phase_counts_match_the_search(
            picks in proptest::collection::vec(0usize..12, 0..200),
            cut in 0usize..200,
        ) {
            const PHASES: [&str; 12] = ["X", "B", "E", "", "XX", "i", "I", "é", "Xé", "M", "x", "\u{7f}"];
            let phases: Vec<&str> = picks.iter().map(|&i| PHASES[i]).collect();
            let (strings, registry, arena) = (
                SharedStrings::default(),
                SharedRegistry::default(),
                SharedArena::default(),
            );
            let shared = Shared::of("", &strings, &registry, &arena);
            let mut part = PartBuilder::new(&shared);
            let cut = cut.min(phases.len());
            for ph in &phases[..cut] {
                part.count_phase(ph);
            }
            let first = std::mem::take(&mut part.records.phases);
            for ph in &phases[cut..] {
                part.count_phase(ph);
            }
            prop_assert_eq!(first, searched(&phases[..cut]));
            prop_assert_eq!(&part.records.phases, &searched(&phases[cut..]));
        }
    }
}
