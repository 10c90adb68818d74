//! The `tracing` layer: spans become slices or async operations, events instants.
#![cfg(feature = "tracing")]

mod common;

use common::{assert_diagnostics, load, parse, serial, timed, MemSink};
use serde_json::{json, Value};
use tracescope_record::{os_tid, Builder, TracescopeLayer};
use tracing_subscriber::layer::SubscriberExt;

fn record(f: impl FnOnce()) -> Vec<Value> {
    let sink = MemSink::default();
    let guard = Builder::new()
        .signals(false)
        .to_writer(sink.clone())
        .unwrap();
    let subscriber = tracing_subscriber::registry().with(TracescopeLayer::new());
    tracing::subscriber::with_default(subscriber, f);
    guard.finish();
    let bytes = sink.bytes();
    let trace = load(&bytes);
    assert_diagnostics(&trace, &[]);
    parse(&bytes)
}

fn shape(e: &Value) -> Value {
    let mut m = e.as_object().unwrap().clone();
    m.remove("ts");
    m.remove("pid");
    m.remove("tid");
    Value::Object(m)
}

#[test]
fn span_on_one_thread_is_a_slice_and_events_are_instants() {
    let _s = serial();
    let events = record(|| {
        let span = tracing::info_span!(target: "app", "work", n = 3, who = "me");
        span.in_scope(|| {
            tracing::warn!(target: "app", k = 1.5, ok = true, "hello {}", 7);
            tracing::Span::current().record("n", 4);
        });
        drop(span);
    });
    let got: Vec<Value> = timed(&events).iter().map(|e| shape(e)).collect();
    assert_eq!(
        got,
        vec![
            json!({"ph":"B","cat":"app","name":"work","args":{"n":3,"who":"me"}}),
            json!({"ph":"i","cat":"app","name":"hello 7",
                   "args":{"level":"WARN","k":1.5,"ok":true}}),
            json!({"ph":"E","cat":"app","name":"work","args":{"n":4}}),
        ]
    );
    let tid = os_tid();
    assert!(timed(&events).iter().all(|e| e["tid"] == tid));
}

#[test]
fn span_entered_again_on_another_thread_is_an_async_operation() {
    let _s = serial();
    let mut worker_tid = 0;
    let events = record(|| {
        let span = tracing::info_span!(target: "app", "task", id = 9);
        span.in_scope(|| {});
        let dispatch = tracing::dispatcher::get_default(|d| d.clone());
        let moved = span.clone();
        worker_tid = std::thread::spawn(move || {
            tracing::dispatcher::with_default(&dispatch, || moved.in_scope(os_tid))
        })
        .join()
        .unwrap();
        span.in_scope(|| {});
        drop(span);
    });
    // Files interleave threads batch by batch; order is exact per thread.
    let on = |tid: u64| -> Vec<&Value> {
        timed(&events)
            .into_iter()
            .filter(|e| e["tid"] == tid)
            .collect()
    };
    let (main, worker) = (on(os_tid()), on(worker_tid));
    let id = worker[0]["id"].clone();
    assert!(id.is_string());
    assert_eq!(
        main.iter().map(|e| shape(e)).collect::<Vec<_>>(),
        vec![
            json!({"ph":"B","cat":"app","name":"task","args":{"id":9}}),
            json!({"ph":"E","cat":"app","name":"task"}),
            json!({"ph":"B","cat":"app","name":"task"}),
            json!({"ph":"E","cat":"app","name":"task"}),
            json!({"ph":"e","cat":"app","name":"task","id":id}),
        ]
    );
    assert_eq!(
        worker.iter().map(|e| shape(e)).collect::<Vec<_>>(),
        vec![
            json!({"ph":"b","cat":"app","name":"task","id":id,"args":{"id":9}}),
            json!({"ph":"B","cat":"app","name":"task"}),
            json!({"ph":"E","cat":"app","name":"task"}),
        ]
    );
    // The async begin carries the time of the first entry.
    assert_eq!(worker[0]["ts"], main[0]["ts"]);
    assert_eq!(timed(&events).len(), 8);
}
