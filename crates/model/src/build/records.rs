//! Compact records of events, made by the parts in parallel and assembled after.

/// Applies macro `$m` to every family of records joined by appending (all but
/// `dur`, kept per part).
macro_rules! families {
    ($m:ident) => {
        $m!(
            instants,
            asyncs,
            flows,
            flows_v2,
            counters,
            objects,
            profiles,
            chunks,
            samples,
            metadata,
            other,
            tracing_started
        )
    };
}

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use tracescope_format::Int64;

pub use super::dur_rec::{DurFields, DurKind, DurRec, DurRecs, DurSlice, DurWide};
use crate::args::TextRef;
use crate::strings::StrId;
use crate::tables::{IdVal, Ns, ProcessId, Scope, ThreadId};

/// "No end yet" for the latest end of a thread (the identity of `max`).
pub const NO_TIME: i64 = i64::MIN;

/// What an id compares by: an integer, or an interned string (`is_str`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IdK {
    pub v: u64,
    pub is_str: bool,
    /// The input file (0 for a single file): ids of different files never match.
    pub file: u32,
}

#[derive(Clone, Debug)]
pub struct InstantRec {
    pub offset: u64,
    pub ts: i64,
    pub scope: Scope,
    pub process: ProcessId,
    pub thread: Option<ThreadId>,
    pub name: StrId,
    pub cat: StrId,
    pub args: TextRef,
    pub cname: StrId,
    pub ph: u8,
}

/// What an async operation is keyed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AsyncKey {
    /// `cat` for nestable events, `name` for legacy ones.
    pub a: StrId,
    pub id: IdK,
    pub scope: StrId,
    /// The process for `id2.local` ids.
    pub local_process: Option<ProcessId>,
}

#[derive(Clone, Debug)]
pub struct AsyncRec {
    pub offset: u64,
    pub ts: i64,
    pub ph: u8,
    pub process: ProcessId,
    pub thread: Option<ThreadId>,
    pub name: StrId,
    pub cat: StrId,
    pub key: AsyncKey,
    pub id: IdVal,
    pub args: TextRef,
    /// Legacy steps: `args.step`.
    pub step: StrId,
    /// The id is `id2.global`.
    pub global: bool,
}

#[derive(Clone, Debug)]
pub struct FlowRec {
    pub offset: u64,
    pub ts: i64,
    pub ph: u8,
    pub thread: ThreadId,
    pub key: (StrId, StrId, IdK),
    pub id: IdVal,
    /// `bp: "e"`: an `f` binds to the enclosing slice.
    pub bind_enclosing: bool,
}

/// A v2 flow point on a slice event (`bind_id` with `flow_in`/`flow_out`).
#[derive(Clone, Debug)]
pub struct FlowV2Rec {
    /// Offset of the slice's event.
    pub offset: u64,
    pub key: IdK,
    pub id: IdVal,
    pub flow_in: bool,
    pub flow_out: bool,
}

#[derive(Clone, Debug)]
pub struct CounterRec {
    pub offset: u64,
    pub ts: i64,
    pub process: ProcessId,
    pub counter: StrId,
    pub series: StrId,
    pub value: f64,
    pub exact: Option<Int64>,
}

#[derive(Clone, Debug)]
pub struct ObjectRec {
    pub offset: u64,
    pub ts: i64,
    pub ph: u8,
    pub process: ProcessId,
    pub global: bool,
    pub name: StrId,
    pub cat: StrId,
    pub key: IdK,
    pub id: IdVal,
    pub args: TextRef,
}

#[derive(Clone, Debug)]
pub struct ProfileRec {
    pub offset: u64,
    pub start: i64,
    pub process: ProcessId,
    pub thread: ThreadId,
    pub key: IdK,
    pub id: IdVal,
}

#[derive(Clone, Debug)]
pub struct NodeRec {
    pub id: i64,
    pub parent: Option<i64>,
    pub children: Vec<i64>,
    pub name: StrId,
    pub url: StrId,
    pub line: Option<i64>,
    pub column: Option<i64>,
}

#[derive(Clone, Debug)]
pub struct ChunkRec {
    pub offset: u64,
    pub ts: i64,
    pub process: ProcessId,
    pub thread: ThreadId,
    pub key: IdK,
    pub id: IdVal,
    pub nodes: Vec<NodeRec>,
    /// Node ids.
    pub samples: ChunkInts,
    /// Time deltas in ns.
    pub deltas: ChunkInts,
}

/// A chunk's node ids or time deltas, as read: 4 bytes each when every one fits
/// an `i32` (node ids are small, and deltas of up to 2.1 s fit), else 8. All the
/// parts' chunks are held until the profiles step, at 8 bytes a value they were
/// a fifth of the records then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkInts {
    Narrow(Vec<i32>),
    Wide(Vec<i64>),
}

impl Default for ChunkInts {
    fn default() -> Self {
        ChunkInts::Narrow(Vec::new())
    }
}

impl ChunkInts {
    /// Appends `v`: the values so far are widened if it does not fit.
    pub fn push(&mut self, v: i64) {
        match self {
            ChunkInts::Narrow(narrow) => match i32::try_from(v) {
                Ok(n) => narrow.push(n),
                Err(_) => {
                    let mut wide: Vec<i64> = Vec::with_capacity(narrow.len() + 1);
                    wide.extend(narrow.iter().map(|&n| i64::from(n)));
                    wide.push(v);
                    *self = ChunkInts::Wide(wide);
                }
            },
            ChunkInts::Wide(wide) => wide.push(v),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            ChunkInts::Narrow(v) => v.len(),
            ChunkInts::Wide(v) => v.len(),
        }
    }

    /// Keeps the first `n` values.
    pub fn truncate(&mut self, n: usize) {
        match self {
            ChunkInts::Narrow(v) => v.truncate(n),
            ChunkInts::Wide(v) => v.truncate(n),
        }
    }

    /// Gives back the room the vector grew beyond its values (a chunk's are
    /// kept until the profiles step).
    pub fn shrink_to_fit(&mut self) {
        match self {
            ChunkInts::Narrow(v) => v.shrink_to_fit(),
            ChunkInts::Wide(v) => v.shrink_to_fit(),
        }
    }

    /// The values in order.
    pub fn iter(&self) -> ChunkIntsIter<'_> {
        match self {
            ChunkInts::Narrow(v) => ChunkIntsIter::Narrow(v.iter()),
            ChunkInts::Wide(v) => ChunkIntsIter::Wide(v.iter()),
        }
    }
}

impl FromIterator<i64> for ChunkInts {
    /// The values, narrow if they all fit, in a vector of their size.
    fn from_iter<I: IntoIterator<Item = i64>>(values: I) -> Self {
        let mut out = ChunkInts::default();
        for v in values {
            out.push(v);
        }
        out.shrink_to_fit();
        out
    }
}

/// The values of a [`ChunkInts`], as `i64`.
pub enum ChunkIntsIter<'a> {
    Narrow(std::slice::Iter<'a, i32>),
    Wide(std::slice::Iter<'a, i64>),
}

impl Iterator for ChunkIntsIter<'_> {
    type Item = i64;

    fn next(&mut self) -> Option<i64> {
        match self {
            ChunkIntsIter::Narrow(it) => it.next().map(|&n| n.into()),
            ChunkIntsIter::Wide(it) => it.next().copied(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            ChunkIntsIter::Narrow(it) => it.size_hint(),
            ChunkIntsIter::Wide(it) => it.size_hint(),
        }
    }
}

impl ExactSizeIterator for ChunkIntsIter<'_> {}

/// A `P` sample (or a top-level `samples` entry) with its stack.
#[derive(Clone, Debug)]
pub struct SampleRec {
    pub offset: u64,
    pub ts: i64,
    pub thread: ThreadId,
    /// `sf` id as text (`stackFrames` keys are strings).
    pub sf: StrId,
    /// `stack` array text.
    pub stack: TextRef,
    pub weight: f64,
}

#[derive(Clone, Debug)]
pub struct MetaRec {
    pub offset: u64,
    pub process: ProcessId,
    pub thread: Option<ThreadId>,
    pub name: StrId,
    pub args: TextRef,
}

#[derive(Clone, Debug)]
pub struct OtherRec {
    pub offset: u64,
    pub ph: StrId,
    pub name: StrId,
    pub cat: StrId,
    pub process: ProcessId,
    pub thread: Option<ThreadId>,
    pub ts: Option<Ns>,
    pub args: TextRef,
}

/// Everything one part of the input produced.
#[derive(Clone, Default)]
pub struct Records {
    pub events: u64,
    pub phases: Vec<(String, u64)>,
    pub min_ts: Option<i64>,
    pub max_end: Option<i64>,
    /// Latest end of any event, per thread index.
    pub thread_end: Vec<i64>,
    pub dur: DurRecs,
    /// After [`Records::concat`]: each part's `dur`, in file order, not copied
    /// into one (the slice step gathers them per thread).
    pub dur_parts: Vec<DurRecs>,
    pub instants: Vec<InstantRec>,
    pub asyncs: Vec<AsyncRec>,
    pub flows: Vec<FlowRec>,
    pub flows_v2: Vec<FlowV2Rec>,
    pub counters: Vec<CounterRec>,
    pub objects: Vec<ObjectRec>,
    pub profiles: Vec<ProfileRec>,
    pub chunks: Vec<ChunkRec>,
    pub samples: Vec<SampleRec>,
    pub metadata: Vec<MetaRec>,
    pub other: Vec<OtherRec>,
    /// `TracingStartedInBrowser` events' args.
    pub tracing_started: Vec<(u64, TextRef)>,
    /// After [`Records::concat`]: the parts whose families (all but `dur`) are
    /// not joined yet, in file order, after this one's own (their counts, ends
    /// and duration records are in this one).
    pub pending: Vec<Records>,
}

impl Records {
    /// Every part's duration records, in file order.
    pub fn take_dur(&mut self) -> Vec<DurRecs> {
        let mut parts = std::mem::take(&mut self.dur_parts);
        parts.push(std::mem::take(&mut self.dur));
        parts
    }

    /// Joins the records of all parts, in file order. Only the counts and the
    /// per-thread ends are merged here: each part's `dur` is kept in `dur_parts`,
    /// and its other families in `pending`, joined by [`Records::join_families`]
    /// where the build needs them (beside the slices step, on the core it leaves
    /// free, instead of before it).
    pub fn concat(parts: Vec<Records>) -> Records {
        let mut out = Records::default();
        out.dur_parts.reserve_exact(parts.len());
        out.pending.reserve_exact(parts.len());
        for mut p in parts {
            let pending = std::mem::take(&mut p.pending);
            out.add_counts(&mut p);
            out.pending.push(p);
            out.pending.extend(pending);
        }
        out
    }

    /// Moves `p`'s duration records, counts and ends into `self`.
    fn add_counts(&mut self, p: &mut Records) {
        // Records already joined (one per file of several) keep their parts.
        self.dur_parts.append(&mut p.dur_parts);
        self.dur_parts.push(std::mem::take(&mut p.dur));
        self.events += std::mem::take(&mut p.events);
        for (ph, n) in std::mem::take(&mut p.phases) {
            match self.phases.iter_mut().find(|(q, _)| *q == ph) {
                Some((_, c)) => *c += n,
                None => self.phases.push((ph, n)),
            }
        }
        self.min_ts = opt_min(self.min_ts, p.min_ts.take());
        self.max_end = opt_max(self.max_end, p.max_end.take());
        let ends = std::mem::take(&mut p.thread_end);
        if self.thread_end.len() < ends.len() {
            self.thread_end.resize(ends.len(), NO_TIME);
        }
        for (i, e) in ends.iter().enumerate() {
            self.thread_end[i] = self.thread_end[i].max(*e);
        }
    }

    /// Joins the families of the `pending` parts into this one's, in file order:
    /// each family copied once, one task each on the rayon pool.
    pub fn join_families(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut parts = std::mem::take(&mut self.pending);
        macro_rules! join_all {
            ($($f:ident),*) => {
                rayon::scope(|s| {
                    $(
                        let from: Vec<_> = parts.iter_mut().map(|p| std::mem::take(&mut p.$f)).collect();
                        let to = &mut self.$f;
                        s.spawn(move |_| {
                            to.reserve_exact(from.iter().map(Vec::len).sum());
                            for mut v in from {
                                to.append(&mut v);
                            }
                        });
                    )*
                });
            };
        }
        families!(join_all);
    }

    /// One family of this part and of the pending ones, joined (taken out of
    /// them): for the small families needed before the others are joined.
    pub fn take_joined<T>(&mut self, family: impl Fn(&mut Records) -> &mut Vec<T>) -> Vec<T> {
        let mut out = std::mem::take(family(self));
        out.reserve_exact(self.pending.iter_mut().map(|p| family(p).len()).sum());
        for p in &mut self.pending {
            out.append(family(p));
        }
        out
    }

    /// One family of this part and of the pending ones, each part's vector as it
    /// is (in file order, empty ones left out): not copied into one.
    pub fn take_parts<T>(&mut self, family: impl Fn(&mut Records) -> &mut Vec<T>) -> Vec<Vec<T>> {
        let mut out = Vec::with_capacity(1 + self.pending.len());
        out.push(std::mem::take(family(self)));
        for p in &mut self.pending {
            out.push(std::mem::take(family(p)));
        }
        out.retain(|v| !v.is_empty());
        out
    }

    /// Appends the records of the input that follows (a part, or the bytes
    /// appended to a followed file).
    pub fn extend(&mut self, mut p: Records) {
        self.join_families();
        p.join_families();
        macro_rules! join {
            ($($f:ident),*) => {$(self.$f.append(&mut p.$f);)*};
        }
        families!(join);
        self.add_counts(&mut p);
    }
}

impl Records {
    /// Places one file's records among several: byte offsets (and the ranges of
    /// raw text in the file) move by `base`, the file's place in the joined input;
    /// timestamps move by `shift` ns (`--align`, `FILE@+1ms`). Thread times stay.
    pub fn place(&mut self, base: u64, shift: i64) {
        for p in &mut self.pending {
            p.place(base, shift);
        }
        let t = |ts: &mut i64| *ts = ts.saturating_add(shift);
        for part in std::iter::once(&mut self.dur).chain(&mut self.dur_parts) {
            part.place(base, shift);
        }
        for r in &mut self.instants {
            r.offset += base;
            t(&mut r.ts);
            r.args = r.args.moved(base);
        }
        for r in &mut self.asyncs {
            r.offset += base;
            t(&mut r.ts);
            r.args = r.args.moved(base);
        }
        for r in &mut self.flows {
            r.offset += base;
            t(&mut r.ts);
        }
        for r in &mut self.flows_v2 {
            r.offset += base;
        }
        for r in &mut self.counters {
            r.offset += base;
            t(&mut r.ts);
        }
        for r in &mut self.objects {
            r.offset += base;
            t(&mut r.ts);
            r.args = r.args.moved(base);
        }
        for r in &mut self.profiles {
            r.offset += base;
            t(&mut r.start);
        }
        for r in &mut self.chunks {
            r.offset += base;
            t(&mut r.ts);
        }
        for r in &mut self.samples {
            r.offset += base;
            t(&mut r.ts);
            r.stack = r.stack.moved(base);
        }
        for r in &mut self.metadata {
            r.offset += base;
            r.args = r.args.moved(base);
        }
        for r in &mut self.other {
            r.offset += base;
            r.ts = r.ts.map(|ts| Ns::new(ts.get().saturating_add(shift)));
            r.args = r.args.moved(base);
        }
        for (offset, args) in &mut self.tracing_started {
            *offset += base;
            *args = args.moved(base);
        }
        for e in &mut self.thread_end {
            if *e != NO_TIME {
                t(e);
            }
        }
        self.min_ts = self.min_ts.map(|x| x.saturating_add(shift));
        self.max_end = self.max_end.map(|x| x.saturating_add(shift));
    }

    /// Calls `pm` on every process id and `tm` on every thread id the records hold.
    pub fn visit(&mut self, mut pm: impl FnMut(&mut ProcessId), mut tm: impl FnMut(&mut ThreadId)) {
        for part in std::iter::once(&mut self.dur).chain(&mut self.dur_parts) {
            part.recs.iter_mut().for_each(|r| tm(&mut r.thread));
        }
        self.visit_families(&mut pm, &mut tm);
        for p in &mut self.pending {
            p.visit_families(&mut pm, &mut tm);
        }
    }

    /// [`Records::visit`] of this part's families but `dur`.
    fn visit_families(
        &mut self,
        mut pm: impl FnMut(&mut ProcessId),
        mut tm: impl FnMut(&mut ThreadId),
    ) {
        self.flows.iter_mut().for_each(|r| tm(&mut r.thread));
        self.samples.iter_mut().for_each(|r| tm(&mut r.thread));
        self.counters.iter_mut().for_each(|r| pm(&mut r.process));
        self.objects.iter_mut().for_each(|r| pm(&mut r.process));
        for r in &mut self.instants {
            pm(&mut r.process);
            r.thread.iter_mut().for_each(&mut tm);
        }
        for r in &mut self.asyncs {
            pm(&mut r.process);
            r.thread.iter_mut().for_each(&mut tm);
            r.key.local_process.iter_mut().for_each(&mut pm);
        }
        for r in &mut self.profiles {
            pm(&mut r.process);
            tm(&mut r.thread);
        }
        for r in &mut self.chunks {
            pm(&mut r.process);
            tm(&mut r.thread);
        }
        for r in &mut self.metadata {
            pm(&mut r.process);
            r.thread.iter_mut().for_each(&mut tm);
        }
        for r in &mut self.other {
            pm(&mut r.process);
            r.thread.iter_mut().for_each(&mut tm);
        }
    }

    /// Rewrites process and thread ids with old-to-new maps (`None`: dropped, and
    /// so used by no record).
    pub fn remap(&mut self, p: &[Option<ProcessId>], t: &[Option<ThreadId>]) {
        self.visit(
            |x| *x = p[x.index()].unwrap_or(*x),
            |x| *x = t[x.index()].unwrap_or(*x),
        );
        let kept = t.iter().flatten().count();
        let mut ends = vec![NO_TIME; kept];
        for (old, e) in self.thread_end.iter().enumerate() {
            if let Some(slot) = t
                .get(old)
                .copied()
                .flatten()
                .and_then(|new| ends.get_mut(new.index()))
            {
                *slot = *e;
            }
        }
        self.thread_end = ends;
    }
}

/// How many record families a part holds: `dur` and the [`families!`].
const FAMILY_COUNT: usize = 13;

/// The most records of each family one part of this load has held so far. A new
/// part reserves that many (and an eighth more) up front: a vector that grows by
/// doubling copies its records into fresh pages at each step, and below glibc's
/// mmap threshold (128 KiB) every step is such a copy (about a quarter of the
/// read's page faults at 1 GB). Blocks above the threshold are mappings of their
/// own whose untouched pages cost nothing, so reserving too much costs little.
#[derive(Default)]
pub struct PartSizes {
    most: [AtomicUsize; FAMILY_COUNT],
}

impl PartSizes {
    /// Empty records with room for what the fullest part so far held.
    pub fn reserved(&self) -> Records {
        let mut r = Records::default();
        let mut most = self.most.iter().map(|m| m.load(Relaxed));
        macro_rules! reserve {
            ($($f:ident),*) => {$(
                let n = most.next().unwrap_or(0);
                r.$f.reserve_exact(n + n / 8);
            )*};
        }
        reserve!(dur);
        families!(reserve);
        r
    }

    /// Learns from the records of a finished part.
    pub fn note(&self, r: &Records) {
        let mut most = self.most.iter();
        macro_rules! note {
            ($($f:ident),*) => {$(
                if let Some(m) = most.next() {
                    m.fetch_max(r.$f.len(), Relaxed);
                }
            )*};
        }
        note!(dur);
        families!(note);
    }
}

pub fn opt_min(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

pub fn opt_max(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every family is counted and reserved: a family missing from
    /// `FAMILY_COUNT` would get no room.
    #[test]
    fn part_sizes_reserve_every_family() {
        let sizes = PartSizes::default();
        assert_eq!(sizes.reserved().dur.recs.capacity(), 0);
        let mut part = Records {
            dur: std::iter::repeat_n(dur_fields(), 16).collect(),
            ..Records::default()
        };
        part.tracing_started.resize(8, (0, TextRef::NONE));
        sizes.note(&part);
        part.dur.recs.truncate(4);
        sizes.note(&part);
        let r = sizes.reserved();
        let room = r.dur.recs.capacity();
        assert!(room >= 18, "{room}");
        assert!(r.tracing_started.capacity() >= 9);
        assert!(r.dur.is_empty() && r.tracing_started.is_empty());
        assert_eq!(r.instants.capacity(), 0);
    }

    /// A chunk's values stay 4 bytes each while they fit an `i32`; the first
    /// one that does not widens them all, and every value reads back as pushed.
    #[test]
    fn chunk_values_widen_when_one_does_not_fit() {
        let fit = [0, 1, -1, i64::from(i32::MAX), i64::from(i32::MIN), 140_000];
        let narrow: ChunkInts = fit.iter().copied().collect();
        assert!(matches!(&narrow, ChunkInts::Narrow(v) if v.capacity() == fit.len()));
        assert_eq!(narrow.iter().collect::<Vec<_>>(), fit);
        for past in [
            i64::from(i32::MAX) + 1,
            i64::from(i32::MIN) - 1,
            i64::MAX,
            i64::MIN,
        ] {
            for at in 0..=fit.len() {
                let mut values = fit.to_vec();
                values.insert(at, past);
                let mut read: ChunkInts = values.iter().copied().collect();
                assert!(matches!(read, ChunkInts::Wide(_)), "{past} at {at}");
                assert_eq!(read.iter().collect::<Vec<_>>(), values);
                assert_eq!(read.iter().len(), values.len());
                read.truncate(at);
                assert_eq!(read.iter().collect::<Vec<_>>(), values[..at]);
            }
        }
        assert_eq!(ChunkInts::default().iter().next(), None);
    }

    fn dur_fields() -> DurFields {
        DurFields {
            offset: 0,
            ts: 0,
            dur: None,
            tts: None,
            tdur: None,
            thread: ThreadId::new(0),
            name: StrId::NONE,
            cat: StrId::NONE,
            kind: DurKind::X,
            args: TextRef::NONE,
            cname: StrId::NONE,
        }
    }
}
