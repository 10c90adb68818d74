//! `POST /api/query`: SQL over the served trace (see `tracescope-sql`), under a
//! time limit: past it SQLite is interrupted and the answer says so.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use tracescope_model::Trace;
use tracescope_sql::{Cell, Database, Loaded, Output};

use super::json::{self, Obj};
use super::routes::{AppState, Params};

/// Rows returned at most (the count goes on past it).
const DEFAULT_ROWS: usize = 1000;
const MAX_ROWS: usize = 100_000;
/// The time limit, and the longest a request may ask for.
const DEFAULT_TIMEOUT_MS: usize = 10_000;
const MAX_TIMEOUT_MS: usize = 60_000;
/// Longest query text accepted.
const MAX_SQL: usize = 1 << 20;

impl AsRef<Trace> for AppState {
    fn as_ref(&self) -> &Trace {
        &self.trace
    }
}

fn reply(status: StatusCode, body: String) -> Response {
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

fn bad(msg: &str) -> Response {
    reply(
        StatusCode::BAD_REQUEST,
        Obj::new().str("error", msg).finish(),
    )
}

pub async fn query(State(s): State<Arc<AppState>>, RawQuery(q): RawQuery, sql: String) -> Response {
    let p = match Params::parse(q) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let limits = p
        .count("limit", 0, MAX_ROWS, Some(DEFAULT_ROWS))
        .and_then(|l| {
            Ok((
                l,
                p.count("timeout_ms", 1, MAX_TIMEOUT_MS, Some(DEFAULT_TIMEOUT_MS))?,
            ))
        });
    let (limit, timeout) = match limits {
        Ok(v) => v,
        Err(e) => return e.into_response(),
    };
    if sql.trim().is_empty() {
        return bad("the request body must hold the SQL query");
    }
    if sql.len() > MAX_SQL {
        return bad("the query is longer than 1 MB");
    }
    let answer = tokio::task::spawn_blocking(move || {
        run(s, &sql, limit, Duration::from_millis(timeout as u64))
    })
    .await;
    match answer {
        Ok((status, body)) => reply(status, body),
        Err(_) => reply(
            StatusCode::INTERNAL_SERVER_ERROR,
            Obj::new().str("error", "internal error").finish(),
        ),
    }
}

/// Runs the query; interrupts it from a watchdog thread when the limit passes.
fn run(s: Arc<AppState>, sql: &str, limit: usize, timeout: Duration) -> (StatusCode, String) {
    let t0 = Instant::now();
    let name = s.name.clone();
    let db = match Database::open(vec![Loaded::new(name, s)]) {
        Ok(db) => db,
        Err(e) => {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                Obj::new().str("error", &e.message).finish(),
            )
        }
    };
    let handle = db.interrupt_handle();
    let (done, wait) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(timeout) {
            handle.interrupt();
        }
    });
    let mut columns: Vec<String> = Vec::new();
    let mut rows: Vec<String> = Vec::new();
    let mut count = 0usize;
    let result = db.run(sql, |o| {
        match o {
            Output::Columns(c) => {
                columns = c.to_vec();
                rows.clear();
                count = 0;
            }
            Output::Row(r) => {
                count += 1;
                if rows.len() < limit {
                    rows.push(row_json(r));
                }
            }
        }
        true
    });
    let _ = done.send(());
    let _ = watchdog.join();
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    match result {
        Ok(()) => (
            StatusCode::OK,
            Obj::new()
                .strs("columns", columns.iter().map(String::as_str))
                .raws("rows", rows)
                .num("row_count", count)
                .bool("truncated", count > limit)
                .float("ms", (ms * 10.0).round() / 10.0)
                .finish(),
        ),
        Err(e) if e.interrupted => (
            StatusCode::REQUEST_TIMEOUT,
            Obj::new()
                .str(
                    "error",
                    &format!(
                        "the query ran longer than {} ms and was interrupted",
                        timeout.as_millis()
                    ),
                )
                .finish(),
        ),
        Err(e) => {
            let mut o = Obj::new();
            o.str("error", &e.message).opt_num("offset", e.offset);
            if let Some(off) = e.offset {
                let before = sql.get(..off).unwrap_or(sql);
                let line = before.matches('\n').count() + 1;
                let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                o.num("line", line).num("column", col);
            }
            (StatusCode::BAD_REQUEST, o.finish())
        }
    }
}

fn row_json(r: &[Cell]) -> String {
    let mut s = String::from("[");
    for (k, c) in r.iter().enumerate() {
        if k > 0 {
            s.push(',');
        }
        match c {
            Cell::Null => s.push_str("null"),
            Cell::Int(i) => s.push_str(&i.to_string()),
            Cell::Real(f) => json::float(&mut s, *f),
            Cell::Text(t) => json::string(&mut s, t),
            Cell::Blob(b) => json::string(
                &mut s,
                &b.iter().map(|x| format!("{x:02x}")).collect::<String>(),
            ),
        }
    }
    s.push(']');
    s
}
