//! What lies on one track in a window at a pixel width: the level-of-detail items of
//! every row, the instants of slices tracks, or counter points.

use super::lod::{counter_points, CounterPoints, Grid, Ids, Piece, Rows};
use super::tracks::{exists, slice_track, TrackRef};
use super::QueryIndex;
use crate::strings::StrId;
use crate::tables::{slice_flags, Lane, Scope, ThreadId};
use crate::trace::Trace;

/// Item flags in answers.
pub mod flags {
    pub const DID_NOT_FINISH: u8 = 1;
    pub const OVERLAP: u8 = 2;
    pub const HAS_FLOWS: u8 = 4;
}

/// Columns of the items of a slices, async, objects or samples track.
#[derive(Debug, Default, PartialEq)]
pub struct Items {
    pub ts: Vec<i64>,
    pub dur: Vec<i64>,
    pub row: Vec<u32>,
    /// Table row (slice, async slice, object, frame for samples), -1 when merged.
    pub id: Vec<i64>,
    /// Name of the item, or of the first item of a merged run.
    pub name: Vec<StrId>,
    pub count: Vec<u32>,
    pub flags: Vec<u8>,
    /// `cname`, `StrId::NONE` when absent or merged.
    pub color: Vec<StrId>,
    /// Slices tracks of the call stack: thread and process instants.
    pub instants: Option<Instants>,
    /// Objects tracks: snapshot markers.
    pub snapshots: Option<SnapshotMarks>,
}

/// Object snapshots in a window: at most one per pixel per row (the first).
#[derive(Debug, Default, PartialEq)]
pub struct SnapshotMarks {
    pub ts: Vec<i64>,
    pub row: Vec<u32>,
    /// Object (objects table row).
    pub object: Vec<u32>,
    /// Position in the object's snapshot list.
    pub index: Vec<u32>,
}

impl SnapshotMarks {
    fn build(trace: &Trace, rows: &Rows, g: Grid) -> SnapshotMarks {
        let objs = &trace.tables.objects;
        let snaps = &trace.tables.snapshots;
        let mut out = SnapshotMarks::default();
        let mut marks: Vec<(i64, u32, u32)> = Vec::new();
        for (r, row) in rows.rows.iter().enumerate() {
            marks.clear();
            for o in row.ids.iter() {
                let obj = &objs[o as usize];
                if obj.start >= g.t1 || obj.end < g.t0 {
                    continue;
                }
                for (k, &sn) in obj.snapshots.iter().enumerate() {
                    let ts = snaps[sn.index()].ts;
                    if g.t0 <= ts && ts < g.t1 {
                        marks.push((ts, o, k as u32));
                    }
                }
            }
            marks.sort_unstable();
            let mut last_end = i64::MIN;
            for &(ts, o, k) in &marks {
                if ts < last_end {
                    continue;
                }
                last_end = g.bucket_end(ts);
                out.ts.push(ts);
                out.row.push(r as u32);
                out.object.push(o);
                out.index.push(k);
            }
        }
        out
    }
}

#[derive(Debug, Default, PartialEq)]
pub struct Instants {
    pub ts: Vec<i64>,
    pub name: Vec<StrId>,
    /// Instant row, -1 when several instants of one pixel are merged.
    pub id: Vec<i64>,
    pub scope: Vec<Scope>,
    pub count: Vec<u32>,
}

fn bits(set: &[(bool, u8)]) -> u8 {
    set.iter().filter(|(on, _)| *on).fold(0, |a, (_, b)| a | b)
}

#[derive(Debug, PartialEq)]
pub enum Window {
    Items(Box<Items>),
    Counter(CounterPoints),
}

/// How to describe item `id` of a track: (start, end), name, flags, color.
struct Item {
    span: (i64, i64),
    name: StrId,
    flags: u8,
    color: StrId,
}

impl Items {
    fn add_row(&mut self, row: u32, pieces: &[Piece], ids: &Ids, item: impl Fn(u32) -> Item) {
        for p in pieces {
            let first = item(ids.get(p.first as usize));
            self.ts.push(p.ts);
            self.dur.push(p.end.saturating_sub(p.ts));
            self.row.push(row);
            self.name.push(first.name);
            self.count.push(p.count);
            if p.count == 1 {
                self.id.push(ids.get(p.first as usize) as i64);
                self.flags.push(first.flags);
                self.color.push(first.color);
            } else {
                self.id.push(-1);
                self.flags.push(0);
                self.color.push(StrId::NONE);
            }
        }
    }

    fn add_rows(&mut self, rows: &Rows, g: Grid, item: impl Fn(u32) -> Item) {
        for (r, row) in rows.rows.iter().enumerate() {
            let pieces = row.pieces(g, |id| item(id).span);
            self.add_row(r as u32, &pieces, &row.ids, &item);
        }
    }
}

/// The window's contents, or `None` when the track does not exist.
pub fn track_window(trace: &Trace, index: &QueryIndex, r: TrackRef, g: Grid) -> Option<Window> {
    if !exists(trace, index, r) {
        return None;
    }
    let t = &trace.tables;
    let mut out = Items::default();
    match r {
        TrackRef::Slices { thread, lane } => {
            let s = &t.slices;
            let fl = index.flows(trace);
            if let Some(k) = slice_track(trace, thread, lane) {
                out.add_rows(index.slice_rows(trace, k), g, |i| {
                    let i = i as usize;
                    let f = s.flags[i];
                    Item {
                        span: (s.ts(i), s.end(i)),
                        name: s.name[i],
                        flags: bits(&[
                            (f & slice_flags::DID_NOT_FINISH != 0, flags::DID_NOT_FINISH),
                            (f & slice_flags::OVERLAP != 0, flags::OVERLAP),
                            (fl.slice_has_flows(i as u32), flags::HAS_FLOWS),
                        ]),
                        color: s.cname(i),
                    }
                });
            }
            if lane == Lane::Stack {
                out.instants = Some(index.instants(trace).window(trace, thread, g));
            }
        }
        TrackRef::Async { group } => {
            let a = &t.async_slices;
            let fl = index.flows(trace);
            out.add_rows(index.async_rows(trace, group.index()), g, |i| {
                let i = i as usize;
                Item {
                    span: (a.ts[i], a.ts[i].saturating_add(a.dur[i])),
                    name: a.name[i],
                    flags: bits(&[
                        (a.did_not_finish[i], flags::DID_NOT_FINISH),
                        (fl.async_has_flows(i as u32), flags::HAS_FLOWS),
                    ]),
                    color: StrId::NONE,
                }
            });
        }
        TrackRef::Objects { process } => {
            let objs = &t.objects;
            let rows = &index.objects(trace).by_process[process.index()];
            out.add_rows(rows, g, |i| {
                let o = &objs[i as usize];
                Item {
                    span: (o.start, o.end),
                    name: o.name,
                    // An object never deleted lives on to the end, like a slice that did not finish.
                    flags: o.alive_at_end as u8 * flags::DID_NOT_FINISH,
                    color: StrId::NONE,
                }
            });
            out.snapshots = Some(SnapshotMarks::build(trace, rows, g));
        }
        TrackRef::Samples { thread } => {
            let slot = index.flame_slot(thread)?;
            let f = index.flame(trace, slot);
            let frames = &t.frames;
            out.add_rows(&f.rows, g, |i| {
                let i = i as usize;
                Item {
                    span: f.span(&t.samples, i),
                    name: frames
                        .get(f.frame[i] as usize)
                        .map_or(StrId::NONE, |fr| fr.name),
                    flags: 0,
                    color: StrId::NONE,
                }
            });
            // Ids of a flame chart are frames, not intervals.
            for id in out.id.iter_mut().filter(|id| **id >= 0) {
                *id = f.frame[*id as usize] as i64;
            }
        }
        TrackRef::Screenshots { process } => {
            let film = index.screenshots(trace);
            let row = &film.rows(process)?.rows[0];
            let name = t
                .strings
                .find(super::screenshots::SCREENSHOT)
                .unwrap_or(StrId::NONE);
            let span = |i: u32| {
                let s = &film.shots[i as usize];
                (s.ts, s.end)
            };
            // Ids are snapshots; a merged run keeps its first one, for its thumbnail.
            for p in row.pieces(g, span) {
                let first = &film.shots[row.ids.get(p.first as usize) as usize];
                out.ts.push(p.ts);
                out.dur.push(p.end.saturating_sub(p.ts));
                out.row.push(0);
                out.id.push(first.snapshot.raw() as i64);
                out.name.push(name);
                out.count.push(p.count);
                out.flags.push(0);
                out.color.push(StrId::NONE);
            }
        }
        TrackRef::InstantCounter { series } => {
            let d = &index.derived(trace).series[series as usize];
            return Some(Window::Counter(counter_points(
                &d.ts, &d.value, &d.min_max, g,
            )));
        }
        TrackRef::Counter { series } => {
            let c = &t.counters;
            let (a, b) = c.series[series.index()].rows;
            let (a, b) = (a as usize, b as usize);
            let mm = index.counter(trace, series.index());
            return Some(Window::Counter(counter_points(
                &c.ts[a..b],
                &c.value[a..b],
                mm,
                g,
            )));
        }
    }
    Some(Window::Items(Box::new(out)))
}

/// Thread-scoped instants per thread and process-scoped ones per process.
#[derive(Debug, Default)]
pub struct InstantIndex {
    thread: Vec<Rows>,
    process: Vec<Rows>,
    /// Per process: the thread that gets a track only to show the process's
    /// instants, when no thread of it has slices or instants of its own.
    carrier: Vec<Option<ThreadId>>,
}

impl InstantIndex {
    pub fn build(trace: &Trace) -> InstantIndex {
        let t = &trace.tables;
        let ins = &t.instants;
        let mut thread: Vec<Vec<u32>> = vec![Vec::new(); t.threads.len()];
        let mut process: Vec<Vec<u32>> = vec![Vec::new(); t.processes.len()];
        // The table is sorted by time, so each list is too.
        for i in 0..ins.len() {
            let list = match ins.scope[i] {
                Scope::Thread => ins.thread[i].and_then(|t| thread.get_mut(t.index())),
                Scope::Process => process.get_mut(ins.process[i].index()),
                Scope::Global => None,
            };
            if let Some(l) = list {
                l.push(i as u32);
            }
        }
        let rows = |lists: Vec<Vec<u32>>| -> Vec<Rows> {
            lists
                .into_iter()
                .map(|l| {
                    Rows::build(l.into_iter().map(|i| (i, 0)), 0, |i| {
                        (ins.ts[i as usize], ins.ts[i as usize])
                    })
                })
                .collect()
        };
        let mut busy: Vec<bool> = thread.iter().map(|l| !l.is_empty()).collect();
        for tr in &t.slices.tracks {
            if let Some(b) = busy.get_mut(tr.thread.index()) {
                *b = true;
            }
        }
        // Per process: whether a thread has something, and its first thread.
        let mut any_busy = vec![false; t.processes.len()];
        let mut first: Vec<Option<ThreadId>> = vec![None; t.processes.len()];
        for (th, x) in t.threads.iter().enumerate() {
            let p = x.process.index();
            if p < any_busy.len() {
                any_busy[p] |= busy[th];
                first[p] = first[p].or(Some(ThreadId::at(th)));
            }
        }
        let carrier: Vec<Option<ThreadId>> = (0..t.processes.len())
            .map(|p| first[p].filter(|_| !process[p].is_empty() && !any_busy[p]))
            .collect();
        InstantIndex {
            thread: rows(thread),
            process: rows(process),
            carrier,
        }
    }

    /// Whether a thread has instants that give it a track: its own, or its
    /// process's when it carries them (no thread of the process has anything else
    /// to draw). Process instants also show on every thread that has a track.
    pub fn has_thread_instants(&self, trace: &Trace, thread: ThreadId) -> bool {
        let process = trace.tables.threads.get(thread.index()).map(|t| t.process);
        self.thread
            .get(thread.index())
            .is_some_and(|r| !r.rows.is_empty())
            || process.and_then(|p| self.carrier.get(p.index()).copied().flatten()) == Some(thread)
    }

    /// How many instants a thread shows: its own and its process's.
    pub fn thread_count(&self, trace: &Trace, thread: ThreadId) -> u32 {
        let process = trace.tables.threads.get(thread.index()).map(|t| t.process);
        let n = |rows: Option<&Rows>| rows.and_then(|r| r.rows.first()).map_or(0, |r| r.ids.len());
        (n(self.thread.get(thread.index())) + n(process.and_then(|p| self.process.get(p.index()))))
            as u32
    }

    fn window(&self, trace: &Trace, thread: ThreadId, g: Grid) -> Instants {
        let ins = &trace.tables.instants;
        let mut out = Instants::default();
        let process = trace.tables.threads.get(thread.index()).map(|t| t.process);
        for rows in [
            self.thread.get(thread.index()),
            process.and_then(|p| self.process.get(p.index())),
        ]
        .into_iter()
        .flatten()
        {
            let Some(row) = rows.rows.first() else {
                continue;
            };
            for p in row.pieces(g, |i| (ins.ts[i as usize], ins.ts[i as usize])) {
                let i = row.ids.get(p.first as usize) as usize;
                out.ts.push(p.ts);
                out.name.push(ins.name[i]);
                out.id.push(if p.count == 1 { i as i64 } else { -1 });
                out.scope.push(ins.scope[i]);
                out.count.push(p.count);
            }
        }
        out
    }

    pub fn heap_bytes(&self) -> usize {
        self.thread
            .iter()
            .chain(&self.process)
            .map(|r| r.heap_bytes())
            .sum::<usize>()
            + self.carrier.capacity() * 4
    }
}
