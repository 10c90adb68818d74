//! The model built from the repository's fixtures (`tests/fixtures/`), each checked
//! for exactly what `docs/reading-rules.md` says it must give: slices, nesting, self
//! times, instants, async operations, flows, counters, objects, samples, metadata and
//! display order, and one fixture per diagnostic kind with every occurrence.

mod common;

use common::*;
use tracescope_format::diag::EXAMPLES_KEPT;
use tracescope_format::json::ReadOptions;
use tracescope_format::{DiagKind, Severity};
use tracescope_model::{Cell, LoadOptions, Trace};

type Row = SliceRow;

fn row(name: &str, ts: i64, dur: i64, depth: i64, pid: i64, tid: i64) -> Row {
    (name.into(), ts, dur, depth, i(pid), i(tid))
}

/// The cells of `columns` of every row of `table`, as text.
fn cells(t: &Trace, table: &str, columns: &[&str]) -> Vec<Vec<String>> {
    let r = t.rows(table).unwrap();
    (0..r.rows.len())
        .map(|k| columns.iter().map(|c| r.get(k, c).to_string()).collect())
        .collect()
}

fn texts(rows: &[&[&str]]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect()
}

fn no_diagnostics(t: &Trace) {
    assert!(t.diagnostics.is_empty(), "{:?}", t.diagnostics.sorted());
}

#[test]
fn begin_end_pairs_nest_and_merge_args() {
    let t = load_fixture("phases/begin-end-nested.json");
    assert_eq!(
        slices(&t),
        vec![
            row("compile", 2000, 5000, 0, 7, 70),
            row("parse", 2250, 4250, 1, 7, 70)
        ]
    );
    assert_eq!(col(&t, "slices", "self_ns"), vec![i(750), i(4250)]);
    // The E's args join the B's; on a duplicate key the E's value wins.
    assert_eq!(
        col(&t, "slices", "args")[0],
        Cell::Json(r#"{"unit":"lib.rs","ok":true}"#.into())
    );
    no_diagnostics(&t);
}

#[test]
fn one_complete_slice() {
    let t = load_fixture("phases/complete-one.json");
    assert_eq!(slices(&t), vec![row("render", 30_000, 12_500, 0, 3, 4)]);
    assert_eq!(col(&t, "slices", "cat"), vec![s("gfx")]);
}

#[test]
fn processes_and_threads_group_slices() {
    let t = load_fixture("phases/pid-tid-grouping.json");
    assert_eq!(col(&t, "processes", "pid"), vec![i(20), i(30)]);
    assert_eq!(col(&t, "threads", "tid"), vec![i(1), i(2), i(1), i(2)]);
    assert_eq!(
        slices(&t),
        vec![
            row("load-c", 1000, 3000, 0, 30, 1),
            row("load-b", 2000, 9000, 0, 20, 2),
            row("decode-b", 3000, 4000, 1, 20, 2),
            row("load-a", 4000, 6000, 0, 20, 1),
            row("load-d", 8000, 2000, 0, 30, 2),
        ]
    );
    assert_eq!(col(&t, "slices", "self_ns")[1], i(5000));
    no_diagnostics(&t);
}

/// Complete events in any file order nest by time; at an equal start the longer
/// slice is the parent.
#[test]
fn nesting_does_not_depend_on_file_order() {
    let t = load_fixture("phases/nesting-out-of-file-order.json");
    assert_eq!(
        slices(&t),
        vec![
            row("frame", 0, 100_000, 0, 1, 1),
            row("update", 10_000, 60_000, 1, 1, 1),
            row("step-1", 10_000, 10_000, 2, 1, 1),
            row("step-2", 30_000, 10_000, 2, 1, 1),
            row("step-3", 50_000, 10_000, 2, 1, 1),
            row("paint", 80_000, 15_000, 1, 1, 1),
        ]
    );
    assert_eq!(
        col(&t, "slices", "self_ns"),
        [25_000, 30_000, 10_000, 10_000, 10_000, 15_000].map(i)
    );
    no_diagnostics(&t);
}

/// Sorted per thread though not across threads: nothing to repair.
#[test]
fn threads_interleave_in_the_file() {
    let t = load_fixture("phases/interleaved-threads.json");
    assert_eq!(
        slices(&t),
        vec![
            row("ui", 3000, 6000, 0, 2, 22),
            row("net", 5000, 200, 0, 2, 21)
        ]
    );
    no_diagnostics(&t);
}

/// `ui-nest` slices match by name on their own lane, whatever the call stack does.
#[test]
fn ui_nest_slices_have_their_own_lane() {
    let t = load_fixture("phases/ui-nest.json");
    assert_eq!(
        cells(&t, "slices", &["name", "ts_ns", "dur_ns", "depth", "lane"]),
        texts(&[
            &["Upload", "10000", "6000", "0", "ui-nest"],
            &["Compress", "12000", "3000", "1", "ui-nest"],
            &["Layout", "14000", "4000", "0", "stack"],
        ])
    );
    assert_eq!(t.stats().slices, 3);
    no_diagnostics(&t);
}

#[test]
fn instants_of_every_scope() {
    let t = load_fixture("phases/instants.json");
    assert_eq!(
        cells(&t, "instants", &["name", "ts_ns", "scope", "tid", "ph"]),
        texts(&[
            &["begin-frame", "1000", "t", "6", "i"],
            &["gc", "4000", "p", "6", "I"],
            &["navigate", "6000", "g", "", "i"],
            &["first-paint", "8000", "t", "6", "R"],
            &["end-frame", "9000", "t", "6", "i"],
        ])
    );
    assert_eq!(slices(&t), vec![row("draw", 2000, 5000, 0, 5, 6)]);
    // A global instant makes no thread.
    assert_eq!(t.stats().threads, 1);
    no_diagnostics(&t);
}

/// Nestable async: keys are (cat, id, scope); `id2.local` is another key than the
/// same `id`; an `n` sits one deeper than what is open; unclosed operations end at
/// the end of the trace.
#[test]
fn nestable_async_operations() {
    let t = load_fixture("phases/async-nestable.json");
    assert_eq!(
        cells(
            &t,
            "async_slices",
            &[
                "name",
                "id",
                "ts_ns",
                "dur_ns",
                "depth",
                "did_not_finish",
                "args"
            ]
        ),
        texts(&[
            &[
                "request",
                "0x10",
                "10000",
                "10000",
                "0",
                "false",
                r#"{"url":"/a","status":200}"#
            ],
            &["dns", "0x10", "11000", "2000", "1", "false", ""],
            &["resolved", "0x10", "12000", "0", "2", "false", ""],
            &["request", "0x10", "15000", "15000", "0", "true", ""],
            &["upload", "0x99", "30000", "0", "0", "true", ""],
        ])
    );
    no_diagnostics(&t);
}

/// Legacy async: a `p` step runs from the previous step (or the start) to itself, a
/// `T` step from itself to the next step (or the end).
#[test]
fn legacy_async_steps() {
    let t = load_fixture("phases/async-legacy.json");
    assert_eq!(
        cells(
            &t,
            "async_slices",
            &["name", "ts_ns", "dur_ns", "depth", "legacy"]
        ),
        texts(&[
            &["download", "100000", "100000", "0", "true"],
            &["queued", "100000", "20000", "1", "true"],
            &["transfer", "140000", "60000", "1", "true"],
        ])
    );
    no_diagnostics(&t);
}

#[test]
fn flows_v1_bind_to_enclosing_and_next_slices() {
    let t = load_fixture("phases/flows-v1.json");
    assert_eq!(
        cells(
            &t,
            "flows",
            &["from_name", "from_ts_ns", "to_name", "to_ts_ns", "name"]
        ),
        texts(&[
            &["post", "5000", "relay", "25000", "msg"],
            &["relay", "25000", "handle", "35000", "msg"],
            &["handle", "45000", "ack", "65000", "done"],
        ])
    );
    no_diagnostics(&t);
}

/// v2: `bind_id` links slices (hex and decimal are one id); an arrow runs from the
/// end of the producing slice to the start of the consuming one.
#[test]
fn flows_v2_bind_ids() {
    let t = load_fixture("phases/flows-v2.json");
    assert_eq!(
        cells(
            &t,
            "flows",
            &["from_name", "from_ts_ns", "to_name", "to_ts_ns", "version"]
        ),
        texts(&[
            &["produce", "10000", "forward", "20000", "2"],
            &["forward", "30000", "consume", "40000", "2"],
        ])
    );
    no_diagnostics(&t);
}

#[test]
fn counters_series_per_key_and_id() {
    let t = load_fixture("phases/counters.json");
    assert_eq!(
        cells(&t, "counters", &["pid", "name", "series", "ts_ns", "value"]),
        texts(&[
            &["1", "memory", "heap", "0", "10"],
            &["1", "memory", "external", "0", "2"],
            &["1", "queue[3]", "depth", "5000", "1"],
            &["2", "queue[3]", "depth", "5000", "9"],
            &["1", "memory", "heap", "10000", "30"],
            &["1", "memory", "heap", "20000", "20"],
            &["1", "memory", "external", "20000", "4.5"],
        ])
    );
    let st = t.stats();
    assert_eq!((st.counter_series, st.counter_samples), (4, 7));
}

/// An object lives from N to D, or to the end of the trace; O records a snapshot.
#[test]
fn object_lifetimes_and_snapshots() {
    let t = load_fixture("phases/objects.json");
    assert_eq!(
        cells(
            &t,
            "objects",
            &[
                "pid",
                "name",
                "id",
                "start_ns",
                "end_ns",
                "snapshots",
                "alive_at_end"
            ]
        ),
        texts(&[
            &["4", "Texture", "0x20", "100000", "300000", "1", "false"],
            &["4", "Buffer", "7", "200000", "300000", "0", "true"],
        ])
    );
    let snap = &t.tables.snapshots[0];
    assert_eq!(snap.ts, 150_000);
    let raw = t.raw(snap.args);
    let v = tracescope_format::json::Value::parse(&raw).unwrap();
    assert_eq!(
        v.get("snapshot").unwrap().to_compact(),
        r#"{"w":64,"h":32,"format":"rgba"}"#
    );
}

/// The profile's samples belong to the thread of the `Profile` event, not to the
/// thread that wrote the chunk; an empty call frame is `(anonymous)`.
#[test]
fn a_profile_started_and_stopped() {
    let t = load_fixture("phases/profile-start-stop.json");
    assert_eq!(t.stats().profiles, 1);
    assert_eq!(
        cells(&t, "samples", &["pid", "tid", "ts_ns", "stack"]),
        texts(&[&["9", "9", "25000", "(anonymous);tick"]])
    );
}

/// Time deltas add up across chunks, in file order.
#[test]
fn profile_chunks_continue_each_other() {
    let t = load_fixture("phases/profile-chunks.json");
    let ts = col(&t, "samples", "ts_ns");
    assert_eq!(
        ts,
        [2, 42, 82, 122, 162, 202, 242, 282].map(|us| i(us * 1000))
    );
    assert_eq!(
        stack_counts(&t),
        vec![
            ("(root)".into(), 2),
            ("(root);start".into(), 3),
            ("(root);start;compute".into(), 3)
        ]
    );
    no_diagnostics(&t);
}

/// Nodes in a chunk of their own, samples in later chunks whose `ts` go backwards:
/// file order decides.
#[test]
fn profile_chunks_streamed_in_file_order() {
    let t = load_fixture("phases/profile-chunks-streamed.json");
    let ts = col(&t, "samples", "ts_ns");
    assert_eq!(ts, [10, 40, 70, 100, 130, 160, 190].map(|us| i(us * 1000)));
    assert_eq!(
        stack_counts(&t),
        vec![
            ("(root)".into(), 2),
            ("(root);serve".into(), 2),
            ("(root);serve;render".into(), 3)
        ]
    );
    no_diagnostics(&t);
}

#[test]
fn samples_through_stack_frames() {
    let t = load_fixture("phases/samples-stack-frames.json");
    assert_eq!(
        cells(&t, "samples", &["tid", "ts_ns", "stack", "weight"]),
        texts(&[
            &["1", "10000", "main;run;work", "1"],
            &["1", "20000", "main;run", "1"],
            &["1", "30000", "main;run;work", "2"],
        ])
    );
    no_diagnostics(&t);
}

/// Names, sort indexes (lower first), labels, uptime (Chrome writes it as a string),
/// `num_cpus`; other metadata is kept and listed; threads exist from metadata alone.
#[test]
fn metadata_names_orders_and_labels() {
    let t = load_fixture("phases/metadata.json");
    assert_eq!(
        cells(
            &t,
            "processes",
            &[
                "pid",
                "name",
                "sort_index",
                "labels",
                "uptime_seconds",
                "threads"
            ]
        ),
        texts(&[
            &["12", "gpu", "-1", "", "", "2"],
            &["11", "browser", "", "Profile 1", "42", "4"],
        ])
    );
    assert_eq!(
        cells(&t, "threads", &["pid", "tid", "name"]),
        texts(&[
            &["12", "121", "ThreadPoolForegroundWorker"],
            &["12", "120", "VizCompositor"],
            &["11", "111", "IOThread"],
            &["11", "110", "CrBrowserMain"],
            &["11", "112", "ThreadPoolForegroundWorker"],
            &["11", "113", "ThreadPoolForegroundWorker"],
        ])
    );
    let st = t.stats();
    assert_eq!((st.metadata_events, st.threads, st.start_ns), (14, 6, None));
    assert_eq!(t.info.num_cpus, Some(8));
    assert_eq!(
        col(&t, "metadata", "name").last(),
        Some(&s("trace_buffer_overflowed"))
    );
    no_diagnostics(&t);
}

/// The process that renders the frame comes first, labelled with its URL.
#[test]
fn tracing_started_in_browser_marks_the_frame_process() {
    let t = load_fixture("phases/tracing-started-in-browser.json");
    assert_eq!(
        cells(&t, "processes", &["pid", "frame_url"]),
        texts(&[&["50", "https://example.test/app"], &["40", ""]])
    );
    assert_eq!(t.stats().slices, 3);
    assert_eq!(col(&t, "instants", "scope"), vec![s("t")]);
}

#[test]
fn kept_but_not_drawn() {
    let t = load_fixture("phases/kept-not-drawn.json");
    assert_eq!(
        cells(&t, "other", &["ph", "name", "ts_ns"]),
        texts(&[
            &["v", "periodic_interval", "1000"],
            &["V", "global", "2000"],
            &["c", "clock_sync", "3000"],
            &["(", "frame", "4000"],
            &[")", "frame", "5000"],
        ])
    );
    assert_eq!(t.stats().other_events, 5);
    no_diagnostics(&t);
}

#[test]
fn thread_time_beside_wall_time() {
    let t = load_fixture("phases/thread-time.json");
    assert_eq!(
        cells(&t, "slices", &["name", "dur_ns", "tts_ns", "tdur_ns"]),
        texts(&[
            &["task", "100000", "5000", "40000"],
            &["idle", "100000", "50000", "5000"],
        ])
    );
}

/// Decimal microseconds exact to the ns (sub-ns digits rounded half away from zero,
/// both ends, then subtracted); negative times; 64-bit ids; a string pid names its
/// process; a decimal-string tid is the same thread as the number.
#[test]
fn exact_times_and_ids() {
    let t = load_fixture("phases/times-and-ids.json");
    assert_eq!(
        slices(&t),
        vec![
            row("negative", -1500, 1000, 0, 1, 1),
            row("exact", 522_975_545_427_123, 1, 0, 1, 1),
        ]
    );
    assert_eq!(
        cells(&t, "threads", &["pid", "tid"]),
        // Display order: the string pid names its process, and named ones come first.
        texts(&[
            &["browser", "25738"],
            &["1", "1"],
            &["18446744073709551615", "9223372036854775807"],
        ])
    );
    assert_eq!(
        col(&t, "instants", "args")[0],
        Cell::Json(r#"{"frame_id":14107898137686480567}"#.into())
    );
    no_diagnostics(&t);
}

/// Trace metadata keys are kept; `displayTimeUnit` changes the display only.
#[test]
fn object_form_with_metadata() {
    let t = load_fixture("file/object-with-metadata.json");
    assert_eq!(col(&t, "threads", "name"), vec![s("Worker")]);
    assert_eq!(
        slices(&t),
        vec![row("Decode", 1_000_500, 250_250, 0, 300, 301)]
    );
    assert_eq!(col(&t, "instants", "ts_ns"), vec![i(1_100_000)]);
    let keys: Vec<&str> = t.info.metadata.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["producer", "displayTimeUnit", "otherData"]);
    assert_eq!(t.info.display_time_unit.as_deref(), Some("ns"));
}

/// A raw `.cpuprofile` is one profile on a process and thread named after the file.
#[test]
fn raw_cpu_profiles() {
    let t = load_fixture("file/node.cpuprofile");
    assert_eq!(
        cells(&t, "samples", &["ts_ns", "stack"]),
        texts(&[
            &["1100000", "(root);main"],
            &["1200000", "(root);main;fib"],
            &["1300000", "(root);main;fib"],
            &["1400000", "(root);(garbage collector)"],
            &["1500000", "(root);main;fib"],
        ])
    );
    assert_eq!(col(&t, "threads", "name"), vec![s("node.cpuprofile")]);
    assert_eq!(t.stats().events, 0);
    let t = load_fixture("file/head-form.cpuprofile");
    assert_eq!(
        cells(&t, "samples", &["ts_ns", "stack"]),
        texts(&[
            &["10000100000", "(root);boot"],
            &["10000200000", "(root);boot"],
            &["10000300000", "(root)"],
        ])
    );
}

/// Each `diagnostics/<kind>.json` gives that kind and no other, with every
/// occurrence at the byte offset of its event (or of the text at fault).
#[test]
fn one_fixture_per_diagnostic_kind() {
    let want: &[(&str, &[u64])] = &[
        ("truncated", &[70]),
        ("trailing_comma", &[66, 135]),
        ("comment", &[0, 156]),
        ("empty_event", &[71, 144]),
        ("numeric_string", &[35, 114]),
        ("missing_ts", &[4, 68]),
        ("unknown_phase", &[4, 73]),
        ("unsorted_thread", &[126, 374]),
        ("misplaced_end", &[126]),
        ("end_name_mismatch", &[64]),
        ("unmatched_end", &[4, 72]),
        ("overlap", &[76]),
        ("unknown_scope", &[4]),
        ("bad_id", &[4, 187]),
        ("unbound_flow", &[75, 164]),
        ("bad_counter_value", &[76, 151]),
        ("profile_length_mismatch", &[132]),
        ("bad_display_time_unit", &[102]),
        ("non_string_system_trace", &[104]),
        ("bad_field", &[4, 129]),
        ("syntax_error", &[96, 141]),
        ("invalid_utf8", &[29]),
        ("bare_events", &[0]),
        ("trailing_content", &[66]),
        ("duplicate_key", &[38]),
        ("unmatched_async_step", &[4]),
        ("duplicate_object", &[78]),
        ("unmatched_object", &[71]),
        ("bad_profile", &[20, 238]),
        ("bad_stack_frame", &[91]),
        ("bad_metadata", &[4, 74]),
        ("too_deep", &[583, 3795]),
    ];
    // Every kind has its fixture, and every fixture is named after a kind.
    let mut kinds: Vec<&str> = DiagKind::ALL.iter().map(|k| k.as_str()).collect();
    let mut listed: Vec<&str> = want.iter().map(|w| w.0).collect();
    kinds.sort();
    listed.sort();
    assert_eq!(listed, kinds, "a diagnostic kind without its fixture");
    let mut files: Vec<String> = tracescope_testdata::fixture_files("diagnostics")
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, kinds);

    for (kind, offsets) in want {
        let t = load_fixture(&format!("diagnostics/{kind}.json"));
        let occ = t.diagnostics.occurrences();
        let got: Vec<(&str, u64)> = occ.iter().map(|o| (o.kind.as_str(), o.offset)).collect();
        let expect: Vec<(&str, u64)> = offsets.iter().map(|&o| (*kind, o)).collect();
        assert_eq!(got, expect, "{kind}");
        assert!(
            occ.iter().all(|o| o.example.is_some_and(|e| !e.is_empty())),
            "{kind}"
        );
        // The tables row per occurrence, with its severity.
        let r = t.rows("diagnostics").unwrap();
        assert_eq!(r.columns, ["kind", "severity", "offset", "example"]);
        assert_eq!(r.rows.len(), offsets.len(), "{kind}");
        let sev = occ[0].kind.severity().as_str();
        assert!(r.rows.iter().all(|row| row[1] == s(sev)), "{kind}");
    }
}

/// What real producers routinely write is an info, repairs by rule are warnings,
/// what was dropped or made up is an error (`docs/reading-rules.md`).
#[test]
fn severities_of_the_kinds() {
    let of = |sev: Severity| -> Vec<&str> {
        let mut v: Vec<&str> = DiagKind::ALL
            .iter()
            .filter(|k| k.severity() == sev)
            .map(|k| k.as_str())
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        of(Severity::Error),
        [
            "bad_counter_value",
            "bad_field",
            "invalid_utf8",
            "missing_ts",
            "syntax_error",
            "too_deep",
            "trailing_content"
        ]
    );
    assert_eq!(
        of(Severity::Info),
        [
            "bad_display_time_unit",
            "bad_metadata",
            "comment",
            "empty_event",
            "non_string_system_trace",
            "numeric_string",
            "trailing_comma",
            "unbound_flow",
            "unmatched_object",
            "unsorted_thread"
        ]
    );
}

/// Overlaps on four threads, interleaved in the file and read in one part or in
/// many: every occurrence is listed, and the first [`EXAMPLES_KEPT`] of the kind by
/// offset (not of each thread or part) have the excerpt of their event.
#[test]
fn examples_are_the_first_hundred_of_a_kind_across_threads_and_parts() {
    let pad = "p".repeat(200);
    let mut events = Vec::new();
    for k in 0..40 {
        for tid in 1..=4 {
            let ts = k * 10;
            for (name, at) in [("a", ts), ("b", ts + 3)] {
                events.push(format!(
                    r#"{{"name":"{name}{k}","ph":"X","ts":{at},"dur":6,"pid":1,"tid":{tid},"args":{{"pad":"{pad}"}}}}"#
                ));
            }
        }
    }
    let json = format!("[{}]", events.join(",\n"));
    let overlaps: Vec<u64> = json
        .match_indices(r#"{"name":"b"#)
        .map(|(at, _)| at as u64)
        .collect();
    let parts = LoadOptions {
        read: ReadOptions {
            threads: 2,
            chunk_bytes: 2048,
        },
        ..Default::default()
    };
    let many = Trace::from_json(Box::new(json.clone()), json.len() as u64, &parts).unwrap();
    let one = load(&json);
    assert_eq!(one.diagnostics, many.diagnostics);
    let occ = many.diagnostics.occurrences();
    let got: Vec<(DiagKind, u64)> = occ.iter().map(|o| (o.kind, o.offset)).collect();
    let want: Vec<(DiagKind, u64)> = overlaps.iter().map(|&o| (DiagKind::Overlap, o)).collect();
    assert_eq!(got, want);
    for (k, o) in occ.iter().enumerate() {
        // An excerpt is the 160 bytes from the event's start.
        let want = (k < EXAMPLES_KEPT).then_some(&json[o.offset as usize..][..160]);
        assert_eq!(o.example, want, "occurrence {k}");
    }
    let first = many.diagnostics.get(DiagKind::Overlap).unwrap();
    assert_eq!((first.count, first.offset), (160, overlaps[0]));
    assert_eq!(Some(first.example.as_str()), occ[0].example);
}
