//! The HTTP API, in process: the router on the demo trace, on every fixture and (when
//! `../shared` is there) on the seed examples.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use super::{router, AppState};

pub(crate) fn demo_router() -> (Router, Arc<AppState>) {
    demo_app()
}

fn demo_app() -> (Router, Arc<AppState>) {
    let state = Arc::new(AppState::new(
        crate::demo::trace().unwrap(),
        "demo trace".into(),
    ));
    (router(state.clone()), state)
}

pub(crate) async fn get(app: &Router, uri: &str) -> (StatusCode, Value) {
    let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
    let resp = app.clone().oneshot(req).await.unwrap();
    let status = resp.status();
    let ct = resp
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string());
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    let v: Value = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("{uri}: not JSON ({e}): {}", String::from_utf8_lossy(&body)));
    assert_eq!(ct.as_deref(), Some("application/json"), "{uri}");
    (status, v)
}

pub(crate) async fn ok(app: &Router, uri: &str) -> Value {
    let (s, v) = get(app, uri).await;
    assert_eq!(s, StatusCode::OK, "{uri}: {v}");
    v
}

/// The thread with this name, and its track list.
fn thread<'v>(summary: &'v Value, name: &str) -> &'v Value {
    summary["processes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["threads"].as_array().unwrap())
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no thread {name}"))
}

fn slice_id(state: &AppState, name: &str, nth: usize) -> usize {
    let t = &state.trace;
    let s = &t.tables.slices;
    (0..s.len())
        .filter(|&i| t.str(s.name[i]) == name)
        .nth(nth)
        .unwrap()
}

#[tokio::test]
async fn summary_lists_processes_threads_tracks_in_display_order() {
    let (app, _) = demo_app();
    let v = ok(&app, "/api/summary").await;
    let labels: Vec<_> = v["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        [
            "Renderer (pid 2) https://example.com/demo",
            "Browser (pid 1)",
            "GPU Process (pid 3)"
        ]
    );
    assert_eq!(v["processes"][2]["labels"], "gpu,compositor");
    assert_eq!(v["display_time_unit"], "ms");
    assert_eq!(v["start_ns"], 0);
    let browser = &v["processes"][1];
    let threads: Vec<_> = browser["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["label"].as_str().unwrap())
        .collect();
    assert_eq!(threads, ["CrBrowserMain (tid 1)", "IOThread (tid 2)"]);
    let ui = thread(&v, "CrBrowserMain");
    let id = ui["id"].as_u64().unwrap();
    let tracks: Vec<_> = ui["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["id"].as_str().unwrap().to_string(),
                t["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        tracks,
        [
            (format!("s:{id}:0"), "slices".into()),
            (format!("s:{id}:1"), "slices".into())
        ]
    );
    let kinds: Vec<_> = browser["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["kind"].as_str().unwrap(), t["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("screenshots", "Screenshots"),
            ("counter", "Memory heapMB"),
            ("counter", "Memory domNodes"),
            ("async", "Request")
        ]
    );
    // Request 0x10 takes lanes 0-2 (nested Headers, FirstByte); 0x11 overlaps it: lane 3.
    assert_eq!(browser["tracks"][3]["rows"], 4);
    let renderer = &v["processes"][0];
    let rk: Vec<_> = renderer["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["kind"].as_str().unwrap())
        .collect();
    // Four counters from UpdateCounters instants, then the async group and objects.
    assert_eq!(
        rk,
        ["counter", "counter", "counter", "counter", "async", "objects"]
    );
    let main = thread(&v, "CrRendererMain");
    assert_eq!(main["tracks"][1]["kind"], "samples");
    assert_eq!(main["tracks"][1]["rows"], 4);
    assert_eq!(
        v["global_instants"]["name"],
        serde_json::json!(["NavigationStart"])
    );
    assert_eq!(v["global_instants"]["ts"], serde_json::json!([1_000_000]));
    let diags: Vec<_> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    assert!(
        diags.contains(&"misplaced_end") && diags.contains(&"overlap"),
        "{diags:?}"
    );
    let overlap = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "overlap")
        .unwrap();
    assert_eq!(overlap["severity"], "warning");
    assert_eq!(v["stats"]["flows"], 2);
}

#[tokio::test]
async fn slices_track_merges_sub_pixel_slices() {
    let (app, _) = demo_app();
    let v = ok(&app, "/api/summary").await;
    let io = thread(&v, "IOThread")["id"].as_u64().unwrap();
    // 3000 tasks of 0.5 us every 3 us over [1ms, 10ms), plus 3 ReadFile of 300 us.
    let r = ok(
        &app,
        &format!("/api/track/s:{io}:0?t0=0&t1=13000000&px=100"),
    )
    .await;
    let counts: Vec<u64> = r["count"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert_eq!(counts.iter().sum::<u64>(), 3003);
    assert!(counts.len() <= 100, "{}", counts.len());
    let strings = r["strings"].as_array().unwrap();
    let exact: Vec<_> = (0..counts.len())
        .filter(|&i| counts[i] == 1)
        .map(|i| {
            strings[r["name"][i].as_u64().unwrap() as usize]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(exact, ["ReadFile", "ReadFile", "ReadFile"]);
    assert!((0..counts.len()).all(|i| (counts[i] == 1) == (r["id"][i].as_i64().unwrap() >= 0)));
    // Zoomed in on 30 us: 10 tasks, each exact.
    let r = ok(
        &app,
        &format!("/api/track/s:{io}:0?t0=1000000&t1=1030000&px=1000"),
    )
    .await;
    assert_eq!(r["count"], serde_json::json!(vec![1; 10]));
    assert_eq!(r["ts"][1], 1_003_000);
    assert_eq!(r["dur"][1], 500);
    // Process instant shows on the thread's stack track.
    assert_eq!(r["instants"]["ts"], serde_json::json!([]));
    let r = ok(
        &app,
        &format!("/api/track/s:{io}:0?t0=5000000&t1=7000000&px=1000"),
    )
    .await;
    assert_eq!(r["instants"]["scope"], serde_json::json!(["p"]));
}

#[tokio::test]
async fn slices_track_flags_and_rows() {
    let (app, state) = demo_app();
    let v = ok(&app, "/api/summary").await;
    let ui = thread(&v, "CrBrowserMain")["id"].as_u64().unwrap();
    let r = ok(
        &app,
        &format!("/api/track/s:{ui}:0?t0=0&t1=20000000&px=2000"),
    )
    .await;
    let n = r["ts"].as_array().unwrap().len();
    let strings = r["strings"].as_array().unwrap();
    let find = |name: &str| {
        (0..n)
            .find(|&i| strings[r["name"][i].as_u64().unwrap() as usize] == name)
            .unwrap()
    };
    let overlap = find("Overlapping");
    assert_eq!(r["flags"][overlap].as_u64().unwrap() & 2, 2);
    let unfinished = find("Unfinished");
    assert_eq!(r["flags"][unfinished].as_u64().unwrap() & 1, 1);
    let recalc = slice_id(&state, "RecalcStyle", 0);
    let i = (0..n).find(|&i| r["id"][i] == recalc as i64).unwrap();
    assert_eq!(r["flags"][i].as_u64().unwrap() & 4, 4, "has flows");
    assert_eq!(r["row"][i], 2);
    let paint = find("Paint");
    assert_eq!(
        strings[r["color"][paint].as_u64().unwrap() as usize],
        "good"
    );
    // TracingStartedInBrowser and ThreadMark, then the process's ProcessMark.
    assert_eq!(r["instants"]["scope"], serde_json::json!(["t", "t", "p"]));
    let nest = ok(
        &app,
        &format!("/api/track/s:{ui}:1?t0=0&t1=20000000&px=2000"),
    )
    .await;
    assert_eq!(nest["row"], serde_json::json!([0, 1]));
    assert!(nest.get("instants").is_none());
}

#[tokio::test]
async fn counter_async_object_and_sample_tracks() {
    let (app, state) = demo_app();
    let v = ok(&app, "/api/summary").await;
    let c = &v["processes"][1]["tracks"][2];
    assert_eq!((c["min"].is_number(), c["max"].is_number()), (true, true));
    let r = ok(
        &app,
        &format!(
            "/api/track/{}?t0=0&t1=20000000&px=10",
            c["id"].as_str().unwrap()
        ),
    )
    .await;
    // Samples every 60 us over [1 ms, 13 ms): buckets of 2 ms hold 7 points.
    assert_eq!(r["ts"].as_array().unwrap().len(), 7, "{r}");
    let (mn, mx) = (r["min"][0].as_f64().unwrap(), r["max"][0].as_f64().unwrap());
    assert!(mn <= r["value"][0].as_f64().unwrap() && r["value"][0].as_f64().unwrap() <= mx);
    let a = v["processes"][1]["tracks"][3]["id"].as_str().unwrap();
    let r = ok(&app, &format!("/api/track/{a}?t0=0&t1=20000000&px=1000")).await;
    assert_eq!(r["row"], serde_json::json!([0, 1, 2, 3]));
    let renderer = v["processes"][0]["tracks"].as_array().unwrap();
    let o = renderer.iter().find(|t| t["kind"] == "objects").unwrap()["id"]
        .as_str()
        .unwrap();
    let r = ok(&app, &format!("/api/track/{o}?t0=0&t1=20000000&px=1000")).await;
    assert_eq!(
        (r["row"].clone(), r["flags"].clone()),
        (serde_json::json!([0, 1]), serde_json::json!([0, 1]))
    );
    let main = thread(&v, "CrRendererMain")["id"].as_u64().unwrap();
    let r = ok(
        &app,
        &format!("/api/track/p:{main}?t0=0&t1=20000000&px=1000"),
    )
    .await;
    let strings = r["strings"].as_array().unwrap();
    let names: Vec<_> = (0..r["ts"].as_array().unwrap().len())
        .map(|i| {
            strings[r["name"][i].as_u64().unwrap() as usize]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(names, ["(root)", "main", "(idle)", "render", "layout"]);
    let f = &state.trace.tables.frames;
    assert_eq!(
        state
            .trace
            .str(f[r["id"][1].as_u64().unwrap() as usize].name),
        "main"
    );
}

#[tokio::test]
async fn slice_details_with_args_parents_children_and_flows() {
    let (app, state) = demo_app();
    let recalc = slice_id(&state, "RecalcStyle", 0);
    let d = ok(&app, &format!("/api/slice/{recalc}")).await;
    assert_eq!(d["name"], "RecalcStyle");
    assert_eq!(d["cat"], "demo");
    assert_eq!(
        (d["ts"].as_i64(), d["dur"].as_i64(), d["depth"].as_i64()),
        (Some(1_060_000), Some(100_000), Some(2))
    );
    assert_eq!(d["args"], serde_json::json!({"elements": 7}));
    let parents: Vec<_> = d["parents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(parents, ["Layout", "RunTask"]);
    assert_eq!(d["flows_in"], serde_json::json!([]));
    let f = &d["flows_out"][0];
    assert_eq!(
        (
            f["name"].as_str(),
            f["from"]["name"].as_str(),
            f["to"]["name"].as_str()
        ),
        (
            Some("SendFrame"),
            Some("RecalcStyle"),
            Some("BeginMainFrame")
        )
    );
    assert_eq!(
        (f["from_ts"].as_i64(), f["to_ts"].as_i64()),
        (Some(1_100_000), Some(1_300_000))
    );
    assert_eq!(f["to"]["kind"], "slice");
    assert!(f["to"]["track"].as_str().unwrap().starts_with("s:"));
    let run = slice_id(&state, "RunTask", 0);
    let d = ok(&app, &format!("/api/slice/{run}")).await;
    assert_eq!(
        d["args"],
        serde_json::json!({"frame": 0, "src": {"file": "main.cc", "line": 100}, "result": "ok"})
    );
    let kids: Vec<_> = d["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        (kids, d["children_total"].as_u64()),
        (vec!["Layout", "Paint"], Some(2))
    );
    assert_eq!(d["self"], 800_000 - 300_000 - 200_000);
    assert_eq!(d["tts"], Value::Null);
    let raw: Value = serde_json::from_str(d["raw"].as_str().unwrap()).unwrap();
    assert_eq!(
        (raw["ph"].as_str(), raw["name"].as_str(), raw["ts"].as_i64()),
        (Some("B"), Some("RunTask"), Some(1000))
    );
    let d = ok(
        &app,
        &format!("/api/slice/{}", slice_id(&state, "Unfinished", 0)),
    )
    .await;
    assert_eq!(
        (d["did_not_finish"].as_bool(), d["overlap"].as_bool()),
        (Some(true), Some(false))
    );
}

#[tokio::test]
async fn async_details_with_parent_children_and_id() {
    let (app, state) = demo_app();
    let a = &state.trace.tables.async_slices;
    let headers = (0..a.len())
        .find(|&i| state.trace.str(a.name[i]) == "Headers")
        .unwrap();
    let d = ok(&app, &format!("/api/async/{headers}")).await;
    assert_eq!(d["kind"], "async");
    assert_eq!(d["parents"][0]["name"], "Request");
    assert_eq!(d["children"][0]["name"], "FirstByte");
    assert_eq!(d["async_id"], "0x10");
    assert!(d["track"].as_str().unwrap().starts_with("a:"));
    let root = d["parents"][0]["id"].as_u64().unwrap();
    let d = ok(&app, &format!("/api/async/{root}")).await;
    assert_eq!(
        d["args"],
        serde_json::json!({"url": "https://example.com/a", "status": 200})
    );
}

#[tokio::test]
async fn search_substring_and_regex_in_time_order() {
    let (app, _) = demo_app();
    let r = ok(&app, "/api/search?q=runtask&fields=names").await;
    assert_eq!(r["total"], 10);
    let ts: Vec<i64> = r["ts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_i64().unwrap())
        .collect();
    assert_eq!(
        ts,
        (0..10)
            .map(|f| 1_000_000 + f * 1_000_000)
            .collect::<Vec<_>>()
    );
    assert_eq!(r["row"][0], 0);
    let r = ok(&app, "/api/search?q=task&limit=5&fields=names&until=done").await;
    assert_eq!(
        (r["total"].as_u64(), r["id"].as_array().unwrap().len()),
        (Some(3010), 5)
    );
    assert_eq!(
        r["name"],
        serde_json::json!(["RunTask", "IOTask", "IOTask", "IOTask", "IOTask"])
    );
    let r = ok(
        &app,
        "/api/search?q=%5E(first%7Cnavigation)&regex=1&fields=names",
    )
    .await;
    assert_eq!(
        r["name"],
        serde_json::json!(["NavigationStart", "FirstByte", "firstPaint"])
    );
    assert_eq!(
        r["kind"],
        serde_json::json!(["instant", "async", "instant"])
    );
    assert_eq!(r["track"][0], "");
    let r = ok(&app, "/api/search?q=zzz").await;
    assert_eq!(
        (r["total"].as_u64(), r["ts"].clone()),
        (Some(0), serde_json::json!([]))
    );
}

#[tokio::test]
async fn flows_in_a_window() {
    let (app, _) = demo_app();
    let r = ok(&app, "/api/flows?t0=0&t1=20000000").await;
    assert_eq!(r["from_ts"], serde_json::json!([1_100_000, 2_470_000]));
    assert_eq!(r["truncated"], false);
    let r = ok(&app, "/api/flows?t0=2600000&t1=2800000").await;
    assert_eq!(r["to_ts"], serde_json::json!([2_700_000]));
    assert!(r["to_track"][0].as_str().unwrap().starts_with("s:"));
    let r = ok(&app, "/api/flows?t0=3000000&t1=4000000").await;
    assert_eq!(r["from_id"], serde_json::json!([]));
}

#[tokio::test]
async fn bad_parameters_are_400_and_unknown_ids_404() {
    let (app, _) = demo_app();
    for (uri, status) in [
        ("/api/track/zz?t0=0&t1=1&px=1", 400),
        ("/api/track/s:0:7?t0=0&t1=1&px=1", 400),
        ("/api/track/s:999:0?t0=0&t1=1&px=1", 404),
        ("/api/track/c:99?t0=0&t1=1&px=1", 404),
        ("/api/track/s:0:0?t0=0&t1=1", 400),
        ("/api/track/s:0:0?t0=5&t1=5&px=10", 400),
        ("/api/track/s:0:0?t0=x&t1=5&px=10", 400),
        ("/api/track/s:0:0?t0=0&t1=5&px=0", 400),
        ("/api/track/s:0:0?t0=0&t1=5&px=99999999", 400),
        ("/api/track/s:0:0?t0=0&t0=1&t1=5&px=10", 400),
        ("/api/track/s:0:0?t0=nan&t1=5&px=10", 400),
        ("/api/track/s:0:0?t0=%ZZ&t1=5&px=10", 400),
        ("/api/slice/abc", 400),
        ("/api/slice/-1", 400),
        ("/api/slice/99999999", 404),
        ("/api/slice/99999999999999", 400),
        ("/api/async/4000", 404),
        ("/api/search", 400),
        ("/api/search?q=", 400),
        ("/api/search?q=(&regex=1", 400),
        ("/api/search?q=a&regex=2", 400),
        ("/api/search?q=a&limit=0", 400),
        ("/api/flows?t0=1", 400),
        ("/api/nope", 404),
        ("/api", 404),
    ] {
        let (s, v) = get(&app, uri).await;
        assert_eq!(s.as_u16(), status, "{uri}: {v}");
        assert!(v["error"].is_string(), "{uri}");
    }
    // Decimal times are accepted (rounded down).
    ok(&app, "/api/track/s:0:0?t0=0.5&t1=1e9&px=10").await;
}

#[tokio::test]
async fn no_route_serves_files_by_path() {
    let (app, _) = demo_app();
    for uri in [
        "/../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/etc/passwd",
        "/..%2f..%2fCargo.toml",
        "/Cargo.toml",
        "/api/slice/..%2f..%2fetc%2fpasswd",
    ] {
        let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
        let resp = app.clone().oneshot(req).await.unwrap();
        assert!(resp.status().is_client_error(), "{uri}: {}", resp.status());
        let body = resp.into_body().collect().await.unwrap().to_bytes();
        assert!(!String::from_utf8_lossy(&body).contains("root:"), "{uri}");
        assert!(
            !String::from_utf8_lossy(&body).contains("[workspace]"),
            "{uri}"
        );
    }
}

#[tokio::test]
async fn every_fixture_answers_every_endpoint() {
    let mut files = tracescope_testdata::fixture_files("");
    files.extend(tracescope_testdata::fixture_etw_files());
    files.extend(tracescope_testdata::fixture_ctf_dirs());
    let n = files.len();
    let served = serve_every_endpoint(files).await;
    // Only a fixture that holds no trace at all may fail to load.
    assert_eq!(served, n);
}

/// Corpus tier: the format guides' examples.
#[tokio::test]
async fn shared_examples_answer_every_endpoint() {
    let Some(dir) = tracescope_testdata::corpus("examples", "every endpoint on the seed examples")
    else {
        return;
    };
    let files: Vec<_> = ["seed-guide", "seed-viewer"]
        .iter()
        .flat_map(|d| {
            std::fs::read_dir(dir.join(d))
                .unwrap()
                .map(|e| e.unwrap().path())
        })
        .collect();
    assert!(files.len() >= 17, "{}", files.len());
    assert!(serve_every_endpoint(files).await >= 15);
}

/// Serves each trace that loads and asks every endpoint; the number served.
async fn serve_every_endpoint(mut files: Vec<std::path::PathBuf>) -> usize {
    files.sort();
    let mut served = 0;
    for f in files {
        // Reading every example is the reader's business (and its tests'); here,
        // whatever loads must be served.
        let Ok(trace) = crate::load::load(&f) else {
            eprintln!("skipped (does not load): {}", f.display());
            continue;
        };
        served += 1;
        let state = Arc::new(AppState::new(trace, f.display().to_string()));
        state.warm();
        let app = router(state.clone());
        let v = ok(&app, "/api/summary").await;
        let (t0, t1) = (
            v["start_ns"].as_i64().unwrap_or(0),
            v["end_ns"].as_i64().unwrap_or(1),
        );
        let t1 = t1.max(t0 + 1);
        let tracks = v["processes"].as_array().unwrap().iter().flat_map(|p| {
            let own = p["tracks"].as_array().unwrap().clone();
            own.into_iter().chain(
                p["threads"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|t| t["tracks"].as_array().unwrap().clone()),
            )
        });
        for t in tracks {
            let r = ok(
                &app,
                &format!(
                    "/api/track/{}?t0={t0}&t1={t1}&px=800",
                    t["id"].as_str().unwrap()
                ),
            )
            .await;
            assert!(r["ts"].is_array(), "{}", f.display());
        }
        for i in 0..state.trace.tables.slices.len().min(20) {
            ok(&app, &format!("/api/slice/{i}")).await;
        }
        for i in 0..state.trace.tables.async_slices.len().min(20) {
            ok(&app, &format!("/api/async/{i}")).await;
        }
        ok(&app, &format!("/api/flows?t0={t0}&t1={t1}")).await;
        ok(&app, "/api/search?q=a").await;
        ok(&app, &format!("/api/range?t0={t0}&t1={t1}&by=thread")).await;
        ok(&app, "/api/profile?view=bottom-up").await;
    }
    served
}

#[tokio::test]
async fn a_string_pid_or_tid_is_the_label_of_its_process_or_thread() {
    let text = r#"[{"ph":"X","pid":"browser","tid":"main","name":"a","ts":1,"dur":2},
        {"ph":"M","pid":"browser","tid":"io","name":"thread_name","args":{"name":"IOThread"}}]"#;
    let trace = tracescope_model::Trace::from_json(
        Box::new(text.to_string()),
        text.len() as u64,
        &tracescope_model::LoadOptions::default(),
    )
    .unwrap();
    let app = router(Arc::new(AppState::new(trace, "s.json".into())));
    let v = ok(&app, "/api/summary").await;
    let p = &v["processes"][0];
    assert_eq!(
        (&p["pid"], &p["name"], &p["label"]),
        (&"browser".into(), &"browser".into(), &"browser".into())
    );
    let labels: Vec<_> = p["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["label"].as_str().unwrap())
        .collect();
    // The viewer's order: the thread with work first, the name-only one after.
    assert_eq!(labels, ["main", "IOThread (tid io)"]);
}
