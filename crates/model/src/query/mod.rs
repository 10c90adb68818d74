//! Queries for the viewer: the track list, level of detail in a time window, details
//! of one item, search, flows in a window.
//!
//! Everything here reads a built [`Trace`]; the few indexes the queries need (per-row
//! item lists, counter min/max pyramids, flame-chart intervals, flow lookups) live in
//! a [`QueryIndex`] next to the trace, each built once on first use (or all at once
//! with [`QueryIndex::warm`], so no request pays for a build).

pub mod derived;
pub mod details;
pub mod flame;
pub mod flows;
pub mod instant;
pub mod lod;
pub mod screenshots;
pub mod search;
pub mod tracks;
pub mod window;

use std::sync::OnceLock;

use rayon::prelude::*;

use crate::tables::{AsyncGroupId, ThreadId};
use crate::trace::Trace;

pub use tracks::{view_order, ProcessView, ThreadView, TrackInfo, TrackKind, TrackRef};

/// Lazily built indexes over one trace. Holds no reference to the trace: pass the
/// same trace to every call.
pub struct QueryIndex {
    /// Per slice track (same order as `SliceTable::tracks`).
    slice_rows: Vec<OnceLock<lod::Rows>>,
    /// Row range of each async group (groups are written contiguously).
    async_ranges: Vec<(u32, u32)>,
    async_rows: Vec<OnceLock<lod::Rows>>,
    /// Per counter series: min/max pyramid over its values.
    counters: Vec<OnceLock<lod::MinMax>>,
    /// Sample rows of each thread that has samples: (thread, start, end).
    sample_ranges: Vec<(ThreadId, u32, u32)>,
    flames: Vec<OnceLock<flame::Flame>>,
    objects: OnceLock<tracks::ObjectLanes>,
    instants: OnceLock<window::InstantIndex>,
    flows: OnceLock<flows::FlowIndex>,
    search: OnceLock<search::SearchIndex>,
    derived: OnceLock<derived::DerivedCounters>,
    screenshots: OnceLock<screenshots::Screenshots>,
}

impl QueryIndex {
    /// Cheap: only row ranges are computed here.
    pub fn new(trace: &Trace) -> QueryIndex {
        let t = &trace.tables;
        let mut async_ranges = Vec::with_capacity(t.async_slices.groups.len());
        let groups = &t.async_slices.group;
        for g in (0..t.async_slices.groups.len()).map(AsyncGroupId::at) {
            let a = groups.partition_point(|&x| x < g) as u32;
            let b = groups.partition_point(|&x| x <= g) as u32;
            async_ranges.push((a, b));
        }
        let sample_ranges: Vec<_> = t
            .samples
            .threads()
            .map(|(th, rows)| (th, rows.start as u32, rows.end as u32))
            .collect();
        QueryIndex {
            slice_rows: (0..t.slices.tracks.len())
                .map(|_| OnceLock::new())
                .collect(),
            async_rows: (0..async_ranges.len()).map(|_| OnceLock::new()).collect(),
            async_ranges,
            counters: (0..t.counters.series.len())
                .map(|_| OnceLock::new())
                .collect(),
            flames: (0..sample_ranges.len()).map(|_| OnceLock::new()).collect(),
            sample_ranges,
            objects: OnceLock::new(),
            instants: OnceLock::new(),
            flows: OnceLock::new(),
            search: OnceLock::new(),
            derived: OnceLock::new(),
            screenshots: OnceLock::new(),
        }
    }

    /// Builds every index now, in parallel.
    pub fn warm(&self, trace: &Trace) {
        self.warm_all_but_flames(trace);
        self.warm_flames(trace);
    }

    /// Builds every index but the CPU sample flames: what the first paint needs
    /// (the summary reads a flame's depth through `flame_depth`,
    /// which does not build it).
    pub fn warm_all_but_flames(&self, trace: &Trace) {
        (0..self.slice_rows.len()).into_par_iter().for_each(|i| {
            let _ = self.slice_rows(trace, i);
        });
        (0..self.async_rows.len()).into_par_iter().for_each(|i| {
            let _ = self.async_rows(trace, i);
        });
        (0..self.counters.len()).into_par_iter().for_each(|i| {
            let _ = self.counter(trace, i);
        });
        self.objects(trace);
        self.instants(trace);
        self.flows(trace);
        self.search_index(trace);
        self.derived(trace);
        self.screenshots(trace);
    }

    /// Builds the CPU sample flames (most of the indexes' time on a trace with
    /// long profiles: one thread's samples are walked in order on one core).
    pub fn warm_flames(&self, trace: &Trace) {
        (0..self.flames.len()).into_par_iter().for_each(|i| {
            let _ = self.flame(trace, i);
        });
    }

    /// Counters derived from `UpdateCounters` and `[memory]` instants.
    pub fn derived(&self, trace: &Trace) -> &derived::DerivedCounters {
        self.derived
            .get_or_init(|| derived::DerivedCounters::build(trace))
    }

    /// Screenshots, per process.
    pub fn screenshots(&self, trace: &Trace) -> &screenshots::Screenshots {
        self.screenshots
            .get_or_init(|| screenshots::Screenshots::build(trace))
    }

    pub(crate) fn search_index(&self, trace: &Trace) -> &search::SearchIndex {
        self.search
            .get_or_init(|| search::SearchIndex::build(trace))
    }

    pub(crate) fn slice_rows(&self, trace: &Trace, track: usize) -> &lod::Rows {
        self.slice_rows[track].get_or_init(|| {
            let s = &trace.tables.slices;
            let tr = s.tracks[track];
            lod::Rows::build(
                (tr.rows.0..tr.rows.1).map(|i| (i, s.depth(i as usize))),
                tr.max_depth as usize + 1,
                |i| (s.ts(i as usize), s.end(i as usize)),
            )
        })
    }

    pub(crate) fn async_rows(&self, trace: &Trace, group: usize) -> &lod::Rows {
        self.async_rows[group].get_or_init(|| {
            let a = &trace.tables.async_slices;
            let (lo, hi) = self.async_ranges[group];
            let lanes = a.groups[group].lanes as usize;
            let mut ids: Vec<u32> = (lo..hi).collect();
            ids.sort_by_key(|&i| (a.ts[i as usize], i));
            lod::Rows::build(
                ids.into_iter().map(|i| (i, a.lane[i as usize])),
                lanes,
                |i| {
                    let i = i as usize;
                    (a.ts[i], a.ts[i].saturating_add(a.dur[i]))
                },
            )
        })
    }

    pub(crate) fn counter(&self, trace: &Trace, series: usize) -> &lod::MinMax {
        self.counters[series].get_or_init(|| {
            let c = &trace.tables.counters;
            let (a, b) = c.series[series].rows;
            lod::MinMax::build(&c.value[a as usize..b as usize])
        })
    }

    /// Index into `sample_ranges`/`flames` of a thread's samples, if it has any.
    pub(crate) fn flame_slot(&self, thread: ThreadId) -> Option<usize> {
        self.sample_ranges
            .binary_search_by_key(&thread, |r| r.0)
            .ok()
    }

    pub(crate) fn flame(&self, trace: &Trace, slot: usize) -> &flame::Flame {
        self.flames[slot].get_or_init(|| {
            let (_, a, b) = self.sample_ranges[slot];
            flame::Flame::build(trace, a as usize..b as usize)
        })
    }

    /// The rows of a thread's CPU samples track: the built flame's depth, or the
    /// same number read from the samples' stacks without building it.
    pub(crate) fn flame_depth(&self, trace: &Trace, slot: usize) -> usize {
        match self.flames[slot].get() {
            Some(f) => f.depth(),
            None => {
                let (_, a, b) = self.sample_ranges[slot];
                flame::stack_depth(trace, a as usize..b as usize)
            }
        }
    }

    pub(crate) fn objects(&self, trace: &Trace) -> &tracks::ObjectLanes {
        self.objects
            .get_or_init(|| tracks::ObjectLanes::build(trace))
    }

    pub(crate) fn instants(&self, trace: &Trace) -> &window::InstantIndex {
        self.instants
            .get_or_init(|| window::InstantIndex::build(trace))
    }

    pub(crate) fn flows(&self, trace: &Trace) -> &flows::FlowIndex {
        self.flows.get_or_init(|| flows::FlowIndex::build(trace))
    }

    /// The flow lookups, for [`flows::flows_in_window`].
    pub fn flows_index(&self, trace: &Trace) -> &flows::FlowIndex {
        self.flows(trace)
    }

    /// Heap bytes of the indexes built so far (for the memory benchmark).
    pub fn heap_bytes(&self) -> usize {
        let rows = |v: &[OnceLock<lod::Rows>]| -> usize {
            v.iter()
                .filter_map(|o| o.get())
                .map(|r| r.heap_bytes())
                .sum()
        };
        rows(&self.slice_rows)
            + rows(&self.async_rows)
            + self
                .counters
                .iter()
                .filter_map(|o| o.get())
                .map(|m| m.heap_bytes())
                .sum::<usize>()
            + self
                .flames
                .iter()
                .filter_map(|o| o.get())
                .map(|f| f.heap_bytes())
                .sum::<usize>()
            + self.objects.get().map_or(0, |o| o.heap_bytes())
            + self.instants.get().map_or(0, |o| o.heap_bytes())
            + self.flows.get().map_or(0, |o| o.heap_bytes())
            + self.search.get().map_or(0, |o| o.heap_bytes())
            + self.derived.get().map_or(0, |o| o.heap_bytes())
            + self.screenshots.get().map_or(0, |o| o.heap_bytes())
    }
}
