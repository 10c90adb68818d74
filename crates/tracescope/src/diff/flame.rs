//! The differential flame graph: the top-down call trees of every run of both
//! sides merged by call path (function names from the root), each node with its
//! per-run mean total and self time on each side.
//!
//! The trees are of CPU samples when every run has samples, else of slices as
//! stacks (a slice's children are the slices nested in it), so both sides are
//! always made of the same thing.

use rustc_hash::FxHashMap;
use tracescope_model::analysis::{call_tree, Selection, TreeView};
use tracescope_model::{StrId, Trace};

/// One node of the merged tree.
#[derive(Clone, Debug, PartialEq)]
pub struct FlameNode {
    pub parent: Option<u32>,
    pub name: String,
    pub base_total: f64,
    pub new_total: f64,
    pub base_self: f64,
    pub new_self: f64,
}

/// The merged tree, in pre-order, siblings by the larger of their totals.
#[derive(Clone, Debug, PartialEq)]
pub struct FlameTree {
    /// `samples` or `slices`.
    pub source: &'static str,
    pub base_total: f64,
    pub new_total: f64,
    pub nodes: Vec<FlameNode>,
}

/// Nodes in a run's tree at most (the heaviest; a parent is always kept).
const MAX_NODES: usize = 200_000;
/// Nodes narrower than this share of the root's time are left out of the answer:
/// they would be less than a pixel wide.
const MIN_SHARE: f64 = 1e-5;

/// One node of a run's tree: parent (an earlier node), name, total and self time.
type RunNode<'t> = (Option<u32>, &'t str, i64, i64);

/// A run's top-down tree, parents before their children.
fn tree_of(trace: &Trace, slices: bool) -> Vec<RunNode<'_>> {
    if slices {
        return slice_tree(trace);
    }
    call_tree(trace, &Selection::all(), TreeView::TopDown, MAX_NODES)
        .nodes
        .iter()
        .map(|n| (n.parent, trace.name(n.function.name), n.total_ns, n.self_ns))
        .collect()
}

/// Slices as stacks: a slice is a call of a function of its name, its children
/// the slices nested in it; calls with the same path from a root are one node.
fn slice_tree(trace: &Trace) -> Vec<RunNode<'_>> {
    let s = &trace.tables.slices;
    let mut nodes: Vec<RunNode> = Vec::new();
    let mut index: FxHashMap<(Option<u32>, StrId), u32> = FxHashMap::default();
    // The node of each slice; a parent's row comes before its children's.
    let mut node_of: Vec<u32> = Vec::with_capacity(s.len());
    for i in 0..s.len() {
        let parent = s.parent[i]
            .map(|p| p.index())
            .filter(|&p| p < i)
            .map(|p| node_of[p]);
        let k = *index.entry((parent, s.name[i])).or_insert_with(|| {
            nodes.push((parent, trace.name(s.name[i]), 0, 0));
            nodes.len() as u32 - 1
        });
        let n = &mut nodes[k as usize];
        n.2 = n.2.saturating_add(s.dur(i).max(0));
        n.3 = n.3.saturating_add(s.self_ns(i).max(0));
        node_of.push(k);
    }
    nodes
}

/// Merges the trees of every run.
pub fn diff_flame(base: &[&Trace], new: &[&Trace]) -> FlameTree {
    let slices = base.iter().chain(new).any(|t| t.tables.samples.is_empty());
    let mut nodes: Vec<FlameNode> = Vec::new();
    let mut index: FxHashMap<(Option<u32>, String), u32> = FxHashMap::default();
    let mut totals = [0f64; 2];
    for (side, runs) in [base, new].into_iter().enumerate() {
        let w = 1.0 / runs.len().max(1) as f64;
        for t in runs {
            let tree = tree_of(t, slices);
            let roots: i64 = tree.iter().filter(|n| n.0.is_none()).map(|n| n.2).sum();
            totals[side] += roots as f64 * w;
            let mut map: Vec<u32> = Vec::with_capacity(tree.len());
            for &(parent, name, total_ns, self_ns) in &tree {
                let parent = parent.map(|p| map[p as usize]);
                let name = name.to_string();
                let k = *index.entry((parent, name.clone())).or_insert_with(|| {
                    nodes.push(FlameNode {
                        parent,
                        name,
                        base_total: 0.0,
                        new_total: 0.0,
                        base_self: 0.0,
                        new_self: 0.0,
                    });
                    nodes.len() as u32 - 1
                });
                let node = &mut nodes[k as usize];
                if side == 0 {
                    node.base_total += total_ns as f64 * w;
                    node.base_self += self_ns as f64 * w;
                } else {
                    node.new_total += total_ns as f64 * w;
                    node.new_self += self_ns as f64 * w;
                }
                map.push(k);
            }
        }
    }
    FlameTree {
        source: if slices { "slices" } else { "samples" },
        base_total: totals[0],
        new_total: totals[1],
        nodes: preorder(nodes, totals[0].max(totals[1]) * MIN_SHARE),
    }
}

/// The nodes in pre-order, siblings by their larger total (then name), without
/// those narrower than `min` (and their subtrees).
fn preorder(nodes: Vec<FlameNode>, min: f64) -> Vec<FlameNode> {
    let size = |n: &FlameNode| n.base_total.max(n.new_total);
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
    let mut roots: Vec<u32> = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        if size(n) < min {
            continue;
        }
        match n.parent {
            Some(p) => children[p as usize].push(i as u32),
            None => roots.push(i as u32),
        }
    }
    let order = |list: &mut Vec<u32>| {
        list.sort_by(|&a, &b| {
            let (x, y) = (&nodes[a as usize], &nodes[b as usize]);
            size(y)
                .total_cmp(&size(x))
                .then_with(|| x.name.cmp(&y.name))
        })
    };
    order(&mut roots);
    for c in &mut children {
        order(c);
    }
    let mut out: Vec<FlameNode> = Vec::new();
    // (node, its parent's index in `out`)
    let mut stack: Vec<(u32, Option<u32>)> = roots.iter().rev().map(|&r| (r, None)).collect();
    while let Some((i, parent)) = stack.pop() {
        let mut n = nodes[i as usize].clone();
        n.parent = parent;
        let at = out.len() as u32;
        out.push(n);
        stack.extend(children[i as usize].iter().rev().map(|&c| (c, Some(at))));
    }
    out
}
