//! The JSON reader's contract (spec sections 1, 2 and 12), case by case.

mod common;

use std::borrow::Cow;

use common::{diags, read};
use tracescope_format::json::{read_events, read_json, Form, ReadOptions};
use tracescope_format::{DiagKind, Event, Id, Id2, Int64, Pid, RawJson, Source};

fn one(text: &str) -> Event<'_> {
    let (trace, mut events) = read(text);
    assert_eq!(events.len(), 1, "{text}: {:?}", diags(&trace.diagnostics));
    events.remove(0)
}

fn at(text: &str, needle: &str) -> u64 {
    text.find(needle)
        .unwrap_or_else(|| panic!("{needle} not in {text}")) as u64
}

fn raw(text: &str) -> RawJson<'_> {
    RawJson::borrowed(text)
}

// ---- fields -------------------------------------------------------------------------

#[test]
fn times_are_exact_nanoseconds() {
    let e = one(r#"[{"ph":"X","ts":522975545427.123,"dur":1.5,"tts":-3,"tdur":0.0005}]"#);
    assert_eq!(
        (e.ts, e.dur, e.tts, e.tdur),
        (Some(522_975_545_427_123), Some(1500), Some(-3000), Some(1))
    );
    assert!(e.extra.is_empty());
}

#[test]
fn numeric_strings_and_unusable_times() {
    let t = r#"[{"ph":"X","ts":"100","dur":"100a","tts":{},"tdur":null}]"#;
    let (trace, ev) = read(t);
    let e = &ev[0];
    assert_eq!(
        (e.ts, e.dur, e.tts, e.tdur),
        (Some(100_000), None, None, None)
    );
    assert_eq!(
        e.extra,
        vec![
            ("dur".into(), raw(r#""100a""#)),
            ("tts".into(), raw("{}")),
            ("tdur".into(), raw("null"))
        ]
    );
    assert_eq!(
        diags(&trace.diagnostics),
        vec![
            ("bad_field", 3, at(t, r#""100a""#)),
            ("numeric_string", 1, at(t, r#""100""#))
        ]
    );
}

#[test]
fn pids_and_tids_stay_exact() {
    let e = one(r#"[{"pid":18446744073709551615,"tid":-9223372036854775808,"ph":"i"}]"#);
    assert_eq!(e.pid, Some(Pid::Int(Int64::U(u64::MAX))));
    assert_eq!(e.tid, Some(Pid::Int(Int64::I(i64::MIN))));
    let e = one(r#"[{"pid":"25738","tid":1.0}]"#);
    assert_eq!(
        (e.pid, e.tid),
        (Some(Pid::Int(Int64::I(25738))), Some(Pid::Int(Int64::I(1))))
    );
    let e = one(r#"[{"pid":"Browser","tid":"w\u00e9b"}]"#);
    assert_eq!(e.pid, Some(Pid::Str(Cow::Borrowed("Browser"))));
    assert_eq!(e.tid, Some(Pid::Str("wéb".into())));
    let t = r#"[{"pid":1.5,"tid":true}]"#;
    let (trace, ev) = read(t);
    assert_eq!((ev[0].pid.clone(), ev[0].tid.clone()), (None, None));
    assert_eq!(
        ev[0].extra,
        vec![("pid".into(), raw("1.5")), ("tid".into(), raw("true"))]
    );
    assert_eq!(diags(&trace.diagnostics), vec![("bad_field", 2, 8)]);
}

#[test]
fn ids_id2_and_flow_fields() {
    let e = one(
        r#"[{"ph":"b","id":"0x1F","bind_id":18446744073709551615,"sf":7,"esf":"s","id2":{"local":"0x2"},
            "flow_in":true,"flow_out":false}]"#,
    );
    assert_eq!(e.id, Some(Id::Str("0x1F".into())));
    assert_eq!(e.bind_id, Some(Id::Int(Int64::U(u64::MAX))));
    assert_eq!(
        (e.sf, e.esf),
        (Some(Id::Int(Int64::I(7))), Some(Id::Str("s".into())))
    );
    assert_eq!(e.id2, Some(Id2::Local(Id::Str("0x2".into()))));
    assert_eq!((e.flow_in, e.flow_out), (Some(true), Some(false)));
    assert_eq!(
        one(r#"[{"id2": { "global" : 12 }}]"#).id2,
        Some(Id2::Global(Id::Int(Int64::I(12))))
    );
    // Read as tolerantly as `value::compact`, so writing it back keeps its meaning.
    let t = "[{\"id2\": {\"loc\\u0061l\": \"x\", /* c */}}]";
    let (trace, ev) = read(t);
    assert_eq!(ev[0].id2, Some(Id2::Local(Id::Str("x".into()))));
    assert_eq!(
        diags(&trace.diagnostics),
        vec![
            ("comment", 1, at(t, "/*")),
            ("trailing_comma", 1, at(t, ", /*"))
        ]
    );

    let t = r#"[{"id2":{"global":1,"local":2},"id":[1],"flow_in":1}]"#;
    let (trace, ev) = read(t);
    let e = &ev[0];
    assert_eq!((e.id2.clone(), e.id.clone(), e.flow_in), (None, None, None));
    assert_eq!(
        e.extra,
        vec![
            ("id2".into(), raw(r#"{"global":1,"local":2}"#)),
            ("id".into(), raw("[1]")),
            ("flow_in".into(), raw("1"))
        ]
    );
    assert_eq!(diags(&trace.diagnostics), vec![("bad_field", 3, 8)]);
}

#[test]
fn strings_borrow_unless_escaped() {
    let e = one(
        r#"[{"ph":"XXX","name":"a\"b\n","cat":"c1,c2","scope":"sc","s":"g","bp":"e","cname":"good"}]"#,
    );
    assert!(
        matches!(e.ph, Some(Cow::Borrowed("XXX"))),
        "the whole ph string"
    );
    assert!(matches!(&e.name, Some(Cow::Owned(n)) if n == "a\"b\n"));
    assert!(matches!(e.cat, Some(Cow::Borrowed("c1,c2"))));
    assert_eq!(
        (
            e.scope.as_deref(),
            e.s.as_deref(),
            e.bp.as_deref(),
            e.cname.as_deref()
        ),
        (Some("sc"), Some("g"), Some("e"), Some("good"))
    );
    // Raw control characters inside strings are accepted as they are.
    assert_eq!(
        one("[{\"name\":\"tab\there\"}]").name.as_deref(),
        Some("tab\there")
    );
    let e = one(r#"[{"name":5}]"#);
    assert_eq!((e.name, e.extra), (None, vec![("name".into(), raw("5"))]));
}

#[test]
fn args_stack_and_unknown_keys_are_kept_raw() {
    let t = r#"[{"args": {"a": [1, {"b": "}"}]}, "zz": 1, "stack":[1,2], "estack":"x", "aa": {"k":null}}]"#;
    let e = one(t);
    assert!(matches!(
        &e.args,
        Some(RawJson {
            text: Cow::Borrowed(r#"{"a": [1, {"b": "}"}]}"#),
            clean: true
        })
    ));
    assert_eq!(
        (e.stack, e.estack),
        (Some(raw("[1,2]")), Some(raw(r#""x""#)))
    );
    assert_eq!(
        e.extra,
        vec![("zz".into(), raw("1")), ("aa".into(), raw(r#"{"k":null}"#))]
    );
    assert_eq!(e.offset, 1);

    let t = "[{\"args\": {\"a\": 1, // why\n \"b\": [2,],}}]";
    let (trace, ev) = read(t);
    let args = ev[0].args.clone().unwrap();
    assert_eq!(
        (args.text.as_ref(), args.clean),
        ("{\"a\": 1, // why\n \"b\": [2,],}", false)
    );
    assert_eq!(
        diags(&trace.diagnostics),
        vec![
            ("comment", 1, at(t, "//")),
            ("trailing_comma", 2, at(t, ",]"))
        ]
    );
}

#[test]
fn duplicate_keys_last_wins() {
    let t = r#"[{"ts":"bad","ph":"B","ts":5,"x":1,"ph":"E","x":2,"dur":1,"dur":[]}]"#;
    let (trace, ev) = read(t);
    let e = &ev[0];
    assert_eq!(
        (e.ts, e.ph.as_deref(), e.dur),
        (Some(5000), Some("E"), None)
    );
    assert_eq!(
        e.extra,
        vec![("x".into(), raw("2")), ("dur".into(), raw("[]"))]
    );
    assert_eq!(
        diags(&trace.diagnostics),
        vec![
            ("bad_field", 2, at(t, r#""bad""#)),
            ("duplicate_key", 4, at(t, r#""ts":5"#))
        ]
    );
}

#[test]
fn event_offsets_count_bytes_of_the_text() {
    let t = "\u{feff}[ {\"name\":\"é\"},\r\n  {\"ph\":\"i\"} ]";
    let (trace, ev) = read(t);
    assert_eq!(
        ev.iter().map(|e| e.offset).collect::<Vec<_>>(),
        vec![5, at(t, "{\"ph\"")]
    );
    assert!(trace.diagnostics.is_empty());
}

// ---- the file -----------------------------------------------------------------------

#[test]
fn object_form_keeps_metadata_in_order() {
    let t = r##"{"otherData":{"v":1},"displayTimeUnit":"ns","traceEvents":[{"ph":"X"}],
        "stackFrames":{"1":{"name":"f"}},"samples":[{"sf":1}],"systemTraceEvents":"# tracer",
        "metadata":{"m":[1]}}"##;
    let (trace, ev) = read(t);
    assert_eq!((trace.form, trace.events, ev.len()), (Form::Object, 1, 1));
    assert_eq!(
        trace.metadata,
        vec![
            ("otherData".into(), raw(r#"{"v":1}"#)),
            ("displayTimeUnit".into(), raw(r#""ns""#)),
            ("metadata".into(), raw(r#"{"m":[1]}"#))
        ]
    );
    assert_eq!(trace.stack_frames, Some(raw(r#"{"1":{"name":"f"}}"#)));
    assert_eq!(trace.samples, Some(raw(r#"[{"sf":1}]"#)));
    assert_eq!(trace.system_trace_events, Some(raw(r##""# tracer""##)));
    assert!(trace.diagnostics.is_empty() && trace.cpu_profile.is_none());
}

#[test]
fn odd_metadata_values_are_kept_with_a_diagnostic() {
    let t = r#"{"displayTimeUnit":"us","systemTraceEvents":{"x":1},"traceEvents":{}}"#;
    let (trace, _) = read(t);
    assert_eq!(trace.form, Form::Object);
    assert_eq!(trace.system_trace_events, Some(raw(r#"{"x":1}"#)));
    assert_eq!(
        trace.metadata.len(),
        2,
        "displayTimeUnit and the non-array traceEvents"
    );
    assert_eq!(
        diags(&trace.diagnostics),
        vec![
            ("bad_display_time_unit", 1, at(t, r#""us""#)),
            ("bad_field", 1, at(t, "{}}")),
            ("non_string_system_trace", 1, at(t, r#"{"x""#)),
        ]
    );
}

#[test]
fn comments_before_the_trace_count_once() {
    for t in [
        "// c\n{\"traceEvents\":[]}",
        "// c\n{\"nodes\":[],\"samples\":[]}",
        "// c\n{\"ph\":\"X\"}",
        "// c\n[]",
    ] {
        assert_eq!(read(t).0.diagnostics.count(DiagKind::Comment), 1, "{t}");
    }
}

#[test]
fn traces_without_events_are_still_traces() {
    for t in [
        r#"{"samples":[]}"#,
        r#"{"systemTraceEvents":""}"#,
        r#"{"stackFrames":{}}"#,
        "[]",
        "[ ]",
    ] {
        let (trace, ev) = read(t);
        assert!(ev.is_empty() && trace.diagnostics.is_empty(), "{t}");
    }
}

#[test]
fn truncated_anywhere_keeps_complete_events() {
    let cases: &[(&str, &str, u64)] = &[
        (r#"[{"ph":"X"},{"ph":"B","ts":1"#, "1", 12),
        (r#"[{"ph":"X"},{"ph":"B","na"#, "1", 12),
        (r#"[{"ph":"X"},"#, "1", 12),
        (r#"[{"ph":"X"} "#, "1", 12),
        (r#"{"traceEvents":[{"ph":"X"},{"ph""#, "1", 27),
        (r#"{"traceEvents":[{"ph":"X"}]"#, "1", 27),
        (r#"{"traceEvents":[{"ph":"X"}], "meta": {"a": "#, "1", 29),
    ];
    for &(t, n, off) in cases {
        let (trace, ev) = read(t);
        assert_eq!(
            (ev.len().to_string().as_str(), diags(&trace.diagnostics)),
            (n, vec![("truncated", 1, off)]),
            "{t}"
        );
    }
}

#[test]
fn repairs_are_counted() {
    let t = "[ /* a */ {\"ph\":\"X\",}, {}, 7, {\"ph\":\"B\"}, // end\n ]";
    let (trace, ev) = read(t);
    assert_eq!((ev.len(), trace.events), (2, 2));
    assert_eq!(
        diags(&trace.diagnostics),
        vec![
            ("bad_field", 1, at(t, "7")),
            ("comment", 2, at(t, "/*")),
            ("empty_event", 1, at(t, "{}")),
            ("trailing_comma", 2, at(t, ",}")),
        ]
    );
}

#[test]
fn a_malformed_event_costs_only_itself() {
    let t = r#"[{"ph":"A"},{"ph":"X" "ts":1,"args":{"l":[{"a":1},{"b":2}]}},{"ph":"B"},{"ph":"C","ts":tru},{"ph":"D"}]"#;
    let (trace, ev) = read(t);
    let phases: Vec<_> = ev.iter().map(|e| e.ph_str().to_string()).collect();
    assert_eq!(phases, ["A", "B", "D"]);
    assert_eq!(
        diags(&trace.diagnostics),
        vec![("syntax_error", 2, at(t, r#""ts":1"#))]
    );

    // Garbage between events, a missing comma (JSON Lines style), text after the end.
    let t = "[{\"ph\":\"A\"} x {\"ph\":\"B\"}\n{\"ph\":\"C\"}] tail";
    let (trace, ev) = read(t);
    assert_eq!(ev.iter().map(|e| e.ph_str()).collect::<String>(), "ABC");
    assert_eq!(
        diags(&trace.diagnostics),
        vec![
            ("syntax_error", 2, at(t, "x")),
            ("trailing_content", 1, at(t, "tail"))
        ]
    );

    // A bad value inside balanced brackets: the list goes on after it.
    let t = r#"{"traceEvents":[{"ph":"A"},{"ph":@}],"later":1}"#;
    let (trace, ev) = read(t);
    assert_eq!(
        (ev.len(), diags(&trace.diagnostics)),
        (1, vec![("syntax_error", 1, at(t, "@"))])
    );
    assert_eq!(trace.metadata, vec![("later".into(), raw("1"))]);

    // An error with no event after it loses the rest, but never the events before.
    let t = r#"{"traceEvents":[{"ph":"A"},{"ph":"B", oops {{ ],"later":1}"#;
    let (trace, ev) = read(t);
    assert_eq!(
        (ev.len(), diags(&trace.diagnostics)),
        (1, vec![("syntax_error", 1, at(t, "oops"))])
    );
    assert!(trace.metadata.is_empty());
}

#[test]
fn bare_events_are_read_as_a_list() {
    let t = "{\"ph\":\"M\",\"name\":\"thread_name\"},\n{\"ph\":\"X\"}\n";
    let (trace, ev) = read(t);
    assert_eq!(
        (trace.form, ev.len(), ev[1].offset),
        (Form::BareEvents, 2, at(t, "{\"ph\":\"X"))
    );
    assert_eq!(diags(&trace.diagnostics), vec![("bare_events", 1, 0)]);
    let (trace, ev) = read(r#"{"ph":"X"}]"#);
    assert_eq!(
        (ev.len(), diags(&trace.diagnostics)),
        (1, vec![("bare_events", 1, 0), ("trailing_content", 1, 10)])
    );
    let (trace, ev) = read(r#"{"ph":"X","ts":"#);
    assert_eq!(
        (ev.len(), diags(&trace.diagnostics)),
        (0, vec![("bare_events", 1, 0), ("truncated", 1, 0)])
    );
}

#[test]
fn raw_cpu_profiles() {
    let t = r#"{"nodes":[{"id":1}],"startTime":1,"endTime":2,"samples":[1],"timeDeltas":[1]}"#;
    let (trace, ev) = read(t);
    assert_eq!(
        (trace.form, trace.events, ev.len(), trace.parts.len()),
        (Form::CpuProfile, 0, 0, 0)
    );
    assert_eq!(trace.cpu_profile, Some(raw(t)));
    assert!(trace.metadata.is_empty() && trace.samples.is_none() && trace.diagnostics.is_empty());
    let t = r#" {"head":{"id":1,"children":[]},"startTime":1,"samples":[]} "#;
    assert_eq!(read(t).0.cpu_profile, Some(raw(t.trim())));
}

#[test]
fn fatal_only_without_any_trace() {
    let cases: &[(&str, u64, u64, u64)] = &[
        ("", 0, 1, 1),
        ("  \n\t", 4, 2, 2),
        ("// only a comment", 17, 1, 18),
        ("<html>", 0, 1, 1),
        ("\n  42", 3, 2, 3),
        ("\"trace\"", 0, 1, 1),
        (r#"{"foo": 1}"#, 0, 1, 1),
        ("{\n  garbage", 4, 2, 3),
        (r#"{"nodes": 5, "x": "#, 0, 1, 1),
    ];
    for &(t, offset, line, column) in cases {
        let e = read_json(t, || |_: Event<'_>, _: &mut _| {}, &ReadOptions::default())
            .err()
            .unwrap();
        assert_eq!(
            (e.offset, e.line, e.column),
            (offset, line, column),
            "{t}: {e}"
        );
        assert!(e.message.starts_with("no trace"), "{e}");
    }
}

#[test]
fn read_events_matches_read_json() {
    let t = r#"{"traceEvents":[{"ph":"B","ts":1},{},{"ph":"E","ts":2}],"producer":"x"}"#;
    let mut seen = Vec::new();
    let trace = read_events(t, |e, _| seen.push(e)).unwrap();
    let (expected, ev) = read(t);
    assert_eq!(
        (seen, trace.events, trace.metadata),
        (ev, expected.events, expected.metadata)
    );
    assert_eq!(trace.diagnostics, expected.diagnostics);
}

// ---- corpus tier: the format guide's examples (in ../shared when it is there) ------
// The fixture tier's `fixtures.rs` asserts the same rules on our own fixtures.

fn example(name: &str) -> Source {
    let dir = tracescope_testdata::shared().expect("checked by seed_examples");
    Source::open(dir.join("examples").join(name)).unwrap()
}

#[test]
fn seed_examples() {
    if tracescope_testdata::corpus("examples", "the format guide's examples").is_none() {
        return;
    }
    let plain = [
        ("seed-guide/00-minimal-duration.json", Form::Object, 1),
        ("seed-guide/01-pid-tid-grouping.json", Form::Object, 5),
        ("seed-guide/02-duration-nesting.json", Form::Object, 7),
        ("seed-guide/03-instant-markers.json", Form::Object, 3),
        (
            "seed-guide/04-cpu-profiler-start-stop.json",
            Form::Object,
            4,
        ),
        (
            "seed-guide/05-tracing-started-in-browser.json",
            Form::Object,
            4,
        ),
        ("seed-guide/06-profile-chunks-simple.json", Form::Object, 8),
        (
            "seed-guide/07-profile-chunks-streamed.json",
            Form::Object,
            8,
        ),
        ("seed-guide/08-object-lifecycle.json", Form::Object, 3),
        ("seed-guide/09-process-thread-names.json", Form::Object, 2),
        ("seed-guide/12-thread-pool-names.json", Form::Array, 10),
        ("seed-viewer/01-nested-calls.json", Form::Object, 4),
        ("seed-viewer/02-interleaved-threads.json", Form::Object, 4),
        ("seed-viewer/03-ui-nest.json", Form::Object, 6),
        (
            "seed-viewer/04-instant-and-thread-name.json",
            Form::Object,
            4,
        ),
    ];
    for (name, form, n) in plain {
        let src = example(name);
        let (trace, ev) = read(src.text());
        assert_eq!(
            (trace.form, ev.len(), diags(&trace.diagnostics)),
            (form, n, vec![]),
            "{name}"
        );
    }

    let src = example("seed-guide/00-minimal-duration.json");
    let e = &read(src.text()).1[0];
    assert_eq!(
        (e.name.as_deref(), e.ts, e.dur),
        (Some("function-name"), Some(1000), Some(10_000))
    );

    let src = example("seed-viewer/04-instant-and-thread-name.json");
    let (trace, ev) = read(src.text());
    assert_eq!(
        ev.iter().map(|e| e.ts).collect::<Vec<_>>(),
        [
            None,
            Some(1_234_523_300),
            Some(1_234_550_000),
            Some(1_234_600_000)
        ]
    );
    assert_eq!(ev[0].pid, Some(Pid::Int(Int64::I(2343))));
    assert_eq!(
        trace.metadata,
        vec![("producer".into(), raw(r#""any metadata you want""#))]
    );

    // A bare object followed by a comma: one metadata event and diagnostics.
    let src = example("seed-guide/10-thread-name-fragment-trailing-comma.json");
    let (trace, ev) = read(src.text());
    assert_eq!((trace.form, ev.len()), (Form::BareEvents, 1));
    let e = &ev[0];
    assert_eq!(
        (e.ph.as_deref(), e.name.as_deref(), e.ts),
        (Some("M"), Some("thread_name"), Some(0))
    );
    assert_eq!(
        (e.pid.clone(), e.tid.clone()),
        (Some(Pid::Int(Int64::I(1))), Some(Pid::Int(Int64::I(1))))
    );
    assert!(e.args.as_ref().unwrap().text.contains("\"CrRendererMain\""));
    assert_eq!(
        diags(&trace.diagnostics),
        vec![("bare_events", 1, 4), ("trailing_comma", 1, 188)]
    );

    let src = example("seed-guide/11-jsonc-with-comments.json");
    let (trace, ev) = read(src.text());
    assert_eq!((trace.form, ev.len()), (Form::Array, 4));
    let names: Vec<_> = ev.iter().map(|e| e.name.as_deref().unwrap_or("")).collect();
    assert_eq!(
        names,
        [
            "thread_name",
            "thread_name",
            "TracingStartedInBrowser",
            "CommitLoad"
        ]
    );
    assert_eq!(ev[2].ts, Some(522_975_545_427_000));
    assert_eq!(diags(&trace.diagnostics), vec![("comment", 1, 4)]);
}
