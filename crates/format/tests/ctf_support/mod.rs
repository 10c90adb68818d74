//! Shared by the CTF and ETW tests: load the fixtures (and, when it is there, the
//! external corpus) as Events, and compare events field by field (args as compact
//! JSON).
#![allow(dead_code)]

use std::path::Path;

use tracescope_format::json::value::compact;
use tracescope_format::{Event, RawJson, Source};

/// The JSON fixtures that hold events, then (with `with_corpus`, when `../shared` is
/// there) the seed examples and the catapult corpus: (name, JSON text).
pub fn json_traces(with_corpus: bool) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = tracescope_testdata::fixture_files("")
        .iter()
        .filter(|p| !p.to_string_lossy().ends_with(".cpuprofile"))
        .map(|p| (tracescope_testdata::fixture_name(p), text_of(p)))
        // A trace of no events (timeline/empty.json) has nothing to write.
        .filter(|(_, text)| !events_of(text).is_empty())
        .collect();
    let shared = with_corpus
        .then(|| tracescope_testdata::corpus("", "the seed examples and catapult traces"))
        .flatten();
    if let Some(shared) = shared {
        for rel in [
            "examples/seed-guide",
            "examples/seed-viewer",
            "corpus/catapult",
        ] {
            let dir = shared.join(rel);
            let mut paths: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .collect();
            paths.sort();
            for p in paths {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                if name.ends_with(".json") || name.ends_with(".gz") {
                    out.push((name, text_of(&p)));
                }
            }
        }
    }
    out
}

/// A trace file's JSON text (decompressed).
pub fn text_of(p: &Path) -> String {
    let src = Source::open(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    src.text().to_string()
}

/// Reads a JSON trace with the crate's JSON reader (`json::read_events`).
pub fn events_of(text: &str) -> Vec<Event<'static>> {
    let mut out = Vec::new();
    tracescope_format::json::read_events(text, |e, _| out.push(e.into_owned()))
        .expect("test trace reads");
    out
}

/// The event with args/stack/extra as compact JSON and no offset, for comparison.
pub fn normal(ev: &Event<'_>) -> Event<'static> {
    let mut e = ev.clone().into_owned();
    let c = |r: &mut Option<RawJson<'static>>| {
        if let Some(x) = r {
            *x = RawJson::owned(compact(&x.text));
        }
    };
    c(&mut e.args);
    c(&mut e.stack);
    c(&mut e.estack);
    for (_, v) in &mut e.extra {
        *v = RawJson::owned(compact(&v.text));
    }
    e.offset = 0;
    e
}

/// Asserts two event lists are the same, naming the first difference.
pub fn assert_same_events(what: &str, want: &[Event<'_>], got: &[Event<'_>]) {
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        assert_eq!(normal(g), normal(w), "{what}: event {i} differs");
    }
    assert_eq!(got.len(), want.len(), "{what}: event count");
}

/// Writes `events` as CTF with packets of `packet_bytes` and returns the metadata
/// text and the stream file's bytes (one fresh directory per call: tests run in
/// parallel threads of one process).
#[allow(dead_code)] // not every test file that includes this module writes CTF
pub fn written(events: &[Event<'_>], packet_bytes: usize) -> (String, Vec<u8>) {
    use tracescope_format::ctf::{write_dir, CtfWriteOptions};
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("tracescope-ctf-test-{}-{n}", std::process::id()));
    let opts = CtfWriteOptions {
        packet_bytes,
        ..Default::default()
    };
    write_dir(&dir, events, &opts).unwrap();
    let r = (
        std::fs::read_to_string(dir.join("metadata")).unwrap(),
        std::fs::read(dir.join("chrome_0")).unwrap(),
    );
    let _ = std::fs::remove_dir_all(&dir);
    r
}

/// A directory for one test's files, removed when the test is done with it (left
/// behind only when the test panics, to be looked at).
#[allow(dead_code)] // not every test file that includes this module writes files
pub struct TestDir(std::path::PathBuf);

#[allow(dead_code)]
impl TestDir {
    /// `$TMPDIR/tracescope-PREFIX-PID-NAME` (a `/` in the name becomes `-`, so
    /// the directory is one level), emptied first.
    pub fn new(prefix: &str, name: &str) -> TestDir {
        let d = std::env::temp_dir().join(format!(
            "tracescope-{prefix}-{}-{}",
            std::process::id(),
            name.replace(['/', '\\'], "-")
        ));
        let _ = std::fs::remove_dir_all(&d);
        TestDir(d)
    }
}

impl std::ops::Deref for TestDir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for TestDir {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
