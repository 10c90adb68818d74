//! Issue 4's floors: statistics of a range over 10 million slices (< 200 ms) and the
//! call tree of 1 million samples (< 300 ms); issue 14's: the call tree (flame
//! graph) of all 10 million slices (< 1 s) and of a 1 million slice range
//! (< 150 ms), and the search over names and args. The traces are made here, in
//! memory: 10M `X` slices on 8 threads nested 5 deep under 400 names; a
//! `.cpuprofile` of 1M samples over a 4000-node tree 12 deep.

use std::fmt::Write;

use criterion::{criterion_group, criterion_main, Criterion};
use tracescope_model::analysis::{
    call_tree, functions, slice_stats, tree, GroupBy, NameFilter, Selection, Source, TreeQuery,
    TreeView,
};
use tracescope_model::query::search::{search, Fields, Pattern, SearchQuery};
use tracescope_model::query::QueryIndex;
use tracescope_model::{LoadOptions, Trace};

fn load(text: String) -> Trace {
    let n = text.len() as u64;
    Trace::from_json(Box::new(text), n, &LoadOptions::default()).expect("loads")
}

/// Per thread: top-level slices of 1000 µs, each a chain of four children 100 µs
/// shorter on both sides... until 10M slices in all.
fn slices_trace(total: usize) -> Trace {
    let mut s = String::with_capacity(total * 64);
    s.push('[');
    let per_thread = total / 8;
    let mut k = 0u64;
    for tid in 1..=8 {
        let mut n = 0;
        let mut top = 0u64;
        while n < per_thread {
            for depth in 0..5u64 {
                let ts = top * 1000 + depth * 100;
                let dur = 1000 - depth * 200 - 1;
                k = k
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let name = (k >> 33) % 400;
                let _ = write!(
                    s,
                    r#"{{"ph":"X","pid":1,"tid":{tid},"name":"f{name}","cat":"c{}","ts":{ts},"dur":{dur}}},"#,
                    name % 7
                );
                n += 1;
            }
            top += 1;
        }
    }
    s.pop();
    s.push(']');
    load(s)
}

/// A raw `.cpuprofile`: node i's parent is (i - 1) / 3 (a ternary tree), samples
/// walk the leaves pseudo-randomly, 100 µs apart.
fn profile_trace(nodes: usize, samples: usize) -> Trace {
    let mut s = String::with_capacity(samples * 12 + nodes * 160);
    s.push_str(r#"{"nodes":["#);
    for i in 1..=nodes {
        let children: Vec<String> = (1..=3)
            .map(|c| 3 * (i - 1) + c + 1)
            .filter(|&c| c <= nodes)
            .map(|c| c.to_string())
            .collect();
        let _ = write!(
            s,
            r#"{{"id":{i},"callFrame":{{"functionName":"fn{}","url":"file:///app{}.js","lineNumber":{},"columnNumber":4}},"children":[{}]}},"#,
            i % 1500,
            i % 40,
            i % 900,
            children.join(",")
        );
    }
    s.pop();
    s.push_str(r#"],"startTime":0,"endTime":1,"samples":["#);
    let mut k = 7u64;
    for _ in 0..samples {
        k = k
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let _ = write!(s, "{},", (k >> 33) as usize % nodes + 1);
    }
    s.pop();
    s.push_str(r#"],"timeDeltas":["#);
    for _ in 0..samples {
        s.push_str("100,");
    }
    s.pop();
    s.push_str("]}");
    load(s)
}

fn bench(c: &mut Criterion) {
    let t = slices_trace(10_000_000);
    assert_eq!(t.tables.slices.len(), 10_000_000);
    let (start, end) = (t.info.start_ns.unwrap(), t.info.end_ns.unwrap());
    let mut g = c.benchmark_group("range_stats_10M_slices");
    g.sample_size(10);
    g.bench_function("whole_trace_by_name", |b| {
        b.iter(|| slice_stats(&t, &Selection::all(), GroupBy::Name, NameFilter::default()))
    });
    g.bench_function("whole_trace_by_thread", |b| {
        b.iter(|| {
            slice_stats(
                &t,
                &Selection::all(),
                GroupBy::Thread,
                NameFilter::default(),
            )
        })
    });
    let tenth = Selection::range(start + (end - start) / 2, start + (end - start) * 6 / 10);
    g.bench_function("tenth_of_trace_by_name", |b| {
        b.iter(|| slice_stats(&t, &tenth, GroupBy::Name, NameFilter::default()))
    });
    g.finish();

    let mut g = c.benchmark_group("slice_tree_10M_slices");
    g.sample_size(10);
    let q = |view| TreeQuery {
        source: Source::Slices,
        view,
        max_nodes: 20_000,
        filter: None,
    };
    g.bench_function("whole_trace_top_down", |b| {
        b.iter(|| tree(&t, &Selection::all(), &q(TreeView::TopDown)))
    });
    g.bench_function("whole_trace_bottom_up", |b| {
        b.iter(|| tree(&t, &Selection::all(), &q(TreeView::BottomUp)))
    });
    g.bench_function("whole_trace_functions", |b| {
        b.iter(|| functions(&t, &Selection::all(), Source::Slices))
    });
    g.bench_function("tenth_of_trace_top_down", |b| {
        b.iter(|| tree(&t, &tenth, &q(TreeView::TopDown)))
    });
    g.finish();

    let mut g = c.benchmark_group("search_10M_slices");
    g.sample_size(10);
    let idx = QueryIndex::new(&t);
    idx.warm(&t);
    let names = SearchQuery::new(Pattern::new("f39", false).unwrap(), Fields::NAMES);
    g.bench_function("names_substring_all_matches", |b| {
        b.iter(|| search(&t, &idx, &names, 1000))
    });
    g.finish();
    drop(t);

    let t = profile_trace(4000, 1_000_000);
    assert_eq!(t.tables.samples.len(), 1_000_000);
    let mut g = c.benchmark_group("call_tree_1M_samples");
    g.sample_size(10);
    g.bench_function("top_down", |b| {
        b.iter(|| call_tree(&t, &Selection::all(), TreeView::TopDown, 20_000))
    });
    g.bench_function("bottom_up", |b| {
        b.iter(|| call_tree(&t, &Selection::all(), TreeView::BottomUp, 20_000))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
