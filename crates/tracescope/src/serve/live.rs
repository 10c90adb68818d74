//! `tracescope view --follow FILE`: the served model follows a growing file.
//!
//! A thread polls the file every [`POLL`]; when complete events were appended (or
//! the file was rewritten), it builds the next version's state (model and indexes)
//! aside and swaps it in with its router. Each request is handed to the router
//! current when it arrives, so a request in flight finishes on the version it
//! started with. `GET /api/version` says which version is served; with
//! `?after=N` it answers as soon as a version after N is served (or after
//! [`WAIT`]), so the page learns of a new version the moment it is swapped in.

use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use axum::extract::{RawQuery, Request, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tokio::sync::watch;
use tower::ServiceExt;
use tracescope_model::{Change, Follow, LoadOptions};

use super::json::Obj;
use super::routes::Params;
use super::{ready, router, AppState};

/// How often the file is looked at (a `stat`: cheap).
pub const POLL: Duration = Duration::from_millis(100);

/// The longest `/api/version?after=N` waits for a version after N.
pub const WAIT: Duration = Duration::from_secs(20);

/// The followed file and the version served.
pub struct Live {
    name: String,
    follow: Mutex<Follow>,
    current: RwLock<Version>,
    /// The number of the version served, for the requests waiting for the next.
    served: watch::Sender<u64>,
}

/// One version of the model, with what `/api/version` says of it.
#[derive(Clone)]
struct Version {
    number: u64,
    /// The state behind `router` (the tests look at it).
    #[cfg(test)]
    state: Arc<AppState>,
    router: Router,
    /// Unix time of the swap, in milliseconds.
    updated_ms: u64,
    events: u64,
    bytes: u64,
    /// Bytes read from the file for this version, and the time to build it.
    read: u64,
    build_ms: f64,
}

impl Live {
    /// Reads `path` as it is now and serves it as version 1.
    pub fn open(path: &Path, name: String) -> Result<Arc<Live>> {
        keep_freed_memory();
        let opts = LoadOptions {
            source_name: name.clone(),
            ..LoadOptions::default()
        };
        let t0 = Instant::now();
        let mut follow = Follow::open(path, name.clone(), opts)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let read = follow.last_read;
        let version = Self::version(1, &mut follow, &name, t0, read);
        Ok(Arc::new(Live {
            name,
            follow: Mutex::new(follow),
            current: RwLock::new(version),
            served: watch::Sender::new(1),
        }))
    }

    fn version(number: u64, follow: &mut Follow, name: &str, t0: Instant, read: u64) -> Version {
        // The first version reports its indexes as `view` does; later ones in one line.
        let state = if number == 1 {
            ready(follow.trace(), name.to_string())
        } else {
            let state = Arc::new(AppState::new(follow.trace(), name.to_string()));
            state.warm();
            state
        };
        Version {
            number,
            router: router(state.clone()),
            #[cfg(test)]
            state,
            updated_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            events: follow.events(),
            bytes: follow.bytes(),
            read,
            build_ms: t0.elapsed().as_secs_f64() * 1e3,
        }
    }

    /// Looks at the file once; true when a new version is served.
    pub fn poll(&self) -> Result<bool> {
        let t0 = Instant::now();
        let mut follow = self.follow.lock().unwrap_or_else(|e| e.into_inner());
        let change = follow.poll()?;
        if change == Change::None {
            return Ok(false);
        }
        let number = self.current().number + 1;
        let read = follow.last_read;
        let next = Self::version(number, &mut follow, &self.name, t0, read);
        eprintln!(
            "tracescope: {} {} bytes: version {number}, {} events, ready in {:.0} ms",
            if change == Change::Reloaded {
                "file rewritten, read"
            } else {
                "read the appended"
            },
            next.read,
            next.events,
            next.build_ms
        );
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = next;
        self.served.send_replace(number);
        Ok(true)
    }

    fn current(&self) -> Version {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The state served now.
    #[cfg(test)]
    pub fn state(&self) -> Arc<AppState> {
        self.current().state
    }

    /// Builds a version from what was read, aside, and drops it. The first
    /// version after the one read at open costs twice the later ones (its
    /// memory is fresh, the carried state is set up); rehearsed while the user
    /// looks at version 1, the first append is shown as fast as the next ones.
    fn rehearse(&self) {
        let mut follow = self.follow.lock().unwrap_or_else(|e| e.into_inner());
        let state = AppState::new(follow.trace(), self.name.clone());
        state.warm();
    }

    /// Polls the file every [`POLL`] on a thread of its own, for the life of the
    /// process (after a rehearsal); a failed read is reported and tried again.
    pub fn spawn_poller(self: &Arc<Live>) {
        let live = self.clone();
        std::thread::spawn(move || {
            live.rehearse();
            loop {
                std::thread::sleep(POLL);
                if let Err(e) = live.poll() {
                    eprintln!("tracescope: following {}: {e:#}", live.name);
                }
            }
        });
    }
}

/// Each version builds its tables in fresh memory, about a model's worth. glibc
/// returns big blocks to the kernel when they are freed, and every page of the
/// next version's is then faulted in and zeroed again: at 1 GB that was a third
/// of an append's CPU time. Kept in the heap, the memory freed by version N-2
/// serves version N (the process keeps its peak size while it follows).
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before the poller
    // thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_MAX, 0);
        libc::mallopt(libc::M_TRIM_THRESHOLD, libc::c_int::MAX);
    }
}

/// The router of a followed file: `/api/version`, and every other request to the
/// current version's router.
pub fn live_router(live: Arc<Live>) -> Router {
    Router::new()
        .route("/api/version", get(version))
        .fallback(forward)
        .with_state(live)
}

async fn version(State(live): State<Arc<Live>>, RawQuery(q): RawQuery) -> Response {
    let after = Params::parse(q)
        .ok()
        .and_then(|p| p.get("after").and_then(|a| a.parse::<u64>().ok()));
    if let Some(after) = after {
        let mut served = live.served.subscribe();
        // Timed out or not, the answer is the version served now.
        let _ = tokio::time::timeout(WAIT, served.wait_for(|&n| n > after)).await;
    }
    let v = live.current();
    let body = Obj::new()
        .num("version", v.number)
        .bool("follow", true)
        .num("updated", v.updated_ms)
        .num("events", v.events)
        .num("bytes", v.bytes)
        .num("read_bytes", v.read)
        .float("build_ms", (v.build_ms * 10.0).round() / 10.0)
        .finish();
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body,
    )
        .into_response()
}

async fn forward(State(live): State<Arc<Live>>, req: Request) -> Response {
    let router = live.current().router;
    match router.oneshot(req).await {
        Ok(r) => r,
        Err(never) => match never {},
    }
}
