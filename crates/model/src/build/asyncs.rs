//! Async operations (spec section 5): nestable `b`/`n`/`e` and legacy `S`/`T`/`p`/`F`,
//! grouped per process by the name of their root and packed into lanes.

use rustc_hash::FxHashMap;
use tracescope_format::{DiagKind, Diagnostics};

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

pub fn build(mut recs: Vec<AsyncRec>, trace_end: i64, diags: &mut Diagnostics) -> AsyncSliceTable {
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
    pack(rows, unfinished)
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
fn pack(rows: Vec<Row>, unfinished: Vec<bool>) -> AsyncSliceTable {
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
