//! The compare view's server (`diff --view`, `view --compare`): each run of each
//! side served with the single-trace API under `/runs/base/N` and `/runs/new/N`
//! (the first runs also under `/base` and `/new`), and the comparison under
//! `/api/compare`, `/api/diff` and `/api/diff/flame` (docs/api.md, "Compare view").
//! The page is `compare.html`, served at `/`.

use std::sync::{Arc, Mutex};

use anyhow::Result;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use rustc_hash::FxHashMap;
use serde_json::{json, Value};
use tower_http::compression::{CompressionLayer, CompressionLevel};
use tracescope_model::analysis::matching::thread_keys;
use tracescope_model::Trace;

use super::compare::{compare, Diff};
use super::flame::{diff_flame, FlameTree};
use super::metric::Metric;
use super::run::{By, Run};
use crate::serve::routes::Params;
use crate::serve::{self, AppState};

/// One side: every run served whole (the first with its indexes built at once,
/// the others when the page first shows them) and regrouped for the comparison.
pub struct Side {
    pub runs: Vec<Arc<AppState>>,
    pub files: Vec<String>,
}

impl Side {
    pub fn new(traces: Vec<Trace>, files: Vec<String>) -> Side {
        assert!(!traces.is_empty(), "a side has a run");
        let runs = traces
            .into_iter()
            .enumerate()
            .map(|(i, t)| {
                let name = files.get(i).cloned().unwrap_or_default();
                if i == 0 {
                    serve::ready(t, name)
                } else {
                    Arc::new(AppState::new(t, name))
                }
            })
            .collect();
        Side { runs, files }
    }

    fn first(&self) -> &AppState {
        &self.runs[0]
    }

    fn traces(&self) -> impl Iterator<Item = &Trace> {
        self.runs.iter().map(|r| &r.trace)
    }

    fn runs(&self, by: By) -> Vec<Run> {
        self.traces()
            .zip(&self.files)
            .map(|(t, f)| Run::of(t, by, f.clone()))
            .collect()
    }

    fn info(&self) -> Value {
        let t = &self.first().trace;
        json!({
            "files": self.files, "name": self.first().name,
            "start_ns": t.info.start_ns, "end_ns": t.info.end_ns,
        })
    }
}

/// A diff answer: its grouping, its sort, and the run of each side its
/// `base_key` and `new_key` are for (0-based).
type DiffKey = (&'static str, &'static str, usize, usize);

/// Both sides and the answers computed so far (each grouping once).
pub struct CompareState {
    pub base: Side,
    pub new: Side,
    /// The grouping the command line asked for (the page opens on it).
    pub by: By,
    diffs: Mutex<FxHashMap<DiffKey, Arc<String>>>,
    flames: Mutex<Option<Arc<String>>>,
}

impl CompareState {
    pub fn new(base: Side, new: Side, by: By) -> CompareState {
        CompareState {
            base,
            new,
            by,
            diffs: Mutex::default(),
            flames: Mutex::default(),
        }
    }

    /// The comparison of every run grouped `by`.
    pub fn diff_of(&self, by: By, sort: Metric) -> Diff {
        compare(&self.base.runs(by), &self.new.runs(by), by, sort)
    }

    fn diff(&self, by: By, sort: Metric, runs: (usize, usize)) -> Arc<String> {
        let key = (by.as_str(), sort.name(), runs.0, runs.1);
        if let Some(d) = self
            .diffs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return d.clone();
        }
        let d = self.diff_of(by, sort);
        let text = Arc::new(self.encode(&d, runs).to_string());
        self.diffs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, text.clone());
        text
    }

    /// The CLI's JSON with every group, each with the key to ask each side's
    /// `/api/range/slices` of run `runs.0` (base) and `runs.1` (new) for its
    /// slices (by thread: the thread's id in that run).
    fn encode(&self, d: &Diff, runs: (usize, usize)) -> Value {
        let mut v = super::json::diff(d, &[], 0);
        let native = |side: &Side, run: usize| -> FxHashMap<String, String> {
            if d.by != By::Thread {
                return FxHashMap::default();
            }
            thread_keys(&side.runs[run].trace)
                .into_iter()
                .enumerate()
                .map(|(i, k)| (k, i.to_string()))
                .collect()
        };
        let (nb, nn) = (native(&self.base, runs.0), native(&self.new, runs.1));
        if let Some(groups) = v["groups"].as_array_mut() {
            for (g, gd) in groups.iter_mut().zip(&d.groups) {
                let key_in = |m: &FxHashMap<String, String>, present: bool| match d.by {
                    By::Thread => m.get(&gd.key).map_or(Value::Null, |k| json!(k)),
                    _ if present => json!(gd.key),
                    _ => Value::Null,
                };
                let base = gd.base.runs.get(runs.0).is_some_and(Option::is_some);
                let new = gd.new.runs.get(runs.1).is_some_and(Option::is_some);
                g["base_key"] = key_in(&nb, base);
                g["new_key"] = key_in(&nn, new);
            }
        }
        v
    }

    fn flame(&self) -> Arc<String> {
        let mut cached = self.flames.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = cached.as_ref() {
            return f.clone();
        }
        let base: Vec<&Trace> = self.base.traces().collect();
        let new: Vec<&Trace> = self.new.traces().collect();
        let text = Arc::new(encode_flame(&diff_flame(&base, &new)));
        *cached = Some(text.clone());
        text
    }
}

fn encode_flame(f: &FlameTree) -> String {
    json!({
        "source": f.source,
        "base_total_ns": f.base_total.round() as i64, "new_total_ns": f.new_total.round() as i64,
        "nodes": {
            "parent": f.nodes.iter().map(|n| n.parent.map_or(-1, |p| p as i64)).collect::<Vec<_>>(),
            "name": f.nodes.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(),
            "base_total": f.nodes.iter().map(|n| n.base_total.round() as i64).collect::<Vec<_>>(),
            "new_total": f.nodes.iter().map(|n| n.new_total.round() as i64).collect::<Vec<_>>(),
            "base_self": f.nodes.iter().map(|n| n.base_self.round() as i64).collect::<Vec<_>>(),
            "new_self": f.nodes.iter().map(|n| n.new_self.round() as i64).collect::<Vec<_>>(),
        },
    })
    .to_string()
}

type St = State<Arc<CompareState>>;

fn json_answer(body: String) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// Runs `f` on the blocking pool (a regrouping reads every run).
async fn blocking(
    s: Arc<CompareState>,
    f: impl FnOnce(&CompareState) -> Result<String, (StatusCode, String)> + Send + 'static,
) -> Response {
    match tokio::task::spawn_blocking(move || f(&s)).await {
        Ok(Ok(body)) => json_answer(body),
        Ok(Err((status, msg))) => serve::routes::error(status, &msg),
        Err(_) => serve::routes::error(StatusCode::INTERNAL_SERVER_ERROR, "internal error"),
    }
}

async fn compare_info(State(s): St) -> Response {
    let body = json!({
        "by": s.by.as_str(), "base": s.base.info(), "new": s.new.info(),
        "significance": (s.base.files.len() >= 2 && s.new.files.len() >= 2).then_some("welch-holm"),
    });
    json_answer(body.to_string())
}

async fn diff_route(State(s): St, RawQuery(q): RawQuery) -> Response {
    let p = match Params::parse(q) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let by = match p.get("by").map(By::parse) {
        None => s.by,
        Some(Some(b)) => b,
        Some(None) => {
            return serve::routes::error(
                StatusCode::BAD_REQUEST,
                "by must be name, thread, category or function",
            )
        }
    };
    let sort = match p.get("sort").map(Metric::parse) {
        None => Metric::Total,
        Some(Some(m)) => m,
        Some(None) => {
            return serve::routes::error(
                StatusCode::BAD_REQUEST,
                "sort must be count, total, self, mean, p50, p95, p99 or max",
            )
        }
    };
    let runs = match (
        run_of(&p, "base_run", &s.base),
        run_of(&p, "new_run", &s.new),
    ) {
        (Ok(b), Ok(n)) => (b, n),
        (Err(e), _) | (_, Err(e)) => return serve::routes::error(StatusCode::BAD_REQUEST, &e),
    };
    blocking(s, move |s| Ok(s.diff(by, sort, runs).to_string())).await
}

/// The run a `/api/diff` parameter names (1-based, default 1), 0-based.
fn run_of(p: &Params, name: &str, side: &Side) -> Result<usize, String> {
    let Some(v) = p.get(name) else { return Ok(0) };
    match v.parse::<usize>() {
        Ok(n) if (1..=side.runs.len()).contains(&n) => Ok(n - 1),
        _ => Err(format!(
            "{name} must be a run number from 1 to {}",
            side.runs.len()
        )),
    }
}

async fn flame_route(State(s): St) -> Response {
    blocking(s, |s| Ok(s.flame().to_string())).await
}

/// `/` is the compare page; other paths are files of the page.
async fn fallback(uri: Uri) -> Response {
    match uri.path() {
        "/" => serve::assets::serve("/compare.html"),
        p if p == "/api" || p.starts_with("/api/") => {
            serve::routes::error(StatusCode::NOT_FOUND, "no such endpoint")
        }
        p => serve::assets::serve(p),
    }
}

/// The compare view's routes.
pub fn router(state: Arc<CompareState>) -> Router {
    let sides = [
        ("base", state.base.runs.clone()),
        ("new", state.new.runs.clone()),
    ];
    let mut app = Router::new()
        .route("/api/compare", get(compare_info))
        .route("/api/diff", get(diff_route))
        .route("/api/diff/flame", get(flame_route))
        .fallback(fallback)
        .layer(CompressionLayer::new().quality(CompressionLevel::Fastest))
        .with_state(state);
    for (side, runs) in sides {
        app = app.nest(&format!("/{side}"), serve::router(runs[0].clone()));
        for (i, run) in runs.into_iter().enumerate() {
            app = app.nest(&format!("/runs/{side}/{}", i + 1), serve::router(run));
        }
    }
    app
}

/// Serves the comparison until Ctrl-C.
pub fn run(state: CompareState, opts: serve::Options) -> Result<()> {
    serve::serve(router(Arc::new(state)), opts)
}

#[cfg(test)]
#[path = "view_tests.rs"]
mod tests;
