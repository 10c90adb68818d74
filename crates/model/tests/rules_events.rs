//! Spec sections 4 to 12: instants, async, flows, counters, objects, samples,
//! metadata, other events, counts. One focused case per rule, exact rows.

mod common;
use common::*;
use tracescope_model::{Cell, Rows, Trace};

fn row_strings(t: &Trace, table: &str, cols: &[&str]) -> Vec<String> {
    let r: Rows = t.rows(table).unwrap();
    (0..r.rows.len())
        .map(|k| {
            cols.iter()
                .map(|c| r.get(k, c).to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn instant_scopes() {
    let t = load(
        r#"[{"ph":"i","name":"th","ts":1,"pid":1,"tid":2},{"ph":"I","name":"pr","ts":2,"pid":1,"tid":2,"s":"p"},
        {"ph":"i","name":"gl","ts":3,"pid":1,"tid":9,"s":"g"},{"ph":"R","name":"mark","ts":4,"pid":1,"tid":2},
        {"ph":"i","name":"weird","ts":5,"pid":1,"tid":2,"s":"x"}]"#,
    );
    assert_eq!(
        row_strings(&t, "instants", &["scope", "pid", "tid", "name", "ts_ns"]),
        vec![
            "t 1 2 th 1000",
            "p 1 2 pr 2000",
            "g 1  gl 3000",
            "t 1 2 mark 4000",
            "t 1 2 weird 5000"
        ]
    );
    assert_eq!(diag_kinds(&t), vec!["unknown_scope"]);
    // The global instant's tid 9 makes no thread.
    assert_eq!(t.stats().threads, 1);
}

#[test]
fn nestable_async_nesting_and_instants() {
    let t = load(
        r#"[{"ph":"b","cat":"c","name":"op","id":"0x1","ts":1,"pid":1,"tid":1},
        {"ph":"b","cat":"c","name":"sub","id":1,"ts":2,"pid":1,"tid":1},
        {"ph":"n","cat":"c","name":"mark","id":"1","ts":3,"pid":1,"tid":1},
        {"ph":"e","cat":"c","name":"sub","id":"0x1","ts":4,"pid":1,"tid":1},
        {"ph":"e","cat":"c","name":"op","id":"0x1","ts":5,"pid":1,"tid":2,"args":{"r":1}}]"#,
    );
    assert_eq!(
        row_strings(
            &t,
            "async_slices",
            &["name", "id", "ts_ns", "dur_ns", "depth", "did_not_finish"]
        ),
        vec![
            "op 0x1 1000 4000 0 false",
            "sub 1 2000 2000 1 false",
            "mark 1 3000 0 2 false"
        ]
    );
    assert_eq!(t.stats().async_slices, 3);
    assert!(t.diagnostics.is_empty(), "{:?}", t.diagnostics);
}

#[test]
fn async_keys_include_category_and_scope() {
    let t = load(
        r#"[{"ph":"b","cat":"a","name":"x","id":1,"ts":1,"pid":1},{"ph":"b","cat":"b","name":"y","id":1,"ts":2,"pid":1},
        {"ph":"e","cat":"a","id":1,"ts":3,"pid":1},{"ph":"e","cat":"b","id":1,"ts":4,"pid":1}]"#,
    );
    assert_eq!(
        row_strings(&t, "async_slices", &["name", "ts_ns", "dur_ns", "depth"]),
        vec!["x 1000 2000 0", "y 2000 2000 0"]
    );
}

#[test]
fn async_unclosed_ends_at_trace_end_and_stray_end_is_a_diagnostic() {
    let t = load(
        r#"[{"ph":"b","cat":"c","name":"op","id":7,"ts":1,"pid":1},{"ph":"e","cat":"c","name":"op","id":8,"ts":2,"pid":1},
        {"ph":"X","name":"late","ts":9,"dur":1,"pid":1,"tid":1}]"#,
    );
    assert_eq!(
        row_strings(
            &t,
            "async_slices",
            &["name", "ts_ns", "dur_ns", "did_not_finish"]
        ),
        vec!["op 1000 9000 true"]
    );
    assert_eq!(diag_kinds(&t), vec!["unmatched_end"]);
}

#[test]
fn async_id_rules() {
    let t = load(
        r#"[{"ph":"b","cat":"c","name":"both","id":1,"id2":{"global":2},"ts":1,"pid":1},{"ph":"e","cat":"c","id":1,"ts":2,"pid":1},
        {"ph":"b","cat":"c","name":"noid","ts":3,"pid":1},
        {"ph":"b","cat":"c","name":"l1","id2":{"local":5},"ts":4,"pid":1},{"ph":"b","cat":"c","name":"l2","id2":{"local":5},"ts":4,"pid":2},
        {"ph":"e","cat":"c","id2":{"local":5},"ts":6,"pid":1},{"ph":"e","cat":"c","id2":{"local":5},"ts":7,"pid":2}]"#,
    );
    assert_eq!(
        row_strings(
            &t,
            "async_slices",
            &["name", "pid", "ts_ns", "dur_ns", "depth"]
        ),
        vec!["both 1 1000 1000 0", "l1 1 4000 2000 0", "l2 2 4000 3000 0"]
    );
    assert_eq!(row_strings(&t, "other", &["ph", "name"]), vec!["b noid"]);
    let bad = t
        .diagnostics
        .get(tracescope_format::DiagKind::BadId)
        .unwrap();
    assert_eq!(bad.count, 2);
}

#[test]
fn legacy_async_steps() {
    let t = load(
        r#"[{"ph":"S","name":"load","id":3,"ts":0,"pid":1},{"ph":"T","name":"load","id":3,"ts":2,"pid":1,"args":{"step":"fetch"}},
        {"ph":"p","name":"load","id":3,"ts":6,"pid":1,"args":{"step":"parse"}},{"ph":"F","name":"load","id":3,"ts":10,"pid":1}]"#,
    );
    assert_eq!(
        row_strings(&t, "async_slices", &["name", "ts_ns", "dur_ns", "depth"]),
        vec!["load 0 10000 0", "fetch 2000 4000 1", "parse 2000 4000 1"]
    );
    assert_eq!(t.stats().async_slices, 3);
}

#[test]
fn async_operations_pack_into_lanes() {
    let t = load(
        r#"[{"ph":"b","cat":"c","name":"req","id":1,"ts":0,"pid":1},{"ph":"b","cat":"c","name":"req","id":2,"ts":1,"pid":1},
        {"ph":"e","cat":"c","id":1,"ts":5,"pid":1},{"ph":"e","cat":"c","id":2,"ts":6,"pid":1},
        {"ph":"b","cat":"c","name":"req","id":3,"ts":5,"pid":1},{"ph":"e","cat":"c","id":3,"ts":8,"pid":1}]"#,
    );
    assert_eq!(
        row_strings(&t, "async_slices", &["id", "lane"]),
        vec!["1 0", "2 1", "3 0"]
    );
    assert_eq!(t.tables.async_slices.groups.len(), 1);
}

#[test]
fn flows_v1_bind_to_enclosing_and_next_slices() {
    let t = load(
        r#"[{"ph":"X","name":"send","ts":0,"dur":10,"pid":1,"tid":1},{"ph":"X","name":"inner","ts":2,"dur":2,"pid":1,"tid":1},
        {"ph":"X","name":"recv","ts":20,"dur":5,"pid":1,"tid":2},{"ph":"X","name":"enc","ts":30,"dur":5,"pid":1,"tid":3},
        {"ph":"s","cat":"f","name":"msg","id":1,"ts":3,"pid":1,"tid":1},{"ph":"t","cat":"f","name":"msg","id":1,"ts":15,"pid":1,"tid":2},
        {"ph":"f","cat":"f","name":"msg","id":1,"ts":18,"pid":1,"tid":2},
        {"ph":"s","cat":"f","name":"m2","id":1,"ts":5,"pid":1,"tid":1},{"ph":"f","cat":"f","name":"m2","id":1,"ts":31,"bp":"e","pid":1,"tid":3}]"#,
    );
    // The t at 15 has no slice on thread 2 around it: that arrow and the next are unbound.
    assert_eq!(
        row_strings(
            &t,
            "flows",
            &["from_name", "from_ts_ns", "to_name", "to_ts_ns"]
        ),
        vec!["send 5000 enc 31000"]
    );
    assert_eq!(
        t.diagnostics
            .get(tracescope_format::DiagKind::UnboundFlow)
            .unwrap()
            .count,
        2
    );
    let t = load(
        r#"[{"ph":"X","name":"send","ts":0,"dur":10,"pid":1,"tid":1},{"ph":"X","name":"inner","ts":2,"dur":2,"pid":1,"tid":1},
        {"ph":"X","name":"recv","ts":20,"dur":5,"pid":1,"tid":2},
        {"ph":"s","cat":"f","name":"msg","id":1,"ts":3,"pid":1,"tid":1},{"ph":"f","cat":"f","name":"msg","id":1,"ts":18,"pid":1,"tid":2}]"#,
    );
    assert_eq!(
        row_strings(&t, "flows", &["from_name", "from_tid", "to_name", "to_tid"]),
        vec!["inner 1 recv 2"]
    );
    assert!(t.diagnostics.is_empty());
}

#[test]
fn flows_v2_bind_ids() {
    let t = load(
        r#"[{"ph":"X","name":"a","ts":0,"dur":2,"pid":1,"tid":1,"bind_id":"0x5","flow_out":true},
        {"ph":"X","name":"b","ts":5,"dur":2,"pid":1,"tid":2,"bind_id":5,"flow_in":true,"flow_out":true},
        {"ph":"X","name":"c","ts":9,"dur":1,"pid":1,"tid":1,"bind_id":"5","flow_in":true}]"#,
    );
    assert_eq!(
        row_strings(
            &t,
            "flows",
            &["from_name", "from_ts_ns", "to_name", "to_ts_ns"]
        ),
        vec!["a 2000 b 5000", "b 7000 c 9000"]
    );
    assert_eq!(t.stats().flows, 2);
}

#[test]
fn counters_series_ids_and_bad_values() {
    let t = load(
        r#"[{"ph":"C","name":"mem","ts":1,"pid":1,"args":{"heap":10,"gpu":"2.5"}},{"ph":"C","name":"mem","ts":2,"pid":1,"args":{"heap":12}},
        {"ph":"C","name":"mem","id":7,"ts":3,"pid":1,"args":{"heap":1}},{"ph":"C","name":"mem","ts":4,"pid":2,"args":{"heap":"x","big":9007199254740993}}]"#,
    );
    assert_eq!(
        row_strings(&t, "counters", &["pid", "name", "series", "ts_ns", "value"]),
        vec![
            "1 mem heap 1000 10",
            "1 mem gpu 1000 2.5",
            "1 mem heap 2000 12",
            "1 mem[7] heap 3000 1",
            "2 mem big 4000 9007199254740993"
        ]
    );
    assert_eq!(t.stats().counter_series, 4);
    assert_eq!(t.stats().counter_samples, 5);
    assert_eq!(
        diag_kinds(&t)
            .iter()
            .filter(|k| **k == "bad_counter_value")
            .count(),
        1
    );
}

#[test]
fn objects_lifetimes_and_snapshots() {
    let t = load(
        r#"[{"ph":"N","name":"W","id":"0x1","ts":1,"pid":1},{"ph":"O","name":"W","id":1,"ts":2,"pid":1,"args":{"snapshot":{"a":1}}},
        {"ph":"D","name":"W","id":"0x1","ts":3,"pid":1},{"ph":"N","name":"W","id":"0x1","ts":4,"pid":2},
        {"ph":"X","name":"end","ts":9,"dur":1,"pid":1,"tid":1},{"ph":"D","name":"Z","id":9,"ts":5,"pid":1}]"#,
    );
    assert_eq!(
        row_strings(
            &t,
            "objects",
            &["pid", "name", "id", "start_ns", "end_ns", "snapshots"]
        ),
        vec!["1 W 0x1 1000 3000 1", "2 W 0x1 4000 10000 0"]
    );
    assert_eq!(diag_kinds(&t), vec!["unmatched_object"]);
}

#[test]
fn samples_through_stack_frames_and_top_level_samples() {
    let t = load(
        r#"{"traceEvents":[{"ph":"P","name":"s","ts":1,"pid":1,"tid":3,"sf":2},{"ph":"X","name":"x","ts":0,"dur":9,"pid":4,"tid":3}],
        "stackFrames":{"1":{"name":"main","category":"app"},"2":{"name":"work","parent":"1"}},
        "samples":[{"cpu":0,"tid":3,"ts":5,"name":"cycles","sf":1,"weight":2},{"tid":99,"ts":6,"sf":"2"}]}"#,
    );
    assert_eq!(
        row_strings(&t, "samples", &["pid", "tid", "ts_ns", "stack", "weight"]),
        vec![
            "1 3 1000 main;work 1",
            "1 3 5000 main 2",
            "0 99 6000 main;work 1"
        ]
    );
    assert_eq!(t.stats().events, 2);
}

#[test]
fn metadata_names_sort_indexes_and_order() {
    let t = load(
        r#"[{"ph":"M","name":"process_name","pid":2,"args":{"name":"b-proc"}},{"ph":"M","name":"process_name","pid":3,"args":{"name":"a-proc"}},
        {"ph":"M","name":"process_sort_index","pid":9,"args":{"sort_index":-1}},{"ph":"M","name":"process_labels","pid":3,"args":{"labels":"x,y"}},
        {"ph":"M","name":"thread_name","pid":3,"tid":1,"args":{"name":"zeta"}},{"ph":"M","name":"thread_name","pid":3,"tid":2,"args":{"name":"alpha"}},
        {"ph":"M","name":"thread_sort_index","pid":3,"tid":1,"args":{"sort_index":0}},{"ph":"M","name":"whatever","pid":1,"args":{}},
        {"ph":"M","name":"num_cpus","args":{"number":8}}]"#,
    );
    assert_eq!(
        row_strings(&t, "processes", &["pid", "name", "labels"]),
        vec!["9  ", "3 a-proc x,y", "2 b-proc ", "0  ", "1  "]
    );
    assert_eq!(
        row_strings(&t, "threads", &["pid", "tid", "name"]),
        vec!["3 1 zeta", "3 2 alpha"]
    );
    assert_eq!(t.stats().metadata_events, 9);
    assert_eq!(t.info.num_cpus, Some(8));
}

#[test]
fn other_events_are_kept() {
    let t = load(
        r#"[{"ph":"v","name":"dump","ts":1,"pid":1,"tid":1},{"ph":"c","name":"sync","ts":2,"pid":1},{"ph":"XXX","name":"odd","ts":3,"pid":1},
        {"name":"nophase","ts":4,"pid":1},{"ph":"(","ts":5,"pid":1}]"#,
    );
    assert_eq!(
        row_strings(&t, "other", &["ph", "name", "ts_ns"]),
        vec![
            "v dump 1000",
            "c sync 2000",
            "XXX odd 3000",
            " nophase 4000",
            "( (unnamed) 5000"
        ]
    );
    let unknown = t
        .diagnostics
        .get(tracescope_format::DiagKind::UnknownPhase)
        .unwrap();
    assert_eq!(unknown.count, 2);
    let st = t.stats();
    assert_eq!(st.other_events, 5);
    assert_eq!(
        st.phases.iter().find(|(p, _)| p.is_empty()).map(|p| p.1),
        Some(1)
    );
}

#[test]
fn counts_and_bounds() {
    let t = load(
        r#"{"traceEvents":[{"ph":"M","name":"thread_name","pid":1,"tid":1,"ts":-100,"args":{"name":"t"}},
        {"ph":"X","name":"a","ts":-5,"dur":10,"pid":1,"tid":1},{"ph":"i","name":"i","ts":20,"pid":1,"tid":1},{"ph":"X","name":"m","pid":1,"tid":1,"dur":1}],
        "displayTimeUnit":"ns","otherData":{"v":1}}"#,
    );
    let st = t.stats();
    assert_eq!((st.start_ns, st.end_ns), (Some(-5000), Some(20_000)));
    assert_eq!(st.events, 4);
    assert_eq!(diag_kinds(&t), vec!["missing_ts"]);
    assert_eq!(t.info.display_time_unit.as_deref(), Some("ns"));
    assert_eq!(col(&t, "slices", "ts_ns"), vec![i(-5000), i(0)]);
}

#[test]
fn merged_args_are_compact_json() {
    let t = load(
        r#"[{"ph":"X","name":"a","ts":0,"dur":1,"pid":1,"tid":1,"args":{"n":18446744073709551615,"s":"q\"x","o":{"k":[1,2.50]}}}]"#,
    );
    assert_eq!(
        col(&t, "slices", "args"),
        vec![Cell::Json(
            r#"{"n":18446744073709551615,"s":"q\"x","o":{"k":[1,2.50]}}"#.into()
        )]
    );
}

/// Regression: times near the ends of i64 nanoseconds once overflowed a duration.
#[test]
fn extreme_times_saturate_instead_of_overflowing() {
    let t = load(
        r#"[{"ph":"b","cat":"c","name":"op","id":1,"ts":-9223372036854775,"pid":1},
        {"ph":"X","name":"x","ts":9223372036854775,"dur":9223372036854775,"pid":1,"tid":1},
        {"ph":"B","name":"open","ts":-9223372036854775,"pid":1,"tid":1}]"#,
    );
    assert_eq!(col(&t, "async_slices", "dur_ns"), vec![i(i64::MAX)]);
    let durs = col(&t, "slices", "dur_ns");
    assert_eq!(durs.len(), 2);
    assert!(durs.iter().all(|d| matches!(d, Cell::Int(v) if *v >= 0)));
}
