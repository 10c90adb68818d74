//! Exact events for every macro: phase, name, category, args, order, pid/tid.

mod common;

use common::{assert_diagnostics, load, parse, serial, timed, ts_ns, MemSink};
use serde_json::{json, Value};
use tracescope_record::*;

fn record(f: impl FnOnce()) -> (Vec<Value>, Stats) {
    let sink = MemSink::default();
    let guard = Builder::new()
        .categories("*,-off,disabled-by-default-on")
        .signals(false)
        .to_writer(sink.clone())
        .unwrap();
    f();
    let stats = guard.finish();
    let bytes = sink.bytes();
    let events = parse(&bytes);
    // tracescope reads every event of a cleanly ended trace, with no repair.
    let trace = load(&bytes);
    assert_eq!(trace.info.events, events.len() as u64);
    assert_diagnostics(&trace, &[]);
    (events, stats)
}

/// The fields of an event that do not depend on time or ids of the machine.
fn shape(e: &Value) -> Value {
    let mut m = e.as_object().unwrap().clone();
    m.remove("ts");
    m.remove("pid");
    m.remove("tid");
    Value::Object(m)
}

#[test]
fn every_macro_writes_its_exact_event() {
    let _s = serial();
    let (events, stats) = record(|| {
        set_thread_name("tester");
        {
            let _outer = trace_scope!("cat", "outer", "n" => 1, "s" => "two");
            trace_event!("cat", "inner");
            trace_instant!("cat", "tick", "f" => 2.5, "b" => true);
            trace_instant!(process: "cat", "proc_tick");
            trace_instant!(global: "cat", "global_tick");
        }
        trace_begin!("cat", "manual", "u" => u64::MAX);
        trace_end!("cat", "manual", "result" => -3i32);
        trace_counter!("mem", "heap", "used" => 10u32, "ratio" => 0.25);
        trace_async_begin!("net", "fetch", 0x2au64, "url" => String::from("http://x"));
        trace_async_step!("net", "headers", 0x2au64);
        trace_async_end!("net", "fetch", 0x2au64);
        // Flow events bind to the slice around them.
        {
            trace_event!("q", "post");
            trace_flow_start!("q", "job", 7u32);
        }
        {
            trace_event!("q", "hop");
            trace_flow_step!("q", "job", 7u32);
        }
        {
            trace_event!("q", "run");
            trace_flow_end!("q", "job", 7u32);
        }
        trace_object_new!("obj", "Widget", 5u64);
        trace_object_snapshot!("obj", "Widget", 5u64, "size" => 3, "label" => display(1.5));
        trace_object_delete!("obj", "Widget", 5u64);
        let dynamic = format!("job-{}", 3);
        trace_instant!("cat", dynamic, "d" => debug("q\"uote"));
        trace_event!("cat", &dynamic);
        trace_instant!("off", "never");
        trace_instant!("disabled-by-default-x", "never");
        trace_instant!("disabled-by-default-on", "named");
    });
    let want = vec![
        json!({"ph":"B","cat":"cat","name":"outer","args":{"n":1,"s":"two"}}),
        json!({"ph":"B","cat":"cat","name":"inner"}),
        json!({"ph":"i","cat":"cat","name":"tick","args":{"f":2.5,"b":true}}),
        json!({"ph":"i","cat":"cat","name":"proc_tick","s":"p"}),
        json!({"ph":"i","cat":"cat","name":"global_tick","s":"g"}),
        json!({"ph":"E","cat":"cat","name":"inner"}),
        json!({"ph":"E","cat":"cat","name":"outer"}),
        json!({"ph":"B","cat":"cat","name":"manual","args":{"u":u64::MAX}}),
        json!({"ph":"E","cat":"cat","name":"manual","args":{"result":-3}}),
        json!({"ph":"C","cat":"mem","name":"heap","args":{"used":10,"ratio":0.25}}),
        json!({"ph":"b","cat":"net","name":"fetch","id":"0x2a","args":{"url":"http://x"}}),
        json!({"ph":"n","cat":"net","name":"headers","id":"0x2a"}),
        json!({"ph":"e","cat":"net","name":"fetch","id":"0x2a"}),
        json!({"ph":"B","cat":"q","name":"post"}),
        json!({"ph":"s","cat":"q","name":"job","id":"0x7"}),
        json!({"ph":"E","cat":"q","name":"post"}),
        json!({"ph":"B","cat":"q","name":"hop"}),
        json!({"ph":"t","cat":"q","name":"job","id":"0x7"}),
        json!({"ph":"E","cat":"q","name":"hop"}),
        json!({"ph":"B","cat":"q","name":"run"}),
        json!({"ph":"f","cat":"q","name":"job","bp":"e","id":"0x7"}),
        json!({"ph":"E","cat":"q","name":"run"}),
        json!({"ph":"N","cat":"obj","name":"Widget","id":"0x5"}),
        json!({"ph":"O","cat":"obj","name":"Widget","id":"0x5","args":{"snapshot":{"size":3,"label":"1.5"}}}),
        json!({"ph":"D","cat":"obj","name":"Widget","id":"0x5"}),
        json!({"ph":"i","cat":"cat","name":"job-3","args":{"d":"\"q\\\"uote\""}}),
        json!({"ph":"B","cat":"cat","name":"job-3"}),
        json!({"ph":"i","cat":"disabled-by-default-on","name":"named"}),
        // The dynamically named scope ends with the closure; its `E` has no name.
        json!({"ph":"E","cat":"cat"}),
    ];
    let got: Vec<Value> = timed(&events).into_iter().map(shape).collect();
    assert_eq!(got, want);
    assert_eq!(stats.events, want.len() as u64);
    assert_eq!(stats.dropped, 0);

    // pid/tid: the real ones; thread events on this thread, process-level on the main tid.
    let pid = std::process::id() as u64;
    let tid = os_tid();
    for e in timed(&events) {
        assert_eq!(e["pid"], pid);
        assert_eq!(e["tid"], tid, "{e}");
    }
    // Timestamps follow record order and are CLOCK_MONOTONIC microseconds.
    let ts: Vec<i64> = timed(&events).iter().map(|e| ts_ns(e)).collect();
    assert!(ts.windows(2).all(|w| w[0] <= w[1]), "{ts:?}");
    let now = monotonic_ns();
    assert!(ts[0] <= now && now - ts[0] < 10_000_000_000);

    let meta: Vec<&Value> = events.iter().filter(|e| e["ph"] == "M").collect();
    assert!(meta.contains(
        &&json!({"ph":"M","name":"thread_name","pid":pid,"tid":tid,"args":{"name":"tester"}})
    ));
    let last = events.last().unwrap();
    assert_eq!(
        last,
        &json!({"ph":"M","name":"tracescope_stats","pid":pid,"tid":pid,
                "args":{"events":want.len(),"dropped_events":0,"write_errors":0}})
    );
}

#[test]
fn threads_get_their_own_tid_and_name() {
    let _s = serial();
    let (events, _) = record(|| {
        set_process_name("proc");
        set_process_sort_index(-1);
        let t = std::thread::Builder::new()
            .name("worker-1".into())
            .spawn(|| {
                set_thread_sort_index(4);
                trace_instant!("cat", "from_worker");
                os_tid()
            })
            .unwrap();
        let worker_tid = t.join().unwrap();
        trace_instant!("cat", "from_main");
        assert_ne!(worker_tid, os_tid());
    });
    let pid = std::process::id() as u64;
    let worker = events.iter().find(|e| e["name"] == "from_worker").unwrap();
    let wtid = worker["tid"].clone();
    for m in [
        json!({"ph":"M","name":"thread_name","pid":pid,"tid":wtid,"args":{"name":"worker-1"}}),
        json!({"ph":"M","name":"thread_sort_index","pid":pid,"tid":wtid,"args":{"sort_index":4}}),
        json!({"ph":"M","name":"process_name","pid":pid,"tid":pid,"args":{"name":"proc"}}),
        json!({"ph":"M","name":"process_sort_index","pid":pid,"tid":pid,"args":{"sort_index":-1}}),
    ] {
        assert!(events.contains(&m), "missing {m}");
    }
}

#[test]
fn categories_change_at_run_time_and_scopes_stay_balanced() {
    let _s = serial();
    let (events, _) = record(|| {
        set_categories("a");
        assert!(category_enabled("a"));
        assert!(!category_enabled("b"));
        trace_instant!("b", "skipped");
        let scope = trace_scope!("a", "kept");
        assert!(scope.is_recording());
        set_categories("b");
        // The end of a recorded begin is written even though "a" is now off.
        drop(scope);
        trace_instant!("a", "skipped_too");
        trace_instant!("b", "now_on");
        let off = trace_scope!("a", "off");
        assert!(!off.is_recording());
        drop(off);
    });
    let names: Vec<(String, String)> = timed(&events)
        .iter()
        .map(|e| {
            (
                e["ph"].as_str().unwrap().into(),
                e["name"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = [("B", "kept"), ("E", "kept"), ("i", "now_on")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(names, want);
}

#[test]
fn nothing_records_without_a_session_and_a_second_session_is_refused() {
    let _s = serial();
    assert!(!is_active());
    trace_instant!("cat", "before");
    assert!(!flush());
    let sink = MemSink::default();
    let guard = Builder::new()
        .signals(false)
        .to_writer(sink.clone())
        .unwrap();
    assert!(Builder::new().to_writer(MemSink::default()).is_err());
    trace_instant!("cat", "during");
    assert!(guard.flush());
    let mid = parse(&sink.bytes());
    assert_eq!(
        timed(&mid).len(),
        1,
        "flush wrote the event, before the end"
    );
    assert!(!String::from_utf8(sink.bytes())
        .unwrap()
        .trim_end()
        .ends_with(']'));
    drop(guard);
    trace_instant!("cat", "after");
    let events = parse(&sink.bytes());
    let names: Vec<&str> = timed(&events)
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["during"]);
    assert!(String::from_utf8(sink.bytes()).unwrap().ends_with("]\n"));
}

#[test]
fn long_strings_are_cut_and_escaped() {
    let _s = serial();
    let long = "x".repeat(MAX_STR + 100);
    let (events, _) = record(|| {
        trace_instant!("cat", "long", "s" => long.as_str(), "ctl" => "a\u{0}b\n");
    });
    let e = timed(&events)[0];
    assert_eq!(e["args"]["s"].as_str().unwrap().len(), MAX_STR);
    assert_eq!(e["args"]["ctl"], "a\u{0}b\n");
}
