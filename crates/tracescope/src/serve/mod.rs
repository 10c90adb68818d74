//! `tracescope view`'s HTTP server: the API of `docs/api.md` over one loaded trace,
//! and the embedded web page. Binds 127.0.0.1 unless told otherwise, and answers
//! only its user ([`guard`]).

mod analysis;
pub(crate) mod assets;
mod encode;
mod exact;
pub mod guard;
mod json;
pub mod live;
mod query;
pub mod routes;
mod search;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use axum::serve::ListenerExt;
use tracescope_model::Trace;

pub use guard::Guard;
pub use routes::{router, AppState};

/// Queries answered at once; more wait their turn.
const QUERY_THREADS: usize = 32;

/// How to serve.
pub struct Options {
    pub bind: IpAddr,
    pub port: u16,
    pub open: bool,
    /// Whether requests need the token (see [`Options::token_needed`]).
    pub token: bool,
}

impl Options {
    /// The token is needed off loopback unless `--no-token`, and on loopback with
    /// `--token`.
    pub fn token_needed(bind: IpAddr, token: bool, no_token: bool) -> bool {
        if bind.is_loopback() {
            token
        } else {
            !no_token
        }
    }
}

/// The router behind its guard: what `tracescope view` serves.
#[cfg(test)]
pub fn app(state: Arc<AppState>, guard: Guard) -> axum::Router {
    guard.wrap(router(state))
}

/// Serves `trace` until Ctrl-C.
pub fn run(trace: Trace, name: String, opts: Options) -> Result<()> {
    let state = ready(trace, name);
    serve(router(state), opts)
}

/// A trace's state with the indexes of the first paint built (the CPU sample
/// flames follow in the background), reported on standard error.
pub fn ready(trace: Trace, name: String) -> Arc<AppState> {
    let t0 = Instant::now();
    let rss0 = rss_mb();
    let state = Arc::new(AppState::new(trace, name));
    state.warm_then_flames();
    let mb = state.index.heap_bytes() as f64 / (1 << 20) as f64;
    let rss = match (rss0, rss_mb()) {
        (Some(a), Some(b)) => format!(", process RSS {a:.0} -> {b:.0} MB"),
        _ => String::new(),
    };
    eprintln!(
        "tracescope: indexes ready in {:.0} ms ({mb:.1} MB{rss})",
        t0.elapsed().as_secs_f64() * 1e3
    );
    state
}

/// Serves `app` (behind its guard) until Ctrl-C.
pub fn serve(app_router: axum::Router, opts: Options) -> Result<()> {
    let token = if opts.token {
        Some(Guard::new_token().context("cannot make a random token")?)
    } else {
        None
    };
    if !opts.bind.is_loopback() {
        eprintln!(
            "tracescope: warning: listening on {}: anyone who can reach this machine {}",
            opts.bind,
            if token.is_some() {
                "and has the token in the URL below can read the trace (from another machine, \
                 open it with this machine's address in place of 127.0.0.1)"
            } else {
                "can read the trace (--no-token)"
            }
        );
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        // Queries run on the blocking pool: at most this many at once (tokio's
        // default is 512), so a crowd of clients queues instead of each holding a
        // thread and a query's working memory. Not fewer: queries share the cores
        // fairly, and a short tile request does not wait behind a whole-trace
        // range (with 4, the 16-client load test's median tile went from 6 to 40 ms).
        .max_blocking_threads(QUERY_THREADS)
        .enable_all()
        .build()
        .context("cannot start the server runtime")?;
    rt.block_on(async move {
        let addr = SocketAddr::new(opts.bind, opts.port);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        let local = listener.local_addr()?;
        // Without TCP_NODELAY the last small chunk of a gzipped answer waits for the
        // client's delayed ACK: 40 ms on a request that took 5.
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let host = match local.ip() {
            ip if ip.is_unspecified() => "127.0.0.1".to_string(),
            IpAddr::V6(ip) => format!("[{ip}]"),
            ip => ip.to_string(),
        };
        let guard = Guard::new(local.ip(), local.port(), token.clone());
        let url = match &token {
            Some(t) => format!("http://{host}:{}/?token={t}", local.port()),
            None => format!("http://{host}:{}/", local.port()),
        };
        println!("tracescope: serving at {url} (Ctrl-C to stop)");
        if opts.open {
            open_browser(&url);
        }
        axum::serve(listener, guard.wrap(app_router))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
                eprintln!("tracescope: stopping");
            })
            .await
            .context("server error")
    })
}

/// Resident memory of this process (Linux), for the startup report.
fn rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Starts the desktop's browser on `url`; failing to is not an error (the URL is printed).
fn open_browser(url: &str) {
    let cmd: &[&str] = if cfg!(target_os = "macos") {
        &["open"]
    } else if cfg!(windows) {
        &["cmd", "/C", "start", ""]
    } else {
        &["xdg-open"]
    };
    let spawned = std::process::Command::new(cmd[0])
        .args(&cmd[1..])
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if spawned.is_err() {
        eprintln!("tracescope: could not open a browser; open {url}");
    }
}

#[cfg(test)]
mod analysis_tests;
#[cfg(test)]
mod live_tests;
#[cfg(test)]
mod params_fuzz_tests;
#[cfg(test)]
mod query_tests;
#[cfg(test)]
mod search_tests;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod timeline_tests;
