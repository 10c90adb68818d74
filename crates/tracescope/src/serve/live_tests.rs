//! `view --follow`: the router over a growing temp file, polled by hand (no sleeps).

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use axum::Router;
use serde_json::Value;

use super::live::{live_router, Live};
use super::tests::ok;

fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

fn x(name: &str, ts: u32, dur: u32) -> String {
    format!(r#"{{"ph":"X","name":"{name}","ts":{ts},"dur":{dur},"pid":1,"tid":1}},"#)
}

fn start(text: &str) -> (tempfile::TempDir, std::path::PathBuf, Arc<Live>, Router) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.json");
    std::fs::write(&path, text).unwrap();
    let live = Live::open(&path, "live.json".into()).unwrap();
    let app = live_router(live.clone());
    (dir, path, live, app)
}

/// (name, ts, dur) of every slice of thread 1's first track, all exact.
async fn track(app: &Router) -> Vec<(String, i64, i64)> {
    let summary = ok(app, "/api/summary").await;
    let threads = summary["processes"][0]["threads"].as_array().unwrap();
    let id = threads[0]["id"].as_u64().unwrap();
    let r = ok(app, &format!("/api/track/s:{id}:0?t0=0&t1=100000&px=20000")).await;
    let strings = r["strings"].as_array().unwrap();
    let n = r["ts"].as_array().unwrap().len();
    (0..n)
        .map(|i| {
            assert_eq!(r["count"][i], 1);
            let name = &strings[r["name"][i].as_u64().unwrap() as usize];
            (
                name.as_str().unwrap().to_string(),
                r["ts"][i].as_i64().unwrap(),
                r["dur"][i].as_i64().unwrap(),
            )
        })
        .collect()
}

fn version(v: &Value) -> (u64, u64, u64) {
    (
        v["version"].as_u64().unwrap(),
        v["events"].as_u64().unwrap(),
        v["bytes"].as_u64().unwrap(),
    )
}

#[tokio::test]
async fn appended_events_are_served_by_a_new_version() {
    let first = format!("[{}\n", x("a", 1, 2));
    let (_dir, path, live, app) = start(&first);
    let v = ok(&app, "/api/version").await;
    assert_eq!(version(&v), (1, 1, first.len() as u64));
    assert_eq!(v["follow"], true);
    assert_eq!(track(&app).await, vec![("a".into(), 1000, 2000)]);

    // Nothing new: the version stays.
    assert!(!live.poll().unwrap());
    assert_eq!(version(&ok(&app, "/api/version").await).0, 1);

    let more = format!("{}\n", x("b", 5, 1));
    append(&path, &more);
    let before = live.state();
    assert!(live.poll().unwrap());
    let v = ok(&app, "/api/version").await;
    assert_eq!(version(&v), (2, 2, (first.len() + more.len()) as u64));
    assert_eq!(v["read_bytes"], more.len() as u64);
    assert_eq!(
        track(&app).await,
        vec![("a".into(), 1000, 2000), ("b".into(), 5000, 1000)]
    );
    // Whoever holds the old version still sees it whole.
    assert_eq!(before.trace.tables.slices.len(), 1);
}

#[tokio::test]
async fn a_begin_is_closed_by_an_end_appended_later() {
    let (_dir, path, live, app) = start(
        r#"[{"ph":"B","name":"load","ts":10,"pid":1,"tid":1},
"#,
    );
    let s = live.state();
    assert!(s.trace.tables.slices.did_not_finish(0));
    append(&path, r#"{"ph":"E","ts":40,"pid":1,"tid":1},"#);
    assert!(live.poll().unwrap());
    assert_eq!(track(&app).await, vec![("load".into(), 10_000, 30_000)]);
    assert!(!live.state().trace.tables.slices.did_not_finish(0));
}

#[tokio::test]
async fn a_partial_event_waits_and_a_rewrite_reloads() {
    let (_dir, path, live, app) = start(&format!("[{}\n", x("a", 1, 2)));
    append(&path, r#"{"ph":"X","name":"b","ts":5,"#);
    assert!(!live.poll().unwrap(), "half an event is no new version");
    assert_eq!(version(&ok(&app, "/api/version").await).0, 1);
    append(&path, r#""dur":1,"pid":1,"tid":1},"#);
    assert!(live.poll().unwrap());
    assert_eq!(version(&ok(&app, "/api/version").await).0, 2);
    assert_eq!(track(&app).await.len(), 2);

    let rewritten = format!("[{}\n", x("z", 3, 4));
    std::fs::write(&path, &rewritten).unwrap();
    assert!(live.poll().unwrap());
    let v = ok(&app, "/api/version").await;
    assert_eq!(version(&v), (3, 1, rewritten.len() as u64));
    assert_eq!(track(&app).await, vec![("z".into(), 3000, 4000)]);
}

#[tokio::test]
async fn a_trace_that_is_not_followed_is_version_1() {
    let (app, _) = super::tests::demo_router();
    let v = ok(&app, "/api/version").await;
    assert_eq!(v, serde_json::json!({"version": 1, "follow": false}));
}

#[tokio::test]
async fn a_request_for_the_next_version_is_answered_when_it_is_served() {
    let (_dir, path, live, app) = start(&format!("[{}\n", x("a", 1, 2)));
    // A version after 0 is served already: answered at once.
    assert_eq!(version(&ok(&app, "/api/version?after=0").await).0, 1);
    let waiting = {
        let app = app.clone();
        tokio::spawn(async move { ok(&app, "/api/version?after=1").await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    assert!(!waiting.is_finished(), "answered before a new version");
    append(&path, &format!("{}\n", x("b", 5, 1)));
    assert!(live.poll().unwrap());
    let v = tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
        .await
        .expect("answered once version 2 is served")
        .unwrap();
    assert_eq!(version(&v).0, 2);
}
