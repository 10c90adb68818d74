//! v2 flows on slices, counters with ids and legacy async operations: the exact
//! events, and what tracescope's model builds from them (flows bound to their
//! slices, async operations paired, counters keyed by id).

mod common;

use common::{assert_diagnostics, load, parse, serial, timed, MemSink};
use serde_json::{json, Value};
use tracescope_model::{SliceRef, Trace};
use tracescope_record::*;

fn record(f: impl FnOnce()) -> (Vec<Value>, Trace) {
    let sink = MemSink::default();
    let guard = Builder::new()
        .signals(false)
        .to_writer(sink.clone())
        .unwrap();
    f();
    guard.finish();
    let bytes = sink.bytes();
    let events = parse(&bytes);
    let trace = load(&bytes);
    assert_eq!(trace.info.events, events.len() as u64);
    assert_diagnostics(&trace, &[]);
    (events, trace)
}

fn shape(e: &Value) -> Value {
    let mut m = e.as_object().unwrap().clone();
    for k in ["ts", "pid", "tid"] {
        m.remove(k);
    }
    Value::Object(m)
}

fn slice_name(trace: &Trace, r: SliceRef) -> &str {
    match r {
        SliceRef::Thread(i) => trace.str(trace.tables.slices.name[i.index()]),
        SliceRef::Async(i) => trace.str(trace.tables.async_slices.name[i.index()]),
    }
}

#[test]
fn v2_flow_arrows_join_slices_across_threads() {
    let _s = serial();
    let (events, trace) = record(|| {
        {
            let _post = trace_scope!("q", "post", flow_out = 5u64, "job" => 1);
        }
        std::thread::spawn(|| {
            trace_event!("q", "hop", flow_step = 5u64);
        })
        .join()
        .unwrap();
        {
            trace_event!(
                "q",
                format!("run {}", 1),
                flow_in = 5u64,
                "ok" => true
            );
        }
        trace_begin!("q", "manual", flow_out = 6u8);
        trace_end!("q", "manual");
        trace_async_begin!("q", "op", 1u32, flow_in = 6u8);
        trace_async_end!("q", "op", 1u32);
    });
    let got: Vec<Value> = timed(&events).iter().map(|e| shape(e)).collect();
    let want = [
        json!({"ph":"B","cat":"q","name":"post","bind_id":"0x5","flow_out":true,"args":{"job":1}}),
        json!({"ph":"E","cat":"q","name":"post"}),
        json!({"ph":"B","cat":"q","name":"hop","bind_id":"0x5","flow_in":true,"flow_out":true}),
        json!({"ph":"E","cat":"q","name":"hop"}),
        json!({"ph":"B","cat":"q","name":"run 1","bind_id":"0x5","flow_in":true,
               "args":{"ok":true}}),
        json!({"ph":"E","cat":"q"}),
        json!({"ph":"B","cat":"q","name":"manual","bind_id":"0x6","flow_out":true}),
        json!({"ph":"E","cat":"q","name":"manual"}),
        json!({"ph":"b","cat":"q","name":"op","id":"0x1","bind_id":"0x6","flow_in":true}),
        json!({"ph":"e","cat":"q","name":"op","id":"0x1"}),
    ];
    // Threads interleave batch by batch: compare as sets, and per thread in order.
    assert_eq!(got.len(), want.len());
    for w in &want {
        assert!(got.contains(w), "missing {w}");
    }
    let flows = &trace.tables.flows;
    let arrows: Vec<(&str, &str, bool)> = (0..flows.len())
        .map(|i| {
            (
                slice_name(&trace, flows.from[i]),
                slice_name(&trace, flows.to[i]),
                flows.v2[i],
            )
        })
        .collect();
    assert_eq!(
        arrows,
        [
            ("post", "hop", true),
            ("hop", "run 1", true),
            ("manual", "op", true)
        ]
    );
    assert_ne!(flows.from_thread[0], flows.to_thread[0]);
}

#[test]
fn counters_with_ids_are_separate_counters() {
    let _s = serial();
    let (events, trace) = record(|| {
        trace_counter_id!("net", "queue", 1u32, "depth" => 3);
        trace_counter_id!("net", "queue", 2u32, "depth" => 9, "max" => 10.5);
        trace_counter!("net", "queue", "depth" => 0);
    });
    let got: Vec<Value> = timed(&events).iter().map(|e| shape(e)).collect();
    assert_eq!(
        got,
        [
            json!({"ph":"C","cat":"net","name":"queue","id":"0x1","args":{"depth":3}}),
            json!({"ph":"C","cat":"net","name":"queue","id":"0x2","args":{"depth":9,"max":10.5}}),
            json!({"ph":"C","cat":"net","name":"queue","args":{"depth":0}}),
        ]
    );
    let counters = &trace.tables.counters;
    let mut series: Vec<(String, String, Vec<f64>)> = counters
        .series
        .iter()
        .map(|s| {
            let rows = s.rows.0 as usize..s.rows.1 as usize;
            (
                trace.str(s.counter).to_string(),
                trace.str(s.series).to_string(),
                counters.value[rows].to_vec(),
            )
        })
        .collect();
    series.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let s = |c: &str, k: &str, v: &[f64]| (c.to_string(), k.to_string(), v.to_vec());
    assert_eq!(
        series,
        [
            s("queue", "depth", &[0.0]),
            s("queue[0x1]", "depth", &[3.0]),
            s("queue[0x2]", "depth", &[9.0]),
            s("queue[0x2]", "max", &[10.5]),
        ]
    );
}

#[test]
fn legacy_async_operations_pair_with_their_steps() {
    let _s = serial();
    let (events, trace) = record(|| {
        trace_legacy_async_begin!("net", "download", 7u64, "url" => "https://x");
        trace_legacy_async_step_into!("net", "download", 7u64, "connect");
        trace_legacy_async_step_into!("net", "download", 7u64, "read", "bytes" => 512);
        trace_legacy_async_end!("net", "download", 7u64, "status" => 200);
        trace_legacy_async_begin!("net", "upload", 8u64);
        trace_legacy_async_step_past!("net", "upload", 8u64, "sent");
        trace_legacy_async_end!("net", "upload", 8u64);
    });
    let got: Vec<Value> = timed(&events).iter().map(|e| shape(e)).collect();
    assert_eq!(
        got,
        [
            json!({"ph":"S","cat":"net","name":"download","id":"0x7","args":{"url":"https://x"}}),
            json!({"ph":"T","cat":"net","name":"download","id":"0x7","args":{"step":"connect"}}),
            json!({"ph":"T","cat":"net","name":"download","id":"0x7",
                   "args":{"step":"read","bytes":512}}),
            json!({"ph":"F","cat":"net","name":"download","id":"0x7","args":{"status":200}}),
            json!({"ph":"S","cat":"net","name":"upload","id":"0x8"}),
            json!({"ph":"p","cat":"net","name":"upload","id":"0x8","args":{"step":"sent"}}),
            json!({"ph":"F","cat":"net","name":"upload","id":"0x8"}),
        ]
    );
    let a = &trace.tables.async_slices;
    let mut rows: Vec<(&str, u32, bool, bool)> = (0..a.len())
        .map(|i| {
            (
                trace.str(a.name[i]),
                a.depth[i],
                a.legacy[i],
                a.did_not_finish[i],
            )
        })
        .collect();
    rows.sort();
    assert_eq!(
        rows,
        [
            ("connect", 1, true, false),
            ("download", 0, true, false),
            ("read", 1, true, false),
            ("sent", 1, true, false),
            ("upload", 0, true, false),
        ]
    );
}
