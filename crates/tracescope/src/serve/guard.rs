//! Who the server answers: only its user (issue 13).
//!
//! One layer in front of the whole router (every route, the page, its assets and
//! any route added later), checking in order:
//!
//! 1. **Host** (DNS rebinding): a page on `attacker.example` that rebinds its name to
//!    127.0.0.1 sends `Host: attacker.example:PORT`. Only the server's own addresses
//!    are answered: `127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT` and the `--bind`
//!    address; bound to every address (`0.0.0.0`, `::`), any IP literal with the
//!    port (a name can be rebound, an address cannot). Others get 403.
//! 2. **Origin**, on requests that change state (any method but GET/HEAD) and on the
//!    paths of [`ORIGIN_CHECKED`]: a browser sends `Origin` on those, and a page of
//!    another site must not drive them. An `Origin` that is not one of the allowed
//!    hosts over http gets 403; no `Origin` (curl, scripts) passes.
//! 3. **Token**, when bound off loopback (unless `--no-token`): a random token, in
//!    the printed URL as `?token=`. A page request with it gets a cookie and a
//!    redirect to the clean URL (as Jupyter does); then the cookie, or an
//!    `Authorization: Bearer TOKEN` header, or `?token=` on an API request, lets
//!    requests through. Others get 401.
//!
//! No response carries `Access-Control-Allow-Origin`: other origins never read.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;

/// Paths whose GET requests also check `Origin`: they run a query the request
/// writes (SQL), so a page of another site must not be able to send one.
pub const ORIGIN_CHECKED: &[&str] = &["/api/query"];

/// The checks of one server.
#[derive(Clone, Debug)]
pub struct Guard {
    port: u16,
    /// `host:port` forms answered (lowercase).
    hosts: Vec<String>,
    /// Bound to every address: any IP literal with the port is answered too.
    any_address: bool,
    token: Option<String>,
}

impl Guard {
    /// The guard of a server bound to `bind:port`; `token` is required when given.
    pub fn new(bind: IpAddr, port: u16, token: Option<String>) -> Guard {
        let mut hosts: Vec<String> = ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .map(|h| format!("{h}:{port}"))
            .collect();
        if !bind.is_unspecified() {
            let own = host_form(bind, port);
            if !hosts.contains(&own) {
                hosts.push(own);
            }
        }
        Guard {
            port,
            hosts,
            any_address: bind.is_unspecified(),
            token,
        }
    }

    /// A fresh random token (128 bits from the system's generator, hex).
    pub fn new_token() -> std::io::Result<String> {
        use std::io::Read;
        let mut b = [0u8; 16];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut b)?;
        Ok(b.iter().map(|x| format!("{x:02x}")).collect())
    }

    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// `router` behind this guard.
    pub fn wrap(self, router: Router) -> Router {
        router.layer(axum::middleware::from_fn_with_state(Arc::new(self), check))
    }

    /// The cookie that carries the token; per port, as browsers share cookies
    /// between the ports of one host.
    fn cookie_name(&self) -> String {
        format!("tracescope-token-{}", self.port)
    }

    fn host_allowed(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        if self.hosts.contains(&host) {
            return true;
        }
        self.any_address
            && split_port(&host).is_some_and(|(h, p)| {
                p == self.port
                    && h.trim_start_matches('[')
                        .trim_end_matches(']')
                        .parse::<IpAddr>()
                        .is_ok()
                    && (h.starts_with('[') == h.contains(':'))
            })
    }

    fn origin_allowed(&self, origin: &str) -> bool {
        origin
            .strip_prefix("http://")
            .is_some_and(|h| !h.contains('/') && self.host_allowed(h))
    }

    /// Whether the request carries the token (cookie or Authorization header).
    fn has_token(&self, headers: &HeaderMap, token: &str) -> bool {
        let name = self.cookie_name();
        let by_cookie = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|c| c.trim().split_once('='))
            .any(|(k, v)| k == name && same(v, token));
        let by_header = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                v.strip_prefix("Bearer ")
                    .or_else(|| v.strip_prefix("token "))
            })
            .is_some_and(|v| same(v.trim(), token));
        by_cookie || by_header
    }
}

/// `ip:port` as a Host header writes it (IPv6 in brackets).
fn host_form(ip: IpAddr, port: u16) -> String {
    match ip {
        IpAddr::V4(a) => format!("{a}:{port}"),
        IpAddr::V6(a) => format!("[{a}]:{port}"),
    }
}

/// `host:port` split at the port; none without one.
fn split_port(host: &str) -> Option<(&str, u16)> {
    let (h, p) = host.rsplit_once(':')?;
    if h.contains(':') && !h.ends_with(']') {
        return None; // a bare IPv6 address
    }
    Some((h, p.parse().ok()?))
}

/// Compares in time independent of where the strings differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

fn refuse(status: StatusCode, msg: String) -> Response {
    let mut r = (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        )],
        msg + "\n",
    )
        .into_response();
    if status == StatusCode::UNAUTHORIZED {
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"tracescope\""),
        );
    }
    r
}

/// The query string without its `token` parameter (`None` if it had none).
fn without_token(query: &str) -> (Option<&str>, String) {
    let mut token = None;
    let rest: Vec<&str> = query
        .split('&')
        .filter(|p| match p.strip_prefix("token=") {
            Some(t) => {
                token = Some(t);
                false
            }
            None => true,
        })
        .collect();
    (token, rest.join("&"))
}

fn with_query(path: &str, query: &str) -> String {
    if query.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{query}")
    }
}

async fn check(State(g): State<Arc<Guard>>, mut req: Request, next: Next) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let authority = req.uri().authority().map(|a| a.as_str());
    if !g.host_allowed(host) || authority.is_some_and(|a| !g.host_allowed(a)) {
        return refuse(
            StatusCode::FORBIDDEN,
            format!(
                "403 Forbidden: this tracescope server answers only requests addressed to it \
                 (http://{}/), not Host {host:?}; open the address tracescope printed",
                g.hosts[0]
            ),
        );
    }
    let path = req.uri().path().to_string();
    let state_changing = !matches!(*req.method(), Method::GET | Method::HEAD);
    if state_changing || ORIGIN_CHECKED.contains(&path.as_str()) {
        if let Some(origin) = req.headers().get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            if !g.origin_allowed(origin) {
                return refuse(
                    StatusCode::FORBIDDEN,
                    format!(
                        "403 Forbidden: a page of another site ({origin}) cannot send this request"
                    ),
                );
            }
        }
    }
    let Some(token) = g.token() else {
        return next.run(req).await;
    };
    if g.has_token(req.headers(), token) {
        return next.run(req).await;
    }
    let query = req.uri().query().unwrap_or("").to_string();
    let (given, rest) = without_token(&query);
    if given.is_some_and(|t| same(t, token)) {
        if *req.method() == Method::GET && !path.starts_with("/api/") && path != "/api" {
            // The page: the token becomes a cookie, and the address bar loses it.
            let cookie = format!(
                "{}={token}; Path=/; HttpOnly; SameSite=Lax",
                g.cookie_name()
            );
            let mut r = (
                StatusCode::SEE_OTHER,
                [(header::LOCATION, with_query(&path, &rest))],
            )
                .into_response();
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                r.headers_mut().insert(header::SET_COOKIE, v);
            }
            return r;
        }
        // An API request with the token: answered, the token not passed on.
        if let Ok(uri) = with_query(&path, &rest).parse::<Uri>() {
            *req.uri_mut() = uri;
        }
        return next.run(req).await;
    }
    refuse(
        StatusCode::UNAUTHORIZED,
        "401 Unauthorized: this tracescope server needs its token; open the URL it printed \
         (http://HOST:PORT/?token=...)"
            .into(),
    )
}

#[cfg(test)]
#[path = "guard_tests.rs"]
mod tests;
