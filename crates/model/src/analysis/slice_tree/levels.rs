//! Bottom-up trees and a sandwich's callers, built level by level: level 0 holds
//! the slices by name (or the calls of the sandwich's function), level d + 1 each
//! member reached through its d + 1-th caller. A level is made only for the nodes
//! that can still be answered: those at least as heavy as the `max`-th heaviest
//! node made so far (children never weigh more than their parent, so a lighter
//! node is never answered and neither is anything below it).
//!
//! A level is made in two steps, both on every core. First each member finds its
//! caller: when many slices are still in play by one pass over the pre-order
//! layout, the callers read from a stack of open slices (memory read in order),
//! when few are by stepping to its caller's caller directly. Then the members
//! join their nodes, the keys (node, caller's name) cut into shards by a hash.

use rayon::prelude::*;
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

/// A slice in play: its position, its caller at its node's depth and that
/// caller's name (`c` is `NONE` once it has no caller there), and its node.
#[derive(Clone, Copy)]
struct Member {
    o: u32,
    c: u32,
    name: StrId,
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
        members: impl IndexedParallelIterator<Item = u32>,
        max: usize,
        shown: Option<&Shown>,
    ) -> Levels {
        let mut lv = Levels {
            nodes: Vec::new(),
            kids: Vec::new(),
            roots: Vec::new(),
        };
        let mut live: Vec<Member> = Vec::new();
        live.par_extend(members.map(|o| Member {
            o,
            c: o,
            name: st.name(o),
            node: NONE,
        }));
        lv.join(st, weigh, &mut live, shown);
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
            let from = lv.nodes.len();
            let depth = lv.nodes[grow[0] as usize].depth + 1;
            // Members of nodes not grown, or without a caller there, drop out.
            if live.len() >= st.len() / 8 {
                scan(st, &lv.nodes, depth as usize, &mut live);
            } else {
                step(st, &lv.nodes, &mut live);
            }
            keep_called(&mut live);
            lv.join(st, weigh, &mut live, shown);
            lv.finish(weigh, from);
            lv.link(from);
            level = (from as u32..lv.nodes.len() as u32).collect();
        }
        lv
    }

    /// Each member joins the child of its node named by its caller (at level 0:
    /// the root named as it is), made if new. The members are cut into runs, each
    /// run gathering its own nodes on a core of its own; the keys (node, caller's
    /// name) are cut into shards by a hash, each shard joining its part of every
    /// run's nodes on a core of its own: a key lives in one shard, so no two
    /// shards make the same node.
    fn join(&mut self, st: &Stacks, weigh: Weigh, live: &mut [Member], shown: Option<&Shown>) {
        let parts: Vec<Part> = live
            .par_chunks_mut(RUN)
            .map_init(Scratch::default, |scratch, run| {
                gather(st, weigh, run, shown, scratch)
            })
            .collect();
        // Each shard's nodes, and where each run's nodes of the shard went: run
        // r's i-th is `at[from[r] + i]`.
        let shards: Vec<(Vec<Local>, Vec<u32>, Vec<u32>)> = (0..SHARDS)
            .into_par_iter()
            .map(|s| {
                let mut nodes: Vec<Local> = Vec::new();
                let mut index: FxHashMap<u64, u32> = FxHashMap::default();
                let mut at: Vec<u32> = Vec::new();
                let mut from: Vec<u32> = Vec::with_capacity(parts.len());
                for part in &parts {
                    from.push(at.len() as u32);
                    for l in part.shard(s) {
                        let k = *index.entry(key(l.parent, l.name)).or_insert_with(|| {
                            nodes.push(Local {
                                w: Weight::default(),
                                shown: false,
                                ..*l
                            });
                            nodes.len() as u32 - 1
                        });
                        let n = &mut nodes[k as usize];
                        n.w.add(l.w);
                        n.shown |= l.shown;
                        at.push(k);
                    }
                }
                (nodes, at, from)
            })
            .collect();
        let mut offset = Vec::with_capacity(shards.len());
        for (nodes, ..) in &shards {
            offset.push(self.nodes.len() as u32);
            for l in nodes {
                let depth = if l.parent == NONE {
                    0
                } else {
                    self.nodes[l.parent as usize].depth + 1
                };
                self.nodes.push(Node {
                    parent: l.parent,
                    depth,
                    name: l.name,
                    w: l.w,
                    shown: shown.is_none() || l.shown,
                    made: false,
                    first: 0,
                    len: 0,
                });
            }
        }
        live.par_chunks_mut(RUN).enumerate().for_each(|(r, run)| {
            for m in run {
                let (_, at, from) = &shards[(m.node & MASK) as usize];
                let i = from[r] + (m.node >> SHARD_BITS);
                m.node = offset[(m.node & MASK) as usize] + at[i as usize];
            }
        });
    }

    /// The total the `max`-th heaviest shown node has (the lowest, with fewer).
    pub fn bar(&self, max: usize) -> i64 {
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

/// Shards of a level's keys: enough that one shard's nodes stay in a core's cache
/// (a level may make a million nodes).
const SHARD_BITS: u32 = 6;
const SHARDS: usize = 1 << SHARD_BITS;
const MASK: u32 = SHARDS as u32 - 1;

/// How many members of a run are summed before it is decided whether to go on.
const PROBE: usize = 16384;

/// Members are gathered (and callers found) in runs of this many, each on a core.
const RUN: usize = 1 << 16;

/// A node one run made, then one shard's sum of the runs' nodes of its key.
#[derive(Clone, Copy)]
struct Local {
    parent: u32,
    name: StrId,
    w: Weight,
    shown: bool,
}

/// A node's key: its parent and its name.
fn key(parent: u32, name: StrId) -> u64 {
    (u64::from(parent) << 32) | u64::from(name.0)
}

/// One run's nodes, by shard: shard `s` holds `locals[starts[s]..starts[s + 1]]`.
struct Part {
    locals: Vec<Local>,
    starts: Vec<u32>,
}

impl Part {
    fn shard(&self, s: usize) -> &[Local] {
        &self.locals[self.starts[s] as usize..self.starts[s + 1] as usize]
    }
}

/// A core's buffers for gathering runs, kept from one run to the next.
#[derive(Default)]
struct Scratch {
    index: FxHashMap<u64, u32>,
    locals: Vec<Local>,
    shard: Vec<u32>,
    place: Vec<u32>,
}

/// The nodes of one run's members, cut into shards by key (the top bits of a
/// multiplicative hash, which every bit of the key reaches). A member's `node`
/// becomes its node's place in the part: index in its shard, then the shard.
fn gather(
    st: &Stacks,
    weigh: Weigh,
    run: &mut [Member],
    shown: Option<&Shown>,
    scratch: &mut Scratch,
) -> Part {
    let Scratch {
        index,
        locals,
        shard,
        place,
    } = scratch;
    index.clear();
    locals.clear();
    shard.clear();
    // When the first members of the run are nearly all of different nodes, the
    // rest are not summed here (a map as big as the run would cost more than it
    // saves): each is a node of its own, summed by its shard.
    let mut each = false;
    for (i, m) in run.iter_mut().enumerate() {
        if i == PROBE && index.len() > PROBE / 10 * 9 {
            each = true;
        }
        let key = key(m.node, m.name);
        let mut new = || {
            locals.push(Local {
                parent: m.node,
                name: m.name,
                w: Weight::default(),
                shown: false,
            });
            shard.push((key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SHARD_BITS)) as u32);
            locals.len() as u32 - 1
        };
        let k = if each {
            new()
        } else {
            *index.entry(key).or_insert_with(new)
        };
        let l = &mut locals[k as usize];
        // Only a sandwich's callers ask whether the caller is outermost.
        let root = weigh == Weigh::Calls && st.pos[m.c as usize].parent == NONE;
        l.w.add(weight(st, weigh, m.o, root));
        if let Some(sh) = shown {
            l.shown |= sh.under[m.o as usize];
        }
        m.node = k;
    }
    // The nodes ordered by shard (a counting sort).
    let mut starts = vec![0u32; SHARDS + 1];
    for &s in shard.iter() {
        starts[s as usize + 1] += 1;
    }
    for s in 0..SHARDS {
        starts[s + 1] += starts[s];
    }
    let mut next = starts.clone();
    let mut sorted = locals.clone();
    place.clear();
    for (l, &s) in locals.iter().zip(shard.iter()) {
        let p = &mut next[s as usize];
        sorted[*p as usize] = *l;
        place.push(((*p - starts[s as usize]) << SHARD_BITS) | s);
        *p += 1;
    }
    for m in run {
        m.node = place[m.node as usize];
    }
    Part {
        locals: sorted,
        starts,
    }
}

/// Each member's caller at `depth`, by a pass over the layout: `live` is in
/// position order, cut into runs scanned on every core.
fn scan(st: &Stacks, nodes: &[Node], depth: usize, live: &mut [Member]) {
    live.par_chunks_mut(RUN)
        .for_each(|run| scan_run(st, nodes, depth, run));
}

/// Each member's caller one level up, by stepping from its caller.
fn step(st: &Stacks, nodes: &[Node], live: &mut [Member]) {
    live.par_iter_mut().with_min_len(1 << 14).for_each(|m| {
        m.c = if nodes[m.node as usize].made {
            st.pos[m.c as usize].parent
        } else {
            NONE
        };
        if m.c != NONE {
            m.name = st.name(m.c);
        }
    });
}

/// Keeps the members that have a caller, in order: each run is compacted on a
/// core, then the runs are moved together.
fn keep_called(live: &mut Vec<Member>) {
    let kept: Vec<usize> = live
        .par_chunks_mut(RUN)
        .map(|run| {
            let mut n = 0;
            for i in 0..run.len() {
                if run[i].c != NONE {
                    run[n] = run[i];
                    n += 1;
                }
            }
            n
        })
        .collect();
    let mut to = 0;
    for (r, n) in kept.into_iter().enumerate() {
        live.copy_within(r * RUN..r * RUN + n, to);
        to += n;
    }
    live.truncate(to);
}

/// Scans one run of members (in position order): each member of a grown node
/// takes its caller at `depth` from the stack of open slices, rebuilt from the
/// first member's ancestors.
fn scan_run(st: &Stacks, nodes: &[Node], depth: usize, run: &mut [Member]) {
    let (Some(first), Some(last)) = (run.first(), run.last()) else {
        return;
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
            match open.len().checked_sub(depth) {
                Some(at) if nodes[m.node as usize].made => (m.c, m.name) = open[at],
                _ => m.c = NONE,
            }
        }
        open.push((o, st.name(o)));
    }
}
