//! Spec section 3: duration events, one focused case per rule.

mod common;
use common::*;
use tracescope_model::Cell;

/// (name, ts, dur, depth, did_not_finish) per slice row.
/// (name, ts, dur, depth, did_not_finish)
type Row = (String, i64, i64, i64, bool);

fn rows(json: &str) -> (Vec<Row>, Vec<&'static str>) {
    let t = load(json);
    let r = t.rows("slices").unwrap();
    let v = (0..r.rows.len())
        .map(|k| {
            let n = |c: &str| match r.get(k, c) {
                Cell::Int(v) => *v,
                o => panic!("{c}: {o:?}"),
            };
            (
                r.get(k, "name").to_string(),
                n("ts_ns"),
                n("dur_ns"),
                n("depth"),
                r.get(k, "did_not_finish") == &Cell::Bool(true),
            )
        })
        .collect();
    (v, diag_kinds(&t))
}

fn sl(name: &str, ts: i64, dur: i64, depth: i64, dnf: bool) -> Row {
    (name.to_string(), ts, dur, depth, dnf)
}

#[test]
fn end_closes_innermost() {
    let (v, d) = rows(
        r#"[{"ph":"B","name":"a","ts":0,"pid":1,"tid":1},{"ph":"B","name":"b","ts":1,"pid":1,"tid":1},
        {"ph":"E","ts":2,"pid":1,"tid":1},{"ph":"E","ts":3,"pid":1,"tid":1}]"#,
    );
    assert_eq!(
        v,
        vec![sl("a", 0, 3000, 0, false), sl("b", 1000, 1000, 1, false)]
    );
    assert!(d.is_empty());
}

#[test]
fn end_naming_an_outer_slice_closes_everything_above_it() {
    let (v, d) = rows(
        r#"[{"ph":"B","name":"a","ts":0,"pid":1,"tid":1},{"ph":"B","name":"b","ts":1,"pid":1,"tid":1},
        {"ph":"B","name":"c","ts":2,"pid":1,"tid":1},{"ph":"E","name":"a","ts":5,"pid":1,"tid":1}]"#,
    );
    assert_eq!(
        v,
        vec![
            sl("a", 0, 5000, 0, false),
            sl("b", 1000, 4000, 1, false),
            sl("c", 2000, 3000, 2, false)
        ]
    );
    assert_eq!(d, vec!["misplaced_end"]);
}

#[test]
fn end_with_unknown_name_closes_innermost() {
    let (v, d) = rows(
        r#"[{"ph":"B","name":"a","ts":0,"pid":1,"tid":1},{"ph":"B","name":"b","ts":1,"pid":1,"tid":1},
        {"ph":"E","name":"zzz","ts":2,"pid":1,"tid":1},{"ph":"E","ts":3,"pid":1,"tid":1}]"#,
    );
    assert_eq!(
        v,
        vec![sl("a", 0, 3000, 0, false), sl("b", 1000, 1000, 1, false)]
    );
    assert_eq!(d, vec!["end_name_mismatch"]);
}

#[test]
fn end_args_merge_and_win() {
    let t = load(
        r#"[{"ph":"B","name":"a","ts":0,"pid":1,"tid":1,"args":{"x":1,"y":2}},{"ph":"E","ts":3,"pid":1,"tid":1,"args":{"y":3,"z":4}}]"#,
    );
    assert_eq!(
        col(&t, "slices", "args"),
        vec![Cell::Json(r#"{"x":1,"y":3,"z":4}"#.into())]
    );
}

#[test]
fn end_with_nothing_open_is_a_diagnostic() {
    let (v, d) = rows(
        r#"[{"ph":"E","name":"a","ts":0,"pid":1,"tid":1},{"ph":"X","name":"x","ts":1,"dur":1,"pid":1,"tid":1}]"#,
    );
    assert_eq!(v, vec![sl("x", 1000, 1000, 0, false)]);
    assert_eq!(d, vec!["unmatched_end"]);
}

#[test]
fn unclosed_begin_ends_at_the_threads_last_end() {
    let (v, d) = rows(
        r#"[{"ph":"B","name":"a","ts":1,"pid":1,"tid":1},{"ph":"X","name":"x","ts":2,"dur":8,"pid":1,"tid":1},
        {"ph":"I","name":"i","ts":5,"pid":1,"tid":1},{"ph":"X","name":"other-thread","ts":0,"dur":100,"pid":1,"tid":2}]"#,
    );
    assert_eq!(v[0], sl("other-thread", 0, 100_000, 0, false));
    assert_eq!(
        &v[1..],
        &[sl("a", 1000, 9000, 0, true), sl("x", 2000, 8000, 1, false)]
    );
    assert!(d.is_empty(), "{d:?}");
}

#[test]
fn complete_without_dur_did_not_finish() {
    let (v, _) = rows(
        r#"[{"ph":"X","name":"a","ts":1,"pid":1,"tid":1},{"ph":"X","name":"b","ts":2,"dur":3,"pid":1,"tid":1}]"#,
    );
    assert_eq!(
        v,
        vec![sl("a", 1000, 4000, 0, true), sl("b", 2000, 3000, 1, false)]
    );
}

#[test]
fn begin_end_and_complete_form_one_tree() {
    let (v, d) = rows(
        r#"[{"ph":"B","name":"outer","ts":0,"pid":1,"tid":1},{"ph":"X","name":"inner","ts":1,"dur":2,"pid":1,"tid":1},
        {"ph":"E","ts":10,"pid":1,"tid":1}]"#,
    );
    assert_eq!(
        v,
        vec![
            sl("outer", 0, 10_000, 0, false),
            sl("inner", 1000, 2000, 1, false)
        ]
    );
    assert!(d.is_empty());
}

#[test]
fn ties_at_equal_start_put_longer_first_then_file_order() {
    let (v, _) = rows(
        r#"[{"ph":"X","name":"short","ts":1,"dur":1,"pid":1,"tid":1},{"ph":"X","name":"long","ts":1,"dur":5,"pid":1,"tid":1},
        {"ph":"X","name":"same1","ts":10,"dur":2,"pid":1,"tid":1},{"ph":"X","name":"same2","ts":10,"dur":2,"pid":1,"tid":1}]"#,
    );
    assert_eq!(
        v,
        vec![
            sl("long", 1000, 5000, 0, false),
            sl("short", 1000, 1000, 1, false),
            sl("same1", 10_000, 2000, 0, false),
            sl("same2", 10_000, 2000, 1, false)
        ]
    );
}

#[test]
fn a_slice_starting_at_the_parents_end_is_not_inside() {
    let (v, _) = rows(
        r#"[{"ph":"X","name":"p","ts":0,"dur":5,"pid":1,"tid":1},{"ph":"X","name":"next","ts":5,"dur":0,"pid":1,"tid":1},
        {"ph":"X","name":"z","ts":8,"dur":0,"pid":1,"tid":1},{"ph":"X","name":"zz","ts":8,"dur":0,"pid":1,"tid":1}]"#,
    );
    assert_eq!(
        v,
        vec![
            sl("p", 0, 5000, 0, false),
            sl("next", 5000, 0, 0, false),
            sl("z", 8000, 0, 0, false),
            sl("zz", 8000, 0, 1, false)
        ]
    );
}

#[test]
fn improper_overlap_goes_to_an_extra_row() {
    let t = load(
        r#"[{"ph":"X","name":"a","ts":0,"dur":10,"pid":1,"tid":1},{"ph":"X","name":"a1","ts":1,"dur":2,"pid":1,"tid":1},
        {"ph":"X","name":"b","ts":5,"dur":10,"pid":1,"tid":1},{"ph":"X","name":"c","ts":12,"dur":1,"pid":1,"tid":1}]"#,
    );
    let r = t.rows("slices").unwrap();
    let find = |n: &str| {
        (0..r.rows.len())
            .find(|&k| r.get(k, "name") == &s(n))
            .unwrap()
    };
    // b starts inside a and ends outside it: one deeper than the deepest row in use
    // during [5, 15): a (depth 0) and c (depth 0) -> depth 1; a1 is not in its span.
    let b = find("b");
    assert_eq!(
        (r.get(b, "depth"), r.get(b, "overlap"), r.get(b, "self_ns")),
        (&i(1), &Cell::Bool(true), &i(10_000))
    );
    assert_eq!(r.get(find("c"), "depth"), &i(0));
    assert_eq!(
        r.get(find("a"), "self_ns"),
        &i(8000),
        "b takes nothing from a's self time"
    );
    assert_eq!(diag_kinds(&t), vec!["overlap"]);
    assert_eq!(
        t.diagnostics
            .get(tracescope_format::DiagKind::Overlap)
            .unwrap()
            .count,
        1
    );
}

#[test]
fn overlap_row_is_below_every_row_in_use() {
    let t = load(
        r#"[{"ph":"X","name":"a","ts":0,"dur":10,"pid":1,"tid":1},{"ph":"X","name":"a1","ts":6,"dur":3,"pid":1,"tid":1},
        {"ph":"X","name":"a2","ts":6.5,"dur":1,"pid":1,"tid":1},{"ph":"X","name":"b","ts":5,"dur":10,"pid":1,"tid":1}]"#,
    );
    let r = t.rows("slices").unwrap();
    let b = (0..r.rows.len())
        .find(|&k| r.get(k, "name") == &s("b"))
        .unwrap();
    assert_eq!(r.get(b, "depth"), &i(3));
}

#[test]
fn unsorted_thread_is_sorted_with_a_diagnostic() {
    let (v, d) = rows(
        r#"[{"ph":"B","name":"b","ts":5,"pid":1,"tid":1},{"ph":"E","ts":6,"pid":1,"tid":1},
        {"ph":"B","name":"a","ts":1,"pid":1,"tid":1},{"ph":"E","ts":2,"pid":1,"tid":1}]"#,
    );
    assert_eq!(
        v,
        vec![sl("a", 1000, 1000, 0, false), sl("b", 5000, 1000, 0, false)]
    );
    assert_eq!(d, vec!["unsorted_thread"]);
}

#[test]
fn complete_events_written_at_their_end_are_not_unsorted() {
    let (v, d) = rows(
        r#"[{"ph":"X","name":"child","ts":2,"dur":1,"pid":1,"tid":1},{"ph":"X","name":"parent","ts":1,"dur":5,"pid":1,"tid":1}]"#,
    );
    assert_eq!(
        v,
        vec![
            sl("parent", 1000, 5000, 0, false),
            sl("child", 2000, 1000, 1, false)
        ]
    );
    assert!(d.is_empty());
}

#[test]
fn ui_nest_is_matched_by_name_on_its_own_lane() {
    let t = load(
        r#"[{"ph":"B","name":"F","ts":1,"pid":1,"tid":1,"args":{"ui-nest":1}},{"ph":"B","name":"G","ts":2,"pid":1,"tid":1,"args":{"ui-nest":1}},
        {"ph":"E","name":"F","ts":3,"pid":1,"tid":1},{"ph":"E","name":"G","ts":4,"pid":1,"tid":1,"args":{"ui-nest":1}}]"#,
    );
    assert_eq!(col(&t, "slices", "name"), vec![s("F"), s("G")]);
    assert_eq!(col(&t, "slices", "dur_ns"), vec![i(2000), i(2000)]);
    assert_eq!(col(&t, "slices", "lane"), vec![s("ui-nest"), s("ui-nest")]);
    // G outlives F: ending in any order is allowed, G goes one row down.
    assert_eq!(col(&t, "slices", "depth"), vec![i(0), i(1)]);
    assert!(t.diagnostics.is_empty(), "{:?}", t.diagnostics);
}

#[test]
fn thread_time_is_kept() {
    let t = load(
        r#"[{"ph":"B","name":"a","ts":0,"tts":10,"pid":1,"tid":1},{"ph":"E","ts":5,"tts":13,"pid":1,"tid":1},
        {"ph":"X","name":"x","ts":6,"dur":2,"tts":14,"tdur":1,"pid":1,"tid":1}]"#,
    );
    assert_eq!(col(&t, "slices", "tts_ns"), vec![i(10_000), i(14_000)]);
    assert_eq!(col(&t, "slices", "tdur_ns"), vec![i(3000), i(1000)]);
}

#[test]
fn self_time_subtracts_direct_children_only() {
    let t = load(
        r#"[{"ph":"X","name":"a","ts":0,"dur":10,"pid":1,"tid":1},{"ph":"X","name":"b","ts":1,"dur":4,"pid":1,"tid":1},
        {"ph":"X","name":"c","ts":2,"dur":1,"pid":1,"tid":1},{"ph":"X","name":"d","ts":6,"dur":2,"pid":1,"tid":1}]"#,
    );
    assert_eq!(
        col(&t, "slices", "self_ns"),
        vec![i(4000), i(3000), i(1000), i(2000)]
    );
}

#[test]
fn missing_pid_and_tid_mean_zero_and_events_without_tid_make_no_thread() {
    let t = load(
        r#"[{"ph":"X","name":"a","ts":0,"dur":1},{"ph":"M","name":"process_name","pid":7,"args":{"name":"p7"}}]"#,
    );
    assert_eq!(col(&t, "slices", "pid"), vec![i(0)]);
    assert_eq!(col(&t, "slices", "tid"), vec![i(0)]);
    assert_eq!(t.stats().threads, 1);
    assert_eq!(t.stats().processes, 2);
}

#[test]
fn string_pids_and_tids() {
    let t = load(
        r#"[{"ph":"X","name":"a","ts":0,"dur":1,"pid":"25738","tid":"worker"},{"ph":"X","name":"b","ts":2,"dur":1,"pid":25738,"tid":"worker"}]"#,
    );
    assert_eq!(t.stats().processes, 1);
    assert_eq!(t.stats().threads, 1);
    assert_eq!(col(&t, "slices", "pid"), vec![i(25738), i(25738)]);
    assert_eq!(col(&t, "slices", "tid"), vec![s("worker"), s("worker")]);
}

#[test]
fn large_ids_stay_exact() {
    let t = load(
        r#"[{"ph":"X","name":"a","ts":0,"dur":1,"pid":18446744073709551615,"tid":-9223372036854775808}]"#,
    );
    assert_eq!(col(&t, "slices", "pid"), vec![Cell::UInt(u64::MAX)]);
    assert_eq!(col(&t, "slices", "tid"), vec![i(i64::MIN)]);
}

#[test]
fn sub_nanosecond_spans_round_both_ends_then_subtract() {
    let (v, _) = rows(
        r#"[{"ph":"X","name":"a","ts":0.0006,"dur":0.0008,"pid":1,"tid":1},
        {"ph":"X","name":"b","ts":10.0004,"dur":0.0002,"pid":1,"tid":1},
        {"ph":"X","name":"c","ts":"20.0004","dur":"1.5e-3","pid":1,"tid":1}]"#,
    );
    // a: 0.6 ns .. 1.4 ns -> [1, 1); b: 10000.4 .. 10000.6 -> [10000, 10001);
    // c: 20000.4 .. 20001.9 -> [20000, 20002).
    assert_eq!(
        v,
        vec![
            sl("a", 1, 0, 0, false),
            sl("b", 10_000, 1, 0, false),
            sl("c", 20_000, 2, 0, false)
        ]
    );
}
