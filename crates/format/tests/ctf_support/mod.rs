//! Shared by the CTF and ETW tests: load the seed examples and corpus traces as
//! Events, and compare events field by field (args as compact JSON).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use tracescope_format::json::value::compact;
use tracescope_format::{Event, RawJson};

pub fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// The seed-guide examples and the catapult corpus: (name, JSON text).
pub fn json_traces(with_corpus: bool) -> Vec<(String, String)> {
    let mut dirs = vec![
        shared().join("examples/seed-guide"),
        shared().join("examples/seed-viewer"),
    ];
    if with_corpus {
        dirs.push(shared().join("corpus/catapult"));
    }
    let mut out = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&p).unwrap();
            let text = if name.ends_with(".gz") {
                use std::io::Read;
                let mut s = String::new();
                flate2::read::MultiGzDecoder::new(&bytes[..])
                    .read_to_string(&mut s)
                    .unwrap();
                s
            } else if name.ends_with(".json") {
                String::from_utf8_lossy(&bytes).into_owned()
            } else {
                continue;
            };
            out.push((name, text));
        }
    }
    out
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
