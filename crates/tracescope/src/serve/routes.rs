//! The router: API endpoints with strict parameter checks, and the embedded page.
//!
//! Handlers parse every parameter themselves so that every failure is a JSON error
//! (400 bad parameter, 404 no such id or path), and run the query on the blocking
//! pool (a query may take milliseconds of CPU; the async workers stay free).

use std::sync::{Arc, OnceLock};

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tower_http::compression::{CompressionLayer, CompressionLevel};
use tracescope_model::query::details::{async_details, slice_details};
use tracescope_model::query::flows::flows_in_window;
use tracescope_model::query::instant::instant_details;
use tracescope_model::query::lod::Grid;
use tracescope_model::query::screenshots::{screenshot_image, ImageError};
use tracescope_model::query::window::{track_window, Window};
use tracescope_model::query::{QueryIndex, TrackRef};
use tracescope_model::Trace;

use super::{analysis, assets, encode, json, search};

/// One served trace and its query indexes.
pub struct AppState {
    pub trace: Trace,
    pub index: QueryIndex,
    /// File name shown by the page.
    pub name: String,
    summary: OnceLock<String>,
    /// Searches running or kept for their pages.
    pub(super) searches: search::Jobs,
}

impl AppState {
    pub fn new(trace: Trace, name: String) -> AppState {
        let index = QueryIndex::new(&trace);
        AppState {
            trace,
            index,
            name,
            summary: OnceLock::new(),
            searches: search::Jobs::default(),
        }
    }

    /// Builds every index and the summary now, so no request pays for them.
    pub fn warm(&self) {
        self.index.warm(&self.trace);
        self.summary();
    }

    /// Builds what the first paint needs (every index but the CPU sample flames,
    /// and the summary) now, and the flames on a thread of their own: serving
    /// starts while they are built, and a request for a samples track before they
    /// are done waits for its thread's flame.
    pub fn warm_then_flames(self: &Arc<AppState>) {
        self.index.warm_all_but_flames(&self.trace);
        self.summary();
        let state = self.clone();
        std::thread::spawn(move || state.index.warm_flames(&state.trace));
    }

    fn summary(&self) -> &str {
        self.summary
            .get_or_init(|| encode::summary(&self.trace, &self.index, &self.name))
    }
}

pub(super) type St = State<Arc<AppState>>;

/// Largest pixel width accepted (a few 8K screens side by side).
const MAX_PX: u32 = 20_000;
const MAX_FLOWS: usize = 5000;

pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/api/summary", get(summary))
        .route("/api/track/{id}", get(track))
        .route("/api/slice/{id}", get(slice))
        .route("/api/async/{id}", get(async_slice))
        .route("/api/instant/{id}", get(instant))
        .route("/api/screenshot/{id}", get(screenshot))
        .route("/api/search", get(search::search))
        .route("/api/flows", get(flows))
        .route("/api/range", get(analysis::range))
        .route("/api/range/slices", get(analysis::range_slices))
        .route("/api/profile", get(analysis::profile))
        .route("/api/object/{id}", get(analysis::object))
        .route("/api/query", post(super::query::query))
        .route("/api/version", get(version))
        .fallback(fallback)
        // The fastest gzip level: answers are compressed per request while panning,
        // and level 1 already shrinks these number columns about 3x.
        .layer(CompressionLayer::new().quality(CompressionLevel::Fastest))
        .with_state(state)
}

/// A trace that is not followed: always version 1 (`view --follow` answers
/// `/api/version` itself, in `live`).
async fn version() -> Response {
    ok(json::Obj::new()
        .num("version", 1)
        .bool("follow", false)
        .finish())
}

/// A JSON error response.
pub fn error(status: StatusCode, msg: &str) -> Response {
    let body = json::Obj::new().str("error", msg).finish();
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

fn ok(body: String) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// A failed request: its status and message.
pub struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        error(self.0, &self.1)
    }
}

pub(super) type Answer = Result<String, ApiError>;

pub(super) fn bad(msg: impl Into<String>) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, msg.into())
}

pub(super) fn not_found(msg: impl Into<String>) -> ApiError {
    ApiError(StatusCode::NOT_FOUND, msg.into())
}

/// Runs a query on the blocking pool; a panic there becomes a 500, never a crash.
pub(super) async fn run(
    state: Arc<AppState>,
    f: impl FnOnce(&AppState) -> Answer + Send + 'static,
) -> Response {
    match tokio::task::spawn_blocking(move || f(&state)).await {
        Ok(Ok(body)) => ok(body),
        Ok(Err(e)) => e.into_response(),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal error"),
    }
}

/// Query string parameters, decoded; a repeated name is an error.
pub(crate) struct Params(Vec<(String, String)>);

fn decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

impl Params {
    pub(crate) fn parse(q: Option<String>) -> Result<Params, ApiError> {
        let mut v: Vec<(String, String)> = Vec::new();
        for part in q
            .as_deref()
            .unwrap_or("")
            .split('&')
            .filter(|p| !p.is_empty())
        {
            let (k, val) = part.split_once('=').unwrap_or((part, ""));
            let (Some(k), Some(val)) = (decode(k), decode(val)) else {
                return Err(bad("malformed query string"));
            };
            if v.iter().any(|(e, _)| *e == k) {
                return Err(bad(format!("parameter {k} given twice")));
            }
            v.push((k, val));
        }
        Ok(Params(v))
    }

    pub(crate) fn get(&self, k: &str) -> Option<&str> {
        self.0.iter().find(|(e, _)| e == k).map(|(_, v)| v.as_str())
    }

    pub(super) fn need(&self, k: &str) -> Result<&str, ApiError> {
        self.get(k)
            .ok_or_else(|| bad(format!("missing parameter {k}")))
    }

    /// A time in ns: an integer, or a decimal number rounded down.
    pub(super) fn time(&self, k: &str) -> Result<i64, ApiError> {
        let v = self.need(k)?;
        if let Ok(i) = v.parse::<i64>() {
            return Ok(i);
        }
        match v.parse::<f64>() {
            Ok(f) if f.is_finite() && f.abs() < 9.2e18 && !v.contains(['i', 'n', 'N', 'I']) => {
                Ok(f.floor() as i64)
            }
            _ => Err(bad(format!("{k} must be a number of nanoseconds"))),
        }
    }

    pub(super) fn count(
        &self,
        k: &str,
        min: usize,
        max: usize,
        default: Option<usize>,
    ) -> Result<usize, ApiError> {
        let v = match (self.get(k), default) {
            (None, Some(d)) => return Ok(d),
            (None, None) => return Err(bad(format!("missing parameter {k}"))),
            (Some(v), _) => v,
        };
        match v.parse::<usize>() {
            Ok(n) if (min..=max).contains(&n) && v.bytes().all(|b| b.is_ascii_digit()) => Ok(n),
            _ => Err(bad(format!("{k} must be an integer from {min} to {max}"))),
        }
    }

    pub(super) fn window(&self) -> Result<(i64, i64), ApiError> {
        let (t0, t1) = (self.time("t0")?, self.time("t1")?);
        if t0 >= t1 {
            return Err(bad("t0 must be less than t1"));
        }
        Ok((t0, t1))
    }
}

/// An item id: plain decimal digits.
pub(super) fn parse_id(s: &str) -> Result<u32, ApiError> {
    if s.is_empty() || s.len() > 10 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad("id must be a non-negative integer"));
    }
    // u32::MAX is no row (ids are row index + 1 in a u32).
    s.parse()
        .ok()
        .filter(|&n| n < u32::MAX)
        .ok_or_else(|| not_found("no such id"))
}

async fn summary(State(s): St) -> Response {
    run(s, |s| Ok(s.summary().to_string())).await
}

async fn track(
    State(s): St,
    id: Result<Path<String>, axum::extract::rejection::PathRejection>,
    RawQuery(q): RawQuery,
) -> Response {
    let Ok(Path(id)) = id else {
        return bad("bad track id").into_response();
    };
    run(s, move |s| {
        let r = TrackRef::parse(&id).ok_or_else(|| bad("bad track id"))?;
        let p = Params::parse(q)?;
        let (t0, t1) = p.window()?;
        let px = p.count("px", 1, MAX_PX as usize, None)? as u32;
        let g = Grid::new(t0, t1, px).ok_or_else(|| bad("empty window"))?;
        match track_window(&s.trace, &s.index, r, g) {
            None => Err(not_found("no such track")),
            Some(Window::Items(it)) => Ok(encode::items(&s.trace, &it)),
            Some(Window::Counter(c)) => Ok(encode::counter(&c)),
        }
    })
    .await
}

/// The `{id}` of a path, or why it is not one.
type IdPath = Result<Path<String>, axum::extract::rejection::PathRejection>;

/// Runs `f` with the id of an item's path (a 400 when it is not an id).
async fn with_id(
    s: Arc<AppState>,
    id: IdPath,
    f: impl FnOnce(&AppState, u32) -> Answer + Send + 'static,
) -> Response {
    let Ok(Path(id)) = id else {
        return bad("bad id").into_response();
    };
    run(s, move |s| f(s, parse_id(&id)?)).await
}

async fn slice(State(s): St, id: IdPath) -> Response {
    with_id(s, id, |s, id| {
        let d = slice_details(&s.trace, &s.index, id).ok_or_else(|| not_found("no such slice"))?;
        Ok(encode::details(&s.trace, &d))
    })
    .await
}

async fn async_slice(State(s): St, id: IdPath) -> Response {
    with_id(s, id, |s, id| {
        let d = async_details(&s.trace, &s.index, id)
            .ok_or_else(|| not_found("no such async slice"))?;
        Ok(encode::details(&s.trace, &d))
    })
    .await
}

async fn instant(State(s): St, id: IdPath) -> Response {
    with_id(s, id, |s, id| {
        let d = instant_details(&s.trace, id).ok_or_else(|| not_found("no such instant"))?;
        Ok(encode::instant(&s.trace, &d))
    })
    .await
}

/// A screenshot's image: the bytes its `args.snapshot` holds in base64.
async fn screenshot(State(s): St, id: IdPath) -> Response {
    let Ok(Path(id)) = id else {
        return bad("bad id").into_response();
    };
    let answer = tokio::task::spawn_blocking(move || {
        let id = parse_id(&id)?;
        screenshot_image(&s.trace, id).map_err(|e| match e {
            ImageError::NotAScreenshot => not_found(format!("snapshot {id} is not a screenshot")),
            ImageError::Unreadable(why) => {
                not_found(format!("screenshot {id} has no image: {why}"))
            }
        })
    })
    .await;
    match answer {
        Ok(Ok((ty, bytes))) => (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static(ty)),
                // The trace never changes while it is served.
                (
                    header::CACHE_CONTROL,
                    HeaderValue::from_static("private, max-age=86400"),
                ),
            ],
            bytes,
        )
            .into_response(),
        Ok(Err(e)) => e.into_response(),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal error"),
    }
}

async fn flows(State(s): St, RawQuery(q): RawQuery) -> Response {
    run(s, move |s| {
        let p = Params::parse(q)?;
        let (t0, t1) = p.window()?;
        let fi = s.index.flows_index(&s.trace);
        let (rows, more) = flows_in_window(&s.trace, fi, t0, t1, MAX_FLOWS);
        Ok(encode::flows(&s.trace, &rows, more))
    })
    .await
}

/// Unknown API paths are JSON 404s; anything else is a file of the embedded page.
async fn fallback(uri: Uri) -> Response {
    let path = uri.path();
    if path == "/api" || path.starts_with("/api/") {
        return not_found("no such endpoint").into_response();
    }
    assets::serve(path)
}
