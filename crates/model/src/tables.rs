//! The model's tables: plain columns with ids between them, no object graphs.
//!
//! Big tables (slices, instants, async slices, counters, samples) are struct-of-arrays;
//! small ones (processes, threads, metadata) are rows.

use tracescope_format::Int64;

use crate::args::TextRef;
use crate::strings::StrId;

/// No row (`parent` of a root, missing reference).
pub const NONE: u32 = u32::MAX;

/// A pid or tid: an integer, or a string naming the process or thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PidK {
    Int(Int64),
    Str(StrId),
}

/// An id as written on an event (`id`, `id2.*`, `bind_id`): integers exact,
/// strings interned. Display with [`crate::Trace::id_text`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IdVal {
    #[default]
    None,
    Int(Int64),
    Str(StrId),
}

#[derive(Clone, Debug)]
pub struct Process {
    pub pid: PidK,
    pub name: StrId,
    pub sort_index: Option<i64>,
    /// `process_labels`, joined with "," in the order read.
    pub labels: StrId,
    pub uptime_seconds: Option<f64>,
    /// URL of the frame this process renders (`TracingStartedInBrowser`).
    pub frame_url: StrId,
    pub renders_frames: bool,
}

#[derive(Clone, Debug)]
pub struct Thread {
    pub process: u32,
    pub tid: PidK,
    pub name: StrId,
    pub sort_index: Option<i64>,
}

/// Which lane of its thread a slice is drawn on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Lane {
    /// The call stack (`B`/`E`, `X`), including extra rows for improper overlaps.
    Stack = 0,
    /// Out-of-band `ui-nest` operations (`docs/reading-rules.md`, section 3).
    UiNest = 1,
}

/// Slice flags.
pub mod slice_flags {
    /// Never closed (`B` without `E`, `X` without `dur`): ends at the thread's last end.
    pub const DID_NOT_FINISH: u8 = 1;
    /// Kept on an extra row because it overlaps a sibling improperly.
    pub const OVERLAP: u8 = 2;
    /// Made from `B`/`E` (else from `X`).
    pub const BEGIN_END: u8 = 4;
}

/// Thread slices, sorted by (thread, lane, start, longer first, file order).
#[derive(Clone, Debug, Default)]
pub struct SliceTable {
    pub thread: Vec<u32>,
    pub lane: Vec<Lane>,
    pub ts: Vec<i64>,
    pub dur: Vec<i64>,
    pub name: Vec<StrId>,
    pub cat: Vec<StrId>,
    pub depth: Vec<u32>,
    pub parent: Vec<u32>,
    pub self_ns: Vec<i64>,
    pub flags: Vec<u8>,
    /// Thread time at start and its duration (`tts`, `tdur`), `i64::MIN` when absent.
    pub tts: Vec<i64>,
    pub tdur: Vec<i64>,
    pub args: Vec<TextRef>,
    /// `args` of the closing `E`, merged over `args` when read.
    pub end_args: Vec<TextRef>,
    pub cname: Vec<StrId>,
    /// Byte offset of the `B`/`X` event.
    pub offset: Vec<u64>,
    /// Row ranges per thread and lane: `track_rows[(thread, lane)]` -> start..end.
    pub tracks: Vec<SliceTrack>,
}

/// A contiguous run of slice rows: one lane of one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceTrack {
    pub thread: u32,
    pub lane: Lane,
    pub rows: (u32, u32),
    pub max_depth: u32,
}

impl SliceTable {
    pub fn len(&self) -> usize {
        self.ts.len()
    }

    pub fn reserve(&mut self, n: usize) {
        macro_rules! each { ($($c:ident),*) => { $(self.$c.reserve_exact(n);)* } }
        each!(
            thread, lane, ts, dur, name, cat, depth, parent, self_ns, flags, tts, tdur, args,
            end_args, cname, offset
        );
    }

    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }
    pub fn end(&self, i: usize) -> i64 {
        self.ts[i].saturating_add(self.dur[i])
    }
    pub fn did_not_finish(&self, i: usize) -> bool {
        self.flags[i] & slice_flags::DID_NOT_FINISH != 0
    }
}

/// Instant scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    Thread,
    Process,
    Global,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Thread => "t",
            Scope::Process => "p",
            Scope::Global => "g",
        }
    }
}

/// Instant events (`I`, `i`, `R`).
#[derive(Clone, Debug, Default)]
pub struct InstantTable {
    pub scope: Vec<Scope>,
    pub process: Vec<u32>,
    /// `NONE` for global instants (they make no thread).
    pub thread: Vec<u32>,
    pub ts: Vec<i64>,
    pub name: Vec<StrId>,
    pub cat: Vec<StrId>,
    pub args: Vec<TextRef>,
    pub cname: Vec<StrId>,
    pub offset: Vec<u64>,
    /// The original phase (`I`, `i` or `R`).
    pub ph: Vec<u8>,
}

impl InstantTable {
    pub fn len(&self) -> usize {
        self.ts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }
}

/// Async slices: nestable (`b`/`n`/`e`) and legacy (`S`/`T`/`p`/`F`) operations.
/// Rows of one operation are contiguous, its root first.
#[derive(Clone, Debug, Default)]
pub struct AsyncSliceTable {
    pub process: Vec<u32>,
    /// Thread of the event that opened the row.
    pub thread: Vec<u32>,
    pub name: Vec<StrId>,
    pub cat: Vec<StrId>,
    pub id: Vec<IdVal>,
    pub ts: Vec<i64>,
    pub dur: Vec<i64>,
    pub depth: Vec<u32>,
    pub parent: Vec<u32>,
    pub did_not_finish: Vec<bool>,
    /// Row within the process's group of this operation (lane packing).
    pub lane: Vec<u32>,
    /// Index into `groups`.
    pub group: Vec<u32>,
    pub args: Vec<TextRef>,
    pub end_args: Vec<TextRef>,
    pub offset: Vec<u64>,
    /// `true` for legacy `S`/`T`/`p`/`F` operations.
    pub legacy: Vec<bool>,
    /// Tracks: per process, operations grouped by the name of their root.
    pub groups: Vec<AsyncGroup>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsyncGroup {
    pub process: u32,
    pub name: StrId,
    pub lanes: u32,
}

impl AsyncSliceTable {
    pub fn len(&self) -> usize {
        self.ts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }
}

/// The end of a flow arrow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SliceRef {
    Thread(u32),
    Async(u32),
}

/// Flow arrows, one row each (v1 `s`/`t`/`f` and v2 `bind_id`).
#[derive(Clone, Debug, Default)]
pub struct FlowTable {
    pub id: Vec<IdVal>,
    pub name: Vec<StrId>,
    pub cat: Vec<StrId>,
    pub from: Vec<SliceRef>,
    pub to: Vec<SliceRef>,
    pub from_ts: Vec<i64>,
    pub to_ts: Vec<i64>,
    /// Thread of the flow event (v1) or of the bound slice (v2) at each end.
    pub from_thread: Vec<u32>,
    pub to_thread: Vec<u32>,
    pub v2: Vec<bool>,
}

impl FlowTable {
    pub fn len(&self) -> usize {
        self.id.len()
    }
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }
}

/// A counter series: one key of `args` of `(pid, name, id)` counter events.
#[derive(Clone, Debug)]
pub struct CounterSeries {
    pub process: u32,
    /// `name`, or `name[id]` when the counter has an id.
    pub counter: StrId,
    pub series: StrId,
    /// Rows of this series in `CounterTable` samples: start..end, sorted by time.
    pub rows: (u32, u32),
}

#[derive(Clone, Debug, Default)]
pub struct CounterTable {
    pub series: Vec<CounterSeries>,
    pub sample_series: Vec<u32>,
    pub ts: Vec<i64>,
    pub value: Vec<f64>,
    /// Integers a float cannot hold exactly, by sample row.
    pub exact: rustc_hash::FxHashMap<u32, Int64>,
}

/// Object instances (`N`/`O`/`D`).
#[derive(Clone, Debug)]
pub struct Object {
    pub process: u32,
    pub global: bool,
    pub name: StrId,
    pub cat: StrId,
    pub id: IdVal,
    pub start: i64,
    pub end: i64,
    /// Never deleted: lives to the end of the trace.
    pub alive_at_end: bool,
    /// Rows in `snapshots`.
    pub snapshots: Vec<u32>,
    pub offset: u64,
}

#[derive(Clone, Debug)]
pub struct Snapshot {
    pub object: u32,
    pub ts: i64,
    pub args: TextRef,
    pub offset: u64,
}

/// One node of a call tree: a frame and its caller. Profile nodes and `stackFrames`
/// entries both live here.
#[derive(Clone, Debug)]
pub struct Frame {
    pub parent: u32,
    pub name: StrId,
    pub url: StrId,
    pub category: StrId,
    /// 0-based as V8 writes them; -1 when unknown.
    pub line: i64,
    pub column: i64,
}

/// A CPU profile (`Profile`/`ProfileChunk`, or a raw `.cpuprofile`).
#[derive(Clone, Debug)]
pub struct Profile {
    pub process: u32,
    pub thread: u32,
    pub id: IdVal,
    pub start: i64,
    /// Rows in `SampleTable` of this profile: start..end.
    pub samples: (u32, u32),
    pub offset: u64,
}

/// Stack samples, sorted by (thread, ts).
#[derive(Clone, Debug, Default)]
pub struct SampleTable {
    pub thread: Vec<u32>,
    pub ts: Vec<i64>,
    /// Leaf frame, or `NONE` for an empty stack.
    pub frame: Vec<u32>,
    /// Profile the sample came from, or `NONE` (a `P` event or top-level `samples`).
    pub profile: Vec<u32>,
    pub weight: Vec<f64>,
}

impl SampleTable {
    pub fn len(&self) -> usize {
        self.ts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }
}

/// A metadata (`M`) event, kept and listed whether or not it was applied.
#[derive(Clone, Debug)]
pub struct MetadataEvent {
    pub process: u32,
    pub thread: u32,
    pub name: StrId,
    pub args: TextRef,
    pub offset: u64,
}

/// Events kept but not drawn: `v`/`V`, `c`, `(`/`)`, unknown phases, and events
/// that could not be placed (async without id, ...).
#[derive(Clone, Debug, Default)]
pub struct OtherTable {
    pub ph: Vec<StrId>,
    pub name: Vec<StrId>,
    pub cat: Vec<StrId>,
    pub process: Vec<u32>,
    pub thread: Vec<u32>,
    /// `i64::MIN` when the event has no `ts`.
    pub ts: Vec<i64>,
    pub args: Vec<TextRef>,
    pub offset: Vec<u64>,
}

impl OtherTable {
    pub fn len(&self) -> usize {
        self.ts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }
}
