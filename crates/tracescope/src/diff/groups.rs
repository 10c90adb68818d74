//! A run's groups and their numbers: slices by name, thread or category (count,
//! total, self, mean, percentiles, max), or functions.
//!
//! Percentiles are of the slices' full durations, nearest rank: the p-th
//! percentile of n sorted durations is the one at rank ceil(p * n / 100) (as
//! `summary` computes them).
//!
//! Functions (`--by function`) are of CPU samples where a thread has samples:
//! per function name, `self` is the time it was running, `total` the time it was
//! on the stack (a recursive call counted once) and `count` the samples it was on
//! the stack in; a sample weighs the time to its thread's next sample. Threads
//! without samples give their slices as stacks: a slice is a call of a function of
//! its name, with its duration, self time and percentiles as under `--by name`.

use rustc_hash::FxHashMap;
use tracescope_model::analysis::{
    call_tree, slice_stats, GroupBy, GroupKey, NameFilter, Selection, TreeView,
};
use tracescope_model::query::TrackRef;
use tracescope_model::Trace;

use super::metric::Stats;
use super::run::By;

/// Every group of the trace by its key.
pub fn group_stats(trace: &Trace, by: By, threads: &[String]) -> FxHashMap<String, Stats> {
    let gb = match by {
        By::Name | By::Function => GroupBy::Name,
        By::Thread => GroupBy::Thread,
        By::Category => GroupBy::Category,
    };
    let sel = match by {
        By::Function if !trace.tables.samples.is_empty() => slices_without_samples(trace),
        _ => Selection::all(),
    };
    let mut out = slice_groups(trace, &sel, gb, threads);
    if by == By::Function && !trace.tables.samples.is_empty() {
        for (key, stats) in functions(trace) {
            out.entry(key)
                .and_modify(|s| add_function(s, &stats))
                .or_insert(stats);
        }
    }
    out
}

/// Slices of the selection grouped `gb`, with percentiles.
fn slice_groups(
    trace: &Trace,
    sel: &Selection,
    gb: GroupBy,
    threads: &[String],
) -> FxHashMap<String, Stats> {
    let st = slice_stats(trace, sel, gb, NameFilter::default());
    let raw = |k: GroupKey| match k {
        GroupKey::Str(s) => s.0,
        GroupKey::Thread(t) => t.raw(),
        // `slice_stats` makes no pattern groups (only `summarize --group` does).
        GroupKey::Pattern(_) => u32::MAX,
    };
    let pct = percentiles(trace, sel, gb, st.groups.iter().map(|g| raw(g.key)));
    st.groups
        .iter()
        .zip(pct)
        .map(|(g, p)| {
            let key = match g.key {
                GroupKey::Str(s) => trace.str(s).to_string(),
                GroupKey::Thread(t) => threads[t.index()].clone(),
                GroupKey::Pattern(_) => st.label(trace, g.key),
            };
            let n = |v: i64| Some(v as f64);
            let stats = [
                Some(g.count as f64),
                n(g.total),
                n(g.self_ns),
                n(g.avg()),
                n(p[0]),
                n(p[1]),
                n(p[2]),
                n(g.max),
            ];
            (key, stats)
        })
        .collect()
}

/// p50, p95 and p99 of the durations of each group's slices, in the order of
/// `keys` (raw key values: string ids or thread indexes).
fn percentiles(
    trace: &Trace,
    sel: &Selection,
    gb: GroupBy,
    keys: impl Iterator<Item = u32>,
) -> Vec<[i64; 3]> {
    let s = &trace.tables.slices;
    let slot: FxHashMap<u32, usize> = keys.enumerate().map(|(j, k)| (k, j)).collect();
    let mut durs: Vec<Vec<i64>> = vec![Vec::new(); slot.len()];
    // Track by track: the tracks cover the rows in order.
    for tr in &s.tracks {
        if !sel.has_slices(tr.thread, tr.lane) {
            continue;
        }
        for i in tr.rows.0 as usize..tr.rows.1 as usize {
            let k = match gb {
                GroupBy::Name => s.name[i].0,
                GroupBy::Thread => tr.thread.raw(),
                GroupBy::Category => s.cat(i).0,
            };
            if let Some(&j) = slot.get(&k) {
                durs[j].push(s.dur(i));
            }
        }
    }
    durs.iter_mut()
        .map(|d| [50, 95, 99].map(|p| tracescope_model::analysis::nearest_rank(d, p)))
        .collect()
}

/// Every slice track of the threads that have no CPU samples.
fn slices_without_samples(trace: &Trace) -> Selection {
    let sampled: rustc_hash::FxHashSet<_> =
        trace.tables.samples.threads().map(|(th, _)| th).collect();
    let tracks = trace
        .tables
        .slices
        .tracks
        .iter()
        .filter(|t| !sampled.contains(&t.thread))
        .map(|t| TrackRef::Slices {
            thread: t.thread,
            lane: t.lane,
        })
        .collect();
    Selection {
        tracks: Some(tracks),
        ..Selection::all()
    }
}

/// Functions of the CPU samples by name: count (samples on the stack), total
/// (recursion counted once) and self; the other numbers are not defined.
fn functions(trace: &Trace) -> FxHashMap<String, Stats> {
    let tree = call_tree(trace, &Selection::all(), TreeView::TopDown, usize::MAX);
    let mut out: FxHashMap<String, Stats> = FxHashMap::default();
    // The names on the path to the current node, and how often each is on it.
    let mut path: Vec<&str> = Vec::new();
    let mut on_path: FxHashMap<&str, u32> = FxHashMap::default();
    for n in &tree.nodes {
        while path.len() > n.depth as usize {
            if let Some(p) = path.pop() {
                *on_path.entry(p).or_default() -= 1;
            }
        }
        let name = trace.name(n.function.name);
        let outer = on_path.get(name).is_none_or(|&c| c == 0);
        let s = out.entry(name.to_string()).or_insert([
            Some(0.0),
            Some(0.0),
            Some(0.0),
            None,
            None,
            None,
            None,
            None,
        ]);
        if outer {
            s[0] = s[0].map(|v| v + n.total_samples as f64);
            s[1] = s[1].map(|v| v + n.total_ns as f64);
        }
        s[2] = s[2].map(|v| v + n.self_ns as f64);
        path.push(name);
        *on_path.entry(name).or_default() += 1;
    }
    out
}

/// A function both sampled and a slice name (on threads without samples): counts,
/// totals and self times add up; the slices' other numbers are no longer the
/// function's.
fn add_function(s: &mut Stats, f: &Stats) {
    for i in 0..3 {
        s[i] = Some(s[i].unwrap_or(0.0) + f[i].unwrap_or(0.0));
    }
    for v in &mut s[3..] {
        *v = None;
    }
}
