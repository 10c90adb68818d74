//! Range statistics, counter statistics and call trees, with numbers worked out by
//! hand from the traces below.

mod common;

use common::{load, load_corpus, load_fixture};
use tracescope_model::analysis::{
    call_tree, counter_stats, slice_stats, slices_in_group, CallTree, GroupBy, GroupKey,
    NameFilter, Selection, SliceStats, TreeView,
};
use tracescope_model::query::TrackRef;
use tracescope_model::{Lane, Trace};

/// Thread 1/1: A[0,100) > B[10,40) > C[15,25); A > B[50,70); D[200,250) with E[220,270)
/// overlapping it improperly (an overlap row); F begins at 300 and never ends, with
/// G[400,410) inside, so F lasts until 410. Thread 1/2: A[20,60) > Z (zero length at
/// 30). A counter `mem` 10 @0, 20 @100, 40 @200. Times in µs.
const TRACE: &str = r#"[
{"ph":"X","pid":1,"tid":1,"name":"A","cat":"c","ts":0,"dur":100,"tts":0,"tdur":50},
{"ph":"X","pid":1,"tid":1,"name":"B","cat":"c","ts":10,"dur":30},
{"ph":"X","pid":1,"tid":1,"name":"C","cat":"c","ts":15,"dur":10},
{"ph":"X","pid":1,"tid":1,"name":"B","cat":"c","ts":50,"dur":20},
{"ph":"X","pid":1,"tid":1,"name":"D","cat":"c","ts":200,"dur":50},
{"ph":"X","pid":1,"tid":1,"name":"E","cat":"c","ts":220,"dur":50},
{"ph":"B","pid":1,"tid":1,"name":"F","cat":"c","ts":300},
{"ph":"X","pid":1,"tid":1,"name":"G","cat":"c","ts":400,"dur":10},
{"ph":"X","pid":1,"tid":2,"name":"A","cat":"other","ts":20,"dur":40},
{"ph":"X","pid":1,"tid":2,"name":"Z","cat":"other","ts":30,"dur":0},
{"ph":"C","pid":1,"name":"mem","ts":0,"args":{"v":10}},
{"ph":"C","pid":1,"name":"mem","ts":100,"args":{"v":20}},
{"ph":"C","pid":1,"name":"mem","ts":200,"args":{"v":40}}
]"#;

const US: i64 = 1000;

/// Groups as (key text, count, total, self, in_range) in µs.
fn rows(t: &Trace, st: &SliceStats) -> Vec<(String, u64, i64, i64, i64)> {
    st.groups
        .iter()
        .map(|g| {
            let key = st.label(t, g.key);
            (key, g.count, g.total / US, g.self_ns / US, g.in_range / US)
        })
        .collect()
}

fn range(t0: i64, t1: i64) -> Selection {
    Selection::range(t0 * US, t1 * US)
}

fn r(k: &str, n: u64, total: i64, self_: i64, in_range: i64) -> (String, u64, i64, i64, i64) {
    (k.to_string(), n, total, self_, in_range)
}

#[test]
fn whole_trace_by_name_has_exact_totals_self_times_and_order() {
    let t = load(TRACE);
    let st = slice_stats(&t, &Selection::all(), GroupBy::Name, NameFilter::default());
    assert_eq!(st.slices, 10);
    assert_eq!(
        rows(&t, &st),
        vec![
            r("A", 2, 140, 90, 140),
            r("F", 1, 110, 100, 110),
            r("B", 2, 50, 40, 50),
            r("D", 1, 50, 50, 50),
            r("E", 1, 50, 50, 50),
            r("C", 1, 10, 10, 10),
            r("G", 1, 10, 10, 10),
            r("Z", 1, 0, 0, 0),
        ]
    );
    let a = &st.groups[0];
    assert_eq!((a.min, a.max, a.avg()), (40 * US, 100 * US, 70 * US));
    assert_eq!(a.thread_total, Some(50 * US), "only A on 1/1 has tdur");
    assert_eq!(st.groups[1].did_not_finish, 1);
    assert_eq!(st.groups[2].thread_total, None);
}

#[test]
fn a_range_clips_in_range_time_and_keeps_full_durations() {
    let t = load(TRACE);
    let st = slice_stats(&t, &range(30, 60), GroupBy::Name, NameFilter::default());
    // C ended at 25; Z (zero length at 30) is inside.
    assert_eq!(st.slices, 5);
    assert_eq!(
        rows(&t, &st),
        vec![
            r("A", 2, 140, 90, 60),
            r("B", 2, 50, 40, 20),
            r("Z", 1, 0, 0, 0)
        ]
    );
    let st = slice_stats(&t, &range(31, 60), GroupBy::Name, NameFilter::default());
    assert_eq!(st.slices, 4, "a zero-length slice before t0 is out");
}

#[test]
fn slices_running_at_t0_are_found_through_parents_and_overlap_rows() {
    let t = load(TRACE);
    // Inside D and E: E is on an overlap row, D on the stack.
    let st = slice_stats(&t, &range(230, 240), GroupBy::Name, NameFilter::default());
    assert_eq!(
        rows(&t, &st),
        vec![r("D", 1, 50, 50, 10), r("E", 1, 50, 50, 10)]
    );
    // Inside G, itself inside the unfinished F.
    let st = slice_stats(&t, &range(405, 406), GroupBy::Name, NameFilter::default());
    assert_eq!(
        rows(&t, &st),
        vec![r("F", 1, 110, 100, 1), r("G", 1, 10, 10, 1)]
    );
    // Between slices: nothing.
    let st = slice_stats(&t, &range(280, 290), GroupBy::Name, NameFilter::default());
    assert_eq!(st.slices, 0);
    assert!(st.groups.is_empty());
}

#[test]
fn groups_by_thread_and_category_and_filters_by_name_and_track() {
    let t = load(TRACE);
    let st = slice_stats(
        &t,
        &Selection::all(),
        GroupBy::Thread,
        NameFilter::default(),
    );
    assert_eq!(
        rows(&t, &st),
        vec![
            r("Thread 1, Process 1", 8, 380, 310, 380),
            r("Thread 2, Process 1", 2, 40, 40, 40),
        ]
    );
    let st = slice_stats(
        &t,
        &Selection::all(),
        GroupBy::Category,
        NameFilter::default(),
    );
    assert_eq!(
        rows(&t, &st),
        vec![r("c", 8, 380, 310, 380), r("other", 2, 40, 40, 40)]
    );
    let a = NameFilter(t.tables.strings.find("A"));
    let st = slice_stats(&t, &Selection::all(), GroupBy::Thread, a);
    assert_eq!(
        rows(&t, &st),
        vec![
            r("Thread 1, Process 1", 1, 100, 50, 100),
            r("Thread 2, Process 1", 1, 40, 40, 40)
        ]
    );
    // Only thread 1/2's stack track.
    let th2 = t.tables.slices.thread(t.tables.slices.len() - 1);
    let sel = Selection {
        tracks: Some(vec![TrackRef::Slices {
            thread: th2,
            lane: Lane::Stack,
        }]),
        ..Selection::all()
    };
    let st = slice_stats(&t, &sel, GroupBy::Name, NameFilter::default());
    assert_eq!(
        rows(&t, &st),
        vec![r("A", 1, 40, 40, 40), r("Z", 1, 0, 0, 0)]
    );
}

#[test]
fn a_group_lists_its_slices_in_time_order() {
    let t = load(TRACE);
    let a = t.tables.strings.find("A").unwrap();
    let (ids, total) = slices_in_group(
        &t,
        &Selection::all(),
        GroupBy::Name,
        GroupKey::Str(a),
        NameFilter::default(),
        10,
    );
    assert_eq!(total, 2);
    let ts: Vec<i64> = ids
        .iter()
        .map(|&i| t.tables.slices.ts(i as usize) / US)
        .collect();
    assert_eq!(ts, vec![0, 20]);
    let (ids, total) = slices_in_group(
        &t,
        &Selection::all(),
        GroupBy::Name,
        GroupKey::Str(a),
        NameFilter::default(),
        1,
    );
    assert_eq!((ids.len(), total), (1, 2));
}

#[test]
fn counters_hold_their_value_into_the_range_and_average_over_time() {
    let t = load(TRACE);
    let c = counter_stats(&t, &range(50, 150));
    assert_eq!(c.len(), 1);
    let c = &c[0];
    assert_eq!((c.count, c.min, c.max), (1, 10.0, 20.0));
    assert_eq!((c.first, c.last, c.delta()), (10.0, 20.0, 10.0));
    assert_eq!(c.avg, 15.0);
    let all = &counter_stats(&t, &Selection::all())[0];
    assert_eq!((all.count, all.min, all.max), (3, 10.0, 40.0));
    // Trace ends at 410: 10 for 100, 20 for 100, 40 for 210.
    assert!((all.avg - 11400.0 / 410.0).abs() < 1e-9, "{}", all.avg);
    // A range before the first sample has no value.
    assert!(counter_stats(&t, &Selection::range(-10 * US, 0)).is_empty());
}

/// (depth, name, self µs, total µs, self samples, total samples) per node.
fn tree(t: &Trace, c: &CallTree) -> Vec<(u32, String, i64, i64, u64, u64)> {
    c.nodes
        .iter()
        .map(|n| {
            (
                n.depth,
                t.str(n.function.name).to_string(),
                n.self_ns / US,
                n.total_ns / US,
                n.self_samples,
                n.total_samples,
            )
        })
        .collect()
}

fn node(
    d: u32,
    name: &str,
    s: i64,
    tot: i64,
    sn: u64,
    tn: u64,
) -> (u32, String, i64, i64, u64, u64) {
    (d, name.to_string(), s, tot, sn, tn)
}

#[test]
fn profile_chunks_give_complete_identical_trees() {
    // Samples at 2, 42, ..., 282 µs; each weighs the time to the next sample, the
    // last as much as the one before it: 40 µs each.
    let t = load_fixture("phases/profile-chunks.json");
    let td = call_tree(&t, &Selection::all(), TreeView::TopDown, 1000);
    assert_eq!(
        (td.samples, td.total_ns / US, td.truncated),
        (8, 320, false)
    );
    assert_eq!(
        tree(&t, &td),
        vec![
            node(0, "(root)", 80, 320, 2, 8),
            node(1, "start", 120, 240, 3, 6),
            node(2, "compute", 120, 120, 3, 3),
        ]
    );
    let bu = call_tree(&t, &Selection::all(), TreeView::BottomUp, 1000);
    assert_eq!(
        tree(&t, &bu),
        vec![
            node(0, "start", 120, 240, 3, 6),
            node(1, "(root)", 120, 240, 3, 6),
            node(0, "compute", 120, 120, 3, 3),
            node(1, "start", 120, 120, 3, 3),
            node(2, "(root)", 120, 120, 3, 3),
            node(0, "(root)", 80, 320, 2, 8),
        ]
    );
    let f = &td.nodes[2].function;
    assert_eq!(
        (t.str(f.url), f.line, f.column),
        ("file:///srv/app.js", Some(20), Some(8))
    );

    // The nodes come in a chunk of their own; 7 samples 30 µs apart from 10 µs.
    let t = load_fixture("phases/profile-chunks-streamed.json");
    let td = call_tree(&t, &Selection::all(), TreeView::TopDown, 1000);
    assert_eq!(
        tree(&t, &td),
        vec![
            node(0, "(root)", 60, 210, 2, 7),
            node(1, "serve", 60, 150, 2, 5),
            node(2, "render", 90, 90, 3, 3),
        ]
    );
    // A range keeps only its samples: [100, 161) holds 100, 130 and 160 µs.
    let td = call_tree(&t, &range(100, 161), TreeView::TopDown, 1000);
    assert_eq!(td.samples, 3);
}

/// Corpus tier: the same on the format guide's two ProfileChunk examples.
#[test]
fn seed_profile_chunks_give_complete_identical_trees() {
    let what = "call trees of the guide's profile examples";
    let Some(t) = load_corpus("examples/seed-guide/06-profile-chunks-simple.json", what) else {
        return;
    };
    let td = call_tree(&t, &Selection::all(), TreeView::TopDown, 1000);
    assert_eq!(
        (td.samples, td.total_ns / US, td.truncated),
        (14, 900, false)
    );
    assert_eq!(
        tree(&t, &td),
        vec![
            node(0, "(root)", 250, 900, 3, 14),
            node(1, "runMainESM", 350, 650, 5, 11),
            node(2, "main-work", 300, 300, 6, 6),
        ]
    );
    let Some(t) = load_corpus("examples/seed-guide/07-profile-chunks-streamed.json", what) else {
        return;
    };
    let td = call_tree(&t, &Selection::all(), TreeView::TopDown, 1000);
    assert_eq!(
        tree(&t, &td),
        vec![
            node(0, "(root)", 150, 600, 2, 10),
            node(1, "runMainESM", 250, 450, 4, 8),
            node(2, "main-work", 200, 200, 4, 4),
        ]
    );
    assert_eq!(
        call_tree(&t, &range(301, 451), TreeView::TopDown, 1000).samples,
        4
    );
}

/// (depth, name, total µs, total samples) per node.
fn totals(t: &Trace, c: &CallTree) -> Vec<(u32, String, i64, u64)> {
    tree(t, c)
        .into_iter()
        .map(|(d, n, _, tot, _, tn)| (d, n.chars().take(9).collect(), tot, tn))
        .collect()
}

#[test]
fn stack_frame_samples_make_a_tree_with_weights_from_their_times() {
    // Hermes writes tids, times and weights as strings. Samples at 2000, 2010, 2030
    // and 2035 µs weigh 10, 20, 5 and (the last, as the one before) 5 µs.
    let t = load_fixture("phases/samples-numeric-strings.json");
    let want = [("[root]", 40, 4), ("handler", 35, 3), ("parse", 20, 1)];
    sample_tree_is(&t, &[0, 1, 2], &want, 5, ("js", 2000));
}

/// Corpus tier: the same on speedscope's Hermes trace.
#[test]
fn hermes_samples_make_a_tree_with_weights_from_their_times() {
    let Some(t) = load_corpus(
        "corpus/speedscope/trace-event/simple-with-samples.json",
        "the call tree of a real Hermes trace",
    ) else {
        return;
    };
    let want = [
        ("[root]", 74710, 7),
        ("[GC Young", 20000, 2),
        ("function1", 13326, 1),
        ("function2", 10605, 1),
        ("function3", 10605, 1),
    ];
    sample_tree_is(
        &t,
        &[0, 1, 1, 1, 2],
        &want,
        30779,
        ("mqt_js", 11_552_125_241),
    );
}

/// The top-down tree of a trace's samples: each node's depth, name (its first 9
/// characters), total µs and samples; the root's self µs; the first sample's thread
/// name and time in µs (regression: string tids and numeric-string times read as 0).
fn sample_tree_is(
    t: &Trace,
    depths: &[u32],
    want: &[(&str, i64, u64)],
    root_self_us: i64,
    (thread, first_us): (&str, i64),
) {
    let td = call_tree(t, &Selection::all(), TreeView::TopDown, 1000);
    let want: Vec<(u32, String, i64, u64)> = depths
        .iter()
        .zip(want)
        .map(|(&d, &(n, tot, tn))| (d, n.to_string(), tot, tn))
        .collect();
    assert_eq!(totals(t, &td), want);
    assert_eq!(td.nodes[0].self_ns / US, root_self_us);
    let th = t.tables.samples.thread(0).index();
    assert_eq!(t.str(t.tables.threads[th].name), thread);
    assert_eq!(t.tables.samples.ts(0), first_us * US);
}

#[test]
fn a_cpuprofile_tree_accounts_for_every_sample() {
    let t = load_fixture("file/node.cpuprofile");
    accounts_for_every_sample(&t, 2);
    // main's self is its one sample, fib's its three: 100 µs each.
    let td = call_tree(&t, &Selection::all(), TreeView::TopDown, usize::MAX);
    assert_eq!(
        tree(&t, &td),
        vec![
            node(0, "(root)", 0, 500, 0, 5),
            node(1, "main", 100, 400, 1, 4),
            node(2, "fib", 300, 300, 3, 3),
            node(1, "(garbage collector)", 100, 100, 1, 1),
        ]
    );
}

/// Corpus tier: the same accounting on a real Node profile.
#[test]
fn a_real_cpuprofile_tree_accounts_for_every_sample() {
    if let Some(t) = load_corpus(
        "corpus/speedscope/node/10.11.0/example.cpuprofile",
        "the call tree of a real Node .cpuprofile",
    ) {
        accounts_for_every_sample(&t, 5);
    }
}

/// Every sample is in the tree once; totals add up; a tree cut to `cut` nodes keeps
/// the heaviest and their parents.
fn accounts_for_every_sample(t: &Trace, cut: usize) {
    let td = call_tree(t, &Selection::all(), TreeView::TopDown, usize::MAX);
    let samples = &t.tables.samples;
    let with_stack = samples
        .leaves(0..samples.len())
        .filter(|f| f.is_some())
        .count() as u64;
    assert_eq!(td.samples, with_stack);
    let roots: u64 = td
        .nodes
        .iter()
        .filter(|n| n.parent.is_none())
        .map(|n| n.total_samples)
        .sum();
    let selfs: u64 = td.nodes.iter().map(|n| n.self_samples).sum();
    assert_eq!((roots, selfs), (with_stack, with_stack));
    // Every node's total is its self plus its children's totals.
    for (i, n) in td.nodes.iter().enumerate() {
        let kids: i64 = td
            .nodes
            .iter()
            .filter(|c| c.parent == Some(i as u32))
            .map(|c| c.total_ns)
            .sum();
        assert_eq!(n.total_ns, n.self_ns + kids, "node {i}");
    }
    // The bottom-up roots' self times add up to the same total.
    let bu = call_tree(t, &Selection::all(), TreeView::BottomUp, usize::MAX);
    let bu_self: i64 = bu
        .nodes
        .iter()
        .filter(|n| n.parent.is_none())
        .map(|n| n.self_ns)
        .sum();
    assert_eq!(bu_self, td.total_ns);
    let short = call_tree(t, &Selection::all(), TreeView::TopDown, cut);
    assert!(short.truncated);
    assert_eq!(short.nodes.len(), cut);
    assert!(short
        .nodes
        .iter()
        .all(|n| n.parent.is_none_or(|p| (p as usize) < cut)));
}
