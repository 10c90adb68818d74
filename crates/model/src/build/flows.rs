//! Flow arrows (spec section 6): v1 `s`/`t`/`f` bound to slices by time, and v2
//! `bind_id` with `flow_in`/`flow_out` on the slices themselves.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use tracescope_format::{DiagKind, Diagnostics};

use super::order::Parts;
use super::records::{FlowRec, FlowV2Rec, IdK};
use crate::strings::StrId;
use crate::tables::block_times::partition_rows;
use crate::tables::{
    AsyncSliceId, AsyncSliceTable, FlowTable, IdVal, Lane, SliceId, SliceRef, SliceTable, ThreadId,
};

/// Stack-lane rows per thread, for binding by time.
fn stack_tracks(slices: &SliceTable) -> FxHashMap<ThreadId, (u32, u32)> {
    slices
        .tracks
        .iter()
        .filter(|t| t.lane == Lane::Stack)
        .map(|t| (t.thread, t.rows))
        .collect()
}

/// The deepest slice of the thread whose span holds `ts` (end included); `n`: how
/// many of the thread's slices (`rows`) start at or before `ts`.
fn enclosing(slices: &SliceTable, rows: (u32, u32), ts: i64, n: usize) -> Option<SliceId> {
    let a = rows.0 as usize;
    let mut j = (a..a + n).rev().find(|&j| !slices.overlap(j))?;
    loop {
        if slices.ts(j) <= ts && ts <= slices.end(j) {
            return Some(SliceId::at(j));
        }
        j = slices.parent[j]?.index();
    }
}

/// The first index from `from` on where `pred` is false, of the `n` values
/// `col(0..n)`, `pred` being true on a prefix that holds those below `from`: a
/// galloping search (steps of 1, 2, 4... then a binary search in the last one),
/// in the logarithm of the distance walked, not of the column.
fn advance(n: usize, col: impl Fn(usize) -> i64, from: usize, pred: impl Fn(i64) -> bool) -> usize {
    let mut lo = from;
    let mut step = 1;
    loop {
        if lo >= n || !pred(col(lo)) {
            return lo;
        }
        let hi = (lo + step).min(n - 1);
        if pred(col(hi)) {
            lo = hi + 1;
            step *= 2;
        } else {
            // `pred` holds at `lo` and fails at `hi`.
            return partition_rows(lo + 1..hi, |i| pred(col(i)));
        }
    }
}

/// Each point's slice (`points` in time order): a `f` without `bp: "e"` binds to
/// the first slice of its thread starting at or after it, the others to the
/// deepest slice holding them.
///
/// Per thread (the threads on both cores), the points in time order walk the
/// thread's stack rows with two cursors, instead of a binary search over the
/// whole thread each (at 10 GB a cache miss at nearly every step).
fn bind(
    points: &[(i64, &FlowRec)],
    slices: &SliceTable,
    tracks: &FxHashMap<ThreadId, (u32, u32)>,
) -> Vec<Option<SliceId>> {
    let mut by_thread: FxHashMap<ThreadId, Vec<u32>> = FxHashMap::default();
    for (k, (_, r)) in points.iter().enumerate() {
        by_thread.entry(r.thread).or_default().push(k as u32);
    }
    let by_thread: Vec<(ThreadId, Vec<u32>)> = by_thread.into_iter().collect();
    let found: Vec<Vec<(u32, SliceId)>> = by_thread
        .par_iter()
        .map(|(thread, ks)| {
            let Some(&rows) = tracks.get(thread) else {
                return Vec::new();
            };
            let (a, b) = (rows.0 as usize, rows.1 as usize);
            let col = |i: usize| slices.ts(a + i);
            // How many of the thread's slices start at or before the point's
            // time, and before it.
            let (mut le, mut lt) = (0, 0);
            let mut out = Vec::new();
            for &k in ks {
                let (ts, r) = points[k as usize];
                le = advance(b - a, col, le, |s| s <= ts);
                lt = advance(b - a, col, lt, |s| s < ts);
                let slice = match r.ph {
                    b'f' if !r.bind_enclosing => (a + lt < b).then(|| SliceId::at(a + lt)),
                    _ => enclosing(slices, rows, ts, le),
                };
                if let Some(s) = slice {
                    out.push((k, s));
                }
            }
            out
        })
        .collect();
    let mut bound = vec![None; points.len()];
    for (k, s) in found.into_iter().flatten() {
        bound[k as usize] = Some(s);
    }
    bound
}

struct Point {
    slice: Option<SliceId>,
    ts: i64,
    thread: ThreadId,
    offset: u64,
}

pub fn build(
    v1: Parts<FlowRec>,
    v2: Parts<FlowV2Rec>,
    slices: &SliceTable,
    asyncs: &AsyncSliceTable,
    diags: &mut Diagnostics,
) -> FlowTable {
    let mut t = FlowTable::default();
    let tracks = stack_tracks(slices);
    // By time, equal times in file order: (time, reference) pairs.
    let mut v1: Vec<(i64, &FlowRec)> = v1.iter().flatten().map(|r| (r.ts, r)).collect();
    if !v1.is_sorted_by_key(|p| p.0) {
        v1.par_sort_by_key(|p| p.0);
    }
    let bound = bind(&v1, slices, &tracks);
    // Per key: the last bound point of the open chain.
    let mut chains: FxHashMap<(StrId, StrId, IdK), (Point, usize)> = FxHashMap::default();
    let unbound = |diags: &mut Diagnostics, off: u64, why: &str| {
        diags.add_excerpt(DiagKind::UnboundFlow, off, || format!("{why}: "));
    };
    for (&(_, r), slice) in v1.iter().zip(bound) {
        let point = Point {
            slice,
            ts: r.ts,
            thread: r.thread,
            offset: r.offset,
        };
        if r.ph == b's' {
            if let Some((_, arrows)) = chains.insert(r.key, (point, 0)) {
                if arrows == 0 {
                    unbound(diags, r.offset, "flow start without a step or end");
                }
            }
            continue;
        }
        let Some((from, arrows)) = chains.remove(&r.key) else {
            unbound(diags, r.offset, "flow step or end without a start");
            continue;
        };
        match (from.slice, point.slice) {
            (Some(a), Some(b)) => push(
                &mut t,
                r.id,
                r.key.1,
                r.key.0,
                SliceRef::Thread(a),
                SliceRef::Thread(b),
                (from.ts, point.ts),
                (Some(from.thread), Some(point.thread)),
                false,
            ),
            _ => unbound(diags, r.offset, "no slice to bind to"),
        }
        if r.ph == b't' {
            chains.insert(r.key, (point, arrows + 1));
        }
    }
    for (_, (p, arrows)) in chains {
        if arrows == 0 {
            unbound(diags, p.offset, "flow start without a step or end");
        }
    }
    build_v2(&mut t, v2, slices, asyncs, diags);
    t
}

#[allow(clippy::too_many_arguments)]
fn push(
    t: &mut FlowTable,
    id: IdVal,
    name: StrId,
    cat: StrId,
    from: SliceRef,
    to: SliceRef,
    ts: (i64, i64),
    threads: (Option<ThreadId>, Option<ThreadId>),
    v2: bool,
) {
    t.id.push(id);
    t.name.push(name);
    t.cat.push(cat);
    t.from.push(from);
    t.to.push(to);
    t.from_ts.push(ts.0);
    t.to_ts.push(ts.1);
    t.from_thread.push(threads.0);
    t.to_thread.push(threads.1);
    t.v2.push(v2);
}

fn build_v2(
    t: &mut FlowTable,
    v2: Parts<FlowV2Rec>,
    slices: &SliceTable,
    asyncs: &AsyncSliceTable,
    diags: &mut Diagnostics,
) {
    if v2.is_empty() {
        return;
    }
    let wanted: FxHashSet<u64> = v2.iter().flatten().map(|r| r.offset).collect();
    let filter = OffsetFilter::new(&wanted);
    let mut at: FxHashMap<u64, SliceRef> = FxHashMap::default();
    // Every slice is looked up: on both cores, the hits kept in slice order so the
    // last slice of an offset wins, as in one pass. Most slices are not wanted:
    // the filter rules them out before the set is read.
    let hits: Vec<(u64, usize)> = (0..slices.len())
        .into_par_iter()
        .with_min_len(1 << 16)
        .filter_map(|i| {
            let off = slices.offset(i);
            (filter.may_hold(off) && wanted.contains(&off)).then_some((off, i))
        })
        .collect();
    for (off, i) in hits {
        at.insert(off, SliceRef::Thread(SliceId::at(i)));
    }
    for (i, off) in asyncs.offset.iter().enumerate() {
        if wanted.contains(off) && asyncs.depth.get(i).is_some() {
            at.entry(*off)
                .or_insert(SliceRef::Async(AsyncSliceId::at(i)));
        }
    }
    let span = |s: SliceRef| match s {
        SliceRef::Thread(i) => {
            let i = i.index();
            (
                slices.ts(i),
                slices.end(i),
                Some(slices.thread(i)),
                slices.name[i],
                slices.cat(i),
            )
        }
        SliceRef::Async(i) => {
            let i = i.index();
            (
                asyncs.ts[i],
                asyncs.ts[i].saturating_add(asyncs.dur[i]),
                asyncs.thread[i],
                asyncs.name[i],
                asyncs.cat[i],
            )
        }
    };
    let mut points: Vec<(SliceRef, &FlowV2Rec)> = Vec::new();
    for r in v2.iter().flatten() {
        match at.get(&r.offset) {
            Some(&s) => points.push((s, r)),
            None => diags.add_excerpt(DiagKind::UnboundFlow, r.offset, String::new),
        }
    }
    points.sort_by_key(|(s, r)| (span(*s).0, r.offset));
    let mut pending: FxHashMap<IdK, SliceRef> = FxHashMap::default();
    for (s, r) in points {
        if r.flow_in {
            match pending.remove(&r.key) {
                Some(from) => {
                    let (_, from_end, from_thread, name, cat) = span(from);
                    let (to_start, _, to_thread, _, _) = span(s);
                    push(
                        t,
                        r.id,
                        name,
                        cat,
                        from,
                        s,
                        (from_end, to_start),
                        (from_thread, to_thread),
                        true,
                    );
                }
                None => diags.add_excerpt(DiagKind::UnboundFlow, r.offset, String::new),
            }
        }
        if r.flow_out {
            if let Some(prev) = pending.insert(r.key, s) {
                dangling(diags, prev, &at_offset(&v2, prev, slices, asyncs));
            }
        }
    }
    for (_, prev) in pending {
        dangling(diags, prev, &at_offset(&v2, prev, slices, asyncs));
    }
}

/// A set of offsets as bits, one per bucket of a hash, about 32 buckets an
/// offset: an offset whose bit is clear is not in the set (a few percent of the
/// others are not either). Small enough to stay in the caches, unlike the set.
struct OffsetFilter {
    bits: Vec<u64>,
    mask: u64,
}

impl OffsetFilter {
    fn new(offsets: &FxHashSet<u64>) -> Self {
        let buckets = (offsets.len() * 32).next_power_of_two().max(64);
        let mut f = OffsetFilter {
            bits: vec![0; buckets / 64],
            mask: buckets as u64 - 1,
        };
        for &off in offsets {
            let b = f.bucket(off);
            f.bits[b / 64] |= 1 << (b % 64);
        }
        f
    }

    fn bucket(&self, off: u64) -> usize {
        (off.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(32) & self.mask) as usize
    }

    fn may_hold(&self, off: u64) -> bool {
        let b = self.bucket(off);
        self.bits[b / 64] & (1 << (b % 64)) != 0
    }
}

/// The offset of the event that made a slice, for diagnostics.
fn at_offset(
    _v2: &[Vec<FlowV2Rec>],
    s: SliceRef,
    slices: &SliceTable,
    asyncs: &AsyncSliceTable,
) -> u64 {
    match s {
        SliceRef::Thread(i) => slices.offset(i.index()),
        SliceRef::Async(i) => asyncs.offset[i.index()],
    }
}

/// A `flow_out` that no `flow_in` ever consumed.
fn dangling(diags: &mut Diagnostics, _s: SliceRef, off: &u64) {
    let off = *off;
    diags.add_excerpt(DiagKind::UnboundFlow, off, || {
        "flow_out never consumed: ".to_string()
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::order::tests::Lcg;

    /// From any start the predicate holds before, `advance` finds what
    /// `partition_point` finds, for `<=` and `<` (ties, runs, the ends).
    #[test]
    fn advance_is_partition_point() {
        let mut rng = Lcg(9);
        for _ in 0..2000 {
            let mut col: Vec<i64> = (0..rng.below(40)).map(|_| rng.below(12) as i64).collect();
            col.sort_unstable();
            let mut queries: Vec<i64> = (0..rng.below(10))
                .map(|_| rng.below(14) as i64 - 1)
                .collect();
            queries.sort_unstable();
            let (mut le, mut lt) = (0, 0);
            for ts in queries {
                le = advance(col.len(), |i| col[i], le, |s| s <= ts);
                lt = advance(col.len(), |i| col[i], lt, |s| s < ts);
                assert_eq!(le, col.partition_point(|&s| s <= ts), "{col:?} {ts}");
                assert_eq!(lt, col.partition_point(|&s| s < ts), "{col:?} {ts}");
            }
        }
    }

    /// The filter holds every offset of its set.
    #[test]
    fn offset_filter_misses_none_of_its_offsets() {
        let mut rng = Lcg(4);
        for n in [0u64, 1, 5, 100, 3000] {
            let set: FxHashSet<u64> = (0..n).map(|_| rng.below(1 << 40)).collect();
            let f = OffsetFilter::new(&set);
            assert!(set.iter().all(|&o| f.may_hold(o)));
            let others = (0..10_000)
                .filter(|_| f.may_hold(rng.below(1 << 40)))
                .count();
            assert!(others < 1000, "{others}");
        }
    }
}
