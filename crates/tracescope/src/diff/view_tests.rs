//! The compare view's server, in process: both sides' APIs under /base and /new,
//! the comparison endpoints, the page at /, the guard in front of all of it.

use std::path::Path;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use serde_json::Value;
use tower::ServiceExt;

use super::*;
use crate::serve::tests::{get, ok};

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name)
}

fn side(names: &[&str]) -> Side {
    let traces = names
        .iter()
        .map(|n| crate::load::load(&fixture(n)).unwrap())
        .collect();
    Side::new(traces, names.iter().map(|n| n.to_string()).collect())
}

fn app() -> Router {
    let state = CompareState::new(
        side(&["diff-base.json"]),
        side(&["diff-new.json", "diff-new.json"]),
        By::Name,
    );
    router(Arc::new(state))
}

fn keys(v: &Value) -> Vec<&str> {
    v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["key"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn compare_info_names_both_sides_and_their_runs() {
    let v = ok(&app(), "/api/compare").await;
    assert_eq!(v["by"], "name");
    assert_eq!(v["base"]["files"], serde_json::json!(["diff-base.json"]));
    assert_eq!(v["new"]["files"].as_array().unwrap().len(), 2);
    assert_eq!(v["base"]["start_ns"], 0);
    assert_eq!(v["new"]["start_ns"], 500_000_000);
    // One base run: no significance test.
    assert_eq!(v["significance"], Value::Null);
}

#[tokio::test]
async fn diff_by_any_grouping_with_each_sides_key() {
    let app = app();
    let v = ok(&app, "/api/diff").await;
    assert_eq!(v["by"], "name");
    assert_eq!(
        keys(&v),
        ["frame", "layout", "hydrate", "gc", "decode", "paint"]
    );
    // Two identical new runs: their mean is the run.
    assert_eq!(v["groups"][0]["new"]["total_ns"], 28_000_000);
    assert_eq!(v["groups"][0]["new_sd"]["total_ns"], 0);
    assert_eq!(v["groups"][0]["base_key"], "frame");
    assert_eq!(v["groups"][2]["base_key"], Value::Null);
    assert_eq!(v["groups"][2]["new_key"], "hydrate");
    let t = ok(&app, "/api/diff?by=thread").await;
    assert_eq!(keys(&t), ["app/main", "app/worker"]);
    // By thread: the first run's thread id on each side, for /api/range/slices.
    assert_eq!(t["groups"][1]["base_key"], "1");
    assert_eq!(t["groups"][1]["new_key"], "1");
    let c = ok(&app, "/api/diff?by=category&sort=count").await;
    assert_eq!(c["sort"], "count");
    assert_eq!(keys(&c), ["io", "v8", "render"]);
    for bad in [
        "/api/diff?by=colour",
        "/api/diff?sort=speed",
        "/api/diff?by=name&by=thread",
    ] {
        let (s, v) = get(&app, bad).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {v}");
        assert!(v["error"].is_string());
    }
}

#[tokio::test]
async fn each_side_keeps_the_single_trace_api() {
    let app = app();
    let b = ok(&app, "/base/api/summary").await;
    let n = ok(&app, "/new/api/summary").await;
    assert_eq!(b["start_ns"], 0);
    assert_eq!(n["start_ns"], 500_000_000);
    let h = ok(
        &app,
        "/new/api/range/slices?t0=0&t1=600000000&by=name&key=hydrate",
    )
    .await;
    assert_eq!(h["ts"], serde_json::json!([510_000_000]));
    let (s, _) = get(&app, "/api/nosuch").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _) = get(&app, "/base/api/nosuch").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn every_run_of_a_side_is_served_and_keyed() {
    let state = CompareState::new(
        side(&["runs/base-1.json", "runs/base-2.json"]),
        side(&["runs/new-1.json"]),
        By::Name,
    );
    let app = router(Arc::new(state));
    let pid = |v: &Value| v["processes"][0]["pid"].clone();
    assert_eq!(pid(&ok(&app, "/base/api/summary").await), 101);
    assert_eq!(pid(&ok(&app, "/runs/base/1/api/summary").await), 101);
    assert_eq!(pid(&ok(&app, "/runs/base/2/api/summary").await), 102);
    assert_eq!(pid(&ok(&app, "/runs/new/1/api/summary").await), 101);
    for missing in [
        "/runs/base/3/api/summary",
        "/runs/base/0/api/summary",
        "/runs/new/2/api/summary",
    ] {
        let (s, _) = get(&app, missing).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{missing}");
    }
    // Run 2's own slices: its first frame lasts 10,487 us (run 1's 10,564 us).
    let q = "api/range/slices?t0=0&t1=60000000&by=name&key=frame";
    let dur = |v: &Value| v["dur"][0].clone();
    assert_eq!(
        dur(&ok(&app, &format!("/runs/base/2/{q}")).await),
        10_487_000
    );
    assert_eq!(
        dur(&ok(&app, &format!("/runs/base/1/{q}")).await),
        10_564_000
    );
    // The keys of a group are for the runs asked for; the numbers are every run's.
    let a = ok(&app, "/api/diff?by=thread").await;
    let b = ok(&app, "/api/diff?by=thread&base_run=2&new_run=1").await;
    assert_eq!(b["groups"][0]["base_key"], "0");
    assert_eq!(a["groups"][0]["base"], b["groups"][0]["base"]);
    for bad in [
        "/api/diff?base_run=3",
        "/api/diff?base_run=0",
        "/api/diff?new_run=2",
        "/api/diff?new_run=x",
    ] {
        let (s, v) = get(&app, bad).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {v}");
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .contains("must be a run number from 1 to"),
            "{v}"
        );
    }
}

#[tokio::test]
async fn the_flame_graph_merges_both_sides() {
    let v = ok(&app(), "/api/diff/flame").await;
    let n = &v["nodes"];
    let names: Vec<&str> = n["name"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(v["source"], "slices");
    let frame = names.iter().position(|&x| x == "frame").unwrap();
    assert_eq!(n["base_total"][frame], 22_000_000);
    assert_eq!(n["new_total"][frame], 28_000_000);
    assert_eq!(n["parent"][frame], -1);
    let layout = names.iter().position(|&x| x == "layout").unwrap();
    assert_eq!(n["parent"][layout], frame);
    assert_eq!(n["new_self"][layout], 16_000_000);
}

async fn page(app: &Router, uri: &str, host: &str) -> (StatusCode, String) {
    let req = Request::builder()
        .uri(uri)
        .header("host", host)
        .body(Body::empty())
        .unwrap();
    let resp = app.clone().oneshot(req).await.unwrap();
    let status = resp.status();
    let body = http_body_util::BodyExt::collect(resp.into_body())
        .await
        .unwrap()
        .to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn the_page_at_root_behind_the_guard() {
    let guarded = crate::serve::Guard::new("127.0.0.1".parse().unwrap(), 8123, None).wrap(app());
    let (s, body) = page(&guarded, "/", "127.0.0.1:8123").await;
    assert_eq!(s, StatusCode::OK);
    assert!(body.contains("compare/main.js"), "{body}");
    let (s, _) = page(&guarded, "/compare/main.js", "127.0.0.1:8123").await;
    assert_eq!(s, StatusCode::OK);
    for uri in [
        "/",
        "/api/diff",
        "/api/compare",
        "/base/api/summary",
        "/new/api/summary",
    ] {
        let (s, _) = page(&guarded, uri, "attacker.example:8123").await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{uri}");
    }
}
