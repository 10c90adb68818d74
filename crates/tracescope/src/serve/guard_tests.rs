//! The guard in front of the router, on the demo trace: Host, Origin, token.

use std::net::IpAddr;
use std::sync::{Arc, OnceLock};

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::response::Response;
use axum::Router;
use http_body_util::BodyExt;
use tower::ServiceExt;

use super::*;
use crate::serve::{app, AppState};

const PORT: u16 = 8123;
const TOKEN: &str = "0123456789abcdef0123456789abcdef";

fn state() -> Arc<AppState> {
    static STATE: OnceLock<Arc<AppState>> = OnceLock::new();
    STATE
        .get_or_init(|| {
            Arc::new(AppState::new(
                crate::demo::trace().unwrap(),
                "demo trace".into(),
            ))
        })
        .clone()
}

fn server(bind: &str, token: Option<&str>) -> Router {
    let bind: IpAddr = bind.parse().unwrap();
    app(state(), Guard::new(bind, PORT, token.map(String::from)))
}

/// Every kind of route: the page, its assets, each API endpoint, unknown paths.
const ROUTES: &[&str] = &[
    "/",
    "/index.html",
    "/main.js",
    "/style.css",
    "/api/summary",
    "/api/track/s:0:0?t0=0&t1=1000000&px=100",
    "/api/slice/0",
    "/api/async/0",
    "/api/search?q=a",
    "/api/flows?t0=0&t1=1000000",
    "/api/range?t0=0&t1=1000000&by=name",
    "/api/range/slices?t0=0&t1=1000000&by=name&key=a",
    "/api/profile?view=top-down",
    "/api/object/0",
    "/api/instant/0",
    "/api/query?sql=select%201",
    "/api/no-such-endpoint",
    "/no-such-file",
];

/// The first routes of [`ROUTES`] answer 200 on the demo trace.
const OK_ROUTES: usize = 15;

async fn send(app: &Router, req: Request<Body>) -> (Response, String) {
    let resp = app.clone().oneshot(req).await.unwrap();
    let (parts, body) = resp.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    (
        Response::from_parts(parts, Body::empty()),
        String::from_utf8_lossy(&body).into_owned(),
    )
}

fn get(uri: &str, host: Option<&str>) -> Request<Body> {
    let mut b = Request::builder().uri(uri);
    if let Some(h) = host {
        b = b.header(header::HOST, h);
    }
    b.body(Body::empty()).unwrap()
}

async fn status(app: &Router, req: Request<Body>) -> StatusCode {
    send(app, req).await.0.status()
}

#[tokio::test]
async fn a_foreign_host_gets_403_on_every_route() {
    let app = server("127.0.0.1", None);
    for host in [
        Some("attacker.example:8123"),
        Some("attacker.example"),
        Some("127.0.0.1"),
        Some("127.0.0.1:8124"),
        Some("localhost.attacker.example:8123"),
        Some("10.0.0.1:8123"),
        None,
    ] {
        for &route in ROUTES {
            let (resp, body) = send(&app, get(route, host)).await;
            assert_eq!(
                resp.status(),
                StatusCode::FORBIDDEN,
                "{route} with {host:?}"
            );
            assert_eq!(
                resp.headers()[header::CONTENT_TYPE],
                "text/plain; charset=utf-8"
            );
            assert!(
                body.starts_with("403 Forbidden: this tracescope server answers only requests addressed to it (http://127.0.0.1:8123/)"),
                "{body}"
            );
        }
    }
    // An absolute-form request names its host in the request line.
    let req = get(
        "http://attacker.example:8123/api/summary",
        Some("127.0.0.1:8123"),
    );
    assert_eq!(status(&app, req).await, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn the_server_answers_its_own_addresses() {
    let app = server("127.0.0.1", None);
    for host in [
        "127.0.0.1:8123",
        "localhost:8123",
        "LocalHost:8123",
        "[::1]:8123",
    ] {
        for &route in &ROUTES[..OK_ROUTES] {
            let s = status(&app, get(route, Some(host))).await;
            assert_eq!(s, StatusCode::OK, "{route} with {host}");
        }
    }
    // --bind to one address: that address too, not others.
    let app = server("192.168.7.9", Some(TOKEN));
    let bearer = |host: &str| {
        Request::builder()
            .uri("/api/summary")
            .header(header::HOST, host)
            .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
            .body(Body::empty())
            .unwrap()
    };
    assert_eq!(
        status(&app, bearer("192.168.7.9:8123")).await,
        StatusCode::OK
    );
    assert_eq!(status(&app, bearer("127.0.0.1:8123")).await, StatusCode::OK);
    assert_eq!(
        status(&app, bearer("10.1.1.1:8123")).await,
        StatusCode::FORBIDDEN
    );
    // Bound to every address: any address literal, never a name.
    let app = server("0.0.0.0", Some(TOKEN));
    for (host, want) in [
        ("10.1.1.1:8123", StatusCode::OK),
        ("[fe80::1]:8123", StatusCode::OK),
        ("10.1.1.1:9999", StatusCode::FORBIDDEN),
        ("devbox.attacker.example:8123", StatusCode::FORBIDDEN),
        ("fe80::1:8123", StatusCode::FORBIDDEN),
    ] {
        assert_eq!(status(&app, bearer(host)).await, want, "{host}");
    }
}

fn with_origin(method: Method, uri: &str, origin: &str) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(uri)
        .header(header::HOST, "127.0.0.1:8123")
        .header(header::ORIGIN, origin)
        .body(Body::empty())
        .unwrap()
}

#[tokio::test]
async fn state_changing_requests_and_the_query_endpoint_check_origin() {
    let app = server("127.0.0.1", None);
    for origin in [
        "http://attacker.example",
        "null",
        "https://127.0.0.1:8123",
        "http://127.0.0.1:8123/x",
    ] {
        for method in [Method::POST, Method::PUT, Method::DELETE, Method::OPTIONS] {
            let (resp, body) =
                send(&app, with_origin(method.clone(), "/api/summary", origin)).await;
            assert_eq!(
                resp.status(),
                StatusCode::FORBIDDEN,
                "{method} from {origin}"
            );
            assert_eq!(
                body,
                format!(
                    "403 Forbidden: a page of another site ({origin}) cannot send this request\n"
                )
            );
        }
        let s = status(
            &app,
            with_origin(Method::GET, "/api/query?sql=select%201", origin),
        )
        .await;
        assert_eq!(s, StatusCode::FORBIDDEN, "query from {origin}");
        // A plain GET is not refused for its Origin: no other origin can read it.
        let s = status(&app, with_origin(Method::GET, "/api/summary", origin)).await;
        assert_eq!(s, StatusCode::OK);
    }
    // The page's own origin passes the guard (the router then has no POST route).
    let s = status(
        &app,
        with_origin(Method::POST, "/api/summary", "http://127.0.0.1:8123"),
    )
    .await;
    assert_eq!(s, StatusCode::METHOD_NOT_ALLOWED);
    let s = status(
        &app,
        with_origin(Method::GET, "/api/query", "http://localhost:8123"),
    )
    .await;
    assert_ne!(s, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn off_loopback_the_token_is_required() {
    let app = server("0.0.0.0", Some(TOKEN));
    let host = Some("10.1.1.1:8123");
    for &route in ROUTES {
        let (resp, body) = send(&app, get(route, host)).await;
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "{route}");
        assert_eq!(
            resp.headers()[header::WWW_AUTHENTICATE],
            "Bearer realm=\"tracescope\""
        );
        assert!(body.starts_with("401 Unauthorized: this tracescope server needs its token"));
    }
    for wrong in [
        "/?token=",
        "/?token=0123456789abcdef0123456789abcdee",
        "/api/summary?token=x",
    ] {
        assert_eq!(
            status(&app, get(wrong, host)).await,
            StatusCode::UNAUTHORIZED
        );
    }

    // The printed URL: a cookie and a redirect to the clean address.
    let (resp, _) = send(&app, get(&format!("/?token={TOKEN}"), host)).await;
    assert_eq!(resp.status(), StatusCode::SEE_OTHER);
    assert_eq!(resp.headers()[header::LOCATION], "/");
    let cookie = resp.headers()[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(
        cookie,
        format!("tracescope-token-8123={TOKEN}; Path=/; HttpOnly; SameSite=Lax")
    );
    let (resp, _) = send(
        &app,
        get(&format!("/index.html?a=1&token={TOKEN}&b=2"), host),
    )
    .await;
    assert_eq!(resp.headers()[header::LOCATION], "/index.html?a=1&b=2");

    // Then the page, its assets and the API, with the cookie (as the browser sends it).
    let jar = cookie.split(';').next().unwrap();
    for &route in &ROUTES[..OK_ROUTES] {
        let req = Request::builder()
            .uri(route)
            .header(header::HOST, "10.1.1.1:8123")
            .header(header::COOKIE, format!("other=1; {jar}"))
            .body(Body::empty())
            .unwrap();
        assert_eq!(status(&app, req).await, StatusCode::OK, "{route}");
    }
    // A cookie of another tracescope server (another port) is not this one's.
    let req = Request::builder()
        .uri("/api/summary")
        .header(header::HOST, "10.1.1.1:8123")
        .header(header::COOKIE, format!("tracescope-token-8124={TOKEN}"))
        .body(Body::empty())
        .unwrap();
    assert_eq!(status(&app, req).await, StatusCode::UNAUTHORIZED);
    // Scripts: the token as a parameter of an API request (not passed on), or a header.
    let uri = format!("/api/track/s:0:0?token={TOKEN}&t0=0&t1=1000000&px=100");
    let (resp, body) = send(&app, get(&uri, host)).await;
    assert_eq!(resp.status(), StatusCode::OK, "{body}");
    let req = Request::builder()
        .uri("/api/summary")
        .header(header::HOST, "10.1.1.1:8123")
        .header(header::AUTHORIZATION, format!("token {TOKEN}"))
        .body(Body::empty())
        .unwrap();
    assert_eq!(status(&app, req).await, StatusCode::OK);
    // The Host check comes first: a rebinding page never learns whether a token is set.
    let (resp, _) = send(
        &app,
        get(&format!("/?token={TOKEN}"), Some("evil.example:8123")),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn no_response_lets_other_origins_read() {
    let app = server("127.0.0.1", None);
    for &route in ROUTES {
        for origin in [
            None,
            Some("http://attacker.example"),
            Some("http://127.0.0.1:8123"),
        ] {
            let mut b = Request::builder()
                .uri(route)
                .header(header::HOST, "127.0.0.1:8123");
            if let Some(o) = origin {
                b = b.header(header::ORIGIN, o);
            }
            let (resp, _) = send(&app, b.body(Body::empty()).unwrap()).await;
            assert!(
                !resp
                    .headers()
                    .contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN),
                "{route}"
            );
        }
    }
}

#[test]
fn tokens_are_random_and_long() {
    let (a, b) = (Guard::new_token().unwrap(), Guard::new_token().unwrap());
    assert_eq!(a.len(), 32);
    assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(a, b);
}

#[test]
fn the_token_is_needed_off_loopback_unless_no_token_and_on_loopback_with_token() {
    use crate::serve::Options;
    let (lo, lo6, any, lan): (IpAddr, IpAddr, IpAddr, IpAddr) = (
        "127.0.0.1".parse().unwrap(),
        "::1".parse().unwrap(),
        "0.0.0.0".parse().unwrap(),
        "192.168.7.9".parse().unwrap(),
    );
    for ip in [lo, lo6] {
        assert!(!Options::token_needed(ip, false, false));
        assert!(Options::token_needed(ip, true, false));
    }
    for ip in [any, lan] {
        assert!(Options::token_needed(ip, false, false));
        assert!(!Options::token_needed(ip, false, true));
    }
}
