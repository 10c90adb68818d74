//! The tracks the viewer draws, their string ids (`s:3:0`, `p:3`, `a:2`, `c:5`,
//! `o:1`) and display order: per thread its call stack, `ui-nest` lane and CPU
//! samples; per process its counters, async groups and objects.

use std::fmt;

use super::lod::Rows;
use super::QueryIndex;
use crate::tables::{Lane, NONE};
use crate::trace::Trace;

/// A track, by what it shows. Numbers are model indexes (thread, async group,
/// counter series, process).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrackRef {
    Slices { thread: u32, lane: Lane },
    Samples { thread: u32 },
    Async { group: u32 },
    Counter { series: u32 },
    Objects { process: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrackKind {
    Slices,
    Samples,
    Async,
    Counter,
    Objects,
}

impl TrackKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TrackKind::Slices => "slices",
            TrackKind::Samples => "samples",
            TrackKind::Async => "async",
            TrackKind::Counter => "counter",
            TrackKind::Objects => "objects",
        }
    }
}

impl TrackRef {
    pub fn kind(self) -> TrackKind {
        match self {
            TrackRef::Slices { .. } => TrackKind::Slices,
            TrackRef::Samples { .. } => TrackKind::Samples,
            TrackRef::Async { .. } => TrackKind::Async,
            TrackRef::Counter { .. } => TrackKind::Counter,
            TrackRef::Objects { .. } => TrackKind::Objects,
        }
    }

    /// Parses an id strictly: a prefix, then plain decimal numbers (no sign, no
    /// spaces). Says nothing about whether the track exists: see [`exists`].
    pub fn parse(s: &str) -> Option<TrackRef> {
        fn num(s: &str) -> Option<u32> {
            if s.is_empty() || s.len() > 10 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            s.parse().ok()
        }
        let (kind, rest) = s.split_once(':')?;
        Some(match kind {
            "s" => {
                let (t, l) = rest.split_once(':')?;
                let lane = match l {
                    "0" => Lane::Stack,
                    "1" => Lane::UiNest,
                    _ => return None,
                };
                TrackRef::Slices {
                    thread: num(t)?,
                    lane,
                }
            }
            "p" => TrackRef::Samples { thread: num(rest)? },
            "a" => TrackRef::Async { group: num(rest)? },
            "c" => TrackRef::Counter { series: num(rest)? },
            "o" => TrackRef::Objects {
                process: num(rest)?,
            },
            _ => return None,
        })
    }
}

impl fmt::Display for TrackRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TrackRef::Slices { thread, lane } => write!(f, "s:{thread}:{}", lane as u8),
            TrackRef::Samples { thread } => write!(f, "p:{thread}"),
            TrackRef::Async { group } => write!(f, "a:{group}"),
            TrackRef::Counter { series } => write!(f, "c:{series}"),
            TrackRef::Objects { process } => write!(f, "o:{process}"),
        }
    }
}

/// One entry of the track list.
#[derive(Clone, Debug, PartialEq)]
pub struct TrackInfo {
    pub id: TrackRef,
    pub name: String,
    pub rows: u32,
    /// Counters: smallest and largest value.
    pub min_max: Option<(f64, f64)>,
    /// A thread's call stack: how many instants it shows (its own and its
    /// process's), drawn in a thin row of their own above the slices.
    pub instants: u32,
}

/// Index in `SliceTable::tracks` of a thread's lane.
pub(crate) fn slice_track(trace: &Trace, thread: u32, lane: Lane) -> Option<usize> {
    trace
        .tables
        .slices
        .tracks
        .binary_search_by_key(&(thread, lane), |t| (t.thread, t.lane))
        .ok()
}

/// Whether a track with this id is in the track list.
pub fn exists(trace: &Trace, index: &QueryIndex, r: TrackRef) -> bool {
    let t = &trace.tables;
    match r {
        TrackRef::Slices { thread, lane } => {
            slice_track(trace, thread, lane).is_some()
                || (lane == Lane::Stack
                    && (thread as usize) < t.threads.len()
                    && index.instants(trace).has_thread_instants(trace, thread))
        }
        TrackRef::Samples { thread } => index.flame_slot(thread).is_some(),
        TrackRef::Async { group } => (group as usize) < t.async_slices.groups.len(),
        TrackRef::Counter { series } => (series as usize) < t.counters.series.len(),
        TrackRef::Objects { process } => index
            .objects(trace)
            .by_process
            .get(process as usize)
            .is_some_and(|r| !r.rows.is_empty()),
    }
}

/// A thread's tracks in display order: stack, ui-nest lane, CPU samples.
pub fn thread_tracks(trace: &Trace, index: &QueryIndex, thread: u32) -> Vec<TrackInfo> {
    let s = &trace.tables.slices;
    let mut out = Vec::new();
    for lane in [Lane::Stack, Lane::UiNest] {
        let r = TrackRef::Slices { thread, lane };
        if !exists(trace, index, r) {
            continue;
        }
        let rows = slice_track(trace, thread, lane).map_or(0, |k| s.tracks[k].max_depth + 1);
        let (name, instants) = match lane {
            Lane::Stack => (
                trace.thread_label(thread),
                index.instants(trace).thread_count(trace, thread),
            ),
            Lane::UiNest => ("ui-nest".to_string(), 0),
        };
        out.push(TrackInfo {
            id: r,
            name,
            rows,
            min_max: None,
            instants,
        });
    }
    if let Some(slot) = index.flame_slot(thread) {
        out.push(TrackInfo {
            id: TrackRef::Samples { thread },
            name: "CPU samples".to_string(),
            rows: index.flame(trace, slot).depth() as u32,
            min_max: None,
            instants: 0,
        });
    }
    out
}

/// A process's own tracks in display order: counters, async groups, objects.
pub fn process_tracks(trace: &Trace, index: &QueryIndex, process: u32) -> Vec<TrackInfo> {
    let t = &trace.tables;
    let mut out = Vec::new();
    let series = &t.counters.series;
    for (i, c) in series
        .iter()
        .enumerate()
        .filter(|(_, c)| c.process == process)
    {
        let shared = series
            .iter()
            .filter(|o| o.process == process && o.counter == c.counter)
            .count();
        let name = if shared > 1 {
            format!("{} {}", trace.name(c.counter), trace.str(c.series))
        } else {
            trace.name(c.counter).to_string()
        };
        let mm = index.counter(trace, i);
        out.push(TrackInfo {
            id: TrackRef::Counter { series: i as u32 },
            name,
            rows: 1,
            min_max: Some((mm.min, mm.max)),
            instants: 0,
        });
    }
    for (g, grp) in t.async_slices.groups.iter().enumerate() {
        if grp.process == process {
            out.push(TrackInfo {
                id: TrackRef::Async { group: g as u32 },
                name: trace.name(grp.name).to_string(),
                rows: grp.lanes,
                min_max: None,
                instants: 0,
            });
        }
    }
    let r = TrackRef::Objects { process };
    if exists(trace, index, r) {
        out.push(TrackInfo {
            id: r,
            name: "Objects".to_string(),
            rows: index.objects(trace).by_process[process as usize].rows.len() as u32,
            min_max: None,
            instants: 0,
        });
    }
    out
}

/// Object instances packed into lanes per process, so lifetimes never overlap.
#[derive(Debug, Default)]
pub struct ObjectLanes {
    pub lane: Vec<u32>,
    /// Indexed by process; ids are object indexes.
    pub by_process: Vec<Rows>,
}

impl ObjectLanes {
    pub fn build(trace: &Trace) -> ObjectLanes {
        let objs = &trace.tables.objects;
        let mut order: Vec<u32> = (0..objs.len() as u32).collect();
        order.sort_by_key(|&i| (objs[i as usize].process, objs[i as usize].start, i));
        let mut lane = vec![NONE; objs.len()];
        let mut free: Vec<(u32, Vec<i64>)> = Vec::new(); // per process: lane -> free at
        for &i in &order {
            let o = &objs[i as usize];
            if free.last().is_none_or(|f| f.0 != o.process) {
                free.push((o.process, Vec::new()));
            }
            let lanes = &mut free.last_mut().expect("pushed above").1;
            let end = o.end.max(o.start.saturating_add(1));
            let l = match lanes.iter().position(|&f| f <= o.start) {
                Some(l) => l,
                None => {
                    lanes.push(i64::MIN);
                    lanes.len() - 1
                }
            };
            lanes[l] = end;
            lane[i as usize] = l as u32;
        }
        let mut by_process: Vec<Rows> = (0..trace.tables.processes.len())
            .map(|_| Rows::default())
            .collect();
        let mut k = 0;
        while k < order.len() {
            let p = objs[order[k] as usize].process;
            let n = order[k..].partition_point(|&i| objs[i as usize].process == p);
            let ids = &order[k..k + n];
            if let Some(slot) = by_process.get_mut(p as usize) {
                *slot = Rows::build(ids.iter().map(|&i| (i, lane[i as usize])), 0, |i| {
                    let o = &objs[i as usize];
                    (o.start, o.end)
                });
            }
            k += n;
        }
        ObjectLanes { lane, by_process }
    }

    pub fn heap_bytes(&self) -> usize {
        self.lane.capacity() * 4
            + self
                .by_process
                .iter()
                .map(|r| r.heap_bytes())
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_reject_junk() {
        for s in ["s:3:0", "s:0:1", "p:12", "a:0", "c:7", "o:2"] {
            assert_eq!(TrackRef::parse(s).unwrap().to_string(), s);
        }
        for s in [
            "",
            "s:3",
            "s:3:2",
            "s:+3:0",
            "x:1",
            "p:",
            "p:-1",
            "c:1 ",
            "a:99999999999",
            "o:1:2",
            "s:3:0:1",
        ] {
            assert_eq!(TrackRef::parse(s), None, "{s}");
        }
    }
}
