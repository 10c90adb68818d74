//! Thread slices (spec section 3): `B`/`E` matching, `X`, `ui-nest` lanes, and the
//! tree every thread's slices form, with improper overlaps on extra rows.

use rayon::prelude::*;
use tracescope_format::{DiagKind, Diagnostics};

use super::excerpt;
use super::records::{DurKind, DurRec, NO_TIME};
use crate::args::TextRef;
use crate::tables::{slice_flags, Lane, SliceTable, SliceTrack, NONE};

/// A slice once its end is known, before it is placed in the tree.
#[derive(Clone, Debug)]
struct Built {
    start: i64,
    end: i64,
    offset: u64,
    rec: u32,
    end_args: TextRef,
    tdur: i64,
    flags: u8,
    depth: u32,
    parent: u32,
}

/// One thread's slices, per lane, in tree order.
struct ThreadSlices {
    thread: u32,
    lanes: Vec<(Lane, Vec<Built>)>,
}

/// Builds the slice table from all duration records (in file order).
pub fn build(
    recs: Vec<DurRec>,
    thread_end: &[i64],
    diags: &mut Diagnostics,
    input: &str,
) -> SliceTable {
    let recs = group_by_thread(recs);
    let mut ranges = Vec::new();
    let mut i = 0;
    while i < recs.len() {
        let t = recs[i].thread;
        let j = i + recs[i..].partition_point(|r| r.thread == t);
        ranges.push((i, j));
        i = j;
    }
    let results: Vec<(ThreadSlices, Diagnostics)> = ranges
        .par_iter()
        .map(|&(a, b)| {
            let mut d = Diagnostics::new();
            let t = recs[a].thread;
            let end = thread_end.get(t as usize).copied().unwrap_or(NO_TIME);
            let ts = thread_slices(&recs[a..b], end, &mut d, input);
            (ts, d)
        })
        .collect();
    let mut table = SliceTable::default();
    let all_recs = ranges.iter().map(|&(a, b)| &recs[a..b]);
    for ((ts, d), recs) in results.into_iter().zip(all_recs) {
        diags.merge(d);
        emit(&mut table, ts, recs);
    }
    table
}

fn emit(table: &mut SliceTable, ts: ThreadSlices, recs: &[DurRec]) {
    for (lane, built) in ts.lanes {
        if built.is_empty() {
            continue;
        }
        let base = table.len() as u32;
        let mut self_ns: Vec<i64> = built.iter().map(|b| b.end - b.start).collect();
        for b in &built {
            if b.parent != NONE {
                self_ns[b.parent as usize] -= b.end - b.start;
            }
        }
        let mut max_depth = 0;
        for (b, s) in built.iter().zip(self_ns) {
            let r = &recs[b.rec as usize];
            max_depth = max_depth.max(b.depth);
            table.thread.push(ts.thread);
            table.lane.push(lane);
            table.ts.push(b.start);
            table.dur.push(b.end - b.start);
            table.name.push(r.name);
            table.cat.push(r.cat);
            table.depth.push(b.depth);
            table.parent.push(if b.parent == NONE {
                NONE
            } else {
                base + b.parent
            });
            table.self_ns.push(s);
            table.flags.push(b.flags);
            table.tts.push(r.tts);
            table.tdur.push(b.tdur);
            table.args.push(r.args);
            table.end_args.push(b.end_args);
            table.cname.push(r.cname);
            table.offset.push(b.offset);
        }
        table.tracks.push(SliceTrack {
            thread: ts.thread,
            lane,
            rows: (base, table.len() as u32),
            max_depth,
        });
    }
}

/// Groups records by thread (a counting sort: one pass, file order kept within a thread).
fn group_by_thread(recs: Vec<DurRec>) -> Vec<DurRec> {
    let threads = recs
        .iter()
        .map(|r| r.thread as usize + 1)
        .max()
        .unwrap_or(0);
    let mut start = vec![0usize; threads + 1];
    for r in &recs {
        start[r.thread as usize + 1] += 1;
    }
    for t in 1..start.len() {
        start[t] += start[t - 1];
    }
    let mut order = vec![0u32; recs.len()];
    for (i, r) in recs.iter().enumerate() {
        let slot = &mut start[r.thread as usize];
        order[*slot] = i as u32;
        *slot += 1;
    }
    order.into_iter().map(|i| recs[i as usize]).collect()
}

fn thread_slices(
    recs: &[DurRec],
    thread_end: i64,
    diags: &mut Diagnostics,
    input: &str,
) -> ThreadSlices {
    let thread = recs[0].thread;
    // The seeds require B/E in time order per thread; out-of-band ui-nest events
    // and X (written when they complete) may come in any order.
    let mut last = i64::MIN;
    let mut unsorted_at = None;
    for r in recs.iter() {
        if matches!(r.kind, DurKind::B | DurKind::E) {
            if r.ts < last && unsorted_at.is_none() {
                unsorted_at = Some(r.offset);
            }
            last = last.max(r.ts);
        }
    }
    if let Some(off) = unsorted_at {
        diags.add(DiagKind::UnsortedThread, off, || {
            format!("thread {thread}: {}", excerpt(input, off))
        });
    }
    // Time order (file order among equal times): indexes, so records stay put.
    let mut order: Vec<u32> = (0..recs.len() as u32).collect();
    order.sort_unstable_by_key(|&i| (recs[i as usize].ts, i));

    let mut stack: Vec<Built> = Vec::new();
    let mut ui_open: Vec<Built> = Vec::new();
    let mut done: Vec<Built> = Vec::new();
    let mut ui_done: Vec<Built> = Vec::new();
    let open = |i: usize, r: &DurRec| Built {
        start: r.ts,
        end: NO_TIME,
        offset: r.offset,
        rec: i as u32,
        end_args: TextRef::NONE,
        tdur: r.tdur,
        flags: slice_flags::BEGIN_END,
        depth: 0,
        parent: NONE,
    };
    let close = |mut b: Built, e: &DurRec, recs: &[DurRec]| {
        b.end = e.ts.max(b.start);
        b.end_args = e.args;
        let bt = recs[b.rec as usize].tts;
        if bt != NO_TIME && e.tts != NO_TIME {
            b.tdur = e.tts - bt;
        }
        b
    };
    for &i in &order {
        let i = i as usize;
        let r = &recs[i];
        match r.kind {
            DurKind::X => {
                let mut b = open(i, r);
                b.flags = 0;
                if r.dur == NO_TIME {
                    b.flags |= slice_flags::DID_NOT_FINISH;
                } else {
                    b.end = r.ts.saturating_add(r.dur);
                }
                done.push(b);
            }
            DurKind::B => stack.push(open(i, r)),
            DurKind::UiB => ui_open.push(open(i, r)),
            DurKind::E | DurKind::UiE => {
                let name = r.name;
                let ui_match = (!name.is_none())
                    .then(|| {
                        ui_open
                            .iter()
                            .rposition(|b| recs[b.rec as usize].name == name)
                    })
                    .flatten();
                if r.kind == DurKind::UiE {
                    if let Some(k) = ui_match {
                        let b = ui_open.remove(k);
                        ui_done.push(close(b, r, recs));
                        continue;
                    }
                }
                let Some(top) = stack.last() else {
                    if let Some(k) = ui_match {
                        let b = ui_open.remove(k);
                        ui_done.push(close(b, r, recs));
                    } else {
                        diags.add(DiagKind::UnmatchedEnd, r.offset, || {
                            excerpt(input, r.offset)
                        });
                    }
                    continue;
                };
                let target = if name.is_none() || recs[top.rec as usize].name == name {
                    Some(stack.len() - 1)
                } else if let Some(k) = stack
                    .iter()
                    .rposition(|b| recs[b.rec as usize].name == name)
                {
                    diags.add(DiagKind::MisplacedEnd, r.offset, || {
                        excerpt(input, r.offset)
                    });
                    Some(k)
                } else if let Some(k) = ui_match {
                    let b = ui_open.remove(k);
                    ui_done.push(close(b, r, recs));
                    None
                } else {
                    diags.add(DiagKind::EndNameMismatch, r.offset, || {
                        excerpt(input, r.offset)
                    });
                    Some(stack.len() - 1)
                };
                if let Some(k) = target {
                    // The slice closed by name, then the ones above it, ending with it.
                    let mut closed = stack.split_off(k).into_iter();
                    if let Some(b) = closed.next() {
                        done.push(close(b, r, recs));
                    }
                    for mut b in closed {
                        b.end = r.ts.max(b.start);
                        done.push(b);
                    }
                }
            }
        }
    }
    // Never closed: did not finish, ends at the thread's last end.
    for (open_list, out) in [(stack, &mut done), (ui_open, &mut ui_done)] {
        for mut b in open_list {
            b.flags |= slice_flags::DID_NOT_FINISH;
            out.push(b);
        }
    }
    for b in done.iter_mut().chain(ui_done.iter_mut()) {
        if b.flags & slice_flags::DID_NOT_FINISH != 0 {
            b.end = thread_end.max(b.start);
        }
    }
    let overlaps = nest(&mut done);
    if overlaps > 0 {
        let first = done
            .iter()
            .filter(|b| b.flags & slice_flags::OVERLAP != 0)
            .map(|b| b.offset)
            .min()
            .unwrap_or(0);
        diags.add_n(DiagKind::Overlap, overlaps, first, || excerpt(input, first));
    }
    nest(&mut ui_done);
    ThreadSlices {
        thread,
        lanes: vec![(Lane::Stack, done), (Lane::UiNest, ui_done)],
    }
}

/// Whether `c` starts inside `p`: before `p` ends, or with a zero-length `p` at the
/// same time.
fn starts_inside(c: &Built, p: &Built) -> bool {
    c.start < p.end || (p.start == p.end && c.start == p.start)
}

/// Places slices in a tree by containment: depth, parent; improper overlaps go to
/// extra rows one deeper than the deepest row in use during their span. Sorts
/// `slices` into tree order (start, longer first, file order). Returns the number
/// of overlapping slices.
fn nest(slices: &mut [Built]) -> u64 {
    slices.sort_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then(b.end.cmp(&a.end))
            .then(a.offset.cmp(&b.offset))
    });
    let mut stack: Vec<usize> = Vec::new();
    let mut overlaps: Vec<(usize, u32)> = Vec::new();
    for i in 0..slices.len() {
        while let Some(&top) = stack.last() {
            if starts_inside(&slices[i], &slices[top]) {
                break;
            }
            stack.pop();
        }
        match stack.last() {
            Some(&top) if slices[i].end > slices[top].end => {
                // Starts inside `top`, ends outside it: an improper overlap.
                slices[i].flags |= slice_flags::OVERLAP;
                overlaps.push((i, stack.len() as u32));
            }
            top => {
                slices[i].depth = stack.len() as u32;
                slices[i].parent = top.map_or(NONE, |&t| t as u32);
                stack.push(i);
            }
        }
    }
    // Extra rows: one deeper than every row in use during the overlap's span: the
    // stack it started in, slices starting inside its span, earlier extra rows.
    let mut placed: Vec<usize> = Vec::new();
    for &(i, stack_rows) in &overlaps {
        let (s, e) = (slices[i].start, slices[i].end);
        let mut depth = stack_rows;
        for later in &slices[i + 1..] {
            if later.start >= e {
                break;
            }
            if later.flags & slice_flags::OVERLAP == 0 {
                depth = depth.max(later.depth + 1);
            }
        }
        for &k in &placed {
            if slices[k].start < e && s < slices[k].end {
                depth = depth.max(slices[k].depth + 1);
            }
        }
        slices[i].depth = depth;
        slices[i].parent = NONE;
        placed.push(i);
    }
    overlaps.len() as u64
}
