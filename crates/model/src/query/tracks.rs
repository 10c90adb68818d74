//! The tracks the viewer draws, their string ids (`s:3:0`, `p:3`, `a:2`, `c:5`,
//! `ic:0`, `o:1`, `f:1`) and display order: per thread its call stack, `ui-nest`
//! lane and CPU samples; per process its filmstrip, counters (of `C` events, then
//! those derived from instants), async groups and objects. [`view_order`] puts
//! the processes and threads in the order the viewer shows them: the work first.

use std::fmt;

use super::lod::Rows;
use super::screenshots::is_screenshot_object;
use super::QueryIndex;
use crate::tables::{AsyncGroupId, Lane, ProcessId, SeriesId, ThreadId};
use crate::trace::Trace;

/// A track, by what it shows: ids of the model's rows (thread, async group,
/// counter series, process).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrackRef {
    Slices {
        thread: ThreadId,
        lane: Lane,
    },
    Samples {
        thread: ThreadId,
    },
    Async {
        group: AsyncGroupId,
    },
    Counter {
        series: SeriesId,
    },
    /// A counter derived from instants (see [`super::derived`]): its index there.
    InstantCounter {
        series: u32,
    },
    Objects {
        process: ProcessId,
    },
    /// A process's screenshots (see [`super::screenshots`]).
    Screenshots {
        process: ProcessId,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrackKind {
    Slices,
    Samples,
    Async,
    Counter,
    Objects,
    Screenshots,
}

impl TrackKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TrackKind::Slices => "slices",
            TrackKind::Samples => "samples",
            TrackKind::Async => "async",
            TrackKind::Counter => "counter",
            TrackKind::Objects => "objects",
            TrackKind::Screenshots => "screenshots",
        }
    }
}

impl TrackRef {
    pub fn kind(self) -> TrackKind {
        match self {
            TrackRef::Slices { .. } => TrackKind::Slices,
            TrackRef::Samples { .. } => TrackKind::Samples,
            TrackRef::Async { .. } => TrackKind::Async,
            TrackRef::Counter { .. } | TrackRef::InstantCounter { .. } => TrackKind::Counter,
            TrackRef::Objects { .. } => TrackKind::Objects,
            TrackRef::Screenshots { .. } => TrackKind::Screenshots,
        }
    }

    /// Parses an id strictly: a prefix, then plain decimal numbers (no sign, no
    /// spaces). Says nothing about whether the track exists: see [`exists`].
    pub fn parse(s: &str) -> Option<TrackRef> {
        fn num(s: &str) -> Option<u32> {
            if s.is_empty() || s.len() > 10 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            // u32::MAX is no row index (ids are index + 1 in a u32).
            s.parse().ok().filter(|&n| n < u32::MAX)
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
                    thread: ThreadId::new(num(t)?),
                    lane,
                }
            }
            "p" => TrackRef::Samples {
                thread: ThreadId::new(num(rest)?),
            },
            "a" => TrackRef::Async {
                group: AsyncGroupId::new(num(rest)?),
            },
            "c" => TrackRef::Counter {
                series: SeriesId::new(num(rest)?),
            },
            "ic" => TrackRef::InstantCounter { series: num(rest)? },
            "o" => TrackRef::Objects {
                process: ProcessId::new(num(rest)?),
            },
            "f" => TrackRef::Screenshots {
                process: ProcessId::new(num(rest)?),
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
            TrackRef::InstantCounter { series } => write!(f, "ic:{series}"),
            TrackRef::Objects { process } => write!(f, "o:{process}"),
            TrackRef::Screenshots { process } => write!(f, "f:{process}"),
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
pub(crate) fn slice_track(trace: &Trace, thread: ThreadId, lane: Lane) -> Option<usize> {
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
                    && thread.index() < t.threads.len()
                    && index.instants(trace).has_thread_instants(trace, thread))
        }
        TrackRef::Samples { thread } => index.flame_slot(thread).is_some(),
        TrackRef::Async { group } => group.index() < t.async_slices.groups.len(),
        TrackRef::Counter { series } => series.index() < t.counters.series.len(),
        TrackRef::InstantCounter { series } => {
            (series as usize) < index.derived(trace).series.len()
        }
        TrackRef::Screenshots { process } => index.screenshots(trace).count(process) > 0,
        TrackRef::Objects { process } => index
            .objects(trace)
            .by_process
            .get(process.index())
            .is_some_and(|r| !r.rows.is_empty()),
    }
}

/// A thread's tracks in display order: stack, ui-nest lane, CPU samples.
pub fn thread_tracks(trace: &Trace, index: &QueryIndex, thread: ThreadId) -> Vec<TrackInfo> {
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
            rows: index.flame_depth(trace, slot) as u32,
            min_max: None,
            instants: 0,
        });
    }
    out
}

/// A process's own tracks in display order: filmstrip, counters, counters derived
/// from instants, async groups, objects.
pub fn process_tracks(trace: &Trace, index: &QueryIndex, process: ProcessId) -> Vec<TrackInfo> {
    let t = &trace.tables;
    let mut out = Vec::new();
    let film = TrackRef::Screenshots { process };
    if exists(trace, index, film) {
        out.push(TrackInfo {
            id: film,
            name: "Screenshots".to_string(),
            rows: 1,
            min_max: None,
            instants: 0,
        });
    }
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
            id: TrackRef::Counter {
                series: SeriesId::at(i),
            },
            name,
            rows: 1,
            min_max: Some((mm.min, mm.max)),
            instants: 0,
        });
    }
    for (i, d) in index.derived(trace).series.iter().enumerate() {
        if d.process == process {
            out.push(TrackInfo {
                id: TrackRef::InstantCounter { series: i as u32 },
                name: d.name.clone(),
                rows: 1,
                min_max: Some((d.min_max.min, d.min_max.max)),
                instants: 0,
            });
        }
    }
    for (g, grp) in t.async_slices.groups.iter().enumerate() {
        if grp.process == process {
            out.push(TrackInfo {
                id: TrackRef::Async {
                    group: AsyncGroupId::at(g),
                },
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
            rows: index.objects(trace).by_process[process.index()].rows.len() as u32,
            min_max: None,
            instants: 0,
        });
    }
    out
}

/// Thread names that mark a process's main thread when its tid is not its pid.
pub const MAIN_THREAD_NAMES: [&str; 4] = ["CrBrowserMain", "CrRendererMain", "CrGpuMain", "main"];

/// A thread in the viewer's order, with what placed it there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadView {
    pub thread: ThreadId,
    /// The process's main thread (shown first).
    pub main: bool,
    /// Time covered by its top-level slices (their union), ns.
    pub busy_ns: i64,
    /// Its slices, instants and CPU samples.
    pub events: u64,
    /// Nothing to draw: no track.
    pub empty: bool,
}

/// A process in the viewer's order, its threads in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessView {
    pub process: ProcessId,
    pub threads: Vec<ThreadView>,
    /// Sum of its threads' busy time, ns.
    pub busy_ns: i64,
    /// Its threads' events plus its async slices, counter samples and objects.
    pub events: u64,
    /// No track of its own and no thread with one.
    pub empty: bool,
}

/// The union of the top-level slices (those without a parent) of each thread,
/// both lanes, in ns; indexed by thread.
fn busy_by_thread(trace: &Trace) -> Vec<i64> {
    let s = &trace.tables.slices;
    let mut spans: Vec<Vec<(i64, i64)>> = vec![Vec::new(); trace.tables.threads.len()];
    for tr in &s.tracks {
        let Some(list) = spans.get_mut(tr.thread.index()) else {
            continue;
        };
        for i in tr.rows.0 as usize..tr.rows.1 as usize {
            // Top level: no parent (an improper overlap drawn on a row of its
            // own has none either).
            if s.parent[i].is_none() {
                list.push((s.ts(i), s.end(i)));
            }
        }
    }
    spans
        .into_iter()
        .map(|mut v| {
            v.sort_unstable();
            let (mut total, mut reach) = (0i64, i64::MIN);
            for (a, b) in v {
                let a = a.max(reach);
                if b > a {
                    total = total.saturating_add(b - a);
                    reach = b;
                }
            }
            total
        })
        .collect()
}

/// How many times each of `0..n` occurs in `items`.
fn tally(n: usize, items: impl Iterator<Item = usize>) -> Vec<u64> {
    let mut out = vec![0u64; n];
    for i in items {
        if let Some(c) = out.get_mut(i) {
            *c += 1;
        }
    }
    out
}

/// Processes and threads in the order the viewer shows them, the work first.
///
/// In each process: the main thread (tid == pid, else one named as in
/// [`MAIN_THREAD_NAMES`]; among threads with something to draw), then the other
/// threads by sort index (those without one after), then by busy time and events,
/// most first, then in the model's display order (name, tid); empty threads last.
/// Processes: those rendering frames first (spec section 10), then by sort index,
/// the empty ones last, then by busy time and events, most first, then in the
/// model's display order.
pub fn view_order(trace: &Trace, index: &QueryIndex) -> Vec<ProcessView> {
    let t = &trace.tables;
    let busy = busy_by_thread(trace);
    let events = tally(
        t.threads.len(),
        t.slices
            .threads()
            .chain(t.instants.thread.iter().flatten().copied())
            .chain(
                t.samples
                    .threads()
                    .flat_map(|(th, rows)| std::iter::repeat_n(th, rows.len())),
            )
            .map(ThreadId::index),
    );
    let mut own = tally(
        t.processes.len(),
        t.async_slices
            .process
            .iter()
            .copied()
            .chain(t.objects.iter().map(|o| o.process))
            .map(ProcessId::index),
    );
    for c in &t.counters.series {
        if let Some(e) = own.get_mut(c.process.index()) {
            *e += u64::from(c.rows.1 - c.rows.0);
        }
    }
    let mut rank = vec![0usize; t.threads.len()];
    let mut threads_of: Vec<Vec<ThreadId>> = vec![Vec::new(); t.processes.len()];
    for (k, &th) in trace.thread_order.iter().enumerate() {
        rank[th.index()] = k;
        if let Some(list) = threads_of.get_mut(trace.thread(th).process.index()) {
            list.push(th);
        }
    }
    let mut out: Vec<(usize, ProcessView)> = trace
        .process_order
        .iter()
        .enumerate()
        .map(|(prank, &p)| {
            let pr = trace.process(p);
            let mut threads: Vec<ThreadView> = threads_of[p.index()]
                .iter()
                .map(|&th| ThreadView {
                    thread: th,
                    main: false,
                    busy_ns: busy[th.index()],
                    events: events[th.index()],
                    empty: thread_tracks(trace, index, th).is_empty(),
                })
                .collect();
            let named = |tv: &ThreadView| {
                let n = trace.thread(tv.thread).name;
                !n.is_none() && MAIN_THREAD_NAMES.contains(&trace.str(n))
            };
            let main = threads
                .iter()
                .position(|tv| !tv.empty && trace.thread(tv.thread).tid == pr.pid)
                .or_else(|| threads.iter().position(|tv| !tv.empty && named(tv)));
            if let Some(m) = main {
                threads[m].main = true;
            }
            threads.sort_by_key(|tv| {
                let th = trace.thread(tv.thread);
                (
                    tv.empty,
                    !tv.main,
                    th.sort_index.is_none(),
                    th.sort_index,
                    std::cmp::Reverse(tv.busy_ns),
                    std::cmp::Reverse(tv.events),
                    rank[tv.thread.index()],
                )
            });
            let busy_ns = threads
                .iter()
                .map(|tv| tv.busy_ns)
                .fold(0i64, i64::saturating_add);
            let events = threads.iter().map(|tv| tv.events).sum::<u64>() + own[p.index()];
            let empty =
                threads.iter().all(|tv| tv.empty) && process_tracks(trace, index, p).is_empty();
            (
                prank,
                ProcessView {
                    process: p,
                    threads,
                    busy_ns,
                    events,
                    empty,
                },
            )
        })
        .collect();
    out.sort_by_key(|(prank, pv)| {
        let pr = trace.process(pv.process);
        (
            !pr.renders_frames,
            pr.sort_index.is_none(),
            pr.sort_index,
            pv.empty,
            std::cmp::Reverse(pv.busy_ns),
            std::cmp::Reverse(pv.events),
            *prank,
        )
    });
    out.into_iter().map(|(_, pv)| pv).collect()
}

/// Object instances packed into lanes per process, so lifetimes never overlap.
#[derive(Debug, Default)]
pub struct ObjectLanes {
    pub lane: Vec<u32>,
    /// Indexed by process; ids are object indexes.
    pub by_process: Vec<Rows>,
}

impl ObjectLanes {
    /// Screenshot objects are left out: they have a filmstrip of their own.
    pub fn build(trace: &Trace) -> ObjectLanes {
        let objs = &trace.tables.objects;
        let mut order: Vec<u32> = (0..objs.len() as u32)
            .filter(|&o| !is_screenshot_object(trace, o as usize))
            .collect();
        order.sort_by_key(|&i| (objs[i as usize].process, objs[i as usize].start, i));
        let mut lane = vec![0; objs.len()];
        let mut free: Vec<(ProcessId, Vec<i64>)> = Vec::new(); // per process: lane -> free at
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
            if let Some(slot) = by_process.get_mut(p.index()) {
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

    fn load(json: &str) -> (Trace, QueryIndex) {
        let t = Trace::from_json(
            Box::new(json.to_string()),
            0,
            &crate::LoadOptions::default(),
        )
        .unwrap();
        let i = QueryIndex::new(&t);
        (t, i)
    }

    /// (process label, [thread label (main mark), ...]) in view order.
    fn order(t: &Trace, i: &QueryIndex) -> Vec<(String, Vec<String>)> {
        view_order(t, i)
            .iter()
            .map(|pv| {
                let th = pv
                    .threads
                    .iter()
                    .map(|tv| {
                        let mark = if tv.main {
                            "*"
                        } else if tv.empty {
                            "-"
                        } else {
                            ""
                        };
                        format!("{}{mark}", t.thread_label(tv.thread))
                    })
                    .collect();
                (t.process_label(pv.process), th)
            })
            .collect()
    }

    #[test]
    fn main_thread_first_then_sort_index_then_busy() {
        let (t, i) = load(
            r#"[{"ph":"M","name":"process_name","pid":10,"tid":1,"args":{"name":"Renderer"}},
               {"ph":"M","name":"thread_name","pid":10,"tid":1,"args":{"name":"Chrome_ChildIOThread"}},
               {"ph":"M","name":"thread_name","pid":10,"tid":2,"args":{"name":"CrRendererMain"}},
               {"ph":"M","name":"thread_name","pid":10,"tid":3,"args":{"name":"Compositor"}},
               {"ph":"M","name":"thread_name","pid":10,"tid":4,"args":{"name":"Pinned"}},
               {"ph":"M","name":"thread_sort_index","pid":10,"tid":4,"args":{"sort_index":5}},
               {"ph":"M","name":"thread_name","pid":10,"tid":5,"args":{"name":"AnIdleOne"}},
               {"ph":"X","name":"io","pid":10,"tid":1,"ts":0,"dur":10},
               {"ph":"X","name":"task","pid":10,"tid":2,"ts":0,"dur":5},
               {"ph":"X","name":"draw","pid":10,"tid":3,"ts":0,"dur":40},
               {"ph":"X","name":"draw2","pid":10,"tid":3,"ts":20,"dur":40},
               {"ph":"X","name":"inner","pid":10,"tid":3,"ts":21,"dur":10},
               {"ph":"X","name":"x","pid":10,"tid":4,"ts":0,"dur":1},
               {"ph":"X","name":"browse","pid":20,"tid":20,"ts":0,"dur":1},
               {"ph":"X","name":"other","pid":20,"tid":21,"ts":0,"dur":90},
               {"ph":"M","name":"process_name","pid":30,"tid":0,"args":{"name":"GPU 0"}},
               {"ph":"M","name":"thread_name","pid":30,"tid":0,"args":{"name":"Thread 0"}}]"#,
        );
        // Process 20 (91 us busy) before the renderer (76 us).
        assert_eq!(
            order(&t, &i),
            [
                (
                    "Process 20".to_string(),
                    vec!["Thread 20*".to_string(), "Thread 21".to_string()]
                ),
                (
                    "Renderer".to_string(),
                    vec![
                        "CrRendererMain*".to_string(),
                        "Pinned".to_string(),
                        "Compositor".to_string(),
                        "Chrome_ChildIOThread".to_string(),
                        "AnIdleOne-".to_string(),
                    ]
                ),
                ("GPU 0".to_string(), vec!["Thread 0-".to_string()]),
            ]
        );
        let v = view_order(&t, &i);
        // Compositor: two overlapping top-level slices (0..40, 20..60) are busy 60 us.
        assert_eq!(v[1].threads[2].busy_ns, 60_000);
        assert_eq!(v[1].threads[2].events, 3);
        assert_eq!(v[1].busy_ns, 5_000 + 1_000 + 60_000 + 10_000);
        assert_eq!(v[0].busy_ns, 91_000);
        assert!(!v[1].empty && v[2].empty);
    }

    #[test]
    fn processes_by_sort_index_then_busy_empty_last() {
        let (t, i) = load(
            r#"[{"ph":"M","name":"process_name","pid":1,"tid":1,"args":{"name":"Quiet"}},
               {"ph":"M","name":"process_name","pid":2,"tid":1,"args":{"name":"Busy"}},
               {"ph":"M","name":"process_name","pid":3,"tid":1,"args":{"name":"First"}},
               {"ph":"M","name":"process_sort_index","pid":3,"tid":1,"args":{"sort_index":-1}},
               {"ph":"M","name":"process_name","pid":4,"tid":1,"args":{"name":"Nothing"}},
               {"ph":"M","name":"process_name","pid":5,"tid":1,"args":{"name":"Counted"}},
               {"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1},
               {"ph":"X","name":"a","pid":2,"tid":1,"ts":0,"dur":50},
               {"ph":"X","name":"a","pid":3,"tid":1,"ts":0,"dur":1},
               {"ph":"C","name":"mem","pid":5,"ts":0,"args":{"v":1}},
               {"ph":"C","name":"mem","pid":5,"ts":1,"args":{"v":2}}]"#,
        );
        let names: Vec<_> = order(&t, &i).into_iter().map(|(p, _)| p).collect();
        // Quiet is busy 1 us; Counted only has counter samples.
        assert_eq!(names, ["First", "Busy", "Quiet", "Counted", "Nothing"]);
    }

    #[test]
    fn process_instants_give_no_track_to_threads_that_only_have_names() {
        let (t, i) = load(
            r#"[{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"Busy"}},
               {"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"Named"}},
               {"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5},
               {"ph":"i","s":"p","name":"p1","pid":1,"tid":1,"ts":1},
               {"ph":"M","name":"thread_name","pid":2,"tid":7,"args":{"name":"A"}},
               {"ph":"M","name":"thread_name","pid":2,"tid":8,"args":{"name":"B"}},
               {"ph":"i","s":"p","name":"p2","pid":2,"tid":8,"ts":2}]"#,
        );
        let tracks = |th: ThreadId| {
            thread_tracks(&t, &i, th)
                .iter()
                .map(|x| (x.rows, x.instants))
                .collect::<Vec<_>>()
        };
        let by_name = |n: &str| {
            (0..t.tables.threads.len())
                .map(ThreadId::at)
                .find(|&th| t.thread_label(th) == n)
                .unwrap()
        };
        // Pid 1: the busy thread shows the process instant; the named one has nothing.
        assert_eq!(tracks(by_name("Busy")), [(1, 1)]);
        assert_eq!(tracks(by_name("Named")), []);
        // Pid 2: no thread has anything else, so its first thread carries them.
        let (a, b) = (by_name("A"), by_name("B"));
        assert_eq!(tracks(a.min(b)), [(0, 1)]);
        assert_eq!(tracks(a.max(b)), []);
    }

    #[test]
    fn ids_round_trip_and_reject_junk() {
        for s in ["s:3:0", "s:0:1", "p:12", "a:0", "c:7", "ic:3", "o:2", "f:1"] {
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
            "ic:",
            "f:x",
            "s:3:0:1",
        ] {
            assert_eq!(TrackRef::parse(s), None, "{s}");
        }
    }
}
