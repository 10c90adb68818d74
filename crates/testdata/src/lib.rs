//! Where the tests' traces are, for every crate's tests.
//!
//! Two tiers:
//! - **fixtures**: `tests/fixtures/` in this repository, small traces written for the
//!   tests (one rule or feature each, listed in `tests/fixtures/README.md`). Always
//!   present: [`fixture`] panics when one is missing.
//! - **corpus**: real traces from other tools and the format's own examples, kept
//!   outside the repository in a directory named `shared` beside the checkout (or
//!   `$TRACESCOPE_SHARED`). CI always has it. [`corpus`] returns `None` when it is
//!   absent, after printing one line saying which test skipped what and how to get
//!   it; the line is also appended to `$TRACESCOPE_SKIP_LOG` when set, so
//!   `scripts/test` can list every skip at the end.
//!
//! Not a library for users: `publish = false`, a dev-dependency only.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The workspace root (this crate is `crates/testdata`).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `tests/fixtures/` of the repository.
pub fn fixtures() -> PathBuf {
    workspace().join("tests/fixtures")
}

/// The path of one fixture, relative to `tests/fixtures/`; panics when it is missing
/// (fixtures are part of the repository: a missing one is a broken checkout).
pub fn fixture(rel: &str) -> PathBuf {
    let p = fixtures().join(rel);
    assert!(p.exists(), "fixture {} is missing", p.display());
    p
}

/// The text of one fixture.
pub fn fixture_text(rel: &str) -> String {
    let p = fixture(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every JSON-family trace under `tests/fixtures/` (`.json`, `.json.gz`, `.json.zst`,
/// `.cpuprofile`; recursively, sorted), optionally only under one subdirectory. The
/// binary fixtures are listed by [`fixture_ctf_dirs`] and [`fixture_etw_files`].
pub fn fixture_files(under: &str) -> Vec<PathBuf> {
    let mut out = files_under(&fixtures().join(under));
    out.retain(|p| {
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        [".json", ".json.gz", ".json.zst", ".cpuprofile"]
            .iter()
            .any(|x| name.ends_with(x))
    });
    out
}

/// The ETW record files among the fixtures.
pub fn fixture_etw_files() -> Vec<PathBuf> {
    let mut out = files_under(&fixtures().join("binary"));
    out.retain(|p| p.extension().is_some_and(|x| x == "etw"));
    out
}

/// The CTF trace directories among the fixtures (those holding a `metadata` file).
pub fn fixture_ctf_dirs() -> Vec<PathBuf> {
    let files = files_under(&fixtures().join("binary/ctf"));
    let mut dirs: Vec<PathBuf> = files
        .iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "metadata"))
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .collect();
    dirs.sort();
    dirs
}

/// A fixture's path relative to `tests/fixtures/`, for messages and test names.
pub fn fixture_name(p: &Path) -> String {
    p.strip_prefix(fixtures())
        .unwrap_or(p)
        .display()
        .to_string()
}

/// Every file under `dir`, recursively, sorted (none when `dir` is missing).
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The external corpus directory: `$TRACESCOPE_SHARED`, else `shared` beside the
/// checkout, when it exists.
pub fn shared() -> Option<PathBuf> {
    let dir = match std::env::var_os("TRACESCOPE_SHARED") {
        Some(d) => PathBuf::from(d),
        None => workspace().join("../shared"),
    };
    dir.is_dir().then_some(dir)
}

/// `rel` inside the external corpus (`corpus/catapult`, `examples/seed-guide`, ...),
/// or `None` after saying, in one line, that the calling test skipped `what`.
pub fn corpus(rel: &str, what: &str) -> Option<PathBuf> {
    if let Some(p) = shared().map(|s| s.join(rel)).filter(|p| p.exists()) {
        return Some(p);
    }
    let needs = if rel.is_empty() {
        "../shared".to_string()
    } else {
        format!("../shared/{rel}")
    };
    skip(
        &format!("corpus test, needs {needs}"),
        what,
        "put the external corpus beside the checkout as ../shared, or set \
         TRACESCOPE_SHARED (CI has it)",
    );
    None
}

/// Prints (past the test harness's capture, so it shows in `cargo test` output) and
/// logs one line: `SKIPPED <binary>::<test> (<why>): <what> not checked; <how>`.
pub fn skip(why: &str, what: &str, how: &str) {
    let test = std::thread::current()
        .name()
        .filter(|n| *n != "main")
        .unwrap_or("?")
        .to_string();
    let line = format!(
        "SKIPPED {}::{test} ({why}): {what} not checked; {how}",
        test_binary()
    );
    let _ = writeln!(std::io::stderr(), "{line}");
    if let Some(log) = std::env::var_os("TRACESCOPE_SKIP_LOG") {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = writeln!(f, "{line}");
        }
    }
}

/// The running test binary's name without cargo's hash (`cli`, `corpus`, or the
/// crate's own name for unit tests).
fn test_binary() -> String {
    let exe = std::env::current_exe().unwrap_or_default();
    let stem = exe.file_stem().unwrap_or_default().to_string_lossy();
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_string(),
        _ => stem.into_owned(),
    }
}

/// Chrome DevTools' own trace engine with its `parse.mjs` (kept with the external
/// corpus in `shared/peers/devtools`; `scripts/setup` installs it): the directory
/// `$TRACESCOPE_DEVTOOLS`, else `/tmp/devtools`, else `shared/peers/devtools`, the
/// first with `node_modules` and `parse.mjs`. `None` (after saying what is skipped)
/// when there is none or no `node`.
pub fn devtools(what: &str) -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("TRACESCOPE_DEVTOOLS").map(PathBuf::from),
        Some(PathBuf::from("/tmp/devtools")),
        shared().map(|s| s.join("peers/devtools")),
    ];
    let Some(dir) = candidates
        .into_iter()
        .flatten()
        .find(|d| d.join("node_modules").is_dir() && d.join("parse.mjs").is_file())
    else {
        skip(
            "no DevTools trace engine",
            what,
            "run scripts/setup with ../shared beside the checkout, or set TRACESCOPE_DEVTOOLS \
             to a directory with parse.mjs and node_modules",
        );
        return None;
    };
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err()
    {
        skip("node is not installed", what, "scripts/setup installs it");
        return None;
    }
    Some(dir)
}

/// User + system CPU seconds of this process so far (from `/proc/self/stat`; 0 where
/// it cannot be read), for the timing examples, whose wall times mean little on a
/// shared machine.
pub fn process_cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name, which is in parentheses and may hold spaces.
    let f: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime, in clock ticks of 1/100 s.
    (ticks(11) + ticks(12)) / 100.0
}

/// Runs `cmd` with its standard output a pipe whose reader is gone from the start
/// (`cmd | head -0`), capturing standard error.
pub fn output_with_stdout_closed(cmd: &mut std::process::Command) -> std::process::Output {
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts the command");
    drop(child.stdout.take());
    child.wait_with_output().expect("waits for the command")
}

/// Whether a command whose standard output was closed ended quietly: by SIGPIPE
/// (as `cat` does) or with status 0 or 1, and no panic on standard error.
#[cfg(unix)]
pub fn ended_quietly(out: &std::process::Output) -> bool {
    use std::os::unix::process::ExitStatusExt;
    let stderr = String::from_utf8_lossy(&out.stderr);
    !stderr.contains("panicked")
        && (out.status.signal() == Some(13) || out.status.code().is_some_and(|c| c <= 1))
}
