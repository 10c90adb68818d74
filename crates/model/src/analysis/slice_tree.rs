//! Call trees of thread slices: a slice's stack is its chain of parents, its
//! function is its name, and it weighs its own (self) time.
//!
//! Exact rules, for a selection `[t0, t1)` over some threads:
//! - a slice counts when it overlaps the range (as in the range statistics), for
//!   its part inside the range: total = the clipped duration, self = that minus the
//!   clipped durations of its children. Over the whole trace these are the model's
//!   `dur` and `self_ns`;
//! - a node's total is the sum over its slices, so it equals its self time plus its
//!   children's totals; recursion (a name under itself) makes separate nodes;
//! - a slice that did not finish lasts to its thread's last end (as drawn);
//! - a slice kept on an overlap row (it overlaps a sibling improperly) has no
//!   parent in the model: it is a root of its own, all of it self time, so a
//!   thread's roots may add up to more than the time the thread was busy;
//! - both lanes count (the call stack and `ui-nest` operations), each with its own
//!   roots; several threads merge into one tree (same names, same nodes).
//!
//! How: the selected slices of each track are laid out in pre-order (each slice's
//! subtree right after it), with where each subtree ends and each slice's parent.
//! A top-down tree is then built lazily, heaviest node first: a node is the set of
//! slices with its stack, and only the nodes answered are split into their
//! children. Bottom-up trees (and a sandwich's callers) are built level by level,
//! only under the nodes heavy enough to be answered (`levels`). A trace whose
//! stacks are all different (millions of nodes) costs the layout plus what the
//! answer needs, not a tree of every stack or inverted stack.

mod levels;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use levels::{Levels, Weigh};
use rustc_hash::FxHashMap;

use super::call_tree::{CallTree, Function, TreeNode, TreeView};
use super::sandwich::{FunctionStats, FunctionTable};
use super::slice_stats::select_rows;
use super::tree_builder::NONE;
use super::Selection;
use crate::query::search::Pattern;
use crate::strings::StrId;
use crate::tables::{slice_flags, SliceId, SliceTable};
use crate::trace::Trace;

/// A selected slice at its place in the pre-order, with what the trees read of
/// it: one cache line's worth, as the trees visit positions far apart.
#[derive(Clone, Copy, Debug)]
struct Pos {
    /// The position after its subtree.
    end: u32,
    /// Its parent's position, or `NONE`.
    parent: u32,
    name: StrId,
    /// No ancestor has the same name (the outermost call of a recursive name).
    outer: bool,
    /// Its part inside the range, and its own time there.
    clip: i64,
    own: i64,
}

/// The selected slices of every track in pre-order, indexed by position.
struct Stacks {
    pos: Vec<Pos>,
    /// Positions of the roots.
    roots: Vec<u32>,
}

impl Stacks {
    /// Lays out the selection; `outer` says whether the trees asked for need to
    /// know the outermost calls (bottom-up, functions, sandwich).
    fn build(trace: &Trace, sel: &Selection, outer: bool) -> Stacks {
        let s = &trace.tables.slices;
        let rows = select_rows(trace, sel);
        let tracks: Vec<(&[u32], std::ops::Range<usize>)> = s
            .tracks
            .iter()
            .map(|tr| rows.of_track(tr.rows.0 as usize, tr.rows.1 as usize))
            .filter(|(singles, run)| !singles.is_empty() || !run.is_empty())
            .collect();
        // One array for every track, each track writing its own part of it in
        // place (positions are global from the start: no copying afterwards).
        let n: usize = tracks.iter().map(|(a, r)| a.len() + r.len()).sum();
        let blank = Pos {
            end: 0,
            parent: NONE,
            name: StrId::NONE,
            outer: true,
            clip: 0,
            own: 0,
        };
        // Filled on every core: the first touch of fresh pages is much of the cost.
        let mut pos = Vec::with_capacity(n);
        pos.par_extend(rayon::iter::repeat_n(blank, n));
        let mut work = Vec::with_capacity(tracks.len());
        let mut rest: &mut [Pos] = &mut pos;
        let mut base = 0u32;
        for (singles, run) in tracks {
            let len = singles.len() + run.len();
            let (mine, after) = std::mem::take(&mut rest).split_at_mut(len);
            work.push((singles, run, mine, base));
            rest = after;
            base += len as u32;
        }
        let how = How {
            s,
            t0: sel.t0,
            t1: sel.t1,
            outer,
        };
        let roots: Vec<Vec<u32>> = work
            .into_par_iter()
            .map(|(singles, run, out, base)| {
                let rows = singles.iter().map(|&i| i as usize).chain(run);
                how.part(rows, out, base)
            })
            .collect();
        Stacks {
            pos,
            roots: roots.concat(),
        }
    }

    fn len(&self) -> usize {
        self.pos.len()
    }

    fn name(&self, k: u32) -> StrId {
        self.pos[k as usize].name
    }

    /// How many slices its subtree holds (itself included).
    fn size(&self, k: u32) -> u64 {
        (self.pos[k as usize].end - k) as u64
    }
}

fn clip(s: &SliceTable, i: usize, t0: i64, t1: i64) -> i64 {
    s.end(i).min(t1).saturating_sub(s.ts(i).max(t0)).max(0)
}

/// What a layout is of: the slices, the range, whether outermost calls matter.
struct How<'t> {
    s: &'t SliceTable,
    t0: i64,
    t1: i64,
    outer: bool,
}

impl How<'_> {
    fn crossing(&self, i: usize) -> bool {
        self.s.ts(i) < self.t0 || self.s.end(i) > self.t1
    }

    fn at(&self, i: usize, parent: u32, outer: bool) -> Pos {
        let s = self.s;
        let clip = clip(s, i, self.t0, self.t1);
        Pos {
            end: 0,
            parent,
            name: s.name[i],
            outer,
            clip,
            // A slice inside the range has its children inside too: the model's
            // self time; one crossing an end loses its children's parts as they come.
            own: if self.crossing(i) { clip } else { s.self_ns(i) },
        }
    }

    /// One track's selected rows (in row order, each after its parent) laid out
    /// in pre-order in `out`, its positions from `base`: proper rows by nesting,
    /// then the overlap rows (roots without children). Returns the roots.
    fn part(&self, rows: impl Iterator<Item = usize>, out: &mut [Pos], base: u32) -> Vec<u32> {
        let s = self.s;
        let mut roots = Vec::new();
        let mut overlaps: Vec<usize> = Vec::new();
        // Open slices (local position, row), and how many of each name are open.
        let mut stack: Vec<(u32, u32)> = Vec::new();
        let mut open: FxHashMap<StrId, u32> = FxHashMap::default();
        let mut k = 0u32;
        for i in rows {
            if s.flags[i] & slice_flags::OVERLAP != 0 {
                overlaps.push(i);
                continue;
            }
            let want = s.parent[i].map_or(NONE, SliceId::raw);
            while let Some(&(top, row)) = stack.last() {
                if row == want {
                    break;
                }
                stack.pop();
                let t = &mut out[top as usize];
                t.end = base + k;
                if self.outer {
                    if let Some(c) = open.get_mut(&t.name) {
                        *c -= 1;
                    }
                }
            }
            let parent = stack.last().map_or(NONE, |e| base + e.0);
            let outer = !self.outer || {
                let count = open.entry(s.name[i]).or_insert(0);
                *count += 1;
                *count == 1
            };
            out[k as usize] = self.at(i, parent, outer);
            match stack.last() {
                None => roots.push(base + k),
                Some(&(p, row)) if self.crossing(row as usize) => {
                    let c = out[k as usize].clip;
                    out[p as usize].own -= c;
                }
                Some(_) => {}
            }
            stack.push((k, i as u32));
            k += 1;
        }
        for (top, _) in stack {
            out[top as usize].end = base + k;
        }
        for i in overlaps {
            out[k as usize] = Pos {
                end: base + k + 1,
                ..self.at(i, NONE, true)
            };
            roots.push(base + k);
            k += 1;
        }
        roots
    }
}

/// A member of a top-down node: a slice and where its subtree ends. All nodes'
/// members live in one arena,
/// each node a range of it: no allocation per node, no memory handed back and
/// taken again (fresh pages cost as much as the work).
type Item = (u32, u32);

/// A node's weights, summed over its members.
#[derive(Clone, Copy, Default)]
struct Weight {
    self_ns: i64,
    total_ns: i64,
    self_n: u64,
    total_n: u64,
}

impl Weight {
    fn add(&mut self, o: Weight) {
        self.self_ns = self.self_ns.saturating_add(o.self_ns);
        self.total_ns = self.total_ns.saturating_add(o.total_ns);
        self.self_n += o.self_n;
        self.total_n += o.total_n;
    }
}

/// A node not yet answered: its members are `arena[start..start + len]`.
struct Cand {
    parent: u32,
    depth: u32,
    name: StrId,
    start: usize,
    len: usize,
    w: Weight,
}

/// Members tagged with their group while a node splits.
#[derive(Default)]
struct Groups {
    index: FxHashMap<StrId, u32>,
    names: Vec<StrId>,
    weights: Vec<Weight>,
    tagged: Vec<(u32, Item)>,
}

impl Groups {
    fn add(&mut self, name: StrId, item: Item, w: Weight) {
        let g = *self.index.entry(name).or_insert_with(|| {
            self.names.push(name);
            self.weights.push(Weight::default());
            self.names.len() as u32 - 1
        });
        self.weights[g as usize].add(w);
        self.tagged.push((g, item));
    }

    /// Another chunk's groups joined into these.
    fn merge(&mut self, o: Groups) {
        let map: Vec<u32> = o
            .names
            .iter()
            .zip(&o.weights)
            .map(|(&name, &w)| {
                let g = *self.index.entry(name).or_insert_with(|| {
                    self.names.push(name);
                    self.weights.push(Weight::default());
                    self.names.len() as u32 - 1
                });
                self.weights[g as usize].add(w);
                g
            })
            .collect();
        self.tagged
            .extend(o.tagged.into_iter().map(|(g, it)| (map[g as usize], it)));
    }

    /// The groups as nodes under `parent`, their members appended to the arena
    /// (a counting sort by group).
    fn into_cands(self, arena: &mut Vec<Item>, parent: u32, depth: u32) -> Vec<Cand> {
        let mut start = vec![0usize; self.names.len() + 1];
        for &(g, _) in &self.tagged {
            start[g as usize + 1] += 1;
        }
        let base = arena.len();
        start[0] = base;
        for g in 0..self.names.len() {
            start[g + 1] += start[g];
        }
        arena.resize(base + self.tagged.len(), (0, 0));
        let mut at = start.clone();
        for (g, it) in self.tagged {
            arena[at[g as usize]] = it;
            at[g as usize] += 1;
        }
        self.names
            .iter()
            .zip(&self.weights)
            .enumerate()
            .map(|(g, (&name, &w))| Cand {
                parent,
                depth,
                name,
                start: start[g],
                len: start[g + 1] - start[g],
                w,
            })
            .collect()
    }
}

/// Items split into groups, in parallel chunks when there are many. `ahead` is
/// told of the item a few places ahead of the one being added (to fetch what it
/// will read: the items are far apart in memory).
fn group(
    items: &[Item],
    ahead: impl Fn(Item) + Sync,
    add: impl Fn(&mut Groups, Item) + Sync,
) -> Groups {
    const CHUNK: usize = 1 << 16;
    const AHEAD: usize = 4;
    let run = |c: &[Item]| {
        let mut g = Groups::default();
        for (i, &x) in c.iter().enumerate() {
            if let Some(&y) = c.get(i + AHEAD) {
                ahead(y);
            }
            add(&mut g, x);
        }
        g
    };
    if items.len() <= CHUNK {
        return run(items);
    }
    items
        .par_chunks(CHUNK)
        .map(run)
        .reduce(Groups::default, |mut a, b| {
            a.merge(b);
            a
        })
}

/// Asks the processor to start loading `x` into the cache.
#[inline(always)]
fn prefetch<T>(x: &T) {
    crate::prefetch((x as *const T).cast::<u8>());
}

impl Stacks {
    /// The callees of a node's members, by name.
    fn split(&self, members: &[Item]) -> Groups {
        group(
            members,
            |(k, _)| self.fetch(k + 1),
            |g, (k, end)| {
                // A member carries its subtree's end: its own position is not read,
                // only its children's (right after it).
                let mut j = k + 1;
                while j < end {
                    self.add_down(g, j);
                    j = self.pos[j as usize].end;
                }
            },
        )
    }

    /// Starts loading position `k`.
    fn fetch(&self, k: u32) {
        if let Some(x) = self.pos.get(k as usize) {
            prefetch(x);
        }
    }

    /// Slice `j` joins its name's group as a callee (a member `(j, its end)`).
    fn add_down(&self, g: &mut Groups, j: u32) {
        let x = &self.pos[j as usize];
        let w = Weight {
            self_ns: x.own,
            total_ns: x.clip,
            self_n: 1,
            total_n: (x.end - j) as u64,
        };
        g.add(x.name, (j, x.end), w);
    }
}

/// Which positions a filter keeps: those whose stack (top-down: down to them, or
/// below them) has a name it finds.
struct Shown {
    /// The slice or one of its ancestors matches.
    under: Vec<bool>,
    /// The slice or one of its descendants matches.
    above: Vec<bool>,
}

impl Shown {
    fn build(trace: &Trace, st: &Stacks, pat: &Pattern) -> Shown {
        let strings = &trace.tables.strings;
        let mut hit_name: FxHashMap<StrId, bool> = FxHashMap::default();
        let n = st.len();
        let mut under = vec![false; n];
        for k in 0..n {
            let name = st.name(k as u32);
            let hit = *hit_name
                .entry(name)
                .or_insert_with(|| !name.is_none() && pat.matches(strings.get(name)));
            let p = st.pos[k].parent;
            under[k] = hit || (p != NONE && under[p as usize]);
        }
        let mut above: Vec<bool> = (0..n)
            .map(|k| hit_name.get(&st.name(k as u32)).copied().unwrap_or(false))
            .collect();
        for k in (0..n).rev() {
            let p = st.pos[k].parent;
            if above[k] && p != NONE {
                above[p as usize] = true;
            }
        }
        Shown { under, above }
    }

    /// A top-down node is kept when one of its slices has a match above or below it.
    fn keeps(&self, members: &[Item]) -> bool {
        members
            .iter()
            .any(|&(k, _)| self.under[k as usize] || self.above[k as usize])
    }
}

/// Answers the heaviest `max` nodes, best first from the roots (`children` gives
/// an answered node's children, with its index in the answer), in pre-order with
/// siblings by total (roots by self when `by_self`), then name.
fn emit(
    trace: &Trace,
    roots: Vec<Cand>,
    by_self: bool,
    max: usize,
    mut children: impl FnMut(&Cand, u32) -> Vec<Cand>,
) -> (Vec<TreeNode>, bool) {
    let mut pool: Vec<Option<Cand>> = Vec::new();
    // The heaviest first; among equals, as siblings are ordered (then the first made).
    let mut heap: BinaryHeap<(i64, i64, Reverse<&str>, Reverse<u32>)> = BinaryHeap::new();
    let push = |pool: &mut Vec<Option<Cand>>, heap: &mut BinaryHeap<_>, c: Cand| {
        let name = Reverse(trace.str(c.name));
        heap.push((c.w.total_ns, c.w.self_ns, name, Reverse(pool.len() as u32)));
        pool.push(Some(c));
    };
    for c in roots {
        push(&mut pool, &mut heap, c);
    }
    let mut kept: Vec<Cand> = Vec::new();
    while kept.len() < max {
        let Some((.., Reverse(i))) = heap.pop() else {
            break;
        };
        let Some(c) = pool[i as usize].take() else {
            continue;
        };
        for child in children(&c, kept.len() as u32) {
            push(&mut pool, &mut heap, child);
        }
        kept.push(c);
    }
    let truncated = !heap.is_empty();
    (order(trace, &kept, by_self), truncated)
}

/// A top-down tree (or a sandwich's callees) from its roots: nodes split into
/// their callees as they are answered.
fn emit_top_down(
    trace: &Trace,
    st: &Stacks,
    (roots, mut arena): (Vec<Cand>, Vec<Item>),
    max: usize,
    shown: Option<&Shown>,
) -> (Vec<TreeNode>, bool) {
    let keeps =
        |arena: &[Item], c: &Cand| shown.is_none_or(|s| s.keeps(&arena[c.start..c.start + c.len]));
    let roots = roots.into_iter().filter(|c| keeps(&arena, c)).collect();
    emit(trace, roots, false, max, |c, me| {
        let groups = st.split(&arena[c.start..c.start + c.len]);
        let kids = groups.into_cands(&mut arena, me, c.depth + 1);
        kids.into_iter().filter(|k| keeps(&arena, k)).collect()
    })
}

/// An inverted tree (bottom-up, callers) from its levels. A node lighter than
/// the `max`-th heaviest is never answered, so it is not even offered (a
/// bottom-up tree of a trace with varied stacks has hundreds of thousands of them
/// under the answered nodes); the tree is then truncated.
fn emit_levels(trace: &Trace, lv: &Levels, by_self: bool, max: usize) -> (Vec<TreeNode>, bool) {
    let bar = lv.bar(max);
    let mut left_out = false;
    let mut offer = |k: u32| {
        let heavy = lv.nodes[k as usize].w.total_ns >= bar;
        left_out |= !heavy;
        heavy
    };
    let roots = lv
        .roots
        .iter()
        .copied()
        .filter(|&k| lv.nodes[k as usize].shown && offer(k))
        .map(|k| lv.cand(k, NONE))
        .collect();
    let (nodes, truncated) = emit(trace, roots, by_self, max, |c, me| {
        lv.children(c.start as u32)
            .filter(|&k| offer(k))
            .map(|k| lv.cand(k, me))
            .collect()
    });
    (nodes, truncated || left_out)
}

/// The answered nodes in pre-order with sorted siblings.
fn order(trace: &Trace, kept: &[Cand], by_self: bool) -> Vec<TreeNode> {
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); kept.len()];
    let mut roots: Vec<u32> = Vec::new();
    for (k, c) in kept.iter().enumerate() {
        match c.parent {
            NONE => roots.push(k as u32),
            p => children[p as usize].push(k as u32),
        }
    }
    let sort = |list: &mut Vec<u32>, by_self: bool| {
        list.sort_by(|&x, &y| {
            let key = |k: u32| {
                let w = &kept[k as usize].w;
                if by_self {
                    (w.self_ns, w.total_ns)
                } else {
                    (w.total_ns, w.self_ns)
                }
            };
            key(y).cmp(&key(x)).then_with(|| {
                trace
                    .str(kept[x as usize].name)
                    .cmp(trace.str(kept[y as usize].name))
            })
        })
    };
    sort(&mut roots, by_self);
    for c in &mut children {
        sort(c, false);
    }
    let mut out = Vec::with_capacity(kept.len());
    let mut stack: Vec<(u32, Option<u32>)> = roots.iter().rev().map(|&k| (k, None)).collect();
    while let Some((k, parent)) = stack.pop() {
        let c = &kept[k as usize];
        let me = out.len() as u32;
        out.push(TreeNode {
            parent,
            depth: c.depth,
            function: Function::named(c.name),
            self_ns: c.w.self_ns,
            total_ns: c.w.total_ns,
            self_samples: c.w.self_n,
            total_samples: c.w.total_n,
        });
        stack.extend(children[k as usize].iter().rev().map(|&c| (c, Some(me))));
    }
    out
}

/// Nodes made of `items` grouped by `add`, at the top of a tree, and the arena
/// holding their members.
fn roots(items: &[Item], add: impl Fn(&mut Groups, Item) + Sync) -> (Vec<Cand>, Vec<Item>) {
    let mut arena = Vec::with_capacity(items.len());
    let cands = group(items, |_| {}, add).into_cands(&mut arena, NONE, 0);
    (cands, arena)
}

/// The top-down roots: every root slice, by name.
fn top_roots(st: &Stacks) -> (Vec<Cand>, Vec<Item>) {
    let items: Vec<Item> = st.roots.iter().map(|&k| (k, 0)).collect();
    roots(&items, |g, (k, _)| st.add_down(g, k))
}

/// The slices' items and weight: what the roots hold.
fn totals(st: &Stacks) -> (u64, i64) {
    st.roots.iter().fold((0, 0), |(n, t), &k| {
        (n + st.size(k), t.saturating_add(st.pos[k as usize].clip))
    })
}

/// The call tree of the selected slices.
pub(super) fn tree(
    trace: &Trace,
    sel: &Selection,
    view: TreeView,
    max: usize,
    filter: Option<&Pattern>,
) -> CallTree {
    let st = Stacks::build(trace, sel, view == TreeView::BottomUp);
    let shown = filter.map(|p| Shown::build(trace, &st, p));
    let (nodes, truncated) = match view {
        TreeView::TopDown => emit_top_down(trace, &st, top_roots(&st), max, shown.as_ref()),
        TreeView::BottomUp => {
            let every = (0..st.len() as u32).into_par_iter();
            let lv = Levels::build(&st, Weigh::SelfTime, every, max, shown.as_ref());
            emit_levels(trace, &lv, true, max)
        }
    };
    let (samples, total_ns) = totals(&st);
    CallTree {
        view,
        samples,
        total_ns,
        nodes,
        truncated,
    }
}

/// Every name of the selected slices with its self time, and the total of its
/// outermost calls.
pub(super) fn functions(trace: &Trace, sel: &Selection) -> FunctionTable {
    let st = Stacks::build(trace, sel, true);
    let every = (0..st.len() as u32).into_par_iter();
    let lv = Levels::build(&st, Weigh::SelfTime, every, 0, None);
    let functions = lv
        .nodes
        .iter()
        .map(|n| FunctionStats {
            function: Function::named(n.name),
            self_ns: n.w.self_ns,
            total_ns: n.w.total_ns,
            self_samples: n.w.self_n,
            total_samples: n.w.total_n,
        })
        .collect();
    let (samples, total_ns) = totals(&st);
    FunctionTable {
        functions,
        samples,
        total_ns,
    }
}

/// The callers and callees of the slices named `name` (their outermost calls).
pub(super) fn sandwich(
    trace: &Trace,
    sel: &Selection,
    name: StrId,
    max: usize,
) -> (CallTree, CallTree) {
    let st = Stacks::build(trace, sel, true);
    let calls: Vec<u32> = (0..st.len() as u32)
        .filter(|&k| st.pos[k as usize].outer && st.name(k) == name)
        .collect();
    let items: Vec<Item> = calls.iter().map(|&k| (k, k)).collect();
    let callees = roots(&items, |g, (k, _)| st.add_down(g, k));
    // The function's node of the callers tree: its calls, each through itself.
    let callers = Levels::build(&st, Weigh::Calls, calls.into_par_iter(), max, None);
    // Both trees' roots hold the calls.
    let held = |roots: &mut dyn Iterator<Item = Weight>| {
        roots.fold((0, 0i64), |(n, t), w| {
            (n + w.total_n, t.saturating_add(w.total_ns))
        })
    };
    let tree = |(samples, total_ns), (nodes, truncated), view| CallTree {
        view,
        samples,
        total_ns,
        nodes,
        truncated,
    };
    let caller_weights = held(&mut callers.roots.iter().map(|&k| callers.nodes[k as usize].w));
    let callee_weights = held(&mut callees.0.iter().map(|c| c.w));
    (
        tree(
            caller_weights,
            emit_levels(trace, &callers, false, max),
            TreeView::BottomUp,
        ),
        tree(
            callee_weights,
            emit_top_down(trace, &st, callees, max, None),
            TreeView::TopDown,
        ),
    )
}
