//! The sandwich view (speedscope's name): every function with its self and total
//! time, and for one function its callers and its callees, each as a tree rooted
//! at the function.
//!
//! As in speedscope, only the outermost call of a recursive function counts: the
//! callers tree is the reversed stack of each outermost call, weighted by that
//! call's total; the callees tree merges the subtrees of the outermost calls. So
//! the root of both trees weighs the function's total time. Self time is the
//! function's own in every call, recursive or not.

use super::call_tree::{root_totals, top_down, CallTree, Function, Source, TreeView};
use super::tree_builder::{Builder, NONE};
use super::{slice_tree, Selection};
use crate::trace::Trace;

/// One function of the selection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionStats {
    pub function: Function,
    /// Its own time in every call.
    pub self_ns: i64,
    /// The time of its outermost calls (callees included).
    pub total_ns: i64,
    /// Samples (or slices) whose leaf it is.
    pub self_samples: u64,
    /// Samples (or slices) under its outermost calls.
    pub total_samples: u64,
}

/// Every function of a selection, and the selection's samples (or slices) and
/// their weight, as a call tree's roots hold them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionTable {
    /// By total time (then self time, then name).
    pub functions: Vec<FunctionStats>,
    pub samples: u64,
    pub total_ns: i64,
}

/// Every function of the selection.
pub fn functions(trace: &Trace, sel: &Selection, source: Source) -> FunctionTable {
    let mut table = match source {
        Source::Samples => sample_functions(trace, sel),
        Source::Slices => slice_tree::functions(trace, sel),
    };
    table.functions.sort_by(|a, b| {
        (b.total_ns, b.self_ns)
            .cmp(&(a.total_ns, a.self_ns))
            .then_with(|| trace.name(a.function.name).cmp(trace.name(b.function.name)))
    });
    table
}

/// The functions of the selected CPU samples.
fn sample_functions(trace: &Trace, sel: &Selection) -> FunctionTable {
    let (td, funcs) = top_down(trace, sel);
    let (samples, total_ns) = root_totals(&td);
    let mut out: Vec<FunctionStats> = funcs
        .list
        .iter()
        .map(|&function| FunctionStats {
            function,
            self_ns: 0,
            total_ns: 0,
            self_samples: 0,
            total_samples: 0,
        })
        .collect();
    for k in 0..td.len() {
        let f = &mut out[td.func[k] as usize];
        f.self_ns = f.self_ns.saturating_add(td.self_ns[k]);
        f.self_samples += td.self_n[k];
        if !td.is_recursive(k) {
            f.total_ns = f.total_ns.saturating_add(td.total_ns[k]);
            f.total_samples += td.total_n[k];
        }
    }
    FunctionTable {
        functions: out,
        samples,
        total_ns,
    }
}

/// The callers and callees of one function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sandwich {
    pub function: Function,
    /// Rooted at the function; a node's children are its callers.
    pub callers: CallTree,
    /// Rooted at the function; a node's children are its callees.
    pub callees: CallTree,
}

/// The sandwich of `function` in the selection (empty trees when it has no call).
pub fn sandwich(
    trace: &Trace,
    sel: &Selection,
    source: Source,
    function: &Function,
    max_nodes: usize,
) -> Sandwich {
    if source == Source::Slices {
        let (callers, callees) = slice_tree::sandwich(trace, sel, function.name, max_nodes);
        return Sandwich {
            function: *function,
            callers,
            callees,
        };
    }
    let (td, funcs) = top_down(trace, sel);
    let (mut callers, mut callees) = (Builder::default(), Builder::default());
    if let Some(f) = funcs.find(function) {
        // Nodes of the top-down tree mapped into the callees tree: the outermost
        // calls of `f` map to its root, their descendants below it.
        let mut into = vec![NONE; td.len()];
        for k in 0..td.len() {
            let p = td.parent[k];
            let mapped_parent = if p == NONE { NONE } else { into[p as usize] };
            if mapped_parent != NONE {
                into[k] = callees.child(mapped_parent, td.func[k]);
            } else if td.func[k] == f {
                into[k] = callees.child(NONE, f);
                // A caller counts the samples under the call.
                add_callers(&td, k, td.total_n[k], &mut callers);
            } else {
                continue;
            }
            let j = into[k] as usize;
            callees.self_ns[j] = callees.self_ns[j].saturating_add(td.self_ns[k]);
            callees.self_n[j] += td.self_n[k];
        }
        callees.sum_totals();
    }
    let tree = |b: &Builder, view: TreeView| {
        let (samples, total_ns) = root_totals(b);
        let (nodes, truncated) =
            super::call_tree::emit(trace, b, &funcs.list, view, max_nodes, None);
        CallTree {
            view,
            samples,
            total_ns,
            nodes,
            truncated,
        }
    };
    Sandwich {
        function: *function,
        callers: tree(&callers, TreeView::BottomUp),
        callees: tree(&callees, TreeView::TopDown),
    }
}

/// Adds the reversed stack of top-down node `k` (an outermost call) to the callers
/// tree: every node on it weighs the call's total and counts `n`; the outermost
/// caller also takes them as its own (it is where that stack ends).
fn add_callers(td: &Builder, k: usize, n: u64, callers: &mut Builder) {
    let mut node = NONE;
    let mut cur = k as u32;
    while cur != NONE {
        node = callers.child(node, td.func[cur as usize]);
        let j = node as usize;
        callers.total_ns[j] = callers.total_ns[j].saturating_add(td.total_ns[k]);
        callers.total_n[j] += n;
        cur = td.parent[cur as usize];
    }
    let j = node as usize;
    callers.self_ns[j] = callers.self_ns[j].saturating_add(td.total_ns[k]);
    callers.self_n[j] += n;
}
