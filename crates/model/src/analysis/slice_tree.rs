//! The top-down tree of thread slices: a slice's stack is its chain of parents, its
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

use std::ops::Range;

use rayon::prelude::*;

use super::slice_stats::select_rows;
use super::tree_builder::{Builder, Functions};
use super::Selection;
use crate::strings::StrId;
use crate::tables::{SliceTable, NONE};
use crate::trace::Trace;

/// Rows per piece of work: big threads are cut so both cores share them.
const CHUNK: usize = 1 << 17;

/// The top-down tree of the selected slices, function ids interned in `funcs`.
pub(super) fn top_down(trace: &Trace, sel: &Selection, funcs: &mut Functions) -> Builder {
    let s = &trace.tables.slices;
    let rows = select_rows(trace, sel);
    let mut pieces: Vec<Piece> = Vec::new();
    if !rows.singles.is_empty() {
        pieces.push(Piece::Rows(&rows.singles));
    }
    for r in &rows.runs {
        let mut a = r.start;
        while a < r.end {
            let b = (a + CHUNK).min(r.end);
            pieces.push(Piece::Run(a..b));
            a = b;
        }
    }
    let (t0, t1) = (sel.t0, sel.t1);
    let mut b = pieces
        .into_par_iter()
        .map(|p| match p {
            Piece::Rows(list) => piece_tree(s, list.iter().map(|&i| i as usize), t0, t1),
            Piece::Run(r) => piece_tree(s, r, t0, t1),
        })
        .reduce(Builder::default, |mut a, b| {
            // The bigger tree takes the smaller one in.
            if a.len() < b.len() {
                let mut b = b;
                b.merge(&a);
                return b;
            }
            a.merge(&b);
            a
        });
    b.map_funcs(|name| funcs.of_name(StrId(name)));
    b.sum_totals();
    b
}

enum Piece<'r> {
    /// Single rows (the slices still running at the range's start), by row.
    Rows(&'r [u32]),
    Run(Range<usize>),
}

/// The tree of some rows given in row order (each slice after its parent): function
/// ids are name ids. Self times only; totals are summed later.
fn piece_tree(s: &SliceTable, rows: impl Iterator<Item = usize>, t0: i64, t1: i64) -> Builder {
    let clip = |i: usize| s.end(i).min(t1).saturating_sub(s.ts[i].max(t0)).max(0);
    let crossing = |i: usize| s.ts[i] < t0 || s.end(i) > t1;
    let mut b = Builder::default();
    // The open slices: (row, node), outermost first.
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for i in rows {
        let p = s.parent[i];
        while stack.last().is_some_and(|&(r, _)| r != p) {
            stack.pop();
        }
        if p != NONE && stack.is_empty() {
            push_ancestors(s, &mut b, &mut stack, p);
        }
        let parent_node = stack.last().map_or(NONE, |e| e.1);
        let node = b.child(parent_node, s.name[i].0);
        let k = node as usize;
        // A slice inside the range has its children inside too: the model's self
        // time is the answer. One crossing an end counts its clipped part, and each
        // child takes its own clipped part off it.
        let own = if crossing(i) { clip(i) } else { s.self_ns[i] };
        b.self_ns[k] = b.self_ns[k].saturating_add(own);
        b.self_n[k] += 1;
        if p != NONE && crossing(p as usize) {
            let q = parent_node as usize;
            b.self_ns[q] = b.self_ns[q].saturating_sub(clip(i));
        }
        stack.push((i as u32, node));
    }
    b
}

/// Puts the chain of `p` (itself and its ancestors, root first) on the stack, as
/// nodes of their own: their slices are counted by the piece that holds them.
fn push_ancestors(s: &SliceTable, b: &mut Builder, stack: &mut Vec<(u32, u32)>, p: u32) {
    let mut chain = Vec::new();
    let mut cur = p;
    // Parents are earlier rows: a chain is never longer than the table.
    while cur != NONE && chain.len() <= s.len() {
        chain.push(cur);
        cur = s.parent[cur as usize];
    }
    let mut node = NONE;
    for &r in chain.iter().rev() {
        node = b.child(node, s.name[r as usize].0);
        stack.push((r, node));
    }
}
