//! Corpus tier: every example of the format's guides (`../shared/examples`, when it
//! is there) gives exactly what its `EXPECTED.md` says. The fixture tier
//! (`fixtures.rs`) asserts the same rules on our own fixtures.

mod common;
use common::*;
use tracescope_model::Cell;

/// The example, or `None` (said in one line) without `../shared`.
fn seed(rel: &str) -> Option<tracescope_model::Trace> {
    load_corpus(rel, "what EXPECTED.md says of this example")
}

#[test]
fn viewer_01_nested_calls() {
    let Some(t) = seed("examples/seed-viewer/01-nested-calls.json") else {
        return;
    };
    assert_eq!(
        slices(&t),
        vec![
            ("A".into(), 1000, 3000, 0, i(1), i(1)),
            ("Asub".into(), 1100, 2800, 1, i(1), i(1))
        ]
    );
    assert!(t.diagnostics.is_empty(), "{:?}", t.diagnostics);
    assert_eq!(col(&t, "slices", "self_ns"), vec![i(200), i(2800)]);
}

#[test]
fn viewer_02_interleaved_threads() {
    let Some(t) = seed("examples/seed-viewer/02-interleaved-threads.json") else {
        return;
    };
    assert_eq!(
        slices(&t),
        vec![
            ("B".into(), 900, 3100, 0, i(1), i(2)),
            ("A".into(), 1000, 100, 0, i(1), i(1))
        ]
    );
    assert!(t.diagnostics.is_empty(), "{:?}", t.diagnostics);
}

#[test]
fn viewer_03_ui_nest() {
    let Some(t) = seed("examples/seed-viewer/03-ui-nest.json") else {
        return;
    };
    let r = t.rows("slices").unwrap();
    let got: Vec<_> = (0..r.rows.len())
        .map(|k| {
            (
                r.get(k, "name").to_string(),
                r.get(k, "ts_ns").clone(),
                r.get(k, "dur_ns").clone(),
                r.get(k, "depth").clone(),
                r.get(k, "lane").to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("FetchEmail".into(), i(1000), i(600), i(0), "ui-nest".into()),
            ("CheckGPlus".into(), i(1100), i(100), i(1), "ui-nest".into()),
            ("RedrawScreen".into(), i(1400), i(400), i(0), "stack".into()),
        ]
    );
    assert!(t.diagnostics.is_empty(), "{:?}", t.diagnostics);
    assert_eq!(t.stats().slices, 3);
}

#[test]
fn viewer_04_instant_and_thread_name() {
    let Some(t) = seed("examples/seed-viewer/04-instant-and-thread-name.json") else {
        return;
    };
    assert_eq!(col(&t, "threads", "name"), vec![s("RendererThread")]);
    assert_eq!(
        slices(&t),
        vec![(
            "MyFunction".into(),
            1_234_523_300,
            76_700,
            0,
            i(2343),
            i(2347)
        )]
    );
    assert_eq!(col(&t, "instants", "name"), vec![s("OutOfMemory")]);
    assert_eq!(col(&t, "instants", "ts_ns"), vec![i(1_234_550_000)]);
    assert_eq!(col(&t, "instants", "tid"), vec![i(2347)]);
    assert_eq!(col(&t, "instants", "scope"), vec![s("t")]);
    assert!(t.info.metadata.iter().any(|(k, _)| k == "producer"));
}

#[test]
fn guide_00_minimal_duration() {
    let Some(t) = seed("examples/seed-guide/00-minimal-duration.json") else {
        return;
    };
    assert_eq!(
        slices(&t),
        vec![("function-name".into(), 1000, 10_000, 0, i(1), i(1))]
    );
}

#[test]
fn guide_01_pid_tid_grouping() {
    let Some(t) = seed("examples/seed-guide/01-pid-tid-grouping.json") else {
        return;
    };
    assert_eq!(col(&t, "processes", "pid"), vec![i(1), i(2)]);
    assert_eq!(col(&t, "threads", "tid"), vec![i(1), i(2), i(1), i(2)]);
    assert_eq!(t.stats().slices, 5);
    let sl = slices(&t);
    let child = sl.iter().find(|s| s.0 == "child-1-2").unwrap();
    assert_eq!((child.1, child.2, child.3), (5000, 5000, 1));
    let r = t.rows("slices").unwrap();
    let k = (0..r.rows.len())
        .find(|&k| r.get(k, "name") == &s("function-1-2"))
        .unwrap();
    assert_eq!(r.get(k, "self_ns"), &i(5000));
}

#[test]
fn guide_02_duration_nesting() {
    let Some(t) = seed("examples/seed-guide/02-duration-nesting.json") else {
        return;
    };
    let depth: Vec<(String, i64)> = slices(&t).into_iter().map(|s| (s.0, s.3)).collect();
    assert_eq!(
        depth,
        vec![
            ("parent".into(), 0),
            ("child-1".into(), 1),
            ("child-1.1".into(), 2),
            ("child-1.2".into(), 2),
            ("child-1.3".into(), 2),
            ("child-1.4".into(), 2),
            ("child-2".into(), 1),
        ]
    );
    assert!(t.diagnostics.is_empty(), "{:?}", t.diagnostics);
    assert_eq!(
        col(&t, "slices", "self_ns"),
        vec![
            i(20_000),
            i(0),
            i(20_000),
            i(20_000),
            i(20_000),
            i(20_000),
            i(20_000)
        ]
    );
}

#[test]
fn guide_03_instant_markers() {
    let Some(t) = seed("examples/seed-guide/03-instant-markers.json") else {
        return;
    };
    assert_eq!(
        col(&t, "instants", "name"),
        vec![s("marker-start"), s("marker-end")]
    );
    assert_eq!(col(&t, "instants", "ts_ns"), vec![i(1000), i(100_000)]);
    assert_eq!(col(&t, "instants", "scope"), vec![s("t"), s("t")]);
    assert_eq!(
        slices(&t),
        vec![("main".into(), 25_000, 50_000, 0, i(1), i(1))]
    );
}

#[test]
fn guide_04_cpu_profiler_start_stop() {
    let Some(t) = seed("examples/seed-guide/04-cpu-profiler-start-stop.json") else {
        return;
    };
    assert_eq!(t.stats().profiles, 1);
    assert_eq!(col(&t, "samples", "ts_ns"), vec![i(11_000)]);
    assert_eq!(col(&t, "samples", "tid"), vec![i(1)]);
    assert_eq!(
        col(&t, "samples", "stack"),
        vec![s("(anonymous);(anonymous)")]
    );
}

#[test]
fn guide_05_tracing_started_in_browser() {
    let Some(t) = seed("examples/seed-guide/05-tracing-started-in-browser.json") else {
        return;
    };
    assert_eq!(col(&t, "processes", "pid"), vec![i(1), i(2)]);
    assert_eq!(
        col(&t, "processes", "frame_url"),
        vec![s("file://has-to-be-a-valid-URL-pattern"), Cell::Null]
    );
    assert_eq!(t.stats().slices, 3);
    assert_eq!(col(&t, "instants", "scope"), vec![s("t")]);
}

#[test]
fn guide_06_profile_chunks_simple() {
    let Some(t) = seed("examples/seed-guide/06-profile-chunks-simple.json") else {
        return;
    };
    assert_eq!(t.stats().profiles, 1);
    let ts = col(&t, "samples", "ts_ns");
    assert_eq!(ts.len(), 14);
    assert_eq!((ts[0].clone(), ts[13].clone()), (i(1000), i(851_000)));
    assert_eq!(
        stack_counts(&t),
        vec![
            ("(root)".into(), 3),
            ("(root);runMainESM".into(), 5),
            ("(root);runMainESM;main-work".into(), 6)
        ]
    );
}

#[test]
fn guide_07_profile_chunks_streamed() {
    let Some(t) = seed("examples/seed-guide/07-profile-chunks-streamed.json") else {
        return;
    };
    let ts = col(&t, "samples", "ts_ns");
    assert_eq!(ts.len(), 10);
    assert_eq!((ts[0].clone(), ts[9].clone()), (i(1000), i(551_000)));
    assert_eq!(
        stack_counts(&t),
        vec![
            ("(root)".into(), 2),
            ("(root);runMainESM".into(), 4),
            ("(root);runMainESM;main-work".into(), 4)
        ]
    );
    assert!(t.diagnostics.is_empty(), "{:?}", t.diagnostics);
}

#[test]
fn guide_08_object_lifecycle() {
    let Some(t) = seed("examples/seed-guide/08-object-lifecycle.json") else {
        return;
    };
    let r = t.rows("objects").unwrap();
    assert_eq!(r.rows.len(), 1);
    assert_eq!(
        r.rows[0][..6],
        [
            i(1),
            s("MyWidget"),
            s("widget-123"),
            i(10_000),
            i(20_000),
            i(1)
        ]
    );
    let snap = &t.tables.snapshots[0];
    assert_eq!(snap.ts, 15_000);
    assert!(t.raw(snap.args).contains("\"color\""));
    let raw = t.raw(snap.args);
    let v = tracescope_format::json::Value::parse(&raw).unwrap();
    assert_eq!(
        v.get("snapshot").unwrap().to_compact(),
        r#"{"width":200,"height":100,"color":"blue"}"#
    );
}

#[test]
fn guide_09_process_thread_names() {
    let Some(t) = seed("examples/seed-guide/09-process-thread-names.json") else {
        return;
    };
    assert_eq!(col(&t, "processes", "name"), vec![s("renderer")]);
    let r = t.rows("threads").unwrap();
    let k = (0..r.rows.len())
        .find(|&k| r.get(k, "tid") == &i(100))
        .unwrap();
    assert_eq!(r.get(k, "name"), &s("MainThread"));
}

#[test]
fn guide_10_fragment_with_trailing_comma() {
    let Some(t) = seed("examples/seed-guide/10-thread-name-fragment-trailing-comma.json") else {
        return;
    };
    assert_eq!(t.stats().metadata_events, 1);
    assert_eq!(col(&t, "threads", "name"), vec![s("CrRendererMain")]);
    assert!(!t.diagnostics.is_empty());
}

#[test]
fn guide_11_jsonc_with_comments() {
    let Some(t) = seed("examples/seed-guide/11-jsonc-with-comments.json") else {
        return;
    };
    assert!(diag_kinds(&t).contains(&"comment"), "{:?}", diag_kinds(&t));
    let mut names: Vec<String> = col(&t, "threads", "name")
        .iter()
        .map(|c| c.to_string())
        .filter(|n| !n.is_empty())
        .collect();
    names.sort();
    assert_eq!(names, vec!["CrBrowserMain", "CrRendererMain"]);
    assert_eq!(col(&t, "slices", "name"), vec![s("CommitLoad")]);
    assert_eq!(
        col(&t, "instants", "name"),
        vec![s("TracingStartedInBrowser")]
    );
    assert_eq!(col(&t, "instants", "ts_ns"), vec![i(522_975_545_427_000)]);
}

#[test]
fn guide_12_thread_pool_names() {
    let Some(t) = seed("examples/seed-guide/12-thread-pool-names.json") else {
        return;
    };
    assert_eq!(t.stats().metadata_events, 10);
    assert_eq!(t.stats().threads, 10);
    let mut pids: Vec<String> = col(&t, "processes", "pid")
        .iter()
        .map(|c| c.to_string())
        .collect();
    pids.sort();
    assert_eq!(pids, vec!["3415", "3421", "60433"]);
    let names = col(&t, "threads", "name");
    assert_eq!(
        names
            .iter()
            .filter(|n| **n == s("ThreadPoolServiceThread"))
            .count(),
        1
    );
    assert_eq!(
        names
            .iter()
            .filter(|n| **n == s("ThreadPoolForegroundWorker"))
            .count(),
        9
    );
}
