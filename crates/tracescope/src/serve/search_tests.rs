//! `/api/search` in process: fields, paging through every match, orders.

use axum::http::StatusCode;
use serde_json::{json, Value};

use super::analysis_tests::app_of;
use super::tests::{get, ok};

/// Slices with args (an escaped quote, a 64-bit integer, a key named "url"),
/// categories, an async operation with a string id, a flow with an id, instants.
const TRACE: &str = r#"[
{"ph":"X","pid":1,"tid":1,"name":"Load","cat":"loading","ts":10,"dur":50,"args":{"url":"https://a.test/x\"y","n":14107898137686480567}},
{"ph":"X","pid":1,"tid":1,"name":"Parse","cat":"blink","ts":70,"dur":5,"args":{"data":{"url":"about:blank"}}},
{"ph":"X","pid":1,"tid":1,"name":"Paint","cat":"blink,rail","ts":80,"dur":20,"args":{"frame":"F1"}},
{"ph":"b","pid":1,"tid":1,"name":"Request","cat":"net","id":"0xabc","ts":20},
{"ph":"e","pid":1,"tid":1,"name":"Request","cat":"net","id":"0xabc","ts":95,"args":{"status":404}},
{"ph":"s","pid":1,"tid":1,"name":"IPC","cat":"ipc","id":"0xf10","ts":72},
{"ph":"f","bp":"e","pid":1,"tid":1,"name":"IPC","cat":"ipc","id":"0xf10","ts":85},
{"ph":"i","pid":1,"tid":1,"name":"Mark","s":"t","ts":90,"args":{"note":"url loaded"}}
]"#;

/// (kind, name, field) of each match.
fn found(v: &Value) -> Vec<(String, String, String)> {
    (0..v["kind"].as_array().unwrap().len())
        .map(|i| {
            let s = |k: &str| v[k][i].as_str().unwrap().to_string();
            (s("kind"), s("name"), s("field"))
        })
        .collect()
}

fn m(k: &str, n: &str, f: &str) -> (String, String, String) {
    (k.into(), n.into(), f.into())
}

#[tokio::test]
async fn search_finds_names_categories_arg_values_and_ids() {
    let app = app_of(TRACE);
    // Arg values, not keys: "url" is in the value of Mark's note only (the two
    // `url` keys do not count); escapes are decoded.
    let v = ok(&app, "/api/search?q=url&until=done").await;
    assert_eq!(found(&v), [m("instant", "Mark", "args")]);
    assert_eq!(
        (v["done"].clone(), v["total"].clone()),
        (json!(true), json!(1))
    );
    let v = ok(&app, "/api/search?q=x%22y&until=done").await;
    assert_eq!(found(&v), [m("slice", "Load", "args")]);
    // The integer as written, all 20 digits.
    let v = ok(&app, "/api/search?q=14107898137686480567&until=done").await;
    assert_eq!(found(&v), [m("slice", "Load", "args")]);
    // A category; the async operation's id; the id of the flow leaving Parse.
    let v = ok(&app, "/api/search?q=rail&until=done").await;
    assert_eq!(found(&v), [m("slice", "Paint", "cat")]);
    let v = ok(&app, "/api/search?q=0xABC&until=done").await;
    assert_eq!(found(&v), [m("async", "Request", "id")]);
    let v = ok(&app, "/api/search?q=f10&until=done").await;
    assert_eq!(found(&v), [m("slice", "Parse", "id")]);
    // The end event's args count too; a regex anchored on the whole value.
    let v = ok(&app, "/api/search?q=%5E404%24&regex=1&until=done").await;
    assert_eq!(found(&v), [m("async", "Request", "args")]);
    let v = ok(&app, "/api/search?q=%5E40%24&regex=1&until=done").await;
    assert_eq!(v["total"], 0);
    // Only the fields asked for: an item matching in several is listed once.
    let v = ok(&app, "/api/search?q=a&until=done").await;
    assert_eq!(
        found(&v),
        [
            m("slice", "Load", "name"),
            m("async", "Request", "id"),
            m("slice", "Parse", "name"),
            m("slice", "Paint", "name"),
            m("instant", "Mark", "name"),
        ]
    );
    let v = ok(&app, "/api/search?q=a&fields=cats,ids&until=done").await;
    assert_eq!(
        found(&v),
        [
            m("slice", "Load", "cat"),
            m("async", "Request", "id"),
            m("slice", "Paint", "cat")
        ]
    );
}

#[tokio::test]
async fn every_match_is_reachable_page_by_page_in_any_order() {
    let app = app_of(TRACE);
    let all = ok(&app, "/api/search?q=a&until=done").await;
    let ts: Vec<i64> = all["ts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_i64().unwrap())
        .collect();
    assert_eq!(ts, [10_000, 20_000, 70_000, 80_000, 90_000]);
    let mut paged = Vec::new();
    for offset in 0..3 {
        let v = ok(
            &app,
            &format!("/api/search?q=a&limit=2&offset={}&until=done", offset * 2),
        )
        .await;
        assert_eq!(v["search"], all["search"], "the same search is read again");
        paged.extend(
            v["ts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_i64().unwrap()),
        );
    }
    assert_eq!(paged, ts);
    // Longest first: Request 75, Load 50, Paint 20, Parse 5, Mark 0.
    let v = ok(&app, "/api/search?q=a&sort=duration").await;
    assert_eq!(v["dur"], json!([75_000, 50_000, 20_000, 5_000, 0]));
    assert_eq!(
        (v["sort"].clone(), v["order"].clone()),
        (json!("duration"), json!("desc"))
    );
    let v = ok(
        &app,
        "/api/search?q=a&sort=duration&order=asc&limit=2&offset=1",
    )
    .await;
    assert_eq!(v["dur"], json!([5_000, 20_000]));
    let v = ok(&app, "/api/search?q=a&order=desc&limit=1").await;
    assert_eq!(v["name"], json!(["Mark"]));
    for bad in [
        "/api/search?q=a&fields=nothing",
        "/api/search?q=a&sort=name",
        "/api/search?q=a&order=up",
        "/api/search?q=a&until=later",
        "/api/search?q=a&wait=99999",
    ] {
        let (st, v) = get(&app, bad).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{bad}: {v}");
    }
}
