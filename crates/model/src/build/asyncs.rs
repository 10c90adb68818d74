//! Async operations (spec section 5): nestable `b`/`n`/`e` and legacy `S`/`T`/`p`/`F`,
//! grouped per process by the name of their root and packed into lanes.

use rustc_hash::FxHashMap;
use tracescope_format::{DiagKind, Diagnostics};

use super::order::{sort_stable_by_key, sorted_by, Parts};
use super::records::{AsyncKey, AsyncRec, NO_TIME};
use crate::args::TextRef;
use crate::strings::StrId;
use crate::tables::{
    AsyncGroup, AsyncGroupId, AsyncSliceId, AsyncSliceTable, IdVal, ProcessId, ThreadId,
};

#[derive(Clone, Debug)]
struct Row {
    process: ProcessId,
    thread: Option<ThreadId>,
    name: StrId,
    cat: StrId,
    id: IdVal,
    ts: i64,
    end: i64,
    depth: u32,
    /// Index of the parent in `rows`.
    parent: Option<u32>,
    args: TextRef,
    end_args: TextRef,
    offset: u64,
    legacy: bool,
    global: bool,
    root: u32,
}

struct Step {
    ts: i64,
    past: bool,
    name: StrId,
    args: TextRef,
    offset: u64,
    thread: Option<ThreadId>,
}

struct LegacyOp {
    root: u32,
    steps: Vec<Step>,
}

#[derive(Default)]
struct Open {
    nestable: Vec<u32>,
    legacy: Vec<LegacyOp>,
}

/// The rows of every operation, made by going through the records in time order
/// (equal times in file order), then packed ([`pack`]).
///
/// The records are not sorted themselves (100 bytes each): pairs of (time,
/// reference) are. An operation's state is dropped once nothing of it is open,
/// so the map of open operations holds those open at one time, not every key of
/// the trace (at 10 GB it grew to millions of entries, each looked up at random).
pub fn build(parts: Parts<AsyncRec>, trace_end: i64, diags: &mut Diagnostics) -> AsyncSliceTable {
    let (rows, unfinished) = {
        let recs = sorted_by(&parts, |r| r.ts);
        make_rows(recs.iter().map(|&(_, r)| r), recs.len(), trace_end, diags)
    };
    drop(parts);
    pack(rows, unfinished)
}

/// The rows of the records `recs` (`n` of them, in time order), and whether each
/// did not finish.
fn make_rows<'a>(
    recs: impl Iterator<Item = &'a AsyncRec>,
    n: usize,
    trace_end: i64,
    diags: &mut Diagnostics,
) -> (Vec<Row>, Vec<bool>) {
    // A record makes at most one row (`b`, `n`, `S`, or a step of `T`/`p`).
    let mut rows: Vec<Row> = Vec::with_capacity(n);
    let mut open: FxHashMap<AsyncKey, Open> = FxHashMap::default();
    // States emptied, kept for their vectors' room.
    let mut spare: Vec<Open> = Vec::new();
    for r in recs {
        let st = open
            .entry(r.key)
            .or_insert_with(|| spare.pop().unwrap_or_default());
        let new_row = |rows: &Vec<Row>, depth: u32, parent: Option<u32>, legacy: bool| Row {
            process: r.process,
            thread: r.thread,
            name: r.name,
            cat: r.cat,
            id: r.id,
            ts: r.ts,
            end: NO_TIME,
            depth,
            parent,
            args: r.args,
            end_args: TextRef::NONE,
            offset: r.offset,
            legacy,
            global: r.global,
            root: parent.map_or(rows.len() as u32, |p| rows[p as usize].root),
        };
        match r.ph {
            b'b' | b'n' => {
                let parent = st.nestable.last().copied();
                let mut row = new_row(&rows, st.nestable.len() as u32, parent, false);
                let idx = rows.len() as u32;
                if r.ph == b'n' {
                    row.end = row.ts;
                    rows.push(row);
                } else {
                    rows.push(row);
                    st.nestable.push(idx);
                }
            }
            b'e' if st.nestable.is_empty() => {
                diags.add_excerpt(DiagKind::UnmatchedEnd, r.offset, String::new);
            }
            b'e' => {
                let k = if r.name.is_none() {
                    st.nestable.len() - 1
                } else {
                    match st
                        .nestable
                        .iter()
                        .rposition(|&i| rows[i as usize].name == r.name)
                    {
                        Some(k) => k,
                        None => {
                            diags.add_excerpt(DiagKind::EndNameMismatch, r.offset, String::new);
                            st.nestable.len() - 1
                        }
                    }
                };
                let i = st.nestable.remove(k) as usize;
                rows[i].end = r.ts.max(rows[i].ts);
                rows[i].end_args = r.args;
            }
            b'S' => {
                let root = rows.len() as u32;
                rows.push(new_row(&rows, 0, None, true));
                st.legacy.push(LegacyOp {
                    root,
                    steps: Vec::new(),
                });
            }
            b'T' | b'p' => match st.legacy.last_mut() {
                Some(op) => op.steps.push(Step {
                    ts: r.ts,
                    past: r.ph == b'p',
                    name: if r.step.is_none() { r.name } else { r.step },
                    args: r.args,
                    offset: r.offset,
                    thread: r.thread,
                }),
                None => diags.add_excerpt(DiagKind::UnmatchedAsyncStep, r.offset, String::new),
            },
            _ => match st.legacy.pop() {
                // `F`
                Some(op) => {
                    rows[op.root as usize].end = r.ts.max(rows[op.root as usize].ts);
                    rows[op.root as usize].end_args = r.args;
                    legacy_steps(&mut rows, op, r.ts);
                }
                None => diags.add_excerpt(DiagKind::UnmatchedEnd, r.offset, String::new),
            },
        }
        if st.nestable.is_empty() && st.legacy.is_empty() {
            if let Some(st) = open.remove(&r.key) {
                spare.push(st);
            }
        }
    }
    // Never closed: did not finish, ends at the end of the trace.
    let mut unfinished = vec![false; rows.len()];
    for (_, st) in open {
        for i in st.nestable {
            unfinished[i as usize] = true;
        }
        for op in st.legacy {
            unfinished[op.root as usize] = true;
            legacy_steps(&mut rows, op, trace_end);
        }
    }
    unfinished.resize(rows.len(), false);
    for (row, dnf) in rows.iter_mut().zip(&unfinished) {
        if *dnf {
            row.end = trace_end.max(row.ts);
        }
    }
    (rows, unfinished)
}

/// Step rows of a legacy operation: a `T` runs to the next step (or the end), a `p`
/// from the previous step (or the start).
fn legacy_steps(rows: &mut Vec<Row>, op: LegacyOp, end: i64) {
    let root = rows[op.root as usize].clone();
    for (k, s) in op.steps.iter().enumerate() {
        let (from, to) = if s.past {
            (if k == 0 { root.ts } else { op.steps[k - 1].ts }, s.ts)
        } else {
            (s.ts, op.steps.get(k + 1).map_or(end, |n| n.ts))
        };
        rows.push(Row {
            thread: s.thread,
            name: s.name,
            ts: from,
            end: to.max(from),
            depth: 1,
            parent: Some(op.root),
            args: s.args,
            end_args: TextRef::NONE,
            offset: s.offset,
            root: op.root,
            ..root.clone()
        });
    }
}

/// Groups operations by (process, root name), packs them into lanes, and writes the
/// table with each operation's rows contiguous, root first.
///
/// Linear but for sorts that find their input in order (checked first): the rows
/// are grouped by operation with a counting pass (not a vector and a map per
/// operation: a million small allocations at 10 GB), and a group's roots are
/// sorted as compact (time, offset, row) triples, not as row indexes whose keys
/// are read from the rows.
fn pack(rows: Vec<Row>, unfinished: Vec<bool>) -> AsyncSliceTable {
    let n = rows.len();
    // Each operation's rows (`members[first[root]..first[root + 1]]`, in row
    // order), by a count per root then a prefix sum.
    let mut first = vec![0u32; n + 1];
    for r in &rows {
        first[r.root as usize + 1] += 1;
    }
    for i in 0..n {
        first[i + 1] += first[i];
    }
    let mut next = first.clone();
    let mut members = vec![0u32; n];
    for (i, r) in rows.iter().enumerate() {
        let at = &mut next[r.root as usize];
        members[*at as usize] = i as u32;
        *at += 1;
    }
    drop(next);
    // Groups by (process, root name), in order of their first root; each with its
    // smallest offset and its roots as (time, offset, row).
    struct Group {
        key: (ProcessId, StrId),
        min_offset: u64,
        roots: Vec<(i64, u64, u32)>,
    }
    let mut group_of: FxHashMap<(ProcessId, StrId), usize> = FxHashMap::default();
    let mut groups: Vec<Group> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if r.root as usize != i {
            continue;
        }
        let key = (r.process, r.name);
        let g = *group_of.entry(key).or_insert_with(|| {
            groups.push(Group {
                key,
                min_offset: r.offset,
                roots: Vec::new(),
            });
            groups.len() - 1
        });
        let g = &mut groups[g];
        g.min_offset = g.min_offset.min(r.offset);
        g.roots.push((r.ts, r.offset, i as u32));
    }
    drop(group_of);
    groups.sort_by_key(|g| (g.key.0, g.min_offset));
    let mut t = AsyncSliceTable::default();
    t.process.reserve_exact(n);
    t.thread.reserve_exact(n);
    t.name.reserve_exact(n);
    t.cat.reserve_exact(n);
    t.id.reserve_exact(n);
    t.ts.reserve_exact(n);
    t.dur.reserve_exact(n);
    t.depth.reserve_exact(n);
    t.parent.reserve_exact(n);
    t.did_not_finish.reserve_exact(n);
    t.lane.reserve_exact(n);
    t.group.reserve_exact(n);
    t.args.reserve_exact(n);
    t.end_args.reserve_exact(n);
    t.offset.reserve_exact(n);
    t.legacy.reserve_exact(n);
    // Each row's row in the table, set for an operation's rows before they are
    // written (a parent is in its child's operation).
    let mut table_row = vec![0u32; n];
    for mut g in groups {
        sort_stable_by_key(&mut g.roots, |&(ts, offset, _)| (ts, offset));
        let group = AsyncGroupId::at(t.groups.len());
        let mut lane_free: Vec<i64> = Vec::new();
        let global = g.roots.iter().all(|&(.., r)| rows[r as usize].global);
        for &(.., root) in &g.roots {
            let m = &mut members[first[root as usize] as usize..first[root as usize + 1] as usize];
            sort_stable_by_key(m, |&i| {
                (
                    i != root,
                    rows[i as usize].ts,
                    rows[i as usize].depth,
                    rows[i as usize].offset,
                )
            });
            let start = rows[root as usize].ts;
            let end = m
                .iter()
                .map(|&i| rows[i as usize].end)
                .max()
                .unwrap_or(start)
                .max(start.saturating_add(1));
            let height = m.iter().map(|&i| rows[i as usize].depth).max().unwrap_or(0) as usize + 1;
            let base = (0..)
                .find(|&b: &usize| {
                    (b..b + height).all(|l| lane_free.get(l).is_none_or(|&f| f <= start))
                })
                .unwrap_or(0);
            if lane_free.len() < base + height {
                lane_free.resize(base + height, i64::MIN);
            }
            for f in &mut lane_free[base..base + height] {
                *f = end;
            }
            let first_row = t.len() as u32;
            for (k, &i) in m.iter().enumerate() {
                table_row[i as usize] = first_row + k as u32;
            }
            for &i in m.iter() {
                let r = &rows[i as usize];
                t.process.push(r.process);
                t.thread.push(r.thread);
                t.name.push(r.name);
                t.cat.push(r.cat);
                t.id.push(r.id);
                t.ts.push(r.ts);
                t.dur.push(r.end.saturating_sub(r.ts));
                t.depth.push(r.depth);
                t.parent
                    .push(r.parent.map(|p| AsyncSliceId::new(table_row[p as usize])));
                t.did_not_finish.push(unfinished[i as usize]);
                t.lane.push(base as u32 + r.depth);
                t.group.push(group);
                t.args.push(r.args);
                t.end_args.push(r.end_args);
                t.offset.push(r.offset);
                t.legacy.push(r.legacy);
            }
        }
        t.groups.push(AsyncGroup {
            process: g.key.0,
            name: g.key.1,
            lanes: lane_free.len() as u32,
            global,
        });
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::order::tests::Lcg;
    use crate::build::records::IdK;

    // The build as it was: every record sorted by time, a state per key kept to
    // the end, a vector and a map per operation.
    fn plain_build(
        mut recs: Vec<AsyncRec>,
        trace_end: i64,
        diags: &mut Diagnostics,
    ) -> AsyncSliceTable {
        recs.sort_by_key(|r| r.ts);
        let mut rows: Vec<Row> = Vec::new();
        let mut open: FxHashMap<AsyncKey, Open> = FxHashMap::default();
        for r in &recs {
            let st = open.entry(r.key).or_default();
            let new_row = |rows: &Vec<Row>, depth: u32, parent: Option<u32>, legacy: bool| Row {
                process: r.process,
                thread: r.thread,
                name: r.name,
                cat: r.cat,
                id: r.id,
                ts: r.ts,
                end: NO_TIME,
                depth,
                parent,
                args: r.args,
                end_args: TextRef::NONE,
                offset: r.offset,
                legacy,
                global: r.global,
                root: parent.map_or(rows.len() as u32, |p| rows[p as usize].root),
            };
            match r.ph {
                b'b' | b'n' => {
                    let parent = st.nestable.last().copied();
                    let mut row = new_row(&rows, st.nestable.len() as u32, parent, false);
                    let idx = rows.len() as u32;
                    if r.ph == b'n' {
                        row.end = row.ts;
                        rows.push(row);
                    } else {
                        rows.push(row);
                        st.nestable.push(idx);
                    }
                }
                b'e' => {
                    if st.nestable.is_empty() {
                        diags.add_excerpt(DiagKind::UnmatchedEnd, r.offset, String::new);
                        continue;
                    }
                    let k = if r.name.is_none() {
                        st.nestable.len() - 1
                    } else {
                        match st
                            .nestable
                            .iter()
                            .rposition(|&i| rows[i as usize].name == r.name)
                        {
                            Some(k) => k,
                            None => {
                                diags.add_excerpt(DiagKind::EndNameMismatch, r.offset, String::new);
                                st.nestable.len() - 1
                            }
                        }
                    };
                    let i = st.nestable.remove(k) as usize;
                    rows[i].end = r.ts.max(rows[i].ts);
                    rows[i].end_args = r.args;
                }
                b'S' => {
                    let root = rows.len() as u32;
                    rows.push(new_row(&rows, 0, None, true));
                    st.legacy.push(LegacyOp {
                        root,
                        steps: Vec::new(),
                    });
                }
                b'T' | b'p' => match st.legacy.last_mut() {
                    Some(op) => op.steps.push(Step {
                        ts: r.ts,
                        past: r.ph == b'p',
                        name: if r.step.is_none() { r.name } else { r.step },
                        args: r.args,
                        offset: r.offset,
                        thread: r.thread,
                    }),
                    None => diags.add_excerpt(DiagKind::UnmatchedAsyncStep, r.offset, String::new),
                },
                _ => match st.legacy.pop() {
                    // `F`
                    Some(op) => {
                        rows[op.root as usize].end = r.ts.max(rows[op.root as usize].ts);
                        rows[op.root as usize].end_args = r.args;
                        legacy_steps(&mut rows, op, r.ts);
                    }
                    None => diags.add_excerpt(DiagKind::UnmatchedEnd, r.offset, String::new),
                },
            }
        }
        // Never closed: did not finish, ends at the end of the trace.
        let mut unfinished = vec![false; rows.len()];
        for (_, st) in open {
            for i in st.nestable {
                unfinished[i as usize] = true;
            }
            for op in st.legacy {
                unfinished[op.root as usize] = true;
                legacy_steps(&mut rows, op, trace_end);
            }
        }
        unfinished.resize(rows.len(), false);
        for (row, dnf) in rows.iter_mut().zip(&unfinished) {
            if *dnf {
                row.end = trace_end.max(row.ts);
            }
        }
        plain_pack(rows, unfinished)
    }

    fn plain_pack(rows: Vec<Row>, unfinished: Vec<bool>) -> AsyncSliceTable {
        let mut ops: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        for (i, r) in rows.iter().enumerate() {
            ops.entry(r.root).or_default().push(i as u32);
        }
        let mut groups: FxHashMap<(ProcessId, StrId), Vec<u32>> = FxHashMap::default();
        for &root in ops.keys() {
            let r = &rows[root as usize];
            groups.entry((r.process, r.name)).or_default().push(root);
        }
        let mut group_keys: Vec<(ProcessId, StrId)> = groups.keys().copied().collect();
        group_keys.sort_by_key(|&(p, n)| {
            (
                p,
                groups[&(p, n)]
                    .iter()
                    .map(|&r| rows[r as usize].offset)
                    .min(),
            )
        });
        let mut t = AsyncSliceTable::default();
        for key in group_keys {
            let mut roots = groups.remove(&key).unwrap_or_default();
            roots.sort_by_key(|&r| (rows[r as usize].ts, rows[r as usize].offset));
            let group = AsyncGroupId::at(t.groups.len());
            let mut lane_free: Vec<i64> = Vec::new();
            let global = roots.iter().all(|&r| rows[r as usize].global);
            for root in roots {
                let mut members = ops.remove(&root).unwrap_or_default();
                members.sort_by_key(|&i| {
                    (
                        i != root,
                        rows[i as usize].ts,
                        rows[i as usize].depth,
                        rows[i as usize].offset,
                    )
                });
                let start = rows[root as usize].ts;
                let end = members
                    .iter()
                    .map(|&i| rows[i as usize].end)
                    .max()
                    .unwrap_or(start)
                    .max(start.saturating_add(1));
                let height = members
                    .iter()
                    .map(|&i| rows[i as usize].depth)
                    .max()
                    .unwrap_or(0) as usize
                    + 1;
                let base = (0..)
                    .find(|&b: &usize| {
                        (b..b + height).all(|l| lane_free.get(l).is_none_or(|&f| f <= start))
                    })
                    .unwrap_or(0);
                if lane_free.len() < base + height {
                    lane_free.resize(base + height, i64::MIN);
                }
                for f in &mut lane_free[base..base + height] {
                    *f = end;
                }
                let first = t.len() as u32;
                let local: FxHashMap<u32, u32> = members
                    .iter()
                    .enumerate()
                    .map(|(k, &i)| (i, first + k as u32))
                    .collect();
                for &i in &members {
                    let r = &rows[i as usize];
                    t.process.push(r.process);
                    t.thread.push(r.thread);
                    t.name.push(r.name);
                    t.cat.push(r.cat);
                    t.id.push(r.id);
                    t.ts.push(r.ts);
                    t.dur.push(r.end.saturating_sub(r.ts));
                    t.depth.push(r.depth);
                    t.parent.push(
                        r.parent
                            .and_then(|p| local.get(&p))
                            .map(|&x| AsyncSliceId::new(x)),
                    );
                    t.did_not_finish.push(unfinished[i as usize]);
                    t.lane.push(base as u32 + r.depth);
                    t.group.push(group);
                    t.args.push(r.args);
                    t.end_args.push(r.end_args);
                    t.offset.push(r.offset);
                    t.legacy.push(r.legacy);
                }
            }
            t.groups.push(AsyncGroup {
                process: key.0,
                name: key.1,
                lanes: lane_free.len() as u32,
                global,
            });
        }
        t
    }

    /// Random records of a few keys, names, processes and threads: every phase,
    /// ends without a begin, names that match no open slice, steps without an
    /// operation, equal times, time going back; split into parts in file order.
    #[test]
    fn same_table_and_diagnostics_as_the_plain_build() {
        let mut rng = Lcg(5);
        for round in 0..600 {
            let n = rng.below(80) as usize;
            let mut recs = Vec::with_capacity(n);
            let mut ts = 0i64;
            for k in 0..n {
                ts = match round % 3 {
                    0 => rng.below(20) as i64,
                    1 => ts + rng.below(4) as i64 - 1,
                    _ => ts + rng.below(3) as i64,
                };
                let key = AsyncKey {
                    a: StrId(rng.below(2) as u32),
                    id: IdK {
                        v: rng.below(3),
                        is_str: false,
                        file: 0,
                    },
                    scope: StrId::NONE,
                    local_process: (rng.below(4) == 0).then(|| ProcessId::new(0)),
                };
                let ph = b"bbbnneeeeSTpFF"[rng.below(14) as usize];
                recs.push(AsyncRec {
                    offset: 10 * k as u64,
                    ts,
                    ph,
                    process: ProcessId::new(rng.below(2) as u32),
                    thread: (rng.below(3) != 0).then(|| ThreadId::new(rng.below(2) as u32)),
                    name: StrId(rng.below(3) as u32),
                    cat: StrId(rng.below(2) as u32),
                    key,
                    id: IdVal::None,
                    args: TextRef {
                        start: k as u64,
                        len: 1,
                    },
                    step: StrId(rng.below(2) as u32),
                    global: rng.below(3) == 0,
                });
            }
            let mut parts: Vec<Vec<AsyncRec>> = Vec::new();
            let mut rest = &recs[..];
            while !rest.is_empty() {
                let (a, b) = rest.split_at((1 + rng.below(20) as usize).min(rest.len()));
                parts.push(a.to_vec());
                rest = b;
            }
            let trace_end = 30;
            let (mut d1, mut d2) = (Diagnostics::new(), Diagnostics::new());
            let got = build(parts, trace_end, &mut d1);
            let want = plain_build(recs, trace_end, &mut d2);
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "round {round}");
            assert!(d1 == d2, "round {round}");
        }
    }
}
