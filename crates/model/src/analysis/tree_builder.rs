//! The mutable call tree the CPU-sample aggregates are built in: nodes keyed by
//! (parent, function), with self time and counts; and the inversion into a
//! bottom-up tree. (Slices, far more varied, build theirs lazily: `slice_tree`.)

use rustc_hash::FxHashMap;

use super::call_tree::Function;
use crate::trace::Trace;

/// No node (the builders' own node indexes).
pub(super) const NONE: u32 = u32::MAX;

/// A tree while it is built. Nodes are created parents first, so a node's index is
/// always above its parent's (totals are summed in one backward pass).
#[derive(Default)]
pub(super) struct Builder {
    pub parent: Vec<u32>,
    pub func: Vec<u32>,
    pub depth: Vec<u32>,
    pub self_ns: Vec<i64>,
    pub total_ns: Vec<i64>,
    /// Samples (or slices) whose leaf is this node, and in its subtree.
    pub self_n: Vec<u64>,
    pub total_n: Vec<u64>,
    index: FxHashMap<(u32, u32), u32>,
}

impl Builder {
    /// The child of `parent` (`NONE`: a root) for `func`, created if new.
    pub fn child(&mut self, parent: u32, func: u32) -> u32 {
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

    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Totals from self values: each node's own plus its subtree's.
    pub fn sum_totals(&mut self) {
        for k in 0..self.len() {
            self.total_ns[k] = self.self_ns[k];
            self.total_n[k] = self.self_n[k];
        }
        for k in (0..self.len()).rev() {
            let p = self.parent[k];
            if p != NONE {
                self.total_ns[p as usize] =
                    self.total_ns[p as usize].saturating_add(self.total_ns[k]);
                self.total_n[p as usize] += self.total_n[k];
            }
        }
    }

    /// Whether node `k` has an ancestor calling the same function.
    pub fn is_recursive(&self, k: usize) -> bool {
        let f = self.func[k];
        let mut cur = self.parent[k];
        while cur != NONE {
            if self.func[cur as usize] == f {
                return true;
            }
            cur = self.parent[cur as usize];
        }
        false
    }
}

/// Inverts a top-down tree: every node's reversed path (itself, its callers up to
/// the root) gets the node's self time; its total counts once, from the outermost
/// call of a recursive function only.
pub(super) fn bottom_up(td: &Builder) -> Builder {
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

/// Functions interned per question: ids into `list`.
#[derive(Default)]
pub(super) struct Functions {
    pub list: Vec<Function>,
    index: FxHashMap<Function, u32>,
}

impl Functions {
    pub fn intern(&mut self, f: Function) -> u32 {
        *self.index.entry(f).or_insert_with(|| {
            self.list.push(f);
            self.list.len() as u32 - 1
        })
    }

    /// The function of CPU-profile frame `frame`.
    pub fn of_frame(&mut self, trace: &Trace, frame: usize) -> u32 {
        let fr = &trace.tables.frames[frame];
        self.intern(Function {
            name: fr.name,
            url: fr.url,
            line: fr.line,
            column: fr.column,
        })
    }

    pub fn find(&self, f: &Function) -> Option<u32> {
        self.index.get(f).copied()
    }
}
