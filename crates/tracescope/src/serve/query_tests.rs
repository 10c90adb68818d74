//! `POST /api/query`: answers, errors with positions, the row limit, the time limit.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use super::{router, AppState};

async fn post(sql: &str, params: &str) -> (StatusCode, Value) {
    let state = Arc::new(AppState::new(
        crate::demo::trace().unwrap(),
        "demo trace".into(),
    ));
    let app = router(state);
    let req = Request::builder()
        .method("POST")
        .uri(format!("/api/query{params}"))
        .body(Body::from(sql.to_string()))
        .unwrap();
    let resp = app.oneshot(req).await.unwrap();
    let status = resp.status();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&body).unwrap())
}

#[tokio::test]
async fn answers_with_columns_rows_and_count() {
    let demo = crate::demo::trace().unwrap();
    let (s, v) = post(
        "SELECT COUNT(*) AS n, MIN(ts) AS first FROM slice WHERE dur >= 0",
        "",
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["columns"], serde_json::json!(["n", "first"]));
    let sl = &demo.tables.slices;
    let n = (0..sl.len()).filter(|&i| !sl.did_not_finish(i)).count()
        + demo.tables.instants.len()
        + (0..demo.tables.async_slices.len())
            .filter(|&i| !demo.tables.async_slices.did_not_finish[i])
            .count();
    assert_eq!(v["rows"][0][0], n);
    assert_eq!(v["row_count"], 1);
    assert_eq!(v["truncated"], false);
    assert!(v["ms"].as_f64().unwrap() >= 0.0);
    // The trace column names the served file.
    let (_, v) = post("SELECT DISTINCT trace FROM thread", "").await;
    assert_eq!(v["rows"], serde_json::json!([["demo trace"]]));
}

#[tokio::test]
async fn rows_past_the_limit_are_counted_not_sent() {
    let (s, v) = post("SELECT id FROM slices ORDER BY id", "?limit=3").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["rows"], serde_json::json!([[0], [1], [2]]));
    assert!(v["row_count"].as_u64().unwrap() > 3);
    assert_eq!(v["truncated"], true);
}

#[tokio::test]
async fn sql_errors_say_where() {
    let (s, v) = post("SELECT name\nFROM slice WHERE nme = 1", "").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(v["error"], "no such column: nme");
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64()),
        (Some(2), Some(18))
    );
    let (s, v) = post("SELECT * FROM nope", "").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let msg = v["error"].as_str().unwrap();
    assert!(
        msg.starts_with("no such table: nope; the tables are: args,"),
        "{msg}"
    );
    let (s, _) = post("   ", "").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (s, _) = post("SELECT 1", "?limit=x").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_query_past_its_time_limit_is_interrupted() {
    let forever =
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT COUNT(*) FROM n";
    let t0 = std::time::Instant::now();
    let (s, v) = post(forever, "?timeout_ms=200").await;
    assert_eq!(s, StatusCode::REQUEST_TIMEOUT);
    assert_eq!(
        v["error"],
        "the query ran longer than 200 ms and was interrupted"
    );
    assert!(t0.elapsed() < std::time::Duration::from_secs(20));
}
