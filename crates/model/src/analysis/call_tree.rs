//! CPU-profile call trees over a selection of samples: top-down (callers above
//! callees) and bottom-up (the functions that were running, with their callers
//! below them), with self and total time and sample counts.
//!
//! A sample weighs the time until the next sample of its thread; the last sample of
//! a thread weighs as much as the interval before it, a lone sample nothing.
//! Functions are (name, url, line, column): two frames of one function under the
//! same caller are one node. Samples with an empty stack belong to no node and are
//! not counted.

use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use super::Selection;
use crate::strings::StrId;
use crate::tables::FrameId;

/// No node (the builder's own node indexes).
const NONE: u32 = u32::MAX;
use crate::trace::Trace;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeView {
    TopDown,
    BottomUp,
}

impl TreeView {
    pub fn parse(s: &str) -> Option<TreeView> {
        match s {
            "top-down" => Some(TreeView::TopDown),
            "bottom-up" => Some(TreeView::BottomUp),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TreeView::TopDown => "top-down",
            TreeView::BottomUp => "bottom-up",
        }
    }
}

/// A function: what a node stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Function {
    pub name: StrId,
    pub url: StrId,
    /// 0-based as in the frame table (V8's convention).
    pub line: Option<i64>,
    pub column: Option<i64>,
}

/// One node of an answer, in pre-order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeNode {
    /// Index of the parent in [`CallTree::nodes`], `None` for a root.
    pub parent: Option<u32>,
    pub depth: u32,
    pub function: Function,
    pub self_ns: i64,
    pub total_ns: i64,
    pub self_samples: u64,
    pub total_samples: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallTree {
    pub view: TreeView,
    /// Samples in the selection with a non-empty stack, and their summed weight.
    pub samples: u64,
    pub total_ns: i64,
    /// Pre-order; siblings by total time (bottom-up roots: by self time), then name.
    pub nodes: Vec<TreeNode>,
    /// Nodes were left out to stay within the limit.
    pub truncated: bool,
}

impl CallTree {
    /// Every stack with self samples, root first, as function names with the sample
    /// count and self time: the "folded stacks" other tools read. Top-down trees only.
    pub fn stacks<'t>(&self, trace: &'t Trace) -> Vec<(Vec<&'t str>, u64, i64)> {
        let mut out = Vec::new();
        let mut path: Vec<&str> = Vec::new();
        for n in self.nodes.iter().filter(|n| n.self_samples > 0) {
            path.clear();
            let mut cur = Some(n);
            while let Some(c) = cur {
                path.push(trace.str(c.function.name));
                cur = c.parent.map(|p| &self.nodes[p as usize]);
            }
            path.reverse();
            out.push((path.clone(), n.self_samples, n.self_ns));
        }
        out
    }
}

/// Mutable tree while building: nodes keyed by (parent, function).
#[derive(Default)]
struct Builder {
    parent: Vec<u32>,
    func: Vec<u32>,
    depth: Vec<u32>,
    self_ns: Vec<i64>,
    total_ns: Vec<i64>,
    self_n: Vec<u64>,
    total_n: Vec<u64>,
    index: FxHashMap<(u32, u32), u32>,
}

impl Builder {
    fn child(&mut self, parent: u32, func: u32) -> u32 {
        if let Some(&n) = self.index.get(&(parent, func)) {
            return n;
        }
        let n = self.parent.len() as u32;
        self.index.insert((parent, func), n);
        self.parent.push(parent);
        self.func.push(func);
        self.depth.push(if parent == NONE {
            0
        } else {
            self.depth[parent as usize] + 1
        });
        self.self_ns.push(0);
        self.total_ns.push(0);
        self.self_n.push(0);
        self.total_n.push(0);
        n
    }

    fn len(&self) -> usize {
        self.parent.len()
    }
}

/// Self time and samples per frame of the selected samples.
fn frame_weights(trace: &Trace, sel: &Selection) -> (Vec<i64>, Vec<u64>) {
    let s = &trace.tables.samples;
    let nf = trace.tables.frames.len();
    let (mut ns, mut n) = (vec![0i64; nf], vec![0u64; nf]);
    let mut lo = 0;
    while lo < s.len() {
        let th = s.thread[lo];
        let hi = lo + s.thread[lo..].partition_point(|&x| x == th);
        if !sel.has_samples(th) {
            lo = hi;
            continue;
        }
        let ts = &s.ts[lo..hi];
        let a = ts.partition_point(|&x| x < sel.t0);
        let b = a + ts[a..].partition_point(|&x| x < sel.t1);
        for i in a..b {
            let Some(f) = s.frame[lo + i].map(FrameId::index).filter(|&f| f < nf) else {
                continue;
            };
            let w = if i + 1 < ts.len() {
                ts[i + 1] - ts[i]
            } else if i > 0 {
                ts[i] - ts[i - 1]
            } else {
                0
            };
            ns[f] = ns[f].saturating_add(w);
            n[f] += 1;
        }
        lo = hi;
    }
    (ns, n)
}

/// The top-down tree of the frames with samples (nodes created parents first).
fn top_down(trace: &Trace, sel: &Selection, funcs: &mut Functions) -> Builder {
    let frames = &trace.tables.frames;
    let (ns, n) = frame_weights(trace, sel);
    let mut b = Builder::default();
    let mut node_of = vec![NONE; frames.len()];
    let mut path: Vec<usize> = Vec::new();
    for f in 0..frames.len() {
        if n[f] == 0 {
            continue;
        }
        // Walk up to a frame that already has a node (or the root); a cycle in a
        // malformed frame table stops at the table's size.
        path.clear();
        let mut cur = Some(f);
        while let Some(c) = cur.filter(|&c| c < frames.len() && node_of[c] == NONE) {
            path.push(c);
            if path.len() > frames.len() {
                break;
            }
            cur = frames[c].parent.map(FrameId::index);
        }
        let mut node = match cur {
            Some(c) if c < frames.len() => node_of[c],
            _ => NONE,
        };
        for &p in path.iter().rev() {
            node = b.child(node, funcs.of(trace, p));
            node_of[p] = node;
        }
        let k = node as usize;
        b.self_ns[k] = b.self_ns[k].saturating_add(ns[f]);
        b.self_n[k] += n[f];
    }
    for k in 0..b.len() {
        b.total_ns[k] = b.total_ns[k].saturating_add(b.self_ns[k]);
        b.total_n[k] += b.self_n[k];
    }
    for k in (0..b.len()).rev() {
        let p = b.parent[k];
        if p != NONE {
            b.total_ns[p as usize] = b.total_ns[p as usize].saturating_add(b.total_ns[k]);
            b.total_n[p as usize] += b.total_n[k];
        }
    }
    b
}

/// Inverts a top-down tree: every node's reversed path (itself, its callers up to
/// the root) gets the node's self time; its total counts once per sample, from the
/// outermost call of a recursive function only.
fn bottom_up(td: &Builder) -> Builder {
    let mut b = Builder::default();
    let mut path: Vec<u32> = Vec::new();
    for k in 0..td.len() {
        path.clear();
        let mut cur = k as u32;
        while cur != NONE {
            path.push(cur);
            cur = td.parent[cur as usize];
        }
        let f = td.func[k];
        let outermost = !path[1..].iter().any(|&a| td.func[a as usize] == f);
        let mut node = NONE;
        for &a in &path {
            node = b.child(node, td.func[a as usize]);
            let j = node as usize;
            b.self_ns[j] = b.self_ns[j].saturating_add(td.self_ns[k]);
            b.self_n[j] += td.self_n[k];
            if outermost {
                b.total_ns[j] = b.total_ns[j].saturating_add(td.total_ns[k]);
                b.total_n[j] += td.total_n[k];
            }
        }
    }
    // Deeper rows of an inner recursive call carry self time but no total.
    for j in 0..b.len() {
        b.total_ns[j] = b.total_ns[j].max(b.self_ns[j]);
        b.total_n[j] = b.total_n[j].max(b.self_n[j]);
    }
    b
}

/// Functions interned per question.
#[derive(Default)]
struct Functions {
    list: Vec<Function>,
    index: FxHashMap<Function, u32>,
}

impl Functions {
    fn of(&mut self, trace: &Trace, frame: usize) -> u32 {
        let fr = &trace.tables.frames[frame];
        let f = Function {
            name: fr.name,
            url: fr.url,
            line: fr.line,
            column: fr.column,
        };
        *self.index.entry(f).or_insert_with(|| {
            self.list.push(f);
            self.list.len() as u32 - 1
        })
    }
}

/// The call tree of the selected samples, at most `max_nodes` nodes (the heaviest;
/// a kept node's parent is always kept).
pub fn call_tree(trace: &Trace, sel: &Selection, view: TreeView, max_nodes: usize) -> CallTree {
    let mut funcs = Functions::default();
    let td = top_down(trace, sel, &mut funcs);
    let (samples, total_ns) = (0..td.len())
        .filter(|&k| td.parent[k] == NONE)
        .fold((0u64, 0i64), |(n, t), k| {
            (n + td.total_n[k], t.saturating_add(td.total_ns[k]))
        });
    let b = match view {
        TreeView::TopDown => td,
        TreeView::BottomUp => bottom_up(&td),
    };
    let (nodes, truncated) = emit(trace, &b, &funcs.list, view, max_nodes);
    CallTree {
        view,
        samples,
        total_ns,
        nodes,
        truncated,
    }
}

/// Picks the heaviest `max` nodes (best-first from the roots) and writes them in
/// pre-order with sorted siblings.
fn emit(
    trace: &Trace,
    b: &Builder,
    funcs: &[Function],
    view: TreeView,
    max: usize,
) -> (Vec<TreeNode>, bool) {
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); b.len()];
    let mut roots: Vec<u32> = Vec::new();
    for k in 0..b.len() as u32 {
        match b.parent[k as usize] {
            NONE => roots.push(k),
            p => children[p as usize].push(k),
        }
    }
    let name = |k: u32| trace.str(funcs[b.func[k as usize] as usize].name);
    let order = |list: &mut Vec<u32>, by_self: bool| {
        list.sort_by(|&x, &y| {
            let key = |k: u32| {
                if by_self {
                    (b.self_ns[k as usize], b.total_ns[k as usize])
                } else {
                    (b.total_ns[k as usize], b.self_ns[k as usize])
                }
            };
            key(y)
                .cmp(&key(x))
                .then_with(|| name(x).cmp(name(y)))
                .then(x.cmp(&y))
        })
    };
    order(&mut roots, view == TreeView::BottomUp);
    for c in &mut children {
        order(c, false);
    }
    // Best-first selection: a node enters only after its parent.
    let mut keep = vec![false; b.len()];
    let mut heap: BinaryHeap<(i64, std::cmp::Reverse<u32>)> = roots
        .iter()
        .map(|&k| (b.total_ns[k as usize], std::cmp::Reverse(k)))
        .collect();
    let mut kept = 0;
    while let Some((_, std::cmp::Reverse(k))) = heap.pop() {
        if kept >= max {
            break;
        }
        keep[k as usize] = true;
        kept += 1;
        for &c in &children[k as usize] {
            heap.push((b.total_ns[c as usize], std::cmp::Reverse(c)));
        }
    }
    let truncated = kept < b.len();
    let mut out = Vec::with_capacity(kept);
    let mut stack: Vec<(u32, Option<u32>)> = roots.iter().rev().map(|&k| (k, None)).collect();
    while let Some((k, parent)) = stack.pop() {
        if !keep[k as usize] {
            continue;
        }
        let j = k as usize;
        let me = out.len() as u32;
        out.push(TreeNode {
            parent,
            depth: b.depth[j],
            function: funcs[b.func[j] as usize],
            self_ns: b.self_ns[j],
            total_ns: b.total_ns[j],
            self_samples: b.self_n[j],
            total_samples: b.total_n[j],
        });
        stack.extend(children[j].iter().rev().map(|&c| (c, Some(me))));
    }
    (out, truncated)
}
