//! The top-down tree of CPU samples: a sample weighs the time until the next
//! sample of its thread; the last sample of a thread weighs as much as the
//! interval before it, a lone sample nothing. Samples with an empty stack belong to
//! no node and are not counted.

use super::tree_builder::NONE;
use super::tree_builder::{Builder, Functions};
use super::Selection;
use crate::tables::FrameId;
use crate::trace::Trace;

/// Self time and samples per frame of the selected samples.
fn frame_weights(trace: &Trace, sel: &Selection) -> (Vec<i64>, Vec<u64>) {
    let s = &trace.tables.samples;
    let nf = trace.tables.frames.len();
    let (mut ns, mut n) = (vec![0i64; nf], vec![0u64; nf]);
    for (th, rows) in s.threads() {
        if !sel.has_samples(th) {
            continue;
        }
        let (lo, hi) = (rows.start, rows.end);
        let a = s.ts_partition_point(lo..hi, |x| x < sel.t0);
        let b = s.ts_partition_point(a..hi, |x| x < sel.t1);
        for i in a..b {
            let Some(f) = s.leaf(i).map(FrameId::index).filter(|&f| f < nf) else {
                continue;
            };
            let w = if i + 1 < hi {
                s.ts(i + 1) - s.ts(i)
            } else if i > lo {
                s.ts(i) - s.ts(i - 1)
            } else {
                0
            };
            ns[f] = ns[f].saturating_add(w);
            n[f] += 1;
        }
    }
    (ns, n)
}

/// The top-down tree of the frames with samples (nodes created parents first).
pub(super) fn top_down(trace: &Trace, sel: &Selection, funcs: &mut Functions) -> Builder {
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
            node = b.child(node, funcs.of_frame(trace, p));
            node_of[p] = node;
        }
        let k = node as usize;
        b.self_ns[k] = b.self_ns[k].saturating_add(ns[f]);
        b.self_n[k] += n[f];
    }
    b.sum_totals();
    b
}
