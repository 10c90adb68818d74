//! The web page, embedded from the repository's `web/` folder at build time (read
//! from disk in debug builds). Only files that are in the embedded set are served;
//! a request path is never joined to a file system path here.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use rust_embed::Embed;

#[derive(Embed)]
#[folder = "$CARGO_MANIFEST_DIR/../../web/"]
#[allow_missing = true]
// The page's development files (type checking, unit tests, npm) are not served.
#[exclude = "node_modules/*"]
#[exclude = "test/*"]
#[exclude = "package.json"]
#[exclude = "package-lock.json"]
#[exclude = "tsconfig.json"]
struct Web;

fn mime(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, e)| e) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json" | "map") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("woff2") => "font/woff2",
        Some("txt" | "md") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// A plain name made of safe path segments (no `..`, no empty segment).
fn safe(name: &str) -> bool {
    !name.is_empty()
        && name.split('/').all(|seg| {
            !seg.is_empty()
                && seg != "."
                && seg != ".."
                && seg
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        })
}

/// Serves `path` (`/` is `index.html`) if it is one of the embedded files.
pub fn serve(path: &str) -> Response {
    let name = match path.strip_prefix('/') {
        Some("") => "index.html",
        Some(n) => n,
        None => "",
    };
    let file = if safe(name) && Web::iter().any(|f| f == name) {
        Web::get(name)
    } else {
        None
    };
    match file {
        Some(f) => (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static(mime(name))),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            ],
            f.data.into_owned(),
        )
            .into_response(),
        None if name == "index.html" => super::routes::error(
            StatusCode::NOT_FOUND,
            "this build has no web page: the web/ folder was empty when tracescope was built; the API is under /api/",
        ),
        None => super::routes::error(StatusCode::NOT_FOUND, "no such file"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_are_safe() {
        for ok in ["index.html", "js/app.js", "a-b_c.css"] {
            assert!(safe(ok), "{ok}");
        }
        for bad in [
            "",
            "../x",
            "a/../b",
            "/etc/passwd",
            "a//b",
            "./a",
            "a\\b",
            "%2e%2e/x",
            "a:b",
        ] {
            assert!(!safe(bad), "{bad}");
        }
    }
}
