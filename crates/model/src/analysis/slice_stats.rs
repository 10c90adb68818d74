//! Statistics of the thread slices in a range, grouped by name, thread or category:
//! count, total (wall) time, self time, time inside the range, thread time, average,
//! minimum and maximum, and how many never finished.
//!
//! A slice is in `[t0, t1)` when it overlaps it: `ts < t1` and `ts + dur > t0`, or,
//! for a zero-length slice, `t0 <= ts < t1`. Per track the slices starting inside
//! the range are one run of rows (rows are sorted by start); those starting before
//! it and still running are found without a scan: they are on the call stack of the
//! last slice starting before `t0` (its parent chain), or on an overlap row (those
//! are few and have no parent, so they are checked one by one).

use std::ops::Range;

use rayon::prelude::*;

use super::Selection;
use crate::strings::StrId;
use crate::tables::{slice_flags, SliceTable, ThreadId};
use crate::trace::Trace;

/// What slices are grouped by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupBy {
    Name,
    Thread,
    Category,
}

impl GroupBy {
    pub fn parse(s: &str) -> Option<GroupBy> {
        match s {
            "name" => Some(GroupBy::Name),
            "thread" => Some(GroupBy::Thread),
            "category" | "cat" => Some(GroupBy::Category),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Name => "name",
            GroupBy::Thread => "thread",
            GroupBy::Category => "category",
        }
    }

    pub(super) fn key(self, s: &SliceTable, i: usize) -> u32 {
        match self {
            GroupBy::Name => s.name[i].0,
            GroupBy::Thread => s.thread(i).raw(),
            GroupBy::Category => s.cat(i).0,
        }
    }
}

/// A group's key: a string (name or category), a thread index, or a pattern that
/// gathers several of them (an index into [`SliceStats::patterns`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GroupKey {
    Str(StrId),
    Thread(ThreadId),
    Pattern(u32),
}

/// One row of the statistics table. Times in ns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceGroup {
    pub key: GroupKey,
    pub count: u64,
    /// Sum of full durations.
    pub total: i64,
    pub self_ns: i64,
    /// Sum of durations clipped to the range.
    pub in_range: i64,
    /// Sum of `tdur` over the slices that have one; `None` when none has.
    pub thread_total: Option<i64>,
    pub min: i64,
    pub max: i64,
    pub did_not_finish: u64,
}

impl SliceGroup {
    /// Average full duration, rounded down.
    pub fn avg(&self) -> i64 {
        if self.count == 0 {
            0
        } else {
            self.total.div_euclid(self.count as i64)
        }
    }
}

/// The answer: groups sorted by total (largest first), then by key text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceStats {
    pub by: GroupBy,
    pub slices: u64,
    pub groups: Vec<SliceGroup>,
    /// The patterns of `GroupKey::Pattern` keys, as given.
    pub patterns: Vec<String>,
}

impl SliceStats {
    /// A group's key as text: the name or category, the thread's label
    /// ([`thread_key`]), or the pattern.
    pub fn label(&self, trace: &Trace, key: GroupKey) -> String {
        match key {
            GroupKey::Str(id) => trace.str(id).to_string(),
            GroupKey::Thread(t) => thread_key(trace, t),
            GroupKey::Pattern(k) => self.patterns.get(k as usize).cloned().unwrap_or_default(),
        }
    }
}

/// A filter on top of the selection: only slices with this name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NameFilter(pub Option<StrId>);

#[derive(Clone, Copy, Default)]
pub(super) struct Acc {
    count: u64,
    total: i64,
    self_ns: i64,
    in_range: i64,
    tdur: i64,
    has_tdur: bool,
    min: i64,
    max: i64,
    dnf: u64,
}

impl Acc {
    #[inline]
    fn add(&mut self, s: &SliceTable, i: usize, t0: i64, t1: i64) {
        let (ts, dur) = (s.ts(i), s.dur(i));
        self.min = if self.count == 0 {
            dur
        } else {
            self.min.min(dur)
        };
        self.max = if self.count == 0 {
            dur
        } else {
            self.max.max(dur)
        };
        self.count += 1;
        self.total = self.total.saturating_add(dur);
        self.self_ns = self.self_ns.saturating_add(s.self_ns(i));
        let clipped = s.end(i).min(t1).saturating_sub(ts.max(t0)).max(0);
        self.in_range = self.in_range.saturating_add(clipped);
        if let Some(tdur) = s.tdur(i) {
            self.tdur = self.tdur.saturating_add(tdur.get());
            self.has_tdur = true;
        }
        self.dnf += (s.flags[i] & slice_flags::DID_NOT_FINISH != 0) as u64;
    }

    fn merge(&mut self, o: &Acc) {
        if o.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *o;
            return;
        }
        self.count += o.count;
        self.total = self.total.saturating_add(o.total);
        self.self_ns = self.self_ns.saturating_add(o.self_ns);
        self.in_range = self.in_range.saturating_add(o.in_range);
        self.tdur = self.tdur.saturating_add(o.tdur);
        self.has_tdur |= o.has_tdur;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.dnf += o.dnf;
    }
}

/// The slices of a selection: runs of rows wholly inside, plus single rows that
/// started before `t0`.
pub(super) struct Rows {
    pub runs: Vec<Range<usize>>,
    pub singles: Vec<u32>,
}

impl Rows {
    /// The selected rows of the track of rows `lo..hi`: those started before the
    /// range (by row) and the run starting inside it.
    pub fn of_track(&self, lo: usize, hi: usize) -> (&[u32], Range<usize>) {
        let a = self.singles.partition_point(|&i| (i as usize) < lo);
        let b = self.singles.partition_point(|&i| (i as usize) < hi);
        let k = self.runs.partition_point(|r| r.start < lo);
        let run = self
            .runs
            .get(k)
            .filter(|r| r.end <= hi)
            .cloned()
            .unwrap_or(0..0);
        (&self.singles[a..b], run)
    }
}

pub(super) fn overlaps(s: &SliceTable, i: usize, t0: i64, t1: i64) -> bool {
    let ts = s.ts(i);
    if s.dur(i) == 0 {
        t0 <= ts && ts < t1
    } else {
        ts < t1 && s.end(i) > t0
    }
}

pub(super) fn select_rows(trace: &Trace, sel: &Selection) -> Rows {
    let s = &trace.tables.slices;
    let (t0, t1) = (sel.t0, sel.t1);
    let mut rows = Rows {
        runs: Vec::new(),
        singles: Vec::new(),
    };
    if t0 >= t1 {
        return rows;
    }
    for tr in &s.tracks {
        if !sel.has_slices(tr.thread, tr.lane) {
            continue;
        }
        let (lo, hi) = (tr.rows.0 as usize, tr.rows.1 as usize);
        let a = s.ts_partition_point(lo..hi, |x| x < t0);
        let b = s.ts_partition_point(a..hi, |x| x < t1);
        if a < b {
            rows.runs.push(a..b);
        }
        if a == lo {
            continue;
        }
        // Overlap rows before the range: few, checked one by one.
        for i in lo..a {
            if s.flags[i] & slice_flags::OVERLAP != 0 && overlaps(s, i, t0, t1) {
                rows.singles.push(i as u32);
            }
        }
        // The stack at the last start before t0: the parent chain of the last
        // proper (non-overlap) slice before it.
        let Some(last) = (lo..a)
            .rev()
            .find(|&i| s.flags[i] & slice_flags::OVERLAP == 0)
        else {
            continue;
        };
        let mut i = Some(last);
        let mut steps = 0;
        while let Some(j) = i.filter(|_| steps <= hi - lo) {
            if overlaps(s, j, t0, t1) {
                rows.singles.push(j as u32);
            }
            i = s.parent[j].map(|p| p.index());
            steps += 1;
        }
    }
    rows.singles.sort_unstable();
    rows
}

/// Accumulators indexed by key, dense: keys are below `keys` (string ids, thread
/// indexes, or those remapped by a grouping). Only the slices `keep` accepts count.
pub(super) fn accumulate(
    trace: &Trace,
    sel: &Selection,
    keys: usize,
    key: impl Fn(usize) -> u32 + Sync,
    keep: impl Fn(usize) -> bool + Sync,
) -> (Vec<Acc>, u64) {
    let s = &trace.tables.slices;
    let rows = select_rows(trace, sel);
    let (t0, t1) = (sel.t0, sel.t1);
    // Runs cut into chunks so both cores share even one big thread.
    const CHUNK: usize = 1 << 18;
    let mut chunks: Vec<Range<usize>> = Vec::new();
    for r in &rows.runs {
        let mut a = r.start;
        while a < r.end {
            let b = (a + CHUNK).min(r.end);
            chunks.push(a..b);
            a = b;
        }
    }
    let add = |acc: &mut Vec<Acc>, i: usize| {
        if keep(i) {
            acc[key(i) as usize].add(s, i, t0, t1);
        }
    };
    let mut acc = chunks
        .into_par_iter()
        .fold(
            || vec![Acc::default(); keys],
            |mut acc, r| {
                for i in r {
                    add(&mut acc, i);
                }
                acc
            },
        )
        .reduce(
            || vec![Acc::default(); keys],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    x.merge(y);
                }
                a
            },
        );
    for &i in &rows.singles {
        add(&mut acc, i as usize);
    }
    let n = acc.iter().map(|a| a.count).sum();
    (acc, n)
}

/// Statistics of the selected slices, optionally only those named `name`.
pub fn slice_stats(trace: &Trace, sel: &Selection, by: GroupBy, name: NameFilter) -> SliceStats {
    let s = &trace.tables.slices;
    let keys = match by {
        GroupBy::Thread => trace.tables.threads.len(),
        _ => trace.tables.strings.len(),
    };
    let (acc, slices) = accumulate(
        trace,
        sel,
        keys,
        |i| by.key(s, i),
        |i| name.0.is_none_or(|n| s.name[i] == n),
    );
    let key = |k: usize| match by {
        GroupBy::Thread => GroupKey::Thread(ThreadId::at(k)),
        _ => GroupKey::Str(StrId(k as u32)),
    };
    stats_of(trace, by, &acc, slices, key, Vec::new())
}

/// The answer from accumulators: groups with slices, largest total first (then by
/// label); `key` turns an accumulator's index into its group key.
pub(super) fn stats_of(
    trace: &Trace,
    by: GroupBy,
    acc: &[Acc],
    slices: u64,
    key: impl Fn(usize) -> GroupKey,
    patterns: Vec<String>,
) -> SliceStats {
    let mut st = SliceStats {
        by,
        slices,
        groups: Vec::new(),
        patterns,
    };
    let mut labelled: Vec<(String, SliceGroup)> = acc
        .iter()
        .enumerate()
        .filter(|(_, a)| a.count > 0)
        .map(|(k, a)| {
            let g = SliceGroup {
                key: key(k),
                count: a.count,
                total: a.total,
                self_ns: a.self_ns,
                in_range: a.in_range,
                thread_total: a.has_tdur.then_some(a.tdur),
                min: a.min,
                max: a.max,
                did_not_finish: a.dnf,
            };
            (st.label(trace, g.key), g)
        })
        .collect();
    labelled.sort_by(|a, b| b.1.total.cmp(&a.1.total).then_with(|| a.0.cmp(&b.0)));
    st.groups = labelled.into_iter().map(|(_, g)| g).collect();
    st
}

/// A thread as a group key: its label and its process's, e.g.
/// `CrRendererMain (tid 7), Renderer (pid 3)`.
pub fn thread_key(trace: &Trace, t: ThreadId) -> String {
    let process = trace.thread(t).process;
    format!(
        "{}, {}",
        trace.thread_heading(t),
        trace.process_heading(process)
    )
}

/// The rows of one group, in time order (then row order), at most `limit`, and how
/// many there are in all.
pub fn slices_in_group(
    trace: &Trace,
    sel: &Selection,
    by: GroupBy,
    key: GroupKey,
    name: NameFilter,
    limit: usize,
) -> (Vec<u32>, u64) {
    let s = &trace.tables.slices;
    let want = match key {
        GroupKey::Str(id) => id.0,
        GroupKey::Thread(t) => t.raw(),
        GroupKey::Pattern(_) => return (Vec::new(), 0),
    };
    let rows = select_rows(trace, sel);
    let keep = |i: usize| by.key(s, i) == want && name.0.is_none_or(|n| s.name[i] == n);
    let mut ids: Vec<u32> = rows
        .runs
        .iter()
        .flat_map(|r| r.clone())
        .filter(|&i| keep(i))
        .map(|i| i as u32)
        .chain(rows.singles.iter().copied().filter(|&i| keep(i as usize)))
        .collect();
    let total = ids.len() as u64;
    ids.sort_unstable_by_key(|&i| (s.ts(i as usize), i));
    ids.truncate(limit);
    (ids, total)
}
