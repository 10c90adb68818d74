//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/`: the minimised inputs
//! of every fuzz run, the crashes found among them) through the very checks the fuzz
//! targets run (`tracescope_format::fuzzing`), on stable Rust, on every test run.

use std::path::Path;

use tracescope_format::fuzzing::TARGETS;

fn replay(target: &str) {
    let (_, check) = TARGETS
        .iter()
        .find(|(n, _)| *n == target)
        .expect("a target");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "{}: {} inputs",
        dir.display(),
        files.len()
    );
    for f in &files {
        let data = std::fs::read(f).unwrap();
        if std::panic::catch_unwind(|| check(&data)).is_err() {
            panic!("{target} fails on {}", f.display());
        }
    }
}

#[test]
fn read_json_corpus() {
    replay("read_json");
}

#[test]
fn read_ctf_corpus() {
    replay("read_ctf");
}

#[test]
fn read_etw_corpus() {
    replay("read_etw");
}

#[test]
fn decompress_corpus() {
    replay("decompress");
}
