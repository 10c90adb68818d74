//! Thread slices (spec section 3): `B`/`E` matching, `X`, `ui-nest` lanes, and the
//! tree every thread's slices form, with improper overlaps on extra rows.

use std::mem::MaybeUninit;

use rayon::prelude::*;
use tracescope_format::{DiagKind, Diagnostics};

use super::records::{DurKind, DurRec, DurRecs, DurSlice, DurWide, NO_TIME};
use super::slice_rows::{self, Row, RowsMut, SparseCells, TimeSpans};
use crate::args::TextRef;
use crate::tables::{slice_flags, Lane, Ns, SliceId, SliceTable, SliceTrack, ThreadId};

/// A slice once its end is known, before it is placed in the tree.
#[derive(Clone, Debug)]
pub(super) struct Built {
    start: i64,
    end: i64,
    offset: u64,
    rec: u32,
    end_args: TextRef,
    tdur: Option<Ns>,
    flags: u8,
    depth: u32,
    /// Index of the parent in its lane's list.
    parent: Option<u32>,
}

/// One thread's slices, per lane, in tree order.
pub(super) struct ThreadSlices {
    thread: ThreadId,
    lanes: Vec<(Lane, Vec<Built>)>,
}

/// Whether a record opens a slice row (each `X`, `B` or `ui-nest` begin opens
/// exactly one, see `thread_rows`).
pub(super) fn opens(r: &DurRec) -> bool {
    matches!(r.kind(), DurKind::X | DurKind::B | DurKind::UiB)
}

/// The duration records of every part counted by thread (ids as the parts
/// wrote them), before the threads are renumbered: which threads they use, and
/// where each part's records go when gathered by thread.
pub struct DurCounts {
    /// Per thread: its records, and the slice rows they open.
    pub totals: Vec<(usize, usize)>,
    /// Per part, per thread: its records (empty when there are too many parts
    /// and threads for a table of both; the gather is then serial).
    per_part: Vec<Vec<u32>>,
    /// The records' earliest and latest times, and whether any has a thread time.
    pub spans: TimeSpans,
}

/// Most cells of the part-by-thread tables of [`DurCounts`] and of [`gather`]
/// (24 bytes a cell: 24 MiB).
const MOST_PART_THREADS: usize = 1 << 20;

impl DurCounts {
    /// Counts `parts` (in parallel): read once here, on both cores, before the
    /// renumbering of the threads (which no longer visits these records).
    pub fn of(parts: &[DurRecs], threads: usize) -> DurCounts {
        if parts.len().saturating_mul(threads) > MOST_PART_THREADS {
            let (totals, spans) = parts
                .par_iter()
                .fold(
                    || (Vec::new(), TimeSpans::default()),
                    |(mut c, mut times): (Vec<(usize, usize)>, TimeSpans), part| {
                        for r in &part.recs {
                            let t = r.thread.index();
                            if c.len() <= t {
                                c.resize(t + 1, (0, 0));
                            }
                            c[t].0 += 1;
                            c[t].1 += usize::from(opens(r));
                            times.note(r.ts, r.tts, has_thread_time(r, &part.wide));
                        }
                        (c, times)
                    },
                )
                .reduce(
                    || (Vec::new(), TimeSpans::default()),
                    |(a, ta), (b, tb)| {
                        let (mut long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
                        for (x, y) in long.iter_mut().zip(short) {
                            x.0 += y.0;
                            x.1 += y.1;
                        }
                        (long, ta.join(tb))
                    },
                );
            return DurCounts {
                totals,
                per_part: Vec::new(),
                spans,
            };
        }
        let per_part: Vec<(Vec<u32>, Vec<u32>, TimeSpans)> = parts
            .par_iter()
            .map(|part| {
                let mut recs = vec![0u32; threads];
                let mut opened = vec![0u32; threads];
                let mut times = TimeSpans::default();
                for r in &part.recs {
                    let t = r.thread.index();
                    if recs.len() <= t {
                        recs.resize(t + 1, 0);
                        opened.resize(t + 1, 0);
                    }
                    recs[t] += 1;
                    opened[t] += u32::from(opens(r));
                    times.note(r.ts, r.tts, has_thread_time(r, &part.wide));
                }
                (recs, opened, times)
            })
            .collect();
        let width = per_part.iter().map(|p| p.0.len()).max().unwrap_or(0);
        let mut totals = vec![(0usize, 0usize); width];
        let mut spans = TimeSpans::default();
        for (recs, opened, times) in &per_part {
            for (t, (&n, &o)) in recs.iter().zip(opened).enumerate() {
                totals[t].0 += n as usize;
                totals[t].1 += o as usize;
            }
            spans = spans.join(*times);
        }
        let per_part = per_part.into_iter().map(|p| p.0).collect();
        DurCounts {
            totals,
            per_part,
            spans,
        }
    }

    /// Marks the threads some record uses.
    pub fn mark_used(&self, used: &mut [bool]) {
        for (t, c) in self.totals.iter().enumerate() {
            if c.0 > 0 {
                if let Some(u) = used.get_mut(t) {
                    *u = true;
                }
            }
        }
    }
}

/// A thread, the slice rows its duration records open, and the records (in
/// file order).
pub type ThreadDurs = (ThreadId, usize, Vec<DurRec>);

/// Every thread's records (each part's moved to its threads in parallel, the
/// part freed once moved), with the slice rows they open, in the order of the
/// new thread ids `tmap` gives (old to new, as the registry renumbered them),
/// and the side table of all their wide records (the parts' tables one after the
/// other). Each record's thread is set to its new id.
pub fn gather(
    mut parts: Vec<DurRecs>,
    counts: &DurCounts,
    tmap: &[Option<ThreadId>],
) -> (Vec<ThreadDurs>, Vec<DurWide>) {
    let new_of = |old: usize| -> ThreadId {
        tmap.get(old)
            .copied()
            .flatten()
            .expect("a thread some record uses is kept")
    };
    // Old ids of the threads with records, in new id order.
    let mut olds: Vec<usize> = (0..counts.totals.len())
        .filter(|&t| counts.totals[t].0 > 0)
        .collect();
    olds.sort_by_key(|&t| new_of(t));
    let mut by_thread: Vec<Vec<DurRec>> = olds
        .iter()
        .map(|&t| Vec::with_capacity(counts.totals[t].0))
        .collect();
    // Each part's wide records index the joined side table from its base on.
    let mut wide = Vec::with_capacity(parts.iter().map(|p| p.wide.len()).sum());
    let wide_bases: Vec<usize> = parts
        .iter_mut()
        .map(|p| {
            let base = wide.len();
            wide.append(&mut p.wide);
            base
        })
        .collect();
    if counts.per_part.len() != parts.len() || parts.len() < 2 {
        let mut slot = vec![usize::MAX; counts.totals.len()];
        for (k, &t) in olds.iter().enumerate() {
            slot[t] = k;
        }
        for (part, &wide_base) in parts.iter().zip(&wide_bases) {
            for r in &part.recs {
                let mut r = r.with_wide_base(wide_base);
                let t = r.thread.index();
                r.thread = new_of(t);
                by_thread[slot[t]].push(r);
            }
        }
    } else {
        // Each part's share of every thread's vector: the spare capacity cut in
        // file order, part by part.
        let width = counts.totals.len();
        let mut pieces: Vec<Vec<&mut [MaybeUninit<DurRec>]>> = (0..parts.len())
            .map(|_| (0..width).map(|_| Default::default()).collect())
            .collect();
        for (v, &t) in by_thread.iter_mut().zip(&olds) {
            let mut rest = &mut v.spare_capacity_mut()[..counts.totals[t].0];
            for (p, piece) in pieces.iter_mut().enumerate() {
                let n = counts.per_part[p].get(t).copied().unwrap_or(0) as usize;
                let (mine, after) = rest.split_at_mut(n);
                piece[t] = mine;
                rest = after;
            }
            assert!(rest.is_empty(), "the parts' counts add up to the total");
        }
        let new_ids: Vec<ThreadId> = (0..width)
            .map(|t| {
                if counts.totals[t].0 > 0 {
                    new_of(t)
                } else {
                    ThreadId::at(0)
                }
            })
            .collect();
        parts.into_par_iter().zip(pieces).zip(wide_bases).for_each(
            |((part, mut piece), wide_base)| {
                for r in &part.recs {
                    let t = r.thread.index();
                    let (slot, rest) = std::mem::take(&mut piece[t])
                        .split_first_mut()
                        .expect("a part writes the records counted for it");
                    let mut r = r.with_wide_base(wide_base);
                    r.thread = new_ids[t];
                    slot.write(r);
                    piece[t] = rest;
                }
                assert!(
                    piece.iter().all(|s| s.is_empty()),
                    "a part writes every record counted for it"
                );
                drop(part);
            },
        );
        for (v, &t) in by_thread.iter_mut().zip(&olds) {
            // SAFETY: the first `totals[t].0` cells of `v`'s spare capacity were
            // cut into one piece per part (the assert above checks the pieces
            // cover them exactly), and every part wrote each cell of its piece:
            // the loop writes a cell per record of thread `t` (as many as counted
            // for the part, or `split_first_mut` would have panicked) and the
            // assert after it checks no piece kept an unwritten cell. A panic in
            // any part propagates out of `for_each` before this line.
            unsafe { v.set_len(counts.totals[t].0) };
        }
    }
    let threads = olds
        .iter()
        .zip(by_thread)
        .map(|(&t, recs)| (new_of(t), counts.totals[t].1, recs))
        .collect();
    (threads, wide)
}

/// Builds the slice table from every thread's records (from [`gather`], in file
/// order within each thread, with the side table `wide` of their wide records).
///
/// The records and the table are never all held at once: each thread's records
/// are freed as soon as its rows are written (holding every part until the end
/// made the records, 72 bytes an event then, 48 since, and the table the peak of
/// the load).
/// Reading the records where the parts hold them instead (8-byte references per
/// thread) was tried: slower at 1 GB (records scattered over every part) and 220
/// MiB more at the peak.
pub fn build(
    work: Vec<ThreadDurs>,
    wide: &[DurWide],
    spans: TimeSpans,
    thread_end: &[i64],
    diags: &mut Diagnostics,
) -> SliceTable {
    fill(work, spans, diags, |thread, recs, out, base, d, scratch| {
        let end = thread_end.get(thread.index()).copied().unwrap_or(NO_TIME);
        let recs = DurSlice { recs: &recs, wide };
        thread_rows(thread, recs, end, out, base, d, scratch)
    })
}

/// Whether a record gives its slice a thread time (the slice table keeps the
/// `tts`/`tdur` columns only if one does).
pub(super) fn has_thread_time(r: &DurRec, wide: &[DurWide]) -> bool {
    r.tts.is_some() || r.tdur(wide).is_some()
}

/// The slice table of `threads` (in table order: each thread, the number of rows
/// it will have, and what `each` needs to build them): the columns are allocated
/// once and `each` writes one thread's rows from row `base` on, in parallel. The
/// rows' times must lie within `spans` (a time that does not is kept apart); the
/// thread time columns are kept if `spans` has thread times (else every row must
/// lack them).
pub(super) fn fill<W: Send>(
    threads: Vec<(ThreadId, usize, W)>,
    spans: TimeSpans,
    diags: &mut Diagnostics,
    each: impl Fn(ThreadId, W, &mut RowsMut<'_>, u32, &mut Diagnostics, &mut Scratch) -> Vec<SliceTrack>
        + Sync,
) -> SliceTable {
    let total: usize = threads.iter().map(|r| r.1).sum();
    let mut table = SliceTable::default();
    let mut rest = RowsMut::of(&mut table, total, spans);
    let mut work = Vec::with_capacity(threads.len());
    let mut base = 0u32;
    for (thread, n, w) in threads {
        let (mine, after) = rest.split(n);
        work.push((thread, base, mine, w, n));
        rest = after;
        base += n as u32;
    }
    // Largest threads first, each taken by the next free core: a trace's main
    // thread can hold most of its slices, and started last it would run alone.
    work.sort_by_key(|w| std::cmp::Reverse(w.4));
    let done = std::sync::Mutex::new(Vec::with_capacity(work.len()));
    let scratches = std::sync::Mutex::new(Vec::new());
    rayon::scope_fifo(|s| {
        for (thread, base, mut out, w, _) in work {
            let (each, done, scratches) = (&each, &done, &scratches);
            s.spawn_fifo(move |_| {
                let mut scratch: Scratch = locked(scratches).pop().unwrap_or_default();
                let mut d = Diagnostics::new();
                let tracks = each(thread, w, &mut out, base, &mut d, &mut scratch);
                locked(scratches).push(scratch);
                let full = out.is_full();
                let cells = out.take_cells();
                locked(done).push((thread, tracks, d, full, cells));
            });
        }
    });
    let mut built = done.into_inner().unwrap_or_else(|e| e.into_inner());
    // Back in table order: the tracks and the diagnostics as a sequential build.
    built.sort_by_key(|b| b.0);
    assert!(
        built.iter().all(|b| b.3),
        "every thread fills the rows counted for it"
    );
    let mut cells = SparseCells::default();
    for (_, tracks, d, _, c) in built {
        diags.merge(d);
        table.tracks.extend(tracks);
        cells.append(c);
    }
    // SAFETY: the ranges split above cover rows 0..total and each was filled.
    unsafe { slice_rows::set_len(&mut table, total, spans.thread_times, cells) };
    table
}

/// A mutex's value, also after a panic elsewhere (which the caller reports anyway).
fn locked<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes one thread's slices from row `base` on; returns its tracks.
pub(super) fn emit(
    out: &mut RowsMut<'_>,
    base: u32,
    ts: ThreadSlices,
    recs: DurSlice<'_>,
    scratch: &mut Scratch,
) -> Vec<SliceTrack> {
    let mut tracks = Vec::new();
    let mut next = base;
    for (lane, built) in ts.lanes {
        tracks.extend(emit_lane(out, next, ts.thread, lane, &built, recs, scratch));
        next += built.len() as u32;
        scratch.keep(built);
    }
    tracks
}

/// Writes one lane's slices (placed, in tree order) from row `lane_base` on;
/// returns its track (none for no slices).
fn emit_lane(
    out: &mut RowsMut<'_>,
    lane_base: u32,
    thread: ThreadId,
    lane: Lane,
    built: &[Built],
    recs: DurSlice<'_>,
    scratch: &mut Scratch,
) -> Option<SliceTrack> {
    if built.is_empty() {
        return None;
    }
    let self_ns = &mut scratch.self_ns;
    self_ns.clear();
    self_ns.extend(built.iter().map(|b| b.end.saturating_sub(b.start)));
    for b in built {
        if let Some(p) = b.parent {
            let p = &mut self_ns[p as usize];
            *p = p.saturating_sub(b.end.saturating_sub(b.start));
        }
    }
    let mut max_depth = 0;
    for (i, (b, &s)) in built.iter().zip(self_ns.iter()).enumerate() {
        if let Some(ahead) = built.get(i + AHEAD) {
            prefetch_rec(&recs, ahead.rec);
        }
        let r = &recs[b.rec as usize];
        max_depth = max_depth.max(b.depth);
        out.push(Row {
            ts: b.start,
            dur: b.end.saturating_sub(b.start),
            name: r.name,
            cat: r.cat,
            depth: b.depth,
            parent: b.parent.map(|p| SliceId::new(lane_base + p)),
            self_ns: s,
            flags: b.flags,
            tts: r.tts,
            tdur: b.tdur,
            args: r.args(recs.wide),
            end_args: b.end_args,
            cname: r.cname(recs.wide),
            offset: b.offset,
        });
    }
    Some(SliceTrack {
        thread,
        lane,
        rows: (lane_base, lane_base + built.len() as u32),
        max_depth,
    })
}

/// The buffers of one thread's slice step, handed on to the next thread: at 10 GB
/// a thread's run to hundreds of MB, and memory the process has not used yet
/// costs about as much to fault in as to fill (freed blocks that large go back to
/// the system, so each thread used to fault its own in again).
#[derive(Default)]
pub(super) struct Scratch {
    /// The records other than `X`, by time.
    keyed: Vec<(i64, u32)>,
    /// Per `X` record, last first: the smallest start from it on.
    from_here: Vec<i64>,
    /// The stack lane's open slices, and its improper overlaps.
    stack: Vec<Open>,
    overlaps: Vec<Overlap>,
    /// The `X` keys of a run.
    x_keys: Vec<XKey>,
    /// The radix sort's other buffer for `x_keys`.
    x_spare: Vec<XKey>,
    /// The slices the matcher closed.
    matched: Vec<Built>,
    built: Vec<Built>,
    self_ns: Vec<i64>,
}

impl Scratch {
    /// Keeps the larger of `v` and the buffer held, emptied.
    fn keep(&mut self, mut v: Vec<Built>) {
        if v.capacity() > self.built.capacity() {
            v.clear();
            self.built = v;
        }
    }
}

/// Writes one thread's rows from its records (in file order) from row `base` on;
/// returns its tracks.
///
/// The rows of the stack lane are written as they come in tree order, placed in
/// the tree on the way (as [`nest`] places a list): no list of the lane's slices
/// is made. An `X` needs no matching: its slice is made straight from its record,
/// and only the other records go through the [`Matcher`] in time order (their
/// slices are sorted on their own, then merged in). The `X` records are cut into
/// runs where every start before a cut is below every start after it: a thread
/// whose tasks are written one after the other (each task's slices children
/// first, as Chrome writes `X`) has one run per task, sorted in cache while its
/// records are there, and read sequentially. Sorting every `X` key of a thread
/// at once and reading the records in that order missed the caches on every
/// record once a thread's records outgrew them (at 10 GB the radix sort's
/// scatter alone took 1.2 s).
pub(super) fn thread_rows(
    thread: ThreadId,
    recs: DurSlice<'_>,
    thread_end: i64,
    out: &mut RowsMut<'_>,
    base: u32,
    diags: &mut Diagnostics,
    scratch: &mut Scratch,
) -> Vec<SliceTrack> {
    // Backwards: the smallest `X` start from each `X` on (the runs' cuts), and
    // the other records by time for the matcher.
    let (keyed, from_here) = (&mut scratch.keyed, &mut scratch.from_here);
    keyed.clear();
    from_here.clear();
    let mut min = i64::MAX;
    for (i, r) in recs.iter().enumerate().rev() {
        if r.kind() == DurKind::X {
            min = min.min(r.ts);
            from_here.push(min);
        } else {
            keyed.push((r.ts, i as u32));
        }
    }
    keyed.sort_unstable();
    let mut m = Matcher {
        done: std::mem::take(&mut scratch.matched),
        ..Matcher::default()
    };
    for &(_, i) in keyed.iter() {
        m.feed(i as usize, recs);
    }
    let (mut matched, mut ui_done) = m.close(thread_end, diags);
    matched.sort_unstable_by(tree_order);
    ui_done.sort_unstable_by(tree_order);
    let mut lane = StackRows::new(
        out,
        base,
        std::mem::take(&mut scratch.stack),
        std::mem::take(&mut scratch.overlaps),
    );
    let mut next = 0;
    let mut sorted = SortCheck::default();
    let run = &mut scratch.x_keys;
    run.clear();
    // The latest start before the run, and the `X` records still to come.
    let mut before = i64::MIN;
    let mut x_left = from_here.len();
    for (i, r) in recs.iter().enumerate() {
        if r.kind() != DurKind::X {
            sorted.note(r, recs.wide);
            continue;
        }
        x_left -= 1;
        let min_after = from_here[x_left];
        if before < min_after && !run.is_empty() {
            // Every start so far is below every start to come: the run is done.
            next = lane.push_run(run, &mut scratch.x_spare, &matched, next, recs, diags);
            run.clear();
        }
        before = before.max(r.ts);
        run.push(XKey {
            start: r.ts,
            end: match r.dur(recs.wide) {
                Some(d) => r.ts.saturating_add(d.get()),
                None => thread_end.max(r.ts),
            },
            rec: i as u32,
        });
    }
    next = lane.push_run(run, &mut scratch.x_spare, &matched, next, recs, diags);
    for b in &matched[next..] {
        lane.push(b, recs, diags);
    }
    sorted.report(thread, diags);
    matched.clear();
    scratch.matched = matched;
    let (mut tracks, stack, overlaps) = lane.finish(thread);
    (scratch.stack, scratch.overlaps) = (stack, overlaps);
    nest(&mut ui_done);
    let ui_base = base + out.len() as u32;
    tracks.extend(emit_lane(
        out,
        ui_base,
        thread,
        Lane::UiNest,
        &ui_done,
        recs,
        scratch,
    ));
    scratch.keep(ui_done);
    tracks
}

/// A slice still open in the stack lane's tree: its row (in the range), its
/// time, its self time so far.
#[derive(Clone, Copy, Debug)]
pub(super) struct Open {
    row: u32,
    start: i64,
    end: i64,
    self_ns: i64,
}

/// An improper overlap of the stack lane, placed once the lane is written: its
/// row (in the range), its time, the rows of the stack it started in.
#[derive(Clone, Copy, Debug)]
pub(super) struct Overlap {
    row: u32,
    start: i64,
    end: i64,
    stack_rows: u32,
}

/// The stack lane's rows, written in tree order as [`nest`] places them: the
/// stack of open slices gives each row its depth and parent, a parent's self
/// time is written when it leaves the stack, and the improper overlaps are
/// placed at the end ([`StackRows::finish`]), from the rows written.
struct StackRows<'o, 'a> {
    out: &'o mut RowsMut<'a>,
    /// Row id of the lane's first row, and its index in the range.
    base: u32,
    first: usize,
    stack: Vec<Open>,
    overlaps: Vec<Overlap>,
    max_depth: u32,
}

impl<'o, 'a> StackRows<'o, 'a> {
    fn new(
        out: &'o mut RowsMut<'a>,
        base: u32,
        mut stack: Vec<Open>,
        mut overlaps: Vec<Overlap>,
    ) -> StackRows<'o, 'a> {
        stack.clear();
        overlaps.clear();
        let first = out.len();
        StackRows {
            base: base + first as u32,
            first,
            out,
            stack,
            overlaps,
            max_depth: 0,
        }
    }

    /// Sorts a run of `X` keys and writes their slices, merged with the matched
    /// ones from `matched[next..]` (in tree order); returns the next matched one.
    fn push_run(
        &mut self,
        run: &mut Vec<XKey>,
        spare: &mut Vec<XKey>,
        matched: &[Built],
        mut next: usize,
        recs: DurSlice<'_>,
        diags: &mut Diagnostics,
    ) -> usize {
        sort_x_keys(run, spare, recs);
        for (i, k) in run.iter().enumerate() {
            if let Some(ahead) = run.get(i + AHEAD) {
                prefetch_rec(&recs, ahead.rec);
            }
            let r = &recs[k.rec as usize];
            let x = Built {
                start: r.ts,
                end: k.end,
                offset: r.offset(recs.wide),
                rec: k.rec,
                end_args: TextRef::NONE,
                tdur: r.tdur(recs.wide),
                flags: if r.dur(recs.wide).is_none() {
                    slice_flags::DID_NOT_FINISH
                } else {
                    0
                },
                depth: 0,
                parent: None,
            };
            while next < matched.len() && tree_order(&matched[next], &x).is_lt() {
                self.push(&matched[next], recs, diags);
                next += 1;
            }
            self.push(&x, recs, diags);
        }
        next
    }

    /// Writes the next slice in tree order (placed as [`nest`] places it).
    fn push(&mut self, b: &Built, recs: DurSlice<'_>, diags: &mut Diagnostics) {
        while let Some(top) = self.stack.last() {
            if starts_inside_open(b, top) {
                break;
            }
            self.out.set_self_ns(top.row as usize, top.self_ns);
            self.stack.pop();
        }
        let row = self.out.len() as u32;
        let dur = b.end.saturating_sub(b.start);
        let mut flags = b.flags;
        let (depth, parent) = match self.stack.last_mut() {
            Some(top) if b.end > top.end => {
                // Starts inside `top`, ends outside it: an improper overlap, on an
                // extra row placed at the end.
                flags |= slice_flags::OVERLAP;
                diags.add_excerpt(DiagKind::Overlap, b.offset, String::new);
                self.overlaps.push(Overlap {
                    row,
                    start: b.start,
                    end: b.end,
                    stack_rows: self.stack.len() as u32,
                });
                (0, None)
            }
            top => {
                let parent = top.map(|t| {
                    t.self_ns = t.self_ns.saturating_sub(dur);
                    SliceId::new(self.base + (t.row - self.first as u32))
                });
                let depth = self.stack.len() as u32;
                self.max_depth = self.max_depth.max(depth);
                self.stack.push(Open {
                    row,
                    start: b.start,
                    end: b.end,
                    self_ns: dur,
                });
                (depth, parent)
            }
        };
        let r = &recs[b.rec as usize];
        self.out.push(Row {
            ts: b.start,
            dur,
            name: r.name,
            cat: r.cat,
            depth,
            parent,
            // A row on the stack gets its self time when it leaves the stack
            // (`RowsMut::set_self_ns`); an extra row has no children.
            self_ns: if flags & slice_flags::OVERLAP != 0 {
                dur
            } else {
                0
            },
            flags,
            tts: r.tts,
            tdur: b.tdur,
            args: r.args(recs.wide),
            end_args: b.end_args,
            cname: r.cname(recs.wide),
            offset: b.offset,
        });
    }

    /// Writes the self time of the slices still open and places the improper
    /// overlaps: each one row deeper than every row in use during its span (the
    /// stack it started in, the rows starting inside its span, earlier extra
    /// rows), as [`nest`] does. Returns the lane's track (none if it has no rows)
    /// and its buffers, for the next thread.
    fn finish(mut self, thread: ThreadId) -> (Vec<SliceTrack>, Vec<Open>, Vec<Overlap>) {
        for top in self.stack.drain(..).rev() {
            self.out.set_self_ns(top.row as usize, top.self_ns);
        }
        let end = self.out.len();
        // Earlier extra rows still open: (end, depth).
        let mut placed: Vec<(i64, u32)> = Vec::new();
        for o in &self.overlaps {
            placed.retain(|&(e, _)| e > o.start);
            let mut depth = o.stack_rows;
            for later in o.row as usize + 1..end {
                let (start, flags, d) = self.out.written(later);
                if start >= o.end {
                    break;
                }
                if flags & slice_flags::OVERLAP == 0 {
                    depth = depth.max(d + 1);
                }
            }
            for &(_, d) in &placed {
                depth = depth.max(d + 1);
            }
            self.out.set_depth(o.row as usize, depth);
            self.max_depth = self.max_depth.max(depth);
            placed.push((o.end, depth));
        }
        let mut tracks = Vec::new();
        let rows = (end - self.first) as u32;
        if rows > 0 {
            tracks.push(SliceTrack {
                thread,
                lane: Lane::Stack,
                rows: (self.base, self.base + rows),
                max_depth: self.max_depth,
            });
        }
        (tracks, self.stack, self.overlaps)
    }
}

/// [`starts_inside`] of an open slice.
fn starts_inside_open(c: &Built, p: &Open) -> bool {
    c.start < p.end || (p.start == p.end && c.start == p.start)
}

/// How many slices ahead a walk in tree order asks for its records: in a thread
/// written children first (as Chrome writes `X`), the tree order jumps about the
/// file order, and each record read was a cache miss.
const AHEAD: usize = 12;

/// Asks the processor to start loading record `rec` (both of its cache lines).
#[inline(always)]
fn prefetch_rec(recs: &[DurRec], rec: u32) {
    if let Some(r) = recs.get(rec as usize) {
        let p = (r as *const DurRec).cast::<u8>();
        crate::prefetch(p);
        crate::prefetch(p.wrapping_add(std::mem::size_of::<DurRec>() - 1));
    }
}

/// The order of `tree_order`, on the keys: start, longer first, file order.
fn x_order(a: &XKey, b: &XKey, recs: DurSlice<'_>) -> std::cmp::Ordering {
    a.start.cmp(&b.start).then(b.end.cmp(&a.end)).then_with(|| {
        let (ra, rb) = (&recs[a.rec as usize], &recs[b.rec as usize]);
        (ra.offset(recs.wide), a.rec).cmp(&(rb.offset(recs.wide), b.rec))
    })
}

/// Bits of the start a pass of [`sort_x_keys`] sorts on.
const DIGIT: u32 = 11;

/// Sorts `keys` in [`x_order`]: a least-significant-digit radix sort on the start
/// (above its smallest value, `DIGIT` bits a pass, as many passes as the span of
/// starts needs: 4 for a trace of seconds in ns), which keeps the keys of equal
/// starts in the order they came, then each run of equal starts (rare) sorted by
/// the rest of the order. A comparison sort of a thread's keys was ~8% of the CPU
/// after the read at 1 GB. Few keys, or starts spread over more than 44 bits, go
/// to the comparison sort. `spare` is the other buffer of the passes.
pub(super) fn sort_x_keys(keys: &mut Vec<XKey>, spare: &mut Vec<XKey>, recs: DurSlice<'_>) {
    const MOST_PASSES: u32 = 4;
    let (Some(min), Some(max)) = (
        keys.iter().map(|k| k.start).min(),
        keys.iter().map(|k| k.start).max(),
    ) else {
        return;
    };
    // The span as u64: `max - min` may not fit an i64.
    let span = (max as u64).wrapping_sub(min as u64);
    let passes = (64 - span.leading_zeros()).div_ceil(DIGIT);
    if keys.len() < 256 || passes > MOST_PASSES {
        keys.sort_unstable_by(|a, b| x_order(a, b, recs));
        return;
    }
    let digit = |k: &XKey, pass: u32| {
        ((k.start as u64).wrapping_sub(min as u64) >> (pass * DIGIT)) as usize & ((1 << DIGIT) - 1)
    };
    let mut counts = vec![[0usize; 1 << DIGIT]; passes as usize];
    for k in keys.iter() {
        for (pass, c) in counts.iter_mut().enumerate() {
            c[digit(k, pass as u32)] += 1;
        }
    }
    spare.clear();
    spare.resize(
        keys.len(),
        XKey {
            start: 0,
            end: 0,
            rec: 0,
        },
    );
    for (pass, c) in counts.iter_mut().enumerate() {
        // Starts of each digit's run, then the keys moved there in order.
        let mut at = 0;
        for n in c.iter_mut() {
            let here = *n;
            *n = at;
            at += here;
        }
        for k in keys.iter() {
            let d = digit(k, pass as u32);
            spare[c[d]] = *k;
            c[d] += 1;
        }
        std::mem::swap(keys, spare);
    }
    // Equal starts: by the rest of the order.
    let mut i = 0;
    while i < keys.len() {
        let start = keys[i].start;
        let mut j = i + 1;
        while j < keys.len() && keys[j].start == start {
            j += 1;
        }
        if j - i > 1 {
            keys[i..j].sort_unstable_by(|a, b| x_order(a, b, recs));
        }
        i = j;
    }
}

/// The sort key of an `X` slice: its start, its end, its record.
#[derive(Clone, Copy, Debug)]
pub(super) struct XKey {
    start: i64,
    end: i64,
    rec: u32,
}

/// Where a thread's `B`/`E` records first go back in time (the reading rules want
/// them in time order; out-of-band `ui-nest` events and `X`, written when they
/// complete, may come in any order). Fed the records in file order.
#[derive(Clone, Copy, Debug)]
pub(super) struct SortCheck {
    last: i64,
    unsorted_at: Option<u64>,
}

impl Default for SortCheck {
    fn default() -> Self {
        SortCheck {
            last: i64::MIN,
            unsorted_at: None,
        }
    }
}

impl SortCheck {
    /// Takes the next record in file order (`wide`: its side table).
    #[inline]
    pub fn note(&mut self, r: &DurRec, wide: &[DurWide]) {
        if matches!(r.kind(), DurKind::B | DurKind::E) {
            if r.ts < self.last && self.unsorted_at.is_none() {
                self.unsorted_at = Some(r.offset(wide));
            }
            self.last = self.last.max(r.ts);
        }
    }

    pub fn report(&self, thread: ThreadId, diags: &mut Diagnostics) {
        if let Some(off) = self.unsorted_at {
            diags.add_excerpt(DiagKind::UnsortedThread, off, || {
                format!("thread {thread}: ")
            });
        }
    }
}

/// The indexes of `recs[from..]` in time order (file order among equal times).
/// Sorting (ts, index) pairs keeps the sort in cache.
pub(super) fn time_order(recs: &[DurRec], from: usize) -> Vec<u32> {
    let mut keyed = Vec::new();
    sort_by_time(recs, from, &mut keyed);
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// [`time_order`] as (ts, index) pairs, into `keyed`.
fn sort_by_time(recs: &[DurRec], from: usize, keyed: &mut Vec<(i64, u32)>) {
    keyed.clear();
    keyed.extend((from..recs.len()).map(|i| (recs[i].ts, i as u32)));
    keyed.sort_unstable();
}

/// `B`/`E` matching over one thread's records fed in time order. It is a fold:
/// a followed file's thread whose appended records all come after the ones fed
/// goes on from where it stopped.
#[derive(Clone, Debug, Default)]
pub(super) struct Matcher {
    stack: Vec<Built>,
    ui_open: Vec<Built>,
    /// Closed slices (and `X`), in the order they closed.
    done: Vec<Built>,
    ui_done: Vec<Built>,
    /// What the matching found wrong so far.
    pub diags: Diagnostics,
}

fn open(i: usize, recs: DurSlice<'_>) -> Built {
    let r = &recs[i];
    Built {
        start: r.ts,
        end: NO_TIME,
        offset: r.offset(recs.wide),
        rec: i as u32,
        end_args: TextRef::NONE,
        tdur: r.tdur(recs.wide),
        flags: slice_flags::BEGIN_END,
        depth: 0,
        parent: None,
    }
}

fn close(mut b: Built, e: &DurRec, recs: DurSlice<'_>) -> Built {
    b.end = e.ts.max(b.start);
    b.end_args = e.args(recs.wide);
    if let (Some(bt), Some(et)) = (recs[b.rec as usize].tts, e.tts) {
        b.tdur = Some(Ns::new(et.get().saturating_sub(bt.get())));
    }
    b
}

impl Matcher {
    /// Takes record `i` of `recs`, the next in time order.
    pub fn feed(&mut self, i: usize, recs: DurSlice<'_>) {
        let r = &recs[i];
        let diags = &mut self.diags;
        match r.kind() {
            DurKind::X => {
                let mut b = open(i, recs);
                b.flags = 0;
                match r.dur(recs.wide) {
                    None => b.flags |= slice_flags::DID_NOT_FINISH,
                    Some(d) => b.end = r.ts.saturating_add(d.get()),
                }
                self.done.push(b);
            }
            DurKind::B => self.stack.push(open(i, recs)),
            DurKind::UiB => self.ui_open.push(open(i, recs)),
            DurKind::E | DurKind::UiE => {
                let name = r.name;
                let ui_match = (!name.is_none())
                    .then(|| {
                        self.ui_open
                            .iter()
                            .rposition(|b| recs[b.rec as usize].name == name)
                    })
                    .flatten();
                if r.kind() == DurKind::UiE {
                    if let Some(k) = ui_match {
                        let b = self.ui_open.remove(k);
                        self.ui_done.push(close(b, r, recs));
                        return;
                    }
                }
                let Some(top) = self.stack.last() else {
                    if let Some(k) = ui_match {
                        let b = self.ui_open.remove(k);
                        self.ui_done.push(close(b, r, recs));
                    } else {
                        diags.add_excerpt(DiagKind::UnmatchedEnd, r.offset(recs.wide), String::new);
                    }
                    return;
                };
                let target = if name.is_none() || recs[top.rec as usize].name == name {
                    Some(self.stack.len() - 1)
                } else if let Some(k) = self
                    .stack
                    .iter()
                    .rposition(|b| recs[b.rec as usize].name == name)
                {
                    diags.add_excerpt(DiagKind::MisplacedEnd, r.offset(recs.wide), String::new);
                    Some(k)
                } else if let Some(k) = ui_match {
                    let b = self.ui_open.remove(k);
                    self.ui_done.push(close(b, r, recs));
                    None
                } else {
                    diags.add_excerpt(DiagKind::EndNameMismatch, r.offset(recs.wide), String::new);
                    Some(self.stack.len() - 1)
                };
                if let Some(k) = target {
                    // The slice closed by name, then the ones above it, ending with it.
                    let mut closed = self.stack.split_off(k).into_iter();
                    if let Some(b) = closed.next() {
                        self.done.push(close(b, r, recs));
                    }
                    for mut b in closed {
                        b.end = r.ts.max(b.start);
                        self.done.push(b);
                    }
                }
            }
        }
    }

    /// The thread's slices once every record so far is in: the open ones did not
    /// finish and end at the thread's last end. Adds the matching's diagnostics
    /// and the overlaps to `diags`.
    pub(super) fn finish(
        self,
        thread: ThreadId,
        thread_end: i64,
        diags: &mut Diagnostics,
    ) -> ThreadSlices {
        let (mut done, mut ui_done) = self.close(thread_end, diags);
        done.sort_unstable_by(tree_order);
        ui_done.sort_unstable_by(tree_order);
        place(thread, done, ui_done, diags)
    }

    /// The slices of the stack and of the `ui-nest` lane, in no particular order,
    /// the open ones closed at `thread_end` (they did not finish); adds the
    /// matching's diagnostics to `diags`.
    fn close(self, thread_end: i64, diags: &mut Diagnostics) -> (Vec<Built>, Vec<Built>) {
        let Matcher {
            stack,
            ui_open,
            mut done,
            mut ui_done,
            diags: found,
        } = self;
        diags.merge(found);
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
        (done, ui_done)
    }

    /// Takes the slices closed since the last call, in tree order (a followed
    /// file's thread keeps them, see [`Matcher::finish_live`]). An `X` without a
    /// duration stays: its end is the thread's, still to come.
    pub(super) fn take_closed(&mut self) -> Vec<Built> {
        let (mut closed, unfinished): (Vec<Built>, Vec<Built>) = std::mem::take(&mut self.done)
            .into_iter()
            .partition(|b| b.flags & slice_flags::DID_NOT_FINISH == 0);
        self.done = unfinished;
        closed.sort_unstable_by(tree_order);
        closed
    }

    /// [`Matcher::finish`] of a thread whose closed slices were taken out into
    /// `closed` (in tree order): only the open ones are sorted, then merged in, so
    /// the tree placement finds its input sorted.
    pub(super) fn finish_live(
        &self,
        closed: &[Built],
        thread: ThreadId,
        thread_end: i64,
        diags: &mut Diagnostics,
    ) -> ThreadSlices {
        let mut open: Vec<Built> = self.stack.iter().chain(&self.done).cloned().collect();
        for b in &mut open {
            b.flags |= slice_flags::DID_NOT_FINISH;
            b.end = thread_end.max(b.start);
        }
        open.sort_unstable_by(tree_order);
        let m = Matcher {
            stack: Vec::new(),
            ui_open: self.ui_open.clone(),
            done: merge(closed, open),
            ui_done: self.ui_done.clone(),
            diags: self.diags.clone(),
        };
        m.finish(thread, thread_end, diags)
    }
}

/// The order of slices in a lane: start, longer first, file order (`rec` is
/// unique, so the order is total).
fn tree_order(a: &Built, b: &Built) -> std::cmp::Ordering {
    a.start
        .cmp(&b.start)
        .then(b.end.cmp(&a.end))
        .then(a.offset.cmp(&b.offset))
        .then(a.rec.cmp(&b.rec))
}

/// Two lists in tree order merged into one.
pub(super) fn merge(a: &[Built], b: Vec<Built>) -> Vec<Built> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let mut a = a.iter().peekable();
    for y in b {
        while let Some(x) = a.next_if(|x| tree_order(x, &y).is_lt()) {
            out.push(x.clone());
        }
        out.push(y);
    }
    out.extend(a.cloned());
    out
}

/// Whether `c` starts inside `p`: before `p` ends, or with a zero-length `p` at the
/// same time.
fn starts_inside(c: &Built, p: &Built) -> bool {
    c.start < p.end || (p.start == p.end && c.start == p.start)
}

/// A thread's lanes from their slices in tree order: placed in the tree, each
/// improper overlap counted in `diags`.
fn place(
    thread: ThreadId,
    mut done: Vec<Built>,
    mut ui_done: Vec<Built>,
    diags: &mut Diagnostics,
) -> ThreadSlices {
    if nest(&mut done) > 0 {
        // One occurrence per slice moved to an extra row, at the event that made it.
        for b in done.iter().filter(|b| b.flags & slice_flags::OVERLAP != 0) {
            diags.add_excerpt(DiagKind::Overlap, b.offset, String::new);
        }
    }
    nest(&mut ui_done);
    ThreadSlices {
        thread,
        lanes: vec![(Lane::Stack, done), (Lane::UiNest, ui_done)],
    }
}

/// Places slices, in tree order (start, longer first, file order; the order is
/// total, so an unstable sort gives the one result), in a tree by containment:
/// depth, parent; improper overlaps go to extra rows one deeper than the deepest
/// row in use during their span. Returns the number of overlapping slices.
fn nest(slices: &mut [Built]) -> u64 {
    debug_assert!(slices.is_sorted_by(|a, b| tree_order(a, b).is_le()));
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
                slices[i].parent = top.map(|&t| t as u32);
                stack.push(i);
            }
        }
    }
    // Extra rows: one deeper than every row in use during the overlap's span: the
    // stack it started in, slices starting inside its span, earlier extra rows.
    let mut placed: Vec<usize> = Vec::new();
    for &(i, stack_rows) in &overlaps {
        let (s, e) = (slices[i].start, slices[i].end);
        // Overlaps come in start order, so an extra row that ended by this one's
        // start ends before every later one's too: only those still open are
        // compared (all of them made this quadratic: 71 k overlaps at 10 GB).
        placed.retain(|&k| slices[k].end > s);
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
            // Open at `s` and started at or before it: it shares the span.
            depth = depth.max(slices[k].depth + 1);
        }
        slices[i].depth = depth;
        slices[i].parent = None;
        placed.push(i);
    }
    overlaps.len() as u64
}

#[cfg(test)]
mod tests {
    use super::super::records::DurFields;
    use super::*;
    use crate::strings::StrId;

    /// A thread's records from a seed: every kind, names that match and that do
    /// not, times with many ties (equal starts and ends), `X` without a duration,
    /// in file order but not in time order.
    fn records(seed: u64, n: usize) -> Vec<DurFields> {
        let mut state = seed;
        let mut next = move |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        (0..n)
            .map(|i| {
                let kind = match next(10) {
                    0..=4 => DurKind::X,
                    5 | 6 => DurKind::B,
                    7 | 8 => DurKind::E,
                    _ if next(2) == 0 => DurKind::UiB,
                    _ => DurKind::UiE,
                };
                DurFields {
                    offset: 10 * i as u64,
                    ts: next(40) as i64,
                    dur: (next(8) != 0).then(|| Ns::new(next(12) as i64)),
                    tts: (next(2) == 0).then(|| Ns::new(next(50) as i64)),
                    tdur: (next(3) == 0).then(|| Ns::new(next(5) as i64)),
                    thread: ThreadId::at(0),
                    name: StrId(next(4) as u32),
                    cat: StrId(1),
                    kind,
                    args: TextRef::NONE,
                    cname: StrId::NONE,
                }
            })
            .collect()
    }

    /// Nesting gives every slice the depth, parent and overlap flag of the plain
    /// algorithm that compares each overlap with every earlier one (the extra rows
    /// of overlaps no longer open are skipped): random slices with many overlaps,
    /// zero-length ones, equal starts and nested overlaps.
    #[test]
    fn nest_places_overlaps_as_comparing_all_of_them() {
        fn plain(slices: &mut [Built]) -> u64 {
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
                        slices[i].flags |= slice_flags::OVERLAP;
                        overlaps.push((i, stack.len() as u32));
                    }
                    top => {
                        slices[i].depth = stack.len() as u32;
                        slices[i].parent = top.map(|&t| t as u32);
                        stack.push(i);
                    }
                }
            }
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
                slices[i].parent = None;
                placed.push(i);
            }
            overlaps.len() as u64
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut overlapping = 0;
        for round in 0..300 {
            let n = 1 + next(200) as usize;
            let span = 1 + next(if round % 2 == 0 { 50 } else { 2000 }) as i64;
            let mut slices: Vec<Built> = (0..n)
                .map(|i| {
                    let start = next(span as u64) as i64;
                    let len = if next(6) == 0 {
                        0
                    } else {
                        next(span as u64 / 2 + 1) as i64
                    };
                    Built {
                        start,
                        end: start + len,
                        offset: i as u64,
                        rec: i as u32,
                        end_args: TextRef::NONE,
                        tdur: None,
                        flags: 0,
                        depth: 0,
                        parent: None,
                    }
                })
                .collect();
            slices.sort_unstable_by(tree_order);
            let mut want = slices.clone();
            let got_n = nest(&mut slices);
            assert_eq!(got_n, plain(&mut want), "round {round}");
            overlapping += got_n;
            let cells = |v: &[Built]| -> Vec<(u32, Option<u32>, u8)> {
                v.iter().map(|b| (b.depth, b.parent, b.flags)).collect()
            };
            assert_eq!(cells(&slices), cells(&want), "round {round}");
        }
        assert!(
            overlapping > 1000,
            "the rounds make many overlaps: {overlapping}"
        );
    }

    /// The radix sort of the `X` keys gives the comparison sort's order: starts
    /// over spans of 0 to 63 bits, ties on the start and on the end, offsets not
    /// in file order, below and above the size the radix sort starts at.
    #[test]
    fn x_keys_radix_sorted_as_compared() {
        let mut state = 7u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 11
        };
        let mut spare = Vec::new();
        for round in 0..200u64 {
            let n = [1, 5, 255, 256, 257, 1000, 5000][round as usize % 7];
            let bits = (round * 7) % 64;
            let span = if bits == 0 { 1 } else { 1u64 << bits };
            let base = [0i64, -5_000, i64::MIN / 2, 1 << 40][round as usize % 4];
            // Offsets of 1 TiB and more make wide records.
            let wide_from = if round % 4 == 1 { 1 << 40 } else { 0 };
            let list: DurRecs = (0..n)
                .map(|i| {
                    let mut r = records(round, 1)[0];
                    r.offset = wide_from
                        + if round % 3 == 0 {
                            10_000 - i as u64
                        } else {
                            i as u64
                        };
                    r
                })
                .collect();
            let recs = list.view();
            let keys: Vec<XKey> = (0..n as u32)
                .map(|rec| {
                    let start = base.wrapping_add((next() % span.max(1)) as i64);
                    let start = if round % 5 == 0 && rec % 3 == 0 {
                        base
                    } else {
                        start
                    };
                    XKey {
                        start,
                        end: start.saturating_add((next() % 4) as i64),
                        rec,
                    }
                })
                .collect();
            let mut want = keys.clone();
            want.sort_unstable_by(|a, b| x_order(a, b, recs));
            let mut got = keys.clone();
            sort_x_keys(&mut got, &mut spare, recs);
            let key = |k: &XKey| (k.start, k.end, k.rec);
            assert_eq!(
                got.iter().map(key).collect::<Vec<_>>(),
                want.iter().map(key).collect::<Vec<_>>(),
                "round {round}"
            );
        }
    }

    /// A gathered record's offset, thread and cname.
    type Seen = (u64, u32, StrId);
    /// A gathered thread: its id, rows, records.
    type Gathered = (u32, usize, Vec<Seen>);

    /// The gather gives each thread its records in file order, with the new thread
    /// ids and their wide fields, whether the parts are cut into pieces per thread
    /// (in parallel) or there are too many parts and threads for that (serial).
    #[test]
    fn gather_in_parallel_equals_serial() {
        let threads = 5;
        let fields: Vec<Vec<DurFields>> = (0..7u64)
            .map(|p| {
                let mut recs = records(p, (p as usize * 13) % 40);
                for (i, r) in recs.iter_mut().enumerate() {
                    r.thread = ThreadId::at((i * 7 + p as usize) % threads);
                    r.offset = p * 1000 + i as u64;
                    // Every third record wide.
                    r.cname = StrId(u32::from(i % 3 == 0) * (100 + i as u32));
                }
                recs
            })
            .collect();
        let parts: Vec<DurRecs> = fields.iter().map(|f| f.iter().copied().collect()).collect();
        assert!(parts.iter().filter(|p| !p.wide.is_empty()).count() > 3);
        // Threads renumbered backwards.
        let tmap: Vec<Option<ThreadId>> = (0..threads)
            .map(|t| Some(ThreadId::at(threads - 1 - t)))
            .collect();
        let summary = |(g, wide): (Vec<ThreadDurs>, Vec<DurWide>)| {
            g.into_iter()
                .map(|(t, opened, recs)| {
                    let recs = recs
                        .iter()
                        .map(|r| (r.offset(&wide), r.thread.index() as u32, r.cname(&wide)))
                        .collect();
                    (t.index() as u32, opened, recs)
                })
                .collect::<Vec<Gathered>>()
        };
        let tabled = DurCounts::of(&parts, threads);
        assert_eq!(tabled.per_part.len(), parts.len());
        let parallel = summary(gather(parts.clone(), &tabled, &tmap));
        // Wider than the part-by-thread table allows: counted and gathered serially.
        let wide = DurCounts::of(&parts, MOST_PART_THREADS);
        assert!(wide.per_part.is_empty());
        assert_eq!(wide.totals, tabled.totals);
        let serial = summary(gather(parts.clone(), &wide, &tmap));
        assert_eq!(parallel, serial);
        // Each thread's records in file order, set to its new id, new ids in order.
        let mut want: Vec<(u32, Vec<Seen>)> = Vec::new();
        for new in 0..threads {
            let old = threads - 1 - new;
            let recs: Vec<Seen> = fields
                .iter()
                .flatten()
                .filter(|r| r.thread.index() == old)
                .map(|r| (r.offset, new as u32, r.cname))
                .collect();
            if !recs.is_empty() {
                want.push((new as u32, recs));
            }
        }
        let got: Vec<(u32, Vec<Seen>)> = parallel.into_iter().map(|(t, _, r)| (t, r)).collect();
        assert_eq!(got, want);
    }

    fn diag_list(d: &Diagnostics) -> String {
        format!("{:?} {:?}", d.sorted(), d.occurrences())
    }

    /// A thread's records written as tracers write them: tasks one after the
    /// other, each a tree of `X` written children first, with children that tie
    /// with their parent's start or end, overlap it or end outside it, `X`
    /// without a duration, a late `X` now and then that starts before earlier
    /// ones (a run over several tasks), tasks that overlap the one before, `B`/`E`
    /// pairs (some mismatched) and `ui-nest` ones inside the tasks.
    fn tasks(seed: u64, n: usize) -> Vec<DurFields> {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m.max(1)
        };
        let mut out: Vec<DurFields> = Vec::new();
        let rec = |kind: DurKind,
                   ts: i64,
                   dur: Option<i64>,
                   name: u32,
                   next: &mut dyn FnMut(u64) -> u64| DurFields {
            offset: 0,
            ts,
            dur: dur.map(Ns::new),
            tts: (next(3) != 0).then(|| Ns::new(ts / 2 + 1)),
            tdur: (next(3) == 0).then(|| Ns::new(next(7) as i64)),
            thread: ThreadId::at(0),
            name: StrId(name),
            cat: StrId(1 + next(3) as u32),
            kind,
            args: TextRef {
                start: next(1000),
                len: next(3) as u32,
            },
            cname: StrId(next(2) as u32 * 9),
        };
        let mut clock = 0i64;
        while out.len() < n {
            let start = clock + next(4) as i64;
            let dur = 1 + next(80) as i64;
            // The tree, children first: (start, dur, depth) to visit, then written.
            let mut todo = vec![(start, dur, 0u32)];
            let mut tree = Vec::new();
            while let Some((s, d, depth)) = todo.pop() {
                tree.push((s, d));
                if depth < 4 && d > 3 {
                    for _ in 0..next(4) {
                        let cs = s + next(d as u64) as i64;
                        let cd = match next(8) {
                            0 => d,          // may end outside the parent
                            1 => 0,          // zero length
                            2 => s + d - cs, // ends with the parent
                            _ => next((s + d - cs) as u64 + 1) as i64,
                        };
                        todo.push((cs, cd, depth + 1));
                    }
                }
            }
            for &(s, d) in tree.iter().rev() {
                let dur = (next(12) != 0).then_some(d);
                let r = rec(DurKind::X, s, dur, 1 + next(4) as u32, &mut next);
                out.push(r);
            }
            if next(10) == 0 {
                // Late: starts before earlier records.
                let s = (start - next(200) as i64).max(0);
                let r = rec(DurKind::X, s, Some(next(300) as i64), 2, &mut next);
                out.push(r);
            }
            for _ in 0..next(3) {
                let at = start + next(dur as u64) as i64;
                let name = 1 + next(4) as u32;
                let (b, e) = if next(6) == 0 {
                    (DurKind::UiB, DurKind::UiE)
                } else {
                    (DurKind::B, DurKind::E)
                };
                let r = rec(b, at, None, name, &mut next);
                out.push(r);
                if next(8) != 0 {
                    let en = if next(6) == 0 {
                        1 + next(4) as u32
                    } else {
                        name
                    };
                    let r = rec(e, at + next(30) as i64, None, en, &mut next);
                    out.push(r);
                }
            }
            clock = if next(6) == 0 {
                start + dur / 2
            } else {
                start + dur
            };
        }
        let mut offset = 0;
        for r in &mut out {
            // Now and then two records at one offset (their order is then the file's).
            offset += next(4) * 10;
            r.offset = offset;
        }
        out
    }

    /// The times of `threads`' records, and whether any has a thread time.
    fn spans(threads: &[(Vec<DurFields>, i64)]) -> TimeSpans {
        let mut spans = TimeSpans::default();
        for f in threads.iter().flat_map(|t| &t.0) {
            spans.note(f.ts, f.tts, f.tts.is_some() || f.tdur.is_some());
        }
        spans
    }

    /// The table of `threads` (records, thread end) built by the slice step, and
    /// its diagnostics.
    fn table_of(threads: &[(Vec<DurFields>, i64)]) -> (SliceTable, String) {
        // One side table for every thread's wide records, as the gather makes it.
        let mut all = DurRecs::default();
        let work: Vec<ThreadDurs> = threads
            .iter()
            .enumerate()
            .map(|(t, (fields, _))| {
                let first = all.len();
                for f in fields {
                    all.push(DurFields {
                        thread: ThreadId::at(t),
                        ..*f
                    });
                }
                let recs = all.recs[first..].to_vec();
                (
                    ThreadId::at(t),
                    recs.iter().filter(|r| opens(r)).count(),
                    recs,
                )
            })
            .collect();
        let ends: Vec<i64> = threads.iter().map(|t| t.1).collect();
        let mut d = Diagnostics::new();
        let table = build(work, &all.wide, spans(threads), &ends, &mut d);
        (table, diag_list(&d))
    }

    /// The same table built the plain way: every record matched in time order,
    /// the slices sorted, placed by [`nest`], then written (as a followed file's
    /// thread still builds them).
    fn plain_table_of(threads: &[(Vec<DurFields>, i64)]) -> (SliceTable, String) {
        let work: Vec<(ThreadId, usize, (DurRecs, i64))> = threads
            .iter()
            .enumerate()
            .map(|(t, (fields, end))| {
                let recs: DurRecs = fields.iter().copied().collect();
                let opened = recs.recs.iter().filter(|r| opens(r)).count();
                (ThreadId::at(t), opened, (recs, *end))
            })
            .collect();
        let mut d = Diagnostics::new();
        let table = fill(
            work,
            spans(threads),
            &mut d,
            |thread, (recs, end), out, base, d, scratch| {
                let recs = recs.view();
                let mut check = SortCheck::default();
                recs.iter().for_each(|r| check.note(r, recs.wide));
                check.report(thread, d);
                let mut m = Matcher::default();
                for i in time_order(&recs, 0) {
                    m.feed(i as usize, recs);
                }
                let slices = m.finish(thread, end, d);
                emit(out, base, slices, recs, scratch)
            },
        );
        (table, diag_list(&d))
    }

    /// The rows written in tree order as they are placed (`X` runs sorted apart,
    /// the matched slices merged in) are those of the plain build: every column,
    /// the tracks, the sparse cells and the diagnostics, on random threads and on
    /// threads written task by task.
    #[test]
    fn rows_written_as_placed_equal_the_plain_build() {
        let mut overlaps = 0;
        for seed in 0..400u64 {
            let threads: Vec<(Vec<DurFields>, i64)> = (0..1 + seed % 3)
                .map(|t| {
                    let n = 1 + ((seed * 7 + t * 13) % 300) as usize;
                    let recs = if (seed + t) % 3 == 0 {
                        records(seed * 3 + t, n.min(120))
                    } else {
                        tasks(seed * 3 + t, n)
                    };
                    let last = recs.iter().map(|r| r.ts).max().unwrap_or(0);
                    (recs, last + (seed % 5) as i64)
                })
                .collect();
            let (got, got_d) = table_of(&threads);
            let (want, want_d) = plain_table_of(&threads);
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "seed {seed}");
            assert_eq!(got_d, want_d, "seed {seed}");
            overlaps += (0..got.len()).filter(|&i| got.overlap(i)).count();
        }
        assert!(
            overlaps > 1000,
            "the threads make many overlaps: {overlaps}"
        );
    }
}
