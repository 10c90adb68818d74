//! The analysis endpoints, in process, on small traces with known answers.

use std::sync::Arc;

use axum::http::StatusCode;
use axum::Router;
use serde_json::{json, Value};
use tracescope_model::{LoadOptions, Trace};

use super::tests::{get, ok};
use super::{router, AppState};

pub(super) fn app_of(json: &str) -> Router {
    let t = Trace::from_json(
        Box::new(json.to_string()),
        json.len() as u64,
        &LoadOptions::default(),
    )
    .unwrap();
    router(Arc::new(AppState::new(t, "t.json".into())))
}

/// The server on a fixture (a path under `tests/fixtures/`).
fn fixture(rel: &str) -> Router {
    let p = tracescope_testdata::fixture(rel);
    router(Arc::new(AppState::new(
        crate::load::load(&p).unwrap(),
        rel.into(),
    )))
}

/// A[0,100) > B[10,40); A > B[50,70) on 1/1 (A has tdur 50); A[20,60) on 1/2; a
/// counter 10 @0, 20 @100. Times in µs.
const TRACE: &str = r#"[
{"ph":"X","pid":1,"tid":1,"name":"A","cat":"c","ts":0,"dur":100,"tts":0,"tdur":50},
{"ph":"X","pid":1,"tid":1,"name":"B","cat":"c","ts":10,"dur":30},
{"ph":"X","pid":1,"tid":1,"name":"B","cat":"c","ts":50,"dur":20},
{"ph":"X","pid":1,"tid":2,"name":"A","cat":"d","ts":20,"dur":40},
{"ph":"C","pid":1,"name":"mem","ts":0,"args":{"v":10}},
{"ph":"C","pid":1,"name":"mem","ts":100,"args":{"v":20}}
]"#;

#[tokio::test]
async fn range_groups_slices_with_exact_times_and_counter_stats() {
    let app = app_of(TRACE);
    let v = ok(&app, "/api/range?t0=30000&t1=60000").await;
    assert_eq!(v["by"], "name");
    assert_eq!(v["slices"], 4);
    let g = &v["groups"];
    assert_eq!(g["key"], json!(["A", "B"]));
    assert_eq!(g["thread"], json!([-1, -1]));
    assert_eq!(g["count"], json!([2, 2]));
    assert_eq!(g["total"], json!([140000, 50000]));
    assert_eq!(g["self"], json!([90000, 50000]));
    assert_eq!(g["in_range"], json!([60000, 20000]));
    assert_eq!(g["thread_total"], json!([50000, -1]));
    assert_eq!(g["avg"], json!([70000, 25000]));
    assert_eq!(g["min"], json!([40000, 20000]));
    assert_eq!(g["max"], json!([100000, 30000]));
    assert_eq!(g["did_not_finish"], json!([0, 0]));
    let c = &v["counters"];
    assert_eq!(c["name"], json!(["mem"]));
    assert_eq!(c["series"], json!(["v"]));
    assert_eq!(c["track"].as_array().unwrap().len(), 1);
    assert_eq!(
        (
            c["count"][0].clone(),
            c["min"][0].clone(),
            c["avg"][0].clone()
        ),
        (json!(0), json!(10), json!(10))
    );

    let v = ok(&app, "/api/range?t0=0&t1=100000&by=category").await;
    assert_eq!(v["groups"]["key"], json!(["c", "d"]));
    let v = ok(&app, "/api/range?t0=0&t1=100000&by=thread&name=A").await;
    assert_eq!(v["groups"]["count"], json!([1, 1]));
    assert_eq!(v["groups"]["total"], json!([100000, 40000]));
    let k = v["groups"]["key"][0].as_str().unwrap();
    assert!(k.starts_with("Thread 1, Process 1"), "{k}");
    let v = ok(&app, "/api/range?t0=0&t1=100000&name=nothing").await;
    assert_eq!(v["slices"], 0);
}

#[tokio::test]
async fn range_tracks_filter_and_group_slices() {
    let app = app_of(TRACE);
    let s = ok(&app, "/api/summary").await;
    let th2 = &s["processes"][0]["threads"][1];
    let track = th2["tracks"][0]["id"].as_str().unwrap().to_string();
    let v = ok(&app, &format!("/api/range?t0=0&t1=100000&tracks={track}")).await;
    assert_eq!(v["groups"]["key"], json!(["A"]));
    assert_eq!(v["groups"]["total"], json!([40000]));

    let v = ok(&app, "/api/range/slices?t0=0&t1=100000&key=B").await;
    assert_eq!(v["total"], 2);
    assert_eq!(v["ts"], json!([10000, 50000]));
    assert_eq!(v["dur"], json!([30000, 20000]));
    assert_eq!(v["row"], json!([1, 1]));
    let v = ok(&app, "/api/range/slices?t0=0&t1=100000&key=B&limit=1").await;
    assert_eq!(
        (v["total"].clone(), v["id"].as_array().unwrap().len()),
        (json!(2), 1)
    );
    let th = th2["id"].as_u64().unwrap();
    let v = ok(
        &app,
        &format!("/api/range/slices?t0=0&t1=100000&by=thread&key={th}"),
    )
    .await;
    assert_eq!(v["ts"], json!([20000]));
    assert_eq!(v["track"], json!([track]));

    for bad in [
        "/api/range?t0=0",
        "/api/range?t0=5&t1=5",
        "/api/range?t0=0&t1=9&by=color",
        "/api/range?t0=0&t1=9&tracks=s:99:0",
        "/api/range?t0=0&t1=9&tracks=junk",
        "/api/range/slices?t0=0&t1=9",
        "/api/range/slices?t0=0&t1=9&by=thread&key=x",
        "/api/range/slices?t0=0&t1=9&key=A&limit=0",
        "/api/profile?t0=1",
        "/api/profile?view=sideways",
        "/api/profile?max_nodes=0",
        "/api/object/x",
    ] {
        let (st, v) = get(&app, bad).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{bad}: {v}");
        assert!(v["error"].is_string());
    }
    let (st, _) = get(&app, "/api/object/0").await;
    assert_eq!(st, StatusCode::NOT_FOUND);
}

fn node_rows(v: &Value) -> Vec<(i64, String, i64, i64, i64)> {
    let n = &v["nodes"];
    let strings = v["strings"].as_array().unwrap();
    (0..n["name"].as_array().unwrap().len())
        .map(|i| {
            let name = strings[n["name"][i].as_u64().unwrap() as usize]
                .as_str()
                .unwrap()
                .to_string();
            (
                n["depth"][i].as_i64().unwrap(),
                name,
                n["self"][i].as_i64().unwrap() / 1000,
                n["total"][i].as_i64().unwrap() / 1000,
                n["self_samples"][i].as_i64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn profile_trees_of_the_profile_fixtures() {
    // 8 samples 40 µs apart from 2 µs, 40 µs each (docs/reading-rules.md).
    let app = fixture("phases/profile-chunks.json");
    let v = ok(&app, "/api/profile").await;
    assert_eq!(
        (v["samples"].clone(), v["total_ns"].clone()),
        (json!(8), json!(320000))
    );
    assert_eq!(v["view"], "top-down");
    assert_eq!(v["truncated"], false);
    assert_eq!(
        node_rows(&v),
        vec![
            (0, "(root)".into(), 80, 320, 2),
            (1, "start".into(), 120, 240, 3),
            (2, "compute".into(), 120, 120, 3)
        ]
    );
    assert_eq!(v["nodes"]["parent"], json!([-1, 0, 1]));
    // 1-based positions (V8 writes 0-based ones); no position for (root).
    assert_eq!(v["nodes"]["line"], json!([-1, 5, 21]));
    assert_eq!(v["nodes"]["column"], json!([-1, 3, 9]));
    let url = v["nodes"]["url"][2].as_u64().unwrap() as usize;
    assert_eq!(v["strings"][url], "file:///srv/app.js");
    assert_eq!(v["nodes"]["url"][0], -1);

    let v = ok(&app, "/api/profile?view=bottom-up").await;
    let rows = node_rows(&v);
    assert_eq!(rows[0], (0, "start".into(), 120, 240, 3));
    assert_eq!(rows[2], (0, "compute".into(), 120, 120, 3));

    let v = ok(&app, "/api/profile?max_nodes=1").await;
    assert_eq!(
        (v["truncated"].clone(), node_rows(&v).len()),
        (json!(true), 1)
    );
    // A range: 1 µs .. 83 µs holds the samples at 2, 42 and 82.
    let v = ok(&app, "/api/profile?t0=1000&t1=83000").await;
    assert_eq!(v["samples"], 3);
    let s = ok(&app, "/api/summary").await;
    let p = s["processes"][0]["threads"][0]["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["kind"] == "samples")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let v = ok(&app, &format!("/api/profile?tracks={p}")).await;
    assert_eq!(v["samples"], 8);
    // The page's bounds reach the end of the last sample (282 µs, lasting 40 µs)
    // past the last event (a chunk at 4 µs); the stats keep the events' bounds.
    assert_eq!(
        (s["start_ns"].clone(), s["end_ns"].clone()),
        (json!(2000), json!(322000))
    );
    assert_eq!(s["stats"]["end_ns"], 4000);

    let app = fixture("phases/profile-chunks-streamed.json");
    let v = ok(&app, "/api/profile?view=bottom-up").await;
    let rows = node_rows(&v);
    assert_eq!(rows[0], (0, "render".into(), 90, 90, 3));
    assert_eq!(rows[1], (1, "serve".into(), 90, 90, 3));
}

/// Corpus tier: the guide's ProfileChunk example through the same endpoint.
#[tokio::test]
async fn profile_tree_of_the_seed_example() {
    let Some(p) = tracescope_testdata::corpus(
        "examples/seed-guide/06-profile-chunks-simple.json",
        "the profile endpoint on the guide's example",
    ) else {
        return;
    };
    let app = router(Arc::new(AppState::new(
        crate::load::load(&p).unwrap(),
        "06".into(),
    )));
    let v = ok(&app, "/api/profile").await;
    assert_eq!(
        node_rows(&v),
        vec![
            (0, "(root)".into(), 250, 900, 3),
            (1, "runMainESM".into(), 350, 650, 5),
            (2, "main-work".into(), 300, 300, 6)
        ]
    );
    assert_eq!(v["nodes"]["line"], json!([-1, 93, 11]));
}

#[tokio::test]
async fn profiles_from_slices_per_thread_and_range() {
    let app = app_of(TRACE);
    // Both threads: A 100 + 40 (self 50 + 40) > B 30 + 20.
    let v = ok(&app, "/api/profile?source=slices").await;
    assert_eq!(
        (v["source"].clone(), v["samples"].clone()),
        (json!("slices"), json!(4))
    );
    assert_eq!(v["total_ns"], 140_000);
    assert_eq!(
        node_rows(&v),
        vec![(0, "A".into(), 90, 140, 2), (1, "B".into(), 50, 50, 2)]
    );
    // Thread 2 alone (threads are the summary's ids: tid 2 is the second).
    let summary = ok(&app, "/api/summary").await;
    let th = summary["processes"][0]["threads"][1]["id"]
        .as_i64()
        .unwrap();
    let v = ok(&app, &format!("/api/profile?source=slices&threads={th}")).await;
    assert_eq!(node_rows(&v), vec![(0, "A".into(), 40, 40, 1)]);
    // A range cuts slices at its ends: [30, 60) holds A 30 of thread 1 (B's 10 and
    // 10 in it) and A 30 of thread 2.
    let v = ok(
        &app,
        "/api/profile?source=slices&t0=30000&t1=60000&view=bottom-up",
    )
    .await;
    assert_eq!(
        node_rows(&v),
        vec![
            (0, "A".into(), 40, 60, 2),
            (0, "B".into(), 20, 20, 2),
            (1, "A".into(), 20, 20, 2)
        ]
    );
    // A filter keeps what it finds, its ancestors and descendants.
    let v = ok(&app, "/api/profile?source=slices&filter=%5Eb%24&regex=1").await;
    assert_eq!(node_rows(&v).len(), 2);
    let v = ok(&app, "/api/profile?source=slices&filter=zzz").await;
    assert_eq!(node_rows(&v).len(), 0);
    assert_eq!(v["samples"], 4);

    let v = ok(&app, "/api/profile?source=slices&view=functions").await;
    assert_eq!(
        (v["count"].clone(), v["truncated"].clone()),
        (json!(2), json!(false))
    );
    let f = &v["functions"];
    let names: Vec<_> = f["name"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| v["strings"][i.as_u64().unwrap() as usize].clone())
        .collect();
    assert_eq!(names, [json!("A"), json!("B")]);
    assert_eq!(f["total"], json!([140_000, 50_000]));
    assert_eq!(f["self"], json!([90_000, 50_000]));
    assert_eq!(f["self_samples"], json!([2, 2]));

    let v = ok(&app, "/api/profile?source=slices&view=sandwich&name=B").await;
    assert_eq!(
        node_rows(&v["callers"]),
        vec![(0, "B".into(), 0, 50, 0), (1, "A".into(), 50, 50, 2)]
    );
    assert_eq!(node_rows(&v["callees"]), vec![(0, "B".into(), 50, 50, 2)]);
    let v = ok(
        &app,
        "/api/profile?source=slices&view=sandwich&name=nothing",
    )
    .await;
    assert_eq!(v["callers"]["nodes"]["name"], json!([]));

    for bad in [
        "/api/profile?source=cpu",
        "/api/profile?view=sideways",
        "/api/profile?threads=99",
        "/api/profile?threads=x",
        "/api/profile?view=sandwich",
        "/api/profile?filter=(&regex=1",
        "/api/profile?view=sandwich&name=a&line=0",
    ] {
        let (st, v) = get(&app, bad).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{bad}: {v}");
    }
}

#[tokio::test]
async fn sandwich_of_a_sampled_function_by_name_and_position() {
    // compute (app.js line 21, column 9, 1-based) runs in 3 samples of 40 µs, under
    // start under (root).
    let app = fixture("phases/profile-chunks.json");
    let v = ok(&app, "/api/profile?view=functions").await;
    let f = &v["functions"];
    let i = (0..3)
        .find(|&i| v["strings"][f["name"][i].as_u64().unwrap() as usize] == "compute")
        .unwrap();
    assert_eq!(
        (f["line"][i].clone(), f["column"][i].clone()),
        (json!(21), json!(9))
    );
    let v = ok(
        &app,
        "/api/profile?view=sandwich&name=compute&url=file%3A%2F%2F%2Fsrv%2Fapp.js&line=21&column=9",
    )
    .await;
    assert_eq!(
        node_rows(&v["callers"]),
        vec![
            (0, "compute".into(), 0, 120, 0),
            (1, "start".into(), 0, 120, 0),
            (2, "(root)".into(), 120, 120, 3)
        ]
    );
    // Another line is another function: no calls.
    let v = ok(
        &app,
        "/api/profile?view=sandwich&name=compute&url=file%3A%2F%2F%2Fsrv%2Fapp.js&line=22&column=9",
    )
    .await;
    assert_eq!(v["callees"]["nodes"]["name"], json!([]));
}

#[tokio::test]
async fn object_details_and_snapshot_markers() {
    let app = fixture("phases/objects.json");
    let v = ok(&app, "/api/object/0").await;
    assert_eq!(v["name"], "Texture");
    assert_eq!(v["object_id"], "0x20");
    assert_eq!(
        (v["start"].clone(), v["end"].clone()),
        (json!(100000), json!(300000))
    );
    assert_eq!(v["alive_at_end"], false);
    assert_eq!(v["snapshots"][0]["ts"], 150000);
    let snap = &v["snapshots"][0]["args"];
    let fields = snap.get("snapshot").unwrap_or(snap);
    assert_eq!(fields["w"], 64);
    assert_eq!(fields["format"], "rgba");
    assert!(v["raw_snapshots"][0].as_str().unwrap().contains("64"));

    let s = ok(&app, "/api/summary").await;
    let o = s["processes"][0]["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["kind"] == "objects")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let w = ok(&app, &format!("/api/track/{o}?t0=0&t1=400000&px=300")).await;
    assert_eq!(w["snapshots"]["ts"], json!([150000]));
    assert_eq!(w["snapshots"]["object"], json!([0]));
    assert_eq!(w["snapshots"]["index"], json!([0]));
    let w = ok(&app, &format!("/api/track/{o}?t0=160000&t1=400000&px=300")).await;
    assert_eq!(w["snapshots"]["ts"], json!([]));
}

#[tokio::test]
async fn details_are_exact_and_complete() {
    let app = app_of(
        r#"[
{"ph":"M","pid":3,"tid":7,"name":"thread_name","args":{"name":"CrRendererMain"}},
{"ph":"M","pid":3,"tid":7,"name":"process_name","args":{"name":"Renderer"}},
{"ph":"X","pid":3,"tid":7,"name":"Outer","ts":5,"dur":100},
{"ph":"X","pid":3,"tid":7,"name":"Commit","ts":10,"dur":20,"tts":3,"tdur":15,
 "args":{"main_frame_id":14107898137686480567,"small":42,"f":0.5,"s":"x"}},
{"ph":"s","pid":3,"tid":7,"name":"f","cat":"c","id":1,"ts":12},
{"ph":"f","bp":"e","pid":3,"tid":8,"name":"f","cat":"c","id":1,"ts":50},
{"ph":"X","pid":3,"tid":8,"name":"Far","ts":40,"dur":20}
]"#,
    );
    let v = ok(&app, "/api/slice/1").await;
    assert_eq!(v["name"], "Commit");
    // The browser would round the 64-bit id: it comes as a string; the text as
    // written comes too, for display and copying.
    assert_eq!(
        v["args"],
        json!({"main_frame_id": "14107898137686480567", "small": 42, "f": 0.5, "s": "x"})
    );
    assert_eq!(
        v["args_text"],
        r#"{"main_frame_id":14107898137686480567,"small":42,"f":0.5,"s":"x"}"#
    );
    assert_eq!(
        (v["thread_label"].clone(), v["tid"].clone()),
        (json!("CrRendererMain"), json!(7))
    );
    assert_eq!(
        (v["process_label"].clone(), v["pid"].clone()),
        (json!("Renderer"), json!(3))
    );
    // Absolute times as exact text; relative to the start the page shows (5 µs).
    assert_eq!(
        (
            v["ts_abs"].clone(),
            v["end_abs"].clone(),
            v["rel_ts"].clone()
        ),
        (json!("10000"), json!("30000"), json!(5000))
    );
    assert_eq!(
        (v["self"].clone(), v["tts"].clone(), v["tdur"].clone()),
        (json!(20000), json!(3000), json!(15000))
    );
    assert_eq!(v["parents"][0]["name"], "Outer");
    let f = &v["flows_out"][0];
    assert_eq!(
        (f["to"]["name"].clone(), f["to"]["thread_label"].clone()),
        (json!("Far"), json!("Thread 8"))
    );
}
