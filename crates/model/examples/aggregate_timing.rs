//! Times the aggregate queries on a trace file, step by step (a diagnostic tool).
use std::time::Instant;

use tracescope_model::analysis::{functions, tree, Selection, Source, TreeQuery, TreeView};
use tracescope_model::query::search::{search, Fields, Pattern, SearchQuery};
use tracescope_model::query::QueryIndex;

/// CPU time of the process so far (user + system), in ms.
fn cpu_ms() -> f64 {
    tracescope_testdata::process_cpu_seconds() * 1e3
}

fn main() {
    let p = std::env::args().nth(1).expect("a trace file");
    // Which parts to time (all by default): td, bu, fn, range, search.
    let only: Vec<String> = std::env::args().skip(2).collect();
    let on = |k: &str| only.is_empty() || only.iter().any(|o| o == k);
    let t = Instant::now();
    let src = tracescope_format::Source::open(&p).expect("opens");
    let tr = tracescope_model::Trace::from_source(src, &Default::default()).expect("loads");
    eprintln!("load {:?}, {} slices", t.elapsed(), tr.tables.slices.len());
    let q = |view| TreeQuery {
        source: Source::Slices,
        view,
        max_nodes: std::env::var("MAX_NODES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(20_000),
        filter: None,
    };
    let repeat: usize = std::env::var("REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    for view in [TreeView::TopDown, TreeView::BottomUp].repeat(repeat) {
        if !on(if view == TreeView::TopDown {
            "td"
        } else {
            "bu"
        }) {
            continue;
        }
        let (t, c) = (Instant::now(), cpu_ms());
        let r = tree(&tr, &Selection::all(), &q(view));
        eprintln!(
            "{view:?} {:?} (cpu {:.0} ms): {} slices, {} nodes shown, truncated {}",
            t.elapsed(),
            cpu_ms() - c,
            r.samples,
            r.nodes.len(),
            r.truncated
        );
    }
    if on("fn") {
        let (t, c) = (Instant::now(), cpu_ms());
        let f = functions(&tr, &Selection::all(), Source::Slices);
        eprintln!(
            "functions {:?} (cpu {:.0} ms): {}",
            t.elapsed(),
            cpu_ms() - c,
            f.functions.len()
        );
    }
    let (a, b) = (tr.info.start_ns.unwrap(), tr.info.end_ns.unwrap());
    let span = ((b - a) as f64 * 1e6 / tr.tables.slices.len() as f64) as i64;
    let sel = Selection::range(a + (b - a) / 2 - span / 2, a + (b - a) / 2 + span / 2);
    if on("range") {
        let (t, c) = (Instant::now(), cpu_ms());
        let r = tree(&tr, &sel, &q(TreeView::TopDown));
        eprintln!(
            "range top-down {:?} (cpu {:.0} ms): {} slices",
            t.elapsed(),
            cpu_ms() - c,
            r.samples
        );
    }
    if !on("search") {
        std::mem::forget(tr);
        return;
    }
    let idx = QueryIndex::new(&tr);
    idx.warm(&tr);
    for (text, fields) in [
        ("Layout", Fields::ALL),
        ("Layout", Fields::NAMES),
        ("zzqq", Fields::ALL),
        ("scavenge", Fields::ALL),
    ] {
        let t = Instant::now();
        let h = search(
            &tr,
            &idx,
            &SearchQuery::new(Pattern::new(text, false).unwrap(), fields),
            10,
        );
        eprintln!("search {text} {fields:?} {:?}: {}", t.elapsed(), h.total);
    }
    std::mem::forget(tr);
}
