//! Bottom-up trees and a sandwich's callers, built level by level: level 0 holds
//! the slices by name (or the calls of the sandwich's function), level d + 1 each
//! member reached through its d + 1-th caller. A level is made only for the nodes
//! that can still be answered: those at least as heavy as the `max`-th heaviest
//! node made so far (children never weigh more than their parent, so a lighter
//! node is never answered and neither is anything below it).
//!
//! When many slices are still in play a level is one pass over the pre-order
//! layout, the callers read from a stack of open slices (memory read in order);
//! when few are, each member steps to its caller's caller directly.

use rustc_hash::FxHashMap;

use super::{Cand, Shown, Stacks, Weight, NONE};
use crate::strings::StrId;

/// What the members weigh.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Weigh {
    /// A slice's self time everywhere, its total from the outermost call of a
    /// recursive name only (bottom-up trees).
    SelfTime,
    /// The whole call, held as self by the outermost caller (a sandwich's callers).
    Calls,
}

/// A slice in play: its position, its caller at its node's depth, its node.
#[derive(Clone, Copy)]
struct Member {
    o: u32,
    c: u32,
    node: u32,
}

/// A node of an inverted tree.
pub(super) struct Node {
    pub parent: u32,
    pub depth: u32,
    pub name: StrId,
    pub w: Weight,
    /// A member's stack has a name the filter finds (always, without a filter).
    pub shown: bool,
    /// Its children were made: `kids[first..first + len]`.
    made: bool,
    first: u32,
    len: u32,
}

/// An inverted tree, made as deep as the heaviest `max` nodes need.
pub(super) struct Levels {
    pub nodes: Vec<Node>,
    kids: Vec<u32>,
    /// The level-0 nodes.
    pub roots: Vec<u32>,
}

impl Levels {
    /// Level 0 from `members` (each its own caller, by its name), then the
    /// deeper levels the heaviest `max` nodes need.
    pub fn build(
        st: &Stacks,
        weigh: Weigh,
        members: impl Iterator<Item = u32>,
        max: usize,
        shown: Option<&Shown>,
    ) -> Levels {
        let mut lv = Levels {
            nodes: Vec::new(),
            kids: Vec::new(),
            roots: Vec::new(),
        };
        let mut index: FxHashMap<(u32, StrId), u32> = FxHashMap::default();
        let mut live: Vec<Member> = members
            .map(|o| {
                let root = st.pos[o as usize].parent == NONE;
                let node = lv.join(&mut index, st, weigh, NONE, st.name(o), o, root, shown);
                Member { o, c: o, node }
            })
            .collect();
        lv.roots = (0..lv.nodes.len() as u32).collect();
        lv.finish(weigh, 0);
        // Nothing is answered without a limit above 0: level 0 is all there is.
        let mut level = if max > 0 {
            lv.roots.clone()
        } else {
            Vec::new()
        };
        while !level.is_empty() {
            let bar = lv.bar(max);
            let grow: Vec<u32> = level
                .iter()
                .copied()
                .filter(|&k| lv.nodes[k as usize].shown && lv.nodes[k as usize].w.total_ns >= bar)
                .collect();
            if grow.is_empty() {
                break;
            }
            for &k in &grow {
                lv.nodes[k as usize].made = true;
            }
            live.retain(|m| lv.nodes[m.node as usize].made);
            let from = lv.nodes.len();
            index.clear();
            let depth = lv.nodes[grow[0] as usize].depth + 1;
            if live.len() >= st.len() / 8 {
                lv.scan(st, weigh, depth, &mut live, &mut index, shown);
            } else {
                lv.step(st, weigh, &mut live, &mut index, shown);
            }
            live.retain(|m| m.node != NONE);
            lv.finish(weigh, from);
            lv.link(from);
            level = (from as u32..lv.nodes.len() as u32).collect();
        }
        lv
    }

    /// Member `o`, through caller `c` (the outermost one if `root`), joins the
    /// child `name` of `parent`.
    #[allow(clippy::too_many_arguments)]
    fn join(
        &mut self,
        index: &mut FxHashMap<(u32, StrId), u32>,
        st: &Stacks,
        weigh: Weigh,
        parent: u32,
        name: StrId,
        o: u32,
        root: bool,
        shown: Option<&Shown>,
    ) -> u32 {
        let k = self.node(index, parent, name, shown);
        let node = &mut self.nodes[k as usize];
        node.w.add(weight(st, weigh, o, root));
        if let Some(s) = shown {
            node.shown |= s.under[o as usize];
        }
        k
    }

    /// The total the `max`-th heaviest shown node has (the lowest, with fewer).
    fn bar(&self, max: usize) -> i64 {
        let mut totals: Vec<i64> = self
            .nodes
            .iter()
            .filter(|n| n.shown)
            .map(|n| n.w.total_ns)
            .collect();
        if totals.len() <= max {
            return i64::MIN;
        }
        let (_, &mut nth, _) = totals.select_nth_unstable_by(max - 1, |a, b| b.cmp(a));
        nth
    }

    /// One level by a pass over the layout: each member's caller at `depth` is
    /// read from the stack of open slices. `live` is in position order. The
    /// members are cut into runs scanned on all cores, each into nodes of its own;
    /// the runs' nodes then join the level in run order, so every node is made in
    /// the order one pass would make it and weighs the same.
    fn scan(
        &mut self,
        st: &Stacks,
        weigh: Weigh,
        depth: u32,
        live: &mut [Member],
        index: &mut FxHashMap<(u32, StrId), u32>,
        shown: Option<&Shown>,
    ) {
        use rayon::prelude::*;
        const RUN: usize = 1 << 16;
        let runs: Vec<(Vec<Local>, &mut [Member])> = live
            .par_chunks_mut(RUN)
            .map(|run| (scan_run(st, weigh, depth as usize, run, shown), run))
            .collect();
        for (locals, run) in runs {
            let global: Vec<u32> = locals
                .iter()
                .map(|l| {
                    let k = self.node(index, l.parent, l.name, shown);
                    let node = &mut self.nodes[k as usize];
                    node.w.add(l.w);
                    node.shown |= l.shown;
                    k
                })
                .collect();
            for m in run.iter_mut().filter(|m| m.node != NONE) {
                m.node = global[m.node as usize];
            }
        }
    }

    /// The child `name` of `parent`, made if new.
    fn node(
        &mut self,
        index: &mut FxHashMap<(u32, StrId), u32>,
        parent: u32,
        name: StrId,
        shown: Option<&Shown>,
    ) -> u32 {
        let nodes = &mut self.nodes;
        *index.entry((parent, name)).or_insert_with(|| {
            let depth = if parent == NONE {
                0
            } else {
                nodes[parent as usize].depth + 1
            };
            nodes.push(Node {
                parent,
                depth,
                name,
                w: Weight::default(),
                shown: shown.is_none(),
                made: false,
                first: 0,
                len: 0,
            });
            nodes.len() as u32 - 1
        })
    }

    /// One level by stepping each member to its caller's caller.
    fn step(
        &mut self,
        st: &Stacks,
        weigh: Weigh,
        live: &mut [Member],
        index: &mut FxHashMap<(u32, StrId), u32>,
        shown: Option<&Shown>,
    ) {
        for m in live {
            let p = st.pos[m.c as usize].parent;
            if p == NONE {
                m.node = NONE;
                continue;
            }
            let root = st.pos[p as usize].parent == NONE;
            m.node = self.join(index, st, weigh, m.node, st.name(p), m.o, root, shown);
            m.c = p;
        }
    }

    /// Bottom-up: deeper rows of an inner recursive call carry self time but no
    /// total.
    fn finish(&mut self, weigh: Weigh, from: usize) {
        if weigh == Weigh::SelfTime {
            for n in &mut self.nodes[from..] {
                n.w.total_ns = n.w.total_ns.max(n.w.self_ns);
                n.w.total_n = n.w.total_n.max(n.w.self_n);
            }
        }
    }

    /// The nodes from `from` on listed under their parents, in the order made.
    fn link(&mut self, from: usize) {
        let mut by_parent: Vec<(u32, u32)> = (from..self.nodes.len())
            .map(|k| (self.nodes[k].parent, k as u32))
            .collect();
        by_parent.sort_unstable();
        for chunk in by_parent.chunk_by(|a, b| a.0 == b.0) {
            let p = &mut self.nodes[chunk[0].0 as usize];
            p.first = self.kids.len() as u32;
            p.len = chunk.len() as u32;
            self.kids.extend(chunk.iter().map(|&(_, k)| k));
        }
    }

    /// Node `k` as an answer's candidate under `parent`.
    pub fn cand(&self, k: u32, parent: u32) -> Cand {
        let n = &self.nodes[k as usize];
        Cand {
            parent,
            depth: n.depth,
            name: n.name,
            start: k as usize,
            len: 0,
            w: n.w,
        }
    }

    /// The shown children of node `k` (made: an answered node's always are).
    pub fn children(&self, k: u32) -> impl Iterator<Item = u32> + '_ {
        let n = &self.nodes[k as usize];
        debug_assert!(n.made, "an answered node's children are made");
        self.kids[n.first as usize..(n.first + n.len) as usize]
            .iter()
            .copied()
            .filter(|&c| self.nodes[c as usize].shown)
    }
}

/// What slice `o`, reached through a caller that is the outermost one if `root`,
/// adds to its node.
fn weight(st: &Stacks, weigh: Weigh, o: u32, root: bool) -> Weight {
    let x = &st.pos[o as usize];
    match weigh {
        Weigh::SelfTime => Weight {
            self_ns: x.own,
            total_ns: if x.outer { x.clip } else { 0 },
            self_n: 1,
            total_n: if x.outer { st.size(o) } else { 0 },
        },
        Weigh::Calls => Weight {
            self_ns: if root { x.clip } else { 0 },
            total_ns: x.clip,
            self_n: root as u64,
            total_n: 1,
        },
    }
}

/// A node one run of a level's scan made, before it joins the level.
struct Local {
    parent: u32,
    name: StrId,
    w: Weight,
    shown: bool,
}

/// Scans one run of members (in position order): each takes its caller at `depth`
/// from the stack of open slices, rebuilt from the first member's ancestors. A
/// member's `node` becomes the index of its run's local node (or `NONE`).
fn scan_run(
    st: &Stacks,
    weigh: Weigh,
    depth: usize,
    run: &mut [Member],
    shown: Option<&Shown>,
) -> Vec<Local> {
    let (Some(first), Some(last)) = (run.first(), run.last()) else {
        return Vec::new();
    };
    let (first, last) = (first.o, last.o);
    // Open slices at `first`: its ancestors, outermost first.
    let mut open: Vec<(u32, StrId)> = Vec::new();
    let mut p = st.pos[first as usize].parent;
    while p != NONE {
        open.push((p, st.name(p)));
        p = st.pos[p as usize].parent;
    }
    open.reverse();
    let mut locals: Vec<Local> = Vec::new();
    let mut index: FxHashMap<(u32, StrId), u32> = FxHashMap::default();
    let mut next = run.iter_mut().peekable();
    for o in first..=last {
        let p = st.pos[o as usize].parent;
        while let Some(&(top, _)) = open.last() {
            if top == p {
                break;
            }
            open.pop();
        }
        if let Some(m) = next.next_if(|m| m.o == o) {
            if open.len() < depth {
                m.node = NONE;
            } else {
                let at = open.len() - depth;
                let (c, name) = open[at];
                let k = *index.entry((m.node, name)).or_insert_with(|| {
                    locals.push(Local {
                        parent: m.node,
                        name,
                        w: Weight::default(),
                        shown: false,
                    });
                    locals.len() as u32 - 1
                });
                let l = &mut locals[k as usize];
                l.w.add(weight(st, weigh, o, at == 0));
                if let Some(s) = shown {
                    l.shown |= s.under[o as usize];
                }
                m.node = k;
                m.c = c;
            }
        }
        open.push((o, st.name(o)));
    }
    locals
}
