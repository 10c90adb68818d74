//! The viewer's track order, instants, screenshots and counters derived from
//! instants, over the fixtures in `tests/fixtures/timeline/`.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use base64::Engine;
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use super::tests::{get, ok};
use super::{router, AppState};
use tracescope_model::{ProcessId, ThreadId};

fn fixture(name: &str) -> (Router, Arc<AppState>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/timeline")
        .join(name);
    let trace = crate::load::load(&path).unwrap();
    let state = Arc::new(AppState::new(trace, name.into()));
    state.warm();
    (router(state.clone()), state)
}

/// (process label, [thread label, ...]) in the summary's order.
fn order(v: &Value) -> Vec<(String, Vec<String>)> {
    v["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let threads = p["threads"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["label"].as_str().unwrap().to_string())
                .collect();
            (p["label"].as_str().unwrap().to_string(), threads)
        })
        .collect()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn process<'v>(v: &'v Value, name: &str) -> &'v Value {
    v["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no process {name}"))
}

fn track_ids(p: &Value) -> Vec<(String, String)> {
    p["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["id"].as_str().unwrap().to_string(),
                t["name"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn the_main_thread_and_busy_threads_come_first() {
    let (app, _) = fixture("chrome-workbench.json");
    let v = ok(&app, "/api/summary").await;
    let s = |x: &[&str]| x.iter().map(|y| y.to_string()).collect::<Vec<_>>();
    assert_eq!(
        order(&v),
        [
            (
                "Renderer (pid 200) https://example.com/".to_string(),
                s(&[
                    "CrRendererMain (tid 202)",
                    "Compositor (tid 203)",
                    "Chrome_ChildIOThread (tid 201)",
                    "ThreadPoolForegroundWorker (tid 204)",
                    "ThreadPoolServiceThread (tid 205)",
                ])
            ),
            (
                "Browser (pid 100)".to_string(),
                s(&["CrBrowserMain (tid 100)", "Chrome_IOThread (tid 101)"])
            ),
            (
                "GPU Process (pid 300)".to_string(),
                s(&["CrGpuMain (tid 300)"])
            ),
            (
                "Utility (pid 400)".to_string(),
                s(&["Chrome_ChildIOThread (tid 401)", "Thread 400"])
            ),
        ]
    );
    let r = process(&v, "Renderer");
    let main = &r["threads"][0];
    assert_eq!(main["main"], true);
    // Eight RunTasks of 60 ms.
    assert_eq!(main["busy_ns"], 480_000_000);
    assert_eq!(r["threads"][1]["main"], false);
    assert_eq!(process(&v, "Browser")["threads"][0]["main"], true);
    // Its own 10 thread instants (8 UpdateCounters, MarkLoad, navigationStart) and
    // the process's FirstContentfulPaint, in a row of their own.
    assert_eq!(main["tracks"][0]["instants"], 11);
    // The compositor shows the process's instant only; the GPU thread none.
    assert_eq!(r["threads"][1]["tracks"][0]["instants"], 1);
    assert!(process(&v, "GPU Process")["threads"][0]["tracks"][0]
        .get("instants")
        .is_none());
}

#[tokio::test]
async fn instants_have_details_with_exact_args() {
    let (app, state) = fixture("chrome-workbench.json");
    let t = &state.trace;
    let ins = &t.tables.instants;
    let id = (0..ins.len())
        .find(|&i| t.str(ins.name[i]) == "MarkLoad")
        .unwrap();
    let req = Request::builder()
        .uri(format!("/api/instant/{id}"))
        .body(Body::empty())
        .unwrap();
    let body = app.clone().oneshot(req).await.unwrap().into_body();
    let text = String::from_utf8(body.collect().await.unwrap().to_bytes().to_vec()).unwrap();
    // A 64-bit integer a JavaScript number would round is sent as its digits.
    assert!(
        text.contains(r#""main_frame_id":"14107898137686480567""#),
        "{text}"
    );
    let d = ok(&app, &format!("/api/instant/{id}")).await;
    assert_eq!(d["name"], "MarkLoad");
    assert_eq!(d["cat"], "blink.user_timing");
    assert_eq!(d["ts"], 15_000_000);
    assert_eq!(d["scope"], "t");
    assert_eq!(d["ph"], "i");
    assert_eq!(
        t.thread_label(ThreadId::new(d["thread"].as_u64().unwrap() as u32)),
        "CrRendererMain"
    );
    assert_eq!(
        d["track"],
        format!("s:{}:0", d["thread"].as_u64().unwrap()).as_str()
    );
    assert_eq!(d["args"]["data"]["page"], "https://example.com/");
    assert!(d["raw"]
        .as_str()
        .unwrap()
        .starts_with(r#"{"ph":"i","s":"t""#));
    let fcp = (0..ins.len())
        .find(|&i| t.str(ins.name[i]) == "FirstContentfulPaint")
        .unwrap();
    let p = ok(&app, &format!("/api/instant/{fcp}")).await;
    assert_eq!(
        (
            p["scope"].as_str(),
            p["thread"].is_null(),
            p["track"].is_null()
        ),
        (Some("p"), true, true)
    );
    assert_eq!(
        t.process_label(ProcessId::new(p["process"].as_u64().unwrap() as u32)),
        "Renderer"
    );
    assert_eq!(
        get(&app, "/api/instant/9999").await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(get(&app, "/api/instant/x").await.0, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn screenshots_make_a_filmstrip_and_serve_their_images() {
    let (app, state) = fixture("chrome-workbench.json");
    let v = ok(&app, "/api/summary").await;
    let b = process(&v, "Browser");
    let tracks = track_ids(b);
    assert_eq!(
        tracks.len(),
        1,
        "screenshots are not an objects track: {tracks:?}"
    );
    let (film, name) = &tracks[0];
    assert!(film.starts_with("f:"), "{film}");
    assert_eq!(name, "Screenshots");
    assert_eq!(b["tracks"][0]["kind"], "screenshots");
    let w = ok(
        &app,
        &format!("/api/track/{film}?t0=0&t1=800000000&px=1000"),
    )
    .await;
    let ts = ints(&w["ts"]);
    assert_eq!(
        ts,
        (0..8)
            .map(|f| (100 * f + 90) * 1_000_000)
            .collect::<Vec<_>>()
    );
    let dur = ints(&w["dur"]);
    assert_eq!(
        dur,
        [
            100_000_000,
            100_000_000,
            100_000_000,
            100_000_000,
            100_000_000,
            100_000_000,
            100_000_000,
            0
        ]
    );
    let snaps = &state.trace.tables.snapshots;
    let ids = ints(&w["id"]);
    assert!(ids
        .iter()
        .zip(&ts)
        .all(|(&i, &t)| snaps[i as usize].ts == t));
    // Two pixels: runs merge, keeping their first screenshot's id for a thumbnail.
    let m = ok(&app, &format!("/api/track/{film}?t0=0&t1=800000000&px=2")).await;
    assert_eq!(ints(&m["count"]).iter().sum::<i64>(), 8);
    assert!(ints(&m["id"]).iter().all(|&x| x >= 0));

    let req = Request::builder()
        .uri(format!("/api/screenshot/{}", ids[3]))
        .body(Body::empty())
        .unwrap();
    let resp = app.clone().oneshot(req).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.headers()["content-type"], "image/png");
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    let args: Value = serde_json::from_str(&state.trace.raw(snaps[ids[3] as usize].args)).unwrap();
    let want = base64::engine::general_purpose::STANDARD
        .decode(args["snapshot"].as_str().unwrap())
        .unwrap();
    assert_eq!(bytes.to_vec(), want);
    let (status, e) = get(&app, "/api/screenshot/999").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(e["error"], "snapshot 999 is not a screenshot");
    assert_eq!(
        get(&app, "/api/screenshot/-1").await.0,
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn update_counters_and_pytorch_memory_are_counter_tracks() {
    let (app, _) = fixture("chrome-workbench.json");
    let v = ok(&app, "/api/summary").await;
    let r = process(&v, "Renderer");
    let derived: Vec<&Value> = r["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["id"].as_str().unwrap().starts_with("ic:"))
        .collect();
    let names: Vec<&str> = derived
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "documents (UpdateCounters)",
            "jsEventListeners (UpdateCounters)",
            "jsHeapSizeUsed (UpdateCounters)",
            "nodes (UpdateCounters)"
        ]
    );
    let heap = derived[2];
    assert_eq!(
        (heap["kind"].as_str(), heap["source"].as_str()),
        (Some("counter"), Some("UpdateCounters"))
    );
    assert_eq!(
        (heap["min"].as_f64(), heap["max"].as_f64()),
        (Some(1_000_000.0), Some(2_750_000.0))
    );
    let w = ok(
        &app,
        &format!(
            "/api/track/{}?t0=0&t1=800000000&px=800",
            heap["id"].as_str().unwrap()
        ),
    )
    .await;
    let vals = floats(&w["value"]);
    assert_eq!(
        vals,
        (0..8)
            .map(|f| 1_000_000.0 + 250_000.0 * f as f64)
            .collect::<Vec<_>>()
    );

    let (app, _) = fixture("kineto-memory.json");
    let v = ok(&app, "/api/summary").await;
    let py = process(&v, "python3");
    let names: Vec<String> = track_ids(py).into_iter().map(|t| t.1).collect();
    assert_eq!(
        names,
        [
            "[memory] Total Allocated (CPU)",
            "[memory] Total Allocated (cuda:0)",
            "[memory] Total Reserved (CPU)",
            "[memory] Total Reserved (cuda:0)"
        ]
    );
    let cuda = &py["tracks"][1];
    let w = ok(
        &app,
        &format!(
            "/api/track/{}?t0=0&t1=30000000&px=800",
            cuda["id"].as_str().unwrap()
        ),
    )
    .await;
    assert_eq!(w["value"], serde_json::json!([65536, 131072, 196608]));
    // The seven metadata-only GPU processes come last, with nothing to draw.
    let procs = order(&v);
    assert_eq!(procs[0].0, "python3 (pid 1234)");
    assert_eq!(procs.len(), 8);
    for (k, (label, threads)) in procs[1..].iter().enumerate() {
        assert_eq!(label, &format!("GPU {k} (pid {k})"));
        assert_eq!(threads, &["Thread 0".to_string()]);
    }
    assert!(v["processes"][1]["tracks"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn an_empty_trace_has_no_times() {
    let (app, _) = fixture("empty.json");
    let v = ok(&app, "/api/summary").await;
    assert!(v["start_ns"].is_null() && v["end_ns"].is_null(), "{v}");
    assert_eq!(v["processes"], serde_json::json!([]));
    assert_eq!(v["events"], 0);
}
