//! Call trees over a selection, from CPU samples or from thread slices: top-down
//! (callers above callees) and bottom-up (the functions that were running, with
//! their callers below them), with self and total time and counts.
//!
//! Functions are (name, url, line, column) for samples, names for slices: two
//! calls of one function under the same caller are one node. How samples and
//! slices weigh: `sample_tree` and `slice_tree`. The counts (`samples` in the
//! answers) are samples, or slices for a slice tree.

use std::collections::BinaryHeap;

use super::tree_builder::{bottom_up, Builder, Functions, NONE};
use super::{sample_tree, slice_tree, Selection};
use crate::query::search::Pattern;
use crate::strings::StrId;
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

/// What a tree is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// CPU samples (`Profile`/`ProfileChunk`, `P` events, `.cpuprofile`).
    Samples,
    /// Thread slices, stacked by nesting (see `slice_tree`).
    Slices,
}

impl Source {
    pub fn parse(s: &str) -> Option<Source> {
        match s {
            "samples" => Some(Source::Samples),
            "slices" => Some(Source::Slices),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Source::Samples => "samples",
            Source::Slices => "slices",
        }
    }
}

impl Function {
    /// A function known by its name alone (a slice's).
    pub fn named(name: StrId) -> Function {
        Function {
            name,
            url: StrId::NONE,
            line: None,
            column: None,
        }
    }
}

/// A question about a selection: which tree, how big at most, and optionally only
/// the nodes a pattern finds (with their ancestors and descendants: the rest is
/// left out, the numbers stay those of the whole tree).
pub struct TreeQuery<'p> {
    pub source: Source,
    pub view: TreeView,
    pub max_nodes: usize,
    pub filter: Option<&'p Pattern>,
}

/// The top-down tree of the selected CPU samples and the functions it interned.
pub(super) fn top_down(trace: &Trace, sel: &Selection) -> (Builder, Functions) {
    let mut funcs = Functions::default();
    let td = sample_tree::top_down(trace, sel, &mut funcs);
    (td, funcs)
}

/// The items of a tree's roots and their summed weight.
pub(super) fn root_totals(b: &Builder) -> (u64, i64) {
    (0..b.len())
        .filter(|&k| b.parent[k] == NONE)
        .fold((0u64, 0i64), |(n, t), k| {
            (n + b.total_n[k], t.saturating_add(b.total_ns[k]))
        })
}

/// The CPU-profile call tree of the selected samples, at most `max_nodes` nodes (the
/// heaviest; a kept node's parent is always kept).
pub fn call_tree(trace: &Trace, sel: &Selection, view: TreeView, max_nodes: usize) -> CallTree {
    tree(
        trace,
        sel,
        &TreeQuery {
            source: Source::Samples,
            view,
            max_nodes,
            filter: None,
        },
    )
}

/// The call tree of a selection from samples or slices.
pub fn tree(trace: &Trace, sel: &Selection, q: &TreeQuery<'_>) -> CallTree {
    if q.source == Source::Slices {
        return slice_tree::tree(trace, sel, q.view, q.max_nodes, q.filter);
    }
    let (td, funcs) = top_down(trace, sel);
    let (samples, total_ns) = root_totals(&td);
    let b = match q.view {
        TreeView::TopDown => td,
        TreeView::BottomUp => bottom_up(&td),
    };
    let shown = q.filter.map(|p| found(trace, &b, &funcs.list, p));
    let (nodes, truncated) = emit(
        trace,
        &b,
        &funcs.list,
        q.view,
        q.max_nodes,
        shown.as_deref(),
    );
    CallTree {
        view: q.view,
        samples,
        total_ns,
        nodes,
        truncated,
    }
}

/// The nodes a pattern finds by function name, with their ancestors and
/// descendants.
fn found(trace: &Trace, b: &Builder, funcs: &[Function], pat: &Pattern) -> Vec<bool> {
    let n = b.len();
    let hit: Vec<bool> = (0..n)
        .map(|k| pat.matches(trace.name(funcs[b.func[k] as usize].name)))
        .collect();
    // Children come after their parents: forward for "under a hit", backward for
    // "above a hit".
    let mut under = hit.clone();
    for k in 0..n {
        let p = b.parent[k];
        if p != NONE && under[p as usize] {
            under[k] = true;
        }
    }
    let mut above = hit;
    for k in (0..n).rev() {
        let p = b.parent[k];
        if p != NONE && above[k] {
            above[p as usize] = true;
        }
    }
    under.iter().zip(&above).map(|(u, a)| *u || *a).collect()
}

/// Picks the heaviest `max` nodes (best-first from the roots) and writes them in
/// pre-order with sorted siblings.
pub(super) fn emit(
    trace: &Trace,
    b: &Builder,
    funcs: &[Function],
    view: TreeView,
    max: usize,
    shown: Option<&[bool]>,
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
    let visible = |k: u32| shown.is_none_or(|v| v[k as usize]);
    let mut heap: BinaryHeap<(i64, std::cmp::Reverse<u32>)> = roots
        .iter()
        .filter(|&&k| visible(k))
        .map(|&k| (b.total_ns[k as usize], std::cmp::Reverse(k)))
        .collect();
    let mut kept = 0;
    while let Some((_, std::cmp::Reverse(k))) = heap.pop() {
        if kept >= max {
            break;
        }
        keep[k as usize] = true;
        kept += 1;
        for &c in children[k as usize].iter().filter(|&&c| visible(c)) {
            heap.push((b.total_ns[c as usize], std::cmp::Reverse(c)));
        }
    }
    let truncated = kept < (0..b.len() as u32).filter(|&k| visible(k)).count();
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
