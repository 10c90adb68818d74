//! Call trees, bottom-up trees and sandwiches built from thread slices, with every
//! number worked out by hand from the nestings below (times in µs).

mod common;

use common::load;
use tracescope_model::analysis::{
    functions, sandwich, tree, CallTree, Function, Selection, Source, TreeNode, TreeQuery, TreeView,
};
use tracescope_model::query::search::Pattern;
use tracescope_model::query::TrackRef;
use tracescope_model::tables::ThreadId;
use tracescope_model::{Lane, Trace};

const US: i64 = 1000;

/// Thread 1/1: A[0,100) > {B[10,40) > C[15,25), B[50,70), C[75,95)}; A[200,250) >
/// C[210,220). Thread 1/2: A[0,50) > B[0,50) (same span: the first written is outside).
const NESTED: &str = r#"[
{"ph":"X","pid":1,"tid":1,"name":"A","ts":0,"dur":100},
{"ph":"X","pid":1,"tid":1,"name":"B","ts":10,"dur":30},
{"ph":"X","pid":1,"tid":1,"name":"C","ts":15,"dur":10},
{"ph":"X","pid":1,"tid":1,"name":"B","ts":50,"dur":20},
{"ph":"X","pid":1,"tid":1,"name":"C","ts":75,"dur":20},
{"ph":"X","pid":1,"tid":1,"name":"A","ts":200,"dur":50},
{"ph":"X","pid":1,"tid":1,"name":"C","ts":210,"dur":10},
{"ph":"X","pid":1,"tid":2,"name":"A","ts":0,"dur":50},
{"ph":"X","pid":1,"tid":2,"name":"B","ts":0,"dur":50}
]"#;

/// The tree as lines `<indent>name total/self xcount` (µs; the count of slices at
/// the node), in the answer's order.
fn lines(t: &Trace, tree: &CallTree) -> Vec<String> {
    lines_with(t, tree, |n| n.self_samples)
}

/// A callers tree: the count is the calls through each node.
fn caller_lines(t: &Trace, tree: &CallTree) -> Vec<String> {
    lines_with(t, tree, |n| n.total_samples)
}

fn lines_with(t: &Trace, tree: &CallTree, count: impl Fn(&TreeNode) -> u64) -> Vec<String> {
    tree.nodes
        .iter()
        .map(|n| {
            format!(
                "{}{} {}/{} x{}",
                "  ".repeat(n.depth as usize),
                t.name(n.function.name),
                n.total_ns / US,
                n.self_ns / US,
                count(n)
            )
        })
        .collect()
}

fn slices(view: TreeView) -> TreeQuery<'static> {
    TreeQuery {
        source: Source::Slices,
        view,
        max_nodes: 1000,
        filter: None,
    }
}

/// The slice tracks of these threads (by tid).
fn threads(t: &Trace, tids: &[i64]) -> Option<Vec<TrackRef>> {
    let th = &t.tables.threads;
    Some(
        (0..th.len())
            .filter(|&k| {
                tids.iter()
                    .any(|&tid| t.pid_text(th[k].tid) == tid.to_string())
            })
            .map(|k| TrackRef::Slices {
                thread: ThreadId::at(k),
                lane: Lane::Stack,
            })
            .collect(),
    )
}

#[test]
fn top_down_of_one_thread_sums_slices_per_stack() {
    let t = load(NESTED);
    let sel = Selection {
        tracks: threads(&t, &[1]),
        ..Selection::all()
    };
    let tr = tree(&t, &sel, &slices(TreeView::TopDown));
    // A: 100 + 50 in all; its own time is 100 - 30 - 20 - 20 plus 50 - 10.
    assert_eq!(
        lines(&t, &tr),
        [
            "A 150/70 x2",
            "  B 50/40 x2",
            "    C 10/10 x1",
            "  C 30/30 x2",
        ]
    );
    assert_eq!(
        (tr.samples, tr.total_ns, tr.truncated),
        (7, 150 * US, false)
    );
}

#[test]
fn several_threads_merge_into_one_tree() {
    let t = load(NESTED);
    let tr = tree(&t, &Selection::all(), &slices(TreeView::TopDown));
    // Thread 2 adds A 50 (self 0) > B 50 (self 50).
    assert_eq!(
        lines(&t, &tr),
        [
            "A 200/70 x3",
            "  B 100/90 x3",
            "    C 10/10 x1",
            "  C 30/30 x2",
        ]
    );
    assert_eq!(tr.total_ns, 200 * US);
}

#[test]
fn bottom_up_lists_functions_by_self_time_with_their_callers() {
    let t = load(NESTED);
    let sel = Selection {
        tracks: threads(&t, &[1]),
        ..Selection::all()
    };
    let tr = tree(&t, &sel, &slices(TreeView::BottomUp));
    // B and C both have 40 of self time: the larger total (B's 50) first.
    assert_eq!(
        lines(&t, &tr),
        [
            "A 150/70 x2",
            "B 50/40 x2",
            "  A 50/40 x2",
            "C 40/40 x3",
            "  A 30/30 x2",
            "  B 10/10 x1",
            "    A 10/10 x1",
        ]
    );
}

#[test]
fn a_range_counts_the_part_of_each_slice_inside_it() {
    let t = load(NESTED);
    let sel = Selection {
        tracks: threads(&t, &[1]),
        ..Selection::range(20 * US, 80 * US)
    };
    let tr = tree(&t, &sel, &slices(TreeView::TopDown));
    // In [20, 80): A 60, minus B 20 (of [10,40)), B 20 ([50,70)), C 5 ([75,95)):
    // self 15; the first B has 20 less C's 5 ([15,25) clipped): self 15.
    assert_eq!(
        lines(&t, &tr),
        ["A 60/15 x1", "  B 40/35 x2", "    C 5/5 x1", "  C 5/5 x1",]
    );
    assert_eq!(tr.total_ns, 60 * US);
    // A range inside one slice: all of it is that slice's (its child is outside).
    let sel = Selection {
        tracks: threads(&t, &[1]),
        ..Selection::range(41 * US, 49 * US)
    };
    let tr = tree(&t, &sel, &slices(TreeView::TopDown));
    assert_eq!(lines(&t, &tr), ["A 8/8 x1"]);
}

#[test]
fn overlapping_and_unfinished_slices() {
    // B starts inside A and ends after it: an overlap row, a root of its own. L
    // never ends: it lasts to the thread's last end (K's, 60), K inside it.
    let t = load(
        r#"[
{"ph":"X","pid":1,"tid":1,"name":"A","ts":0,"dur":100},
{"ph":"X","pid":1,"tid":1,"name":"B","ts":50,"dur":100},
{"ph":"B","pid":1,"tid":2,"name":"L","ts":0},
{"ph":"X","pid":1,"tid":2,"name":"K","ts":10,"dur":50}
]"#,
    );
    let tr = tree(&t, &Selection::all(), &slices(TreeView::TopDown));
    assert_eq!(
        lines(&t, &tr),
        ["A 100/100 x1", "B 100/100 x1", "L 60/10 x1", "  K 50/50 x1"]
    );
    assert_eq!(tr.total_ns, 260 * US);
}

#[test]
fn recursion_makes_nodes_per_depth_and_counts_once_in_totals() {
    // A[0,100) > A[10,50) > B[20,30).
    let t = load(
        r#"[
{"ph":"X","pid":1,"tid":1,"name":"A","ts":0,"dur":100},
{"ph":"X","pid":1,"tid":1,"name":"A","ts":10,"dur":40},
{"ph":"X","pid":1,"tid":1,"name":"B","ts":20,"dur":10}
]"#,
    );
    let all = Selection::all();
    assert_eq!(
        lines(&t, &tree(&t, &all, &slices(TreeView::TopDown))),
        ["A 100/60 x1", "  A 40/30 x1", "    B 10/10 x1"]
    );
    // Bottom-up: A's self is 60 + 30, its total only the outermost call's 100.
    assert_eq!(
        lines(&t, &tree(&t, &all, &slices(TreeView::BottomUp))),
        [
            "A 100/90 x2",
            "  A 30/30 x1",
            "B 10/10 x1",
            "  A 10/10 x1",
            "    A 10/10 x1"
        ]
    );
    let table = functions(&t, &all, Source::Slices);
    assert_eq!((table.samples, table.total_ns), (3, 100 * US));
    let f: Vec<_> = table
        .functions
        .iter()
        .map(|f| {
            (
                t.name(f.function.name).to_string(),
                f.total_ns / US,
                f.self_ns / US,
                f.self_samples,
            )
        })
        .collect();
    assert_eq!(f, [("A".into(), 100, 90, 2), ("B".into(), 10, 10, 1)]);
    let a = Function::named(t.tables.strings.find("A").unwrap());
    let s = sandwich(&t, &all, Source::Slices, &a, 100);
    assert_eq!(
        lines(&t, &s.callees),
        ["A 100/60 x1", "  A 40/30 x1", "    B 10/10 x1"]
    );
    assert_eq!(caller_lines(&t, &s.callers), ["A 100/100 x1"]);
}

#[test]
fn sandwich_of_a_function_called_from_two_places() {
    let t = load(NESTED);
    let sel = Selection {
        tracks: threads(&t, &[1]),
        ..Selection::all()
    };
    let c = Function::named(t.tables.strings.find("C").unwrap());
    let s = sandwich(&t, &sel, Source::Slices, &c, 100);
    // C under A directly (30) and under A > B (10); the caller at the end of each
    // stack holds its time as self.
    assert_eq!(
        caller_lines(&t, &s.callers),
        ["C 40/0 x3", "  A 30/30 x2", "  B 10/0 x1", "    A 10/10 x1"]
    );
    assert_eq!(lines(&t, &s.callees), ["C 40/40 x3"]);
    let b = Function::named(t.tables.strings.find("B").unwrap());
    let s = sandwich(&t, &sel, Source::Slices, &b, 100);
    assert_eq!(caller_lines(&t, &s.callers), ["B 50/0 x2", "  A 50/50 x2"]);
    assert_eq!(lines(&t, &s.callees), ["B 50/40 x2", "  C 10/10 x1"]);
    // A function without calls: empty trees.
    let none = Function::named(t.tables.strings.find("").unwrap());
    let s = sandwich(&t, &sel, Source::Slices, &none, 100);
    assert!(s.callers.nodes.is_empty() && s.callees.nodes.is_empty());
}

#[test]
fn a_filter_keeps_the_matches_their_ancestors_and_descendants() {
    let t = load(NESTED);
    let sel = Selection {
        tracks: threads(&t, &[1]),
        ..Selection::all()
    };
    let pat = Pattern::new("b", false).unwrap();
    let q = TreeQuery {
        filter: Some(&pat),
        ..slices(TreeView::TopDown)
    };
    assert_eq!(
        lines(&t, &tree(&t, &sel, &q)),
        ["A 150/70 x2", "  B 50/40 x2", "    C 10/10 x1"]
    );
}

#[test]
fn big_trees_keep_the_heaviest_nodes_and_say_so() {
    let t = load(NESTED);
    let q = TreeQuery {
        max_nodes: 2,
        ..slices(TreeView::TopDown)
    };
    let tr = tree(&t, &Selection::all(), &q);
    assert_eq!(lines(&t, &tr), ["A 200/70 x3", "  B 100/90 x3"]);
    assert!(tr.truncated);
}

mod against_a_reference {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;

    /// Per stack of names: (total, self, count), computed slice by slice from the
    /// model's parents, the simple way.
    fn reference(t: &Trace, t0: i64, t1: i64) -> BTreeMap<Vec<String>, (i64, i64, u64)> {
        let s = &t.tables.slices;
        let overlaps = |i: usize| {
            if s.dur(i) == 0 {
                t0 <= s.ts(i) && s.ts(i) < t1
            } else {
                s.ts(i) < t1 && s.end(i) > t0
            }
        };
        let clip = |i: usize| (s.end(i).min(t1) - s.ts(i).max(t0)).max(0);
        let mut kids = vec![0i64; s.len()];
        for j in 0..s.len() {
            if let Some(p) = s.parent[j].filter(|_| overlaps(j)) {
                kids[p.index()] += clip(j);
            }
        }
        let mut out = BTreeMap::new();
        for i in (0..s.len()).filter(|&i| overlaps(i)) {
            let mut path = Vec::new();
            let mut cur = Some(i);
            while let Some(c) = cur {
                path.push(t.name(s.name[c]).to_string());
                cur = s.parent[c].map(|p| p.index());
            }
            path.reverse();
            let e = out.entry(path).or_insert((0, 0, 0));
            e.0 += clip(i);
            e.1 += clip(i) - kids[i];
            e.2 += 1;
        }
        out
    }

    fn flatten(t: &Trace, tree: &CallTree) -> BTreeMap<Vec<String>, (i64, i64, u64)> {
        let mut paths: Vec<Vec<String>> = Vec::new();
        let mut out = BTreeMap::new();
        for n in &tree.nodes {
            let mut p = n
                .parent
                .map_or_else(Vec::new, |k| paths[k as usize].clone());
            p.push(t.name(n.function.name).to_string());
            out.insert(p.clone(), (n.total_ns, n.self_ns, n.self_samples));
            paths.push(p);
        }
        out
    }

    /// Per inverted stack of names (a slice, its caller, ...): (total, self,
    /// count) over every slice whose inverted stack starts with it. Self time
    /// counts everywhere, total only from the outermost call of a recursive name;
    /// a node's total is never below its self time.
    fn bottom_up_reference(t: &Trace, t0: i64, t1: i64) -> BTreeMap<Vec<String>, (i64, i64, u64)> {
        let mut out = BTreeMap::new();
        for (top_down, (total, own, count)) in reference(t, t0, t1) {
            // Every slice of a top-down stack has the same inverted one.
            let outer = !top_down[..top_down.len() - 1].contains(top_down.last().unwrap());
            let inverted: Vec<String> = top_down.iter().rev().cloned().collect();
            for k in 1..=inverted.len() {
                let e = out.entry(inverted[..k].to_vec()).or_insert((0, 0, 0));
                e.0 += if outer { total } else { 0 };
                e.1 += own;
                e.2 += count;
            }
        }
        out.into_iter()
            .map(|(path, (total, own, count))| (path, (total.max(own), own, count)))
            .collect()
    }

    fn check(t: &Trace, t0: i64, t1: i64) {
        let q = |view| TreeQuery {
            max_nodes: usize::MAX,
            ..slices(view)
        };
        let sel = Selection::range(t0, t1);
        let got = flatten(t, &tree(t, &sel, &q(TreeView::TopDown)));
        assert_eq!(got, reference(t, t0, t1), "range {t0}..{t1}");
        let all = flatten(t, &tree(t, &sel, &q(TreeView::BottomUp)));
        assert_eq!(
            all,
            bottom_up_reference(t, t0, t1),
            "bottom-up, range {t0}..{t1}"
        );
        // Cut short, a bottom-up tree keeps its heaviest nodes, with the same numbers.
        for max in [1, 3, 7] {
            let q = TreeQuery {
                max_nodes: max,
                ..slices(TreeView::BottomUp)
            };
            let cut = tree(t, &sel, &q);
            let got = flatten(t, &cut);
            assert_eq!(got.len(), max.min(all.len()));
            assert_eq!(cut.truncated, all.len() > max);
            let lightest = got.values().map(|v| v.0).min().unwrap_or(i64::MAX);
            for (path, v) in &all {
                match got.get(path) {
                    Some(g) => assert_eq!(g, v, "{path:?}"),
                    None => assert!(v.0 <= lightest, "{path:?} {v:?} left out"),
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Random slices (nested, overlapping, zero-length, unfinished) on two
        /// threads, random ranges.
        #[test]
        fn trees_match_the_reference(
            slices in prop::collection::vec((1u8..3, 0i64..60, prop::option::of(0i64..40), 0u8..4), 1..40),
            a in 0i64..70, len in 1i64..70,
        ) {
            let events: Vec<String> = slices
                .iter()
                .map(|(tid, ts, dur, name)| match dur {
                    Some(d) => format!(r#"{{"ph":"X","pid":1,"tid":{tid},"name":"n{name}","ts":{ts},"dur":{d}}}"#),
                    None => format!(r#"{{"ph":"B","pid":1,"tid":{tid},"name":"n{name}","ts":{ts}}}"#),
                })
                .collect();
            let t = load(&format!("[{}]", events.join(",")));
            check(&t, i64::MIN, i64::MAX);
            check(&t, a * US, (a + len) * US);
        }
    }

    /// Slices of thread 1: `tops` slices 100 µs apart (90 µs long), each over
    /// `kids` children `gap` µs apart and `dur` long, named by `top` and `kid`.
    fn nested(
        tops: i64,
        top: impl Fn(i64) -> String,
        (kids, gap, dur): (i64, i64, i64),
        kid: impl Fn(i64, i64) -> String,
    ) -> Vec<String> {
        let event = |name: String, ts: i64, dur: i64| {
            format!(r#"{{"ph":"X","pid":1,"tid":1,"name":"{name}","ts":{ts},"dur":{dur}}}"#)
        };
        let mut ev = Vec::new();
        for k in 0..tops {
            let base = k * 100;
            ev.push(event(top(k), base, 90));
            for c in 0..kids {
                ev.push(event(kid(k, c), base + 5 + c * gap, dur));
            }
        }
        ev
    }

    /// One thread of 300,000 slices, cut into pieces of work: stacks that span a
    /// cut are rebuilt from the parents, and count once.
    #[test]
    fn big_threads_cut_into_pieces_give_the_same_tree() {
        let mut ev = nested(
            60_000,
            |k| format!("top{}", k % 3),
            (4, 20, 15),
            |k, c| format!("c{}", (k + c) % 5),
        );
        // One long slice over everything, so every piece starts deep in a stack.
        ev.push(r#"{"ph":"X","pid":1,"tid":1,"name":"main","ts":0,"dur":6000000}"#.into());
        let t = load(&format!("[{}]", ev.join(",")));
        assert_eq!(t.tables.slices.len(), 300_001);
        check(&t, i64::MIN, i64::MAX);
        check(&t, 1_234_567 * US / 1000, 4_567_890 * US);
    }

    /// Stacks that nearly all differ within a piece of work (each node then has
    /// one slice there) but repeat across pieces: the pieces' nodes of one key,
    /// made apart, are summed once.
    #[test]
    fn varied_stacks_repeating_across_pieces_give_the_same_tree() {
        let ev = nested(
            45_000,
            |k| format!("r{}", k % 30_000),
            (2, 40, 30),
            |k, c| format!("m{}", (2 * k + c) % 50_000),
        );
        let t = load(&format!("[{}]", ev.join(",")));
        assert_eq!(t.tables.slices.len(), 135_000);
        check(&t, i64::MIN, i64::MAX);
        check(&t, 1_000_050 * US / 1000, 3_500_000 * US / 1000);
    }
}

mod summary {
    use regex::Regex;
    use tracescope_model::analysis::{summarize, GroupBy, SliceFilter, SummaryQuery};

    use super::*;

    /// Thread 1: S[0,100) > s[10,20); S[50,150) overlapping it (an overlap row); a
    /// ui-nest operation U[140,200) on its second lane. Thread 2: S[0,10).
    const BUSY: &str = r#"[
{"ph":"X","pid":1,"tid":1,"name":"S","ts":0,"dur":100},
{"ph":"X","pid":1,"tid":1,"name":"s","ts":10,"dur":10},
{"ph":"X","pid":1,"tid":1,"name":"S","ts":50,"dur":100},
{"ph":"B","pid":1,"tid":1,"name":"U","ts":140,"args":{"ui-nest":1}},
{"ph":"E","pid":1,"tid":1,"name":"U","ts":200},
{"ph":"X","pid":1,"tid":2,"name":"S","ts":0,"dur":10}
]"#;

    fn busy(t: &Trace, sel: &Selection, by: GroupBy, groups: &[Regex]) -> Vec<(String, i64)> {
        let filter = SliceFilter::default();
        let q = SummaryQuery {
            by,
            filter: &filter,
            groups,
            percentiles_of: 0,
        };
        let sum = summarize(t, sel, &q);
        assert!(sum.percentiles.is_empty());
        sum.stats
            .groups
            .iter()
            .zip(&sum.busy)
            .map(|(g, b)| (sum.stats.label(t, g.key), b / US))
            .collect()
    }

    #[test]
    fn busy_time_is_the_union_per_thread_over_both_lanes() {
        let t = load(BUSY);
        assert_eq!(
            busy(&t, &Selection::all(), GroupBy::Thread, &[]),
            [
                ("Thread 1, Process 1".to_string(), 200),
                ("Thread 2, Process 1".to_string(), 10)
            ]
        );
        // By name: S is [0,150) on thread 1 and [0,10) on thread 2.
        assert_eq!(
            busy(&t, &Selection::all(), GroupBy::Name, &[]),
            [
                ("S".to_string(), 160),
                ("U".to_string(), 60),
                ("s".to_string(), 10)
            ]
        );
        // Clipped to [95, 145): S covers all 50, U its first 5.
        assert_eq!(
            busy(
                &t,
                &Selection::range(95 * US, 145 * US),
                GroupBy::Thread,
                &[]
            ),
            [("Thread 1, Process 1".to_string(), 50)]
        );
        // A pattern gathers S and s (case-sensitive regex: `(?i)` to ignore case).
        assert_eq!(
            busy(
                &t,
                &Selection::all(),
                GroupBy::Name,
                &[Regex::new("(?i)^s$").unwrap()]
            ),
            [("(?i)^s$".to_string(), 160), ("U".to_string(), 60)]
        );
    }
}
