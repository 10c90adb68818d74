//! The command line's summary of slices: the range statistics with filters (name,
//! category and thread, each a regex), groups gathered by patterns
//! (`ProfilerStep#\d+` makes `ProfilerStep#5` and `ProfilerStep#6` one group),
//! busy time and duration percentiles.
//!
//! Busy time is wall time without double counting: per thread, the length of the
//! union of the group's slices (clipped to the range), summed over threads. For a
//! thread's own group that is the union of its top-level slices (children lie
//! inside their parents, overlap rows are counted once); for a name, time spent in
//! that name, a recursive call counted once. Percentiles are of the full durations
//! (as min, max and average are), nearest rank: the p-th percentile of n sorted
//! durations is the one at rank ceil(p * n / 100).

use std::ops::Range;

use rayon::prelude::*;
use regex::Regex;
use rustc_hash::FxHashMap;

use super::slice_stats::{
    accumulate, select_rows, stats_of, thread_key, GroupBy, GroupKey, SliceStats,
};
use super::Selection;
use crate::strings::StrId;
use crate::tables::{SliceTable, ThreadId};
use crate::trace::Trace;

/// Which slices count: those whose name, category and thread match (each `None`:
/// any). A thread matches by its label as [`thread_key`] writes it, e.g.
/// `CrRendererMain (tid 7), Renderer (pid 3)`.
#[derive(Clone, Debug, Default)]
pub struct SliceFilter {
    names: Option<Vec<bool>>,
    cats: Option<Vec<bool>>,
    threads: Option<Vec<bool>>,
}

impl SliceFilter {
    pub fn new(
        trace: &Trace,
        name: Option<&Regex>,
        cat: Option<&Regex>,
        thread: Option<&Regex>,
    ) -> SliceFilter {
        let strings = |re: Option<&Regex>| {
            re.map(|re| {
                (0..trace.tables.strings.len())
                    .map(|k| re.is_match(trace.str(StrId(k as u32))))
                    .collect()
            })
        };
        SliceFilter {
            names: strings(name),
            cats: strings(cat),
            threads: thread.map(|re| {
                (0..trace.tables.threads.len())
                    .map(|t| re.is_match(&thread_key(trace, ThreadId::at(t))))
                    .collect()
            }),
        }
    }

    pub fn keeps(&self, s: &SliceTable, i: usize) -> bool {
        let ok = |v: &Option<Vec<bool>>, k: u32| v.as_ref().is_none_or(|v| v[k as usize]);
        ok(&self.names, s.name[i].0)
            && ok(&self.cats, s.cat(i).0)
            && ok(&self.threads, s.thread(i).raw())
    }
}

/// What the summary asks for.
pub struct SummaryQuery<'a> {
    pub by: GroupBy,
    pub filter: &'a SliceFilter,
    /// Keys (names, categories or thread labels) a pattern matches join its group;
    /// the first pattern that matches wins.
    pub groups: &'a [Regex],
    /// Percentiles for the first this many groups (the ones printed).
    pub percentiles_of: usize,
}

/// The statistics, and per group (in the same order) its busy time; for the
/// first groups, p50, p95 and p99 of their durations. Groups are by total time,
/// except threads: by busy time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub stats: SliceStats,
    pub busy: Vec<i64>,
    pub percentiles: Vec<[i64; 3]>,
}

pub fn summarize(trace: &Trace, sel: &Selection, q: &SummaryQuery<'_>) -> Summary {
    let s = &trace.tables.slices;
    let base = match q.by {
        GroupBy::Thread => trace.tables.threads.len(),
        _ => trace.tables.strings.len(),
    };
    // Every base key to its group: itself, or base + the first pattern matching it.
    let remap: Vec<u32> = (0..base as u32)
        .map(|k| {
            let label = match q.by {
                GroupBy::Thread => thread_key(trace, ThreadId::new(k)),
                _ => trace.str(StrId(k)).to_string(),
            };
            q.groups
                .iter()
                .position(|re| re.is_match(&label))
                .map_or(k, |g| base as u32 + g as u32)
        })
        .collect();
    let key = |i: usize| remap[q.by.key(s, i) as usize];
    let keep = |i: usize| q.filter.keeps(s, i);
    let keys = base + q.groups.len();
    let (acc, slices) = accumulate(trace, sel, keys, key, keep);
    let group_key = |k: usize| match (k >= base, q.by) {
        (true, _) => GroupKey::Pattern((k - base) as u32),
        (false, GroupBy::Thread) => GroupKey::Thread(ThreadId::at(k)),
        (false, _) => GroupKey::Str(StrId(k as u32)),
    };
    let patterns = q.groups.iter().map(|re| re.as_str().to_string()).collect();
    let stats = stats_of(trace, q.by, &acc, slices, group_key, patterns);
    let index_of = |g: GroupKey| match g {
        GroupKey::Pattern(p) => base + p as usize,
        GroupKey::Thread(t) => t.index(),
        GroupKey::Str(id) => id.0 as usize,
    };
    let busy_of = busy(trace, sel, &key, &keep);
    let busy_time =
        |g: &super::SliceGroup| busy_of.get(&(index_of(g.key) as u32)).copied().unwrap_or(0);
    let mut stats = stats;
    // Threads run side by side: the busiest thread first, not the deepest nesting.
    if q.by == GroupBy::Thread {
        stats
            .groups
            .sort_by_key(|g| std::cmp::Reverse(busy_time(g)));
    }
    let busy = stats.groups.iter().map(busy_time).collect();
    let wanted: Vec<u32> = stats
        .groups
        .iter()
        .take(q.percentiles_of)
        .map(|g| index_of(g.key) as u32)
        .collect();
    let percentiles = percentiles(trace, sel, &key, &keep, &wanted);
    Summary {
        stats,
        busy,
        percentiles,
    }
}

/// Busy time per key: per thread, the union of the key's slices clipped to the
/// range, summed over threads.
fn busy(
    trace: &Trace,
    sel: &Selection,
    key: &(impl Fn(usize) -> u32 + Sync),
    keep: &(impl Fn(usize) -> bool + Sync),
) -> FxHashMap<u32, i64> {
    let s = &trace.tables.slices;
    let rows = select_rows(trace, sel);
    let (t0, t1) = (sel.t0, sel.t1);
    // Per track: its selected rows in start order (those started before t0, clipped
    // to start at t0, then the run).
    let mut per_thread: FxHashMap<ThreadId, Vec<Vec<usize>>> = FxHashMap::default();
    for tr in &s.tracks {
        let (singles, run) = rows.of_track(tr.rows.0 as usize, tr.rows.1 as usize);
        let mut list: Vec<usize> = singles.iter().map(|&i| i as usize).collect();
        list.extend(run);
        if !list.is_empty() {
            per_thread.entry(tr.thread).or_default().push(list);
        }
    }
    let clip = |i: usize| (s.ts(i).max(t0), s.end(i).min(t1));
    let threads: Vec<Vec<Vec<usize>>> = per_thread.into_values().collect();
    threads
        .into_par_iter()
        .map(|lanes| {
            // Open interval per key, and the time closed so far.
            let mut open: FxHashMap<u32, (i64, i64)> = FxHashMap::default();
            let mut out: FxHashMap<u32, i64> = FxHashMap::default();
            for i in merged(&lanes, |i| clip(i).0) {
                if !keep(i) {
                    continue;
                }
                let (a, b) = clip(i);
                if b <= a {
                    continue;
                }
                let k = key(i);
                match open.get_mut(&k) {
                    Some(cur) if a <= cur.1 => cur.1 = cur.1.max(b),
                    Some(cur) => {
                        *out.entry(k).or_default() += cur.1 - cur.0;
                        *cur = (a, b);
                    }
                    None => {
                        open.insert(k, (a, b));
                    }
                }
            }
            for (k, (a, b)) in open {
                *out.entry(k).or_default() += b - a;
            }
            out
        })
        .reduce(FxHashMap::default, |mut a, b| {
            for (k, v) in b {
                *a.entry(k).or_default() += v;
            }
            a
        })
}

/// The rows of sorted lists, in the order of `start` (a merge; one or two lists).
fn merged<'l>(
    lists: &'l [Vec<usize>],
    start: impl Fn(usize) -> i64 + 'l,
) -> impl Iterator<Item = usize> + 'l {
    let mut at = vec![0usize; lists.len()];
    std::iter::from_fn(move || {
        let next = (0..lists.len())
            .filter(|&l| at[l] < lists[l].len())
            .min_by_key(|&l| (start(lists[l][at[l]]), l))?;
        at[next] += 1;
        Some(lists[next][at[next] - 1])
    })
}

/// p50, p95 and p99 of the durations of each wanted key's slices (nearest rank).
fn percentiles(
    trace: &Trace,
    sel: &Selection,
    key: &(impl Fn(usize) -> u32 + Sync),
    keep: &(impl Fn(usize) -> bool + Sync),
    wanted: &[u32],
) -> Vec<[i64; 3]> {
    if wanted.is_empty() {
        return Vec::new();
    }
    let s = &trace.tables.slices;
    let slot: FxHashMap<u32, usize> = wanted.iter().enumerate().map(|(j, &k)| (k, j)).collect();
    let rows = select_rows(trace, sel);
    let mut pieces: Vec<Range<usize>> = rows.runs.clone();
    pieces.extend(rows.singles.iter().map(|&i| i as usize..i as usize + 1));
    let mut durs = pieces
        .into_par_iter()
        .fold(
            || vec![Vec::new(); wanted.len()],
            |mut acc: Vec<Vec<i64>>, r| {
                for i in r.filter(|&i| keep(i)) {
                    if let Some(&j) = slot.get(&key(i)) {
                        acc[j].push(s.dur(i));
                    }
                }
                acc
            },
        )
        .reduce(
            || vec![Vec::new(); wanted.len()],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    x.extend(y);
                }
                a
            },
        );
    durs.iter_mut()
        .map(|d| [50, 95, 99].map(|p| nearest_rank(d, p)))
        .collect()
}

/// The p-th percentile of `d` (reordered), nearest rank; 0 of nothing.
pub fn nearest_rank(d: &mut [i64], p: usize) -> i64 {
    if d.is_empty() {
        return 0;
    }
    let rank = (p * d.len()).div_ceil(100).max(1);
    *d.select_nth_unstable(rank - 1).1
}

#[cfg(test)]
mod tests {
    use super::nearest_rank;

    #[test]
    fn nearest_rank_percentiles() {
        let mut d: Vec<i64> = (1..=10).rev().collect();
        assert_eq!([50, 95, 99].map(|p| nearest_rank(&mut d, p)), [5, 10, 10]);
        let mut d: Vec<i64> = (1..=200).collect();
        assert_eq!(
            [50, 95, 99].map(|p| nearest_rank(&mut d, p)),
            [100, 190, 198]
        );
        assert_eq!(nearest_rank(&mut [7], 99), 7);
        assert_eq!(nearest_rank(&mut [], 50), 0);
    }
}
