//! Flow arrows (spec section 6): v1 `s`/`t`/`f` bound to slices by time, and v2
//! `bind_id` with `flow_in`/`flow_out` on the slices themselves.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use tracescope_format::{DiagKind, Diagnostics};

use super::records::{FlowRec, FlowV2Rec, IdK};
use crate::strings::StrId;
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

/// The deepest slice of the thread whose span holds `ts` (end included).
fn enclosing(slices: &SliceTable, rows: (u32, u32), ts: i64) -> Option<SliceId> {
    let (a, b) = (rows.0 as usize, rows.1 as usize);
    let n = slices.ts[a..b].partition_point(|&s| s <= ts);
    let mut j = (a..a + n).rev().find(|&j| !slices.overlap(j))?;
    loop {
        if slices.ts[j] <= ts && ts <= slices.end(j) {
            return Some(SliceId::at(j));
        }
        j = slices.parent[j]?.index();
    }
}

/// The first slice of the thread that starts at or after `ts`.
fn next_starting(slices: &SliceTable, rows: (u32, u32), ts: i64) -> Option<SliceId> {
    let (a, b) = (rows.0 as usize, rows.1 as usize);
    let n = slices.ts[a..b].partition_point(|&s| s < ts);
    (a + n < b).then(|| SliceId::at(a + n))
}

struct Point {
    slice: Option<SliceId>,
    ts: i64,
    thread: ThreadId,
    offset: u64,
}

pub fn build(
    mut v1: Vec<FlowRec>,
    v2: Vec<FlowV2Rec>,
    slices: &SliceTable,
    asyncs: &AsyncSliceTable,
    diags: &mut Diagnostics,
) -> FlowTable {
    let mut t = FlowTable::default();
    let tracks = stack_tracks(slices);
    v1.par_sort_by_key(|r| r.ts);
    // Each point's slice, found on both cores (the chains below need them in order).
    let bound: Vec<Option<SliceId>> = v1
        .par_iter()
        .with_min_len(1 << 12)
        .map(|r| {
            let rows = tracks.get(&r.thread).copied()?;
            match r.ph {
                b'f' if !r.bind_enclosing => next_starting(slices, rows, r.ts),
                _ => enclosing(slices, rows, r.ts),
            }
        })
        .collect();
    // Per key: the last bound point of the open chain.
    let mut chains: FxHashMap<(StrId, StrId, IdK), (Point, usize)> = FxHashMap::default();
    let unbound = |diags: &mut Diagnostics, off: u64, why: &str| {
        diags.add_excerpt(DiagKind::UnboundFlow, off, || format!("{why}: "));
    };
    for (r, slice) in v1.iter().zip(bound) {
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
    v2: Vec<FlowV2Rec>,
    slices: &SliceTable,
    asyncs: &AsyncSliceTable,
    diags: &mut Diagnostics,
) {
    if v2.is_empty() {
        return;
    }
    let wanted: FxHashSet<u64> = v2.iter().map(|r| r.offset).collect();
    let mut at: FxHashMap<u64, SliceRef> = FxHashMap::default();
    // Every slice is looked up: on both cores, the hits kept in slice order so the
    // last slice of an offset wins, as in one pass.
    let hits: Vec<(u64, usize)> = (0..slices.len())
        .into_par_iter()
        .with_min_len(1 << 16)
        .filter_map(|i| {
            let off = slices.offset(i);
            wanted.contains(&off).then_some((off, i))
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
                slices.ts[i],
                slices.end(i),
                Some(slices.thread(i)),
                slices.name[i],
                slices.cat[i],
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
    for r in &v2 {
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

/// The offset of the event that made a slice, for diagnostics.
fn at_offset(_v2: &[FlowV2Rec], s: SliceRef, slices: &SliceTable, asyncs: &AsyncSliceTable) -> u64 {
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
