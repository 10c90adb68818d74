//! Fuzzing the HTTP parameter parsers and the SQL endpoint on stable Rust: random
//! routes, ids and query strings (known names with hostile values, and raw bytes), and
//! random SQL over the tables. Whatever comes in, the answer is JSON with a 2xx or 4xx
//! status (an error that says what was wrong), never a 500 or a panic; and a filter
//! pushed down into the virtual tables selects exactly the rows SQLite's own filter does.
//! Found cases are kept by proptest beside this file (`*.proptest-regressions`).

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;
use tower::ServiceExt;

use super::{router, AppState};

fn app() -> Router {
    let state = Arc::new(AppState::new(
        crate::demo::trace().unwrap(),
        "demo trace".into(),
    ));
    router(state)
}

/// Runs one request to its end on a runtime of its own (proptest drives the loop).
/// Images (screenshots) come back as `Value::Null`; every other body must be JSON.
fn send(rt: &tokio::runtime::Runtime, app: &Router, req: Request<Body>) -> (StatusCode, Value) {
    rt.block_on(async {
        let resp = app.clone().oneshot(req).await.unwrap();
        let status = resp.status();
        let image = resp
            .headers()
            .get("content-type")
            .is_some_and(|t| t.as_bytes().starts_with(b"image/"));
        let body = resp.into_body().collect().await.unwrap().to_bytes();
        if image && status.is_success() {
            return (status, Value::Null);
        }
        let v = serde_json::from_slice(&body)
            .unwrap_or_else(|e| panic!("{status}: not JSON ({e}): {body:?}"));
        (status, v)
    })
}

/// `cases` random inputs (`PROPTEST_CASES` for a longer run); failures are kept
/// beside this file and replayed first.
fn runner(cases: u32) -> TestRunner {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    TestRunner::new(Config {
        cases,
        source_file: Some(file!()),
        ..Config::default()
    })
}

/// Values that have broken parsers elsewhere: limits, signs, floats, encodings.
const HOSTILE: &[&str] = &[
    "",
    "0",
    "-1",
    "1",
    "4294967295",
    "4294967296",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "1e308",
    "-1e308",
    "1e-320",
    "NaN",
    "inf",
    "-0",
    "0x10",
    "1.5",
    " 1",
    "%",
    "%zz",
    "%00",
    "%C3%28",
    "%FF",
    "a%20b",
    "+",
    "(",
    "[",
    "\\",
    "/(a+)+$/",
    ".*",
    "*",
    "thread",
    "name",
    "category",
    "functions",
    "sandwich",
    "slices",
    "samples",
    "total",
    "self",
    "count",
    "1,2,3",
    ",",
    "1:2",
    "\u{1F600}",
    "20001",
    "100000000",
];

/// Parameter names the routes read (and a few they do not).
const NAMES: &[&str] = &[
    "t0",
    "t1",
    "px",
    "q",
    "limit",
    "offset",
    "by",
    "sort",
    "view",
    "key",
    "name",
    "regex",
    "max_nodes",
    "tracks",
    "timeout_ms",
    "source",
    "threads",
    "thread",
    "filter",
    "cursor",
    "kind",
    "from",
    "unknown",
];

const ROUTES: &[&str] = &[
    "/api/summary",
    "/api/track/{}",
    "/api/slice/{}",
    "/api/async/{}",
    "/api/instant/{}",
    "/api/screenshot/{}",
    "/api/search",
    "/api/flows",
    "/api/range",
    "/api/range/slices",
    "/api/profile",
    "/api/object/{}",
];

/// Percent-encodes what a URI may not carry as is, so the request reaches the route.
fn escape(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'%' | b'+' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(HOSTILE).prop_map(escape),
        1 => any::<i64>().prop_map(|n| n.to_string()),
        1 => proptest::collection::vec(any::<u8>(), 0..24)
            .prop_map(|b| b.iter().map(|b| format!("%{b:02X}")).collect()),
        1 => "[ -~]{0,12}".prop_map(|s| escape(&s)),
    ]
}

fn request() -> impl Strategy<Value = String> {
    let pair = (proptest::sample::select(NAMES), value()).prop_map(|(k, v)| format!("{k}={v}"));
    (
        proptest::sample::select(ROUTES),
        prop_oneof![
            proptest::sample::select(HOSTILE).prop_map(escape),
            (0u32..40).prop_map(|n| n.to_string())
        ],
        proptest::collection::vec(pair, 0..6),
    )
        .prop_map(|(route, id, pairs)| {
            let path = route.replace("{}", if id.is_empty() { "x" } else { &id });
            format!("{path}?{}", pairs.join("&"))
        })
}

#[test]
fn any_query_string_gets_json_and_no_server_error() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let app = app();
    let mut runner = runner(400);
    runner
        .run(&request(), |uri| {
            let req = Request::get(uri.as_str()).body(Body::empty()).unwrap();
            let (status, v) = send(&rt, &app, req);
            prop_assert!(
                status.is_success() || status.is_client_error(),
                "{uri}: {status} {v}"
            );
            if status.is_client_error() {
                prop_assert!(
                    v["error"].as_str().is_some_and(|e| !e.is_empty()),
                    "{uri}: {v}"
                );
            }
            Ok(())
        })
        .unwrap();
}

/// A comparison on a column the virtual tables push down (`ts`, `dur`, `id`,
/// `utid`/`thread`); `+col` hides it from the planner, so SQLite filters itself.
/// Numbers only: `+` also drops the column's affinity, so `id = '1'` and `+id = '1'`
/// differ in SQLite itself.
fn sql_filter() -> impl Strategy<Value = (String, String)> {
    let column = proptest::sample::select(
        &["ts", "dur", "id", "utid", "depth", "track_id", "parent_id"][..],
    );
    let op = proptest::sample::select(&["=", "<", "<=", ">", ">=", "!="][..]);
    let bound = prop_oneof![
        (-5i64..5).prop_map(|n| n.to_string()),
        (0i64..2_000_000_000).prop_map(|n| n.to_string()),
        Just("NULL".to_string()),
        Just("1.5".to_string()),
        Just("9223372036854775807".to_string()),
        Just("-9223372036854775808".to_string()),
        Just("1e300".to_string()),
    ];
    proptest::collection::vec((column, op, bound), 1..4).prop_map(|terms| {
        let join = |plus: &str| {
            terms
                .iter()
                .map(|(c, o, b)| format!("{plus}{c} {o} {b}"))
                .collect::<Vec<_>>()
                .join(" AND ")
        };
        (join(""), join("+"))
    })
}

fn post_sql(rt: &tokio::runtime::Runtime, app: &Router, sql: &str) -> (StatusCode, Value) {
    let req = Request::post("/api/query?limit=10000")
        .body(Body::from(sql.to_string()))
        .unwrap();
    send(rt, app, req)
}

#[test]
fn pushed_down_filters_select_what_sqlite_selects() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let app = app();
    let mut runner = runner(200);
    runner
        .run(&sql_filter(), |(pushed, hidden)| {
            let q = |w: &str| format!("SELECT id FROM slice WHERE {w} ORDER BY id");
            let (s1, a) = post_sql(&rt, &app, &q(&pushed));
            let (s2, b) = post_sql(&rt, &app, &q(&hidden));
            prop_assert_eq!(s1, StatusCode::OK, "{}: {}", pushed, a);
            prop_assert_eq!(s2, StatusCode::OK, "{}: {}", hidden, b);
            prop_assert_eq!(&a["rows"], &b["rows"], "{}", pushed);
            Ok(())
        })
        .unwrap();
}

/// Statements put together from SQL's pieces, most of them wrong: an error with a
/// message (and a position where SQLite gives one), never a server error.
#[test]
fn any_sql_gets_an_answer_or_an_error() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let app = app();
    let piece = proptest::sample::select(
        &[
            "SELECT",
            "*",
            "id",
            "name",
            "ts",
            "FROM",
            "slice",
            "thread",
            "args",
            "flow",
            "slices",
            "WHERE",
            "=",
            "<",
            "(",
            ")",
            ",",
            "1",
            "-1",
            "'x'",
            "NULL",
            "AND",
            "OR",
            "GROUP BY",
            "ORDER BY",
            "LIMIT",
            "JOIN",
            "ON",
            ";",
            "count(*)",
            "EXTRACT_ARG(arg_set_id, 'args.x')",
            "ancestor_slice(1)",
            "descendant_slice(0)",
            "directly_connected_flow(1)",
            "following_flow(2)",
            "preceding_flow(3)",
            "--",
            "/*",
            "\u{0}",
            "\u{1F600}",
            "x'00'",
            "9999999999999999999999",
        ][..],
    );
    let mut runner = runner(300);
    runner
        .run(&proptest::collection::vec(piece, 0..14), |pieces| {
            let sql = pieces.join(" ");
            let (status, v) = post_sql(&rt, &app, &sql);
            prop_assert!(
                status == StatusCode::OK || status.is_client_error(),
                "{sql}: {status} {v}"
            );
            if status != StatusCode::OK {
                prop_assert!(
                    v["error"].as_str().is_some_and(|e| !e.is_empty()),
                    "{sql}: {v}"
                );
            }
            Ok(())
        })
        .unwrap();
}
